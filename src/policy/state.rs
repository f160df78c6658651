//! The host state model the policy engine reads: host, coprocessors,
//! preferences, cc_config options, projects, apps, app versions, jobs and
//! their active tasks (spec §2, §9.6).
//!
//! These are the engine's own types, not the parser's; a replay layer
//! converts parsed traces into a [`HostState`]. Indices are plain `usize`s
//! into the vectors of the state: `ProjectIdx` into [`HostState::projects`],
//! `RscIdx` into the resource list (0 = CPU, then the coprocessors of
//! [`Host::coprocs`] in order), `JobIdx` into [`HostState::jobs`].
//! [`HostState::validate`] checks every such index and every number the
//! engine divides by; all public entry points call it first, so the engine
//! never indexes out of bounds.
//!
//! The order of `projects` is the client's project order (§2.7) and the order
//! of `jobs` is `gstate.results` order (received time, then MD5 of the name;
//! emulator: see §2.7). The replay layer is responsible for both.
//!
//! A few fields are transient engine state the client keeps between decisions
//! (`Project::prio`, `HostState::rec_sum`, `Task::last_deadline_miss_time`);
//! they are part of the model because the client's printed priorities depend
//! on their stale values (§5.4, §9.4).
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use super::params::Params;
use super::PolicyError;
use crate::resource::ResourceType;
use compact_str::CompactString;
use serde::{Deserialize, Serialize};

/// Index of a project in [`HostState::projects`].
pub type ProjectIdx = usize;
/// Index of a resource type: 0 = CPU, `r ≥ 1` = `Host::coprocs[r - 1]`.
pub type RscIdx = usize;
/// Index of a job in [`HostState::jobs`].
pub type JobIdx = usize;
/// Bit mask over the instances of one coprocessor type (bit i = instance i).
pub type InstanceMask = u64;

/// Most coprocessor instances of one type the engine models (`MAX_COPROC_INSTANCES`, §1).
pub const MAX_COPROC_INSTANCES: usize = 64;
/// Most resource types including the CPU (`MAX_RSC`, §1).
pub const MAX_RSC: usize = 8;

/// One coprocessor type of the host (spec §2.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coproc {
    /// Its kind.
    pub rsc_type: ResourceType,
    /// Number of usable instances.
    pub count: usize,
    /// Peak FLOPS of one instance as detected (≤ 0 or absurd: default, §1).
    pub peak_flops: f64,
    /// An accelerator that is not a GPU (`non_gpu`, §2.1).
    pub non_gpu: bool,
}

/// Host hardware (spec §2.2, §2.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Host {
    /// Detected CPU count (`p_ncpus`).
    pub p_ncpus: u32,
    /// Benchmarked FLOPS of one CPU core (`p_fpops`).
    pub p_fpops: f64,
    /// Physical RAM in bytes.
    pub m_nbytes: f64,
    /// Coprocessor types in the client's order (NVIDIA, AMD/ATI, Intel, Apple, others).
    pub coprocs: Vec<Coproc>,
}

/// Global preferences that change policy (spec §1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prefs {
    /// `work_buf_min_days`.
    pub work_buf_min_days: f64,
    /// `work_buf_additional_days`.
    pub work_buf_additional_days: f64,
    /// `cpu_scheduling_period_minutes`.
    pub cpu_scheduling_period_minutes: f64,
    /// `max_ncpus_pct` (0 = no limit).
    pub max_ncpus_pct: f64,
    /// `niu_max_ncpus_pct` (used when the user is not active and it is ≥ 0).
    pub niu_max_ncpus_pct: f64,
    /// `cpu_usage_limit` in percent.
    pub cpu_usage_limit: f64,
    /// `niu_cpu_usage_limit` in percent (used when the user is not active and it is ≥ 0).
    pub niu_cpu_usage_limit: f64,
    /// `leave_apps_in_memory`.
    pub leave_apps_in_memory: bool,
    /// `ram_max_used_busy_frac`.
    pub ram_max_used_busy_frac: f64,
    /// `ram_max_used_idle_frac`.
    pub ram_max_used_idle_frac: f64,
}

impl Default for Prefs {
    /// `GLOBAL_PREFS::defaults` (spec §1).
    fn default() -> Self {
        Prefs {
            work_buf_min_days: 0.1,
            work_buf_additional_days: 0.5,
            cpu_scheduling_period_minutes: 60.0,
            max_ncpus_pct: 0.0,
            niu_max_ncpus_pct: 100.0,
            cpu_usage_limit: 100.0,
            niu_cpu_usage_limit: -1.0,
            leave_apps_in_memory: false,
            ram_max_used_busy_frac: 0.5,
            ram_max_used_idle_frac: 0.9,
        }
    }
}

/// The project of a GPU exclusion whose project the emulator culled
/// (cull_projects() runs after process_gpu_exclusions()): it excludes no
/// instance of a project left, yet still sets its type's has_exclusions.
pub const CULLED_PROJECT: ProjectIdx = ProjectIdx::MAX;

/// One `<exclude_gpu>` entry of cc_config (spec §2.5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuExclusion {
    /// The project it applies to, or [`CULLED_PROJECT`].
    pub project: ProjectIdx,
    /// The coprocessor type, or all types.
    pub rsc: Option<RscIdx>,
    /// The app, or all apps of the project.
    pub app: Option<CompactString>,
    /// The device (instance) number, or all instances.
    pub device: Option<usize>,
}

/// cc_config.xml options that change policy (spec §1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CcConfig {
    /// `<ncpus>` (0 or negative: not set).
    pub ncpus: i32,
    /// `<fetch_minimal_work>`.
    pub fetch_minimal_work: bool,
    /// `<fetch_on_update>`.
    pub fetch_on_update: bool,
    /// `<prioritize_gpu>`.
    pub prioritize_gpu: bool,
    /// `<rec_half_life_days>` (non-positive: 10 days); see [`Params::rec_half_life_secs`].
    pub rec_half_life_days: f64,
    /// `<no_gpus>`.
    pub no_gpus: bool,
    /// `<exclude_gpu>` entries.
    pub exclude_gpus: Vec<GpuExclusion>,
    /// The `cpu_sched_debug` log flag: before 7.24.0 enforcement asked for
    /// a work-fetch check on idle CPUs only with it on
    /// ([`Params::idle_cpus_request_fetch`]).
    #[serde(default)]
    pub cpu_sched_debug: bool,
    /// set_no_rsc_config() ran at start-up, so project-wide exclusions of
    /// every instance of a GPU type block fetching it ("blocked by
    /// configuration file"): in every real client, in the emulator only
    /// from b50ce98065 (first in 7.5.0; client/sim.cpp before never calls
    /// it, and no project is blocked).
    #[serde(default = "yes")]
    pub sets_no_rsc_config: bool,
}

fn yes() -> bool {
    true
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig {
            ncpus: 0,
            fetch_minimal_work: false,
            fetch_on_update: false,
            prioritize_gpu: false,
            rec_half_life_days: 10.0,
            no_gpus: false,
            exclude_gpus: Vec::new(),
            cpu_sched_debug: false,
            sets_no_rsc_config: true,
        }
    }
}

/// Smoothed availability fractions (spec §2.8), read from the recorded state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimeStats {
    /// `on_frac`.
    pub on_frac: f64,
    /// `active_frac`.
    pub active_frac: f64,
    /// `gpu_active_frac`.
    pub gpu_active_frac: f64,
    /// `cpu_and_network_available_frac`.
    pub cpu_and_network_available_frac: f64,
}

impl Default for TimeStats {
    fn default() -> Self {
        TimeStats {
            on_frac: 1.0,
            active_frac: 1.0,
            gpu_active_frac: 1.0,
            cpu_and_network_available_frac: 1.0,
        }
    }
}

/// A job's resource usage (`RESOURCE_USAGE`, spec §2.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceUsage {
    /// CPUs used (`avg_ncpus`).
    pub avg_ncpus: f64,
    /// Resource type: 0 = CPU job, `r ≥ 1` = coprocessor job of that type.
    pub rsc: RscIdx,
    /// Instances of `rsc` used (fractional allowed); 0 for CPU jobs.
    pub coproc_usage: f64,
    /// Estimated FLOPS of the job while running.
    pub flops: f64,
    /// Needs a coprocessor type that is absent or fully excluded.
    pub missing_coproc: bool,
}

impl ResourceUsage {
    /// A CPU job using `avg_ncpus` CPUs at `flops`.
    pub fn cpu(avg_ncpus: f64, flops: f64) -> Self {
        ResourceUsage {
            avg_ncpus,
            rsc: 0,
            coproc_usage: 0.0,
            flops,
            missing_coproc: false,
        }
    }

    /// A coprocessor job.
    pub fn coproc(avg_ncpus: f64, rsc: RscIdx, coproc_usage: f64, flops: f64) -> Self {
        ResourceUsage {
            avg_ncpus,
            rsc,
            coproc_usage,
            flops,
            missing_coproc: false,
        }
    }

    /// True for any coprocessor job (`RESULT::uses_coprocs`).
    pub fn uses_coprocs(&self) -> bool {
        self.rsc != 0
    }
}

/// An application of a project, with its app_config options (spec §2.6, §2.7).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct App {
    /// App name.
    pub name: CompactString,
    /// `<max_concurrent>` from app_config.xml.
    pub max_concurrent: Option<u32>,
    /// `<fraction_done_exact>`.
    pub fraction_done_exact: bool,
    /// Non-CPU-intensive app.
    pub non_cpu_intensive: bool,
    /// Sporadic app.
    pub sporadic: bool,
    /// Every version misses its coprocessor (all its instances excluded):
    /// the emulator's server sends no job of it (client/sim.cpp
    /// get_app_params sets `app->ignore`), the client still counts it in
    /// its exclusions.
    #[serde(default)]
    pub ignored: bool,
}

impl App {
    /// A plain app without options.
    pub fn new(name: &str) -> Self {
        App {
            name: name.into(),
            max_concurrent: None,
            fraction_done_exact: false,
            non_cpu_intensive: false,
            sporadic: false,
            ignored: false,
        }
    }
}

/// An app version (spec §2.3, §7.5 step 9, §6.2 step 6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AppVersion {
    /// The app it belongs to.
    pub app: CompactString,
    /// Its resource usage.
    pub usage: ResourceUsage,
    /// Needs the network while computing.
    pub needs_network: bool,
}

/// Why a scheduler RPC is pending (`sched_rpc_pending`, §7.1, §7.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RpcReason {
    /// User requested an update.
    UserReq,
    /// Results are due.
    ResultsDue,
    /// Work fetch chose the project.
    NeedWork,
    /// A trickle-up message is pending.
    TrickleUp,
    /// Account manager request.
    AcctMgrReq,
    /// First RPC after attach.
    Init,
    /// The project asked for it (`next_rpc_time`).
    ProjectReq,
}

/// Per-(project, resource) persistent state (spec §7.5, §7.12, §7.14).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectRsc {
    /// `backoff_time`: absolute time until which fetch for this resource is backed off.
    pub backoff_time: f64,
    /// `backoff_interval`: the current nominal interval.
    pub backoff_interval: f64,
    /// `no_rsc_pref`: blocked by project preferences.
    pub no_rsc_pref: bool,
    /// `no_rsc_apps`: the project has no apps for it (last reply).
    pub no_rsc_apps: bool,
    /// `no_rsc_ams`: blocked by the account manager.
    pub no_rsc_ams: bool,
    /// `sched_req_no_work`: the last request for it got nothing.
    pub sched_req_no_work: bool,
}

/// The transient priority state the client keeps per project (§5.4).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectPrio {
    /// `REC_tmp` (`pwf.rec_temp`).
    pub rec_temp: f64,
    /// `resource_share_frac`.
    pub share_frac: f64,
    /// `sched_priority`.
    pub sched_priority: f64,
}

/// An attached project (spec §2.7, §9.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Project {
    /// Project name as printed in logs.
    pub name: CompactString,
    /// Master URL.
    pub url: CompactString,
    /// Allocation sequence of the project object (simulation order, §9.1):
    /// with [`super::params::RrSimOrder::AllocationOrder`] the highest
    /// sequence is simulated first.
    pub alloc_seq: u32,
    /// Resource share.
    pub resource_share: f64,
    /// Recent estimated credit.
    pub rec: f64,
    /// Time REC was last updated (0 = never).
    pub rec_time: f64,
    /// Suspended via the GUI.
    pub suspended_via_gui: bool,
    /// "No new tasks".
    pub dont_request_more_work: bool,
    /// Non-CPU-intensive project.
    pub non_cpu_intensive: bool,
    /// Anonymous platform.
    pub anonymous_platform: bool,
    /// Master URL fetch pending.
    pub master_url_fetch_pending: bool,
    /// Project-level RPC backoff: no RPC before this time.
    pub min_rpc_time: f64,
    /// Project-requested next RPC time (0 = none).
    pub next_rpc_time: f64,
    /// Consecutive RPC failures.
    pub nrpc_failures: u32,
    /// Consecutive master fetch failures.
    pub master_fetch_failures: u32,
    /// Pending RPC reason.
    pub sched_rpc_pending: Option<RpcReason>,
    /// Ignore DCF (`dont_use_dcf`).
    pub dont_use_dcf: bool,
    /// Duration correction factor.
    pub dcf: f64,
    /// A download is stalled (project level, §2.7).
    pub some_download_stalled: bool,
    /// Too many uploads in progress (§7.3; the replay layer computes it).
    pub too_many_uploading_results: bool,
    /// Set when one of its jobs finishes, cleared by any reply (§7.1 step 7).
    pub request_if_idle_and_uploading: bool,
    /// `project_max_concurrent` from app_config.xml.
    pub project_max_concurrent: Option<u32>,
    /// The smallest `max_concurrent` of app_config.xml's complete `<app>`
    /// entries, applied or not: `project_has_mc` and `project_min_mc`
    /// count every one (`APP_CONFIGS::parse`), also one naming an app the
    /// project lacks or read before a parse error (after which
    /// `check_app_config` applies none), though only an applied entry
    /// limits its app.
    pub config_max_concurrent: Option<u32>,
    /// Per-resource state, one per resource type.
    pub rsc: Vec<ProjectRsc>,
    /// Apps.
    pub apps: Vec<App>,
    /// App versions.
    pub app_versions: Vec<AppVersion>,
    /// Transient priority state.
    pub prio: ProjectPrio,
}

impl Project {
    /// A project with default flags, share `resource_share`, for `n_rsc` resource types.
    pub fn new(name: &str, resource_share: f64, n_rsc: usize) -> Self {
        Project {
            name: name.into(),
            url: CompactString::default(),
            alloc_seq: 0,
            resource_share,
            rec: 0.0,
            rec_time: 0.0,
            suspended_via_gui: false,
            dont_request_more_work: false,
            non_cpu_intensive: false,
            anonymous_platform: false,
            master_url_fetch_pending: false,
            min_rpc_time: 0.0,
            next_rpc_time: 0.0,
            nrpc_failures: 0,
            master_fetch_failures: 0,
            sched_rpc_pending: None,
            dont_use_dcf: true,
            dcf: 1.0,
            some_download_stalled: false,
            too_many_uploading_results: false,
            request_if_idle_and_uploading: false,
            project_max_concurrent: None,
            config_max_concurrent: None,
            rsc: vec![ProjectRsc::default(); n_rsc],
            apps: Vec::new(),
            app_versions: Vec::new(),
            prio: ProjectPrio::default(),
        }
    }

    /// The app named `name`, if declared.
    pub fn app(&self, name: &str) -> Option<&App> {
        self.apps.iter().find(|app| app.name == name)
    }

    /// True if the project has any concurrency limit (`project_has_mc`, §2.6).
    pub fn has_max_concurrent(&self) -> bool {
        self.project_max_concurrent.is_some()
            || self.config_max_concurrent.is_some()
            || self.apps.iter().any(|app| app.max_concurrent.is_some())
    }

    /// The smallest concurrency limit (`project_min_mc`, §2.6), 0 if none.
    pub fn min_max_concurrent(&self) -> u32 {
        self.apps
            .iter()
            .filter_map(|app| app.max_concurrent)
            .chain(self.project_max_concurrent)
            .chain(self.config_max_concurrent)
            .filter(|&limit| limit > 0)
            .min()
            .unwrap_or(0)
    }

    /// Mirrors PROJECT::can_request_work() in client/project.cpp (§2.7).
    pub fn can_request_work(&self, now: f64) -> bool {
        !self.suspended_via_gui
            && !self.master_url_fetch_pending
            && self.min_rpc_time <= now
            && !self.dont_request_more_work
    }
}

/// A job's state (`RESULT::state()`), in the client's numeric order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum JobState {
    /// `RESULT_NEW`.
    New,
    /// `RESULT_FILES_DOWNLOADING`.
    Downloading,
    /// `RESULT_FILES_DOWNLOADED`: ready to run.
    Downloaded,
    /// `RESULT_COMPUTE_ERROR`.
    ComputeError,
    /// `RESULT_FILES_UPLOADING`.
    Uploading,
    /// `RESULT_FILES_UPLOADED`.
    Uploaded,
    /// `RESULT_ABORTED`.
    Aborted,
}

/// The scheduler's decision for a task (`scheduler_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchedulerState {
    /// Never scheduled.
    Uninitialized,
    /// Preempted by the last enforcement.
    Preempted,
    /// Scheduled by the last enforcement.
    Scheduled,
}

/// The process state of a task (`task_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskState {
    /// No process yet.
    Uninitialized,
    /// Running.
    Executing,
    /// Suspended in memory.
    Suspended,
    /// Being aborted.
    AbortPending,
    /// Being asked to quit.
    QuitPending,
    /// Exited.
    Exited,
}

/// An active task: the running or preempted instance of a job (spec §3.2, §6.3, §9.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Elapsed (wall) time.
    pub elapsed: f64,
    /// Fraction done reported by the app.
    pub fraction_done: f64,
    /// Elapsed time when `fraction_done` was reported.
    pub fraction_done_elapsed: f64,
    /// Scheduler state left by the last enforcement.
    pub scheduler_state: SchedulerState,
    /// Process state.
    pub task_state: TaskState,
    /// Wall time of the last checkpoint (0 = never).
    pub checkpoint_wall_time: f64,
    /// Elapsed time at the last checkpoint (`checkpoint_elapsed_time`; 0 =
    /// never checkpointed, the task stays in memory when preempted, §6.3).
    /// The emulator advances `checkpoint_wall_time` but never this one.
    #[serde(default)]
    pub checkpoint_elapsed: f64,
    /// Start of the current run interval.
    pub run_interval_start: f64,
    /// Smoothed resident set size in bytes.
    pub rss_smoothed: f64,
    /// Once ran in EDF mode.
    pub once_ran_edf: bool,
    /// Last time the simulation saw it miss its deadline.
    pub last_deadline_miss_time: f64,
    /// Coprocessor instances currently assigned.
    pub coproc_indices: Vec<usize>,
    /// Creation order among active tasks (the client's `active_tasks`
    /// vector, which scans such as assign_results_to_projects() follow);
    /// 0 = not known, before every numbered task.
    #[serde(default)]
    pub seq: u64,
}

impl Task {
    /// A task that never ran.
    pub fn new() -> Self {
        Task {
            elapsed: 0.0,
            fraction_done: 0.0,
            fraction_done_elapsed: 0.0,
            scheduler_state: SchedulerState::Uninitialized,
            task_state: TaskState::Uninitialized,
            checkpoint_wall_time: 0.0,
            checkpoint_elapsed: 0.0,
            run_interval_start: 0.0,
            rss_smoothed: 0.0,
            once_ran_edf: false,
            last_deadline_miss_time: 0.0,
            coproc_indices: Vec::new(),
            seq: 0,
        }
    }

    /// True if the task's process exists (executing or suspended in memory).
    pub fn has_process(&self) -> bool {
        matches!(self.task_state, TaskState::Executing | TaskState::Suspended)
    }
}

impl Default for Task {
    fn default() -> Self {
        Task::new()
    }
}

/// A job (`RESULT`) with its workunit's estimate (spec §2.3, §3, §9.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Job name.
    pub name: CompactString,
    /// Its project.
    pub project: ProjectIdx,
    /// Its app's name.
    pub app: CompactString,
    /// Resource usage (running jobs keep the usage they started with).
    pub usage: ResourceUsage,
    /// The app version needs the network.
    pub needs_network: bool,
    /// Workunit `rsc_fpops_est`.
    pub rsc_fpops_est: f64,
    /// Emulator only (§3.2): the exact remaining FLOPs, used with
    /// [`super::params::RuntimeModel::Emulator`]; negative for a job that
    /// finished but is not reported.
    pub exact_flops_remaining: Option<f64>,
    /// `received_time`.
    pub received_time: f64,
    /// `report_deadline`.
    pub report_deadline: f64,
    /// State.
    pub state: JobState,
    /// Suspended via the GUI.
    pub suspended_via_gui: bool,
    /// Ready to report.
    pub ready_to_report: bool,
    /// The app asked to be postponed until this time (0 = not).
    pub schedule_backoff: f64,
    /// A download of one of its files is stalled (§2.7).
    pub download_stalled: bool,
    /// `RESULT::index` (position after the last sort; emulator: 0 for generated jobs).
    pub index: i64,
    /// `RESULT::index` was never set: a job the emulator created after
    /// start-up (sim.cpp `make_job`; `sort_results()` runs only at start-up).
    /// Today's `RESULT::clear()` sets it to 0; before 0ce3f7d996 (first in
    /// 7.6.13) it was left uninitialised (see
    /// [`Params::uninitialised_result_index`]).
    #[serde(default)]
    pub index_unset: bool,
    /// Creation order of the `RESULT` object: state-file order for the jobs
    /// loaded at start-up, then arrival order. The client's last tie-breaker
    /// in `more_important()` compares object addresses, which follow it
    /// (§6.3; policy-legacy B.15.3).
    #[serde(default)]
    pub alloc_seq: u64,
    /// Its active task, if it has one.
    pub task: Option<Task>,
    /// Its estimate (`rsc_fpops_est`) is not known to the caller: taken as
    /// its true size. A replay gives the order of ties such an estimate
    /// would break from the recording (see `make_run_list`'s `tie_hint`).
    #[serde(default)]
    pub estimate_unknown: bool,
    /// `unfinished_time_slice` as the last enforcement left it (printed
    /// stale in the next preliminary job list: the client clears it only
    /// after printing).
    #[serde(default)]
    pub unfinished_time_slice: bool,
}

impl Job {
    /// A downloaded, unstarted job.
    pub fn new(
        name: &str,
        project: ProjectIdx,
        app: &str,
        usage: ResourceUsage,
        rsc_fpops_est: f64,
    ) -> Self {
        Job {
            name: name.into(),
            project,
            app: app.into(),
            usage,
            needs_network: false,
            rsc_fpops_est,
            exact_flops_remaining: None,
            received_time: 0.0,
            report_deadline: f64::MAX,
            state: JobState::Downloaded,
            suspended_via_gui: false,
            ready_to_report: false,
            schedule_backoff: 0.0,
            download_stalled: false,
            index: 0,
            index_unset: false,
            alloc_seq: 0,
            task: None,
            estimate_unknown: false,
            unfinished_time_slice: false,
        }
    }

    /// Mirrors RESULT::computing_done() in client/result.cpp.
    pub fn computing_done(&self) -> bool {
        self.state >= JobState::ComputeError || self.ready_to_report
    }
}

/// Everything the policy reads: a snapshot of the client (spec §9.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostState {
    /// Hardware.
    pub host: Host,
    /// Preferences.
    pub prefs: Prefs,
    /// cc_config options.
    pub config: CcConfig,
    /// Availability.
    pub time_stats: TimeStats,
    /// Projects in project order.
    pub projects: Vec<Project>,
    /// Jobs in `gstate.results` order.
    pub jobs: Vec<Job>,
    /// The user is active (preferences' "in use" variants).
    pub user_active: bool,
    /// GPU computing is suspended (`gpu_suspend_reason ≠ 0`).
    pub gpu_suspended: bool,
    /// GPUs are usable (false only with Windows remote desktop).
    pub gpus_usable: bool,
    /// File transfers are suspended (jobs needing the network are not runnable).
    pub network_suspended: bool,
    /// Start of the current REC accounting interval.
    pub rec_interval_start: f64,
    /// `rec_sum` from the last priority initialisation (§5.5).
    pub rec_sum: f64,
    /// `total_peak_flops()` as cached by the client at first use (§2.4
    /// (artifact)); `None` computes it from the current state.
    pub total_peak_flops_cached: Option<f64>,
    /// The client had or requested work since start (`had_or_requested_work`).
    pub had_or_requested_work: bool,
    /// The projects' priorities as given (a host reconstructed from a
    /// record's `[prio]` lines): the run list starts from them instead of
    /// initialising them from REC.
    #[serde(default)]
    pub given_priorities: Option<GivenPriorities>,
    /// Each project's count of CPU jobs the pass's simulation misses the
    /// deadline of, as given (a record's printed counts), in project
    /// order: the run list's EDF part counts down from them instead of
    /// from its own simulation's.
    #[serde(default)]
    pub given_cpu_misses: Option<Vec<i64>>,
}

/// Priorities a run list starts from when they are given rather than
/// initialised from REC ([`HostState::given_priorities`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GivenPriorities {
    /// `rec_sum`.
    pub rec_sum: f64,
    /// Each project's `prio`, in project order.
    pub prio: Vec<ProjectPrio>,
}

impl HostState {
    /// An empty state for `host`, with default preferences and config.
    pub fn new(host: Host) -> Self {
        HostState {
            host,
            prefs: Prefs::default(),
            config: CcConfig::default(),
            time_stats: TimeStats::default(),
            projects: Vec::new(),
            jobs: Vec::new(),
            user_active: false,
            gpu_suspended: false,
            gpus_usable: true,
            network_suspended: false,
            rec_interval_start: 0.0,
            rec_sum: 1.0,
            total_peak_flops_cached: None,
            had_or_requested_work: false,
            given_priorities: None,
            given_cpu_misses: None,
        }
    }

    /// Number of resource types including the CPU.
    pub fn n_rsc(&self) -> usize {
        1 + self.host.coprocs.len()
    }

    /// The kind of resource `rsc`.
    pub fn rsc_type(&self, rsc: RscIdx) -> ResourceType {
        match rsc.checked_sub(1).and_then(|i| self.host.coprocs.get(i)) {
            Some(coproc) => coproc.rsc_type.clone(),
            None => ResourceType::Cpu,
        }
    }

    /// Checks every index and every number the engine relies on.
    pub fn validate(&self) -> Result<(), PolicyError> {
        let n_rsc = self.n_rsc();
        let bad = |what: String| Err(PolicyError::InvalidState(what));
        if n_rsc > MAX_RSC {
            return bad(format!("{n_rsc} resource types, at most {MAX_RSC}"));
        }
        if !(self.host.p_fpops.is_finite() && self.host.p_fpops > 0.0) {
            return bad(format!("p_fpops {} must be positive", self.host.p_fpops));
        }
        for coproc in &self.host.coprocs {
            if coproc.count > MAX_COPROC_INSTANCES {
                return bad(format!(
                    "{} has {} instances, at most {MAX_COPROC_INSTANCES}",
                    coproc.rsc_type, coproc.count
                ));
            }
        }
        for project in &self.projects {
            if project.rsc.len() != n_rsc {
                return bad(format!(
                    "project {} has {} resource entries, expected {n_rsc}",
                    project.name,
                    project.rsc.len()
                ));
            }
            for version in &project.app_versions {
                if version.usage.rsc >= n_rsc {
                    return bad(format!(
                        "project {} app version of {} uses resource {}",
                        project.name, version.app, version.usage.rsc
                    ));
                }
            }
        }
        for job in &self.jobs {
            if job.project >= self.projects.len() {
                return bad(format!(
                    "job {} refers to project {}",
                    job.name, job.project
                ));
            }
            if job.usage.rsc >= n_rsc {
                return bad(format!("job {} uses resource {}", job.name, job.usage.rsc));
            }
            if !(job.usage.flops.is_finite()
                && job.usage.avg_ncpus.is_finite()
                && job.usage.coproc_usage.is_finite())
            {
                return bad(format!("job {} has a non-finite resource usage", job.name));
            }
        }
        for exclusion in &self.config.exclude_gpus {
            if (exclusion.project >= self.projects.len() && exclusion.project != CULLED_PROJECT)
                || exclusion.rsc.is_some_and(|rsc| rsc == 0 || rsc >= n_rsc)
            {
                return bad(format!(
                    "GPU exclusion {exclusion:?} refers to an unknown project or type"
                ));
            }
        }
        Ok(())
    }

    /// Mirrors CLIENT_STATE::set_n_usable_cpus() in client/cpu_sched.cpp (§2.2).
    pub fn n_usable_cpus(&self) -> usize {
        let base = if self.config.ncpus > 0 {
            self.config.ncpus as f64
        } else {
            f64::from(self.host.p_ncpus)
        };
        let mut pct = self.prefs.max_ncpus_pct;
        if !self.user_active && self.prefs.niu_max_ncpus_pct >= 0.0 {
            pct = self.prefs.niu_max_ncpus_pct;
        }
        let mut n = base;
        if pct != 0.0 && pct.is_finite() {
            n = (base * pct / 100.0).trunc();
        }
        if n.is_nan() || n <= 0.0 {
            1
        } else {
            n as usize
        }
    }

    /// Instance count of each resource (`RSC_WORK_FETCH::ninstances`): usable CPUs, then coprocessor counts.
    pub fn ninstances(&self, rsc: RscIdx) -> usize {
        if rsc == 0 {
            self.n_usable_cpus()
        } else {
            self.host
                .coprocs
                .get(rsc - 1)
                .map_or(0, |coproc| coproc.count)
        }
    }

    /// True if `job` uses a GPU (a coprocessor that is not `non_gpu`; `RESULT::uses_gpu`).
    pub fn uses_gpu(&self, job: &Job) -> bool {
        job.usage.rsc != 0
            && self
                .host
                .coprocs
                .get(job.usage.rsc - 1)
                .is_some_and(|coproc| !coproc.non_gpu)
    }

    /// `work_buf_min()` in client/client_state.h (§7.2).
    pub fn work_buf_min(&self, params: &Params) -> f64 {
        (self.prefs.work_buf_min_days * 86400.0).max(params.wf_est_fetch_time)
    }

    /// `work_buf_additional()` (§7.2).
    pub fn work_buf_additional(&self) -> f64 {
        self.prefs.work_buf_additional_days.max(0.0) * 86400.0
    }

    /// `work_buf_total()` (§7.2).
    pub fn work_buf_total(&self, params: &Params) -> f64 {
        (self.work_buf_min(params) + self.work_buf_additional()).max(1.0)
    }

    /// The CPU scheduling period in seconds (`cpu_scheduling_period()`, §1).
    pub fn cpu_scheduling_period(&self) -> f64 {
        let minutes = self.prefs.cpu_scheduling_period_minutes;
        if minutes < 0.0001 || !minutes.is_finite() {
            3600.0
        } else {
            minutes * 60.0
        }
    }

    /// Mirrors CLIENT_STATE::overall_cpu_frac() in client/work_fetch.cpp (§2.8).
    pub fn cpu_frac(&self, params: &Params) -> f64 {
        clamp_frac(
            self.time_stats.on_frac * self.time_stats.active_frac,
            params,
        )
    }

    /// Mirrors CLIENT_STATE::overall_gpu_frac() (§2.8).
    pub fn gpu_frac(&self, params: &Params) -> f64 {
        clamp_frac(
            self.time_stats.on_frac * self.time_stats.gpu_active_frac,
            params,
        )
    }

    /// Mirrors CLIENT_STATE::overall_cpu_and_network_frac() (§2.8).
    pub fn net_frac(&self, params: &Params) -> f64 {
        clamp_frac(
            self.time_stats.on_frac * self.time_stats.cpu_and_network_available_frac,
            params,
        )
    }

    /// Mirrors RSC_WORK_FETCH's `relative_speed` set in WORK_FETCH::init() (§2.4):
    /// 1 for the CPU; `count × 0.2 × peak / p_fpops` for a coprocessor (note the count).
    pub fn relative_speed(&self, rsc: RscIdx, params: &Params) -> f64 {
        match rsc.checked_sub(1).and_then(|i| self.host.coprocs.get(i)) {
            None => 1.0,
            Some(coproc) => {
                let peak = if coproc.peak_flops <= 0.0
                    || coproc.peak_flops > params.max_gpu_peak_flops
                    || !coproc.peak_flops.is_finite()
                {
                    params.default_gpu_peak_flops
                } else {
                    coproc.peak_flops
                };
                coproc.count as f64 * params.gpu_efficiency * peak / self.host.p_fpops
            }
        }
    }

    /// Mirrors total_peak_flops() in client/cpu_sched.cpp (§2.4), honouring the cached value.
    pub fn total_peak_flops(&self, params: &Params) -> f64 {
        if let Some(cached) = self.total_peak_flops_cached {
            return cached;
        }
        let f = self.host.p_fpops;
        let mut total = f * self.n_usable_cpus() as f64;
        for rsc in 1..self.n_rsc() {
            total += self.relative_speed(rsc, params) * f * self.ninstances(rsc) as f64;
        }
        total
    }

    /// Mirrors peak_flops(RESULT*) in client/cpu_sched.cpp (§2.4).
    pub fn job_peak_flops(&self, job: &Job, params: &Params) -> f64 {
        let f = self.host.p_fpops;
        let mut peak = f * job.usage.avg_ncpus;
        if job.usage.rsc != 0 {
            peak += f * job.usage.coproc_usage * self.relative_speed(job.usage.rsc, params);
        }
        peak
    }

    /// Mirrors RESULT::always_run() (§2.7): NCI project or app, or sporadic app.
    pub fn always_run(&self, job: &Job) -> bool {
        let Some(project) = self.projects.get(job.project) else {
            return false;
        };
        project.non_cpu_intensive
            || project
                .app(&job.app)
                .is_some_and(|app| app.non_cpu_intensive || app.sporadic)
    }

    fn job_suspended(&self, job: &Job) -> bool {
        job.suspended_via_gui
            || self
                .projects
                .get(job.project)
                .is_none_or(|project| project.suspended_via_gui)
    }

    /// Mirrors RESULT::runnable() in client/result.cpp (§2.7).
    pub fn runnable(&self, job: &Job, now: f64) -> bool {
        !self.job_suspended(job)
            && job.state == JobState::Downloaded
            && !job.usage.missing_coproc
            && job.schedule_backoff <= now
            && !(job.needs_network && self.network_suspended)
    }

    /// Mirrors RESULT::nearly_runnable() in client/result.cpp (§2.7).
    pub fn nearly_runnable(&self, job: &Job, now: f64) -> bool {
        !self.job_suspended(job)
            && matches!(job.state, JobState::Downloading | JobState::Downloaded)
            && !job.usage.missing_coproc
            && job.schedule_backoff <= now
    }

    /// Mirrors PROJECT::runnable(rsc_type) in client/project.cpp (§2.7); `None` = any resource.
    pub fn project_runnable(&self, project: ProjectIdx, rsc: Option<RscIdx>, now: f64) -> bool {
        if self
            .projects
            .get(project)
            .is_none_or(|p| p.suspended_via_gui)
        {
            return false;
        }
        self.jobs.iter().any(|job| {
            job.project == project
                && rsc.is_none_or(|r| job.usage.rsc == r)
                && self.runnable(job, now)
        })
    }

    /// The (project, app, type) exclusion test `gpu_excluded()` in client/log_flags.cpp (§2.5).
    pub fn gpu_excluded(
        &self,
        project: ProjectIdx,
        app: &str,
        rsc: RscIdx,
        instance: usize,
    ) -> bool {
        if self.config.no_gpus {
            return true;
        }
        self.config.exclude_gpus.iter().any(|exclusion| {
            exclusion.project == project
                && exclusion.rsc.is_none_or(|r| r == rsc)
                && exclusion.app.as_deref().is_none_or(|a| a == app)
                && exclusion.device.is_none_or(|d| d == instance)
        })
    }

    /// Mask of instances of `rsc` that `app` of `project` may use (§2.5).
    pub fn app_non_excluded_instances(
        &self,
        project: ProjectIdx,
        app: &str,
        rsc: RscIdx,
    ) -> InstanceMask {
        let count = self.ninstances(rsc).min(MAX_COPROC_INSTANCES);
        (0..count)
            .filter(|&i| !self.gpu_excluded(project, app, rsc, i))
            .fold(0, |mask, i| mask | (1u64 << i))
    }

    /// `has_exclusions` of `rsc` as process_gpu_exclusions() sets it (§2.5):
    /// by an exclusion of every GPU type, or of this type. Since 7.8.0
    /// ([`Params::exclusion_needs_device`]) one naming the type must also
    /// name one of its devices: the client tests `device_num &&
    /// device_num_index(device_num) < 0`, and an absent `<device_num>` is
    /// -1, which no instance has.
    pub fn has_exclusions(&self, rsc: RscIdx, params: &Params) -> bool {
        let needs_device = params.exclusion_needs_device != 0.0;
        let ninstances = self.ninstances(rsc);
        rsc != 0
            && self.config.exclude_gpus.iter().any(|exclusion| {
                exclusion.rsc.is_none_or(|r| {
                    r == rsc && (!needs_device || exclusion.device.is_some_and(|d| d < ninstances))
                })
            })
    }

    /// Per-(project, type) `non_excluded_instances`: union over the project's apps (all if no apps).
    pub fn project_non_excluded_instances(&self, project: ProjectIdx, rsc: RscIdx) -> InstanceMask {
        let Some(p) = self.projects.get(project) else {
            return 0;
        };
        if p.apps.is_empty() {
            return self.app_non_excluded_instances(project, "", rsc) | self.all_instances(rsc);
        }
        p.apps.iter().fold(0, |mask, app| {
            mask | self.app_non_excluded_instances(project, &app.name, rsc)
        })
    }

    /// Per-(project, type) `ncoprocs_excluded`: instances excluded for at least one app.
    pub fn ncoprocs_excluded(&self, project: ProjectIdx, rsc: RscIdx) -> usize {
        if rsc == 0 {
            return 0;
        }
        let Some(p) = self.projects.get(project) else {
            return 0;
        };
        let all = self.all_instances(rsc);
        let for_all_apps = p.apps.iter().fold(all, |mask, app| {
            mask & self.app_non_excluded_instances(project, &app.name, rsc)
        });
        (all & !for_all_apps).count_ones() as usize
    }

    /// `no_rsc_config`: the project-wide (app-less) exclusions remove every
    /// instance (§2.5), once set_no_rsc_config() ran
    /// ([`CcConfig::sets_no_rsc_config`]).
    pub fn no_rsc_config(&self, project: ProjectIdx, rsc: RscIdx) -> bool {
        if rsc == 0 || self.ninstances(rsc) == 0 || !self.config.sets_no_rsc_config {
            return false;
        }
        let all = self.all_instances(rsc);
        let project_wide = (0..self.ninstances(rsc).min(MAX_COPROC_INSTANCES))
            .filter(|&i| {
                self.config.no_gpus
                    || self.config.exclude_gpus.iter().any(|exclusion| {
                        exclusion.project == project
                            && exclusion.app.is_none()
                            && exclusion.rsc.is_none_or(|r| r == rsc)
                            && exclusion.device.is_none_or(|d| d == i)
                    })
            })
            .fold(0u64, |mask, i| mask | (1u64 << i));
        project_wide == all
    }

    /// Mask with one bit per instance of `rsc`.
    pub fn all_instances(&self, rsc: RscIdx) -> InstanceMask {
        let count = self.ninstances(rsc).min(MAX_COPROC_INSTANCES);
        if count >= 64 {
            u64::MAX
        } else {
            (1u64 << count) - 1
        }
    }
}

/// Which concurrency limit a job hits (`max_concurrent_exceeded`, §2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConcurrencyLimit {
    /// The app's `max_concurrent`.
    App,
    /// The project's `project_max_concurrent`.
    Project,
}

/// The running counters behind `max_concurrent_init`, `max_concurrent_inc`
/// and `max_concurrent_exceeded` in client/result.h (§2.6).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConcurrencyCounters {
    /// Per project, per app (in `Project::apps` order).
    app_n_concurrent: Vec<Vec<u32>>,
    /// Per project.
    proj_n_concurrent: Vec<u32>,
}

impl ConcurrencyCounters {
    /// Mirrors max_concurrent_init(): all counters zero.
    pub fn new(state: &HostState) -> Self {
        ConcurrencyCounters {
            app_n_concurrent: state
                .projects
                .iter()
                .map(|p| vec![0; p.apps.len()])
                .collect(),
            proj_n_concurrent: vec![0; state.projects.len()],
        }
    }

    /// True if any project has a concurrency limit (`have_max_concurrent`).
    pub fn enabled(state: &HostState) -> bool {
        state.projects.iter().any(Project::has_max_concurrent)
    }

    fn app_position(state: &HostState, job: &Job) -> Option<usize> {
        state
            .projects
            .get(job.project)?
            .apps
            .iter()
            .position(|app| app.name == job.app)
    }

    /// Mirrors max_concurrent_inc().
    pub fn inc(&mut self, state: &HostState, job: &Job) {
        if let Some(pos) = Self::app_position(state, job) {
            if let Some(count) = self
                .app_n_concurrent
                .get_mut(job.project)
                .and_then(|row| row.get_mut(pos))
            {
                *count += 1;
            }
        }
        if let Some(count) = self.proj_n_concurrent.get_mut(job.project) {
            *count += 1;
        }
    }

    /// Mirrors max_concurrent_exceeded(). A limit of 0 means none.
    pub fn exceeded(&self, state: &HostState, job: &Job) -> Option<ConcurrencyLimit> {
        let project = state.projects.get(job.project)?;
        if let Some(pos) = Self::app_position(state, job) {
            let limit = project
                .apps
                .get(pos)
                .and_then(|app| app.max_concurrent)
                .unwrap_or(0);
            let count = self
                .app_n_concurrent
                .get(job.project)
                .and_then(|row| row.get(pos))
                .copied()
                .unwrap_or(0);
            if limit > 0 && count >= limit {
                return Some(ConcurrencyLimit::App);
            }
        }
        let limit = project.project_max_concurrent.unwrap_or(0);
        if limit > 0 && self.project_count(job.project) >= limit {
            return Some(ConcurrencyLimit::Project);
        }
        None
    }

    /// `proj_n_concurrent` of a project.
    pub fn project_count(&self, project: ProjectIdx) -> u32 {
        self.proj_n_concurrent.get(project).copied().unwrap_or(0)
    }
}

fn clamp_frac(x: f64, params: &Params) -> f64 {
    if x.is_nan() {
        return params.availability_min;
    }
    x.clamp(params.availability_min, 1.0)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The host of seed_cpu_gpu_two_projects: 4 CPUs at 5 GFLOPS, 1 NVIDIA GPU of 200 GFLOPS peak.
    pub(crate) fn seed_host() -> Host {
        Host {
            p_ncpus: 4,
            p_fpops: 5e9,
            m_nbytes: 16e9,
            coprocs: vec![Coproc {
                rsc_type: ResourceType::Nvidia,
                count: 1,
                peak_flops: 200e9,
                non_gpu: false,
            }],
        }
    }

    /// §2.2: ncpus, max_ncpus_pct and the floor of 1.
    #[test]
    fn usable_cpus_follow_section_2_2() {
        let mut state = HostState::new(seed_host());
        state.user_active = true;
        assert_eq!(state.n_usable_cpus(), 4);
        // 4 × 50 / 100 = 2.
        state.prefs.max_ncpus_pct = 50.0;
        assert_eq!(state.n_usable_cpus(), 2);
        // 4 × 10 / 100 = 0.4 → 0 → 1.
        state.prefs.max_ncpus_pct = 10.0;
        assert_eq!(state.n_usable_cpus(), 1);
        // ncpus 8 overrides the detected count; 8 × 10 / 100 = 0.8 → 1; with pct 75: 6.
        state.config.ncpus = 8;
        state.prefs.max_ncpus_pct = 75.0;
        assert_eq!(state.n_usable_cpus(), 6);
        // User not active: niu pct 100 applies: 8.
        state.user_active = false;
        assert_eq!(state.n_usable_cpus(), 8);
    }

    /// §2.4 with the seed host: relative speed 1 × 0.2 × 200e9 / 5e9 = 8;
    /// total peak 5e9 × 4 + 8 × 5e9 × 1 = 60e9.
    #[test]
    fn relative_speed_and_total_peak_of_seed_host() {
        let state = HostState::new(seed_host());
        let params = Params::default();
        assert_eq!(state.relative_speed(0, &params), 1.0);
        assert!((state.relative_speed(1, &params) - 8.0).abs() < 1e-12);
        assert!((state.total_peak_flops(&params) - 60e9).abs() < 1.0);
    }

    /// §2.4: the factor `count` — 2 GPUs of 200 GFLOPS count 2 × 0.2 × 200 / 5 = 16 each.
    #[test]
    fn relative_speed_counts_instances() {
        let mut host = seed_host();
        host.coprocs[0].count = 2;
        let state = HostState::new(host);
        assert!((state.relative_speed(1, &Params::default()) - 16.0).abs() < 1e-12);
    }

    /// §7.2: min 0.1 day = 8640 s, additional 43200 s, total 51840 s; a tiny min is floored at 180 s.
    #[test]
    fn work_buffers_follow_section_7_2() {
        let mut state = HostState::new(seed_host());
        let params = Params::default();
        assert_eq!(state.work_buf_min(&params), 8640.0);
        assert_eq!(state.work_buf_total(&params), 51840.0);
        state.prefs.work_buf_min_days = 0.0;
        state.prefs.work_buf_additional_days = 0.0;
        assert_eq!(state.work_buf_min(&params), 180.0);
        assert_eq!(state.work_buf_total(&params), 180.0);
    }

    /// §2.5: an exclusion of device 1 for one of two apps counts as one excluded instance.
    #[test]
    fn exclusions_follow_section_2_5() {
        let mut host = seed_host();
        host.coprocs[0].count = 2;
        let mut state = HostState::new(host);
        let mut project = Project::new("P", 100.0, 2);
        project.apps = vec![App::new("a"), App::new("b")];
        state.projects.push(project);
        state.config.exclude_gpus.push(GpuExclusion {
            project: 0,
            rsc: Some(1),
            app: Some("a".into()),
            device: Some(1),
        });
        assert_eq!(state.app_non_excluded_instances(0, "a", 1), 0b01);
        assert_eq!(state.app_non_excluded_instances(0, "b", 1), 0b11);
        assert_eq!(state.project_non_excluded_instances(0, 1), 0b11);
        assert_eq!(state.ncoprocs_excluded(0, 1), 1);
        assert!(!state.no_rsc_config(0, 1));
        assert!(state.has_exclusions(1, &Params::default()));
        state.config.exclude_gpus.push(GpuExclusion {
            project: 0,
            rsc: None,
            app: None,
            device: None,
        });
        assert!(state.no_rsc_config(0, 1));
    }

    #[test]
    fn validate_rejects_dangling_indices() {
        let mut state = HostState::new(seed_host());
        state
            .jobs
            .push(Job::new("x", 3, "a", ResourceUsage::cpu(1.0, 5e9), 1e12));
        assert!(state.validate().is_err());
        state.jobs.clear();
        state.projects.push(Project::new("P", 100.0, 1));
        assert!(state.validate().is_err());
    }
}

//! Typed messages of the event log: one variant per message format (or per
//! family of formats that differ only by era), per spec/formats-log.md §3,
//! §4 and §7.
//!
//! Owns the *meaning* of a log body: which format string printed it and the
//! values of its conversions. It does not own the line frame (time, project:
//! see [`crate::trace::LogEvent`]) nor the text recognition (see
//! `crate::parse::log_messages`).
//!
//! Architecture Invariant: plain data (serde); knows nothing of parsers, the
//! policy engine, replay or output formats.
//!
//! Conventions:
//! - Field names follow the words of the format string (`shortfall`, `nidle`,
//!   `req_secs`, `rec`, `prio`, …); seconds are `f64` named `secs` or after
//!   the format's word; GFLOP quantities printed as `%.2fG` are in GFLOP.
//! - Era variants: where two eras print the *same data* with different words
//!   or precision (`can request work` / `can req work`, `[wfd]` /
//!   `[work_fetch]`), one variant covers both and its doc lists the forms;
//!   the tag (kept beside the message in `LogEvent::tag`) tells the eras
//!   apart. Where the data differ (7.0–7.2 `fetch share %.3f%s…` suffix flags
//!   vs today's `share %.3f %s %s`; 6.x `finishes after`), the variants are
//!   distinct. Fields absent from older forms are `Option`s.
//! - Job, project, application and resource-reason names are
//!   [`CompactString`]s; resources are [`ResourceType`]s; reasons are the
//!   enums of [`reasons`], which keep unknown texts as `Other`.

pub mod reasons;

use crate::resource::ResourceType;
use crate::trace::ClientVersion;
use compact_str::CompactString;
use serde::{Deserialize, Serialize};

pub use reasons::{
    ChooseCriterion, DeferReason, ProjectReason, RescheduleTrigger, ResourceReason, ResultState,
    RpcReason, RunListOrder, ScheduleKind, SimReason, StartAction, SuspendReason, TaskState,
    WorkFetchTrigger,
};

/// A task's resource usage as printed by `RESULT::rsc_string`: `%.2f CPU` or
/// `%.2f CPU + %.2f %s` (long GPU name).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResources {
    /// CPUs used (`%.2f CPU`).
    pub ncpus: f64,
    /// The coprocessor part (`+ %.2f %s`), if any.
    pub coproc: Option<CoprocUsage>,
}

/// The coprocessor part of a [`JobResources`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoprocUsage {
    /// Instances used.
    pub usage: f64,
    /// The coprocessor type.
    pub rsc: ResourceType,
}

/// One resource of a work request line: `CPU (%.2f sec, %.2f inst)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceRequest {
    /// The resource.
    pub rsc: ResourceType,
    /// Seconds of work requested.
    pub secs: f64,
    /// Idle instances to fill (`inst`; 6.x prints an integer without `inst`).
    pub inst: f64,
}

/// ` (resource backoff: %.2f, inc %.2f)`: a per-(project, resource) backoff.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceBackoff {
    /// Seconds left.
    pub backoff: f64,
    /// The current backoff interval, seconds.
    pub inc: f64,
}

/// The suffix flags of the 7.0–7.2 `[work_fetch] fetch share %.3f%s%s%s%s%s`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchShareFlags {
    /// ` (blocked by prefs)`
    pub blocked_by_prefs: bool,
    /// ` (no apps)`
    pub no_apps: bool,
    /// ` (blocked by account manager)`
    pub blocked_by_account_manager: bool,
    /// ` (blocked by configuration file)`
    pub blocked_by_configuration_file: bool,
}

/// The suffix flags of the 6.6–6.12 `[wfd] %s: fetch share %.2f LTD …%s%s%s%s%s%s%s`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LtdShareFlags {
    /// ` (susp via GUI)`
    pub susp_via_gui: bool,
    /// ` (master fetch pending)`
    pub master_fetch_pending: bool,
    /// ` (comm deferred)`
    pub comm_deferred: bool,
    /// ` (no new tasks)`
    pub no_new_tasks: bool,
    /// ` (overworked)`
    pub overworked: bool,
    /// ` (too many uploads)`
    pub too_many_uploads: bool,
    /// ` (blocked by prefs)`
    pub blocked_by_prefs: bool,
    /// ` (no apps)` (6.12 REC build)
    pub no_apps: bool,
}

/// How a task was preempted: the parenthesis of `[cpu_sched] Preempting %s (...)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreemptMode {
    /// `(removed from memory)`
    RemovedFromMemory,
    /// `(left in memory)`
    LeftInMemory,
    /// `(left in memory because no checkpoint yet)` (5.10–6.4)
    LeftInMemoryNoCheckpoint,
}

/// Defines [`Message`] and [`Message::kind`] from one list, so the serde tag
/// and `kind()` can never disagree.
macro_rules! messages {
    ( $( $(#[$meta:meta])* $variant:ident = $kind:literal $({ $($body:tt)* })? , )* ) => {
        /// The body of a log line, classified.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum Message {
            $( $(#[$meta])* #[serde(rename = $kind)] $variant $({ $($body)* })? , )*
        }

        impl Message {
            /// The serde tag of this message (`"work_fetch_share"`, …), for counting.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( Message::$variant { .. } => $kind, )*
                }
            }
        }

        /// Every (variant name, kind), for the naming test.
        #[cfg(test)]
        const ALL_KINDS: &[(&str, &str)] = &[ $( (stringify!($variant), $kind), )* ];
    };
}

messages! {
    // ----- fallback and rendering prefixes -----

    /// A body that matched no known format; kept verbatim and counted.
    Unrecognized = "unrecognized" {
        /// The body text after the frame.
        text: String,
    },
    /// A scheduler-reply `<message>` shown as `Message from server: %s`
    /// (≤6.10 in every rendering; 6.12+ only notices, only in GUI/RPC copies).
    ServerMessage = "server_message" {
        /// The server's text.
        text: String,
    },

    // ----- work fetch: state dump (work_fetch_debug; [work_fetch], 6.x [wfd]) -----

    /// `[wfd]: work fetch start` (6.10), `[work_fetch]: work fetch start` (6.12),
    /// `[work_fetch] work fetch start` (7.0): start of a work-fetch pass.
    WorkFetchStart = "work_fetch_start",
    /// `[work_fetch] entering choose_project()` (7.2 only): start of a pass.
    EnteringChooseProject = "entering_choose_project",
    /// `[work_fetch] ------- start work fetch state -------` (7.0..master;
    /// 6.6–6.10 tag `[wfd]`).
    WorkFetchStateStart = "work_fetch_state_start",
    /// `[work_fetch] ------- end work fetch state -------` (7.0..master; 6.6–6.10 `[wfd]`).
    WorkFetchStateEnd = "work_fetch_state_end",
    /// `[work_fetch] target work buffer: %.2f + %.2f sec` (7.0..master; 6.6–6.10 `[wfd]`).
    TargetWorkBuffer = "target_work_buffer" {
        /// Minimum buffer, seconds.
        min_secs: f64,
        /// Additional buffer, seconds.
        additional_secs: f64,
    },
    /// `[work_fetch] --- project states ---` (7.0..master).
    ProjectStatesHeader = "project_states_header",
    /// `[work_fetch] REC %.3f prio %.3f %s` (7.4..master: `can request work` /
    /// `can't request work: REASON`, then ` (%.2f sec)`) and 7.0–7.2
    /// `[work_fetch] REC %.3f prio %.6f %s` (`can req work` / `can't req work: REASON`,
    /// then ` (backoff: %.2f sec)`).
    WorkFetchRec = "work_fetch_rec" {
        /// Recent estimated credit.
        rec: f64,
        /// Scheduling priority.
        prio: f64,
        /// Why the project cannot request work; `None` = can request.
        reason: Option<ProjectReason>,
        /// Remaining scheduler-RPC backoff, seconds.
        backoff: Option<f64>,
    },
    /// `[work_fetch] --- state for %s ---` (7.0..master; long names 7.4+, type names 7.0–7.2).
    StateFor = "state_for" {
        /// The resource of the following block.
        rsc: ResourceType,
    },
    /// `[work_fetch] shortfall %.2f nidle %.2f saturated %.2f busy %.2f` (7.0..master).
    WorkFetchShortfall = "work_fetch_shortfall" {
        /// Seconds of work missing to fill the buffer.
        shortfall: f64,
        /// Idle instances now.
        nidle: f64,
        /// Seconds until the resource becomes unsaturated.
        saturated: f64,
        /// Seconds the resource stays busy.
        busy: f64,
    },
    /// `[work_fetch] share %.3f %s %s` (7.4..master): fetchable share, resource
    /// reason (may be empty), and `""` or ` (resource backoff: %.2f, inc %.2f)`.
    WorkFetchShare = "work_fetch_share" {
        /// Fetchable share.
        share: f64,
        /// Resource reason; `None` when empty.
        reason: Option<ResourceReason>,
        /// The resource backoff, when printed.
        backoff: Option<ResourceBackoff>,
    },
    /// `[work_fetch] fetch share %.3f%s%s%s%s%s` (7.0–7.2): share plus suffixes
    /// ` (resource backoff: %.2f, inc %.2f)`, ` (blocked by prefs)`, ` (no apps)`,
    /// ` (blocked by account manager)`, ` (blocked by configuration file)`.
    WorkFetchFetchShare = "work_fetch_fetch_share" {
        /// Fetchable share.
        share: f64,
        /// The resource backoff, when printed.
        backoff: Option<ResourceBackoff>,
        /// The flag suffixes.
        flags: FetchShareFlags,
    },
    /// `[wfd] %s: shortfall %.2f nidle %.2f est. delay %.2f RS fetchable %.2f runnable %.2f`
    /// (6.6.20–6.8, but 6.6.41: the estimated delay where later releases
    /// print saturated and busy times).
    EstDelayResourceState = "est_delay_resource_state" {
        /// The resource (`CPU`, 6.6 `CUDA`).
        rsc: ResourceType,
        /// Seconds missing.
        shortfall: f64,
        /// Idle instances.
        nidle: f64,
        /// Estimated delay, seconds.
        est_delay: f64,
        /// Resource share of fetchable projects (absent from a cut copy).
        rs_fetchable: Option<f64>,
        /// Resource share of runnable projects.
        runnable: Option<f64>,
    },
    /// `[wfd] %s: shortfall %.2f nidle %.2f saturated %.2f busy %.2f RS fetchable %.2f runnable %.2f`
    /// (6.6–6.12; 6.12 tag `[work_fetch]`).
    LtdResourceState = "ltd_resource_state" {
        /// The resource (`CPU`, `NVIDIA GPU`, `ATI GPU`, 6.6 `CUDA`).
        rsc: ResourceType,
        /// Seconds missing.
        shortfall: f64,
        /// Idle instances.
        nidle: f64,
        /// Seconds saturated.
        saturated: f64,
        /// Seconds busy.
        busy: f64,
        /// Resource share of fetchable projects.
        rs_fetchable: f64,
        /// Resource share of runnable projects.
        runnable: f64,
    },
    /// `[wfd] %s: fetch share %.2f LTD %.2f backoff dt %.2f int %.2f%s%s%s%s%s%s%s`
    /// (6.10–6.12; 6.6 `debt` in place of `LTD`, five suffixes).
    LtdFetchShare = "ltd_fetch_share" {
        /// The resource.
        rsc: ResourceType,
        /// Fetchable share.
        share: f64,
        /// Long-term debt.
        ltd: f64,
        /// Backoff time left, seconds.
        backoff_dt: f64,
        /// Backoff interval, seconds.
        backoff_int: f64,
        /// The flag suffixes.
        flags: LtdShareFlags,
    },
    /// `[wfd] overall LTD %.2f` (6.10–6.12; 6.6 `[wfd] overall_debt %.0f`).
    OverallLtd = "overall_ltd" {
        /// The project's overall long-term debt.
        ltd: f64,
    },
    /// `[work_fetch] No project chosen for work fetch` (6.12..master; 6.6–6.10 `[wfd]`).
    NoProjectChosen = "no_project_chosen",
    /// `[work_fetch] Request work fetch: %s` (6.12..master; 6.10 `[wfd]`, 6.6 `[work_fetch_debug]`).
    RequestWorkFetch = "request_work_fetch" {
        /// The trigger.
        trigger: WorkFetchTrigger,
    },
    /// `[work_fetch] set_request() for %s: ninst %d nused_total %.2f nidle_now %.2f fetch share %.2f req_inst %.2f req_secs %.2f`
    /// (7.4..master; 7.0–7.2 with `%f` and type names).
    SetRequest = "set_request" {
        /// The resource.
        rsc: ResourceType,
        /// Instances of the resource.
        ninst: u32,
        /// Instances used in total.
        nused_total: f64,
        /// Idle instances now.
        nidle_now: f64,
        /// Fetch share of the chosen project.
        fetch_share: f64,
        /// Instances requested.
        req_inst: f64,
        /// Seconds requested.
        req_secs: f64,
    },
    /// `[work_fetch] using MC shortfall %f instead of shortfall %f` (7.16..master).
    UsingMcShortfall = "using_mc_shortfall" {
        /// The max-concurrent-limited shortfall.
        mc_shortfall: f64,
        /// The plain shortfall.
        shortfall: f64,
    },
    /// `[work_fetch] request: CPU (%.2f sec, %.2f inst)` + ` %s (%.2f sec, %.2f inst)` per
    /// other resource (6.12..master; type names 7.0–7.2); 6.6 `[wfd] request: CPU (%.2f sec, %d) CUDA (%.2f sec, %d)`.
    WorkRequest = "work_request" {
        /// One entry per resource, CPU first.
        resources: Vec<ResourceRequest>,
    },
    /// `[wfd] request: %.2f sec CPU (%.2f sec, %.2f)` + ` NVIDIA GPU (%.2f sec, %.2f)` … (6.10).
    LtdWorkRequest = "ltd_work_request" {
        /// Total seconds requested.
        secs: f64,
        /// One entry per resource, CPU first.
        resources: Vec<ResourceRequest>,
    },
    /// `[work_fetch] backing off %s %.0f sec` (6.12..master; 6.6–6.10 `[wfd]`).
    BackingOff = "backing_off" {
        /// The resource.
        rsc: ResourceType,
        /// Backoff, seconds.
        secs: f64,
    },
    /// `[work_fetch] deferring work fetch; upload active` (7.0..master).
    DeferringWorkFetchUploadActive = "deferring_work_fetch_upload_active",
    /// `[work_fetch] fetching work for NCI project` (8.0..master).
    FetchingWorkForNci = "fetching_work_for_nci",
    /// `[work_fetch] Using dynamic AM and some device is idle` (7.22..master).
    DynamicAmDeviceIdle = "dynamic_am_device_idle",
    /// `[work_fetch] First time - delaying RPC for %d sec` (7.22..master).
    AmFirstTimeDelay = "am_first_time_delay" {
        /// Delay, seconds.
        secs: f64,
    },
    /// `[work_fetch] AM RPC backed off for %.0f sec` (7.22..master).
    AmRpcBackedOff = "am_rpc_backed_off" {
        /// Backoff, seconds.
        secs: f64,
    },

    // ----- work fetch: untagged scan lines (work_fetch_debug, 7.16..master; 6.10 `chosen:`) -----

    /// `choose_project(): %f` (7.16–7.24).
    ChooseProjectTime = "choose_project_time" {
        /// Current time.
        now: f64,
    },
    /// `choose_project: scanning` (7.16..master).
    ChooseProjectScanning = "choose_project_scanning",
    /// `skip: %s` (7.16..master).
    ScanSkip = "scan_skip" {
        /// The project reason.
        reason: ProjectReason,
    },
    /// `can fetch %s` (7.16..master).
    CanFetch = "can_fetch" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `can't fetch %s: %s` (7.16..master).
    CantFetch = "cant_fetch" {
        /// The resource.
        rsc: ResourceType,
        /// The resource reason.
        reason: ResourceReason,
    },
    /// `%s needs work - buffer low` (7.16..master).
    NeedsWorkBufferLow = "needs_work_buffer_low" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `%s needs work - excluded instance starved` (7.16..master).
    NeedsWorkExcludedStarved = "needs_work_excluded_starved" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `checking %s` (7.16..master).
    Checking = "checking" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `%s not high prio proj` (7.16..master).
    NotHighPrioProj = "not_high_prio_proj" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `%s don't need` (7.16..master).
    DontNeed = "dont_need" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `%s can't fetch: %s` (7.16..master).
    RscCantFetch = "rsc_cant_fetch" {
        /// The resource.
        rsc: ResourceType,
        /// The resource reason.
        reason: ResourceReason,
    },
    /// `%s set_request: %f` (7.16..master).
    RscSetRequest = "rsc_set_request" {
        /// The resource.
        rsc: ResourceType,
        /// Seconds requested.
        secs: f64,
    },
    /// `%s set_request_excluded: %f` (7.16..master).
    RscSetRequestExcluded = "rsc_set_request_excluded" {
        /// The resource.
        rsc: ResourceType,
        /// Seconds requested.
        secs: f64,
    },
    /// `set_request_excluded() %d %d %d` (7.16..master).
    SetRequestExcludedArgs = "set_request_excluded_args" {
        /// The three integers, in order.
        args: [i64; 3],
    },
    /// `rsc type %d last MC limit time %f total buf %f` (7.20..master).
    McLimitTime = "mc_limit_time" {
        /// Resource index.
        rsc_type: i64,
        /// Last time the max-concurrent limit was hit.
        last_mc_limit_time: f64,
        /// Total buffer, seconds.
        total_buf: f64,
    },
    /// `piggyback_work_request()` (7.16..master).
    PiggybackWorkRequest = "piggyback_work_request",
    /// `piggyback: resource %s` (7.16..master).
    PiggybackResource = "piggyback_resource" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `piggyback: can't fetch %s: %s` (7.16..master).
    PiggybackCantFetch = "piggyback_cant_fetch" {
        /// The resource.
        rsc: ResourceType,
        /// The resource reason.
        reason: ResourceReason,
    },
    /// `piggyback: don't need %s` (7.16..master).
    PiggybackDontNeed = "piggyback_dont_need" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `piggyback: %s doesn't have jobs` (8.2..master).
    PiggybackNoJobs = "piggyback_no_jobs" {
        /// The project.
        project: CompactString,
    },
    /// `piggyback: %s can't fetch work` (7.16..master).
    PiggybackProjectCantFetch = "piggyback_project_cant_fetch" {
        /// The project.
        project: CompactString,
    },
    /// `piggyback: better proj %s` (7.16..master).
    PiggybackBetterProj = "piggyback_better_proj" {
        /// The project.
        project: CompactString,
    },
    /// `[rr_sim] piggyback: requesting %s` (7.16..master, flag rr_simulation).
    PiggybackRequesting = "piggyback_requesting" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `[rr_sim] piggyback: don't need work` (7.16..master, flag rr_simulation).
    PiggybackDontNeedWork = "piggyback_dont_need_work",
    /// `chosen: %s idle instance` (also `major shortfall`, `minor shortfall`,
    /// `starved`; 6.6–6.8, untagged: the resource first, no figures; the
    /// request follows as `[wfd] request: ...`).
    ChosenFor = "chosen_for" {
        /// Why the project was chosen.
        criterion: ChooseCriterion,
        /// The resource.
        rsc: ResourceType,
    },
    /// `chosen: %s %s: %.2f inst, %.2f sec` (6.10, untagged).
    Chosen = "chosen" {
        /// Why the project was chosen.
        criterion: ChooseCriterion,
        /// The resource.
        rsc: ResourceType,
        /// Instances requested.
        inst: f64,
        /// Seconds requested.
        secs: f64,
    },

    // ----- round-robin simulation (rr_simulation, rrsim_detail) -----

    /// `[rr_sim] doing sim: %s` (7.16..master).
    DoingSim = "doing_sim" {
        /// Why the simulation runs.
        why: SimReason,
    },
    /// `[rr_sim] already did at this time` (7.16..master).
    SimAlreadyDone = "sim_already_done",
    /// `[rr_sim] start: work_buf min %.0f additional %.0f total %.0f on_frac %.3f active_frac %.3f` (7.0..master).
    RrSimStart = "rr_sim_start" {
        /// Minimum buffer, seconds.
        work_buf_min: f64,
        /// Additional buffer, seconds.
        additional: f64,
        /// Total buffer, seconds.
        total: f64,
        /// On fraction.
        on_frac: f64,
        /// Active fraction.
        active_frac: f64,
    },
    /// `[rr_sim] rr_sim start: work_buf_total %.2f on_frac %.3f active_frac %.3f` (6.6–6.12).
    RrSimStartTotal = "rr_sim_start_total" {
        /// Total buffer, seconds.
        work_buf_total: f64,
        /// On fraction.
        on_frac: f64,
        /// Active fraction.
        active_frac: f64,
    },
    /// `pick_jobs_to_run() start` (7.20..master, untagged).
    PickJobsToRunStart = "pick_jobs_to_run_start",
    /// `pick_jobs_to_run() end` (7.20..master, untagged).
    PickJobsToRunEnd = "pick_jobs_to_run_end",
    /// `[rr_sim] %u jobs for rsc %zu` (7.20..master, flag rrsim_detail).
    JobsForRsc = "jobs_for_rsc" {
        /// Number of jobs.
        njobs: u32,
        /// Resource index.
        rsc_index: u32,
    },
    /// `[rr_sim_detail] %.2f: starting %s (%s) (%.2fG/%.2fG)` (7.4..master);
    /// 7.0–7.2 `[rr_sim_detail] %.2f: starting %s (%s)`; 6.10–6.12
    /// `[rr_sim] %.2f: starting %s (%s)`; 6.6 `[rr_sim] %.2f: starting %s`.
    SimStarting = "sim_starting" {
        /// Simulated seconds from now.
        t: f64,
        /// The job.
        job: CompactString,
        /// Its resource usage (absent in 6.6).
        resources: Option<JobResources>,
        /// Remaining GFLOP (7.4+).
        gflops_left: Option<f64>,
        /// Assumed GFLOPS rate (7.4+).
        gflops_rate: Option<f64>,
    },
    /// `[rr_sim] %.2f: %s finishes (%s) (%.2fG/%.2fG)` (7.4..master);
    /// 7.0–7.2 `[rr_sim] %.2f: %s finishes (%.2fG/%.2fG)` (no resources).
    SimFinishes = "sim_finishes" {
        /// Simulated seconds from now at which the job ends.
        t: f64,
        /// The job.
        job: CompactString,
        /// Its resource usage (7.4+).
        resources: Option<JobResources>,
        /// Remaining GFLOP.
        gflops_left: f64,
        /// Assumed GFLOPS rate.
        gflops_rate: f64,
    },
    /// `[rr_sim] %.2f: %s finishes after %.2f (%.2fG/%.2fG)` (6.6–6.12).
    SimFinishesAfter = "sim_finishes_after" {
        /// Simulated time of the step.
        t: f64,
        /// The job.
        job: CompactString,
        /// Seconds after `t` at which it finishes.
        after: f64,
        /// Remaining GFLOP.
        gflops_left: f64,
        /// Assumed GFLOPS rate.
        gflops_rate: f64,
    },
    /// `[rr_sim] at project max concurrent: t %f` (7.20..master; 7.16–7.18 without `: t`).
    AtProjectMaxConcurrent = "at_project_max_concurrent" {
        /// Simulated time.
        t: Option<f64>,
    },
    /// `[rr_sim] at app max concurrent for %s; t %f` (7.20..master; 7.16–7.18 without `; t`).
    AtAppMaxConcurrent = "at_app_max_concurrent" {
        /// The application.
        app: CompactString,
        /// Simulated time.
        t: Option<f64>,
    },
    /// `[rrsim_detail] next job to finish: %s (will finish in  %.2f sec)` (7.20..master).
    NextJobToFinish = "next_job_to_finish" {
        /// The job.
        job: CompactString,
        /// Seconds until it finishes.
        secs: f64,
    },
    /// `[rrsim_detail] taking time-slice step of %.2f sec` (7.20..master;
    /// 7.4–7.18 `time-slice step of %.2f sec`).
    TimeSliceStep = "time_slice_step" {
        /// Step, seconds.
        secs: f64,
    },
    /// `[rrsim_detail] rpbest: %s (finish delay %.2f)` (7.4–7.18).
    RpBest = "rp_best" {
        /// The job.
        job: CompactString,
        /// Finish delay, seconds.
        finish_delay: f64,
    },
    /// `[rr_sim] %s misses deadline by %.2f` (6.6..master; 5.10–6.4 `result %s misses deadline by %f`).
    MissesDeadline = "misses_deadline" {
        /// The job.
        job: CompactString,
        /// Seconds late.
        by: f64,
    },
    /// `[rr_sim] %s misses deadline but RSS too large to run` (master; 6.6..8.2 `but too large to run`).
    MissesDeadlineTooLarge = "misses_deadline_too_large" {
        /// The job.
        job: CompactString,
    },
    /// `%s: negative FLOPs left %f` (6.4..master, priority 3, untagged).
    NegativeFlopsLeft = "negative_flops_left" {
        /// The job.
        job: CompactString,
        /// FLOPs left.
        flops_left: f64,
    },
    /// `[rrsim_detail] rsc %d: sim_used_inst %lld mask %lld sim_excluded_instances %lld` (7.4..master).
    SimRscInstances = "sim_rsc_instances" {
        /// Resource index.
        rsc_index: i64,
        /// Instances used in the simulation.
        sim_used_inst: i64,
        /// Instance mask.
        mask: i64,
        /// Excluded instances mask.
        sim_excluded_instances: i64,
    },
    /// `[rr_sim] end` (7.20..master).
    RrSimEnd = "rr_sim_end",
    /// `[rr_sim] Result %s projected to miss deadline.` (7.0..master;
    /// 6.6–6.10 `[cpu_sched_debug]`, 6.12 `[cpu_sched]`).
    ProjectedDeadlineMiss = "projected_deadline_miss" {
        /// The job.
        job: CompactString,
    },
    /// `[rr_sim] Project has %d projected %s deadline misses` (7.0..master;
    /// 6.6–6.10 `[cpu_sched_debug]`, 6.12 `[cpu_sched]`).
    ProjectDeadlineMisses = "project_deadline_misses" {
        /// Number of jobs.
        count: u32,
        /// The resource.
        rsc: ResourceType,
    },
    /// `[rr_sim] %s dur: %.2f = %.3f*%.2f + %.3f*%.2f` (6.10..master).
    DurationEstimate = "duration_estimate" {
        /// The job.
        job: CompactString,
        /// Blended estimate, seconds.
        dur: f64,
        /// Weight of the elapsed-time estimate.
        w_elapsed: f64,
        /// The elapsed-time estimate.
        est_elapsed: f64,
        /// Weight of the static estimate.
        w_static: f64,
        /// The static estimate.
        est_static: f64,
    },
    /// `[rr_sim] %s frac_est %f = %f/%f` (7.x..master).
    FracEstimate = "frac_estimate" {
        /// The job.
        job: CompactString,
        /// The estimate.
        frac_est: f64,
        /// Numerator.
        num: f64,
        /// Denominator.
        den: f64,
    },

    // ----- poll loop (poll_debug; tag `[poll_debug]` ≤6.10, `[poll]` 6.12..master) -----

    /// `[poll] CLIENT_STATE::do_something(): End poll: %d tasks active`
    /// (client_state.cpp do_something(); 6.10 tag `[poll_debug]`): the
    /// number of state machines that acted in this poll.
    PollEnd = "poll_end" {
        /// Actions taken in the poll.
        actions: u32,
    },
    /// `[poll] CLIENT_STATE::poll_slow_events(): NAME` (the POLL_ACTION
    /// macro; 6.10 tag `[poll_debug]`): a state machine that acted.
    PollAction = "poll_action" {
        /// The machine's name as the client prints it (`scheduler_rpc`, …).
        name: CompactString,
    },

    // ----- CPU scheduling (cpu_sched_debug; 6.12 tag [cpu_sched]) -----

    /// `[cpu_sched_debug] Request CPU reschedule: %s` (5.10..6.10, 7.0..master).
    RequestCpuReschedule = "request_cpu_reschedule" {
        /// The trigger.
        trigger: RescheduleTrigger,
    },
    /// `[cpu_sched_debug] make_run_list(): start` (8.2..master).
    MakeRunListStart = "make_run_list_start",
    /// `[cpu_sched_debug] schedule_cpus(): start` (6.6–8.0).
    ScheduleCpusStart = "schedule_cpus_start",
    /// `[cpu_sched_debug] make_run_list(): end` (8.2..master).
    MakeRunListEnd = "make_run_list_end",
    /// `[cpu_sched_debug] enforce_run_list(): start` (7.4..master).
    EnforceRunListStart = "enforce_run_list_start",
    /// `[cpu_sched_debug] enforce_schedule(): start` (6.6–7.2).
    EnforceScheduleStart = "enforce_schedule_start",
    /// `[cpu_sched_debug] enforce_run_list: end` (7.4..master).
    EnforceRunListEnd = "enforce_run_list_end",
    /// `[cpu_sched_debug] enforce_schedule: end` (6.6–7.2).
    EnforceScheduleEnd = "enforce_schedule_end",
    /// `[cpu_sched_debug] domino prevention: mark %s as deadline miss` (7.0..master).
    DominoPrevention = "domino_prevention" {
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] thrashing prevention: mark %s as deadline miss` (7.0..master).
    ThrashingPrevention = "thrashing_prevention" {
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] add to run list: %s (%s, %s) (prio %f)` (7.6.8..master);
    /// 7.4.0–7.6.7 `add to run list: %s (%s) (prio %f)` with 6.6–7.3's kind
    /// (`coprocessor job, FIFO`, `CPU job, priority order`).
    AddToRunList = "add_to_run_list" {
        /// The job.
        job: CompactString,
        /// The resource (7.6.8+; `None` for the kind's coarse naming).
        rsc: Option<ResourceType>,
        /// `EDF` or `FIFO` (before 7.6.8 derived from the kind: any order
        /// but EDF is FIFO).
        order: RunListOrder,
        /// Project priority.
        prio: f64,
        /// The kind 7.4.0–7.6.7 print, which tells a job's resource only as
        /// CPU or coprocessor.
        schedule_kind: Option<ScheduleKind>,
    },
    /// `[cpu_sched_debug] insufficient %s for %s` (7.0..master).
    InsufficientResource = "insufficient_resource" {
        /// The coprocessor type.
        rsc: ResourceType,
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] reserving %f of coproc %s` (7.0..master).
    ReservingCoproc = "reserving_coproc" {
        /// Instances reserved.
        usage: f64,
        /// The coprocessor type.
        rsc: ResourceType,
    },
    /// `[cpu_sched_debug] waiting for shared mem: %s` (6.4..master).
    WaitingForSharedMem = "waiting_for_shared_mem" {
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] preliminary job list:` (6.6..master).
    PreliminaryJobList = "preliminary_job_list",
    /// `[cpu_sched_debug] final job list:` (6.6..master).
    FinalJobList = "final_job_list",
    /// `[cpu_sched_debug] %d: %s (%s; MD: %s; UTS: %s)` (7.24..master);
    /// 6.10–7.22 `%d: %s (MD: %s; UTS: %s)`; 6.6 `%d: %s`.
    JobListEntry = "job_list_entry" {
        /// Position in the list.
        index: u32,
        /// The job.
        job: CompactString,
        /// Its resources (7.24+).
        resources: Option<JobResources>,
        /// Missed deadline (EDF).
        md: Option<bool>,
        /// Unfinished time slice.
        uts: Option<bool>,
    },
    /// `[cpu_sched_debug] skipping %s; max concurrent limit reached` (7.16..master;
    /// 7.0–7.14 `... max concurrent limit %d reached`).
    SkippingMaxConcurrent = "skipping_max_concurrent" {
        /// The job.
        job: CompactString,
        /// The limit (7.0–7.14).
        limit: Option<u32>,
    },
    /// `[cpu_sched_debug] skipping %s: would exceed user-specified CPU limit` (8.2..master).
    SkippingCpuLimit = "skipping_cpu_limit" {
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] skipping GPU job %s; CPU committed` (7.0..master).
    SkippingGpuJobCpuCommitted = "skipping_gpu_job_cpu_committed" {
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] all CPUs used (%.2f >= %d), skipping %s` (7.0..master;
    /// 6.6–6.10 `all CPUs used, skipping %s`).
    AllCpusUsed = "all_cpus_used" {
        /// CPUs committed (7.0+).
        used: Option<f64>,
        /// Usable CPUs (7.0+).
        ncpus: Option<u32>,
        /// The job skipped.
        job: CompactString,
    },
    /// `[cpu_sched_debug] skipping %s: estimated RSS (%.2f GB) exceeds RAM left (%.2f GB)` (8.2..master).
    SkippingRss = "skipping_rss" {
        /// The job.
        job: CompactString,
        /// Estimated RSS, GB.
        rss_gb: f64,
        /// RAM left, GB.
        left_gb: f64,
    },
    /// `[cpu_sched_debug] skipping %s: swap usage (%.2f GB) exceeds swap left (%.2f GB)` (master;
    /// 8.2 `virtual size (%.2f GB) exceeds swap left`).
    SkippingSwap = "skipping_swap" {
        /// The job.
        job: CompactString,
        /// The figure compared with swap left, GB.
        swap_gb: f64,
        /// Swap left, GB.
        left_gb: f64,
        /// The line calls the figure the task's `virtual size` (8.2.14–8.2.15,
        /// af893b411f to a28915ebaa), else its `swap usage`.
        virtual_size: bool,
    },
    /// `[cpu_sched_debug] scheduling %s%s` (7.4..master, `""` or ` (high priority)`;
    /// 6.6–7.2 `scheduling %s`): a job that will run, in the enforce pass.
    Scheduling = "scheduling" {
        /// The job.
        job: CompactString,
        /// ` (high priority)` was printed.
        high_priority: bool,
    },
    /// `[cpu_sched_debug] scheduling %s (%s)` (6.6–6.10) and
    /// `scheduling %s (%s) (prio %f)` (7.0–7.2): a run-list choice.
    SchedulingRunList = "scheduling_run_list" {
        /// The job.
        job: CompactString,
        /// Run-list kind (`kind` is taken by the serde tag).
        schedule_kind: ScheduleKind,
        /// Project priority (7.0–7.2).
        prio: Option<f64>,
    },
    /// `[cpu_sched_debug] not enough CPUs for multithread job, skipping %s`
    /// (6.10–7.0 enforce_schedule, commits 85d8c9942e to 14c5493c69).
    MtNotEnoughCpus = "mt_not_enough_cpus" {
        /// The multithread job skipped.
        job: CompactString,
    },
    /// `[cpu_sched_debug] using only %.2f out of %d CPUs` (7.24..master;
    /// ≤7.22 `using %.2f out of %d CPUs`).
    UsingCpus = "using_cpus" {
        /// CPUs used.
        used: f64,
        /// Usable CPUs.
        ncpus: u32,
    },
    /// `[cpu_sched_debug] app startup took %f secs` (7.0..master).
    AppStartupTook = "app_startup_took" {
        /// Seconds.
        secs: f64,
    },
    /// `[cpu_sched_debug] coproc quit pending, deferring start` (6.6..master).
    CoprocQuitPending = "coproc_quit_pending",
    /// `[cpu_sched_debug] swap usage limit exceeded: %.2f GB > %.2f GB` (master;
    /// 8.2 `virtual size limit exceeded`).
    SwapLimitExceeded = "swap_limit_exceeded" {
        /// Usage, GB.
        used_gb: f64,
        /// Limit, GB.
        limit_gb: f64,
    },
    /// `[cpu_sched_debug] killing %s` (8.2..master).
    Killing = "killing" {
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] checking for runnable swap-killed tasks` (8.2..master).
    CheckingSwapKilled = "checking_swap_killed",
    /// `[cpu_sched_debug] restarting %s` (8.2..master).
    RestartingKilled = "restarting_killed" {
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] earliest deadline: %.0f %s` (6.10–7.2).
    EarliestDeadline = "earliest_deadline" {
        /// Deadline (Unix time or simulated seconds).
        deadline: f64,
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] avoid MT overcommit: skipping %s` (7.0–7.22).
    AvoidMtOvercommit = "avoid_mt_overcommit" {
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] highest debt: %f %s` (≤6.10).
    HighestDebt = "highest_debt" {
        /// Short-term debt of the project.
        debt: f64,
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched_debug] Request enforce CPU schedule: %s` (6.6–6.10).
    RequestEnforceSchedule = "request_enforce_schedule" {
        /// Free-text trigger (`schedule_cpus`, `coproc quit retry`, …).
        trigger: CompactString,
    },
    /// `[cpu_sched_debug] %s sched state %d next %d task state %d` (6.6–7.2).
    SchedState = "sched_state" {
        /// The job.
        job: CompactString,
        /// Current scheduler state.
        sched_state: i32,
        /// Next scheduler state.
        next: i32,
        /// Process state.
        task_state: i32,
    },
    /// `[cpu_sched_debug] enforce: result %s can't run, too big %.2fMB > %.2fMB` (7.0–7.6),
    /// `enforce: task %s can't run, too big …` (7.8–7.22),
    /// `can't run %s: WS too big %.2fMB > %.2fMB` (7.24),
    /// `skipping %s: estimated WSS (%.2fMB) exceeds RAM left (%.2fMB)` (8.0–8.2).
    TooBig = "too_big" {
        /// The job.
        job: CompactString,
        /// Working set, MB.
        ws_mb: f64,
        /// Limit, MB.
        limit_mb: f64,
    },
    /// `[mem_usage] enforce: available RAM %.2fMB swap %.2fMB` (7.0–8.2.13),
    /// `… available RAM %.2f GB virtual %.2f GB` (8.2.14–8.2.15), `…
    /// available RAM %.2f GB, swap space %.2f GB` and `… available RAM %.2f
    /// GB` (after 8.2.15): the memory enforce_run_list() lets jobs use
    /// (mem_usage_debug), in MB.
    MemUsageAvailable = "mem_usage_available" {
        /// RAM the jobs may use, MB.
        ram_mb: f64,
        /// Swap they may use, MB (not printed after 8.2.15 without a swap limit).
        swap_mb: Option<f64>,
    },
    /// `[mem_usage] out of swap space, will preempt by quit`, `[mem_usage]
    /// job using too much memory, will preempt by quit` (7.0–8.2.15) and
    /// `[mem_usage] insufficient RAM, will suspend` (after 8.2.15): why the next
    /// preemption removes (or suspends) a task.
    MemUsagePreempt = "mem_usage_preempt" {
        /// The reason as printed, without `, will …`.
        reason: CompactString,
        /// `quit` (removed from memory) or `suspend`.
        action: CompactString,
    },
    /// `[css] running %s (%s)` (6.10..master, cpu_sched_status).
    CssRunning = "css_running" {
        /// The job.
        job: CompactString,
        /// The GUI resource description; empty until a GUI RPC asked (always in the emulator).
        resources: CompactString,
    },

    // ----- task start/preempt ([cpu_sched], flag cpu_sched; task) -----

    /// `[cpu_sched] %s task %s using %s version %d%s in slot %d` (7.2..master);
    /// untagged 7.0 same text; 5.10–6.12 untagged `%s task %s using %s version %d`.
    TaskStart = "task_start" {
        /// `Starting`, `Restarting` or `Resuming`.
        action: StartAction,
        /// The job.
        job: CompactString,
        /// The application.
        app: CompactString,
        /// App version number.
        version: u32,
        /// Plan class (` (PLAN_CLASS)`).
        plan_class: Option<CompactString>,
        /// Slot number (7.0+).
        slot: Option<u32>,
    },
    /// `[cpu_sched] Preempting %s (removed from memory)` / `(left in memory)` (5.10..master).
    Preempting = "preempting" {
        /// The job.
        job: CompactString,
        /// How.
        mode: PreemptMode,
    },
    /// `[cpu_sched] Resuming %s` (5.10..master).
    Resuming = "resuming" {
        /// The job.
        job: CompactString,
    },
    /// `[cpu_sched] Starting %s%s` (6.10; ` (initial)` or `(resume)`).
    CpuSchedStarting = "cpu_sched_starting" {
        /// The job.
        job: CompactString,
        /// ` (initial)` (true) or `(resume)` (false).
        initial: bool,
    },
    /// `[cpu_sched] Suspending - CPU throttle` / `Resuming - CPU throttle` (5.10–7.0).
    CpuThrottle = "cpu_throttle" {
        /// Suspending (true) or resuming (false).
        suspend: bool,
    },
    /// `[cpu_sched] suspending GPU activity` / `resuming GPU activity` (6.10–6.12).
    GpuActivity = "gpu_activity" {
        /// Suspending (true) or resuming (false).
        suspend: bool,
    },

    // ----- coprocessor assignment (coproc_debug; 6.10 tag [coproc_debug]) -----

    /// `[coproc] %s instance %d; %f pending for %s` (7.2..master).
    CoprocPending = "coproc_pending" {
        /// Coprocessor type.
        rsc: ResourceType,
        /// Instance.
        instance: u32,
        /// Pending usage.
        pending: f64,
        /// The job.
        job: CompactString,
    },
    /// `[coproc] %s instance %d: confirming %f instance for %s` (7.2..master).
    CoprocConfirming = "coproc_confirming" {
        /// Coprocessor type.
        rsc: ResourceType,
        /// Instance.
        instance: u32,
        /// Usage confirmed.
        usage: f64,
        /// The job.
        job: CompactString,
    },
    /// `[coproc] %s %f instance of device %d already assigned to task %s` (7.2..master).
    CoprocAlreadyAssigned = "coproc_already_assigned" {
        /// Coprocessor type.
        rsc: ResourceType,
        /// Usage.
        usage: f64,
        /// Device.
        device: u32,
        /// The job.
        job: CompactString,
    },
    /// `[coproc] Assigning %f of %s instance %d to %s` and
    /// `Assigning %f of %s free instance %d to %s` (6.12..master).
    CoprocAssignFraction = "coproc_assign_fraction" {
        /// Usage.
        usage: f64,
        /// Coprocessor type.
        rsc: ResourceType,
        /// `free` was printed.
        free: bool,
        /// Instance.
        instance: u32,
        /// The job.
        job: CompactString,
    },
    /// `[coproc] Assigning %s instance %d to %s` and `Assigning %s pending instance %d to %s` (6.12..master).
    CoprocAssign = "coproc_assign" {
        /// Coprocessor type.
        rsc: ResourceType,
        /// `pending` was printed.
        pending: bool,
        /// Instance.
        instance: u32,
        /// The job.
        job: CompactString,
    },
    /// `[coproc] Insufficient %s for %s: need %f` (6.12..master).
    CoprocInsufficientUsage = "coproc_insufficient_usage" {
        /// Coprocessor type.
        rsc: ResourceType,
        /// The job.
        job: CompactString,
        /// Usage needed.
        need: f64,
    },
    /// `[coproc] Insufficient %s for %s; need %d, available %d` (6.12..master).
    CoprocInsufficient = "coproc_insufficient" {
        /// Coprocessor type.
        rsc: ResourceType,
        /// The job.
        job: CompactString,
        /// Instances needed.
        need: u32,
        /// Instances available.
        available: u32,
    },
    /// `[coproc] huh??? ran out of %s instances for %s` (6.12..master).
    CoprocRanOut = "coproc_ran_out" {
        /// Coprocessor type.
        rsc: ResourceType,
        /// The job.
        job: CompactString,
    },
    /// `[coproc] huh? %s %d %s pending usage > 1` (6.12..master).
    CoprocPendingOverOne = "coproc_pending_over_one" {
        /// Coprocessor type.
        rsc: ResourceType,
        /// Instance.
        instance: u32,
        /// The job.
        job: CompactString,
    },
    /// `[coproc]  task %s needs %.0fMB RAM, %s GPU %d has %.0fMB available` (7.0–7.2, two spaces).
    CoprocRamCheck = "coproc_ram_check" {
        /// The job.
        job: CompactString,
        /// RAM needed, MB.
        need_mb: f64,
        /// Coprocessor type.
        rsc: ResourceType,
        /// Device.
        device: u32,
        /// RAM available, MB.
        available_mb: f64,
    },
    /// `[coproc] %s`: GPU detection notes and warnings (7.6..master), any other `[coproc]` text.
    CoprocDetection = "coproc_detection" {
        /// The text after the tag.
        text: CompactString,
    },

    // ----- priority and debt accounting (priority_debug, debt_debug, std_debug, dcf_debug) -----

    /// `[prio] %f rsf %f rt %f rs %f` (7.0..master).
    ProjectPriority = "project_priority" {
        /// Scheduling priority.
        prio: f64,
        /// Resource-share fraction.
        rsf: f64,
        /// Temporary REC.
        rt: f64,
        /// REC sum.
        rs: f64,
    },
    /// `[prio] recent est credit: %.2fG in %.2f sec, %f + %f ->%f` (7.0..master).
    RecentEstCredit = "recent_est_credit" {
        /// Credit in the interval, GFLOP.
        credit: f64,
        /// Interval, seconds.
        secs: f64,
        /// Old REC.
        rec_old: f64,
        /// Change.
        delta: f64,
        /// New REC.
        rec: f64,
    },
    /// `[priority] adjust_rec: elapsed time (%.0f) negative or longer than sched enforce period(%.0f).  Ignoring this period.` (7.0..master).
    AdjustRecIgnored = "adjust_rec_ignored" {
        /// Elapsed seconds.
        elapsed: f64,
        /// Enforce period, seconds.
        period: f64,
    },
    /// `[debt_debug] adjust_debt: elapsed time (%d) longer than sched enforce period(%d).  Ignoring this period.` (6.6–6.10; 6.12 `[debt]`).
    AdjustDebtIgnored = "adjust_debt_ignored" {
        /// Elapsed seconds.
        elapsed: f64,
        /// Enforce period, seconds.
        period: f64,
    },
    /// `[debt] %s LTD %.2f delta %.2f (%.2f*%.2f - %.2f)/%d` (6.10–6.12).
    LtdUpdate = "ltd_update" {
        /// The resource.
        rsc: ResourceType,
        /// New long-term debt.
        ltd: f64,
        /// Change.
        delta: f64,
        /// Share fraction.
        share_frac: f64,
        /// Seconds in the interval.
        interval: f64,
        /// Seconds the project used.
        used: f64,
        /// Instances.
        ninst: u32,
    },
    /// `[debt] %s LTD: adding offset %f` (6.10–6.12).
    LtdOffset = "ltd_offset" {
        /// The resource.
        rsc: ResourceType,
        /// Offset added.
        offset: f64,
    },
    /// `[debt] %s debt %.2f delta %.2f share frac %.2f (%.2f/%.2f) secs %.2f rsc_secs %.2f` (6.6-6.8).
    DebtUpdate66 = "debt_update66" {
        /// The resource.
        rsc: ResourceType,
        /// New debt.
        debt: f64,
        /// Change.
        delta: f64,
        /// Share fraction of the debt-eligible projects.
        share_frac: f64,
        /// The project's resource share.
        share: f64,
        /// Resource share of every debt-eligible project.
        total_share: f64,
        /// Instance-seconds every project used in the interval.
        secs: f64,
        /// Instance-seconds this project used.
        rsc_secs: f64,
    },
    /// `[debt] %s debt: adding offset %.2f` (6.6-6.8).
    DebtOffset66 = "debt_offset66" {
        /// The resource.
        rsc: ResourceType,
        /// Offset added.
        offset: f64,
    },
    /// `[debt] %s ineligible; debt %.2f` (6.6-6.8).
    DebtIneligible66 = "debt_ineligible66" {
        /// The resource.
        rsc: ResourceType,
        /// The project's debt, unchanged.
        debt: f64,
    },
    /// `[debt] %s debt: no eligible projects` (6.6-6.8).
    DebtNoEligible66 = "debt_no_eligible66" {
        /// The resource.
        rsc: ResourceType,
    },
    /// `[std_debug] %s STD delta %.2f (%.2f*%.2f - %.2f)/%d` (6.10; 6.12 `[std]`).
    StdDelta = "std_delta" {
        /// The resource.
        rsc: ResourceType,
        /// Change.
        delta: f64,
        /// Share fraction of runnable projects.
        share_frac: f64,
        /// Seconds in the interval.
        interval: f64,
        /// Seconds the project used.
        used: f64,
        /// Instances.
        ninst: u32,
    },
    /// `[std_debug] %s STD %.2f` (6.10; 6.12 `[std]`).
    Std = "std" {
        /// The resource.
        rsc: ResourceType,
        /// Short-term debt after normalisation.
        std: f64,
    },
    /// `[dcf] DCF: %f->%f, raw_ratio %f, adj_ratio %f` (6.6..master).
    DcfUpdate = "dcf_update" {
        /// Old duration correction factor.
        old: f64,
        /// New factor.
        new: f64,
        /// Raw ratio.
        raw_ratio: f64,
        /// Adjusted ratio.
        adj_ratio: f64,
    },
    /// `[dcf] scaling all duration correction factors by %f` (6.6..master).
    DcfScaling = "dcf_scaling" {
        /// The factor.
        factor: f64,
    },

    // ----- scheduler RPC (sched_ops default; sched_op_debug) -----

    /// `Sending scheduler request: %s.` (6.6..master); 5.10–6.4
    /// `Sending scheduler request: %s.  Requesting %.0f seconds of work, reporting %d completed tasks`.
    SendingSchedulerRequest = "sending_scheduler_request" {
        /// The RPC reason.
        reason: RpcReason,
        /// Seconds requested (5.10–6.4).
        requested_secs: Option<f64>,
        /// Tasks reported (5.10–6.4).
        n_reported: Option<u32>,
    },
    /// `Sending trickle-up message` (7.0..master).
    SendingTrickleUp = "sending_trickle_up",
    /// `Reporting %d completed tasks` (7.0..master).
    ReportingCompletedTasks = "reporting_completed_tasks" {
        /// Tasks reported.
        count: u32,
    },
    /// `Requesting new tasks for %s` (7.0..master; resources joined by ` and `);
    /// 6.6–6.12 `Requesting new tasks%s` (`""`, ` for CPU`, ` for GPU` = `Other("GPU")`, …).
    RequestingNewTasks = "requesting_new_tasks" {
        /// Resources requested (empty: unspecified, 6.6–6.10).
        resources: Vec<ResourceType>,
    },
    /// `Reporting %d completed tasks, requesting new tasks%s` (6.6–6.12).
    ReportingAndRequesting = "reporting_and_requesting" {
        /// Tasks reported.
        count: u32,
        /// Resources requested.
        resources: Vec<ResourceType>,
    },
    /// `Reporting %d completed tasks, not requesting new tasks%s` (6.6–6.12).
    ReportingNotRequesting = "reporting_not_requesting" {
        /// Tasks reported.
        count: u32,
    },
    /// `Not reporting or requesting tasks%s` (6.6–6.12).
    NotReportingOrRequesting = "not_reporting_or_requesting",
    /// `Not requesting tasks: %s` (7.0..master) and `Not requesting tasks` (no reason).
    NotRequestingTasks = "not_requesting_tasks" {
        /// The project reason.
        reason: Option<ProjectReason>,
    },
    /// `Scheduler request initialization failed: %s` (6.6..master).
    SchedulerRequestInitFailed = "scheduler_request_init_failed" {
        /// The error text.
        error: CompactString,
    },
    /// `Scheduler request completed%s` (6.6..master, `: got %d new tasks` when work was
    /// requested); 5.10–6.2 `Scheduler request succeeded: got %d new tasks`.
    SchedulerRequestCompleted = "scheduler_request_completed" {
        /// New tasks, when work was requested.
        new_tasks: Option<u32>,
    },
    /// `Scheduler RPC succeeded [server version %d]` (5.x–6.2).
    SchedulerRpcSucceeded = "scheduler_rpc_succeeded" {
        /// The server's version, when printed.
        server_version: Option<u32>,
    },
    /// `Requesting %.0f seconds of new work` (5.x–6.2: one request for the CPU).
    RequestingSecondsOfWork = "requesting_seconds_of_work" {
        /// Seconds requested.
        secs: f64,
    },
    /// `Project requested delay of %.0f seconds` (6.6..master; 5.10–6.4 `%f`).
    ProjectRequestedDelay = "project_requested_delay" {
        /// Delay, seconds.
        secs: f64,
    },
    /// `Scheduler request failed: %s` (5.10..7.22) and `Scheduler request to %s failed: %s` (7.24..master).
    SchedulerRequestFailed = "scheduler_request_failed" {
        /// The scheduler URL (7.24+).
        url: Option<CompactString>,
        /// The error text.
        error: CompactString,
    },
    /// `Master file fetch failed: %s` (6.6..master).
    MasterFileFetchFailed = "master_file_fetch_failed" {
        /// The error text.
        error: CompactString,
    },
    /// `[sched_op] Starting scheduler request` (6.12..master).
    StartingSchedulerRequest = "starting_scheduler_request",
    /// `[sched_op] %s work request: %.2f seconds; %.2f devices` (7.0..master); 6.10–6.12
    /// `CPU work request: %.2f seconds; %.2f CPUs` / `... GPUs`; 6.6 `%d idle CPUs` / `%d idle GPUs`.
    SchedOpWorkRequest = "sched_op_work_request" {
        /// The resource.
        rsc: ResourceType,
        /// Seconds requested.
        secs: f64,
        /// Devices (instances) requested.
        devices: f64,
    },
    /// `[sched_op] Server version %d` (6.12..master).
    ServerVersion = "server_version" {
        /// The version.
        version: i64,
    },
    /// `[sched_op] estimated total %s task duration: %.0f seconds` (6.12..master;
    /// 6.6–6.10 `[sched_op_debug] estimated total %s job duration`).
    EstimatedTotalDuration = "estimated_total_duration" {
        /// The resource.
        rsc: ResourceType,
        /// Seconds.
        secs: f64,
    },
    /// `[sched_op] handle_scheduler_reply(): got ack for task %s` (6.12..master).
    GotAck = "got_ack" {
        /// The job.
        job: CompactString,
    },
    /// `[sched_op] Deferring communication for %s` (`HH:MM:SS` or `%d days HH:MM:SS`; 6.12..master).
    DeferringCommunication = "deferring_communication" {
        /// The delay, seconds.
        secs: f64,
    },
    /// `[sched_op] Reason: %s` (6.12..master).
    DeferReason = "defer_reason" {
        /// The reason.
        reason: DeferReason,
    },
    /// `[sched_op] sched RPC pending: %s` (7.16..master; 7.0–7.14 untagged).
    SchedRpcPending = "sched_rpc_pending" {
        /// The RPC reason.
        reason: RpcReason,
    },
    /// `[sched_op] ignoring prefs from project; using prefs from AM` (7.16..master).
    IgnoringPrefsUsingAm = "ignoring_prefs_using_am",
    /// `[sched_op] ignoring prefs from old server; we have host-specific prefs` (7.16..master).
    IgnoringPrefsOldServer = "ignoring_prefs_old_server",
    /// `[sched_op] Fetching master file` (6.12..master).
    FetchingMasterFile = "fetching_master_file",
    /// `[sched_op] Got master file; parsing` (6.12..master).
    GotMasterFile = "got_master_file",
    /// `[sched_op] Found %d scheduler URLs in master file` (6.12..master).
    FoundSchedulerUrls = "found_scheduler_urls" {
        /// Number of URLs.
        count: u32,
    },

    // ----- task life cycle (task default, task_debug) -----

    /// `Starting task %s` (7.2..master); 5.10–6.10 `Starting %s`.
    StartingTask = "starting_task" {
        /// The job.
        job: CompactString,
    },
    /// `Computation for task %s finished` (5.10..master).
    ComputationFinished = "computation_finished" {
        /// The job.
        job: CompactString,
    },
    /// `Task %s postponed for %.f seconds: %s` (7.10..master).
    TaskPostponed = "task_postponed" {
        /// The job.
        job: CompactString,
        /// Seconds.
        secs: f64,
        /// The application's reason.
        reason: CompactString,
    },
    /// `Task %s: no shared memory segment` (app_control.cpp
    /// get_app_status_msg: a task restored at a start, its process already
    /// gone, has none; no scheduling reads it).
    TaskNoSharedMemory = "task_no_shared_memory" {
        /// The job.
        job: CompactString,
    },
    /// `[task] task_state=%s for %s from %s` (6.12..master; ≤6.10 `[task_debug]`).
    TaskStateChange = "task_state_change" {
        /// New process state.
        state: TaskState,
        /// The job.
        job: CompactString,
        /// Call site.
        from: CompactString,
    },
    /// `[task] result state=%s for %s from %s` (6.12..master; ≤6.10 `[task_debug]`).
    ResultStateChange = "result_state_change" {
        /// New result state.
        state: ResultState,
        /// The job.
        job: CompactString,
        /// Call site.
        from: CompactString,
    },
    /// `[task] Process for %s exited, exit code %lu, task state %d` (Windows) and
    /// `..., status %d, task state %d` (Unix) (7.0..master); `[task] Process for %s exited` (6.12..master).
    ProcessExited = "process_exited" {
        /// The job.
        job: CompactString,
        /// Exit code or status.
        status: Option<i64>,
        /// Task state.
        task_state: Option<i32>,
    },
    /// `[task] exit code %d (0x%x): %s` (6.12..master, Windows).
    TaskExitCode = "task_exit_code" {
        /// The exit code.
        code: i64,
        /// The system's text for it.
        text: CompactString,
    },
    /// `[task] process exited with status %d` (6.12..master, Unix).
    TaskExitStatus = "task_exit_status" {
        /// The wait status.
        status: i64,
    },
    /// `[task] process got signal %d` (6.12..master, Unix).
    TaskGotSignal = "task_got_signal" {
        /// The signal number.
        signal: i64,
    },
    /// `[task_debug] ACTIVE_TASK::start(): forked process: pid %d` (8.0..master; 6.12–7.24 `[task]`).
    ForkedProcess = "forked_process" {
        /// The process id.
        pid: i64,
    },
    /// `[task_debug] task is running in processor group %d` (Windows 64-bit).
    ProcessorGroup = "processor_group" {
        /// The processor group.
        group: i64,
    },
    /// `[task_debug] requesting tasks to %s` (`%s` = the action, e.g. `quit`).
    RequestingTasksTo = "requesting_tasks_to" {
        /// The action requested.
        action: CompactString,
    },
    /// `[task_debug] all tasks exited`.
    AllTasksExited = "all_tasks_exited",
    /// `[task] abort request timed out, killing task %s` / `quit request timed out, ...` (7.0..master).
    RequestTimedOut = "request_timed_out" {
        /// Abort (true) or quit (false) request.
        abort: bool,
        /// The job.
        job: CompactString,
    },
    /// `[task] %s task %s: FLOPS left %.2fG` (emulator, today and 7.2.42).
    EmuTaskStart = "emu_task_start" {
        /// `Starting` or `Resuming`.
        action: StartAction,
        /// The job.
        job: CompactString,
        /// Remaining GFLOP (absent in the 6.10 emulator's `[task] %s task %s`).
        gflops_left: Option<f64>,
    },
    /// `Suspending computation - %s` (5.10..master).
    SuspendingComputation = "suspending_computation" {
        /// The reason.
        reason: SuspendReason,
    },
    /// `Resuming computation` (5.10..master).
    ResumingComputation = "resuming_computation",
    /// `Suspending GPU computation - %s` (7.0..master).
    SuspendingGpuComputation = "suspending_gpu_computation" {
        /// The reason.
        reason: SuspendReason,
    },
    /// `Resuming GPU computation` (7.0..master).
    ResumingGpuComputation = "resuming_gpu_computation",
    /// `Suspending network activity - %s`.
    SuspendingNetwork = "suspending_network" {
        /// The reason.
        reason: SuspendReason,
    },
    /// `Resuming network activity`.
    ResumingNetwork = "resuming_network",
    /// `Suspending file transfers - %s`.
    SuspendingFileTransfers = "suspending_file_transfers" {
        /// The reason.
        reason: SuspendReason,
    },
    /// `Resuming file transfers`.
    ResumingFileTransfers = "resuming_file_transfers",

    // ----- user actions and aborts (§3.14) -----

    /// `update requested by user`.
    UpdateRequestedByUser = "update_requested_by_user",
    /// `task %s aborted by user`.
    TaskAbortedByUser = "task_aborted_by_user" {
        /// The job.
        job: CompactString,
    },
    /// `task %s suspended by user`.
    TaskSuspendedByUser = "task_suspended_by_user" {
        /// The job.
        job: CompactString,
    },
    /// `task %s resumed by user`.
    TaskResumedByUser = "task_resumed_by_user" {
        /// The job.
        job: CompactString,
    },
    /// `project suspended by user`.
    ProjectSuspendedByUser = "project_suspended_by_user",
    /// `project resumed by user`.
    ProjectResumedByUser = "project_resumed_by_user",
    /// `work fetch suspended by user` ("No new tasks").
    WorkFetchSuspendedByUser = "work_fetch_suspended_by_user",
    /// `work fetch resumed by user`.
    WorkFetchResumedByUser = "work_fetch_resumed_by_user",
    /// `detach when done set by user`: the project also gets no new tasks.
    DetachWhenDoneSetByUser = "detach_when_done_set_by_user",
    /// `detach when done cleared by user`: new tasks allowed again.
    DetachWhenDoneClearedByUser = "detach_when_done_cleared_by_user",
    /// `Resetting project` (client_state.cpp reset_project): its files and
    /// RPC deferral cleared.
    ResettingProject = "resetting_project",
    /// `New system time (%.0f) < old system time (%.0f); clearing timeouts`
    /// (client_state.cpp set_now) or `System clock (%.0f) < state file
    /// timestamp (%.0f); clearing timeouts` (check_clock_reset): the clock
    /// went back, every project's RPC deferral is cleared.
    ClearingTimeouts = "clearing_timeouts" {
        /// The new clock (Unix seconds).
        now: f64,
        /// The later time it was before (Unix seconds).
        before: f64,
        /// Set at start-up against the state file's timestamp.
        at_startup: bool,
    },
    /// `Re-reading %s` (log_flags.cpp read_config_file, asked for by a GUI
    /// RPC): the configuration and log flags go back to their defaults and
    /// the file is read again; the flags on are printed next.
    RereadingConfig = "rereading_config" {
        /// The file named (cc_config.xml).
        file: CompactString,
    },
    /// `cc_config.xml not found - using defaults`.
    CcConfigNotFound = "cc_config_not_found",
    /// `Running CPU benchmarks` (cs_benchmark.cpp).
    RunningCpuBenchmarks = "running_cpu_benchmarks",
    /// `Benchmark results:` (cs_benchmark.cpp): the host's FLOPS per CPU
    /// (`p_fpops`) were just set anew.
    BenchmarkResults = "benchmark_results",
    /// `CPU benchmarks timed out, using default values`: `p_fpops` set to
    /// the default.
    BenchmarksTimedOut = "benchmarks_timed_out",
    /// `Contacting account manager at %s`.
    ContactingAccountManager = "contacting_account_manager" {
        /// The account manager's URL.
        url: CompactString,
    },
    /// `Account manager contact succeeded`: its reply may have set each
    /// project's no-new-tasks and cleared its RPC deferral.
    AccountManagerContactSucceeded = "account_manager_contact_succeeded",
    /// `Aborting task %s: %s` (elapsed-time, memory or disk limit).
    AbortingTask = "aborting_task" {
        /// The job.
        job: CompactString,
        /// The reason text.
        reason: CompactString,
    },
    /// `Aborting task %s; not started and deadline has passed`.
    AbortingTaskDeadlinePassed = "aborting_task_deadline_passed" {
        /// The job.
        job: CompactString,
    },
    /// `Task %s is %.2f days overdue; aborting it.` and
    /// `Task %s is %.2f days overdue; you may not get credit for it.  Consider aborting it.`
    TaskOverdue = "task_overdue" {
        /// The job.
        job: CompactString,
        /// Days overdue.
        days: f64,
        /// The client aborted it.
        aborted: bool,
    },

    // ----- start-up and metadata (§3.14) -----

    /// `Starting BOINC client version %d.%d.%d for %s%s` (`%s%s` = platform, `""` or ` (DEBUG)`).
    ClientStart = "client_start" {
        /// The version.
        version: ClientVersion,
        /// The platform.
        platform: CompactString,
        /// ` (DEBUG)` was printed.
        debug: bool,
    },
    /// `Local time is UTC %s%d hours`.
    LocalTime = "local_time" {
        /// Offset from UTC, hours.
        utc_offset_hours: i32,
    },
    /// `log flags: %s`: one (possibly continued) line of enabled flags.
    LogFlags = "log_flags" {
        /// The flag names, in order.
        flags: Vec<CompactString>,
    },
    /// `URL %s; Computer ID %s; resource share %.0f` (6.10..master).
    ProjectUrl = "project_url" {
        /// Master URL.
        url: CompactString,
        /// Host ID at the project (`not assigned yet` in the emulator).
        computer_id: CompactString,
        /// Resource share.
        resource_share: f64,
    },
    /// `Computing preferences:` (8.0..master) and `Preferences:` (6.10–7.20).
    PreferencesHeader = "preferences_header",
    /// `-  Store at least %.2f days of work` (7.22..master).
    StoreAtLeast = "store_at_least" {
        /// Days.
        days: f64,
    },
    /// `-  Store up to an additional %.2f days of work` (7.22..master).
    StoreUpToAdditional = "store_up_to_additional" {
        /// Days.
        days: f64,
    },
    /// `-     max CPUs used: %d` (8.0..master).
    PrefMaxCpus = "pref_max_cpus" {
        /// CPUs.
        ncpus: u32,
    },
    /// `-     Use at most %.0f%% of the CPU time` (8.0..master).
    PrefCpuTime = "pref_cpu_time" {
        /// Percent.
        percent: f64,
    },
    /// `-     suspend if non-BOINC CPU load exceeds %.0f%%` (8.0..master) and
    /// `   suspend work if non-BOINC CPU load exceeds %.0f%%` (6.10–7.20; 6.10 ` %`).
    PrefSuspendCpuLoad = "pref_suspend_cpu_load" {
        /// Percent.
        percent: f64,
    },
    /// `-     max memory usage: %.2f GB` (8.0..master, twice: in use / not in use) and
    /// `   max memory usage when active: %.2fMB` / `when idle` (6.10–7.20; `%.2f MB` 7.8+).
    PrefMaxMemory = "pref_max_memory" {
        /// Megabytes.
        mb: f64,
        /// `when active` (Some(true)), `when idle` (Some(false)), or unspecified (8.0+).
        active: Option<bool>,
    },
    /// Any other preference line: the 8.0+ `-  ...` block lines and the 6.10–7.20
    /// three-space-indented lines (`don't compute while active`, `(to change preferences, ...)`).
    PreferenceNote = "preference_note" {
        /// The text, leading `-` and blanks removed.
        text: CompactString,
    },
    /// `Computing prefs: from %s (last modified %s)` (8.0..master) and
    /// `General prefs: from %s (last modified %s)` (≤7.24).
    PrefsSource = "prefs_source" {
        /// Source (project URL; empty in the emulator).
        source: CompactString,
        /// Modification time text (`---` in the emulator).
        modified: CompactString,
    },
    /// `General prefs: using your defaults` (≤7.24) and
    /// `Computing prefs: computer location unspecified; using default` (8.0..master).
    PrefsDefaultVenue = "prefs_default_venue",
    /// `General prefs: using separate prefs for %s` / `Computing prefs: using separate prefs for %s`.
    PrefsSeparateVenue = "prefs_separate_venue" {
        /// The venue.
        venue: CompactString,
    },
    /// `General prefs: no separate prefs for %s; using your defaults` /
    /// `Computing prefs: no separate prefs for %s; using default location`.
    PrefsNoSeparateVenue = "prefs_no_separate_venue" {
        /// The venue.
        venue: CompactString,
    },
    /// `Host location: %s` (≤7.24) and `Computer location: %s`.
    HostLocation = "host_location" {
        /// The venue (`none` when unset).
        venue: CompactString,
    },
    /// `Reading preferences override file`.
    ReadingPrefsOverride = "reading_prefs_override",
    /// `Coprocessor specified in cc_config.xml. Type %s (%s); count %d` (7.6..master;
    /// 7.4 `Coprocessor specified in cc_config.xml: type %s count %d`).
    CoprocSpecified = "coproc_specified" {
        /// The type.
        rsc: ResourceType,
        /// `GPU` (Some(true)) or `non-GPU` (Some(false)); absent in 7.4.
        gpu: Option<bool>,
        /// Instances.
        count: u32,
    },
    /// `Found %s` (`Found app_config.xml`, `Found app_info.xml; using anonymous platform`).
    FoundFile = "found_file" {
        /// The text after `Found `.
        file: CompactString,
    },
    /// `%s: Max %d concurrent jobs` (app_config.xml, per app).
    AppMaxConcurrent = "app_max_concurrent" {
        /// The application.
        app: CompactString,
        /// The limit.
        max: u32,
    },
    /// `Max %d concurrent jobs` (app_config.xml, per project).
    ProjectMaxConcurrent = "project_max_concurrent" {
        /// The limit.
        max: u32,
    },
    /// `Number of usable CPUs has changed from %d to %d.`
    UsableCpusChanged = "usable_cpus_changed" {
        /// Old count.
        from: u32,
        /// New count.
        to: u32,
    },
    /// `Initialization completed`.
    InitializationCompleted = "initialization_completed",
    /// `This a development version of BOINC and may not function properly`
    /// (an odd minor release; the client's own wording).
    DevelopmentVersion = "development_version",
    /// `Libraries: %s` (the libcurl version string).
    Libraries = "libraries" {
        /// The text after `Libraries: `.
        text: CompactString,
    },
    /// `Data directory: %s`.
    DataDirectory = "data_directory" {
        /// The path.
        path: CompactString,
    },
    /// `No usable GPUs found` (coprocessor detection found none, or
    /// `<no_gpus>` is set).
    NoUsableGpus = "no_usable_gpus",
    /// `libc: %s version %s` (7.20 prints an empty name: `libc:  version 2.36`).
    LibcVersion = "libc_version" {
        /// The version text.
        version: CompactString,
    },
    /// `Host name: %s`.
    HostName = "host_name" {
        /// The name.
        name: CompactString,
    },
    /// `Processor: %d %s %s` (CPUs, vendor, model).
    Processor = "processor" {
        /// Physical CPUs the host reports (`p_ncpus`).
        ncpus: u32,
        /// Vendor and model.
        model: CompactString,
    },
    /// `Processor features: %s`.
    ProcessorFeatures = "processor_features" {
        /// The feature words.
        features: CompactString,
    },
    /// `OS: %s: %s` (name, version).
    OperatingSystem = "operating_system" {
        /// The text after `OS: `.
        text: CompactString,
    },
    /// `Memory: %s physical, %s virtual` (`nbytes_to_string`: `%.2f GB`, …, `%.0f bytes`).
    HostMemory = "host_memory" {
        /// Physical memory, bytes (`m_nbytes`).
        physical_bytes: f64,
        /// Swap, bytes (`m_swap`).
        swap_bytes: f64,
    },
    /// `Disk: %s total, %s free`.
    HostDisk = "host_disk" {
        /// Total bytes (`d_total`).
        total_bytes: f64,
        /// Free bytes (`d_free`).
        free_bytes: f64,
    },
    /// `Config: simulate %d CPUs` (cc_config.xml `<ncpus>`).
    ConfigSimulateCpus = "config_simulate_cpus" {
        /// The CPU count the client uses instead of the detected one.
        ncpus: u32,
    },
    /// Any other `Config: %s` line: a cc_config.xml option in force
    /// (`don't use coprocessors`, `allow multiple clients`, …).
    ConfigOption = "config_option" {
        /// The text after `Config: `.
        text: CompactString,
    },
    /// `No general preferences found - using defaults` (no global_prefs.xml).
    NoGeneralPrefs = "no_general_prefs",
    /// `Creating new client state file` (no client_state.xml: a first start).
    CreatingStateFile = "creating_state_file",
    /// `Setting up project and slot directories`.
    SettingUpDirectories = "setting_up_directories",
    /// `Checking active tasks`.
    CheckingActiveTasks = "checking_active_tasks",
    /// `Setting up GUI RPC socket`.
    SettingUpGuiRpc = "setting_up_gui_rpc",
    /// `Warning: GUI RPC password is empty. ...` (an empty gui_rpc_auth.cfg).
    GuiRpcPasswordEmpty = "gui_rpc_password_empty",
    /// `Checking presence of %d project files`.
    CheckingProjectFiles = "checking_project_files" {
        /// Files.
        count: u32,
    },
    /// `Received signal %d` (the client is asked to exit).
    ReceivedSignal = "received_signal" {
        /// The signal number.
        signal: u32,
    },
    /// `Exiting`.
    Exiting = "exiting",
    /// `request_exit(): PID %d has %d descendants`.
    RequestExit = "request_exit" {
        /// The task's process.
        pid: u32,
        /// Its descendants.
        descendants: u32,
    },
    /// `Started download of %s`, `Started upload of %s` (file_xfer).
    TransferStarted = "transfer_started" {
        /// The file.
        file: CompactString,
        /// An upload (else a download).
        upload: bool,
    },
    /// `Finished download of %s`, `Finished upload of %s` (file_xfer).
    TransferFinished = "transfer_finished" {
        /// The file.
        file: CompactString,
        /// An upload (else a download).
        upload: bool,
    },
    /// `File %s exists already, skipping download` (file_xfer,
    /// pers_file_xfer.cpp create_xfer: a download that finds its file in
    /// place and valid, as after the network came back on, is done).
    FileAlreadyPresent = "file_already_present" {
        /// The file.
        file: CompactString,
    },
    /// `Fetching scheduler list` (a master file fetch starts).
    FetchingSchedulerList = "fetching_scheduler_list",
    /// `Master file download succeeded`.
    MasterFileDownloadSucceeded = "master_file_download_succeeded",

    // ----- emulator-only lines (§7) -----

    /// `doing RPC to get work` (emulator, today and 7.2.42).
    EmuRpcGetWork = "emu_rpc_get_work",
    /// `doing RPC to report results` (emulator, today and 7.2.42).
    EmuRpcReportResults = "emu_rpc_report_results",
    /// `RPC: [work_fetch] request: CPU (%.2f sec, %.2f inst) ...` (emulator, today and 7.2.42).
    EmuRpcRequest = "emu_rpc_request" {
        /// One entry per resource, CPU first.
        resources: Vec<ResourceRequest>,
    },
    /// `Got %lu tasks` (emulator, today; 7.2.42 `%d`).
    EmuGotTasks = "emu_got_tasks" {
        /// Jobs received.
        count: u32,
    },
    /// `RPC skipped: project down` (emulator, today and 7.2.42).
    EmuRpcSkippedProjectDown = "emu_rpc_skipped_project_down",
    /// `job for %s misses deadline approx: del %f + et %f > %f` (emulator, today and 7.2.42).
    EmuJobMissesDeadlineApprox = "emu_job_misses_deadline_approx" {
        /// The application.
        app: CompactString,
        /// Estimated queueing delay, seconds.
        del: f64,
        /// Estimated run time, seconds.
        et: f64,
        /// The app's latency bound, seconds.
        bound: f64,
    },
    /// `job for %s misses deadline sim` (emulator, today and 7.2.42).
    EmuJobMissesDeadlineSim = "emu_job_misses_deadline_sim" {
        /// The application.
        app: CompactString,
    },
    /// `SIMULATION START` (6.10 emulator).
    EmuSimulationStart = "emu_simulation_start",
    /// `starting simultion. delta %f duration %f` (6.10 emulator; spelling as printed).
    EmuStartingSimulation = "emu_starting_simulation" {
        /// Time step, seconds.
        delta: f64,
        /// Run length, seconds.
        duration: f64,
    },
    /// `polling` (6.10 emulator).
    EmuPolling = "emu_polling",
    /// `did action` (6.10 emulator).
    EmuDidAction = "emu_did_action",
    /// `did no action` (6.10 emulator).
    EmuDidNoAction = "emu_did_no_action",
    /// `took time step` (6.10 emulator).
    EmuTookTimeStep = "emu_took_time_step",
    /// `value: %d lambda: %f t %f time_left %f` (6.10 emulator): the host's
    /// availability process sampled at the start of a time step
    /// (`RANDOM_PROCESS::sample`; printed only when `<available>` is below 1).
    EmuHostAvailability = "emu_host_availability" {
        /// The host runs this step.
        on: bool,
        /// The process's mean on-period, seconds.
        lambda: f64,
        /// The sample's time.
        t: f64,
        /// Seconds left in the current on or off period.
        time_left: f64,
    },
    /// `RPC poll start` (6.10 emulator).
    EmuRpcPollStart = "emu_rpc_poll_start",
    /// `RPC poll: not time %f - %f < %f` (6.10 emulator).
    EmuRpcPollNotTime = "emu_rpc_poll_not_time" {
        /// Now.
        now: f64,
        /// Time of the last poll.
        last: f64,
        /// Poll period.
        period: f64,
    },
    /// `RPC poll: did an RPC` (6.10 emulator).
    EmuRpcPollDidRpc = "emu_rpc_poll_did_rpc",
    /// `RPC poll: nothing to do` (6.6 emulator: no RPC this poll).
    EmuRpcPollNothingToDo = "emu_rpc_poll_nothing_to_do",
    /// `Unrecognized tag in %s: <%s>` (a configuration file's element the
    /// client does not know, e.g. a log flag of a later release).
    UnrecognizedConfigTag = "unrecognized_config_tag" {
        /// The file.
        file: CompactString,
        /// The element's name.
        tag: CompactString,
    },
    /// `RPC poll: didn't do an RPC` (6.10 emulator).
    EmuRpcPollNoRpc = "emu_rpc_poll_no_rpc",
    /// `RPC to %s; asking for %f/%.2f<br>` (6.10 emulator).
    EmuRpcTo = "emu_rpc_to" {
        /// The project name.
        project: CompactString,
        /// CPU seconds asked.
        secs: f64,
        /// CPU instances asked.
        inst: f64,
    },
    /// `simulate_rpc: too soon %f < %f` (6.10 emulator).
    EmuRpcTooSoon = "emu_rpc_too_soon" {
        /// Now.
        now: f64,
        /// Earliest allowed time.
        next: f64,
    },
}

impl Message {
    /// The task whose process this line starts or resumes, where the line
    /// is task_debug's `task_state=EXECUTING for X from start` or `from
    /// unsuspend` (app_start.cpp start, app_control.cpp unsuspend): a
    /// restart's resumed task prints no other line without cpu_sched
    /// (resume_or_start).
    pub fn process_started(&self) -> Option<&str> {
        match self {
            Message::TaskStateChange {
                state: TaskState::Executing,
                job,
                from,
            } if matches!(from.as_str(), "start" | "unsuspend") => Some(job.as_str()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snake_case(name: &str) -> String {
        let mut out = String::new();
        for (idx, ch) in name.chars().enumerate() {
            if ch.is_ascii_uppercase() {
                if idx > 0 {
                    out.push('_');
                }
                out.push(ch.to_ascii_lowercase());
            } else {
                out.push(ch);
            }
        }
        out
    }

    #[test]
    fn kind_is_the_snake_case_variant_name() {
        for (variant, kind) in ALL_KINDS {
            assert_eq!(snake_case(variant), *kind, "variant {variant}");
        }
    }

    #[test]
    fn serde_tag_equals_kind() {
        let message = Message::WorkFetchShortfall {
            shortfall: 1.0,
            nidle: 0.0,
            saturated: 2.0,
            busy: 3.0,
        };
        let json = serde_json::to_value(&message).unwrap_or_default();
        assert_eq!(json["kind"], message.kind());
        let back: Message = serde_json::from_value(json).unwrap_or(Message::RrSimEnd);
        assert_eq!(back, message);
        let unit = serde_json::to_string(&Message::RrSimEnd).unwrap_or_default();
        assert_eq!(unit, r#"{"kind":"rr_sim_end"}"#);
    }
}

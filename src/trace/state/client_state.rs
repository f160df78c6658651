//! client_state.xml: the host, its projects, apps, app versions, workunits,
//! results and active tasks (formats-xml.md §1).

use crate::resource::ResourceType;
use crate::trace::ClientVersion;
use serde::{Deserialize, Serialize};

/// One client_state.xml (any era 5.x–8.x, or the emulator's input form).
///
/// Apps, app versions, workunits and results are filed under the
/// `<project>` that precedes them in the file (the client's write order).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientState {
    /// The file it was read from.
    pub path: String,
    /// `core_client_major_version` / `minor` / `release`; `None` if absent
    /// (the emulator's input form has none).
    pub core_client_version: Option<ClientVersion>,
    /// `<platform_name>`.
    pub platform_name: Option<String>,
    /// `<alt_platform>` entries.
    pub alt_platforms: Vec<String>,
    /// `<host_info>`.
    pub host_info: Option<HostInfo>,
    /// `<time_stats>`.
    pub time_stats: Option<TimeStats>,
    /// The projects in file order, each with its apps, versions and jobs.
    pub projects: Vec<Project>,
    /// `<active_task_set>`: tasks that hold a slot.
    pub active_tasks: Vec<ActiveTask>,
    /// `<user_run_request>`: 1 always, 2 auto, 3 never, 4 restore.
    pub user_run_request: Option<i64>,
    /// `<user_run_prev_request>`.
    pub user_run_prev_request: Option<i64>,
    /// `<user_gpu_request>` (run-mode code as above).
    pub user_gpu_request: Option<i64>,
    /// `<user_gpu_prev_request>`.
    pub user_gpu_prev_request: Option<i64>,
    /// `<user_network_request>` (run-mode code as above).
    pub user_network_request: Option<i64>,
    /// `<host_venue>`: selects a venue section of the web preferences.
    pub host_venue: Option<String>,
    /// `<new_version_check_time>`.
    pub new_version_check_time: Option<f64>,
    /// `<all_projects_list_check_time>`.
    pub all_projects_list_check_time: Option<f64>,
    /// The file ends before `</client_state>` (copied while the client
    /// wrote it): the client does not read such a file (cs_statefile.cpp
    /// `valid_state_file`); only its complete records are kept here.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// `<host_info>` (also the 6.10 emulator's `<host>`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    /// Seconds east of UTC.
    pub timezone: Option<i64>,
    /// Host name.
    pub domain_name: Option<String>,
    /// Host cross-project id.
    pub host_cpid: Option<String>,
    /// Logical CPUs detected.
    pub p_ncpus: Option<i64>,
    /// CPU vendor.
    pub p_vendor: Option<String>,
    /// CPU model.
    pub p_model: Option<String>,
    /// Whetstone FLOPS per CPU.
    pub p_fpops: Option<f64>,
    /// Dhrystone integer ops/s per CPU.
    pub p_iops: Option<f64>,
    /// Memory bandwidth.
    pub p_membw: Option<f64>,
    /// When benchmarks last ran (0 = never).
    pub p_calculated: Option<f64>,
    /// VT-x/AMD-V unavailable.
    pub p_vm_extensions_disabled: Option<bool>,
    /// RAM in bytes.
    pub m_nbytes: Option<f64>,
    /// CPU cache in bytes (-1 unknown).
    pub m_cache: Option<f64>,
    /// Swap in bytes.
    pub m_swap: Option<f64>,
    /// Disk size of the data directory, bytes.
    pub d_total: Option<f64>,
    /// Free disk, bytes.
    pub d_free: Option<f64>,
    /// Operating system name.
    pub os_name: Option<String>,
    /// Operating system version.
    pub os_version: Option<String>,
    /// Usable GPU instances (7.10+).
    pub n_usable_coprocs: Option<i64>,
    /// Product name (mobile devices).
    pub product_name: Option<String>,
    /// `<coprocs>`: one entry per coprocessor type, in file order.
    pub coprocs: Vec<Coproc>,
}

/// One coprocessor type of `<coprocs>` (`<coproc_cuda>`, `<coproc_ati>`,
/// `<coproc_intel_gpu>`, `<coproc_apple_gpu>`, or a custom `<coproc>`), or a
/// custom `<coproc>` of cc_config.xml.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coproc {
    /// The type, from the element name or the custom `<type>`.
    pub rsc: ResourceType,
    /// Instances of this type.
    pub count: Option<i64>,
    /// Device name.
    pub name: Option<String>,
    /// Peak FLOPS of one instance.
    pub peak_flops: Option<f64>,
    /// Available video RAM, bytes.
    pub available_ram: Option<f64>,
    /// `<have_cuda>` (NVIDIA).
    pub have_cuda: Option<bool>,
    /// `<have_cal>` (AMD).
    pub have_cal: Option<bool>,
    /// `<have_opencl>`.
    pub have_opencl: Option<bool>,
    /// `<cudaVersion>` (e.g. 10020 = 10.2).
    pub cuda_version: Option<i64>,
    /// `<drvVersion>` (e.g. 44064 = 440.64).
    pub drv_version: Option<i64>,
    /// Device numbers (`<device_nums>` "0 1 2", or one `<device_num>` each).
    pub device_nums: Vec<i64>,
    /// `<non_gpu>`: an accelerator that is not a GPU.
    pub non_gpu: bool,
    /// Number of `<pci_info>` blocks (one per instance, 7.0+).
    pub n_pci_infos: u32,
    /// Scheduler request only: seconds of work requested for this type.
    pub req_secs: Option<f64>,
    /// Scheduler request only: idle instances to fill.
    pub req_instances: Option<f64>,
    /// Scheduler request only: busy time before new work could start.
    pub estimated_delay: Option<f64>,
}

/// `<time_stats>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeStats {
    /// Fraction of wall time the client runs.
    pub on_frac: Option<f64>,
    /// Fraction of time network-connected (-1 unknown).
    pub connected_frac: Option<f64>,
    /// Fraction of time CPU and network are both available.
    pub cpu_and_network_available_frac: Option<f64>,
    /// Fraction of on-time computing is allowed.
    pub active_frac: Option<f64>,
    /// Same for GPUs.
    pub gpu_active_frac: Option<f64>,
    /// ≤6.2: CPU efficiency.
    pub cpu_efficiency: Option<f64>,
    /// Start of the current session.
    pub client_start_time: Option<f64>,
    /// Lifetime start (7.4+).
    pub total_start_time: Option<f64>,
    /// Lifetime duration (7.4+).
    pub total_duration: Option<f64>,
    /// Lifetime active duration (7.4+).
    pub total_active_duration: Option<f64>,
    /// Lifetime GPU-active duration (7.4+).
    pub total_gpu_active_duration: Option<f64>,
    /// Seconds of the previous session.
    pub previous_uptime: Option<f64>,
    /// Last update of the averages (state file).
    pub last_update: Option<f64>,
    /// Scheduler-request form: the client's clock when it wrote the request.
    pub now: Option<f64>,
    /// Scheduler-request form: active seconds this session.
    pub session_active_duration: Option<f64>,
    /// Scheduler-request form: GPU-active seconds this session.
    pub session_gpu_active_duration: Option<f64>,
    /// Emulator: mean on/off period of the host, seconds.
    pub on_lambda: Option<f64>,
    /// Emulator: mean connected/disconnected period, seconds.
    pub connected_lambda: Option<f64>,
    /// Emulator: mean active/inactive (computing allowed) period, seconds.
    pub active_lambda: Option<f64>,
    /// Emulator: mean GPU active/inactive period, seconds.
    pub gpu_active_lambda: Option<f64>,
}

/// Work-fetch backoff of a project for one resource: 7.0+
/// `<rsc_backoff_time>`/`<rsc_backoff_interval>` with `<name>`, or 6.x
/// `cpu_backoff_time`, `cuda_backoff_interval`, `ati_backoff_*`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RscBackoff {
    /// The resource.
    pub rsc: ResourceType,
    /// When the backoff ends (Unix seconds).
    pub backoff_time: Option<f64>,
    /// The current backoff interval, seconds.
    pub backoff_interval: Option<f64>,
}

/// 6.x debts of a project for one resource: `short_term_debt` /
/// `long_term_debt` (CPU), `cuda_short_term_debt` / `cuda_debt`,
/// `ati_short_term_debt` / `ati_debt`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RscDebt {
    /// The resource.
    pub rsc: ResourceType,
    /// Short-term debt, seconds.
    pub short_term_debt: Option<f64>,
    /// Long-term debt, seconds.
    pub long_term_debt: Option<f64>,
}

/// The emulator's project availability model (`<available>`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Availability {
    /// Fraction of time the project's server is up.
    pub frac: Option<f64>,
    /// Mean up/down period, seconds.
    pub lambda: Option<f64>,
}

/// One `<project>` with everything filed under it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Project {
    /// Project key.
    pub master_url: Option<String>,
    /// Display name (the event log's project column).
    pub project_name: Option<String>,
    /// Account name.
    pub user_name: Option<String>,
    /// Team name.
    pub team_name: Option<String>,
    /// Venue of this host for this project.
    pub host_venue: Option<String>,
    /// Scheduler RPCs made.
    pub rpc_seqno: Option<i64>,
    /// Account id.
    pub userid: Option<i64>,
    /// Team id.
    pub teamid: Option<i64>,
    /// Host id at this project.
    pub hostid: Option<i64>,
    /// Total credit of the user.
    pub user_total_credit: Option<f64>,
    /// Recent average credit of the user.
    pub user_expavg_credit: Option<f64>,
    /// Total credit of the host.
    pub host_total_credit: Option<f64>,
    /// Recent average credit of the host.
    pub host_expavg_credit: Option<f64>,
    /// Consecutive failed RPCs.
    pub nrpc_failures: Option<i64>,
    /// Master-file fetch failures.
    pub master_fetch_failures: Option<i64>,
    /// No scheduler RPC before this time.
    pub min_rpc_time: Option<f64>,
    /// The project asked to be contacted at this time (0 = none).
    pub next_rpc_time: Option<f64>,
    /// Recent estimated credit (7.0+).
    pub rec: Option<f64>,
    /// Last REC update.
    pub rec_time: Option<f64>,
    /// Resource share.
    pub resource_share: Option<f64>,
    /// Share set by an account manager.
    pub ams_resource_share_new: Option<f64>,
    /// Disk used, bytes.
    pub disk_usage: Option<f64>,
    /// Disk share, bytes (7.16+).
    pub disk_share: Option<f64>,
    /// Desired disk usage, bytes (7.0+).
    pub desired_disk_usage: Option<f64>,
    /// Duration correction factor.
    pub duration_correction_factor: Option<f64>,
    /// Reason code of a pending RPC (0 none … 7 project request).
    pub sched_rpc_pending: Option<i64>,
    /// Server asked for the time-stats log.
    pub send_time_stats_log: Option<i64>,
    /// Server asked for the job log.
    pub send_job_log: Option<i64>,
    /// Jobs completed successfully (7.4+).
    pub njobs_success: Option<i64>,
    /// Jobs failed (7.4+).
    pub njobs_error: Option<i64>,
    /// Elapsed time of all jobs (7.4+).
    pub elapsed_time: Option<f64>,
    /// Last scheduler RPC.
    pub last_rpc_time: Option<f64>,
    /// Estimated CPU credit (7.16+).
    pub cpu_ec: Option<f64>,
    /// CPU time used (7.16+).
    pub cpu_time: Option<f64>,
    /// Estimated GPU credit (7.16+).
    pub gpu_ec: Option<f64>,
    /// GPU time used (7.16+).
    pub gpu_time: Option<f64>,
    /// 5.x–6.2: `<rr_sim_deadlines_missed>`.
    pub rr_sim_deadlines_missed: Option<i64>,
    /// `<anonymous_platform/>`.
    pub anonymous_platform: bool,
    /// `<master_url_fetch_pending/>`.
    pub master_url_fetch_pending: bool,
    /// `<trickle_up_pending/>`.
    pub trickle_up_pending: bool,
    /// `<send_full_workload/>`.
    pub send_full_workload: bool,
    /// `<dont_use_dcf/>`: runtime estimates are not DCF-corrected.
    pub dont_use_dcf: bool,
    /// `<non_cpu_intensive/>`.
    pub non_cpu_intensive: bool,
    /// `<strict_memory_bound/>`.
    pub strict_memory_bound: bool,
    /// `<suspended_via_gui/>`.
    pub suspended_via_gui: bool,
    /// `<dont_request_more_work/>` ("No new tasks").
    pub dont_request_more_work: bool,
    /// `<detach_when_done/>`.
    pub detach_when_done: bool,
    /// `<ended/>`.
    pub ended: bool,
    /// `<attached_via_acct_mgr/>`.
    pub attached_via_acct_mgr: bool,
    /// `<scheduler_rpc_in_progress/>`.
    pub scheduler_rpc_in_progress: bool,
    /// `<use_symlinks/>`.
    pub use_symlinks: bool,
    /// Per-resource work-fetch backoffs, every era's form merged, in order of
    /// first appearance.
    pub rsc_backoffs: Vec<RscBackoff>,
    /// 6.x per-resource debts, in order of first appearance.
    pub debts: Vec<RscDebt>,
    /// `<no_rsc_apps>` (and 6.12 `<no_cpu_apps/>`, `<no_cuda_apps/>`, …):
    /// the project has no apps for these resources.
    pub no_rsc_apps: Vec<ResourceType>,
    /// `<no_rsc_ams>` (and `<no_cpu_ams/>`, …): excluded by the account manager.
    pub no_rsc_ams: Vec<ResourceType>,
    /// `<no_rsc_pref>` (and `<no_cpu_pref/>`, …): excluded by project preferences.
    pub no_rsc_pref: Vec<ResourceType>,
    /// `<no_rsc_config>` (GUI RPC copy): excluded by cc_config.xml.
    pub no_rsc_config: Vec<ResourceType>,
    /// `<scheduler_url>` entries.
    pub scheduler_urls: Vec<String>,
    /// Emulator: the server's availability model.
    pub available: Option<Availability>,
    /// The project's apps.
    pub apps: Vec<App>,
    /// The project's `<file>` / `<file_info>` entries (name, size, status).
    pub files: Vec<FileInfo>,
    /// The project's app versions.
    pub app_versions: Vec<AppVersion>,
    /// The project's workunits.
    pub workunits: Vec<Workunit>,
    /// The project's results (jobs), in file order.
    pub results: Vec<Job>,
}

/// The emulator's job-size distribution (`<fpops><mean>/<std_dev>`; the 6.10
/// emulator writes `<stdev>`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FpopsDistribution {
    /// Mean FLOPs of a job.
    pub mean: Option<f64>,
    /// Standard deviation.
    pub std_dev: Option<f64>,
}

/// One `<app>` (with the emulator's extra elements).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct App {
    /// App name (key within the project).
    pub name: Option<String>,
    /// Display name.
    pub user_friendly_name: Option<String>,
    /// `<non_cpu_intensive>`.
    pub non_cpu_intensive: bool,
    /// `<sporadic>`.
    pub sporadic: bool,
    /// `<fraction_done_exact>`.
    pub fraction_done_exact: bool,
    /// `<max_concurrent>` (cleared by the emulator without app_config.xml).
    pub max_concurrent: Option<i64>,
    /// `<checkpoint_period>`, seconds.
    pub checkpoint_period: Option<f64>,
    /// Emulator: deadline of generated jobs minus their received time.
    pub latency_bound: Option<f64>,
    /// Emulator: the FLOPs estimate of generated jobs.
    pub fpops_est: Option<f64>,
    /// Emulator: the actual size distribution of generated jobs.
    pub fpops: Option<FpopsDistribution>,
    /// Emulator: relative frequency of this app among the project's jobs.
    pub weight: Option<f64>,
    /// Emulator: working-set size, bytes.
    pub working_set: Option<f64>,
}

/// One `<file>` / `<file_info>`, reduced to what scheduling can use.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileInfo {
    /// File name.
    pub name: Option<String>,
    /// Size, bytes.
    pub nbytes: Option<f64>,
    /// 0 not present, 1 present, negative = transfer error.
    pub status: Option<i64>,
    /// `<sticky/>`.
    pub sticky: bool,
    /// A `<persistent_file_xfer>` block is present (transfer in progress).
    pub transfer_in_progress: bool,
}

/// Coprocessor usage of an app version or workunit (`<coproc>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoprocUsage {
    /// `<type>`.
    pub rsc: ResourceType,
    /// `<count>`: instances per job (may be fractional).
    pub count: Option<f64>,
}

/// One `<app_version>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AppVersion {
    /// Its app.
    pub app_name: Option<String>,
    /// Version number.
    pub version_num: Option<i64>,
    /// Platform.
    pub platform: Option<String>,
    /// Plan class; `None` when absent or empty (plain CPU).
    pub plan_class: Option<String>,
    /// API version.
    pub api_version: Option<String>,
    /// Command line.
    pub cmdline: Option<String>,
    /// CPUs used while running.
    pub avg_ncpus: Option<f64>,
    /// Maximum CPUs (≤7.x).
    pub max_ncpus: Option<f64>,
    /// The server's speed estimate, FLOPS.
    pub flops: Option<f64>,
    /// Coprocessor type and count per job.
    pub coproc: Option<CoprocUsage>,
    /// GPU RAM needed, bytes.
    pub gpu_ram: Option<f64>,
    /// `<dont_throttle/>`.
    pub dont_throttle: bool,
    /// `<is_wrapper/>`.
    pub is_wrapper: bool,
    /// `<needs_network/>`.
    pub needs_network: bool,
}

/// One `<workunit>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Workunit {
    /// Workunit name.
    pub name: Option<String>,
    /// Its app.
    pub app_name: Option<String>,
    /// App version number.
    pub version_num: Option<i64>,
    /// FLOPs estimate.
    pub rsc_fpops_est: Option<f64>,
    /// FLOPs limit.
    pub rsc_fpops_bound: Option<f64>,
    /// Memory bound, bytes.
    pub rsc_memory_bound: Option<f64>,
    /// Disk bound, bytes.
    pub rsc_disk_bound: Option<f64>,
    /// Command line.
    pub command_line: Option<String>,
    /// Per-job CPU usage override.
    pub avg_ncpus: Option<f64>,
    /// Per-job FLOPS override.
    pub flops: Option<f64>,
    /// Per-job coprocessor override.
    pub coproc: Option<CoprocUsage>,
    /// Its input files (`<file_ref>` `<file_name>`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_files: Vec<String>,
}

/// One `<result>` (a job; also the to-server and from-server forms in
/// scheduler requests and replies).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Task name.
    pub name: Option<String>,
    /// Its workunit.
    pub wu_name: Option<String>,
    /// The workunit's app (filled in from the workunit).
    pub app_name: Option<String>,
    /// Platform of its app version.
    pub platform: Option<String>,
    /// Version number of its app version.
    pub version_num: Option<i64>,
    /// Plan class of its app version; `None` when absent or empty.
    pub plan_class: Option<String>,
    /// To-server form: `<app_version_num>`.
    pub app_version_num: Option<i64>,
    /// 0 new, 1 downloading, 2 downloaded, 3 compute error, 4 uploading,
    /// 5 uploaded, 6 aborted, 7 upload failed.
    pub state: Option<i64>,
    /// Exit status.
    pub exit_status: Option<i64>,
    /// Final CPU time, seconds.
    pub final_cpu_time: Option<f64>,
    /// Final elapsed time, seconds.
    pub final_elapsed_time: Option<f64>,
    /// Deadline (Unix seconds).
    pub report_deadline: Option<f64>,
    /// When the client got it (6.10+).
    pub received_time: Option<f64>,
    /// When it became ready to report.
    pub completed_time: Option<f64>,
    /// The workunit's FLOPs estimate (filled in from the workunit).
    pub rsc_fpops_est: Option<f64>,
    /// Fraction done: the GUI's `<fraction_done>` if present, else the active
    /// task's `<checkpoint_fraction_done>` (`None` when it has no active task).
    pub fraction_done: Option<f64>,
    /// Elapsed time: the GUI's `<elapsed_time>` if present, else the active
    /// task's `<checkpoint_elapsed_time>`.
    pub elapsed_time: Option<f64>,
    /// GUI RPC: estimated CPU time remaining.
    pub estimated_cpu_time_remaining: Option<f64>,
    /// `<got_server_ack/>`.
    pub got_server_ack: bool,
    /// `<ready_to_report/>`.
    pub ready_to_report: bool,
    /// `<suspended_via_gui/>`.
    pub suspended_via_gui: bool,
    /// `<report_immediately/>`.
    pub report_immediately: bool,
    /// Its output files (`<file_ref>` `<file_name>`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_files: Vec<String>,
}

/// One `<active_task>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ActiveTask {
    /// Its project.
    pub project_master_url: Option<String>,
    /// Its result.
    pub result_name: Option<String>,
    /// 0 uninitialized, 1 executing, … 9 suspended, 10 copy pending.
    pub active_task_state: Option<i64>,
    /// App version number.
    pub app_version_num: Option<i64>,
    /// Slot directory number.
    pub slot: Option<i64>,
    /// CPU time at the last checkpoint.
    pub checkpoint_cpu_time: Option<f64>,
    /// Elapsed time at the last checkpoint.
    pub checkpoint_elapsed_time: Option<f64>,
    /// Fraction done at the last checkpoint.
    pub checkpoint_fraction_done: Option<f64>,
    /// Elapsed time when that fraction done was reached.
    pub checkpoint_fraction_done_elapsed_time: Option<f64>,
    /// Current CPU time.
    pub current_cpu_time: Option<f64>,
    /// Ran in high-priority (EDF) mode.
    pub once_ran_edf: bool,
    /// Swap size, bytes.
    pub swap_size: Option<f64>,
    /// Working set, bytes.
    pub working_set_size: Option<f64>,
    /// Smoothed working set, bytes.
    pub working_set_size_smoothed: Option<f64>,
    /// Page-fault rate (≤7.x).
    pub page_fault_rate: Option<f64>,
    /// GUI RPC: 0 uninitialized, 1 preempted, 2 scheduled.
    pub scheduler_state: Option<i64>,
    /// GUI RPC: fraction done now.
    pub fraction_done: Option<f64>,
    /// GUI RPC: elapsed time now.
    pub elapsed_time: Option<f64>,
}

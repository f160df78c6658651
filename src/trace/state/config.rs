//! Preferences, cc_config.xml, app_config.xml, job logs and the 6.10
//! emulator's host and project files (formats-xml.md §4–§7).

use super::client_state::{Coproc, HostInfo, Project};
use crate::resource::ResourceType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// global_prefs.xml, global_prefs_override.xml, the 6.10 emulator's
/// sim_prefs.xml, or the `<global_preferences>` / `<working_global_preferences>`
/// inside a scheduler request or reply.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GlobalPrefs {
    /// The file it was read from (empty when embedded in an RPC).
    pub path: String,
    /// True for the local override file. Decided by the file name
    /// (`global_prefs_override.xml`, optionally `.gz`): both files have the
    /// same root and element set, so content cannot tell them apart.
    pub is_override: bool,
    /// `<source_project>`: the project that sent the web preferences.
    pub source_project: Option<String>,
    /// `<source_scheduler>`.
    pub source_scheduler: Option<String>,
    /// `<mod_time>`: newer web preferences win.
    pub mod_time: Option<f64>,
    /// The top-level values.
    pub values: PrefsValues,
    /// `<venue name="…">` sections, in file order.
    pub venues: Vec<PrefsVenue>,
}

/// One `<venue name="home|work|school">` section.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrefsVenue {
    /// The `name` attribute.
    pub name: String,
    /// The values of this venue.
    pub values: PrefsValues,
}

/// The preference values (lib/prefs.cpp). `None` = not given (the client's
/// default applies: work_buf_min_days 0.1, work_buf_additional_days 0.5,
/// cpu_scheduling_period_minutes 60, max_ncpus_pct 0 = 100 %, …).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrefsValues {
    /// Store at least this many days of work.
    pub work_buf_min_days: Option<f64>,
    /// Store up to this many additional days.
    pub work_buf_additional_days: Option<f64>,
    /// Percent of CPUs to use (0 = 100 %).
    pub max_ncpus_pct: Option<f64>,
    /// Percent of CPUs to use while the computer is not in use.
    pub niu_max_ncpus_pct: Option<f64>,
    /// Obsolete absolute CPU count.
    pub max_cpus: Option<i64>,
    /// Percent of CPU time (throttling).
    pub cpu_usage_limit: Option<f64>,
    /// Same while not in use.
    pub niu_cpu_usage_limit: Option<f64>,
    /// Suspend above this non-BOINC CPU load, %.
    pub suspend_cpu_usage: Option<f64>,
    /// Same while not in use.
    pub niu_suspend_cpu_usage: Option<f64>,
    /// Time slice for round-robin switching, minutes.
    pub cpu_scheduling_period_minutes: Option<f64>,
    /// Compute while the user is active.
    pub run_if_user_active: Option<bool>,
    /// Use GPUs while the user is active.
    pub run_gpu_if_user_active: Option<bool>,
    /// Minutes of idleness before "not in use".
    pub idle_time_to_run: Option<f64>,
    /// Suspend when there was no input for this many minutes (0 = never).
    pub suspend_if_no_recent_input: Option<f64>,
    /// Compute on batteries.
    pub run_on_batteries: Option<bool>,
    /// Minimum battery charge, %.
    pub battery_charge_min_pct: Option<f64>,
    /// Maximum battery temperature, °C.
    pub battery_max_temperature: Option<f64>,
    /// Compute from this hour.
    pub start_hour: Option<f64>,
    /// Compute until this hour.
    pub end_hour: Option<f64>,
    /// Network from this hour.
    pub net_start_hour: Option<f64>,
    /// Network until this hour.
    pub net_end_hour: Option<f64>,
    /// Per-weekday windows.
    pub day_prefs: Vec<DayPrefs>,
    /// Preempted CPU tasks stay in memory.
    pub leave_apps_in_memory: Option<bool>,
    /// Checkpoint at most this often, seconds.
    pub disk_interval: Option<f64>,
    /// Disk limit, GB.
    pub disk_max_used_gb: Option<f64>,
    /// Disk limit, %.
    pub disk_max_used_pct: Option<f64>,
    /// Keep this much disk free, GB.
    pub disk_min_free_gb: Option<f64>,
    /// Virtual memory limit, %.
    pub vm_max_used_pct: Option<f64>,
    /// RAM limit while the computer is in use, %.
    pub ram_max_used_busy_pct: Option<f64>,
    /// RAM limit while it is idle, %.
    pub ram_max_used_idle_pct: Option<f64>,
    /// Upload rate limit, bytes/s.
    pub max_bytes_sec_up: Option<f64>,
    /// Download rate limit, bytes/s.
    pub max_bytes_sec_down: Option<f64>,
    /// Transfer limit, MB per period.
    pub daily_xfer_limit_mb: Option<f64>,
    /// Transfer limit period, days.
    pub daily_xfer_period_days: Option<i64>,
    /// Transfer only on Wi-Fi.
    pub network_wifi_only: Option<bool>,
    /// Ask before connecting.
    pub confirm_before_connecting: Option<bool>,
    /// Hang up after dialling.
    pub hangup_if_dialed: Option<bool>,
    /// Skip image verification.
    pub dont_verify_images: Option<bool>,
    /// In requests: an override file is present.
    pub override_file_present: Option<bool>,
    /// Web prefs: host-specific.
    pub host_specific: Option<bool>,
}

/// One `<day_prefs>` entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DayPrefs {
    /// 0 = Sunday … 6 = Saturday.
    pub day_of_week: Option<i64>,
    /// Compute from this hour.
    pub start_hour: Option<f64>,
    /// Compute until this hour.
    pub end_hour: Option<f64>,
    /// Network from this hour.
    pub net_start_hour: Option<f64>,
    /// Network until this hour.
    pub net_end_hour: Option<f64>,
}

/// cc_config.xml.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CcConfig {
    /// The file it was read from.
    pub path: String,
    /// `<log_flags>`: every flag given, by name, with its value.
    pub log_flags: BTreeMap<String, bool>,
    /// `<options>`.
    pub options: CcOptions,
}

/// A bare `<log_flags>` file (the 7.2 emulator's log_flags.xml).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LogFlagsFile {
    /// The file it was read from.
    pub path: String,
    /// Every flag given, by name, with its value.
    pub log_flags: BTreeMap<String, bool>,
}

/// `<options>` of cc_config.xml: the scheduling-relevant options typed, the
/// rest kept as text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CcOptions {
    /// CPUs to use (-1 = detected).
    pub ncpus: Option<i64>,
    /// Use every GPU, not only the best of each vendor.
    pub use_all_gpus: Option<bool>,
    /// Use no GPUs.
    pub no_gpus: Option<bool>,
    /// Ignore OpenCL.
    pub no_opencl: Option<bool>,
    /// Fetch only enough work to keep resources busy.
    pub fetch_minimal_work: Option<bool>,
    /// Fetch work on project update.
    pub fetch_on_update: Option<bool>,
    /// Prefer GPU jobs.
    pub prioritize_gpu: Option<bool>,
    /// REC half-life, days (default 10).
    pub rec_half_life_days: Option<f64>,
    /// Report results at once.
    pub report_results_immediately: Option<bool>,
    /// Maximum results reported per RPC (0 = no limit).
    pub max_tasks_reported: Option<i64>,
    /// Do not suspend non-CPU-intensive tasks.
    pub dont_suspend_nci: Option<bool>,
    /// Abort tasks this many days past their deadline.
    pub max_overdue_days: Option<f64>,
    /// `<exclude_gpu>` entries.
    pub exclude_gpus: Vec<ExcludeGpu>,
    /// `<ignore_nvidia_dev>`, `<ignore_ati_dev>`, `<ignore_intel_dev>`,
    /// `<ignore_apple_dev>`, `<ignore_cuda_dev>`: invisible devices.
    pub ignored_devices: Vec<IgnoredDevice>,
    /// `<coproc>`: custom coprocessors.
    pub coprocs: Vec<Coproc>,
    /// `<exclusive_app>` process names.
    pub exclusive_apps: Vec<String>,
    /// `<exclusive_gpu_app>` process names.
    pub exclusive_gpu_apps: Vec<String>,
    /// Every other option with a plain value, by name (last one wins).
    pub other: BTreeMap<String, String>,
}

/// One `<exclude_gpu>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExcludeGpu {
    /// `<url>`: the project's master URL.
    pub url: Option<String>,
    /// `<device_num>`: the instance; `None` = all.
    pub device_num: Option<i64>,
    /// `<type>`: the GPU type; `None` = all types.
    pub rsc: Option<ResourceType>,
    /// `<app>`: the app; `None` = all apps.
    pub app: Option<String>,
}

/// One `<ignore_*_dev>`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IgnoredDevice {
    /// The GPU type, from the element name.
    pub rsc: ResourceType,
    /// The device number.
    pub device_num: i64,
}

/// One projects/<dir>/app_config.xml.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AppConfig {
    /// The file it was read from.
    pub path: String,
    /// The project directory name from a path `…/projects/<dir>/app_config.xml`
    /// (the escaped master URL; see [`super::escaped_master_url`]); `None`
    /// when the path does not say.
    pub project_dir: Option<String>,
    /// `<app>` entries.
    pub apps: Vec<AppConfigApp>,
    /// `<app_version>` entries.
    pub app_versions: Vec<AppConfigVersion>,
    /// `<project_max_concurrent>`.
    pub project_max_concurrent: Option<i64>,
    /// `<report_results_immediately/>` for the whole project.
    pub report_results_immediately: bool,
    /// What the client says when the file does not parse to its end
    /// (`Missing </app> in app_config.xml`, ...). The client then applies
    /// none of its app and app-version settings (app_config.cpp
    /// `check_app_config` skips `config_app_versions`), while the
    /// project-wide limits read before the error stay (lib/cc_config.cpp
    /// `APP_CONFIGS::parse`); the entries after the error are not read.
    /// `None` when it parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_parse_error: Option<String>,
}

/// One `<app>` of app_config.xml.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AppConfigApp {
    /// `<name>`.
    pub name: Option<String>,
    /// `<max_concurrent>`.
    pub max_concurrent: Option<i64>,
    /// `<report_results_immediately/>`.
    pub report_results_immediately: bool,
    /// `<fraction_done_exact/>`.
    pub fraction_done_exact: bool,
    /// `<gpu_versions>`.
    pub gpu_versions: Option<GpuVersions>,
}

/// `<gpu_versions>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuVersions {
    /// GPU instances per job.
    pub gpu_usage: Option<f64>,
    /// CPUs per job.
    pub cpu_usage: Option<f64>,
}

/// One `<app_version>` of app_config.xml.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AppConfigVersion {
    /// `<app_name>`.
    pub app_name: Option<String>,
    /// `<plan_class>`.
    pub plan_class: Option<String>,
    /// `<avg_ncpus>`.
    pub avg_ncpus: Option<f64>,
    /// `<ngpus>`.
    pub ngpus: Option<f64>,
    /// `<cmdline>`.
    pub cmdline: Option<String>,
}

/// One job_log_<project>.txt.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobLog {
    /// The file it was read from.
    pub path: String,
    /// The escaped master URL from a file name `job_log_<X>.txt`.
    pub project: Option<String>,
    /// One entry per line, in file order.
    pub entries: Vec<JobLogEntry>,
}

/// One line of a job log: `T ue U ct C fe F nm NAME et E es S`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobLogEntry {
    /// Completion time (Unix seconds).
    pub time: f64,
    /// `ue`: uncorrected runtime estimate, seconds.
    pub ue: Option<f64>,
    /// `ct`: final CPU time, seconds.
    pub ct: Option<f64>,
    /// `fe`: the workunit's `rsc_fpops_est`.
    pub fe: Option<f64>,
    /// `nm`: task name.
    pub nm: Option<String>,
    /// `et`: final elapsed time, seconds.
    pub et: Option<f64>,
    /// `es`: exit status.
    pub es: Option<i64>,
}

/// The 6.10 emulator's sim_host.xml (`<host>`, host_info elements).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SimHost {
    /// The file it was read from.
    pub path: String,
    /// The host description.
    pub host: HostInfo,
    /// Its random processes (`<available>`, `<idle>`), in file order: the
    /// emulator starts each as it reads it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<SimHostProcess>,
}

/// One random on/off process of the 6.10 emulator's host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimHostProcess {
    /// `available` (the host runs) or `idle` (never sampled by the harness).
    pub name: String,
    /// `frac` and `lambda`.
    pub model: super::Availability,
}

/// The 6.10 emulator's sim_projects.xml (`<projects>`, each `<project>` with
/// its `<app>`s inside).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SimProjects {
    /// The file it was read from.
    pub path: String,
    /// The projects, in file order, apps filed under each.
    pub projects: Vec<Project>,
}

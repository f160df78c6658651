//! Host state and configuration as recorded: client_state.xml, preferences,
//! cc_config.xml, app_config.xml, job logs and the 6.10 emulator's inputs.
//!
//! Architecture Invariant: plain data. This module knows nothing of parsers,
//! the policy engine, replay or output; it only names what the files hold,
//! with BOINC's own element names as field names wherever there is one.
//!
//! Conventions: an element that is absent is `None` (never a made-up
//! default, so "not recorded" stays distinguishable from "zero"); flags
//! (`<flag/>`, `<flag>1</flag>`) are `bool`; times are Unix seconds as `f64`
//! like the client's own doubles; resources are [`ResourceType`](crate::resource::ResourceType)s; lists keep
//! the order of the file.

mod client_state;
mod config;

pub use client_state::{
    ActiveTask, App, AppVersion, Availability, ClientState, Coproc, CoprocUsage, FileInfo,
    FpopsDistribution, HostInfo, Job, Project, RscBackoff, RscDebt, TimeStats, Workunit,
};
pub use config::{
    AppConfig, AppConfigApp, AppConfigVersion, CcConfig, CcOptions, DayPrefs, ExcludeGpu,
    GlobalPrefs, GpuVersions, IgnoredDevice, JobLog, JobLogEntry, LogFlagsFile, PrefsValues,
    PrefsVenue, SimHost, SimHostProcess, SimProjects,
};

use crate::trace::FileKind;
use serde::{Deserialize, Serialize};

/// Everything the XML and small text inputs say about the host.
///
/// Files that can only exist once per data directory are `Option`s; when a
/// trace holds a second one, the first is kept and the parser warns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostRecord {
    /// Every client_state.xml (and client_state_prev.xml, periodic copies,
    /// the emulator's input form), in reading order.
    pub client_states: Vec<ClientState>,
    /// global_prefs.xml: the web preferences (also the 6.10 emulator's sim_prefs.xml).
    pub global_prefs: Option<GlobalPrefs>,
    /// global_prefs_override.xml: the local preferences.
    pub global_prefs_override: Option<GlobalPrefs>,
    /// cc_config.xml.
    pub cc_config: Option<CcConfig>,
    /// A bare `<log_flags>` file (the 7.2 emulator's log_flags.xml).
    pub log_flags: Option<LogFlagsFile>,
    /// Every projects/*/app_config.xml, in reading order.
    pub app_configs: Vec<AppConfig>,
    /// Every job_log_*.txt, in reading order.
    pub job_logs: Vec<JobLog>,
    /// The 6.10 emulator's sim_host.xml.
    pub sim_host: Option<SimHost>,
    /// The 6.10 emulator's sim_projects.xml.
    pub sim_projects: Option<SimProjects>,
    /// One note per XML or text input parsed into this record or into the RPCs.
    pub files: Vec<FileNote>,
}

impl HostRecord {
    /// The host's offsets from UTC (seconds east) its state files hold.
    pub fn host_timezones(&self) -> Vec<i64> {
        self.client_states
            .iter()
            .filter_map(|s| s.host_info.as_ref()?.timezone)
            .collect()
    }
}

/// What parsing one XML or text input noticed beyond its content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileNote {
    /// The path as shown in messages.
    pub path: String,
    /// What the file is.
    pub kind: FileKind,
    /// Elements the parser does not know (newer clients, typos); ignored like
    /// the client ignores them. Subtrees that are known and deliberately
    /// skipped (`<file>`, `<net_stats>`, `<coproc_opencl>`, …) do not count.
    pub unknown_elements: u64,
    /// The distinct unknown element names, sorted (at most 20).
    pub unknown_names: Vec<String>,
}

/// The "escaped" master URL that names a project's files and directory
/// (`job_log_X.txt`, `sched_request_X.xml`, `projects/X/`): the scheme and
/// `://` dropped, every character other than letters, digits, `.`, `-` and
/// `_` replaced by `_`, one trailing `_` dropped (formats-xml.md §0).
///
/// `http://milkyway.cs.rpi.edu/milkyway/` → `milkyway.cs.rpi.edu_milkyway`.
pub fn escaped_master_url(master_url: &str) -> String {
    let rest = master_url
        .split_once("://")
        .map_or(master_url, |(_, rest)| rest);
    let mut escaped: String = rest
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if escaped.ends_with('_') {
        escaped.pop();
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_urls_match_the_spec_examples() {
        assert_eq!(
            escaped_master_url("http://setiathome.berkeley.edu/"),
            "setiathome.berkeley.edu"
        );
        assert_eq!(
            escaped_master_url("http://milkyway.cs.rpi.edu/milkyway/"),
            "milkyway.cs.rpi.edu_milkyway"
        );
        assert_eq!(
            escaped_master_url("https://www.worldcommunitygrid.org/"),
            "www.worldcommunitygrid.org"
        );
    }
}

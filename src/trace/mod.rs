//! The typed recorded world: what a host recorded, as one value.
//!
//! Architecture Invariant: `trace` is plain data (serde-serializable). It knows
//! nothing of parsers, the policy engine, replay or output formats.
//!
//! A [`Trace`] holds the event log as typed [`LogEvent`]s, the host state
//! snapshots (client_state.xml and its companions), the scheduler-RPC
//! transcripts, and metadata gathered while parsing (client version, UTC
//! offset, time base).

pub mod event;
pub mod message;
pub mod rpc;
pub mod state;
pub mod time;

pub use event::LogEvent;
pub use message::Message;
pub use time::{EventTime, TimeBase};

use serde::{Deserialize, Serialize};

/// What kind of input a file is, decided from its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// stdoutdae.txt / stdoutdae.old, console or journald capture.
    EventLog,
    /// The client emulator's log.txt (simulated time).
    EmulatorLog,
    /// `boinccmd --get_messages` output.
    BoinccmdMessages,
    /// Text copied out of the BOINC Manager's event log.
    ManagerCopy,
    /// A GUI RPC `<get_messages>` reply (`<msgs>`).
    GuiRpcMessages,
    /// client_state.xml (also the emulator's input form).
    ClientState,
    /// global_prefs.xml, global_prefs_override.xml (also the 6.10 emulator's sim_prefs.xml).
    GlobalPrefs,
    /// cc_config.xml (also a bare `<log_flags>` file).
    CcConfig,
    /// app_config.xml.
    AppConfig,
    /// `sched_request_<project>.xml`.
    SchedRequest,
    /// `sched_reply_<project>.xml`.
    SchedReply,
    /// `job_log_<project>.txt`.
    JobLog,
    /// The 6.10 emulator's sim_host.xml.
    SimHost,
    /// The 6.10 emulator's sim_projects.xml.
    SimProjects,
    /// The emulator's timeline.html (host and GPU availability per step).
    EmulatorTimeline,
    /// The 6.10 emulator's sim_out_0.html (per-step timeline; job runtimes).
    SimOutHtml,
    /// Anything else (emulator summaries, HTML timelines, binaries): not parsed.
    Other,
}

impl FileKind {
    /// A line-oriented text rendering of the event log.
    pub fn is_text_log(self) -> bool {
        matches!(
            self,
            FileKind::EventLog
                | FileKind::EmulatorLog
                | FileKind::BoinccmdMessages
                | FileKind::ManagerCopy
        )
    }
}

/// Facts about the recording gathered while parsing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceMeta {
    /// From `Starting BOINC client version X.Y.Z`; `None` if the log never says.
    pub client_version: Option<ClientVersion>,
    /// From `Local time is UTC +N hours`, in hours.
    pub utc_offset_hours: Option<i32>,
    /// Wall clock or the emulator's simulated time.
    pub time_base: TimeBase,
    /// The user's first suspend or resume of each project, task and
    /// project's work fetch in the session's log.
    #[serde(default, skip_serializing_if = "UserToggles::is_empty")]
    pub user_toggles: UserToggles,
}

/// Per project, task or project's work fetch: whether the first line of
/// a session's log that suspends or resumes it by the user's hand
/// suspends it (`Project suspended by user`, `task X resumed by user`,
/// `work fetch suspended by user`). A log that starts on a state file it
/// does not see made tells no such setting at its start; a later state
/// file's flag, turned back where the log's first such line turns it,
/// gives it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UserToggles {
    /// Per project name: its first suspend (true) or resume (false).
    pub projects: std::collections::BTreeMap<String, bool>,
    /// Per task (job name).
    pub tasks: std::collections::BTreeMap<String, bool>,
    /// Per project name: its work fetch's (no new tasks).
    pub work_fetch: std::collections::BTreeMap<String, bool>,
}

impl UserToggles {
    /// Nothing toggled.
    pub fn is_empty(&self) -> bool {
        self.projects.is_empty() && self.tasks.is_empty() && self.work_fetch.is_empty()
    }

    /// Notes one line of the log (its project and message).
    pub fn see(&mut self, event: &LogEvent) {
        let project = || event.project.as_deref().unwrap_or_default().to_string();
        match &event.message {
            Message::ProjectSuspendedByUser => {
                self.projects.entry(project()).or_insert(true);
            }
            Message::ProjectResumedByUser => {
                self.projects.entry(project()).or_insert(false);
            }
            Message::WorkFetchSuspendedByUser => {
                self.work_fetch.entry(project()).or_insert(true);
            }
            Message::WorkFetchResumedByUser => {
                self.work_fetch.entry(project()).or_insert(false);
            }
            Message::TaskSuspendedByUser { job } => {
                self.tasks.entry(job.to_string()).or_insert(true);
            }
            Message::TaskResumedByUser { job } => {
                self.tasks.entry(job.to_string()).or_insert(false);
            }
            _ => {}
        }
    }

    /// A setting at the log's start, from the flag a later state file
    /// holds and the first line of the log that turns it (`first`).
    pub fn at_start(first: Option<&bool>, later_state: bool) -> bool {
        match first {
            Some(suspends) => !suspends,
            None => later_state,
        }
    }
}

/// The host's offset from UTC in seconds, from the hours its log printed
/// (`Local time is UTC %+d hours`: client_state.cpp prints the offset in
/// seconds divided by 3600, truncated toward zero, so +5:30 prints +5) and
/// the exact offsets state files hold (`<host_info><timezone>`, seconds
/// east of UTC): the first of those that prints as the same hours (a
/// half-hour or quarter-hour zone), else the printed hours.
pub fn utc_offset_secs(printed_hours: i32, host_timezones: &[i64]) -> i64 {
    let printed = i64::from(printed_hours);
    host_timezones
        .iter()
        .copied()
        .find(|tz| tz / 3600 == printed && tz.abs() < 86_400)
        .unwrap_or(printed * 3600)
}

/// A client version `major.minor.release`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ClientVersion {
    /// Major version (5 to 8).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Release number.
    pub release: u32,
}

/// Everything parsed from one set of inputs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Facts about the recording.
    pub meta: TraceMeta,
    /// Event log lines of every log input, in file order then line order.
    pub events: Vec<LogEvent>,
    /// Host state and configuration.
    pub state: state::HostRecord,
    /// Scheduler RPC transcripts.
    pub rpcs: Vec<rpc::RpcFile>,
    /// Per time step, whether the emulated client ran and GPUs were allowed
    /// (from the emulator's timeline.html); empty when not recorded.
    #[serde(default)]
    pub availability: Vec<StepAvailability>,
    /// Job name → true CPU seconds, from the 6.10 emulator's sim_out_0.html
    /// (`Starting JOB: SECS` at a job's first start); empty when not recorded.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub job_runtimes: std::collections::BTreeMap<String, f64>,
}

/// The emulator's availability draws for one time step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepAvailability {
    /// Simulated seconds of the step.
    pub time: i64,
    /// The timeline shows the step active (`BOINC not running` marks a step
    /// in which the client was off or not active: client/sim.cpp html_rec()).
    pub on: bool,
    /// GPUs were allowed (`gpu_active`); off steps and `GPUs disabled` say no.
    pub gpus_allowed: bool,
}

#[cfg(test)]
mod tests {
    use super::utc_offset_secs;

    /// India (+5:30) prints `+5 hours`, Newfoundland (-3:30) `-3 hours`
    /// (the seconds divided by 3600, truncated toward zero): the state
    /// file's `<timezone>` gives the half hour. A state file written under
    /// another offset (daylight saving since, another host) is not taken.
    #[test]
    fn printed_hours_made_exact_by_the_state_files() {
        assert_eq!(utc_offset_secs(5, &[19_800]), 19_800);
        assert_eq!(utc_offset_secs(-3, &[-12_600]), -12_600);
        assert_eq!(utc_offset_secs(5, &[20_700]), 20_700);
        assert_eq!(utc_offset_secs(0, &[-1_800]), -1_800);
        assert_eq!(utc_offset_secs(1, &[7_200]), 3_600);
        assert_eq!(utc_offset_secs(-4, &[]), -14_400);
        assert_eq!(utc_offset_secs(2, &[3_600, 7_200]), 7_200);
    }
}

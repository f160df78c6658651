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

//! Inputs the log proves the client read, held against those given.
//!
//! An emulator's replay rebuilds the host from its input files; a file
//! left out is read as absent (defaults, no limits), and every decision
//! resting on it would then diverge for a reason that is not the policy's.
//! The log tells where a file was there when it ran: its start-up lines
//! say `Found app_config.xml` per project, print the log flags and the
//! coprocessors that only cc_config.xml sets, and restate the preferences
//! in force. A file so proven but not given is named, and the decisions
//! are "not checked" (spec: honest outcomes), never divergences.
//!
//! Architecture Invariant: reads the trace's start-up lines and the state
//! built from its files; decides nothing.

use crate::policy::state::{HostState, Prefs};
use crate::trace::{LogEvent, Message, Trace};

/// Log flags a client has on without any cc_config.xml (client/log_flags.cpp
/// `LOG_FLAGS::init`: task, file_xfer and sched_ops).
const DEFAULT_FLAGS: [&str; 3] = ["task", "file_xfer", "sched_ops"];

/// The printed preferences carry two decimals of days.
const HALF_CENT: f64 = 0.005 + 1e-9;

/// One input the log shows the client read, missing from those given.
#[derive(Clone, Debug, PartialEq)]
pub struct MissingInput {
    /// The file, as the client names it.
    pub file: String,
    /// What in the log shows it was read.
    pub evidence: String,
}

impl MissingInput {
    /// One sentence for the report.
    pub fn sentence(&self) -> String {
        format!(
            "{} is not among the inputs, yet the log shows the client read it ({}): the \
             decisions resting on it cannot be recomputed without it",
            self.file, self.evidence
        )
    }
}

/// The inputs the start-up lines of `events` prove the client read that
/// `trace` lacks, for a host rebuilt as `state`. `has_app_config` tells
/// whether a project (by the name the log prints) has its app_config.xml
/// among the inputs (None: the project is not in the state file).
pub fn missing(
    trace: &Trace,
    state: &HostState,
    has_app_config: impl Fn(&str) -> Option<bool>,
) -> Vec<MissingInput> {
    let mut out: Vec<MissingInput> = Vec::new();
    let mut push = |file: String, evidence: String| {
        if !out.iter().any(|m| m.file == file) {
            out.push(MissingInput { file, evidence });
        }
    };
    let no_cc_config = trace.state.cc_config.is_none() && trace.state.log_flags.is_none();
    let (mut min_days, mut additional_days) = (None, None);
    for event in startup(&trace.events) {
        let project = event.project.as_deref().unwrap_or_default();
        match &event.message {
            Message::FoundFile { file }
                if file.as_str() == "app_config.xml" && has_app_config(project) == Some(false) =>
            {
                push(
                    format!("{project}'s app_config.xml"),
                    format!("`[{project}] Found app_config.xml`"),
                );
            }
            Message::LogFlags { flags } if no_cc_config => {
                if let Some(flag) = flags.iter().find(|f| !DEFAULT_FLAGS.contains(&f.as_str())) {
                    push(
                        "cc_config.xml".into(),
                        format!("the log flag {flag} is on, which only cc_config.xml sets"),
                    );
                }
            }
            Message::CoprocSpecified { .. } if no_cc_config => push(
                "cc_config.xml".into(),
                "`Coprocessor specified in cc_config.xml`".into(),
            ),
            Message::StoreAtLeast { days } => {
                min_days.get_or_insert(*days);
            }
            Message::StoreUpToAdditional { days } => {
                additional_days.get_or_insert(*days);
            }
            _ => {}
        }
    }
    let prefs = &state.prefs;
    let printed_days = [
        (min_days, prefs.work_buf_min_days, "Store at least"),
        (
            additional_days,
            prefs.work_buf_additional_days,
            "Store up to an additional",
        ),
    ];
    for (printed, read, what) in printed_days {
        if let Some(days) = printed.filter(|d| (d - read).abs() > HALF_CENT) {
            push(
                PREFS.into(),
                format!(
                    "`{what} {days:.2} days of work`, where the preferences given say {read:.2}"
                ),
            );
        }
    }
    if let Some(found) = buffer_mismatch(&trace.events, prefs, PREFS) {
        push(found.file, found.evidence);
    }
    out
}

/// The preferences file (`file`) a run's printed buffer proves was not
/// the one given: emulators that do not restate the preferences print the
/// buffer in every work-fetch state block (`target work buffer: MIN + ADD
/// sec`); the first one is held against `prefs`.
pub fn buffer_mismatch(events: &[LogEvent], prefs: &Prefs, file: &str) -> Option<MissingInput> {
    let (min_secs, additional_secs) = events.iter().find_map(|e| match e.message {
        Message::TargetWorkBuffer {
            min_secs,
            additional_secs,
        } => Some((min_secs, additional_secs)),
        _ => None,
    })?;
    let read = (
        prefs.work_buf_min_days * 86400.0,
        prefs.work_buf_additional_days * 86400.0,
    );
    // The client floors the minimum at 180 s (work_buf_min, 7.x on).
    let min_fits = (min_secs - read.0).abs() <= HALF_CENT
        || (read.0 < MIN_BUF_FLOOR && (min_secs - MIN_BUF_FLOOR).abs() <= HALF_CENT);
    (!min_fits || (additional_secs - read.1).abs() > HALF_CENT).then(|| MissingInput {
        file: file.to_string(),
        evidence: format!(
            "`target work buffer: {min_secs:.2} + {additional_secs:.2} sec`, where the \
             preferences given make {:.2} + {:.2}",
            read.0, read.1
        ),
    })
}

/// The least minimum buffer the client uses, seconds.
const MIN_BUF_FLOOR: f64 = 180.0;

/// The file a preferences mismatch names.
const PREFS: &str =
    "the global preferences the client used (global_prefs.xml or global_prefs_override.xml)";

/// The start-up block: the lines before the first scheduling decision.
fn startup(events: &[LogEvent]) -> impl Iterator<Item = &LogEvent> {
    events.iter().take_while(|e| {
        !matches!(
            e.message,
            Message::MakeRunListStart | Message::ScheduleCpusStart | Message::WorkFetchStateStart
        )
    })
}

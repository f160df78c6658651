//! Parsers for every input a BOINC host records, producing a [`Trace`].
//!
//! Architecture Invariant: `parse` knows nothing of `policy`, `replay`,
//! `divergence` or `report`. nom is used for the event log, quick-xml for XML.
//!
//! Parsing never stops at the first problem and never panics: problems are
//! collected as [`ParseError`]s (errors and warnings), and log lines that match
//! no known format are kept as `Message::Unrecognized` and counted.
//!
//! Entry points: [`parse_paths`] streams events to a callback (bounded memory,
//! for logs larger than RAM); [`load_trace`] collects everything into a
//! [`Trace`].

pub mod app_config;
pub mod cc_config;
pub mod client_state;
pub mod discover;
pub mod emulator_inputs;
pub mod emulator_timeline;
pub mod error;
pub mod event_log;
pub mod input;
pub mod job_log;
pub mod log_messages;
pub mod prefs;
pub mod sched_rpc;
pub mod state_files;
pub(crate) mod text;
pub mod xml;

pub use error::{ParseError, ParseErrorKind, Parsed, Severity};
pub use event_log::{DateOrder, LogOptions};

use crate::source::SourcePath;
use crate::trace::{FileKind, LogEvent, Trace, TraceMeta};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::PathBuf;

/// The tag name used for counting untagged lines.
pub const NO_TAG: &str = "(none)";

/// What parsing one input file found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileSummary {
    /// The path as shown in messages.
    pub path: SourcePath,
    /// What the file is.
    pub kind: FileKind,
    /// Lines read (logs; 0 for XML inputs).
    pub lines: u64,
    /// Log messages that matched a known format.
    pub typed: u64,
    /// Log messages that matched none.
    pub unrecognized: u64,
    /// Unrecognized messages by opening tag ([`NO_TAG`] for untagged ones).
    pub unrecognized_by_tag: BTreeMap<String, u64>,
}

/// The result of parsing a set of inputs.
#[derive(Clone, Debug, Default)]
pub struct ParseOutcome {
    /// The trace (with `events` empty unless they were kept).
    pub trace: Trace,
    /// One summary per input file, in reading order.
    pub files: Vec<FileSummary>,
    /// Problems that make the trace incomplete.
    pub errors: Vec<ParseError>,
    /// Problems that do not.
    pub warnings: Vec<ParseError>,
}

/// Parses every input under `paths`, streaming each log event to `on_event`
/// as it is read; memory does not grow with the size of the logs. The
/// returned trace holds the state files, RPCs and metadata, not the events.
pub fn parse_paths(
    paths: &[PathBuf],
    options: &LogOptions,
    on_event: &mut dyn FnMut(&LogEvent),
) -> ParseOutcome {
    parse_selected(paths, options, Select::All, &mut |event| on_event(&event))
}

/// Which inputs [`parse_selected`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Select {
    /// Every input.
    All,
    /// Only the state, configuration and RPC files (no event log): what a
    /// streaming reader needs before the first event.
    StateOnly,
    /// Only the event logs (discovery problems are not repeated).
    LogsOnly,
}

/// [`parse_paths`] over the inputs `select` names, handing each event over
/// (no copy): a streaming audit reads the state files first, then streams
/// the logs.
pub fn parse_selected(
    paths: &[PathBuf],
    options: &LogOptions,
    select: Select,
    on_event: &mut dyn FnMut(LogEvent),
) -> ParseOutcome {
    let (inputs, discover_errors) = discover::discover(paths);
    parse_discovered(&inputs, discover_errors, options, select, on_event)
}

/// [`parse_selected`] over inputs already discovered
/// ([`discover::discover`]: its errors given with them), for a reader that
/// passes over the same inputs more than once.
pub fn parse_discovered(
    inputs: &[discover::Input],
    discover_errors: Vec<ParseError>,
    options: &LogOptions,
    select: Select,
    on_event: &mut dyn FnMut(LogEvent),
) -> ParseOutcome {
    let mut outcome = ParseOutcome {
        errors: if select == Select::LogsOnly {
            Vec::new()
        } else {
            discover_errors
        },
        ..ParseOutcome::default()
    };
    for input in inputs {
        let wanted = match select {
            Select::All => true,
            Select::StateOnly => !is_log_kind(input.kind),
            Select::LogsOnly => is_log_kind(input.kind),
        };
        if !wanted {
            continue;
        }
        let mut summary = FileSummary {
            path: input.display,
            kind: input.kind,
            lines: 0,
            typed: 0,
            unrecognized: 0,
            unrecognized_by_tag: BTreeMap::new(),
        };
        let parsed = if is_log_kind(input.kind) {
            parse_log_file(
                input,
                options,
                &mut summary,
                &mut outcome.trace.meta,
                on_event,
            )
        } else {
            parse_other_file(input, &mut outcome.trace)
        };
        outcome.errors.extend(parsed.errors);
        outcome.warnings.extend(parsed.warnings);
        outcome.files.push(summary);
    }
    let chosen = state_files::choose_client_state(&mut outcome.trace);
    outcome.warnings.extend(chosen);
    if outcome.trace.meta.client_version.is_none() {
        // No `Starting BOINC client version` line: the state file still says
        // which client wrote it.
        outcome.trace.meta.client_version = outcome
            .trace
            .state
            .client_states
            .iter()
            .find_map(|state| state.core_client_version);
    }
    outcome
}

/// Parses every input under `paths` into one [`Trace`], events included.
pub fn load_trace(paths: &[PathBuf], options: &LogOptions) -> Parsed<Trace> {
    load_trace_observed(paths, options, &mut |_| {})
}

/// [`load_trace`], calling `observe` with each event as it is parsed (for
/// progress reports).
pub fn load_trace_observed(
    paths: &[PathBuf],
    options: &LogOptions,
    observe: &mut dyn FnMut(&LogEvent),
) -> Parsed<Trace> {
    let mut events = Vec::with_capacity(expected_events(paths));
    let outcome = parse_selected(paths, options, Select::All, &mut |event| {
        observe(&event);
        events.push(event);
    });
    let mut trace = outcome.trace;
    trace.events = events;
    Parsed {
        value: trace,
        errors: outcome.errors,
        warnings: outcome.warnings,
    }
}

/// A generous guess of how many events the logs under `paths` hold, from
/// their sizes (emulator and client log lines average 60–80 bytes): reserving
/// it up front saves the copies and fresh-page faults of a vector doubling
/// its way up to 100 000 events. Compressed and standard input count 0.
fn expected_events(paths: &[PathBuf]) -> usize {
    /// Bytes per line, at the short end of real logs.
    const BYTES_PER_EVENT: u64 = 56;
    let (inputs, _) = discover::discover(paths);
    let bytes: u64 = inputs
        .iter()
        .filter(|input| is_log_kind(input.kind))
        .filter(|input| input.path.extension().is_none_or(|ext| ext != "gz"))
        .filter_map(|input| std::fs::metadata(&input.path).ok())
        .map(|meta| meta.len())
        .sum();
    usize::try_from(bytes / BYTES_PER_EVENT).unwrap_or(0)
}

/// True for the renderings of the event log.
pub fn is_log_kind(kind: FileKind) -> bool {
    matches!(
        kind,
        FileKind::EventLog
            | FileKind::EmulatorLog
            | FileKind::BoinccmdMessages
            | FileKind::ManagerCopy
            | FileKind::GuiRpcMessages
    )
}

fn parse_log_file(
    input: &discover::Input,
    options: &LogOptions,
    summary: &mut FileSummary,
    meta: &mut TraceMeta,
    on_event: &mut dyn FnMut(LogEvent),
) -> Parsed<()> {
    let mut reader = match input::open_input(&input.path) {
        Ok(reader) => reader,
        Err(err) => {
            return Parsed {
                value: (),
                errors: vec![err],
                warnings: Vec::new(),
            }
        }
    };
    // Standard input could not be peeked during discovery: decide its
    // rendering now from what the reader has buffered.
    if input.path.as_os_str() == "-" {
        if let Some(kind) = reader.fill_buf().ok().and_then(event_log::detect_log_kind) {
            summary.kind = kind;
        }
    }
    let (mut typed, mut unrecognized) = (0u64, 0u64);
    let mut by_tag: BTreeMap<String, u64> = BTreeMap::new();
    let parsed = event_log::read_event_log(
        &input.display,
        summary.kind,
        &mut reader,
        options,
        &mut |event| {
            if event.is_unrecognized() {
                unrecognized += 1;
                let tag = event.tag.as_deref().unwrap_or(NO_TAG);
                match by_tag.get_mut(tag) {
                    Some(count) => *count += 1,
                    None => {
                        by_tag.insert(tag.to_string(), 1);
                    }
                }
            } else {
                typed += 1;
            }
            on_event(event);
        },
    );
    summary.lines = parsed.value.lines;
    summary.typed = typed;
    summary.unrecognized = unrecognized;
    summary.unrecognized_by_tag = by_tag;
    merge_meta(meta, &parsed.value.meta);
    Parsed {
        value: (),
        errors: parsed.errors,
        warnings: parsed.warnings,
    }
}

fn parse_other_file(input: &discover::Input, trace: &mut Trace) -> Parsed<()> {
    match input::read_input(&input.path) {
        Ok(bytes) => state_files::parse_state_file(input.kind, &input.display, &bytes, trace),
        Err(err) => Parsed {
            value: (),
            errors: vec![err],
            warnings: Vec::new(),
        },
    }
}

/// Keeps the first value seen for each fact.
fn merge_meta(into: &mut TraceMeta, from: &TraceMeta) {
    if into.client_version.is_none() {
        into.client_version = from.client_version;
    }
    if into.utc_offset_hours.is_none() {
        into.utc_offset_hours = from.utc_offset_hours;
    }
    if into.time_base == crate::trace::TimeBase::Unknown {
        into.time_base = from.time_base;
    }
}

//! Event logs in all their renderings, line by line.
//!
//! STUB: filled in by the log-frame work. The signatures below are the
//! contract the rest of the crate uses.

use crate::parse::error::{ParseError, Parsed};
use crate::trace::{FileKind, LogEvent, TraceMeta};
use std::io::BufRead;
use std::sync::Arc;

/// Day/month order for numeric locale dates of Manager copies (`4/8/2022`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DateOrder {
    /// Decide from the file: a first field above 12 means day first.
    #[default]
    Auto,
    /// `DD/MM/YYYY`.
    DayFirst,
    /// `MM/DD/YYYY`.
    MonthFirst,
}

/// Options for reading event logs.
#[derive(Clone, Debug, Default)]
pub struct LogOptions {
    /// Day/month order of numeric dates in Manager copies.
    pub date_order: DateOrder,
}

/// What reading one log file found besides its events.
#[derive(Clone, Debug, Default)]
pub struct LogFileSummary {
    /// Lines read (physical lines, including blank ones).
    pub lines: u64,
    /// Metadata learnt from the log (client version, UTC offset, time base).
    pub meta: TraceMeta,
}

/// Recognises an event-log rendering from the first bytes of a file
/// (already decompressed); `None` when it is not an event log.
pub fn detect_log_kind(head: &[u8]) -> Option<FileKind> {
    let _ = head;
    None
}

/// Streams the event log in `reader` (of `kind`, as detected) to `on_event`,
/// one [`LogEvent`] per message, in file order. Memory stays bounded whatever
/// the file's size. Problems are collected, never fatal.
pub fn read_event_log(
    path: &Arc<str>,
    kind: FileKind,
    reader: &mut dyn BufRead,
    options: &LogOptions,
    on_event: &mut dyn FnMut(LogEvent),
) -> Parsed<LogFileSummary> {
    let _ = (path, kind, reader, options, on_event);
    let errors: Vec<ParseError> = Vec::new();
    Parsed {
        value: LogFileSummary::default(),
        errors,
        warnings: Vec::new(),
    }
}

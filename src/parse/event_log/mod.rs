//! The client's event log in all its renderings (spec/formats-log.md §1, §7.1),
//! read line by line and streamed out as [`LogEvent`]s: time, project, tag and
//! typed message.
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//! This module owns the *frame* of each line (time stamp and project); the
//! body is handed to [`classify`] untouched. Start-up facts (client version,
//! UTC offset) are read from the raw body text with `starts_with`, not from
//! the classifier.
//!
//! Renderings ([`FileKind`] as detected from content by [`detect_log_kind`]):
//! - `EventLog`: stdoutdae.txt / stdoutdae.old in both date styles
//!   (`YYYY-MM-DD HH:MM:SS` up to 5.10.22, `DD-Mon-YYYY HH:MM:SS` after),
//!   console captures, and journald/syslog captures (prefix stripped);
//! - `EmulatorLog`: the emulator's log.txt (`HH:MM:SS`, `N day(s) HH:MM:SS`,
//!   simulated) and the 6.10 emulator's sim_log.txt (`DD-Mon-YYYY` stamps of
//!   the simulated clock, kept as `EventTime::Local`, time base Simulated);
//! - `BoinccmdMessages`: `boinccmd --get_messages`;
//! - `ManagerCopy`: `TIME | PROJECT | BODY` and the 6.x tab-separated form,
//!   with locale dates (see [`manager`] for the day/month rule);
//! - `GuiRpcMessages`: the `<msgs>` XML reply (see [`gui_rpc`]).
//!
//! Every text line is tried in the file's layout first (in fact in the layout
//! of the previous framed line), then in the others, so mixed files work.
//!
//! What is an error, a warning, or simply an Unrecognized line:
//! - **Error** (the trace is incomplete): a line whose frame matched in shape
//!   but not in value: an impossible date or time (`31-Feb-2020`, `25:61:00`,
//!   `13/13/2020`), `[` with no closing `]`, a stamp not followed by a space.
//!   The message is `path:line:col: expected <what>, found "<text>"`, the
//!   column pointing at the start of the faulty production. The line is still
//!   emitted as an event with `EventTime::None`, no project and the whole line
//!   as body. Also: I/O errors, malformed or truncated XML, undefined XML
//!   entities.
//! - **Warning** (the trace is complete but altered): bytes that are not UTF-8
//!   (one per line, decoded lossily), a line longer than [`MAX_LINE_BYTES`]
//!   (cut there; reading goes on without buffering the rest), a Manager copy
//!   whose day/month order had to be switched mid-file.
//! - **Neither**: a line without any frame (a continuation of a multi-line
//!   body, 6.x's bare `Initialization completed`, other process output) is an
//!   event with `EventTime::None`, no project and the whole line as body; a
//!   body the classifier does not know is `Message::Unrecognized`. Both are
//!   counted by the caller, never reported as problems. Blank lines are
//!   skipped (counted in [`LogFileSummary::lines`] only).
//!
//! Empty and binary files never get here: discovery rejects them.

pub mod blocks;
pub mod frame;
pub mod gui_rpc;
pub mod lines;
pub mod manager;
pub mod wiki;

use crate::parse::error::{ParseError, ParseErrorKind, Parsed};
use crate::parse::log_messages::{classify, recover_mangled};
use crate::source::{Location, SourcePath};
use crate::trace::{ClientVersion, EventTime, FileKind, LogEvent, Message, TimeBase, TraceMeta};
use compact_str::CompactString;
use frame::{DateCache, Frame, FrameError};
pub use lines::MAX_LINE_BYTES;
use lines::{decode, decode_line, LineReader};
use manager::ManagerDates;
use std::io::{BufRead, Read};

/// Day/month order for numeric locale dates of Manager copies (`4/8/2022`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DateOrder {
    /// Decide from the file: a first field above 12 means day first, a second
    /// field above 12 month first; undecided files read 12-hour (AM/PM) dates
    /// month first and 24-hour dates day first (details in [`manager`]).
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
    /// Threads that parse an emulator log, block by block (the events are
    /// handed out in file order all the same); 0 or 1 reads it on the
    /// caller's thread. Other renderings are always read on it.
    pub reading_threads: usize,
}

/// What reading one log file found besides its events.
#[derive(Clone, Debug, Default)]
pub struct LogFileSummary {
    /// Lines read (physical lines, including blank ones).
    pub lines: u64,
    /// Metadata learnt from the log (client version, UTC offset, time base).
    pub meta: TraceMeta,
}

/// How many non-blank lines of a file's head [`detect_log_kind`] looks at.
const DETECT_LINES: usize = 32;

/// Recognises an event-log rendering from the first bytes of a file
/// (already decompressed); `None` when it is not an event log (other XML,
/// binary data, job logs, other text). Decided by content, never by name: the
/// first of the first non-blank lines whose frame matches decides.
pub fn detect_log_kind(head: &[u8]) -> Option<FileKind> {
    if head.contains(&0) {
        return None;
    }
    if wiki::is_wiki_mangled(head) {
        let restored = wiki::restore(&String::from_utf8_lossy(head));
        return detect_log_kind(restored.as_bytes());
    }
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start_matches('\u{feff}');
    if text.trim_start().starts_with('<') {
        return gui_rpc::is_msgs_document(text).then_some(FileKind::GuiRpcMessages);
    }
    let mut reader = TextLayouts::new(FileKind::EventLog, DateOrder::Auto);
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .take(DETECT_LINES)
        .find_map(|line| reader.detect_line(line))
}

/// Whether a text head [`detect_log_kind`] takes for a log is mostly log
/// lines: at least a quarter of its first non-blank lines are framed as
/// log lines, and at least two of them (or every one). A file found inside
/// a folder must pass this too: a README or a note quoting a log line or
/// two is prose, not a log. A file the user names is read as a log on one
/// line (a forum paste may carry a page of prose).
pub fn mostly_log_lines(head: &[u8]) -> bool {
    if wiki::is_wiki_mangled(head) {
        return mostly_log_lines(wiki::restore(&String::from_utf8_lossy(head)).as_bytes());
    }
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start_matches('\u{feff}');
    if text.trim_start().starts_with('<') {
        return true;
    }
    let mut reader = TextLayouts::new(FileKind::EventLog, DateOrder::Auto);
    let (mut examined, mut framed) = (0usize, 0usize);
    for line in text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .take(DETECT_LINES)
    {
        examined += 1;
        framed += usize::from(reader.detect_line(line).is_some());
    }
    framed * 4 >= examined && (framed >= 2 || framed == examined)
}

/// The layouts of text renderings, in fallback order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    Stdoutdae,
    Emulator,
    Boinccmd,
    Journald,
    Manager,
}

impl From<frame::FastStamp> for Layout {
    fn from(stamp: frame::FastStamp) -> Self {
        match stamp {
            frame::FastStamp::DayMonthYear => Layout::Stdoutdae,
            frame::FastStamp::Emulator => Layout::Emulator,
        }
    }
}

const LAYOUTS: [Layout; 5] = [
    Layout::Stdoutdae,
    Layout::Emulator,
    Layout::Boinccmd,
    Layout::Journald,
    Layout::Manager,
];

/// Per-file state for framing text lines.
struct TextLayouts {
    last: Layout,
    dates: DateCache,
    manager: ManagerDates,
}

impl TextLayouts {
    fn new(kind: FileKind, date_order: DateOrder) -> Self {
        let last = match kind {
            FileKind::EmulatorLog => Layout::Emulator,
            FileKind::BoinccmdMessages => Layout::Boinccmd,
            FileKind::ManagerCopy => Layout::Manager,
            _ => Layout::Stdoutdae,
        };
        TextLayouts {
            last,
            dates: DateCache::default(),
            manager: ManagerDates::new(date_order),
        }
    }

    fn try_layout<'a>(&mut self, layout: Layout, line: &'a str) -> frame::PResult<'a, Frame<'a>> {
        match layout {
            Layout::Stdoutdae => frame::stdoutdae_line(line, &mut self.dates),
            Layout::Emulator => frame::emulator_line(line),
            Layout::Boinccmd => frame::boinccmd_line(line, &mut self.dates),
            Layout::Journald => frame::journald_line(line, &mut self.dates),
            Layout::Manager => manager::manager_line(line, &mut self.manager, &mut self.dates),
        }
    }

    /// The frame of `line` in the first layout that matches (the previous
    /// line's first), `Ok(None)` when none does, `Err` when one matched in
    /// shape but not in value.
    fn frame<'a>(&mut self, line: &'a str) -> Result<Option<(Layout, Frame<'a>)>, FrameError<'a>> {
        if let Some((stamp, frame)) = frame::fast_frame(line, &mut self.dates) {
            self.last = Layout::from(stamp);
            return Ok(Some((self.last, frame)));
        }
        let first = self.last;
        for layout in std::iter::once(first).chain(LAYOUTS.into_iter().filter(|l| *l != first)) {
            match self.try_layout(layout, line) {
                Ok((_, frame)) => {
                    self.last = layout;
                    return Ok(Some((layout, frame)));
                }
                Err(nom::Err::Failure(err)) => return Err(err),
                Err(_) => {}
            }
        }
        // Forum and e-mail quotes (`> `) around any layout.
        let unquoted = manager::strip_quote(line);
        if unquoted.len() != line.len() {
            return self.frame(unquoted);
        }
        Ok(None)
    }

    /// The kind a head line proves, if it has a frame (an impossible date in a
    /// matching frame still proves the layout).
    fn detect_line(&mut self, line: &str) -> Option<FileKind> {
        let layout = match self.frame(line) {
            Ok(Some((Layout::Stdoutdae, frame))) if frame.body == "SIMULATION START" => {
                return Some(FileKind::EmulatorLog)
            }
            Ok(Some((layout, _))) => layout,
            Ok(None) => return None,
            Err(_) => self.last,
        };
        Some(match layout {
            Layout::Stdoutdae | Layout::Journald => FileKind::EventLog,
            Layout::Emulator => FileKind::EmulatorLog,
            Layout::Boinccmd => FileKind::BoinccmdMessages,
            Layout::Manager => FileKind::ManagerCopy,
        })
    }
}

/// Streams the event log in `reader` (of `kind`, as detected) to `on_event`,
/// one [`LogEvent`] per message, in file order. Memory stays bounded whatever
/// the file's size (text lines are cut at [`MAX_LINE_BYTES`]; a GUI RPC reply
/// is read whole, up to [`gui_rpc::MAX_REPLY_BYTES`]). Problems are collected,
/// never fatal; see the module docs for what is an error or a warning.
pub fn read_event_log(
    path: &SourcePath,
    kind: FileKind,
    reader: &mut dyn BufRead,
    options: &LogOptions,
    on_event: &mut dyn FnMut(LogEvent),
) -> Parsed<LogFileSummary> {
    let mut parsed = Parsed::ok(LogFileSummary::default());
    if kind == FileKind::GuiRpcMessages {
        read_gui_rpc(path, reader, &mut parsed, on_event);
        return parsed;
    }
    if reader.fill_buf().is_ok_and(wiki::is_wiki_mangled) {
        // A copy through a wiki (a pasted excerpt, read whole): its lines
        // are restored first, and numbered as restored.
        let mut text = Vec::new();
        if let Err(err) = reader.read_to_end(&mut text) {
            parsed.push(ParseError::error(
                Location::file(*path),
                ParseErrorKind::Io {
                    message: err.to_string().to_lowercase(),
                },
            ));
            return parsed;
        }
        let restored = wiki::restore(&String::from_utf8_lossy(&text));
        return read_event_log(
            path,
            kind,
            &mut std::io::Cursor::new(restored.as_bytes()),
            options,
            on_event,
        );
    }
    if options.reading_threads > 1 && kind == FileKind::EmulatorLog {
        return blocks::read_in_blocks(path, kind, reader, options, blocks::BLOCK_BYTES, on_event);
    }
    let (mut parsed, recovered) = read_lines(path, kind, reader, options, 0, on_event);
    recovery_warning(&mut parsed, path, recovered);
    parsed
}

/// What [`read_lines`] read: its lines' problems, summary and the lines
/// read through a wiki's link markup.
type LinesRead = (Parsed<LogFileSummary>, u32);

/// The text lines of `reader`, numbered from `lines_before + 1`, streamed
/// to `on_event` (the body of [`read_event_log`] once a wiki copy and GUI
/// RPC replies are set aside).
fn read_lines(
    path: &SourcePath,
    kind: FileKind,
    reader: &mut dyn BufRead,
    options: &LogOptions,
    lines_before: u32,
    on_event: &mut dyn FnMut(LogEvent),
) -> LinesRead {
    let mut parsed = Parsed::ok(LogFileSummary::default());
    let mut layouts = TextLayouts::new(kind, options.date_order);
    if kind == FileKind::ManagerCopy && options.date_order == DateOrder::Auto {
        if let Ok(head) = reader.fill_buf() {
            layouts
                .manager
                .learn_from_head(&String::from_utf8_lossy(head));
        }
    }
    let mut meta = MetaScanner::new(kind);
    let mut lines = LineReader::new(reader, MAX_LINE_BYTES);
    let mut line_no: u32 = lines_before;
    let mut recovery = Recovery::default();
    let read = lines.for_each_line(&mut |raw| {
        line_no = line_no.saturating_add(1);
        let decoded = decode_line(&raw);
        if let Some(length) = raw.cut_from {
            parsed.push(ParseError::warning(
                Location::new(*path, line_no, column_after(&decoded.text)),
                ParseErrorKind::LineTooLong {
                    length,
                    limit: MAX_LINE_BYTES,
                },
            ));
        }
        if let Some((count, column)) = decoded.invalid {
            parsed.push(ParseError::warning(
                Location::new(*path, line_no, column),
                ParseErrorKind::InvalidUtf8 { count },
            ));
        }
        let mut line: &str = &decoded.text;
        if line_no == 1 {
            line = line.trim_start_matches('\u{feff}');
        }
        if is_blank(line) {
            return;
        }
        // The stamp shapes of stdoutdae.txt and emulator logs are tried
        // first: they are nearly every line of a large log.
        let frame = match frame::fast_frame(line, &mut layouts.dates) {
            Some((stamp, frame)) => {
                layouts.last = Layout::from(stamp);
                frame
            }
            None => slow_frame(&mut layouts, path, line_no, line, &mut parsed),
        };
        if let Some(order) = layouts.manager.take_switch() {
            parsed.push(order_switch_warning(path, line_no, order));
        }
        meta.scan(&frame.time, frame.body);
        on_event(event(path, line_no, 1, frame, &mut recovery));
    });
    if let Err(err) = read {
        parsed.push(ParseError::error(
            Location::new(*path, line_no.saturating_add(1), 0),
            ParseErrorKind::Io {
                message: err.to_string().to_lowercase(),
            },
        ));
    }
    parsed.value.lines = u64::from(line_no - lines_before);
    parsed.value.meta = meta.meta;
    (parsed, recovery.count)
}

/// The one warning for the lines read through a wiki's link markup, at
/// the last line.
fn recovery_warning(parsed: &mut Parsed<LogFileSummary>, path: &SourcePath, count: u32) {
    if count > 0 {
        let last = u32::try_from(parsed.value.lines).unwrap_or(u32::MAX);
        parsed.push(ParseError::warning(
            Location::new(*path, last, 1),
            ParseErrorKind::Invalid {
                message: format!(
                    "{count} line(s) read through a wiki's link markup (`[tag](tag])` or a \
                     bare `[` in place of the tag, `[b](a)` for `[a b]`): each was recognised \
                     by trying the known tags; check them with `boinc-audit parse --format \
                     ndjson`"
                ),
            },
        ));
    }
}

/// The frame of a line in any layout (the fast shapes having failed); a
/// line no layout frames is all body, a frame error is reported.
#[cold]
fn slow_frame<'a>(
    layouts: &mut TextLayouts,
    path: &SourcePath,
    line_no: u32,
    line: &'a str,
    parsed: &mut Parsed<LogFileSummary>,
) -> Frame<'a> {
    let bare = Frame {
        time: EventTime::None,
        project: None,
        body: line,
        priority: None,
    };
    match layouts.frame(line) {
        Ok(Some((_, frame))) => frame,
        Ok(None) => bare,
        Err(err) => {
            parsed.push(frame_error(path, line_no, line, &err));
            bare
        }
    }
}

/// Whether `line` is only white space (decided by its first byte, nearly
/// always).
fn is_blank(line: &str) -> bool {
    match line.as_bytes().first() {
        None => true,
        Some(byte) if byte.is_ascii_graphic() => false,
        Some(_) => line.trim().is_empty(),
    }
}

/// Column just after `text` (1-based, in characters).
fn column_after(text: &str) -> u32 {
    u32::try_from(text.chars().count() + 1).unwrap_or(u32::MAX)
}

/// A frame error as a [`ParseError`] at the start of the failed production.
fn frame_error(path: &SourcePath, line_no: u32, line: &str, err: &FrameError<'_>) -> ParseError {
    let offset = (err.at.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
    let prefix = line.get(..offset.min(line.len())).unwrap_or("");
    ParseError::expected(
        Location::new(*path, line_no, column_after(prefix)),
        err.expected.unwrap_or("a log line"),
        err.found(),
    )
}

fn order_switch_warning(path: &SourcePath, line_no: u32, order: DateOrder) -> ParseError {
    let (now, before) = match order {
        DateOrder::MonthFirst => ("month-first", "day-first"),
        _ => ("day-first", "month-first"),
    };
    ParseError::warning(
        Location::new(*path, line_no, 1),
        ParseErrorKind::Invalid {
            message: format!(
                "dates are {now} from this line on; earlier ambiguous dates were read \
                 {before} (set the date order to be sure)"
            ),
        },
    )
}

/// Lines recovered from a wiki's link markup in one file, and the tag of
/// the last tagged line (the first guess for a line whose tag was lost).
#[derive(Default)]
struct Recovery {
    count: u32,
    last_tag: Option<CompactString>,
}

/// Builds the event of one message: the body goes through [`classify`], whose
/// `[error] ` / `Message from server: ` flags are kept on the event.
#[inline(always)]
fn event(
    path: &SourcePath,
    line: u32,
    column: u32,
    frame: Frame<'_>,
    recovery: &mut Recovery,
) -> LogEvent {
    let Frame {
        time,
        project,
        body,
        priority,
    } = frame;
    let mut classified = classify(body);
    if matches!(classified.message, Message::Unrecognized { .. }) {
        if let Some(recovered) = recover_mangled(body, recovery.last_tag.as_deref()) {
            classified = recovered;
            recovery.count += 1;
        }
    }
    if classified.tag.is_some() {
        // A copy of an inline name costs less than comparing it first.
        recovery.last_tag.clone_from(&classified.tag);
    }
    LogEvent {
        location: Location::new(*path, line, column),
        time,
        project: project.map(CompactString::from),
        tag: classified.tag,
        message: classified.message,
        internal_error: classified.internal_error,
        from_server: classified.from_server,
        priority,
    }
}

fn read_gui_rpc(
    path: &SourcePath,
    reader: &mut dyn BufRead,
    parsed: &mut Parsed<LogFileSummary>,
    on_event: &mut dyn FnMut(LogEvent),
) {
    let mut bytes = Vec::new();
    let limit = gui_rpc::MAX_REPLY_BYTES as u64;
    if let Err(err) = reader.take(limit + 1).read_to_end(&mut bytes) {
        parsed.push(ParseError::error(
            Location::file(*path),
            ParseErrorKind::Io {
                message: err.to_string().to_lowercase(),
            },
        ));
        return;
    }
    if bytes.len() as u64 > limit {
        bytes.truncate(gui_rpc::MAX_REPLY_BYTES);
        parsed.push(ParseError::warning(
            Location::file(*path),
            ParseErrorKind::Invalid {
                message: format!(
                    "GUI RPC reply larger than {} bytes; the rest is ignored",
                    gui_rpc::MAX_REPLY_BYTES
                ),
            },
        ));
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => {
            for (idx, line) in bytes.split(|byte| *byte == b'\n').enumerate() {
                if let Some((count, column)) = decode(line).invalid {
                    parsed.push(ParseError::warning(
                        Location::new(*path, idx as u32 + 1, column),
                        ParseErrorKind::InvalidUtf8 { count },
                    ));
                }
            }
            String::from_utf8_lossy(&bytes)
        }
    };
    parsed.value.lines = text.lines().count() as u64;
    let mut meta = MetaScanner::new(FileKind::GuiRpcMessages);
    let mut problems = Vec::new();
    gui_rpc::read_messages(path, &text, &mut problems, &mut |message| {
        meta.scan(&message.time, &message.body);
        let frame = Frame {
            time: message.time,
            project: message.project.as_deref(),
            body: &message.body,
            priority: message.priority,
        };
        on_event(event(
            path,
            message.location.line,
            message.location.column,
            frame,
            &mut Recovery::default(),
        ));
    });
    for problem in problems {
        parsed.push(problem);
    }
    parsed.value.meta = meta.meta;
}

/// Learns start-up facts from bodies and the time base from times.
struct MetaScanner {
    kind: FileKind,
    meta: TraceMeta,
}

impl MetaScanner {
    fn new(kind: FileKind) -> Self {
        MetaScanner {
            kind,
            meta: TraceMeta::default(),
        }
    }

    /// Looks at one message; the first value seen for each fact is kept.
    fn scan(&mut self, time: &EventTime, body: &str) {
        if self.meta.time_base == TimeBase::Unknown {
            self.meta.time_base = match (time, self.kind) {
                (EventTime::None, _) => TimeBase::Unknown,
                (EventTime::Simulated(_), _) | (_, FileKind::EmulatorLog) => TimeBase::Simulated,
                _ => TimeBase::WallClock,
            };
        }
        // Both lines start with a capital letter, most bodies with `[`.
        if body.as_bytes().first().is_some_and(|byte| *byte == b'[') {
            return;
        }
        let body = body.trim_start();
        if let Some(rest) = body.strip_prefix("Starting BOINC client version ") {
            if self.meta.client_version.is_none() {
                self.meta.client_version = client_version(rest);
            }
        } else if let Some(rest) = body.strip_prefix("Local time is UTC ") {
            if self.meta.utc_offset_hours.is_none() {
                self.meta.utc_offset_hours = utc_offset(rest);
            }
        }
    }
}

/// `7.16.11 for x86_64-pc-linux-gnu` → 7.16.11.
fn client_version(text: &str) -> Option<ClientVersion> {
    let version = text.split_whitespace().next()?;
    let mut numbers = version.split('.').map(|part| part.parse::<u32>().ok());
    let (major, minor, release) = (numbers.next()??, numbers.next()??, numbers.next()??);
    Some(ClientVersion {
        major,
        minor,
        release,
    })
}

/// `+8 hours`, `-4 hours`, `0 hours` → hours.
fn utc_offset(text: &str) -> Option<i32> {
    let number = text.split_whitespace().next()?;
    let number = number.strip_prefix('+').unwrap_or(number);
    number.parse::<i32>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Message;

    fn read(kind: FileKind, text: &[u8]) -> (Vec<LogEvent>, Vec<String>, LogFileSummary) {
        let path: SourcePath = SourcePath::from("log");
        let mut events = Vec::new();
        let mut cursor = std::io::Cursor::new(text.to_vec());
        let parsed = read_event_log(
            &path,
            kind,
            &mut cursor,
            &LogOptions::default(),
            &mut |event| events.push(event),
        );
        let problems = parsed
            .errors
            .iter()
            .chain(&parsed.warnings)
            .map(ToString::to_string)
            .collect();
        (events, problems, parsed.value)
    }

    fn body(event: &LogEvent) -> &str {
        match &event.message {
            Message::Unrecognized { text } => text,
            #[allow(unreachable_patterns)]
            _ => "",
        }
    }

    #[test]
    fn detects_each_rendering() {
        let detect = |text: &str| detect_log_kind(text.as_bytes());
        assert_eq!(
            detect("\n14-Apr-2021 20:57:36 [---] Starting BOINC client version 7.16.11 for x"),
            Some(FileKind::EventLog)
        );
        assert_eq!(
            detect("2007-02-06 19:23:42 [---] Starting BOINC client version 5.8.16 for x"),
            Some(FileKind::EventLog)
        );
        assert_eq!(
            detect("00:00:00 [---] log flags: file_xfer"),
            Some(FileKind::EmulatorLog)
        );
        assert_eq!(
            detect("01-Jan-1970 00:00:00 [---] SIMULATION START\n"),
            Some(FileKind::EmulatorLog)
        );
        assert_eq!(
            detect("Apr 14 20:57:36 h boinc[1389]: 14-Apr-2021 20:57:36 [---] x"),
            Some(FileKind::EventLog)
        );
        assert_eq!(
            detect("1: 17-Apr-2019 09:43:33 (low) [] Starting BOINC client"),
            Some(FileKind::BoinccmdMessages)
        );
        assert_eq!(
            detect("Fri 24 Apr 2015 10:11:09 PM EDT |  | Starting BOINC client"),
            Some(FileKind::ManagerCopy)
        );
        // A Manager in an ISO-date locale (sv_SE, en_CA, fr_CA): year-first
        // like a 5.x stdoutdae.txt stamp, but with the Manager's separators.
        assert_eq!(
            detect(
                "2024-12-20 12:40:47 |  | [work_fetch] target work buffer: 8640.00 + 43200.00 sec"
            ),
            Some(FileKind::ManagerCopy)
        );
        // The same in 6.x's tab-separated form.
        assert_eq!(
            detect(
                "2024-12-20 12:40:47\t\t[work_fetch] target work buffer: 8640.00 + 43200.00 sec"
            ),
            Some(FileKind::ManagerCopy)
        );
        assert_eq!(detect("<msgs>\n<msg>"), Some(FileKind::GuiRpcMessages));
        assert_eq!(detect("<client_state>"), None);
        assert_eq!(
            detect("1555490613 ue 7200.0 ct 7000.5 fe 7 nm A_1 et 71 es 0"),
            None
        );
        assert_eq!(detect("hello world\nnothing here"), None);
        assert_eq!(detect_log_kind(&[0x1f, 0x00, 0xff, 0x10]), None);
    }

    #[test]
    fn continuation_and_meta() {
        let text = b"14-Apr-2021 20:57:36 [---] Starting BOINC client version 7.16.11 for x86_64-pc-linux-gnu\r\n\
            14-Apr-2021 20:57:36 [---] Local time is UTC -4 hours\r\n\
            \r\n\
            14-Apr-2021 20:57:40 [SETI@home] Message from server: line one\r\n\
            line two\r\n";
        let (events, problems, summary) = read(FileKind::EventLog, text);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(summary.lines, 5);
        assert_eq!(events.len(), 4);
        assert_eq!(events[3].time, EventTime::None);
        assert_eq!(events[3].location.line, 5);
        assert_eq!(body(&events[3]), "line two");
        assert_eq!(
            summary.meta.client_version,
            Some(ClientVersion {
                major: 7,
                minor: 16,
                release: 11
            })
        );
        assert_eq!(summary.meta.utc_offset_hours, Some(-4));
        assert_eq!(summary.meta.time_base, TimeBase::WallClock);
    }

    #[test]
    fn error_and_server_prefixes_become_flags() {
        let text =
            "16-Nov-2010 13:10:20 [---] [error] Deleting file arecibo_181.png while in use\n\
            16-Nov-2010 13:09:23 [SETI@home] Message from server: Project has no tasks available\n\
            16-Nov-2010 13:09:24 [SETI@home] Scheduler request completed: got 0 new tasks\n";
        let (events, problems, _) = read(FileKind::EventLog, text.as_bytes());
        assert!(problems.is_empty(), "{problems:?}");
        let flags: Vec<(bool, bool, Option<u8>)> = events
            .iter()
            .map(|e| (e.internal_error, e.from_server, e.priority))
            .collect();
        assert_eq!(
            flags,
            vec![
                (true, false, None),
                (false, true, None),
                (false, false, None)
            ]
        );
        assert_eq!(events[1].message.kind(), "server_message");
        let json = serde_json::to_value(&events[2]).unwrap_or_default();
        for key in ["internal_error", "from_server", "priority"] {
            assert!(json.get(key).is_none(), "{key} should be skipped: {json}");
        }
        let json = serde_json::to_value(&events[0]).unwrap_or_default();
        assert_eq!(json["internal_error"], true);
    }

    #[test]
    fn priority_from_boinccmd_and_gui_rpc() {
        let text = "7: 17-Apr-2019 09:43:33 (internal error) [] [error] x\n\
            8: 17-Apr-2019 09:43:34 (low) [P] Requesting new tasks for CPU\n";
        let (events, _, _) = read(FileKind::BoinccmdMessages, text.as_bytes());
        assert_eq!(events[0].priority, Some(3));
        assert!(events[0].internal_error);
        assert_eq!(events[1].priority, Some(1));
        let xml = "<msgs>\n<msg>\n <project></project>\n <pri>2</pri>\n <body>\nMessage from server: hi\n</body>\n <time>5</time>\n</msg>\n</msgs>\n";
        let (events, problems, _) = read(FileKind::GuiRpcMessages, xml.as_bytes());
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(events[0].priority, Some(2));
        assert!(events[0].from_server);
    }

    #[test]
    fn impossible_date_is_an_error_and_kept() {
        let text = "14-Apr-2021 20:57:36 [---] a\r\n> 31-Feb-2020 10:00:00 [P] b\r\n";
        let (events, problems, _) = read(FileKind::EventLog, text.as_bytes());
        assert_eq!(
            problems,
            vec!["log:2:3: expected a valid date/time, found \"31-Feb-2020 10:00:00\"".to_string()]
        );
        assert_eq!(events[1].time, EventTime::None);
        assert_eq!(body(&events[1]), "> 31-Feb-2020 10:00:00 [P] b");
    }

    #[test]
    fn invalid_utf8_warns_once_per_line() {
        let text = b"14-Apr-2021 20:57:36 [Caf\xe9 \xe9] x\n";
        let (events, problems, _) = read(FileKind::EventLog, text);
        assert_eq!(
            problems,
            vec!["log:1:26: warning: invalid UTF-8 replaced (2 byte sequences)".to_string()]
        );
        assert_eq!(events[0].project.as_deref(), Some("Caf\u{FFFD} \u{FFFD}"));
    }

    #[test]
    fn mixed_layouts_fall_back_per_line() {
        let text = "00:00:00 [---] a\n14-Apr-2021 20:57:36 [---] b\n1 day 00:00:01 [P] c\n";
        let (events, problems, summary) = read(FileKind::EmulatorLog, text.as_bytes());
        assert!(problems.is_empty());
        assert_eq!(events[0].time, EventTime::Simulated(0));
        assert!(matches!(events[1].time, EventTime::Local(_)));
        assert_eq!(events[2].time, EventTime::Simulated(86_401));
        assert_eq!(summary.meta.time_base, TimeBase::Simulated);
    }

    /// Pieces of real frames, glued at random into near-misses.
    fn fragments() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let pieces = proptest::sample::select(vec![
            "14-Apr-2021 ",
            "31-Feb-2020 ",
            "2007-02-06 ",
            "20:57:36",
            "25:61:00",
            " [",
            "]",
            "] ",
            "---",
            "P1",
            " | ",
            "\t",
            "1 day ",
            "2 days ",
            "24:00:00",
            "12: ",
            " (low) ",
            "PM",
            " AM",
            "4/18/2022 ",
            "Fri 24 Apr 2015 ",
            "Apr 14 20:57:36 host boinc[1]: ",
            "> ",
            "é",
            "\r",
            "<msg>",
            "</msg>",
            "<body>",
            "&nbsp;",
            "&",
            "<![CDATA[",
            "\n",
            " ",
            "x",
        ]);
        proptest::collection::vec(pieces, 0..16).prop_map(|pieces| pieces.concat())
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let _ = detect_log_kind(&bytes);
            for kind in [FileKind::EventLog, FileKind::ManagerCopy, FileKind::GuiRpcMessages] {
                let _ = read(kind, &bytes);
            }
        }

        #[test]
        fn near_miss_lines_never_panic(text in fragments()) {
            let _ = detect_log_kind(text.as_bytes());
            let _ = read(FileKind::GuiRpcMessages, text.as_bytes());
            for kind in [
                FileKind::EventLog,
                FileKind::EmulatorLog,
                FileKind::BoinccmdMessages,
                FileKind::ManagerCopy,
            ] {
                // At most one event per line, whatever the line holds.
                let (events, _, summary) = read(kind, text.as_bytes());
                proptest::prop_assert!(events.len() as u64 <= summary.lines);
            }
        }
    }

    #[test]
    fn version_and_offset_text() {
        assert_eq!(
            client_version("6.10.58 for x86_64-pc-linux-gnu (DEBUG)"),
            Some(ClientVersion {
                major: 6,
                minor: 10,
                release: 58
            })
        );
        assert_eq!(client_version("7.x"), None);
        assert_eq!(utc_offset("+8 hours"), Some(8));
        assert_eq!(utc_offset("0 hours"), Some(0));
    }
}

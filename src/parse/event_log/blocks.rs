//! An emulator log parsed by several threads, block by block, and handed
//! out in file order.
//!
//! The caller's thread reads the input in blocks of whole lines and hands
//! out the events; worker threads frame and classify the blocks. A block is
//! read by itself: every line of an emulator log (`HH:MM:SS`, `N days
//! HH:MM:SS` or the 6.10 harness's dated stamps) is framed without its
//! neighbours, so the events, their line numbers and the problems found
//! are those of a reading on one thread (tests/parallel_parse.rs compares
//! the two on every bundled emulator log, cut into blocks of a few lines).
//! Which renderings go through here is [`super::read_event_log`]'s choice.
//!
//! Memory is bounded: at most [`BLOCKS_IN_FLIGHT`] blocks and their events
//! are held at once, whatever the log's length.
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.

use super::{read_lines, recovery_warning, LinesRead, LogFileSummary, LogOptions, MAX_LINE_BYTES};
use crate::parse::error::{ParseError, ParseErrorKind, Parsed};
use crate::source::{Location, SourcePath};
use crate::trace::{FileKind, LogEvent};
use std::collections::BTreeMap;
use std::io::{self, BufRead, Read as _};
use std::sync::mpsc;
use std::sync::Mutex;

/// Bytes of a block (it runs on to the end of its last line): about 4,000
/// lines of an emulator log, 0.8 MB of events.
pub const BLOCK_BYTES: usize = 128 * 1024;

/// Blocks read and not yet handed out, at most.
const BLOCKS_IN_FLIGHT: usize = 4;

/// One block to parse: its position, the lines before it and its bytes.
struct Block {
    index: usize,
    lines_before: u32,
    bytes: Vec<u8>,
}

/// The log being read: its path, rendering and options.
#[derive(Clone, Copy)]
struct Log<'a> {
    path: &'a SourcePath,
    kind: FileKind,
    options: &'a LogOptions,
}

impl Log<'_> {
    /// [`read_lines`] of this log.
    fn read_lines(
        &self,
        reader: &mut dyn BufRead,
        lines_before: u32,
        on_event: &mut dyn FnMut(LogEvent),
    ) -> LinesRead {
        read_lines(
            self.path,
            self.kind,
            reader,
            self.options,
            lines_before,
            on_event,
        )
    }
}

/// One block parsed (or the panic its parse raised, raised again on the
/// caller's thread as a reading there would have).
struct Done {
    index: usize,
    parsed: std::thread::Result<(Vec<LogEvent>, LinesRead)>,
}

/// Reads `reader` as [`super::read_event_log`] does, its blocks of about
/// `block_bytes` parsed by `options.reading_threads` threads.
pub fn read_in_blocks(
    path: &SourcePath,
    kind: FileKind,
    reader: &mut dyn BufRead,
    options: &LogOptions,
    block_bytes: usize,
    on_event: &mut dyn FnMut(LogEvent),
) -> Parsed<LogFileSummary> {
    let log = Log {
        path,
        kind,
        options,
    };
    let threads = options.reading_threads.max(1);
    let (work_tx, work_rx) = mpsc::channel::<Block>();
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    std::thread::scope(|scope| {
        let mut workers = 0;
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            let spawned = std::thread::Builder::new()
                .name("parse-block".to_string())
                .spawn_scoped(scope, move || parse_blocks(log, work_rx, &done_tx));
            workers += usize::from(spawned.is_ok());
        }
        drop(done_tx);
        if workers == 0 {
            // No thread to be had: read here, as on one core.
            drop(work_tx);
            let (mut parsed, recovered) = log.read_lines(reader, 0, on_event);
            recovery_warning(&mut parsed, path, recovered);
            return parsed;
        }
        // The sender goes with the hand-out: however it ends (a panic
        // included), the workers see no more work and stop.
        hand_out(log, reader, block_bytes, work_tx, &done_rx, on_event)
    })
}

/// A worker: parses the blocks it is given until there are none.
fn parse_blocks(log: Log<'_>, work: &Mutex<mpsc::Receiver<Block>>, done: &mpsc::Sender<Done>) {
    loop {
        let next = match work.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        let Ok(block) = next else { return };
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut events = Vec::with_capacity(block.bytes.len() / 48);
            let read = log.read_lines(
                &mut io::Cursor::new(&block.bytes[..]),
                block.lines_before,
                &mut |event| events.push(event),
            );
            (events, read)
        }));
        let sent = done.send(Done {
            index: block.index,
            parsed,
        });
        if sent.is_err() {
            return;
        }
    }
}

/// The caller's side: reads blocks, keeps at most [`BLOCKS_IN_FLIGHT`] of
/// them out, and hands out the parsed ones in order.
fn hand_out(
    log: Log<'_>,
    reader: &mut dyn BufRead,
    block_bytes: usize,
    work: mpsc::Sender<Block>,
    done: &mpsc::Receiver<Done>,
    on_event: &mut dyn FnMut(LogEvent),
) -> Parsed<LogFileSummary> {
    let mut parsed = Parsed::ok(LogFileSummary::default());
    let mut recovered = 0u32;
    let mut lines_read: u32 = 0;
    let mut sent = 0usize;
    let mut next_out = 0usize;
    let mut waiting: BTreeMap<usize, Done> = BTreeMap::new();
    let mut input_ended = false;
    let mut long_line = None;
    while !input_ended || next_out < sent {
        if !input_ended && sent - next_out < BLOCKS_IN_FLIGHT {
            match read_block(reader, block_bytes) {
                Ok(Read::Block(bytes)) => {
                    let lines = line_count(&bytes);
                    let block = Block {
                        index: sent,
                        lines_before: lines_read,
                        bytes,
                    };
                    lines_read = lines_read.saturating_add(lines);
                    if work.send(block).is_err() {
                        break;
                    }
                    sent += 1;
                }
                Ok(Read::LongLine(bytes)) => {
                    long_line = Some(bytes);
                    input_ended = true;
                }
                Ok(Read::End) => input_ended = true,
                Err(err) => {
                    parsed.push(ParseError::error(
                        Location::new(*log.path, lines_read.saturating_add(1), 0),
                        ParseErrorKind::Io {
                            message: err.to_string().to_lowercase(),
                        },
                    ));
                    input_ended = true;
                }
            }
            continue;
        }
        let Ok(block) = done.recv() else { break };
        waiting.insert(block.index, block);
        while let Some(block) = waiting.remove(&next_out) {
            let (events, read) = match block.parsed {
                Ok(parsed) => parsed,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            for event in events {
                on_event(event);
            }
            let (block_parsed, block_recovered) = read;
            merge_block(&mut parsed, block_parsed);
            recovered = recovered.saturating_add(block_recovered);
            next_out += 1;
        }
    }
    if let Some(bytes) = long_line {
        // The rest, from the line too long for a block, on this thread.
        let mut rest = io::Cursor::new(bytes).chain(reader);
        let (rest_parsed, rest_recovered) = log.read_lines(&mut rest, lines_read, on_event);
        merge_block(&mut parsed, rest_parsed);
        recovered = recovered.saturating_add(rest_recovered);
    }
    recovery_warning(&mut parsed, log.path, recovered);
    parsed
}

/// Adds a block's reading to the file's (in file order).
fn merge_block(into: &mut Parsed<LogFileSummary>, block: Parsed<LogFileSummary>) {
    into.value.lines += block.value.lines;
    crate::parse::merge_meta(&mut into.value.meta, &block.value.meta);
    into.errors.extend(block.errors);
    into.warnings.extend(block.warnings);
}

/// What [`read_block`] read.
enum Read {
    /// A block of whole lines.
    Block(Vec<u8>),
    /// Bytes whose last line runs past [`MAX_LINE_BYTES`] by more than
    /// the reader's buffer: the rest is read on one thread, which cuts
    /// such a line without holding it. (A line that ends within a buffer
    /// of the limit is read whole into its block, and cut there.)
    LongLine(Vec<u8>),
    /// The end of the input.
    End,
}

/// The next block of whole lines: at least `block_bytes` bytes (unless the
/// input ends first) and on to the end of the line they end in.
fn read_block(reader: &mut dyn BufRead, block_bytes: usize) -> io::Result<Read> {
    let mut bytes = Vec::with_capacity(block_bytes + 4096);
    // Where the last line read so far starts.
    let mut line_start = 0;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            break;
        }
        let take = if bytes.len() < block_bytes {
            available.len().min(block_bytes - bytes.len())
        } else {
            // Past the block's size: on to the end of its last line.
            memchr::memchr(b'\n', available).map_or(available.len(), |end| end + 1)
        };
        let chunk = &available[..take];
        if let Some(end) = memchr::memrchr(b'\n', chunk) {
            line_start = bytes.len() + end + 1;
        }
        bytes.extend_from_slice(chunk);
        reader.consume(take);
        if bytes.len() >= block_bytes && line_start == bytes.len() {
            break;
        }
        if bytes.len() - line_start > MAX_LINE_BYTES + 1 {
            return Ok(Read::LongLine(bytes));
        }
    }
    Ok(if bytes.is_empty() {
        Read::End
    } else {
        Read::Block(bytes)
    })
}

/// Lines in a block: its line ends, and a last line without one.
fn line_count(bytes: &[u8]) -> u32 {
    let ends = memchr::memchr_iter(b'\n', bytes).count();
    let last = usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
    u32::try_from(ends + last).unwrap_or(u32::MAX)
}

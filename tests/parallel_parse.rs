//! An emulator log parsed block by block on several threads
//! (`parse::event_log::blocks`, the audit's pre-scan) gives exactly what a
//! reading on one thread gives: the same events with the same line numbers,
//! the same line count and facts, the same errors and warnings. Checked on
//! every emulator log under traces/ (the head of each, cut into blocks as
//! small as one line and as large as the default), and on the shapes a
//! block boundary could break: CRLF, bytes that are not UTF-8, no final line
//! end, and a line too long to hold (read on from there on one thread).

use boinc_audit::parse::discover::discover;
use boinc_audit::parse::error::Parsed;
use boinc_audit::parse::event_log::blocks::{read_in_blocks, BLOCK_BYTES};
use boinc_audit::parse::event_log::{read_event_log, LogFileSummary, MAX_LINE_BYTES};
use boinc_audit::parse::input::open_input;
use boinc_audit::parse::LogOptions;
use boinc_audit::source::SourcePath;
use boinc_audit::trace::{FileKind, LogEvent};
use std::io::{BufReader, Cursor, Read};
use std::path::PathBuf;

/// What a reading gives, in a comparable form.
type Reading = (Vec<LogEvent>, u64, String, Vec<String>, Vec<String>);

fn reading(parsed: Parsed<LogFileSummary>, events: Vec<LogEvent>) -> Reading {
    (
        events,
        parsed.value.lines,
        format!("{:?}", parsed.value.meta),
        parsed.errors.iter().map(ToString::to_string).collect(),
        parsed.warnings.iter().map(ToString::to_string).collect(),
    )
}

fn on_one_thread(bytes: &[u8]) -> Reading {
    let path = SourcePath::from("log");
    let mut events = Vec::new();
    let parsed = read_event_log(
        &path,
        FileKind::EmulatorLog,
        &mut Cursor::new(bytes),
        &LogOptions::default(),
        &mut |event| events.push(event),
    );
    reading(parsed, events)
}

fn in_blocks(bytes: &[u8], block_bytes: usize) -> Reading {
    let path = SourcePath::from("log");
    let options = LogOptions {
        reading_threads: 2,
        ..LogOptions::default()
    };
    let mut events = Vec::new();
    // A reader's buffer as a file's, smaller than a long line.
    let mut reader = BufReader::with_capacity(8192, Cursor::new(bytes));
    let parsed = read_in_blocks(
        &path,
        FileKind::EmulatorLog,
        &mut reader,
        &options,
        block_bytes,
        &mut |event| events.push(event),
    );
    reading(parsed, events)
}

fn assert_same(name: &str, bytes: &[u8], block_sizes: &[usize]) {
    let expected = on_one_thread(bytes);
    assert!(!expected.0.is_empty(), "{name}: no events");
    for &block_bytes in block_sizes {
        let got = in_blocks(bytes, block_bytes);
        assert_eq!(got.1, expected.1, "{name}, blocks of {block_bytes}: lines");
        assert_eq!(got.2, expected.2, "{name}, blocks of {block_bytes}: facts");
        assert_eq!(got.3, expected.3, "{name}, blocks of {block_bytes}: errors");
        assert_eq!(
            got.4, expected.4,
            "{name}, blocks of {block_bytes}: warnings"
        );
        assert_eq!(
            got.0.len(),
            expected.0.len(),
            "{name}, blocks of {block_bytes}: events"
        );
        for (a, b) in got.0.iter().zip(&expected.0) {
            assert_eq!(a, b, "{name}, blocks of {block_bytes}");
        }
    }
}

/// Every emulator log under traces/, decompressed: (name, bytes).
fn emulator_logs() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces");
    let (inputs, _) = discover(&[root]);
    let logs: Vec<_> = inputs
        .into_iter()
        .filter(|input| input.kind == FileKind::EmulatorLog)
        .map(|input| {
            let mut bytes = Vec::new();
            open_input(&input.path)
                .unwrap_or_else(|err| panic!("{err}"))
                .read_to_end(&mut bytes)
                .unwrap_or_else(|err| panic!("{}: {err}", input.path.display()));
            (input.path.display().to_string(), bytes)
        })
        .collect();
    assert!(logs.len() >= 20, "only {} emulator logs found", logs.len());
    logs
}

/// The first `max` bytes of `bytes`, cut after a line end.
fn head(bytes: &[u8], max: usize) -> &[u8] {
    if bytes.len() <= max {
        return bytes;
    }
    let end = bytes[..max]
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(max, |end| end + 1);
    &bytes[..end]
}

#[test]
fn every_emulator_log_reads_the_same_in_blocks() {
    for (name, bytes) in emulator_logs() {
        // Blocks of one line each, of a few lines, and of the default size.
        assert_same(&name, head(&bytes, 24_000), &[1, 700]);
        assert_same(&name, head(&bytes, 400_000), &[64 * 1024, BLOCK_BYTES]);
    }
}

#[test]
fn boundary_shapes_read_the_same_in_blocks() {
    let (name, bytes) = emulator_logs().swap_remove(0);
    let text = head(&bytes, 40_000);
    // CRLF line ends.
    let crlf: Vec<u8> = text
        .iter()
        .flat_map(|&byte| {
            if byte == b'\n' {
                vec![b'\r', b'\n']
            } else {
                vec![byte]
            }
        })
        .collect();
    assert_same(&format!("{name} (CRLF)"), &crlf, &[1, 333, 4096]);
    // Bytes that are not UTF-8 in a line, and no final line end.
    let mut broken = text.to_vec();
    let middle = broken.len() / 2;
    broken.splice(middle..middle, [0xff, 0xfe]);
    broken.truncate(broken.len() - 1);
    assert_same(&format!("{name} (not UTF-8)"), &broken, &[1, 333, 4096]);
    // A line too long to hold, in the middle.
    let mut long = text[..middle].to_vec();
    long.extend(std::iter::repeat_n(b'x', 2 * MAX_LINE_BYTES + 10));
    long.extend_from_slice(&text[middle..]);
    assert_same(
        &format!("{name} (a long line)"),
        &long,
        &[1, 4096, BLOCK_BYTES],
    );
}

#[test]
fn a_panic_while_handing_out_ends_the_workers() {
    // The caller's side panicking mid-log (here its consumer) unwinds
    // through the hand-out; the workers see no more work and stop, so the
    // panic reaches the caller instead of the reading hanging.
    let (_, bytes) = emulator_logs().swap_remove(0);
    let text = head(&bytes, 200_000);
    let caught = std::panic::catch_unwind(|| {
        let path = SourcePath::from("log");
        let options = LogOptions {
            reading_threads: 2,
            ..LogOptions::default()
        };
        let mut seen = 0;
        read_in_blocks(
            &path,
            FileKind::EmulatorLog,
            &mut BufReader::with_capacity(8192, Cursor::new(text)),
            &options,
            4096,
            &mut |_| {
                seen += 1;
                assert!(seen < 100, "the consumer gives up");
            },
        )
    });
    assert!(caught.is_err());
}

//! Measures event-log reading throughput (frame parsing plus the current
//! body classifier) over the files given on the command line.
//!
//! `cargo run --release --example frame_bench -- [--pipeline] FILE...`
//!
//! With `--pipeline`, runs `parse::parse_paths` (discovery, per-file
//! summaries and tag counts included) instead of the reader alone.

use boinc_audit::parse::discover::classify_file;
use boinc_audit::parse::event_log::{read_event_log, LogOptions};
use boinc_audit::parse::input::{display_path, open_input};
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let mut paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.first().is_some_and(|p| p.as_os_str() == "--pipeline") {
        paths.remove(0);
        pipeline(&paths);
        return;
    }
    let (mut bytes, mut events, mut untimed, mut problems) = (0u64, 0u64, 0u64, 0usize);
    let started = Instant::now();
    for path in &paths {
        bytes += std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let kind = match classify_file(path) {
            Ok(kind) => kind,
            Err(err) => {
                eprintln!("{err}");
                continue;
            }
        };
        let mut reader = match open_input(path) {
            Ok(reader) => reader,
            Err(err) => {
                eprintln!("{err}");
                continue;
            }
        };
        let parsed = read_event_log(
            &display_path(path),
            kind,
            &mut reader,
            &LogOptions::default(),
            &mut |event| {
                events += 1;
                if event.time.secs().is_none() {
                    untimed += 1;
                }
            },
        );
        for problem in parsed.errors.iter().chain(&parsed.warnings).take(5) {
            eprintln!("{problem}");
        }
        problems += parsed.errors.len() + parsed.warnings.len();
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} files, {:.1} MB, {events} events ({untimed} untimed), {problems} problems, {:.3} s, {:.0} MB/s",
        paths.len(),
        bytes as f64 / 1e6,
        secs,
        bytes as f64 / 1e6 / secs
    );
}

fn pipeline(paths: &[PathBuf]) {
    let bytes: u64 = paths
        .iter()
        .map(|path| std::fs::metadata(path).map(|m| m.len()).unwrap_or(0))
        .sum();
    let started = Instant::now();
    let mut events = 0u64;
    let outcome = boinc_audit::parse::parse_paths(paths, &LogOptions::default(), &mut |_| {
        events += 1;
    });
    let secs = started.elapsed().as_secs_f64();
    println!(
        "pipeline: {} files, {:.1} MB, {events} events, {} problems, {:.3} s, {:.0} MB/s",
        outcome.files.len(),
        bytes as f64 / 1e6,
        outcome.errors.len() + outcome.warnings.len(),
        secs,
        bytes as f64 / 1e6 / secs
    );
}

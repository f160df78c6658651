//! Anchored replay over the reference emulator traces (when
//! `../shared/reference` exists) and over the trimmed copies in
//! `traces/valid/` (always). Expected counts are read from the logs.

use boinc_audit::divergence::{DecisionKind, DivergenceReport};
use boinc_audit::parse::{load_trace, LogOptions};
use boinc_audit::replay::{audit, AuditOptions};
use boinc_audit::trace::Trace;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `shared/reference/emulator` beside some ancestor of the crate: CI clones
/// the repository to X with the reference at `X/../shared/reference`; a
/// worktree sits deeper.
fn reference_root() -> Option<PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("shared/reference/emulator"))
        .find(|dir| dir.is_dir())
}

fn scenario_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(root) = reference_root() {
        if let Ok(entries) = std::fs::read_dir(root) {
            dirs.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    let valid = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/valid");
    if let Ok(entries) = std::fs::read_dir(valid) {
        dirs.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.join("inputs").is_dir()),
        );
    }
    dirs.sort();
    dirs
}

fn log_path(dir: &Path) -> PathBuf {
    let plain = dir.join("outputs/log.txt");
    if plain.exists() {
        plain
    } else {
        dir.join("outputs/log.txt.gz")
    }
}

fn load(dir: &Path, log: &Path) -> Trace {
    let parsed = load_trace(
        &[dir.join("inputs"), log.to_path_buf()],
        &LogOptions::default(),
    );
    assert!(
        parsed.errors.is_empty(),
        "{}: {:?}",
        dir.display(),
        parsed.errors
    );
    parsed.value
}

fn count_lines(log: &Path, needle: &str) -> usize {
    use std::io::Read;
    let mut text = String::new();
    let file = std::fs::File::open(log).expect("log");
    if log.extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(file)
            .read_to_string(&mut text)
            .expect("gz");
    } else {
        std::io::BufReader::new(file)
            .read_to_string(&mut text)
            .expect("read");
    }
    text.lines().filter(|l| l.contains(needle)).count()
}

fn summary(report: &DivergenceReport) -> String {
    let mut out = String::new();
    for (kind, count) in report.by_kind() {
        out.push_str(&format!(
            " {kind} {}/{}",
            count.total - count.divergent,
            count.total
        ));
    }
    out
}

#[test]
fn counts_match_the_logs_for_every_scenario() {
    for dir in scenario_dirs() {
        let log = log_path(&dir);
        let trace = load(&dir, &log);
        let start = Instant::now();
        let report = audit(&trace, "x", &AuditOptions::default()).expect("audit");
        let elapsed = start.elapsed();
        let by_kind = report.by_kind();
        let total = |kind| by_kind.get(&kind).map_or(0, |c| c.total);
        assert_eq!(
            total(DecisionKind::WorkFetchChoice),
            // A dump printed by piggyback_work_request() makes no choice.
            count_lines(&log, "------- start work fetch state -------")
                - count_lines(&log, "piggyback_work_request()"),
            "{}",
            dir.display()
        );
        assert_eq!(
            total(DecisionKind::RunList),
            count_lines(&log, "make_run_list(): start"),
            "{}",
            dir.display()
        );
        eprintln!(
            "{}: agreement {:.4} in {:.3}s;{}",
            dir.file_name().and_then(|n| n.to_str()).unwrap_or(""),
            report.agreement(),
            elapsed.as_secs_f64(),
            summary(&report)
        );
    }
}

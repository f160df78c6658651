//! Anchored replay over the reference emulator traces (when
//! `../shared/reference` exists) and over the trimmed copies in
//! `traces/valid/` (always). Expected counts are read from the logs.

use boinc_audit::audit::audit_trace as audit;
use boinc_audit::divergence::{DecisionKind, DivergenceReport};
use boinc_audit::parse::{load_trace, LogOptions};
use boinc_audit::replay::AuditOptions;
use boinc_audit::trace::Trace;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod common;

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
    dirs.extend(trimmed_copies());
    dirs.sort();
    dirs
}

/// Every trimmed copy of a current-client reference: `traces/valid/*`
/// (hand-written scenarios) and `traces/valid-gen/*` (generated ones).
fn trimmed_copies() -> Vec<PathBuf> {
    common::scenario_folders(&[
        "traces/valid",
        "traces/valid-gen",
        "traces/valid-7.20.5",
        "traces/valid-7.16.21",
        "traces/valid-8.0.4",
        "traces/valid-7.2.42-gen",
        "traces/valid-7.14.2-gen",
        "traces/valid-7.3.19-gen",
        "traces/valid-7.4.42-gen",
        "traces/valid-7.6.7-gen",
        "traces/valid-7.24.1-gen",
    ])
}

fn log_path(dir: &Path) -> PathBuf {
    common::scenario_log(dir)
}

fn load(dir: &Path, log: &Path) -> Trace {
    // The scenario folder as the CLI reads it: inputs/, the log and the
    // emulator's timeline.html (host and GPU availability).
    let mut paths = vec![dir.join("inputs"), log.to_path_buf()];
    let timeline = dir.join("outputs/timeline.html");
    if timeline.is_file() {
        paths.push(timeline);
    }
    let parsed = load_trace(&paths, &LogOptions::default());
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
            count_lines(&log, "------- start work fetch state -------"),
            "{}",
            dir.display()
        );
        assert_eq!(
            total(DecisionKind::RunList),
            count_lines(&log, "make_run_list(): start")
                + count_lines(&log, "schedule_cpus(): start"),
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

fn valid(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/valid")
        .join(name)
}

fn audit_dir(dir: &Path, options: &AuditOptions) -> DivergenceReport {
    let trace = load(dir, &log_path(dir));
    audit(&trace, &dir.display().to_string(), options).expect("audit")
}

/// A bare log (no state file: a volunteer's situation) of every trimmed
/// copy: each choice, request and choose_project scan line is recomputed
/// from the recorded work-fetch state block of its pass by the rules, and
/// must agree with what the real client's code printed; a pass whose
/// inputs the block lacks (piggybacked requests, max_concurrent) is not
/// checked, never a divergence.
#[test]
fn bare_logs_agree_with_their_own_state_blocks() {
    let copies = trimmed_copies();
    assert!(!copies.is_empty());
    let mut checked_choices = 0;
    for dir in copies {
        let log = log_path(&dir);
        let parsed = load_trace(&[log], &LogOptions::default());
        assert!(parsed.errors.is_empty(), "{}", dir.display());
        let report = audit(
            &parsed.value,
            &dir.display().to_string(),
            &AuditOptions::default(),
        )
        .expect("audit");
        assert_eq!(
            report.n_divergent(),
            0,
            "{}: {:#?}",
            dir.display(),
            report.divergences.first()
        );
        checked_choices += report
            .points
            .iter()
            .filter(|p| p.kind == DecisionKind::WorkFetchChoice && p.checked)
            .count();
    }
    assert!(checked_choices > 1000, "{checked_choices} checked choices");
}

/// Every trimmed copy is replayed exactly: adding a case is adding a folder
/// under `traces/valid/` or `traces/valid-gen/`.
#[test]
fn agreement_on_the_trimmed_copies_does_not_regress() {
    let copies = trimmed_copies();
    assert!(copies.len() >= 18, "trimmed copies missing: {copies:?}");
    for dir in copies {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let log = log_path(&dir);
        let report = audit_dir(&dir, &AuditOptions::default());
        // Every scheduling pass and work-fetch block of the log is a point.
        let by_kind = report.by_kind();
        // A pass starts `make_run_list(): start` today, `schedule_cpus(): start` before 8.2.14.
        assert_eq!(
            by_kind.get(&DecisionKind::RunList).map_or(0, |c| c.total),
            count_lines(&log, "make_run_list(): start")
                + count_lines(&log, "schedule_cpus(): start"),
            "{name}"
        );
        if dir.parent().is_some_and(|p| p.ends_with("valid-7.20.5")) {
            // Judged under today's rules too: every checked point falls in
            // exactly one case.
            let judged = audit_dir(
                &dir,
                &AuditOptions {
                    since_changed: true,
                    ..AuditOptions::default()
                },
            );
            let since = judged
                .since_changed
                .as_ref()
                .expect("judged under today's rules");
            assert_eq!(
                since.both
                    + since.release_only
                    + since.today_only
                    + since.neither
                    + since.today_not_checked,
                judged.n_checked(),
                "{name}"
            );
            // The release from client_state.xml, and every kind checked.
            assert_eq!(report.release.as_deref(), Some("7.20.5"), "{name}");
            for kind in [
                DecisionKind::RrSim,
                DecisionKind::Priority,
                DecisionKind::FetchState,
                DecisionKind::WorkFetchChoice,
                DecisionKind::WorkRequest,
                DecisionKind::RunList,
                DecisionKind::Enforcement,
            ] {
                let count = by_kind.get(&kind).copied().unwrap_or_default();
                assert!(
                    count.total > 0 && count.unchecked == 0,
                    "{name}: {kind}: {count:?}"
                );
            }
        }
        assert_eq!(
            by_kind
                .get(&DecisionKind::FetchState)
                .map_or(0, |c| c.total),
            count_lines(&log, "------- start work fetch state -------"),
            "{name}"
        );
        assert!(
            report.agreement() >= 1.0,
            "{name}: agreement {:.4} < 1; first divergence: {:?}",
            report.agreement(),
            report.divergences.first()
        );
    }
}

/// Copies a trimmed scenario to a temporary folder, replacing `old` by
/// `new` in the first log line after `after` (1-based line number) that
/// contains `needle`. Returns the folder and the altered line's time label.
fn altered_copy(
    name: &str,
    tag: &str,
    after: usize,
    needle: &str,
    old: &str,
    new: &str,
) -> (PathBuf, String) {
    let src = valid(name);
    let dst = std::env::temp_dir().join(format!("boinc-audit-{}-{name}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    for sub in ["inputs", "outputs"] {
        std::fs::create_dir_all(dst.join(sub)).expect("mkdir");
        for entry in std::fs::read_dir(src.join(sub))
            .expect("read_dir")
            .flatten()
        {
            if entry.path().is_file() {
                std::fs::copy(entry.path(), dst.join(sub).join(entry.file_name())).expect("copy");
            }
        }
    }
    let log = dst.join("outputs/log.txt");
    let text = std::fs::read_to_string(&log).expect("plain log");
    let mut label = String::new();
    let mut done = false;
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(idx, line)| {
            if !done && idx + 1 > after && line.contains(needle) && line.contains(old) {
                done = true;
                label = line.split(" [").next().unwrap_or_default().to_string();
                line.replacen(old, new, 1)
            } else {
                line.to_string()
            }
        })
        .collect();
    assert!(done, "{name}: no line with {needle:?} and {old:?}");
    std::fs::write(&log, lines.join("\n") + "\n").expect("write");
    (dst, label)
}

fn first_divergence_at(dir: &Path, label: &str, field: &str, options: &AuditOptions) {
    let report = audit_dir(dir, options);
    let first = report.divergences.first().expect("a divergence");
    assert_eq!(first.time_label, label, "{first:?}");
    assert!(
        report
            .divergences
            .iter()
            .filter(|d| d.time_label == label)
            .any(|d| d.field == field),
        "no {field} divergence at {label}: {:?}",
        report.divergences.first()
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_altered_request_diverges_exactly_there() {
    // The second work request of the run (the first is at 01:00:00).
    // buffer_small: its small buffer makes several requests in three hours.
    let log = log_path(&valid("buffer_small"));
    let text = std::fs::read_to_string(&log).expect("log");
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("RPC: [work_fetch] request: CPU ("))
        .nth(1)
        .expect("two requests");
    let secs = line
        .1
        .split("CPU (")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .expect("req_secs");
    let (dir, label) = altered_copy(
        "buffer_small",
        "req",
        line.0,
        "RPC: [work_fetch] request: CPU (",
        &format!("({secs} sec"),
        "(12345.67 sec",
    );
    first_divergence_at(&dir, &label, "req_secs", &AuditOptions::default());
}

#[test]
fn an_altered_shortfall_diverges_exactly_there() {
    // A shortfall printed after the first hour.
    let log = log_path(&valid("cpu_two_projects_unequal_share"));
    let text = std::fs::read_to_string(&log).expect("log");
    let (idx, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("02:") && l.contains("[work_fetch] shortfall "))
        .expect("a shortfall line");
    let value = line
        .split("shortfall ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .expect("value")
        .to_string();
    let (dir, label) = altered_copy(
        "cpu_two_projects_unequal_share",
        "shortfall",
        idx,
        "[work_fetch] shortfall ",
        &format!("shortfall {value} "),
        "shortfall 1.25 ",
    );
    first_divergence_at(&dir, &label, "shortfall", &AuditOptions::default());
}

#[test]
fn an_altered_rec_diverges_exactly_there() {
    let log = log_path(&valid("cpu_two_projects_unequal_share"));
    let text = std::fs::read_to_string(&log).expect("log");
    let (idx, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("02:") && l.contains("[prio] recent est credit:"))
        .expect("a REC line");
    let new_rec = line.rsplit("->").next().expect("rec").to_string();
    let (dir, label) = altered_copy(
        "cpu_two_projects_unequal_share",
        "rec",
        idx,
        "[prio] recent est credit:",
        &format!("->{new_rec}"),
        "->999.000000",
    );
    first_divergence_at(&dir, &label, "rec", &AuditOptions::default());
}

#[test]
fn a_shorter_rec_half_life_diverges_first_where_rec_differs() {
    let dir = valid("cpu_two_projects_unequal_share");
    let mut options = AuditOptions::default();
    options
        .params
        .set("rec_half_life_days", "1")
        .expect("parameter");
    let report = audit_dir(&dir, &options);
    let first = report.divergences.first().expect("a divergence");
    // REC first differs at the first REC update with credit: 01:05:00.
    let log = log_path(&dir);
    let text = std::fs::read_to_string(&log).expect("log");
    let first_rec = text
        .lines()
        .find(|l| l.contains("[prio] recent est credit:") && !l.contains(" 0.00G "))
        .and_then(|l| l.split(" [").next())
        .expect("a REC line");
    assert_eq!(first.time_label, first_rec, "{first:?}");
    assert_eq!(first.kind, DecisionKind::Priority, "{first:?}");
}

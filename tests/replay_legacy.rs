//! The 6.6–6.10 generation (`ltd-6.6`) replayed over 6.10.60 emulator
//! traces: the trimmed copies in `traces/valid-6.10.60/` (always) and the
//! full references in `../shared/reference/emulator-6.10.60/` (when
//! present). Every expectation comes from the real client's log: the counts
//! of its decision groups and the values it printed.

use boinc_audit::divergence::{DecisionKind, DivergenceReport};
use boinc_audit::parse::{load_trace, LogOptions};
use boinc_audit::replay::{audit, AuditOptions};
use std::path::{Path, PathBuf};

fn trimmed(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/valid-6.10.60")
        .join(name)
}

fn dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let roots = [Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/valid-6.10.60")]
        .into_iter()
        .chain(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .ancestors()
                .map(|dir| dir.join("shared/reference/emulator-6.10.60"))
                .find(|dir| dir.is_dir()),
        );
    for root in roots {
        if let Ok(entries) = std::fs::read_dir(root) {
            out.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.join("inputs").is_dir()),
            );
        }
    }
    out.sort();
    out
}

fn audit_paths(paths: &[PathBuf], options: &AuditOptions) -> DivergenceReport {
    let parsed = load_trace(paths, &LogOptions::default());
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    audit(&parsed.value, "test", options).expect("audit")
}

fn count(log: &Path, needle: &str) -> usize {
    std::fs::read_to_string(log)
        .expect("log")
        .lines()
        .filter(|l| l.contains(needle))
        .count()
}

fn total(report: &DivergenceReport, kind: DecisionKind) -> usize {
    report.points.iter().filter(|p| p.kind == kind).count()
}

#[test]
fn every_decision_of_the_6_10_traces_agrees_and_every_group_is_a_point() {
    let dirs = dirs();
    assert!(dirs.len() >= 3, "{dirs:?}");
    for dir in dirs {
        let report = audit_paths(std::slice::from_ref(&dir), &AuditOptions::default());
        let log = dir.join("outputs/sim_log.txt");
        assert_eq!(report.policy, "6.10.60", "{}", dir.display());
        for (kind, needle) in [
            (
                DecisionKind::WorkFetchChoice,
                "------- start work fetch state -------",
            ),
            (
                DecisionKind::FetchState,
                "------- start work fetch state -------",
            ),
            (DecisionKind::RunList, "schedule_cpus(): start"),
            (DecisionKind::Enforcement, "enforce_schedule(): start"),
            (DecisionKind::RrSim, "rr_sim start: work_buf_total"),
            (DecisionKind::WorkRequest, "RPC to "),
        ] {
            assert_eq!(
                total(&report, kind),
                count(&log, needle),
                "{}: {kind} points vs `{needle}` lines",
                dir.display()
            );
        }
        assert!(total(&report, DecisionKind::Priority) > 0);
        let first = report.divergences.first();
        assert_eq!(report.n_divergent(), 0, "{}: {first:?}", dir.display());
    }
}

#[test]
fn policy_ltd_6_6_is_the_same_replay() {
    let options = AuditOptions {
        policy: Some("ltd-6.6".into()),
        ..AuditOptions::default()
    };
    let report = audit_paths(&[trimmed("four_projects_time_slicing")], &options);
    assert_eq!(report.policy, "ltd-6.6");
    assert!(!report.points.is_empty());
    assert_eq!(report.n_divergent(), 0);
}

/// A copy of a trimmed trace with one log line changed.
fn altered(name: &str, line_has: &str, old: &str, new: &str) -> PathBuf {
    let src = trimmed(name);
    let dst = std::env::temp_dir().join(format!("boinc-audit-610-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    for sub in ["inputs", "outputs"] {
        std::fs::create_dir_all(dst.join(sub)).expect("mkdir");
        for entry in std::fs::read_dir(src.join(sub)).expect("dir").flatten() {
            std::fs::copy(entry.path(), dst.join(sub).join(entry.file_name())).expect("copy");
        }
    }
    let log = dst.join("outputs/sim_log.txt");
    let text = std::fs::read_to_string(&log).expect("log");
    let mut done = false;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if !done && line.contains(line_has) && line.contains(old) {
                done = true;
                line.replacen(old, new, 1)
            } else {
                line.to_string()
            }
        })
        .collect();
    assert!(done, "no line with {line_has:?}");
    std::fs::write(&log, lines.join("\n") + "\n").expect("write");
    dst
}

#[test]
fn an_altered_debt_diverges_exactly_there() {
    // policy-legacy B.15.5: at 00:04:00 Beta's LTD is -270.00 before the offset.
    let dir = altered(
        "cpu_two_projects_unequal_share",
        "01-Jan-2000 00:04:00 [Beta] [debt] CPU LTD",
        "-270.00",
        "-271.00",
    );
    let report = audit_paths(std::slice::from_ref(&dir), &AuditOptions::default());
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.n_divergent(), 1, "{:?}", report.divergences);
    let first = &report.divergences[0];
    assert_eq!(first.kind, DecisionKind::Priority);
    assert_eq!(first.time_label, "01-Jan-2000 00:04:00");
    assert!(first.replayed.contains("LTD -270.00"), "{first:?}");
}

#[test]
fn an_altered_choice_diverges_exactly_there() {
    // B.15.5: the first fetch goes to Urgent (tie → the later project).
    let dir = altered(
        "tight_deadline_edf",
        "[Urgent] chosen: idle instance",
        "[Urgent]",
        "[Slow]",
    );
    let report = audit_paths(std::slice::from_ref(&dir), &AuditOptions::default());
    let _ = std::fs::remove_dir_all(&dir);
    let first = report.divergences.first().expect("a divergence");
    assert_eq!(first.kind, DecisionKind::WorkFetchChoice);
    assert_eq!(first.time_label, "01-Jan-2000 00:00:00");
    assert!(first
        .replayed
        .contains("[Urgent] chosen: idle instance CPU: 1.00 inst, 43200.00 sec"));
}

/// The intermittent host (sim_host.xml `<available>` at 0.5): the replay
/// follows the log's `value:` samples. Its first off step (01:51), read as
/// on, makes the replay schedule and poll where the emulator did neither.
#[test]
fn an_off_step_read_as_on_diverges_exactly_there() {
    let dir = altered(
        "tight_deadline_edf_intermittent",
        "01-Jan-2000 01:51:00 [---] value: 0",
        "value: 0",
        "value: 1",
    );
    let report = audit_paths(std::slice::from_ref(&dir), &AuditOptions::default());
    let _ = std::fs::remove_dir_all(&dir);
    let first = report.divergences.first().expect("a divergence");
    assert_eq!(first.time_label, "01-Jan-2000 01:51:00", "{first:?}");
}

#[test]
fn without_sim_out_html_job_sizes_are_coarse_and_the_report_says_so() {
    let dir = trimmed("tight_deadline_edf");
    let report = audit_paths(
        &[dir.join("inputs"), dir.join("outputs/sim_log.txt")],
        &AuditOptions::default(),
    );
    assert!(
        report
            .unchecked
            .iter()
            .any(|u| u.what.starts_with("exact job sizes")),
        "{:?}",
        report.unchecked
    );
    // The sizes' last digit moves printed values by hundredths only.
    assert_eq!(report.n_divergent(), 0, "{:?}", report.divergences.first());
}

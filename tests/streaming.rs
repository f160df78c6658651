//! The streaming audit of a long log (`audit::audit_paths`): a log that
//! holds several client sessions (emulator runs appended one after another,
//! every generation under traces/valid*) is audited session by session, each
//! under its own rules, and the totals are those of the sessions audited
//! alone; keeping only counts (`keep_points = false`) changes no total.

mod common;

use boinc_audit::audit::{audit_paths, Keep};
use boinc_audit::divergence::DivergenceReport;
use boinc_audit::parse::LogOptions;
use boinc_audit::replay::AuditOptions;
use std::path::{Path, PathBuf};

/// The first scenario's bare log of each traces/valid* folder (one per
/// generation and release), with its text.
fn one_log_per_folder() -> Vec<(PathBuf, String)> {
    let mut logs: Vec<(PathBuf, PathBuf, String)> = common::valid_logs();
    logs.dedup_by(|b, a| a.0 == b.0);
    logs.into_iter()
        .map(|(_, path, text)| (path, text))
        .collect()
}

fn audit(path: &Path, keep: Keep) -> DivergenceReport {
    let options = AuditOptions::default();
    let streamed = audit_paths(
        &[path.to_path_buf()],
        &LogOptions::default(),
        "t",
        &options,
        keep,
        &mut |_, _| {},
    );
    assert!(streamed.errors.is_empty(), "{:?}", streamed.errors);
    streamed
        .report
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn totals(report: &DivergenceReport) -> (usize, usize, usize) {
    (report.n_points(), report.n_checked(), report.n_divergent())
}

#[test]
fn appended_logs_are_audited_session_by_session() {
    let logs = one_log_per_folder();
    assert!(logs.len() >= 5, "one log per generation: {}", logs.len());
    let alone: Vec<DivergenceReport> = logs.iter().map(|(l, _)| audit(l, Keep::Activity)).collect();
    let policies: std::collections::BTreeSet<&str> =
        alone.iter().map(|r| r.policy.as_str()).collect();
    assert!(policies.len() >= 2, "several generations: {policies:?}");
    assert!(
        alone.iter().filter(|r| r.n_checked() > 0).count() >= 4,
        "most bare logs check something"
    );

    let dir = std::env::temp_dir().join(format!("boinc-audit-streaming-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let joined = dir.join("appended.log");
    let mut bytes = Vec::new();
    for (_, text) in &logs {
        bytes.extend(text.as_bytes());
    }
    std::fs::write(&joined, &bytes).expect("write the appended log");

    let mut by_kind = std::collections::BTreeMap::new();
    for report in &alone {
        for (kind, count) in report.by_kind() {
            let into: &mut (usize, usize, usize) = by_kind.entry(kind).or_default();
            into.0 += count.total;
            into.1 += count.divergent;
            into.2 += count.unchecked;
        }
    }
    for keep in [Keep::Activity, Keep::Points, Keep::Totals] {
        let report = audit(&joined, keep);
        let sum = alone
            .iter()
            .map(totals)
            .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
        assert_eq!(totals(&report), sum, "{keep:?}");
        let got: std::collections::BTreeMap<_, _> = report
            .by_kind()
            .into_iter()
            .map(|(k, c)| (k, (c.total, c.divergent, c.unchecked)))
            .collect();
        assert_eq!(got, by_kind, "{keep:?}");
        assert_eq!(report.policy, "mixed");
        assert!(
            report
                .policy_reason
                .starts_with(&format!("{} client sessions", logs.len())),
            "{}",
            report.policy_reason
        );
        for policy in &policies {
            assert!(
                report.policy_reason.contains(&format!("× {policy} (")),
                "{policy} named in {}",
                report.policy_reason
            );
        }
        if keep != Keep::Totals {
            assert!(report.folded.is_empty());
        } else {
            assert_eq!(report.points.len(), report.n_divergent());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

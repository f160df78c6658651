//! Data-driven tests of the scheduler-side audit: one per
//! `traces/server/<case>/case.toml`.
//!
//! Each case folder holds scheduler transcripts (`sched_request_<P>.xml`,
//! `sched_reply_<P>.xml`, optionally in `rpc-NN/` sub-folders for a series,
//! and optionally a `stdoutdae.txt`) written by a person from
//! spec/server-side.md, and a `case.toml` listing exactly the findings the
//! audit must report:
//!
//! ```toml
//! description = "what the case breaks"
//! unchecked = ["S3", "S10", "W1"]   # exactly the rules with an Unchecked entry
//! [[finding]]                        # one per expected divergence
//! rule = "S1"                        # the divergence's field
//! kind = "server_rule"               # or "sequence_rule"
//! job = "name"                       # optional
//! resource = "NVIDIA GPU"            # optional
//! reason_contains = "text"           # optional
//! ```
//!
//! Adding a case means adding files.

use boinc_audit::divergence::Divergence;
use boinc_audit::parse::{load_trace, LogOptions};
use boinc_audit::server::audit_transcripts;
use std::collections::BTreeSet;
use std::path::Path;

fn run_case(case_toml: &Path) -> datatest_stable::Result<()> {
    let case_dir = case_toml.parent().ok_or("case.toml has no parent")?;
    let case: toml::Table = toml::from_str(&std::fs::read_to_string(case_toml)?)?;
    let parsed = load_trace(&[case_dir.to_path_buf()], &LogOptions::default());
    let mut failures = Vec::new();
    if !parsed.errors.is_empty() {
        failures.push(format!("parse errors: {:#?}", parsed.errors));
    }
    let audit = audit_transcripts(&parsed.value);

    let expected: Vec<&toml::Table> = case
        .get("finding")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_table())
        .collect();
    let mut unmatched: Vec<&Divergence> = audit.divergences.iter().collect();
    for want in &expected {
        match unmatched.iter().position(|d| finding_matches(want, d)) {
            Some(index) => {
                unmatched.remove(index);
            }
            None => failures.push(format!("expected finding not reported: {want:?}")),
        }
    }
    for extra in &unmatched {
        failures.push(format!(
            "unexpected finding: {} ({}) job {:?} resource {:?}: {}",
            extra.field, extra.kind, extra.job, extra.resource, extra.reason
        ));
    }

    let want_unchecked: BTreeSet<String> = case
        .get("unchecked")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let got_unchecked: BTreeSet<String> =
        audit.unchecked.iter().map(|u| rule_of(&u.what)).collect();
    if want_unchecked != got_unchecked {
        let details: Vec<String> = audit
            .unchecked
            .iter()
            .map(|u| format!("{}: {}", u.what, u.why))
            .collect();
        failures.push(format!(
            "unchecked: expected {want_unchecked:?}\n   got {got_unchecked:?}\n{details:#?}"
        ));
    }
    let n_divergent_points: usize = audit.points.iter().map(|p| p.n_divergences).sum();
    if n_divergent_points != audit.divergences.len() {
        failures.push(format!(
            "points count {n_divergent_points} divergences, the audit has {}",
            audit.divergences.len()
        ));
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{}:\n{}", case_dir.display(), failures.join("\n")).into())
    }
}

/// `S5 on dir/project` → `S5`; `event log for …` → `log`.
fn rule_of(what: &str) -> String {
    if what.starts_with("event log") {
        return "log".to_string();
    }
    what.split_whitespace().next().unwrap_or("").to_string()
}

fn finding_matches(want: &toml::Table, divergence: &Divergence) -> bool {
    let text = |key: &str| want.get(key).and_then(|v| v.as_str());
    text("rule").is_none_or(|rule| divergence.field == rule)
        && text("kind").is_none_or(|kind| divergence.kind.name() == kind)
        && text("job").is_none_or(|job| divergence.job.as_deref() == Some(job))
        && text("resource").is_none_or(|rsc| divergence.resource.as_deref() == Some(rsc))
        && text("reason_contains").is_none_or(|part| divergence.reason.contains(part))
}

datatest_stable::harness! {
    { test = run_case, root = "traces/server", pattern = r"case\.toml$" },
}

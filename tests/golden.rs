//! The golden suite as data-driven tests: one per `golden/<case>/case.toml`.
//!
//! Each case is replayed and compared with its `decisions.txt` and
//! `divergences.txt`; every divergence from the recorded reference must be
//! explained in `case.toml`. A mismatch writes `<file>.new` (unless `CI` is
//! set; see `BOINC_AUDIT_UPDATE`) and fails with the first changed decision
//! and a diff. Review with `boinc-audit golden pending|accept|reject`.
//! Adding a case means adding a folder.

use boinc_audit::golden::GoldenEnv;
use boinc_audit::golden_suite;
use std::path::Path;

fn run_case(case_toml: &Path) -> datatest_stable::Result<()> {
    let dir = case_toml.parent().ok_or("case.toml has no folder")?;
    let root = dir.parent().ok_or("case folder has no parent")?;
    let name = dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Discovering every case also fails the run on a golden folder without a
    // case.toml (golden files with no trace to replay).
    let cases: Vec<_> = golden_suite::discover_cases(root, None)?
        .into_iter()
        .filter(|case| case.name == name)
        .collect();
    let env = GoldenEnv::from_process_env()?;
    let mut failures = Vec::new();
    for case in &cases {
        let result = golden_suite::run_case(case, &[], &env);
        if !result.passed() {
            failures.push(format!(
                "golden case {} changed:\n{}",
                case.name,
                result.failure_text()
            ));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Box::new(Report(failures.join("\n"))))
    }
}

/// A failure report printed as written (the harness prints errors with
/// `Debug`, which would escape the diff's line breaks).
struct Report(String);

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Report {}

datatest_stable::harness! {
    { test = run_case, root = "golden", pattern = r"case\.toml$" },
}

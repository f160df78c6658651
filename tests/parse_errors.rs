//! Data-driven tests of broken inputs: one per `traces/invalid/<case>/`.
//!
//! Every file of the case folder except `errors.txt` and `case.toml` is parsed
//! as an explicitly named input. The problems reported (errors and warnings,
//! in order, one per line) must equal `errors.txt`, which a person wrote.
//! Parsing must never panic.

use boinc_audit::parse::{self, LogOptions};
use std::path::Path;

mod common;

fn run_case(errors_txt: &Path) -> datatest_stable::Result<()> {
    let case_dir = errors_txt.parent().ok_or("errors.txt has no parent")?;
    let inputs = common::case_inputs(case_dir)?;
    let outcome = parse::parse_paths(&inputs, &LogOptions::default(), &mut |_| {});
    let actual: Vec<String> = outcome
        .errors
        .iter()
        .chain(&outcome.warnings)
        .map(|e| e.to_string())
        .collect();
    let expected: Vec<String> = std::fs::read_to_string(errors_txt)?
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(str::to_string)
        .collect();
    if actual == expected {
        Ok(())
    } else {
        Err(format!(
            "{}: reported problems differ\nexpected:\n  {}\nactual:\n  {}",
            case_dir.display(),
            expected.join("\n  "),
            actual.join("\n  ")
        )
        .into())
    }
}

datatest_stable::harness! {
    { test = run_case, root = "traces/invalid", pattern = r"errors\.txt$" },
}

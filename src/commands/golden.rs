//! `boinc-audit golden check|pending|accept|reject`.

use super::{open_output, EXIT_DIVERGED, EXIT_OK};
use crate::cli::{GoldenCheckArgs, GoldenReviewArgs};
use anyhow::{Context, Result};
use boinc_audit::golden::junit::{write_junit, JunitCase};
use boinc_audit::golden::{self, GoldenEnv, UpdateMode};
use boinc_audit::golden_suite;
use std::io::{BufWriter, Write};

pub fn run_golden_check(args: &GoldenCheckArgs) -> Result<u8> {
    let mut env = GoldenEnv::from_process_env().context("golden environment")?;
    if !args.set.is_empty() {
        // A what-if question: report, never leave pending snapshots behind.
        env.update = UpdateMode::No;
    }
    let cases = golden_suite::discover_cases(&args.dir, args.case.as_deref())
        .map_err(anyhow::Error::msg)?;
    if cases.is_empty() {
        anyhow::bail!("no golden cases under {}", args.dir.display());
    }
    let mut out = open_output(None)?;
    let mut junit_cases = Vec::new();
    let mut n_failed = 0usize;
    for case in &cases {
        let result = golden_suite::run_case(case, &args.set, &env);
        if result.passed() {
            writeln!(out, "ok      {}", case.name)?;
            junit_cases.push(JunitCase::passed(&case.name));
        } else {
            n_failed += 1;
            let failure = result.failure_text();
            writeln!(out, "CHANGED {}", case.name)?;
            for line in failure.lines() {
                writeln!(out, "    {line}")?;
            }
            let message = result
                .first_change
                .clone()
                .unwrap_or_else(|| failure.lines().next().unwrap_or("").to_string());
            junit_cases.push(JunitCase::failed(&case.name, &message, &failure));
        }
    }
    writeln!(
        out,
        "{} cases, {} passed, {} changed",
        cases.len(),
        cases.len() - n_failed,
        n_failed
    )?;
    out.flush().context("cannot write output")?;
    if let Some(path) = &args.junit {
        let mut file = BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
        write_junit("boinc-audit golden", &junit_cases, &mut file)?;
        file.flush()?;
    }
    Ok(if n_failed == 0 {
        EXIT_OK
    } else {
        EXIT_DIVERGED
    })
}

/// The three review actions on pending `.new` files.
pub enum Review {
    Pending,
    Accept,
    Reject,
}

pub fn run_golden_review(args: &GoldenReviewArgs, review: Review) -> Result<u8> {
    let case = args.case.as_deref();
    let mut out = open_output(None)?;
    match review {
        Review::Pending => {
            let files = golden::pending(&args.dir, case)?;
            for file in &files {
                writeln!(out, "{}", file.display())?;
            }
            writeln!(out, "{} pending", files.len())?;
        }
        Review::Accept => {
            let accepted = golden::accept(&args.dir, case)?;
            for file in &accepted {
                writeln!(out, "accepted {}", file.golden.display())?;
            }
            writeln!(out, "{} accepted", accepted.len())?;
        }
        Review::Reject => {
            let rejected = golden::reject(&args.dir, case)?;
            for file in &rejected {
                writeln!(out, "rejected {}", file.display())?;
            }
            writeln!(out, "{} rejected", rejected.len())?;
        }
    }
    out.flush().context("cannot write output")?;
    Ok(EXIT_OK)
}

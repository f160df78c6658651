//! `boinc-audit simulate`: closed-loop simulation of a scenario.

use super::{apply_overrides, open_output, EXIT_OK};
use crate::cli::{SimulateArgs, SimulateFormat};
use anyhow::Result;
use boinc_audit::simulate;
use std::io::Write;

/// Simulates the scenario and prints the figures of merit and usage.
pub fn run_simulate(args: &SimulateArgs) -> Result<u8> {
    if args.policy != "current" {
        anyhow::bail!(
            "--policy {}: only `current` can be simulated (legacy generations are not wired in)",
            args.policy
        );
    }
    let mut params = simulate::emulator_params(args.delta);
    apply_overrides(&mut params, &args.set)?;
    let options = simulate::SimOptions {
        duration: args.duration,
        delta: args.delta,
        seed: args.seed,
        existing_jobs_only: args.existing_jobs_only,
        params: Some(params),
    };
    let report = simulate::simulate_scenario(&args.scenario, &options)?;
    let mut out = open_output(None)?;
    match args.format {
        SimulateFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        SimulateFormat::Table => write!(out, "{}", simulate::render_table(&report))?,
    }
    out.flush()?;
    Ok(EXIT_OK)
}

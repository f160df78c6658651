//! `boinc-audit compare`: one input under two policies or parameter sets.

use super::{apply_overrides, log_options, open_output, EXIT_DIVERGED, EXIT_OK};
use crate::cli::{CompareArgs, CompareMode, DateOrderArg, SimulateFormat};
use anyhow::{Context, Result};
use boinc_audit::compare::{self, Comparison, ReplayRun, SideSpec, SimulationRun};
use boinc_audit::parse;
use boinc_audit::policy::Params;
use boinc_audit::replay::AuditOptions;
use boinc_audit::report::compare::{write_json, write_table};
use boinc_audit::simulate::{self, scenario::is_notation, SimOptions};
use boinc_audit::trace::FileKind;
use std::io::Write;
use std::path::PathBuf;

/// Runs `compare`; exit 0 when both sides decide alike, 1 when they differ.
pub fn run(args: &CompareArgs) -> Result<u8> {
    let (spec_a, spec_b) = sides(args)?;
    let comparison = match mode(args) {
        CompareMode::Simulate => {
            Comparison::Simulation(Box::new(simulation(args, &spec_a, &spec_b)?))
        }
        _ => Comparison::Replay(Box::new(replay(args, &spec_a, &spec_b)?)),
    };
    let mut out = open_output(None)?;
    match args.format {
        SimulateFormat::Json => write_json(&comparison, &mut out)?,
        SimulateFormat::Table => write_table(&comparison, args.limit, &mut out)?,
    }
    out.flush().context("cannot write output")?;
    Ok(if comparison.identical() {
        EXIT_OK
    } else {
        EXIT_DIVERGED
    })
}

/// The two sides as given: `--policy` once (both) or twice (A, B); shared
/// `--set` first, then the side's own.
fn sides(args: &CompareArgs) -> Result<(SideSpec, SideSpec)> {
    let (policy_a, policy_b) = match args.policy.as_slice() {
        [] => (None, None),
        [both] => (Some(both.clone()), Some(both.clone())),
        [a, b] => (Some(a.clone()), Some(b.clone())),
        more => anyhow::bail!(
            "--policy given {} times; give it once (both sides) or twice (A, B)",
            more.len()
        ),
    };
    let auto = |p: Option<String>| p.filter(|p| p != "auto");
    let side = |label: &str, policy: Option<String>, own: &[String]| SideSpec {
        label: label.to_string(),
        policy: auto(policy),
        overrides: args.set.iter().chain(own).cloned().collect(),
    };
    let a = side("A", policy_a, &args.set_a);
    let b = side("B", policy_b, &args.set_b);
    if a.policy == b.policy && a.overrides == b.overrides {
        eprintln!(
            "note: sides A and B are the same ({}); give two --policy values or --set-a/--set-b",
            a.describe()
        );
    }
    Ok((a, b))
}

fn mode(args: &CompareArgs) -> CompareMode {
    match args.mode {
        CompareMode::Auto => match args.input.as_slice() {
            [one] if is_notation(one) => CompareMode::Simulate,
            [one] if !has_event_log(one) => CompareMode::Simulate,
            _ => CompareMode::Replay,
        },
        chosen => chosen,
    }
}

/// Does this path record what a host did (an event log or scheduler
/// transcripts), rather than only the inputs of a scenario?
fn has_event_log(path: &str) -> bool {
    let path = PathBuf::from(path);
    if !path.is_dir() {
        return true;
    }
    let (inputs, _) = parse::discover::discover(std::slice::from_ref(&path));
    inputs.iter().any(|input| {
        !matches!(
            input.kind,
            FileKind::ClientState
                | FileKind::GlobalPrefs
                | FileKind::CcConfig
                | FileKind::AppConfig
        )
    })
}

fn replay(args: &CompareArgs, a: &SideSpec, b: &SideSpec) -> Result<compare::ReplayComparison> {
    let paths: Vec<PathBuf> = args.input.iter().map(PathBuf::from).collect();
    let parsed = parse::load_trace(&paths, &log_options(DateOrderArg::Auto));
    if !parsed.errors.is_empty() {
        for error in &parsed.errors {
            eprintln!("{error}");
        }
        anyhow::bail!("the trace has {} parse errors", parsed.errors.len());
    }
    let run = |spec: &SideSpec| -> Result<ReplayRun> {
        let mut params = Params::default();
        apply_overrides(&mut params, &spec.overrides)?;
        Ok(ReplayRun {
            spec: spec.clone(),
            options: AuditOptions {
                params,
                tolerance: args.tolerance,
                policy: spec.policy.clone(),
                client_version: None,
                since_changed: false,
                user_set: Params::assignment_keys(&spec.overrides),
            },
        })
    };
    let name = args.input.join(" ");
    Ok(compare::compare_replay(
        &parsed.value,
        &name,
        &run(a)?,
        &run(b)?,
    )?)
}

fn simulation(
    args: &CompareArgs,
    a: &SideSpec,
    b: &SideSpec,
) -> Result<compare::SimulationComparison> {
    let [scenario] = args.input.as_slice() else {
        anyhow::bail!("a scenario is one folder or one seed-notation string");
    };
    // An emulator reference runs with its own options unless given.
    let recorded = simulate::scenario::recorded_run(scenario).unwrap_or_default();
    let duration = args.duration.or(recorded.duration).unwrap_or(172_800.0);
    let delta = args.delta.or(recorded.delta).unwrap_or(300.0);
    let run = |spec: &SideSpec| -> Result<SimulationRun> {
        use boinc_audit::policy::generation::Generation;
        use boinc_audit::policy::profile::{params_for_release, profile_name, Release};
        let release_named = spec
            .policy
            .as_deref()
            .and_then(|name| name.parse::<Release>().ok())
            .filter(|r| (r.0, r.1) > (7, 2));
        let (policy, release): (Generation, Option<Release>) =
            match (spec.policy.as_deref(), release_named) {
                (_, Some(release)) => (Generation::Current, Some(release)),
                (Some(name), None) => (
                    name.parse()
                        .with_context(|| format!("side {}", spec.label))?,
                    None,
                ),
                (None, None) => {
                    let (generation, _, release) = simulate::scenario::auto_policy(scenario);
                    (generation, release)
                }
            };
        let mut params = simulate::emulator_params(delta);
        if let Some(release) = release {
            params_for_release(&mut params, release);
        }
        apply_overrides(&mut params, &spec.overrides)?;
        let mut spec = spec.clone();
        spec.policy = Some(release.map_or_else(|| policy.to_string(), profile_name));
        Ok(SimulationRun {
            spec,
            options: SimOptions {
                duration,
                delta,
                seed: args.seed,
                existing_jobs_only: recorded.existing_jobs_only,
                params: Some(params),
                windows: Vec::new(),
                policy,
                keep_transcripts: false,
                release,
            },
        })
    };
    Ok(compare::compare_simulation(scenario, &run(a)?, &run(b)?)?)
}

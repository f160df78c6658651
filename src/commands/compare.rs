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
    if let [one] = args.input.as_slice() {
        let dir = std::path::Path::new(one);
        if dir.join("lab.txt").is_file() {
            return lab(args, dir);
        }
    }
    let (spec_a, spec_b) = sides(args)?;
    let comparison = match mode(args) {
        CompareMode::Simulate => {
            Comparison::Simulation(Box::new(simulation(args, &spec_a, &spec_b)?))
        }
        _ => Comparison::Replay(Box::new(replay(args, &spec_a, &spec_b)?)),
    };
    if let Some(path) = &args.html {
        let Comparison::Replay(replay) = &comparison else {
            anyhow::bail!(
                "--html draws the two replays of a trace; for a scenario, write each side's \
                 run with `simulate SCENARIO --policy P --html FILE`"
            );
        };
        let sides = boinc_audit::report::html::Sides {
            top: "A",
            bottom: "B",
            differ: "differ",
        };
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
        boinc_audit::report::html::write_html_with(&replay.side_by_side, sides, &mut file)
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
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
                summary: false,
                stated_step: None,
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
        use boinc_audit::policy::profile::{is_7_2, profile_name, Release};
        let release_named = spec
            .policy
            .as_deref()
            .and_then(|name| name.parse::<Release>().ok())
            .filter(|r| r.0 >= 7);
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
        simulate::release_rules(&mut params, release);
        apply_overrides(&mut params, &spec.overrides)?;
        let mut spec = spec.clone();
        spec.policy = Some(match release {
            Some(r) if is_7_2(r) => "7.2.42".to_string(),
            Some(r) => profile_name(r),
            None => policy.to_string(),
        });
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

/// A real-client lab run (a folder with lab.txt) beside `simulate` of the
/// same scenario for the same length (1-s steps): each project's CPU use.
fn lab(args: &CompareArgs, dir: &std::path::Path) -> Result<u8> {
    let real = boinc_audit::lab::real_usage(dir)?;
    let mut options = SimOptions {
        duration: real.span.max(1.0).round(),
        delta: 1.0,
        ..SimOptions::default()
    };
    let mut params = Params::default();
    apply_overrides(&mut params, &args.set)?;
    if !args.set.is_empty() {
        options.params = Some(params);
    }
    // simulate models neither per-project request delays, a server that
    // does not acknowledge, nor the lab's actions on the host: it runs
    // without them.
    let (scenario, dropped) = boinc_audit::lab::simulate_notation(&real.scenario)?;
    if !dropped.is_empty() {
        eprintln!(
            "note: simulate runs the scenario without {} (not modelled)",
            dropped.join(", ")
        );
    }
    let sim = simulate::simulate_scenario(&scenario, &options)?;
    let simulated = |project: &str| {
        sim.usage
            .iter()
            .filter(|u| u.project == project && u.resource == "CPU")
            .map(|u| u.fraction)
            .sum::<f64>()
    };
    let mut out = open_output(None)?;
    match args.format {
        SimulateFormat::Json => {
            let rows: Vec<serde_json::Value> = real
                .projects
                .iter()
                .map(|(name, share, secs, fraction)| {
                    serde_json::json!({
                        "project": name,
                        "share": share,
                        "real_cpu_secs": secs,
                        "real_fraction": fraction,
                        "simulated_fraction": simulated(name),
                    })
                })
                .collect();
            let json = serde_json::json!({
                "lab_run": dir.display().to_string(),
                "scenario": real.scenario,
                "seconds": real.span,
                "ncpus": real.ncpus,
                "projects": rows,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        }
        SimulateFormat::Table => {
            writeln!(
                out,
                "real client (lab run {}, {:.0} s on {} CPUs) beside simulate (same scenario, \
                 same length, 1-s steps)",
                dir.display(),
                real.span,
                real.ncpus
            )?;
            writeln!(out, "scenario: {}", real.scenario)?;
            let total_share: f64 = real.projects.iter().map(|p| p.1).sum();
            let mut table = comfy_table::Table::new();
            table.load_preset(comfy_table::presets::ASCII_MARKDOWN);
            table.set_header(["project", "share", "real CPU use", "simulated CPU use"]);
            for (name, share, _, fraction) in &real.projects {
                table.add_row([
                    name.clone(),
                    format!("{:.3}", share / total_share.max(1e-12)),
                    format!("{fraction:.3}"),
                    format!("{:.3}", simulated(name)),
                ]);
            }
            writeln!(out, "{table}")?;
            writeln!(
                out,
                "(CPU use: CPU-seconds of the project's tasks / (CPUs x run length); the real \
                 client's first minute includes its master-page fetch and first RPCs)"
            )?;
        }
    }
    out.flush().context("cannot write output")?;
    Ok(EXIT_OK)
}

//! `boinc-audit simulate`: closed-loop simulation of a scenario.

use super::{apply_overrides, open_output, EXIT_OK};
use crate::cli::{SimulateArgs, SimulateFormat};
use anyhow::Context;
use anyhow::Result;
use boinc_audit::simulate::{self, rng::Rng, sequences};
use std::io::Write;

/// Simulated seconds when neither `--duration` nor a recorded run gives them.
const DEFAULT_DURATION: f64 = 172_800.0;
/// Time step when neither `--delta` nor a recorded run gives it.
const DEFAULT_DELTA: f64 = 300.0;

/// Simulates the scenario and prints the figures of merit and usage.
pub fn run_simulate(args: &SimulateArgs) -> Result<u8> {
    if args.hosts.is_some() || sequences::is_sequence_notation(&args.scenario) {
        if args.log_out.is_some() || args.outputs_dir.is_some() || args.html.is_some() {
            anyhow::bail!(
                "--log-out, --outputs-dir and --html write one client's run: not with --hosts \
                 or work sequences"
            );
        }
        return run_sequences(args);
    }
    let (policy, policy_reason, release) = if args.policy == "auto" {
        let (generation, why, release) = simulate::scenario::auto_policy(&args.scenario);
        (generation, Some(why), release)
    } else if let Some(release) = args
        .policy
        .parse::<boinc_audit::policy::profile::Release>()
        .ok()
        .filter(|r| r.0 >= 7)
    {
        let profile = if boinc_audit::policy::profile::is_7_2(release) {
            "7.2.42 (the 7.0-7.2 REC generation, policy-legacy C.1)".to_string()
        } else {
            boinc_audit::policy::profile::profile_name(release)
        };
        (
            boinc_audit::policy::generation::Generation::Current,
            Some(format!(
                "--policy {release}: profile {profile} (`policy profiles`)"
            )),
            Some(release),
        )
    } else {
        let generation: boinc_audit::policy::generation::Generation = args
            .policy
            .parse()
            .with_context(|| format!("--policy {}", args.policy))?;
        (generation, None, None)
    };
    let recorded = if args.ignore_recorded_options {
        None
    } else {
        simulate::scenario::recorded_run(&args.scenario)
    };
    let duration = args
        .duration
        .or(recorded.as_ref().and_then(|r| r.duration))
        .unwrap_or(DEFAULT_DURATION);
    let delta = args
        .delta
        .or(recorded.as_ref().and_then(|r| r.delta))
        .unwrap_or(DEFAULT_DELTA);
    let existing_jobs_only =
        args.existing_jobs_only || recorded.as_ref().is_some_and(|r| r.existing_jobs_only);
    let mut params = simulate::emulator_params(delta);
    simulate::release_rules(&mut params, release);
    apply_overrides(&mut params, &args.set)?;
    let options = simulate::SimOptions {
        duration,
        delta,
        seed: args.seed,
        existing_jobs_only,
        params: Some(params),
        policy,
        windows: args
            .windows
            .iter()
            .map(|w| parse_window(w))
            .collect::<Result<_>>()?,
        keep_transcripts: args.trace_out.is_some(),
        release,
    };
    // An output's folder is made when missing (`--log-out D/outputs/log.txt`
    // beside a scenario `scenario random --out D` just wrote).
    let create = |path: &std::path::Path| -> Result<std::io::BufWriter<std::fs::File>> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(std::io::BufWriter::new(file))
    };
    // --html audits the emulator log the run writes: into --outputs-dir,
    // or a temporary folder beside a copy of the scenario's inputs.
    let html_dir = match &args.html {
        Some(_) if args.outputs_dir.is_none() => Some(HtmlDir::new(&args.scenario)?),
        _ => None,
    };
    let outputs_dir = args
        .outputs_dir
        .clone()
        .or_else(|| html_dir.as_ref().map(|d| d.root.join("outputs")));
    if args.log_out.is_some() || outputs_dir.is_some() {
        // Refuse before any file is created (an outputs/ folder may hold an
        // emulator's own files).
        simulate::log_out_supported(&args.scenario, &options)?;
    }
    let emulator_6_10 = options.policy == boinc_audit::policy::generation::Generation::Ltd66
        && simulate::emulator_6_10_inputs(&args.scenario).is_some();
    let mut report = if let (Some(dir), true) = (&outputs_dir, emulator_6_10) {
        // The 6.10 emulator writes sim_log.txt and its timeline page
        // sim_out_0.html (of which the job sizes are written; its other
        // outputs are HTML pages and a summary on standard output).
        std::fs::create_dir_all(dir).with_context(|| format!("--outputs-dir {}", dir.display()))?;
        let mut log = create(&dir.join("sim_log.txt"))?;
        let mut page = create(&dir.join("sim_out_0.html"))?;
        let out = simulate::LogOut {
            log: &mut log,
            timeline: Some(&mut page),
            inputs: None,
        };
        simulate::simulate_scenario_logged(&args.scenario, &options, Some(out))?
    } else if let Some(dir) = &outputs_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("--outputs-dir {}", dir.display()))?;
        let mut log = create(&dir.join("log.txt"))?;
        let mut timeline = create(&dir.join("timeline.html"))?;
        let mut inputs = create(&dir.join("inputs.txt"))?;
        let out = simulate::LogOut {
            log: &mut log,
            timeline: Some(&mut timeline),
            inputs: Some(&mut inputs),
        };
        simulate::simulate_scenario_logged(&args.scenario, &options, Some(out))?
    } else if let Some(path) = &args.log_out {
        let mut log = create(path)?;
        let out = simulate::LogOut {
            log: &mut log,
            timeline: None,
            inputs: None,
        };
        simulate::simulate_scenario_logged(&args.scenario, &options, Some(out))?
    } else {
        simulate::simulate_scenario(&args.scenario, &options)?
    };
    if let (Some(path), Some(outputs)) = (&args.html, &outputs_dir) {
        let trace_dir = match &html_dir {
            Some(dir) => dir.root.clone(),
            None => outputs
                .parent()
                .map(|p| p.to_path_buf())
                .unwrap_or_default(),
        };
        write_run_html(&trace_dir, args, path)?;
    }
    report.policy_reason = policy_reason;
    report.run_options_from = recorded.map(|r| r.source.display().to_string());
    if let Some(dir) = &args.trace_out {
        write_transcripts(dir, &report.transcripts)?;
        eprintln!(
            "wrote {} scheduler RPCs to {} (check them with: boinc-audit audit {})",
            report.transcripts.len() / 2,
            dir.display(),
            dir.display()
        );
    }
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

/// `START-END` in hours → (start, end) in seconds after the start of the run.
fn parse_window(text: &str) -> Result<(f64, f64)> {
    let parsed = text.split_once('-').and_then(|(a, b)| {
        let (a, b) = (a.trim().parse::<f64>().ok()?, b.trim().parse::<f64>().ok()?);
        (a.is_finite() && b.is_finite() && 0.0 <= a && a < b).then_some((a * 3600.0, b * 3600.0))
    });
    parsed.with_context(|| format!("--window {text:?}: expected START-END in hours, START < END"))
}

/// `simulate --hosts N` with a work-sequence scenario.
fn run_sequences(args: &SimulateArgs) -> Result<u8> {
    if !sequences::is_sequence_notation(&args.scenario) {
        anyhow::bail!(
            "--hosts runs work sequences: SCENARIO must be sequence notation such as \
             'SEQ(24, 72, 10) speeds=1,0.8,0.6 fail=1@48' (see docs/work-sequences.md)"
        );
    }
    let scenario = sequences::parse_sequence_scenario(&args.scenario, args.hosts)?;
    let mut rng = Rng::new(args.seed);
    let report = sequences::simulate_sequences(
        &scenario,
        args.duration.unwrap_or(DEFAULT_DURATION),
        args.delta.unwrap_or(DEFAULT_DELTA),
        &mut rng,
    )?;
    if let Some(dir) = &args.trace_out {
        write_transcripts(dir, &report.transcripts)?;
    }
    let mut out = open_output(None)?;
    match args.format {
        SimulateFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        SimulateFormat::Table => write!(out, "{}", sequences::render_table(&report))?,
    }
    out.flush()?;
    Ok(if report.rule_violations.is_empty() {
        EXIT_OK
    } else {
        super::EXIT_DIVERGED
    })
}

/// Writes (relative path, text) files under `dir`, creating folders.
fn write_transcripts(dir: &std::path::Path, files: &[(String, String)]) -> Result<()> {
    for (path, text) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// A temporary scenario folder for `--html`: a copy of the scenario's
/// inputs under `inputs/`, the run's outputs under `outputs/`.
struct HtmlDir {
    root: std::path::PathBuf,
}

impl HtmlDir {
    fn new(scenario: &str) -> Result<HtmlDir> {
        let path = std::path::Path::new(scenario);
        let inputs = if path.join("inputs").is_dir() {
            path.join("inputs")
        } else if path.is_dir() {
            path.to_path_buf()
        } else {
            anyhow::bail!("--html needs a scenario folder (its inputs are copied beside the run)");
        };
        let root =
            std::env::temp_dir().join(format!("boinc-audit-simulate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        copy_tree(&inputs, &root.join("inputs"))
            .with_context(|| format!("cannot copy {}", inputs.display()))?;
        Ok(HtmlDir { root })
    }
}

impl Drop for HtmlDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// Audits the run written under `trace_dir` with the run's policy and
/// writes its page: the simulated host's jobs per instance (simulated
/// above each lane, the replay of that log below).
fn write_run_html(
    trace_dir: &std::path::Path,
    args: &SimulateArgs,
    path: &std::path::Path,
) -> Result<()> {
    let parsed = boinc_audit::parse::load_trace(
        &[trace_dir.to_path_buf()],
        &boinc_audit::parse::LogOptions::default(),
    );
    let options = boinc_audit::replay::AuditOptions {
        params: super::params_from_overrides(&args.set)?,
        policy: (args.policy != "auto").then(|| args.policy.clone()),
        ..boinc_audit::replay::AuditOptions::default()
    };
    let mut report = boinc_audit::audit::audit_trace(&parsed.value, &args.scenario, &options)
        .context("cannot audit the simulated run for --html")?;
    report.trace = format!("simulate {}", args.scenario);
    let sides = boinc_audit::report::html::Sides {
        top: "simulated",
        bottom: "replayed",
        differ: "diverge",
    };
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
    );
    boinc_audit::report::html::write_html_with(&report, sides, &mut file)
        .and_then(|()| file.flush())
        .with_context(|| format!("cannot write {}", path.display()))
}

//! `boinc-audit bench parse|audit|simulate`: throughput, audit time and
//! simulation time on real inputs.

use super::{open_output, EXIT_OK};
use crate::cli::{BenchAuditArgs, BenchParseArgs, BenchSimulateArgs};
use anyhow::{Context, Result};
use boinc_audit::audit;
use boinc_audit::parse::{self, discover, event_log, input, LogOptions};
use boinc_audit::replay::AuditOptions;
use std::io::{self, Write};
use std::time::Instant;

pub fn run_bench_parse(args: &BenchParseArgs) -> Result<u8> {
    let (inputs, errors) = discover::discover(&args.paths);
    if let Some(err) = errors.first() {
        anyhow::bail!("{err}");
    }
    let mut one_pass = Vec::new();
    let mut kind = None;
    for found in inputs.iter().filter(|found| parse::is_log_kind(found.kind)) {
        let bytes = input::read_input(&found.path).map_err(|err| anyhow::anyhow!("{err}"))?;
        kind.get_or_insert(found.kind);
        one_pass.extend_from_slice(&bytes);
        if !one_pass.ends_with(b"\n") {
            one_pass.push(b'\n');
        }
    }
    let Some(kind) = kind else {
        anyhow::bail!("no event log found under the given paths")
    };
    let min_bytes = args.min_mb.saturating_mul(1_000_000) as usize;
    let mut log = Vec::with_capacity(min_bytes + one_pass.len());
    while log.len() < min_bytes.max(1) {
        log.extend_from_slice(&one_pass);
    }
    let path: boinc_audit::source::SourcePath = boinc_audit::source::SourcePath::from("<bench>");
    let options = LogOptions::default();
    let mut timings = Vec::new();
    let mut n_events = 0u64;
    let mut n_unrecognized = 0u64;
    for _ in 0..args.runs.max(1) {
        let mut reader = io::Cursor::new(&log[..]);
        let (mut events, mut unrecognized) = (0u64, 0u64);
        let start = Instant::now();
        let parsed = event_log::read_event_log(&path, kind, &mut reader, &options, &mut |event| {
            events += 1;
            unrecognized += u64::from(event.is_unrecognized());
        });
        timings.push(start.elapsed().as_secs_f64());
        std::hint::black_box(&parsed);
        n_events = events;
        n_unrecognized = unrecognized;
    }
    let megabytes = log.len() as f64 / 1e6;
    let (best, median) = best_and_median(&mut timings);
    outln!(
        "parsed {megabytes:.1} MB ({n_events} events, {n_unrecognized} unrecognized) in {best:.3} s best, {median:.3} s median"
    );
    outln!(
        "throughput: {:.0} MB/s best, {:.0} MB/s median (one core)",
        megabytes / best,
        megabytes / median
    );
    if args.parse_only {
        return Ok(EXIT_OK);
    }
    // The whole audit of the same bytes, as `audit LOG --format json` runs
    // it: parsed and audited session by session, totals kept.
    let audit_options = AuditOptions::default();
    let mut audit_timings = Vec::new();
    let mut summary = String::new();
    for _ in 0..args.runs.max(1) {
        let mut reader = io::Cursor::new(&log[..]);
        let start = Instant::now();
        let mut sessions = audit::Sessions::new(
            boinc_audit::trace::Trace::default(),
            "<bench>",
            &audit_options,
            audit::Keep::Totals,
        );
        let _ = event_log::read_event_log(&path, kind, &mut reader, &options, &mut |event| {
            sessions.take(event)
        });
        let report = sessions.finish();
        audit_timings.push(start.elapsed().as_secs_f64());
        summary = match std::hint::black_box(report) {
            Ok(report) => format!(
                "{} decision points, {} checked, {} divergent",
                report.n_points(),
                report.n_checked(),
                report.n_divergent()
            ),
            Err(err) => format!("no report: {err}"),
        };
    }
    let (audit_best, audit_median) = best_and_median(&mut audit_timings);
    outln!(
        "audit of the same log ({summary}): {audit_best:.3} s best, {audit_median:.3} s median: \
         {:.0} MB/s best, {:.0} MB/s median (one core)",
        megabytes / audit_best,
        megabytes / audit_median
    );
    // What any reader of these bytes pays: counting their lines, as
    // `grep -c` does (from memory here, not from the page cache).
    let mut count_timings = Vec::new();
    let mut n_lines = 0;
    for _ in 0..args.runs.max(1) {
        let start = Instant::now();
        n_lines = std::hint::black_box(memchr::memchr_iter(b'\n', &log).count());
        count_timings.push(start.elapsed().as_secs_f64());
    }
    let (count_best, _) = best_and_median(&mut count_timings);
    outln!(
        "line count ({n_lines} lines, as grep -c): {:.0} MB/s best; parse at {:.2}x and audit \
         at {:.2}x its time",
        megabytes / count_best,
        best / count_best,
        audit_best / count_best
    );
    Ok(EXIT_OK)
}

/// Sorts `timings` and gives the best and the median.
fn best_and_median(timings: &mut [f64]) -> (f64, f64) {
    timings.sort_by(f64::total_cmp);
    (timings[0], timings[timings.len() / 2])
}

/// The scenario folders under `dirs`: a folder with `inputs/` is one;
/// otherwise its sub-folders with `inputs/` are.
fn scenario_dirs(dirs: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for dir in dirs {
        if dir.join("inputs").is_dir() {
            found.push(dir.clone());
            continue;
        }
        let mut children: Vec<_> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.join("inputs").is_dir())
            .collect();
        children.sort();
        found.extend(children);
    }
    found
}

/// `Simulator CPU time: 0.121635 secs` from the emulator's summary.txt.
fn emulator_cpu_secs(dir: &std::path::Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("outputs/summary.txt")).ok()?;
    let line = text
        .lines()
        .find(|line| line.starts_with("Simulator CPU time:"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

pub fn run_bench_audit(args: &BenchAuditArgs) -> Result<u8> {
    let dirs = scenario_dirs(&args.dirs);
    if dirs.is_empty() {
        anyhow::bail!("no scenario folder (with inputs/) under the given paths");
    }
    let mut out = open_output(None)?;
    writeln!(out, "| scenario | decision points | agreement | audit (best of {}) | emulator CPU time | ratio |", args.runs.max(1))?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    for dir in &dirs {
        // The path `audit DIR` takes: streamed, totals and divergences kept.
        let (best, report) = best_of(args.runs, || {
            audit::audit_paths(
                std::slice::from_ref(dir),
                &LogOptions::default(),
                &dir.to_string_lossy(),
                &AuditOptions::default(),
                audit::Keep::Totals,
                &mut |_, _| {},
            )
            .report
            .with_context(|| format!("cannot audit {}", dir.display()))
        })?;
        let (name, emulator, ratio) = scenario_cells(dir, best, 2);
        writeln!(
            out,
            "| {name} | {} | {:.2}% | {best:.3} s | {emulator} | {ratio} |",
            report.n_points(),
            report.agreement() * 100.0,
        )?;
    }
    out.flush().context("cannot write output")?;
    Ok(EXIT_OK)
}

/// `label: VALUE` from a file of the emulator's outputs/ (results.txt).
fn emulator_value(dir: &std::path::Path, file: &str, label: &str) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("outputs").join(file)).ok()?;
    text.lines()
        .find_map(|line| line.trim().strip_prefix(label))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `bench simulate`: the closed-loop simulation of each scenario folder
/// with the emulator's run options (`simulate::scenario::recorded_run`,
/// else 2 days at 300 s), `--policy auto`, seed 1: best wall time of
/// `--runs`, beside the emulator's CPU time, and the largest difference of
/// the five figures of merit from its results.txt.
pub fn run_bench_simulate(args: &BenchSimulateArgs) -> Result<u8> {
    use boinc_audit::simulate::{self, scenario, SimOptions};
    // params: None = the emulator's (rec_adjust_period = delta, …).
    let given = args
        .client_version
        .as_deref()
        .map(|v| {
            v.parse::<boinc_audit::policy::profile::Release>()
                .map_err(|e| anyhow::anyhow!("--client-version: {e}"))
        })
        .transpose()?;
    if let Some(release) = given.filter(|r| r.0 < 7) {
        anyhow::bail!(
            "--client-version {release}: the 6.x emulators' inputs (sim_projects.xml) pick \
             their own generation; give 7.0 or later"
        );
    }
    let dirs = scenario_dirs(&args.dirs);
    if dirs.is_empty() {
        anyhow::bail!("no scenario folder (with inputs/) under the given paths");
    }
    let mut out = open_output(None)?;
    writeln!(
        out,
        "| scenario | policy | RPCs | max Δ figure vs results.txt | simulate (best of {}) | emulator CPU time | ratio |",
        args.runs.max(1)
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|")?;
    for dir in &dirs {
        let text = dir.to_string_lossy().into_owned();
        let (policy, _, release) = match given {
            Some(release) => (
                boinc_audit::policy::generation::Generation::Current,
                String::new(),
                Some(release),
            ),
            None => scenario::auto_policy(&text),
        };
        let recorded = scenario::recorded_run(&text).unwrap_or_default();
        let options = SimOptions {
            duration: recorded.duration.unwrap_or(172_800.0),
            delta: recorded.delta.unwrap_or(300.0),
            existing_jobs_only: recorded.existing_jobs_only,
            policy,
            release,
            ..SimOptions::default()
        };
        let (best, report) = best_of(args.runs, || {
            simulate::simulate_scenario(&text, &options)
                .with_context(|| format!("cannot simulate {}", dir.display()))
        })?;
        let f = &report.figures_of_merit;
        let deviation = [
            ("wasted fraction", f.wasted_fraction),
            ("Idle fraction", f.idle_fraction),
            ("Share violation", f.share_violation),
            ("Monotony", f.monotony),
            ("RPCs per job", f.rpcs_per_job),
        ]
        .iter()
        .map(|(label, ours)| {
            emulator_value(dir, "results.txt", label).map(|theirs| (ours - theirs).abs())
        })
        .collect::<Option<Vec<f64>>>()
        .map(|d| d.into_iter().fold(0.0, f64::max));
        let (name, emulator, ratio) = scenario_cells(dir, best, 2);
        writeln!(
            out,
            "| {name} | {} | {} | {} | {best:.4} s | {emulator} | {ratio} |",
            report.policy,
            report.rpcs,
            deviation.map_or("-".to_string(), |d| format!("{d:.6}")),
        )?;
    }
    out.flush().context("cannot write output")?;
    Ok(EXIT_OK)
}

/// Runs `run` `runs` times (at least once): the best wall time and the last
/// result.
fn best_of<T>(runs: u32, mut run: impl FnMut() -> Result<T>) -> Result<(f64, T)> {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        last = Some(run()?);
        best = best.min(start.elapsed().as_secs_f64());
    }
    let last = last.context("no run")?;
    Ok((best, last))
}

/// The scenario's name, the emulator's CPU time and our time's ratio to it
/// (`-` when summary.txt does not give it), ratio with `digits` decimals.
fn scenario_cells(dir: &std::path::Path, best: f64, digits: usize) -> (String, String, String) {
    let name = dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let emulator = emulator_cpu_secs(dir);
    (
        name,
        emulator.map_or("-".to_string(), |secs| format!("{secs:.3} s")),
        emulator.map_or("-".to_string(), |secs| format!("{:.digits$}x", best / secs)),
    )
}

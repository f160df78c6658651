//! The `boinc-audit` command: parse the command line, call the library, map
//! the outcome to an exit code (0 agrees, 1 divergences, 2 trouble) and print
//! `error: {:#}` on trouble. A closed output pipe exits 0.

mod cli;
mod commands;

use anyhow::{Context, Result};
use boinc_audit::audit;
use boinc_audit::golden::junit::{write_junit, JunitCase};
use boinc_audit::golden::{self, GoldenEnv, UpdateMode};
use boinc_audit::golden_suite;
use boinc_audit::parse::{self, discover, event_log, input, DateOrder, LogOptions};
use boinc_audit::policy::Params;
use boinc_audit::replay::AuditOptions;
use boinc_audit::report::params::{write_params_json, write_params_table, ParamRow};
use boinc_audit::report::parse_summary::ParseSummary;
use boinc_audit::report::{render_with, Format, RenderOptions};
use boinc_audit::simulate;
use boinc_audit::trace::LogEvent;
use clap::Parser;
use cli::{
    AuditArgs, AuditFormat, BenchAuditArgs, BenchCommand, BenchParseArgs, Cli, ColorChoice,
    Command, DateOrderArg, GoldenCheckArgs, GoldenCommand, GoldenReviewArgs, ListFormat,
    ParamsArgs, ParseArgs, ParseFormat, PolicyCommand, SimulateArgs, SimulateFormat,
};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

/// Everything agreed / parsed.
const EXIT_OK: u8 = 0;
/// Trouble: usage, I/O or parse errors.
const EXIT_TROUBLE: u8 = 2;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) if is_broken_pipe(&err) => ExitCode::from(EXIT_OK),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(EXIT_TROUBLE)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|io_err| io_err.kind() == io::ErrorKind::BrokenPipe)
}

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Parse(args) => run_parse(&args),
        Command::Audit(args) => run_audit(&args),
        Command::Golden(GoldenCommand::Check(args)) => run_golden_check(&args),
        Command::Golden(GoldenCommand::Pending(args)) => run_golden_review(&args, Review::Pending),
        Command::Golden(GoldenCommand::Accept(args)) => run_golden_review(&args, Review::Accept),
        Command::Golden(GoldenCommand::Reject(args)) => run_golden_review(&args, Review::Reject),
        Command::Policy(PolicyCommand::Params(args)) => run_policy_params(&args),
        Command::Bench(BenchCommand::Parse(args)) => run_bench_parse(&args),
        Command::Bench(BenchCommand::Audit(args)) => run_bench_audit(&args),
        Command::Simulate(args) => run_simulate(&args),
        Command::Compare(args) => commands::compare::run(&args),
    }
}

/// Divergences found.
const EXIT_DIVERGED: u8 = 1;

fn run_audit(args: &AuditArgs) -> Result<u8> {
    let params = params_from_overrides(&args.set)?;
    let format = match args.format {
        AuditFormat::Table => Format::Table,
        AuditFormat::Diff => Format::Diff,
        AuditFormat::Json => Format::Json,
        AuditFormat::Csv => Format::Csv,
        AuditFormat::Parquet => Format::Parquet,
    };
    let to_terminal = match args.output.as_deref() {
        Some(path) if path.as_os_str() != "-" => false,
        _ => io::stdout().is_terminal(),
    };
    if format.is_binary() && to_terminal {
        anyhow::bail!("refusing to write parquet to a terminal; use --output FILE or redirect standard output");
    }
    let parsed = parse::load_trace(&args.paths, &log_options(args.date_order));
    for warning in &parsed.warnings {
        eprintln!("{warning}");
    }
    if !parsed.errors.is_empty() {
        for error in &parsed.errors {
            eprintln!("{error}");
        }
        anyhow::bail!(
            "the trace has {} parse errors; fix them or run `boinc-audit parse` to see them all",
            parsed.errors.len()
        );
    }
    let trace_name = args
        .paths
        .iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let options = AuditOptions {
        params,
        tolerance: args.tolerance,
        policy: (args.policy != "auto").then(|| args.policy.clone()),
    };
    let report = audit::audit_trace(&parsed.value, &trace_name, &options)
        .context("cannot audit the trace")?;
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => to_terminal && std::env::var_os("NO_COLOR").is_none(),
    };
    let mut out = open_output(args.output.as_deref())?;
    match render_with(&report, format, &RenderOptions { color }, &mut out) {
        Err(err) if err.is_broken_pipe() => return Ok(EXIT_OK),
        result => result.context("cannot write the report")?,
    }
    out.flush().context("cannot write output")?;
    Ok(if report.n_divergent() == 0 {
        EXIT_OK
    } else {
        EXIT_DIVERGED
    })
}

fn run_golden_check(args: &GoldenCheckArgs) -> Result<u8> {
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
enum Review {
    Pending,
    Accept,
    Reject,
}

fn run_golden_review(args: &GoldenReviewArgs, review: Review) -> Result<u8> {
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

/// Applies `--set KEY=VALUE` overrides to the default parameters.
fn run_simulate(args: &SimulateArgs) -> Result<u8> {
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

fn params_from_overrides(overrides: &[String]) -> Result<Params> {
    let mut params = Params::default();
    apply_overrides(&mut params, overrides)?;
    Ok(params)
}

/// Applies `KEY=VALUE` overrides (`--set`) to `params`, in order.
fn apply_overrides(params: &mut Params, overrides: &[String]) -> Result<()> {
    for assignment in overrides {
        let (key, value) = assignment
            .split_once('=')
            .with_context(|| format!("--set {assignment:?}: expected KEY=VALUE"))?;
        params
            .set(key.trim(), value.trim())
            .with_context(|| format!("--set {assignment}"))?;
    }
    Ok(())
}

fn run_policy_params(args: &ParamsArgs) -> Result<u8> {
    let params = params_from_overrides(&args.set)?;
    let rows: Vec<ParamRow> = Params::list()
        .into_iter()
        .map(|info| {
            let value = params.get(info.key).filter(|value| *value != info.default);
            ParamRow {
                key: info.key.to_string(),
                default: info.default,
                value,
                section: info.section.to_string(),
                doc: info.doc.to_string(),
            }
        })
        .collect();
    let mut out = open_output(None)?;
    match args.format {
        ListFormat::Table => write_params_table(&rows, &mut out)?,
        ListFormat::Json => write_params_json(&rows, &mut out)?,
    }
    out.flush().context("cannot write output")?;
    Ok(EXIT_OK)
}

fn open_output(path: Option<&std::path::Path>) -> Result<Box<dyn Write>> {
    Ok(match path {
        Some(path) if path.as_os_str() != "-" => Box::new(BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        )),
        _ => Box::new(BufWriter::new(io::stdout().lock())),
    })
}

fn log_options(date_order: DateOrderArg) -> LogOptions {
    LogOptions {
        date_order: match date_order {
            DateOrderArg::Auto => DateOrder::Auto,
            DateOrderArg::DayFirst => DateOrder::DayFirst,
            DateOrderArg::MonthFirst => DateOrder::MonthFirst,
        },
    }
}

fn run_parse(args: &ParseArgs) -> Result<u8> {
    let options = log_options(args.date_order);
    let mut out = open_output(args.output.as_deref())?;
    let mut write_error: Option<io::Error> = None;
    let outcome = if args.format == ParseFormat::Ndjson {
        parse::parse_paths(&args.paths, &options, &mut |event: &LogEvent| {
            if write_error.is_none() {
                if let Err(err) = write_event(&mut out, event) {
                    write_error = Some(err);
                }
            }
        })
    } else {
        parse::parse_paths(&args.paths, &options, &mut |_| {})
    };
    if let Some(err) = write_error {
        return Err(err).context("cannot write events");
    }
    let summary = ParseSummary::new(&outcome);
    match args.format {
        ParseFormat::Json => summary.write_json(&mut out)?,
        ParseFormat::Table => {
            let problems: Vec<_> = outcome.errors.iter().chain(&outcome.warnings).collect();
            summary.write_table(&mut out, &problems)?;
        }
        ParseFormat::Ndjson => {
            // Problems go to standard error so the event stream stays clean.
            for problem in outcome.errors.iter().chain(&outcome.warnings) {
                eprintln!("{problem}");
            }
        }
    }
    out.flush().context("cannot write output")?;
    Ok(if outcome.errors.is_empty() {
        EXIT_OK
    } else {
        EXIT_TROUBLE
    })
}

fn write_event(out: &mut dyn Write, event: &LogEvent) -> io::Result<()> {
    serde_json::to_writer(&mut *out, event).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

fn run_bench_parse(args: &BenchParseArgs) -> Result<u8> {
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
    let path: std::sync::Arc<str> = std::sync::Arc::from("<bench>");
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
    timings.sort_by(f64::total_cmp);
    let megabytes = log.len() as f64 / 1e6;
    let best = timings[0];
    let median = timings[timings.len() / 2];
    println!(
        "parsed {megabytes:.1} MB ({n_events} events, {n_unrecognized} unrecognized) in {best:.3} s best, {median:.3} s median"
    );
    println!(
        "throughput: {:.0} MB/s best, {:.0} MB/s median (one core)",
        megabytes / best,
        megabytes / median
    );
    Ok(EXIT_OK)
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

fn run_bench_audit(args: &BenchAuditArgs) -> Result<u8> {
    let dirs = scenario_dirs(&args.dirs);
    if dirs.is_empty() {
        anyhow::bail!("no scenario folder (with inputs/) under the given paths");
    }
    let mut out = open_output(None)?;
    writeln!(out, "| scenario | decision points | agreement | audit (best of {}) | emulator CPU time | ratio |", args.runs.max(1))?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    for dir in &dirs {
        let mut best = f64::INFINITY;
        let mut last = None;
        for _ in 0..args.runs.max(1) {
            let start = Instant::now();
            let parsed = parse::load_trace(std::slice::from_ref(dir), &LogOptions::default());
            let report = audit::audit_trace(
                &parsed.value,
                &dir.to_string_lossy(),
                &AuditOptions::default(),
            )
            .with_context(|| format!("cannot audit {}", dir.display()))?;
            best = best.min(start.elapsed().as_secs_f64());
            last = Some(report);
        }
        let Some(report) = last else { continue };
        let name = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let emulator = emulator_cpu_secs(dir);
        writeln!(
            out,
            "| {name} | {} | {:.2}% | {best:.3} s | {} | {} |",
            report.points.len(),
            report.agreement() * 100.0,
            emulator.map_or("-".to_string(), |secs| format!("{secs:.3} s")),
            emulator.map_or("-".to_string(), |secs| format!("{:.1}x", best / secs)),
        )?;
    }
    out.flush().context("cannot write output")?;
    Ok(EXIT_OK)
}

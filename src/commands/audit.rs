//! `boinc-audit audit`: replay a trace and report the divergences.

use super::progress::Progress;
use super::{
    log_options, open_output, params_from_overrides, trace_name, EXIT_DIVERGED, EXIT_OK,
    EXIT_TROUBLE,
};
use crate::cli::{AuditArgs, AuditFormat, ColorChoice};
use anyhow::{Context, Result};
use boinc_audit::audit;
use boinc_audit::replay::AuditOptions;
use boinc_audit::report::{render_with, Format, RenderOptions};
use std::io::{self, IsTerminal, Write};

pub fn run_audit(args: &AuditArgs) -> Result<u8> {
    let format = match args.format {
        AuditFormat::Table => Format::Table,
        AuditFormat::Diff => Format::Diff,
        AuditFormat::Json => Format::Json,
        AuditFormat::Csv => Format::Csv,
        AuditFormat::Parquet => Format::Parquet,
        AuditFormat::Html => Format::Html,
        AuditFormat::ChromeTrace => Format::ChromeTrace,
        AuditFormat::Markdown => Format::Markdown,
    };
    let to_terminal = match args.output.as_deref() {
        Some(path) if path.as_os_str() != "-" => false,
        _ => io::stdout().is_terminal(),
    };
    if format.is_binary() && to_terminal {
        anyhow::bail!("refusing to write parquet to a terminal; use --output FILE or redirect standard output");
    }
    if let Some(list) = &args.fleet {
        // Each bundle states its own run options, if any.
        let options = AuditOptions {
            stated_step: None,
            ..audit_options(args)?
        };
        return super::fleet::run_fleet(list, args, &options);
    }
    let mut progress = Progress::on_stderr();
    let trace_name = trace_name(&args.paths);
    let options = audit_options(args)?;
    // The per-point reporters need every point, the timeline the host's
    // activity too; the others keep totals and divergences. Without the
    // activity a long session is read window by window: memory follows a
    // window's lines, not the log's.
    let keep = match format {
        _ if args.html.is_some() => audit::Keep::Activity,
        Format::Html | Format::ChromeTrace => audit::Keep::Activity,
        Format::Csv | Format::Parquet => audit::Keep::Points,
        Format::Table | Format::Json | Format::Diff | Format::Markdown => audit::Keep::Totals,
    };
    // A bundle (`bundle --out X.tar.gz`, or any archive) is read unpacked,
    // its paths named inside it.
    let (paths, unpacked) = super::unpack_archives(&args.paths)?;
    let parsed = audit::audit_paths(
        &paths,
        &log_options(args.date_order),
        &trace_name,
        &options,
        keep,
        &mut |pass, event| match pass {
            audit::Pass::PreScan => progress.event_labelled("pre-scanning", event),
            audit::Pass::Audit => progress.event(event),
        },
    );
    progress.finish();
    for warning in &parsed.warnings {
        eprintln!("{}", super::name_archives(warning.to_string(), &unpacked));
    }
    // An unreadable file never stops the audit of the rest: its errors
    // head the report and the exit status is 2 after it.
    for error in &parsed.errors {
        eprintln!("{}", super::name_archives(error.to_string(), &unpacked));
    }
    let mut report = match parsed.report {
        Ok(report) => report,
        Err(err) if !parsed.errors.is_empty() => {
            return Err(anyhow::anyhow!(
                "cannot audit the trace: {err} (and {} input problem(s) above)",
                parsed.errors.len()
            ))
        }
        Err(err) => return Err(err).context("cannot audit the trace"),
    };
    // The unreadable files first, then the inputs that disagree.
    let mut problems: Vec<String> = parsed.errors.iter().map(ToString::to_string).collect();
    problems.append(&mut report.input_errors);
    report.input_errors = problems;
    for (archive, name) in &unpacked {
        report = archive.relabel(report, name);
    }
    progress.finish();
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => to_terminal && std::env::var_os("NO_COLOR").is_none(),
    };
    if let Some(path) = &args.html {
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
        render_with(&report, Format::Html, &RenderOptions::default(), &mut file)
            .and_then(|()| file.flush().map_err(Into::into))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = open_output(args.output.as_deref())?;
    match render_with(&report, format, &RenderOptions { color }, &mut out) {
        Err(err) if err.is_broken_pipe() => return Ok(EXIT_OK),
        result => result.context("cannot write the report")?,
    }
    out.flush().context("cannot write output")?;
    Ok(if !report.input_errors.is_empty() {
        EXIT_TROUBLE
    } else if report.n_divergent() == 0 {
        EXIT_OK
    } else {
        EXIT_DIVERGED
    })
}

/// The audit's options from the command line.
fn audit_options(args: &AuditArgs) -> Result<AuditOptions> {
    Ok(AuditOptions {
        params: params_from_overrides(&args.set)?,
        tolerance: args.tolerance,
        policy: (args.policy != "auto").then(|| args.policy.clone()),
        client_version: args
            .client_version
            .as_deref()
            .map(|v| {
                v.parse()
                    .map_err(|e: String| anyhow::anyhow!("--client-version {e}"))
            })
            .transpose()?,
        since_changed: args.since_changed,
        user_set: boinc_audit::policy::Params::assignment_keys(&args.set),
        summary: false,
        stated_step: stated_step(&args.paths),
    })
}

/// The time step the run options beside a single scenario folder state
/// (outputs/inputs.txt, else SCENARIO.md).
fn stated_step(paths: &[std::path::PathBuf]) -> Option<(f64, String)> {
    let [path] = paths else {
        return None;
    };
    if !path.is_dir() {
        return None;
    }
    let run = boinc_audit::simulate::scenario::recorded_run(&path.to_string_lossy())?;
    Some((run.delta?, run.source.display().to_string()))
}

//! `boinc-audit audit --fleet LIST_OR_DIR`: many bundles at once, in
//! parallel, into one Parquet table and a summary on the terminal.

use crate::cli::AuditArgs;
use anyhow::{Context, Result};
use boinc_audit::fleet;
use boinc_audit::replay::AuditOptions;
use std::io::{self, IsTerminal};
use std::path::Path;

pub fn run_fleet(list: &Path, args: &AuditArgs, options: &AuditOptions) -> Result<u8> {
    let mut bundles = fleet::bundles(list)?;
    if let Some(shard) = &args.shard {
        bundles = fleet::shard(bundles, fleet::parse_shard(shard)?);
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let output = args
        .output
        .as_deref()
        .filter(|path| path.as_os_str() != "-")
        .context("--fleet writes one Parquet table: give --output FILE.parquet")?;
    write_fleet(&bundles, jobs, args, options, output)
}

#[cfg(feature = "frame")]
fn write_fleet(
    bundles: &[std::path::PathBuf],
    jobs: usize,
    args: &AuditArgs,
    options: &AuditOptions,
    output: &Path,
) -> Result<u8> {
    use super::{log_options, EXIT_DIVERGED, EXIT_OK, EXIT_TROUBLE};
    use boinc_audit::report::fleet::FleetSummary;
    use boinc_audit::report::frame::FleetWriter;
    use std::io::Write;
    let file = std::fs::File::create(output)
        .with_context(|| format!("cannot create {}", output.display()))?;
    let mut writer = FleetWriter::new(io::BufWriter::new(file))?;
    let bar = progress_bar(bundles.len() as u64);
    let mut summary = FleetSummary::default();
    let mut rows = 0usize;
    let mut write_error = None;
    fleet::audit_fleet(
        bundles,
        jobs,
        &log_options(args.date_order),
        options,
        &mut |_, bundle| {
            summary.add(&bundle);
            if write_error.is_none() {
                match writer.write_bundle(&bundle) {
                    Ok(n) => rows += n,
                    Err(err) => write_error = Some(err),
                }
            }
        },
        &mut |bundle| {
            bar.inc(1);
            bar.set_message(bundle.bundle.clone());
        },
    );
    bar.finish_and_clear();
    if let Some(err) = write_error {
        return Err(err).with_context(|| format!("cannot write {}", output.display()));
    }
    writer
        .finish()
        .with_context(|| format!("cannot write {}", output.display()))?;
    let mut out = io::stdout().lock();
    summary.write(&mut out)?;
    writeln!(
        out,
        "wrote {rows} row(s) for {} bundle(s) to {}",
        summary.bundles(),
        output.display()
    )?;
    Ok(if summary.failed() > 0 {
        EXIT_TROUBLE
    } else if summary.diverging() > 0 {
        EXIT_DIVERGED
    } else {
        EXIT_OK
    })
}

#[cfg(not(feature = "frame"))]
fn write_fleet(
    _: &[std::path::PathBuf],
    _: usize,
    _: &AuditArgs,
    _: &AuditOptions,
    _: &Path,
) -> Result<u8> {
    anyhow::bail!("--fleet writes Parquet: this build has no Parquet support; rebuild with the default `frame` feature")
}

/// A progress bar on standard error, drawn only when it is a terminal and
/// `NO_PROGRESS` is unset.
#[cfg_attr(not(feature = "frame"), allow(dead_code))]
fn progress_bar(n: u64) -> indicatif::ProgressBar {
    if !io::stderr().is_terminal() || std::env::var_os("NO_PROGRESS").is_some() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(n);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30}] {pos}/{len} bundles ({per_sec}, eta {eta}) {wide_msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

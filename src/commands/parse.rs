//! `boinc-audit parse`: what the parsers understood of the inputs.

use super::progress::Progress;
use super::{log_options, open_output, EXIT_OK, EXIT_TROUBLE};
use crate::cli::{ParseArgs, ParseFormat};
use anyhow::{Context, Result};
use boinc_audit::parse;
use boinc_audit::report::parse_summary::ParseSummary;
use boinc_audit::trace::LogEvent;
use std::io::{self, Write};

pub fn run_parse(args: &ParseArgs) -> Result<u8> {
    let options = log_options(args.date_order);
    let mut out = open_output(args.output.as_deref())?;
    let mut write_error: Option<io::Error> = None;
    let mut progress = Progress::on_stderr();
    let outcome = if args.format == ParseFormat::Ndjson {
        parse::parse_paths(&args.paths, &options, &mut |event: &LogEvent| {
            progress.event(event);
            if write_error.is_none() {
                if let Err(err) = write_event(&mut out, event) {
                    write_error = Some(err);
                }
            }
        })
    } else {
        parse::parse_paths(&args.paths, &options, &mut |event| progress.event(event))
    };
    progress.finish();
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

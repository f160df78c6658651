//! `boinc-audit explain`: why a resource sat idle or a project was not
//! asked for work at a moment.

use super::{log_options, trace_name, EXIT_DIVERGED, EXIT_OK, EXIT_TROUBLE};
use crate::cli::{ExplainArgs, ExplainFormat};
use anyhow::{Context, Result};
use boinc_audit::parse;
use boinc_audit::replay::explain::{explain, render_text, At, ExplainOptions};
use std::io::Write;

pub fn run_explain(args: &ExplainArgs) -> Result<u8> {
    let at = args
        .at
        .as_deref()
        .map(|text| text.parse::<At>().map_err(|e| anyhow::anyhow!("--at: {e}")))
        .transpose()?;
    // A bundle is read unpacked, its paths named inside it.
    let (paths, unpacked) = super::unpack_archives(&args.paths)?;
    let relabel = |text: String| super::name_archives(text, &unpacked);
    let parsed = parse::load_trace(&paths, &log_options(args.date_order));
    for warning in &parsed.warnings {
        eprintln!("{}", relabel(warning.to_string()));
    }
    // As `audit`: an unreadable file does not stop the rest; exit 2 after.
    for error in &parsed.errors {
        eprintln!("{}", relabel(error.to_string()));
    }
    let trace_name = trace_name(&args.paths);
    let options = ExplainOptions {
        at,
        resource: args.resource.clone(),
        project: args.project.clone(),
    };
    let explanation = explain(&parsed.value, &trace_name, &options);
    let mut out = std::io::stdout().lock();
    match args.format {
        ExplainFormat::Table => out.write_all(relabel(render_text(&explanation)).as_bytes()),
        ExplainFormat::Json => {
            let text = relabel(serde_json::to_string_pretty(&explanation)?);
            out.write_all(text.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
        }
    }
    .context("cannot write the explanation")?;
    Ok(if !parsed.errors.is_empty() {
        EXIT_TROUBLE
    } else if explanation.pass_time.is_some() {
        EXIT_OK
    } else {
        EXIT_DIVERGED
    })
}

//! `boinc-audit policy params` and `policy profiles`.

use super::{open_output, params_from_overrides, EXIT_OK};
use crate::cli::{ListFormat, ParamsArgs, ProfilesArgs};
use anyhow::{Context, Result};
use boinc_audit::policy::Params;
use boinc_audit::report::params::{write_params_json, write_params_table, ParamRow};
use std::io::Write;

pub fn run_policy_params(args: &ParamsArgs) -> Result<u8> {
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

pub fn run_policy_profiles(args: &ProfilesArgs) -> Result<u8> {
    let profiles = boinc_audit::policy::profile::profiles();
    let defaults = Params::default();
    let mut out = open_output(None)?;
    match args.format {
        ListFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &profiles).context("cannot write output")?;
            writeln!(out)?;
        }
        ListFormat::Table => {
            for profile in &profiles {
                writeln!(
                    out,
                    "{}  (generation {}; releases {})",
                    profile.name, profile.generation, profile.releases
                )?;
                writeln!(out, "  source: {}", profile.source)?;
                if !profile.changes.is_empty() {
                    writeln!(out, "  differs from the newer profile in:")?;
                }
                for change in &profile.changes {
                    let today = defaults.get(change.key).unwrap_or_default();
                    writeln!(
                        out,
                        "  - {} = {} (from {} on: {today})",
                        change.key,
                        change.before,
                        change.since.first_label()
                    )?;
                    writeln!(out, "    function: {}", change.function)?;
                    writeln!(out, "    change:   {}", change.change)?;
                    writeln!(out, "    rule:     {}", change.rule)?;
                }
                writeln!(out)?;
            }
        }
    }
    out.flush().context("cannot write output")?;
    Ok(EXIT_OK)
}

/// `policy changes`: the release catalogue beyond the replayed rules.
pub fn run_policy_changes(args: &ProfilesArgs) -> Result<u8> {
    use boinc_audit::replay::release_notes::NOTED_CHANGES;
    let mut out = open_output(None)?;
    match args.format {
        ListFormat::Json => {
            let rows: Vec<serde_json::Value> = NOTED_CHANGES
                .iter()
                .map(|c| {
                    serde_json::json!({
                        "change": c.change,
                        "function": c.function,
                        "differs_from": c.differs.0.to_string(),
                        "first_as_today": c.differs.1.first_label(),
                        "rule": c.rule,
                        "lines": c.lines,
                    })
                })
                .collect();
            serde_json::to_writer_pretty(&mut out, &rows).context("cannot write output")?;
            writeln!(out)?;
        }
        ListFormat::Table => {
            for c in NOTED_CHANGES {
                writeln!(
                    out,
                    "{} up to {}: {}",
                    c.differs.0,
                    c.differs.1.first_label(),
                    c.change
                )?;
                writeln!(out, "  function: {}", c.function)?;
                writeln!(out, "  rule:     {}", c.rule)?;
                writeln!(out, "  shown by: {}", c.lines)?;
                writeln!(out)?;
            }
        }
    }
    out.flush().context("cannot write output")?;
    Ok(EXIT_OK)
}

//! `boinc-audit policy params`.

use super::{open_output, params_from_overrides, EXIT_OK};
use crate::cli::{ListFormat, ParamsArgs};
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

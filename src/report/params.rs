//! What `boinc-audit policy params` prints: every overridable policy constant
//! with its default and the spec section that defines it.

use comfy_table::{presets, ContentArrangement, Table};
use serde::Serialize;
use std::io::{self, Write};

/// One overridable constant, as plain text (the caller converts from the
/// engine's registry, so this module stays independent of the engine).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParamRow {
    /// The key of `--set KEY=VALUE`.
    pub key: String,
    /// The default value.
    pub default: String,
    /// The value in effect, when it differs from the default (after `--set`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The spec section (policy-current.md) that defines it.
    pub section: String,
    /// One sentence of documentation.
    pub doc: String,
}

/// Writes the rows as a fixed-width table.
pub fn write_params_table(rows: &[ParamRow], out: &mut dyn Write) -> io::Result<()> {
    let mut table = Table::new();
    table
        .load_preset(presets::ASCII_MARKDOWN)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(140)
        .set_header(vec!["key", "default", "value", "section", "meaning"]);
    for row in rows {
        table.add_row(vec![
            row.key.as_str(),
            row.default.as_str(),
            row.value.as_deref().unwrap_or(""),
            row.section.as_str(),
            row.doc.as_str(),
        ]);
    }
    writeln!(out, "{table}")
}

/// Writes the rows as a JSON array.
pub fn write_params_json(rows: &[ParamRow], out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, rows).map_err(io::Error::other)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_json_name_every_key() {
        let rows = vec![ParamRow {
            key: "rec_half_life_days".into(),
            default: "0".into(),
            value: Some("1".into()),
            section: "§1".into(),
            doc: "half-life".into(),
        }];
        let mut table = Vec::new();
        write_params_table(&rows, &mut table).expect("write table");
        let table = String::from_utf8_lossy(&table);
        assert!(
            table.contains("rec_half_life_days") && table.contains("§1"),
            "{table}"
        );
        let mut json = Vec::new();
        write_params_json(&rows, &mut json).expect("write json");
        let json: serde_json::Value = serde_json::from_slice(&json).expect("valid json");
        assert_eq!(json[0]["key"], "rec_half_life_days");
        assert_eq!(json[0]["value"], "1");
    }
}

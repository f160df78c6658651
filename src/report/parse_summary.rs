//! What `boinc-audit parse` reports: per file its kind, lines, typed and
//! unrecognized messages, and every problem found.

use crate::parse::{FileSummary, ParseError, ParseOutcome};
use crate::trace::TraceMeta;
use comfy_table::{presets, Cell, CellAlignment, Table};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// One problem, flattened for machine-readable output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProblemRow {
    /// The input file.
    pub path: String,
    /// 1-based line (0 = the whole file).
    pub line: u32,
    /// 1-based column (0 = the whole line).
    pub column: u32,
    /// What is wrong, as in the rendered message.
    pub message: String,
}

impl From<&ParseError> for ProblemRow {
    fn from(problem: &ParseError) -> Self {
        ProblemRow {
            path: problem.location.path.to_string(),
            line: problem.location.line,
            column: problem.location.column,
            message: problem.kind.to_string(),
        }
    }
}

/// The JSON contract of `boinc-audit parse --format json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParseSummary {
    /// One entry per input file, in reading order.
    pub files: Vec<FileSummary>,
    /// Lines read over all log files.
    pub lines: u64,
    /// Typed log messages over all files.
    pub typed: u64,
    /// Unrecognized log messages over all files.
    pub unrecognized: u64,
    /// Unrecognized messages by tag over all files.
    pub unrecognized_by_tag: BTreeMap<String, u64>,
    /// Facts learnt about the recording.
    pub meta: TraceMeta,
    /// Problems that make the trace incomplete.
    pub errors: Vec<ProblemRow>,
    /// Problems that do not.
    pub warnings: Vec<ProblemRow>,
}

impl ParseSummary {
    /// Summarises a parse outcome.
    pub fn new(outcome: &ParseOutcome) -> Self {
        let mut unrecognized_by_tag: BTreeMap<String, u64> = BTreeMap::new();
        for file in &outcome.files {
            for (tag, count) in &file.unrecognized_by_tag {
                *unrecognized_by_tag.entry(tag.clone()).or_default() += count;
            }
        }
        ParseSummary {
            lines: outcome.files.iter().map(|file| file.lines).sum(),
            typed: outcome.files.iter().map(|file| file.typed).sum(),
            unrecognized: outcome.files.iter().map(|file| file.unrecognized).sum(),
            unrecognized_by_tag,
            files: outcome.files.clone(),
            meta: outcome.trace.meta.clone(),
            errors: outcome.errors.iter().map(ProblemRow::from).collect(),
            warnings: outcome.warnings.iter().map(ProblemRow::from).collect(),
        }
    }

    /// Writes the summary as one JSON object.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self).map_err(io::Error::other)?;
        writeln!(out)
    }

    /// Writes the summary as a table (fixed width, no styling), then the problems.
    pub fn write_table(&self, out: &mut dyn Write, problems: &[&ParseError]) -> io::Result<()> {
        let mut table = Table::new();
        table.load_preset(presets::ASCII_MARKDOWN).set_width(120);
        table.set_header(vec![
            "file",
            "kind",
            "lines",
            "typed",
            "unrecognized",
            "unrecognized by tag",
        ]);
        for file in &self.files {
            table.add_row(vec![
                Cell::new(file.path),
                Cell::new(kind_name(file)),
                Cell::new(file.lines).set_alignment(CellAlignment::Right),
                Cell::new(file.typed).set_alignment(CellAlignment::Right),
                Cell::new(file.unrecognized).set_alignment(CellAlignment::Right),
                Cell::new(by_tag_text(&file.unrecognized_by_tag)),
            ]);
        }
        writeln!(out, "{table}")?;
        writeln!(
            out,
            "{} files, {} lines, {} typed, {} unrecognized, {} errors, {} warnings",
            self.files.len(),
            self.lines,
            self.typed,
            self.unrecognized,
            self.errors.len(),
            self.warnings.len()
        )?;
        for problem in problems {
            writeln!(out, "{problem}")?;
        }
        Ok(())
    }
}

fn kind_name(file: &FileSummary) -> String {
    serde_json::to_value(file.kind)
        .ok()
        .and_then(|value| value.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn by_tag_text(by_tag: &BTreeMap<String, u64>) -> String {
    by_tag
        .iter()
        .map(|(tag, count)| format!("{tag}: {count}"))
        .collect::<Vec<_>>()
        .join(", ")
}

//! CSV and Parquet reports: one row per decision point, to load in a notebook
//! (`pl.read_parquet(...)`, `pd.read_csv(...)`).
//!
//! Columns, in order:
//!
//! | column          | type          | meaning                                        |
//! |-----------------|---------------|------------------------------------------------|
//! | `time`          | f64           | seconds on the trace's time base               |
//! | `time_label`    | string        | the time as the log printed it                 |
//! | `kind`          | string        | the decision kind (snake_case)                 |
//! | `project`       | string, null  | the project concerned                          |
//! | `resource`      | string, null  | the resource concerned                         |
//! | `recorded`      | string        | the recorded decision                          |
//! | `replayed`      | string        | the replayed decision                          |
//! | `agrees`        | bool          | true when the replay agrees                    |
//! | `checked`       | bool          | false when the replay could not recompute it   |
//! | `n_divergences` | u64           | divergences at this point                      |
//! | `path`          | string, null  | the input holding the recorded decision        |
//! | `line`          | u32, null     | its 1-based line (null when unknown)           |
//! | `basis`         | string, null  | what the check rested on: the rule and figures, with each interval carried (`± x`); null when not checked |
//!
//! A fleet audit ([`FleetWriter`], `audit --fleet`) writes one Parquet table
//! for all its bundles: the columns above but `basis` preceded by `bundle`, `host`,
//! `client_version`, `policy`, `release` and `error` (string, null), one
//! row per decision point (none for a bundle with none), and one row with
//! only the bundle's columns and `error` for a bundle that could not be
//! audited.
//!
//! Architecture Invariant: report consumes DivergenceReport (and a fleet's
//! BundleReports) and nothing else. This is the only module that uses
//! polars; its errors leave it as text. A single report's frame is encoded
//! in memory and then written, so a failing output is an I/O error like in
//! every other renderer; the fleet's table is written in row groups as bundles finish.

use crate::divergence::{BundleReport, DecisionPoint, DivergenceReport};
use crate::report::ReportError;
use polars::io::parquet::write::BatchedWriter;
use polars::prelude::{
    Column, CsvWriter, DataFrame, NamedFrom, ParquetCompression, ParquetWriter, PolarsError,
    SerWriter, Series,
};
use std::io::Write;

/// The decision points of `report` as a polars frame (columns as in the module docs).
fn decision_frame(report: &DivergenceReport) -> Result<DataFrame, PolarsError> {
    let mut columns = decision_columns(&report.points);
    let basis: Vec<Option<&str>> = (report.points.iter())
        .map(|p| Some(p.basis.as_str()).filter(|b| !b.is_empty()))
        .collect();
    columns.push(Series::new("basis".into(), basis).into());
    DataFrame::new(report.points.len(), columns)
}

/// The columns of `points` shared by a report's and a fleet's tables (as in
/// the module docs).
fn decision_columns(points: &[DecisionPoint]) -> Vec<Column> {
    let strings = |pick: fn(&crate::divergence::DecisionPoint) -> &str| {
        points.iter().map(pick).collect::<Vec<&str>>()
    };
    let optional_strings = |pick: fn(&crate::divergence::DecisionPoint) -> Option<&str>| {
        points.iter().map(pick).collect::<Vec<Option<&str>>>()
    };
    let times: Vec<f64> = points.iter().map(|point| point.time).collect();
    let agrees: Vec<bool> = points.iter().map(|point| point.agrees()).collect();
    let checked: Vec<bool> = points.iter().map(|point| point.checked).collect();
    let n_divergences: Vec<u64> = points
        .iter()
        .map(|point| u64::try_from(point.n_divergences).unwrap_or(u64::MAX))
        .collect();
    let lines: Vec<Option<u32>> = points
        .iter()
        .map(|point| {
            point
                .location
                .as_ref()
                .map(|location| location.line)
                .filter(|line| *line > 0)
        })
        .collect();
    let columns: Vec<Column> = vec![
        Series::new("time".into(), times).into(),
        Series::new("time_label".into(), strings(|point| &point.time_label)).into(),
        Series::new("kind".into(), strings(|point| point.kind.name())).into(),
        Series::new(
            "project".into(),
            optional_strings(|point| point.project.as_deref()),
        )
        .into(),
        Series::new(
            "resource".into(),
            optional_strings(|point| point.resource.as_deref()),
        )
        .into(),
        Series::new("recorded".into(), strings(|point| &point.recorded)).into(),
        Series::new("replayed".into(), strings(|point| &point.replayed)).into(),
        Series::new("agrees".into(), agrees).into(),
        Series::new("checked".into(), checked).into(),
        Series::new("n_divergences".into(), n_divergences).into(),
        Series::new(
            "path".into(),
            optional_strings(|point| point.location.as_ref().map(|location| &*location.path)),
        )
        .into(),
        Series::new("line".into(), lines).into(),
    ];
    columns
}

/// The rows of one fleet bundle: its columns, then its decision points'.
fn bundle_frame(bundle: &BundleReport) -> Result<DataFrame, PolarsError> {
    let (points, error, policy, release) = match &bundle.outcome {
        Ok(report) => (
            report.points.as_slice(),
            None,
            Some(report.policy.as_str()),
            report.release.as_deref(),
        ),
        Err(error) => (&[][..], Some(error.as_str()), None, None),
    };
    // A bundle that could not be audited is one row (its error); one that
    // was audited has a row per decision point, none when it had none.
    let height = if error.is_some() { 1 } else { points.len() };
    fn repeat(value: Option<&str>, height: usize) -> Vec<Option<&str>> {
        vec![value; height]
    }
    let mut columns: Vec<Column> = vec![
        Series::new("bundle".into(), repeat(Some(&bundle.bundle), height)).into(),
        Series::new("host".into(), repeat(bundle.host.as_deref(), height)).into(),
        Series::new(
            "client_version".into(),
            repeat(bundle.client_version.as_deref(), height),
        )
        .into(),
        Series::new("policy".into(), repeat(policy, height)).into(),
        Series::new("release".into(), repeat(release, height)).into(),
        Series::new("error".into(), repeat(error, height)).into(),
    ];
    if error.is_some() {
        columns.extend(
            decision_columns(&[])
                .iter()
                .map(|c| Column::full_null(c.name().clone(), 1, c.dtype())),
        );
    } else {
        columns.extend(decision_columns(points));
    }
    let mut frame = DataFrame::new(height, columns)?;
    frame.align_chunks_par();
    Ok(frame)
}

/// Rows gathered before a fleet table's row group is written: a few MB of
/// rows, so that the footer (one entry per row group and column, with each
/// column's minimum and maximum) stays small however many bundles there
/// are, while memory holds a row group's rows, not the fleet's.
const FLEET_ROW_GROUP_ROWS: usize = 16_384;

/// One Parquet table for a whole fleet audit, written as bundles finish in
/// row groups of whole bundles, each closed once it holds at least
/// [`FLEET_ROW_GROUP_ROWS`] rows: memory holds one row group's rows, not
/// the fleet's.
pub struct FleetWriter<W: Write> {
    writer: BatchedWriter<W>,
    /// Rows not written yet (whole bundles).
    pending: Option<DataFrame>,
    rows: u64,
}

impl<W: Write> FleetWriter<W> {
    /// A table on `out` (zstd-compressed), with the columns of the module docs.
    pub fn new(out: W) -> Result<Self, ReportError> {
        let empty = bundle_frame(&BundleReport {
            bundle: String::new(),
            host: None,
            client_version: None,
            outcome: Err(String::new()),
        })
        .map_err(frame_error("parquet"))?;
        let writer = ParquetWriter::new(out)
            .with_compression(ParquetCompression::Zstd(None))
            .batched(empty.schema())
            .map_err(frame_error("parquet"))?;
        Ok(FleetWriter {
            writer,
            pending: None,
            rows: 0,
        })
    }

    /// Appends the rows of `bundle`; returns how many.
    pub fn write_bundle(&mut self, bundle: &BundleReport) -> Result<usize, ReportError> {
        let frame = bundle_frame(bundle).map_err(frame_error("parquet"))?;
        let height = frame.height();
        self.rows += height as u64;
        let pending = match self.pending.as_mut() {
            Some(pending) => {
                pending.vstack_mut(&frame).map_err(frame_error("parquet"))?;
                pending
            }
            None => self.pending.insert(frame),
        };
        if pending.height() >= FLEET_ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(height)
    }

    /// Writes the pending rows as one row group.
    fn flush(&mut self) -> Result<(), ReportError> {
        if let Some(mut pending) = self.pending.take() {
            pending.rechunk_mut();
            self.writer
                .write_batch(&pending)
                .map_err(frame_error("parquet"))?;
        }
        Ok(())
    }

    /// Closes the table; returns the rows written.
    pub fn finish(mut self) -> Result<u64, ReportError> {
        self.flush()?;
        self.writer.finish().map_err(frame_error("parquet"))?;
        Ok(self.rows)
    }
}

fn frame_error(format: &'static str) -> impl Fn(PolarsError) -> ReportError {
    move |error| ReportError::Frame {
        format,
        message: error.to_string(),
    }
}

/// Writes the decision points of `report` as CSV with a header row.
pub fn write_csv(report: &DivergenceReport, out: &mut dyn Write) -> Result<(), ReportError> {
    let mut frame = decision_frame(report).map_err(frame_error("csv"))?;
    let mut buffer = Vec::new();
    CsvWriter::new(&mut buffer)
        .include_header(true)
        .finish(&mut frame)
        .map_err(frame_error("csv"))?;
    out.write_all(&buffer)?;
    Ok(())
}

/// Writes the decision points of `report` as a Parquet file (zstd-compressed).
pub fn write_parquet(report: &DivergenceReport, out: &mut dyn Write) -> Result<(), ReportError> {
    let mut frame = decision_frame(report).map_err(frame_error("parquet"))?;
    let mut buffer = Vec::new();
    ParquetWriter::new(&mut buffer)
        .with_compression(ParquetCompression::Zstd(None))
        .finish(&mut frame)
        .map_err(frame_error("parquet"))?;
    out.write_all(&buffer)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;
    use polars::prelude::{AnyValue, DataType, ParquetReader, SerReader};
    use std::io::Cursor;

    const COLUMNS: [&str; 13] = [
        "time",
        "time_label",
        "kind",
        "project",
        "resource",
        "recorded",
        "replayed",
        "agrees",
        "checked",
        "n_divergences",
        "path",
        "line",
        "basis",
    ];

    #[test]
    fn csv_one_row_per_point() {
        let mut report = sample_report();
        report.points[3].project = None;
        report.points[3].location = None;
        report.points[1].basis = "the loop's shortfall 12.00 ± 1.65 s, the printed reasons".into();
        let mut out = Vec::new();
        write_csv(&report, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert_eq!(lines[0], COLUMNS.join(","));
        assert_eq!(
            lines[2],
            "3660.0,01:01:00,work_fetch_choice,Einstein@Home,CPU,fetch SETI@home,fetch Einstein@Home,false,true,2,trace/stdoutdae.txt,12,\
             \"the loop's shortfall 12.00 ± 1.65 s, the printed reasons\""
        );
        assert_eq!(
            lines[4],
            "3780.0,01:03:00,run_list,,CPU,run c,run c,true,true,0,,,"
        );
    }

    #[test]
    fn parquet_reads_back() {
        let report = sample_report();
        let mut out = Vec::new();
        write_parquet(&report, &mut out).unwrap();
        assert!(out.starts_with(b"PAR1"));
        let frame = ParquetReader::new(Cursor::new(out)).finish().unwrap();
        assert_eq!(frame.height(), 4);
        let names: Vec<&str> = frame
            .get_column_names()
            .into_iter()
            .map(|name| name.as_str())
            .collect();
        assert_eq!(names, COLUMNS);
        let dtype = |name: &str| frame.column(name).unwrap().dtype().clone();
        assert_eq!(dtype("time"), DataType::Float64);
        assert_eq!(dtype("kind"), DataType::String);
        assert_eq!(dtype("agrees"), DataType::Boolean);
        assert_eq!(dtype("n_divergences"), DataType::UInt64);
        assert_eq!(dtype("line"), DataType::UInt32);
        let value =
            |name: &str, row: usize| frame.column(name).unwrap().get(row).unwrap().into_static();
        assert_eq!(value("time", 1), AnyValue::Float64(3660.0));
        assert_eq!(
            value("kind", 1),
            AnyValue::StringOwned("work_fetch_choice".into())
        );
        assert_eq!(
            value("replayed", 1),
            AnyValue::StringOwned("fetch Einstein@Home".into())
        );
        assert_eq!(value("agrees", 1), AnyValue::Boolean(false));
        assert_eq!(value("agrees", 0), AnyValue::Boolean(true));
        assert_eq!(value("n_divergences", 1), AnyValue::UInt64(2));
        assert_eq!(value("line", 1), AnyValue::UInt32(12));
    }

    #[test]
    fn fleet_table_has_a_row_per_point_and_per_failed_bundle() {
        let report = sample_report();
        let bundles = [
            BundleReport {
                bundle: "a".into(),
                host: Some("host-a".into()),
                client_version: Some("7.20.5".into()),
                outcome: Ok(report.clone()),
            },
            BundleReport {
                bundle: "broken.tar.gz".into(),
                host: None,
                client_version: None,
                outcome: Err("cannot unpack: unexpected end of file".into()),
            },
        ];
        let mut out = Vec::new();
        let mut writer = FleetWriter::new(&mut out).unwrap();
        let rows: usize = bundles
            .iter()
            .map(|b| writer.write_bundle(b).unwrap())
            .sum();
        assert_eq!(writer.finish().unwrap(), rows as u64);
        let frame = ParquetReader::new(Cursor::new(out)).finish().unwrap();
        assert_eq!(frame.height(), report.points.len() + 1);
        let names: Vec<&str> = frame
            .get_column_names()
            .into_iter()
            .map(|name| name.as_str())
            .collect();
        let mut expected = vec![
            "bundle",
            "host",
            "client_version",
            "policy",
            "release",
            "error",
        ];
        // A fleet's rows leave out each point's basis (long text, per row).
        expected.extend(&COLUMNS[..COLUMNS.len() - 1]);
        assert_eq!(names, expected);
        let value =
            |name: &str, row: usize| frame.column(name).unwrap().get(row).unwrap().into_static();
        let last = frame.height() - 1;
        assert_eq!(
            value("bundle", last),
            AnyValue::StringOwned("broken.tar.gz".into())
        );
        assert_eq!(
            value("error", last),
            AnyValue::StringOwned("cannot unpack: unexpected end of file".into())
        );
        assert_eq!(value("time", last), AnyValue::Null);
        assert_eq!(value("host", 0), AnyValue::StringOwned("host-a".into()));
        assert_eq!(value("policy", 0), AnyValue::StringOwned("current".into()));
        assert_eq!(value("error", 0), AnyValue::Null);
        assert_eq!(value("time", 1), AnyValue::Float64(3660.0));
    }

    #[test]
    fn empty_report_gives_header_only() {
        let mut out = Vec::new();
        write_csv(&DivergenceReport::default(), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("{}\n", COLUMNS.join(","))
        );
        let mut out = Vec::new();
        write_parquet(&DivergenceReport::default(), &mut out).unwrap();
        let frame = ParquetReader::new(Cursor::new(out)).finish().unwrap();
        assert_eq!(frame.height(), 0);
        assert_eq!(frame.width(), COLUMNS.len());
    }
}

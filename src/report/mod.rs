//! Renderers: turn neutral result models into bytes.
//!
//! [`render`] writes a [`DivergenceReport`] in one of five [`Format`]s, one
//! file per output: `table.rs` (the default, for people), `diff.rs` (recorded
//! vs replayed timelines), `json.rs` (the JSON contract scripts rely on) and
//! `frame.rs` (CSV and Parquet, one row per decision point, for notebooks).
//! `timeline.rs` holds the one-line form of a decision point that the diff
//! and the golden decision timelines share. `parse_summary.rs` reports what
//! `boinc-audit parse` found.
//!
//! Architecture Invariant: report consumes DivergenceReport and nothing else
//! (and the [`parse_summary::ParseSummary`] for `parse`). Renderers write
//! bytes: they do not parse inputs, run the policy, look at the terminal or
//! choose exit codes. Numbers are formatted with [`crate::golden::fixed`] so
//! that the text outputs are byte-stable. comfy-table, similar and
//! serde_json are used here (similar also in `golden`); polars only in
//! `frame.rs`.

pub mod chrome_trace;
pub mod compare;
pub mod diff;
pub mod fleet;
#[cfg(feature = "frame")]
pub mod frame;
pub mod html;
pub mod json;
pub mod lanes;
pub mod markdown;
pub mod params;
pub mod parse_summary;
pub mod table;
pub mod timeline;

use crate::divergence::DivergenceReport;
use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;

/// The output formats of an audit report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// The first divergence, counts by kind, policy and agreement, for people.
    #[default]
    Table,
    /// Recorded vs replayed decision timelines as a unified diff.
    Diff,
    /// One JSON object (see [`json`] for the contract).
    Json,
    /// One CSV row per decision point.
    Csv,
    /// One Parquet row per decision point (binary: the caller refuses to
    /// write it to a terminal).
    Parquet,
    /// One self-contained HTML page: summary, per-instance timeline,
    /// REC charts, divergence table (see [`html`]).
    Html,
    /// The Chrome trace-event JSON that Perfetto opens (see [`chrome_trace`]).
    ChromeTrace,
    /// A report made for posting in a forum or an issue (see [`markdown`]).
    Markdown,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 8] = [
        Format::Table,
        Format::Diff,
        Format::Json,
        Format::Csv,
        Format::Parquet,
        Format::Html,
        Format::ChromeTrace,
        Format::Markdown,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Diff => "diff",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Parquet => "parquet",
            Format::Html => "html",
            Format::ChromeTrace => "chrome-trace",
            Format::Markdown => "markdown",
        }
    }

    /// True when the output is binary and must not go to a terminal.
    pub fn is_binary(self) -> bool {
        matches!(self, Format::Parquet)
    }

    /// True when this build can write the format (CSV and Parquet need the
    /// default `frame` feature).
    pub fn is_available(self) -> bool {
        cfg!(feature = "frame") || !matches!(self, Format::Csv | Format::Parquet)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = ReportError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|format| format.name() == name)
            .ok_or_else(|| ReportError::UnknownFormat {
                name: name.to_string(),
            })
    }
}

/// Settings of the text renderers that do not change what is reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Emphasise headings and the recorded/replayed values with ANSI colours
    /// (the caller decides, from `--color` and whether the output is a terminal).
    pub color: bool,
}

/// What goes wrong when rendering a report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The output could not be written (a broken pipe included: see
    /// [`ReportError::is_broken_pipe`]).
    #[error("cannot write the report: {0}")]
    Io(#[from] io::Error),
    /// The report could not be encoded as JSON.
    #[error("cannot encode the report as json: {0}")]
    Json(#[from] serde_json::Error),
    /// The CSV or Parquet writer failed.
    #[error("cannot write the report as {format}: {message}")]
    Frame {
        /// `csv` or `parquet`.
        format: &'static str,
        /// What the writer said.
        message: String,
    },
    /// A format name that is not one of table, diff, json, csv, parquet.
    #[error(
        "unknown report format \"{name}\", expected one of table, diff, json, csv, parquet, html, chrome-trace"
    )]
    UnknownFormat {
        /// The name given.
        name: String,
    },
}

impl ReportError {
    /// True when the reader went away (the binary exits 0 then).
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            ReportError::Io(error) => error.kind() == io::ErrorKind::BrokenPipe,
            ReportError::Json(error) => error.io_error_kind() == Some(io::ErrorKind::BrokenPipe),
            ReportError::Frame { .. } | ReportError::UnknownFormat { .. } => false,
        }
    }
}

/// Writes `report` to `out` in `format`, without colour.
pub fn render(
    report: &DivergenceReport,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ReportError> {
    render_with(report, format, &RenderOptions::default(), out)
}

/// Writes `report` to `out` in `format` with `options`.
pub fn render_with(
    report: &DivergenceReport,
    format: Format,
    options: &RenderOptions,
    out: &mut dyn Write,
) -> Result<(), ReportError> {
    match format {
        Format::Table => table::write_table(report, options.color, out)?,
        Format::Diff => diff::write_diff(report, options.color, out)?,
        Format::Json => json::write_json(report, out)?,
        Format::Html => html::write_html(report, out)?,
        Format::ChromeTrace => chrome_trace::write_chrome_trace(report, out)?,
        Format::Markdown => markdown::write_markdown(report, out)?,
        #[cfg(feature = "frame")]
        Format::Csv => frame::write_csv(report, out)?,
        #[cfg(feature = "frame")]
        Format::Parquet => frame::write_parquet(report, out)?,
        #[cfg(not(feature = "frame"))]
        Format::Csv | Format::Parquet => return Err(ReportError::Frame {
            format: format.name(),
            message:
                "this build has no CSV/Parquet support; rebuild with the default `frame` feature"
                    .to_string(),
        }),
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::divergence::{DecisionKind, DecisionPoint, Divergence, Unchecked};
    use crate::source::Location;

    /// A small report: four decision points, one divergent (with two
    /// divergences), one unchecked item.
    pub(crate) fn sample_report() -> DivergenceReport {
        let location = |line| Some(Location::new("trace/stdoutdae.txt".into(), line, 0));
        let point = |time: f64,
                     label: &str,
                     kind,
                     project: Option<&str>,
                     recorded: &str,
                     replayed: &str,
                     n_divergences,
                     line| DecisionPoint {
            time,
            time_label: label.into(),
            kind,
            project: project.map(str::to_string),
            resource: Some("CPU".into()),
            recorded: recorded.into(),
            replayed: replayed.into(),
            n_divergences,
            checked: true,
            location: location(line),
            basis: String::new(),
        };
        let divergence = |field: &str, recorded: &str, replayed: &str, tolerance| Divergence {
            time: 3660.0,
            time_label: "01:01:00".into(),
            kind: DecisionKind::WorkFetchChoice,
            project: Some("Einstein@Home".into()),
            resource: Some("CPU".into()),
            job: None,
            field: field.into(),
            recorded: recorded.into(),
            replayed: replayed.into(),
            tolerance,
            reason: "Einstein@Home has the highest priority (-0.12 > -0.50)".into(),
            location: location(12),
        };
        DivergenceReport {
            trace: "traces/valid/cpu-fetch".into(),
            policy: "current".into(),
            policy_reason: "client version 8.0.2 seen in the log".into(),
            release: Some("8.0.2".into()),
            since_changed: None,
            folded: Vec::new(),
            points: vec![
                point(
                    3600.0,
                    "01:00:00",
                    DecisionKind::RunList,
                    Some("SETI@home"),
                    "run a b",
                    "run a b",
                    0,
                    10,
                ),
                point(
                    3660.0,
                    "01:01:00",
                    DecisionKind::WorkFetchChoice,
                    Some("Einstein@Home"),
                    "fetch SETI@home",
                    "fetch Einstein@Home",
                    2,
                    12,
                ),
                point(
                    3720.0,
                    "01:02:00",
                    DecisionKind::RunList,
                    Some("SETI@home"),
                    "run a c",
                    "run a c",
                    0,
                    14,
                ),
                point(
                    3780.0,
                    "01:03:00",
                    DecisionKind::RunList,
                    Some("SETI@home"),
                    "run c",
                    "run c",
                    0,
                    16,
                ),
            ],
            divergences: vec![
                divergence("chosen_project", "SETI@home", "Einstein@Home", None),
                divergence("req_secs", "8640.000", "4320.000", Some(0.001)),
            ],
            unchecked: vec![Unchecked {
                what: "rr_sim".into(),
                why: "the log has no rr_sim_debug lines".into(),
            }],
            rested_on: Vec::new(),
            first_context: vec![
                "01:00:59 [SETI@home] [work_fetch] backoff 60 s".into(),
                "01:01:00 [---] [work_fetch] choose_project: scanning".into(),
            ],
            input_errors: Vec::new(),
            activity: Default::default(),
            contexts: Vec::new(),
        }
    }

    #[test]
    fn format_names_round_trip() {
        for format in Format::ALL {
            assert_eq!(format.name().parse::<Format>().ok(), Some(format));
        }
        assert!(Format::Parquet.is_binary() && !Format::Csv.is_binary());
        let error = "xml".parse::<Format>().unwrap_err();
        assert!(error.to_string().contains("\"xml\""));
    }

    #[test]
    fn every_format_renders() {
        let report = sample_report();
        for format in Format::ALL
            .into_iter()
            .filter(|format| format.is_available())
        {
            let mut out = Vec::new();
            render(&report, format, &mut out).unwrap();
            assert!(!out.is_empty(), "{format} wrote nothing");
        }
        let mut out = Vec::new();
        render(&DivergenceReport::default(), Format::Table, &mut out).unwrap();
        assert!(!out.is_empty());
    }

    #[test]
    fn broken_pipe_is_recognised() {
        let error = ReportError::from(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(error.is_broken_pipe());
    }
}

#[cfg(test)]
mod no_panic {
    use super::*;
    use crate::divergence::{DecisionKind, DecisionPoint, Divergence, Unchecked};
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![any::<String>(), "[a-z \\n\\r\\t|,\"<>&\\x1b-]{0,12}"]
    }

    fn number() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>(),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(-0.0)
        ]
    }

    fn report() -> impl Strategy<Value = DivergenceReport> {
        let point = (
            number(),
            text(),
            proptest::option::of(text()),
            text(),
            text(),
            0usize..4,
        )
            .prop_map(
                |(time, label, project, recorded, replayed, n_divergences)| DecisionPoint {
                    time,
                    time_label: label,
                    kind: DecisionKind::RrSim,
                    project,
                    resource: None,
                    recorded,
                    replayed,
                    n_divergences,
                    checked: true,
                    location: None,
                    basis: String::new(),
                },
            );
        let divergence = (number(), text(), text(), proptest::option::of(number())).prop_map(
            |(time, field, recorded, tolerance)| Divergence {
                time,
                time_label: field.clone(),
                kind: DecisionKind::Backoff,
                project: None,
                resource: Some(recorded.clone()),
                job: Some(field.clone()),
                field,
                recorded,
                replayed: String::new(),
                tolerance,
                reason: String::new(),
                location: None,
            },
        );
        (
            text(),
            proptest::collection::vec(point, 0..6),
            proptest::collection::vec(divergence, 0..3),
            proptest::collection::vec((text(), text()), 0..2),
            proptest::collection::vec(text(), 0..2),
        )
            .prop_map(|(policy, points, divergences, unchecked, first_context)| {
                DivergenceReport {
                    trace: policy.clone(),
                    policy_reason: policy.clone(),
                    release: None,
                    since_changed: None,
                    policy,
                    points,
                    folded: Vec::new(),
                    divergences,
                    unchecked: unchecked
                        .into_iter()
                        .map(|(what, why)| Unchecked { what, why })
                        .collect(),
                    rested_on: Vec::new(),
                    first_context,
                    input_errors: Vec::new(),
                    activity: Default::default(),
                    contexts: Vec::new(),
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn renderers_accept_any_report(report in report()) {
            for format in Format::ALL.into_iter().filter(|format| format.is_available()) {
                for color in [false, true] {
                    let mut out = Vec::new();
                    let rendered = render_with(&report, format, &RenderOptions { color }, &mut out);
                    prop_assert!(rendered.is_ok(), "{format}: {rendered:?}");
                }
            }
            for side in [timeline::Side::Recorded, timeline::Side::Replayed] {
                let text = timeline::timeline_text(&report, side);
                prop_assert_eq!(text.split_terminator('\n').count(), report.points.len());
            }
        }
    }
}

//! Decision timelines as text, one line per decision point:
//! `time_label kind project: text`, where the text is the recorded or the
//! replayed decision. The diff reporter compares the two timelines; the
//! replayed one is what `golden/valid/<case>/decisions.txt` holds, and
//! [`divergences_text`] is the form of `divergences.txt`.
//!
//! Architecture Invariant: report consumes DivergenceReport and nothing else.
//! The texts are byte-stable: trace order, fixed float precision, no paths
//! (a location would make goldens depend on where the trace was found).

use crate::divergence::{DecisionPoint, Divergence, DivergenceReport};
use crate::golden::fixed;
use std::fmt::Write as _;

/// The two sides of every comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// What the real client recorded.
    Recorded,
    /// What the replay derived.
    Replayed,
}

impl Side {
    /// `recorded` or `replayed`, as in headers and column names.
    pub fn name(self) -> &'static str {
        match self {
            Side::Recorded => "recorded",
            Side::Replayed => "replayed",
        }
    }
}

/// `text`, or `-` when there is none.
pub(crate) fn or_dash(text: Option<&str>) -> &str {
    text.unwrap_or("-")
}

/// `text` on one line: line breaks become the two characters `\n` (or `\r`).
pub(crate) fn one_line(text: &str) -> String {
    text.replace('\r', "\\r").replace('\n', "\\n")
}

/// One decision point as one line (without line end) of the `side` timeline.
pub fn decision_line(point: &DecisionPoint, side: Side) -> String {
    let text = match side {
        Side::Recorded => &point.recorded,
        Side::Replayed => &point.replayed,
    };
    format!(
        "{} {} {}: {}",
        one_line(&point.time_label),
        point.kind,
        one_line(or_dash(point.project.as_deref())),
        one_line(text)
    )
}

/// The `side` timeline of `report`: one line per decision point, each ending
/// with `\n`, in trace order.
pub fn timeline_text(report: &DivergenceReport, side: Side) -> String {
    let mut text = String::new();
    for point in &report.points {
        text.push_str(&decision_line(point, side));
        text.push('\n');
    }
    text
}

/// One divergence as one line (without line end):
/// `time_label kind project/resource[ job] field: recorded R, replayed P[, tolerance T]`.
pub fn divergence_line(divergence: &Divergence) -> String {
    let mut line = format!(
        "{} {} {}/{}",
        one_line(&divergence.time_label),
        divergence.kind,
        one_line(or_dash(divergence.project.as_deref())),
        one_line(or_dash(divergence.resource.as_deref())),
    );
    if let Some(job) = &divergence.job {
        let _ = write!(line, " {}", one_line(job));
    }
    let _ = write!(
        line,
        " {}: recorded {}, replayed {}",
        one_line(&divergence.field),
        one_line(&divergence.recorded),
        one_line(&divergence.replayed)
    );
    if let Some(tolerance) = divergence.tolerance {
        let _ = write!(line, ", tolerance {}", tolerance_text(tolerance));
    }
    line
}

/// The divergences of `report`, one line each, or `none` when there are none;
/// every line ends with `\n`.
pub fn divergences_text(report: &DivergenceReport) -> String {
    if report.divergences.is_empty() {
        return "none\n".to_string();
    }
    let mut text = String::new();
    for divergence in &report.divergences {
        text.push_str(&divergence_line(divergence));
        text.push('\n');
    }
    text
}

/// A relative tolerance, byte-stable: as a percentage with enough digits for
/// tolerances down to 1e-8 (`0.1%` for 0.001).
pub(crate) fn tolerance_text(tolerance: f64) -> String {
    let percent = fixed(tolerance * 100.0, 6);
    if percent.contains('.') {
        let trimmed = percent.trim_end_matches('0').trim_end_matches('.');
        format!("{trimmed}%")
    } else {
        format!("{percent}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;

    #[test]
    fn timelines_one_line_per_point() {
        let report = sample_report();
        let recorded = timeline_text(&report, Side::Recorded);
        let replayed = timeline_text(&report, Side::Replayed);
        assert_eq!(recorded.lines().count(), 4);
        assert_eq!(
            recorded.lines().nth(1),
            Some("01:01:00 work_fetch_choice Einstein@Home: fetch SETI@home")
        );
        assert_eq!(
            replayed.lines().nth(1),
            Some("01:01:00 work_fetch_choice Einstein@Home: fetch Einstein@Home")
        );
    }

    #[test]
    fn line_breaks_stay_on_one_line() {
        let mut report = sample_report();
        report.points[0].replayed = "a\nb".into();
        report.points[0].project = None;
        assert_eq!(
            decision_line(&report.points[0], Side::Replayed),
            "01:00:00 run_list -: a\\nb"
        );
    }

    #[test]
    fn divergences_as_text() {
        let report = sample_report();
        assert_eq!(
            divergences_text(&report),
            "01:01:00 work_fetch_choice Einstein@Home/CPU chosen_project: recorded SETI@home, replayed Einstein@Home\n\
             01:01:00 work_fetch_choice Einstein@Home/CPU req_secs: recorded 8640.000, replayed 4320.000, tolerance 0.1%\n"
        );
        assert_eq!(divergences_text(&Default::default()), "none\n");
    }

    #[test]
    fn tolerances() {
        assert_eq!(tolerance_text(0.001), "0.1%");
        assert_eq!(tolerance_text(0.05), "5%");
        assert_eq!(tolerance_text(1e-8), "0.000001%");
        assert_eq!(tolerance_text(0.0), "0%");
        assert_eq!(tolerance_text(f64::NAN), "nan%");
    }
}

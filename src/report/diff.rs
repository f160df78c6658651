//! The diff report: the recorded and the replayed decision timelines (one
//! line per decision point, `time_label kind project: text`) as a unified
//! diff with three lines of context, headed `--- recorded` / `+++ replayed`.
//! When the timelines are equal nothing is written, like `diff`.
//!
//! Architecture Invariant: report consumes DivergenceReport and nothing else.
//! The diff itself is computed by similar (through [`crate::golden::unified_diff`],
//! which the golden files use too), without a deadline, so it is deterministic.

use crate::divergence::DivergenceReport;
use crate::golden::unified_diff;
use crate::report::timeline::{timeline_text, Side};
use std::io::{self, Write};

/// The unified diff from the recorded to the replayed timeline of `report`;
/// empty when they are equal.
pub fn diff_text(report: &DivergenceReport) -> String {
    unified_diff(
        &timeline_text(report, Side::Recorded),
        &timeline_text(report, Side::Replayed),
        Side::Recorded.name(),
        Side::Replayed.name(),
    )
}

/// Writes the diff report of `report`; `color` shows removed (recorded) lines
/// in red, added (replayed) lines in green and hunk headers in cyan.
pub fn write_diff(report: &DivergenceReport, color: bool, out: &mut dyn Write) -> io::Result<()> {
    let text = diff_text(report);
    if !color {
        return out.write_all(text.as_bytes());
    }
    for line in text.split_inclusive('\n') {
        let code = if line.starts_with("---") || line.starts_with("+++") {
            "1"
        } else if line.starts_with("@@") {
            "36"
        } else if line.starts_with('-') {
            "31"
        } else if line.starts_with('+') {
            "32"
        } else {
            ""
        };
        if code.is_empty() {
            out.write_all(line.as_bytes())?;
        } else {
            let body = line.trim_end_matches('\n');
            let end = &line[body.len()..];
            write!(out, "\u{1b}[{code}m{body}\u{1b}[0m{end}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;

    #[test]
    fn recorded_vs_replayed_with_context() {
        let mut out = Vec::new();
        write_diff(&sample_report(), false, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\
--- recorded
+++ replayed
@@ -1,4 +1,4 @@
 01:00:00 run_list SETI@home: run a b
-01:01:00 work_fetch_choice Einstein@Home: fetch SETI@home
+01:01:00 work_fetch_choice Einstein@Home: fetch Einstein@Home
 01:02:00 run_list SETI@home: run a c
 01:03:00 run_list SETI@home: run c
"
        );
    }

    #[test]
    fn equal_timelines_write_nothing() {
        let mut report = sample_report();
        report.points[1].replayed = report.points[1].recorded.clone();
        let mut out = Vec::new();
        write_diff(&report, true, &mut out).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn colour_marks_sides() {
        let mut out = Vec::new();
        write_diff(&sample_report(), true, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(
            "\u{1b}[31m-01:01:00 work_fetch_choice Einstein@Home: fetch SETI@home\u{1b}[0m\n"
        ));
        assert!(text.contains("\u{1b}[1m--- recorded\u{1b}[0m\n"));
    }
}

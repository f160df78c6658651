//! The default, human-readable report: the first divergence first (with the
//! log lines around it), then a count table by kind × project × resource,
//! then the policy used and why, the agreement, and what was not checked.
//!
//! Architecture Invariant: report consumes DivergenceReport and nothing else.
//! The table has a fixed width and no styling unless `color` is asked for;
//! colour (ANSI escapes) is only put on lines outside the table, so the table
//! layout never depends on it.

use crate::divergence::{DivergenceReport, KindCount, SinceChanged};
use crate::golden::fixed;
use crate::report::timeline::{one_line, or_dash, tolerance_text};
use comfy_table::{presets, Cell, CellAlignment, Table};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The table's width in characters.
const TABLE_WIDTH: u16 = 120;

/// ANSI styles, or nothing when colour is off.
struct Paint {
    color: bool,
}

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\u{1b}[{code}m{text}\u{1b}[0m")
        } else {
            text.to_string()
        }
    }

    fn heading(&self, text: &str) -> String {
        self.wrap("1", text)
    }

    fn recorded(&self, text: &str) -> String {
        self.wrap("31", text)
    }

    fn replayed(&self, text: &str) -> String {
        self.wrap("32", text)
    }
}

/// Writes the table report of `report`; `color` adds ANSI colours to the
/// headings and to the recorded (red) and replayed (green) values.
pub fn write_table(report: &DivergenceReport, color: bool, out: &mut dyn Write) -> io::Result<()> {
    let paint = Paint { color };
    if !report.input_errors.is_empty() {
        writeln!(
            out,
            "{} input problem(s): lines the audit went on without, or inputs that disagree with the log",
            report.input_errors.len()
        )?;
        for error in &report.input_errors {
            writeln!(out, "  {error}")?;
        }
        writeln!(out)?;
    }
    write_first_divergence(report, &paint, out)?;
    writeln!(out)?;
    write_counts(report, &paint, out)?;
    writeln!(out)?;
    write_summary(report, &paint, out)
}

fn write_first_divergence(
    report: &DivergenceReport,
    paint: &Paint,
    out: &mut dyn Write,
) -> io::Result<()> {
    let Some(first) = report.first_divergence() else {
        let n_points = report.n_points();
        let n_checked = report.n_checked();
        let text = if n_checked == 0 {
            // Never "no divergence" when nothing was recomputed.
            let what = match n_points {
                0 => "the trace shows no decision the replay knows".to_string(),
                1 => "its one recorded decision could not be recomputed".to_string(),
                n => format!("none of its {n} recorded decisions could be recomputed"),
            };
            format!("nothing could be checked: {what}; \"unchecked\" below says what is missing")
        } else if n_checked < n_points {
            format!(
                "no divergence at the {n_checked} decision points that could be checked ({} not checked)",
                n_points - n_checked
            )
        } else if report.n_divergent() > 0 {
            // Points are marked divergent but no divergence was listed.
            format!(
                "{} of {n_points} decision points diverge (no details recorded)",
                report.n_divergent()
            )
        } else {
            format!("no divergence: the replay agrees with the recording at all {n_points} decision points")
        };
        return writeln!(out, "{}", paint.heading(&text));
    };
    writeln!(out, "{}", paint.heading("first divergence"))?;
    let field = |name: &str, value: &str| format!("  {name:<10} {value}");
    let lines = [
        field(
            "time",
            &format!(
                "{} ({} s)",
                one_line(&first.time_label),
                fixed(first.time, 3)
            ),
        ),
        field("kind", first.kind.name()),
        field("project", &one_line(or_dash(first.project.as_deref()))),
        field("resource", &one_line(or_dash(first.resource.as_deref()))),
        field("job", &one_line(or_dash(first.job.as_deref()))),
        field("field", &one_line(&first.field)),
        field("recorded", &paint.recorded(&one_line(&first.recorded))),
        field("replayed", &paint.replayed(&one_line(&first.replayed))),
        field(
            "tolerance",
            &first
                .tolerance
                .map_or_else(|| "exact".to_string(), tolerance_text),
        ),
        field("reason", &one_line(&first.reason)),
    ];
    for line in lines {
        writeln!(out, "{line}")?;
    }
    if let Some(location) = &first.location {
        writeln!(out, "{}", field("at", &location.to_string()))?;
    }
    if !report.first_context.is_empty() {
        writeln!(out, "  log around it:")?;
        for line in &report.first_context {
            writeln!(out, "    {}", one_line(line))?;
        }
    }
    let n_more = report.divergences.len().saturating_sub(1);
    if n_more > 0 {
        let plural = if n_more == 1 { "" } else { "s" };
        writeln!(out, "  (and {n_more} more divergence{plural})")?;
    }
    Ok(())
}

/// Counts by (kind, project, resource), in that order; `-` stands for none.
fn counts(report: &DivergenceReport) -> BTreeMap<(&'static str, &str, &str), KindCount> {
    let mut counts: BTreeMap<(&'static str, &str, &str), KindCount> = BTreeMap::new();
    for ((kind, project, resource), count) in report.counts() {
        let key = (kind.name(), or_dash(project), or_dash(resource));
        let into = counts.entry(key).or_default();
        into.total += count.total;
        into.divergent += count.divergent;
        into.unchecked += count.unchecked;
    }
    counts
}

fn write_counts(report: &DivergenceReport, paint: &Paint, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "{}",
        paint.heading("decision points by kind, project and resource")
    )?;
    let mut table = Table::new();
    table
        .load_preset(presets::ASCII_MARKDOWN)
        .set_width(TABLE_WIDTH);
    // The "not checked" column appears when some point was not recomputed.
    let n_unchecked = report.n_points() - report.n_checked();
    let mut header = vec!["kind", "project", "resource", "total", "divergent"];
    if n_unchecked > 0 {
        header.push("not checked");
    }
    table.set_header(header);
    let right = |n: usize| Cell::new(n).set_alignment(CellAlignment::Right);
    for ((kind, project, resource), count) in counts(report) {
        let mut row = vec![
            Cell::new(kind),
            Cell::new(one_line(project)),
            Cell::new(one_line(resource)),
            right(count.total),
            right(count.divergent),
        ];
        if n_unchecked > 0 {
            row.push(right(count.unchecked));
        }
        table.add_row(row);
    }
    let mut all = vec![
        Cell::new("all"),
        Cell::new(""),
        Cell::new(""),
        right(report.n_points()),
        right(report.n_divergent()),
    ];
    if n_unchecked > 0 {
        all.push(right(n_unchecked));
    }
    table.add_row(all);
    writeln!(out, "{table}")
}

fn write_summary(report: &DivergenceReport, paint: &Paint, out: &mut dyn Write) -> io::Result<()> {
    let policy_reason = if report.policy_reason.is_empty() {
        String::new()
    } else {
        format!(" ({})", one_line(&report.policy_reason))
    };
    let policy = if report.policy.is_empty() {
        "-"
    } else {
        &report.policy
    };
    writeln!(
        out,
        "{} {}{policy_reason}",
        paint.heading("policy:"),
        one_line(policy)
    )?;
    let n_checked = report.n_checked();
    let n_unchecked = report.n_points() - n_checked;
    let n_divergent = report.n_divergent();
    if n_checked == 0 {
        writeln!(
            out,
            "{} none: nothing could be checked ({n_unchecked} decision point{} not checked)",
            paint.heading("agreement:"),
            if n_unchecked == 1 { "" } else { "s" },
        )?;
    } else {
        writeln!(
            out,
            "{} {}% ({} of {n_checked} decision points agree, {n_divergent} {}{})",
            paint.heading("agreement:"),
            fixed(report.agreement() * 100.0, 2),
            n_checked - n_divergent,
            if n_divergent == 1 {
                "diverges"
            } else {
                "diverge"
            },
            if n_unchecked > 0 {
                format!("; {n_unchecked} not checked")
            } else {
                String::new()
            },
        )?;
    }
    if let Some(since) = &report.since_changed {
        write_since_changed(since, paint, out)?;
    }
    if !report.rested_on.is_empty() {
        // Kinds checked from the same inputs share one line.
        let mut by_basis: Vec<(&str, Vec<String>)> = Vec::new();
        for r in &report.rested_on {
            let said = format!("{} {}", r.kind, r.checked);
            match by_basis.iter_mut().find(|(basis, _)| *basis == r.basis) {
                Some((_, kinds)) => kinds.push(said),
                None => by_basis.push((&r.basis, vec![said])),
            }
        }
        writeln!(out, "{}", paint.heading("checks rested on:"))?;
        for (basis, kinds) in by_basis {
            writeln!(out, "  - {}: {}", kinds.join(", "), one_line(basis))?;
        }
    }
    if report.unchecked.is_empty() {
        return writeln!(out, "{} nothing", paint.heading("unchecked:"));
    }
    writeln!(out, "{}", paint.heading("unchecked:"))?;
    for unchecked in &report.unchecked {
        writeln!(
            out,
            "  - {}: {}",
            one_line(&unchecked.what),
            one_line(&unchecked.why)
        )?;
    }
    Ok(())
}

/// The release's decisions judged again under today's rules.
fn write_since_changed(since: &SinceChanged, paint: &Paint, out: &mut dyn Write) -> io::Result<()> {
    if since.changes.is_empty() {
        // No replayed rule changed since the release: only the changes
        // the log shows that the engine does not recompute.
        return write_noted(since, paint, out);
    }
    writeln!(
        out,
        "{} {} consistent with both {} and today's rules; {} with {} only (since-changed \
         behaviour: upgrading changes it); {} with today's only; {} with neither",
        paint.heading("today's rules:"),
        since.both,
        since.release,
        since.release_only,
        since.release,
        since.today_only,
        since.neither
    )?;
    if since.today_not_checked > 0 {
        writeln!(
            out,
            "  {} not recomputed under today's rules",
            since.today_not_checked
        )?;
    }
    if since.release_only > 0 {
        let kinds: Vec<String> = since
            .release_only_by_kind
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        writeln!(out, "  since-changed by kind: {}", kinds.join(", "))?;
        if let Some(first) = &since.first {
            writeln!(
                out,
                "  first: {} {} {}: {} recorded {}, today's client {}",
                first.time_label,
                first.kind,
                first.field,
                first
                    .project
                    .as_deref()
                    .or(first.job.as_deref())
                    .unwrap_or("-"),
                one_line(&first.recorded),
                one_line(&first.replayed)
            )?;
        }
        writeln!(
            out,
            "  changes since {} (decision points each one alone makes differ):",
            since.release
        )?;
        for (commit, n) in &since.by_change {
            writeln!(out, "  - {n:>6}  {}", one_line(commit))?;
        }
        writeln!(out, "  rule switches: {}", since.changes.join("; "))?;
    }
    write_noted(since, paint, out)
}

/// The catalogued changes the log shows that the engine does not recompute.
fn write_noted(since: &SinceChanged, paint: &Paint, out: &mut dyn Write) -> io::Result<()> {
    if since.noted.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "{} {} later change(s) the log shows decisions of, named not recomputed:",
        paint.heading(&format!("since {}:", since.release)),
        since.noted.len()
    )?;
    for hit in &since.noted {
        writeln!(
            out,
            "  - {} ({} line(s), first at {}); first release that behaves differently: {}",
            one_line(&hit.change),
            hit.lines,
            hit.at,
            hit.first
        )?;
        writeln!(out, "    {}: {}", hit.function, one_line(&hit.rule))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_changed_names_the_change_that_makes_today_differ() {
        let mut since = SinceChanged {
            release: "7.20.5".into(),
            changes: vec!["run_list_overfill (from 8.2.14 on; cpu_sched.cpp)".into()],
            both: 10,
            release_only: 3,
            ..SinceChanged::default()
        };
        since
            .release_only_by_kind
            .insert(crate::divergence::DecisionKind::RunList, 3);
        since.by_change.insert("commit 183517e42d".into(), 3);
        let mut out = Vec::new();
        write_since_changed(&since, &Paint { color: false }, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("10 consistent with both 7.20.5 and today's rules; 3 with 7.20.5 only")
        );
        assert!(text.contains("since-changed by kind: run_list 3"));
        assert!(text.contains("      3  commit 183517e42d"));
    }
    use crate::divergence::DivergenceReport;
    use crate::report::tests::sample_report;

    fn table_text(report: &DivergenceReport, color: bool) -> String {
        let mut out = Vec::new();
        write_table(report, color, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn first_divergence_comes_first() {
        let text = table_text(&sample_report(), false);
        let expected_start = "\
first divergence
  time       01:01:00 (3660.000 s)
  kind       work_fetch_choice
  project    Einstein@Home
  resource   CPU
  job        -
  field      chosen_project
  recorded   SETI@home
  replayed   Einstein@Home
  tolerance  exact
  reason     Einstein@Home has the highest priority (-0.12 > -0.50)
  at         trace/stdoutdae.txt:12
  log around it:
    01:00:59 [SETI@home] [work_fetch] backoff 60 s
    01:01:00 [---] [work_fetch] choose_project: scanning
  (and 1 more divergence)
";
        assert!(text.starts_with(expected_start), "{text}");
        assert!(!text.contains('\u{1b}'));
    }

    #[test]
    fn counts_policy_agreement_unchecked() {
        let text = table_text(&sample_report(), false);
        assert!(
            text.contains("| kind              | project       | resource | total | divergent |"),
            "{text}"
        );
        assert!(
            text.contains("| run_list          | SETI@home     | CPU      |     3 |         0 |"),
            "{text}"
        );
        assert!(
            text.contains("| work_fetch_choice | Einstein@Home | CPU      |     1 |         1 |"),
            "{text}"
        );
        assert!(
            text.contains("| all               |               |          |     4 |         1 |"),
            "{text}"
        );
        assert!(text.contains("policy: current (client version 8.0.2 seen in the log)\n"));
        assert!(text.contains("agreement: 75.00% (3 of 4 decision points agree, 1 diverges)\n"));
        assert!(text.ends_with("unchecked:\n  - rr_sim: the log has no rr_sim_debug lines\n"));
    }

    #[test]
    fn no_divergence_said_plainly() {
        let mut report = sample_report();
        report.divergences.clear();
        for point in &mut report.points {
            point.n_divergences = 0;
        }
        report.unchecked.clear();
        let text = table_text(&report, false);
        assert!(text.starts_with(
            "no divergence: the replay agrees with the recording at all 4 decision points\n"
        ));
        assert!(text.contains("agreement: 100.00% (4 of 4 decision points agree, 0 diverge)\n"));
        assert!(text.ends_with("unchecked: nothing\n"));
        let empty = table_text(&DivergenceReport::default(), false);
        // Nothing recorded is nothing checked, never "no divergence".
        assert!(empty.starts_with(
            "nothing could be checked: the trace shows no decision the replay knows;"
        ));
        assert!(empty.contains("policy: -\n"));
    }

    #[test]
    fn colour_only_when_asked() {
        let text = table_text(&sample_report(), true);
        assert!(text.contains("\u{1b}[1mfirst divergence\u{1b}[0m"));
        assert!(text.contains("\u{1b}[31mSETI@home\u{1b}[0m"));
    }

    /// A report whose every point could not be recomputed says so first,
    /// never "no divergence", and gives no agreement figure.
    #[test]
    fn nothing_checked_is_said_first() {
        let mut report = sample_report();
        report.divergences.clear();
        for point in &mut report.points {
            point.checked = false;
            point.n_divergences = 0;
        }
        let text = table_text(&report, false);
        assert!(text.starts_with("nothing could be checked: none of its 4 recorded decisions"));
        assert!(!text.contains("no divergence"));
        assert!(text.contains(
            "agreement: none: nothing could be checked (4 decision points not checked)\n"
        ));
        assert!(text.contains("| not checked |"));
    }
}

//! A report made for posting (`--format markdown`): the release and its
//! rules, the verdict, the first divergence with the log lines around it,
//! counts by kind, what could not be checked and the log flags that would
//! supply it. Short enough for a forum post or a GitHub comment: at most
//! [`MAX_UNCHECKED`] not-checked notes, and the first divergence only (the
//! others counted).
//!
//! Architecture Invariant: report consumes DivergenceReport and nothing else.

use crate::divergence::DivergenceReport;
use crate::golden::fixed;
use crate::report::timeline::{one_line, tolerance_text};
use std::io::{self, Write};

/// Not-checked notes listed before the rest are counted.
const MAX_UNCHECKED: usize = 8;

/// Log flags the notes may name (`log flag X off?`, `with rrsim_detail`).
const FLAG_NAMES: &[&str] = &[
    "work_fetch_debug",
    "rr_simulation",
    "rrsim_detail",
    "cpu_sched_debug",
    "priority_debug",
    "sched_op_debug",
    "debt_debug",
    "std_debug",
    "coproc_debug",
    "cpu_sched_status",
];

/// Text inside a table cell or inline code: no line breaks, no `|`, no
/// backquote.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|").replace('`', "'")
}

/// Writes `report` as Markdown.
pub fn write_markdown(report: &DivergenceReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "### boinc-audit: `{}`\n", cell(&report.trace))?;
    let release = report.release.as_deref().unwrap_or("not known");
    writeln!(
        out,
        "- **Client release:** {release}; **rules replayed:** {} ({})",
        cell(&report.policy),
        cell(&report.policy_reason)
    )?;
    let (points, checked, divergent) =
        (report.n_points(), report.n_checked(), report.n_divergent());
    let verdict = if checked == 0 {
        format!("nothing could be checked ({points} decision points)")
    } else if divergent == 0 {
        format!("the client followed the rules at all {checked} checked decision points")
    } else {
        format!("**{divergent} decision point(s) diverge** from the rules")
    };
    writeln!(
        out,
        "- **Verdict:** {verdict}; agreement {}% of {checked} checked, {} of {points} not \
         checked",
        fixed(report.agreement() * 100.0, 2),
        points - checked
    )?;
    if !report.input_errors.is_empty() {
        writeln!(
            out,
            "- **Input problems:** {} (first: `{}`)",
            report.input_errors.len(),
            cell(&report.input_errors[0])
        )?;
    }
    write_since(report, out)?;
    write_first(report, out)?;
    write_kinds(report, out)?;
    write_missing(report, out)?;
    writeln!(
        out,
        "\n<sub>boinc-audit {}: `boinc-audit audit TRACE --format markdown`</sub>",
        env!("CARGO_PKG_VERSION")
    )
}

/// `--since-changed`: what upgrading the release changes.
fn write_since(report: &DivergenceReport, out: &mut dyn Write) -> io::Result<()> {
    let Some(since) = &report.since_changed else {
        return Ok(());
    };
    if !since.changes.is_empty() {
        writeln!(
            out,
            "- **Since {}:** {} checked decision(s) follow {} only (upgrading changes them), \
             {} both rule sets",
            since.release, since.release_only, since.release, since.both
        )?;
        for (commit, n) in since.by_change.iter().filter(|(_, n)| **n > 0) {
            writeln!(out, "  - {n} by {}", cell(commit))?;
        }
    }
    for hit in &since.noted {
        writeln!(
            out,
            "- **Changed since {} (named, not recomputed):** {}; first release that behaves \
             differently: {}; {} line(s) show it, first `{}`",
            since.release,
            cell(&hit.change),
            cell(&hit.first),
            hit.lines,
            cell(&hit.at)
        )?;
    }
    Ok(())
}

/// The first divergence, its rule and the log lines around it.
fn write_first(report: &DivergenceReport, out: &mut dyn Write) -> io::Result<()> {
    let Some(first) = report.first_divergence() else {
        return Ok(());
    };
    writeln!(out, "\n#### First divergence\n")?;
    let at = [
        first.project.as_deref(),
        first.resource.as_deref(),
        first.job.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    let tolerance = first
        .tolerance
        .map(|t| format!(" (within {})", tolerance_text(t)))
        .unwrap_or_default();
    writeln!(
        out,
        "At {}, {} {}: `{}` recorded `{}`, the rules give `{}`{tolerance}.",
        cell(&first.time_label),
        first.kind,
        cell(&at),
        cell(&first.field),
        cell(&first.recorded),
        cell(&first.replayed)
    )?;
    if let Some(loc) = &first.location {
        writeln!(out, "Log: `{}`.", cell(&loc.to_string()))?;
    }
    writeln!(out, "\n> {}", one_line(&first.reason))?;
    if !report.first_context.is_empty() {
        writeln!(out, "\n```text")?;
        for line in &report.first_context {
            writeln!(out, "{}", line.replace("```", "'''"))?;
        }
        writeln!(out, "```")?;
    }
    if report.divergences.len() > 1 {
        writeln!(
            out,
            "\n{} more divergence(s): `--format table` or `--format html` lists them.",
            report.divergences.len() - 1
        )?;
    }
    Ok(())
}

/// Counts by kind.
fn write_kinds(report: &DivergenceReport, out: &mut dyn Write) -> io::Result<()> {
    let by_kind = report.by_kind();
    if by_kind.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n| decision kind | points | checked | divergent |")?;
    writeln!(out, "|---|---:|---:|---:|")?;
    for (kind, count) in by_kind {
        writeln!(
            out,
            "| {kind} | {} | {} | {} |",
            count.total,
            count.total - count.unchecked,
            count.divergent
        )?;
    }
    Ok(())
}

/// What could not be checked, and the log flags the notes name.
fn write_missing(report: &DivergenceReport, out: &mut dyn Write) -> io::Result<()> {
    if report.unchecked.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n#### Not checked\n")?;
    for u in report.unchecked.iter().take(MAX_UNCHECKED) {
        writeln!(out, "- {}: {}", cell(&u.what), cell(&u.why))?;
    }
    if report.unchecked.len() > MAX_UNCHECKED {
        writeln!(
            out,
            "- … and {} more (`--format json` lists them all)",
            report.unchecked.len() - MAX_UNCHECKED
        )?;
    }
    let flags: Vec<&str> = FLAG_NAMES
        .iter()
        .copied()
        .filter(|flag| {
            report
                .unchecked
                .iter()
                .any(|u| names_flag(&u.why, flag) || names_flag(&u.what, flag))
        })
        .collect();
    if !flags.is_empty() {
        writeln!(
            out,
            "\nLog flags that would supply what is missing: {} (`boinc-audit flags \
             --cc-config cc_config.xml` merges them).",
            flags
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    Ok(())
}

/// Whether `text` names `flag` as a word (`rr_simulation`, not the
/// `rr_sim` of a kind).
fn names_flag(text: &str, flag: &str) -> bool {
    text.match_indices(flag).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + flag.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divergence::Unchecked;
    use crate::report::tests::sample_report;

    #[test]
    fn a_post_has_the_verdict_the_first_divergence_and_the_flags() {
        let mut report = sample_report();
        report.unchecked.push(Unchecked {
            what: "rr_sim decisions".into(),
            why: "none recorded (log flag rr_simulation off?)".into(),
        });
        let mut out = Vec::new();
        write_markdown(&report, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("**Client release:** 8.0.2"), "{text}");
        assert!(text.contains("diverge** from the rules"), "{text}");
        assert!(text.contains("#### First divergence"), "{text}");
        assert!(
            text.contains("`chosen_project` recorded `SETI@home`"),
            "{text}"
        );
        assert!(text.contains("```text\n01:00:59"), "{text}");
        assert!(text.contains("| work_fetch_choice | 1 | 1 | 1 |"), "{text}");
        assert!(text.contains("`rr_simulation`"), "{text}");
        assert!(!text.contains("`rrsim_detail`"), "{text}");
        assert!(text.lines().count() < 60, "{text}");
    }

    #[test]
    fn flags_are_named_as_words() {
        assert!(names_flag("(log flag rr_simulation off?)", "rr_simulation"));
        assert!(!names_flag("rr_simulation_x", "rr_simulation"));
        assert!(!names_flag("the rr_sim kind", "rr_simulation"));
    }
}

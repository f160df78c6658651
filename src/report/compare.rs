//! What `boinc-audit compare` prints: two policies (or parameter sets) on the
//! same input, side by side.
//!
//! * table: for a trace, each side's agreement with the recording, then the
//!   decision points whose replayed decisions differ, each as the fields that
//!   changed (`A value → B value`) and which side agrees with the recording;
//!   for a scenario, the figures of merit and the usage rows as A | B | B − A.
//! * json: the [`Comparison`] model as it is (`mode` = `replay` or `simulation`).
//!
//! Architecture Invariant: consumes the neutral comparison model only.

use crate::compare::{
    ChangedDecision, Comparison, FigureRow, ReplayComparison, SimulationComparison, FIGURE_EPSILON,
};
use crate::golden::fixed;
use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};
use similar::{ChangeTag, TextDiff};
use std::io::{self, Write};

/// Writes the comparison as JSON.
pub fn write_json(comparison: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, comparison).map_err(io::Error::other)?;
    writeln!(out)
}

/// Writes the comparison as tables; at most `limit` changed decisions are listed.
pub fn write_table(comparison: &Comparison, limit: usize, out: &mut dyn Write) -> io::Result<()> {
    match comparison {
        Comparison::Replay(c) => write_replay(c, limit, out),
        Comparison::Simulation(c) => write_simulation(c, out),
    }
}

fn new_table(header: Vec<&str>) -> Table {
    let mut table = Table::new();
    table
        .load_preset(presets::ASCII_MARKDOWN)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(160)
        .set_header(header);
    table
}

fn write_replay(c: &ReplayComparison, limit: usize, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "compare (anchored replay of {})", c.trace)?;
    let mut sides = new_table(vec![
        "side",
        "as given",
        "policy replayed",
        "decision points",
        "divergent from recording",
        "agreement",
    ]);
    for side in [&c.a, &c.b] {
        sides.add_row(vec![
            Cell::new(&side.spec.label),
            Cell::new(side.spec.describe()),
            Cell::new(&side.policy),
            Cell::new(side.decision_points).set_alignment(CellAlignment::Right),
            Cell::new(side.divergent).set_alignment(CellAlignment::Right),
            Cell::new(format!("{}%", fixed(100.0 * side.agreement, 2)))
                .set_alignment(CellAlignment::Right),
        ]);
    }
    writeln!(out, "{sides}")?;
    if c.changed.is_empty() {
        return writeln!(
            out,
            "\nThe two sides make the same decision at all {} decision points.",
            c.compared
        );
    }
    let by_kind: Vec<String> = c
        .changed_by_kind
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect();
    writeln!(
        out,
        "\n{} decision points differ ({} present under both sides; one present under one side only differs too) ({}); first {} (A → B):",
        c.changed.len(),
        c.compared,
        by_kind.join(", "),
        limit.min(c.changed.len())
    )?;
    let mut table = new_table(vec![
        "time",
        "kind",
        "project",
        "what changes (A → B)",
        "agrees with recording",
    ]);
    for change in c.changed.iter().take(limit) {
        table.add_row(vec![
            change.time_label.clone(),
            change.kind.clone(),
            change.project.clone().unwrap_or_else(|| "-".into()),
            describe_change(change),
            agreement_marks(change),
        ]);
    }
    writeln!(out, "{table}")?;
    if c.changed.len() > limit {
        writeln!(
            out,
            "({} more; --limit N lists more, --format json lists all)",
            c.changed.len() - limit
        )?;
    }
    Ok(())
}

fn agreement_marks(change: &ChangedDecision) -> String {
    let mark = |agrees: Option<bool>| match agrees {
        Some(true) => "yes",
        Some(false) => "no",
        None => "absent",
    };
    format!("A {}, B {}", mark(change.a_agrees), mark(change.b_agrees))
}

/// The fields that differ between A's and B's decision texts, one
/// `key: old → new` per change (decisions are `key=value` words).
pub fn describe_change(change: &ChangedDecision) -> String {
    match (&change.a, &change.b) {
        (Some(a), Some(b)) => word_changes(a, b),
        (Some(a), None) => format!("only under A: {a}"),
        (None, Some(b)) => format!("only under B: {b}"),
        (None, None) => String::new(),
    }
}

/// `key: old → new` for every changed `key=value` word; when a change is not
/// a value under the same key (an order, an insertion), the whole texts.
fn word_changes(a: &str, b: &str) -> String {
    let diff = TextDiff::from_words(a, b);
    let mut parts = Vec::new();
    let (mut old, mut new) = (String::new(), String::new());
    let mut keyed = true;
    let mut flush = |old: &mut String, new: &mut String, keyed: &mut bool| {
        if old.is_empty() && new.is_empty() {
            return;
        }
        let same_key = old
            .trim()
            .split_once('=')
            .zip(new.trim().split_once('='))
            .filter(|((ko, _), (kn, _))| ko == kn);
        match same_key {
            Some(((key, vo), (_, vn))) => parts.push(format!("{key}: {vo} → {vn}")),
            None => *keyed = false,
        }
        old.clear();
        new.clear();
    };
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Equal => flush(&mut old, &mut new, &mut keyed),
            ChangeTag::Delete => old.push_str(change.value()),
            ChangeTag::Insert => new.push_str(change.value()),
        }
    }
    flush(&mut old, &mut new, &mut keyed);
    if keyed {
        parts.join("; ")
    } else {
        format!("{} → {}", or_none(a), or_none(b))
    }
}

fn or_none(text: &str) -> &str {
    if text.is_empty() {
        "(none)"
    } else {
        text
    }
}

fn write_simulation(c: &SimulationComparison, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "compare (closed-loop simulation of {}; duration {} s, delta {} s, seed {})",
        c.scenario, c.a.duration, c.a.delta, c.a.seed
    )?;
    writeln!(
        out,
        "A: {}\nB: {}",
        c.a_spec.describe(),
        c.b_spec.describe()
    )?;
    for (title, rows) in [
        ("Figures of merit", &c.figures_of_merit),
        (
            "Usage (fraction of the resource's instance-seconds; flops = fraction of peak FLOPs)",
            &c.usage,
        ),
    ] {
        writeln!(out, "\n{title}")?;
        let mut table = new_table(vec!["", "A", "B", "B − A"]);
        for row in rows {
            table.add_row(figure_cells(row));
        }
        writeln!(out, "{table}")?;
    }
    writeln!(
        out,
        "\nRPCs A {} / B {}, jobs A {} / B {}",
        c.a.rpcs, c.b.rpcs, c.a.jobs, c.b.jobs
    )
}

fn figure_cells(row: &FigureRow) -> Vec<Cell> {
    let value = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| fixed(v, 6));
    let delta = match row.delta() {
        Some(d) if d.abs() <= FIGURE_EPSILON => "=".to_string(),
        Some(d) => format!("{}{}", if d > 0.0 { "+" } else { "" }, fixed(d, 6)),
        None => "-".to_string(),
    };
    vec![
        Cell::new(&row.name),
        Cell::new(value(row.a)).set_alignment(CellAlignment::Right),
        Cell::new(value(row.b)).set_alignment(CellAlignment::Right),
        Cell::new(delta).set_alignment(CellAlignment::Right),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(a: Option<&str>, b: Option<&str>) -> ChangedDecision {
        ChangedDecision {
            time: 3600.0,
            time_label: "01:00:00".into(),
            kind: "priority".into(),
            project: Some("A".into()),
            recorded: String::new(),
            a: a.map(str::to_string),
            b: b.map(str::to_string),
            a_agrees: a.map(|_| true),
            b_agrees: b.map(|_| false),
        }
    }

    #[test]
    fn a_changed_value_is_shown_under_its_key() {
        let c = changed(
            Some("A/prio=-0.500000 A/rec=1.000 B/prio=-0.250000"),
            Some("A/prio=-0.700000 A/rec=1.000 B/prio=-0.250000"),
        );
        assert_eq!(describe_change(&c), "A/prio: -0.500000 → -0.700000");
        assert_eq!(agreement_marks(&c), "A yes, B no");
    }

    #[test]
    fn one_sided_points_say_so() {
        assert_eq!(
            describe_change(&changed(None, Some("chosen_project=B"))),
            "only under B: chosen_project=B"
        );
    }

    #[test]
    fn words_without_a_key_show_both_texts() {
        assert_eq!(word_changes("A_1 A_2", "A_2 A_1"), "A_1 A_2 → A_2 A_1");
    }
}

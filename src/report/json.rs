//! The JSON report, a contract scripts depend on. One object:
//!
//! | key                | type                                              |
//! |--------------------|---------------------------------------------------|
//! | `trace`            | string                                            |
//! | `policy`           | string                                            |
//! | `policy_reason`    | string                                            |
//! | `release`          | string `X.Y.Z` whose rules were applied, or null  |
//! | `decision_points`  | integer                                           |
//! | `divergent`        | integer: decision points that diverge             |
//! | `agreement`        | float in 0..=1 (1 when there are no points)       |
//! | `by_kind`          | object: kind → `{"total": int, "divergent": int}` |
//! | `divergences`      | array of [`Divergence`] objects, in trace order    |
//! | `first_divergence` | a [`Divergence`] object, or null                  |
//! | `unchecked`        | array of `{"what": string, "why": string}`        |
//! | `rested_on`        | array of `{"kind": string, "basis": string, "checked": int}`: per kind, what its checked points were recomputed from |
//! | `input_errors`     | array of strings: inputs that could not be read (file:line:col: what was expected), which the audit went on without, then inputs that disagree with the log (a stated time step it does not show) |
//! | `since_changed`    | null, or for an older release: `{release, changes, both, release_only, today_only, neither, release_only_by_kind, first, noted}`; `noted`: array of `{change, function, first, rule, lines, at}`, later changes outside the replayed rules whose decisions the log shows |
//!
//! Keys may be added; none is renamed or removed without a major version.
//!
//! Architecture Invariant: report consumes DivergenceReport and nothing else.

use crate::divergence::{Divergence, RestedOn, SinceChanged, Unchecked};
use crate::divergence::{DivergenceReport, KindCount};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// The JSON contract of the audit report (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JsonReport<'a> {
    /// The trace audited.
    pub trace: &'a str,
    /// The policy replayed.
    pub policy: &'a str,
    /// Why that policy was chosen.
    pub policy_reason: &'a str,
    /// The client release whose rules were applied (7.3 onward), if known.
    pub release: Option<&'a str>,
    /// Decision points recorded.
    pub decision_points: usize,
    /// Of which the replay recomputed (agreeing or diverging).
    pub checked: usize,
    /// Of which it could not recompute (see `unchecked` for why).
    pub not_checked: usize,
    /// Decision points that diverge.
    pub divergent: usize,
    /// Fraction of the checked decision points that agree (1.0 when
    /// `checked` is 0: nothing could be checked).
    pub agreement: f64,
    /// Totals by decision kind (snake_case name), in kind order.
    pub by_kind: BTreeMap<&'static str, KindCount>,
    /// Every divergence, in trace order.
    pub divergences: &'a [Divergence],
    /// The first divergence, if any.
    pub first_divergence: Option<&'a Divergence>,
    /// What could not be checked, and why.
    pub unchecked: &'a [Unchecked],
    /// Per kind, what its checked points rested on.
    pub rested_on: &'a [RestedOn],
    /// An older release's decisions judged again under today's rules.
    pub since_changed: Option<&'a SinceChanged>,
    /// Inputs that could not be read; the audit went on without them.
    pub input_errors: &'a [String],
}

impl<'a> JsonReport<'a> {
    /// The contract view of `report`.
    pub fn new(report: &'a DivergenceReport) -> Self {
        JsonReport {
            trace: &report.trace,
            policy: &report.policy,
            policy_reason: &report.policy_reason,
            release: report.release.as_deref(),
            decision_points: report.n_points(),
            checked: report.n_checked(),
            not_checked: report.n_points() - report.n_checked(),
            divergent: report.n_divergent(),
            agreement: report.agreement(),
            by_kind: report
                .by_kind()
                .into_iter()
                .map(|(kind, count)| (kind.name(), count))
                .collect(),
            divergences: &report.divergences,
            first_divergence: report.first_divergence(),
            unchecked: &report.unchecked,
            rested_on: &report.rested_on,
            since_changed: report.since_changed.as_ref(),
            input_errors: &report.input_errors,
        }
    }
}

/// Writes `report` as one pretty-printed JSON object and a newline.
pub fn write_json(
    report: &DivergenceReport,
    out: &mut dyn Write,
) -> Result<(), super::ReportError> {
    serde_json::to_writer_pretty(&mut *out, &JsonReport::new(report))?;
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;
    use serde_json::Value;

    fn json_value(report: &DivergenceReport) -> Value {
        let mut out = Vec::new();
        write_json(report, &mut out).unwrap();
        assert!(out.ends_with(b"}\n"));
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn contract_keys_and_types() {
        let value = json_value(&sample_report());
        let object = value.as_object().unwrap();
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "agreement",
                "by_kind",
                "checked",
                "decision_points",
                "divergences",
                "divergent",
                "first_divergence",
                "input_errors",
                "not_checked",
                "policy",
                "policy_reason",
                "release",
                "rested_on",
                "since_changed",
                "trace",
                "unchecked"
            ]
        );
        assert_eq!(value["release"], "8.0.2");
        assert_eq!(value["trace"], "traces/valid/cpu-fetch");
        assert_eq!(value["policy"], "current");
        assert!(value["policy_reason"].is_string());
        assert_eq!(value["decision_points"].as_u64(), Some(4));
        assert_eq!(value["divergent"].as_u64(), Some(1));
        assert_eq!(value["checked"].as_u64(), Some(4));
        assert_eq!(value["not_checked"].as_u64(), Some(0));
        assert!(value["agreement"].is_f64());
        assert_eq!(value["agreement"].as_f64(), Some(0.75));
        assert_eq!(
            value["by_kind"],
            serde_json::json!({
                "work_fetch_choice": {"total": 1, "divergent": 1, "unchecked": 0},
                "run_list": {"total": 3, "divergent": 0, "unchecked": 0},
            })
        );
        let divergences = value["divergences"].as_array().unwrap();
        assert_eq!(divergences.len(), 2);
        let first = &value["first_divergence"];
        assert_eq!(first, &divergences[0]);
        assert_eq!(first["kind"], "work_fetch_choice");
        assert_eq!(first["field"], "chosen_project");
        assert_eq!(first["recorded"], "SETI@home");
        assert_eq!(first["replayed"], "Einstein@Home");
        assert!(first["tolerance"].is_null());
        assert_eq!(divergences[1]["tolerance"].as_f64(), Some(0.001));
        assert_eq!(first["location"]["line"].as_u64(), Some(12));
        assert_eq!(
            value["unchecked"],
            serde_json::json!([{"what": "rr_sim", "why": "the log has no rr_sim_debug lines"}])
        );
    }

    #[test]
    fn no_divergence_gives_null_first() {
        let value = json_value(&DivergenceReport::default());
        assert!(value["first_divergence"].is_null());
        assert_eq!(value["agreement"].as_f64(), Some(1.0));
        assert!(value["agreement"].is_f64());
        assert_eq!(value["by_kind"], serde_json::json!({}));
        assert_eq!(value["divergences"], serde_json::json!([]));
    }
}

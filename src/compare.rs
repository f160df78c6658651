//! A/B comparison: the same input under two policies or two parameter sets.
//!
//! * A **trace** (anchored replay): both sides replay the same recorded
//!   decision points; the comparison lists every decision point whose
//!   replayed decision differs between A and B (with the recorded one beside
//!   them), and each side's agreement with the recording.
//! * A **scenario** (closed-loop simulation): both sides simulate the same
//!   host and servers with the same seed; the comparison lists the figures of
//!   merit and the per-project, per-resource usage side by side.
//!
//! The result is a neutral model ([`Comparison`]) that `report::compare`
//! renders; this module only orchestrates (replay or simulate twice, align,
//! diff) and adds no policy logic.

use crate::audit;
use crate::divergence::{DecisionKind, DecisionPoint, DivergenceReport};
use crate::replay::{AuditOptions, ReplayError};
use crate::simulate::{self, SimError, SimOptions, SimReport};
use crate::trace::Trace;
use serde::Serialize;
use std::collections::BTreeMap;

/// One side of a comparison, as the user described it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideSpec {
    /// `A` or `B`.
    pub label: String,
    /// The policy generation (`None` = chosen from the trace).
    pub policy: Option<String>,
    /// The `KEY=VALUE` overrides of this side, in the order given.
    pub overrides: Vec<String>,
}

impl SideSpec {
    /// `policy current, rec_half_life_days=1` — how reports name the side.
    pub fn describe(&self) -> String {
        let mut text = format!("policy {}", self.policy.as_deref().unwrap_or("auto"));
        for assignment in &self.overrides {
            text.push_str(", ");
            text.push_str(assignment);
        }
        text
    }
}

/// Totals of one side of a replay comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplaySide {
    /// The side as given.
    pub spec: SideSpec,
    /// The generation actually replayed.
    pub policy: String,
    /// Why that generation.
    pub policy_reason: String,
    /// Decision points replayed.
    pub decision_points: usize,
    /// Decision points that diverge from the recording.
    pub divergent: usize,
    /// Fraction of decision points that agree with the recording.
    pub agreement: f64,
}

/// A decision point whose replayed decision differs between the sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChangedDecision {
    /// Seconds on the trace's time base.
    pub time: f64,
    /// The time as the log printed it.
    pub time_label: String,
    /// The decision kind (`work_fetch_choice`, …).
    pub kind: String,
    /// The project concerned, if any.
    pub project: Option<String>,
    /// What the client recorded.
    pub recorded: String,
    /// Side A's decision (`None`: the point exists only on side B).
    pub a: Option<String>,
    /// Side B's decision (`None`: the point exists only on side A).
    pub b: Option<String>,
    /// Does A agree with the recording here?
    pub a_agrees: Option<bool>,
    /// Does B agree with the recording here?
    pub b_agrees: Option<bool>,
}

/// Anchored replay of one trace under both sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplayComparison {
    /// The trace's name.
    pub trace: String,
    /// Side A.
    pub a: ReplaySide,
    /// Side B.
    pub b: ReplaySide,
    /// Decision points compared (present on both sides).
    pub compared: usize,
    /// The decision points whose decisions differ, in trace order.
    pub changed: Vec<ChangedDecision>,
    /// How many decisions differ, by kind.
    pub changed_by_kind: BTreeMap<String, usize>,
    /// A's and B's decisions as one report for the views ([`side_by_side`]).
    #[serde(skip)]
    pub side_by_side: DivergenceReport,
}

/// One number under both sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FigureRow {
    /// What the number is (`idle_fraction`, `usage A NVIDIA GPU`, …).
    pub name: String,
    /// Side A's value (`None`: absent on A).
    pub a: Option<f64>,
    /// Side B's value (`None`: absent on B).
    pub b: Option<f64>,
}

impl FigureRow {
    /// B − A, when both exist.
    pub fn delta(&self) -> Option<f64> {
        Some(self.b? - self.a?)
    }

    /// True when the sides differ by more than `eps` (or one side lacks the figure).
    pub fn differs(&self, eps: f64) -> bool {
        match (self.a, self.b) {
            (Some(a), Some(b)) => (a - b).abs() > eps,
            _ => true,
        }
    }
}

/// Closed-loop simulation of one scenario under both sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimulationComparison {
    /// The scenario as given.
    pub scenario: String,
    /// Side A as given.
    pub a_spec: SideSpec,
    /// Side B as given.
    pub b_spec: SideSpec,
    /// Side A's full outcome.
    pub a: SimReport,
    /// Side B's full outcome.
    pub b: SimReport,
    /// The five figures of merit, A beside B.
    pub figures_of_merit: Vec<FigureRow>,
    /// `usage <project> <resource>` and `flops <project>` rows, A beside B.
    pub usage: Vec<FigureRow>,
}

/// The outcome of `compare`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Comparison {
    /// Anchored replay of a trace.
    Replay(Box<ReplayComparison>),
    /// Closed-loop simulation of a scenario.
    Simulation(Box<SimulationComparison>),
}

/// Figures that differ by no more than this count as equal.
pub const FIGURE_EPSILON: f64 = 1e-9;

impl Comparison {
    /// True when the two sides produced the same decisions (replay) or the
    /// same figures (simulation).
    pub fn identical(&self) -> bool {
        match self {
            Comparison::Replay(c) => c.changed.is_empty(),
            Comparison::Simulation(c) => !c
                .figures_of_merit
                .iter()
                .chain(&c.usage)
                .any(|row| row.differs(FIGURE_EPSILON)),
        }
    }
}

/// Errors of a comparison.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompareError {
    /// One side's replay failed.
    #[error("side {side}: {source}")]
    Replay {
        /// `A` or `B`.
        side: String,
        /// The replay error.
        source: ReplayError,
    },
    /// One side's simulation failed.
    #[error("side {side}: {source}")]
    Simulate {
        /// `A` or `B`.
        side: String,
        /// The simulation error.
        source: SimError,
    },
}

/// One side of a replay comparison: what to replay with.
#[derive(Clone, Debug)]
pub struct ReplayRun {
    /// The side as given.
    pub spec: SideSpec,
    /// The audit options (params after overrides, tolerance, policy).
    pub options: AuditOptions,
}

/// Replays `trace` under both sides and lists the decisions that differ.
pub fn compare_replay(
    trace: &Trace,
    trace_name: &str,
    a: &ReplayRun,
    b: &ReplayRun,
) -> Result<ReplayComparison, CompareError> {
    let run = |side: &ReplayRun| {
        audit::audit_trace(trace, trace_name, &side.options).map_err(|source| {
            CompareError::Replay {
                side: side.spec.label.clone(),
                source,
            }
        })
    };
    let report_a = run(a)?;
    let report_b = run(b)?;
    let (compared, changed) = changed_decisions(&report_a.points, &report_b.points);
    let mut changed_by_kind = BTreeMap::new();
    for change in &changed {
        *changed_by_kind.entry(change.kind.clone()).or_default() += 1;
    }
    Ok(ReplayComparison {
        side_by_side: side_by_side(&report_a, &report_b),
        changed_by_kind,
        trace: trace_name.to_string(),
        a: replay_side(&a.spec, &report_a),
        b: replay_side(&b.spec, &report_b),
        compared,
        changed,
    })
}

fn replay_side(spec: &SideSpec, report: &DivergenceReport) -> ReplaySide {
    ReplaySide {
        spec: spec.clone(),
        policy: report.policy.clone(),
        policy_reason: report.policy_reason.clone(),
        decision_points: report.n_points(),
        divergent: report.n_divergent(),
        agreement: report.agreement(),
    }
}

/// The k-th decision point of each (time, kind, project) of `points`,
/// with its index: how two replays of one trace are aligned.
type Key = (String, DecisionKind, Option<String>, usize);

fn keyed(points: &[DecisionPoint]) -> BTreeMap<Key, (usize, &DecisionPoint)> {
    let mut seen: BTreeMap<(String, DecisionKind, Option<String>), usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (idx, point) in points.iter().enumerate() {
        let base = (point.time_label.clone(), point.kind, point.project.clone());
        let occurrence = seen.entry(base.clone()).or_default();
        out.insert((base.0, base.1, base.2, *occurrence), (idx, point));
        *occurrence += 1;
    }
    out
}

/// A's and B's replays of one trace as one report, for the views (the HTML
/// page draws A's decisions above each lane and B's below): each point's
/// `recorded` text is A's decision and `replayed` B's, and it differs when
/// they do (a point only one side has differs too); the host's activity is
/// A's (the same trace).
pub fn side_by_side(a: &DivergenceReport, b: &DivergenceReport) -> DivergenceReport {
    const NONE: &str = "(no such decision on this side)";
    let map_b = keyed(&b.points);
    let mut points = Vec::new();
    let mut seen_b = std::collections::BTreeSet::new();
    for (key, (_, pa)) in keyed(&a.points) {
        let pb = map_b.get(&key).map(|(idx, pb)| {
            seen_b.insert(*idx);
            *pb
        });
        points.push(pair(pa, Some(&pa.replayed), pb.map(|p| &p.replayed), NONE));
    }
    for (idx, pb) in b.points.iter().enumerate() {
        if !seen_b.contains(&idx) {
            points.push(pair(pb, None, Some(&pb.replayed), NONE));
        }
    }
    points.sort_by(|x, y| x.time.total_cmp(&y.time));
    let divergences = points
        .iter()
        .filter(|p| p.n_divergences > 0)
        .map(|p| crate::divergence::Divergence {
            time: p.time,
            time_label: p.time_label.clone(),
            kind: p.kind,
            project: p.project.clone(),
            resource: p.resource.clone(),
            job: None,
            field: "decision".into(),
            recorded: p.recorded.clone(),
            replayed: p.replayed.clone(),
            tolerance: None,
            reason: "A and B decide differently".into(),
            location: p.location.clone(),
        })
        .collect();
    DivergenceReport {
        trace: a.trace.clone(),
        policy: format!("A: {} / B: {}", a.policy, b.policy),
        policy_reason: format!("A: {} / B: {}", a.policy_reason, b.policy_reason),
        points,
        divergences,
        activity: a.activity.clone(),
        ..DivergenceReport::default()
    }
}

/// One point of [`side_by_side`].
fn pair(
    point: &DecisionPoint,
    a: Option<&String>,
    b: Option<&String>,
    none: &str,
) -> DecisionPoint {
    DecisionPoint {
        recorded: a.map_or(none, String::as_str).to_string(),
        replayed: b.map_or(none, String::as_str).to_string(),
        n_divergences: usize::from(a != b),
        checked: true,
        ..point.clone()
    }
}

/// Aligns the two sides' decision points — the recorded points are the same
/// when both sides use the same generation, but two generations may extract
/// different points — and returns how many were present on both sides and
/// those whose decisions differ. Points pair up by (time, kind, project,
/// occurrence): the k-th point of a kind and project at one time on side A
/// with the k-th on side B.
fn changed_decisions(a: &[DecisionPoint], b: &[DecisionPoint]) -> (usize, Vec<ChangedDecision>) {
    let (map_a, map_b) = (keyed(a), keyed(b));
    let mut compared = 0;
    // (time, position on its side, change): trace order when sorted.
    let mut changed: Vec<(f64, usize, ChangedDecision)> = Vec::new();
    for (key, (idx, pa)) in &map_a {
        match map_b.get(key) {
            Some((_, pb)) => {
                compared += 1;
                if pa.replayed != pb.replayed {
                    changed.push((pa.time, *idx, change(pa, Some(pa), Some(pb))));
                }
            }
            None => changed.push((pa.time, *idx, change(pa, Some(pa), None))),
        }
    }
    for (key, (idx, pb)) in &map_b {
        if !map_a.contains_key(key) {
            changed.push((pb.time, *idx, change(pb, None, Some(pb))));
        }
    }
    changed.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    (compared, changed.into_iter().map(|(_, _, c)| c).collect())
}

fn change(
    point: &DecisionPoint,
    a: Option<&DecisionPoint>,
    b: Option<&DecisionPoint>,
) -> ChangedDecision {
    ChangedDecision {
        time_label: point.time_label.clone(),
        kind: point.kind.name().to_string(),
        project: point.project.clone(),
        recorded: point.recorded.clone(),
        a: a.map(|p| p.replayed.clone()),
        b: b.map(|p| p.replayed.clone()),
        a_agrees: a.map(DecisionPoint::agrees),
        b_agrees: b.map(DecisionPoint::agrees),
        time: point.time,
    }
}

/// One side of a simulation comparison.
#[derive(Clone, Debug)]
pub struct SimulationRun {
    /// The side as given.
    pub spec: SideSpec,
    /// The simulation options (params after overrides).
    pub options: SimOptions,
}

/// Simulates `scenario` under both sides and sets their figures side by side.
pub fn compare_simulation(
    scenario: &str,
    a: &SimulationRun,
    b: &SimulationRun,
) -> Result<SimulationComparison, CompareError> {
    let run = |side: &SimulationRun| {
        simulate::simulate_scenario(scenario, &side.options).map_err(|source| {
            CompareError::Simulate {
                side: side.spec.label.clone(),
                source,
            }
        })
    };
    let report_a = run(a)?;
    let report_b = run(b)?;
    let figures_of_merit = figure_rows(&report_a, &report_b);
    let usage = pair_rows(&usage_rows(&report_a), &usage_rows(&report_b));
    Ok(SimulationComparison {
        scenario: scenario.to_string(),
        a_spec: a.spec.clone(),
        b_spec: b.spec.clone(),
        a: report_a,
        b: report_b,
        figures_of_merit,
        usage,
    })
}

fn figures(report: &SimReport) -> [(&'static str, f64); 5] {
    let f = &report.figures_of_merit;
    [
        ("idle_fraction", f.idle_fraction),
        ("wasted_fraction", f.wasted_fraction),
        ("share_violation", f.share_violation),
        ("monotony", f.monotony),
        ("rpcs_per_job", f.rpcs_per_job),
    ]
}

fn figure_rows(a: &SimReport, b: &SimReport) -> Vec<FigureRow> {
    figures(a)
        .iter()
        .zip(figures(b))
        .map(|((name, va), (_, vb))| FigureRow {
            name: (*name).to_string(),
            a: Some(*va),
            b: Some(vb),
        })
        .collect()
}

/// Every number of a simulation outcome by name, in a stable order: the five
/// figures of merit, `usage <project> <resource>` and `flops <project>`
/// (also what simulation golden cases record and check).
pub fn named_values(report: &SimReport) -> Vec<(String, f64)> {
    let mut rows: Vec<(String, f64)> = figures(report)
        .iter()
        .map(|(name, value)| ((*name).to_string(), *value))
        .collect();
    rows.extend(usage_rows(report));
    for window in &report.windows {
        rows.extend(window.usage.iter().map(|u| {
            (
                format!(
                    "usage {} {} @{}-{}",
                    u.project, u.resource, window.start_hours, window.end_hours
                ),
                u.fraction,
            )
        }));
    }
    rows.extend(report.projects.iter().flat_map(|p| {
        [
            (
                format!("deadlines_met {}", p.project),
                p.deadlines_met as f64,
            ),
            (
                format!("deadlines_missed {}", p.project),
                p.deadlines_missed as f64,
            ),
        ]
    }));
    rows
}

fn usage_rows(report: &SimReport) -> Vec<(String, f64)> {
    let mut rows: Vec<(String, f64)> = report
        .usage
        .iter()
        .map(|u| (format!("usage {} {}", u.project, u.resource), u.fraction))
        .collect();
    rows.extend(
        report
            .projects
            .iter()
            .map(|p| (format!("flops {}", p.project), p.flops_fraction)),
    );
    rows
}

/// Pairs named values of the two sides, in A's order, then B-only names.
fn pair_rows(a: &[(String, f64)], b: &[(String, f64)]) -> Vec<FigureRow> {
    let find =
        |rows: &[(String, f64)], name: &str| rows.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    let mut out: Vec<FigureRow> = a
        .iter()
        .map(|(name, va)| FigureRow {
            name: name.clone(),
            a: Some(*va),
            b: find(b, name),
        })
        .collect();
    out.extend(
        b.iter()
            .filter(|(name, _)| find(a, name).is_none())
            .map(|(name, vb)| FigureRow {
                name: name.clone(),
                a: None,
                b: Some(*vb),
            }),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(time: f64, kind: DecisionKind, replayed: &str, n_div: usize) -> DecisionPoint {
        DecisionPoint {
            time,
            time_label: format!("{time}"),
            kind,
            project: Some("A".into()),
            resource: None,
            recorded: "chosen_project=A".into(),
            replayed: replayed.into(),
            n_divergences: n_div,
            checked: true,
            location: None,
            basis: String::new(),
        }
    }

    #[test]
    fn equal_points_with_other_decisions_are_changed() {
        let a = [
            point(1.0, DecisionKind::WorkFetchChoice, "chosen_project=A", 0),
            point(2.0, DecisionKind::WorkFetchChoice, "chosen_project=A", 0),
        ];
        let b = [
            point(1.0, DecisionKind::WorkFetchChoice, "chosen_project=A", 0),
            point(2.0, DecisionKind::WorkFetchChoice, "chosen_project=B", 1),
        ];
        let (compared, changed) = changed_decisions(&a, &b);
        assert_eq!(compared, 2);
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].time_label, "2");
        assert_eq!(changed[0].a.as_deref(), Some("chosen_project=A"));
        assert_eq!(changed[0].b.as_deref(), Some("chosen_project=B"));
        assert_eq!(
            (changed[0].a_agrees, changed[0].b_agrees),
            (Some(true), Some(false))
        );
    }

    #[test]
    fn points_on_one_side_only_are_listed_once_each() {
        let a = [point(1.0, DecisionKind::WorkFetchChoice, "x", 0)];
        let b = [
            point(1.0, DecisionKind::WorkFetchChoice, "x", 0),
            point(1.0, DecisionKind::RunList, "y", 0),
        ];
        let (compared, changed) = changed_decisions(&a, &b);
        assert_eq!(compared, 1);
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].a, None);
        assert_eq!(changed[0].kind, "run_list");
    }

    #[test]
    fn figure_rows_pair_by_name() {
        let rows = pair_rows(
            &[("usage A CPU".into(), 0.5), ("usage B CPU".into(), 0.5)],
            &[("usage B CPU".into(), 0.75), ("usage C CPU".into(), 0.25)],
        );
        let names: Vec<_> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["usage A CPU", "usage B CPU", "usage C CPU"]);
        assert_eq!(rows[0].b, None);
        assert_eq!(rows[1].delta(), Some(0.25));
        assert!(rows[2].differs(FIGURE_EPSILON));
        assert!(!FigureRow {
            name: "x".into(),
            a: Some(1.0),
            b: Some(1.0)
        }
        .differs(FIGURE_EPSILON));
    }
}

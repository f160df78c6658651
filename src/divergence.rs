//! The neutral result of an audit: decision points, where the replay agrees
//! with what was recorded, and where it diverges and why.
//!
//! Architecture Invariant: depends only on `source`. Every reporter consumes a
//! [`DivergenceReport`] and nothing else; the replay produces one and knows
//! nothing of how it is rendered.

use crate::source::Location;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The kinds of decision point an audit checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// One work-fetch pass: the chosen project, or none.
    WorkFetchChoice,
    /// The work requested: req_secs and req_instances per resource.
    WorkRequest,
    /// The work-fetch state dump: shortfall, nidle, saturated, busy, shares, reasons, backoffs.
    FetchState,
    /// The round-robin simulation: projected finish times and deadline misses.
    RrSim,
    /// One scheduling pass: the ordered run list.
    RunList,
    /// Enforcement: starts, preemptions, GPU instance assignment.
    Enforcement,
    /// REC and scheduling priority per project.
    Priority,
    /// Per-(project, resource) and project-level backoffs.
    Backoff,
    /// A rule of the scheduler (server side) on one RPC exchange.
    ServerRule,
    /// A work-sequence rule.
    SequenceRule,
}

impl DecisionKind {
    /// The snake_case name used in JSON, CSV and tables.
    pub fn name(self) -> &'static str {
        match self {
            DecisionKind::WorkFetchChoice => "work_fetch_choice",
            DecisionKind::WorkRequest => "work_request",
            DecisionKind::FetchState => "fetch_state",
            DecisionKind::RrSim => "rr_sim",
            DecisionKind::RunList => "run_list",
            DecisionKind::Enforcement => "enforcement",
            DecisionKind::Priority => "priority",
            DecisionKind::Backoff => "backoff",
            DecisionKind::ServerRule => "server_rule",
            DecisionKind::SequenceRule => "sequence_rule",
        }
    }
}

impl fmt::Display for DecisionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One value where the replay and the recording disagree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Divergence {
    /// Seconds on the trace's time base (simulated or Unix).
    pub time: f64,
    /// The time as the log printed it.
    pub time_label: String,
    /// Which kind of decision.
    pub kind: DecisionKind,
    /// The project concerned, if any.
    pub project: Option<String>,
    /// The resource concerned (long name), if any.
    pub resource: Option<String>,
    /// The job concerned, if any.
    pub job: Option<String>,
    /// The compared field (`req_secs`, `chosen_project`, `shortfall`, …).
    pub field: String,
    /// What the client recorded.
    pub recorded: String,
    /// What the replay derived.
    pub replayed: String,
    /// The relative tolerance numbers were compared with, if numeric and
    /// compared by it. A value the replay knows only to an interval (its
    /// inputs printed to a unit or a 1-s stamp) shows that interval in
    /// `replayed` (`873.29 ± 1.25`) and has none here.
    pub tolerance: Option<f64>,
    /// The rule and the numbers that led the replay to its value.
    pub reason: String,
    /// Where the recorded value is in the inputs.
    pub location: Option<Location>,
}

/// One decision point: a recorded decision and its replayed counterpart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionPoint {
    /// Seconds on the trace's time base.
    pub time: f64,
    /// The time as the log printed it.
    pub time_label: String,
    /// Which kind of decision.
    pub kind: DecisionKind,
    /// The project concerned, if any.
    pub project: Option<String>,
    /// The resource concerned, if any.
    pub resource: Option<String>,
    /// The recorded decision, as one line of text.
    pub recorded: String,
    /// The replayed decision, as one line of text.
    pub replayed: String,
    /// How many divergences this point has (0 = agrees, when checked).
    pub n_divergences: usize,
    /// The replay could recompute this decision. A point it could not
    /// (`replayed` says what was missing) is neither an agreement nor a
    /// divergence: it is "not checked".
    #[serde(default = "checked_by_default")]
    pub checked: bool,
    /// Where the recorded decision starts in the inputs.
    pub location: Option<Location>,
    /// What the check of this point rested on: the replay's rule and
    /// figures, with the interval of each value the record knows only to
    /// a printed unit or its 1-s stamp (`± x`). Empty where the point was
    /// not checked (`replayed` says why) or kept as a count only.
    #[serde(default)]
    pub basis: String,
}

fn checked_by_default() -> bool {
    true
}

impl DecisionPoint {
    /// True when the replay recomputed this decision and agrees with it.
    pub fn agrees(&self) -> bool {
        self.checked && self.n_divergences == 0
    }

    /// True when the replay recomputed this decision and it differs.
    pub fn diverges(&self) -> bool {
        self.checked && self.n_divergences > 0
    }
}

/// Something the audit could not check, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unchecked {
    /// What was not checked.
    pub what: String,
    /// Why not.
    pub why: String,
}

/// Totals of one decision kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCount {
    /// Decision points of this kind.
    pub total: usize,
    /// Of which diverge.
    pub divergent: usize,
    /// Of which could not be recomputed (neither agree nor diverge).
    #[serde(default)]
    pub unchecked: usize,
}

/// What the checks of one decision kind rested on: how many checked points
/// of that kind were recomputed from which inputs (a real client's log:
/// the lines and host facts each check used; an emulator trace: the
/// anchored client loop).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestedOn {
    /// Which kind of decision.
    pub kind: DecisionKind,
    /// The inputs the check used, in words.
    pub basis: String,
    /// Checked points of this kind that rested on it.
    pub checked: usize,
}

/// Adds `n` checked points of `kind` resting on `basis` to `list` (kept in
/// kind order, then first seen).
pub fn add_rested_on(list: &mut Vec<RestedOn>, kind: DecisionKind, basis: &str, n: usize) {
    if n == 0 {
        return;
    }
    match list.iter_mut().find(|r| r.kind == kind && r.basis == basis) {
        Some(r) => r.checked += n,
        None => {
            let at = list.partition_point(|r| r.kind <= kind);
            list.insert(
                at,
                RestedOn {
                    kind,
                    basis: basis.to_string(),
                    checked: n,
                },
            );
        }
    }
}

/// Decision points of one (kind, project, resource) kept only as counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoldedCount {
    /// Which kind of decision.
    pub kind: DecisionKind,
    /// The project concerned, if any.
    pub project: Option<String>,
    /// The resource concerned, if any.
    pub resource: Option<String>,
    /// How many points.
    pub count: KindCount,
}

/// A trace of an older release judged under both its own release's rules
/// and today's: which decisions today's client makes differently.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SinceChanged {
    /// The release whose rules the audit applied.
    pub release: String,
    /// The rule switches changed between that release and today's, one
    /// line each (switch, first release, function).
    pub changes: Vec<String>,
    /// Checked points consistent with both rule sets.
    pub both: usize,
    /// Consistent with the release's rules, not today's: since-changed
    /// behaviour (upgrading changes it).
    pub release_only: usize,
    /// Consistent with today's rules, not the release's.
    pub today_only: usize,
    /// Consistent with neither: a client defect or an unknown rule.
    pub neither: usize,
    /// Checked under the release's rules, not recomputed under today's.
    #[serde(default)]
    pub today_not_checked: usize,
    /// Since-changed points per kind.
    pub release_only_by_kind: BTreeMap<DecisionKind, usize>,
    /// Per change (commit): the release's points that this change alone,
    /// applied to the release's rules, makes diverge.
    pub by_change: BTreeMap<String, usize>,
    /// The first since-changed point: today's client's value there.
    pub first: Option<Divergence>,
    /// Changes the engine does not recompute whose decisions the log shows,
    /// under which the release behaves otherwise than today's client.
    #[serde(default)]
    pub noted: Vec<NotedHit>,
}

/// One catalogued change a log shows (not recomputed: named), under a
/// release that behaves otherwise than today's client.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NotedHit {
    /// The change: commit(s), date, subject.
    pub change: String,
    /// Where the rule lives.
    pub function: String,
    /// The first release that behaves as today's client.
    pub first: String,
    /// Before and after.
    pub rule: String,
    /// How many lines show the decision.
    pub lines: usize,
    /// The first of them (`file:line:column`).
    pub at: String,
}

/// The complete result of auditing one trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DivergenceReport {
    /// The trace audited (as the user named it).
    pub trace: String,
    /// The policy replayed (`current`, `ltd-6.6`, `debt-6.2`).
    pub policy: String,
    /// Why that policy was chosen (`--policy` given, or the client version seen).
    pub policy_reason: String,
    /// The client release whose rules were applied (7.3 onward), when known.
    pub release: Option<String>,
    /// For a release older than today's rules: each checked decision judged
    /// again under today's rules.
    #[serde(default)]
    pub since_changed: Option<SinceChanged>,
    /// Every decision point, in trace order (those folded into `folded`
    /// excepted).
    pub points: Vec<DecisionPoint>,
    /// Decision points kept only as counts, by (kind, project, resource): a
    /// summary audit of a long log ([`DivergenceReport::fold_agreeing`])
    /// keeps the diverging points and counts the rest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folded: Vec<FoldedCount>,
    /// Every divergence, in trace order.
    pub divergences: Vec<Divergence>,
    /// What could not be checked.
    pub unchecked: Vec<Unchecked>,
    /// Per kind, what its checked points rested on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rested_on: Vec<RestedOn>,
    /// Log lines around the first divergence (for the table reporter).
    pub first_context: Vec<String>,
    /// Inputs that could not be read (file:line:col and what was expected):
    /// the audit went on with the rest; the exit status is 2.
    #[serde(default)]
    pub input_errors: Vec<String>,
    /// The host beside the decisions (resources, jobs' projects, RPCs,
    /// recorded REC), for the reporters that draw a timeline.
    #[serde(default)]
    pub activity: HostActivity,
    /// The log lines around each divergence, index for index with
    /// `divergences` (the first [`MAX_CONTEXTS`] of them; empty where the
    /// trace has no log lines to show).
    #[serde(default)]
    pub contexts: Vec<Vec<String>>,
}

/// One bundle of a fleet audit (`audit --fleet`): where it came from,
/// which host and client wrote it, and its report or why it has none.
#[derive(Clone, Debug, PartialEq)]
pub struct BundleReport {
    /// The bundle as listed (a folder, a file, an archive).
    pub bundle: String,
    /// The host's name (client_state.xml's `domain_name`), when known.
    pub host: Option<String>,
    /// The client version the trace states, when it does.
    pub client_version: Option<String>,
    /// The audit, or why the bundle could not be audited.
    pub outcome: Result<DivergenceReport, String>,
}

/// Divergences that get their log lines in [`DivergenceReport::contexts`].
pub const MAX_CONTEXTS: usize = 2000;

/// What a reporter needs to draw the host beside its decisions, all of it
/// as recorded: the processing resources, the project of each job, the
/// scheduler RPCs and each project's REC and priority over time. Filled by
/// the replay from the trace; a part the trace does not show stays empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostActivity {
    /// Each processing resource with its instance count, CPU first; empty
    /// when the trace does not say (a fragment).
    pub resources: Vec<ResourceInstances>,
    /// The project of each job the trace names with its project.
    pub job_projects: BTreeMap<String, String>,
    /// Scheduler RPCs, in trace order.
    pub rpcs: Vec<RpcMark>,
    /// REC and scheduling priority per project, in trace order.
    pub rec: Vec<RecSample>,
}

/// One processing resource of the host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceInstances {
    /// The resource's type name as enforcement names it (`CPU`, `NVIDIA`,
    /// `ATI`, `intel_gpu`, …).
    pub name: String,
    /// Its instances (CPUs, GPUs).
    pub instances: usize,
}

/// One scheduler RPC.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcMark {
    /// Seconds on the trace's time base.
    pub time: f64,
    /// The time as the log printed it.
    pub time_label: String,
    /// The project contacted.
    pub project: String,
    /// What was asked, as the log shows it (empty when not shown).
    pub request: String,
    /// Jobs received, when the log says.
    pub received: Option<u32>,
}

/// A project's REC or priority at one moment, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecSample {
    /// Seconds on the trace's time base.
    pub time: f64,
    /// The project.
    pub project: String,
    /// Its recent estimated credit.
    pub rec: Option<f64>,
    /// Its scheduling priority.
    pub prio: Option<f64>,
}

/// One step of an enforcement decision, read from its canonical text
/// (`actions=assign J NVIDIA 0,schedule J,starting J,preempt K (left)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnforceStep<'a> {
    /// The job is given instance `instance` of the resource `rsc`.
    Assign {
        /// The job.
        job: &'a str,
        /// The resource's type name.
        rsc: &'a str,
        /// The instance.
        instance: u32,
    },
    /// The job runs after this pass (running already or started).
    Schedule(&'a str),
    /// The job's task is started or resumed.
    Start(&'a str),
    /// The job's task is preempted.
    Preempt(&'a str),
}

/// The steps of an enforcement decision from its canonical text; `None`
/// when the text is not one (a decision not replayed: `(not checked: …)`).
/// Steps of a shape this version does not know are skipped.
pub fn enforcement_steps(text: &str) -> Option<Vec<EnforceStep<'_>>> {
    let actions = text.strip_prefix("actions=")?;
    let steps = actions
        .split(',')
        .filter_map(|action| {
            let (verb, rest) = action.split_once(' ')?;
            let job = rest.split(' ').next().unwrap_or(rest);
            match verb {
                "assign" => {
                    let mut words = rest.rsplitn(3, ' ');
                    let instance = words.next()?.parse().ok()?;
                    let rsc = words.next()?;
                    let job = words.next()?;
                    Some(EnforceStep::Assign { job, rsc, instance })
                }
                "schedule" => Some(EnforceStep::Schedule(job)),
                "starting" | "resuming" | "restarting" => Some(EnforceStep::Start(job)),
                "preempt" => Some(EnforceStep::Preempt(job)),
                _ => None,
            }
        })
        .collect();
    Some(steps)
}

/// The resource of each job of a run-list decision's canonical text
/// (`order=A,B A/rsc=NVIDIA GPU A/edf=FIFO … B/rsc=CPU …`), in list order;
/// empty when the text is not one.
pub fn run_list_resources(text: &str) -> Vec<(&str, &str)> {
    let Some(rest) = text.strip_prefix("order=") else {
        return Vec::new();
    };
    let order = rest.split(' ').next().unwrap_or_default();
    order
        .split(',')
        .filter(|job| !job.is_empty())
        .filter_map(|job| {
            let key = format!(" {job}/rsc=");
            let start = rest.find(&key)? + key.len();
            let tail = &rest[start..];
            let end = tail.find(&format!(" {job}/")).unwrap_or(tail.len());
            Some((job, &tail[..end]))
        })
        .collect()
}

impl DivergenceReport {
    /// Decision points, folded ones included.
    pub fn n_points(&self) -> usize {
        self.points.len() + self.folded.iter().map(|f| f.count.total).sum::<usize>()
    }

    /// Decision points that diverge.
    pub fn n_divergent(&self) -> usize {
        self.points.iter().filter(|point| point.diverges()).count()
            + self.folded.iter().map(|f| f.count.divergent).sum::<usize>()
    }

    /// Decision points the replay recomputed (agreeing or diverging).
    pub fn n_checked(&self) -> usize {
        self.points.iter().filter(|point| point.checked).count()
            + self
                .folded
                .iter()
                .map(|f| f.count.total - f.count.unchecked)
                .sum::<usize>()
    }

    /// Files every checked point whose kind's [`RestedOn`] counts do not
    /// yet cover it under `basis` (a path that checks every point of a
    /// kind from the same inputs says them once, here).
    pub fn rest_unlabelled_on(&mut self, basis: &str) {
        let mut checked: BTreeMap<DecisionKind, usize> = BTreeMap::new();
        for point in self.points.iter().filter(|p| p.checked) {
            *checked.entry(point.kind).or_default() += 1;
        }
        for f in &self.folded {
            *checked.entry(f.kind).or_default() += f.count.total - f.count.unchecked;
        }
        for (kind, n) in checked {
            let said: usize = self
                .rested_on
                .iter()
                .filter(|r| r.kind == kind)
                .map(|r| r.checked)
                .sum();
            add_rested_on(&mut self.rested_on, kind, basis, n.saturating_sub(said));
        }
    }

    /// Totals by decision kind, in kind order.
    pub fn by_kind(&self) -> BTreeMap<DecisionKind, KindCount> {
        let mut counts: BTreeMap<DecisionKind, KindCount> = BTreeMap::new();
        for ((kind, _, _), count) in self.counts() {
            let into = counts.entry(kind).or_default();
            into.total += count.total;
            into.divergent += count.divergent;
            into.unchecked += count.unchecked;
        }
        counts
    }

    /// Totals by (kind, project, resource), folded points included.
    pub fn counts(&self) -> BTreeMap<(DecisionKind, Option<&str>, Option<&str>), KindCount> {
        let mut counts: BTreeMap<(DecisionKind, Option<&str>, Option<&str>), KindCount> =
            BTreeMap::new();
        for point in &self.points {
            let count = counts
                .entry((
                    point.kind,
                    point.project.as_deref(),
                    point.resource.as_deref(),
                ))
                .or_default();
            count.total += 1;
            count.divergent += usize::from(point.diverges());
            count.unchecked += usize::from(!point.checked);
        }
        for f in &self.folded {
            let count = counts
                .entry((f.kind, f.project.as_deref(), f.resource.as_deref()))
                .or_default();
            count.total += f.count.total;
            count.divergent += f.count.divergent;
            count.unchecked += f.count.unchecked;
        }
        counts
    }

    /// Keeps only the diverging points and counts the others in `folded`
    /// (memory bounded by the divergences, not the log's length): for the
    /// reporters that print totals and divergences (table, JSON, diff).
    pub fn fold_agreeing(&mut self) {
        let mut index: std::collections::HashMap<
            (DecisionKind, Option<String>, Option<String>),
            usize,
        > = self
            .folded
            .iter()
            .enumerate()
            .map(|(i, f)| ((f.kind, f.project.clone(), f.resource.clone()), i))
            .collect();
        let points = std::mem::take(&mut self.points);
        for point in points {
            if point.diverges() {
                self.points.push(point);
                continue;
            }
            let key = (point.kind, point.project, point.resource);
            let at = match index.get(&key) {
                Some(&at) => at,
                None => {
                    self.folded.push(FoldedCount {
                        kind: key.0,
                        project: key.1.clone(),
                        resource: key.2.clone(),
                        count: KindCount::default(),
                    });
                    index.insert(key, self.folded.len() - 1);
                    self.folded.len() - 1
                }
            };
            let count = &mut self.folded[at].count;
            count.total += 1;
            count.unchecked += usize::from(!point.checked);
        }
    }

    /// The first divergence in trace order, if any.
    pub fn first_divergence(&self) -> Option<&Divergence> {
        self.divergences.first()
    }

    /// Fraction of the checked decision points that agree (1.0 when none
    /// was checked: reporters then say that nothing could be checked).
    pub fn agreement(&self) -> f64 {
        let checked = self.n_checked();
        if checked == 0 {
            1.0
        } else {
            1.0 - self.n_divergent() as f64 / checked as f64
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rested_on_counts_each_checked_point_once_in_kind_order() {
        let mut report = DivergenceReport {
            points: vec![
                point(DecisionKind::RrSim, 0),
                point(DecisionKind::RunList, 1),
                point(DecisionKind::RunList, 0),
            ],
            ..DivergenceReport::default()
        };
        report.points[2].checked = false;
        add_rested_on(&mut report.rested_on, DecisionKind::RunList, "lines", 1);
        report.rest_unlabelled_on("loop");
        let got: Vec<(DecisionKind, &str, usize)> = report
            .rested_on
            .iter()
            .map(|r| (r.kind, r.basis.as_str(), r.checked))
            .collect();
        // The run list's one checked point is said already; the unchecked
        // one rests on nothing.
        assert_eq!(
            got,
            [
                (DecisionKind::RrSim, "loop", 1),
                (DecisionKind::RunList, "lines", 1)
            ]
        );
        add_rested_on(&mut report.rested_on, DecisionKind::RrSim, "loop", 2);
        add_rested_on(&mut report.rested_on, DecisionKind::RrSim, "other", 0);
        assert_eq!(report.rested_on[0].checked, 3);
        assert_eq!(report.rested_on.len(), 2);
    }

    use super::*;

    fn point(kind: DecisionKind, n_divergences: usize) -> DecisionPoint {
        DecisionPoint {
            time: 3600.0,
            time_label: "01:00:00".into(),
            kind,
            project: None,
            resource: None,
            recorded: "x".into(),
            replayed: "x".into(),
            n_divergences,
            checked: true,
            location: None,
            basis: String::new(),
        }
    }

    #[test]
    fn enforcement_text_reads_back() {
        let steps = enforcement_steps(
            "actions=assign A_0 NVIDIA 0,schedule A_0,starting A_0,preempt B_1 (left),resuming C",
        );
        assert_eq!(
            steps,
            Some(vec![
                EnforceStep::Assign {
                    job: "A_0",
                    rsc: "NVIDIA",
                    instance: 0
                },
                EnforceStep::Schedule("A_0"),
                EnforceStep::Start("A_0"),
                EnforceStep::Preempt("B_1"),
                EnforceStep::Start("C"),
            ])
        );
        assert_eq!(enforcement_steps("actions="), Some(Vec::new()));
        assert_eq!(enforcement_steps("(not checked: no state)"), None);
    }

    #[test]
    fn run_list_text_reads_back() {
        let text = "order=A_0,B_0 A_0/rsc=NVIDIA GPU A_0/edf=FIFO A_0/prio=-2.000000 \
                    B_0/rsc=CPU B_0/edf=EDF B_0/prio=-0.000000";
        assert_eq!(
            run_list_resources(text),
            vec![("A_0", "NVIDIA GPU"), ("B_0", "CPU")]
        );
        assert!(run_list_resources("(not checked: x)").is_empty());
    }

    #[test]
    fn counts_by_kind_and_agreement() {
        let report = DivergenceReport {
            points: vec![
                point(DecisionKind::RunList, 0),
                point(DecisionKind::RunList, 2),
                point(DecisionKind::WorkFetchChoice, 0),
                point(DecisionKind::RunList, 0),
            ],
            ..DivergenceReport::default()
        };
        let by_kind = report.by_kind();
        assert_eq!(
            by_kind[&DecisionKind::RunList],
            KindCount {
                total: 3,
                divergent: 1,
                unchecked: 0
            }
        );
        assert_eq!(
            by_kind[&DecisionKind::WorkFetchChoice],
            KindCount {
                total: 1,
                divergent: 0,
                unchecked: 0
            }
        );
        assert_eq!(report.n_divergent(), 1);
        assert!((report.agreement() - 0.75).abs() < 1e-12);
    }

    /// Three outcomes: a point not checked is neither an agreement nor a
    /// divergence, and the agreement is over the checked points (here 2 of
    /// 3 checked agree).
    #[test]
    fn unchecked_points_neither_agree_nor_diverge() {
        let mut unchecked = point(DecisionKind::RunList, 0);
        unchecked.checked = false;
        let report = DivergenceReport {
            points: vec![
                point(DecisionKind::RunList, 0),
                unchecked,
                point(DecisionKind::RunList, 1),
                point(DecisionKind::RunList, 0),
            ],
            ..DivergenceReport::default()
        };
        assert_eq!(report.n_checked(), 3);
        assert_eq!(report.n_divergent(), 1);
        assert!((report.agreement() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(
            report.by_kind()[&DecisionKind::RunList],
            KindCount {
                total: 4,
                divergent: 1,
                unchecked: 1
            }
        );
    }

    #[test]
    fn kind_names_match_serde() {
        for kind in [
            DecisionKind::WorkFetchChoice,
            DecisionKind::RrSim,
            DecisionKind::ServerRule,
        ] {
            let json = serde_json::to_value(kind).ok();
            assert_eq!(json.as_ref().and_then(|v| v.as_str()), Some(kind.name()));
        }
    }
}

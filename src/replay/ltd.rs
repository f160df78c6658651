//! Audit of the 6.6–6.10 generation (`ltd-6.6`) over a 6.10.60 emulator
//! trace: the [client loop](crate::client_loop) under the `ltd-6.6` policy
//! and that emulator's harness ([`Profile::sim_6_10`]), with the emulator as
//! its world ([`Emulator610`] with the recorded job sizes); an observer ([`Printer`]) prints each
//! decision the way the client prints it, and every one is compared with
//! the one the log recorded at the same time step.
//!
//! # What is taken from the trace (external inputs)
//!
//! - sim_host.xml (CPUs, FLOPS), sim_projects.xml (projects in file order,
//!   resource shares, each app's FLOPs estimate and latency bound),
//!   sim_prefs.xml (buffer, scheduling period);
//! - the time step and run length (`starting simultion. delta D duration L`);
//! - each job's true CPU time: sim_out_0.html `Starting JOB: SECS` (to the
//!   microsecond), else the dynamic term of its first `[rr_sim] JOB dur:`
//!   line (two decimals), else the app's mean FLOPs ÷ host FLOPS.
//!
//! Nothing else: which project is asked, for how much, what the emulated
//! server sends (B.15.1), debts, simulations, picks and enforcement are the
//! replay's own.
//!
//! # Decision points
//!
//! Each recorded group of lines is one point, compared line by line (typed,
//! after printing the replayed values the way the client prints them):
//! `work_fetch_choice` (`chosen: …` or `No project chosen`), `work_request`
//! (`RPC to P; asking for S/I`), `fetch_state` (the `[wfd]` state block),
//! `priority` (one debt update: `[debt]`, `[debt_debug]`, `[std_debug]`),
//! `rr_sim` (a simulation's starts, finishes and misses), `run_list` (a
//! `schedule_cpus()` pass's picks), `enforcement` (an `enforce_schedule()`:
//! job lists, skips, preemptions, starts and resumes). Points are matched
//! by (time step, kind, order within the step).

use crate::client_loop::{ClientLoop, LoopEvent, LoopOptions, LtdEvent, Observer, Profile};
use crate::divergence::{DecisionKind, DecisionPoint, Divergence, Unchecked};
use crate::parse::log_messages::classify;
use crate::policy::generation::Generation;
use crate::policy::ltd::cpu_sched::{EnforceOutcome, ScheduleOutcome, TaskChange};
use crate::policy::ltd::debt::{DebtInterval, DebtUpdate};
use crate::policy::ltd::rr_sim::RrSimOutcome;
use crate::policy::ltd::work_fetch::{WorkFetchOutcome, WorkRequest};
use crate::policy::state::HostState;
use crate::simulate::emulator_6_10::{build, log_runtimes, Emulator610, JobSizes};
use crate::simulate::log_out_6_10::{
    debt_lines, fetch_block_lines, job_name, job_project, project_name, rpc_line,
};
use crate::trace::{EventTime, LogEvent, Message, Trace};
use compact_str::CompactString;
use std::collections::BTreeMap;

use super::ReplayError;

/// One line of a decision point: the project column and the typed body.
type Item = (Option<CompactString>, Message);

/// A decision point, recorded or replayed.
#[derive(Clone, Debug)]
struct Point {
    time: f64,
    kind: DecisionKind,
    project: Option<String>,
    items: Vec<Item>,
    /// Replayed only: the lines as the client would print them.
    text: Vec<String>,
    /// Recorded only: index of the first event.
    event_idx: usize,
}

/// What the 6.10 audit produced.
pub struct LtdAudit {
    /// Every decision point.
    pub points: Vec<DecisionPoint>,
    /// Their divergences.
    pub divergences: Vec<Divergence>,
    /// What was not checked, and why.
    pub unchecked: Vec<Unchecked>,
}

/// The simulated clock's origin (01-Jan-2000 00:00:00 UTC).
const SIM_EPOCH: f64 = 946_684_800.0;

fn event_seconds(time: &EventTime) -> Option<f64> {
    match time {
        EventTime::Local(dt) => Some(dt.and_utc().timestamp() as f64),
        EventTime::Unix(secs) => Some(*secs as f64),
        EventTime::Simulated(secs) => Some(*secs as f64),
        EventTime::None => None,
    }
}

fn label(secs: f64) -> String {
    chrono::DateTime::from_timestamp(secs as i64, 0)
        .map(|t| t.format("%d-%b-%Y %H:%M:%S").to_string())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------
// Recorded points

fn is_rr_sim_line(message: &Message) -> bool {
    matches!(
        message,
        Message::SimStarting { .. }
            | Message::SimFinishesAfter { .. }
            | Message::MissesDeadline { .. }
    )
}

fn is_enforcement_line(message: &Message) -> bool {
    matches!(
        message,
        Message::PreliminaryJobList
            | Message::FinalJobList
            | Message::JobListEntry { .. }
            | Message::AllCpusUsed { .. }
            | Message::UsingCpus { .. }
            | Message::Preempting { .. }
            | Message::EmuTaskStart { .. }
            | Message::Scheduling { .. }
    )
}

fn is_pick_line(message: &Message) -> bool {
    matches!(
        message,
        Message::HighestDebt { .. }
            | Message::EarliestDeadline { .. }
            | Message::SchedulingRunList { .. }
    )
}

fn is_debt_tag(tag: Option<&str>) -> bool {
    matches!(tag, Some("debt" | "debt_debug" | "std_debug"))
}

/// Groups the 6.10 log's lines into decision points.
fn recorded_points(events: &[LogEvent]) -> Vec<Point> {
    #[derive(PartialEq)]
    enum Open {
        None,
        RrSim,
        State,
        Enforce,
        Debt,
    }
    let mut points: Vec<Point> = Vec::new();
    let mut open = Open::None;
    // Index of the open schedule_cpus() point (its simulation runs inside).
    let mut pass: Option<usize> = None;
    for (idx, event) in events.iter().enumerate() {
        let Some(time) = event_seconds(&event.time) else {
            continue;
        };
        if time < SIM_EPOCH {
            continue;
        }
        let item = || (event.project.clone(), event.message.clone());
        let new_point = |kind: DecisionKind, items: Vec<Item>| Point {
            time,
            kind,
            project: event.project.as_ref().map(|p| p.to_string()),
            items,
            text: Vec::new(),
            event_idx: idx,
        };
        let tag = event.tag.as_deref();
        // Close a debt group at the first line of another tag; an rr_sim
        // group at the first line that is not [rr_sim].
        if open == Open::Debt && !is_debt_tag(tag) {
            open = Open::None;
        }
        if open == Open::RrSim && tag != Some("rr_sim") {
            open = Open::None;
        }
        match &event.message {
            Message::RrSimStartTotal { .. } => {
                points.push(new_point(DecisionKind::RrSim, Vec::new()));
                open = Open::RrSim;
            }
            m if open == Open::RrSim && is_rr_sim_line(m) => {
                if let Some(p) = points.last_mut() {
                    p.items.push(item());
                }
            }
            Message::Chosen { .. } | Message::NoProjectChosen => {
                let mut point = new_point(DecisionKind::WorkFetchChoice, vec![item()]);
                if matches!(event.message, Message::NoProjectChosen) {
                    point.project = None;
                }
                points.push(point);
            }
            Message::EmuRpcTo { project, .. } => {
                let mut point = new_point(DecisionKind::WorkRequest, vec![item()]);
                point.project = Some(project.to_string());
                points.push(point);
            }
            Message::WorkFetchStateStart => {
                points.push(new_point(DecisionKind::FetchState, Vec::new()));
                open = Open::State;
            }
            Message::WorkFetchStateEnd => open = Open::None,
            Message::TargetWorkBuffer { .. }
            | Message::LtdResourceState { .. }
            | Message::LtdFetchShare { .. }
            | Message::OverallLtd { .. }
                if open == Open::State =>
            {
                if let Some(p) = points.last_mut() {
                    p.items.push(item());
                }
            }
            Message::ScheduleCpusStart => {
                pass = Some(points.len());
                points.push(new_point(DecisionKind::RunList, Vec::new()));
                open = Open::None;
            }
            m if pass.is_some() && is_pick_line(m) => {
                if let Some(p) = pass.and_then(|i| points.get_mut(i)) {
                    p.items.push(item());
                }
            }
            Message::RequestEnforceSchedule { .. } => pass = None,
            Message::EnforceScheduleStart => {
                points.push(new_point(DecisionKind::Enforcement, Vec::new()));
                open = Open::Enforce;
            }
            Message::EnforceScheduleEnd => open = Open::None,
            m if open == Open::Enforce && is_enforcement_line(m) => {
                if let Some(p) = points.last_mut() {
                    p.items.push(item());
                }
            }
            _ if is_debt_tag(tag) => {
                if open != Open::Debt {
                    let mut point = new_point(DecisionKind::Priority, Vec::new());
                    point.project = None;
                    points.push(point);
                    open = Open::Debt;
                }
                if let Some(p) = points.last_mut() {
                    p.items.push(item());
                }
            }
            _ => {}
        }
    }
    points
}

// ---------------------------------------------------------------------------
// The observer: each decision of the loop, printed as the client prints it

/// Turns the loop's ltd-6.6 decisions into points of printed lines.
#[derive(Default)]
struct Printer {
    out: Vec<Point>,
    /// Jobs started, in order (their sizes are checked for coarseness after).
    started: Vec<CompactString>,
}

impl Printer {
    fn open(&mut self, now: f64, kind: DecisionKind, project: Option<String>) {
        self.out.push(Point {
            time: now,
            kind,
            project,
            items: Vec::new(),
            text: Vec::new(),
            event_idx: 0,
        });
    }

    /// Adds a line to the open point: typed as the log parser types it.
    fn line(&mut self, project: Option<String>, body: String) {
        let project = project.map(CompactString::from);
        let message = classify(&body).message;
        if let Some(point) = self.out.last_mut() {
            let shown = match &project {
                Some(p) => format!("[{p}] {body}"),
                None => format!("[---] {body}"),
            };
            point.text.push(shown);
            point.items.push((project, message));
        }
    }

    fn rr_sim(&mut self, state: &HostState, now: f64, sim: &RrSimOutcome) {
        self.open(now, DecisionKind::RrSim, None);
        for event in &sim.events {
            let j = event.job();
            self.line(job_project(state, j), event.line(&job_name(state, j)));
        }
    }

    fn run_list(&mut self, state: &HostState, now: f64, outcome: &ScheduleOutcome) {
        self.open(now, DecisionKind::RunList, None);
        for pick in &outcome.picks {
            let project = job_project(state, pick.job);
            for body in pick.lines(&job_name(state, pick.job)) {
                self.line(project.clone(), body);
            }
        }
    }

    fn debts(
        &mut self,
        state: &HostState,
        now: f64,
        interval: DebtInterval,
        update: Option<&DebtUpdate>,
    ) {
        self.open(now, DecisionKind::Priority, None);
        let Some(update) = update else {
            self.line(None, interval.to_string());
            return;
        };
        for (_, (project, text)) in debt_lines(state, update) {
            self.line(project, text);
        }
    }

    fn enforced(&mut self, state: &HostState, now: f64, outcome: &EnforceOutcome) {
        self.open(now, DecisionKind::Enforcement, None);
        let name = |j: usize| job_name(state, j).to_string();
        for (job, body) in outcome.lines(state.ninstances(0), &name) {
            self.line(job.and_then(|j| job_project(state, j)), body);
        }
        for change in &outcome.changes {
            if let TaskChange::Start(j) = *change {
                self.started.push(job_name(state, j).into());
            }
        }
    }

    fn work_fetch(&mut self, state: &HostState, now: f64, outcome: &WorkFetchOutcome) {
        let chosen = outcome
            .choice
            .as_ref()
            .map(|c| project_name(state, c.project).to_string());
        self.open(now, DecisionKind::WorkFetchChoice, chosen);
        match &outcome.choice {
            Some(choice) => {
                self.line(
                    Some(project_name(state, choice.project)),
                    choice.to_string(),
                );
            }
            None => self.line(None, "[wfd] No project chosen for work fetch".into()),
        }
        self.open(now, DecisionKind::FetchState, None);
        for (project, text) in fetch_block_lines(state, &outcome.state) {
            self.line(project, text);
        }
    }

    fn request(&mut self, state: &HostState, now: f64, project: usize, request: &WorkRequest) {
        let name = project_name(state, project);
        self.open(now, DecisionKind::WorkRequest, Some(name));
        self.line(None, rpc_line(state, project, request));
    }
}

impl Observer for Printer {
    fn event(&mut self, state: &HostState, now: f64, event: LoopEvent<'_>) {
        let LoopEvent::Ltd(event) = event else {
            return;
        };
        match event {
            LtdEvent::RrSim { sim, .. } => self.rr_sim(state, now, sim),
            LtdEvent::RunList(outcome) => self.run_list(state, now, outcome),
            LtdEvent::Debts { interval, update } => self.debts(state, now, interval, update),
            LtdEvent::Enforced { outcome, .. } => self.enforced(state, now, outcome),
            LtdEvent::WorkFetch(outcome) => self.work_fetch(state, now, outcome),
            LtdEvent::Request { project, request } => self.request(state, now, project, request),
            // Bookkeeping lines: not decisions.
            LtdEvent::Dcf { .. }
            | LtdEvent::PeriodElapsed
            | LtdEvent::RpcPollNotTime { .. }
            | LtdEvent::RpcPollStart
            | LtdEvent::RpcPollDone(_)
            | LtdEvent::PollBegins
            | LtdEvent::PollEnds { .. }
            | LtdEvent::StepTaken { .. } => {}
        }
    }
}

// ---------------------------------------------------------------------------
// Comparison

fn render(items: &[Item], text: &[String]) -> String {
    if !text.is_empty() {
        return text.join(" | ");
    }
    items
        .iter()
        .map(|(p, m)| format!("[{}] {m:?}", p.as_deref().unwrap_or("---")))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Two JSON renderings agree: same shape, same strings, numbers within the
/// relative tolerance (the client's `%f` of a long computation can differ in
/// its last printed digit).
/// Numbers compare within `rel` × magnitude or `abs`, whichever is larger.
#[derive(Clone, Copy, Debug)]
struct Tolerance {
    rel: f64,
    abs: f64,
}

fn json_agree(a: &serde_json::Value, b: &serde_json::Value, tol: Tolerance) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => {
                x == y || (x - y).abs() <= (tol.rel * x.abs().max(y.abs())).max(tol.abs)
            }
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_agree(x, y, tol))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_agree(v, w, tol)))
        }
        _ => a == b,
    }
}

fn item_agrees(recorded: Option<&Item>, replayed: Option<&Item>, tol: Tolerance) -> bool {
    match (recorded, replayed) {
        (Some(a), Some(b)) if a == b => true,
        (Some((pa, ma)), Some((pb, mb))) if pa == pb => {
            match (serde_json::to_value(ma), serde_json::to_value(mb)) {
                (Ok(x), Ok(y)) => json_agree(&x, &y, tol),
                _ => false,
            }
        }
        (None, None) => true,
        _ => false,
    }
}

fn first_difference(recorded: &[Item], replayed: &[Item], tol: Tolerance) -> Option<usize> {
    let n = recorded.len().max(replayed.len());
    (0..n).find(|&i| !item_agrees(recorded.get(i), replayed.get(i), tol))
}

/// Absolute tolerance when job sizes are known to 0.01 s only (no
/// sim_out_0.html): the sizes' rounding moves printed seconds and GFLOPs by
/// a few hundredths.
const COARSE_SIZE_TOLERANCE: f64 = 0.05;

/// Audits a 6.10.60 emulator trace.
pub fn audit(trace: &Trace, tolerance: f64) -> Result<LtdAudit, ReplayError> {
    let (state, apps) = build(trace)?;
    let (delta, duration, start) = trace
        .events
        .iter()
        .find_map(|e| match e.message {
            Message::EmuStartingSimulation { delta, duration } => {
                Some((delta, duration, event_seconds(&e.time)?))
            }
            _ => None,
        })
        .ok_or_else(|| {
            ReplayError::MissingState(
                "the log has no `starting simultion. delta D duration L` line".into(),
            )
        })?;
    if !(delta > 0.0 && duration >= 0.0) {
        return Err(ReplayError::MissingState(format!(
            "time step {delta} / duration {duration} unusable"
        )));
    }
    let mut world = Emulator610::new(
        apps,
        JobSizes::Recorded {
            exact: &trace.job_runtimes,
            printed: log_runtimes(&trace.events),
        },
    );
    let mut printer = Printer::default();
    // A truncated log ends the replay at its last time step.
    let last = trace
        .events
        .iter()
        .rev()
        .find_map(|e| event_seconds(&e.time))
        .unwrap_or(start);
    let end = start + duration.min(last - start);
    // A log that stops before the run's end, and not on the `did no action`
    // that closes every step of the 6.10 emulator, was cut inside its last
    // time step: that step's decisions are shown only in part.
    let whole_steps = trace
        .events
        .last()
        .is_some_and(|e| matches!(e.message, Message::EmuDidNoAction));
    let cut_from = (last + 0.5 < start + duration && !whole_steps).then_some(last);
    let cut = |time: f64| cut_from.is_some_and(|from| time >= from - 0.5);
    const CUT: &str = "(not checked: the log ends inside this time step (a truncated or \
                       still-growing file): only its start is recorded)";
    let options = LoopOptions {
        delta,
        duration: (end - start).max(0.0),
        params: crate::policy::Params::default(),
        profile: Profile {
            sim_6_10: true,
            ..Profile::of(Generation::Ltd66)
        },
    };
    let mut stopped = None;
    match ClientLoop::new(state, options, &mut world, &mut printer) {
        Ok(mut run) => {
            // Steps are whole seconds: half a second of margin.
            if let Err(e) = run.run_steps(start, end + 0.5) {
                stopped = Some(format!("the replay stopped: {e}"));
            }
        }
        Err(e) => stopped = Some(format!("the replay could not start: {e}")),
    }
    let coarse: Vec<String> = printer
        .started
        .iter()
        .filter(|name| world.coarse.contains(*name))
        .map(|name| name.to_string())
        .collect();
    let replayed = printer.out;
    let tol = Tolerance {
        rel: tolerance,
        abs: if coarse.is_empty() {
            0.0
        } else {
            COARSE_SIZE_TOLERANCE
        },
    };
    let recorded = recorded_points(&trace.events);

    // Match by (time, kind, order).
    let mut by_key: BTreeMap<(i64, DecisionKind), Vec<&Point>> = BTreeMap::new();
    for point in &replayed {
        by_key
            .entry((point.time as i64, point.kind))
            .or_default()
            .push(point);
    }
    let mut used: BTreeMap<(i64, DecisionKind), usize> = BTreeMap::new();
    let mut points = Vec::new();
    let mut divergences = Vec::new();
    for rec in &recorded {
        let key = (rec.time as i64, rec.kind);
        let n = used.entry(key).or_insert(0);
        let rep = by_key.get(&key).and_then(|v| v.get(*n)).copied();
        *n += 1;
        let location = trace.events.get(rec.event_idx).map(|e| e.location.clone());
        let recorded_text = render(&rec.items, &[]);
        let checked = !cut(rec.time);
        let (replayed_text, diff) = match rep {
            _ if !checked => (CUT.to_string(), None),
            Some(rep) => (
                render(&rep.items, &rep.text),
                first_difference(&rec.items, &rep.items, tol).map(|i| {
                    (
                        rec.items.get(i).map_or("(nothing)".to_string(), |it| {
                            render(std::slice::from_ref(it), &[])
                        }),
                        rep.text
                            .get(i)
                            .cloned()
                            .unwrap_or_else(|| "(nothing)".to_string()),
                        format!("line {} of the group", i + 1),
                    )
                }),
            ),
            None => (
                "(none)".to_string(),
                Some((
                    recorded_text.clone(),
                    "(none)".to_string(),
                    "the replay made no such decision in this time step".to_string(),
                )),
            ),
        };
        let n_div = usize::from(diff.is_some());
        if let Some((recorded_value, replayed_value, reason)) = diff {
            divergences.push(Divergence {
                time: rec.time,
                time_label: label(rec.time),
                kind: rec.kind,
                project: rec.project.clone(),
                resource: Some("CPU".into()),
                job: None,
                field: rec.kind.name().into(),
                recorded: recorded_value,
                replayed: replayed_value,
                tolerance: Some(tolerance),
                reason: format!("ltd-6.6 replay: {reason}"),
                location: location.clone(),
            });
        }
        points.push(DecisionPoint {
            time: rec.time,
            time_label: label(rec.time),
            kind: rec.kind,
            project: rec.project.clone(),
            resource: Some("CPU".into()),
            recorded: if n_div == 0 && checked {
                replayed_text.clone()
            } else {
                recorded_text
            },
            replayed: replayed_text,
            n_divergences: n_div,
            checked,
            location,
        });
    }
    // Replayed decisions the log does not have.
    for (key, list) in &by_key {
        let n = used.get(key).copied().unwrap_or(0);
        for rep in list.iter().skip(n).filter(|rep| !cut(rep.time)) {
            let replayed_text = render(&rep.items, &rep.text);
            divergences.push(Divergence {
                time: rep.time,
                time_label: label(rep.time),
                kind: rep.kind,
                project: rep.project.clone(),
                resource: Some("CPU".into()),
                job: None,
                field: rep.kind.name().into(),
                recorded: "(none)".into(),
                replayed: replayed_text.clone(),
                tolerance: None,
                reason: "ltd-6.6 replay: the log has no such decision in this time step".into(),
                location: None,
            });
            points.push(DecisionPoint {
                time: rep.time,
                time_label: label(rep.time),
                kind: rep.kind,
                project: rep.project.clone(),
                resource: Some("CPU".into()),
                recorded: "(none)".into(),
                replayed: replayed_text,
                n_divergences: 1,
                checked: true,
                location: None,
            });
        }
    }
    points.sort_by(|a, b| a.time.total_cmp(&b.time));
    divergences.sort_by(|a, b| a.time.total_cmp(&b.time));
    let mut unchecked = vec![Unchecked {
        what: "[dcf], [css], [task_debug] and `sched state` lines".into(),
        why: "state changes that follow from the checked decisions; not compared".into(),
    }];
    if let Some(why) = stopped {
        unchecked.push(Unchecked {
            what: "the decisions after the replay stopped".into(),
            why,
        });
    }
    if let Some(from) = cut_from {
        unchecked.push(Unchecked {
            what: format!("the decisions of the last time step ({})", label(from)),
            why: "the log ends inside this time step (a truncated or still-growing file) \
                  before the run's duration: only its start is recorded"
                .into(),
        });
    }
    if !coarse.is_empty() {
        unchecked.push(Unchecked {
            what: format!(
                "exact job sizes of {} job(s) (first: {})",
                coarse.len(),
                coarse.first().map_or("", String::as_str)
            ),
            why: format!(
                "not in sim_out_0.html: sizes taken from the log's `dur:` lines (0.01 s) or \
                 the app's mean; numbers compared within ±{COARSE_SIZE_TOLERANCE} as well"
            ),
        });
    }
    Ok(LtdAudit {
        points,
        divergences,
        unchecked,
    })
}

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
//!
//! # At once or window by window
//!
//! [`LtdRun`] takes a run's lines at once ([`audit`]) or window by window as
//! a long log is read (`audit::Sessions`, after a first pass has read what
//! the harness needs of later lines: [`Prescan610`]). A time step's points
//! are compared once every line of the step is read and the loop has run
//! it, in the order the whole run's report lists them, so both give the
//! same report.

use crate::client_loop::{
    ClientLoop, HostSample, LoopCore, LoopEvent, LoopOptions, LtdEvent, Observer, Profile,
};
use crate::divergence::{DecisionKind, DecisionPoint, Divergence, Unchecked};
use crate::parse::log_messages::classify;
use crate::policy::generation::Generation;
use crate::policy::ltd::cpu_sched::{EnforceOutcome, ScheduleOutcome, TaskChange};
use crate::policy::ltd::debt::{DebtInterval, DebtUpdate};
use crate::policy::ltd::rr_sim::RrSimOutcome;
use crate::policy::ltd::work_fetch::{WorkFetchOutcome, WorkRequest};
use crate::policy::state::HostState;
use crate::simulate::emulator_6_10::{build, Emulator610, JobSizes};
use crate::simulate::log_out_6_10::{
    debt_lines, fetch_block_lines, job_name, job_project, project_name, rpc_line,
};
use crate::source::Location;
use crate::trace::message::StartAction;
use crate::trace::{LogEvent, Message, Trace};
use compact_str::CompactString;
use std::collections::{BTreeMap, HashMap, VecDeque};

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
    /// Recorded only: where its first line is.
    location: Option<Location>,
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

/// Which group of lines the extraction has open.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Open {
    #[default]
    None,
    RrSim,
    State,
    Enforce,
    Debt,
}

/// Groups the 6.10 log's lines into decision points as they are read: a
/// point stays open while later lines can add to it (its group, or the
/// `schedule_cpus()` pass whose picks come after its simulation).
#[derive(Default)]
struct Extract {
    /// The points read and not handed on, in log order.
    pending: VecDeque<Point>,
    /// The number of points handed on.
    handed: usize,
    open: Open,
    /// The open schedule_cpus() point (its number among all points).
    pass: Option<usize>,
}

impl Extract {
    /// The open point that later lines add to: the last one.
    fn last(&mut self) -> Option<&mut Point> {
        self.pending.back_mut()
    }

    fn push(&mut self, point: Point) {
        self.pending.push_back(point);
    }

    /// Reads the next line.
    fn take(&mut self, event: &LogEvent) {
        let Some(time) = event.time.secs() else {
            return;
        };
        if time < SIM_EPOCH {
            return;
        }
        let item = || (event.project.clone(), event.message.clone());
        let new_point = |kind: DecisionKind, items: Vec<Item>| Point {
            time,
            kind,
            project: event.project.as_ref().map(|p| p.to_string()),
            items,
            text: Vec::new(),
            location: Some(event.location.clone()),
        };
        let tag = event.tag.as_deref();
        // Close a debt group at the first line of another tag; an rr_sim
        // group at the first line that is not [rr_sim].
        if self.open == Open::Debt && !is_debt_tag(tag) {
            self.open = Open::None;
        }
        if self.open == Open::RrSim && tag != Some("rr_sim") {
            self.open = Open::None;
        }
        let open = self.open;
        match &event.message {
            Message::RrSimStartTotal { .. } => {
                self.push(new_point(DecisionKind::RrSim, Vec::new()));
                self.open = Open::RrSim;
            }
            m if open == Open::RrSim && is_rr_sim_line(m) => {
                if let Some(p) = self.last() {
                    p.items.push(item());
                }
            }
            Message::Chosen { .. } | Message::NoProjectChosen => {
                let mut point = new_point(DecisionKind::WorkFetchChoice, vec![item()]);
                if matches!(event.message, Message::NoProjectChosen) {
                    point.project = None;
                }
                self.push(point);
            }
            Message::EmuRpcTo { project, .. } => {
                let mut point = new_point(DecisionKind::WorkRequest, vec![item()]);
                point.project = Some(project.to_string());
                self.push(point);
            }
            Message::WorkFetchStateStart => {
                self.push(new_point(DecisionKind::FetchState, Vec::new()));
                self.open = Open::State;
            }
            Message::WorkFetchStateEnd => self.open = Open::None,
            Message::TargetWorkBuffer { .. }
            | Message::LtdResourceState { .. }
            | Message::LtdFetchShare { .. }
            | Message::OverallLtd { .. }
                if open == Open::State =>
            {
                if let Some(p) = self.last() {
                    p.items.push(item());
                }
            }
            Message::ScheduleCpusStart => {
                self.pass = Some(self.handed + self.pending.len());
                self.push(new_point(DecisionKind::RunList, Vec::new()));
                self.open = Open::None;
            }
            m if self.pass.is_some() && is_pick_line(m) => {
                let at = self.pass.and_then(|n| n.checked_sub(self.handed));
                if let Some(p) = at.and_then(|i| self.pending.get_mut(i)) {
                    p.items.push(item());
                }
            }
            Message::RequestEnforceSchedule { .. } => self.pass = None,
            Message::EnforceScheduleStart => {
                self.push(new_point(DecisionKind::Enforcement, Vec::new()));
                self.open = Open::Enforce;
            }
            Message::EnforceScheduleEnd => self.open = Open::None,
            m if open == Open::Enforce && is_enforcement_line(m) => {
                if let Some(p) = self.last() {
                    p.items.push(item());
                }
            }
            _ if is_debt_tag(tag) => {
                if open != Open::Debt {
                    let mut point = new_point(DecisionKind::Priority, Vec::new());
                    point.project = None;
                    self.push(point);
                    self.open = Open::Debt;
                }
                if let Some(p) = self.last() {
                    p.items.push(item());
                }
            }
            _ => {}
        }
    }

    /// The time before which every point read is whole: `read` (the time
    /// of the last line read, whose step may go on), or earlier when a
    /// point of an earlier time is still open.
    fn whole_before(&self, read: f64) -> f64 {
        let mut before = read;
        if self.open != Open::None {
            if let Some(last) = self.pending.back() {
                before = before.min(last.time);
            }
        }
        let pass = self.pass.and_then(|n| n.checked_sub(self.handed));
        if let Some(point) = pass.and_then(|i| self.pending.get(i)) {
            before = before.min(point.time);
        }
        before
    }

    /// Hands on the next point if it comes before `before`.
    fn next_before(&mut self, before: f64) -> Option<Point> {
        if self.pending.front()?.time < before {
            self.handed += 1;
            self.pending.pop_front()
        } else {
            None
        }
    }
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
            location: None,
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
            | LtdEvent::HostSampled(_)
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
                // The binary difference of two printed decimals carries
                // their representation error: a few ulps of slack.
                let scale = x.abs().max(y.abs());
                x == y
                    || (x - y).abs() <= (tol.rel * scale).max(tol.abs) + 8.0 * f64::EPSILON * scale
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

/// Absolute tolerance when job sizes come from sim_out_0.html, which
/// prints them to the microsecond: a figure printed to hundredths that the
/// true size puts within a millionth of a rounding boundary can print one
/// hundredth apart, and no nearer bound holds.
const SIZE_ROUNDING_TOLERANCE: f64 = 0.01;

/// Absolute tolerance when job sizes are known to 0.01 s only (no
/// sim_out_0.html): the sizes' rounding moves printed seconds and GFLOPs by
/// a few hundredths.
const COARSE_SIZE_TOLERANCE: f64 = 0.05;

/// What the 6.10 harness needs of a run's later lines, read in a first
/// pass over the session (a few values, and one entry per job).
#[derive(Clone, Debug, Default)]
pub struct Prescan610 {
    /// The first `starting simultion. delta D duration L` line: (D, L, its
    /// time).
    start: Option<(f64, f64, f64)>,
    /// The time of the last timed line.
    last: Option<f64>,
    /// The last line is the `did no action` that closes every step.
    whole_steps: bool,
    /// Each job's first printed `[rr_sim] JOB dur:` dynamic term: its true
    /// CPU time to 0.01 s (B.15.1).
    printed: HashMap<String, f64>,
    /// The jobs the log starts (`Starting task`), in order.
    started: Vec<CompactString>,
    /// A line's time went back (a damaged or hand-cut log).
    disordered: bool,
}

impl Prescan610 {
    /// The session's times never go back: a time step's lines are all read
    /// once a later time shows, so the run can be fed window by window.
    pub fn ordered(&self) -> bool {
        !self.disordered
    }

    /// The pre-scan of a whole session's lines.
    pub fn of(events: &[LogEvent]) -> Self {
        let mut scan = Prescan610::default();
        for event in events {
            scan.take(event);
        }
        scan
    }

    /// Reads the session's next line.
    pub fn take(&mut self, event: &LogEvent) {
        let time = event.time.secs();
        match &event.message {
            Message::EmuStartingSimulation { delta, duration } if self.start.is_none() => {
                self.start = time.map(|t| (*delta, *duration, t));
            }
            Message::DurationEstimate {
                job, est_elapsed, ..
            } if !self.printed.contains_key(job.as_str()) => {
                self.printed.insert(job.to_string(), *est_elapsed);
            }
            Message::EmuTaskStart {
                action: StartAction::Starting,
                job,
                ..
            } => self.started.push(job.clone()),
            _ => {}
        }
        if let Some(t) = time {
            self.disordered |= self.last.is_some_and(|last| t < last);
            self.last = time;
        }
        self.whole_steps = matches!(event.message, Message::EmuDidNoAction);
    }
}

/// One 6.10 emulator run's replay under way: the client loop and the
/// emulator's world, the recorded points read and not compared yet, the
/// replayed points not matched yet. Fed its session's lines at once or in
/// windows, it makes the same comparisons: a time step's points are
/// compared once every line of that step is read and the loop has run it.
pub struct LtdRun {
    /// The loop between two feeds (`None` before it started or after it
    /// stopped).
    suspended: Option<LoopCore>,
    world: Emulator610<'static>,
    printer: Printer,
    /// The time of the loop's next step, and its last.
    next_now: f64,
    end: f64,
    stopped: Option<String>,
    /// The time the replay stopped at (before its first step when it
    /// could not start): a decision from then on is not checked.
    stopped_at: Option<f64>,
    extract: Extract,
    /// The time of the last line read.
    read: Option<f64>,
    /// The replayed points not matched, by (time step, kind), in order;
    /// how many of each were matched.
    replayed: BTreeMap<(i64, DecisionKind), Vec<Point>>,
    used: BTreeMap<(i64, DecisionKind), usize>,
    tol: Tolerance,
    tolerance: f64,
    /// The log ends inside the step at this time.
    cut_from: Option<f64>,
    /// The started jobs whose size is known to 0.01 s only.
    coarse: Vec<CompactString>,
    /// The points and divergences compared since the last [`LtdRun::take`].
    points: Vec<DecisionPoint>,
    divergences: Vec<Divergence>,
}

const STOPPED: &str = "(not checked: the replay stopped before it; the report says why)";

const CUT: &str = "(not checked: the log ends inside this time step (a truncated or \
                   still-growing file): only its start is recorded)";

impl LtdRun {
    /// The replay of the run whose state and inputs `trace` holds (its
    /// events are not read: `prescan` holds what later lines tell).
    pub fn start(trace: &Trace, prescan: Prescan610, tolerance: f64) -> Result<Self, ReplayError> {
        let (state, apps) = build(trace)?;
        let (delta, duration, start) = prescan.start.ok_or_else(|| {
            ReplayError::MissingState(
                "the log has no `starting simultion. delta D duration L` line".into(),
            )
        })?;
        if !(delta > 0.0 && duration >= 0.0) {
            return Err(ReplayError::MissingState(format!(
                "time step {delta} / duration {duration} unusable"
            )));
        }
        let exact = trace.job_runtimes.clone();
        // Sizes known to 0.01 s only (not in sim_out_0.html) move printed
        // numbers by a few hundredths: the jobs the log starts tell.
        let coarse: Vec<CompactString> = prescan
            .started
            .iter()
            .filter(|job| !exact.contains_key(job.as_str()))
            .cloned()
            .collect();
        let world = Emulator610::new(
            apps,
            JobSizes::Recorded {
                exact,
                printed: prescan.printed,
            },
        );
        // A truncated log ends the replay at its last time step.
        let last = prescan.last.unwrap_or(start);
        let end = start + duration.min(last - start);
        // A log that stops before the run's end, and not on the `did no
        // action` that closes every step of the 6.10 emulator, was cut
        // inside its last time step: that step's decisions are shown only
        // in part.
        let cut_from = (last + 0.5 < start + duration && !prescan.whole_steps).then_some(last);
        let options = LoopOptions {
            delta,
            duration: (end - start).max(0.0),
            params: crate::policy::Params::default(),
            profile: Profile {
                sim_6_10: true,
                ..Profile::of(Generation::Ltd66)
            },
        };
        let mut run = LtdRun {
            suspended: None,
            world,
            printer: Printer::default(),
            next_now: start,
            end,
            stopped: None,
            stopped_at: None,
            extract: Extract::default(),
            read: None,
            replayed: BTreeMap::new(),
            used: BTreeMap::new(),
            tol: Tolerance {
                rel: tolerance,
                abs: if coarse.is_empty() {
                    SIZE_ROUNDING_TOLERANCE
                } else {
                    COARSE_SIZE_TOLERANCE
                },
            },
            tolerance,
            cut_from,
            coarse,
            points: Vec::new(),
            divergences: Vec::new(),
        };
        // The buffer every state block prints is sim_prefs.xml's: another
        // one means the file given is not the one the emulator read.
        if let Some(missing) =
            super::inputs::buffer_mismatch(&trace.events, &state.prefs, "sim_prefs.xml")
        {
            run.stopped_at = Some(f64::NEG_INFINITY);
            run.stopped = Some(format!(
                "the replay could not start: {}",
                missing.sentence()
            ));
            return Ok(run);
        }
        match ClientLoop::new(state, options, &mut run.world, &mut run.printer) {
            Ok(client) => run.suspended = Some(client.suspend()),
            Err(e) => {
                run.stopped_at = Some(f64::NEG_INFINITY);
                run.stopped = Some(format!("the replay could not start: {e}"));
            }
        }
        Ok(run)
    }

    /// Reads the session's next lines and compares every time step they
    /// close.
    pub fn feed(&mut self, events: &[LogEvent]) {
        for event in events {
            self.extract.take(event);
            if let Some(time) = event.time.secs() {
                self.read = Some(time);
                if let Message::EmuHostAvailability {
                    on,
                    lambda,
                    time_left,
                    ..
                } = event.message
                {
                    let sample = HostSample {
                        on,
                        lambda,
                        time_left,
                    };
                    self.world.record_sample(time, sample);
                }
            }
        }
        if let Some(read) = self.read {
            self.compare_before(self.extract.whole_before(read));
        }
    }

    /// The points and divergences compared since the last call, in time
    /// order.
    pub fn take(&mut self) -> (Vec<DecisionPoint>, Vec<Divergence>) {
        (
            std::mem::take(&mut self.points),
            std::mem::take(&mut self.divergences),
        )
    }

    /// Runs the loop's steps before `before` (steps are whole seconds:
    /// half a second of margin at the run's end).
    fn run_before(&mut self, before: f64) {
        if let Err(e) = ClientLoop::run_suspended(
            &mut self.suspended,
            &mut self.world,
            &mut self.printer,
            &mut self.next_now,
            before,
            self.end + 0.5,
        ) {
            self.stopped_at = Some(self.next_now);
            self.stopped = Some(format!("the replay stopped: {e}"));
        }
        for point in self.printer.out.drain(..) {
            self.replayed
                .entry((point.time as i64, point.kind))
                .or_default()
                .push(point);
        }
    }

    fn cut(&self, time: f64) -> bool {
        self.cut_from.is_some_and(|from| time >= from - 0.5)
    }

    /// Compares every point of a time step before `before`: per step, the
    /// recorded points (each with the replayed one of its kind and order in
    /// that step), then the replayed ones the log does not have.
    fn compare_before(&mut self, before: f64) {
        self.run_before(before);
        loop {
            let recorded = self
                .extract
                .pending
                .front()
                .filter(|p| p.time < before)
                .map(|p| p.time as i64);
            let replayed = self
                .replayed
                .keys()
                .next()
                .filter(|(t, _)| (*t as f64) < before)
                .map(|(t, _)| *t);
            let step = match (recorded, replayed) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => break,
            };
            while let Some(rec) = self.extract.next_before(before.min(step as f64 + 1.0)) {
                self.compare(rec);
            }
            while let Some(entry) = self.replayed.first_entry() {
                if entry.key().0 != step {
                    break;
                }
                let (key, list) = entry.remove_entry();
                let n = self.used.remove(&key).unwrap_or(0);
                for rep in list.into_iter().skip(n) {
                    if !self.cut(rep.time) {
                        self.extra(rep);
                    }
                }
            }
            self.used.retain(|key, _| key.0 > step);
        }
    }

    /// A recorded point against the replayed one of its kind and order in
    /// its time step.
    fn compare(&mut self, rec: Point) {
        let key = (rec.time as i64, rec.kind);
        let n = self.used.entry(key).or_insert(0);
        let rep = self.replayed.get(&key).and_then(|v| v.get(*n));
        *n += 1;
        let tol = self.tol;
        let tolerance = self.tolerance;
        let recorded_text = render(&rec.items, &[]);
        // A decision the replay did not make because it had stopped is not
        // checked (the reason is in the report's unchecked list).
        let stopped = rep.is_none() && self.stopped_at.is_some_and(|t| rec.time >= t - 0.5);
        let checked = !self.cut(rec.time) && !stopped;
        let (replayed_text, diff) = match rep {
            _ if stopped => (STOPPED.to_string(), None),
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
            self.divergences.push(divergence(
                &rec,
                recorded_value,
                replayed_value,
                Some(tolerance),
                reason,
            ));
        }
        let recorded = if n_div == 0 && checked {
            replayed_text.clone()
        } else {
            recorded_text
        };
        self.points
            .push(decision_point(rec, recorded, replayed_text, n_div, checked));
    }

    /// A replayed decision the log does not have.
    fn extra(&mut self, rep: Point) {
        let replayed_text = render(&rep.items, &rep.text);
        self.divergences.push(divergence(
            &rep,
            "(none)".into(),
            replayed_text.clone(),
            None,
            "the log has no such decision in this time step".into(),
        ));
        self.points
            .push(decision_point(rep, "(none)".into(), replayed_text, 1, true));
    }

    /// Runs the run's last steps, compares every point left and gives
    /// them with what was not checked.
    pub fn finish(mut self) -> LtdAudit {
        self.compare_before(f64::INFINITY);
        let (points, divergences) = self.take();
        let mut unchecked = vec![Unchecked {
            what: "[dcf], [css], [task_debug] and `sched state` lines".into(),
            why: "state changes that follow from the checked decisions; not compared".into(),
        }];
        if let Some(why) = self.stopped {
            unchecked.push(Unchecked {
                what: "the decisions after the replay stopped".into(),
                why,
            });
        }
        if let Some(from) = self.cut_from {
            unchecked.push(Unchecked {
                what: format!("the decisions of the last time step ({})", label(from)),
                why: "the log ends inside this time step (a truncated or still-growing file) \
                      before the run's duration: only its start is recorded"
                    .into(),
            });
        }
        if let Some(first) = self.coarse.first() {
            unchecked.push(Unchecked {
                what: format!(
                    "exact job sizes of {} job(s) (first: {first})",
                    self.coarse.len()
                ),
                why: format!(
                    "not in sim_out_0.html: sizes taken from the log's `dur:` lines (0.01 s) or \
                     the app's mean; numbers compared within ±{COARSE_SIZE_TOLERANCE} as well"
                ),
            });
        }
        LtdAudit {
            points,
            divergences,
            unchecked,
        }
    }
}

/// A divergence at `point` (its first line's place, when recorded).
fn divergence(
    point: &Point,
    recorded: String,
    replayed: String,
    tolerance: Option<f64>,
    reason: String,
) -> Divergence {
    Divergence {
        time: point.time,
        time_label: label(point.time),
        kind: point.kind,
        project: point.project.clone(),
        resource: Some("CPU".into()),
        job: None,
        field: point.kind.name().into(),
        recorded,
        replayed,
        tolerance,
        reason: format!("ltd-6.6 replay: {reason}"),
        location: point.location.clone(),
    }
}

/// The decision point `point` as reported.
fn decision_point(
    point: Point,
    recorded: String,
    replayed: String,
    n_divergences: usize,
    checked: bool,
) -> DecisionPoint {
    DecisionPoint {
        time: point.time,
        time_label: label(point.time),
        kind: point.kind,
        project: point.project,
        resource: Some("CPU".into()),
        recorded,
        replayed,
        n_divergences,
        basis: if checked {
            "ltd-6.6 replay: the debt-based client stepped over the emulator's inputs".into()
        } else {
            String::new()
        },
        checked,
        location: point.location,
    }
}

/// Audits a 6.10.60 emulator trace, its session's lines at once.
pub fn audit(trace: &Trace, tolerance: f64) -> Result<LtdAudit, ReplayError> {
    let mut run = LtdRun::start(trace, Prescan610::of(&trace.events), tolerance)?;
    run.feed(&trace.events);
    Ok(run.finish())
}

//! Replay of the 6.6–6.10 generation (`ltd-6.6`) over a 6.10.60 emulator
//! trace: the harness of policy-legacy B.15.1 drives the debt-based engine
//! of [`crate::policy::ltd`] step by step from the recorded inputs, and every
//! decision it makes is compared with the one the log recorded at the same
//! time step.
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

use crate::divergence::{DecisionKind, DecisionPoint, Divergence, Unchecked};
use crate::parse::log_messages::classify;
use crate::policy::ltd::cpu_sched::{
    enforce_schedule, jobs_by_seq, schedule_cpus, task_order, JobFlags, PickReason, TaskChange,
};
use crate::policy::ltd::debt::{adjust_debts, debt_interval, interval_usage, DebtInterval};
use crate::policy::ltd::rr_sim::{rr_simulation, sim_jobs, RrSimOutcome};
use crate::policy::ltd::work_fetch::{choose_project, compute_work_request, WorkFetchState};
use crate::policy::ltd::{work_buf_min, Debts, LtdParams};
use crate::policy::state::{
    HostState, Job, JobState, Project, ResourceUsage, SchedulerState, TaskState,
};
use crate::trace::{EventTime, LogEvent, Message, Trace};
use compact_str::CompactString;
use std::collections::{BTreeMap, HashMap};

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
/// The harness polls for RPCs at most this often (seconds).
const RPC_POLL_PERIOD: f64 = 5.0;
/// The harness runs a work-fetch pass at least this often (seconds).
const WORK_FETCH_PERIOD: f64 = 60.0;
/// Enforcement runs when more than this has passed since the last one.
const ENFORCE_PERIOD: f64 = 60.0;

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
// The harness

/// Per-job harness data beside the engine's `Job` (same order).
#[derive(Clone, Debug, Default)]
struct Extra {
    /// True CPU seconds.
    runtime: f64,
    /// CPU seconds done.
    cpu: f64,
    /// The task reached its runtime; exit not yet handled.
    exited: bool,
    /// When its computation finished.
    completed: Option<f64>,
    /// The scheduler's flags on the result.
    flags: JobFlags,
    /// Creation order of its task (active-task order); `None` = no task.
    task_seq: Option<u64>,
    /// Its size is not known to the microsecond (no sim_out_0.html entry).
    coarse: bool,
}

/// An app of the emulated server (sim_projects.xml).
#[derive(Clone, Debug)]
struct SimApp {
    name: String,
    fpops_est: f64,
    fpops_mean: f64,
    latency_bound: f64,
}

struct Harness<'a> {
    state: HostState,
    extra: Vec<Extra>,
    debts: Debts,
    params: LtdParams,
    apps: Vec<Option<SimApp>>,
    runtimes: &'a BTreeMap<String, f64>,
    log_runtimes: HashMap<String, f64>,
    next_job_no: Vec<u32>,
    alloc_seq: u64,
    task_seq: u64,
    now: f64,
    must_schedule: bool,
    must_enforce: bool,
    must_fetch: bool,
    last_pass: f64,
    last_enforce: f64,
    debt_start: f64,
    last_rpc_poll: f64,
    last_fetch: f64,
    exited_credit: Vec<Vec<f64>>,
    /// `ordered_scheduled_results` of the last pass, by job `alloc_seq`.
    last_list: Vec<u64>,
    last_sim: RrSimOutcome,
    /// `unfinished_time_slice` of freed results, last freed last.
    freed_uts: Vec<bool>,
    /// Jobs whose size is not known to the microsecond.
    coarse_sizes: Vec<String>,
    out: Vec<Point>,
}

/// Builds the host state of the 6.10 harness from sim_host.xml,
/// sim_projects.xml and sim_prefs.xml.
fn build(trace: &Trace) -> Result<(HostState, Vec<Option<SimApp>>), ReplayError> {
    let projects = trace
        .state
        .sim_projects
        .as_ref()
        .ok_or_else(|| ReplayError::MissingState("no sim_projects.xml in the trace".into()))?;
    let mut state = super::build::sim_host_state(trace)?;
    let mut apps = Vec::new();
    for (i, recorded) in projects.projects.iter().enumerate() {
        let name = recorded
            .project_name
            .clone()
            .unwrap_or_else(|| format!("project{i}"));
        let mut project = Project::new(&name, recorded.resource_share.unwrap_or(100.0), 1);
        project.alloc_seq = i as u32;
        project.dont_use_dcf = false;
        project.dcf = 1.0;
        state.projects.push(project);
        apps.push(recorded.apps.first().map(|app| {
            let fpops_est = app.fpops_est.unwrap_or(3.6e12);
            SimApp {
                name: app.name.clone().unwrap_or_else(|| "app".into()),
                fpops_est,
                fpops_mean: app.fpops.as_ref().and_then(|f| f.mean).unwrap_or(fpops_est),
                latency_bound: app.latency_bound.unwrap_or(86400.0),
            }
        }));
    }
    Ok((state, apps))
}

/// Job sizes printed in the log: the dynamic term of a job's first
/// `[rr_sim] JOB dur:` line equals its true CPU time (B.15.1).
fn log_runtimes(events: &[LogEvent]) -> HashMap<String, f64> {
    let mut out = HashMap::new();
    for event in events {
        if let Message::DurationEstimate {
            job, est_elapsed, ..
        } = &event.message
        {
            out.entry(job.to_string()).or_insert(*est_elapsed);
        }
    }
    out
}

impl<'a> Harness<'a> {
    fn project_name(&self, p: usize) -> CompactString {
        self.state
            .projects
            .get(p)
            .map(|p| p.name.clone())
            .unwrap_or_default()
    }

    fn job_name(&self, j: usize) -> CompactString {
        self.state
            .jobs
            .get(j)
            .map(|j| j.name.clone())
            .unwrap_or_default()
    }

    fn job_project(&self, j: usize) -> Option<CompactString> {
        self.state
            .jobs
            .get(j)
            .map(|job| self.project_name(job.project))
    }

    fn open(&mut self, kind: DecisionKind, project: Option<String>) {
        self.out.push(Point {
            time: self.now,
            kind,
            project,
            items: Vec::new(),
            text: Vec::new(),
            event_idx: 0,
        });
    }

    /// Adds a line to the open point: typed as the log parser types it.
    fn line(&mut self, project: Option<CompactString>, body: String) {
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

    fn run(&mut self, start: f64, delta: f64, duration: f64) {
        self.now = start;
        self.must_fetch = true; // `Request work fetch: init`
        let mut first = true;
        while self.now <= start + duration + 1e-9 {
            if !first {
                self.advance(delta);
            }
            first = false;
            for _ in 0..20 {
                if !self.poll_once() {
                    break;
                }
            }
            self.now += delta;
        }
    }

    /// Running tasks advance by one step; a task whose CPU time reaches its
    /// runtime exits (handled at the next poll).
    fn advance(&mut self, delta: f64) {
        for (job, extra) in self.state.jobs.iter_mut().zip(self.extra.iter_mut()) {
            let Some(task) = job.task.as_mut() else {
                continue;
            };
            if task.task_state != TaskState::Executing || extra.exited {
                continue;
            }
            extra.cpu += delta;
            task.elapsed += delta;
            task.checkpoint_wall_time = self.now;
            task.fraction_done = if extra.runtime > 0.0 {
                (extra.cpu / extra.runtime).min(1.0)
            } else {
                1.0
            };
            task.fraction_done_elapsed = task.elapsed;
            if extra.cpu >= extra.runtime {
                extra.exited = true;
            }
        }
    }

    fn poll_once(&mut self) -> bool {
        let mut action = self.handle_exits();
        let has_jobs = !self.state.jobs.is_empty();
        let period = self.state.cpu_scheduling_period();
        if has_jobs && (self.must_schedule || self.now - self.last_pass >= period) {
            self.schedule_pass();
            action = true;
        }
        if self.must_enforce || self.now - self.last_enforce > ENFORCE_PERIOD {
            self.enforce();
        }
        if self.now - self.last_rpc_poll >= RPC_POLL_PERIOD {
            self.last_rpc_poll = self.now;
            if let Some(p) = self.overdue_report() {
                self.report_rpc(p);
                action = true;
            } else if self.must_fetch || self.now - self.last_fetch >= WORK_FETCH_PERIOD {
                self.last_fetch = self.now;
                self.must_fetch = false;
                action |= self.work_fetch();
            }
        }
        action
    }

    fn handle_exits(&mut self) -> bool {
        let mut any = false;
        for j in 0..self.state.jobs.len() {
            if !self.extra.get(j).is_some_and(|e| e.exited) {
                continue;
            }
            any = true;
            let interval = self.now - self.debt_start;
            let now = self.now;
            let (project, elapsed, scheduled, avg_ncpus, fpops_est) = {
                let job = &self.state.jobs[j];
                let task = job.task.as_ref();
                (
                    job.project,
                    task.map_or(0.0, |t| t.elapsed),
                    task.is_some_and(|t| t.scheduler_state == SchedulerState::Scheduled),
                    job.usage.avg_ncpus,
                    job.rsc_fpops_est,
                )
            };
            if scheduled {
                if let Some(cell) = self
                    .exited_credit
                    .get_mut(project)
                    .and_then(|row| row.get_mut(0))
                {
                    *cell += interval * avg_ncpus;
                }
            }
            // DCF (A.9 on elapsed time).
            let p_fpops = self.state.host.p_fpops;
            if let Some(p) = self.state.projects.get_mut(project) {
                let est = fpops_est / p_fpops;
                if est > 0.0 {
                    let raw = elapsed / est;
                    let adj = elapsed / (est * p.dcf);
                    p.dcf = if adj > 1.1 {
                        raw
                    } else if adj < 0.1 {
                        0.99 * p.dcf + 0.01 * raw
                    } else {
                        0.9 * p.dcf + 0.1 * raw
                    }
                    .clamp(0.01, 100.0);
                }
            }
            let job = &mut self.state.jobs[j];
            job.task = None;
            job.ready_to_report = true;
            job.state = JobState::Uploaded;
            let extra = &mut self.extra[j];
            extra.exited = false;
            extra.completed = Some(now);
            extra.task_seq = None;
        }
        if any {
            self.must_schedule = true;
            self.must_fetch = true;
        }
        any
    }

    /// Runs a simulation and logs it as an `rr_sim` point.
    fn simulate(&mut self) -> RrSimOutcome {
        let (jobs, _durs) = sim_jobs(&self.state, self.now);
        let sim = rr_simulation(&self.state, &jobs, self.now);
        self.open(DecisionKind::RrSim, None);
        for event in &sim.events {
            let j = event.job();
            let body = event.line(&self.job_name(j));
            let project = self.job_project(j);
            self.line(project, body);
        }
        for (j, extra) in self.extra.iter_mut().enumerate() {
            extra.flags.missed = sim.missed.contains(&j);
        }
        self.last_sim = sim.clone();
        sim
    }

    fn schedule_pass(&mut self) {
        self.last_pass = self.now;
        self.must_schedule = false;
        let sim = self.simulate();
        let outcome = schedule_cpus(&self.state, &self.debts, &sim, self.now, &self.params);
        self.open(DecisionKind::RunList, None);
        for extra in &mut self.extra {
            extra.flags.edf = false;
        }
        for &j in &outcome.deadline_missed {
            if let Some(e) = self.extra.get_mut(j) {
                e.flags.missed = true;
            }
        }
        let mut list = Vec::new();
        for pick in &outcome.picks {
            let name = self.job_name(pick.job);
            let project = self.job_project(pick.job);
            for body in pick.lines(&name) {
                self.line(project.clone(), body);
            }
            if let Some(e) = self.extra.get_mut(pick.job) {
                e.flags.edf = matches!(pick.reason, PickReason::CpuEdf { .. });
            }
            if let Some(job) = self.state.jobs.get(pick.job) {
                list.push(job.alloc_seq);
            }
        }
        self.last_list = list;
        self.must_enforce = true;
    }

    fn debt_update(&mut self) {
        let interval = debt_interval(self.now, self.debt_start, &self.params);
        match interval {
            DebtInterval::TooShort => {}
            DebtInterval::Discard { .. } => {
                self.open(DecisionKind::Priority, None);
                self.line(None, interval.to_string());
                self.debt_start = self.now;
                self.clear_credit();
            }
            DebtInterval::Credit { secs } => {
                let used = interval_usage(&self.state, secs, &self.exited_credit);
                let update = adjust_debts(
                    &self.state,
                    &self.debts,
                    interval,
                    &self.last_sim.has_runnable_jobs(),
                    &used,
                    self.now,
                    &self.params,
                );
                self.open(DecisionKind::Priority, None);
                for (ltd, std) in &update.per_rsc {
                    for line in &ltd.lines {
                        let name = self.project_name(line.project());
                        self.line(Some(name), line.to_string());
                    }
                    self.line(None, ltd.summary_line());
                    for delta in &std.deltas {
                        let name = self.project_name(delta.project);
                        self.line(Some(name), delta.to_string());
                    }
                    for (p, value) in &std.values {
                        let name = self.project_name(*p);
                        self.line(Some(name), std.value_line(*value));
                    }
                }
                self.debts = update.debts;
                self.debt_start = self.now;
                self.clear_credit();
            }
        }
    }

    fn clear_credit(&mut self) {
        for row in &mut self.exited_credit {
            for cell in row.iter_mut() {
                *cell = 0.0;
            }
        }
    }

    fn enforce(&mut self) {
        self.debt_update();
        self.last_enforce = self.now;
        self.must_enforce = false;
        self.open(DecisionKind::Enforcement, None);
        let list = jobs_by_seq(&self.state, &self.last_list);
        let task_order = task_order(self.extra.iter().map(|e| e.task_seq).enumerate());
        let mut flags: Vec<JobFlags> = self.extra.iter().map(|e| e.flags).collect();
        let outcome = enforce_schedule(
            &mut self.state,
            &mut flags,
            &list,
            &task_order,
            self.now,
            &self.params,
        );
        for (e, f) in self.extra.iter_mut().zip(flags) {
            e.flags = f;
        }
        let names: Vec<String> = self.state.jobs.iter().map(|j| j.name.to_string()).collect();
        let name = |j: usize| names.get(j).cloned().unwrap_or_default();
        for (job, body) in outcome.lines(self.state.ninstances(0), &name) {
            let project = job.and_then(|j| self.job_project(j));
            self.line(project, body);
        }
        if outcome.cpus_idle {
            self.must_fetch = true; // `Request work fetch: CPUs idle`
        }
        for change in &outcome.changes {
            if let TaskChange::Start(j) = *change {
                self.task_seq += 1;
                if let Some(e) = self.extra.get_mut(j) {
                    e.task_seq = Some(self.task_seq);
                    if e.coarse {
                        self.coarse_sizes.push(name(j));
                    }
                }
            }
        }
    }

    /// The first project (project order) with a finished result that must be
    /// reported now: near its deadline or a day after completion (B.15.1).
    fn overdue_report(&self) -> Option<usize> {
        let buf_min = work_buf_min(&self.state);
        (0..self.state.projects.len()).find(|&p| {
            self.state.jobs.iter().zip(&self.extra).any(|(job, extra)| {
                job.project == p
                    && job.ready_to_report
                    && (self.now > job.report_deadline - buf_min.max(86400.0)
                        || extra.completed.is_some_and(|c| self.now > c + 86400.0))
            })
        })
    }

    /// Logs a work-fetch pass's choice and state block; returns the choice.
    fn log_choice(&mut self, outcome: &crate::policy::ltd::work_fetch::WorkFetchOutcome) {
        self.open(
            DecisionKind::WorkFetchChoice,
            outcome
                .choice
                .as_ref()
                .map(|c| self.project_name(c.project).to_string()),
        );
        match &outcome.choice {
            Some(choice) => {
                let name = self.project_name(choice.project);
                self.line(Some(name), choice.to_string());
            }
            None => self.line(None, "[wfd] No project chosen for work fetch".into()),
        }
        self.open(DecisionKind::FetchState, None);
        let block = &outcome.state;
        self.line(None, block.target_line());
        for (rsc, projects) in &block.rsc {
            self.line(None, rsc.to_string());
            for line in projects {
                let name = self.project_name(line.project);
                self.line(Some(name), line.to_string());
            }
        }
        for (p, overall) in &block.overall_ltd {
            let name = self.project_name(*p);
            self.line(Some(name), WorkFetchState::overall_line(*overall));
        }
    }

    fn work_fetch(&mut self) -> bool {
        let sim = self.simulate();
        let outcome = choose_project(&self.state, &self.debts, &sim, self.now, &self.params);
        self.log_choice(&outcome);
        let Some(choice) = outcome.choice else {
            return false;
        };
        let req = choice.request.get(0);
        self.rpc(choice.project, req.secs, req.instances);
        true
    }

    fn report_rpc(&mut self, project: usize) {
        let sim = self.simulate();
        // compute_work_request() decides through a choose_project() pass
        // with the project's backoffs cleared, which logs like any other.
        let mut cleared = self.state.clone();
        if let Some(p) = cleared.projects.get_mut(project) {
            for r in &mut p.rsc {
                r.backoff_time = 0.0;
            }
        }
        let outcome = choose_project(&cleared, &self.debts, &sim, self.now, &self.params);
        self.log_choice(&outcome);
        let request = compute_work_request(
            &self.state,
            &self.debts,
            &sim,
            project,
            self.now,
            &self.params,
        );
        let req = request.get(0);
        self.rpc(project, req.secs, req.instances);
    }

    /// One scheduler RPC to the emulated server: finished results of every
    /// project are reported; jobs are sent until both the seconds and the
    /// instances asked are covered (B.15.1).
    fn rpc(&mut self, project: usize, secs: f64, instances: f64) {
        let name = self.project_name(project);
        self.open(DecisionKind::WorkRequest, Some(name.to_string()));
        self.line(
            None,
            format!("RPC to {name}; asking for {secs:.6}/{instances:.2}<br>"),
        );
        // Report every finished result. The client frees them; the next
        // RESULT objects reuse that memory last-freed-first, and 6.10 never
        // initialises `unfinished_time_slice`, so a new job's first
        // preliminary list shows the freed job's flag.
        let mut k = 0;
        let freed = &mut self.freed_uts;
        self.extra.retain(|e| {
            let done = self.state.jobs.get(k).is_some_and(|j| j.ready_to_report);
            k += 1;
            if done {
                freed.push(e.flags.uts);
            }
            !done
        });
        self.state.jobs.retain(|j| !j.ready_to_report);
        if secs <= 0.0 && instances <= 0.0 {
            return;
        }
        let Some(app) = self.apps.get(project).cloned().flatten() else {
            return;
        };
        let p_fpops = self.state.host.p_fpops;
        let dcf = self.state.projects.get(project).map_or(1.0, |p| p.dcf);
        let est = dcf * app.fpops_est / p_fpops;
        let (mut got_secs, mut got_inst) = (0.0, 0.0);
        while got_secs < secs || got_inst < instances {
            let no = self.next_job_no.get(project).copied().unwrap_or(0);
            if let Some(slot) = self.next_job_no.get_mut(project) {
                *slot += 1;
            }
            let job_name = format!("{name}_{no}");
            let exact = self.runtimes.get(&job_name).copied();
            let runtime = exact.unwrap_or_else(|| {
                self.log_runtimes
                    .get(&job_name)
                    .copied()
                    .unwrap_or(app.fpops_mean / p_fpops)
            });
            let mut job = Job::new(
                &job_name,
                project,
                &app.name,
                ResourceUsage::cpu(1.0, p_fpops),
                app.fpops_est,
            );
            job.received_time = self.now;
            job.report_deadline = self.now + app.latency_bound;
            job.alloc_seq = self.alloc_seq;
            self.alloc_seq += 1;
            self.state.jobs.push(job);
            let uts = self.freed_uts.pop().unwrap_or(false);
            self.extra.push(Extra {
                runtime,
                coarse: exact.is_none(),
                flags: JobFlags {
                    uts,
                    ..JobFlags::default()
                },
                ..Extra::default()
            });
            got_secs += est;
            got_inst += 1.0;
        }
        self.must_schedule = true;
        self.must_fetch = true;
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
    let n_projects = state.projects.len();
    let mut harness = Harness {
        state,
        extra: Vec::new(),
        debts: Debts::zero(n_projects, 1),
        params: LtdParams::default(),
        apps,
        runtimes: &trace.job_runtimes,
        log_runtimes: log_runtimes(&trace.events),
        next_job_no: vec![0; n_projects],
        alloc_seq: 0,
        task_seq: 0,
        now: start,
        must_schedule: false,
        must_enforce: false,
        must_fetch: false,
        last_pass: 0.0,
        last_enforce: 0.0,
        debt_start: 0.0,
        last_rpc_poll: 0.0,
        last_fetch: 0.0,
        exited_credit: vec![vec![0.0]; n_projects],
        last_list: Vec::new(),
        last_sim: RrSimOutcome::default(),
        freed_uts: Vec::new(),
        coarse_sizes: Vec::new(),
        out: Vec::new(),
    };
    // A truncated log ends the replay at its last time step.
    let last = trace
        .events
        .iter()
        .rev()
        .find_map(|e| event_seconds(&e.time))
        .unwrap_or(start);
    harness.run(start, delta, duration.min(last - start));
    let coarse = harness.coarse_sizes.clone();
    let replayed = harness.out;
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
        let (replayed_text, diff) = match rep {
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
            recorded: if n_div == 0 {
                replayed_text.clone()
            } else {
                recorded_text
            },
            replayed: replayed_text,
            n_divergences: n_div,
            checked: true,
            location,
        });
    }
    // Replayed decisions the log does not have.
    for (key, list) in &by_key {
        let n = used.get(key).copied().unwrap_or(0);
        for rep in list.iter().skip(n) {
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

//! `simulate --log-out` for the 6.10.60 emulator: its sim_log.txt, line for
//! line, for the log flags of its cc_config.xml.
//!
//! An [`Observer`] of the client loop run under the `ltd-6.6` policy and the
//! 6.10 harness profile: every line is what that client and its emulator
//! print (client/sim.cpp, cpu_sched.cpp, rr_sim.cpp, work_fetch.cpp,
//! cs_apps.cpp at tag `client_release/6.10/6.10.60`), from the loop's
//! decisions ([`LtdEvent`]) and bookkeeping notes; the writer decides
//! nothing. Lines are `DD-Mon-YYYY HH:MM:SS [PROJECT|---] TEXT`.

use crate::client_loop::{LoopEvent, LoopNote, LtdEvent, Observer, SimFor, TaskBefore};
use crate::policy::ltd::cpu_sched::{EnforceOutcome, TaskChange};
use crate::policy::ltd::debt::DebtUpdate;
use crate::policy::ltd::rr_sim::{RrSimOutcome, SimEvent};
use crate::policy::ltd::work_fetch::{WorkFetchOutcome, WorkFetchState, WorkRequest};
use crate::policy::ltd::{work_buf_total, DurEstimate};
use crate::policy::state::{HostState, JobIdx, ProjectIdx, SchedulerState, TaskState};
use std::collections::BTreeMap;
use std::io::Write;

/// The 6.10 emulator's sim_out_0.html (its timeline page, one row per
/// time step) reduced to what an audit reads of it: the page's heading and,
/// per job sent, the note its row gives at the job's first start,
/// `Starting JOB: SECS` (the CPU time left then: the job's true size), so
/// the run's log is audited with exact job sizes. The emulator prints six
/// decimals; every digit of the size is written here, so that no printed
/// number of the replay can round the other way.
pub fn write_sim_out(out: &mut dyn Write, sizes: &[(&str, f64)]) -> std::io::Result<()> {
    writeln!(out, "<h2>Simulator output</h2>")?;
    writeln!(
        out,
        "<a href=sim_log.txt>message log</a><p><table border=1><tr><th>Job</th><th>Notes</th></tr>"
    )?;
    for (job, secs) in sizes {
        writeln!(
            out,
            "<tr><td>{job}</td><td><font size=-2>Starting {job}: {secs}<br></font></td></tr>"
        )?;
    }
    writeln!(out, "</table>")?;
    out.flush()
}

/// The log flags the 6.10 emulator's lines depend on.
#[derive(Clone, Copy, Debug, Default)]
pub struct Flags610 {
    task: bool,
    task_debug: bool,
    cpu_sched: bool,
    cpu_sched_debug: bool,
    cpu_sched_status: bool,
    work_fetch_debug: bool,
    rr_simulation: bool,
    debt_debug: bool,
    std_debug: bool,
    dcf_debug: bool,
}

impl Flags610 {
    /// From cc_config.xml's `<log_flags>`.
    pub fn from_log_flags(flags: &BTreeMap<String, bool>) -> Self {
        let on = |name: &str| flags.get(name).copied().unwrap_or(false);
        Flags610 {
            task: on("task"),
            task_debug: on("task_debug"),
            cpu_sched: on("cpu_sched"),
            cpu_sched_debug: on("cpu_sched_debug"),
            cpu_sched_status: on("cpu_sched_status"),
            work_fetch_debug: on("work_fetch_debug"),
            rr_simulation: on("rr_simulation"),
            debt_debug: on("debt_debug"),
            std_debug: on("std_debug"),
            dcf_debug: on("dcf_debug"),
        }
    }
}

/// Writes the 6.10 emulator's sim_log.txt.
pub struct LogWriter610<W: Write> {
    out: W,
    flags: Flags610,
    delta: f64,
    duration: f64,
    started: bool,
    /// The `dur:` blends of the latest simulation (a scheduling pass's EDF
    /// scans estimate jobs again with the same state).
    durs: Vec<DurEstimate>,
    error: Option<std::io::Error>,
}

/// `CPU_SCHED_*` as printed.
fn sched_state_number(state: SchedulerState) -> u8 {
    match state {
        SchedulerState::Uninitialized => 0,
        SchedulerState::Preempted => 1,
        SchedulerState::Scheduled => 2,
    }
}

/// `PROCESS_*` as printed.
fn task_state_number(state: TaskState) -> u8 {
    match state {
        TaskState::Uninitialized => 0,
        TaskState::Executing => 1,
        TaskState::Exited => 2,
        TaskState::AbortPending => 5,
        TaskState::QuitPending => 8,
        TaskState::Suspended => 9,
    }
}

/// A project's name ("" if absent).
pub fn project_name(state: &HostState, p: ProjectIdx) -> String {
    state
        .projects
        .get(p)
        .map(|p| p.name.to_string())
        .unwrap_or_default()
}

/// A job's name ("" if absent).
pub fn job_name(state: &HostState, j: JobIdx) -> String {
    state
        .jobs
        .get(j)
        .map(|j| j.name.to_string())
        .unwrap_or_default()
}

/// The name of a job's project.
pub fn job_project(state: &HostState, j: JobIdx) -> Option<String> {
    state
        .jobs
        .get(j)
        .map(|job| project_name(state, job.project))
}

/// One printed line: its project column (`None` = `---`) and its text.
pub type Line = (Option<String>, String);

/// The lines of a credited debt update, per resource: its `[debt]` lines
/// (per project, then the offset) and its `[std_debug]` lines (deltas, then
/// values); `true` marks a `[std_debug]` line.
pub fn debt_lines(state: &HostState, update: &DebtUpdate) -> Vec<(bool, Line)> {
    let mut out = Vec::new();
    for (ltd, std) in &update.per_rsc {
        for line in &ltd.lines {
            out.push((
                false,
                (Some(project_name(state, line.project())), line.to_string()),
            ));
        }
        out.push((false, (None, ltd.summary_line())));
        for delta in &std.deltas {
            out.push((
                true,
                (Some(project_name(state, delta.project)), delta.to_string()),
            ));
        }
        for (p, value) in &std.values {
            out.push((
                true,
                (Some(project_name(state, *p)), std.value_line(*value)),
            ));
        }
    }
    out
}

/// The emulator's `RPC to P; asking for SECS/INST<br>` line (simulate_rpc).
pub fn rpc_line(state: &HostState, project: ProjectIdx, request: &WorkRequest) -> String {
    let req = request.get(0);
    format!(
        "RPC to {}; asking for {:.6}/{:.2}<br>",
        project_name(state, project),
        req.secs,
        req.instances
    )
}

/// A work-fetch state block's lines between its start and end markers:
/// the target buffer, each resource with its projects, the overall debts.
pub fn fetch_block_lines(state: &HostState, block: &WorkFetchState) -> Vec<Line> {
    let mut out = vec![(None, block.target_line())];
    for (rsc, projects) in &block.rsc {
        out.push((None, rsc.to_string()));
        for line in projects {
            out.push((Some(project_name(state, line.project)), line.to_string()));
        }
    }
    for (p, overall) in &block.overall_ltd {
        out.push((
            Some(project_name(state, *p)),
            WorkFetchState::overall_line(*overall),
        ));
    }
    out
}

impl<W: Write> LogWriter610<W> {
    /// A writer for a run of `delta`-second steps over `duration` seconds;
    /// writes the two start-up lines stamped with the epoch.
    pub fn new(out: W, flags: Flags610, delta: f64, duration: f64) -> Self {
        let mut writer = LogWriter610 {
            out,
            flags,
            delta,
            duration,
            started: false,
            durs: Vec::new(),
            error: None,
        };
        writer.line(0.0, None, "SIMULATION START");
        if flags.work_fetch_debug {
            writer.line(0.0, None, "[wfd] Request work fetch: init");
        }
        writer
    }

    /// Flushes; the first write error, if any.
    pub fn finish(mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }

    fn line(&mut self, now: f64, project: Option<&str>, text: &str) {
        if self.error.is_some() {
            return;
        }
        let stamp = chrono::DateTime::from_timestamp(now as i64, 0)
            .map(|t| t.format("%d-%b-%Y %H:%M:%S").to_string())
            .unwrap_or_default();
        let result = writeln!(
            self.out,
            "{stamp} [{}] {text}",
            project.filter(|p| !p.is_empty()).unwrap_or("---")
        );
        if let Err(e) = result {
            self.error = Some(e);
        }
    }

    fn job_line(&mut self, now: f64, state: &HostState, j: JobIdx, text: &str) {
        let project = job_project(state, j);
        self.line(now, project.as_deref(), text);
    }

    fn rr_sim(
        &mut self,
        now: f64,
        state: &HostState,
        sim: &RrSimOutcome,
        durs: &[DurEstimate],
        by: SimFor,
    ) {
        match by {
            SimFor::Schedule if self.flags.cpu_sched_debug => {
                self.line(now, None, "[cpu_sched_debug] schedule_cpus(): start");
            }
            SimFor::WorkFetch if self.flags.work_fetch_debug => {
                self.line(now, None, "[wfd]: work fetch start");
            }
            _ => {}
        }
        if self.flags.rr_simulation {
            let text = format!(
                "[rr_sim] rr_sim start: work_buf_total {:.2} on_frac {:.3} active_frac {:.3}",
                work_buf_total(state),
                state.time_stats.on_frac,
                state.time_stats.active_frac
            );
            self.line(now, None, &text);
            let dur_line = |j: JobIdx| {
                durs.iter()
                    .find(|d| d.job == j)
                    .map(|dur| format!("[rr_sim] {} {dur}", job_name(state, j)))
            };
            // The loop over results that sets up the simulation: each job's
            // remaining work (a `dur:` line for a job with a task), and the
            // jobs that start at once.
            let initial = sim
                .events
                .iter()
                .take_while(|e| matches!(e, SimEvent::Start { .. }))
                .count();
            let mut setup: Vec<JobIdx> = durs.iter().map(|d| d.job).collect();
            setup.extend(sim.events.iter().take(initial).map(SimEvent::job));
            setup.sort_unstable();
            setup.dedup();
            for j in setup {
                if let Some(text) = dur_line(j) {
                    self.job_line(now, state, j, &text);
                }
                for event in sim.events.iter().take(initial).filter(|e| e.job() == j) {
                    self.job_line(now, state, j, &event.line(&job_name(state, j)));
                }
            }
            for event in sim.events.iter().skip(initial) {
                let j = event.job();
                self.job_line(now, state, j, &event.line(&job_name(state, j)));
                // A job that misses its deadline is estimated again for the
                // resource's busy time.
                if let SimEvent::Miss { .. } = event {
                    if let Some(text) = dur_line(j) {
                        self.job_line(now, state, j, &text);
                    }
                }
            }
            if by == SimFor::WorkFetch {
                // set_overall_debts() estimates every queued job again.
                for dur in durs {
                    if let Some(text) = dur_line(dur.job) {
                        self.job_line(now, state, dur.job, &text);
                    }
                }
            }
        }
        if by == SimFor::Schedule && self.flags.cpu_sched_debug {
            // print_deadline_misses(): results, then projects.
            for j in 0..state.jobs.len() {
                if sim.missed.contains(&j) {
                    let text = format!(
                        "[cpu_sched_debug] Result {} projected to miss deadline.",
                        job_name(state, j)
                    );
                    self.job_line(now, state, j, &text);
                }
            }
            for p in 0..state.projects.len() {
                let missed = sim.project_rsc(p, 0).deadlines_missed;
                if missed > 0 {
                    let text = format!(
                        "[cpu_sched_debug] Project has {missed} projected CPU deadline misses"
                    );
                    self.line(now, Some(&project_name(state, p)), &text);
                }
            }
        }
    }

    /// The `dur:` lines of jobs estimated again (those with a task).
    fn estimated(&mut self, now: f64, state: &HostState, jobs: &[JobIdx]) {
        if !self.flags.rr_simulation {
            return;
        }
        for &j in jobs {
            let Some(dur) = self.durs.iter().find(|d| d.job == j) else {
                continue;
            };
            let text = format!("[rr_sim] {} {dur}", job_name(state, j));
            self.job_line(now, state, j, &text);
        }
    }

    fn enforced(
        &mut self,
        now: f64,
        state: &HostState,
        outcome: &EnforceOutcome,
        before: &[TaskBefore],
    ) {
        let debug = self.flags.cpu_sched_debug;
        if debug {
            self.line(now, None, "[cpu_sched_debug] enforce_schedule(): start");
            let name = |j: JobIdx| job_name(state, j);
            for (job, text) in outcome.list_lines(state.ninstances(0), &name) {
                match job {
                    Some(j) => self.job_line(now, state, j, &text),
                    None => self.line(now, None, &text),
                }
            }
            if outcome.cpus_idle && self.flags.work_fetch_debug {
                self.line(now, None, "[wfd] Request work fetch: CPUs idle");
            }
        }
        let kept = |j: JobIdx| outcome.walk.iter().any(|&(k, kept)| k == j && kept);
        let change = |j: JobIdx| outcome.changes.iter().find(|c| c.job() == j).copied();
        // Active tasks: those found, then the ones the walk created.
        let mut tasks: Vec<(JobIdx, u8, u8)> = before
            .iter()
            .map(|t| {
                (
                    t.job,
                    sched_state_number(t.scheduler_state),
                    task_state_number(t.task_state),
                )
            })
            .collect();
        for c in &outcome.changes {
            if let TaskChange::Start(j) = *c {
                tasks.push((j, 0, 0));
            }
        }
        for &(j, sched, task) in &tasks {
            let next = if kept(j) { 2 } else { 1 };
            if debug {
                let text = format!(
                    "[cpu_sched_debug] {} sched state {sched} next {next} task state {task}",
                    job_name(state, j)
                );
                self.job_line(now, state, j, &text);
            }
            if let Some(TaskChange::Preempt(_)) = change(j) {
                if self.flags.cpu_sched {
                    let name = |j: JobIdx| job_name(state, j);
                    let (_, text) = TaskChange::Preempt(j).line(&name);
                    self.job_line(now, state, j, &text);
                }
                if self.flags.task_debug {
                    let text = format!(
                        "[task_debug] task_state=SUSPENDED for {} from suspend",
                        job_name(state, j)
                    );
                    self.job_line(now, state, j, &text);
                }
            }
        }
        for &(j, _, _) in &tasks {
            if !kept(j) {
                continue;
            }
            // resume_or_start() says "start" for both.
            let started = match change(j) {
                Some(c @ (TaskChange::Start(_) | TaskChange::Resume(_))) => Some((c, "start")),
                _ => None,
            };
            if let Some((c, why)) = started {
                if self.flags.task {
                    let name = |j: JobIdx| job_name(state, j);
                    let (_, text) = c.line(&name);
                    self.job_line(now, state, j, &text);
                }
                if self.flags.task_debug {
                    let text = format!(
                        "[task_debug] task_state=EXECUTING for {} from {why}",
                        job_name(state, j)
                    );
                    self.job_line(now, state, j, &text);
                }
            }
            if self.flags.cpu_sched_status {
                let text = format!("[css] running {} ()", job_name(state, j));
                self.job_line(now, state, j, &text);
            }
        }
        if debug {
            self.line(now, None, "[cpu_sched_debug] enforce_schedule: end");
        }
    }

    fn work_fetch(&mut self, now: f64, state: &HostState, outcome: &WorkFetchOutcome) {
        if !self.flags.work_fetch_debug {
            return;
        }
        for &(p, _, _) in &outcome.zero_requests {
            let name = project_name(state, p);
            self.line(
                now,
                Some(&name),
                "[wfd] error: project chosen but zero request",
            );
        }
        if let Some(choice) = &outcome.choice {
            let name = project_name(state, choice.project);
            self.line(now, Some(&name), &choice.to_string());
        }
        self.line(now, None, "[wfd] ------- start work fetch state -------");
        for (project, text) in fetch_block_lines(state, &outcome.state) {
            self.line(now, project.as_deref(), &text);
        }
        self.line(now, None, "[wfd] ------- end work fetch state -------");
        if outcome.choice.is_none() {
            self.line(now, None, "[wfd] No project chosen for work fetch");
        }
    }

    fn ltd(&mut self, state: &HostState, now: f64, event: LtdEvent<'_>) {
        match event {
            LtdEvent::RrSim { sim, durs, by } => {
                self.durs = durs.to_vec();
                self.rr_sim(now, state, sim, durs, by);
            }
            LtdEvent::RunList(outcome) => {
                for pick in &outcome.picks {
                    self.estimated(now, state, &pick.estimated_before);
                    if self.flags.cpu_sched_debug {
                        let name = job_name(state, pick.job);
                        for text in pick.lines(&name) {
                            self.job_line(now, state, pick.job, &text);
                        }
                    }
                }
                self.estimated(now, state, &outcome.estimated_after);
                if !self.flags.cpu_sched_debug {
                    return;
                }
                self.line(
                    now,
                    None,
                    "[cpu_sched_debug] Request enforce CPU schedule: schedule_cpus",
                );
            }
            LtdEvent::Debts { interval, update } => {
                let Some(update) = update else {
                    if self.flags.debt_debug {
                        self.line(now, None, &interval.to_string());
                    }
                    return;
                };
                for (is_std, (project, text)) in debt_lines(state, update) {
                    let on = if is_std {
                        self.flags.std_debug
                    } else {
                        self.flags.debt_debug
                    };
                    if on {
                        self.line(now, project.as_deref(), &text);
                    }
                }
            }
            LtdEvent::Enforced { outcome, before } => self.enforced(now, state, outcome, before),
            LtdEvent::WorkFetch(outcome) => self.work_fetch(now, state, outcome),
            LtdEvent::Request { project, request } => {
                self.line(now, None, &rpc_line(state, project, request));
            }
            LtdEvent::Dcf { project, update } => {
                if self.flags.dcf_debug {
                    let name = project_name(state, project);
                    self.line(now, Some(&name), &update.to_string());
                }
            }
            LtdEvent::PeriodElapsed => {
                if self.flags.cpu_sched_debug {
                    self.line(
                        now,
                        None,
                        "[cpu_sched_debug] Request CPU reschedule: Scheduling period elapsed.",
                    );
                }
            }
            LtdEvent::RpcPollNotTime { last } => {
                let text = format!("RPC poll: not time {now:.6} - {last:.6} < {:.6}", 5.0);
                self.line(now, None, &text);
            }
            LtdEvent::RpcPollStart => self.line(now, None, "RPC poll start"),
            LtdEvent::RpcPollDone(Some(p)) => {
                let name = project_name(state, p);
                self.line(now, Some(&name), "RPC poll: did an RPC");
            }
            LtdEvent::RpcPollDone(None) => self.line(now, None, "RPC poll: didn't do an RPC"),
            LtdEvent::HostSampled(sample) => {
                let text = format!(
                    "value: {} lambda: {:.6} t {now:.6} time_left {:.6}",
                    u8::from(sample.on),
                    sample.lambda,
                    sample.time_left
                );
                self.line(now, None, &text);
            }
            LtdEvent::PollBegins => self.line(now, None, "polling"),
            LtdEvent::PollEnds { action } => {
                let text = if action {
                    "did action"
                } else {
                    "did no action"
                };
                self.line(now, None, text);
            }
            LtdEvent::StepTaken { next } => self.line(next, None, "took time step"),
        }
    }

    fn note(&mut self, state: &HostState, now: f64, note: LoopNote) {
        // The 6.10 emulator names the task poll "ATP poll".
        let why = |why: &'static str| {
            if why == "job finished" {
                "ATP poll"
            } else {
                why
            }
        };
        match note {
            LoopNote::ScheduleRequested(reason) => {
                if self.flags.cpu_sched_debug {
                    let text = format!("[cpu_sched_debug] Request CPU reschedule: {}", why(reason));
                    self.line(now, None, &text);
                }
            }
            LoopNote::WorkFetchRequested(reason) => {
                if self.flags.work_fetch_debug {
                    let text = format!("[wfd] Request work fetch: {}", why(reason));
                    self.line(now, None, &text);
                }
            }
            LoopNote::TaskExited(j) => {
                if self.flags.task_debug {
                    let text = format!(
                        "[task_debug] task_state=EXITED for {} from poll",
                        job_name(state, j)
                    );
                    self.job_line(now, state, j, &text);
                }
            }
            LoopNote::TaskFinished(j) => {
                let name = job_name(state, j);
                if self.flags.task {
                    self.job_line(
                        now,
                        state,
                        j,
                        &format!("Computation for task {name} finished"),
                    );
                }
                if self.flags.task_debug {
                    let text = format!(
                        "[task_debug] result state=FILES_UPLOADED for {name} from CS::app_finished"
                    );
                    self.job_line(now, state, j, &text);
                }
            }
            LoopNote::RpcBegins { .. } => {}
        }
    }
}

impl<W: Write> Observer for LogWriter610<W> {
    fn step_begins(&mut self, now: f64) {
        if !self.started {
            self.started = true;
            let text = format!(
                "starting simultion. delta {:.6} duration {:.6}",
                self.delta, self.duration
            );
            self.line(now, None, &text);
        }
    }

    fn event(&mut self, state: &HostState, now: f64, event: LoopEvent<'_>) {
        match event {
            LoopEvent::Ltd(event) => self.ltd(state, now, event),
            LoopEvent::Note(note) => self.note(state, now, note),
            LoopEvent::Rpc { project, jobs, .. } if self.flags.task_debug => {
                let name = project_name(state, project);
                for job in jobs {
                    let text = format!(
                        "[task_debug] result state=FILES_DOWNLOADED for {} from simulate_rpc",
                        job.name
                    );
                    self.line(now, Some(&name), &text);
                }
            }
            _ => {}
        }
    }
}

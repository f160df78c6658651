//! Job scheduling (spec §6): run-list construction (`make_run_list`) and its
//! enforcement (`enforce_run_list`: ordering, GPU assignment, CPU limits,
//! preemption and starts).
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use super::coproc_sched::{assign_coprocs_noted, CoprocAssignment, CoprocNote};
use super::params::Params;
use super::rec::{adjust_rec_sched_of, project_priority_init, PriorityInit, PriorityMode};
use super::rr_sim::{rr_simulate, RrSimOutcome};
use super::runtime::estimated_runtime_remaining;
use super::state::{
    ConcurrencyCounters, HostState, Job, JobIdx, ProjectIdx, RscIdx, SchedulerState, TaskState,
};
use super::PolicyError;
use serde::Serialize;

/// How a job entered the run list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RunListPhase {
    /// Earliest-deadline-first phase (`EDF`).
    Edf,
    /// Priority phase (`FIFO` in the log).
    Fifo,
}

/// One `add to run list: JOB (RESOURCE, EDF|FIFO) (prio P)` line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunListEntry {
    /// The job.
    pub job: JobIdx,
    /// Its resource.
    pub rsc: RscIdx,
    /// The phase that chose it.
    pub phase: RunListPhase,
    /// Its project's priority before this job's bump.
    pub priority: f64,
}

/// One message of `make_run_list` besides its `add to run list` lines, in
/// order (recorded when [`Params::trace`] is set).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum RunNote {
    /// `[cpu_sched_debug] domino prevention: mark JOB as deadline miss`.
    Domino(JobIdx),
    /// `[cpu_sched_debug] thrashing prevention: mark JOB as deadline miss`.
    Thrashing(JobIdx),
    /// `[cpu_sched_debug] insufficient TYPE for JOB`.
    Insufficient(JobIdx),
    /// `[cpu_sched_debug] reserving USAGE of coproc TYPE`.
    Reserve(JobIdx),
    /// The run list's entry of this index was added.
    Add(usize),
    /// An EDF pick, before its checks (7.0-7.2 print `[cpu_sched_debug]
    /// earliest deadline: DEADLINE JOB` for it).
    EdfPick(JobIdx),
}

/// The result of `make_run_list`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunListOutcome {
    /// The simulation used (reused when made at this `now`).
    pub sim: RrSimOutcome,
    /// The runnable-mode priority initialisation (printed `[prio]` lines).
    pub prio_init: PriorityInit,
    /// The ordered candidate list.
    pub run_list: Vec<RunListEntry>,
    /// Its messages (empty unless [`Params::trace`]).
    pub notes: Vec<RunNote>,
    /// Jobs `promote_once_ran_edf` marked as deadline misses (the
    /// simulation's flags stay as it left them).
    pub promoted: Vec<JobIdx>,
    /// Each pick that beat a rival by a comparison of two numbers, with
    /// how far apart they were: what a caller holding those numbers only
    /// to some precision needs to tell a decided pick from a tie.
    pub margins: Vec<PickMargin>,
}

/// How close one pick of `make_run_list` came to going the other way.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum PickMargin {
    /// The priority phase took `chosen`'s next job over `rival`'s:
    /// `margin` = the two scheduling priorities' difference (≥ 0).
    Priority {
        /// The run list's length when the pick was made.
        at: usize,
        /// The project taken.
        chosen: ProjectIdx,
        /// The best project not taken.
        rival: ProjectIdx,
        /// Their priorities' difference.
        margin: f64,
    },
    /// The EDF phase took `chosen` over `rival`, of the same report
    /// deadline and the same task status, by estimated runtime left:
    /// `margin` = their difference, seconds (≥ 0).
    RuntimeLeft {
        /// The run list's length when the pick was made.
        at: usize,
        /// The job taken.
        chosen: JobIdx,
        /// The job of that deadline and task status closest to it in
        /// that estimate.
        rival: JobIdx,
        /// Their estimates' difference.
        margin: f64,
    },
}

/// Reserved usage while building the list (`PROC_RESOURCES`).
struct ProcResources {
    ncpus: f64,
    used_st: f64,
    used_mt: f64,
    coproc_usage: Vec<Vec<f64>>,
}

impl ProcResources {
    fn stop_scan_cpu(&self, params: &Params) -> bool {
        self.used_st >= params.run_list_overfill * self.ncpus
            || (params.run_list_mt_overfill > 0.0
                && self.used_mt >= params.run_list_mt_overfill * self.ncpus)
    }

    /// Before 8.2.14 `can_schedule` also refused a CPU job once the list
    /// held enough CPU jobs of its kind (removed by commit 183517e42d).
    fn cpu_list_full(&self, state: &HostState, j: JobIdx, params: &Params) -> bool {
        if params.run_list_cpu_fill_check == 0.0 {
            return false;
        }
        let Some(job) = state.jobs.get(j) else {
            return false;
        };
        if job.usage.rsc != 0 {
            return false;
        }
        if job.usage.avg_ncpus > 1.0 {
            (self.used_mt > 0.0 || params.mt_first_may_exceed == 0.0)
                && self.used_mt + job.usage.avg_ncpus > self.ncpus
        } else {
            self.used_st >= self.ncpus
        }
    }

    fn stop_scan_coproc(&self, rsc: RscIdx) -> bool {
        self.coproc_usage
            .get(rsc)
            .is_none_or(|row| row.iter().all(|&u| u >= 1.0))
    }

    /// `Err(true)` = not enough free GPU instances (a printed reason).
    fn can_schedule(&self, state: &HostState, j: JobIdx, now: f64) -> Result<(), bool> {
        self.schedulable(state, j, now)
            .then_some(())
            .ok_or_else(|| coprocs_short(state, j, now))
    }
}

/// The job was refused for want of free GPU instances (the other refusals
/// of `can_schedule` come first and print nothing).
fn coprocs_short(state: &HostState, j: JobIdx, now: f64) -> bool {
    state.jobs.get(j).is_some_and(|job| {
        job.usage.rsc != 0
            && job.schedule_backoff <= now
            && !job.task.as_ref().is_some_and(|t| {
                matches!(
                    t.task_state,
                    TaskState::AbortPending | TaskState::QuitPending
                )
            })
            && !(state.uses_gpu(job) && state.gpu_suspended)
    })
}

impl ProcResources {
    fn schedulable(&self, state: &HostState, j: JobIdx, now: f64) -> bool {
        let Some(job) = state.jobs.get(j) else {
            return false;
        };
        if job.task.as_ref().is_some_and(|t| {
            matches!(
                t.task_state,
                TaskState::AbortPending | TaskState::QuitPending
            )
        }) {
            return false;
        }
        if job.schedule_backoff > now || (state.uses_gpu(job) && state.gpu_suspended) {
            return false;
        }
        let r = job.usage.rsc;
        if r == 0 {
            return true;
        }
        let mut x = job.usage.coproc_usage;
        for (i, &used) in self.coproc_usage.get(r).into_iter().flatten().enumerate() {
            if state.gpu_excluded(job.project, &job.app, r, i) {
                continue;
            }
            x -= 1.0 - used;
            if x <= 0.0 {
                return true;
            }
        }
        false
    }

    /// Reserves the job's resources; true if GPU instances were reserved.
    fn schedule(&mut self, state: &HostState, j: JobIdx, params: &Params) -> bool {
        let Some(job) = state.jobs.get(j) else {
            return false;
        };
        let r = job.usage.rsc;
        if r != 0 {
            // A GPU job that may be kept off its instances reserves none:
            // since 7.16.1 when its project has excluded instances, before
            // when any exclusion names the resource (`run_list_exclusions_global`).
            // Before 7.4.0 only a job whose task is executing or suspended
            // in memory (`run_list_exclusions_running_only`).
            let running = job.task.as_ref().is_some_and(|t| {
                matches!(t.task_state, TaskState::Executing | TaskState::Suspended)
            });
            let may_not_run = if params.run_list_exclusions_global != 0.0 {
                state.has_exclusions(r, params)
            } else {
                state.ncoprocs_excluded(job.project, r) > 0
            } && (params.run_list_exclusions_running_only == 0.0 || running);
            if may_not_run {
                return false;
            }
            // Spec §6.2 says "fill the first non-excluded instance with enough room;
            // otherwise fill instances partially". The client (PROC_RESOURCES::reserve_coprocs
            // in client/cpu_sched.cpp) walks the instances in index order, topping up each
            // one it meets and stopping at the first with enough room, so an earlier
            // partly-used instance is filled even if a later one has room. The client wins.
            let mut x = job.usage.coproc_usage;
            for (i, used) in self
                .coproc_usage
                .get_mut(r)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if state.gpu_excluded(job.project, &job.app, r, i) {
                    continue;
                }
                let unused = 1.0 - *used;
                if unused >= x {
                    *used += x;
                    break;
                }
                *used = 1.0;
                x -= unused;
            }
            return true;
        } else if job.usage.avg_ncpus > 1.0 {
            self.used_mt += job.usage.avg_ncpus;
        } else {
            self.used_st += job.usage.avg_ncpus;
        }
        false
    }
}

/// Working state of one `make_run_list`.
struct RunListBuilder<'a> {
    state: &'a mut HostState,
    params: &'a Params,
    now: f64,
    selected: Vec<bool>,
    started: Vec<bool>,
    dl_copy: Vec<Vec<i64>>,
    next_result: Vec<Option<JobIdx>>,
    proc: ProcResources,
    notes: Vec<RunNote>,
    run_list: Vec<RunListEntry>,
    /// The caller's order for deadline ties the estimates of
    /// [`Job::estimate_unknown`] jobs would break.
    tie_hint: &'a [String],
    margins: Vec<PickMargin>,
    /// The host's total peak FLOPS (the REC bump's denominator).
    total_peak: f64,
}

impl RunListBuilder<'_> {
    /// `Some(true)` when job `a` comes before job `b` in the tie hint (one
    /// of them with an unknown estimate, at least one listed).
    fn hinted_before(&self, a: &Job, b: &Job) -> Option<bool> {
        if !(a.estimate_unknown || b.estimate_unknown) {
            return None;
        }
        self.hint_order(a, b)
    }

    /// `Some(true)` when job `a` comes before job `b` in the tie hint (at
    /// least one of them listed; a listed job before an unlisted one).
    fn hint_order(&self, a: &Job, b: &Job) -> Option<bool> {
        let position = |job: &Job| self.tie_hint.iter().position(|n| *n == job.name);
        match (position(a), position(b)) {
            (Some(x), Some(y)) => Some(x < y),
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        }
    }

    /// Before 7.6.13 (`uninitialised_result_index`) the index of a job the
    /// emulator created is undefined: `Some(true)` when job `a` comes before
    /// job `b` in the tie hint (the recorded order), one of them with an
    /// unset index and at least one listed.
    fn unset_index_before(&self, a: &Job, b: &Job) -> Option<bool> {
        if self.params.uninitialised_result_index == 0.0 || !(a.index_unset || b.index_unset) {
            return None;
        }
        self.hint_order(a, b)
    }

    fn candidate(&self, j: JobIdx, rsc: RscIdx) -> bool {
        let job = &self.state.jobs[j];
        job.usage.rsc == rsc
            && !self.selected[j]
            && self.state.runnable(job, self.now)
            && !self.state.always_run(job)
    }

    /// A job the EDF phase considers: a candidate of a project with
    /// deadline misses of `rsc` left (or one still using its DCF).
    fn edf_candidate(&self, j: JobIdx, rsc: RscIdx) -> bool {
        if !self.candidate(j, rsc) {
            return false;
        }
        let project = self.state.jobs[j].project;
        let p = &self.state.projects[project];
        !((p.dont_use_dcf || p.dcf < self.params.dcf_edf_threshold)
            && self.dl_copy[project][rsc] <= 0)
    }

    /// Mirrors earliest_deadline_result() in client/cpu_sched.cpp (§6.2).
    fn earliest_deadline_result(&self, rsc: RscIdx) -> Option<JobIdx> {
        let mut best: Option<JobIdx> = None;
        for j in 0..self.state.jobs.len() {
            if !self.edf_candidate(j, rsc) {
                continue;
            }
            let job = &self.state.jobs[j];
            let Some(b) = best else {
                best = Some(j);
                continue;
            };
            let incumbent = &self.state.jobs[b];
            if job.report_deadline < incumbent.report_deadline {
                best = Some(j);
                continue;
            }
            if job.report_deadline > incumbent.report_deadline {
                continue;
            }
            let (has_task, best_has_task) = (job.task.is_some(), incumbent.task.is_some());
            if best_has_task && !has_task {
                continue;
            }
            let shorter = match self.hinted_before(job, incumbent) {
                Some(before) => before,
                None => {
                    estimated_runtime_remaining(self.state, job, self.params)
                        < estimated_runtime_remaining(self.state, incumbent, self.params)
                }
            };
            if shorter || (!best_has_task && has_task) {
                best = Some(j);
            }
        }
        best
    }

    /// Mirrors first_coproc_result() in client/cpu_sched.cpp (§6.2, §9.2).
    fn first_coproc_result(&self, rsc: RscIdx) -> Option<JobIdx> {
        let mut best: Option<(JobIdx, f64)> = None;
        for j in 0..self.state.jobs.len() {
            if !self.candidate(j, rsc) {
                continue;
            }
            let prio = self.state.projects[self.state.jobs[j].project]
                .prio
                .sched_priority;
            let Some((b, best_prio)) = best else {
                best = Some((j, prio));
                continue;
            };
            if prio < best_prio {
                continue;
            }
            if prio > best_prio {
                best = Some((j, prio));
                continue;
            }
            match (self.started[j], self.started[b]) {
                (true, false) => best = Some((j, prio)),
                (false, true) => {}
                _ => {
                    let (job, incumbent) = (&self.state.jobs[j], &self.state.jobs[b]);
                    let before = match self.unset_index_before(job, incumbent) {
                        Some(before) => before,
                        None => job.index < incumbent.index,
                    };
                    if before {
                        best = Some((j, prio));
                    }
                }
            }
        }
        best.map(|(j, _)| j)
    }

    /// Mirrors CLIENT_STATE::assign_results_to_projects() (§6.2).
    fn assign_results_to_projects(&mut self) {
        let jobs = &self.state.jobs;
        // Tasks in the client's active-task order (creation order).
        let mut with_task: Vec<JobIdx> = (0..jobs.len())
            .filter(|&j| jobs[j].task.is_some())
            .collect();
        with_task.sort_by_key(|&j| jobs[j].task.as_ref().map_or(0, |t| t.seq));
        for j in with_task {
            let job = &jobs[j];
            let Some(task) = &job.task else { continue };
            let task_ok = matches!(
                task.task_state,
                TaskState::Uninitialized | TaskState::Executing | TaskState::Suspended
            );
            if self.state.always_run(job)
                || !task_ok
                || self.selected[j]
                || job.usage.uses_coprocs()
                || !self.state.runnable(job, self.now)
            {
                continue;
            }
            let slot = &mut self.next_result[job.project];
            let Some(current) = *slot else {
                *slot = Some(j);
                continue;
            };
            if let Some(current_task) = &jobs[current].task {
                let no_process_vs_process =
                    current_task.task_state == TaskState::Uninitialized && task.has_process();
                let preempted_vs_scheduled = current_task.scheduler_state
                    == SchedulerState::Preempted
                    && task.scheduler_state == SchedulerState::Scheduled;
                if no_process_vs_process || preempted_vs_scheduled {
                    *slot = Some(j);
                }
            }
        }
        for (j, job) in jobs.iter().enumerate() {
            if self.selected[j]
                || job.usage.uses_coprocs()
                || job.task.is_some()
                || !self.state.runnable(job, self.now)
            {
                continue;
            }
            let slot = &mut self.next_result[job.project];
            if slot.is_none() {
                *slot = Some(j);
            }
        }
    }

    /// Mirrors CLIENT_STATE::highest_prio_project_best_result() (§6.2).
    fn highest_prio_project_best_result(&mut self) -> Option<JobIdx> {
        let prio = |p: ProjectIdx| self.state.projects[p].prio.sched_priority;
        let mut best: Option<ProjectIdx> = None;
        for p in 0..self.state.projects.len() {
            if self.next_result[p].is_none() {
                continue;
            }
            if best.is_none_or(|b| prio(p) > prio(b)) {
                best = Some(p);
            }
        }
        let chosen = best?;
        let rival = (0..self.state.projects.len())
            .filter(|&p| p != chosen && self.next_result[p].is_some())
            .max_by(|&a, &b| prio(a).total_cmp(&prio(b)));
        if let Some(rival) = rival {
            self.margins.push(PickMargin::Priority {
                at: self.run_list.len(),
                chosen,
                rival,
                margin: prio(chosen) - prio(rival),
            });
        }
        self.next_result[chosen].take()
    }

    /// After an EDF pick of `chosen` by estimated runtime left: the job of
    /// its report deadline and task status closest to it in that estimate
    /// (the comparisons a tie hint decided excepted).
    fn note_edf_margin(&mut self, chosen: JobIdx, rsc: RscIdx) {
        let winner = &self.state.jobs[chosen];
        let left = |job: &Job| estimated_runtime_remaining(self.state, job, self.params);
        let mine = left(winner);
        let rival = (0..self.state.jobs.len())
            .filter(|&j| j != chosen && self.edf_candidate(j, rsc))
            .filter(|&j| {
                let job = &self.state.jobs[j];
                job.report_deadline == winner.report_deadline
                    && job.task.is_some() == winner.task.is_some()
                    && self.hinted_before(job, winner).is_none()
            })
            .map(|j| (j, (left(&self.state.jobs[j]) - mine).abs()))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((rival, margin)) = rival {
            self.margins.push(PickMargin::RuntimeLeft {
                at: self.run_list.len(),
                chosen,
                rival,
                margin,
            });
        }
    }

    fn note(&mut self, note: RunNote) {
        if self.params.trace {
            self.notes.push(note);
        }
    }

    /// `can_schedule`, noting an insufficient-GPU refusal.
    fn can_schedule(&mut self, j: JobIdx) -> bool {
        match self.proc.can_schedule(self.state, j, self.now) {
            Ok(()) => true,
            Err(short) => {
                if short {
                    self.note(RunNote::Insufficient(j));
                }
                false
            }
        }
    }

    fn add(&mut self, j: JobIdx, phase: RunListPhase) {
        let job = &self.state.jobs[j];
        let (rsc, project) = (job.usage.rsc, job.project);
        let priority = self.state.projects[project].prio.sched_priority;
        if self.proc.schedule(self.state, j, self.params) {
            self.note(RunNote::Reserve(j));
        }
        self.note(RunNote::Add(self.run_list.len()));
        adjust_rec_sched_of(self.state, j, self.params, self.total_peak);
        if phase == RunListPhase::Edf {
            self.dl_copy[project][rsc] -= 1;
        }
        self.run_list.push(RunListEntry {
            job: j,
            rsc,
            phase,
            priority,
        });
    }
}

/// Mirrors CLIENT_STATE::make_run_list() in client/cpu_sched.cpp (§6.2):
/// GPU types in index order (EDF then priority), then CPU EDF, then CPU by
/// project priority. Reuses `sim` if it was made at this `now` (§8).
pub fn make_run_list(
    state: &mut HostState,
    now: f64,
    sim: Option<RrSimOutcome>,
    params: &Params,
) -> Result<RunListOutcome, PolicyError> {
    make_run_list_with_ties(state, now, sim, params, &[])
}

/// [`make_run_list`] where a deadline tie that the client breaks by
/// estimated time left, and one of the tied jobs' estimate is not known
/// ([`Job::estimate_unknown`]), is broken by `tie_hint` (job names, first
/// first) instead: a replay's order from the recording.
pub fn make_run_list_with_ties(
    state: &mut HostState,
    now: f64,
    sim: Option<RrSimOutcome>,
    params: &Params,
    tie_hint: &[String],
) -> Result<RunListOutcome, PolicyError> {
    state.validate()?;
    let sim = match sim {
        Some(sim) if sim.now == now => sim,
        _ => rr_simulate(state, now, params)?,
    };
    let mut notes = Vec::new();
    let promoted = promote_once_ran_edf(state, &sim, now, params, &mut notes);
    let prio_init = if let Some(given) = state.given_priorities.clone() {
        state.rec_sum = given.rec_sum;
        for (project, prio) in state.projects.iter_mut().zip(given.prio) {
            project.prio = prio;
        }
        PriorityInit {
            rs_sum: state.projects.iter().map(|p| p.resource_share).sum(),
            rec_sum: state.rec_sum,
            lines: Vec::new(),
        }
    } else {
        project_priority_init(state, PriorityMode::Runnable, now, params)
    };
    let n_rsc = state.n_rsc();
    let n_jobs = state.jobs.len();
    let started = state
        .jobs
        .iter()
        .map(|job| job.task.is_some() || job.computing_done())
        .collect();
    let given_misses = state.given_cpu_misses.as_deref();
    let dl_copy = (0..state.projects.len())
        .map(|p| {
            (0..n_rsc)
                .map(|r| match given_misses.and_then(|m| m.get(p)) {
                    Some(&given) if r == 0 => given,
                    _ => sim.project_rsc(p, r).deadlines_missed as i64,
                })
                .collect()
        })
        .collect();
    let proc = ProcResources {
        ncpus: state.n_usable_cpus() as f64,
        used_st: 0.0,
        used_mt: 0.0,
        coproc_usage: (0..n_rsc)
            .map(|r| {
                if r == 0 {
                    Vec::new()
                } else {
                    vec![0.0; state.ninstances(r)]
                }
            })
            .collect(),
    };
    let have_mc = ConcurrencyCounters::enabled(state);
    let mut counters = ConcurrencyCounters::new(state);
    let mut b = RunListBuilder {
        next_result: vec![None; state.projects.len()],
        total_peak: state.total_peak_flops(params),
        state,
        params,
        now,
        selected: vec![false; n_jobs],
        started,
        dl_copy,
        proc,
        notes,
        run_list: Vec::new(),
        tie_hint,
        margins: Vec::new(),
    };
    // Before 7.16.1 can_schedule() applied max_concurrent to GPU jobs too,
    // with counters started before them (`run_list_mc_gpu`); since, to CPU
    // jobs only, counted afresh after the GPU jobs.
    let mc_gpu = have_mc && params.run_list_mc_gpu != 0.0;
    for r in 1..n_rsc {
        for phase in [RunListPhase::Edf, RunListPhase::Fifo] {
            while !b.proc.stop_scan_coproc(r) {
                let next = match phase {
                    RunListPhase::Edf => b.earliest_deadline_result(r),
                    RunListPhase::Fifo => b.first_coproc_result(r),
                };
                let Some(j) = next else { break };
                b.selected[j] = true;
                if phase == RunListPhase::Edf {
                    b.note(RunNote::EdfPick(j));
                }
                if mc_gpu && counters.exceeded(b.state, &b.state.jobs[j]).is_some() {
                    continue;
                }
                if b.can_schedule(j) {
                    b.add(j, phase);
                    if mc_gpu {
                        counters.inc(b.state, &b.state.jobs[j]);
                    }
                }
            }
        }
    }
    for phase in [RunListPhase::Edf, RunListPhase::Fifo] {
        while !b.proc.stop_scan_cpu(params) {
            let next = match phase {
                RunListPhase::Edf => b.earliest_deadline_result(0),
                RunListPhase::Fifo => {
                    b.assign_results_to_projects();
                    b.highest_prio_project_best_result()
                }
            };
            let Some(j) = next else { break };
            if phase == RunListPhase::Edf {
                b.note_edf_margin(j, 0);
                b.note(RunNote::EdfPick(j));
            }
            b.selected[j] = true;
            if have_mc && counters.exceeded(b.state, &b.state.jobs[j]).is_some() {
                continue;
            }
            if !b.can_schedule(j) || b.proc.cpu_list_full(b.state, j, params) {
                continue;
            }
            b.add(j, phase);
            if have_mc {
                counters.inc(b.state, &b.state.jobs[j]);
            }
        }
    }
    let (run_list, notes, margins) = (b.run_list, b.notes, b.margins);
    Ok(RunListOutcome {
        sim,
        prio_init,
        run_list,
        notes,
        promoted,
        margins,
    })
}

/// Mirrors promote_once_ran_edf() in client/cpu_sched.cpp: a task not
/// simulated to miss its deadline is marked as missing it if it once ran
/// EDF while its project has misses of its resource ("domino"), or if a
/// simulation saw it miss within the last scheduling period
/// ("thrashing"). The marks feed only `once_ran_edf` and the log.
fn promote_once_ran_edf(
    state: &HostState,
    sim: &RrSimOutcome,
    now: f64,
    params: &Params,
    notes: &mut Vec<RunNote>,
) -> Vec<JobIdx> {
    let mut tasks: Vec<(u64, JobIdx)> = state
        .jobs
        .iter()
        .enumerate()
        .filter_map(|(j, job)| job.task.as_ref().map(|t| (t.seq, j)))
        .collect();
    tasks.sort_unstable();
    let mut promoted = Vec::new();
    for (_, j) in tasks {
        if sim.misses_deadline.get(j).copied().unwrap_or(false) {
            continue;
        }
        let job = &state.jobs[j];
        let Some(task) = job.task.as_ref() else {
            continue;
        };
        let note = if task.once_ran_edf
            && sim.project_rsc(job.project, job.usage.rsc).deadlines_missed > 0
        {
            RunNote::Domino(j)
        } else if now - task.last_deadline_miss_time < state.cpu_scheduling_period() {
            RunNote::Thrashing(j)
        } else {
            continue;
        };
        if params.trace {
            notes.push(note);
        }
        promoted.push(j);
    }
    promoted
}

/// What enforcement does to a task.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum EnforceAction {
    /// Keep running / start / resume (`scheduling JOB`).
    Schedule(JobIdx),
    /// GPU instance assignment (`Assigning <type> instance N to JOB`).
    AssignCoprocs(JobIdx, Vec<usize>),
    /// Preempt; `removed` says whether it leaves memory.
    Preempt {
        /// The job.
        job: JobIdx,
        /// Removed from memory.
        removed: bool,
    },
}

/// Why a listed job was not scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SkipReason {
    /// At a concurrency limit.
    MaxConcurrent,
    /// The CPUs are full.
    CpusFull,
    /// No GPU instance could be assigned.
    NoCoprocs,
    /// Not enough RAM.
    RamTooSmall,
}

/// The result of `enforce_run_list`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnforceOutcome {
    /// The final (sorted) job list.
    pub final_list: Vec<JobIdx>,
    /// Actions in order.
    pub actions: Vec<EnforceAction>,
    /// Jobs skipped, with why.
    pub skipped: Vec<(JobIdx, SkipReason)>,
    /// CPUs used after the scan.
    pub cpus_used: f64,
    /// Work fetch should be checked ("CPUs idle").
    pub cpus_idle: bool,
    /// Per run-list entry, `unfinished_time_slice` before it was cleared
    /// (the preliminary list's `UTS`).
    pub preliminary_uts: Vec<bool>,
    /// The sorted list before GPU assignment, as printed: (job, `MD`
    /// (scheduled as EDF), `UTS` (unfinished time slice)).
    pub sorted: Vec<(JobIdx, bool, bool)>,
    /// The GPU assignment's messages.
    pub coproc_notes: Vec<CoprocNote>,
}

/// Mirrors finished_time_slice() in client/cpu_sched.cpp (§6.3 step 4).
fn finished_time_slice(state: &HostState, j: JobIdx, now: f64) -> bool {
    let Some(task) = state.jobs.get(j).and_then(|job| job.task.as_ref()) else {
        return true;
    };
    let slice_end = task.run_interval_start + state.cpu_scheduling_period();
    now > slice_end && task.checkpoint_wall_time > slice_end
}

/// Mirrors CLIENT_STATE::enforce_run_list() in client/cpu_sched.cpp (§6.3),
/// without swap or sporadic handling: sorts the list by `more_important`,
/// assigns GPU instances, fills the CPUs and decides preemptions. Updates
/// the tasks' scheduler states; new tasks are created for started jobs.
pub fn enforce_run_list(
    state: &mut HostState,
    run_list: &[RunListEntry],
    now: f64,
    params: &Params,
) -> Result<EnforceOutcome, PolicyError> {
    state.validate()?;
    let preliminary_uts: Vec<bool> = run_list
        .iter()
        .map(|e| {
            state
                .jobs
                .get(e.job)
                .is_some_and(|j| j.unfinished_time_slice)
        })
        .collect();
    let mut list: Vec<(JobIdx, bool, usize, bool)> = run_list
        .iter()
        .enumerate()
        .map(|(seq, e)| (e.job, e.phase == RunListPhase::Edf, seq, false))
        .collect();
    let original_len = list.len();
    for j in 0..state.jobs.len() {
        let job = &state.jobs[j];
        let scheduled = job
            .task
            .as_ref()
            .is_some_and(|t| t.scheduler_state == SchedulerState::Scheduled);
        if !scheduled
            || !state.runnable(job, now)
            || state.always_run(job)
            || (state.uses_gpu(job) && state.gpu_suspended)
        {
            continue;
        }
        if finished_time_slice(state, j, now) {
            continue;
        }
        match list.iter_mut().find(|entry| entry.0 == j) {
            Some(entry) => entry.3 = true,
            None => list.push((j, false, original_len, true)),
        }
    }
    let prioritize_gpu = state.config.prioritize_gpu;
    // Before 7.4.9 (params.enforce_sort_gpu_by_ncpus) the CPU-count key
    // orders GPU jobs too (cpu_sched.cpp more_important() at 7.2.42).
    let gpu_by_ncpus = params.enforce_sort_gpu_by_ncpus != 0.0;
    list.sort_by(|a, b| {
        let (ja, jb) = (&state.jobs[a.0], &state.jobs[b.0]);
        let (ca, cb) = (ja.usage.uses_coprocs(), jb.usage.uses_coprocs());
        // The last key is the client's tie-breaker `r0 < r1` (object
        // addresses, i.e. creation order): it orders the running jobs that
        // append_unfinished_time_slice() added with one shared seqno.
        let key = |coproc: bool, edf: bool, uts: bool, ncpus: f64, seq: usize, alloc: u64| {
            (
                !(prioritize_gpu && coproc),
                !edf,
                prioritize_gpu || !coproc,
                !uts,
                if coproc && !gpu_by_ncpus { 0.0 } else { -ncpus },
                seq,
                alloc,
            )
        };
        key(ca, a.1, a.3, ja.usage.avg_ncpus, a.2, ja.alloc_seq)
            .partial_cmp(&key(cb, b.1, b.3, jb.usage.avg_ncpus, b.2, jb.alloc_seq))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for entry in &list {
        state.jobs[entry.0].unfinished_time_slice = entry.3;
    }
    let sorted: Vec<JobIdx> = list.iter().map(|entry| entry.0).collect();
    let mut coproc_notes = Vec::new();
    let assignments = assign_coprocs_noted(state, &sorted, &mut coproc_notes);
    let n_usable = state.n_usable_cpus() as f64;
    let user_limited = (n_usable as u32) < state.host.p_ncpus;
    let mut ram_left = state.host.m_nbytes
        * if state.user_active {
            state.prefs.ram_max_used_busy_frac
        } else {
            state.prefs.ram_max_used_idle_frac
        };
    let mut counters = ConcurrencyCounters::new(state);
    let have_mc = ConcurrencyCounters::enabled(state);
    let mut out = EnforceOutcome {
        final_list: Vec::new(),
        actions: Vec::new(),
        skipped: Vec::new(),
        cpus_used: 0.0,
        cpus_idle: false,
        preliminary_uts,
        sorted: list.iter().map(|e| (e.0, e.1, e.3)).collect(),
        coproc_notes,
    };
    let mut scheduled = vec![false; state.jobs.len()];
    for &j in &sorted {
        let job = &state.jobs[j];
        let assignment = assignments
            .iter()
            .find(|(k, _)| *k == j)
            .map(|(_, a)| a.clone());
        if assignment == Some(CoprocAssignment::Removed) {
            out.skipped.push((j, SkipReason::NoCoprocs));
            continue;
        }
        out.final_list.push(j);
        // assign_coprocs() gives instances (and logs it) to every GPU job of
        // the list before the scan below can skip it (client/coproc_sched.cpp).
        if let Some(CoprocAssignment::Assigned(instances)) = assignment {
            out.actions.push(EnforceAction::AssignCoprocs(j, instances));
        }
        let ncpus = job.usage.avg_ncpus;
        let skip = if have_mc && counters.exceeded(state, job).is_some() {
            Some(SkipReason::MaxConcurrent)
        } else if (user_limited
            && params.enforce_user_cpu_limit != 0.0
            && out.cpus_used + ncpus > n_usable)
            || (out.cpus_used >= n_usable
                && (!job.usage.uses_coprocs()
                    || out.cpus_used + ncpus > n_usable + params.gpu_overcommit_cpus))
        {
            Some(SkipReason::CpusFull)
        } else if job.task.as_ref().is_some_and(|t| t.rss_smoothed > ram_left) {
            Some(SkipReason::RamTooSmall)
        } else {
            None
        };
        if let Some(reason) = skip {
            out.skipped.push((j, reason));
            continue;
        }
        out.cpus_used += ncpus;
        ram_left -= job.task.as_ref().map_or(0.0, |t| t.rss_smoothed);
        if have_mc {
            counters.inc(state, job);
        }
        out.actions.push(EnforceAction::Schedule(j));
        scheduled[j] = true;
    }
    out.cpus_idle = out.cpus_used < n_usable;
    let leave_in_memory = state.prefs.leave_apps_in_memory;
    for (j, job) in state.jobs.iter_mut().enumerate() {
        let uses_coprocs = job.usage.uses_coprocs();
        let Some(task) = job.task.as_mut() else {
            if scheduled[j] {
                let mut task = super::state::Task::new();
                task.scheduler_state = SchedulerState::Scheduled;
                task.run_interval_start = now;
                job.task = Some(task);
            }
            continue;
        };
        if scheduled[j] {
            if task.scheduler_state != SchedulerState::Scheduled {
                task.run_interval_start = now;
            }
            task.scheduler_state = SchedulerState::Scheduled;
        } else if task.scheduler_state == SchedulerState::Scheduled
            && task.task_state == TaskState::Executing
        {
            // §6.3 step 11: "a job that never checkpointed stays in memory". The client
            // (ACTIVE_TASK::preempt) tests checkpoint_elapsed_time, not the wall time of the
            // last checkpoint: the emulator's tasks have a checkpoint wall time (time slices
            // end) but no checkpoint elapsed time, and are left in memory.
            let removed = uses_coprocs || (task.checkpoint_elapsed > 0.0 && !leave_in_memory);
            out.actions.push(EnforceAction::Preempt { job: j, removed });
            task.scheduler_state = SchedulerState::Preempted;
        } else {
            task.scheduler_state = SchedulerState::Preempted;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::rr_sim::tests::{a_gpu_job, seed_two_projects};
    use crate::policy::state::tests::seed_host;
    use crate::policy::state::{Job, Project, ResourceUsage};

    /// §9.7 seed_cpu_gpu_two_projects 01:00:00: after A's 8 GPU jobs arrive, the run list is
    /// `A_0 (NVIDIA GPU, FIFO) (prio -0.000000)`: one GPU, whole-GPU jobs, lowest index first.
    #[test]
    fn first_run_list_of_seed() {
        let mut state = seed_two_projects();
        for n in 0..8 {
            let mut job = a_gpu_job(n);
            job.index = n as i64;
            state.jobs.push(job);
        }
        let out = make_run_list(&mut state, 3600.0, None, &Params::default()).unwrap();
        assert_eq!(out.run_list.len(), 1);
        let entry = &out.run_list[0];
        assert_eq!(
            (entry.job, entry.rsc, entry.phase),
            (0, 1, RunListPhase::Fifo)
        );
        assert!(entry.priority == 0.0 && entry.priority.is_sign_negative());
        let enforced =
            enforce_run_list(&mut state, &out.run_list, 3600.0, &Params::default()).unwrap();
        assert_eq!(
            enforced.actions,
            vec![
                EnforceAction::AssignCoprocs(0, vec![0]),
                EnforceAction::Schedule(0)
            ]
        );
        // 0.2 of 4 CPUs used → CPUs idle.
        assert!(enforced.cpus_idle);
    }

    /// §5.5, §9.7 cpu_two_projects_unequal_share 01:00:00: 8 Alpha jobs on 4 CPUs, share_frac 1:
    /// the list is over-filled to 2 × 4 = 8 jobs with priorities −0, −0.010417, …, −0.072917
    /// (steps of (5e9/20e9)/24 = 0.0104167).
    #[test]
    fn cpu_run_list_bumps_priority() {
        let mut host = seed_host();
        host.coprocs.clear();
        let mut state = HostState::new(host);
        state.projects.push(Project::new("Alpha", 300.0, 1));
        state.projects.push(Project::new("Beta", 100.0, 1));
        for n in 0..10 {
            state.jobs.push(Job::new(
                &format!("Alpha_{n}"),
                0,
                "a",
                ResourceUsage::cpu(1.0, 5e9),
                72e12,
            ));
        }
        let out = make_run_list(&mut state, 3600.0, None, &Params::default()).unwrap();
        assert_eq!(out.run_list.len(), 8);
        for (n, entry) in out.run_list.iter().enumerate() {
            assert_eq!(entry.job, n);
            assert!((entry.priority + n as f64 * 0.25 / 24.0).abs() < 1e-9);
        }
        let enforced =
            enforce_run_list(&mut state, &out.run_list, 3600.0, &Params::default()).unwrap();
        assert_eq!(enforced.cpus_used, 4.0);
        assert_eq!(enforced.skipped.len(), 4);
    }

    /// 1 CPU: J1 3000 s (deadline far), J2 2000 s with comp deadline 4000 → misses in the
    /// simulation (finishes at 5000).
    fn one_cpu_with_a_deadline_miss() -> HostState {
        let mut host = seed_host();
        host.coprocs.clear();
        host.p_ncpus = 1;
        let mut state = HostState::new(host);
        state.projects.push(Project::new("P", 100.0, 1));
        let mut j1 = Job::new("J1", 0, "j", ResourceUsage::cpu(1.0, 1e9), 3000e9);
        j1.report_deadline = 20000.0;
        let mut j2 = Job::new("J2", 0, "j", ResourceUsage::cpu(1.0, 1e9), 2000e9);
        j2.report_deadline = 12640.0;
        state.jobs = vec![j1, j2];
        state
    }

    /// §6.2 EDF: a job simulated to miss its deadline is listed first as EDF
    /// ([`one_cpu_with_a_deadline_miss`]): EDF picks the project's earliest
    /// deadline (J2).
    #[test]
    fn deadline_miss_goes_first_as_edf() {
        let mut state = one_cpu_with_a_deadline_miss();
        let out = make_run_list(&mut state, 0.0, None, &Params::default()).unwrap();
        assert_eq!(
            (out.run_list[0].job, out.run_list[0].phase),
            (1, RunListPhase::Edf)
        );
        assert_eq!(
            (out.run_list[1].job, out.run_list[1].phase),
            (0, RunListPhase::Fifo)
        );
    }

    /// Given miss counts replace the simulation's in the EDF part: on
    /// [`one_cpu_with_a_deadline_miss`] (its simulation misses J2's deadline), a count of 0
    /// given leaves the list to FIFO order, a count of 1 puts J2 first.
    #[test]
    fn given_cpu_misses_decide_the_edf_part() {
        let mut state = one_cpu_with_a_deadline_miss();
        let picks = |state: &mut HostState| {
            let out = make_run_list(state, 0.0, None, &Params::default()).unwrap();
            assert_eq!(out.sim.project_rsc(0, 0).deadlines_missed, 1);
            out.run_list
                .iter()
                .map(|e| (e.job, e.phase))
                .collect::<Vec<_>>()
        };
        state.given_cpu_misses = Some(vec![0]);
        assert_eq!(
            picks(&mut state),
            [(0, RunListPhase::Fifo), (1, RunListPhase::Fifo)]
        );
        state.given_cpu_misses = Some(vec![1]);
        assert_eq!(
            picks(&mut state),
            [(1, RunListPhase::Edf), (0, RunListPhase::Fifo)]
        );
    }

    /// §6.3: a running job whose time slice is not finished is kept ahead of a new list.
    #[test]
    fn unfinished_time_slice_is_appended() {
        let mut host = seed_host();
        host.coprocs.clear();
        host.p_ncpus = 1;
        let mut state = HostState::new(host);
        state.projects.push(Project::new("P", 100.0, 1));
        state
            .jobs
            .push(Job::new("new", 0, "j", ResourceUsage::cpu(1.0, 1e9), 1e12));
        let mut running = Job::new("run", 0, "j", ResourceUsage::cpu(1.0, 1e9), 1e12);
        let mut task = crate::policy::state::Task::new();
        task.scheduler_state = SchedulerState::Scheduled;
        task.task_state = TaskState::Executing;
        task.run_interval_start = 0.0;
        running.task = Some(task);
        state.jobs.push(running);
        let list = vec![RunListEntry {
            job: 0,
            rsc: 0,
            phase: RunListPhase::Fifo,
            priority: 0.0,
        }];
        // Slice ends at 3600; at 600 it is unfinished: "run" is appended and sorted first.
        let out = enforce_run_list(&mut state, &list, 600.0, &Params::default()).unwrap();
        assert_eq!(out.final_list, vec![1, 0]);
        assert_eq!(out.actions, vec![EnforceAction::Schedule(1)]);
    }

    /// §6.3, client `more_important()`: running jobs appended with one shared
    /// seqno are ordered by object address, i.e. creation order — not by the
    /// job list's order. suspended_and_nnw 01:00:00 (second pass): the
    /// emulator holds Nnw's jobs md5-ordered (init_2, init_0, init_1,
    /// init_3) but lists them init_0, init_1, init_2, init_3, the state-file
    /// order in which it created them.
    #[test]
    fn appended_running_jobs_follow_creation_order() {
        let mut host = seed_host();
        host.coprocs.clear();
        host.p_ncpus = 4;
        let mut state = HostState::new(host);
        state.projects.push(Project::new("Nnw", 100.0, 1));
        for (name, alloc) in [("init_2", 2), ("init_0", 0), ("init_1", 1), ("init_3", 3)] {
            let mut job = Job::new(name, 0, "j", ResourceUsage::cpu(1.0, 1e9), 1e13);
            job.alloc_seq = alloc;
            let mut task = crate::policy::state::Task::new();
            task.scheduler_state = SchedulerState::Scheduled;
            task.task_state = TaskState::Executing;
            job.task = Some(task);
            state.jobs.push(job);
        }
        let out = enforce_run_list(&mut state, &[], 600.0, &Params::default()).unwrap();
        let names: Vec<&str> = out
            .final_list
            .iter()
            .map(|&j| state.jobs[j].name.as_str())
            .collect();
        assert_eq!(names, ["init_0", "init_1", "init_2", "init_3"]);
    }
}

//! The closed loop under the pre-6.4 generation (`simulate --policy
//! debt-6.2`, policy-legacy Part A): the same simulated host and servers,
//! with the decisions of [`crate::policy::debt`]:
//!
//! - at a scheduling point (jobs received or exited, or a scheduling period
//!   since the last): the debt update over the CPU time each project's tasks
//!   used since the previous one (A.4; skipped under 1 s, discarded above two
//!   scheduling periods), the simulation (A.5, horizon `min_queue`), the
//!   pick (A.6) and its enforcement (A.7: a running task keeps its CPU until
//!   its episode reaches the scheduling period, unless EDF needs it);
//! - every 60 s or on request, the work request of A.8 (`compute_work_request`:
//!   the project with the largest LTD among those allowed, asked for its
//!   shortfall); a finished result is reported a day after completion or
//!   near its deadline, on the next RPC to its project or on one of its own.
//!
//! CPU only (this era had no coprocessors); DCF stays at the scenario's
//! value; no REC.

use super::{ClientLoop, LoopError};
use crate::policy::debt::{
    adjust_debts, compute_work_request, enforce_schedule, rr_simulation, schedule_cpus, Candidate,
    DebtParams, DebtProject, RrSim, RunningTask, ScheduleReason, SimResult, Urgency,
};
use crate::policy::state::{JobState, SchedulerState, Task, TaskState};
use crate::policy::work_fetch::RscRequest;

/// The pre-6.4 policy's own state in a simulation.
#[derive(Clone, Debug, Default)]
pub(super) struct DebtSim {
    params: DebtParams,
    /// Per project (project order): short- and long-term debt.
    std: Vec<f64>,
    ltd: Vec<f64>,
    /// Time of the last debt update.
    last_adjust: f64,
    /// Each project's cumulative CPU seconds at the last update.
    used_at_last: Vec<f64>,
    /// The latest simulation.
    last_sim: Option<RrSim>,
}

impl DebtSim {
    pub(super) fn new(n_projects: usize) -> Self {
        DebtSim {
            std: vec![0.0; n_projects],
            ltd: vec![0.0; n_projects],
            used_at_last: vec![0.0; n_projects],
            ..DebtSim::default()
        }
    }

    /// Grows the per-project tables after a project was attached.
    pub(super) fn attach(&mut self, n_projects: usize) {
        self.std.resize(n_projects, 0.0);
        self.ltd.resize(n_projects, 0.0);
        self.used_at_last.resize(n_projects, 0.0);
    }

    /// Reorders the per-project tables (`order[new] = old`).
    pub(super) fn permute(&mut self, order: &[usize]) {
        let pick = |v: &[f64]| -> Vec<f64> {
            order
                .iter()
                .map(|&o| v.get(o).copied().unwrap_or(0.0))
                .collect()
        };
        self.std = pick(&self.std);
        self.ltd = pick(&self.ltd);
        self.used_at_last = pick(&self.used_at_last);
        self.last_sim = None;
    }
}

impl ClientLoop<'_> {
    fn with_debt<T>(&mut self, default: T, f: impl FnOnce(&mut Self, &mut DebtSim) -> T) -> T {
        let Some(mut debt) = self.core.debt.take() else {
            return default;
        };
        let out = f(self, &mut debt);
        self.core.debt = Some(debt);
        out
    }

    /// A job the 2007 client could run now: a downloaded CPU job not yet done.
    fn debt_runnable(&self, j: usize, now: f64) -> bool {
        self.core.state.jobs.get(j).is_some_and(|job| {
            job.state == JobState::Downloaded
                && !job.ready_to_report
                && !job.suspended_via_gui
                && job.schedule_backoff <= now
                && job.usage.rsc == 0
        })
    }

    fn debt_projects(&self, debt: &DebtSim, now: f64) -> Vec<DebtProject> {
        self.core
            .state
            .projects
            .iter()
            .enumerate()
            .map(|(p, project)| {
                let runnable = (0..self.core.state.jobs.len())
                    .any(|j| self.core.state.jobs[j].project == p && self.debt_runnable(j, now));
                let contactable = !project.suspended_via_gui
                    && !project.dont_request_more_work
                    && project.min_rpc_time <= now;
                DebtProject {
                    share: project.resource_share,
                    runnable,
                    nearly_runnable: runnable,
                    potentially_runnable: runnable || contactable,
                    contactable,
                    suspended: project.suspended_via_gui,
                    non_cpu_intensive: project.non_cpu_intensive,
                    std: debt.std.get(p).copied().unwrap_or(0.0),
                    ltd: debt.ltd.get(p).copied().unwrap_or(0.0),
                    ..DebtProject::default()
                }
            })
            .collect()
    }

    /// CPU seconds left of job `j` as the 2007 client estimated them (A.9).
    fn debt_cpu_left(&self, j: usize) -> f64 {
        let Some(job) = self.core.state.jobs.get(j) else {
            return 0.0;
        };
        let dcf = self
            .core
            .state
            .projects
            .get(job.project)
            .map_or(1.0, |p| p.dcf);
        let flops = job.usage.flops.max(1.0);
        let estimate = job.rsc_fpops_est / flops * dcf;
        match &job.task {
            Some(t) if t.fraction_done >= 1.0 => 0.0,
            Some(t) if t.fraction_done > 0.0 => {
                let fd = t.fraction_done;
                let c = t.elapsed;
                fd * (c / fd - c) + (1.0 - fd).powi(2) * estimate
            }
            _ => estimate,
        }
    }

    fn debt_simulate(&mut self, debt: &mut DebtSim, projects: &[DebtProject], now: f64) -> RrSim {
        let min_queue = self.core.state.prefs.work_buf_min_days * 86400.0;
        let period = self.core.state.cpu_scheduling_period();
        let results: Vec<SimResult> = (0..self.core.state.jobs.len())
            .filter(|&j| self.debt_runnable(j, now))
            .map(|j| SimResult {
                project: self.core.state.jobs[j].project,
                cpu_left: self.debt_cpu_left(j),
                computation_deadline: self.core.state.jobs[j].report_deadline
                    - (min_queue + period + 86400.0),
                too_large: false,
            })
            .collect();
        let cpu_frac = (self.core.state.time_stats.on_frac
            * self.core.state.time_stats.active_frac)
            .clamp(0.01, 1.0);
        let sim = rr_simulation(
            projects,
            &results,
            self.core.state.n_usable_cpus(),
            cpu_frac,
            min_queue,
            now,
            &debt.params,
        );
        debt.last_sim = Some(sim.clone());
        sim
    }

    /// Scheduling point: debts, simulation, pick, enforcement.
    pub(super) fn debt_schedule(&mut self, now: f64) -> Result<bool, LoopError> {
        let period = self.core.state.cpu_scheduling_period();
        if self.core.state.jobs.is_empty()
            || (!self.core.must_schedule && now - self.core.last_schedule < period)
        {
            return Ok(false);
        }
        self.core.must_schedule = false;
        self.core.last_schedule = now;
        self.with_debt(Ok(true), |sim, debt| {
            // A.4: CPU time per project since the last update.
            let interval = now - debt.last_adjust;
            let cumulative: Vec<f64> = (0..sim.core.state.projects.len())
                .map(|p| {
                    sim.core
                        .usage
                        .secs
                        .get(p)
                        .and_then(|r| r.first())
                        .copied()
                        .unwrap_or(0.0)
                })
                .collect();
            if (1.0..=2.0 * period).contains(&interval) {
                let used: Vec<f64> = cumulative
                    .iter()
                    .zip(&debt.used_at_last)
                    .map(|(c, l)| c - l)
                    .collect();
                let projects = sim.debt_projects(debt, now);
                let adjusted = adjust_debts(&projects, &used, &debt.params);
                debt.std = adjusted.std;
                debt.ltd = adjusted.ltd;
            }
            if interval >= 1.0 {
                debt.last_adjust = now;
                debt.used_at_last = cumulative;
            }
            let projects = sim.debt_projects(debt, now);
            let rr = sim.debt_simulate(debt, &projects, now);
            let jobs: Vec<usize> = (0..sim.core.state.jobs.len())
                .filter(|&j| {
                    sim.core.state.jobs[j].usage.rsc == 0 && !sim.core.state.jobs[j].ready_to_report
                })
                .collect();
            let candidates: Vec<Candidate> = jobs
                .iter()
                .map(|&j| {
                    let job = &sim.core.state.jobs[j];
                    Candidate {
                        project: job.project,
                        report_deadline: job.report_deadline,
                        runnable: sim.debt_runnable(j, now),
                        task: job.task.as_ref().map(|t| {
                            (
                                t.scheduler_state == SchedulerState::Scheduled,
                                t.has_process(),
                            )
                        }),
                    }
                })
                .collect();
            let ncpus = sim.core.state.n_usable_cpus();
            let picks = schedule_cpus(
                &projects,
                &candidates,
                &rr.deadlines_missed,
                ncpus,
                period,
                &debt.params,
            );
            let misses = |p: usize| rr.deadlines_missed.get(p).copied().unwrap_or(0) > 0;
            let running: Vec<RunningTask> = jobs
                .iter()
                .enumerate()
                .filter_map(|(c, &j)| {
                    let job = &sim.core.state.jobs[j];
                    let task = job.task.as_ref()?;
                    (task.scheduler_state == SchedulerState::Scheduled).then(|| RunningTask {
                        result: c,
                        project_misses: misses(job.project),
                        report_deadline: job.report_deadline,
                        episode_secs: now - task.run_interval_start,
                        // The simulated host checkpoints continuously.
                        since_checkpoint: 0.0,
                    })
                })
                .collect();
            let scheduled: Vec<usize> = picks.iter().map(|(c, _)| *c).collect();
            let enforcement = enforce_schedule(&scheduled, &running, misses, ncpus, period);
            for c in enforcement.preempt {
                let Some(task) = jobs
                    .get(c)
                    .and_then(|&j| sim.core.state.jobs.get_mut(j))
                    .and_then(|job| job.task.as_mut())
                else {
                    continue;
                };
                task.scheduler_state = SchedulerState::Preempted;
                task.task_state = TaskState::Suspended;
            }
            for c in enforcement.start {
                let Some(job) = jobs.get(c).and_then(|&j| sim.core.state.jobs.get_mut(j)) else {
                    continue;
                };
                let edf = picks
                    .iter()
                    .any(|(k, reason)| *k == c && matches!(reason, ScheduleReason::Edf));
                let task = job.task.get_or_insert_with(Task::new);
                task.scheduler_state = SchedulerState::Scheduled;
                task.task_state = TaskState::Executing;
                task.run_interval_start = now;
                task.once_ran_edf |= edf;
            }
            let busy = sim
                .state
                .jobs
                .iter()
                .filter(|j| {
                    j.task
                        .as_ref()
                        .is_some_and(|t| t.scheduler_state == SchedulerState::Scheduled)
                })
                .count();
            if busy < ncpus {
                sim.core.must_check_work_fetch = true;
            }
            Ok(true)
        })
    }

    /// The RPC poll: a due report, else the A.8 work request; true if an RPC was made.
    pub(super) fn debt_rpc_poll(&mut self, now: f64) -> Result<bool, LoopError> {
        if now - self.core.last_poll < 5.0 {
            return Ok(false);
        }
        self.core.last_poll = now;
        if let Some(p) = self.report_due_project(now) {
            return self.debt_rpc(p, 0.0, now);
        }
        if !self.core.must_check_work_fetch && now - self.core.last_work_fetch < 60.0 {
            return Ok(false);
        }
        self.core.must_check_work_fetch = false;
        self.core.last_work_fetch = now;
        let request = self.with_debt(None, |sim, debt| {
            let projects = sim.debt_projects(debt, now);
            let rr = sim.debt_simulate(debt, &projects, now);
            let nearly = (0..sim.core.state.jobs.len())
                .filter(|&j| sim.debt_runnable(j, now))
                .count();
            compute_work_request(
                &projects,
                &rr,
                nearly,
                sim.core.state.n_usable_cpus(),
                sim.core.state.cpu_scheduling_period(),
                &debt.params,
            )
        });
        match request {
            Some(r) if r.urgency != Urgency::DontNeed && r.work_req_seconds > 0.0 => {
                self.debt_rpc(r.project, r.work_req_seconds, now)
            }
            _ => Ok(false),
        }
    }

    fn debt_rpc(&mut self, p: usize, secs: f64, now: f64) -> Result<bool, LoopError> {
        let mut request = vec![RscRequest::default(); self.core.state.n_rsc()];
        if let Some(cpu) = request.first_mut() {
            cpu.req_secs = secs;
        }
        let made = self.do_rpc_jobs(p, &request, now)?.is_some();
        // A reply ends the project's run of failed RPCs.
        if let (true, Some(project)) = (made, self.core.state.projects.get_mut(p)) {
            project.nrpc_failures = 0;
        }
        Ok(made)
    }
}

//! The closed loop under the 6.6–6.10 generation (`simulate --policy
//! ltd-6.6`): the same simulated host and servers as today's policy, with
//! the client's decisions made by [`crate::policy::ltd`] the way the 6.10
//! harness drives it (policy-legacy B.15.1, B.15.2):
//!
//! - a scheduling pass (simulation, then `schedule_cpus`) when requested
//!   (jobs received, a job exited) or when a scheduling period has passed
//!   since the last one; no pass without jobs;
//! - an enforcement after every pass and whenever more than 60 s have passed
//!   since the last one: the debt update (discarded when its interval is over
//!   2 × 60 s, so debts only move with a time step of at most 120 s), then
//!   `enforce_schedule` on the last pass's list;
//! - an RPC poll at most every 5 s: a project with a result due (near its
//!   deadline or a day after completion) gets a report RPC carrying
//!   `compute_work_request`; else a work-fetch pass (`choose_project`) when
//!   requested or 60 s after the last;
//! - per-(project, resource) backoff from the 6.10 reply handler (B.3), with
//!   the draw from the run's seeded generator.
//!
//! A job's exit updates its project's DCF (6.10's
//! `update_duration_correction_factor`, on elapsed time) unless the scenario
//! fixes DCF (`dont_use_dcf`, as the seeds' notation does); REC is not kept.
//!
//! Under the 6.10.60 emulator's own harness ([`super::Profile::sim_6_10`],
//! the one that wrote the 6.10 reference traces; `audit` replays it and
//! `simulate` runs it on that emulator's inputs) the
//! RPC is that harness's `simulate_rpc`: every project's finished results
//! are reported, no reply handler runs (a request for seconds that got no
//! job backs the project off), and a new job's `UTS` flag is the one its
//! memory held (6.10 never initialises it; see [`super::heap`]).
//!
//! Each decision is handed to the observer as [`LtdEvent`]s.

use super::{engine, ClientLoop, DrawKind, Drawn, LoopError, LoopEvent};
use crate::policy::ltd::backoff::{handle_reply, BackoffChange, ReplySummary};
use crate::policy::ltd::cpu_sched::{
    enforce_schedule, jobs_by_seq, schedule_cpus, task_order, EnforceOutcome, PickReason,
    ScheduleOutcome, TaskChange,
};
use crate::policy::ltd::debt::{
    adjust_debts, debt_interval, interval_usage, DebtInterval, DebtUpdate,
};
use crate::policy::ltd::rr_sim::{rr_simulation, sim_jobs, RrSimOutcome};
use crate::policy::ltd::work_fetch::{
    choose_project, compute_work_request, WorkFetchOutcome, WorkRequest,
};
use crate::policy::ltd::DurEstimate;
use crate::policy::ltd::{updated_dcf, DcfUpdate, Debts, LtdParams};
use crate::policy::state::{JobIdx, ProjectIdx, SchedulerState, TaskState};
use crate::policy::work_fetch::RscRequest;

/// Who ran a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimFor {
    /// `schedule_cpus()`.
    Schedule,
    /// `WORK_FETCH::choose_project()` (a work-fetch pass, or the one a
    /// report RPC's `compute_work_request()` makes).
    WorkFetch,
}

/// An active task as an enforcement found it (active-task order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaskBefore {
    /// Its job.
    pub job: JobIdx,
    /// Its scheduler state.
    pub scheduler_state: SchedulerState,
    /// Its process state.
    pub task_state: TaskState,
}

/// One decision of the 6.6–6.10 policy code, as its own outcome, and the
/// 6.10 harness's bookkeeping its log shows.
#[derive(Clone, Copy, Debug)]
pub enum LtdEvent<'a> {
    /// A simulation (`rr_simulation()`) with the duration estimates of the
    /// jobs that have a task.
    RrSim {
        /// Its outcome.
        sim: &'a RrSimOutcome,
        /// The `dur:` blends, per job with a task.
        durs: &'a [DurEstimate],
        /// Who ran it.
        by: SimFor,
    },
    /// A `schedule_cpus()` pass's picks.
    RunList(&'a ScheduleOutcome),
    /// The debt update at the start of an enforcement: an interval discarded
    /// (`update` is `None`) or credited.
    Debts {
        /// The interval decision.
        interval: DebtInterval,
        /// The update when the interval was credited.
        update: Option<&'a DebtUpdate>,
    },
    /// An `enforce_schedule()`, with the active tasks it found.
    Enforced {
        /// Its outcome.
        outcome: &'a EnforceOutcome,
        /// The active tasks before it, in active-task order.
        before: &'a [TaskBefore],
    },
    /// A `choose_project()` pass: the work-fetch pass, or the one
    /// `compute_work_request()` makes for a report RPC.
    WorkFetch(&'a WorkFetchOutcome),
    /// An RPC to `project` asking for `request` begins.
    Request {
        /// The project.
        project: ProjectIdx,
        /// The request.
        request: &'a WorkRequest,
    },
    /// A job's exit updated its project's DCF.
    Dcf {
        /// The project.
        project: ProjectIdx,
        /// The update.
        update: DcfUpdate,
    },
    /// `possibly_schedule_cpus()` found a scheduling period elapsed.
    PeriodElapsed,
    /// The RPC poll: too soon after the last one (`last`).
    RpcPollNotTime {
        /// The last poll.
        last: f64,
    },
    /// The RPC poll starts.
    RpcPollStart,
    /// The RPC poll ends after a choice: the project an RPC went to, or
    /// none (no project chosen, or the RPC did not happen).
    RpcPollDone(Option<ProjectIdx>),
    /// The 6.10 harness sampled the host's availability process (printed
    /// only when it varies).
    HostSampled(super::HostSample),
    /// The 6.10 harness: one pass of its poll loop begins.
    PollBegins,
    /// The 6.10 harness: the pass ends; something happened in it.
    PollEnds {
        /// Something happened.
        action: bool,
    },
    /// The 6.10 harness took its time step to `next`.
    StepTaken {
        /// The new time.
        next: f64,
    },
}

/// The 6.10 policy's own state in a simulation.
#[derive(Clone, Debug)]
pub(super) struct LtdSim {
    debts: Debts,
    params: LtdParams,
    /// The last pass's `ordered_scheduled_results`, by `alloc_seq`.
    list: Vec<u64>,
    must_enforce: bool,
    last_enforce: f64,
    debt_start: f64,
    /// `[project][rsc]` instance-seconds of tasks that exited since the last debt update.
    exited_credit: Vec<Vec<f64>>,
    last_sim: RrSimOutcome,
    next_alloc: u64,
}

impl LtdSim {
    pub(super) fn new(n_projects: usize, n_rsc: usize, next_alloc: u64) -> Self {
        LtdSim {
            debts: Debts::zero(n_projects, n_rsc),
            params: LtdParams::default(),
            list: Vec::new(),
            must_enforce: false,
            last_enforce: 0.0,
            debt_start: 0.0,
            exited_credit: vec![vec![0.0; n_rsc]; n_projects],
            last_sim: RrSimOutcome::default(),
            next_alloc,
        }
    }

    /// Grows the per-project tables after a project was attached.
    pub(super) fn attach(&mut self, n_projects: usize, n_rsc: usize) {
        self.exited_credit.resize(n_projects, vec![0.0; n_rsc]);
        for p in 0..n_projects {
            for r in 0..n_rsc {
                let d = self.debts.get(p, r);
                self.debts.set(p, r, d);
            }
        }
    }

    /// Reorders the per-project tables (`order[new] = old`).
    pub(super) fn permute(&mut self, order: &[usize]) {
        fn rows<T: Clone + Default>(v: &[T], order: &[usize]) -> Vec<T> {
            order
                .iter()
                .map(|&o| v.get(o).cloned().unwrap_or_default())
                .collect()
        }
        self.exited_credit = rows(&self.exited_credit, order);
        self.debts.by_project = rows(&self.debts.by_project, order);
        self.last_sim = RrSimOutcome::default();
    }
}

fn to_requests(request: &WorkRequest) -> Vec<RscRequest> {
    request
        .rsc
        .iter()
        .map(|r| RscRequest {
            req_secs: r.secs,
            req_instances: r.instances,
            estimated_delay: request.estimated_delay,
        })
        .collect()
}

impl ClientLoop<'_> {
    /// Runs `f` with the ltd-6.6 state taken out of `self` (put back after);
    /// `default` when the run is not under ltd-6.6.
    fn with_ltd<T>(&mut self, default: T, f: impl FnOnce(&mut Self, &mut LtdSim) -> T) -> T {
        let Some(mut ltd) = self.core.ltd.take() else {
            return default;
        };
        let out = f(self, &mut ltd);
        self.core.ltd = Some(ltd);
        out
    }

    fn project_name(&self, p: ProjectIdx) -> String {
        self.core
            .state
            .projects
            .get(p)
            .map(|project| project.name.to_string())
            .unwrap_or_default()
    }

    /// A simulation (B.8); it also sets every job's `MD` flag.
    fn ltd_simulate(&mut self, ltd: &mut LtdSim, now: f64, by: SimFor) -> RrSimOutcome {
        let (jobs, durs) = sim_jobs(&self.core.state, now);
        let sim = rr_simulation(&self.core.state, &jobs, now);
        for (j, side) in self.core.side.iter_mut().enumerate() {
            side.ltd_flags.missed = sim.missed.contains(&j);
        }
        self.ltd_event(
            now,
            LtdEvent::RrSim {
                sim: &sim,
                durs: &durs,
                by,
            },
        );
        ltd.last_sim = sim.clone();
        sim
    }

    pub(super) fn ltd_event(&mut self, now: f64, event: LtdEvent<'_>) {
        self.observer
            .event(&self.core.state, now, LoopEvent::Ltd(event));
    }

    /// An exit: the project's DCF learns from the job's elapsed time
    /// (6.10's `update_duration_correction_factor`).
    pub(super) fn ltd_update_dcf(&mut self, j: usize, now: f64) {
        let Some(job) = self.core.state.jobs.get(j) else {
            return;
        };
        let elapsed = job.task.as_ref().map_or(0.0, |t| t.elapsed);
        let flops = if job.usage.flops > 0.0 {
            job.usage.flops
        } else {
            self.core.state.host.p_fpops
        };
        let est = job.rsc_fpops_est / flops;
        let project = job.project;
        let Some(p) = self.core.state.projects.get_mut(project) else {
            return;
        };
        // A scenario that fixes DCF (`dont_use_dcf`, as the seeds' notation
        // sets) keeps it; the 6.10 emulator's own --dcf_dont_use (DCF reset
        // to 1 at each exit) is not modelled.
        if p.dont_use_dcf {
            return;
        }
        let Some(update) = updated_dcf(p.dcf, elapsed, est) else {
            return;
        };
        p.dcf = update.new;
        self.ltd_event(now, LtdEvent::Dcf { project, update });
    }

    /// Exits: each scheduled task's last partial interval is credited to its
    /// project at the next debt update (B.15.2).
    pub(super) fn ltd_credit_exit(&mut self, j: usize, now: f64) {
        let Some(job) = self.core.state.jobs.get(j) else {
            return;
        };
        let scheduled = job
            .task
            .as_ref()
            .is_some_and(|t| t.scheduler_state == SchedulerState::Scheduled);
        let Some(ltd) = self.core.ltd.as_mut().filter(|_| scheduled) else {
            return;
        };
        let secs = now - ltd.debt_start;
        if let Some(row) = ltd.exited_credit.get_mut(job.project) {
            if let Some(cell) = row.get_mut(0) {
                *cell += secs * job.usage.avg_ncpus;
            }
            if job.usage.rsc != 0 {
                if let Some(cell) = row.get_mut(job.usage.rsc) {
                    *cell += secs * job.usage.coproc_usage;
                }
            }
        }
    }

    /// Scheduling pass and enforcement; true if anything was decided.
    pub(super) fn ltd_schedule(&mut self, now: f64) -> Result<bool, LoopError> {
        self.with_ltd(Ok(false), |sim, ltd| {
            let mut action = false;
            let period = sim.core.state.cpu_scheduling_period();
            if !sim.core.state.jobs.is_empty() && now - sim.core.last_schedule >= period {
                sim.ltd_event(now, LtdEvent::PeriodElapsed);
            }
            if !sim.core.state.jobs.is_empty()
                && (sim.core.must_schedule || now - sim.core.last_schedule >= period)
            {
                sim.core.must_schedule = false;
                sim.core.last_schedule = now;
                sim.ltd_pass(ltd, now);
                action = true;
            }
            if ltd.must_enforce || now - ltd.last_enforce > 60.0 {
                action |= sim.ltd_enforce(ltd, now);
            }
            Ok(action)
        })
    }

    /// `schedule_cpus()`: the list the next enforcement applies.
    fn ltd_pass(&mut self, ltd: &mut LtdSim, now: f64) {
        let rr = self.ltd_simulate(ltd, now, SimFor::Schedule);
        let outcome = schedule_cpus(&self.core.state, &ltd.debts, &rr, now, &ltd.params);
        self.ltd_event(now, LtdEvent::RunList(&outcome));
        for side in &mut self.core.side {
            side.ltd_flags.edf = false;
        }
        for &j in &outcome.deadline_missed {
            if let Some(side) = self.core.side.get_mut(j) {
                side.ltd_flags.missed = true;
            }
        }
        ltd.list.clear();
        for pick in &outcome.picks {
            if let Some(side) = self.core.side.get_mut(pick.job) {
                side.ltd_flags.edf = matches!(pick.reason, PickReason::CpuEdf { .. });
            }
            if let Some(job) = self.core.state.jobs.get(pick.job) {
                ltd.list.push(job.alloc_seq);
            }
        }
        ltd.must_enforce = true;
    }

    /// The debt update at the start of an enforcement (B.15.2).
    fn ltd_debt_update(&mut self, ltd: &mut LtdSim, now: f64) {
        let interval = debt_interval(now, ltd.debt_start, &ltd.params);
        match interval {
            DebtInterval::TooShort => return,
            DebtInterval::Discard { .. } => {
                self.ltd_event(
                    now,
                    LtdEvent::Debts {
                        interval,
                        update: None,
                    },
                );
            }
            DebtInterval::Credit { secs } => {
                let used = interval_usage(&self.core.state, secs, &ltd.exited_credit);
                let update = adjust_debts(
                    &self.core.state,
                    &ltd.debts,
                    interval,
                    &ltd.last_sim.has_runnable_jobs(),
                    &used,
                    now,
                    &ltd.params,
                );
                self.ltd_event(
                    now,
                    LtdEvent::Debts {
                        interval,
                        update: Some(&update),
                    },
                );
                ltd.debts = update.debts;
            }
        }
        ltd.debt_start = now;
        for row in &mut ltd.exited_credit {
            row.iter_mut().for_each(|c| *c = 0.0);
        }
    }

    /// `enforce_schedule()`; true if a task changed.
    fn ltd_enforce(&mut self, ltd: &mut LtdSim, now: f64) -> bool {
        self.ltd_debt_update(ltd, now);
        ltd.must_enforce = false;
        ltd.last_enforce = now;
        let list = jobs_by_seq(&self.core.state, &ltd.list);
        let task_order = task_order(
            self.core
                .state
                .jobs
                .iter()
                .enumerate()
                .map(|(j, job)| (j, job.task.as_ref().map(|t| t.seq))),
        );
        let before: Vec<TaskBefore> = task_order
            .iter()
            .filter_map(|&j| {
                let task = self.core.state.jobs.get(j)?.task.as_ref()?;
                Some(TaskBefore {
                    job: j,
                    scheduler_state: task.scheduler_state,
                    task_state: task.task_state,
                })
            })
            .collect();
        let mut flags: Vec<_> = self.core.side.iter().map(|s| s.ltd_flags).collect();
        let outcome = enforce_schedule(
            &mut self.core.state,
            &mut flags,
            &list,
            &task_order,
            now,
            &ltd.params,
        );
        for (side, f) in self.core.side.iter_mut().zip(flags) {
            side.ltd_flags = f;
        }
        self.ltd_event(
            now,
            LtdEvent::Enforced {
                outcome: &outcome,
                before: &before,
            },
        );
        for change in &outcome.changes {
            if let TaskChange::Start(j) = *change {
                // get_task(): a job run for the first time gets its
                // ACTIVE_TASK.
                self.core.freed.new_task();
                self.number_task(j);
            }
        }
        if outcome.cpus_idle {
            self.core.must_check_work_fetch = true;
        }
        !outcome.changes.is_empty()
    }

    /// The RPC poll; true if an RPC was made.
    pub(super) fn ltd_rpc_poll(&mut self, now: f64) -> Result<bool, LoopError> {
        if now - self.core.last_poll < 5.0 {
            let last = self.core.last_poll;
            self.ltd_event(now, LtdEvent::RpcPollNotTime { last });
            return Ok(false);
        }
        self.core.last_poll = now;
        self.ltd_event(now, LtdEvent::RpcPollStart);
        self.with_ltd(Ok(false), |sim, ltd| {
            if let Some(p) = sim.report_due_project(now) {
                // compute_work_request() decides without a choose_project()
                // pass (and its simulation) for no-new-work and
                // non-CPU-intensive projects.
                let passes = sim
                    .state
                    .projects
                    .get(p)
                    .is_some_and(|x| !x.dont_request_more_work && !x.non_cpu_intensive);
                let rr = if passes {
                    sim.ltd_simulate(ltd, now, SimFor::WorkFetch)
                } else {
                    let (jobs, _) = sim_jobs(&sim.core.state, now);
                    rr_simulation(&sim.core.state, &jobs, now)
                };
                let piggyback =
                    compute_work_request(&sim.core.state, &ltd.debts, &rr, p, now, &ltd.params);
                if let Some(pass) = &piggyback.pass {
                    sim.ltd_event(now, LtdEvent::WorkFetch(pass));
                }
                let done = sim.ltd_rpc(ltd, p, &piggyback.request, now)?;
                sim.ltd_event(now, LtdEvent::RpcPollDone(done.then_some(p)));
                return Ok(done);
            }
            if !sim.core.must_check_work_fetch && now - sim.core.last_work_fetch < 60.0 {
                return Ok(false);
            }
            sim.core.must_check_work_fetch = false;
            sim.core.last_work_fetch = now;
            let rr = sim.ltd_simulate(ltd, now, SimFor::WorkFetch);
            let outcome = choose_project(&sim.core.state, &ltd.debts, &rr, now, &ltd.params);
            sim.ltd_event(now, LtdEvent::WorkFetch(&outcome));
            let done = match &outcome.choice {
                Some(choice) => sim.ltd_rpc(ltd, choice.project, &choice.request, now)?,
                None => false,
            };
            let asked = outcome.choice.as_ref().map(|c| c.project);
            sim.ltd_event(now, LtdEvent::RpcPollDone(asked.filter(|_| done)));
            Ok(done)
        })
    }

    /// One RPC: the server's reply, new jobs numbered in creation order, then
    /// the 6.10 reply handler's backoffs (B.3); under the 6.10 emulator's
    /// harness its `simulate_rpc` instead (no reply handler).
    fn ltd_rpc(
        &mut self,
        ltd: &mut LtdSim,
        p: ProjectIdx,
        request: &WorkRequest,
        now: f64,
    ) -> Result<bool, LoopError> {
        self.ltd_event(
            now,
            LtdEvent::Request {
                project: p,
                request,
            },
        );
        if self.core.profile.sim_6_10 {
            // The results this RPC reports (every project's) free their
            // memory, in result order, before the new jobs are made.
            for (job, side) in self.core.state.jobs.iter().zip(&self.core.side) {
                if job.ready_to_report {
                    self.core.freed.free_result(side.ltd_flags.uts);
                }
            }
        }
        let Some(new_jobs) = self.do_rpc_jobs(p, &to_requests(request), now)? else {
            return Ok(false);
        };
        let sent_something = !new_jobs.is_empty();
        if sent_something && self.core.profile.sim_6_10 {
            self.note(now, super::LoopNote::ScheduleRequested("simulate_rpc"));
            self.note(now, super::LoopNote::WorkFetchRequested("simulate_rpc"));
        }
        let n_rsc = self.core.state.n_rsc();
        let mut received = vec![0u32; n_rsc];
        for j in new_jobs {
            let Some(job) = self.core.state.jobs.get_mut(j) else {
                continue;
            };
            job.alloc_seq = ltd.next_alloc;
            ltd.next_alloc += 1;
            if let Some(c) = received.get_mut(job.usage.rsc) {
                *c += 1;
            }
            if self.core.profile.sim_6_10 {
                let uts = self.core.freed.new_job();
                if let Some(side) = self.core.side.get_mut(j) {
                    side.ltd_flags.uts = uts;
                }
            }
        }
        if self.core.profile.sim_6_10 {
            // sim.cpp simulate_rpc: no reply handler; a request for seconds
            // that got nothing backs the project off, and the failure count
            // is reset right after (so the backoff never grows). No
            // reference trace reaches it.
            if request.get(0).secs > 0.0 && !sent_something {
                let name = self.project_name(p);
                let drawn = self.world.draw(now, &name, DrawKind::ProjectBackoff, "");
                self.project_down(p, drawn, now)?;
            }
            if let Some(project) = self.core.state.projects.get_mut(p) {
                project.nrpc_failures = 0;
            }
            return Ok(true);
        }
        // A reply ends the project's run of failed RPCs.
        if let Some(project) = self.core.state.projects.get_mut(p) {
            project.nrpc_failures = 0;
        }
        let name = self.project_name(p);
        let draws: Vec<f64> = (0..n_rsc)
            .map(
                |_| match self.world.draw(now, &name, DrawKind::LegacyBackoff, "") {
                    Drawn::Factor(u) => u,
                    Drawn::Secs(_) | Drawn::Missing => 0.5,
                },
            )
            .collect();
        let Some(project) = self.core.state.projects.get_mut(p) else {
            return Ok(true);
        };
        let requested: Vec<f64> = request.rsc.iter().map(|r| r.secs).collect();
        let reply = ReplySummary {
            jobs_received: received,
            project_backoff: vec![0.0; n_rsc],
            project_requested: false,
        };
        let changes = handle_reply(&project.rsc, &requested, &reply, now, &draws, &ltd.params)
            .map_err(engine(now))?;
        for change in changes {
            match change {
                BackoffChange::ProjectSupplied { rsc, until } => {
                    if let Some(r) = project.rsc.get_mut(rsc) {
                        r.backoff_time = until;
                    }
                }
                BackoffChange::BackedOff(b) => {
                    if let Some(r) = project.rsc.get_mut(b.rsc) {
                        r.backoff_time = b.until;
                        r.backoff_interval = b.interval;
                    }
                }
                BackoffChange::Cleared { rsc } => {
                    if let Some(r) = project.rsc.get_mut(rsc) {
                        r.backoff_time = 0.0;
                        r.backoff_interval = 0.0;
                    }
                }
            }
        }
        Ok(true)
    }
}

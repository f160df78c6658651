//! The replay loop: walks the recorded decision points in (time, sequence)
//! order and asks the policy engine for each decision.
//!
//! Anchored replay runs the emulator's step (spec §8, client/sim.cpp):
//! for each step at `now` = 3600 + k·delta the engine's OWN state advances —
//! task progress by exact FLOPs (rate × delta), job exits and the REC update
//! they trigger, then a scheduling pass (`adjust_rec`, `make_run_list`,
//! `enforce_run_list`, an emulated task layer that starts, resumes and
//! suspends tasks), the RPC poll (a report RPC for overdue results with a
//! piggybacked request, else `choose_project`), the recorded RPC outcome
//! through `handle_scheduler_reply`, and a second scheduling pass at the
//! same `now` when jobs arrived. Every decision made is matched with the
//! recorded point of the same kind in the same step, in order; a recorded
//! point without a counterpart is a divergence ("the replay made no ...").
//!
//! Work-fetch choices and requests are additionally re-derived in
//! self-consistency mode from each recorded state dump ([`super::selfcheck`])
//! when the anchored state is not available; the reason says which mode.
//!
//! Architecture Invariant: the only place that calls the policy engine.

use super::compare::Replayed;
use super::decision::{
    Decision, FetchDump, PrioEntry, ProjectState, RecEntry, RscRequestLine, RscState, RunListEntry,
    ShareState,
};
use super::queue::{Availability, ExternalEvent, ExternalQueue, JobSize};
use super::recorded::RecordedPoint;
use super::selfcheck::{self, ChoiceInputs};
use crate::divergence::DecisionKind;
use crate::policy::backoff::{project_rpc_backoff, RpcBackoff};
use crate::policy::cpu_sched::{enforce_run_list, make_run_list, EnforceAction, RunListPhase};
use crate::policy::rec::{adjust_rec, PriorityInit, RecAdjustment};
use crate::policy::reply::{handle_scheduler_reply, project_with_overdue_results, SchedReply};
use crate::policy::rr_sim::{rr_simulate, RrSimOutcome};
use crate::policy::state::{HostState, Job, JobState, RpcReason, SchedulerState, TaskState};
use crate::policy::work_fetch::{
    choose_project, piggyback_work_request, ProjectReason, RscRequest, WorkFetchOutcome,
};
use crate::policy::{Params, RuntimeModel};
use std::collections::BTreeMap;

/// Where a replayed decision goes: recorded points are matched with the
/// replay's own decisions of the same slot at the same time, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Rec,
    Prio,
    RrSim,
    RunList,
    Enforce,
    FetchState,
    Choice,
    Request,
    Backoff,
}

fn slot_of(decision: &Decision) -> Slot {
    match decision {
        Decision::Rec(_) | Decision::RecDiscarded { .. } => Slot::Rec,
        Decision::Priority(_) => Slot::Prio,
        Decision::RrSim { .. } => Slot::RrSim,
        Decision::RunList(_) => Slot::RunList,
        Decision::Enforcement(_) => Slot::Enforce,
        Decision::FetchState(_) => Slot::FetchState,
        Decision::Choice(_) => Slot::Choice,
        Decision::Request { .. } => Slot::Request,
        Decision::Backoff { .. } => Slot::Backoff,
    }
}

/// One decision the replay made in the current step.
enum Made {
    /// Ready to compare.
    Ready(Replayed),
    /// A work-fetch outcome; rendered against the recorded point (its
    /// `set_request()` resource list).
    Fetch(Box<WorkFetchOutcome>),
}

/// The replay driver.
pub struct Driver<'a> {
    state: Option<HostState>,
    base_params: &'a Params,
    params: Params,
    queue: ExternalQueue,
    /// Dump and set_request lines of each choice/request point, by event index.
    contexts: BTreeMap<usize, PointContext>,
    emu: EmulatorInputs,
    /// Time of the next step to run.
    next_step: f64,
    steps_done: u64,
    /// Decisions of the last step run, in the order made, with a used flag.
    made: Vec<(f64, Slot, Made, bool)>,
    /// The simulation of the current step (reused within the step, §8).
    step_sim: Option<RrSimOutcome>,
    /// Per job (parallel to `state.jobs`): completion time.
    completed: Vec<Option<f64>>,
    /// Per job: creation order of its task (`active_tasks` order).
    task_seq: Vec<u64>,
    next_task_seq: u64,
}

/// External inputs of the emulator's world beyond the event queue.
#[derive(Clone, Debug, Default)]
pub struct EmulatorInputs {
    /// The time step (`--delta`).
    pub delta: f64,
    /// Job sizes, by job name.
    pub sizes: BTreeMap<String, JobSize>,
    /// (project, app) → (latency bound, fpops_est) of generated jobs.
    pub apps: BTreeMap<(String, String), (Option<f64>, Option<f64>)>,
    /// Which steps the client ran, had GPUs allowed and polled for RPCs.
    pub availability: Availability,
    /// Seconds a project is deferred after each completed RPC (the 7.2.42
    /// emulator harness: 900; today's: 0).
    pub rpc_deferral: f64,
    /// Run-list entries name any GPU `coprocessor` (6.6–7.2 logs).
    pub coarse_rsc_names: bool,
    /// Every pass simulates afresh, no same-instant reuse (7.0–7.2).
    pub fresh_simulations: bool,
}

fn prio_entries(state: &HostState, init: &PriorityInit) -> Vec<PrioEntry> {
    init.lines
        .iter()
        .filter_map(|line| {
            let project = state.projects.get(line.project)?;
            Some(PrioEntry {
                project: project.name.to_string(),
                prio: line.priority,
                rsf: line.share_frac,
                rt: line.rec_temp,
                rs: line.rec_sum,
            })
        })
        .collect()
}

fn prio_made(state: &HostState, init: &PriorityInit, now: f64, what: &str) -> Made {
    Made::Ready(Replayed::Decision {
        decision: Decision::Priority(prio_entries(state, init)),
        reason: format!(
            "§5.4 project_priority_init ({what}) at {now:.0}: rs_sum {:.6}, rec_sum {:.6}",
            init.rs_sum, init.rec_sum
        ),
    })
}

fn rr_sim_made(state: &HostState, sim: &RrSimOutcome) -> Made {
    let job_name = |idx: usize| {
        state
            .jobs
            .get(idx)
            .map(|j| j.name.to_string())
            .unwrap_or_default()
    };
    let finishes = sim
        .finishes
        .iter()
        .map(|f| (job_name(f.job), f.reltime))
        .collect();
    let misses = sim
        .misses_deadline
        .iter()
        .enumerate()
        .filter(|(_, &m)| m)
        .map(|(idx, _)| job_name(idx))
        .collect();
    Made::Ready(Replayed::Decision {
        decision: Decision::RrSim { finishes, misses },
        reason: format!("§4 rr_simulate at {:.0} ({:?} order)", sim.now, sim.order),
    })
}

fn rec_made(state: &HostState, adjustment: &RecAdjustment, now: f64) -> Option<Made> {
    let decision = match adjustment {
        RecAdjustment::TooShort => return None,
        RecAdjustment::Discarded { elapsed, period } => Decision::RecDiscarded {
            elapsed: *elapsed,
            period: *period,
        },
        RecAdjustment::Updated(lines) => Decision::Rec(
            lines
                .iter()
                .map(|l| RecEntry {
                    project: state
                        .projects
                        .get(l.project)
                        .map(|p| p.name.to_string())
                        .unwrap_or_default(),
                    credit: l.credit,
                    secs: l.secs,
                    old: l.old,
                    new: l.new,
                })
                .collect(),
        ),
    };
    Some(Made::Ready(Replayed::Decision {
        decision,
        reason: format!("§5.1 adjust_rec at {now:.0}"),
    }))
}

fn engine_error(e: impl std::fmt::Display) -> Made {
    Made::Ready(Replayed::NotReplayed(format!("engine error: {e}")))
}

impl<'a> Driver<'a> {
    /// A driver over the built state (`None` = self-consistency only).
    pub fn new(
        state: Option<HostState>,
        params: &'a Params,
        queue: ExternalQueue,
        start: f64,
        contexts: BTreeMap<usize, PointContext>,
    ) -> Self {
        let n_jobs = state.as_ref().map_or(0, |s| s.jobs.len());
        Driver {
            state,
            base_params: params,
            params: params.clone(),
            queue,
            contexts,
            emu: EmulatorInputs::default(),
            next_step: start,
            steps_done: 0,
            made: Vec::new(),
            step_sim: None,
            completed: vec![None; n_jobs],
            task_seq: vec![0; n_jobs],
            next_task_seq: 1,
        }
    }

    /// Sets the emulator's world (time step, job sizes, app parameters) and
    /// the emulator settings of the engine: exact remaining work and REC
    /// accounting once per time step (§9.7).
    pub fn with_emulator(mut self, emu: EmulatorInputs) -> Self {
        self.params = self.base_params.clone();
        self.params.runtime_model = RuntimeModel::Emulator;
        if emu.delta > 0.0 {
            self.params.rec_adjust_period = emu.delta;
        }
        self.emu = emu;
        self
    }

    fn push(&mut self, time: f64, slot: Slot, made: Made) {
        self.made.push((time, slot, made, false));
    }

    /// Replays one recorded point.
    pub fn replay(&mut self, point: &RecordedPoint) -> Replayed {
        if self.state.is_none() || self.emu.delta <= 0.0 {
            return match &point.decision {
                Decision::Choice(_) | Decision::Request { .. } => self.self_check(point),
                _ => Replayed::NotReplayed(format!(
                    "{}: no anchored state (or no time step in the log)",
                    point.kind().name()
                )),
            };
        }
        while self.next_step <= point.time + 1e-6 {
            let now = self.next_step;
            self.run_step(now);
            self.next_step = now + self.emu.delta;
        }
        let slot = slot_of(&point.decision);
        let found = self
            .made
            .iter_mut()
            .find(|(t, s, _, used)| !*used && *s == slot && (*t - point.time).abs() < 1e-6);
        let Some(entry) = found else {
            return Replayed::NotReplayed(format!(
                "the replay made no {} decision at {} (step of {} s)",
                point.kind().name(),
                point.time_label,
                self.emu.delta
            ));
        };
        entry.3 = true;
        match &entry.2 {
            Made::Ready(replayed) => replayed.clone(),
            Made::Fetch(outcome) => match self.state.as_ref() {
                Some(state) => fetch_decision(state, outcome, &point.decision, point.time),
                None => Replayed::NotReplayed("no state".into()),
            },
        }
    }

    /// Decisions the replay made that no recorded point matched, by slot.
    pub fn unmatched(&self) -> usize {
        self.made.iter().filter(|m| !m.3).count()
    }

    /// One emulator step at `now` (spec §8, client/sim.cpp simulate()).
    fn run_step(&mut self, now: f64) {
        self.made.clear();
        self.step_sim = None;
        let events = self.queue.pop_at(now);
        if self.state.is_none() {
            return;
        }
        if self.steps_done == 1 {
            self.sort_projects();
        }
        self.steps_done += 1;
        // 1-2. Task progress for the step just ended; exits; REC on exit.
        let exited = self.progress(now);
        if let Some(&first) = exited.first() {
            let params = self.params.clone();
            let Some(state) = self.state.as_mut() else {
                return;
            };
            let adjustment = adjust_rec(state, now, Some(first), &params);
            if let Some(made) = rec_made(state, &adjustment, now) {
                self.push(now, Slot::Rec, made);
            }
            let Some(state) = self.state.as_mut() else {
                return;
            };
            for &j in &exited {
                if let Some(job) = state.jobs.get_mut(j) {
                    job.task = None;
                    job.ready_to_report = true;
                    job.state = JobState::Uploaded;
                }
                if let Some(c) = self.completed.get_mut(j) {
                    *c = Some(now);
                }
            }
        }
        // 3. While the client runs: scheduling, then the RPC poll when
        // connected; the GPU state drawn for this step applies from then on
        // (client/sim.cpp sets gpu_suspend_reason after the first pass); a
        // second scheduling pass after an RPC that delivered jobs.
        let availability = &self.emu.availability;
        let (on, connected, gpu_active) = (
            availability.on(now),
            availability.connected(now),
            availability.gpu_active(now),
        );
        if !on {
            return;
        }
        if self.state.as_ref().is_some_and(|s| !s.jobs.is_empty()) {
            self.sched_pass(now);
        }
        let got_jobs = connected && self.rpc_poll(now, &events);
        if let Some(state) = self.state.as_mut() {
            state.gpu_suspended = !gpu_active;
        }
        if got_jobs {
            self.sched_pass(now);
        }
    }

    /// After the first step the emulator keeps projects sorted by name (§9.7).
    fn sort_projects(&mut self) {
        let Some(state) = self.state.as_mut() else {
            return;
        };
        let mut order: Vec<usize> = (0..state.projects.len()).collect();
        order.sort_by(|&a, &b| state.projects[a].name.cmp(&state.projects[b].name));
        if order.iter().enumerate().all(|(i, &o)| i == o) {
            return;
        }
        let mut new_of_old = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_of_old[old] = new;
        }
        let old = std::mem::take(&mut state.projects);
        let mut slots: Vec<Option<crate::policy::state::Project>> =
            old.into_iter().map(Some).collect();
        state.projects = order.iter().filter_map(|&o| slots[o].take()).collect();
        for job in &mut state.jobs {
            job.project = new_of_old[job.project];
        }
    }

    /// Advances running tasks by one step of exact work; returns the jobs
    /// whose remaining work reached ≤ 0 (in job order).
    fn progress(&mut self, now: f64) -> Vec<usize> {
        let delta = self.emu.delta;
        let gpu_active = self.emu.availability.gpu_active(now);
        let mut exited = Vec::new();
        if self.steps_done <= 1 {
            return exited;
        }
        let Some(state) = self.state.as_mut() else {
            return exited;
        };
        let running = |job: &Job| {
            job.task.as_ref().is_some_and(|t| {
                t.scheduler_state == SchedulerState::Scheduled
                    && t.task_state == TaskState::Executing
            })
        };
        // client/sim.cpp: coprocessor jobs take their CPUs first; CPU jobs
        // share what is left (e.g. 4 CPU jobs beside a 0.2-CPU GPU job run
        // at 3.8/4).
        let (mut gpu_cpus, mut cpu_cpus) = (0.0, 0.0);
        for job in state.jobs.iter().filter(|j| running(j)) {
            if job.usage.uses_coprocs() {
                if gpu_active {
                    gpu_cpus += job.usage.avg_ncpus;
                }
            } else {
                cpu_cpus += job.usage.avg_ncpus;
            }
        }
        let ncpus = state.n_usable_cpus() as f64;
        let cpu_frac = if cpu_cpus > 0.0 {
            ((ncpus - gpu_cpus).max(0.0) / cpu_cpus).min(1.0)
        } else {
            1.0
        };
        for (j, job) in state.jobs.iter_mut().enumerate() {
            let frac = if job.usage.uses_coprocs() {
                1.0
            } else {
                cpu_frac
            };
            let Some(task) = job.task.as_mut() else {
                continue;
            };
            if task.scheduler_state != SchedulerState::Scheduled
                || task.task_state != TaskState::Executing
                || (job.usage.uses_coprocs() && !gpu_active)
            {
                continue;
            }
            let left = job.exact_flops_remaining.get_or_insert(job.rsc_fpops_est);
            *left -= job.usage.flops * delta * frac;
            task.elapsed += delta;
            // The emulator marks a checkpoint each step (so time slices end)
            // but leaves checkpoint_elapsed_time at 0 (tasks preempted are
            // left in memory).
            task.checkpoint_wall_time = now;
            if *left <= 0.0 {
                exited.push(j);
            }
        }
        // Exits are detected polling `active_tasks`, in task creation order.
        exited.sort_by_key(|&j| self.task_seq.get(j).copied().unwrap_or(u64::MAX));
        exited
    }

    /// One scheduling pass: `adjust_rec`, `make_run_list` (with the step's
    /// simulation when there is one) and `enforce_run_list`.
    fn sched_pass(&mut self, now: f64) {
        let params = self.params.clone();
        let Some(state) = self.state.as_mut() else {
            return;
        };
        let adjustment = adjust_rec(state, now, None, &params);
        let rec = rec_made(state, &adjustment, now);
        if let Some(made) = rec {
            self.push(now, Slot::Rec, made);
        }
        // 7.0–7.2 simulate afresh at every pass (policy-legacy C.1); today's
        // client reuses a simulation made at the same instant (§4.1).
        let reuse = self
            .step_sim
            .clone()
            .filter(|s| s.now == now && !self.emu.fresh_simulations);
        let fresh = reuse.is_none();
        let Some(state) = self.state.as_mut() else {
            return;
        };
        let out = match make_run_list(state, now, reuse, &params) {
            Ok(out) => out,
            Err(e) => {
                self.push(now, Slot::RunList, engine_error(e));
                return;
            }
        };
        let Some(state) = self.state.as_ref() else {
            return;
        };
        let mut made = Vec::new();
        if fresh {
            made.push((Slot::RrSim, rr_sim_made(state, &out.sim)));
            if !out.sim.prio_init.lines.is_empty() {
                made.push((
                    Slot::Prio,
                    prio_made(state, &out.sim.prio_init, now, "simulation"),
                ));
            }
        }
        // The client prints no `[prio]` group when no project has a runnable job.
        if !out.prio_init.lines.is_empty() {
            made.push((
                Slot::Prio,
                prio_made(state, &out.prio_init, now, "runnable"),
            ));
        }
        let entries = out
            .run_list
            .iter()
            .map(|e| RunListEntry {
                job: state
                    .jobs
                    .get(e.job)
                    .map(|j| j.name.to_string())
                    .unwrap_or_default(),
                rsc: if self.emu.coarse_rsc_names && e.rsc != 0 {
                    super::recorded::COPROCESSOR.to_string()
                } else {
                    state.rsc_type(e.rsc).long_name().to_string()
                },
                order: match e.phase {
                    RunListPhase::Edf => "EDF".into(),
                    RunListPhase::Fifo => "FIFO".into(),
                },
                prio: e.priority,
            })
            .collect();
        made.push((
            Slot::RunList,
            Made::Ready(Replayed::Decision {
                decision: Decision::RunList(entries),
                reason: format!(
                    "§6.2 make_run_list at {now:.0} ({} simulation)",
                    if fresh { "own" } else { "reused" }
                ),
            }),
        ));
        for (slot, m) in made {
            self.push(now, slot, m);
        }
        self.step_sim = Some(out.sim.clone());
        let enforced = self.enforce(now, &out.run_list);
        self.push(now, Slot::Enforce, enforced);
    }

    fn enforce(&mut self, now: f64, run_list: &[crate::policy::cpu_sched::RunListEntry]) -> Made {
        let params = self.params.clone();
        let Some(state) = self.state.as_mut() else {
            return Made::Ready(Replayed::NotReplayed("no state".into()));
        };
        let before: Vec<Option<TaskState>> = state
            .jobs
            .iter()
            .map(|j| j.task.as_ref().map(|t| t.task_state))
            .collect();
        let out = match enforce_run_list(state, run_list, now, &params) {
            Ok(out) => out,
            Err(e) => return engine_error(e),
        };
        let names: Vec<String> = state.jobs.iter().map(|x| x.name.to_string()).collect();
        let name = |j: usize| names.get(j).cloned().unwrap_or_default();
        let mut assigns = Vec::new();
        let mut schedules = Vec::new();
        let mut preempted = BTreeMap::new();
        for action in &out.actions {
            match action {
                EnforceAction::AssignCoprocs(j, instances) => {
                    let rsc = state.jobs.get(*j).map_or(0, |x| x.usage.rsc);
                    let type_name = state.rsc_type(rsc).type_name().to_string();
                    // The client logs an assignment only when it assigns:
                    // a task keeps the instances it already holds.
                    let task = state.jobs.get_mut(*j).and_then(|x| x.task.as_mut());
                    if let Some(task) = task {
                        if task.coproc_indices == *instances {
                            continue;
                        }
                        task.coproc_indices = instances.clone();
                    }
                    for i in instances {
                        assigns.push(format!("assign {} {type_name} {i}", name(*j)));
                    }
                }
                EnforceAction::Schedule(j) => schedules.push(format!("schedule {}", name(*j))),
                EnforceAction::Preempt { job, removed } => {
                    preempted.insert(*job, *removed);
                }
            }
        }
        // The task layer (client/app_control.cpp, emulated): start or
        // resume scheduled tasks, suspend or remove preempted ones, in the
        // order the tasks were created (`active_tasks`).
        let mut order: Vec<usize> = (0..state.jobs.len()).collect();
        // New tasks are created in the order the scan schedules them.
        for action in &out.actions {
            let EnforceAction::Schedule(j) = action else {
                continue;
            };
            let is_new = before.get(*j).copied().flatten().is_none();
            if let Some(seq) = self.task_seq.get_mut(*j) {
                if is_new && *seq == 0 {
                    *seq = self.next_task_seq;
                    self.next_task_seq += 1;
                }
            }
        }
        order.sort_by_key(|&j| self.task_seq.get(j).copied().unwrap_or(u64::MAX));
        let mut task_actions = Vec::new();
        for j in order {
            let job_name = name(j);
            let Some(task) = state.jobs.get_mut(j).and_then(|x| x.task.as_mut()) else {
                continue;
            };
            if let Some(&removed) = preempted.get(&j) {
                task_actions.push(format!(
                    "preempt {job_name} ({})",
                    if removed { "removed" } else { "left" }
                ));
                task.task_state = if removed {
                    // Out of memory: its GPU instances are released.
                    task.coproc_indices.clear();
                    TaskState::Uninitialized
                } else {
                    TaskState::Suspended
                };
            } else if task.scheduler_state == SchedulerState::Scheduled
                && task.task_state != TaskState::Executing
            {
                // The emulator says "Resuming" for any task that ran before.
                let verb = if task.task_state == TaskState::Suspended || task.elapsed > 0.0 {
                    "resuming"
                } else {
                    "starting"
                };
                task_actions.push(format!("{verb} {job_name}"));
                task.task_state = TaskState::Executing;
            }
        }
        // Preemptions (§6.3 step 11) come before starts (step 12).
        task_actions.sort_by_key(|a| !a.starts_with("preempt"));
        let mut actions = assigns;
        actions.extend(schedules);
        actions.extend(task_actions);
        Made::Ready(Replayed::Decision {
            decision: Decision::Enforcement(actions),
            reason: format!(
                "§6.3 enforce_run_list at {now:.0}: {:.2} CPUs used, {} skipped",
                out.cpus_used,
                out.skipped.len()
            ),
        })
    }

    /// The RPC poll (§7.1 steps 6–7): a report RPC for overdue results with
    /// a piggybacked request, else the work-fetch pass and its RPC. Applies
    /// the recorded outcome. Returns true if jobs arrived.
    fn rpc_poll(&mut self, now: f64, events: &[ExternalEvent]) -> bool {
        let params = self.params.clone();
        let Some(state) = self.state.as_mut() else {
            return false;
        };
        let due = project_with_overdue_results(state, &self.completed, now, &params);
        // Make the step's simulation if scheduling did not (§8).
        if self.step_sim.as_ref().is_none_or(|s| s.now != now) {
            match rr_simulate(state, now, &params) {
                Ok(sim) => {
                    let Some(state) = self.state.as_ref() else {
                        return false;
                    };
                    let made = rr_sim_made(state, &sim);
                    let prio = (!sim.prio_init.lines.is_empty())
                        .then(|| prio_made(state, &sim.prio_init, now, "simulation"));
                    self.push(now, Slot::RrSim, made);
                    if let Some(prio) = prio {
                        self.push(now, Slot::Prio, prio);
                    }
                    self.step_sim = Some(sim);
                }
                Err(e) => {
                    self.push(now, Slot::RrSim, engine_error(e));
                    return false;
                }
            }
        }
        let sim = self.step_sim.clone();
        let Some(state) = self.state.as_mut() else {
            return false;
        };
        let (target, request) = if let Some(p) = due {
            state.projects[p].sched_rpc_pending = Some(RpcReason::ResultsDue);
            match piggyback_work_request(state, p, now, sim, &params) {
                Ok(outcome) => {
                    let request = outcome.request.clone();
                    self.push_fetch(now, &outcome, Some(p));
                    (Some(p), request)
                }
                Err(e) => {
                    self.push(now, Slot::Request, engine_error(e));
                    (Some(p), Vec::new())
                }
            }
        } else {
            match choose_project(state, now, sim, &params) {
                Ok(outcome) => {
                    let request = outcome.request.clone();
                    let chosen = outcome.chosen;
                    if let Some(p) = chosen {
                        state.projects[p].sched_rpc_pending = Some(RpcReason::NeedWork);
                    }
                    self.push_fetch(now, &outcome, None);
                    (chosen, request)
                }
                Err(e) => {
                    self.push(now, Slot::Choice, engine_error(e));
                    (None, Vec::new())
                }
            }
        };
        self.apply_rpc(now, target, &request, events)
    }

    /// Records a work-fetch pass; `report` is the project of a report RPC
    /// (the request is then piggybacked on it).
    fn push_fetch(&mut self, now: f64, outcome: &WorkFetchOutcome, report: Option<usize>) {
        let Some(state) = self.state.as_ref() else {
            return;
        };
        let mut outcome = outcome.clone();
        if report.is_some() {
            // The dump is printed by WORK_FETCH::setup, before
            // piggyback_work_request marks the project "don't need": compare
            // the reason as printed (the RPC is made only when the project
            // is not backed off, so it was none).
            if let (Some(setup), Some(p)) = (outcome.state.as_mut(), outcome.chosen) {
                if let Some(project) = setup.projects.get_mut(p) {
                    if matches!(project.reason, ProjectReason::DontNeed(_)) {
                        project.reason = ProjectReason::None;
                    }
                }
            }
        }
        let outcome = &outcome;
        if let Some(setup) = outcome.state.as_ref() {
            let prio = prio_made(state, &setup.prio_init, now, "work fetch");
            self.push(now, Slot::Prio, prio);
            self.push(
                now,
                Slot::FetchState,
                Made::Fetch(Box::new(outcome.clone())),
            );
        }
        if let Some(report) = report {
            let target = self
                .state
                .as_ref()
                .and_then(|state| state.projects.get(report))
                .map(|project| project.name.to_string());
            let reason = format!(
                "§7.1/§7.9 RPC poll at {now:.0}: results due for {}, so a report RPC with piggyback_work_request",
                target.as_deref().unwrap_or("-")
            );
            self.push(
                now,
                Slot::Choice,
                Made::Ready(Replayed::Decision {
                    decision: Decision::Choice(target),
                    reason,
                }),
            );
            self.push(now, Slot::Request, Made::Fetch(Box::new(outcome.clone())));
        } else {
            self.push(now, Slot::Choice, Made::Fetch(Box::new(outcome.clone())));
            if outcome.chosen.is_some() {
                self.push(now, Slot::Request, Made::Fetch(Box::new(outcome.clone())));
            }
        }
    }

    /// Applies the recorded outcome of the step's RPC (external input):
    /// arrivals, a project-down skip, drawn backoffs; reports the project's
    /// finished jobs. Returns true if jobs arrived.
    fn apply_rpc(
        &mut self,
        now: f64,
        target: Option<usize>,
        request: &[RscRequest],
        events: &[ExternalEvent],
    ) -> bool {
        let params = self.params.clone();
        let mut got = false;
        let target_name = target.and_then(|p| {
            self.state
                .as_ref()
                .and_then(|s| s.projects.get(p))
                .map(|p| p.name.to_string())
        });
        let mut skipped = false;
        let mut new_rsc = Vec::new();
        let mut draws = Vec::new();
        for event in events {
            match event {
                ExternalEvent::RpcSkipped {
                    project,
                    defer_secs,
                    ..
                } => {
                    let Some(state) = self.state.as_mut() else {
                        return false;
                    };
                    let mut made = None;
                    if let Some(p) = state
                        .projects
                        .iter_mut()
                        .find(|p| p.name == project.as_str())
                    {
                        // §7.13 project_rpc_backoff: the drawn deferral is an
                        // input; the replay checks it lies in its own range.
                        let mut lo = p.clone();
                        let mut hi = p.clone();
                        let range = (
                            project_rpc_backoff(&mut lo, now, true, 0.0, &params),
                            project_rpc_backoff(&mut hi, now, true, 1.0, &params),
                        );
                        p.nrpc_failures = lo.nrpc_failures;
                        p.master_url_fetch_pending = lo.master_url_fetch_pending;
                        p.sched_rpc_pending = None;
                        if let (
                            Some(secs),
                            (
                                Ok(RpcBackoff::Delay { secs: min, n, .. }),
                                Ok(RpcBackoff::Delay { secs: max, .. }),
                            ),
                        ) = (defer_secs, range)
                        {
                            let inside = *secs >= min - 0.5 && *secs <= max + 0.5;
                            let replayed = if inside { *secs } else { secs.clamp(min, max) };
                            p.min_rpc_time = now + replayed;
                            made = Some(Made::Ready(Replayed::Decision {
                                // The deferral line prints HH:MM:SS, truncated.
                                decision: Decision::Backoff {
                                    rsc: None,
                                    secs: replayed.floor(),
                                },
                                reason: format!(
                                    "§7.13 project_rpc_backoff after {n} failure(s): drawn \
                                     deferral {secs:.0} s {} [{min:.0}, {max:.0}]",
                                    if inside { "within" } else { "OUTSIDE" }
                                ),
                            }));
                        } else if let Some(secs) = defer_secs {
                            p.min_rpc_time = now + secs;
                        }
                    }
                    if Some(project) == target_name.as_ref() {
                        skipped = true;
                    }
                    if let Some(made) = made {
                        self.push(now, Slot::Backoff, made);
                    }
                }
                ExternalEvent::JobArrival { project, job, .. } => {
                    if let Some(rsc) = self.add_job(now, project, job) {
                        if Some(project) == target_name.as_ref() {
                            new_rsc.push(rsc);
                        }
                        got = true;
                    }
                }
                ExternalEvent::BackoffDrawn {
                    project, rsc, secs, ..
                } if Some(project) == target_name.as_ref() => draws.push((rsc.clone(), *secs)),
                _ => {}
            }
        }
        let (Some(p), false) = (target, skipped) else {
            return got;
        };
        let Some(state) = self.state.as_mut() else {
            return false;
        };
        // The drawn factors, checked against the replay's own intervals.
        let (lo, hi) = params.rsc_backoff_factor_range();
        let mut us = Vec::new();
        for (r, prsc) in state.projects[p].rsc.iter().enumerate() {
            let long = state.rsc_type(r).long_name().to_string();
            if let Some((_, secs)) = draws.iter().find(|(name, _)| *name == long) {
                let interval = if prsc.backoff_interval > 0.0 {
                    (prsc.backoff_interval * 2.0).min(params.wf_max_backoff_interval)
                } else {
                    params.wf_min_backoff_interval
                };
                let u = (secs / interval - lo) / (hi - lo);
                // The log prints whole seconds.
                let slack = 0.5 / interval / (hi - lo);
                us.push(if (-slack..=1.0 + slack).contains(&u) {
                    u.clamp(0.0, 1.0)
                } else {
                    u
                });
            }
        }
        let reply = SchedReply {
            new_job_rsc: new_rsc,
            request_delay: 0.0,
            too_recent: false,
        };
        let Some(state) = self.state.as_mut() else {
            return false;
        };
        match handle_scheduler_reply(state, p, request, &reply, now, &mut us.into_iter(), &params) {
            Ok(outcome) => {
                for (r, backoff) in outcome.backoffs {
                    let rsc = state.rsc_type(r).long_name().to_string();
                    self.made.push((
                        now,
                        Slot::Backoff,
                        Made::Ready(Replayed::Decision {
                            decision: Decision::Backoff {
                                rsc: Some(rsc),
                                secs: backoff.secs,
                            },
                            reason: format!(
                                "§7.12 resource_backoff: interval {:.0}, drawn factor within \
                                 [{lo}, {hi}]",
                                backoff.interval
                            ),
                        }),
                        false,
                    ));
                }
            }
            Err(e) => self.push(now, Slot::Backoff, engine_error(e)),
        }
        // Report the project's finished jobs.
        let Some(state) = self.state.as_mut() else {
            return false;
        };
        if self.emu.rpc_deferral > 0.0 {
            // The 7.2.42 emulator harness defers a project after every
            // completed RPC (policy-legacy C.1).
            let project = &mut state.projects[p];
            project.min_rpc_time = project.min_rpc_time.max(now + self.emu.rpc_deferral);
        }
        let keep: Vec<bool> = state
            .jobs
            .iter()
            .map(|job| !(job.project == p && job.ready_to_report))
            .collect();
        if keep.iter().any(|k| !k) {
            let mut it = keep.iter();
            state.jobs.retain(|_| *it.next().unwrap_or(&true));
            let mut it = keep.iter();
            self.completed.retain(|_| *it.next().unwrap_or(&true));
            let mut it = keep.iter();
            self.task_seq.retain(|_| *it.next().unwrap_or(&true));
            // Simulation results are indexed by job: the step's simulation
            // refers to the old indices.
            if let Some(sim) = self.step_sim.as_mut() {
                let mut it = keep.iter();
                sim.misses_deadline.retain(|_| *it.next().unwrap_or(&true));
            }
        }
        got
    }

    /// Adds a job delivered by an RPC: its project's app version (told apart
    /// by the FLOPS rate the log shows for it), its recorded size, deadline
    /// from the app's latency bound; `index` 0 (§9.7). Returns its resource.
    fn add_job(&mut self, now: f64, project: &str, name: &str) -> Option<usize> {
        let state = self.state.as_mut()?;
        let p = state.projects.iter().position(|x| x.name == project)?;
        let size = self.emu.sizes.get(name).copied().unwrap_or_default();
        let versions = &state.projects[p].app_versions;
        // The printed rate is the version's FLOPS scaled by availability
        // (on_frac, gpu_active_frac): take the version nearest in ratio.
        let version = size
            .rate
            .filter(|rate| *rate > 0.0)
            .and_then(|rate| {
                versions
                    .iter()
                    .filter(|v| v.usage.flops > 0.0)
                    .min_by(|a, b| {
                        let da = (a.usage.flops / rate).ln().abs();
                        let db = (b.usage.flops / rate).ln().abs();
                        da.total_cmp(&db)
                    })
            })
            .or_else(|| versions.first())?
            .clone();
        let (latency, fpops_est) = self
            .emu
            .apps
            .get(&(project.to_string(), version.app.to_string()))
            .copied()
            .unwrap_or((None, None));
        let flops = size.flops.or(fpops_est).unwrap_or(3600e11);
        let mut job = Job::new(name, p, &version.app, version.usage.clone(), flops);
        job.needs_network = version.needs_network;
        job.exact_flops_remaining = Some(flops);
        job.received_time = now;
        job.report_deadline = now + latency.unwrap_or(864000.0);
        job.index = 0;
        job.alloc_seq = state
            .jobs
            .iter()
            .map(|j| j.alloc_seq + 1)
            .max()
            .unwrap_or(0);
        let rsc = job.usage.rsc;
        state.jobs.push(job);
        self.completed.push(None);
        self.task_seq.push(0);
        Some(rsc)
    }

    /// Choice and request: recomputed from the recorded state dump (self-consistency).
    fn self_check(&mut self, point: &RecordedPoint) -> Replayed {
        if point.piggyback {
            return Replayed::NotReplayed(
                "piggybacked request on a report-only RPC: engine piggyback_work_request not \
                 available yet"
                    .to_string(),
            );
        }
        let Some(context) = self.contexts.get(&point.event_idx) else {
            return Replayed::NotReplayed(
                "no work-fetch state dump precedes this decision (work_fetch_debug off?)".into(),
            );
        };
        let ninst: Vec<u32> = context
            .dump
            .resources
            .iter()
            .map(|rsc| {
                context
                    .set_requests
                    .iter()
                    .find(|s| s.rsc == rsc.rsc)
                    .map(|s| s.ninst)
                    .or_else(|| {
                        self.state.as_ref().and_then(|state| {
                            (0..state.n_rsc())
                                .find(|&r| state.rsc_type(r).long_name() == rsc.rsc)
                                .map(|r| state.ninstances(r) as u32)
                        })
                    })
                    .unwrap_or(0)
            })
            .collect();
        let set_requests = context.set_requests.clone();
        let nused = move |_project: &str, rsc: &str| {
            set_requests
                .iter()
                .find(|s| s.rsc == rsc)
                .map_or(0.0, |s| s.nused_total)
        };
        let choice = selfcheck::choose(
            &context.dump,
            &ChoiceInputs {
                ninst: &ninst,
                nused_total: &nused,
            },
        );
        let reason = format!(
            "self-consistency from the recorded state dump: {}",
            choice.reason
        );
        match &point.decision {
            Decision::Choice(_) => Replayed::Decision {
                decision: Decision::Choice(choice.chosen),
                reason,
            },
            _ => {
                let resources: Vec<RscRequestLine> = if choice.request.is_empty() {
                    Vec::new()
                } else {
                    choice.request
                };
                Replayed::Decision {
                    decision: Decision::Request {
                        resources,
                        set_requests: choice.set_requests,
                    },
                    reason,
                }
            }
        }
    }
}

/// The work-fetch decision of kind `recorded` from an engine outcome.
fn fetch_decision(
    state: &HostState,
    outcome: &WorkFetchOutcome,
    recorded: &Decision,
    now: f64,
) -> Replayed {
    let name = |p: usize| {
        state
            .projects
            .get(p)
            .map(|project| project.name.to_string())
            .unwrap_or_default()
    };
    match recorded {
        Decision::FetchState(_) => {
            let Some(setup) = outcome.state.as_ref() else {
                return Replayed::NotReplayed(
                    "the engine chose an NCI project without a state dump".into(),
                );
            };
            let dump = FetchDump {
                buffer: Some((setup.buf_min, setup.buf_additional)),
                projects: setup
                    .projects
                    .iter()
                    .map(|p| ProjectState {
                        project: name(p.project),
                        rec: p.rec,
                        prio: p.priority,
                        reason: match p.reason {
                            crate::policy::work_fetch::ProjectReason::None => String::new(),
                            ref reason => format!("can't request work: {reason}"),
                        },
                        backoff: (p.rpc_backoff_left > 0.0).then_some(p.rpc_backoff_left),
                    })
                    .collect(),
                resources: setup
                    .resources
                    .iter()
                    .map(|r| RscState {
                        rsc: r.rsc_type.long_name().to_string(),
                        shortfall: r.shortfall,
                        nidle: r.nidle,
                        saturated: r.saturated,
                        busy: r.busy,
                        shares: r
                            .projects
                            .iter()
                            .map(|s| ShareState {
                                project: name(s.project),
                                share: s.share,
                                reason: s.reason.to_string(),
                                backoff: (s.backoff_left > 0.0)
                                    .then_some((s.backoff_left, s.backoff_interval)),
                            })
                            .collect(),
                    })
                    .collect(),
            };
            Replayed::Decision {
                decision: Decision::FetchState(dump),
                reason: format!(
                    "§7.3 WORK_FETCH::setup at {now:.0} from the replay's own simulation"
                ),
            }
        }
        Decision::Choice(_) => Replayed::Decision {
            decision: Decision::Choice(outcome.chosen.map(name)),
            reason: format!(
                "§7.7 choose_project at {now:.0}: trigger {:?}, scan {:?}",
                outcome
                    .trigger
                    .map(|r| state.rsc_type(r).long_name().to_string()),
                outcome.scan
            ),
        },
        _ => Replayed::Decision {
            decision: Decision::Request {
                resources: outcome
                    .request
                    .iter()
                    .enumerate()
                    .map(|(r, req)| RscRequestLine {
                        rsc: state.rsc_type(r).long_name().to_string(),
                        secs: req.req_secs,
                        inst: req.req_instances,
                    })
                    .collect(),
                set_requests: match recorded {
                    Decision::Request { set_requests, .. } => set_requests
                        .iter()
                        .map(|recorded| {
                            let r = (0..state.n_rsc())
                                .find(|&r| state.rsc_type(r).long_name() == recorded.rsc)
                                .unwrap_or(0);
                            let p = outcome.chosen.unwrap_or(0);
                            let sim = outcome.state.as_ref().map(|s| &s.sim);
                            super::decision::SetRequestLine {
                                rsc: recorded.rsc.clone(),
                                ninst: state.ninstances(r) as u32,
                                nused_total: sim.map_or(0.0, |s| s.project_rsc(p, r).nused_total),
                                nidle_now: sim.map_or(0.0, |s| s.resource(r).nidle_now),
                                fetch_share: outcome
                                    .state
                                    .as_ref()
                                    .and_then(|s| s.shares.get(p))
                                    .and_then(|row| row.get(r))
                                    .copied()
                                    .unwrap_or(0.0),
                                req_inst: outcome.request.get(r).map_or(0.0, |q| q.req_instances),
                                req_secs: outcome.request.get(r).map_or(0.0, |q| q.req_secs),
                            }
                        })
                        .collect(),
                    _ => Vec::new(),
                },
            },
            reason: format!("§7.8 set_request at {now:.0} for the chosen project"),
        },
    }
}

/// The recorded dump and `set_request()` lines a choice or request refers to.
pub struct PointContext {
    /// The dump.
    pub dump: FetchDump,
    /// The `set_request()` lines of the request (inputs: ninst, nused_total).
    pub set_requests: Vec<super::decision::SetRequestLine>,
}

/// Links every choice and request point to the dump before it and the
/// `set_request()` lines of its request; passed to [`Driver::new`].
pub fn link_contexts(points: &[RecordedPoint]) -> BTreeMap<usize, PointContext> {
    let mut out = Vec::new();
    let mut last_dump: Option<FetchDump> = None;
    let mut pending_choice: Option<usize> = None;
    for point in points {
        match &point.decision {
            Decision::FetchState(dump) => last_dump = Some(dump.clone()),
            Decision::Choice(chosen) => {
                if let Some(dump) = &last_dump {
                    out.push((
                        point.event_idx,
                        PointContext {
                            dump: dump.clone(),
                            set_requests: Vec::new(),
                        },
                    ));
                    pending_choice = chosen.as_ref().map(|_| out.len() - 1);
                }
            }
            Decision::Request { set_requests, .. } if !point.piggyback => {
                if let Some(dump) = &last_dump {
                    out.push((
                        point.event_idx,
                        PointContext {
                            dump: dump.clone(),
                            set_requests: set_requests.clone(),
                        },
                    ));
                    if let Some(choice) = pending_choice.take() {
                        if let Some((_, ctx)) = out.get_mut(choice) {
                            ctx.set_requests = set_requests.clone();
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out.into_iter().collect()
}

/// Kinds the driver can replay through the engine on this branch.
pub fn engine_kinds() -> &'static [DecisionKind] {
    &[
        DecisionKind::Priority,
        DecisionKind::RrSim,
        DecisionKind::FetchState,
    ]
}

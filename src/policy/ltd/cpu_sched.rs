//! Job selection of 6.10.60 (`CLIENT_STATE::schedule_cpus` in
//! client/cpu_sched.cpp; spec B.11): GPU EDF, GPU FIFO, CPU EDF for
//! projects with simulated misses, then CPU jobs in anticipated-STD order,
//! each pick lowering its project's anticipated STD by
//! `scheduling_period × avg_ncpus / NCPUS`.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use std::fmt;

use super::rr_sim::RrSimOutcome;
use super::{estimated_time_remaining, job_runnable, Debts, LtdParams};
use crate::policy::state::{HostState, JobIdx, SchedulerState, TaskState};

/// Why a job was picked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PickReason {
    /// `coprocessor job, EDF`.
    CoprocEdf,
    /// `coprocessor job, FIFO`.
    CoprocFifo,
    /// `CPU job, EDF`, after `earliest deadline: <deadline> <job>`.
    CpuEdf {
        /// The report deadline printed with `%.0f`.
        deadline: f64,
    },
    /// `CPU job, debt order`, after `highest debt: <anticipated STD> <job>`.
    CpuDebtOrder {
        /// The project's anticipated STD when picked (`%f`).
        highest_debt: f64,
    },
}

/// One pick of the scheduling pass.
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    /// The job.
    pub job: JobIdx,
    /// Why.
    pub reason: PickReason,
    /// Jobs whose remaining time was estimated since the previous pick, in
    /// order: an EDF scan breaks deadline ties by it (the client logs a
    /// `dur:` line for each that has a task).
    pub estimated_before: Vec<JobIdx>,
}

impl Pick {
    /// The lines the pick logs, with `name` the job's name.
    pub fn lines(&self, name: &str) -> Vec<String> {
        match self.reason {
            PickReason::CoprocEdf => vec![format!(
                "[cpu_sched_debug] scheduling {name} (coprocessor job, EDF)"
            )],
            PickReason::CoprocFifo => vec![format!(
                "[cpu_sched_debug] scheduling {name} (coprocessor job, FIFO)"
            )],
            PickReason::CpuEdf { deadline } => vec![
                format!("[cpu_sched_debug] earliest deadline: {deadline:.0} {name}"),
                format!("[cpu_sched_debug] scheduling {name} (CPU job, EDF)"),
            ],
            PickReason::CpuDebtOrder { highest_debt } => vec![
                format!("[cpu_sched_debug] highest debt: {highest_debt:.6} {name}"),
                format!("[cpu_sched_debug] scheduling {name} (CPU job, debt order)"),
            ],
        }
    }
}

impl fmt::Display for PickReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PickReason::CoprocEdf => f.write_str("coprocessor job, EDF"),
            PickReason::CoprocFifo => f.write_str("coprocessor job, FIFO"),
            PickReason::CpuEdf { .. } => f.write_str("CPU job, EDF"),
            PickReason::CpuDebtOrder { .. } => f.write_str("CPU job, debt order"),
        }
    }
}

/// The scheduling pass's result: the ordered list enforcement will use.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleOutcome {
    /// Picks in order (`ordered_scheduled_results`).
    pub picks: Vec<Pick>,
    /// Jobs estimated after the last pick (see [`Pick::estimated_before`]).
    pub estimated_after: Vec<JobIdx>,
    /// Jobs flagged missing by the simulation (plus running once-EDF tasks of missing projects).
    pub deadline_missed: Vec<JobIdx>,
}

/// Mirrors CLIENT_STATE::schedule_cpus() of 6.10.60 (B.11). `sim` is the
/// simulation run at the start of the pass.
pub fn schedule_cpus(
    state: &HostState,
    debts: &Debts,
    sim: &RrSimOutcome,
    now: f64,
    params: &LtdParams,
) -> ScheduleOutcome {
    let n_rsc = state.n_rsc();
    let ncpus = state.ninstances(0) as f64;
    let period = state.cpu_scheduling_period();
    let mut missed: Vec<bool> = vec![false; state.jobs.len()];
    for &j in &sim.missed {
        if let Some(m) = missed.get_mut(j) {
            *m = true;
        }
    }
    // promote_once_ran_edf(): a running task that once ran EDF is flagged
    // missing again while its project still has a miss.
    for (j, job) in state.jobs.iter().enumerate() {
        if let Some(task) = &job.task {
            if task.once_ran_edf
                && task.scheduler_state == SchedulerState::Scheduled
                && sim.project_rsc(job.project, job.usage.rsc).deadlines_missed > 0
            {
                if let Some(m) = missed.get_mut(j) {
                    *m = true;
                }
            }
        }
    }
    let mut anticipated: Vec<Vec<f64>> = (0..state.projects.len())
        .map(|p| (0..n_rsc).map(|r| debts.get(p, r).std).collect())
        .collect();
    let mut misses_copy: Vec<Vec<u32>> = (0..state.projects.len())
        .map(|p| {
            (0..n_rsc)
                .map(|r| sim.project_rsc(p, r).deadlines_missed)
                .collect()
        })
        .collect();
    let mut selected = vec![false; state.jobs.len()];
    let mut picks = Vec::new();
    let mut ncpus_used = 0.0;
    let mut coproc_used = vec![0.0; n_rsc];
    let runnable = |j: usize| {
        state.jobs.get(j).is_some_and(|job| {
            job_runnable(state, job, now)
                && state
                    .projects
                    .get(job.project)
                    .is_some_and(|p| !p.non_cpu_intensive)
        })
    };
    let coprocs_full = |used: &Vec<f64>| {
        (1..n_rsc).all(|r| used.get(r).copied().unwrap_or(0.0) >= state.ninstances(r) as f64)
    };
    let mut estimated: Vec<JobIdx> = Vec::new();
    let take = |j: usize,
                reason: PickReason,
                anticipated: &mut Vec<Vec<f64>>,
                ncpus_used: &mut f64,
                coproc_used: &mut Vec<f64>,
                picks: &mut Vec<Pick>,
                estimated: &mut Vec<JobIdx>| {
        let Some(job) = state.jobs.get(j) else { return };
        *ncpus_used += job.usage.avg_ncpus;
        if job.usage.rsc != 0 {
            if let Some(u) = coproc_used.get_mut(job.usage.rsc) {
                *u += job.usage.coproc_usage;
            }
        }
        if let Some(row) = anticipated.get_mut(job.project) {
            for (r, a) in row.iter_mut().enumerate() {
                let n = state.ninstances(r).max(1) as f64;
                *a -= period * super::job_usage(job, r) / n;
            }
        }
        picks.push(Pick {
            job: j,
            reason,
            estimated_before: std::mem::take(estimated),
        });
    };
    let edf_candidate = |j: usize, coproc: bool, misses_copy: &Vec<Vec<u32>>| -> bool {
        let Some(job) = state.jobs.get(j) else {
            return false;
        };
        if coproc != (job.usage.rsc != 0) {
            return false;
        }
        let dcf = state.projects.get(job.project).map_or(1.0, |p| p.dcf);
        if dcf < params.edf_dcf {
            let count = misses_copy
                .get(job.project)
                .and_then(|row| row.get(job.usage.rsc))
                .copied()
                .unwrap_or(0);
            count > 0 && missed.get(j).copied().unwrap_or(false)
        } else {
            true
        }
    };
    let earliest = |coproc: bool,
                    selected: &Vec<bool>,
                    misses_copy: &Vec<Vec<u32>>,
                    estimated: &mut Vec<JobIdx>|
     -> Option<usize> {
        let mut best: Option<usize> = None;
        for (j, job) in state.jobs.iter().enumerate() {
            if !runnable(j)
                || selected.get(j).copied().unwrap_or(true)
                || !edf_candidate(j, coproc, misses_copy)
            {
                continue;
            }
            let Some(b) = best.and_then(|b| state.jobs.get(b).map(|bj| (b, bj))) else {
                best = Some(j);
                continue;
            };
            let (b_idx, bjob) = b;
            if job.report_deadline < bjob.report_deadline {
                best = Some(j);
                continue;
            }
            if job.report_deadline > bjob.report_deadline {
                continue;
            }
            let has = job.task.is_some();
            let b_has = bjob.task.is_some();
            if b_has && !has {
                continue;
            }
            // Both sides are estimated, this job's first.
            estimated.push(j);
            estimated.push(b_idx);
            if estimated_time_remaining(state, j).0 < estimated_time_remaining(state, b_idx).0
                || (!b_has && has)
            {
                best = Some(j);
            }
        }
        best
    };
    // GPU EDF.
    if n_rsc > 1 {
        while !coprocs_full(&coproc_used) {
            let Some(j) = earliest(true, &selected, &misses_copy, &mut estimated) else {
                break;
            };
            if let Some(s) = selected.get_mut(j) {
                *s = true;
            }
            let fits = state.jobs.get(j).is_some_and(|job| {
                coproc_used.get(job.usage.rsc).copied().unwrap_or(0.0) + job.usage.coproc_usage
                    <= state.ninstances(job.usage.rsc) as f64
            }) && !state.gpu_suspended;
            if !fits {
                continue;
            }
            take(
                j,
                PickReason::CoprocEdf,
                &mut anticipated,
                &mut ncpus_used,
                &mut coproc_used,
                &mut picks,
                &mut estimated,
            );
            if let Some(job) = state.jobs.get(j) {
                if let Some(c) = misses_copy
                    .get_mut(job.project)
                    .and_then(|row| row.get_mut(job.usage.rsc))
                {
                    *c = c.saturating_sub(1);
                }
            }
        }
        // GPU FIFO: started first, then earlier arrival, then greater name.
        while !coprocs_full(&coproc_used) {
            let mut best: Option<usize> = None;
            for (j, job) in state.jobs.iter().enumerate() {
                if !runnable(j) || selected.get(j).copied().unwrap_or(true) || job.usage.rsc == 0 {
                    continue;
                }
                let Some(bjob) = best.and_then(|b| state.jobs.get(b)) else {
                    best = Some(j);
                    continue;
                };
                let started = job.task.is_some();
                let b_started = bjob.task.is_some();
                if started != b_started {
                    if started {
                        best = Some(j);
                    }
                    continue;
                }
                if job.received_time < bjob.received_time
                    || (job.received_time == bjob.received_time && job.name > bjob.name)
                {
                    best = Some(j);
                }
            }
            let Some(j) = best else { break };
            if let Some(s) = selected.get_mut(j) {
                *s = true;
            }
            let fits = state.jobs.get(j).is_some_and(|job| {
                coproc_used.get(job.usage.rsc).copied().unwrap_or(0.0) + job.usage.coproc_usage
                    <= state.ninstances(job.usage.rsc) as f64
            }) && !state.gpu_suspended;
            if fits {
                take(
                    j,
                    PickReason::CoprocFifo,
                    &mut anticipated,
                    &mut ncpus_used,
                    &mut coproc_used,
                    &mut picks,
                    &mut estimated,
                );
            }
        }
    }
    // CPU EDF.
    while ncpus_used < ncpus {
        let Some(j) = earliest(false, &selected, &misses_copy, &mut estimated) else {
            break;
        };
        if let Some(s) = selected.get_mut(j) {
            *s = true;
        }
        let deadline = state.jobs.get(j).map_or(0.0, |job| job.report_deadline);
        take(
            j,
            PickReason::CpuEdf { deadline },
            &mut anticipated,
            &mut ncpus_used,
            &mut coproc_used,
            &mut picks,
            &mut estimated,
        );
        if let Some(job) = state.jobs.get(j) {
            if let Some(c) = misses_copy
                .get_mut(job.project)
                .and_then(|row| row.get_mut(0))
            {
                *c = c.saturating_sub(1);
            }
        }
    }
    // Debt order.
    while ncpus_used < ncpus {
        // assign_results_to_projects(): best CPU job per project.
        let mut best_job: Vec<Option<usize>> = vec![None; state.projects.len()];
        for (j, job) in state.jobs.iter().enumerate() {
            let Some(task) = &job.task else { continue };
            if job.usage.rsc != 0 || !runnable(j) || selected.get(j).copied().unwrap_or(true) {
                continue;
            }
            let Some(slot) = best_job.get_mut(job.project) else {
                continue;
            };
            match slot
                .and_then(|b| state.jobs.get(b))
                .and_then(|b| b.task.as_ref())
            {
                None => *slot = Some(j),
                Some(bt) => {
                    let better = (bt.task_state == TaskState::Uninitialized && task.has_process())
                        || (bt.scheduler_state == SchedulerState::Preempted
                            && task.scheduler_state == SchedulerState::Scheduled);
                    if better {
                        *slot = Some(j);
                    }
                }
            }
        }
        for (j, job) in state.jobs.iter().enumerate() {
            if job.task.is_some()
                || job.usage.rsc != 0
                || !runnable(j)
                || selected.get(j).copied().unwrap_or(true)
            {
                continue;
            }
            if let Some(slot) = best_job.get_mut(job.project) {
                if slot.is_none() {
                    *slot = Some(j);
                }
            }
        }
        let mut best: Option<(usize, f64)> = None;
        for (p, slot) in best_job.iter().enumerate() {
            let Some(j) = slot else { continue };
            let a = anticipated
                .get(p)
                .and_then(|row| row.first())
                .copied()
                .unwrap_or(0.0);
            if best.is_none_or(|(_, b)| a > b) {
                best = Some((*j, a));
            }
        }
        let Some((j, highest_debt)) = best else { break };
        if let Some(s) = selected.get_mut(j) {
            *s = true;
        }
        take(
            j,
            PickReason::CpuDebtOrder { highest_debt },
            &mut anticipated,
            &mut ncpus_used,
            &mut coproc_used,
            &mut picks,
            &mut estimated,
        );
    }
    ScheduleOutcome {
        picks,
        estimated_after: estimated,
        deadline_missed: missed
            .iter()
            .enumerate()
            .filter(|(_, m)| **m)
            .map(|(j, _)| j)
            .collect(),
    }
}

/// Mirrors `finished_time_slice()` of 6.10.60 (client/cpu_sched.cpp): the
/// task ran at least one scheduling period since its last start or resume
/// and checkpointed within the last 10 s.
pub fn finished_time_slice(
    task: &crate::policy::state::Task,
    now: f64,
    period: f64,
    params: &LtdParams,
) -> bool {
    now - task.run_interval_start >= period
        && now - task.checkpoint_wall_time < params.recent_checkpoint_secs
}

/// Flags the 6.10 scheduler keeps on each `RESULT` beside the host state
/// (indexed like `HostState::jobs`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JobFlags {
    /// `rr_sim_misses_deadline` from the latest simulation (printed `MD`).
    pub missed: bool,
    /// Picked in EDF by the latest scheduling pass (`edf_scheduled`).
    pub edf: bool,
    /// `unfinished_time_slice` as the latest enforcement left it (printed `UTS`).
    pub uts: bool,
}

/// One entry of an enforcement's job list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListEntry {
    /// The job.
    pub job: JobIdx,
    /// `MD` as printed.
    pub missed: bool,
    /// `UTS` as printed.
    pub uts: bool,
}

/// A task change decided by an enforcement, in the order the client makes them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TaskChange {
    /// `Preempting JOB (left in memory)`.
    Preempt(JobIdx),
    /// `Resuming task JOB`.
    Resume(JobIdx),
    /// `Starting task JOB`: a new task.
    Start(JobIdx),
}

/// What `enforce_schedule()` decided (without its debt update).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnforceOutcome {
    /// `preliminary job list:` (the flags of the previous enforcement).
    pub preliminary: Vec<ListEntry>,
    /// `final job list:` after appending unfinished slices and sorting.
    pub final_list: Vec<ListEntry>,
    /// The walk: (job, kept); not kept = `all CPUs used, skipping` (or no
    /// coprocessor instance left).
    pub walk: Vec<(JobIdx, bool)>,
    /// CPUs used by the kept jobs.
    pub cpus_used: f64,
    /// Fewer CPUs used than exist (`using X out of N CPUs`, then a work-fetch request).
    pub cpus_idle: bool,
    /// Task changes: preemptions, then resumptions, then new tasks.
    pub changes: Vec<TaskChange>,
}

impl EnforceOutcome {
    /// The `[cpu_sched_debug]`, `[cpu_sched]` and `[task]` lines, each with
    /// the job it names (`None` = a general line); `name` gives job names.
    pub fn lines(
        &self,
        ncpus: usize,
        name: &dyn Fn(JobIdx) -> String,
    ) -> Vec<(Option<JobIdx>, String)> {
        let mut out = self.list_lines(ncpus, name);
        for change in &self.changes {
            out.push(change.line(name));
        }
        out
    }

    /// The lines up to the task changes: both job lists, the walk, and
    /// `using X out of N CPUs` when CPUs are left idle.
    pub fn list_lines(
        &self,
        ncpus: usize,
        name: &dyn Fn(JobIdx) -> String,
    ) -> Vec<(Option<JobIdx>, String)> {
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        let mut out = Vec::new();
        for (which, list) in [
            ("preliminary", &self.preliminary),
            ("final", &self.final_list),
        ] {
            out.push((None, format!("[cpu_sched_debug] {which} job list:")));
            for (i, e) in list.iter().enumerate() {
                out.push((
                    Some(e.job),
                    format!(
                        "[cpu_sched_debug] {i}: {} (MD: {}; UTS: {})",
                        name(e.job),
                        yes_no(e.missed),
                        yes_no(e.uts)
                    ),
                ));
            }
        }
        for &(j, kept) in &self.walk {
            let text = if kept {
                format!("[cpu_sched_debug] scheduling {}", name(j))
            } else {
                format!("[cpu_sched_debug] all CPUs used, skipping {}", name(j))
            };
            out.push((Some(j), text));
        }
        if self.cpus_idle {
            out.push((
                None,
                format!(
                    "[cpu_sched_debug] using {:.2} out of {ncpus} CPUs",
                    self.cpus_used
                ),
            ));
        }
        out
    }
}

impl TaskChange {
    /// The job it changes.
    pub fn job(&self) -> JobIdx {
        match *self {
            TaskChange::Preempt(j) | TaskChange::Resume(j) | TaskChange::Start(j) => j,
        }
    }

    /// The `[cpu_sched]` or `[task]` line the client logs for it.
    pub fn line(&self, name: &dyn Fn(JobIdx) -> String) -> (Option<JobIdx>, String) {
        let j = self.job();
        let text = match *self {
            TaskChange::Preempt(_) => {
                format!("[cpu_sched] Preempting {} (left in memory)", name(j))
            }
            TaskChange::Resume(_) => format!("[task] Resuming task {}", name(j)),
            TaskChange::Start(_) => format!("[task] Starting task {}", name(j)),
        };
        (Some(j), text)
    }
}

/// Mirrors CLIENT_STATE::enforce_schedule() of 6.10.60 after its debt update
/// (B.11): the last pass's `list` numbered, unfinished time slices flagged
/// and appended, the sort (EDF picks, coprocessor jobs, unfinished slices,
/// number, creation order), the walk over the CPUs and coprocessors, then
/// preemptions (in `task_order`, the active-task order), resumptions and new
/// tasks (walk order). Tasks in `state` are updated; a new task's job is in
/// `changes` as [`TaskChange::Start`] for the caller to append to its order.
///
/// Only the jobs of `list` get their UTS flag cleared: other jobs keep a
/// stale one, which the next preliminary list prints (B.15.3) — and 6.10
/// never initialises it, so a new `RESULT` in the memory of a freed one
/// shows that one's flag (the caller seeds new jobs' flags accordingly).
pub fn enforce_schedule(
    state: &mut HostState,
    flags: &mut [JobFlags],
    list: &[JobIdx],
    task_order: &[JobIdx],
    now: f64,
    params: &LtdParams,
) -> EnforceOutcome {
    let flag = |flags: &[JobFlags], j: JobIdx| flags.get(j).copied().unwrap_or_default();
    let entry = |flags: &[JobFlags], j: JobIdx| {
        let f = flag(flags, j);
        ListEntry {
            job: j,
            missed: f.missed,
            uts: f.uts,
        }
    };
    let mut numbered: Vec<(JobIdx, usize)> = list
        .iter()
        .enumerate()
        .filter(|(_, &j)| j < state.jobs.len())
        .map(|(n, &j)| (j, n))
        .collect();
    let preliminary = numbered.iter().map(|&(j, _)| entry(flags, j)).collect();
    for &(j, _) in &numbered {
        if let Some(f) = flags.get_mut(j) {
            f.uts = false;
        }
    }
    let period = state.cpu_scheduling_period();
    let n = numbered.len();
    for (j, job) in state.jobs.iter().enumerate() {
        let unfinished = job.task.as_ref().is_some_and(|t| {
            t.scheduler_state == SchedulerState::Scheduled
                && !finished_time_slice(t, now, period, params)
        });
        if !unfinished {
            continue;
        }
        if let Some(f) = flags.get_mut(j) {
            f.uts = true;
        }
        if !numbered.iter().any(|&(k, _)| k == j) {
            numbered.push((j, n));
        }
    }
    numbered.sort_by_key(|&(j, number)| {
        let f = flag(flags, j);
        let job = state.jobs.get(j);
        let coproc = job.is_some_and(|job| job.usage.rsc != 0);
        (
            !f.edf,
            !coproc,
            !f.uts,
            number,
            job.map_or(0, |job| job.alloc_seq),
        )
    });
    let final_list = numbered.iter().map(|&(j, _)| entry(flags, j)).collect();
    // The walk.
    let ncpus = state.ninstances(0) as f64;
    let mut coproc_used = vec![0.0; state.n_rsc()];
    let mut cpus_used = 0.0;
    let mut walk = Vec::new();
    let mut keep = Vec::new();
    for &(j, _) in &numbered {
        let Some(job) = state.jobs.get(j) else {
            continue;
        };
        let kept = if job.usage.rsc != 0 {
            let used = coproc_used.get(job.usage.rsc).copied().unwrap_or(0.0);
            let fits = !state.gpu_suspended
                && used + job.usage.coproc_usage <= state.ninstances(job.usage.rsc) as f64 + 1e-9;
            if fits {
                if let Some(u) = coproc_used.get_mut(job.usage.rsc) {
                    *u += job.usage.coproc_usage;
                }
            }
            fits
        } else {
            cpus_used < ncpus
        };
        if kept {
            cpus_used += job.usage.avg_ncpus;
            keep.push(j);
        }
        walk.push((j, kept));
    }
    // Task changes.
    let mut changes = Vec::new();
    for resume in [false, true] {
        for &j in task_order {
            let kept = keep.contains(&j);
            let Some(task) = state.jobs.get_mut(j).and_then(|job| job.task.as_mut()) else {
                continue;
            };
            let scheduled = task.scheduler_state == SchedulerState::Scheduled;
            if !resume && scheduled && !kept {
                task.scheduler_state = SchedulerState::Preempted;
                task.task_state = TaskState::Suspended;
                changes.push(TaskChange::Preempt(j));
            } else if resume && !scheduled && kept {
                task.scheduler_state = SchedulerState::Scheduled;
                task.task_state = TaskState::Executing;
                task.run_interval_start = now;
                changes.push(TaskChange::Resume(j));
            }
        }
    }
    for j in keep {
        let edf = flag(flags, j).edf;
        let Some(job) = state.jobs.get_mut(j) else {
            continue;
        };
        match job.task.as_mut() {
            Some(task) => task.once_ran_edf |= edf,
            None => {
                let mut task = crate::policy::state::Task::new();
                task.scheduler_state = SchedulerState::Scheduled;
                task.task_state = TaskState::Executing;
                task.run_interval_start = now;
                task.checkpoint_wall_time = now;
                task.once_ran_edf = edf;
                job.task = Some(task);
                changes.push(TaskChange::Start(j));
            }
        }
    }
    EnforceOutcome {
        preliminary,
        final_list,
        walk,
        cpus_used,
        cpus_idle: cpus_used < ncpus,
        changes,
    }
}

/// The jobs whose creation numbers (`Job::alloc_seq`) are `seqs`, in that
/// order, skipping jobs no longer present: how a driver keeps the last
/// pass's list while jobs come and go.
pub fn jobs_by_seq(state: &HostState, seqs: &[u64]) -> Vec<JobIdx> {
    seqs.iter()
        .filter_map(|seq| state.jobs.iter().position(|job| job.alloc_seq == *seq))
        .collect()
}

/// The jobs that have a task, in the order their tasks were created (the
/// client's active-task order), from (job, task creation number) pairs.
pub fn task_order(tasks: impl IntoIterator<Item = (JobIdx, Option<u64>)>) -> Vec<JobIdx> {
    let mut order: Vec<(u64, JobIdx)> = tasks
        .into_iter()
        .filter_map(|(j, seq)| seq.map(|s| (s, j)))
        .collect();
    order.sort_unstable();
    order.into_iter().map(|(_, j)| j).collect()
}

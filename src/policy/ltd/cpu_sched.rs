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
    let take = |j: usize,
                reason: PickReason,
                anticipated: &mut Vec<Vec<f64>>,
                ncpus_used: &mut f64,
                coproc_used: &mut Vec<f64>,
                picks: &mut Vec<Pick>| {
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
        picks.push(Pick { job: j, reason });
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
    let earliest =
        |coproc: bool, selected: &Vec<bool>, misses_copy: &Vec<Vec<u32>>| -> Option<usize> {
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
            let Some(j) = earliest(true, &selected, &misses_copy) else {
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
                );
            }
        }
    }
    // CPU EDF.
    while ncpus_used < ncpus {
        let Some(j) = earliest(false, &selected, &misses_copy) else {
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
        );
    }
    ScheduleOutcome {
        picks,
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

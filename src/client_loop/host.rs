//! The simulated host: task progress, job exits and the usage accounting of
//! one step (the emulator's `ACTIVE_TASK_SET::poll`, client/sim.cpp).
//!
//! The CPU may be over-committed by GPU tasks' CPU share; CPU jobs are then
//! slowed by `cpu_scale = (ncpus − cpu_of_gpu_jobs) / cpu_of_cpu_jobs`. GPUs
//! are never over-committed. A task checkpoints continuously, so preemption
//! loses no work. A job exits when its remaining FLOPs reach ≤ 0.

use super::merit::Accounts;
use crate::policy::params::Params;
use crate::policy::state::{HostState, JobIdx, Task, TaskState};

/// Per-job bookkeeping beside the engine's job (same index).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobSide {
    /// Peak FLOPs it consumed (counted as wasted if reported late).
    pub peak_flops: f64,
    /// When it finished computing (0 = not yet).
    pub completed_time: f64,
    /// ltd-6.6 only: the scheduler's flags on the result.
    pub ltd_flags: crate::policy::ltd::cpu_sched::JobFlags,
    /// The 6.10 harness: the job's true CPU time (`final_cpu_time`), when
    /// the world gave it; else its exact FLOPs over its speed.
    pub final_cpu_time: Option<f64>,
    /// The 6.10 harness: CPU seconds left (`cpu_time_left`), once it ran.
    pub cpu_time_left: Option<f64>,
}

/// Instance-seconds per project and resource.
#[derive(Clone, Debug, Default)]
pub struct Usage {
    /// `[project][rsc]`: instance-seconds of the project's jobs of that resource
    /// (CPU: its CPU jobs' CPUs; GPU: its GPU jobs' GPU instances).
    pub secs: Vec<Vec<f64>>,
    /// Per project: CPU-seconds of its GPU jobs (over-committed on top of the CPUs).
    pub gpu_job_cpu_secs: Vec<f64>,
}

/// A task ran `diff` more seconds (checkpointing continuously) and is
/// `fraction` done; it exits when `finished`. Returns `finished`.
fn advance(task: &mut Task, diff: f64, fraction: f64, finished: bool, now: f64) -> bool {
    task.elapsed += diff;
    task.fraction_done = fraction;
    task.fraction_done_elapsed = task.elapsed;
    task.checkpoint_wall_time = now;
    if finished {
        task.task_state = TaskState::Exited;
    }
    finished
}

/// How a task's remaining work is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkModel {
    /// Today's emulator: FLOPs left, at the job's speed (CPU jobs slowed by
    /// over-commitment); fraction done against the estimate.
    Flops,
    /// The 6.10.60 emulator's `ACTIVE_TASK_SET::poll`: CPU seconds left of
    /// the job's true CPU time (`cpu_time_left -= diff`); fraction done is
    /// the CPU time used over that time.
    CpuTime,
}

/// Advances executing tasks by `diff` seconds at `now`; returns the jobs that exited.
///
/// Peak FLOPs are counted as the emulator does (client/sim.cpp
/// `app_peak_flops`): a GPU job's instances at the work-fetch relative speed
/// of its resource, which already counts the resource's instances — on a
/// host with two GPUs a half-GPU job is credited one GPU's peak.
#[allow(clippy::too_many_arguments)]
pub fn progress(
    state: &mut HostState,
    side: &mut [JobSide],
    accounts: &mut Accounts,
    usage: &mut Usage,
    diff: f64,
    now: f64,
    gpu_active: bool,
    params: &Params,
    model: WorkModel,
) -> Vec<JobIdx> {
    let executing = |t: Option<&crate::policy::state::Task>| {
        t.is_some_and(|t| t.task_state == TaskState::Executing)
    };
    let mut cpu_of_cpu = 0.0;
    let mut cpu_of_gpu = 0.0;
    for job in &state.jobs {
        if !executing(job.task.as_ref()) {
            continue;
        }
        if job.usage.rsc != 0 {
            if gpu_active {
                cpu_of_gpu += job.usage.avg_ncpus;
            }
        } else {
            cpu_of_cpu += job.usage.avg_ncpus;
        }
    }
    let ncpus = state.n_usable_cpus() as f64;
    // As sim.cpp computes it: (n − gpu) / ((cpu + gpu) − gpu), whose last
    // bits can differ from (n − gpu) / cpu and decide finish-time ties.
    let cpu_usage = cpu_of_cpu + cpu_of_gpu;
    let cpu_scale = if cpu_usage > ncpus && cpu_of_cpu > 0.0 {
        ((ncpus - cpu_of_gpu) / (cpu_usage - cpu_of_gpu)).max(0.0)
    } else {
        1.0
    };
    let speeds: Vec<f64> = (0..state.n_rsc())
        .map(|r| state.relative_speed(r, params))
        .collect();
    let f = state.host.p_fpops;
    let mut ran = vec![false; state.projects.len()];
    let mut exits = Vec::new();
    for (j, job) in state.jobs.iter_mut().enumerate() {
        if !executing(job.task.as_ref()) {
            continue;
        }
        let gpu = job.usage.rsc != 0;
        if gpu && !gpu_active {
            continue;
        }
        let (left, fraction) = match model {
            WorkModel::Flops => {
                let flops = job.usage.flops * if gpu { 1.0 } else { cpu_scale };
                let left = job.exact_flops_remaining.unwrap_or(job.rsc_fpops_est) - diff * flops;
                job.exact_flops_remaining = Some(left);
                let fraction = if job.rsc_fpops_est > 0.0 {
                    (1.0 - left / job.rsc_fpops_est).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                (left, fraction)
            }
            WorkModel::CpuTime => {
                let Some(s) = side.get_mut(j) else {
                    continue;
                };
                let total = s.final_cpu_time.unwrap_or_else(|| {
                    let speed = if job.usage.flops > 0.0 {
                        job.usage.flops
                    } else {
                        f
                    };
                    job.exact_flops_remaining.unwrap_or(job.rsc_fpops_est) / speed
                });
                s.final_cpu_time = Some(total);
                let left = s.cpu_time_left.unwrap_or(total) - diff;
                s.cpu_time_left = Some(left);
                let fraction = if total > 0.0 {
                    ((total - left) / total).min(1.0)
                } else {
                    1.0
                };
                (left, fraction)
            }
        };
        if let Some(task) = job.task.as_mut() {
            if advance(task, diff, fraction, left <= 0.0, now) {
                job.ready_to_report = true;
                if let Some(s) = side.get_mut(j) {
                    s.completed_time = now;
                }
                exits.push(j);
            }
        }
        let mut peak = job.usage.avg_ncpus * cpu_scale;
        if gpu {
            peak += job.usage.coproc_usage * speeds.get(job.usage.rsc).copied().unwrap_or(0.0);
        }
        let pf = diff * peak * f;
        if let Some(x) = accounts.flops_used.get_mut(job.project) {
            *x += pf;
        }
        if let Some(s) = side.get_mut(j) {
            s.peak_flops += pf;
        }
        if let Some(row) = usage.secs.get_mut(job.project) {
            if gpu {
                if let Some(cell) = row.get_mut(job.usage.rsc) {
                    *cell += diff * job.usage.coproc_usage;
                }
                if let Some(cell) = usage.gpu_job_cpu_secs.get_mut(job.project) {
                    *cell += diff * job.usage.avg_ncpus;
                }
            } else if let Some(cell) = row.get_mut(0) {
                *cell += diff * job.usage.avg_ncpus;
            }
        }
        if let Some(r) = ran.get_mut(job.project) {
            *r = true;
        }
    }
    for (p, ran) in ran.iter().enumerate() {
        if *ran {
            accounts.idle_time[p] = 0.0;
        } else {
            accounts.idle_time[p] += diff;
            accounts.idle_time_sumsq[p] += diff * accounts.idle_time[p] * accounts.idle_time[p];
        }
    }
    accounts.active_time += diff;
    if gpu_active {
        accounts.gpu_active_time += diff;
    }
    exits
}

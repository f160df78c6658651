//! The round-robin simulation of 6.10.60 (`CLIENT_STATE::rr_simulation` in
//! client/rr_sim.cpp; spec B.8): per-resource shortfall, idle instances,
//! saturated and busy time, per-project runnable shares and deadline misses.
//!
//! Jobs enter as [`SimJob`]s (built by [`sim_jobs`] from the host state, or
//! by hand in tests), so the simulation itself depends only on numbers.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use std::fmt;

use super::{
    estimated_time_remaining, job_nearly_runnable, overall_cpu_frac, work_buf_min, work_buf_total,
    DurEstimate,
};
use crate::policy::state::{HostState, JobIdx, ProjectIdx, RscIdx};

/// A job as the simulation sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct SimJob {
    /// The job in the host state.
    pub job: JobIdx,
    /// Its project.
    pub project: ProjectIdx,
    /// Its resource: 0 for CPU jobs, the coprocessor otherwise.
    pub rsc: RscIdx,
    /// CPUs it uses (also for GPU jobs).
    pub avg_ncpus: f64,
    /// Coprocessor instances it uses (0 for CPU jobs).
    pub coproc_usage: f64,
    /// The app version's FLOPS.
    pub flops: f64,
    /// Estimated FLOPs left (`estimated_flops_remaining`).
    pub flops_left: f64,
    /// Estimated remaining runtime (feeds the busy-time estimator).
    pub remaining_secs: f64,
    /// `report_deadline − work_buf_min − scheduling_period`.
    pub computation_deadline: f64,
    /// The job's task does not fit in RAM now (a miss is then not counted).
    pub too_large: bool,
}

/// Builds the simulation's job list from the host state in result order:
/// nearly runnable, no stalled download, CPU-intensive project (B.8), with
/// the B.15.1 remaining-time estimate. Also returns the `dur:` estimates.
/// Mirrors the job loop at the top of CLIENT_STATE::rr_simulation() of 6.10.60.
pub fn sim_jobs(state: &HostState, now: f64) -> (Vec<SimJob>, Vec<DurEstimate>) {
    let mut jobs = Vec::new();
    let mut durs = Vec::new();
    let period = state.cpu_scheduling_period();
    for (job_idx, job) in state.jobs.iter().enumerate() {
        let Some(project) = state.projects.get(job.project) else {
            continue;
        };
        if project.non_cpu_intensive
            || !job_nearly_runnable(state, job, now)
            || job.download_stalled
        {
            continue;
        }
        let (remaining, dur) = estimated_time_remaining(state, job_idx);
        if let Some(dur) = dur {
            durs.push(dur);
        }
        let flops = if job.usage.flops > 0.0 {
            job.usage.flops
        } else {
            state.host.p_fpops
        };
        jobs.push(SimJob {
            job: job_idx,
            project: job.project,
            rsc: job.usage.rsc,
            avg_ncpus: job.usage.avg_ncpus,
            coproc_usage: if job.usage.rsc == 0 {
                0.0
            } else {
                job.usage.coproc_usage
            },
            flops,
            flops_left: remaining * flops,
            remaining_secs: remaining,
            computation_deadline: job.report_deadline - (work_buf_min(state) + period),
            too_large: false,
        });
    }
    (jobs, durs)
}

/// Per-resource results (`RSC_WORK_FETCH`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RscSim {
    /// Instances of the resource.
    pub ninstances: usize,
    /// Idle instance-seconds before `now + work_buf_total`.
    pub shortfall: f64,
    /// Idle instances after the initial activation.
    pub nidle_now: f64,
    /// End of the last interval during which every instance was in use.
    pub saturated_time: f64,
    /// Busy time of the least busy instance (deadline-missing jobs only).
    pub busy_time: f64,
    /// Instances used by deadline-missing jobs.
    pub deadline_missed_instances: f64,
    /// Total share of projects with jobs for the resource (`RS … runnable`).
    pub total_runnable_share: f64,
}

/// Per-(project, resource) results (`RSC_PROJECT_WORK_FETCH`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectRscSim {
    /// The project had a job for the resource in the simulation.
    pub has_runnable_jobs: bool,
    /// Instances of all its included jobs, running and queued.
    pub nused_total: f64,
    /// Share over the projects with jobs for the resource.
    pub runnable_share: f64,
    /// Simulated deadline misses of its jobs for the resource.
    pub deadlines_missed: u32,
}

/// One `[rr_sim]` event.
#[derive(Clone, Debug, PartialEq)]
pub enum SimEvent {
    /// `<t>: starting <job> (<usage>)`.
    Start {
        /// Simulated time since now.
        at: f64,
        /// The job.
        job: JobIdx,
        /// CPUs.
        avg_ncpus: f64,
    },
    /// `<t>: <job> finishes after <d> (<flops>G/<rate>G)`.
    Finish {
        /// Simulated time since now at the start of the step.
        at: f64,
        /// The job.
        job: JobIdx,
        /// Time to its finish.
        delay: f64,
        /// FLOPs left.
        flops_left: f64,
        /// Simulated FLOPS.
        flops: f64,
    },
    /// `<job> misses deadline by <x>`.
    Miss {
        /// The job.
        job: JobIdx,
        /// By how much.
        by: f64,
    },
}

impl SimEvent {
    /// The job the event is about.
    pub fn job(&self) -> JobIdx {
        match *self {
            SimEvent::Start { job, .. }
            | SimEvent::Finish { job, .. }
            | SimEvent::Miss { job, .. } => job,
        }
    }

    /// The `[rr_sim]` line the client logs, with `name` the job's name.
    pub fn line(&self, name: &str) -> String {
        match *self {
            SimEvent::Start { at, avg_ncpus, .. } => {
                format!("[rr_sim] {at:.2}: starting {name} ({avg_ncpus:.2} CPU)")
            }
            SimEvent::Finish {
                at,
                delay,
                flops_left,
                flops,
                ..
            } => format!(
                "[rr_sim] {at:.2}: {name} finishes after {delay:.2} ({:.2}G/{:.2}G)",
                flops_left / 1e9,
                flops / 1e9
            ),
            SimEvent::Miss { by, .. } => format!("[rr_sim] {name} misses deadline by {by:.2}"),
        }
    }
}

impl fmt::Display for SimEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line(&format!("job#{}", self.job())))
    }
}

/// What one simulation produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RrSimOutcome {
    /// Per resource, in resource order.
    pub rsc: Vec<RscSim>,
    /// `[project][rsc]`.
    pub project_rsc: Vec<Vec<ProjectRscSim>>,
    /// Per project: some job included (`pwf.has_runnable_jobs`).
    pub project_has_jobs: Vec<bool>,
    /// Jobs flagged as missing their deadline, in event order.
    pub missed: Vec<JobIdx>,
    /// The `[rr_sim]` events.
    pub events: Vec<SimEvent>,
}

impl RrSimOutcome {
    /// The per-(project, resource) result, default if absent.
    pub fn project_rsc(&self, project: ProjectIdx, rsc: RscIdx) -> ProjectRscSim {
        self.project_rsc
            .get(project)
            .and_then(|row| row.get(rsc))
            .cloned()
            .unwrap_or_default()
    }

    /// The per-resource result, default if absent.
    pub fn rsc(&self, rsc: RscIdx) -> RscSim {
        self.rsc.get(rsc).cloned().unwrap_or_default()
    }

    /// `has_runnable_jobs` as a `[project][rsc]` table, for debt eligibility.
    pub fn has_runnable_jobs(&self) -> Vec<Vec<bool>> {
        self.project_rsc
            .iter()
            .map(|row| row.iter().map(|c| c.has_runnable_jobs).collect())
            .collect()
    }
}

struct Busy {
    busy: Vec<f64>,
}

impl Busy {
    fn update(&mut self, dur: f64, nused: f64) {
        if nused < 1.0 || self.busy.is_empty() {
            return;
        }
        let mut ibest = 0;
        let mut best = self.busy.first().copied().unwrap_or(0.0);
        for (i, b) in self.busy.iter().enumerate().skip(1) {
            if *b < best {
                best = *b;
                ibest = i;
            }
        }
        let n = self.busy.len();
        for k in 0..(nused as usize) {
            if let Some(b) = self.busy.get_mut((ibest + k) % n) {
                *b += dur;
            }
        }
    }

    fn get(&self) -> f64 {
        if self.busy.is_empty() {
            return 0.0;
        }
        self.busy.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

fn usage(job: &SimJob, rsc: RscIdx) -> f64 {
    if rsc == 0 {
        job.avg_ncpus
    } else if job.rsc == rsc {
        job.coproc_usage
    } else {
        0.0
    }
}

/// Mirrors CLIENT_STATE::rr_simulation() of 6.10.60 (client/rr_sim.cpp; B.8).
pub fn rr_simulation(state: &HostState, jobs: &[SimJob], now: f64) -> RrSimOutcome {
    let n_rsc = state.n_rsc();
    let n_projects = state.projects.len();
    let ncpus = state.ninstances(0) as f64;
    let ocf = overall_cpu_frac(state);
    let mut out = RrSimOutcome {
        rsc: (0..n_rsc)
            .map(|r| RscSim {
                ninstances: state.ninstances(r),
                ..RscSim::default()
            })
            .collect(),
        project_rsc: vec![vec![ProjectRscSim::default(); n_rsc]; n_projects],
        project_has_jobs: vec![false; n_projects],
        missed: Vec::new(),
        events: Vec::new(),
    };
    let mut busy: Vec<Busy> = (0..n_rsc)
        .map(|r| Busy {
            busy: vec![0.0; state.ninstances(r)],
        })
        .collect();
    let mut sim_nused = vec![0.0; n_rsc];
    let mut p_nused = vec![vec![0.0; n_rsc]; n_projects];
    let mut flops_left: Vec<f64> = jobs.iter().map(|j| j.flops_left).collect();
    let mut active: Vec<usize> = Vec::new();
    let mut p_pending: Vec<Vec<usize>> = vec![Vec::new(); n_projects];
    let mut rsc_pending: Vec<Vec<usize>> = vec![Vec::new(); n_rsc];

    let activate = |i: usize,
                    at: f64,
                    active: &mut Vec<usize>,
                    sim_nused: &mut Vec<f64>,
                    p_nused: &mut Vec<Vec<f64>>,
                    events: &mut Vec<SimEvent>| {
        let Some(job) = jobs.get(i) else { return };
        active.push(i);
        events.push(SimEvent::Start {
            at,
            job: job.job,
            avg_ncpus: job.avg_ncpus,
        });
        for r in 0..n_rsc {
            let u = usage(job, r);
            if let Some(x) = sim_nused.get_mut(r) {
                *x += u;
            }
            if let Some(x) = p_nused.get_mut(job.project).and_then(|row| row.get_mut(r)) {
                *x += u;
            }
        }
    };

    for (i, job) in jobs.iter().enumerate() {
        let p = job.project;
        if let Some(flag) = out.project_has_jobs.get_mut(p) {
            *flag = true;
        }
        if let Some(row) = out.project_rsc.get_mut(p) {
            if let Some(cpu) = row.get_mut(0) {
                cpu.nused_total += job.avg_ncpus;
            }
            if job.rsc != 0 {
                if let Some(cell) = row.get_mut(job.rsc) {
                    cell.nused_total += job.coproc_usage;
                    cell.has_runnable_jobs = true;
                }
            } else if let Some(cpu) = row.get_mut(0) {
                cpu.has_runnable_jobs = true;
            }
        }
        if job.rsc != 0 {
            let used = sim_nused.get(job.rsc).copied().unwrap_or(0.0);
            if used < state.ninstances(job.rsc) as f64 {
                activate(
                    i,
                    0.0,
                    &mut active,
                    &mut sim_nused,
                    &mut p_nused,
                    &mut out.events,
                );
            } else if let Some(q) = rsc_pending.get_mut(job.rsc) {
                q.push(i);
            }
        } else {
            let used = p_nused
                .get(p)
                .and_then(|row| row.first())
                .copied()
                .unwrap_or(0.0);
            if used < ncpus {
                activate(
                    i,
                    0.0,
                    &mut active,
                    &mut sim_nused,
                    &mut p_nused,
                    &mut out.events,
                );
            } else if let Some(q) = p_pending.get_mut(p) {
                q.push(i);
            }
        }
    }
    for (r, rsim) in out.rsc.iter_mut().enumerate() {
        rsim.nidle_now =
            (rsim.ninstances as f64 - sim_nused.get(r).copied().unwrap_or(0.0)).max(0.0);
    }
    // WORK_FETCH::compute_shares(): runnable shares.
    for r in 0..n_rsc {
        let total: f64 = (0..n_projects)
            .filter(|&p| out.project_rsc(p, r).has_runnable_jobs)
            .filter_map(|p| state.projects.get(p))
            .filter(|pr| !pr.non_cpu_intensive)
            .map(|pr| pr.resource_share)
            .fold(0.0, |acc, x| acc + x);
        if let Some(rsim) = out.rsc.get_mut(r) {
            rsim.total_runnable_share = total;
        }
        for p in 0..n_projects {
            let share = state.projects.get(p).map_or(0.0, |pr| pr.resource_share);
            if let Some(cell) = out.project_rsc.get_mut(p).and_then(|row| row.get_mut(r)) {
                if cell.has_runnable_jobs && total != 0.0 {
                    cell.runnable_share = share / total;
                }
            }
        }
    }

    let buf_end = now + work_buf_total(state);
    let mut sim_now = now;
    while !active.is_empty() {
        // set_rrsim_flops() for every active job, then the first finisher.
        let mut best: Option<(usize, usize, f64, f64)> = None; // (pos, job, delay, rate)
        let mut rates = Vec::with_capacity(active.len());
        for (pos, &i) in active.iter().enumerate() {
            let Some(job) = jobs.get(i) else { continue };
            let rate = if job.rsc != 0 {
                job.flops * ocf
            } else {
                let used = p_nused
                    .get(job.project)
                    .and_then(|row| row.first())
                    .copied()
                    .unwrap_or(0.0);
                let x = if used > ncpus { ncpus / used } else { 1.0 };
                let r1 = x * job.avg_ncpus;
                let mut share_cpus = out.project_rsc(job.project, 0).runnable_share * ncpus;
                if share_cpus == 0.0 {
                    share_cpus = ncpus;
                }
                let r2 = if used > share_cpus {
                    r1 * share_cpus / used
                } else {
                    r1
                };
                r2 * ocf * job.flops
            };
            rates.push(rate);
            let left = flops_left.get(i).copied().unwrap_or(0.0);
            let delay = if rate > 0.0 {
                left / rate
            } else {
                f64::INFINITY
            };
            if best.is_none_or(|(_, _, d, _)| delay < d) {
                best = Some((pos, i, delay, rate));
            }
        }
        let Some((best_pos, best_i, delay, rate)) = best else {
            break;
        };
        let Some(best_job) = jobs.get(best_i) else {
            break;
        };
        if !delay.is_finite() {
            break;
        }
        out.events.push(SimEvent::Finish {
            at: sim_now - now,
            job: best_job.job,
            delay,
            flops_left: flops_left.get(best_i).copied().unwrap_or(0.0),
            flops: rate,
        });
        let end_time = sim_now + delay;
        let diff = end_time - best_job.computation_deadline;
        let mut missed = false;
        if diff > 0.0 && !best_job.too_large {
            missed = true;
            out.missed.push(best_job.job);
            out.events.push(SimEvent::Miss {
                job: best_job.job,
                by: diff,
            });
            if let Some(cell) = out
                .project_rsc
                .get_mut(best_job.project)
                .and_then(|row| row.get_mut(best_job.rsc))
            {
                cell.deadlines_missed += 1;
            }
            if let Some(rsim) = out.rsc.get_mut(best_job.rsc) {
                rsim.deadline_missed_instances += usage(best_job, best_job.rsc);
            }
        }
        for (r, rsim) in out.rsc.iter_mut().enumerate() {
            let idle = rsim.ninstances as f64 - sim_nused.get(r).copied().unwrap_or(0.0);
            if idle < 1e-6 {
                rsim.saturated_time = end_time - now;
            }
        }
        if missed {
            let dur = best_job.remaining_secs / ocf;
            if let Some(b) = busy.get_mut(0) {
                b.update(dur, best_job.avg_ncpus);
            }
            if best_job.rsc != 0 {
                if let Some(b) = busy.get_mut(best_job.rsc) {
                    b.update(dur, best_job.coproc_usage);
                }
            }
        }
        if sim_now < buf_end {
            let d_time = end_time.min(buf_end) - sim_now;
            for (r, rsim) in out.rsc.iter_mut().enumerate() {
                let idle = rsim.ninstances as f64 - sim_nused.get(r).copied().unwrap_or(0.0);
                if idle > 1e-6 {
                    rsim.shortfall += idle * d_time;
                }
            }
        }
        // remove_active(): the others lose rate × delay.
        for (pos, &i) in active.iter().enumerate() {
            if pos == best_pos {
                continue;
            }
            let r = rates.get(pos).copied().unwrap_or(0.0);
            if let Some(left) = flops_left.get_mut(i) {
                *left = (*left - r * delay).max(0.0);
            }
        }
        active.remove(best_pos);
        for r in 0..n_rsc {
            let u = usage(best_job, r);
            if let Some(x) = sim_nused.get_mut(r) {
                *x -= u;
            }
            if let Some(x) = p_nused
                .get_mut(best_job.project)
                .and_then(|row| row.get_mut(r))
            {
                *x -= u;
            }
        }
        sim_now = end_time;
        let at = sim_now - now;
        if best_job.rsc != 0 {
            let count = state.ninstances(best_job.rsc) as f64;
            loop {
                if sim_nused.get(best_job.rsc).copied().unwrap_or(0.0) >= count {
                    break;
                }
                let next = rsc_pending.get_mut(best_job.rsc).and_then(|q| {
                    if q.is_empty() {
                        None
                    } else {
                        Some(q.remove(0))
                    }
                });
                let Some(next) = next else { break };
                activate(
                    next,
                    at,
                    &mut active,
                    &mut sim_nused,
                    &mut p_nused,
                    &mut out.events,
                );
            }
        } else {
            loop {
                let used = p_nused
                    .get(best_job.project)
                    .and_then(|row| row.first())
                    .copied()
                    .unwrap_or(0.0);
                if used >= ncpus {
                    break;
                }
                let next = p_pending.get_mut(best_job.project).and_then(|q| {
                    if q.is_empty() {
                        None
                    } else {
                        Some(q.remove(0))
                    }
                });
                let Some(next) = next else { break };
                activate(
                    next,
                    at,
                    &mut active,
                    &mut sim_nused,
                    &mut p_nused,
                    &mut out.events,
                );
            }
        }
    }
    if sim_now < buf_end {
        let d_time = buf_end - sim_now;
        for (r, rsim) in out.rsc.iter_mut().enumerate() {
            let idle = rsim.ninstances as f64 - sim_nused.get(r).copied().unwrap_or(0.0);
            if idle > 1e-6 {
                rsim.shortfall += idle * d_time;
            }
        }
    }
    for (r, rsim) in out.rsc.iter_mut().enumerate() {
        rsim.busy_time = busy.get(r).map_or(0.0, Busy::get);
    }
    out
}

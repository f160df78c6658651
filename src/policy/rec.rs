//! Recent Estimated Credit (REC) accounting and project scheduling priority
//! (spec §5).
//!
//! Owns the averaging rule, the per-interval REC update (`adjust_rec`), the
//! priority initialisation over the eligible project set, the "as if it ran"
//! bump and the priority formula. The queue adjustment for work fetch (§5.6)
//! lives in [`super::work_fetch`] next to the rest of `WORK_FETCH::setup`.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use super::params::Params;
use super::state::{HostState, JobIdx, Project, ProjectIdx, SchedulerState};
use serde::Serialize;

/// Mirrors update_average() in lib/util.cpp (§5.3): folds `work` done over
/// `[work_start, now]` into the exponentially decaying average `avg` (per
/// day) last updated at `avg_time`, with half-life `half_life` seconds.
pub fn update_average(
    now: f64,
    work_start: f64,
    work: f64,
    half_life: f64,
    avg: &mut f64,
    avg_time: &mut f64,
) {
    if *avg_time != 0.0 {
        let diff = (now - *avg_time).max(0.0);
        let weight = (-diff * std::f64::consts::LN_2 / half_life).exp();
        *avg *= weight;
        if 1.0 - weight > 1e-6 {
            *avg += (1.0 - weight) * (work / (diff / 86400.0));
        } else {
            *avg += std::f64::consts::LN_2 * work * 86400.0 / half_life;
        }
    } else if work != 0.0 {
        let days = (now - work_start) / 86400.0;
        if days > 0.0 {
            *avg = work / days;
        }
    }
    *avg_time = now;
}

/// One project's REC update, as printed by `[prio] recent est credit: ...` (§5.2).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecLine {
    /// The project.
    pub project: ProjectIdx,
    /// Credit `x` of the interval.
    pub credit: f64,
    /// Interval length `now − rec_interval_start`.
    pub secs: f64,
    /// REC before.
    pub old: f64,
    /// REC after.
    pub new: f64,
}

/// What `adjust_rec` did (§5.1).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum RecAdjustment {
    /// The interval was negative or longer than twice the adjust period and was discarded.
    Discarded {
        /// The interval length.
        elapsed: f64,
        /// The adjust period it was compared with.
        period: f64,
    },
    /// The interval was shorter than 1 s; nothing happened.
    TooShort,
    /// REC was updated for every project, in project order.
    Updated(Vec<RecLine>),
}

/// The CPU throttle `current_cpu_usage_limit() / 100` (§5.2).
fn throttle(state: &HostState) -> f64 {
    let mut limit = state.prefs.cpu_usage_limit;
    if !state.user_active && state.prefs.niu_cpu_usage_limit >= 0.0 {
        limit = state.prefs.niu_cpu_usage_limit;
    }
    if limit.is_nan() || limit <= 0.005 || limit >= 99.99 {
        limit = 100.0;
    }
    limit / 100.0
}

/// Mirrors CLIENT_STATE::adjust_rec() in client/cpu_sched.cpp with
/// update_rec() (§5.1, §5.2). `first_exited` is the first task that exited
/// in this pass (`app_finished` credits its last interval once more before
/// this call, §5.1 "job exit"); pass `None` for a plain scheduling pass.
pub fn adjust_rec(
    state: &mut HostState,
    now: f64,
    first_exited: Option<JobIdx>,
    params: &Params,
) -> RecAdjustment {
    let elapsed = now - state.rec_interval_start;
    if elapsed > 2.0 * params.rec_adjust_period || elapsed < 0.0 || elapsed.is_nan() {
        state.rec_interval_start = now;
        return RecAdjustment::Discarded {
            elapsed,
            period: params.rec_adjust_period,
        };
    }
    if elapsed < 1.0 {
        return RecAdjustment::TooShort;
    }
    let n_rsc = state.n_rsc();
    let mut secs = vec![vec![0.0; n_rsc]; state.projects.len()];
    let credit_job = |secs: &mut Vec<Vec<f64>>, job_idx: JobIdx| {
        let Some(job) = state.jobs.get(job_idx) else {
            return;
        };
        let Some(row) = secs.get_mut(job.project) else {
            return;
        };
        if let Some(cell) = row.get_mut(0) {
            *cell += elapsed * job.usage.avg_ncpus;
        }
        if job.usage.rsc != 0 {
            if let Some(cell) = row.get_mut(job.usage.rsc) {
                *cell += elapsed * job.usage.coproc_usage;
            }
        }
    };
    if let Some(job_idx) = first_exited {
        credit_job(&mut secs, job_idx);
    }
    for job_idx in 0..state.jobs.len() {
        let Some(job) = state.jobs.get(job_idx) else {
            continue;
        };
        let scheduled = job
            .task
            .as_ref()
            .is_some_and(|task| task.scheduler_state == SchedulerState::Scheduled);
        let nci = state
            .projects
            .get(job.project)
            .is_some_and(|p| p.non_cpu_intensive)
            || state
                .projects
                .get(job.project)
                .and_then(|p| p.app(&job.app))
                .is_some_and(|app| app.non_cpu_intensive);
        if scheduled && !nci {
            credit_job(&mut secs, job_idx);
        }
    }
    let f = state.host.p_fpops;
    let on_frac = throttle(state);
    let half_life = params.rec_half_life_secs(state.config.rec_half_life_days);
    let speeds: Vec<f64> = (0..n_rsc)
        .map(|rsc| state.relative_speed(rsc, params))
        .collect();
    let start = state.rec_interval_start;
    let mut lines = Vec::with_capacity(state.projects.len());
    for (project_idx, (project, row)) in state.projects.iter_mut().zip(&secs).enumerate() {
        let flops: f64 = row
            .iter()
            .zip(&speeds)
            .map(|(s, speed)| s * on_frac * f * speed)
            .sum();
        let credit = flops * params.cobblestone_scale;
        let old = project.rec;
        if project.rec_time == 0.0 {
            project.rec_time = start;
        }
        update_average(
            now,
            start,
            credit,
            half_life,
            &mut project.rec,
            &mut project.rec_time,
        );
        lines.push(RecLine {
            project: project_idx,
            credit,
            secs: elapsed,
            old,
            new: project.rec,
        });
    }
    state.rec_interval_start = now;
    RecAdjustment::Updated(lines)
}

/// Which projects form the eligible set of a priority initialisation (§5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PriorityMode {
    /// Job scheduling and the simulation: projects with a runnable job.
    Runnable,
    /// Work fetch: projects that can request work.
    Fetch,
}

/// One `[prio] <prio> rsf <share_frac> rt <REC_tmp> rs <RECSUM>` line (§5.4).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PrioLine {
    /// The project.
    pub project: ProjectIdx,
    /// Its priority.
    pub priority: f64,
    /// Its share fraction.
    pub share_frac: f64,
    /// Its `REC_tmp`.
    pub rec_temp: f64,
    /// The RECSUM of the eligible set.
    pub rec_sum: f64,
    /// The project is in the eligible set (its `REC_tmp` was set from its
    /// REC here; another's is what an earlier pass left).
    pub counted: bool,
}

/// Result of a priority initialisation: the sums and the printed lines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PriorityInit {
    /// Σ share over the eligible set.
    pub rs_sum: f64,
    /// Σ REC over the eligible set (1 if 0).
    pub rec_sum: f64,
    /// One line per project that got a priority (not NCI, not suspended, RS > 0).
    pub lines: Vec<PrioLine>,
}

/// Mirrors PROJECT::compute_sched_priority() in client/cpu_sched.cpp (§5.4).
pub fn compute_sched_priority(project: &mut Project, rec_sum: f64, params: &Params) {
    let rec_frac = project.prio.rec_temp / rec_sum;
    project.prio.sched_priority = if project.resource_share == 0.0 {
        -params.zero_share_priority_offset - rec_frac
    } else if project.prio.share_frac > 0.0 {
        -rec_frac / project.prio.share_frac
    } else {
        -rec_frac
    };
}

/// Mirrors project_priority_init() in client/cpu_sched.cpp (§5.4). Sets
/// every project's `prio` and the state's `rec_sum`.
pub fn project_priority_init(
    state: &mut HostState,
    mode: PriorityMode,
    now: f64,
    params: &Params,
) -> PriorityInit {
    let eligible: Vec<bool> = (0..state.projects.len())
        .map(|idx| {
            let Some(project) = state.projects.get(idx) else {
                return false;
            };
            !project.non_cpu_intensive
                && match mode {
                    PriorityMode::Fetch => project.can_request_work(now),
                    PriorityMode::Runnable => state.project_runnable(idx, None, now),
                }
        })
        .collect();
    let mut rs_sum = 0.0;
    let mut rec_sum = 0.0;
    for (project, &is_eligible) in state.projects.iter_mut().zip(&eligible) {
        if is_eligible {
            project.prio.rec_temp = project.rec;
            rs_sum += project.resource_share;
            rec_sum += project.prio.rec_temp;
        }
    }
    if rec_sum == 0.0 || !rec_sum.is_finite() {
        rec_sum = 1.0;
    }
    state.rec_sum = rec_sum;
    let mut lines = Vec::new();
    for (idx, project) in state.projects.iter_mut().enumerate() {
        if project.non_cpu_intensive || project.suspended_via_gui || rs_sum == 0.0 {
            project.prio.share_frac = 0.0;
            project.prio.sched_priority = 0.0;
        } else {
            project.prio.share_frac = project.resource_share / rs_sum;
            compute_sched_priority(project, rec_sum, params);
            lines.push(PrioLine {
                project: idx,
                priority: project.prio.sched_priority,
                share_frac: project.prio.share_frac,
                rec_temp: project.prio.rec_temp,
                rec_sum,
                counted: eligible[idx],
            });
        }
    }
    PriorityInit {
        rs_sum,
        rec_sum,
        lines,
    }
}

/// Mirrors adjust_rec_sched() in client/cpu_sched.cpp (§5.5): bumps the
/// job's project's `REC_tmp` as if the job ran for `rec_bump_secs` (one hour).
pub fn adjust_rec_sched(state: &mut HostState, job: JobIdx, params: &Params) {
    let total_peak = state.total_peak_flops(params);
    adjust_rec_sched_of(state, job, params, total_peak);
}

/// [`adjust_rec_sched`] with the host's total peak FLOPS given: a pass that
/// bumps many jobs on the same host reads it once.
pub fn adjust_rec_sched_of(state: &mut HostState, job: JobIdx, params: &Params, total_peak: f64) {
    let Some(job) = state.jobs.get(job) else {
        return;
    };
    let peak = state.job_peak_flops(job, params);
    let rec_sum = state.rec_sum;
    let project_idx = job.project;
    if let Some(project) = state.projects.get_mut(project_idx) {
        if total_peak > 0.0 {
            // The client's operation order, `peak/total * rec_sum/24`: a
            // different order rounds differently, and near-equal
            // priorities are then picked in another order.
            project.prio.rec_temp += peak / total_peak * rec_sum / (86400.0 / params.rec_bump_secs);
        }
        compute_sched_priority(project, rec_sum, params);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::state::tests::seed_host;
    use crate::policy::state::{Job, ResourceUsage, Task};
    use proptest::prelude::*;

    /// The seed_cpu_gpu_two_projects state at 01:05:00, with A_0 (0.2 CPU + 1 GPU) scheduled.
    /// The emulator's accounting period: its 300-s time step (§5.1).
    fn emulator_params() -> Params {
        Params {
            rec_adjust_period: 300.0,
            ..Params::default()
        }
    }

    fn seed_state() -> HostState {
        let mut state = HostState::new(seed_host());
        state.projects.push(Project::new("A", 100.0, 2));
        state.projects.push(Project::new("B", 100.0, 2));
        let mut job = Job::new(
            "A_0",
            0,
            "a_gpu",
            ResourceUsage::coproc(0.2, 1, 1.0, 40e9),
            288e12,
        );
        let mut task = Task::new();
        task.scheduler_state = SchedulerState::Scheduled;
        job.task = Some(task);
        state.jobs.push(job);
        state.rec_interval_start = 3600.0;
        state
    }

    /// §5.1–§5.3, seed_cpu_gpu_two_projects 01:05:00: secs CPU 0.2 × 300 = 60, GPU 300;
    /// FLOPs 60 × 5e9 × 1 + 300 × 5e9 × 8 = 1.23e13; credit × 200/86400e9 = 28.472222;
    /// rec_time 0 → 3600; w = exp(−300 ln2 / 864000); REC = (1 − w) × 28.472222 / (300/86400)
    /// = 1.973307 (log: `0.000000 + 1.973307 ->1.973307`). Then 01:10:00: 3.946138.
    #[test]
    fn rec_update_reproduces_seed_log() {
        let mut state = seed_state();
        let params = emulator_params();
        let RecAdjustment::Updated(lines) = adjust_rec(&mut state, 3900.0, None, &params) else {
            panic!()
        };
        assert!((lines[0].credit - 28.472222).abs() < 1e-6);
        assert!((lines[0].new - 1.973307).abs() < 1e-6);
        assert_eq!(lines[1].new, 0.0);
        assert_eq!(state.projects[1].rec_time, 3900.0);
        adjust_rec(&mut state, 4200.0, None, &params);
        assert!((state.projects[0].rec - 3.946138).abs() < 1e-6);
    }

    /// §5.1 job exit: the first exited task is credited twice (A at 03:00:00: 56.94 = 2 × 28.47).
    #[test]
    fn first_exited_task_is_credited_twice() {
        let mut state = seed_state();
        let RecAdjustment::Updated(lines) =
            adjust_rec(&mut state, 3900.0, Some(0), &emulator_params())
        else {
            panic!()
        };
        assert!((lines[0].credit - 56.944444).abs() < 1e-6);
    }

    /// §5.1 step 2: 3600 s > 2 × 300 discards (emulator's first pass); < 1 s does nothing.
    #[test]
    fn long_and_short_intervals() {
        let mut state = seed_state();
        state.rec_interval_start = 0.0;
        let params = Params {
            rec_adjust_period: 300.0,
            ..Params::default()
        };
        assert_eq!(
            adjust_rec(&mut state, 3600.0, None, &params),
            RecAdjustment::Discarded {
                elapsed: 3600.0,
                period: 300.0
            }
        );
        assert_eq!(state.rec_interval_start, 3600.0);
        assert_eq!(
            adjust_rec(&mut state, 3600.5, None, &params),
            RecAdjustment::TooShort
        );
        assert_eq!(state.projects[0].rec, 0.0);
    }

    /// §5.2: a 50 % CPU throttle halves credit, GPU included: 28.472222 / 2 = 14.236111.
    #[test]
    fn throttle_scales_gpu_credit_too() {
        let mut state = seed_state();
        state.user_active = true;
        state.prefs.cpu_usage_limit = 50.0;
        let RecAdjustment::Updated(lines) =
            adjust_rec(&mut state, 3900.0, None, &emulator_params())
        else {
            panic!()
        };
        assert!((lines[0].credit - 14.236111).abs() < 1e-6);
    }

    /// §5.4: runnable mode at 01:05:00: only A is runnable; RS = 100, RECSUM = 1.973307;
    /// A: −(1.973307/1.973307)/1 = −1; B (outside E) share 100/100 = 1, REC_tmp 0 → −0.
    #[test]
    fn priority_over_runnable_set() {
        let mut state = seed_state();
        state.projects[0].rec = 1.973307;
        let init = project_priority_init(
            &mut state,
            PriorityMode::Runnable,
            3900.0,
            &Params::default(),
        );
        assert_eq!(init.rs_sum, 100.0);
        assert_eq!(init.rec_sum, 1.973307);
        assert_eq!(init.lines[0].priority, -1.0);
        assert_eq!(init.lines[1].share_frac, 1.0);
        assert!(init.lines[1].priority == 0.0 && init.lines[1].priority.is_sign_negative());
        // Fetch mode: both can request work; RS 200, share 0.5 each; A: −1/0.5 = −2.
        let init =
            project_priority_init(&mut state, PriorityMode::Fetch, 3900.0, &Params::default());
        assert_eq!(init.lines[0].priority, -2.0);
    }

    /// §5.4: zero share → −1000 − rec_frac; suspended → +0 with no line.
    #[test]
    fn zero_share_and_suspended_projects() {
        let mut state = seed_state();
        state.projects[1].resource_share = 0.0;
        state.projects[1].rec = 1.0;
        state.projects[0].rec = 1.0;
        // Fetch set {A, B}: RECSUM 2, B: −1000 − 0.5 = −1000.5.
        let init =
            project_priority_init(&mut state, PriorityMode::Fetch, 3900.0, &Params::default());
        assert_eq!(init.lines[1].priority, -1000.5);
        state.projects[1].suspended_via_gui = true;
        let init =
            project_priority_init(&mut state, PriorityMode::Fetch, 3900.0, &Params::default());
        assert_eq!(init.lines.len(), 1);
        assert_eq!(state.projects[1].prio.sched_priority, 0.0);
    }

    /// §5.5 worked value: 1-CPU jobs on the 4-CPU + 8-CPU-equivalent GPU... simpler, the
    /// cpu_two_projects_unequal_share case: 4 CPUs, no GPU, share_frac 1: each bump is
    /// (5e9/20e9)/24/1 = 0.010417 priority units.
    #[test]
    fn rec_bump_is_one_hour_of_the_job() {
        let mut host = seed_host();
        host.coprocs.clear();
        let mut state = HostState::new(host);
        state.projects.push(Project::new("Alpha", 300.0, 1));
        state.jobs.push(Job::new(
            "Alpha_0",
            0,
            "a",
            ResourceUsage::cpu(1.0, 5e9),
            72e12,
        ));
        let params = Params::default();
        project_priority_init(&mut state, PriorityMode::Runnable, 3600.0, &params);
        adjust_rec_sched(&mut state, 0, &params);
        assert!((state.projects[0].prio.sched_priority + 0.0104167).abs() < 1e-6);
        adjust_rec_sched(&mut state, 0, &params);
        assert!((state.projects[0].prio.sched_priority + 0.0208333).abs() < 1e-6);
    }

    proptest! {
        /// §5.1: with nothing scheduled REC only decays.
        #[test]
        fn rec_only_decays_when_nothing_runs(rec in 0.0f64..1e6, rec_time in 1.0f64..1e6, step in 1.0f64..120.0) {
            let mut state = seed_state();
            state.jobs[0].task = None;
            state.projects[0].rec = rec;
            state.projects[0].rec_time = rec_time;
            state.rec_interval_start = rec_time;
            adjust_rec(&mut state, rec_time + step, None, &Params::default());
            prop_assert!(state.projects[0].rec <= rec);
            prop_assert!(state.projects[0].rec >= 0.0);
        }

        /// §5.4: a zero-share project never outranks a positive-share one.
        #[test]
        fn zero_share_never_outranks_positive(rec_a in 0.0f64..1e6, rec_b in 0.0f64..1e6, share in 0.001f64..1e4) {
            let mut state = seed_state();
            state.projects[0].resource_share = share;
            state.projects[0].rec = rec_a;
            state.projects[1].resource_share = 0.0;
            state.projects[1].rec = rec_b;
            project_priority_init(&mut state, PriorityMode::Fetch, 3900.0, &Params::default());
            prop_assert!(state.projects[0].prio.sched_priority > state.projects[1].prio.sched_priority);
        }
    }
}

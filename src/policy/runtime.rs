//! Runtime estimation: static and dynamic estimates, remaining runtime and
//! FLOPs, computation deadlines and the duration correction factor (spec §3).
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use super::params::{Params, RuntimeModel};
use super::state::{HostState, Job, Project, Task};

/// FLOPS rate used when a job's rate is not positive (avoids dividing by zero).
fn usable_flops(job: &Job, params: &Params) -> f64 {
    if job.usage.flops > 0.0 && job.usage.flops.is_finite() {
        job.usage.flops
    } else {
        params.rr_sim_min_flops
    }
}

/// Mirrors RESULT::estimated_runtime_uncorrected() in client/result.cpp (§3.1).
pub fn estimated_runtime_uncorrected(job: &Job, params: &Params) -> f64 {
    job.rsc_fpops_est / usable_flops(job, params)
}

/// Mirrors RESULT::estimated_runtime() in client/result.cpp (§3.1): × DCF unless `dont_use_dcf`.
pub fn estimated_runtime(job: &Job, project: &Project, params: &Params) -> f64 {
    let uncorrected = estimated_runtime_uncorrected(job, params);
    if project.dont_use_dcf {
        uncorrected
    } else {
        uncorrected * project.dcf
    }
}

/// Mirrors ACTIVE_TASK::est_dur() in client/work_fetch.cpp (§3.2): the total
/// duration of a running job, given its static estimate `static_est`.
pub fn est_dur(task: &Task, static_est: f64, fraction_done_exact: bool) -> f64 {
    let fd = task.fraction_done;
    let elapsed = task.elapsed;
    if fd >= 1.0 {
        return elapsed;
    }
    if fd <= 0.0 || fd.is_nan() {
        if elapsed > 0.0 && static_est > 0.0 {
            let guessed = 1.0 - (-elapsed / static_est).exp();
            return elapsed / guessed;
        }
        return static_est;
    }
    let mut wu_est = static_est;
    let exceeded = elapsed > wu_est;
    if exceeded {
        wu_est = elapsed;
    }
    let dynamic = task.fraction_done_elapsed / fd;
    if fraction_done_exact || exceeded {
        return dynamic;
    }
    fd * dynamic + (1.0 - fd) * wu_est
}

/// Mirrors RESULT::estimated_runtime_remaining() in client/result.cpp (§3.2),
/// and its emulator replacement with [`RuntimeModel::Emulator`].
pub fn estimated_runtime_remaining(state: &HostState, job: &Job, params: &Params) -> f64 {
    let Some(project) = state.projects.get(job.project) else {
        return 0.0;
    };
    if job.computing_done() {
        return 0.0;
    }
    let app = project.app(&job.app);
    if app.is_some_and(|app| app.sporadic) {
        return 0.0;
    }
    if params.runtime_model == RuntimeModel::Emulator {
        if let (Some(exact), Some(_)) = (job.exact_flops_remaining, &job.task) {
            return exact / usable_flops(job, params);
        }
        return estimated_runtime(job, project, params);
    }
    let nci = project.non_cpu_intensive || app.is_some_and(|app| app.non_cpu_intensive);
    if nci {
        return match &job.task {
            Some(task) if task.fraction_done > 0.0 => {
                let left = task.fraction_done_elapsed / task.fraction_done - task.elapsed;
                if left <= 0.0 {
                    1.0
                } else {
                    left
                }
            }
            _ => 0.0,
        };
    }
    match &job.task {
        Some(task) => {
            let exact = app.is_some_and(|app| app.fraction_done_exact);
            est_dur(task, estimated_runtime(job, project, params), exact) - task.elapsed
        }
        None => estimated_runtime(job, project, params),
    }
}

/// Mirrors RESULT::estimated_flops_remaining() in client/result.cpp (§3.2):
/// remaining runtime × FLOPS; in emulator mode the exact remaining work,
/// whatever the job's state (negative for a finished, unreported job).
pub fn estimated_flops_remaining(state: &HostState, job: &Job, params: &Params) -> f64 {
    if params.runtime_model == RuntimeModel::Emulator {
        if let Some(exact) = job.exact_flops_remaining {
            return exact;
        }
    }
    estimated_runtime_remaining(state, job, params) * job.usage.flops
}

/// Mirrors RESULT::computation_deadline() in client/result.cpp (§3.4).
pub fn computation_deadline(state: &HostState, job: &Job, params: &Params) -> f64 {
    job.report_deadline - state.work_buf_min(params) - params.deadline_cushion
}

/// Mirrors PROJECT::update_duration_correction_factor() in client/cpu_sched.cpp (§3.3):
/// the project's new DCF after a job with static estimate `est_uncorrected`
/// completed successfully in `elapsed` seconds.
pub fn updated_dcf(project: &Project, elapsed: f64, est_uncorrected: f64, params: &Params) -> f64 {
    if project.dont_use_dcf || est_uncorrected <= 0.0 || !elapsed.is_finite() {
        return project.dcf;
    }
    let raw = elapsed / est_uncorrected;
    let adjusted = raw / project.dcf;
    let dcf = if adjusted > 1.1 {
        raw
    } else if adjusted < 0.1 {
        0.99 * project.dcf + 0.01 * raw
    } else {
        0.9 * project.dcf + 0.1 * raw
    };
    dcf.clamp(params.dcf_min, params.dcf_max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::state::tests::seed_host;
    use crate::policy::state::{JobState, ResourceUsage};

    fn one_job_state() -> HostState {
        let mut state = HostState::new(seed_host());
        state.projects.push(Project::new("B", 100.0, 2));
        // b_cpu: 72000 GFLOP at 5 GFLOPS.
        state.jobs.push(Job::new(
            "B_0",
            0,
            "b_cpu",
            ResourceUsage::cpu(1.0, 5e9),
            72e12,
        ));
        state
    }

    /// §3.1: 72e12 / 5e9 = 14400 s; with DCF 2 (dont_use_dcf off) 28800 s.
    #[test]
    fn static_estimate_and_dcf() {
        let mut state = one_job_state();
        let params = Params::default();
        assert_eq!(
            estimated_runtime(&state.jobs[0], &state.projects[0], &params),
            14400.0
        );
        state.projects[0].dont_use_dcf = false;
        state.projects[0].dcf = 2.0;
        assert_eq!(
            estimated_runtime(&state.jobs[0], &state.projects[0], &params),
            28800.0
        );
        // Remaining of an unstarted job = static estimate; FLOPs = 28800 × 5e9.
        assert_eq!(
            estimated_runtime_remaining(&state, &state.jobs[0], &params),
            28800.0
        );
        assert_eq!(
            estimated_flops_remaining(&state, &state.jobs[0], &params),
            144e12
        );
    }

    /// §3.2 seed check: 5 min elapsed, 25 % done → dynamic 300/0.25 = 1200 s (20 min);
    /// static 3600 s, weight 0.25: 0.25 × 1200 + 0.75 × 3600 = 3000 s.
    #[test]
    fn dynamic_estimate_uses_elapsed() {
        let mut task = Task::new();
        task.elapsed = 300.0;
        task.fraction_done = 0.25;
        task.fraction_done_elapsed = 300.0;
        assert_eq!(est_dur(&task, 3600.0, true), 1200.0);
        assert_eq!(est_dur(&task, 3600.0, false), 3000.0);
        // Static exceeded (elapsed 300 > static 200): the dynamic estimate alone, 1200.
        assert_eq!(est_dur(&task, 200.0, false), 1200.0);
        // fd ≥ 1: elapsed.
        task.fraction_done = 1.0;
        assert_eq!(est_dur(&task, 3600.0, false), 300.0);
    }

    /// §3.2 step 2: no fraction done yet, elapsed 3600 of static 3600:
    /// g = 1 − e^−1 = 0.632121, total = 3600 / 0.632121 = 5695.1 s.
    #[test]
    fn guessed_fraction_done_when_app_reports_none() {
        let mut task = Task::new();
        task.elapsed = 3600.0;
        let total = est_dur(&task, 3600.0, false);
        assert!((total - 5695.1).abs() < 0.1, "{total}");
        task.elapsed = 0.0;
        assert_eq!(est_dur(&task, 3600.0, false), 3600.0);
    }

    /// §3.2 emulator note: exact remaining work, negative for a finished, unreported job.
    #[test]
    fn emulator_model_uses_exact_remaining() {
        let mut state = one_job_state();
        let params = Params {
            runtime_model: RuntimeModel::Emulator,
            ..Params::default()
        };
        state.jobs[0].exact_flops_remaining = Some(-675e9);
        state.jobs[0].state = JobState::Uploaded;
        assert_eq!(
            estimated_flops_remaining(&state, &state.jobs[0], &params),
            -675e9
        );
        // Started job: remaining runtime = 36000e9 / 5e9 = 7200 s.
        state.jobs[0].state = JobState::Downloaded;
        state.jobs[0].exact_flops_remaining = Some(36e12);
        state.jobs[0].task = Some(Task::new());
        assert_eq!(
            estimated_runtime_remaining(&state, &state.jobs[0], &params),
            7200.0
        );
        // Client model: finished jobs contribute 0.
        state.jobs[0].state = JobState::Uploaded;
        assert_eq!(
            estimated_flops_remaining(&state, &state.jobs[0], &Params::default()),
            0.0
        );
    }

    /// §3.4: deadline 100000 − min buffer 8640 − cushion 0 = 91360.
    #[test]
    fn computation_deadline_subtracts_min_buffer() {
        let mut state = one_job_state();
        state.jobs[0].report_deadline = 100000.0;
        assert_eq!(
            computation_deadline(&state, &state.jobs[0], &Params::default()),
            91360.0
        );
    }

    /// §3.3: est_uncorr 1000, DCF 1. Elapsed 2000 → adj 2 > 1.1 → DCF 2.
    /// Elapsed 50 → adj 0.05 < 0.1 → 0.99 + 0.01 × 0.05 = 0.9905.
    /// Elapsed 500 → 0.9 + 0.1 × 0.5 = 0.95. Elapsed 1e6 → 1000 clamped to 100.
    #[test]
    fn dcf_update_rules() {
        let mut project = Project::new("P", 100.0, 1);
        project.dont_use_dcf = false;
        let params = Params::default();
        assert_eq!(updated_dcf(&project, 2000.0, 1000.0, &params), 2.0);
        assert!((updated_dcf(&project, 50.0, 1000.0, &params) - 0.9905).abs() < 1e-12);
        assert!((updated_dcf(&project, 500.0, 1000.0, &params) - 0.95).abs() < 1e-12);
        assert_eq!(updated_dcf(&project, 1e6, 1000.0, &params), 100.0);
        project.dont_use_dcf = true;
        assert_eq!(updated_dcf(&project, 2000.0, 1000.0, &params), 1.0);
    }
}

//! The 6.6–6.10 policy generation (`ltd-6.6`): per-resource long-term debt
//! (LTD) for work fetch and per-resource short-term debt (STD) for job
//! scheduling, as run by the 6.10.60 client whose emulator produced the
//! reference traces (spec `policy-legacy.md` Part B, B.3–B.15).
//!
//! Entry points, in the order a replay calls them within a step:
//! * [`debt::debt_interval`] and [`debt::adjust_debts`] — the debt update at
//!   the start of an enforcement (B.15.2, B.4, B.5, B.11);
//! * [`rr_sim::sim_jobs`] then [`rr_sim::rr_simulation`] — the simulation
//!   (B.8), run afresh by every work-fetch and scheduling pass;
//! * [`work_fetch::choose_project`] — overall LTD (B.6) and the work-fetch
//!   decision with its request (B.9, B.10); [`work_fetch::compute_work_request`]
//!   for piggy-backed requests;
//! * [`backoff::handle_reply`] — per-(project, resource) backoff (B.3);
//! * [`cpu_sched::schedule_cpus`] — job selection (B.11).
//!
//! Debts live in [`Debts`], a table beside the shared
//! [`HostState`](super::state::HostState) (the shared state has no debt
//! fields); backoffs use the shared `ProjectRsc::backoff_time/interval`.
//! Every outcome carries the values the 6.10.60 log prints, and its lines
//! implement `Display` with the client's exact wording and rounding
//! (B.15.4), without the time stamp and project prefix.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers. Randomness
//! enters only as explicit drawn values (backoff). Iteration follows the
//! client's project and result orders.
//!
//! Deliberately left out: RAM checks, the enforcement's process handling
//! (only its candidate order is modelled), and the 2010-08…10 trunk changes
//! (STD decay, `(0.5 + U)` backoff, one job per idle instance), which never
//! reached 6.10.

pub mod backoff;
pub mod cpu_sched;
pub mod debt;
pub mod rr_sim;
pub mod work_fetch;

use super::state::{HostState, Job, JobIdx, JobState, ProjectIdx, RscIdx};
use crate::resource::ResourceType;

/// Constants of the 6.10 client (`work_fetch.h`, `cpu_sched.cpp`).
#[derive(Clone, Debug, PartialEq)]
pub struct LtdParams {
    /// `MIN_BACKOFF_INTERVAL`: first per-resource backoff interval (60 s in 6.6–6.10).
    pub min_backoff_interval: f64,
    /// `MAX_BACKOFF_INTERVAL`: cap of the per-resource backoff interval (1 day).
    pub max_backoff_interval: f64,
    /// `MAX_STD`: STD clamp (1 day).
    pub max_std: f64,
    /// `DEBT_ADJUST_PERIOD`: the enforcement period (60 s); intervals above
    /// twice this are discarded; also the LTD threshold at maximal backoff.
    pub debt_adjust_period: f64,
    /// Lower end of the sane DCF range (`wacky_dcf`).
    pub dcf_min: f64,
    /// Upper end of the sane DCF range (`wacky_dcf`).
    pub dcf_max: f64,
    /// DCF at or above which every job of a project counts for EDF.
    pub edf_dcf: f64,
    /// A checkpoint within this many seconds is "recent" (`finished_time_slice`).
    pub recent_checkpoint_secs: f64,
}

impl Default for LtdParams {
    fn default() -> Self {
        LtdParams {
            min_backoff_interval: 60.0,
            max_backoff_interval: 86400.0,
            max_std: 86400.0,
            debt_adjust_period: 60.0,
            dcf_min: 0.02,
            dcf_max: 80.0,
            edf_dcf: 90.0,
            recent_checkpoint_secs: 10.0,
        }
    }
}

/// The debts of one (project, resource) pair (`RSC_PROJECT_WORK_FETCH`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RscDebt {
    /// Long-term debt in instance-seconds (persistent).
    pub ltd: f64,
    /// Short-term debt in instance-seconds (persistent).
    pub std: f64,
}

/// Debts of every project for every resource, indexed `[project][rsc]` in
/// the orders of the host state. Missing entries read as zero.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Debts {
    /// `by_project[p][r]`.
    pub by_project: Vec<Vec<RscDebt>>,
}

impl Debts {
    /// All-zero debts for `n_projects` projects and `n_rsc` resources.
    pub fn zero(n_projects: usize, n_rsc: usize) -> Self {
        Debts {
            by_project: vec![vec![RscDebt::default(); n_rsc]; n_projects],
        }
    }

    /// The debts of (`project`, `rsc`), zero if absent.
    pub fn get(&self, project: ProjectIdx, rsc: RscIdx) -> RscDebt {
        self.by_project
            .get(project)
            .and_then(|row| row.get(rsc))
            .copied()
            .unwrap_or_default()
    }

    /// Sets the debts of (`project`, `rsc`), growing the table as needed.
    pub fn set(&mut self, project: ProjectIdx, rsc: RscIdx, value: RscDebt) {
        if self.by_project.len() <= project {
            self.by_project.resize(project + 1, Vec::new());
        }
        if let Some(row) = self.by_project.get_mut(project) {
            if row.len() <= rsc {
                row.resize(rsc + 1, RscDebt::default());
            }
            if let Some(entry) = row.get_mut(rsc) {
                *entry = value;
            }
        }
    }
}

/// `work_buf_min()` of 6.10 (`client_state.h`): the minimum buffer in seconds (no floor).
pub fn work_buf_min(state: &HostState) -> f64 {
    state.prefs.work_buf_min_days * 86400.0
}

/// `work_buf_additional()` of 6.10.
pub fn work_buf_additional(state: &HostState) -> f64 {
    state.prefs.work_buf_additional_days * 86400.0
}

/// `work_buf_total()` of 6.10: minimum plus additional, at least 1 s.
pub fn work_buf_total(state: &HostState) -> f64 {
    (work_buf_min(state) + work_buf_additional(state)).max(1.0)
}

/// Mirrors CLIENT_STATE::overall_cpu_frac() of 6.10 (client/work_fetch.cpp):
/// on-fraction × active-fraction clamped to [0.01, 1].
pub fn overall_cpu_frac(state: &HostState) -> f64 {
    let x = state.time_stats.on_frac * state.time_stats.active_frac;
    if x.is_nan() {
        return 1.0;
    }
    x.clamp(0.01, 1.0)
}

/// The resource name the 6.10 log prints (`rsc_name`): `CPU`, `NVIDIA GPU`, `ATI GPU`.
pub fn rsc_name(state: &HostState, rsc: RscIdx) -> &'static str {
    match state.rsc_type(rsc) {
        ResourceType::Cpu => "CPU",
        ResourceType::Nvidia => "NVIDIA GPU",
        ResourceType::Amd => "ATI GPU",
        _ => "Unknown",
    }
}

/// Instances of `rsc` a job uses: its CPUs for the CPU (GPU jobs included,
/// as `avg_ncpus` is counted for every job), its coprocessor usage for its own type.
pub fn job_usage(job: &Job, rsc: RscIdx) -> f64 {
    if rsc == 0 {
        job.usage.avg_ncpus
    } else if job.usage.rsc == rsc {
        job.usage.coproc_usage
    } else {
        0.0
    }
}

/// True if `job` is a job "for" `rsc`: a CPU-only job for the CPU, a job
/// using that coprocessor otherwise (`PROJECT::runnable(rsc_type)`).
pub fn job_is_for(job: &Job, rsc: RscIdx) -> bool {
    job.usage.rsc == rsc
}

/// Mirrors RESULT::runnable() of 6.10 (client/work_fetch.cpp).
pub fn job_runnable(state: &HostState, job: &Job, now: f64) -> bool {
    let project_suspended = state
        .projects
        .get(job.project)
        .is_none_or(|p| p.suspended_via_gui);
    !job.suspended_via_gui
        && !project_suspended
        && job.state == JobState::Downloaded
        && !job.ready_to_report
        && !job.usage.missing_coproc
        && job.schedule_backoff <= now
}

/// Mirrors RESULT::downloading() of 6.10.
pub fn job_downloading(state: &HostState, job: &Job) -> bool {
    let project_suspended = state
        .projects
        .get(job.project)
        .is_none_or(|p| p.suspended_via_gui);
    !job.suspended_via_gui && !project_suspended && job.state <= JobState::Downloading
}

/// Mirrors RESULT::nearly_runnable() of 6.10.
pub fn job_nearly_runnable(state: &HostState, job: &Job, now: f64) -> bool {
    job_runnable(state, job, now) || job_downloading(state, job)
}

/// Mirrors PROJECT::runnable(rsc_type) of 6.10: some job of the project for
/// `rsc` is runnable.
pub fn project_runnable(state: &HostState, project: ProjectIdx, rsc: RscIdx, now: f64) -> bool {
    state
        .projects
        .get(project)
        .is_some_and(|p| !p.suspended_via_gui)
        && state
            .jobs
            .iter()
            .any(|j| j.project == project && job_is_for(j, rsc) && job_runnable(state, j, now))
}

/// Mirrors PROJECT::some_result_suspended() of 6.10.
pub fn some_job_suspended(state: &HostState, project: ProjectIdx) -> bool {
    state
        .jobs
        .iter()
        .any(|j| j.project == project && j.suspended_via_gui)
}

/// Mirrors PROJECT::some_download_stalled().
pub fn some_download_stalled(state: &HostState, project: ProjectIdx) -> bool {
    state
        .projects
        .get(project)
        .is_some_and(|p| p.some_download_stalled)
        || state
            .jobs
            .iter()
            .any(|j| j.project == project && j.download_stalled)
}

/// The estimate behind a job's remaining time (B.15.1), as the `[rr_sim] dur:` line prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct DurEstimate {
    /// The job.
    pub job: JobIdx,
    /// Total duration estimate `D`.
    pub duration: f64,
    /// Weight of the dynamic estimate, `1 − (1 − fd)³`.
    pub fd_weight: f64,
    /// Dynamic estimate `elapsed / fraction_done`.
    pub dynamic: f64,
    /// Weight of the static estimate, `(1 − fd)³`.
    pub static_weight: f64,
    /// Static estimate (raised to `elapsed` if smaller).
    pub static_est: f64,
}

impl std::fmt::Display for DurEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "dur: {:.2} = {:.3}*{:.2} + {:.3}*{:.2}",
            self.duration, self.fd_weight, self.dynamic, self.static_weight, self.static_est
        )
    }
}

/// Mirrors RESULT::estimated_duration() of 6.10: `fpops_est / flops × DCF`.
pub fn estimated_duration(state: &HostState, job: &Job) -> f64 {
    let flops = if job.usage.flops > 0.0 {
        job.usage.flops
    } else {
        state.host.p_fpops
    };
    let dcf = state.projects.get(job.project).map_or(1.0, |p| p.dcf);
    job.rsc_fpops_est / flops * dcf
}

/// A DCF update, with the ratios the `[dcf]` line prints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcfUpdate {
    /// The DCF before.
    pub old: f64,
    /// The DCF after.
    pub new: f64,
    /// Elapsed time over the estimate without the DCF.
    pub raw_ratio: f64,
    /// Elapsed time over the estimate with the DCF.
    pub adj_ratio: f64,
}

impl std::fmt::Display for DcfUpdate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[dcf] DCF: {:.6}->{:.6}, raw_ratio {:.6}, adj_ratio {:.6}",
            self.old, self.new, self.raw_ratio, self.adj_ratio
        )
    }
}

/// Mirrors PROJECT::update_duration_correction_factor() of 6.10.60
/// (client/cpu_sched.cpp), called when a job exits: the project's new DCF
/// from the job's elapsed time and its estimate without the DCF. The raw
/// ratio replaces a DCF that underestimated by over 10%; a job much faster
/// than estimated moves it by 1%, any other by 10%; the result is kept in
/// [0.01, 100]. `None` without a usable estimate.
pub fn updated_dcf(dcf: f64, elapsed: f64, est_uncorrected: f64) -> Option<DcfUpdate> {
    if !(est_uncorrected > 0.0 && elapsed.is_finite()) {
        return None;
    }
    let raw_ratio = elapsed / est_uncorrected;
    let adj_ratio = elapsed / (est_uncorrected * dcf);
    let next = if adj_ratio > 1.1 {
        raw_ratio
    } else if adj_ratio < 0.1 {
        dcf * 0.99 + 0.01 * raw_ratio
    } else {
        dcf * 0.9 + 0.1 * raw_ratio
    };
    Some(DcfUpdate {
        old: dcf,
        new: next.clamp(0.01, 100.0),
        raw_ratio,
        adj_ratio,
    })
}

/// Mirrors RESULT::estimated_time_remaining() and ACTIVE_TASK::est_dur() of
/// 6.10 (client/work_fetch.cpp, B.15.1): the remaining runtime, and the
/// blend that produced it when the job has a task.
pub fn estimated_time_remaining(state: &HostState, job_idx: JobIdx) -> (f64, Option<DurEstimate>) {
    let Some(job) = state.jobs.get(job_idx) else {
        return (0.0, None);
    };
    if job.computing_done() {
        return (0.0, None);
    }
    let wu_est = estimated_duration(state, job);
    let Some(task) = &job.task else {
        return (wu_est, None);
    };
    let fd = task.fraction_done;
    if fd >= 1.0 {
        return (-task.elapsed, None);
    }
    if fd <= 0.0 || fd.is_nan() {
        return (wu_est - task.elapsed, None);
    }
    let static_est = wu_est.max(task.elapsed);
    let dynamic = task.elapsed / fd;
    let static_weight = (1.0 - fd).powi(3);
    let fd_weight = 1.0 - static_weight;
    let duration = fd_weight * dynamic + static_weight * static_est;
    let estimate = DurEstimate {
        job: job_idx,
        duration,
        fd_weight,
        dynamic,
        static_weight,
        static_est,
    };
    (duration - task.elapsed, Some(estimate))
}

#[cfg(test)]
mod tests;

//! Debt accounting of the 6.10 client: the debt interval (B.15.2),
//! debt eligibility (B.4), the per-resource LTD update with its offset (B.5)
//! and the per-resource STD update (B.11).
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use std::fmt;

use super::{
    job_runnable, project_runnable, rsc_name, some_job_suspended, Debts, LtdParams, RscDebt,
};
use crate::policy::state::{HostState, ProjectIdx, RscIdx, SchedulerState};

/// What the debt update at an enforcement does with the elapsed interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DebtInterval {
    /// Longer than 2 × 60 s or negative: discarded, the interval restarts.
    Discard {
        /// The elapsed time, printed as an integer.
        elapsed: f64,
    },
    /// Shorter than 1 s: nothing happens and the interval keeps running.
    TooShort,
    /// Credited: every scheduled task gets `secs × avg_ncpus`; debts are updated.
    Credit {
        /// The interval length.
        secs: f64,
    },
}

impl fmt::Display for DebtInterval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DebtInterval::Discard { elapsed } => write!(
                f,
                "[debt_debug] adjust_debt: elapsed time ({}) longer than sched enforce period(60).  Ignoring this period.",
                *elapsed as i64
            ),
            DebtInterval::TooShort => f.write_str("debt interval under 1 s; kept running"),
            DebtInterval::Credit { secs } => write!(f, "debt interval {secs:.2} s credited"),
        }
    }
}

/// Mirrors the interval test at the top of CLIENT_STATE::adjust_debts() of
/// 6.10 (client/cpu_sched.cpp; B.15.2).
pub fn debt_interval(now: f64, interval_start: f64, params: &LtdParams) -> DebtInterval {
    let elapsed = now - interval_start;
    if elapsed > 2.0 * params.debt_adjust_period || elapsed < 0.0 || elapsed.is_nan() {
        DebtInterval::Discard { elapsed }
    } else if elapsed < 1.0 {
        DebtInterval::TooShort
    } else {
        DebtInterval::Credit { secs: elapsed }
    }
}

/// Instance-seconds of every resource credited to each project over an
/// interval of `secs`: every task in the "scheduled" state of a
/// CPU-intensive project (WORK_FETCH::accumulate_inst_sec() of 6.10).
/// Indexed `[project][rsc]`. A replay adds the partial intervals of tasks
/// that exited within the interval (B.15.2) itself.
pub fn scheduled_usage(state: &HostState, secs: f64) -> Vec<Vec<f64>> {
    let n_rsc = state.n_rsc();
    let mut used = vec![vec![0.0; n_rsc]; state.projects.len()];
    for job in &state.jobs {
        let scheduled = job
            .task
            .as_ref()
            .is_some_and(|t| t.scheduler_state == SchedulerState::Scheduled);
        let nci = state
            .projects
            .get(job.project)
            .is_none_or(|p| p.non_cpu_intensive);
        if !scheduled || nci {
            continue;
        }
        if let Some(row) = used.get_mut(job.project) {
            for (rsc, cell) in row.iter_mut().enumerate() {
                *cell += secs * super::job_usage(job, rsc);
            }
        }
    }
    used
}

/// The instance-seconds an interval of `secs` credits (B.15.2): every
/// scheduled task's share ([`scheduled_usage`]) plus `exited[p][r]`, the
/// partial intervals of tasks that exited within it (credited once, when
/// their exit was handled).
pub fn interval_usage(state: &HostState, secs: f64, exited: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let mut used = scheduled_usage(state, secs);
    for (row, credit) in used.iter_mut().zip(exited) {
        for (cell, c) in row.iter_mut().zip(credit) {
            *cell += c;
        }
    }
    used
}

/// Why a project is or is not debt-eligible for a resource (B.4, 6.10.60 order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eligibility {
    /// Non-CPU-intensive project.
    NonCpuIntensive,
    /// Project suspended via the GUI.
    SuspendedViaGui,
    /// One of its jobs is suspended via the GUI.
    JobSuspended,
    /// Eligible: nearly-runnable jobs for the resource in the last simulation.
    HasRunnableJobs,
    /// "No more tasks" is set.
    NoMoreWork,
    /// Backed off for the resource.
    BackedOff,
    /// Fetch for the resource blocked by project preferences.
    BlockedByPrefs,
    /// Backoff interval at its cap and LTD above −60.
    MaxBackoffNearZero,
    /// Project RPC-deferred (`min_rpc_time > now`).
    RpcDeferred,
    /// Eligible (no reason to exclude it).
    Eligible,
}

impl Eligibility {
    /// True for the eligible outcomes.
    pub fn is_eligible(self) -> bool {
        matches!(self, Eligibility::HasRunnableJobs | Eligibility::Eligible)
    }
}

/// Mirrors RSC_PROJECT_WORK_FETCH::debt_eligible() of 6.10.60
/// (client/work_fetch.cpp; B.4). `has_runnable_jobs` is the flag the most
/// recent simulation left for (`project`, `rsc`).
pub fn debt_eligible(
    state: &HostState,
    debts: &Debts,
    project: ProjectIdx,
    rsc: RscIdx,
    has_runnable_jobs: bool,
    now: f64,
    params: &LtdParams,
) -> Eligibility {
    let Some(p) = state.projects.get(project) else {
        return Eligibility::NonCpuIntensive;
    };
    let prsc = p.rsc.get(rsc);
    if p.non_cpu_intensive {
        return Eligibility::NonCpuIntensive;
    }
    if p.suspended_via_gui {
        return Eligibility::SuspendedViaGui;
    }
    if some_job_suspended(state, project) {
        return Eligibility::JobSuspended;
    }
    if has_runnable_jobs {
        return Eligibility::HasRunnableJobs;
    }
    if p.dont_request_more_work {
        return Eligibility::NoMoreWork;
    }
    if prsc.is_some_and(|r| r.backoff_time > now) {
        return Eligibility::BackedOff;
    }
    if prsc.is_some_and(|r| r.no_rsc_pref) {
        return Eligibility::BlockedByPrefs;
    }
    if prsc.is_some_and(|r| r.backoff_interval == params.max_backoff_interval)
        && debts.get(project, rsc).ltd > -params.debt_adjust_period
    {
        return Eligibility::MaxBackoffNearZero;
    }
    if p.min_rpc_time > now {
        return Eligibility::RpcDeferred;
    }
    Eligibility::Eligible
}

/// One `[debt]` line of a project.
#[derive(Clone, Debug, PartialEq)]
pub enum LtdLine {
    /// An eligible project's LTD after the delta and before the offset.
    Adjusted {
        /// The project.
        project: ProjectIdx,
        /// Resource name as logged.
        rsc_name: &'static str,
        /// LTD after the delta, before the offset.
        ltd: f64,
        /// The delta.
        delta: f64,
        /// Share fraction among eligible projects.
        share_frac: f64,
        /// Instance-seconds of the resource used by all projects (`T`).
        total_secs: f64,
        /// Instance-seconds used by this project (`u(P)`).
        used_secs: f64,
        /// Instances of the resource.
        ninstances: usize,
    },
    /// An ineligible project (with nonzero share).
    Ineligible {
        /// The project.
        project: ProjectIdx,
        /// Resource name as logged.
        rsc_name: &'static str,
        /// Its unchanged LTD.
        ltd: f64,
    },
}

impl LtdLine {
    /// The project the line is about.
    pub fn project(&self) -> ProjectIdx {
        match self {
            LtdLine::Adjusted { project, .. } | LtdLine::Ineligible { project, .. } => *project,
        }
    }
}

impl fmt::Display for LtdLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LtdLine::Adjusted {
                rsc_name,
                ltd,
                delta,
                share_frac,
                total_secs,
                used_secs,
                ninstances,
                ..
            } => write!(
                f,
                "[debt] {rsc_name} LTD {ltd:.2} delta {delta:.2} ({share_frac:.2}*{total_secs:.2} - {used_secs:.2})/{ninstances}"
            ),
            LtdLine::Ineligible { rsc_name, ltd, .. } => {
                write!(f, "[debt] {rsc_name} ineligible; LTD {ltd:.2}")
            }
        }
    }
}

/// The LTD update of one resource.
#[derive(Clone, Debug, PartialEq)]
pub struct LtdUpdate {
    /// The resource.
    pub rsc: RscIdx,
    /// Resource name as logged.
    pub rsc_name: &'static str,
    /// Per-project lines, in project order.
    pub lines: Vec<LtdLine>,
    /// The offset added; `None` when no project was eligible
    /// (`[debt] CPU: no eligible projects`, nothing changes).
    pub offset: Option<f64>,
    /// Every project's LTD after the update, in project order.
    pub ltd_after: Vec<f64>,
}

impl LtdUpdate {
    /// The project-less line: the offset, or "no eligible projects".
    pub fn summary_line(&self) -> String {
        match self.offset {
            Some(offset) => format!("[debt] {} LTD: adding offset {offset:.6}", self.rsc_name),
            None => format!("[debt] {}: no eligible projects", self.rsc_name),
        }
    }
}

/// Mirrors RSC_WORK_FETCH::update_long_term_debts() of 6.10.60
/// (client/work_fetch.cpp; B.5). `eligible[p]` comes from [`debt_eligible`];
/// `used[p]` is P's instance-seconds of `rsc` over the interval.
pub fn update_long_term_debts(
    state: &HostState,
    debts: &Debts,
    rsc: RscIdx,
    eligible: &[bool],
    used: &[f64],
) -> LtdUpdate {
    let name = rsc_name(state, rsc);
    let n_projects = state.projects.len();
    let mut ltd: Vec<f64> = (0..n_projects).map(|p| debts.get(p, rsc).ltd).collect();
    let is_eligible = |p: usize| eligible.get(p).copied().unwrap_or(false);
    let counts = |p: usize| {
        state
            .projects
            .get(p)
            .is_some_and(|pr| !pr.non_cpu_intensive && pr.resource_share != 0.0)
    };
    let eligible_share: f64 = (0..n_projects)
        .filter(|&p| is_eligible(p))
        .filter_map(|p| state.projects.get(p).map(|pr| pr.resource_share))
        .fold(0.0, |acc, x| acc + x);
    let n_eligible = (0..n_projects).filter(|&p| is_eligible(p)).count();
    if n_eligible == 0 {
        return LtdUpdate {
            rsc,
            rsc_name: name,
            lines: Vec::new(),
            offset: None,
            ltd_after: ltd,
        };
    }
    let total_secs: f64 = (0..n_projects)
        .filter(|&p| {
            state
                .projects
                .get(p)
                .is_some_and(|pr| !pr.non_cpu_intensive)
        })
        .map(|p| used.get(p).copied().unwrap_or(0.0))
        .fold(0.0, |acc, x| acc + x);
    let ninstances = state.ninstances(rsc);
    let mut lines = Vec::new();
    let mut max_debt: Option<f64> = None;
    for (p, value) in ltd.iter_mut().enumerate() {
        if !counts(p) {
            continue;
        }
        if is_eligible(p) {
            let share = state.projects.get(p).map_or(0.0, |pr| pr.resource_share);
            let share_frac = if eligible_share != 0.0 {
                share / eligible_share
            } else {
                0.0
            };
            let used_secs = used.get(p).copied().unwrap_or(0.0);
            let delta = (share_frac * total_secs - used_secs) / ninstances.max(1) as f64;
            *value += delta;
            lines.push(LtdLine::Adjusted {
                project: p,
                rsc_name: name,
                ltd: *value,
                delta,
                share_frac,
                total_secs,
                used_secs,
                ninstances,
            });
            max_debt = Some(max_debt.map_or(*value, |m: f64| m.max(*value)));
        } else {
            lines.push(LtdLine::Ineligible {
                project: p,
                rsc_name: name,
                ltd: *value,
            });
        }
    }
    let mut max_debt = max_debt.unwrap_or(0.0);
    let offset = if max_debt > -2.0 * total_secs {
        if max_debt.abs() < 1e-6 {
            max_debt = 0.0;
        }
        if max_debt != 0.0 {
            -max_debt
        } else {
            0.0
        }
    } else {
        2.0 * total_secs
    };
    for (p, value) in ltd.iter_mut().enumerate() {
        if !counts(p) {
            continue;
        }
        if is_eligible(p) || offset > 0.0 {
            *value += offset;
        }
        if *value > 0.0 {
            *value = 0.0;
        }
    }
    LtdUpdate {
        rsc,
        rsc_name: name,
        lines,
        offset: Some(offset),
        ltd_after: ltd,
    }
}

/// One `[std_debug] … STD delta` line.
#[derive(Clone, Debug, PartialEq)]
pub struct StdDeltaLine {
    /// The project (runnable for the resource).
    pub project: ProjectIdx,
    /// Resource name as logged.
    pub rsc_name: &'static str,
    /// The delta.
    pub delta: f64,
    /// Share over the runnable projects' shares.
    pub share_frac: f64,
    /// `T`.
    pub total_secs: f64,
    /// `u(P)`.
    pub used_secs: f64,
    /// Instances of the resource.
    pub ninstances: usize,
}

impl fmt::Display for StdDeltaLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[std_debug] {} STD delta {:.2} ({:.2}*{:.2} - {:.2})/{}",
            self.rsc_name,
            self.delta,
            self.share_frac,
            self.total_secs,
            self.used_secs,
            self.ninstances
        )
    }
}

/// The STD update of one resource.
#[derive(Clone, Debug, PartialEq)]
pub struct StdUpdate {
    /// The resource.
    pub rsc: RscIdx,
    /// Resource name as logged.
    pub rsc_name: &'static str,
    /// Delta lines of runnable projects, in project order.
    pub deltas: Vec<StdDeltaLine>,
    /// `[std_debug] <rsc> STD <value>` lines: (project, STD after
    /// normalisation) for runnable projects only.
    pub values: Vec<(ProjectIdx, f64)>,
    /// Every project's STD after the update, in project order.
    pub std_after: Vec<f64>,
}

impl StdUpdate {
    /// The value line of one entry of [`StdUpdate::values`].
    pub fn value_line(&self, std: f64) -> String {
        format!("[std_debug] {} STD {std:.2}", self.rsc_name)
    }
}

/// Mirrors RSC_WORK_FETCH::update_short_term_debts() of 6.10.60
/// (client/work_fetch.cpp; B.11): runnable projects get
/// `(share/rrs × T − u)/n`; then the mean over all CPU-intensive
/// nonzero-share projects is subtracted and STD clamped to ±`MAX_STD`.
/// Non-runnable projects are neither reset nor decayed.
pub fn update_short_term_debts(
    state: &HostState,
    debts: &Debts,
    rsc: RscIdx,
    used: &[f64],
    now: f64,
    params: &LtdParams,
) -> StdUpdate {
    let name = rsc_name(state, rsc);
    let n_projects = state.projects.len();
    let mut std: Vec<f64> = (0..n_projects).map(|p| debts.get(p, rsc).std).collect();
    let counts = |p: usize| {
        state
            .projects
            .get(p)
            .is_some_and(|pr| !pr.non_cpu_intensive && pr.resource_share != 0.0)
    };
    let runnable: Vec<bool> = (0..n_projects)
        .map(|p| project_runnable(state, p, rsc, now))
        .collect();
    let rrs: f64 = (0..n_projects)
        .filter(|&p| runnable.get(p).copied().unwrap_or(false))
        .filter_map(|p| state.projects.get(p))
        .filter(|pr| !pr.non_cpu_intensive)
        .map(|pr| pr.resource_share)
        .fold(0.0, |acc, x| acc + x);
    let total_secs: f64 = (0..n_projects)
        .filter(|&p| {
            state
                .projects
                .get(p)
                .is_some_and(|pr| !pr.non_cpu_intensive)
        })
        .map(|p| used.get(p).copied().unwrap_or(0.0))
        .fold(0.0, |acc, x| acc + x);
    let ninstances = state.ninstances(rsc);
    let mut deltas = Vec::new();
    let mut n_counted = 0usize;
    let mut n_runnable = 0usize;
    let mut total_std = 0.0;
    for (p, value) in std.iter_mut().enumerate() {
        if !counts(p) {
            continue;
        }
        n_counted += 1;
        if runnable.get(p).copied().unwrap_or(false) {
            n_runnable += 1;
            let share = state.projects.get(p).map_or(0.0, |pr| pr.resource_share);
            let share_frac = if rrs != 0.0 { share / rrs } else { 0.0 };
            let used_secs = used.get(p).copied().unwrap_or(0.0);
            let delta = (share_frac * total_secs - used_secs) / ninstances.max(1) as f64;
            deltas.push(StdDeltaLine {
                project: p,
                rsc_name: name,
                delta,
                share_frac,
                total_secs,
                used_secs,
                ninstances,
            });
            *value += delta;
        }
        total_std += *value;
    }
    let mut values = Vec::new();
    if n_runnable > 0 && n_counted > 0 {
        let mean = total_std / n_counted as f64;
        for (p, value) in std.iter_mut().enumerate() {
            if !counts(p) {
                continue;
            }
            *value = (*value - mean).clamp(-params.max_std, params.max_std);
            if runnable.get(p).copied().unwrap_or(false) {
                values.push((p, *value));
            }
        }
    }
    StdUpdate {
        rsc,
        rsc_name: name,
        deltas,
        values,
        std_after: std,
    }
}

/// Everything one debt update did, per resource in resource order.
#[derive(Clone, Debug, PartialEq)]
pub struct DebtUpdate {
    /// The interval decision.
    pub interval: DebtInterval,
    /// Per resource: LTD then STD update (empty unless credited).
    pub per_rsc: Vec<(LtdUpdate, StdUpdate)>,
    /// The debts after the update (unchanged unless credited).
    pub debts: Debts,
}

/// Mirrors CLIENT_STATE::adjust_debts() of 6.10.60 (client/cpu_sched.cpp;
/// B.15.2): interval test, then for each resource the LTD update and the STD
/// update. `has_runnable_jobs[p][r]` are the flags of the most recent
/// simulation; `used[p][r]` the instance-seconds credited (for example
/// [`scheduled_usage`] plus the partial intervals of exited tasks).
pub fn adjust_debts(
    state: &HostState,
    debts: &Debts,
    interval: DebtInterval,
    has_runnable_jobs: &[Vec<bool>],
    used: &[Vec<f64>],
    now: f64,
    params: &LtdParams,
) -> DebtUpdate {
    let mut new_debts = debts.clone();
    let mut per_rsc = Vec::new();
    if let DebtInterval::Credit { .. } = interval {
        for rsc in 0..state.n_rsc() {
            let eligible: Vec<bool> = (0..state.projects.len())
                .map(|p| {
                    let flag = has_runnable_jobs
                        .get(p)
                        .and_then(|row| row.get(rsc))
                        .copied()
                        .unwrap_or(false);
                    debt_eligible(state, &new_debts, p, rsc, flag, now, params).is_eligible()
                })
                .collect();
            let used_rsc: Vec<f64> = (0..state.projects.len())
                .map(|p| {
                    used.get(p)
                        .and_then(|row| row.get(rsc))
                        .copied()
                        .unwrap_or(0.0)
                })
                .collect();
            let ltd = update_long_term_debts(state, &new_debts, rsc, &eligible, &used_rsc);
            for (p, value) in ltd.ltd_after.iter().enumerate() {
                let old = new_debts.get(p, rsc);
                new_debts.set(p, rsc, RscDebt { ltd: *value, ..old });
            }
            let std = update_short_term_debts(state, &new_debts, rsc, &used_rsc, now, params);
            for (p, value) in std.std_after.iter().enumerate() {
                let old = new_debts.get(p, rsc);
                new_debts.set(p, rsc, RscDebt { std: *value, ..old });
            }
            per_rsc.push((ltd, std));
        }
    }
    DebtUpdate {
        interval,
        per_rsc,
        debts: new_debts,
    }
}

/// True if `job_runnable` holds for some job of `project` (any resource).
pub fn project_has_runnable_job(state: &HostState, project: ProjectIdx, now: f64) -> bool {
    state
        .jobs
        .iter()
        .any(|j| j.project == project && job_runnable(state, j, now))
}

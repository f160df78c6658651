//! Work fetch (spec §7.3–§7.10): project and resource "can't fetch"
//! reasons, fetchable shares, the queue-adjusted fetch priority, the choice
//! of project, request sizing, piggybacked requests and the initial request.
//!
//! Reason enums print the client's exact texts (formats-log §3.15).
//! [`WorkFetchState`] holds what the `work_fetch_debug` state block prints,
//! field by field.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use super::params::Params;
use super::rec::{project_priority_init, PriorityInit, PriorityMode};
use super::rr_sim::{rr_simulate, RrSimOutcome};
use super::runtime::estimated_flops_remaining;
use super::state::{HostState, JobState, Project, ProjectIdx, RpcReason, RscIdx};
use super::PolicyError;
use crate::resource::ResourceType;
use serde::Serialize;
use std::fmt;

/// Why a project cannot be asked for work (`PROJECT_REASON`, §7.4).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ProjectReason {
    /// No reason: `can request work`.
    None,
    /// Non-CPU-intensive project.
    NonCpuIntensive,
    /// Suspended via the GUI.
    SuspendedViaGui,
    /// Master URL fetch pending.
    MasterUrlFetchPending,
    /// "No new tasks".
    DontRequestMoreWork,
    /// Some download is stalled.
    DownloadStalled,
    /// Some job is suspended via the GUI.
    ResultSuspended,
    /// Too many uploads in progress.
    TooManyUploads,
    /// More than 1000 runnable jobs.
    TooManyRunnable,
    /// Project RPC backoff (`min_rpc_time > now`).
    MinRpcTime,
    /// A piggyback found nothing to ask for; one (resource, reason) per resource.
    DontNeed(Vec<(ResourceType, RscReason)>),
}

impl fmt::Display for ProjectReason {
    /// Mirrors project_reason_string() in client/work_fetch.cpp.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProjectReason::None => Ok(()),
            ProjectReason::NonCpuIntensive => f.write_str("non CPU intensive"),
            ProjectReason::SuspendedViaGui => f.write_str("suspended via Manager"),
            ProjectReason::MasterUrlFetchPending => f.write_str("master URL fetch pending"),
            ProjectReason::DontRequestMoreWork => {
                f.write_str("\"no new tasks\" requested via Manager")
            }
            ProjectReason::DownloadStalled => f.write_str("some download is stalled"),
            ProjectReason::ResultSuspended => f.write_str("some task is suspended via Manager"),
            ProjectReason::TooManyUploads => f.write_str("too many uploads in progress"),
            ProjectReason::TooManyRunnable => f.write_str("too many runnable tasks"),
            ProjectReason::MinRpcTime => f.write_str("scheduler RPC backoff"),
            ProjectReason::DontNeed(parts) => {
                if let [(_, reason)] = parts.as_slice() {
                    return write!(f, "don't need ({reason})");
                }
                f.write_str("don't need (")?;
                for (i, (rsc, reason)) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{}: {reason}", rsc.long_name())?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Why a (project, resource) pair cannot be asked for work (`RSC_REASON`, §7.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RscReason {
    /// No reason (prints empty).
    None,
    /// GPUs not usable.
    GpusNotUsable,
    /// Blocked by project preferences.
    Prefs,
    /// Blocked by client configuration.
    Config,
    /// No applications.
    NoApps,
    /// Blocked by account manager.
    Ams,
    /// Zero resource share.
    ZeroShare,
    /// Job cache full.
    BufferFull,
    /// Not highest priority project.
    NotHighestPrio,
    /// Backed off.
    BackedOff,
    /// A job is deferred.
    DeferSched,
    /// Max concurrent job limit.
    MaxConcurrent,
}

impl fmt::Display for RscReason {
    /// Mirrors rsc_reason_string() in client/work_fetch.cpp.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RscReason::None => "",
            RscReason::GpusNotUsable => "GPUs not usable",
            RscReason::Prefs => "blocked by project preferences",
            RscReason::Config => "client configuration",
            RscReason::NoApps => "no applications",
            RscReason::Ams => "account manager prefs",
            RscReason::ZeroShare => "zero resource share",
            RscReason::BufferFull => "job cache full",
            RscReason::NotHighestPrio => "not highest priority project",
            RscReason::BackedOff => "project is backed off",
            RscReason::DeferSched => "a job is deferred",
            RscReason::MaxConcurrent => "max concurrent job limit",
        })
    }
}

/// One project line of the state block: `REC %.3f prio %.3f <reason>[ (%.2f sec)]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProjectFetchState {
    /// The project.
    pub project: ProjectIdx,
    /// REC.
    pub rec: f64,
    /// Fetch priority after the queue adjustment (§5.6).
    pub priority: f64,
    /// Project reason.
    pub reason: ProjectReason,
    /// Remaining RPC backoff, 0 if none.
    pub rpc_backoff_left: f64,
}

impl ProjectFetchState {
    /// The line as the client prints it after `[work_fetch] `.
    pub fn log_text(&self) -> String {
        let mut text = match &self.reason {
            ProjectReason::None => format!(
                "REC {:.3} prio {:.3} can request work",
                self.rec, self.priority
            ),
            reason => format!(
                "REC {:.3} prio {:.3} can't request work: {reason}",
                self.rec, self.priority
            ),
        };
        if self.rpc_backoff_left > 0.0 {
            text.push_str(&format!(" ({:.2} sec)", self.rpc_backoff_left));
        }
        text
    }
}

/// One `share %.3f <reason> <backoff>` line of a resource block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProjectRscFetchState {
    /// The project (CPU-intensive projects only).
    pub project: ProjectIdx,
    /// Fetchable share.
    pub share: f64,
    /// Resource reason.
    pub reason: RscReason,
    /// Backoff seconds left, 0 if none.
    pub backoff_left: f64,
    /// Current backoff interval.
    pub backoff_interval: f64,
}

/// One resource block of the state dump.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RscFetchState {
    /// The resource.
    pub rsc_type: ResourceType,
    /// Shortfall.
    pub shortfall: f64,
    /// Idle instances now.
    pub nidle: f64,
    /// Saturated time.
    pub saturated: f64,
    /// Busy time.
    pub busy: f64,
    /// Per CPU-intensive project, in project order.
    pub projects: Vec<ProjectRscFetchState>,
}

/// The result of WORK_FETCH::setup(): what the state block prints and what choosing needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkFetchState {
    /// The simulation used.
    pub sim: RrSimOutcome,
    /// Min buffer (s).
    pub buf_min: f64,
    /// Additional buffer (s).
    pub buf_additional: f64,
    /// The fetch-mode priority initialisation (printed `[prio]` lines, before §5.6).
    pub prio_init: PriorityInit,
    /// Per project, in project order.
    pub projects: Vec<ProjectFetchState>,
    /// Per resource.
    pub resources: Vec<RscFetchState>,
    /// `projects_sorted`: decreasing priority, ties in project order.
    pub projects_sorted: Vec<ProjectIdx>,
    /// `reasons[p][r]`.
    pub rsc_reasons: Vec<Vec<RscReason>>,
    /// `fetchable_share[p][r]`.
    pub shares: Vec<Vec<f64>>,
    /// Working copy of the shortfall (overwritten by concurrency-limited projects, §7.8 (artifact)).
    pub shortfall: Vec<f64>,
    /// (project, resource, last MC limit time) of each pair whose reason
    /// reached the max-concurrent test, in the client's order.
    pub mc_limits: Vec<(ProjectIdx, RscIdx, f64)>,
}

/// A request for one resource (`req_secs`, `req_instances`, `estimated_delay`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RscRequest {
    /// Seconds requested.
    pub req_secs: f64,
    /// Instances requested.
    pub req_instances: f64,
    /// Busy time reported with it (0 if nothing requested).
    pub estimated_delay: f64,
}

/// One message of the project scan, in the order the client prints it
/// (client/work_fetch.cpp choose_project, piggyback_work_request,
/// set_request; `work_fetch_debug` and `rr_simulation` flags).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ScanNote {
    /// `choose_project: scanning`.
    Scanning(ProjectIdx),
    /// `skip: <project reason>`.
    Skip(ProjectIdx, ProjectReason),
    /// `can fetch <rsc>`.
    CanFetch(ProjectIdx, RscIdx),
    /// `can't fetch <rsc>: <reason>`.
    CantFetch(ProjectIdx, RscIdx, RscReason),
    /// `<rsc> needs work - buffer low` (saturated < min buffer).
    BufferLow(ProjectIdx, RscIdx),
    /// `<rsc> needs work - excluded instance starved`.
    ExcludedStarved(ProjectIdx, RscIdx),
    /// `checking <rsc>`.
    Checking(ProjectIdx, RscIdx),
    /// `<rsc> not high prio proj`: another project owns the resource.
    NotHighPrio(ProjectIdx, RscIdx),
    /// `<rsc> don't need`: saturated beyond the total buffer.
    DontNeed(ProjectIdx, RscIdx),
    /// `<rsc> can't fetch: <reason>` (a resource other than the trigger).
    OtherCantFetch(ProjectIdx, RscIdx, RscReason),
    /// `[work_fetch] using MC shortfall M instead of shortfall S`.
    McShortfall {
        /// The project.
        project: ProjectIdx,
        /// The resource.
        rsc: RscIdx,
        /// The project's MC shortfall.
        mc_shortfall: f64,
        /// The working shortfall it replaces.
        shortfall: f64,
    },
    /// `[work_fetch] set_request() for <rsc>: ninst ... req_secs ...`.
    SetRequest {
        /// The project.
        project: ProjectIdx,
        /// The resource.
        rsc: RscIdx,
        /// Instances of the resource.
        ninstances: f64,
        /// The project's simulated usage.
        nused_total: f64,
        /// Idle instances now.
        nidle_now: f64,
        /// The project's fetchable share.
        share: f64,
        /// The request.
        req_instances: f64,
        /// The request.
        req_secs: f64,
    },
    /// `set_request` (`excluded` = `set_request_excluded`) gave this request.
    Request(ProjectIdx, RscIdx, RscRequest, bool),
    /// `piggyback: resource <rsc>`.
    PiggyResource(RscIdx),
    /// `piggyback: can't fetch <rsc>: <reason>`.
    PiggyCantFetch(RscIdx, RscReason),
    /// `piggyback: don't need <rsc>`.
    PiggyDontNeed(RscIdx),
    /// `piggyback: P doesn't have jobs`.
    PiggyNoJobs(ProjectIdx),
    /// `piggyback: P can't fetch work`.
    PiggyProjectCantFetch(ProjectIdx),
    /// `piggyback: better proj P`.
    PiggyBetter(ProjectIdx),
    /// `[rr_sim] piggyback: requesting <rsc>`.
    PiggyRequesting(ProjectIdx, RscIdx),
    /// `[rr_sim] piggyback: don't need work`.
    PiggyDontNeedWork(ProjectIdx),
}

impl ScanNote {
    /// A note that says why a project was or was not chosen (a reason, a
    /// need, a request), as opposed to one the client only prints while
    /// scanning (`choose_project: scanning`, `can fetch`, `checking`, the
    /// request's detail, the piggyback scan).
    pub fn explains_choice(&self) -> bool {
        matches!(
            self,
            ScanNote::Skip(..)
                | ScanNote::CantFetch(..)
                | ScanNote::BufferLow(..)
                | ScanNote::ExcludedStarved(..)
                | ScanNote::NotHighPrio(..)
                | ScanNote::DontNeed(..)
                | ScanNote::OtherCantFetch(..)
                | ScanNote::Request(..)
        )
    }
}

/// Everything a work-fetch decision produces.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkFetchOutcome {
    /// The state block (absent when an NCI project was chosen first).
    pub state: Option<WorkFetchState>,
    /// The chosen project, if any.
    pub chosen: Option<ProjectIdx>,
    /// The resource that triggered the fetch.
    pub trigger: Option<RscIdx>,
    /// The chosen project is non-CPU-intensive (§7.7 step 1).
    pub nci: bool,
    /// The request per resource (all zero if none).
    pub request: Vec<RscRequest>,
    /// The scan, for explanations.
    pub scan: Vec<ScanNote>,
}

impl WorkFetchOutcome {
    /// Mirrors WORK_FETCH::requested_work(): some resource has `req_secs > 0`.
    pub fn requested_work(&self) -> bool {
        self.request.iter().any(|r| r.req_secs > 0.0)
    }
}

/// Mirrors compute_project_reason() in client/work_fetch.cpp (§7.4).
pub fn compute_project_reason(
    state: &HostState,
    project: ProjectIdx,
    sim: &RrSimOutcome,
    now: f64,
    params: &Params,
) -> ProjectReason {
    let Some(p) = state.projects.get(project) else {
        return ProjectReason::None;
    };
    if p.non_cpu_intensive {
        ProjectReason::NonCpuIntensive
    } else if p.suspended_via_gui {
        ProjectReason::SuspendedViaGui
    } else if p.master_url_fetch_pending {
        ProjectReason::MasterUrlFetchPending
    } else if p.dont_request_more_work {
        ProjectReason::DontRequestMoreWork
    } else if p.some_download_stalled {
        ProjectReason::DownloadStalled
    } else if state
        .jobs
        .iter()
        .any(|job| job.project == project && job.suspended_via_gui)
    {
        ProjectReason::ResultSuspended
    } else if p.too_many_uploading_results {
        ProjectReason::TooManyUploads
    } else if sim.projects.get(project).map_or(0, |s| s.n_runnable_jobs) as f64
        > params.wf_max_runnable_jobs
    {
        ProjectReason::TooManyRunnable
    } else if p.min_rpc_time > now {
        ProjectReason::MinRpcTime
    } else {
        ProjectReason::None
    }
}

/// Mirrors RSC_PROJECT_WORK_FETCH::compute_rsc_project_reason() in client/work_fetch.cpp (§7.5).
pub fn compute_rsc_project_reason(
    state: &HostState,
    project: ProjectIdx,
    rsc: RscIdx,
    sim: &RrSimOutcome,
    now: f64,
    params: &Params,
) -> RscReason {
    rsc_project_reason(state, project, rsc, sim, now, params, &mut false)
}

/// [`compute_rsc_project_reason`]; `mc_printed` is set when the client
/// reaches its max-concurrent test (and prints `rsc type N last MC limit
/// time T total buf B`).
fn rsc_project_reason(
    state: &HostState,
    project: ProjectIdx,
    rsc: RscIdx,
    sim: &RrSimOutcome,
    now: f64,
    params: &Params,
    mc_printed: &mut bool,
) -> RscReason {
    let Some(p) = state.projects.get(project) else {
        return RscReason::None;
    };
    let Some(prsc) = p.rsc.get(rsc) else {
        return RscReason::None;
    };
    let stats = sim.project_rsc(project, rsc);
    let ninstances = state.ninstances(rsc) as f64;
    if prsc.no_rsc_pref {
        return RscReason::Prefs;
    }
    if state.no_rsc_config(project, rsc) {
        return RscReason::Config;
    }
    if prsc.no_rsc_apps {
        return RscReason::NoApps;
    }
    if prsc.no_rsc_ams {
        return RscReason::Ams;
    }
    if stats.has_deferred_job {
        return RscReason::DeferSched;
    }
    if p.resource_share == 0.0 {
        // The raw preference, not the 180-s-floored buffer (§7.5 rule 6).
        let threshold = if params.zero_share_min_buf != 0.0 {
            (state.prefs.work_buf_min_days * 86400.0).min(params.wf_est_fetch_time)
        } else {
            // Before 7.20.2 (commit 4c7657ae9c).
            params.wf_est_fetch_time
        };
        if sim.resource(rsc).saturated_time > threshold {
            return RscReason::ZeroShare;
        }
    }
    let nexcl = state.ncoprocs_excluded(project, rsc) as f64;
    if rsc != 0 && nexcl > 0.0 {
        let usable = ninstances - nexcl;
        if stats.n_runnable_jobs as f64 >= usable
            && stats.queue_est > state.work_buf_min(params) * usable / ninstances
        {
            return RscReason::BufferFull;
        }
    }
    if params.mc_limit_reason != 0.0 && p.has_max_concurrent() {
        *mc_printed = true;
        if stats.last_mc_limit_reltime > state.work_buf_total(params) {
            return RscReason::MaxConcurrent;
        }
    }
    if p.anonymous_platform && !p.app_versions.iter().any(|v| v.usage.rsc == rsc) {
        return RscReason::NoApps;
    }
    if prsc.backoff_time > now {
        return RscReason::BackedOff;
    }
    RscReason::None
}

/// Mirrors WORK_FETCH::setup() in client/work_fetch.cpp (§7.3, §7.6, §5.6).
/// Runs the simulation unless `sim` was made at this same `now` (§4.1).
pub fn setup(
    state: &mut HostState,
    now: f64,
    sim: Option<RrSimOutcome>,
    params: &Params,
) -> Result<WorkFetchState, PolicyError> {
    state.validate()?;
    let sim = match sim {
        Some(sim) if sim.now == now => sim,
        _ => rr_simulate(state, now, params)?,
    };
    let n_rsc = state.n_rsc();
    let n_projects = state.projects.len();
    let project_reasons: Vec<ProjectReason> = (0..n_projects)
        .map(|p| compute_project_reason(state, p, &sim, now, params))
        .collect();
    let mut mc_limits = Vec::new();
    let rsc_reasons: Vec<Vec<RscReason>> = (0..n_projects)
        .map(|p| {
            (0..n_rsc)
                .map(|r| {
                    let mut printed = false;
                    let reason = rsc_project_reason(state, p, r, &sim, now, params, &mut printed);
                    if printed {
                        mc_limits.push((p, r, sim.project_rsc(p, r).last_mc_limit_reltime));
                    }
                    reason
                })
                .collect()
        })
        .collect();

    // Fetchable shares (§7.6, WORK_FETCH::compute_shares).
    let eligible = |p: usize| {
        state
            .projects
            .get(p)
            .is_some_and(|project| !project.non_cpu_intensive)
            && project_reasons.get(p) == Some(&ProjectReason::None)
    };
    // Before 7.5.0 only the reasons of compute_may_have_work() withhold a
    // share (`shares_from_may_have_work`).
    let shares_it = |reason: RscReason| {
        reason == RscReason::None
            || (params.shares_from_may_have_work != 0.0
                && !matches!(
                    reason,
                    RscReason::Prefs
                        | RscReason::Config
                        | RscReason::NoApps
                        | RscReason::Ams
                        | RscReason::DeferSched
                        | RscReason::BackedOff
                        | RscReason::GpusNotUsable
                ))
    };
    let mut totals = vec![0.0; n_rsc];
    for p in (0..n_projects).filter(|&p| eligible(p)) {
        for (r, total) in totals.iter_mut().enumerate() {
            if shares_it(rsc_reasons[p][r]) {
                *total += state.projects[p].resource_share;
            }
        }
    }
    let mut shares = vec![vec![0.0; n_rsc]; n_projects];
    for p in (0..n_projects).filter(|&p| eligible(p)) {
        for r in 0..n_rsc {
            if shares_it(rsc_reasons[p][r]) {
                shares[p][r] = if totals[r] != 0.0 {
                    state.projects[p].resource_share / totals[r]
                } else {
                    1.0
                };
            }
        }
    }

    // Fetch priority and the queue adjustment (§5.4 fetch mode, §5.6).
    let prio_init = project_priority_init(state, PriorityMode::Fetch, now, params);
    let max_queued_flops = state.work_buf_total(params) * state.total_peak_flops(params);
    let mut priorities: Vec<f64> = state
        .projects
        .iter()
        .map(|p| p.prio.sched_priority)
        .collect();
    if max_queued_flops != 0.0 && max_queued_flops.is_finite() {
        for job in &state.jobs {
            if let Some(prio) = priorities.get_mut(job.project) {
                *prio -= estimated_flops_remaining(state, job, params) / max_queued_flops;
            }
        }
    }
    for (project, &prio) in state.projects.iter_mut().zip(&priorities) {
        project.prio.sched_priority = prio;
    }
    // A stable sort keeps project order among equal priorities (§7.3 step 7, ≤ 16 projects).
    let mut projects_sorted: Vec<ProjectIdx> = (0..n_projects).collect();
    projects_sorted.sort_by(|&a, &b| {
        priorities[b]
            .partial_cmp(&priorities[a])
            .unwrap_or(std::cmp::Ordering::Equal)
    });

    let projects = (0..n_projects)
        .map(|p| ProjectFetchState {
            project: p,
            rec: state.projects[p].rec,
            priority: priorities[p],
            reason: project_reasons[p].clone(),
            rpc_backoff_left: (state.projects[p].min_rpc_time - now).max(0.0),
        })
        .collect();
    let resources = (0..n_rsc)
        .map(|r| {
            let stats = sim.resource(r);
            RscFetchState {
                rsc_type: state.rsc_type(r),
                shortfall: stats.shortfall,
                nidle: stats.nidle_now,
                saturated: stats.saturated_time,
                busy: stats.busy_time,
                projects: (0..n_projects)
                    .filter(|&p| !state.projects[p].non_cpu_intensive)
                    .map(|p| {
                        let prsc = &state.projects[p].rsc[r];
                        ProjectRscFetchState {
                            project: p,
                            share: shares[p][r],
                            reason: rsc_reasons[p][r],
                            backoff_left: if prsc.backoff_time > now {
                                prsc.backoff_time - now
                            } else {
                                0.0
                            },
                            backoff_interval: prsc.backoff_interval,
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    let shortfall = (0..n_rsc).map(|r| sim.resource(r).shortfall).collect();
    Ok(WorkFetchState {
        sim,
        buf_min: state.work_buf_min(params),
        buf_additional: state.work_buf_additional(),
        prio_init,
        projects,
        resources,
        projects_sorted,
        rsc_reasons,
        shares,
        shortfall,
        mc_limits,
    })
}

fn is_wacky_dcf(state: &HostState, project: ProjectIdx, params: &Params) -> bool {
    state.projects.get(project).is_some_and(|p| {
        !p.dont_use_dcf && (p.dcf < params.wacky_dcf_low || p.dcf > params.wacky_dcf_high)
    })
}

/// True if `p`'s max_concurrent limits shape its work requests (the MC
/// shortfall, no instance share): the project has a limit and the rules
/// know limits outside the run list (`mc_in_rr_sim`; not 7.0–7.2).
fn limits_fetch(p: &Project, params: &Params) -> bool {
    params.mc_in_rr_sim != 0.0 && p.has_max_concurrent()
}

/// Mirrors RSC_WORK_FETCH::set_request() in client/work_fetch.cpp (§7.8).
pub fn set_request(
    state: &HostState,
    setup: &mut WorkFetchState,
    project: ProjectIdx,
    rsc: RscIdx,
    params: &Params,
    notes: &mut Vec<ScanNote>,
) -> RscRequest {
    let mut request = RscRequest::default();
    let Some(p) = state.projects.get(project) else {
        return request;
    };
    let ninstances = state.ninstances(rsc) as f64;
    let rsc_stats = setup.sim.resource(rsc);
    let stats = setup.sim.project_rsc(project, rsc);
    if p.resource_share == 0.0 && params.zero_share_one_job == 0.0 {
        // Before 8.2.14 (commit b785942244): one job per idle instance.
        request.req_instances = rsc_stats.nidle_now;
        request.req_secs = 1.0;
        return request;
    }
    if p.resource_share == 0.0 {
        if rsc_stats.nidle_now != 0.0 {
            let limit = p.project_max_concurrent.unwrap_or(0);
            let count = setup
                .sim
                .projects
                .get(project)
                .map_or(0, |s| s.proj_n_concurrent);
            if p.has_max_concurrent() && limit > 0 && count >= limit {
                return request;
            }
            request.req_instances = 1.0;
            request.req_secs = 1.0;
        }
        return request;
    }
    if state.config.fetch_minimal_work {
        request.req_instances = ninstances;
        request.req_secs = 1.0;
        return request;
    }
    let nexcl = state.ncoprocs_excluded(project, rsc) as f64;
    let non_excl_inst = ninstances - nexcl;
    if limits_fetch(p, params) {
        if let Some(shortfall) = setup.shortfall.get_mut(rsc) {
            notes.push(ScanNote::McShortfall {
                project,
                rsc,
                mc_shortfall: stats.mc_shortfall,
                shortfall: *shortfall,
            });
            *shortfall = stats.mc_shortfall;
        }
    }
    let shortfall = setup.shortfall.get(rsc).copied().unwrap_or(0.0);
    if shortfall != 0.0 {
        if is_wacky_dcf(state, project, params) {
            request.req_secs = 1.0;
        } else {
            request.req_secs = shortfall;
            if nexcl > 0.0 {
                request.req_secs *= non_excl_inst / ninstances;
            }
        }
    }
    let share = setup
        .shares
        .get(project)
        .and_then(|row| row.get(rsc))
        .copied()
        .unwrap_or(0.0);
    if !limits_fetch(p, params) {
        let instance_share = (ninstances * share).min(non_excl_inst) - stats.nused_total;
        request.req_instances = rsc_stats.nidle_now.max(instance_share);
    }
    notes.push(ScanNote::SetRequest {
        project,
        rsc,
        ninstances,
        nused_total: stats.nused_total,
        nidle_now: rsc_stats.nidle_now,
        share,
        req_instances: request.req_instances,
        req_secs: request.req_secs,
    });
    if request.req_instances != 0.0 && request.req_secs == 0.0 {
        request.req_secs = 1.0;
    }
    request
}

/// Mirrors RSC_WORK_FETCH::set_request_excluded() in client/work_fetch.cpp (§7.8).
/// The masks are truncated to 32 bits as in the client ((artifact)).
pub fn set_request_excluded(
    state: &HostState,
    setup: &WorkFetchState,
    project: ProjectIdx,
    rsc: RscIdx,
    params: &Params,
) -> RscRequest {
    let starved = setup.sim.resource(rsc).sim_excluded_instances
        & state.project_non_excluded_instances(project, rsc)
        & 0xffff_ffff;
    let n = f64::from(starved.count_ones());
    let zero_share = state
        .projects
        .get(project)
        .is_some_and(|p| p.resource_share == 0.0);
    let req_secs = if zero_share || state.config.fetch_minimal_work {
        1.0
    } else {
        n * state.work_buf_total(params)
    };
    RscRequest {
        req_secs,
        req_instances: n,
        estimated_delay: 0.0,
    }
}

fn uses_starved_excluded_instances(
    state: &HostState,
    setup: &WorkFetchState,
    project: ProjectIdx,
    rsc: RscIdx,
    params: &Params,
) -> bool {
    state.has_exclusions(rsc, params)
        && setup.sim.resource(rsc).sim_excluded_instances
            & state.project_non_excluded_instances(project, rsc)
            != 0
}

/// Fills `estimated_delay` from the busy times (WORK_FETCH::copy_requests, §7.11).
fn with_delays(mut request: Vec<RscRequest>, setup: &WorkFetchState) -> Vec<RscRequest> {
    for (r, req) in request.iter_mut().enumerate() {
        req.estimated_delay = if req.req_secs != 0.0 {
            setup.sim.resource(r).busy_time
        } else {
            0.0
        };
    }
    request
}

/// Mirrors WORK_FETCH::non_cpu_intensive_project_needing_work() (§7.7 step 1).
fn nci_project_needing_work(state: &HostState, now: f64) -> Option<ProjectIdx> {
    (0..state.projects.len()).find(|&p| {
        let project = &state.projects[p];
        project.non_cpu_intensive
            && project.can_request_work(now)
            && project.rsc.first().map_or(0.0, |cpu| cpu.backoff_time) <= now
            && !state
                .jobs
                .iter()
                .any(|job| job.project == p && job.state < JobState::Uploaded)
    })
}

/// Mirrors WORK_FETCH::choose_project() in client/work_fetch.cpp (§7.7):
/// the project to ask for work, if any, and the request. Sets the chosen
/// project's pending RPC reason to "need work".
pub fn choose_project(
    state: &mut HostState,
    now: f64,
    sim: Option<RrSimOutcome>,
    params: &Params,
) -> Result<WorkFetchOutcome, PolicyError> {
    state.validate()?;
    let n_rsc = state.n_rsc();
    if let Some(p) = nci_project_needing_work(state, now) {
        let mut request = vec![RscRequest::default(); n_rsc];
        if let Some(cpu) = request.first_mut() {
            cpu.req_secs = 1.0;
        }
        return Ok(WorkFetchOutcome {
            state: None,
            chosen: Some(p),
            trigger: None,
            nci: true,
            request,
            scan: Vec::new(),
        });
    }
    let mut setup = setup(state, now, sim, params)?;
    let buf_min = state.work_buf_min(params);
    let buf_total = state.work_buf_total(params);
    let mut found_project: Vec<Option<ProjectIdx>> = vec![None; n_rsc];
    let mut scan = Vec::new();
    let mut chosen = None;
    let mut request = vec![RscRequest::default(); n_rsc];
    for &p in &setup.projects_sorted.clone() {
        scan.push(ScanNote::Scanning(p));
        let reason = &setup.projects[p].reason;
        if *reason != ProjectReason::None {
            scan.push(ScanNote::Skip(p, reason.clone()));
            continue;
        }
        let has_mc = limits_fetch(&state.projects[p], params);
        let mut trigger = None;
        for r in 0..n_rsc {
            if r != 0 && !state.gpus_usable {
                continue;
            }
            let rsc_reason = setup.rsc_reasons[p][r];
            if rsc_reason != RscReason::None {
                scan.push(ScanNote::CantFetch(p, r, rsc_reason));
                continue;
            }
            if let Some(slot) = found_project.get_mut(r) {
                slot.get_or_insert(p);
            }
            scan.push(ScanNote::CanFetch(p, r));
            let saturated = setup.sim.resource(r).saturated_time;
            if saturated < buf_min && (!has_mc || setup.sim.project_rsc(p, r).mc_shortfall > 0.0) {
                scan.push(ScanNote::BufferLow(p, r));
                trigger = Some(r);
                break;
            }
            if uses_starved_excluded_instances(state, &setup, p, r, params) {
                scan.push(ScanNote::ExcludedStarved(p, r));
                trigger = Some(r);
                break;
            }
        }
        let Some(trigger_rsc) = trigger else { continue };
        let mut any_request = false;
        request = vec![RscRequest::default(); n_rsc];
        for r in 0..n_rsc {
            if r != 0 && !state.gpus_usable {
                continue;
            }
            scan.push(ScanNote::Checking(p, r));
            let saturated = setup.sim.resource(r).saturated_time;
            let buffer_low = if r == trigger_rsc {
                saturated < buf_min
            } else {
                if found_project[r].is_some_and(|owner| owner != p) {
                    scan.push(ScanNote::NotHighPrio(p, r));
                    continue;
                }
                let buffer_low = saturated < buf_total;
                if !buffer_low && !uses_starved_excluded_instances(state, &setup, p, r, params) {
                    scan.push(ScanNote::DontNeed(p, r));
                    continue;
                }
                let rsc_reason = setup.rsc_reasons[p][r];
                if !matches!(rsc_reason, RscReason::None | RscReason::BackedOff) {
                    scan.push(ScanNote::OtherCantFetch(p, r, rsc_reason));
                    continue;
                }
                buffer_low
            };
            let req = if buffer_low {
                set_request(state, &mut setup, p, r, params, &mut scan)
            } else {
                set_request_excluded(state, &setup, p, r, params)
            };
            scan.push(ScanNote::Request(p, r, req.clone(), !buffer_low));
            any_request |= req.req_secs > 0.0;
            request[r] = req;
        }
        if any_request {
            chosen = Some((p, trigger_rsc));
            break;
        }
    }
    let (chosen_project, trigger) = match chosen {
        Some((p, r)) => {
            state.projects[p].sched_rpc_pending = Some(RpcReason::NeedWork);
            (Some(p), Some(r))
        }
        None => {
            request = vec![RscRequest::default(); n_rsc];
            (None, None)
        }
    };
    let request = with_delays(request, &setup);
    Ok(WorkFetchOutcome {
        state: Some(setup),
        chosen: chosen_project,
        trigger,
        nci: false,
        request,
        scan,
    })
}

/// Mirrors WORK_FETCH::piggyback_work_request() in client/work_fetch.cpp (§7.9):
/// the request to add to an RPC made to `project` for another reason.
/// When nothing is requested, the project reason in the returned state
/// becomes "don't need (...)".
pub fn piggyback_work_request(
    state: &mut HostState,
    project: ProjectIdx,
    now: f64,
    sim: Option<RrSimOutcome>,
    params: &Params,
) -> Result<WorkFetchOutcome, PolicyError> {
    state.validate()?;
    let n_rsc = state.n_rsc();
    let mut request = vec![RscRequest::default(); n_rsc];
    let empty = |request| WorkFetchOutcome {
        state: None,
        chosen: None,
        trigger: None,
        nci: false,
        request,
        scan: Vec::new(),
    };
    if state.config.fetch_minimal_work && state.had_or_requested_work {
        return Ok(empty(request));
    }
    let Some(p) = state.projects.get(project) else {
        return Err(PolicyError::InvalidState(format!("no project {project}")));
    };
    if p.non_cpu_intensive {
        if !p.dont_request_more_work
            && !state
                .jobs
                .iter()
                .any(|job| job.project == project && job.state < JobState::Uploaded)
        {
            if let Some(cpu) = request.first_mut() {
                cpu.req_secs = 1.0;
            }
        }
        return Ok(WorkFetchOutcome {
            nci: true,
            chosen: Some(project),
            ..empty(request)
        });
    }
    let mut setup = setup(state, now, sim, params)?;
    if !matches!(
        setup.projects[project].reason,
        ProjectReason::None | ProjectReason::MinRpcTime
    ) {
        return Ok(WorkFetchOutcome {
            state: Some(setup),
            ..empty(request)
        });
    }
    let check_higher =
        !(state.projects[project].sched_rpc_pending.is_some() && state.config.fetch_on_update);
    let buf_total = state.work_buf_total(params);
    let mut dont_fetch = vec![RscReason::None; n_rsc];
    let mut scan = Vec::new();
    for r in 0..n_rsc {
        scan.push(ScanNote::PiggyResource(r));
        if r != 0 && !state.gpus_usable {
            dont_fetch[r] = RscReason::GpusNotUsable;
            continue;
        }
        let rsc_reason = setup.rsc_reasons[project][r];
        if !matches!(rsc_reason, RscReason::None | RscReason::BackedOff) {
            scan.push(ScanNote::PiggyCantFetch(r, rsc_reason));
            continue;
        }
        let buffer_low = setup.sim.resource(r).saturated_time < buf_total;
        if !buffer_low && !uses_starved_excluded_instances(state, &setup, project, r, params) {
            dont_fetch[r] = RscReason::BufferFull;
            scan.push(ScanNote::PiggyDontNeed(r));
            continue;
        }
        if check_higher {
            // The scan stops at the project itself or at the first better
            // project; one that shares its priority is passed over.
            let my_prio = setup.projects[project].priority;
            let mut better = false;
            for &q in &setup.projects_sorted {
                if q == project {
                    break;
                }
                if setup.projects[q].priority == my_prio {
                    continue;
                }
                if state.projects[q].rsc[r].sched_req_no_work {
                    scan.push(ScanNote::PiggyNoJobs(q));
                    continue;
                }
                if setup.projects[q].reason != ProjectReason::None {
                    scan.push(ScanNote::PiggyProjectCantFetch(q));
                    continue;
                }
                if setup.rsc_reasons[q][r] == RscReason::None {
                    scan.push(ScanNote::PiggyBetter(q));
                    better = true;
                    break;
                }
            }
            if better {
                dont_fetch[r] = RscReason::NotHighestPrio;
                continue;
            }
        }
        scan.push(ScanNote::PiggyRequesting(project, r));
        let req = if buffer_low {
            set_request(state, &mut setup, project, r, params, &mut scan)
        } else {
            set_request_excluded(state, &setup, project, r, params)
        };
        request[r] = req;
    }
    if !request.iter().any(|req| req.req_secs > 0.0) {
        scan.push(ScanNote::PiggyDontNeedWork(project));
        let parts = if n_rsc == 1 {
            vec![(state.rsc_type(0), setup.rsc_reasons[project][0])]
        } else {
            (0..n_rsc)
                .map(|r| {
                    let reason = setup.rsc_reasons[project][r];
                    (
                        state.rsc_type(r),
                        if reason == RscReason::None {
                            dont_fetch[r]
                        } else {
                            reason
                        },
                    )
                })
                .collect()
        };
        setup.projects[project].reason = ProjectReason::DontNeed(parts);
    }
    let request = with_delays(request, &setup);
    Ok(WorkFetchOutcome {
        state: Some(setup),
        chosen: Some(project),
        trigger: None,
        nci: false,
        request,
        scan,
    })
}

/// Mirrors WORK_FETCH::set_initial_work_request() (§7.10): 1 s per resource
/// for a project with positive share and no "no new tasks", except GPU types
/// fully excluded for it; no instances; no delay.
pub fn set_initial_work_request(state: &HostState, project: ProjectIdx) -> Vec<RscRequest> {
    let n_rsc = state.n_rsc();
    let Some(p) = state.projects.get(project) else {
        return vec![RscRequest::default(); n_rsc];
    };
    (0..n_rsc)
        .map(|r| {
            let fully_excluded =
                r != 0 && state.ninstances(r) == state.ncoprocs_excluded(project, r);
            let asks = p.resource_share > 0.0 && !p.dont_request_more_work && !fully_excluded;
            RscRequest {
                req_secs: if asks { 1.0 } else { 0.0 },
                ..RscRequest::default()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::rr_sim::tests::{a_gpu_job, seed_two_projects};
    use crate::policy::state::{Job, Project, ResourceUsage};
    use crate::policy::RuntimeModel;
    use proptest::prelude::*;

    /// §9.7, seed_cpu_gpu_two_projects 01:00:00, the first work-fetch block:
    /// REC 0/0, prio −0/−0; CPU shortfall 4 × 51840 = 207360, nidle 4; A "no applications"
    /// share 0, B share 100/100 = 1; GPU shortfall 51840, nidle 1, shares 100/200 = 0.5 each.
    /// A is chosen (tie, first in project order), trigger GPU (CPU: no applications);
    /// CPU not requested (no apps), GPU: req_secs = shortfall 51840,
    /// req_inst = max(nidle 1, 1 × 0.5 − 0) = 1.
    #[test]
    fn first_fetch_of_seed_cpu_gpu_two_projects() {
        let mut state = seed_two_projects();
        let out = choose_project(&mut state, 3600.0, None, &Params::default()).unwrap();
        let setup = out.state.as_ref().unwrap();
        assert_eq!(
            setup.projects[0].log_text(),
            "REC 0.000 prio -0.000 can request work"
        );
        assert_eq!(
            setup.projects[1].log_text(),
            "REC 0.000 prio -0.000 can request work"
        );
        let cpu = &setup.resources[0];
        assert_eq!(
            (cpu.shortfall, cpu.nidle, cpu.saturated, cpu.busy),
            (207360.0, 4.0, 0.0, 0.0)
        );
        assert_eq!(
            (cpu.projects[0].share, cpu.projects[0].reason.to_string()),
            (0.0, "no applications".to_string())
        );
        assert_eq!(
            (cpu.projects[1].share, cpu.projects[1].reason),
            (1.0, RscReason::None)
        );
        let gpu = &setup.resources[1];
        assert_eq!((gpu.shortfall, gpu.nidle), (51840.0, 1.0));
        assert_eq!((gpu.projects[0].share, gpu.projects[1].share), (0.5, 0.5));
        assert_eq!(out.chosen, Some(0));
        assert_eq!(out.trigger, Some(1));
        assert_eq!(out.request[0], RscRequest::default());
        assert_eq!(
            (out.request[1].req_secs, out.request[1].req_instances),
            (51840.0, 1.0)
        );
        assert_eq!(
            state.projects[0].sched_rpc_pending,
            Some(RpcReason::NeedWork)
        );
    }

    /// seed_cpu_gpu_two_projects 01:05:00 (SCENARIO.md): after A got 8 GPU jobs and A_0
    /// ran 300 s, B asks `CPU (196992.00 sec, 4.00 inst)`: CPU shortfall 3.8 × 51840 = 196992,
    /// req_inst = max(nidle 3.8, 4 × 1 − 0) = 4; GPU saturated 57300 ≥ total 51840 → not asked.
    /// A's fetch priority: REC 1.973307 over RECSUM 1.973307, share 0.5 → −2, minus its queue
    /// (2292000 GFLOP) / (51840 × 60 GFLOPS) = 0.736883 → −2.737; B −0.
    #[test]
    fn second_fetch_asks_b_for_cpu() {
        let mut state = seed_two_projects();
        for n in 0..8 {
            let mut job = a_gpu_job(n);
            job.exact_flops_remaining = Some(288e12);
            state.jobs.push(job);
        }
        state.jobs[0].exact_flops_remaining = Some(276e12);
        state.jobs[0].task = Some(crate::policy::state::Task::new());
        state.projects[0].rec = 1.973307;
        let params = Params {
            runtime_model: RuntimeModel::Emulator,
            ..Params::default()
        };
        let out = choose_project(&mut state, 3900.0, None, &params).unwrap();
        let setup = out.state.as_ref().unwrap();
        assert!((setup.projects[0].priority - (-2.0 - 2292000e9 / (51840.0 * 60e9))).abs() < 1e-9);
        assert_eq!(setup.projects_sorted, vec![1, 0]);
        assert_eq!(out.chosen, Some(1));
        assert_eq!(out.trigger, Some(0));
        assert!((out.request[0].req_secs - 196992.0).abs() < 1e-6);
        assert_eq!(out.request[0].req_instances, 4.0);
        assert_eq!(out.request[1], RscRequest::default());
    }

    /// A max_concurrent limit shapes the request from 7.16.1 on, not in
    /// 7.0–7.2 (work_fetch.cpp at 7.2.42 has no limit; `mc_in_rr_sim`).
    /// seed_cpu_gpu_two_projects at 01:00 with A out ("no new tasks") and
    /// B at project_max_concurrent 1 (1-CPU jobs, 4 CPUs, buffer 51840 s):
    /// today B's CPU request is its MC shortfall, min(1 × 1, 4) = 1 instance
    /// × 51840 = 51840 s, with no instances; under 7.2.42's rules it is the
    /// CPU shortfall 4 × 51840 = 207360 s and max(nidle 4, 4 × 1 − 0) = 4
    /// instances.
    #[test]
    fn max_concurrent_shapes_the_request_only_from_7_16() {
        let run = |params: &Params| {
            let mut state = seed_two_projects();
            state.projects[0].dont_request_more_work = true;
            state.projects[1].project_max_concurrent = Some(1);
            let out = choose_project(&mut state, 3600.0, None, params).unwrap();
            assert_eq!((out.chosen, out.trigger), (Some(1), Some(0)));
            (out.request[0].req_secs, out.request[0].req_instances)
        };
        assert_eq!(run(&Params::default()), (51840.0, 0.0));
        let mut old = Params::default();
        crate::policy::profile::params_7_2(&mut old);
        assert_eq!(run(&old), (207360.0, 4.0));
    }

    /// §7.4 order and texts; the RPC backoff comes last and prints its seconds. B is outside
    /// the fetch set but still gets a priority from its REC_tmp 0: −0 (§5.4).
    #[test]
    fn project_reasons_first_match_wins() {
        let mut state = seed_two_projects();
        state.projects[1].min_rpc_time = 4000.0;
        state.projects[1].dont_request_more_work = true;
        let out = choose_project(&mut state, 3600.0, None, &Params::default()).unwrap();
        let b = &out.state.as_ref().unwrap().projects[1];
        assert_eq!(b.log_text(), "REC 0.000 prio -0.000 can't request work: \"no new tasks\" requested via Manager (400.00 sec)");
        state.projects[1].dont_request_more_work = false;
        let out = choose_project(&mut state, 3600.0, None, &Params::default()).unwrap();
        assert_eq!(
            out.state.unwrap().projects[1].reason.to_string(),
            "scheduler RPC backoff"
        );
    }

    /// §7.5: backed off is last; a backed-off project holds no share (§7.6);
    /// B backed off for CPU: A cannot take CPU (no apps) so nobody asks for CPU, A asks for GPU.
    #[test]
    fn backed_off_resource_has_no_share() {
        let mut state = seed_two_projects();
        state.projects[1].rsc[0].backoff_time = 5000.0;
        state.projects[1].rsc[0].backoff_interval = 600.0;
        let out = choose_project(&mut state, 3600.0, None, &Params::default()).unwrap();
        let setup = out.state.as_ref().unwrap();
        let b_cpu = &setup.resources[0].projects[1];
        assert_eq!(
            (b_cpu.share, b_cpu.reason.to_string()),
            (0.0, "project is backed off".to_string())
        );
        assert_eq!(
            (b_cpu.backoff_left, b_cpu.backoff_interval),
            (1400.0, 600.0)
        );
        assert_eq!(out.chosen, Some(0));
    }

    /// §7.5 rule 6 and §7.8 step 1: a zero-share project with an idle instance asks for
    /// 1 instance and 1 second (saturated 0 ≤ min(0.1 × 86400, 180)).
    #[test]
    fn zero_share_project_asks_one_job_per_idle_instance() {
        let mut state = seed_two_projects();
        state.projects[0].resource_share = 0.0;
        state.projects[1].resource_share = 0.0;
        let out = choose_project(&mut state, 3600.0, None, &Params::default()).unwrap();
        assert_eq!(out.chosen, Some(0));
        assert_eq!(
            (out.request[1].req_secs, out.request[1].req_instances),
            (1.0, 1.0)
        );
    }

    /// §7.9: B reports results while A (higher or equal priority, can fetch GPU) exists.
    /// Equal priority is ignored, so B is the best for the GPU and asks; with A strictly
    /// better, B gets "not highest priority project" for the GPU.
    #[test]
    fn piggyback_respects_better_projects() {
        let mut state = seed_two_projects();
        let out = piggyback_work_request(&mut state, 1, 3600.0, None, &Params::default()).unwrap();
        assert!(out.request[1].req_secs > 0.0);
        state.projects[1].rec = 10.0;
        let out = piggyback_work_request(&mut state, 1, 3600.0, None, &Params::default()).unwrap();
        assert_eq!(out.request[1].req_secs, 0.0);
        // B still asks for CPU (A cannot: no applications).
        assert!((out.request[0].req_secs - 207360.0).abs() < 1e-6);
        assert!(out.scan.contains(&ScanNote::PiggyBetter(0)));
    }

    /// formats-log §3.15: the several-resource "don't need" text.
    #[test]
    fn dont_need_text() {
        let reason = ProjectReason::DontNeed(vec![
            (ResourceType::Cpu, RscReason::BufferFull),
            (ResourceType::Nvidia, RscReason::NotHighestPrio),
        ]);
        assert_eq!(
            reason.to_string(),
            "don't need (CPU: job cache full; NVIDIA GPU: not highest priority project)"
        );
        let reason = ProjectReason::DontNeed(vec![(ResourceType::Cpu, RscReason::None)]);
        assert_eq!(reason.to_string(), "don't need ()");
    }

    /// §7.10: 1 s per resource; none for a zero-share project.
    #[test]
    fn initial_request() {
        let mut state = seed_two_projects();
        let req = set_initial_work_request(&state, 1);
        assert_eq!(
            req.iter().map(|r| r.req_secs).collect::<Vec<_>>(),
            vec![1.0, 1.0]
        );
        state.projects[1].resource_share = 0.0;
        assert!(set_initial_work_request(&state, 1)
            .iter()
            .all(|r| r.req_secs == 0.0));
    }

    proptest! {
        /// §7.6: the fetch shares of a resource sum to 1 over the projects holding one.
        #[test]
        fn shares_sum_to_one(shares in prop::collection::vec(0.0f64..1000.0, 1..6), backed in prop::collection::vec(any::<bool>(), 6)) {
            let mut state = seed_two_projects();
            state.projects.truncate(1);
            state.projects[0].rsc[0].no_rsc_apps = false;
            state.projects[0].resource_share = shares[0];
            for (i, &share) in shares.iter().enumerate().skip(1) {
                state.projects.push(Project::new(&format!("P{i}"), share, 2));
            }
            for (i, &b) in backed.iter().enumerate().take(shares.len()) {
                if b { state.projects[i].rsc[0].backoff_time = 1e9; }
            }
            state.jobs.push(Job::new("x", 0, "x", ResourceUsage::cpu(1.0, 5e9), 1e12));
            let setup = setup(&mut state, 3600.0, None, &Params::default()).unwrap();
            for r in 0..2 {
                let holders: Vec<f64> = (0..shares.len()).filter(|&p| setup.rsc_reasons[p][r] == RscReason::None && setup.projects[p].reason == ProjectReason::None).map(|p| setup.shares[p][r]).collect();
                if !holders.is_empty() {
                    let sum: f64 = holders.iter().sum();
                    let all_zero = shares.iter().enumerate().all(|(p, &s)| s == 0.0 || setup.rsc_reasons[p][r] != RscReason::None);
                    if all_zero {
                        // Total 0: every holder gets 1 (the client's fallback).
                        prop_assert!(holders.iter().all(|&s| s == 1.0));
                    } else {
                        prop_assert!((sum - 1.0).abs() < 1e-9, "sum {}", sum);
                    }
                }
            }
        }
    }
}

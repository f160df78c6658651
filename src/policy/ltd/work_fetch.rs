//! Work fetch of 6.10.60 (client/work_fetch.cpp): overall LTD (B.6),
//! overworked (B.7), the criteria idle instance / major shortfall / minor
//! shortfall / starved with GPUs before the CPU (B.9), the request (B.10)
//! and the `[wfd]` state block.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use std::fmt;

use super::rr_sim::RrSimOutcome;
use super::{
    estimated_time_remaining, job_nearly_runnable, job_usage, rsc_name, some_job_suspended,
    work_buf_additional, work_buf_min, work_buf_total, Debts, LtdParams,
};
use crate::policy::state::{HostState, ProjectIdx, RscIdx};

/// A work-fetch criterion, in the client's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    /// `FETCH_IF_IDLE_INSTANCE`: the resource has an idle instance now.
    IdleInstance,
    /// `FETCH_IF_MAJOR_SHORTFALL`: saturated for at most `work_buf_min`.
    MajorShortfall,
    /// `FETCH_IF_MINOR_SHORTFALL`: saturated for at most `work_buf_total`.
    MinorShortfall,
    /// `FETCH_IF_PROJECT_STARVED`: a project holds less than its share (CPU only).
    Starved,
}

impl Criterion {
    /// The name the log prints (`criterion_name`).
    pub fn name(self) -> &'static str {
        match self {
            Criterion::IdleInstance => "idle instance",
            Criterion::MajorShortfall => "major shortfall",
            Criterion::MinorShortfall => "minor shortfall",
            Criterion::Starved => "starved",
        }
    }
}

/// Mirrors RSC_PROJECT_WORK_FETCH::overworked() of 6.10 (B.7):
/// `LTD < −max(86400, work_buf_total + scheduling_period)`.
pub fn overworked(state: &HostState, ltd: f64) -> bool {
    let x = (work_buf_total(state) + state.cpu_scheduling_period()).max(86400.0);
    ltd < -x
}

/// Why a project cannot fetch work at all (PROJECT_WORK_FETCH::compute_can_fetch_work() of 6.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CantFetch {
    /// Non-CPU-intensive.
    NonCpuIntensive,
    /// Suspended via the GUI.
    SuspendedViaGui,
    /// Master-file fetch pending.
    MasterFetchPending,
    /// RPC-deferred.
    RpcDeferred,
    /// "No more tasks".
    NoMoreWork,
    /// A download is stalled.
    DownloadStalled,
    /// A job is suspended via the GUI.
    JobSuspended,
    /// Too many uploading results.
    TooManyUploads,
}

/// Mirrors PROJECT_WORK_FETCH::compute_can_fetch_work() of 6.10.
pub fn can_fetch_work(state: &HostState, project: ProjectIdx, now: f64) -> Result<(), CantFetch> {
    let Some(p) = state.projects.get(project) else {
        return Err(CantFetch::NonCpuIntensive);
    };
    if p.non_cpu_intensive {
        Err(CantFetch::NonCpuIntensive)
    } else if p.suspended_via_gui {
        Err(CantFetch::SuspendedViaGui)
    } else if p.master_url_fetch_pending {
        Err(CantFetch::MasterFetchPending)
    } else if p.min_rpc_time > now {
        Err(CantFetch::RpcDeferred)
    } else if p.dont_request_more_work {
        Err(CantFetch::NoMoreWork)
    } else if super::some_download_stalled(state, project) {
        Err(CantFetch::DownloadStalled)
    } else if some_job_suspended(state, project) {
        Err(CantFetch::JobSuspended)
    } else if p.too_many_uploading_results {
        Err(CantFetch::TooManyUploads)
    } else {
        Ok(())
    }
}

/// Mirrors RSC_PROJECT_WORK_FETCH::compute_may_have_work() of 6.10: not
/// blocked by preferences and not backed off for `rsc`.
pub fn may_have_work(state: &HostState, project: ProjectIdx, rsc: RscIdx, now: f64) -> bool {
    state
        .projects
        .get(project)
        .and_then(|p| p.rsc.get(rsc))
        .is_some_and(|r| !r.no_rsc_pref && r.backoff_time < now)
}

/// Anonymous-platform project without an app version for `rsc` (`anon_skip`).
pub fn anon_skip(state: &HostState, project: ProjectIdx, rsc: RscIdx) -> bool {
    state
        .projects
        .get(project)
        .is_some_and(|p| p.anonymous_platform && !p.app_versions.iter().any(|v| v.usage.rsc == rsc))
}

/// Relative speed of a resource in 6.10 (`WORK_FETCH::init`): 1 for the
/// CPU, `count × 0.2 × peak / (NCPUS × p_fpops)` for a GPU type.
pub fn relative_speed(state: &HostState, rsc: RscIdx) -> f64 {
    match rsc.checked_sub(1).and_then(|i| state.host.coprocs.get(i)) {
        None => 1.0,
        Some(coproc) => {
            let cpu_flops = state.ninstances(0) as f64 * state.host.p_fpops;
            if cpu_flops > 0.0 {
                coproc.count as f64 * 0.2 * coproc.peak_flops / cpu_flops
            } else {
                0.0
            }
        }
    }
}

/// Mirrors WORK_FETCH::set_overall_debts() of 6.10.60 (B.6): per project,
/// `Σ_R speed(R) × (LTD(P,R) − queue(P,R)/ninstances(R))`, the queue being
/// the remaining runtime × usage of P's nearly-runnable jobs.
pub fn overall_debts(state: &HostState, debts: &Debts, now: f64) -> Vec<f64> {
    let n_rsc = state.n_rsc();
    let mut queue = vec![vec![0.0; n_rsc]; state.projects.len()];
    for (job_idx, job) in state.jobs.iter().enumerate() {
        let nci = state
            .projects
            .get(job.project)
            .is_none_or(|p| p.non_cpu_intensive);
        if nci || !job_nearly_runnable(state, job, now) {
            continue;
        }
        let (dt, _) = estimated_time_remaining(state, job_idx);
        if let Some(row) = queue.get_mut(job.project) {
            for (rsc, cell) in row.iter_mut().enumerate() {
                *cell += dt * job_usage(job, rsc);
            }
        }
    }
    (0..state.projects.len())
        .map(|p| {
            (0..n_rsc)
                .map(|rsc| {
                    let n = state.ninstances(rsc).max(1) as f64;
                    let q = queue
                        .get(p)
                        .and_then(|row| row.get(rsc))
                        .copied()
                        .unwrap_or(0.0);
                    relative_speed(state, rsc) * (debts.get(p, rsc).ltd - q / n)
                })
                .fold(0.0, |acc, x| acc + x)
        })
        .collect()
}

/// A suffix flag of a `[wfd] <rsc>: fetch share …` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuffixFlag {
    /// ` (susp via GUI)`.
    SuspendedViaGui,
    /// ` (master fetch pending)`.
    MasterFetchPending,
    /// ` (comm deferred)`.
    CommDeferred,
    /// ` (no new tasks)`.
    NoNewTasks,
    /// ` (overworked)`.
    Overworked,
    /// ` (too many uploads)`.
    TooManyUploads,
    /// ` (blocked by prefs)`.
    BlockedByPrefs,
}

impl SuffixFlag {
    /// The text appended to the line.
    pub fn text(self) -> &'static str {
        match self {
            SuffixFlag::SuspendedViaGui => " (susp via GUI)",
            SuffixFlag::MasterFetchPending => " (master fetch pending)",
            SuffixFlag::CommDeferred => " (comm deferred)",
            SuffixFlag::NoNewTasks => " (no new tasks)",
            SuffixFlag::Overworked => " (overworked)",
            SuffixFlag::TooManyUploads => " (too many uploads)",
            SuffixFlag::BlockedByPrefs => " (blocked by prefs)",
        }
    }
}

/// The state line of one resource.
#[derive(Clone, Debug, PartialEq)]
pub struct RscState {
    /// The resource.
    pub rsc: RscIdx,
    /// Its logged name.
    pub name: &'static str,
    /// Shortfall.
    pub shortfall: f64,
    /// Idle instances now.
    pub nidle: f64,
    /// Saturated time.
    pub saturated: f64,
    /// Busy time.
    pub busy: f64,
    /// Total fetchable share.
    pub fetchable_share_total: f64,
    /// Total runnable share.
    pub runnable_share_total: f64,
}

impl fmt::Display for RscState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[wfd] {}: shortfall {:.2} nidle {:.2} saturated {:.2} busy {:.2} RS fetchable {:.2} runnable {:.2}",
            self.name,
            self.shortfall,
            self.nidle,
            self.saturated,
            self.busy,
            self.fetchable_share_total,
            self.runnable_share_total
        )
    }
}

/// The state line of one (project, resource).
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectRscState {
    /// The project.
    pub project: ProjectIdx,
    /// The resource's logged name.
    pub rsc_name: &'static str,
    /// Fetchable share.
    pub fetch_share: f64,
    /// LTD.
    pub ltd: f64,
    /// Backoff time left.
    pub backoff_dt: f64,
    /// Backoff interval.
    pub backoff_int: f64,
    /// Suffix flags, in the client's order.
    pub flags: Vec<SuffixFlag>,
    /// Not logged: `nused_total` from the simulation.
    pub nused_total: f64,
}

impl fmt::Display for ProjectRscState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[wfd] {}: fetch share {:.2} LTD {:.2} backoff dt {:.2} int {:.2}",
            self.rsc_name, self.fetch_share, self.ltd, self.backoff_dt, self.backoff_int
        )?;
        for flag in &self.flags {
            f.write_str(flag.text())?;
        }
        Ok(())
    }
}

/// The `[wfd]` state block of a pass (WORK_FETCH::print_state()).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkFetchState {
    /// `work_buf_min`.
    pub work_buf_min: f64,
    /// `work_buf_additional`.
    pub work_buf_additional: f64,
    /// Per resource: the resource line, then its project lines (CPU-intensive projects).
    pub rsc: Vec<(RscState, Vec<ProjectRscState>)>,
    /// `overall LTD` per CPU-intensive project, in project order.
    pub overall_ltd: Vec<(ProjectIdx, f64)>,
}

impl WorkFetchState {
    /// The `target work buffer` line.
    pub fn target_line(&self) -> String {
        format!(
            "[wfd] target work buffer: {:.2} + {:.2} sec",
            self.work_buf_min, self.work_buf_additional
        )
    }

    /// The `overall LTD` line of one entry.
    pub fn overall_line(overall: f64) -> String {
        format!("[wfd] overall LTD {overall:.2}")
    }
}

/// The request for one resource.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RscRequest {
    /// `req_secs` (instance-seconds).
    pub secs: f64,
    /// `req_instances`.
    pub instances: f64,
}

/// The request message fields (B.10; WORK_FETCH::write_request()).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkRequest {
    /// Per resource, in resource order.
    pub rsc: Vec<RscRequest>,
    /// `work_req_seconds`: the CPU seconds (anonymous platform: max over
    /// resources it has versions for).
    pub work_req_seconds: f64,
    /// `estimated_delay`: the CPU busy time if CPU seconds are requested, else 0.
    pub estimated_delay: f64,
}

impl WorkRequest {
    /// The request of `rsc`, zero if absent.
    pub fn get(&self, rsc: RscIdx) -> RscRequest {
        self.rsc.get(rsc).copied().unwrap_or_default()
    }
}

/// The choice of a pass.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The chosen project.
    pub project: ProjectIdx,
    /// The criterion that chose it (`None` for a non-CPU-intensive project without jobs).
    pub criterion: Option<Criterion>,
    /// The resource of the criterion.
    pub rsc: RscIdx,
    /// Its logged name.
    pub rsc_name: &'static str,
    /// The request.
    pub request: WorkRequest,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.request.get(self.rsc);
        match self.criterion {
            Some(c) => write!(
                f,
                "chosen: {} {}: {:.2} inst, {:.2} sec",
                c.name(),
                self.rsc_name,
                r.instances,
                r.secs
            ),
            None => f.write_str("non-CPU-intensive project needs work: 1 s CPU"),
        }
    }
}

/// Everything one work-fetch pass decided and would log.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkFetchOutcome {
    /// The choice, if any (`None` logs `[wfd] No project chosen for work fetch`).
    pub choice: Option<Choice>,
    /// Choices abandoned with `[wfd] error: project chosen but zero request`.
    pub zero_requests: Vec<(ProjectIdx, Criterion, RscIdx)>,
    /// The state block.
    pub state: WorkFetchState,
    /// Overall debts of all projects, in project order.
    pub overall_debts: Vec<f64>,
}

/// The fetchable share of every (project, resource) and the totals
/// (WORK_FETCH::compute_shares() of 6.10): share over the shares of projects
/// that can fetch work and may have work for the resource; 1 if that total is 0.
pub fn fetchable_shares(state: &HostState, now: f64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let n_rsc = state.n_rsc();
    let n_projects = state.projects.len();
    let ok = |p: usize, r: usize| {
        can_fetch_work(state, p, now).is_ok() && may_have_work(state, p, r, now)
    };
    let totals: Vec<f64> = (0..n_rsc)
        .map(|r| {
            (0..n_projects)
                .filter(|&p| ok(p, r))
                .filter_map(|p| state.projects.get(p))
                .map(|p| p.resource_share)
                .fold(0.0, |acc, x| acc + x)
        })
        .collect();
    let shares = (0..n_projects)
        .map(|p| {
            (0..n_rsc)
                .map(|r| {
                    if !ok(p, r) {
                        return 0.0;
                    }
                    let total = totals.get(r).copied().unwrap_or(0.0);
                    if total != 0.0 {
                        state.projects.get(p).map_or(0.0, |pr| pr.resource_share) / total
                    } else {
                        1.0
                    }
                })
                .collect()
        })
        .collect();
    (shares, totals)
}

struct Ctx<'a> {
    state: &'a HostState,
    debts: &'a Debts,
    sim: &'a RrSimOutcome,
    now: f64,
    params: &'a LtdParams,
    shares: Vec<Vec<f64>>,
    overall: Vec<f64>,
}

impl Ctx<'_> {
    fn share(&self, p: ProjectIdx, r: RscIdx) -> f64 {
        self.shares
            .get(p)
            .and_then(|row| row.get(r))
            .copied()
            .unwrap_or(0.0)
    }

    fn wacky_dcf(&self, p: ProjectIdx) -> bool {
        self.state
            .projects
            .get(p)
            .is_none_or(|pr| pr.dcf < self.params.dcf_min || pr.dcf > self.params.dcf_max)
    }

    fn overworked(&self, p: ProjectIdx, r: RscIdx) -> bool {
        overworked(self.state, self.debts.get(p, r).ltd)
    }

    /// RSC_WORK_FETCH::set_request().
    fn set_request(&self, p: ProjectIdx, r: RscIdx, allow_overworked: bool) -> RscRequest {
        let mut req = RscRequest::default();
        if !may_have_work(self.state, p, r, self.now) || anon_skip(self.state, p, r) {
            return req;
        }
        if !allow_overworked && self.overworked(p, r) {
            return req;
        }
        let rsim = self.sim.rsc(r);
        let share = self.share(p, r);
        if rsim.shortfall != 0.0 {
            req.secs = if self.wacky_dcf(p) {
                1.0
            } else {
                rsim.shortfall * share
            };
        }
        let x1 = rsim.ninstances as f64 * share - self.sim.project_rsc(p, r).nused_total;
        let x2 = rsim.nidle_now * share;
        req.instances = x1.max(x2);
        if req.instances != 0.0 && req.secs == 0.0 {
            req.secs = 1.0;
        }
        req
    }

    /// RSC_WORK_FETCH::choose_project(criterion).
    fn choose(&self, r: RscIdx, criterion: Criterion) -> Option<(ProjectIdx, Vec<RscRequest>)> {
        let rsim = self.sim.rsc(r);
        let gate = match criterion {
            Criterion::IdleInstance => rsim.nidle_now != 0.0,
            Criterion::MajorShortfall => rsim.saturated_time <= work_buf_min(self.state),
            Criterion::MinorShortfall => rsim.saturated_time <= work_buf_total(self.state),
            Criterion::Starved => rsim.deadline_missed_instances < rsim.ninstances as f64,
        };
        if !gate {
            return None;
        }
        let mut best: Option<ProjectIdx> = None;
        for (p, project) in self.state.projects.iter().enumerate() {
            if can_fetch_work(self.state, p, self.now).is_err()
                || !may_have_work(self.state, p, r, self.now)
                || anon_skip(self.state, p, r)
            {
                continue;
            }
            let zero_share = project.resource_share == 0.0;
            let skip = match criterion {
                Criterion::IdleInstance => false,
                Criterion::MajorShortfall => self.wacky_dcf(p) || zero_share,
                Criterion::MinorShortfall => {
                    self.overworked(p, r) || self.wacky_dcf(p) || zero_share
                }
                Criterion::Starved => {
                    self.overworked(p, r)
                        || self.sim.project_rsc(p, r).nused_total
                            >= rsim.ninstances as f64 * self.share(p, r)
                        || zero_share
                }
            };
            if skip {
                continue;
            }
            if let Some(b) = best {
                if zero_share {
                    continue;
                }
                let ob = self.overall.get(b).copied().unwrap_or(0.0);
                let op = self.overall.get(p).copied().unwrap_or(0.0);
                if ob > op {
                    continue;
                }
            }
            best = Some(p);
        }
        let p = best?;
        let n_rsc = self.state.n_rsc();
        let mut requests = vec![RscRequest::default(); n_rsc];
        match criterion {
            Criterion::IdleInstance | Criterion::MajorShortfall => {
                if let Some(req) = requests.get_mut(r) {
                    *req = self.set_request(p, r, true);
                }
            }
            Criterion::Starved => {
                if let Some(req) = requests.get_mut(r) {
                    *req = self.set_request(p, r, false);
                }
            }
            Criterion::MinorShortfall => {
                for (rr, req) in requests.iter_mut().enumerate() {
                    if rr == 0 || self.state.gpus_usable {
                        *req = self.set_request(p, rr, false);
                    }
                }
            }
        }
        Some((p, requests))
    }
}

/// A non-CPU-intensive project that can request work and has no job
/// (WORK_FETCH::non_cpu_intensive_project_needing_work() of 6.10).
pub fn non_cpu_intensive_project_needing_work(state: &HostState, now: f64) -> Option<ProjectIdx> {
    state.projects.iter().enumerate().find_map(|(p, project)| {
        let has_job = state
            .jobs
            .iter()
            .any(|j| j.project == p && j.state <= crate::policy::state::JobState::Downloaded);
        let backed_off = project.rsc.first().is_some_and(|r| r.backoff_time > now);
        (project.non_cpu_intensive && project.can_request_work(now) && !backed_off && !has_job)
            .then_some(p)
    })
}

/// Mirrors WORK_FETCH::choose_project() of 6.10.60 (client/work_fetch.cpp;
/// B.9): overall debts, then idle instance, major shortfall and minor
/// shortfall each for NVIDIA, ATI (while GPUs are usable) and the CPU, then
/// starved for the CPU; the first criterion with a nonzero request wins.
/// `sim` is the simulation just run for this pass.
pub fn choose_project(
    state: &HostState,
    debts: &Debts,
    sim: &RrSimOutcome,
    now: f64,
    params: &LtdParams,
) -> WorkFetchOutcome {
    let n_rsc = state.n_rsc();
    let (shares, totals) = fetchable_shares(state, now);
    let overall = overall_debts(state, debts, now);
    let ctx = Ctx {
        state,
        debts,
        sim,
        now,
        params,
        shares,
        overall,
    };
    let block = state_block(&ctx, &totals);
    let mut zero_requests = Vec::new();
    let mut choice = None;
    if let Some(p) = non_cpu_intensive_project_needing_work(state, now) {
        let mut rsc = vec![RscRequest::default(); n_rsc];
        if let Some(cpu) = rsc.get_mut(0) {
            cpu.secs = 1.0;
        }
        choice = Some(Choice {
            project: p,
            criterion: None,
            rsc: 0,
            rsc_name: "CPU",
            request: WorkRequest {
                rsc,
                work_req_seconds: 1.0,
                estimated_delay: 0.0,
            },
        });
    }
    // GPU types first (NVIDIA, then ATI), then the CPU.
    let mut order: Vec<RscIdx> = Vec::new();
    if state.gpus_usable {
        for rsc in 1..n_rsc {
            if matches!(state.rsc_type(rsc), crate::resource::ResourceType::Nvidia) {
                order.push(rsc);
            }
        }
        for rsc in 1..n_rsc {
            if matches!(state.rsc_type(rsc), crate::resource::ResourceType::Amd) {
                order.push(rsc);
            }
        }
    }
    order.push(0);
    let mut attempts: Vec<(Criterion, RscIdx)> = Vec::new();
    for criterion in [
        Criterion::IdleInstance,
        Criterion::MajorShortfall,
        Criterion::MinorShortfall,
    ] {
        for &rsc in &order {
            attempts.push((criterion, rsc));
        }
    }
    attempts.push((Criterion::Starved, 0));
    if choice.is_none() {
        for (criterion, rsc) in attempts {
            let Some((p, requests)) = ctx.choose(rsc, criterion) else {
                continue;
            };
            let own = requests.get(rsc).copied().unwrap_or_default();
            if own.secs == 0.0 && own.instances == 0.0 {
                zero_requests.push((p, criterion, rsc));
                continue;
            }
            let request = make_request(state, p, requests, sim);
            choice = Some(Choice {
                project: p,
                criterion: Some(criterion),
                rsc,
                rsc_name: rsc_name(state, rsc),
                request,
            });
            break;
        }
    }
    WorkFetchOutcome {
        choice,
        zero_requests,
        state: block,
        overall_debts: ctx.overall,
    }
}

/// Mirrors WORK_FETCH::write_request() of 6.10 (B.10).
fn make_request(
    state: &HostState,
    project: ProjectIdx,
    rsc: Vec<RscRequest>,
    sim: &RrSimOutcome,
) -> WorkRequest {
    let cpu = rsc.first().copied().unwrap_or_default();
    let mut work_req_seconds = cpu.secs;
    if state
        .projects
        .get(project)
        .is_some_and(|p| p.anonymous_platform)
    {
        for (r, req) in rsc.iter().enumerate().skip(1) {
            if !anon_skip(state, project, r) && req.secs > work_req_seconds {
                work_req_seconds = req.secs;
            }
        }
    }
    let estimated_delay = if cpu.secs != 0.0 {
        sim.rsc(0).busy_time
    } else {
        0.0
    };
    WorkRequest {
        rsc,
        work_req_seconds,
        estimated_delay,
    }
}

fn state_block(ctx: &Ctx<'_>, totals: &[f64]) -> WorkFetchState {
    let state = ctx.state;
    let mut rsc_lines = Vec::new();
    for rsc in 0..state.n_rsc() {
        let rsim = ctx.sim.rsc(rsc);
        let name = rsc_name(state, rsc);
        let line = RscState {
            rsc,
            name,
            shortfall: rsim.shortfall,
            nidle: rsim.nidle_now,
            saturated: rsim.saturated_time,
            busy: rsim.busy_time,
            fetchable_share_total: totals.get(rsc).copied().unwrap_or(0.0),
            runnable_share_total: rsim.total_runnable_share,
        };
        let mut projects = Vec::new();
        for (p, project) in state.projects.iter().enumerate() {
            if project.non_cpu_intensive {
                continue;
            }
            let prsc = project.rsc.get(rsc);
            let backoff_time = prsc.map_or(0.0, |r| r.backoff_time);
            let mut flags = Vec::new();
            if project.suspended_via_gui {
                flags.push(SuffixFlag::SuspendedViaGui);
            }
            if project.master_url_fetch_pending {
                flags.push(SuffixFlag::MasterFetchPending);
            }
            if project.min_rpc_time > ctx.now {
                flags.push(SuffixFlag::CommDeferred);
            }
            if project.dont_request_more_work {
                flags.push(SuffixFlag::NoNewTasks);
            }
            if ctx.overworked(p, rsc) {
                flags.push(SuffixFlag::Overworked);
            }
            if project.too_many_uploading_results {
                flags.push(SuffixFlag::TooManyUploads);
            }
            if prsc.is_some_and(|r| r.no_rsc_pref) {
                flags.push(SuffixFlag::BlockedByPrefs);
            }
            projects.push(ProjectRscState {
                project: p,
                rsc_name: name,
                fetch_share: ctx.share(p, rsc),
                ltd: ctx.debts.get(p, rsc).ltd,
                backoff_dt: if backoff_time > ctx.now {
                    backoff_time - ctx.now
                } else {
                    0.0
                },
                backoff_int: prsc.map_or(0.0, |r| r.backoff_interval),
                flags,
                nused_total: ctx.sim.project_rsc(p, rsc).nused_total,
            });
        }
        rsc_lines.push((line, projects));
    }
    let overall_ltd = state
        .projects
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.non_cpu_intensive)
        .map(|(p, _)| (p, ctx.overall.get(p).copied().unwrap_or(0.0)))
        .collect();
    WorkFetchState {
        work_buf_min: work_buf_min(state),
        work_buf_additional: work_buf_additional(state),
        rsc: rsc_lines,
        overall_ltd,
    }
}

/// The piggy-backed request of [`compute_work_request`] and the
/// `choose_project()` pass it made to decide (the pass logs like any other).
#[derive(Clone, Debug)]
pub struct PiggybackRequest {
    /// The request.
    pub request: WorkRequest,
    /// The pass with the project's backoffs cleared; `None` when the request
    /// was decided without one (no-new-work and non-CPU-intensive projects).
    pub pass: Option<WorkFetchOutcome>,
}

/// Mirrors WORK_FETCH::compute_work_request() of 6.10.60: the piggy-backed
/// request of an RPC made to `project` for another reason. Backoffs of the
/// project are ignored for the decision; if it would be chosen anyway, every
/// resource with a shortfall is requested, else nothing.
pub fn compute_work_request(
    state: &HostState,
    debts: &Debts,
    sim: &RrSimOutcome,
    project: ProjectIdx,
    now: f64,
    params: &LtdParams,
) -> PiggybackRequest {
    let n_rsc = state.n_rsc();
    let empty = WorkRequest {
        rsc: vec![RscRequest::default(); n_rsc],
        work_req_seconds: 0.0,
        estimated_delay: 0.0,
    };
    let without_pass = |request| PiggybackRequest {
        request,
        pass: None,
    };
    let Some(p) = state.projects.get(project) else {
        return without_pass(empty);
    };
    if p.dont_request_more_work {
        return without_pass(empty);
    }
    if p.non_cpu_intensive {
        let has_job = state
            .jobs
            .iter()
            .any(|j| j.project == project && j.state <= crate::policy::state::JobState::Downloaded);
        if has_job {
            return without_pass(empty);
        }
        let mut req = empty;
        if let Some(cpu) = req.rsc.get_mut(0) {
            cpu.secs = 1.0;
        }
        req.work_req_seconds = 1.0;
        return without_pass(req);
    }
    let mut cleared = state.clone();
    if let Some(cp) = cleared.projects.get_mut(project) {
        for r in &mut cp.rsc {
            r.backoff_time = 0.0;
        }
    }
    let outcome = choose_project(&cleared, debts, sim, now, params);
    if outcome.choice.as_ref().map(|c| c.project) != Some(project) {
        return PiggybackRequest {
            request: empty,
            pass: Some(outcome),
        };
    }
    // set_all_requests() with the real backoffs.
    let (shares, _) = fetchable_shares(state, now);
    let ctx = Ctx {
        state,
        debts,
        sim,
        now,
        params,
        shares,
        overall: outcome.overall_debts.clone(),
    };
    let requests = (0..n_rsc)
        .map(|r| {
            if r == 0 || state.gpus_usable {
                ctx.set_request(project, r, false)
            } else {
                RscRequest::default()
            }
        })
        .collect();
    PiggybackRequest {
        request: make_request(state, project, requests, sim),
        pass: Some(outcome),
    }
}

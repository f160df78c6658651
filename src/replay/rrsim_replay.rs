//! A real client's round-robin simulation made again by the client loop
//! (spec/policy-current.md §4: client/rr_sim.cpp `RR_SIM::simulate`,
//! `init_pending_lists`, `pick_jobs_to_run`) over the host its log tells at
//! the simulation's start line, and compared with what the client printed:
//! each job's projected finish and the jobs that miss their deadline.
//!
//! What the run rests on, and where each input comes from:
//! - the jobs in the simulation and their order: every job the log saw
//!   arrive and not yet done, suspended or postponed, in the client's order
//!   (by reply, then the MD5 of the name: `sort_results`), read by
//!   [`super::joblog::hosts_at`];
//! - the projects' order: the pick takes the project the running process
//!   allocated last first (the heap compares the PROJECT pointers; §9.1),
//!   which is the order of the start-up's `URL …` lines, then of the
//!   projects attached later;
//! - each job's FLOPs left when the simulation began and its simulated
//!   rate: printed by the simulation itself (`(LEFTG/RATEG)` of its
//!   `starting` or `finishes` line, 7.4 on), to 0.01 GFLOP;
//! - the usable CPUs: the count printed last (`set_request() … ninst`,
//!   `Number of usable CPUs has changed`), else the next one the same
//!   process prints, else the start-up's count;
//! - max_concurrent limits announced at start-up, each job's app (replies);
//! - each job's report deadline (scheduler replies, client states) and
//!   the buffer's minimum (`[rr_sim] start: work_buf min`, whole seconds),
//!   on the host's clock (`Local time is UTC +N hours`, the 1-s stamp).
//!
//! The rounded inputs make each finish known to an interval: a job's run
//! time `L / R` is off by at most `0.005/R + L × 0.005/R²` seconds, and a
//! job starts at a pick that an earlier finish brought, so its finish
//! carries the widest interval of the finishes before its start plus its
//! own. A deadline miss within that interval (plus the stamp's second and
//! the buffer's half second) is not decided: the point is not checked and
//! says why. GPU jobs are not recomputed here.
//!
//! Architecture Invariant: pure; reads events and recorded points, and
//! runs the client loop on the host built from them (the world it plugs
//! in is that host, anchored at each recorded simulation).

use super::decision::{Decision, FetchDump, RscSlack, RscState, ShareState};
use super::joblog::{HostView, JobCarry, JobFacts, PeakCount, SeenJob};
use super::recorded::RecordedPoint;
use crate::client_loop::{self, anchored::Decide};
use crate::policy::rr_sim::{BusyTimeEstimator, RrSimNote, RrSimOutcome};
use crate::policy::state::{
    App, AppVersion, Host, HostState, Job, JobState, Project, ResourceUsage,
};
use crate::policy::Params;
use crate::resource::ResourceType;
use crate::trace::event::LogEvent;
use crate::trace::message::Message;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A simulation run again, or why it could not be.
pub type Resimulated = Result<Rerun, String>;

/// What a simulation run again gives.
#[derive(Clone, Debug)]
pub struct Rerun {
    /// The decision, with each finish's interval.
    pub decision: Decision,
    /// What it rested on.
    pub reason: String,
    /// The second it ran at (the log's stamp, on the log's base).
    pub stamp: f64,
    /// The second its end line printed at: a long simulation runs into the
    /// next second, and its work-fetch block with it.
    pub end_stamp: f64,
    /// The CPU figures a work-fetch state block reports of it.
    pub cpu: RscState,
    /// How the busy time's interval was found, where more than one order of
    /// the deadline misses feeding it is open (else empty).
    pub busy_note: String,
    /// Each project's CPU shortfall under its max_concurrent limits
    /// (`mc_shortfall`, rr_sim.cpp mc_update_stats) and its interval, from
    /// the project's own steps ([`mc_shortfalls`]).
    pub mc_shortfalls: Vec<(String, f64, f64)>,
    /// Each project's last start its max_concurrent limit stopped
    /// (`last_mc_limit_reltime`, rr_sim.cpp) and that time's interval.
    pub mc_limit_times: Vec<(String, f64, f64)>,
    /// Its `[prio]` initialisation ([`super::prio_replay`]), or what the
    /// record lacks for it.
    pub prio: Result<super::prio_replay::Initialised, String>,
    /// What a work-fetch block's project lines at its second rest on.
    pub projects: super::fetch_projects::Inputs,
}

/// Half a unit of the printed GFLOP figures (`%.2f`).
const GFLOP_HALF_UNIT: f64 = 0.005;

/// Half a unit of a printed CPU use (`%.2f CPU`).
const CPU_HALF_UNIT: f64 = 0.005;

/// How far the usable CPU count is looked for after a simulation that
/// precedes the first line stating it.
const NCPUS_REACH: usize = 4096;

/// Each recorded simulation from `from` on run again (keyed by its start
/// line's event index), over the host its window's lines tell at it
/// (`views`: [`super::joblog::hosts_at`]): the client loop makes
/// the simulations there ([`crate::client_loop::ClientLoop::run_moments`]).
/// `earlier`: the last simulation of the windows before (its line here,
/// before `from`, and the jobs as told just before it), made again too,
/// for the blocks that rest on it.
pub fn resimulate_from(
    events: &[LogEvent],
    points: &[RecordedPoint],
    facts: &JobFacts,
    mut views: BTreeMap<usize, Result<HostView, String>>,
    earlier: Option<&(usize, JobCarry)>,
    params: &Params,
    from: usize,
) -> BTreeMap<usize, Resimulated> {
    let earlier = earlier.filter(|(idx, _)| *idx < from);
    let sims: Vec<(usize, Recorded<'_>)> = points
        .iter()
        .filter(|p| {
            (p.event_idx >= from || earlier.is_some_and(|(idx, _)| *idx == p.event_idx))
                && !p.cut_before
        })
        .filter_map(|p| match &p.decision {
            Decision::RrSim {
                finishes, misses, ..
            } => Some((p.event_idx, Recorded { finishes, misses })),
            _ => None,
        })
        .collect();
    if let Some((idx, jobs)) = earlier {
        views.extend(super::joblog::views_at(
            events,
            facts,
            Some(jobs),
            *idx,
            &[*idx],
        ));
    }
    let mut moments: Vec<Result<Moment, String>> = sims
        .iter()
        .map(|&(idx, _)| match views.get(&idx) {
            Some(Ok(view)) => prepare(events, idx, view, facts).map(|mut moment| {
                if let Some(state) = moment.state.as_mut() {
                    moment.prio = super::prio_replay::set_inputs(state, view, facts);
                }
                moment
            }),
            Some(Err(why)) => Err(why.clone()),
            None => Err("the log ends before this simulation".into()),
        })
        .collect();
    let made = run_loop(&mut moments, params);
    sims.iter()
        .zip(moments)
        .zip(made)
        .map(|((&(idx, recorded), moment), made)| {
            let outcome = moment.and_then(|moment| {
                let (state, outcome) = made?;
                Ok(judge(&moment, &state, &outcome, params, recorded))
            });
            (idx, outcome)
        })
        .collect()
}

/// A recorded simulation's moment: the host it reconstructs and what the
/// comparison needs of the record.
pub(super) struct Moment {
    /// The host; taken by the loop when it anchors there.
    pub(super) state: Option<HostState>,
    /// Each state job's inputs, as printed and narrowed.
    pub(super) printed: Vec<Printed>,
    /// Some job's rate was narrowed by its app version's FLOPS.
    narrowed_by_flops: bool,
    buf_min: f64,
    buf_total: f64,
    /// Half the unit the buffer is known to.
    buf_half: f64,
    /// The client's `now` (UTC) and the log's stamp.
    pub(super) now: f64,
    stamp: f64,
    end_stamp: f64,
    pub(super) ncpus: u32,
    ncpus_from: &'static str,
    /// The projects in the order the pick takes them.
    pick_order: Vec<String>,
    /// What its priority initialisation rests on, or what the record lacks.
    prio: Result<super::prio_replay::Inputs, String>,
    /// What a work-fetch block's project lines at its second rest on.
    projects: super::fetch_projects::Inputs,
}

impl super::reconstructed::Moment for Moment {
    fn take_host(&mut self) -> Option<(HostState, f64)> {
        Some((self.state.take()?, self.now))
    }
}

/// The client loop over the reconstructed host, one simulation per
/// moment: each moment's simulation with its host, or why there is none.
fn run_loop(
    moments: &mut [Result<Moment, String>],
    params: &Params,
) -> Vec<Result<(HostState, RrSimOutcome), String>> {
    super::reconstructed::made(moments, params, Decide::RrSim, |event| match event {
        client_loop::LoopEvent::RrSim(outcome) => Some((*outcome).clone()),
        _ => None,
    })
}

/// One job's lines in the printed simulation.
#[derive(Clone, Debug)]
pub(super) struct Printed {
    ncpus: f64,
    gpu: bool,
    /// GFLOPs left when the simulation began.
    pub(super) left: f64,
    /// Simulated GFLOPS (the centre of what the record allows).
    pub(super) rate: f64,
    /// Half the width of the rate's interval, GFLOPS.
    pub(super) rate_half: f64,
    /// Half the width of the CPU use's interval.
    ncpus_half: f64,
}

/// What a printed simulation gives as inputs.
struct SimLines {
    /// `work_buf min`, seconds (printed whole).
    buf_min: f64,
    /// `total` (min + additional), seconds (printed whole).
    buf_total: f64,
    /// The CPU availability (on_frac × active_frac) the printed `%.3f`
    /// figures allow.
    cpu_frac: (f64, f64),
    jobs: HashMap<String, Printed>,
    /// The stamp of its `[rr_sim] end` line, where it has one.
    end_stamp: Option<f64>,
    /// Half the unit `buf_min` and `buf_total` are known to.
    buf_half: f64,
}

/// The lines a simulation prints between its start and its end.
fn in_simulation(message: &Message) -> bool {
    matches!(
        message,
        Message::ProjectPriority { .. }
            | Message::PickJobsToRunStart
            | Message::PickJobsToRunEnd
            | Message::JobsForRsc { .. }
            | Message::SimStarting { .. }
            | Message::SimFinishes { .. }
            | Message::AtProjectMaxConcurrent { .. }
            | Message::AtAppMaxConcurrent { .. }
            | Message::NextJobToFinish { .. }
            | Message::TimeSliceStep { .. }
            | Message::RpBest { .. }
            | Message::MissesDeadline { .. }
            | Message::MissesDeadlineTooLarge { .. }
            | Message::NegativeFlopsLeft { .. }
            | Message::SimRscInstances { .. }
    )
}

fn read_simulation(events: &[LogEvent], idx: usize) -> Result<SimLines, String> {
    let Some(Message::RrSimStart {
        work_buf_min,
        total,
        on_frac,
        active_frac,
        ..
    }) = events.get(idx).map(|e| &e.message)
    else {
        return Err(
            "a 6.x simulation (`rr_sim start: work_buf_total`) prints no job's \
                    FLOPs left when it begins"
                .into(),
        );
    };
    let mut jobs: HashMap<String, Printed> = HashMap::new();
    let mut end = None;
    for (k, event) in events.iter().enumerate().skip(idx + 1) {
        let (job, resources, left, rate) = match &event.message {
            Message::RrSimEnd => {
                end = Some((k, event.time.secs()));
                break;
            }
            Message::SimStarting {
                job,
                resources,
                gflops_left,
                gflops_rate,
                ..
            } => (job, resources, *gflops_left, *gflops_rate),
            Message::SimFinishes {
                job,
                resources,
                gflops_left,
                gflops_rate,
                ..
            } => (job, resources, Some(*gflops_left), Some(*gflops_rate)),
            other if in_simulation(other) => continue,
            _ => break,
        };
        let (Some(left), Some(rate)) = (left, rate) else {
            return Err(format!(
                "the simulation prints no FLOPs left for {job} (before 7.4 the `starting` \
                 line has none)"
            ));
        };
        if jobs.contains_key(job.as_str()) {
            continue;
        }
        let (ncpus, gpu) = match resources {
            Some(r) => (r.ncpus, r.coproc.is_some()),
            None => {
                return Err(format!(
                    "the simulation prints no resource use for {job} (7.0-7.2)"
                ))
            }
        };
        jobs.insert(
            job.to_string(),
            Printed {
                ncpus,
                gpu,
                left,
                rate,
                rate_half: GFLOP_HALF_UNIT,
                ncpus_half: CPU_HALF_UNIT,
            },
        );
    }
    let (buf_min, buf_total, buf_half) = end
        .and_then(|(k, _)| block_buffer(events, k, *work_buf_min, *total))
        .unwrap_or((*work_buf_min, *total, BUFFER_HALF_UNIT));
    Ok(SimLines {
        buf_min,
        buf_total,
        cpu_frac: frac_interval(*on_frac, *active_frac),
        jobs,
        end_stamp: end.and_then(|(_, stamp)| stamp),
        buf_half,
    })
}

/// How far after a simulation's end its work-fetch block's buffer line is
/// looked for (the `[prio]` and MC lines between are a few per project).
const BLOCK_REACH: usize = 256;

/// The buffer as the work-fetch block after a simulation's end (line
/// `end`) prints it (`target work buffer: %.2f + %.2f sec`), where that
/// block is the same pass's (before any other simulation or block) and
/// agrees with the whole seconds the simulation's start line printed: its
/// minimum, total and the half unit they are known to.
fn block_buffer(events: &[LogEvent], end: usize, min: f64, total: f64) -> Option<(f64, f64, f64)> {
    for event in events.iter().skip(end + 1).take(BLOCK_REACH) {
        match &event.message {
            Message::TargetWorkBuffer {
                min_secs,
                additional_secs,
            } => {
                let (lo, hi) = (*min_secs, min_secs + additional_secs);
                let agrees = (lo - min).abs() <= BUFFER_HALF_UNIT + 0.005
                    && (hi - total).abs() <= BUFFER_HALF_UNIT + 0.01;
                return agrees.then_some((lo, hi, 0.01));
            }
            Message::RrSimStart { .. } | Message::RrSimEnd | Message::WorkFetchStateEnd => {
                return None
            }
            _ => {}
        }
    }
    None
}

/// The product of two availability fractions printed to three decimals
/// (each at most 1: `clamp_frac`).
fn frac_interval(on_frac: f64, active_frac: f64) -> (f64, f64) {
    let half = 0.0005;
    let lo = (on_frac - half).max(0.0) * (active_frac - half).max(0.0);
    let hi = (on_frac + half).min(1.0) * (active_frac + half).min(1.0);
    (lo, hi)
}

/// A job's simulated rate, narrowed by its app version's FLOPS (client
/// states, replies) times the availability the start line printed, where
/// that agrees with the printed `%.2fG`; the centre and half-width, and
/// whether the app's FLOPS narrowed it.
fn rate_interval(
    printed: &Printed,
    app_flops: Option<f64>,
    cpu_frac: (f64, f64),
) -> (f64, f64, bool) {
    let (lo, hi) = (
        printed.rate - GFLOP_HALF_UNIT,
        printed.rate + GFLOP_HALF_UNIT,
    );
    if let Some(flops) = app_flops {
        let (a, b) = (flops / 1e9 * cpu_frac.0, flops / 1e9 * cpu_frac.1);
        let (lo, hi) = (lo.max(a), hi.min(b));
        if lo <= hi {
            return ((lo + hi) / 2.0, (hi - lo) / 2.0, true);
        }
    }
    ((lo + hi) / 2.0, (hi - lo) / 2.0, false)
}

/// The usable CPUs at a simulation: the count printed last, else the next
/// one the same process prints (before a change of count), else the
/// start-up's; with where it came from.
fn usable_cpus(events: &[LogEvent], idx: usize, view: &HostView) -> Option<(u32, &'static str)> {
    if let Some(n) = view.ncpus {
        return Some((n, "the count printed last"));
    }
    for event in events.iter().skip(idx + 1).take(NCPUS_REACH) {
        match &event.message {
            Message::SetRequest { rsc, ninst, .. } if *rsc == ResourceType::Cpu => {
                return Some((*ninst, "the next set_request() of the same process"));
            }
            Message::UsingCpus { ncpus, .. } => {
                return Some((
                    *ncpus,
                    "the next `using X out of N CPUs` of the same process",
                ));
            }
            Message::ClientStart { .. } | Message::UsableCpusChanged { .. } => break,
            _ => {}
        }
    }
    view.startup_ncpus
        .map(|n| (n, "the start-up's count (Config: simulate / Processor)"))
}

/// The view's projects in the process's order, each with its place in the
/// allocation order (`PROJECT::alloc_seq`).
fn vector_order(view: &HostView) -> Vec<(usize, &String)> {
    let mut order: Vec<(usize, &String)> = view.projects.iter().enumerate().collect();
    if view.sorted_by_name {
        // strcasecmp: ASCII letters compare as lowercase.
        order.sort_by_key(|(_, name)| name.to_ascii_lowercase());
    }
    order
}

/// A simulation's host: the view's jobs with their printed sizes.
struct Built {
    state: HostState,
    /// Each state job's inputs, as printed and narrowed.
    printed: Vec<Printed>,
    /// Some job's rate was narrowed by its app version's FLOPS.
    narrowed_by_flops: bool,
}

fn build_state(
    view: &HostView,
    facts: &JobFacts,
    lines: &SimLines,
    ncpus: u32,
    now: f64,
) -> Result<Built, String> {
    let narrowed_by_flops = &mut false;
    let mut state = HostState::new(Host {
        p_ncpus: ncpus,
        p_fpops: 1e9,
        m_nbytes: 0.0,
        coprocs: Vec::new(),
    });
    state.prefs.max_ncpus_pct = 100.0;
    state.prefs.niu_max_ncpus_pct = -1.0;
    state.prefs.work_buf_min_days = lines.buf_min / 86400.0;
    state.prefs.work_buf_additional_days = (lines.buf_total - lines.buf_min).max(0.0) / 86400.0;
    state.time_stats.on_frac = 1.0;
    state.time_stats.active_frac = 1.0;
    state.time_stats.gpu_active_frac = 1.0;
    state.time_stats.cpu_and_network_available_frac = 1.0;
    for (seq, name) in vector_order(view) {
        let mut project = Project::new(name, 100.0, 1);
        project.alloc_seq = seq as u32;
        project.project_max_concurrent = view
            .project_limits
            .iter()
            .find(|(p, _)| p == name)
            .map(|(_, max)| *max);
        // Each app limit counts in the project's smallest limit, the MC
        // shortfall's `max_nused` (lib/cc_config.cpp APP_CONFIGS::parse
        // `project_min_mc`), whether or not a job of that app is on the host.
        for (_, app, max) in view.app_limits.iter().filter(|(p, _, _)| p == name) {
            let mut entry = App::new(app);
            entry.max_concurrent = Some(*max);
            project.apps.push(entry);
        }
        state.projects.push(project);
    }
    let mut printed = Vec::new();
    // A job whose files may or may not have started downloading (task_debug
    // off) was in the simulation exactly when it printed a line for it.
    let simulated: Vec<&SeenJob> = view
        .jobs
        .iter()
        .filter(|j| {
            j.nearly_runnable || (j.maybe_nearly_runnable && lines.jobs.contains_key(&j.name))
        })
        .collect();
    for job in &simulated {
        let Some(p) = lines.jobs.get(&job.name) else {
            return Err(format!(
                "{} is on the host and runnable by the log's account, but the simulation \
                 printed no line for it: its FLOPs left are not in the record",
                job.name
            ));
        };
        if p.gpu {
            return Err(format!(
                "{} uses a GPU: coprocessor instances and exclusions are not recomputed from \
                 the log",
                job.name
            ));
        }
        if p.rate < GFLOP_HALF_UNIT {
            return Err(format!("{}'s rate is printed as {:.2}G", job.name, p.rate));
        }
        let Some(project) = state
            .projects
            .iter()
            .position(|p| p.name == job.project.as_str())
        else {
            return Err(format!(
                "{}'s project {} is not known",
                job.name, job.project
            ));
        };
        let Some(deadline) = job.deadline else {
            return Err(format!(
                "{}'s report deadline is not in the record (its scheduler reply under rpcs/ \
                 or a client_state.xml holding it)",
                job.name
            ));
        };
        let app = job.app.clone().unwrap_or_default();
        let app_flops = job
            .app
            .as_ref()
            .and_then(|a| facts.app_flops.get(a).copied().flatten());
        let (rate, rate_half, narrowed) = rate_interval(p, app_flops, lines.cpu_frac);
        *narrowed_by_flops |= narrowed;
        // The app version's CPU use, where it prints as the job's.
        let (ncpus, ncpus_half) = match job.app.as_ref().and_then(|a| facts.app_ncpus.get(a)) {
            Some(Some(n)) if (n - p.ncpus).abs() <= CPU_HALF_UNIT => (*n, 0.0),
            _ => (p.ncpus, CPU_HALF_UNIT),
        };
        let p = &Printed {
            rate,
            rate_half,
            ncpus,
            ncpus_half,
            ..p.clone()
        };
        let usage = ResourceUsage::cpu(p.ncpus, p.rate * 1e9);
        add_app(&mut state.projects[project], &app, &usage);
        let mut sim_job = Job::new(&job.name, project, &app, usage, p.left * 1e9);
        sim_job.exact_flops_remaining = Some(p.left * 1e9);
        sim_job.report_deadline = deadline;
        sim_job.state = JobState::Downloaded;
        sim_job.alloc_seq = state.jobs.len() as u64;
        state.jobs.push(sim_job);
        printed.push(p.clone());
    }
    if let Some(extra) = lines
        .jobs
        .keys()
        .find(|name| !simulated.iter().any(|j| j.name == **name))
    {
        return Err(format!(
            "the simulation ran {extra}, which the log's account does not hold runnable at \
             {now:.0}"
        ));
    }
    Ok(Built {
        state,
        printed,
        narrowed_by_flops: *narrowed_by_flops,
    })
}

/// What a work-fetch block's project lines at the simulation's second rest
/// on ([`super::fetch_projects`]): the simulation's FLOPs left per project,
/// the jobs outside it, and the view's RECs, suspensions and reasons.
fn project_inputs(
    view: &HostView,
    facts: &JobFacts,
    state: &HostState,
    printed: &[Printed],
    ncpus: u32,
    clock: Clock,
) -> super::fetch_projects::Inputs {
    let mut queued: HashMap<String, (f64, usize)> = HashMap::new();
    for (job, p) in state.jobs.iter().zip(printed) {
        if let Some(project) = state.projects.get(job.project) {
            let entry = queued.entry(project.name.to_string()).or_default();
            entry.0 += p.left * 1e9;
            entry.1 += 1;
        }
    }
    let mut unprinted: HashMap<String, Vec<String>> = HashMap::new();
    let simulated: HashSet<&str> = state.jobs.iter().map(|j| j.name.as_str()).collect();
    for job in view
        .jobs
        .iter()
        .filter(|j| !j.done && !simulated.contains(j.name.as_str()))
    {
        unprinted
            .entry(job.project.clone())
            .or_default()
            .push(job.name.clone());
    }
    // The peak-FLOPS total rests on the CPUs and the FLOPS per CPU in
    // force when the process computed it (this block's, if not before).
    let (peak_ncpus, at) = match &view.peak {
        PeakCount::Fixed { ncpus, at } => (*ncpus, Some(*at)),
        PeakCount::Pending { at } => (ncpus, Some(*at)),
        PeakCount::Unfixed | PeakCount::Unknown(_) => (ncpus, None),
    };
    let p_fpops = match &view.peak {
        PeakCount::Unknown(why) => Err(why.clone()),
        _ => {
            let (lo, hi) = match (at, clock.exact_now) {
                (Some(at), _) => super::joblog::now_at_stamp(at),
                (None, Some(now)) => (now, now + 1e-6),
                (None, None) => super::joblog::now_at_stamp(clock.stamp),
            };
            facts.p_fpops_during(clock.unix(lo), clock.unix(hi))
        }
    };
    super::fetch_projects::Inputs {
        ncpus: peak_ncpus,
        p_fpops,
        exact_now: clock.exact_now,
        queued,
        unprinted,
        recs: view.recs.clone(),
        untouched: view.untouched.clone(),
        suspended: view.suspended_projects.clone(),
        shares: facts
            .shares
            .iter()
            .filter_map(|(name, share)| Some((name.clone(), (*share)?)))
            .collect(),
        mc_projects: view
            .app_limits
            .iter()
            .map(|(p, ..)| p.clone())
            .chain(view.project_limits.iter().map(|(p, _)| p.clone()))
            .collect(),
        flags: view.fetch_flags.clone(),
    }
}

/// Adds the job's app and an app version of its usage to the project,
/// once (an app with a max_concurrent is already there: `build_state` adds
/// every limited app first).
fn add_app(project: &mut Project, app: &str, usage: &ResourceUsage) {
    if !project.apps.iter().any(|a| a.name == app) {
        project.apps.push(App::new(app));
    }
    if !project
        .app_versions
        .iter()
        .any(|v| v.app == app && v.usage.avg_ncpus == usage.avg_ncpus)
    {
        project.app_versions.push(AppVersion {
            app: app.into(),
            usage: usage.clone(),
            needs_network: false,
        });
    }
}

/// Each finish's interval (seconds), in the outcome's finish order: the
/// widest interval of the finishes before the job's first pick, plus its
/// own run time's.
fn finish_slack(outcome: &RrSimOutcome, printed: &[Printed]) -> Vec<f64> {
    let mut start_slack: HashMap<usize, f64> = HashMap::new();
    let mut widest: f64 = 0.0;
    let mut slack = vec![0.0; outcome.finishes.len()];
    for note in &outcome.notes {
        match note {
            RrSimNote::Starting {
                job, first: true, ..
            } => {
                start_slack.insert(*job, widest);
            }
            RrSimNote::Finish(k) => {
                let Some(finish) = outcome.finishes.get(*k) else {
                    continue;
                };
                let own = printed.get(finish.job).map_or(0.0, |p| {
                    GFLOP_HALF_UNIT / (p.rate - p.rate_half)
                        + p.left.abs() * p.rate_half / (p.rate * (p.rate - p.rate_half))
                });
                let s = start_slack.get(&finish.job).copied().unwrap_or(widest) + own;
                slack[*k] = s;
                widest = widest.max(s);
            }
            _ => {}
        }
    }
    slack
}

/// A simulation's second on the log's clock and the host's offset from
/// UTC.
#[derive(Clone, Copy)]
struct Clock {
    /// The simulation's stamp (log clock).
    stamp: f64,
    /// The host's offset from UTC, seconds.
    offset: f64,
    /// The poll's `now` (log clock) where its `choose_project(): %f` line
    /// prints it.
    exact_now: Option<f64>,
}

impl Clock {
    /// A time on the log's clock as Unix seconds.
    fn unix(self, log: f64) -> f64 {
        log - self.offset
    }
}

/// The `now` of the poll whose simulation starts at `idx`, on the log's
/// clock, where its `choose_project(): %f` line (7.16-7.24, printed just
/// before the work fetch's simulation) prints it; `None` where none comes
/// right before it in its second.
fn exact_now(events: &[LogEvent], idx: usize, stamp: f64, offset: i64) -> Option<f64> {
    for event in events[..idx.min(events.len())].iter().rev() {
        if event.time.secs() != Some(stamp) {
            return None;
        }
        match &event.message {
            Message::ChooseProjectTime { now } => {
                // The poll's own now: before its line's stamp ends, however
                // long the poll took.
                let log = now + offset as f64;
                return (log < stamp + 1.0).then_some(log);
            }
            Message::RrSimEnd | Message::WorkFetchStateEnd | Message::RrSimStart { .. } => {
                return None
            }
            _ => {}
        }
    }
    None
}

/// The host a recorded simulation's lines tell, or what the record lacks.
pub(super) fn prepare(
    events: &[LogEvent],
    idx: usize,
    view: &HostView,
    facts: &JobFacts,
) -> Result<Moment, String> {
    if view.gpu_host {
        return Err(
            "a GPU host: coprocessor instances and exclusions are not recomputed from \
                    the log"
                .into(),
        );
    }
    let lines = read_simulation(events, idx)?;
    let Some(offset) = view.utc_offset_secs else {
        return Err(
            "the host's offset from UTC (`Local time is UTC +N hours`) is not in the \
                    log: the report deadlines cannot be placed on its clock"
                .into(),
        );
    };
    let Some(stamp) = events.get(idx).and_then(|e| e.time.secs()) else {
        return Err("the simulation's line has no time".into());
    };
    let Some((ncpus, ncpus_from)) = usable_cpus(events, idx, view) else {
        return Err("the usable CPU count is not in the log".into());
    };
    // The stamp is the second the clock was in: the client's `now` lies
    // within it.
    let now = stamp - offset as f64 + 0.5;
    let Built {
        state,
        printed,
        narrowed_by_flops,
    } = build_state(view, facts, &lines, ncpus, now)?;
    let clock = Clock {
        stamp,
        offset: offset as f64,
        exact_now: exact_now(events, idx, stamp, offset),
    };
    let projects = project_inputs(view, facts, &state, &printed, ncpus, clock);
    Ok(Moment {
        projects,
        state: Some(state),
        printed,
        narrowed_by_flops,
        buf_min: lines.buf_min,
        buf_total: lines.buf_total,
        buf_half: lines.buf_half,
        now,
        stamp,
        end_stamp: lines.end_stamp.unwrap_or(stamp),
        ncpus,
        ncpus_from,
        pick_order: view.projects.iter().rev().cloned().collect(),
        prio: Err("the simulation's priority inputs were not read".into()),
    })
}

/// What a recorded simulation printed of its outcome.
#[derive(Clone, Copy)]
struct Recorded<'p> {
    /// `(job, finish)` as printed (`%.2f`).
    finishes: &'p [(String, f64)],
    /// The jobs printed to miss their deadline.
    misses: &'p [String],
}

/// Half a unit of the buffer's total as a simulation's start line prints
/// it (`total %.0f`).
const BUFFER_HALF_UNIT: f64 = 0.5;

/// Half a unit of a printed finish time (`[rr_sim] %.2f: JOB finishes`).
const FINISH_HALF_UNIT: f64 = 0.005;

/// Each finish's interval narrowed by the time the record printed for it:
/// the true finish lies within half a printed unit of that time, so within
/// that plus the distance to it of the loop's. A finish the record prints
/// outside the loop's own interval keeps that interval (the simulation's
/// check reports it). For the figures a block prints of the simulation,
/// never for the check of the simulation itself.
fn narrowed_by_printed(
    outcome: &RrSimOutcome,
    state: &HostState,
    slack: &[f64],
    recorded: &[(String, f64)],
) -> Narrowed {
    let printed: HashMap<&str, f64> = recorded.iter().map(|(j, t)| (j.as_str(), *t)).collect();
    let mut out = Narrowed {
        slack: Vec::with_capacity(slack.len()),
        printed: Vec::with_capacity(slack.len()),
    };
    for (f, &s) in outcome.finishes.iter().zip(slack) {
        let name = state.jobs.get(f.job).map_or("", |j| j.name.as_str());
        let at = printed
            .get(name)
            .copied()
            .filter(|at| (f.reltime - at).abs() <= s + FINISH_HALF_UNIT);
        out.slack
            .push(at.map_or(s, |at| s.min((f.reltime - at).abs() + FINISH_HALF_UNIT)));
        out.printed.push(at);
    }
    out
}

/// Each finish's interval about the loop's time, narrowed by the record's
/// ([`narrowed_by_printed`]), and the printed time it agrees with.
struct Narrowed {
    slack: Vec<f64>,
    /// Within half a printed unit of the true finish, where printed.
    printed: Vec<Option<f64>>,
}

/// The loop's simulation at a moment against the record: each finish with
/// its interval, and the deadline misses the record decides.
fn judge(
    moment: &Moment,
    state: &HostState,
    outcome: &RrSimOutcome,
    params: &Params,
    recorded: Recorded<'_>,
) -> Rerun {
    let now = moment.now;
    let recorded_misses = recorded.misses;
    let slack = finish_slack(outcome, &moment.printed);
    let narrowed = narrowed_by_printed(outcome, state, &slack, recorded.finishes);
    let narrowed = &narrowed;
    // A miss within the record's uncertainty goes either way: the printed
    // one is taken, and the account says so.
    let mut misses: Vec<String> = Vec::new();
    let mut undecided: Vec<String> = Vec::new();
    let mut taken_misses: Vec<(usize, bool)> = Vec::new();
    for (k, (finish, s)) in outcome.finishes.iter().zip(&slack).enumerate() {
        let job = &state.jobs[finish.job];
        let name = job.name.to_string();
        let to_deadline = job.report_deadline - moment.buf_min - params.deadline_cushion - now;
        let margin = s + 0.5 + 0.5;
        if (finish.reltime - to_deadline).abs() <= margin {
            let printed = recorded_misses.contains(&name);
            // The client prints a miss exactly where it feeds the busy
            // time: the printed line decides which way this one went.
            taken_misses.push((k, printed));
            undecided.push(format!(
                "{name} finishes at {:.2} s ± {s:.2} and its computation deadline is {:.2} s \
                 ± 1 away (the stamp's second, the buffer's printed unit): taken as printed \
                 ({})",
                finish.reltime,
                to_deadline,
                if printed { "a miss" } else { "no miss" }
            ));
            if printed {
                misses.push(name);
            }
        } else if outcome
            .misses_deadline
            .get(finish.job)
            .copied()
            .unwrap_or(false)
        {
            misses.push(name);
        }
    }
    let finishes = outcome
        .finishes
        .iter()
        .map(|f| (state.jobs[f.job].name.to_string(), f.reltime))
        .collect();
    let widest = slack.iter().copied().fold(0.0, f64::max);
    let sim = Judged {
        outcome,
        state,
        slack: &narrowed.slack,
        printed_at: &narrowed.printed,
        printed: &moment.printed,
        buf_total: moment.buf_total,
        buf_half: moment.buf_half,
        taken_misses: &taken_misses,
    };
    // Every job's steps: the shortfall's interval, and the MC shortfall's
    // where the idle CPUs cap it.
    let every = merged_steps(&sim, |_| true);
    let all_steps = steps_slack(&sim, &every.0, every.1);
    let (cpu, busy_note) = cpu_figures(&sim, all_steps, params);
    let mc_shortfalls = mc_shortfalls(&sim, &every, all_steps, params);
    let mc_limit_times = mc_limit_times(&sim);
    let prio = match &moment.prio {
        Ok(inputs) => Ok(super::prio_replay::initialised(
            state,
            &outcome.prio_init,
            inputs,
            params,
        )),
        Err(why) => Err(why.clone()),
    };
    Rerun {
        projects: moment.projects.clone(),
        prio,
        decision: Decision::RrSim {
            finishes,
            misses,
            finish_slack: slack,
        },
        stamp: moment.stamp,
        end_stamp: moment.end_stamp,
        cpu,
        busy_note,
        mc_shortfalls,
        mc_limit_times,
        reason: format!(
            "§4 rr_simulate, made by the client loop over the host the log tells: {} job(s) \
             in the client's order, projects picked in allocation order last first ({}), \
             {} CPU(s) ({}), each job's FLOPs left and rate as the simulation printed them{} \
             (finishes known to ±{widest:.2} s), deadlines from the scheduler replies{}",
            state.jobs.len(),
            moment.pick_order.join(", "),
            moment.ncpus,
            moment.ncpus_from,
            if moment.narrowed_by_flops {
                ", the rate narrowed by the app version's FLOPS (client_state.xml or replies) \
                 × the printed availability"
            } else {
                ""
            },
            if undecided.is_empty() {
                String::new()
            } else {
                format!(
                    "; a deadline miss undecided by the record: {}",
                    undecided.join("; ")
                )
            }
        ),
    }
}

/// A simulation run again, with what judging its figures needs.
struct Judged<'s> {
    outcome: &'s RrSimOutcome,
    state: &'s HostState,
    /// Each finish's interval, in finish order.
    slack: &'s [f64],
    /// Each finish's time as the record printed it, where it agrees.
    printed_at: &'s [Option<f64>],
    printed: &'s [Printed],
    buf_total: f64,
    /// Half the unit the buffer is known to.
    buf_half: f64,
    /// The finishes whose deadline miss the simulation leaves within its
    /// intervals, each with the miss as printed (taken).
    taken_misses: &'s [(usize, bool)],
}

/// How far the integral of the CPUs in use over the buffer may move, over
/// some jobs' merged steps ([`merged_steps`]) and the slack their usages
/// add: where their use steps by Δ at a time known to ±s
/// (a finish's interval; a pick's is that of the finishes at its time),
/// by |Δ| × s; a usage known to ±u by u over its job's run inside the
/// buffer. Steps at one time are merged (a finish and the pick it brings
/// move together), so all jobs together may move less than each project.
fn steps_slack(sim: &Judged<'_>, steps: &[MergedStep], usage_slack: f64) -> f64 {
    usage_slack
        + steps
            .iter()
            .map(|step| {
                (
                    step.at,
                    step.delta,
                    (step.at - step.centre).abs() + step.half,
                )
            })
            .filter(|(t, _, s)| t - s < sim.buf_total)
            .map(|(_, delta, s)| delta.abs() * s)
            .sum::<f64>()
}

/// A step in the CPUs some jobs use, merged by the loop's time.
struct MergedStep {
    /// The loop's time.
    at: f64,
    /// How much the use changes there.
    delta: f64,
    /// The span the true time lies in: its centre and half-width.
    centre: f64,
    half: f64,
}

impl MergedStep {
    /// As [`super::mc_bounds`] takes it, about the true time.
    fn about_truth(&self) -> super::mc_bounds::Step {
        (self.centre, self.delta, self.half)
    }
}

/// The steps in the CPUs the jobs `of` selects use, merged by time, each
/// `(time, Δ, its interval)` in the order first seen, and what their
/// usages known to ±u add over their runs inside the buffer.
fn merged_steps(sim: &Judged<'_>, of: impl Fn(usize) -> bool) -> (Vec<MergedStep>, f64) {
    let usage = |job: usize| sim.state.jobs.get(job).map_or(0.0, |j| j.usage.avg_ncpus);
    let usage_half = |job: usize| sim.printed.get(job).map_or(0.0, |p| p.ncpus_half);
    // The span the finishes at each of the loop's times may truly fall in
    // (keyed by its bits: the times compared are the simulation's own,
    // exactly equal): about the printed time where the record agrees, else
    // about the loop's.
    let mut finishes_at: HashMap<u64, (f64, f64)> = HashMap::with_capacity(sim.slack.len());
    for (k, (f, s)) in sim.outcome.finishes.iter().zip(sim.slack).enumerate() {
        // Both intervals hold the true time: it lies where they overlap.
        let (mut lo, mut hi) = (f.reltime - s, f.reltime + s);
        if let Some(at) = sim.printed_at.get(k).copied().flatten() {
            lo = lo.max(at - FINISH_HALF_UNIT);
            hi = hi.min(at + FINISH_HALF_UNIT).max(lo);
        }
        let span = finishes_at.entry(f.reltime.to_bits()).or_insert((lo, hi));
        *span = (span.0.min(lo), span.1.max(hi));
    }
    // A step at the loop's time `t`: its centre and half-width.
    let finish_at = |t: f64| {
        finishes_at
            .get(&t.to_bits())
            .map_or((t, 0.0), |&(lo, hi)| ((lo + hi) / 2.0, (hi - lo) / 2.0))
    };
    // Steps in the order first seen, merged by time.
    let mut steps: Vec<MergedStep> = Vec::new();
    let mut step_index: HashMap<u64, usize> = HashMap::new();
    let mut step_at = |t: f64, delta: f64| match step_index.get(&t.to_bits()) {
        Some(&k) => steps[k].delta += delta,
        None => {
            let (centre, half) = finish_at(t);
            step_index.insert(t.to_bits(), steps.len());
            steps.push(MergedStep {
                at: t,
                delta,
                centre,
                half,
            });
        }
    };
    let mut slack = 0.0;
    for note in &sim.outcome.notes {
        match note {
            RrSimNote::Starting {
                job,
                reltime,
                first: true,
                ..
            } if of(*job) => step_at(*reltime, usage(*job)),
            RrSimNote::Finish(k) => {
                let Some(finish) = sim.outcome.finishes.get(*k) else {
                    continue;
                };
                if !of(finish.job) {
                    continue;
                }
                step_at(finish.reltime, -usage(finish.job));
                slack += usage_half(finish.job) * finish.reltime.clamp(0.0, sim.buf_total);
            }
            _ => {}
        }
    }
    (steps, slack)
}

/// Each project's MC shortfall in the simulation, with its interval: the
/// buffer's printed unit over the CPUs and the project's own steps
/// ([`steps_slack`] over its jobs: another project's pick at one of its
/// finishes does not cancel its step). Where the MC shortfall is also
/// capped by the idle CPUs (`mc_shortfall_running_max`, before 8.2), every
/// project's steps move it too: |Δ min(a, b)| ≤ |Δa| + |Δb|.
fn mc_shortfalls(
    sim: &Judged<'_>,
    (every, every_usage): &(Vec<MergedStep>, f64),
    all_steps: f64,
    params: &Params,
) -> Vec<(String, f64, f64)> {
    let ninst = sim.state.ninstances(0) as f64;
    let buf_half = sim.buf_half * ninst;
    let running_max = params.mc_shortfall_running_max != 0.0;
    let every_usage = *every_usage;
    let every: Vec<_> = every.iter().map(MergedStep::about_truth).collect();
    let all = if running_max { all_steps } else { 0.0 };
    sim.state
        .projects
        .iter()
        .enumerate()
        .map(|(p, project)| {
            let of = |job: usize| sim.state.jobs.get(job).is_some_and(|j| j.project == p);
            let x = sim.outcome.project_rsc(p, 0).mc_shortfall;
            let (own_steps, own_usage) = merged_steps(sim, of);
            let own: Vec<_> = own_steps.iter().map(MergedStep::about_truth).collect();
            // With every usage exact, the steps' intervals bound it
            // directly; else each step moves it by at most its size times
            // its interval.
            let exact_usage = every_usage == 0.0 && own_usage == 0.0;
            let slack = if exact_usage && project.has_max_concurrent() {
                let (lo, hi) = super::mc_bounds::shortfall_bounds(&super::mc_bounds::McInputs {
                    own: &own,
                    all: &every,
                    ninstances: ninst,
                    running_max,
                    limit: mc_limit(project, running_max, ninst),
                    buf_end: sim.buf_total,
                    buf_half: sim.buf_half,
                });
                (hi - x).max(x - lo).max(0.0)
            } else {
                buf_half + steps_slack(sim, &own_steps, own_usage) + all
            };
            (project.name.to_string(), x, slack)
        })
        .collect()
}

/// Where a project's unused instances start from (rr_sim.cpp): before 8.2
/// the running maximum of its use starts at its smallest limit; from 8.2
/// what its limits let it use is that limit times its app versions' widest
/// CPU use (at least 1), at most the instances.
fn mc_limit(project: &Project, running_max: bool, ninst: f64) -> f64 {
    let limit = f64::from(project.min_max_concurrent());
    if running_max {
        return limit;
    }
    let widest = project
        .app_versions
        .iter()
        .map(|v| v.usage.avg_ncpus)
        .fold(1.0, f64::max);
    (limit * widest).min(ninst)
}

/// Each project's last start its max_concurrent limit stopped, with the
/// interval of that time: the widest of the finishes at or before it (a
/// pick comes at a finish, at a time-slice step after earlier finishes, or
/// at 0, exact).
fn mc_limit_times(sim: &Judged<'_>) -> Vec<(String, f64, f64)> {
    sim.state
        .projects
        .iter()
        .enumerate()
        .map(|(p, project)| {
            let at = sim.outcome.project_rsc(p, 0).last_mc_limit_reltime;
            let slack = sim
                .outcome
                .finishes
                .iter()
                .zip(sim.slack)
                .filter(|(f, _)| f.reltime <= at)
                .map(|(_, s)| *s)
                .fold(0.0, f64::max);
            (project.name.to_string(), at, slack)
        })
        .collect()
}

/// The CPU's figures of a simulation run again, each with the interval
/// its rounded inputs leave. The shortfall integrates the idle CPUs over
/// the buffer: where the CPUs in use step by Δ at a time known to ±s (the
/// finishes there and the picks they bring), the integral moves by at most
/// |Δ| × s; a usage known to ±u moves it by u over its job's run inside
/// the buffer, and the idle count now by u for a job picked at once; the
/// buffer's total, known to its printed unit (whole seconds on the
/// simulation's start line, hundredths on its block's), moves it by half
/// that unit × the CPUs. The
/// saturated time is a finish; the busy time sums finishes' runs, in an
/// order the record may leave open ([`busy_range`]).
fn cpu_figures(sim: &Judged<'_>, all_steps: f64, params: &Params) -> (RscState, String) {
    let (outcome, state, slack) = (sim.outcome, sim.state, sim.slack);
    let stats = outcome.resource(0);
    let shortfall_slack = sim.buf_half * state.ninstances(0) as f64 + all_steps;
    let usage_half = |job: usize| sim.printed.get(job).map_or(0.0, |p| p.ncpus_half);
    let nidle_slack: f64 = outcome
        .notes
        .iter()
        .filter_map(|note| match note {
            RrSimNote::Starting {
                job,
                reltime,
                first: true,
                ..
            } if *reltime == 0.0 => Some(usage_half(*job)),
            _ => None,
        })
        .sum();
    let widest = slack.iter().copied().fold(0.0, f64::max);
    let range = busy_range(sim, params);
    let note = match range.orders {
        Orders::One => String::new(),
        Orders::All(n) => format!(
            "; the busy time over the {n} orders the record leaves to the deadline misses \
             feeding it (finishes within each other's interval): {:.2} to {:.2}",
            range.lo, range.hi
        ),
        Orders::Bound(n) => format!(
            "; the record leaves {n} orders to the deadline misses feeding the busy time \
             (finishes within each other's interval), more than are tried: the busy time \
             bounded by the estimator's balance, {:.2} to {:.2}",
            range.lo, range.hi
        ),
    };
    let state = RscState {
        rsc: "CPU".into(),
        shortfall: stats.shortfall,
        nidle: stats.nidle_now,
        saturated: stats.saturated_time,
        busy: if range.orders == Orders::One {
            range.lo
        } else {
            (range.lo + range.hi) / 2.0
        },
        shares: Vec::new(),
        slack: RscSlack {
            shortfall: shortfall_slack,
            nidle: nidle_slack,
            saturated: widest,
            busy: if range.orders == Orders::One {
                widest
            } else {
                (range.hi - range.lo) / 2.0 + widest
            },
        },
    };
    (state, note)
}

/// The most orders of the busy-time feed tried one by one.
const BUSY_ORDERS_TRIED: u64 = 20_000;

/// How many orders of the busy-time feed the record leaves open.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Orders {
    /// The simulation's own.
    One,
    /// This many, each tried.
    All(u64),
    /// This many (saturating), more than [`BUSY_ORDERS_TRIED`]: bounded.
    Bound(u64),
}

/// The busy time's range over the feed orders the record leaves open.
struct BusyRange {
    lo: f64,
    hi: f64,
    orders: Orders,
}

/// The busy time over each order in which the simulation's deadline misses
/// may have fed the estimator (rr_sim.cpp feeds each missed job's remaining
/// runtime at its finish; work_fetch.h BUSY_TIME_ESTIMATOR puts it on the
/// least busy instances); a miss the simulation leaves within its
/// intervals is fed as the log printed it (the client prints a miss exactly
/// where it feeds the estimator). Finishes whose intervals overlap (chained) may have come in any
/// order: the client's tie rests on the rounding of FLOPS the log prints
/// to two digits. Each case is tried up to [`BUSY_ORDERS_TRIED`]; beyond,
/// the range is bounded: the least busy instance holds at most the mean
/// load, and, where every job uses one instance, at least the mean less
/// the longest run (feeding the least busy instance keeps the spread
/// within one run).
fn busy_range(sim: &Judged<'_>, params: &Params) -> BusyRange {
    let fed: Vec<Fed> = sim
        .outcome
        .finishes
        .iter()
        .zip(sim.slack)
        .enumerate()
        .filter_map(|(k, (f, s))| {
            let missed = match sim.taken_misses.iter().find(|(t, _)| *t == k) {
                Some(&(_, printed)) => printed,
                None => f.miss_by.is_some(),
            };
            missed.then(|| Fed {
                at: f.reltime,
                slack: *s,
                dur: f.busy_dur,
                ncpus: sim.state.jobs.get(f.job).map_or(0.0, |j| j.usage.avg_ncpus),
            })
        })
        .collect();
    fed_range(
        &fed,
        sim.state.ninstances(0),
        sim.outcome.resource(0).busy_time,
        params,
    )
}

/// A deadline miss feeding the busy-time estimator.
#[derive(Clone, Copy, Debug)]
struct Fed {
    /// Its finish (seconds from now) and that time's interval.
    at: f64,
    slack: f64,
    /// The seconds it feeds and the CPUs it uses.
    dur: f64,
    ncpus: f64,
}

/// [`busy_range`] over the misses in the simulation's
/// finish order, on `ninst` instances; `own`, the simulation's own busy
/// time, stands where a miss's time or run is not finite.
fn fed_range(fed: &[Fed], ninst: usize, own: f64, params: &Params) -> BusyRange {
    let one = BusyRange {
        lo: own,
        hi: own,
        orders: Orders::One,
    };
    if ninst == 0 || fed.iter().any(|f| !f.dur.is_finite() || !f.at.is_finite()) {
        return one;
    }
    // Chained overlapping intervals: a finish joins the group while its
    // interval reaches back to the group's farthest reach.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut reach = f64::NEG_INFINITY;
    for (i, f) in fed.iter().enumerate() {
        match groups.last_mut() {
            Some(group) if f.at - f.slack <= reach => group.push(i),
            _ => groups.push(vec![i]),
        }
        reach = reach.max(f.at + f.slack);
    }
    let orders = groups.iter().fold(1u64, |acc, g| {
        (1..=g.len() as u64).fold(acc, |a, k| a.saturating_mul(k))
    });
    if orders > BUSY_ORDERS_TRIED {
        let fed_cpus = |n: f64| {
            if n >= params.busy_time_min_nused {
                n.trunc()
            } else {
                0.0
            }
        };
        let load = |f: &Fed| f.dur * fed_cpus(f.ncpus);
        let total: f64 = fed.iter().map(load).sum();
        let longest = fed.iter().map(|f| f.dur).fold(0.0, f64::max);
        let single = fed.iter().all(|f| fed_cpus(f.ncpus) <= 1.0);
        return BusyRange {
            lo: if single {
                (total / ninst as f64 - longest).max(0.0)
            } else {
                0.0
            },
            hi: total / ninst as f64,
            orders: Orders::Bound(orders),
        };
    }
    let perms: Vec<Vec<Vec<usize>>> = groups.iter().map(|g| permutations(g)).collect();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut pick = vec![0usize; perms.len()];
    loop {
        let mut est = BusyTimeEstimator::new(ninst);
        for (g, &k) in perms.iter().zip(&pick) {
            for &i in g.get(k).into_iter().flatten() {
                if let Some(f) = fed.get(i) {
                    est.update(f.dur, f.ncpus, params);
                }
            }
        }
        let busy = est.busy_time();
        lo = lo.min(busy);
        hi = hi.max(busy);
        if !next_pick(&mut pick, &perms) {
            break;
        }
    }
    if !(lo.is_finite() && hi.is_finite()) {
        return one;
    }
    BusyRange {
        lo,
        hi,
        // One order: the misses as fed (a miss the record leaves undecided
        // taken as printed, which the simulation's own busy time may not
        // have).
        orders: if orders <= 1 {
            Orders::One
        } else {
            Orders::All(orders)
        },
    }
}

/// The next combination of one order per group (mixed radix); false after
/// the last.
fn next_pick(pick: &mut [usize], perms: &[Vec<Vec<usize>>]) -> bool {
    for (p, g) in pick.iter_mut().zip(perms) {
        *p += 1;
        if *p < g.len() {
            return true;
        }
        *p = 0;
    }
    false
}

/// Every order of `items` (lexicographic by position).
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut all = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        let rest: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &x)| x)
            .collect();
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            all.push(tail);
        }
    }
    all
}

/// A work-fetch state block of a CPU-only host with the CPU figures of the
/// simulation it reports run again (`rerun`, at the block's second), and
/// its project lines made over the same host with the fetch-mode `[prio]`
/// pass printed before it (`base`, [`super::fetch_projects`]); the shares
/// restated.
pub fn fetch_state(
    rerun: &Rerun,
    dump: &FetchDump,
    stamp: f64,
    base: Option<&[super::decision::PrioEntry]>,
) -> Option<(Decision, String)> {
    // The block follows its own simulation's end, in the second that end
    // printed at; its poll's `now` is the simulation's, the start's second.
    if !(rerun.stamp..=rerun.end_stamp).contains(&stamp) || dump.resources.len() != 1 {
        return None;
    }
    let stamp = rerun.stamp;
    let printed = dump.resources.first().filter(|r| r.rsc == "CPU")?;
    let mut replayed = dump.clone();
    let block = super::fetch_projects::project_lines(&rerun.projects, stamp, dump, base);
    let cpu_lines = super::fetch_projects::cpu_share_lines(
        &rerun.projects,
        stamp,
        &printed.shares,
        &rerun.mc_limit_times,
        dump.buffer,
        &dump.mc_projects,
    );
    let (shares, shares_from) =
        match super::fetch_projects::fetchable_shares(&rerun.projects, &block, &cpu_lines.lines) {
            Ok(shares) => (
                shares,
                "the shares made from the projects' reasons, their CPU reasons (as above, \
                 printed where restated) and their resource shares"
                    .to_string(),
            ),
            Err(why) => (
                cpu_lines
                    .lines
                    .iter()
                    .zip(&printed.shares)
                    .map(|(made, printed)| ShareState {
                        share: printed.share,
                        ..made.clone()
                    })
                    .collect(),
                format!("the shares restated ({why})"),
            ),
        };
    let shares_from = format!("{}; {shares_from}", cpu_lines.account);
    let account = block.account;
    replayed.projects = block.lines;
    replayed.resources = vec![RscState {
        shares,
        ..rerun.cpu.clone()
    }];
    let s = &rerun.cpu.slack;
    Some((
        Decision::FetchState(replayed),
        format!(
            "§4.5/§4.6 the CPU figures of the simulation run again at this second \
             (rr_sim.cpp RR_SIM::simulate, work_fetch.cpp RSC_WORK_FETCH::update_stats; \
             max_concurrent limits applied): shortfall {:.2} ± {:.2}, idle now {:.2} ± {:.3}, \
             saturated {:.2} ± {:.2}, busy {:.2} ± {:.2}{}; {account}; {shares_from}",
            rerun.cpu.shortfall,
            s.shortfall,
            rerun.cpu.nidle,
            s.nidle,
            rerun.cpu.saturated,
            s.saturated,
            rerun.cpu.busy,
            s.busy,
            rerun.busy_note
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A work fetch's simulation takes the `now` its poll's
    /// `choose_project(): %f` line printed just before it (the lab's
    /// seed-sc1 at 12:51:06: 1795611066.231265), not one from another
    /// second or before another simulation's end.
    #[test]
    fn the_poll_now_comes_from_its_choose_project_line() {
        let text = "30-Nov-2026 10:00:05 [---] choose_project(): 1796032805.300000\n\
                    30-Nov-2026 10:00:05 [---] [rr_sim] doing sim: work fetch\n\
                    30-Nov-2026 10:00:05 [---] [rr_sim] start: work_buf min 180 additional 17 total 197 on_frac 1.000 active_frac 1.000\n";
        let events = crate::replay::test_events(text, crate::trace::FileKind::EventLog);
        let stamp = events[2].time.secs().expect("stamped");
        let now = exact_now(&events, 2, stamp, 0).expect("printed");
        assert!((now - stamp - 0.3).abs() < 1e-6, "{now} {stamp}");
        // Another second's line does not count.
        assert_eq!(exact_now(&events, 2, stamp + 1.0, 0), None);
        // Nor one before another simulation's end.
        let ended = "30-Nov-2026 10:00:05 [---] choose_project(): 1796032805.300000\n\
                     30-Nov-2026 10:00:05 [---] [rr_sim] end\n\
                     30-Nov-2026 10:00:05 [---] [rr_sim] start: work_buf min 180 additional 17 total 197 on_frac 1.000 active_frac 1.000\n";
        let events = crate::replay::test_events(ended, crate::trace::FileKind::EventLog);
        assert_eq!(exact_now(&events, 2, stamp, 0), None);
    }
    use crate::trace::FileKind;

    /// Nine single-CPU deadline misses on 3 CPUs, fed in finish order
    /// 4, 18, 11, 18, 18, then two finishing together at 51 s (18 then 11),
    /// then 18, 18. Each on the least busy instance (the first of equals):
    /// 4|18|11 → 22|18|11 → 22|18|29; 18 then 11 → 22|36|29 → 33|36|29, and
    /// the last two → 33|36|47 → 51|36|47: busy 36. 11 then 18 → 22|29|29
    /// → 40|29|29, then → 40|47|29 → 40|47|47: busy 40 (what Debian's
    /// 7.20.5 printed for such a tie, traces/real/mt-edf-tie).
    #[test]
    fn tied_misses_feed_the_busy_time_in_either_order() {
        let fed: Vec<Fed> = [
            (4.0, 4.0),
            (22.0, 18.0),
            (33.0, 11.0),
            (40.0, 18.0),
            (40.0, 18.0),
            (51.0, 18.0),
            (51.0, 11.0),
            (58.0, 18.0),
            (69.0, 18.0),
        ]
        .iter()
        .map(|&(at, dur)| Fed {
            at,
            slack: 0.0,
            dur,
            ncpus: 1.0,
        })
        .collect();
        let params = Params::default();
        // Ties at 40 (two 18s: one order's worth) and at 51: 2 × 2 orders.
        let range = fed_range(&fed, 3, 36.0, &params);
        assert_eq!(range.orders, Orders::All(4));
        assert_eq!((range.lo, range.hi), (36.0, 40.0));
        // Apart by more than their intervals: the simulation's own.
        let apart: Vec<Fed> = fed
            .iter()
            .enumerate()
            .map(|(i, f)| Fed {
                at: i as f64 * 10.0,
                ..*f
            })
            .collect();
        let range = fed_range(&apart, 3, 36.0, &params);
        assert_eq!(range.orders, Orders::One);
        assert_eq!((range.lo, range.hi), (36.0, 36.0));
        // One order, the misses fed not the simulation's own: a lab run's
        // pass (4 CPUs) printed three misses of 36 s and busy 0.00, where
        // the simulation made again had a fourth finish 0.38 s before its
        // deadline miss by the rounding of the printed rates (taken as
        // printed: no miss) and so a busy time of 36.
        let three: Vec<Fed> = [426.4, 444.4, 453.6]
            .iter()
            .map(|&at| Fed {
                at,
                slack: 0.28,
                dur: 36.0,
                ncpus: 1.0,
            })
            .collect();
        let range = fed_range(&three, 4, 36.0, &params);
        assert_eq!((range.orders, range.lo, range.hi), (Orders::One, 0.0, 0.0));
    }

    /// Intervals chain through the widest: 40 ± 8 reaches 47 ± 0.2 past
    /// 44 ± 0.2, so the three may come in any of 6 orders.
    #[test]
    fn chained_intervals() {
        let fed = |at: f64, slack: f64, dur: f64| Fed {
            at,
            slack,
            dur,
            ncpus: 1.0,
        };
        let params = Params::default();
        let chained = [
            fed(40.0, 8.0, 10.0),
            fed(44.0, 0.2, 20.0),
            fed(47.0, 0.2, 30.0),
        ];
        let range = fed_range(&chained, 1, 60.0, &params);
        assert_eq!(range.orders, Orders::All(6));
        assert_eq!((range.lo, range.hi), (60.0, 60.0));
        // A run the estimate cannot give leaves the simulation's own.
        let nan = [fed(10.0, 1.0, f64::NAN), fed(10.5, 1.0, 7.0)];
        assert_eq!(fed_range(&nan, 1, 7.0, &params).orders, Orders::One);
    }

    /// Two projects attached in the order A, B; one CPU; A_0 (30 s) and
    /// B_0 (50 s) arrive. The client's pick takes the project allocated
    /// last first: B_0 runs 0-50, then A_0 50-80.
    fn log(first: (&str, f64), second: (&str, f64)) -> String {
        let head = "\
28-Nov-2026 10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu
28-Nov-2026 10:00:00 [---] Local time is UTC +0 hours
28-Nov-2026 10:00:00 [---] Config: simulate 1 CPUs
28-Nov-2026 10:00:00 [A] URL http://x/A/; Computer ID 1; resource share 100
28-Nov-2026 10:00:00 [B] URL http://x/B/; Computer ID 2; resource share 100
28-Nov-2026 10:00:01 [A] [task] result state=NEW for A_0 from handle_scheduler_reply
28-Nov-2026 10:00:01 [A] [task] result state=FILES_DOWNLOADING for A_0 from CS::update_results
28-Nov-2026 10:00:02 [B] [task] result state=NEW for B_0 from handle_scheduler_reply
28-Nov-2026 10:00:02 [B] [task] result state=FILES_DOWNLOADING for B_0 from CS::update_results
28-Nov-2026 10:00:03 [---] [rr_sim] doing sim: CPU sched
28-Nov-2026 10:00:03 [---] [rr_sim] start: work_buf min 180 additional 0 total 180 on_frac 1.000 active_frac 1.000
";
        let size = |job: &str| if job == "A_0" { 30.0 } else { 50.0 };
        let (a, ta) = first;
        let (b, tb) = second;
        format!(
            "{head}\
28-Nov-2026 10:00:03 [{pa}] [rr_sim_detail] 0.00: starting {a} (1.00 CPU) ({sa:.2}G/1.00G)
28-Nov-2026 10:00:03 [{pa}] [rr_sim] {ta:.2}: {a} finishes (1.00 CPU) ({sa:.2}G/1.00G)
28-Nov-2026 10:00:03 [{pb}] [rr_sim_detail] {ta:.2}: starting {b} (1.00 CPU) ({sb:.2}G/1.00G)
28-Nov-2026 10:00:03 [{pb}] [rr_sim] {tb:.2}: {b} finishes (1.00 CPU) ({sb:.2}G/1.00G)
28-Nov-2026 10:00:03 [---] [rr_sim] end
",
            pa = &a[..1],
            pb = &b[..1],
            sa = size(a),
            sb = size(b),
        )
    }

    fn facts(deadline: f64) -> JobFacts {
        let mut facts = JobFacts::default();
        for job in ["A_0", "B_0"] {
            facts.deadlines.insert(job.into(), deadline);
        }
        facts
    }

    fn rerun(text: &str, facts: &JobFacts) -> Resimulated {
        let events = crate::replay::test_events(text, FileKind::EventLog);
        let points = super::super::recorded::extract(&events);
        let params = Params::default();
        let views = super::super::joblog::hosts_at(&events, &points, facts, None, 0, None).views;
        let out = resimulate_from(&events, &points, facts, views, None, &params, 0);
        assert_eq!(out.len(), 1, "{out:?}");
        out.into_values().next().expect("one simulation")
    }

    fn finishes(decision: &Decision) -> Vec<(String, f64)> {
        match decision {
            Decision::RrSim { finishes, .. } => finishes.clone(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn the_project_allocated_last_is_picked_first() {
        // Deadlines far away (2033): no miss.
        let text = log(("B_0", 50.0), ("A_0", 80.0));
        let again = rerun(&text, &facts(2e9)).expect("run again");
        let (decision, why) = (again.decision, again.reason);
        let got = finishes(&decision);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, "B_0");
        assert!((got[0].1 - 50.0).abs() < 1e-9, "{got:?}");
        assert_eq!(got[1].0, "A_0");
        assert!((got[1].1 - 80.0).abs() < 1e-9, "{got:?}");
        assert!(why.contains("allocation order last first (B, A)"), "{why}");
        // Printed the other way round, the run again still picks B first:
        // the comparison then diverges.
        let text = log(("A_0", 30.0), ("B_0", 80.0));
        let again = rerun(&text, &facts(2e9)).expect("run again");
        assert_eq!(finishes(&again.decision), got);
    }

    #[test]
    fn a_deadline_inside_the_stamps_second_is_taken_as_printed() {
        // 10:00:03 UTC on 28-Nov-2026 is 1795860003; B_0 ends 50 s later.
        // Its computation deadline (report deadline − 180 s buffer) 50.5 s
        // away: within the record's second, either way.
        let now = 1_795_860_003.0;
        let mut facts = facts(2e9);
        facts.deadlines.insert("B_0".into(), now + 180.0 + 50.5);
        let text = log(("B_0", 50.0), ("A_0", 80.0));
        let again = rerun(&text, &facts).expect("run again");
        let why = again.reason;
        let Decision::RrSim { misses, .. } = again.decision else {
            panic!("an rr_sim decision");
        };
        assert!(misses.is_empty(), "{misses:?}");
        assert!(why.contains("B_0 finishes at 50.00"), "{why}");
        // 10 s earlier, it misses, whatever the second.
        facts.deadlines.insert("B_0".into(), now + 180.0 + 40.0);
        let again = rerun(&text, &facts).expect("run again");
        let Decision::RrSim { misses, .. } = again.decision else {
            panic!("an rr_sim decision");
        };
        assert_eq!(misses, ["B_0"]);
    }

    #[test]
    fn what_the_record_lacks_is_named() {
        let text = log(("B_0", 50.0), ("A_0", 80.0));
        let why = rerun(&text, &JobFacts::default()).expect_err("no deadlines");
        assert!(
            why.contains("report deadline is not in the record"),
            "{why}"
        );
        // A job runnable by the log's account that the simulation left out.
        let text = text.replace(
            "28-Nov-2026 10:00:03 [---] [rr_sim] doing sim",
            "28-Nov-2026 10:00:02 [A] [task] result state=NEW for A_1 from handle_scheduler_reply\n\
             28-Nov-2026 10:00:02 [A] [task] result state=FILES_DOWNLOADING for A_1 from CS::update_results\n\
             28-Nov-2026 10:00:03 [---] [rr_sim] doing sim",
        );
        let why = rerun(&text, &facts(2e9)).expect_err("A_1 not printed");
        assert!(why.contains("A_1 is on the host"), "{why}");
    }
}

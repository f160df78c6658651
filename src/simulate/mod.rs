//! Closed-loop simulation: the policy engine's decisions drive a simulated
//! host and simulated project servers, like the BOINC client emulator
//! (client/sim.cpp), and the emulator's figures of merit come out.
//!
//! ```text
//!  scenario (inputs/ folder | seed notation) ──▶ World ──simulate(options)──▶ SimReport
//! ```
//!
//! The run is the [`client_loop`](crate::client_loop) with a simulated
//! world ([`world::SimWorld`]: the project servers of [`server`] and the
//! host's on/off processes) and the policy generation asked for; the loop's
//! module doc gives the order of one step. Policy parameters:
//! `rec_adjust_period = delta` and the emulator's runtime model are set
//! unless `--set` overrides them.
//!
//! All randomness (job-size estimates, app choice, availability periods,
//! backoff factors) comes from one seeded [`rng::Rng`]: a run is a pure
//! function of (scenario, options). The generator is the emulator's
//! (glibc `rand()`) and the draws are made in the emulator's order, so with
//! seed 1 a run on an emulator scenario is that emulator's run
//! (docs/simulate.md).
//!
//! Not modelled: the double counting of elapsed time (irrelevant with
//! `dont_use_dcf`), `--server_uses_workload`, `--cpu_sched_rr_only`.

pub use crate::client_loop::{host, merit, START_TIME};
pub mod emulator_6_10;
pub mod log_out;
pub mod log_out_6_10;
pub mod random;
pub mod rng;
pub mod scenario;
pub mod sequences;
pub mod server;
pub mod transcript;
pub mod world;

use crate::client_loop::{
    ClientLoop, LoopCore, LoopError, LoopEvent, LoopOptions, Observer, Profile,
};
use crate::policy::generation::Generation;
use crate::policy::profile::{is_7_2, params_7_2, params_for_release, Release};
use crate::policy::state::HostState;
use crate::policy::work_fetch::RscRequest;
use crate::policy::{Params, PolicyError, RuntimeModel};
use host::Usage;
use merit::{Accounts, FiguresOfMerit};
use rng::Rng;
use scenario::World;
use serde::Serialize;
use std::collections::BTreeMap;

/// Errors of a simulation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The scenario could not be read or is malformed.
    #[error("scenario: {0}")]
    Scenario(String),
    /// Bad options.
    #[error("options: {0}")]
    Options(String),
    /// The engine refused the state.
    #[error("policy engine at t={now}: {source}")]
    Engine {
        /// Simulated time.
        now: f64,
        /// The engine's error.
        source: PolicyError,
    },
}

impl From<LoopError> for SimError {
    fn from(e: LoopError) -> Self {
        SimError::Engine {
            now: e.now,
            source: e.source,
        }
    }
}

/// Options of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct SimOptions {
    /// Simulated seconds after the start (emulator `--duration`).
    pub duration: f64,
    /// Time step in seconds (emulator `--delta`).
    pub delta: f64,
    /// PRNG seed.
    pub seed: u64,
    /// Servers send nothing (emulator `--existing_jobs_only`).
    pub existing_jobs_only: bool,
    /// Engine parameters; `None` = defaults adapted to the emulator
    /// (`rec_adjust_period = delta`, emulator runtime model).
    pub params: Option<Params>,
    /// Usage is also reported over these windows: (start, end) seconds
    /// after the start of the run.
    pub windows: Vec<(f64, f64)>,
    /// The policy generation whose decisions drive the host.
    pub policy: Generation,
    /// Keep every RPC that reached a server for [`SimReport::transcripts`].
    pub keep_transcripts: bool,
    /// The release whose rule profile applies to the default parameters
    /// (7.3 onward; `None` = today's rules).
    pub release: Option<Release>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            duration: 172800.0,
            delta: 300.0,
            seed: 1,
            existing_jobs_only: false,
            params: None,
            windows: Vec::new(),
            policy: Generation::Current,
            keep_transcripts: false,
            release: None,
        }
    }
}

impl SimOptions {
    /// The engine parameters used for this run.
    pub fn effective_params(&self) -> Params {
        self.params.clone().unwrap_or_else(|| {
            let mut params = emulator_params(self.delta);
            release_rules(&mut params, self.release);
            params
        })
    }

    /// The loop's profile: the generation's, or the 7.0–7.2 variant of the
    /// REC generation for a release 7.0–7.2.
    pub fn profile(&self) -> Profile {
        match self.release {
            Some(_) if self.policy == Generation::Current => Profile::for_emulator(self.release),
            _ => Profile::of(self.policy),
        }
    }
}

/// Applies the rules of `release` to `params`: its profile (7.3 on) or the
/// 7.0–7.2 variant; `None` leaves today's rules.
pub fn release_rules(params: &mut Params, release: Option<Release>) {
    match release {
        Some(release) if is_7_2(release) => params_7_2(params),
        Some(release) => {
            params_for_release(params, release);
        }
        None => {}
    }
}

/// Default parameters adapted to the emulator's step.
pub fn emulator_params(delta: f64) -> Params {
    Params {
        rec_adjust_period: delta,
        runtime_model: RuntimeModel::Emulator,
        ..Params::default()
    }
}

/// Usage of one resource by one project.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UsageRow {
    /// Project name.
    pub project: String,
    /// Resource name (`CPU`, `NVIDIA GPU`, …).
    pub resource: String,
    /// Instance-seconds of the project's jobs *of this resource* / (instances × run time).
    pub fraction: f64,
    /// CPU rows only: CPU-seconds of the project's GPU jobs / (CPUs × run time), on top.
    pub gpu_jobs_cpu_fraction: f64,
}

/// Per-project outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProjectRow {
    /// Project name.
    pub project: String,
    /// Resource share.
    pub share: f64,
    /// Fraction of all peak FLOPs used.
    pub flops_fraction: f64,
    /// Jobs reported by their deadline.
    pub deadlines_met: u64,
    /// Jobs reported late.
    pub deadlines_missed: u64,
    /// REC at the end.
    pub rec: f64,
}

/// The outcome of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimReport {
    /// The five figures of merit.
    pub figures_of_merit: FiguresOfMerit,
    /// Per project and resource.
    pub usage: Vec<UsageRow>,
    /// Per project.
    pub projects: Vec<ProjectRow>,
    /// Successful scheduler RPCs.
    pub rpcs: u64,
    /// RPCs skipped because the project was down.
    pub rpcs_skipped: u64,
    /// Jobs received.
    pub jobs: u64,
    /// Simulated seconds.
    pub duration: f64,
    /// Time step.
    pub delta: f64,
    /// Seed.
    pub seed: u64,
    /// The policy simulated.
    pub policy: String,
    /// Why that policy, when `--policy auto` chose it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_reason: Option<String>,
    /// The file the run options not given on the command line were read
    /// from (an emulator reference's outputs/inputs.txt or SCENARIO.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_options_from: Option<String>,
    /// Usage over the windows asked for (`SimOptions::windows`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<WindowUsage>,
    /// With [`SimOptions::keep_transcripts`]: every RPC that reached a
    /// server as a request/reply pair of files, (relative path, XML), in
    /// time order ([`transcript`]).
    #[serde(skip)]
    pub transcripts: Vec<(String, String)>,
}

/// One scheduler RPC that reached a server, as the transcripts show it.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcRecord {
    /// Simulated time.
    pub time: f64,
    /// The project's name.
    pub project_name: String,
    /// The project's master URL.
    pub project_url: String,
    /// Its resource share over the total.
    pub share_fraction: f64,
    /// The project ignores DCF.
    pub dont_use_dcf: bool,
    /// The request, per resource.
    pub request: Vec<RscRequest>,
    /// Results reported.
    pub reported: Vec<String>,
    /// The project's other jobs on the host.
    pub in_progress: Vec<String>,
    /// Jobs sent.
    pub jobs: Vec<SentJob>,
}

/// One job a simulated server sent.
#[derive(Clone, Debug, PartialEq)]
pub struct SentJob {
    /// Its name.
    pub name: String,
    /// Its app.
    pub app: String,
    /// The app version's index in the project.
    pub version: usize,
    /// The version's resource usage.
    pub usage: crate::policy::state::ResourceUsage,
    /// The estimate sent (`rsc_fpops_est`).
    pub fpops_est: f64,
    /// Report deadline.
    pub report_deadline: f64,
}

/// Usage over one window of the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowUsage {
    /// Start, hours after the start of the run.
    pub start_hours: f64,
    /// End, hours after the start of the run.
    pub end_hours: f64,
    /// `fraction` per project and resource, as in [`SimReport::usage`].
    pub usage: Vec<UsageRow>,
}

/// Accumulated usage at one instant, for windows: instance-seconds per
/// (project name, resource), CPU time, GPU time.
#[derive(Clone, Debug, Default)]
struct UsageSnapshot {
    secs: BTreeMap<(String, usize), f64>,
    active_time: f64,
    gpu_active_time: f64,
}

/// Reads SCENARIO (a folder or seed notation) and simulates it.
pub fn simulate_scenario(scenario: &str, options: &SimOptions) -> Result<SimReport, SimError> {
    simulate_scenario_logged(scenario, options, None)
}

/// Whether `--log-out` can write the log of `scenario` run with `options`:
/// an emulator inputs folder (seed notation has no cc_config.xml to name
/// the log flags), today's generation: releases 7.0-7.2 and 7.4 on.
pub fn log_out_supported(scenario: &str, options: &SimOptions) -> Result<(), SimError> {
    if scenario::is_notation(scenario) {
        return Err(SimError::Options(
            "--log-out needs an emulator inputs folder (its cc_config.xml names the log \
             flags); seed notation has none"
                .into(),
        ));
    }
    if emulator_6_10_inputs(scenario).is_some() && options.policy == Generation::Ltd66 {
        return Ok(());
    }
    log_out_generation(options)
}

/// The folder of the 6.10 emulator's inputs (sim_projects.xml) that
/// `scenario` names (itself or its `inputs/`), if it is one.
pub fn emulator_6_10_inputs(scenario: &str) -> Option<std::path::PathBuf> {
    if scenario::is_notation(scenario) {
        return None;
    }
    let dir = std::path::Path::new(scenario);
    [dir.join("inputs"), dir.to_path_buf()]
        .into_iter()
        .find(|d| d.join("sim_projects.xml").is_file())
}

/// A run of the 6.10.60 emulator's inputs under `ltd-6.6` and that
/// emulator's own harness ([`emulator_6_10`]): the emulator's run, job sizes
/// drawn as it draws them; `log` gets its sim_log.txt.
fn simulate_6_10(
    inputs: &std::path::Path,
    options: &SimOptions,
    log: Option<LogOut<'_>>,
) -> Result<SimReport, SimError> {
    let parsed = crate::parse::load_trace(
        &[inputs.to_path_buf()],
        &crate::parse::LogOptions::default(),
    );
    let trace = parsed.value;
    let (state, apps) =
        emulator_6_10::build(&trace).map_err(|e| SimError::Scenario(e.to_string()))?;
    let mut rng = Rng::new(options.seed);
    let processes = trace
        .state
        .sim_host
        .as_ref()
        .map_or(&[][..], |host| host.processes.as_slice());
    let mut world = emulator_6_10::Emulator610::new(apps, emulator_6_10::JobSizes::Drawn(&mut rng))
        .with_host_processes(processes);
    let loop_options = LoopOptions {
        delta: options.delta,
        duration: options.duration,
        params: options.effective_params(),
        profile: Profile {
            sim_6_10: true,
            ..Profile::of(Generation::Ltd66)
        },
    };
    let flags = trace
        .state
        .cc_config
        .as_ref()
        .map(|c| log_out_6_10::Flags610::from_log_flags(&c.log_flags))
        .unwrap_or_default();
    let (log, timeline) = match log {
        Some(out) => (Some(out.log), out.timeline),
        None => (None, None),
    };
    let mut writer =
        log.map(|log| log_out_6_10::LogWriter610::new(log, flags, options.delta, options.duration));
    let mut transcripts = TranscriptObserver {
        keep: options.keep_transcripts,
        records: Vec::new(),
    };
    let mut observer = Both(&mut transcripts, writer.as_mut());
    let start = emulator_6_10::START;
    let mut run = ClientLoop::new(state, loop_options, &mut world, &mut observer)?;
    run.run_steps(start, start + options.duration)?;
    let end = RunEnd::of(run);
    if let Some(writer) = writer {
        writer
            .finish()
            .map_err(|e| SimError::Options(format!("--log-out: {e}")))?;
    }
    if let Some(page) = timeline {
        log_out_6_10::write_sim_out(page, &world.sent_sizes())
            .map_err(|e| SimError::Options(format!("sim_out_0.html: {e}")))?;
    }
    Ok(report(&end.outcome(), options, &transcripts.records))
}

fn log_out_generation(options: &SimOptions) -> Result<(), SimError> {
    if options.policy != Generation::Current {
        return Err(SimError::Options(format!(
            "--log-out writes the logs of today's policy generation (releases 7.0-7.2 and \
             7.4 on); not {}",
            options.policy
        )));
    }
    if let Some(release) = options
        .release
        .filter(|r| *r < Release(7, 4, 0) && !is_7_2(*r))
    {
        // The 7.3 development releases print some lines as 7.2 does and
        // some as 7.4 does; which changed when within 7.3 is not measured.
        return Err(SimError::Options(format!(
            "--log-out writes the logs of releases 7.0-7.2 and 7.4 on; not {release}"
        )));
    }
    Ok(())
}

/// [`simulate_scenario`], also writing the emulator's log of the run to
/// `log` ([`log_out`]; see [`log_out_supported`]).
pub fn simulate_scenario_logged(
    scenario: &str,
    options: &SimOptions,
    log: Option<LogOut<'_>>,
) -> Result<SimReport, SimError> {
    if log.is_some() {
        log_out_supported(scenario, options)?;
    }
    if options.policy == Generation::Ltd66 {
        if let Some(inputs) = emulator_6_10_inputs(scenario) {
            return simulate_6_10(&inputs, options, log);
        }
    }
    let mut rng = Rng::new(options.seed);
    let world = if scenario::is_notation(scenario) {
        scenario::from_notation(scenario)?
    } else {
        scenario::from_folder(std::path::Path::new(scenario), options.release, &mut rng)?
    };
    simulate_logged(world, options, &mut rng, log)
}

/// Usage accumulated so far, for windows.
fn snapshot(run: &ClientLoop<'_>) -> UsageSnapshot {
    let mut secs = BTreeMap::new();
    for (p, project) in run.state.projects.iter().enumerate() {
        for (r, value) in run.usage.secs.get(p).into_iter().flatten().enumerate() {
            secs.insert((project.name.to_string(), r), *value);
        }
    }
    UsageSnapshot {
        secs,
        active_time: run.accounts.active_time,
        gpu_active_time: run.accounts.gpu_active_time,
    }
}

/// Keeps every RPC that reached a server, for the transcripts.
#[derive(Default)]
struct TranscriptObserver {
    keep: bool,
    records: Vec<RpcRecord>,
}

impl Observer for TranscriptObserver {
    fn event(&mut self, state: &HostState, now: f64, event: LoopEvent<'_>) {
        let LoopEvent::Rpc {
            project: p,
            request,
            reported,
            in_progress,
            jobs,
            ..
        } = event
        else {
            return;
        };
        if !self.keep {
            return;
        }
        let Some(project) = state.projects.get(p) else {
            return;
        };
        let total_share: f64 = state.projects.iter().map(|x| x.resource_share).sum();
        let versions = &project.app_versions;
        self.records.push(RpcRecord {
            time: now,
            project_name: project.name.to_string(),
            project_url: project.url.to_string(),
            share_fraction: if total_share > 0.0 {
                project.resource_share / total_share
            } else {
                1.0
            },
            dont_use_dcf: project.dont_use_dcf,
            request: request.to_vec(),
            reported: reported.to_vec(),
            in_progress: in_progress.to_vec(),
            jobs: jobs
                .iter()
                .map(|job| SentJob {
                    name: job.name.to_string(),
                    app: job.app.to_string(),
                    version: versions
                        .iter()
                        .position(|v| v.app == job.app && v.usage == job.usage)
                        .unwrap_or(0),
                    usage: job.usage.clone(),
                    fpops_est: job.rsc_fpops_est,
                    report_deadline: job.report_deadline,
                })
                .collect(),
        });
    }
}

/// Runs the closed loop over `world`: the [`client_loop`] with the
/// simulated world ([`world::SimWorld`]) and the policy of `options`.
pub fn simulate(world: World, options: &SimOptions, rng: &mut Rng) -> Result<SimReport, SimError> {
    simulate_logged(world, options, rng, None)
}

/// Where `simulate --log-out` writes (see [`log_out`]).
pub struct LogOut<'a> {
    /// The emulator's log.txt.
    pub log: &'a mut dyn std::io::Write,
    /// The emulator's timeline page: timeline.html, availability rows
    /// only; for the 6.10 emulator sim_out_0.html, its job sizes only
    /// ([`log_out_6_10::write_sim_out`]).
    pub timeline: Option<&'a mut dyn std::io::Write>,
    /// The emulator's inputs.txt (the run options).
    pub inputs: Option<&'a mut dyn std::io::Write>,
}

/// [`simulate`], also writing the emulator's log of the run to `log`
/// ([`log_out`]).
pub fn simulate_logged(
    world: World,
    options: &SimOptions,
    rng: &mut Rng,
    mut log: Option<LogOut<'_>>,
) -> Result<SimReport, SimError> {
    if options.delta.is_nan()
        || options.delta < 1.0
        || options.duration.is_nan()
        || options.duration < 0.0
        || !options.duration.is_finite()
    {
        return Err(SimError::Options(
            "delta must be >= 1 s and duration >= 0".into(),
        ));
    }
    if let Some(o) = world
        .server_options
        .iter()
        .find(|o| o.request_delay.is_some())
    {
        return Err(SimError::Scenario(format!(
            "{}: delay=S (a <request_delay> in each reply) is a lab option; \
             simulate does not model per-project request delays",
            o.project
        )));
    }
    if let Some(o) = world.server_options.iter().find(|o| o.no_ack) {
        return Err(SimError::Scenario(format!(
            "{}: noack (a scheduler that never acknowledges reported tasks) is a lab option; \
             simulate's servers acknowledge every report",
            o.project
        )));
    }
    let mut boundaries: Vec<(f64, Option<UsageSnapshot>)> = options
        .windows
        .iter()
        .flat_map(|&(a, b)| [(a, None), (b, None)])
        .collect();
    if log.is_some() {
        log_out_generation(options)?;
    }
    let header = world.log_header.clone();
    let (state, mut sim_world, mut loop_options) = split(world, options, rng);
    if let Some(inputs) = log.as_mut().and_then(|out| out.inputs.as_mut()) {
        // client/sim.cpp write_inputs(), with this run's options.
        let yes = |b: bool| if b { "yes" } else { "no" };
        let half_life = loop_options
            .params
            .rec_half_life_secs(state.config.rec_half_life_days);
        write!(
            inputs,
            "Existing jobs only: {}\nRound-robin only: no\nscheduler EDF sim: no\n\
             Include empty projects: no\nREC half-life: {half_life:.6}\n\
             Simulation duration: {:.6}\nTime step: {:.6}\n",
            yes(options.existing_jobs_only),
            options.duration,
            options.delta
        )
        .map_err(|e| SimError::Options(format!("inputs.txt: {e}")))?;
    }
    let mut writer = log.map(|out| {
        loop_options.params.trace = true;
        let mut writer = log_out::LogWriter::new(
            out.log,
            out.timeline,
            &header,
            &loop_options.params,
            options.release,
        );
        writer.header(&state, &header);
        writer
    });
    let mut transcripts = TranscriptObserver {
        keep: options.keep_transcripts,
        records: Vec::new(),
    };
    let mut observer = Both(&mut transcripts, writer.as_mut());
    let mut run = ClientLoop::new(state, loop_options, &mut sim_world, &mut observer)?;
    run.run_steps_with(START_TIME, START_TIME + options.duration, |run, now| {
        for (at, snap) in &mut boundaries {
            if snap.is_none() && now - START_TIME >= *at {
                *snap = Some(snapshot(run));
            }
        }
    })?;
    let last = snapshot(&run);
    let end = RunEnd::of(run);
    let outcome = end.outcome();
    let state = &end.state;
    if let Some(writer) = writer {
        writer
            .finish()
            .map_err(|e| SimError::Options(format!("--log-out: {e}")))?;
    }
    let mut report = report(&outcome, options, &transcripts.records);
    report.windows = options
        .windows
        .iter()
        .zip(boundaries.chunks(2))
        .map(|(&(a, b), pair)| {
            let start = pair
                .first()
                .and_then(|(_, s)| s.clone())
                .unwrap_or_else(|| last.clone());
            let end = pair
                .get(1)
                .and_then(|(_, s)| s.clone())
                .unwrap_or_else(|| last.clone());
            window_usage(state, a, b, &start, &end)
        })
        .collect();
    Ok(report)
}

/// Two observers in turn.
struct Both<'a, A: Observer, B: Observer>(&'a mut A, Option<&'a mut B>);

impl<A: Observer, B: Observer> Observer for Both<'_, A, B> {
    fn event(&mut self, state: &HostState, now: f64, event: LoopEvent<'_>) {
        self.0.event(state, now, event);
        if let Some(b) = self.1.as_mut() {
            b.event(state, now, event);
        }
    }
    fn step_begins(&mut self, now: f64) {
        self.0.step_begins(now);
        if let Some(b) = self.1.as_mut() {
            b.step_begins(now);
        }
    }
    fn step_availability(&mut self, now: f64, availability: crate::client_loop::Availability) {
        self.0.step_availability(now, availability);
        if let Some(b) = self.1.as_mut() {
            b.step_availability(now, availability);
        }
    }
}

/// A replica of the servers and host processes of an emulator reference
/// (`scenario` = its folder or `inputs/`), drawing from the emulator's
/// generator (seed 1) in its order, for the replay to drive along the
/// recording (`replay::world::Generator::shadow`): its draws follow the
/// recorded client's decisions, so they stay the emulator's where the
/// client broke a tie the loop cannot know. (A separate simulation's draws
/// are the emulator's only until the first such tie.)
pub fn emulator_shadow(
    scenario: &str,
    release: Option<Release>,
) -> Result<world::SimWorld<Rng>, SimError> {
    let recorded = scenario::recorded_run(scenario).unwrap_or_default();
    let release = release.or(scenario::auto_policy(scenario).2);
    let mut rng = Rng::new(1);
    let World {
        servers,
        host,
        events,
        ..
    } = scenario::from_folder(std::path::Path::new(scenario), release, &mut rng)?;
    Ok(world::SimWorld::new(
        servers,
        host,
        events,
        rng,
        recorded.existing_jobs_only,
    ))
}

/// A scenario's world split into the loop's parts: the host state, the
/// simulated world and the loop's options.
fn split<'r>(
    world: World,
    options: &SimOptions,
    rng: &'r mut Rng,
) -> (HostState, world::SimWorld<&'r mut Rng>, LoopOptions) {
    let World {
        state,
        servers,
        host,
        events,
        ..
    } = world;
    let sim_world = world::SimWorld::new(servers, host, events, rng, options.existing_jobs_only);
    let loop_options = LoopOptions {
        delta: options.delta,
        duration: options.duration,
        params: options.effective_params(),
        profile: options.profile(),
    };
    (state, sim_world, loop_options)
}

/// What the report reads from a finished run.
struct RunOutcome<'a> {
    state: &'a HostState,
    accounts: &'a Accounts,
    usage: &'a Usage,
    rpcs_skipped: u64,
    params: &'a Params,
}

/// What a finished run leaves for its report.
struct RunEnd {
    state: HostState,
    accounts: Accounts,
    usage: Usage,
    rpcs_skipped: u64,
    params: Params,
}

impl RunEnd {
    /// The loop's final state, its accounting and the parameters it ran
    /// with (without the printing-only trace switch).
    fn of(run: ClientLoop<'_>) -> Self {
        let mut params = run.params().clone();
        params.trace = false;
        let LoopCore {
            state,
            accounts,
            usage,
            rpcs_skipped,
            ..
        } = run.suspend();
        RunEnd {
            state,
            accounts,
            usage,
            rpcs_skipped,
            params,
        }
    }

    fn outcome(&self) -> RunOutcome<'_> {
        RunOutcome {
            state: &self.state,
            accounts: &self.accounts,
            usage: &self.usage,
            rpcs_skipped: self.rpcs_skipped,
            params: &self.params,
        }
    }
}

fn window_usage(
    state: &HostState,
    a: f64,
    b: f64,
    start: &UsageSnapshot,
    end: &UsageSnapshot,
) -> WindowUsage {
    let mut usage = Vec::new();
    for project in &state.projects {
        for r in 0..state.n_rsc() {
            let key = (project.name.to_string(), r);
            let secs = end.secs.get(&key).copied().unwrap_or(0.0)
                - start.secs.get(&key).copied().unwrap_or(0.0);
            let time = if r == 0 {
                end.active_time - start.active_time
            } else {
                end.gpu_active_time - start.gpu_active_time
            };
            let cap = state.ninstances(r) as f64 * time;
            usage.push(UsageRow {
                project: project.name.to_string(),
                resource: state.rsc_type(r).to_string(),
                fraction: if cap > 0.0 { secs / cap } else { 0.0 },
                gpu_jobs_cpu_fraction: 0.0,
            });
        }
    }
    WindowUsage {
        start_hours: a / 3600.0,
        end_hours: b / 3600.0,
        usage,
    }
}

fn report(sim: &RunOutcome<'_>, options: &SimOptions, records: &[RpcRecord]) -> SimReport {
    let state = sim.state;
    let f = state.host.p_fpops;
    let cpu_peak = state.n_usable_cpus() as f64 * f;
    let gpu_peak: f64 = (1..state.n_rsc())
        .map(|r| state.ninstances(r) as f64 * state.relative_speed(r, sim.params) * f)
        .sum();
    let shares: Vec<f64> = state.projects.iter().map(|p| p.resource_share).collect();
    let figures = sim
        .accounts
        .figures(cpu_peak, gpu_peak, &shares, state.cpu_scheduling_period());
    let mut usage = Vec::new();
    for (p, project) in state.projects.iter().enumerate() {
        for r in 0..state.n_rsc() {
            let time = if r == 0 {
                sim.accounts.active_time
            } else {
                sim.accounts.gpu_active_time
            };
            let cap = state.ninstances(r) as f64 * time;
            let ratio = |x: f64| if cap > 0.0 { x / cap } else { 0.0 };
            usage.push(UsageRow {
                project: project.name.to_string(),
                resource: state.rsc_type(r).to_string(),
                fraction: ratio(sim.usage.secs[p][r]),
                gpu_jobs_cpu_fraction: if r == 0 {
                    ratio(sim.usage.gpu_job_cpu_secs[p])
                } else {
                    0.0
                },
            });
        }
    }
    let used: f64 = sim.accounts.flops_used.iter().sum();
    let projects = state
        .projects
        .iter()
        .enumerate()
        .map(|(p, project)| ProjectRow {
            project: project.name.to_string(),
            share: project.resource_share,
            flops_fraction: if used > 0.0 {
                sim.accounts.flops_used[p] / used
            } else {
                0.0
            },
            deadlines_met: sim.accounts.met[p],
            deadlines_missed: sim.accounts.missed[p],
            rec: project.rec,
        })
        .collect();
    SimReport {
        figures_of_merit: figures,
        usage,
        projects,
        rpcs: sim.accounts.nrpcs,
        rpcs_skipped: sim.rpcs_skipped,
        jobs: sim.accounts.njobs,
        duration: options.duration,
        delta: options.delta,
        seed: options.seed,
        policy: match options.release {
            Some(release) if options.policy == Generation::Current && is_7_2(release) => {
                "7.2.42".to_string()
            }
            Some(release) if options.policy == Generation::Current => {
                crate::policy::profile::profile_name(release)
            }
            _ => options.policy.to_string(),
        },
        policy_reason: None,
        run_options_from: None,
        windows: Vec::new(),
        transcripts: transcript::render(records, state, options.policy),
    }
}

/// The report as a plain-text table for people.
pub fn render_table(report: &SimReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let f = &report.figures_of_merit;
    let _ = writeln!(
        s,
        "policy {}  duration {} s  delta {} s  seed {}  RPCs {} (skipped {})  jobs {}",
        report.policy,
        report.duration,
        report.delta,
        report.seed,
        report.rpcs,
        report.rpcs_skipped,
        report.jobs
    );
    if let Some(why) = &report.policy_reason {
        let _ = writeln!(s, "policy auto: {why}");
    }
    if let Some(source) = &report.run_options_from {
        let _ = writeln!(
            s,
            "run options not given on the command line: from {source}"
        );
    }
    let _ = writeln!(s, "\nFigures of merit");
    for (name, value) in [
        ("wasted fraction", f.wasted_fraction),
        ("idle fraction", f.idle_fraction),
        ("share violation", f.share_violation),
        ("monotony", f.monotony),
        ("RPCs per job", f.rpcs_per_job),
    ] {
        let _ = writeln!(s, "  {name:<16} {value:.6}");
    }
    let _ = writeln!(s, "\nUsage (fraction of the resource's instance-seconds)");
    let _ = writeln!(
        s,
        "  {:<20} {:<12} {:>9} {:>16}",
        "project", "resource", "fraction", "+ GPU jobs' CPU"
    );
    for row in &report.usage {
        let extra = if row.resource == "CPU" {
            format!("{:.4}", row.gpu_jobs_cpu_fraction)
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  {:<20} {:<12} {:>9.4} {:>16}",
            row.project, row.resource, row.fraction, extra
        );
    }
    for window in &report.windows {
        let _ = writeln!(
            s,
            "\nUsage from hour {} to hour {}",
            window.start_hours, window.end_hours
        );
        for row in &window.usage {
            let _ = writeln!(
                s,
                "  {:<20} {:<12} {:>9.4}",
                row.project, row.resource, row.fraction
            );
        }
    }
    let _ = writeln!(s, "\nProjects");
    let _ = writeln!(
        s,
        "  {:<20} {:>8} {:>8} {:>6} {:>6} {:>10}",
        "project", "share", "FLOPs%", "met", "missed", "REC"
    );
    for p in &report.projects {
        let _ = writeln!(
            s,
            "  {:<20} {:>8.2} {:>8.2} {:>6} {:>6} {:>10.3}",
            p.project,
            p.share,
            100.0 * p.flops_fraction,
            p.deadlines_met,
            p.deadlines_missed,
            p.rec
        );
    }
    s
}

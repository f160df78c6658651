//! The client loop: the one time-step loop that both `simulate` and `audit`
//! run. It mirrors the emulator's `simulate()` (client/sim.cpp), which runs
//! the client's own poll order against a world it simulates.
//!
//! ```text
//!            ┌──────── World ────────┐          ┌──── Observer ────┐
//!  simulate: │ simulated host+servers│          │ figures, log-out │
//!  audit:    │ the recording         │──loop──▶ │ compare with the │
//!            └───────────────────────┘   ▲      │ recorded points  │
//!                                        │      └──────────────────┘
//!                         policy generation (current, 7.2, ltd-6.6, debt-6.2)
//! ```
//!
//! Two plug-in points:
//! - the **world** ([`World`]): where host availability per step, the outcome
//!   of each scheduler RPC (jobs sent, project down), the random draws of
//!   backoffs and the scheduled changes (a project attached, an app added)
//!   come from. `simulate` plugs in simulated servers and a seeded generator
//!   (`simulate::world`); `audit` plugs in the recording
//!   (`replay::world`): the time steps, availability, arrivals, skips and
//!   drawn backoffs the log shows. A real client's record plugs in the
//!   host it reconstructs (`replay::rrsim_replay`), which the loop runs
//!   at the record's moments rather than by `delta` ([`anchored`]).
//! - the **policy generation** ([`Profile`]): today's REC policy, 7.0–7.2's
//!   variant of it (a fresh simulation at every pass, GPU jobs' CPU outside
//!   the simulation, the 7.2.42 harness's 900-s deferral after each reply),
//!   or the older debt generations, which keep only their policy code in
//!   [`ltd`] and [`debt`] (the 6.10.60 emulator's own harness is a profile
//!   too: `audit` replays the 6.10 reference traces through it).
//!
//! `audit` and `simulate` both step time only through [`ClientLoop::run`]
//! and [`ClientLoop::run_steps`]; a reconstructed host is not stepped but
//! anchored at its moments ([`ClientLoop::run_moments`]).
//!
//! Each step of `delta` seconds at `now` (spec policy-current §8):
//! 1. the world's scheduled changes are applied; host availability is taken
//!    from the world (`on`, then `active`/`gpu_active` and `connected`);
//! 2. tasks progress over the step just ended and finished jobs exit
//!    (`ACTIVE_TASK_SET::poll`), then exits are handled (REC update with the
//!    first exit in active-task order credited twice);
//! 3. while the host is on, repeatedly until nothing happens: job scheduling
//!    (`adjust_rec`, `make_run_list`, `enforce_run_list` and the task layer;
//!    only while jobs exist, on request or every 60 s), the RPC poll when
//!    connected (at most every 5 s: an overdue-report RPC with a piggybacked
//!    request, else at most once per 60 s or on request the work-fetch
//!    choice and its RPC), progress and exits; the GPU state of the step
//!    applies from the end of its first pass;
//! 4. after the first step projects are kept in alphabetical order.
//!
//! Every decision is handed to the [`Observer`] as it is made, as engine
//! data ([`LoopEvent`]); what a decision looks like in a log is the
//! observer's business.
//!
//! Architecture Invariant: the only module that steps time. It depends on
//! `policy` only; it knows nothing of parsers, traces or output formats.
//! Deterministic: all randomness comes from the world.

pub mod anchored;
pub(crate) mod debt;
pub mod heap;
pub mod host;
pub(crate) mod ltd;
pub mod merit;

pub use ltd::{LtdEvent, SimFor, TaskBefore};

use crate::policy::backoff::{project_rpc_backoff, RpcBackoff};
use crate::policy::cpu_sched::{
    enforce_run_list, make_run_list_with_ties, EnforceAction, EnforceOutcome, RunListOutcome,
};
use crate::policy::generation::Generation;
use crate::policy::rec::{adjust_rec, RecAdjustment};
use crate::policy::reply::{handle_scheduler_reply, project_with_overdue_results, SchedReply};
use crate::policy::rr_sim::{rr_simulate, RrSimOutcome};
use crate::policy::state::{
    App, AppVersion, HostState, Job, JobIdx, JobState, Project, ProjectIdx, RpcReason, RscIdx,
    SchedulerState, TaskState,
};
use crate::policy::work_fetch::{choose_project, piggyback_work_request, RscRequest};
use crate::policy::work_fetch::{ProjectReason, WorkFetchOutcome};
use crate::policy::{Params, PolicyError};
use host::{JobSide, Usage};
use merit::Accounts;

/// The emulator's start time (`START_TIME`).
pub const START_TIME: f64 = 3600.0;

/// The engine refused the state at some time.
#[derive(Debug, thiserror::Error)]
#[error("policy engine at t={now}: {source}")]
pub struct LoopError {
    /// Simulated time.
    pub now: f64,
    /// The engine's error.
    pub source: PolicyError,
}

fn engine(now: f64) -> impl Fn(PolicyError) -> LoopError {
    move |source| LoopError { now, source }
}

/// The host's state for one step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Availability {
    /// The client runs.
    pub on: bool,
    /// The host is "active" (the emulator's second process: GPUs can be
    /// used only then; its timeline shows the step as "BOINC not running"
    /// otherwise).
    pub active: bool,
    /// The network is connected.
    pub connected: bool,
    /// GPU computing is allowed.
    pub gpu_active: bool,
}

/// The 6.10 harness's host availability process at one sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostSample {
    /// The host runs.
    pub on: bool,
    /// The mean on-period, seconds.
    pub lambda: f64,
    /// Seconds left in the current period.
    pub time_left: f64,
}

/// The outcome of one scheduler RPC.
#[derive(Clone, Debug)]
pub enum RpcOutcome {
    /// The project's server could not be reached (`RPC skipped: project
    /// down`); the client backs the project off with the given draw.
    Down(Drawn),
    /// The server replied with these jobs, in creation order, and refused
    /// those.
    Reply(Vec<Job>, Vec<Refusal>),
}

/// A random draw of the client, as the world gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Drawn {
    /// The uniform factor in [0, 1] (the simulated world's generator).
    Factor(f64),
    /// The length the recording shows, in seconds; the loop checks it lies
    /// in the range its own state allows and takes it.
    Secs(f64),
    /// The recording shows no draw where the loop makes one.
    Missing,
}

/// What a draw is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawKind {
    /// `project_rpc_backoff` after a failed RPC.
    ProjectBackoff,
    /// `resource_backoff` of one resource after a reply without its jobs.
    ResourceBackoff(RscIdx),
    /// The ltd-6.6 reply handler's per-resource backoff draws.
    LegacyBackoff,
}

/// A change of the host's configuration during the run.
#[derive(Clone, Debug)]
pub enum HostChange {
    /// A project is attached (the world keeps its server).
    Attach(Box<Project>),
    /// The user sets the named project to "no new tasks".
    NoNewWork(String),
    /// The named project gains an app version.
    AddApp {
        /// The project's name.
        project: String,
        /// The version.
        version: AppVersion,
    },
}

/// Where the loop's world comes from (plug-in point one).
pub trait World {
    /// Changes due at or before `now`, in order.
    fn changes_due(&mut self, _now: f64) -> Vec<HostChange> {
        Vec::new()
    }
    /// The host's availability for the step at `now`.
    fn availability(&mut self, now: f64, delta: f64) -> Availability;
    /// One scheduler RPC to project `p` asking for `request`.
    fn rpc(
        &mut self,
        state: &HostState,
        p: ProjectIdx,
        request: &[RscRequest],
        now: f64,
    ) -> RpcOutcome;
    /// A random draw of the client for project `p`.
    fn draw(&mut self, now: f64, project: &str, kind: DrawKind, rsc_name: &str) -> Drawn;
    /// The order the next run list at `now` gives jobs whose deadline tie
    /// the client broke by estimates the world cannot know
    /// ([`Job::estimate_unknown`]): job names, or `None`.
    fn run_list_order(&mut self, _now: f64) -> Option<Vec<String>> {
        None
    }
    /// The order the next enforcement at `now` gives its equally important
    /// jobs (the client breaks such ties by memory address): job names, or
    /// `None` for creation order (a simulated world).
    fn tie_order(&mut self, _now: f64) -> Option<Vec<String>> {
        None
    }
    /// The true CPU time of a job the world just sent, when the world knows
    /// it in seconds (the 6.10 emulator's jobs); else it follows from the
    /// job's exact FLOPs.
    fn final_cpu_time(&mut self, _job: &Job) -> Option<f64> {
        None
    }
    /// The 6.10 harness: the host's availability process as the last
    /// [`availability`](Self::availability) sampled it, when it varies.
    fn host_sample(&self) -> Option<HostSample> {
        None
    }
    /// Projects were put in a new order: new index `i` holds old `order[i]`.
    fn projects_reordered(&mut self, _order: &[usize]) {}
    /// The `unfinished_time_slice` a new job's reused memory held, when the
    /// world knows it (a recording's first preliminary job list that lists
    /// the job); `None` for the loop's own model
    /// ([`Profile::new_jobs_reuse_freed_uts`]).
    fn new_job_uts(&mut self, _job: &str) -> Option<bool> {
        None
    }
    /// Jobs the world delivered at `now` that no RPC of the loop asked for
    /// (a recording whose client made an RPC the loop did not), with the
    /// index of their project; added so that the loop stays anchored.
    fn unsolicited_jobs(&mut self, _state: &HostState, _now: f64) -> Vec<Job> {
        Vec::new()
    }
    /// A world that reconstructs its host from a record sets `state` to
    /// the host at its moment `k` and gives that moment's time; `Err`
    /// names what the record lacks there. A simulated world has no
    /// moments: `None` ([`anchored`]).
    fn anchor(&mut self, _k: usize, _state: &mut HostState) -> Option<Result<f64, String>> {
        None
    }
}

/// What the task layer did to one task (the emulated `ACTIVE_TASK` calls of
/// `enforce_run_list`), in the order done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskAction {
    /// Preempted; `removed` = removed from memory.
    Preempt {
        /// The job.
        job: JobIdx,
        /// Removed from memory (else left suspended).
        removed: bool,
    },
    /// Resumed (it ran before).
    Resume(JobIdx),
    /// Started for the first time.
    Start(JobIdx),
}

/// A job the server refused to send: its estimated time would pass its
/// latency bound after the reported delay (sim.cpp simulate_rpc, `job for
/// APP misses deadline approx`).
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// Jobs the reply held when it was refused.
    pub after_jobs: usize,
    /// The app.
    pub app: String,
    /// The delay reported for its resource.
    pub delay: f64,
    /// Its estimated time.
    pub est: f64,
    /// The app's latency bound.
    pub bound: f64,
}

/// What the loop did besides deciding: the client's bookkeeping that its
/// log shows (requests for a pass, task exits, RPCs begun).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoopNote {
    /// `request_schedule_cpus(why)`.
    ScheduleRequested(&'static str),
    /// `request_work_fetch(why)`.
    WorkFetchRequested(&'static str),
    /// A task's process exited (`ACTIVE_TASK_SET::poll`).
    TaskExited(JobIdx),
    /// A finished task is handled (`handle_finished_apps`): before its REC
    /// update if it is the first.
    TaskFinished(JobIdx),
    /// An RPC begins: to report results (else to get work).
    RpcBegins {
        /// The project.
        project: ProjectIdx,
        /// It reports results (a piggybacked request).
        report: bool,
    },
}

/// One decision of the loop, as engine data (plug-in point two's output).
#[derive(Clone, Copy, Debug)]
pub enum LoopEvent<'a> {
    /// An REC update (`adjust_rec`), at an exit or a scheduling pass.
    Rec(&'a RecAdjustment),
    /// A fresh round-robin simulation (with its `[prio]` initialisation),
    /// made by a scheduling pass or by the RPC poll.
    RrSim(&'a RrSimOutcome),
    /// A scheduling pass's run list; `fresh` = it made its own simulation.
    RunList {
        /// The outcome.
        run: &'a RunListOutcome,
        /// It simulated afresh (else reused the step's simulation).
        fresh: bool,
    },
    /// The enforcement of that run list.
    Enforced {
        /// The engine's outcome.
        outcome: &'a EnforceOutcome,
        /// GPU instances newly assigned (a task keeps what it holds).
        assigned: &'a [(JobIdx, Vec<usize>)],
        /// The task layer's actions.
        tasks: &'a [TaskAction],
    },
    /// A work-fetch pass; `report` is the project of a report RPC whose
    /// request is piggybacked (no choice is made then).
    WorkFetch {
        /// The engine's outcome.
        outcome: &'a WorkFetchOutcome,
        /// The report RPC's project.
        report: Option<ProjectIdx>,
    },
    /// An RPC was skipped (project down) and the project backed off.
    ProjectBackoff {
        /// The project.
        project: ProjectIdx,
        /// The deferral taken.
        secs: f64,
        /// Its range under the loop's state, (min, max) seconds.
        range: Option<(f64, f64)>,
        /// Failures counted.
        n: u32,
    },
    /// A resource backed off after a reply.
    ResourceBackoff {
        /// The project.
        project: ProjectIdx,
        /// The resource.
        rsc: RscIdx,
        /// Its length.
        secs: f64,
        /// The doubling interval it was drawn from.
        interval: f64,
    },
    /// An RPC reached a server: what it reported and what it got.
    Rpc {
        /// The project.
        project: ProjectIdx,
        /// The request per resource.
        request: &'a [RscRequest],
        /// Results reported.
        reported: &'a [String],
        /// The project's other jobs on the host.
        in_progress: &'a [String],
        /// Jobs received.
        jobs: &'a [Job],
        /// Jobs the server refused.
        refused: &'a [Refusal],
    },
    /// A job the world delivered unasked was added.
    Unsolicited(JobIdx),
    /// Bookkeeping the client's log shows.
    Note(LoopNote),
    /// A decision of the 6.6–6.10 policy code (`ltd-6.6`).
    Ltd(LtdEvent<'a>),
    /// A engine call failed; the loop goes on without that decision.
    EngineError {
        /// Which decision.
        what: &'static str,
        /// The error.
        error: &'a PolicyError,
    },
}

/// Receives each decision of the loop as it is made.
pub trait Observer {
    /// One decision at `now`; `state` is the loop's state right after it.
    fn event(&mut self, state: &HostState, now: f64, event: LoopEvent<'_>);
    /// A step at `now` begins.
    fn step_begins(&mut self, _now: f64) {}
    /// The host's availability for the step at `now`.
    fn step_availability(&mut self, _now: f64, _availability: Availability) {}
}

/// An observer that keeps nothing.
pub struct Ignore;

impl Observer for Ignore {
    fn event(&mut self, _state: &HostState, _now: f64, _event: LoopEvent<'_>) {}
}

/// The rule differences of one release within a generation (a profile).
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// The generation whose policy code decides.
    pub generation: Generation,
    /// Seconds a project is deferred after each reply: 900 in the emulator
    /// harness up to 7.4.27 (client/sim.cpp `simulate_rpc`; 789637f637,
    /// first in 7.4.28, and eafd70ecc6 on master, 7.5.0, dropped it); 0
    /// since.
    pub rpc_deferral: f64,
    /// The 6.10.60 emulator's harness (its client/sim.cpp), the one that
    /// wrote the 6.10 reference traces: tasks progress in CPU seconds
    /// against each job's true CPU time; projects keep their file order;
    /// an RPC reports every project's finished results and runs no reply
    /// handler; a new job's UTS flag is the one its reused memory held; each
    /// step is a series of poll passes its log marks (see [`ltd`]).
    pub sim_6_10: bool,
    /// WORK_FETCH::setup sorts the client's project list itself by
    /// priority (7.0–7.4; since 7.5.0, it sorts a copy), and the harness puts it
    /// back in name order at the end of every step (write_recs): in
    /// between, every loop over projects (and its log lines) follows the
    /// priority order.
    pub sorts_projects_in_place: bool,
    /// A new job's `unfinished_time_slice` is the one the memory it reuses
    /// held: before 7.6.13 (0ce3f7d996) the client never sets the flag of a
    /// new `RESULT`, whose memory is a freed result's as glibc hands it out
    /// ([`heap`], sized as 7.2.42's objects). Its first preliminary job
    /// list shows that flag.
    pub new_jobs_reuse_freed_uts: bool,
    /// A job the emulator's server makes takes its version's
    /// missing-coprocessor mark (client/sim.cpp make_job copies the
    /// version's resource usage from 143c141f4e on, first in 8.2.9);
    /// before, it was runnable even when every instance of its GPU type
    /// was excluded for its app. A harness rule: a real client aborts such
    /// a job on receipt.
    pub new_jobs_inherit_missing_coproc: bool,
}

impl Profile {
    /// The harness of the emulator of `release` (`None`: today's) for
    /// the current generation's rules: 7.0-7.2 get [`Profile::v7_2`].
    pub fn for_emulator(release: Option<crate::policy::profile::Release>) -> Self {
        use crate::policy::profile::{is_7_2, Release};
        match release {
            Some(r) if is_7_2(r) => Profile::v7_2(),
            Some(r) => Profile {
                rpc_deferral: if r < Release(7, 4, 28) {
                    RPC_DEFERRAL_7_2
                } else {
                    0.0
                },
                new_jobs_inherit_missing_coproc: r >= Release(8, 2, 9),
                // WORK_FETCH::setup sorts a copy from ef22b2bd4b (7.5.0).
                sorts_projects_in_place: r < Release(7, 5, 0),
                // RESULT::clear() sets unfinished_time_slice from
                // 0ce3f7d996 (7.8.0; on the 7.6 branch from 7.6.13).
                new_jobs_reuse_freed_uts: r < Release(7, 6, 13),
                ..Profile::of(Generation::Current)
            },
            None => Profile::of(Generation::Current),
        }
    }
}

/// The emulator harness up to 7.4.27 (7.2.42's included) defers a project
/// this long after every completed RPC (client/sim.cpp `simulate_rpc`;
/// today's: none).
pub const RPC_DEFERRAL_7_2: f64 = 900.0;

impl Profile {
    /// A generation's profile with today's emulator harness.
    pub fn of(generation: Generation) -> Self {
        Profile {
            generation,
            rpc_deferral: 0.0,
            sim_6_10: false,
            sorts_projects_in_place: false,
            new_jobs_reuse_freed_uts: false,
            new_jobs_inherit_missing_coproc: true,
        }
    }

    /// The 7.0–7.2 client under the 7.2.42 emulator's harness (its rules,
    /// a simulation afresh at every pass included, are its params).
    pub fn v7_2() -> Self {
        Profile {
            rpc_deferral: RPC_DEFERRAL_7_2,
            sorts_projects_in_place: true,
            new_jobs_reuse_freed_uts: true,
            new_jobs_inherit_missing_coproc: false,
            ..Profile::of(Generation::Current)
        }
    }
}

/// The loop's options.
#[derive(Clone, Debug)]
pub struct LoopOptions {
    /// Time step (emulator `--delta`).
    pub delta: f64,
    /// Seconds after the start to run (emulator `--duration`).
    pub duration: f64,
    /// The engine's parameters.
    pub params: Params,
    /// The policy profile.
    pub profile: Profile,
}

/// The client loop's state: everything but the world it runs in and the
/// observer it reports to, so a loop can stop between two stretches of its
/// run and go on ([`ClientLoop::suspend`], [`ClientLoop::resume`]).
pub struct LoopCore {
    /// The client's state.
    pub state: HostState,
    /// Per job (same index): bookkeeping beside the engine.
    pub side: Vec<JobSide>,
    /// The emulator's accounting (figures of merit).
    pub accounts: Accounts,
    /// Usage per project and resource.
    pub usage: Usage,
    /// RPCs skipped because the project was down.
    pub rpcs_skipped: u64,
    pub(crate) params: Params,
    pub(crate) profile: Profile,
    delta: f64,
    duration: f64,
    /// The simulation of the current instant (reused within it, §8).
    sim: Option<RrSimOutcome>,
    pub(crate) must_schedule: bool,
    pub(crate) must_check_work_fetch: bool,
    last_schedule: f64,
    pub(crate) last_poll: f64,
    pub(crate) last_work_fetch: f64,
    last_progress: f64,
    steps_done: u64,
    next_task_seq: u64,
    gpu_active: bool,
    /// Task progress or exits happened at the start of this step.
    begin_action: bool,
    /// 7.0–7.2: the project order the pass's work-fetch set-up left.
    sorted_by_setup: Option<Vec<usize>>,
    /// The freed results' memory ([`Profile::new_jobs_reuse_freed_uts`]).
    freed: heap::ResultHeap,
    /// The ltd-6.6 policy's state when it drives the host.
    ltd: Option<ltd::LtdSim>,
    /// The debt-6.2 policy's state when it drives the host.
    debt: Option<debt::DebtSim>,
}

/// The client loop: its state in a world, reporting to an observer.
pub struct ClientLoop<'a> {
    core: LoopCore,
    pub(crate) world: &'a mut dyn World,
    observer: &'a mut dyn Observer,
}

impl std::ops::Deref for ClientLoop<'_> {
    type Target = LoopCore;

    fn deref(&self) -> &LoopCore {
        &self.core
    }
}

impl<'a> ClientLoop<'a> {
    /// A loop over `state` in `world`, reporting to `observer`.
    pub fn new(
        state: HostState,
        options: LoopOptions,
        world: &'a mut dyn World,
        observer: &'a mut dyn Observer,
    ) -> Result<Self, LoopError> {
        if options.delta.is_nan()
            || options.delta < 1.0
            || options.duration.is_nan()
            || options.duration < 0.0
            || !options.duration.is_finite()
        {
            return Err(LoopError {
                now: START_TIME,
                source: PolicyError::InvalidState("delta must be >= 1 s and duration >= 0".into()),
            });
        }
        let n = state.projects.len();
        let n_rsc = state.n_rsc();
        let n_jobs = state.jobs.len();
        let sizes = if options.profile.sim_6_10 {
            heap::SIZES_6_10
        } else {
            heap::SIZES_7_2
        };
        let mut this = ClientLoop {
            world,
            observer,
            core: LoopCore {
                side: vec![JobSide::default(); n_jobs],
                accounts: Accounts::new(n),
                usage: Usage {
                    secs: vec![vec![0.0; n_rsc]; n],
                    gpu_job_cpu_secs: vec![0.0; n],
                },
                rpcs_skipped: 0,
                params: options.params,
                profile: options.profile,
                delta: options.delta,
                duration: options.duration,
                sim: None,
                must_schedule: true,
                must_check_work_fetch: true,
                last_schedule: f64::NEG_INFINITY,
                last_poll: f64::NEG_INFINITY,
                last_work_fetch: f64::NEG_INFINITY,
                last_progress: START_TIME,
                steps_done: 0,
                next_task_seq: 1,
                gpu_active: true,
                begin_action: false,
                sorted_by_setup: None,
                freed: heap::ResultHeap::new(sizes),
                ltd: None,
                debt: None,
                state,
            },
        };
        match this.core.profile.generation {
            Generation::Current => {}
            Generation::Ltd66 => {
                // Creation order, the enforcement's last tie-breaker.
                for (k, job) in this.core.state.jobs.iter_mut().enumerate() {
                    job.alloc_seq = k as u64;
                }
                this.core.ltd = Some(ltd::LtdSim::new(n, n_rsc, n_jobs as u64));
            }
            Generation::Debt62 => this.core.debt = Some(debt::DebtSim::new(n)),
        }
        Ok(this)
    }

    /// Ends this stretch of the run: the loop's state without its world
    /// and observer, to [`ClientLoop::resume`] with them (a recording read
    /// window by window feeds both between two stretches).
    pub fn suspend(self) -> LoopCore {
        self.core
    }

    /// Continues a suspended loop in `world`, reporting to `observer`.
    pub fn resume(
        core: LoopCore,
        world: &'a mut dyn World,
        observer: &'a mut dyn Observer,
    ) -> Self {
        ClientLoop {
            core,
            world,
            observer,
        }
    }

    /// Runs a suspended loop (`suspended`, left `None` if it is not) in
    /// `world` from `now` through the steps before `before` and not after
    /// `end` ([`run_steps_until`](Self::run_steps_until)), and suspends it
    /// again with `now` its next step; a loop that fails stays dropped.
    pub fn run_suspended(
        suspended: &mut Option<LoopCore>,
        world: &'a mut dyn World,
        observer: &'a mut dyn Observer,
        now: &mut f64,
        before: f64,
        end: f64,
    ) -> Result<(), LoopError> {
        let Some(core) = suspended.take() else {
            return Ok(());
        };
        let mut client = ClientLoop::resume(core, world, observer);
        *now = client.run_steps_until(*now, before, end)?;
        *suspended = Some(client.suspend());
        Ok(())
    }

    /// The time step.
    pub fn delta(&self) -> f64 {
        self.core.delta
    }

    /// Runs every step from the start to the end of the run.
    pub fn run(&mut self) -> Result<(), LoopError> {
        self.run_steps(START_TIME, START_TIME + self.core.duration)
    }

    /// Runs the steps at `start`, `start + delta`, … up to `end` (a
    /// recording's first and last time steps; the 6.10 emulator's clock
    /// starts at its own epoch).
    pub fn run_steps(&mut self, start: f64, end: f64) -> Result<(), LoopError> {
        self.run_steps_with(start, end, |_, _| {})
    }

    /// The steps at `start`, `start + delta`, … that come before `before`
    /// and not after `end`; gives the time of the next step, where a later
    /// call goes on (the steps of several calls are those of one
    /// [`run_steps`](Self::run_steps) from the first `start`).
    pub fn run_steps_until(&mut self, start: f64, before: f64, end: f64) -> Result<f64, LoopError> {
        let mut now = start;
        if self.core.steps_done == 0 {
            self.core.last_progress = start;
        }
        while now < before && now <= end {
            let availability = self.begin_step(now);
            self.finish_step(now, availability)?;
            now += self.core.delta;
        }
        Ok(now)
    }

    /// [`run_steps`](Self::run_steps), calling `between(loop, now)` in each
    /// step after task progress and before the step's decisions (where
    /// `simulate` takes its window snapshots).
    pub fn run_steps_with(
        &mut self,
        start: f64,
        end: f64,
        mut between: impl FnMut(&Self, f64),
    ) -> Result<(), LoopError> {
        let mut now = start;
        if self.core.steps_done == 0 {
            self.core.last_progress = start;
        }
        loop {
            let availability = self.begin_step(now);
            between(self, now);
            self.finish_step(now, availability)?;
            now += self.core.delta;
            if now > end {
                return Ok(());
            }
        }
    }

    /// The first part of a step at `now` (client/sim.cpp `simulate()`): the
    /// world's changes and availability, task progress over the step just
    /// ended and the exits it caused.
    fn begin_step(&mut self, now: f64) -> Availability {
        self.observer.step_begins(now);
        for change in self.world.changes_due(now) {
            self.apply(change);
        }
        let availability = self.world.availability(now, self.core.delta);
        self.observer.step_availability(now, availability);
        self.core.gpu_active = availability.gpu_active;
        if self.core.profile.sim_6_10 {
            if let Some(sample) = self.world.host_sample() {
                self.ltd_event(now, LtdEvent::HostSampled(sample));
            }
            self.ltd_event(now, LtdEvent::PollBegins);
            if !availability.on {
                // The harness's task poll only notes the time while the
                // host is off, and finished tasks wait; executing tasks
                // still accrue elapsed time at the time step.
                self.elapse_off(now);
                self.core.begin_action = false;
                return availability;
            }
        }
        let progressed = self.progress(now);
        let finished = self.handle_finished(now);
        self.core.begin_action = progressed | finished;
        availability
    }

    /// The rest of a step: while the host is on, scheduling, the RPC poll,
    /// progress and exits until nothing happens.
    fn finish_step(&mut self, now: f64, availability: Availability) -> Result<(), LoopError> {
        if self.core.profile.sim_6_10 {
            return self.finish_step_6_10(now, availability);
        }
        if availability.on {
            for _ in 0..100 {
                let mut action = self.schedule(now)?;
                if availability.connected {
                    action |= self.rpc_poll(now)?;
                }
                action |= self.progress(now);
                action |= self.handle_finished(now);
                // client/sim.cpp sets gpu_suspend_reason here, after the
                // step's first pass: a GPU that comes or goes is seen by
                // the scheduler only from the next pass.
                self.core.state.gpu_suspended = !availability.gpu_active;
                if !action {
                    break;
                }
            }
        }
        for job in self.world.unsolicited_jobs(&self.core.state, now) {
            self.core.state.jobs.push(job);
            self.core.side.push(JobSide::default());
            let j = self.core.state.jobs.len() - 1;
            self.observer
                .event(&self.core.state, now, LoopEvent::Unsolicited(j));
            self.core.must_schedule = true;
            self.core.must_check_work_fetch = true;
        }
        if self.core.steps_done == 0 || self.core.profile.sorts_projects_in_place {
            self.sort_projects();
        }
        self.core.steps_done += 1;
        Ok(())
    }

    /// The rest of a step of the 6.10.60 emulator (its `simulate()`): passes
    /// of task progress and exits, scheduling, enforcement and the RPC poll
    /// until one does nothing, each pass marked for its log; then its time
    /// step.
    fn finish_step_6_10(&mut self, now: f64, availability: Availability) -> Result<(), LoopError> {
        let mut action = self.core.begin_action;
        for _ in 0..100 {
            if availability.on {
                action |= self.schedule(now)?;
                if availability.connected {
                    action |= self.rpc_poll(now)?;
                }
            }
            self.ltd_event(now, LtdEvent::PollEnds { action });
            if !action {
                break;
            }
            self.ltd_event(now, LtdEvent::PollBegins);
            action = self.progress(now);
            action |= self.handle_finished(now);
        }
        self.core.steps_done += 1;
        let next = now + self.core.delta;
        self.ltd_event(next, LtdEvent::StepTaken { next });
        Ok(())
    }

    /// The engine's parameters of this run.
    pub fn params(&self) -> &Params {
        &self.core.params
    }

    /// Task progress since the last call (`ACTIVE_TASK_SET::poll`).
    fn progress(&mut self, now: f64) -> bool {
        let mut diff = now - self.core.last_progress;
        if diff < 1.0 {
            return false;
        }
        self.core.last_progress = now;
        if diff > self.core.delta {
            diff = 0.0;
        }
        let model = if self.core.profile.sim_6_10 {
            host::WorkModel::CpuTime
        } else {
            host::WorkModel::Flops
        };
        let mut exits = host::progress(
            &mut self.core.state,
            &mut self.core.side,
            &mut self.core.accounts,
            &mut self.core.usage,
            diff,
            now,
            self.core.gpu_active,
            &self.core.params,
            model,
        );
        exits.sort_by_key(|&j| (self.task_seq(j), j));
        for &j in &exits {
            self.note(now, LoopNote::TaskExited(j));
            self.note(now, LoopNote::ScheduleRequested("job finished"));
            self.note(now, LoopNote::WorkFetchRequested("job finished"));
        }
        !exits.is_empty()
    }

    /// The 6.10 harness over a step the host was off: CPU time does not
    /// advance, but every executing task's elapsed time does (its
    /// `simulate()` adds the step to each at the time step, on or off).
    fn elapse_off(&mut self, now: f64) {
        let diff = now - self.core.last_progress;
        if diff < 1.0 {
            return;
        }
        self.core.last_progress = now;
        if diff > self.core.delta {
            return;
        }
        for task in self
            .core
            .state
            .jobs
            .iter_mut()
            .filter_map(|j| j.task.as_mut())
        {
            if task.task_state == TaskState::Executing {
                task.elapsed += diff;
            }
        }
    }

    fn note(&mut self, now: f64, note: LoopNote) {
        self.observer
            .event(&self.core.state, now, LoopEvent::Note(note));
    }

    /// Finished-task handling: REC (first exit credited twice), then the tasks go.
    fn handle_finished(&mut self, now: f64) -> bool {
        let exited: Vec<usize> = (0..self.core.state.jobs.len())
            .filter(|&j| {
                self.core.state.jobs[j]
                    .task
                    .as_ref()
                    .is_some_and(|t| t.task_state == TaskState::Exited)
            })
            .collect();
        // handle_finished_apps walks active tasks in their order (what the
        // log shows).
        let mut in_task_order = exited.clone();
        in_task_order.sort_by_key(|&j| (self.task_seq(j), j));
        // The client credits the first task to exit in active-task order
        // (tasks are appended when created), not in job order: at 18:05 in
        // seed_cpu_gpu_two_projects B_12 (task created 14:05) exits with
        // A_5 (job received earlier, task created 15:00) and B_12's
        // interval is the one counted twice.
        let Some(first) = exited
            .iter()
            .copied()
            .min_by_key(|&j| (self.task_seq(j), j))
        else {
            return false;
        };
        if self.core.ltd.is_some() {
            // 6.10's handle_finished_apps: each exited task in active-task
            // order is credited and updates its project's DCF.
            for &j in &in_task_order {
                self.note(now, LoopNote::TaskFinished(j));
                self.ltd_credit_exit(j, now);
                self.ltd_update_dcf(j, now);
                self.note(now, LoopNote::ScheduleRequested("handle_finished_apps"));
            }
        } else {
            self.note(now, LoopNote::TaskFinished(first));
            if self.core.debt.is_none() {
                let adjustment =
                    adjust_rec(&mut self.core.state, now, Some(first), &self.core.params);
                self.observer
                    .event(&self.core.state, now, LoopEvent::Rec(&adjustment));
            }
            self.note(now, LoopNote::ScheduleRequested("handle_finished_apps"));
            for &j in in_task_order.iter().filter(|&&j| j != first) {
                self.note(now, LoopNote::TaskFinished(j));
                self.note(now, LoopNote::ScheduleRequested("handle_finished_apps"));
            }
        }
        if self.core.profile.new_jobs_reuse_freed_uts || self.core.profile.sim_6_10 {
            for _ in &in_task_order {
                self.core.freed.free_task();
            }
        }
        for j in exited {
            let job = &mut self.core.state.jobs[j];
            job.task = None;
            job.state = JobState::Uploaded;
            job.ready_to_report = true;
        }
        self.core.must_schedule = true;
        self.core.must_check_work_fetch = true;
        true
    }

    /// The step's simulation if one was made at `now` and may be reused.
    fn reusable_sim(&self, now: f64) -> Option<RrSimOutcome> {
        // Before 7.16.1 every call simulated afresh (`rr_sim_once_per_moment`).
        if self.core.params.rr_sim_once_per_moment == 0.0 {
            return None;
        }
        self.core.sim.as_ref().filter(|s| s.now == now).cloned()
    }

    fn schedule(&mut self, now: f64) -> Result<bool, LoopError> {
        if self.core.ltd.is_some() {
            return self.ltd_schedule(now);
        }
        if self.core.debt.is_some() {
            return self.debt_schedule(now);
        }
        if self.core.state.jobs.is_empty() {
            return Ok(false);
        }
        if now - self.core.last_schedule >= 60.0 {
            self.note(now, LoopNote::ScheduleRequested("periodic CPU scheduling"));
        }
        if !self.core.must_schedule && now - self.core.last_schedule < 60.0 {
            return Ok(false);
        }
        self.core.must_schedule = false;
        self.core.last_schedule = now;
        let adjustment = adjust_rec(&mut self.core.state, now, None, &self.core.params);
        self.observer
            .event(&self.core.state, now, LoopEvent::Rec(&adjustment));
        let reuse = self.reusable_sim(now);
        let fresh = reuse.is_none();
        let hint = self.world.run_list_order(now).unwrap_or_default();
        let run = match make_run_list_with_ties(
            &mut self.core.state,
            now,
            reuse,
            &self.core.params,
            &hint,
        ) {
            Ok(run) => run,
            Err(error) => {
                self.observer.event(
                    &self.core.state,
                    now,
                    LoopEvent::EngineError {
                        what: "run_list",
                        error: &error,
                    },
                );
                return Err(engine(now)(error));
            }
        };
        if fresh {
            self.observer
                .event(&self.core.state, now, LoopEvent::RrSim(&run.sim));
        }
        self.observer.event(
            &self.core.state,
            now,
            LoopEvent::RunList { run: &run, fresh },
        );
        // The instant's simulation keeps promote_once_ran_edf's marks for
        // the passes that reuse it.
        // (Moved out: the rest of the pass reads the run list only.)
        let mut sim = run.sim;
        for &j in &run.promoted {
            if let Some(miss) = sim.misses_deadline.get_mut(j) {
                *miss = true;
            }
        }
        self.core.sim = Some(sim);
        let restore = self
            .world
            .tie_order(now)
            .map(|order| self.rank_ties(&order));
        let out = enforce_run_list(&mut self.core.state, &run.run_list, now, &self.core.params);
        for (j, alloc) in restore.into_iter().flatten() {
            if let Some(job) = self.core.state.jobs.get_mut(j) {
                job.alloc_seq = alloc;
            }
        }
        let out = out.map_err(engine(now))?;
        let (assigned, tasks) = self.task_layer(&out);
        self.observer.event(
            &self.core.state,
            now,
            LoopEvent::Enforced {
                outcome: &out,
                assigned: &assigned,
                tasks: &tasks,
            },
        );
        // Before 7.24.0 the request sat inside the cpu_sched_debug test.
        if out.cpus_idle
            && (self.core.params.idle_cpus_request_fetch != 0.0
                || self.core.state.config.cpu_sched_debug)
        {
            self.core.must_check_work_fetch = true;
        }
        Ok(true)
    }

    /// The task layer (client/app_control.cpp, emulated): GPU instances as
    /// assigned, new tasks numbered in the order the scan schedules them,
    /// then preempted tasks suspended or removed and scheduled ones started
    /// or resumed, in active-task order, preemptions first (§6.3 steps 11-12).
    fn task_layer(&mut self, out: &EnforceOutcome) -> (Vec<(JobIdx, Vec<usize>)>, Vec<TaskAction>) {
        let mut assigned = Vec::new();
        let mut preempted = std::collections::BTreeMap::new();
        let mut first_schedule = std::collections::BTreeSet::new();
        for action in &out.actions {
            match action {
                EnforceAction::AssignCoprocs(j, instances) => {
                    let task = self
                        .core
                        .state
                        .jobs
                        .get_mut(*j)
                        .and_then(|x| x.task.as_mut());
                    if let Some(task) = task {
                        // A task whose GPU job runs keeps (confirms) its
                        // instances silently; any other is assigned afresh
                        // and logged (coproc_sched.cpp assign_coprocs).
                        let confirmed = task.has_process() && task.coproc_indices == *instances;
                        task.coproc_indices = instances.clone();
                        if confirmed {
                            continue;
                        }
                    }
                    assigned.push((*j, instances.clone()));
                }
                EnforceAction::Schedule(j) => {
                    if self
                        .core
                        .state
                        .jobs
                        .get(*j)
                        .is_some_and(|job| job.task.as_ref().is_some_and(|t| t.seq == 0))
                    {
                        self.number_task(*j);
                        first_schedule.insert(*j);
                        if self.core.profile.new_jobs_reuse_freed_uts {
                            // get_task: the job's `ACTIVE_TASK` is made.
                            self.core.freed.new_task();
                        }
                    }
                }
                EnforceAction::Preempt { job, removed } => {
                    preempted.insert(*job, *removed);
                }
            }
        }
        let mut order: Vec<usize> = (0..self.core.state.jobs.len()).collect();
        order.sort_by_key(|&j| self.task_seq(j));
        let mut preempts = Vec::new();
        let mut starts = Vec::new();
        for j in order {
            let Some(task) = self
                .core
                .state
                .jobs
                .get_mut(j)
                .and_then(|x| x.task.as_mut())
            else {
                continue;
            };
            if let Some(&removed) = preempted.get(&j) {
                preempts.push(TaskAction::Preempt { job: j, removed });
                task.task_state = if removed {
                    // Out of memory: its GPU instances are released.
                    task.coproc_indices.clear();
                    TaskState::Uninitialized
                } else {
                    TaskState::Suspended
                };
            } else if task.scheduler_state == SchedulerState::Scheduled
                && task.task_state != TaskState::Executing
                && task.task_state != TaskState::Exited
            {
                // The emulator says "Starting" only for a task never
                // scheduled before (cpu_sched.cpp under SIM: first_time is
                // scheduler_state == CPU_SCHED_UNINITIALIZED), even if it
                // was preempted at the instant it started.
                let resumed = !first_schedule.contains(&j)
                    || task.task_state == TaskState::Suspended
                    || task.elapsed > 0.0;
                starts.push(if resumed {
                    TaskAction::Resume(j)
                } else {
                    TaskAction::Start(j)
                });
                task.task_state = TaskState::Executing;
                // enforce_run_list: a task started in deadline trouble
                // once ran EDF.
                if self
                    .core
                    .sim
                    .as_ref()
                    .and_then(|s| s.misses_deadline.get(j))
                    .copied()
                    .unwrap_or(false)
                {
                    task.once_ran_edf = true;
                }
            }
        }
        preempts.extend(starts);
        (assigned, preempts)
    }

    /// Gives the named jobs their creation numbers (`alloc_seq`, the
    /// enforcement's last tie-breaker) in the order given, permuting only
    /// their own numbers; returns the numbers to restore afterwards.
    fn rank_ties(&mut self, order: &[String]) -> Vec<(JobIdx, u64)> {
        let listed: Vec<JobIdx> = order
            .iter()
            .filter_map(|name| {
                self.core
                    .state
                    .jobs
                    .iter()
                    .position(|job| job.name == name.as_str())
            })
            .collect();
        let saved: Vec<(JobIdx, u64)> = listed
            .iter()
            .map(|&j| (j, self.core.state.jobs[j].alloc_seq))
            .collect();
        let mut numbers: Vec<u64> = saved.iter().map(|(_, a)| *a).collect();
        numbers.sort_unstable();
        for (&j, n) in listed.iter().zip(numbers) {
            self.core.state.jobs[j].alloc_seq = n;
        }
        saved
    }

    /// Gives job `j`'s new task the next number in active-task order
    /// (`Task::seq`, from 1).
    pub(crate) fn number_task(&mut self, j: usize) {
        if let Some(task) = self
            .core
            .state
            .jobs
            .get_mut(j)
            .and_then(|job| job.task.as_mut())
        {
            task.seq = self.core.next_task_seq;
            self.core.next_task_seq += 1;
        }
    }

    /// Job `j`'s place in active-task order (`u64::MAX` without a task).
    fn task_seq(&self, j: usize) -> u64 {
        self.core
            .state
            .jobs
            .get(j)
            .and_then(|job| job.task.as_ref())
            .map_or(u64::MAX, |t| t.seq)
    }

    /// The legacy generations' report rule: the first finished result (result
    /// order) near its deadline or a day after completion (policy-legacy
    /// B.15.1); its project gets an RPC.
    pub(crate) fn report_due_project(&self, now: f64) -> Option<ProjectIdx> {
        let cushion = 86400.0_f64.max(self.core.state.prefs.work_buf_min_days * 86400.0);
        self.core
            .state
            .jobs
            .iter()
            .enumerate()
            .find_map(|(j, job)| {
                let p = self.core.state.projects.get(job.project)?;
                let completed = self.core.side.get(j).map_or(0.0, |s| s.completed_time);
                (job.ready_to_report
                    && p.min_rpc_time <= now
                    && (now > job.report_deadline - cushion || now > completed + 86400.0))
                    .then_some(job.project)
            })
    }

    /// The instant's simulation for the RPC poll: the one a scheduling pass
    /// made at `now`, else a fresh one (§8). 7.0–7.2 simulate afresh in
    /// every work-fetch setup (work_fetch.cpp WORK_FETCH::setup).
    fn poll_simulation(&mut self, now: f64) -> Result<Option<RrSimOutcome>, LoopError> {
        if let Some(sim) = self.reusable_sim(now) {
            return Ok(Some(sim));
        }
        let sim = match rr_simulate(&mut self.core.state, now, &self.core.params) {
            Ok(sim) => sim,
            Err(error) => {
                self.observer.event(
                    &self.core.state,
                    now,
                    LoopEvent::EngineError {
                        what: "rr_sim",
                        error: &error,
                    },
                );
                return Err(engine(now)(error));
            }
        };
        self.observer
            .event(&self.core.state, now, LoopEvent::RrSim(&sim));
        self.core.sim = Some(sim.clone());
        Ok(Some(sim))
    }

    fn rpc_poll(&mut self, now: f64) -> Result<bool, LoopError> {
        if self.core.ltd.is_some() {
            return self.ltd_rpc_poll(now);
        }
        if self.core.debt.is_some() {
            return self.debt_rpc_poll(now);
        }
        let action = self.rec_rpc_poll(now);
        // 7.0–7.2: the work-fetch set-up left the project list in priority
        // order (applied once the pass's indices are no longer in use).
        if let Some(order) = self.core.sorted_by_setup.take() {
            self.reorder_projects(order);
        }
        action
    }

    /// The RPC poll of the REC generations.
    fn rec_rpc_poll(&mut self, now: f64) -> Result<bool, LoopError> {
        if now - self.core.last_poll < 5.0 {
            return Ok(false);
        }
        self.core.last_poll = now;
        // §7.1 step 1: a pending master-URL fetch goes first. The project's
        // web server stays up when its scheduler is down, so the fetch
        // succeeds and scheduler RPCs resume.
        if let Some(project) =
            self.core.state.projects.iter_mut().find(|p| {
                p.master_url_fetch_pending && p.min_rpc_time <= now && !p.suspended_via_gui
            })
        {
            project.master_url_fetch_pending = false;
            return Ok(true);
        }
        let completed: Vec<Option<f64>> = self
            .core
            .side
            .iter()
            .map(|s| (s.completed_time > 0.0).then_some(s.completed_time))
            .collect();
        let due =
            project_with_overdue_results(&self.core.state, &completed, now, &self.core.params);
        if let Some(p) = due {
            self.note(
                now,
                LoopNote::RpcBegins {
                    project: p,
                    report: true,
                },
            );
            let sim = self.poll_simulation(now)?;
            self.core.state.projects[p].sched_rpc_pending = Some(RpcReason::ResultsDue);
            let out = piggyback_work_request(&mut self.core.state, p, now, sim, &self.core.params)
                .map_err(engine(now))?;
            if let Some(st) = &out.state {
                self.core.sim = Some(st.sim.clone());
            }
            let mut shown = out.clone();
            // The dump is printed by WORK_FETCH::setup, before
            // piggyback_work_request marks the project "don't need".
            if let Some(setup) = shown.state.as_mut() {
                if let Some(project) = setup.projects.get_mut(p) {
                    if matches!(project.reason, ProjectReason::DontNeed(_)) {
                        project.reason = ProjectReason::None;
                    }
                }
            }
            self.observer.event(
                &self.core.state,
                now,
                LoopEvent::WorkFetch {
                    outcome: &shown,
                    report: Some(p),
                },
            );
            self.keep_setup_order(&out);
            return self.do_rpc(p, &out.request, now);
        }
        if !self.core.must_check_work_fetch && now - self.core.last_work_fetch < 60.0 {
            return Ok(false);
        }
        self.core.must_check_work_fetch = false;
        self.core.last_work_fetch = now;
        let sim = self.poll_simulation(now)?;
        let out = choose_project(&mut self.core.state, now, sim, &self.core.params)
            .map_err(engine(now))?;
        if let Some(st) = &out.state {
            self.core.sim = Some(st.sim.clone());
        }
        if let Some(p) = out.chosen {
            self.core.state.projects[p].sched_rpc_pending = Some(RpcReason::NeedWork);
        }
        self.observer.event(
            &self.core.state,
            now,
            LoopEvent::WorkFetch {
                outcome: &out,
                report: None,
            },
        );
        self.keep_setup_order(&out);
        match out.chosen {
            Some(p) => {
                self.note(
                    now,
                    LoopNote::RpcBegins {
                        project: p,
                        report: false,
                    },
                );
                self.do_rpc(p, &out.request, now)
            }
            None => Ok(false),
        }
    }

    /// One RPC through the world: on a reply, the project's finished jobs
    /// are reported and the jobs sent are added. `None` when the project
    /// was down (the RPC was skipped and the project backed off); else the
    /// indices of the new jobs.
    pub(crate) fn do_rpc_jobs(
        &mut self,
        p: ProjectIdx,
        request: &[RscRequest],
        now: f64,
    ) -> Result<Option<std::ops::Range<usize>>, LoopError> {
        let outcome = self.world.rpc(&self.core.state, p, request, now);
        let jobs = match outcome {
            RpcOutcome::Down(drawn) => {
                self.core.rpcs_skipped += 1;
                self.project_down(p, drawn, now)?;
                return Ok(None);
            }
            RpcOutcome::Reply(jobs, refused) => (jobs, refused),
        };
        let (jobs, refused) = jobs;
        let mut reported = Vec::new();
        let mut in_progress = Vec::new();
        // The 6.10 harness reports every project's finished results.
        let all = self.core.profile.sim_6_10;
        for job in &self.core.state.jobs {
            if job.ready_to_report && (all || job.project == p) {
                reported.push(job.name.to_string());
            } else if job.project == p {
                in_progress.push(job.name.to_string());
            }
        }
        self.observer.event(
            &self.core.state,
            now,
            LoopEvent::Rpc {
                project: p,
                request,
                reported: &reported,
                in_progress: &in_progress,
                jobs: &jobs,
                refused: &refused,
            },
        );
        if self.core.profile.new_jobs_reuse_freed_uts {
            for job in &self.core.state.jobs {
                if job.ready_to_report && job.project == p {
                    self.core.freed.free_result(job.unfinished_time_slice);
                }
            }
        }
        self.report_jobs(p, now);
        let start = self.core.state.jobs.len();
        let n = jobs.len();
        let mut refusals = refused.iter().map(|r| r.after_jobs).peekable();
        for (k, mut job) in jobs.into_iter().enumerate() {
            if self.core.profile.new_jobs_reuse_freed_uts {
                while refusals.next_if(|&after| after <= k).is_some() {
                    self.core.freed.refused_job();
                }
            }
            if !self.core.profile.new_jobs_inherit_missing_coproc {
                job.usage.missing_coproc = false;
            }
            if self.core.profile.new_jobs_reuse_freed_uts {
                let modelled = self.core.freed.new_job();
                job.unfinished_time_slice = self.world.new_job_uts(&job.name).unwrap_or(modelled);
            }
            let side = JobSide {
                final_cpu_time: self.world.final_cpu_time(&job),
                ..JobSide::default()
            };
            self.core.state.jobs.push(job);
            self.core.side.push(side);
        }
        if self.core.profile.new_jobs_reuse_freed_uts {
            for _ in refusals {
                self.core.freed.refused_job();
            }
        }
        self.core.accounts.njobs += n as u64;
        if n > 0 {
            self.core.must_schedule = true;
            self.core.must_check_work_fetch = true;
        }
        self.core.accounts.nrpcs += 1;
        Ok(Some(start..self.core.state.jobs.len()))
    }

    /// Reports project `p`'s finished jobs: they leave the host.
    fn report_jobs(&mut self, p: ProjectIdx, now: f64) {
        // The 6.10 harness reports every project's finished results.
        let all = self.core.profile.sim_6_10;
        let keep: Vec<bool> = self
            .core
            .state
            .jobs
            .iter()
            .map(|job| !((all || job.project == p) && job.ready_to_report))
            .collect();
        if keep.iter().all(|k| *k) {
            return;
        }
        for (j, job) in self.core.state.jobs.iter().enumerate() {
            if keep[j] {
                continue;
            }
            let peak = self.core.side.get(j).map_or(0.0, |s| s.peak_flops);
            let q = job.project;
            if now > job.report_deadline {
                self.core.accounts.flops_wasted += peak;
                self.core.accounts.missed[q] += 1;
            } else {
                self.core.accounts.met[q] += 1;
            }
        }
        let mut it = keep.iter();
        self.core.state.jobs.retain(|_| *it.next().unwrap_or(&true));
        let mut it = keep.iter();
        self.core.side.retain(|_| *it.next().unwrap_or(&true));
        // Simulation results are indexed by job: the instant's simulation
        // refers to the old indices.
        if let Some(sim) = self.core.sim.as_mut() {
            let mut it = keep.iter();
            sim.misses_deadline.retain(|_| *it.next().unwrap_or(&true));
        }
    }

    /// `project_rpc_backoff` after a skipped RPC, with the world's draw. A
    /// recorded deferral inside the range the loop's own state allows is
    /// taken as drawn; one outside is clamped to the range (the observer
    /// then sees the loop's value differ from the recording's).
    fn project_down(&mut self, p: ProjectIdx, drawn: Drawn, now: f64) -> Result<(), LoopError> {
        let params = &self.core.params;
        let project = &mut self.core.state.projects[p];
        let range = {
            let (mut lo, mut hi) = (project.clone(), project.clone());
            match (
                project_rpc_backoff(&mut lo, now, true, 0.0, params),
                project_rpc_backoff(&mut hi, now, true, 1.0, params),
            ) {
                (
                    Ok(RpcBackoff::Delay { secs: min, .. }),
                    Ok(RpcBackoff::Delay { secs: max, .. }),
                ) => Some((min, max)),
                _ => None,
            }
        };
        let mut recorded_inside = None;
        let u = match (drawn, range) {
            (Drawn::Factor(u), _) => u,
            (Drawn::Secs(secs), Some((min, max))) => {
                // The log prints whole seconds.
                if secs >= min - 0.5 && secs <= max + 0.5 {
                    recorded_inside = Some(secs);
                }
                if max > min {
                    ((secs - min) / (max - min)).clamp(0.0, 1.0)
                } else {
                    0.0
                }
            }
            _ => 0.5,
        };
        let outcome = project_rpc_backoff(project, now, true, u, params).map_err(engine(now))?;
        if let (Some(secs), RpcBackoff::Delay { .. }) = (recorded_inside, &outcome) {
            project.min_rpc_time = now + secs;
        }
        // client/sim.cpp simulate_rpc: a skipped RPC clears a pending
        // master-URL fetch.
        project.master_url_fetch_pending = false;
        let secs = project.min_rpc_time - now;
        let n = project.nrpc_failures;
        self.observer.event(
            &self.core.state,
            now,
            LoopEvent::ProjectBackoff {
                project: p,
                secs,
                range,
                n,
            },
        );
        Ok(())
    }

    fn do_rpc(
        &mut self,
        p: ProjectIdx,
        request: &[RscRequest],
        now: f64,
    ) -> Result<bool, LoopError> {
        let Some(new_jobs) = self.do_rpc_jobs(p, request, now)? else {
            return Ok(false);
        };
        let sent_something = !new_jobs.is_empty();
        let new_job_rsc = new_jobs
            .map(|j| self.core.state.jobs[j].usage.rsc)
            .collect();
        let reply = SchedReply {
            new_job_rsc,
            request_delay: 0.0,
            too_recent: false,
            // Both worlds are the emulator's: simulate_rpc, not the
            // client's reply handler.
            client_handler: false,
        };
        let project_name = self.core.state.projects[p].name.to_string();
        let rsc_names: Vec<String> = (0..self.core.state.n_rsc())
            .map(|r| self.core.state.rsc_type(r).long_name().to_string())
            .collect();
        let params = &self.core.params;
        let world = &mut *self.world;
        let (lo, hi) = params.rsc_backoff_factor_range();
        let mut draw = |r: RscIdx, prior_interval: f64| -> f64 {
            let name = rsc_names.get(r).map_or("", String::as_str);
            match world.draw(now, &project_name, DrawKind::ResourceBackoff(r), name) {
                Drawn::Factor(u) => u,
                Drawn::Secs(secs) => {
                    let interval = if prior_interval > 0.0 {
                        (prior_interval * 2.0).min(params.wf_max_backoff_interval)
                    } else {
                        params.wf_min_backoff_interval
                    };
                    let u = (secs / interval - lo) / (hi - lo);
                    u.clamp(0.0, 1.0)
                }
                Drawn::Missing => 0.5,
            }
        };
        let outcome = handle_scheduler_reply(
            &mut self.core.state,
            p,
            request,
            &reply,
            now,
            &mut draw,
            params,
        )
        .map_err(engine(now))?;
        for (r, backoff) in &outcome.backoffs {
            self.observer.event(
                &self.core.state,
                now,
                LoopEvent::ResourceBackoff {
                    project: p,
                    rsc: *r,
                    secs: backoff.secs,
                    interval: backoff.interval,
                },
            );
        }
        if sent_something {
            self.note(now, LoopNote::ScheduleRequested("simulate_rpc"));
            self.note(now, LoopNote::WorkFetchRequested("simulate_rpc"));
        }
        if self.core.profile.rpc_deferral > 0.0 {
            // The emulator harness up to 7.4.27 defers a project after
            // every completed RPC (policy-legacy C.1).
            let project = &mut self.core.state.projects[p];
            project.min_rpc_time = project
                .min_rpc_time
                .max(now + self.core.profile.rpc_deferral);
        }
        Ok(true)
    }

    /// Applies a change of the host's configuration.
    fn apply(&mut self, change: HostChange) {
        match change {
            HostChange::Attach(project) => {
                let n_rsc = self.core.state.n_rsc();
                self.core.state.projects.push(*project);
                self.core.accounts.flops_used.push(0.0);
                self.core.accounts.idle_time.push(0.0);
                self.core.accounts.idle_time_sumsq.push(0.0);
                self.core.accounts.met.push(0);
                self.core.accounts.missed.push(0);
                self.core.usage.secs.push(vec![0.0; n_rsc]);
                self.core.usage.gpu_job_cpu_secs.push(0.0);
                let n = self.core.state.projects.len();
                if let Some(ltd) = self.core.ltd.as_mut() {
                    ltd.attach(n, n_rsc);
                }
                if let Some(debt) = self.core.debt.as_mut() {
                    debt.attach(n);
                }
                self.sort_projects();
            }
            HostChange::NoNewWork(project) => {
                if let Some(p) = self
                    .core
                    .state
                    .projects
                    .iter_mut()
                    .find(|x| x.name == project)
                {
                    p.dont_request_more_work = true;
                }
            }
            HostChange::AddApp { project, version } => {
                let Some(p) = self
                    .core
                    .state
                    .projects
                    .iter()
                    .position(|x| x.name == project)
                else {
                    return;
                };
                let rsc = version.usage.rsc;
                let state_project = &mut self.core.state.projects[p];
                state_project.apps.push(App::new(&version.app));
                state_project.app_versions.push(version);
                if let Some(entry) = state_project.rsc.get_mut(rsc) {
                    entry.no_rsc_apps = false;
                }
                self.core.sim = None;
            }
        }
        self.core.must_schedule = true;
        self.core.must_check_work_fetch = true;
    }

    /// 7.0–7.2: the order a work-fetch set-up sorted the projects in,
    /// for [`Self::reorder_projects`].
    fn keep_setup_order(&mut self, out: &WorkFetchOutcome) {
        if !self.core.profile.sorts_projects_in_place {
            return;
        }
        if let Some(setup) = &out.state {
            self.core.sorted_by_setup = Some(setup.projects_sorted.clone());
        }
    }

    /// Keeps projects in alphabetical order (the emulator after its first
    /// step; the 6.10 harness keeps file order).
    fn sort_projects(&mut self) {
        if self.core.profile.sim_6_10 {
            return;
        }
        let n = self.core.state.projects.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            self.core.state.projects[a]
                .name
                .cmp(&self.core.state.projects[b].name)
        });
        self.reorder_projects(order);
    }

    /// Puts the projects in `order` (new index `i` holds old `order[i]`),
    /// with everything indexed by project.
    fn reorder_projects(&mut self, order: Vec<usize>) {
        let n = self.core.state.projects.len();
        if order.len() != n || order.iter().enumerate().all(|(i, &o)| i == o) {
            return;
        }
        let mut new_index = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        fn permute<T: Clone>(v: &mut Vec<T>, order: &[usize]) {
            *v = order.iter().map(|&o| v[o].clone()).collect();
        }
        permute(&mut self.core.state.projects, &order);
        permute(&mut self.core.accounts.flops_used, &order);
        permute(&mut self.core.accounts.idle_time, &order);
        permute(&mut self.core.accounts.idle_time_sumsq, &order);
        permute(&mut self.core.accounts.met, &order);
        permute(&mut self.core.accounts.missed, &order);
        if let Some(ltd) = self.core.ltd.as_mut() {
            ltd.permute(&order);
        }
        if let Some(debt) = self.core.debt.as_mut() {
            debt.permute(&order);
        }
        permute(&mut self.core.usage.secs, &order);
        permute(&mut self.core.usage.gpu_job_cpu_secs, &order);
        for job in &mut self.core.state.jobs {
            job.project = new_index[job.project];
        }
        for ex in &mut self.core.state.config.exclude_gpus {
            if let Some(&index) = new_index.get(ex.project) {
                ex.project = index;
            }
        }
        self.world.projects_reordered(&order);
        self.core.sim = None;
    }
}

/// Job indices of a state, for observers that name jobs.
pub fn job_name(state: &HostState, j: JobIdx) -> String {
    state
        .jobs
        .get(j)
        .map(|job| job.name.to_string())
        .unwrap_or_default()
}

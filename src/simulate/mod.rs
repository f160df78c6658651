//! Closed-loop simulation: the policy engine's decisions drive a simulated
//! host and simulated project servers, like the BOINC client emulator
//! (client/sim.cpp), and the emulator's figures of merit come out.
//!
//! ```text
//!  scenario (inputs/ folder | seed notation) ──▶ World ──simulate(options)──▶ SimReport
//! ```
//!
//! Each step of `delta` seconds at time `now` (spec policy-current §8):
//! 1. host availability is sampled (`on`, `connected`, `gpu_active`);
//! 2. tasks progress over the step just ended; finished jobs exit;
//! 3. exits are handled (REC update with the first exit credited twice);
//! 4. while the host is on, repeatedly until nothing happens: job
//!    scheduling (`adjust_rec`, `make_run_list`, `enforce_run_list`; only
//!    while jobs exist, on request or every 60 s), the RPC poll (at most once
//!    per 5 s: an overdue-report RPC with a piggybacked request, else at most
//!    once per 60 s or on request the work-fetch choice and its RPC; only
//!    while connected), progress and exits;
//! 5. the clock advances by `delta`.
//!
//! After the first step projects are kept in alphabetical order, as in the
//! emulator. Policy parameters: `rec_adjust_period = delta` and the
//! emulator's runtime model are set unless `--set` overrides them.
//!
//! All randomness (job-size estimates, app choice, availability periods,
//! backoff factors) comes from one seeded [`rng::Rng`]: a run is a pure
//! function of (scenario, options). The generator is the emulator's
//! (glibc `rand()`) and the draws are made in the emulator's order, so with
//! seed 1 a run on an emulator scenario is that emulator's run
//! (docs/simulate.md).
//!
//! Not modelled: md5 ordering of jobs received together,
//! the double counting of elapsed time (irrelevant with `dont_use_dcf`),
//! `--server_uses_workload`, `--cpu_sched_rr_only`. The `ltd-6.6` and
//! `debt-6.2` generations drive the same host through [`ltd`] and [`debt`].

mod debt;
pub mod host;
mod ltd;
pub mod merit;
pub mod rng;
pub mod scenario;
pub mod sequences;
pub mod server;
pub mod transcript;

use crate::policy::backoff::project_rpc_backoff;
use crate::policy::cpu_sched::{enforce_run_list, make_run_list, EnforceAction};
use crate::policy::generation::Generation;
use crate::policy::rec::adjust_rec;
use crate::policy::reply::{handle_scheduler_reply, SchedReply};
use crate::policy::rr_sim::RrSimOutcome;
use crate::policy::state::{HostState, JobState, ProjectIdx, RpcReason, SchedulerState, TaskState};
use crate::policy::work_fetch::{choose_project, piggyback_work_request, RscRequest};
use crate::policy::{Params, PolicyError, RuntimeModel};
use host::{JobSide, Usage};
use merit::{Accounts, FiguresOfMerit};
use rng::Rng;
use scenario::World;
use serde::Serialize;
use std::collections::BTreeMap;

/// The emulator's start time (`START_TIME`).
pub const START_TIME: f64 = 3600.0;

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
        }
    }
}

impl SimOptions {
    /// The engine parameters used for this run.
    pub fn effective_params(&self) -> Params {
        self.params
            .clone()
            .unwrap_or_else(|| emulator_params(self.delta))
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
    let mut rng = Rng::new(options.seed);
    let world = if scenario::is_notation(scenario) {
        scenario::from_notation(scenario)?
    } else {
        scenario::from_folder(std::path::Path::new(scenario), &mut rng)?
    };
    simulate(world, options, &mut rng)
}

struct Sim<'a> {
    state: HostState,
    servers: Vec<server::ServerProject>,
    side: Vec<JobSide>,
    accounts: Accounts,
    usage: Usage,
    params: Params,
    options: &'a SimOptions,
    rng: &'a mut Rng,
    sim: Option<RrSimOutcome>,
    must_schedule: bool,
    must_check_work_fetch: bool,
    last_schedule: f64,
    last_poll: f64,
    last_work_fetch: f64,
    last_progress: f64,
    rpcs_skipped: u64,
    /// The next task's number in active-task order ([`JobSide::task_seq`]).
    next_task_seq: u64,
    /// RPCs kept for the transcripts ([`SimOptions::keep_transcripts`]).
    rpc_records: Vec<RpcRecord>,
    /// The ltd-6.6 policy's state when it drives the host.
    ltd: Option<ltd::LtdSim>,
    /// The debt-6.2 policy's state when it drives the host.
    debt: Option<debt::DebtSim>,
}

fn engine(now: f64) -> impl Fn(PolicyError) -> SimError {
    move |source| SimError::Engine { now, source }
}

impl Sim<'_> {
    fn progress(&mut self, now: f64, gpu_active: bool) -> bool {
        let mut diff = now - self.last_progress;
        if diff < 1.0 {
            return false;
        }
        self.last_progress = now;
        if diff > self.options.delta {
            diff = 0.0;
        }
        let exits = host::progress(
            &mut self.state,
            &mut self.side,
            &mut self.accounts,
            &mut self.usage,
            diff,
            now,
            gpu_active,
            self.params.gpu_efficiency,
        );
        !exits.is_empty()
    }

    /// Finished-task handling: REC (first exit credited twice), then the tasks go.
    fn handle_finished(&mut self, now: f64) -> bool {
        let exited: Vec<usize> = (0..self.state.jobs.len())
            .filter(|&j| {
                self.state.jobs[j]
                    .task
                    .as_ref()
                    .is_some_and(|t| t.task_state == TaskState::Exited)
            })
            .collect();
        // The client credits the first task to exit in active-task order
        // (tasks are appended when created and stay until their job is
        // done), not in job order: at 18:05 in seed_cpu_gpu_two_projects
        // B_12 (task created 14:05) exits with A_5 (job received earlier,
        // task created 15:00) and B_12's interval is the one counted twice.
        let Some(first) = exited
            .iter()
            .copied()
            .min_by_key(|&j| (self.side.get(j).map_or(0, |s| s.task_seq), j))
        else {
            return false;
        };
        if self.ltd.is_some() {
            for &j in &exited {
                self.ltd_credit_exit(j, now);
            }
        } else if self.debt.is_none() {
            adjust_rec(&mut self.state, now, Some(first), &self.params);
        }
        for j in exited {
            let job = &mut self.state.jobs[j];
            job.task = None;
            job.state = JobState::Uploaded;
            job.ready_to_report = true;
        }
        self.must_schedule = true;
        self.must_check_work_fetch = true;
        true
    }

    fn schedule(&mut self, now: f64) -> Result<bool, SimError> {
        if self.ltd.is_some() {
            return self.ltd_schedule(now);
        }
        if self.debt.is_some() {
            return self.debt_schedule(now);
        }
        if self.state.jobs.is_empty() {
            return Ok(false);
        }
        if !self.must_schedule && now - self.last_schedule < 60.0 {
            return Ok(false);
        }
        self.must_schedule = false;
        self.last_schedule = now;
        adjust_rec(&mut self.state, now, None, &self.params);
        let sim = self.sim.clone().filter(|s| s.now == now);
        let run = make_run_list(&mut self.state, now, sim, &self.params).map_err(engine(now))?;
        self.sim = Some(run.sim.clone());
        let out = enforce_run_list(&mut self.state, &run.run_list, now, &self.params)
            .map_err(engine(now))?;
        for action in &out.actions {
            if let EnforceAction::Schedule(j) = *action {
                if self.side.get(j).is_some_and(|s| s.task_seq == 0) {
                    self.number_task(j);
                }
            }
            if let EnforceAction::Preempt { job, removed } = action {
                if let Some(task) = self.state.jobs[*job].task.as_mut() {
                    task.task_state = if *removed {
                        TaskState::Uninitialized
                    } else {
                        TaskState::Suspended
                    };
                }
            }
        }
        for job in &mut self.state.jobs {
            if let Some(task) = job.task.as_mut() {
                if task.scheduler_state == SchedulerState::Scheduled
                    && task.task_state != TaskState::Executing
                    && task.task_state != TaskState::Exited
                {
                    task.task_state = TaskState::Executing;
                }
            }
        }
        if out.cpus_idle {
            self.must_check_work_fetch = true;
        }
        Ok(true)
    }

    /// Gives job `j`'s new task the next number in active-task order.
    fn number_task(&mut self, j: usize) {
        if let Some(side) = self.side.get_mut(j) {
            side.task_seq = self.next_task_seq;
            self.next_task_seq += 1;
        }
    }

    /// The legacy generations' report rule: the first finished result (result
    /// order) near its deadline or a day after completion (policy-legacy
    /// B.15.1); its project gets an RPC.
    fn report_due_project(&self, now: f64) -> Option<ProjectIdx> {
        let cushion = 86400.0_f64.max(self.state.prefs.work_buf_min_days * 86400.0);
        self.state.jobs.iter().enumerate().find_map(|(j, job)| {
            let p = self.state.projects.get(job.project)?;
            let completed = self.side.get(j).map_or(0.0, |s| s.completed_time);
            (job.ready_to_report
                && p.min_rpc_time <= now
                && (now > job.report_deadline - cushion || now > completed + 86400.0))
                .then_some(job.project)
        })
    }

    fn overdue_project(&self, now: f64) -> Option<ProjectIdx> {
        let cushion = 86400.0_f64.max(self.state.work_buf_min(&self.params));
        let mut n_ready = vec![0u32; self.state.projects.len()];
        for (j, job) in self.state.jobs.iter().enumerate() {
            if !job.ready_to_report {
                continue;
            }
            let p = &self.state.projects[job.project];
            if p.min_rpc_time > now || p.suspended_via_gui {
                continue;
            }
            let completed = self.side.get(j).map_or(0.0, |s| s.completed_time);
            n_ready[job.project] += 1;
            if p.dont_request_more_work
                || now > job.report_deadline - cushion
                || now > completed + 3600.0
                || n_ready[job.project] >= 64
            {
                return Some(job.project);
            }
        }
        None
    }

    fn rpc_poll(&mut self, now: f64) -> Result<bool, SimError> {
        if self.ltd.is_some() {
            return self.ltd_rpc_poll(now);
        }
        if self.debt.is_some() {
            return self.debt_rpc_poll(now);
        }
        if now - self.last_poll < 5.0 {
            return Ok(false);
        }
        self.last_poll = now;
        // §7.1 step 1: a pending master-URL fetch goes first. The simulated
        // project's web server stays up when its scheduler is down, so the
        // fetch succeeds and scheduler RPCs resume.
        if let Some(project) =
            self.state.projects.iter_mut().find(|p| {
                p.master_url_fetch_pending && p.min_rpc_time <= now && !p.suspended_via_gui
            })
        {
            project.master_url_fetch_pending = false;
            return Ok(true);
        }
        if let Some(p) = self.overdue_project(now) {
            self.state.projects[p].sched_rpc_pending = Some(RpcReason::ResultsDue);
            let sim = self.sim.clone().filter(|s| s.now == now);
            let out = piggyback_work_request(&mut self.state, p, now, sim, &self.params)
                .map_err(engine(now))?;
            if let Some(st) = &out.state {
                self.sim = Some(st.sim.clone());
            }
            return self.do_rpc(p, &out.request, now);
        }
        if !self.must_check_work_fetch && now - self.last_work_fetch < 60.0 {
            return Ok(false);
        }
        self.must_check_work_fetch = false;
        self.last_work_fetch = now;
        let sim = self.sim.clone().filter(|s| s.now == now);
        let out = choose_project(&mut self.state, now, sim, &self.params).map_err(engine(now))?;
        if let Some(st) = &out.state {
            self.sim = Some(st.sim.clone());
        }
        match out.chosen {
            Some(p) => self.do_rpc(p, &out.request, now),
            None => Ok(false),
        }
    }

    /// One RPC to the simulated server: finished jobs of the project are
    /// reported and the jobs sent are added. `None` when the project was
    /// down (the RPC was skipped and the project backed off); else the
    /// indices of the new jobs.
    fn do_rpc_jobs(
        &mut self,
        p: ProjectIdx,
        request: &[RscRequest],
        now: f64,
    ) -> Result<Option<std::ops::Range<usize>>, SimError> {
        let result = self.servers[p].rpc(
            &self.state,
            p,
            request,
            now,
            self.options.existing_jobs_only,
            self.rng,
        );
        if result.down {
            self.rpcs_skipped += 1;
            let u = self.rng.uniform();
            project_rpc_backoff(&mut self.state.projects[p], now, true, u, &self.params)
                .map_err(engine(now))?;
            return Ok(None);
        }
        let mut record = self.options.keep_transcripts.then(|| {
            let total_share: f64 = self.state.projects.iter().map(|x| x.resource_share).sum();
            let project = &self.state.projects[p];
            RpcRecord {
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
                reported: Vec::new(),
                in_progress: Vec::new(),
                jobs: Vec::new(),
            }
        });
        // Report this project's finished jobs.
        let mut j = 0;
        while j < self.state.jobs.len() {
            let job = &self.state.jobs[j];
            if let Some(record) = record.as_mut().filter(|_| job.project == p) {
                let list = if job.ready_to_report {
                    &mut record.reported
                } else {
                    &mut record.in_progress
                };
                list.push(job.name.to_string());
            }
            if job.project == p && job.ready_to_report {
                let late = now > job.report_deadline;
                let side = self.side.remove(j);
                if late {
                    self.accounts.flops_wasted += side.peak_flops;
                    self.accounts.missed[p] += 1;
                } else {
                    self.accounts.met[p] += 1;
                }
                self.state.jobs.remove(j);
            } else {
                j += 1;
            }
        }
        let start = self.state.jobs.len();
        let n = result.jobs.len();
        if let Some(mut record) = record {
            let versions = &self.state.projects[p].app_versions;
            record.jobs = result
                .jobs
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
                .collect();
            self.rpc_records.push(record);
        }
        for job in result.jobs {
            self.state.jobs.push(job);
            self.side.push(JobSide::default());
        }
        self.accounts.njobs += n as u64;
        if n > 0 {
            self.must_schedule = true;
            self.must_check_work_fetch = true;
        }
        self.accounts.nrpcs += 1;
        Ok(Some(start..self.state.jobs.len()))
    }

    fn do_rpc(
        &mut self,
        p: ProjectIdx,
        request: &[RscRequest],
        now: f64,
    ) -> Result<bool, SimError> {
        let Some(new_jobs) = self.do_rpc_jobs(p, request, now)? else {
            return Ok(false);
        };
        let new_job_rsc = new_jobs.map(|j| self.state.jobs[j].usage.rsc).collect();
        let reply = SchedReply {
            new_job_rsc,
            request_delay: 0.0,
            too_recent: false,
        };
        let rng = &mut *self.rng;
        handle_scheduler_reply(
            &mut self.state,
            p,
            request,
            &reply,
            now,
            &mut std::iter::from_fn(|| Some(rng.uniform())),
            &self.params,
        )
        .map_err(engine(now))?;
        Ok(true)
    }

    /// Keeps projects in alphabetical order (the emulator after its first step).
    /// Applies a scheduled change of the world.
    fn apply(&mut self, change: scenario::WorldChange) {
        match change {
            scenario::WorldChange::Attach(project, server) => {
                let n_rsc = self.state.n_rsc();
                self.state.projects.push(*project);
                self.servers.push(server);
                self.accounts.flops_used.push(0.0);
                self.accounts.idle_time.push(0.0);
                self.accounts.idle_time_sumsq.push(0.0);
                self.accounts.met.push(0);
                self.accounts.missed.push(0);
                self.usage.secs.push(vec![0.0; n_rsc]);
                self.usage.gpu_job_cpu_secs.push(0.0);
                let n = self.state.projects.len();
                if let Some(ltd) = self.ltd.as_mut() {
                    ltd.attach(n, n_rsc);
                }
                if let Some(debt) = self.debt.as_mut() {
                    debt.attach(n);
                }
                self.sort_projects();
            }
            scenario::WorldChange::AddApp {
                project,
                version,
                app,
            } => {
                let Some(p) = self.state.projects.iter().position(|x| x.name == project) else {
                    return;
                };
                let rsc = version.usage.rsc;
                let state_project = &mut self.state.projects[p];
                state_project
                    .apps
                    .push(crate::policy::state::App::new(&version.app));
                state_project.app_versions.push(version);
                if let Some(entry) = state_project.rsc.get_mut(rsc) {
                    entry.no_rsc_apps = false;
                }
                if let Some(server) = self.servers.get_mut(p) {
                    server.apps.push(app);
                }
                self.sim = None;
            }
        }
        self.must_schedule = true;
        self.must_check_work_fetch = true;
    }

    fn snapshot(&self) -> UsageSnapshot {
        let mut secs = BTreeMap::new();
        for (p, project) in self.state.projects.iter().enumerate() {
            for (r, value) in self.usage.secs.get(p).into_iter().flatten().enumerate() {
                secs.insert((project.name.to_string(), r), *value);
            }
        }
        UsageSnapshot {
            secs,
            active_time: self.accounts.active_time,
            gpu_active_time: self.accounts.gpu_active_time,
        }
    }

    fn sort_projects(&mut self) {
        let n = self.state.projects.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            self.state.projects[a]
                .name
                .cmp(&self.state.projects[b].name)
        });
        if order.iter().enumerate().all(|(i, &o)| i == o) {
            return;
        }
        let mut new_index = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        fn permute<T: Clone>(v: &mut Vec<T>, order: &[usize]) {
            *v = order.iter().map(|&o| v[o].clone()).collect();
        }
        permute(&mut self.state.projects, &order);
        permute(&mut self.servers, &order);
        permute(&mut self.accounts.flops_used, &order);
        permute(&mut self.accounts.idle_time, &order);
        permute(&mut self.accounts.idle_time_sumsq, &order);
        permute(&mut self.accounts.met, &order);
        permute(&mut self.accounts.missed, &order);
        if let Some(ltd) = self.ltd.as_mut() {
            ltd.permute(&order);
        }
        if let Some(debt) = self.debt.as_mut() {
            debt.permute(&order);
        }
        permute(&mut self.usage.secs, &order);
        permute(&mut self.usage.gpu_job_cpu_secs, &order);
        for job in &mut self.state.jobs {
            job.project = new_index[job.project];
        }
        for ex in &mut self.state.config.exclude_gpus {
            ex.project = new_index[ex.project];
        }
        self.sim = None;
    }
}

/// Runs the closed loop over `world`.
pub fn simulate(world: World, options: &SimOptions, rng: &mut Rng) -> Result<SimReport, SimError> {
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
    let params = options.effective_params();
    let World {
        state,
        servers,
        mut host,
        events,
        ..
    } = world;
    let mut events = std::collections::VecDeque::from(events);
    let mut boundaries: Vec<(f64, Option<UsageSnapshot>)> = options
        .windows
        .iter()
        .flat_map(|&(a, b)| [(a, None), (b, None)])
        .collect();
    let n = state.projects.len();
    let n_rsc = state.n_rsc();
    let side = vec![JobSide::default(); state.jobs.len()];
    let mut sim = Sim {
        state,
        servers,
        side,
        accounts: Accounts::new(n),
        usage: Usage {
            secs: vec![vec![0.0; n_rsc]; n],
            gpu_job_cpu_secs: vec![0.0; n],
        },
        params,
        options,
        rng,
        sim: None,
        must_schedule: true,
        must_check_work_fetch: true,
        last_schedule: f64::NEG_INFINITY,
        last_poll: f64::NEG_INFINITY,
        last_work_fetch: f64::NEG_INFINITY,
        last_progress: START_TIME,
        rpcs_skipped: 0,
        next_task_seq: 1,
        rpc_records: Vec::new(),
        ltd: None,
        debt: None,
    };
    match options.policy {
        Generation::Current => {}
        Generation::Ltd66 => {
            // Creation order, the enforcement's last tie-breaker.
            for (k, job) in sim.state.jobs.iter_mut().enumerate() {
                job.alloc_seq = k as u64;
            }
            sim.ltd = Some(ltd::LtdSim::new(n, n_rsc, sim.state.jobs.len() as u64));
        }
        Generation::Debt62 => sim.debt = Some(debt::DebtSim::new(n)),
    }
    let mut now = START_TIME;
    let mut first = true;
    loop {
        while events.front().is_some_and(|e| START_TIME + e.after <= now) {
            if let Some(event) = events.pop_front() {
                sim.apply(event.change);
            }
        }
        // Sampled in the emulator's order: on; then active, GPU-active
        // (only while active) and connected.
        let on = host.on.sample(options.delta, sim.rng);
        let (gpu_active, connected) = if on {
            let active = host.active.sample(options.delta, sim.rng);
            let gpu_active = active && host.gpu_active.sample(options.delta, sim.rng);
            (gpu_active, host.connected.sample(options.delta, sim.rng))
        } else {
            (false, false)
        };
        sim.progress(now, gpu_active);
        sim.handle_finished(now);
        for (at, snap) in &mut boundaries {
            if snap.is_none() && now - START_TIME >= *at {
                *snap = Some(sim.snapshot());
            }
        }
        if on {
            for _ in 0..100 {
                let mut action = sim.schedule(now)?;
                if connected {
                    action |= sim.rpc_poll(now)?;
                }
                action |= sim.progress(now, gpu_active);
                action |= sim.handle_finished(now);
                // client/sim.cpp sets gpu_suspend_reason here, after the
                // step's first pass: a GPU that comes or goes is seen by
                // the scheduler only from the next pass (which is the next
                // step when nothing else happened).
                sim.state.gpu_suspended = !gpu_active;
                if !action {
                    break;
                }
            }
        }
        if first {
            sim.sort_projects();
            first = false;
        }
        now += options.delta;
        if now > START_TIME + options.duration {
            break;
        }
    }
    let last = sim.snapshot();
    let mut report = report(&sim, options);
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
            window_usage(&sim.state, a, b, &start, &end)
        })
        .collect();
    Ok(report)
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

fn report(sim: &Sim<'_>, options: &SimOptions) -> SimReport {
    let state = &sim.state;
    let f = state.host.p_fpops;
    let cpu_peak = state.n_usable_cpus() as f64 * f;
    let gpu_peak: f64 = (1..state.n_rsc())
        .map(|r| {
            state.ninstances(r) as f64
                * host::instance_speed(state, r, sim.params.gpu_efficiency)
                * f
        })
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
        policy: options.policy.to_string(),
        policy_reason: None,
        run_options_from: None,
        windows: Vec::new(),
        transcripts: transcript::render(&sim.rpc_records, state, options.policy),
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

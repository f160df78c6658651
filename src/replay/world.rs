//! The recording as the client loop's world: what the host recorded stands
//! in for the simulated host and servers of `simulate`.
//!
//! Per step the world gives the loop what the log shows for that step and
//! nothing it decided: whether the client ran, was connected and had GPUs
//! ([`Availability`]); for each RPC the loop makes, the recorded outcome
//! (`RPC skipped: project down` with the drawn deferral, or the jobs that
//! arrived `from simulate_rpc`, sized from the log and versioned by the
//! FLOPS rate it prints); and the drawn backoffs (`backing off RSC N sec`).
//! Recorded arrivals the loop did not ask for are delivered at the end of
//! the step (the loop stays anchored when it chose another project).
//!
//! Architecture Invariant: reads the trace's external events only (module
//! doc of [`super`]: what is taken from the trace); never a decision.

use super::queue::{Availability, ExternalEvent, ExternalQueue, JobSize};
use crate::client_loop::{self, DrawKind, Drawn, RpcOutcome};
use crate::policy::state::{HostState, Job, ProjectIdx};
use crate::policy::work_fetch::RscRequest;
use crate::policy::Params;
use std::collections::BTreeMap;

/// One job the emulator's server generated, as the replica of its servers
/// drew it ([`Generator`]): the estimate the client sees (`rsc_fpops_est`)
/// is a random draw the emulator's log never prints.
#[derive(Clone, Debug, PartialEq)]
struct GeneratedJob {
    /// Its estimate, FLOPs.
    estimate: f64,
    /// Its app.
    app: String,
    /// The FLOPS of the app version it was made for (with `rsc`, which
    /// version: the log tells it only once the job is simulated).
    version_flops: f64,
    /// The resource of that version.
    rsc: usize,
}

/// A fresh replica of an emulator's servers and host processes, drawing
/// from their own generator in the emulator's order (one per replay run).
pub type ShadowMaker = dyn Fn() -> Result<Box<dyn client_loop::World>, String>;

/// What the replay knows of an emulator's draws: a replica of its servers
/// and host to draw along the recording (`simulate::emulator_shadow`).
#[derive(Default)]
pub struct Generator {
    /// Makes the replica the replay drives with the recorded decisions.
    pub shadow: Option<Box<ShadowMaker>>,
}

/// The emulator's servers and host processes replicated along the
/// recording: every draw the emulator made (host availability each step,
/// a server's availability and job sizes at each RPC, the client's
/// backoff factors) is made in the same order as the replay reaches the
/// same point, so each received job's estimate (a draw the log never
/// prints) is known while the replica's outcomes agree with the log. The
/// first disagreement (an RPC's jobs, a server down or up, the host on or
/// connected) ends it: the draws after it are no longer the emulator's.
enum Shadow {
    /// Drawing in step with the recording.
    Following(Box<dyn client_loop::World>),
    /// Stopped following it, at the time given (trace seconds), for the
    /// reason given.
    Lost(f64, String),
    /// Could not be built (why).
    Unbuilt(String),
}

impl Shadow {
    /// When (None: it was never built) and why the replica stopped
    /// following the recording, if it did.
    fn lost(&self) -> Option<(Option<f64>, String)> {
        match self {
            Shadow::Following(_) => None,
            Shadow::Lost(when, why) => Some((Some(*when), why.clone())),
            Shadow::Unbuilt(why) => Some((None, why.clone())),
        }
    }
}

/// Received jobs whose estimate the replay could not know.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnknownEstimates {
    /// How many.
    pub jobs: usize,
    /// When (trace seconds; None: it could not be built) and why the
    /// replica of the emulator's draws stopped following the recording, if
    /// it did.
    pub lost: Option<(Option<f64>, String)>,
}

/// The recording's world.
pub struct RecordedWorld {
    queue: ExternalQueue,
    availability: Availability,
    sizes: BTreeMap<String, JobSize>,
    /// (project, app) → (latency bound, true size in FLOPs) of generated
    /// jobs ([`super::build::emulator_app_params`]).
    apps: BTreeMap<(String, String), (f64, f64)>,
    /// The events of the current step, with a used flag.
    step: Vec<(ExternalEvent, bool)>,
    params: Params,
    /// Received jobs' estimates and app versions, which the log does not
    /// print (drawn by the replica, [`Generator`]).
    estimates: BTreeMap<String, GeneratedJob>,
    /// Received jobs whose estimate was not known (taken as their true size).
    unknown_estimates: usize,
    /// Each job's `UTS` in the first preliminary job list that lists it
    /// ([`World::new_job_uts`]).
    first_uts: BTreeMap<String, bool>,
    /// The replica of the emulator's draws, while it follows the log.
    shadow: Option<Shadow>,
}

impl RecordedWorld {
    /// A world from the trace's external events.
    pub fn new(
        queue: ExternalQueue,
        availability: Availability,
        sizes: BTreeMap<String, JobSize>,
        apps: BTreeMap<(String, String), (f64, f64)>,
        params: Params,
    ) -> Self {
        RecordedWorld {
            queue,
            availability,
            sizes,
            apps,
            step: Vec::new(),
            params,
            estimates: BTreeMap::new(),
            unknown_estimates: 0,
            first_uts: BTreeMap::new(),
            shadow: None,
        }
    }

    /// Draws along the recording with `world`, a replica of the emulator's
    /// servers and host ([`Generator::shadow`]); a replica that could not
    /// be built is reported as lost from the start, with its error.
    pub fn with_shadow(
        mut self,
        world: Option<Result<Box<dyn client_loop::World>, String>>,
    ) -> Self {
        self.shadow = world.map(|made| match made {
            Ok(world) => Shadow::Following(world),
            Err(err) => Shadow::Unbuilt(err),
        });
        self
    }

    /// The received jobs whose estimate was not known, and when and why the
    /// replica of the emulator's draws stopped following the recording.
    pub fn unknown_estimates(&self) -> UnknownEstimates {
        UnknownEstimates {
            jobs: self.unknown_estimates,
            lost: self.shadow.as_ref().and_then(Shadow::lost),
        }
    }

    /// The replica while it follows the recording.
    fn shadow(&mut self) -> Option<&mut Box<dyn client_loop::World>> {
        match self.shadow.as_mut() {
            Some(Shadow::Following(world)) => Some(world),
            _ => None,
        }
    }

    /// Ends the replica at `now` for `why` (once: the first reason stays).
    fn lose_shadow(&mut self, now: f64, why: String) {
        if let Some(shadow @ Shadow::Following(_)) = self.shadow.as_mut() {
            *shadow = Shadow::Lost(now, why);
        }
    }

    /// The names of the jobs the recording delivered to `project` in this
    /// step and has not handed out yet, in order.
    fn pending_arrivals(&self, project: &str) -> Vec<String> {
        self.step
            .iter()
            .filter_map(|(event, used)| match event {
                ExternalEvent::JobArrival {
                    project: p, job, ..
                } if !*used && p == project => Some(job.clone()),
                _ => None,
            })
            .collect()
    }

    /// The replica's RPC to `p`, checked against the recording's (`down`,
    /// or the jobs `arrived`): the estimates of agreeing jobs are taken.
    fn shadow_rpc(
        &mut self,
        state: &HostState,
        p: ProjectIdx,
        request: &[RscRequest],
        now: f64,
        down: bool,
        arrived: &[String],
    ) {
        let Some(shadow) = self.shadow() else {
            return;
        };
        let project = state.projects.get(p).map_or("", |x| x.name.as_str());
        let why = match shadow.rpc(state, p, request, now) {
            RpcOutcome::Down(_) if down => return,
            RpcOutcome::Down(_) => format!("its server for {project} was down, the log's was up"),
            RpcOutcome::Reply(..) if down => {
                format!("its server for {project} was up, the log's was down")
            }
            RpcOutcome::Reply(jobs, _) => {
                let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
                if names == arrived.iter().map(String::as_str).collect::<Vec<_>>() {
                    for job in jobs {
                        self.estimates.insert(
                            job.name.to_string(),
                            GeneratedJob {
                                estimate: job.rsc_fpops_est,
                                app: job.app.to_string(),
                                version_flops: job.usage.flops,
                                rsc: job.usage.rsc,
                            },
                        );
                    }
                    return;
                }
                format!(
                    "its server for {project} sent {} job(s) ({}), the log's {} ({})",
                    names.len(),
                    names.join(", "),
                    arrived.len(),
                    arrived.join(", ")
                )
            }
        };
        self.lose_shadow(now, why);
    }

    /// Sets each job's `UTS` as the first preliminary job list that lists
    /// it shows ([`super::queue::Prescan`]): what a release that never
    /// initialises the flag (7.0–7.2) shows of a new job's reused memory.
    pub fn with_first_uts(mut self, first_uts: BTreeMap<String, bool>) -> Self {
        self.first_uts = first_uts;
        self
    }

    /// Adds the external events of later lines (a long session fed window
    /// by window).
    pub fn extend_queue(&mut self, later: ExternalQueue) {
        self.queue.extend(later);
    }

    /// Builds a job delivered by an RPC: its project's app version (told
    /// apart by the FLOPS rate the log shows for it), its estimate as the
    /// log shows it, its true size and deadline from the app's parameters,
    /// `index` 0 (§9.7).
    fn make_job(
        &self,
        state: &HostState,
        p: ProjectIdx,
        name: &str,
        now: f64,
        seq: u64,
        request: Option<&[RscRequest]>,
    ) -> Option<Job> {
        let project = state.projects.get(p)?;
        let size = self.sizes.get(name).copied().unwrap_or_default();
        let params = |app: &str| {
            self.apps
                .get(&(project.name.to_string(), app.to_string()))
                .copied()
                .unwrap_or((864000.0, 3600e11))
        };
        // The printed rate is the version's FLOPS scaled by the host's
        // availability (overall_cpu_frac or overall_gpu_frac, rr_sim.cpp):
        // the versions nearest in ratio are the candidates; among them, the
        // app whose true job size is the size the task started with.
        let (cpu_frac, gpu_frac) = (state.cpu_frac(&self.params), state.gpu_frac(&self.params));
        let distance = |v: &crate::policy::state::AppVersion| {
            let frac = if v.usage.rsc == 0 { cpu_frac } else { gpu_frac };
            match size.rate.filter(|rate| *rate > 0.0) {
                Some(rate) if v.usage.flops > 0.0 => (v.usage.flops * frac / rate).ln().abs(),
                _ => 0.0,
            }
        };
        let best = project.app_versions.iter().map(distance).reduce(f64::min)?;
        let mut version = project
            .app_versions
            .iter()
            .filter(|v| distance(v) <= best + 1e-9)
            .min_by(|a, b| {
                let off = |app: &str| size.flops.map_or(0.0, |s| (params(app).1 - s).abs());
                off(&a.app).total_cmp(&off(&b.app))
            })?;
        // No rate in the log (the job arrived at the last step): the
        // emulator's own choice, the app's version of most FLOPS among
        // those whose resource the request asked for (client/sim.cpp
        // choose_app_version).
        if let (None, Some(request)) = (size.rate, request) {
            let asked = |v: &&crate::policy::state::AppVersion| {
                request
                    .get(v.usage.rsc)
                    .is_some_and(|r| r.req_secs > 0.0 || r.req_instances > 0.0)
            };
            let mut chosen: Option<&crate::policy::state::AppVersion> = None;
            for v in project
                .app_versions
                .iter()
                .filter(|v| v.app == version.app)
                .filter(asked)
            {
                if chosen.is_none_or(|c| v.usage.flops > c.usage.flops) {
                    chosen = Some(v);
                }
            }
            if let Some(chosen) = chosen {
                version = chosen;
            }
        }
        // The generator reproduced this job: its own version.
        let generated = self.estimates.get(name);
        if let Some(g) = generated {
            if let Some(v) = project.app_versions.iter().find(|v| {
                v.app == g.app.as_str() && v.usage.rsc == g.rsc && v.usage.flops == g.version_flops
            }) {
                version = v;
            }
        }
        // The emulator's job: its true size is the app's `fpops_est`, the
        // estimate the client sees a draw (client/sim.cpp make_job()).
        let (latency, app_size) = params(&version.app);
        let true_size = match size.flops {
            // The log prints GFLOPs with two decimals.
            Some(started) if (started - app_size).abs() > 0.01e9 => started,
            _ => app_size,
        };
        // Under SIM the log prints true FLOPs left (sim_flops_left) even
        // for a job that has not started; the estimate comes from the
        // emulator's generator when known.
        let known = generated.map(|g| g.estimate);
        let mut job = Job::new(
            name,
            p,
            &version.app,
            version.usage.clone(),
            known.unwrap_or(true_size),
        );
        job.estimate_unknown = known.is_none();
        job.needs_network = version.needs_network;
        job.exact_flops_remaining = Some(true_size);
        job.received_time = now;
        job.report_deadline = now + latency;
        job.index = 0;
        job.index_unset = true;
        job.alloc_seq = seq;
        Some(job)
    }

    /// Takes the step's unused arrivals for which `take` holds, as jobs.
    fn take_arrivals(
        &mut self,
        state: &HostState,
        now: f64,
        request: Option<&[RscRequest]>,
        take: impl Fn(&str) -> bool,
    ) -> Vec<Job> {
        let mut seq = state
            .jobs
            .iter()
            .map(|j| j.alloc_seq + 1)
            .max()
            .unwrap_or(0);
        let mut wanted = Vec::new();
        for (event, used) in &mut self.step {
            if let ExternalEvent::JobArrival { project, job, .. } = event {
                if !*used && take(project) {
                    *used = true;
                    wanted.push((project.clone(), job.clone()));
                }
            }
        }
        let mut jobs = Vec::new();
        for (project, name) in wanted {
            let Some(p) = state
                .projects
                .iter()
                .position(|x| x.name == project.as_str())
            else {
                continue;
            };
            if !self.estimates.contains_key(&name) {
                self.unknown_estimates += 1;
            }
            if let Some(job) = self.make_job(state, p, &name, now, seq, request) {
                seq += 1;
                jobs.push(job);
            }
        }
        jobs
    }
}

impl client_loop::World for RecordedWorld {
    fn availability(&mut self, now: f64, delta: f64) -> client_loop::Availability {
        self.step = self
            .queue
            .pop_at(now)
            .into_iter()
            .map(|e| (e, false))
            .collect();
        let on = self.availability.on(now);
        let mut recorded = client_loop::Availability {
            on,
            active: on,
            connected: self.availability.connected(now),
            gpu_active: self.availability.gpu_active(now),
        };
        let has_timeline = self.availability.has_timeline();
        if let Some(shadow) = self.shadow() {
            shadow.changes_due(now);
            let drawn = shadow.availability(now, delta);
            // The log proves a step on where it prints the client's work
            // and connected where it prints a work-fetch block; a step it
            // is silent on may be either (nothing to schedule, nothing to
            // fetch), so only a draw against what it proves ends the replica.
            let why = if recorded.on && !drawn.on {
                Some("the host's on/off state")
            } else if recorded.on && recorded.connected && !drawn.connected {
                Some("the host's network connection")
            } else {
                None
            };
            if let Some(why) = why {
                self.lose_shadow(now, format!("its draw of {why} differs from the log's"));
            } else if !has_timeline {
                // Without timeline.html the log never tells when GPUs were
                // disabled: the replica's draw does, while it follows.
                recorded.gpu_active = recorded.on && drawn.gpu_active;
            }
        }
        recorded
    }

    fn run_list_order(&mut self, _now: f64) -> Option<Vec<String>> {
        self.step.iter_mut().find_map(|(event, used)| match event {
            ExternalEvent::RunListOrder { jobs, .. } if !*used => {
                *used = true;
                Some(jobs.clone())
            }
            _ => None,
        })
    }

    fn new_job_uts(&mut self, job: &str) -> Option<bool> {
        self.first_uts.get(job).copied()
    }

    fn tie_order(&mut self, _now: f64) -> Option<Vec<String>> {
        self.step.iter_mut().find_map(|(event, used)| match event {
            ExternalEvent::TieOrder { jobs, .. } if !*used => {
                *used = true;
                Some(jobs.clone())
            }
            _ => None,
        })
    }

    fn rpc(
        &mut self,
        state: &HostState,
        p: ProjectIdx,
        request: &[RscRequest],
        now: f64,
    ) -> RpcOutcome {
        let Some(name) = state.projects.get(p).map(|x| x.name.to_string()) else {
            return RpcOutcome::Reply(Vec::new(), Vec::new());
        };
        for (event, used) in &mut self.step {
            if let ExternalEvent::RpcSkipped {
                project,
                defer_secs,
                ..
            } = event
            {
                if !*used && *project == name {
                    *used = true;
                    let drawn = defer_secs.map_or(Drawn::Missing, Drawn::Secs);
                    self.shadow_rpc(state, p, request, now, true, &[]);
                    return RpcOutcome::Down(drawn);
                }
            }
        }
        let arrived = self.pending_arrivals(&name);
        self.shadow_rpc(state, p, request, now, false, &arrived);
        RpcOutcome::Reply(
            self.take_arrivals(state, now, Some(request), |project| project == name),
            Vec::new(),
        )
    }

    fn draw(&mut self, now: f64, project_name: &str, kind: DrawKind, rsc_name: &str) -> Drawn {
        if let Some(shadow) = self.shadow() {
            shadow.draw(now, project_name, kind, rsc_name);
        }
        if !matches!(kind, DrawKind::ResourceBackoff(_)) {
            return Drawn::Missing;
        }
        for (event, used) in &mut self.step {
            if let ExternalEvent::BackoffDrawn {
                project, rsc, secs, ..
            } = event
            {
                if !*used && project == project_name && rsc == rsc_name {
                    *used = true;
                    return Drawn::Secs(*secs);
                }
            }
        }
        Drawn::Missing
    }

    fn unsolicited_jobs(&mut self, state: &HostState, now: f64) -> Vec<Job> {
        let jobs = self.take_arrivals(state, now, None, |_| true);
        if let Some(job) = jobs.first() {
            let why = format!(
                "the log's client received {} without the replay's RPC",
                job.name
            );
            self.lose_shadow(now, why);
        }
        jobs
    }
}

#[cfg(test)]
mod tests {
    use super::{RecordedWorld, UnknownEstimates};
    use crate::client_loop::{self, DrawKind, Drawn, RpcOutcome};
    use crate::policy::state::{AppVersion, HostState, Job, Project, ProjectIdx, ResourceUsage};
    use crate::policy::work_fetch::RscRequest;
    use crate::policy::Params;
    use crate::replay::queue::{ExternalEvent, ExternalQueue, Prescan};
    use crate::trace::FileKind;
    use std::collections::BTreeMap;

    fn events(text: &str) -> Vec<crate::trace::LogEvent> {
        crate::replay::test_events(text, FileKind::EmulatorLog)
    }

    /// A stand-in for the replica of the emulator's servers: every RPC is
    /// answered with `reply` (None: the server is down); draws are counted.
    struct Replica {
        reply: Option<Vec<(&'static str, f64)>>,
        draws: std::rc::Rc<std::cell::Cell<usize>>,
    }

    impl client_loop::World for Replica {
        fn availability(&mut self, _now: f64, _delta: f64) -> client_loop::Availability {
            client_loop::Availability {
                on: true,
                active: true,
                connected: true,
                gpu_active: true,
            }
        }
        fn rpc(
            &mut self,
            _state: &HostState,
            p: ProjectIdx,
            _request: &[RscRequest],
            _now: f64,
        ) -> RpcOutcome {
            match &self.reply {
                None => RpcOutcome::Down(Drawn::Factor(0.5)),
                Some(jobs) => RpcOutcome::Reply(
                    jobs.iter()
                        .map(|(name, estimate)| {
                            Job::new(name, p, "a", ResourceUsage::cpu(1.0, 1e9), *estimate)
                        })
                        .collect(),
                    Vec::new(),
                ),
            }
        }
        fn draw(&mut self, _now: f64, _p: &str, _kind: DrawKind, _rsc: &str) -> Drawn {
            self.draws.set(self.draws.get() + 1);
            Drawn::Factor(0.5)
        }
    }

    fn one_project_state() -> HostState {
        let mut state = HostState::new(crate::policy::state::tests::seed_host());
        let mut project = Project::new("A", 100.0, 1);
        project.app_versions.push(AppVersion {
            app: "a".into(),
            usage: ResourceUsage::cpu(1.0, 1e9),
            needs_network: false,
        });
        state.projects.push(project);
        state
    }

    /// The log delivers A_0 and A_1 at 01:00:00 (true size 3600 GFLOPs,
    /// as `Starting task` prints it); the replica's server drew estimates
    /// 3000 and 4000 GFLOPs for the same two jobs: the replay's jobs carry
    /// the drawn estimates. A replica that sent other jobs (or was down
    /// where the log's server was up) stops: the jobs keep their true size
    /// as estimate, are counted unknown, and the report says why.
    #[test]
    fn the_replica_gives_the_estimates_while_it_follows_the_log() {
        let log = "\
01:00:00 [A] [task] result state=FILES_DOWNLOADED for A_0 from simulate_rpc
01:00:00 [A] [task] result state=FILES_DOWNLOADED for A_1 from simulate_rpc
01:01:00 [A] [task] Starting task A_0: FLOPS left 3600.00G
01:01:00 [A] [task] Starting task A_1: FLOPS left 3600.00G
";
        let events = events(log);
        let prescan = Prescan::of(&events);
        let world = |reply: Option<Vec<(&'static str, f64)>>| {
            let draws = std::rc::Rc::new(std::cell::Cell::new(0));
            let replica = Replica {
                reply,
                draws: draws.clone(),
            };
            let world = RecordedWorld::new(
                ExternalQueue::from_events(&events),
                prescan.availability(&[]),
                prescan.sizes.clone(),
                BTreeMap::new(),
                Params::default(),
            )
            .with_shadow(Some(Ok(Box::new(replica))));
            (world, draws)
        };
        let state = one_project_state();
        let estimates = |world: &mut RecordedWorld| -> Vec<f64> {
            use client_loop::World;
            world.availability(3600.0, 60.0);
            match world.rpc(&state, 0, &[], 3600.0) {
                RpcOutcome::Reply(jobs, _) => jobs.iter().map(|j| j.rsc_fpops_est).collect(),
                RpcOutcome::Down(_) => Vec::new(),
            }
        };

        let (mut follows, draws) = world(Some(vec![("A_0", 3000e9), ("A_1", 4000e9)]));
        assert_eq!(estimates(&mut follows), vec![3000e9, 4000e9]);
        assert_eq!(follows.unknown_estimates(), UnknownEstimates::default());
        // The client's draws are made by the replica too, in order.
        client_loop::World::draw(&mut follows, 3600.0, "A", DrawKind::ProjectBackoff, "CPU");
        assert_eq!(draws.get(), 1);

        let (mut other, draws) = world(Some(vec![("A_0", 3000e9)]));
        assert_eq!(estimates(&mut other), vec![3600e9, 3600e9]);
        let unknown = other.unknown_estimates();
        assert_eq!(unknown.jobs, 2);
        let (time, why) = unknown.lost.expect("lost");
        assert_eq!(time, Some(3600.0));
        assert!(
            why.contains("sent 1 job(s) (A_0), the log's 2 (A_0, A_1)"),
            "{why}"
        );
        // Once lost, the replica draws no more.
        client_loop::World::draw(&mut other, 3600.0, "A", DrawKind::ProjectBackoff, "CPU");
        assert_eq!(draws.get(), 0);

        let (mut down, _) = world(None);
        assert_eq!(estimates(&mut down), vec![3600e9, 3600e9]);
        let why = down.unknown_estimates().lost.expect("lost").1;
        assert!(
            why.contains("server for A was down, the log's was up"),
            "{why}"
        );

        // A replica that could not be built: lost from the start, with
        // its error, and the jobs' estimates unknown.
        let mut unbuilt = RecordedWorld::new(
            ExternalQueue::from_events(&events),
            prescan.availability(&[]),
            prescan.sizes.clone(),
            BTreeMap::new(),
            Params::default(),
        )
        .with_shadow(Some(Err("no sim_projects.xml".to_string())));
        assert_eq!(estimates(&mut unbuilt), vec![3600e9, 3600e9]);
        let unknown = unbuilt.unknown_estimates();
        assert_eq!(unknown.jobs, 2);
        assert_eq!(
            unknown.lost,
            Some((None, "no sim_projects.xml".to_string()))
        );
    }

    #[test]
    fn first_preliminary_uts_is_the_first_listing_of_each_job() {
        let log = "\
01:00:00 [---] [cpu_sched_debug] preliminary job list:
01:00:00 [A] [cpu_sched_debug] 0: A_0 (MD: no; UTS: yes)
01:00:00 [---] [cpu_sched_debug] final job list:
01:00:00 [A] [cpu_sched_debug] 0: A_1 (MD: no; UTS: yes)
01:05:00 [---] [cpu_sched_debug] preliminary job list:
01:05:00 [A] [cpu_sched_debug] 0: A_0 (MD: no; UTS: no)
01:05:00 [A] [cpu_sched_debug] 1: A_1 (MD: no; UTS: no)
";
        let first = Prescan::of(&events(log)).first_uts;
        // A_0's first listing says yes; a final list does not count.
        assert_eq!(first.get("A_0"), Some(&true));
        assert_eq!(first.get("A_1"), Some(&false));
    }

    /// A drawn backoff printed in whole seconds is refined by the next
    /// dump of its resource: 762 s drawn at 01:00:00, 401.95 s left at
    /// 01:06:00, so 761.95 s were drawn (within the rounding of 762). The
    /// CPU draw of 100 s ends before any dump shows it: not refined.
    #[test]
    fn prescan_refines_a_draw_by_the_next_dump_of_its_resource() {
        let log = "\
01:00:00 [CpuOnly] [work_fetch] backing off NVIDIA 762 sec
01:00:00 [CpuOnly] [work_fetch] backing off CPU 100 sec
01:06:00 [---] [work_fetch] ------- start work fetch state -------
01:06:00 [---] [work_fetch] --- state for CPU ---
01:06:00 [CpuOnly] [work_fetch] fetch share 0.000 (resource backoff: 40.00, inc 600.00)
01:06:00 [---] [work_fetch] --- state for NVIDIA ---
01:06:00 [CpuOnly] [work_fetch] fetch share 0.000 (resource backoff: 401.95, inc 600.00)
";
        let refined = Prescan::of(&events(log)).refined;
        let nvidia = refined.draws.get(&0).copied().unwrap_or_default();
        assert!((nvidia - 761.95).abs() < 1e-9, "{nvidia}");
        assert_eq!(refined.draws.get(&1), None);
    }

    /// A new draw for the same resource exactly when the first, printed in
    /// whole seconds, would end proves the first ended before it (the
    /// client draws only once `backoff_time < now`): 900 s printed at
    /// 11:48:00 and a new draw at 12:03:00 put the first in [899.5, 900),
    /// taken at its middle. A later new draw says nothing of the first.
    /// Refined by a dump to 900.00 (840.00 left a minute later), the same
    /// new draw puts it in [899.995, 900).
    #[test]
    fn prescan_bounds_a_draw_by_the_next_draw_of_its_resource() {
        let log = "\
11:48:00 [Vela] [work_fetch] backing off CPU 900 sec
12:03:00 [Vela] [work_fetch] backing off CPU 665 sec
12:30:00 [Vela] [work_fetch] backing off CPU 2625 sec
";
        let refined = Prescan::of(&events(log)).refined;
        let first = refined.draws.get(&0).copied().unwrap_or_default();
        assert!((first - 899.75).abs() < 1e-9, "{first}");
        assert_eq!(refined.draws.get(&1), None);

        let log = "\
18:42:00 [Pavo] [work_fetch] backing off ATI 900 sec
18:43:00 [---] [work_fetch] ------- start work fetch state -------
18:43:00 [---] [work_fetch] --- state for ATI ---
18:43:00 [Pavo] [work_fetch] fetch share 0.000 (resource backoff: 840.00, inc 600.00)
18:57:00 [Pavo] [work_fetch] backing off ATI 1668 sec
";
        let refined = Prescan::of(&events(log)).refined;
        let first = refined.draws.get(&0).copied().unwrap_or_default();
        assert!((first - 899.9975).abs() < 1e-9, "{first}");
    }

    /// A project-down deferral (`00:01:27`, truncated: drawn in [87, 88) s)
    /// printed two lines after the skip is refined by the project's next
    /// `backoff:` (27.40 s left a minute later: 87.40 s drawn).
    #[test]
    fn prescan_refines_a_deferral_printed_after_other_lines() {
        let log = "\
05:12:00 [Gpu] RPC skipped: project down
05:12:00 [---] [cpu_sched_debug] Request CPU reschedule: periodic CPU scheduling
05:12:00 [Gpu] [sched_op] Deferring communication for 00:01:27
05:12:00 [Gpu] [sched_op] Reason: project down
05:13:00 [---] [work_fetch] ------- start work fetch state -------
05:13:00 [Gpu] [work_fetch] REC 0.000 prio -0.000000 can't req work: scheduler RPC backoff (backoff: 27.40 sec)
";
        let events = events(log);
        let refined = Prescan::of(&events).refined;
        let deferral = refined.deferrals.get(&0).copied().unwrap_or_default();
        assert!((deferral - 87.40).abs() < 1e-9, "{deferral}");
        // The queue takes the refined value.
        let mut queue = crate::replay::queue::ExternalQueue::from_events(&events);
        let popped = queue.pop_at(5.0 * 3600.0 + 12.0 * 60.0);
        assert!(
            matches!(
                popped.as_slice(),
                [ExternalEvent::RpcSkipped { defer_secs: Some(secs), .. }] if (secs - 87.40).abs() < 1e-9
            ),
            "{popped:?}"
        );
    }
}

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

/// One job the emulator's server generated, as a simulation with the
/// emulator's generator reproduces it (`simulate::generated_jobs`): the
/// estimate the client sees (`rsc_fpops_est`) is a random draw the
/// emulator's log never prints.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedJob {
    /// Simulated time of the RPC that sent it.
    pub time: f64,
    /// The project's name.
    pub project: String,
    /// The job's name.
    pub name: String,
    /// Its estimate, FLOPs.
    pub estimate: f64,
    /// Its app.
    pub app: String,
    /// The FLOPS of the app version it was made for (with `rsc`, which
    /// version: the log tells it only once the job is simulated).
    pub version_flops: f64,
    /// The resource of that version.
    pub rsc: usize,
}

/// The generated jobs (estimate, app version) of the jobs the log shows
/// arriving, as far as they agree with the log's arrivals (same name,
/// project and time, in order): after the first disagreement the
/// simulation no longer follows the recorded run and its draws are not the
/// emulator's.
pub fn matched_jobs(
    arrivals: &[(f64, String, String)],
    generated: &[GeneratedJob],
) -> BTreeMap<String, GeneratedJob> {
    arrivals
        .iter()
        .zip(generated)
        .take_while(|((time, project, name), job)| {
            (time - job.time).abs() < 1e-6 && *project == job.project && *name == job.name
        })
        .map(|(_, job)| (job.name.clone(), job.clone()))
        .collect()
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
    /// print ([`matched_jobs`]).
    estimates: BTreeMap<String, GeneratedJob>,
    /// Received jobs whose estimate was not known (taken as their true size).
    pub unknown_estimates: usize,
    /// Each job's `UTS` in the first preliminary job list that lists it
    /// ([`World::new_job_uts`]).
    first_uts: BTreeMap<String, bool>,
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
        }
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

    /// Sets the estimates and versions of received jobs ([`matched_jobs`]).
    pub fn with_estimates(mut self, estimates: BTreeMap<String, GeneratedJob>) -> Self {
        self.estimates = estimates;
        self
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
    fn availability(&mut self, now: f64, _delta: f64) -> client_loop::Availability {
        self.step = self
            .queue
            .pop_at(now)
            .into_iter()
            .map(|e| (e, false))
            .collect();
        let on = self.availability.on(now);
        client_loop::Availability {
            on,
            active: on,
            connected: self.availability.connected(now),
            gpu_active: self.availability.gpu_active(now),
        }
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
                    return RpcOutcome::Down(defer_secs.map_or(Drawn::Missing, Drawn::Secs));
                }
            }
        }
        RpcOutcome::Reply(
            self.take_arrivals(state, now, Some(request), |project| project == name),
            Vec::new(),
        )
    }

    fn draw(&mut self, _now: f64, project_name: &str, kind: DrawKind, rsc_name: &str) -> Drawn {
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
        self.take_arrivals(state, now, None, |_| true)
    }
}

#[cfg(test)]
mod tests {
    use crate::replay::queue::{ExternalEvent, Prescan};
    use crate::trace::FileKind;

    fn events(text: &str) -> Vec<crate::trace::LogEvent> {
        crate::replay::test_events(text, FileKind::EmulatorLog)
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

//! The 6.10.60 client emulator as the client loop's world (its client/sim.cpp,
//! tag `client_release/6.10/6.10.60`), for `simulate` and for the audit of
//! that emulator's traces.
//!
//! The host is available as sim_host.xml's `<available>` process says
//! (drawn as the emulator draws it, or the recording's `value:` lines);
//! while it is off the harness neither schedules nor polls, and executing
//! tasks gain elapsed time but no CPU time. Each scheduler RPC is answered by the
//! harness's `simulate_rpc` (policy-legacy B.15.1): jobs named `PROJECT_N`
//! are made until both the seconds and the instances asked are covered, each
//! counted at the project's DCF × its app's estimate; a job's deadline is its
//! app's latency bound after now. A job's true CPU time comes from
//! [`JobSizes`]: drawn as the emulator draws it (`make_job`: one `drand()`
//! to pick the app, then its `NORMAL_DIST::sample()`, a rational
//! approximation of the normal quantile from one more `drand()`), or taken
//! from a recording.
//!
//! With the loop's [`Profile::sim_6_10`](crate::client_loop::Profile) the
//! run is the emulator's run: `simulate --log-out` then writes its
//! sim_log.txt ([`super::log_out_6_10`]).

use super::rng::{OnOff, Rng};
use crate::client_loop::{Availability, DrawKind, Drawn, HostSample, RpcOutcome, World};
use crate::policy::state::{HostState, Job, Project, ResourceUsage};
use crate::policy::work_fetch::RscRequest;
use crate::replay::ReplayError;
use crate::trace::state::SimHostProcess;
use crate::trace::Trace;
use compact_str::CompactString;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// The emulator's clock at the start of a run: 01-Jan-2000 00:00:00 UTC.
pub const START: f64 = 946_684_800.0;

/// Jobs one reply holds at most (the emulator has no limit; a request of
/// absurd size in a bad input would otherwise never end).
const MAX_JOBS_PER_REPLY: usize = 10_000;

/// An app of the emulated server (sim_projects.xml).
#[derive(Clone, Debug)]
pub struct SimApp {
    /// Its name.
    pub name: String,
    /// `fpops_est`: the workunit's estimate.
    pub fpops_est: f64,
    /// Mean of the true FLOPs.
    pub fpops_mean: f64,
    /// Standard deviation of the true FLOPs.
    pub fpops_stdev: f64,
    /// `latency_bound`: the deadline after sending.
    pub latency_bound: f64,
}

/// Where the true CPU time of each job sent comes from.
pub enum JobSizes<'a> {
    /// Drawn from the emulator's generator, as it draws them.
    Drawn(&'a mut Rng),
    /// Taken from a recording: sim_out_0.html's sizes by job name (to the
    /// microsecond), else the log's `[rr_sim] JOB dur:` dynamic terms
    /// (0.01 s), else the app's mean.
    Recorded {
        /// Exact sizes by job name.
        exact: BTreeMap<String, f64>,
        /// Sizes printed in the log, by job name.
        printed: HashMap<String, f64>,
    },
}

/// Where the host's availability comes from.
enum HostAvailability {
    /// Always on (no `<available>` below 1).
    Always,
    /// The emulator's process, drawn as it draws it; the time of its last
    /// sample.
    Drawn(OnOff, f64),
    /// The recording's samples (`value:` lines) not yet reached, and the
    /// last one reached.
    Recorded(VecDeque<(f64, HostSample)>, Option<HostSample>),
}

/// The 6.10.60 emulator's server and host (see the module doc).
pub struct Emulator610<'a> {
    apps: Vec<Option<SimApp>>,
    sizes: JobSizes<'a>,
    host: HostAvailability,
    next_job_no: Vec<u32>,
    /// True CPU time of each job sent, by name.
    sent: HashMap<CompactString, f64>,
    /// Jobs whose size is not known to the microsecond (recorded sizes only).
    pub coarse: BTreeSet<CompactString>,
}

/// The approximation of the normal quantile the 6.10 emulator samples with
/// (its `NORMAL_DIST::sample()`, after rvgs.c): `u` is one `drand()`.
fn normal_quantile(u: f64) -> f64 {
    const P: [f64; 5] = [
        0.322_232_431_088,
        1.0,
        0.342_242_088_547,
        0.204_231_210_245e-1,
        0.453_642_210_148e-4,
    ];
    const Q: [f64; 5] = [
        0.099_348_462_606,
        0.588_581_570_495,
        0.531_103_462_366,
        0.103_537_752_850,
        0.385_607_006_340e-2,
    ];
    let t = if u < 0.5 {
        (-2.0 * u.ln()).sqrt()
    } else {
        (-2.0 * (1.0 - u).ln()).sqrt()
    };
    let p = P[0] + t * (P[1] + t * (P[2] + t * (P[3] + t * P[4])));
    let q = Q[0] + t * (Q[1] + t * (Q[2] + t * (Q[3] + t * Q[4])));
    if u < 0.5 {
        (p / q) - t
    } else {
        t - (p / q)
    }
}

impl<'a> Emulator610<'a> {
    /// The emulator over `apps` (one per project, in project order). Its
    /// host is always available until [`Self::with_host_processes`] says
    /// otherwise.
    pub fn new(apps: Vec<Option<SimApp>>, sizes: JobSizes<'a>) -> Self {
        let host = match sizes {
            JobSizes::Drawn(_) => HostAvailability::Always,
            JobSizes::Recorded { .. } => HostAvailability::Recorded(VecDeque::new(), None),
        };
        Emulator610 {
            next_job_no: vec![0; apps.len()],
            apps,
            sizes,
            host,
            sent: HashMap::new(),
            coarse: BTreeSet::new(),
        }
    }

    /// The host's random processes (sim_host.xml's `<available>` and
    /// `<idle>`, in file order), started as the emulator starts them when
    /// it reads the file: one draw each, before any job's. Only
    /// `<available>` is sampled later. A recorded run takes the log's
    /// samples instead ([`Self::record_sample`]).
    pub fn with_host_processes(mut self, processes: &[SimHostProcess]) -> Self {
        let JobSizes::Drawn(rng) = &mut self.sizes else {
            return self;
        };
        for process in processes {
            let model = &process.model;
            let on_off =
                OnOff::new_6_10(model.frac.unwrap_or(1.0), model.lambda.unwrap_or(0.0), rng);
            if process.name == "available" {
                self.host = HostAvailability::Drawn(on_off, START);
            }
        }
        self
    }

    /// A `value:` line of the recording: the host's availability sampled
    /// at `t`, which applies from the time step at `t` on.
    pub fn record_sample(&mut self, t: f64, sample: HostSample) {
        if let HostAvailability::Recorded(queue, _) = &mut self.host {
            queue.push_back((t, sample));
        }
    }

    /// The true CPU time of every job sent, by project and then number
    /// (`P_N`).
    pub fn sent_sizes(&self) -> Vec<(&str, f64)> {
        let mut sizes: Vec<(&str, f64)> = self.sent.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        let key = |name: &str| match name.rsplit_once('_') {
            Some((project, no)) => (project.to_string(), no.parse::<u64>().unwrap_or(u64::MAX)),
            None => (name.to_string(), 0),
        };
        sizes.sort_by_cached_key(|(name, _)| (key(name), name.to_string()));
        sizes
    }

    /// The true CPU time of the next job of `app` named `name`.
    fn size(&mut self, name: &str, app: &SimApp, p_fpops: f64) -> f64 {
        match &mut self.sizes {
            JobSizes::Drawn(rng) => {
                // make_job: the app pick's draw, then the size's.
                rng.uniform();
                let ops = app.fpops_mean + app.fpops_stdev * normal_quantile(rng.uniform());
                ops.max(0.0) / p_fpops
            }
            JobSizes::Recorded { exact, printed } => {
                if let Some(secs) = exact.get(name) {
                    return *secs;
                }
                self.coarse.insert(CompactString::from(name));
                printed
                    .get(name)
                    .copied()
                    .unwrap_or(app.fpops_mean / p_fpops)
            }
        }
    }
}

impl World for Emulator610<'_> {
    fn availability(&mut self, now: f64, _delta: f64) -> Availability {
        let on = match &mut self.host {
            HostAvailability::Always => true,
            HostAvailability::Drawn(process, last) => {
                let dt = now - *last;
                *last = now;
                match &mut self.sizes {
                    JobSizes::Drawn(rng) => process.sample(dt, rng),
                    JobSizes::Recorded { .. } => true,
                }
            }
            HostAvailability::Recorded(queue, current) => {
                while let Some(&(t, sample)) = queue.front() {
                    if t > now + 0.5 {
                        break;
                    }
                    *current = Some(sample);
                    queue.pop_front();
                }
                current.is_none_or(|s| s.on)
            }
        };
        Availability {
            on,
            active: true,
            connected: true,
            gpu_active: true,
        }
    }

    fn host_sample(&self) -> Option<HostSample> {
        match &self.host {
            HostAvailability::Always => None,
            HostAvailability::Drawn(process, _) => process.varies().then(|| HostSample {
                on: process.sample_value(),
                lambda: process.lambda(),
                time_left: process.time_left(),
            }),
            HostAvailability::Recorded(_, current) => *current,
        }
    }

    fn rpc(&mut self, state: &HostState, p: usize, request: &[RscRequest], now: f64) -> RpcOutcome {
        let (secs, instances) = request
            .first()
            .map_or((0.0, 0.0), |cpu| (cpu.req_secs, cpu.req_instances));
        let mut jobs = Vec::new();
        let (Some(project), Some(Some(app))) = (state.projects.get(p), self.apps.get(p).cloned())
        else {
            return RpcOutcome::Reply(jobs, Vec::new());
        };
        let p_fpops = state.host.p_fpops;
        let est = project.dcf * app.fpops_est / p_fpops;
        // simulate_rpc counts down what is left (the same floating-point
        // steps as the emulator). An estimate of zero (a bad input) would
        // never cover the seconds: the instances asked, or one job, then.
        let (mut work_left, mut instances_needed) = (secs, instances);
        let counts_secs = est > 0.0 && est.is_finite();
        let wanted = |work_left: f64, instances_needed: f64, sent: usize| {
            (counts_secs && work_left > 0.0) || instances_needed > 0.0 || (sent == 0 && secs > 0.0)
        };
        while wanted(work_left, instances_needed, jobs.len()) && jobs.len() < MAX_JOBS_PER_REPLY {
            let no = self.next_job_no.get(p).copied().unwrap_or(0);
            if let Some(slot) = self.next_job_no.get_mut(p) {
                *slot += 1;
            }
            let job_name = format!("{}_{no}", project.name);
            let runtime = self.size(&job_name, &app, p_fpops);
            let mut job = Job::new(
                &job_name,
                p,
                &app.name,
                ResourceUsage::cpu(1.0, p_fpops),
                app.fpops_est,
            );
            job.received_time = now;
            job.report_deadline = now + app.latency_bound;
            self.sent.insert(job.name.clone(), runtime);
            jobs.push(job);
            work_left -= est;
            instances_needed -= 1.0;
        }
        RpcOutcome::Reply(jobs, Vec::new())
    }

    fn draw(&mut self, _now: f64, _project: &str, _kind: DrawKind, _rsc: &str) -> Drawn {
        match &mut self.sizes {
            JobSizes::Drawn(rng) => Drawn::Factor(rng.uniform()),
            JobSizes::Recorded { .. } => Drawn::Missing,
        }
    }

    fn final_cpu_time(&mut self, job: &Job) -> Option<f64> {
        self.sent.get(&job.name).copied()
    }
}

/// The host state of the 6.10 emulator from sim_host.xml, sim_projects.xml
/// and sim_prefs.xml, with each project's first app.
pub fn build(trace: &Trace) -> Result<(HostState, Vec<Option<SimApp>>), ReplayError> {
    let projects = trace
        .state
        .sim_projects
        .as_ref()
        .ok_or_else(|| ReplayError::MissingState("no sim_projects.xml in the trace".into()))?;
    let mut state = crate::replay::build::sim_host_state(trace)?;
    let mut apps = Vec::new();
    for (i, recorded) in projects.projects.iter().enumerate() {
        let name = recorded
            .project_name
            .clone()
            .unwrap_or_else(|| format!("project{i}"));
        let mut project = Project::new(&name, recorded.resource_share.unwrap_or(100.0), 1);
        project.alloc_seq = i as u32;
        project.dont_use_dcf = false;
        project.dcf = 1.0;
        state.projects.push(project);
        apps.push(recorded.apps.first().map(|app| {
            let fpops_est = app.fpops_est.unwrap_or(3.6e12);
            let fpops = app.fpops.as_ref();
            SimApp {
                name: app.name.clone().unwrap_or_else(|| "app".into()),
                fpops_est,
                fpops_mean: fpops.and_then(|f| f.mean).unwrap_or(fpops_est),
                fpops_stdev: fpops.and_then(|f| f.std_dev).unwrap_or(0.0),
                latency_bound: app.latency_bound.unwrap_or(86400.0),
            }
        }));
    }
    Ok((state, apps))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first five sizes of Beta (43.2e12 ± 4.32e12 FLOPs at 4 GFLOPS)
    /// in the 6.10.60 reference cpu_two_projects_unequal_share, as its
    /// sim_out_0.html prints them (`got job Beta_0: CPU time 10510.65`).
    #[test]
    fn drawn_sizes_are_the_emulators() {
        let mut rng = Rng::new(1);
        let app = SimApp {
            name: "app".into(),
            fpops_est: 43.2e12,
            fpops_mean: 43.2e12,
            fpops_stdev: 4.32e12,
            latency_bound: 432000.0,
        };
        let mut world = Emulator610::new(vec![Some(app.clone())], JobSizes::Drawn(&mut rng));
        let sizes: Vec<String> = (0..5)
            .map(|k| format!("{:.2}", world.size(&format!("Beta_{k}"), &app, 4e9)))
            .collect();
        assert_eq!(
            sizes,
            ["10510.65", "11702.95", "9881.57", "11591.67", "10946.55"]
        );
    }
}

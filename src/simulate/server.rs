//! The simulated project servers (the emulator's `simulate_rpc`, client/sim.cpp).
//!
//! Per RPC the server first checks its availability (an on/off process,
//! `<available><frac>/<lambda>`), then takes the reported results, then —
//! unless the run uses only existing jobs — creates jobs until every
//! resource with a nonzero request has its seconds and instances covered:
//! an app is drawn among those with a version for a requested resource
//! (weighted by `<weight>`), its best (fastest) such version is used, and a
//! job whose estimated start (the request's busy time plus the runtime of
//! the jobs already sent for that resource) plus runtime exceeds the app's
//! latency bound stops that version for this RPC. The deadline is
//! `now + latency_bound`.
//!
//! Job sizes follow the emulator: the job's true size is the app's
//! `<fpops_est>`; its workunit estimate (`rsc_fpops_est`, what the client
//! sees) is drawn from normal(`<fpops><mean>`, `<std_dev>`) clipped at 0.
//! The 6.10 emulator did the reverse (estimate `<fpops_est>`, true size
//! drawn) and had no latency-bound cut: [`ServerApp::true_size_drawn`].

use super::rng::{OnOff, Rng};
use crate::client_loop::Refusal;
use crate::policy::state::{HostState, Job, ProjectIdx, ResourceUsage, RscIdx};
use crate::policy::work_fetch::RscRequest;

/// Job parameters of one app on the simulated server.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerApp {
    /// App name (as in the host state's apps and versions).
    pub name: String,
    /// True size of every job, FLOPs (`<fpops_est>`).
    pub fpops_est: f64,
    /// Mean of the estimate distribution (`<fpops><mean>`).
    pub fpops_mean: f64,
    /// Standard deviation of the estimate (`<fpops><std_dev>`).
    pub fpops_std_dev: f64,
    /// Deadline minus send time, seconds.
    pub latency_bound: f64,
    /// Relative frequency among the project's apps.
    pub weight: f64,
    /// The 6.10 emulator's job model: the estimate is `fpops_est` and the
    /// true size a normal draw from `<fpops>`; jobs are sent until the
    /// request is covered, without the latency-bound cut.
    pub true_size_drawn: bool,
}

/// One simulated project server.
#[derive(Clone, Debug)]
pub struct ServerProject {
    /// Project name (matches the host state's project).
    pub name: String,
    /// Its apps.
    pub apps: Vec<ServerApp>,
    /// Server availability.
    pub available: OnOff,
    /// Time of the previous RPC attempt (0 = none).
    pub last_rpc_time: f64,
    /// Number of the next generated job (`<Project>_<n>`).
    pub next_job: u64,
}

/// What one RPC produced.
#[derive(Clone, Debug, Default)]
pub struct RpcResult {
    /// The server was down (`RPC skipped: project down`).
    pub down: bool,
    /// New jobs, in creation order.
    pub jobs: Vec<Job>,
    /// Jobs made and refused by the deadline check.
    pub refused: Vec<Refusal>,
}

impl ServerProject {
    /// Handles an RPC at `now` asking for `request` (one entry per resource).
    /// `existing_jobs_only` sends nothing. The project's index in `state` is `project`.
    pub fn rpc(
        &mut self,
        state: &HostState,
        project: ProjectIdx,
        request: &[RscRequest],
        now: f64,
        existing_jobs_only: bool,
        rng: &mut Rng,
    ) -> RpcResult {
        // As sim.cpp simulate_rpc(): any nonzero last RPC time counts.
        let dt = if self.last_rpc_time != 0.0 {
            now - self.last_rpc_time
        } else {
            0.0
        };
        self.last_rpc_time = now;
        if !self.available.sample(dt, rng) {
            return RpcResult {
                down: true,
                ..RpcResult::default()
            };
        }
        let mut out = RpcResult::default();
        if existing_jobs_only {
            return out;
        }
        let Some(p) = state.projects.get(project) else {
            return out;
        };
        let n_rsc = state.n_rsc();
        let mut req_secs: Vec<f64> = (0..n_rsc)
            .map(|r| request.get(r).map_or(0.0, |q| q.req_secs))
            .collect();
        let mut req_inst: Vec<f64> = (0..n_rsc)
            .map(|r| request.get(r).map_or(0.0, |q| q.req_instances))
            .collect();
        let mut delay: Vec<f64> = (0..n_rsc)
            .map(|r| request.get(r).map_or(0.0, |q| q.estimated_delay))
            .collect();
        let mut dont_use = vec![false; p.app_versions.len()];
        let avail = (state.time_stats.on_frac * state.time_stats.active_frac).max(1e-6);
        // Bounded: every sent job lowers some request by a positive amount.
        for _ in 0..100_000 {
            let needs = |v: usize, dont_use: &[bool]| {
                let r = p.app_versions[v].usage.rsc;
                !dont_use[v] && (req_secs[r] > 0.0 || req_inst[r] > 0.0)
            };
            let apps: Vec<&ServerApp> = self
                .apps
                .iter()
                .filter(|app| {
                    (0..p.app_versions.len())
                        .any(|v| p.app_versions[v].app == app.name.as_str() && needs(v, &dont_use))
                })
                .collect();
            if apps.is_empty() {
                break;
            }
            let total: f64 = apps.iter().map(|a| a.weight).sum();
            let mut x = rng.uniform();
            let mut app = apps[apps.len() - 1];
            for candidate in &apps {
                x -= candidate.weight / total;
                if x <= 0.0 {
                    app = candidate;
                    break;
                }
            }
            let mut best: Option<usize> = None;
            for v in 0..p.app_versions.len() {
                if p.app_versions[v].app != app.name.as_str() || !needs(v, &dont_use) {
                    continue;
                }
                if best
                    .is_none_or(|b| p.app_versions[v].usage.flops > p.app_versions[b].usage.flops)
                {
                    best = Some(v);
                }
            }
            let Some(v) = best else { break };
            let usage: ResourceUsage = p.app_versions[v].usage.clone();
            // The emulator's make_job(): the app's job counter advances and
            // the size is drawn (no draw for a fixed size) before the
            // deadline check may discard the job.
            let index = self.next_job;
            self.next_job += 1;
            let draw = if app.fpops_std_dev == 0.0 {
                app.fpops_mean
            } else {
                app.fpops_mean + app.fpops_std_dev * rng.normal()
            }
            .max(0.0);
            let (estimate, true_size) = if app.true_size_drawn {
                (app.fpops_est, draw)
            } else {
                (draw, app.fpops_est)
            };
            let flops = usage.flops.max(1.0);
            let et = estimate / flops;
            if !app.true_size_drawn && delay[usage.rsc] + et > app.latency_bound {
                out.refused.push(Refusal {
                    after_jobs: out.jobs.len(),
                    app: app.name.to_string(),
                    delay: delay[usage.rsc],
                    est: et,
                    bound: app.latency_bound,
                });
                dont_use[v] = true;
                continue;
            }
            let name = format!("{}_{}", self.name, index);
            let mut job = Job::new(&name, project, &app.name, usage.clone(), estimate);
            job.needs_network = p.app_versions[v].needs_network;
            job.received_time = now;
            job.report_deadline = now + app.latency_bound;
            job.exact_flops_remaining = Some(true_size);
            job.index = 0;
            job.index_unset = true;
            let est_runtime = et / avail;
            let mut decrement = |r: RscIdx, n: f64| {
                req_secs[r] -= est_runtime * n;
                req_inst[r] -= n;
                let ninst = state.ninstances(r).max(1) as f64;
                delay[r] += est_runtime * (n / ninst);
            };
            decrement(0, usage.avg_ncpus);
            if usage.rsc != 0 {
                decrement(usage.rsc, usage.coproc_usage);
            }
            out.jobs.push(job);
        }
        out
    }
}

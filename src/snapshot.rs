//! One-shot policy evaluations of a host described in a few numbers: the
//! seeds' worked examples (spec acceptance-scenarios.md S-RR1), where a
//! simulation, a shortfall or a work request is stated for a given set of
//! queued jobs rather than for a run.
//!
//! A [`Snapshot`] lists the CPUs, the buffers and, per project, its share,
//! REC and queued CPU jobs (seconds at full speed). [`evaluate`] runs the
//! chosen generation's round-robin simulation (and, for today's policy, the
//! work-fetch choice and request) once and returns every figure by name, in
//! a stable order, for golden cases to record and check.
//!
//! Architecture Invariant: orchestration only; the numbers come from the
//! policy engines (`policy::rr_sim`/`policy::work_fetch` for today's policy,
//! `policy::debt` for the pre-6.4 one).

use crate::policy::debt::{self, DebtParams, DebtProject, RateRecompute, SimResult};
use crate::policy::generation::Generation;
use crate::policy::state::{Job, ResourceUsage};
use crate::policy::{rr_sim, work_fetch, Params};
use crate::simulate::scenario::from_notation;

/// A project of a snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotProject {
    /// Name.
    pub name: String,
    /// Resource share.
    pub share: f64,
    /// Recent estimated credit (today's policy).
    pub rec: f64,
    /// Queued single-CPU jobs, in arrival order: CPU seconds at full speed.
    pub jobs: Vec<f64>,
}

/// A host and its queue at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The policy generation whose simulation to run.
    pub policy: Generation,
    /// CPUs.
    pub ncpus: usize,
    /// FLOPS of one CPU.
    pub flops: f64,
    /// `work_buf_min` (the seed's `min_queue`), seconds: also the horizon of
    /// the pre-6.4 simulation.
    pub min_buf: f64,
    /// `work_buf_additional`, seconds.
    pub add_buf: f64,
    /// Report deadlines, seconds after now (the same for every job).
    pub deadline: f64,
    /// Projects in order.
    pub projects: Vec<SnapshotProject>,
    /// debt-6.2 only: recompute rates after every event (the seed's reading)
    /// instead of only when a project runs out of results (the 2007 client).
    pub seed_rates: bool,
}

/// Evaluates `snapshot`; `params` are today's policy's parameters.
pub fn evaluate(snapshot: &Snapshot, params: &Params) -> Result<Vec<(String, f64)>, String> {
    let flops_ok = snapshot.flops.is_finite() && snapshot.flops > 0.0;
    if snapshot.ncpus == 0 || !flops_ok || snapshot.projects.is_empty() {
        return Err("a snapshot needs ncpus >= 1, flops > 0 and at least one project".into());
    }
    match snapshot.policy {
        Generation::Current => current(snapshot, params),
        Generation::Debt62 => Ok(debt62(snapshot)),
        Generation::Ltd66 => Err(
            "snapshots evaluate the current and debt-6.2 simulations; ltd-6.6 is not wired in"
                .into(),
        ),
    }
}

/// Today's policy: rr_simulate, then choose_project (spec policy-current §4, §7).
fn current(snapshot: &Snapshot, params: &Params) -> Result<Vec<(String, f64)>, String> {
    const NOW: f64 = 1.0e9;
    let days = |secs: f64| secs / 86400.0;
    let mut notation: String = snapshot
        .projects
        .iter()
        .map(|p| format!("{}(1, 168, {}) ", p.name, p.share))
        .collect();
    notation.push_str(&format!(
        "NCPUS={} f={} min_buf={} add_buf={}",
        snapshot.ncpus,
        snapshot.flops,
        days(snapshot.min_buf),
        days(snapshot.add_buf)
    ));
    let mut state = from_notation(&notation)
        .map_err(|err| err.to_string())?
        .state;
    let mut n_job = 0;
    for (p_idx, project) in snapshot.projects.iter().enumerate() {
        let state_project = &mut state.projects[p_idx];
        state_project.rec = project.rec;
        state_project.rec_time = NOW;
        let app = state_project
            .apps
            .first()
            .map(|app| app.name.to_string())
            .unwrap_or_default();
        for (j, secs) in project.jobs.iter().enumerate() {
            let mut job = Job::new(
                &format!("{}{}", project.name, j + 1),
                p_idx,
                &app,
                ResourceUsage::cpu(1.0, snapshot.flops),
                secs * snapshot.flops,
            );
            job.received_time = NOW - 1000.0 + n_job as f64;
            job.report_deadline = NOW + snapshot.deadline;
            job.index = n_job;
            n_job += 1;
            state.jobs.push(job);
        }
    }
    let sim = rr_sim::rr_simulate(&mut state, NOW, params).map_err(|err| err.to_string())?;
    let cpu = sim.rsc.first().cloned().unwrap_or_default();
    let mut out = vec![
        ("shortfall CPU".to_string(), cpu.shortfall),
        ("saturated_time CPU".to_string(), cpu.saturated_time),
        ("nidle_now CPU".to_string(), cpu.nidle_now),
        ("busy_time CPU".to_string(), cpu.busy_time),
        (
            "deadline_misses".to_string(),
            sim.misses_deadline.iter().filter(|m| **m).count() as f64,
        ),
    ];
    for finish in &sim.finishes {
        let name = state.jobs.get(finish.job).map(|j| j.name.to_string());
        out.push((
            format!("finish {}", name.unwrap_or_default()),
            finish.reltime,
        ));
    }
    let fetch = work_fetch::choose_project(&mut state, NOW, Some(sim), params)
        .map_err(|err| err.to_string())?;
    for (p_idx, project) in snapshot.projects.iter().enumerate() {
        out.push((
            format!("chosen {}", project.name),
            f64::from(u8::from(fetch.chosen == Some(p_idx))),
        ));
    }
    let request = fetch.request.first().cloned().unwrap_or_default();
    out.push(("req_secs CPU".to_string(), request.req_secs));
    out.push(("req_instances CPU".to_string(), request.req_instances));
    out.push(("estimated_delay CPU".to_string(), request.estimated_delay));
    Ok(out)
}

/// The pre-6.4 simulation (spec policy-legacy A.5) over `[now, now + min_buf]`.
fn debt62(snapshot: &Snapshot) -> Vec<(String, f64)> {
    let projects: Vec<DebtProject> = snapshot
        .projects
        .iter()
        .map(|p| DebtProject {
            share: p.share,
            runnable: !p.jobs.is_empty(),
            nearly_runnable: !p.jobs.is_empty(),
            potentially_runnable: true,
            contactable: true,
            ..DebtProject::default()
        })
        .collect();
    let results: Vec<SimResult> = snapshot
        .projects
        .iter()
        .enumerate()
        .flat_map(|(p_idx, p)| {
            p.jobs.iter().map(move |secs| SimResult {
                project: p_idx,
                cpu_left: *secs,
                computation_deadline: snapshot.deadline,
                too_large: false,
            })
        })
        .collect();
    let params = DebtParams {
        rate_recompute: if snapshot.seed_rates {
            RateRecompute::EveryEvent
        } else {
            RateRecompute::WhenProjectExhausted
        },
        ..DebtParams::default()
    };
    let sim = debt::rr_simulation(
        &projects,
        &results,
        snapshot.ncpus,
        1.0,
        snapshot.min_buf,
        0.0,
        &params,
    );
    let mut out: Vec<(String, f64)> = snapshot
        .projects
        .iter()
        .zip(&sim.shortfall)
        .map(|(p, shortfall)| (format!("shortfall {}", p.name), *shortfall))
        .collect();
    out.push(("total_shortfall".to_string(), sim.total_shortfall));
    out
}

//! The Part A engine proper; see the parent module.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

/// Constants of the 2007-02 client.
#[derive(Clone, Debug, PartialEq)]
pub struct DebtParams {
    /// `MAX_DEBT`: STD clamp (1 day).
    pub max_debt: f64,
    /// `CPU_PESSIMISM_FACTOR` of the simulation's deadline test.
    pub cpu_pessimism: f64,
    /// `work_request_factor` config option.
    pub work_request_factor: f64,
    /// STD normalisation: client (mean 0, clamp) or seed (min 0, max 1 day).
    pub std_normalisation: StdNormalisation,
    /// When the simulation recomputes rates.
    pub rate_recompute: RateRecompute,
    /// Anticipated-debt decrement per scheduled result.
    pub anticipated_decrement: AnticipatedDecrement,
}

impl Default for DebtParams {
    fn default() -> Self {
        DebtParams {
            max_debt: 86400.0,
            cpu_pessimism: 0.9,
            work_request_factor: 1.0,
            std_normalisation: StdNormalisation::MeanZeroClamp,
            rate_recompute: RateRecompute::WhenProjectExhausted,
            anticipated_decrement: AnticipatedDecrement::OneMinusShareFraction,
        }
    }
}

/// How STD is normalised after an update (A.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdNormalisation {
    /// [CODE 2007-02] mean 0 over runnable projects, clamp to ±`max_debt`.
    MeanZeroClamp,
    /// [SEED] minimum 0, maximum ≤ `max_debt`.
    MinZero,
}

/// When the simulation recomputes processing rates (A.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateRecompute {
    /// [CODE 2007-02] only when a project runs out of results.
    WhenProjectExhausted,
    /// [SEED] after every event (the seed's example timeline needs this).
    EveryEvent,
}

/// Anticipated-debt decrement per scheduled result (A.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnticipatedDecrement {
    /// [SEED] `scheduling_period / NCPUS`.
    PeriodOverNcpus,
    /// [CODE 2007-02] `(1 − share/rrs) × scheduling_period`.
    OneMinusShareFraction,
    /// [CODE 2008-12] `(share/rrs) × scheduling_period`.
    ShareFraction,
}

/// A project as the Part A policy sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DebtProject {
    /// Resource share.
    pub share: f64,
    /// Has a runnable result.
    pub runnable: bool,
    /// Has a nearly runnable result (runnable or downloading).
    pub nearly_runnable: bool,
    /// Potentially runnable: runnable, contactable or downloading (A.3, code).
    pub potentially_runnable: bool,
    /// Contactable: not suspended, no master fetch, not deferred, no no-new-work.
    pub contactable: bool,
    /// Suspended via the GUI.
    pub suspended: bool,
    /// Non-CPU-intensive.
    pub non_cpu_intensive: bool,
    /// A download is stalled.
    pub download_stalled: bool,
    /// A result is suspended.
    pub result_suspended: bool,
    /// Results uploading.
    pub n_uploading: u32,
    /// Short-term debt.
    pub std: f64,
    /// Long-term debt.
    pub ltd: f64,
}

/// Mirrors TIME_STATS::update_cpu_efficiency() (client/time_stats.C, 2007-02):
/// `w = exp(−wall/86400)`, `eff = w·eff + (1−w)·cpu/wall`.
pub fn update_cpu_efficiency(efficiency: f64, cpu_secs: f64, wall_secs: f64) -> f64 {
    if wall_secs <= 0.0 || !wall_secs.is_finite() {
        return efficiency;
    }
    let w = (-wall_secs / 86400.0).exp();
    w * efficiency + (1.0 - w) * cpu_secs / wall_secs
}

/// Mirrors CLIENT_STATE::overall_cpu_frac() of 2007-02:
/// `clamp(on × active × cpu_efficiency, 0.01, 1)`.
pub fn overall_cpu_frac(on_frac: f64, active_frac: f64, cpu_efficiency: f64) -> f64 {
    let x = on_frac * active_frac * cpu_efficiency;
    if x.is_nan() {
        1.0
    } else {
        x.clamp(0.01, 1.0)
    }
}

/// The seed's conversion of a request (A.2): the FLOPS one CPU is expected
/// to deliver to a project: `f × share_frac × on_frac × active_frac`.
pub fn expected_project_flops_per_cpu(
    f: f64,
    share_frac: f64,
    on_frac: f64,
    active_frac: f64,
) -> f64 {
    f * share_frac * on_frac * active_frac
}

/// What one debt update did.
#[derive(Clone, Debug, PartialEq)]
pub struct DebtAdjustment {
    /// STD of every project after the update, in project order.
    pub std: Vec<f64>,
    /// LTD of every project after the update.
    pub ltd: Vec<f64>,
    /// Wall CPU time of the period (`A`), over CPU-intensive projects.
    pub total_used: f64,
}

/// Mirrors CLIENT_STATE::adjust_debts() of 2007-02 (client/cpu_sched.C;
/// A.4). `used[p]` is the wall CPU time of P's scheduled tasks over the
/// period. The period test (skip under 1 s, [CODE 2008-12] discard above
/// 2 × scheduling period) is the caller's: pass only periods to credit.
/// STD set = runnable projects (others forced to 0); LTD set = potentially
/// runnable projects plus any that used CPU; LTD normalised to mean 0 over
/// all CPU-intensive projects.
pub fn adjust_debts(projects: &[DebtProject], used: &[f64], params: &DebtParams) -> DebtAdjustment {
    let ci = |p: &DebtProject| !p.non_cpu_intensive;
    let used_of = |i: usize| used.get(i).copied().unwrap_or(0.0);
    let total_used: f64 = projects
        .iter()
        .enumerate()
        .filter(|(_, p)| ci(p))
        .map(|(i, _)| used_of(i))
        .fold(0.0, |a, b| a + b);
    let in_ltd = |i: usize, p: &DebtProject| ci(p) && (p.potentially_runnable || used_of(i) > 0.0);
    let ltd_share: f64 = projects
        .iter()
        .enumerate()
        .filter(|(i, p)| in_ltd(*i, p))
        .map(|(_, p)| p.share)
        .fold(0.0, |a, b| a + b);
    let std_share: f64 = projects
        .iter()
        .filter(|p| ci(p) && p.runnable)
        .map(|p| p.share)
        .fold(0.0, |a, b| a + b);
    let mut ltd: Vec<f64> = projects.iter().map(|p| p.ltd).collect();
    let mut std: Vec<f64> = projects.iter().map(|p| p.std).collect();
    for (i, p) in projects.iter().enumerate() {
        if in_ltd(i, p) && ltd_share > 0.0 {
            if let Some(x) = ltd.get_mut(i) {
                *x += total_used * p.share / ltd_share - used_of(i);
            }
        }
        if let Some(x) = std.get_mut(i) {
            if ci(p) && p.runnable && std_share > 0.0 {
                *x += total_used * p.share / std_share - used_of(i);
            } else if ci(p) {
                *x = 0.0;
            }
        }
    }
    // LTD: mean 0 over all CPU-intensive projects.
    let n_ci = projects.iter().filter(|p| ci(p)).count();
    if n_ci > 0 {
        let mean = projects
            .iter()
            .zip(&ltd)
            .filter(|(p, _)| ci(p))
            .map(|(_, x)| *x)
            .fold(0.0, |a, b| a + b)
            / n_ci as f64;
        for (p, x) in projects.iter().zip(ltd.iter_mut()) {
            if ci(p) {
                *x -= mean;
            }
        }
    }
    let runnable: Vec<bool> = projects.iter().map(|p| ci(p) && p.runnable).collect();
    let n_runnable = runnable.iter().filter(|r| **r).count();
    if n_runnable > 0 {
        match params.std_normalisation {
            StdNormalisation::MeanZeroClamp => {
                let mean = std
                    .iter()
                    .zip(&runnable)
                    .filter(|(_, r)| **r)
                    .map(|(x, _)| *x)
                    .fold(0.0, |a, b| a + b)
                    / n_runnable as f64;
                for (x, r) in std.iter_mut().zip(&runnable) {
                    if *r {
                        *x = (*x - mean).clamp(-params.max_debt, params.max_debt);
                    }
                }
            }
            StdNormalisation::MinZero => {
                let min = std
                    .iter()
                    .zip(&runnable)
                    .filter(|(_, r)| **r)
                    .map(|(x, _)| *x)
                    .fold(f64::INFINITY, f64::min);
                for (x, r) in std.iter_mut().zip(&runnable) {
                    if *r {
                        *x = (*x - min).min(params.max_debt);
                    }
                }
            }
        }
    }
    DebtAdjustment {
        std,
        ltd,
        total_used,
    }
}

/// A result as the 2007 simulation sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    /// Its project (index into the project slice).
    pub project: usize,
    /// DCF-corrected CPU seconds left.
    pub cpu_left: f64,
    /// `report_deadline − (min_queue + scheduling_period + 86400)`.
    pub computation_deadline: f64,
    /// The task does not fit in RAM now (a miss is then not counted).
    pub too_large: bool,
}

/// Results of the 2007 simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct RrSim {
    /// Idle CPU-seconds over `[now, now + min_queue]`.
    pub total_shortfall: f64,
    /// Per project shortfall.
    pub shortfall: Vec<f64>,
    /// Per project miss count.
    pub deadlines_missed: Vec<u32>,
    /// Per result miss flag.
    pub missed: Vec<bool>,
}

/// Mirrors CLIENT_STATE::rr_simulation() of 2007-02 (client/cpu_sched.C;
/// A.5). `results` are the included results (nearly runnable, no stalled
/// download, CPU-intensive) in result order; `horizon` is `work_buf_min`.
pub fn rr_simulation(
    projects: &[DebtProject],
    results: &[SimResult],
    ncpus: usize,
    cpu_frac: f64,
    horizon: f64,
    now: f64,
    params: &DebtParams,
) -> RrSim {
    let n = projects.len();
    let ncpus_f = ncpus as f64;
    let share = |p: usize| projects.get(p).map_or(0.0, |x| x.share);
    let trs: f64 = projects
        .iter()
        .filter(|p| !p.non_cpu_intensive)
        .map(|p| p.share)
        .fold(0.0, |a, b| a + b);
    let mut rrs: f64 = projects
        .iter()
        .filter(|p| !p.non_cpu_intensive && p.nearly_runnable)
        .map(|p| p.share)
        .fold(0.0, |a, b| a + b);
    let mut out = RrSim {
        total_shortfall: 0.0,
        shortfall: vec![0.0; n],
        deadlines_missed: vec![0; n],
        missed: vec![false; results.len()],
    };
    let mut left: Vec<f64> = results.iter().map(|r| r.cpu_left).collect();
    let mut active: Vec<usize> = Vec::new();
    let mut p_active: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut p_pending: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, r) in results.iter().enumerate() {
        if let (Some(a), Some(q)) = (p_active.get_mut(r.project), p_pending.get_mut(r.project)) {
            if a.len() < ncpus {
                a.push(i);
                active.push(i);
            } else {
                q.push(i);
            }
        }
    }
    let proc_rate = |p: usize, rrs: f64, n_active: usize| {
        let mut x = if rrs > 0.0 { share(p) / rrs } else { 1.0 };
        if n_active > 0 && n_active < ncpus {
            x *= ncpus_f / n_active as f64;
        }
        x.min(1.0) * cpu_frac
    };
    let mut rate: Vec<f64> = (0..n)
        .map(|p| proc_rate(p, rrs, p_active.get(p).map_or(0, Vec::len)))
        .collect();
    for (p, project) in projects.iter().enumerate() {
        if !project.non_cpu_intensive && p_active.get(p).is_some_and(Vec::is_empty) {
            let rsf = if trs > 0.0 { project.share / trs } else { 1.0 };
            if let Some(s) = out.shortfall.get_mut(p) {
                *s = horizon * cpu_frac * ncpus_f * rsf;
            }
        }
    }
    let buf_end = now + horizon;
    let mut sim_now = now;
    while !active.is_empty() {
        let mut best: Option<(usize, f64)> = None;
        for &i in &active {
            let Some(r) = results.get(i) else { continue };
            let pr = rate.get(r.project).copied().unwrap_or(0.0);
            let d = if pr > 0.0 {
                left.get(i).copied().unwrap_or(0.0) / pr
            } else {
                f64::INFINITY
            };
            if best.is_none_or(|(_, bd)| d < bd) {
                best = Some((i, d));
            }
        }
        let Some((bi, delay)) = best else { break };
        let Some(br) = results.get(bi) else { break };
        if !delay.is_finite() {
            break;
        }
        let pb = br.project;
        let deadline_line = (br.computation_deadline - now) * params.cpu_pessimism + now;
        if sim_now + delay - deadline_line > 0.0 && !br.too_large {
            if let Some(m) = out.missed.get_mut(bi) {
                *m = true;
            }
            if let Some(c) = out.deadlines_missed.get_mut(pb) {
                *c += 1;
            }
        }
        let last_active = active.len();
        let last_proj_active = p_active.get(pb).map_or(0, Vec::len);
        for &i in &active {
            if i == bi {
                continue;
            }
            let pr = results
                .get(i)
                .and_then(|r| rate.get(r.project))
                .copied()
                .unwrap_or(0.0);
            if let Some(l) = left.get_mut(i) {
                *l -= pr * delay;
            }
        }
        active.retain(|&i| i != bi);
        if let Some(a) = p_active.get_mut(pb) {
            a.retain(|&i| i != bi);
        }
        if let Some(next) = p_pending
            .get_mut(pb)
            .and_then(|q| (!q.is_empty()).then(|| q.remove(0)))
        {
            active.push(next);
            if let Some(a) = p_active.get_mut(pb) {
                a.push(next);
            }
        }
        let exhausted = p_active.get(pb).is_some_and(Vec::is_empty);
        if exhausted {
            rrs -= share(pb);
        }
        if exhausted || params.rate_recompute == RateRecompute::EveryEvent {
            for (p, r) in rate.iter_mut().enumerate() {
                *r = proc_rate(p, rrs, p_active.get(p).map_or(0, Vec::len));
            }
        }
        if sim_now < buf_end {
            let end_time = (sim_now + delay).min(buf_end);
            let d_time = end_time - sim_now;
            let idle = ncpus.saturating_sub(last_active) as f64;
            out.total_shortfall += d_time * idle;
            let rsf = if trs > 0.0 { share(pb) / trs } else { 1.0 };
            let proj_cpu_share = ncpus_f * rsf;
            if let Some(s) = out.shortfall.get_mut(pb) {
                if (last_proj_active as f64) < proj_cpu_share {
                    *s += d_time * (proj_cpu_share - last_proj_active as f64);
                }
                if end_time < buf_end && exhausted {
                    *s += (buf_end - end_time) * proj_cpu_share;
                }
            }
        }
        sim_now += delay;
    }
    if sim_now < buf_end {
        out.total_shortfall += (buf_end - sim_now) * ncpus_f;
    }
    out
}

/// A result the scheduler may pick.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Its project.
    pub project: usize,
    /// Report deadline.
    pub report_deadline: f64,
    /// Runnable now.
    pub runnable: bool,
    /// Its task: `None` = no task; else (running, has process).
    pub task: Option<(bool, bool)>,
}

/// Why a result was scheduled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScheduleReason {
    /// EDF: its project has simulated deadline misses.
    Edf,
    /// Largest anticipated debt (the value when picked).
    Debt(f64),
}

/// Mirrors CLIENT_STATE::schedule_cpus() of 2007-02 (A.6): EDF among
/// projects with misses, then the project with the largest anticipated debt
/// (first in list on ties), its best result (running > preempted with
/// process > task without process > no task, first in result order).
/// Returns (result index, reason) in pick order.
pub fn schedule_cpus(
    projects: &[DebtProject],
    candidates: &[Candidate],
    deadlines_missed: &[u32],
    ncpus: usize,
    scheduling_period: f64,
    params: &DebtParams,
) -> Vec<(usize, ScheduleReason)> {
    let mut anticipated: Vec<f64> = projects.iter().map(|p| p.std).collect();
    let mut misses: Vec<u32> = (0..projects.len())
        .map(|p| deadlines_missed.get(p).copied().unwrap_or(0))
        .collect();
    let rrs: f64 = projects
        .iter()
        .filter(|p| !p.non_cpu_intensive && p.nearly_runnable)
        .map(|p| p.share)
        .fold(0.0, |a, b| a + b);
    let decrement = |p: usize| {
        let frac = if rrs > 0.0 {
            projects.get(p).map_or(0.0, |x| x.share) / rrs
        } else {
            1.0
        };
        match params.anticipated_decrement {
            AnticipatedDecrement::PeriodOverNcpus => scheduling_period / ncpus.max(1) as f64,
            AnticipatedDecrement::OneMinusShareFraction => (1.0 - frac) * scheduling_period,
            AnticipatedDecrement::ShareFraction => frac * scheduling_period,
        }
    };
    let mut taken = vec![false; candidates.len()];
    let mut picks = Vec::new();
    let usable = |i: usize, c: &Candidate, taken: &Vec<bool>| {
        c.runnable
            && !taken.get(i).copied().unwrap_or(true)
            && projects
                .get(c.project)
                .is_some_and(|p| !p.non_cpu_intensive)
    };
    while picks.len() < ncpus {
        let mut best: Option<usize> = None;
        for (i, c) in candidates.iter().enumerate() {
            if !usable(i, c, &taken) || misses.get(c.project).copied().unwrap_or(0) == 0 {
                continue;
            }
            if best
                .and_then(|b| candidates.get(b))
                .is_none_or(|b| c.report_deadline < b.report_deadline)
            {
                best = Some(i);
            }
        }
        let Some(i) = best else { break };
        let p = candidates.get(i).map_or(0, |c| c.project);
        if let Some(t) = taken.get_mut(i) {
            *t = true;
        }
        if let Some(m) = misses.get_mut(p) {
            *m -= 1;
        }
        if let Some(a) = anticipated.get_mut(p) {
            *a -= decrement(p);
        }
        picks.push((i, ScheduleReason::Edf));
    }
    let rank = |c: &Candidate| match c.task {
        Some((true, _)) => 0,
        Some((false, true)) => 1,
        Some((false, false)) => 2,
        None => 3,
    };
    while picks.len() < ncpus {
        let mut best_project: Option<(usize, f64)> = None;
        for (p, project) in projects.iter().enumerate() {
            if project.non_cpu_intensive {
                continue;
            }
            let has = candidates
                .iter()
                .enumerate()
                .any(|(i, c)| c.project == p && usable(i, c, &taken));
            let a = anticipated.get(p).copied().unwrap_or(0.0);
            if has && best_project.is_none_or(|(_, b)| a > b) {
                best_project = Some((p, a));
            }
        }
        let Some((p, debt)) = best_project else { break };
        let mut best: Option<usize> = None;
        for (i, c) in candidates.iter().enumerate() {
            if c.project != p || !usable(i, c, &taken) {
                continue;
            }
            if best
                .and_then(|b| candidates.get(b))
                .is_none_or(|b| rank(c) < rank(b))
            {
                best = Some(i);
            }
        }
        let Some(i) = best else { break };
        if let Some(t) = taken.get_mut(i) {
            *t = true;
        }
        if let Some(a) = anticipated.get_mut(p) {
            *a -= decrement(p);
        }
        picks.push((i, ScheduleReason::Debt(debt)));
    }
    picks
}

/// A running task as enforcement sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunningTask {
    /// Candidate index of its result.
    pub result: usize,
    /// Its project has simulated deadline misses.
    pub project_misses: bool,
    /// Report deadline.
    pub report_deadline: f64,
    /// Seconds run in the current episode.
    pub episode_secs: f64,
    /// Seconds since its last checkpoint.
    pub since_checkpoint: f64,
}

/// Mirrors the preemptability order of CLIENT_STATE::enforce_schedule() of
/// 2007-02 (A.7): true if `a` is more preemptable than `b`.
pub fn more_preemptable(a: &RunningTask, b: &RunningTask) -> bool {
    if a.project_misses != b.project_misses {
        return !a.project_misses;
    }
    if a.project_misses {
        return a.report_deadline > b.report_deadline;
    }
    if a.episode_secs != b.episode_secs {
        return a.episode_secs > b.episode_secs;
    }
    a.report_deadline > b.report_deadline
}

/// What enforcement does.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Enforcement {
    /// Candidate indices to preempt.
    pub preempt: Vec<usize>,
    /// Candidate indices to start or resume.
    pub start: Vec<usize>,
}

/// Mirrors CLIENT_STATE::enforce_schedule() of 2007-02 (A.7, without RAM
/// checks): excess running tasks are preempted most-preemptable first; each
/// scheduled result not running takes a free CPU, or preempts the most
/// preemptable running task if its project has misses, or if that task ran
/// longer than the period and checkpointed within the last 10 s.
pub fn enforce_schedule(
    scheduled: &[usize],
    running: &[RunningTask],
    project_misses: impl Fn(usize) -> bool,
    ncpus: usize,
    scheduling_period: f64,
) -> Enforcement {
    let mut out = Enforcement::default();
    let mut heap: Vec<RunningTask> = running.to_vec();
    let pop_most = |heap: &mut Vec<RunningTask>| -> Option<RunningTask> {
        let mut best: Option<usize> = None;
        for (i, t) in heap.iter().enumerate() {
            if best
                .and_then(|b| heap.get(b))
                .is_none_or(|b| more_preemptable(t, b))
            {
                best = Some(i);
            }
        }
        best.map(|i| heap.remove(i))
    };
    while heap.len() > ncpus {
        match pop_most(&mut heap) {
            Some(t) => out.preempt.push(t.result),
            None => break,
        }
    }
    for &r in scheduled {
        if heap.iter().any(|t| t.result == r) {
            continue;
        }
        if heap.len() < ncpus {
            out.start.push(r);
            heap.push(RunningTask {
                result: r,
                project_misses: project_misses(r),
                report_deadline: f64::MAX,
                episode_secs: 0.0,
                since_checkpoint: 0.0,
            });
            continue;
        }
        let Some(victim_pos) =
            (0..heap.len()).fold(None, |best: Option<usize>, i| match (best, heap.get(i)) {
                (None, Some(_)) => Some(i),
                (Some(b), Some(t)) if heap.get(b).is_some_and(|bt| more_preemptable(t, bt)) => {
                    Some(i)
                }
                (b, _) => b,
            })
        else {
            continue;
        };
        let ok = heap.get(victim_pos).is_some_and(|v| {
            project_misses(r) || (v.episode_secs > scheduling_period && v.since_checkpoint < 10.0)
        });
        if ok {
            let victim = heap.remove(victim_pos);
            out.preempt.push(victim.result);
            out.start.push(r);
            heap.push(RunningTask {
                result: r,
                project_misses: project_misses(r),
                report_deadline: f64::MAX,
                episode_secs: 0.0,
                since_checkpoint: 0.0,
            });
        }
    }
    out
}

/// Overall urgency of a work-fetch pass (A.8, code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Urgency {
    /// No work needed.
    DontNeed,
    /// Queue is fine.
    Ok,
    /// There is a shortfall.
    Need,
    /// Fewer nearly-runnable results than CPUs.
    NeedImmediately,
}

/// A chosen work request (A.8, code).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkRequest2007 {
    /// The project.
    pub project: usize,
    /// `work_req_seconds`.
    pub work_req_seconds: f64,
    /// Overall urgency.
    pub urgency: Urgency,
}

/// Mirrors CLIENT_STATE::compute_work_requests() and
/// next_project_need_work() of 2007-02 (A.8): overall urgency, candidate
/// filter, preference (no misses > misses, not overworked > overworked,
/// larger LTD + shortfall, later wins ties) and the request size
/// `max(shortfall(P), total × share/prrs) × work_request_factor`.
/// `n_nearly_runnable_results` counts CPU results.
#[allow(clippy::too_many_arguments)]
pub fn compute_work_request(
    projects: &[DebtProject],
    sim: &RrSim,
    n_nearly_runnable_results: usize,
    ncpus: usize,
    scheduling_period: f64,
    params: &DebtParams,
) -> Option<WorkRequest2007> {
    let overworked = |p: &DebtProject| p.ltd < -scheduling_period;
    let misses = |i: usize| sim.deadlines_missed.get(i).copied().unwrap_or(0) > 0;
    let shortfall = |i: usize| sim.shortfall.get(i).copied().unwrap_or(0.0);
    let any_miss = (0..projects.len()).any(misses);
    let some_fine = projects
        .iter()
        .enumerate()
        .any(|(i, p)| shortfall(i) > 0.0 && !overworked(p));
    let urgency = if sim.total_shortfall <= 0.0 && (any_miss || !some_fine) {
        Urgency::DontNeed
    } else if n_nearly_runnable_results < ncpus {
        Urgency::NeedImmediately
    } else if sim.total_shortfall > 0.0 {
        Urgency::Need
    } else {
        Urgency::Ok
    };
    if urgency == Urgency::DontNeed {
        return None;
    }
    let prrs: f64 = projects
        .iter()
        .filter(|p| !p.non_cpu_intensive && p.potentially_runnable)
        .map(|p| p.share)
        .fold(0.0, |a, b| a + b);
    let mut best: Option<usize> = None;
    for (i, p) in projects.iter().enumerate() {
        if p.non_cpu_intensive
            || !p.contactable
            || p.download_stalled
            || p.result_suspended
            || p.n_uploading as usize > 2 * ncpus
        {
            continue;
        }
        if misses(i) && urgency != Urgency::NeedImmediately {
            continue;
        }
        if urgency < Urgency::Need && (overworked(p) || shortfall(i) <= 0.0) {
            continue;
        }
        let better = match best.and_then(|b| projects.get(b).map(|bp| (b, bp))) {
            None => true,
            Some((b, bp)) => {
                if misses(b) != misses(i) {
                    misses(b)
                } else if overworked(bp) != overworked(p) {
                    overworked(bp)
                } else {
                    p.ltd + shortfall(i) >= bp.ltd + shortfall(b)
                }
            }
        };
        if better {
            best = Some(i);
        }
    }
    let p = best?;
    let share = projects.get(p).map_or(0.0, |x| x.share);
    let frac = if prrs > 0.0 { share / prrs } else { 1.0 };
    let secs = shortfall(p).max(sim.total_shortfall * frac) * params.work_request_factor;
    Some(WorkRequest2007 {
        project: p,
        work_req_seconds: secs,
        urgency,
    })
}

/// The seed's `work_request_size` (A.8, [SEED], with its lost `else` lines
/// restored): per project, in normalized CPU seconds. `fetchable_blocked[p]`
/// = suspended, deferred or no-new-work.
pub fn work_request_sizes(
    projects: &[DebtProject],
    sim: &RrSim,
    fetchable_blocked: &[bool],
    scheduling_period: f64,
) -> Vec<f64> {
    let blocked = |i: usize| fetchable_blocked.get(i).copied().unwrap_or(true);
    let overworked = |p: &DebtProject| p.ltd < -scheduling_period;
    let mut size: Vec<f64> = projects
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.non_cpu_intensive || blocked(i) || overworked(p) {
                0.0
            } else {
                sim.shortfall.get(i).copied().unwrap_or(0.0)
            }
        })
        .collect();
    let all_zero = |s: &Vec<f64>| s.iter().all(|x| *x == 0.0);
    if sim.total_shortfall > 0.0 && all_zero(&size) {
        for (i, p) in projects.iter().enumerate() {
            if !p.non_cpu_intensive && !blocked(i) && !overworked(p) {
                if let Some(s) = size.get_mut(i) {
                    *s = 1.0;
                }
            }
        }
    }
    if all_zero(&size) {
        for (i, p) in projects.iter().enumerate() {
            if !p.non_cpu_intensive && !blocked(i) {
                if let Some(s) = size.get_mut(i) {
                    *s = 1.0;
                }
            }
        }
    }
    let positive_share: f64 = projects
        .iter()
        .zip(&size)
        .filter(|(p, s)| **s > 0.0 && !p.non_cpu_intensive)
        .map(|(p, _)| p.share)
        .fold(0.0, |a, b| a + b);
    if positive_share > 0.0 && sim.total_shortfall > 0.0 {
        for (p, s) in projects.iter().zip(size.iter_mut()) {
            if *s > 0.0 && !p.non_cpu_intensive {
                *s = sim.total_shortfall * p.share / positive_share;
            }
        }
    }
    for (p, s) in projects.iter().zip(size.iter_mut()) {
        if p.non_cpu_intensive {
            *s = if p.nearly_runnable { 0.0 } else { 1.0 };
        }
    }
    size
}

//! A real client's run list made again by the client loop
//! (spec/policy-current.md §6.2: client/cpu_sched.cpp `make_run_list`)
//! over the host its log tells at the scheduling pass, and judged within
//! what the record's printed digits leave open.
//!
//! The host is the one the pass's own simulation tells
//! ([`super::rrsim_replay`]: its jobs in the client's order, their FLOPs
//! left, rates and CPU use, their deadlines, the max_concurrent limits),
//! with what a run list adds ([`super::joblog::hosts_at`]):
//! - which of those jobs have their files in (only those are runnable),
//!   and the tasks, their process states and whether the last enforcement
//!   scheduled them, in the client's active-task order;
//! - the projects' priorities as the pass printed them (`[prio]`, six
//!   decimals) with their resource-share fractions: the run list starts
//!   from them ([`HostState::given_priorities`]);
//! - the peak-FLOPS total the priority step divides by: the CPUs this
//!   process counted first (the client computes it once).
//!
//! The loop then makes the pass's simulation and run list by the engine's
//! code ([`crate::client_loop::ClientLoop::run_moments`] with
//! [`Decide::RunList`]). What the digits leave open is derived, never tuned: each printed priority is
//! known to half a unit of its sixth decimal, and each step lowering it
//! carries the printed resource-share fraction's half unit; each runtime
//! left to the printed FLOPs and rate. A pick the engine made by a margin
//! inside those uncertainties is a tie the record does not decide, and the
//! pass is not checked. The EDF part counts down the deadline misses the
//! pass's simulation printed ([`HostState::given_cpu_misses`]).
//!
//! Architecture Invariant: pure; reads events and recorded points, and
//! runs the client loop on the host built from them.

use super::decision::RunListEntry;
use super::enforce_replay::{self, EnforcePass, PassEnforcement, Taken};
use super::joblog::{HostView, JobFacts, PassHost, Recomputed};
use super::recorded::RecordedPoint;
use super::rrsim_replay::{self, Moment};
use crate::client_loop::{self, anchored::Decide};
use crate::policy::cpu_sched::{EnforceOutcome, PickMargin, RunListOutcome, RunListPhase};
use crate::policy::state::{
    GivenPriorities, HostState, Job, JobState, ProjectPrio, ResourceUsage, SchedulerState, Task,
    TaskState,
};
use crate::policy::Params;
use crate::trace::event::LogEvent;
use crate::trace::message::TaskState as LoggedTaskState;
use std::collections::{BTreeMap, HashMap};

/// Half a unit of a printed priority or resource-share fraction (`%f`).
const PRINTED_HALF_UNIT: f64 = 0.5e-6;

/// The scheduling passes from `from` on made again: each run list and
/// each enforcement (keyed by their lines).
#[derive(Debug, Default)]
pub struct Remade {
    /// Each recorded run list made again, or why it could not be.
    pub run_lists: BTreeMap<usize, Recomputed>,
    /// Each recorded enforcement that follows a run list.
    pub enforcements: BTreeMap<usize, PassEnforcement>,
}

/// Each recorded scheduling pass from `from` on made again over the host
/// the window's lines tell at it (`hosts`: [`super::joblog::hosts_at`]).
pub fn remake_from(
    events: &[LogEvent],
    points: &[RecordedPoint],
    facts: &JobFacts,
    hosts: BTreeMap<usize, Result<PassHost, String>>,
    params: &Params,
    from: usize,
) -> Remade {
    let mut passes = enforce_replay::passes(events, points, from);
    let lines: Vec<usize> = hosts.keys().copied().collect();
    let mut moments: Vec<Result<ListMoment, String>> = hosts
        .into_iter()
        .map(|(idx, host)| {
            let pass = passes.remove(&idx);
            host.and_then(|h| {
                list_moment(events, facts, h, pass, params.zero_share_priority_offset)
            })
        })
        .collect();
    let made = run_loop(&mut moments, params);
    let mut out = Remade::default();
    for ((idx, moment), made) in lines.into_iter().zip(moments).zip(made) {
        let moment = match moment {
            Ok(moment) => moment,
            Err(why) => {
                out.run_lists.insert(idx, Err(why));
                continue;
            }
        };
        let (listed, enforced) = match made {
            Ok(made) => made,
            Err(why) => {
                if let Some(pass) = &moment.enforce {
                    out.enforcements
                        .insert(pass.0.idx, PassEnforcement::NotMade(why.clone()));
                }
                out.run_lists.insert(idx, Err(why));
                continue;
            }
        };
        let judged = judge(&moment, &listed.0, &listed.1, facts);
        if let Some((pass, taken)) = &moment.enforce {
            let enforcement = match (&judged, taken) {
                (Err(why), _) => PassEnforcement::NotMade(format!(
                    "it rests on the pass's run list, which the record leaves open: {why}"
                )),
                (Ok(_), Err(why)) => PassEnforcement::NotMade(why.clone()),
                (Ok(_), Ok(taken)) => PassEnforcement::Made(enforce_replay::judge(
                    taken,
                    &enforced.0,
                    &listed.1,
                    &enforced.1,
                )),
            };
            out.enforcements.insert(pass.idx, enforcement);
        }
        out.run_lists.insert(idx, judged);
    }
    out
}

/// A pass's moment: its simulation's host and the pass as printed.
struct ListMoment {
    sim: Moment,
    host: PassHost,
    /// Jobs of one deadline whose runtime left ties as printed.
    ties: Vec<String>,
    /// The pass's enforcement and what its inputs took from the record, or
    /// why the loop cannot make it.
    enforce: Option<(EnforcePass, Result<Taken, String>)>,
}

fn list_moment(
    events: &[LogEvent],
    facts: &JobFacts,
    host: PassHost,
    pass: Option<EnforcePass>,
    zero_share_offset: f64,
) -> Result<ListMoment, String> {
    let mut sim = rrsim_replay::prepare(events, host.sim_start, &host.view, facts)?;
    if sim.ncpus != host.ncpus {
        return Err(format!(
            "the pass's simulation ran on {} usable CPUs by the log's lines, its run list on {}",
            sim.ncpus, host.ncpus
        ));
    }
    let Some(state) = sim.state.as_mut() else {
        return Err("the pass's host was taken".into());
    };
    state.total_peak_flops_cached = Some(f64::from(host.step_ncpus) * state.host.p_fpops);
    for job in &mut state.jobs {
        if !host.downloaded.contains(job.name.as_str()) {
            job.state = JobState::Downloading;
        }
    }
    for (seq, seen) in host.tasks.iter().enumerate() {
        if seen.scheduled && !state.jobs.iter().any(|j| j.name == seen.job) {
            add_unrunnable(state, &host.view, facts, &seen.job);
        }
        let Some(job) = state.jobs.iter_mut().find(|j| j.name == seen.job) else {
            continue;
        };
        let mut task = Task::new();
        task.seq = seq as u64;
        task.task_state = task_state(&seen.state);
        task.scheduler_state = if seen.scheduled {
            SchedulerState::Scheduled
        } else {
            SchedulerState::Preempted
        };
        job.task = Some(task);
    }
    let prio = state
        .projects
        .iter_mut()
        .map(|project| {
            let printed = host.prio.iter().find(|p| p.0 == project.name.as_str());
            // A zero share the state files give and the pass prints.
            let zero =
                facts.zero_share(project.name.as_str()) && printed.is_none_or(|p| p.2 == 0.0);
            if zero {
                project.resource_share = 0.0;
            }
            printed.map_or_else(ProjectPrio::default, |&(_, prio, rsf)| ProjectPrio {
                // A zero share's priority is -offset - REC fraction
                // (PROJECT::compute_sched_priority), the others' -REC
                // fraction over the share fraction: the REC fraction
                // (its sum taken as 1) is what each printed says.
                rec_temp: if zero {
                    -(prio + zero_share_offset)
                } else {
                    -prio * rsf
                },
                share_frac: rsf,
                sched_priority: prio,
            })
        })
        .collect();
    let mut prio: Vec<ProjectPrio> = prio;
    // Backup projects alone: every priority 0, a share of 0, the REC
    // fraction each step adds to (`backup_fractions`).
    for (project, rec_frac, _) in &host.backup {
        if let Some(p) = state
            .projects
            .iter()
            .position(|p| p.name == project.as_str())
        {
            state.projects[p].resource_share = 0.0;
            prio[p] = ProjectPrio {
                rec_temp: *rec_frac,
                share_frac: 0.0,
                sched_priority: 0.0,
            };
        }
    }
    state.given_priorities = Some(GivenPriorities { rec_sum: 1.0, prio });
    // The EDF part counts down the pass's printed deadline misses: a
    // simulation remade within the printed digits may tip a job's finish
    // across its deadline, the printed count is the client's.
    let misses = state
        .projects
        .iter()
        .map(|p| host.misses.get(p.name.as_str()).copied().unwrap_or(0))
        .collect();
    state.given_cpu_misses = Some(misses);
    let ties = open_deadline_ties(&sim, &host.misses, facts);
    if let Some(state) = sim.state.as_mut() {
        for &j in &ties {
            state.jobs[j].estimate_unknown = true;
        }
    }
    let ties = ties
        .iter()
        .filter_map(|&j| sim.state.as_ref().map(|s| s.jobs[j].name.to_string()))
        .collect();
    let enforce = pass.map(|pass| {
        let taken = enforce_inputs(&mut sim, &host, &pass, facts);
        (pass, taken)
    });
    Ok(ListMoment {
        sim,
        host,
        ties,
        enforce,
    })
}

/// The enforcement's task inputs on the pass's host.
fn enforce_inputs(
    sim: &mut Moment,
    host: &PassHost,
    pass: &EnforcePass,
    facts: &JobFacts,
) -> Result<Taken, String> {
    if let Some(why) = &host.tasks_untold {
        return Err(why.clone());
    }
    let Some(offset) = host.view.utc_offset_secs else {
        return Err("the host's offset from UTC is not in the log".into());
    };
    let now = sim.now;
    let Some(state) = sim.state.as_mut() else {
        return Err("the pass's host was taken".into());
    };
    // A stamp is the second the clock was in (as the pass's `now`).
    let to_utc = |stamp: f64| stamp - offset as f64 + 0.5;
    enforce_replay::set_inputs(
        state,
        pass,
        &host.tasks,
        &facts.prefs,
        host.view.startup_ncpus,
        now,
        to_utc,
    )
}

/// A job whose task the last enforcement scheduled but that is not
/// runnable by the log's account (itself or its project suspended, its
/// files gone): on the host as a suspended job, so that enforcement
/// preempts its task. It takes no part in a simulation or a run list.
fn add_unrunnable(state: &mut HostState, view: &HostView, facts: &JobFacts, name: &str) {
    let Some(seen) = view.jobs.iter().find(|j| j.name == name) else {
        return;
    };
    let Some(project) = state
        .projects
        .iter()
        .position(|p| p.name == seen.project.as_str())
    else {
        return;
    };
    let app = seen.app.clone().unwrap_or_default();
    let ncpus = facts.app_ncpus.get(&app).copied().flatten().unwrap_or(1.0);
    let usage = ResourceUsage::cpu(ncpus, state.host.p_fpops);
    let mut job = Job::new(name, project, &app, usage, 0.0);
    job.state = JobState::Downloaded;
    job.suspended_via_gui = true;
    state.jobs.push(job);
}

/// The jobs whose runtime left, known to the printed digits, ties with
/// another's of the same report deadline (the EDF part's tie-break): the
/// printed run list says which the client took first, and the engine takes
/// them in that order ([`crate::policy::state::Job::estimate_unknown`]).
/// Two unstarted jobs of one app and size are not among them: their
/// estimates are exactly equal and the job order decides.
fn open_deadline_ties(sim: &Moment, misses: &HashMap<String, i64>, facts: &JobFacts) -> Vec<usize> {
    let Some(state) = sim.state.as_ref() else {
        return Vec::new();
    };
    let left = |j: usize| sim.printed.get(j).map(|p| p.left / p.rate);
    // Only jobs of projects with deadline misses enter the EDF part.
    let edf = |j: usize| {
        let project = state.jobs[j].project;
        misses
            .get(state.projects[project].name.as_str())
            .is_some_and(|&n| n > 0)
    };
    let mut tied = Vec::new();
    for a in (0..state.jobs.len()).filter(|&a| edf(a)) {
        for b in (a + 1..state.jobs.len()).filter(|&b| edf(b)) {
            let (ja, jb) = (&state.jobs[a], &state.jobs[b]);
            if ja.report_deadline != jb.report_deadline || same_estimate(state, facts, a, b) {
                continue;
            }
            let (Some(la), Some(lb)) = (left(a), left(b)) else {
                continue;
            };
            if (la - lb).abs() <= runtime_half(sim, a) + runtime_half(sim, b) {
                tied.extend([a, b]);
            }
        }
    }
    tied.sort_unstable();
    tied.dedup();
    tied
}

/// The engine's task state for a logged one (a process that ended is
/// `Exited`: no longer runnable as a task).
fn task_state(logged: &LoggedTaskState) -> TaskState {
    match logged {
        LoggedTaskState::Uninitialized => TaskState::Uninitialized,
        LoggedTaskState::Executing => TaskState::Executing,
        LoggedTaskState::Suspended => TaskState::Suspended,
        LoggedTaskState::AbortPending => TaskState::AbortPending,
        LoggedTaskState::QuitPending => TaskState::QuitPending,
        _ => TaskState::Exited,
    }
}

impl super::reconstructed::Moment for ListMoment {
    fn take_host(&mut self) -> Option<(HostState, f64)> {
        Some((self.sim.state.take()?, self.sim.now))
    }

    /// The pass's printed run list: the order of jobs whose runtime left
    /// ties as printed.
    fn tie_order(&self) -> Option<Vec<String>> {
        (!self.ties.is_empty()).then(|| self.host.printed.clone())
    }
}

/// What the loop reports of a scheduling pass.
enum PassEvent {
    List(RunListOutcome),
    Enforced(EnforceOutcome),
}

/// A pass as the loop made it: its run list and its enforcement, each
/// with the host right after it.
type MadePass = ((HostState, RunListOutcome), (HostState, EnforceOutcome));

/// The client loop over the reconstructed passes, one scheduling pass each.
fn run_loop(
    moments: &mut [Result<ListMoment, String>],
    params: &Params,
) -> Vec<Result<MadePass, String>> {
    let made =
        super::reconstructed::made_each(moments, params, Decide::RunList, 2, |event| match event {
            client_loop::LoopEvent::RunList { run, .. } => Some(PassEvent::List((*run).clone())),
            client_loop::LoopEvent::Enforced { outcome, .. } => {
                Some(PassEvent::Enforced((*outcome).clone()))
            }
            _ => None,
        });
    made.into_iter()
        .map(|pass| {
            let mut pass = pass?.into_iter();
            match (pass.next(), pass.next()) {
                (Some((a, PassEvent::List(run))), Some((b, PassEvent::Enforced(out)))) => {
                    Ok(((a, run), (b, out)))
                }
                _ => Err("the loop reported the pass's decisions out of order".into()),
            }
        })
        .collect()
}

/// The loop's run list against what the record decides: its entries with
/// each priority's uncertainty, or why the record leaves it open.
fn judge(
    moment: &ListMoment,
    state: &HostState,
    run: &RunListOutcome,
    facts: &JobFacts,
) -> Recomputed {
    let name = |p: usize| state.projects[p].name.to_string();
    // Each project's priority uncertainty: its printed start's half unit
    // (none where its REC is exactly 0: the priority is then exactly 0),
    // and each step's share of the printed resource-share fraction's half
    // unit. Before its first step an entry prints the very value its pass
    // printed: no uncertainty against that. Backup projects alone start at
    // exactly 0, and their steps carry their REC fraction's uncertainty
    // ([`PassHost::backup`]).
    let backup = |p: &str| moment.host.backup.iter().find(|b| b.0 == p).map(|b| b.2);
    let base: Vec<f64> = state
        .projects
        .iter()
        .map(|p| {
            if let Some(half) = backup(p.name.as_str()) {
                half
            } else if moment.host.view.untouched.contains(p.name.as_str()) {
                0.0
            } else {
                PRINTED_HALF_UNIT
            }
        })
        .collect();
    let start: Vec<f64> = state
        .projects
        .iter()
        .zip(&base)
        .map(|(p, &b)| {
            if backup(p.name.as_str()).is_some() {
                0.0
            } else {
                b
            }
        })
        .collect();
    let mut slack = vec![0.0_f64; state.projects.len()];
    let mut slack_at: Vec<Vec<f64>> = Vec::with_capacity(run.run_list.len() + 1);
    let step_ncpus = f64::from(moment.host.step_ncpus);
    let mut entries = Vec::with_capacity(run.run_list.len());
    for entry in &run.run_list {
        slack_at.push(slack.clone());
        let job = &state.jobs[entry.job];
        let p = job.project;
        entries.push(RunListEntry {
            job: job.name.to_string(),
            rsc: "CPU".into(),
            order: match entry.phase {
                RunListPhase::Edf => "EDF",
                RunListPhase::Fifo => "FIFO",
            }
            .into(),
            prio: entry.priority,
            prio_slack: slack[p],
        });
        let rsf = state.projects[p].prio.share_frac;
        if slack[p] == 0.0 {
            slack[p] = base[p];
        }
        // A zero share's step is not divided by the printed fraction: no
        // uncertainty of it carried.
        if state.projects[p].resource_share != 0.0 {
            let step = job.usage.avg_ncpus / (step_ncpus * 24.0 * rsf);
            slack[p] += step * PRINTED_HALF_UNIT / rsf;
        }
    }
    slack_at.push(slack);
    let mut ties = Vec::new();
    for margin in &run.margins {
        match *margin {
            PickMargin::Priority {
                at,
                chosen,
                rival,
                margin,
            } => {
                let s = &slack_at[at.min(slack_at.len() - 1)];
                // Two priorities both exact (RECs exactly 0, no step yet)
                // tie exactly: the client's order decides, as the loop's.
                let open = s[chosen].max(start[chosen]) + s[rival].max(start[rival]);
                if open > 0.0 && margin <= open {
                    return Err(format!(
                        "projects {} and {} tie at the printed priority {:.6}: which one the \
                         client took first is below the log's precision",
                        name(chosen),
                        name(rival),
                        state.projects[chosen].prio.sched_priority
                    ));
                }
            }
            PickMargin::RuntimeLeft {
                chosen,
                rival,
                margin,
                ..
            } => {
                if same_estimate(state, facts, chosen, rival) {
                    continue;
                }
                let open = runtime_half(&moment.sim, chosen) + runtime_half(&moment.sim, rival);
                if margin <= open {
                    ties.push(format!(
                        "{} and {} share a report deadline and their runtime left is within \
                         {:.2} s of each other as printed",
                        state.jobs[chosen].name, state.jobs[rival].name, open
                    ));
                }
            }
        }
    }
    if let Some(tie) = ties.first() {
        return Err(format!(
            "{tie}: which one the client took first is below the log's precision"
        ));
    }
    Ok((entries, reason(moment, run)))
}

/// Two unstarted jobs of one app and one size: their estimates are
/// exactly equal, and the client's job order decides (as the engine's).
fn same_estimate(state: &HostState, facts: &JobFacts, a: usize, b: usize) -> bool {
    let (a, b) = (&state.jobs[a], &state.jobs[b]);
    let (na, nb) = (a.name.as_str(), b.name.as_str());
    a.task.is_none()
        && b.task.is_none()
        && facts.apps.contains_key(na)
        && facts.apps.get(na) == facts.apps.get(nb)
        && facts.sizes.contains_key(na)
        && facts.sizes.get(na) == facts.sizes.get(nb)
}

/// Half the interval of a job's runtime left (FLOPs left / rate), from
/// its printed figures.
fn runtime_half(sim: &Moment, j: usize) -> f64 {
    sim.printed.get(j).map_or(f64::INFINITY, |p| {
        let slow = (p.rate - p.rate_half).max(f64::MIN_POSITIVE);
        0.005 / slow + p.left.abs() * p.rate_half / (p.rate * slow)
    })
}

/// What a run list made again rested on.
fn reason(moment: &ListMoment, run: &RunListOutcome) -> String {
    let host = &moment.host;
    let mut reason = format!(
        "§6.2 make_run_list made by the client loop over the host the log tells at the \
         pass: the pass's simulation made again ({} usable CPUs), the projects' printed \
         priorities (each known to half a unit of its sixth decimal, each step to the \
         printed resource-share fraction's), each round the highest-priority project's \
         next runnable job (a task whose process exists first), max_concurrent as announced",
        host.ncpus
    );
    if run.run_list.iter().any(|e| e.phase == RunListPhase::Edf) {
        reason.push_str(
            "; first the jobs of projects with deadline misses in the pass's simulation \
             (as printed), earliest report deadline first (from the scheduler replies)",
        );
    }
    if !moment.ties.is_empty() {
        reason.push_str(&format!(
            "; jobs of one report deadline whose runtime left ties at the printed digits \
             taken in their printed order ({}), the rest still recomputed",
            moment.ties.join(", ")
        ));
    }
    if host.step_ncpus != host.ncpus {
        reason.push_str(&format!(
            "; the priority step divides by the {} CPUs this process counted first (its \
             peak-FLOPS total is computed once), not the {} usable now",
            host.step_ncpus, host.ncpus
        ));
    }
    reason
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::FileKind;

    /// Two CPUs, projects A and B (resource-share fractions ½ each), jobs
    /// A_0, A_1 and B_0 of 100 GFLOP at 1 GFLOPS, one CPU each, each in a
    /// reply of its own; the pass prints the priorities `pa` and `pb`.
    fn log(pa: &str, pb: &str) -> String {
        let mut text = String::from(
            "\
28-Nov-2026 10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu
28-Nov-2026 10:00:00 [---] log flags: file_xfer, sched_ops, task, cpu_sched, cpu_sched_debug
28-Nov-2026 10:00:00 [---] log flags: priority_debug, rr_simulation, rrsim_detail, task_debug, work_fetch_debug
28-Nov-2026 10:00:00 [---] Local time is UTC +0 hours
28-Nov-2026 10:00:00 [---] Config: simulate 2 CPUs
28-Nov-2026 10:00:00 [A] URL http://x/A/; Computer ID 1; resource share 100
28-Nov-2026 10:00:00 [B] URL http://x/B/; Computer ID 2; resource share 100
28-Nov-2026 10:00:01 [A] [work_fetch] set_request() for CPU: ninst 2 nused_total 0.00 nidle_now 2.00 fetch share 0.50 req_inst 2.00 req_secs 360.00
",
        );
        for job in ["A_0", "A_1", "B_0"] {
            let p = &job[..1];
            for state in ["NEW", "FILES_DOWNLOADING", "FILES_DOWNLOADED"] {
                text.push_str(&format!(
                    "28-Nov-2026 10:00:02 [{p}] [task] result state={state} for {job} from CS::update_results\n"
                ));
            }
        }
        text.push_str(&format!(
            "\
28-Nov-2026 10:00:03 [---] [cpu_sched_debug] schedule_cpus(): start
28-Nov-2026 10:00:03 [---] [rr_sim] doing sim: CPU sched
28-Nov-2026 10:00:03 [---] [rr_sim] start: work_buf min 180 additional 0 total 180 on_frac 1.000 active_frac 1.000
28-Nov-2026 10:00:03 [A] [prio] {pa} rsf 0.500000 rt 0.000000 rs 0.000000
28-Nov-2026 10:00:03 [B] [prio] {pb} rsf 0.500000 rt 0.000000 rs 0.000000
28-Nov-2026 10:00:03 [B] [rr_sim_detail] 0.00: starting B_0 (1.00 CPU) (100.00G/1.00G)
28-Nov-2026 10:00:03 [A] [rr_sim_detail] 0.00: starting A_0 (1.00 CPU) (100.00G/1.00G)
28-Nov-2026 10:00:03 [B] [rr_sim] 100.00: B_0 finishes (1.00 CPU) (100.00G/1.00G)
28-Nov-2026 10:00:03 [A] [rr_sim] 100.00: A_0 finishes (1.00 CPU) (100.00G/1.00G)
28-Nov-2026 10:00:03 [A] [rr_sim_detail] 100.00: starting A_1 (1.00 CPU) (100.00G/1.00G)
28-Nov-2026 10:00:03 [A] [rr_sim] 200.00: A_1 finishes (1.00 CPU) (100.00G/1.00G)
28-Nov-2026 10:00:03 [---] [rr_sim] end
28-Nov-2026 10:00:03 [A] [cpu_sched_debug] add to run list: A_0 (CPU, FIFO) (prio {pa})
28-Nov-2026 10:00:03 [---] [cpu_sched_debug] enforce_run_list(): start
"
        ));
        text
    }

    fn remake(text: &str) -> Recomputed {
        let events = crate::replay::test_events(text, FileKind::EventLog);
        let points = super::super::recorded::extract(&events);
        let mut facts = JobFacts::default();
        for job in ["A_0", "A_1", "B_0"] {
            facts.deadlines.insert(job.into(), 2e9);
        }
        let hosts = super::super::joblog::hosts_at(&events, &points, &facts, None, 0, None).passes;
        let out = remake_from(&events, &points, &facts, hosts, &Params::default(), 0).run_lists;
        assert_eq!(out.len(), 1, "{out:?}");
        out.into_values().next().expect("one pass")
    }

    fn listed(entries: &[RunListEntry]) -> Vec<(&str, &str, f64)> {
        entries
            .iter()
            .map(|e| (e.job.as_str(), e.order.as_str(), e.prio))
            .collect()
    }

    #[test]
    fn the_list_follows_the_printed_priorities_and_their_steps() {
        // A first (−0.5 > −0.6); A_0 lowers A by 1 CPU / (2 CPUs × 24 ×
        // ½) = 1/24, to −0.541667, still above B: A_1 next, then B_0
        // (today's rules list jobs up to twice the CPUs, `run_list_overfill`).
        let (entries, why) = remake(&log("-0.500000", "-0.600000")).expect("made again");
        let got = listed(&entries);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[2].0, "B_0");
        assert_eq!((got[0].0, got[0].1), ("A_0", "FIFO"));
        assert!((got[0].2 + 0.5).abs() < 1e-12, "{got:?}");
        assert_eq!((got[1].0, got[1].1), ("A_1", "FIFO"));
        assert!((got[1].2 + 0.5 + 1.0 / 24.0).abs() < 1e-12, "{got:?}");
        // The second entry's priority carries the printed digits' half unit
        // and the step's share of the printed fraction's.
        let slack = 0.5e-6 + (1.0 / 24.0) * 0.5e-6 / 0.5;
        assert!((entries[1].prio_slack - slack).abs() < 1e-15);
        assert!(why.contains("made by the client loop"), "{why}");
        // B above A: B_0 first; B's one job taken, A_0 fills the 2nd CPU.
        let (entries, why) = remake(&log("-0.500000", "-0.400000")).expect("made again");
        let got = listed(&entries);
        assert_eq!(
            got.iter().map(|e| e.0).collect::<Vec<_>>(),
            ["B_0", "A_0", "A_1"],
            "{got:?}"
        );
        // No deadline misses: no EDF tie is taken as printed.
        assert!(!why.contains("taken in their printed order"), "{why}");
    }

    /// The pass of [`log`] (A at −0.5 above B at −0.6) with B_0's task
    /// started at `started`, the enforcement pass's lines `pass` and its
    /// end line; the enforcement as the loop made it, with the time slice
    /// and leave-in-memory preferences of a data directory's files.
    fn enforce(started: &str, pass: &str) -> PassEnforcement {
        let text = log("-0.500000", "-0.600000").replace(
            "28-Nov-2026 10:00:03 [---] [cpu_sched_debug] schedule_cpus(): start",
            &format!(
                "28-Nov-2026 {started} [B] [cpu_sched] Starting task B_0 using b_cpu version 1 in slot 0\n\
                 28-Nov-2026 10:00:03 [---] [cpu_sched_debug] schedule_cpus(): start"
            ),
        ) + pass
            + "28-Nov-2026 10:00:03 [---] [cpu_sched_debug] enforce_run_list: end\n";
        let events = crate::replay::test_events(&text, FileKind::EventLog);
        let points = super::super::recorded::extract(&events);
        let mut facts = JobFacts::default();
        for job in ["A_0", "A_1", "B_0"] {
            facts.deadlines.insert(job.into(), 2e9);
        }
        facts.prefs.time_slice_minutes = Some((60.0, "the test's prefs".into()));
        facts.prefs.leave_in_memory = Some((false, "the test's prefs".into()));
        let hosts = super::super::joblog::hosts_at(&events, &points, &facts, None, 0, None).passes;
        let out = remake_from(&events, &points, &facts, hosts, &Params::default(), 0);
        assert_eq!(out.enforcements.len(), 1, "{out:?}");
        out.enforcements.into_values().next().expect("one pass")
    }

    fn made(pass: PassEnforcement) -> (Vec<String>, String) {
        match pass {
            PassEnforcement::Made(Ok(made)) => made,
            other => panic!("not made: {other:?}"),
        }
    }

    #[test]
    fn a_running_task_in_its_time_slice_is_sorted_first_and_kept() {
        // The run list is A_0, A_1, B_0 (see above). B_0's task started a
        // second before the pass, well inside the 60-min slice: unfinished,
        // so it sorts before the two unstarted jobs (both not EDF, one CPU
        // each, then list order). Two CPUs: B_0 and A_0 run, A_1 is
        // skipped with every CPU committed; nothing to preempt.
        let (actions, why) = made(enforce("10:00:02", ""));
        assert_eq!(actions, ["schedule B_0", "schedule A_0"], "{why}");
        assert!(why.contains("made by the client loop"), "{why}");
        assert!(why.contains("60 min, the test's prefs"), "{why}");
        assert!(!why.contains("taken as the final job list prints"), "{why}");
    }

    #[test]
    fn a_finished_time_slice_is_taken_as_printed_and_the_task_preempted() {
        // Started two hours before: the slice is over unless the task has
        // not checkpointed since, which the log does not show; the final
        // list prints UTS: no. So B_0 keeps its run-list place (third),
        // A_0 and A_1 take the two CPUs and B_0's task is preempted. It
        // leaves memory only once checkpointed (leave_apps_in_memory off):
        // that too is taken from the printed line.
        let pass = "\
28-Nov-2026 10:00:03 [---] [cpu_sched_debug] final job list:
28-Nov-2026 10:00:03 [A] [cpu_sched_debug] 0: A_0 (MD: no; UTS: no)
28-Nov-2026 10:00:03 [A] [cpu_sched_debug] 1: A_1 (MD: no; UTS: no)
28-Nov-2026 10:00:03 [B] [cpu_sched_debug] 2: B_0 (MD: no; UTS: no)
28-Nov-2026 10:00:03 [B] [cpu_sched] Preempting B_0 (removed from memory)
";
        let (actions, why) = made(enforce("08:00:00", pass));
        assert_eq!(
            actions,
            ["schedule A_0", "schedule A_1", "preempt B_0 (removed)"],
            "{why}"
        );
        assert!(
            why.contains("taken as the final job list prints it for B_0"),
            "{why}"
        );
        assert!(
            why.contains("whether B_0 leaves memory taken as printed"),
            "{why}"
        );
    }

    #[test]
    fn a_pass_that_skips_a_job_for_its_memory_is_left_to_its_own_lines() {
        let pass = "\
28-Nov-2026 10:00:03 [A] [cpu_sched_debug] enforce: task A_1 can't run, too big 900.00MB > 800.00MB
";
        match enforce("10:00:02", pass) {
            PassEnforcement::NotMade(why) => assert!(why.contains("for its memory"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn priorities_closer_than_the_printed_digits_are_not_decided() {
        let why = remake(&log("-0.500000", "-0.500000")).expect_err("a tie");
        assert!(why.contains("tie at the printed priority"), "{why}");
        // Two units apart is decided: each is within half a unit.
        assert!(remake(&log("-0.500000", "-0.500002")).is_ok());
    }
}

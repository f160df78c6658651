//! A real client's enforcement made again by the client loop
//! (spec/policy-current.md §8: client/cpu_sched.cpp `enforce_run_list`),
//! on the run list the loop made for the same scheduling pass
//! ([`super::runlist_replay`]), over the host the log tells there.
//!
//! What enforcement adds to the run list's host, and where it comes from:
//! - each task's scheduler state (scheduled, else preempted, by the record's
//!   last enforcement) and its run interval's start: the stamp of the line
//!   that started or resumed it last;
//! - whether its time slice is over (`finished_time_slice`): its run
//!   interval against the preferences' `cpu_scheduling_period_minutes`
//!   (the data directory's preference files, else the client's default).
//!   A slice that ends within the stamps' second of the pass, or is over
//!   (then the last checkpoint decides, and the log prints no checkpoint
//!   time), or of a preference no file tells, is taken from the pass's
//!   printed final job list (`UTS: yes`), and the account says so;
//! - whether a preempted task leaves memory: a GPU task always does; a CPU
//!   task by `leave_apps_in_memory` once it has checkpointed, which the log
//!   does not say: taken as printed where the rule rests on it;
//! - the physical CPU count (the user's CPU limit applies below it): from
//!   the log's start-up block;
//! - each task's working set: never printed but where it does not fit
//!   (`cpu_sched_debug` prints every RAM or swap skip), so a pass without
//!   such a line fits every job; a pass with one is not made here.
//!
//! A pass not made here (no run list made for it, a GPU job, a RAM skip)
//! is re-derived from its own lines ([`super::enforce_check`]), and the
//! account says why.
//!
//! Architecture Invariant: pure; reads events and recorded points, and
//! sets the task inputs of a host the run list's world built.

use super::decision::Decision;
use super::enforce_check::{pass_lines, Rederived};
use super::joblog::{PrefsFacts, SeenTask};
use super::recorded::RecordedPoint;
use crate::policy::cpu_sched::{EnforceAction, EnforceOutcome, RunListOutcome};
use crate::policy::state::{HostState, SchedulerState};
use crate::trace::event::LogEvent;
use crate::trace::message::{Message, PreemptMode};
use std::collections::HashMap;

/// An enforcement pass as the loop made it, or why the loop did not.
#[derive(Clone, Debug)]
pub enum PassEnforcement {
    /// Made by the loop: its actions and account, or what the record
    /// leaves open.
    Made(Rederived),
    /// Not made by the loop: why.
    NotMade(String),
}

/// The recorded enforcement pass that follows a run list.
#[derive(Clone, Debug)]
pub(super) struct EnforcePass {
    /// The pass's start line (its point's key).
    pub(super) idx: usize,
    /// Its recorded actions.
    recorded: Vec<String>,
    /// The printed final list: each job's `UTS` (`None`: not printed).
    final_uts: Option<HashMap<String, Option<bool>>>,
    /// The printed final list's jobs in order.
    final_order: Vec<String>,
    /// Each preemption's printed mode.
    removed: HashMap<String, bool>,
    /// Why the loop cannot make this pass.
    not_made: Option<String>,
}

/// Per run-list point (by its line), the enforcement point of the same
/// scheduling pass: the first after it, before the next run list.
pub(super) fn passes(
    events: &[LogEvent],
    points: &[RecordedPoint],
    from: usize,
) -> HashMap<usize, EnforcePass> {
    let mut out = HashMap::new();
    let mut list: Option<usize> = None;
    for point in points.iter().filter(|p| p.event_idx >= from) {
        match &point.decision {
            Decision::RunList(_) => list = Some(point.event_idx),
            Decision::Enforcement(actions) => {
                if let Some(at) = list.take() {
                    if !point.cut_before && !point.cut_after {
                        out.insert(at, read(events, point.event_idx, actions));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn read(events: &[LogEvent], idx: usize, actions: &[String]) -> EnforcePass {
    let (lines, ended) = pass_lines(events, idx);
    let mut pass = EnforcePass {
        idx,
        recorded: actions.to_vec(),
        final_uts: None,
        final_order: Vec::new(),
        removed: HashMap::new(),
        not_made: (!ended).then(|| "no `enforce_run_list: end` line closes the pass".into()),
    };
    for event in lines {
        match &event.message {
            Message::FinalJobList => {
                pass.final_uts = Some(HashMap::new());
                pass.final_order.clear();
            }
            Message::JobListEntry { job, uts, .. } => {
                if let Some(list) = &mut pass.final_uts {
                    list.insert(job.to_string(), *uts);
                    pass.final_order.push(job.to_string());
                }
            }
            Message::Preempting { job, mode } => {
                let removed = *mode == PreemptMode::RemovedFromMemory;
                pass.removed.insert(job.to_string(), removed);
            }
            Message::TooBig { job, .. }
            | Message::SkippingRss { job, .. }
            | Message::SkippingSwap { job, .. } => {
                pass.not_made = Some(format!(
                    "{job} is skipped for its memory: a working set is printed only where it \
                     does not fit, so the other jobs' are not in the log"
                ));
            }
            Message::CoprocInsufficient { job, .. }
            | Message::CoprocInsufficientUsage { job, .. } => {
                pass.not_made = Some(format!(
                    "{job} waits for a GPU instance: instances are not reconstructed from the log"
                ));
            }
            _ => {}
        }
    }
    if pass.recorded.iter().any(|a| a.starts_with("assign ")) {
        pass.not_made = Some(
            "the pass assigns GPU instances: instances are not reconstructed from the log".into(),
        );
    }
    pass
}

/// What the loop's enforcement took from the record rather than made.
#[derive(Clone, Debug, Default)]
pub(super) struct Taken {
    /// Jobs whose time slice was taken as printed, with why.
    uts: Vec<String>,
    /// Jobs whose preemption mode was taken as printed.
    how: Vec<String>,
    /// Where the time slice came from.
    slice_from: Option<String>,
    /// The physical CPU count is not in the log.
    no_physical: bool,
}

/// Sets the inputs enforcement reads on the host's tasks (`seen` in the
/// client's active-task order, stamps as the log prints them, `to_utc`
/// placing a stamp on the client's clock), or why the pass cannot be made.
pub(super) fn set_inputs(
    state: &mut HostState,
    pass: &EnforcePass,
    seen: &[SeenTask],
    prefs: &PrefsFacts,
    physical: Option<u32>,
    now: f64,
    to_utc: impl Fn(f64) -> f64,
) -> Result<Taken, String> {
    if let Some(why) = &pass.not_made {
        return Err(why.clone());
    }
    let mut taken = Taken {
        no_physical: physical.is_none(),
        ..Taken::default()
    };
    let usable = state.n_usable_cpus() as u32;
    if let Some(p) = physical.filter(|&p| p > usable) {
        // The same usable count, below the physical one.
        state.host.p_ncpus = p;
        state.config.ncpus = 0;
        state.prefs.max_ncpus_pct = (f64::from(usable) + 0.5) / f64::from(p) * 100.0;
    }
    let slice = prefs.time_slice_minutes.as_ref().map(|(m, from)| {
        taken.slice_from = Some(format!("{m} min, {from}"));
        m * 60.0
    });
    state.prefs.cpu_scheduling_period_minutes = slice.map_or(60.0, |s| s / 60.0);
    let period = state.cpu_scheduling_period();
    let leave = prefs.leave_in_memory.as_ref().map(|(l, _)| *l);
    state.prefs.leave_apps_in_memory = leave.unwrap_or(false);
    // Running jobs the list appends tie on every key but the client's
    // object addresses: they keep their printed order.
    let printed_at =
        |name: &str| -> Option<usize> { pass.final_order.iter().position(|j| j == name) };
    let unlisted = pass.final_order.len();
    for (j, job) in state.jobs.iter_mut().enumerate() {
        job.alloc_seq = printed_at(job.name.as_str()).map_or((unlisted + j) as u64, |k| k as u64);
        let Some(task) = job.task.as_mut() else {
            continue;
        };
        let Some(seen) = seen.iter().find(|t| t.job == job.name.as_str()) else {
            continue;
        };
        let name = job.name.to_string();
        // The preemption mode: GPU tasks always leave memory; a CPU task
        // by the preference once it checkpointed.
        if !job.usage.uses_coprocs() && leave != Some(true) {
            if let Some(&removed) = pass.removed.get(&name) {
                task.checkpoint_elapsed = if removed { 1.0 } else { 0.0 };
                taken.how.push(name.clone());
            }
        }
        if task.scheduler_state != SchedulerState::Scheduled {
            continue;
        }
        let start = seen.scheduled_since.map(&to_utc);
        let unfinished = match (start, slice) {
            (Some(start), Some(_)) if now + 1.0 <= start + period => Some(true),
            _ => None,
        };
        let unfinished = match unfinished {
            Some(u) => u,
            None => {
                let Some(list) = &pass.final_uts else {
                    return Err("the pass prints no final job list".into());
                };
                let printed = match list.get(&name) {
                    Some(Some(uts)) => *uts,
                    Some(None) => {
                        return Err(format!(
                            "whether {name}'s time slice is over: this release's job list \
                             does not print it (`UTS`), and its run interval or the time \
                             slice is not in the record"
                        ))
                    }
                    None => false,
                };
                taken.uts.push(format!(
                    "{name} ({})",
                    match (start, slice) {
                        (None, _) => "its start is not in the log",
                        (_, None) => "no preference file gives the time slice",
                        _ =>
                            "its slice ends within a second of the pass or is over, and its \
                              last checkpoint is not printed",
                    }
                ));
                printed
            }
        };
        if unfinished {
            task.run_interval_start = now;
        } else {
            task.run_interval_start = now - period - 1.0;
            task.checkpoint_wall_time = now;
        }
    }
    Ok(taken)
}

/// The loop's enforcement as actions (`schedule JOB` in scan order, then
/// `preempt JOB (how)` in active-task order) with its account.
pub(super) fn judge(
    taken: &Taken,
    state: &HostState,
    listed: &RunListOutcome,
    out: &EnforceOutcome,
) -> Rederived {
    let name = |j: usize| state.jobs[j].name.to_string();
    let mut actions = Vec::with_capacity(out.actions.len());
    let mut preempts: Vec<(u64, String)> = Vec::new();
    for action in &out.actions {
        match action {
            EnforceAction::Schedule(j) => actions.push(format!("schedule {}", name(*j))),
            EnforceAction::Preempt { job, removed } => {
                let seq = state.jobs[*job].task.as_ref().map_or(u64::MAX, |t| t.seq);
                let how = if *removed { "removed" } else { "left" };
                preempts.push((seq, format!("preempt {} ({how})", name(*job))));
            }
            EnforceAction::AssignCoprocs(j, _) => {
                return Err(format!(
                    "{} was given a GPU instance: instances are not reconstructed from the log",
                    name(*j)
                ))
            }
        }
    }
    preempts.sort_by_key(|p| p.0);
    actions.extend(preempts.into_iter().map(|p| p.1));
    let ncpus = state.n_usable_cpus();
    if taken.no_physical && out.cpus_used > ncpus as f64 + 1e-9 {
        return Err(format!(
            "the scan commits {:.2} of {ncpus} usable CPUs: whether the user's CPU limit \
             stops the last job rests on the physical CPU count, not in the log",
            out.cpus_used
        ));
    }
    let appended: Vec<String> = out
        .sorted
        .iter()
        .filter(|e| !listed.run_list.iter().any(|l| l.job == e.0))
        .map(|e| name(e.0))
        .collect();
    let mut reason = reason(taken, ncpus, out);
    if appended.len() > 1 {
        reason.push_str(&format!(
            "; the running jobs the list appends ({}) in their printed order where every key \
             ties (the client then compares object addresses)",
            appended.join(", ")
        ));
    }
    Ok((actions, reason))
}

fn reason(taken: &Taken, ncpus: usize, out: &EnforceOutcome) -> String {
    let scheduled = out
        .actions
        .iter()
        .filter(|a| matches!(a, EnforceAction::Schedule(_)))
        .count();
    let mut reason = format!(
        "§8 enforce_run_list made by the client loop on the run list it made for the pass: \
         the running tasks whose time slice is not over added, the list sorted, {ncpus} \
         usable CPUs filled ({scheduled} scheduled, {:.2} CPUs committed), the rest \
         preempted in active-task order",
        out.cpus_used
    );
    if let Some(from) = &taken.slice_from {
        reason.push_str(&format!("; the time slice {from}"));
    }
    if !taken.uts.is_empty() {
        reason.push_str(&format!(
            "; whether the time slice is over taken as the final job list prints it for {}",
            taken.uts.join(", ")
        ));
    }
    if !taken.how.is_empty() {
        reason.push_str(&format!(
            "; whether {} leaves memory taken as printed (it rests on a checkpoint the log \
             does not show)",
            taken.how.join(", ")
        ));
    }
    reason
}

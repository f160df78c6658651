//! Backoffs of a real client's log re-derived from its own lines: the range
//! each printed length can take under the client's rule, given what the
//! lines before it tell (spec/policy-current.md §7.12, §7.13).
//!
//! - `Deferring communication for T` with `Reason: requested by project`:
//!   the reply's `<request_delay>`, which the client prints just before
//!   (`Project requested delay of N seconds`; cs_scheduler.cpp
//!   handle_scheduler_reply): `T` is `N`.
//! - with `Reason: Scheduler request failed`: SCHEDULER_OP::project_rpc_backoff
//!   (scheduler_op.cpp): the project's failures in a row `n` (reset by a
//!   completed request), `min(60 × 2^min(n, 10), 14400) × (0.5 + u/2)` for a
//!   draw `u` in [0, 1] (lib/util.cpp calculate_exponential_backoff).
//! - `backing off CPU T sec`: RSC_PROJECT_WORK_FETCH::resource_backoff
//!   (work_fetch.cpp): the interval doubles from 600 s up to a day at each
//!   backoff in a row and is cleared by a reply with jobs; `T` is the
//!   interval × (0.5 + u).
//!
//! Both counts start at zero only where the log starts with the client on
//! a new state file (`Creating new client state file`): elsewhere they
//! carry over from before the log and the point is not checked. A reply's
//! jobs clear the backoff of the resource they use, which the log tells
//! only on a host whose one resource is the CPU. The printed `HH:MM:SS`
//! and whole seconds are known to a second.
//!
//! Architecture Invariant: pure; reads events and recorded points.

use super::decision::Decision;
use super::recorded::RecordedPoint;
use crate::policy::Params;
use crate::resource::ResourceType;
use crate::trace::event::LogEvent;
use crate::trace::message::{DeferReason, Message};
use std::collections::{BTreeMap, HashMap};

/// A printed backoff's range: its centre, half-width and the rule, or why
/// it is not re-derived.
pub type Bounded = Result<(f64, f64, String), String>;

/// What the lines so far tell about the projects' backoff counts.
#[derive(Clone, Debug, Default)]
pub struct Tracker {
    /// The log started with the client on a new state file.
    fresh: bool,
    /// The resource backoffs are known from here: a new state file, or a
    /// start of a release that restores none from its state file
    /// ([`super::restart::restores_resource_backoffs`]).
    rsc_known: bool,
    /// Scheduler requests failed in a row, per project.
    failures: HashMap<String, u32>,
    /// The last reply's requested delay, per project.
    requested: HashMap<String, f64>,
    /// Resource backoffs in a row since the project's last reply with
    /// jobs, per project (the CPU's).
    cpu_backoffs: HashMap<String, u32>,
    /// A resource other than the CPU appears (its jobs' resources are not
    /// told per reply).
    other_rsc: bool,
    /// Lines seen (a new state file after the first lines is a restart on
    /// a fresh directory: the counts start again).
    lines: usize,
}

impl Tracker {
    /// Reads one more line.
    pub fn see(&mut self, event: &LogEvent) {
        self.lines += 1;
        let project = event.project.as_deref().unwrap_or_default().to_string();
        match &event.message {
            Message::CreatingStateFile => {
                *self = Tracker {
                    fresh: true,
                    rsc_known: true,
                    lines: self.lines,
                    ..Tracker::default()
                };
            }
            Message::ClientStart { version, .. }
                if !super::restart::restores_resource_backoffs(*version) =>
            {
                self.cpu_backoffs.clear();
                self.rsc_known = true;
            }
            Message::SendingSchedulerRequest { .. } => {
                self.requested.remove(&project);
            }
            Message::SchedulerRequestCompleted { new_tasks } => {
                self.failures.insert(project.clone(), 0);
                if new_tasks.is_some_and(|n| n > 0) {
                    self.cpu_backoffs.insert(project, 0);
                }
            }
            Message::ProjectRequestedDelay { secs } => {
                self.requested.insert(project, *secs);
            }
            Message::SchedulerRequestFailed { .. } => {
                *self.failures.entry(project).or_default() += 1;
            }
            Message::BackingOff { rsc, .. } => {
                if *rsc == ResourceType::Cpu {
                    *self.cpu_backoffs.entry(project).or_default() += 1;
                } else {
                    self.other_rsc = true;
                }
            }
            Message::StateFor { rsc } if *rsc != ResourceType::Cpu => self.other_rsc = true,
            _ => {}
        }
    }
}

/// The backoff points from `from` on, re-derived; `carry` tells the lines
/// before `from` (a window of a long session).
pub fn ranges_from(
    events: &[LogEvent],
    points: &[RecordedPoint],
    carry: Option<&Tracker>,
    params: &Params,
    from: usize,
) -> BTreeMap<usize, Bounded> {
    let mut out = BTreeMap::new();
    let mut tracker = carry.cloned().unwrap_or_default();
    let mut seen = from;
    for point in points.iter().filter(|p| p.event_idx >= from) {
        let Decision::Backoff { rsc, .. } = &point.decision else {
            continue;
        };
        // The point's own line counts (a failure, a backoff) before it is judged.
        for event in events.get(seen..=point.event_idx).unwrap_or_default() {
            tracker.see(event);
        }
        seen = seen.max(point.event_idx + 1);
        let Some(event) = events.get(point.event_idx) else {
            continue;
        };
        let bounded = match rsc {
            Some(_) => resource_backoff(&tracker, event, params),
            None => deferral(&tracker, events, point.event_idx, params),
        };
        out.insert(point.event_idx, bounded);
    }
    out
}

/// The tracker after `events` (what the next window takes over).
pub fn carry_over(carry: &Tracker, events: &[LogEvent]) -> Tracker {
    let mut tracker = carry.clone();
    for event in events {
        tracker.see(event);
    }
    tracker
}

const NOT_FRESH: &str = "the log does not start with the client on a new state file \
                         (`Creating new client state file`): the counts the rule doubles \
                         with carry over from before it";

/// Half-width added for a length printed to the second.
const PRINTED_SECOND: f64 = 1.0;

fn resource_backoff(tracker: &Tracker, event: &LogEvent, params: &Params) -> Bounded {
    let project = event.project.as_deref().unwrap_or_default();
    if !matches!(
        event.message,
        Message::BackingOff {
            rsc: ResourceType::Cpu,
            ..
        }
    ) || tracker.other_rsc
    {
        return Err("a GPU host: which resource a reply's jobs cleared is not told".into());
    }
    if !tracker.rsc_known {
        return Err(NOT_FRESH.into());
    }
    let in_a_row = tracker
        .cpu_backoffs
        .get(project)
        .copied()
        .unwrap_or(1)
        .max(1);
    let mut interval = params.wf_min_backoff_interval;
    for _ in 1..in_a_row {
        interval = (interval * 2.0).min(params.wf_max_backoff_interval);
    }
    let (lo, hi) = params.rsc_backoff_factor_range();
    Ok((
        interval * (lo + hi) / 2.0,
        interval * (hi - lo) / 2.0 + PRINTED_SECOND,
        format!(
            "§7.12 resource_backoff: backoff {in_a_row} in a row since a reply with jobs, interval \
             {interval:.0} s, times a draw in [{lo}, {hi}]"
        ),
    ))
}

fn deferral(tracker: &Tracker, events: &[LogEvent], idx: usize, params: &Params) -> Bounded {
    let event = &events[idx];
    let project = event.project.as_deref().unwrap_or_default();
    // The reason is the next line of the same project.
    let reason = events
        .get(idx + 1..(idx + 4).min(events.len()))
        .unwrap_or_default()
        .iter()
        .filter(|e| e.project.as_deref().unwrap_or_default() == project)
        .find_map(|e| match &e.message {
            Message::DeferReason { reason } => Some(reason.clone()),
            _ => None,
        });
    match reason {
        Some(DeferReason::RequestedByProject) => match tracker.requested.get(project) {
            Some(&delay) => Ok((
                delay,
                PRINTED_SECOND,
                format!(
                    "§7.13 the reply's request_delay: `Project requested delay of {delay:.0} seconds`"
                ),
            )),
            None => Err("a delay requested by the project, and its reply's delay is not printed \
                         before it"
                .into()),
        },
        Some(DeferReason::SchedulerRequestFailed) => {
            if !tracker.fresh {
                return Err(NOT_FRESH.into());
            }
            let failures = tracker.failures.get(project).copied().unwrap_or(1).max(1);
            if f64::from(failures) >= params.master_fetch_period {
                return Err(format!(
                    "{failures} failures in a row: the client fetches the master file again, \
                     which the rule's count restarts with"
                ));
            }
            let n = f64::from(failures).min(params.retry_cap);
            let base = (params.sched_retry_delay_min * 2f64.powf(n)).min(params.sched_retry_delay_max);
            let (lo, hi) = params.rpc_backoff_factor_range();
            Ok((
                base * (lo + hi) / 2.0,
                base * (hi - lo) / 2.0 + PRINTED_SECOND,
                format!(
                    "§7.13 project_rpc_backoff: failure {failures} in a row, \
                     min({:.0} × 2^{n:.0}, {:.0}) = {base:.0} s times a draw in [{lo}, {hi}]",
                    params.sched_retry_delay_min, params.sched_retry_delay_max
                ),
            ))
        }
        Some(other) => Err(format!(
            "a deferral for `{}`: not re-derived from the log",
            other.as_str()
        )),
        None => Err("no `Reason:` line follows the deferral (sched_op_debug off?)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of a stdoutdae.txt text.
    fn events(text: &str) -> Vec<LogEvent> {
        crate::replay::test_events(text, crate::trace::FileKind::EventLog)
    }

    /// The lab's down-empty-delay run (Debian's 7.20.5): P2's scheduler
    /// answers HTTP 500, the client defers for 00:01:21, a draw within
    /// the first failure's 60-120 s; P3's reply asks for 60 s.
    #[test]
    fn deferrals_of_a_real_run() {
        let text = "25-Nov-2026 12:29:02 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu\n\
            25-Nov-2026 12:29:02 [---] Creating new client state file\n\
            25-Nov-2026 12:29:16 [P2] Sending scheduler request: Project initialization.\n\
            25-Nov-2026 12:29:18 [P2] Scheduler request failed: HTTP internal server error\n\
            25-Nov-2026 12:29:18 [P2] [sched_op] Deferring communication for 00:01:21\n\
            25-Nov-2026 12:29:18 [P2] [sched_op] Reason: Scheduler request failed\n\
            25-Nov-2026 12:29:23 [P3] Sending scheduler request: Project initialization.\n\
            25-Nov-2026 12:29:25 [P3] Scheduler request completed: got 1 new tasks\n\
            25-Nov-2026 12:29:25 [P3] Project requested delay of 60 seconds\n\
            25-Nov-2026 12:29:25 [P3] [sched_op] Deferring communication for 00:01:00\n\
            25-Nov-2026 12:29:25 [P3] [sched_op] Reason: requested by project\n\
            25-Nov-2026 12:29:39 [P4] Scheduler request completed: got 0 new tasks\n\
            25-Nov-2026 12:29:39 [P4] [work_fetch] backing off CPU 879 sec\n";
        let events = events(text);
        let (points, _) = crate::replay::recorded::extract_window(&events, None, None);
        let params = Params::default();
        let ranges = ranges_from(&events, &points, None, &params, 0);
        let bounds: Vec<(f64, f64)> = ranges
            .values()
            .map(|r| {
                let (mid, half, _) = r.as_ref().expect("re-derived");
                (mid - half, mid + half)
            })
            .collect();
        assert_eq!(bounds, vec![(59.0, 121.0), (59.0, 61.0), (299.0, 901.0)]);
        // A log that does not start on a new state file does not tell the counts.
        let cut: String = text.lines().skip(2).map(|l| format!("{l}\n")).collect();
        let events = crate::replay::backoff_check::tests::events(&cut);
        let (points, _) = crate::replay::recorded::extract_window(&events, None, None);
        let ranges = ranges_from(&events, &points, None, &params, 0);
        let checked: Vec<bool> = ranges.values().map(Result::is_ok).collect();
        assert_eq!(checked, vec![false, true, false]);
        // A 7.x client's start restores no resource backoff, on a state
        // file or not: the lab's restart run (traces/real/restart-empty: the
        // empty project B backed off 834 s, the client restarted, B's next
        // backoff 576 s, a first one's 300-900 s again).
        let restart = "01-Dec-2026 05:08:33 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu\n\
            01-Dec-2026 05:09:03 [B] Scheduler request completed: got 0 new tasks\n\
            01-Dec-2026 05:09:03 [B] [work_fetch] backing off CPU 834 sec\n\
            01-Dec-2026 05:10:09 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu\n\
            01-Dec-2026 05:13:42 [B] Scheduler request completed: got 0 new tasks\n\
            01-Dec-2026 05:13:42 [B] [work_fetch] backing off CPU 576 sec\n";
        let events = crate::replay::backoff_check::tests::events(restart);
        let (points, _) = crate::replay::recorded::extract_window(&events, None, None);
        let ranges = ranges_from(&events, &points, None, &params, 0);
        let bounds: Vec<Option<(f64, f64)>> = ranges
            .values()
            .map(|r| {
                r.as_ref()
                    .ok()
                    .map(|(mid, half, _)| (mid - half, mid + half))
            })
            .collect();
        assert_eq!(bounds, vec![Some((299.0, 901.0)), Some((299.0, 901.0))]);
    }
}

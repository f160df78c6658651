//! A long client session audited window by window, in memory bounded by the
//! window's length, not the session's.
//!
//! The checks of a log read from its own lines (a real client's log, or any
//! log without the emulator's inputs) rest on the lines of each decision's
//! pass, the few lines around it, and a small state that runs through the
//! whole session: the jobs as told so far, the usable CPUs and the work
//! buffer printed last, the projects attached, what the extraction has seen.
//! A window is then a stretch of the session whose decisions are reported
//! (`from` up to `until`), read with the lines before it that warm the
//! extraction (a prefix) and the lines after it that close its last passes
//! (a tail), the running state carried over from the windows before
//! ([`SessionCarry`]). Its report is the whole session's for those
//! decisions: `tests/windowed.rs` holds every reference log to that, cut in
//! windows of a few hundred to a few thousand lines.
//!
//! A window ends where an outer pass begins (a work-fetch state block, else
//! a run list or an enforcement pass), so no decision is split and every
//! scan line or request after the boundary links to a block of its own
//! window. A session with decisions but none of those passes is read
//! whole.
//!
//! The anchored replay of an emulator run goes window by window the same
//! way: its client loop is the running state ([`super::anchored`]), fed
//! each window's points and external events.
//!
//! Architecture Invariant: pure; reads events, gives plans and carries.

use super::decision::Decision;
use super::enforce_check::printed_ncpus;
use super::joblog::{JobCarry, JobFacts};
use super::mc_check::printed_buffer;
use super::recorded::{extract_window, ExtractCarry, RecordedPoint};
use crate::divergence::DecisionKind;
use crate::trace::event::LogEvent;
use std::cell::OnceCell;
use std::collections::BTreeSet;

/// What one window of a session takes over from the windows before it.
#[derive(Clone, Debug, Default)]
pub struct SessionCarry {
    /// The session's rules, chosen over its first window's lines.
    pub(super) choice: Option<super::PolicyChoice>,
    /// The extraction's state at the window's first line.
    pub(super) extract: Option<ExtractCarry>,
    /// The jobs and attached projects as told before `from`.
    pub(super) jobs: JobCarry,
    /// The last simulation the windows before recorded, where it lies in
    /// this window's lines (before `from`), with the jobs as told just
    /// before it: a block at the window's start rests on it, and it is
    /// made again here too. `None`: none, or its line is not in reach.
    pub(super) last_sim: Option<(usize, JobCarry)>,
    /// The usable CPUs printed last before `from`.
    pub(super) ncpus: Option<u32>,
    /// The work buffer printed last before `from`.
    pub(super) mc_buffer: Option<f64>,
    /// The simulations followed so far (the last one, for the state block
    /// that reports it).
    pub(super) rr_sim: super::rrsim_check::Tracker,
    /// The backoff counts the lines so far tell.
    pub(super) backoffs: super::backoff_check::Tracker,
    /// The kinds of decision the windows before recorded.
    pub(super) recorded_kinds: BTreeSet<DecisionKind>,
}

/// One window of a session: its lines are the trace's events.
#[derive(Clone, Debug)]
pub struct Window {
    /// The events before this index were reported by earlier windows.
    pub from: usize,
    /// Decisions from this index on belong to the next window (`None`: the
    /// session's last window).
    pub until: Option<usize>,
    /// What the windows before carry into this one.
    pub carry: SessionCarry,
    /// The window's recorded points (over all its lines).
    pub(super) points: Vec<RecordedPoint>,
    /// The extraction's state where the next window's lines start.
    next_extract: Option<ExtractCarry>,
    /// The jobs as this window's checks read them to `until`, and just
    /// before its last reported simulation ([`JobsRead`]), when they did.
    pub(super) jobs_read: OnceCell<JobsRead>,
    /// The simulations as this window's checks read them to the line
    /// given (not included), when they did.
    pub(super) rr_sim_read: OnceCell<(usize, super::rrsim_check::Tracker)>,
}

/// The jobs as a window's checks read them ([`super::joblog::hosts_at`]):
/// what the next window takes over, so that it is not read again.
#[derive(Clone, Debug)]
pub(super) struct JobsRead {
    /// Read to this line (not included).
    pub(super) until: usize,
    /// Just before it.
    pub(super) jobs: JobCarry,
    /// Just before the window's last reported simulation.
    pub(super) at_last_sim: Option<JobCarry>,
}

impl Window {
    /// Whether the decision starting at event `idx` is this window's.
    pub fn reports(&self, idx: usize) -> bool {
        idx >= self.from && self.until.is_none_or(|until| idx < until)
    }

    /// The last window of a session, from `from` on.
    pub fn last(events: &[LogEvent], carry: SessionCarry, from: usize) -> Window {
        let (points, _) = extract_window(events, carry.extract.as_ref(), None);
        Window {
            from,
            until: None,
            carry,
            points,
            next_extract: None,
            jobs_read: OnceCell::new(),
            rr_sim_read: OnceCell::new(),
        }
    }

    /// The window that reports the decisions from `from` on and ends at the
    /// first pass start at or after `target`, leaving at least `tail` lines
    /// after it; with the index the next window's lines start at (`prefix`
    /// lines before its boundary). `None` when no boundary is in reach yet:
    /// fewer than `tail` lines after `target`, or no outer pass starts
    /// between them while decisions are under way (read on).
    pub fn plan(
        events: &[LogEvent],
        carry: SessionCarry,
        from: usize,
        target: usize,
        prefix: usize,
        tail: usize,
    ) -> Option<(Window, usize)> {
        let last_boundary = events.len().checked_sub(tail)?;
        if target > last_boundary || target < from {
            return None;
        }
        // The next window's lines start `prefix` lines before the target,
        // so at least `prefix` before its boundary.
        let next_start = target.saturating_sub(prefix).max(from);
        let (points, next_extract) =
            extract_window(events, carry.extract.as_ref(), Some(next_start));
        let starts_pass = |p: &&RecordedPoint, block: bool| {
            (target..=last_boundary).contains(&p.event_idx)
                && match p.decision {
                    Decision::FetchState(_) => true,
                    // Outer passes only: a simulation or a `[prio]` group
                    // can be printed inside a run list's pass.
                    Decision::RunList(_) | Decision::Enforcement(_) => !block,
                    _ => false,
                }
        };
        // A block first (what scan lines and requests link to); in a log
        // without blocks, a scheduling pass's start; with no decision at
        // all in the window yet, anywhere.
        let until = points
            .iter()
            .find(|p| starts_pass(p, true))
            .or_else(|| points.iter().find(|p| starts_pass(p, false)))
            .map(|p| p.event_idx)
            .or_else(|| {
                let none = points.iter().all(|p| p.event_idx < from);
                none.then_some(last_boundary)
            })?;
        Some((
            Window {
                from,
                until: Some(until),
                carry,
                points,
                next_extract,
                jobs_read: OnceCell::new(),
                rr_sim_read: OnceCell::new(),
            },
            next_start,
        ))
    }

    /// The line of the last simulation this window reports (one the log
    /// does not cut before).
    pub(super) fn last_reported_sim(&self) -> Option<usize> {
        self.points
            .iter()
            .rev()
            .find(|p| {
                matches!(p.decision, Decision::RrSim { .. })
                    && !p.cut_before
                    && self.reports(p.event_idx)
            })
            .map(|p| p.event_idx)
    }

    /// What the next window (whose lines start where [`Window::plan`]
    /// said: at `next_start`) takes over: the running state advanced over
    /// this window's reported lines. The state the checks from the log's
    /// own lines follow (jobs, CPUs, buffer, simulations, backoffs) is
    /// advanced with `facts` only: without them it is left as it was.
    pub fn carry_on(
        &self,
        events: &[LogEvent],
        facts: Option<&JobFacts>,
        next_start: usize,
    ) -> SessionCarry {
        let until = self.until.unwrap_or(events.len()).min(events.len());
        let mut carry = self.carry.clone();
        carry.last_sim = None;
        if let Some(facts) = facts {
            let last_sim = self.last_reported_sim().filter(|&idx| idx >= next_start);
            // The jobs as the checks read them, where they read this far.
            let read = self.jobs_read.get().filter(|read| read.until == until);
            if let Some(read) = read {
                carry.jobs = read.jobs.clone();
                carry.last_sim = last_sim
                    .zip(read.at_last_sim.clone())
                    .map(|(idx, jobs)| (idx - next_start, jobs));
            }
            let rr_sim = self.rr_sim_read.get().filter(|(to, _)| *to == until);
            if let Some((_, tracker)) = rr_sim {
                carry.rr_sim = tracker.clone();
            }
            for (idx, event) in events.iter().enumerate().take(until).skip(self.from) {
                if read.is_none() {
                    if last_sim == Some(idx) {
                        carry.last_sim = Some((idx - next_start, carry.jobs.clone()));
                    }
                    carry.jobs.see(event, facts);
                }
                if let Some(n) = printed_ncpus(&event.message) {
                    carry.ncpus = Some(n);
                }
                if let Some(buffer) = printed_buffer(&event.message) {
                    carry.mc_buffer = Some(buffer);
                }
                if rr_sim.is_none() {
                    carry.rr_sim.see(event);
                }
                carry.backoffs.see(event);
            }
        }
        carry.recorded_kinds.extend(
            self.points
                .iter()
                .filter(|p| self.reports(p.event_idx))
                .map(RecordedPoint::kind),
        );
        carry.extract = self.next_extract.clone();
        carry
    }
}

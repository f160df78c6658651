//! External events taken from the trace (job arrivals; later RPC outcomes,
//! project-down skips, deferrals, availability gaps), ordered by
//! (time, sequence number) — never by hash order.
//!
//! Architecture Invariant: reads the trace only; the sequence number is the
//! event's index in `Trace::events`, so equal times keep log order.

use crate::trace::message::ResultState;
use crate::trace::{EventTime, LogEvent, Message, StepAvailability};
use std::collections::VecDeque;

/// One event of the external world.
#[derive(Clone, Debug, PartialEq)]
pub enum ExternalEvent {
    /// A job delivered by an RPC (`result state=FILES_DOWNLOADED for X from simulate_rpc`).
    JobArrival {
        /// Seconds on the trace's time base.
        time: f64,
        /// Sequence number (event index).
        seq: usize,
        /// The project.
        project: String,
        /// The job.
        job: String,
    },
    /// `RPC skipped: project down` and the drawn deferral that follows.
    RpcSkipped {
        /// Seconds on the trace's time base.
        time: f64,
        /// Sequence number (event index).
        seq: usize,
        /// The project.
        project: String,
        /// The drawn deferral (`Deferring communication for ...`), if printed.
        defer_secs: Option<f64>,
    },
    /// The order of an enforcement's `final job list`: the client breaks
    /// ties of equally important jobs by their objects' memory addresses
    /// (more_important's `r0 < r1`), which no model of the emulator can
    /// know; the replay takes the order of such ties from here.
    TieOrder {
        /// Seconds on the trace's time base.
        time: f64,
        /// Sequence number (event index).
        seq: usize,
        /// The listed jobs, in order.
        jobs: Vec<String>,
    },
    /// The order of a recorded run list (`add to run list` lines): where
    /// the client broke a deadline tie by estimates the log never prints,
    /// the replay takes the order of the tied jobs from here.
    RunListOrder {
        /// Seconds on the trace's time base.
        time: f64,
        /// Sequence number (event index).
        seq: usize,
        /// The listed jobs, in order.
        jobs: Vec<String>,
    },
    /// A drawn per-resource backoff (`backing off RSC N sec`): the random
    /// factor is an input; the replay checks it lies in its own range.
    BackoffDrawn {
        /// Seconds on the trace's time base.
        time: f64,
        /// Sequence number (event index).
        seq: usize,
        /// The project.
        project: String,
        /// Long resource name.
        rsc: String,
        /// The printed length, seconds.
        secs: f64,
    },
}

impl ExternalEvent {
    /// The (time, seq) ordering key.
    pub fn key(&self) -> (f64, usize) {
        match self {
            ExternalEvent::JobArrival { time, seq, .. }
            | ExternalEvent::RpcSkipped { time, seq, .. }
            | ExternalEvent::BackoffDrawn { time, seq, .. }
            | ExternalEvent::TieOrder { time, seq, .. }
            | ExternalEvent::RunListOrder { time, seq, .. } => (*time, *seq),
        }
    }
}

/// The queue of external events, in (time, seq) order.
#[derive(Clone, Debug, Default)]
pub struct ExternalQueue {
    events: VecDeque<ExternalEvent>,
}

impl ExternalQueue {
    /// Collects the external events of a log.
    pub fn from_events(events: &[LogEvent]) -> Self {
        let refined = Prescan::of(events).refined;
        Self::from_window(events, 0, 0..events.len(), &refined)
    }

    /// Collects the external events of the lines `own` of `events`, a
    /// window of a session whose first line is the session's `base`-th
    /// (the lines after `own` are read for what an event's next lines say;
    /// the drawn backoffs come refined by a [`Prescan`] of the session).
    pub fn from_window(
        events: &[LogEvent],
        base: usize,
        own: std::ops::Range<usize>,
        refined: &Refinements,
    ) -> Self {
        let mut out: Vec<ExternalEvent> = Vec::new();
        let mut last_time = 0.0;
        for (idx, event) in events.iter().enumerate().take(own.end) {
            if let Some(secs) = event.time.secs() {
                last_time = secs;
            }
            if idx < own.start {
                continue;
            }
            let seq = base + idx;
            let project = event.project.as_deref().unwrap_or_default().to_string();
            match &event.message {
                Message::ResultStateChange { state, job, from }
                    if *state == ResultState::FilesDownloaded && from == "simulate_rpc" =>
                {
                    out.push(ExternalEvent::JobArrival {
                        time: last_time,
                        seq,
                        project,
                        job: job.to_string(),
                    });
                }
                Message::EmuRpcSkippedProjectDown => {
                    let defer_secs = deferral_after(&events[idx + 1..])
                        .map(|secs| refined.deferrals.get(&seq).copied().unwrap_or(secs));
                    out.push(ExternalEvent::RpcSkipped {
                        time: last_time,
                        seq,
                        project,
                        defer_secs,
                    });
                }
                // 8.2.14 on `make_run_list(): start` … `end`; before,
                // `schedule_cpus(): start` and the picks up to the enforcement.
                Message::MakeRunListStart | Message::ScheduleCpusStart => {
                    let jobs = events[idx + 1..]
                        .iter()
                        .take_while(|e| {
                            !matches!(
                                e.message,
                                Message::MakeRunListEnd
                                    | Message::MakeRunListStart
                                    | Message::ScheduleCpusStart
                                    | Message::EnforceRunListStart
                                    | Message::EnforceScheduleStart
                            )
                        })
                        .filter_map(|e| match &e.message {
                            Message::AddToRunList { job, .. }
                            | Message::SchedulingRunList { job, .. } => Some(job.to_string()),
                            _ => None,
                        })
                        .collect();
                    out.push(ExternalEvent::RunListOrder {
                        time: last_time,
                        seq,
                        jobs,
                    });
                }
                Message::FinalJobList => {
                    let jobs = events[idx + 1..]
                        .iter()
                        .map_while(|e| match &e.message {
                            Message::JobListEntry { job, .. } => Some(job.to_string()),
                            _ => None,
                        })
                        .collect();
                    out.push(ExternalEvent::TieOrder {
                        time: last_time,
                        seq,
                        jobs,
                    });
                }
                Message::BackingOff { rsc, secs } => out.push(ExternalEvent::BackoffDrawn {
                    time: last_time,
                    seq,
                    secs: refined.draws.get(&seq).copied().unwrap_or(*secs),
                    project,
                    rsc: rsc.long_name().to_string(),
                }),
                _ => {}
            }
        }
        out.sort_by(|a, b| {
            let (ta, sa) = a.key();
            let (tb, sb) = b.key();
            ta.total_cmp(&tb).then(sa.cmp(&sb))
        });
        ExternalQueue {
            events: out.into_iter().collect(),
        }
    }

    /// Adds the events of a later window (all after this queue's).
    pub fn extend(&mut self, later: ExternalQueue) {
        self.events.extend(later.events);
    }

    /// Removes and returns every event before `(time, seq)`, in order.
    pub fn pop_until(&mut self, time: f64, seq: usize) -> Vec<ExternalEvent> {
        let mut out = Vec::new();
        while self.events.front().is_some_and(|e| {
            let (t, s) = e.key();
            t < time || (t == time && s < seq)
        }) {
            if let Some(event) = self.events.pop_front() {
                out.push(event);
            }
        }
        out
    }

    /// Removes and returns every event at exactly `time` (one emulator step).
    pub fn pop_at(&mut self, time: f64) -> Vec<ExternalEvent> {
        let mut out = Vec::new();
        while self.events.front().is_some_and(|e| e.key().0 <= time) {
            if let Some(event) = self.events.pop_front() {
                if event.key().0 == time {
                    out.push(event);
                }
            }
        }
        out
    }

    /// The job arrivals left, as (time, project, job), in order.
    pub fn arrivals(&self) -> Vec<(f64, String, String)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                ExternalEvent::JobArrival {
                    time, project, job, ..
                } => Some((*time, project.clone(), job.clone())),
                _ => None,
            })
            .collect()
    }

    /// Events left.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when no event is left.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

/// The most lines a backoff's refinement looks ahead (the search also ends
/// when the backoff has: an emulator day of a 16-CPU host is about 100,000
/// lines).
const REFINE_LINES: usize = 1_000_000;

/// The project deferral an `RPC skipped: project down` line is followed by
/// (`Deferring communication for ...`, within three lines).
fn deferral_after(next: &[LogEvent]) -> Option<f64> {
    next.iter().take(3).find_map(|e| match &e.message {
        Message::DeferringCommunication { secs } => Some(*secs),
        _ => None,
    })
}

/// The drawn backoffs and deferrals of a session as later lines refine them
/// (by the line's index in the session).
///
/// A drawn backoff is printed in whole seconds (`backing off RSC N sec`);
/// the next work-fetch dump prints what is left of the same draw with two
/// decimals (`resource backoff: X`). Both are the same external input (the
/// random draw); the finer one, plus the time elapsed, is used when it lies
/// within the rounding of the first. A project deferral (`Deferring
/// communication for HH:MM:SS`, which truncates) is refined the same way by
/// the next dump's `(project backoff: X)`.
#[derive(Clone, Debug, Default)]
pub struct Refinements {
    /// `backing off` lines.
    pub draws: std::collections::HashMap<usize, f64>,
    /// `RPC skipped: project down` lines (their deferral).
    pub deferrals: std::collections::HashMap<usize, f64>,
}

/// A drawn backoff whose refinement is still looked for.
#[derive(Clone, Debug)]
struct OpenDraw {
    seq: usize,
    time: f64,
    project: String,
    rsc: String,
    secs: f64,
    /// The resource of the dump section read last since the draw.
    current_rsc: Option<String>,
}

impl OpenDraw {
    /// Reads the next line: `Some` ends the search (with the refinement,
    /// if found).
    fn see(&mut self, event: &LogEvent) -> Option<Option<f64>> {
        // No dump after the backoff ended can show it (the host may have
        // been off for hours in between: no line count bounds the search).
        if event
            .time
            .secs()
            .is_some_and(|t| t > self.time + self.secs + 1.0)
        {
            return Some(None);
        }
        match &event.message {
            // A new draw for the same resource ends the search (another
            // resource's draw, often the next line, does not); it may bound
            // this one ([`Prescan::bound_by_next_draw`]).
            Message::BackingOff { rsc, .. }
                if event.project.as_deref() == Some(self.project.as_str())
                    && rsc.long_name() == self.rsc =>
            {
                Some(None)
            }
            Message::StateFor { rsc } => {
                self.current_rsc = Some(rsc.long_name().to_string());
                None
            }
            Message::WorkFetchShare {
                backoff: Some(b), ..
            }
            | Message::WorkFetchFetchShare {
                backoff: Some(b), ..
            } if event.project.as_deref() == Some(self.project.as_str())
                && self.current_rsc.as_deref() == Some(self.rsc.as_str()) =>
            {
                let elapsed = event.time.secs().map_or(0.0, |t| t - self.time);
                let refined = b.backoff + elapsed;
                // The dump's two decimals can put the refined value just
                // across the rounding of the whole seconds first printed:
                // keep it on the printed side.
                let secs = self.secs;
                Some(Some(if (refined - secs).abs() <= 0.5 + 0.005 {
                    refined.clamp(secs - 0.5 + 1e-6, secs + 0.5 - 1e-6)
                } else {
                    secs
                }))
            }
            _ => None,
        }
    }
}

/// A project-down deferral whose refinement is still looked for; its
/// length is known once its `Deferring communication` line is read.
#[derive(Clone, Debug)]
struct OpenDeferral {
    seq: usize,
    time: f64,
    project: String,
    secs: Option<f64>,
    /// Lines read since the skip (the deferral is within three).
    read: usize,
    /// The lines read before the length was known.
    early: Vec<LogEvent>,
    /// The next deferral line of the project is the draw's own.
    own_line: bool,
}

impl OpenDeferral {
    /// Reads the next line: `Some` ends the search (with the refinement,
    /// if found).
    fn see(&mut self, event: &LogEvent) -> Option<Option<f64>> {
        let Some(secs) = self.secs else {
            self.read += 1;
            self.early.push(event.clone());
            if let Message::DeferringCommunication { secs } = &event.message {
                self.secs = Some(*secs);
                for early in std::mem::take(&mut self.early) {
                    if let Some(done) = self.see(&early) {
                        return Some(done);
                    }
                }
                return None;
            }
            // No deferral printed: nothing to refine.
            return (self.read >= 3).then_some(None);
        };
        if event
            .time
            .secs()
            .is_some_and(|t| t > self.time + secs + 1.0)
        {
            return Some(None);
        }
        match &event.message {
            // The first deferral line is the draw itself; a later one is a new draw.
            Message::DeferringCommunication { .. }
                if event.project.as_deref() == Some(self.project.as_str())
                    && !std::mem::replace(&mut self.own_line, false) =>
            {
                Some(None)
            }
            Message::WorkFetchRec {
                backoff: Some(b), ..
            } if event.project.as_deref() == Some(self.project.as_str()) => {
                let elapsed = event.time.secs().map_or(0.0, |t| t - self.time);
                let refined = b + elapsed;
                // HH:MM:SS truncates: the drawn value lies in [secs, secs+1);
                // keep the dump's two-decimal refinement on that side.
                Some(Some(if (refined - secs).abs() <= 1.0 {
                    refined.clamp(secs, secs + 1.0 - 1e-6)
                } else {
                    secs
                }))
            }
            _ => None,
        }
    }
}

/// A refinement still looked for ([`OpenDraw`], [`OpenDeferral`]).
trait OpenSearch {
    /// The index of the line it refines.
    fn seq(&self) -> usize;
    /// Reads the next line: `Some` ends the search (with the refinement,
    /// if found).
    fn see(&mut self, event: &LogEvent) -> Option<Option<f64>>;
}

impl OpenSearch for OpenDraw {
    fn seq(&self) -> usize {
        self.seq
    }

    fn see(&mut self, event: &LogEvent) -> Option<Option<f64>> {
        OpenDraw::see(self, event)
    }
}

impl OpenSearch for OpenDeferral {
    fn seq(&self) -> usize {
        self.seq
    }

    fn see(&mut self, event: &LogEvent) -> Option<Option<f64>> {
        OpenDeferral::see(self, event)
    }
}

/// Reads line `seq` into every open search; those that end leave it, with
/// their refinement in `found`.
fn advance<T: OpenSearch>(
    open: &mut Vec<T>,
    seq: usize,
    event: &LogEvent,
    found: &mut std::collections::HashMap<usize, f64>,
) {
    open.retain_mut(|search| {
        if seq - search.seq() > REFINE_LINES {
            return false;
        }
        match search.see(event) {
            None => true,
            Some(done) => {
                if let Some(secs) = done {
                    found.insert(search.seq(), secs);
                }
                false
            }
        }
    });
}

/// What the anchored replay needs of a whole session before its first
/// step, read in one pass over the session's lines and kept as small
/// indexes (per job, per time step, per drawn backoff), never the lines:
/// each job's true size and first `UTS`, the arrivals, the time step, when
/// the client ran and polled, the refined draws. A session read window by
/// window is pre-scanned by a first pass over its log.
#[derive(Clone, Debug, Default)]
pub struct Prescan {
    /// Lines read.
    seq: usize,
    last_time: f64,
    /// The smallest gap between two consecutive times, and the last time.
    smallest_gap: Option<f64>,
    last_timed: Option<f64>,
    /// The first `recent est credit ... in N sec` interval, and the first
    /// ignored REC interval's period.
    rec: Option<f64>,
    rec_ignored: Option<f64>,
    polled: std::collections::BTreeSet<i64>,
    logged: std::collections::BTreeSet<i64>,
    any_block: bool,
    any_pass: bool,
    preliminary: bool,
    /// Each job's size ([`JobSize`]).
    pub sizes: std::collections::BTreeMap<String, JobSize>,
    /// Each job's `UTS` in the first preliminary job list that lists it.
    pub first_uts: std::collections::BTreeMap<String, bool>,
    open_draws: Vec<OpenDraw>,
    open_deferrals: Vec<OpenDeferral>,
    /// The last draw per (project, resource): its line, time and printed
    /// seconds.
    last_draws: std::collections::HashMap<(String, String), (usize, f64, f64)>,
    /// The refined draws.
    pub refined: Refinements,
}

impl Prescan {
    /// The pre-scan of a whole session's lines.
    pub fn of(events: &[LogEvent]) -> Self {
        let mut scan = Prescan::default();
        for event in events {
            scan.take(event);
        }
        scan.finish();
        scan
    }

    /// Reads the session's next line.
    pub fn take(&mut self, event: &LogEvent) {
        let seq = self.seq;
        self.seq += 1;
        if let Some(t) = event.time.secs() {
            self.last_time = t;
            if let Some(previous) = self.last_timed {
                let gap = t - previous;
                if gap > 0.0 && self.smallest_gap.is_none_or(|s| gap < s) {
                    self.smallest_gap = Some(gap);
                }
            }
            self.last_timed = Some(t);
        }
        self.refine(seq, event);
        self.see_availability(event);
        let project = || event.project.as_deref().unwrap_or_default().to_string();
        match &event.message {
            Message::RecentEstCredit { secs, .. } if self.rec.is_none() => self.rec = Some(*secs),
            Message::AdjustRecIgnored { period, .. } if self.rec_ignored.is_none() => {
                self.rec_ignored = Some(*period)
            }
            Message::SimFinishes {
                job,
                gflops_left,
                gflops_rate,
                ..
            } => {
                self.update_size(job, |size| {
                    size.flops.get_or_insert(gflops_left * 1e9);
                    size.rate.get_or_insert(gflops_rate * 1e9);
                });
            }
            Message::EmuTaskStart {
                job,
                gflops_left: Some(left),
                ..
            } => {
                self.update_size(job, |size| {
                    size.flops.get_or_insert(left * 1e9);
                });
            }
            Message::PreliminaryJobList => self.preliminary = true,
            Message::FinalJobList => self.preliminary = false,
            Message::JobListEntry {
                job,
                uts: Some(uts),
                ..
            } if self.preliminary && !self.first_uts.contains_key(job.as_str()) => {
                self.first_uts.insert(job.to_string(), *uts);
            }
            Message::BackingOff { rsc, secs } => {
                let key = (project(), rsc.long_name().to_string());
                if let Some(&(first_seq, first_time, first_secs)) = self.last_draws.get(&key) {
                    self.bound_by_next_draw(first_seq, first_secs, self.last_time - first_time);
                }
                self.last_draws
                    .insert(key.clone(), (seq, self.last_time, *secs));
                self.open_draws.push(OpenDraw {
                    seq,
                    time: self.last_time,
                    project: key.0,
                    rsc: key.1,
                    secs: *secs,
                    current_rsc: None,
                })
            }
            Message::EmuRpcSkippedProjectDown => self.open_deferrals.push(OpenDeferral {
                seq,
                time: self.last_time,
                project: project(),
                secs: None,
                read: 0,
                early: Vec::new(),
                own_line: true,
            }),
            _ => {}
        }
    }

    /// Updates the size kept for `job`, made on its first line (its name
    /// copied only then: nearly every `[rr_sim]` line names a job seen
    /// before).
    fn update_size(&mut self, job: &str, update: impl FnOnce(&mut JobSize)) {
        match self.sizes.get_mut(job) {
            Some(size) => update(size),
            None => {
                let mut size = JobSize::default();
                update(&mut size);
                self.sizes.insert(job.to_string(), size);
            }
        }
    }

    /// A new draw for the same project and resource `elapsed` seconds after
    /// the draw of line `first_seq` (printed `first_secs`): the client
    /// draws again only once the old backoff has ended (work_fetch.cpp
    /// WORK_FETCH::handle_reply: `backoff_time < now`), so the first draw
    /// was below `elapsed`. Where its printed or refined value says
    /// otherwise only by rounding (whole seconds, or a dump's two
    /// decimals), it is taken between what those decimals allow and
    /// `elapsed`.
    fn bound_by_next_draw(&mut self, first_seq: usize, first_secs: f64, elapsed: f64) {
        let known = self.refined.draws.get(&first_seq).copied();
        let (value, low) = match known {
            Some(refined) => (refined, (refined - 0.005).max(first_secs - 0.5)),
            None => (first_secs, first_secs - 0.5),
        };
        if value >= elapsed && elapsed > low {
            self.refined.draws.insert(first_seq, (low + elapsed) / 2.0);
        }
    }

    /// Reads a line into the refinements still looked for.
    fn refine(&mut self, seq: usize, event: &LogEvent) {
        advance(&mut self.open_draws, seq, event, &mut self.refined.draws);
        advance(
            &mut self.open_deferrals,
            seq,
            event,
            &mut self.refined.deferrals,
        );
    }

    /// The session has ended: searches still open found nothing.
    pub fn finish(&mut self) {
        self.open_draws.clear();
        self.last_draws.clear();
        self.open_deferrals.clear();
    }

    /// Lines read.
    pub fn lines(&self) -> usize {
        self.seq
    }

    /// The emulator's time step (`--delta`). Every line of a step carries
    /// the step's time, so the smallest gap between two consecutive times
    /// in the log is the step, wherever two neighbouring steps both
    /// printed; the first `recent est credit ... in N sec` interval (or an
    /// ignored REC interval's period) is a multiple of it and decides when
    /// the gaps do not (the first REC interval alone spans two steps when
    /// the host was off at the first one).
    pub fn time_step(&self) -> Option<f64> {
        let rec = self.rec.or(self.rec_ignored);
        match (self.smallest_gap, rec) {
            (Some(gap), Some(rec)) => {
                let ratio = rec / gap;
                if gap < rec && (ratio - ratio.round()).abs() < 1e-6 {
                    Some(gap)
                } else {
                    Some(rec)
                }
            }
            (gap, rec) => rec.or(gap),
        }
    }

    fn see_availability(&mut self, event: &LogEvent) {
        let poll_evidence = matches!(
            event.message,
            Message::WorkFetchStateStart
                | Message::EmuRpcGetWork
                | Message::EmuRpcReportResults
                | Message::EmuRpcSkippedProjectDown
        );
        // With work_fetch_debug on (the start-up `log flags:` line),
        // a log without any block is a host never connected.
        self.any_block |= match &event.message {
            Message::WorkFetchStateStart => true,
            Message::LogFlags { flags } => flags.iter().any(|f| f == "work_fetch_debug"),
            _ => false,
        };
        let pass = matches!(
            event.message,
            Message::MakeRunListStart | Message::ScheduleCpusStart
        );
        self.any_pass |= pass;
        // Exits are logged while the client is off too (client/sim.cpp
        // polls tasks before it checks `on`); only a scheduling pass or
        // the RPC poll says the client ran.
        if let EventTime::Simulated(secs) = event.time {
            let step = i64::try_from(secs).unwrap_or(i64::MAX);
            if poll_evidence || pass {
                self.logged.insert(step);
            }
            if poll_evidence {
                self.polled.insert(step);
            }
        }
    }

    /// The host's availability per step ([`Availability`]) from the
    /// timeline rows and the lines read.
    pub fn availability(&self, steps: &[StepAvailability]) -> Availability {
        Availability {
            steps: steps.iter().map(|s| (s.time, *s)).collect(),
            polled: self.any_block.then(|| self.polled.clone()),
            logged: (self.any_block || self.any_pass).then(|| self.logged.clone()),
        }
    }
}

/// A job's size as the trace shows it. Under the emulator every `[rr_sim]`
/// line and the `Starting task` line print the true FLOPs left
/// (`sim_flops_left`: client/result.h `estimated_flops_remaining()` under
/// SIM), so the first line naming a job shows its true size; the estimate
/// the client sees (`rsc_fpops_est`, a random draw) is never printed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JobSize {
    /// FLOPs left when first seen: the true size.
    pub flops: Option<f64>,
    /// FLOPS rate of its app version, as printed (`/N.NNG`).
    pub rate: Option<f64>,
}

/// Host availability per emulator step (external inputs, reference README):
/// whether the client ran (`on`), GPUs were allowed (`gpu_active`) and the
/// RPC poll ran (`connected`).
///
/// * `on` comes from the shape of the log: with `cpu_sched_debug` or
///   `work_fetch_debug` on, every step in which the client ran prints its
///   scheduling pass or its work-fetch block (a step in which it was off
///   prints at most the exits of tasks, which progress while it is off). (timeline.html cannot tell:
///   its `BOINC not running` rows mark steps that were not *active*
///   (client/sim.cpp `html_rec()`), and a client that is on but not active
///   still schedules, fetches work and runs CPU jobs.) A log without such
///   lines says nothing: every step counts as on unless the timeline says
///   `BOINC not running`.
/// * `gpu_active` comes from the emulator's timeline.html rows: a step
///   that was active with no `GPUs disabled` cell; without the timeline,
///   every step has GPUs allowed.
/// * `connected` comes from the shape of the log too: every step in which
///   the emulator polled for RPCs prints a work-fetch block (or `doing RPC
///   …` / `RPC skipped: project down`), so a running step without one was
///   a disconnected step. A log without any work-fetch block says nothing
///   (every running step counts as connected) unless its `log flags:` line
///   shows work_fetch_debug on: then the host was never connected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Availability {
    steps: std::collections::BTreeMap<i64, StepAvailability>,
    polled: Option<std::collections::BTreeSet<i64>>,
    logged: Option<std::collections::BTreeSet<i64>>,
}

impl Availability {
    /// Reads availability from the timeline rows and the log.
    pub fn from_trace(steps: &[StepAvailability], events: &[LogEvent]) -> Self {
        Prescan::of(events).availability(steps)
    }

    /// Whether the emulator's timeline.html rows are here (they alone tell
    /// the steps with GPUs disabled).
    pub fn has_timeline(&self) -> bool {
        !self.steps.is_empty()
    }

    fn step(&self, now: f64) -> Option<&StepAvailability> {
        self.steps.get(&(now.round() as i64))
    }

    /// The client ran in the step at `now`.
    pub fn on(&self, now: f64) -> bool {
        match &self.logged {
            Some(logged) => logged.contains(&(now.round() as i64)),
            None => self.step(now).is_none_or(|s| s.on),
        }
    }

    /// GPUs were allowed in the step at `now` (never while off or inactive).
    pub fn gpu_active(&self, now: f64) -> bool {
        self.on(now) && self.step(now).is_none_or(|s| s.on && s.gpus_allowed)
    }

    /// The RPC poll ran in the step at `now` (only while on).
    pub fn connected(&self, now: f64) -> bool {
        self.on(now)
            && self
                .polled
                .as_ref()
                .is_none_or(|polled| polled.contains(&(now.round() as i64)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_sequence_order() {
        let arrival = |time: f64, seq: usize| ExternalEvent::JobArrival {
            time,
            seq,
            project: "A".into(),
            job: format!("A_{seq}"),
        };
        let mut queue = ExternalQueue {
            events: vec![arrival(1.0, 0), arrival(1.0, 1), arrival(5.0, 2)]
                .into_iter()
                .collect(),
        };
        let first = queue.pop_until(1.0, 2);
        assert_eq!(first.len(), 2);
        assert_eq!(first[0].key(), (1.0, 0));
        assert_eq!(queue.len(), 1);
    }

    fn event_at(secs: u64, message: Message) -> LogEvent {
        LogEvent {
            location: crate::source::Location::new(
                crate::source::SourcePath::from("log.txt"),
                1,
                1,
            ),
            time: EventTime::Simulated(secs),
            project: None,
            tag: None,
            message,
            internal_error: false,
            from_server: false,
            priority: None,
        }
    }

    /// suspended_and_nnw (reference emulator scenario): timeline.html says
    /// 04:18:00 `BOINC not running` and 04:54:00 `GPUs disabled`; the log has
    /// a work-fetch block at 10:54:00 but none from 11:00:00 to 13:12:00
    /// (the client ran but did not poll: disconnected).
    #[test]
    fn availability_from_the_timeline_and_the_log() {
        let step = |time, on, gpus_allowed| StepAvailability {
            time,
            on,
            gpus_allowed,
        };
        // 39600 is marked `BOINC not running` (not active) yet the client
        // made a scheduling pass there: on, but no GPU.
        let steps = [
            step(15480, false, false),
            step(17640, true, false),
            step(39240, true, true),
            step(39600, false, false),
        ];
        let events = [
            // A line logged while the client was off (a task exit).
            event_at(15480, Message::SimAlreadyDone),
            event_at(39240, Message::WorkFetchStateStart),
            event_at(39600, Message::MakeRunListStart),
        ];
        let availability = Availability::from_trace(&steps, &events);
        assert!(!availability.on(15480.0) && !availability.gpu_active(15480.0));
        assert!(!availability.connected(15480.0));
        // No pass and no work-fetch block: the client was off.
        assert!(!availability.on(17640.0) && !availability.connected(17640.0));
        assert!(availability.on(39240.0) && availability.connected(39240.0));
        assert!(availability.gpu_active(39240.0));
        assert!(availability.on(39600.0) && !availability.connected(39600.0));
        assert!(!availability.gpu_active(39600.0));
        assert!(!availability.on(99999.0));
        // A log without passes or work-fetch blocks says nothing: the
        // timeline decides, and every running step counts as connected.
        let silent = Availability::from_trace(&steps, &events[..1]);
        assert!(silent.on(17640.0) && !silent.gpu_active(17640.0));
        assert!(silent.connected(17640.0));
        assert!(!silent.on(15480.0));
        assert!(silent.on(99999.0) && silent.gpu_active(99999.0));
    }
}

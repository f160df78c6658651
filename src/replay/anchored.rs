//! The anchored replay of one client session: the client loop over the
//! recording ([`super::world::RecordedWorld`]) from the emulator's start
//! state, with [`super::driver::Comparer`] comparing each decision as it
//! is made.
//!
//! A session is fed whole, or window by window as its log is read
//! ([`super::window`]): each window brings its recorded points and the
//! external events of its lines, and the loop runs the steps whose lines
//! are all read, then waits, suspended, for the next window. What the loop
//! needs from later lines (job sizes, the time step, when the client ran
//! and polled, the refined draws) comes from a [`Prescan`] of the session,
//! small indexes read in a first pass over the log. Fed in windows, the
//! loop makes the same steps and the comparer the same comparisons as fed
//! whole (`tests/windowed.rs` holds the references to that).
//!
//! Architecture Invariant: no I/O; the session's lines come in as events.

use super::build;
use super::driver::Comparer;
use super::queue::{ExternalQueue, Prescan};
use super::world::{self, Generator, RecordedWorld};
use crate::client_loop::{ClientLoop, LoopCore, LoopOptions, Profile};
use crate::policy::state::HostState;
use crate::policy::{Params, RuntimeModel};
use crate::trace::{StepAvailability, Trace};
use std::collections::BTreeMap;

/// One session's anchored replay under way.
pub struct AnchoredRun {
    /// The loop between two windows (`None` before it started or after it
    /// stopped).
    suspended: Option<LoopCore>,
    world: RecordedWorld,
    /// The comparer (its results are taken window by window).
    pub comparer: Comparer,
    /// The time of the loop's next step.
    next_now: f64,
    /// Why the loop stopped early, if it did.
    pub stopped: Option<String>,
}

/// The emulator's apps of the first recorded client state: (project, app)
/// → (latency bound, true size) ([`build::emulator_app_params`]).
fn emulator_apps(trace: &Trace) -> BTreeMap<(String, String), (f64, f64)> {
    let mut apps = BTreeMap::new();
    for recorded in trace.state.client_states.iter().take(1) {
        for project in &recorded.projects {
            let name = project
                .project_name
                .clone()
                .or_else(|| project.master_url.clone())
                .unwrap_or_default();
            for app in &project.apps {
                if let Some(app_name) = &app.name {
                    apps.insert(
                        (name.clone(), app_name.clone()),
                        build::emulator_app_params(project, app_name),
                    );
                }
            }
        }
    }
    apps
}

impl AnchoredRun {
    /// A run over `state` (the emulator's start) with time step `delta`,
    /// the session's `prescan` and the emulator's timeline `steps`;
    /// `generated` are the jobs the emulator's servers made (their
    /// estimates), `comparer` the comparer of its decisions.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        trace: &Trace,
        state: HostState,
        delta: f64,
        params: &Params,
        profile: Profile,
        generated: &Generator,
        prescan: &Prescan,
        steps: &[StepAvailability],
        comparer: Comparer,
    ) -> Self {
        let world = RecordedWorld::new(
            ExternalQueue::default(),
            prescan.availability(steps),
            prescan.sizes.clone(),
            emulator_apps(trace),
            params.clone(),
        )
        .with_shadow(generated.shadow.as_ref().map(|make| make()))
        .with_first_uts(prescan.first_uts.clone());
        // The emulator's settings of the engine: exact remaining work and
        // REC accounting once per time step (§9.7).
        let mut params = params.clone();
        params.runtime_model = RuntimeModel::Emulator;
        params.rec_adjust_period = delta;
        let options = LoopOptions {
            delta,
            duration: 0.0,
            params,
            profile,
        };
        let mut run = AnchoredRun {
            suspended: None,
            world,
            comparer,
            next_now: build::EMULATOR_START,
            stopped: None,
        };
        match ClientLoop::new(state, options, &mut run.world, &mut run.comparer) {
            Ok(client) => run.suspended = Some(client.suspend()),
            Err(e) => run.stopped = Some(format!("the replay could not start: {e}")),
        }
        run
    }

    /// Adds the external events of the next lines of the session.
    pub fn feed_queue(&mut self, queue: ExternalQueue) {
        self.world.extend_queue(queue);
    }

    /// Runs the steps before `before` and not after `end` (the lines of
    /// every such step have been fed).
    pub fn run_before(&mut self, before: f64, end: f64) {
        if let Err(e) = ClientLoop::run_suspended(
            &mut self.suspended,
            &mut self.world,
            &mut self.comparer,
            &mut self.next_now,
            before,
            end,
        ) {
            self.stopped = Some(format!("the replay stopped: {e}"));
        }
    }

    /// Marks the points fed and not compared as not replayed when the loop
    /// has stopped.
    pub fn abandon_if_stopped(&mut self) {
        if let Some(why) = &self.stopped {
            let why = why.clone();
            self.comparer.abandon(&why);
        }
    }

    /// Runs the session's last steps (up to its last recorded point) and
    /// compares every point left; gives the received jobs whose estimate
    /// was not known.
    pub fn finish(&mut self) -> world::UnknownEstimates {
        let last = self.comparer.last_time().unwrap_or(build::EMULATOR_START);
        if build::EMULATOR_START <= last + 1e-6 {
            self.run_before(f64::INFINITY, last + 1e-6);
        }
        self.abandon_if_stopped();
        self.comparer.finish();
        self.world.unknown_estimates()
    }
}

/// The anchored replay of a session read window by window
/// ([`super::audit_window`]): the session's pre-scan, where the current
/// window's lines start in the session, and the run once started.
pub struct AnchoredSlot {
    prescan: Prescan,
    /// The index in the session of the window's first line.
    base: usize,
    run: Option<AnchoredRun>,
    /// The runs of the same session under other rules, which judge this
    /// one's decisions (`--since-changed`: today's rules, then the
    /// release's with one change applied), each fed the same windows.
    judges: Vec<AnchoredSlot>,
}

impl AnchoredSlot {
    /// A session not started yet, pre-scanned as `prescan`.
    pub fn new(prescan: Prescan) -> Self {
        AnchoredSlot {
            prescan,
            base: 0,
            run: None,
            judges: Vec::new(),
        }
    }

    /// The `k`-th run of the session under other rules (made at its first
    /// window, then fed the same windows as this one).
    pub fn judge(&mut self, k: usize) -> &mut AnchoredSlot {
        while self.judges.len() <= k {
            let mut slot = AnchoredSlot::new(self.prescan.clone());
            slot.base = self.base;
            self.judges.push(slot);
        }
        &mut self.judges[k]
    }

    /// The run has started (at the session's first window).
    pub fn started(&self) -> bool {
        self.run.is_some()
    }

    /// The session's pre-scan.
    pub fn prescan(&self) -> &Prescan {
        &self.prescan
    }

    /// The next window's lines start at the session's `base`-th line.
    pub fn set_base(&mut self, base: usize) {
        self.base = base;
        for judge in &mut self.judges {
            judge.set_base(base);
        }
    }

    /// Feeds `window` (its lines are `trace.events`, its recorded points
    /// `points`) to the run, started by `start` at the first window, and
    /// runs every step whose lines are read: all of them at the session's
    /// last window. Gives the comparer, whose results and divergences are
    /// those of the points compared since the last window; at the last
    /// window, also the received jobs whose estimate was not known and why
    /// the loop stopped early, if it did.
    pub fn window(
        &mut self,
        trace: &Trace,
        window: &super::window::Window,
        points: &[super::recorded::RecordedPoint],
        start: impl FnOnce(&Prescan) -> AnchoredRun,
    ) -> (Comparer, world::UnknownEstimates, Option<String>) {
        let prescan = &self.prescan;
        let run = self.run.get_or_insert_with(|| start(prescan));
        run.comparer
            .feed_from(points, &trace.events, |p| window.reports(p.event_idx));
        let end = window.until.unwrap_or(trace.events.len());
        run.feed_queue(ExternalQueue::from_window(
            &trace.events,
            self.base,
            window.from..end,
            &self.prescan.refined,
        ));
        match window.until {
            Some(until) => {
                // Every line of a step before the next window's first time
                // is read (an emulator's times never go back in a session).
                let next = trace.events[until.min(trace.events.len())..]
                    .iter()
                    .find_map(|e| e.time.secs())
                    .unwrap_or(f64::INFINITY);
                run.run_before(next - 0.5, f64::INFINITY);
                run.abandon_if_stopped();
                let compared = run.comparer.take_compared();
                (compared, world::UnknownEstimates::default(), None)
            }
            None => {
                let unknown = run.finish();
                let stopped = run.stopped.take();
                let compared = run.comparer.take_compared();
                (compared, unknown, stopped)
            }
        }
    }
}

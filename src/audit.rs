//! The whole audit of one trace: the anchored policy replay (client side) and
//! the scheduler rules on its RPC transcripts (server side), merged into one
//! [`DivergenceReport`].
//!
//! Architecture Invariant: orchestration only — it calls `parse` (for the
//! streaming audit), `replay` and `server` and merges their neutral results (and, for an emulator reference, asks
//! `simulate` for the emulator's undrawn-in-the-log job estimates); it holds
//! no policy or rule logic and renders nothing.

use crate::divergence::{add_rested_on, DivergenceReport, HostActivity, Unchecked};
use crate::parse::{self, LogOptions, ParseError, Select};
use crate::replay::anchored::AnchoredSlot;
use crate::replay::ltd::{LtdRun, Prescan610};
use crate::replay::queue::Prescan;
use crate::replay::world::Generator;
use crate::replay::{self, AuditOptions, ReplayError, SessionCarry, Window, WindowStart};
use crate::server;
use crate::trace::{ClientVersion, EventTime, LogEvent, Message, TimeBase, Trace, UserToggles};
use std::collections::VecDeque;
use std::path::PathBuf;

/// Audits `trace`: replays the policy over its event log (when it has one)
/// and checks the scheduler rules on its transcripts (when it has any).
///
/// A trace with transcripts but no event log is audited on the server side
/// only; the client-side replay is then listed as unchecked. A log that
/// holds several client sessions (a restart, logs concatenated) is audited
/// session by session, each under its own client's rules ([`Sessions`]).
pub fn audit_trace(
    trace: &Trace,
    trace_name: &str,
    options: &AuditOptions,
) -> Result<DivergenceReport, ReplayError> {
    // Every part but the events, which go in one by one (a clone of the
    // whole trace would copy them twice).
    let skeleton = Trace {
        meta: trace.meta.clone(),
        events: Vec::new(),
        state: trace.state.clone(),
        rpcs: trace.rpcs.clone(),
        availability: trace.availability.clone(),
        job_runtimes: trace.job_runtimes.clone(),
    };
    let mut sessions = Sessions::new(skeleton, trace_name, options, Keep::Activity);
    for event in &trace.events {
        sessions.take(event.clone());
    }
    sessions.finish()
}

/// What [`audit_paths`] read and found.
pub struct StreamedAudit {
    /// The report, or why the trace could not be audited.
    pub report: Result<DivergenceReport, ReplayError>,
    /// Inputs that could not be read (the audit went on without them).
    pub errors: Vec<ParseError>,
    /// Problems that did not make the trace incomplete.
    pub warnings: Vec<ParseError>,
    /// The trace without its events: state, configuration, transcripts and
    /// the log's facts (client version, UTC offset).
    pub trace: Trace,
    /// The windows long sessions were audited in (0: every session whole).
    pub windows: usize,
}

/// Audits the inputs under `paths` while their logs are read: the state,
/// configuration and RPC files first, then each log event as it is parsed,
/// audited one client session at a time ([`Sessions`]): memory holds one
/// session's events (one window's, for a long session checked from its own
/// lines), not the log's. What the report keeps is `keep`'s ([`Keep`]).
/// `observe` sees every event of each pass over the logs (progress).
pub fn audit_paths(
    paths: &[PathBuf],
    log_options: &LogOptions,
    trace_name: &str,
    options: &AuditOptions,
    keep: Keep,
    observe: &mut dyn FnMut(Pass, &LogEvent),
) -> StreamedAudit {
    audit_paths_sized(
        paths,
        log_options,
        trace_name,
        options,
        keep,
        WindowSizes::default(),
        observe,
    )
}

/// [`audit_paths`] with a long session cut in windows of `sizes`.
pub fn audit_paths_sized(
    paths: &[PathBuf],
    log_options: &LogOptions,
    trace_name: &str,
    options: &AuditOptions,
    keep: Keep,
    sizes: WindowSizes,
    observe: &mut dyn FnMut(Pass, &LogEvent),
) -> StreamedAudit {
    let reading = Reading {
        sizes,
        parse_thread: Reading::spare_core(),
    };
    audit_paths_read(
        paths,
        log_options,
        trace_name,
        options,
        keep,
        reading,
        observe,
    )
}

/// How [`audit_paths_read`] reads the logs.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// The windows of a long session.
    pub sizes: WindowSizes,
    /// The logs are parsed on a thread of their own while the audit takes
    /// their events ([`parse_logs`]), and an emulator log's pre-scan pass
    /// on two ([`crate::parse::event_log::blocks`]): the same events in the
    /// same order, on two cores. Off for a fleet, whose workers already use
    /// the cores.
    pub parse_thread: bool,
}

impl Reading {
    /// True when this process may use more than one core.
    pub fn spare_core() -> bool {
        std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
    }
}

/// Events handed from the parsing thread to the audit at a time: enough
/// to make the hand-over rare, few enough to keep the batches in flight
/// (at most [`BATCHES_IN_FLIGHT`] + 2) a small part of the audit's memory.
const BATCH_EVENTS: usize = 512;
const BATCHES_IN_FLIGHT: usize = 4;

/// Threads that parse an emulator log for the pre-scan (the caller's
/// thread hands their events to it).
const PRESCAN_READING_THREADS: usize = 2;

/// The events of the logs among `inputs`, in order, to `on_event`: parsed
/// on this thread, or on a second one (`parse_thread`) that hands them over
/// in batches, their vectors handed back to be filled again.
fn parse_logs(
    inputs: &[parse::discover::Input],
    log_options: &LogOptions,
    parse_thread: bool,
    on_event: &mut dyn FnMut(LogEvent),
) -> parse::ParseOutcome {
    // The logs' errors and warnings only: discovery reported its own.
    let parse_here = |on_event: &mut dyn FnMut(LogEvent)| {
        parse::parse_discovered(inputs, Vec::new(), log_options, Select::LogsOnly, on_event)
    };
    if !parse_thread {
        return parse_here(on_event);
    }
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Vec<LogEvent>>(BATCHES_IN_FLIGHT);
        let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<LogEvent>>();
        let parser = std::thread::Builder::new()
            .name("parse".to_string())
            .spawn_scoped(scope, move || {
                let mut batch = Vec::with_capacity(BATCH_EVENTS);
                let outcome = parse_here(&mut |event| {
                    batch.push(event);
                    if batch.len() == BATCH_EVENTS {
                        let next = empty_rx
                            .try_recv()
                            .unwrap_or_else(|_| Vec::with_capacity(BATCH_EVENTS));
                        // The audit stops taking only when it panicked.
                        let _ = full_tx.send(std::mem::replace(&mut batch, next));
                    }
                });
                if !batch.is_empty() {
                    let _ = full_tx.send(batch);
                }
                outcome
            });
        let parser = match parser {
            Ok(parser) => parser,
            // No thread to be had: parsed here, as on one core.
            Err(_) => return parse_here(on_event),
        };
        for mut batch in full_rx {
            for event in batch.drain(..) {
                on_event(event);
            }
            let _ = empty_tx.send(batch);
        }
        parser
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// [`audit_paths`] with a long session cut in windows and the logs read as
/// `reading` says.
pub fn audit_paths_read(
    paths: &[PathBuf],
    log_options: &LogOptions,
    trace_name: &str,
    options: &AuditOptions,
    keep: Keep,
    reading: Reading,
    observe: &mut dyn FnMut(Pass, &LogEvent),
) -> StreamedAudit {
    let Reading {
        sizes,
        parse_thread,
    } = reading;
    let windowed = keep != Keep::Activity;
    let (inputs, discover_errors) = parse::discover::discover(paths);
    let state = parse::parse_discovered(
        &inputs,
        discover_errors,
        log_options,
        Select::StateOnly,
        &mut |_| {},
    );
    let mut errors = state.errors;
    let mut warnings = state.warnings;
    let mut skeleton = state.trace;
    let state_version = skeleton
        .state
        .client_states
        .iter()
        .find_map(|s| s.core_client_version);
    skeleton.meta.client_version = None;
    // An emulator run with its inputs is replayed from its start state: a
    // first pass over its log gathers what the replay needs of later lines
    // (small indexes), so its sessions too are read window by window.
    // So is a run of the 6.10 emulator with its inputs.
    // Not beside a real client's log (its times are dates: checked from its
    // own lines), which would make the first pass for nothing.
    let emulator_log = || {
        inputs
            .iter()
            .any(|input| input.kind == crate::trace::FileKind::EmulatorLog)
    };
    let anchored =
        windowed && replay::build::build_emulator_state(&skeleton).is_ok() && emulator_log();
    let harness = windowed && crate::simulate::emulator_6_10::build(&skeleton).is_ok();
    // A real client's log beside state files may start on one it does not
    // see made: what the user had suspended then is the state files' flag
    // turned back by the log's first line about it, read in a first pass.
    let toggled = windowed && !anchored && !harness && !skeleton.state.client_states.is_empty();
    let mut prescans = Prescans::<Prescan>::new();
    let mut harness_prescans = Prescans::<Prescan610>::new();
    let mut toggle_prescans = Prescans::<UserToggles>::new();
    if anchored || harness || toggled {
        // Its errors and warnings are the second pass's. The pre-scan takes
        // an event in far less time than its parse, so the parse is what to
        // share: an emulator log is parsed block by block on two threads and
        // its events are handed here in order (a single parsing thread
        // handed over more than it saved: 20 ms against 17.5 ms here, on the
        // emulator references). Only where the audit may use the cores
        // (not in a fleet's worker).
        let first_pass = LogOptions {
            reading_threads: if parse_thread {
                PRESCAN_READING_THREADS
            } else {
                0
            },
            ..log_options.clone()
        };
        let _ = parse_logs(&inputs, &first_pass, false, &mut |event| {
            observe(Pass::PreScan, &event);
            if anchored {
                prescans.take(&event);
            }
            if harness {
                harness_prescans.take(&event);
            }
            if toggled {
                toggle_prescans.take(&event);
            }
        });
    }
    let mut sessions = Sessions::new(skeleton, trace_name, options, keep)
        .with_window_sizes(sizes)
        .with_prescans(
            prescans.finish(),
            harness_prescans.finish(),
            toggle_prescans.finish(),
        );
    let logs = parse_logs(&inputs, log_options, parse_thread, &mut |event| {
        observe(Pass::Audit, &event);
        sessions.take(event);
    });
    errors.extend(logs.errors);
    warnings.extend(logs.warnings);
    // The trace's facts as `load_trace` gives them: the logs' first values,
    // the state file's client version when no log states one.
    let mut meta = logs.trace.meta;
    if meta.client_version.is_none() {
        meta.client_version = state_version;
    }
    sessions.skeleton.meta = meta;
    let windows = sessions.windows;
    let (report, trace) = sessions.finish_with_trace();
    StreamedAudit {
        report,
        errors,
        warnings,
        trace,
        windows,
    }
}

/// What an audit's report keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Totals and divergences: the agreeing and unchecked points only as
    /// counts ([`DivergenceReport::fold_agreeing`]), for the reporters that
    /// print totals and divergences. A long session is read window by
    /// window.
    Totals,
    /// Every decision point, not the host's activity (the per-point tables:
    /// CSV, Parquet, a fleet's rows). A long session is read window by
    /// window: memory holds the points, not the lines.
    Points,
    /// Every decision point and the host's activity (the timeline's lanes):
    /// a session is read whole.
    Activity,
}

/// Which pass over the logs an event is read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// The first pass over an emulator run with its inputs: what the replay
    /// needs of later lines, as small indexes.
    PreScan,
    /// The audit.
    Audit,
}

/// The audit of a log one client session at a time.
///
/// A session ends where the next begins: a `Starting BOINC client` or
/// `SIMULATION START` line after other lines (the client restarted; the
/// .old and current logs of a host concatenated), the emulator's clock
/// going back, a wall clock going back by more than a day, or the times
/// switching between the emulator's seconds and dates (another run
/// appended). Nothing a client decides carries over a
/// restart but what its state file holds, so each session is replayed by
/// itself, under the rules of the release its own start-up line names;
/// except that the same release started again later on the same wall
/// clock is the host's client restarting on its state file: its jobs and
/// tasks carry over, and the lines after it stay in the session (a new
/// state file, `Creating new client state file`, starts the jobs afresh).
///
/// When only totals and divergences are kept, a long session is audited
/// window by window as it is read ([`replay::window`]), so memory holds one
/// window's lines, not the session's: checked from its own lines, or
/// replayed from an emulator run's inputs once a first pass pre-scanned
/// the log ([`Sessions::with_prescans`]), or listed pass by pass under the
/// 6.x rules, or replayed by the 6.10 emulator's harness once pre-scanned
/// too ([`LtdRun`]).
pub struct Sessions<'a> {
    /// The trace without its events: state, configuration, transcripts.
    skeleton: Trace,
    trace_name: &'a str,
    /// The audit's options (`summary` set when points are not kept).
    options: AuditOptions,
    keep: Keep,
    /// The events of the session being read.
    current: Vec<LogEvent>,
    /// Where sessions begin.
    split: SessionSplit,
    /// The client version of the latest session that named one.
    last_version: Option<ClientVersion>,
    /// The UTC offset the log stated last.
    last_utc_offset: Option<i32>,
    /// The sessions' reports merged so far.
    merged: Option<DivergenceReport>,
    /// Each session's rules, in order.
    policies: Vec<SessionPolicy>,
    /// The first error that stopped a session's replay.
    failed: Option<ReplayError>,
    /// The events the server-side audit reads (RPC lines), when the trace
    /// has transcripts.
    rpc_events: Vec<LogEvent>,
    /// Lines of no known format: how many, and the first.
    unknown: (usize, Option<(String, u32, String)>),
    /// The window sizes of a long session.
    sizes: WindowSizes,
    /// The session under way is audited window by window: what the next
    /// window takes over.
    window: Option<SessionCarry>,
    /// Its facts (client version, UTC offset, clock), read at its start.
    window_meta: Option<crate::trace::TraceMeta>,
    /// Index in `current` of the first line no window reported yet.
    window_from: usize,
    /// The session under way cannot be audited by windows.
    unwindowable: bool,
    /// `current`'s length at which a window is tried next.
    next_try: usize,
    /// Windows audited (a session's last included).
    windows: usize,
    /// The pre-scans of the sessions not begun yet (an emulator run with
    /// its inputs, read window by window: [`AnchoredSlot`]).
    prescans: VecDeque<Prescan>,
    /// The session under way has begun.
    session_open: bool,
    /// Its pre-scan, until its first window.
    session_prescan: Option<Prescan>,
    /// Its anchored replay, when read window by window.
    anchored: Option<AnchoredSlot>,
    /// The 6.10 harness's pre-scans of the sessions not begun yet, the
    /// session's own until its first window, and its run once started,
    /// under these rules (name and why).
    harness_prescans: VecDeque<Prescan610>,
    session_harness_prescan: Option<Prescan610>,
    harness: Option<(LtdRun, String, String)>,
    /// The user's first toggles of the sessions not begun yet, read in a
    /// first pass (a real client's log beside state files, read window by
    /// window), and the session's own.
    toggle_prescans: VecDeque<UserToggles>,
    session_toggles: Option<UserToggles>,
    /// Its lines dropped before `current`'s first.
    dropped: usize,
    /// A window of it was reported (the next is not its first).
    session_reported: bool,
}

/// How a long session is cut into windows ([`Sessions`]), in log lines.
#[derive(Clone, Copy, Debug)]
pub struct WindowSizes {
    /// The lines whose decisions one window reports (at least).
    pub span: usize,
    /// The lines read before them, which warm the extraction.
    pub prefix: usize,
    /// The lines read after them, which close their last passes.
    pub tail: usize,
    /// The lines of a session read whole while its wording has not decided
    /// its client's release (no version stated): past them, the guess
    /// stands and windows begin.
    pub settle: usize,
}

/// The most events [`Sessions`] reserves room for up front (about 50 MB
/// of address space, resident only as it fills).
const MAX_RESERVED_EVENTS: usize = 1 << 18;

impl Default for WindowSizes {
    /// About 2 MB of lines at a time (an event is about 200 bytes). The
    /// sizes bound memory, not results: a window ends only where a pass
    /// starts with its tail read ([`Window::plan`] reads on until then),
    /// and tests/windowed.rs checks windows of any size against the whole
    /// session. Smaller windows read their prefixes and tails more often,
    /// larger ones hold more lines and points: measured on the emulator
    /// references (75,000-100,000 lines), 6,144/1,024/2,048 lines audited
    /// them in 19.6-20.2 MB peak and 3-15% faster than 16,384/2,048/4,096
    /// (24.0-26.3 MB), and a 152 MB appended log in 1.72 s and 31.5 MB
    /// peak (1.83 s, 41.0 MB).
    fn default() -> Self {
        WindowSizes {
            span: 6_144,
            prefix: 1_024,
            tail: 2_048,
            settle: 524_288,
        }
    }
}

impl<'a> Sessions<'a> {
    /// An audit over `skeleton`'s state and transcripts, before any event.
    pub fn new(skeleton: Trace, trace_name: &'a str, options: &AuditOptions, keep: Keep) -> Self {
        Sessions {
            last_version: None,
            last_utc_offset: None,
            skeleton,
            trace_name,
            options: AuditOptions {
                summary: keep == Keep::Totals,
                ..options.clone()
            },
            keep,
            current: Vec::new(),
            split: SessionSplit::new(),
            merged: None,
            policies: Vec::new(),
            failed: None,
            rpc_events: Vec::new(),
            unknown: (0, None),
            sizes: WindowSizes::default(),
            window: None,
            window_meta: None,
            window_from: 0,
            unwindowable: false,
            next_try: 0,
            windows: 0,
            prescans: VecDeque::new(),
            session_open: false,
            session_prescan: None,
            anchored: None,
            harness_prescans: VecDeque::new(),
            session_harness_prescan: None,
            harness: None,
            toggle_prescans: VecDeque::new(),
            session_toggles: None,
            dropped: 0,
            session_reported: false,
        }
    }

    /// The same audit with the pre-scans of the log's sessions (a first
    /// pass over it), so an emulator run with its inputs is replayed
    /// window by window too: for the anchored replay, for the 6.10
    /// emulator's harness.
    fn with_prescans(
        mut self,
        prescans: VecDeque<Prescan>,
        harness_prescans: VecDeque<Prescan610>,
        toggle_prescans: VecDeque<UserToggles>,
    ) -> Self {
        self.prescans = prescans;
        self.harness_prescans = harness_prescans;
        self.toggle_prescans = toggle_prescans;
        self
    }

    /// The same audit with other window sizes (tests cut sessions short).
    pub fn with_window_sizes(mut self, sizes: WindowSizes) -> Self {
        self.sizes = sizes;
        self
    }

    /// Takes the next event of the log.
    pub fn take(&mut self, event: LogEvent) {
        if let Message::Unrecognized { text } = &event.message {
            if self.unknown.1.is_none() {
                self.unknown.1 = Some((
                    event.location.path.to_string(),
                    event.location.line,
                    text.chars().take(81).collect(),
                ));
            }
            self.unknown.0 += 1;
        }
        if !self.skeleton.rpcs.is_empty() && server::reads_event(&event) {
            self.rpc_events.push(event.clone());
        }
        if self.current.capacity() == 0 {
            // Room for a whole window at once: the vector never grows by
            // doubling (each step's copy on fresh pages), and the room a
            // short log leaves unused is never touched, so never resident.
            // (Capped: a session read whole grows past it as it must.)
            let sizes = self.sizes;
            let window = sizes
                .prefix
                .saturating_add(sizes.span)
                .saturating_add(sizes.tail)
                .saturating_add(sizes.span / 4);
            self.current.reserve(window.min(MAX_RESERVED_EVENTS));
        }
        if self.split.begins(&event, !self.current.is_empty()) {
            self.flush();
        }
        if !self.session_open {
            self.session_open = true;
            self.session_prescan = self.prescans.pop_front();
            self.session_harness_prescan = self.harness_prescans.pop_front();
            self.session_toggles = self.toggle_prescans.pop_front();
        }
        self.current.push(event);
        let window_due = self.keep != Keep::Activity
            && !self.unwindowable
            && self.current.len() >= self.next_try.max(self.window_from + self.sizes.span)
            && self.current.len() >= self.window_from + self.sizes.span + self.sizes.tail;
        if window_due {
            self.audit_window();
        }
    }

    /// Audits the next window of a long session, when the session can be
    /// audited by windows and its lines hold a boundary; drops the lines no
    /// later window reads.
    fn audit_window(&mut self) {
        if self.harness.is_some() {
            self.harness_window(false);
            return;
        }
        let carry = match self.window.take() {
            Some(carry) => carry,
            None => {
                // The session's first window: are its decisions read from
                // its own lines?
                // Past `settle` lines the guess of its rules stands.
                let accept_guess = self.current.len() >= self.sizes.settle;
                let events = std::mem::take(&mut self.current);
                let meta = self.session_meta(&events);
                let saved = std::mem::replace(&mut self.skeleton.meta, meta.clone());
                self.skeleton.events = events;
                let anchored = self.session_prescan.is_some();
                let start = replay::window_carry(
                    &self.skeleton,
                    &self.options,
                    accept_guess,
                    anchored,
                    self.session_harness_prescan
                        .as_ref()
                        .is_some_and(Prescan610::ordered),
                );
                // The harness's run starts over the state and inputs.
                let harness = match (&start, self.session_harness_prescan.take()) {
                    (WindowStart::Harness610 { policy, reason }, Some(prescan)) => {
                        LtdRun::start(&self.skeleton, prescan, self.options.tolerance)
                            .ok()
                            .map(|run| (run, policy.clone(), reason.clone()))
                    }
                    (_, prescan) => {
                        self.session_harness_prescan = prescan;
                        None
                    }
                };
                self.current = std::mem::take(&mut self.skeleton.events);
                self.skeleton.meta = saved;
                if let WindowStart::Harness610 { .. } = start {
                    match harness {
                        Some(run) => {
                            self.harness = Some(run);
                            self.harness_window(false);
                        }
                        // The harness could not start (no start line, an
                        // unusable time step): the session is read whole,
                        // and its audit says why.
                        None => self.unwindowable = true,
                    }
                    return;
                }
                match start {
                    WindowStart::Now(carry) => {
                        self.window_meta = Some(meta);
                        self.anchored = self.session_prescan.take().map(AnchoredSlot::new);
                        *carry
                    }
                    // The wording has not decided the release yet: read on.
                    WindowStart::NotYet => {
                        self.next_try = self.current.len() + self.sizes.span;
                        return;
                    }
                    WindowStart::Never | WindowStart::Harness610 { .. } => {
                        self.unwindowable = true;
                        return;
                    }
                }
            }
        };
        let sizes = self.sizes;
        let from = self.window_from;
        let plan = Window::plan(
            &self.current,
            carry.clone(),
            from,
            from + sizes.span,
            sizes.prefix,
            sizes.tail,
        );
        let Some((window, next_start)) = plan else {
            // No pass starts in reach: read on.
            self.window = Some(carry);
            self.next_try = self.current.len() + sizes.span / 4;
            return;
        };
        let first = !self.session_reported;
        self.windows += 1;
        let meta = self.window_meta.clone().unwrap_or_default();
        let events = std::mem::take(&mut self.current);
        let events = self.audit_events(events, meta, Some(&window), first);
        self.skeleton.events = events;
        let anchored = self.anchored.as_ref().is_some_and(AnchoredSlot::started);
        let next = replay::carry_on(&self.skeleton, &window, next_start, !anchored);
        self.current = std::mem::take(&mut self.skeleton.events);
        let until = window.until.unwrap_or(self.current.len());
        self.current.drain(..next_start.min(until));
        self.dropped += next_start.min(until);
        self.window_from = until - next_start.min(until);
        self.window = Some(next);
    }

    /// The facts of the session whose lines are `events`: its client
    /// version and UTC offset (else the last session's, else the trace's)
    /// and its clock.
    fn session_meta(&mut self, events: &[LogEvent]) -> crate::trace::TraceMeta {
        let fallback = self.skeleton.meta.clone();
        let mut meta = fallback.clone();
        meta.client_version = None;
        // A session read whole tells its own toggles; a window, the first
        // pass's.
        let prescanned = self.session_toggles.take();
        let mut toggles = UserToggles::default();
        for event in events {
            if prescanned.is_none() {
                toggles.see(event);
            }
            match &event.message {
                Message::ClientStart { version, .. } if meta.client_version.is_none() => {
                    meta.client_version = Some(*version);
                }
                Message::LocalTime { utc_offset_hours } if meta.utc_offset_hours.is_none() => {
                    meta.utc_offset_hours = Some(*utc_offset_hours);
                }
                _ => {}
            }
        }
        meta.client_version = meta
            .client_version
            .or(self.last_version)
            .or(fallback.client_version);
        meta.utc_offset_hours = meta.utc_offset_hours.or(self.last_utc_offset);
        meta.user_toggles = prescanned.unwrap_or(toggles);
        meta.time_base = match events.first().map(|e| &e.time) {
            Some(EventTime::Simulated(_)) => TimeBase::Simulated,
            Some(EventTime::Local(_) | EventTime::Unix(_)) => TimeBase::WallClock,
            _ => fallback.time_base,
        };
        self.last_version = meta.client_version;
        self.last_utc_offset = meta.utc_offset_hours;
        meta
    }

    /// Audits the session read so far (or its last window) and merges its
    /// report.
    fn flush(&mut self) {
        if self.harness.is_some() {
            self.harness_window(true);
            self.reset_window();
            return;
        }
        if self.current.is_empty() {
            self.reset_window();
            return;
        }
        let events = std::mem::take(&mut self.current);
        let (meta, window, first) = match self.window.take() {
            Some(carry) => {
                self.windows += 1;
                let window = Window::last(&events, carry, self.window_from);
                let first = !self.session_reported;
                (
                    self.window_meta.clone().unwrap_or_default(),
                    Some(window),
                    first,
                )
            }
            None => (self.session_meta(&events), None, true),
        };
        let mut events = self.audit_events(events, meta, window.as_ref(), first);
        // The next session reuses the vector (no regrowth, no fresh pages).
        events.clear();
        self.current = events;
        self.reset_window();
    }

    fn reset_window(&mut self) {
        self.session_open = false;
        self.session_prescan = None;
        self.anchored = None;
        self.session_harness_prescan = None;
        self.session_toggles = None;
        self.harness = None;
        self.dropped = 0;
        self.session_reported = false;
        self.window = None;
        self.window_meta = None;
        self.window_from = 0;
        self.unwindowable = false;
        self.next_try = 0;
    }

    /// Audits `events` (a session, or a window of one: `first` when it is
    /// the session's first report) under `meta` and merges the report;
    /// gives the events back.
    fn audit_events(
        &mut self,
        events: Vec<LogEvent>,
        meta: crate::trace::TraceMeta,
        window: Option<&Window>,
        first: bool,
    ) -> Vec<LogEvent> {
        let saved = std::mem::replace(&mut self.skeleton.meta, meta);
        self.skeleton.events = events;
        // The anchored replay starts at its first window.
        let generated = if window.is_none() || self.anchored.as_ref().is_some_and(|a| !a.started())
        {
            emulator_generator(&self.skeleton, &self.options)
        } else {
            Generator::default()
        };
        if let Some(slot) = &mut self.anchored {
            slot.set_base(self.dropped);
        }
        let result = replay::audit_window(
            &self.skeleton,
            self.trace_name,
            &self.options,
            &generated,
            window,
            self.anchored.as_mut(),
        );
        let events = std::mem::take(&mut self.skeleton.events);
        self.skeleton.meta = saved;
        match result {
            Ok(report) => self.merge_report(report, first),
            Err(err) => {
                if self.failed.is_none() {
                    self.failed = Some(err);
                }
            }
        }
        events
    }

    /// Adds the report of a session or window (`first`: the session's
    /// first) to the reports so far.
    fn merge_report(&mut self, mut report: DivergenceReport, first: bool) {
        if self.keep == Keep::Totals {
            report.fold_agreeing();
        }
        if self.keep != Keep::Activity {
            report.activity = HostActivity::default();
        }
        self.session_reported = true;
        if first {
            self.policies.push(SessionPolicy {
                policy: report.policy.clone(),
                reason: report.policy_reason.clone(),
                release: report.release.clone(),
            });
        }
        match &mut self.merged {
            None => self.merged = Some(report),
            Some(merged) => merge(merged, report),
        }
    }

    /// Feeds the session's lines read so far to the 6.10 harness's run and
    /// merges what it compared; `last`: the session ends here, and the run
    /// with it.
    fn harness_window(&mut self, last: bool) {
        let Some((mut run, policy, reason)) = self.harness.take() else {
            return;
        };
        self.windows += 1;
        let first = !self.session_reported;
        run.feed(&self.current);
        self.dropped += self.current.len();
        self.current.clear();
        let mut report = DivergenceReport {
            trace: self.trace_name.to_string(),
            policy: policy.clone(),
            policy_reason: reason.clone(),
            ..DivergenceReport::default()
        };
        if last {
            let audit = run.finish();
            report.points = audit.points;
            report.divergences = audit.divergences;
            report.unchecked = audit.unchecked;
        } else {
            (report.points, report.divergences) = run.take();
            self.harness = Some((run, policy, reason));
        }
        report.rest_unlabelled_on(replay::LTD_BASIS);
        self.merge_report(report, first);
    }

    /// Audits the last session, the transcripts, and gives the report.
    pub fn finish(self) -> Result<DivergenceReport, ReplayError> {
        self.finish_with_trace().0
    }

    /// [`Sessions::finish`], also giving back the trace without its events
    /// (state, configuration, transcripts, the log's facts).
    pub fn finish_with_trace(mut self) -> (Result<DivergenceReport, ReplayError>, Trace) {
        let report = self.report();
        self.skeleton.events = Vec::new();
        (report, self.skeleton)
    }

    fn report(&mut self) -> Result<DivergenceReport, ReplayError> {
        self.flush();
        if let Some(err) = self.failed.take() {
            return Err(err);
        }
        let n_sessions = self.policies.len();
        let mut report = match self.merged.take() {
            Some(report) => report,
            None if !self.skeleton.rpcs.is_empty() => DivergenceReport {
                trace: self.trace_name.to_string(),
                policy: self
                    .options
                    .policy
                    .clone()
                    .unwrap_or_else(|| "current".to_string()),
                policy_reason: "no event log: only the scheduler transcripts were audited"
                    .to_string(),
                unchecked: vec![Unchecked {
                    what: "client-side policy replay".to_string(),
                    why: "the trace holds no event log (stdoutdae.txt or the emulator's log.txt)"
                        .to_string(),
                }],
                ..DivergenceReport::default()
            },
            None => return Err(ReplayError::NoEvents),
        };
        if n_sessions > 1 {
            describe_sessions(&mut report, &self.policies);
        }
        report.contexts = replay::log_contexts(&report.divergences);
        // A window whose first divergence was a point of the window before
        // (the anchored replay compares a step's points when the next step
        // begins) no longer held its lines: read from the log.
        if report.first_context.is_empty() {
            if let Some(loc) = report.divergences.first().and_then(|d| d.location.as_ref()) {
                report.first_context = replay::first_context_at(loc);
            }
        }
        if let Some(note) = unknown_lines(std::mem::take(&mut self.unknown)) {
            report.unchecked.push(note);
        }
        if !self.skeleton.rpcs.is_empty() {
            self.skeleton.events = std::mem::take(&mut self.rpc_events);
            let server_audit = server::audit_transcripts(&self.skeleton);
            let mut server = DivergenceReport {
                points: server_audit.points,
                ..DivergenceReport::default()
            };
            server.rest_unlabelled_on(
                "the scheduler request and reply transcripts (and the project's configuration \
                 where they show it)",
            );
            for r in server.rested_on {
                add_rested_on(&mut report.rested_on, r.kind, &r.basis, r.checked);
            }
            report.points.extend(server.points);
            report.divergences.extend(server_audit.divergences);
            report.unchecked.extend(server_audit.unchecked);
            if self.keep == Keep::Totals {
                report.fold_agreeing();
            }
        }
        Ok(report)
    }
}

/// How far back a wall clock may go within one session: beyond, the lines
/// are another log appended.
const WALL_CLOCK_BACK_SECS: f64 = 86_400.0;

/// Where a log's client sessions begin ([`Sessions`]): a `Starting BOINC
/// client` or `SIMULATION START` line after other lines, the emulator's
/// clock going back, a wall clock going back by more than a day, or the
/// times switching between the emulator's seconds and dates.
#[derive(Clone, Copy, Debug)]
struct SessionSplit {
    /// The emulator's clock at the last event, if it runs one.
    last_simulated: Option<u64>,
    /// Which clock the last timed event showed.
    last_clock: Clock,
    /// The release the session's last start-up line named.
    version: Option<crate::trace::ClientVersion>,
    /// The wall-clock time of the last event, seconds.
    last_wall: Option<f64>,
}

impl SessionSplit {
    fn new() -> Self {
        SessionSplit {
            last_simulated: None,
            last_clock: Clock::Unknown,
            version: None,
            last_wall: None,
        }
    }

    /// Whether `event` begins a new session when the session under way
    /// has lines (`any`); notes its clock.
    fn begins(&mut self, event: &LogEvent, any: bool) -> bool {
        let new_session = any
            && match (&event.message, &event.time) {
                // The same release started again later on a wall clock: the
                // host's client restarted on its state file (its jobs and
                // tasks carry over), one session.
                (
                    Message::ClientStart { version, .. },
                    EventTime::Local(_) | EventTime::Unix(_),
                ) if self.last_clock == Clock::Wall
                    && self.version == Some(*version)
                    && event
                        .time
                        .secs()
                        .zip(self.last_wall)
                        .is_some_and(|(now, last)| now >= last) =>
                {
                    false
                }
                (Message::ClientStart { .. } | Message::EmuSimulationStart, _) => true,
                // The emulator's clock going back, or another clock.
                (_, EventTime::Simulated(t)) => {
                    self.last_clock == Clock::Wall
                        || self.last_simulated.is_some_and(|last| *t < last)
                }
                // Another clock, or a wall clock gone back by more than a
                // day (another log appended: a client's clock set back
                // moves by hours).
                (_, EventTime::Local(_) | EventTime::Unix(_)) => {
                    self.last_clock == Clock::Emulator
                        || event
                            .time
                            .secs()
                            .zip(self.last_wall)
                            .is_some_and(|(now, last)| now < last - WALL_CLOCK_BACK_SECS)
                }
                (_, EventTime::None) => false,
            };
        match event.time {
            EventTime::Simulated(t) => {
                self.last_simulated = Some(t);
                self.last_clock = Clock::Emulator;
            }
            EventTime::Local(_) | EventTime::Unix(_) => {
                self.last_simulated = None;
                self.last_clock = Clock::Wall;
                self.last_wall = event.time.secs().or(self.last_wall);
            }
            EventTime::None => {}
        }
        if let Message::ClientStart { version, .. } = &event.message {
            self.version = Some(*version);
        }
        new_session
    }
}

/// A session's pre-scan: small indexes of its lines, read in a first pass.
trait SessionScan: Default {
    fn take(&mut self, event: &LogEvent);
    /// After its last line.
    fn finish(&mut self) {}
}

impl SessionScan for Prescan {
    fn take(&mut self, event: &LogEvent) {
        Prescan::take(self, event);
    }
    fn finish(&mut self) {
        Prescan::finish(self);
    }
}

impl SessionScan for UserToggles {
    fn take(&mut self, event: &LogEvent) {
        self.see(event);
    }
}

impl SessionScan for Prescan610 {
    fn take(&mut self, event: &LogEvent) {
        Prescan610::take(self, event);
    }
}

/// The pre-scans of a log's sessions ([`replay::queue::Prescan`] for the
/// anchored replay, [`Prescan610`] for the 6.10 emulator's harness), one
/// per session in order, read in a first pass over the log.
struct Prescans<P> {
    split: SessionSplit,
    current: Option<P>,
    done: VecDeque<P>,
}

impl<P: SessionScan> Prescans<P> {
    fn new() -> Self {
        Prescans {
            split: SessionSplit::new(),
            current: None,
            done: VecDeque::new(),
        }
    }

    fn take(&mut self, event: &LogEvent) {
        if self.split.begins(event, self.current.is_some()) {
            self.end_session();
        }
        self.current.get_or_insert_with(P::default).take(event);
    }

    fn end_session(&mut self) {
        if let Some(mut scan) = self.current.take() {
            scan.finish();
            self.done.push_back(scan);
        }
    }

    fn finish(mut self) -> VecDeque<P> {
        self.end_session();
        self.done
    }
}

/// The clock a log's times are read on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Clock {
    /// No timed event yet.
    Unknown,
    /// The emulator's simulated seconds.
    Emulator,
    /// A date and time (a real client, the 6.10 emulator's dates).
    Wall,
}

/// The rules one session was audited under.
#[derive(Clone, Debug, PartialEq, Eq)]
struct SessionPolicy {
    policy: String,
    reason: String,
    release: Option<String>,
}

/// The policy line of a report over several sessions: one policy when they
/// all ran under the same rules, else `mixed` and each session's.
fn describe_sessions(report: &mut DivergenceReport, policies: &[SessionPolicy]) {
    let mut distinct: Vec<(&SessionPolicy, usize)> = Vec::new();
    for p in policies {
        match distinct.iter_mut().find(|(q, _)| *q == p) {
            Some((_, n)) => *n += 1,
            None => distinct.push((p, 1)),
        }
    }
    let sessions = format!(
        "{} client sessions (a restart or logs appended), each audited by itself",
        policies.len()
    );
    if let [(one, _)] = distinct.as_slice() {
        report.policy = one.policy.clone();
        report.release = one.release.clone();
        report.policy_reason = format!("{}; {sessions}", one.reason);
        return;
    }
    report.policy = "mixed".to_string();
    report.release = None;
    report.policy_reason = format!(
        "{sessions} under their own clients' rules: {}",
        distinct
            .iter()
            .map(|(p, n)| format!("{n} × {} ({})", p.policy, p.reason))
            .collect::<Vec<_>>()
            .join("; ")
    );
}

/// Adds one session's report to the reports of the sessions before it.
fn merge(into: &mut DivergenceReport, session: DivergenceReport) {
    // The lines around the first divergence come with it.
    if into.divergences.is_empty() && !session.divergences.is_empty() {
        into.first_context = session.first_context.clone();
    }
    into.points.extend(session.points);
    for f in session.folded {
        match into
            .folded
            .iter_mut()
            .find(|g| (g.kind, &g.project, &g.resource) == (f.kind, &f.project, &f.resource))
        {
            Some(g) => {
                g.count.total += f.count.total;
                g.count.divergent += f.count.divergent;
                g.count.unchecked += f.count.unchecked;
            }
            None => into.folded.push(f),
        }
    }
    into.divergences.extend(session.divergences);
    for r in session.rested_on {
        add_rested_on(&mut into.rested_on, r.kind, &r.basis, r.checked);
    }
    for u in session.unchecked {
        merge_unchecked(&mut into.unchecked, u);
    }
    for problem in session.input_errors {
        if !into.input_errors.contains(&problem) {
            into.input_errors.push(problem);
        }
    }
    into.since_changed = match (into.since_changed.take(), session.since_changed) {
        (Some(mut a), Some(b)) if a.release == b.release => {
            a.both += b.both;
            a.release_only += b.release_only;
            a.today_only += b.today_only;
            a.neither += b.neither;
            a.today_not_checked += b.today_not_checked;
            for (k, n) in b.release_only_by_kind {
                *a.release_only_by_kind.entry(k).or_default() += n;
            }
            for (k, n) in b.by_change {
                *a.by_change.entry(k).or_default() += n;
            }
            a.first = a.first.or(b.first);
            // A named change shown in both: its lines add up, the first
            // line stays the earlier one's.
            for hit in b.noted {
                match a.noted.iter_mut().find(|h| h.change == hit.change) {
                    Some(known) => known.lines += hit.lines,
                    None => a.noted.push(hit),
                }
            }
            Some(a)
        }
        (a, b) => a.or(b),
    };
    let activity = session.activity;
    if into.activity.resources.is_empty() {
        into.activity.resources = activity.resources;
    }
    into.activity.job_projects.extend(activity.job_projects);
    into.activity.rpcs.extend(activity.rpcs);
    into.activity.rec.extend(activity.rec);
}

/// Adds `u` to `list`: the same note of another session (or window) is
/// said once, with the counts that open both `what`s added (`12 run_list
/// decision(s) not checked` and `3 run_list …` make `15 run_list …`, and
/// two `1 run_list …` make `2 run_list …`).
fn merge_unchecked(list: &mut Vec<Unchecked>, u: Unchecked) {
    let (n, rest) = leading_count(&u.what);
    if n.is_none() && list.contains(&u) {
        return;
    }
    if let Some(n) = n {
        // Counts of one kind whose notes name their first case keep the
        // earlier first.
        let first_of = |why: &str| why.starts_with("first: ");
        if let Some(same) = list.iter_mut().find(|v| {
            (v.why == u.why || (first_of(&v.why) && first_of(&u.why)))
                && leading_count(&v.what).1 == rest
        }) {
            if let (Some(m), _) = leading_count(&same.what) {
                same.what = format!("{}{rest}", m + n);
                return;
            }
        }
    }
    list.push(u);
}

/// `"12 run_list decision(s)"` → (Some(12), `" run_list decision(s)"`).
fn leading_count(what: &str) -> (Option<usize>, &str) {
    let digits = what.bytes().take_while(u8::is_ascii_digit).count();
    match what[..digits].parse() {
        Ok(n) => (Some(n), &what[digits..]),
        Err(_) => (None, what),
    }
}

/// Log lines of no known format (`unknown`: how many, and the first one's
/// file, line and first characters): kept, counted and named in the report
/// (no decision reads them), never dropped silently.
fn unknown_lines(unknown: (usize, Option<(String, u32, String)>)) -> Option<Unchecked> {
    let (n, Some((path, line, text))) = unknown else {
        return None;
    };
    let shown: String = text.chars().take(80).collect();
    let more = if shown.len() < text.len() { "…" } else { "" };
    Some(Unchecked {
        what: format!("{n} log line(s) of no known format (first: {path}:{line} `{shown}{more}`)"),
        why: "kept and counted, but no decision reads them: another client version's \
              wording or a damaged line (`boinc-audit parse --format ndjson` lists them)"
            .to_string(),
    })
}

/// For an emulator reference (its state file in an `inputs/` folder beside
/// `outputs/`) of a release from 7.0 on: a replica of its servers and host
/// under that release's harness ([`crate::simulate::emulator_shadow`];
/// sim.cpp's make_job draws the same way from 7.2.42 to today's), which
/// the replay drives along the recording for the estimates the log does
/// not print. None for the 6.x generations, otherwise, or when the
/// scenario cannot be read; the replay checks each RPC of the replica
/// against the log.
fn emulator_generator(trace: &Trace, options: &AuditOptions) -> Generator {
    let Some(state) = trace.state.client_states.first() else {
        return Generator::default();
    };
    let crate::replay::Harness::Rec(release) = crate::replay::harness_of(trace, options) else {
        return Generator::default();
    };
    let Some(inputs) = std::path::Path::new(&state.path).parent() else {
        return Generator::default();
    };
    let is_reference = inputs.file_name().is_some_and(|n| n == "inputs")
        && inputs
            .parent()
            .is_some_and(|root| root.join("outputs").is_dir());
    if !is_reference {
        return Generator::default();
    }
    let scenario = inputs.to_string_lossy().into_owned();
    let release = release.or(options.client_version);
    let shadow: Box<crate::replay::world::ShadowMaker> = Box::new(move || {
        crate::simulate::emulator_shadow(&scenario, release)
            .map(|w| Box::new(w) as Box<dyn crate::client_loop::World>)
            .map_err(|err| err.to_string())
    });
    Generator {
        shadow: Some(shadow),
    }
}

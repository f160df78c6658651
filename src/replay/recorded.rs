//! Recorded decision points, extracted from the typed log events of a trace.
//!
//! One linear pass over `Trace::events` (file order = time order within a
//! log) groups lines into decision points:
//!
//! - `work_fetch_choice`: one per `------- start work fetch state -------`,
//!   resolved by the first `set_request()` (its project), `doing RPC to get
//!   work` or `No project chosen for work fetch` that follows;
//! - `fetch_state`: the dump between the start and end markers;
//! - `work_request`: each `request: CPU (...)` line (emulator `RPC:
//!   [work_fetch] request:` or the client's own), with the `set_request()`
//!   lines printed since the previous request;
//! - `rr_sim`: each simulation (`[rr_sim] start:` … `end`, plus the
//!   `projected to miss deadline` lines printed after it, else its own
//!   `misses deadline by` lines);
//! - `run_list`: each `make_run_list(): start` … `end`;
//! - `enforcement`: each `enforce_run_list(): start` … `end`;
//! - `priority`: each run of consecutive `[prio]` priority lines, each run of
//!   `recent est credit` lines, each discarded REC interval;
//! - `backoff`: each `backing off RSC N sec` and `Deferring communication`.
//!
//! Architecture Invariant: reads the trace only; knows nothing of the engine.

use super::decision::{
    Decision, FetchDump, PrioEntry, ProjectState, RecEntry, RscRequestLine, RscState, RunListEntry,
    SetRequestLine, ShareState,
};
use crate::divergence::DecisionKind;
use crate::trace::message::{PreemptMode, ResourceRequest, ScheduleKind};
use crate::trace::{EventTime, LogEvent, Message};

/// One recorded decision point.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedPoint {
    /// Seconds on the trace's time base.
    pub time: f64,
    /// The time as printed.
    pub time_label: String,
    /// Index of the first event of the point in `Trace::events`.
    pub event_idx: usize,
    /// The project concerned, if any.
    pub project: Option<String>,
    /// The resource concerned, if any.
    pub resource: Option<String>,
    /// What was recorded.
    pub decision: Decision,
    /// For a work request: it rode on a report-only RPC (piggyback).
    pub piggyback: bool,
    /// For a `[prio]` group: printed by the work-fetch set-up just before a
    /// state dump (fetch-mode priority initialisation, §7.3).
    pub before_fetch: bool,
    /// The log starts inside this decision's lines (a fragment): what it
    /// shows is only the end of the decision.
    pub cut_before: bool,
    /// The log ends inside the pass this decision belongs to (a truncated
    /// file, a copy taken while the client ran): what it shows is only the
    /// start of the pass.
    pub cut_after: bool,
}

impl RecordedPoint {
    /// The kind of decision.
    pub fn kind(&self) -> DecisionKind {
        self.decision.kind()
    }
}

/// Formats an event time the way the log printed it.
pub fn time_label(time: &EventTime) -> String {
    match time {
        EventTime::Simulated(secs) => {
            // client/sim.cpp: the day rollover uses `>`, so 86400 prints as 24:00:00.
            let mut rest = *secs;
            let mut days = 0u64;
            while rest > 86400 {
                rest -= 86400;
                days += 1;
            }
            let clock = format!(
                "{:02}:{:02}:{:02}",
                rest / 3600,
                (rest % 3600) / 60,
                rest % 60
            );
            match days {
                0 => clock,
                1 => format!("1 day {clock}"),
                n => format!("{n} days {clock}"),
            }
        }
        EventTime::Local(datetime) => datetime.format("%d-%b-%Y %H:%M:%S").to_string(),
        EventTime::Unix(secs) => secs.to_string(),
        EventTime::None => String::new(),
    }
}

/// Which open group a line continues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    None,
    Prio,
    Rec,
}

/// The project column of the line being read, copied out only by the
/// reader that keeps it (most lines' readers keep none).
struct LineProject<'e>(Option<&'e str>);

impl LineProject<'_> {
    /// The project, copied; none is left for a later reader.
    fn take(&mut self) -> Option<String> {
        self.0.take().map(str::to_string)
    }

    fn as_deref(&self) -> Option<&str> {
        self.0
    }

    /// The project, copied; it stays for a later reader.
    fn to_owned(&self) -> Option<String> {
        self.0.map(str::to_string)
    }
}

/// The extraction state machine.
struct Extractor<'a> {
    events: &'a [LogEvent],
    points: Vec<RecordedPoint>,
    /// Index of the open fetch-state point while inside a dump.
    dump: Option<usize>,
    /// The resource block being read in a dump.
    dump_rsc: Option<String>,
    /// Index of the choice point waiting for its resolution.
    choice: Option<usize>,
    /// The project whose `set_request()` lines the open pass printed last:
    /// the choice, unless a later line says otherwise (choose_project()
    /// prints them for a candidate that may still ask for nothing).
    candidate: Option<String>,
    /// `set_request()` lines since the last request line.
    set_requests: Vec<SetRequestLine>,
    /// Index of the open (or last closed) rr_sim point.
    rr_sim: Option<usize>,
    rr_sim_open: bool,
    /// The open rr_sim point's misses come from `projected to miss
    /// deadline` lines (else from its `misses deadline by` lines).
    rr_sim_projected: bool,
    run_list: Option<usize>,
    enforcement: Option<usize>,
    /// Index of the open `[prio]` / REC group point.
    group: Option<usize>,
    open: Open,
    /// The choice and request of the pass under way are cut at the log's
    /// start: what printed its block (choose_project(), or a piggybacked
    /// request for an RPC the poll chose) is before the log, until a line
    /// only choose_project() prints says.
    cut_pass: bool,
    /// The block under way is the log's first and no line of its pass came
    /// before it.
    dump_pass_unseen: bool,
    /// Index of the last fetch-state point (open or closed).
    last_dump: Option<usize>,
    /// A `using MC shortfall` line waiting for its `set_request()` line.
    pending_mc_shortfall: Option<(String, f64)>,
    /// What runs through the session (carried from window to window).
    session: ExtractCarry,
}

/// The recorded side of a choice whose pass the log ends inside.
pub const UNRESOLVED: &str = "(unresolved)";

/// `time` moved by `secs` (whole seconds), for labels.
fn shifted(time: &EventTime, secs: f64) -> EventTime {
    let secs = secs.max(0.0).round();
    match time {
        EventTime::Simulated(t) => EventTime::Simulated(t + secs as u64),
        EventTime::Local(t) => EventTime::Local(*t + chrono::Duration::seconds(secs as i64)),
        EventTime::Unix(t) => EventTime::Unix(t + secs as i64),
        EventTime::None => EventTime::None,
    }
}

/// Extracts every recorded decision point, in log order.
pub fn extract(events: &[LogEvent]) -> Vec<RecordedPoint> {
    extract_window(events, None, None).0
}

/// What the extraction carries from one window of a long client session to
/// the next ([`extract_window`]): what the session showed so far (which
/// kinds of pass and end line this client prints, the last time read, the
/// RPC deferrals still running, the inputs noted for the next block), not
/// any pass under way.
#[derive(Clone, Debug, Default)]
pub struct ExtractCarry {
    /// The last time read, and as printed.
    last_time: f64,
    last_label: String,
    /// The last emulator RPC line was `doing RPC to report results`.
    report_rpc: bool,
    /// The project of the current report RPC.
    report_project: Option<String>,
    /// A `start work fetch state` line was seen.
    seen_dump: bool,
    /// A line that opens a pass (a simulation's start, `entering
    /// choose_project()`, `piggyback_work_request()`, an RPC the poll chose)
    /// was seen.
    seen_pass_start: bool,
    /// A line that opens a work-fetch pass of a release that prints one
    /// (7.16 on: `choose_project(): T`, `piggyback_work_request()`) was
    /// seen.
    seen_pass_header: bool,
    /// A choice whose block starts before the log (a fragment) was recorded.
    orphan_choice: bool,
    /// An enforcement pass was opened (or one cut at the log's start recorded).
    seen_enforcement: bool,
    /// An enforcement pass printed its end line (not every release does).
    seen_enforcement_end: bool,
    /// A simulation printed its end line (7.20 on).
    seen_rr_sim_end: bool,
    /// Lines since the last dump that show inputs the block does not print.
    unmodelled: Vec<String>,
    /// Projects of `rsc type N last MC limit time` lines before the next block.
    pending_mc: Vec<String>,
    /// Per project: the end of its last recorded RPC deferral, and its label.
    deferrals: std::collections::HashMap<String, (f64, String)>,
}

/// [`extract`] over a window of a session whose earlier lines the
/// extraction saw as `carry`; with `snapshot_at`, also what it carries at
/// that index (before reading it), for a window that starts there.
pub fn extract_window(
    events: &[LogEvent],
    carry: Option<&ExtractCarry>,
    snapshot_at: Option<usize>,
) -> (Vec<RecordedPoint>, Option<ExtractCarry>) {
    let mut extractor = Extractor {
        session: carry.cloned().unwrap_or_default(),
        events,
        points: Vec::with_capacity(events.len() / 8),
        dump: None,
        dump_rsc: None,
        choice: None,
        candidate: None,
        set_requests: Vec::new(),
        rr_sim: None,
        rr_sim_open: false,
        rr_sim_projected: false,
        run_list: None,
        enforcement: None,
        group: None,
        open: Open::None,
        cut_pass: false,
        dump_pass_unseen: false,
        last_dump: None,
        pending_mc_shortfall: None,
    };
    let mut snapshot = None;
    for idx in 0..events.len() {
        if snapshot_at == Some(idx) {
            snapshot = Some(extractor.carry());
        }
        extractor.step(idx);
    }
    if snapshot.is_none() && snapshot_at.is_some() {
        snapshot = Some(extractor.carry());
    }
    // The log ends inside a pass.
    let open_choice = extractor.choice;
    extractor.close_choice();
    extractor.mark_cut_at_end();
    // A choice the log ends before saying is cut too.
    if let Some(point) = open_choice.and_then(|idx| extractor.points.get_mut(idx)) {
        if point.decision == Decision::Choice(Some(UNRESOLVED.into())) {
            point.cut_after = true;
        }
    }
    (extractor.points, snapshot)
}

/// How 6.6–7.6.7 run-list lines name any GPU: `coprocessor job`.
pub const COPROCESSOR: &str = "coprocessor";

/// A 6.6–7.6.7 run-list kind as today's resource and order: the resource is
/// told only as CPU or coprocessor, and a CPU job in priority (or debt)
/// order is the non-EDF pick today's log calls FIFO.
fn coarse_pick(kind: &ScheduleKind) -> (&'static str, &'static str) {
    match kind {
        ScheduleKind::CoprocEdf => (COPROCESSOR, "EDF"),
        ScheduleKind::CoprocFifo => (COPROCESSOR, "FIFO"),
        ScheduleKind::CpuEdf => ("CPU", "EDF"),
        ScheduleKind::CpuDebtOrder | ScheduleKind::CpuPriorityOrder => ("CPU", "FIFO"),
        ScheduleKind::Other(_) => ("CPU", "?"),
    }
}

fn rsc_name(rsc: &crate::resource::ResourceType) -> String {
    rsc.long_name().to_string()
}

fn request_lines(resources: &[ResourceRequest]) -> Vec<RscRequestLine> {
    resources
        .iter()
        .map(|r| RscRequestLine {
            rsc: rsc_name(&r.rsc),
            secs: r.secs,
            inst: r.inst,
            inst_slack: 0.0,
            secs_slack: 0.0,
        })
        .collect()
}

impl Extractor<'_> {
    /// What a window starting at the line about to be read takes over.
    fn carry(&self) -> ExtractCarry {
        self.session.clone()
    }

    fn push(&mut self, idx: usize, decision: Decision, resource: Option<String>) -> usize {
        let event = &self.events[idx];
        let cut_before =
            self.cut_pass && matches!(decision, Decision::Choice(_) | Decision::Request { .. });
        self.points.push(RecordedPoint {
            time: self.session.last_time,
            time_label: self.session.last_label.clone(),
            event_idx: idx,
            project: event.project.as_ref().map(|p| p.to_string()),
            resource,
            piggyback: matches!(decision, Decision::Request { .. } | Decision::Choice(_))
                && self.session.report_rpc,
            before_fetch: false,
            cut_before,
            cut_after: false,
            decision,
        });
        self.points.len() - 1
    }

    fn decision_mut(&mut self, point: Option<usize>) -> Option<&mut Decision> {
        point
            .and_then(|idx| self.points.get_mut(idx))
            .map(|p| &mut p.decision)
    }

    /// Closes the open pass's choice when the pass ended without saying it
    /// (a skipped RPC, or the log ends): its candidate if that one asked for
    /// something, else unresolved.
    fn close_choice(&mut self) {
        let candidate = self.candidate.take();
        let asked = self.set_requests.iter().any(|s| s.req_secs > 0.0);
        match candidate {
            Some(project) if asked => self.resolve_choice(Some(project)),
            _ => {
                if let Some(idx) = self.choice.take() {
                    if let Some(point) = self.points.get_mut(idx) {
                        point.decision = Decision::Choice(Some(UNRESOLVED.into()));
                    }
                }
            }
        }
    }

    /// At the end of the log: the decisions still open were cut by the end
    /// of the file — a run list not yet followed by enforcement, an
    /// enforcement or a simulation (where this release prints their end
    /// lines), a state dump, a `[prio]` or REC group the file ends inside. Points
    /// closed before the end stay whole, even inside a cut pass.
    fn mark_cut_at_end(&mut self) {
        let enforcement = self
            .enforcement
            .filter(|_| self.session.seen_enforcement_end);
        // A run list stays "open" until the next pass in some releases'
        // wording; it is cut only when no enforcement began after it.
        let last_enforcement = self
            .points
            .iter()
            .rposition(|p| matches!(p.decision, Decision::Enforcement(_)));
        let run_list = self
            .run_list
            .filter(|&list| last_enforcement.is_none_or(|e| e < list));
        let rr_sim = self
            .rr_sim
            .filter(|_| self.rr_sim_open && self.session.seen_rr_sim_end);
        let group = self.group.filter(|_| self.open != Open::None);
        for idx in [run_list, enforcement, self.dump, rr_sim, group]
            .into_iter()
            .flatten()
        {
            if let Some(point) = self.points.get_mut(idx) {
                point.cut_after = true;
            }
        }
    }

    fn resolve_choice(&mut self, chosen: Option<String>) {
        self.candidate = None;
        if let Some(idx) = self.choice.take() {
            if let Some(point) = self.points.get_mut(idx) {
                point.project = chosen.clone();
                point.decision = Decision::Choice(chosen);
            }
        }
    }

    /// Notes an input of the choice the state block does not print: on the
    /// last dump (`this_pass`: a line of choose_project() after it) or on
    /// the next one (a line printed before the block).
    fn note_unmodelled(&mut self, this_pass: bool, what: &str) {
        let notes = if this_pass {
            match self.decision_mut(self.last_dump) {
                Some(Decision::FetchState(dump)) => &mut dump.unmodelled,
                _ => return,
            }
        } else {
            &mut self.session.unmodelled
        };
        if !notes.iter().any(|n| n == what) {
            notes.push(what.to_string());
        }
    }

    /// A line only choose_project() prints (`No project chosen`, its scan
    /// lines) in a pass cut at the log's start: the choice is
    /// choose_project()'s after all, and checked.
    fn proved_choose_project(&mut self) {
        if !self.cut_pass {
            return;
        }
        self.cut_pass = false;
        if let Some(point) = self.choice.and_then(|idx| self.points.get_mut(idx)) {
            point.cut_before = false;
        }
    }

    /// An enforcement line in a log that starts inside the pass (a
    /// fragment): the pass is recorded, cut at its start.
    fn orphan_enforcement(&mut self, idx: usize) {
        if self.enforcement.is_some() || self.session.seen_enforcement {
            return;
        }
        self.session.seen_enforcement = true;
        let point = self.push(idx, Decision::Enforcement(Vec::new()), None);
        if let Some(point) = self.points.get_mut(point) {
            point.cut_before = true;
        }
        self.enforcement = Some(point);
    }

    /// A choice printed in a pass whose state block starts before the log
    /// (a fragment): recorded, with no block to recompute it from.
    fn orphan_choice(&mut self, idx: usize, chosen: Option<String>) {
        if self.session.seen_dump || self.session.orphan_choice {
            return;
        }
        self.session.orphan_choice = true;
        let point = self.push(idx, Decision::Choice(chosen.clone()), None);
        if let Some(point) = self.points.get_mut(point) {
            point.project = chosen;
        }
    }

    fn step(&mut self, idx: usize) {
        let events = self.events;
        let event = &events[idx];
        if let Some(secs) = event.time.secs() {
            if secs != self.session.last_time || self.session.last_label.is_empty() {
                self.session.last_time = secs;
                self.session.last_label = time_label(&event.time);
            }
        }
        let mut project = LineProject(event.project.as_deref());
        let message = &event.message;
        // Close `[prio]` / REC groups when another line comes.
        let continues = matches!(
            (self.open, message),
            (Open::Prio, Message::ProjectPriority { .. })
                | (Open::Rec, Message::RecentEstCredit { .. })
        );
        if !continues {
            self.open = Open::None;
            self.group = None;
        }
        match message {
            Message::RrSimStart { .. }
            | Message::RrSimStartTotal { .. }
            | Message::EnteringChooseProject
            | Message::PiggybackWorkRequest
            | Message::EmuRpcReportResults
            | Message::EmuRpcGetWork => self.session.seen_pass_start = true,
            _ => {}
        }
        if matches!(
            message,
            Message::ChooseProjectTime { .. } | Message::PiggybackWorkRequest
        ) {
            self.session.seen_pass_header = true;
        }
        // A release that restores no RPC deferral at a start: each one
        // noted ends there.
        if let Message::ClientStart { version, .. } = message {
            if !super::restart::restores_rpc_deferral(*version) {
                self.session.deferrals.clear();
            }
        }
        // Each family of lines has its reader; the first that knows the
        // line takes it.
        let _ = self.state_block_head(idx, message, &mut project)
            || self.state_block_body(message, &mut project)
            || self.choice_line(idx, message, &mut project)
            || self.sim_and_schedule_line(idx, message)
            || self.priority_line(idx, message, &mut project);
    }

    /// A release that prints each work-fetch pass's first line (7.16 on:
    /// its lines hold one, or a `doing sim` line) has not printed it
    /// before the first block: the log starts inside that pass, after its
    /// first line (a simulation's start is not the pass's).
    fn pass_header_unseen(&self) -> bool {
        !self.session.seen_pass_header
            && self.events.iter().any(|e| {
                matches!(
                    e.message,
                    Message::ChooseProjectTime { .. }
                        | Message::PiggybackWorkRequest
                        | Message::DoingSim { .. }
                )
            })
    }

    /// The start and end of a work-fetch state block, its buffer line and
    /// its projects' REC lines. `false`: not such a line.
    fn state_block_head(
        &mut self,
        idx: usize,
        message: &Message,
        project: &mut LineProject<'_>,
    ) -> bool {
        match message {
            Message::WorkFetchStateStart => {
                // The first block of a log that starts inside its pass:
                // whether choose_project() or a piggybacked request (an RPC
                // the poll chose) printed it is said before the log.
                self.dump_pass_unseen = !self.session.seen_dump
                    && (!self.session.seen_pass_start || self.pass_header_unseen());
                self.cut_pass = self.dump_pass_unseen;
                self.session.seen_pass_start = true;
                if let Some(last) = self.points.last_mut() {
                    if matches!(last.decision, Decision::Priority(_)) {
                        last.before_fetch = true;
                    }
                }
                // An earlier pass that never said its choice.
                self.close_choice();
                // A dump printed by piggyback_work_request() on a report RPC:
                // the project was chosen by the RPC poll (results due), not
                // by choose_project(); the decision point is that choice.
                if self.session.report_rpc {
                    let target = self.session.report_project.clone();
                    self.push(idx, Decision::Choice(target), None);
                } else {
                    self.choice = Some(self.push(idx, Decision::Choice(None), None));
                }
                // set_request() lines of a pass whose RPC was skipped (project
                // down) have no request line: they do not carry over.
                self.set_requests.clear();
                let dump = FetchDump {
                    unmodelled: std::mem::take(&mut self.session.unmodelled),
                    mc_projects: std::mem::take(&mut self.session.pending_mc),
                    ..FetchDump::default()
                };
                self.dump = Some(self.push(idx, Decision::FetchState(dump), None));
                self.last_dump = self.dump;
                self.dump_rsc = None;
                self.session.seen_dump = true;
            }
            Message::WorkFetchStateEnd => {
                // The log starts at this block: the `rsc type N last MC
                // limit time` lines naming the max_concurrent projects
                // (printed before it, 7.20 on) are before the log. A host
                // with such projects shows them in a share's reason or in
                // the log's later passes.
                let unseen = self.dump_pass_unseen;
                let later_mc = |from: usize| {
                    self.events[from..]
                        .iter()
                        .any(|e| matches!(e.message, Message::McLimitTime { .. }))
                };
                if let Some(Decision::FetchState(dump)) = self.decision_mut(self.dump) {
                    dump.complete = true;
                    let mc_reason = dump
                        .resources
                        .iter()
                        .flat_map(|r| &r.shares)
                        .any(|s| s.reason.contains("max concurrent"));
                    if unseen && dump.mc_projects.is_empty() && (mc_reason || later_mc(idx)) {
                        dump.mc_unknown = true;
                    }
                }
                self.dump = None;
                self.dump_rsc = None;
            }
            Message::TargetWorkBuffer {
                min_secs,
                additional_secs,
            } => {
                if let Some(Decision::FetchState(dump)) = self.decision_mut(self.dump) {
                    dump.buffer = Some((*min_secs, *additional_secs));
                }
            }
            Message::WorkFetchRec {
                rec,
                prio,
                reason,
                backoff,
            } => {
                let state = ProjectState {
                    project: project.take().unwrap_or_default(),
                    rec: *rec,
                    prio: *prio,
                    reason: reason
                        .as_ref()
                        .map(|r| format!("can't request work: {r}"))
                        .unwrap_or_default(),
                    backoff: *backoff,
                    ..ProjectState::default()
                };
                if let Some(Decision::FetchState(dump)) = self.decision_mut(self.dump) {
                    dump.projects.push(state);
                }
            }
            _ => return false,
        }
        true
    }

    /// A state block's resource lines: shortfall, shares, max_concurrent
    /// limits. `false`: not such a line.
    fn state_block_body(&mut self, message: &Message, project: &mut LineProject<'_>) -> bool {
        match message {
            Message::StateFor { rsc } => {
                let name = rsc_name(rsc);
                self.dump_rsc = Some(name.clone());
                if let Some(Decision::FetchState(dump)) = self.decision_mut(self.dump) {
                    dump.resources.push(RscState {
                        rsc: name,
                        ..RscState::default()
                    });
                }
            }
            // 6.6-6.12 name the resource on the same line (`[wfd] CPU:
            // shortfall ...`; its shares on `fetch share` lines, not kept).
            Message::WorkFetchShortfall {
                shortfall,
                nidle,
                saturated,
                busy,
            }
            | Message::LtdResourceState {
                shortfall,
                nidle,
                saturated,
                busy,
                ..
            } => {
                if let Some(Decision::FetchState(dump)) = self.decision_mut(self.dump) {
                    if let Message::LtdResourceState { rsc, .. } = message {
                        dump.resources.push(RscState {
                            rsc: rsc_name(rsc),
                            ..RscState::default()
                        });
                    }
                    if let Some(rsc) = dump.resources.last_mut() {
                        rsc.shortfall = *shortfall;
                        rsc.nidle = *nidle;
                        rsc.saturated = *saturated;
                        rsc.busy = *busy;
                    }
                }
            }
            Message::WorkFetchShare {
                share,
                reason,
                backoff,
            } => {
                let line = ShareState {
                    project: project.take().unwrap_or_default(),
                    share: *share,
                    reason: reason.as_ref().map(|r| r.to_string()).unwrap_or_default(),
                    backoff: backoff.as_ref().map(|b| (b.backoff, b.inc)),
                    backoff_slack: 0.0,
                };
                if let Some(Decision::FetchState(dump)) = self.decision_mut(self.dump) {
                    if let Some(rsc) = dump.resources.last_mut() {
                        rsc.shares.push(line);
                    }
                }
            }
            // 7.0–7.2: `fetch share %.3f` with the dont_fetch flags as
            // suffixes; the flags stand where today's resource reason does.
            Message::WorkFetchFetchShare {
                share,
                backoff,
                flags,
            } => {
                let line = ShareState {
                    project: project.take().unwrap_or_default(),
                    share: *share,
                    reason: share_flags_text(
                        flags.blocked_by_prefs,
                        flags.no_apps,
                        flags.blocked_by_account_manager,
                        flags.blocked_by_configuration_file,
                    ),
                    backoff: backoff.as_ref().map(|b| (b.backoff, b.inc)),
                    backoff_slack: 0.0,
                };
                if let Some(Decision::FetchState(dump)) = self.decision_mut(self.dump) {
                    dump.share_flags = true;
                    if let Some(rsc) = dump.resources.last_mut() {
                        rsc.shares.push(line);
                    }
                }
            }
            Message::McLimitTime { .. } => {
                if let Some(p) = project.take() {
                    if !self.session.pending_mc.contains(&p) {
                        self.session.pending_mc.push(p);
                    }
                }
            }
            Message::UsingMcShortfall { mc_shortfall, .. } => {
                self.pending_mc_shortfall = project.take().map(|p| (p, *mc_shortfall));
                // Before 7.20 the client does not announce its
                // max_concurrent projects (`rsc type N last MC limit time`,
                // with the MC limit reason, 4bdef6e2a4): which of the other
                // projects have limits is not told.
                let announced = matches!(
                    self.decision_mut(self.last_dump),
                    Some(Decision::FetchState(dump)) if !dump.mc_projects.is_empty()
                );
                if !announced {
                    self.note_unmodelled(true, "max_concurrent limits (`using MC shortfall` line)");
                }
            }
            Message::NeedsWorkExcludedStarved { .. } => self.note_unmodelled(
                true,
                "GPU exclusions (`needs work - excluded instance starved` line)",
            ),
            _ => return false,
        }
        true
    }

    /// choose_project()'s scan and choice, set_request(), and the scheduler
    /// RPC lines. `false`: not such a line.
    fn choice_line(
        &mut self,
        idx: usize,
        message: &Message,
        project: &mut LineProject<'_>,
    ) -> bool {
        match message {
            Message::NoProjectChosen if self.choice.is_none() => self.orphan_choice(idx, None),
            Message::NoProjectChosen => {
                self.proved_choose_project();
                self.resolve_choice(None);
            }
            Message::ChooseProjectScanning => {
                self.proved_choose_project();
                if let (Some(Decision::FetchState(dump)), Some(p)) =
                    (self.decision_mut(self.last_dump), project.take())
                {
                    dump.scan_order.push(p);
                }
            }
            Message::ScanSkip { reason } => {
                let reason = format!("can't request work: {reason}");
                self.push(idx, Decision::ScanLine { rsc: None, reason }, None);
            }
            Message::NeedsWorkBufferLow { rsc } => {
                let name = rsc_name(rsc);
                if let Some(Decision::FetchState(dump)) = self.decision_mut(self.last_dump) {
                    dump.scan_buffer.retain(|(r, _)| *r != name);
                    dump.scan_buffer.push((name, true));
                }
                return false;
            }
            Message::CanFetch { rsc } => {
                let name = rsc_name(rsc);
                if let Some(Decision::FetchState(dump)) = self.decision_mut(self.last_dump) {
                    if !dump.scan_buffer.iter().any(|(r, _)| *r == name) {
                        dump.scan_buffer.push((name.clone(), false));
                    }
                }
                let decision = Decision::ScanLine {
                    rsc: Some(name.clone()),
                    reason: String::new(),
                };
                self.push(idx, decision, Some(name));
            }
            Message::CantFetch { rsc, reason } => {
                let name = rsc_name(rsc);
                let decision = Decision::ScanLine {
                    rsc: Some(name.clone()),
                    reason: reason.to_string(),
                };
                self.push(idx, decision, Some(name));
            }
            Message::SetRequest {
                rsc,
                ninst,
                nused_total,
                nidle_now,
                fetch_share,
                req_inst,
                req_secs,
            } => {
                if let Some((mc_project, value)) = self.pending_mc_shortfall.take() {
                    if project.as_deref() == Some(mc_project.as_str()) {
                        let name = rsc_name(rsc);
                        if let Some(Decision::FetchState(dump)) = self.decision_mut(self.last_dump)
                        {
                            dump.mc_shortfalls.push((mc_project, name, value));
                        }
                    }
                }
                if self.choice.is_some() {
                    if self.candidate.as_deref() != project.as_deref() {
                        // A new candidate: the earlier one asked for nothing.
                        self.set_requests.clear();
                    }
                    self.candidate = project.take();
                }
                self.set_requests.push(SetRequestLine {
                    rsc: rsc_name(rsc),
                    ninst: *ninst,
                    nused_total: *nused_total,
                    nidle_now: *nidle_now,
                    fetch_share: *fetch_share,
                    req_inst: *req_inst,
                    req_secs: *req_secs,
                });
            }
            // 7.16 on: the dump that follows is piggyback_work_request()'s
            // for an RPC the poll already chose (not choose_project()).
            Message::PiggybackWorkRequest => {
                self.session.report_rpc = true;
                self.session.report_project = project.to_owned();
            }
            Message::ProjectRequestedDelay { secs } => self.note_deferral(idx, *secs),
            Message::SendingSchedulerRequest { reason, .. } => {
                if let Some((until, until_label)) = project
                    .as_deref()
                    .and_then(|p| self.session.deferrals.remove(p))
                {
                    let decision = Decision::RpcTiming {
                        until,
                        until_label,
                        user: *reason == crate::trace::message::RpcReason::RequestedByUser,
                        verdict: "sent".into(),
                    };
                    self.push(idx, decision, None);
                }
            }
            Message::EmuRpcReportResults => {
                self.session.report_rpc = true;
                self.session.report_project = project.to_owned();
            }
            // A report RPC skipped (project down) prints no request line.
            Message::EmuRpcSkippedProjectDown | Message::EmuGotTasks { .. } => {
                self.session.report_rpc = false
            }
            Message::EmuRpcGetWork => {
                self.session.report_rpc = false;
                if self.choice.is_some() {
                    self.resolve_choice(project.take());
                }
            }
            Message::EmuRpcRequest { resources } | Message::WorkRequest { resources } => {
                if self.choice.is_some() {
                    self.resolve_choice(project.take());
                } else if !self.session.report_rpc {
                    self.orphan_choice(idx, project.take());
                }
                let decision = Decision::Request {
                    resources: request_lines(resources),
                    set_requests: std::mem::take(&mut self.set_requests),
                };
                self.push(idx, decision, None);
                self.session.report_rpc = false;
                self.cut_pass = false;
            }
            _ => return false,
        }
        true
    }

    /// Simulation, run-list and enforcement lines. `false`: not such a line.
    fn sim_and_schedule_line(&mut self, idx: usize, message: &Message) -> bool {
        match message {
            Message::RrSimStart { .. } | Message::RrSimStartTotal { .. } => {
                self.rr_sim = Some(self.push(
                    idx,
                    Decision::RrSim {
                        finishes: Vec::new(),
                        misses: Vec::new(),
                        finish_slack: Vec::new(),
                    },
                    None,
                ));
                self.rr_sim_open = true;
                self.rr_sim_projected = false;
            }
            Message::SimFinishes { t, job, .. } if self.rr_sim_open => {
                if let Some(Decision::RrSim { finishes, .. }) = self.decision_mut(self.rr_sim) {
                    finishes.push((job.to_string(), *t));
                }
            }
            Message::RrSimEnd => {
                self.rr_sim_open = false;
                self.session.seen_rr_sim_end = true;
            }
            // make_run_list() prints the deadline misses again when it
            // reuses the instant's simulation (print_deadline_misses() in
            // client/cpu_sched.cpp runs after every rr_simulation() call):
            // the same simulation's flags, not a new decision.
            Message::SimAlreadyDone => self.rr_sim = None,
            // Each simulated miss prints `misses deadline by`; after a
            // scheduling pass's simulation print_deadline_misses() lists
            // them again (`projected to miss deadline`). Those lines are
            // the simulation's flags when printed (7.0–7.2 print them only
            // in make_run_list, not in the work-fetch set-up): read one set.
            Message::MissesDeadline { job, .. } if !self.rr_sim_projected => {
                if let Some(Decision::RrSim { misses, .. }) = self.decision_mut(self.rr_sim) {
                    misses.push(job.to_string());
                }
            }
            Message::ProjectedDeadlineMiss { job } => {
                let first = !self.rr_sim_projected;
                self.rr_sim_projected = true;
                if let Some(Decision::RrSim { misses, .. }) = self.decision_mut(self.rr_sim) {
                    if first {
                        misses.clear();
                    }
                    misses.push(job.to_string());
                }
            }
            Message::MakeRunListStart => {
                self.session.report_rpc = false;
                self.run_list = Some(self.push(idx, Decision::RunList(Vec::new()), None));
            }
            Message::AddToRunList {
                job,
                rsc,
                order,
                prio,
                schedule_kind,
            } => {
                let rsc = match (rsc, schedule_kind) {
                    (Some(rsc), _) => rsc_name(rsc),
                    (None, Some(kind)) => coarse_pick(kind).0.to_string(),
                    (None, None) => "CPU".into(),
                };
                let entry = RunListEntry {
                    job: job.to_string(),
                    rsc,
                    order: order.to_string(),
                    prio: *prio,
                    prio_slack: 0.0,
                };
                if let Some(Decision::RunList(entries)) = self.decision_mut(self.run_list) {
                    entries.push(entry);
                }
            }
            Message::MakeRunListEnd => self.run_list = None,
            Message::UsingCpus { .. } | Message::TooBig { .. } => self.orphan_enforcement(idx),
            Message::EnforceRunListStart => {
                self.session.seen_enforcement = true;
                self.enforcement = Some(self.push(idx, Decision::Enforcement(Vec::new()), None));
            }
            Message::EnforceRunListEnd => {
                self.enforcement = None;
                self.session.seen_enforcement_end = true;
            }
            // 6.6–7.2: `schedule_cpus(): start`, one `scheduling JOB (KIND)`
            // line per pick, then `enforce_schedule(): start` … `end`. The
            // picks become run-list entries: the resource is only told as
            // CPU or coprocessor, and a CPU job in priority (or debt) order
            // is the non-EDF pick today's log calls FIFO.
            Message::ScheduleCpusStart => {
                self.session.report_rpc = false;
                self.run_list = Some(self.push(idx, Decision::RunList(Vec::new()), None));
            }
            Message::SchedulingRunList {
                job,
                schedule_kind,
                prio,
            } => {
                let (rsc, order) = coarse_pick(schedule_kind);
                let entry = RunListEntry {
                    job: job.to_string(),
                    rsc: rsc.to_string(),
                    order: order.to_string(),
                    prio: prio.unwrap_or(0.0),
                    prio_slack: 0.0,
                };
                if let Some(Decision::RunList(entries)) = self.decision_mut(self.run_list) {
                    entries.push(entry);
                }
            }
            Message::EnforceScheduleStart => {
                self.session.seen_enforcement = true;
                self.run_list = None;
                self.enforcement = Some(self.push(idx, Decision::Enforcement(Vec::new()), None));
            }
            Message::EnforceScheduleEnd => {
                self.enforcement = None;
                self.session.seen_enforcement_end = true;
            }
            Message::Scheduling { job, .. } => self.action(idx, format!("schedule {job}")),
            Message::Preempting { job, mode } => {
                let how = match mode {
                    PreemptMode::RemovedFromMemory => "removed",
                    PreemptMode::LeftInMemory | PreemptMode::LeftInMemoryNoCheckpoint => "left",
                };
                self.action(idx, format!("preempt {job} ({how})"));
            }
            Message::EmuTaskStart { action, job, .. } => {
                self.action(idx, format!("{} {job}", action.to_string().to_lowercase()));
            }
            Message::CoprocAssign {
                rsc, instance, job, ..
            } => self.action(idx, format!("assign {job} {} {instance}", rsc.type_name())),
            Message::CoprocAssignFraction {
                rsc, instance, job, ..
            } => self.action(idx, format!("assign {job} {} {instance}", rsc.type_name())),
            _ => return false,
        }
        true
    }

    /// Priority, REC and backoff lines. `false`: not such a line.
    fn priority_line(
        &mut self,
        idx: usize,
        message: &Message,
        project: &mut LineProject<'_>,
    ) -> bool {
        match message {
            Message::ProjectPriority { prio, rsf, rt, rs } => {
                let entry = PrioEntry {
                    project: project.take().unwrap_or_default(),
                    prio: *prio,
                    rsf: *rsf,
                    rt: *rt,
                    rs: *rs,
                    prio_slack: 0.0,
                    rs_slack: 0.0,
                };
                if self.open == Open::Prio {
                    if let Some(Decision::Priority(entries)) = self.decision_mut(self.group) {
                        entries.push(entry);
                    }
                } else {
                    self.group = Some(self.push(idx, Decision::Priority(vec![entry]), None));
                    self.open = Open::Prio;
                }
            }
            Message::RecentEstCredit {
                credit,
                secs,
                rec_old,
                rec,
                ..
            } => {
                let entry = RecEntry {
                    project: project.take().unwrap_or_default(),
                    credit: *credit,
                    secs: *secs,
                    old: *rec_old,
                    new: *rec,
                    new_slack: 0.0,
                };
                if self.open == Open::Rec {
                    if let Some(Decision::Rec(entries)) = self.decision_mut(self.group) {
                        entries.push(entry);
                    }
                } else {
                    self.group = Some(self.push(idx, Decision::Rec(vec![entry]), None));
                    self.open = Open::Rec;
                }
            }
            Message::AdjustRecIgnored { elapsed, period } => {
                self.push(
                    idx,
                    Decision::RecDiscarded {
                        elapsed: *elapsed,
                        period: *period,
                    },
                    None,
                );
            }
            Message::BackingOff { rsc, secs } => {
                let name = rsc_name(rsc);
                self.push(
                    idx,
                    Decision::Backoff {
                        rsc: Some(name.clone()),
                        secs: *secs,
                        secs_slack: 0.0,
                    },
                    Some(name),
                );
            }
            Message::DeferringCommunication { secs } => {
                self.note_deferral(idx, *secs);
                self.push(
                    idx,
                    Decision::Backoff {
                        rsc: None,
                        secs: *secs,
                        secs_slack: 0.0,
                    },
                    None,
                );
            }
            _ => return false,
        }
        true
    }

    /// A deferral of the project's scheduler RPCs until `secs` after this
    /// line (the later one wins).
    fn note_deferral(&mut self, idx: usize, secs: f64) {
        let event = &self.events[idx];
        let (Some(project), Some(now)) = (event.project.as_ref(), event.time.secs()) else {
            return;
        };
        let until = now + secs;
        let label = time_label(&shifted(&event.time, secs));
        let entry = self
            .session
            .deferrals
            .entry(project.to_string())
            .or_insert((until, label.clone()));
        if until >= entry.0 {
            *entry = (until, label);
        }
    }

    fn action(&mut self, idx: usize, text: String) {
        self.orphan_enforcement(idx);
        if let Some(Decision::Enforcement(actions)) = self.decision_mut(self.enforcement) {
            actions.push(text);
        }
    }
}

/// The dont_fetch flags of a 7.0–7.2 `fetch share` line, in printed order
/// (work_fetch.cpp 7.2.42 RSC_WORK_FETCH::print_state), as one text.
pub fn share_flags_text(prefs: bool, apps: bool, ams: bool, config: bool) -> String {
    [
        (prefs, "blocked by prefs"),
        (apps, "no apps"),
        (ams, "blocked by account manager"),
        (config, "blocked by configuration file"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, text)| *text)
    .collect::<Vec<_>>()
    .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_labels_follow_the_emulator() {
        assert_eq!(time_label(&EventTime::Simulated(3600)), "01:00:00");
        assert_eq!(time_label(&EventTime::Simulated(86400)), "24:00:00");
        assert_eq!(time_label(&EventTime::Simulated(86401)), "1 day 00:00:01");
        assert_eq!(
            time_label(&EventTime::Simulated(2 * 86400 + 3661)),
            "2 days 01:01:01"
        );
    }

    /// A 7.16-on client prints each work-fetch pass's first line before
    /// its simulation (`choose_project(): T`, `piggyback_work_request()`):
    /// a piece of its log that starts at the simulation has lost the line
    /// that says which chose the project, and its first block's choice is
    /// cut (the lab's noack run, its head cut inside a piggybacked pass).
    /// A 7.2 log, whose passes start with their simulation, is whole there.
    #[test]
    fn a_piece_that_starts_after_its_passs_first_line_is_cut() {
        let pass = "\
28-Nov-2026 16:37:15 [---] [rr_sim] start: work_buf min 180 additional 173 total 353 on_frac 1.000 active_frac 1.000
28-Nov-2026 16:37:15 [---] [rr_sim] end
28-Nov-2026 16:37:15 [---] [work_fetch] ------- start work fetch state -------
28-Nov-2026 16:37:15 [---] [work_fetch] target work buffer: 180.00 + 172.80 sec
28-Nov-2026 16:37:15 [---] [work_fetch] --- project states ---
28-Nov-2026 16:37:15 [P1] [work_fetch] REC 0.027 prio -1.104 can request work
28-Nov-2026 16:37:15 [---] [work_fetch] --- state for CPU ---
28-Nov-2026 16:37:15 [---] [work_fetch] shortfall 1.40 nidle 0.00 saturated 351.40 busy 0.00
28-Nov-2026 16:37:15 [P1] [work_fetch] share 1.000
28-Nov-2026 16:37:15 [---] [work_fetch] ------- end work fetch state -------
28-Nov-2026 16:37:15 [P1] [work_fetch] request: CPU (1.40 sec, 0.00 inst)
28-Nov-2026 16:37:15 [P1] Sending scheduler request: To report completed tasks.
";
        let choice_cut = |text: &str| {
            let events = crate::replay::test_events(text, crate::trace::FileKind::EventLog);
            extract(&events)
                .iter()
                .find(|p| matches!(p.decision, Decision::Choice(_)))
                .expect("a choice")
                .cut_before
        };
        let next = "28-Nov-2026 16:38:15 [---] choose_project(): 1796056695.000000\n";
        assert!(choice_cut(&format!("{pass}{next}")));
        assert!(!choice_cut(pass));
        let headed = format!("28-Nov-2026 16:37:15 [P1] piggyback_work_request()\n{pass}{next}");
        assert!(!choice_cut(&headed));
    }
}

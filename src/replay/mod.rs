//! Anchored replay: take what a host recorded, replay the policy engine over
//! it, and produce the neutral [`DivergenceReport`] saying where replayed
//! decisions diverge from recorded ones.
//!
//! Architecture Invariant: replay is the only module that sees both Trace and
//! policy. External events are ordered by (time, sequence number), never by
//! hash order.
//!
//! Pipeline: [`recorded::extract`] groups log events into recorded decision
//! points; [`build::build_emulator_state`] turns the recorded inputs into the
//! engine's `HostState` through the emulator's start-up rules;
//! [`queue::ExternalQueue`] holds the external world; [`driver::Driver`]
//! re-derives each decision; [`compare`] compares field by field after
//! formatting numbers as the log prints them.
//!
//! # What is taken from the trace (external inputs)
//!
//! Never a recorded decision or derived value. Only:
//! - the initial state: client_state.xml (host, coprocessors, projects, apps,
//!   app versions, workunits, results, REC), global_prefs(.override).xml,
//!   cc_config.xml options, app_config.xml files;
//! - job arrivals (`result state=FILES_DOWNLOADED for X from simulate_rpc`),
//!   in (time, seq) order, applied at the step of the RPC that delivered them;
//! - job sizes: the FLOPs of the first `[rr_sim] ... finishes` or `Starting
//!   task ... FLOPS left` line naming the job (else the app's `fpops_est`),
//!   and the FLOPS rate of its first `[rr_sim]` line, which tells the app
//!   version apart; its deadline comes from the app's `latency_bound`;
//! - RPC outcomes: `RPC skipped: project down` with the drawn deferral that
//!   follows (sets `min_rpc_time`);
//! - the drawn per-resource backoff (`backing off RSC N sec`): converted to
//!   the random factor against the replay's own interval; a draw outside
//!   [0.5, 1.5] × that interval is an engine error (divergence);
//! - the emulator start time (3600 s) and its time step (`--delta`, from the
//!   first `recent est credit ... in N sec` line); steps run at
//!   3600 + k·delta and recorded points are matched with the replay's own
//!   decisions of the same kind in the same step, in order;
//! - in self-consistency mode only (choices and requests re-derived from a
//!   recorded state dump, when no client_state.xml is given): the dump itself
//!   (REC, prio, reasons, shortfall, nidle, saturated, busy, shares) and,
//!   from the `set_request()` line, the instance count `ninst` and the
//!   simulated `nused_total`. The reason of every such point says
//!   "self-consistency".
//!
//! - host and GPU availability per step (the emulator's random draws): from
//!   the emulator's timeline.html, `BOINC not running` (the client is off:
//!   running CPU jobs still progress and exits are handled, but there is no
//!   scheduling and no RPC) and `GPUs disabled` (GPU jobs do not progress;
//!   from the end of that step's first pass the scheduler leaves them out);
//!   and from the shape of the log, whether the client polled for RPCs: with
//!   `work_fetch_debug` every polling step prints a work-fetch block (or
//!   `doing RPC …`, `RPC skipped`), so a running step without one was
//!   disconnected. Without timeline.html every step counts as running with
//!   GPUs allowed; without any work-fetch block, as connected.
//!
//! - estimates the log never prints: the emulator's log shows true FLOPs
//!   left, never a received job's estimate (a draw of its server). A
//!   replica of the emulator's servers and host processes
//!   (`world::Generator`, `simulate::emulator_shadow`) is driven along the
//!   recording and makes every draw of the emulator's generator in its
//!   order (host availability per step, a server's availability and job
//!   sizes per RPC, the client's backoff factors), so each received job's
//!   estimate is the emulator's while the replica's outcomes agree with
//!   the log. After a disagreement (or without inputs/) the estimate is
//!   taken as the true size and marked unknown (`Job::estimate_unknown`).
//!   Where the client breaks a deadline tie by estimated time left
//!   (earliest_deadline_result) and a tied job's estimate is unknown, the
//!   order of the tied jobs is taken from the step's recorded run list (the
//!   same for address ties below); the report lists the unknown estimates
//!   and when and why the replica stopped.
//!
//! The emulator's own orders are reproduced, not taken from the log: jobs of
//! client_state.xml are held md5-ordered for picking but compare by creation
//! (state-file) order where the client compares object addresses
//! (`more_important()`'s last tie-breaker).
//!
//! # Limits
//!
//! A dump printed by `piggyback_work_request` makes no project choice and is
//! not a choice point. Real (non-emulator) logs carry no step structure: the
//! anchored replay needs the emulator's time step and availability; a bare
//! client log is checked in self-consistency mode.

pub mod activity;
pub mod anchored;
pub mod backoff_check;
pub mod build;
pub mod choice_6_10;
pub mod compare;
pub mod decision;
pub mod driver;
pub mod empty_request;
pub mod enforce_check;
pub mod enforce_replay;
pub mod explain;
pub mod fetch_projects;
pub mod inputs;
pub mod joblog;
pub mod ltd;
pub mod mc_bounds;
pub mod mc_check;
pub mod prio_replay;
pub mod queue;
mod reconstructed;
pub mod recorded;
pub mod release_notes;
pub mod restart;
pub mod rrsim_check;
pub mod rrsim_replay;
pub mod runlist_replay;
pub mod selfcheck;
pub mod swap_check;
pub mod window;
pub mod world;

/// The events of a log text of `kind`, for the unit tests.
#[cfg(test)]
pub(crate) fn test_events(text: &str, kind: crate::trace::FileKind) -> Vec<LogEvent> {
    let mut out = Vec::new();
    let path = crate::source::SourcePath::from("log.txt");
    let _ = crate::parse::event_log::read_event_log(
        &path,
        kind,
        &mut text.as_bytes(),
        &crate::parse::LogOptions::default(),
        &mut |event| out.push(event),
    );
    out
}

pub use window::{SessionCarry, Window};

use crate::client_loop::Profile;
use crate::divergence::{
    add_rested_on, DecisionKind, Divergence, DivergenceReport, RestedOn, SinceChanged, Unchecked,
    MAX_CONTEXTS,
};
use crate::policy::profile::{self, Release};
use crate::policy::Params;
use crate::trace::{ClientVersion, LogEvent, Message, Trace};
use std::collections::{BTreeMap, HashMap};

/// Options of an audit.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditOptions {
    /// The engine's parameters, after `--set KEY=VALUE` overrides.
    pub params: Params,
    /// Relative tolerance, applied to numbers after formatting them as the log prints them.
    pub tolerance: f64,
    /// The policy generation to replay; `None` = decided from the trace.
    pub policy: Option<String>,
    /// The release that wrote the trace (`--client-version`), before what
    /// the trace says.
    pub client_version: Option<Release>,
    /// For a trace of an older release, also judge every checked decision
    /// under today's rules and each later change (`--since-changed`: one
    /// more replay per change).
    pub since_changed: bool,
    /// The keys of `params` the user set (`--set`): a release's profile
    /// leaves them alone.
    pub user_set: Vec<String>,
    /// Only totals and divergences are wanted (the table, JSON and diff
    /// reports of a long log): points that agree or were not checked carry
    /// no text and the host's activity is not gathered.
    pub summary: bool,
    /// The time step the run's options state beside the log (`Time step:`
    /// of outputs/inputs.txt, `--delta` of SCENARIO.md's emulator options)
    /// and the file stating it. The replay runs at the log's own step; a
    /// stated step that differs is reported as an input problem.
    pub stated_step: Option<(f64, String)>,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            params: Params::default(),
            tolerance: DEFAULT_TOLERANCE,
            policy: None,
            client_version: None,
            since_changed: false,
            user_set: Vec::new(),
            summary: false,
            stated_step: None,
        }
    }
}

/// The default relative tolerance.
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

/// Errors of an audit.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The trace lacks a state file the anchored replay needs.
    #[error("missing state: {0}")]
    MissingState(String),
    /// The policy engine rejected the state built from the trace.
    #[error("policy engine: {0}")]
    Engine(String),
    /// The tolerance is not a finite non-negative number.
    #[error("tolerance {0} must be a finite number >= 0")]
    BadTolerance(f64),
    /// The trace holds no event log.
    #[error("the trace holds no event log lines; give the client's log (stdoutdae.txt or the emulator's log.txt)")]
    NoEvents,
}

/// The policy generations.
const CURRENT: &str = "current";
/// The kinds the anchored replay recomputes.
const ANCHORED_KINDS: &str =
    "anchored replay (priority, rr_sim, fetch_state, run_list, enforcement, backoff)";
/// What a check of the anchored replay rests on.
const ANCHORED_BASIS: &str = "the client loop run again over client_state.xml and the \
                              recorded world (arrivals, RPC outcomes, drawn backoffs, \
                              availability), from the start of the log";
/// What a check of the 6.x emulator's loop rests on.
pub const LTD_BASIS: &str = "the 6.x client loop run again over the 6.10 emulator's inputs \
                             (sim_host.xml, sim_projects.xml, sim_prefs.xml)";
/// The 6.6–6.10 debt policy as the 6.10.60 emulator ran it (policy-legacy B.15).
const V6_10: &str = "6.10.60";
/// The same generation by its policy name.
const LTD: &str = "ltd-6.6";
/// The 7.0–7.2 REC policy (policy-legacy C.1), as the 7.2.42 emulator ran it.
const V7_2: &str = "7.2.42";

/// The release that wrote the trace and where it was read, in this order:
/// `--client-version`, the log's start-up line, client_state.xml's
/// `core_client_*` tags, a sched_request's.
fn stated_release(trace: &Trace, given: Option<Release>) -> Option<(Release, String)> {
    if let Some(release) = given {
        return Some((release, "--client-version".into()));
    }
    let release = |v: ClientVersion| Release(v.major, v.minor, v.release);
    let from_log = trace.events.iter().find_map(|e| match &e.message {
        Message::ClientStart { version, .. } => Some((
            release(*version),
            format!(
                "the log's start-up line ({}:{})",
                e.location.path, e.location.line
            ),
        )),
        _ => None,
    });
    from_log
        .or_else(|| {
            trace.state.client_states.iter().find_map(|s| {
                s.core_client_version.map(|v| {
                    (
                        release(v),
                        format!("{}'s core_client_* tags", file_name(&s.path)),
                    )
                })
            })
        })
        .or_else(|| {
            trace.rpcs.iter().find_map(|rpc| {
                let v = rpc.request.as_ref()?.core_client_version?;
                Some((
                    release(v),
                    format!("{}'s core_client_* tags", rpc.file_name),
                ))
            })
        })
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The release guessed from the log's wording when no file states it: the
/// lines of each era (`[wfd]` LTD lines: 6.x; 7.0–7.2 work-fetch lines;
/// `schedule_cpus(): start` with `choose_project(): T`: 7.16–7.24; without
/// it: 8.0–8.2.13; `make_run_list(): start`: 8.2.14 on).
/// The third value says whether the guess is settled: the wording names one
/// era whatever the session's later lines (6.x LTD lines, 7.0-7.2 work
/// fetch, today's make_run_list(), or schedule_cpus() beside
/// choose_project()'s own lines).
fn guessed_release(trace: &Trace) -> (Option<Release>, String, bool) {
    let mut ltd = false;
    let mut v7_2 = false;
    let mut schedule_cpus = false;
    let mut choose_time = false;
    let mut make_run_list = false;
    let mut scanning = false;
    let mut dump = false;
    let mut v5 = false;
    let mut mt_skip = false;
    for e in &trace.events {
        match e.message {
            Message::MtNotEnoughCpus { .. } => mt_skip = true,
            Message::LtdResourceState { .. }
            | Message::LtdFetchShare { .. }
            | Message::OverallLtd { .. } => ltd = true,
            Message::WorkFetchStart | Message::WorkFetchFetchShare { .. } => v7_2 = true,
            Message::ScheduleCpusStart => schedule_cpus = true,
            Message::ChooseProjectTime { .. } => choose_time = true,
            Message::MakeRunListStart => make_run_list = true,
            Message::ChooseProjectScanning => scanning = true,
            Message::WorkFetchStateStart => dump = true,
            Message::RequestingSecondsOfWork { .. } | Message::SchedulerRpcSucceeded { .. } => {
                v5 = true
            }
            _ => {}
        }
    }
    let settled = ltd || v7_2 || make_run_list || (schedule_cpus && (choose_time || scanning));
    let (release, why) = if ltd {
        let six_six = matches!(
            choice_6_10::ltd_wording(&trace.events),
            Some(choice_6_10::LtdWording::V6_6)
        );
        (
            Some(Release(6, 10, 60)),
            if six_six {
                "guessed from the wording: [wfd] debt lines with 6.6-6.8's `[debt] CPU debt` \
                 and `chosen:` lines"
                    .into()
            } else {
                "guessed from the wording: [wfd] LTD lines (6.x)".into()
            },
        )
    } else if v7_2 {
        (
            Some(Release(7, 2, 42)),
            "guessed from the wording: 7.0-7.2 work-fetch lines".into(),
        )
    } else if mt_skip {
        (
            Some(Release(6, 10, 60)),
            "guessed from the wording: `not enough CPUs for multithread job` lines (6.x \
             enforce_schedule; no release from 7.0.64 on prints them)"
                .into(),
        )
    } else if make_run_list {
        (
            None,
            "guessed from the wording: make_run_list() lines (8.2.14 or later)".into(),
        )
    } else if schedule_cpus && choose_time {
        (
            Some(Release(7, 20, 5)),
            "guessed from the wording: schedule_cpus() with choose_project(): T lines \
             (7.16-7.24; rules of 7.20.5 assumed)"
                .into(),
        )
    } else if schedule_cpus && scanning {
        (
            Some(Release(8, 2, 0)),
            "guessed from the wording: schedule_cpus() and choose_project scan lines \
             without choose_project(): T (8.0-8.2.13; rules of 8.2.0 assumed)"
                .into(),
        )
    } else if schedule_cpus && dump {
        (
            Some(Release(7, 20, 5)),
            "guessed from the wording: schedule_cpus() and a work-fetch state without \
             choose_project scan lines (7.3-7.14; rules of 7.20.5, the oldest catalogued, \
             assumed)"
                .into(),
        )
    } else if schedule_cpus {
        (
            Some(Release(8, 2, 0)),
            "guessed from the wording: schedule_cpus() lines (7.0-8.2.13); without \
             work_fetch_debug lines the release within that range is not decidable: rules \
             of 8.2.0, the last to print them, assumed"
                .into(),
        )
    } else if v5 {
        (
            None,
            "guessed from the wording: 5.x-6.2 scheduler lines (`Requesting N seconds of new \
             work`, `Scheduler RPC succeeded`); no policy profile covers that era: today's \
             rules assumed, of which a fragment like this shows only those common to every \
             release (RPC deferrals)"
                .into(),
        )
    } else {
        (
            None,
            "no client version and no era-specific lines: today's rules assumed".into(),
        )
    };
    (release, why, settled)
}

/// The policy an audit replays: its name in reports, why, the release it
/// stands for, and (for 7.3 onward) the rule changes undone.
#[derive(Clone, Debug)]
struct PolicyChoice {
    name: String,
    reason: String,
    release: Option<Release>,
    /// Named by the options or the trace, or guessed from wording no later
    /// line of the session can change ([`guessed_release`]).
    settled: bool,
}

/// Decides the policy from `--policy`, `--client-version` and the trace:
/// 6.x → `6.10.60`, 7.0–7.2 → `7.2.42`, 7.3 onward → today's rules with the
/// changes newer than the release undone ([`profile::params_for_release`]),
/// named after the profile.
fn choose_policy(trace: &Trace, options: &AuditOptions) -> PolicyChoice {
    if let Some(policy) = &options.policy {
        let named = policy.parse::<Release>().ok();
        // Any 7.0–7.2 release runs the rules read at 7.2.42.
        if named.is_some_and(profile::is_7_2) {
            return PolicyChoice {
                name: V7_2.to_string(),
                reason: format!("--policy {policy}: the 7.0-7.2 rules (read at 7.2.42)"),
                release: None,
                settled: true,
            };
        }
        let release = named.filter(|r| r.0 >= 7 && (r.0, r.1) > (7, 2));
        return PolicyChoice {
            name: release.map_or_else(|| policy.clone(), profile::profile_name),
            reason: "--policy given".into(),
            release,
            settled: true,
        };
    }
    let (release, why, settled) = match stated_release(trace, options.client_version) {
        Some((release, source)) => (
            Some(release),
            format!("client {release} from {source}"),
            true,
        ),
        None => guessed_release(trace),
    };
    let name = match release {
        Some(r) if r.0 < 7 => V6_10.to_string(),
        Some(r) if r.0 == 7 && r.1 <= 2 => V7_2.to_string(),
        Some(r) => profile::profile_name(r),
        None => CURRENT.to_string(),
    };
    PolicyChoice {
        name,
        reason: why,
        release: release.filter(|r| r.0 >= 7 && (r.0, r.1) > (7, 2)),
        settled,
    }
}

/// Whose emulator harness would have produced a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Harness {
    /// Today's client (`None`) or a release from 7.0 on: its servers' job
    /// draws can be reproduced (`simulate::emulator_shadow`).
    Rec(Option<Release>),
    /// A 6.x generation, whose emulators drew differently.
    Debt,
}

/// The harness of `trace` under the options' policy.
pub fn harness_of(trace: &Trace, options: &AuditOptions) -> Harness {
    let choice = choose_policy(trace, options);
    match choice.name.as_str() {
        V7_2 => Harness::Rec(Some(Release(7, 2, 42))),
        V6_10 | LTD => Harness::Debt,
        _ if options
            .policy
            .as_deref()
            .is_some_and(|p| p.starts_with("debt")) =>
        {
            Harness::Debt
        }
        _ => Harness::Rec(choice.release),
    }
}

/// The REC half-life a log's updates were made with, seconds: cc_config.xml
/// `<rec_half_life_days>` (non-positive or absent: the client's 10 days);
/// a data directory without cc_config.xml ran with the default; a log
/// given alone does not tell.
fn rec_half_life_secs(trace: &Trace, data_directory: bool) -> Result<f64, String> {
    let days = match &trace.state.cc_config {
        Some(cc) => cc
            .options
            .rec_half_life_days
            .filter(|d| *d > 0.0)
            .unwrap_or(10.0),
        None if data_directory => 10.0,
        None => {
            return Err(
                "the half-life is cc_config.xml's <rec_half_life_days> (10 days when \
                        unset), and neither cc_config.xml nor the data directory is given"
                    .into(),
            )
        }
    };
    Ok(days * 86400.0)
}

/// Audits one trace: extracts the recorded decisions, replays them and compares.
pub fn audit(
    trace: &Trace,
    trace_name: &str,
    options: &AuditOptions,
) -> Result<DivergenceReport, ReplayError> {
    audit_with_draws(trace, trace_name, options, &world::Generator::default())
}

/// [`audit`] with a replica of an emulator's servers (`generated`): the
/// estimates the log does not print, drawn along the recording.
pub fn audit_with_draws(
    trace: &Trace,
    trace_name: &str,
    options: &AuditOptions,
    generated: &world::Generator,
) -> Result<DivergenceReport, ReplayError> {
    let mut report = audit_session(trace, trace_name, options, generated)?;
    report.contexts = divergence_contexts(&report.divergences, CONTEXT_LINES);
    Ok(report)
}

/// Log lines shown before and after each divergence's line.
const CONTEXT_LINES: usize = 2;

/// Lines before and after the first divergence's (a report's `first_context`).
const FIRST_CONTEXT_LINES: usize = 5;

/// The log lines around each of the first [`MAX_CONTEXTS`] divergences, read
/// from their files (each file read once).
pub fn log_contexts(divergences: &[Divergence]) -> Vec<Vec<String>> {
    divergence_contexts(divergences, CONTEXT_LINES)
}

/// The log lines around each of the first [`MAX_CONTEXTS`] divergences
/// (each file read once).
fn divergence_contexts(divergences: &[Divergence], n: usize) -> Vec<Vec<String>> {
    let wanted = &divergences[..divergences.len().min(MAX_CONTEXTS)];
    let mut by_path: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for d in wanted {
        if let Some(loc) = &d.location {
            by_path
                .entry(&loc.path)
                .or_default()
                .push(loc.line as usize);
        }
    }
    let windows: HashMap<&str, HashMap<usize, Vec<String>>> = by_path
        .into_iter()
        .map(|(path, lines)| (path, line_windows(path, &lines, n)))
        .collect();
    wanted
        .iter()
        .map(|d| {
            d.location
                .as_ref()
                .and_then(|loc| windows.get(&*loc.path)?.get(&(loc.line as usize)).cloned())
                .unwrap_or_default()
        })
        .collect()
}

/// For each of `lines` (1-based), the lines from `n` before to `n` after it
/// in the file at `path` (read once; `.gz` decompressed); a file that
/// cannot be read gives none.
fn line_windows(path: &str, lines: &[usize], n: usize) -> HashMap<usize, Vec<String>> {
    use std::io::BufRead;
    let mut out: HashMap<usize, Vec<String>> = HashMap::new();
    // Opened as the parser opens it (gzip, UTF-16, lone CR line ends).
    let Ok(mut reader) = crate::parse::input::open_input(std::path::Path::new(path)) else {
        return out;
    };
    let last = lines.iter().max().copied().unwrap_or(0) + n;
    let mut wanted: Vec<usize> = lines.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    let mut first_open = 0;
    let mut buf = Vec::new();
    for number in 1..=last {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim_end_matches(['\n', '\r']);
        while first_open < wanted.len() && wanted[first_open] + n < number {
            first_open += 1;
        }
        for &line in wanted[first_open..]
            .iter()
            .take_while(|&&l| l <= number + n)
        {
            out.entry(line).or_default().push(text.to_string());
        }
    }
    out
}

/// The 6.10 choices and the seconds they ask, read from a log's own lines
/// ([`choice_6_10`]) and compared: points and divergences go into
/// `report`, the undecided ones are counted by reason.
/// What a decision of a 6.x client's log rests on that the log does not
/// print (the 6.x rules are replayed only over the 6.10 emulator's inputs;
/// a work-fetch choice with its whole block is re-derived by
/// [`choice_6_10`]).
fn needs_6x(kind: DecisionKind) -> &'static str {
    match kind {
        DecisionKind::WorkFetchChoice => {
            "6.10-6.12 print the chosen project (`chosen: CRITERION RSC: I inst, S sec`) \
             before the work-fetch state block and `No project chosen for work fetch` after \
             it (6.6.41 prints `chosen: RSC CRITERION` there): the log holds neither for this \
             pass, or not its whole block"
        }
        DecisionKind::WorkRequest => {
            "a 6.10-6.12 request is checked with its `chosen:` line against the state block \
             printed after it (the chosen project's share of the shortfall); this one has no \
             such line and block in the log, or is a 6.6-6.8 `[wfd] request:` line (that \
             release's set_request is not modelled)"
        }
        DecisionKind::FetchState => {
            "a 6.x work-fetch state (shortfall, saturated and busy times, fetch shares, debts) \
             comes from its round-robin simulation and debt accounting over every job and \
             project of the host: the client's state at that moment (client_state.xml) and the \
             debts' history are needed"
        }
        _ => {
            "6.x CPU scheduling and simulation rest on short-term debts and every runnable job: \
             the client's state at that moment (client_state.xml) and the debts' history are \
             needed; the 6.x rules are replayed only over the 6.10 client emulator's own inputs"
        }
    }
}

/// Compares `point` with what was replayed for it and files the outcome
/// (the point, and its divergences) in `report`.
fn file_point(
    report: &mut DivergenceReport,
    point: &recorded::RecordedPoint,
    replayed: &compare::Replayed,
    trace: &Trace,
    options: &AuditOptions,
) {
    let (decision_point, divergences) = compare::compare_point(
        point,
        replayed,
        options.tolerance,
        &trace.events,
        !options.summary,
    );
    report.points.push(decision_point);
    report.divergences.extend(divergences);
}

fn audit_6_10_choices(
    report: &mut DivergenceReport,
    trace: &Trace,
    options: &AuditOptions,
    choices: &[choice_6_10::Choice610],
) {
    let mut undecided: BTreeMap<String, usize> = BTreeMap::new();
    let mut check = |report: &mut DivergenceReport,
                     point: &recorded::RecordedPoint,
                     outcome: Result<(decision::Decision, String), &String>| {
        let replayed = match outcome {
            Ok((decision, reason)) => compare::Replayed::Decision {
                decision,
                reason: reason.into(),
            },
            Err(why) => {
                *undecided.entry(why.clone()).or_default() += 1;
                compare::Replayed::NotReplayed(why.clone())
            }
        };
        file_point(report, point, &replayed, trace, options);
    };
    for choice in choices {
        let Some(event) = trace.events.get(choice.event_idx) else {
            continue;
        };
        let point = recorded::RecordedPoint {
            time: event.time.secs().unwrap_or(0.0),
            time_label: recorded::time_label(&event.time),
            event_idx: choice.event_idx,
            project: choice.chosen.clone(),
            resource: choice.resource.clone(),
            decision: decision::Decision::Choice(choice.chosen.clone()),
            piggyback: false,
            before_fetch: false,
            cut_before: false,
            cut_after: false,
        };
        let outcome = match &choice.verdict {
            choice_6_10::Verdict::Decided { chosen, reason } => {
                Ok((decision::Decision::Choice(chosen.clone()), reason.clone()))
            }
            choice_6_10::Verdict::Undecided(why) => Err(why),
        };
        check(report, &point, outcome);
        // The seconds the `chosen:` line asks: a request point.
        let (Some(request), Some(rsc)) = (&choice.request, &choice.resource) else {
            continue;
        };
        let secs = |secs: f64, slack: f64| decision::Decision::RequestSecs {
            rsc: rsc.clone(),
            secs,
            slack,
        };
        let point = recorded::RecordedPoint {
            decision: secs(request.recorded_secs, 0.0),
            ..point
        };
        let outcome = match &request.outcome {
            Ok((value, slack, reason)) => Ok((secs(*value, *slack), reason.clone())),
            Err(why) => Err(why),
        };
        check(report, &point, outcome);
    }
    for (why, count) in undecided {
        report.unchecked.push(Unchecked {
            what: format!("{count} 6.x work-fetch choice(s) or request(s)"),
            why,
        });
    }
}

/// [`audit_with_draws`] without the log lines around the divergences: one
/// client session of a longer log, whose contexts are read once at the end
/// ([`log_contexts`]).
pub fn audit_session(
    trace: &Trace,
    trace_name: &str,
    options: &AuditOptions,
    generated: &world::Generator,
) -> Result<DivergenceReport, ReplayError> {
    audit_window(trace, trace_name, options, generated, None, None)
}

/// What the first window of a long session carries when the session can be
/// audited window by window ([`window`]): a session under the rules of 7.0
/// on, checked from its own lines, or replayed from the emulator's inputs
/// when a first pass pre-scanned it (`anchored`: [`anchored::AnchoredSlot`]),
/// or a 6.x
/// session listed pass by pass, or the 6.10 emulator's harness (its inputs
/// beside the log) once a first pass pre-scanned the run (`ltd_prescanned`:
/// [`ltd::Prescan610`]); else `Never`.
/// A release guessed from wording that later lines could still change
/// waits (`NotYet`) unless `accept_guess`.
pub fn window_carry(
    trace: &Trace,
    options: &AuditOptions,
    accept_guess: bool,
    anchored: bool,
    ltd_prescanned: bool,
) -> WindowStart {
    let choice = choose_policy(trace, options);
    let six_rules = choice.name == V6_10 || choice.name == LTD;
    // The 6.10 emulator's harness, pre-scanned: replayed window by window.
    if six_rules && ltd_prescanned && crate::simulate::emulator_6_10::build(trace).is_ok() {
        if !choice.settled && !accept_guess {
            return WindowStart::NotYet;
        }
        return WindowStart::Harness610 {
            policy: choice.name,
            reason: choice.reason,
        };
    }
    // 7.0 on (6.x releases are not kept as a release: they name V6_10).
    // A 6.x session is listed pass by pass (no replay) unless the 6.10
    // emulator's inputs are there (its harness replays the run).
    let six = six_rules && crate::simulate::emulator_6_10::build(trace).is_err();
    let windowable_rules =
        choice.name == CURRENT || choice.name == V7_2 || choice.release.is_some() || six;
    if !windowable_rules {
        return WindowStart::Never;
    }
    let emulator_clock = trace
        .events
        .iter()
        .any(|e| matches!(e.time, crate::trace::EventTime::Simulated(_)));
    // The anchored replay goes window by window when a first pass
    // pre-scanned the session (the judgement under today's rules too: its
    // runs are fed the same windows).
    if emulator_clock && !anchored && build::build_emulator_state(trace).is_ok() {
        return WindowStart::Never;
    }
    if !choice.settled && !accept_guess {
        return WindowStart::NotYet;
    }
    WindowStart::Now(Box::new(SessionCarry {
        choice: Some(choice),
        ..SessionCarry::default()
    }))
}

/// Whether a session can be audited window by window ([`window_carry`]).
#[derive(Debug)]
pub enum WindowStart {
    /// Yes, from its first window, which carries this.
    Now(Box<SessionCarry>),
    /// Not until more of its lines decide its rules (no client version
    /// stated, and the wording so far fits more than one era).
    NotYet,
    /// Yes, by the 6.10 emulator's harness ([`ltd::LtdRun`]), under these
    /// rules.
    Harness610 {
        /// The rules' name.
        policy: String,
        /// Why these rules.
        reason: String,
    },
    /// No: it is read whole (the anchored replay, the 6.x rules).
    Never,
}

/// Run-list lines before 7.6.8 tell a job's resource only as CPU or
/// `coprocessor job` (`scheduling JOB (KIND)` to 7.3, `add to run list: JOB
/// (KIND)` from 7.4.0; 7.6.8 names the GPU type).
fn coarse_run_list_names(release: Release) -> bool {
    release < Release(7, 6, 8)
}

/// Whether the session's simulations count GPU jobs' CPUs in the CPU
/// figures: from 7.16 on (commit 40f0cb44f4); 7.0 to 7.15 did not. A
/// release stated (by the trace or the options) decides; a release guessed
/// from the wording decides only when the wording's era lies on one side.
fn gpu_cpu_rule(choice: &PolicyChoice) -> rrsim_check::GpuCpuRule {
    use rrsim_check::GpuCpuRule;
    let stated = choice.reason.starts_with("client ") || choice.reason.starts_with("--policy");
    let before_7_16 = |r: Release| (r.0, r.1) < (7, 16);
    match choice.release {
        _ if choice.name == V7_2 => GpuCpuRule::Dropped,
        Some(r) if stated && before_7_16(r) => GpuCpuRule::Dropped,
        Some(_) if stated => GpuCpuRule::Counted,
        None if stated => GpuCpuRule::Counted,
        // The eras guessed_release() names.
        _ if ["(7.16-7.24", "(8.0-8.2.13", "(8.2.14 or later)"]
            .iter()
            .any(|era| choice.reason.contains(era)) =>
        {
            GpuCpuRule::Counted
        }
        _ if choice.reason.contains("(7.3-7.14") => GpuCpuRule::Dropped,
        _ => GpuCpuRule::Unknown,
    }
}

/// The running state a window of a session (its lines `trace.events`)
/// passes to the next, whose lines start at `next_start`
/// ([`Window::carry_on`]); `from_lines`: whether the
/// next windows check decisions from the log's own lines (not when the
/// anchored replay runs: its client loop is the running state).
pub fn carry_on(
    trace: &Trace,
    window: &Window,
    next_start: usize,
    from_lines: bool,
) -> SessionCarry {
    let facts = from_lines.then(|| job_facts(trace));
    window.carry_on(&trace.events, facts.as_ref(), next_start)
}

/// What every part of one window's audit reads: the trace, the options
/// and the window (`None`: the whole session).
#[derive(Clone, Copy)]
struct Scope<'t> {
    trace: &'t Trace,
    options: &'t AuditOptions,
    window: Option<&'t Window>,
}

impl<'t> Scope<'t> {
    /// Whether the point at line `idx` is this window's to report.
    fn reports(&self, idx: usize) -> bool {
        self.window.is_none_or(|w| w.reports(idx))
    }

    /// The window's first line.
    fn from(&self) -> usize {
        self.window.map_or(0, |w| w.from)
    }

    /// The kinds recorded in this window and the windows before.
    fn recorded_kinds(
        &self,
        points: &[recorded::RecordedPoint],
    ) -> std::collections::BTreeSet<DecisionKind> {
        let mut kinds: std::collections::BTreeSet<DecisionKind> = points
            .iter()
            .filter(|p| self.reports(p.event_idx))
            .map(|p| p.kind())
            .collect();
        if let Some(carried) = self.carried() {
            kinds.extend(carried.recorded_kinds.iter().copied());
        }
        kinds
    }

    /// Whether the log runs on the emulator's clock: the anchored replay
    /// steps it; a real client's log (wall-clock times, event-driven
    /// passes, a state file written after the log) is checked from its own
    /// lines.
    fn emulator_clock(&self) -> bool {
        self.trace
            .events
            .iter()
            .any(|e| matches!(e.time, crate::trace::EventTime::Simulated(_)))
    }

    /// What the windows before carried.
    fn carried(&self) -> Option<&'t SessionCarry> {
        self.window.map(|w| &w.carry)
    }
}

/// The points compared, their divergences, and per kind how many were not
/// recomputed with the first one's reason.
type Compared = (
    Vec<crate::divergence::DecisionPoint>,
    Vec<Divergence>,
    BTreeMap<DecisionKind, (usize, String)>,
);

/// [`audit_session`] over one window of a long session (`None`: the whole
/// session): the decisions [`Window::reports`], over the window's lines
/// and what the windows before carried.
pub fn audit_window(
    trace: &Trace,
    trace_name: &str,
    options: &AuditOptions,
    generated: &world::Generator,
    window: Option<&Window>,
    anchored: Option<&mut anchored::AnchoredSlot>,
) -> Result<DivergenceReport, ReplayError> {
    auditable(trace, options)?;
    let scope = Scope {
        trace,
        options,
        window,
    };
    let carried = scope.carried();
    // The session's rules, unless the options name others (`--policy`,
    // the judgement under today's).
    let choice = match carried.and_then(|c| c.choice.clone()) {
        Some(choice) if options.policy.is_none() => choice,
        _ => choose_policy(trace, options),
    };
    let policy = choice.name.clone();
    let mut policy_reason = choice.reason.clone();
    let mut report = DivergenceReport {
        trace: trace_name.to_string(),
        policy: policy.clone(),
        policy_reason: policy_reason.clone(),
        ..DivergenceReport::default()
    };
    // A window's points are borrowed: copied only where some are dropped.
    let mut points: std::borrow::Cow<'_, [recorded::RecordedPoint]> = match window {
        Some(w) => std::borrow::Cow::Borrowed(&w.points),
        None => std::borrow::Cow::Owned(recorded::extract(&trace.events)),
    };
    if !options.summary {
        report.activity = activity::host_activity(&trace.events, &points, None);
    }
    let recorded_kinds = scope.recorded_kinds(&points);
    let mut unchecked = Vec::new();
    let mut params = options.params.clone();
    match set_rules(&choice, options, &mut params, &mut policy_reason) {
        Rules::Replay => {}
        Rules::SixX => return audit_6x(scope, report, &points, &policy),
        Rules::NotImplemented => {
            report.unchecked.push(Unchecked {
                what: "every decision".into(),
                why: format!("policy generation {policy} not implemented yet"),
            });
            return Ok(report);
        }
    }
    report.policy_reason = policy_reason;
    report.release = choice.release.map(|r| r.to_string());
    let emulator_clock = scope.emulator_clock();
    // The emulator's own start-up rules are those of its release (before
    // 7.16.1 it reads no app_config.xml); a real client's state is read as
    // today's emulator reads it.
    let emulator_release = if policy == V7_2 {
        Some(Release(7, 2, 42))
    } else {
        choice.release.filter(|_| emulator_clock)
    };
    let state = host_state(
        trace,
        emulator_release,
        emulator_clock,
        &mut unchecked,
        &mut report,
    )?;
    if let Some(built) = state.as_ref().filter(|_| emulator_clock) {
        let missing = inputs::missing(trace, built, |p| build::has_app_config(trace, p));
        if !missing.is_empty() {
            return Ok(not_checked_for_inputs(scope, report, &points, &missing));
        }
    }
    // A session read in windows was pre-scanned by a first pass.
    let mut anchored = anchored.filter(|_| window.is_some());
    let (prescan, delta) = loop_clock(
        trace,
        anchored.as_deref(),
        emulator_clock && state.is_some(),
        options.stated_step.as_ref(),
        &mut report.input_errors,
    );
    let settings = driver::CompareSettings {
        tolerance: options.tolerance,
        coarse_rsc_names: policy == V7_2 || choice.release.is_some_and(coarse_run_list_names),
        delta,
        lines: !options.summary,
    };
    let profile = if policy == V7_2 {
        Profile::v7_2()
    } else {
        Profile::for_emulator(emulator_release)
    };
    if state.is_some() && delta > 0.0 {
        // choose_project()'s scan lines restate the block's reasons, and
        // the RPC timing restates recorded deferrals: the anchored replay
        // checks the block and the backoffs themselves.
        if points.iter().any(|p| p.decision.restates()) {
            points.to_mut().retain(|p| !p.decision.restates());
        }
    }
    let mut rested_on = Vec::new();
    let (results, divergences, not_replayed) = match state {
        Some(state) if delta > 0.0 => {
            let run = LoopInputs {
                delta,
                params: &params,
                profile,
                generated,
                prescan,
                settings,
            };
            let slot = anchored.as_deref_mut();
            anchored_compare(
                scope,
                state,
                run,
                slot,
                &points,
                &mut unchecked,
                &mut rested_on,
            )
        }
        state => checked_from_lines(
            scope,
            state.as_ref(),
            &points,
            &choice,
            &params,
            &mut rested_on,
        ),
    };
    report.points = results;
    report.rested_on = rested_on;
    report.divergences = divergences;
    note_gaps(
        scope,
        &points,
        not_replayed,
        &recorded_kinds,
        &mut unchecked,
    );
    report.unchecked.extend(unchecked);
    judge_release(scope, trace_name, generated, &mut report, &choice, anchored)?;
    note_first_context(scope, &points, &mut report);
    Ok(report)
}

/// Every decision of the scope "not checked": the log proves the client
/// read inputs that are not given ([`inputs::missing`]), and a replay
/// without them would diverge for want of a file, not for the policy.
fn not_checked_for_inputs(
    scope: Scope<'_>,
    mut report: DivergenceReport,
    points: &[recorded::RecordedPoint],
    missing: &[inputs::MissingInput],
) -> DivergenceReport {
    let why = missing
        .iter()
        .map(inputs::MissingInput::sentence)
        .collect::<Vec<_>>()
        .join("; ");
    let replayed = compare::Replayed::NotReplayed(why.clone());
    let options = scope.options;
    for point in points.iter().filter(|p| scope.reports(p.event_idx)) {
        let (point, _) = compare::compare_point(
            point,
            &replayed,
            options.tolerance,
            &scope.trace.events,
            !options.summary,
        );
        report.points.push(point);
    }
    report.unchecked.push(Unchecked {
        what: "every decision".into(),
        why,
    });
    report
}

/// A trace with events and a usable tolerance, or the error saying which
/// is not.
fn auditable(trace: &Trace, options: &AuditOptions) -> Result<(), ReplayError> {
    if !(options.tolerance.is_finite() && options.tolerance >= 0.0) {
        return Err(ReplayError::BadTolerance(options.tolerance));
    }
    if trace.events.is_empty() {
        return Err(ReplayError::NoEvents);
    }
    Ok(())
}

/// The input problem of a run whose stated time step (`stated`: the step
/// and the file stating it) is not the step its log shows (`delta`, 0 when
/// the log is not replayed by the loop).
fn step_disagrees(stated: Option<&(f64, String)>, delta: f64) -> Option<String> {
    let (step, file) = stated?;
    (delta > 0.0 && (step - delta).abs() > 1e-6).then(|| {
        format!(
            "{file} states a time step of {step} s, but the log's own step is {delta} s \
             (its `recent est credit … in N sec` lines and the gaps between its passes): the \
             log was not written with the options beside it; the replay runs at the log's \
             {delta} s"
        )
    })
}

/// The emulator's pre-scan (none when a first pass over the windows made
/// it) and its time step (0: the record is not replayed by the loop); a
/// `stated` step that differs goes to `problems`.
fn loop_clock(
    trace: &Trace,
    anchored: Option<&anchored::AnchoredSlot>,
    replayable: bool,
    stated: Option<&(f64, String)>,
    problems: &mut Vec<String>,
) -> (Option<queue::Prescan>, f64) {
    let prescan = match anchored {
        Some(_) => None,
        None => replayable.then(|| queue::Prescan::of(&trace.events)),
    };
    let delta = match (anchored, &prescan) {
        (Some(slot), _) if replayable => slot.prescan().time_step(),
        (_, Some(prescan)) => prescan.time_step(),
        _ => None,
    };
    let delta = delta.unwrap_or(0.0);
    problems.extend(step_disagrees(stated, delta));
    (prescan, delta)
}

/// An emulator's record replayed by the client loop anchored on its
/// state: what the loop runs with.
struct LoopInputs<'a> {
    delta: f64,
    params: &'a Params,
    profile: Profile,
    generated: &'a world::Generator,
    /// The session's pre-scan (`None`: a window's slot holds it).
    prescan: Option<queue::Prescan>,
    settings: driver::CompareSettings,
}

/// The client loop over `state` and the recorded world, each decision
/// compared as it is made (a window's run kept in `anchored`).
fn anchored_compare(
    scope: Scope<'_>,
    state: crate::policy::state::HostState,
    run: LoopInputs<'_>,
    anchored: Option<&mut anchored::AnchoredSlot>,
    points: &[recorded::RecordedPoint],
    unchecked: &mut Vec<Unchecked>,
    rested_on: &mut Vec<RestedOn>,
) -> Compared {
    let trace = scope.trace;
    let (delta, profile, generated) = (run.delta, run.profile, run.generated);
    let (mut comparer, unknown, stopped) = match (anchored, scope.window) {
        (Some(slot), Some(w)) => slot.window(trace, w, points, |prescan| {
            anchored::AnchoredRun::start(
                trace,
                state,
                delta,
                run.params,
                profile,
                generated,
                prescan,
                &trace.availability,
                driver::Comparer::new(run.settings),
            )
        }),
        _ => {
            let mut comparer = driver::Comparer::new(run.settings);
            comparer.feed_from(points, &trace.events, |_| true);
            let prescan = run.prescan.unwrap_or_default();
            let mut run = run_recorded(
                trace, state, delta, run.params, profile, generated, &prescan, comparer,
            );
            let unknown = run.finish();
            let stopped = run.stopped.take();
            (run.comparer, unknown, stopped)
        }
    };
    if unknown.jobs > 0 {
        unchecked.push(unknown_estimates(&unknown));
    }
    if let Some(why) = stopped {
        unchecked.push(Unchecked {
            what: "the rest of the trace".into(),
            why,
        });
    }
    for point in comparer.results.iter().filter(|p| p.checked) {
        add_rested_on(rested_on, point.kind, ANCHORED_BASIS, 1);
    }
    (
        std::mem::take(&mut comparer.results),
        std::mem::take(&mut comparer.divergences),
        std::mem::take(&mut comparer.not_replayed),
    )
}

/// What a window's audit does under the rules a policy choice names.
enum Rules {
    /// Replays them (set in the params).
    Replay,
    /// A 6.x generation: [`audit_6x`].
    SixX,
    /// A generation not implemented.
    NotImplemented,
}

/// Sets the rules `choice` names in `params` (a release's rules said in
/// `policy_reason`).
fn set_rules(
    choice: &PolicyChoice,
    options: &AuditOptions,
    params: &mut Params,
    policy_reason: &mut String,
) -> Rules {
    let policy = choice.name.as_str();
    match policy {
        V7_2 => {
            // Today's engine with the 7.2.42 differences (policy-legacy
            // C.1): GPU jobs' CPU outside the simulation's CPU use (the
            // project's own counter keeps it), completions timed at the
            // start of their step, a run list filled to NCPUS, a simulation
            // afresh at every pass and work-fetch set-up, and the harness's
            // deferral after each reply. Every decision kind is checked.
            // A key the user set with `--set` keeps the user's value.
            profile::params_for_release_keeping(
                params,
                profile::Release(7, 2, 42),
                &options.user_set,
            );
        }
        V6_10 | LTD => return Rules::SixX,
        _ if policy == CURRENT || choice.release.is_some() => {
            release_rules(choice.release, options, params, policy_reason);
        }
        _ => return Rules::NotImplemented,
    }
    Rules::Replay
}

/// A release's rules: today's with its later changes undone in `params` (a
/// key the user set keeps the user's value), said in `policy_reason`.
fn release_rules(
    release: Option<Release>,
    options: &AuditOptions,
    params: &mut Params,
    policy_reason: &mut String,
) {
    let Some(release) = release else {
        return;
    };
    let undone = profile::params_for_release_keeping(params, release, &options.user_set);
    if !undone.is_empty() {
        *policy_reason = format!(
            "{policy_reason}; today's rules with {} later change(s) undone ({}); \
             see `policy profiles`",
            undone.len(),
            undone.iter().map(|c| c.key).collect::<Vec<_>>().join(", ")
        );
    }
    if release < profile::OLDEST_CATALOGUED {
        *policy_reason = format!(
            "{policy_reason}; rule changes between {release} and {} are not \
             catalogued",
            profile::OLDEST_CATALOGUED
        );
    }
}

/// The host's state at the start of the log as the emulator's start-up
/// rules of `emulator_release` read it (`None`, said in `unchecked`: the
/// record has no state file). A real client's log (no `emulator_clock`) is
/// said to be checked from its own lines.
fn host_state(
    trace: &Trace,
    emulator_release: Option<Release>,
    emulator_clock: bool,
    unchecked: &mut Vec<Unchecked>,
    report: &mut DivergenceReport,
) -> Result<Option<crate::policy::state::HostState>, ReplayError> {
    let state = match build::build_emulator_state_for(trace, emulator_release) {
        Ok((state, notes)) => {
            for project in &notes.dropped_projects {
                unchecked.push(Unchecked {
                    what: format!("project {project}"),
                    why: "dropped at start-up: no app with a usable app version".into(),
                });
            }
            report.activity.resources = activity::host_resources(&state);
            Some(state)
        }
        Err(ReplayError::MissingState(why)) => {
            unchecked.push(Unchecked {
                what: ANCHORED_KINDS.into(),
                why: format!(
                    "{why}; only what the log's own lines decide is checked (work-fetch \
                     choices and requests, priorities, enforcement passes, run lists of a \
                     log that starts with the client, and state blocks after a whole \
                     simulation printed: with rrsim_detail, or from 7.5 on its `finishes` \
                     lines alone)"
                ),
            });
            None
        }
        Err(other) => return Err(other),
    };
    if state.is_some() && !emulator_clock {
        unchecked.push(Unchecked {
            what: ANCHORED_KINDS.into(),
            why: "a real client's log (wall-clock times): its client_state.xml is a snapshot \
                  taken after the log, not the state each decision saw; each decision is \
                  checked from the log's own lines and the host they tell at that line (each \
                  simulation made again by the client loop over that host), and its reason \
                  says what it rested on"
                .into(),
        });
    }
    Ok(state)
}

/// A 6.x session: the 6.10 emulator's loop over its inputs, or, for a log
/// without them (an excerpt, a volunteer's data directory), each kind listed
/// and what its own lines decide checked.
fn audit_6x(
    scope: Scope<'_>,
    mut report: DivergenceReport,
    points: &[recorded::RecordedPoint],
    policy: &str,
) -> Result<DivergenceReport, ReplayError> {
    let (trace, options, from, carried) =
        (scope.trace, scope.options, scope.from(), scope.carried());
    // The 6.x rules of a line rule follow the stated release.
    let release = stated_release(trace, options.client_version).map(|(r, _)| r);
    let reports = |idx: usize| scope.reports(idx);
    match ltd::audit(trace, options.tolerance) {
        Ok(audit) => {
            report.points = audit.points;
            report.divergences = audit.divergences;
            report.unchecked = audit.unchecked;
            report.rest_unlabelled_on(LTD_BASIS);
            Ok(report)
        }
        // A 6.x log without the 6.10 emulator's inputs (an excerpt, a
        // volunteer's data directory): listed, not recomputed.
        Err(ReplayError::MissingState(why)) => {
            // `why` names the emulator's input file, which a volunteer
            // would not know: each kind's note says what it stands for.
            // A 6.10 emulator's own log (`starting simultion`) gets it.
            let emulator_run = trace
                .events
                .iter()
                .any(|e| matches!(e.message, Message::EmuStartingSimulation { .. }));
            if emulator_run {
                report.unchecked.push(Unchecked {
                    what: "the 6.10 emulator's replay".into(),
                    why: format!("{why}: each kind is checked from its own lines only"),
                });
            }
            // The choice of 6.6-6.12 follows from its own printed state
            // block (choice_6_10): those points replace the listed ones.
            let choices = if policy == V6_10 {
                choice_6_10::choices(&trace.events)
            } else {
                Vec::new()
            };
            // A choice the 6.10 reader read is the same pass's choice
            // point of the extraction (a few lines apart, at the same
            // time): checked once, by the 6.10 reader.
            let read_610: Vec<(usize, f64)> = choices
                .iter()
                .filter_map(|c| Some((c.event_idx, line_time(&trace.events, c.event_idx)?)))
                .collect();
            let same_pass = |point: &recorded::RecordedPoint| {
                read_610.iter().any(|&(idx, time)| {
                    time == point.time && idx.abs_diff(point.event_idx) <= SAME_PASS_LINES
                })
            };
            // A state block's figures follow from the 6.x simulation
            // printed whole before it (rr_simulation on).
            // A 6.x emulator's run (its sim_projects.xml given) runs every
            // job on one CPU.
            let mut seen = carried.map(|c| c.rr_sim.clone()).unwrap_or_default();
            seen.one_cpu_jobs = trace.state.sim_projects.is_some();
            seen.busy_sums_misses = matches!(
                choice_6_10::ltd_wording(&trace.events),
                Some(choice_6_10::LtdWording::V6_6)
            );
            let fetch_states = rrsim_check::refigure_from(
                &trace.events,
                points,
                Some(&seen),
                rrsim_check::GpuCpuRule::Counted,
                from,
            );
            // A chosen project asked for nothing: its two lines decide.
            let empty: Vec<_> = empty_request::checks_from(&trace.events, release, from)
                .into_iter()
                .filter(|(point, _)| reports(point.event_idx))
                .collect();
            for (point, replayed) in &empty {
                file_point(&mut report, point, replayed, trace, options);
            }
            let judged_by_empty = |point: &recorded::RecordedPoint| {
                matches!(point.decision, decision::Decision::Request { .. })
                    && empty.iter().any(|(e, _)| e.event_idx == point.event_idx)
            };
            // Per kind: how many, and the first one's reason.
            let mut listed: BTreeMap<DecisionKind, (usize, String)> = BTreeMap::new();
            for point in points.iter().filter(|p| reports(p.event_idx)) {
                if matches!(point.decision, decision::Decision::Choice(_)) && same_pass(point)
                    || judged_by_empty(point)
                {
                    continue;
                }
                // A block's figures answer its own fetch-state point only
                // (6.6-6.8 print the choice's line right before the block
                // it shares an index with).
                let refigured = fetch_states
                    .get(&point.event_idx)
                    .filter(|_| matches!(point.decision, decision::Decision::FetchState(_)));
                if let Some(Ok((decision, reason))) = refigured {
                    let replayed = compare::Replayed::Decision {
                        decision: decision.clone(),
                        reason: reason.clone(),
                    };
                    file_point(&mut report, point, &replayed, trace, options);
                    continue;
                }
                let mt = matches!(point.decision, decision::Decision::Enforcement(_))
                    .then(|| enforce_check::mt_skips_6x(&trace.events, point.event_idx))
                    .flatten();
                let why = match refigured {
                    Some(Err(from_lines)) => format!(
                        "from the simulation printed before it: {from_lines}; from the host: \
                     {}",
                        needs_6x(point.kind())
                    ),
                    _ => mt.as_deref().unwrap_or(needs_6x(point.kind())).to_string(),
                };
                let why = if point.cut_before {
                    format!("the log starts inside this pass; {why}")
                } else {
                    why
                };
                listed
                    .entry(point.kind())
                    .or_insert_with(|| (0, why.clone()))
                    .0 += 1;
                let not = compare::Replayed::NotReplayed(why);
                file_point(&mut report, point, &not, trace, options);
            }
            for (kind, (count, why)) in listed {
                report.unchecked.push(Unchecked {
                    what: format!("{count} {kind} decision(s) not checked"),
                    why: format!("first: {why}"),
                });
            }
            let own: Vec<choice_6_10::Choice610> = choices
                .into_iter()
                .filter(|c| reports(c.event_idx))
                .collect();
            audit_6_10_choices(&mut report, trace, options, &own);
            report.points.sort_by(|a, b| a.time.total_cmp(&b.time));
            note_first_context(scope, points, &mut report);
            report.rest_unlabelled_on(
                "the 6.x pass's own printed state block (choice), the simulation printed \
             before it (state block figures), or a `chosen:` line and the chosen project's \
             `request:` line (a request for nothing)",
            );
            Ok(report)
        }
        Err(other) => Err(other),
    }
}

/// Each enforcement pass as the client loop made it (`true`); a pass the
/// loop could not make re-derived from its own lines, the account saying
/// why.
fn enforcements(
    own_lines: BTreeMap<usize, enforce_check::Rederived>,
    mut made: BTreeMap<usize, enforce_replay::PassEnforcement>,
) -> BTreeMap<usize, (enforce_check::Rederived, bool)> {
    let own = |result: enforce_check::Rederived, why: &str| {
        let result = result.map(|(actions, reason)| {
            (
                actions,
                format!("{reason} (from the pass's own lines: {why})"),
            )
        });
        (result, false)
    };
    own_lines
        .into_iter()
        .map(|(idx, lines)| {
            let result = match made.remove(&idx) {
                Some(enforce_replay::PassEnforcement::Made(made)) => (made, true),
                Some(enforce_replay::PassEnforcement::NotMade(why)) => {
                    own(lines, &format!("the client loop did not make it: {why}"))
                }
                None => own(lines, "no run list of the same pass precedes it"),
            };
            (idx, result)
        })
        .collect()
}

/// A log checked from its own lines (no anchored replay): each decision
/// recomputed from the lines and the host they tell at that line, and what
/// each check rested on counted in `rested_on`.
fn checked_from_lines(
    scope: Scope<'_>,
    state: Option<&crate::policy::state::HostState>,
    points: &[recorded::RecordedPoint],
    choice: &PolicyChoice,
    params: &Params,
    rested_on: &mut Vec<RestedOn>,
) -> Compared {
    let (trace, options, from, carried) =
        (scope.trace, scope.options, scope.from(), scope.carried());
    let reports = |idx: usize| scope.reports(idx);
    let contexts = selfcheck::link_contexts(points);
    let job_facts = job_facts(trace);
    let (hosts, read_to) = window_hosts(scope, points, &job_facts);
    let remade = runlist_replay::remake_from(
        &trace.events,
        points,
        &job_facts,
        hosts.passes,
        params,
        from,
    );
    let facts = hosts.log;
    let enforcements = enforcements(
        enforce_check::rederive_from(&trace.events, points, carried.and_then(|c| c.ncpus), from),
        remade.enforcements,
    );
    let run_lists = remade.run_lists;
    let (fetch_states, rr_sim_read) = rrsim_check::refigure_to(
        &trace.events,
        points,
        carried.map(|c| &c.rr_sim),
        gpu_cpu_rule(choice),
        from,
        read_to.map(|to| to.until),
    );
    if let (Some(w), Some(to), Some(tracker)) = (scope.window, read_to, rr_sim_read) {
        let _ = w.rr_sim_read.set((to.until, tracker));
    }
    let earlier = carried.and_then(|c| c.last_sim.as_ref());
    let rr_sims = rrsim_replay::resimulate_from(
        &trace.events,
        points,
        &job_facts,
        hosts.views,
        earlier,
        params,
        from,
    );
    let sim_prios = rr_sims
        .iter()
        .map(|(&start, rerun)| {
            let made = match rerun {
                Ok(rerun) => rerun.prio.clone(),
                Err(why) => Err(format!("its simulation was not made again: {why}")),
            };
            (start, made)
        })
        .collect();
    let check = selfcheck::SelfCheck::new(
        state,
        contexts,
        run_lists,
        enforcements,
        fetch_states,
        facts,
    )
    .with_rec_half_life(rec_half_life_secs(trace, state.is_some()))
    .with_rec_decays(selfcheck::rec_decays(points))
    .with_priorities(prio_replay::by_point(&trace.events, points, &sim_prios))
    .with_prio_passes(points, &trace.events)
    .with_rr_sims(rr_sims)
    .with_backoffs(backoff_check::ranges_from(
        &trace.events,
        points,
        carried.map(|c| &c.backoffs),
        params,
        from,
    ));
    let mut results = Vec::new();
    let mut divergences = Vec::new();
    let mut not_replayed: BTreeMap<DecisionKind, (usize, String)> = BTreeMap::new();
    let mc_points = line_rule_points(scope, choice, params);
    let all_points = merged_points(points, &mc_points, reports);
    let mc_replayed: BTreeMap<usize, &compare::Replayed> = mc_points
        .iter()
        .map(|(point, replayed)| (point.event_idx, replayed))
        .collect();
    for point in all_points {
        let line_rule = matches!(
            point.decision,
            decision::Decision::McShortfall { .. }
                | decision::Decision::SwapSkip { .. }
                | decision::Decision::EmptyRequest { .. }
        );
        let replayed = match mc_replayed.get(&point.event_idx) {
            Some(&replayed) if line_rule => replayed.clone(),
            _ => check.replay(point),
        };
        // A run list not recomputed is still held to its priority
        // order, which any stretch of it shows.
        let replayed = match (&point.decision, replayed) {
            (decision::Decision::RunList(entries), compare::Replayed::NotReplayed(why)) => {
                match joblog::priority_order(entries) {
                    Some((reordered, reason)) => compare::Replayed::Decision {
                        decision: decision::Decision::RunList(reordered),
                        reason: reason.into(),
                    },
                    None => compare::Replayed::NotReplayed(why),
                }
            }
            (_, replayed) => replayed,
        };
        if let compare::Replayed::NotReplayed(why) = &replayed {
            let entry = not_replayed
                .entry(point.kind())
                .or_insert_with(|| (0, why.clone()));
            entry.0 += 1;
        }
        let (decision_point, found) = compare::compare_point(
            point,
            &replayed,
            options.tolerance,
            &trace.events,
            !options.summary,
        );
        if decision_point.checked {
            add_rested_on(rested_on, point.kind(), check.rested_on(point), 1);
        }
        results.push(decision_point);
        divergences.extend(found);
    }
    (results, divergences, not_replayed)
}

/// The host at each simulation, run list and piggyback choice of the
/// scope: one reading of its lines for all three ([`joblog::hosts_at`]),
/// read on to a window's end, where the window keeps the jobs for the next
/// one; with how far that is.
fn window_hosts(
    scope: Scope<'_>,
    points: &[recorded::RecordedPoint],
    job_facts: &joblog::JobFacts,
) -> (joblog::HostsAt, Option<joblog::ReadTo>) {
    let events = &scope.trace.events;
    let read_to = scope.window.and_then(|w| {
        w.until.map(|until| joblog::ReadTo {
            until: until.min(events.len()),
            last_sim: w.last_reported_sim(),
        })
    });
    let jobs = scope.carried().map(|c| &c.jobs);
    let mut hosts = joblog::hosts_at(events, points, job_facts, jobs, scope.from(), read_to);
    if let (Some(w), Some(to), Some((jobs, at_last_sim))) =
        (scope.window, read_to, hosts.read.take())
    {
        let _ = w.jobs_read.set(window::JobsRead {
            until: to.until,
            jobs,
            at_last_sim,
        });
    }
    (hosts, read_to)
}

/// The rules one line decides (an MC shortfall, a swap skip, an empty
/// request) in the window's reach, in line order, each with its replay.
fn line_rule_points(
    scope: Scope<'_>,
    choice: &PolicyChoice,
    params: &Params,
) -> Vec<(recorded::RecordedPoint, compare::Replayed)> {
    let (events, from, carried) = (&scope.trace.events, scope.from(), scope.carried());
    let mut mc_points = mc_check::checks_from(
        events,
        choice.release,
        params.mc_shortfall_running_max != 0.0,
        carried.and_then(|c| c.mc_buffer),
        from,
    );
    mc_points.extend(swap_check::checks_from(
        events,
        params.swap_check_vm_size != 0.0,
        from,
    ));
    mc_points.extend(empty_request::checks_from(events, choice.release, from));
    mc_points.retain(|(point, _)| scope.reports(point.event_idx));
    mc_points.sort_by_key(|(point, _)| point.event_idx);
    mc_points
}

/// The log's own points the window reports and the line rules' points, in
/// line order; a request line an empty-request rule judges is that rule's
/// point only.
fn merged_points<'a>(
    points: &'a [recorded::RecordedPoint],
    line_rules: &'a [(recorded::RecordedPoint, compare::Replayed)],
    reports: impl Fn(usize) -> bool,
) -> Vec<&'a recorded::RecordedPoint> {
    let judged_requests: std::collections::BTreeSet<usize> = line_rules
        .iter()
        .filter(|(point, _)| matches!(point.decision, decision::Decision::EmptyRequest { .. }))
        .map(|(point, _)| point.event_idx)
        .collect();
    let mut all_points: Vec<&recorded::RecordedPoint> = Vec::new();
    let mut rules = line_rules.iter().map(|(point, _)| point).peekable();
    let own_points = points.iter().filter(|p| {
        reports(p.event_idx)
            && !(matches!(p.decision, decision::Decision::Request { .. })
                && judged_requests.contains(&p.event_idx))
    });
    for point in own_points {
        while let Some(early) = rules.next_if(|m| m.event_idx < point.event_idx) {
            all_points.push(early);
        }
        all_points.push(point);
    }
    all_points.extend(rules);
    all_points
}

/// The notes on what this window could not check: the passes the log
/// ends inside, each kind not recomputed (with its first reason), and the
/// kinds the log never recorded (the flag that would).
fn note_gaps(
    scope: Scope<'_>,
    points: &[recorded::RecordedPoint],
    not_replayed: BTreeMap<DecisionKind, (usize, String)>,
    recorded_kinds: &std::collections::BTreeSet<DecisionKind>,
    unchecked: &mut Vec<Unchecked>,
) {
    let window = scope.window;
    let reports = |idx: usize| scope.reports(idx);
    let cut: Vec<&recorded::RecordedPoint> = points
        .iter()
        .filter(|p| p.cut_after && reports(p.event_idx))
        .collect();
    if let Some(first) = cut.first() {
        unchecked.push(Unchecked {
            what: format!(
                "the last {} decision point(s), from {}",
                cut.len(),
                first.time_label
            ),
            why: "the log ends inside this pass (a truncated or still-growing file): only its \
                  start is recorded"
                .into(),
        });
    }
    for (kind, (count, why)) in not_replayed {
        unchecked.push(Unchecked {
            what: format!("{count} {kind} decision(s) not checked"),
            why: format!("first: {why}"),
        });
    }
    for (kind, flag) in [
        (DecisionKind::WorkFetchChoice, "work_fetch_debug"),
        (DecisionKind::RrSim, "rr_simulation"),
        (DecisionKind::RunList, "cpu_sched_debug"),
        (DecisionKind::Priority, "priority_debug"),
    ] {
        // A window before the session's last does not know yet.
        let last_window = window.is_none_or(|w| w.until.is_none());
        if last_window && !recorded_kinds.contains(&kind) {
            // An excerpt of enforcement lines has cpu_sched_debug on.
            let why = if kind == DecisionKind::RunList
                && recorded_kinds.contains(&DecisionKind::Enforcement)
            {
                "none recorded (the log shows enforcement passes but no run list is built in \
                 it: an excerpt that starts after make_run_list?)"
                    .to_string()
            } else {
                format!("none recorded (log flag {flag} off?)")
            };
            unchecked.push(Unchecked {
                what: format!("{kind} decisions"),
                why,
            });
        }
    }
}

/// `--since-changed`: the window's checked decisions judged again under
/// today's rules (or why they cannot be).
fn judge_release(
    scope: Scope<'_>,
    trace_name: &str,
    generated: &world::Generator,
    report: &mut DivergenceReport,
    choice: &PolicyChoice,
    anchored: Option<&mut anchored::AnchoredSlot>,
) -> Result<(), ReplayError> {
    let (trace, options, window) = (scope.trace, scope.options, scope.window);
    // The nested replays of the judgement run under today's rules, so they
    // never judge again.
    if options.since_changed && options.policy.as_deref() != Some(CURRENT) {
        match choice.release {
            Some(release) => {
                report.since_changed = judge_under_today(
                    trace, trace_name, options, generated, report, release, window, anchored,
                )?;
                // Said whether or not the log shows a named change below
                // (every window of a session says the same).
                if report.since_changed.is_none() {
                    report.unchecked.push(Unchecked {
                        what: "--since-changed".into(),
                        why: format!(
                            "release {release} has today's replayed rules, or today's replay made \
                             other decision points than the release's"
                        ),
                    });
                }
                // The changes the engine does not recompute, named where
                // the log shows their decisions.
                let noted = release_notes::hits(release, &trace.events, |idx| scope.reports(idx));
                if !noted.is_empty() {
                    report
                        .since_changed
                        .get_or_insert_with(|| SinceChanged {
                            release: release.to_string(),
                            ..SinceChanged::default()
                        })
                        .noted = noted;
                }
            }
            None => report.unchecked.push(Unchecked {
                what: "--since-changed".into(),
                why: "the trace's release is not known (or is before 7.3): nothing to judge \
                      against"
                    .into(),
            }),
        }
    }
    Ok(())
}

/// The log lines around the window's first divergence.
fn note_first_context(
    scope: Scope<'_>,
    points: &[recorded::RecordedPoint],
    report: &mut DivergenceReport,
) {
    let trace = scope.trace;
    let reports = |idx: usize| scope.reports(idx);
    if let Some(first) = report.divergences.first() {
        // Its point's first line (a point compared in the window after its
        // own, the anchored replay's last step, is among the lines before).
        let idx = match &first.location {
            Some(loc) => trace.events.iter().position(|e| &e.location == loc),
            None => points
                .iter()
                .find(|p| reports(p.event_idx) && p.time == first.time && p.kind() == first.kind)
                .map(|p| p.event_idx),
        };
        if let Some(idx) = idx {
            report.first_context = context_lines(trace, idx, FIRST_CONTEXT_LINES);
        }
    }
}

/// Judges every checked decision of `report` (audited under `release`'s
/// rules) again under today's: `None` when the release has today's rules.
/// An anchored replay read window by window (`anchored`) has its judges'
/// runs fed the same windows.
#[allow(clippy::too_many_arguments)]
fn judge_under_today(
    trace: &Trace,
    trace_name: &str,
    options: &AuditOptions,
    generated: &world::Generator,
    report: &DivergenceReport,
    release: Release,
    window: Option<&Window>,
    mut anchored: Option<&mut anchored::AnchoredSlot>,
) -> Result<Option<SinceChanged>, ReplayError> {
    let mut scratch = Params::default();
    let undone = profile::params_for_release(&mut scratch, release);
    if undone.is_empty() {
        return Ok(None);
    }
    let today_options = AuditOptions {
        policy: Some(CURRENT.into()),
        since_changed: false,
        ..options.clone()
    };
    let today = audit_window(
        trace,
        trace_name,
        &today_options,
        generated,
        window,
        anchored.as_deref_mut().map(|slot| slot.judge(0)),
    )?;
    let mut out = SinceChanged {
        release: release.to_string(),
        changes: undone
            .iter()
            .map(|c| {
                format!(
                    "{} (from {} on; {})",
                    c.key,
                    c.since.first_label(),
                    c.function
                )
            })
            .collect(),
        ..SinceChanged::default()
    };
    // Which change makes which point differ: the release's rules with that
    // one change applied.
    let mut release_params = options.params.clone();
    profile::params_for_release_keeping(&mut release_params, release, &options.user_set);
    // Switches changed by one commit are applied together.
    let mut commits: Vec<&str> = undone.iter().map(|c| c.change).collect();
    commits.sort_unstable();
    commits.dedup();
    for (k, commit) in commits.into_iter().enumerate() {
        let mut params = release_params.clone();
        for change in undone.iter().filter(|c| c.change == commit) {
            let today_value = Params::default().get(change.key).unwrap_or_default();
            // A key of the catalogue always exists (policy::profile tests).
            let _ = params.set(change.key, &today_value);
        }
        let one = AuditOptions {
            policy: Some(CURRENT.into()),
            params,
            since_changed: false,
            ..options.clone()
        };
        let changed = audit_window(
            trace,
            trace_name,
            &one,
            generated,
            window,
            anchored.as_deref_mut().map(|slot| slot.judge(k + 1)),
        )?;
        if changed.points.len() == report.points.len() {
            let n = report
                .points
                .iter()
                .zip(&changed.points)
                .filter(|(own, new)| own.agrees() && new.diverges())
                .count();
            out.by_change.insert(commit.to_string(), n);
        }
    }
    // (Every judge ran first: read window by window, each run must see
    // every window.)
    if today.points.len() != report.points.len() {
        return Ok(None);
    }
    for (own, now) in report.points.iter().zip(&today.points) {
        if !own.checked {
            continue;
        }
        if !now.checked {
            out.today_not_checked += 1;
            continue;
        }
        match (own.agrees(), now.agrees()) {
            (true, true) => out.both += 1,
            (true, false) => {
                out.release_only += 1;
                *out.release_only_by_kind.entry(own.kind).or_default() += 1;
                if out.first.is_none() {
                    out.first = today
                        .divergences
                        .iter()
                        .find(|d| {
                            d.kind == now.kind
                                && match (&d.location, &now.location) {
                                    (Some(a), Some(b)) => a == b,
                                    _ => d.time == now.time,
                                }
                        })
                        .cloned();
                }
            }
            (false, true) => out.today_only += 1,
            (false, false) => out.neither += 1,
        }
    }
    Ok(Some(out))
}

/// How far apart, in lines, the 6.10 reader's choice and the extraction's
/// choice point of one pass can be (a 6.x state block of a dozen projects
/// is under a hundred lines).
const SAME_PASS_LINES: usize = 128;

/// The time of line `idx`: its own, else the last printed before it (a
/// line without a time of its own is the pass's).
fn line_time(events: &[LogEvent], idx: usize) -> Option<f64> {
    events
        .get(..=idx.min(events.len().checked_sub(1)?))?
        .iter()
        .rev()
        .find_map(|e| e.time.secs())
}

/// Trace seconds as the emulator's log prints its time of day.
fn clock_label(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// Why received jobs' estimates are not checked.
fn unknown_estimates(unknown: &world::UnknownEstimates) -> Unchecked {
    let lost = match &unknown.lost {
        Some((Some(time), why)) => format!(
            "; the replica of the emulator's servers stopped following the log at {} \
             ({why}), so its draws after that are not the emulator's",
            clock_label(*time)
        ),
        Some((None, why)) => {
            format!("; the replica of the emulator's servers could not be built ({why})")
        }
        None => String::new(),
    };
    Unchecked {
        what: format!("the estimates of {} received job(s)", unknown.jobs),
        why: format!(
            "the emulator's log prints true FLOPs left, never the estimate a job arrived \
             with (a draw of its server){lost}; taken as the true size, which the decisions \
             made before the job starts (busy time, work requests) may rest on"
        ),
    }
}

/// Runs the client loop over the recording, from the emulator's start to
/// the last recorded point, with `comparer` comparing each decision as it is
/// made: the whole session fed at once.
#[allow(clippy::too_many_arguments)]
fn run_recorded(
    trace: &Trace,
    state: crate::policy::state::HostState,
    delta: f64,
    params: &Params,
    profile: Profile,
    generated: &world::Generator,
    prescan: &queue::Prescan,
    comparer: driver::Comparer,
) -> anchored::AnchoredRun {
    let mut run = anchored::AnchoredRun::start(
        trace,
        state,
        delta,
        params,
        profile,
        generated,
        prescan,
        &trace.availability,
        comparer,
    );
    run.feed_queue(queue::ExternalQueue::from_window(
        &trace.events,
        0,
        0..trace.events.len(),
        &prescan.refined,
    ));
    run
}

/// The log lines around the first divergence's (at `loc`), as a report's
/// `first_context` gives them, read from the log file (none when it cannot
/// be read).
pub fn first_context_at(loc: &crate::source::Location) -> Vec<String> {
    read_lines(&loc.path, loc.line, FIRST_CONTEXT_LINES).unwrap_or_default()
}

/// What the record tells of the jobs a log may start with: the state
/// files' jobs, the reply each job first came in, and when the job logs
/// say each finished.
fn start_facts(trace: &Trace, facts: &mut joblog::JobFacts) {
    facts.toggles = trace.meta.user_toggles.clone();
    for project in trace.state.client_states.iter().flat_map(|s| &s.projects) {
        let Some(name) = &project.project_name else {
            continue;
        };
        facts
            .state_projects
            .entry(name.clone())
            .or_insert((project.suspended_via_gui, project.dont_request_more_work));
        for result in &project.results {
            let Some(job) = &result.name else { continue };
            if facts.state_jobs.iter().any(|j| &j.name == job) {
                continue;
            }
            facts.state_jobs.push(joblog::StateJob {
                name: job.clone(),
                project: name.clone(),
                received: result.received_time,
                completed: result
                    .completed_time
                    .filter(|_| result.state.is_some_and(|s| s > 2)),
                suspended: result.suspended_via_gui,
            });
        }
    }
    for (k, (file, reply)) in trace
        .rpcs
        .iter()
        .filter_map(|f| Some((f, f.reply.as_ref()?)))
        .enumerate()
    {
        let Some(project) = &reply.project_name else {
            continue;
        };
        // Its request is the file beside it (sched_request_X.xml).
        let request_path = file.path.replace("sched_reply_", "sched_request_");
        let request = trace
            .rpcs
            .iter()
            .find(|r| r.path == request_path)
            .and_then(|r| r.request.as_ref());
        let requested = request.and_then(|r| r.time_stats.as_ref()?.now);
        let mut sent = joblog::ReplyJobs {
            project: project.clone(),
            requested,
            jobs: Vec::new(),
        };
        for job in reply.results.iter().filter_map(|r| r.name.as_ref()) {
            // A job the request lists as held came before it (a resend).
            let held = request
                .is_some_and(|r| r.other_results.iter().any(|o| o.name.as_ref() == Some(job)));
            if !held {
                sent.jobs.push(job.clone());
            }
            facts
                .first_reply
                .entry(job.clone())
                .or_insert_with(|| joblog::ReplyOf {
                    index: k,
                    project: project.clone(),
                    requested,
                    held,
                });
        }
        facts.replies.push(sent);
    }
    // A job log's file names its project's master URL, escaped.
    let project_of_log = |log: &crate::trace::state::JobLog| {
        let escaped = log.project.as_deref()?;
        trace
            .state
            .client_states
            .iter()
            .flat_map(|s| &s.projects)
            .find(|p| {
                p.master_url
                    .as_deref()
                    .is_some_and(|u| crate::trace::state::escaped_master_url(u) == escaped)
            })
            .and_then(|p| p.project_name.clone())
    };
    for log in &trace.state.job_logs {
        let project = project_of_log(log);
        for entry in &log.entries {
            let Some(name) = &entry.nm else { continue };
            facts.finished.insert(name.clone(), entry.time);
            if let Some(project) = &project {
                facts.job_log_project.insert(name.clone(), project.clone());
            }
        }
    }
}

/// What the trace's scheduler replies and client states tell of each job
/// (a real client's log names a job's app only when it starts, and never
/// prints its deadline or size).
fn job_facts(trace: &Trace) -> joblog::JobFacts {
    let mut facts = joblog::JobFacts::default();
    let mut add = |workunits: &[crate::trace::state::Workunit],
                   results: &[crate::trace::state::Job]| {
        for result in results {
            let Some(name) = result.name.clone() else {
                continue;
            };
            let workunit = workunits
                .iter()
                .find(|wu| wu.name.is_some() && wu.name == result.wu_name);
            if let Some(app) = result
                .app_name
                .clone()
                .or_else(|| workunit.and_then(|wu| wu.app_name.clone()))
            {
                facts.apps.insert(name.clone(), app);
            }
            if let Some(deadline) = result.report_deadline {
                facts.deadlines.insert(name.clone(), deadline);
            }
            if let Some(wu) = workunit {
                facts
                    .input_files
                    .insert(name.clone(), wu.input_files.clone());
            }
            facts
                .output_files
                .insert(name.clone(), result.output_files.clone());
            if let Some(size) = workunit.and_then(|wu| wu.rsc_fpops_est) {
                facts.sizes.insert(name, size);
            }
        }
    };
    for reply in trace.rpcs.iter().filter_map(|f| f.reply.as_ref()) {
        add(&reply.workunits, &reply.results);
    }
    for project in trace.state.client_states.iter().flat_map(|s| &s.projects) {
        add(&project.workunits, &project.results);
    }
    start_facts(trace, &mut facts);
    for project in trace.state.client_states.iter().flat_map(|s| &s.projects) {
        if let (Some(name), Some(share)) = (&project.project_name, project.resource_share) {
            facts.add_share(name, share);
        }
    }
    for reply in trace.rpcs.iter().filter_map(|f| f.reply.as_ref()) {
        let share = reply
            .project_preferences
            .as_ref()
            .and_then(|p| p.resource_share);
        if let (Some(name), Some(share)) = (&reply.project_name, share) {
            facts.add_share(name, share);
        }
    }
    let versions = trace
        .rpcs
        .iter()
        .filter_map(|f| f.reply.as_ref())
        .flat_map(|reply| &reply.app_versions)
        .chain(
            trace
                .state
                .client_states
                .iter()
                .flat_map(|s| &s.projects)
                .flat_map(|p| &p.app_versions),
        );
    for version in versions {
        if let Some(app) = &version.app_name {
            if let Some(flops) = version.flops {
                facts.add_app_flops(app, flops);
            }
            if let Some(ncpus) = version.avg_ncpus {
                facts.add_app_ncpus(app, ncpus);
            }
        }
    }
    for info in trace
        .state
        .client_states
        .iter()
        .filter_map(|s| s.host_info.as_ref())
    {
        if let (Some(fpops), Some(at)) = (info.p_fpops, info.p_calculated) {
            if fpops > 0.0 && at.is_finite() {
                facts.host_fpops.push((at, fpops));
            }
        }
    }
    facts.host_timezones = trace.state.host_timezones();
    facts.prefs = prefs_facts(trace);
    facts
}

/// The preferences a scheduling pass's enforcement rests on, as the data
/// directory's files give them: the override file's value, else the web
/// preferences', else (a data directory with neither file giving it) the
/// client's default; a log given alone tells neither.
fn prefs_facts(trace: &Trace) -> joblog::PrefsFacts {
    let files = [
        trace.state.global_prefs_override.as_ref(),
        trace.state.global_prefs.as_ref(),
    ];
    let given = |get: fn(&crate::trace::state::PrefsValues) -> Option<f64>| {
        files
            .iter()
            .flatten()
            .find_map(|f| get(&f.values).map(|v| (v, f.path.clone())))
    };
    let datadir = !trace.state.client_states.is_empty();
    let default = |v: f64| datadir.then(|| (v, "the client's default".to_string()));
    joblog::PrefsFacts {
        time_slice_minutes: given(|v| v.cpu_scheduling_period_minutes).or_else(|| default(60.0)),
        leave_in_memory: given(|v| v.leave_apps_in_memory.map(f64::from))
            .or_else(|| default(0.0))
            .map(|(v, from)| (v != 0.0, from)),
    }
}

fn context_lines(trace: &Trace, idx: usize, n: usize) -> Vec<String> {
    let lo = idx.saturating_sub(n);
    let hi = (idx + n + 1).min(trace.events.len());
    let Some(event) = trace.events.get(idx) else {
        return Vec::new();
    };
    if let Some(lines) = read_lines(&event.location.path, event.location.line, n) {
        return lines;
    }
    trace.events[lo..hi]
        .iter()
        .map(compare::render_event)
        .collect()
}

fn read_lines(path: &str, line: u32, n: usize) -> Option<Vec<String>> {
    use std::io::BufRead;
    let reader = crate::parse::input::open_input(std::path::Path::new(path)).ok()?;
    let line = line as usize;
    let lo = line.saturating_sub(n).max(1);
    let hi = line + n;
    let mut out = Vec::new();
    for (idx, text) in reader.lines().enumerate() {
        let number = idx + 1;
        if number > hi {
            break;
        }
        if number >= lo {
            out.push(text.ok()?.trim_end_matches('\r').to_string());
        }
    }
    Some(out)
}

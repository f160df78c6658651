//! A real client's jobs as its own log tells them: the host a scheduling
//! pass, a simulation or a piggybacked report rests on.
//!
//! A log that starts with the client (`Starting BOINC client`) on a host
//! without jobs tells every job's life: received (`result state=NEW`),
//! runnable once its files are in (`FILES_DOWNLOADED`), its task created,
//! run, preempted (left in memory or removed), exited (`task_state=…`,
//! `Starting task`, `Preempting`, `Resuming`, `Computation for task …
//! finished`), aborted, suspended; the jobs in the client's order (by
//! arrival, jobs of one reply by the MD5 of their names, `sort_results`).
//! A scheduling pass then prints what else its run list rests on: the
//! projects' priorities (`[prio]` lines of `project_priority_init`), each
//! job's CPU use (its `[rr_sim]` lines), the deadline misses of the pass's
//! simulation, the usable CPUs (`set_request() … ninst N`), and the
//! max_concurrent limits announced at start-up ([`hosts_at`]). The
//! run list itself is made by the client loop over that host
//! ([`super::runlist_replay`]).
//!
//! What the record lacks is said, never guessed: a log that does not start
//! with the client or mentions a job before it arrived, a GPU host, a pass
//! without `[prio]` lines or without a simulation of its own, a postponed
//! job, a task removed from memory without `task_state=` lines, a zero
//! resource share.
//!
//! Architecture Invariant: pure; reads the events and the recorded points.

use super::decision::{Decision, RunListEntry};
use super::prio_replay::HALF_MICRO;
use super::recorded::RecordedPoint;
use crate::resource::ResourceType;
use crate::trace::event::LogEvent;
use crate::trace::message::{Message, PreemptMode, ResultState, RpcReason, TaskState};
use crate::trace::UserToggles;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A run list recomputed from the log, with the rule's account of it.
pub type Recomputed = Result<(Vec<RunListEntry>, String), String>;

#[derive(Clone, Debug)]
struct TrackedJob {
    name: String,
    /// The scheduler reply it came with (its `received_time`), then the
    /// hex MD5 of its name: the client's order (`sort_results`).
    order: (u64, String),
    project: String,
    /// Its result's state as far as the log tells it: NEW (its files not
    /// yet started, so not yet nearly runnable), `FILES_DOWNLOADING` or
    /// `FILES_DOWNLOADED`.
    files: Files,
    /// The furthest state the client may have moved it to since, with no
    /// line to tell (task_debug off: `update_results` moves a job one
    /// state on per call, silently).
    files_hi: Files,
    done: bool,
    suspended: bool,
    /// Postponed by the client (`schedule_backoff`) since its last start.
    postponed: bool,
}

/// A job's result state up to its computation (client/result.h
/// `RESULT_NEW`, `RESULT_FILES_DOWNLOADING`, `RESULT_FILES_DOWNLOADED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Files {
    New,
    Downloading,
    Downloaded,
}

impl TrackedJob {
    /// A line told its state exactly.
    fn told(&mut self, files: Files) {
        self.files = files;
        self.files_hi = files;
    }

    /// A line told it is at least in `files`.
    fn at_least(&mut self, files: Files) {
        self.files = self.files.max(files);
        self.files_hi = self.files_hi.max(self.files);
    }
}

#[derive(Clone, Debug)]
struct TrackedTask {
    job: String,
    state: TaskState,
    scheduled: bool,
    /// The stamp of the line that last scheduled it after it was not
    /// (its run interval's start, to the stamp's second).
    since: Option<f64>,
}

impl TrackedTask {
    /// Started or resumed: a run interval starts unless one runs.
    fn schedule(&mut self, stamp: Option<f64>) {
        if !self.scheduled {
            self.since = stamp;
        }
        self.scheduled = true;
    }

    fn process_exists(&self) -> bool {
        matches!(
            self.state,
            TaskState::Executing
                | TaskState::Suspended
                | TaskState::AbortPending
                | TaskState::QuitPending
        )
    }
}

/// The host's jobs as told so far.
#[derive(Clone, Debug, Default)]
struct Tracker {
    started: bool,
    /// Why the jobs are not all known (a job mentioned before it arrived).
    unknown: Option<String>,
    /// Why the jobs are not all known from the lines task_debug does not
    /// gate (a reply's new jobs the record does not name): it holds while
    /// the log prints no `result state=` lines.
    untold: Option<String>,
    jobs: Vec<TrackedJob>,
    tasks: Vec<TrackedTask>,
    /// Replies seen (consecutive `result state=NEW` lines are one reply).
    replies: u64,
    last_was_new: bool,
    suspended_projects: HashSet<String>,
    /// Per project: jobs done and not yet reported (uploaded, errored or
    /// aborted; cleared by the project's next completed scheduler request).
    unreported: HashMap<String, Vec<String>>,
    /// Jobs the job logs say finished before the log's start on a state
    /// file that no state file holds (acknowledged since), with their
    /// project where its reply or its job log's URL names it: whether each
    /// was reported before the start is not told, until its project
    /// completes a request.
    gone_done: Vec<(String, Option<String>)>,
    /// Per project: the tasks it reported that were taken as acknowledged
    /// with no `got ack` line to say so (sched_op_debug off).
    assumed_acked: HashMap<String, Vec<String>>,
    /// Per project: the tasks its scheduler request in flight reports.
    in_flight: HashMap<String, Vec<String>>,
    /// Projects that completed a scheduler request in this log.
    contacted: HashSet<String>,
    app_limits: HashMap<String, u32>,
    project_limits: HashMap<String, u32>,
    /// Each job's app, deadline and size from the replies and states.
    facts: JobFacts,
    ncpus: Option<u32>,
    /// The usable CPUs a line of this client process told last.
    process_ncpus: Option<u32>,
    /// The version of the client process (its start line's): major and
    /// minor.
    client_version: Option<(u32, u32)>,
    /// The stamp of the log's first client start, while the jobs it
    /// started with are still to be taken from the state files.
    first_start: Option<f64>,
    /// Jobs the job logs say finished after the log's start that are in
    /// no state file or reply: on the host at the start unless the log
    /// tells their arrival later.
    undated: Vec<String>,
    /// The jobs taken from the state files and job logs at the log's
    /// start.
    seeded: HashSet<String>,
    /// What this process's peak-FLOPS total rests on.
    peak: PeakCount,
    /// The host's FLOPS per CPU were set anew (a benchmark) since this
    /// process fixed its peak-FLOPS total.
    benchmark_since_peak: bool,
    /// The host has GPUs (a work-fetch block has a GPU resource): they
    /// count in the peak-FLOPS total.
    gpu_host: bool,
    /// `task_state=` lines (task_debug) are in the log.
    saw_task_states: bool,
    /// `result state=` lines (task_debug) are in the log.
    saw_result_states: bool,
    /// Per project: the stamp of its scheduler request's `Sending
    /// scheduler request` line, while the request is in flight.
    rpc_sent: HashMap<String, Option<f64>>,
    /// Per job whose state the log does not print (task_debug off): its
    /// input files told downloading and not yet told in (`Started download
    /// of` proves a file absent).
    downloading_files: HashMap<String, Vec<String>>,
    /// Per project: jobs done whose state the log does not print (task_debug
    /// off) that may be ready to report, each with the stamp from which the
    /// client owes it that state (its output files told uploaded, or none;
    /// `None`: not told), until [`UNTOLD_STEP_SECS`] later makes it sure.
    maybe_ready: HashMap<String, Vec<(String, Option<f64>)>>,
    /// Per job done so, its output files not yet told uploaded.
    uploading: HashMap<String, Vec<String>>,
    /// Per project: the stamp from which the client owes it the clearing
    /// of its backoffs (a job's files all uploaded, task_debug off:
    /// `update_results` clears them as it makes the job ready to report).
    backoff_clears: Vec<(String, f64)>,
    /// The projects in the order this client process allocated them: the
    /// start-up's `URL …` lines (client_state.xml and account files), then
    /// each project the log first names later (attached while running).
    projects: Vec<String>,
    /// The CPUs the start-up block counted (`Config: simulate N CPUs`,
    /// else `Processor: N …`), before preferences; a cc_config.xml reread
    /// counts them again.
    startup_ncpus: Option<u32>,
    /// The host's CPUs (`Processor: N …`) of this client process.
    processor_ncpus: Option<u32>,
    /// The host's offset from UTC in seconds (`Local time is UTC +N
    /// hours`, made exact by the state files' `<timezone>`).
    utc_offset_secs: Option<i64>,
    /// Per project: its REC as its last `recent est credit` line printed it.
    recs: HashMap<String, f64>,
    /// This client created its state file (`Creating new client state
    /// file`): every project's REC started at exactly 0.
    fresh_state: bool,
    /// Projects whose tasks a restart dropped as exited (the tasks no
    /// longer tracked, but their REC no longer 0); cleared with a new
    /// state file.
    ran_before_restart: HashSet<String>,
    /// The log's first start read a state file the log does not see made,
    /// and its release restores neither RPC deferrals nor work-fetch
    /// backoffs ([`super::restart`]): with the state files' settings, each
    /// project's reasons not to fetch are told from there.
    start_told: bool,
    /// The last start's release restores RPC deferrals or backoffs.
    start_restores_timers: bool,
    /// Projects a task of which was scheduled since: their REC may have
    /// moved off 0.
    touched: HashSet<String>,
    /// Per project: the resource share its start-up line printed (whole
    /// units).
    printed_shares: HashMap<String, f64>,
    /// Projects the user set to no new tasks.
    no_new_tasks: HashSet<String>,
    /// Per project: its scheduler-RPC deferral as the lines since the
    /// state file was created tell it.
    rpc_deferral: HashMap<String, RpcDeferral>,
    /// An account manager's reply was handled since the state file was
    /// created: it may set each project's no-new-tasks and clear its RPC
    /// deferral, and the log does not say which.
    acct_mgr_reply: bool,
    /// Per project: its CPU work-fetch backoff as the lines since the state
    /// file was created tell it (absent: none, interval 0).
    cpu_backoff: HashMap<String, RscBackoff>,
    /// The debug flags each `log flags:` print named since the state file
    /// was created.
    flag_sets: LogFlagSets,
}

/// The `log flags:` prints of a log. At each client start and each
/// cc_config.xml reread (client_state.cpp init, gui_rpc_server_ops.cpp
/// handle_read_cc_config) the client prints the flags on as consecutive
/// lines (log_flags.cpp `LOG_FLAGS::show`; none where no flag is on). A
/// flag is on now where the last such print names it, and known on since a
/// point where every print since names it.
#[derive(Clone, Debug, Default)]
struct LogFlagSets {
    /// The flags of the last print (none after a start or reread that has
    /// not printed).
    current: HashSet<String>,
    /// `task_debug` is in `current`: asked at every line, so kept as it
    /// changes rather than looked up each time.
    task_debug_now: bool,
    /// The last line was a `log flags:` line: a next one continues its
    /// print.
    in_print: bool,
    /// A start or reread whose print has not come yet: the next print is
    /// its.
    awaiting: bool,
    /// Prints counted (a start or reread with none counts as one naming
    /// no flag).
    prints: u32,
    /// Per flag: the prints counted that name it.
    naming: HashMap<String, u32>,
}

impl LogFlagSets {
    fn see(&mut self, message: &Message) {
        match message {
            Message::LogFlags { flags } => {
                if !self.in_print {
                    // A print no start or reread of this log announced
                    // (a log that begins later) counts on its own.
                    if !self.awaiting {
                        self.prints += 1;
                    }
                    self.awaiting = false;
                    self.in_print = true;
                    self.current.clear();
                }
                for flag in flags {
                    if self.current.insert(flag.to_string()) {
                        *self.naming.entry(flag.to_string()).or_default() += 1;
                    }
                }
                self.task_debug_now = self.current.contains("task_debug");
            }
            Message::ClientStart { .. } | Message::RereadingConfig { .. } => {
                self.prints += 1;
                self.current.clear();
                self.task_debug_now = false;
                self.awaiting = true;
                self.in_print = false;
            }
            _ => self.in_print = false,
        }
    }

    /// Counts from the current print on (a new state file).
    fn restart(&mut self) {
        self.prints = 1;
        self.naming = self.current.iter().map(|f| (f.clone(), 1)).collect();
    }

    /// The flag was on in every print counted.
    fn continuous(&self, flag: &str) -> bool {
        self.prints > 0 && self.naming.get(flag) == Some(&self.prints)
    }

    /// A print left the flag off: its lines are not all in the log. A log
    /// that prints no flags (no start, another format) is taken on its
    /// lines.
    fn off_in_a_print(&self, flag: &str) -> bool {
        self.prints > 0 && !self.continuous(flag)
    }

    /// The flag is on now: the last print names it.
    fn on_now(&self, flag: &str) -> bool {
        match flag {
            "task_debug" => self.task_debug_now,
            _ => self.current.contains(flag),
        }
    }
}

/// Stamps after which a state change the client owes a job is done,
/// though no line tells it (task_debug off): `update_results` runs at most
/// once a second (client_state.h `UPDATE_RESULTS_PERIOD`), in a poll that
/// comes at least once a second (`POLL_INTERVAL`), and a stamp is a whole
/// second.
const UNTOLD_STEP_SECS: f64 = 3.0;

/// The shortest and longest resource backoff interval, seconds
/// (client_state.h `WF_MIN_BACKOFF_INTERVAL`, `WF_MAX_BACKOFF_INTERVAL`).
const BACKOFF_INTERVAL: (f64, f64) = (600.0, 86_400.0);

/// A project's backoff for one resource (work_fetch.cpp
/// `RSC_PROJECT_WORK_FETCH::resource_backoff`, `clear_backoff`) as a real
/// client's lines tell it.
#[derive(Clone, Debug, PartialEq)]
pub struct RscBackoff {
    /// Its end (`backoff_time`), in the form of an RPC deferral's: a
    /// `backing off CPU %.0f sec` line ends it within half a second of its
    /// stamp plus the seconds.
    pub until: RpcDeferral,
    /// Its interval (`backoff_interval`): 600 s at the first backoff since
    /// a clear, doubled at each next one up to a day; `None` where not
    /// told.
    pub interval: Option<f64>,
}

impl Default for RscBackoff {
    fn default() -> Self {
        RscBackoff {
            until: RpcDeferral::Cleared,
            interval: Some(0.0),
        }
    }
}

/// What a client process's peak-FLOPS total rests on
/// (cpu_sched.cpp `total_peak_flops`: computed once per process, at its
/// first work fetch or first job it schedules, from the usable CPUs and the
/// host's FLOPS per CPU then). It scales the fetch priority's queue term
/// and the scheduling priority's step.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum PeakCount {
    /// Not yet computed in this process: the next work fetch or
    /// scheduling pass computes it on the counts in force then.
    #[default]
    Unfixed,
    /// Computed at the log's second `at` on the usable CPUs in force then,
    /// which no line of the process has told yet (and which have not
    /// changed since).
    Pending {
        /// The log's second of the first line that proves it computed.
        at: f64,
    },
    /// Computed at the log's second `at` on `ncpus` usable CPUs.
    Fixed {
        /// The usable CPUs it rests on.
        ncpus: u32,
        /// The log's second of the first line that proves it computed.
        at: f64,
    },
    /// Not told (why).
    Unknown(String),
}

/// How long before its line's stamp the client's `now` may have been set,
/// seconds. A line's stamp is the clock when it is printed
/// (client_msgs.cpp show_message), `now` is set at the start of the
/// poll that prints it (client_state.cpp set_now); the poll's own work
/// lies between. Where `choose_project(): %f` prints `now` exactly (7.16
/// on), the lab's 7.20.5 runs put it 0.005-0.995 s before the stamp's
/// second ends, never before it starts: half a second covers a poll far
/// slower than theirs.
pub const POLL_LAG: f64 = 0.5;

/// The client's `now` at a line stamped `stamp` (both on the log's
/// clock): within the stamp's second or up to [`POLL_LAG`] before it.
pub fn now_at_stamp(stamp: f64) -> (f64, f64) {
    (stamp - POLL_LAG, stamp + 1.0)
}

/// A project's scheduler-RPC deferral (`min_rpc_time`) as a real client's
/// lines tell it.
#[derive(Clone, Debug, PartialEq)]
pub enum RpcDeferral {
    /// None since it was cleared (a new state file, a completed scheduler
    /// request, an update the user asked for, a project reset, the clock
    /// set back).
    Cleared,
    /// Until a time in `[at - POLL_LAG, at + 2)` on the log's clock: the
    /// deferring line's stamp plus its whole seconds (the client's `now`
    /// lies within the stamp's second or up to [`POLL_LAG`] before it, and
    /// the delay prints truncated).
    Until(f64),
    /// Not told (why).
    Unknown(String),
}

impl Tracker {
    /// A reading that has seen no line yet, with the trace's job facts.
    fn with_facts(facts: &JobFacts) -> Self {
        Tracker {
            facts: facts.clone(),
            ..Tracker::default()
        }
    }

    fn job_mut(&mut self, name: &str) -> Option<&mut TrackedJob> {
        let found = self.jobs.iter().position(|j| j.name == name);
        if found.is_none() && self.unknown.is_none() {
            self.unknown = Some(format!(
                "job {name} was on the host before the log tells of its arrival"
            ));
        }
        found.and_then(|k| self.jobs.get_mut(k))
    }

    fn task_mut(&mut self, job: &str) -> &mut TrackedTask {
        if let Some(k) = self.tasks.iter().position(|t| t.job == job) {
            return &mut self.tasks[k];
        }
        self.tasks.push(TrackedTask {
            job: job.to_string(),
            state: TaskState::Uninitialized,
            scheduled: false,
            since: None,
        });
        let last = self.tasks.len() - 1;
        &mut self.tasks[last]
    }

    fn see(&mut self, event: &LogEvent) {
        let project = event.project.as_deref().unwrap_or_default();
        let is_new = matches!(
            event.message,
            Message::ResultStateChange {
                state: ResultState::New,
                ..
            }
        );
        if is_new && !self.last_was_new {
            self.replies += 1;
        }
        self.last_was_new = is_new;
        if !project.is_empty() && !self.projects.iter().any(|p| p == project) {
            self.projects.push(project.to_string());
        }
        self.flag_sets.see(&event.message);
        if let Some(stamp) = event
            .time
            .secs()
            .filter(|_| !self.maybe_ready.is_empty() || !self.backoff_clears.is_empty())
        {
            self.settle_untold(stamp);
        }
        self.see_cpu_backoff(project, &event.message, event.time.secs());
        match &event.message {
            Message::ClientStart { version, .. } => {
                // Only the log's first start, on the host as the log
                // first sees it, takes its jobs from the state files.
                self.first_start =
                    (!self.started && self.jobs.is_empty() && self.unknown.is_none())
                        .then(|| event.time.secs())
                        .flatten();
                self.see_client_start();
                self.client_version = Some((version.major, version.minor));
                self.start_restores_timers = super::restart::restores_rpc_deferral(*version)
                    || super::restart::restores_resource_backoffs(*version);
                // Many releases restore no RPC deferral at a start.
                if !super::restart::restores_rpc_deferral(*version) {
                    self.rpc_deferral.clear();
                }
            }
            // The start-up has read its state file (or made one) and told
            // the UTC offset by its preferences block (client_state.cpp
            // init: parse_state_file, show_host_info, read_global_prefs);
            // `Initialization completed` where no block prints.
            Message::PreferencesHeader | Message::InitializationCompleted
                if self.first_start.is_some() =>
            {
                if let Some(start) = self.first_start.take() {
                    if !self.fresh_state {
                        self.seed_start_jobs(start);
                        self.start_told = !self.start_restores_timers;
                    }
                }
                self.see_host(project, &event.message);
            }
            Message::ResultStateChange { state, job, .. } => {
                self.saw_result_states = true;
                self.see_result_state(project, state, job)
            }
            Message::CreatingStateFile => {
                // A start on no state file after a restart: nothing
                // carries over.
                if !self.jobs.is_empty() || self.unknown.is_some() {
                    self.restart_without_state()
                }
                // Every project starts on its defaults: work allowed, not
                // suspended, no deferral, REC 0.
                self.recs.clear();
                self.touched.clear();
                self.no_new_tasks.clear();
                self.rpc_deferral.clear();
                self.suspended_projects.clear();
                self.cpu_backoff.clear();
                self.flag_sets.restart();
                self.acct_mgr_reply = false;
                self.ran_before_restart.clear();
                self.fresh_state = true;
            }
            other => {
                let stamp = event.time.secs();
                if self.states_untold() {
                    self.see_untold_states(project, other, stamp);
                }
                self.see_fetch_flags(project, other, stamp);
                self.see_peak(other, stamp);
                if !self.see_rpc(project, other) && !self.see_task(project, other, stamp) {
                    self.see_host(project, other)
                }
            }
        }
    }

    /// The jobs on the host when the log's first client start read a state
    /// file the log does not see made: those the state files still hold
    /// that came before the start, and those the job logs say finished
    /// after it whose reply came before it (gone since). They take the
    /// client's order (client_state.cpp `sort_results`: received time,
    /// then name digest). A gone job is dated by its reply: the received
    /// time of a state file's job that came in it, else its request's
    /// `now` (before the reply, after the previous one). A gone job no
    /// reply dates leaves the jobs unknown until the log prints its
    /// arrival.
    fn seed_start_jobs(&mut self, start_stamp: f64) {
        self.seed_start_settings();
        let Some(offset) = self.utc_offset_secs else {
            self.unknown = Some(
                "the log starts on a state file, and without its `Local time is UTC` line \
                 the jobs that came before its start are not known"
                    .into(),
            );
            return;
        };
        // The start's second on the Unix clock: a job received within it
        // may have come after.
        let start = start_stamp - offset as f64;
        let facts = &self.facts;
        // (name, project, received, done, ready to report, suspended)
        let mut seeds: Vec<(String, String, f64, bool, bool, bool)> = Vec::new();
        for job in &facts.state_jobs {
            let received = match job.received {
                Some(t) if t < start => t,
                Some(t) if t >= start + 1.0 => continue,
                _ => {
                    self.unknown = Some(format!(
                        "job {} is in the state file, and whether it came before the log's \
                         start is not told (received time {:?})",
                        job.name, job.received
                    ));
                    return;
                }
            };
            // Its computation ended before the start (its job log), or it
            // was ready to report then (`completed_time`).
            let reportable = job.completed.is_some_and(|c| c < start);
            let done = reportable || facts.finished.get(&job.name).is_some_and(|&f| f < start);
            seeds.push((
                job.name.clone(),
                job.project.clone(),
                received,
                done,
                reportable,
                UserToggles::at_start(facts.toggles.tasks.get(&job.name), job.suspended),
            ));
        }
        for (name, &at) in &facts.finished {
            if facts.state_jobs.iter().any(|j| &j.name == name) {
                continue;
            }
            if at < start {
                let project = facts
                    .first_reply
                    .get(name)
                    .map(|r| r.project.clone())
                    .or_else(|| facts.job_log_project.get(name).cloned());
                self.gone_done.push((name.clone(), project));
                continue;
            }
            let Some(reply) = facts.first_reply.get(name).filter(|r| !r.held) else {
                self.undated.push(name.clone());
                continue;
            };
            let arrived_with = |j: &&StateJob| {
                facts
                    .first_reply
                    .get(&j.name)
                    .is_some_and(|r| r.index == reply.index && !r.held)
            };
            let dated = facts
                .state_jobs
                .iter()
                .find(arrived_with)
                .and_then(|j| j.received)
                .or(reply.requested);
            match dated {
                Some(t) if t < start => {
                    let suspended = UserToggles::at_start(facts.toggles.tasks.get(name), false);
                    seeds.push((
                        name.clone(),
                        reply.project.clone(),
                        t,
                        false,
                        false,
                        suspended,
                    ))
                }
                // Came after the start: the log tells its arrival.
                Some(_) => {}
                None => self.undated.push(name.clone()),
            }
        }
        let mut jobs: Vec<TrackedJob> = seeds
            .iter()
            .map(|(name, project, received, done, _, suspended)| TrackedJob {
                name: name.clone(),
                order: (0, format!("{received:020.6}{}", name_md5(name))),
                project: project.clone(),
                files: Files::Downloaded,
                files_hi: Files::Downloaded,
                done: *done,
                suspended: *suspended,
                postponed: false,
            })
            .collect();
        jobs.sort_by(|a, b| a.order.cmp(&b.order));
        for (name, project, ..) in seeds.iter().filter(|s| s.4) {
            self.unreported
                .entry(project.clone())
                .or_default()
                .push(name.clone());
        }
        self.seeded = jobs.iter().map(|j| j.name.clone()).collect();
        self.jobs = jobs;
    }

    /// The projects suspended and set to no new tasks at a log's start on
    /// a state file it does not see made: the state files' flags, turned
    /// back where the log's first line about one turns it (the log prints
    /// neither setting at a start).
    fn seed_start_settings(&mut self) {
        let facts = &self.facts;
        let names: BTreeSet<&String> = facts
            .state_projects
            .keys()
            .chain(facts.toggles.projects.keys())
            .chain(facts.toggles.work_fetch.keys())
            .collect();
        for name in names {
            let (suspended, nnw) = facts.state_projects.get(name).copied().unwrap_or_default();
            if UserToggles::at_start(facts.toggles.projects.get(name), suspended) {
                self.suspended_projects.insert(name.clone());
            }
            if UserToggles::at_start(facts.toggles.work_fetch.get(name), nnw) {
                self.no_new_tasks.insert(name.clone());
            }
        }
    }

    /// The jobs done before the log's start and gone since that may be
    /// the project's to report (those no reply places at another project).
    fn gone_done_of(&self, project: &str) -> Vec<&str> {
        self.gone_done
            .iter()
            .filter(|(_, p)| p.as_deref().is_none_or(|p| p == project))
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// A client start: a new process, or a restart that restores each
    /// unfinished task.
    fn see_client_start(&mut self) {
        // A new process allocates its projects anew, counts its CPUs
        // afresh and computes its peak-FLOPS total anew.
        self.projects.clear();
        self.startup_ncpus = None;
        self.processor_ncpus = None;
        self.process_ncpus = None;
        self.peak = PeakCount::Unfixed;
        self.benchmark_since_peak = false;
        if !self.started {
            // The first start the log tells: its state file's RECs are
            // not printed.
            self.recs.clear();
            self.fresh_state = false;
        }
        if self.jobs.is_empty() && self.unknown.is_none() {
            self.started = true;
        } else {
            // A restart: the client restores each unfinished task
            // without a process, as preempted (ACTIVE_TASK_SET::init).
            for task in self.tasks.iter().filter(|t| t.state == TaskState::Exited) {
                if let Some(job) = self.jobs.iter().find(|j| j.name == task.job) {
                    self.ran_before_restart.insert(job.project.clone());
                }
            }
            self.tasks.retain(|t| t.state != TaskState::Exited);
            for task in &mut self.tasks {
                task.state = TaskState::Uninitialized;
                task.scheduled = false;
            }
        }
    }

    /// A result's state change: an arrival (in the client's result order),
    /// its download, or its end (ready to report once uploaded or failed).
    fn see_result_state(&mut self, project: &str, state: &ResultState, job: &str) {
        match state {
            ResultState::New => {
                self.undated.retain(|j| j != job);
                if self.seeded.contains(job) && self.unknown.is_none() {
                    self.unknown = Some(format!(
                        "job {job} was taken as on the host at the log's start (the state \
                         files and its reply's time), and the log prints its arrival later"
                    ));
                }
                if !self.jobs.iter().any(|j| j.name == job) {
                    let order = (self.replies, name_md5(job));
                    let at = self.jobs.partition_point(|j| j.order < order);
                    self.jobs.insert(
                        at,
                        TrackedJob {
                            name: job.to_string(),
                            order,
                            project: project.to_string(),
                            files: Files::New,
                            files_hi: Files::New,
                            done: false,
                            suspended: false,
                            postponed: false,
                        },
                    );
                }
            }
            ResultState::FilesDownloading => {
                if let Some(j) = self.job_mut(job) {
                    j.told(Files::Downloading);
                }
            }
            ResultState::FilesDownloaded => {
                if let Some(j) = self.job_mut(job) {
                    j.told(Files::Downloaded);
                }
            }
            _ => {
                if let Some(j) = self.job_mut(job) {
                    j.done = true;
                }
                if matches!(
                    state,
                    ResultState::FilesUploaded
                        | ResultState::ComputeError
                        | ResultState::Aborted
                        | ResultState::UploadFailed
                ) {
                    let list = self.unreported.entry(project.to_string()).or_default();
                    if !list.iter().any(|j| j == job) {
                        list.push(job.to_string());
                    }
                }
            }
        }
    }

    /// A job done with its state not printed: it may be ready to report
    /// from now (`owed`: its state change is owed from this stamp on).
    fn maybe_ready_from(&mut self, project: &str, job: &str, owed: Option<f64>) {
        let list = self.maybe_ready.entry(project.to_string()).or_default();
        match list.iter_mut().find(|(j, _)| j == job) {
            Some(entry) => entry.1 = owed,
            None => list.push((job.to_string(), owed)),
        }
    }

    /// A job that ended without error has its files uploaded at `stamp`:
    /// the client's next `update_results` makes it ready to report and
    /// clears its project's backoffs.
    fn uploaded(&mut self, project: &str, job: &str, stamp: Option<f64>) {
        self.maybe_ready_from(project, job, stamp);
        match stamp {
            Some(at) => {
                self.backoff_untold(
                    project,
                    format!(
                        "{job}'s files were in by {at:.0}, and the client clears its \
                         project's backoff within {UNTOLD_STEP_SECS:.0} s after, silently \
                         with task_debug off"
                    ),
                );
                self.backoff_clears.push((project.to_string(), at));
            }
            None => self.backoff_untold(project, format!("{job}'s upload has no time")),
        }
    }

    /// A CPU backoff the lines leave open from here.
    fn backoff_untold(&mut self, project: &str, why: String) {
        if let Some(entry) = self
            .cpu_backoff
            .get_mut(project)
            .filter(|b| matches!(b.until, RpcDeferral::Until(_)))
        {
            entry.until = RpcDeferral::Unknown(why);
            entry.interval = None;
        }
    }

    /// The silent state changes the client owes by `stamp`: a job owed
    /// its ready-to-report state [`UNTOLD_STEP_SECS`] of stamps ago has it.
    fn settle_untold(&mut self, stamp: f64) {
        let due = |owed: f64| stamp >= owed + UNTOLD_STEP_SECS;
        for (project, _) in self.backoff_clears.iter().filter(|(_, at)| due(*at)) {
            self.cpu_backoff.remove(project);
        }
        self.backoff_clears.retain(|(_, at)| !due(*at));
        for (project, list) in &mut self.maybe_ready {
            let now_ready: Vec<String> = list
                .iter()
                .filter(|(_, owed)| owed.is_some_and(due))
                .map(|(job, _)| job.clone())
                .collect();
            if now_ready.is_empty() {
                continue;
            }
            list.retain(|(job, _)| !now_ready.contains(job));
            let ready = self.unreported.entry(project.clone()).or_default();
            for job in now_ready {
                if !ready.contains(&job) {
                    ready.push(job);
                }
            }
        }
    }

    /// The log prints no `result state=` lines now: task_debug is off in
    /// its last `log flags:` print, or the log prints none and has shown
    /// no such line.
    fn states_untold(&self) -> bool {
        !(self.flag_sets.on_now("task_debug")
            || (self.flag_sets.prints == 0 && self.saw_result_states))
    }

    /// The jobs' arrivals and files as the lines task_debug does not gate
    /// tell them. A reply's new jobs arrive at its `Scheduler request
    /// completed: got N new tasks` line (cs_scheduler.cpp
    /// handle_scheduler_reply), taken from the record. Their states then
    /// move on silently (client_state.cpp `update_results`: NEW to
    /// `FILES_DOWNLOADING` at its next call, then to `FILES_DOWNLOADED` at
    /// a call after their files are in), so the log bounds them only: not
    /// in while a download of one of its input files runs (pers_file_xfer.cpp
    /// `Started download of` to `Finished download of` or `File … exists
    /// already`), and in exactly at the task's start.
    fn see_untold_states(&mut self, project: &str, message: &Message, stamp: Option<f64>) {
        match message {
            Message::SendingSchedulerRequest { .. } => {
                self.rpc_sent.insert(project.to_string(), stamp);
            }
            Message::SchedulerRequestCompleted { new_tasks } => {
                let sent = self.rpc_sent.remove(project).flatten();
                if let Some(n) = new_tasks.filter(|&n| n > 0) {
                    self.arrive_untold(project, n, sent, stamp);
                }
            }
            Message::SchedulerRequestFailed { .. } => {
                self.rpc_sent.remove(project);
            }
            // A job that ended without error has a job-log line
            // (cs_apps.cpp app_finished) and uploads its output files, then
            // `update_results` makes it ready to report; one with an error
            // is ready to report with no upload, and clears nothing.
            Message::ComputationFinished { job } => {
                let ok = if self.facts.finished.contains_key(job.as_str()) {
                    Some(true)
                } else {
                    (!self.facts.state_jobs.is_empty() || !self.facts.finished.is_empty())
                        .then_some(false)
                };
                let outputs = self.facts.output_files.get(job.as_str()).cloned();
                match (ok, outputs) {
                    (Some(true), Some(outputs)) if !outputs.is_empty() => {
                        self.maybe_ready_from(project, job, None);
                        self.uploading.insert(job.to_string(), outputs);
                    }
                    (Some(true), Some(_)) => self.uploaded(project, job, stamp),
                    _ => {
                        self.maybe_ready_from(project, job, None);
                        if ok.is_none() {
                            self.backoff_untold(
                                project,
                                format!(
                                    "{job} finished, and whether it ended without error (its \
                                     upload's end then clears the backoff) is printed only \
                                     with task_debug or in its job log, not in the record"
                                ),
                            );
                        }
                    }
                }
            }
            Message::TaskAbortedByUser { job }
            | Message::AbortingTask { job, .. }
            | Message::AbortingTaskDeadlinePassed { job } => {
                self.uploading.remove(job.as_str());
                self.maybe_ready_from(project, job, stamp);
            }
            Message::TransferFinished { file, upload: true } => {
                for job in files_done(&mut self.uploading, file) {
                    self.uploaded(project, &job, stamp);
                }
            }
            // A download started: the file was absent, so its jobs' files
            // are not in until it is.
            Message::TransferStarted {
                file,
                upload: false,
            } => {
                for job in self.jobs.iter_mut().filter(|j| j.files < Files::Downloaded) {
                    let inputs = self.facts.input_files.get(&job.name);
                    if inputs.is_some_and(|f| f.iter().any(|f| f == file.as_str())) {
                        let pending = self.downloading_files.entry(job.name.clone()).or_default();
                        if !pending.iter().any(|f| f == file.as_str()) {
                            pending.push(file.to_string());
                        }
                        job.files_hi = Files::Downloading;
                    }
                }
            }
            Message::TransferFinished {
                file,
                upload: false,
            }
            | Message::FileAlreadyPresent { file } => {
                for name in files_done(&mut self.downloading_files, file) {
                    if let Some(job) = self.jobs.iter_mut().find(|j| j.name == name) {
                        job.files_hi = Files::Downloaded;
                    }
                }
            }
            _ => {}
        }
    }

    /// A reply's `n` new jobs, arrived with no `result state=NEW` line.
    fn arrive_untold(&mut self, project: &str, n: u32, sent: Option<f64>, done: Option<f64>) {
        let names = match self.untold_arrivals(project, n, sent, done) {
            Ok(names) => names,
            Err(why) => {
                self.untold.get_or_insert(why);
                return;
            }
        };
        self.replies += 1;
        for name in names {
            self.undated.retain(|j| *j != name);
            if self.seeded.contains(&name) && self.unknown.is_none() {
                self.unknown = Some(format!(
                    "job {name} was taken as on the host at the log's start (the state files \
                     and its reply's time), and the log tells its arrival later"
                ));
            }
            if self.jobs.iter().any(|j| j.name == name) {
                continue;
            }
            // Its files may all be in already (kept from another job, or
            // none), until a download of one of them starts.
            let files_hi = Files::Downloaded;
            let order = (self.replies, name_md5(&name));
            let at = self.jobs.partition_point(|j| j.order < order);
            self.jobs.insert(
                at,
                TrackedJob {
                    name,
                    order,
                    project: project.to_string(),
                    files: Files::New,
                    files_hi,
                    done: false,
                    suspended: false,
                    postponed: false,
                },
            );
        }
    }

    /// Which jobs a reply of `project` that brought `n` new ones sent: its
    /// request's reply in the record (the request's `now` between the
    /// `Sending scheduler request` line and the completion, each known to
    /// its stamp's second and the poll that set `now`), else the state
    /// files' jobs of the project received at the completion.
    fn untold_arrivals(
        &self,
        project: &str,
        n: u32,
        sent: Option<f64>,
        done: Option<f64>,
    ) -> Result<Vec<String>, String> {
        let (Some(offset), Some(sent), Some(done)) = (self.utc_offset_secs, sent, done) else {
            return Err(format!(
                "{project}'s reply brought {n} new task(s), which task_debug (off) would name: \
                 the request's `Sending scheduler request` line or the host's offset from UTC \
                 is not in the log to find the reply in the record"
            ));
        };
        let offset = offset as f64;
        let (lo, hi) = (sent - offset - 2.0, done - offset + 1.0);
        let within = |t: Option<f64>| t.is_some_and(|t| t >= lo && t < hi);
        let replies: Vec<&ReplyJobs> = self
            .facts
            .replies
            .iter()
            .filter(|r| r.project == project && within(r.requested))
            .collect();
        match replies.as_slice() {
            [reply] if reply.jobs.len() == n as usize => return Ok(reply.jobs.clone()),
            [reply] => {
                return Err(format!(
                    "{project}'s reply brought {n} new task(s) by the log, and {} by the \
                     record's reply to that request",
                    reply.jobs.len()
                ))
            }
            [] => {}
            _ => {
                return Err(format!(
                    "several replies of the record answer {project}'s request of {sent:.0}"
                ))
            }
        }
        let received: Vec<String> = self
            .facts
            .state_jobs
            .iter()
            .filter(|j| j.project == project && within(j.received))
            .map(|j| j.name.clone())
            .collect();
        if received.len() == n as usize {
            return Ok(received);
        }
        Err(format!(
            "{project}'s reply brought {n} new task(s), which task_debug (off) would name: the \
             record holds neither that reply (rpcs/, sched_reply_*.xml) nor all of its jobs in \
             a state file ({} received then)",
            received.len()
        ))
    }

    /// A start on no state file after a restart: only the start-up block's
    /// facts (this process's) carry over.
    fn restart_without_state(&mut self) {
        *self = Tracker {
            facts: std::mem::take(&mut self.facts),
            flag_sets: std::mem::take(&mut self.flag_sets),
            projects: std::mem::take(&mut self.projects),
            startup_ncpus: self.startup_ncpus,
            process_ncpus: self.process_ncpus,
            client_version: self.client_version,
            peak: std::mem::take(&mut self.peak),
            benchmark_since_peak: self.benchmark_since_peak,
            utc_offset_secs: self.utc_offset_secs,
            started: true,
            ..Tracker::default()
        };
    }

    /// The lines that set a project's reasons not to fetch work
    /// (client/work_fetch.cpp compute_project_reason): no new tasks (set
    /// and cleared by the user directly or with detach-when-done,
    /// gui_rpc_server_ops.cpp), and the scheduler-RPC deferral
    /// (client/project.cpp set_min_rpc_time, which prints each deferral it
    /// sets under sched_op_debug; cleared by a completed request,
    /// cs_scheduler.cpp handle_scheduler_reply, an update the user asks
    /// for, a project reset, and the clock set back, client_state.cpp
    /// clear_absolute_times). An account manager's reply may set or clear
    /// both silently (acct_mgr.cpp), as may a `network_available` GUI RPC
    /// (net_stats.cpp, which prints nothing: a limit of the record).
    fn see_fetch_flags(&mut self, project: &str, message: &Message, stamp: Option<f64>) {
        let deferral = match message {
            Message::WorkFetchSuspendedByUser | Message::DetachWhenDoneSetByUser => {
                self.no_new_tasks.insert(project.to_string());
                return;
            }
            Message::WorkFetchResumedByUser | Message::DetachWhenDoneClearedByUser => {
                self.no_new_tasks.remove(project);
                return;
            }
            Message::ClearingTimeouts { .. } => {
                self.rpc_deferral.clear();
                return;
            }
            Message::AccountManagerContactSucceeded => {
                self.acct_mgr_reply = true;
                return;
            }
            Message::ResettingProject => {
                // Its results are marked acknowledged and collected at once
                // (client_state.cpp reset_project).
                self.unreported.remove(project);
                self.assumed_acked.remove(project);
                self.in_flight.remove(project);
                for job in self.jobs.iter_mut().filter(|j| j.project == project) {
                    job.done = true;
                    job.suspended = false;
                }
                RpcDeferral::Cleared
            }
            Message::SchedulerRequestCompleted { .. } | Message::UpdateRequestedByUser => {
                RpcDeferral::Cleared
            }
            Message::DeferringCommunication { secs } => match stamp {
                Some(at) => RpcDeferral::Until(at + secs),
                None => RpcDeferral::Unknown("a deferring line has no time".into()),
            },
            // A master file with new scheduler URLs clears the deferral
            // (scheduler_op.cpp); whether they were new is not printed.
            Message::MasterFileDownloadSucceeded
                if matches!(self.rpc_deferral.get(project), Some(RpcDeferral::Until(_))) =>
            {
                RpcDeferral::Unknown(
                    "a master file was read since its last deferral, and whether its \
                     scheduler URLs were new (which clears the deferral) is not printed"
                        .into(),
                )
            }
            _ => return,
        };
        if !project.is_empty() {
            self.rpc_deferral.insert(project.to_string(), deferral);
        }
    }

    /// The lines that set and clear a project's CPU backoff: a `backing
    /// off CPU` line (a work request that got none, work_fetch.cpp
    /// `handle_reply`), cleared by a reply with new jobs (on a CPU-only
    /// host every job is a CPU job), by a result's upload done
    /// (client_state.cpp update_results, `clear_backoffs`), by a project
    /// reset, by the clock set back (`clear_absolute_times`) and by the
    /// start of an RPC the user requested (cs_scheduler.cpp
    /// scheduler_rpc_poll, before the block it prints; unknown from the
    /// user's request to that start). An upload's end without task_debug
    /// leaves a running backoff unknown: whether it was its result's last
    /// file is not printed.
    fn see_cpu_backoff(&mut self, project: &str, message: &Message, stamp: Option<f64>) {
        match message {
            Message::ClearingTimeouts { .. } => self.cpu_backoff.clear(),
            // Most releases restore no resource backoff at a start.
            Message::ClientStart { version, .. }
                if !super::restart::restores_resource_backoffs(*version) =>
            {
                self.cpu_backoff.clear()
            }
            _ => {}
        }
        if project.is_empty() {
            return;
        }
        let cleared = match message {
            Message::BackingOff { rsc, secs } if *rsc == ResourceType::Cpu => {
                let entry = self.cpu_backoff.entry(project.to_string()).or_default();
                entry.interval = entry.interval.map(|i| {
                    if i == 0.0 {
                        BACKOFF_INTERVAL.0
                    } else {
                        (2.0 * i).min(BACKOFF_INTERVAL.1)
                    }
                });
                entry.until = match stamp {
                    Some(at) => RpcDeferral::Until(at + secs - 0.5),
                    None => RpcDeferral::Unknown("a backing-off line has no time".into()),
                };
                return;
            }
            // The count includes jobs the client already had; where each
            // new one prints, those lines tell.
            Message::SchedulerRequestCompleted { new_tasks: Some(n) } => {
                *n > 0 && !self.flag_sets.on_now("task_debug")
            }
            Message::ResultStateChange { state, .. } => {
                matches!(state, ResultState::New | ResultState::FilesUploaded)
            }
            Message::ResettingProject => true,
            Message::SendingSchedulerRequest {
                reason: RpcReason::RequestedByUser,
                ..
            } => true,
            Message::UpdateRequestedByUser => {
                let entry = self.cpu_backoff.entry(project.to_string()).or_default();
                if entry.until != RpcDeferral::Cleared {
                    entry.until = RpcDeferral::Unknown(
                        "the user requested an update: the RPC it brings clears the \
                         backoff as it starts, and the block it prints comes before its \
                         `Sending scheduler request` line"
                            .into(),
                    );
                }
                false
            }
            // An upload of a job whose output files the record names is
            // followed where the job's files are ([`Self::see_untold_states`]).
            Message::TransferFinished { upload: true, file }
                if !self.flag_sets.on_now("task_debug")
                    && !self
                        .uploading
                        .values()
                        .any(|f| f.iter().any(|f| f == file.as_str())) =>
            {
                if let Some(entry) = self
                    .cpu_backoff
                    .get_mut(project)
                    .filter(|b| matches!(b.until, RpcDeferral::Until(_)))
                {
                    entry.until = RpcDeferral::Unknown(
                        "an upload finished during its CPU backoff, and whether it was its \
                         result's last file (which clears the backoff) is printed only with \
                         task_debug"
                            .into(),
                    );
                    entry.interval = None;
                }
                false
            }
            _ => false,
        };
        if cleared {
            self.cpu_backoff.remove(project);
        }
    }

    /// Why each project cannot fetch work, where the lines tell it from a
    /// new state file on, with sched_op_debug's deferring lines.
    fn fetch_flags(&self) -> FetchFlags {
        let untold = |why: &str| FetchFlags {
            untold: Some(why.to_string()),
            ..FetchFlags::default()
        };
        // A start on a state file whose release restores no timer: each
        // project's settings are the state files' (turned back where the
        // log turns them), its deferral and backoffs none.
        let told_from_start = self.start_told
            && self
                .projects
                .iter()
                .all(|p| self.facts.state_projects.contains_key(p));
        if !self.fresh_state && !told_from_start {
            return untold(
                "the client started on a state file the log does not see made, and its \
                 release restores each project's RPC deferral or work-fetch backoff from it, \
                 or the state files do not hold every project: those and the no-new-tasks \
                 settings at its start are in that file as it was then",
            );
        }
        if !self.flag_sets.continuous("sched_op_debug") {
            return untold(
                "sched_op_debug is off: the RPC deferrals the client sets \
                        (`Deferring communication for`) are not printed",
            );
        }
        if self.acct_mgr_reply {
            return untold(
                "an account manager's reply was handled: it may set each project's \
                 no-new-tasks and clear its RPC deferral, and the log does not say which",
            );
        }
        let suspended_jobs = self
            .jobs
            .iter()
            .filter(|j| j.suspended)
            .map(|j| j.project.clone())
            .collect();
        FetchFlags {
            untold: None,
            no_new_tasks: self.no_new_tasks.clone(),
            rpc_deferral: self.rpc_deferral.clone(),
            suspended_jobs,
            cpu_backoff: self.cpu_backoff.clone(),
            cpu_backoff_untold: (!self.flag_sets.continuous("work_fetch_debug")).then(|| {
                "work_fetch_debug was not on all along since the state file was created: \
                 the CPU backoffs the client set (`backing off CPU`) are not all printed"
                    .to_string()
            }),
        }
    }

    /// A scheduler RPC's lines: what it reports, and what the server
    /// acknowledged. False when the line is none of these.
    fn see_rpc(&mut self, project: &str, message: &Message) -> bool {
        match message {
            Message::SendingSchedulerRequest { .. } => {
                let ready = self.unreported.get(project).cloned().unwrap_or_default();
                self.in_flight.insert(project.to_string(), ready);
                // A job that may be ready to report may go with it: whether
                // it did is not told.
                for entry in self.maybe_ready.get_mut(project).into_iter().flatten() {
                    entry.1 = None;
                }
            }
            Message::SchedulerRequestCompleted { .. } => {
                let reported = self.in_flight.remove(project).unwrap_or_default();
                // Without the ack lines (sched_op_debug: `got ack for
                // task`), every task reported is taken as acknowledged
                // (what every server the spec describes does). With them,
                // a reported task stays ready to report until its ack (a
                // server that does not acknowledge gets it again with
                // every RPC).
                if !self.flag_sets.on_now("sched_op_debug") {
                    if let Some(list) = self.unreported.get_mut(project) {
                        let assumed = self.assumed_acked.entry(project.to_string()).or_default();
                        assumed.extend(list.iter().filter(|j| reported.contains(*j)).cloned());
                        list.retain(|job| !reported.contains(job));
                    }
                }
                self.contacted.insert(project.to_string());
            }
            Message::GotAck { job } => {
                if let Some(list) = self.unreported.get_mut(project) {
                    list.retain(|j| j != job.as_str());
                }
                if let Some(list) = self.maybe_ready.get_mut(project) {
                    list.retain(|(j, _)| j != job.as_str());
                }
                if let Some(list) = self.assumed_acked.get_mut(project) {
                    list.retain(|j| j != job.as_str());
                }
                // An acknowledged result leaves the client's list at its
                // next garbage collection, which comes before the next
                // work fetch (client_state.cpp poll_slow_events): a
                // suspended one no longer holds its project's work fetch.
                if let Some(j) = self.jobs.iter_mut().find(|j| j.name == job.as_str()) {
                    j.suspended = false;
                }
            }
            Message::SchedulerRequestFailed { .. } => {
                self.in_flight.remove(project);
            }
            _ => return false,
        }
        true
    }

    /// A task's or project's state line. False when the line is none of
    /// these.
    fn see_task(&mut self, project: &str, message: &Message, stamp: Option<f64>) -> bool {
        match message {
            Message::TaskStateChange { state, job, .. } => {
                self.saw_task_states = true;
                // A process started or resumed: the task was scheduled.
                let started = message.process_started().is_some();
                let task = self.task_mut(job);
                if started {
                    task.schedule(stamp);
                }
                task.state = state.clone();
                if started {
                    self.task_started(project, job);
                }
            }
            Message::TaskPostponed { job, .. } => {
                if let Some(j) = self.job_mut(job) {
                    j.postponed = true;
                }
            }
            Message::StartingTask { job } | Message::Resuming { job } => {
                if let Some(j) = self.jobs.iter_mut().find(|j| j.name == job.as_str()) {
                    j.postponed = false;
                }
                self.task_started(project, job);
                let task = self.task_mut(job);
                task.schedule(stamp);
                if !task.process_exists() {
                    task.state = TaskState::Executing;
                }
            }
            Message::TaskStart { job, app, .. } => {
                self.facts.apps.insert(job.to_string(), app.to_string());
                self.task_started(project, job);
                let task = self.task_mut(job);
                task.schedule(stamp);
                if !task.process_exists() {
                    task.state = TaskState::Executing;
                }
            }
            Message::Preempting { job, mode } => {
                let task = self.task_mut(job);
                task.scheduled = false;
                // Removed from memory: QUIT_PENDING until the process
                // exits (a `task_state=UNINITIALIZED` line tells when).
                task.state = match mode {
                    PreemptMode::RemovedFromMemory => TaskState::QuitPending,
                    _ => TaskState::Suspended,
                };
            }
            Message::ComputationFinished { job } => {
                self.task_mut(job).state = TaskState::Exited;
                if let Some(j) = self.job_mut(job) {
                    j.done = true;
                }
            }
            Message::TaskAbortedByUser { job }
            | Message::AbortingTask { job, .. }
            | Message::AbortingTaskDeadlinePassed { job } => {
                if let Some(j) = self.job_mut(job) {
                    j.done = true;
                }
            }
            Message::TaskSuspendedByUser { job } => {
                if let Some(j) = self.job_mut(job) {
                    j.suspended = true;
                }
            }
            Message::TaskResumedByUser { job } => {
                if let Some(j) = self.job_mut(job) {
                    j.suspended = false;
                }
            }
            Message::ProjectSuspendedByUser => {
                self.suspended_projects.insert(project.to_string());
            }
            Message::ProjectResumedByUser => {
                self.suspended_projects.remove(project);
            }
            _ => return false,
        }
        true
    }

    /// A task of `project` started or resumed: its job's files are in,
    /// and the project's REC may move off 0 (cpu_sched.cpp adjust_rec
    /// accrues only scheduled tasks' time).
    fn task_started(&mut self, project: &str, job: &str) {
        if let Some(j) = self.jobs.iter_mut().find(|j| j.name == job) {
            j.at_least(Files::Downloaded);
        }
        self.touched.insert(project.to_string());
    }

    /// The host facts a line tells: max_concurrent limits, the usable
    /// CPUs, a coprocessor, the start-up's CPU count and UTC offset.
    fn see_host(&mut self, project: &str, message: &Message) {
        match message {
            Message::AppMaxConcurrent { app, max } => {
                self.app_limits.insert(app_key(project, app), *max);
            }
            Message::ProjectMaxConcurrent { max } => {
                self.project_limits.insert(project.to_string(), *max);
            }
            Message::UsableCpusChanged { to, .. } => {
                self.ncpus = Some(*to);
                self.process_ncpus = Some(*to);
            }
            Message::SetRequest { rsc, ninst, .. } if *rsc == ResourceType::Cpu => {
                self.ncpus = Some(*ninst);
                self.process_ncpus = Some(*ninst);
            }
            Message::StateFor { rsc } if *rsc != ResourceType::Cpu => self.gpu_host = true,
            Message::ConfigSimulateCpus { ncpus } => self.startup_ncpus = Some(*ncpus),
            // A 7.0-7.20 client reads its preferences (cs_prefs.cpp
            // read_global_prefs, at its start and at each reread) and sets
            // its usable CPUs (set_ncpus): the host's count unless its
            // `Preferences:` block prints `max CPUs used: N` (7.22 on print
            // the in-use and not-in-use counts instead).
            Message::PreferencesHeader if self.prefs_tell_ncpus() => {
                if let Some(n) = self.startup_ncpus {
                    self.ncpus = Some(n);
                    self.process_ncpus = Some(n);
                }
            }
            Message::PrefMaxCpus { ncpus } if self.prefs_tell_ncpus() => {
                self.ncpus = Some(*ncpus);
                self.process_ncpus = Some(*ncpus);
            }
            Message::Processor { ncpus, .. } if self.startup_ncpus.is_none() => {
                self.startup_ncpus = Some(*ncpus);
                self.processor_ncpus = Some(*ncpus);
            }
            // A reread of cc_config.xml prints its `Config:` lines again
            // (gui_rpc_server_ops.cpp handle_read_cc_config; log_flags.cpp
            // CC_CONFIG::show): without `simulate N CPUs` the count is the
            // host's again.
            Message::RereadingConfig { file } if file.ends_with("cc_config.xml") => {
                self.startup_ncpus = self.processor_ncpus;
            }
            Message::LocalTime { utc_offset_hours } => {
                self.utc_offset_secs = Some(crate::trace::utc_offset_secs(
                    *utc_offset_hours,
                    &self.facts.host_timezones,
                ));
            }
            Message::RecentEstCredit { rec, .. } => {
                self.recs.insert(project.to_string(), *rec);
            }
            Message::ProjectUrl { resource_share, .. } => {
                self.printed_shares
                    .insert(project.to_string(), *resource_share);
            }
            _ => {}
        }
    }

    /// The lines that tell when this process computed its peak-FLOPS
    /// total and on how many CPUs (see [`PeakCount`]). Run before
    /// [`Tracker::see_host`] takes the line's CPU count.
    fn see_peak(&mut self, message: &Message, stamp: Option<f64>) {
        match message {
            Message::BenchmarkResults | Message::BenchmarksTimedOut => match self.peak {
                // A scheduling pass with a job, silent without
                // cpu_sched_debug, may have computed it on the old FLOPS.
                PeakCount::Unfixed
                    if !self.flag_sets.on_now("cpu_sched_debug")
                        && self.jobs.iter().any(|j| self.job_runnable(j)) =>
                {
                    self.peak = PeakCount::Unknown(
                        "a CPU benchmark ran before this client process's first work fetch, \
                         while it had runnable jobs and cpu_sched_debug was off: whether a \
                         scheduling pass had computed its peak-FLOPS total on the old FLOPS \
                         is not printed"
                            .into(),
                    );
                }
                PeakCount::Unfixed => {}
                _ => self.benchmark_since_peak = true,
            },
            Message::UsableCpusChanged { from, .. } => match self.peak {
                // Computed on the count it changed from.
                PeakCount::Pending { at } => self.peak = PeakCount::Fixed { ncpus: *from, at },
                // A scheduling pass with a job computes it too; without
                // cpu_sched_debug such a pass prints nothing.
                PeakCount::Unfixed
                    if !self.flag_sets.on_now("cpu_sched_debug")
                        && self.jobs.iter().any(|j| self.job_runnable(j)) =>
                {
                    self.peak = PeakCount::Unknown(
                        "the usable CPUs changed before this client process's first work \
                         fetch, while it had runnable jobs and cpu_sched_debug was off: \
                         whether a scheduling pass had computed its peak-FLOPS total on \
                         the old count is not printed"
                            .into(),
                    );
                }
                _ => {}
            },
            Message::SetRequest { rsc, ninst, .. } if *rsc == ResourceType::Cpu => {
                // Printed by the work fetch that computed it, if not before.
                let at = match self.peak {
                    PeakCount::Unfixed => stamp,
                    PeakCount::Pending { at } => Some(at),
                    _ => return,
                };
                self.peak = match at {
                    Some(at) => PeakCount::Fixed { ncpus: *ninst, at },
                    None => PeakCount::Unknown("a work request's line has no time".into()),
                };
            }
            // A work fetch's setup, or a job added to the run list
            // (adjust_rec_sched), computes it.
            Message::WorkFetchStart
            | Message::WorkFetchStateStart
            | Message::StateFor { .. }
            | Message::ChooseProjectTime { .. }
            | Message::AddToRunList { .. }
                if self.peak == PeakCount::Unfixed =>
            {
                self.peak = match (stamp, self.process_ncpus) {
                    (Some(at), Some(ncpus)) => PeakCount::Fixed { ncpus, at },
                    (Some(at), None) => PeakCount::Pending { at },
                    (None, _) => PeakCount::Unknown("a work-fetch line has no time".into()),
                };
            }
            _ => {}
        }
    }

    /// A 7.0-7.20 client's `Preferences:` block tells its usable CPUs.
    fn prefs_tell_ncpus(&self) -> bool {
        matches!(self.client_version, Some((7, minor)) if minor <= 20)
    }

    /// The key of an app's max_concurrent limit: apps belong to a project.
    fn app_key_of(&self, project: &str, job: &str) -> Option<String> {
        self.facts.apps.get(job).map(|app| app_key(project, app))
    }

    /// What a simulation at this line rests on, or why it is not known.
    fn view(&self) -> Result<HostView, String> {
        if !self.started {
            return Err(
                "the log does not start with the client on a host without jobs: the \
                        jobs on the host and their order are not all told"
                    .into(),
            );
        }
        if let Some(why) = &self.unknown {
            return Err(why.clone());
        }
        if let Some(why) = self.untold.as_ref().filter(|_| self.states_untold()) {
            return Err(why.clone());
        }
        if let Some(job) = self.undated.first() {
            return Err(format!(
                "job {job} finished after the log's start (its job log) and is in no state \
                 file or scheduler reply of the record: whether it was on the host here, and \
                 its place in the client's job order, are not told until the log prints its \
                 arrival"
            ));
        }
        let jobs = self
            .jobs
            .iter()
            .map(|job| SeenJob {
                name: job.name.clone(),
                project: job.project.clone(),
                app: self.facts.apps.get(&job.name).cloned(),
                deadline: self.facts.deadlines.get(&job.name).copied(),
                downloaded: job.files == Files::Downloaded,
                maybe_downloaded: job.files < Files::Downloaded
                    && job.files_hi == Files::Downloaded,
                done: job.done,
                maybe_nearly_runnable: job.files == Files::New
                    && job.files_hi > Files::New
                    && !job.postponed
                    && self.job_runnable_but_files(job),
                nearly_runnable: job.files > Files::New
                    && !job.postponed
                    && self.job_runnable_but_files(job),
            })
            .collect();
        let mut app_limits: Vec<(String, String, u32)> = self
            .app_limits
            .iter()
            .filter_map(|(key, max)| {
                let (project, app) = key.split_once('\t')?;
                Some((project.to_string(), app.to_string(), *max))
            })
            .collect();
        app_limits.sort();
        let mut project_limits: Vec<(String, u32)> = self
            .project_limits
            .iter()
            .map(|(p, max)| (p.clone(), *max))
            .collect();
        project_limits.sort();
        Ok(HostView {
            jobs,
            projects: self.projects.clone(),
            sorted_by_name: self.client_version.is_some_and(|v| v >= (7, 6)),
            app_limits,
            project_limits,
            ncpus: self.ncpus,
            startup_ncpus: self.startup_ncpus,
            utc_offset_secs: self.utc_offset_secs,
            gpu_host: self.gpu_host,
            recs: self.recs.clone(),
            fetch_flags: self.fetch_flags(),
            peak: self.peak.clone(),
            benchmark_since_peak: self.benchmark_since_peak,
            suspended_projects: self.suspended_projects.clone(),
            printed_shares: self.printed_shares.clone(),
            untouched: if self.fresh_state {
                self.projects
                    .iter()
                    .filter(|p| !self.touched.contains(*p))
                    .cloned()
                    .collect()
            } else {
                HashSet::new()
            },
        })
    }

    fn job_runnable(&self, job: &TrackedJob) -> bool {
        job.files == Files::Downloaded && self.job_runnable_but_files(job)
    }

    /// Runnable once its files are in: not done, not suspended (nor its
    /// project).
    fn job_runnable_but_files(&self, job: &TrackedJob) -> bool {
        !job.done && !job.suspended && !self.suspended_projects.contains(&job.project)
    }
}

/// Takes `file` off each job's list of files in transfer; the jobs left
/// with none leave `pending` and are returned, by name.
fn files_done(pending: &mut HashMap<String, Vec<String>>, file: &str) -> Vec<String> {
    for files in pending.values_mut() {
        files.retain(|f| f != file);
    }
    let mut done: Vec<String> = pending
        .iter()
        .filter(|(_, files)| files.is_empty())
        .map(|(job, _)| job.clone())
        .collect();
    done.sort();
    for job in &done {
        pending.remove(job);
    }
    done
}

/// An app's max_concurrent key (project, app name).
fn app_key(project: &str, app: &str) -> String {
    format!("{project}\t{app}")
}

/// The lowercase hex MD5 of a job name (`md5_string` in lib/md5_file.cpp).
fn name_md5(name: &str) -> String {
    use md5::{Digest, Md5};
    Md5::digest(name.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Why the poll contacted a project for a piggybacked pass, checked from
/// the log: the RPC's reason (its `Sending scheduler request` line) and
/// whether the log bears it out.
pub type ReportCheck = Result<(bool, String), String>;

/// A piggybacked pass's RPC reason, by the event index of its choice or
/// request point.
pub type RpcReasons = BTreeMap<usize, RpcReason>;

/// What the log tells of the poll's RPCs ([`ReportChecks`]).
#[derive(Debug, Default)]
pub struct LogFacts {
    /// Each piggyback choice's check.
    pub reports: BTreeMap<usize, ReportCheck>,
    /// Each piggyback point's RPC reason.
    pub rpc_reasons: RpcReasons,
    /// Per piggyback request: the projects none of whose tasks ran since a
    /// fresh start, whose REC, hence priority, is exactly 0 (equal printed
    /// priorities among them are true ties, which piggyback_work_request()
    /// passes over).
    pub zero_rec: BTreeMap<usize, BTreeSet<String>>,
    /// The projects the state files and replies give a resource share of
    /// exactly 0 (backup projects).
    pub zero_shares: BTreeSet<String>,
}

/// Every piggyback choice point's check (keyed by its event index): an RPC
/// "to report completed tasks" needs a task of the project done and not yet
/// reported (CLIENT_STATE::find_project_with_overdue_results; its timing,
/// which rests on report deadlines the log does not print, is not checked);
/// "Project initialization" needs a project not contacted before in the
/// log; user, project and account-manager requests hold by their reason.
/// Each is judged on the jobs as told just before its line, read with the
/// window's other readings ([`hosts_at`]).
struct ReportChecks {
    reasons: RpcReasons,
    /// The piggyback choices (line, project), in line order.
    starts: Vec<(usize, String)>,
    next: usize,
    /// The piggyback requests' lines, in order, and the next one's place.
    requests: Vec<usize>,
    next_request: usize,
    /// The projects attached in the session up to the window's end.
    attached_here: BTreeSet<String>,
    out: BTreeMap<usize, ReportCheck>,
    zero_rec: BTreeMap<usize, BTreeSet<String>>,
}

impl ReportChecks {
    /// The checks of the points from `from` on, the lines before it told
    /// by `carry`.
    fn new(
        events: &[LogEvent],
        points: &[RecordedPoint],
        carry: Option<&JobCarry>,
        from: usize,
    ) -> Self {
        let mut reasons = RpcReasons::new();
        let points: Vec<&RecordedPoint> = points
            .iter()
            .filter(|p| p.event_idx >= from && p.piggyback)
            .collect();
        for p in &points {
            let project = match &p.decision {
                Decision::Choice(Some(project)) => Some(project.as_str()),
                Decision::Request { .. } => p.project.as_deref(),
                _ => None,
            };
            if let Some(reason) =
                project.and_then(|project| rpc_reason(events, p.event_idx, project))
            {
                reasons.insert(p.event_idx, reason);
            }
        }
        let starts = points
            .iter()
            .filter_map(|p| match &p.decision {
                Decision::Choice(Some(project)) => Some((p.event_idx, project.clone())),
                _ => None,
            })
            .collect();
        let mut requests: Vec<usize> = points
            .iter()
            .filter(|p| matches!(p.decision, Decision::Request { .. }))
            .map(|p| p.event_idx)
            .collect();
        requests.sort_unstable();
        requests.dedup();
        let mut attached_here: BTreeSet<String> =
            carry.map(|c| c.attached.clone()).unwrap_or_default();
        attached_here.extend(
            events[from.min(events.len())..]
                .iter()
                .filter_map(initialized_project)
                .map(str::to_string),
        );
        ReportChecks {
            reasons,
            starts,
            next: 0,
            requests,
            next_request: 0,
            attached_here,
            out: BTreeMap::new(),
            zero_rec: BTreeMap::new(),
        }
    }

    /// The last line a check is made at.
    fn last_line(&self) -> Option<usize> {
        let start = self.starts.last().map(|(idx, _)| *idx);
        start.max(self.requests.last().copied())
    }

    /// The checks at line `idx`, on the jobs as told before it.
    fn before(&mut self, idx: usize, tracker: &Tracker) {
        // A project none of whose tasks ran since a fresh start has a REC
        // of exactly 0: printed priorities of -0.000 of two such projects
        // are true ties.
        let request = self.requests.get(self.next_request) == Some(&idx);
        self.next_request += usize::from(request);
        if request && tracker.started {
            let ran: HashSet<&str> = tracker
                .tasks
                .iter()
                .filter_map(|t| tracker.jobs.iter().find(|j| j.name == t.job))
                .map(|j| j.project.as_str())
                .chain(tracker.ran_before_restart.iter().map(String::as_str))
                .collect();
            // Attached in this log (its initialization RPC is in it), or
            // any project of a client that made its state file in this
            // log (CreatingStateFile: every REC starts at 0): only the
            // project's own tasks raise it.
            let fresh = tracker.fresh_state.then_some(&tracker.projects);
            let never: BTreeSet<String> = self
                .attached_here
                .iter()
                .chain(fresh.into_iter().flatten())
                .filter(|p| !ran.contains(p.as_str()))
                .cloned()
                .collect();
            self.zero_rec.insert(idx, never);
        }
        while let Some((start, project)) = self.starts.get(self.next).filter(|(s, _)| *s == idx) {
            self.next += 1;
            let check = rpc_check(self.reasons.get(start), tracker, project);
            self.out.insert(*start, check);
        }
    }

    fn finish(self, facts: &JobFacts) -> LogFacts {
        LogFacts {
            reports: self.out,
            rpc_reasons: self.reasons,
            zero_rec: self.zero_rec,
            zero_shares: facts
                .shares
                .keys()
                .filter(|p| facts.zero_share(p))
                .cloned()
                .collect(),
        }
    }
}

/// One piggyback choice's check, by the reason its RPC gave and the jobs
/// as told at its line ([`ReportChecks`]).
fn rpc_check(reason: Option<&RpcReason>, tracker: &Tracker, project: &str) -> ReportCheck {
    match reason {
        None => Err("the log shows no `Sending scheduler request` line for this pass's RPC"
            .to_string()),
        Some(RpcReason::ToReportCompletedTasks) if !tracker.started => Err(
            "the log does not start with the client: which tasks were done and not yet reported is not told"
                .to_string(),
        ),
        // A task is ready to report once its result's state says so
        // (`result state=FILES_UPLOADED`, task_debug's), or, where those
        // lines are not printed, by the time its uploads and the client's
        // `update_results` allow.
        Some(RpcReason::ToReportCompletedTasks)
            if tracker.unreported.get(project).is_none_or(Vec::is_empty)
                && tracker.maybe_ready.get(project).is_some_and(|m| !m.is_empty()) =>
        {
            let maybe = &tracker.maybe_ready[project];
            Ok((
                true,
                format!(
                    "{project} may have task(s) ready to report: {} (done; whether the \
                     client had marked them ready, or reported them, is not printed with \
                     task_debug off)",
                    maybe.iter().map(|(j, _)| j.as_str()).collect::<Vec<_>>().join(", ")
                ),
            ))
        }
        Some(RpcReason::ToReportCompletedTasks)
            if tracker.unreported.get(project).is_none_or(Vec::is_empty)
                && tracker.assumed_acked.get(project).is_some_and(|a| !a.is_empty()) =>
        {
            Err(format!(
                "sched_op_debug was off when {project} reported {}: whether the server \
                 acknowledged them (`got ack for task`) is not printed, and a task not \
                 acknowledged is reported again",
                tracker
                    .assumed_acked
                    .get(project)
                    .map(|a| a.join(", "))
                    .unwrap_or_default()
            ))
        }
        Some(RpcReason::ToReportCompletedTasks)
            if tracker.unreported.get(project).is_none_or(Vec::is_empty)
                && !tracker.contacted.contains(project)
                && !tracker.gone_done_of(project).is_empty() =>
        {
            let gone = tracker.gone_done_of(project);
            Err(format!(
                "the job logs say {} finished before the client start the log begins \
                 with, and no state file holds {}: whether {} reported before that \
                 start is not told until {project} completes a scheduler request",
                gone.join(", "),
                if gone.len() == 1 { "it" } else { "them" },
                if gone.len() == 1 { "it was" } else { "they were" },
            ))
        }
        Some(RpcReason::ToReportCompletedTasks) => {
            let done = tracker.unreported.get(project).cloned().unwrap_or_default();
            Ok((
                !done.is_empty(),
                if done.is_empty() {
                    format!("{project} has no task done and not yet reported")
                } else {
                    format!("{project} has task(s) ready to report: {}", done.join(", "))
                },
            ))
        }
        Some(RpcReason::ProjectInitialization) if !tracker.started => Err(
            "the log does not start with the client: earlier contacts are not told"
                .to_string(),
        ),
        Some(RpcReason::ProjectInitialization) => {
            let first = !tracker.contacted.contains(project);
            Ok((
                first,
                if first {
                    format!("{project}'s first scheduler request in the log")
                } else {
                    format!("{project} already completed a scheduler request")
                },
            ))
        }
        Some(other) => Err(format!(
            "an RPC \"{other}\": the poll's reason (a user, project or trickle-up \
             request) is taken as given, not recomputed from the log"
        )),
    }
}

/// How far after a pass its RPC's `Sending scheduler request` line is
/// looked for: the RPC follows its pass in the same poll, a few lines on; a
/// log that lost the line (or the next pass's start) is not searched to its
/// end.
const RPC_REACH: usize = 256;

/// The reason of the RPC a pass at `idx` makes to `project`: its next
/// `Sending scheduler request` line before another work-fetch pass, within
/// [`RPC_REACH`] lines.
fn rpc_reason(events: &[LogEvent], idx: usize, project: &str) -> Option<RpcReason> {
    events
        .iter()
        .skip(idx + 1)
        .take(RPC_REACH)
        .find_map(|e| match &e.message {
            Message::WorkFetchStateStart => Some(None),
            Message::SendingSchedulerRequest { reason, .. }
                if e.project.as_deref() == Some(project) =>
            {
                Some(Some(reason.clone()))
            }
            _ => None,
        })
        .flatten()
}

/// What one scheduling pass printed between its start and its first
/// run-list entry.
#[derive(Default)]
struct Pass {
    /// Project, printed priority, resource-share fraction; in print order.
    prio: Vec<(String, f64, f64)>,
    /// Per project: CPU deadline misses of the pass's simulation (`Project
    /// has N projected CPU deadline misses`).
    misses: HashMap<String, i64>,
    /// Its simulation ran a GPU job.
    gpu: bool,
    /// The run list's jobs in printed order.
    printed: Vec<String>,
    /// The pass's simulation's start line (`[rr_sim] start:`).
    sim_start: Option<usize>,
}

/// How far a pass's printed run list is read.
const RUN_LIST_REACH: usize = 4096;

fn read_pass(events: &[LogEvent], start: usize) -> Pass {
    let mut pass = Pass::default();
    // The run list as printed (`add to run list` lines up to the
    // enforcement): only to take two jobs tied below the printed digits in
    // their printed order.
    for event in events.iter().skip(start + 1).take(RUN_LIST_REACH) {
        match &event.message {
            Message::AddToRunList { job, .. } => pass.printed.push(job.to_string()),
            Message::EnforceRunListStart
            | Message::MakeRunListEnd
            | Message::ScheduleCpusStart
            | Message::MakeRunListStart => break,
            _ => {}
        }
    }
    for (idx, event) in events.iter().enumerate().skip(start + 1) {
        let project = event.project.as_deref().unwrap_or_default();
        match &event.message {
            Message::RrSimStart { .. } if pass.sim_start.is_none() => pass.sim_start = Some(idx),
            Message::AddToRunList { .. }
            | Message::EnforceRunListStart
            | Message::MakeRunListEnd
            | Message::ScheduleCpusStart
            | Message::MakeRunListStart => break,
            Message::ProjectPriority { prio, rsf, .. } => {
                if let Some(entry) = pass.prio.iter_mut().find(|e| e.0 == project) {
                    entry.1 = *prio;
                    entry.2 = *rsf;
                } else {
                    pass.prio.push((project.to_string(), *prio, *rsf));
                }
            }
            Message::SimStarting { resources, .. } | Message::SimFinishes { resources, .. } => {
                pass.gpu |= resources.as_ref().is_some_and(|r| r.coproc.is_some());
            }
            Message::ProjectDeadlineMisses { count, rsc } if *rsc == ResourceType::Cpu => {
                pass.misses.insert(project.to_string(), i64::from(*count));
            }
            _ => {}
        }
    }
    pass
}

/// Every run-list point's run list, recomputed from the log (keyed by the
/// point's event index), or why it cannot be.
/// What the trace's scheduler replies and client states tell of each job.
#[derive(Clone, Debug, Default)]
pub struct JobFacts {
    /// Its app (the log names it only when the job starts).
    pub apps: HashMap<String, String>,
    /// Its report deadline (never printed).
    pub deadlines: HashMap<String, f64>,
    /// Its `rsc_fpops_est` (never printed).
    pub sizes: HashMap<String, f64>,
    /// Per app name: the FLOPS of its app versions where the states and
    /// replies give one value (`None` where they give several).
    pub app_flops: HashMap<String, Option<f64>>,
    /// Per app name: the CPUs its app versions use, where the states and
    /// replies give one value.
    pub app_ncpus: HashMap<String, Option<f64>>,
    /// The preferences the state files give.
    pub prefs: PrefsFacts,
    /// Per project name: its resource share where the state files and
    /// replies give one value (`None` where they give several).
    pub shares: HashMap<String, Option<f64>>,
    /// The host's FLOPS per CPU (`p_fpops`) each state file gives, with
    /// the time its benchmark ran (`p_calculated`, Unix seconds), which
    /// set it.
    pub host_fpops: Vec<(f64, f64)>,
    /// The jobs the state files hold, for a log that starts on a state
    /// file the log does not see made.
    pub state_jobs: Vec<StateJob>,
    /// Per job: the first scheduler reply of the record that holds it.
    pub first_reply: HashMap<String, ReplyOf>,
    /// The record's scheduler replies, in the record's order, each with
    /// the jobs it sent that its request did not hold.
    pub replies: Vec<ReplyJobs>,
    /// Per job: its workunit's input files, where a reply or state file
    /// gives the workunit.
    pub input_files: HashMap<String, Vec<String>>,
    /// Per job: its output files, where a reply or state file gives them.
    pub output_files: HashMap<String, Vec<String>>,
    /// Per job: when the job logs say it finished (Unix seconds).
    pub finished: HashMap<String, f64>,
    /// Per job: the project whose job log holds it, where a state file
    /// names the project of that log's URL.
    pub job_log_project: HashMap<String, String>,
    /// The host's offsets from UTC the state files hold (seconds east).
    pub host_timezones: Vec<i64>,
    /// Per project name: whether the state files have it suspended and
    /// set to no new tasks (`suspended_via_gui`, `dont_request_more_work`).
    pub state_projects: HashMap<String, (bool, bool)>,
    /// The user's first suspend or resume of each project, task and work
    /// fetch in the session's log.
    pub toggles: UserToggles,
}

/// The scheduler reply a job came in.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplyOf {
    /// The reply's index in the record.
    pub index: usize,
    /// Its project's name.
    pub project: String,
    /// Its request's `now` (`time_stats`, Unix seconds): the reply came
    /// after it.
    pub requested: Option<f64>,
    /// The request listed the job as held (`other_results`): it came in an
    /// earlier reply, and this one sent it again.
    pub held: bool,
}

/// A scheduler reply of the record and the jobs new to the host in it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReplyJobs {
    /// Its project's name.
    pub project: String,
    /// Its request's `now` (`time_stats`, Unix seconds).
    pub requested: Option<f64>,
    /// The jobs it sent that its request did not list as held, in the
    /// reply's order.
    pub jobs: Vec<String>,
}

/// A job a state file holds, as it bears on the log's start.
#[derive(Clone, Debug, PartialEq)]
pub struct StateJob {
    /// Its name.
    pub name: String,
    /// Its project's name.
    pub project: String,
    /// `received_time` (Unix seconds).
    pub received: Option<f64>,
    /// When its computation ended, where it has (`completed_time`, Unix
    /// seconds, with a state past `FILES_DOWNLOADED`).
    pub completed: Option<f64>,
    /// `suspended_via_gui`.
    pub suspended: bool,
}

/// Preferences the data directory's files give, each with the file (or
/// "the client's default") it comes from; `None`: no file tells.
#[derive(Clone, Debug, Default)]
pub struct PrefsFacts {
    /// `cpu_scheduling_period_minutes`: the time slice.
    pub time_slice_minutes: Option<(f64, String)>,
    /// `leave_apps_in_memory`.
    pub leave_in_memory: Option<(bool, String)>,
}

impl JobFacts {
    /// The state files and replies give `project` a resource share of
    /// exactly 0 (one value only).
    pub fn zero_share(&self, project: &str) -> bool {
        self.shares.get(project) == Some(&Some(0.0))
    }

    /// The host's FLOPS per CPU in force at `now` (Unix seconds): that of
    /// the latest benchmark the state files give before it, or why it is
    /// not known.
    pub fn p_fpops_at(&self, now: f64) -> Result<f64, String> {
        let mut before = self.host_fpops.iter().filter(|(at, _)| *at < now);
        let Some(first) = before.next() else {
            return Err(if self.host_fpops.is_empty() {
                "the host's FLOPS per CPU (client_state.xml `p_fpops`) is not in the record".into()
            } else {
                "the host's FLOPS per CPU at this moment is not in the record: each state file \
                 holds a benchmark run after it"
                    .into()
            });
        };
        let latest = before.fold(*first, |a, b| if b.0 > a.0 { *b } else { a });
        Ok(latest.1)
    }

    /// The host's FLOPS per CPU in force all through `[lo, hi)` (Unix
    /// seconds), or why it is not known: a benchmark the state files give
    /// within it leaves two values.
    pub fn p_fpops_during(&self, lo: f64, hi: f64) -> Result<f64, String> {
        if let Some((at, _)) = self.host_fpops.iter().find(|(at, _)| *at >= lo && *at < hi) {
            return Err(format!(
                "a CPU benchmark (client_state.xml `p_calculated` {at:.0}) ran within the \
                 moment's second: which FLOPS per CPU were in force is not told"
            ));
        }
        self.p_fpops_at(lo)
    }

    /// Notes an app version's FLOPS: an app with versions of different
    /// speeds has none.
    pub fn add_app_flops(&mut self, app: &str, flops: f64) {
        one_value(&mut self.app_flops, app, flops);
    }

    /// Notes an app version's CPU use: an app with versions of different
    /// uses has none.
    pub fn add_app_ncpus(&mut self, app: &str, ncpus: f64) {
        one_value(&mut self.app_ncpus, app, ncpus);
    }

    /// Notes a project's resource share (0 included): a project given
    /// several has none.
    pub fn add_share(&mut self, project: &str, share: f64) {
        if !(share.is_finite() && share >= 0.0) {
            return;
        }
        self.shares
            .entry(project.to_string())
            .and_modify(|known| {
                if *known != Some(share) {
                    *known = None;
                }
            })
            .or_insert(Some(share));
    }
}

/// Keeps `value` for `key` while every value noted for it is the same.
fn one_value(map: &mut HashMap<String, Option<f64>>, key: &str, value: f64) {
    if !(value.is_finite() && value > 0.0) {
        return;
    }
    map.entry(key.to_string())
        .and_modify(|known| {
            if *known != Some(value) {
                *known = None;
            }
        })
        .or_insert(Some(value));
}

/// The priority order any stretch of one run list is held to, whatever
/// else the log shows: the jobs of one resource a pass takes in priority
/// order (`add to run list: JOB (RSC, FIFO) (prio P)` from 7.3 on,
/// `scheduling JOB (CPU job, priority order) (prio P)` in 7.0-7.2) are each
/// the next job of the project of highest priority at that moment, and a
/// project's priority only falls as its jobs are added (client/cpu_sched.cpp
/// `highest_prio_project_best_result` for the CPU, `first_coproc_result`
/// for each GPU type, `adjust_rec_sched`). A project
/// listed later had its job waiting all along, so no later entry can print
/// a priority above an earlier one by more than the two six-decimal
/// roundings. On a violation: the entries with those jobs in the order of
/// their printed priorities, and the rule's account; `None` when the
/// order holds (which alone does not check the list: what it holds rests
/// on every runnable job).
pub fn priority_order(entries: &[RunListEntry]) -> Option<(Vec<RunListEntry>, String)> {
    const PRINTED: f64 = 1e-6 + 1e-9;
    // One phase per resource; 7.0-7.2 name every GPU `coprocessor`, which
    // merges the phases of two GPU types: not held.
    let mut resources: Vec<&str> = Vec::new();
    for e in entries {
        if e.order == "FIFO"
            && e.rsc != super::recorded::COPROCESSOR
            && !resources.contains(&e.rsc.as_str())
        {
            resources.push(&e.rsc);
        }
    }
    for rsc in resources {
        let picks: Vec<usize> = (0..entries.len())
            .filter(|&i| entries[i].rsc == rsc && entries[i].order == "FIFO")
            .collect();
        // The earlier pick of lowest printed priority, against each later one.
        let mut lowest: Option<usize> = None;
        let mut violation = None;
        for &i in &picks {
            if let Some(low) = lowest {
                if entries[i].prio > entries[low].prio + PRINTED {
                    violation = Some((low, i));
                    break;
                }
            }
            if lowest.is_none_or(|low| entries[i].prio < entries[low].prio) {
                lowest = Some(i);
            }
        }
        let Some((earlier, later)) = violation else {
            continue;
        };
        let mut sorted: Vec<RunListEntry> = picks.iter().map(|&i| entries[i].clone()).collect();
        sorted.sort_by(|a, b| b.prio.total_cmp(&a.prio));
        let mut reordered = entries.to_vec();
        for (slot, entry) in picks.iter().zip(sorted) {
            reordered[*slot] = entry;
        }
        let (a, b) = (&entries[earlier], &entries[later]);
        return Some((
            reordered,
            format!(
                "§6.2 run list in priority order: {} (prio {:.6}) is taken before {} (prio \
                 {:.6}) for {rsc}; each {rsc} job in priority order is the next job of the \
                 project of highest priority, and a project's priority only falls as its jobs \
                 are added, so a job listed later cannot print a higher priority \
                 (client/cpu_sched.cpp highest_prio_project_best_result, first_coproc_result, \
                 adjust_rec_sched; 7.0 to today)",
                a.job, a.prio, b.job, b.prio
            ),
        ));
    }
    None
}

/// What the readings of a log's jobs carry from one window of a long
/// client session to the next: the jobs as told before the window's first
/// reported line, and the projects attached in the session so far.
#[derive(Clone, Debug, Default)]
pub struct JobCarry {
    /// The jobs' reading (with the trace's job facts) that the run lists,
    /// simulations and piggyback checks of the next window start from;
    /// `None` before the first line.
    run: Option<Tracker>,
    /// Projects whose `Project initialization` request the session showed.
    attached: BTreeSet<String>,
}

impl JobCarry {
    /// Reads the next line of the session.
    pub fn see(&mut self, event: &LogEvent, facts: &JobFacts) {
        self.run
            .get_or_insert_with(|| Tracker::with_facts(facts))
            .see(event);
        self.see_attach(event);
    }

    /// Reads the next line's attachment, if it is one.
    fn see_attach(&mut self, event: &LogEvent) {
        if let Some(project) = initialized_project(event) {
            if !self.attached.contains(project) {
                self.attached.insert(project.to_string());
            }
        }
    }

    /// This carry's attachments with `tracker` as its reading.
    fn with_tracker(&self, tracker: &Tracker) -> JobCarry {
        JobCarry {
            run: Some(tracker.clone()),
            attached: self.attached.clone(),
        }
    }
}

/// The project of a `Sending scheduler request … Project initialization`.
fn initialized_project(event: &LogEvent) -> Option<&str> {
    match event.message {
        Message::SendingSchedulerRequest {
            reason: RpcReason::ProjectInitialization,
            ..
        } => event.project.as_deref(),
        _ => None,
    }
}

/// A task on the host as the log tells it at a pass.
#[derive(Clone, Debug)]
pub struct SeenTask {
    /// Its job.
    pub job: String,
    /// Its process state.
    pub state: TaskState,
    /// Scheduled (else preempted) by the last enforcement.
    pub scheduled: bool,
    /// The log's stamp of its run interval's start (the line that
    /// started or resumed it last), while scheduled.
    pub scheduled_since: Option<f64>,
}

/// What a scheduling pass's run list rests on, as the log tells it: the
/// host, and what the pass printed before its first run-list line.
#[derive(Clone, Debug)]
pub struct PassHost {
    /// The host at the pass's line.
    pub view: HostView,
    /// Its tasks, in the client's active-task order.
    pub tasks: Vec<SeenTask>,
    /// Jobs runnable by the log's account: files in (`FILES_DOWNLOADED`), not
    /// done, not suspended (nor their project).
    pub downloaded: HashSet<String>,
    /// `(project, printed priority, resource-share fraction)`, in print order.
    pub prio: Vec<(String, f64, f64)>,
    /// With no `[prio]` line printed, every runnable project being of zero
    /// share: `(project, REC fraction, its uncertainty)`
    /// ([`backup_fractions`]).
    pub backup: Vec<(String, f64, f64)>,
    /// Per project: the CPU deadline misses the pass's simulation printed.
    pub misses: HashMap<String, i64>,
    /// The pass's simulation's start line.
    pub sim_start: usize,
    /// The run list's jobs in printed order.
    pub printed: Vec<String>,
    /// The usable CPUs.
    pub ncpus: u32,
    /// The CPUs of the peak-FLOPS total the priority step divides by (the
    /// process's first count: the total is computed once).
    pub step_ncpus: u32,
    /// Why the tasks the last enforcement scheduled are not all told (the
    /// `[cpu_sched]` lines that start, restart and preempt them were not
    /// all printed).
    pub tasks_untold: Option<String>,
}

/// The host as a window's lines tell it at each line its checks rest on,
/// read in one pass over the window: at each simulation point from `from`
/// on (one the log does not cut before), at each run-list point with the
/// pass its run list rests on (or, at each, what the record lacks), and
/// the piggyback checks ([`ReportChecks`]).
#[derive(Debug)]
pub struct HostsAt {
    /// At each simulation's line.
    pub views: BTreeMap<usize, Result<HostView, String>>,
    /// At each run list's line.
    pub passes: BTreeMap<usize, Result<PassHost, String>>,
    /// The piggyback checks.
    pub log: LogFacts,
    /// Where [`ReadTo`] asked: the jobs as told before its `until`, and
    /// just before its simulation's line.
    pub read: Option<(JobCarry, Option<JobCarry>)>,
}

/// How far [`hosts_at`] reads on for the next window: to `until` (not
/// included), keeping the jobs as told just before the line `last_sim`.
#[derive(Clone, Copy, Debug)]
pub struct ReadTo {
    /// The first line the window does not report.
    pub until: usize,
    /// The window's last simulation it reports.
    pub last_sim: Option<usize>,
}

/// [`HostsAt`] of the window whose reported lines start at `from`, the
/// lines before it told by `carry`.
pub fn hosts_at(
    events: &[LogEvent],
    points: &[RecordedPoint],
    facts: &JobFacts,
    carry: Option<&JobCarry>,
    from: usize,
    read_to: Option<ReadTo>,
) -> HostsAt {
    let at = |keep: fn(&RecordedPoint) -> bool| -> Vec<usize> {
        let mut lines: Vec<usize> = points
            .iter()
            .filter(|p| p.event_idx >= from && keep(p))
            .map(|p| p.event_idx)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        lines
    };
    let sims = at(|p| !p.cut_before && matches!(p.decision, Decision::RrSim { .. }));
    let lists = at(|p| matches!(p.decision, Decision::RunList(_)));
    let mut checks = ReportChecks::new(events, points, carry, from);
    let last = [sims.last(), lists.last()]
        .into_iter()
        .flatten()
        .copied()
        .max()
        .max(checks.last_line());
    let (mut views, mut passes) = (BTreeMap::new(), BTreeMap::new());
    let (mut sims, mut lists) = (sims.into_iter().peekable(), lists.into_iter().peekable());
    // The jobs on the host at a start on a state file (done and not yet
    // reported among them) come from the state files and job logs.
    let mut jobs = carry.cloned().unwrap_or_default();
    let mut tracker = jobs
        .run
        .take()
        .unwrap_or_else(|| Tracker::with_facts(facts));
    let mut read = read_to.map(|_| (None, None));
    let until = read_to.map_or(0, |r| r.until);
    let end = last
        .map_or(from, |last| last + 1)
        .max(until)
        .min(events.len());
    for (idx, event) in events.iter().enumerate().take(end).skip(from) {
        if idx == until {
            if let Some(read) = &mut read {
                read.0 = Some(jobs.with_tracker(&tracker));
            }
        }
        if read_to.is_some_and(|r| r.last_sim == Some(idx)) {
            if let Some(read) = &mut read {
                read.1 = Some(jobs.with_tracker(&tracker));
            }
        }
        checks.before(idx, &tracker);
        tracker.see(event);
        jobs.see_attach(event);
        if sims.next_if_eq(&idx).is_some() {
            views.insert(idx, tracker.view());
        }
        if lists.next_if_eq(&idx).is_some() {
            passes.insert(idx, pass_host(&tracker, read_pass(events, idx)));
        }
    }
    let read = read.map(|(at_until, at_sim)| {
        let at_until = at_until.unwrap_or_else(|| jobs.with_tracker(&tracker));
        (at_until, at_sim)
    });
    HostsAt {
        views,
        passes,
        log: checks.finish(&tracker.facts),
        read,
    }
}

fn pass_host(tracker: &Tracker, pass: Pass) -> Result<PassHost, String> {
    let ncpus = recompute_inputs(tracker, &pass)?;
    let step_ncpus = match &tracker.peak {
        PeakCount::Fixed { ncpus: n, .. } if *n > 0 => *n,
        PeakCount::Unknown(why) => return Err(why.clone()),
        _ => ncpus,
    };
    if tracker.benchmark_since_peak {
        return Err(
            "a CPU benchmark ran since this client process computed its peak-FLOPS total: \
             the priority step (peak FLOPS of the job over that total) no longer rests on \
             the CPU count alone"
                .into(),
        );
    }
    // A printed share fraction of 0 is a zero resource share (a backup
    // project: priority -1000 - REC fraction, a step not divided by it),
    // where the state files and replies say so.
    if let Some(zero) = pass
        .prio
        .iter()
        .find(|p| p.2 <= 0.0 && !tracker.facts.zero_share(&p.0))
    {
        return Err(format!(
            "project {} prints a share fraction of 0, but no state file or reply gives it a \
             zero resource share: its priority step is not recomputed",
            zero.0
        ));
    }
    // A job whose files may be in or not (task_debug off) was runnable
    // when the run list lists it; one it does not list was either not
    // runnable or not reached before the list filled the CPUs, and then its
    // absence changes no pick before that.
    let runnable: Vec<&TrackedJob> = tracker
        .jobs
        .iter()
        .filter(|j| {
            tracker.job_runnable(j)
                || (j.files_hi == Files::Downloaded
                    && tracker.job_runnable_but_files(j)
                    && pass.printed.contains(&j.name))
        })
        .collect();
    let backup = if pass.prio.is_empty() && !runnable.is_empty() {
        backup_fractions(tracker, &runnable)?
    } else {
        Vec::new()
    };
    if let Some(job) = runnable
        .iter()
        .find(|j| backup.is_empty() && !pass.prio.iter().any(|p| p.0 == j.project))
    {
        return Err(format!(
            "{} has a runnable job but no `[prio]` line in this pass",
            job.project
        ));
    }
    let have_limits = !tracker.app_limits.is_empty();
    if let Some(job) = runnable
        .iter()
        .find(|j| have_limits && tracker.app_key_of(&j.project, &j.name).is_none())
    {
        return Err(format!(
            "{}'s app is not told before this pass (its max_concurrent limit decides)",
            job.name
        ));
    }
    let Some(sim_start) = pass.sim_start else {
        return Err(
            "this pass prints no simulation of its own (it reused an earlier one): the \
             jobs' CPU use and runtime left the run list rests on are not printed here"
                .into(),
        );
    };
    let tasks = tracker
        .tasks
        .iter()
        .map(|t| SeenTask {
            job: t.job.clone(),
            state: t.state.clone(),
            scheduled: t.scheduled,
            scheduled_since: t.since.filter(|_| t.scheduled),
        })
        .collect();
    let downloaded = runnable.iter().map(|j| j.name.clone()).collect();
    Ok(PassHost {
        view: tracker.view()?,
        tasks,
        downloaded,
        prio: pass.prio,
        backup,
        misses: pass.misses,
        sim_start,
        printed: pass.printed,
        ncpus,
        step_ncpus,
        tasks_untold: tracker.flag_sets.off_in_a_print("cpu_sched").then(|| {
            "cpu_sched was not on all along: the `[cpu_sched] Starting`, `Restarting` and \
             `Preempting` lines that tell which tasks the last enforcement scheduled are not \
             all printed"
                .to_string()
        }),
    })
}

/// The REC fractions of a pass whose every runnable project is of zero
/// share (backup projects), each with its uncertainty.
/// project_priority_init then sums no share, prints no `[prio]` line and
/// leaves every priority at exactly 0; a step sets the picked project's to
/// -1000 less its REC fraction: its REC over the sum of the runnable
/// projects' (a sum of 0 taken as 1). One project alone has a fraction of
/// 1, or 0 where its REC is exactly 0. Two or more have the fractions of
/// their RECs as printed (six decimals), within what those digits leave;
/// a fraction no printed REC bounds is anywhere in [0, 1] (an uncertainty
/// of 1). They order nothing while each project's first pick is still to
/// come: every other is at 0 then, ties going in project order.
fn backup_fractions(
    tracker: &Tracker,
    runnable: &[&TrackedJob],
) -> Result<Vec<(String, f64, f64)>, String> {
    let mut projects: Vec<&str> = runnable.iter().map(|j| j.project.as_str()).collect();
    projects.sort_unstable();
    projects.dedup();
    if projects.iter().any(|p| !tracker.facts.zero_share(p)) {
        // Not backup projects alone: the pass's missing `[prio]` lines
        // are told by the caller.
        return Ok(Vec::new());
    }
    // A backup project's job whose files may be in (task_debug off) and
    // that the run list does not print may make its project runnable, and
    // count in the sum (a project with a share would have printed the
    // `[prio]` lines).
    let unsure = tracker.jobs.iter().find(|j| {
        j.files_hi == Files::Downloaded
            && tracker.job_runnable_but_files(j)
            && tracker.facts.zero_share(&j.project)
            && !projects.contains(&j.project.as_str())
    });
    if let Some(job) = unsure {
        return Err(format!(
            "this pass prints no `[prio]` lines (every runnable project of zero share); whether \
             {}'s files were in, making its project runnable and its REC part of the sum the \
             REC fractions divide by, is not told (task_debug off)",
            job.name
        ));
    }
    // Each REC and its half unit: exactly 0 on a state file the client
    // made, where none of the project's tasks ran since.
    let recs: Option<Vec<(f64, f64)>> = projects
        .iter()
        .map(|p| {
            if tracker.fresh_state && !tracker.touched.contains(*p) {
                Some((0.0, 0.0))
            } else {
                tracker.recs.get(*p).map(|&rec| (rec, HALF_MICRO))
            }
        })
        .collect();
    let (sum, sum_half) = recs
        .iter()
        .flatten()
        .fold((0.0, 0.0), |(s, h), r| (s + r.0, h + r.1));
    let fractions: Vec<(f64, f64)> = match recs {
        Some(recs) if sum == 0.0 && sum_half == 0.0 => recs.iter().map(|_| (0.0, 0.0)).collect(),
        Some(recs) if recs.len() == 1 && sum > sum_half => vec![(1.0, 0.0)],
        // |r/S - r0/S0| <= (half(r) + f0 * half(S)) / (S0 - half(S)).
        Some(recs) if sum > sum_half => recs
            .iter()
            .map(|&(rec, half)| {
                let f = rec / sum;
                (f, (half + f * sum_half) / (sum - sum_half))
            })
            .collect(),
        _ => projects.iter().map(|_| (1.0, 1.0)).collect(),
    };
    Ok(projects
        .iter()
        .zip(fractions)
        .map(|(p, (f, half))| ((*p).to_string(), f, half))
        .collect())
}

/// `f` of the jobs as told up to and with each line of `starts` (in
/// increasing order), the lines before `from` told by `carry`.
fn at_lines(
    events: &[LogEvent],
    facts: &JobFacts,
    carry: Option<&JobCarry>,
    from: usize,
    starts: &[usize],
    mut f: impl FnMut(&Tracker, usize),
) {
    let mut tracker = carry
        .and_then(|c| c.run.clone())
        .unwrap_or_else(|| Tracker::with_facts(facts));
    let mut next = starts.iter().copied().peekable();
    for (idx, event) in events.iter().enumerate().skip(from) {
        if next.peek().is_none() {
            break;
        }
        tracker.see(event);
        while next.peek().is_some_and(|&s| s == idx) {
            next.next();
            f(&tracker, idx);
        }
    }
}

/// One job on the host as the log tells it at a line.
#[derive(Clone, Debug)]
pub struct SeenJob {
    /// Its name.
    pub name: String,
    /// Its files are in (`FILES_DOWNLOADED`).
    pub downloaded: bool,
    /// Its files may be in, or still downloading: the log does not tell
    /// (task_debug off).
    pub maybe_downloaded: bool,
    /// Its project.
    pub project: String,
    /// Its app, where the replies, states or its start tell it.
    pub app: Option<String>,
    /// Its report deadline (Unix seconds), from the replies or states.
    pub deadline: Option<f64>,
    /// Its computation is done (no runtime left).
    pub done: bool,
    /// Its files started or in, not done, not suspended (nor its project),
    /// not postponed: in the round-robin simulation
    /// (`RESULT::nearly_runnable`: downloading or downloaded).
    pub nearly_runnable: bool,
    /// Otherwise nearly runnable, and its files may have started
    /// downloading or not: the log does not tell (task_debug off).
    pub maybe_nearly_runnable: bool,
}

/// The host as a real client's log tells it at one line: what a
/// simulation recomputed there rests on.
#[derive(Clone, Debug, Default)]
pub struct HostView {
    /// The jobs in the client's order (by reply, then name MD5).
    pub jobs: Vec<SeenJob>,
    /// The projects in the order the running process allocated them.
    pub projects: Vec<String>,
    /// The process keeps its projects sorted by name (7.6 on:
    /// cs_statefile.cpp `sort_projects_by_name`, after reading its state
    /// and at each attach), so its passes take them in that order; the
    /// round-robin simulation's project heap still follows the allocation
    /// order.
    pub sorted_by_name: bool,
    /// `(project, app, limit)` of each app max_concurrent announced.
    pub app_limits: Vec<(String, String, u32)>,
    /// `(project, limit)` of each project max_concurrent announced.
    pub project_limits: Vec<(String, u32)>,
    /// The usable CPUs printed last, if any.
    pub ncpus: Option<u32>,
    /// The CPUs the start-up block counted.
    pub startup_ncpus: Option<u32>,
    /// The host's offset from UTC, seconds.
    pub utc_offset_secs: Option<i64>,
    /// A coprocessor is on the host.
    pub gpu_host: bool,
    /// Per project: its REC as its last `recent est credit` line printed it.
    pub recs: HashMap<String, f64>,
    /// Projects whose REC and `REC_tmp` are exactly 0: the client created
    /// its state file, and none of their tasks was scheduled since.
    pub untouched: HashSet<String>,
    /// Projects suspended by the user.
    pub suspended_projects: HashSet<String>,
    /// Per project: the resource share its start-up line printed (whole
    /// units).
    pub printed_shares: HashMap<String, f64>,
    /// The projects' other reasons not to fetch work.
    pub fetch_flags: FetchFlags,
    /// What this process's peak-FLOPS total rests on.
    pub peak: PeakCount,
    /// A CPU benchmark set the host's FLOPS per CPU anew since the
    /// process computed that total.
    pub benchmark_since_peak: bool,
}

/// What a real client's lines tell of each project's reasons not to
/// fetch work, besides a suspension.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FetchFlags {
    /// Why the record does not tell them (then the rest is empty).
    pub untold: Option<String>,
    /// Projects set to no new tasks.
    pub no_new_tasks: HashSet<String>,
    /// Per project: its RPC deferral (absent: cleared since the state file
    /// was made).
    pub rpc_deferral: HashMap<String, RpcDeferral>,
    /// Projects with a task the user suspended.
    pub suspended_jobs: HashSet<String>,
    /// Per project: its CPU backoff (absent: none, interval 0).
    pub cpu_backoff: HashMap<String, RscBackoff>,
    /// Why the CPU backoffs are not all told, if not.
    pub cpu_backoff_untold: Option<String>,
}

/// The host as told at each line of `at` (increasing), or why its jobs
/// are not all known there.
pub fn views_at(
    events: &[LogEvent],
    facts: &JobFacts,
    carry: Option<&JobCarry>,
    from: usize,
    at: &[usize],
) -> BTreeMap<usize, Result<HostView, String>> {
    let mut views = BTreeMap::new();
    at_lines(events, facts, carry, from, at, |tracker, idx| {
        views.insert(idx, tracker.view());
    });
    views
}

/// The usable CPUs, or why this pass's run list cannot be recomputed from
/// the log's lines.
fn recompute_inputs(tracker: &Tracker, pass: &Pass) -> Result<u32, String> {
    if !tracker.started {
        return Err(
            "the run list is built from every runnable job, and this log does not \
             start with the client (`Starting BOINC client`) on a host without jobs: the jobs \
             on the host, their arrival order and tasks are not all told (client_state.xml of \
             that moment would)"
                .into(),
        );
    }
    if let Some(why) = &tracker.unknown {
        return Err(why.clone());
    }
    if pass.gpu || tracker.gpu_host {
        return Err(
            "a GPU host: coprocessor reservations and exclusions, and the GPUs' \
                    part of the peak FLOPS that sets the priority step, are not recomputed \
                    from the log"
                .into(),
        );
    }
    if pass.prio.is_empty()
        && tracker
            .jobs
            .iter()
            .any(|j| tracker.job_runnable(j) && !tracker.facts.zero_share(&j.project))
    {
        // With every runnable project of zero share, project_priority_init
        // sums no share and prints nothing ([`backup_fractions`]); here one
        // has a share.
        return Err(
            "this pass prints no `[prio]` lines (priority_debug off?): the projects' \
             priorities decide the run list"
                .into(),
        );
    }
    if let Some(task) = tracker
        .tasks
        .iter()
        .find(|t| t.state == TaskState::QuitPending && !tracker.saw_task_states)
    {
        return Err(format!(
            "{} was removed from memory and the log has no `task_state=` lines (task_debug) to \
             tell when its process exited and it became runnable again",
            task.job
        ));
    }
    if let Some(job) = tracker
        .jobs
        .iter()
        .find(|j| j.postponed && tracker.job_runnable(j))
    {
        return Err(format!(
            "{} was postponed (schedule_backoff): when the backoff ends is not printed",
            job.name
        ));
    }
    tracker.ncpus.filter(|&n| n > 0).ok_or_else(|| {
        String::from(
            "the usable CPUs are not told before this pass (no `set_request() for CPU: \
                    ninst N` line)",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use compact_str::CompactString;

    fn flags(names: &[&str]) -> Message {
        Message::LogFlags {
            flags: names.iter().map(|f| CompactString::from(*f)).collect(),
        }
    }

    /// log_flags.cpp `LOG_FLAGS::show` at a start and at a cc_config.xml
    /// reread: one print is its consecutive lines, whatever their seconds;
    /// a start or reread without a print turns every flag off.
    #[test]
    fn log_flag_prints_follow_starts_and_rereads() {
        let start = Message::ClientStart {
            version: crate::trace::ClientVersion {
                major: 7,
                minor: 20,
                release: 5,
            },
            platform: "x86_64-pc-linux-gnu".into(),
            debug: false,
        };
        let mut sets = LogFlagSets::default();
        sets.see(&start);
        sets.see(&Message::DevelopmentVersion);
        sets.see(&flags(&["task", "sched_op_debug"]));
        // The print's next line, in the next second: the same print.
        sets.see(&flags(&["task_debug", "work_fetch_debug"]));
        sets.see(&Message::DevelopmentVersion);
        assert!(sets.on_now("sched_op_debug") && sets.on_now("work_fetch_debug"));
        assert!(sets.continuous("sched_op_debug") && sets.continuous("work_fetch_debug"));
        // A reread that drops work_fetch_debug.
        sets.see(&Message::RereadingConfig {
            file: "cc_config.xml".into(),
        });
        assert!(!sets.on_now("sched_op_debug"), "none on until the print");
        sets.see(&flags(&["task", "sched_op_debug"]));
        assert!(sets.on_now("sched_op_debug") && !sets.on_now("work_fetch_debug"));
        assert!(sets.continuous("sched_op_debug") && !sets.continuous("work_fetch_debug"));
        // A new state file counts from the current print on.
        sets.restart();
        assert!(sets.continuous("sched_op_debug") && !sets.continuous("work_fetch_debug"));
        // A restart that prints no flag: every flag off, none continuous.
        sets.see(&start);
        sets.see(&Message::DevelopmentVersion);
        assert!(!sets.on_now("task") && !sets.continuous("sched_op_debug"));
    }

    /// Digests from Python's hashlib; the real 7.20.5 client of a lab run
    /// started P2_3 before P2_1 (same reply): "1a1c…" sorts before "7f38…".
    fn entry(job: &str, rsc: &str, order: &str, prio: f64) -> RunListEntry {
        RunListEntry {
            job: job.into(),
            rsc: rsc.into(),
            order: order.into(),
            prio,
            prio_slack: 0.0,
        }
    }

    #[test]
    fn a_run_list_is_held_to_its_priority_order() {
        // The real client's pass (cpu_two_projects_unequal_share, 16:55:00).
        let list = vec![
            entry("G", "NVIDIA GPU", "FIFO", -0.5),
            entry("E", "CPU", "EDF", -2.0),
            entry("Alpha_10", "CPU", "FIFO", -0.998893),
            entry("Beta_4", "CPU", "FIFO", -1.003320),
            entry("Alpha_11", "CPU", "FIFO", -1.012782),
            entry("Alpha_12", "CPU", "FIFO", -1.026671),
            entry("Beta_5", "CPU", "FIFO", -1.044987),
        ];
        assert_eq!(priority_order(&list), None);
        // Equal to the printed digit, or within the two roundings: holds.
        let mut tie = list.clone();
        tie[3].prio = -0.998893 + 0.000001;
        assert_eq!(priority_order(&tie), None);
        // Beta_5 taken before Alpha_12: a later job prints a higher priority.
        let mut wrong = list.clone();
        wrong.swap(5, 6);
        let (reordered, reason) = priority_order(&wrong).expect("a violation");
        assert!(
            reason.contains("Beta_5 (prio -1.044987) is taken before Alpha_12"),
            "{reason}"
        );
        let order: Vec<&str> = reordered.iter().map(|e| e.job.as_str()).collect();
        assert_eq!(
            order,
            ["G", "E", "Alpha_10", "Beta_4", "Alpha_11", "Alpha_12", "Beta_5"]
        );
        // Against the lowest earlier priority, not only the one before it.
        let mut far = list.clone();
        far[6].prio = -1.0;
        assert!(priority_order(&far).is_some());
        // EDF entries are outside the rule; each GPU type is a phase of its
        // own (7.3 on), the CPU's another.
        let mut edf = list.clone();
        edf[1].prio = 5.0;
        assert_eq!(priority_order(&edf), None);
        let mut gpus = list.clone();
        gpus.insert(1, entry("G2", "NVIDIA GPU", "FIFO", -0.4));
        let (_, reason) = priority_order(&gpus).expect("a GPU violation");
        assert!(reason.contains("for NVIDIA GPU"), "{reason}");
        let mut two_types = list.clone();
        two_types.insert(1, entry("A1", "AMD/ATI GPU", "FIFO", -0.1));
        assert_eq!(priority_order(&two_types), None);
        // 7.0-7.2 name every GPU `coprocessor`: not held.
        let mut coproc = list;
        coproc[0].rsc = super::super::recorded::COPROCESSOR.into();
        coproc.insert(
            1,
            entry("G2", super::super::recorded::COPROCESSOR, "FIFO", -0.4),
        );
        assert_eq!(priority_order(&coproc), None);
    }

    /// A tracker fed the lines of a 7.20.5 log text (stamps on
    /// 30-Nov-2026 from 10:00:00).
    fn tracked(lines: &[&str]) -> Tracker {
        tracked_with(&JobFacts::default(), lines)
    }

    /// The tracker after `lines` (stamps without their date), on `facts`.
    fn tracked_with(facts: &JobFacts, lines: &[&str]) -> Tracker {
        let text: String = lines.iter().map(|l| format!("30-Nov-2026 {l}\n")).collect();
        let mut tracker = Tracker::with_facts(facts);
        for event in crate::replay::test_events(&text, crate::trace::FileKind::EventLog) {
            tracker.see(&event);
        }
        tracker
    }

    const START: [&str; 3] = [
        "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
        "10:00:00 [---] log flags: file_xfer, sched_ops, task, sched_op_debug",
        "10:00:00 [---] Creating new client state file",
    ];

    fn with_start(lines: &[&'static str]) -> Tracker {
        let all: Vec<&str> = START.iter().chain(lines).copied().collect();
        tracked(&all)
    }

    /// Without task_debug, a reply's new jobs arrive at its completion
    /// line, as the record's reply to that request names them; their files
    /// are bounded by the transfer lines and known in at their task's
    /// start; a job ended without error is ready to report once its
    /// uploads are done and the client's next `update_results` is due.
    #[test]
    fn without_task_debug_the_other_lines_and_the_record_tell_the_jobs() {
        // 10:00:00 UTC on 30-Nov-2026.
        let start = 1_796_032_800.0;
        let facts = JobFacts {
            replies: vec![ReplyJobs {
                project: "P1".into(),
                requested: Some(start + 10.2),
                jobs: vec!["P1_0".into(), "P1_1".into()],
            }],
            input_files: HashMap::from([
                ("P1_0".to_string(), vec!["P1_0.in".to_string()]),
                ("P1_1".to_string(), vec!["P1_1.in".to_string()]),
            ]),
            output_files: HashMap::from([
                ("P1_0".to_string(), vec![]),
                ("P1_1".to_string(), vec!["P1_1_out".to_string()]),
            ]),
            finished: HashMap::from([
                ("P1_0".to_string(), start + 50.0),
                ("P1_1".to_string(), start + 60.0),
            ]),
            ..JobFacts::default()
        };
        let mut lines = vec![
            "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:00:00 [---] log flags: file_xfer, sched_ops, task",
            "10:00:00 [---] Local time is UTC +0 hours",
            "10:00:00 [---] Creating new client state file",
            "10:00:10 [P1] Sending scheduler request: To fetch work.",
            "10:00:12 [P1] Scheduler request completed: got 2 new tasks",
        ];
        let job = |t: &Tracker, name: &str| {
            let view = t.view().expect("the jobs are told");
            view.jobs.into_iter().find(|j| j.name == name).expect(name)
        };
        let t = tracked_with(&facts, &lines);
        let p0 = job(&t, "P1_0");
        // Its files may be in already (kept from another job) ...
        assert!(!p0.nearly_runnable && p0.maybe_nearly_runnable && p0.maybe_downloaded);
        // ... until a download of one of them starts.
        lines.push("10:00:13 [P1] Started download of P1_0.in");
        lines.push("10:00:13 [P1] Started download of P1_1.in");
        let t = tracked_with(&facts, &lines);
        assert!(!job(&t, "P1_0").maybe_downloaded);
        lines.push("10:00:14 [P1] Finished download of P1_0.in");
        let t = tracked_with(&facts, &lines);
        assert!(job(&t, "P1_0").maybe_downloaded);
        assert!(!job(&t, "P1_1").maybe_downloaded);
        lines.push("10:00:15 [P1] Starting task P1_0");
        let t = tracked_with(&facts, &lines);
        let p0 = job(&t, "P1_0");
        assert!(p0.downloaded && p0.nearly_runnable && !p0.maybe_downloaded);
        // Done with no file to upload: ready to report within the step.
        lines.push("10:00:50 [P1] Computation for task P1_0 finished");
        lines.push("10:00:52 [---] choose_project(): 1796032852.000000");
        let t = tracked_with(&facts, &lines);
        assert!(t.unreported.get("P1").is_none_or(Vec::is_empty));
        assert_eq!(t.maybe_ready["P1"][0].0, "P1_0");
        lines.push("10:00:53 [---] choose_project(): 1796032853.000000");
        let t = tracked_with(&facts, &lines);
        assert_eq!(t.unreported["P1"], ["P1_0"]);
        // P1_1 waits for its upload.
        lines.push("10:01:00 [P1] Starting task P1_1");
        lines.push("10:01:40 [P1] Computation for task P1_1 finished");
        lines.push("10:01:50 [---] choose_project(): 1796032910.000000");
        let t = tracked_with(&facts, &lines);
        assert_eq!(t.unreported["P1"], ["P1_0"]);
        lines.push("10:01:51 [P1] Finished upload of P1_1_out");
        lines.push("10:01:54 [---] choose_project(): 1796032914.000000");
        let t = tracked_with(&facts, &lines);
        assert_eq!(t.unreported["P1"], ["P1_0", "P1_1"]);
        // A reply the record does not hold leaves its jobs untold.
        lines.push("10:02:00 [P1] Sending scheduler request: To fetch work.");
        lines.push("10:02:01 [P1] Scheduler request completed: got 1 new tasks");
        let t = tracked_with(&facts, &lines);
        let why = t.view().expect_err("a reply not in the record");
        assert!(why.contains("task_debug") && why.contains("rpcs/"), "{why}");
    }

    /// A cc_config.xml reread counts the CPUs again: its `Config:
    /// simulate N CPUs` line, else the host's `Processor:` count.
    #[test]
    fn a_config_reread_counts_the_cpus_again() {
        let start = [
            "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:00:00 [---] Processor: 4 GenuineIntel Intel(R) Xeon(R)",
            "10:00:00 [---] Config: simulate 2 CPUs",
        ];
        let t = tracked_with(&JobFacts::default(), &start);
        assert_eq!(t.startup_ncpus, Some(2));
        let dropped: Vec<&str> = start
            .iter()
            .copied()
            .chain(["10:05:00 [---] Re-reading cc_config.xml"])
            .collect();
        assert_eq!(
            tracked_with(&JobFacts::default(), &dropped).startup_ncpus,
            Some(4)
        );
        let changed: Vec<&str> = dropped
            .iter()
            .copied()
            .chain(["10:05:00 [---] Config: simulate 3 CPUs"])
            .collect();
        assert_eq!(
            tracked_with(&JobFacts::default(), &changed).startup_ncpus,
            Some(3)
        );
    }

    /// At a log's start on a state file it does not see made, what the
    /// user had suspended (projects, tasks) or set to no new tasks is the
    /// state files' flag, turned back where the log's first line about it
    /// turns it: the start-up block prints neither.
    #[test]
    fn what_the_user_suspended_at_a_logs_start() {
        let start = 1_796_032_800.0;
        let job = |name: &str, suspended: bool| StateJob {
            name: name.into(),
            project: "P1".into(),
            received: Some(start - 100.0),
            completed: None,
            suspended,
        };
        let mut toggles = UserToggles::default();
        // Suspended later in the log: running at the start, though the
        // state file has it suspended.
        toggles.tasks.insert("P1_5".into(), true);
        // Resumed later: suspended at the start.
        toggles.projects.insert("P4".into(), false);
        toggles.work_fetch.insert("P2".into(), true);
        let facts = JobFacts {
            state_jobs: vec![job("P1_5", true), job("P1_6", true)],
            state_projects: HashMap::from([
                ("P2".to_string(), (true, true)),
                ("P3".to_string(), (false, true)),
                ("P4".to_string(), (false, false)),
            ]),
            toggles,
            ..JobFacts::default()
        };
        let t = tracked_with(
            &facts,
            &[
                "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
                "10:00:00 [---] Local time is UTC +0 hours",
                "10:00:00 Initialization completed",
            ],
        );
        let suspended = |name: &str| t.jobs.iter().find(|j| j.name == name).unwrap().suspended;
        assert!(!suspended("P1_5"));
        assert!(suspended("P1_6"));
        let projects: BTreeSet<&str> = t.suspended_projects.iter().map(String::as_str).collect();
        assert_eq!(projects, BTreeSet::from(["P2", "P4"]));
        let nnw: BTreeSet<&str> = t.no_new_tasks.iter().map(String::as_str).collect();
        assert_eq!(nnw, BTreeSet::from(["P3"]));
    }

    /// A 7.20 client restores no RPC deferral and no backoff from its state
    /// file: a log that starts on one tells each project's reasons not to
    /// fetch from its start, with the state files' settings, where they
    /// hold every project. A 7.6.2 client restores the deferral: untold.
    #[test]
    fn a_start_on_a_state_file_tells_the_fetch_flags_where_no_timer_is_restored() {
        let facts = JobFacts {
            state_projects: HashMap::from([
                ("P1".to_string(), (false, true)),
                ("P2".to_string(), (false, false)),
            ]),
            ..JobFacts::default()
        };
        let lines = |version: &'static str, projects: &[&'static str]| {
            let mut lines = vec![
                version,
                "10:00:00 [---] log flags: file_xfer, sched_ops, task, sched_op_debug, work_fetch_debug",
                "10:00:00 [---] Local time is UTC +0 hours",
                "10:00:00 Initialization completed",
            ];
            lines.extend_from_slice(projects);
            lines
        };
        let v7_20 = "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu";
        let both = [
            "10:00:00 [P1] URL http://a/; Computer ID 1; resource share 1",
            "10:00:00 [P2] URL http://b/; Computer ID 2; resource share 1",
        ];
        let flags = tracked_with(&facts, &lines(v7_20, &both)).fetch_flags();
        assert_eq!(flags.untold, None);
        assert_eq!(flags.no_new_tasks, HashSet::from(["P1".to_string()]));
        assert!(flags.rpc_deferral.is_empty() && flags.cpu_backoff.is_empty());
        // A project the state files do not hold.
        let three = [
            both[0],
            both[1],
            "10:00:00 [P3] URL http://c/; Computer ID 3; resource share 1",
        ];
        assert!(tracked_with(&facts, &lines(v7_20, &three))
            .fetch_flags()
            .untold
            .is_some());
        let v7_6 = "10:00:00 [---] Starting BOINC client version 7.6.2 for x86_64-pc-linux-gnu";
        assert!(tracked_with(&facts, &lines(v7_6, &both))
            .fetch_flags()
            .untold
            .is_some());
    }

    /// A log that starts with the client on a state file it does not see
    /// made: the jobs on the host at its start are the state files' that
    /// came before it and the job logs' that finished after it, in the
    /// client's order (client_state.cpp `sort_results`); a gone job no
    /// reply dates leaves the jobs unknown until the log prints its
    /// arrival. The usable CPUs are the start-up preferences'.
    #[test]
    fn a_log_on_an_existing_state_file_starts_with_its_jobs() {
        // 10:00:00 UTC on 30-Nov-2026.
        let start = 1_796_032_800.0;
        let state = |name: &str, received: f64, completed: Option<f64>| StateJob {
            name: name.into(),
            project: "P1".into(),
            received: Some(received),
            completed,
            suspended: false,
        };
        let mut facts = JobFacts {
            state_jobs: vec![
                state("P1_5", start - 100.0, None),
                state("P1_2", start - 300.0, Some(start - 50.0)),
                // Came after the start: its arrival is the log's to tell.
                state("P1_9", start + 30.0, None),
            ],
            finished: HashMap::from([("P1_0".to_string(), start + 20.0)]),
            ..JobFacts::default()
        };
        let lines = [
            "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:00:00 [---] log flags: file_xfer, sched_ops, task, task_debug",
            "10:00:00 [---] Processor: 4 GenuineIntel Intel(R) Xeon(R)",
            "10:00:00 [---] Local time is UTC +0 hours",
            "10:00:00 [---] Preferences:",
            "10:00:00 [---]    max CPUs used: 2",
            "10:00:00 Initialization completed",
        ];
        let run = |facts: &JobFacts| tracked_with(facts, &lines);
        // P1_0 finished after the start and no reply dates it.
        let t = run(&facts);
        let why = t.view().expect_err("P1_0 undated");
        assert!(why.contains("P1_0"), "{why}");
        assert_eq!(t.ncpus, Some(2));
        // With the reply it came in, and its batch-mates', the order is the
        // replies', then the names' digests.
        let reply = |index: usize| ReplyOf {
            index,
            project: "P1".into(),
            requested: Some(start - 1000.0 + index as f64),
            held: false,
        };
        facts.first_reply = HashMap::from([
            ("P1_0".to_string(), reply(0)),
            ("P1_2".to_string(), reply(0)),
            ("P1_5".to_string(), reply(1)),
        ]);
        let t = run(&facts);
        let view = t.view().expect("all dated");
        let mut first = ["P1_0", "P1_2"];
        first.sort_by_key(|n| name_md5(n));
        let names: Vec<&str> = view.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, [first[0], first[1], "P1_5"]);
        // P1_2 was done before the start: ready to report.
        assert!(view.jobs.iter().find(|j| j.name == "P1_2").unwrap().done);
        assert_eq!(t.unreported["P1"], ["P1_2"]);
        // A gone job whose reply came after the start arrives in the log.
        let mut later = facts.clone();
        later.first_reply.insert(
            "P1_0".to_string(),
            ReplyOf {
                index: 2,
                project: "P1".into(),
                requested: Some(start + 10.0),
                held: false,
            },
        );
        let t = run(&later);
        let view = t.view().unwrap();
        let names: Vec<&str> = view.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["P1_2", "P1_5"]);
        // Computed before the start (its job log) but not yet reported:
        // done, not on the list to report.
        let mut uploading = facts.clone();
        uploading.state_jobs[0].completed = None;
        uploading.finished.insert("P1_5".to_string(), start - 10.0);
        let t = run(&uploading);
        assert!(
            t.view()
                .unwrap()
                .jobs
                .iter()
                .find(|j| j.name == "P1_5")
                .unwrap()
                .done
        );
        assert_eq!(t.unreported["P1"], ["P1_2"]);
        // The usable CPUs of a 7.22 block are not read this way.
        let lines_22: Vec<String> = lines
            .iter()
            .map(|l| l.replace("7.20.5", "7.22.2"))
            .collect();
        let t22 = tracked_with(
            &facts,
            &lines_22.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert_eq!(t22.ncpus, None);
        // On a state file the log sees made, nothing is taken from them.
        let mut fresh = lines.to_vec();
        fresh.insert(2, "10:00:00 [---] Creating new client state file");
        assert!(tracked_with(&facts, &fresh).jobs.is_empty());
    }

    /// The lines that set and clear a project's reasons not to fetch work
    /// (project.cpp set_min_rpc_time, client_state.cpp reset_project and
    /// clear_absolute_times, gui_rpc_server_ops.cpp, scheduler_op.cpp).
    #[test]
    fn fetch_reasons_follow_the_lines() {
        let t = with_start(&[
            "10:00:10 [P1] [sched_op] Deferring communication for 00:01:21",
            "10:00:10 [P2] [sched_op] Deferring communication for 00:00:30",
            "10:00:11 [P3] work fetch suspended by user",
        ]);
        let flags = t.fetch_flags();
        assert_eq!(flags.untold, None);
        let ten = flags.rpc_deferral["P2"].clone();
        let RpcDeferral::Until(p1) = flags.rpc_deferral["P1"] else {
            panic!("{flags:?}")
        };
        assert_eq!(ten, RpcDeferral::Until(p1 - 81.0 + 30.0));
        assert!(flags.no_new_tasks.contains("P3"));

        // A reset clears one deferral; a master file read after a
        // deferral leaves it unknown; an update or a completed request
        // clears it.
        let t = with_start(&[
            "10:00:10 [P1] [sched_op] Deferring communication for 00:01:21",
            "10:00:10 [P2] [sched_op] Deferring communication for 00:00:30",
            "10:00:12 [P1] Resetting project",
            "10:00:13 [P2] Master file download succeeded",
        ]);
        let flags = t.fetch_flags();
        assert_eq!(flags.rpc_deferral["P1"], RpcDeferral::Cleared);
        assert!(matches!(flags.rpc_deferral["P2"], RpcDeferral::Unknown(_)));
        let t = with_start(&[
            "10:00:10 [P2] [sched_op] Deferring communication for 00:00:30",
            "10:00:13 [P2] update requested by user",
        ]);
        assert_eq!(t.fetch_flags().rpc_deferral["P2"], RpcDeferral::Cleared);

        // The clock set back clears every deferral.
        let t = with_start(&[
            "10:00:10 [P1] [sched_op] Deferring communication for 00:01:21",
            "10:00:14 [---] New system time (1795611000) < old system time (1795611100); clearing timeouts",
        ]);
        assert!(t.fetch_flags().rpc_deferral.is_empty());

        // Detach when done sets no new tasks, and clears it.
        let t = with_start(&["10:00:15 [P1] detach when done set by user"]);
        assert!(t.fetch_flags().no_new_tasks.contains("P1"));
        let t = with_start(&[
            "10:00:15 [P1] detach when done set by user",
            "10:00:16 [P1] detach when done cleared by user",
        ]);
        assert!(t.fetch_flags().no_new_tasks.is_empty());

        // A new state file (a client started afresh, no jobs before it)
        // starts every project on its defaults.
        let t = with_start(&[
            "10:00:10 [P1] [sched_op] Deferring communication for 00:01:21",
            "10:00:11 [P3] work fetch suspended by user",
            "10:00:20 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:00:20 [---] Creating new client state file",
        ]);
        let flags = t.fetch_flags();
        assert!(flags.no_new_tasks.is_empty() && flags.rpc_deferral.is_empty());
    }

    /// Where the record does not tell the reasons, they are "not told",
    /// with why.
    #[test]
    fn untold_fetch_reasons_say_why() {
        let no_state_file = tracked(&[
            "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:00:00 [---] log flags: file_xfer, sched_ops, task, sched_op_debug",
        ]);
        let why = no_state_file.fetch_flags().untold.expect("untold");
        assert!(why.contains("state file"), "{why}");
        let no_sched_op = tracked(&[
            "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:00:00 [---] Creating new client state file",
        ]);
        let why = no_sched_op.fetch_flags().untold.expect("untold");
        assert!(why.contains("sched_op_debug"), "{why}");
        let acct_mgr = with_start(&[
            "10:00:05 [---] Contacting account manager at https://bam.example.org/",
            "10:00:06 [---] Account manager contact succeeded",
        ]);
        let why = acct_mgr.fetch_flags().untold.expect("untold");
        assert!(why.contains("account manager"), "{why}");
    }

    /// The peak-FLOPS total is computed at a process's first work fetch, on
    /// the CPUs then: a change before it counts, one after it does not; a
    /// restart computes it anew.
    #[test]
    fn the_peak_count_is_that_of_the_first_work_fetch() {
        let fixed_at = |t: &Tracker| match t.peak {
            PeakCount::Fixed { ncpus, at } => Some((ncpus, at.rem_euclid(86_400.0))),
            _ => None,
        };
        let ten = 10.0 * 3600.0;
        // A change before any work fetch: the block fixes the new count.
        let t = with_start(&[
            "10:00:01 [---] Number of usable CPUs has changed from 4 to 2.",
            "10:00:05 [---] [work_fetch] ------- start work fetch state -------",
            "10:00:30 [---] Number of usable CPUs has changed from 2 to 1.",
        ]);
        assert_eq!(fixed_at(&t), Some((2, ten + 5.0)));
        // A block before any count is told: pending, then the count it
        // changed from, or the work request's.
        let t = with_start(&["10:00:05 [---] [work_fetch] ------- start work fetch state -------"]);
        assert!(matches!(t.peak, PeakCount::Pending { .. }));
        let t = with_start(&[
            "10:00:05 [---] [work_fetch] ------- start work fetch state -------",
            "10:00:30 [---] Number of usable CPUs has changed from 4 to 2.",
        ]);
        assert_eq!(fixed_at(&t), Some((4, ten + 5.0)));
        let t = with_start(&[
            "10:00:05 [---] [work_fetch] ------- start work fetch state -------",
            "10:00:05 [P1] [work_fetch] set_request() for CPU: ninst 3 nused_total 0.00 nidle_now 3.00 fetch share 1.00 req_inst 3.00 req_secs 705.60",
        ]);
        assert_eq!(fixed_at(&t), Some((3, ten + 5.0)));
        // A restart computes it anew, on that process's count.
        let t = with_start(&[
            "10:00:05 [---] [work_fetch] ------- start work fetch state -------",
            "10:00:30 [---] Number of usable CPUs has changed from 4 to 2.",
            "10:01:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:01:05 [---] [work_fetch] ------- start work fetch state -------",
            "10:01:05 [P1] [work_fetch] set_request() for CPU: ninst 2 nused_total 0.00 nidle_now 2.00 fetch share 1.00 req_inst 2.00 req_secs 705.60",
        ]);
        assert_eq!(fixed_at(&t), Some((2, ten + 65.0)));
        // A change before the first work fetch, with a runnable job and
        // cpu_sched_debug off: a silent scheduling pass may have fixed it.
        let t = with_start(&[
            "10:00:04 [P1] [task] result state=NEW for P1_1 from handle_scheduler_reply",
            "10:00:05 [P1] [task] result state=FILES_DOWNLOADED for P1_1 from CS::update_results",
            "10:00:30 [---] Number of usable CPUs has changed from 4 to 2.",
        ]);
        assert!(matches!(t.peak, PeakCount::Unknown(_)), "{:?}", t.peak);
        // A benchmark after it is noted.
        let t = with_start(&[
            "10:00:05 [---] [work_fetch] ------- start work fetch state -------",
            "10:00:40 [---] Benchmark results:",
        ]);
        assert!(t.benchmark_since_peak);
    }

    /// A project's CPU backoff: 600 s the first time since a clear, doubled
    /// at each next; cleared by a reply with new jobs, an upload done, a
    /// reset; unknown where an upload ends without task_debug.
    #[test]
    fn cpu_backoffs_follow_the_lines() {
        let backoff = |lines: &[&'static str]| {
            with_start(lines)
                .fetch_flags()
                .cpu_backoff
                .get("P4")
                .cloned()
                .unwrap_or_default()
        };
        let once = backoff(&["10:00:39 [P4] [work_fetch] backing off CPU 879 sec"]);
        assert_eq!(once.interval, Some(600.0));
        let RpcDeferral::Until(end) = once.until else {
            panic!("{once:?}")
        };
        assert_eq!(end.rem_euclid(86_400.0), 10.0 * 3600.0 + 39.0 + 878.5);
        let twice = backoff(&[
            "10:00:39 [P4] [work_fetch] backing off CPU 879 sec",
            "10:20:00 [P4] [work_fetch] backing off CPU 1500 sec",
        ]);
        assert_eq!(twice.interval, Some(1200.0));
        for clear in [
            "10:05:00 [P4] Scheduler request completed: got 2 new tasks",
            "10:05:00 [P4] [task] result state=FILES_UPLOADED for P4_0 from CS::update_results",
            "10:05:00 [P4] Resetting project",
            "10:05:00 [P4] Sending scheduler request: Requested by user.",
            "10:05:00 [---] New system time (1795611000) < old system time (1795611100); clearing timeouts",
            // A 7.x client restarted restores no resource backoff.
            "10:05:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
        ] {
            let cleared = backoff(&["10:00:39 [P4] [work_fetch] backing off CPU 879 sec", clear]);
            assert_eq!(cleared, RscBackoff::default(), "{clear}");
        }
        // The user's update: unknown until its RPC starts.
        let asked = backoff(&[
            "10:00:39 [P4] [work_fetch] backing off CPU 879 sec",
            "10:05:00 [P4] update requested by user",
        ]);
        assert!(matches!(asked.until, RpcDeferral::Unknown(_)));
        // Where task_debug prints each new job, the reply's count (which
        // holds jobs the client had) does not clear it.
        let t = tracked(&[
            "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:00:00 [---] log flags: task_debug, sched_op_debug, work_fetch_debug",
            "10:00:00 [---] Creating new client state file",
            "10:00:39 [P4] [work_fetch] backing off CPU 879 sec",
            "10:05:00 [P4] Scheduler request completed: got 2 new tasks",
        ]);
        assert!(matches!(t.cpu_backoff["P4"].until, RpcDeferral::Until(_)));
        assert_eq!(t.fetch_flags().cpu_backoff_untold, None);
        // work_fetch_debug off in a later print: not all told.
        let t = tracked(&[
            "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:00:00 [---] log flags: task_debug, sched_op_debug, work_fetch_debug",
            "10:00:00 [---] Creating new client state file",
            "10:03:00 [---] Re-reading cc_config.xml",
            "10:03:00 [---] log flags: task_debug, sched_op_debug",
            "10:04:00 [---] Re-reading cc_config.xml",
            "10:04:00 [---] log flags: task_debug, sched_op_debug, work_fetch_debug",
        ]);
        assert!(t.fetch_flags().cpu_backoff_untold.is_some());
        // Without task_debug, an upload's end leaves it unknown.
        let mut lines = vec![
            "10:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu",
            "10:00:00 [---] log flags: file_xfer, sched_ops, task, sched_op_debug",
            "10:00:00 [---] Creating new client state file",
            "10:00:39 [P4] [work_fetch] backing off CPU 879 sec",
            "10:01:00 [P4] Finished upload of P4_0_r0",
        ];
        let t = tracked(&lines);
        assert!(matches!(t.cpu_backoff["P4"].until, RpcDeferral::Unknown(_)));
        assert_eq!(t.cpu_backoff["P4"].interval, None);
        lines[1] = "10:00:00 [---] log flags: task_debug, sched_op_debug";
        let t = tracked(&lines);
        assert!(matches!(t.cpu_backoff["P4"].until, RpcDeferral::Until(_)));
    }

    /// The host's FLOPS per CPU over a moment: those of the last benchmark
    /// before it, unknown where one falls within it.
    #[test]
    fn fpops_in_force_over_a_moment() {
        let facts = JobFacts {
            host_fpops: vec![(100.0, 2e9), (200.0, 3e9)],
            ..JobFacts::default()
        };
        assert_eq!(facts.p_fpops_during(150.0, 151.0), Ok(2e9));
        assert_eq!(facts.p_fpops_during(250.0, 251.0), Ok(3e9));
        assert!(facts.p_fpops_during(199.5, 200.5).is_err());
        assert!(facts.p_fpops_during(50.0, 51.0).is_err());
        assert!(JobFacts::default().p_fpops_during(50.0, 51.0).is_err());
    }

    /// A suspended task no longer holds its project's work fetch once the
    /// server acknowledged it.
    #[test]
    fn an_acknowledged_suspended_task_no_longer_holds_work_fetch() {
        let lines = [
            "10:00:04 [P1] [task] result state=NEW for P1_1 from handle_scheduler_reply",
            "10:00:05 [P1] [task] result state=FILES_DOWNLOADED for P1_1 from CS::update_results",
            "10:00:06 [P1] task P1_1 suspended by user",
            "10:00:07 [P1] task P1_1 aborted by user",
        ];
        let t = with_start(&lines);
        assert!(t.fetch_flags().suspended_jobs.contains("P1"));
        let mut acked: Vec<&str> = lines.to_vec();
        acked.push("10:00:30 [P1] [sched_op] handle_scheduler_reply(): got ack for task P1_1");
        let t = with_start(&acked);
        assert!(t.fetch_flags().suspended_jobs.is_empty());
    }

    #[test]
    fn jobs_of_one_reply_sort_by_name_md5() {
        assert_eq!(name_md5("P2_1"), "7f385001a8c840d5673142e301a28c00");
        assert_eq!(name_md5("P2_3"), "1a1c493942db3df5f908394ef4fe5fb6");
        assert!((1, name_md5("P2_3")) < (1, name_md5("P2_1")));
    }
}

//! `simulate --log-out FILE`: the run written as the client emulator's
//! log.txt (client/sim.cpp, `sim_util.cpp show_message`), line for line, for
//! the scenario's log flags.
//!
//! ```text
//!  ClientLoop ──LoopEvent──▶ LogWriter ──▶ "<time> [<project>|---] <message>"
//! ```
//!
//! Every line is the client's own message (its function is named beside
//! each writer below), printed from the engine's outcomes and notes
//! ([`RrSimNote`], [`RunNote`], [`ScanNote`], [`CoprocNote`],
//! [`LoopNote`]); the writer decides nothing. The start-up block comes from
//! the scenario's inputs ([`LogHeader`]).

use crate::client_loop::{Availability, LoopEvent, LoopNote, Observer, TaskAction};
use crate::policy::coproc_sched::CoprocNote;
use crate::policy::cpu_sched::{
    EnforceAction, EnforceOutcome, RunListEntry, RunListOutcome, RunListPhase, RunNote, SkipReason,
};
use crate::policy::profile::Release;
use crate::policy::rec::{PriorityInit, RecAdjustment};
use crate::policy::rr_sim::{RrSimNote, RrSimOutcome};
use crate::policy::state::{HostState, JobIdx, ProjectIdx, RscIdx};
use crate::policy::work_fetch::{ProjectReason, ScanNote, WorkFetchOutcome, WorkFetchState};
use crate::policy::Params;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

/// FLOPs are printed in units of 1e9.
const GIGA: f64 = 1e9;
/// Memory is printed in units of 2^30 bytes (BOINC's `GIGA`).
const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// What the emulator prints before its first step, from the scenario's
/// inputs.
#[derive(Clone, Debug, Default)]
pub struct LogHeader {
    /// cc_config.xml's `<log_flags>` (name → on).
    pub log_flags: BTreeMap<String, bool>,
    /// The host's GPUs: (type, count), in state order.
    pub config_coprocs: Vec<(String, usize)>,
    /// Projects with an app_config.xml, by name.
    pub app_config_projects: Vec<String>,
    /// Master URL per project name.
    pub urls: BTreeMap<String, String>,
    /// The prefs' CPU-load suspension threshold (%), in use / not in use.
    pub suspend_cpu_usage: (f64, f64),
    /// Minutes of input that mean "in use".
    pub idle_time_to_run: f64,
    /// CC_CONFIG::show()'s GPU exclusions, in cc_config order: (project,
    /// type, app, device), each "all" when not given. Every entry whose URL
    /// names a project of the state file, culled projects included (the
    /// emulator culls after showing the configuration).
    pub exclusions: Vec<(String, String, String, String)>,
    /// `marking JOB as coproc missing` (process_gpu_exclusions()), as
    /// (project, job) in the client's order, culled projects included
    /// ([`crate::replay::build::BuildNotes::coproc_missing_marks`]).
    pub coproc_missing_marks: Vec<(String, String)>,
    /// `Missing coprocessor for task JOB` (init_result_resource_usage()).
    pub missing_coproc_tasks: Vec<(String, String)>,
    /// A global_prefs_override.xml was among the inputs: read_global_prefs()
    /// says so between the web preferences' lines and the preferences it
    /// prints.
    pub prefs_override: bool,
}

impl LogHeader {
    /// The header of an emulator scenario read as a trace, for its state.
    pub fn from_trace(trace: &crate::trace::Trace, state: &HostState) -> Self {
        let config = trace.state.cc_config.as_ref();
        // LOG_FLAGS::init(): these three are on unless the file says not.
        let mut log_flags: BTreeMap<String, bool> = ["file_xfer", "sched_ops", "task"]
            .iter()
            .map(|name| (name.to_string(), true))
            .collect();
        if let Some(c) = config {
            log_flags.extend(c.log_flags.clone());
        }
        if let Some(file) = &trace.state.log_flags {
            log_flags.extend(file.log_flags.clone());
        }
        // The emulator announces the host's GPUs as if cc_config.xml had
        // declared them.
        let config_coprocs = state
            .host
            .coprocs
            .iter()
            .map(|cp| (cp.rsc_type.type_name().to_string(), cp.count))
            .collect();
        let dirs: Vec<&str> = trace
            .state
            .app_configs
            .iter()
            .filter_map(|c| c.project_dir.as_deref())
            .collect();
        let app_config_projects = state
            .projects
            .iter()
            .filter(|p| {
                let escaped = crate::trace::state::escaped_master_url(&p.url);
                dirs.contains(&escaped.as_str())
            })
            .map(|p| p.name.to_string())
            .collect();
        let urls = state
            .projects
            .iter()
            .map(|p| (p.name.to_string(), p.url.to_string()))
            .collect();
        let recorded = trace.state.client_states.first();
        let exclusions = config
            .map(|c| c.options.exclude_gpus.as_slice())
            .unwrap_or_default()
            .iter()
            .filter_map(|e| {
                let key = crate::replay::build::url_key(e.url.as_deref()?);
                let project = recorded?.projects.iter().find(|p| {
                    p.master_url
                        .as_deref()
                        .is_some_and(|u| crate::replay::build::url_key(u) == key)
                })?;
                let all = || "all".to_string();
                Some((
                    project.project_name.clone()?,
                    e.rsc
                        .as_ref()
                        .map_or_else(all, |r| r.type_name().to_string()),
                    e.app.clone().unwrap_or_else(all),
                    e.device_num
                        .filter(|d| *d >= 0)
                        .map_or_else(all, |d| d.to_string()),
                ))
            })
            .collect();
        LogHeader {
            log_flags,
            config_coprocs,
            app_config_projects,
            urls,
            exclusions,
            coproc_missing_marks: Vec::new(),
            missing_coproc_tasks: Vec::new(),
            prefs_override: trace.state.global_prefs_override.is_some(),
            suspend_cpu_usage: (25.0, 25.0),
            idle_time_to_run: 3.0,
        }
    }
}

/// How a release words the messages that changed since 7.x, each with the
/// commit and first release of the change (found with `git log -S` and
/// `git tag --contains` on BOINC's history).
#[derive(Clone, Copy, Debug)]
struct Wording {
    /// `print_job_list` shows the job's resources (f0685c4e3d, 7.24.0).
    job_list_resources: bool,
    /// choose_project() opens with `choose_project(): NOW` (gone in
    /// ec78ce84d8, 8.0.0).
    choose_project_time: bool,
    /// print_global_prefs says "Computing prefs"/"Computing preferences"
    /// (10f1d47a51, back-ported to 8.0.4; checked at the 8.0.x tags);
    /// before, "General prefs"/"Preferences".
    computing_prefs: bool,
    /// make_run_list() prints `make_run_list(): start`/`end` (183517e42d,
    /// 8.2.14); before, `schedule_cpus(): start` only.
    make_run_list_markers: bool,
    /// piggyback's scan lines carry no project (cbe058ee89, 8.2.14).
    piggyback_untagged: bool,
    /// Idle CPUs: the work-fetch request, then `using only N out of M
    /// CPUs` (f0685c4e3d, 7.24.0); before, `using N out of M CPUs` first.
    using_only: bool,
    /// The emulator's removal from memory says `request_quit`
    /// (aaded253ce, 8.2.9); before, `request_exit`.
    request_quit: bool,
    /// rr_sim prints `pick_jobs_to_run() start`/`end`, `[rr_sim] end`, the
    /// time of a max-concurrent limit, `next job to finish` and `taking
    /// time-slice step` (4bdef6e2a4, 7.20.0); before, none of the first
    /// three, `rpbest: JOB (finish delay T)` and `time-slice step`.
    rr_sim_7_20: bool,
    /// 7.0–7.2 (client/*.cpp at client_release/7.2/7.2.42): resources by
    /// their short names (`NVIDIA`), `schedule_cpus()`'s `scheduling JOB
    /// (KIND) (prio P)` picks, `enforce_schedule()` with each task's
    /// `sched state` line, `fetch share` lines with the dont_fetch flags, a
    /// simulation at every call without `doing sim` lines, every pick of
    /// the simulation printed without its FLOPs, no choose_project() scan
    /// lines, no app_config or GPU announcement at start-up, memory in
    /// `MB` without a space.
    v7_2: bool,
    /// The emulator reads the projects' app_config.xml and says so
    /// (`Found app_config.xml`, then show_app_config()'s limits): client/sim.cpp
    /// calls check_app_config from 4a7bb390af on (first tag 7.16.1).
    app_config: bool,
    /// Memory in ` MB`, with a space (8008b32bd7, 7.8.0); before, `MB`.
    mb_spaced: bool,
    /// Run-list lines name a job's kind only as `CPU job` or `coprocessor
    /// job`, with `EDF`, `FIFO` or `priority order` (7.4.0-7.6.7; 7.6.8
    /// names the GPU type, 0f2adb5ab7).
    coarse_run_list: bool,
    /// choose_project() and piggyback_work_request() print their scan
    /// (`choose_project(): NOW`, `scanning`, `piggyback: …`): 40f0cb44f4,
    /// first tag 7.16.1; before, those lines were compiled out (WF_DEBUG)
    /// and only set_request() printed.
    wf_scan: bool,
    /// WORK_FETCH::setup sorts the project list itself before it prints
    /// the state block (7.0-7.4; ef22b2bd4b, 7.5.0, sorts a copy).
    state_in_priority_order: bool,
    /// The start-up names a configured coprocessor `Type KIND (GPU); count
    /// N` (8adcd872f6, 7.5.0); before, `type KIND count N`.
    coproc_kind_said: bool,
    /// print_global_prefs shows every preference, in use and not
    /// (d8e6d4e115, 7.22.0); before, the memory limits and the CPU-load
    /// limit only.
    prefs_detailed: bool,
}

impl Wording {
    fn of(release: Option<Release>) -> Self {
        let at_least = |r: Release| release.is_none_or(|x| x >= r);
        Wording {
            job_list_resources: at_least(Release(7, 24, 0)),
            choose_project_time: !at_least(Release(8, 0, 0)),
            computing_prefs: at_least(Release(8, 0, 4)),
            make_run_list_markers: at_least(Release(8, 2, 14)),
            piggyback_untagged: at_least(Release(8, 2, 14)),
            using_only: at_least(Release(7, 24, 0)),
            request_quit: at_least(Release(8, 2, 9)),
            rr_sim_7_20: at_least(Release(7, 20, 0)),
            v7_2: !at_least(Release(7, 3, 0)),
            app_config: at_least(Release(7, 16, 1)),
            mb_spaced: at_least(Release(7, 8, 0)),
            coarse_run_list: !at_least(Release(7, 6, 8)),
            wf_scan: at_least(Release(7, 16, 1)),
            state_in_priority_order: !at_least(Release(7, 5, 0)),
            coproc_kind_said: at_least(Release(7, 5, 0)),
            prefs_detailed: at_least(Release(7, 22, 0)),
        }
    }
}

/// A run-list pick's kind as 7.0-7.6.7 print it (PROC_RESOURCES::schedule's
/// description): CPU or coprocessor, EDF or not.
fn coarse_kind(rsc: usize, edf: bool) -> &'static str {
    match (rsc != 0, edf) {
        (true, true) => "coprocessor job, EDF",
        (true, false) => "coprocessor job, FIFO",
        (false, true) => "CPU job, EDF",
        (false, false) => "CPU job, priority order",
    }
}

/// The log flags the emulator's messages depend on.
#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    task: bool,
    task_debug: bool,
    cpu_sched: bool,
    cpu_sched_debug: bool,
    cpu_sched_status: bool,
    work_fetch_debug: bool,
    rr_simulation: bool,
    rrsim_detail: bool,
    priority_debug: bool,
    sched_op_debug: bool,
    coproc_debug: bool,
}

/// The order LOG_FLAGS::show() prints the flags in (client/log_flags.cpp);
/// `rrsim_detail` is not shown.
const SHOWN_FLAGS: &[&str] = &[
    "file_xfer",
    "sched_ops",
    "task",
    "app_msg_receive",
    "app_msg_send",
    "async_file_debug",
    "benchmark_debug",
    "checkpoint_debug",
    "coproc_debug",
    "cpu_sched",
    "cpu_sched_debug",
    "cpu_sched_status",
    "dcf_debug",
    "file_xfer_debug",
    "gui_rpc_debug",
    "heartbeat_debug",
    "http_debug",
    "http_xfer_debug",
    "idle_detection_debug",
    "mem_usage_debug",
    "network_status_debug",
    "notice_debug",
    "poll_debug",
    "priority_debug",
    "proxy_debug",
    "rr_simulation",
    "sched_op_debug",
    "scrsave_debug",
    "slot_debug",
    "sporadic_debug",
    "state_debug",
    "statefile_debug",
    "task_debug",
    "time_debug",
    "unparsed_xml",
    "work_fetch_debug",
];

/// Writes the emulator's log as the loop runs. I/O errors are kept and
/// returned by [`LogWriter::finish`].
pub struct LogWriter<W: Write> {
    out: W,
    /// Where the timeline's availability rows go, if anywhere.
    timeline: Option<W>,
    flags: Flags,
    wording: Wording,
    params: Params,
    /// `rr_simulation()`'s `last_time`: a second simulation at the same
    /// time prints "already did at this time".
    last_sim: f64,
    error: Option<io::Error>,
    line: String,
    /// The last run list, for the next enforcement's preliminary list.
    pending_run_list: Vec<(JobIdx, bool, bool)>,
    /// The project of the piggyback pass being written.
    piggyback_project: Option<ProjectIdx>,
    /// The host's GPU types, for the timeline's columns.
    gpu_names: Vec<String>,
    /// 7.0–7.2: each task's (scheduler state, task state) as the last
    /// enforcement left them, by job name (`sched state` lines).
    task_states: BTreeMap<String, (u8, u8)>,
}

/// `sim_time_string()` of client/sim_util.cpp.
pub fn sim_time(now: f64) -> String {
    let mut t = now as i64;
    let mut prefix = String::new();
    if t > 86400 {
        let n = t / 86400;
        t %= 86400;
        prefix = if n == 1 {
            "1 day ".to_string()
        } else {
            format!("{n} days ")
        };
    }
    format!(
        "{prefix}{:02}:{:02}:{:02}",
        t / 3600,
        (t % 3600) / 60,
        t % 60
    )
}

/// `timediff_format()` of lib/str_util.cpp.
fn timediff(diff: f64) -> String {
    let mut t = diff as i64;
    let secs = t % 60;
    t /= 60;
    if t == 0 {
        return format!("00:00:{secs:02}");
    }
    let mins = t % 60;
    t /= 60;
    if t == 0 {
        return format!("00:{mins:02}:{secs:02}");
    }
    let hours = t % 24;
    t /= 24;
    if t == 0 {
        return format!("{hours:02}:{mins:02}:{secs:02}");
    }
    format!("{t} days {hours:02}:{mins:02}:{secs:02}")
}

impl<W: Write> LogWriter<W> {
    /// A writer for a run with these parameters and log flags, worded as
    /// `release` (`None` = today's client).
    pub fn new(
        out: W,
        timeline: Option<W>,
        header: &LogHeader,
        params: &Params,
        release: Option<Release>,
    ) -> Self {
        let on = |name: &str| header.log_flags.get(name).copied().unwrap_or(false);
        let flags = Flags {
            task: on("task"),
            task_debug: on("task_debug"),
            cpu_sched: on("cpu_sched"),
            cpu_sched_debug: on("cpu_sched_debug"),
            cpu_sched_status: on("cpu_sched_status"),
            work_fetch_debug: on("work_fetch_debug"),
            rr_simulation: on("rr_simulation"),
            rrsim_detail: on("rrsim_detail"),
            priority_debug: on("priority_debug"),
            sched_op_debug: on("sched_op_debug"),
            coproc_debug: on("coproc_debug"),
        };
        let mut writer = LogWriter {
            out,
            timeline: None,
            flags,
            wording: Wording::of(release),
            params: params.clone(),
            last_sim: f64::NAN,
            error: None,
            line: String::new(),
            pending_run_list: Vec::new(),
            piggyback_project: None,
            gpu_names: Vec::new(),
            task_states: BTreeMap::new(),
        };
        if let Some(mut timeline) = timeline {
            let head = "<head><style> body, td, th { font-family: Verdana; font-size: 12px;} \
                th {white-space: nowrap;}</style></head>\n\
                <h2>BOINC client emulator results</h2>\n\
                <table border=1 cellpadding=4>\n";
            if let Err(e) = timeline.write_all(head.as_bytes()) {
                writer.error = Some(e);
            }
            writer.timeline = Some(timeline);
        }
        writer
    }

    /// The first I/O error, if any; flushes.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(timeline) = self.timeline.as_mut() {
            timeline.write_all(b"</table>\n")?;
            timeline.flush()?;
        }
        self.out.flush()
    }

    /// html_rec()'s availability part (client/sim.cpp): a step the host
    /// was not active is "BOINC not running"; an active step's GPU columns
    /// say "GPUs disabled" when GPUs were off. Job columns are not written.
    fn timeline_row(&mut self, now: f64, availability: Availability) {
        let Some(timeline) = self.timeline.as_mut() else {
            return;
        };
        let time = sim_time(now);
        let mut row = String::new();
        if !availability.active {
            let _ = write!(
                row,
                "<tr>    <td valign=top>{time}</td>    <td colspan=99 valign=top bgcolor=#aaaaaa>BOINC not running</td></tr>"
            );
        } else {
            let _ = write!(row, "<tr>   <td valign=top>{time}</td>   <th>CPU</th>");
            for name in &self.gpu_names {
                let _ = writeln!(row, "<th>{name}</th>");
            }
            row.push_str("</tr>\n<tr><td> </td>\n<td></td>");
            for _ in &self.gpu_names {
                row.push_str(if availability.gpu_active {
                    "<td></td>"
                } else {
                    "<td valign=top bgcolor=#aaaaaa>GPUs disabled</td>"
                });
            }
            row.push_str("</tr>\n");
        }
        if let Err(e) = timeline.write_all(row.as_bytes()) {
            self.error.get_or_insert(e);
        }
    }

    /// One line: `<time> [<project>|---] <message>`.
    fn emit(&mut self, now: f64, project: Option<&str>, message: &str) {
        if self.error.is_some() {
            return;
        }
        self.line.clear();
        let _ = write!(
            self.line,
            "{} [{}] {}",
            sim_time(now),
            project.unwrap_or("---"),
            message.trim_end_matches('\n')
        );
        self.line.push('\n');
        if let Err(e) = self.out.write_all(self.line.as_bytes()) {
            self.error = Some(e);
        }
    }

    fn project_line(&mut self, now: f64, state: &HostState, p: ProjectIdx, message: &str) {
        let name = state.projects.get(p).map(|x| x.name.to_string());
        self.emit(now, Some(name.as_deref().unwrap_or("---")), message);
    }

    fn job_line(&mut self, now: f64, state: &HostState, j: JobIdx, message: &str) {
        let p = state.jobs.get(j).map_or(usize::MAX, |job| job.project);
        self.project_line(now, state, p, message);
    }

    /// The start-up block (client/sim.cpp do_client_simulation up to the
    /// first step).
    pub fn header(&mut self, state: &HostState, header: &LogHeader) {
        let now = 0.0;
        self.gpu_names = (1..state.n_rsc())
            .map(|r| state.rsc_type(r).long_name().to_string())
            .collect();
        let v7_2 = self.wording.v7_2;
        for (kind, count) in header.config_coprocs.iter().filter(|_| !v7_2) {
            let message = if self.wording.coproc_kind_said {
                format!("Coprocessor specified in cc_config.xml. Type {kind} (GPU); count {count}")
            } else {
                format!("Coprocessor specified in cc_config.xml: type {kind} count {count}")
            };
            self.emit(now, None, &message);
        }
        let app_config = self.wording.app_config;
        for project in state.projects.iter().filter(|_| app_config) {
            if header
                .app_config_projects
                .iter()
                .any(|n| n == project.name.as_str())
            {
                self.emit(now, Some(&project.name), "Found app_config.xml");
            }
        }
        // show_app_config(): project limits, then app limits.
        for project in state.projects.iter().filter(|_| app_config) {
            if let Some(n) = project.project_max_concurrent.filter(|&n| n > 0) {
                self.emit(
                    now,
                    Some(&project.name),
                    &format!("Max {n} concurrent jobs"),
                );
            }
        }
        for project in state.projects.iter().filter(|_| app_config) {
            for app in &project.apps {
                if let Some(n) = app.max_concurrent.filter(|&n| n > 0) {
                    self.emit(
                        now,
                        Some(&project.name),
                        &format!("{}: Max {n} concurrent jobs", app.name),
                    );
                }
            }
        }
        // CC_CONFIG::show(): each GPU exclusion of a known project
        // (client/log_flags.cpp show_exclude_gpu).
        for (project, kind, app, device) in &header.exclusions {
            self.emit(
                now,
                Some(project),
                &format!("Config: excluded GPU.  Type: {kind}.  App: {app}.  Device: {device}"),
            );
        }
        // LOG_FLAGS::show(): flushed once the list passes 60 characters.
        let mut buf = String::new();
        for name in SHOWN_FLAGS {
            if !header.log_flags.get(*name).copied().unwrap_or(false) {
                continue;
            }
            if buf.is_empty() {
                buf.push_str(name);
                continue;
            }
            buf.push_str(", ");
            buf.push_str(name);
            if buf.len() > 60 {
                self.emit(now, None, &format!("log flags: {buf}"));
                buf.clear();
            }
        }
        if !buf.is_empty() {
            self.emit(now, None, &format!("log flags: {buf}"));
        }
        self.prefs(state, header);
        if self.flags.cpu_sched_debug {
            self.emit(
                now,
                None,
                "[cpu_sched_debug] Request CPU reschedule: Prefs update",
            );
        }
        if self.flags.work_fetch_debug {
            self.emit(now, None, "[work_fetch] Request work fetch: Prefs update");
        }
        // process_gpu_exclusions(): the jobs of each version with every
        // instance excluded; then init_result_resource_usage() (not in
        // 7.0-7.2's emulator).
        for (project, job) in &header.coproc_missing_marks {
            self.emit(
                now,
                Some(project),
                &format!("marking {job} as coproc missing"),
            );
        }
        for (project, job) in header.missing_coproc_tasks.iter().filter(|_| !v7_2) {
            self.emit(
                now,
                Some(project),
                &format!("Missing coprocessor for task {job}"),
            );
        }
        for (p, project) in state.projects.iter().enumerate() {
            let url = header
                .urls
                .get(project.name.as_str())
                .cloned()
                .unwrap_or_default();
            let share = project.resource_share;
            self.emit(
                now,
                Some(&project.name),
                &format!("URL {url}; Computer ID not assigned yet; resource share {share:.0}"),
            );
            // show_no_work_notice(): a GPU type every instance of which
            // the project's exclusions take.
            for r in (1..state.n_rsc()).filter(|_| !v7_2) {
                if !project.rsc[r].no_rsc_apps && state.no_rsc_config(p, r) {
                    self.emit(
                        now,
                        Some(&project.name),
                        &format!(
                            "Not using {}: GPU exclusions in cc_config.xml",
                            state.rsc_type(r).long_name()
                        ),
                    );
                }
            }
        }
        if self.flags.work_fetch_debug {
            self.emit(now, None, "[work_fetch] Request work fetch: init");
        }
    }

    /// The prefs block before 8.0.4 (client/cs_prefs.cpp
    /// read_global_prefs).
    fn general_prefs(&mut self, state: &HostState, header: &LogHeader) {
        let now = 0.0;
        let prefs = &state.prefs;
        let mem = state.host.m_nbytes;
        for line in [
            "General prefs: from  (last modified ---)",
            "Host location: none",
            "General prefs: using your defaults",
        ] {
            self.emit(now, None, line);
        }
        self.override_read(header);
        self.emit(now, None, "Preferences:");
        const MEGA: f64 = 1024.0 * 1024.0;
        let busy = mem * prefs.ram_max_used_busy_frac / MEGA;
        let idle = mem * prefs.ram_max_used_idle_frac / MEGA;
        let mb = if self.wording.mb_spaced { " MB" } else { "MB" };
        self.emit(
            now,
            None,
            &format!("   max memory usage when active: {busy:.2}{mb}"),
        );
        self.emit(
            now,
            None,
            &format!("   max memory usage when idle: {idle:.2}{mb}"),
        );
        let ncpus = state.n_usable_cpus();
        if ncpus != state.host.p_ncpus as usize {
            self.emit(now, None, &format!("   max CPUs used: {ncpus}"));
        }
        if header.suspend_cpu_usage.0 != 0.0 {
            let x = header.suspend_cpu_usage.0;
            self.emit(
                now,
                None,
                &format!("   suspend work if non-BOINC CPU load exceeds {x:.0}%"),
            );
        }
        self.emit(
            now,
            None,
            "   (to change preferences, visit a project web site or select Preferences in the Manager)",
        );
    }

    /// The line read_global_prefs() prints once it has read an override
    /// file (every release).
    fn override_read(&mut self, header: &LogHeader) {
        if header.prefs_override {
            self.emit(0.0, None, "Reading preferences override file");
        }
    }

    /// CLIENT_STATE::print_global_prefs (client/cs_prefs.cpp).
    fn prefs(&mut self, state: &HostState, header: &LogHeader) {
        if !self.wording.prefs_detailed {
            self.general_prefs(state, header);
            return;
        }
        let now = 0.0;
        let prefs = &state.prefs;
        let ncpus = state.host.p_ncpus as f64;
        let mem = state.host.m_nbytes;
        let computing = self.wording.computing_prefs;
        let sources: &[&str] = if computing {
            &[
                "Computing prefs: from  (last modified ---)",
                "Computing prefs: computer location unspecified; using default",
            ]
        } else {
            &[
                "General prefs: from  (last modified ---)",
                "Host location: none",
                "General prefs: using your defaults",
            ]
        };
        for line in sources {
            self.emit(now, None, line);
        }
        self.override_read(header);
        let lines = [
            if computing {
                "Computing preferences:"
            } else {
                "Preferences:"
            }
            .to_string(),
            "-  When computer is in use".to_string(),
            format!(
                "-     'In use' means mouse/keyboard input in last {:.2} minutes",
                header.idle_time_to_run
            ),
        ];
        for line in &lines {
            self.emit(now, None, line);
        }
        if prefs.max_ncpus_pct != 0.0 {
            let n = (ncpus * prefs.max_ncpus_pct / 100.0) as i64;
            self.emit(now, None, &format!("-     max CPUs used: {n}"));
        }
        if prefs.cpu_usage_limit != 0.0 {
            let x = prefs.cpu_usage_limit;
            self.emit(
                now,
                None,
                &format!("-     Use at most {x:.0}% of the CPU time"),
            );
        }
        if header.suspend_cpu_usage.0 != 0.0 {
            let x = header.suspend_cpu_usage.0;
            self.emit(
                now,
                None,
                &format!("-     suspend if non-BOINC CPU load exceeds {x:.0}%"),
            );
        }
        let busy = mem * prefs.ram_max_used_busy_frac / GIB;
        self.emit(now, None, &format!("-     max memory usage: {busy:.2} GB"));
        self.emit(now, None, "-  When computer is not in use");
        let n = (ncpus * prefs.niu_max_ncpus_pct / 100.0) as i64;
        self.emit(now, None, &format!("-     max CPUs used: {n}"));
        let x = prefs.niu_cpu_usage_limit;
        self.emit(
            now,
            None,
            &format!("-     Use at most {x:.0}% of the CPU time"),
        );
        if header.suspend_cpu_usage.1 > 0.0 {
            let x = header.suspend_cpu_usage.1;
            self.emit(
                now,
                None,
                &format!("-     suspend if non-BOINC CPU load exceeds {x:.0}%"),
            );
        }
        let idle = mem * prefs.ram_max_used_idle_frac / GIB;
        self.emit(now, None, &format!("-     max memory usage: {idle:.2} GB"));
        let min = prefs.work_buf_min_days;
        let more = prefs.work_buf_additional_days;
        self.emit(
            now,
            None,
            &format!("-  Store at least {min:.2} days of work"),
        );
        self.emit(
            now,
            None,
            &format!("-  Store up to an additional {more:.2} days of work"),
        );
        let manager = if computing {
            "'Options / Computing preferences...'"
        } else {
            "Preferences"
        };
        self.emit(
            now,
            None,
            &format!(
                "-  (to change preferences, visit a project web site or select {manager} in the Manager)"
            ),
        );
    }

    /// `rsc_string()` of client/result.h (7.0–7.2: client/rr_sim.cpp's,
    /// with the resource's short name).
    fn rsc_string(&self, state: &HostState, j: JobIdx) -> String {
        let Some(job) = state.jobs.get(j) else {
            return String::new();
        };
        if job.usage.rsc == 0 {
            format!("{:.2} CPU", job.usage.avg_ncpus)
        } else {
            format!(
                "{:.2} CPU + {:.2} {}",
                job.usage.avg_ncpus,
                job.usage.coproc_usage,
                self.rsc_name(state, job.usage.rsc)
            )
        }
    }

    /// A resource as the release names it: `rsc_name_long()` (`NVIDIA
    /// GPU`), in 7.0–7.2 `rsc_name()` (the coprocessor type, `NVIDIA`).
    fn rsc_name(&self, state: &HostState, r: RscIdx) -> String {
        if self.wording.v7_2 {
            if r == 0 {
                "CPU".to_string()
            } else {
                Self::rsc_type_name(state, r)
            }
        } else {
            Self::rsc_long(state, r)
        }
    }

    fn job_name(state: &HostState, j: JobIdx) -> &str {
        state.jobs.get(j).map_or("", |job| job.name.as_str())
    }

    fn rsc_long(state: &HostState, r: RscIdx) -> String {
        state.rsc_type(r).long_name().to_string()
    }

    fn rsc_type_name(state: &HostState, r: RscIdx) -> String {
        state.rsc_type(r).type_name().to_string()
    }

    /// `project_priority_init()`'s `[prio]` lines (client/cpu_sched.cpp).
    fn prio(&mut self, now: f64, state: &HostState, init: &PriorityInit) {
        if !self.flags.priority_debug {
            return;
        }
        for line in &init.lines {
            self.project_line(
                now,
                state,
                line.project,
                &format!(
                    "[prio] {:.6} rsf {:.6} rt {:.6} rs {:.6}",
                    line.priority, line.share_frac, line.rec_temp, line.rec_sum
                ),
            );
        }
    }

    /// `rr_simulation(why)` and RR_SIM::simulate() (client/rr_sim.cpp).
    fn simulation(&mut self, now: f64, state: &HostState, why: &str, sim: &RrSimOutcome) {
        let f = self.flags;
        let v7_2 = self.wording.v7_2;
        // Before 7.16.1 every call simulates afresh, unannounced.
        let every_call = v7_2 || self.params.rr_sim_once_per_moment == 0.0;
        if f.rr_simulation && !every_call {
            self.emit(now, None, &format!("[rr_sim] doing sim: {why}"));
        }
        if self.last_sim == sim.now && !every_call {
            if f.rr_simulation {
                self.emit(now, None, "[rr_sim] already did at this time");
            }
            return;
        }
        self.last_sim = sim.now;
        if f.rr_simulation {
            let message = format!(
                "[rr_sim] start: work_buf min {:.0} additional {:.0} total {:.0} on_frac {:.3} active_frac {:.3}",
                state.work_buf_min(&self.params),
                state.work_buf_additional(),
                state.work_buf_total(&self.params),
                state.time_stats.on_frac,
                state.time_stats.active_frac
            );
            self.emit(now, None, &message);
        }
        self.prio(now, state, &sim.prio_init);
        let new = self.wording.rr_sim_7_20;
        for note in &sim.notes {
            match *note {
                RrSimNote::PickStart | RrSimNote::PickEnd if !new => {}
                // 7.0–7.2 print every pick, without its FLOPs, and nothing
                // of the simulation's steps or limits.
                RrSimNote::Starting { job, reltime, .. } if v7_2 && f.rrsim_detail => {
                    let message = format!(
                        "[rr_sim_detail] {reltime:.2}: starting {} ({})",
                        Self::job_name(state, job),
                        self.rsc_string(state, job)
                    );
                    self.job_line(now, state, job, &message);
                }
                RrSimNote::Starting { .. } if v7_2 => {}
                RrSimNote::ProjectMaxConcurrent(..)
                | RrSimNote::AppMaxConcurrent(..)
                | RrSimNote::NextToFinish(..)
                | RrSimNote::TimeSlice(_)
                    if v7_2 => {}
                RrSimNote::PickStart if f.rr_simulation => {
                    self.emit(now, None, "pick_jobs_to_run() start");
                }
                RrSimNote::PickEnd if f.rr_simulation => {
                    self.emit(now, None, "pick_jobs_to_run() end");
                }
                RrSimNote::Starting {
                    job,
                    reltime,
                    flops_left,
                    flops,
                    first: true,
                } if f.rrsim_detail => {
                    let message = format!(
                        "[rr_sim_detail] {reltime:.2}: starting {} ({}) ({:.2}G/{:.2}G)",
                        Self::job_name(state, job),
                        self.rsc_string(state, job),
                        flops_left / GIGA,
                        flops / GIGA
                    );
                    self.job_line(now, state, job, &message);
                }
                RrSimNote::ProjectMaxConcurrent(p, t) if f.rr_simulation => {
                    let message = if new {
                        format!("[rr_sim] at project max concurrent: t {t:.6}")
                    } else {
                        "[rr_sim] at project max concurrent".to_string()
                    };
                    self.project_line(now, state, p, &message);
                }
                RrSimNote::AppMaxConcurrent(j, t) if f.rr_simulation => {
                    let app = state.jobs.get(j).map_or("", |job| job.app.as_str());
                    let message = if new {
                        format!("[rr_sim] at app max concurrent for {app}; t {t:.6}")
                    } else {
                        format!("[rr_sim] at app max concurrent for {app}")
                    };
                    self.job_line(now, state, j, &message);
                }
                RrSimNote::NextToFinish(j, dt) if f.rrsim_detail => {
                    let name = Self::job_name(state, j);
                    let message = if new {
                        format!("[rrsim_detail] next job to finish: {name} (will finish in  {dt:.2} sec)")
                    } else {
                        format!("[rrsim_detail] rpbest: {name} (finish delay {dt:.2})")
                    };
                    self.emit(now, None, &message);
                }
                RrSimNote::TimeSlice(dt) if f.rrsim_detail => {
                    let message = if new {
                        format!("[rrsim_detail] taking time-slice step of {dt:.2} sec")
                    } else {
                        format!("[rrsim_detail] time-slice step of {dt:.2} sec")
                    };
                    self.emit(now, None, &message);
                }
                RrSimNote::Finish(i) if f.rr_simulation => {
                    let Some(finish) = sim.finishes.get(i) else {
                        continue;
                    };
                    let j = finish.job;
                    let name = Self::job_name(state, j).to_string();
                    let message = if v7_2 {
                        format!(
                            "[rr_sim] {:.2}: {name} finishes ({:.2}G/{:.2}G)",
                            finish.reltime,
                            finish.flops_remaining / GIGA,
                            finish.sim_flops / GIGA
                        )
                    } else {
                        format!(
                            "[rr_sim] {:.2}: {name} finishes ({}) ({:.2}G/{:.2}G)",
                            finish.reltime,
                            self.rsc_string(state, j),
                            finish.flops_remaining / GIGA,
                            finish.sim_flops / GIGA
                        )
                    };
                    self.job_line(now, state, j, &message);
                    if let Some(by) = finish.miss_by {
                        let message = if finish.miss_counted {
                            format!("[rr_sim] {name} misses deadline by {by:.2}")
                        } else {
                            format!("[rr_sim] {name} misses deadline but RSS too large to run")
                        };
                        self.job_line(now, state, j, &message);
                    }
                }
                _ => {}
            }
        }
        if f.rr_simulation && new {
            self.emit(now, None, "[rr_sim] end");
        }
    }

    /// print_deadline_misses() (client/rr_sim.cpp).
    fn deadline_misses(&mut self, now: f64, state: &HostState, sim: &RrSimOutcome) {
        for (j, &miss) in sim.misses_deadline.iter().enumerate() {
            if miss {
                let message = format!(
                    "[rr_sim] Result {} projected to miss deadline.",
                    Self::job_name(state, j)
                );
                self.job_line(now, state, j, &message);
            }
        }
        for (p, stats) in sim.projects.iter().enumerate() {
            for (r, rsc) in stats.rsc.iter().enumerate() {
                if rsc.deadlines_missed > 0 {
                    let message = format!(
                        "[rr_sim] Project has {} projected {} deadline misses",
                        rsc.deadlines_missed,
                        self.rsc_name(state, r)
                    );
                    self.project_line(now, state, p, &message);
                }
            }
        }
    }

    /// PROC_RESOURCES::schedule's pick: `scheduling JOB (KIND)` to 7.2,
    /// `add to run list: JOB (KIND)` from 7.4.0 (the GPU type named from
    /// 7.6.8).
    fn run_list_add(&mut self, now: f64, state: &HostState, entry: &RunListEntry) {
        let edf = entry.phase == RunListPhase::Edf;
        let kind = if self.wording.coarse_run_list {
            coarse_kind(entry.rsc, edf).to_string()
        } else {
            let order = if edf { "EDF" } else { "FIFO" };
            format!("{}, {order}", Self::rsc_long(state, entry.rsc))
        };
        let verb = if self.wording.v7_2 {
            "scheduling"
        } else {
            "add to run list:"
        };
        let message = format!(
            "[cpu_sched_debug] {verb} {} ({kind}) (prio {:.6})",
            Self::job_name(state, entry.job),
            entry.priority
        );
        self.job_line(now, state, entry.job, &message);
    }

    /// PROC_RESOURCES::reserve_coprocs().
    fn reserving(&mut self, now: f64, state: &HostState, j: JobIdx) {
        let Some(job) = state.jobs.get(j) else {
            return;
        };
        let message = format!(
            "[cpu_sched_debug] reserving {:.6} of coproc {}",
            job.usage.coproc_usage,
            Self::rsc_type_name(state, job.usage.rsc)
        );
        self.job_line(now, state, j, &message);
    }

    /// make_run_list() (client/cpu_sched.cpp).
    fn run_list(&mut self, now: f64, state: &HostState, run: &RunListOutcome) {
        let debug = self.flags.cpu_sched_debug;
        if debug {
            self.emit(
                now,
                None,
                if self.wording.make_run_list_markers {
                    "[cpu_sched_debug] make_run_list(): start"
                } else {
                    "[cpu_sched_debug] schedule_cpus(): start"
                },
            );
        }
        self.simulation(now, state, "CPU sched", &run.sim);
        if self.flags.rr_simulation {
            self.deadline_misses(now, state, &run.sim);
        }
        // promote_once_ran_edf() comes before the priorities' start.
        let promotions = run
            .notes
            .iter()
            .take_while(|n| matches!(n, RunNote::Domino(_) | RunNote::Thrashing(_)))
            .count();
        // 7.0–7.2 print a coprocessor job's reservation after its pick.
        let mut reserved: Option<JobIdx> = None;
        for (i, note) in run.notes.iter().enumerate() {
            if i == promotions {
                self.prio(now, state, &run.prio_init);
            }
            match *note {
                RunNote::Reserve(j) if self.wording.coarse_run_list => reserved = Some(j),
                RunNote::EdfPick(j) if self.wording.v7_2 && debug => {
                    // earliest_deadline_result() names each EDF pick, even
                    // one can_schedule() then refuses.
                    let deadline = state.jobs.get(j).map_or(0.0, |job| job.report_deadline);
                    let message = format!(
                        "[cpu_sched_debug] earliest deadline: {deadline:.0} {}",
                        Self::job_name(state, j)
                    );
                    self.job_line(now, state, j, &message);
                }
                RunNote::Domino(j) | RunNote::Thrashing(j) if debug => {
                    let kind = if matches!(note, RunNote::Domino(_)) {
                        "domino"
                    } else {
                        "thrashing"
                    };
                    let message = format!(
                        "[cpu_sched_debug] {kind} prevention: mark {} as deadline miss",
                        Self::job_name(state, j)
                    );
                    self.job_line(now, state, j, &message);
                }
                RunNote::Insufficient(j) if debug => {
                    let r = state.jobs.get(j).map_or(0, |job| job.usage.rsc);
                    let message = format!(
                        "[cpu_sched_debug] insufficient {} for {}",
                        Self::rsc_type_name(state, r),
                        Self::job_name(state, j)
                    );
                    self.job_line(now, state, j, &message);
                }
                RunNote::Reserve(j) if debug => self.reserving(now, state, j),
                RunNote::Add(i) => {
                    let Some(entry) = run.run_list.get(i) else {
                        continue;
                    };
                    if debug {
                        self.run_list_add(now, state, entry);
                    }
                    // Before 7.6.8 PROC_RESOURCES::schedule prints a
                    // coprocessor job's reservation after its pick.
                    if let Some(r) = reserved.take().filter(|_| debug) {
                        self.reserving(now, state, r);
                    }
                }
                _ => {}
            }
        }
        if promotions == run.notes.len() {
            self.prio(now, state, &run.prio_init);
        }
        if debug && self.wording.make_run_list_markers {
            self.emit(now, None, "[cpu_sched_debug] make_run_list(): end");
        }
    }

    /// `print_job_list()` (client/cpu_sched.cpp).
    fn job_list(&mut self, now: f64, state: &HostState, jobs: &[(JobIdx, bool, bool)]) {
        for (i, &(j, md, uts)) in jobs.iter().enumerate() {
            let yes = |b: bool| if b { "yes" } else { "no" };
            let resources = if self.wording.job_list_resources {
                format!("{}; ", self.rsc_string(state, j))
            } else {
                String::new()
            };
            let message = format!(
                "[cpu_sched_debug] {i}: {} ({resources}MD: {}; UTS: {})",
                Self::job_name(state, j),
                yes(md),
                yes(uts)
            );
            self.job_line(now, state, j, &message);
        }
    }

    /// enforce_run_list() (client/cpu_sched.cpp), assign_coprocs()
    /// (client/coproc_sched.cpp) and the task layer (client/sim_util.cpp).
    fn enforced(
        &mut self,
        now: f64,
        state: &HostState,
        run_list: &[(JobIdx, bool, bool)],
        out: &EnforceOutcome,
        tasks: &[TaskAction],
    ) {
        let f = self.flags;
        let v7_2 = self.wording.v7_2;
        if f.cpu_sched_debug {
            self.emit(
                now,
                None,
                if v7_2 {
                    "[cpu_sched_debug] enforce_schedule(): start"
                } else {
                    "[cpu_sched_debug] enforce_run_list(): start"
                },
            );
            self.emit(now, None, "[cpu_sched_debug] preliminary job list:");
            self.job_list(now, state, run_list);
            self.emit(now, None, "[cpu_sched_debug] final job list:");
            self.job_list(now, state, &out.sorted);
        }
        if f.coproc_debug {
            for note in &out.coproc_notes {
                self.coproc(now, state, note);
            }
        }
        let n_usable = state.n_usable_cpus();
        let user_limited = (n_usable as u32) < state.host.p_ncpus;
        let mut used = 0.0;
        for &(j, md, _) in &out.sorted {
            let Some(job) = state.jobs.get(j) else {
                continue;
            };
            let name = job.name.as_str();
            let skipped = out.skipped.iter().find(|(k, _)| *k == j).map(|(_, r)| *r);
            let message = match skipped {
                Some(SkipReason::NoCoprocs) => continue,
                Some(SkipReason::MaxConcurrent) if v7_2 => {
                    let limit = state
                        .projects
                        .get(job.project)
                        .and_then(|p| p.apps.iter().find(|a| a.name == job.app))
                        .and_then(|a| a.max_concurrent)
                        .unwrap_or(0);
                    format!(
                        "[cpu_sched_debug] skipping {name}; max concurrent limit {limit} reached"
                    )
                }
                Some(SkipReason::MaxConcurrent) => {
                    format!("[cpu_sched_debug] skipping {name}; max concurrent limit reached")
                }
                Some(SkipReason::CpusFull) => {
                    if user_limited
                        && !v7_2
                        && self.params.enforce_user_cpu_limit != 0.0
                        && used + job.usage.avg_ncpus > n_usable as f64
                    {
                        format!(
                            "[cpu_sched_debug] skipping {name}: would exceed user-specified CPU limit"
                        )
                    } else if job.usage.uses_coprocs() {
                        format!("[cpu_sched_debug] skipping GPU job {name}; CPU committed")
                    } else {
                        format!("[cpu_sched_debug] all CPUs used ({used:.2} >= {n_usable}), skipping {name}")
                    }
                }
                Some(SkipReason::RamTooSmall) => {
                    format!("[cpu_sched_debug] skipping {name}: estimated RSS exceeds RAM left")
                }
                None => {
                    used += job.usage.avg_ncpus;
                    format!(
                        "[cpu_sched_debug] scheduling {name}{}",
                        if md && !v7_2 { " (high priority)" } else { "" }
                    )
                }
            };
            if f.cpu_sched_debug {
                self.job_line(now, state, j, &message);
            }
        }
        if out.cpus_used < n_usable as f64 {
            let request = f.work_fetch_debug
                && (self.params.idle_cpus_request_fetch != 0.0 || f.cpu_sched_debug);
            if self.wording.using_only {
                if request {
                    self.emit(now, None, "[work_fetch] Request work fetch: CPUs idle");
                }
                if f.cpu_sched_debug {
                    let message = format!(
                        "[cpu_sched_debug] using only {:.2} out of {n_usable} CPUs",
                        out.cpus_used
                    );
                    self.emit(now, None, &message);
                }
            } else if f.cpu_sched_debug {
                let message = format!(
                    "[cpu_sched_debug] using {:.2} out of {n_usable} CPUs",
                    out.cpus_used
                );
                self.emit(now, None, &message);
                if request {
                    self.emit(now, None, "[work_fetch] Request work fetch: CPUs idle");
                }
            }
        }
        let scheduled_now: std::collections::BTreeSet<JobIdx> = out
            .actions
            .iter()
            .filter_map(|a| match a {
                EnforceAction::Schedule(j) => Some(*j),
                _ => None,
            })
            .collect();
        // 7.0–7.2: each task in active-task order prints its states, then
        // is preempted if it must be (7.2.42 enforce_run_list).
        let mut in_task_order: Vec<JobIdx> = if v7_2 {
            (0..state.jobs.len())
                .filter(|&j| state.jobs[j].task.is_some())
                .collect()
        } else {
            tasks
                .iter()
                .filter_map(|a| match *a {
                    TaskAction::Preempt { job, .. } => Some(job),
                    _ => None,
                })
                .collect()
        };
        if v7_2 {
            in_task_order.sort_by_key(|&j| state.jobs[j].task.as_ref().map_or(u64::MAX, |t| t.seq));
        }
        for j in in_task_order {
            let name = Self::job_name(state, j).to_string();
            let preempt = tasks.iter().find_map(|a| match *a {
                TaskAction::Preempt { job, removed } if job == j => Some(removed),
                _ => None,
            });
            if v7_2 {
                let before = self.task_states.get(&name).copied().unwrap_or((0, 0));
                let next = if scheduled_now.contains(&j) { 2 } else { 1 };
                if f.cpu_sched_debug {
                    let message = format!(
                        "[cpu_sched_debug] {name} sched state {} next {next} task state {}",
                        before.0, before.1
                    );
                    self.job_line(now, state, j, &message);
                }
                let after = match (next, preempt) {
                    (2, _) => (2, 1),
                    (_, Some(true)) => (1, 0),
                    (_, Some(false)) => (1, 9),
                    _ => (1, before.1),
                };
                self.task_states.insert(name.clone(), after);
            }
            if let Some(removed) = preempt {
                let job = j;
                let name = Self::job_name(state, job).to_string();
                if f.cpu_sched {
                    let how = if removed {
                        "removed from memory"
                    } else {
                        "left in memory"
                    };
                    self.job_line(
                        now,
                        state,
                        job,
                        &format!("[cpu_sched] Preempting {name} ({how})"),
                    );
                }
                if f.task_debug {
                    let message = if removed {
                        let from = if self.wording.request_quit {
                            "request_quit"
                        } else {
                            "request_exit"
                        };
                        format!("[task] task_state=UNINITIALIZED for {name} from {from}")
                    } else {
                        format!("[task] task_state=SUSPENDED for {name} from suspend")
                    };
                    self.job_line(now, state, job, &message);
                }
            }
        }
        let mut scheduled: Vec<JobIdx> = scheduled_now.into_iter().collect();
        scheduled.sort_by_key(|&j| {
            state
                .jobs
                .get(j)
                .and_then(|job| job.task.as_ref())
                .map_or(u64::MAX, |t| t.seq)
        });
        for j in scheduled {
            let name = Self::job_name(state, j).to_string();
            let start = tasks.iter().find_map(|a| match *a {
                TaskAction::Start(k) if k == j => Some("Starting"),
                TaskAction::Resume(k) if k == j => Some("Resuming"),
                _ => None,
            });
            if let Some(how) = start {
                if f.task {
                    let left = state.jobs.get(j).map_or(0.0, |job| {
                        job.exact_flops_remaining.unwrap_or(job.rsc_fpops_est)
                    });
                    let message =
                        format!("[task] {how} task {name}: FLOPS left {:.2}G", left / GIGA);
                    self.job_line(now, state, j, &message);
                }
                if f.task_debug {
                    let message = format!("[task] task_state=EXECUTING for {name} from start");
                    self.job_line(now, state, j, &message);
                }
            }
            if f.cpu_sched_status {
                self.job_line(now, state, j, &format!("[css] running {name} ()"));
            }
        }
        if f.cpu_sched_debug {
            self.emit(
                now,
                None,
                if v7_2 {
                    "[cpu_sched_debug] enforce_schedule: end"
                } else {
                    "[cpu_sched_debug] enforce_run_list: end"
                },
            );
        }
    }

    /// The `[coproc]` messages of client/coproc_sched.cpp.
    fn coproc(&mut self, now: f64, state: &HostState, note: &CoprocNote) {
        let kind = |j: JobIdx| {
            let r = state.jobs.get(j).map_or(0, |job| job.usage.rsc);
            Self::rsc_type_name(state, r)
        };
        let name = |j: JobIdx| Self::job_name(state, j).to_string();
        let (j, message) = match *note {
            CoprocNote::Pending { job, k, x } => (
                job,
                format!(
                    "[coproc] {} instance {k}; {x:.6} pending for {}",
                    kind(job),
                    name(job)
                ),
            ),
            CoprocNote::Taken { job, x, dev } => (
                job,
                format!(
                    "[coproc] {} {x:.6} instance of device {dev} already assigned to task {}",
                    kind(job),
                    name(job)
                ),
            ),
            CoprocNote::Confirming { job, dev, x } => (
                job,
                format!(
                    "[coproc] {} instance {dev}: confirming {x:.6} instance for {}",
                    kind(job),
                    name(job)
                ),
            ),
            CoprocNote::Fraction { job, x, dev, free } => (
                job,
                format!(
                    "[coproc] Assigning {x:.6} of {} {}instance {dev} to {}",
                    kind(job),
                    if free { "free " } else { "" },
                    name(job)
                ),
            ),
            CoprocNote::NoFraction { job, x } => (
                job,
                format!(
                    "[coproc] Insufficient {} for {}: need {x:.6}",
                    kind(job),
                    name(job)
                ),
            ),
            CoprocNote::NoWhole { job, need, free } => (
                job,
                format!(
                    "[coproc] Insufficient {} for {}; need {need}, available {free}",
                    kind(job),
                    name(job)
                ),
            ),
            CoprocNote::Whole { job, dev, pending } => (
                job,
                format!(
                    "[coproc] Assigning {} {}instance {dev} to {}",
                    kind(job),
                    if pending { "pending " } else { "" },
                    name(job)
                ),
            ),
        };
        self.job_line(now, state, j, &message);
    }

    /// WORK_FETCH::setup()'s messages and print_state() (client/work_fetch.cpp).
    fn fetch_state(&mut self, now: f64, state: &HostState, setup: &WorkFetchState) {
        let f = self.flags;
        let v7_2 = self.wording.v7_2;
        self.simulation(now, state, "work fetch", &setup.sim);
        if f.work_fetch_debug {
            let total = state.work_buf_total(&self.params);
            for &(p, r, t) in &setup.mc_limits {
                let message =
                    format!("rsc type {r} last MC limit time {t:.6} total buf {total:.6}");
                self.project_line(now, state, p, &message);
            }
        }
        self.prio(now, state, &setup.prio_init);
        if !f.work_fetch_debug {
            return;
        }
        self.emit(
            now,
            None,
            "[work_fetch] ------- start work fetch state -------",
        );
        let message = format!(
            "[work_fetch] target work buffer: {:.2} + {:.2} sec",
            setup.buf_min, setup.buf_additional
        );
        self.emit(now, None, &message);
        self.emit(now, None, "[work_fetch] --- project states ---");
        // 7.0–7.4 print after sorting the project list itself.
        let order: Vec<ProjectIdx> = if self.wording.state_in_priority_order {
            setup.projects_sorted.clone()
        } else {
            (0..state.projects.len()).collect()
        };
        let rank = |p: ProjectIdx| order.iter().position(|&q| q == p).unwrap_or(p);
        let mut projects: Vec<_> = setup.projects.iter().collect();
        projects.sort_by_key(|x| rank(x.project));
        for project in projects {
            let text = if v7_2 {
                // 7.2.42 WORK_FETCH::print_state.
                let mut text = match &project.reason {
                    ProjectReason::None => "can req work".to_string(),
                    reason => format!("can't req work: {reason}"),
                };
                if project.rpc_backoff_left > 0.0 {
                    let _ = write!(text, " (backoff: {:.2} sec)", project.rpc_backoff_left);
                }
                format!("REC {:.3} prio {:.6} {text}", project.rec, project.priority)
            } else {
                project.log_text()
            };
            let message = format!("[work_fetch] {text}");
            self.project_line(now, state, project.project, &message);
        }
        for (r, rsc) in setup.resources.iter().enumerate() {
            let message = format!("[work_fetch] --- state for {} ---", self.rsc_name(state, r));
            self.emit(now, None, &message);
            let message = format!(
                "[work_fetch] shortfall {:.2} nidle {:.2} saturated {:.2} busy {:.2}",
                rsc.shortfall, rsc.nidle, rsc.saturated, rsc.busy
            );
            self.emit(now, None, &message);
            let mut rows: Vec<_> = rsc.projects.iter().collect();
            rows.sort_by_key(|x| rank(x.project));
            for row in rows {
                let backoff = if row.backoff_left > 0.0 {
                    format!(
                        " (resource backoff: {:.2}, inc {:.2})",
                        row.backoff_left, row.backoff_interval
                    )
                } else {
                    String::new()
                };
                let message = if v7_2 {
                    // 7.2.42 RSC_WORK_FETCH::print_state: the dont_fetch flags.
                    let flags = state
                        .projects
                        .get(row.project)
                        .and_then(|p| p.rsc.get(r))
                        .map(|x| (x.no_rsc_pref, x.no_rsc_apps, x.no_rsc_ams))
                        .unwrap_or_default();
                    let config = r != 0 && state.no_rsc_config(row.project, r);
                    let mut text = format!("[work_fetch] fetch share {:.3}{backoff}", row.share);
                    for (on, flag) in [
                        (flags.0, " (blocked by prefs)"),
                        (flags.1, " (no apps)"),
                        (flags.2, " (blocked by account manager)"),
                        (config, " (blocked by configuration file)"),
                    ] {
                        if on {
                            text.push_str(flag);
                        }
                    }
                    text
                } else {
                    format!(
                        "[work_fetch] share {:.3} {} {backoff}",
                        row.share, row.reason
                    )
                };
                self.project_line(now, state, row.project, &message);
            }
        }
        self.emit(
            now,
            None,
            "[work_fetch] ------- end work fetch state -------",
        );
    }

    /// choose_project() / piggyback_work_request() (client/work_fetch.cpp).
    fn work_fetch(
        &mut self,
        now: f64,
        state: &HostState,
        outcome: &WorkFetchOutcome,
        report: Option<ProjectIdx>,
    ) {
        let f = self.flags;
        let v7_2 = self.wording.v7_2;
        self.piggyback_project = report;
        if let Some(p) = report {
            if f.work_fetch_debug && self.wording.wf_scan {
                self.project_line(now, state, p, "piggyback_work_request()");
            }
        } else {
            if v7_2 && f.work_fetch_debug {
                self.emit(now, None, "[work_fetch] entering choose_project()");
            } else if self.wording.choose_project_time && self.wording.wf_scan && f.work_fetch_debug
            {
                self.emit(now, None, &format!("choose_project(): {now:.6}"));
            }
            if outcome.nci {
                if let (Some(p), true) = (outcome.chosen, f.work_fetch_debug) {
                    self.project_line(now, state, p, "[work_fetch] fetching work for NCI project");
                }
                return;
            }
        }
        if let Some(setup) = &outcome.state {
            self.fetch_state(now, state, setup);
        }
        for note in &outcome.scan {
            // Before 7.16.1 only set_request() of the scan prints (its
            // other lines are macros compiled out).
            if self.wording.wf_scan || matches!(note, ScanNote::SetRequest { .. }) {
                self.scan_note(now, state, note);
            }
        }
        if report.is_none() && outcome.chosen.is_none() && f.work_fetch_debug {
            self.emit(now, None, "[work_fetch] No project chosen for work fetch");
        }
    }

    fn scan_note(&mut self, now: f64, state: &HostState, note: &ScanNote) {
        let f = self.flags;
        let long = |r: RscIdx| Self::rsc_long(state, r);
        let pname = |p: ProjectIdx| {
            state
                .projects
                .get(p)
                .map_or(String::new(), |x| x.name.to_string())
        };
        // Before 8.2.14 piggyback's lines name the project asked.
        let piggy = if self.wording.piggyback_untagged {
            None
        } else {
            self.piggyback_project
        };
        let (project, message, shown) = match note {
            ScanNote::Scanning(p) => (Some(*p), "choose_project: scanning".to_string(), f.work_fetch_debug),
            ScanNote::Skip(p, reason) => (Some(*p), format!("skip: {reason}"), f.work_fetch_debug),
            ScanNote::CanFetch(p, r) => (Some(*p), format!("can fetch {}", long(*r)), f.work_fetch_debug),
            ScanNote::CantFetch(p, r, reason) => (
                Some(*p),
                format!("can't fetch {}: {reason}", long(*r)),
                f.work_fetch_debug,
            ),
            ScanNote::BufferLow(p, r) => (
                Some(*p),
                format!("{} needs work - buffer low", long(*r)),
                f.work_fetch_debug,
            ),
            ScanNote::ExcludedStarved(p, r) => (
                Some(*p),
                format!("{} needs work - excluded instance starved", long(*r)),
                f.work_fetch_debug,
            ),
            ScanNote::Checking(p, r) => (Some(*p), format!("checking {}", long(*r)), f.work_fetch_debug),
            ScanNote::NotHighPrio(p, r) => (
                Some(*p),
                format!("{} not high prio proj", long(*r)),
                f.work_fetch_debug,
            ),
            ScanNote::DontNeed(p, r) => (Some(*p), format!("{} don't need", long(*r)), f.work_fetch_debug),
            ScanNote::OtherCantFetch(p, r, reason) => (
                Some(*p),
                format!("{} can't fetch: {reason}", long(*r)),
                f.work_fetch_debug,
            ),
            ScanNote::McShortfall {
                project,
                mc_shortfall,
                shortfall,
                ..
            } => (
                Some(*project),
                format!(
                    "[work_fetch] using MC shortfall {mc_shortfall:.6} instead of shortfall {shortfall:.6}"
                ),
                f.work_fetch_debug,
            ),
            ScanNote::SetRequest {
                project,
                rsc,
                ninstances,
                nused_total,
                nidle_now,
                share,
                req_instances,
                req_secs,
            } => (
                Some(*project),
                {
                    // 7.0–7.2 print %f.
                    let d = if self.wording.v7_2 { 6 } else { 2 };
                    format!(
                        "[work_fetch] set_request() for {}: ninst {} nused_total {nused_total:.d$} nidle_now {nidle_now:.d$} fetch share {share:.d$} req_inst {req_instances:.d$} req_secs {req_secs:.d$}",
                        self.rsc_name(state, *rsc),
                        *ninstances as i64
                    )
                },
                f.work_fetch_debug,
            ),
            ScanNote::Request(p, r, req, excluded) => (
                Some(*p),
                format!(
                    "{} {}: {:.6}",
                    long(*r),
                    if *excluded {
                        "set_request_excluded"
                    } else {
                        "set_request"
                    },
                    req.req_secs
                ),
                f.work_fetch_debug,
            ),
            ScanNote::PiggyResource(r) => (piggy, format!("piggyback: resource {}", long(*r)), f.work_fetch_debug),
            ScanNote::PiggyCantFetch(r, reason) => (
                piggy,
                format!("piggyback: can't fetch {}: {reason}", long(*r)),
                f.work_fetch_debug,
            ),
            ScanNote::PiggyDontNeed(r) => (piggy, format!("piggyback: don't need {}", long(*r)), f.work_fetch_debug),
            ScanNote::PiggyNoJobs(q) => (
                piggy,
                format!("piggyback: {} doesn't have jobs", pname(*q)),
                f.work_fetch_debug,
            ),
            ScanNote::PiggyProjectCantFetch(q) => (
                piggy,
                format!("piggyback: {} can't fetch work", pname(*q)),
                f.work_fetch_debug,
            ),
            ScanNote::PiggyBetter(q) => (
                piggy,
                format!("piggyback: better proj {}", pname(*q)),
                f.work_fetch_debug,
            ),
            ScanNote::PiggyRequesting(p, r) => (
                Some(*p),
                format!("[rr_sim] piggyback: requesting {}", long(*r)),
                f.rr_simulation,
            ),
            ScanNote::PiggyDontNeedWork(p) => (
                Some(*p),
                "[rr_sim] piggyback: don't need work".to_string(),
                f.rr_simulation,
            ),
        };
        if !shown {
            return;
        }
        match project {
            Some(p) => self.project_line(now, state, p, &message),
            None => self.emit(now, None, &message),
        }
    }

    /// simulate_rpc() (client/sim.cpp) after the server's reply.
    #[allow(clippy::too_many_arguments)]
    fn rpc(
        &mut self,
        now: f64,
        state: &HostState,
        p: ProjectIdx,
        request: &[crate::policy::work_fetch::RscRequest],
        jobs: &[crate::policy::state::Job],
        refused: &[crate::client_loop::Refusal],
    ) {
        let mut text = String::from("RPC: [work_fetch] request:");
        for (r, req) in request.iter().enumerate() {
            let _ = write!(
                text,
                " {} ({:.2} sec, {:.2} inst)",
                self.rsc_name(state, r),
                req.req_secs,
                req.req_instances
            );
        }
        self.project_line(now, state, p, &text);
        let mut refused = refused.iter().peekable();
        for (k, job) in jobs.iter().enumerate() {
            while let Some(r) = refused.next_if(|r| r.after_jobs <= k) {
                self.refusal(now, state, p, r);
            }
            if self.flags.task_debug {
                let message = format!(
                    "[task] result state=FILES_DOWNLOADED for {} from simulate_rpc",
                    job.name
                );
                self.project_line(now, state, p, &message);
            }
        }
        for r in refused {
            self.refusal(now, state, p, r);
        }
        self.emit(now, None, &format!("Got {} tasks", jobs.len()));
    }

    fn refusal(
        &mut self,
        now: f64,
        state: &HostState,
        p: ProjectIdx,
        r: &crate::client_loop::Refusal,
    ) {
        let message = format!(
            "job for {} misses deadline approx: del {:.6} + et {:.6} > {:.6}",
            r.app, r.delay, r.est, r.bound
        );
        self.project_line(now, state, p, &message);
    }

    fn note(&mut self, now: f64, state: &HostState, note: LoopNote) {
        let f = self.flags;
        match note {
            LoopNote::ScheduleRequested(why) if f.cpu_sched_debug => {
                self.emit(
                    now,
                    None,
                    &format!("[cpu_sched_debug] Request CPU reschedule: {why}"),
                );
            }
            LoopNote::WorkFetchRequested(why) if f.work_fetch_debug => {
                self.emit(
                    now,
                    None,
                    &format!("[work_fetch] Request work fetch: {why}"),
                );
            }
            LoopNote::TaskExited(j) if f.task_debug => {
                let message = format!(
                    "[task] task_state=EXITED for {} from poll",
                    Self::job_name(state, j)
                );
                self.job_line(now, state, j, &message);
            }
            LoopNote::TaskFinished(j) => {
                let name = Self::job_name(state, j).to_string();
                if f.task {
                    self.job_line(
                        now,
                        state,
                        j,
                        &format!("Computation for task {name} finished"),
                    );
                }
                if f.task_debug {
                    let message = format!(
                        "[task] result state=FILES_UPLOADED for {name} from CS::app_finished"
                    );
                    self.job_line(now, state, j, &message);
                }
            }
            LoopNote::RpcBegins { project, report } => {
                let message = if report {
                    "doing RPC to report results"
                } else {
                    "doing RPC to get work"
                };
                self.project_line(now, state, project, message);
            }
            _ => {}
        }
    }

    fn rec(&mut self, now: f64, state: &HostState, adjustment: &RecAdjustment) {
        if !self.flags.priority_debug {
            return;
        }
        match adjustment {
            RecAdjustment::Discarded { elapsed, period } => {
                let message = format!(
                    "[priority] adjust_rec: elapsed time ({elapsed:.0}) negative or longer than sched enforce period({period:.0}).  Ignoring this period."
                );
                self.emit(now, None, &message);
            }
            RecAdjustment::TooShort => {}
            RecAdjustment::Updated(lines) => {
                for line in lines {
                    let message = format!(
                        "[prio] recent est credit: {:.2}G in {:.2} sec, {:.6} + {:.6} ->{:.6}",
                        line.credit,
                        line.secs,
                        line.old,
                        line.new - line.old,
                        line.new
                    );
                    self.project_line(now, state, line.project, &message);
                }
            }
        }
    }
}

impl<W: Write> Observer for LogWriter<W> {
    fn step_availability(&mut self, now: f64, availability: Availability) {
        self.timeline_row(now, availability);
    }

    fn event(&mut self, state: &HostState, now: f64, event: LoopEvent<'_>) {
        match event {
            LoopEvent::Rec(adjustment) => self.rec(now, state, adjustment),
            LoopEvent::RunList { run, .. } => {
                self.run_list(now, state, run);
                self.pending_run_list = run
                    .run_list
                    .iter()
                    .map(|e| (e.job, e.phase == RunListPhase::Edf, false))
                    .collect();
            }
            LoopEvent::Enforced { outcome, tasks, .. } => {
                let mut listed = std::mem::take(&mut self.pending_run_list);
                for (entry, &uts) in listed.iter_mut().zip(&outcome.preliminary_uts) {
                    entry.2 = uts;
                }
                self.enforced(now, state, &listed, outcome, tasks);
            }
            LoopEvent::WorkFetch { outcome, report } => {
                self.work_fetch(now, state, outcome, report)
            }
            LoopEvent::ProjectBackoff { project, secs, .. } => {
                self.project_line(now, state, project, "RPC skipped: project down");
                if self.flags.sched_op_debug {
                    let message =
                        format!("[sched_op] Deferring communication for {}", timediff(secs));
                    self.project_line(now, state, project, &message);
                    self.project_line(now, state, project, "[sched_op] Reason: project down");
                }
            }
            LoopEvent::ResourceBackoff {
                project, rsc, secs, ..
            } => {
                if self.flags.work_fetch_debug {
                    let message = format!(
                        "[work_fetch] backing off {} {secs:.0} sec",
                        self.rsc_name(state, rsc)
                    );
                    self.project_line(now, state, project, &message);
                }
            }
            LoopEvent::Rpc {
                project,
                request,
                jobs,
                refused,
                ..
            } => self.rpc(now, state, project, request, jobs, refused),
            LoopEvent::Note(note) => self.note(now, state, note),
            // `--log-out` is refused for the 6.x generations.
            LoopEvent::RrSim(_)
            | LoopEvent::Unsolicited(_)
            | LoopEvent::EngineError { .. }
            | LoopEvent::Ltd(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// client/sim_util.cpp: a day boundary prints as 24:00:00, after it
    /// `1 day`/`N days`.
    #[test]
    fn emulator_time_strings() {
        assert_eq!(sim_time(0.0), "00:00:00");
        assert_eq!(sim_time(3600.0), "01:00:00");
        assert_eq!(sim_time(86400.0), "24:00:00");
        assert_eq!(sim_time(86640.0), "1 day 00:04:00");
        assert_eq!(sim_time(172800.0), "2 days 00:00:00");
        assert_eq!(timediff(69.0), "00:01:09");
        assert_eq!(timediff(90061.0), "1 days 01:01:01");
    }
}

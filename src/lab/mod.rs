//! The real-client lab: runs a real BOINC client binary in a fresh data
//! directory against project servers this crate serves on 127.0.0.1, and
//! leaves a data directory `boinc-audit audit` reads.
//!
//! A lab run is a seed-notation scenario (`simulate`'s; see
//! `simulate::scenario`) made real:
//! - each project is an anonymous-platform project (the lab notes in
//!   ../shared/lab: `--unsigned_apps_ok` stops all network traffic, an
//!   `app_info.xml` does not): an account file with the resource share and
//!   `projects/<P>/app_info.xml` naming the lab's application;
//! - the application ([`APP_SOURCE`], built with the system's boinc-dev) runs
//!   for the seconds its input file says and reports its progress;
//! - host and preference terms become cc_config.xml (`<ncpus>`, `<no_gpus>`,
//!   the reference traces' log flags, `rec_half_life_days`) and
//!   global_prefs_override.xml (buffers, scheduling period, leave in memory;
//!   no CPU-load or user-activity suspension); `mc=`/`pmc=` become
//!   app_config.xml;
//! - the servers ([`server`]) follow the scheduler rules S1–S10; `down`,
//!   `empty` and `delay=S` change what one project's scheduler does; `nnw=H`
//!   sets "no new tasks" through `boinccmd` `H` hours in.
//!
//! The run is stopped with SIGTERM (the client saves its state and exits),
//! then the directory is trimmed to what an audit reads: the event log,
//! client_state.xml, job logs, the configuration files, and every
//! scheduler exchange as `rpcs/rpc-NNNNN/` (the client itself keeps only the
//! last request and reply per project; those copies are removed).
//!
//! I/O and processes only: no policy here.

pub mod server;

use crate::simulate::random::REFERENCE_LOG_FLAGS;
use crate::simulate::scenario::{from_notation, World};
use crate::trace::state::escaped_master_url;
use server::{LabApp, LabProject, LabServer, ServerStats, VERSION_NUM};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The lab application's C source (built at each run).
pub const APP_SOURCE: &str = include_str!("app.c");

/// A lab run's options.
#[derive(Clone, Debug)]
pub struct LabOptions {
    /// The scenario in seed notation.
    pub scenario: String,
    /// The client binary.
    pub client: PathBuf,
    /// `boinccmd` (needed for `nnw=H`); default: beside the client, else PATH.
    pub boinccmd: Option<PathBuf>,
    /// Seconds to run.
    pub duration: f64,
    /// The data directory to create.
    pub out: PathBuf,
    /// C compiler for the application.
    pub cc: String,
    /// A prebuilt application instead of compiling [`APP_SOURCE`].
    pub app: Option<PathBuf>,
}

/// What a lab run produced.
#[derive(Clone, Debug, Default)]
pub struct LabSummary {
    /// The data directory.
    pub out: PathBuf,
    /// The client's version line, if the log has one.
    pub client_version: Option<String>,
    /// The server's counts.
    pub server: ServerStats,
    /// Work-fetch state blocks in the log.
    pub work_fetch_blocks: usize,
    /// Scheduler requests the log shows sent.
    pub rpcs_logged: usize,
    /// Tasks the log shows finished computing.
    pub tasks_finished: usize,
    /// Event-log lines.
    pub log_lines: usize,
    /// Seconds the client ran.
    pub ran_secs: f64,
    /// The client exited by itself before the end.
    pub exited_early: Option<String>,
    /// Problems found in the log (network suspended, app not found, …).
    pub problems: Vec<String>,
    /// Scenario actions that failed (a `nnw=H` that boinccmd could not set).
    pub actions_failed: usize,
}

/// The lab could not run.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// The scenario cannot be run in the lab.
    #[error("scenario: {0}")]
    Scenario(String),
    /// A file or directory could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The application could not be built.
    #[error("building the lab application: {0}")]
    App(String),
    /// The client could not be started.
    #[error("starting the client {path}: {why}")]
    Client {
        /// The binary.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The server could not start.
    #[error(transparent)]
    Server(#[from] server::ServerError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LabError + '_ {
    move |source| LabError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn write(path: &Path, text: &str) -> Result<(), LabError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    std::fs::write(path, text).map_err(io(path))
}

/// The lab's projects, host and preferences, from a seed-notation scenario.
#[derive(Clone, Debug)]
pub struct LabScenario {
    /// Projects in the scenario's order.
    pub projects: Vec<LabProject>,
    /// Per project (same order): app max_concurrent, project max_concurrent.
    pub limits: Vec<(Option<u32>, Option<u32>)>,
    /// Per project (same order): "no new tasks" after this many seconds.
    pub no_new_work_after: Vec<Option<f64>>,
    /// CPUs of the host.
    pub ncpus: u32,
    /// work_buf_min_days, work_buf_additional_days.
    pub buffers: (f64, f64),
    /// cpu_scheduling_period_minutes.
    pub scheduling_period_minutes: f64,
    /// leave_apps_in_memory.
    pub leave_in_memory: bool,
    /// rec_half_life_days.
    pub rec_half_life_days: f64,
    /// What the lab does to the host during the run, in time order.
    pub host_actions: Vec<HostAction>,
}

/// A change the lab makes to a running client (a lab-only host term).
#[derive(Clone, Debug, PartialEq)]
pub struct HostAction {
    /// Seconds after the client first started.
    pub at_secs: f64,
    /// What is done.
    pub change: HostChange,
}

/// What a [`HostAction`] does.
#[derive(Clone, Debug, PartialEq)]
pub enum HostChange {
    /// `restart=H`: the client is stopped (SIGTERM: it saves its state) and
    /// started again on the same data directory.
    Restart,
    /// `net_off=H1-H2`: `boinccmd --set_network_mode never` at H1 (this
    /// action) and `auto` at H2 (`NetworkOn`).
    NetworkOff,
    /// The end of a `net_off` period.
    NetworkOn,
    /// `suspend=NAME:H1-H2`: the project is suspended at H1 (`boinccmd
    /// --project URL suspend`, this action) and resumed at H2.
    Suspend(String),
    /// The end of a `suspend` period.
    Resume(String),
    /// `prefs_at=H:KEY=V:…`: global_prefs_override.xml rewritten with these
    /// values and re-read (`boinccmd --read_global_prefs_override`).
    Prefs(PrefsChange),
}

/// The preferences a `prefs_at=` term changes (the rest stay).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrefsChange {
    /// work_buf_min_days.
    pub min_buf: Option<f64>,
    /// work_buf_additional_days.
    pub add_buf: Option<f64>,
    /// max_ncpus_pct.
    pub max_ncpus_pct: Option<f64>,
    /// cpu_scheduling_period_minutes (given in hours, as the notation's).
    pub scheduling_period_minutes: Option<f64>,
}

/// The lab-only host terms (`restart=H`, `net_off=H1-H2`,
/// `suspend=NAME:H1-H2`, `prefs_at=H:…`)
/// taken out of a scenario; the rest is left for the seed notation.
fn host_actions(text: &str) -> Result<(String, Vec<HostAction>), LabError> {
    let bad = |term: &str, why: &str| LabError::Scenario(format!("{term:?}: {why}"));
    let hours = |term: &str, v: &str| -> Result<f64, LabError> {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|h| h.is_finite() && *h >= 0.0)
            .map(|h| h * 3600.0)
            .ok_or_else(|| bad(term, "expected hours >= 0"))
    };
    let period = |term: &str, v: &str| -> Result<(f64, f64), LabError> {
        let (from, to) = v
            .split_once('-')
            .ok_or_else(|| bad(term, "expected a period H1-H2"))?;
        let (from, to) = (hours(term, from)?, hours(term, to)?);
        if to <= from {
            return Err(bad(term, "the period must end after it starts"));
        }
        Ok((from, to))
    };
    let mut rest = Vec::new();
    let mut actions = Vec::new();
    for term in text.split_whitespace() {
        let lower = term.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("restart=") {
            actions.push(HostAction {
                at_secs: hours(term, v)?,
                change: HostChange::Restart,
            });
        } else if let Some(v) = lower.strip_prefix("net_off=") {
            let (from, to) = period(term, v)?;
            actions.push(HostAction {
                at_secs: from,
                change: HostChange::NetworkOff,
            });
            actions.push(HostAction {
                at_secs: to,
                change: HostChange::NetworkOn,
            });
        } else if lower.starts_with("suspend=") {
            let (name, v) = term["suspend=".len()..]
                .split_once(':')
                .ok_or_else(|| bad(term, "expected suspend=NAME:H1-H2"))?;
            let (from, to) = period(term, v)?;
            actions.push(HostAction {
                at_secs: from,
                change: HostChange::Suspend(name.to_string()),
            });
            actions.push(HostAction {
                at_secs: to,
                change: HostChange::Resume(name.to_string()),
            });
        } else if let Some(v) = lower.strip_prefix("prefs_at=") {
            let mut parts = v.split(':');
            let at_secs = hours(term, parts.next().unwrap_or_default())?;
            let mut prefs = PrefsChange::default();
            for part in parts {
                let (key, value) = part
                    .split_once('=')
                    .ok_or_else(|| bad(term, "expected prefs_at=H:KEY=VALUE[:KEY=VALUE]"))?;
                let value = value
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| bad(term, "expected a number >= 0"))?;
                match key {
                    "min_buf" | "min_queue" => prefs.min_buf = Some(value),
                    "add_buf" => prefs.add_buf = Some(value),
                    "max_ncpus_pct" => prefs.max_ncpus_pct = Some(value.clamp(1.0, 100.0)),
                    "cpu_scheduling_period" => prefs.scheduling_period_minutes = Some(value * 60.0),
                    _ => {
                        return Err(bad(
                            term,
                            "keys are min_buf, add_buf, max_ncpus_pct, cpu_scheduling_period",
                        ))
                    }
                }
            }
            if prefs == PrefsChange::default() {
                return Err(bad(term, "no preference to change"));
            }
            actions.push(HostAction {
                at_secs,
                change: HostChange::Prefs(prefs),
            });
        } else {
            rest.push(term);
        }
    }
    actions.sort_by(|a, b| a.at_secs.total_cmp(&b.at_secs));
    Ok((rest.join(" "), actions))
}

/// The part of a lab scenario that `simulate` runs: without the lab-only
/// host terms (`restart=`, `net_off=`, `suspend=`, `prefs_at=`) and project
/// options (`delay=S`, `noack`); also returns what it left out.
pub fn simulate_notation(scenario: &str) -> Result<(String, Vec<String>), LabError> {
    let (rest, actions) = host_actions(scenario)?;
    let mut dropped: Vec<String> = actions
        .iter()
        .filter(|a| !matches!(a.change, HostChange::NetworkOn | HostChange::Resume(_)))
        .map(|a| {
            format!(
                "{} at {:.0} s",
                TimedChange::Host(a.change.clone()),
                a.at_secs
            )
        })
        .collect();
    let mut out = String::with_capacity(rest.len());
    let mut tail = rest.as_str();
    // Project options are the comma-separated items inside a term's parentheses.
    while let Some(open) = tail.find('(') {
        let close = tail[open..].find(')').map_or(tail.len(), |k| open + k);
        out.push_str(&tail[..=open]);
        let kept: Vec<&str> = tail[open + 1..close]
            .split(',')
            .filter(|item| {
                let item = item.trim();
                let lab_only = item.eq_ignore_ascii_case("noack")
                    || item.to_ascii_lowercase().starts_with("delay=");
                if lab_only {
                    dropped.push(item.to_string());
                }
                !lab_only
            })
            .collect();
        out.push_str(&kept.join(","));
        tail = &tail[close..];
    }
    out.push_str(tail);
    Ok((out, dropped))
}

/// Reads a seed-notation scenario as a lab scenario; refuses what a real
/// client on this machine cannot do (GPUs, jobs on the host at the start,
/// projects attached later).
pub fn lab_scenario(text: &str) -> Result<LabScenario, LabError> {
    let (text, host_actions) = host_actions(text)?;
    let world: World = from_notation(&text).map_err(|e| LabError::Scenario(e.to_string()))?;
    let state = &world.state;
    if !state.host.coprocs.is_empty() {
        return Err(LabError::Scenario(
            "the lab has no GPU: use CPU projects only (no gpu=, mixed, gpu_from=)".into(),
        ));
    }
    if !state.jobs.is_empty() {
        return Err(LabError::Scenario(
            "init=H (a job on the host at the start) is not supported by the lab".into(),
        ));
    }
    if world
        .server_options
        .iter()
        .any(|o| o.attach_after.is_some())
    {
        return Err(LabError::Scenario(
            "from=H (a project attached later) is not supported by the lab".into(),
        ));
    }
    let mut projects = Vec::new();
    let mut limits = Vec::new();
    let mut no_new_work_after = Vec::new();
    for (k, project) in state.projects.iter().enumerate() {
        let options = world
            .server_options
            .iter()
            .find(|o| o.project == project.name.as_str())
            .cloned()
            .unwrap_or_default();
        let server = world.servers.get(k);
        let apps = project
            .app_versions
            .iter()
            .filter_map(|v| {
                let app = server?.apps.iter().find(|a| a.name == v.app.as_str());
                // An `empty` project has no server apps; its jobs would have
                // the version's speed and the term's size, never sent.
                Some(LabApp {
                    name: v.app.to_string(),
                    avg_ncpus: v.usage.avg_ncpus,
                    flops: v.usage.flops,
                    fpops_est: app.map_or(0.0, |a| a.fpops_est),
                    latency_bound: app.map_or(0.0, |a| a.latency_bound),
                })
            })
            .collect();
        projects.push(LabProject {
            name: project.name.to_string(),
            share: project.resource_share,
            apps,
            down: options.down,
            empty: options.empty,
            request_delay: options.request_delay,
            no_ack: options.no_ack,
        });
        limits.push((
            project.apps.iter().find_map(|a| a.max_concurrent),
            project.project_max_concurrent,
        ));
        no_new_work_after.push(if project.dont_request_more_work {
            Some(0.0)
        } else {
            options.no_new_work_after
        });
    }
    for action in &host_actions {
        if let HostChange::Suspend(name) | HostChange::Resume(name) = &action.change {
            if !projects.iter().any(|p| &p.name == name) {
                return Err(LabError::Scenario(format!(
                    "suspend={name}:…: no project {name} in the scenario"
                )));
            }
        }
    }
    Ok(LabScenario {
        projects,
        limits,
        no_new_work_after,
        ncpus: state.host.p_ncpus,
        buffers: (
            state.prefs.work_buf_min_days,
            state.prefs.work_buf_additional_days,
        ),
        scheduling_period_minutes: state.prefs.cpu_scheduling_period_minutes,
        leave_in_memory: state.prefs.leave_apps_in_memory,
        rec_half_life_days: state.config.rec_half_life_days,
        host_actions,
    })
}

/// cc_config.xml of a lab run.
pub fn cc_config(scenario: &LabScenario) -> String {
    let mut text = String::from("<cc_config>\n  <log_flags>\n");
    // The references' flags, plus file transfers and rr_sim's detail.
    for flag in REFERENCE_LOG_FLAGS
        .iter()
        .chain(&["file_xfer", "rrsim_detail"])
    {
        let _ = writeln!(text, "    <{flag}>1</{flag}>");
    }
    let _ = write!(
        text,
        "  </log_flags>\n  <options>\n    <ncpus>{}</ncpus>\n    <no_gpus>1</no_gpus>\n    \
         <rec_half_life_days>{}</rec_half_life_days>\n  </options>\n</cc_config>\n",
        scenario.ncpus, scenario.rec_half_life_days
    );
    text
}

/// global_prefs_override.xml of a lab run: the scenario's buffers and
/// period; computing never suspended for CPU load, user activity or
/// batteries (a lab machine is busy with other work).
pub fn prefs_override(scenario: &LabScenario, change: &PrefsChange) -> String {
    format!(
        "<global_preferences>\n   <work_buf_min_days>{}</work_buf_min_days>\n   \
         <work_buf_additional_days>{}</work_buf_additional_days>\n   \
         <cpu_scheduling_period_minutes>{}</cpu_scheduling_period_minutes>\n   \
         <leave_apps_in_memory>{}</leave_apps_in_memory>\n   \
         <max_ncpus_pct>{}</max_ncpus_pct>\n   <cpu_usage_limit>100</cpu_usage_limit>\n   \
         <suspend_cpu_usage>0</suspend_cpu_usage>\n   <run_on_batteries>1</run_on_batteries>\n   \
         <run_if_user_active>1</run_if_user_active>\n   \
         <run_gpu_if_user_active>1</run_gpu_if_user_active>\n   \
         <ram_max_used_busy_pct>90</ram_max_used_busy_pct>\n   \
         <ram_max_used_idle_pct>90</ram_max_used_idle_pct>\n</global_preferences>\n",
        change.min_buf.unwrap_or(scenario.buffers.0),
        change.add_buf.unwrap_or(scenario.buffers.1),
        change
            .scheduling_period_minutes
            .unwrap_or(scenario.scheduling_period_minutes),
        u8::from(scenario.leave_in_memory),
        change.max_ncpus_pct.unwrap_or(100.0),
    )
}

/// account_<P>.xml of a project.
pub fn account_file(project: &LabProject, master_url: &str) -> String {
    format!(
        "<account>\n    <master_url>{master_url}</master_url>\n    \
         <authenticator>lab_{}</authenticator>\n    <project_name>{}</project_name>\n    \
         <project_preferences>\n        <resource_share>{}</resource_share>\n    \
         </project_preferences>\n</account>\n",
        project.name.to_lowercase(),
        project.name,
        project.share
    )
}

/// projects/<P>/app_info.xml: the project's apps, all run by `exe`.
pub fn app_info(project: &LabProject, exe: &str) -> String {
    let mut text = String::from("<app_info>\n");
    for app in &project.apps {
        let _ = writeln!(text, "  <app>\n    <name>{}</name>\n  </app>", app.name);
    }
    let _ = writeln!(
        text,
        "  <file_info>\n    <name>{exe}</name>\n    <executable/>\n  </file_info>"
    );
    for app in &project.apps {
        let _ = writeln!(
            text,
            "  <app_version>\n    <app_name>{}</app_name>\n    \
             <version_num>{VERSION_NUM}</version_num>\n    <avg_ncpus>{}</avg_ncpus>\n    \
             <flops>{:e}</flops>\n    <file_ref>\n      <file_name>{exe}</file_name>\n      \
             <main_program/>\n    </file_ref>\n  </app_version>",
            app.name, app.avg_ncpus, app.flops
        );
    }
    text.push_str("</app_info>\n");
    text
}

/// projects/<P>/app_config.xml, when the project has limits.
pub fn app_config(project: &LabProject, limits: (Option<u32>, Option<u32>)) -> Option<String> {
    let (app_mc, project_mc) = limits;
    if app_mc.is_none() && project_mc.is_none() {
        return None;
    }
    let mut text = String::from("<app_config>\n");
    if let Some(mc) = app_mc {
        for app in &project.apps {
            let _ = writeln!(
                text,
                "  <app>\n    <name>{}</name>\n    <max_concurrent>{mc}</max_concurrent>\n  </app>",
                app.name
            );
        }
    }
    if let Some(mc) = project_mc {
        let _ = writeln!(
            text,
            "  <project_max_concurrent>{mc}</project_max_concurrent>"
        );
    }
    text.push_str("</app_config>\n");
    Some(text)
}

const APP_NAME: &str = "boinc_audit_lab_app";

/// Builds the application into `dir`, or copies the given one.
fn build_app(options: &LabOptions, dir: &Path) -> Result<PathBuf, LabError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let exe = dir.join(APP_NAME);
    if let Some(app) = &options.app {
        std::fs::copy(app, &exe).map_err(io(app))?;
        return Ok(exe);
    }
    let source = dir.join("app.c");
    write(&source, APP_SOURCE)?;
    let output = Command::new(&options.cc)
        .arg(&source)
        .arg("-O2")
        .arg("-o")
        .arg(&exe)
        .args([
            "-I/usr/include/boinc",
            "-lboinc_api",
            "-lboinc",
            "-lpthread",
            "-lstdc++",
        ])
        .output()
        .map_err(|e| LabError::App(format!("cannot run {}: {e}", options.cc)))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let hint = if stderr.contains("boinc_api.h") {
            " (install boinc-dev: apt-get install boinc-dev)"
        } else {
            ""
        };
        return Err(LabError::App(format!(
            "{} failed{hint}: {}",
            options.cc,
            stderr.lines().take(5).collect::<Vec<_>>().join(" | ")
        )));
    }
    Ok(exe)
}

fn free_port() -> Result<u16, LabError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|source| LabError::Io {
        path: PathBuf::from("127.0.0.1:0"),
        source,
    })?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|source| LabError::Io {
            path: PathBuf::from("127.0.0.1:0"),
            source,
        })
}

fn boinccmd_path(options: &LabOptions) -> PathBuf {
    if let Some(path) = &options.boinccmd {
        return path.clone();
    }
    let beside = options.client.with_file_name("boinccmd");
    if beside.exists() {
        beside
    } else {
        PathBuf::from("boinccmd")
    }
}

/// The client process, in a process group of its own (its tasks with it):
/// stopped with SIGTERM (the client saves its state and tells its tasks
/// to quit), else after 30 s the whole group is killed. Dropping it stops
/// it too, so no error path leaves a client running.
struct ClientProcess {
    child: Option<Child>,
}

impl ClientProcess {
    fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    fn signal(pid: u32, signal: &str, group: bool) {
        let target = if group {
            format!("-{pid}")
        } else {
            pid.to_string()
        };
        let _ = Command::new("kill")
            .args([signal, "--", &target])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    /// Stops the client; `Some(why)` when it had to be killed.
    fn stop(&mut self) -> Option<String> {
        let mut child = self.child.take()?;
        let pid = child.id();
        Self::signal(pid, "-TERM", false);
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Self::signal(pid, "-KILL", true);
        let _ = child.kill();
        let _ = child.wait();
        Some(
            "the client did not exit within 30 s of SIGTERM: its process group was killed \
             (client_state.xml may predate the end of the run)"
                .into(),
        )
    }
}

impl Drop for ClientProcess {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// Runs boinccmd, waiting at most 20 s; `Err` says why it failed.
fn run_boinccmd(boinccmd: &Path, args: &[&str], dir: &Path) -> Result<(), String> {
    let mut child = Command::new(boinccmd)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", boinccmd.display()))?;
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("{} exited {status}", boinccmd.display())),
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(e.to_string()),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(format!("{} did not answer within 20 s", boinccmd.display()))
}

/// Runs one lab scenario; `progress` gets a line now and then.
pub fn run(options: &LabOptions, progress: &mut dyn FnMut(&str)) -> Result<LabSummary, LabError> {
    let scenario = lab_scenario(&options.scenario)?;
    if !(options.duration.is_finite() && options.duration > 0.0) {
        return Err(LabError::Scenario("--duration must be > 0 seconds".into()));
    }
    let out = &options.out;
    if out.exists() && std::fs::read_dir(out).map_err(io(out))?.next().is_some() {
        return Err(LabError::Scenario(format!(
            "{} exists and is not empty: a lab run needs a fresh data directory",
            out.display()
        )));
    }
    std::fs::create_dir_all(out).map_err(io(out))?;
    // The client changes into --dir: give it an absolute path.
    let absolute = std::fs::canonicalize(out).map_err(io(out))?;
    let out = &absolute;
    let build_dir = out.join(".lab-build");
    let exe = build_app(options, &build_dir)?;
    let server = LabServer::start(scenario.projects.clone(), &out.join("rpcs"))?;
    write(&out.join("cc_config.xml"), &cc_config(&scenario))?;
    write(
        &out.join("global_prefs_override.xml"),
        &prefs_override(&scenario, &PrefsChange::default()),
    )?;
    write(&out.join("gui_rpc_auth.cfg"), "")?;
    for (k, project) in scenario.projects.iter().enumerate() {
        let url = server.master_url(&project.name);
        let escaped = escaped_master_url(&url);
        write(
            &out.join(format!("account_{escaped}.xml")),
            &account_file(project, &url),
        )?;
        let dir = out.join("projects").join(&escaped);
        write(&dir.join("app_info.xml"), &app_info(project, APP_NAME))?;
        let target = dir.join(APP_NAME);
        std::fs::copy(&exe, &target).map_err(io(&target))?;
        if let Some(text) = app_config(project, scenario.limits.get(k).copied().unwrap_or_default())
        {
            write(&dir.join("app_config.xml"), &text)?;
        }
    }
    let mut lab_txt = format!(
        "boinc-audit lab run\nscenario: {}\nclient: {}\nduration: {} s\nserver: 127.0.0.1:{}\n",
        options.scenario.trim(),
        options.client.display(),
        options.duration,
        server.port()
    );
    let gui_port = free_port()?;
    let started = Instant::now();
    let mut client = start_client(options, out, gui_port)?;
    let mut problems: Vec<String> = Vec::new();
    let mut actions_failed = 0;
    progress(&format!(
        "lab: client {} started in {} (pid {}), projects on 127.0.0.1:{}; running {} s",
        options.client.display(),
        out.display(),
        client.pid(),
        server.port(),
        options.duration
    ));
    let mut pending = timed_actions(&scenario, &server);
    let mut prefs = PrefsChange::default();
    let mut exited_early = None;
    let mut next_report = 30.0;
    let boinccmd = boinccmd_path(options);
    let host = format!("127.0.0.1:{gui_port}");
    // A GUI RPC to the running client through boinccmd.
    let gui_rpc = |args: &[&str]| {
        let mut all = vec!["--host", host.as_str(), "--passwd", ""];
        all.extend_from_slice(args);
        run_boinccmd(&boinccmd, &all, out)
    };
    loop {
        let elapsed = started.elapsed().as_secs_f64();
        if elapsed >= options.duration {
            break;
        }
        if let Some(Ok(Some(status))) = client.child.as_mut().map(Child::try_wait) {
            exited_early = Some(format!("the client exited after {elapsed:.0} s: {status}"));
            break;
        }
        // Actions through boinccmd need the client's GUI RPC server: give it a second.
        while let Some(action) = pending
            .first()
            .filter(|a| a.at_secs <= elapsed && elapsed >= 1.0)
            .cloned()
        {
            pending.remove(0);
            let outcome = match &action.change {
                TimedChange::Host(HostChange::Restart) => {
                    let stopped = client.stop();
                    start_client(options, out, gui_port)
                        .map(|c| {
                            client = c;
                            format!(
                                "client restarted (pid {}){}",
                                client.pid(),
                                stopped.map(|w| format!("; {w}")).unwrap_or_default()
                            )
                        })
                        .map_err(|e| e.to_string())
                }
                TimedChange::Host(HostChange::Prefs(change)) => {
                    prefs.merge(change);
                    let path = out.join("global_prefs_override.xml");
                    write(&path, &prefs_override(&scenario, &prefs))
                        .map_err(|e| e.to_string())
                        .and_then(|()| gui_rpc(&["--read_global_prefs_override"]))
                        .map(|()| format!("preferences changed: {}", change.describe()))
                }
                TimedChange::Host(
                    change @ (HostChange::Suspend(name) | HostChange::Resume(name)),
                ) => {
                    let url = server.master_url(name);
                    let (op, done) = if matches!(change, HostChange::Suspend(_)) {
                        ("suspend", "suspended")
                    } else {
                        ("resume", "resumed")
                    };
                    gui_rpc(&["--project", &url, op]).map(|()| format!("{url} {done}"))
                }
                TimedChange::Host(network @ (HostChange::NetworkOff | HostChange::NetworkOn)) => {
                    let mode = if *network == HostChange::NetworkOff {
                        "never"
                    } else {
                        "auto"
                    };
                    gui_rpc(&["--set_network_mode", mode, "0"])
                        .map(|()| format!("network mode set to {mode}"))
                }
                TimedChange::NoNewWork(url) => gui_rpc(&["--project", url, "nomorework"])
                    .map(|()| format!("{url} set to no new tasks")),
            };
            let line = match outcome {
                Ok(done) => format!("at {elapsed:.0} s: {done}"),
                Err(why) => {
                    actions_failed += 1;
                    let line = format!("at {elapsed:.0} s: {} failed: {why}", action.change);
                    problems.push(line.clone());
                    line
                }
            };
            progress(&format!("lab: {line}"));
            lab_txt.push_str(&line);
            lab_txt.push('\n');
        }
        if elapsed >= next_report {
            let stats = server.stats();
            progress(&format!(
                "lab: {elapsed:.0}/{} s, {} scheduler requests, {} tasks sent, {} reported",
                options.duration, stats.requests, stats.tasks_sent, stats.tasks_reported
            ));
            next_report += 30.0;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    if let Some(why) = client.stop() {
        problems.push(why);
    }
    let ran_secs = started.elapsed().as_secs_f64();
    let stats = server.stats();
    drop(server);
    lab_txt.push_str(&format!("ran: {ran_secs:.0} s\n"));
    write(&out.join("lab.txt"), &lab_txt)?;
    trim(out);
    let mut summary = summarize(out);
    summary.server = stats;
    summary.ran_secs = ran_secs;
    if exited_early.is_some() {
        // What the client said on its way out.
        let stderr = std::fs::read(out.join("stderrdae.txt")).unwrap_or_default();
        let text = String::from_utf8_lossy(&stderr);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        for line in &lines[lines.len().saturating_sub(3)..] {
            summary
                .problems
                .push(format!("stderrdae.txt: {}", line.trim()));
        }
    }
    summary.problems.extend(problems);
    summary.actions_failed = actions_failed;
    summary.exited_early = exited_early;
    Ok(summary)
}

/// A scenario's actions during the run, in time order.
#[derive(Clone, Debug)]
struct TimedAction {
    at_secs: f64,
    change: TimedChange,
}

#[derive(Clone, Debug)]
enum TimedChange {
    /// `nnw=H` of the project at this master URL.
    NoNewWork(String),
    /// A lab-only host term.
    Host(HostChange),
}

impl std::fmt::Display for TimedChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoNewWork(url) => write!(f, "nomorework for {url}"),
            Self::Host(HostChange::Restart) => f.write_str("restarting the client"),
            Self::Host(HostChange::NetworkOff) => f.write_str("network mode never"),
            Self::Host(HostChange::NetworkOn) => f.write_str("network mode auto"),
            Self::Host(HostChange::Suspend(name)) => write!(f, "suspending {name}"),
            Self::Host(HostChange::Resume(name)) => write!(f, "resuming {name}"),
            Self::Host(HostChange::Prefs(change)) => {
                write!(f, "preferences change ({})", change.describe())
            }
        }
    }
}

fn timed_actions(scenario: &LabScenario, server: &LabServer) -> Vec<TimedAction> {
    let mut actions: Vec<TimedAction> = scenario
        .no_new_work_after
        .iter()
        .zip(&scenario.projects)
        .filter_map(|(after, p)| {
            after.map(|at_secs| TimedAction {
                at_secs,
                change: TimedChange::NoNewWork(server.master_url(&p.name)),
            })
        })
        .chain(scenario.host_actions.iter().map(|a| TimedAction {
            at_secs: a.at_secs,
            change: TimedChange::Host(a.change.clone()),
        }))
        .collect();
    actions.sort_by(|a, b| a.at_secs.total_cmp(&b.at_secs));
    actions
}

impl PrefsChange {
    /// Takes the values `later` sets; keeps the rest.
    pub fn merge(&mut self, later: &PrefsChange) {
        self.min_buf = later.min_buf.or(self.min_buf);
        self.add_buf = later.add_buf.or(self.add_buf);
        self.max_ncpus_pct = later.max_ncpus_pct.or(self.max_ncpus_pct);
        self.scheduling_period_minutes = later
            .scheduling_period_minutes
            .or(self.scheduling_period_minutes);
    }

    /// `min_buf=0.002 max_ncpus_pct=50`: what it sets.
    pub fn describe(&self) -> String {
        [
            ("min_buf", self.min_buf),
            ("add_buf", self.add_buf),
            ("max_ncpus_pct", self.max_ncpus_pct),
            (
                "cpu_scheduling_period_minutes",
                self.scheduling_period_minutes,
            ),
        ]
        .iter()
        .filter_map(|(k, v)| v.map(|v| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join(" ")
    }
}

/// Starts the client on the lab's data directory, in a process group of
/// its own (its tasks with it).
fn start_client(
    options: &LabOptions,
    out: &Path,
    gui_port: u16,
) -> Result<ClientProcess, LabError> {
    let mut command = Command::new(&options.client);
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = command
        .arg("--dir")
        .arg(out)
        .args([
            "--skip_cpu_benchmarks",
            "--no_info_fetch",
            "--allow_multiple_clients",
            "--redirectio",
            "--gui_rpc_port",
        ])
        .arg(gui_port.to_string())
        .current_dir(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| LabError::Client {
            path: options.client.clone(),
            why: e.to_string(),
        })?;
    Ok(ClientProcess { child: Some(child) })
}

/// Removes what the client needs only to run (slots, executables, caches)
/// and its copies of the last RPC of each project (`rpcs/` has them all).
fn trim(out: &Path) {
    for dir in [".lab-build", "slots", "notices", "locale"] {
        let _ = std::fs::remove_dir_all(out.join(dir));
    }
    let Ok(entries) = std::fs::read_dir(out) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let drop = name.starts_with("sched_request_")
            || name.starts_with("sched_reply_")
            || name.starts_with("master_")
            || matches!(
                name.as_str(),
                "lockfile"
                    | "gui_rpc_auth.cfg"
                    | "client_state_prev.xml"
                    | "time_stats_log"
                    | "daily_xfer_history.xml"
                    | "coproc_info.xml"
                    | "boinc_finish_called"
            );
        if drop {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    if let Ok(projects) = std::fs::read_dir(out.join("projects")) {
        for project in projects.flatten() {
            let Ok(files) = std::fs::read_dir(project.path()) else {
                continue;
            };
            for file in files.flatten() {
                let name = file.file_name().to_string_lossy().to_string();
                if name != "app_info.xml" && name != "app_config.xml" {
                    let _ = std::fs::remove_file(file.path());
                }
            }
        }
    }
}

/// Counts what the acceptance of a lab run looks at, from its event log.
pub fn summarize(out: &Path) -> LabSummary {
    let mut summary = LabSummary {
        out: out.to_path_buf(),
        ..LabSummary::default()
    };
    let bytes = std::fs::read(out.join("stdoutdae.txt")).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    for line in text.lines() {
        summary.log_lines += 1;
        if line.contains("------- start work fetch state -------") {
            summary.work_fetch_blocks += 1;
        } else if line.contains("Sending scheduler request") {
            summary.rpcs_logged += 1;
        } else if line.contains("Computation for task") && line.contains("finished") {
            summary.tasks_finished += 1;
        } else if summary.client_version.is_none() && line.contains("Starting BOINC client version")
        {
            summary.client_version = line
                .split("Starting BOINC client version ")
                .nth(1)
                .map(|v| v.split_whitespace().next().unwrap_or(v).to_string());
        }
        for problem in [
            "Suspending network activity",
            "No app version found",
            "Scheduler request failed",
            "Couldn't start",
            "exited with zero status but no 'finished' file",
        ] {
            if line.contains(problem) && !summary.problems.iter().any(|p| p.contains(problem)) {
                summary.problems.push(line.trim().to_string());
            }
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acceptance_scenario_reads() {
        let s = lab_scenario(
            "P1(0.01, 0.2, 2) P2(0.015, 0.2, 1, mc=1) NCPUS=2 min_buf=0.001 add_buf=0.002",
        )
        .unwrap();
        assert_eq!(s.ncpus, 2);
        assert_eq!(s.projects.len(), 2);
        assert!((s.projects[0].apps[0].job_secs() - 36.0).abs() < 1e-9);
        assert!((s.projects[0].apps[0].latency_bound - 720.0).abs() < 1e-9);
        assert_eq!(s.limits[1], (Some(1), None));
        let config = app_config(&s.projects[1], s.limits[1]).unwrap();
        assert!(config.contains("<max_concurrent>1</max_concurrent>"));
        assert!(cc_config(&s).contains("<ncpus>2</ncpus>"));
        let info = app_info(&s.projects[0], "x");
        assert!(info.contains("<flops>1e9</flops>"), "{info}");
    }

    #[test]
    fn host_terms_are_read_and_left_out_for_simulate() {
        let text = "P1(0.01, 0.2, 2, noack) P2(0.015, 0.2, 1, delay=60) NCPUS=2 restart=0.02 \
                    net_off=0.015-0.035 suspend=P2:0.01-0.02 prefs_at=0.03:add_buf=0.004:max_ncpus_pct=50";
        let s = lab_scenario(text).unwrap();
        assert!(s.projects[0].no_ack && !s.projects[1].no_ack);
        let at: Vec<(f64, &HostChange)> = s
            .host_actions
            .iter()
            .map(|a| ((a.at_secs * 10.0).round() / 10.0, &a.change))
            .collect();
        assert_eq!(at[0], (36.0, &HostChange::Suspend("P2".into())));
        assert_eq!(at[1], (54.0, &HostChange::NetworkOff));
        assert_eq!(at[2], (72.0, &HostChange::Restart));
        assert_eq!(at[3], (72.0, &HostChange::Resume("P2".into())));
        assert_eq!(
            at[4],
            (
                108.0,
                &HostChange::Prefs(PrefsChange {
                    add_buf: Some(0.004),
                    max_ncpus_pct: Some(50.0),
                    ..PrefsChange::default()
                })
            )
        );
        assert_eq!(at[5], (126.0, &HostChange::NetworkOn));
        let prefs = prefs_override(
            &s,
            &PrefsChange {
                max_ncpus_pct: Some(50.0),
                ..PrefsChange::default()
            },
        );
        assert!(
            prefs.contains("<max_ncpus_pct>50</max_ncpus_pct>"),
            "{prefs}"
        );
        let (plain, dropped) = simulate_notation(text).unwrap();
        assert_eq!(plain, "P1(0.01, 0.2, 2) P2(0.015, 0.2, 1) NCPUS=2");
        assert_eq!(dropped.len(), 6, "{dropped:?}");
        assert!(crate::simulate::scenario::from_notation(&plain).is_ok());
    }

    #[test]
    fn refuses_what_the_lab_cannot_do() {
        assert!(lab_scenario("A(1, 2, 1) restart=x").is_err());
        assert!(lab_scenario("A(1, 2, 1) net_off=0.02-0.01").is_err());
        assert!(lab_scenario("A(1, 2, 1) suspend=B:0.01-0.02").is_err());
        assert!(lab_scenario("A(1, 2, 1) prefs_at=0.01").is_err());
        assert!(lab_scenario("A(1, 2, 1) prefs_at=0.01:colour=3").is_err());
        assert!(lab_scenario("A(1, 2, 1, gpu=1)").is_err());
        assert!(lab_scenario("A(1, 2, 1, init=1)").is_err());
        assert!(lab_scenario("A(1, 2, 1) B(1, 2, 1, from=1)").is_err());
    }
}

/// A recorded lab run's CPU use per project, from its own event log.
#[derive(Clone, Debug, PartialEq)]
pub struct RealUsage {
    /// The scenario (`lab.txt`).
    pub scenario: String,
    /// Seconds from the log's first to its last line.
    pub span: f64,
    /// CPUs of the host (the scenario's NCPUS).
    pub ncpus: f64,
    /// Per project (scenario order): name, share, CPU-seconds its tasks ran
    /// (elapsed time × CPUs per task), and that over `ncpus × span`.
    pub projects: Vec<(String, f64, f64, f64)>,
}

/// Reads a lab run (a folder with `lab.txt`): the scenario it ran and each
/// project's CPU use, from the task lines of its event log (`Starting
/// task`, `Resuming task`, a restart's `Restarting task` or
/// `task_state=EXECUTING` to `Preempting`, `Computation for task …
/// finished`, the client's last line before a restart, or the end of the
/// log), to whole seconds.
pub fn real_usage(dir: &Path) -> Result<RealUsage, LabError> {
    use crate::trace::message::Message;
    let lab_txt = dir.join("lab.txt");
    let text = std::fs::read_to_string(&lab_txt).map_err(io(&lab_txt))?;
    let scenario = text
        .lines()
        .find_map(|l| l.strip_prefix("scenario: "))
        .ok_or_else(|| LabError::Scenario(format!("{}: no `scenario:` line", lab_txt.display())))?
        .to_string();
    let lab = lab_scenario(&scenario)?;
    let parsed =
        crate::parse::load_trace(&[dir.to_path_buf()], &crate::parse::LogOptions::default());
    let trace = parsed.value;
    let ncpus_of = |project: &str| {
        lab.projects
            .iter()
            .find(|p| p.name == project)
            .and_then(|p| p.apps.first())
            .map_or(1.0, |a| a.avg_ncpus)
    };
    let mut running: std::collections::HashMap<String, (String, f64)> = Default::default();
    let mut used: std::collections::HashMap<String, f64> = Default::default();
    let (mut first, mut last) = (None::<f64>, 0.0f64);
    for event in &trace.events {
        let Some(now) = event.time.secs() else {
            continue;
        };
        first.get_or_insert(now);
        // A restart: the tasks stopped with the client, by its last line.
        if matches!(event.message, Message::ClientStart { .. }) {
            for (_, (p, since)) in running.drain() {
                *used.entry(p.clone()).or_default() += (last - since).max(0.0) * ncpus_of(&p);
            }
        }
        last = last.max(now);
        let project = event.project.as_deref().unwrap_or_default().to_string();
        match &event.message {
            // A restart resumes a task with no untagged line: cpu_sched's
            // `Restarting task` or task_debug's `task_state=EXECUTING …
            // from start` tells it (app_start.cpp resume_or_start).
            Message::StartingTask { job }
            | Message::Resuming { job }
            | Message::TaskStart { job, .. } => {
                running.entry(job.to_string()).or_insert((project, now));
            }
            Message::TaskStateChange { job, .. } if event.message.process_started().is_some() => {
                running.entry(job.to_string()).or_insert((project, now));
            }
            Message::Preempting { job, .. } | Message::ComputationFinished { job } => {
                if let Some((p, since)) = running.remove(job.as_str()) {
                    *used.entry(p.clone()).or_default() += (now - since) * ncpus_of(&p);
                }
            }
            _ => {}
        }
    }
    for (_, (p, since)) in running {
        *used.entry(p.clone()).or_default() += (last - since) * ncpus_of(&p);
    }
    let span = last - first.unwrap_or(last);
    let ncpus = f64::from(lab.ncpus.max(1));
    let projects = lab
        .projects
        .iter()
        .map(|p| {
            let secs = used.get(&p.name).copied().unwrap_or(0.0);
            let fraction = if span > 0.0 {
                secs / (ncpus * span)
            } else {
                0.0
            };
            (p.name.clone(), p.share, secs, fraction)
        })
        .collect();
    Ok(RealUsage {
        scenario,
        span,
        ncpus,
        projects,
    })
}

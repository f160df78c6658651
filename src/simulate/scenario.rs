//! Scenarios: an emulator-style input folder or a seed-notation string,
//! turned into the simulated world (the engine's `HostState` plus the
//! simulated servers and host availability).
//!
//! # Seed notation
//!
//! ```text
//! P1(1000, 2000, .5) P2(1, 10, .5) NCPUS=2 min_queue=0.1
//! A(1, 168, .5, gpu=1) B(1, 168, .5, gpu=1, mixed) NCPUS=1 NGPUS=1 f=1e9 gpu_peak=1e10
//! ```
//!
//! A project term `NAME(C, D, R[, options])`: `C` = CPU (or GPU) hours per
//! task, `D` = delay bound in hours (deadline − send time), `R` = resource
//! share (any positive scale). Options:
//! - `gpu=G`: tasks use `G` instances of the GPU (and `cpus` CPUs, default
//!   0.01); the project has only this GPU app unless `mixed` is given;
//! - `mixed`: the project has both a CPU app and the GPU app (`cpu+gpu`);
//! - `cpus=N`: CPUs per CPU task (multi-threaded), or per GPU task;
//! - `sd=X`: standard deviation of the task size as a fraction of it (default 0);
//! - `mc=N`: app_config.xml `max_concurrent` of each of the project's apps;
//! - `pmc=N`: app_config.xml `project_max_concurrent`;
//! - `nnw` / `nnw=H`: the user sets "no new tasks" at the start / `H` hours in;
//! - `down`: the project's scheduler never answers (HTTP 500 in the lab);
//! - `empty`: the scheduler answers but never has a task;
//! - `delay=S`: each reply asks for `S` seconds before the next RPC
//!   (`<request_delay>`; the lab only: `simulate` refuses it);
//! - `noack`: the scheduler never acknowledges a reported task (no
//!   `<result_ack>`), so the client reports it again with every RPC (the
//!   lab only: `simulate` refuses it).
//!
//! Host and preference terms (`KEY=VALUE`, case-insensitive keys):
//! `NCPUS` (default 1), `NGPUS` (default 1 if any project has a GPU app,
//! else 0), `f` (CPU FLOPS, default 1e9), `gpu_peak` (GPU peak FLOPS,
//! default 1e10: a GPU rated 0.2 × 1e10 = 2 CPU-equivalents),
//! `min_queue`/`min_buf` (work_buf_min_days, default 0.1), `add_buf`
//! (work_buf_additional_days, default 0.25), `cpu_scheduling_period`
//! (hours, default 1), `leave_in_memory` (0/1/true/false), `H` (REC
//! half-life in days, default 10). Terms are separated by whitespace,
//! commas or newlines; `P(C, D, R; gpu)` (semicolon) is accepted as `gpu=1`.

use super::rng::{OnOff, Rng};
use super::server::{ServerApp, ServerProject};
use super::SimError;
use super::START_TIME;
use crate::parse::{self, LogOptions};
use crate::policy::generation::Generation;
use crate::policy::profile::Release;
use crate::policy::state::{App, AppVersion, Coproc, Host, HostState, Job, Project, ResourceUsage};
use crate::replay::build::{build_emulator_state_for, emulator_app_params};
use crate::resource::ResourceType;
use std::path::{Path, PathBuf};

/// Host availability processes (`<time_stats>` fractions with the emulator's `*_lambda`).
#[derive(Clone, Debug)]
pub struct HostAvailability {
    /// The client runs.
    pub on: OnOff,
    /// The network is connected.
    pub connected: OnOff,
    /// Computing is allowed (the emulator only uses it to gate GPU use).
    pub active: OnOff,
    /// GPU computing is allowed.
    pub gpu_active: OnOff,
}

impl HostAvailability {
    /// Always on, connected and allowed to use GPUs.
    pub fn always() -> Self {
        HostAvailability {
            on: OnOff::always(),
            connected: OnOff::always(),
            active: OnOff::always(),
            gpu_active: OnOff::always(),
        }
    }
}

/// The simulated world at the start of a run.
#[derive(Clone, Debug)]
pub struct World {
    /// The client's state (projects in the scenario's order).
    pub state: HostState,
    /// One server per project of `state`, same order.
    pub servers: Vec<ServerProject>,
    /// Host availability.
    pub host: HostAvailability,
    /// Projects dropped for want of a usable app version.
    pub dropped_projects: Vec<String>,
    /// Changes scheduled during the run (seed scenarios: a project attached
    /// later, a project gaining a GPU app), in time order.
    pub events: Vec<WorldEvent>,
    /// The server-side options of seed-notation projects (`down`, `empty`,
    /// `delay=S`, `nnw=H`), in the scenario's order, for the real-client lab.
    pub server_options: Vec<ServerOptions>,
    /// What the emulator's log shows of the inputs before its first step.
    pub log_header: super::log_out::LogHeader,
}

/// A seed-notation project's server-side options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerOptions {
    /// The project's name.
    pub project: String,
    /// The scheduler never answers.
    pub down: bool,
    /// The scheduler answers but has no task.
    pub empty: bool,
    /// `<request_delay>` of each reply, seconds.
    pub request_delay: Option<f64>,
    /// The scheduler never acknowledges a reported task.
    pub no_ack: bool,
    /// "No new tasks" is set this many seconds after the start.
    pub no_new_work_after: Option<f64>,
    /// The project is attached this many seconds after the start.
    pub attach_after: Option<f64>,
}

/// A change of the simulated world at a given time.
#[derive(Clone, Debug)]
pub struct WorldEvent {
    /// Seconds after the start.
    pub after: f64,
    /// What changes.
    pub change: WorldChange,
}

/// What a [`WorldEvent`] changes.
#[derive(Clone, Debug)]
pub enum WorldChange {
    /// The project (with its server) is attached.
    Attach(Box<Project>, ServerProject),
    /// The user sets the named project to "no new tasks".
    NoNewWork(String),
    /// The named project gains an app: client app version and server app.
    AddApp {
        /// The project's name.
        project: String,
        /// The app version the client gets.
        version: AppVersion,
        /// The server's job parameters for it.
        app: ServerApp,
    },
}

/// The run options an emulator reference was produced with, found beside
/// its inputs: `outputs/inputs.txt` (`Simulation duration:`, `Time step:`,
/// `Existing jobs only:`), else the `Emulator options` line of SCENARIO.md
/// (`--duration N --delta N [--existing_jobs_only]`, the 6.10 references).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordedRun {
    /// Simulated seconds.
    pub duration: Option<f64>,
    /// Time step.
    pub delta: Option<f64>,
    /// The servers sent no jobs.
    pub existing_jobs_only: bool,
    /// The file the options were read from.
    pub source: std::path::PathBuf,
}

/// [`RecordedRun`] of SCENARIO (the scenario folder or its `inputs/`), or
/// `None` for seed notation and folders without a record of their run.
pub fn recorded_run(scenario: &str) -> Option<RecordedRun> {
    if is_notation(scenario) {
        return None;
    }
    let path = Path::new(scenario);
    let root = if path.file_name().is_some_and(|n| n == "inputs") {
        path.parent()?
    } else {
        path
    };
    let inputs_txt = root.join("outputs/inputs.txt");
    if let Ok(text) = std::fs::read_to_string(&inputs_txt) {
        let value = |label: &str| {
            text.lines()
                .find_map(|l| l.trim().strip_prefix(label))
                .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
        };
        return Some(RecordedRun {
            duration: value("Simulation duration:"),
            delta: value("Time step:"),
            existing_jobs_only: text.lines().any(|l| l.trim() == "Existing jobs only: yes"),
            source: inputs_txt,
        });
    }
    let scenario_md = root.join("SCENARIO.md");
    let text = std::fs::read_to_string(&scenario_md).ok()?;
    // The reference sets write `Emulator options:`, `scenario random`
    // writes `emulator options:`.
    let line = text
        .lines()
        .find(|l| l.to_ascii_lowercase().contains("emulator options"))?;
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == '`' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let after = |option: &str| {
        let at = words.iter().position(|w| *w == option)?;
        words.get(at + 1)?.trim_end_matches('.').parse::<f64>().ok()
    };
    let run = RecordedRun {
        duration: after("--duration"),
        delta: after("--delta"),
        existing_jobs_only: words.contains(&"--existing_jobs_only"),
        source: scenario_md,
    };
    (run.duration.is_some() || run.delta.is_some()).then_some(run)
}

/// A scenario folder's inputs: its `inputs/` when it has one, else itself.
fn inputs_dir(path: &Path) -> PathBuf {
    let inputs = path.join("inputs");
    if inputs.is_dir() {
        inputs
    } else {
        path.to_path_buf()
    }
}

/// The generation `--policy auto` simulates SCENARIO under, with the reason:
/// the 6.10 emulator's inputs (sim_projects.xml) → `ltd-6.6`; a
/// client_state.xml naming its client version → that version's generation
/// ([`Generation::for_client_version`]); otherwise (today's emulator
/// inputs, seed notation) → `current`. Unreadable folders also give
/// `current`: reading the scenario itself reports the problem.
pub fn auto_generation(scenario: &str) -> (Generation, String) {
    let (generation, why, _) = auto_policy(scenario);
    (generation, why)
}

/// [`auto_generation`] with the release the state file names (7.3 onward),
/// whose rule profile applies ([`crate::policy::profile::params_for_release`]).
pub fn auto_policy(scenario: &str) -> (Generation, String, Option<Release>) {
    if is_notation(scenario) {
        return (
            Generation::Current,
            "seed notation: today's client".into(),
            None,
        );
    }
    let inputs = inputs_dir(Path::new(scenario));
    if inputs.join("sim_projects.xml").is_file() {
        return (
            Generation::Ltd66,
            "the 6.10 emulator's inputs (sim_projects.xml): the 6.10 client's \
             per-resource long-term-debt generation"
                .into(),
            None,
        );
    }
    let outcome = parse::parse_paths(
        std::slice::from_ref(&inputs.join("client_state.xml")),
        &LogOptions::default(),
        &mut |_| {},
    );
    let version = outcome
        .trace
        .state
        .client_states
        .first()
        .and_then(|cs| cs.core_client_version);
    match version {
        Some(v) => {
            let (generation, why) = Generation::for_client_version(v.major, v.minor, v.release);
            let release = Release(v.major, v.minor, v.release);
            let profiled = (generation == Generation::Current && v.major >= 7).then_some(release);
            let why = match profiled {
                Some(r) if crate::policy::profile::is_7_2(r) => {
                    format!("client_state.xml: {why}; the 7.0-7.2 rules (policy-legacy C.1)")
                }
                Some(r) => format!(
                    "client_state.xml: {why}; the rules of profile {} (`policy profiles`)",
                    crate::policy::profile::profile_name(r)
                ),
                None => format!("client_state.xml: {why}"),
            };
            (generation, why, profiled)
        }
        None => (
            Generation::Current,
            "client_state.xml names no client version (today's emulator inputs): today's client"
                .into(),
            None,
        ),
    }
}

/// Reads an emulator-style scenario: `path` is the `inputs/` folder or a
/// folder containing one. Applies the emulator's start-up rules (see
/// [`crate::replay::build`]) of the emulator of `release` (`None`: today's).
/// `rng` draws the initial availability states.
pub fn from_folder(
    path: &Path,
    release: Option<Release>,
    rng: &mut Rng,
) -> Result<World, SimError> {
    let inputs = inputs_dir(path);
    if !inputs.is_dir() {
        return Err(SimError::Scenario(format!(
            "{} is neither a scenario folder nor seed notation",
            path.display()
        )));
    }
    let outcome = parse::parse_paths(
        std::slice::from_ref(&inputs),
        &LogOptions::default(),
        &mut |_| {},
    );
    if let Some(err) = outcome.errors.first() {
        return Err(SimError::Scenario(format!("{}: {err}", inputs.display())));
    }
    let trace = outcome.trace;
    if trace.state.client_states.is_empty() && trace.state.sim_projects.is_some() {
        return from_sim_inputs(&trace);
    }
    let (state, notes) =
        build_emulator_state_for(&trace, release).map_err(|e| SimError::Scenario(e.to_string()))?;
    let recorded = trace
        .state
        .client_states
        .first()
        .ok_or_else(|| SimError::Scenario("no client_state.xml".into()))?;
    // The emulator draws while it parses client_state.xml: the four host
    // processes when `</time_stats>` closes (mean periods default to one
    // hour), then each `<available>` in file order, culled projects
    // included. Drawing in that order makes `--seed 1` start as it does.
    let host = match &recorded.time_stats {
        Some(ts) => {
            let mut process = |frac: Option<f64>, lambda: Option<f64>| {
                OnOff::new(frac.unwrap_or(1.0), lambda.unwrap_or(3600.0), rng)
            };
            HostAvailability {
                on: process(ts.on_frac, ts.on_lambda),
                connected: process(ts.connected_frac, ts.connected_lambda),
                active: process(ts.active_frac, ts.active_lambda),
                gpu_active: process(ts.gpu_active_frac, ts.gpu_active_lambda),
            }
        }
        None => HostAvailability::always(),
    };
    let mut availability: Vec<Option<OnOff>> = recorded
        .projects
        .iter()
        .map(|rp| {
            rp.available
                .as_ref()
                .map(|a| OnOff::new(a.frac.unwrap_or(1.0), a.lambda.unwrap_or(3600.0), rng))
        })
        .collect();
    let mut servers = Vec::new();
    for project in &state.projects {
        let index = recorded
            .projects
            .iter()
            .position(|rp| {
                rp.project_name.as_deref() == Some(project.name.as_str())
                    || rp.master_url.as_deref() == Some(project.url.as_str())
            })
            .ok_or_else(|| SimError::Scenario(format!("project {} vanished", project.name)))?;
        let rp = &recorded.projects[index];
        let mut apps = Vec::new();
        for app in project.apps.iter().filter(|app| !app.ignored) {
            let ra = rp
                .apps
                .iter()
                .find(|a| a.name.as_deref() == Some(app.name.as_str()));
            let (latency_bound, fpops_est) = emulator_app_params(rp, &app.name);
            let dist = ra.and_then(|a| a.fpops.clone()).unwrap_or_default();
            apps.push(ServerApp {
                name: app.name.to_string(),
                fpops_est,
                fpops_mean: dist.mean.filter(|m| *m > 0.0).unwrap_or(fpops_est),
                fpops_std_dev: dist.std_dev.unwrap_or(0.0).max(0.0),
                latency_bound,
                weight: ra
                    .and_then(|a| a.weight)
                    .filter(|w| *w > 0.0)
                    .unwrap_or(1.0),
                true_size_drawn: false,
            });
        }
        let available = availability[index].take().unwrap_or_else(OnOff::always);
        servers.push(ServerProject {
            name: project.name.to_string(),
            apps,
            available,
            // The emulator samples availability over `now − last_rpc_time`
            // from the state file's value (0 = never contacted).
            last_rpc_time: rp.last_rpc_time.unwrap_or(0.0),
            next_job: 0,
        });
    }
    let mut log_header = super::log_out::LogHeader::from_trace(&trace, &state);
    log_header.coproc_missing_marks = notes.coproc_missing_marks;
    log_header.missing_coproc_tasks = notes.missing_coproc_tasks;
    Ok(World {
        state,
        servers,
        host,
        dropped_projects: notes.dropped_projects,
        server_options: Vec::new(),
        events: Vec::new(),
        log_header,
    })
}

/// The 6.10 emulator's inputs (sim_host.xml, sim_projects.xml,
/// sim_prefs.xml): CPU only, one CPU app version per app at the host's
/// FLOPS, the 6.10 job model ([`ServerApp::true_size_drawn`]), host and
/// servers always available (as in the 6.10 references), DCF 1.
fn from_sim_inputs(trace: &crate::trace::Trace) -> Result<World, SimError> {
    let mut state = crate::replay::build::sim_host_state(trace)
        .map_err(|e| SimError::Scenario(e.to_string()))?;
    let p_fpops = state.host.p_fpops;
    let mut servers = Vec::new();
    for (i, recorded) in trace
        .state
        .sim_projects
        .iter()
        .flat_map(|s| &s.projects)
        .enumerate()
    {
        let name = recorded
            .project_name
            .clone()
            .unwrap_or_else(|| format!("project{i}"));
        let mut project = Project::new(&name, recorded.resource_share.unwrap_or(100.0), 1);
        let mut apps = Vec::new();
        for (k, app) in recorded.apps.iter().enumerate() {
            let app_name = app.name.clone().unwrap_or_else(|| format!("app{k}"));
            let fpops_est = app.fpops_est.filter(|x| *x > 0.0).unwrap_or(3.6e12);
            let dist = app.fpops.clone().unwrap_or_default();
            project.apps.push(App::new(&app_name));
            project.app_versions.push(AppVersion {
                app: app_name.as_str().into(),
                usage: ResourceUsage::cpu(1.0, p_fpops),
                needs_network: false,
            });
            apps.push(ServerApp {
                name: app_name,
                fpops_est,
                fpops_mean: dist.mean.filter(|m| *m > 0.0).unwrap_or(fpops_est),
                fpops_std_dev: dist.std_dev.unwrap_or(0.0).max(0.0),
                latency_bound: app.latency_bound.filter(|x| *x > 0.0).unwrap_or(86400.0),
                weight: app.weight.filter(|w| *w > 0.0).unwrap_or(1.0),
                true_size_drawn: true,
            });
        }
        state.projects.push(project);
        servers.push(ServerProject {
            name,
            apps,
            available: OnOff::always(),
            last_rpc_time: 0.0,
            next_job: 0,
        });
    }
    Ok(World {
        state,
        servers,
        host: HostAvailability::always(),
        dropped_projects: Vec::new(),
        server_options: Vec::new(),
        events: Vec::new(),
        log_header: super::log_out::LogHeader::default(),
    })
}

/// True if `text` looks like seed notation rather than a path.
pub fn is_notation(text: &str) -> bool {
    text.contains('(') && !Path::new(text).exists()
}

#[derive(Debug)]
struct ProjectTerm {
    name: String,
    c_hours: f64,
    d_hours: f64,
    share: f64,
    gpu: Option<f64>,
    mixed: bool,
    cpus: Option<f64>,
    sd: f64,
    /// `init=H`: the host starts with one job of `H` hours, due in `H` hours.
    init: Option<f64>,
    /// `from=H`: the project is attached `H` hours after the start.
    from: Option<f64>,
    /// `gpu_from=H`: the project gains its GPU app `H` hours after the start.
    gpu_from: Option<f64>,
    /// `mc=N`: app max_concurrent.
    mc: Option<u32>,
    /// `pmc=N`: project_max_concurrent.
    pmc: Option<u32>,
    /// `nnw[=H]`: "no new tasks" from `H` hours (0 = the start).
    nnw: Option<f64>,
    /// `down`, `empty`, `delay=S`, `noack`.
    down: bool,
    empty: bool,
    delay: Option<f64>,
    no_ack: bool,
}

fn num(text: &str, what: &str) -> Result<f64, SimError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| SimError::Scenario(format!("bad number {text:?} for {what}")))
}

fn split_terms(text: &str) -> Result<Vec<String>, SimError> {
    let mut terms = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return Err(SimError::Scenario("unbalanced ')'".into()));
                }
                cur.push(c);
            }
            c if depth == 0 && (c.is_whitespace() || c == ',' || c == ';') => {
                if !cur.is_empty() {
                    terms.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if depth != 0 {
        return Err(SimError::Scenario("unbalanced '('".into()));
    }
    if !cur.is_empty() {
        terms.push(cur);
    }
    // Re-join `KEY = VALUE` written with spaces.
    let mut joined: Vec<String> = Vec::new();
    let mut i = 0;
    while i < terms.len() {
        let t = &terms[i];
        if t == "=" && !joined.is_empty() && i + 1 < terms.len() {
            let last = joined.pop().unwrap_or_default();
            joined.push(format!("{last}={}", terms[i + 1]));
            i += 2;
        } else if t.ends_with('=') && !t.contains('(') && i + 1 < terms.len() {
            joined.push(format!("{t}{}", terms[i + 1]));
            i += 2;
        } else if t.starts_with('=') && !joined.is_empty() {
            let last = joined.pop().unwrap_or_default();
            joined.push(format!("{last}{t}"));
            i += 1;
        } else {
            joined.push(t.clone());
            i += 1;
        }
    }
    Ok(joined)
}

fn project_term(term: &str) -> Result<ProjectTerm, SimError> {
    let open = term.find('(').unwrap_or(term.len());
    let name = term[..open].trim().to_string();
    if name.is_empty() || !term.ends_with(')') {
        return Err(SimError::Scenario(format!("bad project term {term:?}")));
    }
    let inner = &term[open + 1..term.len() - 1];
    let parts: Vec<&str> = inner
        .split([',', ';'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() < 3 {
        return Err(SimError::Scenario(format!(
            "project term {term:?} needs (C, D, R)"
        )));
    }
    let mut p = ProjectTerm {
        name,
        c_hours: num(parts[0], "C")?,
        d_hours: num(parts[1], "D")?,
        share: num(parts[2], "R")?,
        gpu: None,
        mixed: false,
        cpus: None,
        sd: 0.0,
        init: None,
        from: None,
        gpu_from: None,
        mc: None,
        pmc: None,
        nnw: None,
        down: false,
        empty: false,
        delay: None,
        no_ack: false,
    };
    if p.c_hours <= 0.0 || p.d_hours <= 0.0 || p.share < 0.0 {
        return Err(SimError::Scenario(format!(
            "project term {term:?}: C and D must be > 0, R >= 0"
        )));
    }
    for opt in &parts[3..] {
        let (key, value) = match opt.split_once('=') {
            Some((k, v)) => (k.trim().to_ascii_lowercase(), Some(v.trim())),
            None => (opt.trim().to_ascii_lowercase(), None),
        };
        match (key.as_str(), value) {
            ("gpu", v) => p.gpu = Some(v.map_or(Ok(1.0), |v| num(v, "gpu"))?),
            ("cpu+gpu" | "mixed", None) => {
                p.mixed = true;
                p.gpu.get_or_insert(1.0);
            }
            ("cpus", Some(v)) => p.cpus = Some(num(v, "cpus")?),
            ("sd", Some(v)) => p.sd = num(v, "sd")?,
            ("init", Some(v)) => p.init = Some(num(v, "init")?).filter(|h| *h > 0.0),
            ("from", Some(v)) => p.from = Some(num(v, "from")?).filter(|h| *h > 0.0),
            ("gpu_from", Some(v)) => {
                p.gpu_from = Some(num(v, "gpu_from")?).filter(|h| *h > 0.0);
                p.mixed = true;
                p.gpu.get_or_insert(1.0);
            }
            ("mc", Some(v)) => p.mc = Some(count(v, "mc")?),
            ("pmc", Some(v)) => p.pmc = Some(count(v, "pmc")?),
            ("nnw", v) => p.nnw = Some(v.map_or(Ok(0.0), |v| num(v, "nnw"))?.max(0.0)),
            ("down", None) => p.down = true,
            ("empty", None) => p.empty = true,
            ("delay", Some(v)) => p.delay = Some(num(v, "delay")?.max(0.0)),
            ("noack", None) => p.no_ack = true,
            _ => {
                return Err(SimError::Scenario(format!(
                    "unknown option {opt:?} in {term:?} (gpu=G, mixed, cpus=N, sd=X, \
                     init=H, from=H, gpu_from=H, mc=N, pmc=N, nnw[=H], down, empty, delay=S, noack)"
                )))
            }
        }
    }
    Ok(p)
}

fn count(text: &str, what: &str) -> Result<u32, SimError> {
    let x = num(text, what)?;
    if x < 1.0 || x.fract() != 0.0 || x > f64::from(u32::MAX) {
        return Err(SimError::Scenario(format!(
            "{what} must be a whole number >= 1, not {text:?}"
        )));
    }
    Ok(x as u32)
}

fn flag(value: &str) -> Result<bool, SimError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        other => Err(SimError::Scenario(format!("bad flag {other:?}"))),
    }
}

/// Builds the world of a seed-notation scenario (see the module docs).
pub fn from_notation(text: &str) -> Result<World, SimError> {
    let mut projects = Vec::new();
    let mut ncpus = 1.0;
    let mut ngpus: Option<f64> = None;
    let mut f = 1e9;
    let mut gpu_peak = 1e10;
    let mut min_buf = 0.1;
    let mut add_buf = 0.25;
    let mut period_hours = 1.0;
    let mut leave_in_memory = false;
    let mut half_life = 10.0;
    for term in split_terms(text)? {
        if term.contains('(') {
            projects.push(project_term(&term)?);
            continue;
        }
        let Some((key, value)) = term.split_once('=') else {
            return Err(SimError::Scenario(format!("bad term {term:?}")));
        };
        match key.trim().to_ascii_lowercase().as_str() {
            "ncpus" => ncpus = num(value, "NCPUS")?,
            "ngpus" => ngpus = Some(num(value, "NGPUS")?),
            "f" | "flops" => f = num(value, "f")?,
            "gpu_peak" => gpu_peak = num(value, "gpu_peak")?,
            "min_queue" | "min_buf" => min_buf = num(value, "min_queue")?,
            "add_buf" => add_buf = num(value, "add_buf")?,
            "cpu_scheduling_period" => period_hours = num(value, "cpu_scheduling_period")?,
            "leave_in_memory" => leave_in_memory = flag(value)?,
            "h" => half_life = num(value, "H")?,
            other => return Err(SimError::Scenario(format!("unknown key {other:?}"))),
        }
    }
    if projects.is_empty() {
        return Err(SimError::Scenario("no project term NAME(C, D, R)".into()));
    }
    if ncpus < 1.0 || f <= 0.0 || gpu_peak <= 0.0 {
        return Err(SimError::Scenario("NCPUS >= 1, f > 0, gpu_peak > 0".into()));
    }
    let any_gpu = projects.iter().any(|p| p.gpu.is_some());
    let ngpus = ngpus.unwrap_or(if any_gpu { 1.0 } else { 0.0 }).max(0.0) as usize;
    if any_gpu && ngpus == 0 {
        return Err(SimError::Scenario("a gpu project needs NGPUS >= 1".into()));
    }
    let mut coprocs = Vec::new();
    if ngpus > 0 {
        coprocs.push(Coproc {
            rsc_type: ResourceType::Nvidia,
            count: ngpus,
            peak_flops: gpu_peak,
            non_gpu: false,
        });
    }
    let host = Host {
        p_ncpus: ncpus as u32,
        p_fpops: f,
        m_nbytes: 16e9,
        coprocs,
    };
    let mut state = HostState::new(host);
    state.prefs.work_buf_min_days = min_buf;
    state.prefs.work_buf_additional_days = add_buf;
    state.prefs.cpu_scheduling_period_minutes = period_hours * 60.0;
    state.prefs.leave_apps_in_memory = leave_in_memory;
    state.config.rec_half_life_days = half_life;
    let n_rsc = state.n_rsc();
    let gpu_speed = 0.2 * gpu_peak;
    let mut servers = Vec::new();
    let mut events = Vec::new();
    let mut server_options = Vec::new();
    for (k, term) in projects.iter().enumerate() {
        let mut project = Project::new(&term.name, term.share, n_rsc);
        project.url = format!("https://{}.example.org/", term.name.to_lowercase()).into();
        project.alloc_seq = k as u32;
        project.dont_use_dcf = true;
        let mut apps = Vec::new();
        let latency = term.d_hours * 3600.0;
        let mut add_app = |project: &mut Project, name: String, usage: ResourceUsage| {
            let fpops = term.c_hours * 3600.0 * usage.flops;
            project.apps.push(App::new(&name));
            project.app_versions.push(AppVersion {
                app: name.as_str().into(),
                usage,
                needs_network: false,
            });
            apps.push(ServerApp {
                name,
                fpops_est: fpops,
                fpops_mean: fpops,
                fpops_std_dev: fpops * term.sd,
                latency_bound: latency,
                weight: 1.0,
                true_size_drawn: false,
            });
        };
        if term.gpu.is_none() || term.mixed {
            let cpus = if term.gpu.is_none() {
                term.cpus.unwrap_or(1.0)
            } else {
                1.0
            };
            add_app(
                &mut project,
                format!("{}_cpu", term.name.to_lowercase()),
                ResourceUsage::cpu(cpus, f * cpus),
            );
        }
        if let Some(g) = term.gpu {
            let cpus = term.cpus.unwrap_or(0.01);
            add_app(
                &mut project,
                format!("{}_gpu", term.name.to_lowercase()),
                ResourceUsage::coproc(cpus, 1, g, gpu_speed * g),
            );
            if let Some(hours) = term.gpu_from {
                // Held back until `gpu_from`: the server offers no GPU work
                // and says so (`<no_rsc_apps>`) until then.
                let version = project.app_versions.pop();
                project.apps.pop();
                if let (Some(version), Some(app)) = (version, apps.pop()) {
                    events.push(WorldEvent {
                        after: hours * 3600.0,
                        change: WorldChange::AddApp {
                            project: term.name.clone(),
                            version,
                            app,
                        },
                    });
                }
            }
        }
        for r in 0..n_rsc {
            let has = project.app_versions.iter().any(|v| v.usage.rsc == r);
            if let Some(entry) = project.rsc.get_mut(r) {
                entry.no_rsc_apps = !has;
            }
        }
        if let Some(mc) = term.mc {
            for app in &mut project.apps {
                app.max_concurrent = Some(mc);
            }
        }
        project.project_max_concurrent = term.pmc;
        match term.nnw {
            Some(h) if h <= 0.0 => project.dont_request_more_work = true,
            Some(h) => events.push(WorldEvent {
                after: h * 3600.0,
                change: WorldChange::NoNewWork(term.name.clone()),
            }),
            None => {}
        }
        server_options.push(ServerOptions {
            project: term.name.clone(),
            down: term.down,
            empty: term.empty,
            request_delay: term.delay,
            no_ack: term.no_ack,
            no_new_work_after: term.nnw.map(|h| h * 3600.0),
            attach_after: term.from.map(|h| h * 3600.0),
        });
        let server = ServerProject {
            name: term.name.clone(),
            apps: if term.empty { Vec::new() } else { apps },
            available: if term.down {
                OnOff::never()
            } else {
                OnOff::always()
            },
            last_rpc_time: 0.0,
            next_job: 0,
        };
        if let Some(hours) = term.init {
            // One job on the host at the start, due when it would finish at
            // full speed (the seed's `A[C](C, R)`: no slack).
            let version = project.app_versions.first().cloned();
            if let Some(version) = version {
                let flops = hours * 3600.0 * version.usage.flops;
                let mut job = Job::new(
                    &format!("{}_init_0", term.name),
                    state.projects.len(),
                    &version.app,
                    version.usage.clone(),
                    flops,
                );
                job.received_time = START_TIME;
                job.report_deadline = START_TIME + hours * 3600.0;
                job.exact_flops_remaining = Some(flops);
                job.alloc_seq = state.jobs.len() as u64;
                state.jobs.push(job);
            }
        }
        if let Some(hours) = term.from {
            events.push(WorldEvent {
                after: hours * 3600.0,
                change: WorldChange::Attach(Box::new(project), server),
            });
        } else {
            servers.push(server);
            state.projects.push(project);
        }
    }
    events.sort_by(|a, b| a.after.total_cmp(&b.after));
    state
        .validate()
        .map_err(|e| SimError::Scenario(e.to_string()))?;
    Ok(World {
        state,
        servers,
        host: HostAvailability::always(),
        dropped_projects: Vec::new(),
        events,
        server_options,
        log_header: super::log_out::LogHeader::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options line is found whichever way SCENARIO.md capitalises it:
    /// the reference sets write `Emulator options:`, `scenario random`
    /// writes `emulator options:`.
    #[test]
    fn scenario_md_options_either_case() {
        let root = std::env::temp_dir().join(format!("ba-scenario-md-{}", std::process::id()));
        for (line, duration, delta) in [
            (
                "- Emulator options: `--duration 86400 --delta 120`. The emulator ...",
                86400.0,
                120.0,
            ),
            (
                "- emulator options: `--duration 3600 --delta 180`",
                3600.0,
                180.0,
            ),
        ] {
            std::fs::create_dir_all(&root).unwrap();
            std::fs::write(root.join("SCENARIO.md"), format!("# S\n\n{line}\n")).unwrap();
            let run = recorded_run(root.to_str().unwrap()).expect("options read");
            assert_eq!(run.duration, Some(duration));
            assert_eq!(run.delta, Some(delta));
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn seed_002_notation() {
        let w = from_notation("P1(1000, 2000, .5) P2(1, 10, .5) NCPUS=2 min_queue=0.1").unwrap();
        assert_eq!(w.state.projects.len(), 2);
        assert_eq!(w.state.host.p_ncpus, 2);
        assert_eq!(w.servers[1].apps[0].latency_bound, 36000.0);
        assert_eq!(w.servers[0].apps[0].fpops_est, 1000.0 * 3600.0 * 1e9);
    }

    #[test]
    fn gpu_terms() {
        let w = from_notation("A(1, 168, .5, gpu=1) B(1, 168, .5; cpu+gpu) f=1e9 gpu_peak=1e10")
            .unwrap();
        assert_eq!(w.state.n_rsc(), 2);
        assert_eq!(w.state.projects[0].app_versions.len(), 1);
        assert_eq!(w.state.projects[1].app_versions.len(), 2);
        assert!(w.state.projects[0].rsc[0].no_rsc_apps);
    }

    #[test]
    fn spaced_keys_and_errors() {
        let w = from_notation(
            "P1(0.1, 1, .5)\nP2(1, 24, .25) leave_in_memory = false cpu_scheduling_period = 1",
        )
        .unwrap();
        assert_eq!(w.state.prefs.cpu_scheduling_period_minutes, 60.0);
        assert!(from_notation("P1(1, 2)").is_err());
        assert!(from_notation("P1(1, 2, .5) X=1").is_err());
    }

    #[test]
    fn timed_terms_hold_back_projects_and_apps() {
        let w = from_notation(
            "A(1, 240, .5, init=8760) B(1, 168, .5, gpu_from=100) C(1, 240, .5, from=50)",
        )
        .unwrap();
        // C is not attached yet; B's GPU app comes later; A starts with its job.
        let names: Vec<&str> = w.state.projects.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        assert_eq!(w.state.projects[1].app_versions.len(), 1);
        assert!(w.state.projects[1].rsc[1].no_rsc_apps);
        assert_eq!(w.state.jobs.len(), 1);
        let job = &w.state.jobs[0];
        assert_eq!(job.rsc_fpops_est, 8760.0 * 3600.0 * 1e9);
        assert_eq!(job.report_deadline - job.received_time, 8760.0 * 3600.0);
        let afters: Vec<f64> = w.events.iter().map(|e| e.after).collect();
        assert_eq!(afters, [50.0 * 3600.0, 100.0 * 3600.0]);
        assert!(from_notation("A(1, 2, .5, from=x)").is_err());
    }
}

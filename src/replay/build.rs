//! Trace → policy host state: the recorded client_state.xml, preferences,
//! cc_config.xml and app_config.xml files read through the emulator's
//! start-up rules (reference README "What the emulator does to the inputs
//! before the first decision"; client/sim.cpp).
//!
//! Rules applied for emulator traces:
//! - apps without a usable app version are ignored; projects left without
//!   apps are dropped;
//! - every job already in client_state.xml is re-based: received at the start
//!   (3600 s), deadline = start + (recorded deadline − recorded received),
//!   remaining work = its full `rsc_fpops_est`;
//! - per-(project, resource) backoffs and `min_rpc_time` are cleared; REC keeps
//!   the state file's value;
//! - `<max_concurrent>` from client_state.xml is cleared unless the project has
//!   an app_config.xml.
//!
//! Emulators before 7.16.1 ([`build_emulator_state_for`] with an older
//! release) read no app_config.xml at all: client/sim.cpp called
//! `check_app_config` only from 4a7bb390af (2018-12-21, first tag 7.16.1),
//! so an app's `<max_concurrent>` is the one in client_state.xml
//! (APP::parse) and app_config's GPU usage and `project_max_concurrent`
//! (which 7.2 clients do not know at all: 34e97a5048, 2014-07-25, first in
//! 7.4) have no effect. A real client of those releases reads the file.
//!
//! Architecture Invariant: the only place that converts trace state into
//! engine state; reads the trace, never the log's decisions.

use super::ReplayError;
use crate::policy::profile::Release;
use crate::policy::state::{
    App, AppVersion, Coproc, GpuExclusion, Host, HostState, Job, Prefs, Project, ResourceUsage,
    CULLED_PROJECT,
};
use crate::resource::ResourceType;
use crate::trace::state::{self as rec_state, AppConfig, ClientState};
use crate::trace::Trace;

/// The emulator's start time (`START_TIME` in client/sim.cpp).
pub const EMULATOR_START: f64 = 3600.0;

/// What building found, beside the state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildNotes {
    /// Projects dropped because no app had a usable version.
    pub dropped_projects: Vec<String>,
    /// Apps ignored for want of a usable version (`project/app`).
    pub ignored_apps: Vec<String>,
    /// The jobs process_gpu_exclusions() marks as missing their coprocessor
    /// (`marking JOB as coproc missing`), as (project, job) in the client's
    /// order: per version in state-file order, its jobs in result order;
    /// dropped projects included (the emulator culls after marking).
    pub coproc_missing_marks: Vec<(String, String)>,
    /// The jobs init_result_resource_usage() names (`Missing coprocessor for
    /// task JOB`), as (project, job) in result order, dropped projects
    /// included.
    pub missing_coproc_tasks: Vec<(String, String)>,
}

fn project_name(project: &rec_state::Project) -> String {
    project
        .project_name
        .clone()
        .or_else(|| project.master_url.clone())
        .unwrap_or_else(|| "(unnamed)".to_string())
}

fn host_of(state: &ClientState) -> Result<Host, ReplayError> {
    let info = state
        .host_info
        .as_ref()
        .ok_or_else(|| ReplayError::MissingState("client_state.xml has no <host_info>".into()))?;
    let p_ncpus = info.p_ncpus.unwrap_or(1).clamp(1, 4096) as u32;
    let p_fpops = info.p_fpops.filter(|f| *f > 0.0).unwrap_or(1e9);
    let coprocs = info
        .coprocs
        .iter()
        .filter(|c| c.count.unwrap_or(0) > 0)
        .map(|c| Coproc {
            rsc_type: c.rsc.clone(),
            count: c.count.unwrap_or(0).clamp(0, 64) as usize,
            peak_flops: c.peak_flops.unwrap_or(0.0),
            non_gpu: c.non_gpu,
        })
        .collect();
    Ok(Host {
        p_ncpus,
        p_fpops,
        m_nbytes: info.m_nbytes.unwrap_or(0.0),
        coprocs,
    })
}

pub(crate) fn prefs_of(trace: &Trace) -> Prefs {
    let mut prefs = Prefs::default();
    for file in [
        &trace.state.global_prefs,
        &trace.state.global_prefs_override,
    ]
    .into_iter()
    .flatten()
    {
        let v = &file.values;
        if let Some(x) = v.work_buf_min_days {
            prefs.work_buf_min_days = x;
        }
        if let Some(x) = v.work_buf_additional_days {
            prefs.work_buf_additional_days = x;
        }
        if let Some(x) = v.cpu_scheduling_period_minutes {
            prefs.cpu_scheduling_period_minutes = x;
        }
        if let Some(x) = v.max_ncpus_pct {
            prefs.max_ncpus_pct = x;
        }
        if let Some(x) = v.cpu_usage_limit {
            prefs.cpu_usage_limit = x;
        }
        // Not-in-use values a file does not give are its in-use counterparts
        // (lib/prefs.cpp GLOBAL_PREFS::parse_override, at </global_preferences>;
        // each file is parsed with a fresh mask).
        prefs.niu_max_ncpus_pct = match v.niu_max_ncpus_pct {
            Some(x) if x <= 0.0 || x > 100.0 => 100.0,
            Some(x) => x,
            None => prefs.max_ncpus_pct,
        };
        prefs.niu_cpu_usage_limit = match v.niu_cpu_usage_limit {
            Some(x) if x <= 0.0 || x > 100.0 => 100.0,
            Some(x) => x,
            None => prefs.cpu_usage_limit,
        };
        if let Some(x) = v.leave_apps_in_memory {
            prefs.leave_apps_in_memory = x;
        }
        if let Some(x) = v.ram_max_used_busy_pct {
            prefs.ram_max_used_busy_frac = x / 100.0;
        }
        if let Some(x) = v.ram_max_used_idle_pct {
            prefs.ram_max_used_idle_frac = x / 100.0;
        }
    }
    prefs
}

fn rsc_index(host: &Host, rsc: &ResourceType) -> Option<usize> {
    host.coprocs
        .iter()
        .position(|c| &c.rsc_type == rsc)
        .map(|i| i + 1)
}

fn app_config_for<'a>(trace: &'a Trace, project: &rec_state::Project) -> Option<&'a AppConfig> {
    let escaped = project
        .master_url
        .as_deref()
        .map(rec_state::escaped_master_url)?;
    trace.state.app_configs.iter().find(|config| {
        config.project_dir.as_deref() == Some(escaped.as_str())
            || config.path.contains(&format!("projects/{escaped}/"))
    })
}

/// Whether the project the log names `name` has its app_config.xml among
/// the inputs; None when the state file has no such project.
pub fn has_app_config(trace: &Trace, name: &str) -> Option<bool> {
    let recorded = trace.state.client_states.first()?;
    let project = recorded.projects.iter().find(|p| project_name(p) == name)?;
    Some(app_config_for(trace, project).is_some())
}

/// The host of the 6.10 emulator's inputs: sim_host.xml (CPUs, FLOPS,
/// memory; its `<gpu>` is never used by that harness, so no coprocessors)
/// and sim_prefs.xml; no projects yet.
pub(crate) fn sim_host_state(trace: &Trace) -> Result<HostState, ReplayError> {
    let host = trace
        .state
        .sim_host
        .as_ref()
        .ok_or_else(|| ReplayError::MissingState("no sim_host.xml in the trace".into()))?;
    let info = &host.host;
    let mut state = HostState::new(Host {
        p_ncpus: info.p_ncpus.unwrap_or(1).clamp(1, 4096) as u32,
        p_fpops: info.p_fpops.filter(|f| *f > 0.0).unwrap_or(1e9),
        m_nbytes: info.m_nbytes.unwrap_or(0.0),
        coprocs: Vec::new(),
    });
    state.prefs = prefs_of(trace);
    Ok(state)
}

/// Whether the emulator of `release` reads app_config.xml: client/sim.cpp
/// calls `check_app_config` from 4a7bb390af on (first tag 7.16.1).
pub fn emulator_reads_app_config(release: Release) -> bool {
    release >= Release(7, 16, 1)
}

/// Whether the emulator of `release` runs set_no_rsc_config() at start-up
/// (b50ce98065, first tag 7.5.0: "This was in the actual client but not
/// the emulator"); before, no project is blocked by the configuration file.
pub fn emulator_sets_no_rsc_config(release: Release) -> bool {
    release >= Release(7, 5, 0)
}

/// Builds the engine's host state at today's emulator's start.
pub fn build_emulator_state(trace: &Trace) -> Result<(HostState, BuildNotes), ReplayError> {
    build_emulator_state_for(trace, None)
}

/// Builds the engine's host state at the start of the emulator of
/// `release` (`None`: today's): emulators before 7.16.1 read no
/// app_config.xml (module doc).
pub fn build_emulator_state_for(
    trace: &Trace,
    release: Option<Release>,
) -> Result<(HostState, BuildNotes), ReplayError> {
    let reads_app_config = release.is_none_or(emulator_reads_app_config);
    let recorded = trace
        .state
        .client_states
        .first()
        .ok_or_else(|| ReplayError::MissingState("no client_state.xml in the trace".into()))?;
    if recorded.truncated {
        // The jobs and projects after the cut are missing: every decision
        // would rest on part of the host.
        return Err(ReplayError::MissingState(format!(
            "{} is cut short (no </client_state>) and no complete state file is here: \
             the jobs and projects after the cut are missing",
            recorded.path
        )));
    }
    let host = host_of(recorded)?;
    let mut state = HostState::new(host);
    state.prefs = prefs_of(trace);
    state.config.sets_no_rsc_config = release.is_none_or(emulator_sets_no_rsc_config);
    apply_client_config(&mut state, trace);
    apply_time_stats(&mut state, recorded);
    let mut notes = BuildNotes::default();
    let mut loaded = Loaded::default();
    for recorded_project in &recorded.projects {
        let app_config = app_config_for(trace, recorded_project).filter(|_| reads_app_config);
        let load = ProjectLoad {
            trace,
            recorded: recorded_project,
            app_config,
            reads_app_config,
        };
        load.into_state(&mut state, &mut notes, &mut loaded);
    }
    order_jobs(&mut state, &mut notes, loaded);
    state
        .validate()
        .map_err(|e| ReplayError::Engine(e.to_string()))?;
    Ok((state, notes))
}

/// cc_config.xml's options and the log flags the emulator reads.
fn apply_client_config(state: &mut HostState, trace: &Trace) {
    if let Some(cc) = &trace.state.cc_config {
        let o = &cc.options;
        if let Some(n) = o.ncpus {
            state.config.ncpus = n.clamp(-1, 4096) as i32;
        }
        if let Some(x) = o.rec_half_life_days {
            state.config.rec_half_life_days = x;
        }
        state.config.fetch_minimal_work = o.fetch_minimal_work.unwrap_or(false);
        state.config.fetch_on_update = o.fetch_on_update.unwrap_or(false);
        state.config.prioritize_gpu = o.prioritize_gpu.unwrap_or(false);
        state.config.no_gpus = o.no_gpus.unwrap_or(false);
        state.config.cpu_sched_debug = cc.log_flags.get("cpu_sched_debug") == Some(&true);
    }
    // Emulators before 2023 read their log flags from log_flags.xml only.
    if let Some(flags) = trace.state.log_flags.as_ref() {
        if let Some(on) = flags.log_flags.get("cpu_sched_debug") {
            state.config.cpu_sched_debug = *on;
        }
    }
}

/// The state file's `<time_stats>` fractions (1 where absent).
fn apply_time_stats(state: &mut HostState, recorded: &ClientState) {
    if let Some(ts) = &recorded.time_stats {
        state.time_stats.on_frac = ts.on_frac.unwrap_or(1.0);
        state.time_stats.active_frac = ts.active_frac.unwrap_or(1.0);
        state.time_stats.gpu_active_frac = ts.gpu_active_frac.unwrap_or(1.0);
        state.time_stats.cpu_and_network_available_frac =
            ts.cpu_and_network_available_frac.unwrap_or(1.0);
    }
}

/// Where each loaded job came from, for ordering and naming them once every
/// project is read.
#[derive(Default)]
struct Loaded {
    /// Per recorded project: its name and which versions miss their
    /// coprocessor.
    origins: Vec<(String, Vec<bool>)>,
    /// Per job pushed: (its project's place in `origins`, its version).
    job_origin: Vec<(usize, usize)>,
}

/// One recorded project read into the engine's state.
struct ProjectLoad<'a> {
    trace: &'a Trace,
    recorded: &'a rec_state::Project,
    /// Its app_config.xml, when the emulator reads one.
    app_config: Option<&'a AppConfig>,
    /// Whether the emulator reads app_config.xml at all.
    reads_app_config: bool,
}

impl ProjectLoad<'_> {
    /// A file that failed to parse gives its project-wide limits only
    /// (check_app_config skips config_app_versions).
    fn applied(&self) -> Option<&AppConfig> {
        self.app_config
            .filter(|config| config.client_parse_error.is_none())
    }

    fn into_state(self, state: &mut HostState, notes: &mut BuildNotes, loaded: &mut Loaded) {
        let name = project_name(self.recorded);
        let mut project = self.project_entry(&name, state);
        let version_keys = self.push_versions(&mut project, &state.host);
        self.mark_excluded_versions(&mut project, state);
        self.push_apps(&mut project, &name, notes);
        if let Some(config) = self.app_config {
            project.project_max_concurrent = positive_limit(config.project_max_concurrent);
            project.config_max_concurrent = config
                .apps
                .iter()
                .filter_map(|entry| positive_limit(entry.max_concurrent))
                .min();
        }
        // The emulator culls a project left with no usable app after
        // process_gpu_exclusions(): its exclusions still count for
        // has_exclusions, and its jobs were loaded and sorted with the
        // others (they take places in the result order and its `index`).
        let project_idx = state.projects.len();
        let culled = project.apps.iter().all(|app| app.ignored);
        if culled {
            notes.dropped_projects.push(name.clone());
            for exclusion in &mut state.config.exclude_gpus {
                if exclusion.project == project_idx {
                    exclusion.project = CULLED_PROJECT;
                }
            }
        }
        self.mark_no_rsc_apps(&mut project, &state.host);
        let owner = if culled { CULLED_PROJECT } else { project_idx };
        for (job, version_idx) in self.jobs(&project, &version_keys, owner) {
            let mut job = job;
            job.alloc_seq = state.jobs.len() as u64;
            loaded.job_origin.push((loaded.origins.len(), version_idx));
            state.jobs.push(job);
        }
        let missing = project
            .app_versions
            .iter()
            .map(|v| v.usage.missing_coproc)
            .collect();
        loaded.origins.push((name, missing));
        if !culled {
            state.projects.push(project);
        }
    }

    /// The project's own fields, with the emulator's start-up clearing of
    /// backoffs and min_rpc_time.
    fn project_entry(&self, name: &str, state: &HostState) -> Project {
        let recorded = self.recorded;
        let mut project = Project::new(
            name,
            recorded.resource_share.unwrap_or(100.0),
            state.n_rsc(),
        );
        project.url = recorded.master_url.clone().unwrap_or_default().into();
        project.alloc_seq = state.projects.len() as u32;
        project.rec = recorded.rec.unwrap_or(0.0);
        project.rec_time = recorded.rec_time.unwrap_or(0.0);
        project.suspended_via_gui = recorded.suspended_via_gui;
        project.dont_request_more_work = recorded.dont_request_more_work;
        project.non_cpu_intensive = recorded.non_cpu_intensive;
        project.anonymous_platform = recorded.anonymous_platform;
        project.dont_use_dcf = recorded.dont_use_dcf;
        project.dcf = recorded.duration_correction_factor.unwrap_or(1.0);
        project.nrpc_failures = recorded.nrpc_failures.unwrap_or(0).clamp(0, 1000) as u32;
        project.min_rpc_time = 0.0;
        project
    }

    /// The usable app versions, app_config applied; gives each one's
    /// (version number, plan class) for linking jobs.
    fn push_versions(&self, project: &mut Project, host: &Host) -> Vec<(Option<i64>, String)> {
        let mut version_keys = Vec::new();
        for version in &self.recorded.app_versions {
            let Some(app_name) = version.app_name.as_deref() else {
                continue;
            };
            let avg_ncpus = version.avg_ncpus.unwrap_or(1.0);
            let flops = version.flops.unwrap_or(host.p_fpops * avg_ncpus.max(0.0));
            let usage = match &version.coproc {
                Some(coproc) => match rsc_index(host, &coproc.rsc) {
                    Some(rsc) => {
                        ResourceUsage::coproc(avg_ncpus, rsc, coproc.count.unwrap_or(1.0), flops)
                    }
                    // A version for a coprocessor the host lacks is not usable.
                    None => continue,
                },
                None => ResourceUsage::cpu(avg_ncpus, flops),
            };
            let usage = match self.applied() {
                Some(config) => {
                    with_app_config(config, app_name, version.plan_class.as_deref(), usage)
                }
                None => usage,
            };
            version_keys.push((
                version.version_num,
                version.plan_class.clone().unwrap_or_default(),
            ));
            project.app_versions.push(AppVersion {
                app: app_name.into(),
                usage,
                needs_network: version.needs_network,
            });
        }
        version_keys
    }

    /// process_gpu_exclusions() (client/log_flags.cpp), then the emulator's
    /// get_app_params(): a GPU version none of whose instances its app may
    /// use is missing its coprocessor (its jobs are never runnable).
    fn mark_excluded_versions(&self, project: &mut Project, state: &mut HostState) {
        let project_idx = state.projects.len();
        let excluded = self
            .trace
            .state
            .cc_config
            .as_ref()
            .map(|cc| {
                gpu_exclusions(
                    &state.host,
                    project_idx,
                    &project.url,
                    &self.recorded.apps,
                    &cc.options.exclude_gpus,
                )
            })
            .unwrap_or_default();
        state.config.exclude_gpus.extend(excluded);
        for version in &mut project.app_versions {
            let r = version.usage.rsc;
            if r != 0 && state.app_non_excluded_instances(project_idx, &version.app, r) == 0 {
                version.usage.missing_coproc = true;
            }
        }
    }

    /// The apps with a usable version (an app with none is ignored), with
    /// their max_concurrent as the emulator sees it.
    fn push_apps(&self, project: &mut Project, name: &str, notes: &mut BuildNotes) {
        for recorded_app in &self.recorded.apps {
            let Some(app_name) = recorded_app.name.as_deref() else {
                continue;
            };
            if !project.app_versions.iter().any(|v| v.app == app_name) {
                notes.ignored_apps.push(format!("{name}/{app_name}"));
                continue;
            }
            let mut app = App::new(app_name);
            app.ignored = project
                .app_versions
                .iter()
                .all(|v| v.app != app_name || v.usage.missing_coproc);
            if app.ignored {
                notes.ignored_apps.push(format!("{name}/{app_name}"));
            }
            app.non_cpu_intensive = recorded_app.non_cpu_intensive;
            app.sporadic = recorded_app.sporadic;
            app.fraction_done_exact = recorded_app.fraction_done_exact;
            if self.app_config.is_some() || !self.reads_app_config {
                app.max_concurrent = positive_limit(recorded_app.max_concurrent);
            }
            let entries = self.applied().map(|c| c.apps.as_slice()).unwrap_or(&[]);
            for entry in entries {
                if entry.name.as_deref() == Some(app_name) {
                    if let Some(m) = positive_limit(entry.max_concurrent) {
                        app.max_concurrent = Some(m);
                    }
                    app.fraction_done_exact |= entry.fraction_done_exact;
                }
            }
            project.apps.push(app);
        }
    }

    /// no_rsc_apps: the client takes it from the state file only (the
    /// scheduler sends it); it is not derived from missing app versions
    /// (gpu_no_gpu_work_backoff: CpuOnly has no GPU version, no flag, and
    /// gets a GPU share).
    fn mark_no_rsc_apps(&self, project: &mut Project, host: &Host) {
        for rsc in &self.recorded.no_rsc_apps {
            let r = if !rsc.is_coproc() {
                Some(0)
            } else {
                rsc_index(host, rsc)
            };
            if let Some(entry) = r.and_then(|r| project.rsc.get_mut(r)) {
                entry.no_rsc_apps = true;
            }
        }
    }

    /// The project's jobs with the version each is linked to, recorded
    /// times kept (re-based once all are sorted).
    fn jobs(
        &self,
        project: &Project,
        version_keys: &[(Option<i64>, String)],
        owner: usize,
    ) -> Vec<(Job, usize)> {
        let mut jobs = Vec::new();
        for result in &self.recorded.results {
            let Some(job_name) = result.name.as_deref() else {
                continue;
            };
            let workunit = self
                .recorded
                .workunits
                .iter()
                .find(|wu| wu.name.is_some() && wu.name == result.wu_name);
            let app_name = workunit
                .and_then(|wu| wu.app_name.clone())
                .or_else(|| result.app_name.clone())
                .unwrap_or_default();
            // The client links a job to the version of its app with the
            // job's version number and plan class (client/cs_statefile.cpp
            // link_result → lookup_app_version); a state file that names
            // neither gets the app's first version.
            let plan_class = result.plan_class.clone().unwrap_or_default();
            let version_num = result
                .version_num
                .or(result.app_version_num)
                .or(workunit.and_then(|wu| wu.version_num));
            let of_app = |i: &usize| project.app_versions[*i].app == app_name.as_str();
            let linked = (0..project.app_versions.len()).filter(of_app).find(|i| {
                let (num, class) = &version_keys[*i];
                *class == plan_class && (version_num.is_none() || *num == version_num)
            });
            let Some(version_idx) = linked.or_else(|| (0..project.app_versions.len()).find(of_app))
            else {
                continue;
            };
            let version = &project.app_versions[version_idx];
            let fpops = workunit
                .and_then(|wu| wu.rsc_fpops_est)
                .or(result.rsc_fpops_est)
                .unwrap_or(3600e11);
            let mut job = Job::new(job_name, owner, &app_name, version.usage.clone(), fpops);
            job.needs_network = version.needs_network;
            let received = result.received_time.unwrap_or(0.0);
            job.received_time = received;
            job.report_deadline = result.report_deadline.unwrap_or(received + 864000.0);
            job.exact_flops_remaining = Some(fpops);
            jobs.push((job, version_idx));
        }
        jobs
    }
}

/// A max_concurrent of at least 1 (0 or less means none).
fn positive_limit(limit: Option<i64>) -> Option<u32> {
    limit
        .filter(|m| *m > 0)
        .map(|m| m.clamp(0, u32::MAX as i64) as u32)
}

/// The emulator loads the jobs of client_state.xml as the client does
/// (client/cs_statefile.cpp sort_results: ordered by the recorded received
/// time, then the md5 of the name; `index` is the position) and only then
/// re-bases them to the start. Jobs it receives later keep index 0
/// (sim.cpp simulate_rpc does not sort).
fn order_jobs(state: &mut HostState, notes: &mut BuildNotes, loaded: Loaded) {
    let Loaded {
        origins,
        job_origin,
    } = loaded;
    let mut keyed: Vec<(f64, String, (usize, usize), Job)> = std::mem::take(&mut state.jobs)
        .into_iter()
        .zip(job_origin)
        .map(|(job, origin)| (job.received_time, md5_hex(job.name.as_bytes()), origin, job))
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    // process_gpu_exclusions() marks per version, then each of its jobs;
    // init_result_resource_usage() names each job in result order.
    for (p, (project, missing)) in origins.iter().enumerate() {
        for (v, _) in missing.iter().enumerate().filter(|(_, m)| **m) {
            for (_, _, _, job) in keyed.iter().filter(|k| k.2 == (p, v)) {
                notes
                    .coproc_missing_marks
                    .push((project.clone(), job.name.to_string()));
            }
        }
    }
    for (_, _, (p, _), job) in &keyed {
        if job.usage.missing_coproc {
            notes
                .missing_coproc_tasks
                .push((origins[*p].0.clone(), job.name.to_string()));
        }
    }
    state.jobs = keyed
        .into_iter()
        .enumerate()
        .filter(|(_, (_, _, _, job))| job.project != CULLED_PROJECT)
        .map(|(n, (received, _, _, mut job))| {
            job.index = n as i64;
            job.report_deadline = EMULATOR_START + (job.report_deadline - received);
            job.received_time = EMULATOR_START;
            job
        })
        .collect();
}

/// A master URL as client/log_flags.cpp compares them (urls_match after
/// canonicalize_master_url): what follows the scheme, `//` collapsed, the
/// host in lower case, a trailing `/`.
pub(crate) fn url_key(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let mut key = rest.to_string();
    while key.contains("//") {
        key = key.replace("//", "/");
    }
    if !key.ends_with('/') {
        key.push('/');
    }
    let host_end = key.find('/').unwrap_or(key.len());
    let host = key[..host_end].to_lowercase();
    key.replace_range(..host_end, &host);
    key
}

/// The `<exclude_gpu>` entries of cc_config that apply to the project
/// `project` (at `url`, with `apps`), as process_gpu_exclusions()
/// (client/log_flags.cpp) applies them: one naming an unknown app or GPU
/// type has no effect and is dropped. One naming a device the type does
/// not have is kept: it excludes no instance, but before 7.8.0 it still
/// sets the type's has_exclusions (`Params::exclusion_needs_device`).
fn gpu_exclusions(
    host: &Host,
    project: usize,
    url: &str,
    apps: &[rec_state::App],
    entries: &[rec_state::ExcludeGpu],
) -> Vec<GpuExclusion> {
    let key = url_key(url);
    let mut out = Vec::new();
    for entry in entries {
        if entry.url.as_deref().map(url_key) != Some(key.clone()) {
            continue;
        }
        if let Some(app) = entry.app.as_deref() {
            if !apps.iter().any(|a| a.name.as_deref() == Some(app)) {
                continue;
            }
        }
        let rsc = match &entry.rsc {
            Some(rsc) => match rsc_index(host, rsc) {
                Some(r) => Some(r),
                None => continue,
            },
            None => None,
        };
        let device = match entry.device_num {
            Some(d) if d >= 0 => Some(d as usize),
            _ => None,
        };
        out.push(GpuExclusion {
            project,
            rsc,
            app: entry.app.as_deref().map(Into::into),
            device,
        });
    }
    out
}

/// An app version's resource usage as a project's app_config.xml sets it
/// (client/app_config.cpp `config_app_versions`): first an `<app>`'s
/// `<gpu_versions>` — only when both `gpu_usage` and `cpu_usage` are given
/// and nonzero, and only for versions that use a GPU — then each
/// `<app_version>` whose app and plan class match (`avg_ncpus`, `ngpus`,
/// each when nonzero). The version's speed (`flops`) is not recomputed.
fn with_app_config(
    config: &AppConfig,
    app: &str,
    plan_class: Option<&str>,
    mut usage: ResourceUsage,
) -> ResourceUsage {
    for entry in config
        .apps
        .iter()
        .filter(|e| e.name.as_deref() == Some(app))
    {
        let Some(gpu) = &entry.gpu_versions else {
            continue;
        };
        let (Some(g), Some(c)) = (gpu.gpu_usage, gpu.cpu_usage) else {
            continue;
        };
        if g != 0.0 && c != 0.0 && usage.rsc != 0 {
            usage.coproc_usage = g;
            usage.avg_ncpus = c;
        }
    }
    for entry in config.app_versions.iter().filter(|e| {
        e.app_name.as_deref() == Some(app)
            && e.plan_class.as_deref().unwrap_or("") == plan_class.unwrap_or("")
    }) {
        if let Some(n) = entry.avg_ncpus.filter(|n| *n != 0.0) {
            usage.avg_ncpus = n;
        }
        if let Some(n) = entry.ngpus.filter(|n| *n != 0.0) {
            usage.coproc_usage = n;
        }
    }
    usage
}

/// The emulator's job parameters of app `app` of a project of the state
/// file: (latency bound, true job size in FLOPs). The emulator takes
/// `<latency_bound>` and `<fpops_est>` from the app, else from a job of that
/// app in the state file, else 864000 s and 3600e11 FLOPs (client/sim.cpp
/// `get_app_params()`). A generated job's true size is `fpops_est`; the
/// estimate the client sees (`rsc_fpops_est`) is drawn from `<fpops>`
/// (`make_job()`).
pub fn emulator_app_params(project: &rec_state::Project, app: &str) -> (f64, f64) {
    let recorded_app = project.apps.iter().find(|a| a.name.as_deref() == Some(app));
    let workunit = project
        .workunits
        .iter()
        .find(|wu| wu.app_name.as_deref() == Some(app));
    let job_latency = project.results.iter().find_map(|r| {
        let wu = project
            .workunits
            .iter()
            .find(|wu| wu.name.is_some() && wu.name == r.wu_name)?;
        if wu.app_name.as_deref() != Some(app) {
            return None;
        }
        Some(r.report_deadline? - r.received_time.unwrap_or(0.0))
    });
    let fpops_est = recorded_app
        .and_then(|a| a.fpops_est)
        .filter(|x| *x > 0.0)
        .or(workunit.and_then(|wu| wu.rsc_fpops_est))
        .unwrap_or(3600e11);
    let latency_bound = recorded_app
        .and_then(|a| a.latency_bound)
        .filter(|x| *x > 0.0)
        .or(job_latency)
        .unwrap_or(864000.0);
    (latency_bound, fpops_est)
}

/// MD5 digest (RFC 1321) as lowercase hex: the emulator orders the jobs it
/// loads from client_state.xml by the md5 of their names (§9.7 quirks).
fn md5_hex(data: &[u8]) -> String {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    let k: Vec<u32> = (0..64)
        .map(|i| ((i as f64 + 1.0).sin().abs() * 4294967296.0) as u32)
        .collect();
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_le_bytes());
    let (mut a0, mut b0, mut c0, mut d0) =
        (0x67452301u32, 0xefcdab89u32, 0x98badcfeu32, 0x10325476u32);
    for chunk in msg.chunks(64) {
        let m: Vec<u32> = chunk
            .chunks(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let (mut a, mut b, mut c, mut d) = (a0, b0, c0, d0);
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(f.rotate_left(S[i]));
        }
        a0 = a0.wrapping_add(a);
        b0 = b0.wrapping_add(b);
        c0 = c0.wrapping_add(c);
        d0 = d0.wrapping_add(d);
    }
    [a0, b0, c0, d0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod md5_tests {
    #[test]
    fn md5_matches_rfc_1321() {
        assert_eq!(super::md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            super::md5_hex(b"The quick brown fox jumps over the lazy dog"),
            "9e107d9d372bb6826bd81d3542a419d6"
        );
    }
}

#[cfg(test)]
mod app_config_tests {
    use super::*;
    use crate::trace::state::{AppConfigApp, AppConfigVersion, GpuVersions};

    /// A host with one project (apps `a` and `b`, one CPU version each) and
    /// an app_config.xml for it (max_concurrent 2 for `a`, 1 for `x`, an app
    /// the project lacks; project_max_concurrent 5), parsed to its end or
    /// not.
    fn host_with_app_config(client_parse_error: Option<&str>) -> HostState {
        let mut trace = Trace::default();
        let project = rec_state::Project {
            master_url: Some("http://p.org/".into()),
            project_name: Some("P".into()),
            apps: ["a", "b"]
                .map(|name| rec_state::App {
                    name: Some(name.into()),
                    ..Default::default()
                })
                .to_vec(),
            app_versions: ["a", "b"]
                .map(|name| rec_state::AppVersion {
                    app_name: Some(name.into()),
                    ..Default::default()
                })
                .to_vec(),
            ..Default::default()
        };
        trace.state.client_states.push(ClientState {
            path: "d/client_state.xml".into(),
            host_info: Some(rec_state::HostInfo {
                p_ncpus: Some(4),
                ..Default::default()
            }),
            projects: vec![project],
            ..Default::default()
        });
        let entry = |name: &str, mc: i64| AppConfigApp {
            name: Some(name.into()),
            max_concurrent: Some(mc),
            ..AppConfigApp::default()
        };
        trace.state.app_configs.push(AppConfig {
            path: "d/projects/p.org/app_config.xml".into(),
            project_dir: Some("p.org".into()),
            apps: vec![entry("a", 2), entry("x", 1)],
            project_max_concurrent: Some(5),
            client_parse_error: client_parse_error.map(str::to_string),
            ..AppConfig::default()
        });
        build_emulator_state(&trace).expect("builds").0
    }

    /// lib/cc_config.cpp APP_CONFIGS::parse counts every entry's
    /// max_concurrent in project_has_mc and project_min_mc, an app the
    /// project lacks included; app_config.cpp check_app_config applies
    /// the entries to their apps only when the whole file parsed.
    #[test]
    fn a_file_that_fails_to_parse_keeps_only_its_project_wide_limits() {
        let parsed = host_with_app_config(None);
        let project = &parsed.projects[0];
        assert_eq!(project.app("a").and_then(|a| a.max_concurrent), Some(2));
        assert_eq!(project.project_max_concurrent, Some(5));
        // `x`'s limit counts though the project has no app `x`.
        assert_eq!(project.min_max_concurrent(), 1);

        let cut = host_with_app_config(Some("Missing </app> in app_config.xml"));
        let project = &cut.projects[0];
        assert_eq!(project.app("a").and_then(|a| a.max_concurrent), None);
        assert_eq!(project.project_max_concurrent, Some(5));
        assert!(project.has_max_concurrent());
        assert_eq!(project.min_max_concurrent(), 1);
    }

    fn config(gpu: Option<(f64, f64)>, version: Option<(&str, f64, f64)>) -> AppConfig {
        AppConfig {
            apps: vec![AppConfigApp {
                name: Some("a".into()),
                gpu_versions: gpu.map(|(g, c)| GpuVersions {
                    gpu_usage: Some(g),
                    cpu_usage: Some(c),
                }),
                ..AppConfigApp::default()
            }],
            app_versions: version
                .map(|(class, ncpus, ngpus)| AppConfigVersion {
                    app_name: Some("a".into()),
                    plan_class: Some(class.into()),
                    avg_ncpus: Some(ncpus),
                    ngpus: Some(ngpus),
                    cmdline: None,
                })
                .into_iter()
                .collect(),
            ..AppConfig::default()
        }
    }

    /// app_config.xml documentation: `<gpu_versions>` sets a GPU version's
    /// GPU and CPU usage; a CPU version is untouched; `<cpu_usage>0` means
    /// "not given", and then nothing changes.
    #[test]
    fn gpu_versions_apply_to_gpu_versions_only_when_both_are_given() {
        let gpu = ResourceUsage::coproc(0.2, 1, 1.0, 5e10);
        let out = with_app_config(&config(Some((0.5, 0.14)), None), "a", None, gpu.clone());
        assert_eq!((out.coproc_usage, out.avg_ncpus), (0.5, 0.14));
        let cpu = ResourceUsage::cpu(1.0, 3e9);
        assert_eq!(
            with_app_config(&config(Some((0.5, 0.14)), None), "a", None, cpu.clone()),
            cpu
        );
        assert_eq!(
            with_app_config(&config(Some((0.5, 0.0)), None), "a", None, gpu.clone()),
            gpu
        );
        assert_eq!(
            with_app_config(&config(Some((0.5, 0.14)), None), "b", None, gpu.clone()),
            gpu
        );
    }

    /// `<app_version>` entries match app and plan class and override
    /// `avg_ncpus` and `ngpus`.
    #[test]
    fn app_version_entries_match_the_plan_class() {
        let mt = ResourceUsage::cpu(4.0, 1.2e10);
        let c = config(None, Some(("mt", 2.0, 0.0)));
        assert_eq!(
            with_app_config(&c, "a", Some("mt"), mt.clone()).avg_ncpus,
            2.0
        );
        assert_eq!(
            with_app_config(&c, "a", Some(""), mt.clone()).avg_ncpus,
            4.0
        );
        assert_eq!(with_app_config(&c, "a", None, mt).avg_ncpus, 4.0);
    }
}

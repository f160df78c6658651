//! client_state.xml of every era (5.x–8.x), the GUI RPC `get_state` copy,
//! and the emulator's input form (formats-xml.md §1; reference/README.md).
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! Filing: `<app>`, `<file>`/`<file_info>`, `<app_version>`, `<workunit>` and
//! `<result>` belong to the `<project>` before them (the client's write
//! order); one before any project is an error and is dropped. After reading,
//! each result gets its workunit's `app_name` and `rsc_fpops_est`, and its
//! active task's fraction done and elapsed time.
//!
//! Eras: 6.x debts (`short_term_debt`, `long_term_debt`, `cuda_debt`, …) go
//! to [`Project::debts`]; every backoff form (`rsc_backoff_time` /
//! `rsc_backoff_interval` with `<name>`, 6.x `cpu_backoff_interval`,
//! `cuda_backoff_time`, …) to [`Project::rsc_backoffs`]; `no_rsc_apps` and the
//! 6.12 flags `no_cpu_apps`, `no_cuda_ams`, … to the `no_rsc_*` lists.
//!
//! The emulator's extra elements are kept: `<app>` `latency_bound`,
//! `fpops_est`, `fpops` (`mean`, `std_dev`/`stdev`), `weight`, `working_set`;
//! `<project>` `<available>` (`frac`, `lambda`); `<time_stats>` `*_lambda`.
//!
//! Unknown elements are counted (not reported) at the top level and inside
//! `<project>`, `<app>`, `<app_version>`, `<workunit>`, `<result>` and
//! `<active_task>`; the free-form blocks (`<host_info>` extras, coprocessor
//! properties, `<net_stats>`, file transfer details) are skipped silently.

use crate::parse::error::Parsed;
use crate::parse::xml::{fields, parse_whole, Element, XmlDoc};
use crate::resource::ResourceType;
use crate::source::SourcePath;
use crate::trace::state::{
    ActiveTask, App, AppVersion, Availability, ClientState, Coproc, CoprocUsage, FileInfo,
    FpopsDistribution, HostInfo, Job, Project, RscBackoff, RscDebt, TimeStats, Workunit,
};
use crate::trace::ClientVersion;

/// Top-level elements that are known and deliberately not modelled.
const SKIPPED_TOP: &[&str] = &[
    "net_stats",
    "project_files",
    "proxy_info",
    "user_cpids",
    "language",
    "newer_version",
    "client_version_check_url",
    "client_download_url",
    "user_network_prev_request",
    "host_info_cpu_only",
    "cpu_benchmarks_pending",
    "previous_uptime",
    "statistics",
    "rss_feeds",
    "project_init",
];

/// Parses a whole client_state.xml.
pub fn parse_client_state(path: &SourcePath, bytes: &[u8]) -> Parsed<ClientState> {
    parse_whole(path, bytes, read_client_state_doc)
}

/// Reads the document of `doc` as a client_state.xml (problems stay in `doc`).
pub(crate) fn read_client_state_doc(doc: &mut XmlDoc<'_>) -> Option<ClientState> {
    let root = doc.parse_root();
    let root = doc.expect_root(root, &["client_state"])?;
    let mut state = ClientState {
        path: doc.path.to_string(),
        ..ClientState::default()
    };
    let (mut major, mut minor, mut release) = (None, None, None);
    for child in &root.children {
        match child.name.as_str() {
            "host_info" => state.host_info = Some(read_host_info(doc, child)),
            "time_stats" => state.time_stats = Some(read_time_stats(doc, child)),
            "project" => state.projects.push(read_project(doc, child)),
            "app" | "file" | "file_info" | "app_version" | "workunit" | "result" => {
                match state.projects.last_mut() {
                    Some(project) => file_under_project(doc, project, child),
                    None => doc.invalid(
                        child.offset,
                        format!(
                            "<{}> before any <project>: cannot tell which project it \
                             belongs to; ignored",
                            child.name
                        ),
                    ),
                }
            }
            "active_task_set" => {
                for task in &child.children {
                    if task.name == "active_task" {
                        state.active_tasks.push(read_active_task(doc, task));
                    } else {
                        doc.unknown(task);
                    }
                }
            }
            "active_task" => state.active_tasks.push(read_active_task(doc, child)),
            "core_client_major_version" => major = doc.read::<i64>(child),
            "core_client_minor_version" => minor = doc.read::<i64>(child),
            "core_client_release" => release = doc.read::<i64>(child),
            "alt_platform" => {
                let name = doc.string(child.child("name").unwrap_or(child));
                state.alt_platforms.extend(name);
            }
            name if SKIPPED_TOP.contains(&name) => {}
            _ => {
                if !fields!(
                    doc,
                    child,
                    state,
                    [
                        platform_name,
                        user_run_request,
                        user_run_prev_request,
                        user_gpu_request,
                        user_gpu_prev_request,
                        user_network_request,
                        host_venue,
                        new_version_check_time,
                        all_projects_list_check_time,
                    ]
                ) {
                    doc.unknown(child);
                }
            }
        }
    }
    state.core_client_version = client_version(major, minor, release);
    link_jobs(&mut state);
    Some(state)
}

/// A version from its three parts (all must be present and non-negative).
pub(crate) fn client_version(
    major: Option<i64>,
    minor: Option<i64>,
    release: Option<i64>,
) -> Option<ClientVersion> {
    Some(ClientVersion {
        major: u32::try_from(major?).ok()?,
        minor: u32::try_from(minor?).ok()?,
        release: u32::try_from(release?).ok()?,
    })
}

fn file_under_project(doc: &mut XmlDoc<'_>, project: &mut Project, child: &Element) {
    match child.name.as_str() {
        "app" => project.apps.push(read_app(doc, child)),
        "file" | "file_info" => project.files.push(read_file_info(doc, child)),
        "app_version" => project.app_versions.push(read_app_version(doc, child)),
        "workunit" => project.workunits.push(read_workunit(doc, child)),
        _ => project.results.push(read_result(doc, child)),
    }
}

/// Fills each result's workunit facts and active-task progress.
fn link_jobs(state: &mut ClientState) {
    for project in &mut state.projects {
        for job in &mut project.results {
            let workunit = project
                .workunits
                .iter()
                .find(|wu| wu.name.is_some() && wu.name == job.wu_name);
            if let Some(workunit) = workunit {
                job.app_name.clone_from(&workunit.app_name);
                job.rsc_fpops_est = workunit.rsc_fpops_est;
            }
            let task = state.active_tasks.iter().find(|task| {
                task.result_name.is_some()
                    && task.result_name == job.name
                    && task.project_master_url == project.master_url
            });
            if let Some(task) = task {
                if job.fraction_done.is_none() {
                    job.fraction_done = task.fraction_done.or(task.checkpoint_fraction_done);
                }
                if job.elapsed_time.is_none() {
                    job.elapsed_time = task.elapsed_time.or(task.checkpoint_elapsed_time);
                }
            }
        }
    }
}

/// Reads a `<host_info>` (or the 6.10 emulator's `<host>`).
pub(crate) fn read_host_info(doc: &mut XmlDoc<'_>, element: &Element) -> HostInfo {
    let mut host = HostInfo::default();
    for child in &element.children {
        if child.name == "coprocs" {
            host.coprocs = read_coprocs(doc, child);
            continue;
        }
        // Platform-specific extras (ip_addr, p_features, docker, WSL, …) are
        // skipped silently.
        let _ = fields!(
            doc,
            child,
            host,
            [
                timezone,
                domain_name,
                host_cpid,
                p_ncpus,
                p_vendor,
                p_model,
                p_fpops,
                p_iops,
                p_membw,
                p_calculated,
                p_vm_extensions_disabled,
                m_nbytes,
                m_cache,
                m_swap,
                d_total,
                d_free,
                os_name,
                os_version,
                n_usable_coprocs,
                product_name,
            ]
        );
    }
    host
}

/// Reads an emulator's random process (`<available>`, `<idle>`: `frac`, `lambda`).
pub(crate) fn read_availability(doc: &mut XmlDoc<'_>, element: &Element) -> Availability {
    let mut available = Availability::default();
    for part in &element.children {
        if !fields!(doc, part, available, [frac, lambda]) {
            doc.unknown(part);
        }
    }
    available
}

/// Reads a `<coprocs>` block: one entry per coprocessor type.
pub(crate) fn read_coprocs(doc: &mut XmlDoc<'_>, element: &Element) -> Vec<Coproc> {
    let mut coprocs = Vec::new();
    for child in &element.children {
        if child.name == "coproc" || child.name.starts_with("coproc_") {
            if let Some(coproc) = read_coproc(doc, child) {
                coprocs.push(coproc);
            }
        }
    }
    coprocs
}

/// Reads one coprocessor element (`<coproc_cuda>`, …, or `<coproc>` with
/// `<type>`); `None` for a custom one without a type.
pub(crate) fn read_coproc(doc: &mut XmlDoc<'_>, element: &Element) -> Option<Coproc> {
    let rsc = if element.name == "coproc" {
        let type_element = element.child("type")?;
        doc.read::<ResourceType>(type_element)?
    } else {
        match ResourceType::from_name(&element.name)? {
            ResourceType::Other(_) => {
                ResourceType::from_name(element.name.trim_start_matches("coproc_"))?
            }
            known => known,
        }
    };
    let mut coproc = Coproc {
        rsc,
        count: None,
        name: None,
        peak_flops: None,
        available_ram: None,
        have_cuda: None,
        have_cal: None,
        have_opencl: None,
        cuda_version: None,
        drv_version: None,
        device_nums: Vec::new(),
        non_gpu: false,
        n_pci_infos: 0,
        req_secs: None,
        req_instances: None,
        estimated_delay: None,
    };
    for child in &element.children {
        match child.name.as_str() {
            "cudaVersion" => coproc.cuda_version = doc.read(child),
            "drvVersion" => coproc.drv_version = doc.read(child),
            "pci_info" => coproc.n_pci_infos += 1,
            "device_num" => coproc.device_nums.extend(doc.read::<i64>(child)),
            "device_nums" => {
                for word in child.text.split_whitespace() {
                    match word.parse::<i64>() {
                        Ok(num) => coproc.device_nums.push(num),
                        Err(_) => doc.expected(
                            child.offset,
                            "device numbers like \"0 1 2\" in <device_nums>",
                            &child.text,
                        ),
                    }
                }
            }
            _ => {
                // The many device properties (totalGlobalMem, CALVersion,
                // coproc_opencl, …) are skipped silently.
                let _ = fields!(
                    doc,
                    child,
                    coproc,
                    [
                        count,
                        name,
                        peak_flops,
                        available_ram,
                        have_cuda,
                        have_cal,
                        have_opencl,
                        req_secs,
                        req_instances,
                        estimated_delay,
                    ],
                    flags[non_gpu]
                );
            }
        }
    }
    Some(coproc)
}

/// Reads a `<time_stats>` (state-file or to-server form).
pub(crate) fn read_time_stats(doc: &mut XmlDoc<'_>, element: &Element) -> TimeStats {
    let mut stats = TimeStats::default();
    for child in &element.children {
        if !fields!(
            doc,
            child,
            stats,
            [
                on_frac,
                connected_frac,
                cpu_and_network_available_frac,
                active_frac,
                gpu_active_frac,
                cpu_efficiency,
                client_start_time,
                total_start_time,
                total_duration,
                total_active_duration,
                total_gpu_active_duration,
                previous_uptime,
                last_update,
                now,
                session_active_duration,
                session_gpu_active_duration,
                on_lambda,
                connected_lambda,
                active_lambda,
                gpu_active_lambda,
            ]
        ) {
            doc.unknown(child);
        }
    }
    stats
}

/// Project elements known and deliberately not modelled.
const SKIPPED_PROJECT: &[&str] = &[
    "symstore",
    "email_hash",
    "cross_project_id",
    "external_cpid",
    "cpid_time",
    "user_create_time",
    "host_create_time",
    "code_sign_key",
    "trickle_up_url",
    "gui_urls",
    "sched_priority",
    "project_files_downloaded_time",
    "download_backoff",
    "upload_backoff",
    "venue",
    "project_dir",
    "master_fetch_pending",
    "tentative",
    "possibly_backed_off",
];

/// Reads a `<project>`; `<app>`s nested inside (sim_projects.xml) are filed
/// under it.
pub(crate) fn read_project(doc: &mut XmlDoc<'_>, element: &Element) -> Project {
    let mut project = Project::default();
    for child in &element.children {
        let name = child.name.as_str();
        if fields!(
            doc,
            child,
            project,
            [
                master_url,
                project_name,
                user_name,
                team_name,
                host_venue,
                rpc_seqno,
                userid,
                teamid,
                hostid,
                user_total_credit,
                user_expavg_credit,
                host_total_credit,
                host_expavg_credit,
                nrpc_failures,
                master_fetch_failures,
                min_rpc_time,
                next_rpc_time,
                rec,
                rec_time,
                resource_share,
                ams_resource_share_new,
                disk_usage,
                disk_share,
                desired_disk_usage,
                duration_correction_factor,
                sched_rpc_pending,
                send_time_stats_log,
                send_job_log,
                njobs_success,
                njobs_error,
                elapsed_time,
                last_rpc_time,
                cpu_ec,
                cpu_time,
                gpu_ec,
                gpu_time,
                rr_sim_deadlines_missed,
            ],
            flags[
                anonymous_platform,
                master_url_fetch_pending,
                trickle_up_pending,
                send_full_workload,
                dont_use_dcf,
                non_cpu_intensive,
                strict_memory_bound,
                suspended_via_gui,
                dont_request_more_work,
                detach_when_done,
                ended,
                attached_via_acct_mgr,
                scheduler_rpc_in_progress,
                use_symlinks,
            ]
        ) {
            continue;
        }
        match name {
            "rsc_backoff_time" | "rsc_backoff_interval" => {
                let rsc = child
                    .child("name")
                    .and_then(|name| doc.read::<ResourceType>(name));
                let value = child
                    .child("value")
                    .and_then(|value| doc.read::<f64>(value));
                match rsc {
                    Some(rsc) => {
                        let backoff = backoff_mut(&mut project.rsc_backoffs, rsc);
                        if name == "rsc_backoff_time" {
                            backoff.backoff_time = value;
                        } else {
                            backoff.backoff_interval = value;
                        }
                    }
                    None => doc.expected(
                        child.offset,
                        format!("<name>RESOURCE</name> in <{name}>"),
                        child.text.trim(),
                    ),
                }
            }
            "no_rsc_apps" | "no_rsc_ams" | "no_rsc_pref" | "no_rsc_config" => {
                if let Some(rsc) = doc.read::<ResourceType>(child) {
                    let list = match name {
                        "no_rsc_apps" => &mut project.no_rsc_apps,
                        "no_rsc_ams" => &mut project.no_rsc_ams,
                        "no_rsc_pref" => &mut project.no_rsc_pref,
                        _ => &mut project.no_rsc_config,
                    };
                    push_unique(list, rsc);
                }
            }
            "short_term_debt" => {
                debt_mut(&mut project.debts, ResourceType::Cpu).short_term_debt = doc.read(child)
            }
            "long_term_debt" => {
                debt_mut(&mut project.debts, ResourceType::Cpu).long_term_debt = doc.read(child)
            }
            "scheduler_url" => project.scheduler_urls.extend(doc.string(child)),
            "available" => project.available = Some(read_availability(doc, child)),
            "app" => project.apps.push(read_app(doc, child)),
            _ if SKIPPED_PROJECT.contains(&name) => {}
            _ => {
                if !read_old_resource_field(doc, &mut project, child) {
                    doc.unknown(child);
                }
            }
        }
    }
    project
}

/// The 6.x per-resource elements: `{cpu,cuda,ati}_backoff_{time,interval}`,
/// `{cuda,ati}_short_term_debt`, `{cuda,ati}_debt`, and the 6.12 flags
/// `no_{cpu,cuda,ati,intel_gpu}_{apps,ams,pref}`. True if `child` was one.
fn read_old_resource_field(doc: &mut XmlDoc<'_>, project: &mut Project, child: &Element) -> bool {
    let name = child.name.as_str();
    if let Some(prefix) = name.strip_suffix("_backoff_time") {
        if let Some(rsc) = old_rsc_name(prefix) {
            backoff_mut(&mut project.rsc_backoffs, rsc).backoff_time = doc.read(child);
            return true;
        }
    }
    if let Some(prefix) = name.strip_suffix("_backoff_interval") {
        if let Some(rsc) = old_rsc_name(prefix) {
            backoff_mut(&mut project.rsc_backoffs, rsc).backoff_interval = doc.read(child);
            return true;
        }
    }
    if let Some(prefix) = name.strip_suffix("_short_term_debt") {
        if let Some(rsc) = old_rsc_name(prefix) {
            debt_mut(&mut project.debts, rsc).short_term_debt = doc.read(child);
            return true;
        }
    }
    if let Some(prefix) = name.strip_suffix("_debt") {
        if let Some(rsc) = old_rsc_name(prefix) {
            debt_mut(&mut project.debts, rsc).long_term_debt = doc.read(child);
            return true;
        }
    }
    if let Some(rest) = name.strip_prefix("no_") {
        for (suffix, which) in [("_apps", 0), ("_ams", 1), ("_pref", 2)] {
            if let Some(rsc) = rest.strip_suffix(suffix).and_then(old_rsc_name) {
                if doc.flag(child) {
                    let list = match which {
                        0 => &mut project.no_rsc_apps,
                        1 => &mut project.no_rsc_ams,
                        _ => &mut project.no_rsc_pref,
                    };
                    push_unique(list, rsc);
                }
                return true;
            }
        }
    }
    false
}

/// The resource named by the lower-case part of an old element name
/// (`cpu`, `cuda`, `ati`, `intel_gpu`, `apple_gpu`, as in `no_cuda_apps`,
/// `ati_backoff_time`, `ignore_ati_dev`, `no_intel_gpu`).
pub(crate) fn old_rsc_name(part: &str) -> Option<ResourceType> {
    match part {
        "cpu" => Some(ResourceType::Cpu),
        "cuda" | "nvidia" => Some(ResourceType::Nvidia),
        "ati" | "amd" => Some(ResourceType::Amd),
        "intel_gpu" | "intel" => Some(ResourceType::Intel),
        "apple_gpu" | "apple" => Some(ResourceType::Apple),
        _ => None,
    }
}

/// Appends `rsc` unless `list` has it.
pub(crate) fn push_unique(list: &mut Vec<ResourceType>, rsc: ResourceType) {
    if !list.contains(&rsc) {
        list.push(rsc);
    }
}

fn backoff_mut(backoffs: &mut Vec<RscBackoff>, rsc: ResourceType) -> &mut RscBackoff {
    let idx = match backoffs.iter().position(|backoff| backoff.rsc == rsc) {
        Some(idx) => idx,
        None => {
            backoffs.push(RscBackoff {
                rsc,
                backoff_time: None,
                backoff_interval: None,
            });
            backoffs.len() - 1
        }
    };
    &mut backoffs[idx]
}

fn debt_mut(debts: &mut Vec<RscDebt>, rsc: ResourceType) -> &mut RscDebt {
    let idx = match debts.iter().position(|debt| debt.rsc == rsc) {
        Some(idx) => idx,
        None => {
            debts.push(RscDebt {
                rsc,
                short_term_debt: None,
                long_term_debt: None,
            });
            debts.len() - 1
        }
    };
    &mut debts[idx]
}

/// Reads an `<app>` (state file, reply, or emulator input).
pub(crate) fn read_app(doc: &mut XmlDoc<'_>, element: &Element) -> App {
    let mut app = App::default();
    for child in &element.children {
        if fields!(
            doc,
            child,
            app,
            [
                name,
                user_friendly_name,
                max_concurrent,
                checkpoint_period,
                latency_bound,
                fpops_est,
                weight,
                working_set,
            ],
            flags[non_cpu_intensive, sporadic, fraction_done_exact]
        ) {
            continue;
        }
        if child.name == "fpops" {
            let mut fpops = FpopsDistribution::default();
            for part in &child.children {
                match part.name.as_str() {
                    "mean" => fpops.mean = doc.read(part),
                    "std_dev" | "stdev" => fpops.std_dev = doc.read(part),
                    _ => doc.unknown(part),
                }
            }
            app.fpops = Some(fpops);
        } else {
            doc.unknown(child);
        }
    }
    app
}

/// Reads a `<file>` / `<file_info>`.
fn read_file_info(doc: &mut XmlDoc<'_>, element: &Element) -> FileInfo {
    let mut file = FileInfo::default();
    for child in &element.children {
        if child.name == "persistent_file_xfer" {
            file.transfer_in_progress = true;
            continue;
        }
        // Signatures, URLs and transfer details are skipped silently.
        let _ = fields!(doc, child, file, [name, nbytes, status], flags[sticky]);
    }
    file
}

/// Reads a `<coproc>` usage block (`<type>`, `<count>`).
fn read_coproc_usage(doc: &mut XmlDoc<'_>, element: &Element) -> Option<CoprocUsage> {
    let rsc = element
        .child("type")
        .and_then(|rsc| doc.read::<ResourceType>(rsc));
    let Some(rsc) = rsc else {
        doc.expected(
            element.offset,
            "<type>RESOURCE</type> in <coproc>",
            element.text.trim(),
        );
        return None;
    };
    let count = element.child("count").and_then(|count| doc.read(count));
    Some(CoprocUsage { rsc, count })
}

/// Empty plan classes (the emulator writes `<plan_class></plan_class>`) are none.
fn plan_class(doc: &mut XmlDoc<'_>, element: &Element) -> Option<String> {
    doc.string(element)
}

const SKIPPED_APP_VERSION: &[&str] = &["file_ref", "file_prefix", "dont_throttle_set"];

/// Reads an `<app_version>`.
pub(crate) fn read_app_version(doc: &mut XmlDoc<'_>, element: &Element) -> AppVersion {
    let mut version = AppVersion::default();
    for child in &element.children {
        match child.name.as_str() {
            "coproc" => version.coproc = read_coproc_usage(doc, child),
            "plan_class" => version.plan_class = plan_class(doc, child),
            name if SKIPPED_APP_VERSION.contains(&name) => {}
            _ => {
                if !fields!(
                    doc,
                    child,
                    version,
                    [
                        app_name,
                        version_num,
                        platform,
                        api_version,
                        cmdline,
                        avg_ncpus,
                        max_ncpus,
                        flops,
                        gpu_ram,
                    ],
                    flags[dont_throttle, is_wrapper, needs_network]
                ) {
                    doc.unknown(child);
                }
            }
        }
    }
    version
}

const SKIPPED_WORKUNIT: &[&str] = &["env_vars", "job_keyword_ids", "sub_appname"];

/// A `<file_ref>`'s `<file_name>`.
fn file_ref_name(element: &Element) -> Option<String> {
    element
        .child("file_name")
        .map(|name| name.text.trim())
        .filter(|name| !name.is_empty())
        .map(str::to_string)
}

/// Reads a `<workunit>`.
pub(crate) fn read_workunit(doc: &mut XmlDoc<'_>, element: &Element) -> Workunit {
    let mut workunit = Workunit::default();
    for child in &element.children {
        match child.name.as_str() {
            "coproc" => workunit.coproc = read_coproc_usage(doc, child),
            "file_ref" => workunit.input_files.extend(file_ref_name(child)),
            name if SKIPPED_WORKUNIT.contains(&name) => {}
            _ => {
                if !fields!(
                    doc,
                    child,
                    workunit,
                    [
                        name,
                        app_name,
                        version_num,
                        rsc_fpops_est,
                        rsc_fpops_bound,
                        rsc_memory_bound,
                        rsc_disk_bound,
                        command_line,
                        avg_ncpus,
                        flops,
                    ]
                ) {
                    doc.unknown(child);
                }
            }
        }
    }
    workunit
}

const SKIPPED_RESULT: &[&str] = &[
    "file_info",
    "stderr_out",
    "fpops_per_cpu_sec",
    "fpops_cumulative",
    "intops_per_cpu_sec",
    "intops_cumulative",
    "final_peak_working_set_size",
    "final_peak_swap_size",
    "final_peak_disk_usage",
    "final_bytes_sent",
    "final_bytes_received",
    "project_url",
    "resources",
    "edf_scheduled",
    "active_task_state",
    "scheduler_state",
    "checkpoint_cpu_time",
    "current_cpu_time",
    "swap_size",
    "working_set_size_smoothed",
    "pid",
    "slot",
    "too_large",
    "needs_shmem",
    "network_wait",
    "coproc_missing",
    "platform_name",
];

/// Reads a `<result>` (state-file, to-server or from-server form).
pub(crate) fn read_result(doc: &mut XmlDoc<'_>, element: &Element) -> Job {
    let mut job = Job::default();
    for child in &element.children {
        match child.name.as_str() {
            "plan_class" => job.plan_class = plan_class(doc, child),
            "file_ref" => job.output_files.extend(file_ref_name(child)),
            name if SKIPPED_RESULT.contains(&name) => {}
            _ => {
                if !fields!(
                    doc,
                    child,
                    job,
                    [
                        name,
                        wu_name,
                        platform,
                        version_num,
                        app_version_num,
                        state,
                        exit_status,
                        final_cpu_time,
                        final_elapsed_time,
                        report_deadline,
                        received_time,
                        completed_time,
                        fraction_done,
                        elapsed_time,
                        estimated_cpu_time_remaining,
                    ],
                    flags[
                        got_server_ack,
                        ready_to_report,
                        suspended_via_gui,
                        report_immediately,
                    ]
                ) {
                    doc.unknown(child);
                }
            }
        }
    }
    job
}

const SKIPPED_ACTIVE_TASK: &[&str] = &[
    "virtual_size",
    "bytes_sent",
    "bytes_received",
    "stats_mem",
    "stats_page",
    "stats_checkpoint",
    "pid",
    "graphics_exec_path",
    "slot_path",
    "web_graphics_url",
    "remote_desktop_addr",
    "progress_rate",
];

/// Reads an `<active_task>`.
fn read_active_task(doc: &mut XmlDoc<'_>, element: &Element) -> ActiveTask {
    let mut task = ActiveTask::default();
    for child in &element.children {
        if SKIPPED_ACTIVE_TASK.contains(&child.name.as_str()) {
            continue;
        }
        if !fields!(
            doc,
            child,
            task,
            [
                project_master_url,
                result_name,
                active_task_state,
                app_version_num,
                slot,
                checkpoint_cpu_time,
                checkpoint_elapsed_time,
                checkpoint_fraction_done,
                checkpoint_fraction_done_elapsed_time,
                current_cpu_time,
                swap_size,
                working_set_size,
                working_set_size_smoothed,
                page_fault_rate,
                scheduler_state,
                fraction_done,
                elapsed_time,
            ],
            flags[once_ran_edf]
        ) {
            doc.unknown(child);
        }
    }
    task
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Parsed<ClientState> {
        parse_client_state(&SourcePath::from("client_state.xml"), text.as_bytes())
    }

    #[test]
    fn six_x_project_with_debts_and_cpu_backoff() {
        let parsed = parse(
            "<client_state>\n<project>\n<master_url>http://a.org/</master_url>\n\
             <resource_share> 100.000000 </resource_share>\n\
             <short_term_debt>-12.5</short_term_debt>\n<long_term_debt>300</long_term_debt>\n\
             <cpu_backoff_interval>600</cpu_backoff_interval>\n\
             <cpu_backoff_time>1250000000</cpu_backoff_time>\n\
             <cuda_debt>7</cuda_debt>\n<no_cuda_apps/>\n<no_ati_apps>0</no_ati_apps>\n\
             </project>\n</client_state>\n",
        );
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let project = &parsed.value.projects[0];
        assert_eq!(project.resource_share, Some(100.0));
        assert_eq!(
            project.debts,
            vec![
                RscDebt {
                    rsc: ResourceType::Cpu,
                    short_term_debt: Some(-12.5),
                    long_term_debt: Some(300.0)
                },
                RscDebt {
                    rsc: ResourceType::Nvidia,
                    short_term_debt: None,
                    long_term_debt: Some(7.0)
                },
            ]
        );
        assert_eq!(
            project.rsc_backoffs,
            vec![RscBackoff {
                rsc: ResourceType::Cpu,
                backoff_time: Some(1_250_000_000.0),
                backoff_interval: Some(600.0)
            }]
        );
        assert_eq!(project.no_rsc_apps, vec![ResourceType::Nvidia]);
    }

    #[test]
    fn seven_x_backoffs_jobs_and_active_tasks() {
        let parsed = parse(
            "<client_state>\n<project><master_url>u</master_url>\n\
             <rsc_backoff_time><name>NVIDIA</name><value>5.5</value></rsc_backoff_time>\n\
             <rsc_backoff_interval><name>NVIDIA</name><value>1200</value></rsc_backoff_interval>\n\
             <no_rsc_apps>ATI</no_rsc_apps></project>\n\
             <workunit><name>w</name><app_name>a</app_name><rsc_fpops_est>1e12</rsc_fpops_est></workunit>\n\
             <result><name>w_0</name><wu_name>w</wu_name><state>2</state><plan_class></plan_class></result>\n\
             <active_task_set><active_task><project_master_url>u</project_master_url>\n\
             <result_name>w_0</result_name><checkpoint_fraction_done>0.25</checkpoint_fraction_done>\n\
             <checkpoint_elapsed_time>100</checkpoint_elapsed_time></active_task></active_task_set>\n\
             <core_client_major_version>7</core_client_major_version>\n\
             <core_client_minor_version>16</core_client_minor_version>\n\
             <core_client_release>3</core_client_release>\n</client_state>",
        );
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let state = &parsed.value;
        assert_eq!(
            state.core_client_version,
            Some(ClientVersion {
                major: 7,
                minor: 16,
                release: 3
            })
        );
        let project = &state.projects[0];
        assert_eq!(project.rsc_backoffs[0].rsc, ResourceType::Nvidia);
        assert_eq!(project.rsc_backoffs[0].backoff_time, Some(5.5));
        assert_eq!(project.rsc_backoffs[0].backoff_interval, Some(1200.0));
        assert_eq!(project.no_rsc_apps, vec![ResourceType::Amd]);
        let job = &project.results[0];
        assert_eq!(job.rsc_fpops_est, Some(1e12));
        assert_eq!(job.app_name.as_deref(), Some("a"));
        assert_eq!(job.plan_class, None);
        assert_eq!(job.fraction_done, Some(0.25));
        assert_eq!(job.elapsed_time, Some(100.0));
    }

    #[test]
    fn bad_number_names_element_and_position() {
        let parsed = parse(
            "<client_state>\n<project>\n  <resource_share>abc</resource_share>\n</project>\n</client_state>",
        );
        assert_eq!(
            parsed.errors[0].to_string(),
            "client_state.xml:3:3: expected a number in <resource_share>, found \"abc\""
        );
        assert_eq!(parsed.value.projects[0].resource_share, None);
    }

    #[test]
    fn job_before_project_is_an_error() {
        let parsed = parse("<client_state><result><name>x</name></result></client_state>");
        assert_eq!(parsed.errors.len(), 1);
        assert!(parsed.value.projects.is_empty());
    }

    #[test]
    fn coprocs_of_each_kind() {
        let parsed = parse(
            "<client_state><host_info><p_ncpus>8</p_ncpus><coprocs>\n\
             <coproc_cuda><count>2</count><peak_flops>5e12</peak_flops><pci_info/><pci_info/></coproc_cuda>\n\
             <coproc_ati><count>1</count></coproc_ati>\n\
             <coproc><type>miner_asic</type><count>3</count><device_nums>0 1 2</device_nums><non_gpu/></coproc>\n\
             </coprocs></host_info></client_state>",
        );
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let host = parsed.value.host_info.unwrap_or_default();
        assert_eq!(host.p_ncpus, Some(8));
        assert_eq!(host.coprocs.len(), 3);
        assert_eq!(host.coprocs[0].rsc, ResourceType::Nvidia);
        assert_eq!(host.coprocs[0].n_pci_infos, 2);
        assert_eq!(host.coprocs[1].rsc, ResourceType::Amd);
        assert_eq!(
            host.coprocs[2].rsc,
            ResourceType::Other("miner_asic".into())
        );
        assert_eq!(host.coprocs[2].device_nums, vec![0, 1, 2]);
        assert!(host.coprocs[2].non_gpu);
    }
}

//! The lab's project servers: one HTTP server on 127.0.0.1 that plays every
//! project of a lab scenario (a master page, a scheduler, a download
//! endpoint per project), and keeps each scheduler exchange as a transcript.
//!
//! ```text
//! GET  /NAME/                 master page (the <scheduler> URL)
//! POST /NAME/cgi              scheduler: request in, reply out
//! GET  /NAME/download/FILE    a job's input file
//! ```
//!
//! The scheduler follows the current server's rules of server-side.md, so
//! that `boinc-audit audit` finds no violation on the lab's transcripts:
//! S1 jobs only for a CPU request with seconds or instances left, each
//! lowering them by its duration estimate × CPUs (S2: `rsc_fpops_est /
//! flops / avail`, `avail` = `on_frac × active_frac` clamped to [0.1, 1]);
//! S3 at most 10 jobs per effective CPU per RPC; S6 "Project has no tasks
//! available" when the project has no work (no send pass), "No tasks sent"
//! after an empty send pass for a request with `work_req_seconds > 0`,
//! `<dont_use_dcf/>` for clients ≥ 7.0.28, `request_delay` ≤ 2 days; S7 a job
//! whose estimated start (`estimated_delay` grown by each job sent,
//! `d × avg_ncpus / ncpus`) plus its duration passes the delay bound is not
//! sent (skipped while the delay is 0). The lab's client runs the
//! anonymous platform, so replies carry workunits and results only.
//!
//! Each exchange is written as `rpc-NNNNN/sched_request_<P>.xml` and
//! `rpc-NNNNN/sched_reply_<P>.xml` (the bytes received and sent), the layout
//! `simulate --trace-out` writes.

use crate::parse::sched_rpc::parse_sched_rpc;
use crate::source::SourcePath;
use crate::trace::rpc::SchedRequest;
use crate::trace::state::escaped_master_url;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The version number of the lab's app versions (app_info.xml and results).
pub const VERSION_NUM: u32 = 100;

/// The `scheduler_version` the lab's replies carry (a current server).
const SCHEDULER_VERSION: u32 = 719;

/// S6: the largest `request_delay` a scheduler sends (`DELAY_MAX`).
const DELAY_MAX: f64 = 172_800.0;

/// S3: the default `max_wus_to_send` per effective CPU.
const MAX_WUS_TO_SEND: f64 = 10.0;

/// One app of a lab project.
#[derive(Clone, Debug, PartialEq)]
pub struct LabApp {
    /// App name.
    pub name: String,
    /// CPUs per job.
    pub avg_ncpus: f64,
    /// The version's FLOPS (app_info.xml `<flops>`).
    pub flops: f64,
    /// Each job's size, FLOPs (its `rsc_fpops_est`).
    pub fpops_est: f64,
    /// Deadline minus send time, seconds.
    pub latency_bound: f64,
}

impl LabApp {
    /// How long a job runs at the version's speed, seconds.
    pub fn job_secs(&self) -> f64 {
        self.fpops_est / self.flops.max(1.0)
    }
}

/// One project the lab's server plays.
#[derive(Clone, Debug, PartialEq)]
pub struct LabProject {
    /// Project name.
    pub name: String,
    /// Resource share.
    pub share: f64,
    /// Its apps (the lab runs CPU apps only).
    pub apps: Vec<LabApp>,
    /// The scheduler answers HTTP 500.
    pub down: bool,
    /// The scheduler has no task to send.
    pub empty: bool,
    /// `<request_delay>` of each reply.
    pub request_delay: Option<f64>,
    /// The scheduler never acknowledges a reported task (`noack`).
    pub no_ack: bool,
}

/// What the server has done so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerStats {
    /// Scheduler requests received (answered or refused).
    pub requests: u64,
    /// Of which refused with HTTP 500 (project down).
    pub refused: u64,
    /// Tasks sent.
    pub tasks_sent: u64,
    /// Tasks the clients reported (a task reported again counts again).
    pub tasks_reported: u64,
    /// Master pages served.
    pub master_pages: u64,
    /// Input files served.
    pub downloads: u64,
    /// Requests the server could not read (kept with their error).
    pub unreadable: Vec<String>,
}

struct Shared {
    base_url: String,
    projects: Vec<LabProject>,
    rpc_dir: PathBuf,
    next_job: Vec<u64>,
    files: HashMap<String, Vec<u8>>,
    stats: ServerStats,
}

/// A running lab server; stops when dropped.
pub struct LabServer {
    port: u16,
    shared: Arc<Mutex<Shared>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// The server could not start.
#[derive(Debug, thiserror::Error)]
#[error("lab server: {0}")]
pub struct ServerError(String);

impl LabServer {
    /// Serves `projects` on a free port of 127.0.0.1, writing transcripts
    /// under `rpc_dir`.
    pub fn start(projects: Vec<LabProject>, rpc_dir: &Path) -> Result<Self, ServerError> {
        let server = tiny_http::Server::http("127.0.0.1:0")
            .map_err(|e| ServerError(format!("cannot listen on 127.0.0.1: {e}")))?;
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| ServerError("no TCP address".into()))?;
        let n = projects.len();
        let shared = Arc::new(Mutex::new(Shared {
            base_url: format!("http://127.0.0.1:{port}"),
            projects,
            rpc_dir: rpc_dir.to_path_buf(),
            next_job: vec![0; n],
            files: HashMap::new(),
            stats: ServerStats::default(),
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let shared = Arc::clone(&shared);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match server.recv_timeout(Duration::from_millis(100)) {
                        Ok(Some(request)) => serve(&shared, request),
                        Ok(None) => {}
                        Err(_) => std::thread::sleep(Duration::from_millis(100)),
                    }
                }
            })
        };
        Ok(LabServer {
            port,
            shared,
            stop,
            thread: Some(thread),
        })
    }

    /// The port served.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A project's master URL.
    pub fn master_url(&self, project: &str) -> String {
        format!("http://127.0.0.1:{}/{project}/", self.port)
    }

    /// What the server has done so far.
    pub fn stats(&self) -> ServerStats {
        self.shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .stats
            .clone()
    }
}

impl Drop for LabServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn respond(request: tiny_http::Request, status: u16, content_type: &str, body: Vec<u8>) {
    let mut response = tiny_http::Response::from_data(body).with_status_code(status);
    if let Ok(header) = tiny_http::Header::from_bytes(&b"Content-Type"[..], content_type.as_bytes())
    {
        response = response.with_header(header);
    }
    // The client may have gone (a run ends by stopping it): nothing to do.
    let _ = request.respond(response);
}

fn serve(shared: &Mutex<Shared>, mut request: tiny_http::Request) {
    let url = request.url().to_string();
    let mut parts = url.trim_start_matches('/').splitn(3, '/');
    let name = parts.next().unwrap_or_default().to_string();
    let what = parts.next().unwrap_or_default().to_string();
    let rest = parts.next().unwrap_or_default().to_string();
    let mut guard = shared.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(index) = guard.projects.iter().position(|p| p.name == name) else {
        drop(guard);
        respond(request, 404, "text/plain", b"no such project\n".to_vec());
        return;
    };
    match (request.method(), what.as_str()) {
        (tiny_http::Method::Get, "") => {
            guard.stats.master_pages += 1;
            let page = master_page(&guard.base_url, &name);
            drop(guard);
            respond(request, 200, "text/html", page.into_bytes());
        }
        (tiny_http::Method::Get, "download") => {
            let file = guard.files.get(&rest).cloned();
            if file.is_some() {
                guard.stats.downloads += 1;
            }
            drop(guard);
            match file {
                Some(bytes) => respond(request, 200, "application/octet-stream", bytes),
                None => respond(request, 404, "text/plain", b"no such file\n".to_vec()),
            }
        }
        (tiny_http::Method::Post, "cgi") => {
            let mut body = Vec::new();
            if let Err(e) = request.as_reader().read_to_end(&mut body) {
                guard.stats.unreadable.push(format!("{name}: {e}"));
                drop(guard);
                respond(request, 400, "text/plain", b"unreadable request\n".to_vec());
                return;
            }
            let (status, reply) = scheduler(&mut guard, index, &body);
            drop(guard);
            respond(request, status, "text/xml", reply.into_bytes());
        }
        _ => {
            drop(guard);
            respond(request, 404, "text/plain", b"not found\n".to_vec());
        }
    }
}

fn master_page(base_url: &str, name: &str) -> String {
    format!(
        "<html><head><title>{name}</title>\n\
         <!-- <scheduler>{base_url}/{name}/cgi</scheduler> -->\n\
         <link rel=\"boinc_scheduler\" href=\"{base_url}/{name}/cgi\">\n\
         </head><body>{name}: a boinc-audit lab project</body></html>\n"
    )
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Handles one scheduler request: the HTTP status and body, after writing
/// the exchange's transcript.
fn scheduler(shared: &mut Shared, index: usize, body: &[u8]) -> (u16, String) {
    shared.stats.requests += 1;
    let seq = shared.stats.requests;
    let Some(project) = shared.projects.get(index).cloned() else {
        return (404, String::new());
    };
    let master_url = format!("{}/{}/", shared.base_url, project.name);
    let escaped = escaped_master_url(&master_url);
    let dir = shared.rpc_dir.join(format!("rpc-{seq:05}"));
    let request_path = dir.join(format!("sched_request_{escaped}.xml"));
    let write = |path: &Path, bytes: &[u8]| {
        std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(path, bytes))
    };
    if let Err(e) = write(&request_path, body) {
        shared
            .stats
            .unreadable
            .push(format!("{}: {e}", request_path.display()));
    }
    if project.down {
        shared.stats.refused += 1;
        return (500, "project down (boinc-audit lab)\n".into());
    }
    let parsed = parse_sched_rpc(
        &SourcePath::from(request_path.to_string_lossy().as_ref()),
        body,
    );
    if let Some(e) = parsed.errors.first() {
        shared.stats.unreadable.push(e.to_string());
    }
    let request = parsed.value.request.unwrap_or_default();
    let plan = plan_reply(&project, &request);
    let mut reply = String::new();
    let _ = writeln!(reply, "<scheduler_reply>");
    let _ = writeln!(
        reply,
        "<scheduler_version>{SCHEDULER_VERSION}</scheduler_version>"
    );
    let _ = writeln!(reply, "<master_url>{master_url}</master_url>");
    let _ = writeln!(reply, "<project_name>{}</project_name>", project.name);
    if request.hostid.unwrap_or(0) <= 0 {
        let _ = writeln!(reply, "<hostid>{}</hostid>", index + 1);
    }
    if let Some(delay) = project.request_delay {
        let _ = writeln!(
            reply,
            "<request_delay>{}</request_delay>",
            delay.min(DELAY_MAX)
        );
    }
    if client_uses_no_dcf(&request) {
        let _ = writeln!(reply, "<dont_use_dcf/>");
    }
    for message in &plan.messages {
        let _ = writeln!(reply, "<message priority=\"low\">{message}</message>");
    }
    for name in &plan.acks {
        let _ = writeln!(
            reply,
            "<result_ack>\n    <name>{name}</name>\n</result_ack>"
        );
    }
    shared.stats.tasks_reported += request.reported_results.len() as u64;
    let now = unix_now();
    let platform = anonymous_platform(&request);
    for &app_index in &plan.jobs {
        let Some(app) = project.apps.get(app_index) else {
            continue;
        };
        let n = shared.next_job.get(index).copied().unwrap_or(0);
        if let Some(slot) = shared.next_job.get_mut(index) {
            *slot += 1;
        }
        let job = format!("{}_{n}", project.name);
        let input = format!("{job}.in");
        let content = format!("{}\n", app.job_secs());
        let _ = write!(
            reply,
            "<file_info>\n    <name>{input}</name>\n    \
             <url>{master_url}download/{input}</url>\n    \
             <nbytes>{}</nbytes>\n</file_info>\n",
            content.len()
        );
        let _ = write!(
            reply,
            "<workunit>\n    <name>{job}_wu</name>\n    <app_name>{}</app_name>\n    \
             <version_num>{VERSION_NUM}</version_num>\n    \
             <rsc_fpops_est>{:.6e}</rsc_fpops_est>\n    \
             <rsc_fpops_bound>{:.6e}</rsc_fpops_bound>\n    \
             <rsc_memory_bound>10000000</rsc_memory_bound>\n    \
             <rsc_disk_bound>100000000</rsc_disk_bound>\n    \
             <file_ref>\n        <file_name>{input}</file_name>\n        \
             <open_name>in</open_name>\n    </file_ref>\n</workunit>\n",
            app.name,
            app.fpops_est,
            app.fpops_est * 100.0,
        );
        let _ = write!(
            reply,
            "<result>\n    <name>{job}</name>\n    <wu_name>{job}_wu</wu_name>\n    \
             <report_deadline>{}</report_deadline>\n    \
             <platform>{platform}</platform>\n    \
             <version_num>{VERSION_NUM}</version_num>\n</result>\n",
            (now + app.latency_bound).floor()
        );
        shared.files.insert(input, content.into_bytes());
        shared.stats.tasks_sent += 1;
    }
    let _ = writeln!(reply, "</scheduler_reply>");
    let reply_path = dir.join(format!("sched_reply_{escaped}.xml"));
    if let Err(e) = write(&reply_path, reply.as_bytes()) {
        shared
            .stats
            .unreadable
            .push(format!("{}: {e}", reply_path.display()));
    }
    (200, reply)
}

/// The results' platform for an anonymous-platform client: the platform of
/// its own app versions (the lab notes: the client's primary platform).
fn anonymous_platform(request: &SchedRequest) -> String {
    request
        .app_versions
        .iter()
        .find_map(|v| v.platform.clone())
        .filter(|p| !p.is_empty() && p != "anonymous")
        .or_else(|| request.platform_name.clone().filter(|p| p != "anonymous"))
        .unwrap_or_else(|| "x86_64-pc-linux-gnu".into())
}

/// S6 check 5: `<dont_use_dcf/>` for clients from 7.0.28.
fn client_uses_no_dcf(request: &SchedRequest) -> bool {
    request
        .core_client_version
        .is_none_or(|v| (v.major, v.minor, v.release) >= (7, 0, 28))
}

/// What one reply holds, decided from the request alone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReplyPlan {
    /// Results acknowledged.
    pub acks: Vec<String>,
    /// Jobs to send: the index of each one's app.
    pub jobs: Vec<usize>,
    /// Messages to the user.
    pub messages: Vec<String>,
}

/// The scheduler's decision for one request (server-side S1, S2, S3, S6, S7).
pub fn plan_reply(project: &LabProject, request: &SchedRequest) -> ReplyPlan {
    let mut plan = ReplyPlan {
        acks: if project.no_ack {
            Vec::new()
        } else {
            request
                .reported_results
                .iter()
                .filter_map(|r| r.name.clone())
                .collect()
        },
        ..ReplyPlan::default()
    };
    let work_req_seconds = request.work_req_seconds.unwrap_or(0.0);
    let mut req_secs = request.cpu_req_secs.unwrap_or(work_req_seconds);
    let mut req_inst = request.cpu_req_instances.unwrap_or(0.0);
    if req_secs <= 0.0 && req_inst <= 0.0 {
        return plan;
    }
    if project.empty || project.apps.is_empty() {
        plan.messages
            .push("Project has no tasks available".to_string());
        return plan;
    }
    let stats = request.time_stats.as_ref();
    let on_frac = stats.and_then(|t| t.on_frac).unwrap_or(1.0);
    let active_frac = stats.and_then(|t| t.active_frac).unwrap_or(1.0);
    let avail = (on_frac.clamp(0.1, 1.0) * active_frac.clamp(0.1, 1.0)).clamp(0.1, 1.0);
    let ncpus = request.ncpus();
    let effective_ncpus = crate::server::rules::effective_ncpus(request, None);
    let cap = (effective_ncpus * MAX_WUS_TO_SEND) as usize;
    let mut delay = request
        .work_requests
        .iter()
        .find(|w| w.rsc == crate::resource::ResourceType::Cpu)
        .and_then(|w| w.estimated_delay)
        .or(request.estimated_delay)
        .unwrap_or(0.0);
    let mut infeasible = false;
    let mut app_index = 0usize;
    while (req_secs > 0.0 || req_inst > 0.0) && plan.jobs.len() < cap {
        let k = app_index % project.apps.len();
        app_index += 1;
        let app = &project.apps[k];
        let d = app.fpops_est / app.flops.max(1.0) / avail;
        if delay > 0.0 && delay + d > app.latency_bound {
            infeasible = true;
            break;
        }
        plan.jobs.push(k);
        req_secs -= d * app.avg_ncpus;
        req_inst -= app.avg_ncpus;
        delay += d * app.avg_ncpus / ncpus;
    }
    if plan.jobs.is_empty() && work_req_seconds > 0.0 {
        plan.messages.push("No tasks sent".to_string());
        if infeasible {
            plan.messages.push("Tasks won't finish in time".to_string());
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> LabProject {
        LabProject {
            name: "P1".into(),
            share: 100.0,
            apps: vec![LabApp {
                name: "p1_cpu".into(),
                avg_ncpus: 1.0,
                flops: 1e9,
                fpops_est: 3.6e10,
                latency_bound: 600.0,
            }],
            down: false,
            empty: false,
            request_delay: None,
            no_ack: false,
        }
    }

    fn request(secs: f64, inst: f64, delay: f64) -> SchedRequest {
        SchedRequest {
            work_req_seconds: Some(secs),
            cpu_req_secs: Some(secs),
            cpu_req_instances: Some(inst),
            estimated_delay: Some(delay),
            host_info: Some(crate::trace::state::HostInfo {
                p_ncpus: Some(2),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// S1: jobs of 36 s fill a 100-s request: 3 jobs (36, 72, 108 ≥ 100).
    #[test]
    fn fills_the_request_and_stops() {
        let plan = plan_reply(&project(), &request(100.0, 0.0, 0.0));
        assert_eq!(plan.jobs.len(), 3);
        // Instances: two idle CPUs want two jobs even with no seconds.
        let plan = plan_reply(&project(), &request(0.0, 2.0, 0.0));
        assert_eq!(plan.jobs.len(), 2);
        assert!(plan.messages.is_empty());
    }

    /// S7: with 580 s of queued work a 36-s job misses its 600-s bound.
    #[test]
    fn deadline_check_stops_sending() {
        let plan = plan_reply(&project(), &request(1000.0, 0.0, 580.0));
        assert!(plan.jobs.is_empty());
        assert_eq!(plan.messages[0], "No tasks sent");
    }

    /// Reported tasks are acknowledged, except by a `noack` project's server.
    #[test]
    fn acknowledges_reports_unless_noack() {
        let mut req = request(0.0, 0.0, 0.0);
        req.reported_results = vec![crate::trace::state::Job {
            name: Some("P1_0".into()),
            ..Default::default()
        }];
        assert_eq!(plan_reply(&project(), &req).acks, vec!["P1_0".to_string()]);
        let mut p = project();
        p.no_ack = true;
        assert!(plan_reply(&p, &req).acks.is_empty());
    }

    /// S3: at most 10 jobs per effective CPU.
    #[test]
    fn per_rpc_cap() {
        let plan = plan_reply(&project(), &request(1e9, 0.0, 0.0));
        assert_eq!(plan.jobs.len(), 20);
    }

    #[test]
    fn empty_project_says_so_without_a_send_pass() {
        let mut p = project();
        p.empty = true;
        let plan = plan_reply(&p, &request(100.0, 1.0, 0.0));
        assert!(plan.jobs.is_empty());
        assert_eq!(plan.messages, vec!["Project has no tasks available"]);
    }
}

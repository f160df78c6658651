//! Pairing scheduler requests with their replies into [`Exchange`]s
//! (server-side.md §1.4), and linking each exchange to what the event log
//! says about the same RPC.
//!
//! Architecture Invariant: reads the [`Trace`] only; no I/O, no output
//! formats. Problems are reported as [`Unchecked`] entries, never panics.
//!
//! A data directory keeps one `sched_request_<P>.xml` and one
//! `sched_reply_<P>.xml` per project, so files are grouped by (directory,
//! project). A series of RPCs of one project is recorded as several
//! directories (`rpc-01/`, `rpc-02/`, …); exchanges keep the trace's path
//! order, so name such folders to sort in time order.
//!
//! Deliberately left out: the "too recent" gap test of §1.4 (it needs the
//! previous RPC's time, which only a series gives; S10 uses the series
//! instead) and `min_rpc_time` of a client state saved afterwards (the end
//! of the RPC is not in the transcript).

use crate::divergence::Unchecked;
use crate::source::Location;
use crate::trace::message::{Message, ResourceRequest, RpcReason};
use crate::trace::rpc::{RpcFile, SchedReply, SchedRequest};
use crate::trace::state::escaped_master_url;
use crate::trace::{ClientVersion, EventTime, Trace};

/// How sure the pairing of a request with a reply is.
#[derive(Clone, Debug, PartialEq)]
pub enum Pairing {
    /// Request and reply are present and nothing contradicts that they come
    /// from one RPC.
    Paired,
    /// Only the request was kept (the reply was lost or never arrived).
    RequestOnly,
    /// Only the reply was kept: only reply-only checks apply.
    ReplyOnly,
    /// Both are present but come from different RPCs; the reason names the
    /// contradiction. Every request-dependent rule is not checkable.
    DifferentRpcs(String),
}

/// What the event log says about one scheduler RPC of a project.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogRpc {
    /// Seconds (trace time base) of `Sending scheduler request`.
    pub sent_at: Option<f64>,
    /// The same time as Unix seconds, when the log's clock can be placed
    /// (GUI RPC times, or local times with a known UTC offset).
    pub sent_at_utc: Option<f64>,
    /// That time as the log printed it.
    pub sent_label: String,
    /// Where the `Sending scheduler request` line is.
    pub location: Option<Location>,
    /// `Sending scheduler request: <reason>.`
    pub reason: Option<RpcReason>,
    /// `[work_fetch] request: …` (just before the RPC), per resource.
    pub work_fetch_request: Vec<ResourceRequest>,
    /// `[sched_op] <rsc> work request: …` lines, per resource.
    pub sched_op_requests: Vec<ResourceRequest>,
    /// `Scheduler request completed: got N new tasks`.
    pub new_tasks: Option<u32>,
    /// Seconds of the completion (or failure) line.
    pub completed_at: Option<f64>,
    /// `Project requested delay of N seconds`.
    pub requested_delay: Option<f64>,
    /// `Scheduler request failed: …` was logged for this RPC.
    pub failed: bool,
}

/// One scheduler RPC as recorded: a request, its reply, and the log lines
/// about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// A short name for messages: `<dir>/<project>` of the files.
    pub label: String,
    /// The project as its files name it (the escaped master URL).
    pub project: String,
    /// The project's name as the event log prints it (reply `project_name`,
    /// else the client state's), when known.
    pub project_name: Option<String>,
    /// The request, when kept.
    pub request: Option<SchedRequest>,
    /// The reply, when kept.
    pub reply: Option<SchedReply>,
    /// Path of the request file.
    pub request_path: Option<String>,
    /// Path of the reply file.
    pub reply_path: Option<String>,
    /// Whether request and reply belong to one RPC.
    pub pairing: Pairing,
    /// The event log's account of this RPC, when one was found consistent
    /// with the files.
    pub log: Option<LogRpc>,
    /// The client version (the request's, else the trace's).
    pub client_version: Option<ClientVersion>,
}

impl Exchange {
    /// The request, if it belongs to the same RPC as the reply (or there is
    /// no reply).
    pub fn paired_request(&self) -> Option<&SchedRequest> {
        match self.pairing {
            Pairing::Paired | Pairing::RequestOnly => self.request.as_ref(),
            _ => None,
        }
    }

    /// Why request-dependent rules cannot be checked, if they cannot.
    pub fn request_missing_why(&self) -> String {
        match &self.pairing {
            Pairing::DifferentRpcs(why) => format!("request and reply from different RPCs: {why}"),
            _ => "request not kept".to_string(),
        }
    }

    /// The request's clock (`time_stats/now`), 7.2-era clients.
    pub fn request_now(&self) -> Option<f64> {
        self.request
            .as_ref()
            .and_then(|request| request.time_stats.as_ref())
            .and_then(|stats| stats.now)
    }

    /// When the RPC was sent, on the trace's time base: the request's
    /// `now`, else the log's `Sending scheduler request`.
    pub fn time(&self) -> Option<f64> {
        self.request_now()
            .or_else(|| self.log.as_ref().and_then(|log| log.sent_at))
    }

    /// The time as a label: the log's text, else Unix seconds.
    pub fn time_label(&self) -> String {
        match (self.request_now(), &self.log) {
            (Some(now), _) => format!("now={now:.0}"),
            (None, Some(log)) if !log.sent_label.is_empty() => log.sent_label.clone(),
            _ => "time unknown".to_string(),
        }
    }

    /// The client version as the server compares it
    /// (major·10000 + minor·100 + release).
    pub fn client_version_number(&self) -> Option<u32> {
        self.client_version
            .map(|v| v.major * 10000 + v.minor * 100 + v.release)
    }
}

/// Pairs every request with its reply and links each pair to the event
/// log. Exchanges follow the order of the trace's RPC files.
pub fn exchanges(trace: &Trace) -> (Vec<Exchange>, Vec<Unchecked>) {
    let mut unchecked = Vec::new();
    let mut exchanges: Vec<Exchange> = Vec::new();
    for file in &trace.rpcs {
        let Some(project) = project_key(file) else {
            unchecked.push(Unchecked {
                what: format!("RPC file {}", file.path),
                why: "project unknown: neither the file name nor master_url names it".into(),
            });
            continue;
        };
        let dir = parent_dir(&file.path);
        let label = if dir.is_empty() {
            project.clone()
        } else {
            format!("{dir}/{project}")
        };
        let slot = exchanges.iter().position(|exchange| {
            exchange.label == label
                && ((file.request.is_some() && exchange.request.is_none())
                    || (file.reply.is_some() && exchange.reply.is_none()))
        });
        let index = match slot {
            Some(index) => index,
            None => {
                exchanges.push(Exchange {
                    label,
                    project,
                    project_name: None,
                    request: None,
                    reply: None,
                    request_path: None,
                    reply_path: None,
                    pairing: Pairing::Paired,
                    log: None,
                    client_version: None,
                });
                exchanges.len() - 1
            }
        };
        let Some(exchange) = exchanges.get_mut(index) else {
            continue;
        };
        if let Some(request) = &file.request {
            exchange.request = Some(request.clone());
            exchange.request_path = Some(file.path.clone());
        }
        if let Some(reply) = &file.reply {
            exchange.reply = Some(reply.clone());
            exchange.reply_path = Some(file.path.clone());
        }
    }
    let log_rpcs = log_rpcs(trace);
    for exchange in &mut exchanges {
        exchange.client_version = exchange
            .request
            .as_ref()
            .and_then(|request| request.core_client_version)
            .or(trace.meta.client_version);
        exchange.project_name = exchange
            .reply
            .as_ref()
            .and_then(|reply| reply.project_name.clone())
            .or_else(|| state_project_name(trace, &exchange.project));
        exchange.pairing = decide_pairing(trace, exchange);
    }
    // One project, one name: an exchange whose reply names no project (a
    // server down, an error page) takes the name another exchange of the
    // same project has.
    for index in 0..exchanges.len() {
        if exchanges[index].project_name.is_some() {
            continue;
        }
        let key = exchanges[index].project.clone();
        exchanges[index].project_name = exchanges
            .iter()
            .find(|other| other.project == key && other.project_name.is_some())
            .and_then(|other| other.project_name.clone());
    }
    link_log_rpcs(&mut exchanges, &log_rpcs, &mut unchecked);
    (exchanges, unchecked)
}

/// Links each exchange to the logged RPC of its project that nothing
/// contradicts, closest pairs in time first (the request's `now` and the
/// `Sending scheduler request` stamp); where the files or the log give no
/// time, the latest logged RPC first (a data directory keeps the latest
/// RPC). Taking each exchange's latest candidate in turn instead shifts
/// every link by one where one exchange has no logged RPC of its own (the
/// log ends inside an RPC whose reply the server kept).
fn link_log_rpcs(
    exchanges: &mut [Exchange],
    log_rpcs: &[(String, LogRpc)],
    unchecked: &mut Vec<Unchecked>,
) {
    let mut rejected: Vec<Option<String>> = vec![None; exchanges.len()];
    // (seconds apart, or infinite where untimed; log index; exchange index)
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (e, exchange) in exchanges.iter().enumerate() {
        let Some(name) = &exchange.project_name else {
            continue;
        };
        for (l, (project, log)) in log_rpcs.iter().enumerate().rev() {
            if project != name {
                continue;
            }
            match log_contradiction(exchange, log) {
                None => {
                    let apart = match (exchange.request_now(), log.sent_at_utc) {
                        (Some(now), Some(sent)) => (now - sent).abs(),
                        _ => f64::INFINITY,
                    };
                    pairs.push((apart, l, e));
                }
                Some(why) => {
                    if let Some(slot) = rejected.get_mut(e) {
                        slot.get_or_insert(why);
                    }
                }
            }
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2)));
    let mut log_used = vec![false; log_rpcs.len()];
    let mut linked = vec![false; exchanges.len()];
    for (_, l, e) in pairs {
        if log_used[l] || linked[e] {
            continue;
        }
        log_used[l] = true;
        linked[e] = true;
        exchanges[e].log = Some(log_rpcs[l].1.clone());
    }
    for (e, exchange) in exchanges.iter().enumerate() {
        if let (false, Some(why), Some(name)) = (linked[e], &rejected[e], &exchange.project_name) {
            unchecked.push(Unchecked {
                what: format!("event log for {}", exchange.label),
                why: format!("no logged RPC of {name} matches the files: {why}"),
            });
        }
    }
}

/// The project a file belongs to: its file name, else the reply's
/// `master_url`, escaped.
fn project_key(file: &RpcFile) -> Option<String> {
    file.project.clone().or_else(|| {
        file.reply
            .as_ref()
            .and_then(|reply| reply.master_url.as_deref())
            .map(escaped_master_url)
    })
}

fn parent_dir(path: &str) -> String {
    path.rsplit_once(['/', '\\'])
        .map_or(String::new(), |(dir, _)| dir.to_string())
}

/// The name client_state.xml gives the project whose key (file-name part or
/// master URL, escaped or not) is `project`.
fn state_project_name(trace: &Trace, project: &str) -> Option<String> {
    let escaped = escaped_master_url(project);
    trace
        .state
        .client_states
        .iter()
        .flat_map(|state| &state.projects)
        .find(|p| {
            p.master_url
                .as_deref()
                .map(escaped_master_url)
                .is_some_and(|url| url == project || url == escaped)
        })
        .and_then(|p| p.project_name.clone())
}

/// §1.4: the checks that tell a kept request and reply apart.
fn decide_pairing(trace: &Trace, exchange: &Exchange) -> Pairing {
    let (request, reply) = match (&exchange.request, &exchange.reply) {
        (Some(request), Some(reply)) => (request, reply),
        (Some(_), None) => return Pairing::RequestOnly,
        _ => return Pairing::ReplyOnly,
    };
    if let Some(url) = reply.master_url.as_deref() {
        let escaped = escaped_master_url(url);
        if escaped != exchange.project {
            return Pairing::DifferentRpcs(format!(
                "the reply's master_url {url} is not project {}",
                exchange.project
            ));
        }
    }
    if let (Some(created), Some(now)) = (reply.host_create_time, exchange.request_now()) {
        if created > now + CLOCK_TOLERANCE_SECS {
            return Pairing::DifferentRpcs(format!(
                "host_create_time {created:.0} is after the request's now {now:.0}"
            ));
        }
    }
    if let (Some(sent), Some(had)) = (reply.hostid, request.hostid) {
        if had > 0 && sent == had {
            return Pairing::DifferentRpcs(format!(
                "the reply assigns hostid {sent}, which the request already had"
            ));
        }
    }
    let new_host = reply.hostid.is_some_and(|id| Some(id) != request.hostid);
    if let (Some(seqno), false) = (request.rpc_seqno, new_host) {
        // The saved state's rpc_seqno speaks for the files the client keeps
        // beside it (its last request and reply); transcripts kept elsewhere
        // (a lab server's or simulate's rpc-NNNNN/ folders) are older RPCs.
        let request_dir = exchange.request_path.as_deref().map(parent_dir);
        let state_project = trace
            .state
            .client_states
            .iter()
            .filter(|state| request_dir.as_deref() == Some(parent_dir(&state.path).as_str()))
            .flat_map(|state| &state.projects)
            .find(|p| {
                p.master_url.as_deref().map(escaped_master_url).as_deref()
                    == Some(exchange.project.as_str())
            });
        if let Some(project) = state_project {
            if let Some(after) = project.rpc_seqno {
                if after != seqno + 1 {
                    return Pairing::DifferentRpcs(format!(
                        "the request's rpc_seqno {seqno} is not one below the saved state's {after}"
                    ));
                }
                if project.nrpc_failures.unwrap_or(0) > 0 {
                    return Pairing::DifferentRpcs(format!(
                        "the saved state records {} failed RPCs: the reply predates the request",
                        project.nrpc_failures.unwrap_or(0)
                    ));
                }
            }
        }
    }
    Pairing::Paired
}

/// Seconds of clock skew and transfer time tolerated between client and
/// server clocks (§1.4: "a few seconds").
pub const CLOCK_TOLERANCE_SECS: f64 = 5.0;

/// Seconds between the request's `now` and the log's `Sending scheduler
/// request` within which both are taken for one RPC.
const LOG_LINK_WINDOW_SECS: f64 = 60.0;

/// Why a logged RPC cannot be the one the files record, if it cannot.
fn log_contradiction(exchange: &Exchange, log: &LogRpc) -> Option<String> {
    if let (Some(now), Some(sent)) = (exchange.request_now(), log.sent_at_utc) {
        if (now - sent).abs() > LOG_LINK_WINDOW_SECS {
            return Some(format!(
                "the log sent it at {sent:.0} (UTC), the request's now is {now:.0}"
            ));
        }
    }
    if exchange.reply.is_some() && log.new_tasks.is_none() && log.completed_at.is_none() {
        return Some(format!(
            "the RPC logged at {} never completed, but a reply was kept",
            log.sent_label
        ));
    }
    if let (Some(reply), Some(n)) = (&exchange.reply, log.new_tasks) {
        if reply.results.len() != n as usize {
            return Some(format!(
                "the log says got {n} new tasks, the reply has {} results",
                reply.results.len()
            ));
        }
    }
    if let (Some(reply), Some(delay)) = (&exchange.reply, log.requested_delay) {
        let recorded = reply.request_delay.unwrap_or(0.0);
        if (recorded - delay).abs() > 0.5 {
            return Some(format!(
                "the log says a delay of {delay:.0} s, the reply {recorded:.0} s"
            ));
        }
    }
    if let Some(request) = &exchange.request {
        let logged = if log.sched_op_requests.is_empty() {
            &log.work_fetch_request
        } else {
            &log.sched_op_requests
        };
        for line in logged {
            let Some(wanted) = request.work_requests.iter().find(|w| w.rsc == line.rsc) else {
                continue;
            };
            let secs = wanted.req_secs.unwrap_or(0.0);
            if (secs - line.secs).abs() > 0.01 + 1e-6 * secs.abs() {
                return Some(format!(
                    "the log requests {:.2} s of {}, the request {secs:.2} s",
                    line.secs, line.rsc
                ));
            }
        }
    }
    None
}

/// Every scheduler RPC the event log shows, with its project name, in log
/// order.
fn log_rpcs(trace: &Trace) -> Vec<(String, LogRpc)> {
    let mut rpcs: Vec<(String, LogRpc)> = Vec::new();
    // `[work_fetch] request:` precedes the RPC it describes.
    let mut pending: Vec<(String, Vec<ResourceRequest>)> = Vec::new();
    let timezones = trace.state.host_timezones();
    let utc_offset = trace
        .meta
        .utc_offset_hours
        .map(|hours| crate::trace::utc_offset_secs(hours, &timezones));
    for event in &trace.events {
        let Some(project) = event.project.as_deref() else {
            continue;
        };
        let current = rpcs.iter_mut().rev().find(|(name, _)| name == project);
        match &event.message {
            Message::WorkRequest { resources } => {
                pending.retain(|(name, _)| name != project);
                pending.push((project.to_string(), resources.clone()));
            }
            Message::SendingSchedulerRequest { reason, .. } => {
                let position = pending.iter().position(|(name, _)| name == project);
                let work_fetch_request = position
                    .map(|index| pending.remove(index).1)
                    .unwrap_or_default();
                rpcs.push((
                    project.to_string(),
                    LogRpc {
                        sent_at: event.time.secs(),
                        sent_at_utc: utc_secs(&event.time, utc_offset),
                        sent_label: time_label(&event.time),
                        location: Some(event.location.clone()),
                        reason: Some(reason.clone()),
                        work_fetch_request,
                        ..LogRpc::default()
                    },
                ));
            }
            Message::SchedOpWorkRequest { rsc, secs, devices } => {
                if let Some((_, rpc)) = current {
                    rpc.sched_op_requests.push(ResourceRequest {
                        rsc: rsc.clone(),
                        secs: *secs,
                        inst: *devices,
                    });
                }
            }
            Message::SchedulerRequestCompleted { new_tasks } => {
                if let Some((_, rpc)) = current {
                    rpc.new_tasks = *new_tasks;
                    rpc.completed_at = event.time.secs();
                }
            }
            Message::ProjectRequestedDelay { secs } => {
                if let Some((_, rpc)) = current {
                    rpc.requested_delay = Some(*secs);
                }
            }
            Message::SchedulerRequestFailed { .. } => {
                if let Some((_, rpc)) = current {
                    rpc.failed = true;
                    rpc.completed_at = event.time.secs();
                }
            }
            _ => {}
        }
    }
    // A failed RPC leaves the previous reply in place: never link one.
    rpcs.retain(|(_, rpc)| !rpc.failed);
    rpcs
}

fn utc_secs(time: &EventTime, utc_offset_secs: Option<i64>) -> Option<f64> {
    match time {
        EventTime::Local(_) => {
            let offset = utc_offset_secs? as f64;
            time.secs().map(|secs| secs - offset)
        }
        EventTime::Unix(_) => time.secs(),
        EventTime::Simulated(_) | EventTime::None => None,
    }
}

fn time_label(time: &EventTime) -> String {
    match time {
        EventTime::Local(datetime) => datetime.format("%Y-%m-%d %H:%M:%S").to_string(),
        EventTime::Simulated(secs) => format!("{secs} s"),
        EventTime::Unix(secs) => format!("{secs}"),
        EventTime::None => String::new(),
    }
}

/// The logged RPCs of `project_name` that follow `after` (log seconds), in
/// order: used by S10 to find the next RPC.
pub(crate) fn later_log_rpcs(trace: &Trace, project_name: &str, after: f64) -> Vec<LogRpc> {
    let mut all: Vec<LogRpc> = Vec::new();
    for event in &trace.events {
        if event.project.as_deref() != Some(project_name) {
            continue;
        }
        if let Message::SendingSchedulerRequest { reason, .. } = &event.message {
            if event.time.secs().is_some_and(|secs| secs > after) {
                all.push(LogRpc {
                    sent_at: event.time.secs(),
                    sent_label: time_label(&event.time),
                    location: Some(event.location.clone()),
                    reason: Some(reason.clone()),
                    ..LogRpc::default()
                });
            }
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::state::{ClientState, Project};

    #[test]
    fn a_project_keyed_by_its_url_takes_the_state_files_name() {
        let mut trace = Trace::default();
        trace.state.client_states.push(ClientState {
            projects: vec![Project {
                master_url: Some("http://127.0.0.1:8765/b/".into()),
                project_name: Some("LabB".into()),
                ..Project::default()
            }],
            ..ClientState::default()
        });
        for key in ["http://127.0.0.1:8765/b/", "127.0.0.1_8765_b"] {
            assert_eq!(
                state_project_name(&trace, key).as_deref(),
                Some("LabB"),
                "{key}"
            );
        }
        assert_eq!(state_project_name(&trace, "http://elsewhere/"), None);
    }

    /// A lab run that ends inside T's third RPC, whose reply the server
    /// kept (traces/real/net-mt-edf): the first two exchanges keep their
    /// own logged RPCs, and the third is left unlinked with its reason
    /// (taking each exchange's latest candidate in turn linked the third
    /// to the second's RPC, the second to the first's, and left the first).
    #[test]
    fn exchanges_link_to_the_logged_rpc_closest_in_time() {
        let exchange = |now: f64| Exchange {
            label: format!("rpcs/{now}/T"),
            project: "127.0.0.1_37091_T".into(),
            project_name: Some("T".into()),
            request: Some(SchedRequest {
                time_stats: Some(crate::trace::state::TimeStats {
                    now: Some(now),
                    ..Default::default()
                }),
                ..SchedRequest::default()
            }),
            reply: Some(SchedReply::default()),
            request_path: None,
            reply_path: None,
            pairing: Pairing::Paired,
            log: None,
            client_version: None,
        };
        let logged = |sent: f64, completed: bool| {
            (
                "T".to_string(),
                LogRpc {
                    sent_at_utc: Some(sent),
                    sent_label: format!("{sent}"),
                    completed_at: completed.then_some(sent + 2.0),
                    ..LogRpc::default()
                },
            )
        };
        let mut exchanges = vec![exchange(1000.98), exchange(1018.04), exchange(1030.79)];
        let log = [
            logged(1000.0, true),
            logged(1018.0, true),
            logged(1030.0, false),
        ];
        let mut unchecked = Vec::new();
        link_log_rpcs(&mut exchanges, &log, &mut unchecked);
        let sent: Vec<Option<f64>> = exchanges
            .iter()
            .map(|e| e.log.as_ref().and_then(|l| l.sent_at_utc))
            .collect();
        assert_eq!(sent, vec![Some(1000.0), Some(1018.0), None]);
        assert_eq!(unchecked.len(), 1);
        assert!(
            unchecked[0].why.contains("never completed"),
            "{:?}",
            unchecked[0]
        );
    }
}

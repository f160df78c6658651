//! Scheduler RPC transcripts: sched_request_*.xml and sched_reply_*.xml
//! (formats-xml.md §2–§3).
//!
//! Architecture Invariant: plain data; pairing requests with replies into
//! exchanges is left to later stages. Each file keeps what pairing needs:
//! its path and file name, the project (escaped master URL from the file
//! name; `master_url` of a reply), and the client's clock (`time_stats.now`)
//! and RPC sequence number of a request.
//!
//! The account key (`<authenticator>`) is never stored: only whether the
//! request carried one.

use crate::resource::ResourceType;
use crate::trace::state::{App, AppVersion, GlobalPrefs, HostInfo, Job, TimeStats, Workunit};
use crate::trace::ClientVersion;
use serde::{Deserialize, Serialize};

/// One scheduler request or reply file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RpcFile {
    /// The path as shown in messages.
    pub path: String,
    /// The file name (last path component).
    pub file_name: String,
    /// The escaped master URL from a file name `sched_request_<X>.xml` or
    /// `sched_reply_<X>.xml`.
    pub project: Option<String>,
    /// The request, when the file is one.
    pub request: Option<SchedRequest>,
    /// The reply, when the file is one.
    pub reply: Option<SchedReply>,
}

/// The work requested for one resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkRequest {
    /// The resource.
    pub rsc: ResourceType,
    /// `cpu_req_secs` / `req_secs` (before 6.6: `work_req_seconds` for the CPU).
    pub req_secs: Option<f64>,
    /// `cpu_req_instances` / `req_instances`.
    pub req_instances: Option<f64>,
    /// `estimated_delay` (top level for the CPU, inside the coproc element otherwise).
    pub estimated_delay: Option<f64>,
}

/// `<scheduler_request>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SchedRequest {
    /// The request carried an `<authenticator>` (its value is not kept).
    pub has_authenticator: bool,
    /// Host id at the project.
    pub hostid: Option<i64>,
    /// RPC sequence number.
    pub rpc_seqno: Option<i64>,
    /// `core_client_major_version` / `minor` / `release`.
    pub core_client_version: Option<ClientVersion>,
    /// `<platform_name>`.
    pub platform_name: Option<String>,
    /// `<alt_platform><name>` entries.
    pub alt_platforms: Vec<String>,
    /// This project's share of the total resource share.
    pub resource_share_fraction: Option<f64>,
    /// Share of the runnable projects' total.
    pub rrs_fraction: Option<f64>,
    /// Share of the potentially runnable projects' total.
    pub prrs_fraction: Option<f64>,
    /// Duration correction factor.
    pub duration_correction_factor: Option<f64>,
    /// `<work_req_seconds>`: total seconds requested.
    pub work_req_seconds: Option<f64>,
    /// `<cpu_req_secs>` (6.6+).
    pub cpu_req_secs: Option<f64>,
    /// `<cpu_req_instances>` (6.6+).
    pub cpu_req_instances: Option<f64>,
    /// `<estimated_delay>`: CPU busy time before new CPU work could start.
    pub estimated_delay: Option<f64>,
    /// The per-resource requests, CPU first then each coprocessor in file
    /// order, derived from the elements above and the `<coprocs>` entries.
    pub work_requests: Vec<WorkRequest>,
    /// `<working_global_preferences>`: the effective preferences.
    pub working_global_preferences: Option<GlobalPrefs>,
    /// `<global_preferences>` (≤6.x).
    pub global_preferences: Option<GlobalPrefs>,
    /// `<time_stats>` (to-server form with `now`).
    pub time_stats: Option<TimeStats>,
    /// `<host_info>` (the coprocessors are in `coprocs`).
    pub host_info: Option<HostInfo>,
    /// `<coprocs>` with the per-type request fields.
    pub coprocs: Vec<crate::trace::state::Coproc>,
    /// `<result>`s being reported (to-server form).
    pub reported_results: Vec<Job>,
    /// `<other_results>`: tasks held and not being reported.
    pub other_results: Vec<OtherResult>,
    /// `<in_progress_results>`.
    pub in_progress_results: Vec<InProgressResult>,
    /// `<app_versions>`: their order is the index used by `other_results`.
    pub app_versions: Vec<AppVersion>,
    /// `<client_brand>`.
    pub client_brand: Option<String>,
    /// `<dont_send_work>` (clients from late 2014): the client asks for no
    /// new jobs in this RPC.
    #[serde(default)]
    pub dont_send_work: Option<bool>,
    /// The request carried an `<other_results>` element (possibly empty):
    /// the server's `have_other_results_list`.
    #[serde(default)]
    pub has_other_results: bool,
    /// The request carried a `<work_sequences>` element (possibly empty):
    /// the host reported the work sequences it believes are assigned to it
    /// (docs/work-sequences.md; no BOINC client writes it).
    #[serde(default)]
    pub has_work_sequences: bool,
    /// `<work_sequences><sequence>`: the sequences the host reports.
    #[serde(default)]
    pub work_sequences: Vec<SequenceReport>,
}

impl SchedRequest {
    /// `host_info/p_ncpus`, at least 1 (1 when absent).
    pub fn ncpus(&self) -> f64 {
        self.host_info
            .as_ref()
            .and_then(|h| h.p_ncpus)
            .unwrap_or(1)
            .max(1) as f64
    }
}

/// One `<work_sequences><sequence>` of a request (docs/work-sequences.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SequenceReport {
    /// `<name>`: the sequence (its head workunit's name).
    pub name: String,
    /// `<in_progress>`: results of the sequence the host holds and has not
    /// reported yet.
    pub in_progress: Option<u32>,
}

/// What a reply says about one work sequence: `<work_sequence>` with a
/// `<status>` (docs/work-sequences.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SequenceNotice {
    /// `<name>`: the sequence.
    pub name: String,
    /// `<status>`: `assigned` (newly assigned to this host), `continued`
    /// (still assigned), `revoked` (no longer assigned) or `ended`.
    pub status: String,
    /// `<max_result_time>`: real seconds within which a host must be able
    /// to complete one result of the sequence.
    pub max_result_time: Option<f64>,
    /// `<length>`: number of results in the sequence as far as the project
    /// knows (it may grow by extension).
    pub length: Option<u32>,
    /// `<reason>` of a revocation (`deadline_missed`, `too_slow`,
    /// `reassigned`).
    pub reason: Option<String>,
}

/// `<sequence_result>` of a reply: places a sent `<result>` in its sequence
/// (docs/work-sequences.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SequenceResult {
    /// `<name>`: the result's name (as in the reply's `<result>`).
    pub name: String,
    /// `<sequence>`: the sequence it belongs to.
    pub sequence: String,
    /// `<index>`: its 1-based position in the sequence.
    pub index: Option<u32>,
}

/// One of the "no apps for this type" elements of a reply, as written:
/// `<no_rsc_apps>TYPE</no_rsc_apps>` or an old flag
/// `<no_cpu_apps>`/`<no_cuda_apps>`/`<no_ati_apps>`/`<no_intel_apps>` with
/// its 0/1 value (server-side.md S5: the form depends on the server's era).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NoAppsElement {
    /// The element name.
    pub element: String,
    /// The text, trimmed (a type name, or `0`/`1`).
    pub value: String,
}

/// One `<other_result>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OtherResult {
    /// Task name.
    pub name: Option<String>,
    /// Index into the request's `app_versions`.
    pub app_version: Option<i64>,
    /// Plan class.
    pub plan_class: Option<String>,
}

/// One `<ip_result>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InProgressResult {
    /// Task name.
    pub name: Option<String>,
    /// Deadline.
    pub report_deadline: Option<f64>,
    /// 7.0+: estimated time remaining.
    pub time_remaining: Option<f64>,
    /// ≤6.x: estimated CPU time remaining.
    pub cpu_time_remaining: Option<f64>,
    /// CPUs used.
    pub avg_ncpus: Option<f64>,
    /// NVIDIA GPUs used.
    pub ncudas: Option<f64>,
    /// AMD GPUs used.
    pub natis: Option<f64>,
    /// Intel GPUs used.
    pub nintel_gpus: Option<f64>,
}

/// One `<message priority="…">` of a reply.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerMessage {
    /// The `priority` attribute (`low`, `high`, `notice`).
    pub priority: Option<String>,
    /// The text, trimmed.
    pub text: String,
}

/// `<project_preferences>`, reduced to what scheduling uses.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectPrefs {
    /// `<resource_share>`.
    pub resource_share: Option<f64>,
    /// `<max_jobs>`: the user's limit on jobs in progress (0 or absent = none).
    #[serde(default)]
    pub max_jobs: Option<i64>,
    /// `<max_cpus>`: the user's limit on CPUs used for this project.
    #[serde(default)]
    pub max_cpus: Option<i64>,
    /// Resources excluded by `no_cpu`, `no_cuda`, `no_ati`, `no_intel_gpu`
    /// (true) or `<no_rsc>TYPE</no_rsc>`.
    pub no_rsc: Vec<ResourceType>,
}

/// `<scheduler_reply>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SchedReply {
    /// `<scheduler_version>`.
    pub scheduler_version: Option<i64>,
    /// `<master_url>`.
    pub master_url: Option<String>,
    /// `<project_name>`.
    pub project_name: Option<String>,
    /// `<request_delay>`: no RPC before now + this many seconds.
    pub request_delay: Option<f64>,
    /// `<next_rpc_delay>`: contact again after this many seconds.
    pub next_rpc_delay: Option<f64>,
    /// `<message>`s in file order.
    pub messages: Vec<ServerMessage>,
    /// `<dont_use_dcf/>`.
    pub dont_use_dcf: bool,
    /// `<ended>`.
    pub ended: bool,
    /// `<project_is_down/>`.
    pub project_is_down: bool,
    /// `<send_full_workload/>`.
    pub send_full_workload: bool,
    /// `<message_ack/>`.
    pub message_ack: bool,
    /// `<non_cpu_intensive>`.
    pub non_cpu_intensive: bool,
    /// `<strict_memory_bound>`.
    pub strict_memory_bound: bool,
    /// `<send_time_stats_log>`.
    pub send_time_stats_log: Option<i64>,
    /// `<send_job_log>`.
    pub send_job_log: Option<i64>,
    /// `<hostid>`.
    pub hostid: Option<i64>,
    /// `<userid>`.
    pub userid: Option<i64>,
    /// `<host_venue>`.
    pub host_venue: Option<String>,
    /// `<no_rsc_apps>` and the old `no_cpu_apps`, `no_cuda_apps`, `no_ati_apps`.
    pub no_rsc_apps: Vec<ResourceType>,
    /// `<global_preferences>`.
    pub global_preferences: Option<GlobalPrefs>,
    /// `<project_preferences>`.
    pub project_preferences: Option<ProjectPrefs>,
    /// `<app>`s sent.
    pub apps: Vec<App>,
    /// `<app_version>`s sent.
    pub app_versions: Vec<AppVersion>,
    /// `<workunit>`s sent.
    pub workunits: Vec<Workunit>,
    /// `<result>`s sent: the new tasks ("got N new tasks").
    pub results: Vec<Job>,
    /// `<result_ack>` names.
    pub result_acks: Vec<String>,
    /// `<result_abort>` names.
    pub result_aborts: Vec<String>,
    /// `<result_abort_if_not_started>` names.
    pub result_aborts_if_not_started: Vec<String>,
    /// Number of `<file_info>` elements.
    pub n_file_infos: u32,
    /// `<host_create_time>`: when the host record was created (pairing, §1.4).
    #[serde(default)]
    pub host_create_time: Option<f64>,
    /// Every "no apps" element as written, in file order (the form matters
    /// for the server's era; [`SchedReply::no_rsc_apps`] has the meaning).
    #[serde(default)]
    pub no_apps_elements: Vec<NoAppsElement>,
    /// `<work_sequence>` notices (docs/work-sequences.md).
    #[serde(default)]
    pub work_sequences: Vec<SequenceNotice>,
    /// `<sequence_result>` entries (docs/work-sequences.md).
    #[serde(default)]
    pub sequence_results: Vec<SequenceResult>,
}

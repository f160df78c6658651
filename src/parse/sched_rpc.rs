//! sched_request_<project>.xml and sched_reply_<project>.xml
//! (formats-xml.md §2–§3), of every era 5.x–8.x.
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! The `<authenticator>` (an account key) is never stored, only its presence.
//! Per-resource requests are gathered into [`SchedRequest::work_requests`]:
//! the CPU from `cpu_req_secs`/`cpu_req_instances`/`estimated_delay` (before
//! 6.6, when only `work_req_seconds` exists, that number is the CPU request),
//! then every coprocessor of `<coprocs>` that carries `req_secs`. Unknown
//! top-level elements are counted, not reported (the client ignores them).

use crate::parse::client_state::{
    client_version, old_rsc_name, push_unique, read_app, read_app_version, read_coprocs,
    read_host_info, read_result, read_time_stats, read_workunit,
};
use crate::parse::error::Parsed;
use crate::parse::prefs::read_global_prefs;
use crate::parse::xml::{fields, parse_whole, Element, XmlDoc};
use crate::resource::ResourceType;
use crate::source::SourcePath;
use crate::trace::rpc::{
    InProgressResult, NoAppsElement, OtherResult, ProjectPrefs, RpcFile, SchedReply, SchedRequest,
    SequenceNotice, SequenceReport, SequenceResult, ServerMessage, WorkRequest,
};

/// Request elements known and deliberately not modelled.
const SKIPPED_REQUEST: &[&str] = &[
    "sandbox",
    "allow_multiple_clients",
    "dont_use_docker",
    "client_cap_plan_class",
    "code_sign_key",
    "global_prefs_source_email_hash",
    "cross_project_id",
    "net_stats",
    "daily_xfer_history",
    "disk_usage",
    "msg_from_host",
    "file_info",
    "time_stats_log",
    "job_log",
    "client_opaque",
    "opencl_cpu_prop",
    "project_files",
    "user_keywords",
    "host_venue",
];

/// Reply elements known and deliberately not modelled.
const SKIPPED_REPLY: &[&str] = &[
    "symstore",
    "user_name",
    "user_total_credit",
    "user_expavg_credit",
    "user_create_time",
    "email_hash",
    "cross_project_id",
    "external_cpid",
    "cpid_time",
    "host_total_credit",
    "host_expavg_credit",
    "teamid",
    "team_name",
    "gui_urls",
    "code_sign_key",
    "code_sign_key_signature",
    "rss_feeds",
    "trickle_up_urls",
    "project_files",
    "auto_update",
    "delete_file_info",
    "trickle_down",
    "opaque",
    "verify_files_on_app_start",
];

/// Parses a whole scheduler request or reply (by its root element).
pub fn parse_sched_rpc(path: &SourcePath, bytes: &[u8]) -> Parsed<RpcFile> {
    parse_whole(path, bytes, |doc| Some(read_sched_rpc_doc(doc)))
}

/// The escaped master URL in a file name `sched_request_<X>.xml` /
/// `sched_reply_<X>.xml` (optionally `.gz`).
fn project_of_file_name(file_name: &str) -> Option<String> {
    let name = file_name.strip_suffix(".gz").unwrap_or(file_name);
    let stem = name.strip_suffix(".xml")?;
    let project = stem
        .strip_prefix("sched_request_")
        .or_else(|| stem.strip_prefix("sched_reply_"))?;
    (!project.is_empty()).then(|| project.to_string())
}

/// Reads the document of `doc` as a scheduler RPC file (problems stay in `doc`).
pub(crate) fn read_sched_rpc_doc(doc: &mut XmlDoc<'_>) -> RpcFile {
    let path = doc.path.to_string();
    let file_name = path.rsplit(['/', '\\']).next().unwrap_or(&path).to_string();
    let mut file = RpcFile {
        project: project_of_file_name(&file_name),
        file_name,
        path,
        request: None,
        reply: None,
    };
    let root = doc.parse_root();
    let Some(root) = doc.expect_root(root, &["scheduler_request", "scheduler_reply"]) else {
        return file;
    };
    if root.name == "scheduler_request" {
        file.request = Some(read_request(doc, &root));
    } else {
        file.reply = Some(read_reply(doc, &root));
    }
    file
}

fn read_request(doc: &mut XmlDoc<'_>, root: &Element) -> SchedRequest {
    let mut request = SchedRequest::default();
    let (mut major, mut minor, mut release) = (None, None, None);
    for child in &root.children {
        match child.name.as_str() {
            "authenticator" => request.has_authenticator = !child.text.trim().is_empty(),
            "core_client_major_version" => major = doc.read::<i64>(child),
            "core_client_minor_version" => minor = doc.read::<i64>(child),
            "core_client_release" => release = doc.read::<i64>(child),
            "alt_platform" => {
                let name = doc.string(child.child("name").unwrap_or(child));
                request.alt_platforms.extend(name);
            }
            "working_global_preferences" => {
                let prefs = child.child("global_preferences").unwrap_or(child);
                request.working_global_preferences = Some(read_global_prefs(doc, prefs));
            }
            "global_preferences" => {
                request.global_preferences = Some(read_global_prefs(doc, child));
            }
            "time_stats" => request.time_stats = Some(read_time_stats(doc, child)),
            "host_info" => {
                let host = read_host_info(doc, child);
                if !host.coprocs.is_empty() && request.coprocs.is_empty() {
                    request.coprocs.clone_from(&host.coprocs);
                }
                request.host_info = Some(host);
            }
            "coprocs" => request.coprocs = read_coprocs(doc, child),
            "result" => request.reported_results.push(read_result(doc, child)),
            "app_versions" => {
                for version in &child.children {
                    request.app_versions.push(read_app_version(doc, version));
                }
            }
            "dont_send_work" => {
                // `<dont_send_work/>` or `<dont_send_work>1</dont_send_work>`.
                request.dont_send_work = Some(child.text.trim() != "0");
            }
            "work_sequences" => {
                request.has_work_sequences = true;
                request.work_sequences = child
                    .children
                    .iter()
                    .filter_map(read_sequence_report)
                    .collect();
            }
            "other_results" => {
                request.has_other_results = true;
                for other in &child.children {
                    let mut result = OtherResult::default();
                    for part in &other.children {
                        if !fields!(doc, part, result, [name, app_version, plan_class]) {
                            doc.unknown(part);
                        }
                    }
                    request.other_results.push(result);
                }
            }
            "in_progress_results" => {
                for ip in &child.children {
                    let mut result = InProgressResult::default();
                    for part in &ip.children {
                        if !fields!(
                            doc,
                            part,
                            result,
                            [
                                name,
                                report_deadline,
                                time_remaining,
                                cpu_time_remaining,
                                avg_ncpus,
                                ncudas,
                                natis,
                                nintel_gpus,
                            ]
                        ) {
                            doc.unknown(part);
                        }
                    }
                    request.in_progress_results.push(result);
                }
            }
            name if SKIPPED_REQUEST.contains(&name) => {}
            _ => {
                if !fields!(
                    doc,
                    child,
                    request,
                    [
                        hostid,
                        rpc_seqno,
                        platform_name,
                        resource_share_fraction,
                        rrs_fraction,
                        prrs_fraction,
                        duration_correction_factor,
                        work_req_seconds,
                        cpu_req_secs,
                        cpu_req_instances,
                        estimated_delay,
                        client_brand,
                    ]
                ) {
                    doc.unknown(child);
                }
            }
        }
    }
    request.core_client_version = client_version(major, minor, release);
    request.work_requests = work_requests(&request);
    request
}

fn work_requests(request: &SchedRequest) -> Vec<WorkRequest> {
    let mut requests = Vec::new();
    if request.cpu_req_secs.is_some() || request.cpu_req_instances.is_some() {
        requests.push(WorkRequest {
            rsc: ResourceType::Cpu,
            req_secs: request.cpu_req_secs,
            req_instances: request.cpu_req_instances,
            estimated_delay: request.estimated_delay,
        });
    } else if request.work_req_seconds.is_some() {
        requests.push(WorkRequest {
            rsc: ResourceType::Cpu,
            req_secs: request.work_req_seconds,
            req_instances: None,
            estimated_delay: request.estimated_delay,
        });
    }
    for coproc in &request.coprocs {
        if coproc.req_secs.is_some() || coproc.req_instances.is_some() {
            requests.push(WorkRequest {
                rsc: coproc.rsc.clone(),
                req_secs: coproc.req_secs,
                req_instances: coproc.req_instances,
                estimated_delay: coproc.estimated_delay,
            });
        }
    }
    requests
}

fn read_reply(doc: &mut XmlDoc<'_>, root: &Element) -> SchedReply {
    let mut reply = SchedReply::default();
    for child in &root.children {
        let name = child.name.as_str();
        match name {
            "message" => reply.messages.push(ServerMessage {
                priority: child.attr("priority").map(str::to_string),
                text: child.text.trim().to_string(),
            }),
            "global_preferences" => {
                reply.global_preferences = Some(read_global_prefs(doc, child));
            }
            "project_preferences" => {
                reply.project_preferences = Some(read_project_prefs(doc, child));
            }
            "app" => reply.apps.push(read_app(doc, child)),
            "app_version" => reply.app_versions.push(read_app_version(doc, child)),
            "workunit" => reply.workunits.push(read_workunit(doc, child)),
            "result" => reply.results.push(read_result(doc, child)),
            "file_info" => reply.n_file_infos += 1,
            "result_ack" | "result_abort" | "result_abort_if_not_started" => {
                let name_text = doc.string(child.child("name").unwrap_or(child));
                let list = match name {
                    "result_ack" => &mut reply.result_acks,
                    "result_abort" => &mut reply.result_aborts,
                    _ => &mut reply.result_aborts_if_not_started,
                };
                list.extend(name_text);
            }
            "work_sequence" => reply.work_sequences.extend(read_sequence_notice(child)),
            "sequence_result" => reply.sequence_results.extend(read_sequence_result(child)),
            "host_create_time" => reply.host_create_time = child.text.trim().parse().ok(),
            "no_rsc_apps" => {
                reply.no_apps_elements.push(NoAppsElement {
                    element: name.to_string(),
                    value: child.text.trim().to_string(),
                });
                if let Some(rsc) = doc.read::<ResourceType>(child) {
                    push_unique(&mut reply.no_rsc_apps, rsc);
                }
            }
            "no_cpu_apps" | "no_cuda_apps" | "no_ati_apps" | "no_intel_apps" => {
                reply.no_apps_elements.push(NoAppsElement {
                    element: name.to_string(),
                    value: child.text.trim().to_string(),
                });
                let rsc = name
                    .strip_prefix("no_")
                    .and_then(|rest| rest.strip_suffix("_apps"))
                    .and_then(old_rsc_name);
                if let (Some(rsc), true) = (rsc, doc.flag(child)) {
                    push_unique(&mut reply.no_rsc_apps, rsc);
                }
            }
            _ if SKIPPED_REPLY.contains(&name) => {}
            _ => {
                if !fields!(
                    doc,
                    child,
                    reply,
                    [
                        scheduler_version,
                        master_url,
                        project_name,
                        request_delay,
                        next_rpc_delay,
                        send_time_stats_log,
                        send_job_log,
                        hostid,
                        userid,
                        host_venue,
                    ],
                    flags[
                        dont_use_dcf,
                        ended,
                        project_is_down,
                        send_full_workload,
                        message_ack,
                        non_cpu_intensive,
                        strict_memory_bound,
                    ]
                ) {
                    doc.unknown(child);
                }
            }
        }
    }
    reply
}

fn read_project_prefs(doc: &mut XmlDoc<'_>, element: &Element) -> ProjectPrefs {
    let mut prefs = ProjectPrefs::default();
    for child in &element.children {
        let rsc = match child.name.as_str() {
            "resource_share" => {
                prefs.resource_share = doc.read(child);
                continue;
            }
            "max_jobs" => {
                prefs.max_jobs = doc.read(child);
                continue;
            }
            "max_cpus" => {
                prefs.max_cpus = doc.read(child);
                continue;
            }
            "no_rsc" => doc.read::<ResourceType>(child),
            "no_cpu" | "no_cuda" | "no_ati" | "no_intel_gpu" | "no_apple_gpu" => {
                let rsc = old_rsc_name(&child.name["no_".len()..]);
                rsc.filter(|_| doc.flag(child))
            }
            // Project-specific preferences are free-form.
            _ => None,
        };
        if let Some(rsc) = rsc {
            push_unique(&mut prefs.no_rsc, rsc);
        }
    }
    prefs
}

/// The text of `element`'s child `name`, trimmed; `None` when absent or empty.
fn child_text<'a>(element: &'a Element, name: &str) -> Option<&'a str> {
    element
        .child(name)
        .map(|child| child.text.trim())
        .filter(|text| !text.is_empty())
}

/// `<sequence>` of a request's `<work_sequences>`, read leniently: an entry
/// without a name is dropped, a bad count is ignored (docs/work-sequences.md).
fn read_sequence_report(element: &Element) -> Option<SequenceReport> {
    Some(SequenceReport {
        name: child_text(element, "name")?.to_string(),
        in_progress: child_text(element, "in_progress").and_then(|text| text.parse().ok()),
    })
}

/// `<work_sequence>` of a reply, read leniently.
fn read_sequence_notice(element: &Element) -> Option<SequenceNotice> {
    Some(SequenceNotice {
        name: child_text(element, "name")?.to_string(),
        status: child_text(element, "status")
            .unwrap_or("continued")
            .to_ascii_lowercase(),
        max_result_time: child_text(element, "max_result_time").and_then(|t| t.parse().ok()),
        length: child_text(element, "length").and_then(|text| text.parse().ok()),
        reason: child_text(element, "reason").map(str::to_string),
    })
}

/// `<sequence_result>` of a reply, read leniently.
fn read_sequence_result(element: &Element) -> Option<SequenceResult> {
    Some(SequenceResult {
        name: child_text(element, "name")?.to_string(),
        sequence: child_text(element, "sequence")?.to_string(),
        index: child_text(element, "index").and_then(|text| text.parse().ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_with_per_resource_work() {
        let parsed = parse_sched_rpc(
            &SourcePath::from("d/sched_request_milkyway.cs.rpi.edu_milkyway.xml"),
            b"<scheduler_request>\n<authenticator>SECRET</authenticator>\n<rpc_seqno>12</rpc_seqno>\n\
              <work_req_seconds>3000</work_req_seconds>\n<cpu_req_secs>3000</cpu_req_secs>\n\
              <cpu_req_instances>1.5</cpu_req_instances>\n<estimated_delay>20</estimated_delay>\n\
              <coprocs><coproc_cuda><count>1</count><req_secs>600</req_secs><req_instances>0</req_instances>\
              <estimated_delay>5</estimated_delay></coproc_cuda></coprocs>\n</scheduler_request>",
        );
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let file = parsed.value;
        assert_eq!(
            file.project.as_deref(),
            Some("milkyway.cs.rpi.edu_milkyway")
        );
        let request = file.request.unwrap_or_default();
        assert!(request.has_authenticator);
        assert_eq!(request.work_requests.len(), 2);
        assert_eq!(request.work_requests[0].req_instances, Some(1.5));
        assert_eq!(request.work_requests[1].rsc, ResourceType::Nvidia);
        assert_eq!(request.work_requests[1].req_secs, Some(600.0));
        assert_eq!(request.work_requests[1].estimated_delay, Some(5.0));
        assert!(!format!("{request:?}").contains("SECRET"));
    }

    #[test]
    fn reply_with_delay_message_and_jobs() {
        let parsed = parse_sched_rpc(
            &SourcePath::from("sched_reply_a.org.xml"),
            b"junk before the root is ignored\n<scheduler_reply>\n<request_delay>303</request_delay>\n\
              <message priority=\"low\">Project has no tasks available</message>\n\
              <result><name>r1</name><wu_name>w1</wu_name><report_deadline>1e9</report_deadline></result>\n\
              <result_ack><name>r0</name></result_ack>\n<no_rsc_apps>NVIDIA</no_rsc_apps>\n\
              </scheduler_reply>",
        );
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let reply = parsed.value.reply.unwrap_or_default();
        assert_eq!(reply.request_delay, Some(303.0));
        assert_eq!(reply.messages[0].priority.as_deref(), Some("low"));
        assert_eq!(reply.results[0].report_deadline, Some(1e9));
        assert_eq!(reply.result_acks, vec!["r0".to_string()]);
        assert_eq!(reply.no_rsc_apps, vec![ResourceType::Nvidia]);
    }
}

//! The simulated scheduler RPCs as transcripts (`simulate --trace-out`).
//!
//! Each RPC that reached a server becomes one `rpc-NNNNN/` folder holding
//! `sched_request_<P>.xml` and `sched_reply_<P>.xml` in the forms the client
//! and the scheduler write (`<P>` is the master URL without its scheme,
//! `/` → `_`, as the client names these files). `boinc-audit audit DIR`
//! then pairs them and checks the scheduler rules S1–S10 on every exchange:
//! whether the simulated server sent what a real scheduler would have for
//! that request (resource gating, deadline feasibility, …). RPCs skipped
//! because the project was down exchanged nothing and leave no folder.
//!
//! Rendering only: the strings are returned, the command writes them.

use super::RpcRecord;
use crate::policy::generation::Generation;
use crate::policy::state::HostState;
use crate::resource::ResourceType;
use std::fmt::Write as _;

/// The file-name form of a master URL (`https://a.org/x/` → `a.org_x`).
pub fn project_file_name(url: &str) -> String {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or(url);
    let name: String = rest
        .trim_end_matches('/')
        .chars()
        .map(|c| if c == '/' || c == ':' { '_' } else { c })
        .collect();
    if name.is_empty() {
        "project".into()
    } else {
        name
    }
}

/// XML escaping of text content.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The element of a coprocessor type in `<coprocs>`.
fn coproc_tag(rsc: &ResourceType) -> Option<&'static str> {
    Some(match rsc {
        ResourceType::Nvidia => "coproc_cuda",
        ResourceType::Amd => "coproc_ati",
        ResourceType::Intel => "coproc_intel_gpu",
        ResourceType::Apple => "coproc_apple_gpu",
        ResourceType::Cpu | ResourceType::Other(_) => return None,
    })
}

/// The client version a generation's requests carry.
fn client_version(policy: Generation) -> (u32, u32, u32) {
    match policy {
        Generation::Current => (8, 2, 0),
        Generation::Ltd66 => (6, 10, 60),
        Generation::Debt62 => (6, 2, 0),
    }
}

/// (relative path, XML) of every transcript file, in RPC order. `state` is
/// the host at the end of the run (its hardware, preferences and
/// availability fractions do not change during a run).
pub fn render(
    records: &[RpcRecord],
    state: &HostState,
    policy: Generation,
) -> Vec<(String, String)> {
    let mut files = Vec::with_capacity(2 * records.len());
    for (k, record) in records.iter().enumerate() {
        let dir = format!("rpc-{:05}", k + 1);
        let file = project_file_name(&record.project_url);
        files.push((
            format!("{dir}/sched_request_{file}.xml"),
            request_xml(record, state, policy, k as u64 + 1),
        ));
        files.push((
            format!("{dir}/sched_reply_{file}.xml"),
            reply_xml(record, state, policy),
        ));
    }
    files
}

fn request_xml(record: &RpcRecord, state: &HostState, policy: Generation, seqno: u64) -> String {
    let (major, minor, release) = client_version(policy);
    let mut x = String::new();
    let cpu = record.request.first().cloned().unwrap_or_default();
    let _ = writeln!(x, "<scheduler_request>");
    let _ = writeln!(x, "    <hostid>1</hostid>");
    let _ = writeln!(x, "    <rpc_seqno>{seqno}</rpc_seqno>");
    let _ = writeln!(
        x,
        "    <core_client_major_version>{major}</core_client_major_version>"
    );
    let _ = writeln!(
        x,
        "    <core_client_minor_version>{minor}</core_client_minor_version>"
    );
    let _ = writeln!(
        x,
        "    <core_client_release>{release}</core_client_release>"
    );
    let _ = writeln!(
        x,
        "    <resource_share_fraction>{:.6}</resource_share_fraction>",
        record.share_fraction
    );
    let _ = writeln!(
        x,
        "    <work_req_seconds>{:.6}</work_req_seconds>",
        cpu.req_secs
    );
    let _ = writeln!(x, "    <cpu_req_secs>{:.6}</cpu_req_secs>", cpu.req_secs);
    let _ = writeln!(
        x,
        "    <cpu_req_instances>{:.6}</cpu_req_instances>",
        cpu.req_instances
    );
    let _ = writeln!(
        x,
        "    <estimated_delay>{:.6}</estimated_delay>",
        cpu.estimated_delay
    );
    let _ = writeln!(x, "    <platform_name>x86_64-pc-linux-gnu</platform_name>");
    let _ = writeln!(
        x,
        "<working_global_preferences>\n<global_preferences>\n   <work_buf_min_days>{:.6}</work_buf_min_days>\n   <work_buf_additional_days>{:.6}</work_buf_additional_days>\n</global_preferences>\n</working_global_preferences>",
        state.prefs.work_buf_min_days, state.prefs.work_buf_additional_days
    );
    let ts = &state.time_stats;
    let _ = writeln!(
        x,
        "<time_stats>\n    <on_frac>{:.6}</on_frac>\n    <active_frac>{:.6}</active_frac>\n    <gpu_active_frac>{:.6}</gpu_active_frac>\n    <now>{:.6}</now>\n</time_stats>",
        ts.on_frac, ts.active_frac, ts.gpu_active_frac, record.time
    );
    let _ = writeln!(
        x,
        "<host_info>\n    <p_ncpus>{}</p_ncpus>\n    <p_fpops>{:.6}</p_fpops>\n</host_info>",
        state.host.p_ncpus, state.host.p_fpops
    );
    if !state.host.coprocs.is_empty() {
        let _ = writeln!(x, "<coprocs>");
        for (i, coproc) in state.host.coprocs.iter().enumerate() {
            let req = record.request.get(i + 1).cloned().unwrap_or_default();
            let body = format!(
                "   <count>{}</count>\n   <peak_flops>{:.6}</peak_flops>\n   <req_secs>{:.6}</req_secs>\n   <req_instances>{:.6}</req_instances>\n   <estimated_delay>{:.6}</estimated_delay>\n",
                coproc.count, coproc.peak_flops, req.req_secs, req.req_instances, req.estimated_delay
            );
            match coproc_tag(&coproc.rsc_type) {
                Some(tag) => {
                    let _ = write!(x, "<{tag}>\n{body}</{tag}>\n");
                }
                None => {
                    let _ = write!(
                        x,
                        "<coproc>\n   <type>{}</type>\n{body}</coproc>\n",
                        esc(coproc.rsc_type.type_name())
                    );
                }
            }
        }
        let _ = writeln!(x, "</coprocs>");
    }
    for name in &record.reported {
        let _ = writeln!(
            x,
            "<result>\n    <name>{}</name>\n    <state>5</state>\n    <exit_status>0</exit_status>\n</result>",
            esc(name)
        );
    }
    let _ = writeln!(x, "<other_results>");
    for name in &record.in_progress {
        let _ = writeln!(
            x,
            "    <other_result>\n        <name>{}</name>\n    </other_result>",
            esc(name)
        );
    }
    let _ = writeln!(x, "</other_results>");
    let _ = writeln!(x, "</scheduler_request>");
    x
}

fn reply_xml(record: &RpcRecord, state: &HostState, policy: Generation) -> String {
    let mut x = String::new();
    let _ = writeln!(x, "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>");
    let _ = writeln!(x, "<scheduler_reply>");
    let _ = writeln!(x, "<scheduler_version>800</scheduler_version>");
    if record.dont_use_dcf && policy == Generation::Current {
        let _ = writeln!(x, "<dont_use_dcf/>");
    }
    let _ = writeln!(x, "<master_url>{}</master_url>", esc(&record.project_url));
    let _ = writeln!(x, "<request_delay>0.000000</request_delay>");
    let _ = writeln!(
        x,
        "<project_name>{}</project_name>",
        esc(&record.project_name)
    );
    // One app and app version element per version used by the jobs sent.
    let mut versions: Vec<usize> = record.jobs.iter().map(|j| j.version).collect();
    versions.sort_unstable();
    versions.dedup();
    let mut apps: Vec<&str> = record.jobs.iter().map(|j| j.app.as_str()).collect();
    apps.sort_unstable();
    apps.dedup();
    for app in apps {
        let _ = writeln!(x, "<app>\n    <name>{}</name>\n</app>", esc(app));
    }
    for &v in &versions {
        let Some(job) = record.jobs.iter().find(|j| j.version == v) else {
            continue;
        };
        let usage = &job.usage;
        let _ = write!(
            x,
            "<app_version>\n    <app_name>{}</app_name>\n    <version_num>{}</version_num>\n    <platform>x86_64-pc-linux-gnu</platform>\n    <avg_ncpus>{:.6}</avg_ncpus>\n    <flops>{:.6}</flops>\n",
            esc(&job.app),
            100 + v,
            usage.avg_ncpus,
            usage.flops
        );
        if usage.rsc != 0 {
            if let Some(coproc) = state.host.coprocs.get(usage.rsc - 1) {
                let _ = write!(
                    x,
                    "    <coproc>\n        <type>{}</type>\n        <count>{:.6}</count>\n    </coproc>\n",
                    esc(coproc.rsc_type.type_name()),
                    usage.coproc_usage
                );
            }
        }
        let _ = writeln!(x, "</app_version>");
    }
    for job in &record.jobs {
        let _ = writeln!(
            x,
            "<workunit>\n    <name>{name}_wu</name>\n    <app_name>{app}</app_name>\n    <version_num>{v}</version_num>\n    <rsc_fpops_est>{est:.6}</rsc_fpops_est>\n    <rsc_fpops_bound>{bound:.6}</rsc_fpops_bound>\n</workunit>\n<result>\n    <name>{name}</name>\n    <wu_name>{name}_wu</wu_name>\n    <platform>x86_64-pc-linux-gnu</platform>\n    <version_num>{v}</version_num>\n    <report_deadline>{deadline:.0}</report_deadline>\n</result>",
            name = esc(&job.name),
            app = esc(&job.app),
            v = 100 + job.version,
            est = job.fpops_est,
            bound = job.fpops_est * 10.0,
            deadline = job.report_deadline,
        );
    }
    let _ = writeln!(x, "</scheduler_reply>");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_follow_the_client() {
        assert_eq!(
            project_file_name("https://gpu.example.org/"),
            "gpu.example.org"
        );
        assert_eq!(project_file_name("http://a.org/sah/"), "a.org_sah");
        assert_eq!(project_file_name(""), "project");
    }
}

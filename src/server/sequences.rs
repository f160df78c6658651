//! Work sequences (seed 001, spec/server-side.md §3): the request and reply
//! elements this project defines for them, and the audit of a series of
//! exchanges against W1–W9.
//!
//! Architecture Invariant: server rules read the Trace and produce the
//! neutral divergence model; no I/O, no output formats.
//!
//! BOINC never implemented work sequences, so no BOINC client or server
//! writes these elements; a transcript without them gets every W rule *not
//! checkable*. The elements (documented for users in docs/work-sequences.md)
//! are read leniently by `parse::sched_rpc`: an entry without a name is
//! dropped, a bad number is ignored.
//!
//! Request, inside `<scheduler_request>` (W1):
//!
//! ```xml
//! <work_sequences>
//!     <sequence>
//!         <name>cpdn_s17</name>        <!-- the head workunit's name -->
//!         <in_progress>2</in_progress> <!-- its results held, not yet reported -->
//!     </sequence>
//! </work_sequences>
//! ```
//!
//! Reply, inside `<scheduler_reply>`:
//!
//! ```xml
//! <work_sequence>
//!     <name>cpdn_s17</name>
//!     <status>assigned</status>  <!-- assigned | continued | revoked | ended -->
//!     <max_result_time>259200</max_result_time> <!-- real seconds per result -->
//!     <length>60</length>        <!-- results known so far (grows by extension) -->
//!     <reason>deadline_missed</reason> <!-- of a revocation: deadline_missed | too_slow | reassigned -->
//! </work_sequence>
//! <sequence_result>
//!     <name>cpdn_s17_r5_0</name> <!-- a <result> of this reply -->
//!     <sequence>cpdn_s17</sequence>
//!     <index>5</index>           <!-- 1-based position in the sequence -->
//! </sequence_result>
//! ```
//!
//! What is audited, per host (`hostid`) and project, in exchange order:
//! * W1 — every request lists the sequences assigned to the host by earlier
//!   replies (and not revoked or ended since).
//! * W2 — a sequence is assigned only to a host that can complete one result
//!   within `max_result_time` (`rsc_fpops_est` / (`p_fpops` × `on_frac` ×
//!   `active_frac`)), to one host at a time, and a host that has become too
//!   slow is not kept (the reply revokes the sequence).
//! * W3 — results are sent in sequence order and only to the assigned host;
//!   a reported sequence no longer assigned to the host is revoked in the
//!   reply.
//! * W4 [SHOULD] — after each reply the host holds at least two undone
//!   results of each assigned sequence (`in_progress` + results sent now),
//!   unless fewer remain (`length`); without `length`, only zero is flagged.
//! * W5 [INFO] — a reply mixing sequence and other results is noted.
//! * W6 — no result of an ended sequence is sent.
//! * W7 — once a result sent to a host is past its `report_deadline` (the
//!   request's `now`) and was never reported, that host gets no more results
//!   of the sequence and the reply revokes it.
//! * W8 — extension results (index beyond the announced `length`) go only
//!   to the assigned host.
//! * W9 — unspecified in the seed: always *not checkable*.

use super::rules::{sent_jobs, SentJob};
use super::{Exchange, RuleOutcome, ServerAudit, Violation};
use crate::divergence::{DecisionKind, Unchecked};
use std::collections::BTreeMap;

/// The W rules, in order.
pub const RULES: [&str; 9] = ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9"];

/// What the series has shown about one sequence of one project.
#[derive(Clone, Debug, Default, PartialEq)]
struct SequenceState {
    /// The host it is assigned to.
    assigned_to: Option<String>,
    /// Ended by the project.
    ended: bool,
    /// Hosts that missed a deadline of it.
    missed_by: Vec<String>,
    /// `max_result_time`, seconds.
    max_result_time: Option<f64>,
    /// Announced length.
    length: Option<u32>,
    /// Highest index sent, per host.
    last_index: BTreeMap<String, u32>,
    /// Results sent: (name, report deadline, host).
    sent: Vec<(String, Option<f64>, String)>,
    /// FLOPs of one result (the last `rsc_fpops_est` seen).
    fpops_per_result: Option<f64>,
}

/// What rule `rule` requires, one line.
fn requirement(rule: &str) -> &'static str {
    match rule {
        "W1" => "the request lists every sequence assigned to the host",
        "W2" => "assigned only to a host fast enough for max_result_time, one host at a time",
        "W3" => "results in sequence order, only to the assigned host; stale reports revoked",
        "W4" => "at least two undone results of each assigned sequence on the host (SHOULD)",
        "W5" => "INFO: sequence and other work mixed; serving sequences first starves the rest",
        "W6" => "no result of an ended sequence",
        "W7" => "after a missed deadline: revoked, no further results to that host",
        "W8" => "extension results only to the assigned host",
        _ => "unspecified",
    }
}

/// True when some exchange carries a sequence element.
pub fn has_sequence_elements(exchanges: &[Exchange]) -> bool {
    exchanges.iter().any(|exchange| {
        exchange
            .request
            .as_ref()
            .is_some_and(|r| r.has_work_sequences)
            || exchange
                .reply
                .as_ref()
                .is_some_and(|r| !r.work_sequences.is_empty() || !r.sequence_results.is_empty())
    })
}

fn seq_violation(
    job: Option<&str>,
    recorded: String,
    replayed: String,
    reason: String,
) -> Violation {
    Violation {
        resource: None,
        job: job.map(str::to_string),
        recorded,
        replayed,
        reason,
    }
}

/// Audits W1–W9 over the series of `exchanges` into `audit`.
pub fn audit_sequences(exchanges: &[Exchange], audit: &mut ServerAudit) {
    // No exchange carries a sequence element (BOINC never implemented work
    // sequences, so no client or server writes them; docs/work-sequences.md):
    // W1-W9 have no decision to judge, and nothing is listed.
    if !has_sequence_elements(exchanges) {
        return;
    }
    audit.unchecked.push(Unchecked {
        what: "W9 on all exchanges".into(),
        why: "unspecified: the seed's redundancy mechanism for sequences was lost".into(),
    });
    let mut states: BTreeMap<(String, String), SequenceState> = BTreeMap::new();
    let mut reported: Vec<String> = Vec::new();
    for exchange in exchanges {
        let (Some(reply), Some(request)) = (&exchange.reply, exchange.paired_request()) else {
            continue;
        };
        let host = request.hostid.or(reply.hostid).map_or_else(
            || format!("host of {}", exchange.label),
            |id| format!("host {id}"),
        );
        let project = exchange.project.clone();
        let now = exchange.request_now();
        reported.extend(
            request
                .reported_results
                .iter()
                .filter_map(|r| r.name.clone()),
        );
        let jobs = sent_jobs(reply, Some(request));
        let stats = request.time_stats.clone().unwrap_or_default();
        let speed = request
            .host_info
            .as_ref()
            .and_then(|h| h.p_fpops)
            .map(|fpops| fpops * stats.on_frac.unwrap_or(1.0) * stats.active_frac.unwrap_or(1.0));
        let mut found: BTreeMap<&'static str, Vec<Violation>> = BTreeMap::new();
        let mut push = |rule: &'static str, violation: Violation| {
            found.entry(rule).or_default().push(violation);
        };
        let notice = |name: &str, status: &str| {
            reply
                .work_sequences
                .iter()
                .any(|n| n.name == name && n.status == status)
        };
        let revokes = |name: &str| notice(name, "revoked") || notice(name, "ended");
        let reports = |name: &str| request.work_sequences.iter().any(|s| s.name == name);

        // W1: the request lists every sequence assigned to this host.
        for ((p, name), state) in &states {
            if *p == project
                && state.assigned_to.as_deref() == Some(host.as_str())
                && !reports(name)
            {
                push(
                    "W1",
                    seq_violation(
                        None,
                        format!("request lists [{}]", request.work_sequences.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")),
                        format!("request lists {name}"),
                        format!("W1: sequence {name} was assigned to {host} by an earlier reply but the request does not report it"),
                    ),
                );
            }
        }
        // W7: deadline misses detected at this request. The host holding
        // the sequence loses it as soon as one of its results is past its
        // deadline unreported — seen at any host's request, since a failed
        // host may never ask again; the sequence may then be relocated. Only
        // the host's own reply must tell it (revoke).
        let mut missed_now: Vec<String> = Vec::new();
        if let Some(now) = now {
            for ((p, name), state) in states.iter_mut() {
                if *p != project {
                    continue;
                }
                let Some(owner) = state.assigned_to.clone() else {
                    continue;
                };
                let missed = state.sent.iter().find(|(result, deadline, to)| {
                    *to == owner && deadline.is_some_and(|d| d < now) && !reported.contains(result)
                });
                let Some((result, deadline, _)) = missed.cloned() else {
                    continue;
                };
                state.missed_by.push(owner.clone());
                state.assigned_to = None;
                if owner == host {
                    let deadline = deadline.unwrap_or(0.0);
                    if !revokes(name) {
                        push(
                            "W7",
                            seq_violation(
                                Some(&result),
                                format!("{name} not revoked"),
                                format!("<work_sequence> {name} revoked"),
                                format!("W7: result {result} of {name} missed its deadline {deadline:.0} (request now {now:.0}) but the reply does not revoke {name} from {host}"),
                            ),
                        );
                    }
                    missed_now.push(name.clone());
                }
            }
        }
        // W3 (reconcile): a reported sequence no longer assigned is revoked.
        for report in &request.work_sequences {
            let Some(state) = states.get(&(project.clone(), report.name.clone())) else {
                continue;
            };
            let not_ours = state.ended || state.assigned_to.as_deref() != Some(host.as_str());
            if not_ours && !revokes(&report.name) && !missed_now.contains(&report.name) {
                push(
                    "W3",
                    seq_violation(
                        None,
                        format!("{host} reports {}", report.name),
                        format!("<work_sequence> {} revoked", report.name),
                        format!(
                            "W3: {host} reports sequence {} which is {}, and the reply does not tell it so",
                            report.name,
                            if state.ended { "ended".to_string() } else { format!("assigned to {}", state.assigned_to.as_deref().unwrap_or("no host")) }
                        ),
                    ),
                );
            }
        }
        // Notices.
        for notice in &reply.work_sequences {
            let state = states
                .entry((project.clone(), notice.name.clone()))
                .or_default();
            if notice.max_result_time.is_some() {
                state.max_result_time = notice.max_result_time;
            }
            if notice.length.is_some() {
                state.length = notice.length;
            }
            match notice.status.as_str() {
                "assigned" => {
                    if let Some(other) = state.assigned_to.as_ref().filter(|o| **o != host) {
                        push(
                            "W2",
                            seq_violation(
                                None,
                                format!("{} assigned to {host}", notice.name),
                                format!("{} assigned to one host", notice.name),
                                format!("W2: sequence {} assigned to {host} while still assigned to {other}", notice.name),
                            ),
                        );
                    }
                    state.assigned_to = Some(host.clone());
                }
                "revoked" if state.assigned_to.as_deref() == Some(host.as_str()) => {
                    state.assigned_to = None;
                }
                "ended" => {
                    state.ended = true;
                    state.assigned_to = None;
                }
                _ => {}
            }
        }
        // Results of sequences.
        let mut sent_now: BTreeMap<String, u32> = BTreeMap::new();
        for entry in &reply.sequence_results {
            let state = states
                .entry((project.clone(), entry.sequence.clone()))
                .or_default();
            let job: Option<&SentJob> = jobs.iter().find(|j| j.name == entry.name);
            if let Some(job) = job {
                state.fpops_per_result = Some(job.fpops_est);
            }
            *sent_now.entry(entry.sequence.clone()).or_default() += 1;
            let name = entry.sequence.as_str();
            if state.ended {
                push(
                    "W6",
                    seq_violation(
                        Some(&entry.name),
                        format!("sent {} of {name}", entry.name),
                        "no result of an ended sequence".into(),
                        format!(
                            "W6: result {} of sequence {name} sent after the sequence ended",
                            entry.name
                        ),
                    ),
                );
            } else if state.missed_by.contains(&host) {
                push("W7", seq_violation(Some(&entry.name), format!("sent {} of {name}", entry.name), format!("no result of {name} to {host}"), format!("W7: result {} of {name} sent to {host}, which missed a deadline of that sequence", entry.name)));
            } else if state.assigned_to.as_deref() != Some(host.as_str()) {
                let extension = matches!((entry.index, state.length), (Some(i), Some(l)) if i > l);
                let rule = if extension { "W8" } else { "W3" };
                push(rule, seq_violation(Some(&entry.name), format!("sent {} of {name} to {host}", entry.name), format!("results of {name} only to {}", state.assigned_to.as_deref().unwrap_or("the assigned host")), format!("{rule}: {}result {} (index {}) of sequence {name} sent to {host}, which the sequence is not assigned to", if extension { "extension " } else { "" }, entry.name, entry.index.map_or("?".to_string(), |i| i.to_string()))));
            }
            if let Some(index) = entry.index {
                let last = state.last_index.get(&host).copied().unwrap_or(0);
                if index <= last {
                    push("W3", seq_violation(Some(&entry.name), format!("index {index} after index {last}"), format!("index > {last}"), format!("W3: result {} of {name} has index {index} but {host} already got index {last}: results go out in sequence order", entry.name)));
                }
                state.last_index.insert(host.clone(), index.max(last));
            }
            state.sent.push((
                entry.name.clone(),
                job.and_then(|j| j.report_deadline),
                host.clone(),
            ));
        }
        // W2 (speed) and W4 (in flight), per sequence held after the reply.
        for ((p, name), state) in states.iter_mut() {
            if *p != project || state.assigned_to.as_deref() != Some(host.as_str()) {
                continue;
            }
            if let (Some(limit), Some(fpops), Some(speed)) =
                (state.max_result_time, state.fpops_per_result, speed)
            {
                let real = fpops / speed;
                if real > limit {
                    let newly = notice(name, "assigned");
                    push("W2", seq_violation(None, format!("{name} {} {host}", if newly { "assigned to" } else { "kept on" }), format!("{name} only on hosts finishing a result within {limit:.0} s"), format!("W2: {host} needs {real:.0} s per result of {name} ({fpops:.3e} FLOP / {speed:.3e} FLOPS after on_frac × active_frac) > max_result_time {limit:.0} s, yet the sequence is {}", if newly { "assigned to it" } else { "kept on it" })));
                }
            }
            let held = request
                .work_sequences
                .iter()
                .find(|s| s.name == *name)
                .and_then(|s| s.in_progress)
                .unwrap_or(0)
                + sent_now.get(name).copied().unwrap_or(0);
            let last = state.last_index.get(&host).copied().unwrap_or(0);
            let short = match state.length {
                Some(length) => held < 2 && held + length.saturating_sub(last) >= 2,
                None => held == 0,
            };
            if short {
                push("W4", seq_violation(None, format!("{host} holds {held} results of {name}"), "at least 2 in flight".into(), format!("W4: after this reply {host} holds {held} undone results of {name} (index {last} of {}): the server should keep at least two in flight", state.length.map_or("?".to_string(), |l| l.to_string()))));
            }
        }
        let mixed = !reply.sequence_results.is_empty()
            && reply.results.len() > reply.sequence_results.len();
        for rule in ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8"] {
            if rule == "W5" && !mixed {
                continue;
            }
            let violations = found.remove(rule).unwrap_or_default();
            let recorded = format!(
                "{} sequence results, notices [{}], reports [{}]",
                reply.sequence_results.len(),
                reply
                    .work_sequences
                    .iter()
                    .map(|n| format!("{} {}", n.name, n.status))
                    .collect::<Vec<_>>()
                    .join(", "),
                request
                    .work_sequences
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let replayed = requirement(rule).to_string();
            let outcome = RuleOutcome::from_violations(rule, recorded, replayed, violations);
            audit.record(exchange, DecisionKind::SequenceRule, outcome);
        }
    }
}

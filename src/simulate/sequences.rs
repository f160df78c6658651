//! Work sequences on several simulated hosts (seed 001; spec server-side.md
//! §3, rules W1–W9): `simulate --hosts N` with a sequence scenario.
//!
//! A simulated back end holds `n` sequences of `L` results each and serves
//! several hosts of different speed and availability through scheduler RPCs
//! that carry the elements of docs/work-sequences.md. It follows the rules:
//! a sequence goes to one host at a time, only to a host that can finish a
//! result within `max_result_time` (W2); its results go out in order, only to
//! that host, which always holds at least two undone results while any
//! remain (W3, W4); a host that misses a result's deadline loses the
//! sequence, which is relocated to another host from its first unvalidated
//! result (W7); a sequence nearly done is extended by the back end (W8);
//! an ended sequence gets no more results (W6).
//!
//! Every RPC is written as a `sched_request`/`sched_reply` pair and the
//! whole series is audited with the transcript rules (`server::audit_transcripts`),
//! so the run shows both what happened and that no rule was broken.
//!
//! The hosts here are simple: each computes its sequence's results one after
//! another at its speed while it is on, and contacts the project hourly, or
//! when a result completes. The client's scheduling policy (which decides
//! *when* it asks) is the single-host `simulate`'s business; here what
//! matters is what the server sends to whom.
//!
//! Notation: `SEQ(C, D, L[, n=K][, ext=E]) HOSTS=3 f=1e9 speeds=1,0.8,0.5
//! avail=1,0.9,1 fail=1@48`: results of `C` hours on a host of `f` FLOPS,
//! deadline and `max_result_time` `D` hours, `L` results per sequence, `K`
//! sequences (default 1), extension by `E` results when fewer than two
//! remain (default 0, once per sequence); host speeds (multiples of `f`),
//! on-fractions (on/off periods averaging 6 h), and hosts that fail for good
//! (`K@T`: host K, 1-based, at hour T).

use super::rng::{OnOff, Rng};
use super::SimError;
use crate::divergence::DecisionKind;
use crate::parse::sched_rpc::parse_sched_rpc;
use crate::server;
use crate::source::SourcePath;
use crate::trace::Trace;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The project's master URL, as written in the transcripts.
const MASTER_URL: &str = "https://sequences.example.org/";
/// Transcript file name suffix of the project.
const PROJECT_FILE: &str = "sequences.example.org";
/// How often a host contacts the project when nothing happens, seconds.
const RPC_INTERVAL: f64 = 3600.0;
/// Mean length of an on/off period of a host, seconds.
const AVAILABILITY_LAMBDA: f64 = 6.0 * 3600.0;
/// Simulated time at the start (as the emulator).
const START: f64 = 3600.0;

/// One simulated host.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostSpec {
    /// Speed as a multiple of the reference `f`.
    pub speed: f64,
    /// Long-run fraction of time on.
    pub on_frac: f64,
    /// Fails for good at this simulated second, if given.
    pub fail_at: Option<f64>,
}

/// A sequence scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SequenceScenario {
    /// Hours of one result on a host of `flops`.
    pub result_hours: f64,
    /// Deadline (and `max_result_time`) of a result, hours.
    pub deadline_hours: f64,
    /// Results per sequence.
    pub length: u32,
    /// Sequences.
    pub n_sequences: u32,
    /// Results added once when fewer than two remain (0 = never).
    pub extension: u32,
    /// Reference FLOPS.
    pub flops: f64,
    /// The hosts.
    pub hosts: Vec<HostSpec>,
}

/// True if `text` is a sequence scenario.
pub fn is_sequence_notation(text: &str) -> bool {
    text.trim_start().starts_with("SEQ(")
}

/// Parses the notation; `hosts` (from `--hosts N`) sets the number of hosts,
/// repeating the last given speed and availability (default 1).
pub fn parse_sequence_scenario(
    text: &str,
    hosts: Option<usize>,
) -> Result<SequenceScenario, SimError> {
    let bad = |what: String| SimError::Scenario(format!("sequence scenario: {what}"));
    let text = text.trim();
    let open = text
        .find('(')
        .ok_or_else(|| bad("expected SEQ(C, D, L)".into()))?;
    let close = text.find(')').ok_or_else(|| bad("unbalanced '('".into()))?;
    let args: Vec<&str> = text[open + 1..close].split(',').map(str::trim).collect();
    let num = |s: &str, what: &str| -> Result<f64, SimError> {
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| bad(format!("bad number {s:?} for {what}")))
    };
    if args.len() < 3 {
        return Err(bad("SEQ needs (C, D, L)".into()));
    }
    let mut scenario = SequenceScenario {
        result_hours: num(args[0], "C")?,
        deadline_hours: num(args[1], "D")?,
        length: num(args[2], "L")? as u32,
        n_sequences: 1,
        extension: 0,
        flops: 1e9,
        hosts: Vec::new(),
    };
    for opt in &args[3..] {
        match opt.split_once('=') {
            Some(("n", v)) => scenario.n_sequences = num(v, "n")? as u32,
            Some(("ext", v)) => scenario.extension = num(v, "ext")? as u32,
            _ => return Err(bad(format!("unknown option {opt:?} (n=K, ext=E)"))),
        }
    }
    if scenario.result_hours <= 0.0 || scenario.deadline_hours <= 0.0 || scenario.length == 0 {
        return Err(bad("C, D and L must be > 0".into()));
    }
    let (mut n_hosts, mut speeds, mut avail) = (hosts.unwrap_or(1), vec![1.0], vec![1.0]);
    let mut fails: Vec<(usize, f64)> = Vec::new();
    let list = |v: &str, what: &str| -> Result<Vec<f64>, SimError> {
        v.split(',').map(|x| num(x.trim(), what)).collect()
    };
    for term in text[close + 1..].split_whitespace() {
        let (key, value) = term
            .split_once('=')
            .ok_or_else(|| bad(format!("expected KEY=VALUE, found {term:?}")))?;
        match key {
            "HOSTS" if hosts.is_none() => n_hosts = num(value, "HOSTS")? as usize,
            "HOSTS" => {}
            "f" => scenario.flops = num(value, "f")?,
            "speeds" => speeds = list(value, "speeds")?,
            "avail" => avail = list(value, "avail")?,
            "fail" => {
                for item in value.split(',') {
                    let (k, t) = item
                        .split_once('@')
                        .ok_or_else(|| bad(format!("fail={item}: expected K@HOURS")))?;
                    fails.push((num(k, "fail host")? as usize, num(t, "fail time")? * 3600.0));
                }
            }
            _ => return Err(bad(format!("unknown key {key:?}"))),
        }
    }
    if n_hosts == 0 || scenario.flops <= 0.0 {
        return Err(bad("need at least one host and f > 0".into()));
    }
    let pick = |values: &[f64], i: usize| values.get(i).or(values.last()).copied().unwrap_or(1.0);
    scenario.hosts = (0..n_hosts)
        .map(|i| HostSpec {
            speed: pick(&speeds, i),
            on_frac: pick(&avail, i).min(1.0),
            fail_at: fails
                .iter()
                .find(|(k, _)| *k == i + 1)
                .map(|(_, t)| START + t),
        })
        .collect();
    Ok(scenario)
}

/// Something that happened to a sequence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SequenceEvent {
    /// Simulated seconds.
    pub time: f64,
    /// The sequence.
    pub sequence: String,
    /// `assigned`, `relocated`, `revoked`, `extended`, `completed`, `host_failed`.
    pub event: String,
    /// The host concerned (1-based).
    pub host: Option<usize>,
    /// Details.
    pub detail: String,
}

/// The outcome of a multi-host sequence run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SequenceReport {
    /// The scenario as parsed.
    pub scenario: SequenceScenario,
    /// Events in time order.
    pub events: Vec<SequenceEvent>,
    /// Per sequence: results validated / length at the end.
    pub progress: Vec<(String, u32, u32)>,
    /// RPCs made.
    pub rpcs: usize,
    /// Transcript rule checks made (server rules S1–S10 and sequence rules
    /// W1–W9, one per exchange and rule that could be decided).
    pub rules_checked: usize,
    /// Rule findings, one line each (empty on a healthy run).
    pub rule_violations: Vec<String>,
    /// The transcripts: (relative path, XML text), in time order.
    #[serde(skip)]
    pub transcripts: Vec<(String, String)>,
}

#[derive(Clone, Debug)]
struct Held {
    name: String,
    sequence: usize,
    flops_left: f64,
}

#[derive(Clone, Debug)]
struct SimHost {
    id: u32,
    flops: f64,
    spec: HostSpec,
    on: OnOff,
    queue: Vec<Held>,
    done: Vec<String>,
    believed: Vec<usize>,
    last_rpc: f64,
    want_rpc: bool,
    seqno: u32,
}

#[derive(Clone, Debug, Default)]
struct Sent {
    name: String,
    index: u32,
    host: usize,
    deadline: f64,
    reported: bool,
}

#[derive(Clone, Debug)]
struct Sequence {
    name: String,
    length: u32,
    extended: bool,
    next_index: u32,
    instance: BTreeMap<u32, u32>,
    assigned: Option<usize>,
    missed_by: Vec<usize>,
    ended: bool,
    sent: Vec<Sent>,
}

impl Sequence {
    fn validated(&self) -> u32 {
        let mut v = 0;
        while self.sent.iter().any(|s| s.index == v + 1 && s.reported) {
            v += 1;
        }
        v
    }
}

/// Runs the scenario for `duration` seconds in steps of `delta`.
pub fn simulate_sequences(
    scenario: &SequenceScenario,
    duration: f64,
    delta: f64,
    rng: &mut Rng,
) -> Result<SequenceReport, SimError> {
    if !(delta >= 1.0 && duration >= 0.0 && duration.is_finite()) {
        return Err(SimError::Options(
            "delta must be >= 1 s and duration >= 0".into(),
        ));
    }
    let fpops = scenario.result_hours * 3600.0 * scenario.flops;
    let max_result_time = scenario.deadline_hours * 3600.0;
    let mut hosts: Vec<SimHost> = scenario
        .hosts
        .iter()
        .enumerate()
        .map(|(i, spec)| SimHost {
            id: 1001 + i as u32,
            flops: spec.speed * scenario.flops,
            spec: spec.clone(),
            on: if spec.on_frac >= 1.0 {
                OnOff::always()
            } else {
                OnOff::new(spec.on_frac, AVAILABILITY_LAMBDA, rng)
            },
            queue: Vec::new(),
            done: Vec::new(),
            believed: Vec::new(),
            last_rpc: f64::NEG_INFINITY,
            want_rpc: true,
            seqno: 0,
        })
        .collect();
    let mut seqs: Vec<Sequence> = (0..scenario.n_sequences)
        .map(|k| Sequence {
            name: format!("seq{}", k + 1),
            length: scenario.length,
            extended: false,
            next_index: 1,
            instance: BTreeMap::new(),
            assigned: None,
            missed_by: Vec::new(),
            ended: false,
            sent: Vec::new(),
        })
        .collect();
    let mut events = Vec::new();
    let mut transcripts = Vec::new();
    let mut now = START;
    let mut failed_reported = vec![false; hosts.len()];
    while now <= START + duration {
        for h in 0..hosts.len() {
            let failed = hosts[h].spec.fail_at.is_some_and(|t| now >= t);
            if failed && !failed_reported[h] {
                failed_reported[h] = true;
                events.push(SequenceEvent {
                    time: now,
                    sequence: "-".into(),
                    event: "host_failed".into(),
                    host: Some(h + 1),
                    detail: "the host stops for good (injected failure)".into(),
                });
            }
            let on = hosts[h].on.sample(delta, rng) && !failed;
            if !on {
                continue;
            }
            // Compute the first held result.
            let host = &mut hosts[h];
            if let Some(first) = host.queue.first_mut() {
                first.flops_left -= host.flops * delta;
                if first.flops_left <= 0.0 {
                    let done = host.queue.remove(0);
                    host.done.push(done.name);
                    host.want_rpc = true;
                }
            }
            if host.want_rpc || now - host.last_rpc >= RPC_INTERVAL {
                let (request, reply) = rpc(
                    &mut hosts,
                    h,
                    &mut seqs,
                    now,
                    fpops,
                    max_result_time,
                    scenario,
                    &mut events,
                );
                let n = transcripts.len() / 2 + 1;
                let dir = format!("rpc-{n:05}-host{}", h + 1);
                transcripts.push((format!("{dir}/sched_request_{PROJECT_FILE}.xml"), request));
                transcripts.push((format!("{dir}/sched_reply_{PROJECT_FILE}.xml"), reply));
            }
        }
        now += delta;
    }
    let (rules_checked, rule_violations) = audit(&transcripts);
    Ok(SequenceReport {
        scenario: scenario.clone(),
        events,
        progress: seqs
            .iter()
            .map(|s| (s.name.clone(), s.validated(), s.length))
            .collect(),
        rpcs: transcripts.len() / 2,
        rules_checked,
        rule_violations,
        transcripts,
    })
}

/// One RPC of host `h`: builds the request, lets the back end decide, applies
/// the reply to the host; returns the two XML texts.
#[allow(clippy::too_many_arguments)]
fn rpc(
    hosts: &mut [SimHost],
    h: usize,
    seqs: &mut [Sequence],
    now: f64,
    fpops: f64,
    max_result_time: f64,
    scenario: &SequenceScenario,
    events: &mut Vec<SequenceEvent>,
) -> (String, String) {
    let host = &mut hosts[h];
    host.last_rpc = now;
    host.want_rpc = false;
    host.seqno += 1;
    let reported = std::mem::take(&mut host.done);
    let in_progress =
        |host: &SimHost, s: usize| host.queue.iter().filter(|q| q.sequence == s).count();
    // The host asks for what keeps two results in hand (one CPU instance).
    let need = 2usize.saturating_sub(host.queue.len());
    let req_secs = need as f64 * fpops / host.flops;
    let request = request_xml(host, now, &reported, seqs, in_progress, req_secs);
    // The back end.
    let mut notices: Vec<(usize, &'static str, Option<&'static str>)> = Vec::new();
    let mut results: Vec<(usize, u32, String, f64)> = Vec::new();
    for s in seqs.iter_mut() {
        for sent in s.sent.iter_mut().filter(|x| reported.contains(&x.name)) {
            sent.reported = true;
        }
    }
    // Deadline misses of any holder (W7), then completion.
    for (k, s) in seqs.iter_mut().enumerate() {
        if let Some(owner) = s.assigned {
            let missed = s
                .sent
                .iter()
                .any(|x| x.host == owner && !x.reported && x.deadline < now);
            if missed {
                s.assigned = None;
                s.missed_by.push(owner);
                s.next_index = s.validated() + 1;
                events.push(SequenceEvent {
                    time: now,
                    sequence: s.name.clone(),
                    event: "revoked".into(),
                    host: Some(owner + 1),
                    detail: format!(
                        "a result missed its deadline; resent from result {}",
                        s.next_index
                    ),
                });
                let _ = k;
            }
        }
        if !s.ended && s.validated() >= s.length {
            s.ended = true;
            events.push(SequenceEvent {
                time: now,
                sequence: s.name.clone(),
                event: "completed".into(),
                host: s.assigned.map(|a| a + 1),
                detail: format!("all {} results validated", s.length),
            });
        }
    }
    let host = &hosts[h];
    let fast_enough = fpops / (host.flops * host.spec.on_frac) <= max_result_time;
    // Reconcile what the host reports (W1, W3).
    for &k in &host.believed {
        let s = &seqs[k];
        if s.ended {
            notices.push((k, "ended", None));
        } else if s.assigned != Some(h) {
            let reason = if s.missed_by.contains(&h) {
                "deadline_missed"
            } else {
                "reassigned"
            };
            notices.push((k, "revoked", Some(reason)));
        } else if !fast_enough {
            notices.push((k, "revoked", Some("too_slow")));
        }
    }
    for &(k, status, _) in &notices {
        if status == "revoked" && seqs[k].assigned == Some(h) {
            seqs[k].assigned = None;
            seqs[k].next_index = seqs[k].validated() + 1;
        }
    }
    // Assignment (W2): one sequence per host, never back to a host that missed.
    let holds_one = seqs.iter().any(|s| s.assigned == Some(h));
    if !holds_one && fast_enough {
        if let Some(k) = seqs
            .iter()
            .position(|s| s.assigned.is_none() && !s.ended && !s.missed_by.contains(&h))
        {
            let relocated = seqs[k].missed_by.last().map(|from| from + 1);
            seqs[k].assigned = Some(h);
            notices.push((k, "assigned", None));
            events.push(SequenceEvent {
                time: now,
                sequence: seqs[k].name.clone(),
                event: if relocated.is_some() {
                    "relocated"
                } else {
                    "assigned"
                }
                .into(),
                host: Some(h + 1),
                detail: match relocated {
                    Some(from) => format!(
                        "from host {from}, starting at result {}",
                        seqs[k].next_index
                    ),
                    None => "first assignment".into(),
                },
            });
        }
    }
    // Results (W3, W4, W8): keep two in flight while any remain.
    for (k, s) in seqs.iter_mut().enumerate() {
        if s.assigned != Some(h) || s.ended {
            continue;
        }
        let held = in_progress(&hosts[h], k);
        if scenario.extension > 0 && !s.extended && s.length + 1 < s.next_index + 2 {
            s.length += scenario.extension;
            s.extended = true;
            events.push(SequenceEvent {
                time: now,
                sequence: s.name.clone(),
                event: "extended".into(),
                host: Some(h + 1),
                detail: format!("length now {}", s.length),
            });
        }
        if !notices.iter().any(|(n, _, _)| *n == k) {
            notices.push((k, "continued", None));
        }
        let mut sent_now = 0;
        while held + sent_now < 2 && s.next_index <= s.length {
            let index = s.next_index;
            let instance = s.instance.entry(index).or_default();
            let name = format!("{}_r{index}_{instance}", s.name);
            *instance += 1;
            let deadline = now + max_result_time;
            s.sent.push(Sent {
                name: name.clone(),
                index,
                host: h,
                deadline,
                reported: false,
            });
            results.push((k, index, name, deadline));
            s.next_index += 1;
            sent_now += 1;
        }
    }
    let reply = reply_xml(
        seqs,
        &notices,
        &results,
        fpops,
        max_result_time,
        hosts[h].flops,
    );
    // The host applies the reply.
    let host = &mut hosts[h];
    for &(k, status, _) in &notices {
        match status {
            "revoked" | "ended" => {
                host.believed.retain(|&b| b != k);
                host.queue.retain(|q| q.sequence != k);
            }
            _ if !host.believed.contains(&k) => host.believed.push(k),
            _ => {}
        }
    }
    for (k, _, name, _) in results {
        host.queue.push(Held {
            name,
            sequence: k,
            flops_left: fpops,
        });
    }
    (request, reply)
}

fn request_xml(
    host: &SimHost,
    now: f64,
    reported: &[String],
    seqs: &[Sequence],
    in_progress: impl Fn(&SimHost, usize) -> usize,
    req_secs: f64,
) -> String {
    let mut x = String::new();
    let _ = writeln!(x, "<scheduler_request>");
    let _ = writeln!(x, "    <hostid>{}</hostid>", host.id);
    let _ = writeln!(x, "    <rpc_seqno>{}</rpc_seqno>", host.seqno);
    let _ = writeln!(
        x,
        "    <core_client_major_version>8</core_client_major_version>"
    );
    let _ = writeln!(
        x,
        "    <core_client_minor_version>0</core_client_minor_version>"
    );
    let _ = writeln!(x, "    <core_client_release>0</core_client_release>");
    let req_instances = if req_secs > 0.0 { 1.0 } else { 0.0 };
    let _ = writeln!(x, "    <work_req_seconds>{req_secs:.6}</work_req_seconds>");
    let _ = writeln!(x, "    <cpu_req_secs>{req_secs:.6}</cpu_req_secs>");
    let _ = writeln!(
        x,
        "    <cpu_req_instances>{req_instances:.6}</cpu_req_instances>"
    );
    let _ = writeln!(x, "    <estimated_delay>0.000000</estimated_delay>");
    let _ = writeln!(x, "    <platform_name>x86_64-pc-linux-gnu</platform_name>");
    let _ = writeln!(x, "<time_stats>\n    <on_frac>{:.6}</on_frac>\n    <active_frac>1.000000</active_frac>\n    <now>{now:.6}</now>\n</time_stats>", host.spec.on_frac);
    let _ = writeln!(
        x,
        "<host_info>\n    <p_ncpus>1</p_ncpus>\n    <p_fpops>{:.6}</p_fpops>\n</host_info>",
        host.flops
    );
    for name in reported {
        let _ = writeln!(x, "<result>\n    <name>{name}</name>\n    <state>5</state>\n    <exit_status>0</exit_status>\n</result>");
    }
    let _ = writeln!(x, "<work_sequences>");
    for &k in &host.believed {
        let _ = writeln!(
            x,
            "    <sequence>\n        <name>{}</name>\n        <in_progress>{}</in_progress>\n    </sequence>",
            seqs[k].name,
            in_progress(host, k)
        );
    }
    let _ = writeln!(x, "</work_sequences>");
    let _ = writeln!(x, "</scheduler_request>");
    x
}

fn reply_xml(
    seqs: &[Sequence],
    notices: &[(usize, &'static str, Option<&'static str>)],
    results: &[(usize, u32, String, f64)],
    fpops: f64,
    max_result_time: f64,
    host_flops: f64,
) -> String {
    let mut x = String::new();
    let _ = writeln!(x, "<scheduler_reply>");
    let _ = writeln!(x, "<scheduler_version>800</scheduler_version>");
    let _ = writeln!(x, "<dont_use_dcf/>");
    let _ = writeln!(x, "<master_url>{MASTER_URL}</master_url>");
    let _ = writeln!(x, "<request_delay>0.000000</request_delay>");
    let _ = writeln!(x, "<project_name>Sequences@Home</project_name>");
    for &(k, status, reason) in notices {
        let _ = write!(
            x,
            "<work_sequence>\n    <name>{}</name>\n    <status>{status}</status>\n    <max_result_time>{max_result_time:.0}</max_result_time>\n    <length>{}</length>\n",
            seqs[k].name, seqs[k].length
        );
        if let Some(reason) = reason {
            let _ = writeln!(x, "    <reason>{reason}</reason>");
        }
        let _ = writeln!(x, "</work_sequence>");
    }
    for (k, index, name, _) in results {
        let _ = writeln!(
            x,
            "<sequence_result>\n    <name>{name}</name>\n    <sequence>{}</sequence>\n    <index>{index}</index>\n</sequence_result>",
            seqs[*k].name
        );
    }
    if !results.is_empty() {
        let _ = writeln!(x, "<app>\n    <name>seqapp</name>\n</app>\n<app_version>\n    <app_name>seqapp</app_name>\n    <version_num>100</version_num>\n    <platform>x86_64-pc-linux-gnu</platform>\n    <avg_ncpus>1.000000</avg_ncpus>\n    <flops>{host_flops:.6}</flops>\n</app_version>");
    }
    for (_, _, name, deadline) in results {
        let _ = writeln!(
            x,
            "<workunit>\n    <name>{name}_wu</name>\n    <app_name>seqapp</app_name>\n    <version_num>100</version_num>\n    <rsc_fpops_est>{fpops:.6}</rsc_fpops_est>\n</workunit>\n<result>\n    <name>{name}</name>\n    <wu_name>{name}_wu</wu_name>\n    <platform>x86_64-pc-linux-gnu</platform>\n    <version_num>100</version_num>\n    <report_deadline>{deadline:.0}</report_deadline>\n</result>"
        );
    }
    let _ = writeln!(x, "</scheduler_reply>");
    x
}

/// Parses the transcripts back and runs the transcript rules over them:
/// (rule checks made, findings).
fn audit(transcripts: &[(String, String)]) -> (usize, Vec<String>) {
    let mut trace = Trace::default();
    let mut problems = Vec::new();
    for (path, text) in transcripts {
        let parsed = parse_sched_rpc(&SourcePath::from(path.as_str()), text.as_bytes());
        problems.extend(parsed.errors.iter().map(|e| format!("{path}: {e}")));
        trace.rpcs.push(parsed.value);
    }
    let audit = server::audit_transcripts(&trace);
    let is_rule =
        |kind: DecisionKind| matches!(kind, DecisionKind::SequenceRule | DecisionKind::ServerRule);
    let checked = audit.points.iter().filter(|p| is_rule(p.kind)).count();
    problems.extend(
        audit
            .divergences
            .iter()
            .filter(|d| is_rule(d.kind))
            .map(|d| format!("{} {}: {}", d.time_label, d.field, d.reason)),
    );
    (checked, problems)
}

/// The report as text for people.
pub fn render_table(report: &SequenceReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "work sequences on {} hosts: {} RPCs, {} transcript-rule checks (S1-S10, W1-W9), {} broken",
        report.scenario.hosts.len(),
        report.rpcs,
        report.rules_checked,
        report.rule_violations.len()
    );
    let _ = writeln!(s, "\nEvents");
    for e in &report.events {
        let hours = (e.time - START) / 3600.0;
        let host = e.host.map_or("-".to_string(), |h| format!("host {h}"));
        let _ = writeln!(
            s,
            "  {hours:>8.1} h  {:<6} {:<12} {:<8} {}",
            e.sequence, e.event, host, e.detail
        );
    }
    let _ = writeln!(s, "\nProgress");
    for (name, done, length) in &report.progress {
        let _ = writeln!(s, "  {name}: {done}/{length} results validated");
    }
    for v in &report.rule_violations {
        let _ = writeln!(s, "RULE BROKEN: {v}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_gives_hosts_speeds_and_failures() {
        let s = parse_sequence_scenario(
            "SEQ(24, 72, 8, n=2, ext=4) speeds=1,0.5 avail=0.9 fail=2@48",
            Some(3),
        )
        .unwrap();
        assert_eq!(
            (s.result_hours, s.deadline_hours, s.length),
            (24.0, 72.0, 8)
        );
        assert_eq!((s.n_sequences, s.extension), (2, 4));
        let speeds: Vec<f64> = s.hosts.iter().map(|h| h.speed).collect();
        assert_eq!(speeds, [1.0, 0.5, 0.5]);
        assert!(s.hosts.iter().all(|h| h.on_frac == 0.9));
        assert_eq!(s.hosts[1].fail_at, Some(START + 48.0 * 3600.0));
        assert_eq!(s.hosts[0].fail_at, None);
        for bad in [
            "SEQ(24, 72)",
            "SEQ(0, 72, 8)",
            "SEQ(24, 72, 8, m=1)",
            "SEQ(24, 72, 8) fail=2",
        ] {
            assert!(parse_sequence_scenario(bad, None).is_err(), "{bad}");
        }
    }

    /// A host that cannot finish a result within max_result_time
    /// (24 h × 1/0.25 = 96 h > 72 h) never gets the sequence (W2); the
    /// fast one does, and finishes it with its extension.
    #[test]
    fn a_too_slow_host_is_never_assigned() {
        let s = parse_sequence_scenario("SEQ(24, 72, 4, ext=2) speeds=0.25,1", Some(2)).unwrap();
        let mut rng = Rng::new(1);
        let report = simulate_sequences(&s, 20.0 * 86400.0, 600.0, &mut rng).unwrap();
        assert!(
            report.events.iter().all(|e| e.host != Some(1)),
            "{:?}",
            report.events
        );
        assert!(report.events.iter().any(|e| e.event == "extended"));
        assert_eq!(report.progress, [("seq1".to_string(), 6, 6)]);
        assert!(
            report.rule_violations.is_empty(),
            "{:?}",
            report.rule_violations
        );
    }
}

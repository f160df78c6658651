//! `--format chrome-trace`: the Chrome trace-event JSON (the format
//! Perfetto and chrome://tracing open) of an audit.
//!
//! Processes: 1 `recorded` and 2 `replayed`, one thread (track) per CPU or
//! GPU instance with a complete event (`ph: "X"`) per job run ([`Lanes`]);
//! 3 `decisions`, with instant events (`ph: "i"`) for work fetches on its
//! thread 1, scheduler RPCs on thread 2 and divergences on thread 3.
//! Timestamps are microseconds since the first decision (`otherData.t0`
//! gives that moment on the trace's own time base).
//!
//! Architecture Invariant: consumes a DivergenceReport and nothing else.

use super::lanes::Lanes;
use super::timeline::Side;
use crate::divergence::{DecisionKind, DivergenceReport};
use serde_json::{json, Value};
use std::io::Write;

/// The process of the decision markers.
const DECISIONS_PID: u32 = 3;
/// Its threads.
const FETCH_TID: u32 = 1;
const RPC_TID: u32 = 2;
const DIVERGENCE_TID: u32 = 3;

/// Writes `report` as a Chrome trace-event JSON object.
pub fn write_chrome_trace(
    report: &DivergenceReport,
    out: &mut dyn Write,
) -> Result<(), serde_json::Error> {
    serde_json::to_writer(out, &chrome_trace(report))
}

/// The trace-event JSON object of `report`.
pub fn chrome_trace(report: &DivergenceReport) -> Value {
    let lanes = Lanes::of(report);
    let t0 = if lanes.start.is_finite() {
        lanes.start
    } else {
        0.0
    };
    let us = |t: f64| ((t - t0) * 1e6).max(0.0).round();
    let mut events = Vec::new();
    let meta = |name: &str, pid: u32, tid: u32, value: Value| json!({"name": name, "ph": "M", "pid": pid, "tid": tid, "args": value});
    for (pid, name) in [
        (1, "recorded"),
        (2, "replayed"),
        (DECISIONS_PID, "decisions"),
    ] {
        events.push(meta("process_name", pid, 0, json!({"name": name})));
        events.push(meta(
            "process_sort_index",
            pid,
            0,
            json!({"sort_index": pid}),
        ));
    }
    for pid in [1, 2] {
        for (idx, lane) in lanes.lanes.iter().enumerate() {
            let tid = idx as u32 + 1;
            let mut label = lane.label();
            if lane.extra {
                label.push_str(" (extra)");
            }
            events.push(meta("thread_name", pid, tid, json!({"name": label})));
            events.push(meta(
                "thread_sort_index",
                pid,
                tid,
                json!({"sort_index": tid}),
            ));
        }
    }
    for (tid, name) in [
        (FETCH_TID, "work fetch"),
        (RPC_TID, "scheduler RPCs"),
        (DIVERGENCE_TID, "divergences"),
    ] {
        events.push(meta(
            "thread_name",
            DECISIONS_PID,
            tid,
            json!({"name": name}),
        ));
    }
    for bar in &lanes.bars {
        let pid = match bar.side {
            Side::Recorded => 1,
            Side::Replayed => 2,
        };
        events.push(json!({
            "name": bar.job,
            "cat": bar.project.as_deref().unwrap_or("job"),
            "ph": "X",
            "ts": us(bar.start),
            "dur": (us(bar.end) - us(bar.start)).max(0.0),
            "pid": pid,
            "tid": bar.lane as u32 + 1,
            "args": {"job": bar.job, "project": bar.project},
        }));
    }
    for point in &report.points {
        if !matches!(
            point.kind,
            DecisionKind::WorkFetchChoice | DecisionKind::WorkRequest
        ) {
            continue;
        }
        events.push(json!({
            "name": format!("{} {}", point.kind, point.project.as_deref().unwrap_or("-")),
            "cat": "work_fetch",
            "ph": "i",
            "s": "t",
            "ts": us(point.time),
            "pid": DECISIONS_PID,
            "tid": FETCH_TID,
            "args": {
                "time": point.time_label,
                "recorded": point.recorded,
                "replayed": point.replayed,
                "divergences": point.n_divergences,
                "checked": point.checked,
            },
        }));
    }
    for rpc in &report.activity.rpcs {
        events.push(json!({
            "name": format!("RPC to {}", rpc.project),
            "cat": "rpc",
            "ph": "i",
            "s": "t",
            "ts": us(rpc.time),
            "pid": DECISIONS_PID,
            "tid": RPC_TID,
            "args": {"time": rpc.time_label, "request": rpc.request, "received": rpc.received},
        }));
    }
    for (idx, divergence) in report.divergences.iter().enumerate() {
        events.push(json!({
            "name": format!("divergence {}: {}", divergence.kind, divergence.field),
            "cat": "divergence",
            "ph": "i",
            "s": "g",
            "ts": us(divergence.time),
            "pid": DECISIONS_PID,
            "tid": DIVERGENCE_TID,
            "args": {
                "index": idx,
                "time": divergence.time_label,
                "project": divergence.project,
                "resource": divergence.resource,
                "job": divergence.job,
                "recorded": divergence.recorded,
                "replayed": divergence.replayed,
                "reason": divergence.reason,
            },
        }));
    }
    json!({
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {
            "trace": report.trace,
            "policy": report.policy,
            "t0": t0,
            "agreement": report.agreement(),
        },
    })
}

/// The rules of the trace-event format (the Trace Event Format document of
/// the Chromium project) that `value` breaks, empty when none: a JSON
/// object with a `traceEvents` array; every event with a string `name`, a
/// known `ph`, integer `pid` and `tid`; a non-negative number `ts` on every
/// non-metadata event; a non-negative `dur` on complete events; an instant
/// event's scope `s` one of `g`, `p`, `t`; metadata events of a known name
/// with an `args` object.
pub fn format_violations(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(events) = value.get("traceEvents").and_then(Value::as_array) else {
        return vec!["no traceEvents array".to_string()];
    };
    for (i, event) in events.iter().enumerate() {
        let mut bad = |what: &str| out.push(format!("event {i}: {what}"));
        if !event.get("name").is_some_and(Value::is_string) {
            bad("name is not a string");
        }
        for id in ["pid", "tid"] {
            if !event.get(id).is_some_and(|v| v.is_u64() || v.is_i64()) {
                bad(&format!("{id} is not an integer"));
            }
        }
        let ph = event.get("ph").and_then(Value::as_str).unwrap_or("");
        let ts_ok = event
            .get("ts")
            .and_then(Value::as_f64)
            .is_some_and(|ts| ts >= 0.0 && ts.is_finite());
        match ph {
            "M" => {
                let name = event.get("name").and_then(Value::as_str).unwrap_or("");
                let known = [
                    "process_name",
                    "process_labels",
                    "process_sort_index",
                    "thread_name",
                    "thread_sort_index",
                ];
                if !known.contains(&name) {
                    bad("unknown metadata name");
                }
                if !event.get("args").is_some_and(Value::is_object) {
                    bad("metadata without an args object");
                }
            }
            "X" => {
                if !ts_ok {
                    bad("ts is not a non-negative number");
                }
                if !event
                    .get("dur")
                    .and_then(Value::as_f64)
                    .is_some_and(|d| d >= 0.0)
                {
                    bad("complete event without a non-negative dur");
                }
            }
            "i" | "I" => {
                if !ts_ok {
                    bad("ts is not a non-negative number");
                }
                let s = event.get("s").and_then(Value::as_str).unwrap_or("t");
                if !["g", "p", "t"].contains(&s) {
                    bad("instant event scope is not g, p or t");
                }
            }
            "B" | "E" | "C" | "b" | "e" | "n" | "s" | "t" | "f" | "P" | "O" | "N" | "D" => {
                if !ts_ok {
                    bad("ts is not a non-negative number");
                }
            }
            _ => bad("unknown phase"),
        }
        if let Some(args) = event.get("args") {
            if !args.is_object() {
                bad("args is not an object");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;

    #[test]
    fn sample_report_follows_the_format() {
        let value = chrome_trace(&sample_report());
        assert_eq!(format_violations(&value), Vec::<String>::new());
        let events = value["traceEvents"].as_array().map(Vec::len).unwrap_or(0);
        assert!(events > 6, "metadata and markers: {value}");
    }

    #[test]
    fn violations_are_found() {
        let bad = json!({"traceEvents": [
            {"name": "x", "ph": "X", "ts": 1, "pid": 1, "tid": 1},
            {"name": "y", "ph": "i", "s": "q", "ts": -1, "pid": 1, "tid": 1},
            {"name": 3, "ph": "Z", "pid": "1", "tid": 1},
        ]});
        assert_eq!(format_violations(&bad).len(), 6);
        assert_eq!(format_violations(&json!({})), ["no traceEvents array"]);
    }
}

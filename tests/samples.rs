//! Data-driven parse tests: one per `traces/samples/<case>/case.toml`.
//!
//! Each case folder holds inputs under BOINC's own file names and a
//! `case.toml` written by a person from the format specs, listing the typed
//! events (and state values) the inputs must parse into. Adding a case means
//! adding files; see traces/README.md for the contract.
//!
//! Besides the keys listed there, an `[[event]]` may give `internal_error`,
//! `from_server` (booleans, default false) and `priority` (the rendering's
//! message priority), and `none = ["field", ...]`: message fields that must
//! be absent (`None`), e.g. the reason of `can request work`.

use boinc_audit::parse::{self, LogOptions};
use boinc_audit::trace::LogEvent;
use serde_json::Value as Json;
mod common;

use std::path::Path;

fn run_case(case_toml: &Path) -> datatest_stable::Result<()> {
    let case_dir = case_toml.parent().ok_or("case.toml has no parent")?;
    let case: toml::Table = toml::from_str(&std::fs::read_to_string(case_toml)?)?;
    let inputs = common::case_inputs(case_dir)?;
    let mut events: Vec<LogEvent> = Vec::new();
    let outcome = parse::parse_paths(&inputs, &LogOptions::default(), &mut |event| {
        events.push(event.clone())
    });
    let mut failures = Vec::new();

    let expected_errors = case
        .get("errors")
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    let actual_errors: Vec<String> = outcome.errors.iter().map(|e| e.to_string()).collect();
    let expected_errors: Vec<String> = expected_errors
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    if actual_errors != expected_errors {
        failures.push(format!(
            "errors: expected {expected_errors:#?}\n   got {actual_errors:#?}"
        ));
    }
    if let Some(expected) = case.get("unrecognized").and_then(|v| v.as_integer()) {
        let actual = events.iter().filter(|e| e.is_unrecognized()).count() as i64;
        if actual != expected {
            let samples: Vec<String> = events
                .iter()
                .filter(|e| e.is_unrecognized())
                .take(5)
                .map(|e| format!("{}: {:?}", e.location, e.message))
                .collect();
            failures.push(format!(
                "unrecognized: expected {expected}, got {actual}: {samples:#?}"
            ));
        }
    }
    if let Some(expected) = case.get("events").and_then(|v| v.as_integer()) {
        if events.len() as i64 != expected {
            failures.push(format!("events: expected {expected}, got {}", events.len()));
        }
    }
    if let Some(meta) = case.get("meta").and_then(|v| v.as_table()) {
        let actual = serde_json::to_value(&outcome.trace.meta)?;
        check_fields("meta", &actual, meta, &mut failures);
    }
    for expect in case
        .get("event")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let Some(expect) = expect.as_table() else {
            continue;
        };
        check_event(expect, &events, &mut failures);
    }
    for expect in case
        .get("state")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let Some(expect) = expect.as_table() else {
            continue;
        };
        let pointer = expect.get("pointer").and_then(|v| v.as_str()).unwrap_or("");
        let trace_json = serde_json::to_value(&outcome.trace)?;
        match (trace_json.pointer(pointer), expect.get("value")) {
            (Some(actual), Some(want)) if json_matches(actual, &toml_to_json(want)) => {}
            (actual, want) => failures.push(format!(
                "state {pointer}: expected {want:?}, got {actual:?}"
            )),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}: {} mismatches\n{}",
            case_dir.display(),
            failures.len(),
            failures.join("\n")
        )
        .into())
    }
}

fn check_event(expect: &toml::Table, events: &[LogEvent], failures: &mut Vec<String>) {
    let line = expect.get("line").and_then(|v| v.as_integer()).unwrap_or(0);
    let file = expect.get("file").and_then(|v| v.as_str());
    let found = events.iter().find(|event| {
        i64::from(event.location.line) == line
            && file.is_none_or(|name| {
                event.location.path.ends_with(&format!("/{name}")) || &*event.location.path == name
            })
    });
    let Some(event) = found else {
        failures.push(format!("no event at {}:{line}", file.unwrap_or("*")));
        return;
    };
    let Ok(actual) = serde_json::to_value(event) else {
        failures.push(format!("line {line}: event does not serialize"));
        return;
    };
    let label = format!("line {line}");
    for (key, want) in expect {
        let got = match key.as_str() {
            "line" | "file" | "fields" | "none" => continue,
            "time" => actual.pointer("/time/value").cloned().unwrap_or(Json::Null),
            "time_base" => actual.pointer("/time/base").cloned().unwrap_or(Json::Null),
            "project" => actual.get("project").cloned().unwrap_or(Json::Null),
            "tag" => actual.get("tag").cloned().unwrap_or(Json::Null),
            "kind" => actual
                .pointer("/message/kind")
                .cloned()
                .unwrap_or(Json::Null),
            // Skipped when false / absent in the serialized event.
            "internal_error" | "from_server" => {
                actual.get(key).cloned().unwrap_or(Json::Bool(false))
            }
            "priority" => actual.get("priority").cloned().unwrap_or(Json::Null),
            other => {
                failures.push(format!("{label}: unknown expectation key {other:?}"));
                continue;
            }
        };
        let want = match (key.as_str(), want.as_str()) {
            // `project = ""` and `tag = ""` mean "none".
            ("project" | "tag", Some("")) => Json::Null,
            _ => toml_to_json(want),
        };
        if !json_matches(&got, &want) {
            failures.push(format!("{label}: {key}: expected {want}, got {got}"));
        }
    }
    let message = actual.get("message").cloned().unwrap_or(Json::Null);
    if let Some(fields) = expect.get("fields").and_then(|v| v.as_table()) {
        check_fields(&label, &message, fields, failures);
    }
    // `none = ["reason", ...]`: message fields that must be absent (None).
    for name in expect
        .get("none")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str())
    {
        let got = message.get(name).cloned().unwrap_or(Json::Null);
        if !got.is_null() {
            failures.push(format!("{label}: field {name}: expected none, got {got}"));
        }
    }
}

fn check_fields(label: &str, actual: &Json, fields: &toml::Table, failures: &mut Vec<String>) {
    for (key, want) in fields {
        let got = actual.get(key).cloned().unwrap_or(Json::Null);
        let want = toml_to_json(want);
        if !json_matches(&got, &want) {
            failures.push(format!("{label}: field {key}: expected {want}, got {got}"));
        }
    }
}

fn toml_to_json(value: &toml::Value) -> Json {
    serde_json::to_value(value).unwrap_or(Json::Null)
}

/// Equality where numbers compare by value (an integer 4 equals 4.0) and
/// expected objects/arrays are matched recursively (objects as subsets).
fn json_matches(actual: &Json, want: &Json) -> bool {
    match (actual, want) {
        (Json::Number(a), Json::Number(b)) => match (a.as_f64(), b.as_f64()) {
            (Some(a), Some(b)) => a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()),
            _ => false,
        },
        (Json::Object(a), Json::Object(b)) => b
            .iter()
            .all(|(key, want)| a.get(key).is_some_and(|got| json_matches(got, want))),
        (Json::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| json_matches(x, y))
        }
        _ => actual == want,
    }
}

datatest_stable::harness! {
    { test = run_case, root = "traces/samples", pattern = r"case\.toml$" },
}

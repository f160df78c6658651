//! The command line: exit codes and output formats.

use std::process::Command;

fn boinc_audit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_boinc-audit"))
}

#[test]
fn parse_json_contract_on_a_good_input() {
    let output = boinc_audit()
        .args([
            "parse",
            "traces/samples/client-state-root",
            "--format",
            "json",
        ])
        .output()
        .expect("run boinc-audit");
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("valid JSON");
    for key in [
        "files",
        "lines",
        "typed",
        "unrecognized",
        "unrecognized_by_tag",
        "errors",
    ] {
        assert!(json.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(json["errors"].as_array().map(Vec::len), Some(0));
    assert_eq!(json["files"][0]["kind"], "client_state");
}

#[test]
fn parse_error_exits_2_and_names_the_file() {
    let output = boinc_audit()
        .args(["parse", "traces/invalid/empty-file/stdoutdae.txt"])
        .output()
        .expect("run boinc-audit");
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("traces/invalid/empty-file/stdoutdae.txt: empty file"),
        "{stdout}"
    );
}

#[test]
fn missing_input_exits_2() {
    let output = boinc_audit()
        .args(["parse", "no/such/file.txt"])
        .output()
        .expect("run boinc-audit");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn usage_error_exits_2() {
    let output = boinc_audit()
        .args(["parse"])
        .output()
        .expect("run boinc-audit");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn policy_params_lists_keys_with_sections_and_applies_overrides() {
    let output = boinc_audit()
        .args([
            "policy",
            "params",
            "--format",
            "json",
            "--set",
            "rec_half_life_days=1",
        ])
        .output()
        .expect("run boinc-audit");
    assert_eq!(output.status.code(), Some(0));
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).expect("valid JSON");
    let rows = rows.as_array().expect("an array");
    let half_life = rows
        .iter()
        .find(|row| row["key"] == "rec_half_life_days")
        .expect("rec_half_life_days listed");
    assert_eq!(half_life["value"], "1");
    assert!(rows
        .iter()
        .all(|row| row["section"].as_str().is_some_and(|s| s.contains('§'))));
}

#[test]
fn unknown_policy_parameter_exits_2() {
    let output = boinc_audit()
        .args(["policy", "params", "--set", "no_such_key=1"])
        .output()
        .expect("run boinc-audit");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no_such_key"));
}

#[test]
fn audit_of_a_clean_transcript_pair_exits_0_with_server_rule_points() {
    let output = boinc_audit()
        .args(["audit", "traces/server/modern-clean", "--format", "json"])
        .output()
        .expect("run boinc-audit");
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("valid JSON");
    assert!(
        json["by_kind"]["server_rule"]["total"]
            .as_u64()
            .unwrap_or(0)
            > 0
    );
    assert_eq!(json["by_kind"]["server_rule"]["divergent"], 0);
    assert!(json["unchecked"]
        .as_array()
        .is_some_and(|items| !items.is_empty()));
}

#[test]
fn audit_of_a_broken_transcript_exits_1_naming_the_rule() {
    let output = boinc_audit()
        .args([
            "audit",
            "traces/server/s1-gpu-job-not-requested",
            "--format",
            "json",
        ])
        .output()
        .expect("run boinc-audit");
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("valid JSON");
    assert_eq!(json["first_divergence"]["kind"], "server_rule");
    assert_eq!(json["first_divergence"]["field"], "S1");
}

#[test]
fn audit_json_contract_on_the_default_trace() {
    let output = boinc_audit()
        .args(["audit", "traces/default", "--format", "json"])
        .output()
        .expect("run boinc-audit");
    assert!(matches!(output.status.code(), Some(0 | 1)));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("valid JSON");
    for key in [
        "trace",
        "policy",
        "decision_points",
        "divergent",
        "by_kind",
        "divergences",
        "first_divergence",
        "unchecked",
    ] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    assert!(json["decision_points"].is_u64() && json["divergent"].is_u64());
    let total: u64 = json["by_kind"]
        .as_object()
        .expect("object")
        .values()
        .filter_map(|v| v["total"].as_u64())
        .sum();
    assert_eq!(Some(total), json["decision_points"].as_u64());
}

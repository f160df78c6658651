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

/// Runs `boinc-audit ARGS`, checks the exit code and returns its JSON output.
/// The folders in `root`, sorted.
fn sorted_dirs(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn run_json(args: &[&str], want: &[i32]) -> serde_json::Value {
    let output = boinc_audit().args(args).output().unwrap();
    let code = output.status.code().unwrap_or(-1);
    assert!(
        want.contains(&code),
        "exit {code}, wanted {want:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on standard output")
}

#[test]
fn compare_of_a_trace_with_itself_exits_0() {
    let json = run_json(
        &[
            "compare",
            "traces/valid/cpu_two_projects_unequal_share",
            "--format",
            "json",
        ],
        &[0],
    );
    assert_eq!(json["mode"], "replay");
    assert!(json["compared"].as_u64().unwrap() > 100);
    assert_eq!(json["compared"], json["a"]["decision_points"]);
    assert_eq!(json["changed"].as_array().unwrap().len(), 0);
}

#[test]
fn compare_of_two_half_lives_lists_the_decisions_that_change() {
    let json = run_json(
        &[
            "compare",
            "traces/valid/cpu_two_projects_unequal_share",
            "--policy",
            "current",
            "--set-b",
            "rec_half_life_days=1",
            "--format",
            "json",
        ],
        &[1],
    );
    // Side A is today's policy, which agrees with this reference trace everywhere;
    // side B's REC decays ten times faster.
    assert_eq!(json["a"]["divergent"], 0);
    assert!(json["b"]["divergent"].as_u64().unwrap() > 0);
    let changed = json["changed"].as_array().unwrap();
    let first = &changed[0];
    // REC first moves at the first accounting step after a job ran (01:05:00).
    assert_eq!(first["kind"], "priority");
    assert_eq!(first["time_label"], "01:05:00");
    assert!(changed
        .iter()
        .all(|c| c["a_agrees"] == true && c["b_agrees"] == false));
    assert!(json["changed_by_kind"]["priority"].as_u64().unwrap() > 0);
}

#[test]
fn compare_of_a_seed_scenario_sets_figures_side_by_side() {
    // Seed "Work fetch and GPUs", Example 1 (acceptance-scenarios.md S-EX1):
    // the GPU goes 75 % to the GPU-only project A whatever the half-life.
    let json = run_json(
        &[
            "compare",
            "A(1, 168, .5, gpu=1) B(1, 168, .5, gpu=1, mixed) NCPUS=1 NGPUS=1",
            "--set-b",
            "rec_half_life_days=1",
            "--duration",
            "86400",
            "--format",
            "json",
        ],
        &[0, 1],
    );
    assert_eq!(json["mode"], "simulation");
    let usage = json["usage"].as_array().unwrap();
    let gpu_a = usage
        .iter()
        .find(|r| r["name"] == "usage A NVIDIA GPU")
        .unwrap();
    for side in ["a", "b"] {
        let fraction = gpu_a[side].as_f64().unwrap();
        assert!((0.70..=0.80).contains(&fraction), "{side}: {fraction}");
    }
    assert_eq!(json["figures_of_merit"].as_array().unwrap().len(), 5);
}

#[test]
fn compare_rejects_three_policies() {
    let output = boinc_audit()
        .args([
            "compare",
            "traces/default",
            "--policy",
            "current",
            "--policy",
            "current",
            "--policy",
            "current",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// Issue 7, acceptance 3: three hosts, the first fails for good at hour 60
/// while it holds results 3 and 4 of the only sequence (24-h results, 72-h
/// deadlines); once a deadline passes the sequence moves to another host,
/// from its first unvalidated result, and every exchange passes the server
/// and sequence rules — in the run's own audit and in `audit` of the
/// transcripts it wrote.
#[test]
fn simulate_hosts_relocates_a_sequence_after_a_missed_deadline() {
    let dir = std::env::temp_dir().join(format!("boinc-audit-seq-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let json = run_json(
        &[
            "simulate",
            "SEQ(24, 72, 8) speeds=1,0.8,0.6 fail=1@60",
            "--hosts",
            "3",
            "--duration",
            "1728000",
            "--delta",
            "600",
            "--format",
            "json",
            "--trace-out",
            dir.to_str().unwrap(),
        ],
        &[0],
    );
    let events = json["events"].as_array().unwrap();
    let find = |name: &str| events.iter().find(|e| e["event"] == name).cloned().unwrap();
    let (failed, revoked, relocated) = (find("host_failed"), find("revoked"), find("relocated"));
    assert_eq!(failed["host"], 1);
    assert_eq!(revoked["host"], 1);
    assert_ne!(relocated["host"], 1);
    // The first deadline of the failed host passes 72 h after its results
    // were sent, after the failure; relocation happens then, not before.
    let t = |e: &serde_json::Value| e["time"].as_f64().unwrap();
    assert!(t(&revoked) > t(&failed) && t(&relocated) == t(&revoked));
    assert!(t(&revoked) - t(&failed) <= 72.0 * 3600.0);
    assert!(events.iter().any(|e| e["event"] == "completed"));
    assert!(json["rules_checked"].as_u64().unwrap() > 1000);
    assert_eq!(json["rule_violations"].as_array().unwrap().len(), 0);
    let audit = run_json(&["audit", dir.to_str().unwrap(), "--format", "json"], &[0]);
    assert_eq!(audit["divergent"], 0);
    assert!(audit["by_kind"]["sequence_rule"]["total"].as_u64().unwrap() > 1000);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `simulate --trace-out DIR` on an emulator scenario writes its scheduler
/// RPCs as transcripts; `audit DIR` reads them and checks the scheduler
/// rules on every exchange (the seed scenario's simulated servers obey
/// them all). The RPC count is the emulator's for these three hours.
#[test]
fn simulate_trace_out_is_audited() {
    let dir = std::env::temp_dir().join(format!("boinc-audit-trace-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let json = run_json(
        &[
            "simulate",
            "traces/valid/seed_cpu_gpu_two_projects/inputs",
            "--duration",
            "10800",
            "--format",
            "json",
            "--trace-out",
            dir.to_str().unwrap(),
        ],
        &[0],
    );
    // The emulator's log: RPCs at 01:00 (A) and 01:05 (B) in the first
    // three hours.
    assert_eq!(json["rpcs"], 2);
    let folders = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(folders, 2);
    let audit = run_json(&["audit", dir.to_str().unwrap(), "--format", "json"], &[0]);
    assert_eq!(audit["divergent"], 0);
    assert_eq!(audit["by_kind"]["server_rule"]["total"], 20);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `simulate --policy auto` (the default) picks the generation from the
/// scenario and says why: the 6.10 emulator's inputs → ltd-6.6; today's
/// emulator inputs and seed notation → current.
#[test]
fn simulate_auto_policy_follows_the_scenario() {
    let run = |scenario: &str| {
        run_json(
            &[
                "simulate",
                scenario,
                "--duration",
                "3600",
                "--delta",
                "120",
                "--format",
                "json",
            ],
            &[0],
        )
    };
    let old = run("traces/valid-6.10.60/cpu_two_projects_unequal_share");
    assert_eq!(old["policy"], "ltd-6.6");
    assert!(old["policy_reason"]
        .as_str()
        .unwrap()
        .contains("sim_projects.xml"));
    let today = run("traces/valid/cpu_two_projects_unequal_share");
    assert_eq!(today["policy"], "current");
    let seed = run("P1(1, 10, .5) P2(1, 10, .5)");
    assert_eq!(seed["policy"], "current");
    let forced = run_json(
        &[
            "simulate",
            "traces/valid-6.10.60/cpu_two_projects_unequal_share",
            "--policy",
            "current",
            "--duration",
            "3600",
            "--format",
            "json",
        ],
        &[0],
    );
    assert_eq!(forced["policy"], "current");
    assert!(forced.get("policy_reason").is_none());
}

/// `bench simulate` on the trimmed scenarios (full inputs, the emulator's
/// results.txt): one row per scenario, each reproducing the emulator's
/// figures of merit.
#[test]
fn bench_simulate_reproduces_the_emulator_figures() {
    let output = boinc_audit()
        .args(["bench", "simulate", "traces/valid", "--runs", "1"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    let rows: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(rows.len(), 8, "{text}");
    for row in rows {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[4], "0.000000", "{row}");
    }
}

/// Without --duration/--delta, `simulate` on an emulator reference uses the
/// options its run was produced with (outputs/inputs.txt beside inputs/):
/// existing_jobs_only ran 129600 s at 300 s with servers sending nothing.
/// `--ignore-recorded-options` falls back to the plain defaults.
#[test]
fn simulate_uses_the_reference_run_options() {
    let json = run_json(
        &[
            "simulate",
            "traces/valid/existing_jobs_only/inputs",
            "--format",
            "json",
        ],
        &[0],
    );
    assert_eq!(json["duration"], 129600.0);
    assert_eq!(json["delta"], 300.0);
    assert_eq!(json["jobs"], 0);
    assert!(json["run_options_from"]
        .as_str()
        .unwrap()
        .ends_with("outputs/inputs.txt"));
    let plain = run_json(
        &[
            "simulate",
            "traces/valid/existing_jobs_only/inputs",
            "--ignore-recorded-options",
            "--format",
            "json",
        ],
        &[0],
    );
    assert_eq!(plain["duration"], 172800.0);
    assert!(plain["jobs"].as_u64().unwrap() > 0);
    assert!(plain.get("run_options_from").is_none());
}

#[test]
fn simulate_hosts_needs_sequence_notation() {
    let output = boinc_audit()
        .args(["simulate", "P1(1, 10, .5)", "--hosts", "3"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("SEQ("));
}

/// `simulate --window`: usage over part of the run. Seed example 2 (spec
/// S-EX2) under today's client: after A's one-year job, B has the CPU for
/// the first 0.8 H (B >= 0.95), and 2 H later the CPU is shared (0.5 +- 0.1).
#[test]
fn simulate_windows_report_usage_over_part_of_the_run() {
    let json = run_json(
        &[
            "simulate",
            "A(1, 240, .5, init=8760) B(1, 240, .5) NCPUS=1 min_buf=0.01 add_buf=0.1",
            "--duration",
            "34416000",
            "--delta",
            "600",
            "--window",
            "8760-8952",
            "--window",
            "9240-9560",
            "--format",
            "json",
        ],
        &[0],
    );
    let fraction = |w: usize, project: &str| {
        json["windows"][w]["usage"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["project"] == project && r["resource"] == "CPU")
            .unwrap()["fraction"]
            .as_f64()
            .unwrap()
    };
    assert!(fraction(0, "B") >= 0.95);
    assert!((fraction(1, "A") - 0.5).abs() <= 0.1);
    assert_eq!(json["windows"][1]["start_hours"], 9240.0);
}

/// Field excerpts (traces/field/<case>/: the log as posted, its source.txt
/// with the maintainers' verdict, and expect.toml: what the audit must say,
/// written from the verdict and the client's rules). Every case: the exit
/// status and divergence count of expect.toml, at least `checked_min`
/// checked points, each `unchecked_mentions` text in some "not checked"
/// reason (what input would decide the decision), each
/// `divergence_mentions` text in a divergence's reason, the `policy`, and
/// each `explain_mentions` text in `boinc-audit explain`. A CORRECT verdict
/// never diverges. Adding a case is adding a folder.
#[test]
fn field_excerpts_say_what_their_cases_expect() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/field");
    let mut seen = 0;
    let mut correct = 0;
    for dir in sorted_dirs(&root) {
        let name = dir.display().to_string();
        let source = std::fs::read_to_string(dir.join("source.txt")).expect("source.txt");
        let expect: toml::Table = std::fs::read_to_string(dir.join("expect.toml"))
            .unwrap_or_else(|_| panic!("{name}: expect.toml"))
            .parse()
            .unwrap_or_else(|e| panic!("{name}: expect.toml: {e}"));
        let int = |key: &str| expect.get(key).and_then(|v| v.as_integer());
        let texts = |key: &str| -> Vec<String> {
            expect
                .get(key)
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        seen += 1;
        let exit = int("exit").unwrap_or(0) as i32;
        let json = run_json(
            &["audit", dir.to_str().unwrap(), "--format", "json"],
            &[exit],
        );
        if let Some(divergent) = int("divergent") {
            assert_eq!(json["divergent"], divergent, "{name}");
        }
        let checked = json["checked"].as_u64().unwrap();
        assert!(
            checked >= int("checked_min").unwrap_or(0) as u64,
            "{name}: {checked} checked"
        );
        assert_eq!(
            checked + json["not_checked"].as_u64().unwrap(),
            json["decision_points"].as_u64().unwrap(),
            "{name}"
        );
        for kind in texts("checked_kinds") {
            let of_kind = &json["by_kind"][&kind];
            let total = of_kind["total"].as_u64().unwrap_or(0);
            let unchecked = of_kind["unchecked"].as_u64().unwrap_or(0);
            assert!(
                total > unchecked,
                "{name}: no {kind} decision checked ({total} recorded, {unchecked} not checked)"
            );
        }
        let verdict = source
            .lines()
            .find(|line| line.starts_with("Expected verdict"))
            .expect("an expected verdict");
        if verdict.contains("CORRECT") {
            correct += 1;
            assert_eq!(json["divergent"], 0, "{name}: judged CORRECT");
        }
        if let Some(policy) = expect.get("policy").and_then(|v| v.as_str()) {
            assert_eq!(json["policy"], policy, "{name}");
        }
        let whys: Vec<String> = json["unchecked"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| format!("{} {}", u["what"], u["why"]))
            .collect();
        // Every line a client wrote is typed (a case of text that is not
        // a client's says so with `unknown_lines = true`).
        if !expect
            .get("unknown_lines")
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
        {
            assert!(
                !whys.iter().any(|why| why.contains("of no known format")),
                "{name}: lines of no known format: {whys:#?}"
            );
        }
        for text in texts("unchecked_mentions") {
            assert!(
                whys.iter().any(|why| why.contains(&text)),
                "{name}: no \"not checked\" reason mentions {text:?}: {whys:#?}"
            );
        }
        let reasons: Vec<String> = json["divergences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["reason"].as_str().unwrap_or_default().to_string())
            .collect();
        for text in texts("divergence_mentions") {
            assert!(
                reasons.iter().any(|r| r.contains(&text)),
                "{name}: no divergence names {text:?}: {reasons:#?}"
            );
        }
        let mentions = texts("explain_mentions");
        if !mentions.is_empty() {
            let output = boinc_audit()
                .args(["explain", dir.to_str().unwrap()])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&output.stdout);
            for mention in mentions {
                assert!(
                    text.contains(&mention),
                    "{name}: explain lacks {mention:?}:\n{text}"
                );
            }
        }
    }
    assert!(seen >= 13, "{seen} field cases");
    assert!(correct >= 3, "{correct} CORRECT excerpts");
}

/// `explain` on the CORRECT vx-3drender excerpt, as JSON: per resource, why
/// no project was asked, with the recorded values.
#[test]
fn explain_says_per_resource_why_no_project_was_asked() {
    let json = run_json(
        &[
            "explain",
            "traces/field/vx-3drender-backoff-no-project-chosen",
            "--format",
            "json",
        ],
        &[0],
    );
    assert_eq!(json["choice"], "no project was chosen for work fetch");
    let resources = json["resources"].as_array().unwrap();
    let names: Vec<&str> = resources
        .iter()
        .map(|r| r["resource"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["CPU", "NVIDIA GPU", "Intel GPU"]);
    for r in resources {
        let why = r["projects"][0]["why"].as_str().unwrap();
        assert_eq!(r["projects"][0]["asked"], false);
        match r["resource"].as_str().unwrap() {
            "CPU" => assert!(why.contains("33257.53 s"), "{why}"),
            _ => assert!(why.contains("no applications"), "{why}"),
        }
    }
    let only_gpu = run_json(
        &[
            "explain",
            "traces/field/vx-3drender-backoff-no-project-chosen",
            "--resource",
            "intel",
            "--format",
            "json",
        ],
        &[0],
    );
    assert_eq!(only_gpu["resources"].as_array().unwrap().len(), 1);
    // No work-fetch pass at all: exit 1 and what is missing.
    let none = run_json(
        &[
            "explain",
            "traces/field/gh1615-b-too-big-for-ram-nothing-runs",
            "--format",
            "json",
        ],
        &[1],
    );
    assert!(none["missing"][0]
        .as_str()
        .unwrap()
        .contains("work_fetch_debug"));
}

/// A real data directory (client_state.xml copied after the log was
/// written, stdoutdae.txt, a scheduler RPC): no emulator file is needed,
/// the anchored replay is not run on wall-clock times, the log's own
/// work-fetch block is checked, and the report says why the rest is not.
#[test]
fn a_real_data_directory_is_audited_from_its_own_log() {
    let dir = std::env::temp_dir().join(format!("boinc-audit-datadir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in [
        "client_state.xml",
        "sched_request_milkyway.cs.rpi.edu_milkyway.xml",
        "sched_reply_milkyway.cs.rpi.edu_milkyway.xml",
    ] {
        std::fs::copy(
            root.join("traces/server/real-7.2.42-milkyway").join(file),
            dir.join(file),
        )
        .unwrap();
    }
    std::fs::copy(
        root.join(
            "traces/field/vx-3drender-backoff-no-project-chosen/\
             vx-3drender-backoff-no-project-chosen.log",
        ),
        dir.join("stdoutdae.txt"),
    )
    .unwrap();
    let json = run_json(&["audit", dir.to_str().unwrap(), "--format", "json"], &[0]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(json["divergent"], 0);
    let choice = &json["by_kind"]["work_fetch_choice"];
    assert!(choice["total"].as_u64().unwrap() > choice["unchecked"].as_u64().unwrap());
    assert!(json["by_kind"]["server_rule"]["total"].as_u64().unwrap() > 0);
    let whys = json["unchecked"].to_string();
    assert!(whys.contains("a real client's log"), "{whys}");
    assert!(!whys.contains("sim_projects"), "{whys}");
}

/// Real clients recorded by `boinc-audit lab` (traces/real/*: Debian's
/// boinc-client 7.20.5 against the lab's servers, trimmed data directories
/// with every scheduler exchange): the audit reads the release from the
/// log, checks run lists, work-fetch choices and work requests from the
/// log's own lines (at most `unchecked_max` of each left "not checked": ties
/// below the printed precision), recomputes every other kind of the
/// client's decisions (the simulation run again over the host the log
/// tells, priorities, enforcement, backoffs), agrees on at least
/// `agreement_min` of the checked points, and finds no server-rule
/// violation on the lab's transcripts. An edited run (`divergences` in its
/// expect.toml) shows exactly the divergences it names. Adding a case is
/// adding a folder with an expect.toml.
#[test]
fn real_client_runs_are_audited_from_their_own_lines() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/real");
    let mut entries: Vec<_> = std::fs::read_dir(&root)
        .expect("traces/real")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("expect.toml").exists())
        .collect();
    entries.sort();
    for dir in &entries {
        let name = dir.display().to_string();
        let expect: toml::Table = std::fs::read_to_string(dir.join("expect.toml"))
            .unwrap()
            .parse()
            .unwrap_or_else(|e| panic!("{name}: expect.toml: {e}"));
        let float = |key: &str| expect.get(key).and_then(|v| v.as_float());
        let int = |key: &str| expect.get(key).and_then(|v| v.as_integer()).unwrap_or(0);
        let json = run_json(
            &["audit", dir.to_str().unwrap(), "--format", "json"],
            &[0, 1],
        );
        assert_eq!(
            json["release"], "7.20.5",
            "{name}: {}",
            json["policy_reason"]
        );
        let agreement = json["agreement"].as_f64().unwrap();
        assert!(
            agreement >= float("agreement_min").unwrap_or(0.99),
            "{name}: agreement {agreement}: {:#?}",
            json["divergences"]
        );
        for kind in ["run_list", "work_fetch_choice", "work_request"] {
            let by = &json["by_kind"][kind];
            let total = by["total"].as_u64().unwrap_or(0);
            let unchecked = by["unchecked"].as_u64().unwrap_or(0);
            assert!(total > 0, "{name}: no {kind} points");
            assert!(
                unchecked as i64 <= int("unchecked_max"),
                "{name}: {unchecked} of {total} {kind} points not checked: {:#?}",
                json["unchecked"]
            );
        }
        // Every kind of the client's own decisions is recomputed, at least
        // `kind_checked_min` of each (0.9 unless said), and at most
        // `unchecked_share_max` of all points is left not checked (0.02).
        let kind_min = float("kind_checked_min").unwrap_or(0.9);
        for kind in [
            "rr_sim",
            "priority",
            "fetch_state",
            "run_list",
            "enforcement",
            "backoff",
            "work_fetch_choice",
            "work_request",
        ] {
            let by = &json["by_kind"][kind];
            let total = by["total"].as_u64().unwrap_or(0);
            let unchecked = by["unchecked"].as_u64().unwrap_or(0);
            if total > 0 {
                let checked = (total - unchecked) as f64 / total as f64;
                assert!(
                    checked >= kind_min,
                    "{name}: {kind}: {unchecked} of {total} not checked: {:#?}",
                    json["unchecked"]
                );
            }
        }
        // Per kind, the report says what each check rested on: every
        // checked point is under one basis, and a rr_sim check names the
        // engine's simulation, not the printed one.
        for (kind, by) in json["by_kind"].as_object().unwrap() {
            let checked = by["total"].as_u64().unwrap() - by["unchecked"].as_u64().unwrap();
            let said: u64 = json["rested_on"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["kind"] == kind.as_str())
                .map(|r| r["checked"].as_u64().unwrap())
                .sum();
            assert_eq!(said, checked, "{name}: {kind}: {:#?}", json["rested_on"]);
        }
        let rr_sim_basis = json["rested_on"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["kind"] == "rr_sim")
            .map(|r| r["basis"].as_str().unwrap().to_string())
            .unwrap_or_default();
        assert!(
            rr_sim_basis.contains("client loop's round-robin simulation"),
            "{name}: rr_sim rested on {rr_sim_basis:?}"
        );
        let points = json["decision_points"].as_u64().unwrap_or(0);
        let not_checked = json["not_checked"].as_u64().unwrap_or(0);
        assert!(points > 0, "{name}: no decision points");
        assert!(
            not_checked as f64 <= float("unchecked_share_max").unwrap_or(0.02) * points as f64,
            "{name}: {not_checked} of {points} points not checked: {:#?}",
            json["unchecked"]
        );
        if let Some(max) = expect.get("divergent_max").and_then(|v| v.as_integer()) {
            assert!(
                json["divergent"].as_i64().unwrap() <= max,
                "{name}: {:#?}",
                json["divergences"]
            );
        }
        // A number the replay knows to an interval diverges with that
        // interval shown and no relative tolerance; one compared by digits
        // names its tolerance.
        for d in json["divergences"].as_array().unwrap() {
            let numeric = d["recorded"].as_str().unwrap().parse::<f64>().is_ok();
            let interval = d["replayed"].as_str().unwrap().contains(" ± ");
            if numeric {
                assert_eq!(d["tolerance"].is_null(), interval, "{name}: {d:#?}");
            }
        }
        // An edited run names the divergences it must show (kind/field).
        if let Some(wanted) = expect.get("divergences").and_then(|v| v.as_array()) {
            let mut found: Vec<String> = json["divergences"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    format!(
                        "{}/{}",
                        d["kind"].as_str().unwrap(),
                        d["field"].as_str().unwrap()
                    )
                })
                .collect();
            found.sort();
            let mut wanted: Vec<String> = wanted
                .iter()
                .map(|w| w.as_str().unwrap().to_string())
                .collect();
            wanted.sort();
            assert_eq!(found, wanted, "{name}: {:#?}", json["divergences"]);
        }
        let server = &json["by_kind"]["server_rule"];
        assert!(
            server["total"].as_u64().unwrap_or(0) >= 3,
            "{name}: server rules"
        );
        assert_eq!(server["divergent"], 0, "{name}: server-rule violations");
    }
    assert!(entries.len() >= 3, "{} recorded real runs", entries.len());
}

/// `compare LABRUN` puts a lab run's real CPU use beside `simulate`'s. The
/// real side comes from the event log's task lines; the client's own job
/// log (one line per finished task with its elapsed time `et`, times the
/// CPUs its app version uses) bounds it: at least the finished tasks' time
/// (less a second per task for the log's whole-second stamps), at most
/// that plus one job length per CPU for the tasks still running when the
/// run stopped, and one more per CPU for each client restart (the lab app
/// does not checkpoint: a restarted task starts again from nothing, its
/// elapsed time with it, so the time it ran before the restart is in no
/// job-log line).
#[test]
fn lab_runs_compare_real_usage_with_simulate() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/real");
    let mut runs: Vec<_> = std::fs::read_dir(&root)
        .expect("traces/real")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("lab.txt").exists())
        .collect();
    runs.sort();
    assert!(runs.len() >= 3);
    for dir in runs {
        let name = dir.display().to_string();
        let json = run_json(
            &["compare", dir.to_str().unwrap(), "--format", "json"],
            &[0],
        );
        let ncpus = json["ncpus"].as_f64().unwrap();
        let restarts = std::fs::read_to_string(dir.join("lab.txt"))
            .unwrap()
            .matches("restart=")
            .count() as f64;
        let mut simulated = 0.0;
        let mut widest: f64 = 1.0;
        for row in json["projects"].as_array().unwrap() {
            let project = row["project"].as_str().unwrap();
            // CPUs per task (a multithread app version uses several): the
            // real side counts CPU-seconds, the job log elapsed seconds.
            let cpus = std::fs::read_dir(dir.join("projects"))
                .unwrap()
                .flatten()
                .find(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .ends_with(&format!("_{project}"))
                })
                .and_then(|e| std::fs::read_to_string(e.path().join("app_info.xml")).ok())
                .and_then(|text| {
                    let from = text.find("<avg_ncpus>")? + "<avg_ncpus>".len();
                    let to = from + text[from..].find('<')?;
                    text[from..to].trim().parse::<f64>().ok()
                })
                .unwrap_or(1.0);
            widest = widest.max(cpus);
            let (mut finished, mut tasks) = (0.0, 0.0);
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let file = entry.file_name().to_string_lossy().to_string();
                if file.starts_with("job_log_") && file.ends_with(&format!("_{project}.txt")) {
                    let text = std::fs::read_to_string(entry.path()).unwrap();
                    for line in text.lines() {
                        let words: Vec<&str> = line.split_whitespace().collect();
                        if let Some(k) = words.iter().position(|w| *w == "et") {
                            finished += words[k + 1].parse::<f64>().unwrap() * cpus;
                            tasks += 1.0;
                        }
                    }
                }
            }
            let real = row["real_cpu_secs"].as_f64().unwrap();
            assert!(
                real >= finished - tasks - 1.0
                    && real <= finished + (1.0 + restarts) * ncpus * 60.0 + tasks + 1.0,
                "{name}/{project}: {real} s from the log, {finished} s of finished tasks"
            );
            simulated += row["simulated_fraction"].as_f64().unwrap();
        }
        // The scan runs a job while fewer than NCPUS CPUs are committed:
        // a multithread job may take the host over by its CPUs less one.
        assert!(
            simulated > 0.0 && simulated <= (ncpus + widest - 1.0) / ncpus + 1e-9,
            "{name}: {simulated}"
        );
    }
}

/// A log line of no known format (a newer client's wording, a damaged line)
/// is kept, counted and named with its file and line in the audit's "not
/// checked" list; the decisions around it are audited as before.
#[test]
fn unknown_log_lines_are_counted_and_named() {
    let dir = std::env::temp_dir().join(format!("boinc-audit-unknown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("traces/field/vx-3drender-backoff-no-project-chosen")
            .join("vx-3drender-backoff-no-project-chosen.log"),
    )
    .unwrap();
    let mut lines: Vec<&str> = log.lines().collect();
    // The first line's frame (time and project columns), a body no client prints.
    let frame = lines[0]
        .split("[work_fetch]")
        .next()
        .unwrap_or("")
        .to_string();
    let odd = format!("{frame}[work_fetch] frobnicated the shortfall by 12.5");
    lines.insert(1, &odd);
    let path = dir.join("stdoutdae.txt");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let json = run_json(&["audit", path.to_str().unwrap(), "--format", "json"], &[0]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(json["divergent"], 0);
    let notes: Vec<String> = json["unchecked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["what"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("1 log line(s) of no known format")
                && n.contains("stdoutdae.txt:2")
                && n.contains("frobnicated")),
        "{notes:#?}"
    );
}

/// A scenario folder whose stated time step (outputs/inputs.txt) is not the
/// one its log was written with: the audit runs at the log's step, agrees,
/// and names the file that disagrees (exit 2, an input problem).
#[test]
fn a_stated_time_step_the_log_does_not_show_is_an_input_problem() {
    let from = std::path::Path::new("traces/valid-7.16.21/seed5002_cpu6_igpu_5proj");
    let dir = std::env::temp_dir().join(format!("boinc-audit-step-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).expect("make the folder");
        for entry in std::fs::read_dir(from).expect("read the trace") {
            let path = entry.expect("an entry").path();
            let target = to.join(path.file_name().expect("a name"));
            if path.is_dir() {
                copy(&path, &target);
            } else {
                std::fs::copy(&path, &target).expect("copy");
            }
        }
    }
    copy(from, &dir);
    let audit = |dir: &std::path::Path| {
        let output = boinc_audit()
            .args(["audit", dir.to_str().expect("utf-8"), "--format", "json"])
            .output()
            .expect("run boinc-audit");
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
        (output.status.code(), json)
    };
    // As written (Time step: 120): no problem.
    let (code, json) = audit(&dir);
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(json["input_errors"], serde_json::json!([]));
    let inputs_txt = dir.join("outputs/inputs.txt");
    let text = std::fs::read_to_string(&inputs_txt).expect("inputs.txt");
    assert!(text.contains("Time step: 120.000000"), "{text}");
    std::fs::write(
        &inputs_txt,
        text.replace("Time step: 120.000000", "Time step: 300.000000"),
    )
    .expect("write");
    let (code, json) = audit(&dir);
    assert_eq!(code, Some(2), "{json}");
    assert_eq!(json["divergent"], 0, "{json}");
    let problems = json["input_errors"].as_array().expect("a list");
    assert_eq!(problems.len(), 1, "{problems:?}");
    let problem = problems[0].as_str().expect("text");
    assert!(
        problem.contains("inputs.txt states a time step of 300 s")
            && problem.contains("the log's own step is 120 s"),
        "{problem}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Per decision, the CSV says what the check rested on: a real run's
/// work-fetch requests made on the client loop's CPU figures carry the
/// intervals the record leaves them (the FLOPS printed to two digits, the
/// 1-s stamps), and a point not checked has no basis.
#[test]
fn audit_csv_gives_each_points_basis_with_its_intervals() {
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/real/mt-edf-tie");
    let out = boinc_audit()
        .args(["audit", trace, "--format", "csv"])
        .output()
        .expect("run boinc-audit");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    assert!(header.ends_with(",line,basis"), "{header}");
    let (mut looped, mut checked, mut initial) = (0, 0, 0);
    for line in lines {
        let is_checked = line.contains(",true,true,") || line.contains(",false,true,");
        let basis = line.rsplit(",\"").next().unwrap_or_default();
        if is_checked {
            checked += 1;
            assert!(
                !line.ends_with(','),
                "a checked point without basis: {line}"
            );
        }
        // A project's initialization RPC asks for 1 s whatever the
        // figures say: it never rests on the loop's.
        if basis.contains("initialization RPC asks for 1 s") {
            assert!(!basis.contains("client loop"), "{line}");
            initial += 1;
        }
        if line.contains(",work_request,") && basis.contains("with the client loop's CPU figures") {
            assert!(basis.contains("shortfall ± "), "{line}");
            looped += 1;
        }
    }
    assert!(checked > 400, "{checked} checked points");
    assert!(looped > 5, "{looped} requests on the loop's figures");
    assert_eq!(initial, 2, "one initialization RPC per project (M, S)");
}

/// Release 6.6.41's emulator runs (`traces/valid-6.6.41`, its own output):
/// every work-fetch state block's figures follow from the simulation
/// printed before it, each job on the harness's one-CPU app version, and
/// a busy time that sums every deadline miss (6.6), 0 without one. Each
/// block is checked against the emulator's printed figures, none diverges.
/// A pass that chooses no project is decided where the printed runnable
/// share leaves no project out (6.6's starved pair then has no candidate).
#[test]
fn emulator_6_6_41_state_blocks_follow_from_their_simulations() {
    let runs = sorted_dirs(std::path::Path::new("traces/valid-6.6.41"));
    assert!(runs.len() >= 2, "{runs:?}");
    for run in runs {
        let json = run_json(&["audit", run.to_str().unwrap(), "--format", "json"], &[0]);
        assert_eq!(
            json["divergent"],
            0,
            "{}: {:#?}",
            run.display(),
            json["divergences"]
        );
        let blocks = &json["by_kind"]["fetch_state"];
        let total = blocks["total"].as_u64().unwrap_or(0);
        assert!(total >= 50, "{}: {total} state blocks", run.display());
        assert_eq!(blocks["unchecked"], 0, "{}", run.display());
        let choices = &json["by_kind"]["work_fetch_choice"];
        let (total, open) = (
            choices["total"].as_u64().unwrap_or(0),
            choices["unchecked"].as_u64().unwrap_or(u64::MAX),
        );
        assert!(
            total >= 50 && open * 20 <= total,
            "{}: {open} of {total} choices not checked",
            run.display()
        );
        assert!(
            json["policy_reason"]
                .as_str()
                .is_some_and(|r| r.contains("6.6-6.8")),
            "{}: {}",
            run.display(),
            json["policy_reason"]
        );
    }
}

//! The volunteer's path.
//! - `bundle`: a real client's data directory with planted secrets is
//!   packed; no secret is left in any byte of the bundle, what must never go
//!   is left out, and `audit BUNDLE.tar.gz` equals `audit DIR` point for
//!   point.
//! - `flags --cc-config`: the flags merged into a cc_config.xml that keeps
//!   every other option.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_boinc-audit"))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

fn replace_in(path: &Path, pairs: &[(&str, &str)]) {
    let mut text = std::fs::read_to_string(path).unwrap();
    for (from, to) in pairs {
        assert!(text.contains(from), "{}: no {from:?}", path.display());
        text = text.replace(from, to);
    }
    std::fs::write(path, text).unwrap();
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("boinc-audit-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The audit's points as CSV rows, with the inputs' own paths (which
/// differ between the directory and the bundle) taken out.
fn points(target: &Path, prefixes: &[String]) -> Vec<String> {
    let out = bin()
        .args(["audit", target.to_str().unwrap(), "--format", "csv"])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}: {}",
        target.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut text = String::from_utf8(out.stdout).unwrap();
    for prefix in prefixes {
        text = text.replace(prefix.as_str(), "");
    }
    text.lines().map(str::to_string).collect()
}

const SECRETS: &[&str] = &[
    "alice",
    "Alice Volunteer",
    "Team Secret",
    "5f4dcc3b5aa765d61d8327deb882cf99",
    "ext0123456789abcdef",
    "xp0123456789abcdef",
    "31337",
    "deadbeefcafe0123456789abcdef0001",
    "203.0.113.77",
    "9f25328146f88ae846d523232a9b7c5e",
    "hunter2-password",
    "lab_p1",
];

#[test]
fn a_bundle_holds_no_secret_and_audits_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = scratch("bundle");
    let dir = work.join("data");
    copy_dir(&root.join("traces/real/noack"), &dir);
    replace_in(
        &dir.join("client_state.xml"),
        &[
            (
                "<domain_name>vm</domain_name>",
                "<domain_name>alice-desktop.example.org</domain_name>",
            ),
            (
                "<ip_addr>127.0.0.1</ip_addr>",
                "<ip_addr>203.0.113.77</ip_addr>",
            ),
            (
                "<user_name></user_name>",
                "<user_name>Alice Volunteer</user_name>",
            ),
            (
                "<team_name></team_name>",
                "<team_name>Team Secret</team_name>",
            ),
            (
                "<email_hash></email_hash>",
                "<email_hash>5f4dcc3b5aa765d61d8327deb882cf99</email_hash>",
            ),
            (
                "<external_cpid></external_cpid>",
                "<external_cpid>ext0123456789abcdef</external_cpid>",
            ),
            (
                "<cross_project_id></cross_project_id>",
                "<cross_project_id>xp0123456789abcdef</cross_project_id>",
            ),
            ("<userid>0</userid>", "<userid>31337</userid>"),
        ],
    );
    let request = dir.join("rpcs/rpc-00001/sched_request_127.0.0.1_45845_P1.xml");
    replace_in(
        &request,
        &[(
            "<authenticator>lab_p1</authenticator>",
            "<authenticator>deadbeefcafe0123456789abcdef0001</authenticator>",
        )],
    );
    std::fs::write(dir.join("gui_rpc_auth.cfg"), "hunter2-password\n").unwrap();
    std::fs::create_dir_all(dir.join("slots/0")).unwrap();
    std::fs::write(
        dir.join("slots/0/init_data.xml"),
        "<authenticator>lab_p1</authenticator>",
    )
    .unwrap();
    // The log, plain, with the host's name and a home folder in it.
    let mut log = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(dir.join("stdoutdae.txt.gz")).unwrap())
        .read_to_string(&mut log)
        .unwrap();
    std::fs::remove_file(dir.join("stdoutdae.txt.gz")).unwrap();
    let log = log
        .replace(
            "Data directory: /tmp/lab/noack",
            "Data directory: /home/alice/boinc-data",
        )
        .replace("Host name: vm", "Host name: alice-desktop.example.org");
    assert!(log.contains("/home/alice/boinc-data"));
    std::fs::write(dir.join("stdoutdae.txt"), log).unwrap();

    let bundle = work.join("bundle.tar.gz");
    let out = bin()
        .args([
            "bundle",
            dir.to_str().unwrap(),
            "--out",
            bundle.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for expected in [
        "authenticator",
        "host name",
        "IP address",
        "gui_rpc_auth.cfg",
        "slots/",
        "account_",
    ] {
        assert!(
            said.contains(expected),
            "the summary names {expected}: {said}"
        );
    }
    // Every byte of the bundle, names included.
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&bundle).unwrap())
        .read_to_end(&mut tar)
        .unwrap();
    let tar_text = String::from_utf8_lossy(&tar);
    let dir_text = dir.display().to_string();
    for secret in SECRETS.iter().copied().chain([dir_text.as_str()]) {
        assert!(!tar_text.contains(secret), "{secret:?} is in the bundle");
    }
    for file in [
        "client_state.xml",
        "stdoutdae.txt",
        "cc_config.xml",
        "job_log_127.0.0.1_45845_P1.txt",
    ] {
        assert!(
            tar_text.contains(&format!("bundle/{file}")),
            "{file} packed"
        );
    }
    // A second bundle is refused without --force.
    let again = bin()
        .args([
            "bundle",
            dir.to_str().unwrap(),
            "--out",
            bundle.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));

    let prefixes = [
        format!("{}/", dir.display()),
        format!("{}/", bundle.display()),
    ];
    let from_dir = points(&dir, &prefixes);
    let from_bundle = points(&bundle, &prefixes);
    assert!(from_dir.len() > 100, "{} points", from_dir.len());
    let differ: Vec<(&String, &String)> = from_dir
        .iter()
        .zip(&from_bundle)
        .filter(|(a, b)| a != b)
        .take(3)
        .collect();
    assert!(differ.is_empty(), "{differ:#?}");
    assert_eq!(from_dir.len(), from_bundle.len());
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn flags_are_merged_into_a_cc_config_that_keeps_its_options() {
    let work = scratch("flags");
    let path = work.join("cc_config.xml");
    let mine = "<cc_config>\n  <log_flags>\n    <file_xfer>0</file_xfer>\n    \
                <work_fetch_debug>0</work_fetch_debug>\n  </log_flags>\n  <options>\n    \
                <ncpus>3</ncpus>\n    <use_all_gpus>1</use_all_gpus>\n    \
                <max_stdout_file_size>1000000</max_stdout_file_size>\n  </options>\n</cc_config>\n";
    std::fs::write(&path, mine).unwrap();
    let out = bin()
        .args([
            "flags",
            "--client-version",
            "7.20.5",
            "--cc-config",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("boinccmd --read_cc_config"), "{said}");
    assert!(said.contains("MB of log per hour"), "{said}");
    // The user's own file is untouched; the new one is beside it.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), mine);
    let new = std::fs::read_to_string(work.join("cc_config.xml.new")).unwrap();
    for kept in [
        "<file_xfer>0</file_xfer>",
        "<ncpus>3</ncpus>",
        "<use_all_gpus>1</use_all_gpus>",
        "<max_stdout_file_size>1000000</max_stdout_file_size>",
    ] {
        assert!(new.contains(kept), "{kept} kept: {new}");
    }
    for flag in [
        "work_fetch_debug",
        "rr_simulation",
        "cpu_sched_debug",
        "priority_debug",
    ] {
        assert!(
            new.contains(&format!("<{flag}>1</{flag}>")),
            "{flag}: {new}"
        );
    }
    // The audit reads the merged file's flags and options.
    let parsed = bin()
        .args([
            "parse",
            work.join("cc_config.xml.new").to_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        parsed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    let _ = std::fs::remove_dir_all(&work);
}

/// A 7.20 client's debug flags and the tags of the lines each prints.
const FLAG_TAGS: &[(&str, &[&str])] = &[
    ("task_debug", &["task", "task_debug"]),
    ("cpu_sched", &["cpu_sched"]),
    ("cpu_sched_debug", &["cpu_sched_debug"]),
    ("cpu_sched_status", &["css"]),
    ("priority_debug", &["prio"]),
    ("rr_simulation", &["rr_sim"]),
    ("rrsim_detail", &["rr_sim_detail", "rrsim_detail"]),
    ("sched_op_debug", &["sched_op"]),
    ("work_fetch_debug", &["work_fetch"]),
];

/// `log` as the same client would have written it without the debug flags
/// of `dropped`: their lines (by tag) gone, and the flags out of its
/// `log flags:` lines.
fn without_flags(log: &str, dropped: &[&str]) -> String {
    let tags: Vec<String> = FLAG_TAGS
        .iter()
        .filter(|(flag, _)| dropped.contains(flag))
        .flat_map(|(_, tags)| tags.iter().map(|t| format!("] [{t}] ")))
        .collect();
    let mut out = String::with_capacity(log.len());
    for line in log.lines() {
        if tags.iter().any(|t| line.contains(t.as_str())) {
            continue;
        }
        match line.split_once("log flags: ") {
            Some((head, flags)) => {
                let kept: Vec<&str> = flags
                    .split(", ")
                    .filter(|f| !dropped.contains(&f.trim()))
                    .collect();
                out.push_str(head);
                out.push_str("log flags: ");
                out.push_str(&kept.join(", "));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// A volunteer's log rarely has every debug flag on, and is often a piece.
/// Each real run of traces/real (not the edited ones), its log cut to what
/// the client writes without one debug flag, without all of them, or with
/// work_fetch_debug alone, or its head or tail cut off mid-pass, is
/// audited: a decision its missing lines leave unknown is "not checked",
/// never a divergence. Without task_debug (off by default), the data
/// directory tells what its lines would: no more points are left unchecked
/// than the whole log leaves (expect.toml's `unchecked_max`). Adding a run
/// is adding a folder to traces/real.
#[test]
fn a_log_with_fewer_flags_never_diverges_for_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/real");
    let mut runs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("expect.toml").exists())
        .filter(|p| !p.to_string_lossy().ends_with("-edited"))
        .collect();
    runs.sort();
    let all: Vec<&str> = FLAG_TAGS.iter().map(|(flag, _)| *flag).collect();
    let mut variants: Vec<(String, Vec<&str>)> = all
        .iter()
        .map(|flag| (format!("without {flag}"), vec![*flag]))
        .collect();
    variants.push(("with no debug flag".into(), all.clone()));
    variants.push((
        "with work_fetch_debug alone".into(),
        all.iter()
            .copied()
            .filter(|f| *f != "work_fetch_debug")
            .collect(),
    ));
    let scratch = scratch("fewer-flags");
    std::thread::scope(|scope| {
        for run in &runs {
            let (variants, scratch) = (&variants, &scratch);
            scope.spawn(move || {
                let name = run.file_name().unwrap().to_string_lossy().to_string();
                let expect: toml::Table = std::fs::read_to_string(run.join("expect.toml"))
                    .unwrap()
                    .parse()
                    .unwrap();
                let unchecked_max = expect["unchecked_max"].as_integer().unwrap() as u64;
                let mut log = String::new();
                flate2::read::GzDecoder::new(
                    std::fs::File::open(run.join("stdoutdae.txt.gz")).unwrap(),
                )
                .read_to_string(&mut log)
                .unwrap();
                // What a volunteer posts is often a piece: the log's
                // head or its tail cut off, mid-pass.
                let lines: Vec<&str> = log.lines().collect();
                let from = |percent: usize| lines[lines.len() * percent / 100..].join("\n");
                let upto = |percent: usize| lines[..lines.len() * percent / 100].join("\n");
                let texts = variants
                    .iter()
                    .map(|(what, dropped)| (what.clone(), without_flags(&log, dropped)))
                    .chain([33, 73].map(|p| (format!("from {p}% on"), from(p))))
                    .chain([47].map(|p| (format!("up to {p}%"), upto(p))));
                for (k, (what, text)) in texts.enumerate() {
                    let dir = scratch.join(format!("{name}-{k}"));
                    copy_dir(run, &dir);
                    std::fs::remove_file(dir.join("stdoutdae.txt.gz")).unwrap();
                    std::fs::write(dir.join("stdoutdae.txt"), text).unwrap();
                    let out = bin()
                        .args(["audit", dir.to_str().unwrap(), "--format", "json"])
                        .output()
                        .unwrap();
                    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
                        .unwrap_or_else(|e| panic!("{name} {what}: {e}"));
                    assert_eq!(
                        json["divergent"], 0,
                        "{name} {what}: {:#?}",
                        json["divergences"]
                    );
                    assert!(
                        json["decision_points"].as_u64().unwrap() > 0,
                        "{name} {what}"
                    );
                    if what == "without task_debug" {
                        let unchecked = json["not_checked"].as_u64().unwrap();
                        assert!(
                            unchecked <= unchecked_max,
                            "{name} {what}: {unchecked} not checked"
                        );
                    }
                    let _ = std::fs::remove_dir_all(&dir);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&scratch);
}

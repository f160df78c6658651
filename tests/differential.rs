//! The differential test of the one client loop: `boinc-audit scenario
//! random` writes emulator inputs for seeds 1..=N (N = 200, or
//! `BOINC_AUDIT_DIFFERENTIAL_SEEDS`; and, under the 7.0–7.2 rules, seeds
//! 1001.. (40, or `BOINC_AUDIT_DIFFERENTIAL_SEEDS_7_2`), `simulate --outputs-dir` runs each
//! with the scenario's own emulator options and writes the emulator's
//! log.txt, inputs.txt and timeline.html, and `audit` replays that log. The
//! simulation and the replay are the same loop with two worlds (simulated
//! servers and host; the recording), so every decision point must agree.
//!
//! The logs themselves are checked against the real emulator elsewhere
//! (`tests/log_out.rs`, `.ci/check-log-out`); here a failure prints the
//! seed and its first divergence and keeps the scenario folder: copy it
//! under `traces/` (with the real emulator's outputs) as a case.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Removes the scenarios' folder however the test ends, unless told to keep it.
struct Cleanup {
    root: PathBuf,
    keep: bool,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_boinc-audit")
}

fn seeds() -> u64 {
    std::env::var("BOINC_AUDIT_DIFFERENTIAL_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

/// One scenario: simulate, audit (both under `policy` if given); `Err`
/// says what failed.
fn check(dir: &Path, options: &str, policy: Option<&str>) -> Result<(), String> {
    let mut args = vec![
        "simulate".to_string(),
        dir.join("inputs").display().to_string(),
    ];
    args.extend(options.split_whitespace().map(String::from));
    let policy_args: Vec<&str> = policy.map_or(Vec::new(), |p| vec!["--policy", p]);
    args.extend(policy_args.iter().map(|a| a.to_string()));
    args.push("--outputs-dir".into());
    args.push(dir.join("outputs").display().to_string());
    let simulated = Command::new(bin())
        .args(&args)
        .output()
        .map_err(|e| e.to_string())?;
    if !simulated.status.success() {
        return Err(format!(
            "simulate failed: {}",
            String::from_utf8_lossy(&simulated.stderr)
        ));
    }
    let audited = Command::new(bin())
        .args(["audit", &dir.display().to_string(), "--format", "json"])
        .args(&policy_args)
        .output()
        .map_err(|e| e.to_string())?;
    let report: serde_json::Value = serde_json::from_slice(&audited.stdout).map_err(|e| {
        format!(
            "audit printed no report ({e}): {}",
            String::from_utf8_lossy(&audited.stderr)
        )
    })?;
    let points = report["decision_points"].as_u64().unwrap_or(0);
    let divergent = report["divergent"].as_u64().unwrap_or(u64::MAX);
    let unchecked = report["not_checked"].as_u64().unwrap_or(0);
    if points == 0 || divergent != 0 || unchecked != 0 {
        return Err(format!(
            "{points} decision points, {divergent} divergent, {unchecked} not checked; first divergence: {}",
            report["first_divergence"]
        ));
    }
    Ok(())
}

#[test]
fn simulated_logs_audit_at_one_hundred_percent() {
    run(1, seeds(), None);
}

/// The same under the 7.0–7.2 rules (`--policy 7.2.42` for both): seeds
/// 1001.. (`BOINC_AUDIT_DIFFERENTIAL_SEEDS_7_2`, default 40).
#[test]
fn simulated_7_2_logs_audit_at_one_hundred_percent() {
    let n = std::env::var("BOINC_AUDIT_DIFFERENTIAL_SEEDS_7_2")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    run(1001, n, Some("7.2.42"));
}

/// Seeds `first..first + n`: each simulated, logged and audited.
fn run(first: u64, n: u64, policy: Option<&str>) {
    let root: PathBuf = std::env::temp_dir().join(format!(
        "boinc-audit-differential-{}-{first}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&root);
    let mut guard = Cleanup {
        root: root.clone(),
        keep: false,
    };
    let listed = Command::new(bin())
        .args([
            "scenario",
            "random",
            "--seed",
            &first.to_string(),
            "--count",
            &n.to_string(),
            "--out",
        ])
        .arg(&root)
        .output()
        .expect("scenario random runs");
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let scenarios: Vec<(PathBuf, String)> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|line| {
            let (dir, options) = line.split_once('\t')?;
            Some((PathBuf::from(dir), options.to_string()))
        })
        .collect();
    assert_eq!(scenarios.len() as u64, n);
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((dir, options)) = scenarios.get(i) else {
                    break;
                };
                match check(dir, options, policy) {
                    // The logs are large: keep only the failing folders.
                    Ok(()) => {
                        let _ = std::fs::remove_dir_all(dir);
                    }
                    Err(why) => failures
                        .lock()
                        .unwrap()
                        .push(format!("{} ({options}): {why}", dir.display())),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    // Keep the failing folders for inspection.
    guard.keep = !failures.is_empty();
    assert!(
        failures.is_empty(),
        "{} of {n} seeds below 100% (folders kept):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

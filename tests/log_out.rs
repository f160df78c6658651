//! `simulate --log-out` writes the client emulator's log.txt line for line.
//!
//! Every trimmed copy of a reference under `traces/valid*/` (today's client,
//! generated scenarios, releases 8.0.4, 7.24.1, 7.20.5, 7.16.21, 7.6.7, 7.4.42
//! and 7.2.42) is simulated up to the last instant its log shows and the written
//! log must equal that log byte for byte.
//! The expected bytes are the real emulator's, never ours.
//!
//! A case whose emulator broke a tie by object address after the heap had
//! reused freed memory (`more_important`'s last tie-breaker, which no model
//! of the client knows) says so in `outputs/log-out-differs.txt`: the first
//! line number that may differ, then the reason. Everything before that line
//! must still be identical, and the line must actually differ (a stale
//! exception fails the test). `.ci/check-log-out` does the same on the full
//! shared references.

mod common;
use boinc_audit::simulate::{simulate_scenario_logged, LogOut, SimOptions};
use std::path::{Path, PathBuf};

const START: u64 = 3600;

fn cases() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for folder in [
        "traces/valid",
        "traces/valid-gen",
        "traces/valid-7.20.5",
        "traces/valid-7.16.21",
        "traces/valid-8.0.4",
        "traces/valid-7.2.42",
        "traces/valid-7.4.42-gen",
        "traces/valid-7.6.7-gen",
        "traces/valid-7.24.1-gen",
    ] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
        if let Ok(entries) = std::fs::read_dir(root) {
            dirs.extend(
                entries.flatten().map(|e| e.path()).filter(|p| {
                    p.join("inputs").is_dir() && p.join("outputs/inputs.txt").is_file()
                }),
            );
        }
    }
    dirs.sort();
    dirs
}

/// The release a case's emulator ran: the one its client_state.xml names,
/// else 7.2.42 for the copies of that emulator's references (whose inputs,
/// today's emulator's, name none).
fn release_of(dir: &Path) -> Option<boinc_audit::policy::profile::Release> {
    let named = boinc_audit::simulate::scenario::auto_policy(dir.to_str().unwrap()).2;
    let copy_of_7_2_42 = dir
        .parent()
        .is_some_and(|p| p.ends_with("traces/valid-7.2.42"));
    named.or(copy_of_7_2_42.then_some(boinc_audit::policy::profile::Release(7, 2, 42)))
}

/// Seconds of an emulator time stamp (`HH:MM:SS`, `N day(s) HH:MM:SS`).
fn stamp_secs(line: &str) -> u64 {
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or("");
    let (days, clock) = if first.contains(':') {
        (0, first)
    } else {
        let days: u64 = first.parse().unwrap_or(0);
        words.next();
        (days, words.next().unwrap_or(""))
    };
    let parts: Vec<u64> = clock.split(':').map(|x| x.parse().unwrap_or(0)).collect();
    assert_eq!(parts.len(), 3, "time stamp of {line:?}");
    days * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]
}

fn value_after(text: &str, label: &str) -> f64 {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {label:?} in {text}"))
}

/// The declared first differing line (1-based), if the case has one.
fn declared_difference(dir: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(dir.join("outputs/log-out-differs.txt")).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

#[test]
fn log_out_is_the_emulators_log_line_for_line() {
    let cases = cases();
    assert!(cases.len() >= 30, "trimmed references: {cases:?}");
    let mut failures = Vec::new();
    let mut identical = 0;
    for dir in &cases {
        let expected = common::read_reference_log(dir);
        let last = expected.lines().last().map(stamp_secs).unwrap_or(START);
        let inputs = std::fs::read_to_string(dir.join("outputs/inputs.txt")).unwrap();
        let release = release_of(dir);
        let options = SimOptions {
            duration: (last - START) as f64,
            delta: value_after(&inputs, "Time step:"),
            existing_jobs_only: inputs.contains("Existing jobs only: yes"),
            release,
            ..SimOptions::default()
        };
        let mut written = Vec::new();
        let out = LogOut {
            log: &mut written,
            timeline: None,
            inputs: None,
        };
        simulate_scenario_logged(dir.to_str().unwrap(), &options, Some(out))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let written = String::from_utf8(written).unwrap();
        let first_difference = written
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .or_else(|| {
                (written.lines().count() != expected.lines().count())
                    .then(|| written.lines().count().min(expected.lines().count()))
            })
            .map(|i| i + 1);
        // Byte for byte: line endings and the final newline included.
        let first_difference = if first_difference.is_none() && written != expected {
            Some(expected.lines().count().max(1))
        } else {
            first_difference
        };
        match (first_difference, declared_difference(dir)) {
            (None, None) => identical += 1,
            (Some(line), Some(declared))
                if line == declared && written.lines().count() != expected.lines().count() =>
            {
                failures.push(format!(
                    "{}: declared difference at line {line} but the line counts differ too",
                    dir.display()
                ));
            }
            (Some(line), Some(declared)) if line == declared => {}
            (found, declared) => {
                let at = found.unwrap_or(0);
                failures.push(format!(
                    "{}: first difference at line {found:?} (declared {declared:?})\n  written:  {:?}\n  emulator: {:?}",
                    dir.display(),
                    written.lines().nth(at.saturating_sub(1)),
                    expected.lines().nth(at.saturating_sub(1)),
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "log-out: {identical} of {} trimmed references byte-identical",
        cases.len()
    );
}

/// Writing the log changes nothing the run decides: the same report with
/// and without `--log-out` (the engine records its notes only then).
#[test]
fn writing_the_log_changes_no_decision() {
    for dir in cases().iter().step_by(7) {
        let inputs = std::fs::read_to_string(dir.join("outputs/inputs.txt")).unwrap();
        let release = release_of(dir);
        let options = SimOptions {
            duration: 4.0 * 3600.0,
            delta: value_after(&inputs, "Time step:"),
            existing_jobs_only: inputs.contains("Existing jobs only: yes"),
            release,
            ..SimOptions::default()
        };
        let scenario = dir.to_str().unwrap();
        let plain = boinc_audit::simulate::simulate_scenario(scenario, &options).unwrap();
        let mut written = Vec::new();
        let out = LogOut {
            log: &mut written,
            timeline: None,
            inputs: None,
        };
        let logged = simulate_scenario_logged(scenario, &options, Some(out)).unwrap();
        assert!(!written.is_empty(), "{}", dir.display());
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            serde_json::to_string(&logged).unwrap(),
            "{}",
            dir.display()
        );
    }
}

/// The 6.10.60 emulator's sim_log.txt: every trimmed copy under
/// `traces/valid-6.10.60/` is simulated with its recorded run options
/// (ltd-6.6 under that emulator's harness, job sizes drawn as it draws
/// them); the trimmed log (cut at the end of a time step) must be the start
/// of the written one, which goes on with that step's `took time step`.
#[test]
fn log_out_is_the_6_10_emulators_sim_log_line_for_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/valid-6.10.60");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("traces/valid-6.10.60")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("inputs/sim_projects.xml").is_file())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 5, "{dirs:?}");
    for dir in &dirs {
        let expected =
            std::fs::read_to_string(dir.join("outputs/sim_log.txt")).expect("sim_log.txt");
        let run: Vec<f64> = expected
            .lines()
            .find_map(|l| l.split("starting simultion. ").nth(1))
            .map(|rest| {
                rest.split_whitespace()
                    .filter_map(|w| w.parse().ok())
                    .collect()
            })
            .expect("run options");
        let (delta, duration) = (run[0], run[1]);
        let last = expected.lines().last().expect("a line");
        let stamp = chrono::NaiveDateTime::parse_from_str(&last[..20], "%d-%b-%Y %H:%M:%S")
            .expect("time stamp");
        let options = SimOptions {
            duration,
            delta,
            policy: boinc_audit::policy::generation::Generation::Ltd66,
            ..SimOptions::default()
        };
        let mut written = Vec::new();
        simulate_scenario_logged(
            dir.to_str().expect("utf-8"),
            &options,
            Some(LogOut {
                log: &mut written,
                timeline: None,
                inputs: None,
            }),
        )
        .expect("simulate");
        let written = String::from_utf8(written).expect("utf-8");
        let rest = written.strip_prefix(expected.as_str()).unwrap_or_else(|| {
            let line = written
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b)
                .map_or(0, |i| i + 1);
            panic!("{}: the written log differs at line {line}", dir.display())
        });
        let next = (stamp + chrono::Duration::seconds(delta as i64)).format("%d-%b-%Y %H:%M:%S");
        let took = format!("{next} [---] took time step");
        assert_eq!(
            rest.lines().next(),
            Some(took.as_str()),
            "{}",
            dir.display()
        );
    }
}

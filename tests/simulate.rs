//! Closed-loop simulation against the client emulator's figures of merit.
//!
//! Expected values come from the reference's `outputs/results.txt` when
//! `shared/reference/emulator` is found among the ancestors of the crate,
//! else from the trimmed copies in `traces/valid/<scenario>/` (inputs/,
//! outputs/inputs.txt, outputs/results.txt). Run options (duration, delta,
//! existing jobs only) are read from `outputs/inputs.txt`.

mod common;
use boinc_audit::simulate::{simulate_scenario, SimOptions, SimReport};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the scenarios live: `shared/reference/{emulator,emulator-gen}`
/// when found among the crate's ancestors, else the trimmed copies in
/// `traces/valid/` and `traces/valid-gen/` (whose results.txt is the whole
/// run's: simulate runs the full duration from inputs/).
fn roots() -> Vec<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    match manifest
        .ancestors()
        .map(|dir| dir.join("shared/reference"))
        .find(|dir| dir.join("emulator").is_dir())
    {
        Some(reference) => vec![reference.join("emulator"), reference.join("emulator-gen")],
        None => vec![
            manifest.join("traces/valid"),
            manifest.join("traces/valid-gen"),
        ],
    }
}

/// The scenarios the emulator's figures are checked on: every folder of
/// the roots holding `outputs/results.txt` (so a reference scenario added
/// there is checked without code). Names, sorted.
fn scenarios() -> Vec<String> {
    let mut names: Vec<String> = roots()
        .iter()
        .filter_map(|root| std::fs::read_dir(root).ok())
        .flat_map(|entries| entries.flatten())
        .filter_map(|entry| {
            let path = entry.path();
            path.join("outputs/results.txt")
                .is_file()
                .then(|| path.file_name()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 18,
        "scenarios under {:?}: {names:?}",
        roots()
    );
    names
}

fn scenario_dir(name: &str) -> PathBuf {
    roots()
        .iter()
        .map(|root| root.join(name))
        .find(|dir| dir.join("outputs/results.txt").is_file())
        .unwrap_or_else(|| panic!("no scenario {name} under {:?}", roots()))
}

fn value_after(text: &str, label: &str) -> f64 {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {label:?} in {text}"))
}

/// The emulator's figures of merit, as printed in results.txt (6 decimals).
struct Expected {
    wasted: f64,
    idle: f64,
    share_violation: f64,
    monotony: f64,
    rpcs_per_job: f64,
}

/// The options the emulator ran the scenario with (its outputs/inputs.txt).
fn emulator_options(dir: &Path) -> SimOptions {
    let inputs = std::fs::read_to_string(dir.join("outputs/inputs.txt")).unwrap();
    SimOptions {
        duration: value_after(&inputs, "Simulation duration:"),
        delta: value_after(&inputs, "Time step:"),
        existing_jobs_only: inputs.contains("Existing jobs only: yes"),
        ..SimOptions::default()
    }
}

fn run_seed(name: &str, seed: u64) -> (SimReport, Expected) {
    run_dir(&scenario_dir(name), seed)
}

/// Simulates the scenario in `dir` under the rules of the release its
/// client_state.xml names (today's when it names none), as `simulate
/// --policy auto` does.
fn run_dir(dir: &Path, seed: u64) -> (SimReport, Expected) {
    run_dir_as(dir, seed, None)
}

fn run_dir_as(
    dir: &Path,
    seed: u64,
    release: Option<boinc_audit::policy::profile::Release>,
) -> (SimReport, Expected) {
    let results = std::fs::read_to_string(dir.join("outputs/results.txt")).unwrap();
    let release =
        release.or_else(|| boinc_audit::simulate::scenario::auto_policy(dir.to_str().unwrap()).2);
    let options = SimOptions {
        seed,
        release,
        ..emulator_options(dir)
    };
    let report = simulate_scenario(dir.join("inputs").to_str().unwrap(), &options).unwrap();
    let expected = Expected {
        wasted: value_after(&results, "wasted fraction"),
        idle: value_after(&results, "Idle fraction"),
        share_violation: value_after(&results, "Share violation"),
        monotony: value_after(&results, "Monotony"),
        rpcs_per_job: value_after(&results, "RPCs per job"),
    };
    (report, expected)
}

/// With `--seed 1` (the emulator's `srand(1)`, through the same glibc
/// generator and the same draws in the same order) the simulation is the
/// emulator's run: all five figures of merit of every current-client
/// reference, hand-written and generated, agree to the 6 decimals
/// results.txt prints — including the ones that depend on random draws
/// (server and host availability, job sizes, backoff factors).
#[test]
fn figures_of_merit_reproduce_the_emulator_run() {
    let dirs: Vec<PathBuf> = scenarios().iter().map(|name| scenario_dir(name)).collect();
    check_figures(&dirs);
}

/// The scenarios with a results.txt under `shared/reference/<folder>` when
/// found among the crate's ancestors, else under their copies in
/// `traces/<copies>` (at least `min` of them).
fn reference_dirs(folder: &str, copies: &str, min: usize) -> Vec<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest
        .ancestors()
        .map(|dir| dir.join("shared/reference").join(folder))
        .find(|dir| dir.is_dir())
        .unwrap_or_else(|| manifest.join("traces").join(copies));
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("outputs/results.txt").is_file())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= min,
        "{folder} scenarios under {root:?}: {dirs:?}"
    );
    dirs
}

/// The scenarios of release 7.20.5's emulator (or their trimmed copies).
fn release_7_20_5_dirs() -> Vec<PathBuf> {
    reference_dirs("emulator-7.20.5", "valid-7.20.5", 8)
}

/// The 7.20.5 emulator's figures, reproduced under the 7.20.5 profile (the
/// release named by each client_state.xml).
#[test]
fn figures_of_merit_reproduce_the_7_20_5_emulator_run() {
    check_figures(&release_7_20_5_dirs());
}

/// The 7.2.42 emulator's figures, reproduced under the 7.0–7.2 rules
/// (`--policy 7.2.42`: its inputs name no client version):
/// `shared/reference/emulator-7.2.42` when found among the crate's
/// ancestors, else the copies in `traces/valid-7.2.42/` (trimmed logs, the
/// full run's results.txt).
#[test]
fn figures_of_merit_reproduce_the_7_2_42_emulator_run() {
    let dirs = reference_dirs("emulator-7.2.42", "valid-7.2.42", 3);
    check_figures_of(&dirs, Some(boinc_audit::policy::profile::Release(7, 2, 42)));
}

fn check_figures(dirs: &[PathBuf]) {
    check_figures_of(dirs, None);
}

/// Checks each scenario's figures under `release` (else the one its
/// client_state.xml names).
fn check_figures_of(dirs: &[PathBuf], release: Option<boinc_audit::policy::profile::Release>) {
    let mut failures = Vec::new();
    for dir in dirs {
        let name = dir.display();
        let (report, expected) = run_dir_as(dir, 1, release);
        let f = &report.figures_of_merit;
        for (figure, got, want) in [
            ("wasted", f.wasted_fraction, expected.wasted),
            ("idle", f.idle_fraction, expected.idle),
            ("share", f.share_violation, expected.share_violation),
            ("monotony", f.monotony, expected.monotony),
            ("rpcs_per_job", f.rpcs_per_job, expected.rpcs_per_job),
        ] {
            // results.txt rounds to 6 decimals.
            let tolerance = 5.0e-7 + 1e-12;
            if (got - want).abs() > tolerance {
                failures.push(format!(
                    "{name} {figure}: {got:.7} vs emulator {want:.6} (tolerance {tolerance})"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Seconds of a log time stamp: `HH:MM:SS` or `N day(s) HH:MM:SS`.
fn log_seconds(stamp: &str) -> Option<f64> {
    let (days, clock) = match stamp.split_once(" day") {
        Some((d, rest)) => (
            d.trim().parse::<f64>().ok()?,
            rest.trim_start_matches('s').trim(),
        ),
        None => (0.0, stamp.trim()),
    };
    let mut parts = clock.split(':').map(|x| x.parse::<f64>().ok());
    let (h, m, s) = (parts.next()??, parts.next()??, parts.next()??);
    Some(days * 86400.0 + h * 3600.0 + m * 60.0 + s)
}

/// The emulator's RPCs that reached a server, from its log: (time, project,
/// jobs received) for each `doing RPC` answered by `Got N tasks` (skipped
/// ones, `RPC skipped: project down`, exchanged nothing); and the time of the
/// log's last line.
fn emulator_rpcs(log: &str) -> (Vec<(f64, String, usize)>, f64) {
    let mut rpcs = Vec::new();
    let mut pending: Option<(f64, String)> = None;
    let mut last = 0.0;
    for line in log.lines() {
        let Some((stamp, rest)) = line.split_once(" [") else {
            continue;
        };
        let Some(time) = log_seconds(stamp) else {
            continue;
        };
        last = time;
        let Some((project, message)) = rest.split_once("] ") else {
            continue;
        };
        if message.starts_with("doing RPC") {
            pending = Some((time, project.to_string()));
        } else if message.starts_with("RPC skipped") {
            pending = None;
        } else if let Some(n) = message
            .strip_prefix("Got ")
            .and_then(|m| m.strip_suffix(" tasks"))
            .and_then(|n| n.parse().ok())
        {
            if let Some((t, p)) = pending.take() {
                rpcs.push((t, p, n));
            }
        }
    }
    (rpcs, last)
}

/// The value of the first `<tag>` in `xml`.
fn xml_value<'a>(xml: &'a str, tag: &str) -> &'a str {
    let open = format!("<{tag}>");
    let start = xml.find(&open).map(|i| i + open.len()).unwrap();
    let end = xml[start..].find('<').unwrap() + start;
    &xml[start..end]
}

/// `simulate --trace-out` writes every RPC that reached a server as a
/// request/reply pair; with seed 1 they are the emulator's RPCs: the same
/// times, projects and numbers of jobs as its log's `doing RPC` / `Got N
/// tasks` lines, in every current-client reference scenario (over the
/// trimmed logs' first hours when ../shared is absent).
#[test]
fn transcripts_are_the_emulator_rpcs() {
    let mut compared = 0;
    for name in scenarios() {
        let name = name.as_str();
        let dir = scenario_dir(name);
        let log = common::read_reference_log(&dir);
        let (mut expected, last) = emulator_rpcs(&log);
        let options = SimOptions {
            keep_transcripts: true,
            ..emulator_options(&dir)
        };
        let report = simulate_scenario(dir.join("inputs").to_str().unwrap(), &options).unwrap();
        assert_eq!(report.transcripts.len() as u64, 2 * report.rpcs, "{name}");
        let mut got = Vec::new();
        for pair in report.transcripts.chunks(2) {
            let [(request_path, request), (reply_path, reply)] = pair else {
                panic!("{name}: unpaired transcript");
            };
            assert!(request_path.contains("/sched_request_"), "{request_path}");
            assert!(reply_path.contains("/sched_reply_"), "{reply_path}");
            let time: f64 = xml_value(request, "now").parse().unwrap();
            let project = xml_value(reply, "project_name").to_string();
            got.push((time, project, reply.matches("<wu_name>").count()));
        }
        // A trimmed log may stop inside its last step.
        expected.retain(|r| r.0 < last);
        got.retain(|r| r.0 < last);
        // (tight_deadline_edf's trimmed log ends before its first RPC.)
        compared += expected.len();
        assert_eq!(got, expected, "{name}");
    }
    assert!(compared >= 10, "only {compared} RPCs compared");
}

#[test]
fn seed_cpu_gpu_split_through_the_cli() {
    let dir = scenario_dir("seed_cpu_gpu_two_projects").join("inputs");
    let out = Command::new(env!("CARGO_BIN_EXE_boinc-audit"))
        .args([
            "simulate",
            dir.to_str().unwrap(),
            "--duration",
            "172800",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "idle_fraction",
        "wasted_fraction",
        "share_violation",
        "monotony",
        "rpcs_per_job",
    ] {
        assert!(json["figures_of_merit"][key].is_f64(), "{key}");
    }
    let fraction = |project: &str, resource: &str| {
        json["usage"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["project"] == project && r["resource"] == resource)
            .and_then(|r| r["fraction"].as_f64())
            .unwrap_or_else(|| panic!("no usage row {project}/{resource}"))
    };
    let b_cpu = fraction("B", "CPU");
    let a_gpu = fraction("A", "NVIDIA GPU");
    assert!(b_cpu >= 0.97, "B CPU {b_cpu}");
    assert!((0.70..=0.80).contains(&a_gpu), "A GPU {a_gpu}");
}

#[test]
fn deterministic_per_seed_and_notation_runs() {
    let options = SimOptions {
        duration: 86400.0,
        delta: 300.0,
        seed: 42,
        ..SimOptions::default()
    };
    let notation =
        "A(1, 168, .5, gpu=1) B(1, 168, .5, gpu=1, mixed) NCPUS=1 NGPUS=1 f=1e9 gpu_peak=1e10";
    let a = simulate_scenario(notation, &options).unwrap();
    let b = simulate_scenario(notation, &options).unwrap();
    assert_eq!(a, b);
    assert!(a.jobs > 0 && a.rpcs > 0);
    let seed = simulate_scenario(
        "P1(1000, 2000, .5) P2(1, 10, .5) NCPUS=2 min_queue=0.1",
        &options,
    )
    .unwrap();
    assert!(
        seed.figures_of_merit.idle_fraction < 0.05,
        "{:?}",
        seed.figures_of_merit
    );
    assert!(simulate_scenario("P1(1, 2)", &options).is_err());
}

/// Other seeds are other runs of the same model: gpu_no_gpu_work_backoff's
/// idle fraction depends on how long the GPU-only project's server stays
/// down while its queue is empty (seeds 1-10 give 0.002-0.14). No seed may
/// leave the GPU idle most of the run: after ten failed RPCs the client
/// fetches the project's master URL (policy-current §7.1 step 1, §7.13) and
/// then resumes its scheduler RPCs — without that fetch, two of these seeds
/// stayed at 0.64.
#[test]
fn other_seeds_are_other_runs_of_the_same_model() {
    let mut idle = Vec::new();
    for seed in 1..=10 {
        let (report, expected) = run_seed("gpu_no_gpu_work_backoff", seed);
        idle.push(report.figures_of_merit.idle_fraction);
        assert!(expected.idle >= 0.0);
    }
    let distinct = idle.iter().filter(|x| (**x - idle[0]).abs() > 1e-9).count();
    assert!(distinct >= 5, "seeds should give different runs: {idle:?}");
    assert!(
        idle.iter().all(|x| *x < 0.35),
        "a seed left the GPU idle: {idle:?}"
    );
}

/// `simulate --policy ltd-6.6` on the 6.10.60 references' inputs: each
/// project's share of the CPU time within 0.02 of the emulator's
/// summary.txt (`NAME: share S total CPU T (P%)`). tight_deadline_edf is
/// left out: its summary counts reported jobs only and Slow's two long jobs
/// are still running at the end, so its percentages are not usage shares.
#[test]
fn ltd_simulation_matches_the_6_10_emulator_shares() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, delta) in [
        ("cpu_two_projects_unequal_share", 120.0),
        ("four_projects_time_slicing", 60.0),
    ] {
        let dir = manifest.join("traces/valid-6.10.60").join(name);
        let summary = std::fs::read_to_string(dir.join("outputs/summary.txt")).expect("summary");
        let options = SimOptions {
            duration: 86400.0,
            delta,
            policy: boinc_audit::policy::generation::Generation::Ltd66,
            ..SimOptions::default()
        };
        let report = simulate_scenario(dir.to_str().expect("utf-8"), &options).expect("simulate");
        assert_eq!(report.policy, "ltd-6.6");
        for line in summary.lines().filter(|l| l.contains(" total CPU ")) {
            let project = line.split(':').next().expect("name").trim();
            let percent: f64 = line
                .rsplit('(')
                .next()
                .and_then(|p| p.trim_end_matches("%)").parse().ok())
                .expect("percent");
            let usage = report
                .usage
                .iter()
                .find(|u| u.project == project && u.resource == "CPU")
                .expect("usage row");
            assert!(
                (usage.fraction - percent / 100.0).abs() <= 0.02,
                "{name}: {project} used {:.4} of the CPU, the 6.10 emulator {percent}%",
                usage.fraction
            );
        }
    }
}

//! A long client session audited window by window (`audit::Sessions`, as
//! `audit --format json` reads a log) gives the report of the session
//! audited whole: every log under traces/ (and every full reference log
//! under ../shared/reference when it is there), read as a bare log, is cut
//! into windows of a few hundred to a few thousand lines and its report
//! compared with the whole session's, field by field.

mod common;

use boinc_audit::audit::{audit_paths_sized, Keep, WindowSizes};
use boinc_audit::parse::LogOptions;
use boinc_audit::replay::AuditOptions;
use std::path::{Path, PathBuf};

/// Never cut: the session whole.
const WHOLE: WindowSizes = WindowSizes {
    span: usize::MAX / 4,
    prefix: 0,
    tail: 0,
    settle: 0,
};

/// Windows of `span` lines read with `prefix` lines before and `tail`
/// after.
fn cut(span: usize, prefix: usize, tail: usize) -> WindowSizes {
    WindowSizes {
        span,
        prefix,
        tail,
        ..WindowSizes::default()
    }
}

/// The report as JSON, and the windows it was audited in.
fn report_json(path: &Path, sizes: WindowSizes, since_changed: bool) -> (String, usize) {
    let options = AuditOptions {
        since_changed,
        ..AuditOptions::default()
    };
    report_json_with(path, sizes, &options)
}

/// [`report_json`] under `options`.
fn report_json_with(path: &Path, sizes: WindowSizes, options: &AuditOptions) -> (String, usize) {
    report_json_kept(path, sizes, options, Keep::Totals)
}

/// [`report_json_with`] keeping what `keep` says.
fn report_json_kept(
    path: &Path,
    sizes: WindowSizes,
    options: &AuditOptions,
    keep: Keep,
) -> (String, usize) {
    let streamed = audit_paths_sized(
        &[path.to_path_buf()],
        &LogOptions::default(),
        "t",
        options,
        keep,
        sizes,
        &mut |_, _| {},
    );
    let windows = streamed.windows;
    let json = match streamed.report {
        // The notes of what was not checked come window by window: compared
        // as a set.
        Ok(mut report) => {
            report
                .unchecked
                .sort_by(|a, b| (&a.what, &a.why).cmp(&(&b.what, &b.why)));
            serde_json::to_string_pretty(&report).expect("a report serialises")
        }
        Err(e) => format!("error: {e}"),
    };
    (json, windows)
}

/// Every event log under `dir` (emulator logs, a client's stdoutdae.txt,
/// field excerpts), sorted.
fn logs_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            logs_under(&path, out);
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if matches!(name, "log.txt" | "sim_log.txt" | "stdoutdae.txt") || name.ends_with(".log") {
            out.push(path);
        }
    }
}

/// The first line where two reports differ, with a few lines around it.
fn first_difference(whole: &str, cut: &str) -> String {
    let a: Vec<&str> = whole.lines().collect();
    let b: Vec<&str> = cut.lines().collect();
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(12);
    format!(
        "whole:\n{}\nwindowed:\n{}",
        a[from..(at + 4).min(a.len())].join("\n"),
        b[from..(at + 4).min(b.len())].join("\n")
    )
}

/// Every decision point of each log's report (the per-point tables' and a
/// fleet's rows, [`Keep::Points`]) audited in windows of each size equals
/// the whole session's.
fn check_points(logs: &[PathBuf], sizes: &[WindowSizes]) {
    let options = AuditOptions::default();
    for log in logs {
        let (whole, _) = report_json_kept(log, WHOLE, &options, Keep::Points);
        for &size in sizes {
            let (cut, _) = report_json_kept(log, size, &options, Keep::Points);
            assert!(
                whole == cut,
                "{} in windows of {size:?}, every point kept: the report differs\n{}",
                log.display(),
                first_difference(&whole, &cut)
            );
        }
    }
}

/// Compares each log's report whole and in windows of each size; gives the
/// windows audited.
fn check_logs(logs: &[PathBuf], sizes: &[WindowSizes], since_changed: bool) -> usize {
    let mut windows = 0;
    for log in logs {
        let (whole, none) = report_json(log, WHOLE, since_changed);
        assert_eq!(none, 0, "{}: cut without windows", log.display());
        for &size in sizes {
            let (cut, n) = report_json(log, size, since_changed);
            windows += n;
            assert!(
                whole == cut,
                "{} in windows of {size:?}: the report differs\n{}",
                log.display(),
                first_difference(&whole, &cut)
            );
        }
    }
    windows
}

#[test]
fn every_log_in_windows_gives_the_whole_sessions_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces");
    let mut logs = Vec::new();
    logs_under(&root, &mut logs);
    assert!(logs.len() >= 40, "logs under traces/: {}", logs.len());
    // The trimmed reference copies are gzipped: written out as bare logs.
    let dir = std::env::temp_dir().join(format!("boinc-audit-windowed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (i, (_, path, text)) in common::valid_logs().into_iter().enumerate() {
        if path.extension().is_some_and(|e| e == "gz") {
            let bare = dir.join(format!("{i}.log"));
            std::fs::write(&bare, text).expect("write a bare log");
            logs.push(bare);
        }
    }
    let sizes = [cut(400, 150, 300), cut(997, 251, 700), cut(3000, 600, 1200)];
    let windows = check_logs(&logs, &sizes, false);
    // Judged under today's rules too, window by window.
    let judged = check_logs(&logs, &sizes[..1], true);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(windows > 1000, "windows audited: {windows}");
    assert!(judged > 300, "windows judged: {judged}");
    eprintln!("{} logs, {windows} + {judged} windows", logs.len());
}

/// The full reference logs of ../shared (when there): sessions of up to
/// 150,000 lines cut in windows of 5,000.
#[test]
fn full_reference_logs_in_windows() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference");
    let mut logs = Vec::new();
    logs_under(&shared, &mut logs);
    let sizes = [cut(5000, 1000, 2000)];
    let windows = check_logs(&logs, &sizes, false);
    assert!(
        logs.is_empty() || windows > 100,
        "windows audited: {windows}"
    );
}

/// Three damaged copies of a log: every 5th line doubled, CRLF line ends,
/// and (in a log of over 2,000 lines) lines 1500-1799 moved ahead to 200.
fn damaged_copies(text: &str) -> [(&'static str, String); 3] {
    let lines: Vec<&str> = text.lines().collect();
    let doubled: Vec<&str> = lines
        .iter()
        .enumerate()
        .flat_map(|(n, l)| if n % 5 == 2 { vec![*l, *l] } else { vec![*l] })
        .collect();
    let mut moved = lines.clone();
    if moved.len() > 2000 {
        let block: Vec<&str> = moved.drain(1500..1800).collect();
        for (k, l) in block.into_iter().enumerate() {
            moved.insert(200 + k, l);
        }
    }
    [
        ("doubled", doubled.join("\n")),
        ("crlf", lines.join("\r\n")),
        ("moved", moved.join("\n")),
    ]
}

/// Damaged logs (every 5th line doubled, CRLF line ends, a block of lines
/// moved ahead) still give the whole session's report when cut in windows:
/// the windows rest on the lines' own passes, not on a well-formed log.
/// (Not lines dropped: a pass that lost its block's start line has its scan
/// lines linked, read whole, to the last block however far back, which a
/// window does not reach; it says "not checked" there.)
#[test]
fn damaged_logs_in_windows_give_the_whole_sessions_report() {
    let dir = std::env::temp_dir().join(format!("boinc-audit-windowed-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut logs = Vec::new();
    for (i, (_, _, text)) in common::valid_logs().into_iter().enumerate().step_by(3) {
        for (name, text) in damaged_copies(&text) {
            let path = dir.join(format!("{i}-{name}.log"));
            std::fs::write(&path, text).expect("write a damaged log");
            logs.push(path);
        }
    }
    let sizes = [cut(700, 250, 500)];
    let windows = check_logs(&logs, &sizes, false);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(windows > 200, "windows audited: {windows}");
}

/// The emulator runs (folders with inputs/) in each of `parents`, sorted
/// per parent.
fn runs_with_inputs(parents: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for parent in parents {
        let Ok(entries) = std::fs::read_dir(parent) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("inputs").is_dir())
            .collect();
        found.sort();
        dirs.extend(found);
    }
    dirs
}

/// The emulator runs with their inputs (anchored replay: the client loop
/// over the recording from the emulator's start state; the 6.10
/// emulator's harness for its runs), under every release's rules: read
/// window by window after a first pass pre-scans the log, the report is
/// the whole session's, field by field. The trimmed references under
/// traces/, and the full ones of ../shared when there.
#[test]
fn emulator_runs_replayed_in_windows_give_the_whole_sessions_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<PathBuf> = vec![root.join("traces/default")];
    let shared = root.join("../shared/reference");
    dirs.extend(runs_with_inputs(&[
        root.join("traces/valid"),
        root.join("traces/valid-gen"),
        root.join("traces/valid-7.2.42"),
        root.join("traces/valid-7.20.5"),
        root.join("traces/valid-8.0.4"),
        root.join("traces/valid-7.16.21"),
        root.join("traces/valid-6.10.60"),
    ]));
    assert!(
        dirs.len() >= 30,
        "emulator runs under traces/: {}",
        dirs.len()
    );
    let sizes = [cut(400, 150, 300), cut(2500, 0, 900)];
    let windows = check_logs(&dirs, &sizes, false);
    check_points(&dirs, &sizes[..1]);
    assert!(windows > 500, "windows audited: {windows}");
    let mut full = Vec::new();
    for generation in [
        "emulator",
        "emulator-gen",
        "emulator-7.2.42",
        "emulator-7.20.5",
        "emulator-6.10.60",
    ] {
        let Ok(entries) = std::fs::read_dir(shared.join(generation)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        found.sort();
        full.extend(found.into_iter().filter(|p| p.join("inputs").is_dir()));
    }
    let full_windows = check_logs(&full, &[cut(5000, 1000, 2000)], false);
    assert!(
        full.is_empty() || full_windows > 200,
        "windows audited: {full_windows}"
    );
    eprintln!(
        "{} runs in {windows} windows; {} full references in {full_windows}",
        dirs.len(),
        full.len()
    );
}

/// An emulator run audited under rules it was not made with (today's runs
/// under 7.2.42's): its many divergences, their first one's lines and the
/// points not replayed come out the same read window by window.
#[test]
fn divergent_anchored_replays_in_windows_give_the_whole_sessions_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/valid");
    let options = AuditOptions {
        policy: Some("7.2.42".into()),
        ..AuditOptions::default()
    };
    let sizes = cut(300, 200, 300);
    let mut windows = 0;
    let mut divergent = 0;
    for name in [
        "seed_cpu_gpu_two_projects",
        "multithread_mixed",
        "suspended_and_nnw",
    ] {
        let dir = root.join(name);
        let (whole, _) = report_json_with(&dir, WHOLE, &options);
        let (cut, n) = report_json_with(&dir, sizes, &options);
        windows += n;
        divergent += usize::from(whole.contains("\"n_divergences\": 1"));
        assert!(
            whole == cut,
            "{name} in windows: the report differs\n{}",
            first_difference(&whole, &cut)
        );
    }
    assert!(windows > 20, "windows audited: {windows}");
    assert!(divergent > 0, "no divergence to compare");
}

/// Copies the files below `from` to `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

/// Emulator runs whose logs are damaged (every 5th line doubled, CRLF line
/// ends, a block of lines moved ahead: the clock goes back, a second
/// session), their inputs beside them: the pre-scan pass and the windows
/// cut the sessions alike, and the anchored replay in windows gives the
/// whole session's report.
#[test]
fn damaged_emulator_runs_in_windows_give_the_whole_sessions_report() {
    let dir =
        std::env::temp_dir().join(format!("boinc-audit-windowed-runs-{}", std::process::id()));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/valid");
    let mut runs = Vec::new();
    for name in [
        "seed_cpu_gpu_two_projects",
        "suspended_and_nnw",
        "multithread_mixed",
    ] {
        let text = common::read_reference_log(&root.join(name));
        for (kind, text) in damaged_copies(&text) {
            let run = dir.join(format!("{name}-{kind}"));
            copy_tree(&root.join(name).join("inputs"), &run.join("inputs"));
            std::fs::create_dir_all(run.join("outputs")).expect("mkdir");
            std::fs::write(run.join("outputs/log.txt"), text).expect("write a damaged log");
            runs.push(run);
        }
    }
    let sizes = [cut(600, 200, 400)];
    let windows = check_logs(&runs, &sizes, false);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(windows > 40, "windows audited: {windows}");
}

/// Runs of the 6.10 emulator with their inputs, damaged (every 5th line
/// doubled, CRLF line ends, a block moved ahead: its dates go back, so the
/// session is read whole; cut inside a time step; without sim_out_0.html,
/// so job sizes are the log's 0.01 s and numbers compare within 0.05):
/// the harness fed window by window gives the whole run's report.
#[test]
fn damaged_6_10_harness_runs_in_windows_give_the_whole_runs_report() {
    let dir = std::env::temp_dir().join(format!("boinc-audit-windowed-610-{}", std::process::id()));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/valid-6.10.60");
    let mut runs = Vec::new();
    let mut divergent = 0;
    for name in [
        "cpu_two_projects_unequal_share",
        "four_projects_time_slicing",
        "tight_deadline_edf",
    ] {
        let text = std::fs::read_to_string(root.join(name).join("outputs/sim_log.txt"))
            .expect("a 6.10 reference log");
        let lines: Vec<&str> = text.lines().collect();
        // Cut 3 lines into the step of the line two thirds in.
        let at = lines.len() * 2 / 3;
        let cut_inside = lines[..at + 3].join("\n");
        let mut copies = damaged_copies(&text).to_vec();
        copies.push(("cut", cut_inside));
        copies.push(("nosizes", text.clone()));
        for (kind, text) in copies {
            let run = dir.join(format!("{name}-{kind}"));
            copy_tree(&root.join(name), &run);
            std::fs::write(run.join("outputs/sim_log.txt"), text).expect("write a damaged log");
            if kind == "nosizes" {
                std::fs::remove_file(run.join("outputs/sim_out_0.html")).expect("rm sizes");
            }
            runs.push(run);
        }
    }
    let sizes = [cut(500, 0, 0), cut(1700, 0, 0)];
    let windows = check_logs(&runs, &sizes, false);
    for run in &runs {
        let (json, _) = report_json(run, WHOLE, false);
        divergent += usize::from(!json.contains("\"divergences\": [],"));
        // Fed in windows unless its dates go back.
        let (_, n) = report_json(run, sizes[0], false);
        let moved = run.to_string_lossy().ends_with("-moved");
        assert_eq!(n == 0, moved, "{}: {n} windows", run.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(windows > 60, "windows audited: {windows}");
    assert!(divergent > 0, "no divergent run to compare");
}

/// Emulator runs of older releases with their inputs, judged under today's
/// rules too (`--since-changed`: the anchored replay again under today's
/// rules and under the release's with each change applied): every judge's
/// run is fed the same windows, and the report, its judgement included, is
/// the whole session's.
#[test]
fn anchored_replays_judged_under_today_in_windows_give_the_whole_sessions_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = runs_with_inputs(&[
        root.join("traces/valid-7.20.5"),
        root.join("traces/valid-7.2.42"),
        root.join("traces/valid-7.16.21"),
    ]);
    assert!(dirs.len() >= 10, "older runs under traces/: {}", dirs.len());
    let mut judged = 0;
    for dir in &dirs {
        let (whole, _) = report_json(dir, WHOLE, true);
        judged += usize::from(
            whole.contains("\"release_only\": ") && !whole.contains("\"since_changed\": null"),
        );
    }
    assert!(judged >= 5, "runs with a judgement: {judged}");
    let windows = check_logs(&dirs, &[cut(400, 150, 300), cut(1500, 0, 600)], true);
    assert!(windows > 100, "windows audited: {windows}");
    let shared = root.join("../shared/reference/emulator-7.20.5");
    let full = runs_with_inputs(&[shared]);
    let full_windows = check_logs(&full, &[cut(5000, 1000, 2000)], true);
    assert!(
        full.is_empty() || full_windows > 50,
        "windows audited: {full_windows}"
    );
}

/// Emulator runs with their inputs, each cut at a random line (a log still
/// being written, a truncated copy) and read in windows of random sizes,
/// some judged under today's rules too: every report is the whole
/// session's. (A seeded xorshift draws the cuts; a failure names them.)
#[test]
fn cut_runs_in_random_windows_give_the_whole_sessions_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("boinc-audit-windowed-cut-{}", std::process::id()));
    let mut runs = runs_with_inputs(&[root.join("traces/valid-6.10.60")]);
    for name in [
        "seed_cpu_gpu_two_projects",
        "multithread_mixed",
        "suspended_and_nnw",
    ] {
        runs.push(root.join("traces/valid").join(name));
    }
    for name in [
        "cpu2_nv_amd_3proj_tight_mt_appmc",
        "seed_cpu_gpu_two_projects",
    ] {
        runs.push(root.join("traces/valid-7.20.5").join(name));
    }
    let mut next = common::xorshift(0x9e37_79b9_7f4a_7c15);
    let mut windows = 0;
    for run in &runs {
        let six = run.join("outputs/sim_log.txt").is_file();
        let text = if six {
            std::fs::read_to_string(run.join("outputs/sim_log.txt")).expect("a 6.10 log")
        } else {
            common::read_reference_log(run)
        };
        let lines: Vec<&str> = text.lines().collect();
        for k in 0..12 {
            let keep = lines.len() * 3 / 10 + next(lines.len() * 7 / 10 + 1);
            let sizes = cut(150 + next(2350), next(400), next(800));
            let since_changed = !six && next(2) == 0;
            let copy = dir.join(format!(
                "{}-{k}",
                run.file_name().and_then(|n| n.to_str()).unwrap_or("run")
            ));
            copy_tree(run, &copy);
            let log = copy.join(if six {
                "outputs/sim_log.txt"
            } else {
                "outputs/log.txt"
            });
            let _ = std::fs::remove_file(copy.join("outputs/log.txt.gz"));
            std::fs::write(&log, lines[..keep.min(lines.len())].join("\n") + "\n")
                .expect("write a cut log");
            let (whole, _) = report_json(&copy, WHOLE, since_changed);
            let (cut_json, n) = report_json(&copy, sizes, since_changed);
            windows += n;
            assert!(
                whole == cut_json,
                "{} cut at line {keep} in windows of {sizes:?} (since_changed {since_changed}): \
                 the report differs\n{}",
                run.display(),
                first_difference(&whole, &cut_json)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(windows > 120, "windows audited: {windows}");
}

//! A missing input is "not checked", never a divergence: every extra
//! input of an emulator trace (each file under inputs/, and the
//! emulator's timeline.html) is left out in turn, and the audit must show
//! no divergence; where fewer decisions are checked than with every file,
//! the report names the file left out. Data-driven: every trimmed trace
//! under the folders below takes part. traces/missing-inputs-gaps.txt
//! lists the inputs whose absence the log cannot show (they still
//! diverge, and must: a fixed gap is taken off the list).

use boinc_audit::audit::audit_trace as audit;
use boinc_audit::divergence::DivergenceReport;
use boinc_audit::parse::{load_trace, LogOptions};
use boinc_audit::replay::AuditOptions;
use std::path::{Path, PathBuf};

mod common;

/// Emulator traces of today's client, 7.20.5, 7.2.42 and 6.10.60, with
/// their inputs.
const FOLDERS: [&str; 4] = [
    "traces/valid-gen",
    "traces/valid-7.20.5",
    "traces/valid-7.2.42",
    "traces/valid-6.10.60",
];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The trace's inputs: every file under inputs/, then the emulator's
/// timeline.html (6.10: sim_out_0.html).
fn extra_inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    files_under(&dir.join("inputs"), &mut files);
    files.sort();
    for name in ["outputs/timeline.html", "outputs/sim_out_0.html"] {
        let path = dir.join(name);
        if path.is_file() {
            files.push(path);
        }
    }
    files
}

fn audit_without(dir: &Path, left_out: Option<&Path>) -> DivergenceReport {
    let mut paths: Vec<PathBuf> = extra_inputs(dir)
        .into_iter()
        .filter(|p| Some(p.as_path()) != left_out)
        .collect();
    paths.push(common::scenario_log(dir));
    let parsed = load_trace(&paths, &LogOptions::default());
    audit(&parsed.value, "x", &AuditOptions::default()).expect("audit")
}

/// (trace dir, file in it) of each known gap.
fn known_gaps() -> Vec<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("traces/missing-inputs-gaps.txt"))
        .expect("traces/missing-inputs-gaps.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (case, _why) = l.split_once('|')?;
            let mut words = case.split_whitespace();
            let dir = root.join(words.next()?);
            let file = dir.join(words.next()?);
            Some((dir, file))
        })
        .collect()
}

fn checked(report: &DivergenceReport) -> usize {
    report.points.iter().filter(|p| p.checked).count()
}

#[test]
fn each_input_left_out_is_not_checked_and_named() {
    let dirs = common::scenario_folders(&FOLDERS);
    assert!(!dirs.is_empty(), "no emulator traces under {FOLDERS:?}");
    let gaps = known_gaps();
    let mut failures = Vec::new();
    for dir in dirs {
        let whole = audit_without(&dir, None);
        assert!(
            whole.divergences.is_empty(),
            "{}: diverges with every input",
            dir.display()
        );
        let flagged = serde_json::to_string(&whole.unchecked).unwrap_or_default();
        assert!(
            !flagged.contains("is not among the inputs"),
            "{}: an input is taken for missing with every input given: {flagged}",
            dir.display()
        );
        for file in extra_inputs(&dir) {
            let report = audit_without(&dir, Some(&file));
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            let label = format!(
                "{} without {}",
                dir.display(),
                file.strip_prefix(&dir).unwrap_or(&file).display()
            );
            let gap = gaps.iter().any(|(d, f)| *d == dir && *f == file);
            if gap {
                if report.divergences.is_empty() {
                    failures.push(format!(
                        "{label}: listed in traces/missing-inputs-gaps.txt but no longer \
                         diverges: take it off the list"
                    ));
                }
                continue;
            }
            if !report.divergences.is_empty() {
                let first = &report.divergences[0];
                failures.push(format!(
                    "{label}: {} divergence(s), first {} {} at {}",
                    report.divergences.len(),
                    first.kind.name(),
                    first.field,
                    first.time_label
                ));
            }
            if checked(&report) < checked(&whole) {
                let said = serde_json::to_string(&report.unchecked).unwrap_or_default();
                if !said.contains(name.as_ref()) {
                    failures.push(format!(
                        "{label}: {} fewer decisions checked, and the report does not name \
                         {name}",
                        checked(&whole) - checked(&report)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

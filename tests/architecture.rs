//! Architecture invariants, checked by scanning the source:
//! - `parse` and `trace` know nothing of `policy`, `replay`, `divergence` or `report`;
//! - `policy` knows nothing of `parse`, `trace`, `replay`, `divergence` or `report`,
//!   and does no I/O;
//! - `divergence` depends only on `source`;
//! - `report` does not reach into `parse`'s readers, `policy` or `replay`.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn violations(layer: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut targets = rust_files(&root.join(layer));
    let single = root.join(format!("{layer}.rs"));
    if single.exists() {
        targets.push(single);
    }
    let mut found = Vec::new();
    for file in targets {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (line_idx, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for pattern in forbidden {
                if code.contains(pattern) {
                    found.push(format!(
                        "{}:{}: {}",
                        file.display(),
                        line_idx + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn parse_and_trace_know_nothing_of_later_stages() {
    let forbidden = [
        "crate::policy",
        "crate::replay",
        "crate::divergence",
        "crate::report",
        "crate::golden",
    ];
    let mut found = violations("parse", &forbidden);
    found.extend(violations("trace", &forbidden));
    assert!(
        found.is_empty(),
        "forbidden dependencies:\n{}",
        found.join("\n")
    );
}

#[test]
fn policy_is_pure() {
    let forbidden = [
        "crate::parse",
        "crate::trace",
        "crate::replay",
        "crate::divergence",
        "crate::report",
        "crate::golden",
        "std::fs",
        "std::io",
        "std::net",
        "std::time::SystemTime",
        "std::time::Instant",
        "std::env",
        "println!",
        "eprintln!",
    ];
    let found = violations("policy", &forbidden);
    assert!(
        found.is_empty(),
        "the policy engine must stay pure:\n{}",
        found.join("\n")
    );
}

#[test]
fn divergence_depends_only_on_source() {
    let forbidden = [
        "crate::parse",
        "crate::trace",
        "crate::policy",
        "crate::replay",
        "crate::report",
    ];
    let found = violations("divergence", &forbidden);
    assert!(
        found.is_empty(),
        "forbidden dependencies:\n{}",
        found.join("\n")
    );
}

#[test]
fn report_consumes_models_only() {
    let forbidden = [
        "crate::policy",
        "crate::replay",
        "crate::parse::event_log",
        "crate::parse::discover",
    ];
    let found = violations("report", &forbidden);
    assert!(
        found.is_empty(),
        "forbidden dependencies:\n{}",
        found.join("\n")
    );
}

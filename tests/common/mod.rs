//! Helpers shared by the data-driven test harnesses.

use std::path::{Path, PathBuf};

/// The files of a case folder that are inputs: everything but the case's own
/// description and expectations (`case.toml`, `errors.txt`, `README.md`),
/// sorted by path.
#[allow(dead_code)]
pub fn case_inputs(case_dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(case_dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !matches!(name.as_str(), "case.toml" | "README.md" | "errors.txt") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// A reference scenario's emulator log, plain (`outputs/log.txt`) or
/// gzipped (`outputs/log.txt.gz`, the trimmed generated copies).
#[allow(dead_code)]
pub fn read_reference_log(dir: &Path) -> String {
    use std::io::Read;
    let plain = dir.join("outputs/log.txt");
    if plain.is_file() {
        return std::fs::read_to_string(plain).unwrap();
    }
    let file = std::fs::File::open(dir.join("outputs/log.txt.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// Every reference log under `traces/valid*` (`<folder>/<scenario>/outputs/`
/// log.txt or sim_log.txt, plain or gzipped), decompressed, in path order:
/// (folder, log path, text).
#[allow(dead_code)]
pub fn valid_logs() -> Vec<(PathBuf, PathBuf, String)> {
    use std::io::Read;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces");
    let sorted = |dir: &Path| -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        paths.sort();
        paths
    };
    let mut out = Vec::new();
    for folder in sorted(&root).into_iter().filter(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("valid"))
    }) {
        for scenario in sorted(&folder) {
            for name in ["log.txt", "log.txt.gz", "sim_log.txt", "sim_log.txt.gz"] {
                let path = scenario.join("outputs").join(name);
                let Ok(raw) = std::fs::read(&path) else {
                    continue;
                };
                let mut text = String::new();
                if name.ends_with(".gz") {
                    flate2::read::MultiGzDecoder::new(&raw[..])
                        .read_to_string(&mut text)
                        .expect("a gzip log");
                } else {
                    text = String::from_utf8_lossy(&raw).into_owned();
                }
                out.push((folder.clone(), path, text));
            }
        }
    }
    out
}

/// A seeded xorshift draw: each call gives a number below `n` (0 when `n`
/// is 0).
#[allow(dead_code)]
pub fn xorshift(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed;
    move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    }
}

/// The scenario folders (those with an `inputs/`) under each of `folders`
/// (relative to the crate), sorted.
#[allow(dead_code)]
pub fn scenario_folders(folders: &[&str]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for folder in folders {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
        if let Ok(entries) = std::fs::read_dir(root) {
            dirs.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.join("inputs").is_dir()),
            );
        }
    }
    dirs.sort();
    dirs
}

/// A scenario folder's emulator log: outputs/log.txt, the 6.10
/// emulator's outputs/sim_log.txt, else log.txt.gz.
#[allow(dead_code)]
pub fn scenario_log(dir: &Path) -> PathBuf {
    ["outputs/log.txt", "outputs/sim_log.txt"]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.exists())
        .unwrap_or_else(|| dir.join("outputs/log.txt.gz"))
}

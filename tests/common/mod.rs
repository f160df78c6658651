//! Helpers shared by the data-driven test harnesses.

use std::path::{Path, PathBuf};

/// The files of a case folder that are inputs: everything but the case's own
/// description and expectations (`case.toml`, `errors.txt`, `README.md`),
/// sorted by path.
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

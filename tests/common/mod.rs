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

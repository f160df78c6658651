//! Auditing many bundles at once (`audit --fleet`): data directories,
//! emulator folders, single logs, and `.tar.gz` / `.tgz` / `.zip` archives
//! as volunteers send them, in parallel, one failing bundle never stopping
//! the rest.
//!
//! ```text
//!  LIST or DIR ──bundles()──▶ shard() ──▶ audit_fleet(N workers) ──▶ on_done(i, BundleReport)
//!                                              │ archive: unpacked into a temporary folder
//!                                              ▼ audit::audit_paths (streamed, session by session)
//! ```
//!
//! Bundles are handed to `on_done` in list order (a finished bundle waits
//! for the ones before it), so the output of a run, and of each shard,
//! does not depend on which worker was faster.
//!
//! Archives are unpacked with the entries' own names confined to the
//! temporary folder: an entry that would land outside it (`../x`, an
//! absolute path) and links are skipped, never followed.
//!
//! Architecture Invariant: orchestration only, like [`crate::audit`]; it
//! renders nothing.

use crate::divergence::{BundleReport, DivergenceReport};
use crate::parse::LogOptions;
use crate::replay::AuditOptions;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// What goes wrong before any bundle is audited.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// The list or directory could not be read.
    #[error("cannot read the fleet list {path}: {source}")]
    List {
        /// The path given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A `--shard I/N` that is not `1 <= I <= N`.
    #[error("bad shard {0}: expected I/N with 1 <= I <= N")]
    Shard(String),
}

/// The bundles of `list`: the entries of a directory (sub-folders,
/// archives, files; hidden ones skipped), or the lines of a text file (one
/// path per line, relative to the file's folder; blank lines and `#`
/// comments skipped). Sorted, so that shards are deterministic.
pub fn bundles(list: &Path) -> Result<Vec<PathBuf>, FleetError> {
    let err = |source| FleetError::List {
        path: list.display().to_string(),
        source,
    };
    let mut out: Vec<PathBuf> = if list.is_dir() {
        std::fs::read_dir(list)
            .map_err(err)?
            .filter_map(Result::ok)
            .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
            .map(|entry| entry.path())
            .collect()
    } else {
        let text = std::fs::read_to_string(list).map_err(err)?;
        let base = list.parent().unwrap_or(Path::new("."));
        text.lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(|line| {
                let path = PathBuf::from(line);
                if path.is_absolute() {
                    path
                } else {
                    base.join(path)
                }
            })
            .collect()
    };
    out.sort();
    out.dedup();
    Ok(out)
}

/// Parses `I/N` (1-based).
pub fn parse_shard(text: &str) -> Result<(usize, usize), FleetError> {
    let bad = || FleetError::Shard(text.to_string());
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let i: usize = i.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The bundles of shard `i` of `n` (1-based): every `n`-th of the sorted
/// list, starting at the `i`-th. The shards of one list are disjoint and
/// together hold every bundle.
pub fn shard(bundles: Vec<PathBuf>, (i, n): (usize, usize)) -> Vec<PathBuf> {
    bundles
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k % n == i - 1)
        .map(|(_, path)| path)
        .collect()
}

/// Audits every bundle with `jobs` workers, calling `on_done` with each
/// bundle's index and report in list order, and `on_progress` (from the
/// calling thread) each time a bundle finishes.
pub fn audit_fleet(
    bundles: &[PathBuf],
    jobs: usize,
    log: &LogOptions,
    options: &AuditOptions,
    on_done: &mut dyn FnMut(usize, BundleReport),
    on_progress: &mut dyn FnMut(&BundleReport),
) {
    let jobs = jobs.clamp(1, bundles.len().max(1));
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, BundleReport)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = bundles.get(i) else { break };
                // A panic is a bug, but it fails this bundle, not the fleet.
                let report = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    audit_bundle(path, log, options)
                }))
                .unwrap_or_else(|_| BundleReport {
                    bundle: path.display().to_string(),
                    host: None,
                    client_version: None,
                    outcome: Err("internal error: the audit of this bundle panicked \
                                  (a bug of boinc-audit; please report it)"
                        .to_string()),
                });
                if tx.send((i, report)).is_err() {
                    break;
                }
            });
        }
        // The workers hold the only senders now.
        drop(tx);
        let mut waiting: BTreeMap<usize, BundleReport> = BTreeMap::new();
        let mut next_out = 0;
        for (i, report) in rx {
            on_progress(&report);
            waiting.insert(i, report);
            while let Some(report) = waiting.remove(&next_out) {
                on_done(next_out, report);
                next_out += 1;
            }
        }
    });
}

/// Audits one bundle; any failure becomes the report's error.
pub fn audit_bundle(path: &Path, log: &LogOptions, options: &AuditOptions) -> BundleReport {
    let name = path.display().to_string();
    let failed = |error: String| BundleReport {
        bundle: name.clone(),
        host: None,
        client_version: None,
        outcome: Err(error),
    };
    let unpacked;
    let root = match archive_kind(path) {
        Some(kind) => match unpack(path, kind) {
            Ok(dir) => {
                unpacked = dir;
                single_folder(unpacked.path())
            }
            Err(error) => return failed(format!("cannot unpack: {error}")),
        },
        None => path.to_path_buf(),
    };
    if !root.exists() {
        return failed("no such file or folder".to_string());
    }
    // Streamed session by session: memory follows one client session.
    // Parsed on the worker's own thread: the workers already use the cores.
    let reading = crate::audit::Reading {
        sizes: crate::audit::WindowSizes::default(),
        parse_thread: false,
    };
    let parsed = crate::audit::audit_paths_read(
        std::slice::from_ref(&root),
        log,
        &name,
        options,
        crate::audit::Keep::Points,
        reading,
        &mut |_, _| {},
    );
    let trace = &parsed.trace;
    let host = trace
        .state
        .client_states
        .iter()
        .filter_map(|state| state.host_info.as_ref()?.domain_name.clone())
        .find(|name| !name.is_empty());
    let client_version = trace
        .meta
        .client_version
        .map(|v| format!("{}.{}.{}", v.major, v.minor, v.release));
    let outcome = parsed.report;
    let unpacked_at = (root != path).then(|| root.display().to_string());
    match outcome {
        Ok(mut report) => {
            report.input_errors = parsed.errors.iter().map(ToString::to_string).collect();
            if let Some(at) = &unpacked_at {
                report = relabel(report, at, &name);
            }
            BundleReport {
                bundle: name,
                host,
                client_version,
                outcome: Ok(report),
            }
        }
        Err(error) => {
            let mut text = error.to_string();
            if let Some(first) = parsed.errors.first() {
                text = format!(
                    "{text}; {} input problem(s), first: {first}",
                    parsed.errors.len()
                );
            }
            if let Some(at) = &unpacked_at {
                text = text.replace(at.as_str(), &name);
            }
            BundleReport {
                bundle: name,
                host,
                client_version,
                outcome: Err(text),
            }
        }
    }
}

/// The folder an archive's content is in: the one folder it holds when it
/// holds nothing else (`bundle/…`, as most archives are made), else `dir`.
fn single_folder(dir: &Path) -> PathBuf {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|it| {
            it.filter_map(Result::ok)
                .map(|e| e.path())
                .take(2)
                .collect()
        })
        .unwrap_or_default();
    match entries.as_slice() {
        [only] if only.is_dir() => only.clone(),
        _ => dir.to_path_buf(),
    }
}

/// An archive unpacked for an audit: its content's folder, removed when
/// this is dropped.
pub struct Unpacked {
    dir: TempDir,
    /// Where the archive's content is (its one folder, if it holds one).
    pub root: PathBuf,
}

impl Unpacked {
    /// `report` with the unpacked paths named inside the archive `name`.
    pub fn relabel(&self, report: DivergenceReport, name: &str) -> DivergenceReport {
        let _ = &self.dir;
        relabel(report, &self.root.display().to_string(), name)
    }
}

/// `path` unpacked into a temporary folder when it is a `.tar.gz`, `.tgz`,
/// `.tar` or `.zip` archive (`Ok(None)`: it is not one).
pub fn unpack_archive(path: &Path) -> Result<Option<Unpacked>, String> {
    let Some(kind) = archive_kind(path) else {
        return Ok(None);
    };
    let dir = unpack(path, kind)?;
    let root = single_folder(dir.path());
    Ok(Some(Unpacked { dir, root }))
}

/// `report` with every path under the temporary folder `from` named as a
/// path inside the archive `to` (`bundle.tar.gz/outputs/log.txt`), so that
/// what a fleet writes does not depend on where it unpacked.
fn relabel(report: DivergenceReport, from: &str, to: &str) -> DivergenceReport {
    // Through the report's JSON text, not a tree of JSON values: the text
    // is a fraction of the tree's size. JSON escapes each character on its
    // own, so the escaped path is replaced wherever the path was.
    let escaped = |text: &str| {
        let quoted = serde_json::to_string(text).unwrap_or_default();
        quoted
            .get(1..quoted.len().saturating_sub(1))
            .unwrap_or_default()
            .to_string()
    };
    let (from, to) = (escaped(from), escaped(to));
    let Ok(json) = serde_json::to_string(&report) else {
        return report;
    };
    if from.is_empty() || !json.contains(&from) {
        return report;
    }
    let json = json.replace(&from, &to);
    serde_json::from_str(&json).unwrap_or(report)
}

/// The archive formats a bundle may come in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Archive {
    TarGz,
    Tar,
    Zip,
}

fn archive_kind(path: &Path) -> Option<Archive> {
    if !path.is_file() {
        return None;
    }
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Some(Archive::TarGz)
    } else if name.ends_with(".tar") {
        Some(Archive::Tar)
    } else if name.ends_with(".zip") {
        Some(Archive::Zip)
    } else {
        None
    }
}

/// A temporary folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("boinc-audit-bundle-{}-{n}", std::process::id()));
        // A folder left by an earlier process of the same id is not ours.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The most an archive may unpack to (a zip bomb is refused).
const MAX_UNPACKED: u64 = 4 << 30;

/// Unpacks `path` into a fresh temporary folder.
fn unpack(path: &Path, kind: Archive) -> Result<TempDir, String> {
    let dir = TempDir::new().map_err(|e| format!("temporary folder: {e}"))?;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    match kind {
        Archive::TarGz => untar(flate2::read::GzDecoder::new(file), dir.path())?,
        Archive::Tar => untar(file, dir.path())?,
        Archive::Zip => unzip(file, dir.path())?,
    }
    Ok(dir)
}

/// `name` as a relative path inside the bundle, or `None` for one that
/// would leave it.
fn confined(name: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in name.components() {
        match part {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

fn write_entry(
    dir: &Path,
    name: &Path,
    reader: &mut dyn Read,
    total: &mut u64,
) -> Result<(), String> {
    let Some(relative) = confined(name) else {
        return Ok(());
    };
    let target = dir.join(relative);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    let mut file = std::fs::File::create(&target).map_err(|e| e.to_string())?;
    let budget = MAX_UNPACKED.saturating_sub(*total);
    let copied =
        std::io::copy(&mut reader.take(budget + 1), &mut file).map_err(|e| e.to_string())?;
    *total += copied;
    if *total > MAX_UNPACKED {
        return Err(format!("unpacks to more than {} GiB", MAX_UNPACKED >> 30));
    }
    Ok(())
}

fn untar(reader: impl Read, dir: &Path) -> Result<(), String> {
    let mut archive = tar::Archive::new(reader);
    let mut total = 0;
    for entry in archive.entries().map_err(|e| e.to_string())? {
        let mut entry = entry.map_err(|e| e.to_string())?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = entry.path().map_err(|e| e.to_string())?.into_owned();
        write_entry(dir, &name, &mut entry, &mut total)?;
    }
    Ok(())
}

fn unzip(file: std::fs::File, dir: &Path) -> Result<(), String> {
    let mut archive = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let mut total = 0;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| e.to_string())?;
        if !entry.is_file() {
            continue;
        }
        let Some(name) = entry.enclosed_name() else {
            continue;
        };
        write_entry(dir, &name, &mut entry, &mut total)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_and_cover() {
        let list: Vec<PathBuf> = (0..10).map(|i| PathBuf::from(format!("b{i}"))).collect();
        let mut all: Vec<PathBuf> = (1..=4).flat_map(|i| shard(list.clone(), (i, 4))).collect();
        all.sort();
        assert_eq!(all, list);
        assert_eq!(
            shard(list.clone(), (2, 4)),
            [
                PathBuf::from("b1"),
                PathBuf::from("b5"),
                PathBuf::from("b9")
            ]
        );
        assert!(parse_shard("0/4").is_err());
        assert!(parse_shard("5/4").is_err());
        assert!(parse_shard("x").is_err());
        assert_eq!(parse_shard("2/4").ok(), Some((2, 4)));
    }

    #[test]
    fn archive_names_stay_inside() {
        assert_eq!(
            confined(Path::new("a/b.txt")),
            Some(PathBuf::from("a/b.txt"))
        );
        assert_eq!(confined(Path::new("./a")), Some(PathBuf::from("a")));
        assert_eq!(confined(Path::new("../a")), None);
        assert_eq!(confined(Path::new("/etc/passwd")), None);
        assert_eq!(confined(Path::new("a/../../b")), None);
    }
}

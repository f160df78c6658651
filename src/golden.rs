//! Golden text files, following insta's workflow.
//!
//! A golden file holds the text a test case must produce (for example a
//! replayed decision timeline, one decision per line). [`check`] compares an
//! actual text with it; on a mismatch it reports the first changed line and a
//! unified diff, and writes `<file>.new` beside the golden file as the
//! [`GoldenEnv`] says. [`pending`], [`accept`] and [`reject`] then review the
//! `.new` files, like `cargo insta pending|accept|reject`. [`junit`] writes a
//! JUnit XML report of the checked cases for CI.
//!
//! The environment is an explicit input: the caller builds a [`GoldenEnv`]
//! (from `BOINC_AUDIT_UPDATE` and `CI`, see [`GoldenEnv::from_vars`]), so the
//! behaviour can be tested without touching the process environment.
//!
//! Goldens must be byte-stable: [`fixed`] formats floats at a fixed
//! precision. Paths in reports are printed as the caller gave them, so a
//! caller that passes relative paths gets reports without absolute paths; no
//! report contains a wall-clock time.
//!
//! Architecture Invariant: depends on nothing but std and similar. It knows
//! nothing of traces, policies or divergences: it compares texts.
//!
//! Deliberately left out: discovering which cases exist and producing the
//! actual texts (the golden test harness does that), and an interactive review.

pub mod junit;

use similar::TextDiff;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The environment variable that selects the [`UpdateMode`].
pub const UPDATE_VAR: &str = "BOINC_AUDIT_UPDATE";

/// The environment variable that says we run in CI.
pub const CI_VAR: &str = "CI";

/// The suffix added to a golden file's name for its pending replacement.
pub const NEW_SUFFIX: &str = ".new";

/// Lines of context around each change in a golden diff.
const DIFF_CONTEXT_LINES: usize = 3;

/// What goes wrong when checking or reviewing goldens.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GoldenError {
    /// A file or directory could not be read, written, renamed or removed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// `BOINC_AUDIT_UPDATE` has a value other than `auto`, `new`, `always` or `no`.
    #[error("{UPDATE_VAR} must be one of auto, new, always, no, found \"{value}\"")]
    BadUpdateMode {
        /// The value found.
        value: String,
    },
}

impl GoldenError {
    fn io(path: &Path, source: io::Error) -> Self {
        GoldenError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// When a mismatch writes files (the values of `BOINC_AUDIT_UPDATE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UpdateMode {
    /// Write `<file>.new`, except in CI, where nothing is written.
    #[default]
    Auto,
    /// Always write `<file>.new`.
    New,
    /// Overwrite the golden file itself.
    Always,
    /// Write nothing.
    No,
}

impl UpdateMode {
    /// The name as written in `BOINC_AUDIT_UPDATE`.
    pub fn name(self) -> &'static str {
        match self {
            UpdateMode::Auto => "auto",
            UpdateMode::New => "new",
            UpdateMode::Always => "always",
            UpdateMode::No => "no",
        }
    }
}

impl FromStr for UpdateMode {
    type Err = GoldenError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value.trim() {
            "auto" => Ok(UpdateMode::Auto),
            "new" => Ok(UpdateMode::New),
            "always" => Ok(UpdateMode::Always),
            "no" => Ok(UpdateMode::No),
            _ => Err(GoldenError::BadUpdateMode {
                value: value.to_string(),
            }),
        }
    }
}

impl fmt::Display for UpdateMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The environment a golden check runs in, built by the caller.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoldenEnv {
    /// What a mismatch writes.
    pub update: UpdateMode,
    /// True when running in CI (then `auto` writes nothing).
    pub ci: bool,
}

impl GoldenEnv {
    /// Builds the environment from the values of `BOINC_AUDIT_UPDATE` and `CI`
    /// (`None` when unset).
    ///
    /// An unset or empty `BOINC_AUDIT_UPDATE` means `auto`. `CI` counts as set
    /// unless it is unset, empty, `0` or `false`.
    pub fn from_vars(update: Option<&str>, ci: Option<&str>) -> Result<Self, GoldenError> {
        let update = match update {
            None => UpdateMode::Auto,
            Some(value) if value.trim().is_empty() => UpdateMode::Auto,
            Some(value) => value.parse()?,
        };
        let ci = ci.is_some_and(|value| {
            let value = value.trim();
            !(value.is_empty() || value == "0" || value.eq_ignore_ascii_case("false"))
        });
        Ok(GoldenEnv { update, ci })
    }

    /// Reads `BOINC_AUDIT_UPDATE` and `CI` from the process environment.
    pub fn from_process_env() -> Result<Self, GoldenError> {
        let update = std::env::var_os(UPDATE_VAR).map(|value| value.to_string_lossy().into_owned());
        let ci = std::env::var_os(CI_VAR).map(|value| value.to_string_lossy().into_owned());
        GoldenEnv::from_vars(update.as_deref(), ci.as_deref())
    }

    /// What a mismatch writes in this environment.
    pub fn action(&self) -> UpdateAction {
        match self.update {
            UpdateMode::Auto if self.ci => UpdateAction::Nothing,
            UpdateMode::Auto | UpdateMode::New => UpdateAction::WriteNew,
            UpdateMode::Always => UpdateAction::Overwrite,
            UpdateMode::No => UpdateAction::Nothing,
        }
    }
}

/// What a mismatch writes, once the environment is taken into account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateAction {
    /// Write nothing.
    Nothing,
    /// Write `<file>.new` beside the golden file.
    WriteNew,
    /// Overwrite the golden file.
    Overwrite,
}

/// What a mismatch wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// Nothing was written.
    Nothing,
    /// The actual text was written to this `.new` file.
    New(PathBuf),
    /// The golden file was overwritten with the actual text.
    Golden(PathBuf),
}

/// The outcome of comparing an actual text with its golden file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// The texts are equal (any stale `.new` file was removed).
    Match,
    /// The texts differ.
    Mismatch(Mismatch),
}

impl Check {
    /// True when the case passes: the texts match, or the golden file was
    /// overwritten (`BOINC_AUDIT_UPDATE=always`).
    pub fn passed(&self) -> bool {
        match self {
            Check::Match => true,
            Check::Mismatch(mismatch) => matches!(mismatch.written, Written::Golden(_)),
        }
    }

    /// The mismatch, if any.
    pub fn mismatch(&self) -> Option<&Mismatch> {
        match self {
            Check::Match => None,
            Check::Mismatch(mismatch) => Some(mismatch),
        }
    }
}

/// How an actual text differs from its golden file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The golden file, as the caller named it.
    pub golden: PathBuf,
    /// True when the golden file did not exist.
    pub missing: bool,
    /// The first line (1-based) that differs.
    pub first_changed_line: usize,
    /// That line in the golden file (without its line end), if it has one.
    pub golden_line: Option<String>,
    /// That line in the actual text (without its line end), if it has one.
    pub actual_line: Option<String>,
    /// A unified diff from the golden text to the actual text.
    pub diff: String,
    /// What was written because of the mismatch.
    pub written: Written,
}

impl Mismatch {
    /// One line naming the first change, for summaries and JUnit messages.
    pub fn summary(&self) -> String {
        let side = |line: &Option<String>| match line {
            Some(text) => format!("{text:?}"),
            None => "end of file".to_string(),
        };
        format!(
            "{}:{}: golden {} but actual {}",
            self.golden.display(),
            self.first_changed_line,
            side(&self.golden_line),
            side(&self.actual_line)
        )
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.missing {
            writeln!(f, "golden file {} does not exist", self.golden.display())?;
        } else {
            writeln!(f, "golden file {} differs", self.golden.display())?;
        }
        writeln!(f, "first changed line: {}", self.summary())?;
        f.write_str(&self.diff)?;
        match &self.written {
            Written::Nothing => writeln!(
                f,
                "nothing written (set {UPDATE_VAR}=new to write a .new file to review)"
            ),
            Written::New(path) => writeln!(
                f,
                "wrote {}: review it, then run `boinc-audit golden accept` or `reject`",
                path.display()
            ),
            Written::Golden(path) => writeln!(f, "updated {}", path.display()),
        }
    }
}

/// The path of the pending replacement of `golden`: its name with `.new` added.
pub fn new_path(golden: &Path) -> PathBuf {
    let mut name = golden.as_os_str().to_os_string();
    name.push(NEW_SUFFIX);
    PathBuf::from(name)
}

/// Compares `actual` with the golden file `golden` and, on a mismatch,
/// writes what `env` asks for.
///
/// A golden file's `\r\n` line ends count as `\n` (a checkout may add them).
/// A missing golden file compares as empty. On a match, a stale `<file>.new`
/// is removed so that `pending` lists only real changes.
pub fn check(golden: &Path, actual: &str, env: &GoldenEnv) -> Result<Check, GoldenError> {
    let (expected, missing) = match fs::read(golden) {
        Ok(bytes) => (String::from_utf8_lossy(&bytes).replace("\r\n", "\n"), false),
        Err(error) if error.kind() == io::ErrorKind::NotFound => (String::new(), true),
        Err(error) => return Err(GoldenError::io(golden, error)),
    };
    let pending_path = new_path(golden);
    if !missing && expected == actual {
        remove_if_present(&pending_path)?;
        return Ok(Check::Match);
    }
    let (first_changed_line, golden_line, actual_line) = first_changed_line(&expected, actual);
    let diff = unified_diff(&expected, actual, &golden.display().to_string(), "actual");
    let written = match env.action() {
        UpdateAction::Nothing => Written::Nothing,
        UpdateAction::WriteNew => {
            write_file(&pending_path, actual)?;
            Written::New(pending_path)
        }
        UpdateAction::Overwrite => {
            write_file(golden, actual)?;
            remove_if_present(&pending_path)?;
            Written::Golden(golden.to_path_buf())
        }
    };
    Ok(Check::Mismatch(Mismatch {
        golden: golden.to_path_buf(),
        missing,
        first_changed_line,
        golden_line,
        actual_line,
        diff,
        written,
    }))
}

/// The first line (1-based) where `expected` and `actual` differ, with that
/// line of each side (without line end; `None` past the end).
///
/// Line ends count: a text lacking only its final newline differs at its last
/// line. Equal texts give the line after the last.
pub fn first_changed_line(expected: &str, actual: &str) -> (usize, Option<String>, Option<String>) {
    let mut expected_lines = expected.split_inclusive('\n');
    let mut actual_lines = actual.split_inclusive('\n');
    let mut line_number = 1;
    loop {
        match (expected_lines.next(), actual_lines.next()) {
            (Some(left), Some(right)) if left == right => line_number += 1,
            (None, None) => return (line_number, None, None),
            (left, right) => {
                let strip = |line: &str| line.trim_end_matches('\n').to_string();
                return (line_number, left.map(strip), right.map(strip));
            }
        }
    }
}

/// A unified diff (3 lines of context) from `old` to `new` with the given
/// header names; empty when the texts are equal.
///
/// A missing final newline is shown with diff's `\ No newline at end of file`.
pub fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(DIFF_CONTEXT_LINES)
        .header(old_name, new_name)
        .to_string()
}

/// Formats `value` with exactly `decimals` digits after the point, for
/// byte-stable text: `-0` prints as `0`, and non-finite values as `nan`,
/// `inf` and `-inf`.
pub fn fixed(value: f64, decimals: usize) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let text = format!("{value:.decimals$}");
    // A small negative number rounds to "-0.000"; print it as "0.000".
    if text.starts_with('-') && text[1..].bytes().all(|byte| byte == b'0' || byte == b'.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// One accepted change: a `.new` file renamed over its golden file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// The golden file now holding the accepted text.
    pub golden: PathBuf,
    /// True when the golden file did not exist before.
    pub created: bool,
}

/// Every pending `.new` file under `root`, sorted by path.
///
/// With `case`, only those in a directory named `case` (or whose path relative
/// to `root` ends with `case`, such as `valid/gpu-idle`). Symbolic links to
/// directories are not followed.
pub fn pending(root: &Path, case: Option<&str>) -> Result<Vec<PathBuf>, GoldenError> {
    let mut found = Vec::new();
    collect_new_files(root, &mut found)?;
    found.retain(|path| case.is_none_or(|case| in_case(root, path, case)));
    found.sort();
    Ok(found)
}

/// Renames every pending `.new` file under `root` (or in `case`) over its
/// golden file, and returns what changed.
pub fn accept(root: &Path, case: Option<&str>) -> Result<Vec<Accepted>, GoldenError> {
    let mut accepted = Vec::new();
    for pending_path in pending(root, case)? {
        let golden = golden_path(&pending_path);
        let created = !golden.exists();
        fs::rename(&pending_path, &golden)
            .map_err(|error| GoldenError::io(&pending_path, error))?;
        accepted.push(Accepted { golden, created });
    }
    Ok(accepted)
}

/// Deletes every pending `.new` file under `root` (or in `case`), and returns
/// the files deleted.
pub fn reject(root: &Path, case: Option<&str>) -> Result<Vec<PathBuf>, GoldenError> {
    let rejected = pending(root, case)?;
    for pending_path in &rejected {
        fs::remove_file(pending_path).map_err(|error| GoldenError::io(pending_path, error))?;
    }
    Ok(rejected)
}

/// The golden file a `.new` file would replace.
fn golden_path(pending_path: &Path) -> PathBuf {
    let name = pending_path.as_os_str().to_string_lossy();
    PathBuf::from(name.strip_suffix(NEW_SUFFIX).unwrap_or(&name).to_string())
}

fn collect_new_files(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), GoldenError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(GoldenError::io(dir, error)),
    };
    for entry in entries {
        let entry = entry.map_err(|error| GoldenError::io(dir, error))?;
        let path = entry.path();
        let file_type = entry
            .file_type()
            .map_err(|error| GoldenError::io(&path, error))?;
        if file_type.is_dir() {
            collect_new_files(&path, found)?;
        } else if file_type.is_file() && entry.file_name().to_string_lossy().ends_with(NEW_SUFFIX) {
            found.push(path);
        }
    }
    Ok(())
}

fn in_case(root: &Path, path: &Path, case: &str) -> bool {
    let Some(dir) = path.parent() else {
        return false;
    };
    let relative = dir.strip_prefix(root).unwrap_or(dir);
    let relative: Vec<String> = relative
        .components()
        .map(|component| component.as_os_str().to_string_lossy().into_owned())
        .collect();
    let wanted: Vec<&str> = case.split('/').filter(|part| !part.is_empty()).collect();
    !wanted.is_empty()
        && relative.len() >= wanted.len()
        && relative[relative.len() - wanted.len()..]
            .iter()
            .zip(&wanted)
            .all(|(have, want)| have == want)
}

fn write_file(path: &Path, text: &str) -> Result<(), GoldenError> {
    fs::write(path, text).map_err(|error| GoldenError::io(path, error))
}

fn remove_if_present(path: &Path) -> Result<(), GoldenError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(GoldenError::io(path, error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh, empty directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(label: &str) -> Self {
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!(
                "boinc-audit-golden-{label}-{}-{unique}",
                std::process::id()
            ));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn env(update: UpdateMode, ci: bool) -> GoldenEnv {
        GoldenEnv { update, ci }
    }

    #[test]
    fn env_from_vars() {
        assert_eq!(
            GoldenEnv::from_vars(None, None).unwrap(),
            env(UpdateMode::Auto, false)
        );
        assert_eq!(
            GoldenEnv::from_vars(Some("always"), Some("true")).unwrap(),
            env(UpdateMode::Always, true)
        );
        assert_eq!(
            GoldenEnv::from_vars(Some(""), Some("false")).unwrap(),
            env(UpdateMode::Auto, false)
        );
        let error = GoldenEnv::from_vars(Some("yes"), None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "BOINC_AUDIT_UPDATE must be one of auto, new, always, no, found \"yes\""
        );
    }

    #[test]
    fn actions_follow_insta() {
        assert_eq!(
            env(UpdateMode::Auto, false).action(),
            UpdateAction::WriteNew
        );
        assert_eq!(env(UpdateMode::Auto, true).action(), UpdateAction::Nothing);
        assert_eq!(env(UpdateMode::New, true).action(), UpdateAction::WriteNew);
        assert_eq!(
            env(UpdateMode::Always, true).action(),
            UpdateAction::Overwrite
        );
        assert_eq!(env(UpdateMode::No, false).action(), UpdateAction::Nothing);
    }

    #[test]
    fn first_changed_line_cases() {
        assert_eq!(
            first_changed_line("a\nb\nc\n", "a\nB\nc\n"),
            (2, Some("b".into()), Some("B".into()))
        );
        assert_eq!(
            first_changed_line("a\n", "a\nb\n"),
            (2, None, Some("b".into()))
        );
        assert_eq!(
            first_changed_line("a\nb", "a\nb\n"),
            (2, Some("b".into()), Some("b".into()))
        );
        assert_eq!(first_changed_line("a\n", "a\n"), (2, None, None));
    }

    #[test]
    fn match_removes_stale_new_file() {
        let dir = TempDir::new("match");
        let golden = dir.0.join("decisions.txt");
        fs::write(&golden, "a\r\nb\r\n").unwrap();
        fs::write(new_path(&golden), "stale").unwrap();
        let outcome = check(&golden, "a\nb\n", &env(UpdateMode::Auto, false)).unwrap();
        assert_eq!(outcome, Check::Match);
        assert!(outcome.passed());
        assert!(!new_path(&golden).exists());
    }

    #[test]
    fn mismatch_writes_new_file_and_reports() {
        let dir = TempDir::new("mismatch");
        let golden = dir.0.join("decisions.txt");
        fs::write(&golden, "1 run_list A: x\n2 run_list A: y\n").unwrap();
        let outcome = check(
            &golden,
            "1 run_list A: x\n2 run_list A: z\n",
            &env(UpdateMode::Auto, false),
        )
        .unwrap();
        assert!(!outcome.passed());
        let mismatch = outcome.mismatch().unwrap();
        assert_eq!(mismatch.first_changed_line, 2);
        assert_eq!(mismatch.golden_line.as_deref(), Some("2 run_list A: y"));
        assert_eq!(mismatch.actual_line.as_deref(), Some("2 run_list A: z"));
        assert!(mismatch
            .diff
            .contains("-2 run_list A: y\n+2 run_list A: z\n"));
        assert!(mismatch.diff.contains("+++ actual\n"));
        assert_eq!(mismatch.written, Written::New(new_path(&golden)));
        assert_eq!(
            fs::read_to_string(new_path(&golden)).unwrap(),
            "1 run_list A: x\n2 run_list A: z\n"
        );
        let shown = mismatch.to_string();
        assert!(shown.contains("first changed line: "), "{shown}");
        assert!(shown.contains(":2: golden \"2 run_list A: y\" but actual \"2 run_list A: z\""));
    }

    #[test]
    fn ci_writes_nothing_and_always_overwrites() {
        let dir = TempDir::new("modes");
        let golden = dir.0.join("decisions.txt");
        let outcome = check(&golden, "x\n", &env(UpdateMode::Auto, true)).unwrap();
        let mismatch = outcome.mismatch().unwrap();
        assert!(mismatch.missing);
        assert_eq!(mismatch.written, Written::Nothing);
        assert!(!golden.exists() && !new_path(&golden).exists());

        let outcome = check(&golden, "x\n", &env(UpdateMode::No, false)).unwrap();
        assert_eq!(outcome.mismatch().unwrap().written, Written::Nothing);

        let outcome = check(&golden, "x\n", &env(UpdateMode::Always, true)).unwrap();
        assert!(outcome.passed());
        assert_eq!(fs::read_to_string(&golden).unwrap(), "x\n");
        assert!(!new_path(&golden).exists());
    }

    #[test]
    fn pending_accept_reject() {
        let dir = TempDir::new("review");
        let case_a = dir.0.join("valid").join("case-a");
        let case_b = dir.0.join("valid").join("case-b");
        fs::create_dir_all(&case_a).unwrap();
        fs::create_dir_all(&case_b).unwrap();
        fs::write(case_a.join("decisions.txt"), "old\n").unwrap();
        fs::write(case_a.join("decisions.txt.new"), "new\n").unwrap();
        fs::write(case_a.join("divergences.txt.new"), "none\n").unwrap();
        fs::write(case_b.join("decisions.txt.new"), "b\n").unwrap();

        let all = pending(&dir.0, None).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(pending(&dir.0, Some("case-b")).unwrap().len(), 1);
        assert_eq!(pending(&dir.0, Some("valid/case-a")).unwrap().len(), 2);
        assert!(pending(&dir.0, Some("case-c")).unwrap().is_empty());
        assert!(pending(&dir.0.join("absent"), None).unwrap().is_empty());

        let accepted = accept(&dir.0, Some("case-a")).unwrap();
        assert_eq!(
            accepted,
            vec![
                Accepted {
                    golden: case_a.join("decisions.txt"),
                    created: false
                },
                Accepted {
                    golden: case_a.join("divergences.txt"),
                    created: true
                },
            ]
        );
        assert_eq!(
            fs::read_to_string(case_a.join("decisions.txt")).unwrap(),
            "new\n"
        );

        let rejected = reject(&dir.0, None).unwrap();
        assert_eq!(rejected, vec![case_b.join("decisions.txt.new")]);
        assert!(pending(&dir.0, None).unwrap().is_empty());
    }

    #[test]
    fn fixed_precision() {
        assert_eq!(fixed(1.0 / 3.0, 3), "0.333");
        assert_eq!(fixed(-0.0001, 3), "0.000");
        assert_eq!(fixed(-1.5, 1), "-1.5");
        assert_eq!(fixed(f64::NAN, 2), "nan");
        assert_eq!(fixed(f64::NEG_INFINITY, 2), "-inf");
        assert_eq!(fixed(2.0, 0), "2");
    }
}

//! The golden suite: every case under `golden/`, replayed and compared with
//! its byte-stable golden texts.
//!
//! A case is a folder `golden/<case>/` holding:
//! - `case.toml`: `trace` (paths of the inputs, relative to the case folder;
//!   default: the case folder itself), optional `policy`, `set = ["KEY=VALUE"]`,
//!   `tolerance`, and `[[explained]]` entries, each with `why` and any of
//!   `kind`, `field`, `project`, `time_label`, that explain divergences from
//!   the recorded reference;
//! - `decisions.txt`: the replayed decision timeline, one decision per line
//!   (a change detector for policy edits);
//! - `divergences.txt`: the divergences from the recorded reference (`none`
//!   normally). Every divergence must be explained in `case.toml`.
//!
//! Architecture Invariant: this is orchestration (parse → replay → texts →
//! [`crate::golden::check`]); it adds no policy logic and renders nothing but
//! the golden texts.

use crate::audit;
use crate::divergence::{Divergence, DivergenceReport};
use crate::golden::{self, Check, GoldenEnv, Mismatch};
use crate::parse::{load_trace, LogOptions};
use crate::policy::Params;
use crate::replay::AuditOptions;
use crate::report::timeline::{divergence_line, divergences_text, timeline_text, Side};
use std::path::{Path, PathBuf};

/// The replayed decision timeline's file name.
pub const DECISIONS_FILE: &str = "decisions.txt";
/// The divergences file's name.
pub const DIVERGENCES_FILE: &str = "divergences.txt";
/// How many unexplained divergences a failure lists before summarising.
const MAX_LISTED_UNEXPLAINED: usize = 10;
/// The case description's file name.
pub const CASE_FILE: &str = "case.toml";

/// One explanation of expected divergences.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Explained {
    /// Why these divergences are expected (required, non-empty).
    pub why: String,
    /// Matches divergences of this decision kind (`rr_sim`, …), if given.
    pub kind: Option<String>,
    /// Matches this field, if given.
    pub field: Option<String>,
    /// Matches this project, if given.
    pub project: Option<String>,
    /// Matches this time label, if given.
    pub time_label: Option<String>,
}

impl Explained {
    fn covers(&self, divergence: &Divergence) -> bool {
        let same = |want: &Option<String>, got: Option<&str>| {
            want.as_deref().is_none_or(|want| Some(want) == got)
        };
        same(&self.kind, Some(divergence.kind.name()))
            && same(&self.field, Some(&divergence.field))
            && same(&self.project, divergence.project.as_deref())
            && same(&self.time_label, Some(&divergence.time_label))
    }
}

/// One golden case, as described by its `case.toml`.
#[derive(Clone, Debug, PartialEq)]
pub struct GoldenCase {
    /// The case's name: its folder name.
    pub name: String,
    /// The case folder.
    pub dir: PathBuf,
    /// The trace's inputs.
    pub trace: Vec<PathBuf>,
    /// The policy to replay (`None` = auto).
    pub policy: Option<String>,
    /// `--set` overrides recorded in the case.
    pub set: Vec<String>,
    /// Relative tolerance.
    pub tolerance: f64,
    /// Explanations of expected divergences.
    pub explained: Vec<Explained>,
}

/// The result of running one case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// The decisions.txt check.
    pub decisions: Option<Check>,
    /// The divergences.txt check.
    pub divergences: Option<Check>,
    /// Divergences no `[[explained]]` entry covers, as golden lines.
    pub unexplained: Vec<String>,
    /// The first changed decision, with the rule behind it, when decisions changed.
    pub first_change: Option<String>,
    /// Trouble running the case (bad case.toml, unreadable trace, replay error).
    pub error: Option<String>,
}

impl CaseResult {
    /// True when the case passes.
    pub fn passed(&self) -> bool {
        self.error.is_none()
            && self.unexplained.is_empty()
            && self.decisions.as_ref().is_some_and(Check::passed)
            && self.divergences.as_ref().is_some_and(Check::passed)
    }

    /// Every mismatch of this case.
    pub fn mismatches(&self) -> impl Iterator<Item = &Mismatch> {
        self.decisions
            .iter()
            .chain(&self.divergences)
            .filter_map(Check::mismatch)
    }

    /// A human-readable account of what failed (empty when it passed).
    pub fn failure_text(&self) -> String {
        let mut text = String::new();
        if let Some(error) = &self.error {
            text.push_str(&format!("error: {error}\n"));
        }
        if let Some(first) = &self.first_change {
            text.push_str(&format!("first changed decision: {first}\n"));
        }
        for line in self.unexplained.iter().take(MAX_LISTED_UNEXPLAINED) {
            text.push_str(&format!(
                "unexplained divergence (add an [[explained]] entry with a why): {line}\n"
            ));
        }
        if self.unexplained.len() > MAX_LISTED_UNEXPLAINED {
            text.push_str(&format!(
                "... and {} more unexplained divergences (see divergences.txt)\n",
                self.unexplained.len() - MAX_LISTED_UNEXPLAINED
            ));
        }
        for mismatch in self.mismatches() {
            if !matches!(mismatch.written, golden::Written::Golden(_)) {
                text.push_str(&format!("{mismatch}\n"));
            }
        }
        text
    }
}

/// Finds the cases under `root` (folders holding a `case.toml`), sorted by
/// name; `only` keeps the case of that name. A folder under `root` that holds
/// golden files but no `case.toml` is an error: a golden without a trace.
pub fn discover_cases(root: &Path, only: Option<&str>) -> Result<Vec<GoldenCase>, String> {
    let entries = std::fs::read_dir(root).map_err(|err| format!("{}: {err}", root.display()))?;
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    let mut cases = Vec::new();
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        if only.is_some_and(|only| only != name) {
            continue;
        }
        let case_file = dir.join(CASE_FILE);
        if !case_file.exists() {
            if dir.join(DECISIONS_FILE).exists() || dir.join(DIVERGENCES_FILE).exists() {
                return Err(format!(
                    "{}: golden files without a {CASE_FILE} (no trace to replay)",
                    dir.display()
                ));
            }
            continue;
        }
        cases.push(read_case(&dir, name)?);
    }
    if let Some(only) = only {
        if cases.is_empty() {
            return Err(format!(
                "no golden case named {only:?} under {}",
                root.display()
            ));
        }
    }
    Ok(cases)
}

fn read_case(dir: &Path, name: String) -> Result<GoldenCase, String> {
    let case_file = dir.join(CASE_FILE);
    let text = std::fs::read_to_string(&case_file)
        .map_err(|err| format!("{}: {err}", case_file.display()))?;
    let table: toml::Table =
        toml::from_str(&text).map_err(|err| format!("{}: {err}", case_file.display()))?;
    let strings = |key: &str| -> Vec<String> {
        match table.get(key) {
            Some(toml::Value::String(one)) => vec![one.clone()],
            Some(toml::Value::Array(many)) => many
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    };
    let trace: Vec<PathBuf> = match strings("trace") {
        paths if paths.is_empty() => vec![dir.to_path_buf()],
        paths => paths.iter().map(|path| dir.join(path)).collect(),
    };
    for path in &trace {
        if !path.exists() {
            return Err(format!(
                "{}: trace {} does not exist",
                case_file.display(),
                path.display()
            ));
        }
    }
    let mut explained = Vec::new();
    for entry in table
        .get("explained")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let get = |key: &str| entry.get(key).and_then(|v| v.as_str()).map(str::to_string);
        let why = get("why").unwrap_or_default();
        if why.trim().is_empty() {
            return Err(format!(
                "{}: every [[explained]] entry needs a non-empty why",
                case_file.display()
            ));
        }
        explained.push(Explained {
            why,
            kind: get("kind"),
            field: get("field"),
            project: get("project"),
            time_label: get("time_label"),
        });
    }
    Ok(GoldenCase {
        name,
        dir: dir.to_path_buf(),
        trace,
        policy: table
            .get("policy")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        set: strings("set"),
        tolerance: table
            .get("tolerance")
            .and_then(|v| v.as_float())
            .unwrap_or(1e-6),
        explained,
    })
}

/// Replays `case` (with `extra_set` overrides after the case's own) and returns
/// the report.
pub fn replay_case(case: &GoldenCase, extra_set: &[String]) -> Result<DivergenceReport, String> {
    let mut params = Params::default();
    for assignment in case.set.iter().chain(extra_set) {
        let (key, value) = assignment
            .split_once('=')
            .ok_or_else(|| format!("set {assignment:?}: expected KEY=VALUE"))?;
        params
            .set(key.trim(), value.trim())
            .map_err(|err| format!("set {assignment}: {err}"))?;
    }
    let parsed = load_trace(&case.trace, &LogOptions::default());
    if let Some(error) = parsed.errors.first() {
        return Err(format!("the trace does not parse: {error}"));
    }
    let options = AuditOptions {
        params,
        tolerance: case.tolerance,
        policy: case.policy.clone(),
    };
    audit::audit_trace(&parsed.value, &case.name, &options).map_err(|err| err.to_string())
}

/// Runs one case: replays it and checks both golden texts.
pub fn run_case(case: &GoldenCase, extra_set: &[String], env: &GoldenEnv) -> CaseResult {
    let mut result = CaseResult {
        name: case.name.clone(),
        decisions: None,
        divergences: None,
        unexplained: Vec::new(),
        first_change: None,
        error: None,
    };
    let report = match replay_case(case, extra_set) {
        Ok(report) => report,
        Err(error) => {
            result.error = Some(error);
            return result;
        }
    };
    result.unexplained = report
        .divergences
        .iter()
        .filter(|divergence| {
            !case
                .explained
                .iter()
                .any(|explained| explained.covers(divergence))
        })
        .map(divergence_line)
        .collect();
    let decisions = timeline_text(&report, Side::Replayed);
    match golden::check(&case.dir.join(DECISIONS_FILE), &decisions, env) {
        Ok(check) => {
            result.first_change = check
                .mismatch()
                .map(|mismatch| describe_change(&report, mismatch));
            result.decisions = Some(check);
        }
        Err(err) => result.error = Some(err.to_string()),
    }
    match golden::check(
        &case.dir.join(DIVERGENCES_FILE),
        &divergences_text(&report),
        env,
    ) {
        Ok(check) => result.divergences = Some(check),
        Err(err) => result.error = Some(err.to_string()),
    }
    result
}

/// Names the first changed decision and the rule behind the replayed value:
/// the reasons of the divergences recorded at that decision point.
fn describe_change(report: &DivergenceReport, mismatch: &Mismatch) -> String {
    let line_idx = mismatch.first_changed_line.saturating_sub(1);
    let Some(point) = report.points.get(line_idx) else {
        return format!(
            "line {}: decisions removed at the end",
            mismatch.first_changed_line
        );
    };
    let reasons: Vec<&str> = report
        .divergences
        .iter()
        .filter(|divergence| {
            divergence.kind == point.kind && divergence.time_label == point.time_label
        })
        .map(|divergence| divergence.reason.as_str())
        .take(3)
        .collect();
    let mut text = format!(
        "line {}: {} {} {}: was {:?}, now {:?}",
        mismatch.first_changed_line,
        point.time_label,
        point.kind,
        point.project.as_deref().unwrap_or("-"),
        mismatch.golden_line.as_deref().unwrap_or("(none)"),
        mismatch.actual_line.as_deref().unwrap_or("(none)"),
    );
    if !reasons.is_empty() {
        text.push_str(&format!("; rule: {}", reasons.join("; ")));
    }
    text
}

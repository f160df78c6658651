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
//! A **simulation case** has `scenario = "..."` (seed notation, or an inputs
//! folder relative to the case folder) instead of `trace`, with `duration`,
//! `delta`, `seed` (defaults 172800, 300, 1), optional `windows = [[a, b], …]`
//! (hours; adds `usage P R @a-b` values), and `[[expect]]` entries
//! (`value` as named in figures.txt, `min` and/or `max`, `why`): the seeds'
//! stated outcomes. Its golden texts are `figures.txt` (every figure of merit,
//! usage and deadline count, fixed precision: the change detector) and
//! `expectations.txt` (one verdict line per expectation); a failed
//! expectation fails the case even after `golden accept`.
//!
//! A **snapshot case** has a `[snapshot]` table (`ncpus`, `flops`,
//! `min_buf`, `add_buf`, `deadline` in seconds, `seed_rates`, and
//! `[[snapshot.project]]` entries with `name`, `share`, `rec` and `jobs` =
//! CPU seconds of queued jobs): one simulation of the `policy` generation
//! ([`crate::snapshot`]), recorded and checked like a simulation case.
//!
//! Architecture Invariant: this is orchestration (parse → replay → texts →
//! [`crate::golden::check`]); it adds no policy logic and renders nothing but
//! the golden texts.

use crate::audit;
use crate::divergence::{Divergence, DivergenceReport};
use crate::golden::{self, Check, GoldenEnv, Mismatch};
use crate::parse::{load_trace, LogOptions};
use crate::policy::generation::Generation;
use crate::policy::Params;
use crate::replay::AuditOptions;
use crate::report::timeline::{divergence_line, divergences_text, timeline_text, Side};
use crate::snapshot::{self, Snapshot, SnapshotProject};
use std::path::{Path, PathBuf};

/// The replayed decision timeline's file name.
pub const DECISIONS_FILE: &str = "decisions.txt";
/// The divergences file's name.
pub const DIVERGENCES_FILE: &str = "divergences.txt";
/// A simulation case's figures file.
pub const FIGURES_FILE: &str = "figures.txt";
/// A simulation case's expectation verdicts.
pub const EXPECTATIONS_FILE: &str = "expectations.txt";
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

/// A closed-loop simulation instead of a trace replay.
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationCase {
    /// Seed notation, or the path of an inputs folder.
    pub scenario: String,
    /// Simulated seconds.
    pub duration: f64,
    /// Time step.
    pub delta: f64,
    /// PRNG seed.
    pub seed: u64,
    /// Usage windows, hours after the start: values `usage P R @a-b`.
    pub windows: Vec<(f64, f64)>,
}

/// An expected outcome of a simulation case: `value` within `[min, max]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// The figure's name as in figures.txt (`usage A NVIDIA GPU`, `idle_fraction`, …).
    pub value: String,
    /// Lower bound, inclusive.
    pub min: Option<f64>,
    /// Upper bound, inclusive.
    pub max: Option<f64>,
    /// Where the expectation comes from.
    pub why: String,
}

impl Expectation {
    fn range(&self) -> String {
        let bound =
            |b: Option<f64>, inf: &str| b.map_or_else(|| inf.to_string(), |b| b.to_string());
        format!("[{}, {}]", bound(self.min, "-inf"), bound(self.max, "inf"))
    }

    /// Inclusive, with a relative slack of 1e-9 for the last bits of a float.
    fn holds(&self, value: f64) -> bool {
        let slack = |bound: f64| 1e-9 * bound.abs().max(1.0);
        self.min.is_none_or(|min| value >= min - slack(min))
            && self.max.is_none_or(|max| value <= max + slack(max))
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
    /// A simulation case (then `trace` is empty).
    pub simulation: Option<SimulationCase>,
    /// A snapshot case (then `trace` is empty).
    pub snapshot: Option<Snapshot>,
    /// A simulation or snapshot case's expected outcomes.
    pub expect: Vec<Expectation>,
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
    /// Simulation cases: expectations that do not hold, as sentences.
    pub failed_expectations: Vec<String>,
}

impl CaseResult {
    /// True when the case passes.
    pub fn passed(&self) -> bool {
        self.error.is_none()
            && self.unexplained.is_empty()
            && self.failed_expectations.is_empty()
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
        for line in &self.failed_expectations {
            text.push_str(&format!("expectation not met: {line}\n"));
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
    let simulation = read_simulation(&table, dir, &case_file)?;
    let snapshot = read_snapshot(&table, &case_file)?;
    let trace: Vec<PathBuf> = match strings("trace") {
        _ if simulation.is_some() || snapshot.is_some() => Vec::new(),
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
        simulation,
        snapshot,
        expect: read_expectations(&table, &case_file)?,
    })
}

fn read_simulation(
    table: &toml::Table,
    dir: &Path,
    case_file: &Path,
) -> Result<Option<SimulationCase>, String> {
    let Some(scenario) = table.get("scenario").and_then(|v| v.as_str()) else {
        return Ok(None);
    };
    let scenario = if crate::simulate::scenario::is_notation(scenario) {
        scenario.to_string()
    } else {
        let path = dir.join(scenario);
        if !path.exists() {
            return Err(format!(
                "{}: scenario {} is neither seed notation nor an existing folder",
                case_file.display(),
                path.display()
            ));
        }
        path.to_string_lossy().into_owned()
    };
    let number = |key: &str, default: f64| -> Result<f64, String> {
        match table.get(key) {
            None => Ok(default),
            Some(value) => value
                .as_float()
                .or_else(|| value.as_integer().map(|i| i as f64))
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| format!("{}: {key} must be a positive number", case_file.display())),
        }
    };
    let mut windows = Vec::new();
    for window in table
        .get("windows")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let pair: Vec<f64> = window
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
            .collect();
        match pair.as_slice() {
            [a, b] if a < b => windows.push((*a, *b)),
            _ => {
                return Err(format!(
                    "{}: every window is [start_hours, end_hours] with start < end",
                    case_file.display()
                ))
            }
        }
    }
    Ok(Some(SimulationCase {
        scenario,
        duration: number("duration", 172800.0)?,
        delta: number("delta", 300.0)?,
        seed: number("seed", 1.0)? as u64,
        windows,
    }))
}

fn read_snapshot(table: &toml::Table, case_file: &Path) -> Result<Option<Snapshot>, String> {
    let Some(snap) = table.get("snapshot").and_then(|v| v.as_table()) else {
        return Ok(None);
    };
    let bad = |what: &str| format!("{}: [snapshot] {what}", case_file.display());
    let number = |t: &toml::Table, key: &str, default: Option<f64>| -> Result<f64, String> {
        match t.get(key) {
            None => default.ok_or_else(|| bad(&format!("needs {key}"))),
            Some(v) => v
                .as_float()
                .or_else(|| v.as_integer().map(|i| i as f64))
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| bad(&format!("{key} must be a number >= 0"))),
        }
    };
    let policy = match table.get("policy").and_then(|v| v.as_str()) {
        Some(name) => name
            .parse::<Generation>()
            .map_err(|err| bad(&err.to_string()))?,
        None => Generation::Current,
    };
    let mut projects = Vec::new();
    for p in snap
        .get("project")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_table())
    {
        let name = p
            .get("name")
            .and_then(|v| v.as_str())
            .ok_or_else(|| bad("every [[snapshot.project]] needs a name"))?;
        let jobs = match p.get("jobs").and_then(|v| v.as_array()) {
            None => Vec::new(),
            Some(values) => values
                .iter()
                .map(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
                .collect::<Option<Vec<f64>>>()
                .ok_or_else(|| bad(&format!("{name}: jobs must be numbers (CPU seconds)")))?,
        };
        projects.push(SnapshotProject {
            name: name.to_string(),
            share: number(p, "share", None)?,
            rec: number(p, "rec", Some(0.0))?,
            jobs,
        });
    }
    Ok(Some(Snapshot {
        policy,
        ncpus: number(snap, "ncpus", Some(1.0))? as usize,
        flops: number(snap, "flops", Some(1e9))?,
        min_buf: number(snap, "min_buf", None)?,
        add_buf: number(snap, "add_buf", Some(0.0))?,
        deadline: number(snap, "deadline", Some(7.0 * 86400.0))?,
        projects,
        seed_rates: snap
            .get("seed_rates")
            .and_then(|v| v.as_bool())
            .unwrap_or(false),
    }))
}

fn read_expectations(table: &toml::Table, case_file: &Path) -> Result<Vec<Expectation>, String> {
    let mut out = Vec::new();
    for entry in table
        .get("expect")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let get = |key: &str| entry.get(key).and_then(|v| v.as_str()).map(str::to_string);
        let bound = |key: &str| {
            entry
                .get(key)
                .and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
        };
        let (Some(value), Some(why)) = (get("value"), get("why").filter(|w| !w.trim().is_empty()))
        else {
            return Err(format!(
                "{}: every [[expect]] entry needs a value and a non-empty why",
                case_file.display()
            ));
        };
        let (min, max) = (bound("min"), bound("max"));
        if min.is_none() && max.is_none() {
            return Err(format!(
                "{}: [[expect]] {value:?} needs min or max",
                case_file.display()
            ));
        }
        out.push(Expectation {
            value,
            min,
            max,
            why,
        });
    }
    Ok(out)
}

/// Replays `case` (with `extra_set` overrides after the case's own) and returns
/// the report.
pub fn replay_case(case: &GoldenCase, extra_set: &[String]) -> Result<DivergenceReport, String> {
    let mut params = Params::default();
    apply_sets(&mut params, case.set.iter().chain(extra_set))?;
    let parsed = load_trace(&case.trace, &LogOptions::default());
    if let Some(error) = parsed.errors.first() {
        return Err(format!("the trace does not parse: {error}"));
    }
    let options = AuditOptions {
        params,
        tolerance: case.tolerance,
        policy: case.policy.clone(),
        client_version: None,
        since_changed: false,
        user_set: Params::assignment_keys(case.set.iter().chain(extra_set)),
        summary: false,
        stated_step: None,
    };
    audit::audit_trace(&parsed.value, &case.name, &options).map_err(|err| err.to_string())
}

fn apply_sets<'a>(
    params: &mut Params,
    sets: impl Iterator<Item = &'a String>,
) -> Result<(), String> {
    for assignment in sets {
        params
            .apply_assignment(assignment)
            .map_err(|err| format!("set {assignment}: {err}"))?;
    }
    Ok(())
}

/// Runs one case: replays (or simulates) it and checks both golden texts.
pub fn run_case(case: &GoldenCase, extra_set: &[String], env: &GoldenEnv) -> CaseResult {
    let mut result = CaseResult {
        name: case.name.clone(),
        decisions: None,
        divergences: None,
        unexplained: Vec::new(),
        first_change: None,
        error: None,
        failed_expectations: Vec::new(),
    };
    if let Some(simulation) = &case.simulation {
        run_simulation_case(case, simulation, extra_set, env, &mut result);
        return result;
    }
    if let Some(snapshot) = &case.snapshot {
        let mut params = Params::default();
        let values = apply_sets(&mut params, case.set.iter().chain(extra_set))
            .and_then(|()| snapshot::evaluate(snapshot, &params));
        match values {
            Ok(values) => check_figures(case, &values, env, &mut result),
            Err(error) => result.error = Some(error),
        }
        return result;
    }
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

/// Simulates a simulation case, writes its figures and expectation verdicts,
/// and checks them against the golden files.
fn run_simulation_case(
    case: &GoldenCase,
    simulation: &SimulationCase,
    extra_set: &[String],
    env: &GoldenEnv,
    result: &mut CaseResult,
) {
    let mut params = crate::simulate::emulator_params(simulation.delta);
    if let Err(error) = apply_sets(&mut params, case.set.iter().chain(extra_set)) {
        result.error = Some(error);
        return;
    }
    let policy = match case.policy.as_deref().map(str::parse::<Generation>) {
        None => Generation::Current,
        Some(Ok(policy)) => policy,
        Some(Err(error)) => {
            result.error = Some(error.to_string());
            return;
        }
    };
    let options = crate::simulate::SimOptions {
        duration: simulation.duration,
        delta: simulation.delta,
        seed: simulation.seed,
        existing_jobs_only: false,
        params: Some(params),
        policy,
        windows: simulation
            .windows
            .iter()
            .map(|(a, b)| (a * 3600.0, b * 3600.0))
            .collect(),
        keep_transcripts: false,
        release: None,
    };
    let report = match crate::simulate::simulate_scenario(&simulation.scenario, &options) {
        Ok(report) => report,
        Err(error) => {
            result.error = Some(error.to_string());
            return;
        }
    };
    let values = crate::compare::named_values(&report);
    check_figures(case, &values, env, result);
}

/// Writes a simulation or snapshot case's figures and expectation verdicts
/// and checks them against the golden files.
fn check_figures(
    case: &GoldenCase,
    values: &[(String, f64)],
    env: &GoldenEnv,
    result: &mut CaseResult,
) {
    let mut figures = String::new();
    for (name, value) in values {
        let decimals = if name.starts_with("deadlines_") { 0 } else { 6 };
        figures.push_str(&format!("{name} {}\n", golden::fixed(*value, decimals)));
    }
    let mut verdicts = String::new();
    for expectation in &case.expect {
        let value = values
            .iter()
            .find(|(name, _)| *name == expectation.value)
            .map(|(_, value)| *value);
        let verdict = match value {
            Some(value) if expectation.holds(value) => "ok".to_string(),
            Some(value) => {
                result.failed_expectations.push(format!(
                    "{} = {} not in {} ({})",
                    expectation.value,
                    golden::fixed(value, 6),
                    expectation.range(),
                    expectation.why
                ));
                "NOT MET".to_string()
            }
            None => {
                result.failed_expectations.push(format!(
                    "{}: no such figure (see {FIGURES_FILE})",
                    expectation.value
                ));
                "NO SUCH FIGURE".to_string()
            }
        };
        verdicts.push_str(&format!(
            "{} in {}: {verdict}\n",
            expectation.value,
            expectation.range()
        ));
    }
    match golden::check(&case.dir.join(FIGURES_FILE), &figures, env) {
        Ok(check) => {
            result.first_change = check.mismatch().map(|mismatch| {
                format!(
                    "line {}: was {:?}, now {:?}",
                    mismatch.first_changed_line,
                    mismatch.golden_line.as_deref().unwrap_or("(none)"),
                    mismatch.actual_line.as_deref().unwrap_or("(none)")
                )
            });
            result.decisions = Some(check);
        }
        Err(err) => result.error = Some(err.to_string()),
    }
    match golden::check(&case.dir.join(EXPECTATIONS_FILE), &verdicts, env) {
        Ok(check) => result.divergences = Some(check),
        Err(err) => result.error = Some(err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch case folder under the system's temporary directory.
    fn scratch_case(name: &str, case_toml: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("boinc-audit-{}-{name}", std::process::id()));
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(CASE_FILE), case_toml).unwrap();
        root
    }

    #[test]
    fn a_simulation_case_fails_when_an_expectation_does_not_hold() {
        // One CPU-only project on one CPU: it must get (nearly) all of it, so a
        // maximum of 0.5 cannot hold, and a figure that does not exist is named.
        let root = scratch_case(
            "sim",
            r#"
scenario = "P(1, 24, 1) NCPUS=1"
duration = 86400
delta = 600
[[expect]]
value = "usage P CPU"
max = 0.5
why = "deliberately wrong"
[[expect]]
value = "usage Q CPU"
min = 0
why = "no such project"
"#,
        );
        let cases = discover_cases(&root, None).unwrap();
        assert_eq!(cases.len(), 1);
        assert!(cases[0].simulation.is_some() && cases[0].trace.is_empty());
        let env = GoldenEnv::from_vars(Some("no"), Some("true")).unwrap();
        let result = run_case(&cases[0], &[], &env);
        assert_eq!(result.error, None);
        assert!(!result.passed());
        assert_eq!(
            result.failed_expectations.len(),
            2,
            "{:?}",
            result.failed_expectations
        );
        assert!(result.failed_expectations[0].starts_with("usage P CPU = "));
        assert!(result
            .failure_text()
            .contains("expectation not met: usage Q CPU: no such figure"));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn an_expectation_needs_a_bound_and_a_why() {
        for (name, body) in [
            (
                "nobound",
                "scenario = \"P(1, 24, 1)\"\n[[expect]]\nvalue = \"usage P CPU\"\nwhy = \"x\"\n",
            ),
            (
                "nowhy",
                "scenario = \"P(1, 24, 1)\"\n[[expect]]\nvalue = \"usage P CPU\"\nmin = 0\n",
            ),
        ] {
            let root = scratch_case(name, body);
            assert!(discover_cases(&root, None).is_err(), "{name}");
            std::fs::remove_dir_all(root).unwrap();
        }
    }
}

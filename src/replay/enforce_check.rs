//! An enforcement pass re-derived from its own lines (client/cpu_sched.cpp
//! `CLIENT_STATE::enforce_run_list`, the same scan from 7.2 to today;
//! spec/policy-current.md §8 enforcement).
//!
//! The pass prints its final job list, in the order the scan walks it, with
//! each job's CPU use (`N: JOB (C CPU + G GPU; MD: …; UTS: …)`, 7.24 on),
//! then one line per job the scan reaches: `scheduling JOB`, or why it is
//! skipped. The scan's CPU rule is checked against those lines:
//!
//! - with `ncpus_used >= ncpus` a CPU job is skipped (`all CPUs used (U >=
//!   N)`, whose `U` must be the sum of the CPU use of the jobs scheduled
//!   before it) and a GPU job is skipped only when its CPU use would take
//!   the total over `ncpus + 1` (`skipping GPU job …; CPU committed`);
//! - below that a job is scheduled, unless a limit the pass prints stops it:
//!   a max_concurrent limit, the user's CPU limit (today's client: only
//!   when the job would take the total over `ncpus`), or the RAM left (the
//!   job's working set must exceed the RAM the line prints, and the RAM
//!   left never grows within the pass).
//!
//! What the lines do not tell is taken as given, never guessed: GPU jobs the
//! coprocessor assignment drops (printed only with `coproc_debug`; a GPU
//! job with no line), the max_concurrent limits and the working sets of
//! scheduled jobs. A CPU job with no line at all (a line of a form the
//! catalogue does not know) leaves the pass not checked. The CPU count `N` is printed only when a CPU job is
//! skipped or CPUs stay idle (`using U out of N CPUs`): taken from the pass,
//! else from the last line before it that printed it (those two, work
//! fetch's `set_request() for CPU: ninst N`, `Number of usable CPUs has
//! changed from A to N`).
//!
//! Each CPU use is printed with two decimals; a comparison closer to its
//! bound than the rounding of the summed values allows is not decided
//! (a use printed as a whole number is taken as exact).
//!
//! Architecture Invariant: pure; reads the events and the recorded points.

use super::decision::Decision;
use super::recorded::RecordedPoint;
use crate::resource::ResourceType;
use crate::trace::event::LogEvent;
use crate::trace::message::Message;
use std::collections::{BTreeMap, HashMap};

/// The actions a pass's own lines call for (the recorded ones with each
/// `schedule JOB` recomputed) and the rule's account, or why the pass
/// cannot be re-derived.
pub type Rederived = Result<(Vec<String>, String), String>;

/// How the pass's lines say the scan treated one job.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Scheduled,
    /// `all CPUs used (U >= N)`.
    AllCpusUsed(Option<f64>),
    GpuCpuCommitted,
    MaxConcurrent,
    UserCpuLimit,
    /// Working set and RAM left, MB.
    TooBig(f64, f64),
    /// The swap figure and the swap left, GB (8.2.14 on).
    SwapTooBig(f64, f64),
    /// Dropped by the coprocessor assignment (`Insufficient …`).
    NoCoproc,
    /// 7.0's multithread overcommit rule (taken as given).
    MtOvercommit,
}

/// One job of the final job list.
struct Listed {
    job: String,
    ncpus: f64,
    gpu: bool,
}

/// One enforcement pass as its lines show it.
#[derive(Default)]
struct Pass {
    /// The final job list; `None` before `final job list:`.
    list: Option<Vec<Listed>>,
    /// A listed job without its CPU use (before 7.24) and none printed
    /// by a simulation before the pass.
    no_use: bool,
    /// Some CPU uses come from the simulations before the pass.
    use_from_sim: bool,
    outcomes: HashMap<String, Outcome>,
    /// `using U out of N CPUs`.
    using: Option<(f64, u32)>,
    /// The CPU count the pass printed.
    ncpus: Option<u32>,
    /// `[mem_usage] enforce: available RAM X` (MB).
    ram_mb: Option<f64>,
    /// Its end line was read.
    ended: bool,
}

/// How far a pass's lines are looked for: a job list of thousands of jobs
/// fits; a start line with no end line does not scan the rest of the log.
const MAX_PASS_LINES: usize = 100_000;

/// Every enforcement point's actions re-derived from its pass's lines (keyed
/// by the point's event index).
pub fn rederive(events: &[LogEvent], points: &[RecordedPoint]) -> BTreeMap<usize, Rederived> {
    rederive_from(events, points, None, 0)
}

/// [`rederive`] for the passes from `from` on, `ncpus` being the usable CPU
/// count the lines before it printed last (a window of a long session).
pub fn rederive_from(
    events: &[LogEvent],
    points: &[RecordedPoint],
    ncpus: Option<u32>,
    from: usize,
) -> BTreeMap<usize, Rederived> {
    let mut out = BTreeMap::new();
    let mut last_ncpus: Option<u32> = ncpus;
    let mut scanned = from;
    // Each job's use as the simulations print it (before 7.24 the job list
    // does not): read from the window's first line, its warm-up included.
    let mut sim_use: HashMap<String, (f64, bool)> = HashMap::new();
    let mut sim_scanned = 0;
    for point in points.iter().filter(|p| p.event_idx >= from) {
        let Decision::Enforcement(actions) = &point.decision else {
            continue;
        };
        if point.cut_before || point.cut_after {
            continue;
        }
        // The CPU count printed before this pass.
        for event in events.get(scanned..point.event_idx).unwrap_or_default() {
            if let Some(n) = printed_ncpus(&event.message) {
                last_ncpus = Some(n);
            }
        }
        scanned = scanned.max(point.event_idx);
        for event in events.get(sim_scanned..point.event_idx).unwrap_or_default() {
            if let Some((job, r)) = simulated_use(&event.message) {
                sim_use.insert(job.to_string(), (r.ncpus, r.coproc.is_some()));
            }
        }
        sim_scanned = sim_scanned.max(point.event_idx);
        let pass = read_pass(events, point.event_idx, &sim_use);
        let result = check(&pass, actions, last_ncpus);
        if let Some(n) = pass.ncpus {
            last_ncpus = Some(n);
        }
        out.insert(point.event_idx, result);
    }
    out
}

/// A job's resource use as a simulation line prints it (`starting JOB
/// (1.00 CPU)`, `JOB finishes (1.00 CPU)`): the app version's `avg_ncpus`,
/// the same the scan commits (7.4 on).
fn simulated_use(message: &Message) -> Option<(&str, &crate::trace::message::JobResources)> {
    match message {
        Message::SimStarting {
            job,
            resources: Some(r),
            ..
        }
        | Message::SimFinishes {
            job,
            resources: Some(r),
            ..
        } => Some((job.as_str(), r)),
        _ => None,
    }
}

/// A usable CPU count a line prints: the enforcement lines, the CPU
/// instances of work fetch (`set_request() for CPU: ninst N`) and a change
/// of the preferences (`Number of usable CPUs has changed from A to N`).
pub fn printed_ncpus(message: &Message) -> Option<u32> {
    match message {
        Message::AllCpusUsed { ncpus, .. } => *ncpus,
        Message::UsingCpus { ncpus, .. } => Some(*ncpus),
        Message::SetRequest { rsc, ninst, .. } if *rsc == ResourceType::Cpu => Some(*ninst),
        Message::UsableCpusChanged { to, .. } => Some(*to),
        _ => None,
    }
}

/// The lines of the enforcement pass that starts at `start`
/// (`enforce_run_list(): start`), without its start and end lines, and
/// whether its end line closes it: the pass stops at any pass start or end
/// line of any generation and after [`MAX_PASS_LINES`] lines.
pub fn pass_lines(events: &[LogEvent], start: usize) -> (&[LogEvent], bool) {
    let rest = events.get(start + 1..).unwrap_or_default();
    let rest = &rest[..rest.len().min(MAX_PASS_LINES)];
    for (i, event) in rest.iter().enumerate() {
        match event.message {
            Message::EnforceRunListEnd => return (&rest[..i], true),
            Message::EnforceRunListStart
            | Message::MakeRunListStart
            | Message::ScheduleCpusStart
            | Message::EnforceScheduleStart
            | Message::EnforceScheduleEnd => return (&rest[..i], false),
            _ => {}
        }
    }
    (rest, false)
}

/// The pass that starts at `start`, as its lines show it.
fn read_pass(events: &[LogEvent], start: usize, sim_use: &HashMap<String, (f64, bool)>) -> Pass {
    let (lines, ended) = pass_lines(events, start);
    let mut pass = Pass {
        ended,
        ..Pass::default()
    };
    for event in lines {
        let outcome = match &event.message {
            Message::FinalJobList => {
                pass.list = Some(Vec::new());
                continue;
            }
            Message::JobListEntry { job, resources, .. } => {
                if let Some(list) = &mut pass.list {
                    let used = resources
                        .as_ref()
                        .map(|r| (r.ncpus, r.coproc.is_some()))
                        .or_else(|| {
                            let simulated = sim_use.get(job.as_str()).copied();
                            pass.use_from_sim |= simulated.is_some();
                            simulated
                        });
                    match used {
                        Some((ncpus, gpu)) => list.push(Listed {
                            job: job.to_string(),
                            ncpus,
                            gpu,
                        }),
                        None => pass.no_use = true,
                    }
                }
                continue;
            }
            Message::UsingCpus { used, ncpus } => {
                pass.using = Some((*used, *ncpus));
                pass.ncpus = Some(*ncpus);
                continue;
            }
            Message::MemUsageAvailable { ram_mb, .. } => {
                pass.ram_mb = Some(*ram_mb);
                continue;
            }
            Message::Scheduling { job, .. } => (job, Outcome::Scheduled),
            Message::AllCpusUsed { used, ncpus, job } => {
                pass.ncpus = ncpus.or(pass.ncpus);
                (job, Outcome::AllCpusUsed(*used))
            }
            Message::SkippingGpuJobCpuCommitted { job } => (job, Outcome::GpuCpuCommitted),
            Message::SkippingMaxConcurrent { job, .. } => (job, Outcome::MaxConcurrent),
            Message::SkippingCpuLimit { job } => (job, Outcome::UserCpuLimit),
            Message::TooBig {
                job,
                ws_mb,
                limit_mb,
            } => (job, Outcome::TooBig(*ws_mb, *limit_mb)),
            Message::SkippingRss {
                job,
                rss_gb,
                left_gb,
            } => (job, Outcome::TooBig(rss_gb * 1024.0, left_gb * 1024.0)),
            Message::SkippingSwap {
                job,
                swap_gb,
                left_gb,
                ..
            } => (job, Outcome::SwapTooBig(*swap_gb, *left_gb)),
            Message::CoprocInsufficient { job, .. }
            | Message::CoprocInsufficientUsage { job, .. } => (job, Outcome::NoCoproc),
            Message::AvoidMtOvercommit { job } => (job, Outcome::MtOvercommit),
            _ => continue,
        };
        pass.outcomes.insert(outcome.0.to_string(), outcome.1);
    }
    pass
}

/// Half a unit of the second decimal: how far a `%.2f` value may be from
/// the number it prints.
const HALF_CENT: f64 = 0.005;

/// CPUs committed so far: the sum of printed uses and how far the true sum
/// may be from it.
#[derive(Clone, Copy, Default)]
struct Used {
    sum: f64,
    slack: f64,
}

impl Used {
    fn add(&mut self, ncpus: f64) {
        self.sum += ncpus;
        if (ncpus - ncpus.round()).abs() > 1e-9 {
            self.slack += HALF_CENT;
        }
    }

    /// `used + extra >= bound`, `None` when the rounding leaves it open.
    fn at_least(self, extra: f64, bound: f64) -> Option<bool> {
        let slack = self.slack
            + if (extra - extra.round()).abs() > 1e-9 {
                HALF_CENT
            } else {
                0.0
            };
        let value = self.sum + extra;
        if value - slack >= bound - 1e-9 {
            Some(true)
        } else if value + slack < bound - 1e-9 {
            Some(false)
        } else {
            None
        }
    }
}

const NO_CPU_USE: &str = "this release's job list does not print each job's CPU use (7.24 \
                          on does), and no simulation before the pass printed it (`starting \
                          JOB (C CPU)`, `JOB finishes (C CPU)`, 7.4 on): the CPUs the scan \
                          commits are not in the log";

const NO_CPU_COUNT: &str = "the usable CPU count is printed only when a CPU job is skipped or \
                            CPUs stay idle (`all CPUs used (U >= N)`, `using U out of N \
                            CPUs`) or a work request is made (`set_request() for CPU: ninst \
                            N`); no line up to this pass printed it";

fn check(pass: &Pass, recorded: &[String], earlier_ncpus: Option<u32>) -> Rederived {
    if !pass.ended {
        return Err("no `enforce_run_list: end` line closes the pass".into());
    }
    let Some(list) = &pass.list else {
        return Err("the pass prints no final job list (`final job list:`)".into());
    };
    if pass.no_use {
        return Err(NO_CPU_USE.into());
    }
    let (ncpus, ncpus_from) = match (pass.ncpus, earlier_ncpus) {
        (Some(n), _) => (n, "printed by the pass"),
        (None, Some(n)) => (n, "printed before the pass"),
        (None, None) => {
            return Err(NO_CPU_COUNT.into());
        }
    };
    let mut used = Used::default();
    let mut scheduled: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut ram_left = pass.ram_mb;
    let mut user_limit = false;
    let open = |job: &str, what: &str| -> Rederived {
        Err(format!(
            "{job}: {what} is within the rounding of the two-decimal CPU uses the job list prints"
        ))
    };
    for job in list {
        let outcome = pass.outcomes.get(&job.job);
        match outcome {
            // Inputs the lines give, not recomputed.
            Some(Outcome::NoCoproc | Outcome::MaxConcurrent | Outcome::MtOvercommit) => continue,
            None if job.gpu => continue,
            // The scan prints a line for every CPU job it reaches.
            None => {
                return Err(format!(
                    "no line of the pass says what the scan did with {} (a line of an \
                     unknown form?)",
                    job.job
                ))
            }
            _ => {}
        }
        let (run, why) = match verdict(job, outcome, used, ncpus, &mut user_limit, &mut ram_left) {
            Ok(verdict) => verdict,
            Err(what) => return open(&job.job, what),
        };
        if let (false, Some(Outcome::AllCpusUsed(Some(printed)))) = (run, outcome) {
            if (printed - used.sum).abs() > used.slack + HALF_CENT + 1e-9 {
                return Err(format!(
                    "the pass prints {printed:.2} CPUs committed before {}, the job list's \
                     scheduled jobs sum to {:.2}: jobs outside the list hold CPUs",
                    job.job, used.sum
                ));
            }
        }
        if run != matches!(outcome, Some(Outcome::Scheduled)) {
            notes.push(format!("{}: {why}", job.job));
        }
        if run {
            scheduled.push(job.job.clone());
            used.add(job.ncpus);
        }
    }
    if let Some((printed, _)) = pass.using {
        if (printed - used.sum).abs() > used.slack + HALF_CENT + 1e-9 {
            notes.push(format!(
                "the pass ends using {printed:.2} CPUs; its scheduled jobs sum to {:.2}",
                used.sum
            ));
        }
    }
    let actions = with_schedules(recorded, &scheduled);
    let mut reason = format!(
        "§8 enforce_run_list (cpu_sched.cpp): the final job list scanned against {ncpus} \
         usable CPUs ({ncpus_from}){}: {} scheduled, {:.2} CPUs committed",
        if pass.use_from_sim {
            ", each job's CPU use as the simulations before the pass print it"
        } else {
            ""
        },
        scheduled.len(),
        used.sum
    );
    if !notes.is_empty() {
        reason = format!("{reason}; {}", notes.join("; "));
    }
    Ok((actions, reason))
}

/// The rule behind a verdict on one job, written only when a note needs
/// it (most verdicts agree with the pass's own line and are never shown).
#[derive(Clone, Copy, Debug)]
enum Why {
    /// CPUs committed (before the job) and the job's own use.
    OverUserLimit {
        used: f64,
        job: f64,
        ncpus: u32,
    },
    AllCommitted {
        used: f64,
        ncpus: u32,
    },
    GpuOvercommit {
        used: f64,
        job: f64,
        ncpus: u32,
    },
    SwapTooBig {
        figure: f64,
        left: f64,
    },
    SwapFits {
        figure: f64,
        left: f64,
    },
    RamTooBig {
        ws: f64,
        left: f64,
    },
    RamGrows {
        before: f64,
        left: f64,
    },
    RamFits {
        ws: f64,
        left: f64,
    },
    WithinUserLimit {
        used: f64,
        job: f64,
        ncpus: u32,
    },
    Below {
        used: f64,
        job: f64,
        ncpus: u32,
    },
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Why::OverUserLimit { used, job, ncpus } => write!(
                f,
                "{used:.2} + {job:.2} CPUs exceed the user's limit of {ncpus}"
            ),
            Why::AllCommitted { used, ncpus } => write!(
                f,
                "{used:.2} >= {ncpus} CPUs committed: a CPU job is skipped"
            ),
            Why::GpuOvercommit { used, job, ncpus } => write!(
                f,
                "{used:.2} + {job:.2} CPUs exceed {ncpus} + 1: the GPU job is skipped"
            ),
            Why::SwapTooBig { figure, left } => {
                write!(f, "{figure:.2} GB > {left:.2} GB of swap left")
            }
            Why::SwapFits { figure, left } => {
                write!(f, "{figure:.2} GB fits in {left:.2} GB of swap left")
            }
            Why::RamTooBig { ws, left } => write!(f, "{ws:.2}MB > {left:.2}MB of RAM left"),
            Why::RamGrows { before, left } => write!(
                f,
                "the RAM left grows within the pass ({before:.2}MB, then {left:.2}MB): the \
                 RAM check's line does not hold"
            ),
            Why::RamFits { ws, left } => write!(f, "{ws:.2}MB fits in {left:.2}MB of RAM left"),
            Why::WithinUserLimit { used, job, ncpus } => write!(
                f,
                "{used:.2} + {job:.2} CPUs are within the user's limit of {ncpus}"
            ),
            Why::Below { used, job, ncpus } => {
                write!(f, "{used:.2} + {job:.2} CPUs: below {ncpus}, the job runs")
            }
        }
    }
}

/// Whether the scan runs `job` (reached with `used` CPUs committed) and
/// the rule that says so; `Err` names the comparison the rounding leaves
/// open.
fn verdict(
    job: &Listed,
    outcome: Option<&Outcome>,
    used: Used,
    ncpus: u32,
    user_limit: &mut bool,
    ram_left: &mut Option<f64>,
) -> Result<(bool, Why), &'static str> {
    let n = f64::from(ncpus);
    let (sum, own) = (used.sum, job.ncpus);
    // Today's client: with the user's CPU limit in force, a job that would
    // take the total over it is skipped (first, before the other rules).
    if let Some(Outcome::UserCpuLimit) = outcome {
        *user_limit = true;
    }
    if *user_limit {
        match used.at_least(job.ncpus, n + 1e-6) {
            Some(true) => {
                return Ok((
                    false,
                    Why::OverUserLimit {
                        used: sum,
                        job: own,
                        ncpus,
                    },
                ))
            }
            Some(false) => {}
            None => return Err("the user's CPU limit"),
        }
    }
    match used.at_least(0.0, n) {
        None => return Err("whether every CPU is committed"),
        Some(true) if !job.gpu => return Ok((false, Why::AllCommitted { used: sum, ncpus })),
        Some(true) => match used.at_least(job.ncpus, n + 1.0 + 1e-6) {
            None => return Err("the GPU job's CPU overcommit"),
            Some(true) => {
                return Ok((
                    false,
                    Why::GpuOvercommit {
                        used: sum,
                        job: own,
                        ncpus,
                    },
                ))
            }
            Some(false) => {}
        },
        Some(false) => {}
    }
    if let Some(&Outcome::SwapTooBig(figure, left)) = outcome {
        // Printed at 2 decimals: a figure above the swap left never
        // prints below it. (Which figure it is: swap_check.)
        if figure >= left {
            return Ok((false, Why::SwapTooBig { figure, left }));
        }
        return Ok((true, Why::SwapFits { figure, left }));
    }
    if let Some(&Outcome::TooBig(ws, left)) = outcome {
        let holds = ws > left - 0.01 && ram_left.is_none_or(|before| left <= before + 0.01);
        let before = ram_left.replace(left);
        if holds {
            return Ok((false, Why::RamTooBig { ws, left }));
        }
        return Ok((
            true,
            match before {
                Some(before) if left > before + 0.01 => Why::RamGrows { before, left },
                _ => Why::RamFits { ws, left },
            },
        ));
    }
    if let Some(Outcome::UserCpuLimit) = outcome {
        return Ok((
            true,
            Why::WithinUserLimit {
                used: sum,
                job: own,
                ncpus,
            },
        ));
    }
    Ok((
        true,
        Why::Below {
            used: sum,
            job: own,
            ncpus,
        },
    ))
}

/// The recorded actions with their `schedule JOB` entries replaced by
/// `scheduled`, in the same places (extra ones after the last).
fn with_schedules(recorded: &[String], scheduled: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(recorded.len() + scheduled.len());
    let mut next = scheduled.iter();
    let last = recorded.iter().rposition(|a| a.starts_with("schedule "));
    for (i, action) in recorded.iter().enumerate() {
        if action.starts_with("schedule ") {
            if let Some(job) = next.next() {
                out.push(format!("schedule {job}"));
            }
        } else {
            out.push(action.clone());
        }
        if Some(i) == last {
            out.extend(next.by_ref().map(|job| format!("schedule {job}")));
        }
    }
    if last.is_none() {
        // No schedule recorded: the recomputed ones go before the first
        // action that follows the scan (a preemption or a start).
        let at = out
            .iter()
            .position(|a| !a.starts_with("assign "))
            .unwrap_or(out.len());
        let rest: Vec<String> = next.map(|job| format!("schedule {job}")).collect();
        out.splice(at..at, rest);
    }
    out
}

/// A 6.x enforcement pass (enforce_schedule, client/cpu_sched.cpp at
/// client_release/6.10/6.10.60 and 6.12/6.12.34) that skipped a multithread
/// job (`not enough CPUs for multithread job, skipping X`) and printed the
/// CPUs it used (`using U out of N CPUs`): what decides the skip. 6.x skips
/// such a job when CPUs are already used and they plus the job's CPU count
/// reach N + 1; used CPUs only grow in the pass, so the skip holds only if
/// the job uses at least N + 1 − U CPUs, which 6.x does not print. Today's
/// enforce_run_list runs a multithread job whenever fewer than N CPUs are
/// committed (overcommitting), unless the user limited the CPUs. `None`
/// when the pass shows no such skip or no CPU count.
pub fn mt_skips_6x(events: &[LogEvent], start: usize) -> Option<String> {
    let rest = events.get(start..).unwrap_or_default();
    let rest = &rest[..rest.len().min(MAX_PASS_LINES)];
    let mut skipped: Vec<&str> = Vec::new();
    let mut using = None;
    for (i, event) in rest.iter().enumerate() {
        match &event.message {
            Message::MtNotEnoughCpus { job } => skipped.push(job.as_str()),
            Message::UsingCpus { used, ncpus } => using = Some((*used, *ncpus)),
            Message::EnforceScheduleEnd | Message::EnforceRunListEnd => break,
            Message::EnforceScheduleStart
            | Message::EnforceRunListStart
            | Message::ScheduleCpusStart
            | Message::MakeRunListStart
                if i > 0 =>
            {
                break
            }
            _ => {}
        }
    }
    let (used, ncpus) = using?;
    let first = skipped.first()?;
    let need = f64::from(ncpus) + 1.0 - used;
    let jobs = skipped.join(", ");
    let today = if used < f64::from(ncpus) {
        format!(
            "today's client (enforce_run_list) runs a multithread job whenever fewer than the \
             usable CPUs are committed, here at most {used:.2} of {ncpus}, so it would have run \
             {first} (unless the user limited the CPUs)"
        )
    } else {
        format!("today's client would skip it too: {used:.2} of {ncpus} CPUs were committed")
    };
    Some(format!(
        "6.x skipped the multithread job(s) {jobs}: enforce_schedule skips one when CPUs are \
         already used and they plus its CPU count reach {ncpus} + 1, and this pass ended using \
         {used:.2} of {ncpus}, so the skip holds only if {first} uses at least {need:.2} CPUs: \
         its app version's avg_ncpus (client_state.xml), which 6.x does not print; {today}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn schedules_replace_in_place() {
        let rec = s(&[
            "assign G NVIDIA 0",
            "schedule G",
            "schedule A",
            "preempt B (left)",
        ]);
        assert_eq!(
            with_schedules(&rec, &s(&["G", "A", "C"])),
            s(&[
                "assign G NVIDIA 0",
                "schedule G",
                "schedule A",
                "schedule C",
                "preempt B (left)"
            ])
        );
        assert_eq!(
            with_schedules(&rec, &s(&["G"])),
            s(&["assign G NVIDIA 0", "schedule G", "preempt B (left)"])
        );
        assert_eq!(
            with_schedules(&s(&["assign G NVIDIA 0", "preempt B (left)"]), &s(&["A"])),
            s(&["assign G NVIDIA 0", "schedule A", "preempt B (left)"])
        );
    }

    #[test]
    fn rounding_leaves_close_bounds_open() {
        let mut used = Used::default();
        used.add(1.0);
        used.add(1.0);
        assert_eq!(used.at_least(0.0, 2.0), Some(true));
        let mut used = Used::default();
        used.add(1.0);
        used.add(0.5);
        used.add(0.5);
        // 0.50 may be 0.495..0.505 each: 1.99 .. 2.01, open.
        assert_eq!(used.at_least(0.0, 2.0), None);
        assert_eq!(used.at_least(0.0, 3.0), Some(false));
    }

    /// The events of a stdoutdae.txt text.
    fn events(text: &str) -> Vec<LogEvent> {
        crate::replay::test_events(text, crate::trace::FileKind::EventLog)
    }

    /// Before 7.24 the job list prints no CPU use: the simulation before
    /// the pass does (`starting M_0 (2.00 CPU)`), and the scan is checked
    /// with it. A pass of the lab's mt-edf run (Debian's 7.20.5, 3 CPUs):
    /// three EDF jobs take the 3 CPUs, the 2-CPU job is skipped.
    #[test]
    fn cpu_uses_of_a_7_20_job_list_come_from_the_simulation() {
        let pass = |m_use: &str| {
            let sim = if m_use.is_empty() {
                String::new()
            } else {
                format!(
                    "28-Nov-2026 16:34:48 [S] [rr_sim] 36.00: S_0 finishes (1.00 CPU) (18.00G/1.00G)\n\
                     28-Nov-2026 16:34:48 [S] [rr_sim] 36.00: S_1 finishes (1.00 CPU) (18.00G/1.00G)\n\
                     28-Nov-2026 16:34:48 [S] [rr_sim] 47.00: S_2 finishes (1.00 CPU) (18.00G/1.00G)\n\
                     28-Nov-2026 16:34:48 [M] [rr_sim_detail] 36.00: starting M_0 ({m_use} CPU) (44.00G/2.00G)\n"
                )
            };
            format!(
                "{sim}28-Nov-2026 16:34:48 [---] [cpu_sched_debug] enforce_run_list(): start\n\
                 28-Nov-2026 16:34:48 [---] [cpu_sched_debug] final job list:\n\
                 28-Nov-2026 16:34:48 [S] [cpu_sched_debug] 0: S_0 (MD: yes; UTS: yes)\n\
                 28-Nov-2026 16:34:48 [S] [cpu_sched_debug] 1: S_1 (MD: yes; UTS: no)\n\
                 28-Nov-2026 16:34:48 [S] [cpu_sched_debug] 2: S_2 (MD: yes; UTS: no)\n\
                 28-Nov-2026 16:34:48 [M] [cpu_sched_debug] 3: M_0 (MD: no; UTS: yes)\n\
                 28-Nov-2026 16:34:48 [S] [cpu_sched_debug] scheduling S_0 (high priority)\n\
                 28-Nov-2026 16:34:48 [S] [cpu_sched_debug] scheduling S_1 (high priority)\n\
                 28-Nov-2026 16:34:48 [S] [cpu_sched_debug] scheduling S_2 (high priority)\n\
                 28-Nov-2026 16:34:48 [M] [cpu_sched_debug] all CPUs used (3.00 >= 3), skipping M_0\n\
                 28-Nov-2026 16:34:48 [---] [cpu_sched_debug] enforce_run_list: end\n"
            )
        };
        let rederived = |text: &str| {
            let events = events(text);
            let start = events
                .iter()
                .position(|e| e.message == Message::EnforceRunListStart)
                .expect("a pass");
            let sim_use = {
                let mut known = HashMap::new();
                for event in &events[..start] {
                    if let Some((job, r)) = simulated_use(&event.message) {
                        known.insert(job.to_string(), (r.ncpus, r.coproc.is_some()));
                    }
                }
                known
            };
            let recorded = s(&["schedule S_0", "schedule S_1", "schedule S_2"]);
            check(&read_pass(&events, start, &sim_use), &recorded, None)
        };
        let (actions, reason) = rederived(&pass("2.00")).expect("checked");
        assert_eq!(
            actions,
            s(&["schedule S_0", "schedule S_1", "schedule S_2"])
        );
        assert!(
            reason.contains("as the simulations before the pass print it"),
            "{reason}"
        );
        // Without the simulation's lines the uses are not in the log.
        assert_eq!(rederived(&pass("")).unwrap_err(), NO_CPU_USE);
    }

    #[test]
    fn a_6x_multithread_skip_says_what_decides_it() {
        let pass = |used: &str| {
            format!(
                "14-Oct-2010 07:47:01 [---] [cpu_sched_debug] enforce_schedule(): start\n\
                 14-Oct-2010 07:47:01 [A] [cpu_sched_debug] scheduling a_0\n\
                 14-Oct-2010 07:47:01 [M] [cpu_sched_debug] not enough CPUs for multithread job, skipping m_0\n\
                 14-Oct-2010 07:47:01 [---] [cpu_sched_debug] using {used} out of 8 CPUs\n\
                 14-Oct-2010 07:47:01 [---] [cpu_sched_debug] enforce_schedule: end\n"
            )
        };
        let why = mt_skips_6x(&events(&pass("4.14")), 0).expect("a skip");
        assert!(why.contains("at least 4.86 CPUs"), "{why}");
        assert!(why.contains("would have run m_0"), "{why}");
        let why = mt_skips_6x(&events(&pass("8.00")), 0).expect("a skip");
        assert!(why.contains("at least 1.00 CPUs"), "{why}");
        assert!(why.contains("would skip it too"), "{why}");
        // No skip in the pass: nothing to say.
        let plain = pass("4.14").replace(
            "not enough CPUs for multithread job, skipping",
            "scheduling",
        );
        assert_eq!(mt_skips_6x(&events(&plain), 0), None);
    }
}

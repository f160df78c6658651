//! A real client's work-fetch state block, its project lines made by the
//! client loop (spec/policy-current.md §3.15 and §5.4 fetch mode:
//! client/work_fetch.cpp `WORK_FETCH::setup`, `compute_project_reason`,
//! `PROJECT_WORK_FETCH::print_state`): each project's REC, its fetch
//! priority and why it cannot request work, over the host the log tells at
//! the block's second.
//!
//! - **REC**: as the project's last `recent est credit` line printed it
//!   (six decimals), or exactly 0 for a project none of whose tasks was
//!   scheduled since the client made its state file.
//! - **Priority**: the fetch-mode `[prio]` pass printed between the
//!   simulation and the block (checked on its own as a priority point),
//!   less the project's queued work: each of its jobs' FLOPs left over the
//!   FLOPs of a full buffer (`work_buf_total × total_peak_flops`). The FLOPs
//!   left are the simulation's own (`rrsim_flops_left` is
//!   `estimated_flops_remaining`, printed to 0.01 GFLOP); a job done has
//!   none; a job outside the simulation and not done has an estimate the
//!   log does not print, and then the line is restated. The host's FLOPS
//!   per CPU come from the state files (`p_fpops`, in force since their
//!   benchmark, `p_calculated`).
//! - **Reason and RPC backoff**, in the client's order of precedence: the
//!   project suspended, no new tasks, a task suspended, the RPC deferral
//!   (`min_rpc_time`). The deferral is the last `Deferring communication
//!   for` line's stamp plus its whole seconds, cleared by each completed
//!   request and each update the user asks for; its time left is printed
//!   whenever positive, whatever the reason. The reasons the lines do not
//!   tell (not CPU-intensive, master URL fetch pending, a stalled download,
//!   too many uploads or runnable jobs) are restated where printed.
//!
//! - **CPU reason and resource backoff** (`compute_rsc_project_reason`):
//!   at its max_concurrent limit where the simulation last hit it
//!   (`last_mc_limit_reltime`) past the buffer; else backed off while the
//!   last `backing off CPU %.0f sec` line's backoff runs (interval 600 s
//!   doubling to a day, cleared by a reply with jobs, an upload done, a
//!   reset). The reasons whose cause the lines do not print (preferences,
//!   configuration, no apps, account manager, a deferred job, a zero share)
//!   are restated.
//!
//! Each value carries the interval its printed inputs leave; what the
//! record lacks is restated, and the account names it.
//!
//! Architecture Invariant: pure; reads the inputs the simulation's moment
//! gathered and the recorded block.

use super::decision::{FetchDump, PrioEntry, ProjectState, ShareState};
use super::joblog::{now_at_stamp, FetchFlags, RpcDeferral, POLL_LAG};
use crate::trace::message::{ProjectReason, ResourceReason};
use std::collections::{HashMap, HashSet};

/// Half a unit of a `%f` value.
const HALF_MICRO: f64 = 5e-7;

/// Half a unit of the simulation's GFLOP figures (`%.2f`), in FLOPs.
const GFLOP_HALF_UNIT: f64 = 0.005e9;

/// The buffer's two printed figures (`%.2f` each): their sum's half unit.
const BUFFER_SUM_HALF: f64 = 0.01;

/// What a block's project lines rest on at a simulation's second.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The usable CPUs the client's peak-FLOPS total rests on (the count
    /// in force when its process computed it: the total is computed once).
    pub ncpus: u32,
    /// The host's FLOPS per CPU that total rests on, or why it is not
    /// known.
    pub p_fpops: Made<f64>,
    /// The block's `now` on the log's clock where a `choose_project(): %f`
    /// line of its poll prints it.
    pub exact_now: Option<f64>,
    /// Per project: the FLOPs left of its jobs in the simulation, and how
    /// many jobs.
    pub queued: HashMap<String, (f64, usize)>,
    /// Per project: its jobs on the host, not done, outside the simulation.
    pub unprinted: HashMap<String, Vec<String>>,
    /// Per project: its REC as last printed.
    pub recs: HashMap<String, f64>,
    /// Projects whose REC is exactly 0.
    pub untouched: HashSet<String>,
    /// Projects the user suspended.
    pub suspended: HashSet<String>,
    /// Per project: its resource share, where the state files and replies
    /// give one.
    pub shares: HashMap<String, f64>,
    /// Projects with a max_concurrent limit (`project_has_mc`: the log's
    /// `Max N concurrent jobs` lines).
    pub mc_projects: HashSet<String>,
    /// The other reasons the lines tell.
    pub flags: FetchFlags,
}

impl Default for Inputs {
    fn default() -> Self {
        Inputs {
            ncpus: 0,
            p_fpops: Err("the host's FLOPS per CPU were not gathered".into()),
            exact_now: None,
            queued: HashMap::new(),
            unprinted: HashMap::new(),
            recs: HashMap::new(),
            untouched: HashSet::new(),
            suspended: HashSet::new(),
            shares: HashMap::new(),
            mc_projects: HashSet::new(),
            flags: FetchFlags::default(),
        }
    }
}

/// The loop's value of one field of a line, or why it is restated.
type Made<T> = Result<T, String>;

/// A block's project lines as the loop made them.
pub struct Lines {
    /// The lines, each value the record lacks restated.
    pub lines: Vec<ProjectState>,
    /// What was made and what restated.
    pub account: String,
    /// Every project's reason was made (not restated).
    pub reasons_made: bool,
}

/// The block's project lines made at the block's second `stamp` (the
/// log's clock), with the fetch-mode `[prio]` pass printed before it
/// (`base`); each value the record lacks restated.
pub fn project_lines(
    inputs: &Inputs,
    stamp: f64,
    dump: &FetchDump,
    base: Option<&[PrioEntry]>,
) -> Lines {
    let mut reasons_made = true;
    let mut lines = Vec::with_capacity(dump.projects.len());
    let mut restated: Vec<String> = Vec::new();
    let mut figures: Vec<String> = Vec::new();
    let mut made = 0;
    for printed in &dump.projects {
        let name = printed.project.as_str();
        let mut line = printed.clone();
        let mut missing = Vec::new();
        match rec(inputs, name) {
            Ok(rec) => {
                line.rec = rec;
                line.rec_slack = HALF_MICRO;
            }
            Err(why) => missing.push(format!("REC: {why}")),
        }
        match priority(inputs, name, dump, base) {
            Ok((prio, slack)) => {
                line.prio = prio;
                line.prio_slack = slack;
            }
            Err(why) => missing.push(format!("priority: {why}")),
        }
        match reason(inputs, name, stamp, printed) {
            Ok((reason, backoff)) => {
                line.reason = reason;
                (line.backoff, line.backoff_slack) = match backoff {
                    Some((secs, slack)) => (Some(secs), slack),
                    None => (None, 0.0),
                };
            }
            Err(why) => {
                reasons_made = false;
                missing.push(format!("reason: {why}"));
            }
        }
        if missing.is_empty() {
            made += 1;
            let mut figure = format!("{name} prio {:.3} ± {:.6}", line.prio, line.prio_slack);
            if let Some(left) = line.backoff {
                figure.push_str(&format!(", backoff {left:.2} ± {:.2}", line.backoff_slack));
            }
            figures.push(figure);
        } else {
            restated.push(format!("{name} ({})", missing.join("; ")));
        }
        lines.push(line);
    }
    let account = if restated.is_empty() {
        format!(
            "each project's REC, fetch priority (the fetch-mode [prio] pass less its queued \
             FLOPs over a full buffer's) and reason made by the loop ({made} project(s): {})",
            figures.join("; ")
        )
    } else {
        format!(
            "the projects' REC, fetch priority and reason made by the loop for {made} \
             project(s) ({}); restated where the record lacks an input: {}",
            figures.join("; "),
            restated.join(", ")
        )
    };
    Lines {
        lines,
        account,
        reasons_made,
    }
}

/// The CPU block's share lines with their resource reasons and backoffs
/// made (their shares are made after, by [`fetchable_shares`]).
pub struct ShareLines {
    /// The lines, each value the record lacks restated.
    pub lines: Vec<ShareState>,
    /// What was made and what restated.
    pub account: String,
}

/// Each project's CPU reason and backoff in the block
/// (work_fetch.cpp `compute_rsc_project_reason` and
/// `RSC_WORK_FETCH::print_state`), in the client's order: a reason the
/// lines do not tell (project preferences, configuration, no apps, account
/// manager, a deferred job, a zero share) is restated; a project with a
/// max_concurrent limit is at it where the simulation's last start it
/// limited (`last_mc_limit_reltime`, `mc_times`: project, time, interval)
/// lies past the buffer; else it is backed off while its backoff runs. The
/// backoff's time left and interval print whenever it runs. A project has
/// a limit where the log announced one (`inputs.mc_projects`) or the
/// block's setup printed its `rsc type N last MC limit time` line
/// (`announced`: only for such projects).
pub fn cpu_share_lines(
    inputs: &Inputs,
    stamp: f64,
    printed: &[ShareState],
    mc_times: &[(String, f64, f64)],
    buffer: Option<(f64, f64)>,
    announced: &[String],
) -> ShareLines {
    let mut lines = Vec::with_capacity(printed.len());
    let mut made = Vec::new();
    let mut restated = Vec::new();
    for share in printed {
        let name = share.project.as_str();
        let has_mc = inputs.mc_projects.contains(name) || announced.iter().any(|p| p == name);
        match cpu_reason(inputs, stamp, share, (has_mc, mc_times), buffer) {
            Ok((reason, backoff)) => {
                let mut figure =
                    format!("{name} `{}`", if reason.is_empty() { "-" } else { &reason });
                if let Some((left, inc, slack)) = backoff {
                    figure.push_str(&format!(" backoff {left:.2} ± {slack:.2} inc {inc:.0}"));
                }
                made.push(figure);
                lines.push(ShareState {
                    reason,
                    backoff: backoff.map(|(left, inc, _)| (left, inc)),
                    backoff_slack: backoff.map_or(0.0, |b| b.2),
                    ..share.clone()
                });
            }
            Err(why) => {
                restated.push(format!("{name} ({why})"));
                lines.push(share.clone());
            }
        }
    }
    let mut account = format!(
        "CPU reasons and backoffs made by the loop for {} project(s) ({})",
        made.len(),
        made.join("; ")
    );
    if !restated.is_empty() {
        account.push_str(&format!("; restated: {}", restated.join(", ")));
    }
    ShareLines { lines, account }
}

/// A project's CPU reason (as printed, empty when none) and its backoff
/// (time left, interval, the time left's interval) where one runs.
type CpuReason = (String, Option<(f64, f64, f64)>);

fn cpu_reason(
    inputs: &Inputs,
    stamp: f64,
    share: &ShareState,
    (has_mc, mc_times): (bool, &[(String, f64, f64)]),
    buffer: Option<(f64, f64)>,
) -> Made<CpuReason> {
    if let Some(why) = inputs
        .flags
        .untold
        .as_ref()
        .or(inputs.flags.cpu_backoff_untold.as_ref())
    {
        return Err(why.clone());
    }
    let name = share.project.as_str();
    let printed = (!share.reason.is_empty()).then(|| ResourceReason::from_text(&share.reason));
    if let Some(untold) = printed.as_ref().filter(|r| {
        !matches!(
            r,
            ResourceReason::ProjectIsBackedOff | ResourceReason::MaxConcurrentJobLimit
        )
    }) {
        return Err(format!(
            "printed `{}`, whose cause the lines do not tell",
            untold.as_str()
        ));
    }
    if inputs.shares.get(name) == Some(&0.0) {
        return Err("a zero resource share: its reason rests on the saturated time".into());
    }
    let backoff = inputs
        .flags
        .cpu_backoff
        .get(name)
        .cloned()
        .unwrap_or_default();
    let left = time_left(&backoff.until, inputs, stamp, "CPU backoff")?;
    if !has_mc && printed == Some(ResourceReason::MaxConcurrentJobLimit) {
        return Err(
            "printed at its max_concurrent limit, with no limit the log announced (an \
             app_config.xml read again sets one silently)"
                .into(),
        );
    }
    let at_limit = if has_mc {
        let Some(&(_, reltime, slack)) = mc_times.iter().find(|(p, ..)| p == name) else {
            return Err("the simulation's last max_concurrent limit time is not made".into());
        };
        let Some((min, additional)) = buffer else {
            return Err("the block prints no target buffer".into());
        };
        // work_buf_total(): at least one second.
        let over = reltime - (min + additional).max(1.0);
        let margin = slack + BUFFER_SUM_HALF;
        if over.abs() <= margin {
            return Err(format!(
                "the simulation last hit its max_concurrent limit at {reltime:.2} s ± \
                 {slack:.2}, within the record's uncertainty of the buffer's end"
            ));
        }
        over > 0.0
    } else {
        false
    };
    let reason = if at_limit {
        ResourceReason::MaxConcurrentJobLimit.as_str().to_string()
    } else if left.is_some() {
        ResourceReason::ProjectIsBackedOff.as_str().to_string()
    } else {
        String::new()
    };
    let backoff = match (left, backoff.interval) {
        (None, _) => None,
        (Some((left, slack)), Some(inc)) => Some((left, inc, slack)),
        (Some(_), None) => {
            return Err("its CPU backoff's interval is not told since the state file".into())
        }
    };
    Ok((reason, backoff))
}

/// A resource's fetchable shares (work_fetch.cpp compute_shares, each
/// reset by rr_init): a project with no project reason (the loop's) and no
/// resource reason (as printed) has its resource share over the sum of
/// theirs (1 where that sum is 0); every other project 0.
pub fn fetchable_shares(
    inputs: &Inputs,
    block: &Lines,
    printed: &[ShareState],
) -> Made<Vec<ShareState>> {
    if !block.reasons_made {
        return Err("a project's reason is restated".into());
    }
    let mut eligible = Vec::with_capacity(printed.len());
    for share in printed {
        let name = share.project.as_str();
        let Some(line) = block.lines.iter().find(|l| l.project == name) else {
            return Err(format!("{name} has no project line"));
        };
        let Some(&resource_share) = inputs.shares.get(name) else {
            return Err(format!(
                "{name}'s resource share is not one value in the state files and replies"
            ));
        };
        let fetches = line.reason.is_empty() && share.reason.is_empty();
        eligible.push(fetches.then_some(resource_share));
    }
    let total: f64 = eligible.iter().flatten().sum();
    Ok(printed
        .iter()
        .zip(eligible)
        .map(|(share, eligible)| ShareState {
            share: match eligible {
                Some(_) if total == 0.0 => 1.0,
                Some(rs) => rs / total,
                None => 0.0,
            },
            ..share.clone()
        })
        .collect())
}

/// A project's REC at the block.
fn rec(inputs: &Inputs, name: &str) -> Made<f64> {
    if let Some(rec) = inputs.recs.get(name) {
        return Ok(*rec);
    }
    if inputs.untouched.contains(name) {
        return Ok(0.0);
    }
    Err("no `recent est credit` line since the client started on its state file".into())
}

/// A project's fetch priority and its interval: the fetch-mode pass's
/// priority less its queued FLOPs over a full buffer's.
fn priority(
    inputs: &Inputs,
    name: &str,
    dump: &FetchDump,
    base: Option<&[PrioEntry]>,
) -> Made<(f64, f64)> {
    let Some(base) = base else {
        return Err("the fetch-mode `[prio]` pass before the block is not in the log".into());
    };
    let (start, start_slack) = match base.iter().find(|e| e.project == name) {
        Some(entry) => (entry.prio, HALF_MICRO),
        // project_priority_init leaves a suspended project at 0 and
        // prints no line for it; with a resource-share sum of 0 (only
        // backup projects can fetch) it leaves every project at 0 and
        // prints none.
        None if inputs.suspended.contains(name) || base.is_empty() => (0.0, 0.0),
        None => return Err("the fetch-mode `[prio]` pass printed no line for it".into()),
    };
    if let Some(jobs) = inputs.unprinted.get(name).filter(|j| !j.is_empty()) {
        return Err(format!(
            "{} on the host outside the simulation, not done: its FLOPs left are not printed",
            jobs.join(", ")
        ));
    }
    let p_fpops = inputs.p_fpops.clone()?;
    let Some((min, additional)) = dump.buffer else {
        return Err("the block prints no target buffer".into());
    };
    // work_buf_total(): at least one second.
    let buf = (min + additional).max(1.0);
    let full = buf * f64::from(inputs.ncpus) * p_fpops;
    if !(full.is_finite() && full > 0.0) {
        return Err(format!("a full buffer's FLOPs are {full}"));
    }
    let (flops, n) = inputs.queued.get(name).copied().unwrap_or((0.0, 0));
    let queue = flops / full;
    let slack = start_slack
        + n as f64 * GFLOP_HALF_UNIT / full
        + queue * BUFFER_SUM_HALF / (buf - BUFFER_SUM_HALF).max(BUFFER_SUM_HALF);
    Ok((start - queue, slack))
}

/// The printed reasons whose cause the lines do not tell.
fn untold_reason(reason: &ProjectReason) -> bool {
    !matches!(
        reason,
        ProjectReason::SuspendedViaManager
            | ProjectReason::NoNewTasks
            | ProjectReason::TaskSuspendedViaManager
            | ProjectReason::SchedulerRpcBackoff
    )
}

/// The block's `now` on the log's clock: exact where its poll's
/// `choose_project(): %f` line prints it, else as its stamp tells it.
fn block_now(inputs: &Inputs, stamp: f64) -> (f64, f64) {
    match inputs.exact_now {
        Some(now) => (now, now),
        None => now_at_stamp(stamp),
    }
}

/// A deferral's or backoff's time left at the block and its interval:
/// `None` where it has none, `Err` where the interval holds 0.
fn time_left(
    until: &RpcDeferral,
    inputs: &Inputs,
    stamp: f64,
    what: &str,
) -> Made<Option<(f64, f64)>> {
    match until {
        RpcDeferral::Cleared => Ok(None),
        RpcDeferral::Unknown(why) => Err(why.clone()),
        RpcDeferral::Until(at) => {
            // The deferral ends in [at - POLL_LAG, at + 2).
            let (now_lo, now_hi) = block_now(inputs, stamp);
            let (lo, hi) = (at - POLL_LAG - now_hi, at + 2.0 - now_lo);
            if hi <= 0.0 {
                Ok(None)
            } else if lo >= 0.0 {
                Ok(Some(((lo + hi) / 2.0, (hi - lo) / 2.0)))
            } else {
                Err(format!(
                    "its {what} ends within a second or two of the block ({:.2} s ± {:.2} \
                     left): whether it is still on is not told by the stamps",
                    (lo + hi) / 2.0,
                    (hi - lo) / 2.0
                ))
            }
        }
    }
}

/// A project's reason (as the block prints it, empty when it can request
/// work) and its RPC deferral's time left with its interval.
fn reason(
    inputs: &Inputs,
    name: &str,
    stamp: f64,
    printed: &ProjectState,
) -> Made<(String, Option<(f64, f64)>)> {
    if let Some(why) = &inputs.flags.untold {
        return Err(why.clone());
    }
    let printed_reason = printed
        .reason
        .strip_prefix("can't request work: ")
        .map(ProjectReason::from_text);
    if let Some(untold) = printed_reason.as_ref().filter(|r| untold_reason(r)) {
        return Err(format!(
            "printed `{}`, whose cause the lines do not tell",
            untold.as_str()
        ));
    }
    let deferral = match inputs.flags.rpc_deferral.get(name) {
        Some(until) => time_left(until, inputs, stamp, "RPC deferral"),
        None => Ok(None),
    };
    let flags = &inputs.flags;
    let reason = if inputs.suspended.contains(name) {
        Some(ProjectReason::SuspendedViaManager)
    } else if flags.no_new_tasks.contains(name) {
        Some(ProjectReason::NoNewTasks)
    } else if flags.suspended_jobs.contains(name) {
        Some(ProjectReason::TaskSuspendedViaManager)
    } else {
        match &deferral {
            Ok(Some(_)) => Some(ProjectReason::SchedulerRpcBackoff),
            Ok(None) => None,
            Err(why) => return Err(why.clone()),
        }
    };
    let text = reason
        .map(|r| format!("can't request work: {}", r.as_str()))
        .unwrap_or_default();
    Ok((text, deferral?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::joblog::RscBackoff;

    fn printed(project: &str, prio: f64, reason: &str, backoff: Option<f64>) -> ProjectState {
        ProjectState {
            project: project.into(),
            prio,
            reason: reason.into(),
            backoff,
            ..ProjectState::default()
        }
    }

    fn entry(project: &str, prio: f64) -> PrioEntry {
        PrioEntry {
            project: project.into(),
            prio,
            rsf: 0.0,
            rt: 0.0,
            rs: 0.0,
            prio_slack: 0.0,
            rs_slack: 0.0,
        }
    }

    /// traces/real/mc-nnw at 12:25:02: A's one job has 35.50 GFLOPs left,
    /// the buffer is 180 + 172.8 s on 3 CPUs of 1 GFLOPS: A's fetch
    /// priority is −35.5 / (352.8 × 3) = −0.03354, printed −0.034 by
    /// Debian's 7.20.5; B and C have nothing queued (−0.000).
    #[test]
    fn queued_flops_lower_the_fetch_priority() {
        let inputs = Inputs {
            ncpus: 3,
            p_fpops: Ok(1e9),
            queued: HashMap::from([("A".to_string(), (35.5e9, 1))]),
            untouched: ["A", "B", "C"].map(String::from).into(),
            ..Inputs::default()
        };
        let dump = FetchDump {
            buffer: Some((180.0, 172.8)),
            projects: ["A", "B", "C"].map(|p| printed(p, 0.0, "", None)).to_vec(),
            ..FetchDump::default()
        };
        let base = [entry("A", 0.0), entry("B", 0.0), entry("C", 0.0)];
        let Lines { lines, account, .. } = project_lines(&inputs, 100.0, &dump, Some(&base));
        assert!(
            (lines[0].prio - -0.033541).abs() < 1e-6,
            "{}",
            lines[0].prio
        );
        assert!(lines[0].prio_slack < 1e-4);
        assert_eq!(lines[1].prio, 0.0);
        assert!(
            account.contains("(3 project(s): A prio -0.034 ± 0.00000"),
            "{account}"
        );
    }

    /// traces/real/down-empty-delay: P2's request failed at 12:29:18 and
    /// the client deferred it `for 00:01:21`; at 12:29:23 its block printed
    /// `scheduler RPC backoff (76.38 sec)`. The deferral ends in
    /// [12:30:38.5, 12:30:41), the block's now is in [12:29:22.5,
    /// 12:29:24): 74.5..78.5 s left; where the poll's `choose_project()`
    /// line gives now as 12:29:23.3, 75.2..77.7 s.
    #[test]
    fn the_deferral_left_is_known_to_the_stamps() {
        let mut inputs = Inputs::default();
        inputs
            .flags
            .rpc_deferral
            .insert("P2".into(), RpcDeferral::Until(18.0 + 81.0));
        let line = printed(
            "P2",
            0.0,
            "can't request work: scheduler RPC backoff",
            Some(76.38),
        );
        let (text, left) = reason(&inputs, "P2", 23.0, &line).expect("decided");
        assert_eq!(text, "can't request work: scheduler RPC backoff");
        assert_eq!(left, Some((76.5, 2.0)));
        inputs.exact_now = Some(23.3);
        let (_, left) = reason(&inputs, "P2", 23.0, &line).expect("decided");
        let (mid, slack) = left.expect("on");
        assert!((mid - 76.45).abs() < 1e-9 && (slack - 1.25).abs() < 1e-9);
        inputs.exact_now = None;
        // At its end's second: whether it is still on is not told.
        assert!(reason(&inputs, "P2", 99.0, &line).is_err());
        assert!(reason(&inputs, "P2", 101.0, &line).is_err());
        // Past it: none.
        let (text, left) = reason(&inputs, "P2", 102.0, &line).expect("decided");
        assert_eq!((text.as_str(), left), ("", None));
    }

    /// traces/real/down-empty-delay at 12:29:23: P2 is backed off, P1, P3
    /// and P4 (shares 100 each) can fetch: 0.333 each, P2 0.000, as
    /// printed; with P2's reason restated, no share is made.
    #[test]
    fn shares_over_the_projects_that_can_fetch() {
        let names = ["P1", "P2", "P3", "P4"];
        let inputs = Inputs {
            shares: names.map(|p| (p.to_string(), 100.0)).into(),
            ..Inputs::default()
        };
        let mut block = Lines {
            lines: names
                .map(|p| {
                    let reason = if p == "P2" {
                        "can't request work: scheduler RPC backoff"
                    } else {
                        ""
                    };
                    printed(p, 0.0, reason, None)
                })
                .to_vec(),
            account: String::new(),
            reasons_made: true,
        };
        let printed_shares: Vec<ShareState> = names
            .map(|p| ShareState {
                project: p.into(),
                ..ShareState::default()
            })
            .to_vec();
        let made = fetchable_shares(&inputs, &block, &printed_shares).expect("made");
        let shares: Vec<f64> = made.iter().map(|s| s.share).collect();
        assert_eq!(shares, [1.0 / 3.0, 0.0, 1.0 / 3.0, 1.0 / 3.0]);
        block.reasons_made = false;
        assert!(fetchable_shares(&inputs, &block, &printed_shares).is_err());
    }

    /// traces/real/down-empty-delay: P4's request at 12:29:37 got no job,
    /// and the client printed `backing off CPU 879 sec` at 12:29:39; its
    /// block at 12:29:44 printed `project is backed off (resource backoff:
    /// 873.89, inc 600.00)`. The backoff ends in [12:44:17, 12:44:19.5),
    /// now is in [12:29:43.5, 12:29:45): 872..876 s left. A project with a
    /// max_concurrent limit the simulation last hit past the buffer is at
    /// its limit; one hit within the record's uncertainty of the buffer's
    /// end is restated, as is a reason the lines do not tell.
    #[test]
    fn cpu_reasons_and_backoffs() {
        let mut inputs = Inputs::default();
        inputs.flags.cpu_backoff.insert(
            "P4".into(),
            RscBackoff {
                until: RpcDeferral::Until(39.0 + 879.0 - 0.5),
                interval: Some(600.0),
            },
        );
        inputs.mc_projects.insert("M".into());
        let share = |p: &str, reason: &str| ShareState {
            project: p.into(),
            reason: reason.into(),
            ..ShareState::default()
        };
        let printed = [
            share("P1", ""),
            share("P4", "project is backed off"),
            share("M", "max concurrent job limit"),
            share("N", "no applications"),
        ];
        let buffer = Some((180.0, 172.8));
        let made = cpu_share_lines(
            &inputs,
            44.0,
            &printed,
            &[("M".into(), 400.0, 3.0)],
            buffer,
            &[],
        );
        let reasons: Vec<&str> = made.lines.iter().map(|l| l.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "",
                "project is backed off",
                "max concurrent job limit",
                "no applications"
            ]
        );
        assert_eq!(made.lines[1].backoff, Some((874.0, 600.0)));
        assert_eq!(made.lines[1].backoff_slack, 2.0);
        assert!(
            made.account
                .contains("restated: N (printed `no applications`"),
            "{}",
            made.account
        );
        // The limit last hit 1 s before the buffer's end, known to ±3 s.
        let close = cpu_share_lines(
            &inputs,
            44.0,
            &printed[2..3],
            &[("M".into(), 351.8, 3.0)],
            buffer,
            &[],
        );
        assert!(close.account.contains("restated: M"), "{}", close.account);
        // Hit well before it: not at the limit.
        let before = cpu_share_lines(
            &inputs,
            44.0,
            &printed[2..3],
            &[("M".into(), 100.0, 3.0)],
            buffer,
            &[],
        );
        assert_eq!(before.lines[0].reason, "");
        // Printed at a limit the log never announced: restated, unless the
        // block's setup printed the project's MC limit time line.
        let unannounced = [share("U", "max concurrent job limit")];
        let times = [("U".to_string(), 400.0, 3.0)];
        let made = cpu_share_lines(&inputs, 44.0, &unannounced, &times, buffer, &[]);
        assert!(made.account.contains("restated: U"), "{}", made.account);
        let made = cpu_share_lines(&inputs, 44.0, &unannounced, &times, buffer, &["U".into()]);
        assert_eq!(made.lines[0].reason, "max concurrent job limit");
        assert!(!made.account.contains("restated"), "{}", made.account);
    }

    /// No new tasks comes before the deferral, whose time left still
    /// prints; a printed reason the lines do not tell is restated.
    #[test]
    fn precedence_and_untold_reasons() {
        let mut inputs = Inputs::default();
        inputs.flags.no_new_tasks.insert("C".into());
        inputs
            .flags
            .rpc_deferral
            .insert("C".into(), RpcDeferral::Until(160.0));
        let line = printed("C", 0.0, "", None);
        let (text, left) = reason(&inputs, "C", 100.0, &line).expect("decided");
        assert_eq!(
            text,
            "can't request work: \"no new tasks\" requested via Manager"
        );
        assert_eq!(left, Some((60.5, 2.0)));
        let master = printed(
            "C",
            0.0,
            "can't request work: master URL fetch pending",
            None,
        );
        assert!(reason(&inputs, "C", 100.0, &master).is_err());
        inputs.flags.untold = Some("not told".into());
        assert_eq!(reason(&inputs, "C", 100.0, &line), Err("not told".into()));
    }
}

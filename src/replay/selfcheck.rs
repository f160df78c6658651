//! The work-fetch choice and request re-derived from a work-fetch state dump
//! (spec/policy-current.md §7.7 choose_project, §7.8 set_request).
//!
//! Used two ways: in self-consistency mode the dump is the *recorded* one
//! (each logged state is taken as the state); in anchored mode the dump is
//! the one the replay built from its own simulation. The per-(project,
//! resource) `nused_total` and the instance counts come from the caller
//! (the replay's simulation, or in self-consistency mode the recorded
//! `set_request()` line, which prints them).
//!
//! Not modelled here (reported by the caller as limits): projects with
//! concurrency limits (`mc_shortfall`), GPU exclusions
//! (`set_request_excluded`), zero-share projects, `fetch_minimal_work`, the
//! NCI-first rule and wacky DCFs.
//!
//! Architecture Invariant: pure; reads only the dump and the numbers passed in.

use super::compare::Replayed;
use super::decision::{
    Decision, FetchDump, PrioEntry, RecEntry, RscRequestLine, RscSlack, RscState, SetRequestLine,
};
use super::recorded::{RecordedPoint, UNRESOLVED};
use crate::divergence::DecisionKind;
use crate::policy::state::HostState;
use crate::trace::message::{Message, SimReason};
use crate::trace::LogEvent;
use std::collections::{BTreeMap, HashMap};

/// The inputs beside the dump.
pub struct ChoiceInputs<'a> {
    /// Instances of each resource, in dump resource order.
    pub ninst: &'a [u32],
    /// `nused_total(project, resource)`: instances the project's jobs use in the simulation.
    pub nused_total: &'a dyn Fn(&str, &str) -> f64,
    /// The project's resource share is 0 (a backup project).
    pub zero_share: &'a dyn Fn(&str) -> bool,
}

/// The result: chosen project, its request per resource, the set_request lines, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The chosen project.
    pub chosen: Option<String>,
    /// Its request, one entry per resource of the dump.
    pub request: Vec<RscRequestLine>,
    /// The `set_request()` lines the choice printed.
    pub set_requests: Vec<SetRequestLine>,
    /// The rule and numbers behind the choice.
    pub reason: String,
    /// The block does not decide the choice (why), when so.
    pub undecidable: Option<String>,
}

/// The projects in choose_project()'s order: decreasing printed priority,
/// ties broken by the pass's scan lines; `None` when projects that can
/// request work tie and no scan line orders them.
fn scan_order(dump: &FetchDump) -> Option<Vec<usize>> {
    let position = |p: usize| {
        dump.scan_order
            .iter()
            .position(|name| *name == dump.projects[p].project)
            .unwrap_or(usize::MAX)
    };
    let mut order: Vec<usize> = (0..dump.projects.len()).collect();
    order.sort_by(|&a, &b| {
        dump.projects[b]
            .prio
            .total_cmp(&dump.projects[a].prio)
            .then(position(a).cmp(&position(b)))
    });
    let candidates: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&p| dump.projects[p].reason.is_empty())
        .collect();
    // With scan lines, the scanned projects come first in their order and
    // the rest were never reached; without, a tie is undecided.
    let unordered_tie = dump.scan_order.is_empty()
        && candidates
            .windows(2)
            .any(|w| dump.projects[w[0]].prio == dump.projects[w[1]].prio);
    (!unordered_tie).then_some(order)
}

/// A choice the block does not decide, and why.
fn undecided(why: String) -> Choice {
    Choice {
        chosen: None,
        request: Vec::new(),
        set_requests: Vec::new(),
        reason: String::new(),
        undecidable: Some(why),
    }
}

/// Mirrors WORK_FETCH::choose_project() over a dump (§7.7).
#[allow(clippy::needless_range_loop)] // r indexes several per-resource vectors, as the client does
pub fn choose(dump: &FetchDump, inputs: &ChoiceInputs<'_>) -> Choice {
    let (buf_min, buf_additional) = dump.buffer.unwrap_or((0.0, 0.0));
    let buf_total = (buf_min + buf_additional).max(1.0);
    // projects_sorted: decreasing priority. Priorities print to three
    // decimals: where they tie, the scan lines tell the client's order.
    let Some(order) = scan_order(dump) else {
        return undecided(
            "projects that can request work tie at the printed priority (three decimals) \
             and the log shows no `choose_project: scanning` lines to order them"
                .into(),
        );
    };
    let n_rsc = dump.resources.len();
    let share_of = |project: &str, r: usize| {
        dump.resources[r]
            .shares
            .iter()
            .find(|s| s.project == project)
    };
    let mut found: Vec<Option<usize>> = vec![None; n_rsc];
    let mut notes = Vec::new();
    for &p in &order {
        let project = &dump.projects[p];
        if !project.reason.is_empty() {
            notes.push(format!("{}: {}", project.project, project.reason));
            continue;
        }
        let mut trigger = None;
        for r in 0..n_rsc {
            let share = share_of(&project.project, r);
            let reason = share.map(|s| s.reason.as_str()).unwrap_or("");
            // 7.0–7.2 print a resource backoff beside the fetch share, not
            // as a reason: choose_project() skips the resource here
            // (RSC_WORK_FETCH::backed_off), not in the request loop below.
            let backed_off = dump.share_flags && share.is_some_and(|s| s.backoff.is_some());
            if !reason.is_empty() || backed_off {
                continue;
            }
            if found[r].is_none() {
                found[r] = Some(p);
            }
            if dump.resources[r].saturated < buf_min {
                // A max_concurrent project needs work only with an MC shortfall.
                if dump.mc_projects.contains(&project.project) {
                    match mc_shortfall(dump, &project.project, &dump.resources[r].rsc) {
                        Ok(x) if x > 0.0 => {}
                        Ok(_) => continue,
                        Err(why) => return undecided(why),
                    }
                }
                trigger = Some(r);
                break;
            }
        }
        let Some(trigger) = trigger else {
            notes.push(format!(
                "{}: no resource saturated < {buf_min:.2}",
                project.project
            ));
            continue;
        };
        let mut request: Vec<RscRequestLine> = dump
            .resources
            .iter()
            .map(|rsc| RscRequestLine {
                rsc: rsc.rsc.clone(),
                secs: 0.0,
                inst: 0.0,
                inst_slack: 0.0,
                secs_slack: 0.0,
            })
            .collect();
        let mut set_requests = Vec::new();
        for r in 0..n_rsc {
            let rsc = &dump.resources[r];
            if r != trigger {
                if found[r].is_some_and(|owner| owner != p) {
                    continue;
                }
                if rsc.saturated >= buf_total {
                    continue;
                }
                let reason = share_of(&project.project, r)
                    .map(|s| s.reason.as_str())
                    .unwrap_or("");
                if !(reason.is_empty() || reason == "project is backed off") {
                    continue;
                }
            }
            let asked = match set_request(dump, inputs, &project.project, r) {
                Ok(asked) => asked,
                Err(why) => return undecided(why),
            };
            if let Some(slot) = request.get_mut(r) {
                slot.secs = asked.secs;
                slot.inst = asked.inst;
                slot.inst_slack = asked.inst_slack;
            }
            set_requests.extend(asked.line);
        }
        if request.iter().any(|r| r.secs > 0.0) {
            let trigger_rsc = &dump.resources[trigger];
            let asked = if (inputs.zero_share)(&project.project) {
                "a backup project (share 0) asks 1 s and one job per idle instance".to_string()
            } else {
                format!("req_secs = shortfall {:.2}", trigger_rsc.shortfall)
            };
            let reason = format!(
                "§7.7: {} is the highest-priority project (prio {:.3}) without a project reason; \
                 trigger {} saturated {:.2} < work_buf_min {:.2}; §7.8 {asked}",
                project.project, project.prio, trigger_rsc.rsc, trigger_rsc.saturated, buf_min,
            );
            return Choice {
                chosen: Some(project.project.clone()),
                request,
                set_requests,
                reason,
                undecidable: None,
            };
        }
        notes.push(format!("{}: every request zero", project.project));
    }
    Choice {
        chosen: None,
        request: Vec::new(),
        set_requests: Vec::new(),
        reason: format!("§7.7: no project chosen ({})", notes.join("; ")),
        undecidable: None,
    }
}

/// RSC_WORK_FETCH::set_request (§7.8) for `project` and resource `r` of the
/// dump, without concurrency limits or exclusions.
///
/// A project with max_concurrent limits asks for its MC shortfall and no
/// instances (7.16 on); the MC shortfall is an input the block does not
/// print, taken from the `using MC shortfall` line of its set_request().
///
/// With how far the instances asked for may lie from the value given: the
/// block prints the share to three decimals (so `ninst × share` is known to
/// `ninst × 0.0005`), `nused_total` and `nidle_now` to two.
fn set_request(
    dump: &FetchDump,
    inputs: &ChoiceInputs<'_>,
    project: &str,
    r: usize,
) -> Result<Asked, String> {
    let rsc = &dump.resources[r];
    // A backup project asks one job per idle instance, and set_request()
    // returns before its line.
    if (inputs.zero_share)(project) {
        return Ok(Asked {
            line: None,
            secs: 1.0,
            inst: rsc.nidle,
            inst_slack: HALF_CENT,
        });
    }
    let mc = if dump.mc_projects.iter().any(|p| p == project) {
        Some(mc_shortfall(dump, project, &rsc.rsc)?)
    } else {
        None
    };
    let ninst = f64::from(inputs.ninst.get(r).copied().unwrap_or(0));
    let share = rsc
        .shares
        .iter()
        .find(|s| s.project == project)
        .map_or(0.0, |s| s.share);
    let nused = (inputs.nused_total)(project, &rsc.rsc);
    let shortfall = mc.unwrap_or(rsc.shortfall);
    let mut req_secs = if shortfall > 0.0 { shortfall } else { 0.0 };
    let (req_inst, inst_slack) = if mc.is_some() {
        (0.0, 0.0)
    } else {
        let share_inst = (ninst * share).min(ninst) - nused;
        let share_slack = ninst * 5e-4 + 5e-3;
        let nidle_slack = 5e-3;
        let slack = if (share_inst - rsc.nidle).abs() <= share_slack + nidle_slack {
            share_slack.max(nidle_slack)
        } else if share_inst > rsc.nidle {
            share_slack
        } else {
            nidle_slack
        };
        (rsc.nidle.max(share_inst), slack)
    };
    if req_inst > 0.0 && req_secs == 0.0 {
        req_secs = 1.0;
    }
    let line = SetRequestLine {
        rsc: rsc.rsc.clone(),
        ninst: ninst as u32,
        nused_total: nused,
        nidle_now: rsc.nidle,
        fetch_share: share,
        req_inst,
        req_secs,
    };
    Ok(Asked {
        line: Some(line),
        secs: req_secs,
        inst: req_inst,
        inst_slack,
    })
}

/// What RSC_WORK_FETCH::set_request() asks of one resource.
struct Asked {
    /// The `set_request()` line it prints (none for a backup project).
    line: Option<SetRequestLine>,
    /// Seconds asked.
    secs: f64,
    /// Instances asked, and how far the printed figures leave them open.
    inst: f64,
    inst_slack: f64,
}

/// A pass's state block on the client loop's figures ([`SelfCheck::loop_block`]).
struct LoopFigures {
    /// The block with the loop's CPU figures and MC shortfalls.
    dump: FetchDump,
    /// The CPU figures' intervals.
    slack: RscSlack,
    /// Each max_concurrent project's MC shortfall interval.
    mc_slack: Vec<(String, f64)>,
}

/// A choice made on the client loop's CPU figures carries their
/// intervals: the seconds asked (the shortfall's) and the instances (the
/// idle count's). A `set_request()` line's idle count the loop's interval
/// holds is the printed one.
fn with_loop_slack(choice: &mut Choice, printed: &FetchDump, figures: &LoopFigures) {
    let slack = &figures.slack;
    // A max_concurrent project asks for its MC shortfall.
    let secs_slack = choice
        .chosen
        .as_ref()
        .and_then(|p| figures.mc_slack.iter().find(|(m, _)| m == p))
        .map_or(slack.shortfall, |(_, x)| *x);
    for line in choice.request.iter_mut().filter(|l| l.rsc == "CPU") {
        if line.secs > 0.0 {
            line.secs_slack = secs_slack;
        }
        line.inst_slack += slack.nidle;
    }
    let printed_nidle = printed
        .resources
        .iter()
        .find(|r| r.rsc == "CPU")
        .map(|r| r.nidle);
    for line in choice.set_requests.iter_mut().filter(|l| l.rsc == "CPU") {
        if let Some(nidle) = printed_nidle {
            if (line.nidle_now - nidle).abs() <= slack.nidle {
                line.nidle_now = nidle;
            }
        }
    }
}

/// A GPU request that asks less than the block's shortfall by what GPU
/// exclusions would take off: set_request() scales req_secs by the
/// project's non-excluded instances out of all (work_fetch.cpp, 7.0 on),
/// and asks 1 s when that leaves nothing while instances are asked for. The
/// exclusions (cc_config `<exclude_gpu>`, per app) show in a log only at
/// start-up (`Config: excluded GPU`), and which apps they leave without an
/// instance in none: such a request is not checked, with why.
fn excluded_request(
    recomputed: &[RscRequestLine],
    recorded: &[RscRequestLine],
    ninst: &[u32],
) -> Option<String> {
    for (r, line) in recomputed.iter().enumerate() {
        if line.rsc == "CPU" {
            continue;
        }
        let Some(seen) = recorded.iter().find(|x| x.rsc == line.rsc) else {
            continue;
        };
        let n = ninst.get(r).copied().unwrap_or(0);
        if n == 0 || seen.secs >= line.secs - 0.01 {
            continue;
        }
        let fits = (0..n).any(|usable| {
            let scaled = line.secs * f64::from(usable) / f64::from(n);
            (seen.secs - scaled).abs() <= 0.01 + scaled * 1e-6
                || (scaled < 1.0 && (seen.secs - 1.0).abs() <= 0.01)
                || (scaled < 1.0 && seen.secs == 0.0)
        });
        if fits {
            return Some(format!(
                "the request for {} ({:.2} s) is the shortfall ({:.2} s) scaled down as GPU \
                 exclusions scale it (set_request: by the project's non-excluded instances); \
                 which instances the project's apps may use shows only at start-up \
                 (cc_config.xml `<exclude_gpu>`, `Config: excluded GPU` lines)",
                line.rsc, seen.secs, line.secs
            ));
        }
    }
    None
}

/// Before 7.5.0 (the dumps that print shares with the project's flags,
/// `share_flags`) choose_project() also skips a (project, GPU) pair whose
/// queued work exceeds what its non-excluded instances need
/// (RSC_WORK_FETCH::can_fetch, "too much work"; 9c96108c67 moved the test
/// into the printed reasons), and which instances a project's apps may use
/// shows only at start-up. When a recorded choice or request differs from
/// the recomputed one exactly as such a skip would make it differ, it is
/// not checked, with why.
fn hidden_excluded_work(
    dump: &FetchDump,
    inputs: &ChoiceInputs<'_>,
    recomputed: &Choice,
    recorded: &Decision,
    recorded_project: Option<&str>,
) -> Option<String> {
    if !dump.share_flags {
        return None;
    }
    let chosen = match recorded {
        Decision::Choice(chosen) => chosen.clone(),
        _ => recorded_project.map(str::to_string),
    };
    let why = |what: &str| {
        format!(
            "{what} as 7.0-7.4's can_fetch() makes it when a project's queued work exceeds what \
             its non-excluded GPU instances need (GPU exclusions: cc_config.xml \
             `<exclude_gpu>`, shown only by the start-up `Config: excluded GPU` lines)"
        )
    };
    match recorded {
        Decision::Choice(_) | Decision::Request { .. } if chosen != recomputed.chosen => {
            let pairs: Vec<(usize, usize)> = dump
                .resources
                .iter()
                .enumerate()
                .filter(|(_, rsc)| rsc.rsc != "CPU")
                .flat_map(|(r, rsc)| {
                    rsc.shares
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.reason.is_empty())
                        .map(move |(i, _)| (r, i))
                })
                .collect();
            let with_blocked = |blocked: &[(usize, usize)]| {
                let mut hidden = dump.clone();
                for &(r, i) in blocked {
                    hidden.resources[r].shares[i].reason = "too much work".into();
                }
                choose(&hidden, inputs).chosen
            };
            let explains = !pairs.is_empty()
                && (with_blocked(&pairs) == chosen
                    || pairs.iter().any(|pair| with_blocked(&[*pair]) == chosen));
            explains.then(|| why("the project chosen differs from the block's"))
        }
        Decision::Request { resources, .. } => {
            // A skipped pair zeroes its request, or (a better project
            // skipped: piggyback_work_request) lets another ask.
            let zeroed = recomputed.request.iter().any(|line| {
                let seen = resources
                    .iter()
                    .find(|seen| seen.rsc == line.rsc)
                    .map_or(0.0, |seen| seen.secs);
                line.rsc != "CPU" && ((line.secs > 0.0) != (seen > 0.0))
            });
            zeroed.then(|| why("a GPU request is zero where the block's is not, or the reverse,"))
        }
        _ => None,
    }
}

/// A printed block that leaves "buffer low" (§7.7: a resource's saturated
/// time below the buffer's minimum) to digits it does not print: both
/// print to the cent, so within a cent of each other either may be the
/// smaller (0.00 against 0.00 is no tie: neither is below zero). The scan
/// after the block tells which (a `needs work - buffer low` line, or a
/// `can fetch` line without one): `Ok(Some(dump))` with the saturated time
/// set on that side, `Ok(None)` for no tie, `Err` where nothing tells.
fn resolve_printed_tie(dump: &FetchDump) -> Result<Option<FetchDump>, String> {
    let Some((buf_min, _)) = dump.buffer else {
        return Ok(None);
    };
    let tied = |rsc: &RscState| {
        (rsc.saturated - buf_min).abs() <= 2.0 * HALF_CENT + 1e-9
            && !(rsc.saturated == 0.0 && buf_min == 0.0)
    };
    if !dump.resources.iter().any(tied) {
        return Ok(None);
    }
    let mut resolved = dump.clone();
    for rsc in resolved.resources.iter_mut().filter(|r| tied(r)) {
        let told = dump.scan_buffer.iter().find(|(r, _)| *r == rsc.rsc);
        match told {
            Some((_, true)) => rsc.saturated = buf_min - HALF_CENT,
            Some((_, false)) => rsc.saturated = buf_min,
            None => {
                return Err(format!(
                    "{} saturated {:.2} and the buffer's minimum {buf_min:.2} agree to the \
                     printed cent: whether the buffer was low (choose_project's `saturated < \
                     work_buf_min`) rests on digits the log does not print, and no scan line \
                     after the block tells",
                    rsc.rsc, rsc.saturated
                ))
            }
        }
    }
    Ok(Some(resolved))
}

/// How far apart a `%.2f` value and the sum of two other `%.2f` values can
/// be while the true values are equal: three half-units of the last digit.
const PRINTED_SUM_SLACK: f64 = 0.015 + 1e-9;

/// A max_concurrent project's MC shortfall for a resource, as its
/// `using MC shortfall` line printed it; `Err` when the log does not.
fn mc_shortfall(dump: &FetchDump, project: &str, rsc: &str) -> Result<f64, String> {
    dump.mc_shortfalls
        .iter()
        .find(|(p, r, _)| p == project && r == rsc)
        .map(|(_, _, x)| *x)
        .ok_or_else(|| {
            format!(
                "{project} has max_concurrent limits: its MC shortfall for {rsc} decides, and the \
                 log prints it only for a project asked for work (`using MC shortfall`)"
            )
        })
}

/// Mirrors WORK_FETCH::piggyback_work_request() (7.0 on; 7.0–7.2 print
/// resource backoffs beside the shares) over the dump of its pass: for an RPC the poll made to `project` (results to report, a
/// user request), the work asked for on top. The project must have no
/// project reason but an RPC backoff; per resource, its own reason must be
/// none or a backoff, the resource's saturated time below the whole buffer,
/// and no project of higher priority (by the printed priorities) able to
/// fetch it; then set_request() (§7.8). `Err` when the printed priorities
/// tie with a project that could have been the better one. A saturated
/// time equal to the buffer to the printed digits is decided by the lines
/// the client `printed` after the block (a `set_request()` for it or none).
///
/// `zero_rec`: projects whose REC is known to be exactly 0 (none of their
/// tasks ran since a fresh start): a tie between two of them is exact, and
/// the client passes over an equal priority.
pub fn piggyback(
    dump: &FetchDump,
    inputs: &ChoiceInputs<'_>,
    project: &str,
    zero_rec: Option<&std::collections::BTreeSet<String>>,
    printed: &[SetRequestLine],
) -> Result<Choice, String> {
    let exact_zero = |p: &str| zero_rec.is_some_and(|set| set.contains(p));
    let (buf_min, buf_additional) = dump.buffer.unwrap_or((0.0, 0.0));
    let buf_total = buf_min + buf_additional;
    let empty = |why: String| same_request(dump, project, 0.0, why);
    let Some(me) = dump.projects.iter().find(|p| p.project == project) else {
        return Err(format!(
            "{project} has no REC line in this pass's state block"
        ));
    };
    if !(me.reason.is_empty() || me.reason.ends_with("scheduler RPC backoff")) {
        return Ok(empty(format!(
            "§7.9 piggyback: {project} {}: no work asked",
            me.reason
        )));
    }
    let mut out = empty(String::new());
    let mut notes = Vec::new();
    for r in 0..dump.resources.len() {
        let rsc = &dump.resources[r];
        let reason = |p: &str| {
            rsc.shares
                .iter()
                .find(|s| s.project == p)
                .map(|s| s.reason.clone())
                .unwrap_or_default()
        };
        let mine = reason(project);
        if !(mine.is_empty() || mine == "project is backed off") {
            notes.push(format!("{}: can't fetch ({mine})", rsc.rsc));
            continue;
        }
        // Both sides are known to their printed `%.2f` (the buffer is the
        // sum of two): within that, `saturated < buffer` is below the
        // block's precision, and the client's own next line tells which
        // way it went (a `set_request()` for the resource, or none).
        let tie = (rsc.saturated - buf_total).abs() <= PRINTED_SUM_SLACK;
        let low = if tie {
            printed.iter().any(|s| s.rsc == rsc.rsc)
        } else {
            rsc.saturated < buf_total
        };
        if tie {
            notes.push(format!(
                "{}: saturated {:.2} and the buffer {:.2} agree to the printed precision: \
                 the buffer taken as {} as the log's {} says",
                rsc.rsc,
                rsc.saturated,
                buf_total,
                if low { "low" } else { "full" },
                if low {
                    "set_request() line"
                } else {
                    "lack of a set_request() line"
                }
            ));
        }
        if !low {
            if !tie {
                notes.push(format!(
                    "{}: saturated {:.2} >= buffer {:.2}",
                    rsc.rsc, rsc.saturated, buf_total
                ));
            }
            continue;
        }
        // 7.0–7.2 print a resource backoff beside the fetch share: a
        // backed-off project is no better project (RSC_WORK_FETCH::backed_off).
        let backed_off = |p: &str| {
            dump.share_flags
                && rsc
                    .shares
                    .iter()
                    .any(|s| s.project == p && s.backoff.is_some())
        };
        let rivals: Vec<&super::decision::ProjectState> = dump
            .projects
            .iter()
            .filter(|p| {
                p.project != project
                    && p.reason.is_empty()
                    && reason(&p.project).is_empty()
                    && !backed_off(&p.project)
            })
            .collect();
        // A rival printed above is above whatever the digits dropped
        // (rounding keeps the order), and it sorts before this project
        // whatever order the ties at this project's value take: it alone
        // decides, and a tie matters only when no such rival can fetch.
        if let Some(better) = rivals.iter().find(|p| p.prio > me.prio) {
            notes.push(format!(
                "{}: better project {} (prio {:.3} > {:.3})",
                rsc.rsc, better.project, better.prio, me.prio
            ));
            continue;
        }
        let exact = |p: &str| exact_zero(p) && exact_zero(project);
        if let Some(tie) = rivals
            .iter()
            .find(|p| p.prio == me.prio && !exact(&p.project))
        {
            return Err(format!(
                "{} and {project} tie at the printed priority {:.3}: whether {} is the better project for {} is below the block's precision",
                tie.project, me.prio, tie.project, rsc.rsc
            ));
        }
        let asked = set_request(dump, inputs, project, r)?;
        if let Some(slot) = out.request.get_mut(r) {
            slot.secs = asked.secs;
            slot.inst = asked.inst;
            slot.inst_slack = asked.inst_slack;
        }
        notes.push(format!(
            "{}: saturated {:.2} < buffer {:.2}, highest priority: req_secs = shortfall {:.2}",
            rsc.rsc, rsc.saturated, buf_total, rsc.shortfall
        ));
        out.set_requests.extend(asked.line);
    }
    out.reason = format!(
        "§7.9 piggyback_work_request() for {project}: {}",
        notes.join("; ")
    );
    Ok(out)
}

/// WORK_FETCH::set_initial_work_request(): a project's first RPC asks for
/// 1 s of each resource (none under "no new tasks", nor for a project of
/// zero resource share), whatever the piggyback computed, since nothing is
/// known of its jobs' runtimes yet.
fn initial_request(dump: &FetchDump, project: &str, zero_share: bool) -> Choice {
    let no_new_work = dump
        .projects
        .iter()
        .any(|p| p.project == project && p.reason.contains("no new tasks"));
    let why = if zero_share {
        " (its resource share is 0)"
    } else if no_new_work {
        " (no new tasks)"
    } else {
        ""
    };
    let secs = if zero_share || no_new_work { 0 } else { 1 };
    same_request(
        dump,
        project,
        f64::from(secs),
        format!(
            "§7.9 set_initial_work_request(): {project}'s initialization RPC asks for {secs} s \
             of each resource and no instances{why}"
        ),
    )
}

/// `project` asking `secs` of every resource of the dump and no instances.
fn same_request(dump: &FetchDump, project: &str, secs: f64, reason: String) -> Choice {
    Choice {
        chosen: Some(project.to_string()),
        request: dump
            .resources
            .iter()
            .map(|rsc| RscRequestLine {
                rsc: rsc.rsc.clone(),
                secs,
                inst: 0.0,
                inst_slack: 0.0,
                secs_slack: 0.0,
            })
            .collect(),
        set_requests: Vec::new(),
        reason,
        undecidable: None,
    }
}

/// The recorded dump and `set_request()` lines a choice or request refers to.
#[derive(Clone, Debug)]
pub struct PointContext<'d> {
    /// The dump.
    pub dump: &'d FetchDump,
    /// The `set_request()` lines of the request (inputs: ninst, nused_total).
    pub set_requests: Vec<SetRequestLine>,
}

/// A point's context, or what the log lacks for one (said as "not checked").
pub type Linked<'d> = Result<PointContext<'d>, String>;

/// What a pass lacks when the log starts inside it, before its block.
const PASS_BEFORE_LOG: &str = "the log starts inside this pass or at its work-fetch block: \
     the line that says whether choose_project() or a piggybacked request for an RPC the poll \
     chose printed the block (`entering choose_project()`, `piggyback_work_request()`, results \
     to report) is before the log, and no `No project chosen` or `choose_project: scanning` \
     line after it settles it";

/// What a pass lacks when its state block starts before the log.
const BLOCK_BEFORE_LOG: &str = "this pass's work-fetch state block starts before the log: its \
     `------- start work fetch state -------` line and the project and resource states up to \
     this line are needed";

/// Whether a dump holds every input of a recomputation; `Err` says what is
/// missing. `limits`: the pass's unmodelled inputs (max_concurrent, GPU
/// exclusions) count too (a choice or request rests on them; a scan line
/// does not).
fn usable(dump: &FetchDump, limits: bool) -> Result<(), String> {
    let mut missing = Vec::new();
    if limits && dump.mc_unknown {
        missing.push(
            "the log starts at this pass's work-fetch state block, on a host with \
             max_concurrent limits: the `rsc type N last MC limit time` lines that name the \
             limited projects (printed before the block) are before the log, and the choice \
             rests on their MC shortfalls"
                .to_string(),
        );
    }
    if !dump.complete {
        missing.push(match dump.resources.last() {
            None => "the log ends inside this pass's work-fetch state block, before the \
                     per-resource states (`--- state for RSC ---`, then shortfall, nidle, \
                     saturated and each project's share)"
                .to_string(),
            Some(last) => format!(
                "the log ends inside this pass's work-fetch state block after the state for \
                 {} (no `end work fetch state` line): the states of any later resource are \
                 missing",
                last.rsc
            ),
        });
    }
    if !dump.complete && !dump.mc_projects.is_empty() {
        missing.push(format!(
            "{} {} max_concurrent limits (`rsc type N last MC limit time` lines): the choice \
             also rests on their MC shortfalls, which the log prints only for a project asked \
             for work (`using MC shortfall`)",
            dump.mc_projects.join(", "),
            if dump.mc_projects.len() == 1 {
                "has"
            } else {
                "have"
            }
        ));
    }
    if limits && !dump.unmodelled.is_empty() {
        missing.push(format!(
            "this pass's choice also rests on {}: the projects' limits and simulated use \
             under them are not printed in the block (client_state.xml and app_config.xml \
             would decide it)",
            dump.unmodelled.join(" and ")
        ));
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing.join("; "))
    }
}

/// Links every choice, scan line and request point to the state dump of its
/// pass (a choice to the block printed at its own line, the others to the
/// last block before them) and a choice to the `set_request()` lines of the
/// request that follows it. Keyed by the point's event index.
pub fn link_contexts<'d>(points: &'d [RecordedPoint]) -> BTreeMap<usize, Linked<'d>> {
    let dumps: HashMap<usize, &FetchDump> = points
        .iter()
        .filter_map(|p| match &p.decision {
            Decision::FetchState(dump) => Some((p.event_idx, dump)),
            _ => None,
        })
        .collect();
    let context = |dump: Option<&'d FetchDump>, limits: bool| -> Linked<'d> {
        let dump = dump.ok_or_else(|| BLOCK_BEFORE_LOG.to_string())?;
        usable(dump, limits)?;
        Ok(PointContext {
            dump,
            set_requests: Vec::new(),
        })
    };
    let mut out = BTreeMap::new();
    let mut last_dump: Option<&FetchDump> = None;
    let mut pending_choice: Option<usize> = None;
    for point in points {
        match &point.decision {
            Decision::FetchState(dump) => last_dump = Some(dump),
            Decision::Choice(chosen) => {
                let linked = context(dumps.get(&point.event_idx).copied(), true);
                pending_choice = (linked.is_ok() && chosen.is_some()).then_some(point.event_idx);
                out.insert(point.event_idx, linked);
            }
            Decision::ScanLine { .. } => {
                out.insert(point.event_idx, context(last_dump, false));
            }
            Decision::Request { set_requests, .. } => {
                let mut linked = context(last_dump, true);
                if let Ok(ctx) = &mut linked {
                    ctx.set_requests = set_requests.clone();
                }
                out.insert(point.event_idx, linked);
                if let Some(Some(Ok(ctx))) = pending_choice.take().map(|c| out.get_mut(&c)) {
                    ctx.set_requests = set_requests.clone();
                }
            }
            _ => {}
        }
    }
    out
}

/// What a decision of this kind rests on beyond what a log prints.
fn needs_state(kind: DecisionKind) -> &'static str {
    match kind {
        DecisionKind::FetchState | DecisionKind::RrSim => {
            "the simulation runs over every job of the host: client_state.xml of that moment \
             (jobs, projects, app versions) and the preferences are needed"
        }
        DecisionKind::RunList | DecisionKind::Enforcement => {
            "the run list is built from every runnable job: client_state.xml of that moment \
             (jobs, app versions, memory use) and the preferences are needed"
        }
        DecisionKind::Priority => {
            "REC and priorities accrue from every job's run time since the last update: \
             client_state.xml and the log since the client started are needed"
        }
        DecisionKind::Backoff => {
            "a deferral's length comes from the scheduler reply (request_delay) or the \
             project's failed-RPC count: the reply and the log since the client started are \
             needed (the project's next RPC is checked against the deferral when the log \
             shows one)"
        }
        _ => "client_state.xml and the log since the client started are needed",
    }
}

/// Half a unit of the sixth decimal: how far a `%f` value may be from the
/// number it prints.
const HALF_MICRO: f64 = 5e-7;

/// Half a unit of a `%.2f` value.
const HALF_CENT: f64 = 0.005;

/// A `[prio] PRIO rsf RSF rt REC rs SUM` pass recomputed from its own
/// printed values by compute_sched_priority() (client/cpu_sched.cpp, the
/// same from 7.2 to today): priority = −(REC / REC sum) / share fraction,
/// or −1000 − REC / REC sum for a project with no resource share; one REC
/// sum for the whole pass (project_priority_init). A project printed again
/// starts the next pass: the client runs it for the scheduler and then for
/// work fetch, back to back when no `[rr_sim]` line separates them, over
/// different projects. Each recomputed priority is known to within what
/// the six printed decimals of its inputs allow (the extremes of their
/// rounding intervals).
/// A REC update recomputed from its own line (`recent est credit: XG in T
/// sec, OLD + D ->NEW`; client/work_fetch.cpp update_rec with
/// lib/util.cpp update_average): the interval since the last update is the
/// one printed (the accounting interval restarts at every update), so
/// `NEW = OLD·w + (1−w)·X/T_days`, `w = 2^(−T/half-life)`. Each input is
/// known to its printed digits: the recomputed REC carries the spread over
/// the corners of those intervals.
///
/// After an ignored period (`adjust_rec: elapsed time ... Ignoring this
/// period`, cpu_sched.cpp adjust_rec) the accounting interval restarts but
/// the REC time does not: the decay runs from the last update
/// ([`RecDecay::Since`]), while the printed interval is the new one.
fn rec_from_printed(entries: &[RecEntry], half_life_secs: f64, decay: RecDecay) -> Replayed {
    if entries.is_empty() {
        return Replayed::NotReplayed("priority: the REC update prints no project".into());
    }
    let (decay_secs, decay_slack) =
        match decay {
            RecDecay::Printed => (None, HALF_CENT),
            // Two stamps of one second each.
            RecDecay::Since(secs) => (Some(secs), 1.0),
            RecDecay::Unknown => return Replayed::NotReplayed(
                "priority: an adjust_rec period was ignored (`Ignoring this period`) since the \
                 last REC update the log shows, or before the first: the decay runs from the \
                 projects' last update (rec_time), which the log does not print"
                    .into(),
            ),
        };
    let update = |old: f64, credit: f64, secs: f64| {
        let mut avg = old;
        let mut avg_time = 1.0;
        crate::policy::rec::update_average(
            1.0 + secs,
            1.0,
            credit,
            half_life_secs,
            &mut avg,
            &mut avg_time,
        );
        avg
    };
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        if e.secs <= HALF_CENT {
            return Replayed::NotReplayed(format!(
                "priority: {}'s REC update prints an interval of {:.2} s: too short to \
                 recompute the update from",
                e.project, e.secs
            ));
        }
        let secs = decay_secs.unwrap_or(e.secs);
        let centre = update(e.old, e.credit, secs);
        let mut slack: f64 = 0.0;
        for old in [e.old - HALF_MICRO, e.old + HALF_MICRO] {
            for credit in [(e.credit - HALF_CENT).max(0.0), e.credit + HALF_CENT] {
                for secs in [secs - decay_slack, secs + decay_slack] {
                    slack = slack.max((update(old.max(0.0), credit, secs) - centre).abs());
                }
            }
        }
        out.push(RecEntry {
            new: centre,
            new_slack: slack + HALF_MICRO,
            ..e.clone()
        });
    }
    Replayed::Decision {
        decision: Decision::Rec(out),
        reason: format!(
            "§5.2 update_rec (work_fetch.cpp) with update_average (lib/util.cpp) over the \
             printed credit, interval and REC before, half-life {:.2} days, within the \
             rounding of the printed digits{}",
            half_life_secs / 86400.0,
            match decay_secs {
                Some(secs) => format!(
                    "; decayed over the {secs:.0} s since the last update (a period was \
                     ignored in between), within the stamps' second"
                ),
                None => String::new(),
            }
        )
        .into(),
    }
}

/// How long a REC update's decay ran (update_average's `now − rec_time`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RecDecay {
    /// The printed interval (no period ignored since the last update).
    Printed,
    /// Seconds since the last update the log shows (periods ignored since).
    Since(f64),
    /// A period was ignored and no earlier update is in the log.
    Unknown,
}

/// Per REC update point (event index) whose decay is not its printed
/// interval: an ignored adjust_rec period resets the accounting interval
/// (reset_rec_accounting) but not the projects' REC time.
pub fn rec_decays(points: &[RecordedPoint]) -> HashMap<usize, RecDecay> {
    let mut out = HashMap::new();
    let mut last_update: Option<f64> = None;
    let mut ignored = false;
    for point in points {
        match point.decision {
            Decision::RecDiscarded { .. } => ignored = true,
            Decision::Rec(_) => {
                if ignored {
                    let decay = match last_update {
                        Some(t) => RecDecay::Since(point.time - t),
                        None => RecDecay::Unknown,
                    };
                    out.insert(point.event_idx, decay);
                }
                last_update = Some(point.time);
                ignored = false;
            }
            _ => {}
        }
    }
    out
}

fn priority_from_printed(entries: &[PrioEntry]) -> Replayed {
    if entries.is_empty() {
        return Replayed::NotReplayed("priority: the pass prints no project".into());
    }
    let mut out = Vec::with_capacity(entries.len());
    let mut seen: Vec<&str> = Vec::new();
    let mut pass_rs = 0.0;
    for e in entries {
        if seen.is_empty() || seen.contains(&e.project.as_str()) {
            seen.clear();
            pass_rs = e.rs;
        }
        seen.push(&e.project);
        let rs = pass_rs;
        if rs.is_nan() || rs <= HALF_MICRO {
            return Replayed::NotReplayed(format!(
                "priority: the pass prints a REC sum of {rs:.6}, too small to recompute \
                 priorities from"
            ));
        }
        // The priority over the corners of the inputs' rounding intervals.
        let spread = |f: &dyn Fn(f64, f64, f64) -> f64, rsf_lo: f64| -> (f64, f64) {
            let centre = f(e.rt, rs, e.rsf);
            let mut slack: f64 = 0.0;
            for rt in [e.rt - HALF_MICRO, e.rt + HALF_MICRO] {
                for sum in [rs - HALF_MICRO, rs + HALF_MICRO] {
                    for rsf in [rsf_lo, e.rsf + HALF_MICRO] {
                        slack = slack.max((f(rt, sum, rsf) - centre).abs());
                    }
                }
            }
            (centre, slack)
        };
        let (prio, slack) = if e.rsf > HALF_MICRO {
            spread(&|rt, sum, rsf| -(rt / sum) / rsf, e.rsf - HALF_MICRO)
        } else {
            // A share fraction printed as 0: no resource share, if the
            // printed priority says so; a positive share too small to
            // print cannot be recomputed from.
            let (zero, slack) = spread(&|rt, sum, _| -1e3 - rt / sum, e.rsf);
            if (e.prio - zero).abs() > slack + 2.0 * HALF_MICRO {
                return Replayed::NotReplayed(format!(
                    "priority: {}'s share fraction prints as {:.6} and its priority is not \
                     that of a project without resource share: a share too small to \
                     recompute its priority from",
                    e.project, e.rsf
                ));
            }
            (zero, slack)
        };
        out.push(PrioEntry {
            project: e.project.clone(),
            prio,
            rsf: e.rsf,
            rt: e.rt,
            rs,
            prio_slack: slack,
            rs_slack: 0.0,
        });
    }
    Replayed::Decision {
        decision: Decision::Priority(out),
        reason: "§5 compute_sched_priority() (cpu_sched.cpp): each project's priority is \
                 −(REC / REC sum) / share fraction (−1000 − REC / REC sum with no share), from \
                 the pass's own printed REC, REC sum and share fraction; project_priority_init() \
                 prints one REC sum for the whole pass"
            .into(),
    }
}

/// A scheduler RPC after a recorded deferral: allowed once the deferral
/// ended (the log prints whole seconds: one second of slack), or at any
/// time when the user asked (client/cs_scheduler.cpp
/// CLIENT_STATE::next_project_sched_rpc_pending: user requests ignore
/// backoffs).
fn rpc_timing(at: f64, until: f64, until_label: &str, user: bool) -> Replayed {
    let allowed = user || at + 1.0 >= until;
    Replayed::Decision {
        decision: Decision::RpcTiming {
            until,
            until_label: until_label.to_string(),
            user,
            verdict: if allowed {
                "sent".into()
            } else {
                format!("not before {until_label} (deferred)")
            },
        },
        reason: if user {
            "§7.13: a user-requested RPC ignores the project's deferral \
             (cs_scheduler.cpp next_project_sched_rpc_pending)"
                .into()
        } else {
            format!(
                "§7.13: the project's scheduler is not contacted before its deferral ends at \
                 {until_label} (min_rpc_time; cs_scheduler.cpp next_project_sched_rpc_pending)"
            )
            .into()
        },
    }
}

/// Self-consistency mode (no state file): choices, requests and
/// choose_project()'s scan lines re-derived from the recorded state dump of
/// their pass; the other points are not checked.
pub struct SelfCheck<'a> {
    state: Option<&'a HostState>,
    contexts: BTreeMap<usize, Linked<'a>>,
    run_lists: BTreeMap<usize, super::joblog::Recomputed>,
    /// Each enforcement pass and whether the client loop made it (else its
    /// own lines re-derived it).
    enforcements: BTreeMap<usize, (super::enforce_check::Rederived, bool)>,
    fetch_states: BTreeMap<usize, super::rrsim_check::Refigured>,
    facts: super::joblog::LogFacts,
    /// The REC half-life in force, seconds, or why it is not known.
    rec_half_life_secs: Result<f64, String>,
    /// Per REC update (event index) how long its decay ran, where not the
    /// printed interval.
    rec_decays: HashMap<usize, RecDecay>,
    /// Each backoff's range re-derived from the lines before it.
    backoffs: BTreeMap<usize, super::backoff_check::Bounded>,
    /// Each simulation run again over the host the log tells.
    rr_sims: BTreeMap<usize, super::rrsim_replay::Resimulated>,
    /// Each priority pass the client loop made, or why it could not.
    priorities: BTreeMap<usize, super::prio_replay::Made>,
    /// Each priority pass as printed (keyed by its first line).
    prio_passes: BTreeMap<usize, Vec<PrioEntry>>,
    /// Each `[rr_sim] doing sim: work fetch` line (7.16 on), and whether
    /// the simulation was reused (`already did at this time` after it).
    fetch_sims: BTreeMap<usize, bool>,
    /// Per work-fetch choice or request (event index), whether it rested
    /// on the client loop's figures ([`SelfCheck::loop_block`]), noted by
    /// [`SelfCheck::replay`] so that [`SelfCheck::rested_on`] need not
    /// make them again.
    loop_rested: std::cell::RefCell<HashMap<usize, bool>>,
}

impl<'a> SelfCheck<'a> {
    /// The REC half-life the updates are checked with (`Err`: why it is
    /// unknown, and the updates are not checked).
    pub fn with_rec_half_life(mut self, secs: Result<f64, String>) -> Self {
        self.rec_half_life_secs = secs;
        self
    }

    /// How long each REC update's decay ran ([`rec_decays`]).
    pub fn with_rec_decays(mut self, decays: HashMap<usize, RecDecay>) -> Self {
        self.rec_decays = decays;
        self
    }

    /// Over the dumps linked to each point ([`link_contexts`]), the run
    /// lists and enforcement passes made again by the client loop
    /// ([`super::runlist_replay::remake_from`]; a pass it could not make
    /// re-derived from its lines, [`super::enforce_check::rederive`]), and
    /// the state blocks' figures
    /// recomputed from the simulation printed before them
    /// ([`super::rrsim_check::refigure_from`]).
    pub fn new(
        state: Option<&'a HostState>,
        contexts: BTreeMap<usize, Linked<'a>>,
        run_lists: BTreeMap<usize, super::joblog::Recomputed>,
        enforcements: BTreeMap<usize, (super::enforce_check::Rederived, bool)>,
        fetch_states: BTreeMap<usize, super::rrsim_check::Refigured>,
        facts: super::joblog::LogFacts,
    ) -> Self {
        SelfCheck {
            state,
            contexts,
            run_lists,
            enforcements,
            fetch_states,
            facts,
            rec_half_life_secs: Err("the REC half-life is not known".into()),
            rec_decays: HashMap::new(),
            backoffs: BTreeMap::new(),
            rr_sims: BTreeMap::new(),
            loop_rested: Default::default(),
            priorities: BTreeMap::new(),
            prio_passes: BTreeMap::new(),
            fetch_sims: BTreeMap::new(),
        }
    }

    /// The priority passes the client loop made
    /// ([`super::prio_replay::by_point`]).
    pub fn with_priorities(mut self, made: BTreeMap<usize, super::prio_replay::Made>) -> Self {
        self.priorities = made;
        self
    }

    /// The priority passes as printed: a work-fetch block's project lines
    /// rest on the fetch-mode pass before it, which follows the block's
    /// `doing sim: work fetch` line where the log prints one.
    pub fn with_prio_passes(mut self, points: &[RecordedPoint], events: &[LogEvent]) -> Self {
        self.prio_passes = points
            .iter()
            .filter(|p| !p.cut_before)
            .filter_map(|p| match &p.decision {
                Decision::Priority(entries) => Some((p.event_idx, entries.clone())),
                _ => None,
            })
            .collect();
        self.fetch_sims = events
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                matches!(
                    e.message,
                    Message::DoingSim {
                        why: SimReason::WorkFetch
                    }
                )
            })
            .map(|(idx, _)| {
                let reused = events
                    .get(idx + 1)
                    .is_some_and(|e| matches!(e.message, Message::SimAlreadyDone));
                (idx, reused)
            })
            .collect();
        self
    }

    /// The fetch-mode `[prio]` pass a block at `block` rests on, after
    /// the simulation at `sim`: `Some(&[])` where the pass printed no line
    /// (project_priority_init with a resource-share sum of 0 sets every
    /// priority to 0 and prints nothing), `None` where the lines do not
    /// tell which pass it is.
    fn fetch_pass(&self, sim: usize, block: usize) -> Option<&[PrioEntry]> {
        let passes_after = |from: usize| -> Vec<&[PrioEntry]> {
            self.prio_passes
                .range(from + 1..block)
                .map(|(_, pass)| pass.as_slice())
                .collect()
        };
        let Some((&line, &reused)) = self.fetch_sims.range(sim..block).next_back() else {
            // No `doing sim` line (before 7.16): the simulation prints its
            // own pass first, the fetch-mode pass follows its end.
            return match passes_after(sim).as_slice() {
                [_, .., last] => Some(last),
                _ => None,
            };
        };
        let passes = passes_after(line);
        // priority_debug on since the last block's simulation: some pass
        // printed between the two (else a pass printing nothing is no
        // sign of anything).
        let since = self
            .fetch_sims
            .range(..line)
            .next_back()
            .map_or(0, |(&at, _)| at);
        let printing = self.prio_passes.range(since..line).next().is_some();
        match (reused, passes.as_slice()) {
            (_, []) if printing => Some(&[]),
            (true, [pass]) | (false, [_, pass]) => Some(pass),
            // One pass after a simulation that ran: its own, or the
            // fetch-mode one with its own printing nothing.
            _ => None,
        }
    }

    /// The simulations run again ([`super::rrsim_replay::resimulate_from`]).
    pub fn with_rr_sims(
        mut self,
        rr_sims: BTreeMap<usize, super::rrsim_replay::Resimulated>,
    ) -> Self {
        self.rr_sims = rr_sims;
        self
    }

    /// The backoffs' ranges ([`super::backoff_check::ranges_from`]).
    pub fn with_backoffs(
        mut self,
        backoffs: BTreeMap<usize, super::backoff_check::Bounded>,
    ) -> Self {
        self.backoffs = backoffs;
        self
    }

    /// The project of an RPC the poll made (no choose_project()): checked
    /// by the reason the log gives it ([`super::joblog::hosts_at`]).
    fn report_choice(&self, point: &RecordedPoint) -> Replayed {
        let Decision::Choice(Some(project)) = &point.decision else {
            return Replayed::NotReplayed("no project".into());
        };
        match self.facts.reports.get(&point.event_idx) {
            Some(Ok((holds, why))) => Replayed::Decision {
                decision: Decision::Choice(holds.then(|| project.clone())),
                reason: format!(
                    "§7.9/§7.13 the RPC poll, not choose_project(), picked this project: {why}"
                )
                .into(),
            },
            Some(Err(why)) => Replayed::NotReplayed(why.clone()),
            None => Replayed::NotReplayed(
                "an RPC the poll chose (results due or a user request): its reason is not \
                 in the log"
                    .into(),
            ),
        }
    }

    /// In words, what the check of `point` rests on, for the report's
    /// per-kind summary (meaningful where [`SelfCheck::replay`] recomputed
    /// it).
    pub fn rested_on(&self, point: &RecordedPoint) -> &'static str {
        let idx = point.event_idx;
        match &point.decision {
            Decision::RunList(_) if matches!(self.run_lists.get(&idx), Some(Ok(_))) => {
                "the client loop's make_run_list over the host the log tells at the pass: jobs \
                 arrived, downloaded and their tasks, the pass's simulation made again, the \
                 printed priorities (ties within their digits not decided; those of RECs exactly \
                 0 exact, in the process's project order; with backup projects' jobs alone, \
                 no priorities printed, each 0, then less its REC fraction from the printed \
                 RECs, its digits carried), the printed \
                 deadline-miss counts the EDF part counts down, the usable CPUs and \
                 max_concurrent limits, deadlines from the replies"
            }
            Decision::RunList(_) => {
                "the printed entries' own priority order (the pass is not whole in the log)"
            }
            Decision::FetchState(dump) if self.rerun_figures(point, dump).is_some() => {
                "the simulation before it made again by the client loop over the host the log tells"
            }
            Decision::FetchState(_) => {
                "the round-robin simulation printed just before it (its finishes, shortfall and \
                 busy-time lines) and the usable CPUs"
            }
            Decision::RrSim { .. } => {
                "the client loop's round-robin simulation over the host the log tells: jobs on \
                 the host and not done (where the log starts on a state file, those the state \
                 files and job logs put there at its start, in the order their replies or \
                 received times give; then those the log tells arrived), printed FLOPs left and \
                 rate (narrowed by the app version's FLOPS), usable CPUs, max_concurrent, \
                 deadlines from the replies and state files"
            }
            Decision::Enforcement(_) if matches!(self.enforcements.get(&idx), Some((_, true))) => {
                "the client loop's enforce_run_list on the run list it made for the pass: the \
                 tasks the last enforcement scheduled and their run intervals (the stamps that \
                 started them), the time slice and leave-in-memory preferences (the data \
                 directory's files), the usable and physical CPUs, max_concurrent"
            }
            Decision::Enforcement(_) => {
                "the pass's own printed final job list, the tasks running before it and their \
                 resource use, the usable CPUs and the memory limits the log tells"
            }
            Decision::Priority(_) if matches!(self.priorities.get(&idx), Some(Ok(_))) => {
                "the client loop's project_priority_init in its simulation over the host the \
                 log tells: each project's REC (exactly 0 on a state file the client created, \
                 else its last `recent est credit` line), its resource share (the state files \
                 and replies), the projects suspended and those with a runnable job"
            }
            Decision::Priority(_) => "each line's printed REC and resource share",
            Decision::Rec(_) | Decision::RecDiscarded { .. } => {
                "each line's printed REC before the update, the time since the last one and \
                 the REC half-life (cc_config.xml, else the default)"
            }
            Decision::Backoff { .. } => {
                "the failures and backoffs in a row the log shows before it (carried across \
                 windows), within the client's randomisation"
            }
            Decision::RpcTiming { .. } => "the deferral the log printed before it",
            Decision::Choice(_) if point.piggyback => {
                "the RPC's printed reason (results due, user request, project initialisation)"
            }
            Decision::Choice(_) | Decision::Request { .. } if self.rests_on_loop(point) => {
                "the pass's printed project reasons, priorities and shares, with the CPU \
                 shortfall, idle instances and saturated time of the simulation the client loop \
                 made again (their intervals carried)"
            }
            Decision::Choice(_) | Decision::Request { .. } | Decision::RequestSecs { .. } => {
                "the pass's printed work-fetch state block and set_request() lines \
                 (self-consistency)"
            }
            Decision::ScanLine { .. } => "the reason the pass's state block printed",
            Decision::McShortfall { .. } => {
                "the pass's printed shortfall and nused_total lines and the max_concurrent \
                 limits the log tells"
            }
            Decision::EmptyRequest { .. } => {
                "the pass's `chosen:` line and the chosen project's `request:` line"
            }
            Decision::SwapSkip { .. } => {
                "the swap-skip line's own figure, swap left and wording (which tells the figure \
                 compared)"
            }
        }
    }

    /// The replayed side of one point.
    pub fn replay(&self, point: &RecordedPoint) -> Replayed {
        if let Some(replayed) = self.recomputed_from_lines(point) {
            return replayed;
        }
        match &point.decision {
            Decision::Choice(Some(chosen)) if chosen == UNRESOLVED => {
                let mut why = "the log ends before this pass printed its choice (`No project \
                               chosen for work fetch`, or the chosen project's `set_request()` \
                               and request lines)"
                    .to_string();
                if let Some(Err(more)) = self.contexts.get(&point.event_idx) {
                    why = format!("{why}; {more}");
                }
                Replayed::NotReplayed(why)
            }
            Decision::Choice(_) | Decision::Request { .. } if point.cut_before => {
                Replayed::NotReplayed(PASS_BEFORE_LOG.to_string())
            }
            Decision::Choice(_) | Decision::Request { .. } => self.recompute(point),
            Decision::ScanLine { rsc, .. } => self.scan_line(point, rsc.as_deref()),
            Decision::RpcTiming {
                until,
                until_label,
                user,
                ..
            } => rpc_timing(point.time, *until, until_label, *user),
            // Each line of a priority pass carries its own inputs: checked
            // even in a pass the log starts inside.
            Decision::Priority(entries) => match self.priorities.get(&point.event_idx) {
                Some(Ok((made, reason))) => Replayed::Decision {
                    decision: Decision::Priority(made.clone()),
                    reason: reason.clone().into(),
                },
                Some(Err(why)) => match priority_from_printed(entries) {
                    Replayed::Decision { decision, reason } => Replayed::Decision {
                        decision,
                        reason: format!(
                            "{reason} (from the pass's own printed inputs: the client loop did \
                             not make it: {why})"
                        )
                        .into(),
                    },
                    other => other,
                },
                None => priority_from_printed(entries),
            },
            Decision::Backoff { rsc, .. } if self.backoffs.contains_key(&point.event_idx) => {
                match &self.backoffs[&point.event_idx] {
                    Ok((secs, secs_slack, rule)) => Replayed::Decision {
                        decision: Decision::Backoff {
                            rsc: rsc.clone(),
                            secs: *secs,
                            secs_slack: *secs_slack,
                        },
                        reason: rule.clone().into(),
                    },
                    Err(why) => Replayed::NotReplayed(format!("backoff: {why}")),
                }
            }
            // So does each line of a REC update, with the half-life.
            Decision::Rec(entries) => match &self.rec_half_life_secs {
                Ok(half_life) => rec_from_printed(
                    entries,
                    *half_life,
                    self.rec_decays
                        .get(&point.event_idx)
                        .copied()
                        .unwrap_or(RecDecay::Printed),
                ),
                Err(why) => Replayed::NotReplayed(format!("priority: REC update: {why}")),
            },
            _ if point.cut_before => Replayed::NotReplayed(format!(
                "{}: the log starts inside this pass (its start line, the run list before \
                 it and every job's resource use are not in the log); {}",
                point.kind().name(),
                needs_state(point.kind())
            )),
            _ if self.state.is_some() => Replayed::NotReplayed(format!(
                "{}: a real client's log is checked from its own lines; recomputing this \
                 needs the host's state at that moment, and client_state.xml is a snapshot \
                 taken when it was copied, not when the log was written",
                point.kind().name()
            )),
            _ => Replayed::NotReplayed(format!(
                "{}: {}",
                point.kind().name(),
                needs_state(point.kind())
            )),
        }
    }

    /// A run list or enforcement pass recomputed from the log's own lines
    /// (a whole pass only), or why it could not be; `None` when neither
    /// applies to the point.
    fn recomputed_from_lines(&self, point: &RecordedPoint) -> Option<Replayed> {
        if point.cut_before {
            return None;
        }
        let idx = point.event_idx;
        let decided = |decision, reason: &String| Replayed::Decision {
            decision,
            reason: reason.clone().into(),
        };
        Some(match &point.decision {
            Decision::RunList(_) => match self.run_lists.get(&idx)? {
                Ok((entries, reason)) => decided(Decision::RunList(entries.clone()), reason),
                Err(why) => Replayed::NotReplayed(format!("run_list: {why}")),
            },
            // The figures of the simulation the client loop made again
            // first; else those of the simulation the log printed.
            Decision::FetchState(dump) => match self.rerun_figures(point, dump) {
                Some((decision, reason)) => Replayed::Decision {
                    decision,
                    reason: reason.into(),
                },
                None => match self.fetch_states.get(&idx)? {
                    Ok((decision, reason)) => Replayed::Decision {
                        decision: decision.clone(),
                        reason: reason.clone(),
                    },
                    Err(why) => Replayed::NotReplayed(format!(
                    "fetch_state: from the simulation printed before it: {why}; from the host: \
                     {}",
                    needs_state(point.kind())
                )),
                },
            },
            Decision::RrSim { .. } => match self.rr_sims.get(&idx)? {
                Ok(rerun) => decided(rerun.decision.clone(), &rerun.reason),
                Err(why) => Replayed::NotReplayed(format!(
                    "rr_sim: run again over the host the log tells: {why}"
                )),
            },
            Decision::Enforcement(_) => match &self.enforcements.get(&idx)?.0 {
                Ok((actions, reason)) => decided(Decision::Enforcement(actions.clone()), reason),
                Err(why) => Replayed::NotReplayed(format!(
                    "enforcement: from its own lines: {why}; from the host: {}",
                    needs_state(point.kind())
                )),
            },
            _ => return None,
        })
    }

    /// A state block's CPU figures from the simulation before it run again
    /// (where the figures could not be followed from its printed lines).
    fn rerun_figures(&self, point: &RecordedPoint, dump: &FetchDump) -> Option<(Decision, String)> {
        let (&sim, last) = self.rr_sims.range(..point.event_idx).next_back()?;
        let rerun = last.as_ref().ok()?;
        let base = self.fetch_pass(sim, point.event_idx);
        super::rrsim_replay::fetch_state(rerun, dump, point.time, base)
    }

    /// A pass's state block with the CPU figures of the simulation the
    /// client loop made again at its second (a CPU-only host), its
    /// projects' MC shortfalls, and their intervals. `None` where the loop
    /// made none; `Err` where the intervals leave the choice open: the
    /// saturated time against the buffer's minimum or total, or a
    /// shortfall against zero.
    fn loop_block(
        &self,
        point: &RecordedPoint,
        dump: &FetchDump,
    ) -> Option<Result<LoopFigures, String>> {
        // A project's first RPC asks for 1 s whatever the figures say.
        if point.piggyback && self.initial_rpc(point) {
            return None;
        }
        let (_, last) = self.rr_sims.range(..point.event_idx).next_back()?;
        let rerun = last.as_ref().ok()?;
        let (Decision::FetchState(mut made), _) =
            super::rrsim_replay::fetch_state(rerun, dump, point.time, None)?
        else {
            return None;
        };
        // The choice ranks the projects by their printed lines (checked
        // on the block's own point).
        made.projects = dump.projects.clone();
        let cpu = made.resources.first()?;
        let s = cpu.slack;
        let (buf_min, buf_additional) = dump.buffer?;
        // The buffer prints to two decimals (its total, a sum of two).
        let edges = [
            (buf_min, "buffer's minimum"),
            ((buf_min + buf_additional).max(1.0), "buffer's total"),
            (buf_min + buf_additional, "buffer's printed sum"),
        ];
        for (edge, what) in edges {
            let within = s.saturated + PRINTED_SUM_SLACK;
            if (cpu.saturated - edge).abs() <= within {
                return Some(Err(format!(
                    "leaves its saturated time {:.2} ± {within:.2} on either side of the {what} \
                     {edge:.2}",
                    cpu.saturated
                )));
            }
        }
        if cpu.shortfall.abs() <= s.shortfall && s.shortfall > 0.0 {
            return Some(Err(format!(
                "leaves its shortfall {:.2} ± {:.2} on either side of zero",
                cpu.shortfall, s.shortfall
            )));
        }
        // A max_concurrent project asks for its MC shortfall, which the
        // loop's simulation gives for each (the log, only for the one asked).
        made.mc_shortfalls.clear();
        let mut mc_slack = Vec::new();
        for project in &dump.mc_projects {
            let Some((_, x, x_slack)) = rerun.mc_shortfalls.iter().find(|m| m.0 == *project) else {
                return Some(Err(format!("does not hold the project {project}")));
            };
            if x.abs() <= *x_slack && *x_slack > 0.0 {
                return Some(Err(format!(
                    "leaves {project}'s MC shortfall {x:.2} ± {x_slack:.2} on either side of zero"
                )));
            }
            made.mc_shortfalls.push((project.clone(), "CPU".into(), *x));
            mc_slack.push((project.clone(), *x_slack));
        }
        Some(Ok(LoopFigures {
            dump: made,
            slack: s,
            mc_slack,
        }))
    }

    /// Whether the work-fetch choice or request at `point` rested on the
    /// client loop's figures (memoized per point).
    fn rests_on_loop(&self, point: &RecordedPoint) -> bool {
        if let Some(&known) = self.loop_rested.borrow().get(&point.event_idx) {
            return known;
        }
        let rested = self
            .context(point)
            .is_ok_and(|c| matches!(self.loop_block(point, c.dump), Some(Ok(_))));
        self.loop_rested
            .borrow_mut()
            .insert(point.event_idx, rested);
        rested
    }

    /// The point's RPC is a project's first (`project initialization`).
    fn initial_rpc(&self, point: &RecordedPoint) -> bool {
        matches!(
            self.facts.rpc_reasons.get(&point.event_idx),
            Some(crate::trace::message::RpcReason::ProjectInitialization)
        )
    }

    /// The point's context, or why it has none (said as "not checked").
    fn context(&self, point: &RecordedPoint) -> Result<&PointContext<'a>, String> {
        match self.contexts.get(&point.event_idx) {
            Some(Ok(context)) => Ok(context),
            Some(Err(why)) => Err(why.clone()),
            None => Err(
                "no work-fetch state dump precedes this decision (work_fetch_debug off?)".into(),
            ),
        }
    }

    /// `can fetch RSC`, `can't fetch RSC: REASON`, `skip: REASON`: the
    /// reason choose_project() tests is the one the state block printed for
    /// the project (and resource) in the same pass (client/work_fetch.cpp
    /// WORK_FETCH::choose_project, print_state).
    fn scan_line(&self, point: &RecordedPoint, rsc: Option<&str>) -> Replayed {
        let context = match self.context(point) {
            Ok(context) => context,
            Err(why) => return Replayed::NotReplayed(why),
        };
        let project = point.project.as_deref().unwrap_or_default();
        let reason = match rsc {
            None => context
                .dump
                .projects
                .iter()
                .find(|p| p.project == project)
                .map(|p| p.reason.clone()),
            Some(rsc) => context
                .dump
                .resources
                .iter()
                .find(|r| r.rsc == rsc)
                .and_then(|r| r.shares.iter().find(|s| s.project == project))
                .map(|s| s.reason.clone()),
        };
        let Some(reason) = reason else {
            return Replayed::NotReplayed(format!(
                "{project} has no {} line in this pass's state block",
                if rsc.is_some() { "share" } else { "REC" }
            ));
        };
        Replayed::Decision {
            decision: Decision::ScanLine {
                rsc: rsc.map(str::to_string),
                reason,
            },
            reason: format!(
                "§7.7 choose_project tests the reason the pass's state block printed for {project}{} \
                 (work_fetch.cpp WORK_FETCH::choose_project)",
                rsc.map(|r| format!(" and {r}")).unwrap_or_default()
            ).into(),
        }
    }

    /// Choice and request: recomputed from the recorded state dump (self-consistency).
    fn recompute(&self, point: &RecordedPoint) -> Replayed {
        if point.piggyback && matches!(point.decision, Decision::Choice(_)) {
            return self.report_choice(point);
        }
        let context = match self.context(point) {
            Ok(context) => context,
            Err(why) => return Replayed::NotReplayed(why),
        };
        let ninst: Vec<u32> = context
            .dump
            .resources
            .iter()
            .map(|rsc| {
                context
                    .set_requests
                    .iter()
                    .find(|s| s.rsc == rsc.rsc)
                    .map(|s| s.ninst)
                    .or_else(|| {
                        self.state.and_then(|state| {
                            (0..state.n_rsc())
                                .find(|&r| state.rsc_type(r).long_name() == rsc.rsc)
                                .map(|r| state.ninstances(r) as u32)
                        })
                    })
                    .unwrap_or(0)
            })
            .collect();
        let set_requests = &context.set_requests;
        let nused = move |_project: &str, rsc: &str| {
            set_requests
                .iter()
                .find(|s| s.rsc == rsc)
                .map_or(0.0, |s| s.nused_total)
        };
        let zero_shares = &self.facts.zero_shares;
        let zero_share = |project: &str| zero_shares.contains(project);
        let inputs = ChoiceInputs {
            ninst: &ninst,
            nused_total: &nused,
            zero_share: &zero_share,
        };
        let initial = self.initial_rpc(point);
        let looped = self.loop_block(point, context.dump);
        self.loop_rested
            .borrow_mut()
            .insert(point.event_idx, matches!(looped, Some(Ok(_))));
        let (dump, figures, note) = match &looped {
            Some(Ok(figures)) => (
                &figures.dump,
                Some(figures),
                format!(
                    "; the CPU figures those of the simulation the client loop made again at \
                     this second (shortfall ± {:.2} s, idle ± {:.3}{})",
                    figures.slack.shortfall,
                    figures.slack.nidle,
                    figures
                        .mc_slack
                        .iter()
                        .map(|(p, x)| format!(", {p}'s MC shortfall ± {x:.2} s"))
                        .collect::<String>()
                ),
            ),
            Some(Err(why)) => (
                context.dump,
                None,
                format!(" (the printed CPU figures: the client loop's simulation {why})"),
            ),
            None => (context.dump, None, String::new()),
        };
        let tie_resolved = if figures.is_none() && !point.piggyback {
            match resolve_printed_tie(dump) {
                Ok(resolved) => resolved,
                Err(why) => return Replayed::NotReplayed(format!("{why}{note}")),
            }
        } else {
            None
        };
        let (dump, note) = match &tie_resolved {
            Some(resolved) => (
                resolved,
                format!(
                    "{note}; the printed saturated time ties the buffer's minimum to the cent: \
                     whether the buffer was low taken from the scan's lines"
                ),
            ),
            None => (dump, note),
        };
        let mut choice = if point.piggyback {
            let project = point.project.as_deref().unwrap_or_default();
            let zero_rec = self.facts.zero_rec.get(&point.event_idx);
            match piggyback(dump, &inputs, project, zero_rec, set_requests) {
                // The piggyback prints its set_request() lines, then the
                // initial request replaces what it asked for.
                Ok(choice) if initial => Choice {
                    set_requests: choice.set_requests,
                    ..initial_request(dump, project, self.facts.zero_shares.contains(project))
                },
                Ok(choice) => choice,
                Err(why) => return Replayed::NotReplayed(why),
            }
        } else {
            choose(dump, &inputs)
        };
        if let Some(figures) = figures {
            with_loop_slack(&mut choice, context.dump, figures);
        }
        choice.reason.push_str(&note);
        if let Some(why) = choice.undecidable {
            // Where the loop's figures would have decided, say why they
            // could not be used.
            return Replayed::NotReplayed(match &looped {
                Some(Err(_)) => format!("{why}{note}"),
                _ => why,
            });
        }
        if let Some(why) = hidden_excluded_work(
            context.dump,
            &inputs,
            &choice,
            &point.decision,
            point.project.as_deref(),
        ) {
            return Replayed::NotReplayed(why);
        }
        if let Decision::Request { resources, .. } = &point.decision {
            if let Some(why) = excluded_request(&choice.request, resources, &ninst) {
                return Replayed::NotReplayed(why);
            }
        }
        let basis = if figures.is_some() {
            "the pass's printed project reasons and priorities with the client loop's CPU figures"
        } else {
            "self-consistency from the recorded state dump"
        };
        let reason = format!("{basis}: {}", choice.reason);
        match &point.decision {
            Decision::Choice(_) => Replayed::Decision {
                decision: Decision::Choice(choice.chosen),
                reason: reason.into(),
            },
            _ => Replayed::Decision {
                decision: Decision::Request {
                    resources: choice.request,
                    set_requests: choice.set_requests,
                },
                reason: reason.into(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::decision::{ProjectState, RscState, ShareState};
    use super::*;

    /// A REC update recomputed from its own line, with the run's half-life:
    /// the lab's two-projects run (Debian's 7.20.5, cc_config.xml 10 days)
    /// printed `recent est credit: 0.02G in 7.01 sec, 0.000000 + 0.001126
    /// ->0.001126`; 0.02G is 0.015G to 0.025G, so the new REC is known to
    /// about a quarter, and a half-life of 5 days is outside it.
    #[test]
    fn rec_update_from_its_printed_inputs() {
        let line = RecEntry {
            project: "P1".into(),
            credit: 0.02,
            secs: 7.01,
            old: 0.0,
            new: 0.001126,
            new_slack: 0.0,
        };
        let within = |half_life_days: f64| {
            let Replayed::Decision {
                decision: Decision::Rec(entries),
                ..
            } = rec_from_printed(
                std::slice::from_ref(&line),
                half_life_days * 86400.0,
                RecDecay::Printed,
            )
            else {
                panic!("recomputed")
            };
            let e = &entries[0];
            (e.new - line.new).abs() <= e.new_slack
        };
        assert!(within(10.0));
        assert!(!within(5.0));
        // A line with no interval is not recomputed.
        let instant = RecEntry {
            secs: 0.0,
            ..line.clone()
        };
        assert!(matches!(
            rec_from_printed(&[instant], 864000.0, RecDecay::Printed),
            Replayed::NotReplayed(_)
        ));
    }

    /// After an ignored period the decay runs from the last update: the
    /// generated reference cpu16_amd_3proj_tinybuf_appmc_partial_susp
    /// printed `Ignoring this period` at 01:40:00 (its last update at
    /// 01:24:00), then at 01:42:00 `[Lyra] recent est credit: 45.16G in
    /// 120.00 sec, 22.131736 + 3.109807 ->25.241542`: 1080 s of decay fit,
    /// the printed 120 s do not, and without the earlier update the line
    /// is not checked.
    #[test]
    fn rec_decay_spans_an_ignored_period() {
        let line = RecEntry {
            project: "Lyra".into(),
            credit: 45.16,
            secs: 120.0,
            old: 22.131736,
            new: 25.241542,
            new_slack: 0.0,
        };
        let within = |decay| {
            let Replayed::Decision {
                decision: Decision::Rec(entries),
                ..
            } = rec_from_printed(std::slice::from_ref(&line), 864000.0, decay)
            else {
                panic!("recomputed")
            };
            (entries[0].new - line.new).abs() <= entries[0].new_slack
        };
        assert!(within(RecDecay::Since(1080.0)));
        assert!(!within(RecDecay::Printed));
        assert!(matches!(
            rec_from_printed(std::slice::from_ref(&line), 864000.0, RecDecay::Unknown),
            Replayed::NotReplayed(_)
        ));
    }

    fn prio(project: &str, prio: f64, rsf: f64, rt: f64, rs: f64) -> PrioEntry {
        PrioEntry {
            project: project.into(),
            prio,
            rsf,
            rt,
            rs,
            prio_slack: 0.0,
            rs_slack: 0.0,
        }
    }

    fn diverging_fields(entries: Vec<PrioEntry>) -> Vec<&'static str> {
        let recorded = Decision::Priority(entries.clone());
        let Replayed::Decision { decision, .. } = priority_from_printed(&entries) else {
            panic!("not recomputed");
        };
        let replayed = decision.fields();
        recorded
            .fields()
            .iter()
            .zip(&replayed)
            .filter(|(a, b)| !super::super::compare::values_agree(&a.value, &b.value, 0.0))
            .map(|(a, _)| a.name)
            .collect()
    }

    /// The [prio] pass of field excerpt gh1615-a (8.x, 2016) as printed: it
    /// agrees; a priority or a REC sum changed in one line diverges.
    #[test]
    fn priority_pass_from_its_own_lines() {
        let pass = || {
            vec![
                prio("ATLAS@home", -0.025980, 0.222222, 1.480171, 256.383298),
                prio("rosetta@home", -0.007391, 0.222222, 0.421116, 256.383298),
                prio("SETI@home", -1.408098, 0.666667, 240.675136, 256.383298),
                prio(
                    "SETI@home Beta Test",
                    -0.499455,
                    0.111111,
                    14.227991,
                    256.383298,
                ),
            ]
        };
        assert!(diverging_fields(pass()).is_empty());
        let mut wrong = pass();
        wrong[2].prio = -1.408198;
        assert_eq!(diverging_fields(wrong), ["prio"]);
        let mut other_sum = pass();
        other_sum[3].rs = 255.0;
        assert!(diverging_fields(other_sum).contains(&"rec_sum"));
        // A project without resource share sits below every other.
        let zero = vec![prio("A", -1000.5, 0.0, 1.0, 2.0)];
        assert!(diverging_fields(zero).is_empty());
        // The scheduler's pass then the work-fetch pass, back to back: each
        // has its own REC sum.
        let two_passes = vec![
            prio("A", -0.5, 0.5, 1.0, 4.0),
            prio("B", -1.5, 0.5, 3.0, 4.0),
            prio("A", -1.0, 1.0, 1.0, 1.0),
        ];
        assert!(diverging_fields(two_passes).is_empty());
        // A positive share printed as 0.000000 cannot be recomputed from.
        assert!(matches!(
            priority_from_printed(&[prio("A", -20000.0, 0.0, 0.01, 1.0)]),
            Replayed::NotReplayed(_)
        ));
    }

    /// A saturated time printed equal to the buffer's minimum to the cent
    /// (a lab run of 7.20.5: 180.00 against 180.00, U chosen): the scan's
    /// lines say which side it was on, else the choice is left open.
    #[test]
    fn a_saturated_time_at_the_buffers_minimum_is_told_by_the_scan() {
        let block = |saturated: f64, scan: &[(&str, bool)]| FetchDump {
            buffer: Some((180.0, 345.6)),
            resources: vec![RscState {
                rsc: "CPU".into(),
                saturated,
                ..RscState::default()
            }],
            scan_buffer: scan.iter().map(|(r, low)| (r.to_string(), *low)).collect(),
            ..FetchDump::default()
        };
        let saturated =
            |d: Result<Option<FetchDump>, String>| d.map(|d| d.map(|d| d.resources[0].saturated));
        // Not within a cent: no tie.
        assert_eq!(
            saturated(resolve_printed_tie(&block(180.02, &[]))),
            Ok(None)
        );
        // Within a cent: the scan tells, low (below 180) or not.
        assert!(
            saturated(resolve_printed_tie(&block(180.0, &[("CPU", true)])))
                .is_ok_and(|s| s.is_some_and(|s| s < 180.0))
        );
        assert_eq!(
            saturated(resolve_printed_tie(&block(179.99, &[("CPU", false)]))),
            Ok(Some(180.0))
        );
        // Nothing tells.
        assert!(resolve_printed_tie(&block(180.0, &[])).is_err());
        // 0.00 against a minimum of 0.00: nothing is below zero.
        let mut zero = block(0.0, &[]);
        zero.buffer = Some((0.0, 100.0));
        assert_eq!(saturated(resolve_printed_tie(&zero)), Ok(None));
    }

    /// cpu_two_projects_unequal_share 01:00:00 (§9.7 fixture table).
    #[test]
    fn first_block_of_cpu_two_projects() {
        let dump = FetchDump {
            buffer: Some((8640.0, 43200.0)),
            projects: vec![
                ProjectState {
                    project: "Alpha".into(),
                    prio: -0.0,
                    ..ProjectState::default()
                },
                ProjectState {
                    project: "Beta".into(),
                    prio: -0.0,
                    ..ProjectState::default()
                },
            ],
            resources: vec![RscState {
                rsc: "CPU".into(),
                shortfall: 207360.0,
                nidle: 4.0,
                saturated: 0.0,
                busy: 0.0,
                slack: Default::default(),
                shares: vec![
                    ShareState {
                        project: "Alpha".into(),
                        share: 0.75,
                        ..ShareState::default()
                    },
                    ShareState {
                        project: "Beta".into(),
                        share: 0.25,
                        ..ShareState::default()
                    },
                ],
            }],
            complete: true,
            unmodelled: Vec::new(),
            // The log's `[Alpha] choose_project: scanning` line.
            scan_order: vec!["Alpha".into()],
            scan_buffer: Vec::new(),
            mc_projects: Vec::new(),
            mc_shortfalls: Vec::new(),
            share_flags: false,
            mc_unknown: false,
        };
        let zero = |_: &str, _: &str| 0.0;
        let inputs = ChoiceInputs {
            ninst: &[4],
            nused_total: &zero,
            zero_share: &|_| false,
        };
        let choice = choose(&dump, &inputs);
        assert_eq!(choice.chosen.as_deref(), Some("Alpha"));
        assert_eq!(choice.request[0].secs, 207360.0);
        assert_eq!(choice.request[0].inst, 4.0);
        // Both print priority -0.000: without the scan line the block does
        // not say which one the client scanned first.
        let untold = FetchDump {
            scan_order: Vec::new(),
            scan_buffer: Vec::new(),
            ..dump
        };
        assert!(choose(&untold, &inputs).undecidable.is_some());
    }

    /// 7.16 on, work_fetch.cpp: a project with max_concurrent limits is
    /// chosen only with an MC shortfall and asks for it, with no instances
    /// (the lab's mc-nnw run: `using MC shortfall 352.800000 instead of
    /// shortfall 1058.400000`, then `req_inst 0.00 req_secs 352.80`).
    #[test]
    fn max_concurrent_project_asks_for_its_mc_shortfall() {
        let dump = FetchDump {
            buffer: Some((180.0, 172.8)),
            projects: vec![ProjectState {
                project: "A".into(),
                ..ProjectState::default()
            }],
            resources: vec![RscState {
                rsc: "CPU".into(),
                shortfall: 1058.4,
                nidle: 3.0,
                shares: vec![ShareState {
                    project: "A".into(),
                    share: 0.333,
                    ..ShareState::default()
                }],
                ..RscState::default()
            }],
            complete: true,
            mc_projects: vec!["A".into()],
            mc_shortfalls: vec![("A".into(), "CPU".into(), 352.8)],
            ..FetchDump::default()
        };
        let zero = |_: &str, _: &str| 0.0;
        let inputs = ChoiceInputs {
            ninst: &[3],
            nused_total: &zero,
            zero_share: &|_| false,
        };
        let choice = choose(&dump, &inputs);
        assert_eq!(choice.chosen.as_deref(), Some("A"));
        assert_eq!(choice.request[0].secs, 352.8);
        assert_eq!(choice.request[0].inst, 0.0);
        // No MC shortfall printed for it: the choice is not decided.
        let untold = FetchDump {
            mc_shortfalls: Vec::new(),
            ..dump.clone()
        };
        assert!(choose(&untold, &inputs).undecidable.is_some());
        // An MC shortfall of 0: not chosen.
        let none = FetchDump {
            mc_shortfalls: vec![("A".into(), "CPU".into(), 0.0)],
            ..dump
        };
        assert_eq!(choose(&none, &inputs).chosen, None);
    }
}

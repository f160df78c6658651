//! A real client's priority passes (spec/policy-current.md §5.4:
//! client/cpu_sched.cpp `project_priority_init`) made by the client loop:
//! the round-robin simulation the loop makes again over the host a log
//! tells ([`super::rrsim_replay`]) initialises the priorities there, and
//! its `[prio]` lines are compared with the printed ones.
//!
//! The host's priority inputs come from the record, never from the pass's
//! own lines:
//! - each project's REC: exactly 0 while the client runs on a state file it
//!   created and none of the project's tasks was scheduled; else as
//!   the project's last `recent est credit` line printed it (six decimals);
//! - each project's resource share, from the state files and scheduler
//!   replies where they give one value (the log prints it to whole units
//!   at start-up, which must agree);
//! - the projects the user suspended (they print no line);
//! - which projects count (have a runnable job): the loop's own test.
//!
//! A project that does not count prints the `REC_tmp` an earlier pass
//! left; the loop's host carries none, so such a pass is made only where
//! that value is exactly 0. What the digits leave open is derived: each
//! printed REC is known to half a unit of its sixth decimal, so the REC sum
//! to the sum of those, and each priority to what those intervals allow.
//!
//! Architecture Invariant: pure; reads a host view and recorded points.

use super::decision::PrioEntry;
use super::joblog::{HostView, JobFacts};
use super::recorded::RecordedPoint;
use crate::policy::rec::PriorityInit;
use crate::policy::state::{HostState, JobState};
use crate::policy::Params;
use crate::trace::event::LogEvent;
use crate::trace::message::{Message, SimReason};
use std::collections::{BTreeMap, HashSet};

/// Half a unit of a printed REC (`%f`).
pub(super) const HALF_MICRO: f64 = 0.5e-6;

/// A priority pass made again, or why the loop could not make it.
pub type Made = Result<(Vec<PrioEntry>, String), String>;

/// What a moment's priority pass rests on.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// Per project (host order): how far its REC may lie from the value
    /// set (0: exactly 0).
    half: Vec<f64>,
    /// Where the RECs and shares came from.
    account: String,
}

/// Sets each project's REC, resource share and suspension on the moment's
/// host, or says which the record lacks.
pub fn set_inputs(
    state: &mut HostState,
    view: &HostView,
    facts: &JobFacts,
) -> Result<Inputs, String> {
    let mut half = Vec::with_capacity(state.projects.len());
    let (mut zero, mut printed) = (0, 0);
    for project in &mut state.projects {
        let name = project.name.as_str();
        let share = match facts.shares.get(name) {
            Some(Some(share)) => *share,
            Some(None) => {
                return Err(format!(
                    "the state files and replies give {name} more than one resource share"
                ))
            }
            None => {
                return Err(format!(
                    "{name}'s resource share is in no state file or reply (the log prints \
                     it in whole units only)"
                ))
            }
        };
        if let Some(at_start) = view.printed_shares.get(name) {
            if (at_start - share).abs() > 0.5 {
                return Err(format!(
                    "{name}'s resource share is {share} in the state files but printed \
                     {at_start:.0} at the client's start: it changed during the log"
                ));
            }
        }
        project.resource_share = share;
        project.suspended_via_gui = view.suspended_projects.contains(name);
        if view.untouched.contains(name) {
            project.rec = 0.0;
            half.push(0.0);
            zero += 1;
        } else if let Some(&rec) = view.recs.get(name) {
            project.rec = rec;
            half.push(HALF_MICRO);
            printed += 1;
        } else {
            return Err(format!(
                "{name}'s REC is not in the record at this pass: no `recent est credit` \
                 line for it since the client started on a state file it did not create"
            ));
        }
    }
    // Which projects count rests on runnable jobs: those with their files
    // in (a simulation runs the downloading ones too).
    // (The view holds every job the log has told of, done ones included:
    // looked up once, not per simulated job.)
    let downloaded: HashSet<&str> = view
        .jobs
        .iter()
        .filter(|j| j.downloaded)
        .map(|j| j.name.as_str())
        .collect();
    for job in &mut state.jobs {
        if !downloaded.contains(job.name.as_str()) {
            job.state = JobState::Downloading;
        }
    }
    // A job whose files may be in or not (task_debug off) decides only
    // where no other job of its project is runnable.
    if let Some(open) = view.jobs.iter().find(|j| {
        j.maybe_downloaded
            && state.jobs.iter().any(|s| s.name == j.name.as_str())
            && !state.jobs.iter().any(|s| {
                s.state != JobState::Downloading
                    && state.projects[s.project].name == j.project.as_str()
            })
    }) {
        return Err(format!(
            "whether {}'s files were in is not printed (task_debug off), and {} counts among \
             the projects with runnable jobs only by it",
            open.name, open.project
        ));
    }
    Ok(Inputs {
        half,
        account: format!(
            "each project's REC exactly 0 ({zero}: a state file the client created, none of \
             its tasks scheduled since) or as its last `recent est credit` line printed it ({printed}, \
             ±0.5e-6), its resource share from the state files and replies"
        ),
    })
}

/// A simulation's priority initialisation as the loop made it, with what
/// its inputs rest on.
#[derive(Clone, Debug)]
pub struct Initialised {
    init: PriorityInit,
    /// Per project (host order): its name and resource share.
    projects: Vec<(String, f64)>,
    inputs: Inputs,
    offset: f64,
}

/// What the loop's initialisation at a simulation compares with.
pub fn initialised(
    state: &HostState,
    init: &PriorityInit,
    inputs: &Inputs,
    params: &Params,
) -> Initialised {
    Initialised {
        init: init.clone(),
        projects: state
            .projects
            .iter()
            .map(|p| (p.name.to_string(), p.resource_share))
            .collect(),
        inputs: inputs.clone(),
        offset: params.zero_share_priority_offset,
    }
}

/// The loop's initialisation as printed `[prio]` lines, each with what its
/// inputs' digits leave open, or why it is not made. A project that does
/// not count prints the `REC_tmp` an earlier pass left, which a host
/// reconstructed for one pass does not carry: its printed value is taken
/// (`printed`), and the account names it.
fn made(loop_init: &Initialised, printed: &[PrioEntry]) -> Made {
    let Initialised {
        init,
        projects,
        inputs,
        offset,
    } = loop_init;
    let half_of = |p: usize| inputs.half.get(p).copied().unwrap_or(HALF_MICRO);
    // A REC is never negative: each counted one lies in [printed − half,
    // printed + half] above 0, and the sum between those bounds' sums.
    let counted = || init.lines.iter().filter(|l| l.counted);
    let rs_lo: f64 = counted()
        .map(|l| (l.rec_temp - half_of(l.project)).max(0.0))
        .sum();
    let rs_hi: f64 = counted().map(|l| l.rec_temp + half_of(l.project)).sum();
    let rs = init.rec_sum;
    if rs_lo <= 0.0 && rs_hi > 0.0 {
        return Err(
            "every counted project's REC prints as 0.000000 and the record does not say \
             whether they are exactly 0 (the client then divides by 1)"
                .into(),
        );
    }
    // All exactly 0: the client divides by 1, exactly.
    let (rs_lo, rs_hi) = if rs_hi > 0.0 {
        (rs_lo, rs_hi)
    } else {
        (rs, rs)
    };
    let rs_slack = (rs - rs_lo).max(rs_hi - rs);
    let mut taken = Vec::new();
    let mut out = Vec::with_capacity(init.lines.len());
    for line in &init.lines {
        let Some((name, share)) = projects.get(line.project) else {
            return Err("the loop printed a project the host lacks".into());
        };
        let from_loop = line.counted || half_of(line.project) == 0.0;
        let (rt, rt_half) = if from_loop {
            (
                line.rec_temp,
                if line.counted {
                    half_of(line.project)
                } else {
                    0.0
                },
            )
        } else {
            let Some(entry) = printed.iter().find(|e| e.project == *name) else {
                return Err(format!(
                    "{name} has no runnable job here and the pass prints no line for it"
                ));
            };
            taken.push(name.as_str());
            (entry.rt, HALF_MICRO)
        };
        let rsf = line.share_frac;
        let f = |rt: f64, sum: f64| {
            let frac = rt / sum;
            if *share == 0.0 {
                -offset - frac
            } else if rsf > 0.0 {
                -frac / rsf
            } else {
                -frac
            }
        };
        let centre = f(rt, rs);
        let mut slack: f64 = 0.0;
        for rt_corner in [rt - rt_half, rt + rt_half] {
            for sum in [rs_lo, rs_hi] {
                slack = slack.max((f(rt_corner, sum) - centre).abs());
            }
        }
        out.push(PrioEntry {
            project: name.clone(),
            prio: if from_loop { line.priority } else { centre },
            rsf,
            rt,
            rs,
            prio_slack: slack,
            rs_slack,
        });
    }
    // In the printed order (the client's project list), where it names
    // the project.
    out.sort_by_key(|e| {
        printed
            .iter()
            .position(|p| p.project == e.project)
            .unwrap_or(usize::MAX)
    });
    let taken = if taken.is_empty() {
        String::new()
    } else {
        format!(
            "; REC_tmp taken as printed for {} (no runnable job: the value an earlier pass \
             left, which the host reconstructed for this pass does not carry)",
            taken.join(", ")
        )
    };
    Ok((
        out,
        format!(
            "§5.4 project_priority_init, made by the client loop's simulation of this pass on \
             the host the log tells (which projects count is the loop's test: a runnable job): \
             {}; REC sum {rs:.6} ± {rs_slack:.1e}{taken}",
            inputs.account
        ),
    ))
}

/// Each recorded priority pass the loop made, keyed by its point's line:
/// the one printed at a simulation's start (made there), and the run
/// list's after a CPU-scheduling simulation (the same initialisation on
/// the same host). `sims` holds each simulation's initialisation by its
/// start line, or why the loop made none.
pub fn by_point(
    events: &[LogEvent],
    points: &[RecordedPoint],
    sims: &BTreeMap<usize, Result<Initialised, String>>,
) -> BTreeMap<usize, Made> {
    let mut out = BTreeMap::new();
    for point in points {
        let super::decision::Decision::Priority(printed) = &point.decision else {
            continue;
        };
        if point.cut_before {
            continue;
        }
        let q = point.event_idx;
        // The lines a simulation prints after its end (its deadline
        // misses) lie between it and the run list's initialisation.
        let Some(b) = (0..q.min(events.len())).rev().find(|&i| {
            !matches!(
                events[i].message,
                Message::ProjectedDeadlineMiss { .. } | Message::ProjectDeadlineMisses { .. }
            )
        }) else {
            continue;
        };
        let start = match events[b].message {
            Message::RrSimStart { .. } => b,
            Message::RrSimEnd => {
                let Some((&start, _)) = sims.range(..q).next_back() else {
                    continue;
                };
                let cpu_sched = start
                    .checked_sub(1)
                    .and_then(|i| events.get(i))
                    .is_some_and(|e| {
                        matches!(
                            e.message,
                            Message::DoingSim {
                                why: SimReason::CpuSched
                            }
                        )
                    });
                if !cpu_sched {
                    continue;
                }
                start
            }
            _ => continue,
        };
        let Some(sim) = sims.get(&start) else {
            continue;
        };
        let made = sim.clone().and_then(|init| made(&init, printed));
        let made = made.map(|(entries, reason)| {
            if start == b {
                (entries, reason)
            } else {
                let again = "; the run list initialises them again on the host the simulation \
                             left as it found it";
                (entries, format!("{reason}{again}"))
            }
        });
        out.insert(q, made);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::rec::{project_priority_init, PriorityMode};
    use crate::policy::state::{Host, Job, Project, ResourceUsage};

    /// Three projects of share 1 on a client that created its state file
    /// (mc-nnw, 12:25:08): A's REC printed 0.001125 by its last update, B
    /// and C untouched (exactly 0); A and B have a job with its files in.
    fn pass(c_touched: bool) -> (HostState, Inputs) {
        let mut state = HostState::new(Host {
            p_ncpus: 3,
            p_fpops: 1e9,
            m_nbytes: 0.0,
            coprocs: Vec::new(),
        });
        for name in ["A", "B", "C"] {
            state.projects.push(Project::new(name, 1.0, 1));
        }
        for (p, name) in [(0, "A_0"), (1, "B_0")] {
            let usage = ResourceUsage::cpu(1.0, 1e9);
            let mut job = Job::new(name, p, "app", usage, 30e9);
            job.report_deadline = 1e9;
            state.jobs.push(job);
        }
        let mut view = HostView::default();
        view.recs.insert("A".into(), 0.001125);
        view.untouched.insert("B".into());
        if c_touched {
            view.recs.insert("C".into(), 0.000000);
        } else {
            view.untouched.insert("C".into());
        }
        let mut facts = JobFacts::default();
        for name in ["A", "B", "C"] {
            facts.add_share(name, 1.0);
        }
        view.jobs = ["A_0", "B_0"]
            .iter()
            .map(|n| super::super::joblog::SeenJob {
                name: n.to_string(),
                downloaded: true,
                maybe_downloaded: false,
                project: n[..1].to_string(),
                app: None,
                deadline: None,
                done: false,
                nearly_runnable: true,
                maybe_nearly_runnable: false,
            })
            .collect();
        let inputs = set_inputs(&mut state, &view, &facts).expect("inputs known");
        (state, inputs)
    }

    fn printed(project: &str, rt: f64) -> PrioEntry {
        PrioEntry {
            project: project.into(),
            prio: 0.0,
            rsf: 0.0,
            rt,
            rs: 0.0,
            prio_slack: 0.0,
            rs_slack: 0.0,
        }
    }

    fn made_at(state: &mut HostState, inputs: &Inputs, printed: &[PrioEntry]) -> Made {
        let params = Params::default();
        let init = project_priority_init(state, PriorityMode::Runnable, 1000.0, &params);
        made(&initialised(state, &init, inputs, &params), printed)
    }

    /// The log printed `[A] -2.000000 rsf 0.500000 rt 0.001125 rs
    /// 0.001125`, `[B] -0.000000 rsf 0.500000 …`, `[C] -0.000000 rsf
    /// 0.500000 rt 0.000000 …`: A and B count (share sum 2), REC sum is A's
    /// alone, known to half a unit of its sixth decimal; A's priority is
    /// −(0.001125 / 0.001125) / 0.5 = −2 within what that half unit moves.
    #[test]
    fn priorities_from_the_rec_lines_and_the_runnable_projects() {
        let (mut state, inputs) = pass(false);
        let (entries, reason) = made_at(&mut state, &inputs, &[]).expect("made");
        let a = &entries[0];
        assert_eq!(
            (a.project.as_str(), a.rsf, a.rt, a.rs),
            ("A", 0.5, 0.001125, 0.001125)
        );
        assert!((a.prio + 2.0).abs() < 1e-12);
        assert!((a.rs_slack - 0.5e-6).abs() < 1e-15, "{}", a.rs_slack);
        // rt and the sum move together at most by 0.5e-6 each: the worst
        // corner is (0.0011255 / 0.0011245) / 0.5 − 2.
        let worst = (0.0011255 / 0.0011245) / 0.5 - 2.0;
        assert!((a.prio_slack - worst).abs() < 1e-9, "{}", a.prio_slack);
        let c = &entries[2];
        assert_eq!((c.rsf, c.rt, c.prio, c.prio_slack), (0.5, 0.0, 0.0, 0.0));
        assert!(reason.contains("exactly 0 (2"), "{reason}");
    }

    /// C has no runnable job and its REC is not known to be exactly 0: it
    /// prints what an earlier pass left, which is taken as printed and
    /// named.
    #[test]
    fn a_project_without_runnable_job_takes_its_printed_rec_tmp() {
        let (mut state, inputs) = pass(true);
        let printed = [printed("C", 0.000400)];
        let (entries, reason) = made_at(&mut state, &inputs, &printed).expect("made");
        let c = entries.iter().find(|e| e.project == "C").expect("C");
        assert_eq!(c.rt, 0.0004);
        assert!((c.prio - -(0.0004 / 0.001125) / 0.5).abs() < 1e-12);
        assert!(reason.contains("taken as printed for C"), "{reason}");
        assert!(made_at(&mut state, &inputs, &[]).is_err());
    }

    /// Every counted REC printed 0.000000 but not known to be exactly 0:
    /// the client divides by 1 or by their tiny sum, and the record cannot
    /// say which.
    #[test]
    fn tiny_recs_leave_the_sum_open() {
        let (mut state, mut inputs) = pass(false);
        state.projects[0].rec = 0.0;
        inputs.half = vec![0.5e-6, 0.5e-6, 0.0];
        let why = made_at(&mut state, &inputs, &[]).expect_err("open");
        assert!(why.contains("exactly 0"), "{why}");
    }
}

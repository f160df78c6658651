//! `explain`: why a resource sat idle or why a project was not asked for
//! work at a moment, as the chain of rule outcomes behind the work-fetch
//! pass at (or last before) that moment, each with the recorded value it
//! rests on (policy-current §7.7 `choose_project`, §7.8 `set_request`;
//! client/work_fetch.cpp WORK_FETCH::choose_project, print_state), and
//! what the last scheduling pass before it showed: the jobs its enforcement
//! ran and the rule each skipped one names (`all CPUs used`, `CPU
//! committed`, max_concurrent, `can't run, too big`, not enough GPU), the
//! CPUs used, and whether the scan follows from its own job list; and
//! whether the pass's shortfall, idle instances and saturated times follow
//! from the round-robin simulation printed before it.
//!
//! It explains what the log recorded; whether the client decided right is
//! `audit`'s question. Where the trace lacks an input, the explanation says
//! which one, never an empty reason.
//!
//! Architecture Invariant: pure; reads the recorded decisions of a trace.

use super::compare::values_agree;
use super::decision::{Decision, FetchDump, ProjectState, RscRequestLine, RscState, Value};
use super::recorded::{self, RecordedPoint, UNRESOLVED};
use super::rrsim_check::GpuCpuRule;
use super::selfcheck::link_contexts;
use crate::trace::{EventTime, Message, Trace};
use chrono::{NaiveDateTime, NaiveTime, Timelike};
use serde::Serialize;

/// The moment asked about (`--at`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum At {
    /// A time on the trace's own base: simulated seconds, or a local date
    /// and time read as the log prints it.
    Secs(f64),
    /// A time of day (`HH:MM[:SS]`): the last pass at or before it on any day.
    TimeOfDay(u32),
}

impl std::str::FromStr for At {
    type Err = String;

    /// `HH:MM[:SS]`, `N day(s) HH:MM:SS` (the emulator's clock),
    /// `YYYY-MM-DD HH:MM:SS`, `YYYY/MM/DD HH:MM:SS` (or with `T`), or
    /// seconds on the trace's time base.
    fn from_str(text: &str) -> Result<At, String> {
        let text = text.trim();
        if let Ok(secs) = text.parse::<f64>() {
            if secs.is_finite() && secs >= 0.0 {
                return Ok(At::Secs(secs));
            }
        }
        for format in ["%H:%M:%S", "%H:%M"] {
            if let Ok(t) = NaiveTime::parse_from_str(text, format) {
                return Ok(At::TimeOfDay(t.num_seconds_from_midnight()));
            }
        }
        if let Some((days, clock)) = text.split_once(" day") {
            let clock = clock.trim_start_matches('s').trim();
            if let (Ok(days), Ok(t)) = (
                days.trim().parse::<u32>(),
                NaiveTime::parse_from_str(clock, "%H:%M:%S"),
            ) {
                return Ok(At::Secs(
                    f64::from(days) * 86400.0 + f64::from(t.num_seconds_from_midnight()),
                ));
            }
        }
        for format in [
            "%Y-%m-%d %H:%M:%S",
            "%Y/%m/%d %H:%M:%S",
            "%Y-%m-%dT%H:%M:%S",
            "%Y-%m-%d %H:%M",
        ] {
            if let Ok(t) = NaiveDateTime::parse_from_str(text, format) {
                return Ok(At::Secs(t.and_utc().timestamp() as f64));
            }
        }
        Err(format!(
            "cannot read the time {text:?}: give HH:MM[:SS], YYYY-MM-DD HH:MM:SS or seconds"
        ))
    }
}

/// What to explain.
#[derive(Clone, Debug, Default)]
pub struct ExplainOptions {
    /// The moment; `None` = the last pass of the trace.
    pub at: Option<At>,
    /// Only resources whose long name contains this (case-insensitive).
    pub resource: Option<String>,
    /// Only this project (case-insensitive).
    pub project: Option<String>,
}

/// One project's part in one resource's outcome.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProjectWhy {
    /// The project.
    pub project: String,
    /// It was asked for work of this resource.
    pub asked: bool,
    /// Why (or how much), in a sentence with the recorded values.
    pub why: String,
}

/// One resource's outcome.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ResourceWhy {
    /// Long resource name.
    pub resource: String,
    /// The resource's state in the pass (shortfall, idle instances, buffer).
    pub state: String,
    /// Each project, in the order choose_project() scans them.
    pub projects: Vec<ProjectWhy>,
    /// The outcome for the resource, in a sentence.
    pub outcome: String,
}

/// The explanation of one moment.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Explanation {
    /// The trace.
    pub trace: String,
    /// The work-fetch pass explained, as the log prints its time.
    pub pass_time: Option<String>,
    /// The pass's choice, in a sentence.
    pub choice: Option<String>,
    /// Each project's own state in the pass (project-level reasons), in
    /// choose_project()'s scan order.
    pub projects: Vec<ProjectWhy>,
    /// Per resource.
    pub resources: Vec<ResourceWhy>,
    /// What the last scheduling pass up to that moment showed.
    pub scheduling: Vec<String>,
    /// The MC shortfalls of max_concurrent projects with no job on a
    /// resource at that moment, and what today's rules say of them
    /// ([`super::mc_check`]).
    pub mc_shortfalls: Vec<String>,
    /// Whether the pass's per-resource figures follow from the simulation
    /// the log printed before it ([`super::rrsim_check`]), and on what.
    pub simulation: Option<String>,
    /// Inputs the trace lacks for a full answer.
    pub missing: Vec<String>,
}

fn matches(filter: Option<&str>, name: &str) -> bool {
    filter.is_none_or(|f| name.to_lowercase().contains(&f.to_lowercase()))
}

fn at_or_before(time: &EventTime, at: Option<At>) -> bool {
    match (at, time) {
        (None, _) => true,
        (Some(At::Secs(secs)), time) => time.secs().is_some_and(|t| t <= secs + 1e-9),
        (Some(At::TimeOfDay(tod)), EventTime::Local(t)) => {
            t.time().num_seconds_from_midnight() <= tod
        }
        (Some(At::TimeOfDay(tod)), time) => time
            .secs()
            .is_some_and(|t| t.rem_euclid(86400.0) <= f64::from(tod)),
    }
}

/// Explains the work-fetch pass at (or last before) `options.at`.
pub fn explain(trace: &Trace, trace_name: &str, options: &ExplainOptions) -> Explanation {
    let mut out = Explanation {
        trace: trace_name.to_string(),
        ..Explanation::default()
    };
    let events = &trace.events;
    // A 6.10 log: its passes are read by choice_6_10.
    if super::choice_6_10::is_ltd_wording(events) {
        let ltd = super::choice_6_10::choices(events);
        explain_6_10(trace, &ltd, options, &mut out);
    } else {
        explain_recorded(trace, options, &mut out);
    }
    out.mc_shortfalls = mc_shortfalls(trace, options.at);
    out.scheduling = scheduling(trace, options.at);
    if out.scheduling.is_empty() {
        out.missing.push(
            "no scheduling pass (`using X out of N CPUs`) up to that moment: the log flag \
             cpu_sched_debug shows what ran"
                .into(),
        );
    }
    out
}

/// [`explain`] from the recorded decisions (7.x and later wording).
fn explain_recorded(trace: &Trace, options: &ExplainOptions, out: &mut Explanation) {
    let events = &trace.events;
    let points = recorded::extract(events);
    let when = |p: &RecordedPoint| {
        events
            .get(p.event_idx)
            .is_some_and(|e| at_or_before(&e.time, options.at))
    };
    // The last choice (a pass) at or before the moment.
    let choice_at = points
        .iter()
        .rposition(|p| matches!(p.decision, Decision::Choice(_)) && when(p));
    let contexts = link_contexts(&points);
    match choice_at {
        None if points
            .iter()
            .any(|p| matches!(p.decision, Decision::Choice(_))) =>
        {
            out.missing
                .push("no work-fetch pass at or before that moment: the first one is later".into());
        }
        None => out.missing.push(
            "no work-fetch pass in the trace: the client prints its work-fetch state and choice \
             only with the log flag work_fetch_debug (cc_config.xml <log_flags>)"
                .into(),
        ),
        Some(idx) => {
            let point = &points[idx];
            out.pass_time = Some(point.time_label.clone());
            let request = points[idx + 1..]
                .iter()
                .take_while(|p| !matches!(p.decision, Decision::Choice(_)))
                .find_map(|p| match &p.decision {
                    Decision::Request { resources, .. } if !p.piggyback => Some(resources.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            let dump = points.iter().find_map(|p| match &p.decision {
                Decision::FetchState(dump) if p.event_idx == point.event_idx => Some(dump),
                _ => None,
            });
            if let Some(dump) = dump {
                out.projects = scan_order(dump)
                    .into_iter()
                    .filter(|p| matches(options.project.as_deref(), &p.project))
                    .map(project_state)
                    .collect();
            }
            if let Some(Err(why)) = contexts.get(&point.event_idx) {
                out.missing.push(why.clone());
            }
            if let Some(dump) = dump {
                out.simulation = simulation(events, &points, point.event_idx, dump);
            }
            explain_pass(point, dump, &request, options, out);
        }
    }
}

/// Whether the block at `idx` (printed as `dump`) has the figures the
/// simulation printed before it gives: the shortfall, idle instances and
/// saturated time each resource's state rests on. The release is not
/// chosen here: where GPU jobs' CPUs would count one way only, it says so.
fn simulation(
    events: &[crate::trace::LogEvent],
    points: &[RecordedPoint],
    idx: usize,
    dump: &FetchDump,
) -> Option<String> {
    let figures = super::rrsim_check::refigure_from(events, points, None, GpuCpuRule::Unknown, 0);
    Some(match figures.get(&idx)? {
        Ok((decision, reason)) => {
            let printed_decision = Decision::FetchState(dump.clone());
            let printed = printed_decision.fields();
            let off: Vec<String> = printed
                .iter()
                .zip(decision.fields())
                .filter(|(a, b)| !values_agree(&a.value, &b.value, 1e-6))
                .map(|(a, b)| {
                    let given = match b.value {
                        Value::Approx {
                            value,
                            decimals,
                            slack,
                        } => format!(
                            "{:.*} to {:.*}",
                            decimals,
                            value - slack,
                            decimals,
                            value + slack
                        ),
                        ref exact => exact.render(),
                    };
                    format!(
                        "{} {}: printed {}, the simulation gives {given}",
                        a.resource.unwrap_or("-"),
                        a.name,
                        a.value.render(),
                    )
                })
                .collect();
            if off.is_empty() {
                format!(
                    "the state's figures follow from the simulation printed before it: {reason}"
                )
            } else {
                format!(
                    "the state's figures do not all follow from the simulation printed before \
                     it ({}): {reason}",
                    off.join("; ")
                )
            }
        }
        Err(why) => format!("the state's figures are as printed, not recomputed: {why}"),
    })
}

/// [`explain`] for a 6.10 log: the last `chosen:` or `No project chosen`
/// at or before the moment, with its block.
fn explain_6_10(
    trace: &Trace,
    choices: &[super::choice_6_10::Choice610],
    options: &ExplainOptions,
    out: &mut Explanation,
) {
    use super::choice_6_10::Verdict;
    let events = &trace.events;
    let found = choices.iter().rev().find(|c| {
        events
            .get(c.event_idx)
            .is_some_and(|e| at_or_before(&e.time, options.at))
    });
    match found {
        None if choices.is_empty() => out.missing.push(
            "no work-fetch choice in the trace: neither a `chosen:` line nor `No project chosen` \
             (6.10 prints the state block after its choice: a log cut inside the block ends \
             before it)"
                .into(),
        ),
        None => out
            .missing
            .push("no work-fetch choice at or before that moment: the first one is later".into()),
        Some(choice) => {
            if let Some(event) = events.get(choice.event_idx) {
                out.pass_time = Some(recorded::time_label(&event.time));
            }
            let said = match (&choice.chosen, &choice.resource) {
                (Some(p), Some(r)) => format!("{p} was chosen for work fetch ({r})"),
                _ => "no project was chosen for work fetch".to_string(),
            };
            let (rule, missing) = match &choice.verdict {
                Verdict::Decided { chosen, reason } if *chosen == choice.chosen => {
                    (format!("consistent with the printed state: {reason}"), None)
                }
                Verdict::Decided { reason, .. } => {
                    (format!("not what the printed state allows: {reason}"), None)
                }
                Verdict::Undecided(why) => (
                    "the printed state does not decide it".to_string(),
                    Some(why.clone()),
                ),
            };
            out.choice = Some(format!("{said}; {rule}"));
            out.missing.extend(missing);
            // The pass's state block (after `chosen:`, before `No project
            // chosen`): its figures against the simulation before it.
            let points = recorded::extract(events);
            let block = points
                .iter()
                .filter_map(|p| match &p.decision {
                    Decision::FetchState(dump) => Some((p.event_idx, dump)),
                    _ => None,
                })
                .filter(|(idx, _)| {
                    events.get(*idx).map(|e| &e.time)
                        == events.get(choice.event_idx).map(|e| &e.time)
                })
                .min_by_key(|(idx, _)| idx.abs_diff(choice.event_idx));
            if let Some((idx, dump)) = block {
                out.simulation = simulation(events, &points, idx, dump);
            }
            for shown in &choice.shown {
                if !matches(options.resource.as_deref(), &shown.resource) {
                    continue;
                }
                let projects: Vec<ProjectWhy> = shown
                    .projects
                    .iter()
                    .filter(|(p, _, _)| matches(options.project.as_deref(), p))
                    .map(|(project, asked, why)| ProjectWhy {
                        project: project.clone(),
                        asked: *asked,
                        why: why.clone(),
                    })
                    .collect();
                let asked = projects.iter().find(|p| p.asked);
                let outcome = match asked {
                    Some(p) => format!("{} was asked for {} work", p.project, shown.resource),
                    None => format!("no project was asked for {} work", shown.resource),
                };
                out.resources.push(ResourceWhy {
                    resource: shown.resource.clone(),
                    state: shown.state.clone(),
                    projects,
                    outcome,
                });
            }
        }
    }
}

fn explain_pass(
    point: &RecordedPoint,
    dump: Option<&FetchDump>,
    request: &[RscRequestLine],
    options: &ExplainOptions,
    out: &mut Explanation,
) {
    let Decision::Choice(chosen) = &point.decision else {
        return;
    };
    let chosen = chosen.as_deref();
    out.choice = Some(match chosen {
        None => "no project was chosen for work fetch".to_string(),
        Some(UNRESOLVED) => "the log ends before the pass printed its choice".to_string(),
        Some(p) => format!("{p} was chosen for work fetch"),
    });
    let Some(dump) = dump else {
        // Said by the link (the block starts before the log).
        return;
    };
    let chosen = chosen.filter(|c| *c != UNRESOLVED);
    for rsc in &dump.resources {
        if !matches(options.resource.as_deref(), &rsc.rsc) {
            continue;
        }
        out.resources
            .push(explain_resource(dump, rsc, chosen, request, options));
    }
    if out.resources.is_empty() && options.resource.is_some() {
        out.missing.push(format!(
            "no resource of this pass matches {:?}",
            options.resource.as_deref().unwrap_or_default()
        ));
    }
}

fn project_state(p: &ProjectState) -> ProjectWhy {
    let why = if p.reason.is_empty() {
        format!(
            "can request work (REC {:.3}, priority {:.3})",
            p.rec, p.prio
        )
    } else {
        let left = p
            .backoff
            .map(|secs| format!(", {secs:.2} s left"))
            .unwrap_or_default();
        format!(
            "{}{left} (REC {:.3}, priority {:.3}): choose_project skips it for every resource",
            p.reason, p.rec, p.prio
        )
    };
    ProjectWhy {
        project: p.project.clone(),
        asked: false,
        why,
    }
}

/// Projects in choose_project()'s scan order: decreasing priority as the
/// block prints it (the queued-work decrement included).
fn scan_order(dump: &FetchDump) -> Vec<&ProjectState> {
    let mut order: Vec<&ProjectState> = dump.projects.iter().collect();
    order.sort_by(|a, b| b.prio.total_cmp(&a.prio));
    order
}

fn explain_resource(
    dump: &FetchDump,
    rsc: &RscState,
    chosen: Option<&str>,
    request: &[RscRequestLine],
    options: &ExplainOptions,
) -> ResourceWhy {
    let (buf_min, buf_additional) = dump.buffer.unwrap_or((0.0, 0.0));
    let buf_total = buf_min + buf_additional;
    let low = rsc.saturated < buf_min;
    let state = format!(
        "shortfall {:.2} s, {:.2} idle instance(s), saturated {:.2} s {} work_buf_min {:.2} s: \
         the buffer {}",
        rsc.shortfall,
        rsc.nidle,
        rsc.saturated,
        if low { "<" } else { ">=" },
        buf_min,
        if low {
            "is low, so a project that can fetch this resource is asked (§7.7)"
        } else if rsc.saturated < buf_total {
            "is not low; it is topped up only with a request another resource triggers \
             (saturated < work_buf_total)"
        } else {
            "is full"
        }
    );
    let asked = request
        .iter()
        .find(|r| r.rsc == rsc.rsc && (r.secs > 0.0 || r.inst > 0.0));
    let ctx = ResourceContext {
        dump,
        rsc,
        chosen,
        asked,
        low,
        buf_min,
        buf_total,
    };
    let mut projects = Vec::new();
    for project in scan_order(dump) {
        let name = project.project.as_str();
        if !matches(options.project.as_deref(), name) {
            continue;
        }
        let Answer { asked, why } = ctx.project(project);
        projects.push(ProjectWhy {
            project: name.to_string(),
            asked,
            why,
        });
    }
    let outcome = match (chosen, asked) {
        (Some(p), Some(r)) => format!(
            "{p} was asked for {:.2} s and {:.2} instance(s) of {}",
            r.secs, r.inst, rsc.rsc
        ),
        _ => format!("no project was asked for {}", rsc.rsc),
    };
    ResourceWhy {
        resource: rsc.rsc.clone(),
        state,
        projects,
        outcome,
    }
}

/// One resource of a work-fetch block, with the pass's choice and request.
struct ResourceContext<'a> {
    dump: &'a FetchDump,
    rsc: &'a RscState,
    chosen: Option<&'a str>,
    /// The request line that asked for this resource, if one did.
    asked: Option<&'a RscRequestLine>,
    /// The buffer is low (saturated < work_buf_min).
    low: bool,
    buf_min: f64,
    buf_total: f64,
}

/// Whether a project was asked for the resource, and why (not).
struct Answer {
    asked: bool,
    why: String,
}

impl ResourceContext<'_> {
    /// Why `project` was (not) asked for this resource.
    fn project(&self, project: &ProjectState) -> Answer {
        let (dump, rsc, chosen, asked, low) =
            (self.dump, self.rsc, self.chosen, self.asked, self.low);
        let (buf_min, buf_total) = (self.buf_min, self.buf_total);
        let name = project.project.as_str();
        let share = rsc.shares.iter().find(|s| s.project == name);
        if !project.reason.is_empty() {
            let mut why = format!(
                "not asked: {} (a project-level reason: choose_project skips it)",
                project.reason
            );
            if let Some(secs) = project.backoff {
                why.push_str(&format!("; {secs:.2} s left"));
            }
            Answer { asked: false, why }
        } else if let Some(share) = share.filter(|s| !s.reason.is_empty()) {
            let detail = match (share.reason.as_str(), share.backoff) {
                ("project is backed off", Some((left, inc))) => format!(
                    "backed off for {}: {left:.2} s of its resource backoff left (interval \
                     {inc:.2} s, grown by replies without {} work); a backed-off resource \
                     does not trigger a request",
                    rsc.rsc, rsc.rsc
                ),
                ("no applications", _) => format!(
                    "no applications: the project has no app version for {} on this host",
                    rsc.rsc
                ),
                (reason, _) => format!("{reason} (the block's reason for {})", rsc.rsc),
            };
            Answer {
                asked: false,
                why: format!("not asked: {detail}"),
            }
        } else if share.is_none() {
            Answer {
                asked: false,
                why: format!("no share line for {} in the block", rsc.rsc),
            }
        } else if chosen == Some(name) {
            match asked {
                Some(r) => Answer {
                    asked: true,
                    why: format!(
                        "asked for {:.2} s and {:.2} instance(s) (share {:.3})",
                        r.secs,
                        r.inst,
                        share.map_or(0.0, |s| s.share)
                    ),
                },
                None => Answer {
                    asked: false,
                    why: if rsc.saturated >= buf_total {
                        format!(
                            "chosen for another resource; {} not asked: saturated {:.2} s >= \
                             work_buf_total {buf_total:.2} s",
                            rsc.rsc, rsc.saturated
                        )
                    } else {
                        format!(
                            "chosen, but its request for {} is zero or not in the log",
                            rsc.rsc
                        )
                    },
                },
            }
        } else if let Some(other) = chosen {
            Answer {
                asked: false,
                why: format!(
                    "can fetch {}, but {other} was chosen (one project per pass, by priority)",
                    rsc.rsc
                ),
            }
        } else if !low {
            Answer {
                asked: false,
                why: format!(
                    "can fetch {}, but the buffer is not low (saturated {:.2} s >= work_buf_min \
                     {buf_min:.2} s)",
                    rsc.rsc, rsc.saturated
                ),
            }
        } else {
            Answer {
                asked: false,
                why: format!(
                    "can fetch {} and the buffer is low, yet no request was made: the request \
                     rests on {}",
                    rsc.rsc,
                    if dump.unmodelled.is_empty() {
                        "what set_request() computed (run `audit` to check it)".to_string()
                    } else {
                        dump.unmodelled.join(" and ")
                    }
                ),
            }
        }
    }
}

/// The last scheduling pass at or before the moment: the whole enforcement
/// pass when the log shows its start ([`enforcement_pass`]), else how many
/// CPUs it used and the jobs it could not run for memory.
fn scheduling(trace: &Trace, at: Option<At>) -> Vec<String> {
    let mut last_using: Option<(usize, f64, u32)> = None;
    let mut last_start: Option<usize> = None;
    for (idx, event) in trace.events.iter().enumerate() {
        if !at_or_before(&event.time, at) {
            continue;
        }
        match &event.message {
            Message::UsingCpus { used, ncpus } => last_using = Some((idx, *used, *ncpus)),
            Message::EnforceRunListStart => last_start = Some(idx),
            _ => {}
        }
    }
    if let Some(start) = last_start {
        if last_using.is_none_or(|(idx, _, _)| idx > start) {
            return enforcement_pass(trace, start);
        }
    }
    let Some((idx, used, ncpus)) = last_using else {
        return Vec::new();
    };
    let time = &trace.events[idx].time;
    let mut out = vec![format!(
        "the last scheduling pass ({}) used {used:.2} of {ncpus} CPUs{}",
        recorded::time_label(time),
        if used + 1e-9 < f64::from(ncpus) {
            ": CPUs were left idle"
        } else {
            ""
        }
    )];
    for event in trace.events[..idx].iter().rev() {
        if event.time != *time {
            break;
        }
        if let Message::TooBig {
            job,
            ws_mb,
            limit_mb,
        } = &event.message
        {
            out.push(format!(
                "{job} could not run: its working set {ws_mb:.2} MB is above the memory limit \
                 {limit_mb:.2} MB (the preferences' max memory usage for the host's state, in \
                 use or idle)"
            ));
        }
    }
    out
}

/// The MC shortfalls printed at the last moment (at or before `at`) that
/// printed one for a max_concurrent project with no job on the resource,
/// judged under today's rules.
fn mc_shortfalls(trace: &Trace, at: Option<At>) -> Vec<String> {
    let events = &trace.events;
    let found: Vec<_> = super::mc_check::checks(events, None, false)
        .into_iter()
        .filter(|(p, _)| {
            events
                .get(p.event_idx)
                .is_some_and(|e| at_or_before(&e.time, at))
        })
        .collect();
    let Some(last) = found.last().map(|(p, _)| p.time_label.clone()) else {
        return Vec::new();
    };
    found
        .iter()
        .filter(|(p, _)| p.time_label == last)
        .map(|(point, replayed)| {
            let (Decision::McShortfall { rsc, positive }, Some(project)) =
                (&point.decision, &point.project)
            else {
                return String::new();
            };
            let recorded = if *positive {
                "a positive MC shortfall"
            } else {
                "an MC shortfall of 0, so nothing"
            };
            let verdict = match replayed {
                super::compare::Replayed::Decision {
                    decision: Decision::McShortfall { positive: p, .. },
                    reason,
                } if p == positive => format!("as the rules give: {reason}"),
                super::compare::Replayed::Decision { reason, .. } => {
                    format!("not what the rules give: {reason}")
                }
                super::compare::Replayed::NotReplayed(why) => format!("not checked: {why}"),
            };
            format!(
                "{project} (max_concurrent, no job on {rsc}) asked {rsc} by {recorded} \
                 ({}): {verdict}",
                point.time_label
            )
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// An enforcement pass (enforce_run_list) told job by job: what ran, what
/// did not and the rule its line names, the CPUs used, and whether the
/// scan follows from its own job list ([`super::enforce_check`]).
fn enforcement_pass(trace: &Trace, start: usize) -> Vec<String> {
    let events = &trace.events;
    let time = recorded::time_label(&events[start].time);
    let mut ran: Vec<String> = Vec::new();
    let mut cpus_full: Vec<String> = Vec::new();
    let mut full_at: Option<(f64, u32)> = None;
    let mut why_not: Vec<String> = Vec::new();
    let mut using: Option<(f64, u32)> = None;
    let (lines, ended) = super::enforce_check::pass_lines(events, start);
    for event in lines {
        match &event.message {
            Message::Scheduling { job, .. } => ran.push(job.to_string()),
            Message::UsingCpus { used, ncpus } => using = Some((*used, *ncpus)),
            Message::AllCpusUsed { used, ncpus, job } => {
                cpus_full.push(job.to_string());
                if let (Some(used), Some(ncpus), None) = (used, ncpus, full_at) {
                    full_at = Some((*used, *ncpus));
                }
            }
            Message::SkippingGpuJobCpuCommitted { job } => why_not.push(format!(
                "{job} (a GPU job) did not run: the CPUs were committed and its CPU use would \
                 take them over the usable CPUs + 1"
            )),
            Message::SkippingMaxConcurrent { job, .. } => why_not.push(format!(
                "{job} did not run: its app's or project's max_concurrent limit was reached"
            )),
            Message::SkippingCpuLimit { job } => why_not.push(format!(
                "{job} did not run: it would take the CPUs in use over the user's CPU limit"
            )),
            Message::TooBig {
                job,
                ws_mb: size,
                limit_mb: left,
            }
            | Message::SkippingRss {
                job,
                rss_gb: size,
                left_gb: left,
            } => {
                let unit = if matches!(event.message, Message::TooBig { .. }) {
                    "MB"
                } else {
                    "GB"
                };
                why_not.push(format!(
                    "{job} did not run: its expected memory {size:.2} {unit} is above the \
                     {left:.2} {unit} of RAM left (the preferences' max memory usage less the \
                     jobs scheduled before it)"
                ));
            }
            Message::CoprocInsufficient {
                rsc,
                job,
                need,
                available,
            } => why_not.push(format!(
                "{job} did not run: not enough {} ({need} needed, {available} free)",
                rsc.long_name()
            )),
            Message::CoprocInsufficientUsage { rsc, job, need } => why_not.push(format!(
                "{job} did not run: not enough {} ({need:.2} of an instance needed)",
                rsc.long_name()
            )),
            _ => {}
        }
    }
    let mut out = vec![format!(
        "the last enforcement pass ({time}) ran {} job(s){}",
        ran.len(),
        names(&ran)
    )];
    if let Some((used, ncpus)) = using {
        out.push(format!(
            "it used {used:.2} of {ncpus} CPUs{}",
            if used + 1e-9 < f64::from(ncpus) {
                ": CPUs were left idle"
            } else {
                ""
            }
        ));
    }
    if !cpus_full.is_empty() {
        let committed = full_at.map_or_else(String::new, |(used, ncpus)| {
            format!(" ({used:.2} >= {ncpus})")
        });
        out.push(format!(
            "{} CPU job(s) did not run because every usable CPU was committed{committed}{}",
            cpus_full.len(),
            names(&cpus_full)
        ));
    }
    out.extend(why_not);
    if !ended {
        out.push("the log ends inside this pass".into());
        return out;
    }
    let points: Vec<RecordedPoint> = recorded::extract(events)
        .into_iter()
        .filter(|p| p.event_idx == start)
        .collect();
    let rederived = super::enforce_check::rederive(events, &points);
    let recorded_actions = points.iter().find_map(|p| match &p.decision {
        Decision::Enforcement(actions) => Some(actions),
        _ => None,
    });
    match (rederived.get(&start), recorded_actions) {
        (Some(Ok((actions, reason))), Some(recorded)) if actions == recorded => {
            out.push(format!("the scan follows its own job list: {reason}"));
        }
        (Some(Ok((_, reason))), Some(_)) => {
            out.push(format!(
                "not what the rules give for its own job list: {reason}"
            ));
        }
        (Some(Err(why)), _) => out.push(format!("the scan is not re-derived: {why}")),
        _ => {}
    }
    out
}

/// `: A, B, C` (the first eight, then how many more), or nothing.
fn names(jobs: &[String]) -> String {
    match jobs.len() {
        0 => String::new(),
        n if n <= 8 => format!(": {}", jobs.join(", ")),
        n => format!(": {} and {} more", jobs[..8].join(", "), n - 8),
    }
}

/// Renders an explanation as plain sentences.
pub fn render_text(e: &Explanation) -> String {
    let mut s = String::new();
    match (&e.pass_time, &e.choice) {
        (Some(time), Some(choice)) => s.push_str(&format!("work fetch at {time}: {choice}\n")),
        _ => s.push_str("no work-fetch pass to explain\n"),
    }
    if !e.projects.is_empty() {
        s.push_str("\nprojects:\n");
        for p in &e.projects {
            s.push_str(&format!("  - {}: {}\n", p.project, p.why));
        }
    }
    for rsc in &e.resources {
        s.push_str(&format!("\n{}: {}\n", rsc.resource, rsc.state));
        for p in &rsc.projects {
            s.push_str(&format!("  - {}: {}\n", p.project, p.why));
        }
        s.push_str(&format!("  => {}\n", rsc.outcome));
    }
    if let Some(simulation) = &e.simulation {
        s.push_str(&format!("\nsimulation:\n  - {simulation}\n"));
    }
    if !e.mc_shortfalls.is_empty() {
        s.push_str("\nmax_concurrent:\n");
        for line in &e.mc_shortfalls {
            s.push_str(&format!("  - {line}\n"));
        }
    }
    if !e.scheduling.is_empty() {
        s.push_str("\nscheduling:\n");
        for line in &e.scheduling {
            s.push_str(&format!("  - {line}\n"));
        }
    }
    if !e.missing.is_empty() {
        s.push_str("\nnot in the trace:\n");
        for line in &e.missing {
            s.push_str(&format!("  - {line}\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_moments_users_type() {
        assert_eq!("12:40:47".parse::<At>(), Ok(At::TimeOfDay(45647)));
        assert_eq!("01:00".parse::<At>(), Ok(At::TimeOfDay(3600)));
        assert_eq!("1 day 01:00:00".parse::<At>(), Ok(At::Secs(90000.0)));
        assert_eq!("3600".parse::<At>(), Ok(At::Secs(3600.0)));
        // 2024-12-20 12:40:47 UTC.
        assert_eq!(
            "2024/12/20 12:40:47".parse::<At>(),
            Ok(At::Secs(1_734_698_447.0))
        );
        assert!("yesterday".parse::<At>().is_err());
    }
}

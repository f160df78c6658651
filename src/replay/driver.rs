//! The comparing observer of the client loop: the audit's half of
//! "audit is the client loop with the recording as its world".
//!
//! The [`crate::client_loop`] runs the emulator's step over the recorded
//! world ([`super::world::RecordedWorld`]) and hands each decision to
//! [`Comparer`] as it is made. The comparer turns it into the log's terms
//! ([`Decision`]) and, when the next step begins, matches every recorded
//! point of the steps before with the replay's own decision of the same slot
//! at the same time, in order, and compares them ([`super::compare`]). A
//! recorded point without a counterpart is a divergence ("the replay made no
//! ...").
//!
//! Without an anchored state (no client_state.xml, or no time step in the
//! log) work-fetch choices and requests are re-derived in self-consistency
//! mode from each recorded state dump ([`super::selfcheck`]); the reason says
//! which mode.

use super::compare::{compare_point_at, Reason, Replayed};
use super::decision::{
    Decision, FetchDump, PrioEntry, ProjectState, RecEntry, RscRequestLine, RscState, RunListEntry,
    ShareState,
};
use super::recorded::RecordedPoint;
use crate::client_loop::{job_name, LoopEvent, Observer, TaskAction};
use crate::divergence::{DecisionKind, DecisionPoint, Divergence};
use crate::policy::cpu_sched::{EnforceAction, RunListPhase};
use crate::policy::rec::{PriorityInit, RecAdjustment};
use crate::policy::rr_sim::RrSimOutcome;
use crate::policy::state::HostState;
use crate::policy::work_fetch::WorkFetchOutcome;
use crate::source::Location;
use crate::trace::LogEvent;
use std::collections::{BTreeMap, VecDeque};

/// Where a replayed decision goes: recorded points are matched with the
/// replay's own decisions of the same slot at the same time, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Rec,
    Prio,
    RrSim,
    RunList,
    Enforce,
    FetchState,
    Choice,
    Request,
    Backoff,
}

fn slot_of(decision: &Decision) -> Slot {
    match decision {
        Decision::Rec(_) | Decision::RecDiscarded { .. } => Slot::Rec,
        Decision::Priority(_) => Slot::Prio,
        Decision::RrSim { .. } => Slot::RrSim,
        Decision::RunList(_) => Slot::RunList,
        Decision::Enforcement(_) | Decision::SwapSkip { .. } => Slot::Enforce,
        Decision::FetchState(_) => Slot::FetchState,
        // Scan lines are checked in self-consistency mode only (the anchored
        // replay checks the block they restate and never receives them).
        Decision::Choice(_) | Decision::ScanLine { .. } => Slot::Choice,
        Decision::Request { .. }
        | Decision::RequestSecs { .. }
        | Decision::McShortfall { .. }
        | Decision::EmptyRequest { .. } => Slot::Request,
        // Checked in self-consistency mode only (filtered from the anchored replay).
        Decision::Backoff { .. } | Decision::RpcTiming { .. } => Slot::Backoff,
    }
}

/// A work-fetch outcome with the names it refers to, taken when it was made
/// (project indices change when the loop sorts its projects).
struct FetchMade {
    outcome: WorkFetchOutcome,
    projects: Vec<String>,
    rsc_names: Vec<String>,
    ninstances: Vec<u32>,
    /// Per project and resource: the dont_fetch flags as 7.0–7.2 print them.
    share_flags: Vec<Vec<String>>,
}

impl FetchMade {
    fn new(state: &HostState, outcome: &WorkFetchOutcome) -> Self {
        FetchMade {
            outcome: outcome.clone(),
            projects: state.projects.iter().map(|p| p.name.to_string()).collect(),
            rsc_names: (0..state.n_rsc())
                .map(|r| state.rsc_type(r).long_name().to_string())
                .collect(),
            ninstances: (0..state.n_rsc())
                .map(|r| state.ninstances(r) as u32)
                .collect(),
            share_flags: (0..state.projects.len())
                .map(|p| {
                    (0..state.n_rsc())
                        .map(|r| {
                            let rsc = &state.projects[p].rsc[r];
                            super::recorded::share_flags_text(
                                rsc.no_rsc_pref,
                                rsc.no_rsc_apps,
                                rsc.no_rsc_ams,
                                r != 0 && state.no_rsc_config(p, r),
                            )
                        })
                        .collect()
                })
                .collect(),
        }
    }

    fn name(&self, p: usize) -> String {
        self.projects.get(p).cloned().unwrap_or_default()
    }
}

/// One decision the replay made in the current step.
enum Made {
    /// Ready to compare.
    Ready(Box<Replayed>),
    /// A work-fetch outcome; rendered against the recorded point (its
    /// `set_request()` resource list).
    Fetch(Box<FetchMade>),
}

impl Made {
    fn ready(replayed: Replayed) -> Self {
        Made::Ready(Box::new(replayed))
    }
}

fn prio_entries(state: &HostState, init: &PriorityInit) -> Vec<PrioEntry> {
    init.lines
        .iter()
        .filter_map(|line| {
            let project = state.projects.get(line.project)?;
            Some(PrioEntry {
                project: project.name.to_string(),
                prio: line.priority,
                rsf: line.share_frac,
                rt: line.rec_temp,
                rs: line.rec_sum,
                prio_slack: 0.0,
                rs_slack: 0.0,
            })
        })
        .collect()
}

fn prio_made(state: &HostState, init: &PriorityInit, now: f64, what: &'static str) -> Made {
    let (rs_sum, rec_sum) = (init.rs_sum, init.rec_sum);
    Made::ready(Replayed::Decision {
        decision: Decision::Priority(prio_entries(state, init)),
        reason: Reason::deferred(move || {
            format!(
                "§5.4 project_priority_init ({what}) at {now:.0}: rs_sum {rs_sum:.6}, rec_sum \
                 {rec_sum:.6}"
            )
        }),
    })
}

fn rr_sim_made(state: &HostState, sim: &RrSimOutcome) -> Made {
    let finishes = sim
        .finishes
        .iter()
        .map(|f| (job_name(state, f.job), f.reltime))
        .collect();
    let misses = sim
        .misses_deadline
        .iter()
        .enumerate()
        .filter(|(_, &m)| m)
        .map(|(idx, _)| job_name(state, idx))
        .collect();
    Made::ready(Replayed::Decision {
        decision: Decision::RrSim {
            finishes,
            misses,
            finish_slack: Vec::new(),
        },
        reason: {
            let (now, order) = (sim.now, sim.order);
            Reason::deferred(move || format!("§4 rr_simulate at {now:.0} ({order:?} order)"))
        },
    })
}

fn rec_made(state: &HostState, adjustment: &RecAdjustment, now: f64) -> Option<Made> {
    let decision = match adjustment {
        RecAdjustment::TooShort => return None,
        RecAdjustment::Discarded { elapsed, period } => Decision::RecDiscarded {
            elapsed: *elapsed,
            period: *period,
        },
        RecAdjustment::Updated(lines) => Decision::Rec(
            lines
                .iter()
                .map(|l| RecEntry {
                    project: state
                        .projects
                        .get(l.project)
                        .map(|p| p.name.to_string())
                        .unwrap_or_default(),
                    credit: l.credit,
                    secs: l.secs,
                    old: l.old,
                    new: l.new,
                    new_slack: 0.0,
                })
                .collect(),
        ),
    };
    Some(Made::ready(Replayed::Decision {
        decision,
        reason: Reason::deferred(move || format!("§5.1 adjust_rec at {now:.0}")),
    }))
}

/// Settings of the comparison that depend on the policy profile.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompareSettings {
    /// Relative tolerance.
    pub tolerance: f64,
    /// Run-list entries name any GPU `coprocessor` (6.6–7.2 logs).
    pub coarse_rsc_names: bool,
    /// The time step, for messages.
    pub delta: f64,
    /// Points that agree or were not checked carry their text (for the
    /// per-point reports).
    pub lines: bool,
}

/// The comparing observer. It owns the recorded points still to compare
/// (with the log position of each), so a long recording can be fed to it
/// window by window ([`Comparer::feed`]).
pub struct Comparer {
    points: VecDeque<(RecordedPoint, Option<Location>)>,
    /// The latest time of a point fed.
    last_time: Option<f64>,
    settings: CompareSettings,
    /// Decisions of the step under way, in the order made, with a used flag.
    made: Vec<(f64, Slot, Made, bool)>,
    /// Compared points.
    pub results: Vec<DecisionPoint>,
    /// Divergences found.
    pub divergences: Vec<Divergence>,
    /// Points not replayed, per kind: count and the first reason.
    pub not_replayed: BTreeMap<DecisionKind, (usize, String)>,
    /// Decisions made that no recorded point matched.
    pub unmatched: usize,
    /// Jobs the recording delivered that the loop did not ask for.
    pub unsolicited: usize,
    /// While the decisions of the current event rest on a job's unknown
    /// estimate: why ([`resting_on_unknown_estimate`]).
    resting: Option<String>,
}

impl Comparer {
    /// A comparer with no point yet.
    pub fn new(settings: CompareSettings) -> Self {
        Comparer {
            points: VecDeque::new(),
            last_time: None,
            settings,
            made: Vec::new(),
            results: Vec::new(),
            divergences: Vec::new(),
            not_replayed: BTreeMap::new(),
            unmatched: 0,
            unsolicited: 0,
            resting: None,
        }
    }

    /// Adds recorded points (in log order, after every point fed before),
    /// each with its first line's position in the log.
    pub fn feed(&mut self, points: impl IntoIterator<Item = (RecordedPoint, Option<Location>)>) {
        for (point, loc) in points {
            self.last_time = Some(self.last_time.map_or(point.time, |t| t.max(point.time)));
            self.points.push_back((point, loc));
        }
    }

    /// Adds the points of `events` (the lines their `event_idx` index) for
    /// which `keep` holds.
    pub fn feed_from(
        &mut self,
        points: &[RecordedPoint],
        events: &[LogEvent],
        keep: impl Fn(&RecordedPoint) -> bool,
    ) {
        self.feed(points.iter().filter(|p| keep(p)).map(|p| {
            let loc = events.get(p.event_idx).map(|e| e.location.clone());
            (p.clone(), loc)
        }));
    }

    /// Takes the comparisons made so far (the points compared, the
    /// divergences, the points not replayed per kind), leaving the points
    /// still to compare.
    pub fn take_compared(&mut self) -> Comparer {
        Comparer {
            points: VecDeque::new(),
            last_time: self.last_time,
            settings: self.settings,
            made: Vec::new(),
            results: std::mem::take(&mut self.results),
            divergences: std::mem::take(&mut self.divergences),
            not_replayed: std::mem::take(&mut self.not_replayed),
            unmatched: 0,
            unsolicited: 0,
            resting: None,
        }
    }

    /// The time of the last recorded point fed.
    pub fn last_time(&self) -> Option<f64> {
        self.last_time
    }

    fn push(&mut self, time: f64, slot: Slot, made: Made) {
        let made = match &self.resting {
            // The simulation, the run list it orders, the tasks enforced
            // from it and every figure of a work-fetch pass (shortfalls,
            // busy time, the choice and the request) count the job's
            // remaining time; a report RPC's choice, priorities, REC and
            // backoffs do not.
            Some(why)
                if matches!(slot, Slot::RrSim | Slot::RunList | Slot::Enforce)
                    || matches!(made, Made::Fetch(_)) =>
            {
                Made::ready(Replayed::NotReplayed(why.clone()))
            }
            _ => made,
        };
        self.made.push((time, slot, made, false));
    }

    /// Compares every point before `before` with the decisions made.
    fn flush(&mut self, before: f64) {
        while self
            .points
            .front()
            .is_some_and(|(point, _)| point.time < before - 1e-6)
        {
            let Some((point, loc)) = self.points.pop_front() else {
                break;
            };
            let replayed = self.replayed_for(&point);
            self.record(&point, loc, &replayed);
        }
    }

    /// Compares every point left: the run is over.
    pub fn finish(&mut self) {
        self.flush(f64::INFINITY);
        self.unmatched += self.made.iter().filter(|m| !m.3).count();
        self.made.clear();
    }

    /// Marks every point left as not replayed, with why (the loop stopped).
    pub fn abandon(&mut self, why: &str) {
        while let Some((point, loc)) = self.points.pop_front() {
            let replayed = Replayed::NotReplayed(why.to_string());
            self.record(&point, loc, &replayed);
        }
    }

    fn record(&mut self, point: &RecordedPoint, loc: Option<Location>, replayed: &Replayed) {
        if let Replayed::NotReplayed(why) = replayed {
            let entry = self
                .not_replayed
                .entry(point.kind())
                .or_insert_with(|| (0, why.clone()));
            entry.0 += 1;
        }
        let (decision_point, divergences) = compare_point_at(
            point,
            replayed,
            self.settings.tolerance,
            loc,
            self.settings.lines,
        );
        self.results.push(decision_point);
        self.divergences.extend(divergences);
    }

    fn replayed_for(&mut self, point: &RecordedPoint) -> Replayed {
        let slot = slot_of(&point.decision);
        let found = self
            .made
            .iter_mut()
            .find(|(t, s, _, used)| !*used && *s == slot && (*t - point.time).abs() < 1e-6);
        let Some(entry) = found else {
            return Replayed::NotReplayed(format!(
                "the replay made no {} decision at {} (step of {} s)",
                point.kind().name(),
                point.time_label,
                self.settings.delta
            ));
        };
        entry.3 = true;
        match &mut entry.2 {
            // A used entry is never read again: its decision is moved out.
            Made::Ready(replayed) => {
                std::mem::replace(&mut **replayed, Replayed::NotReplayed(String::new()))
            }
            Made::Fetch(made) => fetch_decision(made, &point.decision, point.time),
        }
    }

    fn enforced(
        &self,
        state: &HostState,
        now: f64,
        outcome: &crate::policy::cpu_sched::EnforceOutcome,
        assigned: &[(usize, Vec<usize>)],
        tasks: &[TaskAction],
    ) -> Made {
        let name = |j: usize| job_name(state, j);
        let mut actions = Vec::new();
        for (j, instances) in assigned {
            let rsc = state.jobs.get(*j).map_or(0, |x| x.usage.rsc);
            let type_name = state.rsc_type(rsc).type_name().to_string();
            for i in instances {
                actions.push(format!("assign {} {type_name} {i}", name(*j)));
            }
        }
        for action in &outcome.actions {
            if let EnforceAction::Schedule(j) = action {
                actions.push(format!("schedule {}", name(*j)));
            }
        }
        for task in tasks {
            actions.push(match *task {
                TaskAction::Preempt { job, removed } => format!(
                    "preempt {} ({})",
                    name(job),
                    if removed { "removed" } else { "left" }
                ),
                TaskAction::Resume(j) => format!("resuming {}", name(j)),
                TaskAction::Start(j) => format!("starting {}", name(j)),
            });
        }
        Made::ready(Replayed::Decision {
            decision: Decision::Enforcement(actions),
            reason: {
                let (cpus_used, skipped) = (outcome.cpus_used, outcome.skipped.len());
                Reason::deferred(move || {
                    format!(
                        "§6.3 enforce_run_list at {now:.0}: {cpus_used:.2} CPUs used, {skipped} \
                         skipped"
                    )
                })
            },
        })
    }

    fn run_list(
        &self,
        state: &HostState,
        now: f64,
        run: &crate::policy::cpu_sched::RunListOutcome,
        fresh: bool,
    ) -> Made {
        let entries = run
            .run_list
            .iter()
            .map(|e| RunListEntry {
                job: job_name(state, e.job),
                rsc: if self.settings.coarse_rsc_names && e.rsc != 0 {
                    super::recorded::COPROCESSOR.to_string()
                } else {
                    state.rsc_type(e.rsc).long_name().to_string()
                },
                order: match e.phase {
                    RunListPhase::Edf => "EDF".into(),
                    RunListPhase::Fifo => "FIFO".into(),
                },
                prio: e.priority,
                prio_slack: 0.0,
            })
            .collect();
        Made::ready(Replayed::Decision {
            decision: Decision::RunList(entries),
            reason: Reason::deferred(move || {
                format!(
                    "§6.2 make_run_list at {now:.0} ({} simulation)",
                    if fresh { "own" } else { "reused" }
                )
            }),
        })
    }

    /// Records a work-fetch pass; `report` is the project of a report RPC
    /// (the request is then piggybacked on it).
    fn work_fetch(
        &mut self,
        state: &HostState,
        now: f64,
        outcome: &WorkFetchOutcome,
        report: Option<usize>,
    ) {
        if let Some(setup) = outcome.state.as_ref() {
            let prio = prio_made(state, &setup.prio_init, now, "work fetch");
            self.push(now, Slot::Prio, prio);
            self.push(
                now,
                Slot::FetchState,
                Made::Fetch(Box::new(FetchMade::new(state, outcome))),
            );
        }
        if let Some(report) = report {
            let target = state
                .projects
                .get(report)
                .map(|project| project.name.to_string());
            let reason = format!(
                "§7.1/§7.9 RPC poll at {now:.0}: results due for {}, so a report RPC with piggyback_work_request",
                target.as_deref().unwrap_or("-")
            );
            self.push(
                now,
                Slot::Choice,
                Made::ready(Replayed::Decision {
                    decision: Decision::Choice(target),
                    reason: reason.into(),
                }),
            );
            self.push(
                now,
                Slot::Request,
                Made::Fetch(Box::new(FetchMade::new(state, outcome))),
            );
        } else {
            self.push(
                now,
                Slot::Choice,
                Made::Fetch(Box::new(FetchMade::new(state, outcome))),
            );
            if outcome.chosen.is_some() {
                self.push(
                    now,
                    Slot::Request,
                    Made::Fetch(Box::new(FetchMade::new(state, outcome))),
                );
            }
        }
    }
}

impl Observer for Comparer {
    fn step_begins(&mut self, now: f64) {
        self.flush(now);
        self.unmatched += self.made.iter().filter(|m| !m.3).count();
        self.made.clear();
    }

    fn event(&mut self, state: &HostState, now: f64, event: LoopEvent<'_>) {
        self.resting = resting_on_unknown_estimate(state);
        match event {
            LoopEvent::Rec(adjustment) => {
                if let Some(made) = rec_made(state, adjustment, now) {
                    self.push(now, Slot::Rec, made);
                }
            }
            LoopEvent::RrSim(sim) => {
                self.push(now, Slot::RrSim, rr_sim_made(state, sim));
                if !sim.prio_init.lines.is_empty() {
                    self.push(
                        now,
                        Slot::Prio,
                        prio_made(state, &sim.prio_init, now, "simulation"),
                    );
                }
            }
            LoopEvent::RunList { run, fresh } => {
                // The client prints no `[prio]` group when no project has a runnable job.
                if !run.prio_init.lines.is_empty() {
                    self.push(
                        now,
                        Slot::Prio,
                        prio_made(state, &run.prio_init, now, "runnable"),
                    );
                }
                let made = self.run_list(state, now, run, fresh);
                self.push(now, Slot::RunList, made);
            }
            LoopEvent::Enforced {
                outcome,
                assigned,
                tasks,
            } => {
                let made = self.enforced(state, now, outcome, assigned, tasks);
                self.push(now, Slot::Enforce, made);
            }
            LoopEvent::WorkFetch { outcome, report } => {
                self.work_fetch(state, now, outcome, report)
            }
            LoopEvent::ProjectBackoff { secs, range, n, .. } => {
                let reason = match range {
                    Some((min, max)) => format!(
                        "§7.13 project_rpc_backoff after {n} failure(s): deferral {secs:.0} s, \
                         range [{min:.0}, {max:.0}]"
                    ),
                    None => format!("§7.13 project_rpc_backoff after {n} failure(s)"),
                };
                // The deferral line prints HH:MM:SS, truncated.
                self.push(
                    now,
                    Slot::Backoff,
                    Made::ready(Replayed::Decision {
                        decision: Decision::Backoff {
                            rsc: None,
                            secs: secs.floor(),
                            secs_slack: 0.0,
                        },
                        reason: reason.into(),
                    }),
                );
            }
            LoopEvent::ResourceBackoff {
                rsc,
                secs,
                interval,
                ..
            } => {
                let name = state.rsc_type(rsc).long_name().to_string();
                self.push(
                    now,
                    Slot::Backoff,
                    Made::ready(Replayed::Decision {
                        decision: Decision::Backoff {
                            rsc: Some(name),
                            secs,
                            secs_slack: 0.0,
                        },
                        reason: format!(
                            "§7.12 resource_backoff: interval {interval:.0}, drawn factor taken \
                             from the log"
                        )
                        .into(),
                    }),
                );
            }
            LoopEvent::EngineError { what, error } => {
                let slot = match what {
                    "rr_sim" => Slot::RrSim,
                    _ => Slot::RunList,
                };
                self.push(
                    now,
                    slot,
                    Made::ready(Replayed::NotReplayed(format!("engine error: {error}"))),
                );
            }
            LoopEvent::Unsolicited(_) => self.unsolicited += 1,
            // The 6.x decisions are compared by the ltd-6.6 audit's own observer.
            LoopEvent::Rpc { .. } | LoopEvent::Note(_) | LoopEvent::Ltd(_) => {}
        }
    }
}

/// Why the decisions made now rest on an estimate the replay does not
/// know, if they do: a queued job not started yet whose estimate
/// (`rsc_fpops_est`, a draw of the emulator's server the log never
/// prints) was taken as its true size ([`Job::estimate_unknown`]). Once it
/// runs, the emulator's client counts its exact FLOPs left instead
/// (`RuntimeModel::Emulator`), and its estimate no longer enters a
/// decision.
///
/// [`Job::estimate_unknown`]: crate::policy::state::Job::estimate_unknown
fn resting_on_unknown_estimate(state: &HostState) -> Option<String> {
    let job = state
        .jobs
        .iter()
        .find(|job| job.estimate_unknown && job.task.is_none() && !job.computing_done())?;
    Some(format!(
        "rests on the estimate of {}, not started yet, which the log does not give (taken \
         as its true size; see unchecked)",
        job.name
    ))
}

/// The work-fetch decision of kind `recorded` from an engine outcome.
fn fetch_decision(made: &FetchMade, recorded: &Decision, now: f64) -> Replayed {
    let outcome = &made.outcome;
    let name = |p: usize| made.name(p);
    let rsc_name = |r: usize| made.rsc_names.get(r).cloned().unwrap_or_default();
    match recorded {
        Decision::FetchState(recorded_dump) => {
            let Some(setup) = outcome.state.as_ref() else {
                return Replayed::NotReplayed(
                    "the engine chose an NCI project without a state dump".into(),
                );
            };
            let dump = FetchDump {
                buffer: Some((setup.buf_min, setup.buf_additional)),
                projects: setup
                    .projects
                    .iter()
                    .map(|p| ProjectState {
                        project: name(p.project),
                        rec: p.rec,
                        prio: p.priority,
                        reason: match p.reason {
                            crate::policy::work_fetch::ProjectReason::None => String::new(),
                            ref reason => format!("can't request work: {reason}"),
                        },
                        backoff: (p.rpc_backoff_left > 0.0).then_some(p.rpc_backoff_left),
                        ..ProjectState::default()
                    })
                    .collect(),
                resources: setup
                    .resources
                    .iter()
                    .enumerate()
                    .map(|(rsc, r)| RscState {
                        rsc: r.rsc_type.long_name().to_string(),
                        shortfall: r.shortfall,
                        nidle: r.nidle,
                        saturated: r.saturated,
                        busy: r.busy,
                        slack: Default::default(),
                        shares: r
                            .projects
                            .iter()
                            .map(|s| ShareState {
                                project: name(s.project),
                                share: s.share,
                                reason: if recorded_dump.share_flags {
                                    made.share_flags
                                        .get(s.project)
                                        .and_then(|flags| flags.get(rsc))
                                        .cloned()
                                        .unwrap_or_default()
                                } else {
                                    s.reason.to_string()
                                },
                                backoff: (s.backoff_left > 0.0)
                                    .then_some((s.backoff_left, s.backoff_interval)),
                                backoff_slack: 0.0,
                            })
                            .collect(),
                    })
                    .collect(),
                complete: true,
                ..FetchDump::default()
            };
            Replayed::Decision {
                decision: Decision::FetchState(dump),
                reason: Reason::deferred(move || {
                    format!("§7.3 WORK_FETCH::setup at {now:.0} from the replay's own simulation")
                }),
            }
        }
        Decision::Choice(_) => Replayed::Decision {
            decision: Decision::Choice(outcome.chosen.map(name)),
            reason: format!(
                "§7.7 choose_project at {now:.0}: trigger {:?}, scan {:?}",
                outcome.trigger.map(rsc_name),
                outcome
                    .scan
                    .iter()
                    .filter(|note| note.explains_choice())
                    .collect::<Vec<_>>()
            )
            .into(),
        },
        _ => Replayed::Decision {
            decision: Decision::Request {
                resources: outcome
                    .request
                    .iter()
                    .enumerate()
                    .map(|(r, req)| RscRequestLine {
                        rsc: rsc_name(r),
                        secs: req.req_secs,
                        inst: req.req_instances,
                        inst_slack: 0.0,
                        secs_slack: 0.0,
                    })
                    .collect(),
                set_requests: match recorded {
                    Decision::Request { set_requests, .. } => set_requests
                        .iter()
                        .map(|recorded| {
                            let r = (0..made.rsc_names.len())
                                .find(|&r| made.rsc_names[r] == recorded.rsc)
                                .unwrap_or(0);
                            let p = outcome.chosen.unwrap_or(0);
                            let sim = outcome.state.as_ref().map(|s| &s.sim);
                            super::decision::SetRequestLine {
                                rsc: recorded.rsc.clone(),
                                ninst: made.ninstances.get(r).copied().unwrap_or(0),
                                nused_total: sim.map_or(0.0, |s| s.project_rsc(p, r).nused_total),
                                nidle_now: sim.map_or(0.0, |s| s.resource(r).nidle_now),
                                fetch_share: outcome
                                    .state
                                    .as_ref()
                                    .and_then(|s| s.shares.get(p))
                                    .and_then(|row| row.get(r))
                                    .copied()
                                    .unwrap_or(0.0),
                                req_inst: outcome.request.get(r).map_or(0.0, |q| q.req_instances),
                                req_secs: outcome.request.get(r).map_or(0.0, |q| q.req_secs),
                            }
                        })
                        .collect(),
                    _ => Vec::new(),
                },
            },
            reason: Reason::deferred(move || {
                format!("§7.8 set_request at {now:.0} for the chosen project")
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::state::{Host, Job, Project, ResourceUsage, Task};

    fn settings() -> CompareSettings {
        CompareSettings {
            tolerance: 1e-6,
            coarse_rsc_names: false,
            delta: 60.0,
            lines: false,
        }
    }

    fn host_with(job: Job) -> HostState {
        let mut state = HostState::new(Host {
            p_ncpus: 1,
            p_fpops: 1e9,
            m_nbytes: 1e9,
            coprocs: Vec::new(),
        });
        state.projects.push(Project::new("P", 100.0, 1));
        state.jobs.push(job);
        state
    }

    /// A job whose estimate was taken as its true size enters every
    /// simulation and work-fetch figure until it starts (then the
    /// emulator's client counts its exact FLOPs left): the decisions made
    /// meanwhile are not checked; the others are.
    #[test]
    fn decisions_resting_on_an_unknown_estimate_are_not_checked() {
        let mut job = Job::new("P_7", 0, "a", ResourceUsage::cpu(1.0, 1e9), 3600e9);
        job.estimate_unknown = true;
        let queued = host_with(job.clone());
        let why = resting_on_unknown_estimate(&queued).unwrap_or_default();
        assert!(why.contains("P_7"), "{why}");

        let mut started = job.clone();
        started.task = Some(Task::new());
        assert_eq!(resting_on_unknown_estimate(&host_with(started)), None);
        let mut done = job.clone();
        done.ready_to_report = true;
        assert_eq!(resting_on_unknown_estimate(&host_with(done)), None);
        job.estimate_unknown = false;
        assert_eq!(resting_on_unknown_estimate(&host_with(job)), None);

        let mut comparer = Comparer::new(settings());
        comparer.resting = Some(why);
        let decision = |decision| {
            Made::ready(Replayed::Decision {
                decision,
                reason: String::new().into(),
            })
        };
        comparer.push(60.0, Slot::RunList, decision(Decision::RunList(Vec::new())));
        comparer.push(
            60.0,
            Slot::Enforce,
            decision(Decision::Enforcement(Vec::new())),
        );
        comparer.push(
            60.0,
            Slot::Choice,
            decision(Decision::Choice(Some("P".into()))),
        );
        comparer.push(
            60.0,
            Slot::Backoff,
            decision(Decision::Backoff {
                rsc: None,
                secs: 60.0,
                secs_slack: 0.0,
            }),
        );
        let not_checked: Vec<bool> = comparer
            .made
            .iter()
            .map(|(_, _, made, _)| matches!(made, Made::Ready(r) if matches!(**r, Replayed::NotReplayed(_))))
            .collect();
        assert_eq!(not_checked, [true, true, false, false]);
    }
}

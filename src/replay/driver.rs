//! The replay loop: walks the recorded decision points in (time, sequence)
//! order and asks the policy engine for each decision.
//!
//! Anchored replay follows the emulator's step (spec §8): the engine state
//! built from the recorded inputs evolves by the engine's own accounting.
//! The engine on this branch provides REC/priority (§5) and the round-robin
//! simulation (§4); job scheduling (`make_run_list`, enforcement), work-fetch
//! reasons and shares, and backoffs are still landing on branch `policy`.
//! The replay therefore advances its own state only as far as it can
//! without them: through the decisions of the first time step, and further
//! only while no job exists (nothing to schedule). From the first point that
//! needs a missing engine part onwards, points are reported as not replayed
//! with the reason, never filled in from the log.
//!
//! Work-fetch choices and requests are additionally re-derived in
//! self-consistency mode from each recorded state dump ([`super::selfcheck`])
//! when the anchored state is not available; the reason says which mode.
//!
//! Architecture Invariant: the only place that calls the policy engine.

use super::compare::Replayed;
use super::decision::{
    Decision, FetchDump, PrioEntry, ProjectState, RscRequestLine, RscState, ShareState,
};
use super::queue::{ExternalEvent, ExternalQueue};
use super::recorded::RecordedPoint;
use super::selfcheck::{self, ChoiceInputs};
use crate::divergence::DecisionKind;
use crate::policy::rec::PriorityInit;
use crate::policy::rr_sim::{rr_simulate, RrSimOutcome};
use crate::policy::state::HostState;
use crate::policy::work_fetch::{choose_project, WorkFetchOutcome};
use crate::policy::Params;
use std::collections::BTreeMap;

/// Why the anchored replay stopped advancing.
const NO_SCHEDULER: &str = "the replay loop does not yet advance the engine's own state across \
    job arrivals and time steps (task progress, job exits, per-step REC accounting, RPC replies \
    are not wired to the engine yet); anchored replay stopped at";

/// Per-step engine results, reused within one step as the client does (§8).
struct Step {
    now: f64,
    sim: Option<RrSimOutcome>,
    fetch: Option<WorkFetchOutcome>,
}

/// The replay driver.
pub struct Driver<'a> {
    state: Option<HostState>,
    params: &'a Params,
    queue: ExternalQueue,
    step: Step,
    /// Time past which the anchored state is no longer the engine's own.
    stopped_at: Option<(f64, String)>,
    /// Dump and set_request lines of each choice/request point, by event index.
    contexts: BTreeMap<usize, PointContext>,
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
            })
        })
        .collect()
}

impl<'a> Driver<'a> {
    /// A driver over the built state (`None` = self-consistency only).
    pub fn new(
        state: Option<HostState>,
        params: &'a Params,
        queue: ExternalQueue,
        start: f64,
        contexts: BTreeMap<usize, PointContext>,
    ) -> Self {
        Driver {
            state,
            params,
            queue,
            step: Step {
                now: start,
                sim: None,
                fetch: None,
            },
            stopped_at: None,
            contexts,
        }
    }

    /// Advances the anchored state to `time`, applying external events up to it.
    fn advance(&mut self, time: f64, seq: usize, label: &str) {
        if self.stopped_at.is_some() {
            return;
        }
        let Some(state) = self.state.as_mut() else {
            return;
        };
        if time > self.step.now {
            if !state.jobs.is_empty() {
                self.stopped_at = Some((self.step.now, label.to_string()));
                return;
            }
            self.step = Step {
                now: time,
                sim: None,
                fetch: None,
            };
        }
        // Jobs arrive after the first RPC; scheduling them needs the engine's
        // job scheduler, so the anchored replay stops at the first arrival.
        if let Some(event) = self.queue.pop_until(time, seq).first() {
            self.stopped_at = Some((event_time(event), label.to_string()));
        }
    }

    fn not_replayed(&self, what: &str) -> Replayed {
        match &self.stopped_at {
            Some((_, label)) => Replayed::NotReplayed(format!("{NO_SCHEDULER} {label} ({what})")),
            None => Replayed::NotReplayed(format!("{what}: engine part not available yet")),
        }
    }

    fn sim(&mut self) -> Result<&RrSimOutcome, String> {
        let now = self.step.now;
        let state = self.state.as_mut().ok_or("no state")?;
        if self.step.sim.is_none() {
            let outcome = rr_simulate(state, now, self.params).map_err(|e| e.to_string())?;
            self.step.sim = Some(outcome);
        }
        self.step
            .sim
            .as_ref()
            .ok_or_else(|| "no simulation".to_string())
    }

    /// Replays one recorded point.
    pub fn replay(&mut self, point: &RecordedPoint) -> Replayed {
        self.advance(point.time, point.event_idx, &point.time_label);
        let anchored = self.state.is_some() && self.stopped_at.is_none();
        match (&point.decision, anchored) {
            (Decision::Choice(_), true) | (Decision::FetchState(_), true) => {
                self.engine_fetch(point)
            }
            (Decision::Request { .. }, true) if !point.piggyback => self.engine_fetch(point),
            (Decision::Choice(_), _) | (Decision::Request { .. }, _) => self.self_check(point),
            (Decision::Priority(_), true) => self.priority(point),
            (Decision::RrSim { .. }, true) => self.rr_sim(),
            (Decision::RunList(_), _) => self.not_replayed("make_run_list"),
            (Decision::Enforcement(_), _) => self.not_replayed("enforce_run_list"),
            (Decision::Backoff { .. }, _) => self.not_replayed("backoff"),
            (_, _) => self.not_replayed(point.kind().name()),
        }
    }

    fn priority(&mut self, point: &RecordedPoint) -> Replayed {
        // A `[prio]` group printed inside a simulation comes from its
        // priority initialisation (runnable projects); one printed before a
        // work-fetch block comes from the fetch's own simulation.
        let now = self.step.now;
        let result = if point.before_fetch {
            self.fetch_outcome().and_then(|o| {
                o.state
                    .as_ref()
                    .map(|s| s.prio_init.clone())
                    .ok_or_else(|| "no fetch set-up".to_string())
            })
        } else {
            self.sim().map(|sim| sim.prio_init.clone())
        };
        match (result, self.state.as_ref()) {
            (Ok(init), Some(state)) => Replayed::Decision {
                decision: Decision::Priority(prio_entries(state, &init)),
                reason: format!(
                    "§5.4 project_priority_init at {now:.0}: rs_sum {:.6}, rec_sum {:.6}",
                    init.rs_sum, init.rec_sum
                ),
            },
            (Err(e), _) => Replayed::NotReplayed(format!("engine error: {e}")),
            (_, None) => self.not_replayed("priority"),
        }
    }

    fn rr_sim(&mut self) -> Replayed {
        let sim = match self.sim() {
            Ok(sim) => sim.clone(),
            Err(e) => return Replayed::NotReplayed(format!("engine error: {e}")),
        };
        let Some(state) = self.state.as_ref() else {
            return self.not_replayed("rr_sim");
        };
        let job_name = |idx: usize| {
            state
                .jobs
                .get(idx)
                .map(|j| j.name.to_string())
                .unwrap_or_default()
        };
        let finishes = sim
            .finishes
            .iter()
            .map(|f| (job_name(f.job), f.reltime))
            .collect();
        let misses = sim
            .misses_deadline
            .iter()
            .enumerate()
            .filter(|(_, &m)| m)
            .map(|(idx, _)| job_name(idx))
            .collect();
        Replayed::Decision {
            decision: Decision::RrSim { finishes, misses },
            reason: format!("§4 rr_simulate at {:.0} ({:?} order)", sim.now, sim.order),
        }
    }

    /// Fetch state, choice and request from the engine's `choose_project`
    /// (one work-fetch pass per step, reusing the step's simulation, §8).
    fn fetch_outcome(&mut self) -> Result<&WorkFetchOutcome, String> {
        let now = self.step.now;
        if self.step.fetch.is_none() {
            let sim = self.step.sim.clone();
            let params = self.params;
            let state = self.state.as_mut().ok_or("no state")?;
            let outcome = choose_project(state, now, sim, params).map_err(|e| e.to_string())?;
            self.step.fetch = Some(outcome);
        }
        self.step
            .fetch
            .as_ref()
            .ok_or_else(|| "no work fetch".to_string())
    }

    fn engine_fetch(&mut self, point: &RecordedPoint) -> Replayed {
        let now = self.step.now;
        if let Err(e) = self.fetch_outcome() {
            return Replayed::NotReplayed(format!("engine error: {e}"));
        }
        let (Some(outcome), Some(state)) = (self.step.fetch.as_ref(), self.state.as_ref()) else {
            return self.not_replayed("work fetch");
        };
        let name = |p: usize| {
            state
                .projects
                .get(p)
                .map(|project| project.name.to_string())
                .unwrap_or_default()
        };
        match &point.decision {
            Decision::FetchState(_) => {
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
                        })
                        .collect(),
                    resources: setup
                        .resources
                        .iter()
                        .map(|r| RscState {
                            rsc: r.rsc_type.long_name().to_string(),
                            shortfall: r.shortfall,
                            nidle: r.nidle,
                            saturated: r.saturated,
                            busy: r.busy,
                            shares: r
                                .projects
                                .iter()
                                .map(|s| ShareState {
                                    project: name(s.project),
                                    share: s.share,
                                    reason: s.reason.to_string(),
                                    backoff: (s.backoff_left > 0.0)
                                        .then_some((s.backoff_left, s.backoff_interval)),
                                })
                                .collect(),
                        })
                        .collect(),
                };
                Replayed::Decision {
                    decision: Decision::FetchState(dump),
                    reason: format!(
                        "§7.3 WORK_FETCH::setup at {now:.0} from the replay's own simulation"
                    ),
                }
            }
            Decision::Choice(_) => Replayed::Decision {
                decision: Decision::Choice(outcome.chosen.map(name)),
                reason: format!(
                    "§7.7 choose_project at {now:.0}: trigger {:?}, scan {:?}",
                    outcome
                        .trigger
                        .map(|r| state.rsc_type(r).long_name().to_string()),
                    outcome.scan
                ),
            },
            _ => Replayed::Decision {
                decision: Decision::Request {
                    resources: outcome
                        .request
                        .iter()
                        .enumerate()
                        .map(|(r, req)| RscRequestLine {
                            rsc: state.rsc_type(r).long_name().to_string(),
                            secs: req.req_secs,
                            inst: req.req_instances,
                        })
                        .collect(),
                    set_requests: match &point.decision {
                        Decision::Request { set_requests, .. } => set_requests
                            .iter()
                            .map(|recorded| {
                                let r = (0..state.n_rsc())
                                    .find(|&r| state.rsc_type(r).long_name() == recorded.rsc)
                                    .unwrap_or(0);
                                let p = outcome.chosen.unwrap_or(0);
                                let sim = outcome.state.as_ref().map(|s| &s.sim);
                                super::decision::SetRequestLine {
                                    rsc: recorded.rsc.clone(),
                                    ninst: state.ninstances(r) as u32,
                                    nused_total: sim
                                        .map_or(0.0, |s| s.project_rsc(p, r).nused_total),
                                    nidle_now: sim.map_or(0.0, |s| s.resource(r).nidle_now),
                                    fetch_share: outcome
                                        .state
                                        .as_ref()
                                        .and_then(|s| s.shares.get(p))
                                        .and_then(|row| row.get(r))
                                        .copied()
                                        .unwrap_or(0.0),
                                    req_inst: outcome
                                        .request
                                        .get(r)
                                        .map_or(0.0, |q| q.req_instances),
                                    req_secs: outcome.request.get(r).map_or(0.0, |q| q.req_secs),
                                }
                            })
                            .collect(),
                        _ => Vec::new(),
                    },
                },
                reason: format!("§7.8 set_request at {now:.0} for the chosen project"),
            },
        }
    }

    /// Choice and request: recomputed from the recorded state dump (self-consistency).
    fn self_check(&mut self, point: &RecordedPoint) -> Replayed {
        if point.piggyback {
            return Replayed::NotReplayed(
                "piggybacked request on a report-only RPC: engine piggyback_work_request not \
                 available yet"
                    .to_string(),
            );
        }
        let Some(context) = self.contexts.get(&point.event_idx) else {
            return Replayed::NotReplayed(
                "no work-fetch state dump precedes this decision (work_fetch_debug off?)".into(),
            );
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
                        self.state.as_ref().and_then(|state| {
                            (0..state.n_rsc())
                                .find(|&r| state.rsc_type(r).long_name() == rsc.rsc)
                                .map(|r| state.ninstances(r) as u32)
                        })
                    })
                    .unwrap_or(0)
            })
            .collect();
        let set_requests = context.set_requests.clone();
        let nused = move |_project: &str, rsc: &str| {
            set_requests
                .iter()
                .find(|s| s.rsc == rsc)
                .map_or(0.0, |s| s.nused_total)
        };
        let choice = selfcheck::choose(
            &context.dump,
            &ChoiceInputs {
                ninst: &ninst,
                nused_total: &nused,
            },
        );
        let reason = format!(
            "self-consistency from the recorded state dump: {}",
            choice.reason
        );
        match &point.decision {
            Decision::Choice(_) => Replayed::Decision {
                decision: Decision::Choice(choice.chosen),
                reason,
            },
            _ => {
                let resources: Vec<RscRequestLine> = if choice.request.is_empty() {
                    Vec::new()
                } else {
                    choice.request
                };
                Replayed::Decision {
                    decision: Decision::Request {
                        resources,
                        set_requests: choice.set_requests,
                    },
                    reason,
                }
            }
        }
    }
}

fn event_time(event: &ExternalEvent) -> f64 {
    match event {
        ExternalEvent::JobArrival { time, .. } => *time,
    }
}

/// The recorded dump and `set_request()` lines a choice or request refers to.
pub struct PointContext {
    /// The dump.
    pub dump: FetchDump,
    /// The `set_request()` lines of the request (inputs: ninst, nused_total).
    pub set_requests: Vec<super::decision::SetRequestLine>,
}

/// Links every choice and request point to the dump before it and the
/// `set_request()` lines of its request; passed to [`Driver::new`].
pub fn link_contexts(points: &[RecordedPoint]) -> BTreeMap<usize, PointContext> {
    let mut out = Vec::new();
    let mut last_dump: Option<FetchDump> = None;
    let mut pending_choice: Option<usize> = None;
    for point in points {
        match &point.decision {
            Decision::FetchState(dump) => last_dump = Some(dump.clone()),
            Decision::Choice(chosen) => {
                if let Some(dump) = &last_dump {
                    out.push((
                        point.event_idx,
                        PointContext {
                            dump: dump.clone(),
                            set_requests: Vec::new(),
                        },
                    ));
                    pending_choice = chosen.as_ref().map(|_| out.len() - 1);
                }
            }
            Decision::Request { set_requests, .. } if !point.piggyback => {
                if let Some(dump) = &last_dump {
                    out.push((
                        point.event_idx,
                        PointContext {
                            dump: dump.clone(),
                            set_requests: set_requests.clone(),
                        },
                    ));
                    if let Some(choice) = pending_choice.take() {
                        if let Some((_, ctx)) = out.get_mut(choice) {
                            ctx.set_requests = set_requests.clone();
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out.into_iter().collect()
}

/// Kinds the driver can replay through the engine on this branch.
pub fn engine_kinds() -> &'static [DecisionKind] {
    &[
        DecisionKind::Priority,
        DecisionKind::RrSim,
        DecisionKind::FetchState,
    ]
}

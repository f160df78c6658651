//! The scheduler (server) side of recorded RPC transcripts: pairs each
//! `sched_request_*.xml` with its `sched_reply_*.xml` ([`exchange`]), checks
//! the server rules S1–S10 of spec/server-side.md §2 on every exchange
//! ([`rules`]), and audits a series of exchanges against the work-sequence
//! rules W1–W9 of §3 ([`sequences`]).
//!
//! Architecture Invariant: server rules read the Trace and produce the
//! neutral divergence model; no I/O, no output formats.
//!
//! Every rule gets one of four verdicts per exchange (§2): *holds* and *not
//! applicable* give a [`DecisionPoint`] with no divergence; *violated* gives
//! a point whose `n_divergences` counts the violations and one
//! [`Divergence`] per violation, whose `field` names the rule (`S1`, …,
//! `W9`) and whose `reason` quotes the numbers; *not checkable* gives an
//! [`Unchecked`] `{ what: "S5 on <exchange>", why }` and no point (a point
//! would count as agreement); the same reason on several exchanges is one
//! entry, `S5 on N exchanges (first: <exchange>)`. A rule checked only in part gives its point
//! and an [`Unchecked`] naming the part left out.
//!
//! A BOINC scheduler never promises a minimum amount of work: under-delivery
//! and empty replies are never violations (S3, S6, S9). Elements absent in
//! older clients and servers make a rule *not checkable*, never violated.
//!
//! Deliberately left out: the simulated multi-host server (`simulate
//! --hosts N`), the project's configuration (never in a transcript), and
//! the client's reaction to a reply beyond the next RPC's timing (S10).

pub mod exchange;
pub mod rules;
pub mod sequences;

pub use exchange::{exchanges, Exchange, LogRpc, Pairing};

use crate::divergence::{DecisionKind, DecisionPoint, Divergence, Unchecked};
use crate::resource::ResourceType;
use crate::trace::Trace;
use serde::{Deserialize, Serialize};

/// The result of auditing the server side of a trace's RPC transcripts; the
/// audit command merges it into its `DivergenceReport`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerAudit {
    /// One point per (exchange, rule) that could be decided, in exchange
    /// order then rule order; sequence rules follow.
    pub points: Vec<DecisionPoint>,
    /// One per violation.
    pub divergences: Vec<Divergence>,
    /// What could not be checked, and why: a rule's note that several
    /// exchanges share is one entry, with how many and the first.
    pub unchecked: Vec<Unchecked>,
    /// Per (rule, why): the entry of `unchecked` that says it, how many
    /// exchanges, and the first one's label.
    #[serde(skip)]
    grouped: std::collections::HashMap<(&'static str, String), (usize, usize, String)>,
}

/// True for the event-log lines the server-side audit reads (a project's
/// work request, scheduler request, its outcome and requested delay): a
/// streaming audit keeps only these for it.
pub fn reads_event(event: &crate::trace::LogEvent) -> bool {
    use crate::trace::Message;
    event.project.is_some()
        && matches!(
            event.message,
            Message::WorkRequest { .. }
                | Message::SendingSchedulerRequest { .. }
                | Message::SchedOpWorkRequest { .. }
                | Message::SchedulerRequestCompleted { .. }
                | Message::ProjectRequestedDelay { .. }
                | Message::SchedulerRequestFailed { .. }
        )
}

/// Audits every exchange of `trace` against S1–S10 and the whole series
/// against W1–W9.
pub fn audit_transcripts(trace: &Trace) -> ServerAudit {
    let (exchanges, unchecked) = exchanges(trace);
    let mut audit = ServerAudit {
        unchecked,
        ..ServerAudit::default()
    };
    for (index, exchange) in exchanges.iter().enumerate() {
        let later = exchanges.get(index + 1..).unwrap_or_default();
        for outcome in rules::check_exchange(trace, exchange, later) {
            audit.record(exchange, DecisionKind::ServerRule, outcome);
        }
    }
    sequences::audit_sequences(&exchanges, &mut audit);
    audit
}

/// What checking one rule on one exchange found.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleOutcome {
    /// The rule (`S1` … `S10`, `W1` … `W9`).
    pub rule: &'static str,
    /// What the transcript shows, one line.
    pub recorded: String,
    /// What the rule requires, one line.
    pub replayed: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Parts of the rule left unchecked (reported besides the verdict).
    pub partly_unchecked: Vec<String>,
}

/// The four verdicts of server-side.md §2.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The rule holds.
    Holds,
    /// The situation the rule is about does not occur (the text says why).
    NotApplicable(String),
    /// Not checkable, with the missing input named.
    Unchecked(String),
    /// Violated, once per entry.
    Violated(Vec<Violation>),
}

/// One violation of a rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// The resource concerned, if any.
    pub resource: Option<ResourceType>,
    /// The job concerned, if any.
    pub job: Option<String>,
    /// What the transcript shows.
    pub recorded: String,
    /// What the rule requires.
    pub replayed: String,
    /// The rule and its numbers.
    pub reason: String,
}

impl RuleOutcome {
    /// An outcome without unchecked parts.
    pub fn new(rule: &'static str, recorded: String, replayed: String, verdict: Verdict) -> Self {
        RuleOutcome {
            rule,
            recorded,
            replayed,
            verdict,
            partly_unchecked: Vec::new(),
        }
    }

    /// A not-checkable outcome.
    pub fn unchecked(rule: &'static str, why: impl Into<String>) -> Self {
        RuleOutcome::new(
            rule,
            String::new(),
            String::new(),
            Verdict::Unchecked(why.into()),
        )
    }

    /// Holds when `violations` is empty, else violated.
    pub fn from_violations(
        rule: &'static str,
        recorded: String,
        replayed: String,
        violations: Vec<Violation>,
    ) -> Self {
        let verdict = if violations.is_empty() {
            Verdict::Holds
        } else {
            Verdict::Violated(violations)
        };
        RuleOutcome::new(rule, recorded, replayed, verdict)
    }
}

impl ServerAudit {
    /// Notes `rule` left unchecked on the exchange `label` for `why`: the
    /// same note on another exchange is counted on the first's entry
    /// (`S6 on 14 exchanges (first: …)`), so a report of many transcripts
    /// says each reason once.
    fn note_unchecked(&mut self, rule: &'static str, label: &str, why: &str) {
        let key = (rule, why.to_string());
        if let Some((index, count, first)) = self.grouped.get_mut(&key) {
            *count += 1;
            if let Some(entry) = self.unchecked.get_mut(*index) {
                entry.what = format!("{rule} on {count} exchanges (first: {first})");
            }
            return;
        }
        self.grouped
            .insert(key, (self.unchecked.len(), 1, label.to_string()));
        self.unchecked.push(Unchecked {
            what: format!("{rule} on {label}"),
            why: why.to_string(),
        });
    }

    /// Adds one outcome on `exchange` as points, divergences and unchecked
    /// entries.
    pub fn record(&mut self, exchange: &Exchange, kind: DecisionKind, outcome: RuleOutcome) {
        let time = exchange.time().unwrap_or(0.0);
        let time_label = exchange.time_label();
        let project = Some(
            exchange
                .project_name
                .clone()
                .unwrap_or_else(|| exchange.project.clone()),
        );
        let location = exchange
            .reply_path
            .as_deref()
            .or(exchange.request_path.as_deref())
            .map(|path| crate::source::Location::file(path.into()));
        for part in &outcome.partly_unchecked {
            self.note_unchecked(outcome.rule, &exchange.label, part);
        }
        let n_divergences = match &outcome.verdict {
            Verdict::Unchecked(why) => {
                self.note_unchecked(outcome.rule, &exchange.label, why);
                return;
            }
            Verdict::Holds | Verdict::NotApplicable(_) => 0,
            Verdict::Violated(violations) => violations.len(),
        };
        let replayed = match &outcome.verdict {
            Verdict::NotApplicable(why) => format!("not applicable: {why}"),
            _ => outcome.replayed.clone(),
        };
        self.points.push(DecisionPoint {
            time,
            time_label: time_label.clone(),
            kind,
            project: project.clone(),
            resource: None,
            recorded: format!("{} {}: {}", outcome.rule, exchange.label, outcome.recorded),
            replayed: format!("{} {}: {}", outcome.rule, exchange.label, replayed),
            n_divergences,
            checked: true,
            location: location.clone(),
            basis: format!(
                "{}: the scheduler request and reply transcripts",
                outcome.rule
            ),
        });
        if let Verdict::Violated(violations) = outcome.verdict {
            for violation in violations {
                self.divergences.push(Divergence {
                    time,
                    time_label: time_label.clone(),
                    kind,
                    project: project.clone(),
                    resource: violation.resource.map(|rsc| rsc.long_name().to_string()),
                    job: violation.job,
                    field: outcome.rule.to_string(),
                    recorded: violation.recorded,
                    replayed: violation.replayed,
                    tolerance: None,
                    reason: violation.reason,
                    location: location.clone(),
                });
            }
        }
    }
}

//! Compares recorded and replayed decisions field by field and assembles the
//! [`DivergenceReport`].
//!
//! Numbers are compared after formatting both sides the way the log prints
//! them (spec/policy-current.md §9.7 "Rounding"): equal texts agree; otherwise
//! the printed numbers agree when their relative difference is within the
//! tolerance. Fields present on one side only always diverge.
//!
//! Architecture Invariant: knows nothing of the engine; consumes [`Decision`]s.

use super::decision::{Decision, Field, Value};
use super::recorded::RecordedPoint;
use crate::divergence::{DecisionPoint, Divergence};
use crate::source::Location;
use crate::trace::LogEvent;

/// What the replay produced for one recorded point.
#[derive(Clone, Debug, PartialEq)]
pub enum Replayed {
    /// A replayed decision and the rule and numbers behind it.
    Decision {
        /// The decision.
        decision: Decision,
        /// Why the engine decided so (one line).
        reason: String,
    },
    /// The replay could not produce this decision, and why.
    NotReplayed(String),
}

/// True when two printed values agree within `tolerance` (relative).
pub fn values_agree(recorded: &Value, replayed: &Value, tolerance: f64) -> bool {
    let (a, b) = (recorded.render(), replayed.render());
    if a == b {
        return true;
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) if x.is_finite() && y.is_finite() => {
            let scale = x.abs().max(y.abs());
            (x - y).abs() <= tolerance * scale
        }
        _ => false,
    }
}

fn location(events: &[LogEvent], idx: usize) -> Option<Location> {
    events.get(idx).map(|event| event.location.clone())
}

/// Compares one point; returns the decision point and its divergences.
pub fn compare_point(
    point: &RecordedPoint,
    replayed: &Replayed,
    tolerance: f64,
    events: &[LogEvent],
) -> (DecisionPoint, Vec<Divergence>) {
    let kind = point.kind();
    let recorded_line = point.decision.line();
    let loc = location(events, point.event_idx);
    let divergence = |field: &Field, recorded: String, replayed: String, reason: &str| Divergence {
        time: point.time,
        time_label: point.time_label.clone(),
        kind,
        project: field.project.clone().or_else(|| point.project.clone()),
        resource: field.resource.clone().or_else(|| point.resource.clone()),
        job: field.job.clone(),
        field: field.name.to_string(),
        recorded,
        replayed,
        tolerance: match field.value {
            Value::Num { .. } => Some(tolerance),
            Value::Text(_) => None,
        },
        reason: reason.to_string(),
        location: loc.clone(),
    };
    let mut divergences = Vec::new();
    let replayed_line = match replayed {
        Replayed::NotReplayed(why) => {
            let field = Field::text("decision", recorded_line.clone());
            divergences.push(divergence(
                &field,
                recorded_line.clone(),
                "(not replayed)".to_string(),
                why,
            ));
            format!("(not replayed: {why})")
        }
        Replayed::Decision { decision, reason } => {
            let recorded_fields = point.decision.fields();
            let replayed_fields = decision.fields();
            for field in &recorded_fields {
                let key = field.key();
                match replayed_fields.iter().find(|f| f.key() == key) {
                    Some(other) => {
                        if !values_agree(&field.value, &other.value, tolerance) {
                            divergences.push(divergence(
                                field,
                                field.value.render(),
                                other.value.render(),
                                reason,
                            ));
                        }
                    }
                    None => divergences.push(divergence(
                        field,
                        field.value.render(),
                        "(absent)".to_string(),
                        reason,
                    )),
                }
            }
            for field in &replayed_fields {
                let key = field.key();
                if !recorded_fields.iter().any(|f| f.key() == key) {
                    divergences.push(divergence(
                        field,
                        "(absent)".to_string(),
                        field.value.render(),
                        reason,
                    ));
                }
            }
            decision.line()
        }
    };
    let decision_point = DecisionPoint {
        time: point.time,
        time_label: point.time_label.clone(),
        kind,
        project: point.project.clone(),
        resource: point.resource.clone(),
        recorded: recorded_line,
        replayed: replayed_line,
        n_divergences: divergences.len(),
        location: loc,
    };
    (decision_point, divergences)
}

/// Renders one event as the log printed it (time, project, tag, body), for
/// the context lines around the first divergence.
pub fn render_event(event: &LogEvent) -> String {
    let time = super::recorded::time_label(&event.time);
    let project = event.project.as_deref().unwrap_or("---");
    let body = match &event.message {
        crate::trace::Message::Unrecognized { text } => text.clone(),
        other => format!("{other:?}"),
    };
    match &event.tag {
        Some(tag) => format!("{time} [{project}] [{tag}] {body}"),
        None => format!("{time} [{project}] {body}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_applies_after_formatting() {
        let a = Value::Num {
            value: 0.7504,
            decimals: 3,
        };
        let b = Value::Num {
            value: 0.7496,
            decimals: 3,
        };
        assert!(values_agree(&a, &b, 1e-6));
        let c = Value::Num {
            value: 0.7516,
            decimals: 3,
        };
        assert!(!values_agree(&a, &c, 1e-6));
        assert!(values_agree(&a, &c, 1e-2));
        assert!(!values_agree(
            &Value::Text("A".into()),
            &Value::Text("B".into()),
            1.0
        ));
    }
}

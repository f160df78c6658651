//! External events taken from the trace (job arrivals; later RPC outcomes,
//! project-down skips, deferrals, availability gaps), ordered by
//! (time, sequence number) — never by hash order.
//!
//! Architecture Invariant: reads the trace only; the sequence number is the
//! event's index in `Trace::events`, so equal times keep log order.

use crate::trace::message::ResultState;
use crate::trace::{LogEvent, Message};
use std::collections::VecDeque;

/// One event of the external world.
#[derive(Clone, Debug, PartialEq)]
pub enum ExternalEvent {
    /// A job delivered by an RPC (`result state=FILES_DOWNLOADED for X from simulate_rpc`).
    JobArrival {
        /// Seconds on the trace's time base.
        time: f64,
        /// Sequence number (event index).
        seq: usize,
        /// The project.
        project: String,
        /// The job.
        job: String,
    },
}

impl ExternalEvent {
    /// The (time, seq) ordering key.
    pub fn key(&self) -> (f64, usize) {
        match self {
            ExternalEvent::JobArrival { time, seq, .. } => (*time, *seq),
        }
    }
}

/// The queue of external events, in (time, seq) order.
#[derive(Clone, Debug, Default)]
pub struct ExternalQueue {
    events: VecDeque<ExternalEvent>,
}

impl ExternalQueue {
    /// Collects the external events of a log.
    pub fn from_events(events: &[LogEvent]) -> Self {
        let mut out: Vec<ExternalEvent> = Vec::new();
        let mut last_time = 0.0;
        for (seq, event) in events.iter().enumerate() {
            if let Some(secs) = event.time.secs() {
                last_time = secs;
            }
            if let Message::ResultStateChange { state, job, from } = &event.message {
                if *state == ResultState::FilesDownloaded && from == "simulate_rpc" {
                    out.push(ExternalEvent::JobArrival {
                        time: last_time,
                        seq,
                        project: event.project.as_deref().unwrap_or_default().to_string(),
                        job: job.to_string(),
                    });
                }
            }
        }
        out.sort_by(|a, b| {
            let (ta, sa) = a.key();
            let (tb, sb) = b.key();
            ta.total_cmp(&tb).then(sa.cmp(&sb))
        });
        ExternalQueue {
            events: out.into_iter().collect(),
        }
    }

    /// Removes and returns every event before `(time, seq)`, in order.
    pub fn pop_until(&mut self, time: f64, seq: usize) -> Vec<ExternalEvent> {
        let mut out = Vec::new();
        while self.events.front().is_some_and(|e| {
            let (t, s) = e.key();
            t < time || (t == time && s < seq)
        }) {
            if let Some(event) = self.events.pop_front() {
                out.push(event);
            }
        }
        out
    }

    /// Events left.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when no event is left.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_sequence_order() {
        let arrival = |time: f64, seq: usize| ExternalEvent::JobArrival {
            time,
            seq,
            project: "A".into(),
            job: format!("A_{seq}"),
        };
        let mut queue = ExternalQueue {
            events: vec![arrival(1.0, 0), arrival(1.0, 1), arrival(5.0, 2)]
                .into_iter()
                .collect(),
        };
        let first = queue.pop_until(1.0, 2);
        assert_eq!(first.len(), 2);
        assert_eq!(first[0].key(), (1.0, 0));
        assert_eq!(queue.len(), 1);
    }
}

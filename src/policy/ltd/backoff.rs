//! Per-(project, resource) work-fetch backoff of 6.6–6.10 (spec B.3):
//! first interval 60 s, doubling to a 1-day cap, `backoff_time = now + U ×
//! interval` with `U` drawn uniformly in [0, 1] and passed in explicitly.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use super::LtdParams;
use crate::policy::state::{ProjectRsc, RscIdx};
use crate::policy::PolicyError;

/// A backoff decision for one resource.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RscBackoff {
    /// The resource.
    pub rsc: RscIdx,
    /// New backoff interval.
    pub interval: f64,
    /// Seconds backed off (`U × interval`), as `[wfd] backing off <rsc> <secs> sec` prints (`%.0f`).
    pub secs: f64,
    /// New `backoff_time`.
    pub until: f64,
}

/// Mirrors RSC_PROJECT_WORK_FETCH::backoff() of 6.10.60 (client/work_fetch.cpp).
/// `u` is the drawn `drand()` value in [0, 1].
pub fn backoff(
    rsc_state: &ProjectRsc,
    rsc: RscIdx,
    now: f64,
    u: f64,
    params: &LtdParams,
) -> Result<RscBackoff, PolicyError> {
    if !(0.0..=1.0).contains(&u) {
        return Err(PolicyError::RandomOutOfRange {
            value: u,
            lo: 0.0,
            hi: 1.0,
        });
    }
    let interval = if rsc_state.backoff_interval != 0.0 {
        (rsc_state.backoff_interval * 2.0).min(params.max_backoff_interval)
    } else {
        params.min_backoff_interval
    };
    let secs = u * interval;
    Ok(RscBackoff {
        rsc,
        interval,
        secs,
        until: now + secs,
    })
}

/// What a scheduler reply means for backoffs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReplySummary {
    /// Per resource: jobs received for it (a GPU job counts for its GPU only).
    pub jobs_received: Vec<u32>,
    /// Per resource: the reply's own backoff (`<cpu_backoff>` …), 0 = none.
    pub project_backoff: Vec<f64>,
    /// The RPC was requested by the project.
    pub project_requested: bool,
}

/// A change to one (project, resource) backoff.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BackoffChange {
    /// The reply set the backoff time itself.
    ProjectSupplied {
        /// The resource.
        rsc: RscIdx,
        /// New `backoff_time`.
        until: f64,
    },
    /// Backed off because nothing came back.
    BackedOff(RscBackoff),
    /// Cleared (time and interval to 0) because a job for it came back.
    Cleared {
        /// The resource.
        rsc: RscIdx,
    },
}

/// Mirrors WORK_FETCH::handle_reply() of 6.10.60 (B.3): project-supplied
/// backoffs first; if no job came back and the RPC was not
/// project-requested, back off every resource with a nonzero request that
/// the reply did not back off itself (`draws[r]` is the drawn `U`); else
/// clear the backoff of every resource a job was received for.
pub fn handle_reply(
    rsc_states: &[ProjectRsc],
    requested_secs: &[f64],
    reply: &ReplySummary,
    now: f64,
    draws: &[f64],
    params: &LtdParams,
) -> Result<Vec<BackoffChange>, PolicyError> {
    let mut changes = Vec::new();
    let supplied = |r: usize| reply.project_backoff.get(r).copied().unwrap_or(0.0);
    for r in 0..rsc_states.len() {
        if supplied(r) != 0.0 {
            changes.push(BackoffChange::ProjectSupplied {
                rsc: r,
                until: now + supplied(r),
            });
        }
    }
    let n_jobs: u32 = reply.jobs_received.iter().sum();
    if n_jobs == 0 {
        if !reply.project_requested {
            for (r, rsc_state) in rsc_states.iter().enumerate() {
                let req = requested_secs.get(r).copied().unwrap_or(0.0);
                if req != 0.0 && supplied(r) == 0.0 {
                    let u = draws.get(r).copied().unwrap_or(0.0);
                    changes.push(BackoffChange::BackedOff(backoff(
                        rsc_state, r, now, u, params,
                    )?));
                }
            }
        }
        return Ok(changes);
    }
    for r in 0..rsc_states.len() {
        if reply.jobs_received.get(r).copied().unwrap_or(0) > 0 {
            changes.push(BackoffChange::Cleared { rsc: r });
        }
    }
    Ok(changes)
}

//! The pure policy engine: the current (REC-based, 7.x/8.x) BOINC client
//! scheduling policy, re-derived from a host state snapshot and the time.
//!
//! Owns the host state model ([`state`]), the policy constants ([`params`])
//! and one module per concern, each named after the BOINC source it mirrors:
//! runtime estimates ([`runtime`], client/result.cpp), REC and priority
//! ([`rec`], client/cpu_sched.cpp), the round-robin simulation ([`rr_sim`],
//! client/rr_sim.cpp), work fetch ([`work_fetch`], client/work_fetch.cpp),
//! backoffs ([`backoff`]), job scheduling ([`cpu_sched`],
//! client/cpu_sched.cpp), GPU instance assignment ([`coproc_sched`],
//! client/coproc_sched.cpp) and scheduler replies ([`reply`],
//! client/cs_scheduler.cpp). Section numbers (§) refer to
//! `spec/policy-current.md`.
//!
//! Every decision carries its reason as data so reports can explain it; the
//! reason enums print the client's own texts.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.
//! Randomness enters only as explicit drawn values (see [`backoff`]).
//! Iteration is over `Vec`s in the client's orders, never hash order.
//!
//! Deliberately left out: swap-limit mode (§6.5), sporadic apps' reserved
//! resources, the account-manager idle count (§4.8) and Windows remote
//! desktop handling.

pub mod backoff;
pub mod coproc_sched;
pub mod cpu_sched;
pub mod debt;
pub mod generation;
pub mod ltd;
pub mod params;
pub mod profile;
pub mod rec;
pub mod reply;
pub mod rr_sim;
pub mod runtime;
pub mod state;
pub mod work_fetch;

pub use params::{ParamInfo, Params, RrSimOrder, RuntimeModel};
pub use state::HostState;

/// Errors of the policy engine.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// `--set` named a parameter that does not exist.
    #[error("unknown policy parameter {0:?}; see the parameter list for valid keys")]
    UnknownParam(String),
    /// An override is not of the form `KEY=VALUE`.
    #[error("{0:?}: expected KEY=VALUE")]
    BadAssignment(String),
    /// `--set` gave a value the parameter cannot take.
    #[error("bad value {value:?} for policy parameter {key:?}")]
    BadParamValue {
        /// The parameter.
        key: String,
        /// The rejected value.
        value: String,
    },
    /// The host state refers to something that does not exist or holds an unusable number.
    #[error("invalid host state: {0}")]
    InvalidState(String),
    /// A drawn random value lies outside the range the client can draw.
    #[error("random draw {value} outside [{lo}, {hi}]")]
    RandomOutOfRange {
        /// The drawn value.
        value: f64,
        /// Lower end of the allowed range.
        lo: f64,
        /// Upper end of the allowed range.
        hi: f64,
    },
    /// The current time is not a finite number.
    #[error("current time {0} is not finite")]
    BadTime(f64),
}

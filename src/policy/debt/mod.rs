//! The pre-6.4 policy generation (`debt-6.2`): short-term debt (STD) for
//! job scheduling, one CPU long-term debt (LTD) for work fetch, a weighted
//! round-robin simulation with per-project shortfall, and EDF when deadlines
//! are threatened (spec `policy-legacy.md` Part A).
//!
//! The era's client had no coprocessors and no per-resource state, so this
//! engine takes its own small inputs ([`DebtProject`], [`SimResult`],
//! [`RunningTask`]) rather than the shared host state: a replay fills them
//! from its trace (shares, runnable flags, wall CPU time per project, the
//! DCF-corrected CPU time left of each result).
//!
//! Where the seed and the 2007-02 client differ, the engine follows the
//! client and offers the seed's reading as an explicit mode
//! ([`StdNormalisation`], [`RateRecompute`], [`AnticipatedDecrement`]).
//!
//! Entry points: [`update_cpu_efficiency`] and [`overall_cpu_frac`] (A.2),
//! [`adjust_debts`] (A.4), [`rr_simulation`] (A.5), [`schedule_cpus`] (A.6),
//! [`enforce_schedule`] (A.7), [`compute_work_request`] and
//! [`work_request_sizes`] (A.8).
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.
//!
//! Deliberately left out: RAM checks beyond a `too_large` flag, NCI
//! projects' 1-s requests beyond the flag, and the 6.4/6.5 FLOPS-based rates.

mod engine;

#[cfg(test)]
mod tests;

pub use engine::*;

//! boinc-audit: audits the scheduling policy of the BOINC client by replaying
//! recorded traces.
//!
//! Pipeline:
//!
//! ```text
//!  inputs ──parse──▶ Trace ──replay(policy)──▶ DivergenceReport ──report──▶ table/diff/json/csv/parquet
//!  scenario ──simulate(policy)──▶ SimReport (figures of merit, usage)
//!  trace | scenario ──compare(policy A, policy B)──▶ Comparison ──report::compare──▶ table/json
//!  golden/<case> ──golden_suite(replay | simulate | snapshot)──▶ golden texts ──golden──▶ check/accept
//! ```
//!
//! Architecture Invariants:
//! - `parse` knows nothing of `policy`, `replay` or `report`.
//! - `policy` is pure: state in, decisions out; no I/O, no clock.
//! - `source` and `resource` depend on nothing else in the crate.
//! - `golden` depends on nothing but std and similar: it compares texts.

pub mod audit;
pub mod bundle;
pub mod client_loop;
pub mod compare;
pub mod divergence;
pub mod flags;
pub mod fleet;
pub mod golden;
pub mod golden_suite;
pub mod lab;
pub mod parse;
pub mod policy;
pub mod replay;
pub mod report;
pub mod resource;
pub mod server;
pub mod simulate;
pub mod snapshot;
pub mod source;
pub mod trace;

//! Renderers: turn neutral result models into bytes.
//!
//! Architecture Invariant: renderers consume plain data models (today the
//! [`parse_summary::ParseSummary`]; the divergence model comes with the audit)
//! and write bytes. They do not parse inputs, run the policy or choose exit
//! codes. comfy-table and serde_json are used here and nowhere else.

pub mod parse_summary;

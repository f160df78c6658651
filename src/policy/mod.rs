//! The pure policy engine.
//!
//! STUB: filled in by the policy work.

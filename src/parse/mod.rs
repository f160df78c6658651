//! Parsers for every input a BOINC host records, producing a [`crate::trace::Trace`].
//!
//! Architecture Invariant: `parse` knows nothing of `policy`, `replay`,
//! `divergence` or `report`. nom is used for the event log, quick-xml for XML.
//!
//! Parsing never stops at the first problem and never panics: problems are
//! collected as [`ParseError`]s (errors and warnings), and log lines that match
//! no known format are kept as `Message::Unrecognized` and counted.

pub mod error;
pub mod input;
pub mod log_messages;
pub mod event_log;

pub use error::{ParseError, ParseErrorKind, Parsed, Severity};

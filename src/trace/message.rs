//! Typed messages of the event log: one variant per message format (or family
//! of formats that differ only by era), per spec/formats-log.md §3, §4 and §7.
//!
//! STUB: filled in by the log-message catalog work.

use serde::{Deserialize, Serialize};

/// The body of a log line, classified.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message {
    /// A body that matched no known format; kept verbatim and counted.
    Unrecognized {
        /// The body text after the frame.
        text: String,
    },
}

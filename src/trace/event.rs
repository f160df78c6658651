//! One line of an event log, framed and typed.

use crate::source::Location;
use crate::trace::message::Message;
use crate::trace::time::EventTime;
use compact_str::CompactString;
use serde::{Deserialize, Serialize};

/// One message of the client's event log, in any of its renderings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEvent {
    /// Where the message starts: file, 1-based line, column 1 for text logs
    /// (the column of `<msg>` in a GUI RPC reply).
    pub location: Location,
    /// The time printed on the line.
    pub time: EventTime,
    /// The project named in the frame; `None` for general messages
    /// (`[---]`, `[]`, empty column).
    pub project: Option<CompactString>,
    /// The bracketed word that opens the body (`work_fetch`, `rr_sim`, …),
    /// without brackets; `None` for untagged bodies.
    pub tag: Option<CompactString>,
    /// The body classified against the message catalog.
    pub message: Message,
}

impl LogEvent {
    /// True when the body matched no known message format.
    pub fn is_unrecognized(&self) -> bool {
        matches!(self.message, Message::Unrecognized { .. })
    }
}

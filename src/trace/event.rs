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
    /// The body opened with `[error] ` (an internal error, `MSG_INTERNAL_ERROR`):
    /// stdoutdae.txt of 5.x/6.x and every GUI/RPC rendering (spec §1.6). The
    /// prefix is not part of `tag` nor of the message.
    #[serde(default, skip_serializing_if = "is_false")]
    pub internal_error: bool,
    /// The body opened with `Message from server: ` (≤6.10 in every rendering;
    /// 6.12+ notices in GUI/RPC renderings); the message is then
    /// [`Message::ServerMessage`].
    #[serde(default, skip_serializing_if = "is_false")]
    pub from_server: bool,
    /// The message priority when the rendering shows it: the GUI RPC `<pri>`
    /// and the boinccmd priority name (1 = `MSG_INFO` / `low`, 2 =
    /// `MSG_USER_ALERT` / `user notification` / 2009–2010 `medium`, 3 =
    /// `MSG_INTERNAL_ERROR` / `internal error` / `high`). `None` for
    /// stdoutdae.txt, emulator logs and Manager copies, which do not print it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl LogEvent {
    /// True when the body matched no known message format.
    pub fn is_unrecognized(&self) -> bool {
        matches!(self.message, Message::Unrecognized { .. })
    }
}

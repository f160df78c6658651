//! Classifies an event-log body against the message catalog.
//!
//! STUB: filled in by the log-message catalog work.

use crate::trace::message::Message;
use compact_str::CompactString;

/// A body split into its opening tag and its typed message.
#[derive(Clone, Debug, PartialEq)]
pub struct Classified {
    /// The bracketed word opening the body, without brackets.
    pub tag: Option<CompactString>,
    /// The typed message (or `Unrecognized`).
    pub message: Message,
}

/// Classifies one body (the text after the time and project frame).
pub fn classify(body: &str) -> Classified {
    Classified {
        tag: None,
        message: Message::Unrecognized {
            text: body.to_string(),
        },
    }
}

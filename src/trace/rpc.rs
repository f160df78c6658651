//! Scheduler RPC transcripts: sched_request_*.xml and sched_reply_*.xml.
//!
//! STUB: filled in by the XML work.

use serde::{Deserialize, Serialize};

/// One scheduler request or reply file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RpcFile {}

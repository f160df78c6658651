//! Host state and configuration as recorded: client_state.xml, preferences,
//! cc_config.xml, app_config.xml, job logs.
//!
//! STUB: filled in by the XML work.

use serde::{Deserialize, Serialize};

/// Everything the XML and small text inputs say about the host.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostRecord {}

//! The whole audit of one trace: the anchored policy replay (client side) and
//! the scheduler rules on its RPC transcripts (server side), merged into one
//! [`DivergenceReport`].
//!
//! Architecture Invariant: orchestration only — it calls `replay` and `server`
//! and merges their neutral results; it holds no policy or rule logic and
//! renders nothing.

use crate::divergence::{DivergenceReport, Unchecked};
use crate::replay::{self, AuditOptions, ReplayError};
use crate::server;
use crate::trace::Trace;

/// Audits `trace`: replays the policy over its event log (when it has one)
/// and checks the scheduler rules on its transcripts (when it has any).
///
/// A trace with transcripts but no event log is audited on the server side
/// only; the client-side replay is then listed as unchecked.
pub fn audit_trace(
    trace: &Trace,
    trace_name: &str,
    options: &AuditOptions,
) -> Result<DivergenceReport, ReplayError> {
    let mut report = match replay::audit(trace, trace_name, options) {
        Ok(report) => report,
        Err(ReplayError::NoEvents) if !trace.rpcs.is_empty() => DivergenceReport {
            trace: trace_name.to_string(),
            policy: options
                .policy
                .clone()
                .unwrap_or_else(|| "current".to_string()),
            policy_reason: "no event log: only the scheduler transcripts were audited".to_string(),
            unchecked: vec![Unchecked {
                what: "client-side policy replay".to_string(),
                why: "the trace holds no event log (stdoutdae.txt or the emulator's log.txt)"
                    .to_string(),
            }],
            ..DivergenceReport::default()
        },
        Err(err) => return Err(err),
    };
    if !trace.rpcs.is_empty() {
        let server_audit = server::audit_transcripts(trace);
        report.points.extend(server_audit.points);
        report.divergences.extend(server_audit.divergences);
        report.unchecked.extend(server_audit.unchecked);
    }
    Ok(report)
}

//! The whole audit of one trace: the anchored policy replay (client side) and
//! the scheduler rules on its RPC transcripts (server side), merged into one
//! [`DivergenceReport`].
//!
//! Architecture Invariant: orchestration only — it calls `replay` and `server`
//! and merges their neutral results (and, for an emulator reference, asks
//! `simulate` for the emulator's undrawn-in-the-log job estimates); it holds
//! no policy or rule logic and renders nothing.

use crate::divergence::{DivergenceReport, Unchecked};
use crate::replay::{self, AuditOptions, ReplayError};
use crate::server;
use crate::simulate::GeneratedJob;
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
    let generated = emulator_generated_jobs(trace, options);
    let mut report = match replay::audit_with_draws(trace, trace_name, options, &generated) {
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
    if let Some(note) = unknown_lines(trace) {
        report.unchecked.push(note);
    }
    if !trace.rpcs.is_empty() {
        let server_audit = server::audit_transcripts(trace);
        report.points.extend(server_audit.points);
        report.divergences.extend(server_audit.divergences);
        report.unchecked.extend(server_audit.unchecked);
    }
    Ok(report)
}

/// Log lines of no known format: kept, counted and named in the report
/// (no decision reads them), never dropped silently.
fn unknown_lines(trace: &Trace) -> Option<Unchecked> {
    let mut unknown = trace
        .events
        .iter()
        .filter_map(|event| match &event.message {
            crate::trace::Message::Unrecognized { text } => Some((event, text)),
            _ => None,
        });
    let (first, text) = unknown.next()?;
    let n = 1 + unknown.count();
    let shown: String = text.chars().take(80).collect();
    let more = if shown.len() < text.len() { "…" } else { "" };
    Some(Unchecked {
        what: format!(
            "{n} log line(s) of no known format (first: {}:{} `{shown}{more}`)",
            first.location.path, first.location.line
        ),
        why: "kept and counted, but no decision reads them: another client version's \
              wording or a damaged line (`boinc-audit parse --format ndjson` lists them)"
            .to_string(),
    })
}

/// For an emulator reference (its state file in an `inputs/` folder beside
/// `outputs/`) of a release from 7.0 on: the jobs its servers generated,
/// with the estimates the log does not print, reproduced by the emulator's
/// own generator under that release's harness
/// ([`crate::simulate::generated_jobs`]; sim.cpp's make_job draws the same
/// way from 7.2.42 to today's). Empty for the 6.x generations, otherwise,
/// or when the simulation cannot run; the replay checks each against the
/// log.
fn emulator_generated_jobs(trace: &Trace, options: &AuditOptions) -> Vec<GeneratedJob> {
    let crate::replay::Harness::Rec(release) = crate::replay::harness_of(trace, options) else {
        return Vec::new();
    };
    let Some(state) = trace.state.client_states.first() else {
        return Vec::new();
    };
    let Some(inputs) = std::path::Path::new(&state.path).parent() else {
        return Vec::new();
    };
    let is_reference = inputs.file_name().is_some_and(|n| n == "inputs")
        && inputs
            .parent()
            .is_some_and(|root| root.join("outputs").is_dir());
    if !is_reference {
        return Vec::new();
    }
    crate::simulate::generated_jobs(
        &inputs.to_string_lossy(),
        release.or(options.client_version),
    )
    .unwrap_or_default()
}

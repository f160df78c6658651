//! Scheduler-RPC lines: `[sched_op]`/`[sched_op_debug]` (sched_op_debug) and
//! the untagged default-level summary (sched_ops) of spec §3.1–§3.2.

use super::lex::{duration, first_word, float, full, rsc_name, uint};
use crate::parse::text::FastSplit;
use crate::resource::ResourceType;
use crate::trace::message::{DeferReason, Message, ProjectReason, RpcReason};
use compact_str::CompactString;
use nom::bytes::complete::tag;
use nom::combinator::map;
use nom::sequence::{preceded, terminated, tuple};

/// Classifies the rest of a `[sched_op]` or `[sched_op_debug]` body.
pub(super) fn tagged(rest: &str) -> Option<Message> {
    let (word, tail) = first_word(rest);
    match word {
        "Starting" => (tail == "scheduler request").then_some(Message::StartingSchedulerRequest),
        "Server" => full(
            map(preceded(tag("version "), super::lex::int), |version| {
                Message::ServerVersion { version }
            }),
            tail,
        ),
        "estimated" => {
            let rest = tail.strip_prefix("total ")?;
            let (name, secs) = rest
                .split_fast(" task duration: ")
                .or_else(|| rest.split_fast(" job duration: "))?;
            let secs = full(terminated(float, tag(" seconds")), secs)?;
            Some(Message::EstimatedTotalDuration {
                rsc: rsc_name(name)?,
                secs,
            })
        }
        "handle_scheduler_reply():" => Some(Message::GotAck {
            job: tail.strip_prefix("got ack for task ")?.into(),
        }),
        "Deferring" => full(
            map(preceded(tag("communication for "), duration), |secs| {
                Message::DeferringCommunication { secs }
            }),
            tail,
        ),
        "Reason:" => Some(Message::DeferReason {
            reason: DeferReason::from_text(tail),
        }),
        "sched" => Some(Message::SchedRpcPending {
            reason: RpcReason::from_text(tail.strip_prefix("RPC pending: ")?),
        }),
        // 5.10-6.4: `Project requested delay of %f seconds` under sched_op_debug.
        "Project" => untagged(word, tail),
        "ignoring" => match tail {
            "prefs from project; using prefs from AM" => Some(Message::IgnoringPrefsUsingAm),
            "prefs from old server; we have host-specific prefs" => {
                Some(Message::IgnoringPrefsOldServer)
            }
            _ => None,
        },
        "Fetching" => (tail == "master file").then_some(Message::FetchingMasterFile),
        "Got" => (tail == "master file; parsing").then_some(Message::GotMasterFile),
        "Found" => full(
            map(
                terminated(uint, tag(" scheduler URLs in master file")),
                |count| Message::FoundSchedulerUrls { count },
            ),
            tail,
        ),
        _ => work_request(rest),
    }
}

/// `%s work request: %.2f seconds; %.2f devices` (7.0+), `; %.2f CPUs` / `; %.2f GPUs`
/// (6.10–6.12), `; %d idle CPUs` / `; %d idle GPUs` (6.6).
fn work_request(text: &str) -> Option<Message> {
    let (name, rest) = text.split_fast(" work request: ")?;
    let (secs, devices) = rest.split_fast(" seconds; ")?;
    let (devices, unit) = devices.split_fast(' ')?;
    if !matches!(
        unit,
        "devices" | "CPUs" | "GPUs" | "idle CPUs" | "idle GPUs"
    ) {
        return None;
    }
    Some(Message::SchedOpWorkRequest {
        rsc: rsc_name(name)?,
        secs: full(float, secs)?,
        devices: full(float, devices)?,
    })
}

/// Resources after `Requesting new tasks`: `` (none), ` for CPU and NVIDIA GPU`, 6.x ` for GPU`.
/// 6.12 appends `, sending trickle-up message` (the last `%s` of
/// `Requesting new tasks for %s%s`, spec §3.1), which is not a resource.
fn requested_resources(rest: &str) -> Option<Vec<ResourceType>> {
    let rest = rest
        .strip_suffix(", sending trickle-up message")
        .unwrap_or(rest);
    if rest.is_empty() {
        return Some(Vec::new());
    }
    rest.strip_prefix(" for ")?
        .split(" and ")
        .map(rsc_name)
        .collect()
}

/// Untagged default-level RPC lines opening with `word`; `None` if none matches.
pub(super) fn untagged(word: &str, tail: &str) -> Option<Message> {
    match word {
        "Sending" => {
            if tail == "trickle-up message" {
                return Some(Message::SendingTrickleUp);
            }
            let rest = tail.strip_prefix("scheduler request: ")?;
            let Some((reason, numbers)) = rest.split_fast(".  Requesting ") else {
                // 5.x prints no period.
                return Some(Message::SendingSchedulerRequest {
                    reason: RpcReason::from_text(rest.strip_suffix('.').unwrap_or(rest)),
                    requested_secs: None,
                    n_reported: None,
                });
            };
            let (secs, count) = full(
                tuple((
                    terminated(float, tag(" seconds of work, reporting ")),
                    terminated(uint, tag(" completed tasks")),
                )),
                numbers,
            )?;
            Some(Message::SendingSchedulerRequest {
                reason: RpcReason::from_text(reason),
                requested_secs: Some(secs),
                n_reported: Some(count),
            })
        }
        "Reporting" => {
            let (rest, count) = terminated(uint, tag(" completed tasks"))(tail).ok()?;
            if rest.is_empty() {
                return Some(Message::ReportingCompletedTasks { count });
            }
            if let Some(requested) = rest.strip_prefix(", requesting new tasks") {
                return Some(Message::ReportingAndRequesting {
                    count,
                    resources: requested_resources(requested)?,
                });
            }
            rest.strip_prefix(", not requesting new tasks")?;
            Some(Message::ReportingNotRequesting { count })
        }
        "Requesting" => {
            if let Some(secs) = tail.strip_suffix(" seconds of new work") {
                return Some(Message::RequestingSecondsOfWork {
                    secs: full(float, secs)?,
                });
            }
            Some(Message::RequestingNewTasks {
                resources: requested_resources(tail.strip_prefix("new tasks")?)?,
            })
        }
        // 5.x: untagged deferral lines.
        "Deferring" | "Reason:" => tagged(&format!("{word} {tail}")),
        "Not" => {
            if tail.starts_with("reporting or requesting tasks") {
                return Some(Message::NotReportingOrRequesting);
            }
            let rest = tail.strip_prefix("requesting tasks")?;
            let reason = match rest {
                "" => None,
                _ => Some(ProjectReason::from_text(rest.strip_prefix(": ")?)),
            };
            Some(Message::NotRequestingTasks { reason })
        }
        "Scheduler" => match tail.strip_prefix("RPC ") {
            Some(rest) => scheduler_rpc(rest),
            None => scheduler(tail.strip_prefix("request ")?),
        },
        "Master" => Some(Message::MasterFileFetchFailed {
            error: tail.strip_prefix("file fetch failed: ")?.into(),
        }),
        "Project" => {
            let secs = tail
                .strip_prefix("requested delay of ")?
                .strip_suffix(" seconds")?;
            Some(Message::ProjectRequestedDelay {
                secs: full(float, secs)?,
            })
        }
        "sched" => Some(Message::SchedRpcPending {
            reason: RpcReason::from_text(tail.strip_prefix("RPC pending: ")?),
        }),
        _ => None,
    }
}

/// After `Scheduler RPC `: 5.x `succeeded [server version %d]`.
fn scheduler_rpc(rest: &str) -> Option<Message> {
    let rest = rest.strip_prefix("succeeded")?.trim_start();
    if rest.is_empty() {
        return Some(Message::SchedulerRpcSucceeded {
            server_version: None,
        });
    }
    let version = rest.strip_prefix("[server version ")?.strip_suffix(']')?;
    Some(Message::SchedulerRpcSucceeded {
        server_version: Some(full(uint, version)?),
    })
}

/// After `Scheduler request `: `completed[: got %d new tasks]`, `succeeded: got %d new tasks`,
/// `initialization failed: %s`, `failed: %s`, `to %s failed: %s`.
fn scheduler(rest: &str) -> Option<Message> {
    if rest == "completed" {
        return Some(Message::SchedulerRequestCompleted { new_tasks: None });
    }
    if let Some(got) = rest
        .strip_prefix("completed: got ")
        .or_else(|| rest.strip_prefix("succeeded: got "))
    {
        let new_tasks = full(terminated(uint, tag(" new tasks")), got)?;
        return Some(Message::SchedulerRequestCompleted {
            new_tasks: Some(new_tasks),
        });
    }
    if let Some(error) = rest.strip_prefix("initialization failed: ") {
        return Some(Message::SchedulerRequestInitFailed {
            error: error.into(),
        });
    }
    if let Some(error) = rest.strip_prefix("failed: ") {
        return Some(Message::SchedulerRequestFailed {
            url: None,
            error: error.into(),
        });
    }
    let (url, error) = rest.strip_prefix("to ")?.split_fast(" failed: ")?;
    Some(Message::SchedulerRequestFailed {
        url: Some(CompactString::from(url)),
        error: error.into(),
    })
}

#[cfg(test)]
mod tests {
    use crate::parse::log_messages::classify;
    use crate::resource::ResourceType;
    use crate::trace::message::*;

    fn msg(body: &str) -> Message {
        classify(body).message
    }

    #[test]
    fn trickle_suffix_is_not_a_resource() {
        assert_eq!(
            msg("Requesting new tasks for NVIDIA GPU, sending trickle-up message"),
            Message::RequestingNewTasks {
                resources: vec![ResourceType::Nvidia]
            }
        );
        assert_eq!(
            msg("Reporting 1 completed tasks, requesting new tasks for CPU and NVIDIA GPU, sending trickle-up message"),
            Message::ReportingAndRequesting {
                count: 1,
                resources: vec![ResourceType::Cpu, ResourceType::Nvidia]
            }
        );
    }

    #[test]
    fn old_sched_op_debug_delay() {
        assert_eq!(
            msg("[sched_op_debug] Project requested delay of 31.000000 seconds"),
            Message::ProjectRequestedDelay { secs: 31.0 }
        );
    }

    #[test]
    fn sched_op_debug() {
        assert_eq!(
            msg("[sched_op] Deferring communication for 00:01:27"),
            Message::DeferringCommunication { secs: 87.0 }
        );
        assert_eq!(
            msg("[sched_op] Deferring communication for 1 days 00:00:10"),
            Message::DeferringCommunication { secs: 86410.0 }
        );
        assert_eq!(
            msg("[sched_op] Reason: project down"),
            Message::DeferReason {
                reason: DeferReason::ProjectDown
            }
        );
        assert_eq!(
            msg("[sched_op] NVIDIA GPU work request: 51840.00 seconds; 1.00 devices"),
            Message::SchedOpWorkRequest {
                rsc: ResourceType::Nvidia,
                secs: 51840.0,
                devices: 1.0
            }
        );
        assert_eq!(
            msg("[sched_op_debug] CUDA work request: 10.00 seconds; 1 idle GPUs"),
            Message::SchedOpWorkRequest {
                rsc: ResourceType::Nvidia,
                secs: 10.0,
                devices: 1.0
            }
        );
        assert_eq!(
            msg("[sched_op] estimated total CPU task duration: 32400 seconds"),
            Message::EstimatedTotalDuration {
                rsc: ResourceType::Cpu,
                secs: 32400.0
            }
        );
        assert_eq!(
            msg("[sched_op] Server version 703"),
            Message::ServerVersion { version: 703 }
        );
        assert_eq!(
            msg("[sched_op] sched RPC pending: Requested by user"),
            Message::SchedRpcPending {
                reason: RpcReason::RequestedByUser
            }
        );
        assert_eq!(
            msg("[sched_op] Starting scheduler request"),
            Message::StartingSchedulerRequest
        );
    }

    #[test]
    fn default_rpc_summary() {
        assert_eq!(
            msg("Sending scheduler request: To fetch work."),
            Message::SendingSchedulerRequest {
                reason: RpcReason::ToFetchWork,
                requested_secs: None,
                n_reported: None
            }
        );
        assert_eq!(
            msg("Sending scheduler request: To fetch work.  Requesting 8640 seconds of work, reporting 2 completed tasks"),
            Message::SendingSchedulerRequest {
                reason: RpcReason::ToFetchWork,
                requested_secs: Some(8640.0),
                n_reported: Some(2)
            }
        );
        assert_eq!(
            msg("Requesting new tasks for CPU and NVIDIA GPU"),
            Message::RequestingNewTasks {
                resources: vec![ResourceType::Cpu, ResourceType::Nvidia]
            }
        );
        assert_eq!(
            msg("Requesting new tasks"),
            Message::RequestingNewTasks { resources: vec![] }
        );
        assert_eq!(
            msg("Not requesting tasks: don't need (job cache full)"),
            Message::NotRequestingTasks {
                reason: Some(ProjectReason::DontNeed("job cache full".into()))
            }
        );
        assert_eq!(
            msg("Reporting 1 completed tasks"),
            Message::ReportingCompletedTasks { count: 1 }
        );
        assert_eq!(
            msg("Scheduler request completed: got 3 new tasks"),
            Message::SchedulerRequestCompleted { new_tasks: Some(3) }
        );
        assert_eq!(
            msg("Scheduler request completed"),
            Message::SchedulerRequestCompleted { new_tasks: None }
        );
        assert_eq!(
            msg("Project requested delay of 31 seconds"),
            Message::ProjectRequestedDelay { secs: 31.0 }
        );
        assert_eq!(
            msg("Scheduler request to https://x.org/ failed: timeout"),
            Message::SchedulerRequestFailed {
                url: Some("https://x.org/".into()),
                error: "timeout".into()
            }
        );
        assert_eq!(
            msg("Reporting 2 completed tasks, requesting new tasks for CPU"),
            Message::ReportingAndRequesting {
                count: 2,
                resources: vec![ResourceType::Cpu]
            }
        );
    }
}

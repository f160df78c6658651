//! The host beside the decisions, as recorded: which project each job
//! belongs to, the scheduler RPCs, and each project's REC and priority over
//! time ([`HostActivity`]), for the reporters that draw a timeline.
//!
//! Architecture Invariant: reads the trace and the recorded points only;
//! decides nothing and compares nothing.

use super::decision::Decision;
use super::recorded::RecordedPoint;
use crate::divergence::{HostActivity, RecSample, ResourceInstances, RpcMark};
use crate::policy::state::HostState;
use crate::trace::{LogEvent, Message};

/// What the trace shows of the host beside its decisions; `state` (the
/// replay's start state, when it has one) gives the resources.
pub fn host_activity(
    events: &[LogEvent],
    points: &[RecordedPoint],
    state: Option<&HostState>,
) -> HostActivity {
    let mut activity = HostActivity {
        resources: state.map(host_resources).unwrap_or_default(),
        ..HostActivity::default()
    };
    for event in events {
        let project = event.project.as_deref();
        if let (Some(project), Some(job)) = (project, job_of(&event.message)) {
            if !activity.job_projects.contains_key(job) {
                activity
                    .job_projects
                    .insert(job.to_string(), project.to_string());
            }
        }
        let Some(time) = event.time.secs() else {
            continue;
        };
        match &event.message {
            Message::EmuRpcRequest { resources } | Message::WorkRequest { resources } => {
                let request = resources
                    .iter()
                    .filter(|r| r.secs > 0.0 || r.inst > 0.0)
                    .map(|r| format!("{} {:.0} s, {:.2} inst", r.rsc.type_name(), r.secs, r.inst))
                    .collect::<Vec<_>>()
                    .join("; ");
                push_rpc(&mut activity, event, time, request);
            }
            Message::SendingSchedulerRequest { .. } => {
                push_rpc(&mut activity, event, time, String::new());
            }
            Message::EmuGotTasks { count } => {
                if let Some(last) = activity.rpcs.last_mut() {
                    last.received = Some(*count);
                }
            }
            Message::SchedulerRequestCompleted {
                new_tasks: Some(count),
            } => {
                let last = activity
                    .rpcs
                    .iter_mut()
                    .rev()
                    .find(|rpc| Some(rpc.project.as_str()) == project);
                if let Some(last) = last {
                    last.received = Some(*count);
                }
            }
            _ => {}
        }
    }
    for point in points {
        match &point.decision {
            Decision::Priority(entries) => {
                activity.rec.extend(entries.iter().map(|e| RecSample {
                    time: point.time,
                    project: e.project.clone(),
                    rec: None,
                    prio: Some(e.prio),
                }));
            }
            Decision::Rec(entries) => {
                activity.rec.extend(entries.iter().map(|e| RecSample {
                    time: point.time,
                    project: e.project.clone(),
                    rec: Some(e.new),
                    prio: None,
                }));
            }
            _ => {}
        }
    }
    activity
}

/// Notes the RPC that `event` begins, once per project and moment (the
/// real client prints its request, then that it sends it).
fn push_rpc(activity: &mut HostActivity, event: &LogEvent, time: f64, request: String) {
    let project = event.project.as_deref();
    let same = activity
        .rpcs
        .last()
        .is_some_and(|last| last.time == time && Some(last.project.as_str()) == project);
    if same {
        if let Some(last) = activity.rpcs.last_mut().filter(|l| l.request.is_empty()) {
            last.request = request;
        }
        return;
    }
    activity.rpcs.push(RpcMark {
        time,
        time_label: super::recorded::time_label(&event.time),
        project: project.unwrap_or("---").to_string(),
        request,
        received: None,
    });
}

/// The host's processing resources: its usable CPUs, then each GPU type.
pub fn host_resources(state: &HostState) -> Vec<ResourceInstances> {
    let mut out = vec![ResourceInstances {
        name: "CPU".to_string(),
        instances: state.n_usable_cpus(),
    }];
    out.extend(state.host.coprocs.iter().map(|cp| ResourceInstances {
        name: cp.rsc_type.type_name().to_string(),
        instances: cp.count,
    }));
    out
}

/// The job a message names, for the messages that run or list a job.
fn job_of(message: &Message) -> Option<&str> {
    match message {
        Message::StartingTask { job }
        | Message::AddToRunList { job, .. }
        | Message::Scheduling { job, .. }
        | Message::SchedulingRunList { job, .. }
        | Message::EmuTaskStart { job, .. }
        | Message::CoprocAssign { job, .. }
        | Message::ResultStateChange { job, .. }
        | Message::ComputationFinished { job } => Some(job.as_str()),
        _ => None,
    }
}

//! Handling of a successful scheduler reply (spec §7.12, §7.13, §7.14):
//! per-resource backoffs, `sched_req_no_work`, the project RPC backoff and
//! the request delay; and which project has results due for a report RPC
//! (§7.1 step 6).
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use super::backoff::{clear_resource_backoff, resource_backoff, set_min_rpc_time, ResourceBackoff};
use super::params::Params;
use super::state::{HostState, ProjectIdx, RpcReason, RscIdx};
use super::work_fetch::RscRequest;
use super::PolicyError;
use serde::Serialize;

/// The policy-relevant content of a scheduler reply.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SchedReply {
    /// Resource type of every new job received.
    pub new_job_rsc: Vec<RscIdx>,
    /// `<request_delay>` (0 = none).
    pub request_delay: f64,
    /// A message containing "too recent".
    pub too_recent: bool,
    /// The reply went through the client's own handler
    /// (CLIENT_STATE::handle_scheduler_reply: a real client), which keeps
    /// `sched_req_no_work`; the emulator's simulate_rpc calls only
    /// WORK_FETCH::handle_reply and leaves those flags alone.
    pub client_handler: bool,
}

/// What handling the reply did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplyOutcome {
    /// Resource backoffs applied (`backing off <rsc> <secs> sec`).
    pub backoffs: Vec<(RscIdx, ResourceBackoff)>,
    /// Resources whose backoff was cleared because a job arrived.
    pub cleared: Vec<RscIdx>,
}

/// Mirrors WORK_FETCH::handle_reply() in client/work_fetch.cpp and the
/// policy steps of CLIENT_STATE::handle_scheduler_reply() in
/// client/cs_scheduler.cpp (§7.12, §7.14 steps 6, 9, 10). `request` is what
/// was sent; `draw(rsc, interval)` supplies a uniform value in [0, 1] for
/// each resource that backs off, in resource order, and is called only then
/// (the client draws `drand()` inside `resource_backoff()`); `interval` is
/// the resource's doubling interval before this backoff. The pending reason of the
/// project decides escalation ((artifact) in the real client only
/// work-fetch RPCs carry "need work"; the emulator marks report RPCs
/// "results due", §7.12). Clears the pending reason afterwards.
pub fn handle_scheduler_reply(
    state: &mut HostState,
    project: ProjectIdx,
    request: &[RscRequest],
    reply: &SchedReply,
    now: f64,
    draw: &mut dyn FnMut(RscIdx, f64) -> f64,
    params: &Params,
) -> Result<ReplyOutcome, PolicyError> {
    state.validate()?;
    let n_rsc = state.n_rsc();
    let Some(p) = state.projects.get_mut(project) else {
        return Err(PolicyError::InvalidState(format!("no project {project}")));
    };
    let got: Vec<bool> = (0..n_rsc).map(|r| reply.new_job_rsc.contains(&r)).collect();
    let requested: Vec<bool> = (0..n_rsc)
        .map(|r| request.get(r).is_some_and(|req| req.req_secs > 0.0))
        .collect();
    let asked: Vec<bool> = (0..n_rsc)
        .map(|r| {
            request
                .get(r)
                .is_some_and(|req| req.req_secs > 0.0 || req.req_instances > 0.0)
        })
        .collect();
    if reply.client_handler && !reply.too_recent {
        // client/cs_scheduler.cpp: every job received counts for the CPU
        // (got_work_for_rsc[0]) and for its own GPU type; a resource asked
        // for and not received is marked. §7.14 step 6 has only the second
        // half. (gpu_no_gpu_work_backoff's CpuOnly asks CPU+GPU, gets CPU
        // jobs and at 03:12 still counts as a "better proj" for the GPU: the
        // emulator never calls this handler, so the flag stays clear.)
        let any_job = !reply.new_job_rsc.is_empty();
        for (r, prsc) in p.rsc.iter_mut().enumerate() {
            if got[r] || (r == 0 && any_job) {
                prsc.sched_req_no_work = false;
            } else if asked[r] {
                prsc.sched_req_no_work = true;
            }
        }
    }
    let escalates = matches!(
        p.sched_rpc_pending,
        Some(RpcReason::ResultsDue | RpcReason::NeedWork | RpcReason::TrickleUp)
    );
    let mut outcome = ReplyOutcome {
        backoffs: Vec::new(),
        cleared: Vec::new(),
    };
    for (r, prsc) in p.rsc.iter_mut().enumerate() {
        if requested[r] && !got[r] && prsc.backoff_time < now && escalates {
            let u = draw(r, prsc.backoff_interval);
            outcome
                .backoffs
                .push((r, resource_backoff(prsc, now, u, params)?));
        }
        if got[r] {
            clear_resource_backoff(prsc);
            outcome.cleared.push(r);
        }
    }
    p.request_if_idle_and_uploading = false;
    p.nrpc_failures = 0;
    p.min_rpc_time = 0.0;
    if reply.request_delay > 0.0 {
        set_min_rpc_time(p, now + reply.request_delay);
    }
    p.sched_rpc_pending = None;
    Ok(outcome)
}

/// A reported result is delayed at most this long after completion
/// (`MAX_REPORT_DELAY`, client/cs_scheduler.cpp).
pub const MAX_REPORT_DELAY: f64 = 3600.0;
/// Results are reported once their deadline is this close
/// (`REPORT_DEADLINE_CUSHION`, one day; or `work_buf_min` if larger).
pub const REPORT_DEADLINE_CUSHION: f64 = 86400.0;
/// A project with this many results ready is contacted
/// (`RESULT_REPORT_IF_AT_LEAST_N`, client/client_state.h).
pub const RESULT_REPORT_IF_AT_LEAST_N: usize = 64;

/// Mirrors CLIENT_STATE::find_project_with_overdue_results() in
/// client/cs_scheduler.cpp (§7.1 step 6): the first project, in job order,
/// with a result ready to report that is due — the project asked for "no
/// new tasks" (its results would otherwise wait for a work fetch that never
/// comes), the deadline is within `max(one day, work_buf_min)`, the result
/// completed more than [`MAX_REPORT_DELAY`] ago, or the project has
/// [`RESULT_REPORT_IF_AT_LEAST_N`] results ready. Projects in RPC backoff or
/// suspended are skipped. `completed[j]` is job `j`'s completion time, when
/// known. (Per-result, per-app and cc_config `report_results_immediately`
/// and sporadic connections are not modelled.)
pub fn project_with_overdue_results(
    state: &HostState,
    completed: &[Option<f64>],
    now: f64,
    params: &Params,
) -> Option<ProjectIdx> {
    let cushion = REPORT_DEADLINE_CUSHION.max(state.work_buf_min(params));
    let mut n_ready = vec![0usize; state.projects.len()];
    for (j, job) in state.jobs.iter().enumerate() {
        if !job.ready_to_report {
            continue;
        }
        let Some(project) = state.projects.get(job.project) else {
            continue;
        };
        if project.min_rpc_time > now || project.suspended_via_gui {
            continue;
        }
        let late_report = completed
            .get(j)
            .copied()
            .flatten()
            .is_some_and(|done| now > done + MAX_REPORT_DELAY);
        if project.dont_request_more_work || now > job.report_deadline - cushion || late_report {
            return Some(job.project);
        }
        n_ready[job.project] += 1;
        if n_ready[job.project] >= RESULT_REPORT_IF_AT_LEAST_N {
            return Some(job.project);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::rr_sim::tests::seed_two_projects;

    fn request(cpu: f64, gpu: f64) -> Vec<RscRequest> {
        vec![
            RscRequest {
                req_secs: cpu,
                ..RscRequest::default()
            },
            RscRequest {
                req_secs: gpu,
                ..RscRequest::default()
            },
        ]
    }

    /// §7.12 gpu_no_gpu_work_backoff: asked CPU and GPU, got only CPU jobs, pending "need work":
    /// GPU backs off 600 × (0.5 + u); u = 0.5 → 600 s; CPU backoff cleared; no_work flags cleared.
    #[test]
    fn asked_and_not_got_backs_off() {
        let mut state = seed_two_projects();
        state.projects[1].sched_rpc_pending = Some(RpcReason::NeedWork);
        state.projects[1].rsc[0].backoff_interval = 1200.0;
        let reply = SchedReply {
            new_job_rsc: vec![0, 0],
            request_delay: 60.0,
            too_recent: false,
            client_handler: true,
        };
        let out = handle_scheduler_reply(
            &mut state,
            1,
            &request(100.0, 100.0),
            &reply,
            1000.0,
            &mut |_, _| 0.5,
            &Params::default(),
        )
        .unwrap();
        assert_eq!(out.backoffs.len(), 1);
        assert_eq!((out.backoffs[0].0, out.backoffs[0].1.secs), (1, 600.0));
        assert_eq!(out.cleared, vec![0]);
        assert_eq!(state.projects[1].rsc[0].backoff_interval, 0.0);
        // cs_scheduler.cpp: CPU jobs count for the CPU; the GPU was asked
        // for and not received.
        assert!(!state.projects[1].rsc[0].sched_req_no_work);
        assert!(state.projects[1].rsc[1].sched_req_no_work);
        assert_eq!(state.projects[1].min_rpc_time, 1060.0);
        assert_eq!(state.projects[1].sched_rpc_pending, None);
    }

    /// The emulator (sim.cpp simulate_rpc) never runs the client's reply
    /// handler: `sched_req_no_work` stays as it was.
    #[test]
    fn emulator_replies_leave_no_work_flags_alone() {
        let mut state = seed_two_projects();
        state.projects[1].sched_rpc_pending = Some(RpcReason::NeedWork);
        let reply = SchedReply {
            new_job_rsc: vec![0],
            ..SchedReply::default()
        };
        handle_scheduler_reply(
            &mut state,
            1,
            &request(100.0, 100.0),
            &reply,
            1000.0,
            &mut |_, _| 0.5,
            &Params::default(),
        )
        .unwrap();
        assert!(!state.projects[1].rsc[1].sched_req_no_work);
    }

    /// §7.12 (artifact): a piggyback on an RPC with no escalating reason does not back off.
    #[test]
    fn piggyback_without_reason_does_not_back_off() {
        let mut state = seed_two_projects();
        let reply = SchedReply::default();
        let out = handle_scheduler_reply(
            &mut state,
            1,
            &request(0.0, 100.0),
            &reply,
            1000.0,
            &mut |_, _| 0.5,
            &Params::default(),
        )
        .unwrap();
        assert!(out.backoffs.is_empty());
    }

    mod overdue {
        use super::super::*;
        use crate::policy::state::tests::seed_host;
        use crate::policy::state::{HostState, Job, Project, ResourceUsage};

        fn state_with_done_job(nnw: bool) -> HostState {
            let mut state = HostState::new(seed_host());
            let mut project = Project::new("P", 100.0, 1);
            project.dont_request_more_work = nnw;
            state.projects.push(project);
            let mut job = Job::new("P_1", 0, "a", ResourceUsage::cpu(1.0, 1e9), 1e12);
            job.ready_to_report = true;
            job.report_deadline = 10.0 * 86400.0;
            state.jobs.push(job);
            state
        }

        #[test]
        fn no_new_tasks_reports_at_once() {
            // suspended_and_nnw 02:00:00: Nnw_init_5_0 finishes and Nnw, which
            // has "no new tasks", is contacted in the same step
            // ("[Nnw] doing RPC to report results").
            let params = Params::default();
            let state = state_with_done_job(true);
            assert_eq!(
                project_with_overdue_results(&state, &[Some(7200.0)], 7200.0, &params),
                Some(0)
            );
        }

        #[test]
        fn otherwise_a_result_waits_an_hour_or_until_the_deadline_nears() {
            let params = Params::default();
            let mut state = state_with_done_job(false);
            let done = [Some(7200.0)];
            assert_eq!(
                project_with_overdue_results(&state, &done, 7200.0, &params),
                None
            );
            assert_eq!(
                project_with_overdue_results(&state, &done, 10800.0, &params),
                None
            );
            assert_eq!(
                project_with_overdue_results(&state, &done, 10800.5, &params),
                Some(0)
            );
            // Deadline 10 days, cushion max(1 day, work_buf_min).
            let near = 9.0 * 86400.0 + 1.0;
            assert_eq!(
                project_with_overdue_results(&state, &[None], near, &params),
                Some(0)
            );
            state.projects[0].min_rpc_time = near + 1.0;
            assert_eq!(
                project_with_overdue_results(&state, &[None], near, &params),
                None
            );
        }
    }
}

//! The release catalogue beyond the replayed rules: client changes after
//! 7.2.42 that alter which job runs or what is fetched, outside what the
//! engine recomputes (memory and swap checks, project fetch flags,
//! suspension, reply handling), each with the log lines that show the
//! decision it alters.
//!
//! The replayed rule changes are [`crate::policy::profile::RULE_CHANGES`]
//! (a switch of the engine each). The changes here are named, not
//! recomputed: `--since-changed` lists those whose lines the log shows and
//! under which the log's release behaves otherwise than today's client,
//! with the commit and the first release that behaves differently. Read
//! from BOINC's history (client/*.cpp between client_release/7.2/7.2.42
//! and master c5c6cb79b9; `git tag --contains` for each first release,
//! back-ports to a release branch included).
//!
//! Architecture Invariant: data and pure predicates over log messages.

pub use crate::divergence::NotedHit;
use crate::policy::profile::{Release, UNRELEASED};
use crate::trace::message::{Message, ProjectReason, RpcReason, SuspendReason};
use crate::trace::LogEvent;

/// One change the engine does not recompute.
pub struct NotedChange {
    /// Commit(s), date and subject.
    pub change: &'static str,
    /// The client function(s) that hold the rule.
    pub function: &'static str,
    /// The releases that behave otherwise than today's client:
    /// `differs.0 <= release < differs.1`; `differs.1` is the first
    /// release that behaves as today.
    pub differs: (Release, Release),
    /// Before and after.
    pub rule: &'static str,
    /// The log lines that show the decision.
    pub lines: &'static str,
    /// True for a message that shows the decision.
    pub shows: fn(&Message) -> bool,
}

const OLDEST: Release = Release(7, 0, 0);

fn trigger_has(message: &Message, text: &str) -> bool {
    matches!(message, Message::RequestCpuReschedule { trigger } if trigger.as_str().contains(text))
}

fn suspended_for(message: &Message, reason: &SuspendReason) -> bool {
    matches!(message, Message::SuspendingComputation { reason: r } if r == reason)
}

fn project_reason(message: &Message, wanted: &ProjectReason) -> bool {
    matches!(message, Message::WorkFetchRec { reason: Some(r), .. } if r == wanted)
}

fn ram_skip(message: &Message) -> bool {
    matches!(
        message,
        Message::TooBig { .. } | Message::SkippingRss { .. } | Message::MemUsagePreempt { .. }
    ) || trigger_has(message, "RAM")
}

/// The swap limit's kills (the swap skip itself is replayed:
/// `swap_check_vm_size`, not named twice).
fn swap_figure(message: &Message) -> bool {
    matches!(
        message,
        Message::SwapLimitExceeded { .. } | Message::Killing { .. }
    )
}

/// The catalogue, oldest first release first.
pub const NOTED_CHANGES: &[NotedChange] = &[
    NotedChange {
        change: "commit 403afa465c (2014-02-07) \"work fetch policy tweak\"",
        function: "cs_scheduler.cpp CLIENT_STATE::scheduler_rpc_poll",
        differs: (OLDEST, Release(7, 3, 1)),
        rule: "a project that started an upload in the last 300 s was passed over for work \
               fetch unless some instance was idle; since, always while it uploads (b076a947fc \
               then lets one fetch through per finished task)",
        lines: "[work_fetch] deferring work fetch; upload active",
        shows: |m| matches!(m, Message::DeferringWorkFetchUploadActive),
    },
    NotedChange {
        change: "commit b076a947fc (2014-03-09) \"work fetch tweak to avoid starvation\"",
        function: "cs_scheduler.cpp CLIENT_STATE::scheduler_rpc_poll, cs_apps.cpp app_finished",
        differs: (Release(7, 3, 1), Release(7, 3, 11)),
        rule: "a project uploading was never asked for work; since, it is once per task of its \
               that finished since its last reply, when an instance is idle",
        lines: "[work_fetch] deferring work fetch; upload active",
        shows: |m| matches!(m, Message::DeferringWorkFetchUploadActive),
    },
    NotedChange {
        change: "commit fad7c4c182 (2014-02-11) \"fix bug that caused spurious 'Request CPU \
                 reschedule: RAM usage limit exceeded'\"",
        function: "app_control.cpp ACTIVE_TASK_SET::check_rsc_limits_exceeded",
        differs: (OLDEST, Release(7, 3, 2)),
        rule: "the RAM of non-CPU-intensive tasks counted toward the total that forces a \
               reschedule; since, it does not",
        lines: "[cpu_sched_debug] Request CPU reschedule: RAM usage limit exceeded",
        shows: |m| trigger_has(m, "RAM usage limit"),
    },
    NotedChange {
        change: "commit bed5baead4 (2014-07-03) \"add <dont_send_work> element to scheduler \
                 request\" (back-port cac542a2cd)",
        function: "cs_scheduler.cpp CLIENT_STATE::make_scheduler_request",
        differs: (OLDEST, Release(7, 4, 9)),
        rule: "with no new tasks set, an RPC made only to report could still bring jobs; since, \
               the request says dont_send_work and the server sends none",
        lines: "[work_fetch] ... can't request work: \"no new tasks\" requested via Manager",
        shows: |m| project_reason(m, &ProjectReason::NoNewTasks),
    },
    NotedChange {
        change: "commit 34e97a5048 (2014-07-25) \"add <project_max_concurrent> option for \
                 app_config.xml\" (back-port 94564328ab)",
        function: "app_config.cpp, result.h max_concurrent_exceeded",
        differs: (OLDEST, Release(7, 4, 9)),
        rule: "only an app's max_concurrent limited its running tasks; since, a project-wide \
               limit does too (work fetch knows it from 7.16.1)",
        lines: "[cpu_sched_debug] skipping X; max concurrent limit N reached",
        shows: |m| {
            matches!(
                m,
                Message::SkippingMaxConcurrent { .. } | Message::ProjectMaxConcurrent { .. }
            )
        },
    },
    NotedChange {
        change: "commits 2bb3e74782, ed961aace2 and 2b2b04188a (2014-11-10) (needs_network \
                 tasks, reschedule on network resume, GPU suspend of real GPUs only; back-ports \
                 f26cfeb1f6, edb2036982, 0ef9b81f41)",
        function: "result.cpp RESULT::runnable, client_state.cpp poll_slow_events, app.cpp",
        differs: (OLDEST, Release(7, 4, 28)),
        rule: "a task that needs the network stayed runnable for about 5 minutes after a GUI \
               RPC with the network suspended, and GPU suspension stopped every coprocessor; \
               since, such a task is unrunnable while transfers are suspended, a reschedule \
               follows the network's return, and only real GPUs are suspended",
        lines: "Suspending GPU computation - REASON; Suspending network activity",
        shows: |m| {
            matches!(
                m,
                Message::SuspendingGpuComputation { .. } | Message::SuspendingNetwork { .. }
            )
        },
    },
    NotedChange {
        change: "commit afef39ed6f (2014-12-21) \"preserve min RPC time across client restart\" \
                 (back-port a98f6e1134), undone by d2b07c2ec1 (7.6.8)",
        function: "project.cpp PROJECT::parse_state",
        differs: (Release(7, 4, 38), Release(7, 6, 8)),
        rule: "these releases kept a project's requested delay and RPC backoff (min_rpc_time) \
               across a restart; before and since, a restart forgets them",
        lines: "[sched_op] Deferring communication for N sec; can't request work: scheduler RPC \
                backoff",
        shows: |m| {
            matches!(m, Message::DeferringCommunication { .. })
                || project_reason(m, &ProjectReason::SchedulerRpcBackoff)
        },
    },
    NotedChange {
        change: "commits fb31a869ed (2015-01-05) \"add <dont_suspend_nci>\" (back-port \
                 ed71a1638c, 7.4.38) and f5784c0881 (2016-01-29) \"on batteries, don't \
                 suspend NCI tasks\" (back-port f808e39dd2)",
        function: "app_control.cpp ACTIVE_TASK_SET::suspend_all",
        differs: (OLDEST, Release(7, 6, 23)),
        rule: "suspending computation on batteries stopped non-CPU-intensive tasks too; since, \
               they keep running",
        lines: "Suspending computation - on batteries",
        shows: |m| suspended_for(m, &SuspendReason::OnBatteries),
    },
    NotedChange {
        change: "commit 656070aa6e (2015-06-14) \"fix bug where project boolean attributes are \
                 stuck at true\" (back-port ee5ccb349e)",
        function: "scheduler_op.cpp SCHEDULER_REPLY::parse",
        differs: (OLDEST, Release(7, 6, 3)),
        rule: "once a reply set non_cpu_intensive (or ended) it stayed set; since, a reply \
               without it clears it, and the project is fetched from normally again",
        lines: "[work_fetch] ... can't request work: non CPU intensive",
        shows: |m| project_reason(m, &ProjectReason::NonCpuIntensive),
    },
    NotedChange {
        change: "commit 056baff691 (2016-01-28) \"reduce delay restarting tasks after exclusive \
                 app exits\" (back-port 7be19173c4)",
        function: "cs_prefs.cpp CLIENT_STATE::check_suspend_processing",
        differs: (OLDEST, Release(7, 6, 23)),
        rule: "computation stayed suspended 30 s after an exclusive app exited; since, 15 s",
        lines: "Suspending computation - an exclusive app is running",
        shows: |m| suspended_for(m, &SuspendReason::ExclusiveAppRunning),
    },
    NotedChange {
        change: "commit 8c44b2f165 (2016-08-15) \"fix bug that could cause idle CPUs/GPUs\", \
                 with bde961e8bb (2017-03-06) \"fix estimate of job RAM usage\"",
        function: "cpu_sched.cpp PROC_RESOURCES::schedule (RAM use measured in app.cpp)",
        differs: (OLDEST, Release(7, 8, 0)),
        rule: "a job skipped last time as too big for the RAM still took its CPUs or GPU in the \
               run list, so a one-CPU host could run nothing; since, it takes none and more \
               jobs are listed (and a job with no measured RAM is estimated by its \
               rsc_memory_bound, not 0)",
        lines: "[cpu_sched_debug] enforce: result X can't run, too big A MB > B MB",
        shows: ram_skip,
    },
    NotedChange {
        change: "commit c3eb84db1e (2017-03-06) \"add report_results_immediately config on \
                 project and app levels\"",
        function: "cs_scheduler.cpp CLIENT_STATE::find_project_with_overdue_results, \
                   app_config.cpp",
        differs: (OLDEST, Release(7, 8, 0)),
        rule: "only cc_config's report_results_immediately made a report RPC at once; since, a \
               project's or app's app_config.xml can, and each such RPC may ask for work",
        lines: "Sending scheduler request: To report completed tasks.",
        shows: |m| {
            matches!(m, Message::SendingSchedulerRequest { reason, .. }
                if *reason == RpcReason::ToReportCompletedTasks)
        },
    },
    NotedChange {
        change: "commit 4046298a99 (2021-11-09) \"fix overly aggressive project-wide file \
                 transfer backoff\"",
        function: "client_types.cpp FILE_XFER_BACKOFF::file_xfer_failed",
        differs: (OLDEST, Release(7, 20, 0)),
        rule: "each transfer failure past the third lengthened the project-wide backoff, up to \
               hours, and a stalled download keeps the project from fetching; since, failures \
               while backed off are not counted",
        lines: "[work_fetch] ... can't request work: some download is stalled",
        shows: |m| project_reason(m, &ProjectReason::DownloadStalled),
    },
    NotedChange {
        change: "commits 3b1ebfd1b0 (2022-08-02) \"not in use (niu) prefs\" and ac52f73953 \
                 (2022-07-29)",
        function: "cs_prefs.cpp CLIENT_STATE::check_suspend_processing",
        differs: (OLDEST, Release(7, 22, 0)),
        rule: "one set of CPU limits held whether or not the computer was in use; since, \
               separate not-in-use limits apply and a 'CPU is busy' suspension lasts at least \
               20 s",
        lines: "Suspending computation - CPU is busy",
        shows: |m| suspended_for(m, &SuspendReason::CpuIsBusy),
    },
    NotedChange {
        change: "commits 5e0d0db47c (2024-06-06) \"don't start jobs that will exceed RAM\" \
                 (back-port 1897e11d8b, 8.0.3) and ceb51136e7 (2024-06-28) \"'strict memory \
                 bound' projects\" (back-port 056b84c7f6)",
        function: "cpu_sched.cpp CLIENT_STATE::enforce_run_list (the flag read in \
                   scheduler_op.cpp)",
        differs: (OLDEST, Release(8, 0, 4)),
        rule: "a job's RAM estimate was its measured RAM, else its app version's largest, else \
               rsc_memory_bound (8.0.3: the largest of these for every project); since, the \
               workunit's bound is a floor only for projects that send strict_memory_bound",
        lines: "[cpu_sched_debug] skipping X: estimated WSS (A MB) exceeds RAM left (B MB)",
        shows: ram_skip,
    },
    NotedChange {
        change: "commits 064ae21361 (8.2.0) and d9b266a544 (back-port c098c0c30a) \"job \
                 resource usage\"",
        function: "cs_scheduler.cpp CLIENT_STATE::handle_scheduler_reply, result.cpp",
        differs: (Release(8, 2, 0), Release(8, 2, 9)),
        rule: "these releases ignored the CPU and GPU usage a reply sent for an app version's \
               jobs already on the host; before and since, a task not running takes it",
        lines: "(no line: the usage shows in the run list's `(N CPU + M GPU)`)",
        shows: |m| matches!(m, Message::JobListEntry { .. }),
    },
    NotedChange {
        change: "commits c8925779bc (2026-05-30), b3cff490d5, 898762d109, 41577c6c3e, \
                 77155c7439 (the 8.2.14 RAM and swap overhaul)",
        function: "app.cpp get_memory_usage, app_control.cpp check_rsc_limits_exceeded, \
                   cpu_sched.cpp swap_limit_check and enforce_run_list",
        differs: (OLDEST, Release(8, 2, 14)),
        rule: "swap was not enforced, RAM overuse was noticed at the next 60-s pass and a job \
               over the RAM left was quit; since, swap use past vm_max_used_frac kills tasks \
               (least work lost first, revived earliest deadline first), RAM and swap are \
               checked every 10 s, and a job over the RAM left is suspended in memory",
        lines: "[mem_usage] job using too much memory, will preempt by quit; Request CPU \
                reschedule: RAM usage limit exceeded",
        shows: ram_skip,
    },
    NotedChange {
        change: "commit 2743c05b39 (2026-06-16) \"client (linux): measure swap space usage of \
                 BOINC processes\"",
        function: "lib/procinfo_unix.cpp, app.cpp, cpu_sched.cpp",
        differs: (Release(8, 2, 14), UNRELEASED),
        rule: "on Linux a task's swap was its virtual size, so a task with a large address space \
               was skipped for swap or killed; since, its VmSwap is measured",
        lines: "[cpu_sched_debug] virtual size limit exceeded: A GB > B GB; killing X (the \
                swap skip is replayed: swap_check_vm_size)",
        shows: swap_figure,
    },
];

/// The catalogued changes the `events` (those `reports` keeps) show, under
/// which `release` behaves otherwise than today's client.
pub fn hits(
    release: Release,
    events: &[LogEvent],
    reports: impl Fn(usize) -> bool,
) -> Vec<NotedHit> {
    let mut out = Vec::new();
    for change in NOTED_CHANGES {
        if !(change.differs.0 <= release && release < change.differs.1) {
            continue;
        }
        let mut shown = events
            .iter()
            .enumerate()
            .filter(|(idx, event)| reports(*idx) && (change.shows)(&event.message));
        let Some((_, first)) = shown.next() else {
            continue;
        };
        out.push(NotedHit {
            change: change.change.to_string(),
            function: change.function.to_string(),
            first: change.differs.1.first_label(),
            rule: change.rule.to_string(),
            lines: 1 + shown.count(),
            at: first.location.to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_change_differs_over_a_span_and_shows_in_some_line() {
        for change in NOTED_CHANGES {
            assert!(change.differs.0 < change.differs.1, "{}", change.change);
            assert!(!change.lines.is_empty() && !change.rule.is_empty());
        }
    }

    #[test]
    fn a_ram_skip_names_the_run_list_fix_for_a_release_before_it_only() {
        let events = crate::replay::test_events(
            "08-Aug-2016 21:20:47 [ATLAS@home] [cpu_sched_debug] enforce: result X_0 can't run, \
             too big 2384.19MB > 1504.90MB\n",
            crate::trace::FileKind::EventLog,
        );
        let before = hits(Release(7, 7, 0), &events, |_| true);
        assert!(before
            .iter()
            .any(|h| h.change.contains("8c44b2f165") && h.first == "7.8.0"));
        let after = hits(Release(7, 8, 0), &events, |_| true);
        assert!(!after.iter().any(|h| h.change.contains("8c44b2f165")));
    }
}

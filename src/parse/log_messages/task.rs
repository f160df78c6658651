//! Task life-cycle lines: `[task]`/`[task_debug]` (task_debug and the
//! emulator's task-start stand-ins), and the untagged default-level task,
//! suspend/resume, user-action and abort lines (spec §3.10, §3.14, §7).

use super::cpu_sched::task_start;
use super::lex::{first_word, float, full, int, int32, name_until, Res};
use crate::parse::text::FastSplit;
use crate::trace::message::{Message, ResultState, StartAction, SuspendReason, TaskState};
use compact_str::CompactString;
use nom::bytes::complete::tag;
use nom::combinator::{map, rest};
use nom::sequence::{preceded, terminated, tuple};

/// `%s for %s from %s` after `task_state=` / `result state=`.
fn state_for_from(input: &str) -> Res<'_, (&str, CompactString, CompactString)> {
    tuple((
        super::lex::take_until(" for "),
        preceded(tag(" for "), name_until(" from ")),
        preceded(tag(" from "), map(rest, CompactString::from)),
    ))(input)
}

/// Classifies the rest of a `[task]` or `[task_debug]` body.
pub(super) fn tagged(text: &str) -> Option<Message> {
    if let Some(rest) = text.strip_prefix("task_state=") {
        let (state, job, from) = full(state_for_from, rest)?;
        return Some(Message::TaskStateChange {
            state: TaskState::from_text(state),
            job,
            from,
        });
    }
    let (word, tail) = first_word(text);
    match word {
        "result" => {
            let (state, job, from) = full(state_for_from, tail.strip_prefix("state=")?)?;
            Some(Message::ResultStateChange {
                state: ResultState::from_text(state),
                job,
                from,
            })
        }
        "Process" => process_exited(tail.strip_prefix("for ")?),
        "exit" => {
            let (code, text) = tail.strip_prefix("code ")?.split_fast(" (0x")?;
            let (_, text) = text.split_fast("): ")?;
            Some(Message::TaskExitCode {
                code: full(int, code)?,
                text: text.into(),
            })
        }
        "process" => {
            if let Some(status) = tail.strip_prefix("exited with status ") {
                return Some(Message::TaskExitStatus {
                    status: full(int, status)?,
                });
            }
            let signal = tail.strip_prefix("got signal ")?;
            Some(Message::TaskGotSignal {
                signal: full(int, signal)?,
            })
        }
        "ACTIVE_TASK::start():" => {
            let pid = tail.strip_prefix("forked process: pid ")?;
            Some(Message::ForkedProcess {
                pid: full(int, pid)?,
            })
        }
        "task" => {
            let group = tail.strip_prefix("is running in processor group ")?;
            Some(Message::ProcessorGroup {
                group: full(int, group)?,
            })
        }
        "requesting" => Some(Message::RequestingTasksTo {
            action: tail.strip_prefix("tasks to ")?.into(),
        }),
        "all" => (tail == "tasks exited").then_some(Message::AllTasksExited),
        "abort" | "quit" => Some(Message::RequestTimedOut {
            abort: word == "abort",
            job: tail
                .strip_prefix("request timed out, killing task ")?
                .into(),
        }),
        "Starting" | "Restarting" | "Resuming" => {
            if tail.contains(" using ") {
                return task_start(word, tail);
            }
            let action = StartAction::from_text(word);
            let rest = tail.strip_prefix("task ")?;
            match rest.rsplit_fast(": FLOPS left ") {
                Some((job, flops)) => Some(Message::EmuTaskStart {
                    action,
                    job: job.into(),
                    gflops_left: Some(full(terminated(float, tag("G")), flops)?),
                }),
                None => Some(Message::EmuTaskStart {
                    action,
                    job: rest.into(),
                    gflops_left: None,
                }),
            }
        }
        _ => None,
    }
}

/// After `Process for `: `%s exited`, `%s exited, exit code %lu, task state %d`,
/// `%s exited, status %d, task state %d`.
fn process_exited(text: &str) -> Option<Message> {
    if let Some(job) = text.strip_suffix(" exited") {
        return Some(Message::ProcessExited {
            job: job.into(),
            status: None,
            task_state: None,
        });
    }
    let (job, rest) = text.split_fast(" exited, ")?;
    let numbers = rest
        .strip_prefix("exit code ")
        .or_else(|| rest.strip_prefix("status "))?;
    let (status, task_state) = full(tuple((int, preceded(tag(", task state "), int32))), numbers)?;
    Some(Message::ProcessExited {
        job: job.into(),
        status: Some(status),
        task_state: Some(task_state),
    })
}

/// Untagged task, suspend/resume, user-action and abort lines opening with
/// `word`; `None` if none matches.
pub(super) fn untagged(word: &str, tail: &str) -> Option<Message> {
    match word {
        "Computation" => {
            let job = tail.strip_prefix("for task ")?.strip_suffix(" finished")?;
            Some(Message::ComputationFinished { job: job.into() })
        }
        "Starting" => {
            if let Some(job) = tail.strip_prefix("task ") {
                if !job.contains(' ') {
                    return Some(Message::StartingTask { job: job.into() });
                }
            }
            if tail.contains(" using ") {
                return task_start(word, tail);
            }
            (!tail.contains(' ') && !tail.is_empty())
                .then(|| Message::StartingTask { job: tail.into() })
        }
        "Restarting" | "Resuming" => {
            if tail.contains(" using ") {
                return task_start(word, tail);
            }
            match tail {
                "computation" => Some(Message::ResumingComputation),
                "GPU computation" => Some(Message::ResumingGpuComputation),
                "network activity" => Some(Message::ResumingNetwork),
                "file transfers" => Some(Message::ResumingFileTransfers),
                _ => None,
            }
        }
        "Suspending" => {
            let (what, reason) = tail.split_fast(" - ")?;
            let reason = SuspendReason::from_text(reason);
            match what {
                "computation" => Some(Message::SuspendingComputation { reason }),
                "GPU computation" => Some(Message::SuspendingGpuComputation { reason }),
                "network activity" => Some(Message::SuspendingNetwork { reason }),
                "file transfers" => Some(Message::SuspendingFileTransfers { reason }),
                _ => None,
            }
        }
        "Task" => task_sentence(tail),
        "task" => {
            let (job, action) = tail.strip_suffix(" by user")?.rsplit_fast(' ')?;
            let job = CompactString::from(job);
            match action {
                "aborted" => Some(Message::TaskAbortedByUser { job }),
                "suspended" => Some(Message::TaskSuspendedByUser { job }),
                "resumed" => Some(Message::TaskResumedByUser { job }),
                _ => None,
            }
        }
        "Aborting" => {
            let rest = tail.strip_prefix("task ")?;
            if let Some(job) = rest.strip_suffix("; not started and deadline has passed") {
                return Some(Message::AbortingTaskDeadlinePassed { job: job.into() });
            }
            let (job, reason) = rest.split_fast(": ")?;
            Some(Message::AbortingTask {
                job: job.into(),
                reason: reason.into(),
            })
        }
        _ => None,
    }
}

/// After `Task `: `%s postponed for %.f seconds: %s`, `%s is %.2f days overdue; …`,
/// `%s: no shared memory segment`.
fn task_sentence(tail: &str) -> Option<Message> {
    if let Some(job) = tail.strip_suffix(": no shared memory segment") {
        return Some(Message::TaskNoSharedMemory { job: job.into() });
    }
    if let Some((job, after)) = tail.split_fast(" postponed for ") {
        let (secs, reason) = full(tuple((terminated(float, tag(" seconds: ")), rest)), after)?;
        return Some(Message::TaskPostponed {
            job: job.into(),
            secs,
            reason: reason.into(),
        });
    }
    let (job, after) = tail.split_fast(" is ")?;
    let (days, tail) = full(
        tuple((terminated(float, tag(" days overdue; ")), rest)),
        after,
    )?;
    let aborted = match tail {
        "aborting it." => true,
        "you may not get credit for it.  Consider aborting it." => false,
        _ => return None,
    };
    Some(Message::TaskOverdue {
        job: job.into(),
        days,
        aborted,
    })
}

#[cfg(test)]
mod tests {
    use crate::parse::log_messages::classify;
    use crate::trace::message::*;

    fn msg(body: &str) -> Message {
        classify(body).message
    }

    #[test]
    fn task_debug_states() {
        assert_eq!(
            msg("[task] task_state=EXECUTING for Urgent_init_0_0 from start"),
            Message::TaskStateChange {
                state: TaskState::Executing,
                job: "Urgent_init_0_0".into(),
                from: "start".into()
            }
        );
        assert_eq!(
            msg("[task_debug] result state=FILES_UPLOADED for Urgent_2 from CS::app_finished"),
            Message::ResultStateChange {
                state: ResultState::FilesUploaded,
                job: "Urgent_2".into(),
                from: "CS::app_finished".into()
            }
        );
        assert_eq!(
            msg("[task] Process for X_1 exited, status 0, task state 1"),
            Message::ProcessExited {
                job: "X_1".into(),
                status: Some(0),
                task_state: Some(1)
            }
        );
        assert_eq!(
            msg("[task] quit request timed out, killing task X_1"),
            Message::RequestTimedOut {
                abort: false,
                job: "X_1".into()
            }
        );
    }

    #[test]
    fn task_debug_process_lines() {
        assert_eq!(
            msg("[task] exit code 1 (0x1): Incorrect function."),
            Message::TaskExitCode {
                code: 1,
                text: "Incorrect function.".into()
            }
        );
        assert_eq!(
            msg("[task] process exited with status 0"),
            Message::TaskExitStatus { status: 0 }
        );
        assert_eq!(
            msg("[task] process got signal 9"),
            Message::TaskGotSignal { signal: 9 }
        );
        assert_eq!(
            msg("[task_debug] ACTIVE_TASK::start(): forked process: pid 4242"),
            Message::ForkedProcess { pid: 4242 }
        );
        assert_eq!(
            msg("[task_debug] task is running in processor group 1"),
            Message::ProcessorGroup { group: 1 }
        );
        assert_eq!(
            msg("[task_debug] requesting tasks to quit"),
            Message::RequestingTasksTo {
                action: "quit".into()
            }
        );
        assert_eq!(
            msg("[task_debug] all tasks exited"),
            Message::AllTasksExited
        );
    }

    #[test]
    fn emulator_task_starts() {
        assert_eq!(
            msg("[task] Starting task Urgent_init_0_0: FLOPS left 32400.00G"),
            Message::EmuTaskStart {
                action: StartAction::Starting,
                job: "Urgent_init_0_0".into(),
                gflops_left: Some(32400.0)
            }
        );
        assert_eq!(
            msg("[task] Resuming task Slow_0"),
            Message::EmuTaskStart {
                action: StartAction::Resuming,
                job: "Slow_0".into(),
                gflops_left: None
            }
        );
    }

    #[test]
    fn default_task_lines() {
        assert_eq!(
            msg("Starting task X_1"),
            Message::StartingTask { job: "X_1".into() }
        );
        assert_eq!(
            msg("Computation for task Urgent_init_0_0 finished"),
            Message::ComputationFinished {
                job: "Urgent_init_0_0".into()
            }
        );
        assert_eq!(
            msg("Restarting task ps_140207_16088_26_2 using period_search version 10111 (cuda55) in slot 4"),
            Message::TaskStart {
                action: StartAction::Restarting,
                job: "ps_140207_16088_26_2".into(),
                app: "period_search".into(),
                version: 10111,
                plan_class: Some("cuda55".into()),
                slot: Some(4)
            }
        );
        assert_eq!(
            msg("Task X_1 postponed for 600 seconds: waiting for GPU"),
            Message::TaskPostponed {
                job: "X_1".into(),
                secs: 600.0,
                reason: "waiting for GPU".into()
            }
        );
        assert_eq!(
            msg("Task P1_8: no shared memory segment"),
            Message::TaskNoSharedMemory { job: "P1_8".into() }
        );
        assert_eq!(
            msg("Suspending computation - computer is in use"),
            Message::SuspendingComputation {
                reason: SuspendReason::ComputerIsInUse
            }
        );
        assert_eq!(msg("Resuming computation"), Message::ResumingComputation);
        assert_eq!(
            msg("task X_1 aborted by user"),
            Message::TaskAbortedByUser { job: "X_1".into() }
        );
        assert_eq!(
            msg("Task X_1 is 2.50 days overdue; you may not get credit for it.  Consider aborting it."),
            Message::TaskOverdue { job: "X_1".into(), days: 2.5, aborted: false }
        );
        assert_eq!(
            msg("Aborting task X_1: exceeded elapsed time limit 100.00 (1.00G/2.00G)"),
            Message::AbortingTask {
                job: "X_1".into(),
                reason: "exceeded elapsed time limit 100.00 (1.00G/2.00G)".into()
            }
        );
    }
}

//! CPU/GPU scheduling lines: `[cpu_sched_debug]` (6.12 `[cpu_sched]`),
//! `[cpu_sched]`, `[css]` and `[coproc]` (spec §3.5–§3.8, §4).

use super::lex::{
    first_word, float, full, int32, job_resources, name_rest, name_until, rsc_name, uint,
    value_then_rsc, Res,
};
use super::rr_sim::{project_misses, projected_miss};
use crate::parse::text::FastSplit;
use crate::trace::message::{
    Message, PreemptMode, RescheduleTrigger, RunListOrder, ScheduleKind, StartAction,
};
use compact_str::CompactString;
use nom::bytes::complete::tag;
use nom::combinator::map;
use nom::sequence::{preceded, terminated, tuple};

/// Classifies the rest of a `[cpu_sched_debug]` body.
pub(super) fn debug(rest: &str) -> Option<Message> {
    let (word, tail) = first_word(rest);
    match word {
        "Request" => {
            if let Some(trigger) = tail.strip_prefix("CPU reschedule: ") {
                return Some(Message::RequestCpuReschedule {
                    trigger: RescheduleTrigger::from_text(trigger),
                });
            }
            let trigger = tail.strip_prefix("enforce CPU schedule: ")?;
            Some(Message::RequestEnforceSchedule {
                trigger: trigger.into(),
            })
        }
        "make_run_list():" => match tail {
            "start" => Some(Message::MakeRunListStart),
            "end" => Some(Message::MakeRunListEnd),
            _ => None,
        },
        "schedule_cpus():" => (tail == "start").then_some(Message::ScheduleCpusStart),
        "not" => Some(Message::MtNotEnoughCpus {
            job: tail
                .strip_prefix("enough CPUs for multithread job, skipping ")?
                .into(),
        }),
        "enforce_run_list():" => (tail == "start").then_some(Message::EnforceRunListStart),
        "enforce_run_list:" => (tail == "end").then_some(Message::EnforceRunListEnd),
        "enforce_schedule():" => (tail == "start").then_some(Message::EnforceScheduleStart),
        "enforce_schedule:" => (tail == "end").then_some(Message::EnforceScheduleEnd),
        "domino" | "thrashing" => {
            let job = tail
                .strip_prefix("prevention: mark ")?
                .strip_suffix(" as deadline miss")?;
            let job = CompactString::from(job);
            Some(if word == "domino" {
                Message::DominoPrevention { job }
            } else {
                Message::ThrashingPrevention { job }
            })
        }
        "add" => add_to_run_list(tail.strip_prefix("to run list: ")?),
        "insufficient" => {
            let (rsc, job) = tail.rsplit_fast(" for ")?;
            Some(Message::InsufficientResource {
                rsc: rsc_name(rsc)?,
                job: job.into(),
            })
        }
        "reserving" => {
            let (usage, rsc) = value_then_rsc(float, " of coproc ", tail)?;
            Some(Message::ReservingCoproc { usage, rsc })
        }
        "waiting" => Some(Message::WaitingForSharedMem {
            job: tail.strip_prefix("for shared mem: ")?.into(),
        }),
        "preliminary" => (tail == "job list:").then_some(Message::PreliminaryJobList),
        "final" => (tail == "job list:").then_some(Message::FinalJobList),
        "skipping" => skipping(tail),
        "all" => all_cpus_used(tail.strip_prefix("CPUs used")?),
        "scheduling" => scheduling(tail),
        "using" => {
            let numbers = tail
                .strip_prefix("only ")
                .unwrap_or(tail)
                .strip_suffix(" CPUs")?;
            let (used, ncpus) = full(tuple((float, preceded(tag(" out of "), uint))), numbers)?;
            Some(Message::UsingCpus { used, ncpus })
        }
        "app" => full(
            map(
                preceded(tag("startup took "), terminated(float, tag(" secs"))),
                |secs| Message::AppStartupTook { secs },
            ),
            tail,
        ),
        "coproc" => (tail == "quit pending, deferring start").then_some(Message::CoprocQuitPending),
        "swap" | "virtual" => {
            let numbers = tail.strip_prefix(if word == "swap" {
                "usage limit exceeded: "
            } else {
                "size limit exceeded: "
            })?;
            let (used_gb, limit_gb) = full(gb_pair, numbers)?;
            Some(Message::SwapLimitExceeded { used_gb, limit_gb })
        }
        "killing" => Some(Message::Killing { job: tail.into() }),
        "restarting" => Some(Message::RestartingKilled { job: tail.into() }),
        "checking" => {
            (tail == "for runnable swap-killed tasks").then_some(Message::CheckingSwapKilled)
        }
        "earliest" => {
            let (deadline, job) = full(
                tuple((float, preceded(tag(" "), name_rest))),
                tail.strip_prefix("deadline: ")?,
            )?;
            Some(Message::EarliestDeadline { deadline, job })
        }
        "avoid" => Some(Message::AvoidMtOvercommit {
            job: tail.strip_prefix("MT overcommit: skipping ")?.into(),
        }),
        "highest" => {
            let (debt, job) = full(
                tuple((float, preceded(tag(" "), name_rest))),
                tail.strip_prefix("debt: ")?,
            )?;
            Some(Message::HighestDebt { debt, job })
        }
        "enforce:" => {
            let rest = tail
                .strip_prefix("result ")
                .or_else(|| tail.strip_prefix("task "))?;
            too_big(rest, " can't run, too big ")
        }
        "can't" => too_big(tail.strip_prefix("run ")?, ": WS too big "),
        "Result" => projected_miss(tail),
        "Project" => project_misses(tail),
        "DCF:" | "scaling" => super::accounting::tagged(rest),
        _ => match word.strip_suffix(':') {
            Some(index) => job_list_entry(full(uint, index)?, tail),
            None => sched_state(rest),
        },
    }
}

/// `%.2f GB > %.2f GB`.
fn gb_pair(input: &str) -> Res<'_, (f64, f64)> {
    tuple((
        terminated(float, tag(" GB > ")),
        terminated(float, tag(" GB")),
    ))(input)
}

/// `%s (%s, %s) (prio %f)` (7.6.8+) or `%s (%s) (prio %f)` (7.4.0–7.6.7,
/// whose `%s` is a schedule kind: `coprocessor job, FIFO`).
fn add_to_run_list(text: &str) -> Option<Message> {
    let (head, prio) = text.strip_suffix(')')?.rsplit_fast(") (prio ")?;
    let prio = full(float, prio)?;
    let (job, inner) = head.rsplit_fast(" (")?;
    let kind = ScheduleKind::from_text(inner);
    if !matches!(kind, ScheduleKind::Other(_)) {
        let order = match kind {
            ScheduleKind::CoprocEdf | ScheduleKind::CpuEdf => RunListOrder::Edf,
            _ => RunListOrder::Fifo,
        };
        return Some(Message::AddToRunList {
            job: job.into(),
            rsc: None,
            order,
            prio,
            schedule_kind: Some(kind),
        });
    }
    let (rsc, order) = match inner.split_fast(", ") {
        Some((rsc, order)) => (Some(rsc_name(rsc)?), order),
        None => (None, inner),
    };
    Some(Message::AddToRunList {
        job: job.into(),
        rsc,
        order: RunListOrder::from_text(order),
        prio,
        schedule_kind: None,
    })
}

fn skipping(tail: &str) -> Option<Message> {
    if let Some(job) = tail.strip_prefix("GPU job ") {
        return Some(Message::SkippingGpuJobCpuCommitted {
            job: job.strip_suffix("; CPU committed")?.into(),
        });
    }
    if let Some((job, rest)) = tail.split_fast("; max concurrent limit ") {
        let limit = match rest {
            "reached" => None,
            _ => Some(full(uint, rest.strip_suffix(" reached")?)?),
        };
        return Some(Message::SkippingMaxConcurrent {
            job: job.into(),
            limit,
        });
    }
    let (job, rest) = tail.split_fast(": ")?;
    let job = CompactString::from(job);
    if rest == "would exceed user-specified CPU limit" {
        return Some(Message::SkippingCpuLimit { job });
    }
    let parse_pair = |text: &str, middle: &'static str| {
        full(
            tuple((
                terminated(float, tag(" GB) exceeds ")),
                preceded(tag(middle), terminated(float, tag(" GB)"))),
            )),
            text,
        )
    };
    if let Some(numbers) = rest.strip_prefix("estimated WSS (") {
        // 8.0-8.2: the expected working set in MB.
        let (ws_mb, limit_mb) = mb_pair(numbers, "MB) exceeds RAM left (", "MB)")?;
        return Some(Message::TooBig {
            job,
            ws_mb,
            limit_mb,
        });
    }
    if let Some(numbers) = rest.strip_prefix("estimated RSS (") {
        let (rss_gb, left_gb) = parse_pair(numbers, "RAM left (")?;
        return Some(Message::SkippingRss {
            job,
            rss_gb,
            left_gb,
        });
    }
    let (numbers, virtual_size) = match rest.strip_prefix("swap usage (") {
        Some(numbers) => (numbers, false),
        None => (rest.strip_prefix("virtual size (")?, true),
    };
    let (swap_gb, left_gb) = parse_pair(numbers, "swap left (")?;
    Some(Message::SkippingSwap {
        job,
        swap_gb,
        left_gb,
        virtual_size,
    })
}

/// After `all CPUs used`: `, skipping %s` (6.x) or ` (%.2f >= %d), skipping %s` (7.0+).
fn all_cpus_used(rest: &str) -> Option<Message> {
    if let Some(job) = rest.strip_prefix(", skipping ") {
        return Some(Message::AllCpusUsed {
            used: None,
            ncpus: None,
            job: job.into(),
        });
    }
    let (used, ncpus, job) = full(
        tuple((
            preceded(tag(" ("), float),
            preceded(tag(" >= "), uint),
            preceded(tag("), skipping "), name_rest),
        )),
        rest,
    )?;
    Some(Message::AllCpusUsed {
        used: Some(used),
        ncpus: Some(ncpus),
        job,
    })
}

/// `scheduling %s`, `scheduling %s (high priority)`, `scheduling %s (%s)`,
/// `scheduling %s (%s) (prio %f)`.
fn scheduling(tail: &str) -> Option<Message> {
    let Some((job, paren)) = tail.split_fast(" (") else {
        return Some(Message::Scheduling {
            job: tail.into(),
            high_priority: false,
        });
    };
    if paren == "high priority)" {
        return Some(Message::Scheduling {
            job: job.into(),
            high_priority: true,
        });
    }
    let (kind, prio) = match paren.split_fast(") (prio ") {
        Some((kind, prio)) => (kind, Some(full(float, prio.strip_suffix(')')?)?)),
        None => (paren.strip_suffix(')')?, None),
    };
    Some(Message::SchedulingRunList {
        job: job.into(),
        schedule_kind: ScheduleKind::from_text(kind),
        prio,
    })
}

/// Two sizes in MB: `%.2f{between}%.2f{end}`.
fn mb_pair(text: &str, between: &'static str, end: &'static str) -> Option<(f64, f64)> {
    full(
        tuple((terminated(float, tag(between)), terminated(float, tag(end)))),
        text,
    )
}

/// `%s can't run, too big %.2fMB > %.2fMB` and `%s: WS too big %.2fMB > %.2fMB`.
fn too_big(text: &str, middle: &str) -> Option<Message> {
    let (job, numbers) = text.split_fast(middle)?;
    let (ws_mb, limit_mb) = mb_pair(numbers, "MB > ", "MB")?;
    Some(Message::TooBig {
        job: job.into(),
        ws_mb,
        limit_mb,
    })
}

/// `%d: %s (%s; MD: %s; UTS: %s)`, `%d: %s (MD: %s; UTS: %s)`, `%d: %s`.
fn job_list_entry(index: u32, tail: &str) -> Option<Message> {
    let Some((job, paren)) = tail.split_fast(" (") else {
        return Some(Message::JobListEntry {
            index,
            job: tail.into(),
            resources: None,
            md: None,
            uts: None,
        });
    };
    let inner = paren.strip_suffix(')')?;
    let (resources, flags) = match inner.split_fast("; MD: ") {
        Some((rsc, flags)) => (Some(job_resources(rsc)?), flags),
        None => (None, inner.strip_prefix("MD: ")?),
    };
    let (md, uts) = flags.split_fast("; UTS: ")?;
    Some(Message::JobListEntry {
        index,
        job: job.into(),
        resources,
        md: Some(yes_no(md)?),
        uts: Some(yes_no(uts)?),
    })
}

fn yes_no(text: &str) -> Option<bool> {
    match text {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// `%s sched state %d next %d task state %d` (6.6–7.2).
fn sched_state(text: &str) -> Option<Message> {
    let (job, numbers) = text.split_fast(" sched state ")?;
    let (sched_state, next, task_state) = full(
        tuple((
            int32,
            preceded(tag(" next "), int32),
            preceded(tag(" task state "), int32),
        )),
        numbers,
    )?;
    Some(Message::SchedState {
        job: job.into(),
        sched_state,
        next,
        task_state,
    })
}

/// Classifies the rest of a `[cpu_sched]` body; 6.12 printed cpu_sched_debug
/// lines with this tag, so anything else goes to [`debug`].
pub(super) fn cpu_sched(rest: &str) -> Option<Message> {
    let (word, tail) = first_word(rest);
    match (word, tail) {
        ("Suspending" | "Resuming", "- CPU throttle") => Some(Message::CpuThrottle {
            suspend: word == "Suspending",
        }),
        ("suspending" | "resuming", "GPU activity") => Some(Message::GpuActivity {
            suspend: word == "suspending",
        }),
        ("Preempting", _) => preempting(tail),
        ("Starting" | "Restarting" | "Resuming", _)
            if tail.starts_with("task ") && tail.contains(" using ") =>
        {
            task_start(word, tail)
        }
        ("Resuming", _) => Some(Message::Resuming { job: tail.into() }),
        ("Starting", _) => {
            if let Some(job) = tail.strip_suffix(" (initial)") {
                Some(Message::CpuSchedStarting {
                    job: job.into(),
                    initial: true,
                })
            } else {
                Some(Message::CpuSchedStarting {
                    job: tail.strip_suffix("(resume)")?.into(),
                    initial: false,
                })
            }
        }
        _ => debug(rest),
    }
}

fn preempting(tail: &str) -> Option<Message> {
    let (job, mode) = tail.split_fast(" (")?;
    let mode = match mode {
        "removed from memory)" => PreemptMode::RemovedFromMemory,
        "left in memory)" => PreemptMode::LeftInMemory,
        "left in memory because no checkpoint yet)" => PreemptMode::LeftInMemoryNoCheckpoint,
        _ => return None,
    };
    Some(Message::Preempting {
        job: job.into(),
        mode,
    })
}

/// `%s task %s using %s version %d%s in slot %d` (7.0+) and
/// `%s task %s using %s version %d` (5.10–6.12); `action` is the first word.
pub(super) fn task_start(action: &str, tail: &str) -> Option<Message> {
    let action = StartAction::from_text(action);
    let (rest, (job, app, version)) = tuple((
        preceded(tag("task "), name_until(" using ")),
        preceded(tag(" using "), name_until(" version ")),
        preceded(tag(" version "), uint),
    ))(tail)
    .ok()?;
    let (plan_part, slot) = match rest.rsplit_fast(" in slot ") {
        Some((plan_part, slot)) => (plan_part, Some(full(uint, slot)?)),
        None => (rest, None),
    };
    let plan_class = match plan_part {
        "" => None,
        _ => Some(CompactString::from(
            plan_part.strip_prefix(" (")?.strip_suffix(')')?,
        )),
    };
    Some(Message::TaskStart {
        action,
        job,
        app,
        version,
        plan_class,
        slot,
    })
}

/// Classifies the rest of a `[css]` body: `running %s (%s)`.
pub(super) fn css(rest: &str) -> Option<Message> {
    let (job, resources) = rest
        .strip_prefix("running ")?
        .strip_suffix(')')?
        .split_fast(" (")?;
    Some(Message::CssRunning {
        job: job.into(),
        resources: resources.into(),
    })
}

/// Classifies the rest of a `[coproc]` / `[coproc_debug]` body.
pub(super) fn coproc(rest: &str) -> Option<Message> {
    let (word, tail) = first_word(rest);
    let parsed = match word {
        "Assigning" => assigning(tail),
        "Insufficient" => insufficient(tail),
        "huh???" => {
            let (rsc, job) = tail
                .strip_prefix("ran out of ")?
                .split_fast(" instances for ")?;
            Some(Message::CoprocRanOut {
                rsc: rsc_name(rsc)?,
                job: job.into(),
            })
        }
        "huh?" => {
            let (rsc, rest) = tail.split_fast(' ')?;
            let (instance, job) = full(
                tuple((uint, preceded(tag(" "), nom::combinator::rest))),
                rest.strip_suffix(" pending usage > 1")?,
            )?;
            Some(Message::CoprocPendingOverOne {
                rsc: rsc_name(rsc)?,
                instance,
                job: job.into(),
            })
        }
        "" => ram_check(tail),
        _ => instance_line(rest),
    };
    parsed.or_else(|| Some(Message::CoprocDetection { text: rest.into() }))
}

/// `%f of %s [free ]instance %d to %s` and `%s [pending ]instance %d to %s`.
fn assigning(tail: &str) -> Option<Message> {
    let (head, numbers) = tail.split_fast(" instance ")?;
    let (instance, job) = full(tuple((uint, preceded(tag(" to "), name_rest))), numbers)?;
    if let Ok((rsc_part, usage)) = terminated(float, tag(" of "))(head) {
        let (rsc_part, free) = match rsc_part.strip_suffix(" free") {
            Some(rsc_part) => (rsc_part, true),
            None => (rsc_part, false),
        };
        return Some(Message::CoprocAssignFraction {
            usage,
            rsc: rsc_name(rsc_part)?,
            free,
            instance,
            job,
        });
    }
    let (rsc_part, pending) = match head.strip_suffix(" pending") {
        Some(rsc_part) => (rsc_part, true),
        None => (head, false),
    };
    Some(Message::CoprocAssign {
        rsc: rsc_name(rsc_part)?,
        pending,
        instance,
        job,
    })
}

/// `%s for %s: need %f` and `%s for %s; need %d, available %d`.
fn insufficient(tail: &str) -> Option<Message> {
    let (rsc, rest) = tail.split_fast(" for ")?;
    let rsc = rsc_name(rsc)?;
    if let Some((job, numbers)) = rest.rsplit_fast("; need ") {
        let (need, available) = full(tuple((uint, preceded(tag(", available "), uint))), numbers)?;
        return Some(Message::CoprocInsufficient {
            rsc,
            job: job.into(),
            need,
            available,
        });
    }
    let (job, need) = rest.rsplit_fast(": need ")?;
    Some(Message::CoprocInsufficientUsage {
        rsc,
        job: job.into(),
        need: full(float, need)?,
    })
}

/// ` task %s needs %.0fMB RAM, %s GPU %d has %.0fMB available` (after the double space).
fn ram_check(tail: &str) -> Option<Message> {
    let (job, rest) = tail.strip_prefix("task ")?.split_fast(" needs ")?;
    let (rest, need_mb) = terminated(float, tag("MB RAM, "))(rest).ok()?;
    let (rsc, rest) = rest.split_fast(" GPU ")?;
    let (device, available_mb) = full(
        tuple((
            uint,
            preceded(tag(" has "), terminated(float, tag("MB available"))),
        )),
        rest,
    )?;
    Some(Message::CoprocRamCheck {
        job: job.into(),
        need_mb,
        rsc: rsc_name(rsc)?,
        device,
        available_mb,
    })
}

/// `%s instance %d; %f pending for %s`, `%s instance %d: confirming %f instance for %s`,
/// `%s %f instance of device %d already assigned to task %s`.
fn instance_line(text: &str) -> Option<Message> {
    if let Some((head, job)) = text.split_fast(" already assigned to task ") {
        let (rsc, rest) = head.split_fast(' ')?;
        let (usage, device) = full(
            tuple((float, preceded(tag(" instance of device "), uint))),
            rest,
        )?;
        return Some(Message::CoprocAlreadyAssigned {
            rsc: rsc_name(rsc)?,
            usage,
            device,
            job: job.into(),
        });
    }
    let (rsc, rest) = text.split_fast(" instance ")?;
    let rsc = rsc_name(rsc)?;
    let (rest, instance) = uint(rest).ok()?;
    if let Some(rest) = rest.strip_prefix("; ") {
        let (pending, job) = full(
            tuple((float, preceded(tag(" pending for "), name_rest))),
            rest,
        )?;
        return Some(Message::CoprocPending {
            rsc,
            instance,
            pending,
            job,
        });
    }
    let (usage, job) = full(
        tuple((
            preceded(tag(": confirming "), float),
            preceded(tag(" instance for "), name_rest),
        )),
        rest,
    )?;
    Some(Message::CoprocConfirming {
        rsc,
        instance,
        usage,
        job,
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
    fn pass_markers() {
        assert_eq!(
            msg("[cpu_sched_debug] Request CPU reschedule: periodic CPU scheduling"),
            Message::RequestCpuReschedule {
                trigger: RescheduleTrigger::PeriodicCpuScheduling
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] make_run_list(): start"),
            Message::MakeRunListStart
        );
        assert_eq!(
            msg("[cpu_sched_debug] make_run_list(): end"),
            Message::MakeRunListEnd
        );
        assert_eq!(
            msg("[cpu_sched_debug] schedule_cpus(): start"),
            Message::ScheduleCpusStart
        );
        assert_eq!(
            msg("[cpu_sched_debug] enforce_run_list: end"),
            Message::EnforceRunListEnd
        );
        assert_eq!(
            msg("[cpu_sched_debug] enforce_schedule(): start"),
            Message::EnforceScheduleStart
        );
        assert_eq!(
            msg("[cpu_sched_debug] enforce_schedule: end"),
            Message::EnforceScheduleEnd
        );
        assert_eq!(
            msg("[cpu_sched_debug] preliminary job list:"),
            Message::PreliminaryJobList
        );
        assert_eq!(
            msg("[cpu_sched_debug] final job list:"),
            Message::FinalJobList
        );
        assert_eq!(
            msg("[cpu_sched_debug] Request enforce CPU schedule: schedule_cpus"),
            Message::RequestEnforceSchedule {
                trigger: "schedule_cpus".into()
            }
        );
    }

    #[test]
    fn run_list() {
        assert_eq!(
            msg("[cpu_sched_debug] add to run list: A_0 (NVIDIA GPU, FIFO) (prio -0.000000)"),
            Message::AddToRunList {
                job: "A_0".into(),
                rsc: Some(ResourceType::Nvidia),
                order: RunListOrder::Fifo,
                prio: -0.0,
                schedule_kind: None,
            }
        );
        // 7.4.0–7.6.7 print the older kind in place of resource and order.
        assert_eq!(
            msg("[cpu_sched_debug] add to run list: G_3 (coprocessor job, FIFO) (prio -0.250000)"),
            Message::AddToRunList {
                job: "G_3".into(),
                rsc: None,
                order: RunListOrder::Fifo,
                prio: -0.25,
                schedule_kind: Some(ScheduleKind::CoprocFifo),
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] add to run list: C_1 (CPU job, EDF) (prio -0.500000)"),
            Message::AddToRunList {
                job: "C_1".into(),
                rsc: None,
                order: RunListOrder::Edf,
                prio: -0.5,
                schedule_kind: Some(ScheduleKind::CpuEdf),
            }
        );
        assert_eq!(
            msg(
                "[cpu_sched_debug] add to run list: C_2 (CPU job, priority order) (prio -0.500000)"
            ),
            Message::AddToRunList {
                job: "C_2".into(),
                rsc: None,
                order: RunListOrder::Fifo,
                prio: -0.5,
                schedule_kind: Some(ScheduleKind::CpuPriorityOrder),
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] scheduling Slow_init_3_0 (CPU job, priority order) (prio -0.000000)"),
            Message::SchedulingRunList {
                job: "Slow_init_3_0".into(),
                schedule_kind: ScheduleKind::CpuPriorityOrder,
                prio: Some(-0.0)
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] scheduling Slow_0 (CPU job, debt order)"),
            Message::SchedulingRunList {
                job: "Slow_0".into(),
                schedule_kind: ScheduleKind::CpuDebtOrder,
                prio: None
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] scheduling Urgent_init_0_0 (high priority)"),
            Message::Scheduling {
                job: "Urgent_init_0_0".into(),
                high_priority: true
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] scheduling Slow_init_3_0"),
            Message::Scheduling {
                job: "Slow_init_3_0".into(),
                high_priority: false
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] reserving 1.000000 of coproc NVIDIA"),
            Message::ReservingCoproc {
                usage: 1.0,
                rsc: ResourceType::Nvidia
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] earliest deadline: 10800 Urgent_init_0_0"),
            Message::EarliestDeadline {
                deadline: 10800.0,
                job: "Urgent_init_0_0".into()
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] highest debt: 10740.000000 Slow_0"),
            Message::HighestDebt {
                debt: 10740.0,
                job: "Slow_0".into()
            }
        );
    }

    #[test]
    fn job_lists_all_eras() {
        assert_eq!(
            msg("[cpu_sched_debug] 0: A_0 (0.20 CPU + 1.00 NVIDIA GPU; MD: no; UTS: yes)"),
            Message::JobListEntry {
                index: 0,
                job: "A_0".into(),
                resources: Some(JobResources {
                    ncpus: 0.2,
                    coproc: Some(CoprocUsage {
                        usage: 1.0,
                        rsc: ResourceType::Nvidia
                    })
                }),
                md: Some(false),
                uts: Some(true)
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] 0: Urgent_init_0_0 (MD: yes; UTS: no)"),
            Message::JobListEntry {
                index: 0,
                job: "Urgent_init_0_0".into(),
                resources: None,
                md: Some(true),
                uts: Some(false)
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] 4: X_1"),
            Message::JobListEntry {
                index: 4,
                job: "X_1".into(),
                resources: None,
                md: None,
                uts: None
            }
        );
    }

    #[test]
    fn enforcement() {
        assert_eq!(
            msg("[cpu_sched_debug] all CPUs used (2.00 >= 2), skipping Urgent_init_2_0"),
            Message::AllCpusUsed {
                used: Some(2.0),
                ncpus: Some(2),
                job: "Urgent_init_2_0".into()
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] all CPUs used, skipping Slow_0"),
            Message::AllCpusUsed {
                used: None,
                ncpus: None,
                job: "Slow_0".into()
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] using only 0.20 out of 4 CPUs"),
            Message::UsingCpus {
                used: 0.2,
                ncpus: 4
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] using 0.00 out of 2 CPUs"),
            Message::UsingCpus {
                used: 0.0,
                ncpus: 2
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] Urgent_2 sched state 0 next 2 task state 0"),
            Message::SchedState {
                job: "Urgent_2".into(),
                sched_state: 0,
                next: 2,
                task_state: 0
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] skipping X_1; max concurrent limit 2 reached"),
            Message::SkippingMaxConcurrent {
                job: "X_1".into(),
                limit: Some(2)
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] skipping X_1: estimated RSS (1.50 GB) exceeds RAM left (1.00 GB)"),
            Message::SkippingRss { job: "X_1".into(), rss_gb: 1.5, left_gb: 1.0 }
        );
        assert_eq!(
            msg("[cpu_sched_debug] skipping X_1: virtual size (84.02 GB) exceeds swap left (11.85 GB)"),
            Message::SkippingSwap { job: "X_1".into(), swap_gb: 84.02, left_gb: 11.85, virtual_size: true }
        );
        assert_eq!(
            msg("[cpu_sched_debug] skipping X_1: swap usage (2.00 GB) exceeds swap left (1.50 GB)"),
            Message::SkippingSwap {
                job: "X_1".into(),
                swap_gb: 2.0,
                left_gb: 1.5,
                virtual_size: false
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] skipping X_1: estimated WSS (2384.19MB) exceeds RAM left (1504.90MB)"),
            Message::TooBig {
                job: "X_1".into(),
                ws_mb: 2384.19,
                limit_mb: 1504.9
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] enforce: task X_1 can't run, too big 10.00MB > 5.00MB"),
            Message::TooBig {
                job: "X_1".into(),
                ws_mb: 10.0,
                limit_mb: 5.0
            }
        );
        assert_eq!(
            msg("[cpu_sched_debug] Result Urgent_2 projected to miss deadline."),
            Message::ProjectedDeadlineMiss {
                job: "Urgent_2".into()
            }
        );
    }

    #[test]
    fn cpu_sched_and_css() {
        assert_eq!(
            msg("[cpu_sched] Preempting A_2 (removed from memory)"),
            Message::Preempting {
                job: "A_2".into(),
                mode: PreemptMode::RemovedFromMemory
            }
        );
        assert_eq!(
            msg("[cpu_sched] Resuming X_1"),
            Message::Resuming { job: "X_1".into() }
        );
        assert_eq!(
            msg("[cpu_sched] Starting X_1(resume)"),
            Message::CpuSchedStarting {
                job: "X_1".into(),
                initial: false
            }
        );
        assert_eq!(
            msg("[cpu_sched] Restarting task ps_1 using period_search version 10111 (cuda55) in slot 4"),
            Message::TaskStart {
                action: StartAction::Restarting,
                job: "ps_1".into(),
                app: "period_search".into(),
                version: 10111,
                plan_class: Some("cuda55".into()),
                slot: Some(4)
            }
        );
        // 6.12 printed cpu_sched_debug lines under [cpu_sched].
        assert_eq!(
            msg("[cpu_sched] enforce_schedule(): start"),
            Message::EnforceScheduleStart
        );
        assert_eq!(
            msg("[css] running Urgent_init_0_0 ()"),
            Message::CssRunning {
                job: "Urgent_init_0_0".into(),
                resources: "".into()
            }
        );
        assert_eq!(
            msg("[css] running X_1 (0.04 CPUs + 1 NVIDIA GPU)"),
            Message::CssRunning {
                job: "X_1".into(),
                resources: "0.04 CPUs + 1 NVIDIA GPU".into()
            }
        );
    }

    #[test]
    fn coproc_lines() {
        assert_eq!(
            msg("[coproc] NVIDIA instance 0; 1.000000 pending for A_0"),
            Message::CoprocPending {
                rsc: ResourceType::Nvidia,
                instance: 0,
                pending: 1.0,
                job: "A_0".into()
            }
        );
        assert_eq!(
            msg("[coproc] NVIDIA instance 0: confirming 1.000000 instance for A_0"),
            Message::CoprocConfirming {
                rsc: ResourceType::Nvidia,
                instance: 0,
                usage: 1.0,
                job: "A_0".into()
            }
        );
        assert_eq!(
            msg("[coproc] Assigning 0.500000 of NVIDIA free instance 0 to Zulu_init_7_0"),
            Message::CoprocAssignFraction {
                usage: 0.5,
                rsc: ResourceType::Nvidia,
                free: true,
                instance: 0,
                job: "Zulu_init_7_0".into()
            }
        );
        assert_eq!(
            msg("[coproc] Assigning NVIDIA pending instance 1 to A_0"),
            Message::CoprocAssign {
                rsc: ResourceType::Nvidia,
                pending: true,
                instance: 1,
                job: "A_0".into()
            }
        );
        assert_eq!(
            msg("[coproc] Insufficient NVIDIA for B_21; need 1, available 0"),
            Message::CoprocInsufficient {
                rsc: ResourceType::Nvidia,
                job: "B_21".into(),
                need: 1,
                available: 0
            }
        );
        assert_eq!(
            msg("[coproc] Insufficient NVIDIA for B_21: need 0.500000"),
            Message::CoprocInsufficientUsage {
                rsc: ResourceType::Nvidia,
                job: "B_21".into(),
                need: 0.5
            }
        );
        assert_eq!(
            msg("[coproc] NVIDIA 0.500000 instance of device 0 already assigned to task X_1"),
            Message::CoprocAlreadyAssigned {
                rsc: ResourceType::Nvidia,
                usage: 0.5,
                device: 0,
                job: "X_1".into()
            }
        );
        assert_eq!(
            msg("[coproc]  task X_1 needs 500MB RAM, NVIDIA GPU 0 has 1024MB available"),
            Message::CoprocRamCheck {
                job: "X_1".into(),
                need_mb: 500.0,
                rsc: ResourceType::Nvidia,
                device: 0,
                available_mb: 1024.0
            }
        );
        assert_eq!(
            msg("[coproc] No NVIDIA library found"),
            Message::CoprocDetection {
                text: "No NVIDIA library found".into()
            }
        );
    }

    #[test]
    fn six_ten_multithread_skip() {
        assert_eq!(
            msg("[cpu_sched_debug] not enough CPUs for multithread job, skipping iq64A1_101006b_12_55_0"),
            Message::MtNotEnoughCpus {
                job: "iq64A1_101006b_12_55_0".into()
            }
        );
        assert!(matches!(
            msg("[cpu_sched_debug] not enough CPUs"),
            Message::Unrecognized { .. }
        ));
    }
}

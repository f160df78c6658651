//! The swap check of enforcement, judged from the line that prints it
//! (client/cpu_sched.cpp `CLIENT_STATE::enforce_run_list`, client/app.cpp
//! `ACTIVE_TASK::parse`).
//!
//! From 8.2.14 (commit c8925779bc) enforcement skips a job whose swap
//! figure exceeds the swap left (`vm_max_used_frac` × the host's swap, less
//! the figures of the jobs already scheduled): `skipping X: virtual size (A
//! GB) exceeds swap left (B GB)`. In 8.2.14 and 8.2.15 that figure is the
//! task's virtual size: the state file's `swap_size` held it, and so did
//! the measurement, so a task with a large address space (a VirtualBox job,
//! say) is never run. Commit 450b2ac8, on master after 8.2.15, has the
//! client ignore the state file's value and use the swap the task is seen
//! to use; a28915ebaa had already renamed the figure `swap usage`.
//!
//! One line holds every input of the rule, so it is judged wherever it
//! stands:
//! - the figure compared: the line's wording says which (`virtual size`
//!   only from 8.2.14–8.2.15); under rules from 450b2ac8 on (the
//!   `swap_check_vm_size` parameter off: today's, or a release given as
//!   newer) a task's virtual size is not what the check compares, so a
//!   skip by it diverges;
//! - the comparison: the job is skipped only when its figure exceeds the
//!   swap left, which the two printed values (2 decimals) must allow.
//!
//! Architecture Invariant: pure; reads the events.

use super::compare::Replayed;
use super::decision::Decision;
use super::recorded::{time_label, RecordedPoint};
use crate::trace::event::LogEvent;
use crate::trace::message::Message;

/// The figure a line calls the task's swap.
pub const VIRTUAL_SIZE: &str = "virtual size";
/// The figure today's client compares.
pub const SWAP_USE: &str = "swap use";

/// Each swap skip from the line `from` on, as recorded and as the rules
/// give it; `vm_size` is true under 8.2.14–8.2.15's rule (the
/// `swap_check_vm_size` parameter).
pub fn checks_from(
    events: &[LogEvent],
    vm_size: bool,
    from: usize,
) -> Vec<(RecordedPoint, Replayed)> {
    let mut out = Vec::new();
    for (idx, event) in events.iter().enumerate().skip(from) {
        let Message::SkippingSwap {
            job,
            swap_gb,
            left_gb,
            virtual_size,
        } = &event.message
        else {
            continue;
        };
        let recorded = Decision::SwapSkip {
            job: job.to_string(),
            figure: if *virtual_size {
                VIRTUAL_SIZE
            } else {
                SWAP_USE
            }
            .to_string(),
            over: true,
        };
        let point = RecordedPoint {
            time: event.time.secs().unwrap_or(0.0),
            time_label: time_label(&event.time),
            event_idx: idx,
            project: event.project.as_deref().map(str::to_string),
            resource: None,
            decision: recorded,
            piggyback: false,
            before_fetch: false,
            cut_before: false,
            cut_after: false,
        };
        out.push((
            point,
            judge(job, *swap_gb, *left_gb, *virtual_size, vm_size),
        ));
    }
    out
}

/// The rules' skip of `job`, printed with `swap_gb` against `left_gb`.
fn judge(job: &str, swap_gb: f64, left_gb: f64, virtual_size: bool, vm_size: bool) -> Replayed {
    // Printed at 2 decimals: a figure above the swap left never prints
    // below it.
    let over = swap_gb >= left_gb;
    let comparison = if over {
        format!("{swap_gb:.2} GB exceeds the {left_gb:.2} GB left")
    } else {
        format!("{swap_gb:.2} GB does not exceed the {left_gb:.2} GB left: the job is not skipped")
    };
    let (figure, reason) = match (virtual_size, vm_size) {
        (true, false) => (
            SWAP_USE,
            format!(
                "§6.3 the swap check compares the swap a task uses (commit 450b2ac8: the \
                 state file's swap_size is ignored, the use is measured while the task runs, 0 \
                 before; the release after 8.2.15): this skip rests on the task's virtual size \
                 ({swap_gb:.2} GB), which 8.2.14-8.2.15 took for its swap use (the line's \
                 wording is theirs, af893b411f to a28915ebaa), so {job} is held back by a figure \
                 that is not its swap use and would never run; {comparison}"
            ),
        ),
        (true, true) => (
            VIRTUAL_SIZE,
            format!(
                "§6.3 8.2.14-8.2.15 compare a task's virtual size with the swap left \
                 (vm_max_used_frac x swap, less the jobs scheduled before; c8925779bc, the state \
                 file's swap_size holding it): {comparison} (450b2ac8, after 8.2.15, compares \
                 the swap the task uses instead)"
            ),
        ),
        (false, _) => (
            SWAP_USE,
            format!(
                "§6.3 the swap check compares the swap the task uses with the swap left \
                 (vm_max_used_frac x swap, less the jobs scheduled before; the line's wording \
                 is a28915ebaa's, on master after 8.2.15): {comparison}"
            ),
        ),
    };
    Replayed::Decision {
        decision: Decision::SwapSkip {
            job: job.to_string(),
            figure: figure.to_string(),
            over,
        },
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replayed(r: &Replayed) -> (String, bool) {
        match r {
            Replayed::Decision {
                decision: Decision::SwapSkip { figure, over, .. },
                ..
            } => (figure.clone(), *over),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_skip_by_virtual_size_is_wrong_under_todays_rule_only() {
        // Today's rule: the swap use, not the virtual size, is compared.
        assert_eq!(
            replayed(&judge("X", 84.02, 11.85, true, false)),
            (SWAP_USE.to_string(), true)
        );
        // 8.2.14-8.2.15's own rule compares the virtual size.
        assert_eq!(
            replayed(&judge("X", 84.02, 11.85, true, true)),
            (VIRTUAL_SIZE.to_string(), true)
        );
        // A line in today's wording is judged by its numbers only.
        assert_eq!(
            replayed(&judge("X", 2.0, 1.5, false, true)),
            (SWAP_USE.to_string(), true)
        );
        assert_eq!(
            replayed(&judge("X", 1.0, 1.5, false, false)),
            (SWAP_USE.to_string(), false)
        );
        // Equal as printed: the true figure may still be above.
        assert!(replayed(&judge("X", 1.5, 1.5, false, false)).1);
    }
}

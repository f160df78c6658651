//! The MC shortfall of a max_concurrent project with no job on a resource,
//! judged from the lines that print it (client/rr_sim.cpp
//! `mc_update_stats`, client/work_fetch.cpp `RSC_PROJECT_WORK_FETCH::rr_init`
//! and `RSC_WORK_FETCH::set_request`; spec/policy-current.md §7.8).
//!
//! A project with max_concurrent limits asks for work by its "MC
//! shortfall" instead of the resource's shortfall (`using MC shortfall M
//! instead of shortfall S`, then `set_request() for RSC: ninst N
//! nused_total U nidle_now I …`). When the project has no job on the
//! resource (`nused_total 0.00`) its simulated use stays 0, and the rules
//! say whether its MC shortfall can be 0 over a buffer of positive length:
//!
//! - today (8.2.10 on): it counts `mc_max_could_use − 0` instances for the
//!   whole buffer, with `mc_max_could_use = min(smallest limit × max(1,
//!   largest app-version usage), instances) > 0`: never 0;
//! - 8.2.0–8.2.9 (commit fabdd13cef): the same, but the usage starts at 0,
//!   so a project with no app versions (just reset) gets 0 (fixed by
//!   c8d20aec): whether it has any is not in the log, so not decided;
//! - 7.16.1–8.1 (commit 0b5bae4c): `min(max_nused − 0, free instances)`
//!   with `max_nused` starting at the smallest limit (≥ 1): positive exactly
//!   when the resource has free instances within the buffer, that is when
//!   its own shortfall (`S`, printed beside it) is positive.
//!
//! The rule follows the `mc_shortfall_running_max` parameter (the policy
//! profile of the log's release), so `--since-changed` judges it like the
//! replayed rules. A printed `0.000000` is taken as 0 (a shortfall of under
//! half a millionth would print so). Without the buffer in the log (an
//! excerpt that starts inside the state block) the rule still stands where
//! the resource's own shortfall is positive, which needs a buffer of
//! positive length; otherwise no point is made: the request the shortfall
//! feeds is a decision point of its own.
//!
//! Architecture Invariant: pure; reads the events.

use super::compare::Replayed;
use super::decision::Decision;
use super::recorded::{time_label, RecordedPoint};
use crate::policy::profile::Release;
use crate::trace::event::LogEvent;
use crate::trace::message::Message;

/// How many lines after `using MC shortfall` its `set_request()` line is
/// looked for.
const LOOK_AHEAD: usize = 4;

/// Each MC shortfall of a project with no job on the resource whose sign
/// the rules of `release` (today's when `None`) decide, as recorded and as
/// the rules give it.
pub fn checks(
    events: &[LogEvent],
    release: Option<Release>,
    running_max: bool,
) -> Vec<(RecordedPoint, Replayed)> {
    checks_from(events, release, running_max, None, 0)
}

/// The work buffer a line prints (`target work buffer`, `last MC limit
/// time`), which the MC shortfall is reckoned over.
pub fn printed_buffer(message: &Message) -> Option<f64> {
    match message {
        Message::TargetWorkBuffer {
            min_secs,
            additional_secs,
        } => Some(min_secs + additional_secs),
        Message::McLimitTime { total_buf, .. } => Some(*total_buf),
        _ => None,
    }
}

/// [`checks`] for the lines from `from` on, `buffer` being the work buffer
/// the lines before it printed last (a window of a long session).
pub fn checks_from(
    events: &[LogEvent],
    release: Option<Release>,
    running_max: bool,
    buffer: Option<f64>,
    from: usize,
) -> Vec<(RecordedPoint, Replayed)> {
    let mut out = Vec::new();
    let mut buffer: Option<f64> = buffer;
    for (idx, event) in events.iter().enumerate().skip(from) {
        if let Some(printed) = printed_buffer(&event.message) {
            buffer = Some(printed);
            continue;
        }
        let (mc_shortfall, shortfall) = match &event.message {
            Message::UsingMcShortfall {
                mc_shortfall,
                shortfall,
            } => (*mc_shortfall, *shortfall),
            _ => continue,
        };
        let Some(project) = event.project.as_deref() else {
            continue;
        };
        let set_request =
            events
                .iter()
                .skip(idx + 1)
                .take(LOOK_AHEAD)
                .find_map(|e| match &e.message {
                    Message::SetRequest {
                        rsc,
                        nused_total,
                        nidle_now,
                        ..
                    } if e.project.as_deref() == Some(project) => {
                        Some((rsc.long_name().to_string(), *nused_total, *nidle_now))
                    }
                    _ => None,
                });
        let Some((rsc, nused_total, nidle_now)) = set_request else {
            continue;
        };
        // A project with jobs on the resource: its simulated use decides.
        if nused_total >= 0.005 {
            continue;
        }
        let point = RecordedPoint {
            time: event.time.secs().unwrap_or(0.0),
            time_label: time_label(&event.time),
            event_idx: idx,
            project: Some(project.to_string()),
            resource: Some(rsc.clone()),
            decision: Decision::McShortfall {
                rsc: rsc.clone(),
                positive: mc_shortfall > 0.0,
            },
            piggyback: false,
            before_fetch: false,
            cut_before: false,
            cut_after: false,
        };
        // Without the buffer the rule stands only where the resource's own
        // shortfall is positive (a shortfall needs a buffer of positive
        // length): the lines decide it wherever they stand, whether or not
        // the excerpt holds the state block's start. Else no point (the
        // request the shortfall feeds is one already).
        if buffer.is_none() && shortfall <= 0.0 {
            continue;
        }
        let rule = Rule {
            release,
            running_max,
        };
        out.push((point, rule.judge(&rsc, buffer, shortfall, nidle_now)));
    }
    out
}

/// Which rule computes the MC shortfall.
struct Rule {
    /// The release that wrote the log (today's when `None`).
    release: Option<Release>,
    /// 7.16.1-8.1's rule (the `mc_shortfall_running_max` parameter,
    /// undone from 8.2.0 on by commit fabdd13cef).
    running_max: bool,
}

impl Rule {
    /// The rules' verdict on the MC shortfall of a project with no job on
    /// `rsc`, over a `buffer` of seconds, the resource's own shortfall being
    /// `shortfall`.
    fn judge(&self, rsc: &str, buffer: Option<f64>, shortfall: f64, nidle_now: f64) -> Replayed {
        let decided = |positive: bool, reason: String| Replayed::Decision {
            decision: Decision::McShortfall {
                rsc: rsc.to_string(),
                positive,
            },
            reason: reason.into(),
        };
        if buffer.is_some_and(|b| b <= 0.0) {
            return decided(
                false,
                "§7.8 mc_update_stats counts only within the work buffer, which is 0".into(),
            );
        }
        match self.release {
            Some(release) if release < Release(7, 16, 1) => {
                return Replayed::NotReplayed(format!(
                    "{release} predates the MC shortfall of the released clients (7.16.1, PR \
                     #3076 with commit 0b5bae4c)"
                ))
            }
            Some(release) if release >= Release(8, 2, 0) && release < Release(8, 2, 10) => {
                return Replayed::NotReplayed(format!(
                    "{release} takes a max_concurrent project's usage from its app versions \
                     starting at 0 (commit fabdd13cef): a project with none (just reset) gets an \
                     MC shortfall of 0, fixed by c8d20aec in 8.2.10; whether it has app versions \
                     is not in the log"
                ))
            }
            _ => {}
        }
        if self.running_max {
            // min(max_nused - 0, free instances), max_nused >= 1: positive
            // exactly when some instance is free within the buffer, i.e.
            // when the resource's own shortfall is.
            return decided(
                shortfall > 0.0,
                format!(
                    "§7.8 7.16.1-8.1 (commit 0b5bae4c): a max_concurrent project with no job on \
                     {rsc} counts min(max_nused - 0, free instances) with max_nused starting at \
                     its smallest limit (>= 1) (rr_sim.cpp mc_update_stats): positive exactly \
                     when the resource has free instances within the buffer, i.e. its own \
                     shortfall ({shortfall:.6}) is"
                ),
            );
        }
        let also = if shortfall > 0.0 || nidle_now >= 0.005 {
            "; so it is under 7.16.1-8.1's rule too, the resource having a shortfall (commit \
             0b5bae4c)"
        } else {
            ""
        };
        let over = match buffer {
            Some(buffer) => format!("the whole {buffer:.0} s buffer"),
            None => format!(
                "the whole buffer (not in the log; of positive length, the resource's own \
                 shortfall {shortfall:.6} being positive)"
            ),
        };
        decided(
            true,
            format!(
                "§7.8 a max_concurrent project with no job on {rsc} (nused_total 0.00) counts \
                 mc_max_could_use = min(smallest limit x max(1, largest app-version usage), \
                 instances) > 0 free instances over {over} (rr_sim.cpp \
                 mc_update_stats, work_fetch.cpp RSC_PROJECT_WORK_FETCH::rr_init; 8.2.10 on, \
                 commit c8d20aec): its MC shortfall is positive{also}"
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(r: &Replayed) -> Option<bool> {
        match r {
            Replayed::Decision {
                decision: Decision::McShortfall { positive, .. },
                ..
            } => Some(*positive),
            _ => None,
        }
    }

    #[test]
    fn rules_by_release() {
        let gpu = "NVIDIA GPU";
        let today = Rule {
            release: None,
            running_max: false,
        };
        let r7_20 = Rule {
            release: Some(Release(7, 20, 5)),
            running_max: true,
        };
        let r8_2_5 = Rule {
            release: Some(Release(8, 2, 5)),
            running_max: false,
        };
        assert_eq!(
            verdict(&today.judge(gpu, Some(25920.0), 0.0, 0.0)),
            Some(true)
        );
        assert_eq!(
            verdict(&r7_20.judge(gpu, Some(25920.0), 41133.6, 1.0)),
            Some(true)
        );
        assert_eq!(
            verdict(&r7_20.judge(gpu, Some(25920.0), 0.0, 0.0)),
            Some(false)
        );
        assert_eq!(
            verdict(&r8_2_5.judge(gpu, Some(25920.0), 41133.6, 1.0)),
            None
        );
        assert_eq!(verdict(&today.judge(gpu, Some(0.0), 0.0, 1.0)), Some(false));
        // No buffer line: a positive shortfall says there is one.
        assert_eq!(verdict(&today.judge(gpu, None, 41133.6, 1.0)), Some(true));
        assert_eq!(verdict(&r7_20.judge(gpu, None, 41133.6, 1.0)), Some(true));
    }
}

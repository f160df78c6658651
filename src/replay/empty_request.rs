//! A project chosen for work fetch and asked for nothing, judged from the
//! lines that print it (client/work_fetch.cpp `RSC_WORK_FETCH::choose_project`
//! and `WORK_FETCH::set_shortfall_requests`, 6.6–6.10).
//!
//! Up to 6.10.28 (and in every 6.6 and 6.8 release) the minor-shortfall
//! criterion chose the non-overworked project of greatest debt whenever the
//! resource's estimated delay was within the whole buffer, then asked each
//! resource for its shortfall, which may be 0 everywhere, and returned the
//! project anyway: the client made a scheduler RPC asking for no work
//! (`chosen: CPU minor shortfall`, then `[wfd] request: CPU (0.00 sec, 0)
//! CUDA (0.00 sec, 0)`). Commit d800ae43eb (2010-01-07, "avoid sending null
//! request in certain cases"; first in 6.10.29) returns no project when
//! the choosing resource is asked neither seconds nor instances: no RPC
//! asks for nothing. The chosen line and its request line hold every input,
//! so the rule is judged wherever they stand.
//!
//! Architecture Invariant: pure; reads the events.

use super::compare::Replayed;
use super::decision::Decision;
use super::recorded::{time_label, RecordedPoint};
use crate::policy::profile::Release;
use crate::trace::event::LogEvent;
use crate::trace::message::Message;

/// How many lines after a `chosen:` line its `request:` line is looked for.
const LOOK_AHEAD: usize = 3;

/// The first release that never asks a chosen project for nothing.
pub const FIXED_IN: Release = Release(6, 10, 29);

/// Each request of a chosen project from the line `from` on that asks for
/// nothing of its choosing resource, as recorded and as the rules of
/// `release` (d800ae43eb's when `None`) give it.
pub fn checks_from(
    events: &[LogEvent],
    release: Option<Release>,
    from: usize,
) -> Vec<(RecordedPoint, Replayed)> {
    let mut out = Vec::new();
    for (idx, event) in events.iter().enumerate().skip(from) {
        let (criterion, rsc) = match &event.message {
            Message::ChosenFor { criterion, rsc } => (criterion.to_string(), rsc.clone()),
            _ => continue,
        };
        let Some(project) = event.project.as_deref() else {
            continue;
        };
        let request = events
            .iter()
            .enumerate()
            .skip(idx + 1)
            .take(LOOK_AHEAD)
            .find_map(|(at, e)| match &e.message {
                Message::WorkRequest { resources } if e.project.as_deref() == Some(project) => {
                    Some((at, resources))
                }
                _ => None,
            });
        let Some((at, resources)) = request else {
            continue;
        };
        // The empty RPC: the choosing resource among the request's, and
        // nothing asked of any (a request that asks another resource is
        // an RPC for work, whatever today's rule would choose).
        if !resources.iter().any(|r| r.rsc == rsc)
            || resources.iter().any(|r| r.secs > 0.0 || r.inst > 0.0)
        {
            continue;
        }
        // Two `chosen:` lines before one request: the nearer one's.
        if out
            .last()
            .is_some_and(|(point, _): &(RecordedPoint, Replayed)| point.event_idx == at)
        {
            out.pop();
        }
        let rsc_name = rsc.long_name().to_string();
        let request_event = &events[at];
        let point = RecordedPoint {
            time: request_event.time.secs().unwrap_or(0.0),
            time_label: time_label(&request_event.time),
            event_idx: at,
            project: Some(project.to_string()),
            resource: Some(rsc_name.clone()),
            decision: Decision::EmptyRequest {
                rsc: rsc_name.clone(),
                chosen: true,
            },
            piggyback: false,
            before_fetch: false,
            cut_before: false,
            cut_after: false,
        };
        out.push((point, judge(project, &rsc_name, &criterion, release)));
    }
    out
}

/// The rules' choice of `project` for `rsc` by `criterion` when the request
/// it gets for `rsc` is 0 s and 0 instances.
fn judge(project: &str, rsc: &str, criterion: &str, release: Option<Release>) -> Replayed {
    let (chosen, reason) = match release {
        Some(release) if release < FIXED_IN => (
            true,
            format!(
                "legacy B work fetch ({release}): choose_project({criterion}) returns the project \
                 whatever its requests, so {project} is asked 0 s of {rsc} and the RPC goes out \
                 (fixed by d800ae43eb in 6.10.29; no 6.6 or 6.8 release has the fix)"
            ),
        ),
        _ => (
            false,
            format!(
                "legacy B work fetch: choose_project returns no project when the choosing \
                 resource is asked neither seconds nor instances (commit d800ae43eb, \
                 2010-01-07, 'avoid sending null request'; first in 6.10.29): {project}, \
                 chosen for {rsc} ({criterion}) and asked 0 s and 0 instances of it, is not \
                 chosen, and no RPC asks for nothing"
            ),
        ),
    };
    Replayed::Decision {
        decision: Decision::EmptyRequest {
            rsc: rsc.to_string(),
            chosen,
        },
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::FileKind;

    const PASS: &str = "\
03/05/2009 10:02:11  [wfd] CPU: shortfall 0.00 nidle 0.00 est. delay 0.00
03/05/2009 10:02:11  [wfd] CUDA: shortfall 3000.00 nidle 0.00 est. delay 0.00
03/05/2009 10:02:11 Milkyway@home chosen: CPU minor shortfall
03/05/2009 10:02:11 Milkyway@home [wfd] request: CPU (0.00 sec, 0) CUDA (0.00 sec, 0)
";

    fn chosen(r: &Replayed) -> bool {
        match r {
            Replayed::Decision {
                decision: Decision::EmptyRequest { chosen, .. },
                ..
            } => *chosen,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_request_is_no_choice_from_6_10_29_on() {
        let events = crate::replay::test_events(PASS, FileKind::ManagerCopy);
        let found = checks_from(&events, None, 0);
        assert_eq!(found.len(), 1, "{events:#?}");
        assert!(!chosen(&found[0].1));
        assert_eq!(found[0].0.event_idx, 3);
        let old = checks_from(&events, Some(Release(6, 6, 23)), 0);
        assert!(chosen(&old[0].1));
        // A request that asks any resource for work is no case.
        for asked in [
            PASS.replace("CPU (0.00 sec, 0) CUDA", "CPU (10.00 sec, 0) CUDA"),
            PASS.replace("CUDA (0.00 sec, 0)", "CUDA (3000.00 sec, 0)"),
        ] {
            let events = crate::replay::test_events(&asked, FileKind::ManagerCopy);
            assert!(checks_from(&events, None, 0).is_empty());
        }
        // Two choices before one request: one point, the nearer choice's.
        let twice = PASS.replace(
            "Milkyway@home chosen: CPU minor shortfall\n",
            "Milkyway@home chosen: CPU starved\n03/05/2009 10:02:11 Milkyway@home chosen: CPU \
             minor shortfall\n",
        );
        let events = crate::replay::test_events(&twice, FileKind::ManagerCopy);
        let found = checks_from(&events, None, 0);
        assert_eq!(found.len(), 1);
        match &found[0].1 {
            Replayed::Decision { reason, .. } => assert!(reason.text().contains("minor shortfall")),
            other => panic!("{other:?}"),
        }
    }
}

//! Work-fetch lines (work_fetch_debug): the tagged state dump and request
//! lines of `[work_fetch]`, `[wfd]` and `[work_fetch_debug]` (spec §3.3, §4),
//! and the untagged project-scan and piggyback lines (7.16..master, 6.10
//! `chosen:`).

use super::lex::{
    first_word, float, full, int, name_rest, request_list, resource_backoff, rsc_name, rsc_until,
    uint, Res,
};
use crate::parse::text::FastSplit;
use crate::resource::ResourceType;
use crate::trace::message::{
    ChooseCriterion, FetchShareFlags, LtdShareFlags, Message, ProjectReason, ResourceReason,
    WorkFetchTrigger,
};
use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::combinator::map;
use nom::sequence::{preceded, terminated, tuple};

/// Classifies the rest of a `[work_fetch]`, `[wfd]` or `[work_fetch_debug]` body.
pub(super) fn tagged(rest: &str) -> Option<Message> {
    let (word, tail) = first_word(rest);
    match word {
        "-------" => match tail {
            "start work fetch state -------" => Some(Message::WorkFetchStateStart),
            "end work fetch state -------" => Some(Message::WorkFetchStateEnd),
            _ => None,
        },
        "---" => match tail {
            "project states ---" => Some(Message::ProjectStatesHeader),
            _ => {
                let name = tail.strip_prefix("state for ")?.strip_suffix(" ---")?;
                Some(Message::StateFor {
                    rsc: rsc_name(name)?,
                })
            }
        },
        "target" => full(target_work_buffer, tail),
        "REC" => rec(tail),
        "shortfall" => full(shortfall, tail),
        "share" => share(tail),
        "fetch" => fetch_share(tail.strip_prefix("share ")?),
        "fetching" => (tail == "work for NCI project").then_some(Message::FetchingWorkForNci),
        "No" => (tail == "project chosen for work fetch").then_some(Message::NoProjectChosen),
        "Request" => Some(Message::RequestWorkFetch {
            trigger: WorkFetchTrigger::from_text(tail.strip_prefix("work fetch: ")?),
        }),
        "set_request()" => full(set_request, tail),
        "using" => full(using_mc_shortfall, tail),
        "request:" => request(tail),
        "backing" => backing_off(tail),
        // 6.12 prints 6.10's untagged choice under [work_fetch].
        "chosen:" => chosen(tail),
        "deferring" => {
            (tail == "work fetch; upload active").then_some(Message::DeferringWorkFetchUploadActive)
        }
        "entering" => (tail == "choose_project()").then_some(Message::EnteringChooseProject),
        "work" => (tail == "fetch start").then_some(Message::WorkFetchStart),
        "overall" | "overall_debt" => {
            let number = if word == "overall" {
                tail.strip_prefix("LTD ")?
            } else {
                tail
            };
            full(map(float, |ltd| Message::OverallLtd { ltd }), number)
        }
        "Using" => {
            (tail == "dynamic AM and some device is idle").then_some(Message::DynamicAmDeviceIdle)
        }
        "First" => full(
            map(
                preceded(
                    tag("time - delaying RPC for "),
                    terminated(float, tag(" sec")),
                ),
                |secs| Message::AmFirstTimeDelay { secs },
            ),
            tail,
        ),
        "AM" => full(
            map(
                preceded(tag("RPC backed off for "), terminated(float, tag(" sec"))),
                |secs| Message::AmRpcBackedOff { secs },
            ),
            tail,
        ),
        // 5.10–6.4 printed the DCF lines under [wfd] / [csd].
        "DCF:" | "scaling" => super::accounting::tagged(rest),
        _ => ltd_resource_line(rest),
    }
}

fn target_work_buffer(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            preceded(tag("work buffer: "), float),
            preceded(tag(" + "), terminated(float, tag(" sec"))),
        )),
        |(min_secs, additional_secs)| Message::TargetWorkBuffer {
            min_secs,
            additional_secs,
        },
    )(input)
}

/// `%.3f prio %.3f can request work` … (7.4+) and `can req work` … (7.0–7.2).
fn rec(tail: &str) -> Option<Message> {
    let (status, (rec, prio)) =
        tuple((float, preceded(tag(" prio "), terminated(float, tag(" ")))))(tail).ok()?;
    // Split off a trailing ` (%.2f sec)` or ` (backoff: %.2f sec)`; a reason such as
    // `don't need (CPU: job cache full)` also ends in a parenthesis, so check the shape.
    let (status, backoff) = match status.rfind(" (") {
        Some(open) => {
            let inner = &status[open + 2..];
            let inner = inner.strip_prefix("backoff: ").unwrap_or(inner);
            match full(terminated(float, tag(" sec)")), inner) {
                Some(secs) => (&status[..open], Some(secs)),
                None => (status, None),
            }
        }
        None => (status, None),
    };
    let reason = match status {
        "can request work" | "can req work" => None,
        _ => {
            let text = status
                .strip_prefix("can't request work: ")
                .or_else(|| status.strip_prefix("can't req work: "))?;
            Some(ProjectReason::from_text(text))
        }
    };
    Some(Message::WorkFetchRec {
        rec,
        prio,
        reason,
        backoff,
    })
}

/// `%.2f nidle %.2f saturated %.2f busy %.2f` after `shortfall ` (all eras).
fn shortfall_numbers(input: &str) -> Res<'_, (f64, f64, f64, f64)> {
    tuple((
        float,
        preceded(tag(" nidle "), float),
        preceded(tag(" saturated "), float),
        preceded(tag(" busy "), float),
    ))(input)
}

fn shortfall(input: &str) -> Res<'_, Message> {
    map(shortfall_numbers, |(shortfall, nidle, saturated, busy)| {
        Message::WorkFetchShortfall {
            shortfall,
            nidle,
            saturated,
            busy,
        }
    })(input)
}

/// `share %.3f %s %s` (7.4..master): reason may be empty; backoff after one or two blanks.
fn share(tail: &str) -> Option<Message> {
    let (after, share) = float(tail).ok()?;
    if !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    let (reason_text, backoff) = match after.find_fast("(resource backoff: ") {
        Some(open) => (
            &after[..open],
            Some(full(resource_backoff, &after[open..])?),
        ),
        None => (after, None),
    };
    let reason_text = reason_text.trim();
    let reason = (!reason_text.is_empty()).then(|| ResourceReason::from_text(reason_text));
    Some(Message::WorkFetchShare {
        share,
        reason,
        backoff,
    })
}

/// `fetch share %.3f%s%s%s%s%s` (7.0–7.2).
fn fetch_share(tail: &str) -> Option<Message> {
    let (mut rest, share) = float(tail).ok()?;
    let mut backoff = None;
    let mut flags = FetchShareFlags::default();
    while !rest.is_empty() {
        let suffix = rest.strip_prefix(' ')?;
        let (flag, after) = match suffix.split_fast(')') {
            Some((flag, after)) => (flag, after),
            None => return None,
        };
        match flag {
            "(blocked by prefs" => flags.blocked_by_prefs = true,
            "(no apps" => flags.no_apps = true,
            "(blocked by account manager" => flags.blocked_by_account_manager = true,
            "(blocked by configuration file" => flags.blocked_by_configuration_file = true,
            _ => {
                let (after_backoff, parsed) = resource_backoff(suffix).ok()?;
                backoff = Some(parsed);
                rest = after_backoff;
                continue;
            }
        }
        rest = after;
    }
    Some(Message::WorkFetchFetchShare {
        share,
        backoff,
        flags,
    })
}

fn set_request(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            preceded(tag("for "), rsc_until(": ")),
            preceded(tag(": ninst "), uint),
            preceded(tag(" nused_total "), float),
            preceded(tag(" nidle_now "), float),
            preceded(tag(" fetch share "), float),
            preceded(tag(" req_inst "), float),
            preceded(tag(" req_secs "), float),
        )),
        |(rsc, ninst, nused_total, nidle_now, fetch_share, req_inst, req_secs)| {
            Message::SetRequest {
                rsc,
                ninst,
                nused_total,
                nidle_now,
                fetch_share,
                req_inst,
                req_secs,
            }
        },
    )(input)
}

fn using_mc_shortfall(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            preceded(tag("MC shortfall "), float),
            preceded(tag(" instead of shortfall "), float),
        )),
        |(mc_shortfall, shortfall)| Message::UsingMcShortfall {
            mc_shortfall,
            shortfall,
        },
    )(input)
}

/// `request: CPU (...) ...` (6.6, 6.12..master) or 6.10 `request: %.2f sec CPU (...) ...`.
fn request(tail: &str) -> Option<Message> {
    if tail.starts_with(|c: char| c.is_ascii_digit()) {
        let (list, secs) = terminated(float, tag(" sec "))(tail).ok()?;
        return Some(Message::LtdWorkRequest {
            secs,
            resources: request_list(list)?,
        });
    }
    Some(Message::WorkRequest {
        resources: request_list(tail)?,
    })
}

/// `backing off %s %.0f sec`.
fn backing_off(tail: &str) -> Option<Message> {
    let rest = tail.strip_prefix("off ")?.strip_suffix(" sec")?;
    let (name, number) = rest.rsplit_fast(' ')?;
    Some(Message::BackingOff {
        rsc: rsc_name(name)?,
        secs: full(float, number)?,
    })
}

/// 6.6–6.12 per-resource lines: `%s: shortfall …` and `%s: fetch share … LTD …`.
fn ltd_resource_line(rest: &str) -> Option<Message> {
    let (name, tail) = rest.split_fast(": ")?;
    let rsc = rsc_name(name)?;
    let (word, tail) = first_word(tail);
    match word {
        "shortfall" if tail.contains(" est. delay ") => est_delay_state(rsc, tail),
        "shortfall" => full(
            map(
                tuple((
                    shortfall_numbers,
                    preceded(tag(" RS fetchable "), float),
                    preceded(tag(" runnable "), float),
                )),
                |((shortfall, nidle, saturated, busy), rs_fetchable, runnable)| {
                    Message::LtdResourceState {
                        rsc: rsc.clone(),
                        shortfall,
                        nidle,
                        saturated,
                        busy,
                        rs_fetchable,
                        runnable,
                    }
                },
            ),
            tail,
        ),
        "fetch" => ltd_fetch_share(rsc, tail.strip_prefix("share ")?),
        _ => None,
    }
}

/// `%.2f nidle %.2f est. delay %.2f RS fetchable %.2f runnable %.2f` after
/// `shortfall ` (6.6–6.8), the share figures optional (a copy cut short).
fn est_delay_state(rsc: ResourceType, tail: &str) -> Option<Message> {
    let (rest, (shortfall, nidle, est_delay)) = tuple((
        float,
        preceded(tag(" nidle "), float),
        preceded(tag(" est. delay "), float),
    ))(tail)
    .ok()?;
    let (rs_fetchable, runnable) = if rest.trim().is_empty() {
        (None, None)
    } else {
        let (fetchable, runnable) = full(
            tuple((
                preceded(tag(" RS fetchable "), float),
                preceded(tag(" runnable "), float),
            )),
            rest,
        )?;
        (Some(fetchable), Some(runnable))
    };
    Some(Message::EstDelayResourceState {
        rsc,
        shortfall,
        nidle,
        est_delay,
        rs_fetchable,
        runnable,
    })
}

fn ltd_fetch_share(rsc: ResourceType, tail: &str) -> Option<Message> {
    let (mut rest, (share, ltd, backoff_dt, backoff_int)) = tuple((
        float,
        preceded(tuple((tag(" "), alt((tag("LTD "), tag("debt "))))), float),
        preceded(tag(" backoff dt "), float),
        preceded(tag(" int "), float),
    ))(tail)
    .ok()?;
    let mut flags = LtdShareFlags::default();
    while !rest.is_empty() {
        let (flag, after) = rest.strip_prefix(" (")?.split_fast(')')?;
        match flag {
            "susp via GUI" => flags.susp_via_gui = true,
            "master fetch pending" => flags.master_fetch_pending = true,
            "comm deferred" => flags.comm_deferred = true,
            "no new tasks" => flags.no_new_tasks = true,
            "overworked" => flags.overworked = true,
            "too many uploads" => flags.too_many_uploads = true,
            "blocked by prefs" => flags.blocked_by_prefs = true,
            "no apps" => flags.no_apps = true,
            _ => return None,
        }
        rest = after;
    }
    Some(Message::LtdFetchShare {
        rsc,
        share,
        ltd,
        backoff_dt,
        backoff_int,
        flags,
    })
}

/// Untagged work-fetch scan lines opening with a fixed word; `None` if `word`
/// opens none of them.
pub(super) fn untagged(word: &str, tail: &str) -> Option<Message> {
    match word {
        "can" => Some(Message::CanFetch {
            rsc: rsc_name(tail.strip_prefix("fetch ")?)?,
        }),
        "can't" => {
            let (rsc, reason) = cant_fetch(tail)?;
            Some(Message::CantFetch { rsc, reason })
        }
        "checking" => Some(Message::Checking {
            rsc: rsc_name(tail)?,
        }),
        "skip:" => Some(Message::ScanSkip {
            reason: ProjectReason::from_text(tail),
        }),
        "choose_project():" => full(map(float, |now| Message::ChooseProjectTime { now }), tail),
        "chosen:" => chosen(tail),
        "piggyback:" => piggyback(tail),
        "set_request_excluded()" => full(
            map(
                tuple((int, preceded(tag(" "), int), preceded(tag(" "), int))),
                |(a, b, c)| Message::SetRequestExcludedArgs { args: [a, b, c] },
            ),
            tail,
        ),
        "rsc" => full(
            map(
                tuple((
                    preceded(tag("type "), int),
                    preceded(tag(" last MC limit time "), float),
                    preceded(tag(" total buf "), float),
                )),
                |(rsc_type, last_mc_limit_time, total_buf)| Message::McLimitTime {
                    rsc_type,
                    last_mc_limit_time,
                    total_buf,
                },
            ),
            tail,
        ),
        _ => None,
    }
}

/// `fetch %s: %s` after `can't `: a resource and its reason.
fn cant_fetch(tail: &str) -> Option<(ResourceType, ResourceReason)> {
    let (rsc, reason) = tail.strip_prefix("fetch ")?.split_fast(": ")?;
    Some((rsc_name(rsc)?, ResourceReason::from_text(reason)))
}

/// `chosen: %s %s: %.2f inst, %.2f sec` (6.10 untagged, 6.12 under
/// `[work_fetch]`).
fn chosen(tail: &str) -> Option<Message> {
    let Some((head, numbers)) = tail.split_fast(": ") else {
        return chosen_for(tail);
    };
    let (criterion, rsc) = [
        ("idle instance ", ChooseCriterion::IdleInstance),
        ("major shortfall ", ChooseCriterion::MajorShortfall),
        ("minor shortfall ", ChooseCriterion::MinorShortfall),
        ("starved ", ChooseCriterion::Starved),
    ]
    .into_iter()
    .find_map(|(prefix, criterion)| head.strip_prefix(prefix).map(|rsc| (criterion, rsc)))
    .or_else(|| {
        let (criterion, rsc) = head.rsplit_fast(' ')?;
        Some((ChooseCriterion::from_text(criterion), rsc))
    })?;
    let (inst, secs) = full(
        tuple((
            terminated(float, tag(" inst, ")),
            terminated(float, tag(" sec")),
        )),
        numbers,
    )?;
    Some(Message::Chosen {
        criterion,
        rsc: rsc_name(rsc)?,
        inst,
        secs,
    })
}

/// `chosen: %s %s` with the resource first (6.6–6.8).
fn chosen_for(tail: &str) -> Option<Message> {
    let (rsc, criterion) = tail.split_fast(' ')?;
    let criterion = ChooseCriterion::from_text(criterion);
    if matches!(criterion, ChooseCriterion::Other(_)) {
        return None;
    }
    Some(Message::ChosenFor {
        criterion,
        rsc: rsc_name(rsc)?,
    })
}

/// `piggyback: ...` (7.16..master).
fn piggyback(tail: &str) -> Option<Message> {
    let (word, rest) = first_word(tail);
    match word {
        "resource" => Some(Message::PiggybackResource {
            rsc: rsc_name(rest)?,
        }),
        "can't" => {
            let (rsc, reason) = cant_fetch(rest)?;
            Some(Message::PiggybackCantFetch { rsc, reason })
        }
        "don't" => Some(Message::PiggybackDontNeed {
            rsc: rsc_name(rest.strip_prefix("need ")?)?,
        }),
        "better" => full(
            map(preceded(tag("proj "), name_rest), |project| {
                Message::PiggybackBetterProj { project }
            }),
            rest,
        ),
        _ => {
            if let Some(project) = tail.strip_suffix(" can't fetch work") {
                Some(Message::PiggybackProjectCantFetch {
                    project: project.into(),
                })
            } else {
                let project = tail.strip_suffix(" doesn't have jobs")?;
                Some(Message::PiggybackNoJobs {
                    project: project.into(),
                })
            }
        }
    }
}

/// Untagged lines that open with a resource name: `%s needs work - buffer low`,
/// `%s not high prio proj`, `%s don't need`, `%s can't fetch: %s`,
/// `%s set_request: %f`, `%s set_request_excluded: %f`.
pub(super) fn resource_first(text: &str) -> Option<Message> {
    const SUFFIXES: [&str; 4] = [
        " needs work - ",
        " not high prio proj",
        " don't need",
        " can't fetch: ",
    ];
    if let Some((name, value)) = text.split_fast(" set_request") {
        let rsc = rsc_name(name)?;
        if let Some(number) = value.strip_prefix(": ") {
            return full(
                map(float, |secs| Message::RscSetRequest {
                    rsc: rsc.clone(),
                    secs,
                }),
                number,
            );
        }
        let number = value.strip_prefix("_excluded: ")?;
        return full(
            map(float, |secs| Message::RscSetRequestExcluded {
                rsc: rsc.clone(),
                secs,
            }),
            number,
        );
    }
    let (idx, pos) = SUFFIXES
        .iter()
        .enumerate()
        .find_map(|(idx, suffix)| text.find(suffix).map(|pos| (idx, pos)))?;
    let rsc = rsc_name(&text[..pos])?;
    let after = &text[pos + SUFFIXES[idx].len()..];
    match (idx, after) {
        (0, "buffer low") => Some(Message::NeedsWorkBufferLow { rsc }),
        (0, "excluded instance starved") => Some(Message::NeedsWorkExcludedStarved { rsc }),
        (1, "") => Some(Message::NotHighPrioProj { rsc }),
        (2, "") => Some(Message::DontNeed { rsc }),
        (3, reason) => Some(Message::RscCantFetch {
            rsc,
            reason: ResourceReason::from_text(reason),
        }),
        _ => None,
    }
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
    fn state_dump_today() {
        assert_eq!(
            msg("[work_fetch] ------- start work fetch state -------"),
            Message::WorkFetchStateStart
        );
        assert_eq!(
            msg("[work_fetch] ------- end work fetch state -------"),
            Message::WorkFetchStateEnd
        );
        assert_eq!(
            msg("[work_fetch] target work buffer: 21600.00 + 21600.00 sec"),
            Message::TargetWorkBuffer {
                min_secs: 21600.0,
                additional_secs: 21600.0
            }
        );
        assert_eq!(
            msg("[work_fetch] --- project states ---"),
            Message::ProjectStatesHeader
        );
        assert_eq!(
            msg("[work_fetch] --- state for NVIDIA GPU ---"),
            Message::StateFor {
                rsc: ResourceType::Nvidia
            }
        );
        assert_eq!(
            msg("[work_fetch] shortfall 829440.00 nidle 16.00 saturated 0.00 busy 0.00"),
            Message::WorkFetchShortfall {
                shortfall: 829440.0,
                nidle: 16.0,
                saturated: 0.0,
                busy: 0.0
            }
        );
        assert_eq!(
            msg("[work_fetch] No project chosen for work fetch"),
            Message::NoProjectChosen
        );
    }

    #[test]
    fn rec_lines_both_eras() {
        assert_eq!(
            msg("[work_fetch] REC 0.000 prio -1.333 can request work"),
            Message::WorkFetchRec {
                rec: 0.0,
                prio: -1.333,
                reason: None,
                backoff: None
            }
        );
        assert_eq!(
            msg("[work_fetch] REC 1052.049 prio -14.295 can't request work: scheduler RPC backoff (474.50 sec)"),
            Message::WorkFetchRec {
                rec: 1052.049,
                prio: -14.295,
                reason: Some(ProjectReason::SchedulerRpcBackoff),
                backoff: Some(474.5)
            }
        );
        assert_eq!(
            msg("[work_fetch] REC 0.000 prio -0.262 can't request work: \"no new tasks\" requested via Manager"),
            Message::WorkFetchRec { rec: 0.0, prio: -0.262, reason: Some(ProjectReason::NoNewTasks), backoff: None }
        );
        assert_eq!(
            msg("[work_fetch] REC 10.568 prio -29.963597 can't req work: scheduler RPC backoff (backoff: 750.00 sec)"),
            Message::WorkFetchRec {
                rec: 10.568,
                prio: -29.963597,
                reason: Some(ProjectReason::SchedulerRpcBackoff),
                backoff: Some(750.0)
            }
        );
        assert_eq!(
            msg("[work_fetch] REC 1.000 prio -2.000 can't request work: don't need (CPU: job cache full)"),
            Message::WorkFetchRec {
                rec: 1.0,
                prio: -2.0,
                reason: Some(ProjectReason::DontNeed("CPU: job cache full".into())),
                backoff: None
            }
        );
    }

    #[test]
    fn share_lines_both_eras() {
        assert_eq!(
            msg("[work_fetch] share 0.000 project is backed off  (resource backoff: 33257.53, inc 38400.00)"),
            Message::WorkFetchShare {
                share: 0.0,
                reason: Some(ResourceReason::ProjectIsBackedOff),
                backoff: Some(ResourceBackoff { backoff: 33257.53, inc: 38400.0 })
            }
        );
        assert_eq!(
            msg("[work_fetch] share 0.000 no applications "),
            Message::WorkFetchShare {
                share: 0.0,
                reason: Some(ResourceReason::NoApplications),
                backoff: None
            }
        );
        assert_eq!(
            msg("[work_fetch] share 0.000  (resource backoff: 1.00, inc 600.00)"),
            Message::WorkFetchShare {
                share: 0.0,
                reason: None,
                backoff: Some(ResourceBackoff {
                    backoff: 1.0,
                    inc: 600.0
                })
            }
        );
        assert_eq!(
            msg("[work_fetch] fetch share 0.000 (resource backoff: 401.95, inc 600.00)"),
            Message::WorkFetchFetchShare {
                share: 0.0,
                backoff: Some(ResourceBackoff {
                    backoff: 401.95,
                    inc: 600.0
                }),
                flags: FetchShareFlags::default()
            }
        );
        assert_eq!(
            msg("[work_fetch] fetch share 0.000 (no apps)"),
            Message::WorkFetchFetchShare {
                share: 0.0,
                backoff: None,
                flags: FetchShareFlags {
                    no_apps: true,
                    ..FetchShareFlags::default()
                }
            }
        );
        assert_eq!(
            msg("[work_fetch] fetch share 0.500"),
            Message::WorkFetchFetchShare {
                share: 0.5,
                backoff: None,
                flags: FetchShareFlags::default()
            }
        );
    }

    #[test]
    fn requests() {
        assert_eq!(
            msg("[work_fetch] set_request() for NVIDIA GPU: ninst 1 nused_total 0.00 nidle_now 1.00 fetch share 0.50 req_inst 1.00 req_secs 51840.00"),
            Message::SetRequest {
                rsc: ResourceType::Nvidia,
                ninst: 1,
                nused_total: 0.0,
                nidle_now: 1.0,
                fetch_share: 0.5,
                req_inst: 1.0,
                req_secs: 51840.0
            }
        );
        assert_eq!(
            msg("[work_fetch] using MC shortfall 311040.000000 instead of shortfall 290880.000000"),
            Message::UsingMcShortfall {
                mc_shortfall: 311040.0,
                shortfall: 290880.0
            }
        );
        assert_eq!(
            msg("[work_fetch] request: CPU (12382.46 sec, 0.00 inst) NVIDIA GPU (0.00 sec, 0.00 inst)"),
            Message::WorkRequest {
                resources: vec![
                    ResourceRequest { rsc: ResourceType::Cpu, secs: 12382.46, inst: 0.0 },
                    ResourceRequest { rsc: ResourceType::Nvidia, secs: 0.0, inst: 0.0 }
                ]
            }
        );
        assert_eq!(
            msg("[wfd] request: 100.00 sec CPU (100.00 sec, 1.00)"),
            Message::LtdWorkRequest {
                secs: 100.0,
                resources: vec![ResourceRequest {
                    rsc: ResourceType::Cpu,
                    secs: 100.0,
                    inst: 1.0
                }]
            }
        );
        assert_eq!(
            msg("[work_fetch] backing off NVIDIA GPU 762 sec"),
            Message::BackingOff {
                rsc: ResourceType::Nvidia,
                secs: 762.0
            }
        );
        assert_eq!(
            msg("[work_fetch] Request work fetch: job finished"),
            Message::RequestWorkFetch {
                trigger: WorkFetchTrigger::JobFinished
            }
        );
        assert_eq!(
            msg("[work_fetch] entering choose_project()"),
            Message::EnteringChooseProject
        );
    }

    #[test]
    fn ltd_era() {
        assert_eq!(msg("[wfd]: work fetch start"), Message::WorkFetchStart);
        // 6.6-6.8: the estimated delay; a copy may end after it.
        assert_eq!(
            msg("[wfd] CUDA: shortfall 21420.16 nidle 0.00 est. delay 0.00 RS fetchable 50.00 runnable 100.00"),
            Message::EstDelayResourceState {
                rsc: ResourceType::Nvidia,
                shortfall: 21420.16,
                nidle: 0.0,
                est_delay: 0.0,
                rs_fetchable: Some(50.0),
                runnable: Some(100.0)
            }
        );
        assert!(matches!(
            msg("[wfd] CPU: shortfall 0.00 nidle 0.00 est. delay 0.00"),
            Message::EstDelayResourceState {
                rs_fetchable: None,
                ..
            }
        ));
        assert_eq!(
            msg("chosen: CPU minor shortfall"),
            Message::ChosenFor {
                criterion: ChooseCriterion::MinorShortfall,
                rsc: ResourceType::Cpu
            }
        );
        assert_eq!(
            msg("[wfd] CPU: shortfall 86400.00 nidle 2.00 saturated 0.00 busy 0.00 RS fetchable 200.00 runnable 0.00"),
            Message::LtdResourceState {
                rsc: ResourceType::Cpu,
                shortfall: 86400.0,
                nidle: 2.0,
                saturated: 0.0,
                busy: 0.0,
                rs_fetchable: 200.0,
                runnable: 0.0
            }
        );
        assert_eq!(
            msg("[wfd] CPU: fetch share 0.50 LTD 0.00 backoff dt 0.00 int 0.00 (comm deferred) (no new tasks)"),
            Message::LtdFetchShare {
                rsc: ResourceType::Cpu,
                share: 0.5,
                ltd: 0.0,
                backoff_dt: 0.0,
                backoff_int: 0.0,
                flags: LtdShareFlags { comm_deferred: true, no_new_tasks: true, ..LtdShareFlags::default() }
            }
        );
        assert_eq!(
            msg("[wfd] overall LTD 0.00"),
            Message::OverallLtd { ltd: 0.0 }
        );
        assert_eq!(
            msg("chosen: idle instance CPU: 1.00 inst, 43200.00 sec"),
            Message::Chosen {
                criterion: ChooseCriterion::IdleInstance,
                rsc: ResourceType::Cpu,
                inst: 1.0,
                secs: 43200.0
            }
        );
        assert_eq!(
            msg("chosen: minor shortfall CPU: 0.00 inst, 240.00 sec"),
            Message::Chosen {
                criterion: ChooseCriterion::MinorShortfall,
                rsc: ResourceType::Cpu,
                inst: 0.0,
                secs: 240.0
            }
        );
        // 6.12: the same line under [work_fetch] (work_fetch.cpp 6.12.34).
        assert_eq!(
            msg("[work_fetch] chosen: starved NVIDIA GPU: 0.00 inst, 60.00 sec"),
            Message::Chosen {
                criterion: ChooseCriterion::Starved,
                rsc: ResourceType::Nvidia,
                inst: 0.0,
                secs: 60.0
            }
        );
    }

    #[test]
    fn untagged_scan() {
        assert_eq!(
            msg("choose_project: scanning"),
            Message::ChooseProjectScanning
        );
        assert_eq!(
            msg("can fetch NVIDIA GPU"),
            Message::CanFetch {
                rsc: ResourceType::Nvidia
            }
        );
        assert_eq!(
            msg("can't fetch NVIDIA GPU: no applications"),
            Message::CantFetch {
                rsc: ResourceType::Nvidia,
                reason: ResourceReason::NoApplications
            }
        );
        assert_eq!(
            msg("CPU needs work - buffer low"),
            Message::NeedsWorkBufferLow {
                rsc: ResourceType::Cpu
            }
        );
        assert_eq!(
            msg("checking NVIDIA GPU"),
            Message::Checking {
                rsc: ResourceType::Nvidia
            }
        );
        assert_eq!(
            msg("CPU not high prio proj"),
            Message::NotHighPrioProj {
                rsc: ResourceType::Cpu
            }
        );
        assert_eq!(
            msg("NVIDIA GPU don't need"),
            Message::DontNeed {
                rsc: ResourceType::Nvidia
            }
        );
        assert_eq!(
            msg("NVIDIA GPU can't fetch: no applications"),
            Message::RscCantFetch {
                rsc: ResourceType::Nvidia,
                reason: ResourceReason::NoApplications
            }
        );
        assert_eq!(
            msg("CPU set_request: 43500.000000"),
            Message::RscSetRequest {
                rsc: ResourceType::Cpu,
                secs: 43500.0
            }
        );
        assert_eq!(
            msg("skip: \"no new tasks\" requested via Manager"),
            Message::ScanSkip {
                reason: ProjectReason::NoNewTasks
            }
        );
        assert_eq!(
            msg("rsc type 0 last MC limit time 0.000000 total buf 51840.000000"),
            Message::McLimitTime {
                rsc_type: 0,
                last_mc_limit_time: 0.0,
                total_buf: 51840.0
            }
        );
        assert_eq!(
            msg("set_request_excluded() 1 2 3"),
            Message::SetRequestExcludedArgs { args: [1, 2, 3] }
        );
        assert_eq!(
            msg("choose_project(): 1555490613.358389"),
            Message::ChooseProjectTime {
                now: 1555490613.358389
            }
        );
    }

    #[test]
    fn piggyback_lines() {
        assert_eq!(
            msg("piggyback_work_request()"),
            Message::PiggybackWorkRequest
        );
        assert_eq!(
            msg("piggyback: resource NVIDIA GPU"),
            Message::PiggybackResource {
                rsc: ResourceType::Nvidia
            }
        );
        assert_eq!(
            msg("piggyback: can't fetch CPU: no applications"),
            Message::PiggybackCantFetch {
                rsc: ResourceType::Cpu,
                reason: ResourceReason::NoApplications
            }
        );
        assert_eq!(
            msg("piggyback: don't need CPU"),
            Message::PiggybackDontNeed {
                rsc: ResourceType::Cpu
            }
        );
        assert_eq!(
            msg("piggyback: Nnw can't fetch work"),
            Message::PiggybackProjectCantFetch {
                project: "Nnw".into()
            }
        );
        assert_eq!(
            msg("piggyback: better proj Alpha"),
            Message::PiggybackBetterProj {
                project: "Alpha".into()
            }
        );
        assert_eq!(
            msg("piggyback: Beta doesn't have jobs"),
            Message::PiggybackNoJobs {
                project: "Beta".into()
            }
        );
    }
}

//! Priority and debt accounting lines: `[prio]`/`[priority]` (priority_debug,
//! 7.0..master), `[debt]`/`[debt_debug]` (debt_debug, ≤6.12),
//! `[std_debug]`/`[std]` (std_debug, 6.10–6.12) and `[dcf]` (dcf_debug)
//! (spec §3.9, §3.13).

use super::lex::{first_word, float, full, rsc_name, uint, Res};
use crate::parse::text::FastSplit;
use crate::resource::ResourceType;
use crate::trace::message::Message;
use nom::bytes::complete::tag;
use nom::combinator::map;
use nom::sequence::{delimited, preceded, terminated, tuple};

/// Classifies the rest of a `[prio]`, `[priority]`, `[debt]`, `[debt_debug]`,
/// `[std_debug]`, `[std]` or `[dcf]` body.
pub(super) fn tagged(rest: &str) -> Option<Message> {
    let (word, tail) = first_word(rest);
    match word {
        "recent" => full(recent_est_credit, tail.strip_prefix("est credit: ")?),
        "adjust_rec:" => {
            let (elapsed, period) = full(
                ignored_period(" negative or longer than sched enforce period("),
                tail,
            )?;
            Some(Message::AdjustRecIgnored { elapsed, period })
        }
        "adjust_debt:" => {
            let (elapsed, period) =
                full(ignored_period(" longer than sched enforce period("), tail)?;
            Some(Message::AdjustDebtIgnored { elapsed, period })
        }
        "DCF:" => full(
            map(
                tuple((
                    float,
                    preceded(tag("->"), float),
                    preceded(tag(", raw_ratio "), float),
                    preceded(tag(", adj_ratio "), float),
                )),
                |(old, new, raw_ratio, adj_ratio)| Message::DcfUpdate {
                    old,
                    new,
                    raw_ratio,
                    adj_ratio,
                },
            ),
            tail,
        ),
        "scaling" => full(
            map(
                preceded(tag("all duration correction factors by "), float),
                |factor| Message::DcfScaling { factor },
            ),
            tail,
        ),
        _ if word.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {
            full(project_priority, rest)
        }
        _ => debt_line(rest),
    }
}

fn project_priority(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            float,
            preceded(tag(" rsf "), float),
            preceded(tag(" rt "), float),
            preceded(tag(" rs "), float),
        )),
        |(prio, rsf, rt, rs)| Message::ProjectPriority { prio, rsf, rt, rs },
    )(input)
}

fn recent_est_credit(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            terminated(float, tag("G in ")),
            terminated(float, tag(" sec, ")),
            float,
            preceded(tag(" + "), float),
            preceded(tag(" ->"), float),
        )),
        |(credit, secs, rec_old, delta, rec)| Message::RecentEstCredit {
            credit,
            secs,
            rec_old,
            delta,
            rec,
        },
    )(input)
}

/// `elapsed time (%.0f)<middle>%.0f).  Ignoring this period.`
fn ignored_period<'a>(middle: &'static str) -> impl FnMut(&'a str) -> Res<'a, (f64, f64)> {
    tuple((
        delimited(tag("elapsed time ("), float, tag(")")),
        preceded(
            tag(middle),
            terminated(float, tag(").  Ignoring this period.")),
        ),
    ))
}

/// `(%.2f*%.2f - %.2f)/%d`: share fraction, interval, used, instances.
fn debt_formula(input: &str) -> Res<'_, (f64, f64, f64, u32)> {
    tuple((
        preceded(tag("("), float),
        preceded(tag("*"), float),
        preceded(tag(" - "), float),
        preceded(tag(")/"), uint),
    ))(input)
}

/// Lines opening with a resource name: `%s LTD %.2f delta %.2f (…)/%d`,
/// `%s LTD: adding offset %f`, `%s STD delta %.2f (…)/%d`, `%s STD %.2f`.
fn debt_line(text: &str) -> Option<Message> {
    if let Some((name, debt)) = text.split_fast(" ineligible; debt ") {
        return Some(Message::DebtIneligible66 {
            rsc: rsc_name(name)?,
            debt: full(float, debt)?,
        });
    }
    if let Some((name, tail)) = text.split_fast(" debt") {
        if let Some(rsc) = rsc_name(name) {
            return debt_line_6_6(rsc, tail);
        }
    }
    if let Some((name, tail)) = text.split_fast(" LTD") {
        let rsc = rsc_name(name)?;
        if let Some(offset) = tail.strip_prefix(": adding offset ") {
            return Some(Message::LtdOffset {
                rsc,
                offset: full(float, offset)?,
            });
        }
        let (ltd, delta, (share_frac, interval, used, ninst)) = full(
            tuple((
                preceded(tag(" "), float),
                preceded(tag(" delta "), float),
                preceded(tag(" "), debt_formula),
            )),
            tail,
        )?;
        return Some(Message::LtdUpdate {
            rsc,
            ltd,
            delta,
            share_frac,
            interval,
            used,
            ninst,
        });
    }
    let (name, tail) = text.split_fast(" STD ")?;
    let rsc: ResourceType = rsc_name(name)?;
    if let Some(rest) = tail.strip_prefix("delta ") {
        let (delta, (share_frac, interval, used, ninst)) =
            full(tuple((float, preceded(tag(" "), debt_formula))), rest)?;
        return Some(Message::StdDelta {
            rsc,
            delta,
            share_frac,
            interval,
            used,
            ninst,
        });
    }
    Some(Message::Std {
        rsc,
        std: full(float, tail)?,
    })
}

/// 6.6-6.8's per-resource debt lines after `%s debt` (client/work_fetch.cpp
/// RSC_WORK_FETCH::update_debts at 6.6.41): ` %.2f delta %.2f share frac
/// %.2f (%.2f/%.2f) secs %.2f rsc_secs %.2f`, `: adding offset %.2f`,
/// `: no eligible projects`; and `%s ineligible; debt %.2f` (the resource
/// name is before ` ineligible`).
fn debt_line_6_6(rsc: ResourceType, tail: &str) -> Option<Message> {
    if let Some(offset) = tail.strip_prefix(": adding offset ") {
        return Some(Message::DebtOffset66 {
            rsc,
            offset: full(float, offset)?,
        });
    }
    if tail == ": no eligible projects" {
        return Some(Message::DebtNoEligible66 { rsc });
    }
    full(
        map(
            tuple((
                preceded(tag(" "), float),
                preceded(tag(" delta "), float),
                preceded(tag(" share frac "), float),
                preceded(tag(" ("), float),
                preceded(tag("/"), float),
                preceded(tag(") secs "), float),
                preceded(tag(" rsc_secs "), float),
            )),
            |(debt, delta, share_frac, share, total_share, secs, rsc_secs)| Message::DebtUpdate66 {
                rsc: rsc.clone(),
                debt,
                delta,
                share_frac,
                share,
                total_share,
                secs,
                rsc_secs,
            },
        ),
        tail,
    )
}

/// Classifies the rest of a `[mem_usage]` body (mem_usage_debug lines of
/// enforce_run_list()).
pub(super) fn mem_usage(rest: &str) -> Option<Message> {
    if let Some(tail) = rest.strip_prefix("enforce: available RAM ") {
        // 7.0–8.2.13: `%.2fMB swap %.2fMB`; 8.2.14–8.2.15: `%.2f GB virtual
        // %.2f GB` (the swap); later: `%.2f GB[, swap space %.2f GB]`.
        if let Some((ram, swap)) = tail.split_fast("MB swap ") {
            let ram_mb = full(float, ram)?;
            let swap_mb = full(float, swap.strip_suffix("MB")?)?;
            return Some(Message::MemUsageAvailable {
                ram_mb,
                swap_mb: Some(swap_mb),
            });
        }
        let (ram, swap) = match tail
            .split_fast(" GB, swap space ")
            .or_else(|| tail.split_fast(" GB virtual "))
        {
            Some((ram, swap)) => (ram, Some(swap.strip_suffix(" GB")?)),
            None => (tail.strip_suffix(" GB")?, None),
        };
        let ram_mb = full(float, ram)? * 1024.0;
        let swap_mb = match swap {
            Some(swap) => Some(full(float, swap)? * 1024.0),
            None => None,
        };
        return Some(Message::MemUsageAvailable { ram_mb, swap_mb });
    }
    let (reason, action) = rest.rsplit_fast(", will ")?;
    let action = match action {
        "preempt by quit" => "quit",
        "suspend" => "suspend",
        _ => return None,
    };
    matches!(
        reason,
        "out of swap space" | "job using too much memory" | "insufficient RAM"
    )
    .then(|| Message::MemUsagePreempt {
        reason: reason.into(),
        action: action.into(),
    })
}

#[cfg(test)]
mod tests {
    use crate::parse::log_messages::classify;
    use crate::resource::ResourceType;
    use crate::trace::message::Message;

    fn msg(body: &str) -> Message {
        classify(body).message
    }

    #[test]
    fn priority_lines() {
        assert_eq!(
            msg("[prio] -0.000000 rsf 0.500000 rt 0.000000 rs 1.000000"),
            Message::ProjectPriority {
                prio: -0.0,
                rsf: 0.5,
                rt: 0.0,
                rs: 1.0
            }
        );
        assert_eq!(
            msg("[prio] recent est credit: 0.00G in 150.00 sec, 0.000000 + 0.000000 ->0.000000"),
            Message::RecentEstCredit {
                credit: 0.0,
                secs: 150.0,
                rec_old: 0.0,
                delta: 0.0,
                rec: 0.0
            }
        );
        assert_eq!(
            msg("[priority] adjust_rec: elapsed time (3600) negative or longer than sched enforce period(150).  Ignoring this period."),
            Message::AdjustRecIgnored { elapsed: 3600.0, period: 150.0 }
        );
    }

    #[test]
    fn debt_lines() {
        assert_eq!(
            msg("[debt_debug] adjust_debt: elapsed time (946684800) longer than sched enforce period(60).  Ignoring this period."),
            Message::AdjustDebtIgnored { elapsed: 946684800.0, period: 60.0 }
        );
        assert_eq!(
            msg("[debt] CPU LTD 30.00 delta 30.00 (0.50*120.00 - 0.00)/2"),
            Message::LtdUpdate {
                rsc: ResourceType::Cpu,
                ltd: 30.0,
                delta: 30.0,
                share_frac: 0.5,
                interval: 120.0,
                used: 0.0,
                ninst: 2
            }
        );
        assert_eq!(
            msg("[debt] CPU LTD: adding offset -30.000000"),
            Message::LtdOffset {
                rsc: ResourceType::Cpu,
                offset: -30.0
            }
        );
        assert_eq!(
            msg("[std_debug] CPU STD delta 30.00 (0.50*120.00 - 0.00)/2"),
            Message::StdDelta {
                rsc: ResourceType::Cpu,
                delta: 30.0,
                share_frac: 0.5,
                interval: 120.0,
                used: 0.0,
                ninst: 2
            }
        );
        assert_eq!(
            msg("[std_debug] NVIDIA GPU STD 30.00"),
            Message::Std {
                rsc: ResourceType::Nvidia,
                std: 30.0
            }
        );
    }

    #[test]
    fn debt_lines_of_6_6() {
        assert_eq!(
            msg("[debt] CPU debt -45.00 delta -15.00 share frac 0.50 (100.00/200.00) secs 120.00 rsc_secs 90.00"),
            Message::DebtUpdate66 {
                rsc: ResourceType::Cpu,
                debt: -45.0,
                delta: -15.0,
                share_frac: 0.5,
                share: 100.0,
                total_share: 200.0,
                secs: 120.0,
                rsc_secs: 90.0
            }
        );
        assert_eq!(
            msg("[debt] CPU debt: adding offset -7.50"),
            Message::DebtOffset66 {
                rsc: ResourceType::Cpu,
                offset: -7.5
            }
        );
        assert_eq!(
            msg("[debt] CPU ineligible; debt -12.25"),
            Message::DebtIneligible66 {
                rsc: ResourceType::Cpu,
                debt: -12.25
            }
        );
        assert_eq!(
            msg("[debt] CUDA debt: no eligible projects"),
            Message::DebtNoEligible66 {
                rsc: ResourceType::Nvidia
            }
        );
    }

    #[test]
    fn dcf_lines_under_old_tags() {
        assert_eq!(
            msg("[wfd] DCF: 1.000000->0.900000, raw_ratio 0.800000, adj_ratio 0.900000"),
            Message::DcfUpdate {
                old: 1.0,
                new: 0.9,
                raw_ratio: 0.8,
                adj_ratio: 0.9
            }
        );
        assert_eq!(
            msg("[csd] scaling all duration correction factors by 2.000000"),
            Message::DcfScaling { factor: 2.0 }
        );
    }

    #[test]
    fn dcf_lines() {
        assert_eq!(
            msg("[dcf] DCF: 1.000000->1.000000, raw_ratio 1.000000, adj_ratio 1.000000"),
            Message::DcfUpdate {
                old: 1.0,
                new: 1.0,
                raw_ratio: 1.0,
                adj_ratio: 1.0
            }
        );
        assert_eq!(
            msg("[dcf] scaling all duration correction factors by 0.5"),
            Message::DcfScaling { factor: 0.5 }
        );
    }
}

//! Round-robin simulation lines: `[rr_sim]` (rr_simulation), `[rr_sim_detail]`
//! and `[rrsim_detail]` (rrsim_detail), all eras (spec §3.4, §4).

use super::lex::{
    first_word, float, full, gflops_pair, int, job_resources, name_until, rsc_name, uint,
    value_then_rsc, Res,
};
use crate::parse::text::FastSplit;
use crate::trace::message::{Message, SimReason};
use compact_str::CompactString;
use nom::bytes::complete::tag;
use nom::combinator::map;
use nom::sequence::{preceded, terminated, tuple};

/// Classifies the rest of an `[rr_sim]`, `[rr_sim_detail]` or `[rrsim_detail]` body.
pub(super) fn tagged(rest: &str) -> Option<Message> {
    let (word, tail) = first_word(rest);
    match word {
        "doing" => Some(Message::DoingSim {
            why: SimReason::from_text(tail.strip_prefix("sim: ")?),
        }),
        "already" => (tail == "did at this time").then_some(Message::SimAlreadyDone),
        "end" => tail.is_empty().then_some(Message::RrSimEnd),
        "start:" => full(start, tail),
        "rr_sim" => full(start_total, tail.strip_prefix("start: ")?),
        "piggyback:" => match tail {
            "don't need work" => Some(Message::PiggybackDontNeedWork),
            _ => Some(Message::PiggybackRequesting {
                rsc: rsc_name(tail.strip_prefix("requesting ")?)?,
            }),
        },
        "at" => at_max_concurrent(tail),
        "next" => full(next_job, tail.strip_prefix("job to finish: ")?),
        "taking" | "time-slice" => {
            let tail = if word == "taking" {
                tail.strip_prefix("time-slice ")?
            } else {
                tail
            };
            full(
                map(
                    preceded(tag("step of "), terminated(float, tag(" sec"))),
                    |secs| Message::TimeSliceStep { secs },
                ),
                tail,
            )
        }
        "rpbest:" => full(
            map(
                tuple((
                    name_until(" (finish delay "),
                    preceded(tag(" (finish delay "), terminated(float, tag(")"))),
                )),
                |(job, finish_delay)| Message::RpBest { job, finish_delay },
            ),
            tail,
        ),
        "Result" => projected_miss(tail),
        "Project" => project_misses(tail),
        "rsc" => full(rsc_instances, tail),
        "result" => job_line(tail),
        _ => match word.strip_suffix(':') {
            Some(time) => timed(full(float, time)?, tail),
            None if tail.starts_with("jobs for rsc ") => full(
                map(
                    tuple((uint, preceded(tag(" jobs for rsc "), uint))),
                    |(njobs, rsc_index)| Message::JobsForRsc { njobs, rsc_index },
                ),
                rest,
            ),
            None => job_line(rest),
        },
    }
}

fn start(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            preceded(tag("work_buf min "), float),
            preceded(tag(" additional "), float),
            preceded(tag(" total "), float),
            preceded(tag(" on_frac "), float),
            preceded(tag(" active_frac "), float),
        )),
        |(work_buf_min, additional, total, on_frac, active_frac)| Message::RrSimStart {
            work_buf_min,
            additional,
            total,
            on_frac,
            active_frac,
        },
    )(input)
}

fn start_total(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            preceded(tag("work_buf_total "), float),
            preceded(tag(" on_frac "), float),
            preceded(tag(" active_frac "), float),
        )),
        |(work_buf_total, on_frac, active_frac)| Message::RrSimStartTotal {
            work_buf_total,
            on_frac,
            active_frac,
        },
    )(input)
}

/// `at project max concurrent[: t %f]`, `at app max concurrent for %s[; t %f]`.
fn at_max_concurrent(tail: &str) -> Option<Message> {
    if let Some(rest) = tail.strip_prefix("project max concurrent") {
        let t = match rest {
            "" => None,
            _ => Some(full(float, rest.strip_prefix(": t ")?)?),
        };
        return Some(Message::AtProjectMaxConcurrent { t });
    }
    let rest = tail.strip_prefix("app max concurrent for ")?;
    let (app, t) = match rest.rsplit_fast("; t ") {
        Some((app, time)) => (app, Some(full(float, time)?)),
        None => (rest, None),
    };
    Some(Message::AtAppMaxConcurrent { app: app.into(), t })
}

fn next_job(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            name_until(" (will finish in "),
            preceded(
                tag(" (will finish in "),
                preceded(
                    nom::character::complete::space0,
                    terminated(float, tag(" sec)")),
                ),
            ),
        )),
        |(job, secs)| Message::NextJobToFinish { job, secs },
    )(input)
}

/// `Result %s projected to miss deadline.` (also under `[cpu_sched_debug]` in 6.x).
pub(super) fn projected_miss(tail: &str) -> Option<Message> {
    let job = tail.strip_suffix(" projected to miss deadline.")?;
    Some(Message::ProjectedDeadlineMiss { job: job.into() })
}

/// `Project has %d projected %s deadline misses` (also under `[cpu_sched_debug]` in 6.x).
pub(super) fn project_misses(tail: &str) -> Option<Message> {
    let rest = tail
        .strip_prefix("has ")?
        .strip_suffix(" deadline misses")?;
    let (count, rsc) = value_then_rsc(uint, " projected ", rest)?;
    Some(Message::ProjectDeadlineMisses { count, rsc })
}

fn rsc_instances(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            int,
            preceded(tag(": sim_used_inst "), int),
            preceded(tag(" mask "), int),
            preceded(tag(" sim_excluded_instances "), int),
        )),
        |(rsc_index, sim_used_inst, mask, sim_excluded_instances)| Message::SimRscInstances {
            rsc_index,
            sim_used_inst,
            mask,
            sim_excluded_instances,
        },
    )(input)
}

/// Lines opening with `%.2f: `: `starting %s ...`, `%s finishes ...`.
fn timed(t: f64, tail: &str) -> Option<Message> {
    if let Some(rest) = tail.strip_prefix("starting ") {
        let Some((job, paren)) = rest.split_fast(" (") else {
            return Some(Message::SimStarting {
                t,
                job: rest.into(),
                resources: None,
                gflops_left: None,
                gflops_rate: None,
            });
        };
        let (inner, after) = paren.split_fast(')')?;
        let resources = Some(job_resources(inner)?);
        let (gflops_left, gflops_rate) = match after {
            "" => (None, None),
            _ => {
                let (left, rate) = full(gflops_pair, after.strip_prefix(' ')?)?;
                (Some(left), Some(rate))
            }
        };
        return Some(Message::SimStarting {
            t,
            job: job.into(),
            resources,
            gflops_left,
            gflops_rate,
        });
    }
    let (job, rest) = tail.split_fast(" finishes ")?;
    let job = CompactString::from(job);
    if let Some(after) = rest.strip_prefix("after ") {
        let (after, (gflops_left, gflops_rate)) =
            full(tuple((terminated(float, tag(" ")), gflops_pair)), after)?;
        return Some(Message::SimFinishesAfter {
            t,
            job,
            after,
            gflops_left,
            gflops_rate,
        });
    }
    if let Some((left, rate)) = full(gflops_pair, rest) {
        return Some(Message::SimFinishes {
            t,
            job,
            resources: None,
            gflops_left: left,
            gflops_rate: rate,
        });
    }
    let (inner, after) = rest.strip_prefix('(')?.split_fast(") ")?;
    let (gflops_left, gflops_rate) = full(gflops_pair, after)?;
    Some(Message::SimFinishes {
        t,
        job,
        resources: Some(job_resources(inner)?),
        gflops_left,
        gflops_rate,
    })
}

/// Lines opening with a job name: `%s misses deadline by %.2f`,
/// `%s misses deadline but [RSS ]too large to run`, `%s dur: ...`, `%s frac_est ...`.
fn job_line(text: &str) -> Option<Message> {
    let (job, tail) = first_word(text);
    let job = CompactString::from(job);
    let (word, rest) = first_word(tail);
    match word {
        "misses" => match rest.strip_prefix("deadline ")? {
            "but RSS too large to run" | "but too large to run" => {
                Some(Message::MissesDeadlineTooLarge { job })
            }
            by => Some(Message::MissesDeadline {
                job,
                by: full(float, by.strip_prefix("by ")?)?,
            }),
        },
        "dur:" => full(
            map(
                tuple((
                    float,
                    preceded(tag(" = "), float),
                    preceded(tag("*"), float),
                    preceded(tag(" + "), float),
                    preceded(tag("*"), float),
                )),
                |(dur, w_elapsed, est_elapsed, w_static, est_static)| Message::DurationEstimate {
                    job: job.clone(),
                    dur,
                    w_elapsed,
                    est_elapsed,
                    w_static,
                    est_static,
                },
            ),
            rest,
        ),
        "frac_est" => full(
            map(
                tuple((
                    float,
                    preceded(tag(" = "), float),
                    preceded(tag("/"), float),
                )),
                |(frac_est, num, den)| Message::FracEstimate {
                    job: job.clone(),
                    frac_est,
                    num,
                    den,
                },
            ),
            rest,
        ),
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

    fn cpu(ncpus: f64) -> Option<JobResources> {
        Some(JobResources {
            ncpus,
            coproc: None,
        })
    }

    #[test]
    fn pass_frame() {
        assert_eq!(
            msg("[rr_sim] doing sim: work fetch"),
            Message::DoingSim {
                why: SimReason::WorkFetch
            }
        );
        assert_eq!(
            msg("[rr_sim] already did at this time"),
            Message::SimAlreadyDone
        );
        assert_eq!(msg("[rr_sim] end"), Message::RrSimEnd);
        assert_eq!(
            msg("[rr_sim] start: work_buf min 21600 additional 21600 total 43200 on_frac 1.000 active_frac 1.000"),
            Message::RrSimStart { work_buf_min: 21600.0, additional: 21600.0, total: 43200.0, on_frac: 1.0, active_frac: 1.0 }
        );
        assert_eq!(
            msg("[rr_sim] rr_sim start: work_buf_total 43200.00 on_frac 1.000 active_frac 1.000"),
            Message::RrSimStartTotal {
                work_buf_total: 43200.0,
                on_frac: 1.0,
                active_frac: 1.0
            }
        );
        assert_eq!(msg("pick_jobs_to_run() start"), Message::PickJobsToRunStart);
        assert_eq!(
            msg("[rr_sim] 3 jobs for rsc 1"),
            Message::JobsForRsc {
                njobs: 3,
                rsc_index: 1
            }
        );
    }

    #[test]
    fn starting_all_eras() {
        assert_eq!(
            msg("[rr_sim_detail] 0.00: starting Urgent_init_2_0 (1.00 CPU) (32400.00G/3.00G)"),
            Message::SimStarting {
                t: 0.0,
                job: "Urgent_init_2_0".into(),
                resources: cpu(1.0),
                gflops_left: Some(32400.0),
                gflops_rate: Some(3.0)
            }
        );
        assert_eq!(
            msg("[rr_sim_detail] 0.00: starting Urgent_init_2_0 (1.00 CPU)"),
            Message::SimStarting {
                t: 0.0,
                job: "Urgent_init_2_0".into(),
                resources: cpu(1.0),
                gflops_left: None,
                gflops_rate: None
            }
        );
        assert_eq!(
            msg("[rr_sim] 12.50: starting Urgent_0"),
            Message::SimStarting {
                t: 12.5,
                job: "Urgent_0".into(),
                resources: None,
                gflops_left: None,
                gflops_rate: None
            }
        );
    }

    #[test]
    fn finishes_all_eras() {
        assert_eq!(
            msg("[rr_sim] 6900.00: A_0 finishes (0.20 CPU + 1.00 NVIDIA GPU) (276000.00G/40.00G)"),
            Message::SimFinishes {
                t: 6900.0,
                job: "A_0".into(),
                resources: Some(JobResources {
                    ncpus: 0.2,
                    coproc: Some(CoprocUsage {
                        usage: 1.0,
                        rsc: ResourceType::Nvidia
                    })
                }),
                gflops_left: 276000.0,
                gflops_rate: 40.0
            }
        );
        assert_eq!(
            msg("[rr_sim] 7200.00: Urgent_init_2_0 finishes (32400.00G/3.00G)"),
            Message::SimFinishes {
                t: 7200.0,
                job: "Urgent_init_2_0".into(),
                resources: None,
                gflops_left: 32400.0,
                gflops_rate: 3.0
            }
        );
        assert_eq!(
            msg("[rr_sim] 0.00: Urgent_0 finishes after 10800.00 (32400.00G/3.00G)"),
            Message::SimFinishesAfter {
                t: 0.0,
                job: "Urgent_0".into(),
                after: 10800.0,
                gflops_left: 32400.0,
                gflops_rate: 3.0
            }
        );
    }

    #[test]
    fn detail_and_deadlines() {
        assert_eq!(
            msg(
                "[rrsim_detail] next job to finish: Urgent_init_2_0 (will finish in  10800.00 sec)"
            ),
            Message::NextJobToFinish {
                job: "Urgent_init_2_0".into(),
                secs: 10800.0
            }
        );
        assert_eq!(
            msg("[rrsim_detail] taking time-slice step of 3600.00 sec"),
            Message::TimeSliceStep { secs: 3600.0 }
        );
        assert_eq!(
            msg("[rrsim_detail] time-slice step of 60.00 sec"),
            Message::TimeSliceStep { secs: 60.0 }
        );
        assert_eq!(
            msg("[rrsim_detail] rsc 1: sim_used_inst 1 mask 0 sim_excluded_instances 0"),
            Message::SimRscInstances {
                rsc_index: 1,
                sim_used_inst: 1,
                mask: 0,
                sim_excluded_instances: 0
            }
        );
        assert_eq!(
            msg("[rr_sim] at app max concurrent for st_app; t 0.000000"),
            Message::AtAppMaxConcurrent {
                app: "st_app".into(),
                t: Some(0.0)
            }
        );
        assert_eq!(
            msg("[rr_sim] at project max concurrent: t 5.000000"),
            Message::AtProjectMaxConcurrent { t: Some(5.0) }
        );
        assert_eq!(
            msg("[rr_sim] Urgent_init_2_0 misses deadline by 10800.00"),
            Message::MissesDeadline {
                job: "Urgent_init_2_0".into(),
                by: 10800.0
            }
        );
        assert_eq!(
            msg("[rr_sim] X_1 misses deadline but RSS too large to run"),
            Message::MissesDeadlineTooLarge { job: "X_1".into() }
        );
        assert_eq!(
            msg("[rr_sim] Result Urgent_init_2_0 projected to miss deadline."),
            Message::ProjectedDeadlineMiss {
                job: "Urgent_init_2_0".into()
            }
        );
        assert_eq!(
            msg("[rr_sim] Project has 6 projected CPU deadline misses"),
            Message::ProjectDeadlineMisses {
                count: 6,
                rsc: ResourceType::Cpu
            }
        );
        assert_eq!(
            msg("[rr_sim] Urgent_2 dur: 10800.00 = 0.017*10800.00 + 0.983*10800.00"),
            Message::DurationEstimate {
                job: "Urgent_2".into(),
                dur: 10800.0,
                w_elapsed: 0.017,
                est_elapsed: 10800.0,
                w_static: 0.983,
                est_static: 10800.0
            }
        );
        assert_eq!(
            msg("[rr_sim] piggyback: requesting NVIDIA GPU"),
            Message::PiggybackRequesting {
                rsc: ResourceType::Nvidia
            }
        );
        assert_eq!(
            msg("[rr_sim] piggyback: don't need work"),
            Message::PiggybackDontNeedWork
        );
    }
}

//! The scheduler rules S1–S10 of spec/server-side.md §2, checked on one
//! [`Exchange`] exactly as the spec words them, with its corrections.
//!
//! Architecture Invariant: server rules read the Trace and produce the
//! neutral divergence model; no I/O, no output formats.
//!
//! Each `s<N>` function returns one [`RuleOutcome`]. Every number a
//! violation depends on is quoted in its reason. Where the spec names an
//! element as absent in older clients or servers, the rule (or that part of
//! it) is *not checkable* with the missing element named, never violated.
//! Where a server era is ambiguous (§1.3 "accept either behaviour"), the
//! lenient reading is taken.

use super::exchange::{later_log_rpcs, Exchange, CLOCK_TOLERANCE_SECS};
use super::{RuleOutcome, Verdict, Violation};
use crate::resource::ResourceType;
use crate::trace::message::RpcReason;
use crate::trace::rpc::{SchedReply, SchedRequest};
use crate::trace::state::AppVersion;
use crate::trace::Trace;

/// `clamp_req_sec`: request seconds are clamped to [0, 28 days].
pub const MAX_REQ_SECS: f64 = 28.0 * 86400.0;
/// `DELAY_MAX`: the largest `request_delay` a scheduler sets (2 days).
pub const DELAY_MAX: f64 = 172_800.0;
/// `rsc_fpops_est` ≤ 0 is replaced by this (`estimate_duration`).
const DEFAULT_FPOPS: f64 = 1e12;
/// Seconds below which a remaining request counts as exhausted (float noise).
const SECS_EPSILON: f64 = 1e-3;
/// Instances below which a remaining request counts as exhausted.
const INST_EPSILON: f64 = 1e-9;

/// Checks S1–S10 on `exchange`; `later` are the exchanges after it (S10
/// looks for the next RPC of the same project).
pub fn check_exchange(trace: &Trace, exchange: &Exchange, later: &[Exchange]) -> Vec<RuleOutcome> {
    let jobs = exchange
        .reply
        .as_ref()
        .map(|reply| sent_jobs(reply, exchange.paired_request()))
        .unwrap_or_default();
    vec![
        s1(exchange, &jobs),
        s2(exchange, &jobs),
        s3(exchange, &jobs),
        s4(exchange, &jobs),
        s5(exchange, &jobs),
        s6(exchange, &jobs),
        s7(exchange, &jobs),
        s8(exchange, &jobs),
        s9(exchange, &jobs),
        s10(trace, exchange, later),
    ]
}

/// One new job of a reply, resolved against its workunit and app version.
#[derive(Clone, Debug, PartialEq)]
pub struct SentJob {
    /// `result/name`.
    pub name: String,
    /// The app (from the workunit).
    pub app_name: Option<String>,
    /// `result/platform`.
    pub platform: Option<String>,
    /// `result/version_num`.
    pub version_num: Option<i64>,
    /// `result/plan_class` (empty = none).
    pub plan_class: Option<String>,
    /// The processor type, `None` when no app version matches.
    pub rsc: Option<ResourceType>,
    /// CPUs used (`avg_ncpus`, default 1).
    pub avg_ncpus: f64,
    /// Instances of its type used: `avg_ncpus` for CPU jobs, the GPU count
    /// for GPU jobs.
    pub usage: f64,
    /// Projected FLOPS of the version (`app_version/flops`).
    pub flops: Option<f64>,
    /// `workunit/rsc_fpops_est` (≤ 0 or absent → 1e12).
    pub fpops_est: f64,
    /// `result/report_deadline`.
    pub report_deadline: Option<f64>,
    /// Announced by "Resent lost task NAME".
    pub resent: bool,
    /// The app is non-CPU-intensive.
    pub non_cpu_intensive: bool,
}

/// The reply's new jobs in the order they were added.
pub fn sent_jobs(reply: &SchedReply, request: Option<&SchedRequest>) -> Vec<SentJob> {
    let anonymous = request
        .and_then(|r| r.platform_name.as_deref())
        .is_some_and(|p| p == "anonymous");
    reply
        .results
        .iter()
        .map(|result| {
            let name = result.name.clone().unwrap_or_default();
            let workunit = reply
                .workunits
                .iter()
                .find(|wu| wu.name.is_some() && wu.name == result.wu_name);
            let app_name = workunit
                .and_then(|wu| wu.app_name.clone())
                .or_else(|| result.app_name.clone());
            let plan_class = result.plan_class.clone().filter(|p| !p.is_empty());
            let matches = |version: &&AppVersion| {
                version.app_name == app_name
                    && (result.version_num.is_none() || version.version_num == result.version_num)
                    && (result.platform.is_none()
                        || version.platform.is_none()
                        || version.platform == result.platform)
                    && (plan_class.is_none()
                        || version.plan_class.as_ref().filter(|p| !p.is_empty())
                            == plan_class.as_ref())
            };
            let version = reply.app_versions.iter().find(matches).or_else(|| {
                request
                    .filter(|_| anonymous)
                    .and_then(|r| r.app_versions.iter().find(matches))
            });
            let coproc = workunit
                .and_then(|wu| wu.coproc.clone())
                .or_else(|| version.and_then(|v| v.coproc.clone()))
                .filter(|c| c.count.unwrap_or(0.0) > 0.0);
            let avg_ncpus = workunit
                .and_then(|wu| wu.avg_ncpus)
                .or_else(|| version.and_then(|v| v.avg_ncpus))
                .unwrap_or(1.0);
            let rsc = match (&coproc, version) {
                (Some(c), _) => Some(c.rsc.clone()),
                (None, Some(_)) => Some(ResourceType::Cpu),
                (None, None) => None,
            };
            let usage = coproc.as_ref().and_then(|c| c.count).unwrap_or(avg_ncpus);
            let non_cpu_intensive = reply.non_cpu_intensive
                || reply
                    .apps
                    .iter()
                    .any(|app| app.name == app_name && app.non_cpu_intensive);
            let resent = reply.messages.iter().any(|m| {
                m.text
                    .strip_prefix("Resent lost task ")
                    .is_some_and(|rest| rest.trim() == name)
            });
            SentJob {
                app_name,
                platform: result.platform.clone(),
                version_num: result.version_num,
                plan_class,
                rsc,
                avg_ncpus,
                usage,
                flops: workunit
                    .and_then(|wu| wu.flops)
                    .or_else(|| version.and_then(|v| v.flops))
                    .filter(|f| *f > 0.0),
                fpops_est: workunit
                    .and_then(|wu| wu.rsc_fpops_est)
                    .filter(|f| *f > 0.0)
                    .unwrap_or(DEFAULT_FPOPS),
                report_deadline: result.report_deadline,
                resent,
                non_cpu_intensive,
                name,
            }
        })
        .collect()
}

/// The request as the scheduler reads it (§1.2).
#[derive(Clone, Debug, PartialEq)]
pub struct Demand {
    /// `rsc_spec_request`: some `req_secs[t] ≠ 0`.
    pub new_style: bool,
    /// Per type: (type, clamped seconds, instances). The CPU first; GPU
    /// types only if reported with `count > 0`.
    pub per_type: Vec<(ResourceType, f64, f64)>,
    /// `seconds_to_fill`: `work_req_seconds` clamped.
    pub seconds_to_fill: f64,
}

impl Demand {
    /// Reads `request` (§1.2 `send_work_setup`).
    pub fn of(request: &SchedRequest) -> Demand {
        let clamp = |secs: Option<f64>| secs.unwrap_or(0.0).clamp(0.0, MAX_REQ_SECS);
        let mut per_type = vec![(
            ResourceType::Cpu,
            clamp(request.cpu_req_secs),
            request.cpu_req_instances.unwrap_or(0.0),
        )];
        for coproc in &request.coprocs {
            if coproc.count.unwrap_or(0) > 0 {
                per_type.push((
                    coproc.rsc.clone(),
                    clamp(coproc.req_secs),
                    coproc.req_instances.unwrap_or(0.0),
                ));
            }
        }
        let new_style = per_type.iter().any(|(_, secs, _)| *secs != 0.0);
        Demand {
            new_style,
            per_type,
            seconds_to_fill: clamp(request.work_req_seconds),
        }
    }

    /// (seconds, instances) requested for `rsc` (0, 0 when not requested).
    pub fn of_type(&self, rsc: &ResourceType) -> (f64, f64) {
        self.per_type
            .iter()
            .find(|(t, _, _)| t == rsc)
            .map_or((0.0, 0.0), |(_, secs, inst)| (*secs, *inst))
    }

    /// One-line summary: `CPU 8640 s/2 inst; NVIDIA GPU 0 s/0 inst`.
    pub fn summary(&self) -> String {
        if !self.new_style {
            return format!("old-style: seconds_to_fill {:.0} s", self.seconds_to_fill);
        }
        self.per_type
            .iter()
            .map(|(rsc, secs, inst)| format!("{rsc} {secs:.0} s/{inst} inst"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The availability factors of §S2 for one exchange: (CPU, GPU) choices.
/// Where the era is ambiguous the larger factor (shorter durations, the
/// lenient reading) is returned.
pub fn availability(exchange: &Exchange) -> (f64, f64) {
    let stats = exchange
        .paired_request()
        .and_then(|request| request.time_stats.clone())
        .unwrap_or_default();
    let clamp = |x: f64| x.clamp(0.1, 1.0);
    let on = stats.on_frac.unwrap_or(1.0);
    let active = stats.active_frac.unwrap_or(1.0);
    let old_client = exchange
        .client_version_number()
        .is_some_and(|v| v < 41_900 + 100);
    let cpu = if old_client {
        clamp(on)
    } else {
        clamp(active) * clamp(on)
    };
    let gpu_current = clamp(stats.gpu_active_frac.unwrap_or(0.0)) * clamp(on);
    let version = exchange.reply.as_ref().and_then(|r| r.scheduler_version);
    let gpu = match version {
        Some(v) if v <= 702 => cpu,
        Some(v) if v >= 705 => gpu_current,
        _ => cpu.max(gpu_current),
    };
    (cpu, gpu)
}

/// `d(J)` of S2, when the version's FLOPS are known.
pub fn duration(job: &SentJob, avail: (f64, f64)) -> Option<f64> {
    let factor = if job.rsc.as_ref().is_some_and(ResourceType::is_coproc) {
        avail.1
    } else {
        avail.0
    };
    job.flops.map(|flops| job.fpops_est / flops / factor)
}

fn jobs_summary(jobs: &[SentJob]) -> String {
    if jobs.is_empty() {
        return "no jobs".to_string();
    }
    let names: Vec<String> = jobs
        .iter()
        .map(|job| {
            let rsc = job.rsc.as_ref().map_or("type unknown", |r| r.long_name());
            format!("{} ({rsc})", job.name)
        })
        .collect();
    format!("{} jobs: {}", jobs.len(), names.join(", "))
}

fn violation(
    rsc: Option<&ResourceType>,
    job: Option<&str>,
    recorded: String,
    replayed: String,
    reason: String,
) -> Violation {
    Violation {
        resource: rsc.cloned(),
        job: job.map(str::to_string),
        recorded,
        replayed,
        reason,
    }
}

/// S1 — type gating [MUST for new-style requests].
pub fn s1(exchange: &Exchange, jobs: &[SentJob]) -> RuleOutcome {
    const RULE: &str = "S1";
    if jobs.is_empty() {
        return RuleOutcome::new(
            RULE,
            "no jobs".into(),
            "nothing to gate".into(),
            Verdict::Holds,
        );
    }
    let Some(request) = exchange.paired_request() else {
        return RuleOutcome::unchecked(RULE, exchange.request_missing_why());
    };
    if let Some(job) = jobs.iter().find(|job| job.rsc.is_none()) {
        return RuleOutcome::unchecked(
            RULE,
            format!(
                "job type unknown: no app_version in the reply or the request matches job {}",
                job.name
            ),
        );
    }
    let demand = Demand::of(request);
    let recorded = jobs_summary(jobs);
    let mut violations = Vec::new();
    if request.dont_send_work == Some(true) {
        for job in jobs.iter().filter(|job| !job.non_cpu_intensive) {
            violations.push(violation(
                job.rsc.as_ref(),
                Some(&job.name),
                format!("sent {}", job.name),
                "no jobs: the request says dont_send_work".into(),
                format!(
                    "S1: job {} sent although the request carried <dont_send_work/>",
                    job.name
                ),
            ));
        }
        return RuleOutcome::from_violations(
            RULE,
            recorded,
            "no jobs (dont_send_work)".into(),
            violations,
        );
    }
    let avail = availability(exchange);
    let durations: Option<Vec<f64>> = jobs.iter().map(|job| duration(job, avail)).collect();
    let mut partly = Vec::new();
    if durations.is_none() {
        partly.push(
            "no projected FLOPS (app_version/flops absent): only the type gate of the \
             request's initial values was checked, not the decrement sequence"
                .to_string(),
        );
    }
    if demand.new_style {
        let mut remaining = demand.per_type.clone();
        for (index, job) in jobs.iter().enumerate() {
            let Some(rsc) = job.rsc.as_ref() else {
                continue;
            };
            let (req_secs, req_inst) = demand.of_type(rsc);
            let slot = remaining.iter_mut().find(|(t, _, _)| t == rsc);
            let (rs, ri) = slot.as_ref().map_or((0.0, 0.0), |(_, s, i)| (*s, *i));
            // The scheduler asks `> 0` of what the request carries
            // (sched_send.cpp work_needed): a tiny request still gets a
            // job; the epsilon absorbs only the float noise of decrements.
            let untouched = rs == req_secs && ri == req_inst;
            let needed = if untouched {
                rs > 0.0 || ri > 0.0
            } else {
                rs > SECS_EPSILON || ri > INST_EPSILON
            };
            if !needed {
                let was_zero = req_secs <= 0.0 && req_inst <= 0.0;
                let reason = if was_zero {
                    format!(
                        "S1: job {} is a {rsc} job but the request asked for {rsc} {req_secs:.0} s and {req_inst} instances",
                        job.name
                    )
                } else {
                    format!(
                        "S1: job {} ({rsc}) added after the {rsc} request was exhausted: {rs:.0} s and {ri:.2} instances left of {req_secs:.0} s/{req_inst} inst (over-delivery is bounded by one job)",
                        job.name
                    )
                };
                violations.push(violation(
                    Some(rsc),
                    Some(&job.name),
                    format!("sent {} ({rsc})", job.name),
                    format!("no {rsc} job: remaining {rs:.0} s, {ri:.2} inst"),
                    reason,
                ));
            }
            if let Some((_, s, i)) = slot {
                if let Some(d) = durations.as_ref().and_then(|d| d.get(index)) {
                    *s -= d * job.usage;
                } else {
                    // Without d(J) the seconds never count as exhausted after
                    // a first job: only the initial gate is decidable.
                    *s = if *s > 0.0 { f64::INFINITY } else { *s };
                }
                *i -= job.usage;
            }
        }
    } else {
        let mut to_fill = demand.seconds_to_fill;
        for (index, job) in jobs.iter().enumerate() {
            if to_fill <= SECS_EPSILON && !job.non_cpu_intensive {
                violations.push(violation(
                    job.rsc.as_ref(),
                    Some(&job.name),
                    format!("sent {}", job.name),
                    format!("no job: seconds_to_fill {to_fill:.0} s"),
                    format!(
                        "S1: job {} added with seconds_to_fill {to_fill:.0} s left of work_req_seconds {:.0} s (old-style request, single counter)",
                        job.name, demand.seconds_to_fill
                    ),
                ));
            }
            match durations.as_ref().and_then(|d| d.get(index)) {
                Some(d) => to_fill -= d,
                None => {
                    to_fill = if to_fill > 0.0 {
                        f64::INFINITY
                    } else {
                        to_fill
                    }
                }
            }
        }
    }
    let mut outcome = RuleOutcome::from_violations(
        RULE,
        recorded,
        format!("jobs only while requested: {}", demand.summary()),
        violations,
    );
    outcome.partly_unchecked = partly;
    outcome
}

/// S2 — duration estimate [INFO]: quotes `d(J)` per job, never violated.
pub fn s2(exchange: &Exchange, jobs: &[SentJob]) -> RuleOutcome {
    const RULE: &str = "S2";
    if jobs.is_empty() {
        return RuleOutcome::new(
            RULE,
            "no jobs".into(),
            String::new(),
            Verdict::NotApplicable("no jobs in the reply".into()),
        );
    }
    let avail = availability(exchange);
    let mut parts = Vec::new();
    for job in jobs {
        match duration(job, avail) {
            Some(d) => parts.push(format!("{} d={d:.0} s", job.name)),
            None => {
                return RuleOutcome::unchecked(
                    RULE,
                    format!(
                        "no projected FLOPS for job {} (app_version/flops absent)",
                        job.name
                    ),
                )
            }
        }
    }
    RuleOutcome::new(
        RULE,
        jobs_summary(jobs),
        format!(
            "INFO: {} (avail CPU {:.3}, GPU {:.3})",
            parts.join(", "),
            avail.0,
            avail.1
        ),
        Verdict::Holds,
    )
}

/// The effective CPU count for limits (§1.2): `p_ncpus` scaled by
/// `0 < max_ncpus_pct < 100` (0 means no limit), capped by the user's
/// `max_cpus`, at least 1.
pub fn effective_ncpus(request: &SchedRequest, reply: Option<&SchedReply>) -> f64 {
    let ncpus = request.ncpus();
    let pct = request
        .working_global_preferences
        .as_ref()
        .or(request.global_preferences.as_ref())
        .and_then(|p| p.values.max_ncpus_pct)
        .unwrap_or(0.0);
    let mut n = if pct > 0.0 && pct < 100.0 {
        (ncpus * pct / 100.0).trunc()
    } else {
        ncpus
    };
    if let Some(max_cpus) = reply
        .and_then(|r| r.project_preferences.as_ref())
        .and_then(|p| p.max_cpus)
        .filter(|m| *m > 0)
    {
        n = n.min(max_cpus as f64);
    }
    n.max(1.0)
}

/// S3 — when sending stops [MUST]: only the user's `max_jobs` is checkable;
/// the project's limits are never in a transcript.
pub fn s3(exchange: &Exchange, jobs: &[SentJob]) -> RuleOutcome {
    const RULE: &str = "S3";
    let Some(reply) = &exchange.reply else {
        return RuleOutcome::unchecked(RULE, "reply not kept");
    };
    let request = exchange.paired_request();
    let in_progress = request
        .filter(|r| r.has_other_results)
        .map(|r| r.other_results.len());
    let n_sent = jobs.len();
    let max_jobs = reply
        .project_preferences
        .as_ref()
        .and_then(|p| p.max_jobs)
        .filter(|m| *m > 0);
    let info = request.map_or(String::new(), |r| {
        format!(
            "; INFO default cap 10 per effective CPU = {:.0}",
            10.0 * effective_ncpus(r, Some(reply))
        )
    });
    let recorded = format!(
        "{n_sent} sent, {} in progress",
        in_progress.map_or("unknown".to_string(), |n| n.to_string())
    );
    let mut violations = Vec::new();
    if let Some(max_jobs) = max_jobs {
        let total = n_sent + in_progress.unwrap_or(0);
        if n_sent > 0 && total as i64 > max_jobs {
            violations.push(violation(
                None,
                jobs.last().map(|job| job.name.as_str()),
                format!("{n_sent} sent + {} in progress = {total}", in_progress.unwrap_or(0)),
                format!("at most {max_jobs} in progress"),
                format!(
                    "S3: the user's max_jobs is {max_jobs} but {n_sent} jobs were sent to a host holding {} (total {total})",
                    in_progress.unwrap_or(0)
                ),
            ));
        }
    }
    let mut outcome = RuleOutcome::from_violations(
        RULE,
        recorded,
        format!(
            "user max_jobs {}{info}",
            max_jobs.map_or("none".to_string(), |m| m.to_string())
        ),
        violations,
    );
    if n_sent > 0 {
        outcome.partly_unchecked.push(
            "project config unknown: max_wus_to_send, max_jobs_in_progress and \
             gpu_multiplier are in no transcript"
                .to_string(),
        );
    }
    outcome
}

/// S4 — app version choice [MUST]: platform and user-forbidden types.
pub fn s4(exchange: &Exchange, jobs: &[SentJob]) -> RuleOutcome {
    const RULE: &str = "S4";
    if jobs.is_empty() {
        return RuleOutcome::new(
            RULE,
            "no jobs".into(),
            String::new(),
            Verdict::NotApplicable("no jobs in the reply".into()),
        );
    }
    let Some(request) = exchange.paired_request() else {
        return RuleOutcome::unchecked(RULE, exchange.request_missing_why());
    };
    let reply = exchange.reply.as_ref();
    let forbidden: Vec<ResourceType> = reply
        .and_then(|r| r.project_preferences.as_ref())
        .map(|p| p.no_rsc.clone())
        .unwrap_or_default();
    let anonymous = request.platform_name.as_deref() == Some("anonymous");
    let mut platforms: Vec<&str> = request.platform_name.iter().map(String::as_str).collect();
    platforms.extend(request.alt_platforms.iter().map(String::as_str));
    let mut violations = Vec::new();
    for job in jobs {
        if let Some(rsc) = job.rsc.as_ref().filter(|rsc| forbidden.contains(rsc)) {
            violations.push(violation(
                Some(rsc),
                Some(&job.name),
                format!("sent {} ({rsc})", job.name),
                format!("no {rsc} job: the user's project preferences forbid {rsc}"),
                format!(
                    "S4: job {} uses {rsc}, which the user's project preferences exclude",
                    job.name
                ),
            ));
        }
        let Some(platform) = job.platform.as_deref() else {
            continue;
        };
        if anonymous {
            let own = request.app_versions.iter().any(|v| {
                v.app_name == job.app_name
                    && v.version_num == job.version_num
                    && v.platform.as_deref() == Some(platform)
                    && v.plan_class.clone().filter(|p| !p.is_empty()) == job.plan_class
            });
            if !own {
                violations.push(violation(
                    job.rsc.as_ref(),
                    Some(&job.name),
                    format!("sent {} with {platform} version {:?}", job.name, job.version_num),
                    "one of the client's own app versions (anonymous platform)".into(),
                    format!(
                        "S4: job {} names version {:?} for {platform}, which is not among the request's {} app_versions",
                        job.name, job.version_num, request.app_versions.len()
                    ),
                ));
            }
        } else if !platforms.is_empty() && !platforms.contains(&platform) {
            violations.push(violation(
                job.rsc.as_ref(),
                Some(&job.name),
                format!("sent {} for platform {platform}", job.name),
                format!("platform one of {}", platforms.join(", ")),
                format!(
                    "S4: job {} is for platform {platform}, the client has {}",
                    job.name,
                    platforms.join(", ")
                ),
            ));
        }
    }
    RuleOutcome::from_violations(
        RULE,
        jobs_summary(jobs),
        format!(
            "versions for the client's platforms, no forbidden type ({})",
            if forbidden.is_empty() {
                "none forbidden".to_string()
            } else {
                forbidden
                    .iter()
                    .map(|r| r.long_name())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ),
        violations,
    )
}

/// The types the client has (the CPU and every reported GPU with count > 0).
fn client_types(request: &SchedRequest) -> Vec<ResourceType> {
    let mut types = vec![ResourceType::Cpu];
    for coproc in &request.coprocs {
        if coproc.count.unwrap_or(0) > 0 && !types.contains(&coproc.rsc) {
            types.push(coproc.rsc.clone());
        }
    }
    types
}

/// S5 — "no apps for this type" [MUST]: element form by era, coverage,
/// reported types.
pub fn s5(exchange: &Exchange, jobs: &[SentJob]) -> RuleOutcome {
    const RULE: &str = "S5";
    let Some(reply) = &exchange.reply else {
        return RuleOutcome::unchecked(RULE, "reply not kept");
    };
    let Some(version) = reply.scheduler_version else {
        return RuleOutcome::unchecked(
            RULE,
            "element absent: scheduler_version (server era unknown)",
        );
    };
    if reply.project_is_down {
        return RuleOutcome::new(
            RULE,
            "project is down".into(),
            String::new(),
            Verdict::NotApplicable("a project-down reply carries no such elements".into()),
        );
    }
    let flags: Vec<&str> = reply
        .no_apps_elements
        .iter()
        .filter(|e| e.element != "no_rsc_apps")
        .map(|e| e.element.as_str())
        .collect();
    let listed: Vec<&str> = reply
        .no_apps_elements
        .iter()
        .filter(|e| e.element == "no_rsc_apps")
        .map(|e| e.value.as_str())
        .collect();
    let recorded = format!(
        "server {version}: no_rsc_apps [{}], flags [{}]",
        listed.join(", "),
        flags.join(", ")
    );
    let client = exchange.client_version_number();
    let request = exchange.paired_request();
    let mut violations = Vec::new();
    let mut partly = Vec::new();
    let mut bad = |what: String, required: String| {
        violations.push(violation(
            None,
            None,
            recorded.clone(),
            required,
            format!("S5: {what}"),
        ));
    };
    if version <= 611 {
        if reply.no_apps_elements.is_empty() {
            return RuleOutcome::unchecked(
                RULE,
                format!("server predates the elements (scheduler_version {version} ≤ 611)"),
            );
        }
        bad(
            format!("a server of scheduler_version {version} (≤ 611) wrote {} \"no apps\" elements; such servers predate them", reply.no_apps_elements.len()),
            "no \"no apps\" element from a server ≤ 611".into(),
        );
    } else {
        let three = ["no_cpu_apps", "no_cuda_apps", "no_ati_apps"];
        let flags_complete = three.iter().all(|f| flags.contains(f));
        if !flags.is_empty() && !flags_complete {
            bad(
                format!(
                    "the deprecated flags are three, all present, but the reply has only {}",
                    flags.join(", ")
                ),
                "no_cpu_apps, no_cuda_apps and no_ati_apps, each 0/1".into(),
            );
        }
        for element in reply
            .no_apps_elements
            .iter()
            .filter(|e| e.element != "no_rsc_apps")
        {
            if element.value != "0" && element.value != "1" {
                bad(
                    format!(
                        "<{}> is {:?}, the flags are 0 or 1",
                        element.element, element.value
                    ),
                    "each flag 0 or 1".into(),
                );
            }
        }
        if version <= 700 && !listed.is_empty() {
            bad(
                format!("a server of scheduler_version {version} (613/700) wrote <no_rsc_apps>{}</no_rsc_apps>; it writes only the three 0/1 flags", listed.join(", ")),
                "the three 0/1 flags only".into(),
            );
        }
        if version >= 702 {
            match client {
                Some(c) if c >= 70040 && !flags.is_empty() => bad(
                    format!("the deprecated flags went to a {c} client; servers from April 2013 send them only to clients < 7.0.40"),
                    "no deprecated flags for clients ≥ 7.0.40".into(),
                ),
                Some(c) if c < 70040 && !listed.is_empty() && flags.is_empty() => bad(
                    format!("no_rsc_apps went to a {c} client without the deprecated flags it needs (< 7.0.40)"),
                    "the three flags as well for clients < 7.0.40".into(),
                ),
                None if !reply.no_apps_elements.is_empty() => {
                    partly.push("client version unknown: the flag form by client version".into())
                }
                _ => {}
            }
        }
        let named: Vec<ResourceType> = reply.no_rsc_apps.clone();
        if version >= 702 {
            match request {
                Some(request) => {
                    let types = client_types(request);
                    if !named.is_empty() && types.iter().all(|t| named.contains(t)) {
                        bad(
                            format!(
                                "the reply says no apps for every type the client has ({}); since May 2013 that case suppresses the elements",
                                types.iter().map(|t| t.long_name()).collect::<Vec<_>>().join(", ")
                            ),
                            "not all of the client's types listed".into(),
                        );
                    }
                    if version >= 707 {
                        for rsc in named.iter().filter(|r| r.is_coproc() && !types.contains(r)) {
                            bad(
                                format!("no_rsc_apps names {rsc}, which the client does not report; servers from late 2014 list only the CPU and reported GPU types"),
                                format!("only {}", types.iter().map(|t| t.long_name()).collect::<Vec<_>>().join(", ")),
                            );
                        }
                    }
                }
                None => partly.push(format!(
                    "coverage of the client's types: {}",
                    exchange.request_missing_why()
                )),
            }
        }
    }
    let info: Vec<String> = reply
        .no_rsc_apps
        .iter()
        .filter(|rsc| jobs.iter().any(|job| job.rsc.as_ref() == Some(rsc)))
        .map(|rsc| format!("INFO: {rsc} listed although a {rsc} job was sent"))
        .collect();
    let mut outcome = RuleOutcome::from_violations(
        RULE,
        recorded,
        format!(
            "form of scheduler_version {version}{}",
            if info.is_empty() {
                String::new()
            } else {
                format!("; {}", info.join("; "))
            }
        ),
        violations,
    );
    outcome.partly_unchecked = partly;
    outcome
}

/// The number right after `pattern` in `text` (both lower-case).
fn number_after(text: &str, pattern: &str) -> Option<f64> {
    let start = text.find(pattern)? + pattern.len();
    let rest = text.get(start..)?.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    rest.get(..end)?.trim_end_matches('.').parse().ok()
}

/// The interval floor a "too recent" message implies (S6 check 4), and
/// whether it bounds the interval `m` from above (the M form).
fn too_recent_floor(text: &str) -> Option<(f64, bool, String)> {
    let lower = text.to_ascii_lowercase();
    if !lower.contains("too recent") {
        return None;
    }
    if let Some(w) = number_after(&lower, "please wait ").filter(|_| !lower.contains("wait:")) {
        return Some((
            w + 2.0,
            false,
            format!("W = {w} s still to wait: delay ≥ W + 2 = {}", w + 2.0),
        ));
    }
    if let Some(m) = number_after(&lower, "please wait:") {
        let floor = (1.01 * m).max(m + 1.0);
        return Some((
            floor,
            true,
            format!("M = {m} s interval: delay ≥ max(1.01 M, M + 1) = {floor}"),
        ));
    }
    if let Some(n) = number_after(&lower, "too recent:") {
        return Some((
            n + 2.0,
            false,
            format!(
                "N = {n} s since the previous RPC: delay ≥ N + 2 = {}",
                n + 2.0
            ),
        ));
    }
    None
}

/// S6 — messages and delays [MUST]: checks 1–5 of §2 S6.
pub fn s6(exchange: &Exchange, jobs: &[SentJob]) -> RuleOutcome {
    const RULE: &str = "S6";
    let Some(reply) = &exchange.reply else {
        return RuleOutcome::unchecked(RULE, "reply not kept");
    };
    let delay = reply.request_delay.unwrap_or(0.0);
    let texts: Vec<&str> = reply.messages.iter().map(|m| m.text.as_str()).collect();
    let has = |needle: &str| {
        let needle = needle.to_ascii_lowercase();
        texts
            .iter()
            .any(|t| t.to_ascii_lowercase().contains(&needle))
    };
    let new_jobs = jobs.iter().filter(|job| !job.resent).count();
    let no_tasks_available = has("Project has no tasks available");
    let too_recent = has("too recent");
    let no_work_available = has("No work available");
    let no_tasks_sent = has("No tasks sent") || has("No work sent");
    let version = reply.scheduler_version;
    let request = exchange.paired_request();
    let mut violations = Vec::new();
    let mut partly = Vec::new();
    let recorded = format!(
        "{new_jobs} new jobs, request_delay {delay:.0} s, messages [{}]{}",
        texts.join(" | "),
        if reply.dont_use_dcf {
            ", dont_use_dcf"
        } else {
            ""
        }
    );
    let mut bad = |what: String, required: String| {
        violations.push(violation(
            None,
            None,
            recorded.clone(),
            required,
            format!("S6: {what}"),
        ));
    };
    // Check 4 first: the floor also decides check 1.
    let floor = texts.iter().find_map(|t| too_recent_floor(t));
    if let Some((min_delay, _, how)) = &floor {
        if delay + 1e-6 < *min_delay {
            bad(
                format!("request_delay {delay:.0} s is below the interval floor of the \"too recent\" message ({how})"),
                format!("request_delay ≥ {min_delay}"),
            );
        }
    }
    // Check 1.
    if delay > DELAY_MAX {
        let raised = match &floor {
            Some((min_delay, true, _)) => delay <= min_delay.max(DELAY_MAX) + 1.0,
            Some((_, false, _)) => true,
            None => false,
        };
        if !raised {
            bad(
                format!("request_delay {delay:.0} s exceeds DELAY_MAX {DELAY_MAX:.0} s and no interval floor raises it"),
                format!("request_delay ≤ {DELAY_MAX:.0}"),
            );
        }
    }
    // Check 2.
    for (said, present) in [
        ("Project has no tasks available", no_tasks_available),
        ("too recent", too_recent),
        ("No work available", no_work_available),
    ] {
        if present && new_jobs > 0 {
            bad(
                format!("{new_jobs} new jobs in a reply that says \"{said}\" (no send pass ran)"),
                "no new job".into(),
            );
        }
    }
    if too_recent && no_tasks_available {
        bad(
            "\"too recent\" and \"Project has no tasks available\" in one reply (the interval test is skipped when the cache is empty)".into(),
            "at most one of the two".into(),
        );
    }
    // Check 3.
    if no_tasks_sent {
        if !jobs.is_empty() {
            bad(
                format!("\"No tasks sent\" in a reply with {} jobs", jobs.len()),
                "\"No tasks sent\" only in a reply with no job".into(),
            );
        }
        match (version, request) {
            (Some(v), Some(request)) if v >= 702 => {
                let wrs = request.work_req_seconds.unwrap_or(0.0);
                if wrs <= 0.0 {
                    bad(
                        format!("\"No tasks sent\" although work_req_seconds is {wrs:.0}; servers from late 2012 (scheduler_version {v}) write it only if work_req_seconds > 0"),
                        "no \"No tasks sent\" when work_req_seconds = 0".into(),
                    );
                }
            }
            (Some(v), None) if v >= 702 => partly.push(format!(
                "check 3 (work_req_seconds > 0): {}",
                exchange.request_missing_why()
            )),
            (None, _) => partly.push("check 3 by era: element absent: scheduler_version".into()),
            _ => {}
        }
    }
    // Check 5.
    match (version, exchange.client_version_number()) {
        (None, _) => {
            partly.push("check 5 (dont_use_dcf): element absent: scheduler_version".into())
        }
        (Some(v), _) if v <= 700 => {
            if reply.dont_use_dcf {
                bad(
                    format!("<dont_use_dcf/> from a server of scheduler_version {v}; servers before March 2012 never send it"),
                    "no dont_use_dcf".into(),
                );
            }
        }
        (Some(701), _) => {}
        (Some(_), None) => partly.push("check 5 (dont_use_dcf): client version unknown".into()),
        (Some(v), Some(c)) => {
            let want = c >= 70028;
            if reply.dont_use_dcf != want {
                bad(
                    format!(
                        "dont_use_dcf is {} for a {c} client; servers from June 2012 (scheduler_version {v}) send it iff the client is ≥ 7.0.28",
                        if reply.dont_use_dcf { "present" } else { "absent" }
                    ),
                    format!("dont_use_dcf {}", if want { "present" } else { "absent" }),
                );
            }
        }
    }
    if floor.is_none() {
        partly.push(
            "check 4 (interval floor): no \"too recent\" message, min_sendwork_interval unknown"
                .into(),
        );
    }
    let mut outcome = RuleOutcome::from_violations(
        RULE,
        recorded,
        format!(
            "delay ≤ {DELAY_MAX:.0}{}; messages consistent with the jobs; dont_use_dcf by era",
            floor
                .as_ref()
                .map_or(String::new(), |(_, _, how)| format!("; {how}"))
        ),
        violations,
    );
    outcome.partly_unchecked = partly;
    outcome
}

/// The request's estimated delay for `rsc` (GPU types without one use the
/// CPU's; absent → 0).
fn estimated_delay(request: &SchedRequest, rsc: &ResourceType) -> f64 {
    let cpu = request.estimated_delay.unwrap_or(0.0);
    if !rsc.is_coproc() {
        return cpu;
    }
    request
        .coprocs
        .iter()
        .find(|c| &c.rsc == rsc)
        .and_then(|c| c.estimated_delay)
        .unwrap_or(cpu)
}

/// S7 — deadline feasibility, default check [MUST unless
/// `ignore_delay_bound`].
pub fn s7(exchange: &Exchange, jobs: &[SentJob]) -> RuleOutcome {
    const RULE: &str = "S7";
    if jobs.is_empty() {
        return RuleOutcome::new(
            RULE,
            "no jobs".into(),
            String::new(),
            Verdict::NotApplicable("no jobs in the reply".into()),
        );
    }
    let Some(request) = exchange.paired_request() else {
        return RuleOutcome::unchecked(RULE, exchange.request_missing_why());
    };
    let full_workload = exchange
        .reply
        .as_ref()
        .is_some_and(|r| r.send_full_workload);
    if full_workload && request.has_other_results {
        return RuleOutcome::new(
            RULE,
            jobs_summary(jobs),
            String::new(),
            Verdict::NotApplicable(
                "<send_full_workload/>: the EDF simulation (S8) replaces the default check".into(),
            ),
        );
    }
    let Some(now) = exchange
        .request_now()
        .or_else(|| exchange.log.as_ref().and_then(|log| log.sent_at_utc))
    else {
        return RuleOutcome::unchecked(
            RULE,
            "send time unknown (no time_stats/now, no dated log line)",
        );
    };
    let avail = availability(exchange);
    let ncpus = request.ncpus();
    let mut ed: Vec<(ResourceType, f64)> = Vec::new();
    let mut violations = Vec::new();
    let mut checked = Vec::new();
    for job in jobs {
        if job.resent || job.non_cpu_intensive {
            continue;
        }
        let Some(rsc) = job.rsc.clone() else {
            return RuleOutcome::unchecked(RULE, format!("job type unknown: {}", job.name));
        };
        let Some(d) = duration(job, avail) else {
            return RuleOutcome::unchecked(
                RULE,
                format!(
                    "no projected FLOPS for job {} (app_version/flops absent)",
                    job.name
                ),
            );
        };
        let Some(deadline) = job.report_deadline else {
            return RuleOutcome::unchecked(
                RULE,
                format!("element absent: report_deadline of job {}", job.name),
            );
        };
        let bound = deadline - now;
        let current = ed
            .iter()
            .find(|(t, _)| *t == rsc)
            .map_or_else(|| estimated_delay(request, &rsc), |(_, e)| *e);
        if current > 0.0 && current + d > bound + CLOCK_TOLERANCE_SECS {
            violations.push(violation(
                Some(&rsc),
                Some(&job.name),
                format!("sent {} with delay bound ≈ {bound:.0} s", job.name),
                format!("ed + d(J) ≤ B: {current:.0} + {d:.0} ≤ {bound:.0}"),
                format!(
                    "S7: job {} is infeasible by the default check (unless the project ignores delay bounds): estimated delay {current:.0} s + duration {d:.0} s = {:.0} s > delay bound {bound:.0} s (report_deadline {deadline:.0} − send time {now:.0})",
                    job.name,
                    current + d
                ),
            ));
        }
        checked.push(format!(
            "{} ed={current:.0}+d={d:.0} vs B={bound:.0}",
            job.name
        ));
        let count = if rsc.is_coproc() {
            request
                .coprocs
                .iter()
                .find(|c| c.rsc == rsc)
                .and_then(|c| c.count)
                .unwrap_or(1)
                .max(1) as f64
        } else {
            ncpus
        };
        let increment = if rsc.is_coproc() {
            d * job.usage / count
        } else {
            d * job.avg_ncpus / ncpus
        };
        match ed.iter_mut().find(|(t, _)| *t == rsc) {
            Some((_, e)) => *e += increment,
            None => ed.push((rsc.clone(), current + increment)),
        }
    }
    RuleOutcome::from_violations(
        RULE,
        jobs_summary(jobs),
        if checked.is_empty() {
            "every job resent or non-CPU-intensive".into()
        } else {
            checked.join(", ")
        },
        violations,
    )
}

/// One job of the EDF simulation: (computation deadline, remaining seconds).
type EdfJob = (f64, f64);

/// Books `jobs` earliest deadline first on `ncpus` CPUs (lowest index on
/// ties); returns each job's completion time, in the input order.
/// Mirrors `edf_sim.cpp mark_edf_misses`.
pub fn edf_completions(jobs: &[EdfJob], ncpus: usize) -> Vec<f64> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|a, b| {
        let da = jobs.get(*a).map_or(0.0, |j| j.0);
        let db = jobs.get(*b).map_or(0.0, |j| j.0);
        da.total_cmp(&db)
    });
    let mut booked = vec![0.0_f64; ncpus.max(1)];
    let mut completions = vec![0.0; jobs.len()];
    for index in order {
        let Some((_, remaining)) = jobs.get(index) else {
            continue;
        };
        let mut cpu = 0;
        for (i, until) in booked.iter().enumerate() {
            if *until < booked.get(cpu).copied().unwrap_or(f64::INFINITY) {
                cpu = i;
            }
        }
        if let Some(until) = booked.get_mut(cpu) {
            *until += remaining;
            if let Some(done) = completions.get_mut(index) {
                *done = *until;
            }
        }
    }
    completions
}

/// S8 — EDF feasibility simulation [SHOULD; only with
/// `<send_full_workload/>`], as the code computes it (rule 2 of §S8).
pub fn s8(exchange: &Exchange, jobs: &[SentJob]) -> RuleOutcome {
    const RULE: &str = "S8";
    let Some(reply) = &exchange.reply else {
        return RuleOutcome::unchecked(RULE, "reply not kept");
    };
    if !reply.send_full_workload {
        return RuleOutcome::new(
            RULE,
            "no send_full_workload".into(),
            String::new(),
            Verdict::NotApplicable(
                "no <send_full_workload/>: the workload simulation is off (S7 applies)".into(),
            ),
        );
    }
    let Some(request) = exchange.paired_request() else {
        return RuleOutcome::unchecked(RULE, exchange.request_missing_why());
    };
    if !request.has_other_results {
        return RuleOutcome::new(
            RULE,
            String::new(),
            String::new(),
            Verdict::NotApplicable("the request had no <other_results> list".into()),
        );
    }
    if jobs.is_empty() {
        return RuleOutcome::new(
            RULE,
            "no jobs".into(),
            String::new(),
            Verdict::NotApplicable("no jobs in the reply".into()),
        );
    }
    let Some(now) = exchange.request_now() else {
        return RuleOutcome::unchecked(RULE, "send time unknown (no time_stats/now)");
    };
    let avail = availability(exchange);
    let ncpus = effective_ncpus(request, Some(reply)) as usize;
    let buf_min = request
        .working_global_preferences
        .as_ref()
        .or(request.global_preferences.as_ref())
        .and_then(|p| p.values.work_buf_min_days)
        .unwrap_or(0.1)
        * 86400.0;
    // The server reads `cpu_time_remaining` only (clients from 6.11 write
    // `time_remaining`, which arrives as 0), and turns deadlines into
    // seconds from now.
    let mut workload: Vec<EdfJob> = request
        .in_progress_results
        .iter()
        .map(|ip| {
            (
                ip.report_deadline.unwrap_or(now) - now - buf_min,
                ip.cpu_time_remaining.unwrap_or(0.0),
            )
        })
        .collect();
    let mut violations = Vec::new();
    for job in jobs
        .iter()
        .filter(|job| !job.resent && !job.non_cpu_intensive)
    {
        let (Some(d), Some(deadline)) = (duration(job, avail), job.report_deadline) else {
            return RuleOutcome::unchecked(
                RULE,
                format!("no projected FLOPS or report_deadline for job {}", job.name),
            );
        };
        let before = edf_completions(&workload, ncpus);
        let mut with = workload.clone();
        with.push((deadline - now, d));
        let after = edf_completions(&with, ncpus);
        let mut problem = None;
        for (index, (job_deadline, _)) in with.iter().enumerate() {
            let done = after.get(index).copied().unwrap_or(0.0);
            match before.get(index) {
                Some(old) if *old > *job_deadline => {
                    if done > *old + 1e-6 {
                        problem = Some(format!("an in-progress job that already missed now completes at {done:.0} s instead of {old:.0} s"));
                    }
                }
                _ => {
                    if done > *job_deadline + 1e-6 {
                        problem = Some(format!("a job with computation deadline {job_deadline:.0} s now completes at {done:.0} s"));
                    }
                }
            }
            if problem.is_some() {
                break;
            }
        }
        if let Some(problem) = problem {
            violations.push(violation(
                job.rsc.as_ref(),
                Some(&job.name),
                format!("sent {}", job.name),
                "rejected by the EDF simulation".into(),
                format!(
                    "S8: job {} (d={d:.0} s, bound {:.0} s) fails the workload simulation on {ncpus} CPUs: {problem}",
                    job.name,
                    deadline - now
                ),
            ));
        }
        // Jobs appended after sending keep an absolute deadline (§S8 INFO).
        workload.push((deadline, d));
    }
    RuleOutcome::from_violations(
        RULE,
        jobs_summary(jobs),
        format!(
            "no new EDF miss on {ncpus} CPUs ({} jobs in progress)",
            request.in_progress_results.len()
        ),
        violations,
    )
}

/// S9 — legacy request semantics [INFO only]: quotes the seed's figure.
pub fn s9(exchange: &Exchange, jobs: &[SentJob]) -> RuleOutcome {
    const RULE: &str = "S9";
    let Some(request) = exchange.paired_request() else {
        return RuleOutcome::unchecked(RULE, exchange.request_missing_why());
    };
    let stats = request.time_stats.clone().unwrap_or_default();
    let fpops = request.host_info.as_ref().and_then(|h| h.p_fpops);
    let (Some(work_req), Some(share), Some(on), Some(active), Some(fpops)) = (
        request.work_req_seconds,
        request.resource_share_fraction,
        stats.on_frac,
        stats.active_frac,
        fpops,
    ) else {
        return RuleOutcome::unchecked(
            RULE,
            "element absent: one of work_req_seconds, resource_share_fraction, on_frac, active_frac, p_fpops",
        );
    };
    let figure = work_req * share * on * active * fpops;
    let sent: f64 = jobs.iter().map(|job| job.fpops_est).sum();
    RuleOutcome::new(
        RULE,
        format!("sent {sent:.3e} FLOP"),
        format!("INFO, never a violation: seed figure {work_req:.0} s × {share} × {on} × {active} × {fpops:.3e} = {figure:.3e} FLOP"),
        Verdict::Holds,
    )
}

/// Reasons for which the client sends an RPC regardless of `min_rpc_time`.
fn ignores_delay(reason: Option<&RpcReason>) -> bool {
    matches!(reason, Some(RpcReason::RequestedByUser))
}

/// S10 — reply effects the client relies on [INFO; checked here: the
/// `request_delay` is honoured by the client's next RPC].
pub fn s10(trace: &Trace, exchange: &Exchange, later: &[Exchange]) -> RuleOutcome {
    const RULE: &str = "S10";
    let Some(reply) = &exchange.reply else {
        return RuleOutcome::unchecked(RULE, "reply not kept");
    };
    let delay = reply.request_delay.unwrap_or(0.0);
    if delay <= 0.0 {
        return RuleOutcome::new(
            RULE,
            "no request_delay".into(),
            String::new(),
            Verdict::NotApplicable("no request_delay in the reply".into()),
        );
    }
    let recorded_delay = format!("request_delay {delay:.0} s");
    let next = later.iter().find(|e| e.project == exchange.project);
    if let (Some(next), Some(now)) = (next, exchange.request_now()) {
        if let Some(next_now) = next.request_now() {
            if next_now < now {
                return RuleOutcome::unchecked(
                    RULE,
                    format!(
                        "the next exchange {} is dated before this one: series out of order",
                        next.label
                    ),
                );
            }
            let gap = next_now - now;
            let reason = next.log.as_ref().and_then(|log| log.reason.as_ref());
            let mut violations = Vec::new();
            if gap + CLOCK_TOLERANCE_SECS < delay && !ignores_delay(reason) {
                violations.push(violation(
                    None,
                    None,
                    format!("next RPC {} after {gap:.0} s", next.label),
                    format!("no RPC before {delay:.0} s"),
                    format!(
                        "S10: the reply asked for a delay of {delay:.0} s but the next request ({}) came {gap:.0} s later (now {now:.0} → {next_now:.0}; unless the client cleared its timers: clock set back, network regained)",
                        next.label
                    ),
                ));
            }
            return RuleOutcome::from_violations(
                RULE,
                format!("{recorded_delay}; next RPC after {gap:.0} s"),
                format!("next RPC ≥ {delay:.0} s later"),
                violations,
            );
        }
    }
    let (Some(log), Some(name)) = (&exchange.log, &exchange.project_name) else {
        return RuleOutcome::unchecked(
            RULE,
            "needs a later RPC of this project: a second exchange or event-log lines",
        );
    };
    let Some(end) = log.completed_at.or(log.sent_at) else {
        return RuleOutcome::unchecked(RULE, "the logged RPC is not dated");
    };
    let Some(next) = later_log_rpcs(trace, name, end).into_iter().next() else {
        return RuleOutcome::unchecked(RULE, "no later RPC of this project in the event log");
    };
    let Some(next_at) = next.sent_at else {
        return RuleOutcome::unchecked(RULE, "the next logged RPC is not dated");
    };
    let gap = next_at - end;
    let mut violations = Vec::new();
    // Log times have one-second resolution.
    if gap + 1.0 < delay && !ignores_delay(next.reason.as_ref()) {
        violations.push(violation(
            None,
            None,
            format!("next RPC at {} after {gap:.0} s", next.sent_label),
            format!("no RPC before {delay:.0} s"),
            format!(
                "S10: the reply asked for a delay of {delay:.0} s but the log shows the next request at {}, {gap:.0} s after the RPC ended at {} (unless the client cleared its timers)",
                next.sent_label,
                log.sent_label
            ),
        ));
    }
    RuleOutcome::from_violations(
        RULE,
        format!("{recorded_delay}; next logged RPC after {gap:.0} s"),
        format!("next RPC ≥ {delay:.0} s later"),
        violations,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::exchange::Pairing;
    use crate::trace::rpc::ServerMessage;
    use crate::trace::state::{HostInfo, Job, TimeStats, Workunit};

    fn exchange(request: SchedRequest, reply: SchedReply) -> Exchange {
        Exchange {
            label: "test".into(),
            project: "p".into(),
            project_name: None,
            request: Some(request),
            reply: Some(reply),
            request_path: None,
            reply_path: None,
            pairing: Pairing::Paired,
            log: None,
            client_version: None,
        }
    }

    fn cpu_reply(n_jobs: usize, deadline: f64) -> SchedReply {
        let mut reply = SchedReply {
            scheduler_version: Some(719),
            app_versions: vec![AppVersion {
                app_name: Some("a".into()),
                version_num: Some(1),
                avg_ncpus: Some(1.0),
                flops: Some(2e9),
                ..AppVersion::default()
            }],
            ..SchedReply::default()
        };
        for i in 0..n_jobs {
            reply.workunits.push(Workunit {
                name: Some(format!("wu{i}")),
                app_name: Some("a".into()),
                rsc_fpops_est: Some(3.6e13),
                ..Workunit::default()
            });
            reply.results.push(Job {
                name: Some(format!("wu{i}_0")),
                wu_name: Some(format!("wu{i}")),
                version_num: Some(1),
                report_deadline: Some(deadline),
                ..Job::default()
            });
        }
        reply
    }

    fn cpu_request(secs: f64, delay: f64) -> SchedRequest {
        SchedRequest {
            work_req_seconds: Some(secs),
            cpu_req_secs: Some(secs),
            cpu_req_instances: Some(0.0),
            estimated_delay: Some(delay),
            time_stats: Some(TimeStats {
                on_frac: Some(0.9),
                active_frac: Some(1.0),
                now: Some(1000.0),
                ..TimeStats::default()
            }),
            host_info: Some(HostInfo {
                p_ncpus: Some(4),
                ..HostInfo::default()
            }),
            ..SchedRequest::default()
        }
    }

    #[test]
    fn demand_clamps_to_28_days_and_ignores_absent_gpus() {
        let parsed = crate::parse::sched_rpc::parse_sched_rpc(
            &crate::source::SourcePath::from("sched_request_p.xml"),
            b"<scheduler_request><work_req_seconds>3000000</work_req_seconds>\
              <cpu_req_secs>3000000</cpu_req_secs><coprocs><coproc_cuda><count>0</count>\
              <req_secs>100</req_secs></coproc_cuda></coprocs></scheduler_request>",
        );
        let request = parsed.value.request.unwrap_or_default();
        let demand = Demand::of(&request);
        assert!(demand.new_style);
        assert_eq!(demand.of_type(&ResourceType::Cpu), (2_419_200.0, 0.0));
        // count 0: the GPU is not reported, its request is 0.
        assert_eq!(demand.of_type(&ResourceType::Nvidia), (0.0, 0.0));
        assert_eq!(demand.seconds_to_fill, 2_419_200.0);
    }

    #[test]
    fn duration_is_fpops_over_flops_over_availability() {
        // 3.6e13 / 2e9 / (1.0 × 0.9) = 20000 s.
        let ex = exchange(cpu_request(1.0, 0.0), cpu_reply(1, 0.0));
        let jobs = sent_jobs(
            ex.reply.as_ref().unwrap_or(&SchedReply::default()),
            ex.request.as_ref(),
        );
        let d = jobs
            .first()
            .and_then(|job| duration(job, availability(&ex)));
        assert!(d.is_some_and(|d| (d - 20000.0).abs() < 1e-6));
    }

    #[test]
    fn s1_allows_one_job_past_the_request_and_flags_the_second() {
        // 30000 s requested: job 1 leaves 10000, job 2 leaves −10000, job 3 is over.
        let ex = exchange(cpu_request(30000.0, 0.0), cpu_reply(3, 1e9));
        let jobs = sent_jobs(
            ex.reply.as_ref().unwrap_or(&SchedReply::default()),
            ex.request.as_ref(),
        );
        let outcome = s1(&ex, &jobs);
        let Verdict::Violated(violations) = outcome.verdict else {
            panic!("expected a violation, got {:?}", outcome.verdict);
        };
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].job.as_deref(), Some("wu2_0"));
        assert!(violations[0].reason.contains("-10000 s"));
    }

    /// A client may ask for a few microseconds (the lab's noack run:
    /// `<cpu_req_secs>0.000044</cpu_req_secs>`): still a request, one job.
    #[test]
    fn s1_a_tiny_request_still_gets_one_job() {
        let ex = exchange(cpu_request(0.000044, 0.0), cpu_reply(1, 1e9));
        let jobs = sent_jobs(
            ex.reply.as_ref().unwrap_or(&SchedReply::default()),
            ex.request.as_ref(),
        );
        assert!(
            !matches!(s1(&ex, &jobs).verdict, Verdict::Violated(_)),
            "one job for a request of 44 µs"
        );
        let ex = exchange(cpu_request(0.000044, 0.0), cpu_reply(2, 1e9));
        let jobs = sent_jobs(
            ex.reply.as_ref().unwrap_or(&SchedReply::default()),
            ex.request.as_ref(),
        );
        assert!(matches!(s1(&ex, &jobs).verdict, Verdict::Violated(_)));
    }

    #[test]
    fn s7_exempts_the_first_job_when_the_cpu_is_idle() {
        // ed = 0: no check even though 20000 s > bound 1000 − 1000 + … .
        let ex = exchange(cpu_request(1e5, 0.0), cpu_reply(1, 1000.0 + 100.0));
        let jobs = sent_jobs(
            ex.reply.as_ref().unwrap_or(&SchedReply::default()),
            ex.request.as_ref(),
        );
        assert_eq!(s7(&ex, &jobs).verdict, Verdict::Holds);
        // ed = 50: 50 + 20000 > 100 + 5.
        let ex = exchange(cpu_request(1e5, 50.0), cpu_reply(1, 1000.0 + 100.0));
        assert!(matches!(s7(&ex, &jobs).verdict, Verdict::Violated(_)));
    }

    #[test]
    fn edf_books_earliest_deadline_first_on_the_least_booked_cpu() {
        // Two CPUs: (10, 5) → cpu0 done 5; (20, 8) → cpu1 done 8; (30, 4) → cpu0 done 9.
        let done = edf_completions(&[(30.0, 4.0), (10.0, 5.0), (20.0, 8.0)], 2);
        assert_eq!(done, vec![9.0, 5.0, 8.0]);
    }

    #[test]
    fn too_recent_floors_of_each_wording() {
        let n = too_recent_floor("Not sending work - last request too recent: 35 sec");
        assert_eq!(n.map(|f| f.0), Some(37.0));
        let m =
            too_recent_floor("Not sending work - last request too recent, please wait: 300 sec");
        assert_eq!(m.map(|f| (f.0, f.1)), Some((303.0, true)));
        let w =
            too_recent_floor("Not sending work. Last request too recent. Please wait 120 seconds.");
        assert_eq!(w.map(|f| f.0), Some(122.0));
        assert_eq!(too_recent_floor("No tasks sent"), None);
    }

    #[test]
    fn max_ncpus_pct_zero_means_all_cpus() {
        let request = cpu_request(0.0, 0.0);
        assert_eq!(effective_ncpus(&request, None), 4.0);
    }

    #[test]
    fn s6_delay_cap_and_message_consistency() {
        let mut reply = cpu_reply(1, 1e9);
        reply.request_delay = Some(200_000.0);
        reply.dont_use_dcf = true;
        reply.messages.push(ServerMessage {
            priority: Some("low".into()),
            text: "Project has no tasks available".into(),
        });
        let ex = exchange(cpu_request(1.0, 0.0), reply);
        let jobs = sent_jobs(
            ex.reply.as_ref().unwrap_or(&SchedReply::default()),
            ex.request.as_ref(),
        );
        let Verdict::Violated(violations) = s6(&ex, &jobs).verdict else {
            panic!("expected violations");
        };
        // Delay over 172800 and a job despite "no tasks available".
        assert_eq!(violations.len(), 2);
    }
}

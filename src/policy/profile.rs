//! Policy profiles: the rules of one client release, as today's policy code
//! with the rule changes made after that release undone.
//!
//! A profile is not a copy of old code. Each rule that decides differently
//! in an older release is a [`RuleChange`]: the policy constant (a key of
//! [`Params`]) that switches it, its value before the change, the first
//! release whose source has the new rule (read at the release's tag, since
//! back-ports make "first tag containing the commit" unreliable), the client
//! function and the commit that changed it. [`params_for_release`] undoes
//! every change newer than a release.
//!
//! The catalogue covers the changes between 7.2.42 and today's client
//! (c5c6cb79b9) that alter a decision the emulator can make or print, as
//! far as the emulators of 7.2.42, 7.16.21, 7.20.5 and 8.0.4 show them
//! (each agrees with its profile on at least 99.9% of the decisions of
//! generated scenarios; README). 7.0–7.2
//! are the catalogue with every change undone (with that generation's log
//! wording); older releases have their own generations ([`Generation`]).
//! Between 7.2.42 and 7.16.21 only the changes those two ends differ by are
//! catalogued: a release in between may differ in more (7.14.2's emulator
//! does; README).
//!
//! Architecture Invariant: pure data and one pure function; no I/O.

use super::generation::Generation;
use super::Params;
use serde::Serialize;
use std::fmt;

/// A client release `major.minor.release`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Release(pub u32, pub u32, pub u32);

/// The newest client release tagged in BOINC's repository when the
/// catalogue was last read.
pub const NEWEST_TAG: Release = Release(8, 2, 15);

/// The release a change made on master after [`NEWEST_TAG`] first reaches
/// (the next tag cut from master); shown as not released yet.
pub const UNRELEASED: Release = Release(8, 2, 16);

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

impl Release {
    /// How a change's first release reads: [`UNRELEASED`] says that no
    /// tag has it yet.
    pub fn first_label(self) -> String {
        if self == UNRELEASED {
            format!("{self} (no release yet: on master after {NEWEST_TAG})")
        } else {
            self.to_string()
        }
    }
}

impl std::str::FromStr for Release {
    type Err = String;

    /// `X.Y.Z` (or `X.Y`, release 0).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.trim().split('.');
        let mut next = |what: &str| -> Result<u32, String> {
            match parts.next() {
                Some(p) => p
                    .parse()
                    .map_err(|_| format!("{s:?}: {what} {p:?} is not a number")),
                None if what == "release" => Ok(0),
                None => Err(format!("{s:?}: expected X.Y.Z")),
            }
        };
        let release = Release(next("major")?, next("minor")?, next("release")?);
        if parts.next().is_some() {
            return Err(format!("{s:?}: expected X.Y.Z"));
        }
        Ok(release)
    }
}

/// One rule of the client that changed after a release.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RuleChange {
    /// The [`Params`] key that switches the rule.
    pub key: &'static str,
    /// Its value in the releases before [`RuleChange::since`].
    pub before: f64,
    /// The first release whose source has today's rule.
    pub since: Release,
    /// The client function that holds the rule.
    pub function: &'static str,
    /// The change: commit, date, and pull request when there is one.
    pub change: &'static str,
    /// Before and after, in one sentence.
    pub rule: &'static str,
}

/// The rule changes after 7.2.42 that alter a decision, newest release last.
/// Each `since` is the first release tag whose source has the new rule
/// (client_release tags read in version order; a back-port reaches a 7.4.x
/// tag before 7.5.0).
pub const RULE_CHANGES: &[RuleChange] = &[
    RuleChange {
        key: "run_list_mt_overfill",
        before: 0.0,
        since: Release(7, 3, 2),
        function: "cpu_sched.cpp PROC_RESOURCES::stop_scan_cpu",
        change: "commit 17e44af601 (2014-02-11) \"Client: fix job scheduling bug that could starve CPUs\"",
        rule: "make_run_list's CPU scan ended only when single-thread jobs filled the CPUs, so it \
               took multithread jobs without end; since, also once multithread jobs use twice \
               the CPUs",
    },
    RuleChange {
        key: "run_list_exclusions_running_only",
        before: 1.0,
        since: Release(7, 4, 0),
        function: "cpu_sched.cpp PROC_RESOURCES::schedule",
        change: "commit 8d009ce3b3 (2014-05-24) \"client: scheduling and work fetch tweaks for \
                 GPU exclusion cases\"",
        rule: "with exclusions on its GPU type, only a GPU job already running (or suspended \
               in memory) was added to the run list without reserving an instance; since, \
               every GPU job of that type is, so the list holds all of them",
    },
    RuleChange {
        key: "enforce_sort_gpu_by_ncpus",
        before: 1.0,
        since: Release(7, 4, 9),
        function: "cpu_sched.cpp more_important",
        change: "commit a177ef0068 (2014-07-03) \"client: fix job scheduling bug.  Sort by avg_ncpus \
                 doesn't apply to GPU jobs\"",
        rule: "enforcement ordered GPU jobs (after the deadline, GPU and time-slice keys) by \
               their CPU usage too, so a GPU job using more CPU went first; since, that key \
               orders CPU jobs only",
    },
    RuleChange {
        key: "rr_sim_finish_at_step_end",
        before: 0.0,
        since: Release(7, 4, 9),
        function: "rr_sim.cpp RR_SIM::simulate",
        change: "commit 6fa0940502 (2014-07-05) \"client: tweaks to log output for <rrsim_detail>\"",
        rule: "a simulated completion was timed (and printed) at the start of the step in which \
               the job ends; since, at that step's end",
    },
    RuleChange {
        key: "mt_first_may_exceed",
        before: 0.0,
        since: Release(7, 4, 24),
        function: "cpu_sched.cpp PROC_RESOURCES::can_schedule",
        change: "commit 1092fd1b31 (2014-10-10) \"client: let a MT job run even if it uses more than \
                 max # CPUs\" (the tags 7.4.37 and 7.4.39 lack it)",
        rule: "make_run_list took a multithread job only while the list's multithread jobs, it \
               included, fitted in the usable CPUs, so one wider than the CPUs never ran; \
               since, the first multithread job is taken whatever its width",
    },
    RuleChange {
        key: "shares_from_may_have_work",
        before: 1.0,
        since: Release(7, 5, 0),
        function: "work_fetch.cpp WORK_FETCH::compute_shares, \
                   RSC_PROJECT_WORK_FETCH::compute_rsc_project_reason",
        change: "commit 9c96108c67 (2014-10-10) \"client: work fetch code cleanup\"",
        rule: "a project's fetchable share of a resource was withheld only when prefs, the \
               configuration file, missing apps, the account manager, a deferred scheduler \
               request or a backoff kept it from fetching (may_have_work); a zero share or too \
               much work for its non-excluded instances only kept it from being asked. Since, \
               every reason that keeps it from fetching also withholds its share",
    },
    RuleChange {
        key: "uninitialised_result_index",
        before: 1.0,
        since: Release(7, 6, 13),
        function: "result.cpp RESULT::clear (read by cpu_sched.cpp first_coproc_result)",
        change: "commit 0ce3f7d996 (2015-10-20) \"initialize fields in constructors\"",
        rule: "a job the emulator created after start-up kept whatever RESULT::index (and \
               unfinished_time_slice) its memory held, so the last tie-break among GPU jobs of \
               one priority is not decided by the inputs; since, 0",
    },
    RuleChange {
        key: "exclusion_needs_device",
        before: 0.0,
        since: Release(7, 8, 0),
        function: "log_flags.cpp process_gpu_exclusions",
        change: "commit 1431a21d99 (2015-08-16) \"client: if a GPU exclusion refers to \
                 non-existent device num, ignore it\"",
        rule: "every cc_config exclusion of a GPU type the host has marked that type as having \
               exclusions, which keeps its GPU jobs from reserving instances in the run list \
               and lets exclusion starvation drive work fetch; since, only one naming an \
               existing device of the type (or no type at all) does",
    },
    RuleChange {
        key: "mc_in_rr_sim",
        before: 0.0,
        since: Release(7, 16, 1),
        function: "rr_sim.cpp RR_SIM::pick_jobs_to_run, work_fetch.cpp \
                   RSC_WORK_FETCH::set_request",
        change: "commits 40f0cb44f4 (2018-12-28) \"Avoid starvation when max_concurrent is used, \
                 and related fixes.\" and 81a880c74d (2019-03-25) \"client: improve work fetch \
                 in presence of max concurrent\"",
        rule: "only the run list and its enforcement knew max_concurrent, so the simulation ran a \
               limited app's jobs side by side and work fetch saw no shortfall from the limit; \
               since, the simulation keeps each app and project within its limits and work \
               fetch asks for the shortfall they leave",
    },
    RuleChange {
        key: "run_list_mc_gpu",
        before: 1.0,
        since: Release(7, 16, 1),
        function: "cpu_sched.cpp PROC_RESOURCES::can_schedule, CLIENT_STATE::make_run_list",
        change: "commits 4a7bb390af (2018-12-21) \"Client: fix job scheduling bug\" and \
                 40f0cb44f4 (2018-12-28) \"Avoid starvation when max_concurrent is used, and \
                 related fixes.\"",
        rule: "the run list left out GPU jobs past an app's or project's max_concurrent as well, \
               counting from before the GPU jobs, so GPU jobs used up a limit the CPU jobs of \
               the same app or project then met; since, only CPU jobs are held to the limits, \
               counted from zero after the GPU jobs",
    },
    RuleChange {
        key: "run_list_exclusions_global",
        before: 1.0,
        since: Release(7, 16, 1),
        function: "cpu_sched.cpp PROC_RESOURCES::schedule",
        change: "commit 4a7bb390af (2018-12-21) \"Client: fix job scheduling bug\" (\"check for \
                 exclusion at the project level, not global\")",
        rule: "a GPU job added to the run list reserved no instance whenever its GPU type had \
               exclusions (has_exclusions: an exclusion of every type, or of this type naming a \
               device), whatever its project, so the list kept taking GPU jobs (very long run \
               lists); since, only when its own project has excluded instances",
    },
    RuleChange {
        key: "rr_sim_once_per_moment",
        before: 0.0,
        since: Release(7, 16, 1),
        function: "rr_sim.cpp rr_simulation",
        change: "commit 40f0cb44f4 (2018-12-28) \"Avoid starvation when max_concurrent is used, \
                 and related fixes.\"",
        rule: "every call simulated afresh, so the work-fetch set-up after a scheduling pass of \
               the same instant ran its own simulation (and printed its own [rr_sim] and [prio] \
               lines) over the jobs as enforcement left them; since, a second call at the same \
               time returns ('already did at this time') and both use the first simulation",
    },
    RuleChange {
        key: "rr_sim_gpu_jobs_use_cpu",
        before: 0.0,
        since: Release(7, 16, 1),
        function: "rr_sim.cpp RR_SIM::pick_jobs_to_run",
        change: "commit 40f0cb44f4 (2018-12-28) \"Avoid starvation when max_concurrent is used, \
                 and related fixes.\"",
        rule: "the simulation cleared the CPU use after its GPU passes, so GPU jobs' CPU shares \
               were left out of the CPU's saturation, shortfall and idle instances; since, they \
               count",
    },
    RuleChange {
        key: "mc_limit_reason",
        before: 0.0,
        since: Release(7, 20, 0),
        function: "rr_sim.cpp RR_SIM::pick_jobs_to_run, work_fetch.cpp \
                   RSC_PROJECT_WORK_FETCH::compute_rsc_project_reason",
        change: "commit 4bdef6e2a4 (2021-12-01) \"client: fix work-fetch logic when max concurrent \
                 limits are used\"",
        rule: "the simulation dropped a project's pending jobs of a resource once the project \
               was at a max_concurrent limit (tested after each pick), so it saw a shortfall and \
               kept asking; since, it goes on simulating them, records when the limit was last \
               reached, and a resource whose last limit time lies beyond the buffer gets the \
               reason 'max concurrent job limit'",
    },
    RuleChange {
        key: "zero_share_min_buf",
        before: 0.0,
        since: Release(7, 20, 2),
        function: "work_fetch.cpp RSC_PROJECT_WORK_FETCH::compute_rsc_project_reason",
        change: "commit 4c7657ae9c (2022-06-18) \"client: if project has zero resource share AND \
                 work buf min is zero, don't fetch from it unless device instance is actually \
                 idle\"",
        rule: "a zero-share project was not asked while the resource was saturated beyond \
               WF_EST_FETCH_TIME; since, beyond min(work_buf_min, WF_EST_FETCH_TIME)",
    },
    RuleChange {
        key: "idle_cpus_request_fetch",
        before: 0.0,
        since: Release(7, 24, 0),
        function: "cpu_sched.cpp CLIENT_STATE::enforce_run_list",
        change: "commit f0685c4e3d (2023-05-29) \"client: avoid overscheduling CPUs in presence of MT jobs\"",
        rule: "an enforcement that left CPUs idle asked for a work-fetch check (request_work_fetch \
               \"CPUs idle\") only inside the cpu_sched_debug log flag's test, so a client without \
               that flag did not; since, always (the commit calls the old placement a mistake)",
    },
    RuleChange {
        key: "mc_shortfall_running_max",
        before: 1.0,
        since: Release(8, 2, 0),
        function: "rr_sim.cpp mc_update_stats, work_fetch.cpp RSC_PROJECT_WORK_FETCH::rr_init",
        change: "commit fabdd13cef (2024-08-13) \"client: address issue with max concurrent and work fetch\"",
        rule: "a max_concurrent project's work-fetch shortfall counted the instances between its \
               simulated use and the most it had used so far in the simulation (starting at its \
               smallest limit), capped by the resource's free instances; since, it counts those \
               up to mc_max_could_use = min(smallest limit x the largest usage of its app \
               versions, instances)",
    },
    RuleChange {
        key: "run_list_overfill",
        before: 1.0,
        since: Release(8, 2, 14),
        function: "cpu_sched.cpp PROC_RESOURCES::stop_scan_cpu",
        change: "commit 183517e42d (2026-04-25) \"client: fix sched bug that could cause idle devices\"",
        rule: "make_run_list stopped taking single-thread CPU jobs once they filled the CPUs; \
               since, at twice the CPUs, so jobs skipped for RAM leave others to run",
    },
    RuleChange {
        key: "run_list_cpu_fill_check",
        before: 1.0,
        since: Release(8, 2, 14),
        function: "cpu_sched.cpp PROC_RESOURCES::can_schedule",
        change: "commit 183517e42d (2026-04-25) \"client: fix sched bug that could cause idle devices\"",
        rule: "can_schedule refused a single-thread CPU job once the list's single-thread jobs \
               used all CPUs, and a multithread job that would push the list's multithread use \
               past the CPUs (unless none was listed yet); since, only stop_scan_cpu bounds the \
               list",
    },
    RuleChange {
        key: "enforce_user_cpu_limit",
        before: 0.0,
        since: Release(8, 2, 14),
        function: "cpu_sched.cpp CLIENT_STATE::enforce_run_list",
        change: "commit 66c70e2317 (2026-04-23) \"client: if user has limited #CPUs, honor it.\"",
        rule: "with fewer usable CPUs than the host has (max_ncpus_pct, <ncpus>), enforcement \
               still started a multithread job wider than the CPUs left while CPUs were free, \
               and a GPU job up to one CPU over; since, no job may take CPU use past the limit",
    },
    RuleChange {
        key: "zero_share_one_job",
        before: 0.0,
        since: Release(8, 2, 14),
        function: "work_fetch.cpp RSC_WORK_FETCH::set_request",
        change: "commit b785942244 (2026-04-20) \"client: don't fetch too much work for projects with zero resource share\"",
        rule: "a zero-share project asked for nidle_now instances and 1 s; since, for one \
               instance and 1 s, and nothing when no instance is idle or the project is at its \
               project_max_concurrent",
    },
    RuleChange {
        key: "swap_check_vm_size",
        before: 1.0,
        since: UNRELEASED,
        function: "app.cpp ACTIVE_TASK::parse (read by cpu_sched.cpp CLIENT_STATE::enforce_run_list)",
        change: "commit 450b2ac8 (2026-08-16) \"client: don't use swap usage from state file\" \
                 (the check came in c8925779bc, first in 8.2.14; a28915ebaa renamed its figure \
                 'swap usage')",
        rule: "enforcement skipped a job whose figure exceeded the swap left, the figure being the \
               task's virtual size (the state file's swap_size held it, and so did the \
               measurement), so a task with a large address space never ran ('virtual size (A \
               GB) exceeds swap left (B GB)'); since, the swap the task uses, 0 until it is \
               measured while running",
    },
];

/// The oldest release whose rules the catalogue describes completely (7.0
/// to 7.2 are every change undone: [`params_7_2`]).
pub const OLDEST_CATALOGUED: Release = Release(7, 0, 0);

/// Today's client, the source of the engine's defaults.
pub const TODAY: &str = "c5c6cb79b9 (master, 2026)";

/// `params` with every rule change newer than `release` undone; returns
/// the changes undone, in catalogue order.
pub fn params_for_release(params: &mut Params, release: Release) -> Vec<&'static RuleChange> {
    params_for_release_keeping(params, release, &[])
}

/// [`params_for_release`], leaving alone the keys in `keep` (set by the
/// user with `--set`: the user's value wins over the release's rule).
pub fn params_for_release_keeping(
    params: &mut Params,
    release: Release,
    keep: &[String],
) -> Vec<&'static RuleChange> {
    let mut undone = Vec::new();
    for change in RULE_CHANGES {
        if release < change.since
            && !keep.iter().any(|k| k == change.key)
            && params.set(change.key, &change.before.to_string()).is_ok()
        {
            undone.push(change);
        }
    }
    undone
}

/// The 7.0–7.2 variant of the REC generation (policy-legacy C.1), as
/// client/*.cpp read at client_release/7.2/7.2.42: every catalogued change
/// undone. (The real 7.2.42 emulator agrees with these rules on 99.976% of
/// the 3.2 M decisions of 500 generated scenarios, 495 of them at >= 99.9%;
/// README.)
pub fn params_7_2(params: &mut Params) {
    params_for_release(params, Release(7, 2, 42));
}

/// True for the releases of the 7.0–7.2 variant ([`params_7_2`]).
pub fn is_7_2(release: Release) -> bool {
    release.0 == 7 && release.1 <= 2
}

/// The name of the profile whose rules `release` ran: the newest catalogued
/// boundary at or below it, `current` from the newest on, `7.2.42` for
/// 7.0–7.2 and `7.3.0` for the 7.3 releases before the first boundary.
pub fn profile_name(release: Release) -> String {
    if release < Release(7, 3, 0) {
        return "7.2.42".into();
    }
    let mut boundaries: Vec<Release> = RULE_CHANGES.iter().map(|c| c.since).collect();
    boundaries.sort();
    boundaries.dedup();
    match boundaries.iter().rev().position(|b| *b <= release) {
        Some(0) => "current".into(),
        Some(i) => boundaries[boundaries.len() - 1 - i].to_string(),
        None => Release(7, 3, 0).to_string(),
    }
}

/// One named profile, for `policy profiles`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileInfo {
    /// The name `--policy` takes.
    pub name: String,
    /// The generation whose policy code decides.
    pub generation: Generation,
    /// The releases it stands for.
    pub releases: String,
    /// Where its rules come from.
    pub source: &'static str,
    /// The rules it changes against its newer neighbour.
    pub changes: Vec<RuleChange>,
}

/// The releases each checked against its own emulator (built from its tag)
/// at 100% of the decisions of generated scenarios.
const CHECKED: [Release; 9] = [
    Release(7, 4, 42),
    Release(7, 6, 7),
    Release(7, 6, 33),
    Release(7, 14, 2),
    Release(7, 16, 21),
    Release(7, 18, 1),
    Release(7, 20, 5),
    Release(7, 24, 1),
    Release(8, 0, 4),
];

/// The releases whose own emulator checked the profile for [from, to).
fn checked_note(from: Release, to: Release) -> String {
    let within: Vec<String> = CHECKED
        .iter()
        .filter(|r| from <= **r && **r < to)
        .map(Release::to_string)
        .collect();
    if within.is_empty() {
        String::new()
    } else {
        let each = if within.len() == 1 { "its" } else { "each its" };
        format!(
            " ({} checked against {each} own emulator)",
            within.join(", ")
        )
    }
}

/// Every profile, newest first, each with the rules that differ from its
/// newer neighbour.
pub fn profiles() -> Vec<ProfileInfo> {
    let mut releases: Vec<Release> = RULE_CHANGES.iter().map(|c| c.since).collect();
    releases.sort();
    releases.dedup();
    let mut out = vec![ProfileInfo {
        name: "current".into(),
        generation: Generation::Current,
        releases: format!(
            "{} and later",
            releases
                .last()
                .copied()
                .unwrap_or(OLDEST_CATALOGUED)
                .first_label()
        ),
        source: "today's client source (client/*.cpp at c5c6cb79b9); the engine's defaults",
        changes: Vec::new(),
    }];
    // Each boundary release, newest first: the profile just below it undoes
    // the changes that release made.
    for (i, since) in releases.iter().enumerate().rev() {
        let below = i.checked_sub(1).and_then(|j| releases.get(j)).copied();
        let (name, span, source) = match below {
            Some(below) => (
                below.to_string(),
                format!(
                    "{below} up to {}{}",
                    since.first_label(),
                    checked_note(below, *since)
                ),
                "today's rules with the later changes undone",
            ),
            None => (
                "7.3.0".to_string(),
                format!("7.3.0 up to {since}"),
                "today's rules with the later changes undone",
            ),
        };
        out.push(ProfileInfo {
            name,
            generation: Generation::Current,
            releases: span,
            source,
            changes: RULE_CHANGES
                .iter()
                .filter(|c| c.since == *since)
                .copied()
                .collect(),
        });
    }
    out.push(ProfileInfo {
        name: "7.2.42".into(),
        generation: Generation::Current,
        releases: "7.0 to 7.2 (7.2.42 checked against its own emulator)".into(),
        source: "policy-legacy C.1: client/*.cpp at tag client_release/7.2/7.2.42, as today's \
                 rules with every catalogued change undone, in that generation's log wording",
        changes: Vec::new(),
    });
    out.push(ProfileInfo {
        name: "6.10.60".into(),
        generation: Generation::Ltd66,
        releases: "6.6 to 6.12".into(),
        source: "policy-legacy Part B: per-resource long-term debt, short-term debt",
        changes: Vec::new(),
    });
    out.push(ProfileInfo {
        name: "debt-6.2".into(),
        generation: Generation::Debt62,
        releases: "5.x to 6.5".into(),
        source: "policy-legacy Part A: one CPU long-term debt, WRR simulation, EDF",
        changes: Vec::new(),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_7_16_21_undoes_the_changes_after_it() {
        let mut params = Params::default();
        let undone = params_for_release(&mut params, Release(7, 16, 21));
        assert!(undone.iter().all(|c| c.since > Release(7, 16, 21)));
        assert_eq!(params.mc_limit_reason, 0.0);
        assert_eq!(params.zero_share_min_buf, 0.0);
        assert_eq!(params.mc_in_rr_sim, 1.0);
        assert_eq!(params.rr_sim_gpu_jobs_use_cpu, 1.0);
    }

    /// 7.2.42 is every catalogued change undone: the rules its own emulator
    /// was checked against (cpu_sched.cpp and rr_sim.cpp at the tag).
    #[test]
    fn release_7_2_42_undoes_every_catalogued_change() {
        let mut params = Params::default();
        let undone = params_for_release(&mut params, Release(7, 2, 42));
        assert_eq!(undone.len(), RULE_CHANGES.len());
        let mut seven_two = Params::default();
        params_7_2(&mut seven_two);
        assert_eq!(seven_two, params);
        assert_eq!(params.run_list_mt_overfill, 0.0);
        assert_eq!(params.mt_first_may_exceed, 0.0);
        assert_eq!(params.enforce_sort_gpu_by_ncpus, 1.0);
        assert_eq!(params.uninitialised_result_index, 1.0);
        assert_eq!(params.rr_sim_finish_at_step_end, 0.0);
        assert_eq!(params.mc_in_rr_sim, 0.0);
        assert_eq!(params.rr_sim_gpu_jobs_use_cpu, 0.0);
        assert_eq!(params.rr_sim_once_per_moment, 0.0);
        assert_eq!(params.run_list_mc_gpu, 1.0);
        assert_eq!(params.run_list_exclusions_global, 1.0);
        assert_eq!(params.run_list_overfill, 1.0);
    }

    /// A 7.6 release between the 2014-2015 changes and 7.16.1.
    #[test]
    fn release_7_6_33_has_the_2014_2015_changes_only() {
        let mut params = Params::default();
        params_for_release(&mut params, Release(7, 6, 33));
        assert_eq!(params.run_list_mt_overfill, 2.0);
        assert_eq!(params.mt_first_may_exceed, 1.0);
        assert_eq!(params.enforce_sort_gpu_by_ncpus, 0.0);
        assert_eq!(params.uninitialised_result_index, 0.0);
        assert_eq!(params.mc_in_rr_sim, 0.0);
        assert_eq!(params.rr_sim_gpu_jobs_use_cpu, 0.0);
    }

    #[test]
    fn release_7_20_5_keeps_the_7_20_changes() {
        let mut params = Params::default();
        let undone = params_for_release(&mut params, Release(7, 20, 5));
        assert!(undone.iter().all(|c| c.since > Release(7, 20, 5)));
        assert_eq!(params.mc_limit_reason, 1.0);
        assert_eq!(params.zero_share_min_buf, 1.0);
        assert_eq!(params.run_list_overfill, 1.0);
        assert_eq!(params.mc_shortfall_running_max, 1.0);
        assert_eq!(params.zero_share_one_job, 0.0);
    }

    #[test]
    fn release_8_2_10_keeps_the_8_2_0_change() {
        let mut params = Params::default();
        let undone = params_for_release(&mut params, Release(8, 2, 10));
        assert!(undone.iter().all(|c| c.since >= Release(8, 2, 14)));
        assert_eq!(params.mc_shortfall_running_max, 0.0);
        assert_eq!(params.run_list_overfill, 1.0);
    }

    #[test]
    fn a_value_set_by_the_user_wins_over_the_release() {
        let mut params = Params::default();
        params.set("run_list_overfill", "3").unwrap();
        let keep = ["run_list_overfill".to_string()];
        let undone = params_for_release_keeping(&mut params, Release(7, 20, 5), &keep);
        assert_eq!(params.run_list_overfill, 3.0);
        assert!(undone.iter().all(|c| c.key != "run_list_overfill"));
        assert_eq!(params.mc_shortfall_running_max, 1.0);
    }

    #[test]
    fn every_change_differs_from_today() {
        let today = Params::default();
        for change in RULE_CHANGES {
            let value = today.get(change.key).and_then(|v| v.parse::<f64>().ok());
            assert!(value.is_some(), "{} is not a policy constant", change.key);
            assert_ne!(value, Some(change.before), "{}", change.key);
        }
    }

    #[test]
    fn today_undoes_nothing() {
        let mut params = Params::default();
        assert!(params_for_release(&mut params, UNRELEASED).is_empty());
        assert_eq!(params, Params::default());
    }

    #[test]
    fn every_change_names_a_real_key() {
        let params = Params::default();
        for change in RULE_CHANGES {
            assert!(params.get(change.key).is_some(), "{}", change.key);
        }
    }

    #[test]
    fn profile_names() {
        assert_eq!(profile_name(Release(7, 20, 5)), "7.20.2");
        assert_eq!(profile_name(Release(7, 20, 1)), "7.20.0");
        assert_eq!(profile_name(Release(7, 16, 21)), "7.16.1");
        assert_eq!(profile_name(Release(7, 16, 11)), "7.16.1");
        assert_eq!(profile_name(Release(7, 14, 2)), "7.8.0");
        assert_eq!(profile_name(Release(7, 4, 30)), "7.4.24");
        assert_eq!(profile_name(Release(7, 4, 9)), "7.4.9");
        assert_eq!(profile_name(Release(7, 3, 1)), "7.3.0");
        assert_eq!(profile_name(Release(7, 2, 42)), "7.2.42");
        assert_eq!(profile_name(Release(8, 0, 4)), "7.24.0");
        assert_eq!(profile_name(Release(7, 22, 2)), "7.20.2");
        assert_eq!(profile_name(Release(8, 2, 8)), "8.2.0");
        assert_eq!(profile_name(Release(8, 2, 15)), "8.2.14");
        assert_eq!(profile_name(UNRELEASED), "current");
        assert_eq!(profile_name(Release(8, 3, 0)), "current");
    }

    #[test]
    fn releases_parse() {
        assert_eq!("7.20.5".parse::<Release>(), Ok(Release(7, 20, 5)));
        assert_eq!("8.2".parse::<Release>(), Ok(Release(8, 2, 0)));
        assert!("7.x.1".parse::<Release>().is_err());
        assert!("7.20.5.1".parse::<Release>().is_err());
    }
}

//! Every policy constant of the current (REC-based) client policy as a named,
//! overridable parameter.
//!
//! Owns [`Params`] (the values), [`ParamInfo`] (the registry rows behind
//! `--set KEY=VALUE`) and the two ordering/runtime switches the spec leaves
//! to the auditor ([`RrSimOrder`], [`RuntimeModel`]).
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.
//!
//! The REC half-life deserves a note: the client takes it from cc_config
//! (`<rec_half_life_days>`), which is part of the host state
//! ([`crate::policy::state::CcConfig::rec_half_life_days`]). The parameter
//! `rec_half_life_days` here is an *override*: 0 (its default) means "use the
//! host state's value"; a positive value replaces it. A non-positive value
//! in the host state means 10 days (`default_rec_half_life_days`), as in
//! `CC_CONFIG::parse`. See [`Params::rec_half_life_secs`].

use super::PolicyError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How the simulation chooses the project supplying the next job (spec §4.3, §9.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RrSimOrder {
    /// The shipped artifact: projects by decreasing allocation sequence
    /// (the project object created last first). Reproduces the emulator
    /// traces when the allocation sequence is the client_state.xml order.
    AllocationOrder,
    /// The intent: highest current scheduling priority first, re-evaluated
    /// after each activation; ties by project order.
    Intended,
}

impl fmt::Display for RrSimOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RrSimOrder::AllocationOrder => "allocation",
            RrSimOrder::Intended => "intended",
        })
    }
}

/// Which runtime estimator feeds the simulation and the queue adjustment (spec §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RuntimeModel {
    /// The real client: `ACTIVE_TASK::est_dur()` and the static estimate.
    Client,
    /// The emulator (`#ifdef SIM`): a job's exact remaining FLOPs when the
    /// host state carries it ([`crate::policy::state::Job::exact_flops_remaining`]).
    Emulator,
}

impl fmt::Display for RuntimeModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuntimeModel::Client => "client",
            RuntimeModel::Emulator => "emulator",
        })
    }
}

/// One row of the parameter registry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamInfo {
    /// The key used by `--set KEY=VALUE`.
    pub key: &'static str,
    /// The default value, printed.
    pub default: String,
    /// The spec section that defines it.
    pub section: &'static str,
    /// One sentence of documentation.
    pub doc: &'static str,
}

macro_rules! numeric_params {
    ($( $field:ident = $default:expr, $section:literal, $doc:literal; )*) => {
        /// All policy constants; see [`Params::list`] for keys, defaults and sections.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub struct Params {
            $( #[doc = $doc] pub $field: f64, )*
            /// Order of projects inside the simulation (spec §9.1).
            pub rr_sim_order: RrSimOrder,
            /// Runtime estimator (spec §3.2).
            pub runtime_model: RuntimeModel,
            /// Record what the client's debug messages print (rr_sim steps,
            /// the run list's reservations) in the outcomes; decisions are
            /// the same either way. Set by `simulate --log-out`.
            #[serde(skip)]
            pub trace: bool,
        }

        impl Default for Params {
            fn default() -> Self {
                Params {
                    $( $field: $default, )*
                    rr_sim_order: RrSimOrder::AllocationOrder,
                    runtime_model: RuntimeModel::Client,
                    trace: false,
                }
            }
        }

        impl Params {
            /// The registry: every key with its default, spec section and doc.
            pub fn list() -> Vec<ParamInfo> {
                let mut rows = vec![
                    $( ParamInfo {
                        key: stringify!($field),
                        default: format!("{}", $default),
                        section: $section,
                        doc: $doc,
                    }, )*
                ];
                rows.push(ParamInfo {
                    key: "rr_sim_order",
                    default: RrSimOrder::AllocationOrder.to_string(),
                    section: "§9.1",
                    doc: "project order in the simulation: allocation (shipped artifact) or intended (priority)",
                });
                rows.push(ParamInfo {
                    key: "runtime_model",
                    default: RuntimeModel::Client.to_string(),
                    section: "§3.2",
                    doc: "remaining-work estimator: client (est_dur) or emulator (exact remaining FLOPs)",
                });
                rows
            }

            /// The keys of `KEY=VALUE` overrides (a release's profile leaves
            /// them alone); texts without `=` are left out.
            pub fn assignment_keys<'a>(
                assignments: impl IntoIterator<Item = &'a String>,
            ) -> Vec<String> {
                assignments
                    .into_iter()
                    .filter_map(|a| a.split_once('=').map(|(k, _)| k.trim().to_string()))
                    .collect()
            }

            /// Applies one `KEY=VALUE` override (the text of `--set`).
            pub fn apply_assignment(&mut self, assignment: &str) -> Result<(), PolicyError> {
                let (key, value) = assignment
                    .split_once('=')
                    .ok_or_else(|| PolicyError::BadAssignment(assignment.to_string()))?;
                self.set(key.trim(), value.trim())
            }

            /// Overrides one parameter from its textual value (`--set KEY=VALUE`).
            pub fn set(&mut self, key: &str, value: &str) -> Result<(), PolicyError> {
                let bad = || PolicyError::BadParamValue { key: key.to_string(), value: value.to_string() };
                match key {
                    $( stringify!($field) => {
                        let parsed: f64 = value.trim().parse().map_err(|_| bad())?;
                        if !parsed.is_finite() {
                            return Err(bad());
                        }
                        self.$field = parsed;
                    } )*
                    "rr_sim_order" => {
                        self.rr_sim_order = match value.trim() {
                            "allocation" => RrSimOrder::AllocationOrder,
                            "intended" => RrSimOrder::Intended,
                            _ => return Err(bad()),
                        };
                    }
                    "runtime_model" => {
                        self.runtime_model = match value.trim() {
                            "client" => RuntimeModel::Client,
                            "emulator" => RuntimeModel::Emulator,
                            _ => return Err(bad()),
                        };
                    }
                    _ => return Err(PolicyError::UnknownParam(key.to_string())),
                }
                Ok(())
            }

            /// The current value of one parameter, printed as `set` accepts it.
            pub fn get(&self, key: &str) -> Option<String> {
                match key {
                    $( stringify!($field) => Some(format!("{}", self.$field)), )*
                    "rr_sim_order" => Some(self.rr_sim_order.to_string()),
                    "runtime_model" => Some(self.runtime_model.to_string()),
                    _ => None,
                }
            }
        }
    };
}

numeric_params! {
    wf_est_fetch_time = 180.0, "§1, §7.2",
        "WF_EST_FETCH_TIME: floor of the min buffer (s) and zero-share threshold cap";
    wf_min_backoff_interval = 600.0, "§7.12",
        "WF_MIN_BACKOFF_INTERVAL: first per-(project, resource) backoff interval (s)";
    wf_max_backoff_interval = 86400.0, "§7.12",
        "WF_MAX_BACKOFF_INTERVAL: cap of the per-(project, resource) backoff interval (s)";
    rsc_backoff_factor_min = 0.5, "§7.12, §9.3",
        "lower end of the random factor applied to a resource backoff (0.5 + U)";
    rsc_backoff_factor_max = 1.5, "§7.12, §9.3",
        "upper end of the random factor applied to a resource backoff (0.5 + U)";
    wf_max_runnable_jobs = 1000.0, "§7.4",
        "WF_MAX_RUNNABLE_JOBS: project reason 'too many runnable tasks' above this";
    sched_retry_delay_min = 60.0, "§7.13",
        "SCHED_RETRY_DELAY_MIN: base of the project RPC failure backoff (s)";
    sched_retry_delay_max = 14400.0, "§7.13",
        "SCHED_RETRY_DELAY_MAX: cap of the project RPC failure backoff (s)";
    retry_cap = 10.0, "§7.13",
        "RETRY_CAP: cap on the failure count in the backoff exponent";
    master_fetch_period = 10.0, "§7.13",
        "MASTER_FETCH_PERIOD: RPC failures before the master URL is refetched";
    master_fetch_retry_cap = 3.0, "§7.13",
        "MASTER_FETCH_RETRY_CAP: master fetch failures before the one-day mode";
    master_fetch_interval = 86400.0, "§7.13",
        "MASTER_FETCH_INTERVAL: RPC backoff in the one-day mode (s)";
    rpc_backoff_factor_min = 0.5, "§7.13, §9.3",
        "lower end of the random factor of the project RPC failure backoff";
    rpc_backoff_factor_max = 1.0, "§7.13, §9.3",
        "upper end of the random factor of the project RPC failure backoff";
    cobblestone_scale = 200.0 / 86400e9, "§1, §5.2",
        "COBBLESTONE_SCALE: credit per FLOP";
    rec_half_life_days = 0.0, "§1, §5.3",
        "REC half-life override in days; 0 = use the host state's cc_config rec_half_life_days";
    default_rec_half_life_days = 10.0, "§1, §5.3",
        "half-life used when cc_config's rec_half_life_days is not positive";
    rec_adjust_period = 60.0, "§1, §5.1",
        "REC_ADJUST_PERIOD (s): intervals longer than twice this are discarded (emulator: --delta)";
    rec_bump_secs = 3600.0, "§5.5",
        "length of the 'as if it ran' REC bump (s); the client divides RECSUM by 24";
    rr_sim_gpu_jobs_use_cpu = 1.0, "§4.3, legacy C.1",
        "1: a GPU job's CPU share counts in the simulation's CPU use (saturation, shortfall, idle); 0: it does not (7.0-7.2 clients)";
    rr_sim_finish_at_step_end = 1.0, "§4.5, legacy C.1",
        "1: a simulated completion is timed at the end of the step it ends (7.4.9 on, commit 6fa0940502); 0: at the step's start, as 7.0-7.2 print it";
    gpu_efficiency = 0.2, "§1, §2.4",
        "fraction of GPU peak FLOPS assumed achieved (relative speed)";
    default_gpu_peak_flops = 100e9, "§1",
        "peak FLOPS used for a GPU whose detected value is <= 0 or above max_gpu_peak_flops";
    max_gpu_peak_flops = 1e15, "§1",
        "largest believable GPU peak FLOPS";
    deadline_cushion = 0.0, "§1, §3.4",
        "DEADLINE_CUSHION (s) subtracted from the computation deadline";
    dcf_min = 0.01, "§1, §3.3",
        "lower clamp of the duration correction factor";
    dcf_max = 100.0, "§1, §3.3",
        "upper clamp of the duration correction factor";
    wacky_dcf_low = 0.02, "§1, §7.8",
        "DCF below this is 'wacky' (request 1 s)";
    wacky_dcf_high = 80.0, "§1, §7.8",
        "DCF above this is 'wacky' (request 1 s)";
    dcf_edf_threshold = 90.0, "§1, §6.2",
        "DCF at or above this makes all of a project's jobs EDF candidates";
    rr_sim_max_step = 3600.0, "§1, §4.5",
        "longest simulation step (s) while the next completion is within rr_sim_long_step";
    rr_sim_long_step = 36000.0, "§1, §4.5",
        "beyond this (s) the simulation step is the next completion divided by rr_sim_long_divisor";
    rr_sim_long_divisor = 10.0, "§1, §4.5",
        "divisor of long simulation steps";
    rr_sim_min_flops = 1e6, "§4.2",
        "simulated FLOPS used when a job's availability-scaled FLOPS is 0";
    availability_min = 0.01, "§1, §2.8",
        "lower clamp of the availability fractions";
    zero_share_priority_offset = 1000.0, "§5.4",
        "priority offset that keeps zero-share projects below all others";
    run_list_overfill = 2.0, "§6.2",
        "the run list stops taking single-thread CPU jobs at this many times the usable CPUs (8.2.14: 2; before: 1)";
    run_list_mt_overfill = 2.0, "§6.2",
        "the run list stops taking multithread CPU jobs at this many times the usable CPUs; 0: no such stop (before 7.3.2: stop_scan_cpu counts single-thread jobs only; 17e44af601 added the limit)";
    mt_first_may_exceed = 1.0, "§6.2",
        "1: can_schedule takes a multithread job wider than the usable CPUs when the list holds no multithread job yet (1092fd1b31, first in 7.4.24); 0: never (7.0-7.4.23)";
    run_list_cpu_fill_check = 0.0, "§6.2",
        "1: can_schedule also refuses a CPU job once the list holds enough (single-thread: NCPUS used; multithread: would exceed NCPUS), as before 8.2.14";
    mc_shortfall_running_max = 0.0, "§4.4, §7.8",
        "1: a max_concurrent project's shortfall counts the instances up to the most it used so far in the simulation (from its smallest limit, capped by the free instances), as before 8.2.0; 0: up to mc_max_could_use";
    mc_limit_reason = 1.0, "§4.4, §7.5",
        "1: a max_concurrent project's simulation goes on past its limit, and a resource whose last limit time lies beyond the buffer gets the reason `max concurrent job limit` (7.20.0); 0: the simulation drops the project's pending jobs of that resource once it is at its limit, and there is no such reason";
    run_list_mc_gpu = 0.0, "§6.2",
        "1: make_run_list applies max_concurrent to GPU jobs too, its counters started before the GPU jobs and carried into the CPU jobs (7.0-7.16.0: PROC_RESOURCES::can_schedule); 0: to CPU jobs only, counted afresh after the GPU jobs (4a7bb390af and 40f0cb44f4, first in 7.16.1)";
    run_list_exclusions_global = 0.0, "§6.2",
        "1: a GPU job reserves no instance in the run list when any GPU exclusion names its resource (7.0-7.16.0: rsc_work_fetch[rt].has_exclusions); 0: only when its own project has excluded instances (4a7bb390af, first in 7.16.1)";
    exclusion_needs_device = 1.0, "§2.5",
        "1: an exclusion naming a GPU type sets that type's has_exclusions only when it names one of its devices (1431a21d99, first in 7.8.0; an absent device_num is -1, which no device has); 0: every exclusion of a type the host has sets it (7.0-7.7)";
    run_list_exclusions_running_only = 0.0, "§6.2",
        "1: of the GPU jobs that may be kept off their instances, only one whose task is executing or suspended in memory reserves none in the run list (7.1.1-7.3: 6b6c2ac519, e929b58ac8); 0: every such job (8d009ce3b3, first in 7.4.0)";
    shares_from_may_have_work = 0.0, "§7.6",
        "1: the fetchable share counts a project's resource unless prefs, the configuration file, missing apps, the account manager, a deferred scheduler request or a backoff block it (compute_may_have_work; 7.0-7.4); 0: unless any can't-fetch reason does, the zero-share and too-much-excluded-work tests included (9c96108c67, first in 7.5.0)";
    rr_sim_once_per_moment = 1.0, "§4, §8",
        "1: one round-robin simulation per instant, shared by the scheduling pass and work fetch (7.16.1: rr_simulation() returns when it already ran at this time, commit 40f0cb44f4); 0: every scheduling pass and work-fetch set-up simulates afresh (7.0-7.14)";
    mc_in_rr_sim = 1.0, "§4.3, §4.4, §7.8",
        "1: the simulation and work fetch take max_concurrent limits into account (7.16.1: commits 40f0cb44f4 and 81a880c74d); 0: only the run list and its enforcement do (7.0-7.14: rr_sim.cpp and work_fetch.cpp know no max_concurrent)";
    enforce_sort_gpu_by_ncpus = 0.0, "§6.3, legacy C.1",
        "1: enforce_run_list's more_important() also puts GPU jobs using more CPUs first (7.0-7.4.8; a177ef0068 limited that key to CPU jobs, first in 7.4.9); 0: only CPU jobs";
    uninitialised_result_index = 0.0, "§6.2, legacy C.1",
        "1: a job the emulator created after start-up has no defined RESULT::index (7.0-7.6.12: RESULT::clear() left it unset until 0ce3f7d996, first in 7.6.13), so first_coproc_result's last tie among such jobs is not decided by the inputs: a replay takes the recorded order; 0: it is 0";
    zero_share_min_buf = 1.0, "§7.5",
        "1: a zero-share project is not asked while the resource is saturated beyond min(work_buf_min, WF_EST_FETCH_TIME) (7.20.2); 0: beyond WF_EST_FETCH_TIME";
    zero_share_one_job = 1.0, "§7.8",
        "1: a zero-share project asks for one instance and 1 s when an instance is idle and it is below project_max_concurrent (8.2.14); 0: for nidle_now instances and 1 s always";
    enforce_user_cpu_limit = 1.0, "§6.3",
        "1: when the user limited the CPUs (max_ncpus_pct, ncpus), enforcement never runs a job past the limit, multithread and GPU jobs included (8.2.14); 0: the limit is only the usual NCPUS test";
    swap_check_vm_size = 0.0, "§6.3",
        "1: enforcement's swap check compares a task's virtual size with the swap left, as 8.2.14-8.2.15 did (ACTIVE_TASK::parse read the state file's swap_size, which held the VM size; c8925779bc added the check); 0: the swap the task uses (450b2ac8, on master after 8.2.15)";
    idle_cpus_request_fetch = 1.0, "§6.3",
        "1: enforcement that leaves CPUs idle asks for a work-fetch check (7.24.0); 0: only with the cpu_sched_debug log flag on, where the request sat before";
    gpu_overcommit_cpus = 1.0, "§6.3",
        "a GPU job may push CPU use this far above the usable CPUs in enforcement";
    busy_time_min_nused = 1.0, "§4.6",
        "jobs using fewer instances than this do not feed the busy-time estimator";
    idle_epsilon = 1e-6, "§4.5",
        "an instance count below this is 'none' in shortfall and saturation tests";
}

impl Params {
    /// The effective REC half-life in seconds: the override if positive, else
    /// the host state's cc_config value if positive, else the default (10 days).
    pub fn rec_half_life_secs(&self, configured_days: f64) -> f64 {
        let days = if self.rec_half_life_days > 0.0 {
            self.rec_half_life_days
        } else if configured_days > 0.0 && configured_days.is_finite() {
            configured_days
        } else {
            self.default_rec_half_life_days
        };
        days * 86400.0
    }

    /// The range `[lo, hi]` of the random factor applied to a per-resource backoff.
    pub fn rsc_backoff_factor_range(&self) -> (f64, f64) {
        (self.rsc_backoff_factor_min, self.rsc_backoff_factor_max)
    }

    /// The range `[lo, hi]` of the random factor applied to a project RPC backoff.
    pub fn rpc_backoff_factor_range(&self) -> (f64, f64) {
        (self.rpc_backoff_factor_min, self.rpc_backoff_factor_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_are_key_equals_value() {
        let mut params = Params::default();
        params.apply_assignment(" rec_half_life_days = 1 ").unwrap();
        assert_eq!(params.rec_half_life_days, 1.0);
        assert!(matches!(
            params.apply_assignment("rec_half_life_days"),
            Err(PolicyError::BadAssignment(_))
        ));
        assert!(params.apply_assignment("no_such_key=1").is_err());
    }

    #[test]
    fn registry_lists_every_key_and_defaults_round_trip() {
        let params = Params::default();
        let rows = Params::list();
        assert!(rows.iter().any(|row| row.key == "rec_half_life_days"));
        for row in &rows {
            assert_eq!(
                params.get(row.key).as_deref(),
                Some(row.default.as_str()),
                "{}",
                row.key
            );
            let mut copy = params.clone();
            copy.set(row.key, &row.default).unwrap();
            assert_eq!(copy, params, "{}", row.key);
        }
    }

    #[test]
    fn set_rejects_unknown_keys_and_bad_values() {
        let mut params = Params::default();
        assert!(matches!(
            params.set("nope", "1"),
            Err(PolicyError::UnknownParam(_))
        ));
        assert!(params.set("wf_min_backoff_interval", "abc").is_err());
        assert!(params.set("wf_min_backoff_interval", "NaN").is_err());
        assert!(params.set("rr_sim_order", "random").is_err());
        params.set("rr_sim_order", "intended").unwrap();
        assert_eq!(params.rr_sim_order, RrSimOrder::Intended);
    }

    /// §1, §5.3: the override wins, then cc_config, then 10 days.
    #[test]
    fn half_life_combines_override_and_config() {
        let mut params = Params::default();
        // cc_config says 1 day: 86400 s.
        assert_eq!(params.rec_half_life_secs(1.0), 86400.0);
        // cc_config non-positive: default 10 days = 864000 s.
        assert_eq!(params.rec_half_life_secs(0.0), 864000.0);
        assert_eq!(params.rec_half_life_secs(-3.0), 864000.0);
        // --set rec_half_life_days=2 overrides cc_config's 1 day: 172800 s.
        params.set("rec_half_life_days", "2").unwrap();
        assert_eq!(params.rec_half_life_secs(1.0), 172800.0);
    }
}

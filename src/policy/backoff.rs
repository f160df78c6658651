//! Backoffs: the per-(project, resource) work-fetch backoff (§7.12) and the
//! project-level scheduler RPC backoff (§7.13).
//!
//! Randomness enters only as a drawn value `u` in [0, 1] (the client's
//! `drand()`), passed by the caller; [`Params::rsc_backoff_factor_range`] and
//! [`Params::rpc_backoff_factor_range`] say which factors it can produce, and
//! [`backoff_secs_in_range`] checks a recorded backoff against them.
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use super::params::Params;
use super::state::{Project, ProjectRsc};
use super::PolicyError;
use serde::Serialize;

/// Checks that a drawn value lies in [0, 1] (both ends reachable, §9.3).
fn check_draw(u: f64) -> Result<f64, PolicyError> {
    if (0.0..=1.0).contains(&u) {
        Ok(u)
    } else {
        Err(PolicyError::RandomOutOfRange {
            value: u,
            lo: 0.0,
            hi: 1.0,
        })
    }
}

/// A resource backoff that was applied.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResourceBackoff {
    /// The new nominal interval.
    pub interval: f64,
    /// The randomised length (`backing off <rsc> <secs> sec`).
    pub secs: f64,
    /// The new absolute backoff time.
    pub until: f64,
}

/// Mirrors RSC_PROJECT_WORK_FETCH::resource_backoff() in client/work_fetch.cpp
/// (§7.12): doubles the interval between its bounds (first 600 s), then backs
/// off for `interval × (0.5 + u)`.
pub fn resource_backoff(
    rsc: &mut ProjectRsc,
    now: f64,
    u: f64,
    params: &Params,
) -> Result<ResourceBackoff, PolicyError> {
    let u = check_draw(u)?;
    rsc.backoff_interval = if rsc.backoff_interval > 0.0 {
        (rsc.backoff_interval * 2.0).min(params.wf_max_backoff_interval)
    } else {
        params.wf_min_backoff_interval
    };
    let (lo, hi) = params.rsc_backoff_factor_range();
    let secs = (lo + u * (hi - lo)) * rsc.backoff_interval;
    rsc.backoff_time = now + secs;
    Ok(ResourceBackoff {
        interval: rsc.backoff_interval,
        secs,
        until: rsc.backoff_time,
    })
}

/// Mirrors RSC_PROJECT_WORK_FETCH::clear_backoff() (§7.12).
pub fn clear_resource_backoff(rsc: &mut ProjectRsc) {
    rsc.backoff_interval = 0.0;
    rsc.backoff_time = 0.0;
}

/// True if a recorded backoff of `secs` can result from `interval` (§9.3):
/// `secs ∈ [lo × interval, hi × interval]`, with `tolerance` for printed rounding.
pub fn backoff_secs_in_range(secs: f64, interval: f64, range: (f64, f64), tolerance: f64) -> bool {
    secs >= range.0 * interval - tolerance && secs <= range.1 * interval + tolerance
}

/// Mirrors PROJECT::set_min_rpc_time() (§7.13): only ever raises `min_rpc_time`.
pub fn set_min_rpc_time(project: &mut Project, t: f64) -> bool {
    if t > project.min_rpc_time {
        project.min_rpc_time = t;
        true
    } else {
        false
    }
}

/// What a project RPC failure backoff did (§7.13).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum RpcBackoff {
    /// Master-fetch failures reached the cap: one day, master fetch pending.
    MasterFetchMode {
        /// The new `min_rpc_time`.
        until: f64,
    },
    /// Exponential backoff (possibly after scheduling a master fetch).
    Delay {
        /// The failure count used in the exponent.
        n: u32,
        /// The randomised delay.
        secs: f64,
        /// The master URL is to be refetched.
        master_fetch: bool,
    },
}

/// Mirrors SCHEDULER_OP::project_rpc_backoff() in client/scheduler_op.cpp (§7.13).
pub fn project_rpc_backoff(
    project: &mut Project,
    now: f64,
    network_up: bool,
    u: f64,
    params: &Params,
) -> Result<RpcBackoff, PolicyError> {
    let u = check_draw(u)?;
    if f64::from(project.master_fetch_failures) >= params.master_fetch_retry_cap {
        project.master_url_fetch_pending = true;
        set_min_rpc_time(project, now + params.master_fetch_interval);
        return Ok(RpcBackoff::MasterFetchMode {
            until: project.min_rpc_time,
        });
    }
    let mut master_fetch = false;
    if f64::from(project.nrpc_failures) == params.master_fetch_period {
        project.master_url_fetch_pending = true;
        project.min_rpc_time = 0.0;
        project.nrpc_failures = 0;
        project.master_fetch_failures += 1;
        master_fetch = true;
    }
    if network_up {
        project.nrpc_failures += 1;
    }
    let n = f64::from(project.nrpc_failures).min(params.retry_cap);
    let (lo, hi) = params.rpc_backoff_factor_range();
    let secs = (params.sched_retry_delay_min * 2f64.powf(n)).min(params.sched_retry_delay_max)
        * (lo + u * (hi - lo));
    set_min_rpc_time(project, now + secs);
    Ok(RpcBackoff::Delay {
        n: n as u32,
        secs,
        master_fetch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// §7.12: 600, 1200, 2400, …, 76800, 86400, 86400; u = 0.5 gives factor 1.
    #[test]
    fn resource_backoff_doubles_between_bounds() {
        let params = Params::default();
        let mut rsc = ProjectRsc::default();
        let mut intervals = Vec::new();
        for _ in 0..10 {
            intervals.push(
                resource_backoff(&mut rsc, 1000.0, 0.5, &params)
                    .unwrap()
                    .interval,
            );
        }
        assert_eq!(
            intervals,
            vec![
                600.0, 1200.0, 2400.0, 4800.0, 9600.0, 19200.0, 38400.0, 76800.0, 86400.0, 86400.0
            ]
        );
        assert_eq!(rsc.backoff_time, 1000.0 + 86400.0);
        clear_resource_backoff(&mut rsc);
        assert_eq!((rsc.backoff_interval, rsc.backoff_time), (0.0, 0.0));
    }

    /// §7.12 example (gpu_no_gpu_work_backoff 06:12:00): second interval 1200, logged
    /// 1401 s → factor 1.1675 ∈ [0.5, 1.5]: u = 0.6675. u outside [0, 1] is refused.
    #[test]
    fn drawn_factor_and_range_check() {
        let params = Params::default();
        let mut rsc = ProjectRsc {
            backoff_interval: 600.0,
            ..ProjectRsc::default()
        };
        let applied = resource_backoff(&mut rsc, 0.0, 0.6675, &params).unwrap();
        assert!((applied.secs - 1401.0).abs() < 1e-9);
        assert!(backoff_secs_in_range(
            1401.0,
            1200.0,
            params.rsc_backoff_factor_range(),
            0.5
        ));
        assert!(!backoff_secs_in_range(
            1900.0,
            1200.0,
            params.rsc_backoff_factor_range(),
            0.5
        ));
        assert!(resource_backoff(&mut rsc, 0.0, 1.5, &params).is_err());
        assert!(resource_backoff(&mut rsc, 0.0, f64::NAN, &params).is_err());
    }

    /// §7.13: first failure n = 1: min(60 × 2, 14400) × (0.5 + 0.5 u); u = 1 → 120 s.
    /// Tenth failure count → master fetch, counter reset then 1 → 120 × 0.5 (u = 0) = 60.
    /// Master fetch failures 3 → one day.
    #[test]
    fn project_rpc_backoff_rules() {
        let params = Params::default();
        let mut project = Project::new("P", 100.0, 1);
        let RpcBackoff::Delay { n, secs, .. } =
            project_rpc_backoff(&mut project, 0.0, true, 1.0, &params).unwrap()
        else {
            panic!()
        };
        assert_eq!((n, secs), (1, 120.0));
        assert_eq!(project.min_rpc_time, 120.0);
        project.nrpc_failures = 10;
        let RpcBackoff::Delay {
            n,
            secs,
            master_fetch,
        } = project_rpc_backoff(&mut project, 1000.0, true, 0.0, &params).unwrap()
        else {
            panic!()
        };
        assert_eq!((n, secs, master_fetch), (1, 60.0, true));
        assert_eq!(project.master_fetch_failures, 1);
        // n = 9: 60 × 512 = 30720 → capped 14400.
        project.nrpc_failures = 8;
        let RpcBackoff::Delay { secs, .. } =
            project_rpc_backoff(&mut project, 1000.0, true, 1.0, &params).unwrap()
        else {
            panic!()
        };
        assert_eq!(secs, 14400.0);
        project.master_fetch_failures = 3;
        assert_eq!(
            project_rpc_backoff(&mut project, 1000.0, true, 0.3, &params).unwrap(),
            RpcBackoff::MasterFetchMode { until: 87400.0 }
        );
    }

    proptest! {
        /// §7.12: the interval stays within [600, 86400] and the backoff within [0.5, 1.5] × interval.
        #[test]
        fn backoff_intervals_stay_within_bounds(draws in prop::collection::vec(0.0f64..=1.0, 1..30)) {
            let params = Params::default();
            let mut rsc = ProjectRsc::default();
            for u in draws {
                let applied = resource_backoff(&mut rsc, 0.0, u, &params).unwrap();
                prop_assert!(applied.interval >= 600.0 && applied.interval <= 86400.0);
                prop_assert!(applied.secs >= 0.5 * applied.interval && applied.secs <= 1.5 * applied.interval);
            }
        }
    }
}

//! Part A fixtures (seed examples, `acceptance-scenarios.md` S-RR1a) and invariants.

use super::*;
use proptest::prelude::*;

fn project(share: f64) -> DebtProject {
    DebtProject {
        share,
        runnable: true,
        nearly_runnable: true,
        potentially_runnable: true,
        contactable: true,
        ..DebtProject::default()
    }
}

fn result(project: usize, cpu_left: f64) -> SimResult {
    SimResult {
        project,
        cpu_left,
        computation_deadline: 1e9,
        too_large: false,
    }
}

#[test]
fn a2_seed_request_conversion_example() {
    let flops = expected_project_flops_per_cpu(1e9, 0.5, 0.8, 0.9);
    assert!((flops - 0.36e9).abs() < 1.0);
    assert!((flops * 1000.0 - 360e9).abs() < 1e3);
}

#[test]
fn a2_cpu_efficiency_and_frac() {
    let eff = update_cpu_efficiency(1.0, 0.0, 86400.0);
    assert!((eff - (-1.0f64).exp()).abs() < 1e-12);
    assert_eq!(overall_cpu_frac(0.001, 1.0, 1.0), 0.01);
    assert_eq!(overall_cpu_frac(1.0, 1.0, 1.0), 1.0);
}

#[test]
fn a5_s_rr1a_seed_timeline_gives_4_0_2_hours() {
    let projects = [project(2.0), project(1.0)];
    let results = [result(0, 24000.0), result(0, 9600.0), result(1, 31200.0)];
    let params = DebtParams {
        rate_recompute: RateRecompute::EveryEvent,
        ..DebtParams::default()
    };
    let sim = rr_simulation(&projects, &results, 2, 1.0, 36000.0, 0.0, &params);
    assert!((sim.shortfall[0] - 14400.0).abs() < 1e-6, "{:?}", sim);
    assert!(sim.shortfall[1].abs() < 1e-6);
    assert!((sim.total_shortfall - 7200.0).abs() < 1e-6);
}

#[test]
fn a5_s_rr1a_client_2007_rates_differ_from_the_seed() {
    // [CODE 2007-02] rates change only when a project runs out of results:
    // A1 keeps its 2/3 rate after A2 ends and finishes at t = 10 h.
    let projects = [project(2.0), project(1.0)];
    let results = [result(0, 24000.0), result(0, 9600.0), result(1, 31200.0)];
    let sim = rr_simulation(
        &projects,
        &results,
        2,
        1.0,
        36000.0,
        0.0,
        &DebtParams::default(),
    );
    assert!((sim.shortfall[0] - 7200.0).abs() < 1e-6, "{:?}", sim);
    assert!(sim.total_shortfall.abs() < 1e-6);
}

#[test]
fn a5_no_results_shortfall_is_the_whole_share_and_misses_use_pessimism() {
    let projects = [project(1.0), project(3.0)];
    let mut late = result(1, 1000.0);
    late.computation_deadline = 1000.0; // 0.9 × 1000 = 900 < 1000
    let sim = rr_simulation(
        &projects,
        &[late],
        1,
        1.0,
        4000.0,
        0.0,
        &DebtParams::default(),
    );
    assert!((sim.shortfall[0] - 4000.0 * 0.25).abs() < 1e-9);
    assert_eq!(sim.deadlines_missed, [0, 1]);
    assert_eq!(sim.missed, [true]);
}

#[test]
fn a4_debts_code_rules() {
    // A uses the CPU for 100 s, B idle but runnable, C not runnable.
    let mut c = project(1.0);
    c.runnable = false;
    c.std = 50.0;
    let projects = [project(1.0), project(1.0), c];
    let adj = adjust_debts(&projects, &[100.0, 0.0, 0.0], &DebtParams::default());
    assert_eq!(adj.std, [-50.0, 50.0, 0.0]);
    let ltd_sum: f64 = adj.ltd.iter().sum();
    assert!(ltd_sum.abs() < 1e-9);
    let seed = DebtParams {
        std_normalisation: StdNormalisation::MinZero,
        ..DebtParams::default()
    };
    let adj = adjust_debts(&projects, &[100.0, 0.0, 0.0], &seed);
    assert_eq!(adj.std, [0.0, 100.0, 0.0]);
}

#[test]
fn a6_edf_first_then_debt_order_with_decrements() {
    let mut a = project(1.0);
    a.std = 100.0;
    let b = project(1.0);
    let projects = [a, b];
    let cand = |project, deadline| Candidate {
        project,
        report_deadline: deadline,
        runnable: true,
        task: None,
    };
    let candidates = [
        cand(0, 500.0),
        cand(0, 600.0),
        cand(1, 100.0),
        cand(1, 50.0),
    ];
    let picks = schedule_cpus(
        &projects,
        &candidates,
        &[0, 1],
        2,
        3600.0,
        &DebtParams::default(),
    );
    assert_eq!(picks[0], (3, ScheduleReason::Edf));
    assert_eq!(picks[1], (0, ScheduleReason::Debt(100.0)));
    let seed = DebtParams {
        anticipated_decrement: AnticipatedDecrement::PeriodOverNcpus,
        ..DebtParams::default()
    };
    let picks = schedule_cpus(&projects, &candidates, &[0, 0], 2, 3600.0, &seed);
    // A: 100 → −1700 after one pick; B (0) wins the second.
    assert_eq!(
        picks,
        [
            (0, ScheduleReason::Debt(100.0)),
            (2, ScheduleReason::Debt(0.0))
        ]
    );
}

#[test]
fn a7_enforcement_preemption_rules() {
    let running = |result, misses, episode, ckpt| RunningTask {
        result,
        project_misses: misses,
        report_deadline: 1000.0,
        episode_secs: episode,
        since_checkpoint: ckpt,
    };
    // Slice over and checkpointed recently: preempted.
    let e = enforce_schedule(
        &[1],
        &[running(0, false, 4000.0, 5.0)],
        |_| false,
        1,
        3600.0,
    );
    assert_eq!(
        e,
        Enforcement {
            preempt: vec![0],
            start: vec![1]
        }
    );
    // Slice not over: the scheduled result waits.
    let e = enforce_schedule(&[1], &[running(0, false, 100.0, 5.0)], |_| false, 1, 3600.0);
    assert!(e.start.is_empty());
    // Its project misses deadlines: preempt anyway.
    let e = enforce_schedule(&[1], &[running(0, false, 100.0, 5.0)], |_| true, 1, 3600.0);
    assert_eq!(e.start, [1]);
    assert!(more_preemptable(
        &running(0, false, 10.0, 0.0),
        &running(1, true, 10.0, 0.0)
    ));
}

#[test]
fn a8_work_request_prefers_ltd_plus_shortfall_later_wins_ties() {
    let projects = [project(1.0), project(1.0)];
    let sim = RrSim {
        total_shortfall: 1000.0,
        shortfall: vec![300.0, 300.0],
        deadlines_missed: vec![0, 0],
        missed: vec![],
    };
    let req = compute_work_request(&projects, &sim, 4, 2, 3600.0, &DebtParams::default())
        .expect("request");
    assert_eq!(req.project, 1);
    assert_eq!(req.urgency, Urgency::Need);
    assert_eq!(req.work_req_seconds, 500.0);
    let sizes = work_request_sizes(&projects, &sim, &[false, false], 3600.0);
    assert_eq!(sizes, [500.0, 500.0]);
}

proptest! {
    #[test]
    fn a4_ltd_mean_zero_and_std_clamped(
        shares in prop::collection::vec(1.0f64..100.0, 1..6),
        used in prop::collection::vec(0.0f64..1e6, 6),
    ) {
        let projects: Vec<DebtProject> = shares.iter().map(|s| project(*s)).collect();
        let adj = adjust_debts(&projects, &used[..projects.len()], &DebtParams::default());
        let mean: f64 = adj.ltd.iter().sum::<f64>() / adj.ltd.len() as f64;
        prop_assert!(mean.abs() < 1e-6);
        prop_assert!(adj.std.iter().all(|s| s.abs() <= 86400.0));
    }
}

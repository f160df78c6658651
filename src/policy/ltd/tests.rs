//! Fixtures of `policy-legacy.md` B.15.5 (the 6.10.60 reference traces),
//! rebuilt from hand-written inputs, plus invariants.

use super::backoff::{backoff, handle_reply, BackoffChange, ReplySummary};
use super::cpu_sched::{schedule_cpus, PickReason};
use super::debt::{
    adjust_debts, debt_interval, update_long_term_debts, update_short_term_debts, DebtInterval,
};
use super::rr_sim::{rr_simulation, sim_jobs, RrSimOutcome};
use super::work_fetch::{choose_project, overall_debts, Criterion};
use super::{Debts, LtdParams, RscDebt};
use crate::policy::state::{
    Host, HostState, Job, Project, ProjectRsc, ResourceUsage, SchedulerState, Task,
};
use proptest::prelude::*;

const T0: f64 = 946_684_800.0;

fn host(ncpus: u32, gflops: f64, min_days: f64, add_days: f64, period_min: f64) -> HostState {
    let mut state = HostState::new(Host {
        p_ncpus: ncpus,
        p_fpops: gflops * 1e9,
        m_nbytes: 4e9,
        coprocs: Vec::new(),
    });
    state.prefs.work_buf_min_days = min_days;
    state.prefs.work_buf_additional_days = add_days;
    state.prefs.cpu_scheduling_period_minutes = period_min;
    state
}

fn add_project(state: &mut HostState, name: &str, share: f64) {
    let mut project = Project::new(name, share, state.n_rsc());
    project.dont_use_dcf = false;
    state.projects.push(project);
}

/// A queued CPU job of `secs` remaining on this host, with a deadline.
fn add_job(state: &mut HostState, name: &str, project: usize, secs: f64, deadline: f64) {
    let flops = state.host.p_fpops;
    let mut job = Job::new(
        name,
        project,
        "app",
        ResourceUsage::cpu(1.0, flops),
        secs * flops,
    );
    job.report_deadline = deadline;
    state.jobs.push(job);
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

// ---- B.5 / B.15.5: LTD updates ----

#[test]
fn b15_5_cpu_two_ltd_updates_0002_and_0004() {
    let mut state = host(4, 4.0, 0.1, 0.5, 60.0);
    add_project(&mut state, "Alpha", 300.0);
    add_project(&mut state, "Beta", 100.0);
    let debts = Debts::zero(2, 1);
    let update = update_long_term_debts(&state, &debts, 0, &[true, true], &[0.0, 480.0]);
    let lines: Vec<String> = update.lines.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "[debt] CPU LTD 90.00 delta 90.00 (0.75*480.00 - 0.00)/4",
            "[debt] CPU LTD -90.00 delta -90.00 (0.25*480.00 - 480.00)/4"
        ]
    );
    assert_eq!(
        update.summary_line(),
        "[debt] CPU LTD: adding offset -90.000000"
    );
    assert_eq!(update.ltd_after, [0.0, -180.0]);
    let mut debts = debts;
    debts.set(
        1,
        0,
        RscDebt {
            ltd: -180.0,
            std: 0.0,
        },
    );
    let update = update_long_term_debts(&state, &debts, 0, &[true, true], &[0.0, 480.0]);
    assert_eq!(
        update.lines[1].to_string(),
        "[debt] CPU LTD -270.00 delta -90.00 (0.25*480.00 - 480.00)/4"
    );
    assert_eq!(update.ltd_after, [0.0, -360.0]);
}

#[test]
fn b15_5_four_projects_ltd_0001_0002() {
    let mut state = host(2, 3.0, 0.1, 0.3, 30.0);
    for name in ["A", "B", "C", "D"] {
        add_project(&mut state, name, 100.0);
    }
    let debts = Debts::zero(4, 1);
    let u = update_long_term_debts(&state, &debts, 0, &[true; 4], &[0.0, 0.0, 0.0, 60.0]);
    assert_eq!(
        u.lines[0].to_string(),
        "[debt] CPU LTD 7.50 delta 7.50 (0.25*60.00 - 0.00)/2"
    );
    assert_eq!(
        u.lines[3].to_string(),
        "[debt] CPU LTD -22.50 delta -22.50 (0.25*60.00 - 60.00)/2"
    );
    assert_eq!(u.offset, Some(-7.5));
    assert_eq!(u.ltd_after, [0.0, 0.0, 0.0, -30.0]);
    let mut debts = debts;
    debts.set(
        3,
        0,
        RscDebt {
            ltd: -30.0,
            std: 0.0,
        },
    );
    let u = update_long_term_debts(&state, &debts, 0, &[true; 4], &[0.0, 0.0, 60.0, 60.0]);
    assert_eq!(u.offset, Some(-15.0));
    assert_eq!(u.ltd_after, [0.0, 0.0, -30.0, -60.0]);
}

#[test]
fn b15_5_tight_deadline_ltd_0001() {
    let mut state = host(2, 3.0, 0.25, 0.25, 60.0);
    add_project(&mut state, "Slow", 100.0);
    add_project(&mut state, "Urgent", 100.0);
    let u = update_long_term_debts(&state, &Debts::zero(2, 1), 0, &[true, true], &[0.0, 120.0]);
    assert_eq!(
        u.lines[0].to_string(),
        "[debt] CPU LTD 30.00 delta 30.00 (0.50*120.00 - 0.00)/2"
    );
    assert_eq!(u.ltd_after, [0.0, -60.0]);
}

#[test]
fn b5_no_eligible_projects_changes_nothing() {
    let mut state = host(2, 3.0, 0.1, 0.3, 30.0);
    add_project(&mut state, "A", 100.0);
    let mut debts = Debts::zero(1, 1);
    debts.set(
        0,
        0,
        RscDebt {
            ltd: -5.0,
            std: 0.0,
        },
    );
    let u = update_long_term_debts(&state, &debts, 0, &[false], &[0.0]);
    assert_eq!(u.summary_line(), "[debt] CPU: no eligible projects");
    assert_eq!(u.ltd_after, [-5.0]);
}

#[test]
fn b5_zero_offset_prints_without_sign() {
    let mut state = host(2, 3.0, 0.1, 0.3, 30.0);
    add_project(&mut state, "A", 100.0);
    let u = update_long_term_debts(&state, &Debts::zero(1, 1), 0, &[true], &[60.0]);
    assert_eq!(u.summary_line(), "[debt] CPU LTD: adding offset 0.000000");
}

// ---- B.11 / B.15.5: STD updates ----

#[test]
fn b11_four_projects_std_0001_0002() {
    let mut state = host(2, 3.0, 0.1, 0.3, 30.0);
    for name in ["A", "B", "C", "D"] {
        add_project(&mut state, name, 100.0);
    }
    add_job(&mut state, "D_0", 3, 17280.0, T0 + 1e6);
    add_job(&mut state, "C_0", 2, 8640.0, T0 + 1e6);
    let params = LtdParams::default();
    let u = update_short_term_debts(
        &state,
        &Debts::zero(4, 1),
        0,
        &[0.0, 0.0, 0.0, 60.0],
        T0 + 60.0,
        &params,
    );
    assert_eq!(
        u.deltas[0].to_string(),
        "[std_debug] CPU STD delta 15.00 (0.50*60.00 - 0.00)/2"
    );
    assert_eq!(u.values, [(2, 15.0), (3, -15.0)]);
    add_job(&mut state, "B_0", 1, 1.0, T0 + 1e6);
    let mut debts = Debts::zero(4, 1);
    debts.set(
        2,
        0,
        RscDebt {
            ltd: 0.0,
            std: 15.0,
        },
    );
    debts.set(
        3,
        0,
        RscDebt {
            ltd: 0.0,
            std: -15.0,
        },
    );
    let u = update_short_term_debts(
        &state,
        &debts,
        0,
        &[0.0, 0.0, 60.0, 60.0],
        T0 + 120.0,
        &params,
    );
    assert_eq!(
        u.deltas[0].to_string(),
        "[std_debug] CPU STD delta 20.00 (0.33*120.00 - 0.00)/2"
    );
    assert_eq!(u.value_line(20.0), "[std_debug] CPU STD 20.00");
    assert!(close(u.std_after[0], 0.0, 1e-9));
    assert!(close(u.std_after[1], 20.0, 1e-9));
    assert!(close(u.std_after[2], 5.0, 1e-9));
    assert!(close(u.std_after[3], -25.0, 1e-9));
    assert_eq!(u.values.len(), 3, "A has no job: no value line");
}

#[test]
fn b11_cpu_two_std_0002_only_beta_runnable() {
    let mut state = host(4, 4.0, 0.1, 0.5, 60.0);
    add_project(&mut state, "Alpha", 300.0);
    add_project(&mut state, "Beta", 100.0);
    add_job(&mut state, "Beta_0", 1, 10800.0, T0 + 1e6);
    let u = update_short_term_debts(
        &state,
        &Debts::zero(2, 1),
        0,
        &[0.0, 480.0],
        T0 + 120.0,
        &LtdParams::default(),
    );
    assert_eq!(u.deltas.len(), 1);
    assert_eq!(
        u.deltas[0].to_string(),
        "[std_debug] CPU STD delta 0.00 (1.00*480.00 - 480.00)/4"
    );
    assert_eq!(u.values, [(1, 0.0)]);
}

// ---- B.15.2: the debt interval ----

#[test]
fn b15_2_debt_interval_rule() {
    let params = LtdParams::default();
    let first = debt_interval(T0, 0.0, &params);
    assert_eq!(
        first.to_string(),
        "[debt_debug] adjust_debt: elapsed time (946684800) longer than sched enforce period(60).  Ignoring this period."
    );
    assert_eq!(
        debt_interval(T0 + 120.0, T0, &params),
        DebtInterval::Credit { secs: 120.0 }
    );
    assert!(matches!(
        debt_interval(T0 + 121.0, T0, &params),
        DebtInterval::Discard { .. }
    ));
    assert!(matches!(
        debt_interval(T0 - 1.0, T0, &params),
        DebtInterval::Discard { .. }
    ));
    assert_eq!(debt_interval(T0 + 0.5, T0, &params), DebtInterval::TooShort);
}

#[test]
fn b15_2_adjust_debts_ltd_then_std() {
    let mut state = host(4, 4.0, 0.1, 0.5, 60.0);
    add_project(&mut state, "Alpha", 300.0);
    add_project(&mut state, "Beta", 100.0);
    add_job(&mut state, "Beta_0", 1, 10800.0, T0 + 1e6);
    let update = adjust_debts(
        &state,
        &Debts::zero(2, 1),
        DebtInterval::Credit { secs: 120.0 },
        &[vec![false], vec![true]],
        &[vec![0.0], vec![480.0]],
        T0 + 120.0,
        &LtdParams::default(),
    );
    assert_eq!(
        update.debts.get(1, 0),
        RscDebt {
            ltd: -180.0,
            std: 0.0
        }
    );
    assert_eq!(update.debts.get(0, 0).ltd, 0.0);
}

// ---- B.6: overall LTD ----

#[test]
fn b6_overall_ltd_cpu_two_0002() {
    let mut state = host(4, 4.0, 0.1, 0.5, 60.0);
    add_project(&mut state, "Alpha", 300.0);
    add_project(&mut state, "Beta", 100.0);
    for (i, secs) in [10670.20, 10707.49, 10646.94, 10704.33, 10800.0]
        .iter()
        .enumerate()
    {
        add_job(&mut state, &format!("Beta_{i}"), 1, *secs, T0 + 1e6);
    }
    let mut debts = Debts::zero(2, 1);
    debts.set(
        1,
        0,
        RscDebt {
            ltd: -180.0,
            std: 0.0,
        },
    );
    let overall = overall_debts(&state, &debts, T0 + 120.0);
    assert_eq!(format!("{:.2}", overall[0]), "0.00");
    assert_eq!(format!("{:.2}", overall[1]), "-13562.24");
}

// ---- B.8 / B.9: simulation and work fetch ----

#[test]
fn b9_cpu_two_0000_idle_instance_tie_goes_to_later() {
    let mut state = host(4, 4.0, 0.1, 0.5, 60.0);
    add_project(&mut state, "Alpha", 300.0);
    add_project(&mut state, "Beta", 100.0);
    let debts = Debts::zero(2, 1);
    let (jobs, _) = sim_jobs(&state, T0);
    let sim = rr_simulation(&state, &jobs, T0);
    let out = choose_project(&state, &debts, &sim, T0, &LtdParams::default());
    let choice = out.choice.expect("a choice");
    assert_eq!(choice.project, 1);
    assert_eq!(
        choice.to_string(),
        "chosen: idle instance CPU: 1.00 inst, 51840.00 sec"
    );
    assert_eq!(
        out.state.target_line(),
        "[wfd] target work buffer: 8640.00 + 43200.00 sec"
    );
    let (line, projects) = &out.state.rsc[0];
    assert_eq!(
        line.to_string(),
        "[wfd] CPU: shortfall 207360.00 nidle 4.00 saturated 0.00 busy 0.00 RS fetchable 400.00 runnable 0.00"
    );
    assert_eq!(
        projects[0].to_string(),
        "[wfd] CPU: fetch share 0.75 LTD 0.00 backoff dt 0.00 int 0.00"
    );
    assert_eq!(
        projects[1].to_string(),
        "[wfd] CPU: fetch share 0.25 LTD 0.00 backoff dt 0.00 int 0.00"
    );
    assert_eq!(choice.request.work_req_seconds, 51840.0);
}

#[test]
fn b8_b9_cpu_two_0002_minor_shortfall() {
    let now = T0 + 120.0;
    let mut state = host(4, 4.0, 0.1, 0.5, 60.0);
    add_project(&mut state, "Alpha", 300.0);
    add_project(&mut state, "Beta", 100.0);
    for (i, secs) in [10670.20, 10707.49, 10646.94, 10704.33, 10800.0]
        .iter()
        .enumerate()
    {
        add_job(&mut state, &format!("Beta_{i}"), 1, *secs, T0 + 1e6);
    }
    let mut debts = Debts::zero(2, 1);
    debts.set(
        1,
        0,
        RscDebt {
            ltd: -180.0,
            std: 0.0,
        },
    );
    let (jobs, _) = sim_jobs(&state, now);
    let sim = rr_simulation(&state, &jobs, now);
    let cpu = sim.rsc(0);
    assert!(close(cpu.shortfall, 153831.03, 0.02), "{}", cpu.shortfall);
    assert!(close(cpu.saturated_time, 10670.20, 1e-6));
    assert_eq!(cpu.nidle_now, 0.0);
    assert_eq!(cpu.total_runnable_share, 100.0);
    let out = choose_project(&state, &debts, &sim, now, &LtdParams::default());
    let choice = out.choice.expect("a choice");
    assert_eq!(choice.project, 0);
    assert_eq!(choice.criterion, Some(Criterion::MinorShortfall));
    let req = choice.request.get(0);
    assert_eq!(req.instances, 3.0);
    assert!(close(req.secs, 115373.27, 0.02));
    assert_eq!(out.state.overall_ltd[1].0, 1);
    assert_eq!(format!("{:.2}", out.state.overall_ltd[1].1), "-13562.24");
}

fn fabricated_sim(
    state: &HostState,
    shortfall: f64,
    saturated: f64,
    nidle: f64,
    nused: &[f64],
) -> RrSimOutcome {
    let mut sim = rr_simulation(state, &[], T0);
    sim.rsc[0].shortfall = shortfall;
    sim.rsc[0].saturated_time = saturated;
    sim.rsc[0].nidle_now = nidle;
    for (p, n) in nused.iter().enumerate() {
        sim.project_rsc[p][0].nused_total = *n;
        sim.project_rsc[p][0].has_runnable_jobs = *n > 0.0;
    }
    sim
}

#[test]
fn b9_cpu_two_0004_queue_term_picks_beta() {
    let now = T0 + 240.0;
    let mut state = host(4, 4.0, 0.1, 0.5, 60.0);
    add_project(&mut state, "Alpha", 300.0);
    add_project(&mut state, "Beta", 100.0);
    for i in 0..9 {
        add_job(&mut state, &format!("Alpha_{i}"), 0, 14400.0, T0 + 1e6);
    }
    for i in 0..4 {
        add_job(&mut state, &format!("Beta_{i}"), 1, 10564.48, T0 + 1e6);
    }
    add_job(&mut state, "Beta_4", 1, 10800.0, T0 + 1e6);
    let mut debts = Debts::zero(2, 1);
    debts.set(
        1,
        0,
        RscDebt {
            ltd: -360.0,
            std: 0.0,
        },
    );
    let sim = fabricated_sim(&state, 18937.25, 42365.12, 0.0, &[9.0, 5.0]);
    let out = choose_project(&state, &debts, &sim, now, &LtdParams::default());
    assert_eq!(format!("{:.2}", out.overall_debts[0]), "-32400.00");
    assert_eq!(format!("{:.2}", out.overall_debts[1]), "-13624.48");
    let choice = out.choice.expect("a choice");
    assert_eq!(choice.project, 1);
    assert_eq!(
        choice.to_string(),
        "chosen: minor shortfall CPU: 0.00 inst, 4734.31 sec"
    );
}

#[test]
fn b9_four_projects_0000_idle_and_0002_starved() {
    let mut state = host(2, 3.0, 0.1, 0.3, 30.0);
    for name in ["A", "B", "C", "D"] {
        add_project(&mut state, name, 100.0);
    }
    let params = LtdParams::default();
    let (jobs, _) = sim_jobs(&state, T0);
    let sim = rr_simulation(&state, &jobs, T0);
    let out = choose_project(&state, &Debts::zero(4, 1), &sim, T0, &params);
    let choice = out.choice.expect("a choice");
    assert_eq!(choice.project, 3, "4-way tie goes to D");
    assert_eq!(
        choice.to_string(),
        "chosen: idle instance CPU: 0.50 inst, 17280.00 sec"
    );
    assert_eq!(sim.rsc(0).shortfall, 69120.0);

    let now = T0 + 120.0;
    let mut debts = Debts::zero(4, 1);
    debts.set(
        2,
        0,
        RscDebt {
            ltd: -30.0,
            std: 0.0,
        },
    );
    debts.set(
        3,
        0,
        RscDebt {
            ltd: -60.0,
            std: 0.0,
        },
    );
    let sim = fabricated_sim(&state, 0.0, 35875.13, 0.0, &[0.0, 0.0, 1.0, 1.0]);
    let out = choose_project(&state, &debts, &sim, now, &params);
    let choice = out.choice.expect("a choice");
    assert_eq!(choice.project, 1, "A/B tie goes to B");
    assert_eq!(
        choice.to_string(),
        "chosen: starved CPU: 0.50 inst, 1.00 sec"
    );
}

#[test]
fn b8_b9_tight_deadline_0001_misses_busy_and_major_shortfall() {
    let now = T0 + 60.0;
    let mut state = host(2, 3.0, 0.25, 0.25, 60.0);
    add_project(&mut state, "Slow", 100.0);
    add_project(&mut state, "Urgent", 100.0);
    let deadline = T0 + 36000.0;
    add_job(&mut state, "Urgent_0", 1, 10800.0, deadline);
    add_job(&mut state, "Urgent_1", 1, 10800.0, deadline);
    add_job(&mut state, "Urgent_2", 1, 10740.0, deadline);
    add_job(&mut state, "Urgent_3", 1, 10740.0, deadline);
    let (jobs, _) = sim_jobs(&state, now);
    let sim = rr_simulation(&state, &jobs, now);
    let cpu = sim.rsc(0);
    assert_eq!(sim.missed, [0, 1, 2, 3]);
    let misses: Vec<String> = sim
        .events
        .iter()
        .filter(|e| matches!(e, super::rr_sim::SimEvent::Miss { .. }))
        .map(ToString::to_string)
        .collect();
    assert_eq!(misses[0], "[rr_sim] job#0 misses deadline by 60.00");
    assert_eq!(misses[3], "[rr_sim] job#3 misses deadline by 10800.00");
    assert!(close(cpu.busy_time, 21540.0, 1e-6));
    assert!(close(cpu.saturated_time, 21540.0, 1e-6));
    assert!(close(cpu.shortfall, 43320.0, 1e-6));
    let mut debts = Debts::zero(2, 1);
    debts.set(
        1,
        0,
        RscDebt {
            ltd: -60.0,
            std: 0.0,
        },
    );
    let out = choose_project(&state, &debts, &sim, now, &LtdParams::default());
    let choice = out.choice.expect("a choice");
    assert_eq!(choice.project, 0);
    assert_eq!(
        choice.to_string(),
        "chosen: major shortfall CPU: 1.00 inst, 21660.00 sec"
    );
    assert_eq!(
        out.state.rsc[0].0.to_string(),
        "[wfd] CPU: shortfall 43320.00 nidle 0.00 saturated 21540.00 busy 21540.00 RS fetchable 200.00 runnable 100.00"
    );
}

#[test]
fn b9_tight_deadline_0003_starved_off_when_misses_cover_every_instance() {
    let mut state = host(2, 3.0, 0.25, 0.25, 60.0);
    add_project(&mut state, "Slow", 100.0);
    add_project(&mut state, "Urgent", 100.0);
    let mut sim = fabricated_sim(&state, 0.0, 57600.0, 0.0, &[2.0, 4.0]);
    sim.rsc[0].deadline_missed_instances = 4.0;
    let out = choose_project(
        &state,
        &Debts::zero(2, 1),
        &sim,
        T0 + 180.0,
        &LtdParams::default(),
    );
    assert!(out.choice.is_none());
}

// ---- B.11: job selection ----

#[test]
fn b11_cpu_two_0000_highest_debt_steps_of_900() {
    let mut state = host(4, 4.0, 0.1, 0.5, 60.0);
    add_project(&mut state, "Alpha", 300.0);
    add_project(&mut state, "Beta", 100.0);
    for i in 0..5 {
        add_job(&mut state, &format!("Beta_{i}"), 1, 10800.0, T0 + 1e6);
    }
    let (jobs, _) = sim_jobs(&state, T0);
    let sim = rr_simulation(&state, &jobs, T0);
    let out = schedule_cpus(&state, &Debts::zero(2, 1), &sim, T0, &LtdParams::default());
    let debts: Vec<String> = out
        .picks
        .iter()
        .map(|p| match p.reason {
            PickReason::CpuDebtOrder { highest_debt } => format!("{} {highest_debt:.6}", p.job),
            other => format!("{other}"),
        })
        .collect();
    assert_eq!(
        debts,
        [
            "0 0.000000",
            "1 -900.000000",
            "2 -1800.000000",
            "3 -2700.000000"
        ]
    );
    assert_eq!(
        out.picks[1].lines("Beta_1"),
        [
            "[cpu_sched_debug] highest debt: -900.000000 Beta_1",
            "[cpu_sched_debug] scheduling Beta_1 (CPU job, debt order)"
        ]
    );
}

#[test]
fn b11_cpu_two_0002_alternates_alpha_beta_first_project_wins_ties() {
    let now = T0 + 120.0;
    let mut state = host(4, 4.0, 0.1, 0.5, 60.0);
    add_project(&mut state, "Alpha", 300.0);
    add_project(&mut state, "Beta", 100.0);
    for i in 0..5 {
        add_job(&mut state, &format!("Beta_{i}"), 1, 10800.0, T0 + 1e6);
        if i < 4 {
            let mut task = Task::new();
            task.scheduler_state = SchedulerState::Scheduled;
            state.jobs[i].task = Some(task);
        }
    }
    for i in 0..9 {
        add_job(&mut state, &format!("Alpha_{i}"), 0, 14400.0, T0 + 1e6);
    }
    let (jobs, _) = sim_jobs(&state, now);
    let sim = rr_simulation(&state, &jobs, now);
    let out = schedule_cpus(&state, &Debts::zero(2, 1), &sim, now, &LtdParams::default());
    let picks: Vec<(usize, String)> = out
        .picks
        .iter()
        .map(|p| (p.job, format!("{:?}", p.reason)))
        .collect();
    assert_eq!(picks.len(), 4);
    assert_eq!(picks[0].0, 5, "Alpha_0");
    assert_eq!(picks[1].0, 0, "Beta_0");
    assert_eq!(picks[2].0, 6, "Alpha_1");
    assert_eq!(picks[3].0, 1, "Beta_1");
    assert!(picks[2].1.contains("-900"));
}

#[test]
fn b11_four_projects_0002_c_then_b() {
    let now = T0 + 120.0;
    let mut state = host(2, 3.0, 0.1, 0.3, 30.0);
    for name in ["A", "B", "C", "D"] {
        add_project(&mut state, name, 100.0);
    }
    add_job(&mut state, "D_0", 3, 17280.0, T0 + 1e6);
    add_job(&mut state, "C_0", 2, 8640.0, T0 + 1e6);
    add_job(&mut state, "B_0", 1, 8640.0, T0 + 1e6);
    let mut debts = Debts::zero(4, 1);
    debts.set(
        2,
        0,
        RscDebt {
            ltd: 0.0,
            std: 15.0,
        },
    );
    debts.set(
        3,
        0,
        RscDebt {
            ltd: 0.0,
            std: -15.0,
        },
    );
    let (jobs, _) = sim_jobs(&state, now);
    let sim = rr_simulation(&state, &jobs, now);
    let out = schedule_cpus(&state, &debts, &sim, now, &LtdParams::default());
    assert_eq!(
        out.picks[0].lines("C_0")[0],
        "[cpu_sched_debug] highest debt: 15.000000 C_0"
    );
    assert_eq!(out.picks[1].job, 2);
    assert_eq!(
        out.picks[1].lines("B_0")[0],
        "[cpu_sched_debug] highest debt: 0.000000 B_0"
    );
}

#[test]
fn b11_tight_deadline_0000_edf_takes_only_flagged_jobs() {
    let mut state = host(2, 3.0, 0.25, 0.25, 60.0);
    add_project(&mut state, "Slow", 100.0);
    add_project(&mut state, "Urgent", 100.0);
    for i in 0..4 {
        add_job(&mut state, &format!("Urgent_{i}"), 1, 10800.0, T0 + 36000.0);
    }
    let (jobs, _) = sim_jobs(&state, T0);
    let sim = rr_simulation(&state, &jobs, T0);
    assert_eq!(sim.missed, [2, 3]);
    let out = schedule_cpus(&state, &Debts::zero(2, 1), &sim, T0, &LtdParams::default());
    assert_eq!(out.picks.len(), 2);
    assert_eq!(out.picks[0].job, 2);
    assert_eq!(out.picks[1].job, 3);
    assert_eq!(
        out.picks[0].lines("Urgent_2"),
        [
            "[cpu_sched_debug] earliest deadline: 946720800 Urgent_2",
            "[cpu_sched_debug] scheduling Urgent_2 (CPU job, EDF)"
        ]
    );
}

// ---- B.3: backoff ----

#[test]
fn b3_backoff_reply_handling() {
    let params = LtdParams::default();
    let rsc = vec![ProjectRsc::default()];
    let none = ReplySummary {
        jobs_received: vec![0],
        project_backoff: vec![0.0],
        project_requested: false,
    };
    let changes = handle_reply(&rsc, &[100.0], &none, T0, &[0.5], &params).expect("valid draw");
    assert_eq!(
        changes,
        [BackoffChange::BackedOff(super::backoff::RscBackoff {
            rsc: 0,
            interval: 60.0,
            secs: 30.0,
            until: T0 + 30.0
        })]
    );
    let project_req = ReplySummary {
        project_requested: true,
        ..none.clone()
    };
    assert!(
        handle_reply(&rsc, &[100.0], &project_req, T0, &[0.5], &params)
            .expect("ok")
            .is_empty()
    );
    assert!(handle_reply(&rsc, &[0.0], &none, T0, &[0.5], &params)
        .expect("ok")
        .is_empty());
    let got = ReplySummary {
        jobs_received: vec![2],
        ..none
    };
    assert_eq!(
        handle_reply(&rsc, &[100.0], &got, T0, &[0.5], &params).expect("ok"),
        [BackoffChange::Cleared { rsc: 0 }]
    );
    assert!(backoff(&rsc[0], 0, T0, 1.5, &params).is_err());
}

proptest! {
    #[test]
    fn b3_backoff_bounds(n in 0u32..30, u in 0.0f64..=1.0) {
        let params = LtdParams::default();
        let mut state = ProjectRsc::default();
        for _ in 0..n {
            let b = backoff(&state, 0, T0, u, &params).expect("valid draw");
            state.backoff_interval = b.interval;
        }
        let b = backoff(&state, 0, T0, u, &params).expect("valid draw");
        prop_assert!(b.interval >= 60.0 && b.interval <= 86400.0);
        prop_assert!(b.secs >= 0.0 && b.secs <= b.interval);
        prop_assert!(b.until >= T0 && b.until <= T0 + 86400.0);
    }

    #[test]
    fn b5_ltd_zero_sum_and_max_zero(
        shares in prop::collection::vec(1.0f64..500.0, 1..6),
        ltd0 in prop::collection::vec(-5000.0f64..0.0, 6),
        used in prop::collection::vec(0.0f64..240.0, 6),
        ncpus in 1u32..8,
    ) {
        let mut state = host(ncpus, 3.0, 0.1, 0.3, 60.0);
        let n = shares.len();
        let mut debts = Debts::zero(n, 1);
        for (p, share) in shares.iter().enumerate() {
            add_project(&mut state, &format!("P{p}"), *share);
            debts.set(p, 0, RscDebt { ltd: ltd0[p], std: 0.0 });
        }
        let eligible = vec![true; n];
        let u = update_long_term_debts(&state, &debts, 0, &eligible, &used[..n]);
        // Zero-sum deltas when all usage comes from eligible projects.
        let delta_sum: f64 = u.lines.iter().map(|l| match l {
            super::debt::LtdLine::Adjusted { delta, .. } => *delta,
            super::debt::LtdLine::Ineligible { .. } => 0.0,
        }).sum();
        prop_assert!(delta_sum.abs() < 1e-6);
        // After the offset every LTD is ≤ 0 and the most-owed is 0 unless gradual.
        let max = u.ltd_after.iter().copied().fold(f64::MIN, f64::max);
        prop_assert!(max <= 0.0);
        let total: f64 = used[..n].iter().sum();
        if u.offset.is_some_and(|o| o <= 0.0 || o < 2.0 * total) {
            prop_assert!(max.abs() < 1e-6);
        }
    }

    #[test]
    fn b11_std_mean_zero_and_clamped(
        std0 in prop::collection::vec(-1000.0f64..1000.0, 4),
        used in prop::collection::vec(0.0f64..120.0, 4),
    ) {
        let mut state = host(2, 3.0, 0.1, 0.3, 30.0);
        let mut debts = Debts::zero(4, 1);
        for (p, std) in std0.iter().enumerate() {
            add_project(&mut state, &format!("P{p}"), 100.0);
            debts.set(p, 0, RscDebt { ltd: 0.0, std: *std });
            add_job(&mut state, &format!("J{p}"), p, 1000.0, T0 + 1e6);
        }
        let u = update_short_term_debts(&state, &debts, 0, &used, T0, &LtdParams::default());
        let sum: f64 = u.std_after.iter().sum();
        prop_assert!(sum.abs() < 1e-6);
        prop_assert!(u.std_after.iter().all(|s| s.abs() <= 86400.0));
    }
}

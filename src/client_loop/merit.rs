//! Figures of merit, as the emulator defines them (client/sim.cpp
//! `SIM_RESULTS::compute_figures_of_merit`, `share_violation`, `monotony`).

use serde::Serialize;

/// The emulator's five figures of merit.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FiguresOfMerit {
    /// Peak FLOPs not used / total peak FLOPs available (the host's CPU peak × active time
    /// plus GPU peak × GPU-active time).
    pub idle_fraction: f64,
    /// Peak FLOPs of jobs reported after their deadline / total peak FLOPs available.
    pub wasted_fraction: f64,
    /// Σ over projects |used − share × total used| / total used (peak FLOPs).
    pub share_violation: f64,
    /// `1 − 1/(x+1)`, x = Σ_p RMS(time since p last ran) / (scheduling period × n²).
    pub monotony: f64,
    /// RPCs / (2 × jobs received); 0 without jobs.
    pub rpcs_per_job: f64,
}

/// Accumulators of a run.
#[derive(Clone, Debug, Default)]
pub struct Accounts {
    /// Peak FLOPs used per project.
    pub flops_used: Vec<f64>,
    /// Peak FLOPs of late jobs.
    pub flops_wasted: f64,
    /// Seconds the host computed.
    pub active_time: f64,
    /// Seconds GPUs computed.
    pub gpu_active_time: f64,
    /// Per project: seconds since it last ran.
    pub idle_time: Vec<f64>,
    /// Per project: Σ dt × idle_time² (the emulator's `idle_time_sumsq`).
    pub idle_time_sumsq: Vec<f64>,
    /// Successful RPCs.
    pub nrpcs: u64,
    /// Jobs received.
    pub njobs: u64,
    /// Per project: deadlines met / missed (at report time).
    pub met: Vec<u64>,
    /// Per project: deadlines missed.
    pub missed: Vec<u64>,
}

impl Accounts {
    /// Zeroed accounts for `n` projects.
    pub fn new(n: usize) -> Self {
        Accounts {
            flops_used: vec![0.0; n],
            idle_time: vec![0.0; n],
            idle_time_sumsq: vec![0.0; n],
            met: vec![0; n],
            missed: vec![0; n],
            ..Accounts::default()
        }
    }

    /// The figures, given the host's CPU and GPU peak FLOPS, the projects'
    /// resource shares and the scheduling period (s).
    pub fn figures(
        &self,
        cpu_peak: f64,
        gpu_peak: f64,
        shares: &[f64],
        sched_period: f64,
    ) -> FiguresOfMerit {
        let total = cpu_peak * self.active_time + gpu_peak * self.gpu_active_time;
        let used: f64 = self.flops_used.iter().sum();
        let idle = (total - used).max(0.0);
        let ratio = |x: f64, y: f64| if y > 0.0 { x / y } else { 0.0 };
        let trs: f64 = shares.iter().sum();
        let violation: f64 = self
            .flops_used
            .iter()
            .zip(shares)
            .map(|(u, s)| (u - used * ratio(*s, trs)).abs())
            .sum();
        let n = self.idle_time_sumsq.len() as f64;
        let sum: f64 = self
            .idle_time_sumsq
            .iter()
            .map(|ss| ratio(*ss, self.active_time).sqrt())
            .sum();
        let x = ratio(sum, n * sched_period * n);
        FiguresOfMerit {
            wasted_fraction: ratio(self.flops_wasted, total),
            idle_fraction: ratio(idle, total),
            share_violation: ratio(violation, used),
            monotony: 1.0 - 1.0 / (x + 1.0),
            rpcs_per_job: if self.njobs > 0 {
                self.nrpcs as f64 / (2 * self.njobs) as f64
            } else {
                0.0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfect_share_and_no_idle() {
        let mut a = Accounts::new(2);
        a.active_time = 100.0;
        a.flops_used = vec![50.0, 50.0];
        let f = a.figures(1.0, 0.0, &[1.0, 1.0], 3600.0);
        assert_eq!(f.idle_fraction, 0.0);
        assert_eq!(f.share_violation, 0.0);
        assert_eq!(f.monotony, 0.0);
    }

    #[test]
    fn one_project_takes_all() {
        let mut a = Accounts::new(2);
        a.active_time = 100.0;
        a.flops_used = vec![100.0, 0.0];
        let f = a.figures(1.0, 0.0, &[1.0, 1.0], 3600.0);
        assert!((f.share_violation - 1.0).abs() < 1e-12);
    }
}

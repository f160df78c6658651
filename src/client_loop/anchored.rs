//! The loop over a host its world reconstructs from a record (a real
//! client's log and data directory) rather than simulates.
//!
//! A recording of an emulator run carries its whole host, so the loop steps
//! it by `delta` from the start ([`ClientLoop::run_steps`]). A real client's
//! record does not: its host is known only at the moments the record shows
//! (a simulation's lines, a state file), and its clock is the wall clock.
//! So the loop here runs at those moments, in order: the world sets the
//! loop's state to the host it reconstructs for each one
//! ([`World::anchor`]), and the loop makes that moment's decision by the
//! same code path, and reports it to the observer as the same
//! [`LoopEvent`], as in every other run.
//!
//! Architecture Invariant: no time is stepped here and no state is made
//! up: a moment the world cannot anchor is skipped, with the world's reason.

use super::{ClientLoop, JobSide, LoopEvent};
use crate::policy::cpu_sched::{enforce_run_list, make_run_list_with_ties};

/// What the loop decides at one reconstructed moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decide {
    /// The poll's round-robin simulation ([`super::LoopEvent::RrSim`]).
    RrSim,
    /// A scheduling pass: its run list, with the simulation it makes, then
    /// that list's enforcement ([`super::LoopEvent::RrSim`],
    /// [`super::LoopEvent::RunList`], then [`super::LoopEvent::Enforced`],
    /// reported once both are made); the host's `prio` as the world gave it
    /// where it says so
    /// ([`crate::policy::state::HostState::given_priorities`]).
    RunList,
}

impl ClientLoop<'_> {
    /// At each of the world's `moments`, in order: anchors the loop's state
    /// to the host the world reconstructs for it and makes `decide` there.
    /// Gives, per moment, `Err` with what the record lacks (the world's
    /// reason) or the engine's refusal.
    pub fn run_moments(&mut self, moments: usize, decide: Decide) -> Vec<Result<(), String>> {
        (0..moments)
            .map(|k| {
                let now = match self.world.anchor(k, &mut self.core.state) {
                    Some(anchored) => anchored?,
                    None => return Err("the world reconstructs no host".to_string()),
                };
                // Nothing of an earlier moment carries over: its
                // simulation describes another host.
                self.core.sim = None;
                self.core.side = vec![JobSide::default(); self.core.state.jobs.len()];
                match decide {
                    Decide::RrSim => self
                        .poll_simulation(now)
                        .map(|_| ())
                        .map_err(|e| e.to_string()),
                    Decide::RunList => self.scheduling_pass(now),
                }
            })
            .collect()
    }
}

impl ClientLoop<'_> {
    /// The scheduling pass at `now`: its own simulation, the run list (the
    /// world's order for ties its estimates cannot break), then the list's
    /// enforcement. The task layer is not run: a reconstructed host's
    /// processes are the record's, not the loop's.
    fn scheduling_pass(&mut self, now: f64) -> Result<(), String> {
        let hint = self.world.run_list_order(now).unwrap_or_default();
        let params = &self.core.params;
        let state = &mut self.core.state;
        let run =
            make_run_list_with_ties(state, now, None, params, &hint).map_err(|e| e.to_string())?;
        let listed = state.clone();
        let outcome =
            enforce_run_list(state, &run.run_list, now, params).map_err(|e| e.to_string())?;
        self.observer
            .event(&listed, now, LoopEvent::RrSim(&run.sim));
        let fresh = true;
        self.observer
            .event(&listed, now, LoopEvent::RunList { run: &run, fresh });
        let event = LoopEvent::Enforced {
            outcome: &outcome,
            assigned: &[],
            tasks: &[],
        };
        self.observer.event(&self.core.state, now, event);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{
        Availability, DrawKind, Drawn, LoopEvent, LoopOptions, Observer, Profile, RpcOutcome, World,
    };
    use super::*;
    use crate::policy::generation::Generation;
    use crate::policy::rr_sim::RrSimOutcome;
    use crate::policy::state::{Host, HostState, Job, JobState, Project, ResourceUsage};
    use crate::policy::work_fetch::RscRequest;
    use crate::policy::Params;

    /// Two recorded moments: at t=1000 one CPU and one job of 100 GFLOP at
    /// 1 GFLOPS; the second a moment the record cannot tell.
    struct Record(Vec<Result<(f64, HostState), String>>);

    fn host(gflop: f64) -> HostState {
        let mut state = HostState::new(Host {
            p_ncpus: 1,
            p_fpops: 1e9,
            m_nbytes: 0.0,
            coprocs: Vec::new(),
        });
        state.projects.push(Project::new("A", 100.0, 1));
        let usage = ResourceUsage::cpu(1.0, 1e9);
        let mut job = Job::new("A_0", 0, "app", usage, gflop * 1e9);
        job.exact_flops_remaining = Some(gflop * 1e9);
        job.report_deadline = 1e9;
        job.state = JobState::Downloaded;
        state.jobs.push(job);
        state
    }

    impl World for Record {
        fn anchor(&mut self, k: usize, state: &mut HostState) -> Option<Result<f64, String>> {
            Some(match self.0.get(k)? {
                Ok((now, host)) => {
                    *state = host.clone();
                    Ok(*now)
                }
                Err(why) => Err(why.clone()),
            })
        }
        fn availability(&mut self, _now: f64, _delta: f64) -> Availability {
            unreachable!("a reconstructed host is never stepped")
        }
        fn rpc(&mut self, _: &HostState, _: usize, _: &[RscRequest], _: f64) -> RpcOutcome {
            unreachable!("a reconstructed host is never stepped")
        }
        fn draw(&mut self, _: f64, _: &str, _: DrawKind, _: &str) -> Drawn {
            unreachable!("a reconstructed host is never stepped")
        }
    }

    #[derive(Default)]
    struct Sims(Vec<(f64, RrSimOutcome)>);

    impl Observer for Sims {
        fn event(&mut self, _state: &HostState, now: f64, event: LoopEvent<'_>) {
            if let LoopEvent::RrSim(sim) = event {
                self.0.push((now, sim.clone()));
            }
        }
    }

    #[test]
    fn each_moment_is_anchored_and_simulated_or_says_what_is_missing() {
        let mut record = Record(vec![
            Ok((1000.0, host(100.0))),
            Err("no FLOPs left printed".into()),
            Ok((1000.0, host(30.0))),
        ]);
        let mut sims = Sims::default();
        let options = LoopOptions {
            delta: 1.0,
            duration: 0.0,
            params: Params::default(),
            profile: Profile::of(Generation::Current),
        };
        let mut client =
            ClientLoop::new(host(1.0), options, &mut record, &mut sims).expect("a loop");
        let ran = client.run_moments(4, Decide::RrSim);
        assert!(ran[0].is_ok() && ran[2].is_ok(), "{ran:?}");
        assert_eq!(ran[1], Err("no FLOPs left printed".to_string()));
        assert!(ran[3].is_err(), "a moment past the record");
        // Each moment its own host: 100 s then 30 s at 1 GFLOPS, although
        // both share t=1000 (no simulation of the first is reused).
        let finishes: Vec<(f64, f64)> = sims
            .0
            .iter()
            .map(|(now, sim)| (*now, sim.finishes[0].reltime))
            .collect();
        assert_eq!(finishes.len(), 2);
        for ((now, got), want) in finishes.iter().zip([100.0, 30.0]) {
            assert_eq!(*now, 1000.0);
            assert!((got - want).abs() < 1e-9, "{finishes:?}");
        }
    }
}

//! The simulated world of the client loop: the project servers of
//! [`super::server`], the host's on/off processes and the scheduled changes
//! of a scenario, all drawing from one seeded [`Rng`] in the emulator's
//! order (client/sim.cpp).
//!
//! Servers are found by project name, so the loop's reordering of projects
//! needs no bookkeeping here.

use super::rng::Rng;
use super::scenario::{HostAvailability, WorldChange, WorldEvent};
use super::server::ServerProject;
use super::START_TIME;
use crate::client_loop::{Availability, DrawKind, Drawn, HostChange, RpcOutcome, World};
use crate::policy::state::{HostState, ProjectIdx};
use crate::policy::work_fetch::RscRequest;
use std::borrow::BorrowMut;
use std::collections::VecDeque;

/// Simulated servers and host, drawing from `R` (the caller's generator,
/// or one of its own).
pub struct SimWorld<R: BorrowMut<Rng>> {
    servers: Vec<ServerProject>,
    host: HostAvailability,
    events: VecDeque<WorldEvent>,
    rng: R,
    existing_jobs_only: bool,
    /// The creation number (`alloc_seq`) of the next job sent: jobs are
    /// created after every job the host already has.
    next_alloc: u64,
}

impl<R: BorrowMut<Rng>> SimWorld<R> {
    /// A world of these servers, host processes and scheduled changes.
    pub fn new(
        servers: Vec<ServerProject>,
        host: HostAvailability,
        events: Vec<WorldEvent>,
        rng: R,
        existing_jobs_only: bool,
    ) -> Self {
        SimWorld {
            servers,
            host,
            events: events.into(),
            rng,
            existing_jobs_only,
            next_alloc: 0,
        }
    }
}

impl<R: BorrowMut<Rng>> World for SimWorld<R> {
    fn changes_due(&mut self, now: f64) -> Vec<HostChange> {
        let mut out = Vec::new();
        while self
            .events
            .front()
            .is_some_and(|e| START_TIME + e.after <= now)
        {
            let Some(event) = self.events.pop_front() else {
                break;
            };
            match event.change {
                WorldChange::Attach(project, server) => {
                    self.servers.push(server);
                    out.push(HostChange::Attach(project));
                }
                WorldChange::NoNewWork(project) => out.push(HostChange::NoNewWork(project)),
                WorldChange::AddApp {
                    project,
                    version,
                    app,
                } => {
                    if let Some(server) = self.servers.iter_mut().find(|s| s.name == project) {
                        server.apps.push(app);
                    }
                    out.push(HostChange::AddApp { project, version });
                }
            }
        }
        out
    }

    /// Sampled in the emulator's order: on; then active, GPU-active (only
    /// while active) and connected.
    fn availability(&mut self, _now: f64, delta: f64) -> Availability {
        let on = self.host.on.sample(delta, self.rng.borrow_mut());
        if !on {
            return Availability {
                on,
                active: false,
                connected: false,
                gpu_active: false,
            };
        }
        let active = self.host.active.sample(delta, self.rng.borrow_mut());
        let gpu_active = active && self.host.gpu_active.sample(delta, self.rng.borrow_mut());
        let connected = self.host.connected.sample(delta, self.rng.borrow_mut());
        Availability {
            on,
            active,
            connected,
            gpu_active,
        }
    }

    fn rpc(
        &mut self,
        state: &HostState,
        p: ProjectIdx,
        request: &[RscRequest],
        now: f64,
    ) -> RpcOutcome {
        let Some(name) = state.projects.get(p).map(|project| &project.name) else {
            return RpcOutcome::Reply(Vec::new(), Vec::new());
        };
        let Some(server) = self.servers.iter_mut().find(|s| s.name == name.as_str()) else {
            return RpcOutcome::Reply(Vec::new(), Vec::new());
        };
        let result = server.rpc(
            state,
            p,
            request,
            now,
            self.existing_jobs_only,
            self.rng.borrow_mut(),
        );
        if result.down {
            // sim.cpp: project_rpc_backoff draws right after the skip.
            return RpcOutcome::Down(Drawn::Factor(self.rng.borrow_mut().uniform()));
        }
        let mut jobs = result.jobs;
        let first = state
            .jobs
            .iter()
            .map(|j| j.alloc_seq + 1)
            .max()
            .unwrap_or(0);
        self.next_alloc = self.next_alloc.max(first);
        for job in &mut jobs {
            job.alloc_seq = self.next_alloc;
            self.next_alloc += 1;
        }
        RpcOutcome::Reply(jobs, result.refused)
    }

    fn draw(&mut self, _now: f64, _project: &str, _kind: DrawKind, _rsc_name: &str) -> Drawn {
        Drawn::Factor(self.rng.borrow_mut().uniform())
    }
}

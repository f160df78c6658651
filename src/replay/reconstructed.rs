//! The client loop's world when the host is reconstructed from a real
//! client's record rather than simulated: one host per recorded moment
//! (a simulation, a scheduling pass), anchored there and never stepped
//! ([`crate::client_loop::ClientLoop::run_moments`]).
//!
//! Architecture Invariant: pure; the loop asks this world for no step's
//! availability, RPC or draw, and were it asked it answers with what a
//! record lacks.

use crate::client_loop::{
    self, anchored::Decide, ClientLoop, LoopEvent, LoopOptions, Observer, Profile, World,
};
use crate::policy::generation::Generation;
use crate::policy::state::{Host, HostState};
use crate::policy::{Params, RuntimeModel};
use std::collections::VecDeque;

/// One recorded moment's reconstructed host.
pub(super) trait Moment {
    /// The host and the client's `now` there; `None` once taken.
    fn take_host(&mut self) -> Option<(HostState, f64)>;

    /// The record's order for ties the host's estimates cannot break
    /// ([`World::run_list_order`]).
    fn tie_order(&self) -> Option<Vec<String>> {
        None
    }
}

/// The moments as the loop's world.
struct Reconstructed<'m, M> {
    moments: &'m mut [Result<M, String>],
    /// The moment anchored last.
    current: usize,
}

impl<M: Moment> World for Reconstructed<'_, M> {
    fn anchor(&mut self, k: usize, state: &mut HostState) -> Option<Result<f64, String>> {
        self.current = k;
        Some(match self.moments.get_mut(k) {
            Some(Ok(moment)) => match moment.take_host() {
                Some((host, now)) => {
                    *state = host;
                    Ok(now)
                }
                None => Err("this moment's host was anchored once already".into()),
            },
            Some(Err(why)) => Err(why.clone()),
            None => Err("the record has no such moment".into()),
        })
    }

    fn run_list_order(&mut self, _now: f64) -> Option<Vec<String>> {
        match self.moments.get(self.current) {
            Some(Ok(moment)) => moment.tie_order(),
            _ => None,
        }
    }

    fn availability(&mut self, _now: f64, _delta: f64) -> client_loop::Availability {
        client_loop::Availability {
            on: false,
            active: false,
            connected: false,
            gpu_active: false,
        }
    }

    fn rpc(
        &mut self,
        _state: &HostState,
        _p: usize,
        _request: &[crate::policy::work_fetch::RscRequest],
        _now: f64,
    ) -> client_loop::RpcOutcome {
        client_loop::RpcOutcome::Down(client_loop::Drawn::Missing)
    }

    fn draw(
        &mut self,
        _now: f64,
        _project: &str,
        _kind: client_loop::DrawKind,
        _rsc_name: &str,
    ) -> client_loop::Drawn {
        client_loop::Drawn::Missing
    }
}

/// Keeps what `pick` takes of each decision, with the host right after it.
struct Keep<T> {
    pick: fn(&LoopEvent<'_>) -> Option<T>,
    kept: VecDeque<(HostState, T)>,
}

impl<T> Observer for Keep<T> {
    fn event(&mut self, state: &HostState, _now: f64, event: LoopEvent<'_>) {
        if let Some(made) = (self.pick)(&event) {
            self.kept.push_back((state.clone(), made));
        }
    }
}

/// The client loop over `moments`, making `decide` at each: per moment,
/// what `pick` takes of the decision made there (the first it takes) with
/// the host right after it, or what the record lacks there.
pub(super) fn made<M: Moment, T>(
    moments: &mut [Result<M, String>],
    params: &Params,
    decide: Decide,
    pick: fn(&LoopEvent<'_>) -> Option<T>,
) -> Vec<Result<(HostState, T), String>> {
    made_each(moments, params, decide, 1, pick)
        .into_iter()
        .map(|r| r.and_then(|mut v| v.pop().ok_or_else(|| NOT_REPORTED.to_string())))
        .collect()
}

const NOT_REPORTED: &str = "the loop reported no such decision";

/// [`made`] for a decision the loop reports as `per` events (a scheduling
/// pass: its run list, then its enforcement): per moment, what `pick`
/// takes of each, in order, with the host right after it.
pub(super) fn made_each<M: Moment, T>(
    moments: &mut [Result<M, String>],
    params: &Params,
    decide: Decide,
    per: usize,
    pick: fn(&LoopEvent<'_>) -> Option<T>,
) -> Vec<Result<Vec<(HostState, T)>, String>> {
    let mut keep = Keep {
        pick,
        kept: VecDeque::new(),
    };
    let ran = run(moments, params, decide, &mut keep);
    ran.into_iter()
        .map(|r| {
            r?;
            if keep.kept.len() < per {
                return Err(NOT_REPORTED.to_string());
            }
            Ok(keep.kept.drain(..per).collect())
        })
        .collect()
}

/// The client loop over `moments`, making `decide` at each (today's loop
/// on the release's `params`, jobs run at their printed rates): per
/// moment, `Ok` or what the record lacks there.
fn run<M: Moment>(
    moments: &mut [Result<M, String>],
    params: &Params,
    decide: Decide,
    observer: &mut dyn Observer,
) -> Vec<Result<(), String>> {
    let n = moments.len();
    let mut params = params.clone();
    params.runtime_model = RuntimeModel::Emulator;
    params.trace = true;
    let options = LoopOptions {
        delta: 1.0,
        duration: 0.0,
        params,
        profile: Profile::of(Generation::Current),
    };
    let mut world = Reconstructed {
        moments,
        current: 0,
    };
    let empty = HostState::new(Host {
        p_ncpus: 1,
        p_fpops: 1e9,
        m_nbytes: 0.0,
        coprocs: Vec::new(),
    });
    match ClientLoop::new(empty, options, &mut world, observer) {
        Ok(mut client) => client.run_moments(n, decide),
        Err(e) => vec![Err(e.to_string()); n],
    }
}

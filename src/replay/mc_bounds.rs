//! Bounds on a project's MC shortfall (rr_sim.cpp mc_update_stats) when
//! the simulation's steps are known only to intervals.
//!
//! The shortfall integrates, over the buffer, the instances a project with
//! max_concurrent limits could use but does not (capped, before 8.2, by the
//! idle instances). Its inputs are step functions of simulated time: the
//! instances the project's jobs use, and those all jobs use. Each step (a
//! finish and the picks it brings, merged: they happen at one instant) is
//! known to lie within its own interval. At a time `t`, a step whose
//! interval ends before `t` has certainly happened and one whose interval
//! starts after `t` certainly has not; one in between may have, so a
//! function's highest value there counts only its rises among those and its
//! lowest only its falls. The shortfall's bounds integrate the integrand's
//! highest and lowest values so found: sound whatever order the uncertain
//! steps take.

/// One step: `(time, Δ, half-width of its interval)`.
pub type Step = (f64, f64, f64);

/// What the integrand rests on besides the two step functions.
pub struct McInputs<'s> {
    /// The project's steps (its jobs' usage), merged by time.
    pub own: &'s [Step],
    /// Every job's steps, merged by time.
    pub all: &'s [Step],
    /// The resource's instances.
    pub ninstances: f64,
    /// Before 8.2 (`mc_shortfall_running_max`): the project's unused
    /// instances are its running maximum of use (from its smallest limit)
    /// less its use, capped by the idle instances; from 8.2, what its
    /// limits let it use (`could_use`) less its use.
    pub running_max: bool,
    /// The running maximum's start (the smallest limit), or `could_use`.
    pub limit: f64,
    /// The buffer's end and the half-width it is known to.
    pub buf_end: f64,
    pub buf_half: f64,
}

/// The client's threshold (`x > 1e-6`).
const EPS: f64 = 1e-6;

/// A step function's highest and lowest possible values from each time on:
/// `(time, high, low)`, in time order, starting at 0 with no step taken.
fn level_bounds(steps: &[Step]) -> Vec<(f64, f64, f64)> {
    // (time, Δhigh, Δlow): a step may have happened from its interval's
    // start (only a rise raises the high, only a fall lowers the low) and
    // has from its end (the rest of it).
    let mut edges: Vec<(f64, f64, f64)> = Vec::with_capacity(2 * steps.len());
    for &(t, delta, s) in steps {
        edges.push(((t - s).max(0.0), delta.max(0.0), delta.min(0.0)));
        edges.push(((t + s).max(0.0), delta.min(0.0), delta.max(0.0)));
    }
    edges.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64, f64)> = vec![(0.0, 0.0, 0.0)];
    let (mut high, mut low) = (0.0, 0.0);
    for (t, dh, dl) in edges {
        high += dh;
        low += dl;
        match out.last_mut() {
            Some(last) if last.0 == t => *last = (t, high, low),
            _ => out.push((t, high, low)),
        }
    }
    out
}

/// The value of [`level_bounds`]' output at `t`.
fn at(levels: &[(f64, f64, f64)], t: f64) -> (f64, f64) {
    let k = levels.partition_point(|l| l.0 <= t);
    levels
        .get(k.saturating_sub(1))
        .map_or((0.0, 0.0), |l| (l.1, l.2))
}

/// The MC shortfall's lowest and highest values the steps' and the
/// buffer's intervals allow.
pub fn shortfall_bounds(inputs: &McInputs<'_>) -> (f64, f64) {
    let own = level_bounds(inputs.own);
    let all = level_bounds(inputs.all);
    let end_hi = inputs.buf_end + inputs.buf_half;
    let end_lo = inputs.buf_end - inputs.buf_half;
    let mut cuts: Vec<f64> = own
        .iter()
        .chain(&all)
        .map(|l| l.0)
        .chain([0.0, end_lo, end_hi])
        .filter(|t| (0.0..=end_hi).contains(t))
        .collect();
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    let (mut lo, mut hi) = (0.0, 0.0);
    let (mut most_hi, mut most_lo) = (inputs.limit, inputs.limit);
    for pair in cuts.windows(2) {
        let (t0, t1) = (pair[0], pair[1]);
        let mid = 0.5 * (t0 + t1);
        let (own_hi, own_lo) = at(&own, mid);
        let (all_hi, all_lo) = at(&all, mid);
        // The running maximum holds every use so far, at its highest or
        // lowest (the use is constant across the segment).
        most_hi = f64::max(most_hi, own_hi);
        most_lo = f64::max(most_lo, own_lo);
        let (unused_hi, unused_lo) = if inputs.running_max {
            (
                (most_hi - own_lo).min(inputs.ninstances - all_lo),
                (most_lo - own_hi).min(inputs.ninstances - all_hi),
            )
        } else {
            (inputs.limit - own_lo, inputs.limit - own_hi)
        };
        if unused_hi > EPS {
            hi += unused_hi * (t1 - t0);
        }
        if unused_lo > EPS && t1 <= end_lo {
            lo += unused_lo * (t1 - t0);
        }
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'s>(own: &'s [Step], all: &'s [Step], running_max: bool) -> McInputs<'s> {
        McInputs {
            own,
            all,
            ninstances: 2.0,
            running_max,
            limit: 1.0,
            buf_end: 100.0,
            buf_half: 0.01,
        }
    }

    /// A project limited to one instance that keeps it busy past the
    /// buffer (each finish brings its next job at the same instant) has no
    /// MC shortfall, however its finishes fall: pmc-suspend at 16:35:22,
    /// where the client printed `can fetch CPU` and chose no project.
    #[test]
    fn busy_past_the_buffer_is_exactly_zero() {
        let own = [
            (0.0, 1.0, 0.0),
            (36.0, 0.0, 0.2),
            (72.0, 0.0, 0.4),
            (101.0, -1.0, 0.005),
        ];
        let all = own;
        let (lo, hi) = shortfall_bounds(&inputs(&own, &all, true));
        assert_eq!((lo, hi), (0.0, 0.0));
        let (lo, hi) = shortfall_bounds(&inputs(&own, &all, false));
        assert_eq!((lo, hi), (0.0, 0.0));
    }

    /// A finish within reach of the buffer's end leaves an instance
    /// unused for up to the interval's reach past it.
    #[test]
    fn a_finish_near_the_end_bounds_it_by_its_interval() {
        let own = [(0.0, 1.0, 0.0), (99.9, -1.0, 0.2)];
        let (lo, hi) = shortfall_bounds(&inputs(&own, &own, false));
        // Unused from 99.9 ± 0.2 to 100 ± 0.01.
        assert!(lo.abs() < 1e-9, "{lo}");
        assert!((hi - 0.31).abs() < 1e-9, "{hi}");
    }

    /// Before 8.2 the idle instances cap the count: a project using none
    /// of its limit while the others fill every instance has none, until
    /// an instance may fall idle.
    #[test]
    fn the_idle_cap_holds_it_at_zero_while_others_fill_the_host() {
        let own: [Step; 0] = [];
        let all = [(0.0, 2.0, 0.0), (50.0, -1.0, 0.5)];
        let (lo, hi) = shortfall_bounds(&inputs(&own, &all, true));
        assert!((lo - 49.49).abs() < 1e-9, "{lo}");
        assert!((hi - 50.51).abs() < 1e-9, "{hi}");
    }
}

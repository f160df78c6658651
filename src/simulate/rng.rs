//! The one seeded pseudo-random generator of a simulation.
//!
//! Every random draw of a run — job sizes, app choice, availability periods,
//! backoff factors — comes from one [`Rng`], so a run is a pure function of
//! its inputs and `--seed`.
//!
//! The generator is glibc's `rand()`/`random()` (the additive lagged
//! Fibonacci generator `r[i] = r[i-3] + r[i-31]`, seeded through the
//! Park–Miller LCG and warmed up by 310 discarded outputs), and
//! [`Rng::uniform`] is BOINC's `drand()` (`rand() / RAND_MAX`). The BOINC
//! emulator runs on glibc and calls `srand(1)` before reading its inputs;
//! the simulation makes the emulator's draws in the emulator's order (see
//! the callers: start-up availability processes, then per step, per RPC
//! and per job), so with `--seed 1` a run of an emulator scenario is the
//! emulator's run, draw for draw (docs/simulate.md).

/// glibc `random()` state (TYPE_3: degree 31, separation 3).
#[derive(Clone, Debug)]
pub struct Rng {
    table: [u32; 31],
    front: usize,
    rear: usize,
    /// The second value of the last Box–Muller pair (BOINC's
    /// `rand_normal()` caches it for the next call).
    cached_normal: Option<f64>,
}

/// BOINC's `PI2` (lib/util.cpp): 2 × 3.1415926, which is not quite 2π; the
/// draws keep BOINC's value.
#[allow(clippy::approx_constant)]
const BOINC_PI2: f64 = 2.0 * 3.141_592_6;

/// glibc's `RAND_MAX`.
const RAND_MAX: f64 = 2_147_483_647.0;

impl Rng {
    /// A generator in the state `srand(seed)` leaves glibc in (`seed` is
    /// taken modulo 2³², as C's `unsigned int`; 0 acts as 1, as in glibc).
    pub fn new(seed: u64) -> Self {
        let mut seed = seed as u32;
        if seed == 0 {
            seed = 1;
        }
        let mut table = [0u32; 31];
        table[0] = seed;
        let mut word = seed as i32 as i64;
        for slot in table.iter_mut().skip(1) {
            // 16807 · word mod (2³¹ − 1), by Schrage's method as glibc does.
            let hi = word / 127_773;
            let lo = word % 127_773;
            word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            *slot = word as u32;
        }
        let mut rng = Rng {
            table,
            front: 3,
            rear: 0,
            cached_normal: None,
        };
        for _ in 0..310 {
            rng.next_u31();
        }
        rng
    }

    /// The next `rand()` value, in [0, 2³¹ − 1].
    pub fn next_u31(&mut self) -> u32 {
        let sum = self.table[self.front].wrapping_add(self.table[self.rear]);
        self.table[self.front] = sum;
        self.front = (self.front + 1) % 31;
        self.rear = (self.rear + 1) % 31;
        sum >> 1
    }

    /// Uniform in [0, 1] (BOINC's `drand()`).
    pub fn uniform(&mut self) -> f64 {
        f64::from(self.next_u31()) / RAND_MAX
    }

    /// Standard normal (Box–Muller, as BOINC's `rand_normal()`: each pair of
    /// uniforms gives a cosine value now and a sine value for the next call).
    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.cached_normal.take() {
            return z;
        }
        // drand() can return 0; BOINC would take log(0) there.
        let u1 = self.uniform().max(f64::MIN_POSITIVE);
        let u2 = self.uniform();
        let r = (-2.0 * u1.ln()).sqrt();
        let angle = BOINC_PI2 * u2;
        self.cached_normal = Some(r * angle.sin());
        r * angle.cos()
    }

    /// Exponential with the given mean (the emulator's `exponential()`:
    /// `-mean · ln(1 − drand())`).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).max(f64::MIN_POSITIVE).ln()
    }
}

/// An on/off process with exponential periods (the emulator's
/// `RANDOM_PROCESS`): on for a mean of `lambda` seconds, off for a mean of
/// `lambda / frac − lambda`, so it is on a fraction `frac` of the time.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOff {
    frac: f64,
    lambda: f64,
    off_lambda: f64,
    value: bool,
    time_left: f64,
}

impl OnOff {
    /// Always on.
    pub fn always() -> Self {
        OnOff {
            frac: 1.0,
            lambda: 0.0,
            off_lambda: 0.0,
            value: true,
            time_left: 0.0,
        }
    }

    /// Never on (a project server that is always down).
    pub fn never() -> Self {
        OnOff {
            frac: 0.0,
            lambda: 0.0,
            off_lambda: f64::INFINITY,
            value: false,
            time_left: f64::INFINITY,
        }
    }

    /// On a fraction `frac` of the time, with mean on-period `lambda` seconds.
    /// Like the emulator's `RANDOM_PROCESS::init()` it always makes two
    /// draws (the initial state, then the first period), even when `frac`
    /// is 1 and the process never turns off, so later draws line up with
    /// the emulator's. Unusable parameters (NaN, `lambda` ≤ 0) give a
    /// process that is always on.
    pub fn new(frac: f64, lambda: f64, rng: &mut Rng) -> Self {
        let first = rng.uniform();
        if frac.is_nan() || frac >= 1.0 || lambda.is_nan() || lambda <= 0.0 {
            rng.uniform();
            return OnOff::always();
        }
        let frac = frac.max(1e-6);
        let off_lambda = lambda / frac - lambda;
        let (value, time_left) = if first > frac {
            (false, rng.exponential(off_lambda))
        } else {
            (true, rng.exponential(lambda))
        };
        OnOff {
            frac,
            lambda,
            off_lambda,
            value,
            time_left,
        }
    }

    /// The 6.10.60 emulator's process (its `RANDOM_PROCESS::init`): on at
    /// first, for one exponential draw of mean `lambda`; one draw even when
    /// `frac` is 1.
    pub fn new_6_10(frac: f64, lambda: f64, rng: &mut Rng) -> Self {
        let time_left = rng.exponential(lambda);
        if frac.is_nan() || frac >= 1.0 || lambda.is_nan() || lambda <= 0.0 {
            return OnOff::always();
        }
        let frac = frac.max(1e-6);
        OnOff {
            frac,
            lambda,
            off_lambda: lambda / frac - lambda,
            value: true,
            time_left,
        }
    }

    /// Whether the process ever turns off (the 6.10 emulator prints a
    /// sample's line only then).
    pub fn varies(&self) -> bool {
        self.frac < 1.0
    }

    /// Whether the process is on (as its last sample left it).
    pub fn sample_value(&self) -> bool {
        self.value
    }

    /// The mean on-period, seconds.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Seconds left in the current period.
    pub fn time_left(&self) -> f64 {
        self.time_left
    }

    /// Advances by `dt` seconds and returns whether the process is on.
    pub fn sample(&mut self, dt: f64, rng: &mut Rng) -> bool {
        if self.frac >= 1.0 {
            return true;
        }
        self.time_left -= dt;
        // One flip per sample, as the emulator's RANDOM_PROCESS::sample()
        // (a period shorter than the step leaves time_left negative and the
        // next sample flips again).
        if self.time_left < 0.0 {
            if self.value {
                self.time_left += rng.exponential(self.off_lambda);
                self.value = false;
            } else {
                self.time_left += rng.exponential(self.lambda);
                self.value = true;
            }
        }
        self.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first outputs of glibc's `srand(1); rand();` and `srand(42)`
    /// (as printed by a C program on glibc; also the published sequence).
    #[test]
    fn matches_glibc_rand() {
        let mut one = Rng::new(1);
        let first: Vec<u32> = (0..5).map(|_| one.next_u31()).collect();
        assert_eq!(
            first,
            [
                1_804_289_383,
                846_930_886,
                1_681_692_777,
                1_714_636_915,
                1_957_747_793
            ]
        );
        assert_eq!(Rng::new(0).next_u31(), 1_804_289_383, "seed 0 acts as 1");
        let mut two = Rng::new(2);
        assert_eq!(two.next_u31(), 1_505_335_290);
    }

    #[test]
    fn deterministic_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..1000 {
            let x = a.uniform();
            assert_eq!(x, b.uniform());
            assert!((0.0..=1.0).contains(&x));
        }
    }

    #[test]
    fn on_off_fraction_is_about_frac() {
        let mut rng = Rng::new(1);
        let mut p = OnOff::new(0.5, 3600.0, &mut rng);
        let on = (0..100_000).filter(|_| p.sample(60.0, &mut rng)).count();
        let frac = on as f64 / 100_000.0;
        assert!((frac - 0.5).abs() < 0.05, "{frac}");
    }
}

//! The one seeded pseudo-random generator of a simulation (SplitMix64).
//!
//! Every random draw of a run — job sizes, app choice, availability periods,
//! backoff factors — comes from one [`Rng`], so a run is a pure function of
//! its inputs and `--seed`. It does not reproduce the emulator's `rand()`
//! sequence: figures agree statistically, not draw by draw.

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, passes BigCrush.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Exponential with the given mean (the emulator's `exponential()`).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
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

    /// On a fraction `frac` of the time, with mean on-period `lambda` seconds.
    pub fn new(frac: f64, lambda: f64, rng: &mut Rng) -> Self {
        if frac.is_nan() || frac >= 1.0 || lambda.is_nan() || lambda <= 0.0 {
            return OnOff::always();
        }
        let frac = frac.max(1e-6);
        let off_lambda = lambda / frac - lambda;
        let (value, time_left) = if rng.uniform() > frac {
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

    #[test]
    fn deterministic_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..1000 {
            let x = a.uniform();
            assert_eq!(x, b.uniform());
            assert!((0.0..1.0).contains(&x));
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

//! Policy generations: which BOINC client scheduling policy a trace is
//! replayed with, and how `--policy auto` picks one from the client version
//! (spec `policy-legacy.md` Parts A–C).
//!
//! * [`Generation::Current`] — the REC policy of `policy-current.md`
//!   (7.x/8.x), engine in the parent module;
//! * [`Generation::Ltd66`] — the 6.6–6.10 per-resource long-term-debt policy
//!   (Part B), engine in [`super::ltd`];
//! * [`Generation::Debt62`] — the pre-6.4 STD/LTD/WRR/EDF policy (Part A),
//!   engine in [`super::debt`].
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use std::fmt;
use std::str::FromStr;

/// A generation of the client's scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Generation {
    /// REC-based job scheduling and work fetch (7.0 onward; `policy-current.md`).
    Current,
    /// Per-resource long-term debt with short-term-debt job scheduling
    /// (6.6–6.12; `policy-legacy.md` Part B).
    Ltd66,
    /// One CPU long-term debt, short-term debt, WRR simulation with
    /// per-project shortfall and EDF (5.x–6.5; `policy-legacy.md` Part A).
    Debt62,
}

/// Error of [`Generation::from_str`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown policy generation {0:?}; expected one of current, ltd-6.6, debt-6.2")]
pub struct UnknownGeneration(pub String);

impl Generation {
    /// Every generation, newest first.
    pub const ALL: [Generation; 3] = [Generation::Current, Generation::Ltd66, Generation::Debt62];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Generation::Current => "current",
            Generation::Ltd66 => "ltd-6.6",
            Generation::Debt62 => "debt-6.2",
        }
    }

    /// The generation whose policy a client of version `major.minor.release`
    /// ran, with the reason as a sentence (for `--policy auto`).
    ///
    /// * up to 6.5 → `debt-6.2` (Part A; 6.4/6.5 carry the [CODE 2008-12]
    ///   variants: FLOPS-based simulation rates, elapsed-time estimates);
    /// * 6.6 – 6.12 → `ltd-6.6` (Part B; the reference traces are 6.10.60;
    ///   6.11/6.12 were built without `USE_REC` and add the 2010-08…10 trunk
    ///   changes of B.3/B.9/B.11, which this engine does not model);
    /// * 7.0 and later → `current` (REC; 7.0–7.2 differ in the details of
    ///   `policy-legacy.md` C.1).
    ///
    /// Mirrors no BOINC function: the boundaries are the releases where the
    /// client's `work_fetch.cpp` / `cpu_sched.cpp` changed policy.
    pub fn for_client_version(major: u32, minor: u32, release: u32) -> (Generation, String) {
        let version = format!("{major}.{minor}.{release}");
        if major < 6 || (major == 6 && minor < 6) {
            let detail = if major == 6 && minor >= 4 {
                " (6.4/6.5: the 2008-12 variants of Part A: FLOPS-based simulation rates, \
                 elapsed-time estimates, work_buf_total horizon)"
            } else {
                ""
            };
            (
                Generation::Debt62,
                format!(
                    "client {version} predates 6.6: one CPU long-term debt, short-term debt \
                     and EDF (policy-legacy Part A){detail}"
                ),
            )
        } else if major == 6 {
            let detail = if minor >= 11 {
                "; 6.11/6.12 also carry the 2010-08..10 trunk changes (STD decay, \
                 (0.5+U) backoff from 600 s, one job per idle instance for zero-share \
                 projects) that the engine models as in 6.10.60"
            } else {
                ""
            };
            (
                Generation::Ltd66,
                format!(
                    "client {version} is 6.6-6.12: per-resource long-term debt work fetch \
                     and short-term debt job scheduling (policy-legacy Part B){detail}"
                ),
            )
        } else {
            let detail = if major == 7 && minor <= 2 {
                "; 7.0-7.2 differ in logging, same-instant simulation reuse and GPU CPU \
                 accounting (policy-legacy C.1)"
            } else {
                ""
            };
            (
                Generation::Current,
                format!(
                    "client {version} is 7.0 or later: REC-based scheduling and work fetch \
                     (policy-current){detail}"
                ),
            )
        }
    }
}

impl serde::Serialize for Generation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Generation {
    type Err = UnknownGeneration;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "current" | "rec" => Ok(Generation::Current),
            "ltd-6.6" | "ltd" => Ok(Generation::Ltd66),
            "debt-6.2" | "debt" => Ok(Generation::Debt62),
            other => Err(UnknownGeneration(other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for generation in Generation::ALL {
            assert_eq!(generation.to_string().parse::<Generation>(), Ok(generation));
        }
        assert!("ltd-6.7".parse::<Generation>().is_err());
    }

    #[test]
    fn version_boundaries() {
        let gen = |a, b, c| Generation::for_client_version(a, b, c).0;
        assert_eq!(gen(5, 10, 45), Generation::Debt62);
        assert_eq!(gen(6, 2, 19), Generation::Debt62);
        assert_eq!(gen(6, 4, 7), Generation::Debt62);
        assert_eq!(gen(6, 6, 0), Generation::Ltd66);
        assert_eq!(gen(6, 10, 60), Generation::Ltd66);
        assert_eq!(gen(6, 12, 43), Generation::Ltd66);
        assert_eq!(gen(7, 2, 42), Generation::Current);
        assert_eq!(gen(8, 0, 4), Generation::Current);
        assert!(Generation::for_client_version(7, 2, 42).1.contains("C.1"));
        assert!(Generation::for_client_version(6, 10, 60)
            .1
            .contains("Part B"));
    }
}

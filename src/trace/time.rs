//! Time stamps of log events, in each time base a trace can have.

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

/// When a log line was written, as the line itself says it.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "base", content = "value")]
pub enum EventTime {
    /// The emulator's simulated clock, in whole seconds since its start
    /// (`HH:MM:SS`, `N day(s) HH:MM:SS`).
    Simulated(u64),
    /// A local wall-clock time without zone, as stdoutdae.txt, boinccmd and the
    /// Manager print it (the 6.10 emulator prints its simulated clock this way too).
    Local(NaiveDateTime),
    /// Seconds since the Unix epoch, UTC (GUI RPC `<time>`).
    Unix(i64),
    /// The line carries no time (continuations, bare lines); it inherits the
    /// position of its neighbours.
    None,
}

impl EventTime {
    /// Seconds on the trace's own time base: simulated seconds, or seconds since
    /// the epoch (local times are read as if they were UTC; apply the trace's
    /// UTC offset to get true UTC). `None` for [`EventTime::None`].
    pub fn secs(&self) -> Option<f64> {
        match self {
            EventTime::Simulated(secs) => Some(*secs as f64),
            EventTime::Local(datetime) => Some(datetime.and_utc().timestamp() as f64),
            EventTime::Unix(secs) => Some(*secs as f64),
            EventTime::None => None,
        }
    }
}

/// Which clock the times of a trace follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeBase {
    /// Not known (no timed line seen yet).
    #[default]
    Unknown,
    /// Wall-clock time of a real host.
    WallClock,
    /// The emulator's simulated time.
    Simulated,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    #[test]
    fn secs_of_each_base() {
        assert_eq!(EventTime::Simulated(3600).secs(), Some(3600.0));
        let local = NaiveDate::from_ymd_opt(2000, 1, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(EventTime::Local);
        assert_eq!(local.and_then(|t| t.secs()), Some(946_684_800.0));
        assert_eq!(EventTime::None.secs(), None);
    }
}

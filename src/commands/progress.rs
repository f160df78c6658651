//! Progress on long work, on standard error, only when it is a terminal:
//! one line rewritten in place at most four times a second, cleared when the
//! work is done. Scripts and CI logs (stderr not a terminal) see nothing.

use boinc_audit::trace::LogEvent;
use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often the line is rewritten, at most.
const INTERVAL: Duration = Duration::from_millis(250);
/// Events between two looks at the clock.
const EVENTS_PER_CHECK: u64 = 1 << 14;

/// A progress line while the logs are read (and, for `audit`, replayed).
pub struct Progress {
    enabled: bool,
    started: Instant,
    last_print: Instant,
    n_events: u64,
    shown: bool,
    /// What is done to the lines now (events are counted per pass).
    doing: &'static str,
}

impl Progress {
    /// Progress on standard error if it is a terminal and `NO_PROGRESS` is unset.
    pub fn on_stderr() -> Self {
        let enabled = io::stderr().is_terminal() && std::env::var_os("NO_PROGRESS").is_none();
        let now = Instant::now();
        Progress {
            enabled,
            started: now,
            last_print: now,
            n_events: 0,
            shown: false,
            doing: "reading",
        }
    }

    /// Counts one parsed event; now and then shows where the parser is.
    pub fn event(&mut self, event: &LogEvent) {
        self.event_labelled("reading", event);
    }

    /// [`Progress::event`] with what is done to the lines (`reading`, or
    /// `pre-scanning` in a first pass).
    pub fn event_labelled(&mut self, doing: &'static str, event: &LogEvent) {
        if !self.enabled {
            return;
        }
        // The labels are the callers' literals: the same pointer is the
        // same label, with no comparison of their text per event.
        if !std::ptr::eq(doing, self.doing) {
            self.doing = doing;
            self.n_events = 0;
        }
        self.n_events += 1;
        if self.n_events % EVENTS_PER_CHECK != 0 {
            return;
        }
        if self.last_print.elapsed() >= INTERVAL {
            let text = format!(
                "{doing} {} line {} ({} events, {:.1} s)",
                event.location.path,
                event.location.line,
                self.n_events,
                self.started.elapsed().as_secs_f64()
            );
            self.show(&text);
        }
    }

    fn show(&mut self, text: &str) {
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{text}");
        let _ = err.flush();
        self.last_print = Instant::now();
        self.shown = true;
    }

    /// Clears the line (call before printing results or errors).
    pub fn finish(&mut self) {
        if self.shown {
            let mut err = io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

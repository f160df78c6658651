//! The emulator's timeline.html (client/sim.cpp `html_rec()`): one row per
//! time step, which says whether the client was running (`BOINC not
//! running`) and whether GPUs were allowed (`GPUs disabled` in a GPU
//! column). The replay takes these as external inputs (host and GPU
//! availability are random draws of the emulator; reference README).
//!
//! The file is HTML the emulator writes itself; only the step rows are read:
//! `<td valign=top>TIME</td>` opens a row, and the text up to the next row
//! decides its state. Times are printed like the log's (`01:00:00`,
//! `1 day 01:06:00`, `24:00:00`).
//!
//! The 7.0–7.2 emulator (sim.cpp `html_rec()` at client_release/7.2/7.2.42)
//! writes another layout: `<td width=100 valign=top>TIME</td>` opens a row,
//! then one cell per resource, CPU first; a step that was not active has
//! every cell `OFF` (grey), an active step with GPUs off has its GPU cells
//! `OFF`.
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.

use crate::parse::error::{ParseError, Parsed};
use crate::source::SourcePath;
use crate::source::{LineIndex, Location};
use crate::trace::StepAvailability;

/// What opens a step row.
const ROW_OPEN: &[u8] = b"<td valign=top>";
/// A row of a step in which the client was off.
const NOT_RUNNING: &[u8] = b"BOINC not running";
/// A GPU column of a step in which GPUs were not allowed.
const GPUS_DISABLED: &[u8] = b"GPUs disabled";
/// What opens a step row of the 7.0–7.2 emulator.
const ROW_OPEN_7_2: &[u8] = b"<td width=100 valign=top>";
/// A resource cell of the 7.0–7.2 emulator for a resource that was off.
const OFF_CELL_7_2: &[u8] = b"bgcolor=#aaaaaa>OFF</td>";

/// True when `head` looks like the emulator's timeline.html.
pub fn is_emulator_timeline(head: &[u8]) -> bool {
    memchr::memmem::find(head, b"BOINC client emulator results").is_some()
}

/// Reads the step rows: one [`StepAvailability`] per distinct step time, in
/// file order (a step printed in two rows — its events, then its jobs — is
/// one step).
pub fn parse_emulator_timeline(path: &SourcePath, bytes: &[u8]) -> Parsed<Vec<StepAvailability>> {
    let mut steps: Vec<StepAvailability> = Vec::new();
    let mut errors = Vec::new();
    let index = LineIndex::new(bytes);
    let mut starts: Vec<(usize, usize)> = memchr::memmem::find_iter(bytes, ROW_OPEN)
        .map(|at| (at, ROW_OPEN.len()))
        .chain(memchr::memmem::find_iter(bytes, ROW_OPEN_7_2).map(|at| (at, ROW_OPEN_7_2.len())))
        .collect();
    starts.sort_unstable();
    for (n, &(start, open_len)) in starts.iter().enumerate() {
        let label_start = start + open_len;
        let end = starts.get(n + 1).map_or(bytes.len(), |&(at, _)| at);
        let Some(label_len) = memchr::memchr(b'<', &bytes[label_start..end]) else {
            continue;
        };
        let label = String::from_utf8_lossy(&bytes[label_start..label_start + label_len]);
        let label = label.trim();
        if label.is_empty() || !label.as_bytes()[0].is_ascii_digit() {
            continue;
        }
        let Some(time) = step_seconds(label) else {
            let (line, column) = index.line_col(bytes, label_start);
            errors.push(ParseError::expected(
                Location::new(*path, line, column),
                "a step time such as 01:06:00 or 1 day 01:06:00",
                label,
            ));
            continue;
        };
        let row = &bytes[label_start..end];
        let (off, gpus_disabled) = if open_len == ROW_OPEN_7_2.len() {
            row_state_7_2(&row[label_len..])
        } else {
            (
                memchr::memmem::find(row, NOT_RUNNING).is_some(),
                memchr::memmem::find(row, GPUS_DISABLED).is_some(),
            )
        };
        match steps.last_mut() {
            Some(last) if last.time == time => {
                last.on &= !off;
                last.gpus_allowed &= !gpus_disabled && !off;
            }
            _ => steps.push(StepAvailability {
                time,
                on: !off,
                gpus_allowed: !off && !gpus_disabled,
            }),
        }
    }
    Parsed {
        value: steps,
        errors,
        warnings: Vec::new(),
    }
}

/// A 7.0–7.2 row after its time label (`</td><td …>…`): (not active, GPUs
/// off). Its first cell is the CPU's: `OFF` there means the step was not
/// active; an `OFF` cell after it is a GPU's.
fn row_state_7_2(cells: &[u8]) -> (bool, bool) {
    let first_cell_end = memchr::memmem::find(cells, b"</td>")
        .and_then(|close| {
            let after = close + b"</td>".len();
            memchr::memmem::find(&cells[after..], b"</td>").map(|c| after + c + b"</td>".len())
        })
        .unwrap_or(cells.len());
    let (cpu, rest) = cells.split_at(first_cell_end);
    let cpu_off = memchr::memmem::find(cpu, OFF_CELL_7_2).is_some();
    let gpu_off = memchr::memmem::find(rest, OFF_CELL_7_2).is_some();
    (cpu_off, gpu_off)
}

/// True when `head` looks like the 6.10 emulator's sim_out_0.html.
pub fn is_sim_out_html(head: &[u8]) -> bool {
    memchr::memmem::find(head, b"<h2>Simulator output</h2>").is_some()
}

/// What precedes a job start in the notes of a sim_out_0.html row.
const STARTING: &[u8] = b"Starting ";

/// Reads the 6.10 emulator's sim_out_0.html notes `Starting JOB: SECS`
/// (client/sim.cpp of 6.10: the CPU time left when a task starts, `%f`) in
/// file order. A job's first entry is its true CPU time: the replay's job
/// size, known to the microsecond (the log prints it with two decimals).
pub fn parse_sim_out_html(path: &SourcePath, bytes: &[u8]) -> Parsed<Vec<(String, f64)>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let index = LineIndex::new(bytes);
    for start in memchr::memmem::find_iter(bytes, STARTING) {
        let rest = &bytes[start + STARTING.len()..];
        let end = memchr::memchr(b'<', rest).unwrap_or(rest.len());
        let text = String::from_utf8_lossy(&rest[..end]);
        let parsed = text
            .split_once(": ")
            .and_then(|(job, secs)| Some((job.trim(), secs.trim().parse::<f64>().ok()?)))
            .filter(|(job, secs)| !job.is_empty() && secs.is_finite());
        match parsed {
            Some((job, secs)) => out.push((job.to_string(), secs)),
            None => {
                let (line, column) = index.line_col(bytes, start);
                errors.push(ParseError::expected(
                    Location::new(*path, line, column),
                    "`Starting JOB: SECONDS`",
                    &text,
                ));
            }
        }
    }
    Parsed {
        value: out,
        errors,
        warnings: Vec::new(),
    }
}

/// `01:06:00` → 3960, `1 day 01:06:00` → 90360, `2 days 00:00:00` → 172800.
fn step_seconds(label: &str) -> Option<i64> {
    let (days, clock) = match label.split_once(' ') {
        Some((days, rest)) => {
            let clock = rest
                .strip_prefix("days ")
                .or_else(|| rest.strip_prefix("day "))?;
            (days.parse::<i64>().ok()?, clock)
        }
        None => (0, label),
    };
    let mut parts = clock.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (h, m, s): (i64, i64, i64) = (h.parse().ok()?, m.parse().ok()?, s.parse().ok()?);
    if m >= 60 || s >= 60 || h > 24 {
        return None;
    }
    days.checked_mul(86400)?.checked_add(h * 3600 + m * 60 + s)
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// Any bytes, and rows cut or mangled anywhere: an error or a
        /// result, never a panic.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let path: SourcePath = SourcePath::from("timeline.html");
            let _ = parse_emulator_timeline(&path, &bytes);
            let _ = parse_sim_out_html(&path, &bytes);
        }

        #[test]
        fn mangled_rows_never_panic(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "<td valign=top>", "01:00:00", "1 day 01:06:00", "24:00:00", "</td>",
                    "BOINC not running", "GPUs disabled", "<br>", "Starting ", "Beta_0", ": ",
                    "10510.653347", "<h2>Simulator output</h2>", "\n", "\u{0}", "\u{fc}", "x",
                ]),
                0..24,
            ),
        ) {
            let text = pieces.concat();
            let path: SourcePath = SourcePath::from("timeline.html");
            let _ = parse_emulator_timeline(&path, text.as_bytes());
            let _ = parse_sim_out_html(&path, text.as_bytes());
        }
    }

    #[test]
    fn sim_out_html_job_starts() {
        let html = b"<h2>Simulator output</h2>\n<tr><td>x</td><td><font size=-2>RPC to Beta<br>Starting Beta_0: 10510.653347<br>Starting Beta_1: 11702.947123<br>Starting bad<br></font></td></tr>";
        assert!(is_sim_out_html(html));
        let path: SourcePath = SourcePath::from("sim_out_0.html");
        let parsed = parse_sim_out_html(&path, html);
        assert_eq!(
            parsed.value,
            vec![
                ("Beta_0".to_string(), 10510.653347),
                ("Beta_1".to_string(), 11702.947123)
            ]
        );
        assert_eq!(parsed.errors.len(), 1);
        assert_eq!(parsed.errors[0].location.line, 2);
    }
    use super::*;

    const HTML: &str = "<head><style></style></head>\n<h2>BOINC client emulator results</h2>\n\
<tr>    <td valign=top>01:00:00</td>    <td colspan=99 valign=top><font size=-2>Starting A_0<br></font></td></tr>\n\
<tr>   <td valign=top>01:00:00</td>   <th>CPU</th><th>NVIDIA GPU</th>\n<td>x</td></tr>\n\
<tr>    <td valign=top>01:06:00</td>    <td colspan=99 valign=top bgcolor=#aaaaaa>BOINC not running</td></tr>\n\
<tr>   <td valign=top>1 day 01:12:00</td>   <th>CPU</th><th>NVIDIA GPU</th><td valign=top bgcolor=#aaaaaa>GPUs disabled</td></tr>\n";

    /// (time, on, GPUs allowed) of each step row of `html`, which must
    /// parse without errors.
    fn step_states(html: &str) -> Vec<(i64, bool, bool)> {
        let parsed = parse_emulator_timeline(&SourcePath::from("timeline.html"), html.as_bytes());
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        parsed
            .value
            .iter()
            .map(|s| (s.time, s.on, s.gpus_allowed))
            .collect()
    }

    #[test]
    fn rows_give_on_and_gpu_state_per_step() {
        assert_eq!(
            step_states(HTML),
            [
                (3600, true, true),
                (3960, false, false),
                (90720, true, false)
            ]
        );
        assert!(is_emulator_timeline(HTML.as_bytes()));
    }

    /// The 7.0-7.2 layout (sim.cpp `html_rec()` at 7.2.42): a message row,
    /// a step not active (every cell OFF), an active step with its GPU cell
    /// OFF, and an active step with both resources shown.
    #[test]
    fn rows_of_the_7_2_emulator() {
        let html = "<h2>BOINC client emulator results</h2>\n\
<table border=0 cellpadding=4><tr><td width=100 valign=top>01:00:00</td><td width=400 valign=top><font size=-2>Starting A_0<br></font></td></tr></table>\n\
<table border=0 cellpadding=4><tr><td width=100 valign=top>01:00:00</td><td width=400 valign=top bgcolor=#aaaaaa>OFF</td><td width=400 valign=top bgcolor=#aaaaaa>OFF</td></tr></table>\n\
<table border=0 cellpadding=4><tr><td width=100 valign=top>01:05:00</td><td width=400 valign=top><table>\n<tr><td>1.00</td><td bgcolor=#000088><font color=#ffffff>A_0</font></td><td>12</td></tr>\n</table>\n</td><td width=400 valign=top bgcolor=#aaaaaa>OFF</td></tr></table>\n\
<table border=0 cellpadding=4><tr><td width=100 valign=top>01:10:00</td><td width=400 valign=top>IDLE\n</td><td width=400 valign=top>IDLE\n</td></tr></table>\n";
        assert_eq!(
            step_states(html),
            [
                (3600, false, false),
                (3900, true, false),
                (4200, true, true)
            ]
        );
    }

    #[test]
    fn labels_follow_the_log() {
        assert_eq!(step_seconds("24:00:00"), Some(86400));
        assert_eq!(step_seconds("2 days 00:00:00"), Some(172800));
        assert_eq!(step_seconds("1 day 00:00:01"), Some(86401));
        assert_eq!(step_seconds("01:61:00"), None);
        assert_eq!(step_seconds("1 week 00:00:00"), None);
        assert_eq!(step_seconds("99999999999999999 days 00:00:00"), None);
    }

    #[test]
    fn a_bad_step_time_is_an_error_with_its_line() {
        let html = "<h2>BOINC client emulator results</h2>\n<td valign=top>99:00:00</td>";
        let parsed = parse_emulator_timeline(&SourcePath::from("t.html"), html.as_bytes());
        assert_eq!(parsed.errors.len(), 1);
        assert_eq!(parsed.errors[0].location.line, 2);
    }
}

//! job_log_<project>.txt: one line per finished task,
//! `T ue U ct C fe F nm NAME et E es S` (formats-xml.md §7).
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! Lines are split on `\n` (a trailing `\r` is dropped) and decoded lossily.
//! After the leading time, keys and values alternate; keys may come in any
//! order and unknown keys are skipped. A line whose time or a known value
//! does not parse is an error at that token and the line is dropped; blank
//! lines are skipped.

use crate::parse::error::{ParseError, Parsed};
use crate::source::{Location, SourcePath};
use crate::trace::state::{JobLog, JobLogEntry};

/// Parses a whole job log.
pub fn parse_job_log(path: &SourcePath, bytes: &[u8]) -> Parsed<JobLog> {
    let display = path.to_string();
    let file_name = display.rsplit(['/', '\\']).next().unwrap_or(&display);
    let mut parsed = Parsed::ok(JobLog {
        project: project_of_file_name(file_name),
        path: display.clone(),
        entries: Vec::new(),
    });
    for (line_idx, raw) in bytes.split(|byte| *byte == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = String::from_utf8_lossy(raw);
        if line.trim().is_empty() {
            continue;
        }
        let line_number = u32::try_from(line_idx + 1).unwrap_or(u32::MAX);
        match parse_line(&line) {
            Ok(entry) => parsed.value.entries.push(entry),
            Err((column, expected, found)) => parsed.push(ParseError::expected(
                Location::new(*path, line_number, column),
                expected,
                &found,
            )),
        }
    }
    parsed
}

/// The escaped master URL of a file name `job_log_<X>.txt`.
fn project_of_file_name(file_name: &str) -> Option<String> {
    let name = file_name.strip_suffix(".gz").unwrap_or(file_name);
    let project = name.strip_prefix("job_log_")?.strip_suffix(".txt")?;
    (!project.is_empty()).then(|| project.to_string())
}

/// Words of `line` with their 1-based character columns.
fn words(line: &str) -> Vec<(u32, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    let mut column = 0u32;
    let mut start_column = 0u32;
    for (idx, c) in line.char_indices() {
        column += 1;
        if c.is_whitespace() {
            if let Some(begin) = start.take() {
                out.push((start_column, &line[begin..idx]));
            }
        } else if start.is_none() {
            start = Some(idx);
            start_column = column;
        }
    }
    if let Some(begin) = start {
        out.push((start_column, &line[begin..]));
    }
    out
}

type LineError = (u32, String, String);

fn parse_line(line: &str) -> Result<JobLogEntry, LineError> {
    let words = words(line);
    let Some(&(time_column, time_text)) = words.first() else {
        return Err((1, "a job log line".to_string(), String::new()));
    };
    let time = time_text.parse::<f64>().map_err(|_| {
        (
            time_column,
            "a completion time (Unix seconds) at the start of the job log line".to_string(),
            time_text.to_string(),
        )
    })?;
    let mut entry = JobLogEntry {
        time,
        ..JobLogEntry::default()
    };
    let mut rest = words[1..].iter();
    while let Some(&(key_column, key)) = rest.next() {
        let Some(&(value_column, value)) = rest.next() else {
            return Err((
                key_column + u32::try_from(key.chars().count()).unwrap_or(0),
                format!("a value after \"{key}\""),
                String::new(),
            ));
        };
        let number = |what: &str| {
            value.parse::<f64>().map_err(|_| {
                (
                    value_column,
                    format!("a number after \"{key}\" ({what})"),
                    value.to_string(),
                )
            })
        };
        match key {
            "ue" => entry.ue = Some(number("uncorrected runtime estimate")?),
            "ct" => entry.ct = Some(number("CPU time")?),
            "fe" => entry.fe = Some(number("FLOPs estimate")?),
            "et" => entry.et = Some(number("elapsed time")?),
            "nm" => entry.nm = Some(value.to_string()),
            "es" => {
                entry.es = Some(value.parse::<i64>().map_err(|_| {
                    (
                        value_column,
                        "an integer after \"es\" (exit status)".to_string(),
                        value.to_string(),
                    )
                })?);
            }
            _ => {}
        }
    }
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_errors() {
        let parsed = parse_job_log(
            &SourcePath::from("d/job_log_a.org.txt"),
            b"1555490613 ue 7200.000000 ct 7000.5 fe 72000000000000 nm A_1 et 7100.2 es 0\r\n\
              \n1555490700 ue x ct 1 fe 1 nm B et 1 es 0\n",
        );
        assert_eq!(parsed.value.project.as_deref(), Some("a.org"));
        assert_eq!(parsed.value.entries.len(), 1);
        let entry = &parsed.value.entries[0];
        assert_eq!(entry.time, 1_555_490_613.0);
        assert_eq!(entry.ue, Some(7200.0));
        assert_eq!(entry.nm.as_deref(), Some("A_1"));
        assert_eq!(entry.es, Some(0));
        assert_eq!(
            parsed.errors[0].to_string(),
            "d/job_log_a.org.txt:3:15: expected a number after \"ue\" \
             (uncorrected runtime estimate), found \"x\""
        );
    }
}

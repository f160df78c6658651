//! nom productions for the line frames of the text renderings: the time
//! stamps, the `[PROJECT]` tag, and the frames of stdoutdae.txt (both date
//! styles), the journald/syslog prefix, `boinccmd --get_messages` and the
//! emulator's log.txt (spec/formats-log.md §1.1, §1.2, §1.4, §7.1).
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//! Productions only split a line into (time, project, body); they never look
//! inside the body (that is `log_messages::classify`).
//!
//! Errors are [`FrameError`]s, which borrow the input and never allocate, so
//! trying a layout that does not match costs nothing but the comparison.
//! A production that fails on its first bytes returns `nom::Err::Error` (the
//! line is not in that layout; another may match). Once a time stamp's shape
//! has matched, the production is committed: impossible values (`31-Feb-2020`,
//! `25:61:00`) and a `[` with no closing `]` are `nom::Err::Failure`.

use crate::parse::text::{find_byte, FastSplit};
use crate::trace::EventTime;
use chrono::{NaiveDate, NaiveDateTime};
use nom::branch::alt;
use nom::bytes::complete::{tag, take_till1, take_while1, take_while_m_n};
use nom::character::complete::{char, digit1, space1};
use nom::combinator::{cut, opt};
use nom::error::{context, ContextError, ErrorKind};
use nom::sequence::{preceded, terminated};
use nom::IResult;

/// Label of a date or time whose shape matched but whose values are impossible.
pub const VALID_DATE_TIME: &str = "a valid date/time";
/// Label of the bracketed project group.
pub const PROJECT_TAG: &str = "project tag \"[name]\"";

/// A frame production's error: where it failed and what it wanted. Borrows the
/// line; never allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameError<'a> {
    /// The input where the labelled production started.
    pub at: &'a str,
    /// How many bytes of `at` to quote; 0 quotes the rest of the line.
    pub len: usize,
    /// The innermost `context(...)` label; `None` for an unlabelled failure.
    pub expected: Option<&'static str>,
}

impl<'a> FrameError<'a> {
    /// An error at `at`, quoting `len` bytes, wanting `expected`.
    pub fn new(at: &'a str, len: usize, expected: &'static str) -> Self {
        FrameError {
            at,
            len,
            expected: Some(expected),
        }
    }

    /// The text to quote after `found`.
    pub fn found(&self) -> &'a str {
        if self.len == 0 || self.len > self.at.len() {
            self.at
        } else {
            &self.at[..self.len]
        }
    }
}

impl<'a> nom::error::ParseError<&'a str> for FrameError<'a> {
    fn from_error_kind(input: &'a str, _kind: ErrorKind) -> Self {
        FrameError {
            at: input,
            len: 0,
            expected: None,
        }
    }

    fn append(_input: &'a str, _kind: ErrorKind, other: Self) -> Self {
        other
    }
}

impl<'a> ContextError<&'a str> for FrameError<'a> {
    /// Keeps the innermost label, placed where its production started.
    fn add_context(input: &'a str, ctx: &'static str, mut other: Self) -> Self {
        if other.expected.is_none() {
            other.expected = Some(ctx);
            other.at = input;
        }
        other
    }
}

/// Result of a frame production.
pub type PResult<'a, T> = IResult<&'a str, T, FrameError<'a>>;

/// One line split into its frame and body.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame<'a> {
    /// The time printed on the line.
    pub time: EventTime,
    /// The project named in the frame; `None` for general messages.
    pub project: Option<&'a str>,
    /// The text after the frame, verbatim (trailing blanks kept).
    pub body: &'a str,
    /// The priority the rendering prints (boinccmd's priority name), if any.
    pub priority: Option<u8>,
}

/// Date and clock fields as printed, before validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawStamp {
    /// Year (four digits).
    pub year: i32,
    /// Month 1–12; 0 for an unknown month name.
    pub month: u32,
    /// Day of the month.
    pub day: u32,
    /// Hour.
    pub hour: u32,
    /// Minute.
    pub minute: u32,
    /// Second.
    pub second: u32,
}

impl RawStamp {
    /// A stamp from (year, month, day) and (hour, minute, second).
    pub fn from_parts(date: (i32, u32, u32), clock: (u32, u32, u32)) -> Self {
        let ((year, month, day), (hour, minute, second)) = (date, clock);
        RawStamp {
            year,
            month,
            day,
            hour,
            minute,
            second,
        }
    }
}

/// Builds date-times from [`RawStamp`]s, remembering the last date so that the
/// thousands of lines of one day cost no calendar arithmetic.
#[derive(Clone, Debug, Default)]
pub struct DateCache {
    last: Option<((i32, u32, u32), NaiveDate)>,
    /// The last `DD-Mon-YYYY HH:MM:SS` stamp read by [`fast_frame`] and its
    /// date-time: the lines of one second (most of a debug log) share it.
    last_stamp: Option<([u8; 20], NaiveDateTime)>,
}

impl DateCache {
    /// The date-time of `raw`, or `None` when it does not exist.
    pub fn datetime(&mut self, raw: &RawStamp) -> Option<NaiveDateTime> {
        let key = (raw.year, raw.month, raw.day);
        let date = match self.last {
            Some((last_key, date)) if last_key == key => date,
            _ => {
                let date = NaiveDate::from_ymd_opt(raw.year, raw.month, raw.day)?;
                self.last = Some((key, date));
                date
            }
        };
        date.and_hms_opt(raw.hour, raw.minute, raw.second)
    }
}

/// Exactly `n` ASCII digits, as a number.
fn digits(n: usize) -> impl Fn(&str) -> PResult<'_, u32> {
    move |input| {
        let (rest, text) = take_while_m_n(n, n, |c: char| c.is_ascii_digit())(input)?;
        let value = text
            .bytes()
            .fold(0u32, |acc, byte| acc * 10 + u32::from(byte - b'0'));
        Ok((rest, value))
    }
}

/// `HH:MM:SS`, two digits each (values not checked).
pub fn clock(input: &str) -> PResult<'_, (u32, u32, u32)> {
    let (input, hour) = digits(2)(input)?;
    let (input, _) = char(':')(input)?;
    let (input, minute) = digits(2)(input)?;
    let (input, _) = char(':')(input)?;
    let (input, second) = digits(2)(input)?;
    Ok((input, (hour, minute, second)))
}

/// The English C-locale month abbreviation `Jan` … `Dec`: any `[A-Z][a-z]{2}`
/// matches the shape; an unknown name gives month 0 (an impossible date).
pub fn month_abbr(input: &str) -> PResult<'_, u32> {
    let bytes = input.as_bytes();
    if bytes.len() < 3
        || !bytes[0].is_ascii_uppercase()
        || !bytes[1].is_ascii_lowercase()
        || !bytes[2].is_ascii_lowercase()
    {
        return Err(nom::Err::Error(FrameError {
            at: input,
            len: 0,
            expected: None,
        }));
    }
    Ok((&input[3..], month_number(&input[..3])))
}

/// 1–12 for an English month abbreviation (case-insensitive), else 0.
pub fn month_number(name: &str) -> u32 {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    MONTHS
        .iter()
        .position(|month| month.eq_ignore_ascii_case(name))
        .map_or(0, |idx| idx as u32 + 1)
}

/// A date production followed by ` HH:MM:SS` (shape only).
fn date_then_clock<'a>(
    date: impl Fn(&'a str) -> PResult<'a, (i32, u32, u32)>,
) -> impl Fn(&'a str) -> PResult<'a, RawStamp> {
    move |input| {
        let (input, date) = date(input)?;
        let (input, _) = char(' ')(input)?;
        let (input, clock) = clock(input)?;
        Ok((input, RawStamp::from_parts(date, clock)))
    }
}

/// `DD-Mon-YYYY` as (year, month, day).
fn dmy_date(input: &str) -> PResult<'_, (i32, u32, u32)> {
    let (input, day) = digits(2)(input)?;
    let (input, _) = char('-')(input)?;
    let (input, month) = month_abbr(input)?;
    let (input, _) = char('-')(input)?;
    let (input, year) = digits(4)(input)?;
    Ok((input, (year as i32, month, day)))
}

/// `YYYY-MM-DD` as (year, month, day).
fn iso_date(input: &str) -> PResult<'_, (i32, u32, u32)> {
    let (input, year) = digits(4)(input)?;
    let (input, _) = char('-')(input)?;
    let (input, month) = digits(2)(input)?;
    let (input, _) = char('-')(input)?;
    let (input, day) = digits(2)(input)?;
    Ok((input, (year as i32, month, day)))
}

/// `DD-Mon-YYYY HH:MM:SS`, the stamp of stdoutdae.txt from 5.10.23 on, of
/// boinccmd and of the 6.10 emulator (shape only).
pub fn dmy_stamp(input: &str) -> PResult<'_, RawStamp> {
    date_then_clock(dmy_date)(input)
}

/// `YYYY-MM-DD HH:MM:SS`, the stamp of stdoutdae.txt up to 5.10.22 (shape only).
pub fn iso_stamp(input: &str) -> PResult<'_, RawStamp> {
    date_then_clock(iso_date)(input)
}

/// A stdoutdae time stamp in either date style, validated: a matched shape
/// with impossible values is a failure labelled [`VALID_DATE_TIME`] that
/// quotes the stamp.
pub fn timestamp<'a>(input: &'a str, dates: &mut DateCache) -> PResult<'a, NaiveDateTime> {
    let (rest, raw) = alt((dmy_stamp, iso_stamp))(input)?;
    validated(input, rest, dates.datetime(&raw))
}

/// Turns `value` into the production's result, or a committed
/// [`VALID_DATE_TIME`] failure quoting `start[..start.len() - rest.len()]`.
pub fn validated<'a, T>(start: &'a str, rest: &'a str, value: Option<T>) -> PResult<'a, T> {
    match value {
        Some(value) => Ok((rest, value)),
        None => Err(nom::Err::Failure(FrameError::new(
            start,
            start.len() - rest.len(),
            VALID_DATE_TIME,
        ))),
    }
}

/// The emulator's simulated time: `HH:MM:SS`, `1 day HH:MM:SS`,
/// `N days HH:MM:SS`; `24:00:00` is 86400 s. Returns whole seconds.
pub fn emulator_time(input: &str) -> PResult<'_, u64> {
    let start = input;
    let (input, days) = opt(terminated(digit1, alt((tag(" days "), tag(" day ")))))(input)?;
    let (rest, (hour, minute, second)) = clock(input)?;
    let days = match days {
        Some(text) => text.parse::<u64>().ok(),
        None => Some(0),
    };
    let secs = days
        .filter(|_| hour <= 24 && minute < 60 && second < 60)
        .filter(|_| hour < 24 || (minute == 0 && second == 0))
        .and_then(|days| days.checked_mul(86_400))
        .map(|day_secs| day_secs + u64::from(hour * 3600 + minute * 60 + second));
    validated(start, rest, secs)
}

/// `[PROJECT]`: the name runs to the first `] ` (or a `]` ending the line);
/// `---` and the empty name mean no project. Committed once `[` is seen.
pub fn project_tag(input: &str) -> PResult<'_, Option<&str>> {
    let Some(inner) = input.strip_prefix('[') else {
        return Err(nom::Err::Error(FrameError::new(input, 0, PROJECT_TAG)));
    };
    let end = match inner.find_fast("] ") {
        Some(end) => end,
        None if inner.ends_with(']') => inner.len() - 1,
        None => return Err(nom::Err::Failure(FrameError::new(input, 0, PROJECT_TAG))),
    };
    Ok((&inner[end + 1..], project_name(&inner[..end])))
}

/// `None` for the no-project spellings (`---`, empty), else the name.
pub fn project_name(name: &str) -> Option<&str> {
    match name {
        "" | "---" => None,
        name => Some(name),
    }
}

/// What follows a time stamp: ` [PROJECT] BODY`, ` BODY` (7.x `Initialization
/// completed`, no bracket) or nothing. Returns the project and the body.
pub fn after_stamp(input: &str) -> PResult<'_, (Option<&str>, &str)> {
    if input.is_empty() {
        return Ok((input, (None, input)));
    }
    // A tab after the time is a 6.x Manager copy's separator: that
    // layout's line (tried next), not a broken line of this one.
    let (input, _) = nom::combinator::not(char('\t'))(input)?;
    let (input, _) = context("a space after the time", cut(char(' ')))(input)?;
    // A Manager copy's separator: that layout's line, not this one's body.
    let (input, _) = nom::combinator::not(nom::character::complete::one_of("|\t"))(input)?;
    if !input.starts_with('[') {
        return Ok(("", (None, input)));
    }
    let (rest, project) = project_tag(input)?;
    let body = rest.strip_prefix(' ').unwrap_or(rest);
    Ok(("", (project, body)))
}

/// The frame of a line whose time is `time` and whose text after the stamp
/// is `rest`.
fn frame_after(time: EventTime, rest: &str) -> PResult<'_, Frame<'_>> {
    let (rest, (project, body)) = after_stamp(rest)?;
    Ok((
        rest,
        Frame {
            time,
            project,
            body,
            priority: None,
        },
    ))
}

/// A stdoutdae.txt / console line: `DD-Mon-YYYY HH:MM:SS [PROJECT] BODY` or
/// `YYYY-MM-DD HH:MM:SS [PROJECT] BODY`.
pub fn stdoutdae_line<'a>(line: &'a str, dates: &mut DateCache) -> PResult<'a, Frame<'a>> {
    let (rest, datetime) = timestamp(line, dates)?;
    frame_after(EventTime::Local(datetime), rest)
}

/// An emulator log.txt line: `TIME [PROJECT] BODY` with simulated time.
pub fn emulator_line(line: &str) -> PResult<'_, Frame<'_>> {
    let (rest, secs) = emulator_time(line)?;
    frame_after(EventTime::Simulated(secs), rest)
}

/// The prefix journald and syslog add: `Apr 14 20:57:36 HOST IDENT[PID]: `
/// (also `journalctl -o short-iso`: `2021-04-14T20:57:36+0200 HOST IDENT: `).
pub fn journald_prefix(input: &str) -> PResult<'_, ()> {
    let short = |input| {
        let (input, _) = month_abbr(input)?;
        let (input, _) = space1(input)?;
        let (input, _) = take_while_m_n(1, 2, |c: char| c.is_ascii_digit())(input)?;
        let (input, _) = char(' ')(input)?;
        clock(input)
    };
    let iso = |input| {
        let (input, _) = digits(4)(input)?;
        let (input, _) = char('-')(input)?;
        let (input, _) = digits(2)(input)?;
        let (input, _) = char('-')(input)?;
        let (input, _) = digits(2)(input)?;
        let (input, _) = char('T')(input)?;
        let (input, clock) = clock(input)?;
        let (input, _) = opt(take_till1(|c: char| c == ' '))(input)?;
        Ok((input, clock))
    };
    let (input, _) = alt((short, iso))(input)?;
    let (input, _) = char(' ')(input)?;
    let (input, _) = take_till1(|c: char| c == ' ')(input)?;
    let (input, _) = char(' ')(input)?;
    let (input, _) = take_while1(|c: char| c != ':' && c != ' ')(input)?;
    let (input, _) = tag(": ")(input)?;
    Ok((input, ()))
}

/// A journald/syslog line: the prefix, then a stdoutdae line. Other output of
/// the process behind the prefix is a body without time or project.
pub fn journald_line<'a>(line: &'a str, dates: &mut DateCache) -> PResult<'a, Frame<'a>> {
    let (rest, ()) = journald_prefix(line)?;
    match stdoutdae_line(rest, dates) {
        Err(nom::Err::Error(_)) => Ok((
            "",
            Frame {
                time: EventTime::None,
                project: None,
                body: rest,
                priority: None,
            },
        )),
        other => other,
    }
}

/// `boinccmd --get_messages` (6.6 on):
/// `SEQ: DD-Mon-YYYY HH:MM:SS (PRIORITY) [PROJECT] BODY`, `[]` = no project.
/// The priority name is kept as its number (see [`priority_number`]).
pub fn boinccmd_line<'a>(line: &'a str, dates: &mut DateCache) -> PResult<'a, Frame<'a>> {
    let (input, _) = terminated(digit1, tag(": "))(line)?;
    let (rest, raw) = dmy_stamp(input)?;
    let (rest, datetime) = validated(input, rest, dates.datetime(&raw))?;
    let (rest, priority) = preceded(
        tag(" ("),
        terminated(take_till1(|c: char| c == ')'), char(')')),
    )(rest)?;
    let (rest, mut frame) = frame_after(EventTime::Local(datetime), rest)?;
    frame.priority = priority_number(priority);
    Ok((rest, frame))
}

/// The number behind a boinccmd priority name (spec §1.4): `low` 1,
/// `user notification` 2, `internal error` 3, and the 2009-02..2010-06 names
/// `medium` 2, `high` 3; `None` for `unknown` and anything else.
pub fn priority_number(name: &str) -> Option<u8> {
    match name {
        "low" => Some(1),
        "user notification" | "medium" => Some(2),
        "internal error" | "high" => Some(3),
        _ => None,
    }
}

/// Which fast-path stamp matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastStamp {
    /// `DD-Mon-YYYY HH:MM:SS` (stdoutdae.txt, the 6.10 emulator).
    DayMonthYear,
    /// The emulator's simulated time.
    Emulator,
}

/// The frame of the two stamps that make up nearly every line
/// (`DD-Mon-YYYY HH:MM:SS [P] body`, emulator `[N day(s) ]HH:MM:SS [P] body`),
/// read byte by byte without nom. `None` whenever anything is unusual (other
/// layouts, impossible values, odd brackets): the nom productions then decide,
/// and report errors. Must agree with [`stdoutdae_line`] and [`emulator_line`]
/// on every line it accepts.
#[inline]
pub fn fast_frame<'a>(line: &'a str, dates: &mut DateCache) -> Option<(FastStamp, Frame<'a>)> {
    let bytes = line.as_bytes();
    let digit = |idx: usize| -> Option<u32> {
        let byte = *bytes.get(idx)?;
        byte.is_ascii_digit().then(|| u32::from(byte - b'0'))
    };
    let two = |idx: usize| Some(digit(idx)? * 10 + digit(idx + 1)?);
    let clock_at = |idx: usize| clock_word(bytes.get(idx..)?);
    let (stamp, time, after) = if bytes.get(2) == Some(&b'-') {
        if bytes.get(6) != Some(&b'-') || bytes.get(11) != Some(&b' ') {
            return None;
        }
        let same_stamp = match (&dates.last_stamp, bytes.get(..20)) {
            (Some((last, datetime)), Some(head)) if head == last => Some(*datetime),
            _ => None,
        };
        if let Some(datetime) = same_stamp {
            return after_fast_stamp(
                line,
                FastStamp::DayMonthYear,
                EventTime::Local(datetime),
                20,
            );
        }
        let (hour, minute, second) = clock_at(12)?;
        let month = match bytes.get(3..6)? {
            [upper, lower1, lower2]
                if upper.is_ascii_uppercase()
                    && lower1.is_ascii_lowercase()
                    && lower2.is_ascii_lowercase() =>
            {
                month_number(&line[3..6])
            }
            _ => return None,
        };
        let year = (two(7)? * 100 + two(9)?) as i32;
        let raw = RawStamp::from_parts((year, month, two(0)?), (hour, minute, second));
        let datetime = dates.datetime(&raw)?;
        if let Some(head) = bytes
            .get(..20)
            .and_then(|head| <[u8; 20]>::try_from(head).ok())
        {
            dates.last_stamp = Some((head, datetime));
        }
        (FastStamp::DayMonthYear, EventTime::Local(datetime), 20)
    } else {
        let digits = || {
            bytes
                .iter()
                .take_while(|byte| byte.is_ascii_digit())
                .count()
        };
        let (days, clock_start) = if bytes.get(2) == Some(&b':') {
            // The first day's `HH:MM:SS` (its digits checked with the clock).
            (0u64, 0)
        } else if let digits @ 1..10 = digits() {
            if bytes.get(digits..digits + 4)? != b" day" {
                return None;
            }
            let skip = if bytes.get(digits + 4) == Some(&b's') {
                5
            } else {
                4
            };
            if bytes.get(digits + skip) != Some(&b' ') {
                return None;
            }
            (line[..digits].parse().ok()?, digits + skip + 1)
        } else {
            return None;
        };
        let (hour, minute, second) = clock_at(clock_start)?;
        if minute >= 60 || second >= 60 || hour > 24 || (hour == 24 && minute + second > 0) {
            return None;
        }
        let secs = days * 86_400 + u64::from(hour * 3600 + minute * 60 + second);
        (
            FastStamp::Emulator,
            EventTime::Simulated(secs),
            clock_start + 8,
        )
    };
    after_fast_stamp(line, stamp, time, after)
}

/// `HH:MM:SS` at the start of `bytes`, read as one little-endian word:
/// `None` unless its six digits are ASCII digits and its two colons are
/// there (the values are checked by the caller).
#[inline]
fn clock_word(bytes: &[u8]) -> Option<(u32, u32, u32)> {
    /// The digit bytes: 0, 1, 3, 4, 6, 7.
    const DIGITS: u64 = 0xFFFF_00FF_FF00_FFFF;
    const COLONS: u64 = 0x0000_3A00_003A_0000;
    const HIGH_NIBBLES: u64 = 0xF0F0_00F0_F000_F0F0;
    const ZEROS: u64 = 0x3030_0030_3000_3030;
    const SIXES: u64 = 0x0606_0006_0600_0606;
    let word = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
    if word & !DIGITS != COLONS {
        return None;
    }
    let digits = word & DIGITS;
    // 0x30..=0x39: the high nibble is 3, and still 3 after adding 6 (no
    // byte can carry into the next: each is at most 0x3f + 6).
    if digits & HIGH_NIBBLES != ZEROS || (digits + SIXES) & HIGH_NIBBLES != ZEROS {
        return None;
    }
    let value = digits & 0x0F0F_000F_0F00_0F0F;
    let byte = |at: u32| ((value >> (8 * at)) & 0xFF) as u32;
    Some((
        byte(0) * 10 + byte(1),
        byte(3) * 10 + byte(4),
        byte(6) * 10 + byte(7),
    ))
}

/// The rest of [`fast_frame`] once the stamp (ending at byte `after`) is read.
#[inline]
fn after_fast_stamp(
    line: &str,
    stamp: FastStamp,
    time: EventTime,
    after: usize,
) -> Option<(FastStamp, Frame<'_>)> {
    let rest = line.get(after..)?;
    let (project, body) = match rest.as_bytes() {
        [] => (None, rest),
        [b' ', b'[', ..] => {
            let inner = &rest[2..];
            let mut from = 0;
            loop {
                let close = from + find_byte(&inner.as_bytes()[from..], b']')?;
                match inner.as_bytes().get(close + 1) {
                    None => break (project_name(&inner[..close]), ""),
                    Some(b' ') => break (project_name(&inner[..close]), &inner[close + 2..]),
                    Some(_) => from = close + 1,
                }
            }
        }
        [b' ', ..] => (None, &rest[1..]),
        _ => return None,
    };
    Some((
        stamp,
        Frame {
            time,
            project,
            body,
            priority: None,
        },
    ))
}

/// A local time for tests, from its six fields.
#[cfg(test)]
pub(crate) fn local(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> EventTime {
    EventTime::Local(
        NaiveDate::from_ymd_opt(y, mo, d)
            .and_then(|date| date.and_hms_opt(h, mi, s))
            .expect("valid test date"),
    )
}

/// Asserts that a frame production matched with these parts.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_frame(
    result: PResult<'_, Frame<'_>>,
    time: EventTime,
    project: Option<&str>,
    body: &str,
) {
    let (_, frame) = result.expect("the line should frame");
    assert_eq!(
        (frame.time, frame.project, frame.body),
        (time, project, body)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(result: PResult<'_, impl std::fmt::Debug>) -> (String, &'static str) {
        match result {
            Err(nom::Err::Failure(err)) => (err.found().to_string(), err.expected.unwrap_or("")),
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn clock_word_reads_only_digits_and_colons() {
        assert_eq!(clock_word(b"01:00:00 [A]"), Some((1, 0, 0)));
        assert_eq!(clock_word(b"23:59:59"), Some((23, 59, 59)));
        assert_eq!(clock_word(b"99:99:99"), Some((99, 99, 99)));
        for bad in [
            &b"01:00:0"[..],
            b"0a:00:00",
            b"01:00:/0",
            b"01:00::0",
            b"01.00:00",
            b"01:00 00",
            b"\xb0\xb1:00:00",
            b"01:00:\x3a0",
        ] {
            assert_eq!(clock_word(bad), None, "{bad:?}");
        }
        // Every byte in each digit place: accepted exactly for 0-9.
        for place in [0, 1, 3, 4, 6, 7] {
            for b in 0..=255u8 {
                let mut text = *b"12:34:56";
                text[place] = b;
                assert_eq!(
                    clock_word(&text).is_some(),
                    b.is_ascii_digit(),
                    "{place} {b}"
                );
            }
        }
    }

    #[test]
    fn dmy_stamp_fields() {
        let (rest, raw) = dmy_stamp("14-Apr-2021 20:57:36 [x]").unwrap();
        assert_eq!(rest, " [x]");
        assert_eq!(
            raw,
            RawStamp {
                year: 2021,
                month: 4,
                day: 14,
                hour: 20,
                minute: 57,
                second: 36
            }
        );
        assert!(dmy_stamp("14-apr-2021 20:57:36").is_err());
        assert!(dmy_stamp("4-Apr-2021 20:57:36").is_err());
    }

    #[test]
    fn timestamp_both_styles_and_impossible_dates() {
        let mut dates = DateCache::default();
        let (_, dt) = timestamp("2007-02-06 19:23:42 [---] x", &mut dates).unwrap();
        assert_eq!(EventTime::Local(dt), local(2007, 2, 6, 19, 23, 42));
        let (_, dt) = timestamp("01-Jan-2000 00:00:00", &mut dates).unwrap();
        assert_eq!(EventTime::Local(dt), local(2000, 1, 1, 0, 0, 0));
        assert_eq!(
            failure(timestamp("31-Feb-2020 10:00:00 [---] x", &mut dates)),
            ("31-Feb-2020 10:00:00".to_string(), VALID_DATE_TIME)
        );
        assert_eq!(
            failure(timestamp("14-Apr-2021 25:61:00 [---] x", &mut dates)).0,
            "14-Apr-2021 25:61:00"
        );
        assert_eq!(
            failure(timestamp("14-Foo-2021 10:00:00", &mut dates)).0,
            "14-Foo-2021 10:00:00"
        );
        // Not a stamp at all: a recoverable error.
        assert!(matches!(
            timestamp("Initialization completed", &mut dates),
            Err(nom::Err::Error(_))
        ));
    }

    #[test]
    fn date_cache_reuses_and_rejects() {
        let mut dates = DateCache::default();
        let raw = RawStamp {
            year: 2020,
            month: 2,
            day: 29,
            hour: 23,
            minute: 59,
            second: 59,
        };
        assert!(dates.datetime(&raw).is_some());
        assert!(dates.datetime(&raw).is_some());
        assert!(dates.datetime(&RawStamp { hour: 24, ..raw }).is_none());
        assert!(dates.datetime(&RawStamp { year: 2021, ..raw }).is_none());
    }

    #[test]
    fn emulator_time_forms() {
        assert_eq!(emulator_time("00:00:00 [---]").unwrap(), (" [---]", 0));
        assert_eq!(emulator_time("01:00:00").unwrap().1, 3600);
        assert_eq!(emulator_time("24:00:00").unwrap().1, 86_400);
        assert_eq!(emulator_time("1 day 00:04:00").unwrap().1, 86_640);
        assert_eq!(
            emulator_time("2 days 13:20:05").unwrap().1,
            2 * 86_400 + 48_005
        );
        assert_eq!(failure(emulator_time("25:61:00 x")).0, "25:61:00");
        assert_eq!(failure(emulator_time("24:00:01")).0, "24:00:01");
        assert!(matches!(emulator_time("x"), Err(nom::Err::Error(_))));
    }

    #[test]
    fn project_tag_forms() {
        assert_eq!(project_tag("[---] x").unwrap(), (" x", None));
        assert_eq!(project_tag("[] x").unwrap(), (" x", None));
        assert_eq!(
            project_tag("[SETI@home Beta Test] x").unwrap(),
            (" x", Some("SETI@home Beta Test"))
        );
        assert_eq!(
            project_tag("[http://setiathome.berkeley.edu/] Fetching").unwrap(),
            (" Fetching", Some("http://setiathome.berkeley.edu/"))
        );
        assert_eq!(project_tag("[P1]").unwrap(), ("", Some("P1")));
        assert_eq!(
            failure(project_tag("[World Community Grid Reporting")),
            ("[World Community Grid Reporting".to_string(), PROJECT_TAG)
        );
    }

    #[test]
    fn stdoutdae_frames() {
        let mut dates = DateCache::default();
        assert_frame(
            stdoutdae_line(
                "16-Nov-2010 13:10:20 [---] [error] Deleting file arecibo_181.png while in use",
                &mut dates,
            ),
            local(2010, 11, 16, 13, 10, 20),
            None,
            "[error] Deleting file arecibo_181.png while in use",
        );
        assert_frame(
            stdoutdae_line(
                "05-Mar-2013 10:00:00 [World Community Grid] [work_fetch] share 1.000  ",
                &mut dates,
            ),
            local(2013, 3, 5, 10, 0, 0),
            Some("World Community Grid"),
            "[work_fetch] share 1.000  ",
        );
        assert_frame(
            stdoutdae_line("05-Mar-2013 10:00:01 Initialization completed", &mut dates),
            local(2013, 3, 5, 10, 0, 1),
            None,
            "Initialization completed",
        );
        assert_frame(
            stdoutdae_line("05-Mar-2013 10:00:01 [---]", &mut dates),
            local(2013, 3, 5, 10, 0, 1),
            None,
            "",
        );
        let err = failure(stdoutdae_line("05-Mar-2013 10:00:01x", &mut dates));
        assert_eq!(err, ("x".to_string(), "a space after the time"));
    }

    #[test]
    fn fast_path_agrees_with_the_grammar() {
        let lines = [
            "14-Apr-2021 20:57:36 [World Community Grid] Reporting 1 completed tasks",
            "14-Apr-2021 20:57:36 [---] [work_fetch] share 1.000  ",
            "14-Apr-2021 20:57:36 Initialization completed",
            "14-Apr-2021 20:57:36 [---]",
            "14-Apr-2021 20:57:36",
            "14-Apr-2021 20:57:36 [a]b] c",
            "14-Apr-2021 20:57:36 [x] [y] z",
            "31-Feb-2020 10:00:00 [---] x",
            "14-Foo-2021 10:00:00 [---] x",
            "14-Apr-2021 20:57:36x",
            "14-Apr-2021 20:57:36 [unclosed",
            "00:00:00 [---] log flags: file_xfer",
            "24:00:00 [P1] [prio] x",
            "24:00:01 [P1] [prio] x",
            "1 day 00:04:00 [P1] x",
            "12 days 23:59:59 [---] x",
            "1 dayz 00:04:00 [P1] x",
            "25:61:00 [---] x",
            "2007-02-06 19:23:42 [---] x",
            "plain continuation",
            "",
        ];
        for line in lines {
            let mut dates = DateCache::default();
            let Some((stamp, fast)) = fast_frame(line, &mut dates) else {
                continue;
            };
            let slow = match stamp {
                FastStamp::DayMonthYear => stdoutdae_line(line, &mut dates),
                FastStamp::Emulator => emulator_line(line),
            };
            assert_eq!(slow.map(|(_, frame)| frame), Ok(fast), "{line}");
        }
        let mut dates = DateCache::default();
        assert!(fast_frame("31-Feb-2020 10:00:00 [---] x", &mut dates).is_none());
        assert!(fast_frame("14-Apr-2021 20:57:36 [unclosed", &mut dates).is_none());
        assert!(fast_frame("1 day 00:04:00 [P1] x", &mut dates).is_some());
    }

    proptest::proptest! {
        /// Stamps near the accepted shapes (digits, colons and separators
        /// shuffled): whatever the fast path accepts, the grammar reads the
        /// same.
        #[test]
        fn fast_path_agrees_with_the_grammar_on_near_stamps(
            line in "(([0-9]{1,3} days? )?|[0-3][0-9]-(Jan|Feb|Apr|apr)-20[0-9]{2} )([0-2][0-9]:[0-6][0-9]:[0-6][0-9]|[0-9:]{8}|[0-9:. a]{6,9})( \\[[A-Za-z\\] ]{0,6}\\])?( [a-z\\[\\]]{0,6})?",
        ) {
            let mut dates = DateCache::default();
            if let Some((stamp, fast)) = fast_frame(&line, &mut dates) {
                let slow = match stamp {
                    FastStamp::DayMonthYear => stdoutdae_line(&line, &mut dates),
                    FastStamp::Emulator => emulator_line(&line),
                };
                proptest::prop_assert_eq!(slow.map(|(_, frame)| frame), Ok(fast), "{}", line);
            }
        }
    }

    #[test]
    fn emulator_frames() {
        assert_frame(
            emulator_line("1 day 00:04:00 [P1] [prio] recent est credit: 2.22G"),
            EventTime::Simulated(86_640),
            Some("P1"),
            "[prio] recent est credit: 2.22G",
        );
    }

    #[test]
    fn journald_prefix_and_line() {
        let mut dates = DateCache::default();
        let line = "Apr 14 20:57:36 yorktown.both.org boinc[1389]: 14-Apr-2021 20:57:36 \
                    [World Community Grid] Reporting 1 completed tasks";
        assert_frame(
            journald_line(line, &mut dates),
            local(2021, 4, 14, 20, 57, 36),
            Some("World Community Grid"),
            "Reporting 1 completed tasks",
        );
        let (rest, ()) = journald_prefix("2021-04-14T20:57:36+0200 host boinc[7]: hello").unwrap();
        assert_eq!(rest, "hello");
        let (rest, ()) = journald_prefix("Apr  4 01:02:03 h boinc: x").unwrap();
        assert_eq!(rest, "x");
        assert_frame(
            journald_line("Apr 14 20:57:30 h systemd[1]: Started BOINC.", &mut dates),
            EventTime::None,
            None,
            "Started BOINC.",
        );
    }

    #[test]
    fn boinccmd_frames() {
        let mut dates = DateCache::default();
        assert_frame(
            boinccmd_line(
                "123: 17-Apr-2019 09:43:33 (low) [Einstein@Home] Requesting new tasks for CPU",
                &mut dates,
            ),
            local(2019, 4, 17, 9, 43, 33),
            Some("Einstein@Home"),
            "Requesting new tasks for CPU",
        );
        assert_frame(
            boinccmd_line(
                "7: 17-Apr-2019 09:43:33 (internal error) [] [error] x",
                &mut dates,
            ),
            local(2019, 4, 17, 9, 43, 33),
            None,
            "[error] x",
        );
        let err = failure(boinccmd_line(
            "1: 30-Feb-2019 09:43:33 (low) [] x",
            &mut dates,
        ));
        assert_eq!(err.0, "30-Feb-2019 09:43:33");
    }

    #[test]
    fn boinccmd_priority_names_become_numbers() {
        let mut dates = DateCache::default();
        for (name, number) in [
            ("low", Some(1)),
            ("user notification", Some(2)),
            ("internal error", Some(3)),
            ("medium", Some(2)),
            ("high", Some(3)),
            ("unknown", None),
        ] {
            let line = format!("5: 17-Apr-2019 09:43:33 ({name}) [] x");
            let (_, frame) = boinccmd_line(&line, &mut dates).expect("frames");
            assert_eq!(frame.priority, number, "{name}");
        }
        let (_, frame) =
            stdoutdae_line("17-Apr-2019 09:43:33 [---] x", &mut dates).expect("frames");
        assert_eq!(frame.priority, None);
    }
}

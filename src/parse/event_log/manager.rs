//! Text copied out of the BOINC Manager (spec/formats-log.md §1.5):
//! `TIME | PROJECT | BODY` (6.12 on) and `TIME<TAB>PROJECT<TAB>BODY` (6.x),
//! where TIME is the user's locale rendering of the date.
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! The date parser is token based, so it reads the locale forms seen in the
//! wild without being told which one: `Fri 24 Apr 2015 10:11:09 PM EDT`,
//! `Fri Apr 24 22:11:09 2015`, `2024/12/20 12:40:47`, `17/04/2019 09:43:32`,
//! `4/18/2022 12:50:30 PM`, `24.04.2015 22:11:09`. Weekday names and zone
//! abbreviations are skipped (the zone is not applied: times stay local).
//!
//! Day/month order of numeric dates (`4/8/2022`), with [`DateOrder::Auto`]:
//! 1. before reading, the head of the file (what the reader has buffered, up
//!    to 256 KiB) is scanned: the first date whose first field is above 12
//!    makes the file day-first, one whose second field is above 12 makes it
//!    month-first;
//! 2. if the head does not decide, each line uses the default: month-first for
//!    12-hour (AM/PM) times, day-first for 24-hour times;
//! 3. if a later line can only be read the other way, the file switches order
//!    from there on, with a warning (earlier ambiguous dates may be wrong).
//!
//! An explicit [`DateOrder::DayFirst`] / [`DateOrder::MonthFirst`] is never
//! second-guessed: a date impossible in that order is an error.
//! Year-first dates (`2024/12/20`) are always year/month/day.

use super::frame::{validated, DateCache, Frame, PResult, RawStamp};
use super::DateOrder;
use crate::trace::EventTime;
use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case, take_while1, take_while_m_n};
use nom::character::complete::{char, one_of};
use nom::combinator::{opt, recognize};
use nom::error::context;
use nom::sequence::tuple;

/// A numeric date `A/B/C` (also `-` or `.` separated), before its order is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumericDate {
    /// First field.
    pub first: u32,
    /// Digits in the first field (4 = year first).
    pub first_len: usize,
    /// Second field.
    pub second: u32,
    /// Third field.
    pub third: u32,
    /// Digits in the third field (2 = two-digit year).
    pub third_len: usize,
}

/// The pieces of a locale time stamp, as found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StampParts {
    /// A numeric date, if the stamp has one.
    pub numeric: Option<NumericDate>,
    /// A bare day number (with a month name).
    pub day: Option<u32>,
    /// A month name's number.
    pub month: Option<u32>,
    /// A bare four-digit year.
    pub year: Option<i32>,
    /// `H:MM:SS`.
    pub clock: Option<(u32, u32, u32)>,
    /// `Some(true)` for PM, `Some(false)` for AM, `None` for a 24-hour clock.
    pub pm: Option<bool>,
}

/// One token of a locale stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Clock(u32, u32, u32),
    Numeric(NumericDate),
    Number(u32, usize),
    Meridiem(bool),
    Month(u32),
    Other,
}

fn number(input: &str) -> PResult<'_, (u32, usize)> {
    let (rest, text) = take_while_m_n(1, 4, |c: char| c.is_ascii_digit())(input)?;
    let value = text
        .bytes()
        .fold(0u32, |acc, byte| acc * 10 + u32::from(byte - b'0'));
    Ok((rest, (value, text.len())))
}

/// `H:MM:SS` or `HH:MM:SS`.
fn clock_token(input: &str) -> PResult<'_, Token> {
    let (input, hour) = take_while_m_n(1, 2, |c: char| c.is_ascii_digit())(input)?;
    let (input, _) = char(':')(input)?;
    // `MM:SS` has the shape of a clock's first two fields.
    let (rest, (minute, second)) = nom::sequence::separated_pair(
        take_while_m_n(2, 2, |c: char| c.is_ascii_digit()),
        char(':'),
        take_while_m_n(2, 2, |c: char| c.is_ascii_digit()),
    )(input)?;
    let value = |text: &str| text.parse::<u32>().unwrap_or(0);
    Ok((
        rest,
        Token::Clock(value(hour), value(minute), value(second)),
    ))
}

/// `A/B/C`, `A-B-C`, `A.B.C` (optionally ending in `.`).
fn numeric_date(input: &str) -> PResult<'_, Token> {
    let (input, (first, first_len)) = number(input)?;
    let (input, separator) = one_of("/-.")(input)?;
    let (input, (second, _)) = number(input)?;
    let (input, _) = char(separator)(input)?;
    let (input, (third, third_len)) = number(input)?;
    let (input, _) = opt(char('.'))(input)?;
    Ok((
        input,
        Token::Numeric(NumericDate {
            first,
            first_len,
            second,
            third,
            third_len,
        }),
    ))
}

fn meridiem(input: &str) -> PResult<'_, Token> {
    let (rest, text) = alt((
        tag_no_case("a.m."),
        tag_no_case("p.m."),
        tag_no_case("am"),
        tag_no_case("pm"),
        // Chinese, Japanese and Korean locales, before the clock.
        alt((
            tag("上午"),
            tag("下午"),
            tag("午前"),
            tag("午後"),
            tag("오전"),
            tag("오후"),
        )),
    ))(input)?;
    if rest.starts_with(|c: char| c.is_alphanumeric()) {
        return Err(nom::Err::Error(super::frame::FrameError {
            at: input,
            len: 0,
            expected: None,
        }));
    }
    let pm = text.starts_with(['p', 'P']) || ["下午", "午後", "오후"].contains(&text);
    Ok((rest, Token::Meridiem(pm)))
}

/// A word: a month name or something skipped (weekday, zone abbreviation,
/// era mark).
fn word(input: &str) -> PResult<'_, Token> {
    let (rest, text) = recognize(tuple((
        take_while1(|c: char| c.is_alphabetic()),
        opt(one_of(".,")),
    )))(input)?;
    let month = locale_month(text);
    Ok((
        rest,
        if month > 0 {
            Token::Month(month)
        } else {
            Token::Other
        },
    ))
}

/// Month names, January first, in the languages BOINC's Manager is most
/// often run in (the dates come from the user's locale, `%c`/`%x`): English,
/// German, French, Spanish, Italian, Dutch, Portuguese, Swedish, Polish and
/// Russian (genitive, as dates print them).
const MONTH_NAMES: [[&str; 12]; 10] = [
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ],
    [
        "januar",
        "februar",
        "märz",
        "april",
        "mai",
        "juni",
        "juli",
        "august",
        "september",
        "oktober",
        "november",
        "dezember",
    ],
    [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
    [
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ],
    [
        "gennaio",
        "febbraio",
        "marzo",
        "aprile",
        "maggio",
        "giugno",
        "luglio",
        "agosto",
        "settembre",
        "ottobre",
        "novembre",
        "dicembre",
    ],
    [
        "januari",
        "februari",
        "maart",
        "april",
        "mei",
        "juni",
        "juli",
        "augustus",
        "september",
        "oktober",
        "november",
        "december",
    ],
    [
        "janeiro",
        "fevereiro",
        "março",
        "abril",
        "maio",
        "junho",
        "julho",
        "agosto",
        "setembro",
        "outubro",
        "novembro",
        "dezembro",
    ],
    [
        "januari",
        "februari",
        "mars",
        "april",
        "maj",
        "juni",
        "juli",
        "augusti",
        "september",
        "oktober",
        "november",
        "december",
    ],
    [
        "stycznia",
        "lutego",
        "marca",
        "kwietnia",
        "maja",
        "czerwca",
        "lipca",
        "sierpnia",
        "września",
        "października",
        "listopada",
        "grudnia",
    ],
    [
        "января",
        "февраля",
        "марта",
        "апреля",
        "мая",
        "июня",
        "июля",
        "августа",
        "сентября",
        "октября",
        "ноября",
        "декабря",
    ],
];

/// Abbreviations that are no prefix of their month's name.
const MONTH_ABBREVIATIONS: [(&str, u32); 2] = [("mrt", 3), ("май", 5)];

/// 1-12 for a month's name or abbreviation in one of [`MONTH_NAMES`]'
/// languages (case-insensitive; at least three letters, and a prefix of
/// one month only: `jui` is June or July in French), else 0.
fn locale_month(name: &str) -> u32 {
    let name = name.trim_end_matches(['.', ',']).to_lowercase();
    if name.chars().count() < 3 {
        return 0;
    }
    if let Some(&(_, month)) = MONTH_ABBREVIATIONS.iter().find(|(abbr, _)| *abbr == name) {
        return month;
    }
    let mut found = 0;
    for names in &MONTH_NAMES {
        for (k, full) in names.iter().enumerate() {
            if full.starts_with(name.as_str()) {
                let month = k as u32 + 1;
                if found != 0 && found != month {
                    return 0;
                }
                found = month;
            }
        }
    }
    found
}

/// A year-first date whose fields are spaced or marked: `2024. 12. 20.`
/// (Hungarian, Korean) and `2024年12月20日` / `2024년 12월 20일` (Chinese,
/// Japanese, Korean).
fn year_first_date(input: &str) -> PResult<'_, Token> {
    let field = |marks: &'static [char]| {
        move |input| {
            let (input, (value, len)) = number(input)?;
            let (input, _) = one_of(marks)(input)?;
            let (input, _) = nom::character::complete::space0(input)?;
            Ok((input, (value, len)))
        }
    };
    let (rest, ((year, 4), (month, _), (day, day_len))) = alt((
        tuple((field(&['.']), field(&['.']), |input| {
            let (input, value) = number(input)?;
            let (input, _) = opt(char('.'))(input)?;
            Ok((input, value))
        })),
        tuple((field(&['年', '년']), field(&['月', '월']), |input| {
            let (input, value) = number(input)?;
            let (input, _) = one_of("日일")(input)?;
            Ok((input, value))
        })),
    ))(input)?
    else {
        return Err(nom::Err::Error(super::frame::FrameError::new(
            input,
            0,
            "a year-first date",
        )));
    };
    Ok((
        rest,
        Token::Numeric(NumericDate {
            first: year,
            first_len: 4,
            second: month,
            third: day,
            third_len: day_len,
        }),
    ))
}

fn stamp_token(input: &str) -> PResult<'_, Token> {
    alt((
        year_first_date,
        clock_token,
        numeric_date,
        |input| {
            let (rest, (value, len)) = number(input)?;
            let (rest, _) = opt(one_of(".,"))(rest)?;
            Ok((rest, Token::Number(value, len)))
        },
        meridiem,
        word,
    ))(input)
}

/// A locale time stamp: tokens separated by blanks (or `, `); needs a date
/// and a clock, and must use the whole field. Shape only.
pub fn manager_stamp(input: &str) -> PResult<'_, StampParts> {
    let mut parts = StampParts::default();
    let mut rest = input.trim_start();
    while !rest.is_empty() {
        let (after, token) = context("a date and time", stamp_token)(rest)?;
        if !(after.is_empty() || after.starts_with(' ')) {
            return Err(nom::Err::Error(super::frame::FrameError::new(
                after,
                0,
                "a date and time",
            )));
        }
        match token {
            Token::Clock(h, m, s) => parts.clock = Some((h, m, s)),
            Token::Numeric(date) => parts.numeric = Some(date),
            Token::Number(value, 4) => parts.year = Some(value as i32),
            Token::Number(value, _) => parts.day = Some(value),
            Token::Meridiem(pm) => parts.pm = Some(pm),
            Token::Month(month) => parts.month = Some(month),
            Token::Other => {}
        }
        rest = after.trim_start();
    }
    let has_date = parts.numeric.is_some()
        || (parts.day.is_some() && parts.month.is_some() && parts.year.is_some());
    if parts.clock.is_none() || !has_date {
        return Err(nom::Err::Error(super::frame::FrameError::new(
            input,
            0,
            "a date and time",
        )));
    }
    Ok(("", parts))
}

/// The date fields of `parts` in `order` (`DayFirst` or `MonthFirst`; `Auto`
/// reads as day-first), with a 12-hour clock turned to 24 hours. `None` when
/// a field is missing or a 12-hour clock is out of range.
pub fn resolve(parts: &StampParts, order: DateOrder) -> Option<RawStamp> {
    let (year, month, day) = match parts.numeric {
        Some(date) if date.first_len == 4 => (date.first as i32, date.second, date.third),
        Some(date) => {
            let year = if date.third_len == 2 {
                2000 + date.third as i32
            } else {
                date.third as i32
            };
            match order {
                DateOrder::MonthFirst => (year, date.first, date.second),
                DateOrder::DayFirst | DateOrder::Auto => (year, date.second, date.first),
            }
        }
        None => (parts.year?, parts.month?, parts.day?),
    };
    let (hour, minute, second) = parts.clock?;
    let hour = match parts.pm {
        None => hour,
        Some(_) if hour == 0 || hour > 12 => return None,
        Some(false) => hour % 12,
        Some(true) => hour % 12 + 12,
    };
    Some(RawStamp::from_parts(
        (year, month, day),
        (hour, minute, second),
    ))
}

/// Day/month order state of one file.
#[derive(Clone, Debug, Default)]
pub struct ManagerDates {
    /// The order in force; `Auto` until the file decides it.
    order: DateOrder,
    /// True when the order came from the user (never switched).
    fixed: bool,
    /// Set when a line made the file switch order; taken by the reader to warn.
    switched: Option<DateOrder>,
}

impl ManagerDates {
    /// State for `order` as the user gave it.
    pub fn new(order: DateOrder) -> Self {
        ManagerDates {
            order,
            fixed: order != DateOrder::Auto,
            switched: None,
        }
    }

    /// Learns the order from the first decisive date in `head` (rule 1 of the
    /// module docs). Does nothing when the user fixed the order.
    pub fn learn_from_head(&mut self, head: &str) {
        if self.fixed || self.order != DateOrder::Auto {
            return;
        }
        for line in head.lines() {
            let Some((time_text, _)) = split_fields(strip_quote(line)) else {
                continue;
            };
            if let Ok((_, parts)) = manager_stamp(time_text) {
                if let Some(order) = parts.numeric.and_then(decisive_order) {
                    self.order = order;
                    return;
                }
            }
        }
    }

    /// The switch a line caused, once (for a warning).
    pub fn take_switch(&mut self) -> Option<DateOrder> {
        self.switched.take()
    }

    fn order_for(&mut self, parts: &StampParts) -> DateOrder {
        let current = match self.order {
            DateOrder::Auto if parts.pm.is_some() => DateOrder::MonthFirst,
            DateOrder::Auto => DateOrder::DayFirst,
            order => order,
        };
        if self.fixed {
            return current;
        }
        match parts.numeric.and_then(decisive_order) {
            Some(order) if order != current => {
                self.switched = Some(order);
                self.order = order;
                order
            }
            Some(order) => {
                self.order = order;
                order
            }
            None => current,
        }
    }
}

/// The order a numeric date proves, if any.
fn decisive_order(date: NumericDate) -> Option<DateOrder> {
    if date.first_len == 4 {
        None
    } else if date.first > 12 && date.second <= 12 {
        Some(DateOrder::DayFirst)
    } else if date.second > 12 && date.first <= 12 {
        Some(DateOrder::MonthFirst)
    } else {
        None
    }
}

/// Removes forum/e-mail quote prefixes (`> `, `>> `).
pub fn strip_quote(line: &str) -> &str {
    let mut line = line;
    while let Some(rest) = line.strip_prefix('>') {
        line = rest.strip_prefix(' ').unwrap_or(rest);
    }
    line
}

/// Splits `TIME | PROJECT | BODY`, the 5.x `TIME|PROJECT|BODY`,
/// `TIME<TAB>PROJECT<TAB>BODY`, or that form with its tabs turned into runs
/// of spaces (a wiki's copy), into the time field and (project, body).
fn split_fields(line: &str) -> Option<(&str, (&str, &str))> {
    if let Some((time, rest)) = line.split_once(" | ") {
        // `TIME | | BODY`: an empty project whose two blanks were collapsed.
        let fields = match rest.strip_prefix("| ") {
            Some(body) => ("", body),
            None => match rest.split_once(" | ") {
                Some(fields) => fields,
                None => (rest.strip_suffix(" |")?, ""),
            },
        };
        return Some((time, fields));
    }
    if let Some((time, rest)) = line.split_once('\t') {
        return Some((time, rest.split_once('\t').unwrap_or((rest, ""))));
    }
    if let Some((time, rest)) = line.split_once('|') {
        // 5.x: no blanks around the bars; a project name holds no bar.
        let (project, body) = rest.split_once('|')?;
        return Some((time, (project, body.strip_prefix(' ').unwrap_or(body))));
    }
    spaced_fields(line).or_else(|| single_spaced_fields(line))
}

/// Openings of the untagged 6.x bodies a Manager copy shows after the
/// project (`chosen: CPU minor shortfall`, `Sending scheduler request: ...`).
const UNTAGGED_OPENINGS: &[&str] = &[
    "chosen: ",
    "Sending scheduler request",
    "Scheduler request ",
    "Requesting ",
    "Reporting ",
    "Starting ",
    "Started ",
    "Finished ",
    "Computation for task ",
    "Restarting task ",
    "Resuming task ",
    "Deferring communication ",
    "Reason: ",
    "Fetching scheduler list",
    "Message from server",
    "Not reporting or requesting tasks",
];

/// Every blank collapsed to one (Trac's copy of a 6.x Manager copy:
/// `17/04/2009 11:21:51 Einstein@Home chosen: CPU minor shortfall`): the
/// stamp is the fewest leading words that make one, with a meridiem or a
/// zone word after it (`1:21:51 PM`, `CEST`); the project ends before the
/// first tag (`[wfd]`) or untagged opening ([`UNTAGGED_OPENINGS`]) and is
/// never empty (an empty project column leaves two blanks, and a bracket
/// right after the stamp is stdoutdae.txt's `[project]`); a line with
/// neither is not framed so.
fn single_spaced_fields(line: &str) -> Option<(&str, (&str, &str))> {
    let ends = line.match_indices(' ').map(|(i, _)| i).take(6);
    let mut end = ends
        .filter(|&end| end > 0)
        .find(|&end| manager_stamp(&line[..end]).is_ok())?;
    // A meridiem or a time zone after the clock belongs to the stamp.
    // (A stamp that ends the line has nothing after it.)
    while let Some(word) = line.get(end + 1..).and_then(|rest| rest.split(' ').next()) {
        let stamp_word = matches!(word, "AM" | "PM" | "am" | "pm")
            || (3..=5).contains(&word.len())
                && word.bytes().all(|b| b.is_ascii_uppercase())
                && (word.ends_with('T') || word == "UTC");
        let longer = end + 1 + word.len();
        if !stamp_word || manager_stamp(&line[..longer]).is_err() {
            break;
        }
        end = longer;
    }
    let (time, rest) = (&line[..end], line.get(end + 1..)?);
    if rest.starts_with('[') {
        // stdoutdae.txt's `[project]`, not a Manager column.
        return None;
    }
    let opens_at = |at: usize| {
        let body = &rest[at..];
        body.starts_with('[') || UNTAGGED_OPENINGS.iter().any(|o| body.starts_with(o))
    };
    let start = rest
        .match_indices(' ')
        .map(|(i, _)| i + 1)
        .find(|&at| opens_at(at))?;
    Some((time, (rest[..start].trim_end(), &rest[start..])))
}

/// Tabs turned into runs of spaces (a wiki's or forum's copy of a 6.x
/// Manager copy): the time ends at the first run of two or more blanks; a
/// run as long as two tab stops means an empty project column; otherwise
/// the project ends at the next run of two or more blanks.
fn spaced_fields(line: &str) -> Option<(&str, (&str, &str))> {
    let gap = line.find("  ")?;
    let time = &line[..gap];
    let after = &line[gap..];
    let rest = after.trim_start_matches(' ');
    let run = after.len() - rest.len();
    if run >= 6 {
        return Some((time, ("", rest)));
    }
    match rest.find("  ") {
        Some(end) => Some((time, (&rest[..end], rest[end..].trim_start_matches(' ')))),
        None => Some((time, ("", rest))),
    }
}

/// A Manager copy line, `TIME | PROJECT | BODY` or the tab-separated 6.x form
/// (quote prefixes tolerated). An empty project column means no project.
pub fn manager_line<'a>(
    line: &'a str,
    order: &mut ManagerDates,
    dates: &mut DateCache,
) -> PResult<'a, Frame<'a>> {
    let no_match = || nom::Err::Error(super::frame::FrameError::new(line, 0, "a date and time"));
    let quoted = strip_quote(line);
    let (time_text, (project, body)) = split_fields(quoted).ok_or_else(no_match)?;
    let time_text = time_text.trim();
    let (_, parts) = manager_stamp(time_text)?;
    let order = order.order_for(&parts);
    let datetime = resolve(&parts, order).and_then(|raw| dates.datetime(&raw));
    let (_, datetime) = validated(time_text, "", datetime)?;
    Ok((
        "",
        Frame {
            time: EventTime::Local(datetime),
            project: super::frame::project_name(project.trim()),
            body,
            priority: None,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::super::frame::{assert_frame, local};
    use super::*;

    fn time_of(stamp: &str, order: DateOrder) -> Option<EventTime> {
        let (_, parts) = manager_stamp(stamp).ok()?;
        let raw = resolve(&parts, order)?;
        DateCache::default().datetime(&raw).map(EventTime::Local)
    }

    #[test]
    fn a_line_that_is_only_a_stamp_is_not_framed() {
        for line in ["24:00:00 Fri 24 Apr 2015 PM", "Fri 24 Apr 2015 10:11:09 PM"] {
            assert_eq!(single_spaced_fields(line), None, "{line}");
        }
    }

    #[test]
    fn locale_stamps() {
        use DateOrder::{Auto, DayFirst, MonthFirst};
        let cases = [
            (
                "Fri 24 Apr 2015 10:11:09 PM EDT",
                Auto,
                (2015, 4, 24, 22, 11, 9),
            ),
            (
                "Mon 17 Feb 2014 04:07:24 PM CET",
                Auto,
                (2014, 2, 17, 16, 7, 24),
            ),
            ("2024/12/20 12:40:47", Auto, (2024, 12, 20, 12, 40, 47)),
            ("17/04/2019 09:43:32", DayFirst, (2019, 4, 17, 9, 43, 32)),
            (
                "4/18/2022 12:50:30 PM",
                MonthFirst,
                (2022, 4, 18, 12, 50, 30),
            ),
            ("8/23/2015 3:48:10 AM", MonthFirst, (2015, 8, 23, 3, 48, 10)),
            ("12/1/2015 12:05:00 AM", MonthFirst, (2015, 12, 1, 0, 5, 0)),
            ("Fri Apr 24 22:11:09 2015", Auto, (2015, 4, 24, 22, 11, 9)),
            ("24.04.2015 22:11:09", Auto, (2015, 4, 24, 22, 11, 9)),
        ];
        for (stamp, order, (y, mo, d, h, mi, s)) in cases {
            assert_eq!(
                time_of(stamp, order),
                Some(local(y, mo, d, h, mi, s)),
                "{stamp}"
            );
        }
        assert_eq!(time_of("4/18/2022 13:50:30 PM", MonthFirst), None);
        assert!(manager_stamp("Starting BOINC").is_err());
        assert!(manager_stamp("12:40:47").is_err());
    }

    #[test]
    fn five_x_bars_and_tabs_turned_into_spaces() {
        assert_eq!(
            split_fields("06.10.2007 14:38:59|Climateprediction.net Beta|Reason: no work"),
            Some((
                "06.10.2007 14:38:59",
                ("Climateprediction.net Beta", "Reason: no work")
            ))
        );
        assert_eq!(
            split_fields("14.10.2010 07:46:47    The Lattice Project    [wfd] CPU: x"),
            Some((
                "14.10.2010 07:46:47",
                ("The Lattice Project", "[wfd] CPU: x")
            ))
        );
        assert_eq!(
            split_fields("14.10.2010 07:46:47        [using 4.14 out of 8 CPUs"),
            Some(("14.10.2010 07:46:47", ("", "[using 4.14 out of 8 CPUs")))
        );
    }

    #[test]
    fn one_blank_between_fields() {
        assert_eq!(
            split_fields("17/04/2009 11:21:51 Einstein@Home chosen: CPU minor shortfall"),
            Some((
                "17/04/2009 11:21:51",
                ("Einstein@Home", "chosen: CPU minor shortfall")
            ))
        );
        assert_eq!(
            split_fields(
                "17/04/2009 11:21:51 World Community Grid [wfd] request: CPU (0.00 sec, 0)"
            ),
            Some((
                "17/04/2009 11:21:51",
                ("World Community Grid", "[wfd] request: CPU (0.00 sec, 0)")
            ))
        );
        assert_eq!(split_fields("17/04/2009 11:21:51 some prose here"), None);
        // The meridiem is the stamp's; a bracket right after the stamp is
        // stdoutdae.txt's project, not this form.
        assert_eq!(
            split_fields("4/17/2009 1:21:51 PM Einstein@Home chosen: CPU starved"),
            Some((
                "4/17/2009 1:21:51 PM",
                ("Einstein@Home", "chosen: CPU starved")
            ))
        );
        assert_eq!(
            split_fields("2007-05-01 08:31:59 [simap] Requesting 5 seconds"),
            None
        );
    }

    #[test]
    fn fields_and_empty_project() {
        let mut order = ManagerDates::new(DateOrder::Auto);
        let mut dates = DateCache::default();
        let cases = [
            (
                "2024/12/20 12:40:47 |  | [work_fetch] target work buffer: 8640.00 + 43200.00 sec",
                local(2024, 12, 20, 12, 40, 47),
                None,
                "[work_fetch] target work buffer: 8640.00 + 43200.00 sec",
            ),
            (
                "> 2024/12/20 12:40:47 | 3drender | can't fetch NVIDIA GPU: no applications",
                local(2024, 12, 20, 12, 40, 47),
                Some("3drender"),
                "can't fetch NVIDIA GPU: no applications",
            ),
            (
                "17/04/2019 09:43:32\tSETI@home\tRequesting new tasks for CPU",
                local(2019, 4, 17, 9, 43, 32),
                Some("SETI@home"),
                "Requesting new tasks for CPU",
            ),
            (
                "17/04/2019 09:43:33 | | a | b",
                local(2019, 4, 17, 9, 43, 33),
                None,
                "a | b",
            ),
        ];
        for (line, time, project, body) in cases {
            assert_frame(
                manager_line(line, &mut order, &mut dates),
                time,
                project,
                body,
            );
        }
        assert!(manager_line("just | some | text", &mut order, &mut dates).is_err());
    }

    #[test]
    fn auto_order_learns_and_switches() {
        let mut order = ManagerDates::new(DateOrder::Auto);
        order.learn_from_head("4/5/2022 1:00:00 PM | | a\n20/07/2020 14:15:10 | | b\n");
        assert_eq!(order.order, DateOrder::DayFirst);

        let mut order = ManagerDates::new(DateOrder::Auto);
        let mut dates = DateCache::default();
        let (_, frame) =
            manager_line("4/5/2022 1:00:00 PM |  | a", &mut order, &mut dates).unwrap();
        assert_eq!(frame.time, local(2022, 4, 5, 13, 0, 0));
        let (_, frame) =
            manager_line("20/07/2020 1:00:00 PM |  | a", &mut order, &mut dates).unwrap();
        assert_eq!(frame.time, local(2020, 7, 20, 13, 0, 0));
        assert_eq!(order.take_switch(), Some(DateOrder::DayFirst));
        assert_eq!(order.take_switch(), None);

        let mut fixed = ManagerDates::new(DateOrder::MonthFirst);
        let result = manager_line("20/07/2020 14:15:10 |  | a", &mut fixed, &mut dates);
        assert!(matches!(result, Err(nom::Err::Failure(_))));
    }

    /// Month names in the Manager's common locales, with the weekday and
    /// zone words around them skipped (a French Tuesday, `mar.`, comes
    /// before its date's month and gives way to it).
    #[test]
    fn locale_month_names() {
        for (name, month) in [
            ("Dez", 12),
            ("März", 3),
            ("déc.", 12),
            ("juin", 6),
            ("juil.", 7),
            ("dic", 12),
            ("ago", 8),
            ("mrt", 3),
            ("out", 10),
            ("października", 10),
            ("дек", 12),
            ("мая", 5),
            ("December", 12),
            ("sept", 9),
        ] {
            assert_eq!(locale_month(name), month, "{name}");
        }
        for other in ["jui", "Fr", "CET", "MEZ", "ven", "lun", "NOVT", "Sat"] {
            assert_eq!(locale_month(other), 0, "{other}");
        }
        let mut dates = ManagerDates::new(DateOrder::Auto);
        let mut cache = DateCache::default();
        for text in [
            "Fr 20 Dez 2024 12:40:47 CET |  | x",
            "mar. 20 déc. 2024 12:40:47 |  | x",
            "20 dic 2024 12:40:47 |  | x",
            "20 дек. 2024 12:40:47 |  | x",
            "2024/12/20 下午 12:40:47 |  | x",
            "2024. 12. 20. 12:40:47 |  | x",
            "2024年12月20日 12:40:47 |  | x",
            "2024년 12월 20일 오후 12:40:47 |  | x",
        ] {
            let (_, frame) = manager_line(text, &mut dates, &mut cache).expect(text);
            let EventTime::Local(at) = frame.time else {
                panic!("{text}: {:?}", frame.time)
            };
            assert_eq!(at.to_string(), "2024-12-20 12:40:47", "{text}");
        }
        // A Chinese afternoon is after noon.
        let (_, frame) =
            manager_line("2024/12/20 下午 1:40:47 |  | x", &mut dates, &mut cache).expect("zh");
        assert_eq!(
            frame.time,
            EventTime::Local(
                chrono::NaiveDate::from_ymd_opt(2024, 12, 20)
                    .and_then(|d| d.and_hms_opt(13, 40, 47))
                    .expect("date")
            )
        );
    }
}

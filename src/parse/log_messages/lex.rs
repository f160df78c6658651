//! Shared nom productions of message bodies: numbers (with a fast path),
//! names, resources, durations, and the resource fragments several formats
//! share (`RESULT::rsc_string`, work-request lists, resource backoff).

use crate::parse::text::FastSplit;
use crate::resource::ResourceType;
use crate::trace::message::{CoprocUsage, JobResources, ResourceBackoff, ResourceRequest};
use compact_str::CompactString;
use nom::bytes::complete::tag;
use nom::combinator::{map, map_opt, opt};
use nom::error::{Error, ErrorKind};
use nom::sequence::{delimited, preceded, terminated, tuple};
use nom::{Err, IResult};

/// The result of a body production.
pub(super) type Res<'a, T> = IResult<&'a str, T>;

/// Exact powers of ten (every one is representable in an f64).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

fn fail<T>(input: &str) -> Res<'_, T> {
    Err(Err::Error(Error::new(input, ErrorKind::Float)))
}

/// Runs a production that must consume the whole input.
pub(super) fn full<'a, O>(
    mut parser: impl FnMut(&'a str) -> Res<'a, O>,
    input: &'a str,
) -> Option<O> {
    match parser(input) {
        Ok(("", value)) => Some(value),
        _ => None,
    }
}

/// The text up to the first `delim` (not consumed), like nom's
/// `take_until`, with the fast search of [`FastSplit`].
pub(super) fn take_until<'a>(delim: &'static str) -> impl FnMut(&'a str) -> Res<'a, &'a str> {
    move |input: &'a str| match input.split_fast(delim) {
        Some((before, _)) => Ok((&input[before.len()..], before)),
        None => Err(Err::Error(Error::new(input, ErrorKind::TakeUntil))),
    }
}

/// Splits off the first blank-separated word.
pub(super) fn first_word(text: &str) -> (&str, &str) {
    match text.split_fast(' ') {
        Some((word, rest)) => (word, rest),
        None => (text, ""),
    }
}

fn digits_end(bytes: &[u8], mut pos: usize) -> usize {
    while pos < bytes.len() && bytes[pos].is_ascii_digit() {
        pos += 1;
    }
    pos
}

/// How many decimal digits `bytes` starts with, each accumulated into
/// `mantissa` (wrapping).
#[inline]
fn accumulate_digits(bytes: &[u8], mantissa: &mut u64) -> usize {
    let mut n = 0;
    for &byte in bytes {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        *mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(digit));
        n += 1;
    }
    n
}

/// A C-printed floating-point number (`%f`, `%.2f`, `%.0f`, `%g`, `-0`,
/// `inf`, `nan`). A `.` is consumed only when a digit follows, so a number
/// that ends a sentence keeps its period.
///
/// Fast path: at most 15 significant digits and no exponent give
/// `mantissa / 10^frac`, which is correctly rounded because both operands are
/// exact; everything else goes through `str::parse`.
pub(super) fn float(input: &str) -> Res<'_, f64> {
    let bytes = input.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    let start = usize::from(negative);
    // One pass: the digits are accumulated as they are found (wrapping: a
    // mantissa of more than 15 digits is not used).
    let mut mantissa: u64 = 0;
    let int_end = start + accumulate_digits(&bytes[start..], &mut mantissa);
    let mut end = int_end;
    let mut frac_digits = 0;
    if bytes.get(int_end) == Some(&b'.') && bytes.get(int_end + 1).is_some_and(u8::is_ascii_digit) {
        frac_digits = accumulate_digits(&bytes[int_end + 1..], &mut mantissa);
        end = int_end + 1 + frac_digits;
    }
    let n_digits = (int_end - start) + frac_digits;
    if n_digits == 0 {
        let rest = &input[start..];
        for (word, value) in [("inf", f64::INFINITY), ("nan", f64::NAN)] {
            if let Some(after) = rest.strip_prefix(word) {
                return Ok((after, if negative { -value } else { value }));
            }
        }
        return fail(input);
    }
    let has_exponent = matches!(bytes.get(end), Some(b'e' | b'E'));
    if has_exponent {
        let mut exp_pos = end + 1;
        if matches!(bytes.get(exp_pos), Some(b'+' | b'-')) {
            exp_pos += 1;
        }
        let exp_end = digits_end(bytes, exp_pos);
        if exp_end > exp_pos {
            end = exp_end;
        }
    }
    if !has_exponent && n_digits <= 15 {
        let value = mantissa as f64 / POW10[frac_digits];
        return Ok((&input[end..], if negative { -value } else { value }));
    }
    match input[..end].parse::<f64>() {
        Ok(value) => Ok((&input[end..], value)),
        Err(_) => fail(input),
    }
}

/// An unsigned decimal integer that fits in a u32.
pub(super) fn uint(input: &str) -> Res<'_, u32> {
    let bytes = input.as_bytes();
    let end = digits_end(bytes, 0);
    if end == 0 {
        return fail(input);
    }
    let mut value: u32 = 0;
    for &byte in &bytes[..end] {
        match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u32::from(byte - b'0')))
        {
            Some(next) => value = next,
            None => return fail(input),
        }
    }
    Ok((&input[end..], value))
}

/// A signed decimal integer that fits in an i64.
pub(super) fn int(input: &str) -> Res<'_, i64> {
    let bytes = input.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    let start = usize::from(negative);
    let end = digits_end(bytes, start);
    if end == start {
        return fail(input);
    }
    let mut value: i64 = 0;
    for &byte in &bytes[start..end] {
        match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(i64::from(byte - b'0')))
        {
            Some(next) => value = next,
            None => return fail(input),
        }
    }
    Ok((&input[end..], if negative { -value } else { value }))
}

/// A signed integer that fits in an i32.
pub(super) fn int32(input: &str) -> Res<'_, i32> {
    map_opt(int, |value| i32::try_from(value).ok())(input)
}

/// A resource name (any era's spelling), the whole input.
pub(super) fn rsc_name(text: &str) -> Option<ResourceType> {
    ResourceType::from_name(text)
}

/// `<value><sep><resource>`, the whole input: a value, a fixed text, then a
/// resource name up to the end.
pub(super) fn value_then_rsc<'a, O>(
    value: impl FnMut(&'a str) -> Res<'a, O>,
    sep: &'static str,
    text: &'a str,
) -> Option<(O, ResourceType)> {
    let (name, parsed) = terminated(value, tag(sep))(text).ok()?;
    Some((parsed, rsc_name(name)?))
}

/// A resource name ending where `delim` starts (`delim` not consumed).
pub(super) fn rsc_until<'a>(delim: &'static str) -> impl FnMut(&'a str) -> Res<'a, ResourceType> {
    map_opt(take_until(delim), ResourceType::from_name)
}

/// A name (job, project, app) ending where `delim` starts (`delim` not consumed).
pub(super) fn name_until<'a>(delim: &'static str) -> impl FnMut(&'a str) -> Res<'a, CompactString> {
    map(take_until(delim), CompactString::from)
}

/// The rest of the input as a name.
pub(super) fn name_rest(input: &str) -> Res<'_, CompactString> {
    Ok(("", CompactString::from(input)))
}

/// `RESULT::rsc_string`: `%.2f CPU` or `%.2f CPU + %.2f %s`, the whole input.
pub(super) fn job_resources(text: &str) -> Option<JobResources> {
    let (after_cpu, ncpus) = terminated(float, tag(" CPU"))(text).ok()?;
    if after_cpu.is_empty() {
        return Some(JobResources {
            ncpus,
            coproc: None,
        });
    }
    let (name, usage) = preceded(tag(" + "), terminated(float, tag(" ")))(after_cpu).ok()?;
    Some(JobResources {
        ncpus,
        coproc: Some(CoprocUsage {
            usage,
            rsc: rsc_name(name)?,
        }),
    })
}

/// `(%.2fG/%.2fG)`: remaining GFLOP and GFLOPS rate.
pub(super) fn gflops_pair(input: &str) -> Res<'_, (f64, f64)> {
    delimited(
        tag("("),
        tuple((terminated(float, tag("G/")), float)),
        tag("G)"),
    )(input)
}

/// ` (resource backoff: %.2f, inc %.2f)` without the leading blank.
pub(super) fn resource_backoff(input: &str) -> Res<'_, ResourceBackoff> {
    map(
        tuple((
            preceded(tag("(resource backoff: "), float),
            delimited(tag(", inc "), float, tag(")")),
        )),
        |(backoff, inc)| ResourceBackoff { backoff, inc },
    )(input)
}

/// A work-request list: `CPU (%.2f sec, %.2f inst) NVIDIA GPU (%.2f sec, %.2f inst)`;
/// the 6.x forms without ` inst` are accepted too.
pub(super) fn request_list(text: &str) -> Option<Vec<ResourceRequest>> {
    let mut resources = Vec::new();
    let mut rest = text;
    loop {
        let (after, (rsc, secs, inst)) = tuple((
            rsc_until(" ("),
            preceded(tag(" ("), terminated(float, tag(" sec, "))),
            terminated(float, tuple((opt(tag(" inst")), tag(")")))),
        ))(rest)
        .ok()?;
        resources.push(ResourceRequest { rsc, secs, inst });
        match after.strip_prefix(' ') {
            Some(next) => rest = next,
            None if after.is_empty() => return Some(resources),
            None => return None,
        }
    }
}

/// `timediff_format`: `HH:MM:SS` or `%d days HH:MM:SS` (6.x on), or the 5.x
/// spelled form `1 days 2 hr 3 min 4 sec` (any leading units omitted), in
/// seconds.
pub(super) fn duration(input: &str) -> Res<'_, f64> {
    if let Some(parsed) = spelled_duration(input) {
        return Ok(parsed);
    }
    clock_duration(input)
}

/// `N days N hr N min N sec` (5.x), needing at least one unit.
fn spelled_duration(input: &str) -> Option<(&str, f64)> {
    let mut rest = input;
    let mut total = 0.0;
    let mut units = 0;
    while let Ok((after, n)) = uint(rest) {
        let Some(after) = after.strip_prefix(' ') else {
            break;
        };
        let (word, tail) = after.split_fast(' ').unwrap_or((after, ""));
        let scale = match word {
            "day" | "days" => 86400.0,
            "hr" | "hrs" | "hour" | "hours" => 3600.0,
            "min" | "mins" => 60.0,
            "sec" | "secs" => 1.0,
            _ => break,
        };
        total += f64::from(n) * scale;
        units += 1;
        rest = tail;
        if tail.is_empty() {
            break;
        }
    }
    (units > 0 && rest.is_empty()).then_some((rest, total))
}

fn clock_duration(input: &str) -> Res<'_, f64> {
    let (input, days) = opt(terminated(
        uint,
        tuple((tag(" day"), opt(tag("s")), tag(" "))),
    ))(input)?;
    let (input, (hours, minutes, seconds)) =
        tuple((uint, preceded(tag(":"), uint), preceded(tag(":"), uint)))(input)?;
    let total = f64::from(days.unwrap_or(0)) * 86400.0
        + f64::from(hours) * 3600.0
        + f64::from(minutes) * 60.0
        + f64::from(seconds);
    Ok((input, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_fast_path_matches_std() {
        for text in [
            "0",
            "-0",
            "1555490613.358389",
            "0.500000",
            "-1.333",
            "43200.00",
            "3600",
            "123456789012345.6",
        ] {
            assert_eq!(
                float(text),
                Ok(("", text.parse::<f64>().unwrap_or(f64::NAN))),
                "{text}"
            );
        }
        assert_eq!(float("1e-5 x"), Ok((" x", 1e-5)));
        assert_eq!(float("4."), Ok((".", 4.0)));
        assert_eq!(float("-inf"), Ok(("", f64::NEG_INFINITY)));
        assert!(float("nan").is_ok_and(|(_, v)| v.is_nan()));
        assert!(float("x").is_err());
        assert!(float("-").is_err());
        assert!(float("").is_err());
    }

    proptest::proptest! {
        #[test]
        fn floats_match_std(text in "-?[0-9]{0,18}(\\.[0-9]{0,12})?([eE][-+]?[0-9]{1,3})?[ .x]?") {
            let lexed = float(&text).ok();
            let end = text.len() - lexed.map_or(0, |(rest, _)| rest.len());
            let expected = text[..end].parse::<f64>().ok();
            proptest::prop_assert_eq!(lexed.map(|(_, v)| v), expected, "{}", text);
        }
    }

    #[test]
    fn integers_reject_overflow() {
        assert_eq!(uint("42 x"), Ok((" x", 42)));
        assert!(uint("99999999999").is_err());
        assert_eq!(int("-7"), Ok(("", -7)));
        assert!(int("-").is_err());
        assert!(int("99999999999999999999").is_err());
    }

    #[test]
    fn job_resources_forms() {
        assert_eq!(
            job_resources("1.00 CPU"),
            Some(JobResources {
                ncpus: 1.0,
                coproc: None
            })
        );
        assert_eq!(
            job_resources("0.20 CPU + 1.00 NVIDIA GPU"),
            Some(JobResources {
                ncpus: 0.2,
                coproc: Some(CoprocUsage {
                    usage: 1.0,
                    rsc: ResourceType::Nvidia
                })
            })
        );
        assert_eq!(job_resources("1.00 GPU"), None);
    }

    #[test]
    fn request_lists() {
        let list = request_list("CPU (12382.46 sec, 0.00 inst) NVIDIA GPU (0.00 sec, 1.00 inst)");
        assert_eq!(
            list,
            Some(vec![
                ResourceRequest {
                    rsc: ResourceType::Cpu,
                    secs: 12382.46,
                    inst: 0.0
                },
                ResourceRequest {
                    rsc: ResourceType::Nvidia,
                    secs: 0.0,
                    inst: 1.0
                },
            ])
        );
        assert_eq!(
            request_list("CPU (10.00 sec, 2) CUDA (0.00 sec, 0)").map(|l| l.len()),
            Some(2)
        );
        assert_eq!(request_list("CPU (1.00 sec, 0.00 inst) junk"), None);
    }

    #[test]
    fn durations() {
        assert_eq!(duration("00:01:27"), Ok(("", 87.0)));
        assert_eq!(
            duration("2 days 01:00:00"),
            Ok(("", 2.0 * 86400.0 + 3600.0))
        );
        assert_eq!(duration("1 day 00:00:01"), Ok(("", 86401.0)));
        // 5.x.
        assert_eq!(duration("1 min 0 sec"), Ok(("", 60.0)));
        assert_eq!(duration("1 days 2 hr 3 min 4 sec"), Ok(("", 93784.0)));
        assert!(duration("1 min later").is_err());
    }
}

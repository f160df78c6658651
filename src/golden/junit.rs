//! A JUnit XML report of golden cases, for `--junit FILE`: one `<testsuite>`,
//! one `<testcase>` per golden case, and a `<failure>` with the first changed
//! line and the diff for each case that failed.
//!
//! The XML is written by hand. Attribute and text values are escaped, and
//! characters XML 1.0 cannot carry (control characters such as the ESC of a
//! colour code) are replaced by U+FFFD. No times are written, so the report is
//! byte-stable.
//!
//! Architecture Invariant: depends on nothing but std and the rest of `golden`.

use super::{Check, Mismatch};
use std::io::{self, Write};

/// The outcome of one golden case, as JUnit shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JunitCase {
    /// The case's name, such as `valid/gpu-idle/decisions.txt`.
    pub name: String,
    /// Why the case failed, or `None` when it passed.
    pub failure: Option<JunitFailure>,
}

/// Why one case failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JunitFailure {
    /// One line: the first changed line (the `message` attribute).
    pub message: String,
    /// The details: the diff (the element's text).
    pub details: String,
}

impl JunitCase {
    /// A case that passed.
    pub fn passed(name: impl Into<String>) -> Self {
        JunitCase {
            name: name.into(),
            failure: None,
        }
    }

    /// A case that failed with `message` and `details`.
    pub fn failed(
        name: impl Into<String>,
        message: impl Into<String>,
        details: impl Into<String>,
    ) -> Self {
        JunitCase {
            name: name.into(),
            failure: Some(JunitFailure {
                message: message.into(),
                details: details.into(),
            }),
        }
    }

    /// The case for the outcome of a golden [`check`](super::check).
    pub fn from_check(name: impl Into<String>, check: &Check) -> Self {
        match check {
            Check::Mismatch(mismatch) if !check.passed() => {
                JunitCase::failed(name, mismatch.summary(), failure_details(mismatch))
            }
            _ => JunitCase::passed(name),
        }
    }
}

fn failure_details(mismatch: &Mismatch) -> String {
    format!(
        "first changed line: {}\n{}",
        mismatch.summary(),
        mismatch.diff
    )
}

/// Writes one `<testsuite>` named `suite` holding `cases`, in the given order.
pub fn write_junit(suite: &str, cases: &[JunitCase], out: &mut dyn Write) -> io::Result<()> {
    let n_failures = cases.iter().filter(|case| case.failure.is_some()).count();
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="{suite}" tests="{}" failures="{n_failures}" errors="0">"#,
        cases.len(),
        suite = escape(suite)
    )?;
    writeln!(
        out,
        r#"  <testsuite name="{suite}" tests="{}" failures="{n_failures}" errors="0" skipped="0">"#,
        cases.len(),
        suite = escape(suite)
    )?;
    for case in cases {
        let name = escape(&case.name);
        match &case.failure {
            None => writeln!(
                out,
                r#"    <testcase name="{name}" classname="{suite}"/>"#,
                suite = escape(suite)
            )?,
            Some(failure) => {
                writeln!(
                    out,
                    r#"    <testcase name="{name}" classname="{suite}">"#,
                    suite = escape(suite)
                )?;
                writeln!(
                    out,
                    r#"      <failure message="{}" type="golden mismatch">{}</failure>"#,
                    escape(&failure.message),
                    escape_text(&failure.details)
                )?;
                writeln!(out, "    </testcase>")?;
            }
        }
    }
    writeln!(out, "  </testsuite>")?;
    writeln!(out, "</testsuites>")
}

/// Escapes `text` for an XML attribute value.
///
/// Newlines and tabs become character references, so attribute values keep
/// them; other characters XML 1.0 forbids become U+FFFD.
pub fn escape(text: &str) -> String {
    escape_with(text, true)
}

/// Escapes `text` for XML element text: like [`escape`], but newlines and
/// tabs stay as they are, so a diff stays readable in the raw file.
pub fn escape_text(text: &str) -> String {
    escape_with(text, false)
}

fn escape_with(text: &str, attribute: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            '\n' | '\t' if !attribute => escaped.push(character),
            '\n' => escaped.push_str("&#10;"),
            '\t' => escaped.push_str("&#9;"),
            '\r' => escaped.push_str("&#13;"),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => escaped.push('\u{fffd}'),
            _ => escaped.push(character),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\n\u{1b}[31m"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;&#10;\u{fffd}[31m"
        );
    }

    #[test]
    fn writes_suite_with_failure() {
        let cases = vec![
            JunitCase::passed("valid/idle/decisions.txt"),
            JunitCase::failed(
                "valid/gpu<1>/decisions.txt",
                "decisions.txt:2: golden \"a\" but actual \"b\"",
                "-a\n+b\n",
            ),
        ];
        let mut out = Vec::new();
        write_junit("golden", &cases, &mut out).unwrap();
        let xml = String::from_utf8(out).unwrap();
        assert_eq!(
            xml,
            concat!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
                "<testsuites name=\"golden\" tests=\"2\" failures=\"1\" errors=\"0\">\n",
                "  <testsuite name=\"golden\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">\n",
                "    <testcase name=\"valid/idle/decisions.txt\" classname=\"golden\"/>\n",
                "    <testcase name=\"valid/gpu&lt;1&gt;/decisions.txt\" classname=\"golden\">\n",
                "      <failure message=\"decisions.txt:2: golden &quot;a&quot; but actual &quot;b&quot;\" type=\"golden mismatch\">-a\n+b\n</failure>\n",
                "    </testcase>\n",
                "  </testsuite>\n",
                "</testsuites>\n",
            )
        );
    }

    #[test]
    fn case_from_check() {
        assert_eq!(
            JunitCase::from_check("x", &Check::Match),
            JunitCase::passed("x")
        );
    }
}

//! Parse errors and warnings, each with the location of the offending input.

use crate::source::Location;
use serde::Serialize;
use std::fmt;

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Part of the input could not be understood; the value is incomplete.
    Error,
    /// The input was understood, but something about it deserves attention
    /// (invalid UTF-8 replaced, an over-long line cut, …).
    Warning,
}

/// One problem found while parsing, with where it is.
///
/// Renders as `path:line:col: expected <what>, found "<snippet>"` (errors) or
/// `path:line:col: warning: <message>` (warnings).
#[derive(Clone, Debug, PartialEq, Serialize, thiserror::Error)]
pub struct ParseError {
    /// Error or warning.
    pub severity: Severity,
    /// Where the problem is.
    pub location: Location,
    /// What the problem is.
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.severity {
            Severity::Error => write!(f, "{}: {}", self.location, self.kind),
            Severity::Warning => write!(f, "{}: warning: {}", self.location, self.kind),
        }
    }
}

impl ParseError {
    /// An error of `kind` at `location`.
    pub fn error(location: Location, kind: ParseErrorKind) -> Self {
        ParseError {
            severity: Severity::Error,
            location,
            kind,
        }
    }

    /// A warning of `kind` at `location`.
    pub fn warning(location: Location, kind: ParseErrorKind) -> Self {
        ParseError {
            severity: Severity::Warning,
            location,
            kind,
        }
    }

    /// An error saying what was expected and quoting what was found.
    pub fn expected(location: Location, expected: impl Into<String>, found: &str) -> Self {
        ParseError::error(
            location,
            ParseErrorKind::Expected {
                expected: expected.into(),
                found: crate::source::snippet(found, 40),
            },
        )
    }

    /// True for errors (not warnings).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// What went wrong. Each message is lower-case with no trailing period.
#[derive(Clone, Debug, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input did not match the grammar at this point.
    #[error("expected {expected}, found \"{found}\"")]
    Expected {
        /// What the grammar wanted, e.g. `project tag "[name]"`.
        expected: String,
        /// The offending text, shortened.
        found: String,
    },
    /// The file could not be opened or read.
    #[error("cannot read file: {message}")]
    Io {
        /// The operating system's message.
        message: String,
    },
    /// The file is empty (or only white space).
    #[error("empty file")]
    Empty,
    /// The XML is not well formed.
    #[error("malformed XML: {message}")]
    Xml {
        /// The reader's description of the problem.
        message: String,
    },
    /// The file ends in the middle of a construct.
    #[error("unexpected end of file: {message}")]
    Truncated {
        /// What was still open.
        message: String,
    },
    /// Bytes that are not UTF-8 were replaced by U+FFFD.
    #[error("invalid UTF-8 replaced ({count} byte {})", if *count == 1 { "sequence" } else { "sequences" })]
    InvalidUtf8 {
        /// How many invalid sequences on this line.
        count: usize,
    },
    /// A line longer than the limit was cut.
    #[error("line of {length} bytes cut to {limit} bytes")]
    LineTooLong {
        /// Length of the line in bytes.
        length: usize,
        /// The limit kept.
        limit: usize,
    },
    /// A value was recognised but is not acceptable (impossible date, negative count, …).
    #[error("{message}")]
    Invalid {
        /// What is wrong with it.
        message: String,
    },
}

/// A parsed value together with the problems found on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed<T> {
    /// What could be parsed (complete when `errors` is empty).
    pub value: T,
    /// Problems that make the value incomplete.
    pub errors: Vec<ParseError>,
    /// Problems that do not.
    pub warnings: Vec<ParseError>,
}

impl<T> Parsed<T> {
    /// A value with no problems.
    pub fn ok(value: T) -> Self {
        Parsed {
            value,
            errors: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Files `problem` under errors or warnings by its severity.
    pub fn push(&mut self, problem: ParseError) {
        if problem.is_error() {
            self.errors.push(problem);
        } else {
            self.warnings.push(problem);
        }
    }
}

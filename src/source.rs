//! Source locations: where in which input file something was found.
//!
//! Architecture Invariant: this module depends on nothing else in the crate;
//! every layer (parse, trace, divergence, report) may use it.
//!
//! Lines and columns are 1-based. Columns count characters (not bytes) of the
//! lossily decoded line, so a message points at what a person sees in an editor.

use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// The name of an input file as shown in messages: interned, so that a
/// location costs a copy, not a reference count (every event of a log
/// carries one; counting them was a tenth of the time of parsing).
///
/// Each distinct name is stored once for the life of the process: memory
/// grows with the number of distinct files named, never with their size or
/// with the number of locations.
#[derive(Clone, Copy)]
pub struct SourcePath(&'static str);

impl SourcePath {
    /// The interned name `name`.
    pub fn new(name: &str) -> Self {
        static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
        let names = NAMES.get_or_init(Mutex::default);
        let mut names = match names.lock() {
            Ok(names) => names,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(&known) = names.get(name) {
            return SourcePath(known);
        }
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        names.insert(leaked);
        SourcePath(leaked)
    }

    /// The name.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl From<&str> for SourcePath {
    fn from(name: &str) -> Self {
        SourcePath::new(name)
    }
}

impl std::ops::Deref for SourcePath {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for SourcePath {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl PartialEq for SourcePath {
    fn eq(&self, other: &Self) -> bool {
        // Interned: equal names are the same string.
        std::ptr::eq(self.0, other.0) || self.0 == other.0
    }
}

impl Eq for SourcePath {}

impl PartialOrd for SourcePath {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SourcePath {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(other.0)
    }
}

impl std::hash::Hash for SourcePath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl fmt::Debug for SourcePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl fmt::Display for SourcePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for SourcePath {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for SourcePath {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(SourcePath::new(&name))
    }
}

/// A position in one input file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    /// The path as the user gave it (or as discovered below a directory they gave).
    pub path: SourcePath,
    /// 1-based line number; 0 when the whole file is meant.
    pub line: u32,
    /// 1-based column in characters; 0 when the whole line is meant.
    pub column: u32,
}

impl Location {
    /// A location at `line:column` of `path`.
    pub fn new(path: SourcePath, line: u32, column: u32) -> Self {
        Location { path, line, column }
    }

    /// A location naming a whole file.
    pub fn file(path: SourcePath) -> Self {
        Location {
            path,
            line: 0,
            column: 0,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}", self.path),
            (line, 0) => write!(f, "{}:{}", self.path, line),
            (line, column) => write!(f, "{}:{}:{}", self.path, line, column),
        }
    }
}

/// Maps byte offsets of a whole in-memory text to 1-based line and column.
///
/// Used for XML inputs, whose reader reports byte offsets; logs are read
/// line by line and know their line numbers directly.
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset at which each line starts; `line_starts[0] == 0`.
    line_starts: Vec<usize>,
}

impl LineIndex {
    /// Index the line starts of `text` (`\n` ends a line; a preceding `\r` is part of it).
    pub fn new(text: &[u8]) -> Self {
        let mut line_starts = Vec::with_capacity(text.len() / 40 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', text).map(|offset| offset + 1));
        LineIndex { line_starts }
    }

    /// Line and column (both 1-based, column in characters) of `offset` in `text`.
    ///
    /// An offset past the end points just after the last character.
    pub fn line_col(&self, text: &[u8], offset: usize) -> (u32, u32) {
        let offset = offset.min(text.len());
        let line_idx = match self.line_starts.binary_search(&offset) {
            Ok(idx) => idx,
            Err(idx) => idx - 1,
        };
        let line_start = self.line_starts[line_idx];
        let prefix = String::from_utf8_lossy(&text[line_start..offset]);
        let column = prefix.chars().count() + 1;
        (clamp_u32(line_idx + 1), clamp_u32(column))
    }

    /// A [`Location`] for `offset` in `text`, read from `path`.
    pub fn location(&self, path: &SourcePath, text: &[u8], offset: usize) -> Location {
        let (line, column) = self.line_col(text, offset);
        Location::new(*path, line, column)
    }
}

fn clamp_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// Shortens `text` for quoting in an error message (at most `max_chars` characters).
pub fn snippet(text: &str, max_chars: usize) -> String {
    let mut out: String = text.chars().take(max_chars).collect();
    if text.chars().nth(max_chars).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one_and_in_chars() {
        let text = "ab\ncé d\r\nx".as_bytes();
        let index = LineIndex::new(text);
        assert_eq!(index.line_col(text, 0), (1, 1));
        assert_eq!(index.line_col(text, 3), (2, 1));
        // 'é' is two bytes; the space after it is column 3.
        assert_eq!(index.line_col(text, 6), (2, 3));
        assert_eq!(index.line_col(text, text.len()), (3, 2));
    }

    #[test]
    fn location_display() {
        let path: SourcePath = SourcePath::from("a/b.txt");
        assert_eq!(Location::new(path, 3, 7).to_string(), "a/b.txt:3:7");
        assert_eq!(Location::new(path, 3, 0).to_string(), "a/b.txt:3");
        assert_eq!(Location::file(path).to_string(), "a/b.txt");
    }

    #[test]
    fn snippet_truncates() {
        assert_eq!(snippet("abcdef", 3), "abc…");
        assert_eq!(snippet("abc", 3), "abc");
    }
}

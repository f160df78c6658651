//! Shared quick-xml helpers for every XML input: a small element tree with
//! byte offsets, and lenient typed readers of element values that report
//! problems as `path:line:col` errors.
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! Rules (the client's own parser is the model, see formats-xml.md §0):
//! - Elements may come in any order; unknown elements are ignored and counted
//!   ([`XmlDoc::unknown`]), never an error.
//! - Booleans: `<flag/>`, `<flag></flag>` and `<flag>N</flag>` with N ≠ 0 are
//!   true; `<flag>0</flag>` is false (also `true`/`false`).
//! - Numbers may be surrounded by white space; integers also accept a
//!   double with no fraction (`4.000000`).
//! - Only the five predefined entities and character references are expanded.
//!   Entities declared in a DOCTYPE are **never** expanded (no "billion
//!   laughs"): the DOCTYPE gets one error, and references to its entities are
//!   kept as written.
//! - Text that is not UTF-8 is read as Latin-1 (what old clients wrote on
//!   such hosts), with one warning per element.
//! - Malformed markup: an end tag that names an outer open element closes
//!   it and everything inside (one error); an end tag that names no open
//!   element is taken as a misspelled end tag of the innermost one and closes
//!   it (one error). Elements closed this way keep their content. Any other
//!   syntax error ends the tree there (one error). An end of file inside open elements is
//!   a `Truncated` error naming the innermost open element, and the values of
//!   elements left open are not used.
//! - Byte offsets are converted to line:col (via [`LineIndex`]) only when an
//!   error is made.

use crate::parse::error::{ParseError, ParseErrorKind, Parsed};
use crate::resource::ResourceType;
use crate::source::SourcePath;
use crate::source::{LineIndex, Location};
use crate::trace::state::FileNote;
use crate::trace::FileKind;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// Deepest element nesting accepted; deeper input is rejected (a guard
/// against stack exhaustion, far above anything BOINC writes).
pub const MAX_DEPTH: usize = 128;

/// How many distinct unknown element names are remembered per file.
const MAX_UNKNOWN_NAMES: usize = 20;

/// One element of the tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Element {
    /// Tag name.
    pub name: String,
    /// Byte offset of its `<`.
    pub offset: usize,
    /// Attributes (name, unescaped value), in order.
    pub attrs: Vec<(String, String)>,
    /// All text and CDATA directly inside it, unescaped, concatenated.
    pub text: String,
    /// Child elements, in order.
    pub children: Vec<Element>,
    /// False when the file ended (or broke) before its end tag.
    pub complete: bool,
}

impl Element {
    /// The first child named `name`.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|child| child.name == name)
    }

    /// The value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// One XML input being read: its bytes, where problems go, and counters.
pub struct XmlDoc<'a> {
    /// The path as shown in messages.
    pub path: SourcePath,
    bytes: &'a [u8],
    index: OnceLock<LineIndex>,
    /// Problems found so far.
    pub problems: Parsed<()>,
    /// Entity names declared in a DOCTYPE (kept as written, never expanded).
    declared_entities: BTreeSet<String>,
    /// Unknown elements seen.
    pub unknown_count: u64,
    /// Distinct unknown element names (at most [`MAX_UNKNOWN_NAMES`]).
    pub unknown_names: BTreeSet<String>,
    binary_reported: bool,
}

impl<'a> XmlDoc<'a> {
    /// A document over `bytes`, read from `path`.
    pub fn new(path: &SourcePath, bytes: &'a [u8]) -> Self {
        XmlDoc {
            path: *path,
            bytes,
            index: OnceLock::new(),
            problems: Parsed::ok(()),
            declared_entities: BTreeSet::new(),
            unknown_count: 0,
            unknown_names: BTreeSet::new(),
            binary_reported: false,
        }
    }

    /// The location of byte `offset`.
    pub fn location(&self, offset: usize) -> Location {
        self.index
            .get_or_init(|| LineIndex::new(self.bytes))
            .location(&self.path, self.bytes, offset)
    }

    /// Records an error of `kind` at `offset`.
    pub fn error(&mut self, offset: usize, kind: ParseErrorKind) {
        let location = self.location(offset);
        self.problems.push(ParseError::error(location, kind));
    }

    /// Records a warning of `kind` at `offset`.
    pub fn warning(&mut self, offset: usize, kind: ParseErrorKind) {
        let location = self.location(offset);
        self.problems.push(ParseError::warning(location, kind));
    }

    /// Records an "expected …, found …" error at `offset`.
    pub fn expected(&mut self, offset: usize, expected: impl Into<String>, found: &str) {
        let location = self.location(offset);
        self.problems
            .push(ParseError::expected(location, expected, found));
    }

    /// Records a warning with `message` at `offset`: input the client's own
    /// parser accepts (an unescaped `&`, an undefined entity kept as written).
    pub fn lenient(&mut self, offset: usize, message: impl Into<String>) {
        self.warning(
            offset,
            ParseErrorKind::Invalid {
                message: message.into(),
            },
        );
    }

    /// Whether the file ends inside an element or a tag (a copy taken while
    /// it was written).
    pub fn is_truncated(&self) -> bool {
        self.problems
            .errors
            .iter()
            .any(|error| matches!(error.kind, ParseErrorKind::Truncated { .. }))
    }

    /// Reports the file's truncation (an element left open at its end) as
    /// a warning, not an error: for a file whose reader knows what the
    /// client does with a file cut short.
    pub fn truncation_as_warning(&mut self) {
        let (truncated, errors): (Vec<_>, Vec<_>) = std::mem::take(&mut self.problems.errors)
            .into_iter()
            .partition(|error| matches!(error.kind, ParseErrorKind::Truncated { .. }));
        self.problems.errors = errors;
        for mut problem in truncated {
            problem.severity = crate::parse::error::Severity::Warning;
            self.problems.warnings.push(problem);
        }
    }

    /// Records an `Invalid` error with `message` at `offset`.
    pub fn invalid(&mut self, offset: usize, message: impl Into<String>) {
        self.error(
            offset,
            ParseErrorKind::Invalid {
                message: message.into(),
            },
        );
    }

    /// Ends reading: `value` with the problems found, each list in file
    /// order (markup problems are found before value problems).
    pub fn into_parsed<T>(self, value: T) -> Parsed<T> {
        let mut errors = self.problems.errors;
        let mut warnings = self.problems.warnings;
        errors.sort_by_key(|error| (error.location.line, error.location.column));
        warnings.sort_by_key(|warning| (warning.location.line, warning.location.column));
        Parsed {
            value,
            errors,
            warnings,
        }
    }

    /// The note on this file for [`HostRecord::files`](crate::trace::state::HostRecord::files).
    pub fn file_note(&self, kind: FileKind) -> FileNote {
        FileNote {
            path: self.path.to_string(),
            kind,
            unknown_elements: self.unknown_count,
            unknown_names: self.unknown_names.iter().cloned().collect(),
        }
    }

    /// Counts `element` as unknown (ignored).
    pub fn unknown(&mut self, element: &Element) {
        self.unknown_count += 1;
        if self.unknown_names.len() < MAX_UNKNOWN_NAMES {
            self.unknown_names.insert(element.name.clone());
        }
    }

    /// Parses the whole input into its root element (`None` if it has none),
    /// recording every problem on the way.
    pub fn parse_root(&mut self) -> Option<Element> {
        let bytes = self.bytes;
        let base = if bytes.starts_with(b"\xef\xbb\xbf") {
            3
        } else {
            0
        };
        let mut reader = Reader::from_reader(&bytes[base..]);
        let config = reader.config_mut();
        config.check_end_names = false;
        config.allow_unmatched_ends = true;
        config.expand_empty_elements = false;
        config.trim_text(false);
        let mut builder = TreeBuilder::default();
        loop {
            let offset = base + to_usize(reader.buffer_position());
            match reader.read_event() {
                Ok(Event::Start(start)) => {
                    let element = self.open_element(&start, offset);
                    if builder.stack.len() >= MAX_DEPTH {
                        self.invalid(
                            offset,
                            format!(
                                "elements nested deeper than {MAX_DEPTH} levels at <{}>; \
                                 the rest of the file is ignored",
                                element.name
                            ),
                        );
                        builder.broken = true;
                        break;
                    }
                    builder.stack.push(element);
                }
                Ok(Event::Empty(start)) => {
                    let mut element = self.open_element(&start, offset);
                    element.complete = true;
                    builder.attach(self, element);
                }
                Ok(Event::End(end)) => {
                    let name = String::from_utf8_lossy(end.name().as_ref()).into_owned();
                    builder.close(self, &name, offset);
                }
                Ok(Event::Text(text)) => {
                    if builder.stack.is_empty() {
                        // The client ignores anything outside the root element.
                        continue;
                    }
                    let decoded = self.decode_text(&text, offset, &builder);
                    let unescaped = self.unescape(&decoded, offset, &builder);
                    if let Some(top) = builder.stack.last_mut() {
                        top.text.push_str(&unescaped);
                    }
                }
                Ok(Event::CData(cdata)) => {
                    // Content starts after `<![CDATA[`.
                    let decoded = self.decode_text(&cdata, offset + 9, &builder);
                    if let Some(top) = builder.stack.last_mut() {
                        top.text.push_str(&decoded);
                    }
                }
                Ok(Event::DocType(doctype)) => self.check_doctype(&doctype, offset),
                Ok(Event::Eof) => break,
                Ok(_) => {}
                Err(err) => {
                    let at = base + to_usize(reader.error_position());
                    self.syntax_error(&err, at, &builder);
                    builder.broken = true;
                    break;
                }
            }
        }
        builder.finish(self, bytes.len())
    }

    fn open_element(&mut self, start: &BytesStart<'_>, offset: usize) -> Element {
        let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
        let mut attrs = Vec::new();
        for attr in start.attributes().with_checks(false) {
            match attr {
                Ok(attr) => {
                    let key = String::from_utf8_lossy(attr.key.as_ref()).into_owned();
                    let raw = decode_lossy_latin1(&attr.value);
                    let value = self.unescape_in(&raw, offset, &name);
                    attrs.push((key, value));
                }
                Err(err) => self.expected(
                    offset,
                    format!("attributes like name=\"value\" in <{name}>"),
                    &err.to_string(),
                ),
            }
        }
        Element {
            name,
            offset,
            attrs,
            ..Element::default()
        }
    }

    /// UTF-8 text as is; other bytes read as Latin-1 with a warning, and
    /// control bytes reported once per file as binary data.
    fn decode_text(&mut self, raw: &[u8], offset: usize, builder: &TreeBuilder) -> String {
        let name = builder.top_name();
        if !self.binary_reported {
            if let Some(pos) = raw
                .iter()
                .position(|byte| *byte < 0x20 && !matches!(byte, b'\t' | b'\n' | b'\r'))
            {
                self.binary_reported = true;
                self.invalid(
                    offset + pos,
                    format!(
                        "binary data (byte 0x{:02x}) in the text of <{name}>; expected text",
                        raw[pos]
                    ),
                );
            }
        }
        match std::str::from_utf8(raw) {
            Ok(text) => text.to_string(),
            Err(err) => {
                let pos = err.valid_up_to();
                self.warning(
                    offset + pos,
                    ParseErrorKind::Invalid {
                        message: format!("text of <{name}> is not UTF-8; read as Latin-1"),
                    },
                );
                raw.iter().map(|byte| char::from(*byte)).collect()
            }
        }
    }

    fn unescape(&mut self, text: &str, offset: usize, builder: &TreeBuilder) -> String {
        let name = builder.top_name().to_string();
        self.unescape_at(text, offset, &name)
    }

    fn unescape_in(&mut self, text: &str, offset: usize, element: &str) -> String {
        // Attribute values: positions inside the tag are not tracked; errors
        // point at the element.
        let mut out = String::with_capacity(text.len());
        let mut problems = Vec::new();
        unescape_into(
            text,
            &self.declared_entities,
            &mut out,
            &mut |_, problem| problems.push(problem),
        );
        for problem in problems {
            self.lenient(offset, format!("{problem} in an attribute of <{element}>"));
        }
        out
    }

    fn unescape_at(&mut self, text: &str, offset: usize, element: &str) -> String {
        if !text.contains('&') {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut problems = Vec::new();
        unescape_into(
            text,
            &self.declared_entities,
            &mut out,
            &mut |at, problem| problems.push((at, problem)),
        );
        for (at, problem) in problems {
            // `at` is a char index of the decoded text; map back to bytes of
            // the raw text (equal for UTF-8 input, close enough for Latin-1).
            let byte_at = text
                .char_indices()
                .nth(at)
                .map_or(text.len(), |(index, _)| index);
            self.lenient(offset + byte_at, format!("{problem} in <{element}>"));
        }
        out
    }

    fn check_doctype(&mut self, doctype: &[u8], offset: usize) {
        let text = String::from_utf8_lossy(doctype);
        let mut names = Vec::new();
        let mut rest = text.as_ref();
        while let Some(pos) = rest.find("<!ENTITY") {
            rest = &rest[pos + 8..];
            let name: String = rest
                .trim_start()
                .trim_start_matches('%')
                .trim_start()
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '"' && *c != '\'' && *c != '>')
                .collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
        if names.is_empty() {
            return;
        }
        let shown: Vec<String> = names.iter().take(3).map(|n| format!("&{n};")).collect();
        let more = if names.len() > 3 { ", …" } else { "" };
        self.invalid(
            offset,
            format!(
                "DOCTYPE declares entities ({}{more}); declared entities are never expanded \
                 (guard against entity-expansion attacks such as \"billion laughs\"), \
                 references to them are kept as written",
                shown.join(", ")
            ),
        );
        self.declared_entities.extend(names);
    }

    fn syntax_error(&mut self, err: &quick_xml::Error, at: usize, builder: &TreeBuilder) {
        use quick_xml::errors::SyntaxError;
        if let quick_xml::Error::Syntax(syntax) = err {
            let what = match syntax {
                SyntaxError::UnclosedTag => "a tag",
                SyntaxError::UnclosedComment => "a comment",
                SyntaxError::UnclosedCData => "a CDATA section",
                SyntaxError::UnclosedDoctype => "a DOCTYPE",
                SyntaxError::UnclosedPIOrXmlDecl => "a processing instruction",
                SyntaxError::InvalidBangMarkup => "markup starting with <!",
            };
            let inside = match builder.stack.last() {
                Some(open) => format!(" inside <{}>", open.name),
                None => String::new(),
            };
            self.error(
                at,
                ParseErrorKind::Truncated {
                    message: format!("in the middle of {what}{inside}"),
                },
            );
            return;
        }
        self.error(
            at,
            ParseErrorKind::Xml {
                message: err.to_string().to_lowercase(),
            },
        );
    }

    /// Warns when `root` is absent or not named `expected`; returns the root
    /// if it is usable.
    pub fn expect_root(&mut self, root: Option<Element>, expected: &[&str]) -> Option<Element> {
        let names: Vec<String> = expected.iter().map(|n| format!("<{n}>")).collect();
        match root {
            Some(root) if expected.contains(&root.name.as_str()) => Some(root),
            Some(root) => {
                self.expected(
                    root.offset,
                    format!("root element {}", names.join(" or ")),
                    &format!("<{}>", root.name),
                );
                None
            }
            None => {
                if self.problems.errors.is_empty() {
                    self.expected(
                        0,
                        format!("root element {}", names.join(" or ")),
                        &String::from_utf8_lossy(&self.bytes[..self.bytes.len().min(40)]),
                    );
                }
                None
            }
        }
    }

    /// Reads `element`'s value as `T` (an error is recorded when it does not
    /// parse; elements left open by a broken file give `None` silently).
    pub fn read<T: XmlValue>(&mut self, element: &Element) -> Option<T> {
        if !element.complete {
            return None;
        }
        T::read(self, element)
    }

    /// A flag: present = true unless its text is `0` (or `false`).
    pub fn flag(&mut self, element: &Element) -> bool {
        self.read::<bool>(element).unwrap_or(false)
    }

    /// The trimmed text; `None` when empty or the element is incomplete.
    pub fn string(&mut self, element: &Element) -> Option<String> {
        self.read::<String>(element)
    }
}

/// Parses a whole document at `path` with `read`; a document it cannot use
/// gives `T::default()` and the problems.
pub fn parse_whole<T: Default>(
    path: &SourcePath,
    bytes: &[u8],
    read: impl FnOnce(&mut XmlDoc<'_>) -> Option<T>,
) -> Parsed<T> {
    let mut doc = XmlDoc::new(path, bytes);
    let value = read(&mut doc).unwrap_or_default();
    doc.into_parsed(value)
}

/// A value type an element's text can be read as.
pub trait XmlValue: Sized {
    /// Reads the value of `element`, recording an error in `doc` when it does
    /// not parse.
    fn read(doc: &mut XmlDoc<'_>, element: &Element) -> Option<Self>;
}

/// Records "expected `what` in <element>, found "text"" at the element.
fn value_error<T>(doc: &mut XmlDoc<'_>, element: &Element, what: &str) -> Option<T> {
    let expected = format!("{what} in <{}>", element.name);
    doc.expected(element.offset, expected, element.text.trim());
    None
}

impl XmlValue for f64 {
    fn read(doc: &mut XmlDoc<'_>, element: &Element) -> Option<Self> {
        let text = element.text.trim();
        let value = text.parse::<f64>().ok();
        value.or_else(|| value_error(doc, element, "a number"))
    }
}

impl XmlValue for i64 {
    fn read(doc: &mut XmlDoc<'_>, element: &Element) -> Option<Self> {
        let text = element.text.trim();
        if let Ok(value) = text.parse::<i64>() {
            return Some(value);
        }
        match text.parse::<f64>() {
            Ok(value) if value.fract() == 0.0 && value.abs() < 9.0e15 => Some(value as i64),
            _ => value_error(doc, element, "an integer"),
        }
    }
}

impl XmlValue for bool {
    fn read(doc: &mut XmlDoc<'_>, element: &Element) -> Option<Self> {
        let text = element.text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case("true") {
            return Some(true);
        }
        if text.eq_ignore_ascii_case("false") {
            return Some(false);
        }
        match text.parse::<f64>() {
            Ok(value) => Some(value != 0.0),
            Err(_) => value_error(
                doc,
                element,
                &format!("a flag (<{}/>, 0 or 1)", element.name),
            ),
        }
    }
}

impl XmlValue for String {
    fn read(_doc: &mut XmlDoc<'_>, element: &Element) -> Option<Self> {
        let text = element.text.trim();
        (!text.is_empty()).then(|| text.to_string())
    }
}

impl XmlValue for ResourceType {
    fn read(_doc: &mut XmlDoc<'_>, element: &Element) -> Option<Self> {
        ResourceType::from_name(element.text.trim())
    }
}

/// Sets the `Option` fields and `bool` flags of `$target` whose names equal
/// the element name of `$el`; evaluates to `true` when one matched.
///
/// `fields!(doc, el, target, [a, b], flags [c, d])`.
macro_rules! fields {
    ($doc:expr, $el:expr, $target:expr, [$($opt:ident),* $(,)?] $(, flags [$($flag:ident),* $(,)?])?) => {
        match $el.name.as_str() {
            $( stringify!($opt) => {
                if let Some(value) = $doc.read($el) {
                    $target.$opt = Some(value);
                }
                true
            } )*
            $($( stringify!($flag) => {
                $target.$flag = $doc.flag($el);
                true
            } )*)?
            _ => false,
        }
    };
}
pub(crate) use fields;

#[derive(Default)]
struct TreeBuilder {
    stack: Vec<Element>,
    root: Option<Element>,
    /// A syntax error ended reading early.
    broken: bool,
}

impl TreeBuilder {
    fn top_name(&self) -> &str {
        self.stack
            .last()
            .map_or("", |element| element.name.as_str())
    }

    fn attach(&mut self, doc: &mut XmlDoc<'_>, element: Element) {
        if let Some(parent) = self.stack.last_mut() {
            parent.children.push(element);
        } else if let Some(root) = &self.root {
            let expected = format!("end of file after </{}>", root.name);
            doc.expected(element.offset, expected, &format!("<{}>", element.name));
        } else {
            self.root = Some(element);
        }
    }

    fn close(&mut self, doc: &mut XmlDoc<'_>, name: &str, offset: usize) {
        let matching = self.stack.iter().rposition(|open| open.name == name);
        let depth = match (matching, self.stack.len()) {
            (_, 0) => {
                let expected = "no end tag outside the root element";
                doc.expected(offset, expected, &format!("</{name}>"));
                return;
            }
            (Some(depth), _) => depth,
            // An end tag that matches no open element is most likely a
            // misspelled end tag of the innermost one: it closes that.
            (None, n_open) => n_open - 1,
        };
        if depth + 1 < self.stack.len() || matching.is_none() {
            let innermost = &self.stack[self.stack.len() - 1];
            let (line, column) = {
                let location = doc.location(innermost.offset);
                (location.line, location.column)
            };
            let expected = format!(
                "</{}> (closing <{}> opened at {line}:{column})",
                innermost.name, innermost.name
            );
            doc.expected(offset, expected, &format!("</{name}>"));
        }
        while self.stack.len() > depth + 1 {
            if let Some(mut unclosed) = self.stack.pop() {
                // Its content was read up to an end tag: keep it.
                unclosed.complete = true;
                self.attach(doc, unclosed);
            }
        }
        if let Some(mut element) = self.stack.pop() {
            element.complete = true;
            self.attach(doc, element);
        }
    }

    fn finish(mut self, doc: &mut XmlDoc<'_>, end: usize) -> Option<Element> {
        if let Some(innermost) = self.stack.last() {
            if !self.broken {
                let location = doc.location(innermost.offset);
                let message = format!(
                    "<{}> opened at {}:{} is not closed",
                    innermost.name, location.line, location.column
                );
                doc.error(end, ParseErrorKind::Truncated { message });
            }
        }
        while let Some(unclosed) = self.stack.pop() {
            self.attach(doc, unclosed);
        }
        self.root
    }
}

fn to_usize(position: u64) -> usize {
    usize::try_from(position).unwrap_or(usize::MAX)
}

/// Attribute bytes as text: UTF-8, else Latin-1.
fn decode_lossy_latin1(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(text) => text.to_string(),
        Err(_) => raw.iter().map(|byte| char::from(*byte)).collect(),
    }
}

/// Expands the predefined entities and character references of `text` into
/// `out`. Entities named in `declared` are kept as written; any other problem
/// is reported to `report` with the char index of its `&`.
fn unescape_into(
    text: &str,
    declared: &BTreeSet<String>,
    out: &mut String,
    report: &mut dyn FnMut(usize, String),
) {
    let chars: Vec<char> = text.chars().collect();
    let mut idx = 0;
    while idx < chars.len() {
        let c = chars[idx];
        if c != '&' {
            out.push(c);
            idx += 1;
            continue;
        }
        // A reference is `&NAME;` or `&#N;`; anything else is a bare `&`.
        let end = chars[idx + 1..]
            .iter()
            .take(40)
            .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, '#' | '_' | '-' | '.')))
            .map(|pos| idx + 1 + pos)
            .filter(|&end| end > idx + 1 && chars[end] == ';');
        let Some(end) = end else {
            let found: String = chars[idx..].iter().take(12).collect();
            report(
                idx,
                format!(
                    "unescaped \"&\" read as a literal & (as the client's parser does): \
                     expected an entity reference like &amp;, found \"{found}\""
                ),
            );
            out.push('&');
            idx += 1;
            continue;
        };
        let name: String = chars[idx + 1..end].iter().collect();
        let expanded = match name.as_str() {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => {
                if let Some(number) = name.strip_prefix('#') {
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => number.parse::<u32>().ok(),
                    };
                    match code.and_then(char::from_u32) {
                        Some(c) => Some(c),
                        None => {
                            report(idx, format!("invalid character reference \"&{name};\""));
                            None
                        }
                    }
                } else {
                    if !declared.contains(&name) {
                        report(
                            idx,
                            format!(
                                "undefined entity \"&{name};\" (only &lt; &gt; &amp; &quot; \
                                 &apos; and &#N; are defined)"
                            ),
                        );
                    }
                    None
                }
            }
        };
        match expanded {
            Some(c) => out.push(c),
            None => out.extend(&chars[idx..=end]),
        }
        idx = end + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Option<Element>, Vec<String>) {
        let path: SourcePath = SourcePath::from("t.xml");
        let mut doc = XmlDoc::new(&path, text.as_bytes());
        let root = doc.parse_root();
        let problems = doc
            .problems
            .errors
            .iter()
            .chain(&doc.problems.warnings)
            .map(|e| e.to_string())
            .collect();
        (root, problems)
    }

    #[test]
    fn tree_with_text_entities_and_empty_elements() {
        let (root, problems) = parse("<a>\n  <b x=\"1&amp;2\">T &lt;3&#65;</b><c/>\n</a>");
        assert!(problems.is_empty(), "{problems:?}");
        let root = root.unwrap_or_default();
        assert_eq!(root.name, "a");
        assert_eq!(root.children.len(), 2);
        assert_eq!(root.children[0].text, "T <3A");
        assert_eq!(root.children[0].attr("x"), Some("1&2"));
        assert!(root.children[1].complete);
        assert_eq!(root.children[0].offset, 6);
    }

    #[test]
    fn truncated_names_innermost_open_element() {
        let (root, problems) = parse("<a>\n<b>\n<c>12");
        assert_eq!(
            problems,
            vec!["t.xml:3:6: unexpected end of file: <c> opened at 3:1 is not closed"]
        );
        let root = root.unwrap_or_default();
        assert!(!root.complete);
        assert_eq!(root.children[0].children[0].text, "12");
    }

    #[test]
    fn mismatched_end_tag_recovers() {
        let (root, problems) = parse("<a><b><c>1</b><d>2</d></a>");
        assert_eq!(
            problems,
            vec!["t.xml:1:11: expected </c> (closing <c> opened at 1:7), found \"</b>\""]
        );
        let root = root.unwrap_or_default();
        assert_eq!(root.children.len(), 2);
        assert!(root.complete);
    }

    #[test]
    fn misspelled_end_tag_closes_the_innermost_element() {
        let (root, problems) = parse("<a><b>2</bb><c/></a>");
        assert_eq!(
            problems,
            vec!["t.xml:1:8: expected </b> (closing <b> opened at 1:4), found \"</bb>\""]
        );
        let root = root.unwrap_or_default();
        assert_eq!(root.children.len(), 2);
        assert!(root.children[0].complete);
        assert_eq!(root.children[0].text, "2");
    }

    #[test]
    fn undefined_entity_is_reported_where_it_is() {
        let (_, problems) = parse("<a>\n <b>x &nbsp; y</b></a>");
        assert_eq!(
            problems,
            vec![
                "t.xml:2:7: warning: undefined entity \"&nbsp;\" (only &lt; &gt; &amp; &quot; \
                 &apos; and &#N; are defined) in <b>"
            ]
        );
    }

    #[test]
    fn a_bare_ampersand_is_read_literally_with_a_warning() {
        let (root, problems) = parse("<a>\n<url>http://x/d?a=1&auth=k;z</url></a>");
        assert_eq!(
            problems,
            vec![
                "t.xml:2:20: warning: unescaped \"&\" read as a literal & (as the client's \
                 parser does): expected an entity reference like &amp;, found \"&auth=k;z\" in \
                 <url>"
            ]
        );
        let root = root.unwrap_or_default();
        assert_eq!(root.children[0].text, "http://x/d?a=1&auth=k;z");
    }

    #[test]
    fn doctype_entities_are_never_expanded() {
        let (root, problems) =
            parse("<!DOCTYPE a [<!ENTITY x \"xx\"><!ENTITY y \"&x;&x;\">]>\n<a>&y;</a>");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("never expanded"));
        assert_eq!(root.unwrap_or_default().text, "&y;");
    }

    #[test]
    fn latin1_text_is_a_warning() {
        let bytes = b"<a><u>J\xfcrgen</u></a>";
        let path: SourcePath = SourcePath::from("t.xml");
        let mut doc = XmlDoc::new(&path, bytes);
        let root = doc.parse_root().unwrap_or_default();
        assert_eq!(root.children[0].text, "Jürgen");
        assert_eq!(doc.problems.errors.len(), 0);
        assert_eq!(
            doc.problems.warnings[0].to_string(),
            "t.xml:1:8: warning: text of <u> is not UTF-8; read as Latin-1"
        );
    }

    #[test]
    fn values_are_lenient() {
        let (root, _) =
            parse("<a><n> 4.000000 </n><f/><g>0</g><h>1</h><x>abc</x><t>\n name \n</t></a>");
        let root = root.unwrap_or_default();
        let path: SourcePath = SourcePath::from("t.xml");
        let mut doc = XmlDoc::new(&path, b"");
        assert_eq!(doc.read::<i64>(&root.children[0]), Some(4));
        assert_eq!(doc.read::<f64>(&root.children[0]), Some(4.0));
        assert!(doc.flag(&root.children[1]));
        assert!(!doc.flag(&root.children[2]));
        assert!(doc.flag(&root.children[3]));
        assert_eq!(doc.string(&root.children[5]), Some("name".to_string()));
        assert_eq!(doc.read::<f64>(&root.children[4]), None);
        assert_eq!(doc.problems.errors.len(), 1);
    }

    #[test]
    fn deep_nesting_is_rejected_without_overflow() {
        let text = "<a>".repeat(100_000);
        let (_, problems) = parse(&text);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("nested deeper"));
    }
}

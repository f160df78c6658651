//! The GUI RPC `<get_messages>` reply (spec/formats-log.md §1.3):
//! `<msgs><msg><project/><pri/><seqno/><body/><time/></msg>…</msgs>`, possibly
//! inside `<boinc_gui_rpc_reply>`, read with quick-xml.
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! The reply is a window of the last `max_event_log_lines` messages, so it is
//! read whole (up to [`MAX_REPLY_BYTES`]) and byte offsets are turned into
//! line:column with [`LineIndex`]. Bodies are CDATA from 7.6 on; before, they
//! are raw text in which the client did not escape `&` or `<`, so inside
//! `<body>` stray tags (`<br>`) are put back as text and a bare `&` is kept.
//! An undefined entity (`&nbsp;`) is an error (the body keeps it verbatim).
//! A reply cut short is an error at the end of the file; the unfinished
//! `<msg>` is dropped. A reply to a request with `<translatable/>` (the
//! Manager's) wraps translatable fragments as `_("...")`; the markers are
//! removed, giving the body a plain request gets
//! (`_("Message from server"): x` → `Message from server: x`).

use crate::parse::error::{ParseError, ParseErrorKind};
use crate::source::SourcePath;
use crate::source::{LineIndex, Location};
use crate::trace::EventTime;
use quick_xml::errors::{Error as XmlError, SyntaxError};
use quick_xml::events::Event;
use quick_xml::Reader;

/// Largest reply read; the rest is ignored with a warning.
pub const MAX_REPLY_BYTES: usize = 256 * 1024 * 1024;

/// What an entity error says was expected.
const ENTITY: &str = "an XML entity (&amp;, &lt;, &gt;, &quot;, &apos; or &#N;)";

/// One `<msg>` of the reply.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcMessage {
    /// Where `<msg>` starts.
    pub location: Location,
    /// `<time>`, seconds since the epoch (`EventTime::None` if absent or bad).
    pub time: EventTime,
    /// `<project>`; `None` when empty.
    pub project: Option<String>,
    /// `<body>` without its surrounding newlines.
    pub body: String,
    /// `<pri>` (1 info, 2 user alert, 3 internal error); `None` if absent or
    /// not a small integer.
    pub priority: Option<u8>,
}

/// True when `text` (the start of a file) is an XML document whose root is
/// `<msgs>`, or `<boinc_gui_rpc_reply>` holding `<msgs>`.
pub fn is_msgs_document(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("<?") {
            match after.split_once("?>") {
                Some((_, after)) => rest = after.trim_start(),
                None => return false,
            }
        } else if let Some(after) = rest.strip_prefix("<!--") {
            match after.split_once("-->") {
                Some((_, after)) => rest = after.trim_start(),
                None => return false,
            }
        } else {
            break;
        }
    }
    let root_is = |name: &str| {
        rest.strip_prefix('<')
            .and_then(|after| after.strip_prefix(name))
            .is_some_and(|after| after.starts_with(['>', ' ', '/', '\r', '\n', '\t']))
    };
    root_is("msgs") || (root_is("boinc_gui_rpc_reply") && rest.contains("<msgs"))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Project,
    Body,
    Time,
    Pri,
    Other,
}

/// Reads the reply in `bytes` (already decoded to text), calling `on_message`
/// for each complete `<msg>`; problems go to `problems`.
pub fn read_messages(
    path: &SourcePath,
    text: &str,
    problems: &mut Vec<ParseError>,
    on_message: &mut dyn FnMut(RpcMessage),
) {
    let bytes = text.as_bytes();
    let index = LineIndex::new(bytes);
    let location = |offset: usize| index.location(path, bytes, offset);
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = false;

    let mut msg_start: Option<usize> = None;
    let mut field: Option<Field> = None;
    let mut field_text = String::new();
    let (mut project, mut body, mut time) = (None::<String>, String::new(), EventTime::None);
    let mut priority: Option<u8> = None;
    loop {
        let offset = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(XmlError::Syntax(
                SyntaxError::UnclosedCData
                | SyntaxError::UnclosedTag
                | SyntaxError::UnclosedComment
                | SyntaxError::UnclosedPIOrXmlDecl
                | SyntaxError::UnclosedDoctype,
            )) => Event::Eof,
            Err(err) => {
                let at = reader.error_position() as usize;
                problems.push(ParseError::error(
                    location(at),
                    ParseErrorKind::Xml {
                        message: err.to_string().to_lowercase(),
                    },
                ));
                return;
            }
        };
        match event {
            Event::Start(start) if field == Some(Field::Body) => {
                field_text.push('<');
                field_text.push_str(&String::from_utf8_lossy(&start));
                field_text.push('>');
            }
            Event::Empty(empty) if field == Some(Field::Body) => {
                field_text.push('<');
                field_text.push_str(&String::from_utf8_lossy(&empty));
                field_text.push_str("/>");
            }
            Event::End(end) if field == Some(Field::Body) && end.name().as_ref() != b"body" => {
                field_text.push_str("</");
                field_text.push_str(&String::from_utf8_lossy(end.name().as_ref()));
                field_text.push('>');
            }
            Event::Start(start) => match start.name().as_ref() {
                b"msg" => {
                    msg_start = Some(offset);
                    (project, body, time) = (None, String::new(), EventTime::None);
                    priority = None;
                }
                name if msg_start.is_some() => {
                    field = Some(match name {
                        b"project" => Field::Project,
                        b"body" => Field::Body,
                        b"time" => Field::Time,
                        b"pri" => Field::Pri,
                        _ => Field::Other,
                    });
                    field_text.clear();
                }
                _ => {}
            },
            Event::Text(raw) if field.is_some() => {
                let raw = String::from_utf8_lossy(&raw);
                unescape_lenient(&raw, &mut field_text, |at, entity| {
                    problems.push(ParseError::expected(location(offset + at), ENTITY, entity));
                });
            }
            Event::CData(data) if field.is_some() => {
                field_text.push_str(&String::from_utf8_lossy(&data));
            }
            Event::End(end) => match end.name().as_ref() {
                b"msg" => {
                    if let Some(start) = msg_start.take() {
                        on_message(RpcMessage {
                            location: location(start),
                            time,
                            project: project.take(),
                            body: std::mem::take(&mut body),
                            priority: priority.take(),
                        });
                    }
                    field = None;
                }
                _ => {
                    match field.take() {
                        Some(Field::Project) => {
                            let name = field_text.trim();
                            project = (!name.is_empty()).then(|| name.to_string());
                        }
                        Some(Field::Body) => {
                            body = untranslatable(field_text.trim_matches(['\n', '\r']));
                        }
                        Some(Field::Time) => time = unix_time(field_text.trim()),
                        Some(Field::Pri) => priority = field_text.trim().parse::<u8>().ok(),
                        Some(Field::Other) | None => {}
                    }
                    field_text.clear();
                }
            },
            Event::Eof => {
                if let Some(start) = msg_start {
                    let (line, _) = index.line_col(bytes, start);
                    problems.push(ParseError::error(
                        location(bytes.len()),
                        ParseErrorKind::Truncated {
                            message: format!("<msg> opened at line {line} is not closed"),
                        },
                    ));
                }
                return;
            }
            _ => {}
        }
    }
}

/// Appends `raw` to `out` with the XML entities resolved. A `&` that does not
/// start a reference (`& `, `&x` without `;`) is kept as it is, since pre-7.6
/// clients did not escape bodies; a well-formed reference to an undefined
/// entity is kept verbatim and reported through `on_undefined(byte offset, text)`.
fn unescape_lenient(raw: &str, out: &mut String, mut on_undefined: impl FnMut(usize, &str)) {
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
            .unwrap_or(after.len());
        let reference = &after[..name_len];
        if name_len == 0 || !after[name_len..].starts_with(';') {
            out.push('&');
            rest = after;
            continue;
        }
        let resolved = match reference {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            number => number.strip_prefix('#').and_then(|digits| {
                let code = match digits.strip_prefix('x') {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => digits.parse::<u32>().ok(),
                };
                code.and_then(char::from_u32)
            }),
        };
        let whole = &rest[amp..amp + name_len + 2];
        match resolved {
            Some(c) => out.push(c),
            None => {
                on_undefined(raw.len() - rest.len() + amp, whole);
                out.push_str(whole);
            }
        }
        rest = &after[name_len + 1..];
    }
    out.push_str(rest);
}

/// The body with the `_("...")` markers of translatable fragments removed
/// (spec §1.3); a `_("` without its closing `")` is kept as it is.
fn untranslatable(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(open) = rest.find("_(\"") {
        let inner = &rest[open + 3..];
        let Some(close) = inner.find("\")") else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&inner[..close]);
        rest = &inner[close + 2..];
    }
    out.push_str(rest);
    out
}

/// `<time>`: integer seconds (a fraction, if any, is dropped).
fn unix_time(text: &str) -> EventTime {
    if let Ok(secs) = text.parse::<i64>() {
        return EventTime::Unix(secs);
    }
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() => EventTime::Unix(secs.trunc() as i64),
        _ => EventTime::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Vec<RpcMessage>, Vec<String>) {
        let path: SourcePath = SourcePath::from("m.xml");
        let mut messages = Vec::new();
        let mut problems = Vec::new();
        read_messages(&path, text, &mut problems, &mut |m| messages.push(m));
        (messages, problems.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn recognises_msgs_roots() {
        assert!(is_msgs_document("<?xml version=\"1.0\"?>\n<msgs>\n"));
        assert!(is_msgs_document("<boinc_gui_rpc_reply>\n<msgs>\n"));
        assert!(!is_msgs_document("<boinc_gui_rpc_reply>\n<cc_status>"));
        assert!(!is_msgs_document("<client_state>"));
        assert!(!is_msgs_document("<msgsx>"));
    }

    #[test]
    fn cdata_and_raw_bodies() {
        let text = "<boinc_gui_rpc_reply>\n<msgs>\n<msg>\n <project>SETI@home</project>\n \
                    <pri>1</pri>\n <seqno>4</seqno>\n <body><![CDATA[\nRequesting new tasks for CPU\n]]></body>\n \
                    <time>1555490613</time>\n</msg>\n<msg>\n <project></project>\n <pri>1</pri>\n \
                    <body>\nRPC to A; asking for 1.0/2.00<br> & more\n</body>\n <time>1555490614</time>\n</msg>\n\
                    </msgs>\n</boinc_gui_rpc_reply>\n";
        let (messages, problems) = read(text);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].project.as_deref(), Some("SETI@home"));
        assert_eq!(messages[0].body, "Requesting new tasks for CPU");
        assert_eq!(messages[0].time, EventTime::Unix(1_555_490_613));
        assert_eq!(messages[0].location.line, 3);
        assert_eq!(messages[1].project, None);
        assert_eq!(messages[1].body, "RPC to A; asking for 1.0/2.00<br> & more");
        assert_eq!(messages[0].priority, Some(1));
    }

    #[test]
    fn translatable_markers_are_removed() {
        assert_eq!(
            untranslatable("_(\"Message from server\"): <a href=\"x\">news</a>"),
            "Message from server: <a href=\"x\">news</a>"
        );
        assert_eq!(untranslatable("a _(\"b\") c _(\"d\")"), "a b c d");
        assert_eq!(untranslatable("f(x) _(\"open"), "f(x) _(\"open");
        assert_eq!(untranslatable(""), "");
        let (messages, _) = read(
            "<msgs>\n<msg>\n <body><![CDATA[\n_(\"Message from server\"): hi\n]]></body>\n</msg>\n</msgs>\n",
        );
        assert_eq!(messages[0].body, "Message from server: hi");
    }

    #[test]
    fn pri_is_kept_per_message() {
        let (messages, problems) = read(
            "<msgs>\n<msg>\n <pri>3</pri>\n <body>\n[error] x\n</body>\n</msg>\n\
             <msg>\n <body>\ny\n</body>\n</msg>\n<msg>\n <pri>x</pri>\n <body>z</body>\n</msg>\n</msgs>\n",
        );
        assert!(problems.is_empty(), "{problems:?}");
        let priorities: Vec<Option<u8>> = messages.iter().map(|m| m.priority).collect();
        assert_eq!(priorities, vec![Some(3), None, None]);
    }

    #[test]
    fn truncated_and_bad_entity() {
        let (messages, problems) = read(
            "<msgs>\n<msg>\n <body>\nx &nbsp; y\n</body>\n<time>5</time>\n</msg>\n<msg>\n <body>",
        );
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].body, "x &nbsp; y");
        assert_eq!(
            problems,
            vec![
                "m.xml:4:3: expected an XML entity (&amp;, &lt;, &gt;, &quot;, &apos; or &#N;), \
                 found \"&nbsp;\""
                    .to_string(),
                "m.xml:9:8: unexpected end of file: <msg> opened at line 8 is not closed"
                    .to_string(),
            ]
        );
    }
}

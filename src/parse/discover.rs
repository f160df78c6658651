//! Finds the inputs below the paths a user gave, and tells what each is by
//! its content, never by its file name.
//!
//! A path may be a BOINC data directory, an emulator scenario folder (with
//! `inputs/` and `outputs/`), any folder of such files, a single file, or `-`
//! for standard input. `.gz` files are read transparently.

use crate::parse::error::{ParseError, ParseErrorKind};
use crate::parse::event_log;
use crate::parse::input::{display_path, open_input_buffered};
use crate::source::{Location, SourcePath};
use crate::trace::FileKind;
use std::io::Read;
use std::path::{Path, PathBuf};

/// How deep below a given directory inputs are looked for
/// (`DIR/projects/NAME/app_config.xml` is three levels down).
const MAX_DEPTH: usize = 4;
/// How much of a file is read to decide its kind.
const HEAD_BYTES: u64 = 8 * 1024;
/// Directories of a BOINC data directory that never hold inputs.
const SKIPPED_DIRS: &[&str] = &["slots", "locale", "skins", "notices", "target", ".git"];

/// One input file and what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// Where to read it.
    pub path: PathBuf,
    /// The path as shown in messages.
    pub display: SourcePath,
    /// What its content says it is.
    pub kind: FileKind,
}

/// Finds the inputs under `paths`. Files named explicitly must be BOINC inputs
/// (an unknown one is an error); files found inside directories that are not
/// inputs are skipped silently. Within a directory, files are taken in path
/// order, with `stdoutdae.old` before `stdoutdae.txt`.
pub fn discover(paths: &[PathBuf]) -> (Vec<Input>, Vec<ParseError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.as_os_str() != "-" && path.is_dir() {
            let mut found = Vec::new();
            walk(path, 0, &mut found);
            found.sort_by_key(|file| sort_key(file));
            for file in found {
                let Ok(head) = read_head(&file) else {
                    continue;
                };
                match classify_head(&file, &head) {
                    Ok(FileKind::Other) | Err(_) => {}
                    // Prose that quotes a log line or two (a README, a
                    // note) is not a log when found inside a folder.
                    Ok(kind) if kind.is_text_log() && !event_log::mostly_log_lines(&head) => {}
                    Ok(kind) => inputs.push(Input {
                        display: display_path(&file),
                        path: file,
                        kind,
                    }),
                }
            }
        } else {
            match classify_file(path) {
                Ok(FileKind::Other) => errors.push(ParseError::error(
                    Location::file(display_path(path)),
                    ParseErrorKind::Invalid {
                        message: "not a BOINC input: expected an event log, client_state.xml, \
                                  preferences, cc_config.xml, app_config.xml, a scheduler \
                                  request/reply or a job log"
                            .to_string(),
                    },
                )),
                Ok(kind) => inputs.push(Input {
                    display: display_path(path),
                    path: path.clone(),
                    kind,
                }),
                Err(err) => errors.push(err),
            }
        }
    }
    (inputs, errors)
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            if depth + 1 < MAX_DEPTH
                && !name.starts_with('.')
                && !SKIPPED_DIRS.contains(&name.as_ref())
            {
                walk(&path, depth + 1, found);
            }
        } else if file_type.is_file() && !name.starts_with('.') {
            found.push(path);
        }
    }
}

/// Path order, except that a rotated log (`.old`) precedes the current one.
fn sort_key(path: &Path) -> (PathBuf, u8) {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rank = match name.as_str() {
        "stdoutdae.old" => 0,
        "stdoutdae.txt" => 1,
        _ => 2,
    };
    let stem = path.with_file_name(if rank < 2 { "stdoutdae" } else { name.as_str() });
    (stem, rank)
}

/// Reads the head of `path` and decides its kind.
pub fn classify_file(path: &Path) -> Result<FileKind, ParseError> {
    if path.as_os_str() == "-" {
        // Standard input cannot be peeked and re-read; assume an event log and let
        // the log reader decide the layout line by line.
        return Ok(FileKind::EventLog);
    }
    classify_head(path, &read_head(path)?)
}

/// The first [`HEAD_BYTES`] of `path` as text (decompressed, UTF-16 and
/// lone CRs undone), read through a buffer of that size: the rest of the
/// file is not read.
fn read_head(path: &Path) -> Result<Vec<u8>, ParseError> {
    let mut head = Vec::with_capacity(HEAD_BYTES as usize);
    let reader = open_input_buffered(path, HEAD_BYTES as usize)?;
    reader
        .take(HEAD_BYTES)
        .read_to_end(&mut head)
        .map_err(|err| {
            ParseError::error(
                Location::file(display_path(path)),
                ParseErrorKind::Io {
                    message: err.to_string().to_lowercase(),
                },
            )
        })?;
    Ok(head)
}

/// The kind of `path` from its `head`; an error when the head is blank.
fn classify_head(path: &Path, head: &[u8]) -> Result<FileKind, ParseError> {
    if head.iter().all(|byte| byte.is_ascii_whitespace()) {
        return Err(ParseError::error(
            Location::file(display_path(path)),
            ParseErrorKind::Empty,
        ));
    }
    Ok(detect_kind(head))
}

/// Decides the kind of an input from its first bytes.
pub fn detect_kind(head: &[u8]) -> FileKind {
    if crate::parse::emulator_timeline::is_emulator_timeline(head) {
        return FileKind::EmulatorTimeline;
    }
    if crate::parse::emulator_timeline::is_sim_out_html(head) {
        return FileKind::SimOutHtml;
    }
    if let Some(kind) = xml_root_kind(head) {
        return kind;
    }
    if let Some(kind) = event_log::detect_log_kind(head) {
        return kind;
    }
    if looks_like_job_log(head) {
        return FileKind::JobLog;
    }
    if has_reply_after_preamble(head) {
        return FileKind::SchedReply;
    }
    FileKind::Other
}

/// A scheduler reply saved with whatever the server printed before it (an
/// HTTP header, PHP warnings): the client skips to `<scheduler_reply>`, and so
/// does its parser.
fn has_reply_after_preamble(head: &[u8]) -> bool {
    memchr::memmem::find(head, b"<scheduler_reply>").is_some()
}

/// The kind named by the first element of an XML document, skipping a BOM,
/// white space, the XML declaration and comments.
fn xml_root_kind(head: &[u8]) -> Option<FileKind> {
    let text = String::from_utf8_lossy(head);
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("<?") {
            rest = after.split_once("?>")?.1.trim_start();
        } else if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.split_once("-->")?.1.trim_start();
        } else if let Some(after) = rest.strip_prefix("<!DOCTYPE") {
            // A DOCTYPE may carry an internal subset ([ ... ]) with entity definitions.
            let end = match after.find('[') {
                Some(open) if open < after.find('>').unwrap_or(usize::MAX) => {
                    after[open..].find("]>").map(|close| open + close + 2)?
                }
                _ => after.find('>')? + 1,
            };
            rest = after[end..].trim_start();
        } else {
            break;
        }
    }
    let name_text = rest.strip_prefix('<')?;
    let name: String = name_text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    Some(match name.as_str() {
        "client_state" => FileKind::ClientState,
        "global_preferences" => FileKind::GlobalPrefs,
        "cc_config" | "log_flags" => FileKind::CcConfig,
        "app_config" => FileKind::AppConfig,
        "scheduler_request" => FileKind::SchedRequest,
        "scheduler_reply" => FileKind::SchedReply,
        "msgs" => FileKind::GuiRpcMessages,
        "boinc_gui_rpc_reply" if rest.contains("<msgs") => FileKind::GuiRpcMessages,
        "host" => FileKind::SimHost,
        "projects" => FileKind::SimProjects,
        _ => FileKind::Other,
    })
}

/// `job_log_*.txt`: `TIME ue X ct X fe X nm NAME et X es N`.
fn looks_like_job_log(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let Some(first) = text.lines().find(|line| !line.trim().is_empty()) else {
        return false;
    };
    let words: Vec<&str> = first.split_whitespace().collect();
    words.len() >= 5
        && words[0].parse::<f64>().is_ok()
        && words[1] == "ue"
        && words.get(3) == Some(&"ct")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_kinds_by_root_element() {
        assert_eq!(
            detect_kind(b"<client_state>\n<host_info>"),
            FileKind::ClientState
        );
        assert_eq!(
            detect_kind(b"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- x -->\n<cc_config>"),
            FileKind::CcConfig
        );
        assert_eq!(detect_kind(b"<global_preferences>"), FileKind::GlobalPrefs);
        assert_eq!(detect_kind(b"<scheduler_reply>"), FileKind::SchedReply);
        assert_eq!(
            detect_kind(b"<boinc_gui_rpc_reply>\n<msgs>"),
            FileKind::GuiRpcMessages
        );
        assert_eq!(
            detect_kind(b"<!DOCTYPE x [<!ENTITY a \"b\">]>\n<app_config>"),
            FileKind::AppConfig
        );
        assert_eq!(detect_kind(b"<unknown_root>"), FileKind::Other);
        assert_eq!(
            detect_kind(
                b"Content-type: text/xml\n\n<scheduler_reply>\n<request_delay>60</request_delay>"
            ),
            FileKind::SchedReply
        );
    }

    #[test]
    fn job_log_line() {
        let line = b"1555490613 ue 7200.000000 ct 7000.5 fe 72000000000000 nm A_1 et 7100.2 es 0\n";
        assert_eq!(detect_kind(line), FileKind::JobLog);
    }

    #[test]
    fn binary_is_other() {
        assert_eq!(detect_kind(&[0u8, 159, 146, 150, 1, 2, 3]), FileKind::Other);
    }

    #[test]
    fn prose_quoting_a_log_line_is_not_a_log_inside_a_folder() {
        let dir = std::env::temp_dir().join(format!("boinc-audit-discover-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let line = "27-Nov-2026 10:00:00 [---] [work_fetch] entering choose_project()\n";
        let prose = format!(
            "# Notes\n\nWhat the host did.\n\n{line}\nThe line above shows the pass.\n\
             It asked nobody.\nSee the thread.\nMore text.\n"
        );
        std::fs::write(dir.join("README.md"), prose).unwrap();
        std::fs::write(dir.join("stdoutdae.txt"), line.repeat(3)).unwrap();
        let (inputs, errors) = discover(std::slice::from_ref(&dir));
        let names: Vec<String> = inputs
            .iter()
            .map(|i| i.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        // Named on its own, the same prose is still read as a log.
        let named = discover(&[dir.join("README.md")]).0;
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(errors.is_empty());
        assert_eq!(names, ["stdoutdae.txt"]);
        assert_eq!(named.len(), 1);
        assert_eq!(named[0].kind, FileKind::EventLog);
    }

    #[test]
    fn rotated_log_sorts_first() {
        let mut paths = [
            PathBuf::from("d/stdoutdae.txt"),
            PathBuf::from("d/stdoutdae.old"),
            PathBuf::from("d/cc_config.xml"),
        ];
        paths.sort_by_key(|path| sort_key(path));
        assert_eq!(paths[1], PathBuf::from("d/stdoutdae.old"));
        assert_eq!(paths[2], PathBuf::from("d/stdoutdae.txt"));
    }
}

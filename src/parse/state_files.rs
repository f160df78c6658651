//! The XML and small text inputs that describe the host: dispatches each to
//! its parser and files the result into the trace.
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! Where things go: client_state.xml → `state.client_states` (every copy);
//! preferences → `state.global_prefs` or `state.global_prefs_override` (by
//! file name, see [`crate::parse::prefs`]); cc_config.xml → `state.cc_config`,
//! a bare `<log_flags>` file → `state.log_flags`; app_config.xml →
//! `state.app_configs`; job logs → `state.job_logs`; sim_host.xml /
//! sim_projects.xml → `state.sim_host` / `state.sim_projects`; scheduler
//! requests and replies → `trace.rpcs`. Every file also gets a
//! [`FileNote`](crate::trace::state::FileNote) in `state.files`.
//!
//! A second file of a kind that exists once per data directory (prefs,
//! cc_config, sim files) is ignored with a warning naming the first.
//! A file whose content is unusable (no root element, wrong root) adds
//! nothing but its errors.

use crate::parse::cc_config::{read_cc_config_doc, CcConfigFile};
use crate::parse::error::{ParseError, ParseErrorKind, Parsed};
use crate::parse::xml::XmlDoc;
use crate::parse::{app_config, client_state, emulator_inputs, job_log, prefs, sched_rpc};
use crate::source::{Location, SourcePath};
use crate::trace::state::{FileNote, HostRecord};
use crate::trace::{FileKind, Trace};

/// Puts first the state file the client would read (cs_statefile.cpp
/// `parse_state_file`): `client_state_next.xml`, then `client_state.xml`,
/// then `client_state_prev.xml`, each only if complete (`valid_state_file`:
/// it ends with `</client_state>`); other names after those. A file cut
/// short comes first only when no complete one exists; a warning says
/// which file stands in for it. Returns the warnings.
pub fn choose_client_state(trace: &mut Trace) -> Vec<ParseError> {
    fn rank(path: &str) -> u8 {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        match name {
            "client_state_next.xml" => 0,
            "client_state.xml" => 1,
            "client_state_prev.xml" => 2,
            _ => 3,
        }
    }
    let states = &mut trace.state.client_states;
    states.sort_by_key(|state| (state.truncated, rank(&state.path)));
    let mut warnings = Vec::new();
    let Some(chosen) = states.first() else {
        return warnings;
    };
    for cut in states.iter().filter(|state| state.truncated) {
        let what = if chosen.truncated {
            "no complete state file is here: its complete records are used".to_string()
        } else {
            format!("{} is used in its place", chosen.path)
        };
        warnings.push(ParseError::warning(
            Location::file(SourcePath::from(cut.path.as_str())),
            ParseErrorKind::Invalid {
                message: format!(
                    "state file cut short (no </client_state>): the client does not read it \
                     (cs_statefile.cpp valid_state_file); {what}"
                ),
            },
        ));
        if chosen.truncated {
            break;
        }
    }
    warnings
}

/// Parses one non-log input of `kind` (client_state.xml, prefs, cc_config.xml,
/// app_config.xml, sched_request/reply, job log, emulator sim_*.xml) from
/// `bytes` and adds what it holds to `trace`.
pub fn parse_state_file(
    kind: FileKind,
    path: &SourcePath,
    bytes: &[u8],
    trace: &mut Trace,
) -> Parsed<()> {
    if let Some(parsed) = parse_text_input(kind, path, bytes, trace) {
        return parsed;
    }
    let mut doc = XmlDoc::new(path, bytes);
    let state = &mut trace.state;
    let read = match kind {
        FileKind::ClientState => {
            if let Some(mut value) = client_state::read_client_state_doc(&mut doc) {
                value.truncated = doc.is_truncated();
                // Which state file the client reads is decided once all
                // are read ([`choose_client_state`]).
                doc.truncation_as_warning();
                state.client_states.push(value);
            }
            XmlRead::default()
        }
        FileKind::GlobalPrefs => read_global_prefs(&mut doc, state),
        FileKind::CcConfig => read_cc_config(&mut doc, state),
        FileKind::AppConfig => read_app_config(&mut doc, state),
        FileKind::SchedRequest | FileKind::SchedReply => {
            trace.rpcs.push(sched_rpc::read_sched_rpc_doc(&mut doc));
            XmlRead::default()
        }
        FileKind::SimHost => XmlRead {
            duplicate_of: emulator_inputs::read_sim_host_doc(&mut doc)
                .and_then(|value| keep_first(&mut state.sim_host, value, |v| &v.path)),
            cut: None,
        },
        FileKind::SimProjects => XmlRead {
            duplicate_of: emulator_inputs::read_sim_projects_doc(&mut doc)
                .and_then(|value| keep_first(&mut state.sim_projects, value, |v| &v.path)),
            cut: None,
        },
        // Logs are read by the event-log reader; other files are not inputs.
        _ => return Parsed::ok(()),
    };
    trace.state.files.push(doc.file_note(kind));
    let mut parsed = doc.into_parsed(());
    if let Some(message) = read.cut {
        parsed.push(ParseError::warning(
            Location::file(*path),
            ParseErrorKind::Invalid { message },
        ));
    }
    if let Some(first) = read.duplicate_of {
        parsed.push(ParseError::warning(
            Location::file(*path),
            ParseErrorKind::Invalid {
                message: format!(
                    "a file of this kind was already read from {first}; this one is ignored"
                ),
            },
        ));
    }
    parsed
}

/// What reading one XML input leaves to say about it.
#[derive(Default)]
struct XmlRead {
    /// The first file of its kind, when this one is a second (ignored).
    duplicate_of: Option<String>,
    /// Why a file cut short is used as it is (or not at all).
    cut: Option<String>,
}

/// Keeps `value` in an empty `slot`; else gives the path of the file the
/// slot already holds.
fn keep_first<T>(slot: &mut Option<T>, value: T, path: impl Fn(&T) -> &String) -> Option<String> {
    match slot {
        Some(first) => Some(path(first).clone()),
        None => {
            *slot = Some(value);
            None
        }
    }
}

/// The non-XML inputs (emulator timeline, sim_out.html, job log): read,
/// noted, and their errors passed on. None for any other kind.
fn parse_text_input(
    kind: FileKind,
    path: &SourcePath,
    bytes: &[u8],
    trace: &mut Trace,
) -> Option<Parsed<()>> {
    let text_input = |errors, warnings, trace: &mut Trace| {
        trace.state.files.push(FileNote {
            path: path.to_string(),
            kind,
            unknown_elements: 0,
            unknown_names: Vec::new(),
        });
        Parsed {
            value: (),
            errors,
            warnings,
        }
    };
    match kind {
        FileKind::EmulatorTimeline => {
            let parsed = crate::parse::emulator_timeline::parse_emulator_timeline(path, bytes);
            trace.availability = parsed.value;
            Some(text_input(parsed.errors, parsed.warnings, trace))
        }
        FileKind::SimOutHtml => {
            let parsed = crate::parse::emulator_timeline::parse_sim_out_html(path, bytes);
            for (job, secs) in parsed.value {
                trace.job_runtimes.entry(job).or_insert(secs);
            }
            Some(text_input(parsed.errors, parsed.warnings, trace))
        }
        FileKind::JobLog => {
            let parsed = job_log::parse_job_log(path, bytes);
            trace.state.job_logs.push(parsed.value);
            Some(text_input(parsed.errors, parsed.warnings, trace))
        }
        _ => None,
    }
}

/// Global preferences or their override.
fn read_global_prefs(doc: &mut XmlDoc, state: &mut HostRecord) -> XmlRead {
    let mut read = XmlRead::default();
    let mut value_read = prefs::read_global_prefs_doc(doc);
    if doc.is_truncated() {
        // CLIENT_STATE::read_global_prefs (cs_prefs.cpp): a
        // preferences file that does not parse is replaced by the
        // defaults (and deleted); the override file's values read
        // before the cut are applied all the same.
        doc.truncation_as_warning();
        let is_override = value_read.as_ref().is_some_and(|value| value.is_override);
        read.cut = Some(if is_override {
            "cut short: the client applies the override values read before the cut \
             (cs_prefs.cpp read_global_prefs ignores the parse error); so does the audit"
                .to_string()
        } else {
            value_read = None;
            "cut short: the client cannot parse it, says \"Couldn't parse preferences \
             file - using defaults\" and deletes it (cs_prefs.cpp read_global_prefs): the \
             default preferences are used"
                .to_string()
        });
    }
    if let Some(value) = value_read {
        let slot = if value.is_override {
            &mut state.global_prefs_override
        } else {
            &mut state.global_prefs
        };
        read.duplicate_of = keep_first(slot, value, |v| &v.path);
    }
    read
}

/// cc_config.xml (or an emulator's log_flags.xml).
fn read_cc_config(doc: &mut XmlDoc, state: &mut HostRecord) -> XmlRead {
    let duplicate_of = match read_cc_config_doc(doc) {
        Some(CcConfigFile::CcConfig(value)) => {
            keep_first(&mut state.cc_config, *value, |v| &v.path)
        }
        Some(CcConfigFile::LogFlags(value)) => keep_first(&mut state.log_flags, value, |v| &v.path),
        None => None,
    };
    let mut read = XmlRead {
        duplicate_of,
        cut: None,
    };
    if doc.is_truncated() {
        // CC_CONFIG::parse_client (log_flags.cpp) keeps what it
        // read before the end of the file.
        doc.truncation_as_warning();
        read.cut = Some(
            "cut short: the client keeps the options and log flags read before the cut \
             (log_flags.cpp CC_CONFIG::parse_client, notice \"Missing end tag in \
             cc_config.xml\"); so does the audit"
                .to_string(),
        );
    }
    read
}

/// A project's app_config.xml.
fn read_app_config(doc: &mut XmlDoc, state: &mut HostRecord) -> XmlRead {
    let mut read = XmlRead::default();
    let value_read = app_config::read_app_config_doc(doc);
    if doc.is_truncated() {
        // app_config.cpp check_app_config: a parse error skips
        // config_app_versions; APP_CONFIGS::parse has set the
        // project-wide limits read before it.
        doc.truncation_as_warning();
        let said = value_read
            .as_ref()
            .and_then(|value| value.client_parse_error.as_deref())
            .unwrap_or("Missing </app_config> in app_config.xml");
        read.cut = Some(format!(
            "cut short: the client says \"{said}\" and applies none of its app and \
             app-version settings (app_config.cpp check_app_config skips \
             config_app_versions); project_max_concurrent and the max_concurrent of \
             the complete <app> entries still count for the project's work-fetch \
             limits (lib/cc_config.cpp APP_CONFIGS::parse); so does the audit"
        ));
    }
    if let Some(value) = value_read {
        state.app_configs.push(value);
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files cut short are read as the client reads them: cc_config.xml
    /// and the override keep what precedes the cut, global_prefs.xml gives
    /// way to the defaults, and of two state files the complete one is used.
    #[test]
    fn files_cut_short_are_read_as_the_client_reads_them() {
        let mut trace = Trace::default();
        let cc = parse_state_file(
            FileKind::CcConfig,
            &SourcePath::from("d/cc_config.xml"),
            b"<cc_config><log_flags><work_fetch_debug>1</work_fetch_debug></log_flags>\n\
              <options><ncpus>4</ncpus><rec_half",
            &mut trace,
        );
        assert!(cc.errors.is_empty(), "{:?}", cc.errors);
        assert_eq!(cc.warnings.len(), 2);
        let config = trace.state.cc_config.clone().unwrap_or_default();
        assert_eq!(config.options.ncpus, Some(4));
        assert_eq!(config.log_flags.get("work_fetch_debug"), Some(&true));

        let cut_prefs = &b"<global_preferences><max_ncpus_pct>50</max_ncpus_pct><work_buf"[..];
        let whole = &b"<client_state>\n<platform_name>a</platform_name>\n</client_state>\n"[..];
        let cut = &b"<client_state>\n<platform_name>b</platform_name>\n<proj"[..];
        for (kind, name, bytes) in [
            (FileKind::GlobalPrefs, "d/global_prefs.xml", cut_prefs),
            (
                FileKind::GlobalPrefs,
                "d/global_prefs_override.xml",
                cut_prefs,
            ),
            (FileKind::ClientState, "d/client_state.xml", cut),
            (FileKind::ClientState, "d/client_state_prev.xml", whole),
        ] {
            let parsed = parse_state_file(kind, &SourcePath::from(name), bytes, &mut trace);
            assert!(parsed.errors.is_empty(), "{name}: {:?}", parsed.errors);
        }
        let over = trace.state.global_prefs_override.as_ref();
        assert_eq!(over.and_then(|p| p.values.max_ncpus_pct), Some(50.0));
        assert!(trace.state.global_prefs.is_none());
        let chosen = choose_client_state(&mut trace);
        assert_eq!(trace.state.client_states[0].path, "d/client_state_prev.xml");
        assert!(chosen[0]
            .to_string()
            .contains("client_state_prev.xml is used in its place"));
    }

    #[test]
    fn files_go_to_their_places() {
        let mut trace = Trace::default();
        let path: SourcePath = SourcePath::from("d/global_prefs_override.xml");
        let parsed = parse_state_file(
            FileKind::GlobalPrefs,
            &path,
            b"<global_preferences><max_ncpus_pct>50</max_ncpus_pct></global_preferences>",
            &mut trace,
        );
        assert!(parsed.errors.is_empty());
        assert!(trace.state.global_prefs.is_none());
        let prefs = trace
            .state
            .global_prefs_override
            .clone()
            .unwrap_or_default();
        assert_eq!(prefs.values.max_ncpus_pct, Some(50.0));
        let again = parse_state_file(
            FileKind::GlobalPrefs,
            &path,
            b"<global_preferences/>",
            &mut trace,
        );
        assert_eq!(again.warnings.len(), 1);
        assert_eq!(trace.state.files.len(), 2);

        let parsed = parse_state_file(
            FileKind::SchedReply,
            &SourcePath::from("sched_reply_a.org.xml"),
            b"<scheduler_reply><request_delay>60</request_delay></scheduler_reply>",
            &mut trace,
        );
        assert!(parsed.errors.is_empty());
        assert_eq!(trace.rpcs[0].project.as_deref(), Some("a.org"));
    }
}

#[cfg(test)]
mod robustness {
    use super::*;
    use proptest::prelude::*;

    const KINDS: [FileKind; 9] = [
        FileKind::ClientState,
        FileKind::GlobalPrefs,
        FileKind::CcConfig,
        FileKind::AppConfig,
        FileKind::SchedRequest,
        FileKind::SchedReply,
        FileKind::JobLog,
        FileKind::SimHost,
        FileKind::SimProjects,
    ];

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let path: SourcePath = SourcePath::from("x.xml");
            for kind in KINDS {
                let mut trace = Trace::default();
                let _ = parse_state_file(kind, &path, &bytes, &mut trace);
            }
        }

        #[test]
        fn mangled_xml_never_panics(
            cut in 0usize..600,
            noise in proptest::collection::vec(
                prop::sample::select(vec!["<", ">", "</", "/>", "&", ";", "&#x;", "]]>", "<![CDATA[", "\u{0}", "\u{fc}", "<!DOCTYPE a [<!ENTITY b \"c\">]>"]),
                0..8,
            ),
        ) {
            let base = "<client_state>\n<project><master_url>u</master_url><rsc_backoff_time><name>CPU</name>\
                <value>1</value></rsc_backoff_time></project>\n<result><name>r</name></result>\n\
                <active_task_set><active_task><result_name>r</result_name></active_task></active_task_set>\n\
                </client_state>\n";
            let cut = cut.min(base.len());
            let mut text = base[..cut].to_string();
            for piece in &noise {
                text.push_str(piece);
            }
            text.push_str(&base[cut..]);
            let path: SourcePath = SourcePath::from("x.xml");
            let mut trace = Trace::default();
            let _ = parse_state_file(FileKind::ClientState, &path, text.as_bytes(), &mut trace);
        }
    }
}

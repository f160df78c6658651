//! `boinc-audit flags`: the log flags a complete audit needs, per client
//! release, and their merge into a volunteer's cc_config.xml that keeps
//! every other option.
//!
//! The merge edits the file's text (never re-serialises it): an existing
//! `<flag>0</flag>` becomes `<flag>1</flag>`, a missing flag is added at
//! the end of `<log_flags>` (which is made when missing), and
//! `<max_stdout_file_size>` is added to `<options>` when the file sets
//! none. Comments, order, spacing and unknown options stay as they were.
//!
//! Architecture Invariant: text in, text out; no I/O.

/// One log flag the audit reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag {
    /// Its `<log_flags>` element.
    pub name: &'static str,
    /// What it makes the client print that the audit checks.
    pub gives: &'static str,
    /// The first release that has it.
    pub since: (u32, u32, u32),
    /// The first release that no longer has it.
    pub until: Option<(u32, u32, u32)>,
}

/// Every flag an audit reads, in the order they are written. The releases
/// are those of the `client_release/*` tags whose LOG_FLAGS struct
/// (client/log_flags.h to 6.12, lib/cc_config.h from 6.13) has the flag;
/// (0, 0, 0): in the 2002 initial revision, before every tag. debt_debug
/// became priority_debug in 6.13.9.
pub const FLAGS: &[Flag] = &[
    Flag {
        name: "task",
        gives: "task starts, finishes, suspensions (on by default)",
        since: (0, 0, 0),
        until: None,
    },
    Flag {
        name: "sched_ops",
        gives: "scheduler requests and replies: what was asked and got (on by default)",
        since: (0, 0, 0),
        until: None,
    },
    Flag {
        name: "sched_op_debug",
        gives: "each request's seconds and instances per resource, deferrals",
        since: (0, 0, 0),
        until: None,
    },
    Flag {
        name: "work_fetch_debug",
        gives: "the work-fetch state block per resource and project, and each choice",
        since: (5, 5, 5),
        until: None,
    },
    Flag {
        name: "rr_simulation",
        gives: "the round-robin simulation: each job's projected finish, deadline misses",
        since: (5, 5, 5),
        until: None,
    },
    Flag {
        name: "rrsim_detail",
        gives: "the simulation's FLOPs left and rates per job (exact finish checks)",
        since: (6, 13, 4),
        until: None,
    },
    Flag {
        name: "cpu_sched",
        gives: "tasks started, preempted and resumed",
        since: (5, 5, 5),
        until: None,
    },
    Flag {
        name: "cpu_sched_debug",
        gives: "the run list with each job's priority, and the enforcement pass",
        since: (5, 5, 4),
        until: None,
    },
    Flag {
        name: "cpu_sched_status",
        gives: "the running tasks after each scheduling pass",
        since: (6, 10, 20),
        until: None,
    },
    Flag {
        name: "priority_debug",
        gives: "project priorities and recent estimated credit (REC) updates",
        since: (6, 13, 9),
        until: None,
    },
    Flag {
        name: "debt_debug",
        gives: "short- and long-term debts (the debt-based generations)",
        since: (5, 5, 5),
        until: Some((6, 13, 9)),
    },
    Flag {
        name: "std_debug",
        gives: "short-term debts (6.10-6.12: `[std]` lines)",
        since: (6, 10, 20),
        until: Some((6, 13, 9)),
    },
    Flag {
        name: "coproc_debug",
        gives: "GPU instances assigned to each task",
        since: (6, 3, 14),
        until: None,
    },
    Flag {
        name: "task_debug",
        gives: "task process states (suspend, resume, exit)",
        since: (0, 0, 0),
        until: None,
    },
    Flag {
        name: "dcf_debug",
        gives: "duration correction factor updates (job estimates)",
        since: (6, 6, 8),
        until: None,
    },
];

/// The flags `release` has (`None`: today's client).
pub fn flags_for(release: Option<(u32, u32, u32)>) -> Vec<&'static Flag> {
    FLAGS
        .iter()
        .filter(|flag| match release {
            None => flag.until.is_none(),
            Some(r) => flag.since <= r && flag.until.is_none_or(|until| r < until),
        })
        .collect()
}

/// A cc_config.xml with the flags merged in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// The new file's text.
    pub text: String,
    /// Flags the file did not name, added.
    pub added: Vec<String>,
    /// Flags the file had off, turned on.
    pub turned_on: Vec<String>,
    /// Flags already on.
    pub already_on: Vec<String>,
    /// `max_stdout_file_size` the file already set (kept), if any.
    pub kept_max_stdout: Option<String>,
}

/// Merges `flags` (on) and `max_stdout_bytes` (only when the file sets no
/// size) into the cc_config.xml `existing` (empty: a new file). `Err`: the
/// file's `<section>` cannot be found or made (a tag cut short), with the
/// line it starts on.
pub fn merge_cc_config(
    existing: &str,
    flags: &[&str],
    max_stdout_bytes: u64,
) -> Result<Merged, String> {
    let mut merged = Merged::default();
    let mut text = if existing.trim().is_empty() {
        "<cc_config>\n</cc_config>\n".to_string()
    } else {
        existing.to_string()
    };
    if find_tag(&text, "cc_config", 0).is_none() {
        // A bare <log_flags> file (the old log_flags.xml): wrapped in a
        // cc_config root, its flags kept.
        text = format!("<cc_config>\n{}\n</cc_config>\n", text.trim_end());
    }
    ensure_section(&mut text, "log_flags");
    for flag in flags {
        let (start, end) = section_or_error(&text, "log_flags")?;
        let body = &text[start..end];
        match element_value(body, flag) {
            Some((vstart, vend, value)) => {
                if value.trim() == "1" {
                    merged.already_on.push(flag.to_string());
                } else {
                    text.replace_range(start + vstart..start + vend, "1");
                    merged.turned_on.push(flag.to_string());
                }
            }
            None => {
                let indent = indent_before(&text, end);
                text.insert_str(end, &format!("{indent}  <{flag}>1</{flag}>\n"));
                merged.added.push(flag.to_string());
            }
        }
    }
    ensure_section(&mut text, "options");
    let (start, end) = section_or_error(&text, "options")?;
    match element_value(&text[start..end], "max_stdout_file_size") {
        Some((_, _, value)) => merged.kept_max_stdout = Some(value.trim().to_string()),
        None => {
            let indent = indent_before(&text, end);
            text.insert_str(
                end,
                &format!(
                    "{indent}  <max_stdout_file_size>{max_stdout_bytes}</max_stdout_file_size>\n"
                ),
            );
        }
    }
    merged.text = text;
    Ok(merged)
}

/// [`section_bounds`], or what is wrong where (line 1-based).
fn section_or_error(text: &str, section: &str) -> Result<(usize, usize), String> {
    section_bounds(text, section).ok_or_else(|| {
        let at = find_tag(text, section, 0)
            .or_else(|| find_tag(text, "cc_config", 0))
            .unwrap_or(0);
        let line = text[..at].matches('\n').count() + 1;
        format!(
            "line {line}: expected a whole <{section}>...</{section}> inside <cc_config> (a tag \
             cut short or not closed)"
        )
    })
}

/// The byte offset of `<tag>` or `<tag …>` (not `<tag_x>`) from `from`.
fn find_tag(text: &str, tag: &str, from: usize) -> Option<usize> {
    let open = format!("<{tag}");
    let mut at = from;
    while let Some(found) = text[at..].find(&open) {
        let start = at + found;
        let next = text[start + open.len()..].chars().next();
        if matches!(
            next,
            Some('>') | Some(' ') | Some('\t') | Some('\n') | Some('\r')
        ) {
            return Some(start);
        }
        at = start + open.len();
    }
    None
}

/// Inside `<cc_config>`: the content of `<section>` (after its opening
/// tag, up to the line of its closing tag).
fn section_bounds(text: &str, section: &str) -> Option<(usize, usize)> {
    let open = find_tag(text, section, 0)?;
    let start = open + text[open..].find('>')? + 1;
    let close = start + text[start..].find(&format!("</{section}>"))?;
    // Insert before the closing tag's line when it stands on its own.
    let line_start = text[..close].rfind('\n').map_or(close, |i| i + 1);
    let end = if text[line_start..close].trim().is_empty() && line_start >= start {
        line_start
    } else {
        close
    };
    Some((start, end))
}

/// Makes `<section></section>` inside `<cc_config>` when it is missing
/// (or written empty as `<section/>`).
fn ensure_section(text: &mut String, section: &str) {
    let empty = format!("<{section}/>");
    if let Some(at) = text.find(&empty) {
        text.replace_range(at..at + empty.len(), &format!("<{section}>\n</{section}>"));
        return;
    }
    // Present (whole, or cut short: then said by `section_or_error`).
    if find_tag(text, section, 0).is_some() {
        return;
    }
    let Some(root) = find_tag(text, "cc_config", 0) else {
        return;
    };
    let Some(gt) = text[root..].find('>') else {
        return;
    };
    let at = root + gt + 1;
    text.insert_str(at, &format!("\n  <{section}>\n  </{section}>"));
}

/// The value of `<name>…</name>` in `body` (offsets of the value), or of
/// `<name/>` (an empty value at the tag, which is replaced whole).
fn element_value<'t>(body: &'t str, name: &str) -> Option<(usize, usize, &'t str)> {
    let start = find_tag(body, name, 0)?;
    let gt = start + body[start..].find('>')?;
    if body[..gt].ends_with('/') {
        // `<name/>`: on in BOINC's parser; said as already on.
        return Some((gt + 1, gt + 1, "1"));
    }
    let close = format!("</{name}>");
    let vend = gt + 1 + body[gt + 1..].find(&close)?;
    Some((gt + 1, vend, &body[gt + 1..vend]))
}

/// The blanks that start the line holding `at`.
fn indent_before(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS_NEEDED: &[&str] = &["work_fetch_debug", "rr_simulation", "cpu_sched_debug"];

    #[test]
    fn other_options_and_flags_are_kept() {
        let existing = "<!-- mine -->\n<cc_config>\n  <log_flags>\n    <file_xfer>0</file_xfer>\n    \
                        <work_fetch_debug>0</work_fetch_debug>\n    <cpu_sched_debug>1</cpu_sched_debug>\n  \
                        </log_flags>\n  <options>\n    <ncpus>3</ncpus>\n    <exclude_gpu>\n      \
                        <url>http://x/</url>\n    </exclude_gpu>\n  </options>\n</cc_config>\n";
        let merged = merge_cc_config(existing, FLAGS_NEEDED, 64 << 20).unwrap();
        let text = &merged.text;
        for kept in [
            "<!-- mine -->",
            "<file_xfer>0</file_xfer>",
            "<ncpus>3</ncpus>",
            "<url>http://x/</url>",
        ] {
            assert!(text.contains(kept), "{kept} kept: {text}");
        }
        assert!(
            text.contains("<work_fetch_debug>1</work_fetch_debug>"),
            "{text}"
        );
        assert!(
            text.contains("    <rr_simulation>1</rr_simulation>\n  </log_flags>"),
            "{text}"
        );
        assert!(
            text.contains("<max_stdout_file_size>67108864</max_stdout_file_size>\n  </options>"),
            "{text}"
        );
        assert_eq!(merged.added, ["rr_simulation"]);
        assert_eq!(merged.turned_on, ["work_fetch_debug"]);
        assert_eq!(merged.already_on, ["cpu_sched_debug"]);
        // Merging again changes nothing.
        assert_eq!(
            merge_cc_config(text, FLAGS_NEEDED, 64 << 20).unwrap().text,
            *text
        );
    }

    #[test]
    fn missing_sections_and_files_are_made() {
        let merged = merge_cc_config("<cc_config>\n  <options><ncpus>2</ncpus><max_stdout_file_size>1000</max_stdout_file_size></options>\n</cc_config>\n", &["task"], 5).unwrap();
        assert!(merged.text.contains("<log_flags>"), "{}", merged.text);
        assert!(merged.text.contains("<task>1</task>"));
        assert_eq!(merged.kept_max_stdout.as_deref(), Some("1000"));
        let fresh = merge_cc_config("", &["task"], 5).unwrap().text;
        assert!(
            fresh.contains("<task>1</task>") && fresh.contains("<max_stdout_file_size>5<"),
            "{fresh}"
        );
    }

    #[test]
    fn a_tag_cut_short_is_an_error_with_its_line() {
        let err = merge_cc_config("<cc_config>\n<log_flags>\n<task>1</task>\n", &["task"], 5)
            .unwrap_err();
        assert!(
            err.starts_with("line 2: expected a whole <log_flags>"),
            "{err}"
        );
        // A root tag never closed: nothing to put the sections in.
        assert!(merge_cc_config("<cc_config version=\"1\"", &["task"], 5).is_err());
    }

    #[test]
    fn releases_get_their_own_flags() {
        let names = |r| flags_for(r).iter().map(|f| f.name).collect::<Vec<_>>();
        assert!(names(Some((6, 10, 58))).contains(&"debt_debug"));
        assert!(!names(Some((6, 10, 58))).contains(&"priority_debug"));
        assert!(names(None).contains(&"priority_debug"));
        assert!(!names(None).contains(&"debt_debug"));
    }
}

//! Logs copied through a wiki: BOINC's Trac tickets (migrated to GitHub
//! issues in 2015) carry 6.x logs whose lines were joined with Trac's
//! `[[BR]]` line-break macro, and the migration rewrote every Trac link
//! `[TARGET LABEL]` as a Markdown link `[LABEL](TARGET)`. In a log that
//! catches the debug tags and the breaks themselves: the line
//! `[wfd] CPU: shortfall 0.00 ...[[BR]]` became
//! `[CPU: shortfall 0.00 ...[[BR](wfd])]`, and a break followed by the next
//! line's stamp became `[11:21:51 Project [wfd]([BR]]\n17/04/2009)`, two
//! lines run together across the link.
//!
//! [`restore`] undoes both: every Markdown link is turned back into the
//! Trac text it came from (`[L](T)` → `[T L]`, exactly the characters the
//! migration moved), then every `[[BR]]` becomes a line break. A bare tag
//! the migration dropped (`[wfd]` alone was a link with no label) stays
//! dropped: the line reader reads 6.x bodies with or without it.
//!
//! Architecture Invariant: text in, text out; no I/O.

/// True when a text head shows Trac's line-break macro (the mark of a
/// wiki copy; no client writes it).
pub fn is_wiki_mangled(head: &[u8]) -> bool {
    memchr::memmem::find(head, b"[[BR]").is_some()
}

/// The log a wiki copy came from (module doc).
pub fn restore(text: &str) -> String {
    // Every break, and a break cut short by a link the migration did not
    // make whole.
    let out = unlink(text).replace("[[BR]]", "\n").replace("[[BR]", "\n");
    // Trac's code fences and the blank lines the breaks leave.
    let mut lines = String::with_capacity(out.len());
    for line in out.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed == "{{{" || trimmed == "}}}" {
            continue;
        }
        lines.push_str(line.trim_end());
        lines.push('\n');
    }
    lines
}

/// Every Markdown link `[L](T)` made of a break ([`breaks_link`]) turned
/// back into `[T L]`: `L` opens at the furthest `[` before `](` on its line with no
/// `]` between, `T` ends at the first `)` after.
fn unlink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(mid) = rest.find("](") {
        let before = &rest[..mid];
        let after = &rest[mid + 2..];
        let open = label_open(before);
        let close = after.find(')');
        match (open, close) {
            (Some(open), Some(close)) if breaks_link(&before[open + 1..], &after[..close]) => {
                let (label, target) = (&before[open + 1..], &after[..close]);
                out.push_str(&before[..open]);
                out.push('[');
                out.push_str(target);
                out.push(' ');
                out.push_str(label);
                out.push(']');
                rest = &after[close + 1..];
            }
            _ => {
                out.push_str(&rest[..mid + 2]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A link the migration made of a `[[BR]]` (its label ends in it, or its
/// target starts with it) and a target without a space; other links are
/// left to the line reader's own recovery
/// ([`crate::parse::log_messages::recover_mangled`]).
fn breaks_link(label: &str, target: &str) -> bool {
    !target.contains(' ') && (label.ends_with("[[BR") || target.starts_with("[BR]"))
}

/// The `[` that opens a link label ending at the end of `before`: the
/// furthest one back on the same line with no `]` after it.
fn label_open(before: &str) -> Option<usize> {
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &before[line_start..];
    let stop = line.rfind(']').map_or(0, |i| i + 1);
    line[stop..].find('[').map(|i| line_start + stop + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 6.6 work-fetch pass, written as the client prints it, then mangled
    /// the way the migration did: `[[BR]]` after each line, each Trac link
    /// `[T L]` rewritten `[L](T)`, a bare `[wfd]` dropped.
    #[test]
    fn a_migrated_copy_gives_back_the_log_lines() {
        let mangled = "03/05/2009 10:02:11  [CPU: shortfall 1200.00 nidle 1.00 est. delay \
                       0.00[[BR](wfd])]\n03/05/2009 10:02:11  [CUDA: shortfall 0.00 nidle 0.00 \
                       est. delay 0.00[[BR](wfd])]\n03/05/2009 10:02:11 Milkyway@home chosen: CPU \
                       idle instance[10:02:11 Milkyway@home [wfd]([BR]]\n03/05/2009) request: \
                       CPU (1200.00 sec, 1) CUDA (0.00 sec, 0)";
        assert!(is_wiki_mangled(mangled.as_bytes()));
        let restored = restore(mangled);
        let lines: Vec<&str> = restored.lines().collect();
        assert_eq!(
            lines,
            [
                "03/05/2009 10:02:11  [wfd] CPU: shortfall 1200.00 nidle 1.00 est. delay 0.00",
                "03/05/2009 10:02:11  [wfd] CUDA: shortfall 0.00 nidle 0.00 est. delay 0.00",
                "03/05/2009 10:02:11 Milkyway@home chosen: CPU idle instance",
                "03/05/2009 10:02:11 Milkyway@home [wfd] request: CPU (1200.00 sec, 1) CUDA \
                 (0.00 sec, 0)",
            ]
        );
    }

    #[test]
    fn breaks_between_pipe_lines_and_plain_text_stay() {
        let mangled = "Tue May  1 08:31:59 2007|simap|Requesting 540 seconds of new work[May  1 \
                       08:32:15 2007|simap|Requesting 377 seconds of new work[[BR]([BR]]\n\nTue)]";
        let restored = restore(mangled);
        assert_eq!(
            restored.lines().collect::<Vec<_>>(),
            [
                "Tue May  1 08:31:59 2007|simap|Requesting 540 seconds of new work",
                "Tue May  1 08:32:15 2007|simap|Requesting 377 seconds of new work",
            ]
        );
        // A text with a Markdown link whose target has a space is left alone.
        assert_eq!(unlink("see [the log](a b) here"), "see [the log](a b) here");
        assert!(!is_wiki_mangled(
            b"12-Mar-2009 10:00:00 [---] [wfd] CPU: shortfall 0.00"
        ));
    }
}

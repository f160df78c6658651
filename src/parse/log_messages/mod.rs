//! Classifies an event-log body (the text after the time and `[project]`
//! frame) against the message catalog of spec/formats-log.md §3, §4 and §7,
//! producing a typed [`Message`].
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//! This module owns only text recognition; the meaning of each message is
//! documented on [`Message`].
//!
//! How a body is read (§2.2):
//! 1. Blanks are trimmed at both ends (7.x keeps trailing blanks, 8.0+ strips
//!    them; 6.10–7.20 preference lines start with three blanks, which select
//!    the preference productions).
//! 2. A leading `[error] ` is removed and reported in
//!    [`Classified::internal_error`]; a leading `Message from server: ` gives
//!    [`Message::ServerMessage`] and [`Classified::from_server`].
//! 3. A body opening with `[word]` (or `[word]:`, as in 6.10's
//!    `[wfd]: work fetch start`) is dispatched on the word, then on the next
//!    word, with `match`; untagged bodies are dispatched on their first word.
//!    Each leaf is a nom production that must consume the whole rest.
//!
//! Speed: no regex, no allocation except the names kept in the message
//! (inline [`CompactString`]s for short names) and the text of
//! `Unrecognized`; numbers go through the fast path of `lex::float`.
//! Never panics: all slicing is at ASCII delimiters found in the text.

mod accounting;
mod cpu_sched;
mod lex;
mod rr_sim;
mod sched_op;
mod task;
mod untagged;
mod work_fetch;

use crate::parse::text::FastSplit;
use crate::trace::message::Message;
use compact_str::CompactString;

/// A body split into its opening tag and its typed message.
#[derive(Clone, Debug, PartialEq)]
pub struct Classified {
    /// The bracketed word opening the body, without brackets (`work_fetch`,
    /// `rr_sim`, `css`, `wfd`, …); `None` for untagged bodies. Set even when
    /// the message is `Unrecognized`, so unrecognized lines can be counted by
    /// tag. The `[error] ` prefix is not a tag (see `internal_error`).
    pub tag: Option<CompactString>,
    /// The typed message (or `Unrecognized`).
    pub message: Message,
    /// The body started with `[error] ` (priority 3, `MSG_INTERNAL_ERROR`):
    /// stdoutdae.txt of 5.x/6.x, and every GUI/RPC rendering (§1.6).
    pub internal_error: bool,
    /// The body started with `Message from server: ` (≤6.10 every rendering;
    /// 6.12+ notices in GUI/RPC renderings); the message is then
    /// [`Message::ServerMessage`].
    pub from_server: bool,
}

/// The bytes of a tag: ASCII letters, digits, `_` and `-`.
const TAG_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        byte += 1;
    }
    table
};

/// Splits `[tag] rest` (or `[tag]: rest`); `None` unless the body opens with a
/// bracketed word of ASCII letters, digits, `_` or `-`.
fn split_tag(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('[')?;
    // One walk over the word: it ends at its first non-word byte, which
    // must be the closing bracket.
    let close = inner
        .bytes()
        .position(|byte| !TAG_BYTE[usize::from(byte)])?;
    if close == 0 || inner.as_bytes()[close] != b']' {
        return None;
    }
    let tag = &inner[..close];
    let after = &inner[close + 1..];
    let rest = after
        .strip_prefix(": ")
        .or_else(|| after.strip_prefix(' '))
        .unwrap_or(after);
    Some((tag, rest))
}

/// `text.trim()`, with a fast path for ASCII blanks at both ends.
fn trim(text: &str) -> &str {
    let ascii = text.trim_ascii();
    let bytes = ascii.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) if first.is_ascii() && last.is_ascii() => ascii,
        (None, _) => ascii,
        _ => ascii.trim(),
    }
}

/// Classifies one body (the text after the time and project frame).
pub fn classify(body: &str) -> Classified {
    let indented = body.starts_with("   ");
    let mut text = trim(body);
    let internal_error = match text.strip_prefix("[error] ") {
        Some(rest) => {
            text = rest.trim_start();
            true
        }
        None => false,
    };
    if let Some(server_text) = text.strip_prefix("Message from server: ") {
        return Classified {
            tag: None,
            message: Message::ServerMessage {
                text: server_text.to_string(),
            },
            internal_error,
            from_server: true,
        };
    }
    let (tag, message) = match split_tag(text) {
        Some((tag, rest)) => (Some(tag_name(tag)), tagged(tag, rest)),
        None => (None, untagged::classify(text, indented)),
    };
    Classified {
        tag,
        message: message.unwrap_or_else(|| Message::Unrecognized {
            text: body.to_string(),
        }),
        internal_error,
        from_server: false,
    }
}

/// Tags a wiki's link markup may have reduced to a bare `[`, in the order
/// they are tried (the debug flags volunteers turn on most).
const RECOVERY_TAGS: [&str; 10] = [
    "work_fetch",
    "wfd",
    "cpu_sched_debug",
    "cpu_sched",
    "rr_sim",
    "sched_op",
    "task",
    "prio",
    "poll_debug",
    "mem_usage",
];

fn recognised(classified: &Classified) -> bool {
    !matches!(classified.message, Message::Unrecognized { .. })
}

/// `[X](Y)` → `[Y X]`: a bracketed text a wiki turned into a Markdown link
/// (`[server version 509]` became `[version 509](server)`).
fn unlink(text: &str) -> Option<String> {
    let open = text.find('[')?;
    let mid = open + text[open..].find("](")?;
    let close = mid + text[mid..].find(')')?;
    let shown = &text[open + 1..mid];
    let target = &text[mid + 2..close];
    if shown.contains(['[', ']']) || target.contains(['[', ']', ' ']) {
        return None;
    }
    Some(format!(
        "{}[{target} {shown}]{}",
        &text[..open],
        &text[close + 1..]
    ))
}

/// Recovers a body mangled by a wiki's link markup (GitHub's import of old
/// Trac tickets, forum software): a tag `[T] ` printed as `[T](U]) ` (either
/// name may be the right one) or reduced to a bare `[`, and `[A B]` in the
/// text printed as `[B](A)`. Each reading is classified, tags in a fixed
/// order ([`RECOVERY_TAGS`] for a bare `[`); the first recognised one is
/// returned; `hint` (the tag of the previous tagged line) is tried first
/// for a bare `[`. `None` when no reading is recognised (the line stays
/// unrecognised, kept and counted).
pub fn recover_mangled(body: &str, hint: Option<&str>) -> Option<Classified> {
    let text = body.trim();
    let try_text = |text: &str| -> Option<Classified> {
        let classified = classify(text);
        if recognised(&classified) {
            return Some(classified);
        }
        let unlinked = unlink(text)?;
        Some(classify(&unlinked)).filter(recognised)
    };
    let Some(inner) = text.strip_prefix('[') else {
        return unlink(text).map(|t| classify(&t)).filter(recognised);
    };
    // `[A](B]) REST` (also `[A](B]:) REST`).
    if let Some((a, after)) = inner.split_fast("](") {
        if let Some((b, rest)) = after.split_fast(']') {
            if let Some(rest) = rest.strip_prefix(")").or_else(|| rest.strip_prefix(":)")) {
                let rest = rest.trim_start();
                for tag in [a, b] {
                    if let Some(found) = try_text(&format!("[{tag}] {rest}")) {
                        return Some(found);
                    }
                }
                return try_text(rest);
            }
        }
    }
    // A bare `[` where the tag was: the tag of the lines around it first.
    for tag in hint.into_iter().chain(RECOVERY_TAGS) {
        if let Some(found) = try_text(&format!("[{tag}] {inner}")) {
            return Some(found);
        }
    }
    try_text(inner)
}

/// The tag as a name. The tags of the catalogue are built at compile time:
/// copying a short name at run time is a byte copy followed by word reads
/// of the same bytes, which stalls (it was a sixth of `classify`).
fn tag_name(tag: &str) -> CompactString {
    macro_rules! known {
        ($($name:literal),* $(,)?) => {
            match tag {
                $($name => {
                    const NAME: CompactString = CompactString::const_new($name);
                    NAME
                })*
                _ => CompactString::from(tag),
            }
        };
    }
    known!(
        "work_fetch",
        "wfd",
        "work_fetch_debug",
        "rr_sim",
        "rr_sim_detail",
        "rrsim_detail",
        "cpu_sched_debug",
        "csd",
        "cpu_sched",
        "css",
        "coproc",
        "coproc_debug",
        "sched_op",
        "sched_op_debug",
        "prio",
        "priority",
        "debt",
        "debt_debug",
        "std_debug",
        "std",
        "dcf",
        "task",
        "task_debug",
        "mem_usage",
        "mem_usage_debug",
    )
}

/// `[poll]` / `[poll_debug]` lines (client_state.cpp: do_something() and
/// the POLL_ACTION macro of poll_slow_events()).
fn poll(rest: &str) -> Option<Message> {
    if let Some(count) = rest
        .strip_prefix("CLIENT_STATE::do_something(): End poll: ")
        .and_then(|tail| tail.strip_suffix(" tasks active"))
    {
        return Some(Message::PollEnd {
            actions: count.parse().ok()?,
        });
    }
    let name = rest.strip_prefix("CLIENT_STATE::poll_slow_events(): ")?;
    let is_name = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    is_name.then(|| Message::PollAction { name: name.into() })
}

/// Dispatches a tagged body on its tag (spec §6.2: tags are not flag names).
fn tagged(tag: &str, rest: &str) -> Option<Message> {
    match tag {
        "work_fetch" | "wfd" | "work_fetch_debug" => work_fetch::tagged(rest),
        "rr_sim" | "rr_sim_detail" | "rrsim_detail" => rr_sim::tagged(rest),
        "cpu_sched_debug" | "csd" => cpu_sched::debug(rest),
        "cpu_sched" => cpu_sched::cpu_sched(rest),
        "css" => cpu_sched::css(rest),
        "coproc" | "coproc_debug" => cpu_sched::coproc(rest),
        "sched_op" | "sched_op_debug" => sched_op::tagged(rest),
        "prio" | "priority" | "debt" | "debt_debug" | "std_debug" | "std" | "dcf" => {
            accounting::tagged(rest)
        }
        "task" | "task_debug" => task::tagged(rest),
        "mem_usage" | "mem_usage_debug" => accounting::mem_usage(rest),
        "poll" | "poll_debug" => poll(rest),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn wiki_mangled_bodies_are_recovered() {
        // `[wfd] ` printed as a Markdown link, either name right.
        let c = recover_mangled(
            "[wfd](cpu_sched_debug]) Request work fetch: CPUs idle",
            None,
        )
        .expect("recovered");
        assert!(
            matches!(c.message, Message::RequestWorkFetch { .. }),
            "{c:?}"
        );
        // A bare `[` where the tag was: the neighbours' tag first.
        let c = recover_mangled("[------- end work fetch state -------", Some("wfd"))
            .expect("recovered");
        assert_eq!(c.tag.as_deref(), Some("wfd"));
        assert!(matches!(c.message, Message::WorkFetchStateEnd));
        // `[server version 509]` printed as `[version 509](server)`.
        let c = recover_mangled("Scheduler RPC succeeded [version 509](server)", None)
            .expect("recovered");
        assert_eq!(
            c.message,
            Message::SchedulerRpcSucceeded {
                server_version: Some(509)
            }
        );
        assert!(recover_mangled("[not a message at all", None).is_none());
        assert!(recover_mangled("plain text", None).is_none());
    }

    use super::*;
    use crate::resource::ResourceType;

    #[test]
    fn mem_usage_lines() {
        assert_eq!(
            classify("[mem_usage] enforce: available RAM 2708.83MB swap 2232.72MB").message,
            Message::MemUsageAvailable {
                ram_mb: 2708.83,
                swap_mb: Some(2232.72)
            }
        );
        assert_eq!(
            classify("[mem_usage] enforce: available RAM 1.50 GB, swap space 2.00 GB").message,
            Message::MemUsageAvailable {
                ram_mb: 1536.0,
                swap_mb: Some(2048.0)
            }
        );
        assert_eq!(
            classify("[mem_usage] enforce: available RAM 1.50 GB virtual 2.00 GB").message,
            Message::MemUsageAvailable {
                ram_mb: 1536.0,
                swap_mb: Some(2048.0)
            }
        );
        assert_eq!(
            classify("[mem_usage] enforce: available RAM 3.25 GB").message,
            Message::MemUsageAvailable {
                ram_mb: 3328.0,
                swap_mb: None
            }
        );
        assert_eq!(
            classify("[mem_usage] insufficient RAM, will suspend").message,
            Message::MemUsagePreempt {
                reason: "insufficient RAM".into(),
                action: "suspend".into()
            }
        );
        assert!(matches!(
            classify("[mem_usage] enforce: available RAM lots").message,
            Message::Unrecognized { .. }
        ));
    }

    #[test]
    fn tag_is_kept_for_unrecognized_bodies() {
        let classified = classify("[work_fetch] something new in 9.0");
        assert_eq!(classified.tag.as_deref(), Some("work_fetch"));
        assert_eq!(
            classified.message,
            Message::Unrecognized {
                text: "[work_fetch] something new in 9.0".into()
            }
        );
        assert_eq!(classify("no tag here at all").tag, None);
    }

    #[test]
    fn colon_after_tag_and_trailing_blanks() {
        let classified = classify("[wfd]: work fetch start");
        assert_eq!(classified.tag.as_deref(), Some("wfd"));
        assert_eq!(classified.message, Message::WorkFetchStart);
        assert_eq!(
            classify("[work_fetch] share 1.000  ").message,
            Message::WorkFetchShare {
                share: 1.0,
                reason: None,
                backoff: None
            }
        );
    }

    #[test]
    fn error_and_server_prefixes() {
        let classified = classify("[error] [coproc] Assigning NVIDIA instance 0 to A_0");
        assert!(classified.internal_error);
        assert_eq!(classified.tag.as_deref(), Some("coproc"));
        assert_eq!(
            classified.message,
            Message::CoprocAssign {
                rsc: ResourceType::Nvidia,
                pending: false,
                instance: 0,
                job: "A_0".into()
            }
        );
        let server = classify("Message from server: Project has no tasks available");
        assert!(server.from_server);
        assert_eq!(
            server.message,
            Message::ServerMessage {
                text: "Project has no tasks available".into()
            }
        );
    }

    #[test]
    fn messages_survive_serde() {
        for body in [
            "[work_fetch] share 0.000 project is backed off  (resource backoff: 33257.53, inc 38400.00)",
            "[work_fetch] REC 0.000 prio -0.262 can't request work: \"no new tasks\" requested via Manager",
            "[work_fetch] request: CPU (12382.46 sec, 0.00 inst) NVIDIA GPU (0.00 sec, 0.00 inst)",
            "[rr_sim] 6900.00: A_0 finishes (0.20 CPU + 1.00 NVIDIA GPU) (276000.00G/40.00G)",
            "[cpu_sched_debug] add to run list: A_0 (NVIDIA GPU, FIFO) (prio -0.500000)",
            "[cpu_sched_debug] scheduling Slow_0 (CPU job, debt order)",
            "[wfd] CPU: fetch share 0.50 LTD 0.00 backoff dt 0.00 int 0.00 (no new tasks)",
            "set_request_excluded() 1 2 3",
            "Starting BOINC client version 8.2.1 for x86_64-pc-linux-gnu (DEBUG)",
            "can't fetch miner_asic: some future reason",
            "[sched_op] Reason: project down",
            "[task] task_state=EXECUTING for X_1 from start",
            "log flags: file_xfer, sched_ops, task",
        ] {
            let message = classify(body).message;
            assert_ne!(message.kind(), "unrecognized", "{body}");
            let json = serde_json::to_string(&message).unwrap_or_default();
            let back: Option<Message> = serde_json::from_str(&json).ok();
            assert_eq!(back.as_ref(), Some(&message), "{json}");
        }
    }

    proptest::proptest! {
        #[test]
        fn classify_never_panics(
            prefix in proptest::sample::select(vec![
                "", "[work_fetch] ", "[wfd] ", "[rr_sim] ", "[rr_sim] 1.00: ", "[cpu_sched_debug] ",
                "[cpu_sched_debug] 3: ", "[cpu_sched] ", "[css] running ", "[coproc] ", "[coproc] Assigning ",
                "[prio] ", "[debt] ", "[std_debug] ", "[sched_op] ", "[task] ", "piggyback: ", "chosen: ",
                "-  ", "   ", "RPC ", "Starting ", "Task ", "[error] ", "Message from server: ",
            ]),
            rest in "\\PC{0,80}",
        ) {
            let body = format!("{prefix}{rest}");
            let classified = classify(&body);
            let _ = classified.message.kind();
        }
    }

    #[test]
    fn hostile_input_never_panics() {
        let long = "[rr_sim] ".to_string() + &"é%".repeat(5000);
        for body in [
            "",
            " ",
            "[",
            "]",
            "[]",
            "[ ]",
            "[work_fetch]",
            "[wfd]:",
            "[é] x",
            "%s %d %%",
            "[rr_sim] 1.5:",
            "[rr_sim] 1.5: x finishes (",
            "[coproc] Assigning",
            "[cpu_sched_debug] 3:",
            "-",
            "\u{0}\u{ffff}",
            "[work_fetch] share 0.000 (resource backoff: 1",
            "chosen: idle",
            "[task] task_state=",
            &long,
        ] {
            let classified = classify(body);
            let _ = classified.message.kind();
        }
    }
}

//! `boinc-audit bundle`: a volunteer's data directory packed for a
//! developer, with nothing left in it that identifies or authenticates the
//! volunteer, and nothing removed that an audit reads.
//!
//! ```text
//!  DATA_DIR ──plan()──▶ packed files ──secrets()──▶ Redactor ──▶ .tar.gz
//!                    └▶ left out (passwords, account files, slots, the rest)
//! ```
//!
//! What is packed: every file an audit reads (found by content, as `audit`
//! finds them: event logs, rotated ones included, state files,
//! preferences and their override, cc_config.xml, app_config.xml files,
//! scheduler requests and replies, job logs) and time_stats_log. Never
//! gui_rpc_auth.cfg, account files, slots/ or any binary.
//!
//! What is removed, each value replaced by a stable placeholder (the same
//! value is the same token in every file, so an id a reply repeats from its
//! request still matches and the audit is unchanged):
//! - the contents of the elements that authenticate or identify
//!   ([`SECRET_ELEMENTS`]): authenticators and account keys, CPIDs, user and
//!   host ids, user and team names, e-mail hash and address, host name, IP
//!   and MAC addresses, host venue;
//! - in the event log: the host name (`Host name: …`), the computer id
//!   (`Computer ID N`), the data directory's path, and home folders
//!   (`/home/NAME`, `/Users/NAME`, `C:\Users\NAME`);
//! - every other occurrence, in any packed file, of a value found above
//!   that is long enough not to be a common word or number.
//!
//! Architecture Invariant: orchestration over files, like [`crate::fleet`];
//! it parses nothing the audit parses and renders nothing.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What goes wrong while bundling.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// The data directory is not a folder.
    #[error("{0}: not a folder (give the client's data directory)")]
    NotADirectory(String),
    /// Nothing an audit reads was found.
    #[error("{0}: no event log, state file or scheduler transcript found")]
    Empty(String),
    /// A file could not be read or the bundle written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Elements whose content identifies or authenticates, and the category
/// their placeholder is named after. Numeric ids get numeric placeholders.
pub const SECRET_ELEMENTS: &[(&str, Category)] = &[
    ("authenticator", Category::Authenticator),
    ("account_key", Category::Authenticator),
    ("host_cpid", Category::Cpid),
    ("cross_project_id", Category::Cpid),
    ("external_cpid", Category::Cpid),
    ("userid", Category::UserId),
    ("hostid", Category::HostId),
    ("user_name", Category::Name),
    ("team_name", Category::Name),
    ("email_hash", Category::Email),
    ("email_addr", Category::Email),
    ("domain_name", Category::HostName),
    ("ip_addr", Category::Ip),
    ("mac_address", Category::Mac),
    ("host_venue", Category::Venue),
];

/// Kinds of removed value, each with its own placeholders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// Authenticators and account keys.
    Authenticator,
    /// Host, cross-project and external CPIDs.
    Cpid,
    /// User ids.
    UserId,
    /// Host (computer) ids.
    HostId,
    /// User and team names.
    Name,
    /// E-mail hash and address.
    Email,
    /// The host's name (domain_name, the log's `Host name:`).
    HostName,
    /// IP addresses.
    Ip,
    /// MAC addresses.
    Mac,
    /// The host's venue.
    Venue,
    /// The data directory's path.
    DataDir,
    /// A home folder's user name.
    HomeUser,
}

impl Category {
    /// How the summary names it.
    pub fn label(self) -> &'static str {
        match self {
            Category::Authenticator => "authenticator(s) / account key(s)",
            Category::Cpid => "CPID(s)",
            Category::UserId => "user id(s)",
            Category::HostId => "host id(s)",
            Category::Name => "user/team name(s)",
            Category::Email => "e-mail hash(es)/address(es)",
            Category::HostName => "host name(s)",
            Category::Ip => "IP address(es)",
            Category::Mac => "MAC address(es)",
            Category::Venue => "host venue(s)",
            Category::DataDir => "data directory path(s)",
            Category::HomeUser => "home folder user name(s)",
        }
    }

    /// The placeholder of the `n`-th distinct value (from 1).
    fn token(self, n: usize) -> String {
        match self {
            Category::Authenticator => format!("REDACTED_AUTHENTICATOR_{n}"),
            Category::Cpid => format!("REDACTED_CPID_{n}"),
            // Numeric: parsers read them as numbers.
            Category::UserId => format!("{}", 900_000 + n),
            Category::HostId => format!("{}", 800_000 + n),
            Category::Name => format!("REDACTED_NAME_{n}"),
            Category::Email => format!("REDACTED_EMAIL_{n}"),
            Category::HostName => format!("redacted-host-{n}"),
            // TEST-NET-1 (RFC 5737): still an address.
            Category::Ip => format!("192.0.2.{}", n.min(254)),
            Category::Mac => format!("00:00:5e:00:53:{:02x}", n.min(255)),
            Category::Venue => format!("redacted_venue_{n}"),
            Category::DataDir => {
                if n == 1 {
                    "/boinc-data".to_string()
                } else {
                    format!("/boinc-data-{n}")
                }
            }
            Category::HomeUser => format!("user{n}"),
        }
    }
}

/// What a bundle holds and what it left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BundleSummary {
    /// The files packed, as paths inside the bundle.
    pub packed: Vec<String>,
    /// The files left out, with why (grouped where many share a reason).
    pub left_out: Vec<(String, String)>,
    /// Per category, how many distinct values were removed and in how many
    /// places.
    pub removed: BTreeMap<Category, (usize, usize)>,
}

/// Packs what an audit of `dir` reads into the gzip'd tar `out`, with every
/// secret replaced ([module docs](self)).
pub fn bundle(dir: &Path, out: &Path) -> Result<BundleSummary, BundleError> {
    let display = dir.display().to_string();
    if !dir.is_dir() {
        return Err(BundleError::NotADirectory(display));
    }
    let (packed, left_out) = plan(dir);
    if packed.is_empty() {
        return Err(BundleError::Empty(display));
    }
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| BundleError::Io { path, source }
    };
    let mut files = Vec::new();
    for rel in &packed {
        let bytes = read_plain(&dir.join(rel)).map_err(io(&dir.join(rel)))?;
        files.push((rel.clone(), bytes));
    }
    let mut redactor = Redactor::default();
    for root in data_dir_paths(dir) {
        redactor.learn(Category::DataDir, root.as_bytes());
    }
    for (_, bytes) in &files {
        redactor.learn_from(bytes);
    }
    let root_name = out
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.trim_end_matches(".gz").trim_end_matches(".tgz"))
        .map(|n| n.trim_end_matches(".tar").to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "bundle".to_string());
    let file = std::fs::File::create(out).map_err(io(out))?;
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    let mut summary = BundleSummary {
        left_out,
        ..BundleSummary::default()
    };
    for (rel, bytes) in files {
        let clean = redactor.redact(&bytes);
        // A gzip'd log is packed plain (its name without `.gz`).
        let name = rel.strip_suffix(".gz").unwrap_or(&rel).to_string();
        let mut header = tar::Header::new_gnu();
        header.set_size(clean.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_cksum();
        tar.append_data(&mut header, format!("{root_name}/{name}"), clean.as_slice())
            .map_err(io(out))?;
        summary.packed.push(name);
    }
    let gz = tar.into_inner().map_err(io(out))?;
    gz.finish().map_err(io(out))?.flush().map_err(io(out))?;
    summary.removed = redactor.counts();
    Ok(summary)
}

/// The files of `dir` an audit reads (paths relative to it, in path
/// order) and those left out with why.
fn plan(dir: &Path) -> (Vec<String>, Vec<(String, String)>) {
    let (inputs, _) = crate::parse::discover::discover(&[dir.to_path_buf()]);
    let audit_reads: std::collections::BTreeSet<PathBuf> =
        inputs.into_iter().map(|input| input.path).collect();
    let mut all = Vec::new();
    walk(dir, dir, 0, &mut all);
    all.sort();
    let mut packed = Vec::new();
    let mut left_out = Vec::new();
    let mut others: BTreeMap<String, usize> = BTreeMap::new();
    for rel in all {
        let text = rel.to_string_lossy().replace('\\', "/");
        let name = rel
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let top = text.split('/').next().unwrap_or_default().to_string();
        let why = if name == "gui_rpc_auth.cfg" {
            Some("the GUI RPC password")
        } else if name == "remote_hosts.cfg" {
            Some("hosts allowed to control the client")
        } else if name.starts_with("account_") && name.ends_with(".xml") {
            Some("account file (authenticator; an audit does not read it)")
        } else if top == "slots" {
            Some("task slots (running applications' files)")
        } else {
            None
        };
        if let Some(why) = why {
            if top == "slots" {
                *others.entry("slots/".into()).or_default() += 1;
            } else {
                left_out.push((text, why.to_string()));
            }
            continue;
        }
        if audit_reads.contains(&dir.join(&rel)) || name == "time_stats_log" {
            packed.push(text);
        } else {
            let group = if rel.components().count() > 1 {
                format!("{top}/")
            } else {
                "other files".to_string()
            };
            *others.entry(group).or_default() += 1;
        }
    }
    for (group, n) in others {
        let why = if group == "slots/" {
            "task slots (running applications' files)"
        } else {
            "not read by an audit (binaries, project files, statistics, …)"
        };
        left_out.push((format!("{group} ({n} file(s))"), why.to_string()));
    }
    (packed, left_out)
}

/// Every regular file below `dir` (symbolic links are not followed).
fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth < 6 {
            walk(root, &path, depth + 1, out);
        } else if kind.is_file() {
            if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
}

/// A file's bytes, a `.gz` one decompressed.
fn read_plain(path: &Path) -> std::io::Result<Vec<u8>> {
    let raw = std::fs::read(path)?;
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut plain = Vec::new();
        flate2::read::MultiGzDecoder::new(raw.as_slice()).read_to_end(&mut plain)?;
        return Ok(plain);
    }
    Ok(raw)
}

/// The paths the data directory goes by: as given and made absolute.
fn data_dir_paths(dir: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    if let Ok(abs) = std::fs::canonicalize(dir) {
        paths.push(abs.display().to_string());
    }
    let given = dir.display().to_string();
    if given.starts_with('/') || given.contains(":\\") {
        paths.push(given);
    }
    paths
}

/// The secrets learnt and their placeholders.
#[derive(Debug, Default)]
struct Redactor {
    /// (category, value) → its placeholder.
    tokens: BTreeMap<(Category, Vec<u8>), String>,
    /// Per category, the distinct values learnt.
    distinct: BTreeMap<Category, usize>,
    /// Per category, the places replaced.
    places: std::cell::RefCell<BTreeMap<Category, usize>>,
}

/// A place to replace: start, end, what it is, its placeholder.
type Span = (usize, usize, Category, String);

/// Values shorter than this are replaced only where they stand (in their
/// element or log line), never elsewhere: a short name or number may be an
/// ordinary word or figure.
const GLOBAL_MIN_LEN: usize = 6;

impl Redactor {
    /// Learns `value` as a secret of `category`.
    fn learn(&mut self, category: Category, value: &[u8]) {
        let value = trim(value);
        // An unassigned id, or a loopback address, identifies nobody.
        let nobody = match category {
            Category::HostId | Category::UserId => value == b"0",
            Category::Ip => value.starts_with(b"127.") || value == b"0.0.0.0" || value == b"::1",
            _ => false,
        };
        if value.is_empty() || nobody {
            return;
        }
        let key = (category, value.to_vec());
        if !self.tokens.contains_key(&key) {
            let n = self.distinct.entry(category).or_default();
            *n += 1;
            let token = category.token(*n);
            self.tokens.insert(key, token);
        }
    }

    /// Learns the secrets one file holds: its secret elements, and the
    /// event log's host name, computer ids and home folders.
    fn learn_from(&mut self, bytes: &[u8]) {
        for &(element, category) in SECRET_ELEMENTS {
            for (start, end) in element_spans(bytes, element) {
                let value = bytes[start..end].to_vec();
                self.learn(category, &value);
            }
        }
        for (prefix, category) in LOG_SECRETS {
            for (start, end) in after_prefix(bytes, prefix.as_bytes()) {
                let value = bytes[start..end].to_vec();
                self.learn(*category, &value);
            }
        }
        for (start, end) in home_users(bytes) {
            let value = bytes[start..end].to_vec();
            self.learn(Category::HomeUser, &value);
        }
    }

    /// The placeholder of `value` of `category`, if learnt.
    fn token(&self, category: Category, value: &[u8]) -> Option<&str> {
        self.tokens
            .get(&(category, trim(value).to_vec()))
            .map(String::as_str)
    }

    /// `bytes` with every learnt secret replaced.
    fn redact(&self, bytes: &[u8]) -> Vec<u8> {
        let mut spans: Vec<Span> = Vec::new();
        for &(element, category) in SECRET_ELEMENTS {
            for (start, end) in element_spans(bytes, element) {
                if let Some(token) = self.token(category, &bytes[start..end]) {
                    spans.push((start, end, category, token.to_string()));
                }
            }
        }
        for &(prefix, category) in LOG_SECRETS {
            for (start, end) in after_prefix(bytes, prefix.as_bytes()) {
                if let Some(token) = self.token(category, &bytes[start..end]) {
                    spans.push((start, end, category, token.to_string()));
                }
            }
        }
        // Long values wherever else they stand, longest first (a path
        // before the folder it starts with).
        let mut long: Vec<(&(Category, Vec<u8>), &String)> = self
            .tokens
            .iter()
            .filter(|((_, value), _)| {
                value.len() >= GLOBAL_MIN_LEN && !value.iter().all(u8::is_ascii_digit)
            })
            .collect();
        long.sort_by_key(|((_, value), _)| std::cmp::Reverse(value.len()));
        for ((category, value), token) in long {
            for at in memchr::memmem::find_iter(bytes, value.as_slice()) {
                spans.push((at, at + value.len(), *category, token.clone()));
            }
        }
        // Home folders last: a data directory below one is replaced whole.
        for (start, end) in home_users(bytes) {
            if let Some(token) = self.token(Category::HomeUser, &bytes[start..end]) {
                spans.push((start, end, Category::HomeUser, token.to_string()));
            }
        }
        self.apply(bytes, spans)
    }

    /// Replaces the spans (of overlapping ones, the one that starts first;
    /// of two that start together, the one given first) and counts them.
    fn apply(&self, bytes: &[u8], mut spans: Vec<Span>) -> Vec<u8> {
        spans.sort_by_key(|span| span.0);
        let mut places = self.places.borrow_mut();
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        for (start, end, category, token) in spans {
            if start < at {
                continue;
            }
            out.extend_from_slice(&bytes[at..start]);
            out.extend_from_slice(token.as_bytes());
            at = end;
            *places.entry(category).or_default() += 1;
        }
        out.extend_from_slice(&bytes[at..]);
        out
    }

    /// Per category: distinct values and places replaced.
    fn counts(&self) -> BTreeMap<Category, (usize, usize)> {
        let places = self.places.borrow();
        self.distinct
            .iter()
            .map(|(&category, &n)| (category, (n, places.get(&category).copied().unwrap_or(0))))
            .collect()
    }
}

/// Event-log lines that name a secret after a fixed text, to the end of
/// the line or the next `;`.
const LOG_SECRETS: &[(&str, Category)] = &[
    ("Host name: ", Category::HostName),
    ("Computer ID ", Category::HostId),
    ("Data directory: ", Category::DataDir),
];

/// `value` without surrounding blanks.
fn trim(value: &[u8]) -> &[u8] {
    let start = value
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    &value[start..end]
}

/// The content spans of every `<element>…</element>` in `bytes` (an
/// element with attributes too), blanks around the value excluded.
fn element_spans(bytes: &[u8], element: &str) -> Vec<(usize, usize)> {
    let open = format!("<{element}");
    let close = format!("</{element}>");
    let mut spans = Vec::new();
    for at in memchr::memmem::find_iter(bytes, open.as_bytes()) {
        let after = at + open.len();
        // `<hostid>` or `<hostid attr=…>`, not `<hostid_x>`.
        match bytes.get(after) {
            Some(b'>') | Some(b' ') | Some(b'\t') => {}
            _ => continue,
        }
        let Some(gt) = memchr::memchr(b'>', &bytes[after..]) else {
            continue;
        };
        let start = after + gt + 1;
        if bytes[start - 2] == b'/' {
            continue;
        }
        let Some(len) = memchr::memmem::find(&bytes[start..], close.as_bytes()) else {
            continue;
        };
        let value = &bytes[start..start + len];
        let lead = value.len() - value.trim_ascii_start().len();
        let inner = value.trim_ascii();
        if !inner.is_empty() {
            spans.push((start + lead, start + lead + inner.len()));
        }
    }
    spans
}

/// The spans of the text after each `prefix` up to the line's end or a
/// `;` (the computer id: its digits only).
fn after_prefix(bytes: &[u8], prefix: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for at in memchr::memmem::find_iter(bytes, prefix) {
        let start = at + prefix.len();
        let rest = &bytes[start..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n' || b == b'\r' || b == b';')
            .unwrap_or(rest.len());
        let value = &rest[..end];
        let value = if prefix == b"Computer ID " {
            let digits = value.iter().take_while(|b| b.is_ascii_digit()).count();
            &value[..digits]
        } else {
            value.trim_ascii_end()
        };
        if !value.is_empty() {
            spans.push((start, start + value.len()));
        }
    }
    spans
}

/// The spans of the user names in home folders (`/home/NAME`,
/// `/Users/NAME`, `\Users\NAME`, `\Documents and Settings\NAME`).
fn home_users(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for prefix in [
        &b"/home/"[..],
        b"/Users/",
        b"\\Users\\",
        b"\\Documents and Settings\\",
    ] {
        for at in memchr::memmem::find_iter(bytes, prefix) {
            let start = at + prefix.len();
            let len = bytes[start..]
                .iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
                .count();
            if len > 0 {
                spans.push((start, start + len));
            }
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_value_is_the_same_token_everywhere() {
        let state = b"<client_state>\n<host_info>\n  <domain_name>alice-pc</domain_name>\n  \
                      <ip_addr>10.1.2.3</ip_addr>\n  <host_cpid>0123456789abcdef</host_cpid>\n\
                      </host_info>\n<project><hostid>4242</hostid><userid>7</userid>\
                      <user_name>Alice</user_name></project>\n</client_state>\n";
        let log = b"01-Jan-2024 10:00:00 [---] Host name: alice-pc\n\
                    01-Jan-2024 10:00:00 [---] Data directory: /home/alice/BOINC\n\
                    01-Jan-2024 10:00:00 [P] URL http://p/; Computer ID 4242; resource share 100\n\
                    01-Jan-2024 10:00:01 [---] ran 7 tasks from 10.1.2.3\n\
                    01-Jan-2024 10:00:02 [---] slot /home/alice/BOINC/slots/0, config /home/alice/x\n";
        let mut r = Redactor::default();
        r.learn_from(state);
        r.learn_from(log);
        let state = String::from_utf8(r.redact(state)).unwrap();
        let log = String::from_utf8(r.redact(log)).unwrap();
        for secret in ["alice", "10.1.2.3", "0123456789abcdef", "4242", "Alice"] {
            assert!(!state.contains(secret), "{secret} in {state}");
            assert!(!log.contains(secret), "{secret} in {log}");
        }
        assert!(state.contains("<hostid>800001</hostid>"), "{state}");
        assert!(
            log.contains("Computer ID 800001; resource share 100"),
            "{log}"
        );
        assert!(state.contains("<domain_name>redacted-host-1</domain_name>"));
        assert!(log.contains("Host name: redacted-host-1\n"), "{log}");
        assert!(log.contains("Data directory: /boinc-data\n"), "{log}");
        assert!(
            log.contains("slot /boinc-data/slots/0, config /home/user1/x"),
            "{log}"
        );
        // A short id is replaced where it stands only: `7 tasks` stays.
        assert!(state.contains("<userid>900001</userid>"));
        assert!(log.contains("ran 7 tasks from 192.0.2.1"), "{log}");
    }

    #[test]
    fn elements_with_attributes_and_blanks_are_found_and_lookalikes_are_not() {
        let xml = b"<authenticator> abc </authenticator><hostid_x>1</hostid_x><hostid/>";
        assert_eq!(element_spans(xml, "authenticator"), [(16, 19)]);
        assert!(element_spans(xml, "hostid").is_empty());
    }
}

//! Hostile inputs: mutated copies of every small input under `traces/`
//! (field excerpts, parse samples, broken inputs, RPC transcripts) go
//! through the whole pipeline — parse, audit (in memory, and streamed
//! session by session as the command line does), and the table, JSON and
//! HTML reports — and none may panic or run longer than ten seconds. Every
//! problem a parser reports must name its file.
//!
//! The mutations are what field input looks like: cut at any byte or at a
//! line boundary, bytes flipped, lines dropped, duplicated or swapped (so
//! timestamps go backwards), CRLF and lone CR line ends, UTF-16 with a BOM,
//! Windows-1252 bytes, NUL bytes, two inputs concatenated (mixed client
//! versions), an empty file, a 1 MB line, XML nested 20 000 deep and an
//! entity-expansion attempt. Adding seeds is adding files under `traces/`.
//!
//! `BOINC_AUDIT_HOSTILE_SECONDS=N` keeps drawing new mutations for N
//! seconds after the fixed corpus (the long run; `BOINC_AUDIT_HOSTILE_SEED`
//! picks its first seed).

use boinc_audit::parse::{self, LogOptions};
use boinc_audit::replay::AuditOptions;
use boinc_audit::report::{render, Format};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The fixed corpus: mutations drawn per seed file.
const PER_SEED: usize = 15;
/// Seed files larger than this are left to the reference checks.
const MAX_SEED_BYTES: u64 = 200 * 1024;
/// What one input may take.
const TIME_LIMIT: Duration = Duration::from_secs(10);

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn seeds() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if entry.metadata().is_ok_and(|m| m.len() <= MAX_SEED_BYTES) {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                let skip = matches!(
                    name.as_deref(),
                    Some("case.toml" | "expect.toml" | "errors.txt" | "README.md" | "source.txt")
                );
                if !skip {
                    out.push(path);
                }
            }
        }
    }
    let mut out = Vec::new();
    for dir in [
        "traces/field",
        "traces/samples",
        "traces/invalid",
        "traces/server",
    ] {
        walk(Path::new(dir), &mut out);
    }
    out.sort();
    out
}

fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == b'\n').collect()
}

/// One mutation of `data` (`other` is another seed, for mixing).
fn mutate(data: &[u8], other: &[u8], rng: &mut Rng) -> (&'static str, Vec<u8>) {
    let n = data.len();
    match rng.below(15) {
        0 => ("cut at a byte", data[..rng.below(n + 1)].to_vec()),
        1 => {
            let ls = lines(data);
            let keep = rng.below(ls.len() + 1);
            ("cut at a line", ls[..keep].join(&b'\n'))
        }
        2 => {
            let mut out = data.to_vec();
            for _ in 0..1 + rng.below(16) {
                if !out.is_empty() {
                    let i = rng.below(out.len());
                    out[i] = rng.next() as u8;
                }
            }
            ("bytes flipped", out)
        }
        3 => {
            let mut ls = lines(data);
            for _ in 0..1 + rng.below(4) {
                if !ls.is_empty() {
                    ls.remove(rng.below(ls.len()));
                }
            }
            ("lines dropped", ls.join(&b'\n'))
        }
        4 => {
            let mut ls = lines(data);
            for _ in 0..1 + rng.below(4) {
                if !ls.is_empty() {
                    let i = rng.below(ls.len());
                    ls.insert(i, ls[i]);
                }
            }
            ("lines duplicated", ls.join(&b'\n'))
        }
        5 => {
            let mut ls = lines(data);
            for _ in 0..1 + rng.below(6) {
                let (i, j) = (rng.below(ls.len()), rng.below(ls.len()));
                ls.swap(i, j);
            }
            ("lines swapped (times go back)", ls.join(&b'\n'))
        }
        6 => ("CRLF", lines(data).join(&b"\r\n"[..])),
        7 => ("lone CR", lines(data).join(&b'\r')),
        8 => {
            let mut out = vec![0xff, 0xfe];
            for &b in data {
                out.extend_from_slice(&[b, 0]);
            }
            ("UTF-16LE with BOM", out)
        }
        9 => {
            let mut out = data.to_vec();
            for _ in 0..1 + rng.below(8) {
                if !out.is_empty() {
                    let i = rng.below(out.len());
                    out[i] = 0x80 + (rng.next() % 32) as u8;
                }
            }
            ("Windows-1252 bytes", out)
        }
        10 => {
            let mut out = data.to_vec();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(out.len() + 1);
                out.insert(i, 0);
            }
            ("NUL bytes", out)
        }
        11 => {
            let mut out = data.to_vec();
            out.push(b'\n');
            out.extend_from_slice(other);
            ("two inputs in one (mixed versions)", out)
        }
        12 => {
            let mut out = data[..rng.below(n + 1)].to_vec();
            out.extend(std::iter::repeat_n(b'x', 1 << 20));
            out.extend_from_slice(&data[out.len().min(n)..]);
            ("a 1 MB line", out)
        }
        13 => {
            let depth = 20_000;
            let mut out = b"<client_state>".to_vec();
            out.extend(b"<project>".repeat(depth));
            out.extend_from_slice(&data[..rng.below(n + 1)]);
            out.extend(b"</project>".repeat(depth));
            ("XML nested 20 000 deep", out)
        }
        _ => {
            let mut out = b"<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\">\
                <!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\
                <!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n"
                .to_vec();
            out.extend_from_slice(data);
            out.extend_from_slice(b"\n<x>&c;&e;</x>\n");
            ("entity expansion attempt", out)
        }
    }
}

/// Runs the whole pipeline on `dir`; the problems the parsers reported.
fn pipeline(dir: &Path) -> Vec<String> {
    let parsed = parse::load_trace(&[dir.to_path_buf()], &LogOptions::default());
    let problems: Vec<String> = parsed
        .errors
        .iter()
        .chain(&parsed.warnings)
        .map(ToString::to_string)
        .collect();
    if let Ok(report) =
        boinc_audit::audit::audit_trace(&parsed.value, "hostile", &AuditOptions::default())
    {
        for format in [Format::Table, Format::Json, Format::Html] {
            let mut out = Vec::new();
            let _ = render(&report, format, &mut out);
        }
    }
    // The command line's streaming audit (session by session, totals only).
    let streamed = boinc_audit::audit::audit_paths(
        &[dir.to_path_buf()],
        &LogOptions::default(),
        "hostile",
        &AuditOptions::default(),
        boinc_audit::audit::Keep::Totals,
        &mut |_, _| {},
    );
    if let Ok(report) = streamed.report {
        for format in [Format::Table, Format::Json] {
            let mut out = Vec::new();
            let _ = render(&report, format, &mut out);
        }
    }
    problems
}

enum Outcome {
    Done(Vec<String>),
    Panicked(String),
}

/// Runs one input in a worker thread; `None` when it takes too long.
fn run(dir: PathBuf) -> Option<Outcome> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = match std::panic::catch_unwind(|| pipeline(&dir)) {
            Ok(problems) => Outcome::Done(problems),
            Err(panic) => Outcome::Panicked(
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default(),
            ),
        };
        let _ = tx.send(outcome);
    });
    rx.recv_timeout(TIME_LIMIT).ok()
}

#[test]
fn mutated_inputs_never_panic_or_hang() {
    let seeds = seeds();
    assert!(seeds.len() > 100, "seeds: {}", seeds.len());
    let data: Vec<Vec<u8>> = seeds
        .iter()
        .map(|p| std::fs::read(p).expect("seed"))
        .collect();
    let root = std::env::temp_dir().join(format!("boinc-audit-hostile-{}", std::process::id()));
    let long_run = std::env::var("BOINC_AUDIT_HOSTILE_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(Duration::from_secs);
    let first_seed = std::env::var("BOINC_AUDIT_HOSTILE_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(1);
    let started = Instant::now();
    let mut failures = Vec::new();
    let (mut inputs, mut problems) = (0usize, 0usize);
    let mut round = 0u64;
    loop {
        let fixed = round == 0;
        if !fixed && long_run.is_none_or(|limit| started.elapsed() >= limit) {
            break;
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (first_seed + round));
        for (k, (seed, bytes)) in seeds.iter().zip(&data).enumerate() {
            for _ in 0..PER_SEED {
                let other = &data[rng.below(data.len())];
                let (what, mutated) = mutate(bytes, other, &mut rng);
                let dir = root.join(format!("r{round}-{k}"));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).expect("temp dir");
                let name = seed.file_name().expect("file name");
                let file = dir.join(name);
                std::fs::write(&file, &mutated).expect("write");
                inputs += 1;
                match run(dir.clone()) {
                    None => {
                        failures.push(format!("{}: {what}: over {TIME_LIMIT:?}", seed.display()))
                    }
                    Some(Outcome::Panicked(message)) => {
                        failures.push(format!("{}: {what}: panicked: {message}", seed.display()))
                    }
                    Some(Outcome::Done(found)) => {
                        problems += found.len();
                        let file_name = name.to_string_lossy();
                        for problem in found.iter().filter(|p| !p.contains(&*file_name)) {
                            failures.push(format!(
                                "{}: {what}: a problem that names no file: {problem}",
                                seed.display()
                            ));
                        }
                    }
                }
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
        round += 1;
        if long_run.is_none() {
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    eprintln!(
        "hostile inputs: {inputs} from {} seeds in {round} round(s), {:.1} s, {problems} problems reported, {} failures",
        seeds.len(),
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(inputs >= 2000, "{inputs} inputs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! Command runners: one file per subcommand, called from `main.rs`; this
//! file holds what they share (exit codes, output, `--set` overrides).

/// `println!` for command output: a closed pipe (`| head`) ends the command
/// with status 0, as main does for errors it is handed; any other write
/// error is reported and ends it with status 2. `println!` would panic.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(err) = writeln!(std::io::stdout(), $($arg)*) {
            $crate::commands::output_failed(&err);
        }
    }};
}

pub mod audit;
pub mod bench;
pub mod bundle;
pub mod compare;
pub mod explain;
pub mod flags;
pub mod fleet;
pub mod golden;
pub mod lab;
pub mod parse;
pub mod policy;
pub mod progress;
pub mod scenario;
pub mod simulate;

use crate::cli::DateOrderArg;
use anyhow::{Context, Result};
use boinc_audit::parse::{DateOrder, LogOptions};
use boinc_audit::policy::Params;
use std::io::{self, BufWriter, Write};

/// Everything agreed / parsed.
pub const EXIT_OK: u8 = 0;
/// Divergences found (or: the two sides of a comparison differ).
pub const EXIT_DIVERGED: u8 = 1;
/// Trouble: usage, I/O or parse errors.
pub const EXIT_TROUBLE: u8 = 2;

/// Ends the process after a failed write to standard output (see `outln!`).
pub fn output_failed(err: &io::Error) -> ! {
    if err.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(i32::from(EXIT_OK));
    }
    eprintln!("error: writing to standard output: {err}");
    std::process::exit(i32::from(EXIT_TROUBLE));
}

pub fn params_from_overrides(overrides: &[String]) -> Result<Params> {
    let mut params = Params::default();
    apply_overrides(&mut params, overrides)?;
    Ok(params)
}

/// Applies `KEY=VALUE` overrides (`--set`) to `params`, in order.
pub fn apply_overrides(params: &mut Params, overrides: &[String]) -> Result<()> {
    for assignment in overrides {
        params
            .apply_assignment(assignment)
            .with_context(|| format!("--set {assignment}"))?;
    }
    Ok(())
}

/// The trace's name in reports: its paths as the user gave them.
pub fn trace_name(paths: &[std::path::PathBuf]) -> String {
    paths
        .iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn open_output(path: Option<&std::path::Path>) -> Result<Box<dyn Write>> {
    Ok(match path {
        Some(path) if path.as_os_str() != "-" => Box::new(BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        )),
        _ => Box::new(BufWriter::new(io::stdout().lock())),
    })
}

pub fn log_options(date_order: DateOrderArg) -> LogOptions {
    LogOptions {
        date_order: match date_order {
            DateOrderArg::Auto => DateOrder::Auto,
            DateOrderArg::DayFirst => DateOrder::DayFirst,
            DateOrderArg::MonthFirst => DateOrder::MonthFirst,
        },
        reading_threads: 0,
    }
}

/// Archives unpacked for a command, with the names they were given (their
/// folders go when this is dropped).
pub type Unpacked = Vec<(boinc_audit::fleet::Unpacked, String)>;

/// `paths` with every archive among them (a `bundle`, any `.tar.gz`, `.tgz`,
/// `.tar` or `.zip`) unpacked into a temporary folder.
pub fn unpack_archives(
    paths: &[std::path::PathBuf],
) -> anyhow::Result<(Vec<std::path::PathBuf>, Unpacked)> {
    let mut unpacked = Vec::new();
    let mut out = Vec::new();
    for path in paths {
        match boinc_audit::fleet::unpack_archive(path) {
            Ok(Some(archive)) => {
                out.push(archive.root.clone());
                unpacked.push((archive, path.display().to_string()));
            }
            Ok(None) => out.push(path.clone()),
            Err(err) => anyhow::bail!("cannot unpack {}: {err}", path.display()),
        }
    }
    Ok((out, unpacked))
}

/// `text` with the unpacked archives' folders named as the archives.
pub fn name_archives(text: String, unpacked: &Unpacked) -> String {
    unpacked.iter().fold(text, |text, (archive, name)| {
        text.replace(&archive.root.display().to_string(), name)
    })
}

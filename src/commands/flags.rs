//! `boinc-audit flags`: the log flags a complete audit needs, and their
//! merge into a cc_config.xml.

use super::EXIT_OK;
use crate::cli::FlagsArgs;
use anyhow::{Context, Result};
use boinc_audit::flags::{flags_for, merge_cc_config};
use boinc_audit::policy::profile::Release;

/// Log written per hour with every flag on, measured on the lab's real
/// 7.20.5 runs (2-3 projects, 2-3 CPUs, 36-s tasks): 0.28-1.18 MB in
/// 4-5 minutes.
const MB_PER_HOUR: (f64, f64) = (4.0, 14.0);
/// The stdoutdae.txt size suggested: with stdoutdae.old (the client keeps
/// one rotated file) 18 hours or more at the measured rates.
const MAX_STDOUT_BYTES: u64 = 128 << 20;

pub fn run(args: &FlagsArgs) -> Result<u8> {
    let release = args
        .client_version
        .as_deref()
        .map(|v| {
            v.parse::<Release>()
                .map_err(|e| anyhow::anyhow!("--client-version {e}"))
        })
        .transpose()?;
    let flags = flags_for(release.map(|r| (r.0, r.1, r.2)));
    let label = release.map_or("today's client".to_string(), |r| format!("client {r}"));
    outln!("log flags a complete audit of {label} needs:");
    let width = flags.iter().map(|f| f.name.len()).max().unwrap_or(0);
    for flag in &flags {
        outln!("  {:width$}  {}", flag.name, flag.gives);
    }
    let names: Vec<&str> = flags.iter().map(|f| f.name).collect();
    let Some(path) = &args.cc_config else {
        outln!("\ncc_config.xml (or merge into yours with --cc-config PATH):\n");
        outln!(
            "{}",
            merge_cc_config("", &names, MAX_STDOUT_BYTES)
                .map_err(anyhow::Error::msg)?
                .text
                .trim_end()
        );
        print_after();
        return Ok(EXIT_OK);
    };
    let existing = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .with_context(|| format!("{} is not UTF-8 text", path.display()))?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    let merged = merge_cc_config(&existing, &names, MAX_STDOUT_BYTES)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut out = path.clone().into_os_string();
    out.push(".new");
    let out = std::path::PathBuf::from(out);
    std::fs::write(&out, &merged.text)
        .with_context(|| format!("cannot write {}", out.display()))?;
    outln!(
        "\nwrote {} (every other option of {} kept):",
        out.display(),
        path.display()
    );
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    outln!("  added:      {}", list(&merged.added));
    outln!("  turned on:  {}", list(&merged.turned_on));
    outln!("  already on: {}", list(&merged.already_on));
    match &merged.kept_max_stdout {
        Some(size) => {
            outln!("  max_stdout_file_size kept at {size} bytes (suggested: {MAX_STDOUT_BYTES})")
        }
        None => outln!("  max_stdout_file_size set to {MAX_STDOUT_BYTES} bytes"),
    }
    outln!(
        "\nreview it, then put it in place:\n  mv {} {}",
        out.display(),
        path.display()
    );
    print_after();
    Ok(EXIT_OK)
}

fn print_after() {
    outln!(
        "\nmake the running client re-read it: boinccmd --read_cc_config\n\
         (or Options > Read config files in the Manager; a restart also works)\n\
         it writes roughly {}-{} MB of log per hour (measured with 2-3 projects and short \
         tasks; more with many queued tasks);\n\
         max_stdout_file_size {} bytes ({} MB) keeps 18 hours or more in stdoutdae.txt \
         and stdoutdae.old",
        MB_PER_HOUR.0,
        MB_PER_HOUR.1,
        MAX_STDOUT_BYTES,
        MAX_STDOUT_BYTES >> 20
    );
}

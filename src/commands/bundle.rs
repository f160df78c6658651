//! `boinc-audit bundle`: a data directory packed without its secrets.

use super::EXIT_OK;
use crate::cli::BundleArgs;
use anyhow::{Context, Result};
use boinc_audit::bundle;

pub fn run(args: &BundleArgs) -> Result<u8> {
    if args.out.exists() && !args.force {
        anyhow::bail!(
            "{} exists (give --force to overwrite it)",
            args.out.display()
        );
    }
    let summary = bundle::bundle(&args.dir, &args.out)
        .with_context(|| format!("cannot bundle {}", args.dir.display()))?;
    outln!(
        "packed {} file(s) into {}:",
        summary.packed.len(),
        args.out.display()
    );
    for name in &summary.packed {
        outln!("  {name}");
    }
    // A value learnt (the data directory's own path) but found nowhere
    // was not in the bundle to begin with.
    let removed: Vec<_> = summary
        .removed
        .iter()
        .filter(|(_, (_, places))| *places > 0)
        .collect();
    if removed.is_empty() {
        outln!("removed: nothing (no secret found)");
    } else {
        outln!("removed (each value replaced by a placeholder, the same value by the same one):");
        for (category, (values, places)) in removed {
            outln!("  {values} {} in {places} place(s)", category.label());
        }
    }
    if !summary.left_out.is_empty() {
        outln!("left out:");
        for (what, why) in &summary.left_out {
            outln!("  {what}: {why}");
        }
    }
    outln!("audit it with: boinc-audit audit {}", args.out.display());
    Ok(EXIT_OK)
}

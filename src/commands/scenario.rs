//! `boinc-audit scenario random`: writes generated emulator inputs.

use super::EXIT_OK;
use crate::cli::ScenarioRandomArgs;
use anyhow::{bail, Context, Result};
use boinc_audit::simulate::random::{random_scenario, Feature};
use std::io::Write;
use std::path::Path;

pub fn run_random(args: &ScenarioRandomArgs) -> Result<u8> {
    let forced: Option<Vec<Feature>> = if args.features.is_empty() {
        None
    } else {
        let mut set = Vec::new();
        for name in &args.features {
            match Feature::from_name(name.trim()) {
                Some(f) => set.push(f),
                None => bail!(
                    "unknown feature {name:?}; known: {}",
                    Feature::ALL
                        .into_iter()
                        .chain(Feature::EXPLICIT)
                        .map(|f| f.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
        Some(set)
    };
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for seed in args.seed..args.seed.saturating_add(args.count) {
        let scenario = random_scenario(seed, forced.as_deref());
        let dir = if args.count == 1 {
            args.out.clone()
        } else {
            args.out.join(&scenario.name)
        };
        write_files(&dir, &scenario.files)?;
        writeln!(
            out,
            "{}\t--duration {:.0} --delta {:.0}",
            dir.display(),
            scenario.duration,
            scenario.delta
        )?;
    }
    Ok(EXIT_OK)
}

fn write_files(dir: &Path, files: &[(String, String)]) -> Result<()> {
    for (relative, text) in files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

//! The terminal summary of a fleet audit (`audit --fleet`): hosts by
//! agreement, divergent decision kinds, client versions, failed bundles.
//! The rows themselves go to the Parquet table ([`super::frame::FleetWriter`]).
//!
//! Architecture Invariant: consumes BundleReports and nothing else; keeps
//! a few numbers per bundle, never its decision points.

use crate::divergence::{BundleReport, DecisionKind};
use crate::golden::fixed;
use comfy_table::{presets, Table};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Hosts listed in the summary at most (the least agreeing first).
const MAX_HOSTS: usize = 25;

/// What the summary keeps of one bundle.
#[derive(Clone, Debug, PartialEq)]
struct BundleLine {
    bundle: String,
    host: String,
    version: String,
    policy: String,
    points: usize,
    checked: usize,
    divergent: usize,
    error: Option<String>,
}

/// The fleet summary, filled bundle by bundle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FleetSummary {
    lines: Vec<BundleLine>,
    divergent_kinds: BTreeMap<DecisionKind, (usize, usize)>,
    versions: BTreeMap<String, (usize, usize)>,
}

impl FleetSummary {
    /// Counts one bundle.
    pub fn add(&mut self, bundle: &BundleReport) {
        let version = bundle
            .client_version
            .clone()
            .unwrap_or_else(|| "unknown".to_string());
        let host = bundle.host.clone().unwrap_or_else(|| "-".to_string());
        let line = match &bundle.outcome {
            Ok(report) => {
                for (kind, count) in report.by_kind() {
                    if count.divergent > 0 {
                        let entry = self.divergent_kinds.entry(kind).or_default();
                        entry.0 += count.divergent;
                        entry.1 += 1;
                    }
                }
                BundleLine {
                    bundle: bundle.bundle.clone(),
                    host,
                    version: version.clone(),
                    policy: match &report.release {
                        Some(release) => format!("{} ({release})", report.policy),
                        None => report.policy.clone(),
                    },
                    points: report.n_points(),
                    checked: report.n_checked(),
                    divergent: report.n_divergent(),
                    error: report
                        .input_errors
                        .first()
                        .map(|e| format!("{} input problem(s): {e}", report.input_errors.len())),
                }
            }
            Err(error) => BundleLine {
                bundle: bundle.bundle.clone(),
                host,
                version: version.clone(),
                policy: "-".to_string(),
                points: 0,
                checked: 0,
                divergent: 0,
                error: Some(error.clone()),
            },
        };
        let entry = self.versions.entry(version).or_default();
        entry.0 += 1;
        entry.1 += usize::from(line.divergent > 0);
        self.lines.push(line);
    }

    /// Bundles counted.
    pub fn bundles(&self) -> usize {
        self.lines.len()
    }

    /// Bundles that could not be audited (or had unreadable inputs).
    pub fn failed(&self) -> usize {
        self.lines.iter().filter(|l| l.error.is_some()).count()
    }

    /// Bundles with at least one divergence.
    pub fn diverging(&self) -> usize {
        self.lines.iter().filter(|l| l.divergent > 0).count()
    }

    /// Writes the three tables and the failed bundles.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        let agreement = |l: &BundleLine| {
            if l.checked == 0 {
                f64::NAN
            } else {
                1.0 - l.divergent as f64 / l.checked as f64
            }
        };
        let mut lines: Vec<&BundleLine> = self.lines.iter().collect();
        // Failed first, then the least agreeing; nothing checked last.
        lines.sort_by(|a, b| {
            let key = |l: &BundleLine| {
                let value = agreement(l);
                (
                    l.error.is_none(),
                    value.is_nan(),
                    if value.is_nan() { 0.0 } else { value },
                )
            };
            let (ka, kb) = (key(a), key(b));
            ka.0.cmp(&kb.0)
                .then(ka.1.cmp(&kb.1))
                .then(ka.2.total_cmp(&kb.2))
                .then(a.bundle.cmp(&b.bundle))
        });
        let mut table = Table::new();
        table.load_preset(presets::ASCII_MARKDOWN);
        table.set_header(vec![
            "bundle",
            "host",
            "client",
            "policy",
            "points",
            "checked",
            "divergent",
            "agreement",
            "error",
        ]);
        for l in lines.iter().take(MAX_HOSTS) {
            let value = agreement(l);
            table.add_row(vec![
                l.bundle.clone(),
                l.host.clone(),
                l.version.clone(),
                l.policy.clone(),
                l.points.to_string(),
                l.checked.to_string(),
                l.divergent.to_string(),
                if value.is_nan() {
                    "-".to_string()
                } else {
                    fixed(value, 4)
                },
                l.error
                    .as_deref()
                    .map(|e| e.chars().take(60).collect())
                    .unwrap_or_default(),
            ]);
        }
        writeln!(out, "Hosts by agreement (least first)")?;
        writeln!(out, "{table}")?;
        if self.lines.len() > MAX_HOSTS {
            writeln!(
                out,
                "({} more bundle(s) in the table)",
                self.lines.len() - MAX_HOSTS
            )?;
        }
        writeln!(out)?;
        let mut kinds = Table::new();
        kinds.load_preset(presets::ASCII_MARKDOWN);
        kinds.set_header(vec!["divergent kind", "decision points", "bundles"]);
        for (kind, (points, bundles)) in &self.divergent_kinds {
            kinds.add_row(vec![
                kind.to_string(),
                points.to_string(),
                bundles.to_string(),
            ]);
        }
        if self.divergent_kinds.is_empty() {
            writeln!(out, "Divergent kinds: none")?;
        } else {
            writeln!(out, "Divergent kinds")?;
            writeln!(out, "{kinds}")?;
        }
        writeln!(out)?;
        let mut versions = Table::new();
        versions.load_preset(presets::ASCII_MARKDOWN);
        versions.set_header(vec!["client version", "bundles", "diverging"]);
        for (version, (bundles, diverging)) in &self.versions {
            versions.add_row(vec![
                version.clone(),
                bundles.to_string(),
                diverging.to_string(),
            ]);
        }
        writeln!(out, "Client versions")?;
        writeln!(out, "{versions}")?;
        writeln!(
            out,
            "\n{} bundle(s): {} diverging, {} failed or with unreadable inputs",
            self.bundles(),
            self.diverging(),
            self.failed()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;

    #[test]
    fn failed_and_diverging_bundles_are_counted() {
        let mut summary = FleetSummary::default();
        summary.add(&BundleReport {
            bundle: "a".into(),
            host: Some("h".into()),
            client_version: Some("8.0.2".into()),
            outcome: Ok(sample_report()),
        });
        summary.add(&BundleReport {
            bundle: "b.zip".into(),
            host: None,
            client_version: None,
            outcome: Err("cannot unpack: invalid Zip archive".into()),
        });
        assert_eq!(
            (summary.bundles(), summary.diverging(), summary.failed()),
            (2, 1, 1)
        );
        let mut out = Vec::new();
        summary.write(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let failed_row = text.find("b.zip").unwrap();
        let ok_row = text.find("| a ").unwrap();
        assert!(failed_row < ok_row, "failed bundles first:\n{text}");
        assert!(text.contains("work_fetch_choice"), "{text}");
        assert!(text.contains("8.0.2"), "{text}");
    }
}

//! A fragment of a real client's log never diverges from itself: windows cut
//! at random lines out of every trimmed reference log under traces/valid*
//! (the real client's policy code, run by its emulator) are audited as a
//! volunteer's pasted excerpt would be. A window may start or end inside a
//! pass, right after the lines that said what printed a block, or without
//! the lines that named the max_concurrent projects: whatever it cannot
//! recompute is "not checked", and nothing it checks may diverge.
//!
//! Adding cases is adding reference logs under `traces/`.

mod common;

use boinc_audit::audit::{audit_paths, Keep};
use boinc_audit::parse::LogOptions;
use boinc_audit::replay::AuditOptions;

/// Windows cut from each log.
const PER_LOG: usize = 6;
/// Window lengths, in lines.
const SIZES: [usize; 6] = [20, 60, 150, 400, 1000, 3000];

#[test]
fn windows_of_reference_logs_never_diverge() {
    let logs = common::valid_logs();
    assert!(logs.len() >= 20, "reference logs: {}", logs.len());
    let dir = std::env::temp_dir().join(format!("boinc-audit-fragments-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut next = common::xorshift(0x2545_f491_4f6c_dd1d);
    let (mut windows, mut checked) = (0, 0);
    let mut failures = Vec::new();
    for (_, path, text) in &logs {
        let lines: Vec<&str> = text.lines().collect();
        for k in 0..PER_LOG {
            let size = SIZES[next(SIZES.len())].min(lines.len());
            let start = next(lines.len() - size + 1);
            let window = dir.join(format!("w{k}.log"));
            std::fs::write(&window, lines[start..start + size].join("\n") + "\n")
                .expect("write a window");
            let streamed = audit_paths(
                &[window],
                &LogOptions::default(),
                "window",
                &AuditOptions::default(),
                Keep::Totals,
                &mut |_, _| {},
            );
            let Ok(report) = streamed.report else {
                continue;
            };
            windows += 1;
            checked += report.n_checked();
            if let Some(first) = report.divergences.first() {
                failures.push(format!(
                    "{} lines {}..{}: {} divergent; first at {} {} {}: recorded {} replayed {} ({})",
                    path.display(),
                    start + 1,
                    start + size,
                    report.n_divergent(),
                    first.time_label,
                    first.kind.name(),
                    first.field,
                    first.recorded,
                    first.replayed,
                    first.reason
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{windows} windows, {checked} decision points checked");
    assert!(checked > 1000, "windows check something: {checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

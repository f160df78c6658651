//! `boinc-audit lab`: records a real client against the lab's servers.

use super::{EXIT_DIVERGED, EXIT_OK};
use crate::cli::LabArgs;
use anyhow::Result;
use boinc_audit::lab::{run as run_lab, LabOptions};

pub fn run(args: &LabArgs) -> Result<u8> {
    let options = LabOptions {
        scenario: args.scenario.clone(),
        client: args.client.clone(),
        boinccmd: args.boinccmd.clone(),
        duration: args.duration,
        out: args.out.clone(),
        cc: args.cc.clone(),
        app: args.app.clone(),
    };
    let summary = run_lab(&options, &mut |line| eprintln!("{line}"))?;
    outln!("data directory: {}", summary.out.display());
    outln!(
        "client: {} ran {:.0} s{}",
        summary
            .client_version
            .as_deref()
            .unwrap_or("(version not logged)"),
        summary.ran_secs,
        summary
            .exited_early
            .as_deref()
            .map(|why| format!(" ({why})"))
            .unwrap_or_default()
    );
    let s = &summary.server;
    outln!(
        "server: {} scheduler requests ({} refused), {} tasks sent, {} reported, {} input files served",
        s.requests, s.refused, s.tasks_sent, s.tasks_reported, s.downloads
    );
    outln!(
        "event log: {} lines, {} work-fetch blocks, {} scheduler requests sent, {} tasks finished",
        summary.log_lines,
        summary.work_fetch_blocks,
        summary.rpcs_logged,
        summary.tasks_finished
    );
    for problem in &summary.problems {
        outln!("note: {problem}");
    }
    for problem in &s.unreadable {
        outln!("server could not read: {problem}");
    }
    outln!("audit it: boinc-audit audit {}", summary.out.display());
    if summary.exited_early.is_some() || s.requests == 0 || summary.actions_failed > 0 {
        return Ok(EXIT_DIVERGED);
    }
    Ok(EXIT_OK)
}

//! The `boinc-audit` command: parse the command line, call the command
//! runner (src/commands/), map the outcome to an exit code (0 agrees,
//! 1 divergences, 2 trouble) and print `error: {:#}` on trouble. A closed
//! output pipe exits 0.

mod cli;
mod commands;

use anyhow::Result;
use clap::Parser;
use cli::{BenchCommand, Cli, Command, GoldenCommand, PolicyCommand, ScenarioCommand};
use commands::golden::Review;
use commands::{EXIT_OK, EXIT_TROUBLE};
use std::io;
use std::process::ExitCode;

// `--features system-alloc` keeps glibc's malloc, which heap profilers
// (heaptrack, valgrind massif) follow.
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc.h `mi_option_e`: `mi_option_arena_eager_commit`, the fifth
/// option in both the v2 and the v3 sources (the sys crate has no name for
/// it).
#[cfg(all(target_os = "linux", not(feature = "system-alloc")))]
const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// Arena memory committed as it is touched, not a whole arena up front:
/// most runs are short and small (an audit's peak goes from 34-44 MB to
/// 22-25 MB). Set from the ELF constructors, before the first allocation
/// makes the first arena (set in `main`, it would come too late); it
/// takes the place of `MIMALLOC_ARENA_EAGER_COMMIT`.
#[cfg(all(target_os = "linux", not(feature = "system-alloc")))]
#[used]
#[link_section = ".init_array"]
static COMMIT_ON_DEMAND: extern "C" fn() = {
    extern "C" fn commit_on_demand() {
        // SAFETY: sets one of mimalloc's options by its number in the
        // linked library's enum; runs once, before main, on one thread.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) }
    }
    commit_on_demand
};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) if is_broken_pipe(&err) => ExitCode::from(EXIT_OK),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(EXIT_TROUBLE)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|io_err| io_err.kind() == io::ErrorKind::BrokenPipe)
}

fn run(cli: Cli) -> Result<u8> {
    use commands::*;
    match cli.command {
        Command::Parse(args) => parse::run_parse(&args),
        Command::Audit(args) => audit::run_audit(&args),
        Command::Explain(args) => explain::run_explain(&args),
        Command::Golden(GoldenCommand::Check(args)) => golden::run_golden_check(&args),
        Command::Golden(GoldenCommand::Pending(args)) => {
            golden::run_golden_review(&args, Review::Pending)
        }
        Command::Golden(GoldenCommand::Accept(args)) => {
            golden::run_golden_review(&args, Review::Accept)
        }
        Command::Golden(GoldenCommand::Reject(args)) => {
            golden::run_golden_review(&args, Review::Reject)
        }
        Command::Policy(PolicyCommand::Params(args)) => policy::run_policy_params(&args),
        Command::Policy(PolicyCommand::Profiles(args)) => policy::run_policy_profiles(&args),
        Command::Policy(PolicyCommand::Changes(args)) => policy::run_policy_changes(&args),
        Command::Bench(BenchCommand::Parse(args)) => bench::run_bench_parse(&args),
        Command::Bench(BenchCommand::Audit(args)) => bench::run_bench_audit(&args),
        Command::Bench(BenchCommand::Simulate(args)) => bench::run_bench_simulate(&args),
        Command::Simulate(args) => simulate::run_simulate(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Scenario(ScenarioCommand::Random(args)) => scenario::run_random(&args),
        Command::Lab(args) => lab::run(&args),
        Command::Bundle(args) => bundle::run(&args),
        Command::Flags(args) => flags::run(&args),
    }
}

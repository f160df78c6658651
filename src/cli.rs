//! Command-line interface: clap derive types and help text only.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Audit the BOINC client's scheduling policy by replaying recorded traces.
///
/// Exit codes: 0 = everything agrees / parsed, 1 = divergences found,
/// 2 = trouble (usage, unreadable or unparsable input).
#[derive(Debug, Parser)]
#[command(name = "boinc-audit", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse inputs into one typed trace and report what was understood.
    ///
    /// PATH may be a BOINC data directory, an emulator scenario folder, any
    /// folder of inputs, single files (`.gz` is read transparently) or `-` for
    /// standard input. Inputs are recognised by content, not by file name.
    Parse(ParseArgs),
    /// Replay the policy over a recorded trace and report where its decisions
    /// diverge from the recorded ones.
    ///
    /// TRACE may be an emulator scenario folder (inputs/ + outputs/log.txt), a
    /// BOINC data directory (client_state.xml + stdoutdae.txt + sched_*.xml),
    /// or a bare event log with work_fetch_debug (self-consistency mode).
    /// Exit status: 0 every decision point agrees, 1 divergences found, 2 trouble.
    Audit(AuditArgs),
    /// Why a resource sat idle or a project got no work request at a
    /// moment: the rule outcomes of the work-fetch pass at (or last before)
    /// that moment, each with the recorded value it rests on, and what the
    /// last scheduling pass showed. Without --at, the last pass of the trace.
    ///
    ///   boinc-audit explain stdoutdae.txt --at '2024/12/20 12:40:47' --resource gpu
    ///
    /// Exit status: 0 explained, 1 the trace holds no work-fetch pass to
    /// explain (what is missing is printed), 2 trouble.
    Explain(ExplainArgs),
    /// Regression-check policy edits against the golden traces.
    #[command(subcommand)]
    Golden(GoldenCommand),
    /// Inspect the policy engine.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Measure performance on real inputs.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Closed-loop simulation: the engine's decisions drive a simulated host
    /// and simulated project servers (like the client emulator, client/sim.cpp);
    /// prints the emulator's figures of merit and per-project usage.
    ///
    /// SCENARIO is an emulator-style folder (client_state.xml with the
    /// emulator's <app> <latency_bound>/<fpops_est>/<fpops>, <project>
    /// <available>, global_prefs.xml, cc_config.xml, app_config.xml; the folder
    /// itself or one holding inputs/), or a seed-notation string:
    ///
    ///   'P1(1000, 2000, .5) P2(1, 10, .5) NCPUS=2 min_queue=0.1'
    ///   'A(1, 168, .5, gpu=1) B(1, 168, .5, gpu=1, mixed) NCPUS=1 NGPUS=1 f=1e9 gpu_peak=1e10'
    ///
    /// NAME(C, D, R[, gpu=G][, mixed][, cpus=N][, sd=X]): C = task hours, D =
    /// delay bound hours, R = share; gpu=G: tasks use G GPUs (+0.01 CPU);
    /// mixed: a CPU app too. Keys: NCPUS, NGPUS, f, gpu_peak, min_queue|min_buf
    /// and add_buf (days), cpu_scheduling_period (hours), leave_in_memory, H
    /// (REC half-life, days). See docs/simulate.md.
    ///
    /// Exit status: 0 done, 2 trouble.
    Simulate(SimulateArgs),
    /// A/B comparison: the same input under two policies or two parameter sets.
    ///
    /// INPUT is a recorded trace (anchored replay under both sides: the
    /// decision points whose decisions differ, and each side's agreement with
    /// the recording) or a scenario (emulator inputs folder or seed notation,
    /// as for `simulate`: figures of merit and usage side by side).
    ///
    ///   boinc-audit compare TRACE --policy current --policy current --set-b rec_half_life_days=1
    ///   boinc-audit compare 'A(1, 168, .5, gpu=1) B(1, 168, .5, gpu=1, mixed)' --set-b H=1
    ///
    /// Exit status: 0 both sides decide the same, 1 they differ, 2 trouble.
    Compare(CompareArgs),
    /// Write scenario inputs (emulator layout) for simulate, audit and the
    /// real emulator.
    #[command(subcommand)]
    Scenario(ScenarioCommand),
    /// Record a real BOINC client: runs the client binary in a fresh data
    /// directory against project servers served on 127.0.0.1, for a
    /// seed-notation scenario scaled to minutes, and leaves a data directory
    /// `boinc-audit audit` reads (stdoutdae.txt, client_state.xml, job logs,
    /// configuration, every scheduler exchange under rpcs/).
    ///
    ///   boinc-audit lab 'P1(0.01, 0.2, 2) P2(0.01, 0.2, 1) NCPUS=2 min_buf=0.001 add_buf=0.002' \
    ///       --client /usr/bin/boinc --duration 300 --out /tmp/lab1
    ///
    /// C = task hours (0.01 = 36 s), D = delay bound hours, R = share. Lab
    /// options per project: mc=N, pmc=N (app_config.xml), nnw[=H] (no new
    /// tasks), down (scheduler answers HTTP 500), empty (no tasks), delay=S
    /// (request_delay). CPU projects only. Needs a C compiler and boinc-dev
    /// (`apt-get install boinc-client boinc-dev`) unless --app is given.
    ///
    /// Exit status: 0 recorded, 1 recorded but the run fell short (the
    /// client exited early, made no scheduler request, or a scenario action
    /// such as nnw=H could not be applied), 2 trouble.
    Lab(LabArgs),
    /// Pack a data directory for a developer, without what identifies or
    /// authenticates the volunteer.
    ///
    ///   boinc-audit bundle /var/lib/boinc-client --out my-host.tar.gz
    ///
    /// Packs what an audit reads (event logs, rotated ones too, state files,
    /// preferences, cc_config.xml, app_config.xml files, scheduler requests
    /// and replies, job logs, time_stats_log). Replaces authenticators,
    /// account keys, CPIDs, user and host ids, user and team names, e-mail
    /// hash, host name, IP and MAC addresses, venue, the data directory's
    /// path and home folders with placeholders (the same value, the same
    /// placeholder: the audit is unchanged). Never packs gui_rpc_auth.cfg,
    /// account files, slots/ or binaries. `audit BUNDLE.tar.gz` reads it.
    ///
    /// Exit status: 0 packed, 2 trouble.
    Bundle(BundleArgs),
    /// The log flags a complete audit needs, for the client's release; with
    /// --cc-config, merged into that cc_config.xml (every other option
    /// kept), written beside it as cc_config.xml.new.
    ///
    ///   boinc-audit flags --client-version 7.24.1 --cc-config /var/lib/boinc-client/cc_config.xml
    ///
    /// Exit status: 0 printed (and written), 2 trouble.
    Flags(FlagsArgs),
}

/// Arguments of `flags`.
#[derive(Debug, clap::Args)]
pub struct FlagsArgs {
    /// The client's release (default: today's client).
    #[arg(long, value_name = "X.Y.Z")]
    pub client_version: Option<String>,
    /// A cc_config.xml to merge the flags into (need not exist yet).
    #[arg(long, value_name = "PATH")]
    pub cc_config: Option<PathBuf>,
}

/// Arguments of `bundle`.
#[derive(Debug, clap::Args)]
pub struct BundleArgs {
    /// The client's data directory.
    pub dir: PathBuf,
    /// The bundle to write (.tar.gz).
    #[arg(long, value_name = "FILE.tar.gz")]
    pub out: PathBuf,
    /// Overwrite FILE if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `lab`.
#[derive(Debug, clap::Args)]
pub struct LabArgs {
    /// The scenario, in seed notation.
    pub scenario: String,
    /// The client binary to record.
    #[arg(long, default_value = "/usr/bin/boinc")]
    pub client: PathBuf,
    /// boinccmd (for nnw=H); default: beside the client, else on PATH.
    #[arg(long)]
    pub boinccmd: Option<PathBuf>,
    /// Seconds to run the client.
    #[arg(long, default_value_t = 300.0)]
    pub duration: f64,
    /// The data directory to create (must not exist or be empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// C compiler for the lab application.
    #[arg(long, default_value = "cc")]
    pub cc: String,
    /// A prebuilt lab application (skips the build).
    #[arg(long)]
    pub app: Option<PathBuf>,
}

/// Scenario writers.
#[derive(Debug, Subcommand)]
pub enum ScenarioCommand {
    /// Random emulator inputs drawn from a seed: a host of 1-16 CPUs and up
    /// to two GPU vendors, 1-14 projects, existing jobs and the job stream,
    /// and the features of --features (default: each drawn by the seed).
    ///
    ///   boinc-audit scenario random --seed 7 --out /tmp/s7
    ///   boinc-audit scenario random --seed 1 --count 500 --out /tmp/gen
    ///
    /// Writes OUT/inputs/ (client_state.xml, global_prefs.xml,
    /// cc_config.xml, projects/*/app_config.xml) and OUT/SCENARIO.md; with
    /// --count N, N scenarios (seeds SEED..SEED+N-1) in OUT/<name>/. Prints
    /// each folder and its emulator options (`--duration D --delta T`).
    ///
    /// Features: gpu, mt, appmc, projmc, gpushare, dual, partial, down, nnw,
    /// susp, tight, tinybuf, largebuf, manyproj, nohint, halflife, cpupct.
    Random(ScenarioRandomArgs),
}

/// Arguments of `scenario random`.
#[derive(Debug, clap::Args)]
pub struct ScenarioRandomArgs {
    /// The seed (the first one with --count).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many scenarios (consecutive seeds).
    #[arg(long, default_value_t = 1)]
    pub count: u64,
    /// Exactly these features on (comma-separated); default: drawn per seed
    /// (`statemc` is never drawn, only named).
    #[arg(long, value_delimiter = ',', value_name = "FEATURE,...")]
    pub features: Vec<String>,
    /// The folder to write.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// What `compare` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompareMode {
    /// A folder with an event log → replay; otherwise (inputs only, seed notation) → simulate.
    Auto,
    /// Anchored replay of a recorded trace.
    Replay,
    /// Closed-loop simulation of a scenario.
    Simulate,
}

/// Arguments of `compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// A recorded trace (folder or files) or a scenario (folder or seed notation).
    #[arg(required = true, value_name = "INPUT")]
    pub input: Vec<String>,
    /// Policy of side A, then of side B (give it once for both sides; default auto:
    /// from the client version for a trace, as `simulate --policy auto` for a scenario).
    #[arg(long, value_name = "POLICY", num_args = 1)]
    pub policy: Vec<String>,
    /// Override a policy constant on both sides (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Override a policy constant on side A only (repeatable; applied after --set).
    #[arg(long = "set-a", value_name = "KEY=VALUE")]
    pub set_a: Vec<String>,
    /// Override a policy constant on side B only (repeatable; applied after --set).
    #[arg(long = "set-b", value_name = "KEY=VALUE")]
    pub set_b: Vec<String>,
    /// Replay or simulate.
    #[arg(long, value_enum, default_value_t = CompareMode::Auto)]
    pub mode: CompareMode,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SimulateFormat::Table)]
    pub format: SimulateFormat,
    /// With a trace: also write the HTML page of the two replays (A's
    /// decisions above each CPU/GPU lane, B's below, where they differ marked).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// How many changed decisions the table lists.
    #[arg(long, default_value_t = 40, value_name = "N")]
    pub limit: usize,
    /// Replay: relative tolerance for numeric comparisons with the recording.
    #[arg(long, default_value_t = 1e-6, value_name = "REL")]
    pub tolerance: f64,
    /// Simulate: simulated seconds (default: an emulator reference's own
    /// run, as for `simulate`, else 172800).
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Simulate: time step in seconds (default: the reference's own run,
    /// else 300).
    #[arg(long, value_name = "S")]
    pub delta: Option<f64>,
    /// Simulate: seed of the one PRNG (the same on both sides).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Output format of `simulate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SimulateFormat {
    /// Human-readable table.
    Table,
    /// JSON: {"figures_of_merit": {...}, "usage": [...], "projects": [...], ...}.
    Json,
}

/// Arguments of `simulate`.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// Scenario folder or seed notation.
    #[arg(value_name = "SCENARIO")]
    pub scenario: String,
    /// Policy driving the host: current, a release X.Y.Z (7.3 on: its rule
    /// profile; 7.0–7.2, e.g. 7.2.42: the 7.0–7.2 rules under the 7.2.42
    /// emulator's harness), ltd-6.6, debt-6.2, or auto (the 6.10
    /// emulator's inputs → ltd-6.6; a client_state.xml naming a client
    /// version → that version's rules; else current).
    #[arg(long, default_value = "auto")]
    pub policy: String,
    /// Simulated seconds (emulator --duration). Default: the emulator
    /// reference's own run (outputs/inputs.txt or SCENARIO.md beside the
    /// inputs), else 172800.
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Time step in seconds (emulator --delta). Default: the reference's own
    /// run, else 300.
    #[arg(long, value_name = "S")]
    pub delta: Option<f64>,
    /// Seed of the one PRNG (1 = the emulator's srand(1)).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Servers send no jobs (emulator --existing_jobs_only). Also on when
    /// the reference's own run used it.
    #[arg(long)]
    pub existing_jobs_only: bool,
    /// Ignore the run options recorded beside an emulator reference's
    /// inputs (use 172800 s, 300 s and servers that send jobs unless given).
    #[arg(long)]
    pub ignore_recorded_options: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SimulateFormat::Table)]
    pub format: SimulateFormat,
    /// Override a policy constant (repeatable; see `policy params`). Defaults:
    /// rec_adjust_period = delta, runtime_model = emulator.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Also report usage over this window of the run, in hours after the
    /// start (repeatable), e.g. `--window 8760-8952`.
    #[arg(long = "window", value_name = "START-END")]
    pub windows: Vec<String>,
    /// Work sequences on N hosts: SCENARIO is then the sequence notation
    /// 'SEQ(C, D, L[, n=K][, ext=E]) [HOSTS=N] [f=F] [speeds=..] [avail=..] [fail=K@H]'
    /// (see docs/work-sequences.md); every RPC is audited with the sequence rules.
    #[arg(long, value_name = "N")]
    pub hosts: Option<usize>,
    /// Write every simulated scheduler RPC that reached a server as a
    /// transcript pair (sched_request_P.xml / sched_reply_P.xml, one
    /// rpc-NNNNN/ folder per RPC; rpc-NNNNN-hostK/ with --hosts) to DIR,
    /// where `boinc-audit audit DIR` checks the scheduler rules on them.
    #[arg(long, value_name = "DIR")]
    pub trace_out: Option<PathBuf>,
    /// Write the run as the client emulator's log.txt (its messages for
    /// the scenario's cc_config.xml log flags, line for line) to FILE;
    /// `boinc-audit audit` reads it beside the scenario's inputs. For the
    /// 6.10 emulator's inputs (ltd-6.6), its sim_log.txt.
    #[arg(long, value_name = "FILE")]
    pub log_out: Option<PathBuf>,
    /// Write the emulator's outputs/ folder for the run to DIR: log.txt (as
    /// --log-out), inputs.txt (the run options) and timeline.html (its rows
    /// of host and GPU availability; job columns are not written): what
    /// `boinc-audit audit` reads beside the scenario's inputs/. For the 6.10
    /// emulator's inputs: sim_log.txt, and sim_out_0.html with each job's
    /// true size (the note its rows give at a job's first start), so the
    /// run is audited with exact sizes.
    #[arg(long, value_name = "DIR", conflicts_with = "log_out")]
    pub outputs_dir: Option<PathBuf>,
    /// Also write the HTML page of the run: the simulated host's jobs per
    /// CPU/GPU instance over time (the emulator log the run writes, audited:
    /// simulated above each lane, replayed below), its RPCs and REC.
    #[arg(long, value_name = "FILE", conflicts_with = "log_out")]
    pub html: Option<PathBuf>,
}

/// `golden` subcommands.
#[derive(Debug, Subcommand)]
pub enum GoldenCommand {
    /// Replay every golden case and compare with its decisions.txt and divergences.txt.
    ///
    /// On a change: exits 1, prints per case the first changed decision with the
    /// rule behind it and a unified diff, and writes `<file>.new` beside each
    /// changed file (never when CI is set, never with --set; see
    /// BOINC_AUDIT_UPDATE=auto|new|always|no).
    Check(GoldenCheckArgs),
    /// List pending `.new` files.
    Pending(GoldenReviewArgs),
    /// Accept pending `.new` files: each replaces its golden file.
    Accept(GoldenReviewArgs),
    /// Reject pending `.new` files: delete them.
    Reject(GoldenReviewArgs),
}

/// Arguments of `golden check`.
#[derive(Debug, clap::Args)]
pub struct GoldenCheckArgs {
    /// The golden folder.
    #[arg(default_value = "golden", value_name = "DIR")]
    pub dir: PathBuf,
    /// Only this case (its folder name).
    #[arg(long, value_name = "NAME")]
    pub case: Option<String>,
    /// What would this policy edit change? Override a constant for every case (repeatable); writes no `.new` file.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// Arguments of `golden pending|accept|reject`.
#[derive(Debug, clap::Args)]
pub struct GoldenReviewArgs {
    /// The golden folder.
    #[arg(default_value = "golden", value_name = "DIR")]
    pub dir: PathBuf,
    /// Only this case (its folder name).
    #[arg(long, value_name = "NAME")]
    pub case: Option<String>,
}

/// `policy` subcommands.
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// List every overridable policy constant with its default and spec section.
    Params(ParamsArgs),
    /// List the policy profiles (client releases) with their sources and, per
    /// rule that differs from the newer neighbour, the function and the change.
    Profiles(ProfilesArgs),
    /// List the later client changes outside the replayed rules (memory and
    /// swap checks, project fetch flags, suspension, reply handling): the
    /// releases that behave otherwise than today's client, the commit, and
    /// the log lines that show the decision. `audit --since-changed` names
    /// those a log shows.
    Changes(ProfilesArgs),
}

/// Arguments of `policy profiles`.
#[derive(Debug, clap::Args)]
pub struct ProfilesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table", value_name = "FORMAT")]
    pub format: ListFormat,
}

/// Output formats of listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// A fixed-width table.
    Table,
    /// A JSON array.
    Json,
}

/// Arguments of `policy params`.
#[derive(Debug, clap::Args)]
pub struct ParamsArgs {
    /// Override a constant (repeatable); the listing then shows the value in effect.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table", value_name = "FORMAT")]
    pub format: ListFormat,
}

/// Output formats of `parse`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ParseFormat {
    /// Per file: kind, lines, typed, unrecognized by tag; then the problems.
    Table,
    /// One JSON object (files, lines, typed, unrecognized, unrecognized_by_tag, errors, warnings).
    Json,
    /// One typed event per line, streamed.
    Ndjson,
}

/// Day/month order of numeric dates in text copied out of the Manager.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DateOrderArg {
    /// Decide per file (a first field above 12 means day first).
    Auto,
    /// DD/MM/YYYY.
    DayFirst,
    /// MM/DD/YYYY.
    MonthFirst,
}

/// Arguments of `parse`.
#[derive(Debug, clap::Args)]
pub struct ParseArgs {
    /// Inputs: directories, files, or `-` for standard input.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table", value_name = "FORMAT")]
    pub format: ParseFormat,
    /// Write the output to FILE instead of standard output (`-` = standard output).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Day/month order of numeric Manager dates such as 4/8/2022.
    #[arg(long, value_enum, default_value = "auto", value_name = "ORDER")]
    pub date_order: DateOrderArg,
}

/// Output formats of `audit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AuditFormat {
    /// The first divergence with its log lines, then counts by kind × project × resource.
    Table,
    /// Recorded vs replayed decision timelines as a unified diff.
    Diff,
    /// One JSON object (trace, policy, decision_points, divergent, by_kind, divergences, first_divergence, unchecked).
    Json,
    /// One row per decision point.
    Csv,
    /// One row per decision point (binary; never written to a terminal).
    Parquet,
    /// One self-contained HTML page: summary, jobs per CPU/GPU instance over time (recorded and replayed), work-fetch, RPC and divergence markers, REC charts, divergence table.
    Html,
    /// Chrome trace-event JSON (opens in Perfetto or chrome://tracing): a track per instance, instants for fetches, RPCs, divergences.
    ChromeTrace,
    /// Markdown for a forum post or a GitHub comment: release and rules, verdict, first divergence with its log lines, counts by kind, what is missing and the flags that would supply it.
    Markdown,
}

/// When to colour text output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Only when writing to a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Arguments of `audit`.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// The recorded trace: a folder or files (`.gz` is read transparently).
    #[arg(required_unless_present = "fleet", value_name = "TRACE")]
    pub paths: Vec<PathBuf>,
    /// Audit many bundles at once: a folder whose entries are bundles (data
    /// directories, emulator folders, logs, .tar.gz/.tgz/.tar/.zip archives)
    /// or a text file listing one per line. Writes one Parquet table
    /// (--output FILE.parquet; one row per decision point, with bundle, host,
    /// client_version, policy, release and error columns) and prints a
    /// summary; a bundle that fails is a row with its error, never an abort.
    #[arg(long, value_name = "LIST_OR_DIR", conflicts_with_all = ["paths", "html"])]
    pub fleet: Option<PathBuf>,
    /// With --fleet: bundles audited at once (default: all cores).
    #[arg(long, value_name = "N", requires = "fleet")]
    pub jobs: Option<usize>,
    /// With --fleet: audit only part I of N of the sorted list (every N-th
    /// bundle from the I-th), for the N tasks of a batch job array.
    #[arg(long, value_name = "I/N", requires = "fleet")]
    pub shard: Option<String>,
    /// Policy to replay: auto (the rules of the release that wrote the trace),
    /// current, a release X.Y.Z of 7.3 or later (today's rules with the later
    /// changes undone; see `policy profiles`), 7.2.42, 6.10.60 (ltd-6.6) or
    /// debt-6.2.
    #[arg(long, default_value = "auto", value_name = "POLICY")]
    pub policy: String,
    /// The release that wrote the trace, when the trace does not say (it
    /// wins over the log's start-up line, client_state.xml and sched_request).
    #[arg(long, value_name = "X.Y.Z")]
    pub client_version: Option<String>,
    /// For a trace of an older release (7.3 on), also judge every checked
    /// decision under today's rules: consistent with both, with the release
    /// only (since-changed behaviour, with the commit that changes it), with
    /// today's only, or with neither. One more replay per rule change.
    #[arg(long)]
    pub since_changed: bool,
    /// Override a policy constant (repeatable); see `boinc-audit policy params`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table", value_name = "FORMAT")]
    pub format: AuditFormat,
    /// Write the output to FILE instead of standard output (`-` = standard output).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the HTML page to FILE, beside the output of --format.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Relative tolerance for numeric comparisons (after formatting as the log prints).
    #[arg(long, default_value_t = 1e-6, value_name = "REL")]
    pub tolerance: f64,
    /// Colour in text output.
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
    /// Day/month order of numeric Manager dates such as 4/8/2022.
    #[arg(long, value_enum, default_value = "auto", value_name = "ORDER")]
    pub date_order: DateOrderArg,
}

/// Arguments of `explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The recorded trace: a folder or files (`.gz` is read transparently).
    #[arg(required = true, value_name = "TRACE")]
    pub paths: Vec<PathBuf>,
    /// The moment: HH:MM[:SS] (last pass at or before that time of day),
    /// YYYY-MM-DD HH:MM:SS, or seconds on the trace's clock.
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,
    /// Only resources whose name contains this (cpu, nvidia, amd, intel, gpu).
    #[arg(long, value_name = "R")]
    pub resource: Option<String>,
    /// Only this project.
    #[arg(long, value_name = "P")]
    pub project: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table", value_name = "FORMAT")]
    pub format: ExplainFormat,
    /// Day/month order of numeric Manager dates such as 4/8/2022.
    #[arg(long, value_enum, default_value = "auto", value_name = "ORDER")]
    pub date_order: DateOrderArg,
}

/// Output formats of `explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainFormat {
    /// Sentences, per resource and project.
    Table,
    /// One JSON object.
    Json,
}

/// Benchmarks.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Parse throughput of the event-log reader on one core.
    ///
    /// The given logs are concatenated (repeatedly, in memory) into one log of
    /// at least --min-mb megabytes, which is then parsed into typed events.
    Parse(BenchParseArgs),
    /// Audit time (parse + replay) of each scenario folder, beside the
    /// emulator's own `Simulator CPU time` from its outputs/summary.txt.
    Audit(BenchAuditArgs),
    /// Simulation time of each scenario folder with the emulator's run
    /// options (outputs/inputs.txt), beside the emulator's `Simulator CPU
    /// time`, and how far the figures of merit are from its results.txt.
    Simulate(BenchSimulateArgs),
}

/// Arguments of `bench simulate`.
#[derive(Debug, clap::Args)]
pub struct BenchSimulateArgs {
    /// Scenario folders, or folders holding scenario folders.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// How many timed runs per scenario (the best is reported).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub runs: u32,
    /// The release whose rules run every scenario (e.g. 7.2.42 for the
    /// 7.2.42 emulator's references, whose inputs name none); default: the
    /// one each client_state.xml names, else today's.
    #[arg(long, value_name = "X.Y.Z")]
    pub client_version: Option<String>,
}

/// Arguments of `bench audit`.
#[derive(Debug, clap::Args)]
pub struct BenchAuditArgs {
    /// Scenario folders, or folders holding scenario folders.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// How many timed runs per scenario (the best is reported).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub runs: u32,
}

/// Arguments of `bench parse`.
#[derive(Debug, clap::Args)]
pub struct BenchParseArgs {
    /// Event logs (files or directories holding them).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Minimum size of the concatenated log, in megabytes (10^6 bytes).
    #[arg(long, default_value_t = 200, value_name = "MB")]
    pub min_mb: u64,
    /// How many timed runs (the best and the median are reported).
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub runs: u32,
    /// Time the typed parse only (no audit, no line count): for profiling.
    #[arg(long)]
    pub parse_only: bool,
}

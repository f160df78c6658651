//! Untagged bodies: dispatch on the first word to the work-fetch, RPC and task
//! families, plus the start-up/metadata lines of spec §3.14, the preference
//! block, and the emulator's own lines (§7.2, §7.3).

use super::lex::{first_word, float, full, int32, name_until, request_list, rsc_name, uint, Res};
use super::{sched_op, task, work_fetch};
use crate::parse::text::FastSplit;
use crate::trace::message::Message;
use crate::trace::ClientVersion;
use compact_str::CompactString;
use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::combinator::{map, opt, value};
use nom::sequence::{delimited, preceded, terminated, tuple};

/// Classifies an untagged body (already trimmed); `indented` says the raw body
/// began with three blanks (a 6.10–7.20 preference line).
pub(super) fn classify(text: &str, indented: bool) -> Option<Message> {
    if let Some(message) = fixed(text) {
        return Some(message);
    }
    if indented {
        return Some(preference(text));
    }
    let (word, tail) = first_word(text);
    let family = match word {
        "can"
        | "can't"
        | "checking"
        | "skip:"
        | "choose_project():"
        | "chosen:"
        | "piggyback:"
        | "set_request_excluded()"
        | "rsc" => work_fetch::untagged(word, tail),
        "Sending" | "Reporting" | "Requesting" | "Not" | "Scheduler" | "Master" | "Project"
        | "sched" | "Deferring" | "Reason:" => sched_op::untagged(word, tail),
        "Computation" | "Starting" | "Restarting" | "Resuming" | "Suspending" | "Task" | "task"
        | "Aborting" => task::untagged(word, tail),
        _ => None,
    };
    if family.is_some() {
        return family;
    }
    match word {
        "Starting" | "-" | "Local" | "log" | "URL" | "Computing" | "General" | "Host"
        | "Computer" | "Coprocessor" | "Found" | "Libraries:" | "Data" | "libc:" | "Processor:"
        | "Processor" | "OS:" | "Memory:" | "Disk:" | "Config:" => startup(word, tail),
        "Got" | "RPC:" | "RPC" | "job" | "starting" | "simulate_rpc:" | "value:" => {
            emulator(word, tail)
        }
        "Warning:" if tail.starts_with("GUI RPC password is empty") => {
            Some(Message::GuiRpcPasswordEmpty)
        }
        "Checking" | "Received" | "request_exit():" | "Started" | "Finished" | "File" | "Max"
        | "Number" => client_event(word, tail),
        "New" | "System" => clearing_timeouts(word, tail),
        "Contacting" => Some(Message::ContactingAccountManager {
            url: tail.strip_prefix("account manager at ")?.into(),
        }),
        "Unrecognized" => {
            let (file, tag) = tail.strip_prefix("tag in ")?.split_fast(": <")?;
            Some(Message::UnrecognizedConfigTag {
                file: file.into(),
                tag: tag.strip_suffix('>')?.into(),
            })
        }
        "Re-reading" if !tail.is_empty() && !tail.contains(' ') => {
            Some(Message::RereadingConfig { file: tail.into() })
        }
        _ => name_first(text).or_else(|| server_text(text)),
    }
}

/// `New system time (%.0f) < old system time (%.0f); clearing timeouts`
/// and `System clock (%.0f) < state file timestamp (%.0f); clearing
/// timeouts`, after their first word.
fn clearing_timeouts(word: &str, tail: &str) -> Option<Message> {
    let (lead, later, at_startup) = match word {
        "New" => ("system time (", ") < old system time (", false),
        _ => ("clock (", ") < state file timestamp (", true),
    };
    let (now, before) = full(
        tuple((
            preceded(tag(lead), float),
            delimited(tag(later), float, tag("); clearing timeouts")),
        )),
        tail,
    )?;
    Some(Message::ClearingTimeouts {
        now,
        before,
        at_startup,
    })
}

/// The start-up block's host and configuration lines (and a preference
/// line given as `- NAME`).
fn startup(word: &str, tail: &str) -> Option<Message> {
    match word {
        "Starting" => client_start(tail),
        "-" => Some(preference(tail.trim_start())),
        "Local" => local_time(tail),
        "log" => log_flags(tail.strip_prefix("flags: ")?),
        "URL" => full(project_url, tail),
        "Computing" | "General" => prefs_source(tail.strip_prefix("prefs: ")?),
        "Host" if tail.starts_with("name: ") => Some(Message::HostName {
            name: tail["name: ".len()..].into(),
        }),
        "Host" | "Computer" => Some(Message::HostLocation {
            venue: tail.strip_prefix("location: ")?.into(),
        }),
        "Coprocessor" => coproc_specified(tail.strip_prefix("specified in cc_config.xml")?),
        "Found" => Some(Message::FoundFile { file: tail.into() }),
        "Libraries:" => Some(Message::Libraries { text: tail.into() }),
        "Data" => Some(Message::DataDirectory {
            path: tail.strip_prefix("directory: ")?.into(),
        }),
        "libc:" => Some(Message::LibcVersion {
            version: tail.trim_start().strip_prefix("version ")?.into(),
        }),
        "Processor:" => {
            let (count, model) = first_word(tail);
            Some(Message::Processor {
                ncpus: full(uint, count)?,
                model: model.into(),
            })
        }
        "Processor" => Some(Message::ProcessorFeatures {
            features: tail.strip_prefix("features: ")?.into(),
        }),
        "OS:" => Some(Message::OperatingSystem { text: tail.into() }),
        "Memory:" => {
            let (physical, swap) = tail.split_fast(" physical, ")?;
            Some(Message::HostMemory {
                physical_bytes: nbytes(physical)?,
                swap_bytes: nbytes(swap.strip_suffix(" virtual")?)?,
            })
        }
        "Disk:" => {
            let (total, free) = tail.split_fast(" total, ")?;
            Some(Message::HostDisk {
                total_bytes: nbytes(total)?,
                free_bytes: nbytes(free.strip_suffix(" free")?)?,
            })
        }
        "Config:" => Some(
            match tail
                .strip_prefix("simulate ")
                .and_then(|n| n.strip_suffix(" CPUs"))
            {
                Some(n) => Message::ConfigSimulateCpus {
                    ncpus: full(uint, n)?,
                },
                None => Message::ConfigOption { text: tail.into() },
            },
        ),
        _ => None,
    }
}

/// The emulator's own lines (its RPCs, jobs and simulation parameters).
fn emulator(word: &str, tail: &str) -> Option<Message> {
    match word {
        "Got" => full(
            map(terminated(uint, tag(" tasks")), |count| {
                Message::EmuGotTasks { count }
            }),
            tail,
        ),
        "RPC:" => Some(Message::EmuRpcRequest {
            resources: request_list(tail.strip_prefix("[work_fetch] request: ")?)?,
        }),
        "RPC" => emulator_rpc(tail),
        "value:" => full(
            map(
                tuple((
                    alt((value(false, tag("0")), value(true, tag("1")))),
                    preceded(tag(" lambda: "), float),
                    preceded(tag(" t "), float),
                    preceded(tag(" time_left "), float),
                )),
                |(on, lambda, t, time_left)| Message::EmuHostAvailability {
                    on,
                    lambda,
                    t,
                    time_left,
                },
            ),
            tail,
        ),
        "job" => emulator_job(tail.strip_prefix("for ")?),
        "starting" => full(
            map(
                tuple((
                    preceded(tag("simultion. delta "), float),
                    preceded(tag(" duration "), float),
                )),
                |(delta, duration)| Message::EmuStartingSimulation { delta, duration },
            ),
            tail,
        ),
        "simulate_rpc:" => full(
            map(
                tuple((
                    preceded(tag("too soon "), float),
                    preceded(tag(" < "), float),
                )),
                |(now, next)| Message::EmuRpcTooSoon { now, next },
            ),
            tail,
        ),

        _ => None,
    }
}

/// The client's other untagged events: signals, exits, transfers, limits.
fn client_event(word: &str, tail: &str) -> Option<Message> {
    match word {
        "Checking" => full(
            map(
                delimited(tag("presence of "), uint, tag(" project files")),
                |count| Message::CheckingProjectFiles { count },
            ),
            tail,
        ),
        "Received" => full(
            map(preceded(tag("signal "), uint), |signal| {
                Message::ReceivedSignal { signal }
            }),
            tail,
        ),
        "request_exit():" => full(
            map(
                tuple((
                    preceded(tag("PID "), uint),
                    delimited(tag(" has "), uint, tag(" descendants")),
                )),
                |(pid, descendants)| Message::RequestExit { pid, descendants },
            ),
            tail,
        ),
        "Started" | "Finished" => {
            let (upload, file) = match tail.strip_prefix("download of ") {
                Some(file) => (false, file),
                None => (true, tail.strip_prefix("upload of ")?),
            };
            let file = file.into();
            Some(if word == "Started" {
                Message::TransferStarted { file, upload }
            } else {
                Message::TransferFinished { file, upload }
            })
        }
        "File" => {
            let file = tail.strip_suffix(" exists already, skipping download")?;
            Some(Message::FileAlreadyPresent { file: file.into() })
        }
        "Max" => full(
            map(terminated(uint, tag(" concurrent jobs")), |max| {
                Message::ProjectMaxConcurrent { max }
            }),
            tail,
        ),
        "Number" => full(
            map(
                tuple((
                    preceded(tag("of usable CPUs has changed from "), uint),
                    preceded(tag(" to "), terminated(uint, tag("."))),
                )),
                |(from, to)| Message::UsableCpusChanged { from, to },
            ),
            tail,
        ),
        _ => None,
    }
}

/// A scheduler reply's `<message>` that 7.x prints as it stands (without
/// 6.x's `Message from server: `): the texts of the scheduler's own
/// messages (server-side S6; sched/sched_send.cpp, sched/handle_request.cpp).
fn server_text(text: &str) -> Option<Message> {
    const TEXTS: [&str; 6] = [
        "Project has no tasks available",
        "No tasks sent",
        "No work sent",
        "Tasks won't finish in time",
        "Project is temporarily shut down for maintenance",
        "Server error: feeder not running",
    ];
    TEXTS
        .contains(&text)
        .then(|| Message::ServerMessage { text: text.into() })
}

/// Bodies that are a fixed text.
fn fixed(text: &str) -> Option<Message> {
    Some(match text {
        "pick_jobs_to_run() start" => Message::PickJobsToRunStart,
        "pick_jobs_to_run() end" => Message::PickJobsToRunEnd,
        "choose_project: scanning" => Message::ChooseProjectScanning,
        "piggyback_work_request()" => Message::PiggybackWorkRequest,
        "doing RPC to get work" => Message::EmuRpcGetWork,
        "doing RPC to report results" => Message::EmuRpcReportResults,
        "RPC skipped: project down" => Message::EmuRpcSkippedProjectDown,
        "SIMULATION START" => Message::EmuSimulationStart,
        "polling" => Message::EmuPolling,
        "did action" => Message::EmuDidAction,
        "did no action" => Message::EmuDidNoAction,
        "took time step" => Message::EmuTookTimeStep,
        "RPC poll start" => Message::EmuRpcPollStart,
        "RPC poll: did an RPC" => Message::EmuRpcPollDidRpc,
        "RPC poll: didn't do an RPC" => Message::EmuRpcPollNoRpc,
        "RPC poll: nothing to do" => Message::EmuRpcPollNothingToDo,
        "Computing preferences:" | "Preferences:" => Message::PreferencesHeader,
        "Initialization completed" => Message::InitializationCompleted,
        "Reading preferences override file" => Message::ReadingPrefsOverride,
        "This a development version of BOINC and may not function properly" => {
            Message::DevelopmentVersion
        }
        "No usable GPUs found" => Message::NoUsableGpus,
        "No general preferences found - using defaults" => Message::NoGeneralPrefs,
        "Creating new client state file" => Message::CreatingStateFile,
        "Setting up project and slot directories" => Message::SettingUpDirectories,
        "Checking active tasks" => Message::CheckingActiveTasks,
        "Setting up GUI RPC socket" => Message::SettingUpGuiRpc,
        "Exiting" => Message::Exiting,
        "Fetching scheduler list" => Message::FetchingSchedulerList,
        "Master file download succeeded" => Message::MasterFileDownloadSucceeded,
        "update requested by user" => Message::UpdateRequestedByUser,
        "project suspended by user" => Message::ProjectSuspendedByUser,
        "project resumed by user" => Message::ProjectResumedByUser,
        "work fetch suspended by user" => Message::WorkFetchSuspendedByUser,
        "work fetch resumed by user" => Message::WorkFetchResumedByUser,
        "detach when done set by user" => Message::DetachWhenDoneSetByUser,
        "detach when done cleared by user" => Message::DetachWhenDoneClearedByUser,
        "Resetting project" => Message::ResettingProject,
        "Running CPU benchmarks" => Message::RunningCpuBenchmarks,
        "Benchmark results:" => Message::BenchmarkResults,
        "CPU benchmarks timed out, using default values" => Message::BenchmarksTimedOut,
        "Account manager contact succeeded" => Message::AccountManagerContactSucceeded,
        "cc_config.xml not found - using defaults" => Message::CcConfigNotFound,
        _ => return None,
    })
}

/// A byte count as `nbytes_to_string` prints it (lib/str_util.cpp):
/// `%.2f TB`, `GB`, `MB`, `KB` (powers of 1024) or `%.0f bytes`.
fn nbytes(text: &str) -> Option<f64> {
    let (number, unit) = text.trim().split_fast(" ")?;
    let scale = match unit {
        "TB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "GB" => 1024.0 * 1024.0 * 1024.0,
        "MB" => 1024.0 * 1024.0,
        "KB" => 1024.0,
        "bytes" => 1.0,
        _ => return None,
    };
    Some(full(float, number)? * scale)
}

/// `BOINC client version %d.%d.%d for %s%s` after `Starting `.
fn client_start(tail: &str) -> Option<Message> {
    let (major, minor, release, platform) = full(
        tuple((
            preceded(tag("BOINC client version "), uint),
            preceded(tag("."), uint),
            preceded(tag("."), uint),
            preceded(tag(" for "), nom::combinator::rest),
        )),
        tail,
    )?;
    let (platform, debug) = match platform.strip_suffix(" (DEBUG)") {
        Some(platform) => (platform, true),
        None => (platform, false),
    };
    Some(Message::ClientStart {
        version: ClientVersion {
            major,
            minor,
            release,
        },
        platform: platform.into(),
        debug,
    })
}

/// `time is UTC %s%d hours` after `Local ` (`%s` is `+` or `-`).
fn local_time(tail: &str) -> Option<Message> {
    let offset = tail.strip_prefix("time is UTC ")?.strip_suffix(" hours")?;
    let offset = offset.strip_prefix('+').unwrap_or(offset);
    Some(Message::LocalTime {
        utc_offset_hours: full(int32, offset)?,
    })
}

fn log_flags(list: &str) -> Option<Message> {
    let flags = list
        .split(", ")
        .map(str::trim)
        .filter(|flag| !flag.is_empty())
        .map(CompactString::from)
        .collect();
    Some(Message::LogFlags { flags })
}

fn project_url(input: &str) -> Res<'_, Message> {
    map(
        tuple((
            name_until("; Computer ID "),
            preceded(tag("; Computer ID "), name_until("; resource share ")),
            preceded(tag("; resource share "), float),
        )),
        |(url, computer_id, resource_share)| Message::ProjectUrl {
            url,
            computer_id,
            resource_share,
        },
    )(input)
}

/// After `Computing prefs: ` / `General prefs: `.
fn prefs_source(tail: &str) -> Option<Message> {
    match tail {
        "using your defaults" | "computer location unspecified; using default" => {
            return Some(Message::PrefsDefaultVenue)
        }
        _ => {}
    }
    if let Some(rest) = tail.strip_prefix("from ") {
        let (source, modified) = rest.strip_suffix(')')?.split_fast(" (last modified ")?;
        return Some(Message::PrefsSource {
            source: source.into(),
            modified: modified.into(),
        });
    }
    if let Some(venue) = tail.strip_prefix("using separate prefs for ") {
        return Some(Message::PrefsSeparateVenue {
            venue: venue.into(),
        });
    }
    let (venue, _) = tail
        .strip_prefix("no separate prefs for ")?
        .split_fast("; using ")?;
    Some(Message::PrefsNoSeparateVenue {
        venue: venue.into(),
    })
}

/// After `Coprocessor specified in cc_config.xml`: `. Type %s (%s); count %d` (7.6+)
/// or `: type %s count %d` (7.4).
fn coproc_specified(tail: &str) -> Option<Message> {
    if let Some(rest) = tail.strip_prefix(". Type ") {
        let (name, rest) = rest.split_fast(" (")?;
        let (kind, count) = rest.split_fast("); count ")?;
        let gpu = match kind {
            "GPU" => true,
            "non-GPU" => false,
            _ => return None,
        };
        return Some(Message::CoprocSpecified {
            rsc: rsc_name(name)?,
            gpu: Some(gpu),
            count: full(uint, count)?,
        });
    }
    let (name, count) = tail.strip_prefix(": type ")?.rsplit_fast(" count ")?;
    Some(Message::CoprocSpecified {
        rsc: rsc_name(name)?,
        gpu: None,
        count: full(uint, count)?,
    })
}

/// A preference line, leading `-` and blanks removed (8.0+ block and 6.10–7.20
/// indented lines); typed where an audit needs the value, else a note.
fn preference(text: &str) -> Message {
    let typed = |text: &str| -> Option<Message> {
        let (word, tail) = first_word(text);
        match word {
            "Store" => {
                if let Some(days) = tail.strip_prefix("at least ") {
                    return Some(Message::StoreAtLeast {
                        days: full(days_of_work, days)?,
                    });
                }
                let days = tail.strip_prefix("up to an additional ")?;
                Some(Message::StoreUpToAdditional {
                    days: full(days_of_work, days)?,
                })
            }
            "max" => {
                if let Some(count) = tail.strip_prefix("CPUs used: ") {
                    return Some(Message::PrefMaxCpus {
                        ncpus: full(uint, count)?,
                    });
                }
                let rest = tail.strip_prefix("memory usage")?;
                let (active, value) = if let Some(value) = rest.strip_prefix(" when active: ") {
                    (Some(true), value)
                } else if let Some(value) = rest.strip_prefix(" when idle: ") {
                    (Some(false), value)
                } else {
                    (None, rest.strip_prefix(": ")?)
                };
                let (unit, number) = float(value).ok()?;
                let mb = match unit.trim_start() {
                    "MB" => number,
                    "GB" => number * 1024.0,
                    _ => return None,
                };
                Some(Message::PrefMaxMemory { mb, active })
            }
            "Use" => {
                let percent = tail
                    .strip_prefix("at most ")?
                    .strip_suffix("% of the CPU time")?;
                Some(Message::PrefCpuTime {
                    percent: full(float, percent)?,
                })
            }
            "suspend" => {
                let rest = tail.strip_prefix("work ").unwrap_or(tail);
                let percent = rest
                    .strip_prefix("if non-BOINC CPU load exceeds ")?
                    .strip_suffix('%')?;
                Some(Message::PrefSuspendCpuLoad {
                    percent: full(float, percent.trim_end())?,
                })
            }
            _ => None,
        }
    };
    typed(text).unwrap_or_else(|| Message::PreferenceNote { text: text.into() })
}

fn days_of_work(input: &str) -> Res<'_, f64> {
    terminated(float, tag(" days of work"))(input)
}

/// After `RPC `: `to %s; asking for %f/%.2f<br>`, `poll: not time %f - %f < %f` (6.10 emulator).
fn emulator_rpc(tail: &str) -> Option<Message> {
    if let Some(rest) = tail.strip_prefix("to ") {
        let (project, numbers) = rest.rsplit_fast("; asking for ")?;
        let (secs, inst) = full(
            tuple((
                float,
                preceded(tag("/"), terminated(float, opt(tag("<br>")))),
            )),
            numbers,
        )?;
        return Some(Message::EmuRpcTo {
            project: project.into(),
            secs,
            inst,
        });
    }
    let (now, last, period) = full(
        tuple((
            preceded(tag("poll: not time "), float),
            preceded(tag(" - "), float),
            preceded(tag(" < "), float),
        )),
        tail,
    )?;
    Some(Message::EmuRpcPollNotTime { now, last, period })
}

/// After `job for `: `%s misses deadline approx: del %f + et %f > %f`, `%s misses deadline sim`.
fn emulator_job(rest: &str) -> Option<Message> {
    if let Some(app) = rest.strip_suffix(" misses deadline sim") {
        return Some(Message::EmuJobMissesDeadlineSim { app: app.into() });
    }
    let (app, numbers) = rest.split_fast(" misses deadline approx: ")?;
    let (del, et, bound) = full(
        tuple((
            preceded(tag("del "), float),
            preceded(tag(" + et "), float),
            preceded(tag(" > "), float),
        )),
        numbers,
    )?;
    Some(Message::EmuJobMissesDeadlineApprox {
        app: app.into(),
        del,
        et,
        bound,
    })
}

/// Lines opening with a name: `%s: Max %d concurrent jobs`, `%s: negative FLOPs left %f`,
/// and the resource-first work-fetch scan lines.
fn name_first(text: &str) -> Option<Message> {
    if let Some((name, rest)) = text.split_fast(": ") {
        if let Some(max) = rest.strip_prefix("Max ") {
            let max = full(terminated(uint, tag(" concurrent jobs")), max)?;
            return Some(Message::AppMaxConcurrent {
                app: name.into(),
                max,
            });
        }
        if let Some(flops) = rest.strip_prefix("negative FLOPs left ") {
            return Some(Message::NegativeFlopsLeft {
                job: name.into(),
                flops_left: full(float, flops)?,
            });
        }
    }
    work_fetch::resource_first(text)
}

#[cfg(test)]
mod tests {
    use crate::parse::log_messages::classify;
    use crate::resource::ResourceType;
    use crate::trace::message::*;
    use crate::trace::ClientVersion;

    fn msg(body: &str) -> Message {
        classify(body).message
    }

    #[test]
    fn start_up() {
        assert_eq!(
            msg("Starting BOINC client version 7.16.11 for x86_64-pc-linux-gnu"),
            Message::ClientStart {
                version: ClientVersion {
                    major: 7,
                    minor: 16,
                    release: 11
                },
                platform: "x86_64-pc-linux-gnu".into(),
                debug: false
            }
        );
        assert_eq!(
            msg("Local time is UTC +8 hours"),
            Message::LocalTime {
                utc_offset_hours: 8
            }
        );
        assert_eq!(
            msg("Local time is UTC -4 hours"),
            Message::LocalTime {
                utc_offset_hours: -4
            }
        );
        assert_eq!(
            msg("log flags: file_xfer, sched_ops, task, coproc_debug, cpu_sched, cpu_sched_debug"),
            Message::LogFlags {
                flags: [
                    "file_xfer",
                    "sched_ops",
                    "task",
                    "coproc_debug",
                    "cpu_sched",
                    "cpu_sched_debug"
                ]
                .map(Into::into)
                .to_vec()
            }
        );
        assert_eq!(
            msg("URL https://a.example.org/; Computer ID not assigned yet; resource share 100"),
            Message::ProjectUrl {
                url: "https://a.example.org/".into(),
                computer_id: "not assigned yet".into(),
                resource_share: 100.0
            }
        );
        assert_eq!(
            msg("Coprocessor specified in cc_config.xml. Type NVIDIA (GPU); count 1"),
            Message::CoprocSpecified {
                rsc: ResourceType::Nvidia,
                gpu: Some(true),
                count: 1
            }
        );
        assert_eq!(
            msg("Found app_config.xml"),
            Message::FoundFile {
                file: "app_config.xml".into()
            }
        );
        assert_eq!(
            msg("st_app: Max 6 concurrent jobs"),
            Message::AppMaxConcurrent {
                app: "st_app".into(),
                max: 6
            }
        );
        assert_eq!(
            msg("Max 3 concurrent jobs"),
            Message::ProjectMaxConcurrent { max: 3 }
        );
        assert_eq!(
            msg("Number of usable CPUs has changed from 4 to 2."),
            Message::UsableCpusChanged { from: 4, to: 2 }
        );
        assert_eq!(
            msg("X_1: negative FLOPs left -5.000000"),
            Message::NegativeFlopsLeft {
                job: "X_1".into(),
                flops_left: -5.0
            }
        );
    }

    /// The 7.20.5 lines that change a project's reasons not to fetch work
    /// (client_state.cpp set_now, check_clock_reset, reset_project;
    /// gui_rpc_server_ops.cpp; acct_mgr.cpp).
    #[test]
    fn fetch_reason_lines() {
        let cases = [
            (
                "New system time (1795611000) < old system time (1795611100); clearing timeouts",
                Message::ClearingTimeouts {
                    now: 1795611000.0,
                    before: 1795611100.0,
                    at_startup: false,
                },
            ),
            (
                "System clock (1795611000) < state file timestamp (1795612000); clearing timeouts",
                Message::ClearingTimeouts {
                    now: 1795611000.0,
                    before: 1795612000.0,
                    at_startup: true,
                },
            ),
            ("Resetting project", Message::ResettingProject),
            ("Benchmark results:", Message::BenchmarkResults),
            ("Running CPU benchmarks", Message::RunningCpuBenchmarks),
            (
                "CPU benchmarks timed out, using default values",
                Message::BenchmarksTimedOut,
            ),
            (
                "detach when done set by user",
                Message::DetachWhenDoneSetByUser,
            ),
            (
                "detach when done cleared by user",
                Message::DetachWhenDoneClearedByUser,
            ),
            (
                "Contacting account manager at https://bam.example.org/",
                Message::ContactingAccountManager {
                    url: "https://bam.example.org/".into(),
                },
            ),
            (
                "Account manager contact succeeded",
                Message::AccountManagerContactSucceeded,
            ),
            (
                "Re-reading cc_config.xml",
                Message::RereadingConfig {
                    file: "cc_config.xml".into(),
                },
            ),
            (
                "cc_config.xml not found - using defaults",
                Message::CcConfigNotFound,
            ),
        ];
        for (body, want) in cases {
            assert_eq!(msg(body), want, "{body}");
        }
        // A clock line cut short is kept, not misread.
        assert!(matches!(
            msg("New system time (1795611000) < old system time (17956"),
            Message::Unrecognized { .. }
        ));
    }

    /// The 7.20.5 start-up block, shutdown and transfer lines, as Debian's
    /// client printed them in the lab (traces/real).
    #[test]
    fn real_client_start_up_block() {
        let gb = 1024.0 * 1024.0 * 1024.0;
        let cases = [
            (
                "This a development version of BOINC and may not function properly",
                Message::DevelopmentVersion,
            ),
            ("No usable GPUs found", Message::NoUsableGpus),
            (
                "Data directory: /tmp/labruns/two-projects",
                Message::DataDirectory {
                    path: "/tmp/labruns/two-projects".into(),
                },
            ),
            (
                "libc:  version 2.36",
                Message::LibcVersion {
                    version: "2.36".into(),
                },
            ),
            ("Host name: vm", Message::HostName { name: "vm".into() }),
            (
                "Processor: 2 AuthenticAMD AMD EPYC [Family 25 Model 17 Stepping 1]",
                Message::Processor {
                    ncpus: 2,
                    model: "AuthenticAMD AMD EPYC [Family 25 Model 17 Stepping 1]".into(),
                },
            ),
            (
                "Memory: 23.54 GB physical, 0 bytes virtual",
                Message::HostMemory {
                    physical_bytes: 23.54 * gb,
                    swap_bytes: 0.0,
                },
            ),
            (
                "Disk: 251.97 GB total, 512.00 MB free",
                Message::HostDisk {
                    total_bytes: 251.97 * gb,
                    free_bytes: 512.0 * 1024.0 * 1024.0,
                },
            ),
            (
                "Config: simulate 4 CPUs",
                Message::ConfigSimulateCpus { ncpus: 4 },
            ),
            (
                "Config: don't use coprocessors",
                Message::ConfigOption {
                    text: "don't use coprocessors".into(),
                },
            ),
            (
                "Checking presence of 17 project files",
                Message::CheckingProjectFiles { count: 17 },
            ),
            ("Received signal 15", Message::ReceivedSignal { signal: 15 }),
            ("Exiting", Message::Exiting),
            (
                "request_exit(): PID 6895 has 0 descendants",
                Message::RequestExit {
                    pid: 6895,
                    descendants: 0,
                },
            ),
            (
                "Started download of P1_0.in",
                Message::TransferStarted {
                    file: "P1_0.in".into(),
                    upload: false,
                },
            ),
            (
                "File T_35.in exists already, skipping download",
                Message::FileAlreadyPresent {
                    file: "T_35.in".into(),
                },
            ),
            (
                "Finished upload of P1_0_r1.out",
                Message::TransferFinished {
                    file: "P1_0_r1.out".into(),
                    upload: true,
                },
            ),
            (
                "Project has no tasks available",
                Message::ServerMessage {
                    text: "Project has no tasks available".into(),
                },
            ),
            (
                "Host location: none",
                Message::HostLocation {
                    venue: "none".into(),
                },
            ),
        ];
        for (body, expected) in cases {
            assert_eq!(msg(body), expected, "{body}");
        }
        for body in [
            "Warning: GUI RPC password is empty.  BOINC can be controlled by any user on this computer.  See https://boinc.berkeley.edu/gui_rpc_passwd.php for more information.",
            "Libraries: libcurl/7.88.1 OpenSSL/3.0.22 zlib/1.2.13",
            "OS: Linux Debian: Debian GNU/Linux 12 (bookworm) [6.18.44|libc 2.36]",
            "Processor features: fpu vme de pse",
            "Creating new client state file",
            "No general preferences found - using defaults",
            "Setting up project and slot directories",
            "Checking active tasks",
            "Setting up GUI RPC socket",
            "Fetching scheduler list",
            "Master file download succeeded",
        ] {
            assert_ne!(msg(body).kind(), "unrecognized", "{body}");
        }
        // Near misses stay unrecognized rather than half-read.
        for body in [
            "Memory: lots physical, 0 bytes virtual",
            "Config: simulate many CPUs",
        ] {
            assert_eq!(msg(body).kind(), "unrecognized", "{body}");
        }
    }

    #[test]
    fn preferences_both_eras() {
        assert_eq!(
            msg("-  Store at least 0.25 days of work"),
            Message::StoreAtLeast { days: 0.25 }
        );
        assert_eq!(
            msg("-  Store up to an additional 0.25 days of work"),
            Message::StoreUpToAdditional { days: 0.25 }
        );
        assert_eq!(
            msg("-     max CPUs used: 2"),
            Message::PrefMaxCpus { ncpus: 2 }
        );
        assert_eq!(
            msg("-     Use at most 100% of the CPU time"),
            Message::PrefCpuTime { percent: 100.0 }
        );
        assert_eq!(
            msg("-     max memory usage: 7.45 GB"),
            Message::PrefMaxMemory {
                mb: 7.45 * 1024.0,
                active: None
            }
        );
        assert_eq!(
            msg("-  When computer is in use"),
            Message::PreferenceNote {
                text: "When computer is in use".into()
            }
        );
        assert_eq!(
            msg("   max memory usage when active: 7629.39MB"),
            Message::PrefMaxMemory {
                mb: 7629.39,
                active: Some(true)
            }
        );
        assert_eq!(
            msg("   suspend work if non-BOINC CPU load exceeds 25 %"),
            Message::PrefSuspendCpuLoad { percent: 25.0 }
        );
        assert_eq!(
            msg("   (to change preferences, visit a project web site or select Preferences in the Manager)"),
            Message::PreferenceNote {
                text: "(to change preferences, visit a project web site or select Preferences in the Manager)".into()
            }
        );
        assert_eq!(msg("Preferences:"), Message::PreferencesHeader);
        assert_eq!(
            msg("Computing prefs: from  (last modified ---)"),
            Message::PrefsSource {
                source: "".into(),
                modified: "---".into()
            }
        );
        assert_eq!(
            msg("General prefs: using your defaults"),
            Message::PrefsDefaultVenue
        );
        assert_eq!(
            msg("Host location: none"),
            Message::HostLocation {
                venue: "none".into()
            }
        );
    }

    #[test]
    fn emulator_lines() {
        assert_eq!(msg("doing RPC to get work"), Message::EmuRpcGetWork);
        assert_eq!(msg("Got 0 tasks"), Message::EmuGotTasks { count: 0 });
        assert_eq!(
            msg("RPC skipped: project down"),
            Message::EmuRpcSkippedProjectDown
        );
        assert_eq!(
            msg("RPC: [work_fetch] request: CPU (0.00 sec, 0.00 inst) NVIDIA (51840.00 sec, 1.00 inst)"),
            Message::EmuRpcRequest {
                resources: vec![
                    ResourceRequest { rsc: ResourceType::Cpu, secs: 0.0, inst: 0.0 },
                    ResourceRequest { rsc: ResourceType::Nvidia, secs: 51840.0, inst: 1.0 }
                ]
            }
        );
        assert_eq!(
            msg("job for urgent_app misses deadline approx: del 10800.000000 + et 10800.000000 > 18000.000000"),
            Message::EmuJobMissesDeadlineApprox { app: "urgent_app".into(), del: 10800.0, et: 10800.0, bound: 18000.0 }
        );
        assert_eq!(msg("SIMULATION START"), Message::EmuSimulationStart);
        assert_eq!(
            msg("starting simultion. delta 60.000000 duration 86400.000000"),
            Message::EmuStartingSimulation {
                delta: 60.0,
                duration: 86400.0
            }
        );
        assert_eq!(
            msg("value: 0 lambda: 7200.000000 t 946688400.000000 time_left 1180.571519"),
            Message::EmuHostAvailability {
                on: false,
                lambda: 7200.0,
                t: 946688400.0,
                time_left: 1180.571519
            }
        );
        assert_eq!(
            msg("RPC poll: not time 946684800.000000 - 946684800.000000 < 5.000000"),
            Message::EmuRpcPollNotTime {
                now: 946684800.0,
                last: 946684800.0,
                period: 5.0
            }
        );
        assert_eq!(
            msg("RPC to Alpha; asking for 115373.270669/3.00<br>"),
            Message::EmuRpcTo {
                project: "Alpha".into(),
                secs: 115373.270669,
                inst: 3.0
            }
        );
        assert_eq!(msg("RPC poll: didn't do an RPC"), Message::EmuRpcPollNoRpc);
        assert_eq!(
            msg("RPC poll: nothing to do"),
            Message::EmuRpcPollNothingToDo
        );
        assert_eq!(
            msg("Unrecognized tag in cc_config.xml: <std_debug>"),
            Message::UnrecognizedConfigTag {
                file: "cc_config.xml".into(),
                tag: "std_debug".into()
            }
        );
    }
}

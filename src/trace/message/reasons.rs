//! Reason, trigger and state words that the client prints inside messages.
//!
//! Each type keeps the client's own text: [`fmt::Display`] and serde print
//! exactly the text the client printed, and a text that is not in the table
//! of spec/formats-log.md §3.15 (or of the section cited on the type) is kept
//! as `Other(text)` rather than rejected, so a newer client never breaks
//! classification.

use compact_str::CompactString;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Defines a word table: an enum with one variant per known text, an
/// `Other(CompactString)` fallback, `from_text`, `as_str`, `Display` and serde
/// as the text itself.
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* #[doc = concat!("`", $text, "`")] $variant, )*
            /// A text not in the table, kept verbatim.
            Other(CompactString),
        }

        impl $name {
            /// Recognises the client's text; unknown texts become `Other`.
            pub fn from_text(text: &str) -> $name {
                match text {
                    $( $text => $name::$variant, )*
                    other => $name::Other(CompactString::from(other)),
                }
            }

            /// The client's text.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )*
                    $name::Other(text) => text,
                }
            }
        }

        text_enum!(@impls $name);
    };
    (@impls $name:ident) => {
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = CompactString::deserialize(deserializer)?;
                Ok($name::from_text(&text))
            }
        }
    };
}

text_enum! {
    /// Why a scheduler RPC is made (`rpc_reason_string`, scheduler_op.cpp),
    /// printed by `Sending scheduler request: %s.` (6.6..master) and
    /// `[sched_op] sched RPC pending: %s` (7.0..master).
    RpcReason {
        /// Reason 1.
        RequestedByUser = "Requested by user",
        /// Reason 2.
        ToFetchWork = "To fetch work",
        /// Reason 3.
        ToReportCompletedTasks = "To report completed tasks",
        /// Reason 4.
        ToSendTrickleUp = "To send trickle-up message",
        /// Reason 5.
        RequestedByAccountManager = "Requested by account manager",
        /// Reason 6.
        ProjectInitialization = "Project initialization",
        /// Reason 7.
        RequestedByProject = "Requested by project",
        /// Reason 0 or out of range.
        UnknownReason = "Unknown reason",
    }
}

text_enum! {
    /// Why a project cannot fetch a given resource (`rsc_reason_string`
    /// 7.16..master, `rsc_project_reason_string` 7.4–7.14; spec §3.15). The
    /// empty reason is represented by `None` where it can occur.
    ResourceReason {
        /// GPUs are not usable (GPU suspended).
        GpusNotUsable = "GPUs not usable",
        /// The project's preferences exclude this resource.
        BlockedByProjectPreferences = "blocked by project preferences",
        /// cc_config.xml excludes this resource.
        ClientConfiguration = "client configuration",
        /// The project has no app version for this resource.
        NoApplications = "no applications",
        /// The account manager excludes this resource.
        AccountManagerPrefs = "account manager prefs",
        /// Resource share is zero.
        ZeroResourceShare = "zero resource share",
        /// The job cache is full.
        JobCacheFull = "job cache full",
        /// Another project has higher priority.
        NotHighestPriorityProject = "not highest priority project",
        /// The per-(project, resource) backoff is running.
        ProjectIsBackedOff = "project is backed off",
        /// A job of the project is deferred.
        AJobIsDeferred = "a job is deferred",
        /// The max_concurrent limit is reached (7.20+).
        MaxConcurrentJobLimit = "max concurrent job limit",
        /// Fallback text of the client.
        UnknownProjectReason = "unknown project reason",
    }
}

/// Why a project cannot request work at all (`project_reason_string`,
/// 7.4..master; 7.0–7.2 the same texts, `don't need` without parentheses;
/// spec §3.15).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProjectReason {
    /// `non CPU intensive`
    NonCpuIntensive,
    /// `suspended via Manager`
    SuspendedViaManager,
    /// `master URL fetch pending`
    MasterUrlFetchPending,
    /// `scheduler RPC backoff`
    SchedulerRpcBackoff,
    /// `"no new tasks" requested via Manager`
    NoNewTasks,
    /// `some download is stalled`
    DownloadStalled,
    /// `some task is suspended via Manager`
    TaskSuspendedViaManager,
    /// `too many uploads in progress`
    TooManyUploads,
    /// `project is not highest priority`
    NotHighestPriority,
    /// `too many runnable tasks`
    TooManyRunnableTasks,
    /// `at max_concurrent limit` (7.16+)
    AtMaxConcurrentLimit,
    /// `don't need (DETAIL)` (7.4+; DETAIL is one resource reason, or
    /// `NAME: REASON` pairs joined by `; `), or plain `don't need` (7.0–7.2,
    /// empty detail).
    DontNeed(CompactString),
    /// A text not in the table, kept verbatim.
    Other(CompactString),
}

impl ProjectReason {
    /// Recognises the client's text; unknown texts become `Other`.
    pub fn from_text(text: &str) -> ProjectReason {
        match text {
            "non CPU intensive" => ProjectReason::NonCpuIntensive,
            "suspended via Manager" => ProjectReason::SuspendedViaManager,
            "master URL fetch pending" => ProjectReason::MasterUrlFetchPending,
            "scheduler RPC backoff" => ProjectReason::SchedulerRpcBackoff,
            "\"no new tasks\" requested via Manager" => ProjectReason::NoNewTasks,
            "some download is stalled" => ProjectReason::DownloadStalled,
            "some task is suspended via Manager" => ProjectReason::TaskSuspendedViaManager,
            "too many uploads in progress" => ProjectReason::TooManyUploads,
            "project is not highest priority" => ProjectReason::NotHighestPriority,
            "too many runnable tasks" => ProjectReason::TooManyRunnableTasks,
            "at max_concurrent limit" => ProjectReason::AtMaxConcurrentLimit,
            "don't need" => ProjectReason::DontNeed(CompactString::default()),
            other => match other
                .strip_prefix("don't need (")
                .and_then(|d| d.strip_suffix(')'))
            {
                Some(detail) => ProjectReason::DontNeed(CompactString::from(detail)),
                None => ProjectReason::Other(CompactString::from(other)),
            },
        }
    }

    /// The client's text (allocation-free except for `DontNeed` with a detail).
    pub fn as_str(&self) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow::Borrowed;
        match self {
            ProjectReason::NonCpuIntensive => Borrowed("non CPU intensive"),
            ProjectReason::SuspendedViaManager => Borrowed("suspended via Manager"),
            ProjectReason::MasterUrlFetchPending => Borrowed("master URL fetch pending"),
            ProjectReason::SchedulerRpcBackoff => Borrowed("scheduler RPC backoff"),
            ProjectReason::NoNewTasks => Borrowed("\"no new tasks\" requested via Manager"),
            ProjectReason::DownloadStalled => Borrowed("some download is stalled"),
            ProjectReason::TaskSuspendedViaManager => {
                Borrowed("some task is suspended via Manager")
            }
            ProjectReason::TooManyUploads => Borrowed("too many uploads in progress"),
            ProjectReason::NotHighestPriority => Borrowed("project is not highest priority"),
            ProjectReason::TooManyRunnableTasks => Borrowed("too many runnable tasks"),
            ProjectReason::AtMaxConcurrentLimit => Borrowed("at max_concurrent limit"),
            ProjectReason::DontNeed(detail) if detail.is_empty() => Borrowed("don't need"),
            ProjectReason::DontNeed(detail) => format!("don't need ({detail})").into(),
            ProjectReason::Other(text) => Borrowed(text),
        }
    }
}

text_enum!(@impls ProjectReason);

text_enum! {
    /// Why computation, GPU computation, network or file transfers are
    /// suspended (`suspend_reason_string`, spec §3.15).
    SuspendReason {
        /// Running on batteries.
        OnBatteries = "on batteries",
        /// 7.x+ wording of user activity.
        ComputerIsInUse = "computer is in use",
        /// 6.x wording of user activity.
        UserIsActive = "user is active",
        /// Suspended by the user.
        UserRequest = "user request",
        /// Outside the allowed time of day.
        TimeOfDay = "time of day",
        /// Benchmarks are running.
        CpuBenchmarks = "CPU benchmarks in progress",
        /// Disk space exhausted.
        NeedDiskSpace = "need disk space - check preferences",
        /// No recent user activity.
        NoRecentUserActivity = "no recent user activity",
        /// Start-up delay.
        InitialDelay = "initial delay",
        /// An exclusive application runs.
        ExclusiveAppRunning = "an exclusive app is running",
        /// Non-BOINC CPU load is high.
        CpuIsBusy = "CPU is busy",
        /// Network transfer limit reached.
        NetworkTransferLimit = "network transfer limit exceeded",
        /// The OS asked.
        RequestedByOs = "requested by operating system",
        /// Not on WiFi.
        NotConnectedToWifi = "not connected to WiFi network",
        /// Battery low.
        BatteryLow = "battery low",
        /// Battery too hot.
        BatteryThermalProtection = "battery thermal protection",
        /// GUI not active.
        GuiNotActive = "GUI not active",
        /// Podman initializing.
        PodmanInitializing = "Podman initializing",
        /// Waiting for charge.
        BatteryChargeWait = "battery charge wait",
        /// Waiting for the battery to cool.
        BatteryHeatWait = "battery heat wait",
    }
}

text_enum! {
    /// The text after `[sched_op] Reason: ` (`PROJECT::set_min_rpc_time`
    /// callers, spec §3.2 and §7.2). Texts with numbers or URLs are `Other`.
    DeferReason {
        /// Reply `<request_delay>`.
        RequestedByProject = "requested by project",
        /// Project down with a delay.
        ProjectRequestedDelay = "project requested delay",
        /// New host CPID.
        SendingNewHostCpid = "Sending new host CPID",
        /// RPC failure.
        SchedulerRequestFailed = "Scheduler request failed",
        /// RPC initialisation failure.
        SchedulerRequestInitFailed = "Scheduler request initialization failed",
        /// Master file failure.
        MasterFileRequestFailed = "Master file request failed",
        /// Master file initialisation failure.
        MasterFileFetchInitFailed = "Master file fetch initialization failed",
        /// Bad scheduler list.
        CouldntParseSchedulerList = "Couldn't parse scheduler list",
        /// Project is down.
        ProjectIsDown = "project is down",
        /// Bad reply.
        CantParseSchedulerReply = "can't parse scheduler reply",
        /// Scheduler list failure.
        SchedulerListFetchFailed = "scheduler list fetch failed",
        /// The emulator's simulated server is down (emulator only, §7.2).
        ProjectDown = "project down",
    }
}

text_enum! {
    /// Trigger of `Request work fetch: %s` (`CLIENT_STATE::request_work_fetch`,
    /// spec §3.3 and §7.4).
    WorkFetchTrigger {
        /// Idle CPUs.
        CpusIdle = "CPUs idle",
        /// cc_config.xml re-read.
        CoreClientConfiguration = "Core client configuration",
        /// Project detached.
        Detach = "Detach",
        /// Master file fetched.
        MasterFetchComplete = "Master fetch complete",
        /// CPU count changed.
        NumberOfUsableCpusChanged = "Number of usable CPUs has changed",
        /// Override file read.
        PreferencesOverride = "Preferences override",
        /// Preferences changed.
        PrefsUpdate = "Prefs update",
        /// A scheduler RPC completed.
        RpcComplete = "RPC complete",
        /// Client start.
        Startup = "Startup",
        /// An application exited.
        ApplicationExited = "application exited",
        /// Emulator start (emulator only).
        Init = "init",
        /// A simulated job finished (emulator only, today and 7.2.42).
        JobFinished = "job finished",
        /// A simulated RPC brought jobs (emulator only).
        SimulateRpc = "simulate_rpc",
        /// A simulated job finished (6.10 emulator only).
        AtpPoll = "ATP poll",
        /// Project detached by the user.
        ProjectDetachedByUser = "project detached by user",
        /// Uploads finished.
        ProjectFinishedUploading = "project finished uploading",
        /// Project reset.
        ProjectResetByUser = "project reset by user",
        /// Project resumed.
        ProjectResumed = "project resumed",
        /// Project suspended.
        ProjectSuspended = "project suspended",
        /// Project updated.
        ProjectUpdatedByUser = "project updated by user",
        /// "Allow new tasks".
        ProjectWorkFetchResumedByUser = "project work fetch resumed by user",
        /// A result was aborted.
        ResultAbortedByUser = "result aborted by user",
        /// A task was suspended.
        TaskSuspendedByUser = "task suspended by user",
    }
}

text_enum! {
    /// Trigger of `[cpu_sched_debug] Request CPU reschedule: %s`
    /// (`CLIENT_STATE::request_schedule_cpus`, spec §3.6 and §7.4).
    RescheduleTrigger {
        /// Periodic pass.
        PeriodicCpuScheduling = "periodic CPU scheduling",
        /// 6.10 periodic pass.
        SchedulingPeriodElapsed = "Scheduling period elapsed.",
        /// Input files arrived.
        FilesDownloaded = "files downloaded",
        /// A simulated job finished (emulator only).
        JobFinished = "job finished",
        /// An application exited.
        ApplicationExited = "application exited",
        /// Finished applications were handled.
        HandleFinishedApps = "handle_finished_apps",
        /// Preferences changed.
        PrefsUpdate = "Prefs update",
        /// A scheduling backoff ended.
        ScheduleBackoffFinished = "schedule backoff finished",
        /// GPU usability changed.
        GpuUsabilityChange = "GPU usability change",
        /// Slow application start.
        SlowAppStartup = "slow app startup",
        /// A start failed.
        StartFailed = "start failed",
        /// Retry after a coprocessor quit.
        CoprocQuitRetry = "coproc quit retry",
        /// A user action on a task.
        TaskSuspendedResumedOrAborted = "task suspended, resumed or aborted by user",
        /// Project suspended.
        ProjectSuspended = "project suspended",
        /// Project resumed.
        ProjectResumed = "project resumed",
        /// Network suspended.
        NetworkSuspended = "network suspended",
        /// A simulated RPC brought jobs (emulator only).
        SimulateRpc = "simulate_rpc",
        /// A simulated job finished (6.10 emulator only).
        AtpPoll = "ATP poll",
    }
}

text_enum! {
    /// Why a round-robin simulation runs (`[rr_sim] doing sim: %s`, 7.16..master).
    SimReason {
        /// For the CPU scheduler.
        CpuSched = "CPU sched",
        /// For work fetch.
        WorkFetch = "work fetch",
    }
}

text_enum! {
    /// Criterion of the 6.10 `chosen: %s %s: %.2f inst, %.2f sec` line.
    ChooseCriterion {
        /// An instance is idle.
        IdleInstance = "idle instance",
        /// Shortfall with the project's full share.
        MajorShortfall = "major shortfall",
        /// Shortfall otherwise.
        MinorShortfall = "minor shortfall",
        /// The project is starved.
        Starved = "starved",
    }
}

text_enum! {
    /// Run-list kind of the 6.6–7.2 `[cpu_sched_debug] scheduling %s (%s)` line.
    ScheduleKind {
        /// GPU job, deadline order.
        CoprocEdf = "coprocessor job, EDF",
        /// GPU job, FIFO order.
        CoprocFifo = "coprocessor job, FIFO",
        /// CPU job, deadline order.
        CpuEdf = "CPU job, EDF",
        /// CPU job, debt order (6.6–6.10).
        CpuDebtOrder = "CPU job, debt order",
        /// CPU job, priority order (7.0–7.2).
        CpuPriorityOrder = "CPU job, priority order",
    }
}

text_enum! {
    /// Order of `[cpu_sched_debug] add to run list: %s (%s, %s) (prio %f)`.
    RunListOrder {
        /// Earliest deadline first (deadline miss projected).
        Edf = "EDF",
        /// Normal order.
        Fifo = "FIFO",
    }
}

text_enum! {
    /// How a task is (re)started: first word of `%s task %s ...` lines.
    StartAction {
        /// First run.
        Starting = "Starting",
        /// Process re-created.
        Restarting = "Restarting",
        /// Unsuspended.
        Resuming = "Resuming",
    }
}

text_enum! {
    /// Process states of `[task] task_state=%s for %s from %s`.
    TaskState {
        /// 0.
        Uninitialized = "UNINITIALIZED",
        /// 1.
        Executing = "EXECUTING",
        /// 9.
        Suspended = "SUSPENDED",
        /// 5.
        AbortPending = "ABORT_PENDING",
        /// 2.
        Exited = "EXITED",
        /// 3.
        WasSignaled = "WAS_SIGNALED",
        /// 4.
        ExitUnknown = "EXIT_UNKNOWN",
        /// 6.
        Aborted = "ABORTED",
        /// 7.
        CouldntStart = "COULDNT_START",
        /// 8.
        QuitPending = "QUIT_PENDING",
        /// 10.
        CopyPending = "COPY_PENDING",
    }
}

text_enum! {
    /// Result states of `[task] result state=%s for %s from %s`.
    ResultState {
        /// 0.
        New = "NEW",
        /// 1.
        FilesDownloading = "FILES_DOWNLOADING",
        /// 2.
        FilesDownloaded = "FILES_DOWNLOADED",
        /// 3.
        ComputeError = "COMPUTE_ERROR",
        /// 4.
        FilesUploading = "FILES_UPLOADING",
        /// 5.
        FilesUploaded = "FILES_UPLOADED",
        /// 6.
        Aborted = "ABORTED",
        /// 7.
        UploadFailed = "UPLOAD_FAILED",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_round_trip() {
        assert_eq!(
            RpcReason::from_text("To fetch work"),
            RpcReason::ToFetchWork
        );
        assert_eq!(RpcReason::ToFetchWork.to_string(), "To fetch work");
        assert_eq!(
            ResourceReason::from_text("brand new reason"),
            ResourceReason::Other("brand new reason".into())
        );
        let reason = ProjectReason::from_text("don't need (CPU: job cache full)");
        assert_eq!(
            reason,
            ProjectReason::DontNeed("CPU: job cache full".into())
        );
        assert_eq!(reason.to_string(), "don't need (CPU: job cache full)");
        assert_eq!(
            ProjectReason::from_text("don't need").to_string(),
            "don't need"
        );
        assert_eq!(
            ProjectReason::from_text("\"no new tasks\" requested via Manager"),
            ProjectReason::NoNewTasks
        );
    }

    #[test]
    fn serde_is_the_client_text() {
        let json = serde_json::to_string(&SuspendReason::ComputerIsInUse).unwrap_or_default();
        assert_eq!(json, "\"computer is in use\"");
        let back: SuspendReason =
            serde_json::from_str("\"odd\"").unwrap_or(SuspendReason::UserRequest);
        assert_eq!(back, SuspendReason::Other("odd".into()));
    }
}

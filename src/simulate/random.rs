//! Random emulator scenarios: `boinc-audit scenario random --seed N`.
//!
//! Writes the inputs of the client emulator (client/sim.cpp) — a
//! client_state.xml with the emulator's `<app>` job parameters and
//! `<project>` `<available>` periods, global_prefs.xml, cc_config.xml with
//! the log flags of the references, app_config.xml per project — for a host
//! and projects drawn from a seed. The same inputs run through the real
//! emulator (`tools/emulator-differential`) or through `simulate` and are
//! then audited: inputs nobody chose, to measure the replay on.
//!
//! Every feature of the one-loop issue can be drawn: hosts of 1-16 CPUs and
//! up to three GPUs of two vendors, 1-14 projects with unequal shares,
//! existing jobs, app and project max_concurrent, GPU sharing through
//! app_config, multithread apps, apps with CPU and GPU versions, host /
//! active / GPU fractions below 1, projects down part of the time,
//! suspended and no-new-work projects, a missing `no_rsc_apps` hint,
//! rec_half_life_days, `max_ncpus_pct` below 100, tiny and large buffers and
//! tight deadlines. `--features` forces a set on (the others off).
//!
//! Architecture Invariant: pure — the seed in, file texts out; the command
//! writes them.

use super::rng::Rng;
use crate::trace::state::escaped_master_url;
use std::fmt::Write as _;

/// The log flags of the emulator references' cc_config.xml (and of the
/// scenarios written here, and of the real-client lab's runs).
pub const REFERENCE_LOG_FLAGS: &[&str] = &[
    "task",
    "sched_ops",
    "cpu_sched",
    "cpu_sched_debug",
    "cpu_sched_status",
    "work_fetch_debug",
    "rr_simulation",
    "sched_op_debug",
    "coproc_debug",
    "priority_debug",
    "task_debug",
    "dcf_debug",
];
/// A drawable feature of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Feature {
    /// At least one GPU.
    Gpu,
    /// Multithread apps (plan class `mt`).
    Multithread,
    /// app_config `<max_concurrent>` on some app.
    AppMaxConcurrent,
    /// app_config `<project_max_concurrent>`.
    ProjectMaxConcurrent,
    /// app_config `<gpu_versions>` (fractional GPU jobs).
    GpuSharing,
    /// An app with a CPU and a GPU version.
    DualVersions,
    /// Host on / connected / active / GPU-active fractions below 1.
    PartialHost,
    /// Projects down part of the time (`<available>`).
    ProjectDown,
    /// A no-new-work project.
    NoNewWork,
    /// A suspended project.
    Suspended,
    /// Tight deadlines.
    TightDeadlines,
    /// A tiny work buffer.
    TinyBuffer,
    /// A large work buffer.
    LargeBuffer,
    /// 8-14 projects.
    ManyProjects,
    /// A project without the `no_rsc_apps` hint for a resource it has no app for.
    MissingHint,
    /// cc_config `<rec_half_life_days>`.
    RecHalfLife,
    /// `max_ncpus_pct` below 100.
    CpuPercent,
    /// `<max_concurrent>` in client_state.xml's `<app>` (APP::parse reads
    /// it; emulators before 7.16.1 read no app_config.xml, so it is their
    /// only way to a limit). Only when asked for: never drawn, so a seed's
    /// scenario without it stays what it was.
    StateMaxConcurrent,
    /// A cc_config `<exclude_gpu>` keeping a project (or one of its apps)
    /// off one GPU type or one instance of it. Only when asked for.
    GpuExclusion,
}

impl Feature {
    /// Every feature, in order.
    pub const ALL: [Feature; 17] = [
        Feature::Gpu,
        Feature::Multithread,
        Feature::AppMaxConcurrent,
        Feature::ProjectMaxConcurrent,
        Feature::GpuSharing,
        Feature::DualVersions,
        Feature::PartialHost,
        Feature::ProjectDown,
        Feature::NoNewWork,
        Feature::Suspended,
        Feature::TightDeadlines,
        Feature::TinyBuffer,
        Feature::LargeBuffer,
        Feature::ManyProjects,
        Feature::MissingHint,
        Feature::RecHalfLife,
        Feature::CpuPercent,
    ];

    /// Features `--features` turns on that a seed never draws.
    pub const EXPLICIT: [Feature; 2] = [Feature::StateMaxConcurrent, Feature::GpuExclusion];

    /// The name `--features` takes.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Gpu => "gpu",
            Feature::Multithread => "mt",
            Feature::AppMaxConcurrent => "appmc",
            Feature::ProjectMaxConcurrent => "projmc",
            Feature::GpuSharing => "gpushare",
            Feature::DualVersions => "dual",
            Feature::PartialHost => "partial",
            Feature::ProjectDown => "down",
            Feature::NoNewWork => "nnw",
            Feature::Suspended => "susp",
            Feature::TightDeadlines => "tight",
            Feature::TinyBuffer => "tinybuf",
            Feature::LargeBuffer => "largebuf",
            Feature::ManyProjects => "manyproj",
            Feature::MissingHint => "nohint",
            Feature::RecHalfLife => "halflife",
            Feature::CpuPercent => "cpupct",
            Feature::StateMaxConcurrent => "statemc",
            Feature::GpuExclusion => "exclude",
        }
    }

    /// The feature of a `--features` name.
    pub fn from_name(name: &str) -> Option<Feature> {
        Feature::ALL
            .into_iter()
            .chain(Feature::EXPLICIT)
            .find(|f| f.name() == name)
    }
}

/// A generated scenario: the files (paths relative to the scenario folder)
/// and the emulator options it is meant to run with.
#[derive(Clone, Debug)]
pub struct RandomScenario {
    /// A short name: host, projects and features.
    pub name: String,
    /// `(relative path, text)`.
    pub files: Vec<(String, String)>,
    /// `--duration` for the emulator (s).
    pub duration: f64,
    /// `--delta` for the emulator (s).
    pub delta: f64,
    /// The features drawn.
    pub features: Vec<Feature>,
}

const PROJECT_NAMES: [&str; 24] = [
    "Aquila",
    "Auriga",
    "Borealis",
    "Carina",
    "Cygnus",
    "Dorado",
    "Draco",
    "Fornax",
    "Grus",
    "Hydra",
    "Indus",
    "Lacerta",
    "Lupus",
    "Lyra",
    "Mensa",
    "Musca",
    "Norma",
    "Octans",
    "Pavo",
    "Pictor",
    "Reticulum",
    "Sagitta",
    "Tucana",
    "Vela",
];

/// A GPU vendor as client_state.xml and app versions name it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vendor {
    coproc_tag: &'static str,
    rsc_type: &'static str,
    device: &'static str,
    plan_class: &'static str,
    suffix: &'static str,
    cuda: bool,
}

const VENDORS: [Vendor; 3] = [
    Vendor {
        coproc_tag: "coproc_cuda",
        rsc_type: "NVIDIA",
        device: "GeForce Emulated",
        plan_class: "cuda",
        suffix: "nv",
        cuda: true,
    },
    Vendor {
        coproc_tag: "coproc_ati",
        rsc_type: "ATI",
        device: "Radeon Emulated",
        plan_class: "opencl_ati",
        suffix: "amd",
        cuda: false,
    },
    Vendor {
        coproc_tag: "coproc_intel_gpu",
        rsc_type: "intel_gpu",
        device: "Intel Emulated",
        plan_class: "opencl_intel_gpu",
        suffix: "igpu",
        cuda: false,
    },
];

struct Gpu {
    vendor: Vendor,
    count: u32,
    peak_flops: f64,
}

struct Version {
    plan_class: String,
    avg_ncpus: f64,
    flops: f64,
    gpu: Option<Vendor>,
}

struct App {
    name: String,
    latency_bound: f64,
    fpops_mean: f64,
    fpops_sd: f64,
    weight: u32,
    versions: Vec<Version>,
    max_concurrent: Option<u32>,
    /// `<max_concurrent>` written in client_state.xml's `<app>`.
    state_max_concurrent: Option<u32>,
    gpu_usage: Option<(f64, f64)>,
}

struct Project {
    name: String,
    share: f64,
    apps: Vec<App>,
    available: Option<(f64, f64)>,
    suspended: bool,
    no_new_work: bool,
    project_max_concurrent: Option<u32>,
    hint_dropped: bool,
}

/// Draws on the seeded generator.
struct Draw(Rng);

impl Draw {
    fn unit(&mut self) -> f64 {
        self.0.uniform()
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// An integer in `lo..=hi`.
    fn int(&mut self, lo: u32, hi: u32) -> u32 {
        let n = (hi - lo + 1) as f64;
        lo + ((self.unit() * n).floor() as u32).min(hi - lo)
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.int(0, items.len() as u32 - 1) as usize]
    }
}

fn round_to(x: f64, step: f64) -> f64 {
    (x / step).round() * step
}

/// The scenario of `seed`. `forced`: `None` draws each feature (about one
/// in three); `Some(set)` turns exactly that set on.
pub fn random_scenario(seed: u64, forced: Option<&[Feature]>) -> RandomScenario {
    let mut d = Draw(Rng::new(seed));
    let features: Vec<Feature> = match forced {
        Some(set) => {
            let mut set = set.to_vec();
            set.sort();
            set.dedup();
            set
        }
        None => Feature::ALL
            .into_iter()
            .filter(|f| d.chance(if *f == Feature::Gpu { 0.7 } else { 0.33 }))
            .collect(),
    };
    let has = |f: Feature| features.contains(&f);

    // Host.
    let ncpus = d.pick(&[1u32, 2, 2, 4, 4, 6, 8, 8, 12, 16]);
    let p_fpops = round_to(d.range(2.0e9, 5.0e9), 1e8);
    let mut gpus: Vec<Gpu> = Vec::new();
    if has(Feature::Gpu) || has(Feature::GpuSharing) || has(Feature::DualVersions) {
        let first = d.int(0, 2) as usize;
        let mut vendors = vec![VENDORS[first]];
        if d.chance(0.4) {
            vendors.push(VENDORS[(first + 1 + d.int(0, 1) as usize) % 3]);
        }
        for vendor in vendors {
            let count = if d.chance(0.25) { 2 } else { 1 };
            let peak = round_to(d.range(2.0e11, 3.0e12), 1e10);
            gpus.push(Gpu {
                vendor,
                count,
                peak_flops: peak,
            });
        }
    }

    // Projects.
    let nproj = if has(Feature::ManyProjects) {
        d.int(8, 14)
    } else {
        d.int(1, 5)
    } as usize;
    let mut names: Vec<&str> = PROJECT_NAMES.to_vec();
    let mut projects = Vec::new();
    for _ in 0..nproj {
        let name = names.remove(d.int(0, names.len() as u32 - 1) as usize);
        let share = d.pick(&[
            10.0, 25.0, 50.0, 75.0, 100.0, 100.0, 150.0, 200.0, 300.0, 500.0,
        ]);
        let prefix: String = name.to_lowercase().chars().take(3).collect();
        let mut apps = Vec::new();
        let napps = d.int(1, 3);
        for a in 0..napps {
            let gpu_app = !gpus.is_empty() && d.chance(0.5);
            let mt = !gpu_app && ncpus > 1 && has(Feature::Multithread) && d.chance(0.5);
            let dual = gpu_app && has(Feature::DualVersions) && d.chance(0.5);
            let vendor = gpus.get(d.int(0, gpus.len().max(1) as u32 - 1) as usize);
            let mut versions = Vec::new();
            let suffix;
            if let (true, Some(gpu)) = (gpu_app, vendor) {
                suffix = if dual {
                    "dual".to_string()
                } else {
                    gpu.vendor.suffix.to_string()
                };
                if dual {
                    versions.push(Version {
                        plan_class: String::new(),
                        avg_ncpus: 1.0,
                        flops: round_to(p_fpops * d.range(0.85, 1.1), 1e8),
                        gpu: None,
                    });
                }
                versions.push(Version {
                    plan_class: gpu.vendor.plan_class.to_string(),
                    avg_ncpus: round_to(d.range(0.05, 0.3), 0.01),
                    flops: round_to(gpu.peak_flops * d.range(0.05, 0.25), 1e9),
                    gpu: Some(gpu.vendor),
                });
            } else if mt {
                let n = d.int(2, ncpus.min(8)) as f64;
                suffix = "mt".to_string();
                versions.push(Version {
                    plan_class: "mt".to_string(),
                    avg_ncpus: n,
                    flops: round_to(n * p_fpops * d.range(0.85, 1.1), 1e8),
                    gpu: None,
                });
            } else {
                suffix = if a == 0 {
                    "cpu".into()
                } else {
                    format!("cpu{}", a + 1)
                };
                versions.push(Version {
                    plan_class: String::new(),
                    avg_ncpus: 1.0,
                    flops: round_to(p_fpops * d.range(0.85, 1.1), 1e8),
                    gpu: None,
                });
            }
            let fastest = versions.iter().map(|v| v.flops).fold(0.0, f64::max);
            let hours = if gpu_app {
                d.range(0.3, 4.0)
            } else {
                d.range(0.5, 12.0)
            };
            let fpops_mean = round_to(hours * 3600.0 * fastest, 1e9);
            let latency_bound = if has(Feature::TightDeadlines) && d.chance(0.5) {
                round_to(hours * 3600.0 * d.range(1.5, 4.0), 600.0)
            } else {
                d.pick(&[
                    172800.0, 259200.0, 345600.0, 432000.0, 604800.0, 864000.0, 1209600.0,
                ])
            };
            let gpu_usage = (gpu_app && has(Feature::GpuSharing) && d.chance(0.6)).then(|| {
                (
                    d.pick(&[0.5, 0.5, 0.33, 0.25]),
                    round_to(d.range(0.05, 0.3), 0.01),
                )
            });
            let max_concurrent =
                (has(Feature::AppMaxConcurrent) && d.chance(0.4)).then(|| d.int(1, 3));
            let state_max_concurrent =
                (has(Feature::StateMaxConcurrent) && d.chance(0.5)).then(|| d.int(1, 2));
            let mut app_name = format!("{prefix}_{suffix}");
            while apps.iter().any(|x: &App| x.name == app_name) {
                app_name.push('x');
            }
            apps.push(App {
                name: app_name,
                latency_bound,
                fpops_mean,
                fpops_sd: round_to(fpops_mean * d.range(0.02, 0.2), 1e9),
                weight: d.pick(&[1, 1, 1, 2, 3]),
                versions,
                max_concurrent,
                state_max_concurrent,
                gpu_usage,
            });
        }
        let available = (has(Feature::ProjectDown) && d.chance(0.4)).then(|| {
            (
                round_to(d.range(0.4, 0.95), 0.01),
                d.pick(&[3600.0, 7200.0, 14400.0, 28800.0]),
            )
        });
        projects.push(Project {
            name: name.to_string(),
            share,
            apps,
            available,
            suspended: false,
            no_new_work: false,
            project_max_concurrent: (has(Feature::ProjectMaxConcurrent) && d.chance(0.4))
                .then(|| d.int(1, 3)),
            hint_dropped: false,
        });
    }
    // Feature-level flags on one project each (never all projects idle).
    if has(Feature::Suspended) && projects.len() > 1 {
        let i = d.int(0, projects.len() as u32 - 1) as usize;
        projects[i].suspended = true;
    }
    if has(Feature::NoNewWork) && projects.len() > 1 {
        let i = d.int(0, projects.len() as u32 - 1) as usize;
        projects[i].no_new_work = true;
    }
    if has(Feature::MissingHint) {
        let i = d.int(0, projects.len() as u32 - 1) as usize;
        projects[i].hint_dropped = true;
    }
    if has(Feature::ProjectMaxConcurrent)
        && projects.iter().all(|p| p.project_max_concurrent.is_none())
    {
        let i = d.int(0, projects.len() as u32 - 1) as usize;
        projects[i].project_max_concurrent = Some(d.int(1, 2));
    }

    // Preferences and options.
    let (min_days, add_days) = if has(Feature::TinyBuffer) {
        (d.pick(&[0.0, 0.01, 0.02, 0.05]), d.pick(&[0.0, 0.01, 0.05]))
    } else if has(Feature::LargeBuffer) {
        (d.pick(&[1.0, 1.5, 2.0, 3.0]), d.pick(&[0.5, 1.0, 2.0]))
    } else {
        (d.pick(&[0.1, 0.2, 0.5]), d.pick(&[0.1, 0.25, 0.5]))
    };
    let sched_minutes = d.pick(&[30.0, 60.0, 60.0, 120.0]);
    let ncpus_pct = if has(Feature::CpuPercent) && ncpus > 1 {
        d.pick(&[50.0, 75.0, 90.0])
    } else {
        100.0
    };
    let half_life = has(Feature::RecHalfLife).then(|| d.pick(&[1.0, 2.0, 5.0, 20.0]));
    let delta = d.pick(&[60.0, 90.0, 120.0, 150.0, 180.0, 210.0, 240.0, 300.0]);
    let duration = 86400.0;

    // Existing jobs (every scenario starts with some, then the job stream).
    let mut state = String::new();
    state.push_str("<client_state>\n<host_info>\n");
    let _ = writeln!(state, "  <p_ncpus>{ncpus}</p_ncpus>");
    let _ = writeln!(state, "  <p_fpops>{p_fpops:.0}</p_fpops>");
    let _ = writeln!(state, "  <p_iops>{p_fpops:.0}</p_iops>");
    let _ = writeln!(
        state,
        "  <m_nbytes>{:.0}</m_nbytes>",
        f64::from(ncpus.max(2)) * 4e9
    );
    state.push_str("  <p_vendor>GenuineIntel</p_vendor>\n  <p_model>Emulated CPU</p_model>\n  <os_name>Linux</os_name>\n");
    if !gpus.is_empty() {
        state.push_str("  <coprocs>\n");
        for gpu in &gpus {
            let tag = gpu.vendor.coproc_tag;
            let _ = writeln!(state, "    <{tag}>");
            let _ = writeln!(state, "      <count>{}</count>", gpu.count);
            let _ = writeln!(
                state,
                "      <peak_flops>{:.0}</peak_flops>",
                gpu.peak_flops
            );
            state.push_str("      <available_ram>4000000000</available_ram>\n");
            let _ = writeln!(state, "      <name>{}</name>", gpu.vendor.device);
            if gpu.vendor.cuda {
                state.push_str("      <have_cuda>1</have_cuda>\n");
            }
            state.push_str("      <have_opencl>1</have_opencl>\n");
            let _ = writeln!(state, "    </{tag}>");
        }
        state.push_str("  </coprocs>\n");
    }
    state.push_str("</host_info>\n<time_stats>\n");
    if has(Feature::PartialHost) {
        let on = round_to(d.range(0.6, 0.98), 0.01);
        let connected = round_to(d.range(0.5, 1.0), 0.01);
        let active = round_to(d.range(0.6, 1.0), 0.01);
        let gpu_active = round_to(d.range(0.5, 1.0), 0.01);
        let _ = write!(
            state,
            "  <on_frac>{on}</on_frac>\n  <connected_frac>{connected}</connected_frac>\n  <active_frac>{active}</active_frac>\n  <gpu_active_frac>{gpu_active}</gpu_active_frac>\n"
        );
        let _ = write!(
            state,
            "  <on_lambda>{}</on_lambda>\n  <connected_lambda>{}</connected_lambda>\n  <active_lambda>{}</active_lambda>\n  <gpu_active_lambda>{}</gpu_active_lambda>\n",
            d.pick(&[7200, 14400, 21600]),
            d.pick(&[14400, 43200]),
            d.pick(&[3600, 14400]),
            d.pick(&[3600, 7200])
        );
    } else {
        state.push_str("  <on_frac>1</on_frac>\n  <connected_frac>1</connected_frac>\n  <active_frac>1</active_frac>\n  <gpu_active_frac>1</gpu_active_frac>\n");
    }
    state.push_str("</time_stats>\n");
    let mut app_configs = Vec::new();
    let mut njobs_total = 0;
    for project in &projects {
        let host = project.name.to_lowercase();
        let url = format!("https://{host}.example.org/");
        state.push_str("<project>\n");
        let _ = writeln!(state, "  <master_url>{url}</master_url>");
        let _ = writeln!(state, "  <project_name>{}</project_name>", project.name);
        let _ = writeln!(
            state,
            "  <resource_share>{}</resource_share>",
            project.share
        );
        state.push_str("  <dont_use_dcf/>\n");
        if project.suspended {
            state.push_str("  <suspended_via_gui/>\n");
        }
        if project.no_new_work {
            state.push_str("  <dont_request_more_work/>\n");
        }
        // no_rsc_apps for each resource the project has no version for.
        let mut missing: Vec<&str> = Vec::new();
        let has_cpu = project
            .apps
            .iter()
            .any(|a| a.versions.iter().any(|v| v.gpu.is_none()));
        if !has_cpu {
            missing.push("CPU");
        }
        for gpu in &gpus {
            let used = project.apps.iter().any(|a| {
                a.versions
                    .iter()
                    .any(|v| v.gpu.is_some_and(|g| g.rsc_type == gpu.vendor.rsc_type))
            });
            if !used {
                missing.push(gpu.vendor.rsc_type);
            }
        }
        if project.hint_dropped && !missing.is_empty() {
            missing.remove(0);
        }
        for rsc in missing {
            let _ = writeln!(state, "  <no_rsc_apps>{rsc}</no_rsc_apps>");
        }
        if let Some((frac, lambda)) = project.available {
            let _ = writeln!(
                state,
                "  <available>\n    <frac>{frac}</frac>\n    <lambda>{lambda}</lambda>\n  </available>"
            );
        }
        state.push_str("</project>\n");
        let mut config = String::new();
        for app in &project.apps {
            state.push_str("<app>\n");
            let _ = writeln!(state, "  <name>{}</name>", app.name);
            let _ = writeln!(
                state,
                "  <user_friendly_name>{}</user_friendly_name>",
                app.name
            );
            let _ = writeln!(
                state,
                "  <latency_bound>{:.0}</latency_bound>",
                app.latency_bound
            );
            let _ = writeln!(state, "  <fpops_est>{:.0}</fpops_est>", app.fpops_mean);
            let _ = writeln!(
                state,
                "  <fpops>\n    <mean>{:.0}</mean>\n    <std_dev>{:.0}</std_dev>\n  </fpops>",
                app.fpops_mean, app.fpops_sd
            );
            let _ = writeln!(state, "  <weight>{}</weight>", app.weight);
            if let Some(n) = app.state_max_concurrent {
                let _ = writeln!(state, "  <max_concurrent>{n}</max_concurrent>");
            }
            state.push_str("</app>\n");
            for v in &app.versions {
                state.push_str("<app_version>\n");
                let _ = writeln!(state, "  <app_name>{}</app_name>", app.name);
                state.push_str("  <version_num>100</version_num>\n  <platform>x86_64-pc-linux-gnu</platform>\n");
                let _ = writeln!(state, "  <plan_class>{}</plan_class>", v.plan_class);
                let _ = writeln!(state, "  <avg_ncpus>{}</avg_ncpus>", v.avg_ncpus);
                let _ = writeln!(state, "  <max_ncpus>{}</max_ncpus>", v.avg_ncpus);
                let _ = writeln!(state, "  <flops>{:.0}</flops>", v.flops);
                if let Some(g) = v.gpu {
                    let _ = writeln!(
                        state,
                        "  <coproc>\n    <type>{}</type>\n    <count>1</count>\n  </coproc>",
                        g.rsc_type
                    );
                }
                state.push_str("</app_version>\n");
            }
            if app.max_concurrent.is_some() || app.gpu_usage.is_some() {
                config.push_str("  <app>\n");
                let _ = writeln!(config, "    <name>{}</name>", app.name);
                if let Some(n) = app.max_concurrent {
                    let _ = writeln!(config, "    <max_concurrent>{n}</max_concurrent>");
                }
                if let Some((g, c)) = app.gpu_usage {
                    let _ = writeln!(
                        config,
                        "    <gpu_versions>\n      <gpu_usage>{g}</gpu_usage>\n      <cpu_usage>{c}</cpu_usage>\n    </gpu_versions>"
                    );
                }
                config.push_str("  </app>\n");
            }
        }
        if let Some(n) = project.project_max_concurrent {
            let _ = writeln!(
                config,
                "  <project_max_concurrent>{n}</project_max_concurrent>"
            );
        }
        if !config.is_empty() {
            app_configs.push((
                format!(
                    "inputs/projects/{}/app_config.xml",
                    escaped_master_url(&url)
                ),
                format!("<app_config>\n{config}</app_config>\n"),
            ));
        }
        let njobs = d.int(0, 3);
        for n in 0..njobs {
            let app = &project.apps[d.int(0, project.apps.len() as u32 - 1) as usize];
            let version = &app.versions[d.int(0, app.versions.len() as u32 - 1) as usize];
            let wu = format!("{}_init_{n}", project.name);
            let est = round_to(app.fpops_mean * d.range(0.8, 1.2), 1e9);
            let deadline = 1e9 + round_to(app.latency_bound * d.range(0.4, 1.0), 60.0);
            let _ = write!(
                state,
                "<workunit>\n  <name>{wu}</name>\n  <app_name>{}</app_name>\n  <version_num>100</version_num>\n  <rsc_fpops_est>{est:.0}</rsc_fpops_est>\n  <rsc_fpops_bound>{:.0}</rsc_fpops_bound>\n  <rsc_memory_bound>1e8</rsc_memory_bound>\n  <rsc_disk_bound>1e8</rsc_disk_bound>\n</workunit>\n",
                app.name,
                est * 10.0
            );
            let _ = write!(
                state,
                "<result>\n  <name>{wu}_0</name>\n  <wu_name>{wu}</wu_name>\n  <received_time>1000000000</received_time>\n  <report_deadline>{deadline:.0}</report_deadline>\n  <state>2</state>\n  <platform>x86_64-pc-linux-gnu</platform>\n  <version_num>100</version_num>\n  <plan_class>{}</plan_class>\n</result>\n",
                version.plan_class
            );
            njobs_total += 1;
        }
    }
    state.push_str("</client_state>\n");

    let prefs = format!(
        "<global_preferences>\n  <mod_time>0</mod_time>\n  <run_on_batteries>1</run_on_batteries>\n  <run_if_user_active>1</run_if_user_active>\n  <run_gpu_if_user_active>1</run_gpu_if_user_active>\n  <work_buf_min_days>{min_days}</work_buf_min_days>\n  <work_buf_additional_days>{add_days}</work_buf_additional_days>\n  <cpu_scheduling_period_minutes>{sched_minutes}</cpu_scheduling_period_minutes>\n  <max_ncpus_pct>{ncpus_pct}</max_ncpus_pct>\n  <cpu_usage_limit>100</cpu_usage_limit>\n</global_preferences>\n"
    );
    let mut cc = String::from("<cc_config>\n  <log_flags>\n");
    for flag in REFERENCE_LOG_FLAGS {
        let _ = writeln!(cc, "    <{flag}>1</{flag}>");
    }
    cc.push_str("  </log_flags>\n");
    let mut options = String::new();
    if let Some(h) = half_life {
        let _ = writeln!(options, "    <rec_half_life_days>{h}</rec_half_life_days>");
    }
    // Drawn last, so the rest of a seed's scenario is the same with or
    // without it.
    if has(Feature::GpuExclusion) && !gpus.is_empty() {
        let gpu = &gpus[d.int(0, gpus.len() as u32 - 1) as usize];
        let users: Vec<(&Project, &App)> = projects
            .iter()
            .flat_map(|p| p.apps.iter().map(move |a| (p, a)))
            .filter(|(_, a)| {
                a.versions
                    .iter()
                    .any(|v| v.gpu.is_some_and(|g| g.rsc_type == gpu.vendor.rsc_type))
            })
            .collect();
        if !users.is_empty() {
            let (project, app) = users[d.int(0, users.len() as u32 - 1) as usize];
            let _ = write!(
                options,
                "    <exclude_gpu>\n      <url>https://{}.example.org/</url>\n      <type>{}</type>\n",
                project.name.to_lowercase(),
                gpu.vendor.rsc_type
            );
            if gpu.count > 1 {
                let _ = writeln!(
                    options,
                    "      <device_num>{}</device_num>",
                    d.int(0, gpu.count - 1)
                );
            }
            if d.chance(0.3) {
                let _ = writeln!(options, "      <app>{}</app>", app.name);
            }
            options.push_str("    </exclude_gpu>\n");
        }
    }
    if !options.is_empty() {
        let _ = write!(cc, "  <options>\n{options}  </options>\n");
    }
    cc.push_str("</cc_config>\n");

    let gpu_label: String = gpus
        .iter()
        .map(|g| {
            if g.count > 1 {
                format!("{}x{}", g.vendor.suffix, g.count)
            } else {
                g.vendor.suffix.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("_");
    let mut name = format!("seed{seed}_cpu{ncpus}");
    if !gpu_label.is_empty() {
        let _ = write!(name, "_{gpu_label}");
    }
    let _ = write!(name, "_{nproj}proj");
    let mut description = format!(
        "# Random scenario, seed {seed}\n\nWritten by `boinc-audit scenario random --seed {seed}`{}.\n\n- host: {ncpus} CPUs of {:.1} GFLOPS",
        match forced {
            Some(_) => format!(
                " --features {}",
                features.iter().map(|f| f.name()).collect::<Vec<_>>().join(",")
            ),
            None => String::new(),
        },
        p_fpops / 1e9
    );
    for g in &gpus {
        let _ = write!(
            description,
            ", {} x {} ({:.0} GFLOPS peak)",
            g.count,
            g.vendor.rsc_type,
            g.peak_flops / 1e9
        );
    }
    let _ = write!(
        description,
        "\n- {nproj} projects, {njobs_total} jobs in the state file, then the job stream\n- buffer {min_days} + {add_days} days, scheduling period {sched_minutes} min, max_ncpus_pct {ncpus_pct}\n- features: {}\n- emulator options: `--duration {duration:.0} --delta {delta:.0}`\n",
        if features.is_empty() {
            "none".to_string()
        } else {
            features.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
        }
    );
    let mut files = vec![
        ("inputs/client_state.xml".to_string(), state),
        ("inputs/global_prefs.xml".to_string(), prefs),
        ("inputs/cc_config.xml".to_string(), cc),
        ("SCENARIO.md".to_string(), description),
    ];
    files.extend(app_configs);
    RandomScenario {
        name,
        files,
        duration,
        delta,
        features,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{load_trace, LogOptions};

    /// A seed is a scenario: the same seed writes the same files.
    #[test]
    fn deterministic_per_seed() {
        let a = random_scenario(7, None);
        let b = random_scenario(7, None);
        assert_eq!(a.files, b.files);
        assert_ne!(a.files, random_scenario(8, None).files);
    }

    /// Forced features appear in the files: GPU sharing writes
    /// `<gpu_versions>`, suspension `<suspended_via_gui/>`, many projects
    /// at least eight `<project>`s.
    #[test]
    fn forced_features_are_written() {
        let all: Vec<Feature> = Feature::ALL.into_iter().chain(Feature::EXPLICIT).collect();
        let (mut seen_share, mut seen_state_mc) = (false, false);
        for seed in 1..20 {
            let s = random_scenario(seed, Some(&all));
            let text: String = s.files.iter().map(|(_, t)| t.as_str()).collect();
            assert!(text.matches("<project>").count() >= 8, "seed {seed}");
            assert!(text.contains("<suspended_via_gui/>"), "seed {seed}");
            assert!(text.contains("<rec_half_life_days>"), "seed {seed}");
            seen_share |= text.contains("<gpu_versions>");
            seen_state_mc |= s.files.iter().any(|(path, text)| {
                path.ends_with("client_state.xml") && text.contains("<max_concurrent>")
            });
        }
        assert!(seen_share && seen_state_mc);
    }

    /// Every generated input parses without an error.
    #[test]
    fn generated_inputs_parse() {
        let dir = std::env::temp_dir().join(format!("boinc-audit-random-{}", std::process::id()));
        for seed in 1..40 {
            let _ = std::fs::remove_dir_all(&dir);
            let s = random_scenario(seed, None);
            for (path, text) in &s.files {
                let p = dir.join(path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, text).unwrap();
            }
            let parsed = load_trace(&[dir.join("inputs")], &LogOptions::default());
            assert!(parsed.errors.is_empty(), "seed {seed}: {:?}", parsed.errors);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

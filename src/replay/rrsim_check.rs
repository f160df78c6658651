//! A work-fetch state block's per-resource figures (shortfall, idle
//! instances now, saturated and busy time) recomputed from the round-robin
//! simulation the log printed just before it (spec/policy-current.md §4.3
//! to §4.6: client/rr_sim.cpp `RR_SIM::simulate`, `pick_jobs_to_run`,
//! `record_nidle_now`; client/work_fetch.cpp `RSC_WORK_FETCH::update_stats`,
//! `BUSY_TIME_ESTIMATOR`).
//!
//! With `rrsim_detail` on, a 7.x or 8.x simulation prints when each job
//! enters the simulated running set (`[rr_sim_detail] T: starting JOB
//! (USAGE)`, once per job) and with `rr_simulation` when each leaves it
//! (`[rr_sim] T: JOB finishes`). The set between two of those lines is the
//! jobs started and not yet finished: each pick starts from the same
//! projects' priorities (the simulated REC is reset before every pick), so
//! a job once picked is picked again until it finishes, or until the pick
//! stops at a saturated resource (where a job left out changes no idle
//! count). A max_concurrent limit also stops a project's part of a pick
//! while resources are free (from 7.16 on, which prints `at project max
//! concurrent` / `at app max concurrent` each time): in a simulation that
//! reaches one, a job may sit out a pick between its two lines, so fewer
//! jobs run than the timeline holds, never more. There the timeline
//! bounds the figures (idle now and shortfall at least, saturated time at
//! most what it gives): a block outside the bounds diverges, one within
//! them is not checked. With rrsim_detail off, 7.5 on print only the
//! `finishes` lines, each with the job's usage, the GFLOPs it had left
//! when the simulation began and its fixed simulated rate: the job ran
//! GFLOPs / rate seconds up to its end and started at a pick, which only
//! the start or a job's end brings, so the timeline follows from those
//! lines alone when a pick time fits each job (`Pass::rebuilt`; where
//! several do, the job may run from the first, surely from the last), held
//! to the rule that a pick fills its resource while jobs of it wait
//! (`picks_fill`). 7.0 to 7.4 (before commit 6fa0940502, 2014)
//! print `starting` for every job of every pick instead, and `finishes`
//! at the start of the step the job ends in, with the GFLOPs it had left
//! when the simulation began and its rate: each step's set is then
//! printed, each step ends at the next pick, and the last ends when its
//! job has run GFLOPs / rate seconds in all (within what those two
//! decimals allow); those releases leave GPU jobs' CPUs out. 6.6 to 6.12
//! (`rr_sim start: work_buf_total`, rr_sim.cpp `CLIENT_STATE::rr_simulation`
//! at 6.10.60) print `T: starting JOB (USAGE)` when a job enters the set
//! and, at the start of each step, `T: JOB finishes after D`: the step
//! runs the set as it is from T to T + D, then JOB leaves; every job's
//! CPUs count in the CPU use, and the same shortfall, idle and saturated
//! rules apply (work_fetch.cpp `accumulate_shortfall`,
//! `update_saturated_time`). From that timeline:
//!
//! - idle instances now = instances − the usage of the first pick;
//! - shortfall = Σ (instances − usage) × length over the steps whose idle
//!   exceeds 1e-6, up to the buffer's end (`now + work_buf_total`), plus the
//!   instances × the rest of the buffer after the last job ends;
//! - saturated time = the end of the last step with no idle instance;
//! - busy time = 0 unless the jobs that miss their deadline (each fed to
//!   the estimator with ⌊usage⌋ instances) can cover every instance.
//!
//! The usages are printed to two decimals, the times to two decimals: each
//! figure is known to within what those roundings allow (a step whose idle
//! count straddles 1e-6 within them may count either way). The instance
//! count is the usable CPUs the log printed last (`using X out of N CPUs`,
//! `set_request() for CPU: ninst N`), or follows from the printed idle
//! count when it is positive; else each count up to the first pick's usage
//! is tried. Before 7.16 (commit 40f0cb44f4, "Avoid starvation when
//! max_concurrent is used, and related fixes") the pick reset the CPU usage
//! after placing the GPU jobs, so their CPUs were not in the CPU figures;
//! nor while GPU computing is suspended (`RR_SIM::activate`). With GPU
//! jobs in the pass and either not told, the CPU figures are judged only
//! when both ways agree.
//!
//! The block's other lines (REC, priorities, shares, reasons) rest on the
//! host's state and are restated, not recomputed; the reason says so.
//!
//! Architecture Invariant: pure; reads events, keeps one simulation's lines.

use super::compare::Reason;
use super::decision::{Decision, FetchDump, RscSlack, RscState};
use super::enforce_check::printed_ncpus;
use super::recorded::RecordedPoint;
use crate::resource::ResourceType;
use crate::trace::event::LogEvent;
use crate::trace::message::{JobResources, Message, ScheduleKind};
use compact_str::CompactString;
use std::collections::{BTreeMap, HashMap};

/// Jobs one simulation may hold before it is no longer followed (the
/// memory of one pass stays bounded on a hostile log).
const MAX_JOBS: usize = 100_000;

/// Steps one simulation may hold before it is no longer followed (a
/// hostile log repeating `starting` lines at new times).
const MAX_STEPS: usize = 200_000;

/// Why a simulation of finish lines alone cannot be followed.
const NO_DETAIL: &str = "it prints no `[rr_sim_detail] … starting` lines (log flag rrsim_detail \
     off) and its 7.0-7.4 `finishes` lines no usage: which jobs run in each step is not told";

/// Why a simulation mixing both releases' lines cannot be followed.
const MIXED_LINES: &str =
    "it mixes the lines of 7.0-7.4 (`starting` at every pick) and of 7.5 on (once per job)";

/// Why a simulation mixing 6.x lines with later ones cannot be followed.
const SIX_MIXED: &str = "it mixes the lines of 6.6-6.12 (`finishes after`) with those of 7.0 on";

/// Half a unit of a value printed with two decimals.
const HALF_CENT: f64 = 0.005;

/// The client's idle threshold (`idle > 1e-6`).
const IDLE_EPS: f64 = 1e-6;

/// Whether the simulation counts GPU jobs' CPUs in the CPU figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuCpuRule {
    /// 7.16 on: the CPU usage is cleared once, before the GPU jobs are placed.
    Counted,
    /// 7.0 to 7.15: cleared again before the CPU jobs, so GPU jobs' CPUs drop out.
    Dropped,
    /// The release is not known.
    Unknown,
}

/// A usage known to within its printed rounding: `[lo, hi]`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Span {
    lo: f64,
    hi: f64,
}

impl Span {
    fn add(&mut self, printed: f64) {
        self.lo += (printed - HALF_CENT).max(0.0);
        self.hi += printed + HALF_CENT;
    }
    fn plus(self, other: Span) -> Span {
        Span {
            lo: self.lo + other.lo,
            hi: self.hi + other.hi,
        }
    }
}

/// The simulated use of one resource during one step.
#[derive(Clone, Debug, Default, PartialEq)]
struct Usage {
    /// CPUs of CPU jobs.
    cpu: Span,
    /// CPUs of GPU jobs.
    cpu_of_gpu_jobs: Span,
    /// Per GPU type.
    gpus: Vec<(ResourceType, Span)>,
}

impl Usage {
    fn of(active: &BTreeMap<CompactString, JobResources>) -> Usage {
        let mut usage = Usage::default();
        for r in active.values() {
            match &r.coproc {
                Some(c) => {
                    usage.cpu_of_gpu_jobs.add(r.ncpus);
                    match usage.gpus.iter_mut().find(|(t, _)| *t == c.rsc) {
                        Some((_, span)) => span.add(c.usage),
                        None => {
                            let mut span = Span::default();
                            span.add(c.usage);
                            usage.gpus.push((c.rsc.clone(), span));
                        }
                    }
                }
                None => usage.cpu.add(r.ncpus),
            }
        }
        usage
    }

    /// Widened by jobs that may be running: their usage counts only in
    /// the upper ends.
    fn widen(&mut self, maybe: &Usage) {
        self.cpu.hi += maybe.cpu.hi;
        self.cpu_of_gpu_jobs.hi += maybe.cpu_of_gpu_jobs.hi;
        for (rsc, span) in &maybe.gpus {
            match self.gpus.iter_mut().find(|(t, _)| t == rsc) {
                Some((_, s)) => s.hi += span.hi,
                None => self.gpus.push((
                    rsc.clone(),
                    Span {
                        lo: 0.0,
                        hi: span.hi,
                    },
                )),
            }
        }
    }

    fn on(&self, rsc: &ResourceType, gpu_cpu: bool) -> Span {
        match rsc {
            ResourceType::Cpu if gpu_cpu => self.cpu.plus(self.cpu_of_gpu_jobs),
            ResourceType::Cpu => self.cpu,
            gpu => self
                .gpus
                .iter()
                .find(|(t, _)| t == gpu)
                .map(|(_, s)| *s)
                .unwrap_or_default(),
        }
    }
}

/// One step of the simulation: `[from, to]` seconds from now, and the use.
#[derive(Clone, Debug, PartialEq)]
struct Step {
    from: f64,
    to: f64,
    usage: Usage,
    /// How far `to` may be off beyond its printed rounding (the end of a
    /// 7.0-7.4 simulation's last step, from a job's GFLOPs and rate).
    to_slack: f64,
}

/// A 7.0-7.4 simulation's picks as printed: `starting` for every job of
/// every pick, `finishes` at the start of the step the job ends in.
#[derive(Clone, Debug, Default, PartialEq)]
struct Picks {
    /// The current pick's time and running set.
    time: f64,
    set: BTreeMap<CompactString, JobResources>,
    /// The job the current step ends with, and that end (seconds from now,
    /// lowest and highest its printed GFLOPs and rate allow).
    ending: Option<(CompactString, f64, f64)>,
    /// Seconds each job ran in the steps closed so far, in how many runs
    /// of consecutive steps (each run's two ends rounded), and the end of
    /// its last step.
    ran: HashMap<CompactString, (f64, usize, f64)>,
}

/// One simulation as its lines told it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Pass {
    /// The time of its start line.
    time: Option<f64>,
    /// The time of a later `[rr_sim] already did at this time` line: a
    /// pass of the same poll (the client's `now`) reuses this simulation,
    /// though the log's stamp may have passed to the next second while
    /// it printed.
    reused_at: Option<f64>,
    /// The time of its `[rr_sim] end` line: a work fetch that ran it for
    /// itself prints its block right after, maybe in the next second.
    ended_at: Option<f64>,
    /// `work_buf total`, as printed (`%.0f`).
    buf_total: f64,
    /// The jobs in the running set now.
    active: BTreeMap<CompactString, JobResources>,
    /// Every job the pass started, with its usage.
    seen: HashMap<CompactString, JobResources>,
    /// The steps so far, and the time the current one started.
    steps: Vec<Step>,
    /// The first pick's use, where a job of it finished at its start (no
    /// step holds it: the client records the idle instances after that
    /// pick all the same, rr_sim.cpp `record_nidle_now`).
    first_pick: Option<Usage>,
    now: f64,
    /// `starting` lines seen (rrsim_detail on).
    starts: usize,
    /// `finishes` lines seen.
    finishes: usize,
    /// Jobs that missed their deadline, with their usage when known.
    misses: Vec<CompactString>,
    /// Why the lines cannot be followed, when so.
    broken: Option<String>,
    /// `at project max concurrent` / `at app max concurrent` lines seen.
    mc_limits: usize,
    /// 7.0-7.4 lines: the picks (the steps then close at the next pick).
    picks: Option<Picks>,
    /// 6.6-6.12 lines (`rr_sim start: work_buf_total`, `finishes after`).
    six: bool,
    /// A `starting` line without usage is of a one-CPU job
    /// ([`Tracker::one_cpu_jobs`]).
    one_cpu: bool,
    /// [`Tracker::busy_sums_misses`].
    busy_sums_misses: bool,
    /// 7.5-on `finishes` lines of a simulation printed without `starting`
    /// lines (rrsim_detail off), in the order printed.
    ends: Vec<End>,
    /// Rebuilt from `finishes` lines alone ([`Pass::rebuilt`]).
    rebuilt: bool,
    /// Then the last start of a job of each resource (`None`: CPU jobs).
    last_starts: Vec<(Option<ResourceType>, f64)>,
}

/// A 7.5-on `[rr_sim] T: JOB finishes (USAGE) (GFLOPS/RATE)` line: when the
/// job left the simulated running set, what it used, the GFLOPs it had
/// left when the simulation began and its simulated rate.
#[derive(Clone, Debug, PartialEq)]
struct End {
    t: f64,
    job: CompactString,
    resources: JobResources,
    gflops: f64,
    rate: f64,
}

impl Pass {
    /// The use of `rsc` the first pick left (`record_nidle_now`).
    fn first_use(&self, rsc: &ResourceType, gpu_cpu: bool) -> Span {
        if let Some(first) = &self.first_pick {
            return first.on(rsc, gpu_cpu);
        }
        self.steps
            .first()
            .filter(|s| s.from <= HALF_CENT)
            .map(|s| s.usage.on(rsc, gpu_cpu))
            .unwrap_or_default()
    }

    /// Closes the step from `now` to `t`. A job that ran past its estimate
    /// has negative FLOPs left and finishes "before" now: the client's step
    /// is then negative (its simulated time goes back), and so is this one.
    fn advance(&mut self, t: f64) {
        if t != self.now && self.room() {
            self.steps.push(Step {
                from: self.now,
                to: t,
                usage: Usage::of(&self.active),
                to_slack: 0.0,
            });
            self.now = t;
        }
    }

    /// False (and the pass broken) once it holds [`MAX_STEPS`] steps.
    fn room(&mut self) -> bool {
        if self.steps.len() >= MAX_STEPS {
            self.broken = Some(format!("it has more than {MAX_STEPS} steps"));
            return false;
        }
        true
    }

    /// A 6.6-6.12 `T: JOB finishes after D` line (rr_sim.cpp at 6.10.60,
    /// `CLIENT_STATE::rr_simulation`): printed at the start of the step,
    /// which ends D seconds later with JOB leaving the running set. The
    /// next step's lines give its start again, rounded on their own: a
    /// start within those roundings of the end is the same instant.
    fn finish_after(&mut self, t: f64, job: &CompactString, after: f64) {
        self.at(t);
        if !self.room() {
            return;
        }
        self.finishes += 1;
        self.steps.push(Step {
            from: t,
            to: t + after,
            usage: Usage::of(&self.active),
            to_slack: HALF_CENT,
        });
        self.now = t + after;
        if self.active.remove(job).is_none() {
            self.broken = Some(format!("{job} finishes without a `starting` line"));
        }
    }

    /// A 6.6-6.12 line at `t`: the same instant as the last step's end
    /// when within their roundings; else a step of the set up to `t`.
    fn at(&mut self, t: f64) {
        if (t - self.now).abs() <= 3.0 * HALF_CENT {
            self.now = t;
        } else {
            self.advance(t);
        }
    }

    /// A 7.0-7.4 `starting` line: the job is in the pick at `t`. A line
    /// after a `finishes`, at another time or naming a job the pick holds
    /// opens the next pick, which closes the step before it.
    fn old_start(&mut self, t: f64, job: &CompactString, resources: &JobResources) {
        if self.starts > 0 && self.picks.is_none() {
            self.broken = Some(MIXED_LINES.into());
            return;
        }
        if !self.room() {
            return;
        }
        let picks = self.picks.get_or_insert_with(|| Picks {
            time: t,
            ..Picks::default()
        });
        let next = picks.ending.is_some() || t != picks.time || picks.set.contains_key(job);
        if next && !picks.set.is_empty() {
            if t < picks.time {
                self.broken = Some(format!(
                    "its picks go back in time ({:.2} after {:.2})",
                    t, picks.time
                ));
                return;
            }
            for job in picks.set.keys() {
                let ran = picks.ran.entry(job.clone()).or_insert((0.0, 0, f64::NAN));
                ran.0 += t - picks.time;
                if ran.2 != picks.time {
                    ran.1 += 1;
                }
                ran.2 = t;
            }
            self.steps.push(Step {
                from: picks.time,
                to: t,
                usage: Usage::of(&picks.set),
                to_slack: 0.0,
            });
            picks.set.clear();
            picks.ending = None;
            picks.time = t;
            self.now = t;
        }
        picks.time = t;
        picks.set.insert(job.clone(), resources.clone());
        self.starts += 1;
        self.seen.insert(job.clone(), resources.clone());
    }

    /// A 7.0-7.4 `finishes` line, printed at the start of the job's last
    /// step with its GFLOPs left at the simulation's start and its rate:
    /// the step ends when the job has run GFLOPs / rate seconds in all.
    fn old_finish(&mut self, job: &CompactString, gflops: f64, rate: f64) {
        let Some(picks) = &mut self.picks else {
            self.broken = Some(NO_DETAIL.into());
            return;
        };
        if !picks.set.contains_key(job) {
            self.broken = Some(format!("{job} finishes outside the pick printed before it"));
            return;
        }
        self.finishes += 1;
        let (ran, runs, _) = picks.ran.get(job).copied().unwrap_or((0.0, 0, 0.0));
        let slack = 2.0 * HALF_CENT * runs as f64;
        let total_lo = (gflops - HALF_CENT).max(0.0) / (rate + HALF_CENT);
        let total_hi = (gflops + HALF_CENT) / (rate - HALF_CENT).max(1e-9);
        let lo = picks.time + (total_lo - ran - slack).max(0.0);
        let hi = picks.time + (total_hi - ran + slack).max(0.0);
        picks.ending = Some((job.clone(), lo, hi));
    }

    /// The steps of a 7.5-on simulation printed without `starting` lines
    /// (rrsim_detail off), from its `finishes` lines alone.
    ///
    /// Rule (rr_sim.cpp `RR_SIM::simulate` and `pick_jobs_to_run`, 7.5 on):
    /// a job's simulated rate is fixed for the whole simulation
    /// (`set_rrsim_flops`) and it progresses only while in the running
    /// set, so it ran GFLOPs / rate seconds before the end its line
    /// prints. A job enters the set only at a pick: at the start, or when
    /// another job has just finished (a time-slice step frees nothing).
    /// Each job is taken as running up to its end from the pick time
    /// within what the printed GFLOPs and rate allow of end − GFLOPs /
    /// rate; where several fit, it may run from the first and surely runs
    /// from the last (its usage widens the steps between); a start no pick
    /// time fits is not followed (the reason says which job). A job that
    /// sat out a pick in between would show as started late: the figures
    /// check ([`picks_fill`]) then refuses the steps, for every job of a
    /// resource with one usage; a limit reached (`at … max concurrent`) is
    /// not followed at all.
    fn rebuilt(&self) -> Result<Pass, String> {
        let mut picks: Vec<f64> = self.ends.iter().map(|e| e.t).collect();
        picks.push(0.0);
        picks.sort_by(f64::total_cmp);
        picks.dedup();
        let mut starts = Vec::with_capacity(self.ends.len());
        for e in &self.ends {
            if e.rate < 2.0 * HALF_CENT || e.gflops < 0.0 || e.t < -HALF_CENT {
                return Err(format!(
                    "it prints no `starting` lines (rrsim_detail off) and {} finishes at {:.2} \
                     with {:.2} GFLOPs left at {:.2} G/s: its run time does not follow",
                    e.job, e.t, e.gflops, e.rate
                ));
            }
            let run_lo = (e.gflops - HALF_CENT).max(0.0) / (e.rate + HALF_CENT);
            let run_hi = (e.gflops + HALF_CENT) / (e.rate - HALF_CENT);
            let (lo, hi) = (
                e.t - run_hi - 2.0 * HALF_CENT,
                e.t - run_lo + 2.0 * HALF_CENT,
            );
            let fit: Vec<f64> = picks
                .iter()
                .copied()
                .filter(|&p| p >= lo && p <= hi.min(e.t))
                .collect();
            let (Some(&first), Some(&last)) = (fit.first(), fit.last()) else {
                return Err(format!(
                    "it prints no `starting` lines (rrsim_detail off): {} ran {:.2} to {:.2} s \
                     ({:.2}G at {:.2}G/s) up to {:.2}, and no pick fits its start (no job \
                     finishes then)",
                    e.job, run_lo, run_hi, e.gflops, e.rate, e.t
                ));
            };
            starts.push((first, last));
        }
        // A sweep over the steps: a job may run from its first possible
        // start and surely runs from its last one, up to its end.
        let mut bounds: Vec<f64> = starts
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .chain(self.ends.iter().map(|e| e.t))
            .collect();
        bounds.sort_by(f64::total_cmp);
        bounds.dedup();
        if bounds.len() > MAX_STEPS {
            return Err(format!("it has more than {MAX_STEPS} steps"));
        }
        let order = |key: &dyn Fn(usize) -> f64| {
            let mut idx: Vec<usize> = (0..self.ends.len()).collect();
            idx.sort_by(|&i, &j| key(i).total_cmp(&key(j)));
            idx
        };
        let by_first = order(&|i| starts[i].0);
        let by_last = order(&|i| starts[i].1);
        let by_end = order(&|i| self.ends[i].t);
        let (mut next_first, mut next_last, mut next_end) = (0, 0, 0);
        let mut sure: BTreeMap<CompactString, JobResources> = BTreeMap::new();
        let mut maybe: BTreeMap<CompactString, JobResources> = BTreeMap::new();
        let mut pass = self.clone();
        pass.ends.clear();
        pass.starts = self.ends.len();
        for (k, &t) in bounds.iter().enumerate() {
            while let Some(&i) = by_first.get(next_first).filter(|&&i| starts[i].0 <= t) {
                next_first += 1;
                let e = &self.ends[i];
                if starts[i].0 < starts[i].1 {
                    maybe.insert(e.job.clone(), e.resources.clone());
                }
            }
            while let Some(&i) = by_last.get(next_last).filter(|&&i| starts[i].1 <= t) {
                next_last += 1;
                let e = &self.ends[i];
                maybe.remove(&e.job);
                sure.insert(e.job.clone(), e.resources.clone());
            }
            while let Some(&i) = by_end.get(next_end).filter(|&&i| self.ends[i].t <= t) {
                next_end += 1;
                let e = &self.ends[i];
                maybe.remove(&e.job);
                sure.remove(&e.job);
            }
            let Some(&to) = bounds.get(k + 1) else {
                break;
            };
            let mut usage = Usage::of(&sure);
            usage.widen(&Usage::of(&maybe));
            pass.steps.push(Step {
                from: t,
                to,
                usage,
                to_slack: 0.0,
            });
        }
        pass.now = bounds.last().copied().unwrap_or(0.0);
        for (e, &(_, start)) in self.ends.iter().zip(&starts) {
            let rsc = e.resources.coproc.as_ref().map(|c| c.rsc.clone());
            match pass.last_starts.iter_mut().find(|(r, _)| *r == rsc) {
                Some((_, last)) => *last = last.max(start),
                None => pass.last_starts.push((rsc, start)),
            }
        }
        pass.rebuilt = true;
        Ok(pass)
    }

    /// The pass with a 7.0-7.4 simulation's last step closed (at the end
    /// its last job's run time gives), or a 7.5-on one printed without
    /// `starting` lines rebuilt from its `finishes` lines; itself
    /// otherwise. Err: why it is not whole.
    fn closed(&self) -> Result<std::borrow::Cow<'_, Pass>, String> {
        if !self.ends.is_empty() {
            const WHY: &str = "the simulation before this block cannot be followed";
            if self.mc_limits > 0 {
                return Err(format!(
                    "{WHY}: it prints no `starting` lines (rrsim_detail off) and reached a \
                     max_concurrent limit ({} `at … max concurrent` line(s)): a job may then sit \
                     out a pick, and no line says when",
                    self.mc_limits
                ));
            }
            return self
                .rebuilt()
                .map(std::borrow::Cow::Owned)
                .map_err(|why| format!("{WHY}: {why}"));
        }
        let Some(picks) = &self.picks else {
            return Ok(std::borrow::Cow::Borrowed(self));
        };
        let Some((job, lo, hi)) = &picks.ending else {
            return Err(format!(
                "the simulation before this block is not whole: its last pick ({} job(s) at \
                 {:.2}) has no `finishes` line after it",
                picks.set.len(),
                picks.time
            ));
        };
        if picks.set.len() != 1 {
            return Err(format!(
                "the simulation before this block is not whole: {job} finishes in a step of {} \
                 jobs and no later pick is printed",
                picks.set.len()
            ));
        }
        let mut pass = self.clone();
        let end = (lo + hi) / 2.0;
        pass.steps.push(Step {
            from: picks.time,
            to: end,
            usage: Usage::of(&picks.set),
            to_slack: (hi - lo) / 2.0,
        });
        pass.now = end;
        pass.picks = None;
        Ok(std::borrow::Cow::Owned(pass))
    }

    /// The slack of the simulation's end beyond its printed rounding.
    fn end_slack(&self) -> f64 {
        self.steps.last().map_or(0.0, |s| s.to_slack)
    }

    fn see(&mut self, message: &Message) {
        if self.broken.is_some() {
            return;
        }
        match message {
            Message::SimStarting {
                t,
                job,
                resources,
                gflops_left,
                ..
            } => {
                let one_cpu = JobResources {
                    ncpus: 1.0,
                    coproc: None,
                };
                let resources = match resources {
                    Some(resources) => resources,
                    None if self.one_cpu => &one_cpu,
                    None => {
                        self.broken =
                            Some("its `starting` lines print no resource usage (6.6)".into());
                        return;
                    }
                };
                if self.seen.len() >= MAX_JOBS {
                    self.broken = Some(format!("it holds more than {MAX_JOBS} jobs"));
                    return;
                }
                if self.six {
                    self.at(*t);
                    self.starts += 1;
                    self.active.insert(job.clone(), resources.clone());
                    self.seen.insert(job.clone(), resources.clone());
                    return;
                }
                if gflops_left.is_none() {
                    self.old_start(*t, job, resources);
                    return;
                }
                if self.picks.is_some() {
                    self.broken = Some(MIXED_LINES.into());
                    return;
                }
                if !self.ends.is_empty() {
                    self.broken = Some(format!(
                        "{job} is `starting` after jobs finished with no `starting` line"
                    ));
                    return;
                }
                self.advance(*t);
                self.starts += 1;
                self.active.insert(job.clone(), resources.clone());
                self.seen.insert(job.clone(), resources.clone());
            }
            Message::SimFinishesAfter { t, job, after, .. } if self.six => {
                self.finish_after(*t, job, *after)
            }
            Message::SimFinishesAfter { .. } | Message::SimFinishes { .. } if self.six => {
                self.broken = Some(SIX_MIXED.into())
            }
            Message::SimFinishes {
                resources: None,
                job,
                gflops_left,
                gflops_rate,
                ..
            } => self.old_finish(job, *gflops_left, *gflops_rate),
            Message::SimFinishes { .. } if self.picks.is_some() => {
                self.broken = Some(MIXED_LINES.into())
            }
            Message::SimFinishesAfter { .. } => self.broken = Some(SIX_MIXED.into()),
            // rrsim_detail off: the job's end, usage, GFLOPs and rate;
            // when it started follows once the whole simulation is in.
            Message::SimFinishes {
                t,
                job,
                resources: Some(resources),
                gflops_left,
                gflops_rate,
            } if self.starts == 0 => {
                if self.ends.len() >= MAX_JOBS {
                    self.broken = Some(format!("it holds more than {MAX_JOBS} jobs"));
                    return;
                }
                self.finishes += 1;
                self.seen.insert(job.clone(), resources.clone());
                self.ends.push(End {
                    t: *t,
                    job: job.clone(),
                    resources: resources.clone(),
                    gflops: *gflops_left,
                    rate: *gflops_rate,
                });
            }
            Message::SimFinishes { t, job, .. } => {
                if self.steps.is_empty() && self.first_pick.is_none() && *t == self.now {
                    self.first_pick = Some(Usage::of(&self.active));
                }
                self.advance(*t);
                self.finishes += 1;
                if self.active.remove(job).is_none() {
                    self.broken = Some(if self.starts == 0 {
                        NO_DETAIL.into()
                    } else {
                        format!("{job} finishes without a `starting` line")
                    });
                }
            }
            // A project or app at its limit leaves the pick while
            // resources are free, so a job picked before may be left out
            // of a later pick, and no line says so: the figures are then
            // bounded, not recomputed.
            Message::AtProjectMaxConcurrent { .. } | Message::AtAppMaxConcurrent { .. } => {
                self.mc_limits += 1;
            }
            Message::MissesDeadline { job, .. } | Message::MissesDeadlineTooLarge { job }
                if self.misses.len() < MAX_JOBS =>
            {
                self.misses.push(job.clone());
            }
            _ => {}
        }
    }
}

/// Whether GPU computing was suspended, as the log tells it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum GpuState {
    /// Not told (a fragment, or the emulator, which toggles it silently).
    #[default]
    Unknown,
    /// The client started, or GPU computation resumed, and no suspension since.
    Running,
    /// `Suspending GPU computation`.
    Suspended,
}

/// The simulations of a log, followed line by line; what a window of a
/// long session carries over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tracker {
    /// The last simulation started.
    pass: Option<Pass>,
    /// The usable CPUs the log printed last.
    ncpus: Option<u32>,
    /// Whether GPU computing is suspended: while it is, the simulation
    /// leaves GPU jobs' CPUs out (`RR_SIM::activate`, `gpu_suspend_reason`).
    gpu: GpuState,
    /// The last second a scheduling pass listed a GPU job in its run list.
    gpu_job_listed: Option<f64>,
    /// Every job uses one CPU: a 6.x emulator's run, whose harness binds
    /// each job to its app's one CPU version (6.6's `starting` lines print
    /// no usage).
    pub one_cpu_jobs: bool,
    /// 6.6's busy time: every deadline miss adds its remaining time
    /// (`RSC_WORK_FETCH::update_busy_time`), which no line prints.
    pub busy_sums_misses: bool,
}

impl Tracker {
    /// Whether GPU computing was suspended at `time`. A scheduling pass
    /// puts a GPU job in its run list only while it is not (cpu_sched.cpp
    /// `PROC_RESOURCES::can_schedule`, `if (gpu_suspend_reason) return
    /// false`, 7.0 on), and the client's simulation, run list and work
    /// fetch of one second share one state: a GPU job listed in that
    /// second tells what no suspend or resume line may.
    fn gpu_at(&self, time: Option<f64>) -> GpuState {
        match self.gpu {
            GpuState::Unknown if time.is_some() && self.gpu_job_listed == time => GpuState::Running,
            state => state,
        }
    }

    /// Takes one line.
    pub fn see(&mut self, event: &LogEvent) {
        if let Some(n) = printed_ncpus(&event.message) {
            self.ncpus = Some(n);
        }
        match &event.message {
            Message::AddToRunList { rsc: Some(rsc), .. } if *rsc != ResourceType::Cpu => {
                self.gpu_job_listed = event.time.secs();
            }
            Message::AddToRunList {
                schedule_kind: Some(ScheduleKind::CoprocEdf | ScheduleKind::CoprocFifo),
                ..
            } => self.gpu_job_listed = event.time.secs(),
            Message::JobListEntry {
                resources:
                    Some(JobResources {
                        coproc: Some(_), ..
                    }),
                ..
            } => self.gpu_job_listed = event.time.secs(),
            Message::SimAlreadyDone => {
                if let Some(pass) = &mut self.pass {
                    pass.reused_at = event.time.secs();
                }
            }
            Message::RrSimStart { total, .. } => {
                self.pass = Some(Pass {
                    time: event.time.secs(),
                    buf_total: *total,
                    ..Pass::default()
                });
            }
            // A 6.6-6.12 simulation: its steps end `after` their start.
            Message::RrSimStartTotal { work_buf_total, .. } => {
                self.pass = Some(Pass {
                    time: event.time.secs(),
                    buf_total: *work_buf_total,
                    six: true,
                    one_cpu: self.one_cpu_jobs,
                    busy_sums_misses: self.busy_sums_misses,
                    ..Pass::default()
                });
            }
            // The client prints its GPU suspensions (cs_prefs.cpp
            // check_suspend_processing, log flag task, on by default); it
            // starts with none.
            Message::ClientStart { .. } | Message::ResumingGpuComputation => {
                self.gpu = GpuState::Running
            }
            Message::SuspendingGpuComputation { .. } => self.gpu = GpuState::Suspended,
            message => {
                if let Some(pass) = &mut self.pass {
                    if matches!(message, Message::RrSimEnd) {
                        pass.ended_at = event.time.secs();
                    }
                    pass.see(message);
                }
            }
        }
    }
}

/// A block's figures recomputed, with the rule; or why not.
pub type Refigured = Result<(Decision, Reason), String>;

/// Every whole work-fetch state block from `from` on, its figures
/// recomputed from the simulation before it (keyed by the block's event
/// index); `carry` is the tracker as the lines before `from` left it.
pub fn refigure_from(
    events: &[LogEvent],
    points: &[RecordedPoint],
    carry: Option<&Tracker>,
    rule: GpuCpuRule,
    from: usize,
) -> BTreeMap<usize, Refigured> {
    refigure_to(events, points, carry, rule, from, None).0
}

/// [`refigure_from`], reading on to `until` (not included) when given:
/// with the tracker as the lines before it left it, for the next window.
pub fn refigure_to(
    events: &[LogEvent],
    points: &[RecordedPoint],
    carry: Option<&Tracker>,
    rule: GpuCpuRule,
    from: usize,
    until: Option<usize>,
) -> (BTreeMap<usize, Refigured>, Option<Tracker>) {
    let mut out = BTreeMap::new();
    let mut tracker = carry.cloned().unwrap_or_default();
    let mut at_until = None;
    let mut seen = from;
    for point in points.iter().filter(|p| p.event_idx >= from) {
        let Decision::FetchState(dump) = &point.decision else {
            continue;
        };
        if point.event_idx > seen {
            read_lines(
                events,
                &mut tracker,
                seen..point.event_idx,
                until,
                &mut at_until,
            );
        }
        seen = seen.max(point.event_idx);
        if point.cut_before || point.cut_after || !dump.complete {
            continue;
        }
        let time = events.get(point.event_idx).and_then(|e| e.time.secs());
        out.insert(point.event_idx, refigure(&tracker, dump, time, rule));
    }
    if let Some(until) = until.filter(|_| at_until.is_none()) {
        read_lines(
            events,
            &mut tracker,
            seen..until,
            Some(until),
            &mut at_until,
        );
    }
    (out, at_until)
}

/// Reads the lines `range` into `tracker`, keeping a copy of it as the
/// lines before `until` left it when `until` lies in the range (or ends it).
fn read_lines(
    events: &[LogEvent],
    tracker: &mut Tracker,
    range: std::ops::Range<usize>,
    until: Option<usize>,
    at_until: &mut Option<Tracker>,
) {
    let mut at = range.start;
    if let Some(until) = until.filter(|u| range.start <= *u && *u <= range.end) {
        if at_until.is_none() {
            for event in events.get(at..until).unwrap_or_default() {
                tracker.see(event);
            }
            *at_until = Some(tracker.clone());
            at = until;
        }
    }
    for event in events.get(at..range.end).unwrap_or_default() {
        tracker.see(event);
    }
}

/// The tracker after the lines `from..until` (what the next window takes over).
pub fn carry_over(carry: &Tracker, events: &[LogEvent]) -> Tracker {
    let mut tracker = carry.clone();
    for event in events {
        tracker.see(event);
    }
    tracker
}

/// What one resource's figures were recomputed to.
struct Figures {
    nidle: (f64, f64),
    shortfall: (f64, f64),
    saturated: f64,
    saturated_slack: f64,
    busy: Option<f64>,
    /// The recorded figures fit these (within their roundings).
    fits: bool,
    /// How many of the four recorded figures do not.
    misfits: usize,
}

/// Whether, in a simulation rebuilt from `finishes` lines, every step
/// that ends by the last start of a job of `rsc` holds at least `n` of it
/// (for the CPU, GPU jobs' CPUs too when `gpu_cpu`). A pick goes on until
/// the resource is saturated or no job of it is left (rr_sim.cpp
/// `pick_jobs_to_run`; a project at its GPU exclusions' limit leaves it
/// first), and stops at the first job that reaches `n`: with one usage for
/// every job of the resource a pick holds less than `n` + that usage, so a
/// job that sat out a pick, which the rebuilt steps show as not yet
/// started, leaves its step below `n` while it starts later.
fn picks_fill(pass: &Pass, rsc: &ResourceType, gpu_cpu: bool, n: f64) -> bool {
    let key = match rsc {
        ResourceType::Cpu => None,
        gpu => Some(gpu.clone()),
    };
    let Some(&(_, last)) = pass.last_starts.iter().find(|(r, _)| *r == key) else {
        return true;
    };
    pass.steps
        .iter()
        .filter(|s| s.to <= last && s.to > s.from)
        .all(|s| s.usage.on(rsc, gpu_cpu).hi >= n - IDLE_EPS)
}

/// `[lo, hi]` as a centre and a half-width.
fn centred(lo: f64, hi: f64) -> (f64, f64) {
    ((lo + hi) / 2.0, (hi - lo) / 2.0)
}

/// One resource's figures for `n` instances (spec §4.5 step 6, the tail,
/// §4.6), compared with the printed ones.
fn figures(
    pass: &Pass,
    rsc: &ResourceType,
    gpu_cpu: bool,
    n: f64,
    buf: f64,
    printed: &RscState,
) -> Figures {
    let used0 = pass.first_use(rsc, gpu_cpu);
    let nidle = ((n - used0.hi).max(0.0), (n - used0.lo).max(0.0));
    // Shortfall over the steps, then the tail (nothing runs: n idle).
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    // Saturated time: the end of the last step surely saturated, or of a
    // later one that may be.
    let mut last_sure = (0.0f64, 0.0f64);
    let mut maybe: Vec<(f64, f64)> = Vec::new();
    for step in &pass.steps {
        let use_ = step.usage.on(rsc, gpu_cpu);
        let (idle_lo, idle_hi) = (n - use_.hi, n - use_.lo);
        if step.from < buf {
            // Negative for a step that goes back (negative FLOPs left).
            let dt = step.to.min(buf) - step.from;
            let time_slack = (2.0 * HALF_CENT + step.to_slack) * idle_hi.max(0.0);
            let (a, b) = if idle_lo > IDLE_EPS {
                (idle_lo * dt, idle_hi * dt)
            } else if idle_hi > IDLE_EPS {
                (0.0, idle_hi * dt)
            } else {
                (0.0, 0.0)
            };
            lo += a.min(b) - time_slack;
            hi += a.max(b) + time_slack;
        }
        if idle_hi < IDLE_EPS {
            last_sure = (step.to, step.to_slack);
            maybe.clear();
        } else if idle_lo < IDLE_EPS {
            maybe.push((step.to, step.to_slack));
        }
    }
    if pass.now < buf {
        let dt = buf - pass.now;
        let time_slack = n * (2.0 * HALF_CENT + pass.end_slack());
        lo += n * dt - time_slack;
        hi += n * dt + time_slack;
    }
    maybe.push(last_sure);
    let off = |(t, slack): (f64, f64)| ((t - printed.saturated).abs() - slack).max(0.0);
    let (saturated, saturated_slack) = maybe
        .iter()
        .copied()
        .min_by(|&a, &b| off(a).total_cmp(&off(b)))
        .unwrap_or(last_sure);
    let saturated_slack = 2.0 * HALF_CENT + saturated_slack;
    // Busy time: the missed jobs' whole instances must cover every
    // instance for the least-busy one to be busy.
    let covered: f64 = pass
        .misses
        .iter()
        .filter_map(|job| pass.seen.get(job))
        .map(|r| match (rsc, &r.coproc) {
            (ResourceType::Cpu, _) => r.ncpus,
            (gpu, Some(c)) if c.rsc == *gpu => c.usage,
            _ => 0.0,
        })
        .map(|u| (u + HALF_CENT).floor())
        .sum();
    let unknown_misses = pass.misses.iter().any(|j| !pass.seen.contains_key(j));
    let busy = if pass.busy_sums_misses {
        // 6.6: 0 without a miss, else the misses' remaining times.
        pass.misses.is_empty().then_some(0.0)
    } else {
        (!unknown_misses && covered < n).then_some(0.0)
    };
    let within = |v: f64, (lo, hi): (f64, f64)| v >= lo - HALF_CENT && v <= hi + HALF_CENT;
    let misfits = [
        within(printed.nidle, nidle),
        within(printed.shortfall, (lo, hi)),
        (printed.saturated - saturated).abs() <= saturated_slack,
        busy.is_none_or(|b| (printed.busy - b).abs() <= HALF_CENT),
    ]
    .iter()
    .filter(|ok| !**ok)
    .count();
    let fits = misfits == 0;
    Figures {
        nidle,
        shortfall: (lo, hi),
        saturated,
        saturated_slack,
        busy,
        fits,
        misfits,
    }
}

/// The instance counts to try for a resource: the usable CPUs the log
/// printed, or what the printed idle count gives, or every count up to the
/// first pick's usage; with where they come from. A `bounded` pass (fewer
/// jobs may have run than its lines hold) leaves open every count from the
/// printed idle count up to it plus the first pick's usage.
fn instance_counts(
    pass: &Pass,
    rsc: &ResourceType,
    gpu_cpu: bool,
    printed: &RscState,
    ncpus: Option<u32>,
    bounded: bool,
) -> (Vec<f64>, String) {
    if let (ResourceType::Cpu, Some(n)) = (rsc, ncpus) {
        return (
            vec![f64::from(n)],
            format!("{n} usable CPUs (printed before)"),
        );
    }
    let used0 = pass.first_use(rsc, gpu_cpu);
    if bounded {
        let lo = (printed.nidle - HALF_CENT).ceil().max(1.0);
        let hi = (printed.nidle + HALF_CENT + used0.hi)
            .floor()
            .min(lo + 1024.0);
        let counts: Vec<f64> = (lo as u32..=hi.max(0.0) as u32).map(f64::from).collect();
        return (
            counts,
            format!("the count not printed: each from {lo} to {hi} tried"),
        );
    }
    if printed.nidle > HALF_CENT {
        let lo = (printed.nidle - HALF_CENT + used0.lo).ceil().max(1.0);
        let hi = (printed.nidle + HALF_CENT + used0.hi).floor();
        let counts: Vec<f64> = (lo as u32..=hi.max(0.0) as u32).map(f64::from).collect();
        return (counts, "from the idle count the block printed".into());
    }
    let hi = (used0.hi + HALF_CENT).floor().clamp(1.0, 1024.0) as u32;
    (
        (1..=hi).map(f64::from).collect(),
        format!(
            "the block prints 0 idle and no line the count: the first of 1 to {hi} that fits, \
             else the one that leaves the fewest figures off"
        ),
    )
}

/// The resource a block's state names.
fn resource_of(printed: &RscState) -> Result<ResourceType, String> {
    ResourceType::from_name(&printed.rsc)
        .ok_or_else(|| format!("a resource block without a name ({:?})", printed.rsc))
}

/// Whether GPU jobs' CPUs count in `rsc`'s figures, each way the log
/// leaves open: from 7.16 on (`rule`), and only while GPU computing is not
/// suspended.
fn gpu_cpu_ways(
    rsc: &ResourceType,
    rule: GpuCpuRule,
    gpu: GpuState,
    has_gpu_jobs: bool,
) -> Vec<bool> {
    match (rsc, rule, gpu) {
        (ResourceType::Cpu, _, _) if !has_gpu_jobs => vec![true],
        (ResourceType::Cpu, GpuCpuRule::Dropped, _)
        | (ResourceType::Cpu, _, GpuState::Suspended) => {
            vec![false]
        }
        (ResourceType::Cpu, GpuCpuRule::Counted, GpuState::Running) => vec![true],
        (ResourceType::Cpu, _, _) => vec![true, false],
        _ => vec![true],
    }
}

/// How a CPU figure took GPU jobs' CPUs, when the pass has GPU jobs.
fn gpu_cpu_note(rsc: &ResourceType, has_gpu_jobs: bool, gpu_cpu: bool) -> &'static str {
    match (rsc, has_gpu_jobs, gpu_cpu) {
        (ResourceType::Cpu, true, true) => ", GPU jobs' CPUs counted",
        (ResourceType::Cpu, true, false) => {
            ", GPU jobs' CPUs left out (before 7.16, or GPU computing suspended)"
        }
        _ => "",
    }
}

/// What one resource's figures may be when a job started earlier may sit
/// out a later pick: fewer jobs run than the lines' timeline holds, never
/// more, so at least its idle instances and shortfall, at most its
/// saturated time (and at most every instance idle over the buffer).
struct Bounds {
    nidle: (f64, f64),
    shortfall: (f64, f64),
    saturated: (f64, f64),
}

impl Bounds {
    fn of(pass: &Pass, rsc: &ResourceType, gpu_cpu: bool, n: f64, buf: f64) -> Bounds {
        let used0 = pass.first_use(rsc, gpu_cpu);
        let mut least = 0.0f64;
        let mut saturated = 0.0f64;
        for step in &pass.steps {
            let idle_lo = n - step.usage.on(rsc, gpu_cpu).hi;
            if step.from < buf {
                if idle_lo > IDLE_EPS {
                    least += idle_lo * (step.to.min(buf) - step.from);
                }
                // Its two ends each rounded, with up to every instance idle.
                least -= n * 2.0 * HALF_CENT;
            }
            // Saturated in the client only where surely so by the lines'
            // usage (the client's is at most that).
            if idle_lo < IDLE_EPS {
                saturated = saturated.max(step.to);
            }
        }
        if pass.now < buf {
            least += n * (buf - pass.now) - n * 2.0 * HALF_CENT;
        }
        Bounds {
            nidle: ((n - used0.hi).max(0.0), n),
            shortfall: (least.max(0.0), n * buf),
            saturated: (0.0, saturated + 2.0 * HALF_CENT),
        }
    }

    /// Whether the printed figures are within them (each printed to two
    /// decimals, compared as `compare::values_agree` does).
    fn hold(&self, printed: &RscState) -> bool {
        let within = |v: f64, (lo, hi): (f64, f64)| v >= lo - HALF_CENT && v <= hi + HALF_CENT;
        within(printed.nidle, self.nidle)
            && within(printed.shortfall, self.shortfall)
            && within(printed.saturated, self.saturated)
    }
}

/// What a simulation that reached a max_concurrent limit gives.
const MC_BOUNDED: &str = "the simulation printed before the block reached a max_concurrent \
     limit (`at project max concurrent` / `at app max concurrent`): a project at its limit \
     leaves the pick while instances are free, so a job started earlier may sit out a later \
     pick and no line says which (rr_sim.cpp RR_SIM::pick_jobs_to_run, \
     max_concurrent_exceeded); taking each job as running from its `starting` to its \
     `finishes` line, at most what ran, bounds the figures (work_fetch.cpp \
     RSC_WORK_FETCH::update_stats): idle now and shortfall at least, saturated time at most \
     what those give";

/// A block whose simulation reached a max_concurrent limit, held to the
/// bounds its lines give: a figure outside them diverges; figures within
/// them are not checked (which jobs sat out is not told).
fn bounded(
    tracker: &Tracker,
    pass: &Pass,
    dump: &FetchDump,
    rule: GpuCpuRule,
    buf: f64,
    has_gpu_jobs: bool,
) -> Refigured {
    if pass.steps.iter().any(|s| s.to < s.from) {
        return Err(format!(
            "{MC_BOUNDED}; but a job past its estimate steps the simulated time back, where \
             more idle instances give less shortfall: not bounded"
        ));
    }
    let mut resources = Vec::with_capacity(dump.resources.len());
    let mut notes = Vec::new();
    let mut outside = Vec::new();
    for printed in &dump.resources {
        let rsc = resource_of(printed)?;
        let mut tried: Vec<(bool, f64, Bounds)> = Vec::new();
        let mut source = String::new();
        for gpu_cpu in gpu_cpu_ways(&rsc, rule, tracker.gpu_at(pass.time), has_gpu_jobs) {
            let (counts, from) = instance_counts(pass, &rsc, gpu_cpu, printed, tracker.ncpus, true);
            source = from;
            tried.extend(
                counts
                    .into_iter()
                    .map(|n| (gpu_cpu, n, Bounds::of(pass, &rsc, gpu_cpu, n, buf))),
            );
        }
        let Some(pick) = tried
            .iter()
            .position(|(_, _, b)| b.hold(printed))
            .or_else(|| (!tried.is_empty()).then_some(0))
        else {
            return Err(format!(
                "{MC_BOUNDED}; {}: no instance count fits the printed idle count {:.2}",
                printed.rsc, printed.nidle
            ));
        };
        let (gpu_cpu, n, b) = &tried[pick];
        if !b.hold(printed) {
            outside.push(printed.rsc.to_string());
        }
        notes.push(format!(
            "{}: {n} instances ({source}){}: idle now {:.2} to {:.2}, shortfall {:.2} to {:.2}, \
             saturated at most {:.2}",
            printed.rsc,
            gpu_cpu_note(&rsc, has_gpu_jobs, *gpu_cpu),
            b.nidle.0,
            b.nidle.1,
            b.shortfall.0,
            b.shortfall.1,
            b.saturated.1,
        ));
        let (nidle, nidle_slack) = centred(b.nidle.0, b.nidle.1);
        let (shortfall, shortfall_slack) = centred(b.shortfall.0, b.shortfall.1);
        let (saturated, saturated_slack) = centred(b.saturated.0, b.saturated.1);
        resources.push(RscState {
            nidle,
            shortfall,
            saturated,
            busy: printed.busy,
            // Never 0: a bound is compared as an interval, whatever the
            // relative tolerance.
            slack: RscSlack {
                nidle: nidle_slack.max(1e-9),
                shortfall: shortfall_slack.max(1e-9),
                saturated: saturated_slack.max(1e-9),
                busy: 0.0,
            },
            ..printed.clone()
        });
    }
    let mut replayed = dump.clone();
    replayed.resources = resources;
    let replayed = Decision::FetchState(replayed);
    // Reported only where the comparison will show it off.
    let printed_decision = Decision::FetchState(dump.clone());
    let printed = printed_decision.fields();
    let shows = printed
        .iter()
        .zip(replayed.fields())
        .any(|(a, b)| !super::compare::values_agree(&a.value, &b.value, 1e-6));
    if outside.is_empty() || !shows {
        return Err(format!(
            "{MC_BOUNDED}; the printed figures are within those bounds: {}",
            notes.join("; ")
        ));
    }
    Ok((
        replayed,
        format!(
            "§4.5/§4.6 {MC_BOUNDED}; {} outside them: {}; the projects' REC, priorities, \
             shares, reasons and busy times restated, not recomputed",
            outside.join(", "),
            notes.join("; ")
        )
        .into(),
    ))
}

/// The block's figures from the tracker's last simulation.
fn refigure(tracker: &Tracker, dump: &FetchDump, time: Option<f64>, rule: GpuCpuRule) -> Refigured {
    let (pass, old) = followed_pass(tracker, time)?;
    let pass = pass.as_ref();
    // 6.6-6.12 count every job's CPUs in the CPU use, GPU suspended or not
    // (RR_SIM_STATUS::activate at 6.10.60).
    let (rule, gpu) = match (old, pass.six) {
        (true, _) => (GpuCpuRule::Dropped, tracker.gpu_at(pass.time)),
        (_, true) => (GpuCpuRule::Counted, GpuState::Running),
        _ => (rule, tracker.gpu_at(pass.time)),
    };
    let buf = match dump.buffer {
        Some((min, additional)) => (min + additional).max(1.0),
        None => pass.buf_total.max(1.0),
    };
    let has_gpu_jobs = pass
        .steps
        .iter()
        .any(|s| s.usage.cpu_of_gpu_jobs.hi > HALF_CENT + IDLE_EPS);
    if pass.mc_limits > 0 {
        return bounded(tracker, pass, dump, rule, buf, has_gpu_jobs);
    }
    let block = Block {
        pass,
        ncpus: tracker.ncpus,
        rule,
        gpu,
        has_gpu_jobs,
        buf,
    };
    let mut notes = Vec::new();
    let resources = dump
        .resources
        .iter()
        .map(|printed| block.resource(printed, &mut notes))
        .collect::<Result<Vec<_>, _>>()?;
    let mut replayed = dump.clone();
    replayed.resources = resources;
    let reason = StateReason::of(pass, old, buf, notes);
    Ok((
        Decision::FetchState(replayed),
        Reason::deferred(move || reason.to_string()),
    ))
}

/// The simulation a block reports, closed, when the log lets it be
/// followed whole; with whether it is in the 7.0-7.4 form (every pick
/// printed).
fn followed_pass(
    tracker: &Tracker,
    time: Option<f64>,
) -> Result<(std::borrow::Cow<'_, Pass>, bool), String> {
    let Some(pass) = &tracker.pass else {
        return Err("no `[rr_sim] start` line of the simulation this block reports".into());
    };
    // Every simulation the client runs prints its start, and one it
    // reuses (the same poll, the client's `now`) prints `already did at
    // this time` from 7.16 on, or nothing: the last one is the block's
    // where it started, ended or was reused at the block's second (its
    // lines may run into the next second).
    let at_block = |t: Option<f64>| t.is_some() && t == time;
    if pass.time.is_none()
        || !(at_block(pass.time) || at_block(pass.reused_at) || at_block(pass.ended_at))
    {
        return Err(
            "the simulation this block reports (run at its own second) is not in the log".into(),
        );
    }
    if let Some(why) = &pass.broken {
        return Err(format!(
            "the simulation before this block cannot be followed: {why}"
        ));
    }
    if !pass.active.is_empty() {
        return Err(format!(
            "the simulation before this block is not whole: {} job(s) started and never finished",
            pass.active.len()
        ));
    }
    // 7.0-7.4 print every pick: the last step ends when its job has run
    // its GFLOPs at its rate; and they reset the CPU use after the GPU
    // jobs (before 7.16).
    let old = pass.picks.is_some();
    Ok((pass.closed()?, old))
}

/// A whole simulation and what the figures of its block rest on.
struct Block<'a> {
    pass: &'a Pass,
    /// The usable CPUs the log printed last.
    ncpus: Option<u32>,
    rule: GpuCpuRule,
    gpu: GpuState,
    has_gpu_jobs: bool,
    /// The buffer's length, seconds.
    buf: f64,
}

impl Block<'_> {
    /// One resource's figures recomputed, with a note of what they rest on.
    fn resource(&self, printed: &RscState, notes: &mut Vec<RscNote>) -> Result<RscState, String> {
        let rsc = resource_of(printed)?;
        let mut outcomes = Vec::new();
        for gpu_cpu in gpu_cpu_ways(&rsc, self.rule, self.gpu, self.has_gpu_jobs) {
            let (n, f, source) = self.best_count(&rsc, gpu_cpu, printed)?;
            outcomes.push((gpu_cpu, n, f, source));
        }
        if outcomes.len() == 2 && outcomes[0].2.fits != outcomes[1].2.fits {
            let mut missing = Vec::new();
            if self.rule == GpuCpuRule::Unknown {
                missing.push(
                    "the client version (before 7.16, commit 40f0cb44f4, the simulation left \
                     GPU jobs' CPUs out; its start-up lines or --client-version tell)",
                );
            }
            if self.gpu == GpuState::Unknown {
                missing.push(
                    "whether GPU computing was suspended (then GPU jobs' CPUs are left out; \
                     the `Suspending GPU computation` and `Resuming GPU computation` lines \
                     before it, the client's start, or a GPU job in the run list of that \
                     second (cpu_sched_debug) tell)",
                );
            }
            return Err(format!(
                "the CPU figures fit only with GPU jobs' CPUs {} and rest on {}",
                if outcomes[0].2.fits {
                    "counted"
                } else {
                    "left out"
                },
                missing.join(" and ")
            ));
        }
        let (gpu_cpu, n, f, source) = outcomes.swap_remove(0);
        let gpu_note = gpu_cpu_note(&rsc, self.has_gpu_jobs, gpu_cpu);
        let (nidle, nidle_slack) = centred(f.nidle.0, f.nidle.1);
        let (shortfall, shortfall_slack) = centred(f.shortfall.0, f.shortfall.1);
        let (busy, busy_slack) = match f.busy {
            Some(b) => (b, 0.0),
            None => {
                notes.push(RscNote::BusyRestated {
                    rsc: printed.rsc.clone(),
                });
                (printed.busy, 0.0)
            }
        };
        notes.push(RscNote::Figures {
            rsc: printed.rsc.clone(),
            n,
            source,
            gpu_note,
            nidle: f.nidle,
            shortfall: f.shortfall,
            saturated: f.saturated,
            busy: f.busy,
        });
        Ok(RscState {
            nidle,
            shortfall,
            saturated: f.saturated,
            busy,
            slack: RscSlack {
                nidle: nidle_slack,
                shortfall: shortfall_slack,
                saturated: f.saturated_slack,
                busy: busy_slack,
            },
            ..printed.clone()
        })
    }

    /// The instance count whose figures fit the printed ones (else the one
    /// closest to them), its figures and where the count comes from.
    fn best_count(
        &self,
        rsc: &ResourceType,
        gpu_cpu: bool,
        printed: &RscState,
    ) -> Result<(f64, Figures, String), String> {
        let pass = self.pass;
        let (mut counts, source) = instance_counts(pass, rsc, gpu_cpu, printed, self.ncpus, false);
        if pass.rebuilt {
            counts.retain(|&n| picks_fill(pass, rsc, gpu_cpu, n));
            if counts.is_empty() {
                return Err(format!(
                    "the simulation before this block cannot be followed: it prints no \
                     `starting` lines (rrsim_detail off), and with every {} count tried, \
                     the steps its `finishes` lines give leave {} idle while a job of it \
                     starts later: a job sat out a pick (the usages or a limit differ), and \
                     no line says when",
                    printed.rsc, printed.rsc
                ));
            }
        }
        if counts.is_empty() {
            return Err(format!(
                "{}: no instance count fits the printed idle count {:.2}",
                printed.rsc, printed.nidle
            ));
        }
        let tried: Vec<(f64, Figures)> = counts
            .iter()
            .map(|&n| (n, figures(pass, rsc, gpu_cpu, n, self.buf, printed)))
            .collect();
        // The first count that fits; else the one that leaves the
        // fewest figures off (the last of those), so that a divergence
        // names the figure that is off, not those a wrong count moves.
        let pick = tried.iter().position(|(_, f)| f.fits).unwrap_or_else(|| {
            let fewest = tried.iter().map(|(_, f)| f.misfits).min().unwrap_or(0);
            tried
                .iter()
                .rposition(|(_, f)| f.misfits == fewest)
                .unwrap_or(tried.len() - 1)
        });
        let (n, f) = tried.into_iter().nth(pick).ok_or("no instance count")?;
        Ok((n, f, source))
    }
}

/// What one resource's recomputed figures rested on (a block's reason
/// is written only when a report reads it).
enum RscNote {
    /// Its busy time is restated.
    BusyRestated { rsc: String },
    /// Its instance count and figures.
    Figures {
        rsc: String,
        n: f64,
        source: String,
        gpu_note: &'static str,
        nidle: (f64, f64),
        shortfall: (f64, f64),
        saturated: f64,
        busy: Option<f64>,
    },
}

impl std::fmt::Display for RscNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RscNote::BusyRestated { rsc } => write!(
                f,
                "{rsc} busy time restated (deadline misses: it rests on remaining runtimes the \
                 log does not print)"
            ),
            RscNote::Figures {
                rsc,
                n,
                source,
                gpu_note,
                nidle,
                shortfall,
                saturated,
                busy,
            } => {
                write!(
                    f,
                    "{rsc}: {n} instances ({source}){gpu_note}: idle now {:.2} to {:.2}, \
                     shortfall {:.2} to {:.2}, saturated {saturated:.2}",
                    nidle.0, nidle.1, shortfall.0, shortfall.1,
                )?;
                match busy {
                    Some(busy) => write!(f, ", busy {busy:.2}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// What a block's recomputed figures rested on: the simulation's shape
/// and each resource's note.
struct StateReason {
    six: bool,
    old: bool,
    rebuilt: bool,
    steps: usize,
    jobs: usize,
    buf: f64,
    now: f64,
    end_slack: f64,
    notes: Vec<RscNote>,
}

impl StateReason {
    fn of(pass: &Pass, old: bool, buf: f64, notes: Vec<RscNote>) -> Self {
        StateReason {
            six: pass.six,
            old,
            rebuilt: pass.rebuilt,
            steps: pass.steps.len(),
            jobs: pass.seen.len(),
            buf,
            now: pass.now,
            end_slack: pass.end_slack(),
            notes,
        }
    }
}

impl std::fmt::Display for StateReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (section, functions, restated) = if self.six {
            (
                "policy-legacy B",
                "rr_sim.cpp CLIENT_STATE::rr_simulation, work_fetch.cpp \
                 RSC_WORK_FETCH::accumulate_shortfall and update_saturated_time at 6.10.60",
                "the projects' shares and debts",
            )
        } else {
            (
                "§4.5/§4.6",
                "rr_sim.cpp RR_SIM::simulate, work_fetch.cpp RSC_WORK_FETCH::update_stats",
                "the projects' REC, priorities, shares and reasons",
            )
        };
        write!(
            f,
            "{section} the figures of the simulation printed before the block ({} step(s), {} \
             job(s), buffer {:.2} s; {functions}), within the roundings of its printed times and \
             usages",
            self.steps, self.jobs, self.buf,
        )?;
        if self.six {
            f.write_str(
                " (6.6-6.12 lines: each step ends `after` its printed start; every job's CPUs \
                 counted)",
            )?;
        } else if self.old {
            write!(
                f,
                " (7.0-7.4 lines: each pick printed whole; the last step ends when its job has \
                 run its GFLOPs at its rate, at {:.2} ± {:.2} s)",
                self.now, self.end_slack
            )?;
        } else if self.rebuilt {
            f.write_str(
                " (`finishes` lines only, rrsim_detail off: each job ran its GFLOPs at its rate \
                 up to its end, from the pick time that fits, or may run from the first of \
                 several)",
            )?;
        }
        f.write_str(": ")?;
        for (k, note) in self.notes.iter().enumerate() {
            if k > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{note}")?;
        }
        write!(f, "; {restated} restated, not recomputed")
    }
}

#[cfg(test)]
mod tests {
    use super::super::compare::values_agree;
    use super::*;
    use crate::trace::FileKind;

    const START: &str =
        "02:00:00 [---] Starting BOINC client version 7.20.5 for x86_64-pc-linux-gnu\n";

    /// Four 1-CPU jobs from 0 to 3840 s (the reference buffer_small at
    /// 02:56:00) after `head`, with `extra` lines before the finishes and
    /// `after` after them, in the emulator's layout.
    fn pass(head: &str, extra: &str, after: &str) -> Vec<LogEvent> {
        let starts: String = (0..4)
            .map(|k| {
                format!("02:56:00 [P1] [rr_sim_detail] 0.00: starting P1_{k} (1.00 CPU) (15360.00G/4.00G)\n")
            })
            .collect();
        let finishes: String = (0..4)
            .map(|k| {
                format!("02:56:00 [P1] [rr_sim] 3840.00: P1_{k} finishes (1.00 CPU) (15360.00G/4.00G)\n")
            })
            .collect();
        let text = format!(
            "{head}02:56:00 [---] [rr_sim] start: work_buf min 1728 additional 4320 total 6048 \
             on_frac 1.000 active_frac 1.000\n{starts}{extra}{finishes}{after}\
             02:56:00 [---] [rr_sim] end\n"
        );
        crate::replay::test_events(&text, FileKind::EmulatorLog)
    }

    fn tracker(events: &[LogEvent]) -> Tracker {
        let mut tracker = Tracker::default();
        for event in events {
            tracker.see(event);
        }
        tracker
    }

    fn dump(rsc: &[(&str, f64, f64, f64, f64)]) -> FetchDump {
        FetchDump {
            buffer: Some((1728.0, 4320.0)),
            resources: rsc
                .iter()
                .map(|&(name, shortfall, nidle, saturated, busy)| RscState {
                    rsc: name.into(),
                    shortfall,
                    nidle,
                    saturated,
                    busy,
                    ..RscState::default()
                })
                .collect(),
            complete: true,
            ..FetchDump::default()
        }
    }

    fn refigured(events: &[LogEvent], printed: &FetchDump, rule: GpuCpuRule) -> Refigured {
        let time = events.last().and_then(|e| e.time.secs());
        refigure(&tracker(events), printed, time, rule)
    }

    /// The printed fields the recomputed block does not agree with.
    fn disagreeing(events: &[LogEvent], printed: &FetchDump, rule: GpuCpuRule) -> Vec<String> {
        let (decision, _) = refigured(events, printed, rule).expect("recomputed");
        let recorded_decision = Decision::FetchState(printed.clone());
        let recorded = recorded_decision.fields();
        recorded
            .iter()
            .zip(&decision.fields())
            .filter(|(a, b)| !values_agree(&a.value, &b.value, 1e-6))
            .map(|(a, _)| a.name.to_string())
            .collect()
    }

    fn why_not(events: &[LogEvent], printed: &FetchDump, rule: GpuCpuRule) -> String {
        refigured(events, printed, rule).expect_err("not recomputed")
    }

    #[test]
    fn the_block_follows_from_the_jobs_start_and_finish_lines() {
        // 4 CPUs busy to 3840 s, idle to the buffer's end 6048 s:
        // 4 x 2208 = 8832, saturated until 3840 (the client's own block).
        let printed = dump(&[("CPU", 8832.0, 0.0, 3840.0, 0.0)]);
        assert!(disagreeing(&pass("", "", ""), &printed, GpuCpuRule::Counted).is_empty());
        // No CPU count gives 9000 (2208 N, plus under 77 s the two-decimal
        // usages leave open while the jobs run).
        let using = "02:55:00 [---] [cpu_sched_debug] using 4.00 out of 4 CPUs\n";
        let printed = dump(&[("CPU", 9000.0, 0.0, 3840.0, 0.0)]);
        assert_eq!(
            disagreeing(&pass("", "", ""), &printed, GpuCpuRule::Counted),
            ["shortfall"]
        );
        // On 6 CPUs: 2 idle now, 2 x 3840 + 6 x 2208 = 20928, never
        // saturated; a saturation printed at 3840 diverges.
        let six = using.replace("out of 4", "out of 6");
        let printed = dump(&[("CPU", 20928.0, 2.0, 0.0, 0.0)]);
        assert!(disagreeing(&pass(&six, "", ""), &printed, GpuCpuRule::Counted).is_empty());
        let printed = dump(&[("CPU", 20928.0, 2.0, 3840.0, 0.0)]);
        assert_eq!(
            disagreeing(&pass(&six, "", ""), &printed, GpuCpuRule::Counted),
            ["saturated"]
        );
    }

    /// A real client's simulation whose lines run into the next second
    /// (lab run e6: a piggybacked work fetch at 06:11:48 after `already
    /// did at this time`, reusing the scheduling pass's simulation started
    /// at 06:11:47): the block at that second reports it, as it does one
    /// that ended there; a block a second after a simulation wholly before
    /// it does not (that one is not the block's).
    #[test]
    fn a_simulation_whose_lines_cross_a_second_is_the_blocks() {
        let printed = dump(&[("CPU", 8832.0, 0.0, 3840.0, 0.0)]);
        let whole = pass("", "", "");
        let second = |events: &[LogEvent]| events.last().and_then(|e| e.time.secs());
        let next = second(&whole).map(|t| t + 1.0);
        let refigured_at = |events: &[LogEvent], time| {
            refigure(&tracker(events), &printed, time, GpuCpuRule::Counted)
        };
        assert!(refigured_at(&whole, next).is_err());
        let then = |lines: &[LogEvent], text: &str| {
            let mut events = lines.to_vec();
            events.extend(crate::replay::test_events(text, FileKind::EmulatorLog));
            events
        };
        let reused = then(&whole, "02:56:01 [---] [rr_sim] already did at this time\n");
        assert_eq!(second(&reused), next);
        assert!(refigured_at(&reused, next).is_ok());
        let ended = then(&whole[..whole.len() - 1], "02:56:01 [---] [rr_sim] end\n");
        assert_eq!(second(&ended), next);
        assert!(refigured_at(&ended, next).is_ok());
    }

    #[test]
    fn a_gpu_job_s_cpus_count_by_release_and_gpu_suspension() {
        // A GPU job of 0.50 CPU beside the four on 6 CPUs and one GPU, all
        // ending at 3840 s: its CPUs counted, 1.5 idle and 1.5 x 3840 + 6 x
        // 2208 = 19008; left out, 2 idle and 20928.
        let gpu = "02:56:00 [G] [rr_sim_detail] 0.00: starting G_0 (0.50 CPU + 1.00 NVIDIA GPU) (100.00G/10.00G)\n\
                   02:56:00 [G] [rr_sim] 3840.00: G_0 finishes (0.50 CPU + 1.00 NVIDIA GPU) (100.00G/10.00G)\n";
        let using = "02:55:00 [---] [cpu_sched_debug] using 4.00 out of 6 CPUs\n";
        let counted = dump(&[
            ("CPU", 19008.0, 1.5, 0.0, 0.0),
            ("NVIDIA GPU", 2208.0, 0.0, 3840.0, 0.0),
        ]);
        let dropped = dump(&[
            ("CPU", 20928.0, 2.0, 0.0, 0.0),
            ("NVIDIA GPU", 2208.0, 0.0, 3840.0, 0.0),
        ]);
        // A client that started (GPU computing on), 7.16 on: counted.
        let running = pass(&format!("{START}{using}"), gpu, "");
        assert!(disagreeing(&running, &counted, GpuCpuRule::Counted).is_empty());
        assert_eq!(
            disagreeing(&running, &dropped, GpuCpuRule::Counted),
            ["shortfall", "nidle"]
        );
        // Before 7.16: left out.
        assert!(disagreeing(&running, &dropped, GpuCpuRule::Dropped).is_empty());
        // GPU computing suspended: left out.
        let suspended = "02:30:00 [---] Suspending GPU computation - computer is in use\n";
        let events = pass(&format!("{START}{suspended}{using}"), gpu, "");
        assert!(disagreeing(&events, &dropped, GpuCpuRule::Counted).is_empty());
        // Neither told: the figures fit one way only, so not judged, and
        // the reason names what would decide.
        let fragment = pass(using, gpu, "");
        let why = why_not(&fragment, &dropped, GpuCpuRule::Counted);
        assert!(why.contains("whether GPU computing was suspended"), "{why}");
        assert!(!why.contains("the client version"), "{why}");
        let why = why_not(&fragment, &counted, GpuCpuRule::Unknown);
        assert!(why.contains("the client version"), "{why}");
        // A GPU job in the run list of the same second: GPU computing was
        // not suspended (can_schedule), so counted from 7.16 on.
        let listed = "02:56:00 [P2] [cpu_sched_debug] add to run list: G (NVIDIA GPU, FIFO) \
                      (prio -1.000000)\n";
        let fragment = pass(&format!("{using}{listed}"), gpu, "");
        assert!(disagreeing(&fragment, &counted, GpuCpuRule::Counted).is_empty());
        assert_eq!(
            disagreeing(&fragment, &dropped, GpuCpuRule::Counted),
            ["shortfall", "nidle"]
        );
        // One of another second tells nothing of this one.
        let earlier = listed.replace("02:56:00", "02:55:00");
        let fragment = pass(&format!("{using}{earlier}"), gpu, "");
        let why = why_not(&fragment, &dropped, GpuCpuRule::Counted);
        assert!(why.contains("whether GPU computing was suspended"), "{why}");
    }

    #[test]
    fn a_job_past_its_estimate_steps_time_back() {
        // One CPU of two: J runs 0-100 s, then K, with -0.50 GFLOPs left,
        // "finishes" at 99.50 (a step of -0.5 s), then nothing runs to the
        // buffer's end (6048): 1 x 100 + 1 x (-0.5) + 2 x 5948.5 = 11996.5.
        let text = "\
02:56:00 [---] [cpu_sched_debug] using 1.00 out of 2 CPUs
02:56:00 [---] [rr_sim] start: work_buf min 1728 additional 4320 total 6048 on_frac 1.000 active_frac 1.000
02:56:00 [P1] [rr_sim_detail] 0.00: starting J (1.00 CPU) (100.00G/1.00G)
02:56:00 [P1] [rr_sim] 100.00: J finishes (1.00 CPU) (100.00G/1.00G)
02:56:00 [P1] [rr_sim_detail] 100.00: starting K (1.00 CPU) (-0.50G/1.00G)
02:56:00 [P1] [rr_sim] 99.50: K finishes (1.00 CPU) (-0.50G/1.00G)
02:56:00 [---] [rr_sim] end
";
        let events = crate::replay::test_events(text, FileKind::EmulatorLog);
        agrees_but(
            &events,
            ("CPU", 11996.5, 1.0, 0.0, 0.0),
            ("CPU", 11997.5, 1.0, 0.0, 0.0),
            "shortfall",
            GpuCpuRule::Counted,
        );
    }

    /// The simulation's lines `events` agree with the printed state
    /// `agreeing` and differ from `off` in `field` alone.
    fn agrees_but(
        events: &[LogEvent],
        agreeing: (&str, f64, f64, f64, f64),
        off: (&str, f64, f64, f64, f64),
        field: &str,
        rule: GpuCpuRule,
    ) {
        let printed = dump(&[agreeing]);
        assert_eq!(
            disagreeing(events, &printed, rule),
            Vec::<String>::new(),
            "{:?}",
            refigured(events, &printed, rule)
        );
        assert_eq!(disagreeing(events, &dump(&[off]), rule), [field]);
    }

    #[test]
    fn busy_time_is_zero_unless_misses_can_cover_every_instance() {
        let miss = |job: &str| format!("02:56:00 [P1] [rr_sim] {job} misses deadline by 10.00\n");
        // One 1-CPU miss on 4 CPUs: the least busy CPU stays at 0.
        let printed = dump(&[("CPU", 8832.0, 0.0, 3840.0, 5.0)]);
        let one = pass("", "", &miss("P1_0"));
        assert_eq!(disagreeing(&one, &printed, GpuCpuRule::Counted), ["busy"]);
        // Four may cover the 4 CPUs: their runtimes are not printed, so the
        // busy time is restated.
        let all: String = (0..4).map(|k| miss(&format!("P1_{k}"))).collect();
        let four = pass("", "", &all);
        assert!(disagreeing(&four, &printed, GpuCpuRule::Counted).is_empty());
    }

    /// The client records the idle instances after the first pick
    /// (rr_sim.cpp `record_nidle_now`), a job in it that finishes at once
    /// included (the lab's mt-edf-tie at 08:54:56: M_0 on 2 of 3 CPUs, no
    /// FLOPs left, `nidle 1.00`).
    #[test]
    fn a_job_that_finishes_at_once_is_in_the_first_pick() {
        let text = "\
08:54:50 [---] [cpu_sched_debug] using 2.00 out of 3 CPUs
08:54:56 [---] [rr_sim] start: work_buf min 180 additional 259 total 439 on_frac 1.000 active_frac 1.000
08:54:56 [M] [rr_sim_detail] 0.00: starting M_0 (2.00 CPU) (0.00G/2.00G)
08:54:56 [---] [rrsim_detail] next job to finish: M_0 (will finish in  0.00 sec)
08:54:56 [M] [rr_sim] 0.00: M_0 finishes (2.00 CPU) (0.00G/2.00G)
08:54:56 [---] [rr_sim] end
";
        let events = crate::replay::test_events(text, FileKind::EventLog);
        agrees_but(
            &events,
            ("CPU", 18144.0, 1.0, 0.0, 0.0),
            ("CPU", 18144.0, 3.0, 0.0, 0.0),
            "nidle",
            GpuCpuRule::Unknown,
        );
    }

    #[test]
    fn a_7_2_simulation_is_followed_pick_by_pick() {
        // 7.0-7.4 print every pick. On 2 CPUs A and B run from 0; A's
        // `finishes` (printed at its step's start) ends that step at the
        // next pick, 3600; B runs alone from 3600 and ends when it has run
        // 5,000,000 GFLOPs at 1000 GFLOPS, 5000 s in all: at 5000. Buffer
        // 6048: 1 idle x 1400 + 2 x 1048 = 3496 short, saturated to 3600.
        let text = "\
02:55:00 [---] [cpu_sched_debug] using 2.00 out of 2 CPUs
02:56:00 [---] [rr_sim] start: work_buf min 1728 additional 4320 total 6048 on_frac 1.000 active_frac 1.000
02:56:00 [P1] [rr_sim_detail] 0.00: starting A (1.00 CPU)
02:56:00 [P1] [rr_sim_detail] 0.00: starting B (1.00 CPU)
02:56:00 [P1] [rr_sim] 0.00: A finishes (3600000.00G/1000.00G)
02:56:00 [P1] [rr_sim_detail] 3600.00: starting B (1.00 CPU)
02:56:00 [P1] [rr_sim] 3600.00: B finishes (5000000.00G/1000.00G)
";
        let events = crate::replay::test_events(text, FileKind::EmulatorLog);
        let printed = dump(&[("CPU", 3496.0, 0.0, 3600.0, 0.0)]);
        assert!(disagreeing(&events, &printed, GpuCpuRule::Unknown).is_empty());
        let (_, why) = refigured(&events, &printed, GpuCpuRule::Unknown).expect("followed");
        assert!(why.text().contains("7.0-7.4 lines"), "{why}");
        let printed = dump(&[("CPU", 3596.0, 0.0, 3600.0, 0.0)]);
        assert_eq!(
            disagreeing(&events, &printed, GpuCpuRule::Unknown),
            ["shortfall"]
        );
        // Cut before B's `finishes`: not whole.
        let cut: String = text.lines().take(6).map(|l| format!("{l}\n")).collect();
        let cut = crate::replay::test_events(&cut, FileKind::EmulatorLog);
        let why = why_not(&cut, &printed, GpuCpuRule::Unknown);
        assert!(why.contains("no `finishes` line after it"), "{why}");
        // Both releases' lines in one simulation: not followed.
        let mixed = format!(
            "{text}02:56:00 [P1] [rr_sim_detail] 5000.00: starting C (1.00 CPU) (1.00G/1.00G)\n"
        );
        let mixed = crate::replay::test_events(&mixed, FileKind::EmulatorLog);
        let why = why_not(&mixed, &printed, GpuCpuRule::Unknown);
        assert!(why.contains("mixes the lines"), "{why}");
    }

    #[test]
    fn a_6_10_simulation_is_followed_step_by_step() {
        // 6.6-6.12 print each step's start and length. On 2 CPUs and one
        // GPU, A (1 CPU) and G (0.50 CPU + 1 GPU) run from 0; A leaves at
        // 1000, G at 1000 + 2000 = 3000; buffer 6048. CPU (G's half CPU
        // counted): idle 0.5 now, 0.5 x 1000 + 1.5 x 2000 + 2 x 3048 =
        // 9596 short, never saturated; GPU: 0 idle, 1 x 3048 = 3048 short,
        // saturated to 3000.
        let text = "\
01-Jan-2000 00:08:00 [---] [rr_sim] rr_sim start: work_buf_total 6048.00 on_frac 1.000 active_frac 1.000
01-Jan-2000 00:08:00 [P1] [rr_sim] 0.00: starting A (1.00 CPU)
01-Jan-2000 00:08:00 [P1] [rr_sim] 0.00: starting G (0.50 CPU + 1.00 NV)
01-Jan-2000 00:08:00 [P1] [rr_sim] 0.00: A finishes after 1000.00 (4000.00G/4.00G)
01-Jan-2000 00:08:00 [P1] [rr_sim] 1000.00: G finishes after 2000.00 (60000.00G/30.00G)
";
        let events = crate::replay::test_events(text, FileKind::EventLog);
        let printed = dump(&[
            ("CPU", 9596.0, 0.5, 0.0, 0.0),
            ("NVIDIA GPU", 3048.0, 0.0, 3000.0, 0.0),
        ]);
        assert!(disagreeing(&events, &printed, GpuCpuRule::Unknown).is_empty());
        let (_, why) = refigured(&events, &printed, GpuCpuRule::Unknown).expect("followed");
        assert!(why.text().contains("6.6-6.12 lines"), "{why}");
        // The shortfall with G's CPUs left out (1 x 1000 + 2 x 2000 + 2 x
        // 3048 = 11096) is not 6.10's rule.
        let printed = dump(&[
            ("CPU", 11096.0, 0.5, 0.0, 0.0),
            ("NVIDIA GPU", 3048.0, 0.0, 3000.0, 0.0),
        ]);
        assert_eq!(
            disagreeing(&events, &printed, GpuCpuRule::Unknown),
            ["shortfall"]
        );
        // Cut before G's line: not whole.
        let cut: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
        let cut = crate::replay::test_events(&cut, FileKind::EventLog);
        let why = why_not(&cut, &printed, GpuCpuRule::Unknown);
        assert!(why.contains("never finished"), "{why}");
    }

    #[test]
    fn a_max_concurrent_limit_bounds_the_figures() {
        // The four jobs of 4 CPUs with a limit reached: any of them may
        // have sat out a pick, so at least 4 x 2208 = 8832 short (less the
        // two steps' roundings, 0.08), at most 4 x 6048 = 24192, saturated
        // at most until 3840.
        let mc = "02:56:00 [P1] [rr_sim] at project max concurrent: t 0.000000\n";
        let using = "02:55:00 [---] [cpu_sched_debug] using 4.00 out of 4 CPUs\n";
        let events = pass(using, mc, "");
        for within in [
            ("CPU", 8832.0, 0.0, 3840.0, 0.0),
            ("CPU", 12000.0, 1.0, 1000.0, 0.0),
            ("CPU", 24192.0, 4.0, 0.0, 0.0),
        ] {
            let why = why_not(&events, &dump(&[within]), GpuCpuRule::Counted);
            assert!(why.contains("within those bounds"), "{why}");
            assert!(why.contains("shortfall 8831.92 to 24192.00"), "{why}");
        }
        let off = |printed| disagreeing(&events, &dump(&[printed]), GpuCpuRule::Counted);
        assert_eq!(off(("CPU", 8000.0, 0.0, 3840.0, 0.0)), ["shortfall"]);
        assert_eq!(off(("CPU", 30000.0, 0.0, 3840.0, 0.0)), ["shortfall"]);
        assert_eq!(off(("CPU", 8832.0, 0.0, 4000.0, 0.0)), ["saturated"]);
        assert_eq!(off(("CPU", 8832.0, 5.0, 3840.0, 0.0)), ["nidle"]);
        // A GPU's count is not printed: a 0.50-GPU job on 1 or 2 GPUs (the
        // idle count 1 leaves both open) is short at least 0.50 x 3840 +
        // 1 x 2208 = 4128, less the roundings.
        let gpu = "02:56:00 [G] [rr_sim_detail] 0.00: starting G_0 (0.10 CPU + 0.50 NVIDIA GPU) (100.00G/10.00G)\n\
                   02:56:00 [G] [rr_sim] 3840.00: G_0 finishes (0.10 CPU + 0.50 NVIDIA GPU) (100.00G/10.00G)\n";
        let events = pass(&format!("{START}{using}"), &format!("{mc}{gpu}"), "");
        let cpu = ("CPU", 8832.0, 0.0, 3840.0, 0.0);
        let fits = dump(&[cpu, ("NVIDIA GPU", 4128.0, 0.5, 0.0, 0.0)]);
        assert!(why_not(&events, &fits, GpuCpuRule::Counted).contains("within those bounds"));
        let short = dump(&[cpu, ("NVIDIA GPU", 3000.0, 0.5, 0.0, 0.0)]);
        assert_eq!(
            disagreeing(&events, &short, GpuCpuRule::Counted),
            ["shortfall"]
        );
        // A job past its estimate steps time back: not bounded.
        let back = "02:56:00 [P1] [rr_sim_detail] 3840.00: starting K (1.00 CPU) (-0.50G/1.00G)\n\
                    02:56:00 [P1] [rr_sim] 3839.50: K finishes (1.00 CPU) (-0.50G/1.00G)\n";
        let events = pass(using, mc, back);
        let why = why_not(&events, &dump(&[cpu]), GpuCpuRule::Counted);
        assert!(why.contains("not bounded"), "{why}");
    }

    /// A 7.5-on simulation of `finishes` lines only (rrsim_detail off) on
    /// 2 CPUs (`using` printed): `jobs` as (end, GFLOPs, rate).
    fn finishes_only(jobs: &[(f64, f64, f64)]) -> Vec<LogEvent> {
        let lines: String = jobs
            .iter()
            .enumerate()
            .map(|(k, (end, gflops, rate))| {
                format!(
                    "02:56:00 [P1] [rr_sim] {end:.2}: J{k} finishes (1.00 CPU) \
                     ({gflops:.2}G/{rate:.2}G)\n"
                )
            })
            .collect();
        let text = format!(
            "{START}02:55:00 [---] [cpu_sched_debug] using 2.00 out of 2 CPUs\n\
             02:56:00 [---] [rr_sim] start: work_buf min 1728 additional 4320 total 6048 \
             on_frac 1.000 active_frac 1.000\n{lines}02:56:00 [---] [rr_sim] end\n"
        );
        crate::replay::test_events(&text, FileKind::EmulatorLog)
    }

    #[test]
    fn finish_lines_alone_give_each_jobs_start() {
        // J0 0-1000 and J1 0-2000 on 2 CPUs; J2 ran 2000 s up to 3000, so
        // it started at J0's end: 2 busy to 2000, 1 to 3000, then none up
        // to 6048: 1 x 1000 + 2 x 3048 = 7096 short, saturated to 2000.
        let events = finishes_only(&[
            (1000.0, 4000.0, 4.0),
            (2000.0, 8000.0, 4.0),
            (3000.0, 8000.0, 4.0),
        ]);
        let printed = dump(&[("CPU", 7096.0, 0.0, 2000.0, 0.0)]);
        assert!(disagreeing(&events, &printed, GpuCpuRule::Counted).is_empty());
        let (_, reason) = refigured(&events, &printed, GpuCpuRule::Counted).expect("recomputed");
        assert!(reason.text().contains("`finishes` lines only"), "{reason}");
        // Taken as starting at 0 (3000 s run), J2 would leave no CPU idle
        // before 2000 and 3000 short: the printed figures hold it to 1000.
        let printed = dump(&[("CPU", 6096.0, 0.0, 3000.0, 0.0)]);
        assert_eq!(
            disagreeing(&events, &printed, GpuCpuRule::Counted),
            ["shortfall", "saturated"]
        );
    }

    #[test]
    fn a_start_two_picks_fit_widens_the_figures() {
        // J1: 15 GFLOPs at 0.01/s as printed, 1000 to 3000 s up to 2000: it
        // started at 0 or at 1000. On 2 CPUs, 1 or 2 busy to 1000, 1 to
        // 2000, none to 6048: 9096 to 10096 short, 0 or 1 idle now.
        let events = finishes_only(&[(1000.0, 4000.0, 4.0), (2000.0, 15.0, 0.01)]);
        for printed in [(10096.0, 1.0, 0.0), (9096.0, 0.0, 1000.0)] {
            let (shortfall, nidle, saturated) = printed;
            let printed = dump(&[("CPU", shortfall, nidle, saturated, 0.0)]);
            assert!(disagreeing(&events, &printed, GpuCpuRule::Counted).is_empty());
        }
        let printed = dump(&[("CPU", 8000.0, 0.0, 1000.0, 0.0)]);
        assert_eq!(
            disagreeing(&events, &printed, GpuCpuRule::Counted),
            ["shortfall"]
        );
    }

    #[test]
    fn finish_lines_alone_that_leave_a_start_open_say_why() {
        let printed = dump(&[("CPU", 7096.0, 0.0, 2000.0, 0.0)]);
        // 2100 s of run up to 3000: no job ends at 900.
        let events = finishes_only(&[
            (1000.0, 4000.0, 4.0),
            (2000.0, 8000.0, 4.0),
            (3000.0, 8400.0, 4.0),
        ]);
        let why = why_not(&events, &printed, GpuCpuRule::Counted);
        assert!(
            why.contains("J2 ran") && why.contains("no pick fits"),
            "{why}"
        );
        // J2 starts at 2000 while a CPU was idle from 1000: it sat out a
        // pick, which these lines cannot tell.
        let events = finishes_only(&[
            (1000.0, 4000.0, 4.0),
            (2000.0, 8000.0, 4.0),
            (3000.0, 4000.0, 4.0),
        ]);
        let why = why_not(&events, &printed, GpuCpuRule::Counted);
        assert!(
            why.contains("leave CPU idle while a job of it starts later"),
            "{why}"
        );
        // A limit reached is not followed.
        let mut limited = finishes_only(&[(1000.0, 4000.0, 4.0)]);
        let mc = "02:56:00 [P1] [rr_sim] at project max concurrent: t 0.000000\n";
        let mc = crate::replay::test_events(mc, FileKind::EmulatorLog);
        let end = limited.pop().expect("end line");
        limited.extend(mc);
        limited.push(end);
        let why = why_not(&limited, &printed, GpuCpuRule::Counted);
        assert!(why.contains("max_concurrent limit"), "{why}");
    }

    #[test]
    fn what_cannot_be_followed_says_why() {
        let printed = dump(&[("CPU", 8832.0, 0.0, 3840.0, 0.0)]);
        let start = "02:56:00 [---] [rr_sim] start: work_buf min 1728 additional 4320 total 6048 \
                     on_frac 1.000 active_frac 1.000\n";
        // 7.0-7.4, cut after a pick: its last step's end is not told.
        let old = format!("{start}02:56:00 [P1] [rr_sim_detail] 0.00: starting P1_0 (1.00 CPU)\n");
        let old = crate::replay::test_events(&old, FileKind::EmulatorLog);
        let why = why_not(&old, &printed, GpuCpuRule::Counted);
        assert!(why.contains("no `finishes` line after it"), "{why}");
        // 7.0-7.4 finish lines only (no usage, rrsim_detail off).
        let bare =
            format!("{start}02:56:00 [P1] [rr_sim] 3840.00: P1_0 finishes (15360.00G/4.00G)\n");
        let bare = crate::replay::test_events(&bare, FileKind::EmulatorLog);
        let why = why_not(&bare, &printed, GpuCpuRule::Counted);
        assert!(why.contains("rrsim_detail"), "{why}");
        // A job never seen to finish.
        let cut = format!(
            "{start}02:56:00 [P1] [rr_sim_detail] 0.00: starting P1_0 (1.00 CPU) (15360.00G/4.00G)\n"
        );
        let cut = crate::replay::test_events(&cut, FileKind::EmulatorLog);
        let why = why_not(&cut, &printed, GpuCpuRule::Counted);
        assert!(why.contains("never finished"), "{why}");
        // A block of another second.
        let why = refigure(
            &tracker(&pass("", "", "")),
            &printed,
            Some(1.0),
            GpuCpuRule::Counted,
        )
        .expect_err("another second");
        assert!(why.contains("not in the log"), "{why}");
    }
}

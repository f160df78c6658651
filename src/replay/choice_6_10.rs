//! The 6.6-6.12 work-fetch choice re-derived from the lines the client
//! prints (client/work_fetch.cpp at client_release/6.10/6.10.60 and
//! 6.12/6.12.34: `WORK_FETCH::choose_project`,
//! `RSC_WORK_FETCH::choose_project`, `print_state`), for logs without the
//! inputs the whole 6.x replay needs (a volunteer's excerpt, a data
//! directory). The rule below is 6.10's; 6.12's differences are listed at
//! [`LtdWording`].
//!
//! # The rule
//!
//! choose_project() tries (resource, criterion) pairs in a fixed order:
//! idle instance on NVIDIA, ATI, CPU; major shortfall on the same three;
//! minor shortfall; then starved on the CPU only. A pair is closed when its
//! resource says so (no idle instance; saturated beyond the minimum buffer;
//! beyond the whole buffer; deadline misses on every CPU). In an open pair
//! every project is a candidate unless it cannot fetch at all, may not
//! fetch this resource, or fails the criterion; among candidates the one
//! with the greatest overall debt wins, a later project winning a tie. The
//! first pair with a candidate (and a non-zero request) decides: `chosen:
//! CRITERION RESOURCE: I inst, S sec`. print_state() then prints the state
//! the choice was made on; `No project chosen for work fetch` follows it
//! when every pair came out empty.
//!
//! # What the block prints, and what it does not
//!
//! Printed: the buffer, per resource the idle instances and saturated time,
//! per project and resource the backoff left and the flags `susp via GUI`,
//! `master fetch pending`, `comm deferred`, `no new tasks` (each makes a
//! project unable to fetch), `overworked`, `too many uploads`, `blocked by
//! prefs`, and per project the overall debt. Not printed: a stalled
//! download or a suspended task (the project cannot fetch), an anonymous
//! platform without a version for the resource, a duration correction
//! factor outside 0.02–80, a zero resource share (the share prints with two
//! decimals), whether GPUs are usable now, GPU scheduling deferrals, and for
//! the starved pair the deadline misses and the instances each project
//! already uses. A project the printed state leaves eligible may have been
//! excluded by one of these; so the printed state can prove a choice
//! impossible (the chosen project could not fetch, its pair was closed) and
//! can prove `No project chosen` right (every pair closed or empty), but
//! where an unprinted input could change the outcome the choice is not
//! checked, naming that input.
//!
//! Architecture Invariant: pure; reads events only.

use crate::resource::ResourceType;
use crate::trace::message::{ChooseCriterion, LtdShareFlags};
use crate::trace::time::EventTime;
use crate::trace::{LogEvent, Message};

/// One recorded 6.10 choice and what its pass's lines decide of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice610 {
    /// Index of the `chosen:` or `No project chosen` event.
    pub event_idx: usize,
    /// The project the client chose (`None`: no project chosen).
    pub chosen: Option<String>,
    /// The chosen pair's resource (long name), for a `chosen:` line.
    pub resource: Option<String>,
    /// What the printed state says.
    pub verdict: Verdict,
    /// For a `chosen:` line with its block: the seconds it asks.
    pub request: Option<RequestCheck>,
    /// What the pass's block shows, per resource (empty without a block).
    pub shown: Vec<Shown>,
}

/// One resource of a 6.10 block, as `explain` tells it.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    /// Long resource name.
    pub resource: String,
    /// Its printed state, in a sentence.
    pub state: String,
    /// Each project (client order): its name, whether it was asked for
    /// this resource, and why (or why not), with the printed values.
    pub projects: Vec<(String, bool, String)>,
}

/// The block's resources and projects in sentences; `asked` is the chosen
/// (project, resource), if any.
fn shown(block: &Block, asked: Option<(&str, &ResourceType)>) -> Vec<Shown> {
    let (min, additional) = block.buffer.unwrap_or((0.0, 0.0));
    block
        .resources
        .iter()
        .map(|line| {
            let projects = projects(block)
                .iter()
                .filter_map(|(project, debt)| {
                    let share = block
                        .shares
                        .iter()
                        .find(|s| s.project == *project && s.rsc == line.rsc)?;
                    let was_asked = asked == Some((project.as_str(), &line.rsc));
                    let why = match printed_exclusion(
                        block,
                        project,
                        &line.rsc,
                        &ChooseCriterion::MinorShortfall,
                    ) {
                        Some(why) => why
                            .strip_prefix(&format!("{project}: "))
                            .map(str::to_string)
                            .unwrap_or(why),
                        None => format!(
                            "can fetch {} (fetch share {:.2}, overall debt {debt:.2})",
                            line.rsc.long_name(),
                            share.share
                        ),
                    };
                    Some((project.clone(), was_asked, why))
                })
                .collect();
            Shown {
                resource: line.rsc.long_name().to_string(),
                state: format!(
                    "shortfall {:.2} s, {:.2} idle instance(s), saturated {:.2} s against a \
                     buffer of {min:.2} + {additional:.2} s",
                    line.shortfall, line.nidle, line.saturated
                ),
                projects,
            }
        })
        .collect()
}

/// The seconds a `chosen:` line asks of its resource, and what the block
/// says of them (RSC_WORK_FETCH::set_request, 6.10: the project's share of
/// the shortfall; 1 second when the shortfall is zero and instances are
/// asked, or when the project's duration correction factor is outside
/// 0.02-80; the instances need the host's instance count and nused_total,
/// which 6.10 does not print, so they are not checked).
#[derive(Clone, Debug, PartialEq)]
pub struct RequestCheck {
    /// Seconds printed on the `chosen:` line.
    pub recorded_secs: f64,
    /// The recomputed seconds, their slack and the rule; or why the block
    /// does not decide them.
    pub outcome: Result<(f64, f64, String), String>,
}

/// What the printed state says of a choice.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The printed state decides: this project (or none), because …
    Decided {
        /// The project the rule gives (`None`: no project).
        chosen: Option<String>,
        /// The rule and the numbers behind it.
        reason: String,
    },
    /// The printed state does not decide, and why (which input would).
    Undecided(String),
}

/// A resource line: `[wfd] RSC: shortfall S nidle N saturated T busy B …`.
#[derive(Clone, Debug)]
struct RscLine {
    rsc: ResourceType,
    shortfall: f64,
    nidle: f64,
    saturated: f64,
    /// `RS fetchable F runnable R`: the resource shares of the projects
    /// that may fetch, and of those with a runnable job.
    rs_fetchable: f64,
    rs_runnable: f64,
}

/// A share line: `[wfd] RSC: fetch share F LTD L backoff dt D int I FLAGS`.
#[derive(Clone, Debug)]
struct ShareLine {
    project: String,
    rsc: ResourceType,
    share: f64,
    backoff_dt: f64,
    flags: LtdShareFlags,
}

/// Which client printed the blocks: 6.6-6.10 (`[wfd]`) or 6.12
/// (`[work_fetch]`, client/work_fetch.cpp at client_release/6.12/6.12.34),
/// whose choose_project() differs from 6.10's in three ways the block
/// shows or the check must allow for: a starved pair is tried on each
/// usable GPU before the CPU's (the `#if 1` block), a project with no app
/// for the resource cannot fetch it (`dont_fetch`, printed ` (no apps)`),
/// and set_request() asks 1 second of a zero-share project (one job per
/// idle instance) or under `<fetch_minimal_work>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LtdWording {
    /// 6.6-6.8 (`chosen: RSC CRITERION`, read at 6.6.41): the starved pair
    /// on every resource, the overall debt printed to whole seconds, no
    /// `too many uploads` flag; its request is not re-derived.
    V6_6,
    #[default]
    V6_10,
    V6_12,
}

impl LtdWording {
    /// The release the rules are read at, for reasons.
    pub fn label(self) -> &'static str {
        match self {
            LtdWording::V6_6 => "6.6",
            LtdWording::V6_10 => "6.10",
            LtdWording::V6_12 => "6.12",
        }
    }

    /// Two printed overall debts this close may be in either order
    /// (`%.0f` in 6.6, `%.2f` later).
    fn debt_tie(self) -> f64 {
        match self {
            LtdWording::V6_6 => 1.0,
            _ => 2.0 * HALF_CENT,
        }
    }
}

/// One printed state block.
#[derive(Clone, Debug, Default)]
struct Block {
    /// The client's wording, hence rules.
    wording: LtdWording,
    buffer: Option<(f64, f64)>,
    resources: Vec<RscLine>,
    shares: Vec<ShareLine>,
    /// `overall LTD` per project, in the client's project order.
    overall: Vec<(String, f64)>,
    started: bool,
    complete: bool,
}

/// Half a unit of the last printed digit of `%.2f`.
const HALF_CENT: f64 = 0.005;

/// Whether `events` are in a debt-era work-fetch wording (blocks with LTD
/// lines): the logs [`choices`] reads.
pub fn is_ltd_wording(events: &[LogEvent]) -> bool {
    ltd_wording(events).is_some()
}

/// The wording of `events`' LTD block lines: 6.6-6.10's under `[wfd]` (6.6-6.8's
/// when its own `chosen:` or debt lines are there),
/// 6.12's under `[work_fetch]`; `None` without them or when neither tag
/// holds the majority (a line whose tag a wiki mangled was read with a
/// guessed tag).
pub fn ltd_wording(events: &[LogEvent]) -> Option<LtdWording> {
    let (mut wfd, mut work_fetch, mut other) = (0usize, 0usize, 0usize);
    let mut six_six = false;
    for event in events {
        six_six |= matches!(
            event.message,
            Message::ChosenFor { .. } | Message::DebtUpdate66 { .. } | Message::DebtOffset66 { .. }
        );
        if matches!(
            event.message,
            Message::LtdResourceState { .. }
                | Message::LtdFetchShare { .. }
                | Message::OverallLtd { .. }
        ) {
            match event.tag.as_deref() {
                Some("wfd") => wfd += 1,
                Some("work_fetch") => work_fetch += 1,
                _ => other += 1,
            }
        }
    }
    if wfd > work_fetch + other {
        // 6.6-6.8 print the same block lines under `[wfd]`, with their own
        // `chosen:` and debt lines.
        Some(if six_six {
            LtdWording::V6_6
        } else {
            LtdWording::V6_10
        })
    } else if work_fetch > wfd + other {
        Some(LtdWording::V6_12)
    } else {
        None
    }
}

/// Reads every 6.10 choice in `events` (in order) with its verdict.
pub fn choices(events: &[LogEvent]) -> Vec<Choice610> {
    let Some(wording) = ltd_wording(events) else {
        return Vec::new();
    };
    let mut reader = Reader {
        wording,
        current: None,
        waiting: None,
        last_block: None,
        block_end_time: None,
        out: Vec::new(),
    };
    for (idx, event) in events.iter().enumerate() {
        reader.see(idx, event);
    }
    if let Some(cut) = reader.waiting.take() {
        reader.out.push(cut_after(cut));
    }
    reader.out
}

/// The 6.10 choices read so far, and the lines around the next one.
struct Reader {
    wording: LtdWording,
    /// The block being read.
    current: Option<Block>,
    /// The `chosen:` line waiting for the block that follows it
    /// (print_state comes after the choice in 6.10).
    waiting: Option<Waiting>,
    last_block: Option<Block>,
    /// The time the last block ended: `No project chosen` is printed by the
    /// same call, right after it.
    block_end_time: Option<EventTime>,
    out: Vec<Choice610>,
}

impl Reader {
    fn new_block(&self) -> Block {
        Block {
            wording: self.wording,
            ..Block::default()
        }
    }

    /// The block being read (one begins at a line of it).
    fn block(&mut self) -> &mut Block {
        let fresh = self.new_block();
        self.current.get_or_insert(fresh)
    }

    fn see(&mut self, idx: usize, event: &LogEvent) {
        let project = event.project.as_deref().map(str::to_string);
        match &event.message {
            Message::WorkFetchStart => {
                self.current = None;
                self.last_block = None;
                if let Some(cut) = self.waiting.take() {
                    self.out.push(cut_after(cut));
                }
            }
            Message::Chosen {
                criterion,
                rsc,
                inst,
                secs,
            } => {
                if let Some(cut) = self.waiting.take() {
                    self.out.push(cut_after(cut));
                }
                self.waiting = project.map(|chosen| Waiting {
                    at: idx,
                    time: event.time,
                    chosen,
                    criterion: criterion.clone(),
                    rsc: rsc.clone(),
                    asked: Some((*inst, *secs)),
                });
            }
            Message::ChosenFor { criterion, rsc } => self.chosen_6_6(idx, event, criterion, rsc),
            Message::WorkFetchStateStart => {
                self.current = Some(Block {
                    started: true,
                    ..self.new_block()
                });
            }
            Message::WorkFetchStateEnd => self.end_block(event),
            Message::NoProjectChosen => self.no_project_chosen(idx, event),
            message => self.block_line(message, project),
        }
    }

    /// A line of the work-fetch state block.
    fn block_line(&mut self, message: &Message, project: Option<String>) {
        match message {
            Message::TargetWorkBuffer {
                min_secs,
                additional_secs,
            } => {
                self.block()
                    .buffer
                    .get_or_insert((*min_secs, *additional_secs));
            }
            Message::LtdResourceState {
                rsc,
                shortfall,
                nidle,
                saturated,
                rs_fetchable,
                runnable,
                ..
            } => self.block().resources.push(RscLine {
                rsc: rsc.clone(),
                shortfall: *shortfall,
                nidle: *nidle,
                saturated: *saturated,
                rs_fetchable: *rs_fetchable,
                rs_runnable: *runnable,
            }),
            Message::LtdFetchShare {
                rsc,
                share,
                backoff_dt,
                flags,
                ..
            } => {
                if let Some(project) = project {
                    self.block().shares.push(ShareLine {
                        project,
                        rsc: rsc.clone(),
                        share: *share,
                        backoff_dt: *backoff_dt,
                        flags: flags.clone(),
                    });
                }
            }
            Message::OverallLtd { ltd } => {
                if let Some(project) = project {
                    self.block().overall.push((project, *ltd));
                }
            }
            _ => {}
        }
    }

    /// 6.6-6.8's `chosen: RSC CRITERION`: 6.6.41 prints it right before
    /// the block of the same pass, as 6.10 does; a line right after a
    /// block of its time follows earlier 6.6 releases' order, whose rule is
    /// not the one read here.
    fn chosen_6_6(
        &mut self,
        idx: usize,
        event: &LogEvent,
        criterion: &ChooseCriterion,
        rsc: &ResourceType,
    ) {
        if let Some(cut) = self.waiting.take() {
            self.out.push(cut_after(cut));
        }
        let Some(chosen) = event.project.as_deref().map(str::to_string) else {
            return;
        };
        let line = Waiting {
            at: idx,
            time: event.time,
            chosen,
            criterion: criterion.clone(),
            rsc: rsc.clone(),
            asked: None,
        };
        let block_before = self.last_block.is_some() && self.block_end_time == Some(event.time);
        if block_before {
            self.out.push(Choice610 {
                verdict: Verdict::Undecided(
                    "this 6.6 client prints its state block before the `chosen:` line, as \
                     releases before 6.6.41 do, whose choose_project is not the one read \
                     here (6.6.41's)"
                        .into(),
                ),
                ..cut_after(line)
            });
            self.last_block = None;
            return;
        }
        self.waiting = Some(line);
    }

    /// The end of a block: the `chosen:` line waiting for it is judged.
    fn end_block(&mut self, event: &LogEvent) {
        let mut done = self.current.take().unwrap_or_else(|| self.new_block());
        done.complete = true;
        if let Some(line) = self.waiting.take() {
            if line.time != event.time {
                // Not the same pass: a block of a later pass.
                self.out.push(cut_after(line));
                self.last_block = Some(done);
                self.block_end_time = Some(event.time);
                return;
            }
            if line.asked.is_none() {
                done.wording = LtdWording::V6_6;
            }
            let verdict = judge_chosen(&done, &line.chosen, &line.criterion, &line.rsc);
            let request = line
                .asked
                .filter(|_| done.started)
                .map(|asked| RequestCheck {
                    recorded_secs: asked.1,
                    outcome: request_secs(&done, &line, asked),
                });
            self.out.push(Choice610 {
                event_idx: line.at,
                chosen: Some(line.chosen.clone()),
                resource: Some(line.rsc.long_name().to_string()),
                verdict,
                request,
                shown: shown(&done, Some((&line.chosen, &line.rsc))),
            });
        }
        self.last_block = Some(done);
        self.block_end_time = Some(event.time);
    }

    /// `No project chosen`: judged from the block printed just before.
    fn no_project_chosen(&mut self, idx: usize, event: &LogEvent) {
        if self.block_end_time.as_ref() != Some(&event.time) {
            self.last_block = None;
        }
        let verdict = match (&self.last_block, self.waiting.take()) {
            (_, Some(_)) => Verdict::Undecided(
                "a `chosen:` line comes before it in the same pass: the two lines \
                 contradict each other (a damaged or merged excerpt)"
                    .into(),
            ),
            (Some(done), None) if done.started => judge_none(done),
            _ => Verdict::Undecided(
                "the work-fetch state block printed just before this line (print_state \
                 in choose_project) starts before the excerpt: which projects could \
                 fetch is not shown"
                    .into(),
            ),
        };
        let shown = self
            .last_block
            .as_ref()
            .map(|done| shown(done, None))
            .unwrap_or_default();
        self.out.push(Choice610 {
            event_idx: idx,
            chosen: None,
            resource: None,
            verdict,
            request: None,
            shown,
        });
        self.last_block = None;
        self.current = None;
    }
}

/// A `chosen:` line waiting for the block printed after it.
struct Waiting {
    at: usize,
    time: EventTime,
    chosen: String,
    criterion: ChooseCriterion,
    rsc: ResourceType,
    /// The instances and seconds the line prints (6.10 on; 6.6-6.8 print
    /// them on a `[wfd] request:` line after the block: not re-derived).
    asked: Option<(f64, f64)>,
}

/// The seconds of a `chosen:` line from the block after it
/// (RSC_WORK_FETCH::set_request, 6.10).
fn request_secs(
    block: &Block,
    line: &Waiting,
    (inst, recorded): (f64, f64),
) -> Result<(f64, f64, String), String> {
    let rsc = line.rsc.long_name();
    let shortfall = block
        .resources
        .iter()
        .find(|r| r.rsc == line.rsc)
        .map(|r| r.shortfall)
        .ok_or_else(|| format!("the block prints no {rsc} line"))?;
    let share = block
        .shares
        .iter()
        .find(|s| s.project == line.chosen && s.rsc == line.rsc)
        .map(|s| s.share)
        .ok_or_else(|| format!("the block prints no {rsc} share for {}", line.chosen))?;
    if shortfall == 0.0 {
        // Zero shortfall: no seconds, or 1 when instances are asked.
        if inst == 0.0 {
            return Err(format!(
                "{rsc} shortfall 0.00 with 0.00 instances printed: the request rests on \
                 values below the printed cent"
            ));
        }
        return Ok((
            1.0,
            0.0,
            format!(
                "{} RSC_WORK_FETCH::set_request: {rsc} shortfall 0.00 and {:.2} instances \
                 asked: 1 second",
                block.wording.label(),
                inst
            ),
        ));
    }
    let secs = shortfall * share;
    let slack = HALF_CENT * (shortfall + share) + HALF_CENT * HALF_CENT;
    if (recorded - 1.0).abs() < 1e-9 && (secs - 1.0).abs() > slack + HALF_CENT {
        return Err(match block.wording {
            LtdWording::V6_6 | LtdWording::V6_10 => "1 second is what 6.6-6.10 ask of a \
                                                     project whose duration correction factor \
                                                     is outside 0.02-80, which they do not print"
                .into(),
            LtdWording::V6_12 => "1 second is what 6.12 asks of a project whose duration \
                                  correction factor is outside 0.02-80, of a zero-share project \
                                  and under <fetch_minimal_work> (cc_config.xml), none of which \
                                  it prints"
                .into(),
        });
    }
    Ok((
        secs,
        slack,
        format!(
            "{} RSC_WORK_FETCH::set_request: req_secs = {rsc} shortfall {shortfall:.2} x \
             fetch share {share:.2} of {}",
            block.wording.label(),
            line.chosen
        ),
    ))
}

/// A `chosen:` line whose state block is not shown whole after it.
fn cut_after(line: Waiting) -> Choice610 {
    Choice610 {
        event_idx: line.at,
        chosen: Some(line.chosen),
        resource: Some(line.rsc.long_name().to_string()),
        request: None,
        shown: Vec::new(),
        verdict: Verdict::Undecided(
            "the work-fetch state block that 6.x prints after its choice (print_state in \
             choose_project) is not shown whole after this line"
                .into(),
        ),
    }
}

/// The pairs of choose_project(), in its order.
fn pairs(block: &Block) -> Vec<(ResourceType, ChooseCriterion)> {
    let present = |rsc: &ResourceType| block.resources.iter().any(|r| r.rsc == *rsc);
    let gpus: Vec<ResourceType> = [ResourceType::Nvidia, ResourceType::Amd]
        .into_iter()
        .filter(present)
        .collect();
    let mut out = Vec::new();
    for criterion in [
        ChooseCriterion::IdleInstance,
        ChooseCriterion::MajorShortfall,
        ChooseCriterion::MinorShortfall,
    ] {
        for rsc in gpus.iter().chain(std::iter::once(&ResourceType::Cpu)) {
            out.push((rsc.clone(), criterion.clone()));
        }
    }
    if matches!(block.wording, LtdWording::V6_6 | LtdWording::V6_12) {
        for rsc in &gpus {
            out.push((rsc.clone(), ChooseCriterion::Starved));
        }
    }
    out.push((ResourceType::Cpu, ChooseCriterion::Starved));
    out
}

/// Whether a pair is closed by its resource's printed numbers: `Some(true)`
/// closed, `Some(false)` open, `None` not told (with why).
fn gate(block: &Block, rsc: &ResourceType, criterion: &ChooseCriterion) -> Result<bool, String> {
    let Some(line) = block.resources.iter().find(|r| r.rsc == *rsc) else {
        return Err(format!("the block prints no {} line", rsc.long_name()));
    };
    let (min, additional) = block
        .buffer
        .ok_or("the block prints no target work buffer")?;
    let beyond = |limit: f64| -> Result<bool, String> {
        if line.saturated > limit + 2.0 * HALF_CENT {
            Ok(true)
        } else if line.saturated < limit - 2.0 * HALF_CENT {
            Ok(false)
        } else {
            Err(format!(
                "{} saturated {:.2} is {limit:.2} to the printed cent",
                rsc.long_name(),
                line.saturated
            ))
        }
    };
    match criterion {
        ChooseCriterion::IdleInstance => Ok(line.nidle == 0.0),
        ChooseCriterion::MajorShortfall => beyond(min),
        ChooseCriterion::MinorShortfall => beyond(min + additional),
        _ => Err(format!(
            "it closes when deadline misses fill every {} instance, which {} does not print",
            rsc.long_name(),
            block.wording.label()
        )),
    }
}

/// The printed reason a project is no candidate for a pair, if any.
fn printed_exclusion(
    block: &Block,
    project: &str,
    rsc: &ResourceType,
    criterion: &ChooseCriterion,
) -> Option<String> {
    let share = block
        .shares
        .iter()
        .find(|s| s.project == project && s.rsc == *rsc)?;
    let flags = &share.flags;
    let cannot_fetch = [
        (flags.susp_via_gui, "suspended via GUI"),
        (flags.master_fetch_pending, "master fetch pending"),
        (flags.comm_deferred, "communication deferred"),
        (flags.no_new_tasks, "no new tasks"),
        (flags.too_many_uploads, "too many uploads"),
    ];
    if let Some((_, why)) = cannot_fetch.iter().find(|(set, _)| *set) {
        return Some(format!("{project}: {why} (cannot fetch)"));
    }
    if flags.blocked_by_prefs {
        return Some(format!("{project}: {} blocked by prefs", rsc.long_name()));
    }
    // 6.12 prints it (dont_fetch); 6.10 neither has nor prints it.
    if flags.no_apps {
        return Some(format!("{project}: no {} apps", rsc.long_name()));
    }
    if share.backoff_dt >= HALF_CENT {
        return Some(format!(
            "{project}: {} backed off ({:.2} s left)",
            rsc.long_name(),
            share.backoff_dt
        ));
    }
    let overworked_counts = matches!(
        criterion,
        ChooseCriterion::MinorShortfall | ChooseCriterion::Starved
    );
    if overworked_counts && flags.overworked {
        return Some(format!("{project}: overworked"));
    }
    if block.wording == LtdWording::V6_6
        && matches!(criterion, ChooseCriterion::Starved)
        && every_project_runnable(block)
    {
        return Some(format!(
            "{project}: has a runnable job (the printed CPU runnable share leaves no \
             project's share out)"
        ));
    }
    None
}

/// 6.6: whether every project has a runnable job, by the block's CPU line
/// and share lines. When every project may fetch (each prints a CPU fetch
/// share of at least 0.01), a project without a runnable job would leave
/// its share out of the runnable sum: at least its printed fraction (less
/// half a cent) of the fetchable sum. A runnable sum above what that
/// allows, the `%.2f` roundings counted, leaves none out.
fn every_project_runnable(block: &Block) -> bool {
    let Some(cpu) = block.resources.iter().find(|r| r.rsc == ResourceType::Cpu) else {
        return false;
    };
    let fractions: Option<Vec<f64>> = projects(block)
        .iter()
        .map(|(p, _)| {
            block
                .shares
                .iter()
                .find(|s| s.project == *p && s.rsc == ResourceType::Cpu)
                .map(|s| s.share)
        })
        .collect();
    let Some(fractions) = fractions.filter(|f| !f.is_empty()) else {
        return false;
    };
    let least = fractions.iter().copied().fold(f64::INFINITY, f64::min);
    let sum: f64 = fractions.iter().sum();
    let all_fetch = least >= 0.01 && (sum - 1.0).abs() <= HALF_CENT * fractions.len() as f64;
    let least_left_out = (least - HALF_CENT) * (cpu.rs_fetchable - HALF_CENT);
    all_fetch && cpu.rs_runnable - HALF_CENT > cpu.rs_fetchable + HALF_CENT - least_left_out
}

/// The projects of the block with their overall debt, in the client's
/// order (print_state prints them in `gstate.projects` order).
fn projects(block: &Block) -> &[(String, f64)] {
    &block.overall
}

/// What 6.10 does not print that could exclude an apparently eligible
/// project from a pair.
fn unprinted(wording: LtdWording, rsc: &ResourceType, criterion: &ChooseCriterion) -> String {
    let mut inputs = vec![
        "a stalled download or a suspended task",
        "an anonymous-platform project without a version for the resource",
    ];
    if matches!(
        criterion,
        ChooseCriterion::MajorShortfall | ChooseCriterion::MinorShortfall
    ) {
        inputs.push("a duration correction factor outside 0.02-80");
    }
    if !matches!(criterion, ChooseCriterion::IdleInstance) {
        inputs.push("a zero resource share");
    }
    if matches!(criterion, ChooseCriterion::Starved) {
        inputs.push(if wording == LtdWording::V6_6 {
            "whether each project has a runnable job (6.6 passes over one that has)"
        } else {
            "the instances each project already uses (nused_total)"
        });
    }
    if *rsc != ResourceType::Cpu {
        inputs.push("whether GPUs are usable now and GPU scheduling deferrals");
    }
    if wording == LtdWording::V6_6 {
        inputs.push("too many uploads (6.6 does not print it)");
    }
    if wording == LtdWording::V6_12 {
        // 6.12's set_request() asks 1 second under it, never nothing.
        inputs.push("<fetch_minimal_work> in cc_config.xml");
    }
    inputs.join(", ")
}

/// The candidates the printed state leaves in an open pair.
fn candidates(block: &Block, rsc: &ResourceType, criterion: &ChooseCriterion) -> Vec<String> {
    projects(block)
        .iter()
        .filter(|(p, _)| printed_exclusion(block, p, rsc, criterion).is_none())
        .filter(|(p, _)| {
            block
                .shares
                .iter()
                .any(|s| s.project == *p && s.rsc == *rsc)
        })
        .map(|(p, _)| p.clone())
        .collect()
}

/// `No project chosen`: right when every pair is closed or empty by the
/// printed state; undecided where a pair is open with a candidate (its
/// exclusion would rest on an unprinted input).
fn judge_none(block: &Block) -> Verdict {
    if !block.complete {
        return Verdict::Undecided("the state block is cut".into());
    }
    if projects(block).is_empty() {
        return Verdict::Undecided("the block prints no project's overall debt".into());
    }
    let mut closed = Vec::new();
    for (rsc, criterion) in pairs(block) {
        let open_because = match gate(block, &rsc, &criterion) {
            Ok(true) => {
                closed.push(format!("{} {criterion}: closed", rsc.long_name()));
                continue;
            }
            Ok(false) => None,
            Err(why) => Some(why),
        };
        let found = candidates(block, &rsc, &criterion);
        if found.is_empty() {
            closed.push(format!(
                "{} {criterion}: every project excluded",
                rsc.long_name()
            ));
            continue;
        }
        let pair = format!("{} {criterion}", rsc.long_name());
        let why = match open_because {
            Some(gate_why) => format!(
                "{pair} may be open ({gate_why}) and the printed state leaves {} able to fetch; \
                 no project chosen then rests on {} (RSC_WORK_FETCH::choose_project, {})",
                found.join(", "),
                unprinted(block.wording, &rsc, &criterion),
                block.wording.label()
            ),
            None => format!(
                "{pair} is open by the printed state and leaves {} able to fetch; no project \
                 chosen then rests on {} (RSC_WORK_FETCH::choose_project, {})",
                found.join(", "),
                unprinted(block.wording, &rsc, &criterion),
                block.wording.label()
            ),
        };
        return Verdict::Undecided(why);
    }
    Verdict::Decided {
        chosen: None,
        reason: format!(
            "{} WORK_FETCH::choose_project: no pair can choose ({})",
            block.wording.label(),
            closed.join("; ")
        ),
    }
}

/// A `chosen:` line: impossible when the chosen project is excluded or its
/// pair closed by the printed state; right when every earlier pair is
/// closed or empty and the project has the greatest overall debt among the
/// pair's candidates; otherwise undecided.
fn judge_chosen(
    block: &Block,
    chosen: &str,
    criterion: &ChooseCriterion,
    rsc: &ResourceType,
) -> Verdict {
    if !block.started {
        return Verdict::Undecided("the state block after it starts before the excerpt".into());
    }
    if projects(block).is_empty() {
        return Verdict::Undecided("the block prints no project's overall debt".into());
    }
    if matches!(criterion, ChooseCriterion::Other(_)) {
        return Verdict::Undecided(format!(
            "criterion `{criterion}` is not a {} one",
            block.wording.label()
        ));
    }
    let pair = format!("{} {criterion}", rsc.long_name());
    // 6.10 tries the starved pair on the CPU only (a resource the block
    // does not print is left to the checks below: a damaged line).
    let printed = block.resources.iter().any(|r| r.rsc == *rsc);
    if printed && !pairs(block).iter().any(|(r, c)| r == rsc && c == criterion) {
        return Verdict::Decided {
            chosen: None,
            reason: format!(
                "{} WORK_FETCH::choose_project tries no {pair} pair",
                block.wording.label()
            ),
        };
    }
    // The chosen project itself.
    if let Some(why) = printed_exclusion(block, chosen, rsc, criterion) {
        return Verdict::Decided {
            chosen: None,
            reason: format!(
                "{} RSC_WORK_FETCH::choose_project: {pair} cannot choose {why}",
                block.wording.label()
            ),
        };
    }
    if gate(block, rsc, criterion) == Ok(true) {
        return Verdict::Decided {
            chosen: None,
            reason: format!(
                "{} RSC_WORK_FETCH::choose_project: {pair} is closed by the printed state",
                block.wording.label()
            ),
        };
    }
    // Every earlier pair must be closed or empty.
    for (earlier_rsc, earlier_criterion) in pairs(block) {
        if earlier_rsc == *rsc && earlier_criterion == *criterion {
            break;
        }
        if gate(block, &earlier_rsc, &earlier_criterion) == Ok(true) {
            continue;
        }
        let found = candidates(block, &earlier_rsc, &earlier_criterion);
        if !found.is_empty() {
            return Verdict::Undecided(format!(
                "{} {earlier_criterion}, tried before {pair}, is not closed by the printed \
                 state and leaves {} able to fetch; that it chose none rests on {}",
                earlier_rsc.long_name(),
                found.join(", "),
                unprinted(block.wording, &earlier_rsc, &earlier_criterion)
            ));
        }
    }
    // The winner among the pair's candidates: greatest overall debt, a
    // later project winning a tie.
    let debts = projects(block);
    let Some(&(_, own)) = debts.iter().find(|(p, _)| p == chosen) else {
        return Verdict::Undecided(format!("the block prints no overall debt for {chosen}"));
    };
    let found = candidates(block, rsc, criterion);
    for (other, debt) in debts {
        if other == chosen || !found.contains(other) {
            continue;
        }
        if (*debt - own).abs() <= block.wording.debt_tie() {
            return Verdict::Undecided(format!(
                "{other} and {chosen} have the same overall debt to the printed digits \
                 ({debt:.2}, {own:.2}) in {pair}: which one wins (the later in the client's \
                 project order on an exact tie) rests on digits the log does not print"
            ));
        }
        // Ahead by more than the printing: the client takes it unless an
        // unprinted input excluded it. (Behind it, an earlier project loses
        // to the chosen one, a later one never replaces it.)
        if *debt > own {
            return Verdict::Undecided(format!(
                "{other} (overall debt {debt:.2}) is ahead of {chosen} ({own:.2}) in {pair} \
                 by the printed state; that it was not chosen rests on {}",
                unprinted(block.wording, rsc, criterion)
            ));
        }
    }
    Verdict::Decided {
        chosen: Some(chosen.to_string()),
        reason: format!(
            "{} RSC_WORK_FETCH::choose_project: every pair before {pair} closed or empty; \
             {chosen} has the greatest overall debt ({own:.2}) of the candidates",
            block.wording.label()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::FileKind;

    /// The events of a 6.10 stdoutdae.txt text.
    fn events(text: &str) -> Vec<LogEvent> {
        crate::replay::test_events(text, FileKind::EventLog)
    }

    /// A 6.10 pass on a 4-CPU host: `chosen` for Beta with the given flags
    /// on Beta's share line and Alpha's overall debt.
    fn pass(beta_flags: &str, nidle: &str, alpha_debt: &str) -> String {
        format!(
            "14-Oct-2010 07:46:47 [---] [wfd]: work fetch start\n\
             14-Oct-2010 07:46:47 [Beta] chosen: idle instance CPU: 1.00 inst, 100.00 sec\n\
             14-Oct-2010 07:46:47 [---] [wfd] ------- start work fetch state -------\n\
             14-Oct-2010 07:46:47 [---] [wfd] target work buffer: 8640.00 + 43200.00 sec\n\
             14-Oct-2010 07:46:47 [---] [wfd] CPU: shortfall 100.00 nidle {nidle} saturated 0.00 busy 0.00 RS fetchable 400.00 runnable 0.00\n\
             14-Oct-2010 07:46:47 [Alpha] [wfd] CPU: fetch share 0.75 LTD 0.00 backoff dt 0.00 int 0.00\n\
             14-Oct-2010 07:46:47 [Beta] [wfd] CPU: fetch share 0.25 LTD 0.00 backoff dt 0.00 int 0.00{beta_flags}\n\
             14-Oct-2010 07:46:47 [Alpha] [wfd] overall LTD {alpha_debt}\n\
             14-Oct-2010 07:46:47 [Beta] [wfd] overall LTD 10.00\n\
             14-Oct-2010 07:46:47 [---] [wfd] ------- end work fetch state -------\n"
        )
    }

    /// A 6.6.41 pass on 2 CPUs as its emulator prints it (the chosen line,
    /// then the block, then the request): `chosen` is the chosen project,
    /// with Beta's flags and the overall debts printed to whole seconds.
    fn pass_6_6(chosen: &str, beta_flags: &str, alpha_debt: &str, beta_debt: &str) -> String {
        format!(
            "01-Jan-1970 02:00:00 [---] RPC poll start\n\
             01-Jan-1970 02:00:00 [{chosen}] chosen: CPU idle instance\n\
             01-Jan-1970 02:00:00 [---] [wfd] ------- start work fetch state -------\n\
             01-Jan-1970 02:00:00 [---] [wfd] target work buffer: 21600.00 + 21600.00 sec\n\
             01-Jan-1970 02:00:00 [---] [wfd] CPU: shortfall 43200.00 nidle 1.00 saturated 0.00 busy 0.00 RS fetchable 200.00 runnable 100.00\n\
             01-Jan-1970 02:00:00 [Alpha] [wfd] CPU: fetch share 0.50 debt {alpha_debt}.00 backoff dt 0.00 int 0.00\n\
             01-Jan-1970 02:00:00 [Beta] [wfd] CPU: fetch share 0.50 debt {beta_debt}.00 backoff dt 0.00 int 0.00{beta_flags}\n\
             01-Jan-1970 02:00:00 [Alpha] [wfd] overall_debt {alpha_debt}\n\
             01-Jan-1970 02:00:00 [Beta] [wfd] overall_debt {beta_debt}\n\
             01-Jan-1970 02:00:00 [---] [wfd] ------- end work fetch state -------\n\
             01-Jan-1970 02:00:00 [{chosen}] [wfd] request: CPU (21600.00 sec, 1) CUDA (0.00 sec, 0)\n"
        )
    }

    /// 6.6.41's rule (client/work_fetch.cpp RSC_WORK_FETCH::choose_project
    /// at that tag): the greatest overall debt among the candidates wins;
    /// whole-second debts one apart may be in either order; a printed
    /// exclusion makes the choice impossible; a block printed before the
    /// `chosen:` line (earlier 6.6 releases) is not judged.
    #[test]
    fn a_6_6_choice_is_judged_by_6_6_41s_rule() {
        let cases = [
            ("Beta", "", "-300", "250", "chosen Beta"),
            ("Alpha", "", "-300", "250", "ahead of"),
            ("Beta", "", "3", "4", "same overall debt"),
            ("Beta", " (comm deferred)", "-300", "250", "impossible"),
        ];
        for (chosen, flags, alpha, beta, expect) in cases {
            let found = choices(&events(&pass_6_6(chosen, flags, alpha, beta)));
            assert_eq!(found.len(), 1, "{chosen} {flags}");
            let got = describe(&found[0].verdict);
            assert!(
                got.contains(expect),
                "{chosen} {flags} {alpha} {beta}: {got}"
            );
            assert!(
                found[0].request.is_none(),
                "6.6's request is not re-derived"
            );
        }
        let text = pass_6_6("Beta", "", "-300", "250");
        let lines: Vec<&str> = text.lines().collect();
        // The block first, then the chosen line (releases before 6.6.41).
        let reordered = [&lines[..1], &lines[2..10], &lines[1..2], &lines[10..]]
            .concat()
            .join("\n");
        let found = choices(&events(&reordered));
        let got = describe(&found[0].verdict);
        assert!(got.contains("before the `chosen:` line"), "{got}");
    }

    /// A verdict in words, for the table below.
    fn describe(verdict: &Verdict) -> String {
        match verdict {
            Verdict::Decided {
                chosen: Some(p), ..
            } => format!("chosen {p}"),
            Verdict::Decided {
                chosen: None,
                reason,
            } => format!("impossible: {reason}"),
            Verdict::Undecided(why) => format!("undecided: {why}"),
        }
    }

    #[test]
    fn each_printed_state_gives_its_verdict() {
        // (Beta's flags, CPU idle instances, Alpha's overall debt, verdict)
        let cases = [
            // Beta has the greatest overall debt of the candidates.
            ("", "1.00", "-5.00", "chosen Beta"),
            // A project with no new tasks cannot fetch at all.
            (" (no new tasks)", "1.00", "-5.00", "impossible: "),
            // No idle instance: the idle-instance pair is closed.
            ("", "0.00", "-5.00", "is closed by the printed state"),
            // Alpha is ahead: only an unprinted input explains the choice.
            ("", "1.00", "50.00", "undecided: Alpha"),
        ];
        for (flags, nidle, alpha, expect) in cases {
            let found = choices(&events(&pass(flags, nidle, alpha)));
            assert_eq!(found.len(), 1, "{found:?}");
            let got = describe(&found[0].verdict);
            assert!(got.contains(expect), "{flags:?} {nidle} {alpha}: {got}");
        }
    }

    /// `pass` as 6.12 prints it: every line under `[work_fetch]`.
    fn pass_6_12(beta_flags: &str, nidle: &str, alpha_debt: &str) -> String {
        pass(beta_flags, nidle, alpha_debt)
            .replace("[Beta] chosen:", "[Beta] [wfd] chosen:")
            .replace("[wfd]", "[work_fetch]")
    }

    #[test]
    fn blocks_as_6_12_prints_them_are_read_by_its_rules() {
        // The same verdicts as 6.10's where the rules agree.
        let found = choices(&events(&pass_6_12("", "1.00", "-5.00")));
        assert_eq!(
            describe(&found[0].verdict).split(':').next(),
            Some("chosen Beta")
        );
        assert!(
            matches!(&found[0].verdict, Verdict::Decided { reason, .. } if reason.starts_with("6.12 RSC_WORK_FETCH")),
            "{:?}",
            found[0].verdict
        );
        // 6.12 prints ` (no apps)` (dont_fetch): Beta cannot fetch CPU.
        let found = choices(&events(&pass_6_12(" (no apps)", "1.00", "-5.00")));
        let got = describe(&found[0].verdict);
        assert!(
            got.contains("impossible: ") && got.contains("no CPU apps"),
            "{got}"
        );
        // Alpha ahead in debt is passed over only for an unprinted input,
        // of which 6.12 has one more.
        let found = choices(&events(&pass_6_12("", "1.00", "50.00")));
        let got = describe(&found[0].verdict);
        assert!(got.contains("fetch_minimal_work"), "{got}");
    }

    #[test]
    fn a_starved_pair_on_a_gpu_is_6_12_only() {
        let block = |tag: &str| {
            format!(
                "01-Jan-2011 11:05:00 [---] [{tag}]: work fetch start\n\
                 01-Jan-2011 11:05:00 [B] [{tag}] chosen: starved NVIDIA GPU: 0.00 inst, 60.00 sec\n\
                 01-Jan-2011 11:05:00 [---] [{tag}] ------- start work fetch state -------\n\
                 01-Jan-2011 11:05:00 [---] [{tag}] target work buffer: 8640.00 + 25920.00 sec\n\
                 01-Jan-2011 11:05:00 [---] [{tag}] CPU: shortfall 0.00 nidle 0.00 saturated 40000.00 busy 0.00 RS fetchable 100.00 runnable 100.00\n\
                 01-Jan-2011 11:05:00 [B] [{tag}] CPU: fetch share 1.00 LTD 0.00 backoff dt 0.00 int 0.00\n\
                 01-Jan-2011 11:05:00 [---] [{tag}] NVIDIA GPU: shortfall 120.00 nidle 0.00 saturated 40000.00 busy 0.00 RS fetchable 100.00 runnable 100.00\n\
                 01-Jan-2011 11:05:00 [B] [{tag}] NVIDIA GPU: fetch share 1.00 LTD 0.00 backoff dt 0.00 int 0.00\n\
                 01-Jan-2011 11:05:00 [B] [{tag}] overall LTD 0.00\n\
                 01-Jan-2011 11:05:00 [---] [{tag}] ------- end work fetch state -------\n"
            )
        };
        let found = choices(&events(&block("work_fetch")));
        assert_eq!(
            describe(&found[0].verdict).split(':').next(),
            Some("chosen B")
        );
        let request = found[0].request.as_ref().expect("a request");
        let (secs, _, _) = request.outcome.clone().expect("decided by the block");
        assert!((secs - 120.0).abs() < 1e-9, "{secs}");
        // 6.10 tries the starved pair on the CPU only (`#if 0`).
        let found = choices(&events(&block("wfd")));
        let got = describe(&found[0].verdict);
        assert!(
            got.contains(
                "impossible: 6.10 WORK_FETCH::choose_project tries no NVIDIA GPU starved pair"
            ),
            "{got}"
        );
    }

    #[test]
    fn the_request_is_the_share_of_the_shortfall() {
        // Beta asks 100.00 s; shortfall 100.00 x share 0.25 is 25 s.
        let found = choices(&events(&pass("", "1.00", "-5.00")));
        let request = found[0].request.as_ref().expect("a request");
        assert_eq!(request.recorded_secs, 100.0);
        let (secs, slack, _) = request.outcome.clone().expect("decided by the block");
        assert!((secs - 25.0).abs() < 1e-9, "{secs}");
        assert!(slack > 0.0 && slack < 0.6, "{slack}");
    }

    #[test]
    fn no_project_chosen_with_every_project_excluded_is_right() {
        let text = "14-Oct-2010 07:46:47 [---] [wfd]: work fetch start\n\
             14-Oct-2010 07:46:47 [---] [wfd] ------- start work fetch state -------\n\
             14-Oct-2010 07:46:47 [---] [wfd] target work buffer: 8640.00 + 43200.00 sec\n\
             14-Oct-2010 07:46:47 [---] [wfd] CPU: shortfall 100.00 nidle 1.00 saturated 0.00 busy 0.00 RS fetchable 0.00 runnable 0.00\n\
             14-Oct-2010 07:46:47 [Alpha] [wfd] CPU: fetch share 0.00 LTD 0.00 backoff dt 300.00 int 600.00\n\
             14-Oct-2010 07:46:47 [Beta] [wfd] CPU: fetch share 0.00 LTD 0.00 backoff dt 0.00 int 0.00 (no new tasks)\n\
             14-Oct-2010 07:46:47 [Alpha] [wfd] overall LTD 0.00\n\
             14-Oct-2010 07:46:47 [Beta] [wfd] overall LTD 0.00\n\
             14-Oct-2010 07:46:47 [---] [wfd] ------- end work fetch state -------\n\
             14-Oct-2010 07:46:47 [---] [wfd] No project chosen for work fetch\n";
        let found = choices(&events(text));
        assert!(
            matches!(&found[0].verdict, Verdict::Decided { chosen: None, .. }),
            "{found:?}"
        );
        // The block's start cut off (an excerpt starting at its last
        // overall debt line): undecided.
        let lines: Vec<&str> = text.lines().collect();
        let tail: String = lines[lines.len() - 3..]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect();
        let found = choices(&events(&tail));
        assert!(
            matches!(&found[0].verdict, Verdict::Undecided(_)),
            "{found:?}"
        );
    }
}

//! The neutral shape of one decision, shared by both sides of a comparison:
//! the recorded side fills it from log lines ([`super::recorded`]), the
//! replayed side from the policy engine's outputs ([`super::driver`]).
//!
//! A decision renders to an ordered list of [`Field`]s, each holding a value
//! formatted the way the client's log prints it (fixed decimals), so the
//! one-line texts of a decision point are byte-stable and comparisons happen
//! after formatting (spec/policy-current.md §9.7 "Rounding").
//!
//! Architecture Invariant: plain data; knows nothing of parsers or the engine.

use crate::divergence::DecisionKind;
use std::borrow::Cow;

/// One compared value of a decision, borrowing its names and texts from
/// the decision where it can (a decision's fields are built at every
/// comparison).
#[derive(Clone, Debug, PartialEq)]
pub struct Field<'a> {
    /// The field name (`shortfall`, `req_secs`, `chosen_project`, …).
    pub name: &'static str,
    /// The project the value belongs to, if any.
    pub project: Option<&'a str>,
    /// The resource (long name), if any.
    pub resource: Option<&'a str>,
    /// The job, if any.
    pub job: Option<&'a str>,
    /// The value.
    pub value: Value<'a>,
}

/// A value as the log prints it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// A number printed with a fixed number of decimals.
    Num {
        /// The number.
        value: f64,
        /// Decimals printed.
        decimals: usize,
    },
    /// A text (project name, reason, order).
    Text(Cow<'a, str>),
    /// A replayed number derived from printed (rounded) inputs: known to
    /// within `slack` either side, beyond the half unit of the last
    /// printed digit the comparison always allows.
    Approx {
        /// The number.
        value: f64,
        /// Decimals printed.
        decimals: usize,
        /// How far the inputs' rounding can move it.
        slack: f64,
    },
}

impl Value<'_> {
    /// The printed form.
    pub fn render(&self) -> String {
        match self {
            Value::Num { value, decimals }
            | Value::Approx {
                value, decimals, ..
            } => {
                let mut out = String::new();
                write_fixed(&mut out, *value, *decimals);
                out
            }
            Value::Text(text) => text.to_string(),
        }
    }
}

impl<'a> Field<'a> {
    /// A numeric field known to within `slack` (see [`Value::Approx`]);
    /// a plain one when `slack` is 0.
    pub fn num_within(name: &'static str, value: f64, decimals: usize, slack: f64) -> Self {
        let field = Field::num(name, value, decimals);
        if slack > 0.0 {
            Field {
                value: Value::Approx {
                    value,
                    decimals,
                    slack,
                },
                ..field
            }
        } else {
            field
        }
    }

    /// A numeric field.
    pub fn num(name: &'static str, value: f64, decimals: usize) -> Self {
        Field {
            name,
            project: None,
            resource: None,
            job: None,
            value: Value::Num { value, decimals },
        }
    }

    /// A text field.
    pub fn text(name: &'static str, text: impl Into<Cow<'a, str>>) -> Self {
        Field {
            name,
            project: None,
            resource: None,
            job: None,
            value: Value::Text(text.into()),
        }
    }

    /// The same field for a project.
    pub fn of_project(mut self, project: &'a str) -> Self {
        self.project = Some(project);
        self
    }

    /// The same field for a resource.
    pub fn of_resource(mut self, resource: &'a str) -> Self {
        self.resource = Some(resource);
        self
    }

    /// The same field for a job.
    pub fn of_job(mut self, job: &'a str) -> Self {
        self.job = Some(job);
        self
    }

    /// The key that matches a recorded field with its replayed counterpart.
    pub fn key(&self) -> String {
        let mut key = String::new();
        self.write_key(&mut key);
        key
    }

    fn write_key(&self, out: &mut String) {
        for part in [&self.project, &self.resource, &self.job]
            .into_iter()
            .flatten()
        {
            out.push_str(part);
            out.push('/');
        }
        out.push_str(self.name);
    }

    /// True when `other` has the same key (without building either key).
    pub fn same_key(&self, other: &Field<'_>) -> bool {
        self.name == other.name
            && self.project == other.project
            && self.resource == other.resource
            && self.job == other.job
    }

    /// `key=value`, as shown in the one-line texts.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write_to(&mut out);
        out
    }

    fn write_to(&self, out: &mut String) {
        self.write_key(out);
        out.push('=');
        match &self.value {
            Value::Num { value, decimals }
            | Value::Approx {
                value, decimals, ..
            } => write_fixed(out, *value, *decimals),
            Value::Text(text) => out.push_str(text),
        }
    }
}

/// Appends `value` with `decimals` decimals, exactly as `{value:.decimals$}`
/// prints it (the correctly rounded decimal of the binary value), without
/// the general formatter when the value is not near a rounding tie: the
/// scaled value's error is far below its distance to the tie, so rounding it
/// rounds the exact value the same way. Decision texts print every number
/// this way, so this is the audit's hot formatting path.
pub fn write_fixed(out: &mut String, value: f64, decimals: usize) {
    const POW10: [f64; 10] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
    const POW10_INT: [u64; 10] = [
        1,
        10,
        100,
        1_000,
        10_000,
        100_000,
        1_000_000,
        10_000_000,
        100_000_000,
        1_000_000_000,
    ];
    if let (Some(&scale), Some(&scale_int)) = (POW10.get(decimals), POW10_INT.get(decimals)) {
        let scaled = value.abs() * scale;
        if scaled.is_finite() && scaled < 4.0e15 {
            let floor = scaled.floor();
            let frac = scaled - floor;
            // The product is within half an ulp of the exact one; keep well
            // clear of the tie.
            let margin = scaled * (8.0 * f64::EPSILON) + f64::MIN_POSITIVE;
            if (frac - 0.5).abs() > margin {
                let n = floor as u64 + u64::from(frac > 0.5);
                if value.is_sign_negative() {
                    out.push('-');
                }
                push_digits(out, n / scale_int, 1);
                if decimals > 0 {
                    out.push('.');
                    push_digits(out, n % scale_int, decimals);
                }
                return;
            }
        }
    }
    use std::fmt::Write as _;
    let _ = write!(out, "{value:.decimals$}");
}

/// Appends `n` in decimal, zero-padded to at least `width` digits.
fn push_digits(out: &mut String, mut n: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let start = i.min(digits.len().saturating_sub(width));
    if let Ok(text) = std::str::from_utf8(&digits[start..]) {
        out.push_str(text);
    }
}

/// The one-line text of a decision's fields: `key=value` joined by spaces,
/// `(empty)` when there are none.
pub fn fields_line(fields: &[Field<'_>]) -> String {
    if fields.is_empty() {
        return "(empty)".to_string();
    }
    let mut out = String::with_capacity(fields.len() * 24);
    for (idx, field) in fields.iter().enumerate() {
        if idx > 0 {
            out.push(' ');
        }
        field.write_to(&mut out);
    }
    out
}

/// Per-(project, resource) lines of a work-fetch state dump.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShareState {
    /// The project.
    pub project: String,
    /// Fetchable share.
    pub share: f64,
    /// The resource reason (empty = none).
    pub reason: String,
    /// `(resource backoff: X, inc Y)`, if printed.
    pub backoff: Option<(f64, f64)>,
    /// How far the backoff's time left may be from its value (zero:
    /// exact, and always zero on the recorded side).
    pub backoff_slack: f64,
}

/// One resource block of a work-fetch state dump.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RscState {
    /// Long resource name.
    pub rsc: String,
    /// Shortfall, seconds.
    pub shortfall: f64,
    /// Idle instances now.
    pub nidle: f64,
    /// Saturated time, seconds.
    pub saturated: f64,
    /// Busy time, seconds.
    pub busy: f64,
    /// Per project, in printed order.
    pub shares: Vec<ShareState>,
    /// How far each recomputed figure may be from its value (zero: exact,
    /// and always zero on the recorded side).
    pub slack: RscSlack,
}

/// How far each of a resource block's recomputed figures may lie from its
/// value: figures recomputed from printed, rounded inputs are known only to
/// within those roundings. Not compared.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RscSlack {
    /// Of the shortfall.
    pub shortfall: f64,
    /// Of the idle instances.
    pub nidle: f64,
    /// Of the saturated time.
    pub saturated: f64,
    /// Of the busy time.
    pub busy: f64,
}

/// One project line of a work-fetch state dump.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectState {
    /// The project.
    pub project: String,
    /// REC.
    pub rec: f64,
    /// Priority.
    pub prio: f64,
    /// Why it cannot request work (empty = can).
    pub reason: String,
    /// Backoff seconds printed with the reason, if any.
    pub backoff: Option<f64>,
    /// How far a REC made from printed inputs may lie from `rec` (0 on
    /// the recorded side and where exact).
    pub rec_slack: f64,
    /// How far a priority made from printed inputs may lie from `prio`.
    pub prio_slack: f64,
    /// How far a backoff made from the log's stamps may lie from `backoff`.
    pub backoff_slack: f64,
}

/// A work-fetch state dump (`start work fetch state` … `end work fetch state`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FetchDump {
    /// `target work buffer: MIN + ADDITIONAL sec`.
    pub buffer: Option<(f64, f64)>,
    /// Project lines.
    pub projects: Vec<ProjectState>,
    /// Resource blocks.
    pub resources: Vec<RscState>,
    /// The block's `end work fetch state` line was seen (a fragment may be
    /// cut inside it). Not compared.
    pub complete: bool,
    /// Inputs of this pass's choice that the block does not print and the
    /// self-consistency check does not model (max_concurrent shortfalls,
    /// GPU exclusions), as the lines that showed them. Not compared.
    pub unmodelled: Vec<String>,
    /// The projects choose_project() scanned after the block, in its order
    /// (`choose_project: scanning` lines, 7.16 on): the true priority order
    /// where printed priorities tie. Not compared.
    pub scan_order: Vec<String>,
    /// What the scan after the block says of each resource's buffer
    /// (7.16 on): `(resource, low)`, low from a `needs work - buffer low`
    /// line, not low from a `can fetch` line the scan gave no such line
    /// for. Not compared.
    pub scan_buffer: Vec<(String, bool)>,
    /// Projects with max_concurrent limits: their `rsc type N last MC limit
    /// time` lines before the block (7.16 on). Not compared.
    pub mc_projects: Vec<String>,
    /// The MC shortfall a project's set_request() used (`using MC shortfall
    /// X instead of shortfall Y`, the line before its `set_request()` line):
    /// (project, resource, X). Not compared.
    pub mc_shortfalls: Vec<(String, String, f64)>,
    /// The shares were printed as 7.0–7.2 print them (`fetch share %.3f`
    /// with the project's dont_fetch flags, not a resource reason). Not
    /// compared.
    pub share_flags: bool,
    /// The log starts at this block, after the lines that name the
    /// projects with max_concurrent limits would have been printed, on a
    /// host that has such projects (a share line says `max concurrent job
    /// limit`, or the log names them later): which projects have limits is
    /// not told for this pass. Not compared.
    pub mc_unknown: bool,
}

/// One run-list entry (`add to run list: JOB (RSC, EDF|FIFO) (prio P)`).
#[derive(Clone, Debug, PartialEq)]
pub struct RunListEntry {
    /// The job.
    pub job: String,
    /// Long resource name.
    pub rsc: String,
    /// `EDF` or `FIFO`.
    pub order: String,
    /// Priority.
    pub prio: f64,
    /// How far the printed inputs of a recomputed priority let it move
    /// (0 for recorded and replayed-from-state entries).
    pub prio_slack: f64,
}

/// One `set_request()` line.
#[derive(Clone, Debug, PartialEq)]
pub struct SetRequestLine {
    /// Long resource name.
    pub rsc: String,
    /// Instances of the resource.
    pub ninst: u32,
    /// Instances the project uses in the simulation.
    pub nused_total: f64,
    /// Idle instances now.
    pub nidle_now: f64,
    /// Fetch share.
    pub fetch_share: f64,
    /// Instances requested.
    pub req_inst: f64,
    /// Seconds requested.
    pub req_secs: f64,
}

/// One resource of a request line.
#[derive(Clone, Debug, PartialEq)]
pub struct RscRequestLine {
    /// Long resource name.
    pub rsc: String,
    /// Seconds requested.
    pub secs: f64,
    /// Instances requested.
    pub inst: f64,
    /// How far the instances may lie from `inst` (recomputed from rounded
    /// printed inputs; zero when exact, and on the recorded side). Not
    /// compared.
    pub inst_slack: f64,
    /// How far the seconds may lie from `secs` (the client loop's shortfall
    /// interval; zero when exact, and on the recorded side). Not compared.
    pub secs_slack: f64,
}

/// One `[prio] P rsf S rt R rs T` line.
#[derive(Clone, Debug, PartialEq)]
pub struct PrioEntry {
    /// The project.
    pub project: String,
    /// Priority.
    pub prio: f64,
    /// Share fraction.
    pub rsf: f64,
    /// REC_tmp.
    pub rt: f64,
    /// RECSUM.
    pub rs: f64,
    /// How far the printed inputs of a priority recomputed from them let it
    /// move (0 for recorded and replayed-from-state entries).
    pub prio_slack: f64,
    /// How far the REC sum may lie from `rs` (a sum of RECs each known to
    /// its printed digits; 0 where exact, and on the recorded side).
    pub rs_slack: f64,
}

/// One `[prio] recent est credit: ...` line.
#[derive(Clone, Debug, PartialEq)]
pub struct RecEntry {
    /// The project.
    pub project: String,
    /// Credit in GFLOP-equivalents as printed (`%.2fG`).
    pub credit: f64,
    /// Interval seconds.
    pub secs: f64,
    /// REC before.
    pub old: f64,
    /// REC after.
    pub new: f64,
    /// How far the true REC after may be from `new` on the replayed side
    /// (the update recomputed from printed inputs); 0 where exact.
    pub new_slack: f64,
}

/// A decision, on either side.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// The project chosen by a work-fetch pass (`None` = no project chosen).
    Choice(Option<String>),
    /// A work request sent with an RPC, and the `set_request()` lines before it.
    Request {
        /// Per resource, CPU first.
        resources: Vec<RscRequestLine>,
        /// The `set_request()` lines that built it.
        set_requests: Vec<SetRequestLine>,
    },
    /// The seconds a 6.10 `chosen:` line asks of its resource, the only
    /// part of that request its pass prints the inputs of; `slack` is how
    /// far the printed (rounded) inputs let a recomputed value move (0 on
    /// the recorded side).
    RequestSecs {
        /// Long resource name.
        rsc: String,
        /// Seconds requested.
        secs: f64,
        /// Slack of a recomputed value.
        slack: f64,
    },
    /// Whether the MC shortfall a max_concurrent project with no job on a
    /// resource asks by (`using MC shortfall M instead of shortfall S`) is
    /// positive ([`super::mc_check`]).
    McShortfall {
        /// Long resource name.
        rsc: String,
        /// The MC shortfall is above 0.
        positive: bool,
    },
    /// A job enforcement skipped for swap (`skipping X: virtual size (A GB)
    /// exceeds swap left (B GB)`): the figure compared, and whether it is
    /// over the swap left ([`super::swap_check`]).
    SwapSkip {
        /// The job.
        job: String,
        /// What the check compared: `virtual size` or `swap use`.
        figure: String,
        /// The figure exceeds the swap left (the job is skipped).
        over: bool,
    },
    /// Whether a project asked for nothing of the resource it was chosen
    /// for is chosen at all (6.6–6.10 `chosen: CPU minor shortfall`, then
    /// `request: CPU (0.00 sec, 0) ...`; [`super::empty_request`]).
    EmptyRequest {
        /// Long resource name.
        rsc: String,
        /// The project is chosen (and the RPC asks for nothing).
        chosen: bool,
    },
    /// A work-fetch state dump.
    FetchState(FetchDump),
    /// One line of choose_project()'s scan (7.16 on): `can fetch RSC`,
    /// `can't fetch RSC: REASON` (a resource) or `skip: REASON` (the
    /// project), which must restate the reasons of the pass's state dump.
    ScanLine {
        /// Long resource name; `None` for `skip:`.
        rsc: Option<String>,
        /// The reason printed; empty for `can fetch`.
        reason: String,
    },
    /// A round-robin simulation: finishes `(job, t)`, deadline misses, per-project miss counts.
    RrSim {
        /// `(job, projected finish)` in printed order.
        finishes: Vec<(String, f64)>,
        /// Jobs projected to miss their deadline.
        misses: Vec<String>,
        /// Each finish's interval (seconds) where the replay knew its
        /// inputs only to printed digits; empty when exact.
        finish_slack: Vec<f64>,
    },
    /// A run list.
    RunList(Vec<RunListEntry>),
    /// Enforcement actions, each one canonical text (`schedule X`, `start X`, …).
    Enforcement(Vec<String>),
    /// A priority initialisation (`[prio]` lines).
    Priority(Vec<PrioEntry>),
    /// An REC update (`recent est credit` lines).
    Rec(Vec<RecEntry>),
    /// An REC interval discarded (`adjust_rec: elapsed time (E) ...`).
    RecDiscarded {
        /// The interval.
        elapsed: f64,
        /// The period compared with.
        period: f64,
    },
    /// A scheduler RPC of a project the log showed deferred (`Deferring
    /// communication for X`, `Project requested delay of X seconds`): the
    /// client may not contact it before then unless the user asked
    /// (client/cs_scheduler.cpp next_project_sched_rpc_pending).
    RpcTiming {
        /// When the deferral ends, on the trace's clock.
        until: f64,
        /// The deferral's end as the log prints times.
        until_label: String,
        /// The RPC was requested by the user (backoffs do not apply).
        user: bool,
        /// `sent` on the recorded side; the rule's verdict on the replayed one.
        verdict: String,
    },
    /// A backoff: per-(project, resource) (`backing off RSC N sec`) or RPC deferral.
    Backoff {
        /// Long resource name, `None` for the project-level deferral.
        rsc: Option<String>,
        /// Seconds.
        secs: f64,
        /// How far the true length may be from `secs` on the replayed side
        /// (a random draw's range re-derived from the log); 0 where exact.
        secs_slack: f64,
    },
}

impl Decision {
    /// A line that restates another decision (choose_project()'s scan
    /// restates the state block's reasons; an RPC's timing, the recorded
    /// deferral).
    pub fn restates(&self) -> bool {
        matches!(self, Decision::ScanLine { .. } | Decision::RpcTiming { .. })
    }

    /// The kind of decision point this is.
    pub fn kind(&self) -> DecisionKind {
        match self {
            Decision::Choice(_) | Decision::ScanLine { .. } => DecisionKind::WorkFetchChoice,
            Decision::Request { .. }
            | Decision::RequestSecs { .. }
            | Decision::McShortfall { .. }
            | Decision::EmptyRequest { .. } => DecisionKind::WorkRequest,
            Decision::FetchState(_) => DecisionKind::FetchState,
            Decision::RrSim { .. } => DecisionKind::RrSim,
            Decision::RunList(_) => DecisionKind::RunList,
            Decision::Enforcement(_) | Decision::SwapSkip { .. } => DecisionKind::Enforcement,
            Decision::Priority(_) | Decision::Rec(_) | Decision::RecDiscarded { .. } => {
                DecisionKind::Priority
            }
            Decision::Backoff { .. } | Decision::RpcTiming { .. } => DecisionKind::Backoff,
        }
    }

    /// The compared fields, in a fixed order, formatted as the log prints them.
    pub fn fields(&self) -> Vec<Field<'_>> {
        let mut out = Vec::new();
        match self {
            Decision::Choice(chosen) => {
                out.push(Field::text(
                    "chosen_project",
                    chosen.as_deref().unwrap_or("none"),
                ));
            }
            Decision::Request {
                resources,
                set_requests,
            } => request_fields(resources, set_requests, &mut out),
            Decision::RpcTiming { verdict, .. } => {
                out.push(Field::text("scheduler_rpc", verdict.as_str()));
            }
            Decision::RequestSecs { rsc, secs, slack } => {
                out.push(Field::num_within("req_secs", *secs, 2, *slack).of_resource(rsc));
            }
            Decision::McShortfall { rsc, positive } => {
                let shown = if *positive { "positive" } else { "0" };
                out.push(Field::text("mc_shortfall", shown).of_resource(rsc));
            }
            Decision::EmptyRequest { rsc, chosen } => {
                let shown = if *chosen {
                    "chosen, asked for nothing"
                } else {
                    "not chosen"
                };
                out.push(Field::text("empty_request", shown).of_resource(rsc));
            }
            Decision::SwapSkip { job, figure, over } => {
                out.push(Field::text("swap_figure", format!("{job}: {figure}")));
                let shown = if *over { "skipped" } else { "not skipped" };
                out.push(Field::text("swap_skip", format!("{job}: {shown}")));
            }
            Decision::ScanLine { rsc, reason } => {
                let shown = match (rsc, reason.is_empty()) {
                    (_, false) => reason.as_str(),
                    (Some(_), true) => "can fetch",
                    (None, true) => "can request work",
                };
                let field = Field::text("scan_reason", shown);
                out.push(match rsc {
                    Some(r) => field.of_resource(r),
                    None => field,
                });
            }
            Decision::FetchState(dump) => fetch_state_fields(dump, &mut out),
            Decision::RrSim {
                finishes,
                misses,
                finish_slack,
            } => {
                for (k, (job, t)) in finishes.iter().enumerate() {
                    let slack = finish_slack.get(k).copied().unwrap_or(0.0);
                    out.push(Field::num_within("finish", *t, 2, slack).of_job(job));
                }
                let mut sorted = misses.clone();
                sorted.sort();
                out.push(Field::text("deadline_misses", sorted.join(",")));
            }
            Decision::RunList(entries) => {
                let order: Vec<&str> = entries.iter().map(|e| e.job.as_str()).collect();
                out.push(Field::text("order", order.join(",")));
                for entry in entries {
                    out.push(Field::text("rsc", entry.rsc.as_str()).of_job(&entry.job));
                    out.push(Field::text("edf", entry.order.as_str()).of_job(&entry.job));
                    let prio = Field::num_within("prio", entry.prio, 6, entry.prio_slack);
                    out.push(prio.of_job(&entry.job));
                }
            }
            Decision::Enforcement(actions) => {
                out.push(Field::text("actions", actions.join(",")));
            }
            Decision::Priority(entries) => {
                for entry in entries {
                    let p = entry.project.as_str();
                    let prio = Field::num_within("prio", entry.prio, 6, entry.prio_slack);
                    out.push(prio.of_project(p));
                    out.push(Field::num("rsf", entry.rsf, 6).of_project(p));
                    out.push(Field::num("rec_tmp", entry.rt, 6).of_project(p));
                    let rs = Field::num_within("rec_sum", entry.rs, 6, entry.rs_slack);
                    out.push(rs.of_project(p));
                }
            }
            Decision::Rec(entries) => {
                for entry in entries {
                    let p = entry.project.as_str();
                    out.push(Field::num("credit_gflop", entry.credit, 2).of_project(p));
                    out.push(Field::num("interval", entry.secs, 2).of_project(p));
                    out.push(Field::num("rec_old", entry.old, 6).of_project(p));
                    out.push(Field::num_within("rec", entry.new, 6, entry.new_slack).of_project(p));
                }
            }
            Decision::RecDiscarded { elapsed, period } => {
                out.push(Field::num("rec_discarded_elapsed", *elapsed, 0));
                out.push(Field::num("rec_period", *period, 0));
            }
            Decision::Backoff {
                rsc,
                secs,
                secs_slack,
            } => {
                let field = Field::num_within("backoff_secs", *secs, 0, *secs_slack);
                out.push(match rsc {
                    Some(rsc) => field.of_resource(rsc),
                    None => field,
                });
            }
        }
        out
    }

    /// The one-line text of a decision point (byte-stable).
    pub fn line(&self) -> String {
        fields_line(&self.fields())
    }
}

/// A work-fetch state block's fields: the buffer, each project's REC,
/// priority, reason and backoff, each resource's figures and shares.
fn fetch_state_fields<'a>(dump: &'a FetchDump, out: &mut Vec<Field<'a>>) {
    if let Some((min, additional)) = dump.buffer {
        out.push(Field::num("buf_min", min, 2));
        out.push(Field::num("buf_additional", additional, 2));
    }
    for project in &dump.projects {
        let p = project.project.as_str();
        out.push(Field::num_within("rec", project.rec, 3, project.rec_slack).of_project(p));
        out.push(Field::num_within("prio", project.prio, 3, project.prio_slack).of_project(p));
        let reason = if project.reason.is_empty() {
            "can request work"
        } else {
            project.reason.as_str()
        };
        out.push(Field::text("reason", reason).of_project(p));
        if let Some(backoff) = project.backoff {
            out.push(
                Field::num_within("rpc_backoff", backoff, 2, project.backoff_slack).of_project(p),
            );
        }
    }
    for rsc in &dump.resources {
        let r = rsc.rsc.as_str();
        let s = &rsc.slack;
        for (name, value, slack) in [
            ("shortfall", rsc.shortfall, s.shortfall),
            ("nidle", rsc.nidle, s.nidle),
            ("saturated", rsc.saturated, s.saturated),
            ("busy", rsc.busy, s.busy),
        ] {
            out.push(Field::num_within(name, value, 2, slack).of_resource(r));
        }
        for share in &rsc.shares {
            let p = share.project.as_str();
            out.push(
                Field::num("share", share.share, 3)
                    .of_project(p)
                    .of_resource(r),
            );
            out.push(
                Field::text("rsc_reason", share.reason.as_str())
                    .of_project(p)
                    .of_resource(r),
            );
            if let Some((left, inc)) = share.backoff {
                out.push(
                    Field::num_within("backoff", left, 2, share.backoff_slack)
                        .of_project(p)
                        .of_resource(r),
                );
                out.push(
                    Field::num("backoff_inc", inc, 2)
                        .of_project(p)
                        .of_resource(r),
                );
            }
        }
    }
}

/// A request's fields: per resource the seconds and instances asked, then
/// each `set_request()` line's figures.
fn request_fields<'a>(
    resources: &'a [RscRequestLine],
    set_requests: &'a [SetRequestLine],
    out: &mut Vec<Field<'a>>,
) {
    for line in resources {
        out.push(
            Field::num_within("req_secs", line.secs, 2, line.secs_slack).of_resource(&line.rsc),
        );
        out.push(
            Field::num_within("req_instances", line.inst, 2, line.inst_slack)
                .of_resource(&line.rsc),
        );
    }
    for line in set_requests {
        out.push(Field::num("nused_total", line.nused_total, 2).of_resource(&line.rsc));
        out.push(Field::num("nidle_now", line.nidle_now, 2).of_resource(&line.rsc));
        out.push(Field::num("fetch_share", line.fetch_share, 2).of_resource(&line.rsc));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_fixed_prints_as_the_standard_formatter() {
        let mut values = vec![
            0.0,
            -0.0,
            0.125,
            0.375,
            2.5,
            -2.5,
            0.005,
            1e-9,
            -1e-9,
            207359.996,
            1.0e15,
            4.1e15,
            123456.785,
            0.045,
            1.005,
            99.995,
            -0.0049,
            f64::NAN,
            f64::INFINITY,
            1e300,
        ];
        // A deterministic spread of magnitudes and fractions.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mantissa = (x >> 11) as f64 / (1u64 << 53) as f64;
            let exponent = (x % 23) as i32 - 8;
            let sign = if x & 1 == 0 { 1.0 } else { -1.0 };
            values.push(sign * mantissa * 10f64.powi(exponent));
        }
        for value in values {
            for decimals in [0usize, 1, 2, 3, 4, 6, 9, 12] {
                let mut out = String::new();
                write_fixed(&mut out, value, decimals);
                assert_eq!(out, format!("{value:.decimals$}"), "{value:e} {decimals}");
            }
        }
    }

    #[test]
    fn negative_zero_prints_with_sign_like_printf() {
        assert_eq!(Field::num("prio", -0.0, 3).value.render(), "-0.000");
        assert_eq!(Field::num("prio", 0.0, 6).value.render(), "0.000000");
    }

    #[test]
    fn line_is_stable() {
        let decision = Decision::Request {
            resources: vec![RscRequestLine {
                rsc: "CPU".into(),
                secs: 207360.0,
                inst: 4.0,
                inst_slack: 0.0,
                secs_slack: 0.0,
            }],
            set_requests: vec![],
        };
        assert_eq!(
            decision.line(),
            "CPU/req_secs=207360.00 CPU/req_instances=4.00"
        );
        assert_eq!(Decision::Choice(None).line(), "chosen_project=none");
    }
}

//! `--format html` / `audit --html FILE`: one self-contained HTML page of an
//! audit, to look at rather than read.
//!
//! - a summary: policy and why, agreement per decision kind, what was not
//!   checked and why, unreadable inputs;
//! - a timeline (inline SVG): one lane per CPU/GPU instance with the jobs as
//!   bars coloured by project, recorded above and replayed below
//!   ([`Lanes`]); work-fetch decisions and scheduler RPCs (request seconds
//!   and instances, jobs received) and divergences as markers on the time
//!   axis, each divergence linked to its table row;
//! - REC and priority per project as small line charts;
//! - the divergence table with the log lines around each, an anchor per
//!   divergence and a filter by kind and project (a few lines of inline
//!   script).
//!
//! Nothing is loaded from elsewhere when the page is opened: inline CSS,
//! inline SVG, inline script, no fonts, images or links out. Every text from
//! the trace is escaped ([`esc`]): a job or project name is data, never
//! markup. Written with `std::fmt` rather than a template engine: the page
//! has one layout, and one escaping function serves it.
//!
//! Architecture Invariant: consumes a DivergenceReport and nothing else.

use super::lanes::{Bar, Lanes};
use super::timeline::Side;
use crate::divergence::{DecisionKind, DivergenceReport};
use crate::golden::fixed;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Divergences listed in the table at most (the rest are counted).
const MAX_ROWS: usize = 2000;
/// Width of the timeline's drawing area, in SVG units.
const PLOT_WIDTH: f64 = 1100.0;
/// Left margin for the lane labels.
const LABEL_WIDTH: f64 = 110.0;
/// Height of one side of a lane.
const ROW: f64 = 12.0;
/// Colours of the projects, in order of first appearance.
const PALETTE: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#ff9da7", "#9c755f",
    "#bab0ac", "#86bcb6", "#d37295", "#a0cbe8",
];

/// `text` with the five HTML metacharacters escaped (for element content
/// and double- or single-quoted attribute values alike).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// What the two sides of the page are called: the recording and the
/// replay for an audit, `A` and `B` for a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sides<'a> {
    /// The upper side of each lane (a report's `recorded` texts).
    pub top: &'a str,
    /// The lower side (its `replayed` texts).
    pub bottom: &'a str,
    /// What two differing decisions are called (`diverge`, `differ`).
    pub differ: &'a str,
}

/// The sides of an audit.
pub const AUDIT: Sides<'static> = Sides {
    top: "recorded",
    bottom: "replayed",
    differ: "diverge",
};

/// Writes the page of `report`.
pub fn write_html(report: &DivergenceReport, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(page(report).as_bytes())
}

/// Writes the page of `report` with its sides named `sides`.
pub fn write_html_with(
    report: &DivergenceReport,
    sides: Sides<'_>,
    out: &mut dyn Write,
) -> io::Result<()> {
    out.write_all(page_with(report, sides).as_bytes())
}

/// The page of an audit.
pub fn page(report: &DivergenceReport) -> String {
    page_with(report, AUDIT)
}

/// The page of `report` with its sides named `sides`.
pub fn page_with(report: &DivergenceReport, sides: Sides<'_>) -> String {
    let lanes = Lanes::of(report);
    let colours = Colours::of(report, &lanes);
    let mut html = String::with_capacity(64 * 1024);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>boinc-audit: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(&report.trace)
    );
    let _ = writeln!(
        html,
        "<header><h1>boinc-audit report</h1><p class=\"trace\">{}</p></header>",
        esc(&report.trace)
    );
    summary(&mut html, report, sides);
    timeline(&mut html, report, &lanes, &colours, sides);
    rec_charts(&mut html, report, &colours);
    divergence_table(&mut html, report, sides);
    let _ = write!(html, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    html
}

fn summary(html: &mut String, report: &DivergenceReport, sides: Sides<'_>) {
    let checked = report.n_checked();
    let divergent = report.n_divergent();
    let _ = writeln!(html, "<section id=\"summary\"><h2>Summary</h2>");
    if !report.input_errors.is_empty() {
        let _ = writeln!(
            html,
            "<div class=\"errors\"><p>{} input problem(s): lines the audit went on without, or inputs that disagree with the log</p><ul>",
            report.input_errors.len()
        );
        for error in &report.input_errors {
            let _ = writeln!(html, "<li>{}</li>", esc(error));
        }
        let _ = writeln!(html, "</ul></div>");
    }
    let verdict = if checked == 0 {
        "nothing could be checked (see below for what is missing)".to_string()
    } else if divergent == 0 {
        format!("no divergence in {checked} checked decision point(s)")
    } else {
        format!(
            "{divergent} of {checked} checked decision point(s) {}",
            sides.differ
        )
    };
    let _ = writeln!(
        html,
        "<p class=\"verdict {}\">{}</p>",
        if divergent > 0 { "bad" } else { "good" },
        esc(&verdict)
    );
    let _ = writeln!(html, "<dl>");
    let mut item = |term: &str, value: &str| {
        let _ = writeln!(html, "<dt>{}</dt><dd>{}</dd>", esc(term), esc(value));
    };
    item("policy", &report.policy);
    item("why", &report.policy_reason);
    if let Some(release) = &report.release {
        item("release", release);
    }
    item(
        "agreement",
        &format!(
            "{} ({} decision points, {checked} checked, {} not checked)",
            fixed(report.agreement(), 4),
            report.n_points(),
            report.n_points() - checked
        ),
    );
    let _ = writeln!(html, "</dl>");
    let _ = writeln!(
        html,
        "<table class=\"kinds\"><thead><tr><th>kind</th><th>points</th><th>checked</th>\
         <th>agree</th><th>{}</th><th>not checked</th></tr></thead><tbody>",
        sides.differ
    );
    for (kind, count) in report.by_kind() {
        let checked = count.total - count.unchecked;
        let _ = writeln!(
            html,
            "<tr><td>{kind}</td><td>{}</td><td>{checked}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>",
            count.total,
            checked - count.divergent,
            if count.divergent > 0 { "bad" } else { "" },
            count.divergent,
            count.unchecked
        );
    }
    let _ = writeln!(html, "</tbody></table>");
    if !report.unchecked.is_empty() {
        let _ = writeln!(html, "<h3>Not checked</h3><ul class=\"unchecked\">");
        for u in &report.unchecked {
            let _ = writeln!(html, "<li><b>{}</b>: {}</li>", esc(&u.what), esc(&u.why));
        }
        let _ = writeln!(html, "</ul>");
    }
    let _ = writeln!(html, "</section>");
}

/// A colour per project, in order of first appearance.
struct Colours {
    of: BTreeMap<String, &'static str>,
}

impl Colours {
    fn of(report: &DivergenceReport, lanes: &Lanes) -> Colours {
        let mut of = BTreeMap::new();
        let names = lanes
            .bars
            .iter()
            .filter_map(|b| b.project.clone())
            .chain(report.activity.rec.iter().map(|r| r.project.clone()));
        for name in names {
            let next = PALETTE[of.len() % PALETTE.len()];
            of.entry(name).or_insert(next);
        }
        Colours { of }
    }

    fn get(&self, project: Option<&str>) -> &'static str {
        project
            .and_then(|p| self.of.get(p))
            .copied()
            .unwrap_or("#888888")
    }
}

/// Time on the x axis.
struct Axis {
    start: f64,
    span: f64,
}

impl Axis {
    fn x(&self, t: f64) -> f64 {
        LABEL_WIDTH + ((t - self.start) / self.span).clamp(0.0, 1.0) * PLOT_WIDTH
    }
}

/// A round tick interval for `span` seconds: about eight ticks.
fn tick_step(span: f64) -> f64 {
    const STEPS: [f64; 14] = [
        60.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 10800.0, 21600.0, 43200.0, 86400.0,
        172800.0, 604800.0, 2592000.0,
    ];
    STEPS
        .into_iter()
        .find(|step| span / step <= 10.0)
        .unwrap_or(span / 8.0)
}

/// `+2 h 30 min`.
fn offset_label(secs: f64) -> String {
    let secs = secs.round() as i64;
    let (d, h, m) = (secs / 86400, secs % 86400 / 3600, secs % 3600 / 60);
    match (d, h, m) {
        (0, 0, m) => format!("+{m} min"),
        (0, h, 0) => format!("+{h} h"),
        (0, h, m) => format!("+{h} h {m} min"),
        (d, 0, 0) => format!("+{d} d"),
        (d, h, _) => format!("+{d} d {h} h"),
    }
}

fn timeline(
    html: &mut String,
    report: &DivergenceReport,
    lanes: &Lanes,
    colours: &Colours,
    sides: Sides<'_>,
) {
    let _ = writeln!(html, "<section id=\"timeline\"><h2>Timeline</h2>");
    if lanes.lanes.is_empty() {
        let _ = writeln!(
            html,
            "<p class=\"note\">No enforcement decisions in the trace: nothing to draw per CPU and GPU instance (turn on cpu_sched_debug).</p>"
        );
    }
    if !lanes.start.is_finite() {
        let _ = writeln!(html, "</section>");
        return;
    }
    let axis = Axis {
        start: lanes.start,
        span: (lanes.end - lanes.start).max(1.0),
    };
    let first_label = report
        .points
        .iter()
        .min_by(|a, b| a.time.total_cmp(&b.time))
        .map(|p| p.time_label.clone())
        .unwrap_or_default();
    let _ = writeln!(
        html,
        "<p class=\"note\">Time from the first decision ({}). Each lane is one instance: \
         {} jobs above the thin line, {} below. Markers: work fetch (blue), \
         scheduler RPCs (black), decisions that {} (red, linked to the table).</p>",
        esc(&first_label),
        esc(sides.top),
        esc(sides.bottom),
        esc(sides.differ)
    );
    // Rows: three marker rows, then two rows per lane.
    let marker_rows = 3.0;
    let top = 24.0;
    let lane_height = 2.0 * ROW + 6.0;
    let height = top + marker_rows * ROW + 8.0 + lanes.lanes.len() as f64 * lane_height + 10.0;
    let width = LABEL_WIDTH + PLOT_WIDTH + 20.0;
    let _ = writeln!(
        html,
        "<svg id=\"lanes\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\" aria-label=\"jobs per instance over time\">"
    );
    // Ticks.
    let step = tick_step(axis.span);
    let mut t = 0.0;
    while t <= axis.span + 1e-9 {
        let x = axis.x(axis.start + t);
        let _ = writeln!(
            html,
            "<line class=\"tick\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/>\
             <text class=\"ticklabel\" x=\"{x:.1}\" y=\"12\">{}</text>",
            top - 4.0,
            height - 6.0,
            esc(&offset_label(t))
        );
        t += step;
    }
    // Marker rows.
    let fetch_y = top;
    let rpc_y = top + ROW;
    let div_y = top + 2.0 * ROW;
    for (y, label) in [
        (fetch_y, "work fetch"),
        (rpc_y, "RPCs"),
        (div_y, "divergences"),
    ] {
        let _ = writeln!(
            html,
            "<text class=\"rowlabel\" x=\"4\" y=\"{:.1}\">{label}</text>",
            y + ROW - 3.0
        );
    }
    for point in &report.points {
        if !matches!(
            point.kind,
            DecisionKind::WorkFetchChoice | DecisionKind::WorkRequest
        ) {
            continue;
        }
        // A choice of no project is not worth a marker.
        if point.kind == DecisionKind::WorkFetchChoice && point.project.is_none() {
            continue;
        }
        let x = axis.x(point.time);
        let _ = writeln!(
            html,
            "<circle class=\"fetch-marker\" data-kind=\"{}\" cx=\"{x:.1}\" cy=\"{:.1}\" r=\"3.5\">\
             <title>{} {} {}: {}</title></circle>",
            point.kind,
            fetch_y + ROW / 2.0,
            esc(&point.time_label),
            point.kind,
            esc(point.project.as_deref().unwrap_or("-")),
            esc(&point.recorded)
        );
    }
    for rpc in &report.activity.rpcs {
        let x = axis.x(rpc.time);
        let received = rpc
            .received
            .map(|n| format!("; {n} job(s) received"))
            .unwrap_or_default();
        let request = if rpc.request.is_empty() {
            String::new()
        } else {
            format!(": {}", rpc.request)
        };
        let _ = writeln!(
            html,
            "<rect class=\"rpc-marker\" x=\"{:.1}\" y=\"{:.1}\" width=\"3\" height=\"{:.1}\">\
             <title>{} RPC to {}{}{}</title></rect>",
            x - 1.5,
            rpc_y + 1.0,
            ROW - 2.0,
            esc(&rpc.time_label),
            esc(&rpc.project),
            esc(&request),
            esc(&received)
        );
    }
    for (idx, d) in report.divergences.iter().enumerate().take(MAX_ROWS) {
        let x = axis.x(d.time);
        let y = div_y + 1.0;
        let _ = writeln!(
            html,
            "<a class=\"divergence-link\" href=\"#d{idx}\"><path class=\"div-marker\" data-kind=\"{}\" \
             d=\"M{:.1} {y:.1} L{:.1} {y:.1} L{x:.1} {:.1} Z\"><title>{} {} {}: recorded {}, replayed {}</title></path></a>",
            d.kind,
            x - 4.0,
            x + 4.0,
            y + ROW - 2.0,
            esc(&d.time_label),
            d.kind,
            esc(&d.field),
            esc(&d.recorded),
            esc(&d.replayed)
        );
    }
    // Lanes.
    let lanes_top = top + marker_rows * ROW + 8.0;
    for (idx, lane) in lanes.lanes.iter().enumerate() {
        let y = lanes_top + idx as f64 * lane_height;
        let label = if lane.extra {
            format!("{} (extra)", lane.label())
        } else {
            lane.label()
        };
        let _ = writeln!(
            html,
            "<g class=\"lane\" data-lane=\"{}\"><rect class=\"lanebg\" x=\"{LABEL_WIDTH:.0}\" y=\"{y:.1}\" \
             width=\"{PLOT_WIDTH:.0}\" height=\"{:.1}\"/><line class=\"sidesep\" x1=\"{LABEL_WIDTH:.0}\" \
             y1=\"{:.1}\" x2=\"{:.0}\" y2=\"{:.1}\"/><text class=\"lanelabel\" x=\"4\" y=\"{:.1}\">{}</text>\
             <text class=\"sidelabel\" x=\"{:.0}\" y=\"{:.1}\">{}</text><text class=\"sidelabel\" x=\"{:.0}\" y=\"{:.1}\">{}</text></g>",
            esc(&lane.label()),
            2.0 * ROW,
            y + ROW,
            LABEL_WIDTH + PLOT_WIDTH,
            y + ROW,
            y + ROW + 4.0,
            esc(&label),
            LABEL_WIDTH - 26.0,
            y + ROW - 2.0,
            esc(&short(sides.top)),
            LABEL_WIDTH - 26.0,
            y + 2.0 * ROW - 2.0,
            esc(&short(sides.bottom))
        );
    }
    for bar in &lanes.bars {
        bar_svg(
            html,
            bar,
            &axis,
            lanes_top + bar.lane as f64 * lane_height,
            colours,
            sides,
        );
    }
    let _ = writeln!(html, "</svg>");
    if !colours.of.is_empty() {
        let _ = write!(html, "<p class=\"legend\">");
        for (project, colour) in &colours.of {
            let _ = write!(
                html,
                "<span class=\"swatch\" style=\"background:{colour}\"></span>{} ",
                esc(project)
            );
        }
        let _ = writeln!(html, "</p>");
    }
    let _ = writeln!(html, "</section>");
}

/// The first three letters of a side's name, for the lane labels.
fn short(name: &str) -> String {
    name.chars().take(3).collect()
}

fn bar_svg(
    html: &mut String,
    bar: &Bar,
    axis: &Axis,
    lane_y: f64,
    colours: &Colours,
    sides: Sides<'_>,
) {
    let (class, name, y) = match bar.side {
        Side::Recorded => ("recorded", sides.top, lane_y + 1.0),
        Side::Replayed => ("replayed", sides.bottom, lane_y + ROW + 1.0),
    };
    let x0 = axis.x(bar.start);
    let x1 = axis.x(bar.end);
    let project = bar.project.as_deref();
    let _ = writeln!(
        html,
        "<rect class=\"bar {class}\" data-project=\"{}\" x=\"{x0:.2}\" y=\"{y:.1}\" width=\"{:.2}\" \
         height=\"{:.1}\" fill=\"{}\"><title>{}: {} ({}), {} to {}</title></rect>",
        esc(project.unwrap_or("")),
        (x1 - x0).max(0.5),
        ROW - 2.0,
        colours.get(project),
        esc(name),
        esc(&bar.job),
        esc(project.unwrap_or("project not named")),
        esc(&offset_label(bar.start - axis.start)),
        esc(&offset_label(bar.end - axis.start))
    );
}

/// REC and priority per project as small line charts.
fn rec_charts(html: &mut String, report: &DivergenceReport, colours: &Colours) {
    let _ = writeln!(
        html,
        "<section id=\"rec\"><h2>REC and priority per project</h2>"
    );
    let samples = &report.activity.rec;
    if samples.is_empty() {
        let _ = writeln!(
            html,
            "<p class=\"note\">The trace prints no REC or priority (priority_debug off).</p></section>"
        );
        return;
    }
    for (title, pick) in [
        (
            "REC",
            (|s: &crate::divergence::RecSample| s.rec) as fn(&_) -> Option<f64>,
        ),
        ("priority", |s: &crate::divergence::RecSample| s.prio),
    ] {
        let mut series: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for s in samples {
            if let Some(v) = pick(s).filter(|v| v.is_finite()) {
                series
                    .entry(s.project.as_str())
                    .or_default()
                    .push((s.time, v));
            }
        }
        if series.is_empty() {
            continue;
        }
        let points = series.values().flatten();
        let (mut t0, mut t1, mut v0, mut v1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(t, v) in points {
            t0 = t0.min(t);
            t1 = t1.max(t);
            v0 = v0.min(v);
            v1 = v1.max(v);
        }
        let (w, h, pad) = (520.0, 150.0, 34.0);
        let x = |t: f64| pad + (t - t0) / (t1 - t0).max(1e-9) * (w - pad - 6.0);
        let y = |v: f64| 6.0 + (1.0 - (v - v0) / (v1 - v0).max(1e-12)) * (h - 24.0);
        let _ = writeln!(
            html,
            "<figure class=\"chart\"><figcaption>{title}</figcaption>\
             <svg class=\"rec-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\">\
             <text class=\"ticklabel\" x=\"2\" y=\"12\">{}</text><text class=\"ticklabel\" x=\"2\" y=\"{:.0}\">{}</text>",
            esc(&compact(v1)),
            h - 18.0,
            esc(&compact(v0))
        );
        for (project, values) in &series {
            let mut path = String::new();
            for (i, &(t, v)) in values.iter().enumerate() {
                let _ = write!(
                    path,
                    "{}{:.1} {:.1}",
                    if i == 0 { "M" } else { " L" },
                    x(t),
                    y(v)
                );
            }
            let _ = writeln!(
                html,
                "<path class=\"series\" data-project=\"{}\" d=\"{path}\" stroke=\"{}\"><title>{}</title></path>",
                esc(project),
                colours.get(Some(project)),
                esc(project)
            );
        }
        let _ = writeln!(html, "</svg></figure>");
    }
    let _ = writeln!(html, "</section>");
}

/// A short number for an axis label.
fn compact(v: f64) -> String {
    if v.abs() >= 1e4 {
        format!("{v:.3e}")
    } else {
        fixed(v, 3)
    }
}

fn divergence_table(html: &mut String, report: &DivergenceReport, sides: Sides<'_>) {
    let _ = writeln!(html, "<section id=\"divergences\"><h2>Divergences</h2>");
    if report.divergences.is_empty() {
        let text = if report.n_checked() == 0 {
            "None found, but nothing was checked: see what is missing above."
        } else {
            "None: every checked decision agrees."
        };
        let _ = writeln!(html, "<p class=\"note\">{text}</p></section>");
        return;
    }
    let kinds: std::collections::BTreeSet<String> = report
        .divergences
        .iter()
        .map(|d| d.kind.to_string())
        .collect();
    let projects: std::collections::BTreeSet<&str> = report
        .divergences
        .iter()
        .filter_map(|d| d.project.as_deref())
        .collect();
    let _ = write!(
        html,
        "<p class=\"filters\"><label>kind <select id=\"kind-filter\"><option value=\"\">all</option>"
    );
    for kind in &kinds {
        let _ = write!(html, "<option>{}</option>", esc(kind));
    }
    let _ = write!(
        html,
        "</select></label> <label>project <select id=\"project-filter\"><option value=\"\">all</option>"
    );
    for project in &projects {
        let _ = write!(html, "<option>{}</option>", esc(project));
    }
    let _ = writeln!(
        html,
        "</select></label> <span id=\"shown\"></span></p>\
         <table id=\"div-table\"><thead><tr><th>#</th><th>time</th><th>kind</th><th>project</th>\
         <th>resource</th><th>job</th><th>field</th><th>{}</th><th>{}</th><th>why</th>\
         </tr></thead><tbody>",
        esc(sides.top),
        esc(sides.bottom)
    );
    for (idx, d) in report.divergences.iter().enumerate().take(MAX_ROWS) {
        let context = report
            .contexts
            .get(idx)
            .filter(|lines| !lines.is_empty())
            .map(|lines| {
                let text: Vec<String> = lines.iter().map(|l| esc(l)).collect();
                format!(
                    "<details><summary>log lines</summary><pre>{}</pre></details>",
                    text.join("\n")
                )
            })
            .unwrap_or_default();
        let location = d
            .location
            .as_ref()
            .map(|l| format!("<div class=\"loc\">{}</div>", esc(&l.to_string())))
            .unwrap_or_default();
        let _ = writeln!(
            html,
            "<tr id=\"d{idx}\" class=\"divergence\" data-kind=\"{}\" data-project=\"{}\"><td><a href=\"#d{idx}\">{idx}</a></td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"rec\">{}</td>\
             <td class=\"rep\">{}</td><td>{}{location}{context}</td></tr>",
            d.kind,
            esc(d.project.as_deref().unwrap_or("")),
            esc(&d.time_label),
            d.kind,
            esc(d.project.as_deref().unwrap_or("-")),
            esc(d.resource.as_deref().unwrap_or("-")),
            esc(d.job.as_deref().unwrap_or("-")),
            esc(&d.field),
            esc(&d.recorded),
            esc(&d.replayed),
            esc(&d.reason)
        );
    }
    let _ = writeln!(html, "</tbody></table>");
    if report.divergences.len() > MAX_ROWS {
        let _ = writeln!(
            html,
            "<p class=\"note\">{} more divergence(s) not listed (see --format json or csv).</p>",
            report.divergences.len() - MAX_ROWS
        );
    }
    let _ = writeln!(html, "</section>");
}

const STYLE: &str = "
body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em;color:#222;background:#fff}
h1{font-size:1.4em;margin:0}h2{font-size:1.15em;border-bottom:1px solid #ddd;padding-bottom:2px;margin-top:1.6em}
.trace{font-family:monospace;color:#555;margin:.2em 0 0}
.verdict{font-weight:600}.verdict.bad,td.bad{color:#b00020}.verdict.good{color:#1b7f3b}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dt{font-weight:600}dd{margin:0}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.rec{color:#b00020}td.rep{color:#1b7f3b}.loc{font-family:monospace;color:#777;font-size:12px}
pre{margin:2px 0;font-size:12px;white-space:pre-wrap}.errors{border:1px solid #b00020;padding:4px 10px;background:#fff4f4}
.note{color:#555}.legend{font-size:13px}.swatch{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px;border-radius:2px}
svg text{font:11px system-ui,sans-serif;fill:#333}.ticklabel{fill:#777}.tick{stroke:#eee}
.lanebg{fill:#fafafa;stroke:#e4e4e4}.sidesep{stroke:#ccc;stroke-dasharray:2 2}.sidelabel{fill:#999;font-size:9px}
.bar{stroke:#fff;stroke-width:.5}.bar.replayed{opacity:.85}
.fetch-marker{fill:#1f5fbf}.rpc-marker{fill:#222}.div-marker{fill:#d0021b}
.series{fill:none;stroke-width:1.5}figure.chart{display:inline-block;margin:0 16px 8px 0}figcaption{font-weight:600}
tr:target{outline:2px solid #d0021b}
";

const SCRIPT: &str = "
(function(){
  var kind=document.getElementById('kind-filter'),project=document.getElementById('project-filter'),shown=document.getElementById('shown');
  if(!kind||!project)return;
  function apply(){
    var rows=document.querySelectorAll('#div-table tr.divergence'),n=0;
    for(var i=0;i<rows.length;i++){
      var r=rows[i],ok=(!kind.value||r.getAttribute('data-kind')===kind.value)&&(!project.value||r.getAttribute('data-project')===project.value);
      r.style.display=ok?'':'none';if(ok)n++;
    }
    shown.textContent=n+' of '+rows.length+' shown';
  }
  kind.addEventListener('change',apply);project.addEventListener('change',apply);apply();
})();
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;

    #[test]
    fn trace_text_is_escaped() {
        assert_eq!(
            esc("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
        let mut report = sample_report();
        report.trace = "<script>alert(1)</script>".into();
        report.divergences[0].job = Some("J\"><img src=x onerror=alert(1)>".into());
        let page = page(&report);
        assert!(!page.contains("<script>alert"));
        assert!(!page.contains("<img"));
        assert_eq!(
            page.matches("<script>").count(),
            1,
            "only the page's own script"
        );
    }

    #[test]
    fn page_is_self_contained_and_links_every_divergence() {
        let report = sample_report();
        let page = page(&report);
        for needle in ["http://", "https://", "src=", "@import", "url("] {
            let outside_svg_ns = page.replace("http://www.w3.org/2000/svg", "");
            assert!(!outside_svg_ns.contains(needle), "{needle} in the page");
        }
        for idx in 0..report.divergences.len() {
            assert!(page.contains(&format!("href=\"#d{idx}\"")));
            assert!(page.contains(&format!("<tr id=\"d{idx}\"")));
        }
    }
}

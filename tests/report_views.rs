//! The views of an audit a person looks at: the HTML page and the Chrome
//! trace, on a trimmed copy of the reference scenario
//! `seed_cpu_gpu_two_projects` (4 CPUs, 1 NVIDIA GPU; its SCENARIO.md) and
//! on a copy whose recorded request was changed by hand.

use std::path::{Path, PathBuf};
use std::process::Command;

const SEED: &str = "traces/valid/seed_cpu_gpu_two_projects";

fn audit(trace: &Path, format: &str) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_boinc-audit"))
        .arg("audit")
        .arg(trace)
        .args(["--format", format])
        .output()
        .expect("run boinc-audit");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// A copy of the seed trace whose first non-empty CPU request asks for one
/// second more than the client asked (the line as printed, changed).
fn tampered(name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!(
        "boinc-audit-tampered-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["inputs", "outputs"] {
        std::fs::create_dir_all(dir.join(sub)).expect("temp dir");
        for entry in std::fs::read_dir(Path::new(SEED).join(sub)).expect("seed trace") {
            let entry = entry.expect("entry");
            std::fs::copy(entry.path(), dir.join(sub).join(entry.file_name())).expect("copy");
        }
    }
    let log_path = dir.join("outputs/log.txt");
    let log = std::fs::read_to_string(&log_path).expect("log");
    let mut time = String::new();
    let mut done = false;
    let lines: Vec<String> = log
        .lines()
        .map(|line| {
            if !done
                && line.contains("RPC: [work_fetch] request: CPU (")
                && !line.contains("CPU (0.00 sec")
            {
                done = true;
                time = line.split(' ').next().unwrap_or_default().to_string();
                line.replacen("request: CPU (", "request: CPU (1", 1)
            } else {
                line.to_string()
            }
        })
        .collect();
    assert!(done, "the seed trace has a CPU request");
    std::fs::write(&log_path, lines.join("\n") + "\n").expect("write");
    (dir, time)
}

fn count(page: &str, needle: &str) -> usize {
    page.matches(needle).count()
}

#[test]
fn html_page_has_a_lane_per_instance_and_both_sides() {
    let (code, page) = audit(Path::new(SEED), "html");
    assert_eq!(code, Some(0));
    let lanes: Vec<&str> = page
        .split("<g class=\"lane\" data-lane=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert_eq!(lanes, ["CPU 0", "CPU 1", "CPU 2", "CPU 3", "NVIDIA 0"]);
    assert!(count(&page, "class=\"bar recorded\"") > 0);
    assert!(count(&page, "class=\"bar replayed\"") > 0);
    assert!(count(&page, "class=\"fetch-marker\"") > 0);
    assert!(count(&page, "class=\"rpc-marker\"") > 0);
    assert_eq!(count(&page, "class=\"div-marker\""), 0);
    // Self-contained: nothing to fetch when opened.
    let without_ns = page.replace("http://www.w3.org/2000/svg", "");
    for needle in ["http://", "https://", " src=", "url("] {
        assert!(!without_ns.contains(needle), "{needle} in the page");
    }
}

#[test]
fn a_changed_request_is_a_marker_linked_to_its_row() {
    let (dir, time) = tampered("html");
    let (code, page) = audit(&dir, "html");
    assert_eq!(code, Some(1), "the changed request diverges");
    let markers = count(&page, "class=\"div-marker\" data-kind=\"work_request\"");
    assert!(markers >= 1, "a work_request marker");
    assert!(page.contains("<a class=\"divergence-link\" href=\"#d0\">"));
    let row = page
        .split("<tr id=\"d0\"")
        .nth(1)
        .expect("the first divergence's row");
    assert!(row.contains("data-kind=\"work_request\""), "{row}");
    assert!(
        row.contains(&format!("<td>{time}</td>")),
        "at {time}: {row}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn chrome_trace_follows_the_trace_event_format() {
    let (code, text) = audit(Path::new(SEED), "chrome-trace");
    assert_eq!(code, Some(0));
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(
        boinc_audit::report::chrome_trace::format_violations(&value),
        Vec::<String>::new()
    );
    let events = value["traceEvents"].as_array().expect("traceEvents");
    let tracks: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 1)
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert_eq!(tracks, ["CPU 0", "CPU 1", "CPU 2", "CPU 3", "NVIDIA 0"]);
    assert!(events.iter().any(|e| e["ph"] == "X" && e["pid"] == 2));
    assert!(events.iter().any(|e| e["ph"] == "i" && e["cat"] == "rpc"));
    assert!(events
        .iter()
        .any(|e| e["ph"] == "i" && e["cat"] == "work_fetch"));
    let (dir, _) = tampered("chrome");
    let (_, text) = audit(&dir, "chrome-trace");
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let divergences = value["traceEvents"]
        .as_array()
        .map(|e| e.iter().filter(|e| e["cat"] == "divergence").count());
    assert!(divergences >= Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lane labels of an HTML page.
fn lanes_of(page: &str) -> Vec<String> {
    page.split("<g class=\"lane\" data-lane=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn simulate_and_compare_draw_their_runs() {
    let dir = std::env::temp_dir().join(format!("boinc-audit-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let sim = dir.join("sim.html");
    let status = Command::new(env!("CARGO_BIN_EXE_boinc-audit"))
        .args(["simulate", SEED, "--html"])
        .arg(&sim)
        .output()
        .expect("run simulate");
    assert_eq!(
        status.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let page = std::fs::read_to_string(&sim).expect("simulate page");
    assert_eq!(
        lanes_of(&page),
        ["CPU 0", "CPU 1", "CPU 2", "CPU 3", "NVIDIA 0"]
    );
    assert!(
        count(&page, "class=\"bar recorded\"") > 0,
        "the simulated jobs"
    );
    assert!(
        page.contains("<title>simulated: "),
        "bars named after the run"
    );

    let cmp = dir.join("cmp.html");
    let status = Command::new(env!("CARGO_BIN_EXE_boinc-audit"))
        .args([
            "compare", SEED, "--policy", "current", "--policy", "7.16.21", "--html",
        ])
        .arg(&cmp)
        .output()
        .expect("run compare");
    // 7.16.21 builds run lists differently (policy profiles): the sides differ.
    assert_eq!(status.status.code(), Some(1));
    let page = std::fs::read_to_string(&cmp).expect("compare page");
    assert_eq!(
        lanes_of(&page),
        ["CPU 0", "CPU 1", "CPU 2", "CPU 3", "NVIDIA 0"]
    );
    let markers = count(&page, "class=\"div-marker\"");
    let rows = count(&page, "<tr id=\"d");
    assert!(
        markers > 0 && markers == rows,
        "{markers} markers, {rows} rows"
    );
    assert!(page.contains("<th>A</th><th>B</th>"));
    let _ = std::fs::remove_dir_all(&dir);
}

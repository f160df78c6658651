//! global_prefs.xml, global_prefs_override.xml, the 6.10 emulator's
//! sim_prefs.xml, and the preference blocks inside scheduler RPCs
//! (formats-xml.md §4).
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! Whether a file is the override is decided by its file name
//! (`global_prefs_override.xml`, optionally `.gz`): web and override
//! preferences share the root element and the element set, so the content
//! cannot tell them apart reliably. Preferences embedded in an RPC are never
//! the override file itself. Unknown elements are counted, not reported.

use crate::parse::error::Parsed;
use crate::parse::xml::{fields, parse_whole, Element, XmlDoc};
use crate::source::SourcePath;
use crate::trace::state::{DayPrefs, GlobalPrefs, PrefsValues, PrefsVenue};

/// Parses a whole preferences file; `is_override` comes from `path`.
pub fn parse_global_prefs(path: &SourcePath, bytes: &[u8]) -> Parsed<GlobalPrefs> {
    parse_whole(path, bytes, read_global_prefs_doc)
}

/// True when `path` names a global_prefs_override.xml.
pub fn is_override_path(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let name = name.strip_suffix(".gz").unwrap_or(name);
    name == "global_prefs_override.xml"
}

/// Reads the document of `doc` as a preferences file (problems stay in `doc`).
pub(crate) fn read_global_prefs_doc(doc: &mut XmlDoc<'_>) -> Option<GlobalPrefs> {
    let root = doc.parse_root();
    let root = doc.expect_root(root, &["global_preferences"])?;
    let mut prefs = read_global_prefs(doc, &root);
    prefs.path = doc.path.to_string();
    prefs.is_override = is_override_path(&prefs.path);
    Some(prefs)
}

/// Reads a `<global_preferences>` (or `<working_global_preferences>`) element.
pub(crate) fn read_global_prefs(doc: &mut XmlDoc<'_>, element: &Element) -> GlobalPrefs {
    let mut prefs = GlobalPrefs::default();
    for child in &element.children {
        match child.name.as_str() {
            "source_project" => prefs.source_project = doc.string(child),
            "source_scheduler" => prefs.source_scheduler = doc.string(child),
            "mod_time" => prefs.mod_time = doc.read(child),
            "venue" => {
                let mut venue = PrefsVenue {
                    name: child.attr("name").unwrap_or_default().to_string(),
                    values: PrefsValues::default(),
                };
                for value in &child.children {
                    read_value(doc, &mut venue.values, value);
                }
                prefs.venues.push(venue);
            }
            _ => read_value(doc, &mut prefs.values, child),
        }
    }
    prefs
}

fn read_value(doc: &mut XmlDoc<'_>, values: &mut PrefsValues, child: &Element) {
    if child.name == "day_prefs" {
        let mut day = DayPrefs::default();
        for part in &child.children {
            if !fields!(
                doc,
                part,
                day,
                [
                    day_of_week,
                    start_hour,
                    end_hour,
                    net_start_hour,
                    net_end_hour
                ]
            ) {
                doc.unknown(part);
            }
        }
        values.day_prefs.push(day);
        return;
    }
    if !fields!(
        doc,
        child,
        values,
        [
            work_buf_min_days,
            work_buf_additional_days,
            max_ncpus_pct,
            niu_max_ncpus_pct,
            max_cpus,
            cpu_usage_limit,
            niu_cpu_usage_limit,
            suspend_cpu_usage,
            niu_suspend_cpu_usage,
            cpu_scheduling_period_minutes,
            run_if_user_active,
            run_gpu_if_user_active,
            idle_time_to_run,
            suspend_if_no_recent_input,
            run_on_batteries,
            battery_charge_min_pct,
            battery_max_temperature,
            start_hour,
            end_hour,
            net_start_hour,
            net_end_hour,
            leave_apps_in_memory,
            disk_interval,
            disk_max_used_gb,
            disk_max_used_pct,
            disk_min_free_gb,
            vm_max_used_pct,
            ram_max_used_busy_pct,
            ram_max_used_idle_pct,
            max_bytes_sec_up,
            max_bytes_sec_down,
            daily_xfer_limit_mb,
            daily_xfer_period_days,
            network_wifi_only,
            confirm_before_connecting,
            hangup_if_dialed,
            dont_verify_images,
            override_file_present,
            host_specific,
        ]
    ) {
        doc.unknown(child);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_prefs_with_venue() {
        let parsed = parse_global_prefs(
            &SourcePath::from("d/global_prefs.xml"),
            b"<global_preferences>\n<source_project>http://a.org/</source_project>\n\
              <mod_time>1500000000</mod_time>\n<work_buf_min_days>0.1</work_buf_min_days>\n\
              <run_if_user_active/>\n<day_prefs><day_of_week>1</day_of_week><start_hour>8</start_hour></day_prefs>\n\
              <venue name=\"home\">\n<work_buf_min_days>2</work_buf_min_days>\n</venue>\n\
              </global_preferences>",
        );
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let prefs = parsed.value;
        assert!(!prefs.is_override);
        assert_eq!(prefs.mod_time, Some(1.5e9));
        assert_eq!(prefs.values.work_buf_min_days, Some(0.1));
        assert_eq!(prefs.values.run_if_user_active, Some(true));
        assert_eq!(prefs.values.day_prefs[0].start_hour, Some(8.0));
        assert_eq!(prefs.venues[0].name, "home");
        assert_eq!(prefs.venues[0].values.work_buf_min_days, Some(2.0));
    }

    #[test]
    fn override_by_file_name() {
        assert!(is_override_path("x/global_prefs_override.xml"));
        assert!(is_override_path("global_prefs_override.xml.gz"));
        assert!(!is_override_path("x/global_prefs.xml"));
        assert!(!is_override_path("sim_prefs.xml"));
    }
}

//! projects/<dir>/app_config.xml (formats-xml.md §5).
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! The project is named by the directory in the path
//! (`…/projects/<dir>/app_config.xml`, `<dir>` being the escaped master URL);
//! a file elsewhere has no project (`project_dir: None`). Unknown elements
//! are counted, not reported.

use crate::parse::error::Parsed;
use crate::parse::xml::{fields, parse_whole, XmlDoc};
use crate::source::SourcePath;
use crate::trace::state::{AppConfig, AppConfigApp, AppConfigVersion, GpuVersions};

/// Parses a whole app_config.xml.
pub fn parse_app_config(path: &SourcePath, bytes: &[u8]) -> Parsed<AppConfig> {
    parse_whole(path, bytes, read_app_config_doc)
}

/// The `<dir>` of a path `…/projects/<dir>/<file>`.
pub fn project_dir_of(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split(['/', '\\']).collect();
    let n_parts = parts.len();
    (n_parts >= 3 && parts[n_parts - 3] == "projects" && !parts[n_parts - 2].is_empty())
        .then(|| parts[n_parts - 2].to_string())
}

/// Reads the document of `doc` as an app_config.xml (problems stay in `doc`).
pub(crate) fn read_app_config_doc(doc: &mut XmlDoc<'_>) -> Option<AppConfig> {
    let root = doc.parse_root();
    let root = doc.expect_root(root, &["app_config"])?;
    let mut config = AppConfig {
        path: doc.path.to_string(),
        project_dir: project_dir_of(&doc.path),
        ..AppConfig::default()
    };
    for child in &root.children {
        // APP_CONFIG::parse and APP_VERSION_CONFIG::parse fail at the end
        // of the file: the entry is not kept and APP_CONFIGS::parse stops.
        if !child.complete && matches!(child.name.as_str(), "app" | "app_version") {
            config.client_parse_error =
                Some(format!("Missing </{}> in app_config.xml", child.name));
            break;
        }
        match child.name.as_str() {
            "app" => {
                let mut app = AppConfigApp::default();
                for part in &child.children {
                    if part.name == "gpu_versions" {
                        let mut gpu = GpuVersions::default();
                        for usage in &part.children {
                            if !fields!(doc, usage, gpu, [gpu_usage, cpu_usage]) {
                                doc.unknown(usage);
                            }
                        }
                        app.gpu_versions = Some(gpu);
                    } else if !fields!(
                        doc,
                        part,
                        app,
                        [name, max_concurrent],
                        flags[report_results_immediately, fraction_done_exact]
                    ) {
                        doc.unknown(part);
                    }
                }
                config.apps.push(app);
            }
            "app_version" => {
                let mut version = AppConfigVersion::default();
                for part in &child.children {
                    if !fields!(
                        doc,
                        part,
                        version,
                        [app_name, plan_class, avg_ncpus, ngpus, cmdline]
                    ) {
                        doc.unknown(part);
                    }
                }
                config.app_versions.push(version);
            }
            "project_max_concurrent" => config.project_max_concurrent = doc.read(child),
            "report_results_immediately" => config.report_results_immediately = doc.flag(child),
            _ => doc.unknown(child),
        }
    }
    if !root.complete && config.client_parse_error.is_none() {
        config.client_parse_error = Some("Missing </app_config> in app_config.xml".to_string());
    }
    Some(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apps_versions_and_limits() {
        let parsed = parse_app_config(
            &SourcePath::from("data/projects/einstein.phys.uwm.edu/app_config.xml"),
            b"<app_config>\n<app><name>hsgamma</name><max_concurrent>2</max_concurrent>\n\
              <gpu_versions><gpu_usage>0.5</gpu_usage><cpu_usage>0.4</cpu_usage></gpu_versions></app>\n\
              <app_version><app_name>hsgamma</app_name><plan_class>opencl</plan_class>\
              <avg_ncpus>1</avg_ncpus><ngpus>0.25</ngpus></app_version>\n\
              <project_max_concurrent>3</project_max_concurrent>\n</app_config>",
        );
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let config = parsed.value;
        assert_eq!(config.project_dir.as_deref(), Some("einstein.phys.uwm.edu"));
        assert_eq!(config.apps[0].max_concurrent, Some(2));
        let gpu = config.apps[0].gpu_versions.clone().unwrap_or_default();
        assert_eq!((gpu.gpu_usage, gpu.cpu_usage), (Some(0.5), Some(0.4)));
        assert_eq!(config.app_versions[0].ngpus, Some(0.25));
        assert_eq!(config.project_max_concurrent, Some(3));
    }

    /// lib/cc_config.cpp: APP_CONFIG::parse fails at the end of the file
    /// ("Missing </app> in app_config.xml") and the entry is not kept;
    /// what APP_CONFIGS::parse read before stays.
    #[test]
    fn a_file_cut_short_keeps_the_entries_before_the_cut() {
        let parsed = parse_app_config(
            &SourcePath::from("projects/a.org/app_config.xml"),
            b"<app_config><project_max_concurrent>4</project_max_concurrent>\n\
              <app><name>a</name><max_concurrent>2</max_concurrent></app>\n\
              <app><name>b</name><max_concurrent>1</max_conc",
        );
        let config = parsed.value;
        assert_eq!(config.project_max_concurrent, Some(4));
        assert_eq!(config.apps.len(), 1);
        assert_eq!(config.apps[0].name.as_deref(), Some("a"));
        assert_eq!(
            config.client_parse_error.as_deref(),
            Some("Missing </app> in app_config.xml")
        );
        let between = parse_app_config(
            &SourcePath::from("projects/a.org/app_config.xml"),
            b"<app_config><app><name>a</name></app>\n",
        );
        assert_eq!(
            between.value.client_parse_error.as_deref(),
            Some("Missing </app_config> in app_config.xml")
        );
    }

    #[test]
    fn project_dir_needs_projects_parent() {
        assert_eq!(project_dir_of("app_config.xml"), None);
        assert_eq!(project_dir_of("x/app_config.xml"), None);
        assert_eq!(
            project_dir_of("projects/a.org/app_config.xml").as_deref(),
            Some("a.org")
        );
    }
}

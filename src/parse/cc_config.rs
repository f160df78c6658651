//! cc_config.xml and bare `<log_flags>` files (formats-xml.md §6).
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.
//!
//! Every log flag is kept by name (old names such as `debt_debug` too). The
//! options that change scheduling are typed; every other option with a
//! plain value is kept as text in [`CcOptions::other`], so no option is
//! "unknown"; options with structure that are not modelled (`proxy_info`,
//! `alt_platform`, …) are counted as unknown.

use crate::parse::client_state::{old_rsc_name, read_coproc};
use crate::parse::error::Parsed;
use crate::parse::xml::{fields, Element, XmlDoc};
use crate::source::SourcePath;
use crate::trace::state::{CcConfig, CcOptions, ExcludeGpu, IgnoredDevice, LogFlagsFile};
use std::collections::BTreeMap;

/// What a cc_config-kind file held: a `<cc_config>` or a bare `<log_flags>`.
#[derive(Clone, Debug, PartialEq)]
pub enum CcConfigFile {
    /// A `<cc_config>` document.
    CcConfig(Box<CcConfig>),
    /// A bare `<log_flags>` document.
    LogFlags(LogFlagsFile),
}

/// Parses a whole cc_config.xml (or log_flags.xml).
pub fn parse_cc_config(path: &SourcePath, bytes: &[u8]) -> Parsed<Option<CcConfigFile>> {
    let mut doc = XmlDoc::new(path, bytes);
    let value = read_cc_config_doc(&mut doc);
    doc.into_parsed(value)
}

/// Reads the document of `doc` as a cc_config file (problems stay in `doc`).
pub(crate) fn read_cc_config_doc(doc: &mut XmlDoc<'_>) -> Option<CcConfigFile> {
    let root = doc.parse_root();
    let root = doc.expect_root(root, &["cc_config", "log_flags"])?;
    let path = doc.path.to_string();
    if root.name == "log_flags" {
        let log_flags = read_log_flags(doc, &root);
        return Some(CcConfigFile::LogFlags(LogFlagsFile { path, log_flags }));
    }
    let mut config = CcConfig {
        path,
        ..CcConfig::default()
    };
    for child in &root.children {
        match child.name.as_str() {
            "log_flags" => config.log_flags.extend(read_log_flags(doc, child)),
            "options" => read_options(doc, &mut config.options, child),
            _ => doc.unknown(child),
        }
    }
    Some(CcConfigFile::CcConfig(Box::new(config)))
}

fn read_log_flags(doc: &mut XmlDoc<'_>, element: &Element) -> BTreeMap<String, bool> {
    let mut flags = BTreeMap::new();
    for child in &element.children {
        if let Some(value) = doc.read::<bool>(child) {
            flags.insert(child.name.clone(), value);
        }
    }
    flags
}

fn read_options(doc: &mut XmlDoc<'_>, options: &mut CcOptions, element: &Element) {
    for child in &element.children {
        if fields!(
            doc,
            child,
            options,
            [
                ncpus,
                use_all_gpus,
                no_gpus,
                no_opencl,
                fetch_minimal_work,
                fetch_on_update,
                prioritize_gpu,
                rec_half_life_days,
                report_results_immediately,
                max_tasks_reported,
                dont_suspend_nci,
                max_overdue_days,
            ]
        ) {
            continue;
        }
        let name = child.name.as_str();
        match name {
            "exclude_gpu" => {
                let mut exclude = ExcludeGpu::default();
                for part in &child.children {
                    match part.name.as_str() {
                        "url" => exclude.url = doc.string(part),
                        "device_num" => exclude.device_num = doc.read(part),
                        "type" => exclude.rsc = doc.read(part),
                        "app" => exclude.app = doc.string(part),
                        _ => doc.unknown(part),
                    }
                }
                options.exclude_gpus.push(exclude);
            }
            "ignore_nvidia_dev" | "ignore_cuda_dev" | "ignore_ati_dev" | "ignore_intel_dev"
            | "ignore_apple_dev" => {
                let rsc = old_rsc_name(&name["ignore_".len()..name.len() - "_dev".len()]);
                if let (Some(rsc), Some(device_num)) = (rsc, doc.read::<i64>(child)) {
                    options
                        .ignored_devices
                        .push(IgnoredDevice { rsc, device_num });
                }
            }
            "coproc" => match read_coproc(doc, child) {
                Some(coproc) => options.coprocs.push(coproc),
                None => doc.expected(child.offset, "<type> in <coproc>", child.text.trim()),
            },
            "exclusive_app" => options.exclusive_apps.extend(doc.string(child)),
            "exclusive_gpu_app" => options.exclusive_gpu_apps.extend(doc.string(child)),
            _ if child.children.is_empty() => {
                if child.complete {
                    options
                        .other
                        .insert(child.name.clone(), child.text.trim().to_string());
                }
            }
            _ => doc.unknown(child),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::ResourceType;

    #[test]
    fn options_flags_and_exclusions() {
        let parsed = parse_cc_config(
            &SourcePath::from("cc_config.xml"),
            b"<cc_config>\n<log_flags><work_fetch_debug>1</work_fetch_debug><task>0</task></log_flags>\n\
              <options>\n<ncpus>4</ncpus>\n<exclude_gpu><url>http://a.org/</url><device_num>1</device_num>\
              <type>NVIDIA</type></exclude_gpu>\n<ignore_ati_dev>0</ignore_ati_dev>\n\
              <fetch_minimal_work/>\n<start_delay>30</start_delay>\n</options>\n</cc_config>",
        );
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let Some(CcConfigFile::CcConfig(config)) = parsed.value else {
            panic!("not a cc_config");
        };
        assert_eq!(config.log_flags.get("work_fetch_debug"), Some(&true));
        assert_eq!(config.log_flags.get("task"), Some(&false));
        assert_eq!(config.options.ncpus, Some(4));
        assert_eq!(config.options.fetch_minimal_work, Some(true));
        assert_eq!(config.options.exclude_gpus[0].device_num, Some(1));
        assert_eq!(
            config.options.exclude_gpus[0].rsc,
            Some(ResourceType::Nvidia)
        );
        assert_eq!(config.options.ignored_devices[0].rsc, ResourceType::Amd);
        assert_eq!(
            config.options.other.get("start_delay").map(String::as_str),
            Some("30")
        );
    }

    #[test]
    fn bare_log_flags_file() {
        let parsed = parse_cc_config(
            &SourcePath::from("log_flags.xml"),
            b"<log_flags>\n<task>1</task>\n</log_flags>\n",
        );
        let Some(CcConfigFile::LogFlags(file)) = parsed.value else {
            panic!("not a log_flags file");
        };
        assert_eq!(file.log_flags.get("task"), Some(&true));
    }
}

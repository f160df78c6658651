//! The 6.10 emulator's inputs: sim_host.xml (`<host>`, host_info elements)
//! and sim_projects.xml (`<projects>` of `<project>`s with their `<app>`s
//! inside, fpops as `<mean>`/`<stdev>`). Its sim_prefs.xml is an ordinary
//! `<global_preferences>` file (see [`crate::parse::prefs`]).
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report.

use crate::parse::client_state::{read_availability, read_host_info, read_project};
use crate::parse::error::Parsed;
use crate::parse::xml::{parse_whole, XmlDoc};
use crate::source::SourcePath;
use crate::trace::state::{SimHost, SimHostProcess, SimProjects};

/// Parses a whole sim_host.xml.
pub fn parse_sim_host(path: &SourcePath, bytes: &[u8]) -> Parsed<SimHost> {
    parse_whole(path, bytes, read_sim_host_doc)
}

/// Parses a whole sim_projects.xml.
pub fn parse_sim_projects(path: &SourcePath, bytes: &[u8]) -> Parsed<SimProjects> {
    parse_whole(path, bytes, read_sim_projects_doc)
}

/// Reads the document of `doc` as a sim_host.xml (problems stay in `doc`).
pub(crate) fn read_sim_host_doc(doc: &mut XmlDoc<'_>) -> Option<SimHost> {
    let root = doc.parse_root();
    let root = doc.expect_root(root, &["host"])?;
    let processes = root
        .children
        .iter()
        .filter(|child| matches!(child.name.as_str(), "available" | "idle"))
        .map(|child| SimHostProcess {
            name: child.name.clone(),
            model: read_availability(doc, child),
        })
        .collect();
    Some(SimHost {
        path: doc.path.to_string(),
        host: read_host_info(doc, &root),
        processes,
    })
}

/// Reads the document of `doc` as a sim_projects.xml (problems stay in `doc`).
pub(crate) fn read_sim_projects_doc(doc: &mut XmlDoc<'_>) -> Option<SimProjects> {
    let root = doc.parse_root();
    let root = doc.expect_root(root, &["projects"])?;
    let mut projects = SimProjects {
        path: doc.path.to_string(),
        projects: Vec::new(),
    };
    for child in &root.children {
        if child.name == "project" {
            projects.projects.push(read_project(doc, child));
        } else {
            doc.unknown(child);
        }
    }
    Some(projects)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_projects() {
        let host = parse_sim_host(
            &SourcePath::from("sim_host.xml"),
            b"<host>\n<p_fpops>3e9</p_fpops>\n<m_nbytes>16e9</m_nbytes>\n<p_ncpus>2</p_ncpus>\n</host>",
        );
        assert!(host.errors.is_empty());
        assert_eq!(host.value.host.p_ncpus, Some(2));
        assert!(host.value.processes.is_empty());
        let intermittent = parse_sim_host(
            &SourcePath::from("sim_host.xml"),
            b"<host><p_ncpus>2</p_ncpus><available><frac>0.75</frac><lambda>7200</lambda>\
              </available></host>",
        );
        let process = &intermittent.value.processes[0];
        assert_eq!(
            (
                process.name.as_str(),
                process.model.frac,
                process.model.lambda
            ),
            ("available", Some(0.75), Some(7200.0))
        );
        assert_eq!(host.value.host.m_nbytes, Some(16e9));
        let projects = parse_sim_projects(
            &SourcePath::from("sim_projects.xml"),
            b"<projects><project><project_name>A</project_name><resource_share>300</resource_share>\
              <app><latency_bound>864000</latency_bound><fpops><mean>1e14</mean><stdev>5e12</stdev></fpops>\
              </app></project></projects>",
        );
        assert!(projects.errors.is_empty(), "{:?}", projects.errors);
        let project = &projects.value.projects[0];
        assert_eq!(project.resource_share, Some(300.0));
        let fpops = project.apps[0].fpops.clone().unwrap_or_default();
        assert_eq!(fpops.std_dev, Some(5e12));
    }
}

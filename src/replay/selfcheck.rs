//! The work-fetch choice and request re-derived from a work-fetch state dump
//! (spec/policy-current.md §7.7 choose_project, §7.8 set_request).
//!
//! Used two ways: in self-consistency mode the dump is the *recorded* one
//! (each logged state is taken as the state); in anchored mode the dump is
//! the one the replay built from its own simulation. The per-(project,
//! resource) `nused_total` and the instance counts come from the caller
//! (the replay's simulation, or in self-consistency mode the recorded
//! `set_request()` line, which prints them).
//!
//! Not modelled here (reported by the caller as limits): projects with
//! concurrency limits (`mc_shortfall`), GPU exclusions
//! (`set_request_excluded`), zero-share projects, `fetch_minimal_work`, the
//! NCI-first rule and wacky DCFs.
//!
//! Architecture Invariant: pure; reads only the dump and the numbers passed in.

use super::decision::{FetchDump, RscRequestLine, SetRequestLine};

/// The inputs beside the dump.
pub struct ChoiceInputs<'a> {
    /// Instances of each resource, in dump resource order.
    pub ninst: &'a [u32],
    /// `nused_total(project, resource)`: instances the project's jobs use in the simulation.
    pub nused_total: &'a dyn Fn(&str, &str) -> f64,
}

/// The result: chosen project, its request per resource, the set_request lines, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The chosen project.
    pub chosen: Option<String>,
    /// Its request, one entry per resource of the dump.
    pub request: Vec<RscRequestLine>,
    /// The `set_request()` lines the choice printed.
    pub set_requests: Vec<SetRequestLine>,
    /// The rule and numbers behind the choice.
    pub reason: String,
}

/// Mirrors WORK_FETCH::choose_project() over a dump (§7.7).
#[allow(clippy::needless_range_loop)] // r indexes several per-resource vectors, as the client does
pub fn choose(dump: &FetchDump, inputs: &ChoiceInputs<'_>) -> Choice {
    let (buf_min, buf_additional) = dump.buffer.unwrap_or((0.0, 0.0));
    let buf_total = (buf_min + buf_additional).max(1.0);
    // projects_sorted: decreasing priority, ties keep project order (stable sort).
    let mut order: Vec<usize> = (0..dump.projects.len()).collect();
    order.sort_by(|&a, &b| {
        dump.projects[b]
            .prio
            .partial_cmp(&dump.projects[a].prio)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let n_rsc = dump.resources.len();
    let share_of = |project: &str, r: usize| {
        dump.resources[r]
            .shares
            .iter()
            .find(|s| s.project == project)
    };
    let mut found: Vec<Option<usize>> = vec![None; n_rsc];
    let mut notes = Vec::new();
    for &p in &order {
        let project = &dump.projects[p];
        if !project.reason.is_empty() {
            notes.push(format!("{}: {}", project.project, project.reason));
            continue;
        }
        let mut trigger = None;
        for r in 0..n_rsc {
            let reason = share_of(&project.project, r)
                .map(|s| s.reason.as_str())
                .unwrap_or("");
            if !reason.is_empty() {
                continue;
            }
            if found[r].is_none() {
                found[r] = Some(p);
            }
            if dump.resources[r].saturated < buf_min {
                trigger = Some(r);
                break;
            }
        }
        let Some(trigger) = trigger else {
            notes.push(format!(
                "{}: no resource saturated < {buf_min:.2}",
                project.project
            ));
            continue;
        };
        let mut request: Vec<RscRequestLine> = dump
            .resources
            .iter()
            .map(|rsc| RscRequestLine {
                rsc: rsc.rsc.clone(),
                secs: 0.0,
                inst: 0.0,
            })
            .collect();
        let mut set_requests = Vec::new();
        for r in 0..n_rsc {
            let rsc = &dump.resources[r];
            if r != trigger {
                if found[r].is_some_and(|owner| owner != p) {
                    continue;
                }
                if rsc.saturated >= buf_total {
                    continue;
                }
                let reason = share_of(&project.project, r)
                    .map(|s| s.reason.as_str())
                    .unwrap_or("");
                if !(reason.is_empty() || reason == "project is backed off") {
                    continue;
                }
            }
            // set_request (§7.8), without concurrency limits or exclusions.
            let ninst = f64::from(inputs.ninst.get(r).copied().unwrap_or(0));
            let share = share_of(&project.project, r).map_or(0.0, |s| s.share);
            let nused = (inputs.nused_total)(&project.project, &rsc.rsc);
            let mut req_secs = if rsc.shortfall > 0.0 {
                rsc.shortfall
            } else {
                0.0
            };
            let share_inst = (ninst * share).min(ninst) - nused;
            let req_inst = rsc.nidle.max(share_inst);
            if req_inst > 0.0 && req_secs == 0.0 {
                req_secs = 1.0;
            }
            set_requests.push(SetRequestLine {
                rsc: rsc.rsc.clone(),
                ninst: ninst as u32,
                nused_total: nused,
                nidle_now: rsc.nidle,
                fetch_share: share,
                req_inst,
                req_secs,
            });
            if let Some(slot) = request.get_mut(r) {
                slot.secs = req_secs;
                slot.inst = req_inst;
            }
        }
        if request.iter().any(|r| r.secs > 0.0) {
            let trigger_rsc = &dump.resources[trigger];
            let reason = format!(
                "§7.7: {} is the highest-priority project (prio {:.3}) without a project reason; \
                 trigger {} saturated {:.2} < work_buf_min {:.2}; §7.8 req_secs = shortfall {:.2}",
                project.project,
                project.prio,
                trigger_rsc.rsc,
                trigger_rsc.saturated,
                buf_min,
                trigger_rsc.shortfall
            );
            return Choice {
                chosen: Some(project.project.clone()),
                request,
                set_requests,
                reason,
            };
        }
        notes.push(format!("{}: every request zero", project.project));
    }
    Choice {
        chosen: None,
        request: Vec::new(),
        set_requests: Vec::new(),
        reason: format!("§7.7: no project chosen ({})", notes.join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::decision::{ProjectState, RscState, ShareState};
    use super::*;

    /// cpu_two_projects_unequal_share 01:00:00 (§9.7 fixture table).
    #[test]
    fn first_block_of_cpu_two_projects() {
        let dump = FetchDump {
            buffer: Some((8640.0, 43200.0)),
            projects: vec![
                ProjectState {
                    project: "Alpha".into(),
                    prio: -0.0,
                    ..ProjectState::default()
                },
                ProjectState {
                    project: "Beta".into(),
                    prio: -0.0,
                    ..ProjectState::default()
                },
            ],
            resources: vec![RscState {
                rsc: "CPU".into(),
                shortfall: 207360.0,
                nidle: 4.0,
                saturated: 0.0,
                busy: 0.0,
                shares: vec![
                    ShareState {
                        project: "Alpha".into(),
                        share: 0.75,
                        ..ShareState::default()
                    },
                    ShareState {
                        project: "Beta".into(),
                        share: 0.25,
                        ..ShareState::default()
                    },
                ],
            }],
        };
        let zero = |_: &str, _: &str| 0.0;
        let choice = choose(
            &dump,
            &ChoiceInputs {
                ninst: &[4],
                nused_total: &zero,
            },
        );
        assert_eq!(choice.chosen.as_deref(), Some("Alpha"));
        assert_eq!(choice.request[0].secs, 207360.0);
        assert_eq!(choice.request[0].inst, 4.0);
    }
}

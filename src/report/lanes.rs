//! Which job ran on which CPU and GPU instance over time, recorded and
//! replayed: the lanes the HTML report and the Chrome trace draw.
//!
//! Read from the enforcement decisions of a [`DivergenceReport`]: after
//! each enforcement pass the jobs it schedules run until the next pass
//! (a job that finishes between two passes is drawn up to the next one).
//! GPU jobs sit on the instance `[coproc]` assigned them; CPU jobs take the
//! lowest free CPU lane (a multithread job is drawn on one lane; jobs beyond
//! the host's CPUs get extra lanes). The resource of a job comes from the
//! run lists.
//!
//! Architecture Invariant: consumes a DivergenceReport and nothing else.

use super::timeline::Side;
use crate::divergence::EnforceStep;
use crate::divergence::{enforcement_steps, run_list_resources, DecisionKind, DivergenceReport};
use std::collections::{BTreeMap, HashMap};

/// One instance of a resource: a row of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    /// The resource's type name (`CPU`, `NVIDIA`, …).
    pub rsc: String,
    /// The instance.
    pub instance: usize,
    /// True for a lane beyond the host's instances (more jobs ran at once
    /// than it has, or the host's size is not known).
    pub extra: bool,
}

impl Lane {
    /// `CPU 0`, `NVIDIA 1`.
    pub fn label(&self) -> String {
        format!("{} {}", self.rsc, self.instance)
    }
}

/// A job running on a lane, on one side.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// Recorded or replayed.
    pub side: Side,
    /// Index into [`Lanes::lanes`].
    pub lane: usize,
    /// The job.
    pub job: String,
    /// Its project, when the trace names it.
    pub project: Option<String>,
    /// Seconds on the trace's time base.
    pub start: f64,
    /// Seconds on the trace's time base.
    pub end: f64,
}

/// The lanes and the bars on them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lanes {
    /// CPU lanes first, then each GPU type's, then extra lanes.
    pub lanes: Vec<Lane>,
    /// Bars of both sides, in start order per side.
    pub bars: Vec<Bar>,
    /// The earliest decision's time.
    pub start: f64,
    /// The end of the drawing: a little after the last decision.
    pub end: f64,
}

impl Lanes {
    /// The lanes of `report`.
    pub fn of(report: &DivergenceReport) -> Lanes {
        let times: Vec<f64> = report
            .points
            .iter()
            .map(|p| p.time)
            .chain(report.activity.rpcs.iter().map(|r| r.time))
            .filter(|t| t.is_finite())
            .collect();
        let start = times.iter().copied().fold(f64::INFINITY, f64::min);
        let last = times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !start.is_finite() {
            return Lanes::default();
        }
        let end = last + ((last - start) * 0.01).max(60.0);
        let mut builder = Builder {
            lanes: Vec::new(),
            index: HashMap::new(),
        };
        for rsc in &report.activity.resources {
            for instance in 0..rsc.instances {
                builder.lane(&rsc.name, instance, false);
            }
        }
        let mut bars = Vec::new();
        for side in [Side::Recorded, Side::Replayed] {
            bars.extend(side_bars(report, side, end, &mut builder));
        }
        let mut lanes = Lanes {
            lanes: builder.lanes,
            bars,
            start,
            end,
        };
        lanes.sort_lanes();
        lanes
    }

    /// CPU lanes first, then the GPUs in the host's order, extra lanes of a
    /// resource after its own; bars follow their lanes.
    fn sort_lanes(&mut self) {
        let mut order: Vec<usize> = (0..self.lanes.len()).collect();
        let rank = |lane: &Lane| -> usize { usize::from(lane.rsc != "CPU") };
        let first_seen: BTreeMap<&str, usize> =
            self.lanes
                .iter()
                .enumerate()
                .fold(BTreeMap::new(), |mut map, (i, lane)| {
                    map.entry(lane.rsc.as_str()).or_insert(i);
                    map
                });
        order.sort_by_key(|&i| {
            let lane = &self.lanes[i];
            (rank(lane), first_seen[lane.rsc.as_str()], lane.instance)
        });
        let mut new_index = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        self.lanes = order.iter().map(|&i| self.lanes[i].clone()).collect();
        for bar in &mut self.bars {
            bar.lane = new_index[bar.lane];
        }
    }
}

struct Builder {
    lanes: Vec<Lane>,
    index: HashMap<(String, usize), usize>,
}

impl Builder {
    fn lane(&mut self, rsc: &str, instance: usize, extra: bool) -> usize {
        let key = (rsc.to_string(), instance);
        if let Some(&idx) = self.index.get(&key) {
            return idx;
        }
        self.lanes.push(Lane {
            rsc: rsc.to_string(),
            instance,
            extra,
        });
        self.index.insert(key, self.lanes.len() - 1);
        self.lanes.len() - 1
    }
}

/// The bars of one side.
fn side_bars(report: &DivergenceReport, side: Side, end: f64, lanes: &mut Builder) -> Vec<Bar> {
    let bar = |job: String, lane: usize, start: f64, end: f64| Bar {
        side,
        lane,
        project: report.activity.job_projects.get(&job).cloned(),
        job,
        start,
        end,
    };
    let gpu_type = report
        .activity
        .resources
        .iter()
        .find(|r| r.name != "CPU")
        .map(|r| r.name.clone());
    // Where each job's GPU instance is, and which jobs are GPU jobs.
    let mut gpu_of: HashMap<String, (String, usize)> = HashMap::new();
    let mut is_gpu: HashMap<String, bool> = HashMap::new();
    // Running jobs: lane and start.
    let mut running: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    let mut bars = Vec::new();
    for point in &report.points {
        let text = match side {
            Side::Recorded => &point.recorded,
            Side::Replayed => &point.replayed,
        };
        match point.kind {
            DecisionKind::RunList => {
                for (job, rsc) in run_list_resources(text) {
                    is_gpu.insert(job.to_string(), rsc != "CPU");
                }
            }
            DecisionKind::Enforcement => {
                let Some(steps) = enforcement_steps(text) else {
                    continue;
                };
                let mut scheduled: Vec<&str> = Vec::new();
                for step in &steps {
                    match *step {
                        EnforceStep::Assign { job, rsc, instance } => {
                            gpu_of.insert(job.to_string(), (rsc.to_string(), instance as usize));
                            is_gpu.insert(job.to_string(), true);
                        }
                        EnforceStep::Schedule(job) | EnforceStep::Start(job) => {
                            if !scheduled.contains(&job) {
                                scheduled.push(job);
                            }
                        }
                        EnforceStep::Preempt(_) => {}
                    }
                }
                let now = point.time;
                // Jobs no longer scheduled stop here.
                let stopped: Vec<String> = running
                    .keys()
                    .filter(|job| !scheduled.contains(&job.as_str()))
                    .cloned()
                    .collect();
                for job in stopped {
                    if let Some((lane, start)) = running.remove(&job) {
                        bars.push(bar(job, lane, start, now));
                    }
                }
                // A GPU job moved to another instance starts a new bar.
                for job in &scheduled {
                    let Some((rsc, instance)) = gpu_of.get(*job) else {
                        continue;
                    };
                    let lane = lanes.lane(rsc, *instance, false);
                    if let Some(&(old, start)) = running.get(*job) {
                        if old != lane {
                            running.insert(job.to_string(), (lane, now));
                            bars.push(bar(job.to_string(), old, start, now));
                        }
                    }
                }
                for job in scheduled {
                    if running.contains_key(job) {
                        continue;
                    }
                    let lane = match gpu_of.get(job) {
                        Some((rsc, instance)) => lanes.lane(rsc, *instance, false),
                        None if is_gpu.get(job).copied().unwrap_or(false) => {
                            let rsc = gpu_type.clone().unwrap_or_else(|| "GPU".to_string());
                            lanes.lane(&rsc, 0, gpu_type.is_none())
                        }
                        None => free_cpu_lane(lanes, &running),
                    };
                    running.insert(job.to_string(), (lane, now));
                }
            }
            _ => {}
        }
    }
    for (job, (lane, start)) in running {
        bars.push(bar(job, lane, start, end));
    }
    bars.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.lane.cmp(&b.lane)));
    bars
}

/// The lowest CPU lane no running job holds (an extra lane when all are).
fn free_cpu_lane(lanes: &mut Builder, running: &BTreeMap<String, (usize, f64)>) -> usize {
    let held: Vec<usize> = running.values().map(|(lane, _)| *lane).collect();
    let mut instance = 0;
    loop {
        let existing = lanes.index.get(&("CPU".to_string(), instance)).copied();
        match existing {
            Some(idx) if held.contains(&idx) => instance += 1,
            Some(idx) => return idx,
            None => return lanes.lane("CPU", instance, true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divergence::{DecisionPoint, ResourceInstances};

    fn point(time: f64, kind: DecisionKind, recorded: &str, replayed: &str) -> DecisionPoint {
        DecisionPoint {
            time,
            time_label: format!("{time}"),
            kind,
            project: None,
            resource: None,
            recorded: recorded.into(),
            replayed: replayed.into(),
            n_divergences: usize::from(recorded != replayed),
            checked: true,
            location: None,
            basis: String::new(),
        }
    }

    #[test]
    fn jobs_land_on_their_instances() {
        let mut report = DivergenceReport::default();
        report.activity.resources = vec![
            ResourceInstances {
                name: "CPU".into(),
                instances: 2,
            },
            ResourceInstances {
                name: "NVIDIA".into(),
                instances: 1,
            },
        ];
        report
            .activity
            .job_projects
            .insert("A_0".into(), "A".into());
        let first =
            "actions=assign A_0 NVIDIA 0,schedule A_0,schedule B_0,starting A_0,starting B_0";
        let second = "actions=schedule A_0,schedule B_1,starting B_1";
        report.points = vec![
            point(100.0, DecisionKind::Enforcement, first, first),
            point(
                200.0,
                DecisionKind::Enforcement,
                second,
                "actions=schedule A_0",
            ),
        ];
        let lanes = Lanes::of(&report);
        let labels: Vec<String> = lanes.lanes.iter().map(Lane::label).collect();
        assert_eq!(labels, ["CPU 0", "CPU 1", "NVIDIA 0"]);
        let recorded: Vec<(&str, usize, f64, f64)> = lanes
            .bars
            .iter()
            .filter(|b| b.side == Side::Recorded)
            .map(|b| (b.job.as_str(), b.lane, b.start, b.end))
            .collect();
        assert_eq!(
            recorded,
            [
                ("B_0", 0, 100.0, 200.0),
                ("A_0", 2, 100.0, lanes.end),
                ("B_1", 0, 200.0, lanes.end)
            ]
        );
        let replayed = lanes
            .bars
            .iter()
            .filter(|b| b.side == Side::Replayed)
            .count();
        assert_eq!(replayed, 2, "A_0 on the GPU, B_0 until the second pass");
        let a = lanes.bars.iter().find(|b| b.job == "A_0");
        assert_eq!(a.and_then(|b| b.project.as_deref()), Some("A"));
    }

    #[test]
    fn more_jobs_than_cpus_get_extra_lanes() {
        let report = DivergenceReport {
            points: vec![point(
                0.0,
                DecisionKind::Enforcement,
                "actions=schedule X,schedule Y",
                "(not checked: no state)",
            )],
            ..DivergenceReport::default()
        };
        let lanes = Lanes::of(&report);
        assert_eq!(lanes.lanes.len(), 2);
        assert!(lanes.lanes.iter().all(|l| l.extra));
        assert!(lanes.bars.iter().all(|b| b.side == Side::Recorded));
    }
}

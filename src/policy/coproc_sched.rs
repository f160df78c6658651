//! GPU instance assignment during enforcement (spec §6.3 `assign_coprocs`).
//!
//! Architecture Invariant: pure; no I/O, no clock, no parsers.

use super::state::{HostState, JobIdx, RscIdx};
use serde::Serialize;

/// The instances given to one job, or why it was dropped.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum CoprocAssignment {
    /// The job keeps or gets these instances (`Assigning <type> instance N to JOB`).
    Assigned(Vec<usize>),
    /// No usable instances with room: removed from the run list.
    Removed,
}

/// One `[coproc]` message of the assignment, in order (`coproc_debug`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum CoprocNote {
    /// `TYPE instance K; X pending for JOB` (K is the position in the
    /// task's instance list, as the client prints it).
    Pending {
        /// The job.
        job: JobIdx,
        /// Position in its instance list.
        k: usize,
        /// Usage per instance.
        x: f64,
    },
    /// `TYPE X instance of device D already assigned to task JOB`.
    Taken {
        /// The job.
        job: JobIdx,
        /// Usage per instance.
        x: f64,
        /// The device.
        dev: usize,
    },
    /// `TYPE instance D: confirming X instance for JOB`.
    Confirming {
        /// The job.
        job: JobIdx,
        /// The device.
        dev: usize,
        /// Usage per instance.
        x: f64,
    },
    /// `Assigning X of TYPE [free ]instance D to JOB`.
    Fraction {
        /// The job.
        job: JobIdx,
        /// Its usage.
        x: f64,
        /// The device.
        dev: usize,
        /// An unused instance (else one already partly assigned).
        free: bool,
    },
    /// `Insufficient TYPE for JOB: need X`.
    NoFraction {
        /// The job.
        job: JobIdx,
        /// Its usage.
        x: f64,
    },
    /// `Insufficient TYPE for JOB; need N, available M`.
    NoWhole {
        /// The job.
        job: JobIdx,
        /// Instances needed.
        need: usize,
        /// Free instances.
        free: usize,
    },
    /// `Assigning TYPE [pending ]instance D to JOB`.
    Whole {
        /// The job.
        job: JobIdx,
        /// The device.
        dev: usize,
        /// The instance was pending (a running task's).
        pending: bool,
    },
}

/// Mirrors assign_coprocs() in client/coproc_sched.cpp (§6.3): for each
/// coprocessor job of `list` in order, the instances it gets. CPU jobs are
/// not in the result.
pub fn assign_coprocs(state: &HostState, list: &[JobIdx]) -> Vec<(JobIdx, CoprocAssignment)> {
    assign_coprocs_noted(state, list, &mut Vec::new())
}

/// [`assign_coprocs`], with its messages appended to `notes`.
pub fn assign_coprocs_noted(
    state: &HostState,
    list: &[JobIdx],
    notes: &mut Vec<CoprocNote>,
) -> Vec<(JobIdx, CoprocAssignment)> {
    let n_rsc = state.n_rsc();
    let mut usage: Vec<Vec<f64>> = (0..n_rsc).map(|r| vec![0.0; state.ninstances(r)]).collect();
    let mut pending: Vec<Vec<f64>> = usage.clone();
    // Running jobs' current usage is "pending" until confirmed.
    for &j in list {
        let Some(job) = state.jobs.get(j) else {
            continue;
        };
        let Some(task) = job.task.as_ref().filter(|t| t.has_process()) else {
            continue;
        };
        if job.usage.rsc == 0 {
            continue;
        }
        for (k, &i) in task.coproc_indices.iter().enumerate() {
            if let Some(cell) = pending
                .get_mut(job.usage.rsc)
                .and_then(|row| row.get_mut(i))
            {
                let x = job.usage.coproc_usage.min(1.0);
                *cell += x;
                notes.push(CoprocNote::Pending { job: j, k, x });
            }
        }
    }
    let mut out = Vec::new();
    for &j in list {
        let Some(job) = state.jobs.get(j) else {
            continue;
        };
        let r: RscIdx = job.usage.rsc;
        if r == 0 {
            continue;
        }
        let (Some(used), Some(pend)) = (usage.get_mut(r), pending.get_mut(r)) else {
            continue;
        };
        let x = job.usage.coproc_usage;
        let usable = |i: usize| !state.gpu_excluded(job.project, &job.app, r, i);
        let running = job
            .task
            .as_ref()
            .filter(|t| t.has_process() && !t.coproc_indices.is_empty());
        let assignment = if let Some(task) = running {
            let per = x.min(1.0);
            let taken = task
                .coproc_indices
                .iter()
                .copied()
                .find(|&i| used.get(i).is_none_or(|u| u + per > 1.0));
            if let Some(dev) = taken {
                notes.push(CoprocNote::Taken {
                    job: j,
                    x: per,
                    dev,
                });
                CoprocAssignment::Removed
            } else {
                for &i in &task.coproc_indices {
                    if let (Some(u), Some(p)) = (used.get_mut(i), pend.get_mut(i)) {
                        *u += per;
                        *p -= per;
                        notes.push(CoprocNote::Confirming {
                            job: j,
                            dev: i,
                            x: per,
                        });
                    }
                }
                CoprocAssignment::Assigned(task.coproc_indices.clone())
            }
        } else if x < 1.0 {
            let n = used.len();
            let shared = (0..n).find(|&i| {
                usable(i) && (used[i] > 0.0 || pend[i] > 0.0) && used[i] + pend[i] + x <= 1.0
            });
            let free = (0..n).find(|&i| usable(i) && used[i] == 0.0);
            match shared.map(|i| (i, false)).or(free.map(|i| (i, true))) {
                Some((i, free)) => {
                    used[i] += x;
                    notes.push(CoprocNote::Fraction {
                        job: j,
                        x,
                        dev: i,
                        free,
                    });
                    CoprocAssignment::Assigned(vec![i])
                }
                None => {
                    notes.push(CoprocNote::NoFraction { job: j, x });
                    CoprocAssignment::Removed
                }
            }
        } else {
            let need = x.ceil() as usize;
            let n = used.len();
            let mut chosen: Vec<usize> = (0..n)
                .filter(|&i| usable(i) && used[i] == 0.0 && pend[i] == 0.0)
                .collect();
            chosen.extend((0..n).filter(|&i| usable(i) && used[i] == 0.0 && pend[i] != 0.0));
            if chosen.len() >= need {
                chosen.truncate(need);
                for &i in &chosen {
                    used[i] = 1.0;
                    notes.push(CoprocNote::Whole {
                        job: j,
                        dev: i,
                        pending: pend[i] != 0.0,
                    });
                }
                CoprocAssignment::Assigned(chosen)
            } else {
                notes.push(CoprocNote::NoWhole {
                    job: j,
                    need,
                    free: chosen.len(),
                });
                CoprocAssignment::Removed
            }
        };
        out.push((j, assignment));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::state::tests::seed_host;
    use crate::policy::state::{Job, Project, ResourceUsage, Task, TaskState};

    fn two_gpu_state() -> HostState {
        let mut host = seed_host();
        host.coprocs[0].count = 2;
        let mut state = HostState::new(host);
        state.projects.push(Project::new("P", 100.0, 2));
        state
    }

    /// §6.3: two half-GPU jobs share instance 0; a whole-GPU job takes instance 1; a third
    /// whole-GPU job finds no free instance and is removed.
    #[test]
    fn fractional_jobs_share_and_integral_jobs_need_free_instances() {
        let mut state = two_gpu_state();
        for n in 0..2 {
            state.jobs.push(Job::new(
                &format!("h{n}"),
                0,
                "a",
                ResourceUsage::coproc(0.1, 1, 0.5, 1e9),
                1e12,
            ));
        }
        for n in 0..2 {
            state.jobs.push(Job::new(
                &format!("w{n}"),
                0,
                "a",
                ResourceUsage::coproc(0.1, 1, 1.0, 1e9),
                1e12,
            ));
        }
        let out = assign_coprocs(&state, &[0, 1, 2, 3]);
        assert_eq!(out[0].1, CoprocAssignment::Assigned(vec![0]));
        assert_eq!(out[1].1, CoprocAssignment::Assigned(vec![0]));
        assert_eq!(out[2].1, CoprocAssignment::Assigned(vec![1]));
        assert_eq!(out[3].1, CoprocAssignment::Removed);
    }

    /// §6.3: a running job keeps its instance (1) while a new whole-GPU job avoids it.
    #[test]
    fn running_job_keeps_its_instance() {
        let mut state = two_gpu_state();
        let mut running = Job::new("r", 0, "a", ResourceUsage::coproc(0.1, 1, 1.0, 1e9), 1e12);
        let mut task = Task::new();
        task.task_state = TaskState::Executing;
        task.coproc_indices = vec![1];
        running.task = Some(task);
        state.jobs.push(Job::new(
            "n",
            0,
            "a",
            ResourceUsage::coproc(0.1, 1, 1.0, 1e9),
            1e12,
        ));
        state.jobs.push(running);
        let out = assign_coprocs(&state, &[0, 1]);
        assert_eq!(out[0].1, CoprocAssignment::Assigned(vec![0]));
        assert_eq!(out[1].1, CoprocAssignment::Assigned(vec![1]));
    }
}

//! The memory a new job's `RESULT` reuses in the 7.2.42 emulator, for the
//! one field that release reads before setting: `unfinished_time_slice`
//! (RESULT::clear() sets it only since 0ce3f7d996: 7.8.0, and 7.6.13 on the
//! 7.6 branch). A new job's
//! first preliminary job list shows whatever the reused memory held.
//!
//! The chunks that matter are the three large objects the emulator makes
//! and frees, each visible in its log:
//! - `ACTIVE_TASK` (6,112-byte chunk): made when a job is scheduled for
//!   the first time (cpu_sched.cpp CLIENT_STATE::get_task, the `Starting`
//!   of a task never run), freed when its task finishes (cs_apps.cpp
//!   handle_finished_apps, `Computation for task X finished`, in
//!   active-task order);
//! - `RESULT` (1,696): the results an RPC reports are freed (`delete rp`,
//!   result order), then each new job is made as `new RESULT` and
//!   `new WORKUNIT` (client/sim.cpp `simulate_rpc`);
//! - `WORKUNIT` (640), never freed for a reported job; a job the server
//!   refuses (`job for APP misses deadline approx`) is made and freed at
//!   once, its `RESULT` to the unsorted list, its `WORKUNIT` (small
//!   enough) to glibc's per-thread cache, where the next `WORKUNIT` finds
//!   it.
//!
//! In a step the emulator frees finished tasks, makes new tasks as it
//! enforces the run list, then makes its RPC. Every other request of the
//! emulator is small and balanced (strings, messages, vectors) and served
//! from glibc's tcache, so only the requests above reach the rest of
//! glibc's allocator, whose bins the model follows:
//! - a freed chunk goes to the front of the unsorted list, and stays there
//!   across steps until the next such request;
//! - a request scans that list from its back (oldest first), returns an
//!   exact fit at once and files every other chunk in its size bin;
//! - a large request (`RESULT`, `ACTIVE_TASK`) then takes, among free
//!   chunks of its size, the one filed second (a bin keeps its first chunk
//!   of a size in front and files later equal ones right behind it), else
//!   splits the smallest larger chunk;
//! - a `WORKUNIT` request (small) then takes the last chunk of the
//!   smallest bin that fits — the remainder of a split chunk if there is
//!   one (an `ACTIVE_TASK` carved into results leaves one), else a freed
//!   `RESULT` — and splits it, the rest going back to the unsorted list
//!   and becoming the last remainder, which the next small request takes
//!   first when it is all the unsorted list holds.
//!
//! Memory taken from the top of the heap, and an `ACTIVE_TASK`'s, is taken
//! to hold false. The sizes and every rule were read off the real 7.2.42
//! emulator (built at its tag, glibc 2.36, traced with a malloc logger):
//! on seed_cpu_gpu_two_projects, all 151 of its requests that found the
//! unsorted list non-empty were one of the above or start-up and exit
//! one-offs. Measured: every new job's first preliminary `UTS` of the
//! three 7.2.42 references (173) as the emulator printed it (171 when the
//! list was filed at every step and tasks were not followed); over the 200
//! scenarios `scenario random` writes for seeds 1-200 run through that
//! emulator, 120 logs of `simulate --log-out` byte-identical (98 before),
//! 41 first differing at a `UTS` flag. What those need, as traced: two free
//! neighbours coalesce and a chunk freed next to the top of the heap joins
//! it (an `ACTIVE_TASK` is then no exact fit, and a scan files more), and a
//! few chunks last held text of other requests; both need every address
//! from the start-up layout on, which no model of these three objects has.
//!
//! Every release before 7.6.13 has the same defect, and the loop uses this
//! model for their emulators too, with 7.2.42's sizes (the others' were not
//! traced). On the 48 generated scenarios of 7.4.42 and 7.6.7 it fixes some
//! of the `UTS` flags the plain `false` got wrong; 5 of those logs still
//! first differ at one.
//!
//! The 6.10.60 emulator's harness (its `simulate_rpc` and task handling
//! are the same in these respects) never sets the flag of a new `RESULT`
//! either; the loop follows it with that build's sizes ([`SIZES_6_10`]).
//! On seven runs of that emulator with an intermittent host, whose RPCs
//! often report several results at once, every new job's first flag is as
//! printed (a last-freed-first stack got one wrong: the oldest freed
//! `RESULT` is the exact fit the unsorted list hands out first).
//!
//! Architecture Invariant: pure bookkeeping; no I/O.

use std::collections::BTreeMap;

/// The chunk sizes of the three objects in one emulator build (x86-64,
/// glibc: the object's size plus an 8-byte header, rounded up to 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkSizes {
    /// `RESULT`.
    pub result: u32,
    /// `ACTIVE_TASK`.
    pub task: u32,
    /// `WORKUNIT`.
    pub workunit: u32,
}

/// The 7.2.42 emulator: `RESULT` 1,680 bytes, `ACTIVE_TASK` 6,096,
/// `WORKUNIT` 632 (traced).
pub const SIZES_7_2: ChunkSizes = ChunkSizes {
    result: 1696,
    task: 6112,
    workunit: 640,
};

/// The 6.10.60 emulator built with `-DSIM`: `RESULT` 1,368 bytes,
/// `ACTIVE_TASK` 2,656, `WORKUNIT` 632 (`sizeof` in that build). Both
/// large objects are past glibc's per-thread cache, as 7.2.42's are.
pub const SIZES_6_10: ChunkSizes = ChunkSizes {
    result: 1376,
    task: 2672,
    workunit: 640,
};
/// The chunks glibc's tcache keeps per size.
const TCACHE_COUNT: u32 = 7;
/// The smallest chunk a split leaves behind.
const MIN_CHUNK: u32 = 32;

/// A free chunk: its size and, for a freed `RESULT`, the flag it held.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Chunk {
    size: u32,
    uts: bool,
    id: u64,
}

/// The free chunks of the emulator's heap that `RESULT`s come from.
#[derive(Clone, Debug)]
pub struct ResultHeap {
    sizes: ChunkSizes,
    /// Front = newest.
    unsorted: std::collections::VecDeque<Chunk>,
    /// Per size, in bin order (first filed in front, later equal ones
    /// right behind it).
    bins: BTreeMap<u32, Vec<Chunk>>,
    last_remainder: Option<u64>,
    next_id: u64,
    /// Freed `WORKUNIT`s in glibc's per-thread cache (a refused job's).
    cached_workunits: u32,
}

impl Default for ResultHeap {
    fn default() -> Self {
        ResultHeap::new(SIZES_7_2)
    }
}

impl ResultHeap {
    /// An empty heap of an emulator whose objects have these sizes.
    pub fn new(sizes: ChunkSizes) -> Self {
        ResultHeap {
            sizes,
            unsorted: std::collections::VecDeque::new(),
            bins: BTreeMap::new(),
            last_remainder: None,
            next_id: 0,
            cached_workunits: 0,
        }
    }

    /// Frees a reported job's `RESULT`, whose flag was `uts`.
    pub fn free_result(&mut self, uts: bool) {
        let chunk = self.chunk(self.sizes.result, uts);
        self.unsorted.push_front(chunk);
    }

    /// Frees a finished task's `ACTIVE_TASK`.
    pub fn free_task(&mut self) {
        let chunk = self.chunk(self.sizes.task, false);
        self.unsorted.push_front(chunk);
    }

    /// Makes a job's first task (`new ACTIVE_TASK`).
    pub fn new_task(&mut self) {
        self.malloc(self.sizes.task, false);
    }

    /// Makes a new job (`new RESULT`, then `new WORKUNIT`): returns the
    /// flag its `RESULT` finds.
    pub fn new_job(&mut self) -> bool {
        let result = self.malloc(self.sizes.result, false);
        self.new_workunit();
        result.is_some_and(|c| c.uts)
    }

    /// Makes a job the server then refuses (`job for APP misses deadline
    /// approx`): both objects are made and freed at once, the `RESULT`
    /// still holding the flag it found, the `WORKUNIT` into the tcache.
    pub fn refused_job(&mut self) {
        let uts = self.malloc(self.sizes.result, false).is_some_and(|c| c.uts);
        self.new_workunit();
        self.free_result(uts);
        self.cached_workunits = (self.cached_workunits + 1).min(TCACHE_COUNT);
    }

    /// A `WORKUNIT` comes from the tcache when a freed one waits there.
    fn new_workunit(&mut self) {
        if self.cached_workunits > 0 {
            self.cached_workunits -= 1;
        } else {
            self.malloc(self.sizes.workunit, true);
        }
    }

    fn chunk(&mut self, size: u32, uts: bool) -> Chunk {
        self.next_id += 1;
        Chunk {
            size,
            uts,
            id: self.next_id,
        }
    }

    fn file(&mut self, chunk: Chunk) {
        let bin = self.bins.entry(chunk.size).or_default();
        if bin.is_empty() {
            bin.push(chunk);
        } else {
            bin.insert(1, chunk);
        }
    }

    /// One request of `size`; `None` = memory never used before.
    fn malloc(&mut self, size: u32, small: bool) -> Option<Chunk> {
        while let Some(&chunk) = self.unsorted.back() {
            if small
                && self.unsorted.len() == 1
                && self.last_remainder == Some(chunk.id)
                && chunk.size > size + MIN_CHUNK
            {
                self.unsorted.pop_back();
                self.split(chunk, size, small);
                return Some(chunk);
            }
            self.unsorted.pop_back();
            if chunk.size == size {
                return Some(chunk);
            }
            self.file(chunk);
        }
        if !small {
            if let Some(bin) = self.bins.get_mut(&size).filter(|b| !b.is_empty()) {
                let chunk = if bin.len() > 1 {
                    bin.remove(1)
                } else {
                    bin.remove(0)
                };
                return Some(chunk);
            }
        }
        let fits = |s: u32| if small { s >= size } else { s > size };
        let (&bin_size, _) = self.bins.iter().find(|(s, b)| fits(**s) && !b.is_empty())?;
        let chunk = self.bins.get_mut(&bin_size)?.pop()?;
        self.split(chunk, size, small);
        Some(chunk)
    }

    fn split(&mut self, chunk: Chunk, size: u32, small: bool) {
        if chunk.size >= size + MIN_CHUNK {
            let rest = self.chunk(chunk.size - size, false);
            self.unsorted.push_front(rest);
            if small {
                self.last_remainder = Some(rest.id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_memory_holds_false() {
        let mut heap = ResultHeap::default();
        assert!(!heap.new_job());
    }

    #[test]
    fn a_result_freed_in_the_same_step_is_reused_oldest_first() {
        let mut heap = ResultHeap::default();
        heap.free_result(true);
        heap.free_result(false);
        // The oldest exact fit of the unsorted list.
        assert!(heap.new_job());
    }

    #[test]
    fn workunits_eat_every_other_freed_result() {
        // Nine freed results: the first six new jobs find them (each
        // other WORKUNIT splits one), the seventh finds fresh memory.
        let mut heap = ResultHeap::default();
        for _ in 0..9 {
            heap.free_result(true);
        }
        let got: Vec<bool> = (0..8).map(|_| heap.new_job()).collect();
        assert_eq!(got, [true, true, true, true, true, true, false, false]);
    }

    /// A refused job's `RESULT` goes back, still holding the flag it found,
    /// to be the next job's; its `WORKUNIT` waits in the tcache for the
    /// next one, so that job's `WORKUNIT` splits no freed result.
    #[test]
    fn a_refused_jobs_memory_serves_the_next_job() {
        let mut heap = ResultHeap::default();
        heap.free_result(true);
        heap.refused_job();
        heap.free_result(true);
        assert!(heap.new_job()); // the refused job's memory, flag kept
        assert!(heap.new_job()); // the second freed result, not split
        assert!(!heap.new_job());
    }

    /// seed_cpu_gpu_two_projects under the real 7.2.42 emulator (traced
    /// with a malloc logger): A_2's result, freed at 10:05 with its flag
    /// set, waits in the unsorted list until B's RPC at 10:40 frees four
    /// more; B_27, the first new job, gets it (printed `UTS: yes`).
    #[test]
    fn a_freed_result_waits_in_the_unsorted_list_across_steps() {
        let mut heap = ResultHeap::default();
        heap.new_task(); // 10:05 A_3's task starts
        heap.free_result(true); // 10:05 A_2 reported
        for _ in 0..4 {
            heap.free_result(false); // 10:40 B_4 .. B_7 reported
        }
        assert!(heap.new_job()); // B_27
    }

    /// The same run from 23:00 to 1 day 03:10: the memory of A_7's task,
    /// freed when it finished, is carved into B_40's and B_41's results
    /// and workunits, and its last 1,440 bytes later hold A_13's workunit,
    /// which spares A_7's freed result for A_14 (both printed `UTS: yes`).
    #[test]
    fn a_finished_tasks_memory_spares_a_freed_result() {
        let mut heap = ResultHeap::default();
        for _ in 0..6 {
            heap.new_task(); // tasks running at 23:00
        }
        heap.free_task(); // 23:00 A_7 finishes
        assert!(!heap.new_job()); // 23:10 B_40
        assert!(!heap.new_job()); // B_41
        heap.new_task(); // 1 day 00:05 B_25 starts
        heap.free_result(true); // A_7 reported
        heap.free_task(); // 1 day 02:05 A_8 finishes
        heap.new_task(); // A_9 starts
        for _ in 0..4 {
            heap.free_task(); // 1 day 02:35 four tasks finish
        }
        for _ in 0..4 {
            heap.new_task(); // and four start
        }
        heap.free_result(true); // 1 day 03:10 A_8 reported
        assert!(heap.new_job()); // A_13: A_8's memory
        assert!(heap.new_job()); // A_14: A_7's
    }
}

//! The memory a new job's `RESULT` reuses in the 7.2.42 emulator, for the
//! one field that release reads before setting: `unfinished_time_slice`
//! (RESULT::clear() sets it only since 0ce3f7d996, 7.8.0). A new job's
//! first preliminary job list shows whatever the reused memory held.
//!
//! The emulator frees the results an RPC reports (`delete rp`, result
//! order), then makes each new job as `new RESULT` and `new WORKUNIT`
//! (client/sim.cpp `simulate_rpc`). Both are larger than glibc's tcache
//! takes, so their reuse follows its bins:
//! - a freed chunk goes to the front of the unsorted list; a request scans
//!   that list from its back (oldest first), returns an exact fit at once
//!   and files every other chunk in its size bin;
//! - a `RESULT` request (large) then takes, among free chunks of its size,
//!   the one filed second (a bin keeps its first chunk of a size in front
//!   and files later equal ones right behind it);
//! - a `WORKUNIT` request (small) then takes the last chunk of the smallest
//!   bin that fits — the remainder of a split `RESULT` chunk if there is
//!   one, else a freed `RESULT` — and splits it, the rest going back to the
//!   unsorted list (and, for a small request, becoming the last remainder,
//!   which the next small request takes first when it is all the unsorted
//!   list holds);
//! - the many small requests between two time steps file whatever the
//!   unsorted list holds.
//!
//! The sizes are the structures' on x86-64 rounded to chunks (`RESULT`
//! about 1.8 KB, `WORKUNIT` about 0.64 KB: a `RESULT` chunk holds one
//! `WORKUNIT` and the rest of it a second one). Memory taken from the top
//! of the heap is taken to hold false. Measured on the three 7.2.42
//! references: every new job's first preliminary `UTS` but two (of 173)
//! as the emulator printed it; the two (seed_cpu_gpu_two_projects, 22:20
//! and 1 day 15:05) found a freed result's memory where the model finds
//! another, likely through requests of other sizes it does not follow.
//!
//! Architecture Invariant: pure bookkeeping; no I/O.

use std::collections::BTreeMap;

/// A `RESULT`'s chunk size in the model.
const RESULT_CHUNK: u32 = 1800;
/// A `WORKUNIT`'s chunk size in the model.
const WORKUNIT_CHUNK: u32 = 640;
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
#[derive(Clone, Debug, Default)]
pub struct ResultHeap {
    /// Front = newest.
    unsorted: std::collections::VecDeque<Chunk>,
    /// Per size, in bin order (first filed in front, later equal ones
    /// right behind it).
    bins: BTreeMap<u32, Vec<Chunk>>,
    last_remainder: Option<u64>,
    next_id: u64,
    /// The time of the last operation (a new step files the unsorted list).
    now: Option<f64>,
}

impl ResultHeap {
    /// Frees a reported job's `RESULT` at `now`.
    pub fn free_result(&mut self, now: f64, uts: bool) {
        self.step(now);
        let chunk = self.chunk(RESULT_CHUNK, uts);
        self.unsorted.push_front(chunk);
    }

    /// Makes a new job at `now` (`new RESULT`, then `new WORKUNIT`):
    /// returns the flag its `RESULT` finds.
    pub fn new_job(&mut self, now: f64) -> bool {
        self.step(now);
        let result = self.malloc(RESULT_CHUNK, false);
        self.malloc(WORKUNIT_CHUNK, true);
        result.is_some_and(|c| c.uts)
    }

    fn chunk(&mut self, size: u32, uts: bool) -> Chunk {
        self.next_id += 1;
        Chunk {
            size,
            uts,
            id: self.next_id,
        }
    }

    /// Between two time steps the emulator's other requests file the
    /// unsorted list.
    fn step(&mut self, now: f64) {
        if self.now != Some(now) {
            while let Some(chunk) = self.unsorted.pop_back() {
                self.file(chunk);
            }
            self.now = Some(now);
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
        assert!(!heap.new_job(0.0));
    }

    #[test]
    fn a_result_freed_in_the_same_step_is_reused_oldest_first() {
        let mut heap = ResultHeap::default();
        heap.free_result(10.0, true);
        heap.free_result(10.0, false);
        // The oldest exact fit of the unsorted list.
        assert!(heap.new_job(10.0));
    }

    #[test]
    fn workunits_eat_every_other_freed_result() {
        // Nine freed results: the first six new jobs find them (each
        // other WORKUNIT splits one), the seventh finds fresh memory.
        let mut heap = ResultHeap::default();
        for _ in 0..9 {
            heap.free_result(5.0, true);
        }
        let got: Vec<bool> = (0..8).map(|_| heap.new_job(6.0)).collect();
        assert_eq!(got, [true, true, true, true, true, true, false, false]);
    }
}

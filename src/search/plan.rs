//! Planning: how the database is cut into one share per device and, where a share is
//! larger than its device holds, into batches.

use crate::device::{Backend, DeviceInfo};
use crate::engine::WorkerRef;
use crate::scan::layout::MAX_LAYOUT_RESIDUES;
use crate::scan::scanner::{Scanner, ScannerPlan};
use std::ops::Range;

/// One device's share before the device is open: the share, its batches, and the
/// resident share's layout ([`super::SearchPlan`]).
pub(super) struct PlannedShare<'a> {
    pub(super) backend: Backend,
    pub(super) range: Range<usize>,
    pub(super) batches: Vec<Range<usize>>,
    pub(super) resident: Option<ScannerPlan<'a>>,
}

/// One device's contiguous share of the database.
pub(super) struct Share<'a> {
    pub(super) worker: WorkerRef<'a>,
    /// Database indices of the share.
    pub(super) range: Range<usize>,
    /// Contiguous batches covering `range`, each small enough for the device.
    pub(super) batches: Vec<Range<usize>>,
    /// The share laid out on the device once for all queries (`inter` and `team`, one batch).
    pub(super) resident: Option<Scanner<'a>>,
}

/// The most residues of a batch on `info`'s device: `requested`, else a quarter of the
/// device (the next batch is laid out and uploaded while one is scanned, so two may be
/// there at once) and half its largest allocation; at most what one layout holds (an
/// H200's half allocation, 17.5 GB, passed it: one batch of a 20 G-residue database was
/// refused).
pub(super) fn batch_budget(info: &DeviceInfo, requested: Option<u64>) -> u64 {
    let auto = (info.max_alloc_bytes / 2).min(info.global_mem_bytes / 4).max(1 << 20);
    requested.unwrap_or(auto).min(MAX_LAYOUT_RESIDUES)
}

/// Cuts `range` into contiguous batches of at most `budget` residues (a longer
/// subject is a batch of its own).
pub(super) fn plan_batches(range: Range<usize>, lengths: &[usize], budget: u64) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut acc) = (range.start, 0u64);
    for k in range.clone() {
        let len = lengths[k] as u64;
        if k > start && acc + len > budget {
            out.push(start..k);
            start = k;
            acc = 0;
        }
        acc += len;
    }
    if start < range.end || out.is_empty() {
        out.push(start..range.end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_at_most_what_one_layout_holds() {
        let mut h200 = DeviceInfo::described(0, "NVIDIA H200", crate::device::DeviceKind::Gpu, 132);
        (h200.global_mem_bytes, h200.max_alloc_bytes) = (150_000_000_000, 37_500_000_000);
        assert_eq!(batch_budget(&h200, None), MAX_LAYOUT_RESIDUES);
        assert_eq!(batch_budget(&h200, Some(1 << 40)), MAX_LAYOUT_RESIDUES);
        assert_eq!(batch_budget(&h200, Some(20_000_000)), 20_000_000);
        let mut h100 = h200.clone();
        (h100.global_mem_bytes, h100.max_alloc_bytes) = (85_000_000_000, 21_250_000_000);
        assert_eq!(batch_budget(&h100, None), 10_625_000_000);
        // What the layout refused: 4 residues a word, the words' index in 32 bits.
        assert!(MAX_LAYOUT_RESIDUES < 4 * (u32::MAX as u64));
    }

    #[test]
    fn batches_cover_the_range_within_the_budget() {
        let lengths = [5, 5, 5, 20, 1, 1, 1, 1];
        let b = plan_batches(0..8, &lengths, 10);
        assert_eq!(b, vec![0..2, 2..3, 3..4, 4..8]);
        assert_eq!(plan_batches(2..5, &lengths, 1000), vec![2..5]);
        assert_eq!(plan_batches(3..3, &lengths, 10), vec![3..3]);
    }
}

//! Planning: how the database is cut into one share per device and, where a share is
//! larger than its device holds, into batches.

use crate::device::Backend;
use crate::engine::WorkerRef;
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
    fn batches_cover_the_range_within_the_budget() {
        let lengths = [5, 5, 5, 20, 1, 1, 1, 1];
        let b = plan_batches(0..8, &lengths, 10);
        assert_eq!(b, vec![0..2, 2..3, 3..4, 4..8]);
        assert_eq!(plan_batches(2..5, &lengths, 1000), vec![2..5]);
        assert_eq!(plan_batches(3..3, &lengths, 10), vec![3..3]);
    }
}

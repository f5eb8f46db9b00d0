//! Planning: how the database is cut into one share per device and, where a share is
//! larger than its device holds, into batches.

use super::SearchOptions;
use crate::device::{Backend, DeviceInfo};
use crate::engine::{Engine, WorkerRef, split_by_size};
use crate::error::{Error, Result};
use crate::scan::layout::MAX_LAYOUT_RESIDUES;
use crate::scan::layout_words::{DeviceResidues, StoredResidues};
use crate::scan::scanner::{ScanKernel, Scanner, ScannerPlan};
use crate::seq::Database;
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
/// there at once, and a batch's residues beside its words until they are made) and
/// half its largest allocation; at most what one layout holds (an H200's half
/// allocation, 17.5 GB, passed it: one batch of a 20 G-residue database was refused).
pub(super) fn batch_budget(info: &DeviceInfo, requested: Option<u64>) -> u64 {
    let auto = (info.max_alloc_bytes / 2).min(info.global_mem_bytes / 4).max(1 << 20);
    requested.unwrap_or(auto).min(MAX_LAYOUT_RESIDUES)
}

/// The shares of `db` over `devices` devices: contiguous, of about equal residues.
pub(super) fn share_ranges(db: &Database, devices: usize) -> Vec<Range<usize>> {
    let bounds = split_by_size(db.lengths().iter().map(|&l| l as usize), devices);
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// A share of `range` on the device `info` describes: its batches, and the scan kernel
/// that keeps it resident there for every query, when it does (one batch of a variant
/// with a resident scanner).
pub(super) fn share_batches(
    db: &Database,
    info: &DeviceInfo,
    options: &SearchOptions,
    range: Range<usize>,
) -> (Vec<Range<usize>>, Option<ScanKernel>) {
    let batches = plan_batches(range.clone(), db.lengths(), batch_budget(info, options.batch_residues));
    let resident = options.variant_on(info).scan_kernel().filter(|_| batches.len() == 1 && !range.is_empty());
    (batches, resident)
}

/// The residues of `db`'s subjects `range`, as it stores them (back to back).
pub(super) fn stored(db: &Database, range: Range<usize>) -> StoredResidues<'_> {
    let base = db.offsets()[range.start];
    let starts = db.offsets()[range.clone()].iter().map(|&o| o - base).collect();
    StoredResidues::stored(stored_bytes(db, range), starts)
}

/// The bytes of [`stored`].
pub(super) fn stored_bytes(db: &Database, range: Range<usize>) -> &[u8] {
    &db.all_residues()[db.offsets()[range.start] as usize..db.offsets()[range.end] as usize]
}

/// The residues of each share that stays resident on its device, written there while
/// the host arranges the shares ([`stage`]); [`super::SearchPlan::upload`] makes the
/// layouts' words from them on the devices. `Staged::default()` holds none: the upload
/// then writes them itself.
#[derive(Default)]
pub struct Staged {
    /// Per device of the engine: its share's range and residues, when resident.
    shares: Vec<Option<(Range<usize>, DeviceResidues)>>,
}

impl Staged {
    /// The residues staged for share `w` of `range`, if they were.
    pub(super) fn take(&mut self, w: usize, range: &Range<usize>) -> Option<DeviceResidues> {
        match self.shares.get_mut(w).map(Option::take) {
            Some(Some((staged, residues))) if staged == *range => Some(residues),
            _ => None,
        }
    }
}

/// Writes the residues of each share of `db` that stays resident on its device of
/// `engine` (the shares [`super::SearchPlan::new`] makes for the engine's devices) to
/// that device as they are stored, every device at once; a search's
/// [`super::SearchPlan`] arranges the shares meanwhile. Four H200s' 5 G-residue shares
/// of a 20 G-residue database took 0.87-1.05 s to write (BENCHMARKS.md).
pub fn stage(engine: &Engine, db: &Database, options: &SearchOptions) -> Result<Staged> {
    let workers = engine.workers();
    let ranges = share_ranges(db, workers.len());
    let shares = std::thread::scope(|scope| {
        let writes: Vec<_> = workers
            .iter()
            .zip(ranges)
            .map(|(worker, range)| {
                scope.spawn(move || match worker {
                    WorkerRef::OpenCl(dev) if share_batches(db, &dev.info, options, range.clone()).1.is_some() => {
                        stored(db, range.clone()).write(dev).map(|residues| Some((range, residues)))
                    }
                    _ => Ok(None),
                })
            })
            .collect();
        writes
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|_| Err(Error::Internal("writing a share's residues panicked".into()))))
            .collect::<Result<Vec<_>>>()
    })?;
    Ok(Staged { shares })
}

/// Cuts `range` into contiguous batches of at most `budget` residues (a longer
/// subject is a batch of its own).
pub(super) fn plan_batches(range: Range<usize>, lengths: &[u32], budget: u64) -> Vec<Range<usize>> {
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

//! Batches of triples: all triples of a set of sequences (or channels), or a given
//! list, spread over every device of an engine; ranked results.

use super::kernels::{Tuning, Variant, batch_on, score_on};
use super::{Sw3Score, check_inputs};
use crate::device::ClDevice;
use crate::engine::{Engine, WorkerRef, split_by_size};
use crate::error::{Error, Result};
use crate::memory;
use crate::reference::sw3::sw3_score;
use crate::scoring::Scoring;
use rayon::prelude::*;

/// The number of triples `a < b < c` of `n` items, `n·(n-1)·(n-2)/6`, or an error when
/// it does not fit `usize` or the indices do not fit `u32`.
pub fn triple_count(n: usize) -> Result<usize> {
    let too_many = || Error::InvalidArgument(format!("all triples of {n} sequences are too many to list"));
    if n > u32::MAX as usize {
        return Err(too_many());
    }
    // One of three consecutive numbers is divisible by 3, one of two by 2: divide first.
    let mut f = [n as u128, n.saturating_sub(1) as u128, n.saturating_sub(2) as u128];
    for d in [2, 3] {
        if let Some(x) = f.iter_mut().find(|x| **x % d == 0) {
            *x /= d;
        }
    }
    usize::try_from(f[0] * f[1] * f[2]).map_err(|_| too_many())
}

/// Every triple `a < b < c` of `n` items, in lexicographic order ([`triple_count`] of
/// them); an error names a count that cannot be listed, or a list that cannot be held
/// (out of memory).
pub fn all_triples(n: usize) -> Result<Vec<[u32; 3]>> {
    let count = triple_count(n)?;
    let mut out = memory::vec_with_capacity(format_args!("the list of all {count} triples of {n} sequences"), count)?;
    for a in 0..n as u32 {
        for b in a + 1..n as u32 {
            for c in b + 1..n as u32 {
                out.push([a, b, c]);
            }
        }
    }
    Ok(out)
}

/// One line of a results table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchRow {
    /// Indices of the sequences in the roles a, b, c.
    pub triple: [u32; 3],
    pub score: Sw3Score,
}

/// Scores every triple (indices into `seqs`, alphabet codes) on the engine's devices:
/// the list is cut into shares of about equal cell counts, one per device, each device
/// running the batch kernel (or the reference, in parallel over triples, for the native
/// path). Results in the order of `triples`.
pub fn batch(engine: &Engine, seqs: &[&[u8]], triples: &[[u32; 3]], scoring: &Scoring) -> Result<Vec<Sw3Score>> {
    check_inputs(seqs, triples, scoring)?;
    let workers = engine.workers();
    let cells = |t: &[u32; 3]| t.iter().map(|&s| seqs[s as usize].len() + 1).product::<usize>();
    let bounds = split_by_size(triples.iter().map(cells), workers.len());
    if workers.iter().any(|w| matches!(w, WorkerRef::Native)) {
        // The native path scores as many triples at once as it has threads.
        let longest = |k: usize| triples.iter().map(|t| seqs[t[k] as usize].len()).max().unwrap_or(0);
        let concurrent = rayon::current_num_threads().min(triples.len());
        super::check_native_memory([longest(0), longest(1), longest(2)], scoring, false, concurrent)?;
    }
    let tuning = Tuning::default_for(scoring);
    let results: Vec<Result<Vec<Sw3Score>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter()
            .enumerate()
            .map(|(w, worker)| {
                let share = &triples[bounds[w]..bounds[w + 1]];
                let worker = *worker;
                scope.spawn(move || match worker {
                    WorkerRef::OpenCl(dev) => device_share(dev, seqs, share, scoring, &tuning),
                    WorkerRef::Native => Ok(share
                        .par_iter()
                        .map(|t| sw3_score(seqs[t[0] as usize], seqs[t[1] as usize], seqs[t[2] as usize], scoring))
                        .collect()),
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::Device("sw3 worker thread panicked".into()))))
            .collect()
    });
    let mut out = memory::vec_with_capacity(format_args!("the scores of {} triples", triples.len()), triples.len())?;
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// Triples with at least this many cells go to the tile kernel one at a time when a
/// share has too few triples to occupy a device with one work-group each.
const LARGE_TRIPLE_CELLS: usize = 1 << 21;

/// One device's share: the batch kernel, except that a share too small to fill the
/// device (fewer than two triples per compute unit) runs its large triples on the tile
/// kernel, which spreads one triple over the whole device.
fn device_share(
    dev: &ClDevice,
    seqs: &[&[u8]],
    share: &[[u32; 3]],
    scoring: &Scoring,
    tuning: &Tuning,
) -> Result<Vec<Sw3Score>> {
    let cells = |t: &[u32; 3]| t.iter().map(|&s| seqs[s as usize].len() + 1).product::<usize>();
    if share.len() >= 2 * dev.info.compute_units.max(1) as usize {
        return Ok(batch_on(dev, seqs, share, scoring, tuning)?.scores);
    }
    let mut out = vec![Sw3Score::ZERO; share.len()];
    let (large, small): (Vec<usize>, Vec<usize>) =
        (0..share.len()).partition(|&t| cells(&share[t]) >= LARGE_TRIPLE_CELLS);
    for t in large {
        let [a, b, c] = share[t].map(|s| seqs[s as usize]);
        out[t] = score_on(dev, Variant::Tile, a, b, c, scoring, tuning)?.score;
    }
    let small_list: Vec<[u32; 3]> = small.iter().map(|&t| share[t]).collect();
    for (&t, s) in small.iter().zip(batch_on(dev, seqs, &small_list, scoring, tuning)?.scores) {
        out[t] = s;
    }
    Ok(out)
}

/// Rows sorted by score, highest first (ties in the order of `triples`).
pub fn ranked(triples: &[[u32; 3]], scores: &[Sw3Score]) -> Result<Vec<BatchRow>> {
    let rows = triples.iter().zip(scores).map(|(&triple, &score)| BatchRow { triple, score });
    let mut rows = memory::collect(format_args!("the ranking of {} triples", rows.len()), rows)?;
    rows.sort_by_key(|r| std::cmp::Reverse(r.score.score));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_triples_counts_and_order() {
        assert_eq!(all_triples(0).unwrap(), Vec::<[u32; 3]>::new());
        assert_eq!(all_triples(2).unwrap(), Vec::<[u32; 3]>::new());
        assert_eq!(all_triples(3).unwrap(), vec![[0, 1, 2]]);
        let t = all_triples(64).unwrap();
        assert_eq!(t.len(), 41664);
        assert!(t.iter().all(|x| x[0] < x[1] && x[1] < x[2]));
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        let e = all_triples(3_000_000).unwrap_err().to_string();
        assert!(e.starts_with("out of memory: the list of all 4499995500001000000 triples"), "{e}");
    }

    #[test]
    fn triple_counts_are_checked() {
        assert_eq!(triple_count(3_000).unwrap(), 4_495_501_000);
        assert_eq!(triple_count(4_000_000).unwrap(), 10_666_658_666_668_000_000);
        // 5e6: about 2.08e19 triples, past 2^64; past u32 the indices do not fit.
        for n in [5_000_000, u32::MAX as usize + 1] {
            let msg = triple_count(n).unwrap_err().to_string();
            assert!(msg.contains(&format!("all triples of {n} sequences are too many")), "{msg}");
        }
    }
}

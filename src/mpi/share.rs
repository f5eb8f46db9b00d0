//! Each rank's share of the database: contiguous, by cells, in proportion to the ranks'
//! measured speeds; or, when every rank scans on the native CPU path, the whole
//! database, dealt to the ranks by chunks as each becomes free ([`super::deal`]).

use super::{Comm, agree, same_on_every_rank, wire};
use crate::engine::{Engine, split_by_weights};
use crate::error::Result;
use crate::scoring::Scoring;
use crate::search::{SearchOptions, Searcher, StatsMethod};
use crate::seq::{Database, Sequence};
use std::ops::Range;
use std::time::Instant;

/// Residues of the probe query [`calibrate`] times: about the mean length of the 20
/// classic queries (2,088), where a GPU runs at its search speed.
const PROBE_LEN: usize = 2048;

/// Residues of the database sample the probe is scanned against: for an OpenCL device,
/// enough that the launches' fixed costs weigh as little as in a search (an H100 on
/// 64 M residues and a 1,024-residue probe measured 2,670-2,820 GCUPS, two thirds of its
/// search speed; 256 M residues and 2,048, 3,750); for four cores of a CPU, about 0.2 s.
fn sample_residues(engine: &Engine) -> u64 {
    if engine.opencl_devices().is_empty() { 4 << 20 } else { 256 << 20 }
}

/// Ranks whose speeds are within this factor of one another take equal shares: the
/// probe's timing varies about that much between identical ranks (CPU ranks sharing a
/// host's memory bandwidth), and an equal cut is then the better guess.
const SAME_SPEED: f64 = 1.25;

/// This rank's part of the database and what decided it.
#[derive(Debug, Clone)]
pub struct Share {
    /// This rank's subjects, in database order (all of them when `dealt`).
    pub range: Range<usize>,
    /// Every rank's measured speed (GCUPS on the probe), in rank order.
    pub speeds: Vec<f64>,
    /// Every rank's residues (empty when `dealt`).
    pub residues: Vec<u64>,
    /// Every rank scans on the native CPU path, which needs nothing laid out: each query's
    /// chunks of the whole database go to the ranks as they become free
    /// ([`super::deal`]). CPU ranks sharing hosts differ in speed by 10-20% from one
    /// query to the next, in no fixed order, so that fixed shares, however cut, wait for
    /// the slowest.
    pub dealt: bool,
}

impl Share {
    /// The database of this rank's searcher, when it is a part of `db` (its share);
    /// `None` when `dealt`: the searcher holds `db` itself. Fails as
    /// [`Database::part`] does, on this rank alone: callers agree on it.
    pub fn part(&self, db: &Database) -> Result<Option<Database>> {
        (!self.dealt).then(|| db.part(self.range.clone())).transpose()
    }
}

/// This rank's speed in GCUPS: its devices' scan of a probe query (residues of the
/// database's middle record run together) against a contiguous sample of the
/// database, the best of three scans after one that compiles and warms up. Ranks
/// calibrate at the same time, each sharing its host with the others as it will in
/// the search.
pub fn calibrate(engine: &Engine, db: &Database, scoring: &Scoring, options: &SearchOptions) -> Result<f64> {
    let (lengths, n) = (db.lengths(), db.len());
    let budget = sample_residues(engine);
    let (mut start, mut end, mut residues) = (n / 2, n / 2, 0u64);
    while residues < budget && (start > 0 || end < n) {
        if end < n {
            residues += lengths[end] as u64;
            end += 1;
        }
        if residues < budget && start > 0 {
            start -= 1;
            residues += lengths[start] as u64;
        }
    }
    let sample = db.part(start..end)?;
    let all = db.all_residues();
    let from = (all.len() / 2).saturating_sub(PROBE_LEN / 2);
    let probe = Sequence {
        id: "probe".into(),
        description: String::new(),
        residues: all[from..all.len().min(from + PROBE_LEN)].to_vec(),
    };
    if probe.residues.is_empty() || sample.total_residues() == 0 {
        return Ok(1.0);
    }
    let quiet = SearchOptions { alignments: false, stats: StatsMethod::None, batch_residues: None, ..options.clone() };
    let searcher = Searcher::new(engine, &sample, scoring.clone(), quiet)?;
    searcher.scores(&probe)?;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        searcher.scores(&probe)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    let cells = probe.residues.len() as f64 * sample.total_residues() as f64 * searcher.strands().len() as f64;
    Ok(cells / best.max(1e-9) / 1e9)
}

/// The weights of ranks of these speeds: the speeds, or equal weights when they are
/// within [`SAME_SPEED`] of one another.
pub(super) fn weights(speeds: &[f64]) -> Vec<f64> {
    let (lo, hi) = speeds.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &s| (lo.min(s), hi.max(s)));
    if hi <= lo * SAME_SPEED { vec![1.0; speeds.len()] } else { speeds.to_vec() }
}

/// Every rank's speed, on every rank (each rank's [`calibrate`], or its error).
pub(super) fn speeds(comm: &dyn Comm, speed: Result<f64>) -> Result<Vec<f64>> {
    let mine = speed.map(|s| s.to_le_bytes().to_vec());
    agree(comm, mine)?.iter().map(|b| wire::Reader::new(b).f64()).collect()
}

/// Checks that every rank opened the same database (a copy on every node), then cuts
/// it into one contiguous share per rank by residues, weighed by the ranks' speeds
/// (`speed`: this rank's [`calibrate`] of `engine`), or deals it ([`Share::dealt`]) when
/// every rank's engine is the native CPU path and every rank's threads may call MPI
/// ([`Comm::threads_may_draw`]). Collective: every rank calls it.
pub fn share(comm: &dyn Comm, engine: &Engine, db: &Database, speed: Result<f64>) -> Result<Share> {
    let mut mine = Vec::new();
    wire::put_u64(&mut mine, db.len() as u64);
    wire::put_u64(&mut mine, db.total_residues());
    wire::put_u64(&mut mine, db.fingerprint());
    same_on_every_rank(comm, mine, |theirs, first| {
        let read = |b: &[u8]| -> (u64, u64) {
            let mut r = wire::Reader::new(b);
            (r.u64().unwrap_or(0), r.u64().unwrap_or(0))
        };
        let ((n, residues), (n0, residues0)) = (read(theirs), read(first));
        let names = if (n, residues) == (n0, residues0) { " (their names or lengths differ)" } else { "" };
        format!(
            "its database differs from rank 0's: {n} sequences of {residues} residues against {n0} of {residues0}{names}"
        )
    })?;
    let speeds = speeds(comm, speed)?;
    let dealer = !engine.uses_opencl() && comm.threads_may_draw();
    let dealt = agree(comm, Ok(vec![u8::from(dealer)]))?.iter().all(|dealer| dealer[..] == [1]);
    if dealt {
        return Ok(Share { range: 0..db.len(), speeds, residues: Vec::new(), dealt });
    }
    let bounds = split_by_weights(db.lengths().iter().map(|&l| l as usize), &weights(&speeds));
    let residues = (0..comm.size()).map(|r| (bounds[r]..bounds[r + 1]).map(|k| db.seq_len(k) as u64).sum()).collect();
    Ok(Share { range: bounds[comm.rank()]..bounds[comm.rank() + 1], speeds, residues, dealt })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_speeds_share_equally_and_far_ones_by_speed() {
        assert_eq!(weights(&[10.0, 11.5, 9.5]), vec![1.0; 3]);
        assert_eq!(weights(&[4000.0, 40.0]), vec![4000.0, 40.0]);
    }
}

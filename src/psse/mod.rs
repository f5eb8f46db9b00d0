//! Pairwise statistical significance (PSSE): how likely is a pair's Smith-Waterman score
//! by chance, for these two sequences?
//!
//! The subject is shuffled `N` times (N = 1,000 is usual), the query is aligned with every
//! shuffle, a Gumbel distribution is fitted to those `N` scores by maximum likelihood
//! (complete, or censored below a quantile), and the real score is read against it:
//!
//! ```text
//!     P(S >= s) = 1 - exp(-K m n e^{-lambda s}),     K = e^{lambda mu} / (m n)
//! ```
//!
//! with `m`, `n` the query and subject lengths. This is what FASTA's `prss` did and
//! `ssearch36 -k 1000` does for a one-sequence library (whose `E(1)` equals
//! [`PsseResult::e_value`]); the GPU design follows Zhang et al. (a permutation kernel
//! with a device random generator, a structure-of-arrays layout of the shuffles so the
//! alignment kernel's reads coalesce, inter-task alignment, tiles of subjects sized to
//! fill the device).
//!
//! # How it runs
//!
//! * **Shuffles** ([`shuffle`], `cl/psse.cl`): Fisher-Yates over the whole subject, or
//!   within windows of `w` residues (`window`, like `prss -v w`), driven by the
//!   counter-based generator Philox4x32-10 ([`philox`]) keyed by `(seed, subject index,
//!   shuffle index)`. The OpenCL kernel and the CPU code draw the same words, so a seed
//!   gives bit-identical shuffles, and therefore scores and fits, on every device, in
//!   every tiling and on the native CPU path.
//! * **Alignment** ([`opencl`]): the shuffles are written on the device straight into
//!   the inter-task layout of the scan kernels (4 residues per 32-bit word, the shuffles
//!   of a subject side by side) and aligned by `scan_team` ([`Variant::Team`], two
//!   shuffles per team of work-items, the default; with enough queries
//!   `scan_team_pairs`, two queries per team against one shuffle) or `scan_inter`
//!   ([`Variant::Inter`], one per work-item: Zhang's kernel). Saturated 16-bit scores
//!   are recomputed exactly on the CPU (the shuffle regenerated from its key). The real
//!   score is one more entry of the same launch.
//! * **Many pairs** ([`psse_many`]): every query against every subject. The pairs are
//!   shared out among the engine's devices by cells: a block of the queries against
//!   every subject each when there are at least as many queries as devices, else a block
//!   of the subjects (`share_pairs`). A device's subjects are sorted by length and cut
//!   into tiles that fill its memory budget; each tile's shuffles are made once and every
//!   query of its share is aligned against them ("one permutation, all queries"). Each
//!   launch is enqueued before the previous one's scores are read, and the fits run on
//!   CPU threads, while the device aligns the next queries.
//! * **Native CPU path** (an engine without OpenCL): the same shuffles made on the CPU,
//!   scored by the SIMD scan (`scan::native`, exact like the reference).
//!
//! ```no_run
//! use clsw::{Engine, device::DeviceChoice, psse::{self, PsseOptions}};
//! # fn main() -> clsw::Result<()> {
//! let engine = Engine::new(DeviceChoice::Auto)?;
//! let opts = PsseOptions::default(); // BLOSUM50, gaps 10/2, 1,000 shuffles, seed 42
//! let (query, subject) = (vec![0u8, 4, 9, 12], vec![3u8, 4, 9, 12, 1]); // alphabet codes
//! let r = psse::psse(&engine, &query, &subject, &opts)?;
//! println!("score {} lambda {:.4} K {:.4} P {:.3e}", r.score, r.lambda, r.k, r.p_value);
//! # Ok(())
//! # }
//! ```
//!
//! Over 600 lines: the entry points, their options and results, and the sharing of
//! pairs over devices belong together; the kernels' host side is [`opencl`].

pub mod fit;
pub mod opencl;
pub mod philox;
pub mod shuffle;

pub use fit::{Fit, fit_scores};

use crate::device::ClDevice;
use crate::engine::{Engine, WorkerRef, split_by_weights};
use crate::error::{Error, Result};
use crate::memory;
use crate::scan::native;
use crate::scan::scanner::RETIRE_EVERY;
use crate::scoring::{DefaultMatrices, Scoring, ScoringRequest};
use crate::seq::Alphabet;
use opencl::{DeviceTile, TileSpec, choose_kernel};
use rayon::prelude::*;
use std::sync::Arc;

crate::error::named_enum! {
    /// The alignment kernel that scores the shuffles on OpenCL devices.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub enum Variant ("psse kernel variant", "variants") {
        /// `scan_inter`: one shuffle per work-item (Zhang et al.'s inter-task kernel).
        Inter = "inter",
        /// `scan_team`: two shuffles per team of work-items, the query's rows spread over
        /// the team (the scan's fastest kernel); with enough queries `scan_team_pairs`,
        /// two queries per team against one shuffle.
        #[default]
        Team = "team",
    }
}

impl TryFrom<crate::scan::Variant> for Variant {
    type Error = Error;
    /// psse aligns shuffles with the scan kernels `team` and `inter` only: `intra` and
    /// `plain` are refused.
    fn try_from(v: crate::scan::Variant) -> Result<Variant> {
        match v {
            crate::scan::Variant::Team => Ok(Variant::Team),
            crate::scan::Variant::Inter => Ok(Variant::Inter),
            other => Err(Error::InvalidArgument(format!("psse runs the team or inter kernel, not {other}"))),
        }
    }
}

impl Variant {
    /// A variant named by a user; the scan's retired names ([`crate::scan::RETIRED`])
    /// are taken as the default for one release.
    pub fn choice(name: &str) -> Result<Variant> {
        if crate::scan::RETIRED.iter().any(|r| name.eq_ignore_ascii_case(r)) {
            Ok(Variant::default())
        } else {
            name.parse()
        }
    }

    /// The scan variant whose kernels this one runs (and whose self-test it needs).
    pub fn scan_variant(self) -> crate::scan::Variant {
        match self {
            Variant::Inter => crate::scan::Variant::Inter,
            Variant::Team => crate::scan::Variant::Team,
        }
    }
}

/// How to estimate significance.
#[derive(Debug, Clone, PartialEq)]
pub struct PsseOptions {
    /// Matrix and gaps of the alignments (default: BLOSUM50, open 10, extend 2: prss's default).
    pub scoring: Scoring,
    /// Shuffles per subject (at least 2) (default: 1,000).
    pub shuffles: usize,
    /// 0: uniform shuffles; `w > 0`: shuffles within windows of `w` residues (default: 0).
    pub window: usize,
    /// Seed of the generator (default: 42).
    pub seed: u64,
    /// `Some(q)`: censored fit, shuffle scores below the `q`-quantile counted but not
    /// used; `None`: complete fit (default: None).
    pub censor_below: Option<f64>,
    /// Alignment kernel on OpenCL devices (default: team).
    pub variant: Variant,
    /// Keep every pair's shuffle scores in [`PsseResult::shuffle_scores`] (default: false).
    pub keep_scores: bool,
    /// Tuning: most residues of shuffles per device tile; 0 sizes tiles from the device's
    /// memory (default: 0).
    pub tile_residues: usize,
}

/// psse's matrices when none is named: BLOSUM50 (with its 10/2 gaps: prss's default)
/// and EDNAFULL.
pub const DEFAULT_MATRICES: DefaultMatrices = DefaultMatrices { protein: "BLOSUM50", dna: "EDNAFULL" };

impl Default for PsseOptions {
    fn default() -> PsseOptions {
        let scoring = ScoringRequest::default().resolve(Alphabet::Protein, DEFAULT_MATRICES);
        PsseOptions::new(scoring.expect("the default matrix is built in"))
    }
}

impl PsseOptions {
    /// The defaults with another scoring scheme.
    pub fn new(scoring: Scoring) -> PsseOptions {
        PsseOptions {
            scoring,
            shuffles: 1000,
            window: 0,
            seed: 42,
            censor_below: None,
            variant: Variant::default(),
            keep_scores: false,
            tile_residues: 0,
        }
    }

    /// Checks the options before any work: 2 to `u32::MAX - 1` shuffles, a censoring quantile
    /// strictly between 0 and 1. [`psse`], [`psse_many`] and [`psse_run`] call it; the C
    /// layer and the CLI call it to refuse options before reading their inputs.
    pub fn validate(&self) -> Result<()> {
        self.scoring.require_local("psse")?;
        self.scoring.require_matrix("psse")?;
        if self.shuffles < 2 {
            return Err(Error::InvalidArgument(format!(
                "psse needs at least 2 shuffles (1,000 is usual), got {}",
                self.shuffles
            )));
        }
        if self.shuffles >= u32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "{} shuffles is out of range: psse takes at most {} shuffles per subject",
                self.shuffles,
                u32::MAX - 1
            )));
        }
        if let Some(q) = self.censor_below
            && !(q > 0.0 && q < 1.0)
        {
            return Err(Error::InvalidArgument(format!(
                "censoring quantile (censor_below) must lie strictly between 0 and 1, got {q}"
            )));
        }
        Ok(())
    }
}

/// The significance of one pair.
#[derive(Debug, Clone, PartialEq)]
pub struct PsseResult {
    /// Index of the query in the caller's list.
    pub query: usize,
    /// Index of the subject in the caller's list.
    pub subject: usize,
    pub query_len: usize,
    pub subject_len: usize,
    /// The pair's Smith-Waterman score.
    pub score: i32,
    /// The Gumbel fitted to the shuffle scores: location and scale.
    pub mu: f64,
    pub lambda: f64,
    /// `K = exp(lambda mu) / (m n)`.
    pub k: f64,
    /// `P(S >= score) = 1 - exp(-e_value)`.
    pub p_value: f64,
    /// `K m n exp(-lambda score)`: expected alignments scoring at least `score` in one
    /// comparison of these two sequences (ssearch36's `E(1)`).
    pub e_value: f64,
    /// Shuffles aligned.
    pub shuffles: usize,
    /// Shuffle scores below the censoring cutoff (0 for a complete fit).
    pub censored: usize,
    /// The censoring cutoff (a score), when censored.
    pub cutoff: Option<f64>,
    /// Alignments whose 16-bit device score saturated and were recomputed exactly.
    pub recomputed: usize,
    /// Every shuffle's score, in shuffle order, when [`PsseOptions::keep_scores`] is set.
    pub shuffle_scores: Vec<i32>,
}

/// What a run cost.
#[derive(Debug, Clone, Default)]
pub struct PsseStats {
    /// Device seconds of the shuffle kernel (profiling events), summed over devices.
    pub shuffle_seconds: f64,
    /// Device seconds of the alignment kernel, summed over devices.
    pub align_seconds: f64,
    /// Alignments made: pairs x (shuffles + 1).
    pub alignments: u64,
    /// Cells of those alignments (`m n` each).
    pub cells: u64,
    /// Tiles of subjects made on OpenCL devices.
    pub tiles: usize,
    /// Alignments recomputed exactly after a 16-bit score saturated.
    pub recomputed: usize,
}

impl PsseStats {
    pub(crate) fn add(&mut self, o: &PsseStats) {
        self.shuffle_seconds += o.shuffle_seconds;
        self.align_seconds += o.align_seconds;
        self.alignments += o.alignments;
        self.cells += o.cells;
        self.tiles += o.tiles;
        self.recomputed += o.recomputed;
    }
}

/// Every pair's outcome (a fit can fail for one pair, e.g. when a short subject's shuffles
/// all score the same), and the run's costs.
#[derive(Debug)]
pub struct PsseRun {
    /// Pair `(q, s)` at `q * subjects + s`.
    pub pairs: Vec<Result<PsseResult>>,
    pub stats: PsseStats,
}

/// The significance of one pair (the subject is subject number 0 for the generator).
pub fn psse(engine: &Engine, query: &[u8], subject: &[u8], opts: &PsseOptions) -> Result<PsseResult> {
    let mut run = psse_run(engine, &[query], &[subject], opts)?;
    run.pairs.pop().unwrap_or_else(|| Err(Error::InvalidArgument("no pair".into())))
}

/// The significance of every pair of `queries` x `subjects`, query-major (pair `(q, s)` at
/// `q * subjects.len() + s`). Fails when any pair's fit fails, naming the pair; see
/// [`psse_run`] for per-pair outcomes.
pub fn psse_many<Q, S>(engine: &Engine, queries: &[Q], subjects: &[S], opts: &PsseOptions) -> Result<Vec<PsseResult>>
where
    Q: AsRef<[u8]> + Sync,
    S: AsRef<[u8]> + Sync,
{
    let n = subjects.len().max(1);
    psse_run(engine, queries, subjects, opts)?
        .pairs
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.map_err(|e| Error::InvalidArgument(format!("pair of query {} and subject {}: {e}", i / n + 1, i % n + 1)))
        })
        .collect()
}

/// [`psse_many`] with each pair's own outcome and the run's costs.
pub fn psse_run<Q, S>(engine: &Engine, queries: &[Q], subjects: &[S], opts: &PsseOptions) -> Result<PsseRun>
where
    Q: AsRef<[u8]> + Sync,
    S: AsRef<[u8]> + Sync,
{
    let all = PairBlock { queries: 0..queries.len(), subjects: 0..subjects.len() };
    psse_block(engine, queries, subjects, &all, opts)
}

/// [`psse_run`] of the pairs of one block of `queries` x `subjects` (one rank's share
/// of an MPI run, [`crate::mpi::psse_run`]): `pairs` holds the block's pairs, query-major
/// within the block; each pair's shuffles are keyed by its subject's index in
/// `subjects`, so its result is the one [`psse_run`] gives.
pub fn psse_block<Q, S>(
    engine: &Engine,
    queries: &[Q],
    subjects: &[S],
    block: &PairBlock,
    opts: &PsseOptions,
) -> Result<PsseRun>
where
    Q: AsRef<[u8]> + Sync,
    S: AsRef<[u8]> + Sync,
{
    opts.validate()?;
    engine.check_variant(opts.variant.scan_variant())?;
    let queries: Vec<&[u8]> = queries.iter().map(|q| q.as_ref()).collect();
    let subjects: Vec<&[u8]> = subjects.iter().map(|s| s.as_ref()).collect();
    if subjects.len() > u32::MAX as usize {
        return Err(Error::InvalidArgument("more than 4 G subjects".into()));
    }
    let alphabet = opts.scoring.matrix.alphabet();
    for (what, set) in [("query", &queries), ("subject", &subjects)] {
        for (k, s) in set.iter().enumerate() {
            alphabet.check_codes(s, format_args!("{what} {}", k + 1))?;
        }
    }
    if block.queries.end > queries.len() || block.subjects.end > subjects.len() {
        return Err(Error::InvalidArgument(format!(
            "pair block {:?} x {:?} outside {} queries x {} subjects",
            block.queries,
            block.subjects,
            queries.len(),
            subjects.len()
        )));
    }
    if block.is_empty() {
        return Ok(PsseRun { pairs: Vec::new(), stats: PsseStats::default() });
    }
    let longest = |set: &[&[u8]]| set.iter().map(|s| s.len()).max().unwrap_or(0);
    opts.scoring.check_lengths(longest(&queries), longest(&subjects), "the longest query and subject")?;
    // A pair's fit holds its shuffle scores a few times over (as they arrive, a copy,
    // as floating point for the likelihood): about 24 bytes a shuffle, for as many pairs
    // at once as there are threads.
    let concurrent = rayon::current_num_threads().min(block.len());
    let what = format!(
        "the fits of {} of {} shuffles each",
        crate::words::counted(concurrent as u64, "pair", "pairs"),
        opts.shuffles
    );
    memory::ensure(what, (opts.shuffles as u128 + 1) * 24 * concurrent as u128)?;
    let workers = engine.workers();
    let shares = share_pairs(&queries, &subjects, block, &vec![1.0; workers.len()]);
    let (queries, subjects) = (&queries, &subjects);
    let shares: Vec<Result<Share>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter()
            .zip(shares)
            .map(|(worker, pairs)| {
                let worker = *worker;
                scope.spawn(move || match worker {
                    _ if pairs.is_empty() => Ok(Share::default()),
                    WorkerRef::OpenCl(dev) => device_share(dev, &queries[pairs.queries.clone()], subjects, pairs, opts),
                    WorkerRef::Native => native_share(&queries[pairs.queries.clone()], subjects, pairs, opts),
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::Device("psse worker thread panicked".into()))))
            .collect()
    });
    let mut pairs: Vec<Option<Result<PsseResult>>> = (0..block.len()).map(|_| None).collect();
    let mut stats = PsseStats::default();
    for share in shares {
        let share = share?;
        stats.add(&share.stats);
        for (i, r) in share.pairs {
            let (q, s) = (i / subjects.len(), i % subjects.len());
            pairs[(q - block.queries.start) * block.subjects.len() + s - block.subjects.start] = Some(r);
        }
    }
    let pairs =
        pairs.into_iter().map(|p| p.unwrap_or_else(|| Err(Error::Device("pair left unscored".into())))).collect();
    Ok(PsseRun { pairs, stats })
}

/// The pairs of a block of queries against a block of subjects (what one device, or
/// one rank of an MPI run, aligns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairBlock {
    pub queries: std::ops::Range<usize>,
    pub subjects: std::ops::Range<usize>,
}

impl PairBlock {
    pub fn is_empty(&self) -> bool {
        self.queries.is_empty() || self.subjects.is_empty()
    }

    /// The number of pairs.
    pub fn len(&self) -> usize {
        self.queries.len() * self.subjects.len()
    }
}

/// Shares the pairs of `block` by cells, one share per weight (a worker's speed) in
/// proportion to it. With at least as many queries as shares, each takes a block of
/// the queries against every subject: a device's launches then hold every subject's
/// shuffles, as large as one device's alone (split by subjects, each device would run
/// its half of every launch nearly as long as one runs the whole). With fewer queries,
/// each takes a block of the subjects.
pub fn share_pairs(queries: &[&[u8]], subjects: &[&[u8]], block: &PairBlock, weights: &[f64]) -> Vec<PairBlock> {
    let parts = weights.len();
    let by_queries = parts > 1 && block.queries.len() >= parts;
    let sizes: Vec<usize> =
        if by_queries { &queries[block.queries.clone()] } else { &subjects[block.subjects.clone()] }
            .iter()
            .map(|s| s.len() + 1)
            .collect();
    let bounds = split_by_weights(sizes, weights);
    (0..parts.max(1))
        .map(|w| {
            if by_queries {
                let start = block.queries.start;
                PairBlock { queries: start + bounds[w]..start + bounds[w + 1], subjects: block.subjects.clone() }
            } else {
                let start = block.subjects.start;
                PairBlock { queries: block.queries.clone(), subjects: start + bounds[w]..start + bounds[w + 1] }
            }
        })
        .collect()
}

/// One worker's pairs (by pair index) and costs.
#[derive(Default)]
struct Share {
    pairs: Vec<(usize, Result<PsseResult>)>,
    stats: PsseStats,
}

/// Fits one pair from its entry scores (the shuffles in order, then the real score);
/// entries the device reported as saturated (negative: CLSW_SATURATED) are recomputed
/// here, on the native path's 32-bit lanes. Returns the outcome and the number
/// recomputed.
fn pair_result(
    q: usize,
    s: usize,
    query: &[u8],
    subject: &[u8],
    entries: &[i32],
    recomputed_before: usize,
    opts: &PsseOptions,
) -> (Result<PsseResult>, usize) {
    let mut scores = entries.to_vec();
    let n = opts.shuffles;
    let saturated: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] < 0).collect();
    let recomputed = recomputed_before + saturated.len();
    // A chunk of shuffles at a time, as the native path makes them.
    for chunk in saturated.chunks(NATIVE_SHUFFLE_CHUNK as usize) {
        let sequences: Vec<Vec<u8>> = chunk
            .iter()
            .map(|&i| match i == n {
                true => subject.to_vec(),
                false => shuffle::shuffled(subject, opts.seed, s as u32, i as u32, opts.window),
            })
            .collect();
        match native::scores(query, &sequences, &opts.scoring, native::Report::Scores) {
            Ok(wide) => chunk.iter().zip(wide.scores).for_each(|(&i, r)| scores[i] = r.score),
            Err(e) => return (Err(e), recomputed),
        }
    }
    let score = scores.pop().unwrap_or(0);
    let result = fit_scores(&scores, score, query.len(), subject.len(), opts.censor_below).map(|f| PsseResult {
        query: q,
        subject: s,
        query_len: query.len(),
        subject_len: subject.len(),
        score,
        mu: f.mu,
        lambda: f.lambda,
        k: f.k,
        p_value: f.p_value,
        e_value: f.e_value,
        shuffles: n,
        censored: f.censored,
        cutoff: f.cutoff,
        recomputed,
        shuffle_scores: if opts.keep_scores { scores } else { Vec::new() },
    });
    (result, recomputed)
}

fn pair_cost(queries: &[&[u8]], subject: &[u8], opts: &PsseOptions) -> (u64, u64) {
    let per = opts.shuffles as u64 + 1;
    let cells: u64 = queries.iter().map(|q| q.len() as u64 * subject.len() as u64).sum();
    (queries.len() as u64 * per, cells * per)
}

/// Shuffles made and scored at once on the native path: the memory of a subject's
/// shuffles stays bounded however many are asked for.
const NATIVE_SHUFFLE_CHUNK: u32 = 1 << 14;

/// The native CPU path: shuffles made on the CPU in chunks, scored by the SIMD scan.
fn native_share(queries: &[&[u8]], subjects: &[&[u8]], share: PairBlock, opts: &PsseOptions) -> Result<Share> {
    let q0 = share.queries.start;
    let per_subject: Vec<Result<Share>> = share
        .subjects
        .into_par_iter()
        .map(|s| {
            let subject = subjects[s];
            let n = opts.shuffles as u32;
            // Per query: every shuffle's score, then the real one's, as the device path gives them.
            let mut scores = Vec::with_capacity(queries.len());
            for _ in queries {
                scores.push(memory::vec_with_capacity::<i32>("the shuffle scores of a pair", n as usize + 1)?);
            }
            let mut recomputed = vec![0; queries.len()];
            let mut start = 0u32;
            loop {
                let end = n.min(start.saturating_add(NATIVE_SHUFFLE_CHUNK));
                let mut entries = shuffle::shuffles(subject, opts.seed, s as u32, start..end, opts.window);
                let last = end == n;
                if last {
                    entries.push(subject.to_vec());
                }
                for (q, query) in queries.iter().enumerate() {
                    let out = native::scores(query, &entries, &opts.scoring, native::Report::Scores)?;
                    scores[q].extend(out.scores.iter().map(|r| r.score));
                    recomputed[q] += out.recomputed;
                }
                if last {
                    break;
                }
                start = end;
            }
            let mut stats = PsseStats::default();
            (stats.alignments, stats.cells) = pair_cost(queries, subject, opts);
            let pairs = queries
                .iter()
                .enumerate()
                .map(|(q, query)| {
                    let (r, rec) = pair_result(q0 + q, s, query, subject, &scores[q], recomputed[q], opts);
                    stats.recomputed += rec;
                    ((q0 + q) * subjects.len() + s, r)
                })
                .collect();
            Ok(Share { pairs, stats })
        })
        .collect();
    let mut out = Share::default();
    for share in per_subject {
        let share = share?;
        out.pairs.extend(share.pairs);
        out.stats.add(&share.stats);
    }
    Ok(out)
}

/// One query's scores against one tile, on their way to the fits.
struct Batch {
    query: usize,
    /// The tile's subjects (caller's indices) in entry order.
    members: Arc<Vec<usize>>,
    scores: Vec<i32>,
}

/// An OpenCL device's share: tiles of subjects, their shuffles made on the device, every
/// query aligned against each tile; fits on CPU threads as the scores arrive.
fn device_share(
    dev: &ClDevice,
    queries: &[&[u8]],
    subjects: &[&[u8]],
    share: PairBlock,
    opts: &PsseOptions,
) -> Result<Share> {
    let kernel = choose_kernel(opts.variant, &opts.scoring, queries.len());
    // The launches: as many queries as the kernel aligns at once, neighbours by length
    // (a pair's launch takes as long as its longer query's).
    let mut by_length: Vec<usize> = (0..queries.len()).collect();
    by_length.sort_by_key(|&q| (queries[q].len(), q));
    let launches: Vec<&[usize]> = by_length.chunks(opencl::queries_per_launch(kernel)).collect();
    let q0 = share.queries.start;
    let mut order: Vec<usize> = share.subjects.collect();
    order.sort_by_key(|&s| (subjects[s].len(), s));
    let lengths: Vec<usize> = order.iter().map(|&s| subjects[s].len()).collect();
    let per_subject = opts.shuffles + 1;
    let budget = if opts.tile_residues > 0 { opts.tile_residues } else { opencl::tile_budget(dev, kernel) };
    let tiles = opencl::tiles(&lengths, per_subject, budget);
    let mut stats = PsseStats::default();
    for &s in &order {
        let (a, c) = pair_cost(queries, subjects[s], opts);
        stats.alignments += a;
        stats.cells += c;
    }
    let pad = opts.scoring.matrix.size() as u8;
    std::thread::scope(|scope| {
        // A few batches in flight: the device runs ahead of the fits, but not unboundedly.
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
        let fitter = scope.spawn(move || {
            let mut pairs = Vec::new();
            let mut recomputed = 0;
            for batch in rx {
                let q = batch.query;
                let fitted: Vec<(usize, Result<PsseResult>, usize)> = batch
                    .members
                    .par_iter()
                    .enumerate()
                    .map(|(rank, &s)| {
                        let entries = &batch.scores[rank * per_subject..(rank + 1) * per_subject];
                        let (r, rec) = pair_result(q0 + q, s, queries[q], subjects[s], entries, 0, opts);
                        ((q0 + q) * subjects.len() + s, r, rec)
                    })
                    .collect();
                for (i, r, rec) in fitted {
                    pairs.push((i, r));
                    recomputed += rec;
                }
            }
            (pairs, recomputed)
        });
        let produced = (|| -> Result<()> {
            for &(a, b) in &tiles {
                let members = Arc::new(order[a..b].to_vec());
                let tile_subjects: Vec<&[u8]> = members.iter().map(|&s| subjects[s]).collect();
                let keys: Vec<u32> = members.iter().map(|&s| s as u32).collect();
                let spec = TileSpec {
                    subjects: &tile_subjects,
                    keys: &keys,
                    shuffles: opts.shuffles,
                    seed: opts.seed,
                    window: opts.window,
                    pad,
                };
                let tile = DeviceTile::new(dev, kernel, &spec)?;
                stats.shuffle_seconds += tile.shuffle_seconds;
                stats.tiles += 1;
                // Each launch is enqueued before the previous one's scores are waited
                // for, so the device aligns while the last scores travel and the host
                // makes the next launch; the two alternate between the tile's two
                // output sets.
                let mut in_flight = None;
                let mut finish = |(launch, alignment): (&[usize], opencl::Alignment)| -> Result<()> {
                    let (per_query, seconds) = tile.finish(alignment)?;
                    stats.align_seconds += seconds;
                    for (&query, scores) in launch.iter().zip(per_query) {
                        if tx.send(Batch { query, members: members.clone(), scores }).is_err() {
                            return Err(Error::Device("psse fitting thread stopped".into()));
                        }
                    }
                    Ok(())
                };
                for (i, launch) in launches.iter().map(Some).chain([None]).enumerate() {
                    // Every RETIRE_EVERY launches, a pause with nothing queued to release
                    // the finished launches' inputs (the tile keeps them until then).
                    if launch.is_some() && i > 0 && i % RETIRE_EVERY == 0 {
                        if let Some(done) = in_flight.take() {
                            finish(done)?;
                        }
                        tile.release_retired();
                    }
                    let next = match launch {
                        Some(&launch) => {
                            let qs: Vec<&[u8]> = launch.iter().map(|&q| queries[q]).collect();
                            Some((launch, tile.start(&qs, &opts.scoring, i % 2)?))
                        }
                        None => None,
                    };
                    if let Some(done) = std::mem::replace(&mut in_flight, next) {
                        finish(done)?;
                    }
                }
            }
            Ok(())
        })();
        drop(tx);
        let fitted = fitter.join().map_err(|_| Error::Device("psse fitting thread panicked".into()));
        produced?;
        let (pairs, recomputed) = fitted?;
        stats.recomputed += recomputed;
        Ok(Share { pairs, stats })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_shared_by_queries_when_there_are_enough_else_by_subjects() {
        let (q, s) = (vec![vec![0u8; 100], vec![0; 300], vec![0; 100]], vec![vec![0u8; 50]; 4]);
        let (q, s): (Vec<&[u8]>, Vec<&[u8]>) = (q.iter().map(|x| &x[..]).collect(), s.iter().map(|x| &x[..]).collect());
        let all = |nq: usize| PairBlock { queries: 0..nq, subjects: 0..4 };
        let shares = share_pairs(&q, &s, &all(3), &[1.0; 2]);
        assert_eq!(shares, [PairBlock { queries: 0..2, subjects: 0..4 }, PairBlock { queries: 2..3, subjects: 0..4 }]);
        let shares = share_pairs(&q[..1], &s, &all(1), &[1.0; 2]);
        assert_eq!(shares, [PairBlock { queries: 0..1, subjects: 0..2 }, PairBlock { queries: 0..1, subjects: 2..4 }]);
        assert_eq!(share_pairs(&q, &s, &all(3), &[1.0]), [all(3)]);
        // A faster worker takes more; a block inside the whole is cut inside it.
        let shares = share_pairs(&q, &s, &all(3), &[3.0, 1.0]);
        assert_eq!(shares, [PairBlock { queries: 0..2, subjects: 0..4 }, PairBlock { queries: 2..3, subjects: 0..4 }]);
        let inner = PairBlock { queries: 1..2, subjects: 1..4 };
        let shares = share_pairs(&q, &s, &inner, &[1.0; 3]);
        let subjects: Vec<_> = shares.iter().map(|b| b.subjects.clone()).collect();
        assert_eq!(subjects, [1..2, 2..3, 3..4]);
        // Every pair in exactly one share, for any number of workers.
        for workers in 1..6 {
            let mut seen = vec![0; q.len() * s.len()];
            for share in share_pairs(&q, &s, &all(3), &vec![1.0; workers]) {
                for a in share.queries.clone() {
                    for b in share.subjects.clone() {
                        seen[a * s.len() + b] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{workers} workers: {seen:?}");
        }
    }
}

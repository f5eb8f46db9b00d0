//! Database search: queries against a [`Database`] on an [`Engine`]'s devices, with
//! every subject's exact score, the top hits with E-values and bit scores, and the
//! hits' full alignments.
//!
//! # Pipeline
//!
//! [`Searcher::new`] cuts the database into one contiguous share per device (about
//! equal residue counts; `--device all` uses every GPU) and uploads each share once:
//! with the resident scanner's variants (`team`, `inter`) the share stays resident on its device
//! for every query of the run. A share larger than the device can hold (see
//! [`SearchOptions::batch_residues`]) is cut into contiguous batches that are
//! uploaded and scanned one after another; then the queries of a run are scanned
//! batch by batch (all queries of a chunk against batch 1, then batch 2, ...), so each
//! batch is laid out and uploaded once per chunk of queries, not once per query.
//! An engine without OpenCL devices computes on the native CPU path
//! ([`crate::scan::native`]: one subject per SIMD lane, on all cores).
//!
//! That setup is host work and uploads: [`SearchPlan::new`] does the host work (the
//! shares, each resident share's layout) from the devices' descriptions alone, so it can
//! run while the devices open ([`crate::engine::Engine::open_in_background`], as `clsw
//! scan` does); [`stage`] writes each resident share's residues to its device beside
//! it, once the devices are open, and [`SearchPlan::upload`] makes the layouts' words
//! from them on every device at once.
//!
//! [`Searcher::search_all`] runs the device scans on one thread and, on the calling
//! thread, the CPU work of the previous query: E-values, the choice of hits and their
//! alignments ([`align_hits`]: [`crate::reference::align`]'s alignment, traced back over
//! the rectangle that must hold it, 16 hits at a time on the SIMD lanes). So the alignments of query
//! i are computed while the devices scan query i + 1. The last few queries are scanned
//! longest first, so that the CPU work no scan hides, the last query's, is the least.
//!
//! # Scores, hits and strands
//!
//! [`SearchResult::scores`] holds every subject's optimal local score in database
//! order. For DNA the query's reverse complement is searched too (unless
//! [`Strands::Plus`]); a subject's score is then the better of its two strands (the
//! plus strand on ties) and [`SearchResult::strands`] says which. End positions and
//! alignments of minus-strand hits are in the coordinates of the reverse-complemented
//! query (the sequence that was actually aligned); the output formats convert them
//! (see [`crate::output`]).
//!
//! Hits are the subjects with a positive score whose E-value is at most
//! [`SearchOptions::evalue`] (when E-values are available), ranked by E-value, ties
//! (and searches without E-values) by score (descending), then database order, at
//! most [`SearchOptions::max_hits`] of them:
//! the `-E` and `-b` of ssearch36 / BLAST's `-evalue` and `-max_target_seqs`.
//!
//! # E-values
//!
//! In order of preference ([`EvalueSource`]):
//! 1. `Fitted`: `(lambda, K)` fitted by maximum likelihood to this query's scores
//!    against the database, length-corrected, homologs set aside
//!    ([`crate::stats::fit_length_corrected`], what ssearch36 does). Needs at least
//!    [`crate::stats::MIN_FIT_SCORES`] subjects with a positive score; databases of
//!    more than [`FIT_SAMPLE`] sequences are sampled (every k-th subject).
//! 2. `Published`: NCBI BLAST's published gapped `(lambda, K)` for the matrix and gap
//!    costs ([`crate::stats::published`]); with two strands searched the per-subject P-value is that
//!    of the better of two independent scores, `1 - (1 - p)^2`.
//! 3. `None`: no statistics for this scoring system (e.g. a small DNA database):
//!    E-values and bit scores are NaN, no E-value threshold is applied, and the outputs
//!    say so (`NA` in tabular, `null` in JSON).
//!
//! [`SearchOptions::stats`] ([`StatsMethod`]) narrows that order to one source or
//! none.
//!
//! E-values follow the ssearch36 convention: `E = D * P(S >= s | m, n)` with `D` the
//! number of database sequences ([`SearchOptions::db_size`] where given: ssearch36's
//! `-Z`) and `n` the subject's own length.

mod devices;
use devices::scan_order;
mod hits;
mod plan;
mod queries;
mod statistics;
mod strands;

pub use crate::traceback::HitEnd;
pub use hits::{ALTERNATE_EVALUE_FRACTION, Hit, SearchResult, align_hits};
pub use queries::query_notes;
pub use statistics::{BLEND_FROM, BLEND_TO, Blend, EvalueSource, FIT_SAMPLE, SHUFFLES, Statistics, StatsMethod};
pub(crate) use statistics::{FitSample, Statistician};
pub use strands::{Strand, Strands, reverse_complement};

use crate::device::Backend;
use crate::engine::{Engine, WorkerRef};
use crate::error::{Error, Result};
use crate::reference::LocalScore;
use crate::scan::Variant;
use crate::scan::scanner::{Scanner, ScannerPlan, Tuning};
use crate::scoring::{Mode, Scoring};
use crate::seq::{Database, Sequence};
use plan::{PlannedShare, Share, share_batches, share_ranges};
pub use plan::{Staged, stage};
use rayon::prelude::*;
use std::ops::Range;

/// How a search runs and what it reports.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Kernel variant on OpenCL devices (ignored on the native CPU path); `None`: each
    /// device's own ([`Variant::for_device`]).
    pub variant: Option<Variant>,
    /// Report at most this many hits per query (ssearch36 `-b`, BLAST `-max_target_seqs`).
    pub max_hits: usize,
    /// Report only hits with an E-value at most this (ssearch36 `-E`, BLAST `-evalue`);
    /// not applied when no E-values are available.
    pub evalue: f64,
    /// DNA strands to search.
    pub strands: Strands,
    /// Most residues uploaded to one device at a time. `None`: a quarter of the
    /// device's global memory or half its largest allocation, whichever is smaller
    /// (the layout and the kernels' boundary rows need the rest). Tests force small
    /// values to exercise batching.
    pub batch_residues: Option<u64>,
    /// Compute the full alignment of every reported hit.
    pub alignments: bool,
    /// Where E-values may come from.
    pub stats: StatsMethod,
    /// The number of database sequences E-values count (`D` of `E = D P`; ssearch36
    /// `-Z`); `None`: the database's own.
    pub db_size: Option<usize>,
    /// Most alignments listed per subject: its best, then further ones that do not
    /// overlap it in the subject (ssearch36's alternate alignments; BLAST
    /// `-max_hsps`), each with its own E-value at most a tenth of `evalue`
    /// ([`ALTERNATE_EVALUE_FRACTION`]). Needs `alignments`. Default 1.
    pub max_hsps: usize,
    /// Tuning of the inter-task kernels (`inter`, `team`).
    pub tuning: Tuning,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            variant: None,
            max_hits: 50,
            evalue: 10.0,
            strands: Strands::Both,
            batch_residues: None,
            alignments: true,
            stats: StatsMethod::Auto,
            db_size: None,
            max_hsps: 1,
            tuning: Tuning::default(),
        }
    }
}

impl SearchOptions {
    /// The variant this search runs on `dev`.
    pub fn variant_on(&self, dev: &crate::device::DeviceInfo) -> Variant {
        self.variant.unwrap_or_else(|| Variant::for_device(dev))
    }

    /// Checks the options before any work: an E-value threshold >= 0 (not NaN), a batch
    /// of at least one residue. [`Searcher::new`] calls it; the C layer and the CLI may
    /// call it to refuse options before reading their inputs.
    pub fn validate(&self) -> Result<()> {
        if self.evalue.is_nan() || self.evalue < 0.0 {
            return Err(Error::InvalidArgument(format!("E-value threshold must be >= 0 (got {})", self.evalue)));
        }
        if self.batch_residues == Some(0) {
            return Err(Error::InvalidArgument("batch size must be at least one residue".into()));
        }
        if self.db_size == Some(0) {
            return Err(Error::InvalidArgument("database size for E-values must be at least one sequence".into()));
        }
        if self.max_hsps == 0 {
            return Err(Error::InvalidArgument("alignments per subject (max_hsps) must be at least 1".into()));
        }
        Ok(())
    }

    /// Refuses an output that is made from the hits' alignments (CIGAR strings, SAM,
    /// tabular lines) when `alignments` is off; `what` names that output.
    pub fn require_alignments(&self, what: &str) -> Result<()> {
        if !self.alignments {
            return Err(Error::InvalidArgument(format!("{what} needs the hits' alignments, but alignments are off")));
        }
        Ok(())
    }
}

/// A search before its devices: the database cut into one share per device and each
/// resident share laid out, host work made from the devices' descriptions alone, which
/// may run while the devices open ([`crate::engine::Opening`]). [`upload`](Self::upload)
/// makes the [`Searcher`].
pub struct SearchPlan<'a> {
    db: &'a Database,
    scoring: Scoring,
    options: SearchOptions,
    strands: Vec<Strand>,
    shares: Vec<PlannedShare<'a>>,
    lengths: Vec<usize>,
}

impl<'a> SearchPlan<'a> {
    /// Cuts `db` into one share per backend (about equal residues) and lays out, all at
    /// once, each share that stays resident on its device (or plans its batches when it
    /// is too large).
    pub fn new(
        backends: &[Backend],
        db: &'a Database,
        scoring: Scoring,
        options: SearchOptions,
    ) -> Result<SearchPlan<'a>> {
        if scoring.matrix.alphabet() != db.alphabet() {
            return Err(Error::InvalidArgument(format!(
                "matrix {} is for {} sequences, but the database is {}",
                scoring.matrix.name(),
                scoring.matrix.alphabet().name(),
                db.alphabet().name()
            )));
        }
        options.validate()?;
        if scoring.mode != Mode::Local {
            if options.max_hsps > 1 {
                return Err(Error::InvalidArgument(format!(
                    "further alignments per subject (max_hsps {}) are local alignments; a {} search has one per subject",
                    options.max_hsps, scoring.mode
                )));
            }
            if !matches!(options.stats, StatsMethod::Auto | StatsMethod::Fit | StatsMethod::None) {
                return Err(Error::InvalidArgument(format!(
                    "statistics method {} is for local scores; a {} search fits a normal distribution to its scores \
                     as ggsearch36 and glsearch36 do (auto or fit), or none",
                    options.stats, scoring.mode
                )));
            }
            if let Some(v @ (Variant::Plain | Variant::Intra)) = options.variant {
                scoring.require_local(&format!("the {v} variant"))?;
            }
        }
        let strands = options.strands.for_alphabet(db.alphabet())?;
        // On every core, as the shares' subjects below: for the 44 M subjects of a
        // 20 G-residue database, these passes took 0.67 s on one thread before the
        // first layout began (0.2 s now, four H200s).
        let lengths: Vec<usize> = db.lengths().par_iter().map(|&l| l as usize).collect();
        let ranges = share_ranges(db, backends.len());
        let pad = scoring.matrix.size() as u8;
        let plan_share = |(range, backend): (Range<usize>, &Backend)| -> Result<PlannedShare<'a>> {
            let (batches, resident) = match backend {
                Backend::Native => (vec![range.clone()], None),
                Backend::OpenCl(info) => {
                    let (batches, resident) = share_batches(db, info, &options, range.clone());
                    let resident = resident.map(|kind| {
                        let subjects: Vec<&[u8]> = range.clone().into_par_iter().map(|k| db.residues(k)).collect();
                        ScannerPlan::new(info, kind, options.tuning, subjects, pad, 1)
                    });
                    (batches, resident.transpose()?)
                }
            };
            Ok(PlannedShare { backend: backend.clone(), range, batches, resident })
        };
        let shares = ranges.into_par_iter().zip(backends).map(plan_share).collect::<Result<Vec<_>>>()?;
        Ok(SearchPlan { db, scoring, options, strands, shares, lengths })
    }

    /// The searcher of this plan on `engine`, whose devices must be the plan's backends
    /// in order: each resident share's layout made on its device, all devices at once,
    /// from its residues as [`stage`] wrote them there (or as the upload writes them,
    /// where `staged` lacks them).
    pub fn upload(self, engine: &'a Engine, mut staged: Staged) -> Result<Searcher<'a>> {
        let SearchPlan { db, scoring, options, strands, shares, lengths } = self;
        let workers = engine.workers();
        let same = |w: &WorkerRef<'_>, b: &Backend| match (w, b) {
            (WorkerRef::Native, Backend::Native) => true,
            (WorkerRef::OpenCl(dev), Backend::OpenCl(info)) => dev.info.index == info.index,
            _ => false,
        };
        if workers.len() != shares.len() || !workers.iter().zip(&shares).all(|(w, s)| same(w, &s.backend)) {
            return Err(Error::InvalidArgument(format!(
                "a search planned for {} cannot run on {}",
                shares.iter().map(|s| s.backend.label()).collect::<Vec<_>>().join(", "),
                engine.describe().join(", ")
            )));
        }
        if let Some(variant) = options.variant {
            engine.check_variant(variant)?;
        }
        let uploaded: Vec<Result<Share<'a>>> = std::thread::scope(|scope| {
            let uploads: Vec<_> = shares
                .into_iter()
                .zip(workers.iter().copied())
                .enumerate()
                .map(|(w, (share, worker))| {
                    let residues = staged.take(w, &share.range);
                    scope.spawn(move || {
                        let PlannedShare { range, batches, resident, .. } = share;
                        let resident = match (resident, worker) {
                            (Some(plan), WorkerRef::OpenCl(dev)) => {
                                let residues = match residues.filter(|r| r.is_on(dev)) {
                                    Some(residues) => residues,
                                    None => plan::stored(db, range.clone()).write(dev)?,
                                };
                                let stored = plan::stored_bytes(db, range.clone());
                                Some(Scanner::upload(dev, plan, &residues)?.kept_from(Some(stored)))
                            }
                            _ => None,
                        };
                        Ok(Share { worker, range, batches, resident })
                    })
                })
                .collect();
            uploads
                .into_iter()
                .map(|u| u.join().unwrap_or_else(|_| Err(Error::Internal("uploading a share panicked".into()))))
                .collect()
        });
        let shares = uploaded.into_iter().collect::<Result<Vec<_>>>()?;
        let devices = workers.iter().map(|w| w.label()).collect();
        let stats = Statistician::new(db, scoring.clone(), &options, &strands);
        Ok(Searcher { db, scoring, options, strands, shares, lengths, devices, stats })
    }
}

/// A database ready for search on an engine's devices.
pub struct Searcher<'a> {
    db: &'a Database,
    scoring: Scoring,
    options: SearchOptions,
    strands: Vec<Strand>,
    shares: Vec<Share<'a>>,
    lengths: Vec<usize>,
    devices: Vec<String>,
    stats: Statistician<'a>,
}

/// A query's scores as they come off the devices, before statistics and alignments.
#[derive(Default)]
pub(crate) struct Scanned {
    pub(crate) index: usize,
    pub(crate) scores: Vec<LocalScore>,
    pub(crate) strands: Vec<Strand>,
    pub(crate) recomputed: usize,
    pub(crate) kernel_seconds: f64,
    pub(crate) kernel_seconds_from_host: bool,
    pub(crate) scan_seconds: f64,
}

impl<'a> Searcher<'a> {
    /// Prepares `db` for search on `engine`'s devices: splits it into one share per
    /// device and uploads each share (or plans its batches when it is too large); the
    /// [`SearchPlan`] of the engine's devices, uploaded.
    pub fn new(engine: &'a Engine, db: &'a Database, scoring: Scoring, options: SearchOptions) -> Result<Searcher<'a>> {
        // The residues go to the devices while the shares are arranged.
        let (plan, staged) = std::thread::scope(|scope| {
            let staged = scope.spawn(|| stage(engine, db, &options));
            let plan = SearchPlan::new(&engine.backends(), db, scoring, options.clone());
            (plan, staged.join().unwrap_or_else(|_| Err(Error::Internal("writing the residues panicked".into()))))
        });
        plan?.upload(engine, staged?)
    }

    /// The database searched.
    pub fn database(&self) -> &Database {
        self.db
    }

    pub fn scoring(&self) -> &Scoring {
        &self.scoring
    }

    pub fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// One line per device in use.
    pub fn devices(&self) -> &[String] {
        &self.devices
    }

    /// The strands searched for every query.
    pub fn strands(&self) -> &[Strand] {
        &self.strands
    }

    /// Per device: its label, its share of the database (indices) and the number of
    /// batches the share is scanned in (1 when it fits on the device at once).
    pub fn plan(&self) -> Vec<(String, Range<usize>, usize)> {
        self.shares.iter().map(|s| (s.worker.label(), s.range.clone(), s.batches.len())).collect()
    }

    /// Searches one query.
    pub fn search(&self, query: &Sequence) -> Result<SearchResult> {
        let mut out = None;
        self.search_all(std::slice::from_ref(query), |r| {
            out = Some(r);
            Ok(())
        })?;
        out.ok_or_else(|| Error::Device("search returned no result".into()))
    }

    /// Searches every query, calling `sink` with each result in query order. The
    /// devices scan ahead of the CPU, whose work on a query (statistics, hits and their
    /// alignments) runs for several queries at once on the thread pool while the
    /// devices scan the next ones; an error from `sink` stops the search and is
    /// returned.
    pub fn search_all<F>(&self, queries: &[Sequence], mut sink: F) -> Result<()>
    where
        F: FnMut(SearchResult) -> Result<()>,
    {
        self.check_queries(queries)?;
        if queries.is_empty() {
            return Ok(());
        }
        let chunk = self.queries_per_chunk();
        // Queries whose CPU work may be under way at once: each holds every subject's
        // score, so a few, enough to keep the cores busy behind the devices.
        let in_flight_max = rayon::current_num_threads().clamp(2, 8);
        let inside_pool = rayon::current_thread_index().is_some();
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Scanned>>(in_flight_max);
            // Devices may run a few queries ahead of the merge, but one chunk at most when
            // a chunk is many queries against a batched database (up to 256 MiB of scores).
            let ahead = if chunk > 1 { 1 } else { in_flight_max };
            // One query a chunk: the last few scanned longest first, their CPU work hidden
            // behind the scans of the shorter ones.
            let order: Vec<usize> =
                if chunk == 1 { scan_order(queries, in_flight_max) } else { (0..queries.len()).collect() };
            let scanner = scope.spawn(move || self.scan_all(queries, &order, chunk, ahead, |s| tx.send(s).is_ok()));
            let finished = rayon::in_place_scope(|pool| {
                let (done_tx, done_rx) = std::sync::mpsc::channel::<(usize, Result<SearchResult>)>();
                let mut ready = std::collections::BTreeMap::new();
                let (mut next, mut in_flight) = (0usize, 0usize);
                // Hands the finished results on to `sink` in query order.
                let mut deliver = |ready: &mut std::collections::BTreeMap<usize, Result<SearchResult>>| {
                    while let Some(result) = ready.remove(&next) {
                        let result = result?;
                        // Read from a mapped file that was cut short: its zeros are not results.
                        self.db.check_intact()?;
                        sink(result)?;
                        next += 1;
                    }
                    Ok::<(), Error>(())
                };
                // Waits for one query's CPU work to finish.
                let wait_one = |ready: &mut std::collections::BTreeMap<usize, Result<SearchResult>>,
                                in_flight: &mut usize| {
                    let (i, r) = done_rx.recv().map_err(|_| Error::Internal("a query's CPU work was lost".into()))?;
                    ready.insert(i, r);
                    *in_flight -= 1;
                    Ok::<(), Error>(())
                };
                for message in rx {
                    let scanned = message?;
                    while in_flight >= in_flight_max {
                        wait_one(&mut ready, &mut in_flight)?;
                        deliver(&mut ready)?;
                    }
                    let done_tx = done_tx.clone();
                    let work = move || {
                        let index = scanned.index;
                        // A panic must still answer, or the loop below would wait forever.
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            self.finish(&queries[index], scanned)
                        }))
                        .unwrap_or_else(|_| {
                            Err(Error::Internal(format!("the CPU work of query {} panicked", index + 1)))
                        });
                        let _ = done_tx.send((index, result));
                    };
                    if inside_pool {
                        // Called from a pool thread: waiting here for pool work could
                        // starve the pool, so the query's CPU work runs right here.
                        work();
                    } else {
                        pool.spawn(move |_| work());
                    }
                    in_flight += 1;
                    while let Ok((i, r)) = done_rx.try_recv() {
                        ready.insert(i, r);
                        in_flight -= 1;
                    }
                    deliver(&mut ready)?;
                }
                while in_flight > 0 {
                    wait_one(&mut ready, &mut in_flight)?;
                    deliver(&mut ready)?;
                }
                Ok::<(), Error>(())
            });
            let scanned = scanner.join().map_err(|_| Error::Internal("the scan thread panicked".into()));
            finished.and(scanned)
        })
    }

    /// Every subject's best score (over the strands searched) and the strand it came
    /// from, database order: the device scan alone, without statistics, hits or
    /// alignments (what the C API's `clsw_searcher_scores` returns).
    pub fn scores(&self, query: &Sequence) -> Result<(Vec<LocalScore>, Vec<Strand>)> {
        self.check_queries(std::slice::from_ref(query))?;
        let mut scanned = None;
        self.scan_all(std::slice::from_ref(query), &[0], 1, 1, |s| {
            scanned = Some(s);
            false
        });
        let scanned = scanned.ok_or_else(|| Error::Device("scan returned no result".into()))??;
        self.db.check_intact()?;
        Ok((scanned.scores, scanned.strands))
    }

    /// Every query's id must follow [`crate::seq::check_id`] (it becomes a field of the
    /// output records), its codes must be below the matrix's alphabet size, and its
    /// scores against the longest subject fit 32 bits ([`Scoring::check_lengths`]).
    pub(crate) fn check_queries(&self, queries: &[Sequence]) -> Result<()> {
        let alphabet = self.scoring.matrix.alphabet();
        let longest = self.lengths.iter().copied().max().unwrap_or(0);
        queries.iter().enumerate().try_for_each(|(k, q)| {
            crate::seq::check_id(&q.id).map_err(|m| Error::InvalidArgument(format!("query {}: {m}", k + 1)))?;
            alphabet.check_codes(&q.residues, format_args!("query '{}'", q.id))?;
            self.scoring.check_query(&q.residues, format_args!("query '{}'", q.id))?;
            self.scoring.check_lengths(q.residues.len(), longest, format_args!("query '{}' against the database", q.id))
        })
    }

    /// Queries scanned together: one when every share is resident (so results flow
    /// one by one), else as many as keep the chunk's scores under 256 MiB or half the
    /// database's residues in bytes, whichever is more, so that each batch is laid out
    /// and uploaded once per chunk (a database of 20 G residues and 44 M subjects: 14
    /// queries a chunk rather than one, each laying out every batch again).
    pub(crate) fn queries_per_chunk(&self) -> usize {
        if self.shares.iter().all(|s| s.batches.len() <= 1) {
            return 1;
        }
        let per_query = (self.db.len().max(1) * self.strands.len() * std::mem::size_of::<LocalScore>() * 2) as u64;
        let budget = (256u64 << 20).max(self.db.total_residues() / 2);
        (budget / per_query).clamp(1, 256) as usize
    }
}

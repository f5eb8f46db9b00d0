//! Database search: queries against a [`Database`] on an [`Engine`]'s devices, with
//! every subject's exact score, the top hits with E-values and bit scores, and the
//! hits' full alignments.
//!
//! # Pipeline
//!
//! [`Searcher::new`] cuts the database into one contiguous share per device (about
//! equal residue counts; `--device all` uses every GPU) and uploads each share once:
//! with the banded variants (`fast`, `inter`) the share stays resident on its device
//! for every query of the run. A share larger than the device can hold (see
//! [`SearchOptions::batch_residues`]) is cut into contiguous batches that are
//! uploaded and scanned one after another; then the queries of a run are scanned
//! batch by batch (all queries of a chunk against batch 1, then batch 2, ...), so each
//! batch is laid out and uploaded once per chunk of queries, not once per query.
//! An engine without OpenCL devices computes on the native CPU path
//! ([`super::native`]: SIMD over 16 subjects at a time, on all cores).
//!
//! [`Searcher::search_all`] runs the device scans on one thread and, on the calling
//! thread, the CPU work of the previous query: E-values, the choice of hits and their
//! alignments ([`align_hit`]: [`reference::align`]'s alignment in `O(n sqrt(m))`
//! memory, in parallel over hits). So the
//! alignments of query i are computed while the devices scan query i + 1.
//!
//! # Scores, hits and strands
//!
//! [`SearchResult::scores`] holds every subject's optimal local score in database
//! order. For DNA the query's reverse complement is searched too (unless
//! [`Strands::Plus`]); a subject's score is then the better of its two strands (the
//! plus strand on ties) and [`SearchResult::strands`] says which. End positions and
//! alignments of minus-strand hits are in the coordinates of the reverse-complemented
//! query (the sequence that was actually aligned); the output formats convert them
//! (see [`crate::align::format`]).
//!
//! Hits are the subjects with a positive score whose E-value is at most
//! [`SearchOptions::evalue`] (when E-values are available), sorted by score
//! (descending), then database order, at most [`SearchOptions::max_hits`] of them:
//! the `-E` and `-b` of ssearch36 / BLAST's `-evalue` and `-max_target_seqs`.
//!
//! # E-values
//!
//! In order of preference ([`EvalueSource`]):
//! 1. `Fitted`: `(lambda, K)` fitted by maximum likelihood to this query's scores
//!    against the database, length-corrected, homologs set aside
//!    ([`fit_length_corrected`], what ssearch36 does). Needs at least
//!    [`crate::stats::MIN_FIT_SCORES`] subjects with a positive score; databases of
//!    more than [`FIT_SAMPLE`] sequences are sampled (every k-th subject).
//! 2. `Published`: NCBI BLAST's published gapped `(lambda, K)` for the matrix and gap
//!    costs ([`published`]); with two strands searched the per-subject P-value is that
//!    of the better of two independent scores, `1 - (1 - p)^2`.
//! 3. `None`: no statistics for this scoring system (e.g. a small DNA database):
//!    E-values and bit scores are NaN, no E-value threshold is applied, and the outputs
//!    say so (`NA` in tabular, `null` in JSON).
//!
//! E-values follow the ssearch36 convention: `E = D * P(S >= s | m, n)` with `D` the
//! number of database sequences and `n` the subject's own length.

use crate::align::Alignment;
use crate::engine::{Engine, WorkerRef, split_by_size};
use crate::error::{Error, Result};
use crate::reference::{self, LocalScore};
use crate::scan::banded::{Banded, BandedScanner, Tuning};
use crate::scan::{ScanOutput, Variant, scan_once};
use crate::scoring::Scoring;
use crate::seq::{Alphabet, Database, Sequence};
use crate::stats::{KarlinAltschul, fit_length_corrected, published};
use rayon::prelude::*;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;
use std::time::Instant;

/// The strand of the query that a score or alignment belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strand {
    /// The query as given (always, for protein).
    Plus,
    /// The reverse complement of a DNA query.
    Minus,
}

impl Strand {
    pub fn name(self) -> &'static str {
        match self {
            Strand::Plus => "plus",
            Strand::Minus => "minus",
        }
    }
}

/// Which strands of a DNA query to search (protein queries have only one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strands {
    /// Plus and minus (BLAST's and ssearch36's default for DNA).
    #[default]
    Both,
    Plus,
    Minus,
}

impl Strands {
    /// The strands searched for a query of `alphabet`.
    pub fn for_alphabet(self, alphabet: Alphabet) -> Result<Vec<Strand>> {
        match (alphabet, self) {
            (Alphabet::Protein, Strands::Minus) => {
                Err(Error::InvalidArgument("the minus strand exists only for DNA; this is a protein search".into()))
            }
            (Alphabet::Protein, _) | (Alphabet::Dna, Strands::Plus) => Ok(vec![Strand::Plus]),
            (Alphabet::Dna, Strands::Minus) => Ok(vec![Strand::Minus]),
            (Alphabet::Dna, Strands::Both) => Ok(vec![Strand::Plus, Strand::Minus]),
        }
    }
}

impl FromStr for Strands {
    type Err = Error;
    fn from_str(s: &str) -> Result<Strands> {
        match s.trim().to_ascii_lowercase().as_str() {
            "both" => Ok(Strands::Both),
            "plus" | "+" => Ok(Strands::Plus),
            "minus" | "-" => Ok(Strands::Minus),
            other => Err(Error::InvalidArgument(format!("unknown strand '{other}'; use both, plus or minus"))),
        }
    }
}

/// The reverse complement of DNA codes (`ACGTN`: A<->T, C<->G, N stays N).
pub fn reverse_complement(codes: &[u8]) -> Vec<u8> {
    codes.iter().rev().map(|&c| if c < 4 { 3 - c } else { c }).collect()
}

/// How a search runs and what it reports.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Kernel variant on OpenCL devices (ignored on the native CPU path).
    pub variant: Variant,
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
    /// Tuning of the banded kernels.
    pub tuning: Tuning,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            variant: Variant::Fast,
            max_hits: 50,
            evalue: 10.0,
            strands: Strands::Both,
            batch_residues: None,
            alignments: true,
            tuning: Tuning::default(),
        }
    }
}

/// Where a search's E-values come from (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvalueSource {
    /// Fitted to this query's own scores against the database.
    Fitted,
    /// NCBI BLAST's published parameters for the matrix and gap costs.
    Published,
    /// None available: E-values and bit scores are NaN.
    None,
}

impl EvalueSource {
    pub fn name(self) -> &'static str {
        match self {
            EvalueSource::Fitted => "fitted",
            EvalueSource::Published => "published",
            EvalueSource::None => "none",
        }
    }
}

impl fmt::Display for EvalueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The statistics of one query's search.
#[derive(Debug, Clone)]
pub struct Statistics {
    pub source: EvalueSource,
    /// `(lambda, K)`, absent when `source` is `None`.
    pub params: Option<KarlinAltschul>,
    /// Why the preferred source was not used (the fit's error), if it was not.
    pub note: Option<String>,
    /// Number of sequences in the database (`D` of the E-value).
    pub db_sequences: usize,
    /// Strands searched: a published P-value is combined over them.
    pub strands: usize,
}

impl Statistics {
    /// The E-value of a raw score for a subject of `subject_len` (NaN without parameters).
    pub fn evalue(&self, score: i32, query_len: usize, subject_len: usize) -> f64 {
        let Some(ka) = self.params else { return f64::NAN };
        let (m, n) = (query_len.max(1), subject_len.max(1));
        let d = self.db_sequences as f64;
        match self.source {
            EvalueSource::Published if self.strands > 1 => {
                let p = ka.pvalue(score as f64, m, n);
                // 1 - (1 - p)^s without cancellation for tiny p.
                d * -(self.strands as f64 * (-p).ln_1p()).exp_m1()
            }
            _ => ka.evalue(score as f64, m, n, self.db_sequences),
        }
    }

    /// The bit score of a raw score (NaN without parameters).
    pub fn bit_score(&self, score: i32) -> f64 {
        self.params.map_or(f64::NAN, |ka| ka.bit_score(score as f64))
    }
}

/// One reported subject.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The subject's index in database order.
    pub subject: usize,
    pub score: i32,
    pub strand: Strand,
    /// NaN when the search has no statistics.
    pub evalue: f64,
    /// NaN when the search has no statistics.
    pub bit_score: f64,
    /// The alignment of the query (reverse-complemented for [`Strand::Minus`]) with the
    /// subject; `None` when [`SearchOptions::alignments`] is off.
    pub alignment: Option<Alignment>,
}

/// What a search of one query returns.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// The query's position in the list given to [`Searcher::search_all`].
    pub query_index: usize,
    pub query_id: String,
    pub query_description: String,
    pub query_len: usize,
    /// Every subject's best score (over the strands searched) and its end, database order.
    pub scores: Vec<LocalScore>,
    /// The strand of each subject's score.
    pub strands: Vec<Strand>,
    /// The strands that were searched.
    pub strands_searched: Vec<Strand>,
    /// Subjects recomputed at 32 bits after their 16-bit score saturated (all strands).
    pub recomputed: usize,
    /// Kernel time on the devices, from profiling events, summed over devices.
    pub kernel_seconds: f64,
    /// Host time of the device scan (for queries scanned together against a batched
    /// database: the chunk's time divided by its queries).
    pub scan_seconds: f64,
    /// Scan plus statistics, hit selection and alignments.
    pub wall_seconds: f64,
    /// Dynamic-programming cells computed by the scan: query length x database
    /// residues x strands.
    pub cells: u64,
    pub statistics: Statistics,
    /// The reported hits, best first.
    pub hits: Vec<Hit>,
}

/// One device's contiguous share of the database.
struct Share<'a> {
    worker: WorkerRef<'a>,
    /// Database indices of the share.
    range: Range<usize>,
    /// Contiguous batches covering `range`, each small enough for the device.
    batches: Vec<Range<usize>>,
    /// The share laid out on the device once for all queries (banded variants, one batch).
    resident: Option<BandedScanner<'a>>,
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
}

/// A query's scores as they come off the devices, before statistics and alignments.
struct Scanned {
    index: usize,
    scores: Vec<LocalScore>,
    strands: Vec<Strand>,
    recomputed: usize,
    kernel_seconds: f64,
    scan_seconds: f64,
}

fn banded_kind(variant: Variant) -> Option<Banded> {
    match variant {
        Variant::Fast => Some(Banded::Fast),
        Variant::Inter => Some(Banded::Inter),
        _ => None,
    }
}

/// The alignment of a hit whose optimal local alignment ends at `end` (0-based query
/// and subject positions, from the scan): [`reference::align`]'s alignment, traced
/// back from the scan's end cell ([`reference::align_ending_at`]), so the score pass
/// over the matrix is not repeated and the rows and columns past the end are never
/// computed.
pub fn align_hit(query: &[u8], subject: &[u8], end: Option<(usize, usize)>, scoring: &Scoring) -> Option<Alignment> {
    let (qe, se) = end?;
    if qe >= query.len() || se >= subject.len() {
        return reference::align(query, subject, scoring);
    }
    reference::align_ending_at(query, subject, scoring, (qe, se))
}

/// The fit uses at most this many subjects' scores: every k-th subject in database
/// order beyond it (deterministic). 20,000 scores pin lambda to about 1%
/// ([`fit_length_corrected`]'s table) and keep the fit to milliseconds per query on
/// databases of millions of sequences; E-values still count every subject.
pub const FIT_SAMPLE: usize = 20_000;

/// Cuts `range` into contiguous batches of at most `budget` residues (a longer
/// subject is a batch of its own).
fn plan_batches(range: Range<usize>, lengths: &[usize], budget: u64) -> Vec<Range<usize>> {
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

impl<'a> Searcher<'a> {
    /// Prepares `db` for search on `engine`'s devices: splits it into one share per
    /// device and uploads each share (or plans its batches when it is too large).
    pub fn new(engine: &'a Engine, db: &'a Database, scoring: Scoring, options: SearchOptions) -> Result<Searcher<'a>> {
        if scoring.matrix.alphabet() != db.alphabet() {
            return Err(Error::InvalidArgument(format!(
                "matrix {} is for {} sequences, but the database is {}",
                scoring.matrix.name(),
                scoring.matrix.alphabet().name(),
                db.alphabet().name()
            )));
        }
        options.validate()?;
        let strands = options.strands.for_alphabet(db.alphabet())?;
        let lengths: Vec<usize> = db.lengths().iter().map(|&l| l as usize).collect();
        let workers = engine.workers();
        let bounds = split_by_size(lengths.iter().copied(), workers.len());
        let pad = scoring.matrix.size() as u8;
        let mut shares = Vec::with_capacity(workers.len());
        for (w, worker) in workers.iter().enumerate() {
            let range = bounds[w]..bounds[w + 1];
            let (batches, resident) = match worker {
                WorkerRef::Native => (vec![range.clone()], None),
                WorkerRef::OpenCl(dev) => {
                    let auto = (dev.info.max_alloc_bytes / 2).min(dev.info.global_mem_bytes / 4).max(1 << 20);
                    let batches = plan_batches(range.clone(), &lengths, options.batch_residues.unwrap_or(auto));
                    let resident = match banded_kind(options.variant) {
                        Some(kind) if batches.len() == 1 && !range.is_empty() => {
                            let subjects: Vec<&[u8]> = range.clone().map(|k| db.residues(k)).collect();
                            Some(BandedScanner::new(dev, kind, options.tuning, &subjects, pad)?)
                        }
                        _ => None,
                    };
                    (batches, resident)
                }
            };
            shares.push(Share { worker: *worker, range, batches, resident });
        }
        let devices = workers.iter().map(|w| w.label()).collect();
        Ok(Searcher { db, scoring, options, strands, shares, lengths, devices })
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
    /// devices scan the next query while the CPU aligns the hits of the previous one;
    /// an error from `sink` stops the search and is returned.
    pub fn search_all<F>(&self, queries: &[Sequence], mut sink: F) -> Result<()>
    where
        F: FnMut(SearchResult) -> Result<()>,
    {
        self.check_codes(queries)?;
        if queries.is_empty() {
            return Ok(());
        }
        let chunk = self.queries_per_chunk();
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Scanned>>(1);
            let scanner = scope.spawn(move || {
                for (c, group) in queries.chunks(chunk).enumerate() {
                    match self.scan_chunk(c * chunk, group) {
                        Ok(scanned) => {
                            for s in scanned {
                                if tx.send(Ok(s)).is_err() {
                                    return;
                                }
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                }
            });
            for message in rx {
                let scanned = message?;
                let result = self.finish(&queries[scanned.index], scanned)?;
                sink(result)?;
            }
            scanner.join().map_err(|_| Error::Device("the device scan thread panicked".into()))
        })
    }

    /// Every subject's best score (over the strands searched) and the strand it came
    /// from, database order: the device scan alone, without statistics, hits or
    /// alignments (what the C API's `clsw_searcher_scores` returns).
    pub fn scores(&self, query: &Sequence) -> Result<(Vec<LocalScore>, Vec<Strand>)> {
        self.check_codes(std::slice::from_ref(query))?;
        let scanned = self.scan_chunk(0, std::slice::from_ref(query))?.pop();
        let scanned = scanned.ok_or_else(|| Error::Device("scan returned no result".into()))?;
        Ok((scanned.scores, scanned.strands))
    }

    /// Every query's codes must be below the matrix's alphabet size.
    fn check_codes(&self, queries: &[Sequence]) -> Result<()> {
        let alpha = self.scoring.matrix.size();
        for q in queries {
            if let Some(p) = q.residues.iter().position(|&c| c as usize >= alpha) {
                return Err(Error::InvalidArgument(format!(
                    "query '{}': residue code {} at position {} is outside the matrix's alphabet of {alpha} codes",
                    q.id,
                    q.residues[p],
                    p + 1
                )));
            }
        }
        Ok(())
    }

    /// Queries scanned together: one when every share is resident (so results flow
    /// one by one), else as many as keep the chunk's scores under 256 MiB, so that
    /// each batch is uploaded once per chunk.
    fn queries_per_chunk(&self) -> usize {
        if self.shares.iter().all(|s| s.batches.len() <= 1) {
            return 1;
        }
        let per_query = (self.db.len().max(1) * self.strands.len() * std::mem::size_of::<LocalScore>() * 2) as u64;
        ((256u64 << 20) / per_query).clamp(1, 256) as usize
    }

    /// Scans a chunk of queries (every strand) on every share, the shares in parallel.
    fn scan_chunk(&self, first_index: usize, queries: &[Sequence]) -> Result<Vec<Scanned>> {
        let start = Instant::now();
        let mut seqs: Vec<Vec<u8>> = Vec::with_capacity(queries.len() * self.strands.len());
        for q in queries {
            for &strand in &self.strands {
                seqs.push(match strand {
                    Strand::Plus => q.residues.clone(),
                    Strand::Minus => reverse_complement(&q.residues),
                });
            }
        }
        let per_share: Vec<Result<Vec<ScanOutput>>> = if self.shares.len() == 1 {
            vec![self.scan_share(&self.shares[0], &seqs)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> =
                    self.shares.iter().map(|share| scope.spawn(|| self.scan_share(share, &seqs))).collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err(Error::Device("device thread panicked".into()))))
                    .collect()
            })
        };
        let mut outputs: Vec<ScanOutput> = (0..seqs.len())
            .map(|_| ScanOutput { scores: Vec::with_capacity(self.db.len()), recomputed: 0, kernel_seconds: 0.0 })
            .collect();
        for share in per_share {
            for (acc, part) in outputs.iter_mut().zip(share?) {
                acc.scores.extend(part.scores);
                acc.recomputed += part.recomputed;
                acc.kernel_seconds += part.kernel_seconds;
            }
        }
        let scan_seconds = start.elapsed().as_secs_f64() / queries.len().max(1) as f64;
        let ns = self.strands.len();
        let mut out = Vec::with_capacity(queries.len());
        let mut outputs = outputs.into_iter();
        for i in 0..queries.len() {
            let mut best = outputs.next().expect("one output per strand");
            let mut strands = vec![self.strands[0]; self.db.len()];
            for &strand in &self.strands[1..ns] {
                let other = outputs.next().expect("one output per strand");
                for (k, s) in other.scores.into_iter().enumerate() {
                    if s.score > best.scores[k].score {
                        best.scores[k] = s;
                        strands[k] = strand;
                    }
                }
                best.recomputed += other.recomputed;
                best.kernel_seconds += other.kernel_seconds;
            }
            if best.scores.len() != self.db.len() {
                return Err(Error::Device(format!(
                    "scan returned {} scores for {} subjects",
                    best.scores.len(),
                    self.db.len()
                )));
            }
            out.push(Scanned {
                index: first_index + i,
                scores: best.scores,
                strands,
                recomputed: best.recomputed,
                kernel_seconds: best.kernel_seconds,
                scan_seconds,
            });
        }
        Ok(out)
    }

    /// Scores every sequence of `queries` against one share (share order).
    fn scan_share(&self, share: &Share<'_>, queries: &[Vec<u8>]) -> Result<Vec<ScanOutput>> {
        let db = self.db;
        let sc = &self.scoring;
        let dev = match share.worker {
            WorkerRef::Native => {
                let subjects: Vec<&[u8]> = share.range.clone().map(|k| db.residues(k)).collect();
                return Ok(queries.iter().map(|q| super::native::scores(q, &subjects, sc)).collect());
            }
            WorkerRef::OpenCl(dev) => dev,
        };
        if let Some(scanner) = &share.resident {
            return queries.iter().map(|q| scanner.scan(q, sc)).collect();
        }
        let mut outputs: Vec<ScanOutput> = queries
            .iter()
            .map(|_| ScanOutput { scores: Vec::with_capacity(share.range.len()), recomputed: 0, kernel_seconds: 0.0 })
            .collect();
        for batch in &share.batches {
            if batch.is_empty() {
                continue;
            }
            let subjects: Vec<&[u8]> = batch.clone().map(|k| db.residues(k)).collect();
            let scanner = match banded_kind(self.options.variant) {
                Some(kind) => {
                    Some(BandedScanner::new(dev, kind, self.options.tuning, &subjects, sc.matrix.size() as u8)?)
                }
                None => None,
            };
            for (q, acc) in queries.iter().zip(outputs.iter_mut()) {
                let part = match &scanner {
                    Some(s) => s.scan(q, sc)?,
                    None => scan_once(dev, self.options.variant, q, &subjects, sc)?,
                };
                acc.scores.extend(part.scores);
                acc.recomputed += part.recomputed;
                acc.kernel_seconds += part.kernel_seconds;
            }
        }
        Ok(outputs)
    }

    /// The statistics of one query's scores.
    fn statistics(&self, scores: &[LocalScore], query_len: usize) -> Statistics {
        let stride = scores.len().div_ceil(FIT_SAMPLE).max(1);
        let (s, n): (Vec<i32>, Vec<usize>) = scores
            .iter()
            .zip(&self.lengths)
            .step_by(stride)
            .filter(|(_, n)| **n > 0)
            .map(|(s, &n)| (s.score, n))
            .unzip();
        let base = Statistics {
            source: EvalueSource::None,
            params: None,
            note: None,
            db_sequences: self.db.len(),
            strands: self.strands.len(),
        };
        let fit_error = match fit_length_corrected(&s, &n, query_len) {
            Ok(ka) => return Statistics { source: EvalueSource::Fitted, params: Some(ka), ..base },
            Err(Error::InvalidArgument(m)) => m,
            Err(e) => e.to_string(),
        };
        let gaps = self.scoring.gaps;
        match published(self.scoring.matrix.name(), gaps.open, gaps.extend) {
            Some(ka) => Statistics { source: EvalueSource::Published, params: Some(ka), note: Some(fit_error), ..base },
            None => Statistics {
                note: Some(format!(
                    "{fit_error}; and BLAST publishes no parameters for {} {}/{}",
                    self.scoring.matrix.name(),
                    gaps.open,
                    gaps.extend
                )),
                ..base
            },
        }
    }

    /// Statistics, hit selection and alignments of one scanned query.
    fn finish(&self, query: &Sequence, scanned: Scanned) -> Result<SearchResult> {
        let start = Instant::now();
        let m = query.residues.len();
        let statistics = self.statistics(&scanned.scores, m);
        let threshold = self.options.evalue;
        let mut hits: Vec<Hit> = scanned
            .scores
            .iter()
            .enumerate()
            .filter(|(_, s)| s.score > 0)
            .filter_map(|(k, s)| {
                let evalue = statistics.evalue(s.score, m, self.lengths[k]);
                (evalue.is_nan() || evalue <= threshold).then(|| Hit {
                    subject: k,
                    score: s.score,
                    strand: scanned.strands[k],
                    evalue,
                    bit_score: statistics.bit_score(s.score),
                    alignment: None,
                })
            })
            .collect();
        hits.sort_by(|a, b| b.score.cmp(&a.score).then(a.subject.cmp(&b.subject)));
        hits.truncate(self.options.max_hits);
        if self.options.alignments {
            let minus =
                if self.strands.contains(&Strand::Minus) { reverse_complement(&query.residues) } else { vec![] };
            let aligned: Vec<Result<Alignment>> = hits
                .par_iter()
                .map(|h| {
                    let q = if h.strand == Strand::Minus { &minus } else { &query.residues };
                    let end = scanned.scores[h.subject].end;
                    let a = align_hit(q, self.db.residues(h.subject), end, &self.scoring).ok_or_else(|| {
                        Error::Device(format!(
                            "subject {} ('{}') scored {} on the device but has no positive alignment on the CPU",
                            h.subject + 1,
                            self.db.id(h.subject),
                            h.score
                        ))
                    })?;
                    if a.score != h.score {
                        return Err(Error::Device(format!(
                            "subject {} ('{}'): device score {} differs from the CPU alignment's {}",
                            h.subject + 1,
                            self.db.id(h.subject),
                            h.score,
                            a.score
                        )));
                    }
                    Ok(a)
                })
                .collect();
            for (h, a) in hits.iter_mut().zip(aligned) {
                h.alignment = Some(a?);
            }
        }
        let cells = m as u64 * self.db.total_residues() * self.strands.len() as u64;
        Ok(SearchResult {
            query_index: scanned.index,
            query_id: query.id.clone(),
            query_description: query.description.clone(),
            query_len: m,
            scores: scanned.scores,
            strands: scanned.strands,
            strands_searched: self.strands.clone(),
            recomputed: scanned.recomputed,
            kernel_seconds: scanned.kernel_seconds,
            scan_seconds: scanned.scan_seconds,
            wall_seconds: scanned.scan_seconds + start.elapsed().as_secs_f64(),
            cells,
            statistics,
            hits,
        })
    }
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

    #[test]
    fn reverse_complement_of_codes() {
        // ACGTN -> NACGT
        assert_eq!(reverse_complement(&[0, 1, 2, 3, 4]), vec![4, 0, 1, 2, 3]);
        assert_eq!(reverse_complement(&[0, 0, 1]), vec![2, 3, 3]);
    }

    #[test]
    fn published_evalue_over_two_strands_is_about_twice_one() {
        let ka = KarlinAltschul { lambda: 0.267, k: 0.041 };
        let one = Statistics {
            source: EvalueSource::Published,
            params: Some(ka),
            note: None,
            db_sequences: 1000,
            strands: 1,
        };
        let two = Statistics { strands: 2, ..one.clone() };
        let (e1, e2) = (one.evalue(60, 300, 300), two.evalue(60, 300, 300));
        assert!((e2 / e1 - 2.0).abs() < 1e-3, "{e1} {e2}");
        assert!(two.evalue(0, 300, 300) <= 1000.0);
        let none = Statistics { source: EvalueSource::None, params: None, ..one };
        assert!(none.evalue(60, 300, 300).is_nan() && none.bit_score(60).is_nan());
    }

    #[test]
    fn strands_per_alphabet() {
        assert_eq!(Strands::Both.for_alphabet(Alphabet::Protein).unwrap(), vec![Strand::Plus]);
        assert!(Strands::Minus.for_alphabet(Alphabet::Protein).is_err());
        assert_eq!(Strands::Both.for_alphabet(Alphabet::Dna).unwrap(), vec![Strand::Plus, Strand::Minus]);
        assert_eq!("MINUS".parse::<Strands>().unwrap(), Strands::Minus);
        assert!("sideways".parse::<Strands>().is_err());
    }
}

impl SearchOptions {
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

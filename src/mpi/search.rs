//! A database search shared among the ranks of an MPI job (the protocol is in the
//! module documentation of [`super`]).

use super::deal::Deal;
use super::share::Share;
use super::{Comm, agree, agree_on, as_rank_error, checksum_of, gather_to_root, same_on_every_rank, wire};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::reference::LocalScore;
use crate::scoring::Scoring;
use crate::search::{
    FitSample, Hit, Scanned, SearchOptions, SearchResult, Searcher, Statistician, Statistics, Strand,
    reverse_complement,
};
use crate::seq::{Database, Sequence};
use std::collections::{HashMap, HashSet, VecDeque};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Instant;

/// One rank's part of a search of the whole database.
pub struct RankSearcher<'a> {
    comm: &'a dyn Comm,
    db: &'a Database,
    first: usize,
    /// This rank's searcher of its share (of the whole database when the share is
    /// dealt); `None` for an empty share.
    local: Option<Searcher<'a>>,
    /// The chunks of the database dealt to the ranks ([`Share::dealt`]), and this
    /// rank's threads that draw and scan them, one a thread.
    deal: Option<(Deal, Vec<rayon::ThreadPool>)>,
    stats: Statistician<'a>,
    strands: Vec<Strand>,
    options: SearchOptions,
    /// Each rank reports every query's times on standard error ([`Self::report_progress`]).
    progress: bool,
    /// Threads of this rank's own work on a query (statistics, hits, alignments). Run
    /// from the thread that exchanges, its parallel loops would wait in the global
    /// pool's queue behind the scan of the next queries, up to a scan each (a second
    /// or more for queries of 500 residues on four cores): in a pool of their own they
    /// start at once.
    host: rayon::ThreadPool,
}

/// Queries whose hits a rank checks and aligns at once, behind the query whose hits are
/// chosen. A long query's alignments take a GPU rank longer than its scan: the hits of
/// the classic queries of 3,000-4,700 residues take 0.3-0.5 s against uniprot20k x 20,
/// their scans 0.06-0.2 s, so with one at a time the main loop waited on them while
/// the scan thread filled its queue and stopped. Two H200 ranks against one (20
/// classic queries, interleaved runs on one host): 1, 4 and 8 gave 1.78x, 1.85x and
/// 1.89x, the two-rank search 1.04 -> 0.98 s.
const ALIGNING: usize = 4;

/// Threads of a native rank's own work on a query ([`RankSearcher`]'s `host`; a rank of
/// OpenCL devices has as many as its thread pool).
const NATIVE_HOST_THREADS: usize = 2;

/// What rank 0 needs of a rank's work on one query besides its hits.
#[derive(Default)]
struct Costs {
    recomputed: usize,
    kernel_seconds: f64,
    kernel_seconds_from_host: bool,
}

impl<'a> RankSearcher<'a> {
    /// This rank's searcher: `db` is the whole database (every rank opened the same),
    /// `part` its share's database (`share.part(db)`, or `db` itself when the share is
    /// dealt). Collective: every rank calls it, and every rank fails when one does.
    pub fn new(
        comm: &'a dyn Comm,
        engine: &'a Engine,
        db: &'a Database,
        part: &'a Database,
        share: &Share,
        scoring: Scoring,
        options: SearchOptions,
    ) -> Result<RankSearcher<'a>> {
        let setup = (|| {
            if part.len() != share.range.len() {
                return Err(Error::InvalidArgument(format!(
                    "the share holds {} subjects, its range {}",
                    part.len(),
                    share.range.len()
                )));
            }
            let strands = options.strands.for_alphabet(db.alphabet())?;
            let local = match part.is_empty() {
                true => None,
                false => Some(Searcher::new(engine, part, scoring.clone(), options.clone())?),
            };
            Ok((local, strands))
        })();
        // A rank of OpenCL devices leaves its cores to this work; a native rank's cores scan.
        let threads = if engine.uses_opencl() { rayon::current_num_threads() } else { NATIVE_HOST_THREADS };
        let host = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("clsw-rank-host-{i}"))
            .build()
            .map_err(|e| Error::Internal(format!("a rank's host threads: {e}")));
        let (local, strands, host) = agree_on(comm, setup.and_then(|(l, s)| Ok((l, s, host?))))?;
        let stats = Statistician::new(db, scoring, &options, &strands);
        let deal = match share.dealt {
            true => {
                let threads = rayon::current_num_threads();
                let pools = (0..threads)
                    .map(|i| {
                        rayon::ThreadPoolBuilder::new()
                            .num_threads(1)
                            .thread_name(move |_| format!("clsw-rank-scan-{i}"))
                            .build()
                            .map_err(|e| Error::Internal(format!("a rank's scan threads: {e}")))
                    })
                    .collect::<Result<Vec<_>>>();
                let all = agree(
                    comm,
                    pools.as_ref().map(|_| (threads as u64).to_le_bytes().to_vec()).map_err(|e| as_rank_error(comm, e)),
                )?;
                let job: u64 = all.iter().map(|b| wire::Reader::new(b).u64()).sum::<Result<u64>>()?;
                Some((Deal::new(db, job as usize), pools?))
            }
            false => None,
        };
        Ok(RankSearcher {
            comm,
            db,
            first: share.range.start,
            local,
            deal,
            stats,
            strands,
            options,
            progress: false,
            host,
        })
    }

    /// With `on`, every rank writes one line per query on standard error: its scan's
    /// time, the time from its first exchange to its result and how much of it went in
    /// the exchanges (waiting for the slowest rank, mostly), and how many of its hits
    /// this rank aligned: where a job loses time to a straggler.
    pub fn report_progress(&mut self, on: bool) {
        self.progress = on;
    }

    /// Readies this rank's devices for `queries` ([`Searcher::prepare`]). Collective:
    /// every rank fails when one does.
    pub fn prepare(&self, queries: &[Sequence]) -> Result<()> {
        agree_on(self.comm, self.local.as_ref().map_or(Ok(()), |l| l.prepare(queries)))
    }

    /// The strands searched for every query.
    pub fn strands(&self) -> &[Strand] {
        &self.strands
    }

    /// Joins the first exchange of the [`Self::search_all`] the other ranks are in with
    /// this rank's failure to make its queries (a caller of the C ABI), so that every
    /// rank returns an error and none waits; returns `e`.
    pub fn refuse(&self, e: Error) -> Error {
        let _ = agree(self.comm, Err(as_rank_error(self.comm, &e)));
        e
    }

    /// Searches every query (every rank gives the same), calling `sink` on rank 0 with
    /// each result in query order: hits, statistics and alignments as one process's
    /// [`Searcher::search_all`] gives them, `recomputed` and `kernel_seconds` summed
    /// over the ranks. [`SearchResult::scores`] and [`SearchResult::strands`] are
    /// empty: every subject's score stays on its rank. Collective; ranks whose queries
    /// differ are refused, and an error on any rank (`sink`'s on rank 0 included) ends
    /// the search on every rank.
    pub fn search_all<F>(&self, queries: &[Sequence], mut sink: F) -> Result<()>
    where
        F: FnMut(SearchResult) -> Result<()>,
    {
        agree_on(self.comm, self.local.as_ref().map_or(Ok(()), |l| l.check_queries(queries)))?;
        let mut fingerprint = Vec::new();
        wire::put_u64(&mut fingerprint, queries.len() as u64);
        let texts = queries.iter().flat_map(|q| [q.id.as_bytes(), q.residues.as_slice()]);
        wire::put_u64(&mut fingerprint, checksum_of(texts));
        same_on_every_rank(self.comm, fingerprint, |_, _| "its queries differ from rank 0's".into())?;
        let chunk = self.local.as_ref().map_or(1, |l| l.queries_per_chunk());
        let ahead = if chunk > 1 { 1 } else { 4 };
        let counter = self.deal.as_ref().map(|_| self.comm.counter());
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<RankScan>>(ahead);
            match (&self.local, &self.deal, &counter) {
                (Some(local), Some((deal, workers)), Some(counter)) => {
                    scope.spawn(move || {
                        deal.scan(local, counter.as_ref(), workers, queries, ahead, |s| tx.send(s).is_ok())
                    });
                }
                (Some(local), _, _) => {
                    scope.spawn(move || {
                        // In query order: every rank exchanges its queries' results in one order.
                        let order: Vec<usize> = (0..queries.len()).collect();
                        local.scan_all(queries, &order, chunk, ahead, |s| tx.send(s.map(RankScan::from)).is_ok())
                    });
                }
                _ => {}
            }
            // Queries in flight, each a stage further: while query i's sample is
            // gathered, rank 0 fits i - 1's statistics, and every rank checks and aligns
            // the hits of up to ALIGNING queries before. The exchanges keep one order on
            // every rank: i's sample, i - 1's statistics and hits, the oldest alignments.
            let mut sampled: Option<Sampled<'_, '_>> = None;
            let mut aligning: VecDeque<Chosen<'_, '_>> = VecDeque::new();
            // The outcome of rank 0's sink for a finished query, told with the next exchange.
            let mut delivered: Result<()> = Ok(());
            // Rank 0 hands on results until the first failure (its own, or the sink's),
            // which the next exchange tells every rank.
            let mut report = |chosen: Chosen<'_, '_>, delivered: &mut Result<()>| -> Result<()> {
                if let Some(result) = self.report(chosen)?
                    && delivered.is_ok()
                {
                    // The whole database's residues went into the alignments.
                    *delivered = result.and_then(|r| self.db.check_intact().and_then(|()| sink(r)));
                }
                Ok(())
            };
            for step in 0..=queries.len() {
                let next = match queries.get(step) {
                    Some(query) => {
                        let scanned = match &self.local {
                            Some(_) => {
                                rx.recv().unwrap_or_else(|_| Err(Error::Internal("the scan thread stopped".into())))
                            }
                            None => Ok(RankScan {
                                scan: Scanned { index: step, ..Scanned::default() },
                                ..RankScan::default()
                            }),
                        };
                        let scanned = std::mem::replace(&mut delivered, Ok(())).and(scanned);
                        Some(self.sample(scope, query, scanned)?)
                    }
                    None => None,
                };
                if let Some(s) = sampled.take() {
                    aligning.push_back(self.choose(scope, s)?);
                }
                if aligning.len() > ALIGNING
                    && let Some(oldest) = aligning.pop_front()
                {
                    report(oldest, &mut delivered)?;
                }
                sampled = next;
            }
            while let Some(oldest) = aligning.pop_front() {
                report(oldest, &mut delivered)?;
            }
            agree_on(self.comm, delivered)
        })
    }

    /// A query's first exchange: the scores its fit samples, gathered in database order
    /// on rank 0, which starts fitting its statistics (for every rank) on a thread.
    fn sample<'s, 'e>(
        &'e self,
        scope: &'s Scope<'s, 'e>,
        query: &'e Sequence,
        scanned: Result<RankScan>,
    ) -> Result<Sampled<'s, 'e>> {
        let start = Instant::now();
        // A failure so far (the scan's, or rank 0's sink's) goes in place of the sample;
        // every rank returns it from the exchange, this one its own error.
        let sampling = self.stats.sampling(query.len());
        let (sample, scanned) = match scanned {
            Ok(s) => {
                let mut out = Vec::new();
                for (&k, score) in s.subjects.iter().zip(&s.scan.scores) {
                    let subject = self.first + k;
                    if sampling.contains(subject, self.db.seq_len(subject)) {
                        wire::put_u64(&mut out, (self.first + k) as u64);
                        wire::put_i32(&mut out, score.score);
                    }
                }
                (Ok(out), Some(s))
            }
            Err(e) => (Err(e), None),
        };
        let samples = gather_to_root(self.comm, sample)?;
        let waiting = start.elapsed().as_secs_f64();
        let scanned = scanned.ok_or_else(|| Error::Internal("a failed scan passed its exchange".into()))?;
        // Rank 0 reads the samples and fits on a thread; what fails there (a message
        // cut short) travels with the statistics' exchange to every rank.
        let fit = (self.comm.rank() == 0).then(|| {
            scope.spawn(move || {
                // In database order, as one process samples them: dealt chunks
                // come from the ranks in no order.
                let mut sampled = Vec::new();
                for bytes in samples {
                    let mut r = wire::Reader::new(&bytes);
                    while !r.is_empty() {
                        sampled.push((r.usize()?, r.i32()?));
                    }
                }
                sampled.sort_unstable_by_key(|&(k, _)| k);
                let (scores, lengths) = sampled.into_iter().map(|(k, score)| (score, self.db.seq_len(k))).unzip();
                let sample = FitSample { scores, lengths, subjects: sampling.subjects };
                let plus = &query.residues;
                let minus = if self.strands.contains(&Strand::Minus) { reverse_complement(plus) } else { vec![] };
                Ok(self.host.install(|| self.stats.statistics(&sample, plus, &minus)))
            })
        });
        Ok(Sampled { query, start, waiting, scanned, fit })
    }

    /// A query's second and third exchanges: the statistics, from rank 0 to every rank,
    /// then each rank's best hits under them, merged into the query's hits on every
    /// rank; each rank starts checking and aligning those of its share on a thread.
    fn choose<'s, 'e>(&'e self, scope: &'s Scope<'s, 'e>, sampled: Sampled<'s, 'e>) -> Result<Chosen<'s, 'e>> {
        let Sampled { query, start, mut waiting, scanned, fit } = sampled;
        let fitted = match fit {
            Some(fit) => fit
                .join()
                .unwrap_or_else(|_| Err(Error::Internal("fitting the statistics panicked".into())))
                .map(|statistics| {
                    let mut out = Vec::new();
                    wire::put_statistics(&mut out, &statistics);
                    out
                }),
            None => Ok(Vec::new()),
        };
        let waited = Instant::now();
        let fitted = agree(self.comm, fitted);
        waiting += waited.elapsed().as_secs_f64();
        let statistics = wire::statistics(&mut wire::Reader::new(&fitted?[0]))?;

        let m = query.residues.len();
        let mut candidates = match &self.local {
            Some(l) => self.host.install(|| l.candidates(m, &scanned.scan, |i| scanned.subjects[i], &statistics)),
            None => Vec::new(),
        };
        let mut mine = Vec::new();
        for h in &candidates {
            wire::put_hit(&mut mine, &Hit { subject: h.subject + self.first, ..h.clone() });
        }
        let waited = Instant::now();
        let gathered = agree(self.comm, Ok(mine));
        waiting += waited.elapsed().as_secs_f64();
        let mut hits = Vec::new();
        for bytes in gathered? {
            let mut r = wire::Reader::new(&bytes);
            while !r.is_empty() {
                hits.push(wire::hit(&mut r)?);
            }
        }
        hits.sort_by(Hit::report_order);
        hits.truncate(self.options.max_hits);

        // This rank's candidates among the hits (the others' subjects, less `first`,
        // are outside its searcher's indices or were not its candidates).
        let chosen: HashSet<usize> =
            hits.iter().filter(|h| h.subject >= self.first).map(|h| h.subject - self.first).collect();
        candidates.retain(|h| chosen.contains(&h.subject));
        let fitted = statistics.clone();
        let aligning = scope.spawn(move || {
            let aligned = match &self.local {
                Some(local) => self.host.install(|| {
                    let held: HashSet<usize> = candidates.iter().map(|h| h.subject).collect();
                    let scores: HashMap<usize, (LocalScore, Strand)> = (0..scanned.subjects.len())
                        .filter(|&i| held.contains(&scanned.subjects[i]))
                        .map(|i| (scanned.subjects[i], (scanned.scan.scores[i], scanned.scan.strands[i])))
                        .collect();
                    local.check_and_attach(&query.residues, &scores, &mut candidates, &fitted)
                }),
                None => Ok(()),
            };
            (scanned, candidates, aligned)
        });
        Ok(Chosen { query, start, waiting, statistics, hits, aligning })
    }

    /// A query's last exchange: each rank's checked and aligned hits, to rank 0, which
    /// returns the query's result (`None` on the other ranks). The outer error is every
    /// rank's; the inner one rank 0's alone, to be told with the next exchange.
    fn report(&self, chosen: Chosen<'_, '_>) -> Result<Option<Result<SearchResult>>> {
        let Chosen { query, start, mut waiting, statistics, hits, aligning } = chosen;
        let (scanned, mine, aligned) = match aligning.join() {
            Ok(joined) => joined,
            Err(_) => {
                let failed = Err(Error::Internal("checking and aligning the hits panicked".into()));
                return gather_to_root(self.comm, failed).map(|_| None);
            }
        };
        let report = aligned.map(|()| {
            let mut out = Vec::new();
            wire::put_u64(&mut out, scanned.scan.recomputed as u64);
            wire::put_f64(&mut out, scanned.scan.kernel_seconds);
            out.push(scanned.scan.kernel_seconds_from_host as u8);
            for h in &mine {
                wire::put_hit(&mut out, &Hit { subject: h.subject + self.first, ..h.clone() });
            }
            out
        });
        let waited = Instant::now();
        let reports = gather_to_root(self.comm, report);
        waiting += waited.elapsed().as_secs_f64();
        let reports = reports?;
        let m = query.residues.len();
        if self.progress {
            // One write per line: the ranks share standard error.
            let line = format!(
                "clsw: rank {}: query {} ({} residues): scan {:.2} s, then {:.2} s to its result, {:.2} s of them \
                 in the exchanges; {} of its hits here\n",
                self.comm.rank(),
                scanned.scan.index + 1,
                m,
                scanned.scan.scan_seconds,
                start.elapsed().as_secs_f64(),
                waiting,
                mine.len(),
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        }
        if self.comm.rank() != 0 {
            return Ok(None);
        }
        Ok(Some(self.result(query, start, scanned, statistics, hits, reports)))
    }

    /// Rank 0's result of a query from the ranks' reports.
    fn result(
        &self,
        query: &Sequence,
        start: Instant,
        scanned: RankScan,
        statistics: Statistics,
        hits: Vec<Hit>,
        reports: Vec<Vec<u8>>,
    ) -> Result<SearchResult> {
        let mut costs = Costs::default();
        // Each subject's alignments, its best first.
        let mut aligned: HashMap<usize, Vec<Hit>> = HashMap::new();
        for bytes in reports {
            let mut r = wire::Reader::new(&bytes);
            costs.recomputed += r.usize()?;
            costs.kernel_seconds += r.f64()?;
            costs.kernel_seconds_from_host |= r.u8()? != 0;
            while !r.is_empty() {
                let h = wire::hit(&mut r)?;
                aligned.entry(h.subject).or_default().push(h);
            }
        }
        let hits = hits
            .into_iter()
            .map(|h| {
                aligned.remove(&h.subject).ok_or_else(|| {
                    Error::Internal(format!(
                        "hit {} ('{}') came back from no rank",
                        h.subject + 1,
                        self.db.id(h.subject)
                    ))
                })
            })
            .collect::<Result<Vec<Vec<Hit>>>>()?
            .concat();
        let m = query.residues.len();
        Ok(SearchResult {
            query_index: scanned.scan.index,
            query_id: query.id.clone(),
            query_description: query.description.clone(),
            query_len: m,
            scores: Vec::new(),
            strands: Vec::new(),
            strands_searched: self.strands.clone(),
            recomputed: costs.recomputed,
            kernel_seconds: costs.kernel_seconds,
            kernel_seconds_from_host: costs.kernel_seconds_from_host,
            scan_seconds: scanned.scan.scan_seconds,
            wall_seconds: scanned.scan.scan_seconds + start.elapsed().as_secs_f64(),
            cells: m as u64 * self.db.total_residues() * self.strands.len() as u64,
            statistics,
            hits,
        })
    }
}

/// A query after its first exchange: its scan, and rank 0's fit under way.
struct Sampled<'s, 'e> {
    query: &'e Sequence,
    start: Instant,
    /// Seconds in the exchanges so far (waiting for the slowest rank, mostly).
    waiting: f64,
    scanned: RankScan,
    fit: Option<ScopedJoinHandle<'s, Result<Statistics>>>,
}

/// A query after its third exchange: its statistics and hits, and this rank's check
/// and alignment of its share of them under way (giving back the scan).
struct Chosen<'s, 'e> {
    query: &'e Sequence,
    start: Instant,
    waiting: f64,
    statistics: Statistics,
    hits: Vec<Hit>,
    aligning: ScopedJoinHandle<'s, (RankScan, Vec<Hit>, Result<()>)>,
}

/// One query's scores on this rank: the subjects it scanned (its searcher's indices)
/// and their scan, `scan.scores[i]` and `scan.strands[i]` subject `subjects[i]`'s: its
/// whole share's in database order, or the chunks it drew ([`Deal`]). For dealt
/// chunks, `scan.scan_seconds` runs from the previous query's scores sent on to this
/// one's (the rank's workers scan several queries' chunks at once).
#[derive(Default)]
pub(super) struct RankScan {
    pub(super) subjects: Vec<usize>,
    pub(super) scan: Scanned,
}

impl From<Scanned> for RankScan {
    /// A whole share's scan.
    fn from(scan: Scanned) -> RankScan {
        RankScan { subjects: (0..scan.scores.len()).collect(), scan }
    }
}

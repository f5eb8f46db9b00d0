//! The device side of a search: chunks of queries scanned on every share (resident
//! shares, batches, or the native CPU path), scores gathered back into database order.
//! With several shares, each runs through the chunks on a thread of its own, a few
//! chunks ahead of the merge at most ([`Searcher::scan_all`]): a device never waits at
//! every query for the others.

use super::plan::Share;
use super::{Scanned, Searcher, Strand, reverse_complement};
use crate::engine::WorkerRef;
use crate::error::{Error, Result};
use crate::scan::scanner::{Scanner, ScannerPlan};
use crate::scan::{ScanOutput, scan_once};
use crate::seq::Sequence;
use std::ops::Range;
use std::time::Instant;

/// One share's outputs for a chunk: per sequence (query and strand) its scores against
/// the share, whether the kernel times are the host clock's, and the share's seconds.
type SharePart = Result<(Vec<ScanOutput>, bool, f64)>;

impl Searcher<'_> {
    /// Readies the devices for `queries`: the programs that scanning them on the
    /// resident shares launches are built or loaded now, every device at once
    /// ([`Scanner::prepare`]), so that no query of a search waits for one.
    /// Optional: a search loads what it lacks as it goes (and batched shares always do).
    pub fn prepare(&self, queries: &[Sequence]) -> Result<()> {
        let mut lengths: Vec<usize> = queries.iter().map(|q| q.residues.len()).collect();
        lengths.sort_unstable();
        lengths.dedup();
        let lengths = &lengths;
        std::thread::scope(|scope| {
            let loads: Vec<_> = self
                .shares
                .iter()
                .filter_map(|share| share.resident.as_ref())
                .map(|scanner| scope.spawn(move || scanner.prepare(lengths, &self.scoring)))
                .collect();
            // Every thread joined before the first error is returned.
            let outcomes: Vec<Result<()>> = loads
                .into_iter()
                .map(|load| {
                    load.join().map_err(|_| Error::Internal("a thread loading a device's programs panicked".into()))?
                })
                .collect();
            outcomes.into_iter().collect()
        })
    }

    /// Scans `queries` in `order` (indices into `queries`; [`scan_order`]), in chunks of
    /// `chunk`, and hands each query's scores to `send` in that order, until `send`
    /// returns false or an error (sent last). Each share runs through the chunks on its
    /// own thread, at most `ahead` chunks ahead of the merge.
    pub(crate) fn scan_all(
        &self,
        queries: &[Sequence],
        order: &[usize],
        chunk: usize,
        ahead: usize,
        mut send: impl FnMut(Result<Scanned>) -> bool,
    ) {
        let chunk = chunk.max(1);
        let groups: Vec<Vec<&Sequence>> =
            order.chunks(chunk).map(|g| g.iter().map(|&i| &queries[i]).collect()).collect();
        std::thread::scope(|scope| {
            let parts: Vec<std::sync::mpsc::Receiver<SharePart>> = self
                .shares
                .iter()
                .map(|share| {
                    let (tx, rx) = std::sync::mpsc::sync_channel::<SharePart>(ahead.max(1));
                    let groups = &groups;
                    scope.spawn(move || {
                        // A resident share streams; the others scan chunk by chunk.
                        if let Some(scanner) = &share.resident {
                            self.stream_resident(scanner, share, groups, &tx);
                            return;
                        }
                        for group in groups {
                            let start = Instant::now();
                            let part = self
                                .scan_share(share, &self.strand_sequences(group))
                                .map(|(outputs, host)| (outputs, host, start.elapsed().as_secs_f64()));
                            let failed = part.is_err();
                            if tx.send(part).is_err() || failed {
                                return;
                            }
                        }
                    });
                    rx
                })
                .collect();
            for indices in order.chunks(chunk) {
                let gathered: Vec<SharePart> = parts
                    .iter()
                    .map(|rx| rx.recv().unwrap_or_else(|_| Err(Error::Device("a device's scan thread stopped".into()))))
                    .collect();
                match self.merge_chunk(indices, gathered) {
                    Ok(scanned) => {
                        for s in scanned {
                            if !send(Ok(s)) {
                                return;
                            }
                        }
                    }
                    Err(e) => {
                        send(Err(e));
                        return;
                    }
                }
            }
        });
    }

    /// The sequences a chunk's scan aligns: each query on every strand searched, in order.
    fn strand_sequences(&self, queries: &[&Sequence]) -> Vec<Vec<u8>> {
        let mut seqs: Vec<Vec<u8>> = Vec::with_capacity(queries.len() * self.strands.len());
        for q in queries {
            for &strand in &self.strands {
                seqs.push(match strand {
                    Strand::Plus => q.residues.clone(),
                    Strand::Minus => reverse_complement(&q.residues),
                });
            }
        }
        seqs
    }

    /// Joins the shares' outputs of a chunk (the queries of `indices`) into database
    /// order and each subject's best strand. The chunk's scan time is its slowest
    /// share's, spread over its queries.
    fn merge_chunk(&self, indices: &[usize], parts: Vec<SharePart>) -> Result<Vec<Scanned>> {
        // Per sequence scanned (query and strand), its parts from every share in order.
        let mut shares: Vec<Vec<ScanOutput>> = (0..indices.len() * self.strands.len()).map(|_| Vec::new()).collect();
        let (mut from_host, mut seconds) = (false, 0.0f64);
        for part in parts {
            let (part, host, share_seconds) = part?;
            from_host |= host;
            seconds = seconds.max(share_seconds);
            for (acc, part) in shares.iter_mut().zip(part) {
                acc.push(part);
            }
        }
        let outputs: Vec<ScanOutput> = shares.into_iter().map(ScanOutput::concat).collect();
        let scan_seconds = seconds / indices.len().max(1) as f64;
        let ns = self.strands.len();
        let mut out = Vec::with_capacity(indices.len());
        let mut outputs = outputs.into_iter();
        for &index in indices {
            let (best, strands) = self.best_over_strands(outputs.by_ref().take(ns));
            if best.scores.len() != self.db.len() {
                return Err(Error::Device(format!(
                    "scan returned {} scores for {} subjects",
                    best.scores.len(),
                    self.db.len()
                )));
            }
            out.push(Scanned {
                index,
                scores: best.scores,
                strands,
                recomputed: best.recomputed,
                kernel_seconds: best.kernel_seconds,
                kernel_seconds_from_host: from_host,
                scan_seconds,
            });
        }
        Ok(out)
    }

    /// One query's outputs, one per strand searched in order, as each subject's best
    /// score over the strands (costs summed) and the strand it came from.
    fn best_over_strands(&self, mut outputs: impl Iterator<Item = ScanOutput>) -> (ScanOutput, Vec<Strand>) {
        let mut best = outputs.next().expect("one output per strand");
        let mut strands = vec![self.strands[0]; best.scores.len()];
        for (other, &strand) in outputs.zip(&self.strands[1..]) {
            for (k, s) in other.scores.into_iter().enumerate() {
                if s.score > best.scores[k].score {
                    best.scores[k] = s;
                    strands[k] = strand;
                }
            }
            best.recomputed += other.recomputed;
            best.kernel_seconds += other.kernel_seconds;
        }
        (best, strands)
    }

    /// The byte pass of the native CPU path over `subjects` (indices into this
    /// searcher's database) against `query`: per strand searched, in order, the scores
    /// the byte lanes hold and the positions in `subjects` of those they could not
    /// ([`crate::scan::native::scores_in_bytes`]). For a chunk of the database an MPI
    /// job deals to its ranks ([`crate::mpi`]); [`Self::scan_past_bytes`] ends the scan
    /// of a query's chunks together. The searcher's engine must be the native path.
    pub(crate) fn scan_bytes(&self, query: &Sequence, subjects: &[usize]) -> Result<Vec<(ScanOutput, Vec<usize>)>> {
        let residues: Vec<&[u8]> = subjects.iter().map(|&k| self.db.residues(k)).collect();
        self.strand_sequences(&[query])
            .iter()
            .map(|q| crate::scan::native::scores_in_bytes(q, &residues, &self.scoring, self.native_report()))
            .collect()
    }

    /// Ends the scan of `subjects` against `query` from their byte passes (`bytes`: per
    /// strand, [`Self::scan_bytes`] of these subjects, pieces appended in order, the
    /// positions offset to match): the passes after the bytes on the subjects each
    /// strand left, on the current thread pool, then each subject's best score over
    /// the strands.
    pub(crate) fn scan_past_bytes(
        &self,
        query: &Sequence,
        subjects: &[usize],
        bytes: Vec<(ScanOutput, Vec<usize>)>,
    ) -> Result<Scanned> {
        let start = Instant::now();
        let mut outputs = Vec::with_capacity(bytes.len());
        for (q, (mut out, past)) in self.strand_sequences(&[query]).iter().zip(bytes) {
            let residues: Vec<&[u8]> = past.iter().map(|&i| self.db.residues(subjects[i])).collect();
            let wide = crate::scan::native::scores_past_bytes(q, &residues, &self.scoring, self.native_report())?;
            for (&i, score) in past.iter().zip(wide.scores) {
                out.scores[i] = score;
            }
            out.recomputed += wide.recomputed;
            outputs.push(out);
        }
        let (best, strands) = self.best_over_strands(outputs.into_iter());
        Ok(Scanned {
            index: 0,
            scores: best.scores,
            strands,
            recomputed: best.recomputed,
            kernel_seconds: 0.0,
            kernel_seconds_from_host: false,
            scan_seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// What the native path's scan reports: hits get their ends when they are checked,
    /// a pair at a time; where the hits may be a sixteenth of the database or more, the
    /// scan finds every end itself for less (queries10 x uniprot300 with 1,000 hits a
    /// query: the checks were a quarter of the run on two cores).
    fn native_report(&self) -> crate::scan::native::Report {
        match self.options.max_hits.saturating_mul(16) >= self.db.len() {
            true => crate::scan::native::Report::Ends,
            false => crate::scan::native::Report::Scores,
        }
    }

    /// Scores every sequence of `queries` against one share (share order), and says
    /// whether the kernel times are the host clock's: a device that gives no profiling
    /// times (all zero for real work) is timed by the host clock around its scan,
    /// spread over the queries by their lengths.
    fn scan_share(&self, share: &Share<'_>, queries: &[Vec<u8>]) -> Result<(Vec<ScanOutput>, bool)> {
        let start = Instant::now();
        let mut outputs = self.scan_share_on_device(share, queries)?;
        let host = host_timed(share, queries, &mut outputs, start.elapsed().as_secs_f64());
        Ok((outputs, host))
    }

    /// A share's scan of every chunk by its resident scanner, one query after another
    /// without a pause between them ([`Scanner::scores_each`]), each chunk's part
    /// sent as its last output lands; stops at an error (sent) or when `tx` is closed.
    /// Scores alone: the hits' end cells come from their re-scoring on the CPU.
    fn stream_resident(
        &self,
        scanner: &Scanner<'_>,
        share: &Share<'_>,
        groups: &[Vec<&Sequence>],
        tx: &std::sync::mpsc::SyncSender<SharePart>,
    ) {
        let seqs: Vec<Vec<u8>> = groups.iter().flat_map(|g| self.strand_sequences(g)).collect();
        let sizes: Vec<usize> = groups.iter().map(|g| g.len() * self.strands.len()).collect();
        let (mut group, mut first) = (0, 0);
        let mut current = Vec::new();
        let mut start = Instant::now();
        scanner.scores_each(&seqs, &self.scoring, |out| {
            let out = match out {
                Ok(out) => out,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return false;
                }
            };
            current.push(out);
            if current.len() < sizes[group] {
                return true;
            }
            group += 1;
            let mut outputs = std::mem::take(&mut current);
            let chunk = &seqs[first..first + outputs.len()];
            first += outputs.len();
            let seconds = start.elapsed().as_secs_f64();
            start = Instant::now();
            let host = host_timed(share, chunk, &mut outputs, seconds);
            tx.send(Ok((outputs, host, seconds))).is_ok()
        });
    }

    fn scan_share_on_device(&self, share: &Share<'_>, queries: &[Vec<u8>]) -> Result<Vec<ScanOutput>> {
        let db = self.db;
        let sc = &self.scoring;
        let dev = match share.worker {
            WorkerRef::Native => {
                let subjects: Vec<&[u8]> = share.range.clone().map(|k| db.residues(k)).collect();
                let report = self.native_report();
                return queries.iter().map(|q| crate::scan::native::scores(q, &subjects, sc, report)).collect();
            }
            WorkerRef::OpenCl(dev) => dev,
        };
        // Per query, its batches' scans in order, joined at the end.
        let mut parts: Vec<Vec<ScanOutput>> = queries.iter().map(|_| Vec::new()).collect();
        let joined = |parts: Vec<Vec<ScanOutput>>| parts.into_iter().map(ScanOutput::concat).collect();
        let variant = self.options.variant_on(&dev.info);
        let batches: Vec<Range<usize>> = share.batches.iter().filter(|b| !b.is_empty()).cloned().collect();
        let subjects_of = |batch: &Range<usize>| -> Vec<&[u8]> { batch.clone().map(|k| db.residues(k)).collect() };
        let Some(kind) = variant.scan_kernel() else {
            for batch in &batches {
                let subjects = subjects_of(batch);
                for (q, acc) in queries.iter().zip(parts.iter_mut()) {
                    acc.push(scan_once(dev, variant, q, &subjects, sc)?);
                }
            }
            return Ok(joined(parts));
        };
        // Each batch is laid out and uploaded while the one before it is scanned (where
        // the driver lets the write pass the kernels before it: on one H200, NVIDIA's
        // waited for them, BENCHMARKS.md).
        let tuning = self.options.tuning;
        let pad = sc.matrix.size() as u8;
        // A batch's residues go to the device as the database stores them, while the
        // host arranges the batch.
        let prepare = |batch: &Range<usize>| {
            crate::scan::on_device_side_pool(|| {
                Scanner::arranged_beside(dev, super::plan::stored(db, batch.clone()), || {
                    ScannerPlan::new(&dev.info, kind, tuning, subjects_of(batch), pad, queries.len())
                })
            })
        };
        std::thread::scope(|scope| {
            let mut next = batches.first().map(|b| scope.spawn(move || prepare(b)));
            for k in 0..batches.len() {
                let prepared = next.take().expect("the next batch is being prepared").join();
                let scanner =
                    prepared.map_err(|_| Error::Internal("the thread preparing a batch stopped".into()))??;
                next = batches.get(k + 1).map(|b| scope.spawn(move || prepare(b)));
                // Several queries a launch: a batch alone leaves the device idle while
                // its longest subjects finish.
                for (acc, part) in parts.iter_mut().zip(scanner.scores_many(queries, sc)?) {
                    acc.push(part);
                }
            }
            Ok(joined(parts))
        })
    }
}

/// The order the devices scan `queries` in: as given, but the last `tail` of them
/// longest first. A query's CPU work after its scan (its hits' checks and alignments)
/// grows with its length, and only the last query's has no scan left to hide behind:
/// this way it is the shortest of the tail's (MFO, the 19 classic queries sorted by
/// length: the last query's 0.21 s after the last kernel).
pub(crate) fn scan_order(queries: &[Sequence], tail: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..queries.len()).collect();
    let from = queries.len().saturating_sub(tail);
    order[from..].sort_by_key(|&i| (std::cmp::Reverse(queries[i].residues.len()), i));
    order
}

/// A device that gives no profiling times (all zero for real work) is timed by the host
/// clock around its scan (`seconds`), spread over `queries` by their lengths; returns
/// whether it was.
fn host_timed(share: &Share<'_>, queries: &[Vec<u8>], outputs: &mut [ScanOutput], seconds: f64) -> bool {
    let native = matches!(share.worker, WorkerRef::Native);
    let silent = outputs.iter().all(|o| o.kernel_seconds == 0.0) && !share.range.is_empty();
    if native || !silent || queries.is_empty() {
        return false;
    }
    let residues: usize = queries.iter().map(Vec::len).sum::<usize>().max(1);
    for (o, q) in outputs.iter_mut().zip(queries) {
        o.kernel_seconds = seconds * q.len() as f64 / residues as f64;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::scan_order;
    use crate::seq::Sequence;

    #[test]
    fn the_last_queries_are_scanned_longest_first() {
        let queries: Vec<Sequence> = [5, 1, 9, 3, 7, 3]
            .iter()
            .enumerate()
            .map(|(i, &n)| Sequence { id: format!("q{i}"), description: String::new(), residues: vec![0; n] })
            .collect();
        assert_eq!(scan_order(&queries, 3), vec![0, 1, 2, 4, 3, 5]);
        assert_eq!(scan_order(&queries, 0), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(scan_order(&queries, 10), vec![2, 4, 0, 3, 5, 1]);
        assert!(scan_order(&[], 8).is_empty());
    }
}

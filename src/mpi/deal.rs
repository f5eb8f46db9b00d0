//! The whole database dealt to the ranks by chunks as each rank becomes free, when every
//! rank scans on the native CPU path ([`super::Share::dealt`]).
//!
//! The subjects, longest first, are cut into chunks of about equal residues ([`Deal`]).
//! Each query's chunks are numbered after the previous query's, and a rank ready for
//! more draws the next number from a counter the ranks share ([`super::Counter`]): every
//! chunk of every query is scanned once, by whichever rank is free, and a rank slowed by
//! its neighbours on a host takes fewer. Four ranks of four threads on 16 cores, with
//! fixed equal shares, summed scans of 26.7 to 33.9 s over the 20 classic queries: the
//! search waited for the slowest. Longest first, a query's last chunks are its shortest,
//! so the ranks end a query within a short chunk of one another; and a rank that ends
//! early draws the next query's chunks rather than wait.
//!
//! Each of a rank's threads draws and scans chunks on its own, one after another (a
//! chunk's scan on one thread has no barrier: the threads of one scan wait at its end
//! for its last batch, and fixed chunks of 4 threads ran 17% slower than whole shares).

use super::Counter;
use super::search::RankScan;
use crate::engine::split_by_size;
use crate::error::{Error, Result};
use crate::scan::ScanOutput;
use crate::scan::native::Level;
use crate::search::Searcher;
use crate::seq::{Database, Sequence};
use std::collections::VecDeque;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// Chunks of each query per thread of the job: enough that the search's last chunks
/// (each thread's wait at the end, half a chunk on average) are a small part of its
/// scan; the 5,478-residue query's chunk of uniprot20k x 20 takes 0.25 s on one core.
const CHUNKS_PER_THREAD: usize = 16;

/// The database's subjects, longest first, in chunks of about equal residues.
pub(super) struct Deal {
    order: Vec<usize>,
    /// Chunk `c` is `order[bounds[c]..bounds[c + 1]]`.
    bounds: Vec<usize>,
}

impl Deal {
    /// The chunks of `db` for `threads` threads of the job (the same on every rank).
    /// Chunks hold whole batches of the native path's widest lanes (64 subjects): a
    /// chunk's last batch, part empty, costs as much as a full one, and cuts anywhere
    /// cost half a batch a chunk (5% with 16 chunks a thread on two cores; 37% with 64).
    pub(super) fn new(db: &Database, threads: usize) -> Deal {
        let mut order: Vec<usize> = (0..db.len()).collect();
        order.sort_by_key(|&k| (std::cmp::Reverse(db.seq_len(k)), k));
        let lanes = Level::Avx512.lanes();
        let batches: Vec<usize> = order.chunks(lanes).map(|b| b.iter().map(|&k| db.seq_len(k)).sum()).collect();
        let chunks = (threads * CHUNKS_PER_THREAD).clamp(1, batches.len().max(1));
        let bounds = split_by_size(batches, chunks).into_iter().map(|b| (b * lanes).min(order.len())).collect();
        Deal { order, bounds }
    }

    fn chunks(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The subjects of chunk `c`.
    fn chunk(&self, c: usize) -> &[usize] {
        &self.order[self.bounds[c]..self.bounds[c + 1]]
    }

    /// Scans the chunks of `queries` this rank draws from `counter` on `local` (a
    /// native searcher of the whole database), on `workers` (one thread each), and
    /// sends each query's scores in query order: the subjects of its chunks (none when
    /// other ranks drew them all). A query's chunks run the byte pass; once every chunk
    /// of it is drawn and this rank's are scanned, one worker runs the passes past the
    /// bytes on the subjects they left, before drawing more. The workers draw no chunk
    /// of a query `ahead` or more past the last one sent. Stops at an error (sent, a
    /// panic's included), or when `send` returns false.
    pub(super) fn scan(
        &self,
        local: &Searcher<'_>,
        counter: &dyn Counter,
        workers: &[rayon::ThreadPool],
        queries: &[Sequence],
        ahead: usize,
        mut send: impl FnMut(Result<RankScan>) -> bool,
    ) {
        let n = queries.len();
        let state = Mutex::new(State {
            pending: vec![0; n],
            parts: (0..n).map(|_| Part::default()).collect(),
            ready: VecDeque::new(),
            readied: 0,
            sent: 0,
            stopped: false,
        });
        let changed = Condvar::new();
        let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
        let (tx, rx) = std::sync::mpsc::channel::<Event>();
        std::thread::scope(|scope| {
            for pool in workers {
                let (tx, state, changed) = (tx.clone(), &state, &changed);
                scope.spawn(move || {
                    pool.install(|| {
                        while let Some(job) = self.next_job(state, changed, counter, n, ahead) {
                            let run = std::panic::AssertUnwindSafe(|| self.run(local, queries, job));
                            let done = std::panic::catch_unwind(run).unwrap_or_else(|_| {
                                Event::Failed(Error::Internal("a rank's scan of a chunk panicked".into()))
                            });
                            if tx.send(done).is_err() {
                                return;
                            }
                        }
                    })
                });
            }
            drop(tx);
            let stop = || {
                lock().stopped = true;
                changed.notify_all();
            };
            let mut done: Vec<Option<RankScan>> = (0..n).map(|_| None).collect();
            let (mut next, mut since) = (0, Instant::now());
            loop {
                lock().refresh(self, counter);
                changed.notify_all();
                while let Some(mut scan) = done.get_mut(next).and_then(Option::take) {
                    (scan.scan.index, scan.scan.scan_seconds) = (next, since.elapsed().as_secs_f64());
                    if !send(Ok(scan)) {
                        return stop();
                    }
                    (next, since) = (next + 1, Instant::now());
                    lock().sent = next;
                }
                if next == n {
                    return;
                }
                // Other ranks' draws make queries ready too, and tell no one: look
                // again after a millisecond.
                match rx.recv_timeout(std::time::Duration::from_millis(1)) {
                    Ok(Event::Chunk(q, c, bytes)) => {
                        let mut s = lock();
                        s.parts[q].append(self.chunk(c), bytes);
                        s.pending[q] -= 1;
                    }
                    Ok(Event::Past(q, scan)) => done[q] = Some(scan),
                    Ok(Event::Failed(e)) => {
                        send(Err(e));
                        return stop();
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => {
                        send(Err(Error::Internal("a rank's scan threads stopped".into())));
                        return stop();
                    }
                }
            }
        })
    }

    /// A worker's job done: a chunk's byte passes, or the end of a query's scan.
    fn run(&self, local: &Searcher<'_>, queries: &[Sequence], job: Job) -> Event {
        let done = match job {
            Job::Chunk(q, c) => local.scan_bytes(&queries[q], self.chunk(c)).map(|bytes| Event::Chunk(q, c, bytes)),
            Job::Past(q, Part { subjects, bytes }) => match bytes.is_empty() {
                true => Ok(Event::Past(q, RankScan::default())),
                false => local
                    .scan_past_bytes(&queries[q], &subjects, bytes)
                    .map(|scan| Event::Past(q, RankScan { subjects, scan })),
            },
        };
        done.unwrap_or_else(Event::Failed)
    }

    /// A worker's next job: the passes past the bytes of a query that is ready, else
    /// the next chunk drawn (while its query is fewer than `ahead` past the last sent);
    /// `None` when the scan stopped or every query is ready and taken.
    fn next_job(
        &self,
        state: &Mutex<State>,
        changed: &Condvar,
        counter: &dyn Counter,
        queries: usize,
        ahead: usize,
    ) -> Option<Job> {
        let chunks = self.chunks() as u64;
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if s.stopped {
                return None;
            }
            let at = s.refresh(self, counter);
            if let Some(q) = s.ready.pop_front() {
                return Some(Job::Past(q, std::mem::take(&mut s.parts[q])));
            }
            if at < chunks * queries as u64 && at / chunks < (s.sent + ahead) as u64 {
                // A draw and its count in `pending` are one step under the lock: the
                // chunks of a query that `refresh` finds all drawn are all counted.
                let ticket = counter.next();
                if ticket < chunks * queries as u64 {
                    let (q, c) = ((ticket / chunks) as usize, (ticket % chunks) as usize);
                    s.pending[q] += 1;
                    return Some(Job::Chunk(q, c));
                }
                continue;
            }
            if s.readied == queries {
                return None;
            }
            s = changed.wait_timeout(s, std::time::Duration::from_millis(1)).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}

/// What a rank's workers share.
struct State {
    /// Chunks drawn and not yet scanned, per query.
    pending: Vec<usize>,
    /// Each query's chunks scanned so far.
    parts: Vec<Part>,
    /// Queries whose chunks are all drawn and this rank's scanned, for the passes past
    /// the bytes.
    ready: VecDeque<usize>,
    /// The queries before this one went to `ready`.
    readied: usize,
    /// The queries before this one are sent on.
    sent: usize,
    /// The scan stopped (an error, or no one to send to): the workers end.
    stopped: bool,
}

impl State {
    /// Moves the queries whose chunks are all drawn (by any rank) and scanned (this
    /// rank's) to `ready`, in order; returns the counter's value, taken under this
    /// state's lock so that every draw of this rank is counted in `pending`.
    fn refresh(&mut self, deal: &Deal, counter: &dyn Counter) -> u64 {
        let (at, chunks) = (counter.peek(), deal.chunks() as u64);
        while self.readied < self.pending.len()
            && at >= (self.readied as u64 + 1) * chunks
            && self.pending[self.readied] == 0
        {
            self.ready.push_back(self.readied);
            self.readied += 1;
        }
        at
    }
}

/// A worker's job.
enum Job {
    Chunk(usize, usize),
    Past(usize, Part),
}

/// What a worker tells the rank's scan thread.
enum Event {
    /// A chunk's byte passes: query, chunk.
    Chunk(usize, usize, Bytes),
    /// A query's scan, ended.
    Past(usize, RankScan),
    Failed(Error),
}

/// A query's byte passes over the chunks a rank scanned: per strand searched.
type Bytes = Vec<(ScanOutput, Vec<usize>)>;

/// The chunks of one query a rank has scanned so far.
#[derive(Default)]
struct Part {
    subjects: Vec<usize>,
    /// Per strand, the byte pass's scores of `subjects` and the positions past them.
    bytes: Bytes,
}

impl Part {
    fn append(&mut self, chunk: &[usize], bytes: Bytes) {
        let offset = self.subjects.len();
        self.subjects.extend_from_slice(chunk);
        if self.bytes.is_empty() {
            self.bytes = (0..bytes.len()).map(|_| (ScanOutput::with_capacity(0), Vec::new())).collect();
        }
        for ((out, past), (more, more_past)) in self.bytes.iter_mut().zip(bytes) {
            out.append(more);
            past.extend(more_past.into_iter().map(|i| i + offset));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::threads::run_ranks;
    use crate::scoring::{Gaps, Matrix, Scoring};
    use crate::search::SearchOptions;
    use crate::seq::Alphabet;

    #[test]
    fn chunks_hold_every_subject_once_longest_first() {
        let lengths = [5usize, 0, 17, 3, 17, 9, 1, 30, 2, 8];
        let seqs = lengths
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                Sequence::from_letters(&format!("s{i}"), &b"ACDEFGHIKLMNPQRSTVWYACDEFGHIKLMNPQ"[..n], Alphabet::Protein)
            })
            .collect::<Result<Vec<_>>>()
            .unwrap();
        let db = Database::from_sequences(Alphabet::Protein, seqs);
        let deal = Deal::new(&db, 2);
        let all: Vec<usize> = (0..deal.chunks()).flat_map(|c| deal.chunk(c).to_vec()).collect();
        assert_eq!(all, vec![7, 2, 4, 5, 9, 0, 3, 8, 6, 1], "longest first, ties in database order");
        let one = Deal::new(&Database::from_sequences(Alphabet::Protein, vec![]), 3);
        assert_eq!(one.chunks(), 1, "an empty database is one empty chunk");
    }

    /// Every query's subjects are scanned once among the ranks, each with the score a
    /// scan of the whole database gives it.
    #[test]
    fn ranks_scan_every_chunk_once() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut letters = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    b"ACDEFGHIKLMNPQRSTVWY"[(seed >> 33) as usize % 20]
                })
                .collect()
        };
        let mut subjects: Vec<Vec<u8>> = (0..240).map(|i| letters(if i % 40 == 7 { 1500 } else { i % 300 })).collect();
        // A query that is a subject's copy: a score past the byte lanes, and copies of it.
        let homolog = letters(600);
        subjects[3] = homolog.clone();
        subjects[150] = homolog.clone();
        let seqs =
            subjects.iter().enumerate().map(|(i, s)| Sequence::from_letters(&format!("s{i}"), s, Alphabet::Protein));
        let db = Database::from_sequences(Alphabet::Protein, seqs.collect::<Result<Vec<_>>>().unwrap());
        let queries = [homolog, letters(90), letters(333)]
            .iter()
            .enumerate()
            .map(|(i, q)| Sequence::from_letters(&format!("q{i}"), q, Alphabet::Protein).unwrap())
            .collect::<Vec<_>>();
        let engine = crate::engine::Engine::new(crate::device::DeviceChoice::Native).unwrap();
        let scoring = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let options = SearchOptions::default();
        let searcher = Searcher::new(&engine, &db, scoring.clone(), options.clone()).unwrap();
        let deal = Deal::new(&db, 6);
        let ranks = run_ranks(3, |comm| {
            let counter = comm.counter();
            let workers: Vec<rayon::ThreadPool> =
                (0..2).map(|_| rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap()).collect();
            let mut got = Vec::new();
            deal.scan(&searcher, counter.as_ref(), &workers, &queries, 1, |s| {
                got.push(s.unwrap());
                true
            });
            got
        });
        for (q, query) in queries.iter().enumerate() {
            let (whole, _) = searcher.scores(query).unwrap();
            let mut seen = vec![0; db.len()];
            for rank in &ranks {
                let scan = &rank[q];
                assert_eq!(scan.scan.index, q, "each rank sends every query, in order");
                for (i, &k) in scan.subjects.iter().enumerate() {
                    seen[k] += 1;
                    assert_eq!(scan.scan.scores[i].score, whole[k].score, "query {q}, subject {k}");
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "query {q}: every subject scanned once: {seen:?}");
        }
    }
}

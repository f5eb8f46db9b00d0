//! Ranks as threads of one process: the protocol of [`super`] run and tested without
//! an MPI library (the threads exchange bytes through shared memory).

use super::{Comm, Counter};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Runs `f` on `n` ranks, each a thread with its own [`Comm`], and returns their
/// results in rank order.
///
/// # Panics
///
/// When a rank panics, or waits more than a minute for the others at a collective
/// (the ranks did not call the same collectives).
pub fn run_ranks<T: Send>(n: usize, f: impl Fn(&dyn Comm) -> T + Sync) -> Vec<T> {
    run(n, true, f)
}

/// [`run_ranks`] on ranks whose threads may not draw from a counter (MPI below
/// `MPI_THREAD_SERIALIZED`, [`Comm::threads_may_draw`]): native ranks then take
/// fixed shares of a database, not chunks dealt.
pub fn run_ranks_without_draws<T: Send>(n: usize, f: impl Fn(&dyn Comm) -> T + Sync) -> Vec<T> {
    run(n, false, f)
}

fn run<T: Send>(n: usize, draws: bool, f: impl Fn(&dyn Comm) -> T + Sync) -> Vec<T> {
    let shared = Arc::new(Shared {
        n,
        draws,
        round: Mutex::new(Round::default()),
        changed: Condvar::new(),
        counter: Mutex::new(Arc::new(AtomicU64::new(0))),
    });
    std::thread::scope(|scope| {
        let ranks: Vec<_> = (0..n)
            .map(|rank| {
                let comm = ThreadComm { rank, shared: shared.clone() };
                let f = &f;
                scope.spawn(move || f(&comm))
            })
            .collect();
        ranks.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    })
}

struct Shared {
    n: usize,
    /// [`Comm::threads_may_draw`].
    draws: bool,
    round: Mutex<Round>,
    changed: Condvar,
    /// The counter the last [`Comm::counter`] made (rank 0 makes it, every rank takes it).
    counter: Mutex<Arc<AtomicU64>>,
}

/// One collective at a time: the ranks' contributions, then everyone's copy of them.
#[derive(Default)]
struct Round {
    generation: u64,
    slots: Vec<Option<Vec<u8>>>,
    arrived: usize,
    /// The finished round's contributions, until every rank has taken them.
    done: Option<Arc<Vec<Vec<u8>>>>,
    taken: usize,
}

struct ThreadComm {
    rank: usize,
    shared: Arc<Shared>,
}

impl ThreadComm {
    fn wait<'a>(
        &self,
        guard: std::sync::MutexGuard<'a, Round>,
        until: impl Fn(&Round) -> bool,
    ) -> std::sync::MutexGuard<'a, Round> {
        let (guard, timeout) = self
            .shared
            .changed
            .wait_timeout_while(guard, Duration::from_secs(60), |r| !until(r))
            .unwrap_or_else(|e| e.into_inner());
        assert!(!timeout.timed_out(), "rank {} waited a minute for the other ranks at a collective", self.rank);
        guard
    }
}

impl Comm for ThreadComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.n
    }

    fn threads_may_draw(&self) -> bool {
        self.shared.draws
    }

    fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let n = self.shared.n;
        let round = self.shared.round.lock().unwrap_or_else(|e| e.into_inner());
        // The previous round's copies must all be taken before this one fills.
        let mut round = self.wait(round, |r| r.done.is_none());
        if round.slots.len() != n {
            round.slots = vec![None; n];
        }
        round.slots[self.rank] = Some(bytes.to_vec());
        round.arrived += 1;
        let generation = round.generation;
        if round.arrived == n {
            let all = round.slots.iter_mut().map(|s| s.take().unwrap_or_default()).collect();
            round.done = Some(Arc::new(all));
            round.arrived = 0;
            round.generation += 1;
            self.shared.changed.notify_all();
        } else {
            round = self.wait(round, |r| r.generation != generation);
        }
        let all = round.done.clone().map(|a| a.as_ref().clone()).unwrap_or_default();
        round.taken += 1;
        if round.taken == n {
            round.done = None;
            round.taken = 0;
            self.shared.changed.notify_all();
        }
        all
    }

    fn gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let all = self.all_gather(bytes);
        if self.rank == 0 { all } else { Vec::new() }
    }

    fn counter(&self) -> Box<dyn Counter + '_> {
        let slot = || self.shared.counter.lock().unwrap_or_else(|e| e.into_inner());
        if self.rank == 0 {
            *slot() = Arc::new(AtomicU64::new(0));
        }
        // Rank 0's counter is in place; then every rank holds it before another replaces it.
        self.all_gather(&[]);
        let counter = slot().clone();
        self.all_gather(&[]);
        Box::new(SharedCounter(counter))
    }
}

struct SharedCounter(Arc<AtomicU64>);

impl Counter for SharedCounter {
    fn next(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }

    fn peek(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collectives_follow_one_another() {
        let out = run_ranks(3, |comm| {
            (0..50u8)
                .map(|i| {
                    let all = comm.all_gather(&[i, comm.rank() as u8]);
                    all.iter().map(|m| m[0] as usize + m[1] as usize).sum::<usize>()
                })
                .collect::<Vec<_>>()
        });
        let expect: Vec<usize> = (0..50).map(|i| 3 * i + 3).collect();
        assert!(out.iter().all(|v| *v == expect));
        let gathered = run_ranks(2, |comm| comm.gather(&[comm.rank() as u8]));
        assert_eq!(gathered, vec![vec![vec![0], vec![1]], vec![]]);
    }

    #[test]
    fn a_counter_gives_each_number_once_across_the_ranks() {
        let drawn = run_ranks(3, |comm| {
            (0..2)
                .map(|_| {
                    let counter = comm.counter();
                    (0..100).map(|_| counter.next()).collect::<Vec<u64>>()
                })
                .collect::<Vec<_>>()
        });
        for round in 0..2 {
            let mut all: Vec<u64> = drawn.iter().flat_map(|r| r[round].clone()).collect();
            all.sort_unstable();
            assert_eq!(all, (0..300).collect::<Vec<u64>>(), "round {round}: each number once, a new counter at 0");
        }
    }
}

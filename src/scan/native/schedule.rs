//! Greedy list scheduling on rayon's pool, for tasks whose costs differ a hundredfold
//! (a batch of subjects of 8,000 residues beside one of 50, the rectangle of a long hit
//! beside a short one): the tasks run longest first, each thread taking the next when
//! it is free, so the last task to finish is a short one. The makespan is then at most
//! a thread's share of the work plus one task; rayon's split by index gives no such
//! bound (one thread can meet the longest tasks last, the others idle meanwhile).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `work` on every task, longest first by `cost`, on the current pool; the results in
/// the tasks' order. A panic in `work` reaches the caller, as with rayon's iterators.
pub(crate) fn longest_first<T: Sync, R: Send>(
    tasks: &[T],
    cost: impl Fn(&T) -> u64,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(cost(&tasks[k])));
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(tasks.len()));
    let (order, work) = (&order, &work);
    rayon::scope(|s| {
        for _ in 0..rayon::current_num_threads().min(tasks.len()) {
            s.spawn(|_| {
                let mut mine = Vec::new();
                while let Some(&k) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    mine.push((k, work(&tasks[k])));
                }
                done.lock().unwrap_or_else(|e| e.into_inner()).extend(mine);
            });
        }
    });
    let mut results: Vec<Option<R>> = std::iter::repeat_with(|| None).take(tasks.len()).collect();
    for (k, r) in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
        results[k] = Some(r);
    }
    results.into_iter().map(|r| r.expect("every task ran")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_once_results_in_task_order() {
        let tasks: Vec<u64> = (0..1_000).map(|k| (k * 7919) % 613).collect();
        for threads in [1, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let calls = AtomicUsize::new(0);
            let out = pool.install(|| {
                longest_first(
                    &tasks,
                    |&t| t,
                    |&t| {
                        calls.fetch_add(1, Ordering::Relaxed);
                        t * 2
                    },
                )
            });
            assert_eq!(calls.load(Ordering::Relaxed), tasks.len());
            assert_eq!(out, tasks.iter().map(|t| t * 2).collect::<Vec<_>>());
        }
        assert!(longest_first(&[] as &[u64], |&t| t, |&t| t).is_empty());
    }

    #[test]
    fn one_thread_runs_the_longest_first() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let seen = Mutex::new(Vec::new());
        pool.install(|| longest_first(&[3u64, 9, 1, 9, 5], |&t| t, |&t| seen.lock().unwrap().push(t)));
        assert_eq!(seen.into_inner().unwrap(), [9, 9, 5, 3, 1]);
    }
}

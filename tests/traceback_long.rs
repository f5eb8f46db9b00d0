//! A 35,000 x 5,000 pair is traced back without gigabytes: a counting allocator
//! records the peak heap use of the whole alignment.

mod common;

use clsw::reference::score;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::traceback::align;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every allocation and free is the system allocator's, which meets GlobalAlloc's
// contract; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(now, Ordering::SeqCst);
        // SAFETY: `layout` is as GlobalAlloc::alloc's caller promised, passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: `ptr` came from System.alloc above with this `layout` (the caller's promise).
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

#[test]
fn long_pair_in_little_memory() {
    let mut rng = common::Rng::new(35_000);
    let query = rng.codes(35_000, 20);
    // The subject is a mutated copy of a 5,000-residue stretch near the query's end,
    // so the alignment is long and gapped.
    let subject = rng.mutate(&query[29_000..34_000], 0.15, 20);
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    let before = CURRENT.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let a = align(&query, &subject, &sc).expect("related sequences align");
    let peak = PEAK.load(Ordering::SeqCst) - before;
    assert!(peak < 32 << 20, "traceback used {peak} bytes at its peak");
    assert_eq!(a.score, score(&query, &subject, &sc).score);
    assert_eq!(a.rescore(&query, &subject, &sc), a.score as i64);
    assert!(a.query_start >= 28_900 && a.length() > 4_000, "{}..{}", a.query_start, a.query_end);
    eprintln!("35,000 x {} traceback: peak {:.1} MB, {} columns", subject.len(), peak as f64 / 1e6, a.length());
}

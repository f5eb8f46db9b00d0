//! The native scan at 32 bits: the global and glocal modes ([`Mode`]; the recurrences
//! are [`crate::reference`]'s), and the local mode's subjects that 16 bits cannot hold
//! (its scorings past 16 bits, the pairs whose word lanes saturated: [`super`]). One
//! subject per 32-bit lane, walked column by column as [`super::swipe`] walks them
//! (column j holds residue j of every lane's subject, the query's rows run down it),
//! the subjects sorted by length and batched so that the lanes of a batch end together,
//! the batches run longest first ([`super::schedule`]).
//!
//! Why not the byte and word kernels in the global and glocal modes: their lanes are
//! unsigned and floored at 0, which is the local recurrence itself, while here H has no
//! floor, the edges charge end gaps and scores are often negative. 32 bits hold every
//! cell exactly (the callers' [`Scoring::check_lengths`] bounds the sums, [`NEG_INF`]
//! stands for minus infinity, and the arithmetic is the reference's, operation for
//! operation), so there is one pass and nothing to recompute.
//!
//! A batch is two vectors of the level's 32-bit lanes (two dependency chains down the
//! rows: 32 subjects with AVX-512, 16 with AVX2, 8 with SSE4.1; 16 portable lanes
//! elsewhere), on `std::arch` as [`super::vectors`] is. Plain arrays were tried first:
//! the compiler's vectors for them came out at a third to a half of these, and scalar
//! for some lane counts.
//!
//! A lane past its subject's end goes on with a padding residue, and its result is
//! read where its subject ends: global, the last row's H at the lane's last column;
//! glocal, the last row's H folded over the lane's own columns only (strictly higher
//! replaces, so the smallest column wins), from H(m, 0). The end costs nothing extra
//! (the last row, at a known column), so both [`super::Report`]s get it. The local mode
//! folds every cell (its end can be anywhere), at two more operations a cell.
//!
//! Fewer subjects than a batch's lanes (the few pairs a device scan saturated, which
//! it recomputes here) go one pair at a time on all the lanes instead ([`align_pair`]):
//! Farrar's striped layout, the query's rows dealt to the lanes in stripes, as
//! [`super::striped`] does for the local mode's 16-bit pass, in 32-bit lanes. One
//! subject alone in a batch used one lane of 16 to 32 (a 4,548-residue global pair took
//! 0.15 s).

use super::{Level, schedule};
use crate::reference::{LocalScore, NEG_INF};
use crate::scan::ScanOutput;
use crate::scoring::{Mode, Scoring};

/// The most lanes a batch has (AVX-512's two vectors).
const MAX_LANES: usize = 32;

/// A batch's lanes: two vectors of 32-bit lanes, wrapping arithmetic (no sum comes
/// near the ends of `i32`: see the module header).
///
/// # Safety
/// Every method may only be called on a processor that has the type's instruction-set
/// level ([`Level::supported`]); the portable type has no such condition.
trait Lanes: Copy {
    const LANES: usize;
    unsafe fn splat(v: i32) -> Self;
    unsafe fn add(self, o: Self) -> Self;
    unsafe fn sub(self, o: Self) -> Self;
    unsafe fn max(self, o: Self) -> Self;
    /// `a` in the lanes where `self > o`, `b` in the others.
    unsafe fn select_gt(self, o: Self, a: Self, b: Self) -> Self;
    /// The first `LANES` values of `v`.
    unsafe fn load(v: &[i32; MAX_LANES]) -> Self;
    /// The lanes' values, in the first `LANES` places.
    unsafe fn values(self) -> [i32; MAX_LANES];
}

/// Sixteen lanes as a plain array, for every processor.
#[derive(Clone, Copy)]
struct Portable([i32; 16]);

impl Lanes for Portable {
    const LANES: usize = 16;
    #[inline(always)]
    unsafe fn splat(v: i32) -> Self {
        Portable([v; 16])
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        Portable(std::array::from_fn(|l| self.0[l].wrapping_add(o.0[l])))
    }
    #[inline(always)]
    unsafe fn sub(self, o: Self) -> Self {
        Portable(std::array::from_fn(|l| self.0[l].wrapping_sub(o.0[l])))
    }
    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        Portable(std::array::from_fn(|l| self.0[l].max(o.0[l])))
    }
    #[inline(always)]
    unsafe fn select_gt(self, o: Self, a: Self, b: Self) -> Self {
        Portable(std::array::from_fn(|l| if self.0[l] > o.0[l] { a.0[l] } else { b.0[l] }))
    }
    #[inline(always)]
    unsafe fn load(v: &[i32; MAX_LANES]) -> Self {
        Portable(std::array::from_fn(|l| v[l]))
    }
    #[inline(always)]
    unsafe fn values(self) -> [i32; MAX_LANES] {
        std::array::from_fn(|l| if l < 16 { self.0[l] } else { 0 })
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! Two registers per batch at each level, and the kernel compiled once per level
    //! (a `#[target_feature]` entry each) so that the intrinsics inline: the crate is
    //! built for baseline x86-64.
    use super::{Lanes, MAX_LANES, Tables, Work, align};
    use crate::reference::LocalScore;
    use std::arch::x86_64::*;

    macro_rules! pair {
        ($name:ident, $feature:literal, $entry:ident: 2 x $width:literal lanes of $reg:ty, $set1:ident,
         $add:ident, $sub:ident, $max:ident, $load:ident, $store:ident,
         select |$x:ident, $y:ident, $a:ident, $b:ident| $select:expr) => {
            #[derive(Clone, Copy)]
            pub(super) struct $name([$reg; 2]);

            // Every method: the processor has the level (the trait's contract), the
            // intrinsics' one condition besides valid pointers for the loads and stores.
            impl Lanes for $name {
                const LANES: usize = 2 * $width;
                #[inline(always)]
                unsafe fn splat(v: i32) -> Self {
                    // SAFETY: the level (see above).
                    unsafe { $name([$set1(v); 2]) }
                }
                #[inline(always)]
                unsafe fn add(self, o: Self) -> Self {
                    // SAFETY: the level (see above).
                    unsafe { $name([$add(self.0[0], o.0[0]), $add(self.0[1], o.0[1])]) }
                }
                #[inline(always)]
                unsafe fn sub(self, o: Self) -> Self {
                    // SAFETY: the level (see above).
                    unsafe { $name([$sub(self.0[0], o.0[0]), $sub(self.0[1], o.0[1])]) }
                }
                #[inline(always)]
                unsafe fn max(self, o: Self) -> Self {
                    // SAFETY: the level (see above).
                    unsafe { $name([$max(self.0[0], o.0[0]), $max(self.0[1], o.0[1])]) }
                }
                #[inline(always)]
                unsafe fn select_gt(self, o: Self, a: Self, b: Self) -> Self {
                    let half = |k: usize| {
                        let ($x, $y, $a, $b) = (self.0[k], o.0[k], a.0[k], b.0[k]);
                        // SAFETY: the level (see above).
                        unsafe { $select }
                    };
                    $name([half(0), half(1)])
                }
                #[inline(always)]
                unsafe fn load(v: &[i32; MAX_LANES]) -> Self {
                    // SAFETY: the level (see above); the two unaligned loads read the
                    // first 2 * $width <= MAX_LANES values of `v`.
                    unsafe { $name([$load(v.as_ptr().cast()), $load(v[$width..].as_ptr().cast())]) }
                }
                #[inline(always)]
                unsafe fn values(self) -> [i32; MAX_LANES] {
                    let mut v = [0; MAX_LANES];
                    // SAFETY: the level (see above); the two unaligned stores write the
                    // first 2 * $width <= MAX_LANES values of `v`.
                    unsafe {
                        $store(v.as_mut_ptr().cast(), self.0[0]);
                        $store(v[$width..].as_mut_ptr().cast(), self.0[1]);
                    }
                    v
                }
            }

            /// [`align`] compiled for the level.
            #[target_feature(enable = $feature)]
            pub(super) fn $entry(query: &[u8], work: Work, t: &Tables) -> Vec<LocalScore> {
                // SAFETY: a `#[target_feature]` function runs only where the processor has
                // the feature (its callers' contract), here the level of `$name`.
                unsafe { align::<$name>(query, work, t) }
            }
        };
    }

    pair! { Avx512, "avx512f", avx512: 2 x 16 lanes of __m512i,
    _mm512_set1_epi32, _mm512_add_epi32, _mm512_sub_epi32, _mm512_max_epi32, _mm512_loadu_si512, _mm512_storeu_si512,
    select |x, y, a, b| _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(x, y), b, a) }
    pair! { Avx2, "avx2", avx2: 2 x 8 lanes of __m256i,
    _mm256_set1_epi32, _mm256_add_epi32, _mm256_sub_epi32, _mm256_max_epi32, _mm256_loadu_si256, _mm256_storeu_si256,
    select |x, y, a, b| _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi32(x, y)) }
    pair! { Sse41, "sse4.1", sse41: 2 x 4 lanes of __m128i,
    _mm_set1_epi32, _mm_add_epi32, _mm_sub_epi32, _mm_max_epi32, _mm_loadu_si128, _mm_storeu_si128,
    select |x, y, a, b| _mm_blendv_epi8(b, a, _mm_cmpgt_epi32(x, y)) }
}

/// A scoring and query as the kernel reads them, built once per scan.
struct Tables<'a> {
    mode: Mode,
    /// The scoring's rows ([`crate::scoring::QueryRows`]: a matrix's, or a profile's
    /// a position), `letters` scores each, and the row each query position takes.
    scores: &'a [i32],
    letters: usize,
    keys: Vec<u32>,
    /// The rows the query takes: a column's scores are built for these only.
    used: Vec<u32>,
    open_extend: i32,
    extend: i32,
    /// H(0, j) for j = 0..=n, n the longest subject.
    top: Vec<i32>,
    /// H(i, 0) for i = 0..=m.
    left: Vec<i32>,
}

impl<'a> Tables<'a> {
    fn new(query: &[u8], longest: usize, sc: &'a Scoring) -> Tables<'a> {
        let rows = sc.rows(query);
        let mut used = rows.keys.clone();
        used.sort_unstable();
        used.dedup();
        Tables {
            mode: sc.mode,
            scores: rows.table,
            letters: rows.letters,
            keys: rows.keys,
            used,
            open_extend: sc.gaps.open + sc.gaps.extend,
            extend: sc.gaps.extend,
            top: sc.mode.top_row(longest, sc),
            left: (0..=query.len()).map(|i| if i == 0 { 0 } else { sc.mode.left_edge(i, sc) }).collect(),
        }
    }
}

/// Every subject's score and end against `query` in the scoring's mode, at `level` (a
/// supported level). Query codes are below the matrix's size (the caller asserts it),
/// subject codes too (the callers' code checks).
pub(super) fn scan<S: AsRef<[u8]> + Sync>(level: Level, query: &[u8], subjects: &[S], sc: &Scoring) -> ScanOutput {
    debug_assert!(level.supported());
    if subjects.len() < lanes(level) && !query.is_empty() {
        // Too few for a batch.
        return pairs(level, query, subjects, sc);
    }
    let len = |k: usize| subjects[k].as_ref().len();
    let mut order: Vec<usize> = (0..subjects.len()).collect();
    order.sort_by_key(|&k| len(k));
    let t = Tables::new(query, order.last().map_or(0, |&k| len(k)), sc);
    // Sorted by length, a batch's last subject is its longest.
    let batches: Vec<&[usize]> = order.chunks(lanes(level)).collect();
    let found = schedule::longest_first(
        &batches,
        |b| b.last().map_or(0, |&k| len(k) as u64),
        |batch| {
            let residues: Vec<&[u8]> = batch.iter().map(|&k| subjects[k].as_ref()).collect();
            run(level, query, Work::Batch(&residues), &t)
        },
    );
    let mut out = ScanOutput::empty(subjects.len());
    for (&k, r) in batches.iter().flat_map(|b| b.iter()).zip(found.into_iter().flatten()) {
        out.scores[k] = r;
    }
    out
}

/// Every subject's score and end against a non-empty `query` in the scoring's mode,
/// each pair on all of `level`'s lanes ([`align_pair`]), the longest first on the
/// thread pool: for a few subjects, or long ones beside a short query.
pub(super) fn pairs<S: AsRef<[u8]> + Sync>(level: Level, query: &[u8], subjects: &[S], sc: &Scoring) -> ScanOutput {
    debug_assert!(level.supported() && !query.is_empty());
    let len = |k: usize| subjects[k].as_ref().len();
    let t = Tables::new(query, (0..subjects.len()).map(len).max().unwrap_or(0), sc);
    let tasks: Vec<usize> = (0..subjects.len()).collect();
    let found = schedule::longest_first(
        &tasks,
        |&k| len(k) as u64,
        |&k| run(level, query, Work::Pair(subjects[k].as_ref()), &t),
    );
    ScanOutput { scores: found.into_iter().flatten().collect(), ..ScanOutput::empty(0) }
}

/// Subjects per batch at `level`.
fn lanes(level: Level) -> usize {
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => x86::Avx512::LANES,
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => x86::Avx2::LANES,
        #[cfg(target_arch = "x86_64")]
        Level::Sse41 => x86::Sse41::LANES,
        _ => Portable::LANES,
    }
}

/// What one kernel call aligns against the query: a batch of at most
/// [`lanes`]`(level)` subjects, one to a lane, or one subject on all the lanes.
#[derive(Clone, Copy)]
enum Work<'a> {
    Batch(&'a [&'a [u8]]),
    Pair(&'a [u8]),
}

/// `work` through the kernel compiled for `level` (a supported level): each subject's
/// score and end.
fn run(level: Level, query: &[u8], work: Work, t: &Tables) -> Vec<LocalScore> {
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` is supported (this function's contract; the scan's level went
        // through Level::capped): the processor has AVX-512F.
        Level::Avx512 => unsafe { x86::avx512(query, work, t) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above: the processor has AVX2.
        Level::Avx2 => unsafe { x86::avx2(query, work, t) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above: the processor has SSE4.1.
        Level::Sse41 => unsafe { x86::sse41(query, work, t) },
        // SAFETY: the portable lanes run on any processor.
        _ => unsafe { align::<Portable>(query, work, t) },
    }
}

/// [`align_batch`] or [`align_pair`], as `work` asks.
///
/// # Safety
/// The processor has `V`'s instruction-set level.
#[inline(always)]
unsafe fn align<V: Lanes>(query: &[u8], work: Work, t: &Tables) -> Vec<LocalScore> {
    // SAFETY: the processor has V's level (this function's contract).
    unsafe {
        match (work, t.mode == Mode::Local) {
            (Work::Batch(batch), true) => align_batch::<V, true>(query, batch, t),
            (Work::Batch(batch), false) => align_batch::<V, false>(query, batch, t),
            (Work::Pair(subject), true) => vec![align_pair::<V, true>(query, subject, t)],
            (Work::Pair(subject), false) => vec![align_pair::<V, false>(query, subject, t)],
        }
    }
}

/// Up to `V::LANES` subjects against `query`, one per lane: each one's score and end.
///
/// In the local mode H has its floor of 0, and every cell is folded: a cell that beats
/// its lane's best (strictly: the walk is column by column, rows down each, so the
/// first of equal cells is the reference's end) records its row, and the column its
/// lane beat the best in ends the lane's alignment there. A lane past its subject's end
/// scores [`NEG_INF`] a cell, so its cells only fall from there (H - gap costs, or 0).
///
/// # Safety
/// The processor has `V`'s instruction-set level.
#[inline(always)]
unsafe fn align_batch<V: Lanes, const LOCAL: bool>(query: &[u8], batch: &[&[u8]], t: &Tables) -> Vec<LocalScore> {
    debug_assert!(batch.len() <= V::LANES && V::LANES <= MAX_LANES && LOCAL == (t.mode == Mode::Local));
    let m = query.len();
    let n = batch.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut lengths = [0; MAX_LANES];
    for (l, s) in batch.iter().enumerate() {
        lengths[l] = s.len();
    }
    // H(m, 0): an empty subject's score in both modes, the glocal fold's first (0 in
    // the local mode, whose best starts there).
    let mut best = [LocalScore { score: t.left[m], end: None }; MAX_LANES];
    // SAFETY: every method of V runs on a processor with V's level (this function's
    // contract); the rest is safe code.
    unsafe {
        let (oe, ext, neg_inf) = (V::splat(t.open_extend), V::splat(t.extend), V::splat(NEG_INF));
        let (zero, none, one) = (V::splat(0), V::splat(-1), V::splat(1));
        // The local mode's best of each lane so far.
        let mut top = V::splat(0);
        // H(i, j - 1) and E(i, j - 1) for i = 1..=m: column 0 to start.
        let mut h_col: Vec<V> = t.left[1..].iter().map(|&h| V::splat(h)).collect();
        let mut e_col = vec![neg_inf; m];
        // Row a's score against residue j of each lane, for the query's rows a.
        let mut column = vec![V::splat(0); t.scores.len() / t.letters.max(1)];
        let mut corner = V::splat(0); // H(0, j - 1)
        for j in 0..n {
            // Code 0 past a subject's end (the lane's result is read already), or in the
            // local mode minus infinity.
            let mut residues = [None; MAX_LANES];
            for (l, s) in batch.iter().enumerate() {
                residues[l] = s.get(j).map(|&c| c as usize);
            }
            for &a in &t.used {
                let row = &t.scores[a as usize * t.letters..][..t.letters];
                column[a as usize] = V::load(&std::array::from_fn(|l| match residues[l] {
                    Some(c) => row[c],
                    None if LOCAL => NEG_INF,
                    None => row[0],
                }));
            }
            // The rows below H(0, j): `diag` H(i - 1, j - 1), `up` H(i - 1, j), `f` F(i - 1, j).
            let (mut diag, mut up, mut f) = (corner, V::splat(t.top[j + 1]), neg_inf);
            corner = up;
            // The local mode's row, 0-based, of each lane's new best in this column; -1.
            let (mut beat, mut i) = (none, V::splat(0));
            for ((h, e), &q) in h_col.iter_mut().zip(&mut e_col).zip(&t.keys) {
                let left = *h;
                *e = left.sub(oe).max(e.sub(ext));
                f = up.sub(oe).max(f.sub(ext));
                *h = diag.add(column[q as usize]).max(*e).max(f);
                if LOCAL {
                    *h = h.max(zero);
                    beat = h.select_gt(top, i, beat);
                    top = top.max(*h);
                    i = i.add(one);
                }
                diag = left;
                up = *h;
            }
            if LOCAL {
                let (beat, top) = (beat.values(), top.values());
                for (l, b) in best[..batch.len()].iter_mut().enumerate() {
                    if beat[l] >= 0 {
                        *b = LocalScore { score: top[l], end: Some((beat[l] as usize, j)) };
                    }
                }
                continue;
            }
            // `up` is H(m, j + 1), the end (m - 1, j).
            let (last, end) = (up.values(), (m > 0).then_some((m - 1, j)));
            for (l, b) in best[..batch.len()].iter_mut().enumerate() {
                let read = match t.mode {
                    Mode::Global => j + 1 == lengths[l],
                    _ => j < lengths[l] && last[l] > b.score,
                };
                if read {
                    *b = LocalScore { score: last[l], end };
                }
            }
        }
    }
    best[..batch.len()].to_vec()
}

/// `V` with every lane moved up one (lane l takes lane l - 1's value) and `first` in
/// lane 0: the rows of one stripe's end handed to the next stripe's start.
///
/// # Safety
/// The processor has `V`'s instruction-set level.
#[inline(always)]
unsafe fn shift_in<V: Lanes>(v: V, first: i32) -> V {
    // SAFETY: the processor has V's level (this function's contract).
    unsafe {
        let x = v.values();
        V::load(&std::array::from_fn(|l| if l == 0 { first } else { x[l - 1] }))
    }
}

/// `query` against one non-empty `subject` on all of `V`'s lanes (Farrar's striped
/// layout): its score and end, the reference's.
///
/// With `seg = ceil(m / LANES)`, query row `i = lane * seg + s` (0-based) is lane
/// `lane` of stripe vector `s`; rows past `m` (the last lanes' tails) score 0 against
/// every letter and only ever feed rows past `m`. A column is walked stripe by stripe
/// with F carried down each lane; the F leaving a lane's last row enters the next
/// lane's first row after the walk (the "lazy F" loop), which goes on only while that
/// carry could still raise a cell: once it is at most H - (open + extend) in every
/// lane, F below comes from H anyway. E, along the subject, is each row's own state
/// from column to column, computed at the next column from this one's H, so the
/// carry's raises reach it.
///
/// In the local mode (H floored at 0) each column's finished H is folded: per lane its
/// highest cell and the first stripe holding it, then the lowest lane holding the
/// column's highest, whose rows come first. Rows past `m` never beat the best: each
/// is a real cell's H of an earlier column, or less.
///
/// # Safety
/// The processor has `V`'s instruction-set level.
#[inline(always)]
unsafe fn align_pair<V: Lanes, const LOCAL: bool>(query: &[u8], subject: &[u8], t: &Tables) -> LocalScore {
    debug_assert!(!query.is_empty() && V::LANES <= MAX_LANES && LOCAL == (t.mode == Mode::Local));
    let (m, n) = (query.len(), subject.len());
    let seg = m.div_ceil(V::LANES);
    let row = |lane: usize, s: usize| lane * seg + s;
    // Row m - 1's place: its lane and stripe.
    let (last_lane, last_s) = ((m - 1) / seg, (m - 1) % seg);
    // H(m, 0): the glocal fold's first (no end).
    let mut best = LocalScore { score: t.left[m], end: None };
    // SAFETY: every method of V runs on a processor with V's level (this function's
    // contract); the rest is safe code.
    unsafe {
        let (oe, ext, neg_inf) = (V::splat(t.open_extend), V::splat(t.extend), V::splat(NEG_INF));
        // The profile: per letter, stripe s's scores against every lane's row.
        let mut profile = Vec::with_capacity(t.letters * seg);
        for a in 0..t.letters {
            for s in 0..seg {
                let lanes: [i32; MAX_LANES] = std::array::from_fn(|l| {
                    let i = row(l, s);
                    if l < V::LANES && i < m { t.scores[t.keys[i] as usize * t.letters + a] } else { 0 }
                });
                profile.push(V::load(&lanes));
            }
        }
        // H(i, 0) and E(i, 0) to start: the left edge, minus infinity.
        let mut h_prev: Vec<V> = (0..seg)
            .map(|s| V::load(&std::array::from_fn(|l| t.left.get(row(l, s) + 1).copied().unwrap_or(0))))
            .collect();
        let mut h_cur = h_prev.clone();
        let mut e_col = vec![neg_inf; seg];
        let (zero, none, one) = (V::splat(0), V::splat(-1), V::splat(1));
        for j in 1..=n {
            let column = &profile[subject[j - 1] as usize * seg..][..seg];
            // H(i - 1, j - 1) for each lane's first row: the previous stripe end's, and
            // for lane 0 the top row's.
            let mut diag = shift_in(h_prev[seg - 1], t.top[j - 1]);
            // F(i, j) for each lane's first row: from the top row in lane 0; the other
            // lanes' come from the carry below.
            let mut f = shift_in(neg_inf, (t.top[j] - t.open_extend).max(NEG_INF - t.extend));
            for s in 0..seg {
                let left = h_prev[s];
                let e = left.sub(oe).max(e_col[s].sub(ext));
                e_col[s] = e;
                let mut h = diag.add(column[s]).max(e).max(f);
                if LOCAL {
                    h = h.max(zero);
                }
                h_cur[s] = h;
                f = h.sub(oe).max(f.sub(ext));
                diag = left;
            }
            // The carry: F leaving each lane's last row, into the next lane's first.
            let mut carry = shift_in(f, NEG_INF);
            'lazy: for _ in 0..V::LANES {
                for h in h_cur.iter_mut() {
                    let open_below = h.sub(oe);
                    if carry.max(open_below).sub(open_below).values().iter().all(|&d| d == 0) {
                        break 'lazy;
                    }
                    *h = h.max(carry);
                    // Floored: a lane's carry falls by `ext` a row for up to m rows,
                    // past i32's end in the local mode (no bound on m x extend there).
                    carry = carry.sub(ext).max(neg_inf);
                }
                carry = shift_in(carry, NEG_INF);
            }
            if LOCAL {
                // Each lane's highest cell of the column and its first stripe.
                let (mut high, mut first, mut s_v) = (zero, none, zero);
                for h in &h_cur {
                    first = h.select_gt(high, s_v, first);
                    high = high.max(*h);
                    s_v = s_v.add(one);
                }
                let (high, first) = (high.values(), first.values());
                let top = high[..V::LANES].iter().copied().max().unwrap_or(0);
                if top > best.score {
                    let lane = (0..V::LANES).find(|&l| high[l] == top).expect("a lane holds the column's highest");
                    best = LocalScore { score: top, end: Some((row(lane, first[lane] as usize), j - 1)) };
                }
                std::mem::swap(&mut h_prev, &mut h_cur);
                continue;
            }
            let last = h_cur[last_s].values()[last_lane];
            let read = match t.mode {
                Mode::Global => j == n,
                _ => last > best.score,
            };
            if read {
                best = LocalScore { score: last, end: Some((m - 1, j - 1)) };
            }
            std::mem::swap(&mut h_prev, &mut h_cur);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::{Report, rescore, scores, scores_at, scores_in_bytes, scores_past_bytes};
    use crate::reference::{self, LocalScore, testing::generator};
    use crate::scoring::{Gaps, Matrix, Mode, Scoring};
    use crate::seq::Alphabet;

    /// Random sequences of `letters` codes, lengths 0 to 300 (a few of each small one).
    fn sequences(rng: &mut impl FnMut(usize) -> usize, count: usize, letters: usize) -> Vec<Vec<u8>> {
        (0..count)
            .map(|k| {
                let len = if k % 10 == 0 { k % 4 } else { rng(301) };
                (0..len).map(|_| rng(letters) as u8).collect()
            })
            .collect()
    }

    /// Every entry point against the reference for `query`, in both modes.
    fn check(query: &[u8], subjects: &[Vec<u8>], local: &Scoring, what: &str) {
        for mode in [Mode::Global, Mode::Glocal] {
            let sc = local.clone().in_mode(mode);
            let want: Vec<_> = subjects.iter().map(|s| reference::score(query, s, &sc)).collect();
            let what = format!("{what}, {mode}, query of {}", query.len());
            for report in [Report::Ends, Report::Scores] {
                let out = scores(query, subjects, &sc, report).unwrap();
                assert_eq!(out.scores, want, "{what}, {report:?}");
                assert_eq!(out.recomputed, 0);
            }
            for level in super::Level::ALL.into_iter().filter(|l| l.supported()) {
                let out = scores_at(level, Report::Scores, query, subjects, &sc).unwrap();
                assert_eq!(out.scores, want, "{what}, level {level}");
            }
            let (bytes, past) = scores_in_bytes(query, subjects, &sc, Report::Ends).unwrap();
            assert!(past.is_empty(), "{what}: every subject scored in the first call");
            assert_eq!(bytes.scores, want, "{what}, in bytes");
            let some: Vec<&Vec<u8>> = subjects.iter().step_by(3).collect();
            let rest = scores_past_bytes(query, &some, &sc, Report::Scores).unwrap();
            assert_eq!(rest.scores, want.iter().step_by(3).copied().collect::<Vec<_>>(), "{what}, past bytes");
            let known = vec![0; subjects.len()];
            assert_eq!(rescore(query, subjects, &known, &sc).unwrap().scores, want, "{what}, rescore");
        }
    }

    #[test]
    fn global_and_glocal_protein_equal_the_reference() {
        let mut rng = generator(4242);
        let subjects = sequences(&mut rng, 120, 24);
        for (open, extend) in [(11, 1), (0, 4)] {
            let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(open, extend).unwrap());
            for m in [0, 1, 7, 150] {
                let query: Vec<u8> = (0..m).map(|_| rng(20) as u8).collect();
                check(&query, &subjects, &sc, &format!("BLOSUM62 {open}/{extend}"));
            }
        }
        // A subject equal to the query, and one in it.
        let query = subjects.iter().max_by_key(|s| s.len()).unwrap().clone();
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::linear(2).unwrap());
        check(&query, &[query.clone(), query[30..90].to_vec(), Vec::new()], &sc, "the query itself");
        // The edges: an empty subject costs the query's gap in both modes, an empty
        // query the subject's in the global mode only; neither has an end.
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let pairs: [(&[u8], &[u8]); 3] = [(&query[..7], &[]), (&[], &query[..5]), (&[], &[])];
        for (mode, want) in [(Mode::Global, [-18, -16, 0]), (Mode::Glocal, [-18, 0, 0])] {
            let sc = sc.clone().in_mode(mode);
            for ((q, s), want) in pairs.into_iter().zip(want) {
                let got = scores(q, &[s], &sc, Report::Ends).unwrap().scores[0];
                assert_eq!(got, LocalScore { score: want, end: None }, "{mode}, {} x {}", q.len(), s.len());
            }
        }
    }

    #[test]
    fn global_and_glocal_dna_and_scores_past_16_bits_equal_the_reference() {
        let mut rng = generator(99);
        let subjects = sequences(&mut rng, 100, 5);
        let query: Vec<u8> = (0..280).map(|_| rng(5) as u8).collect();
        // Match 5,000: sums pass 16 bits upward (a close subject) and downward.
        let mut close = query[10..270].to_vec();
        close[100] = (close[100] + 1) % 4;
        let subjects: Vec<Vec<u8>> = subjects.into_iter().chain([close]).collect();
        let big = |hit: i32, miss: i32| Matrix::match_mismatch(Alphabet::Dna, hit, miss).unwrap();
        for (matrix, gaps) in [
            (big(5, -4), Gaps::affine(10, 1)),
            (big(5_000, -4_000), Gaps::affine(9_000, 300)),
            (big(2, -3), Gaps::linear(5)),
        ] {
            let what = format!("DNA {}/{}", matrix.max_score(), matrix.min_score());
            check(&query, &subjects, &Scoring::new(matrix, gaps.unwrap()), &what);
        }
        for mode in [Mode::Global, Mode::Glocal] {
            let sc = Scoring::new(big(5_000, -4_000), Gaps::affine(9_000, 300).unwrap()).in_mode(mode);
            let out = scores(&query, &subjects, &sc, Report::Ends).unwrap();
            assert!(out.scores.iter().any(|r| r.score > i16::MAX as i32), "{mode}");
            assert!(out.scores.iter().any(|r| r.score < i16::MIN as i32), "{mode}");
        }
    }

    /// One pair on all the lanes (`align_pair`, what a scan of fewer subjects than a
    /// batch's lanes runs) at every supported level: queries shorter than the lanes, a
    /// whole number of stripes and one row past, subjects from 1 residue to 900, DNA
    /// scores past 16 bits both ways, equal to the reference in every mode.
    #[test]
    fn one_pair_on_all_lanes_equals_the_reference() {
        let mut rng = generator(2718);
        let mut protein = |n: usize| -> Vec<u8> { (0..n).map(|_| rng(24) as u8).collect() };
        let queries: Vec<Vec<u8>> = [1, 2, 7, 15, 16, 17, 32, 33, 150, 301].iter().map(|&m| protein(m)).collect();
        let mut subjects: Vec<Vec<u8>> = [1, 3, 40, 200, 900].iter().map(|&n| protein(n)).collect();
        // Close relatives: long runs of matches, and a gap in each.
        let long = &queries[9];
        subjects.push([&long[..100], &long[130..]].concat());
        subjects.push([&long[..50], &protein(20)[..], &long[50..]].concat());
        let big = Scoring::new(
            Matrix::match_mismatch(Alphabet::Dna, 5_000, -4_000).unwrap(),
            Gaps::affine(9_000, 300).unwrap(),
        );
        let dna: Vec<Vec<u8>> = queries.iter().map(|q| q.iter().map(|&c| c % 4).collect()).collect();
        for (local, letters) in [
            (Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()), 24),
            (Scoring::new(Matrix::builtin("BLOSUM50").unwrap(), Gaps::linear(3).unwrap()), 24),
            (big, 4),
        ] {
            for mode in [Mode::Global, Mode::Glocal, Mode::Local] {
                let sc = local.clone().in_mode(mode);
                let set = if letters == 4 { &dna } else { &queries };
                for query in set {
                    for subject in subjects.iter().chain([query]) {
                        let subject: Vec<u8> = subject.iter().map(|&c| c % letters as u8).collect();
                        let want = reference::score(query, &subject, &sc);
                        let t = super::Tables::new(query, subject.len(), &sc);
                        for level in super::Level::ALL.into_iter().filter(|l| l.supported()) {
                            let got = super::run(level, query, super::Work::Pair(&subject), &t)[0];
                            let what =
                                format!("{mode} {}, {level}, {} x {}", sc.matrix.name(), query.len(), subject.len());
                            assert_eq!(got, want, "{what}");
                        }
                    }
                }
            }
        }
    }

    /// The local mode at 32 bits, in batches at every supported level: scores and end
    /// cells equal to the reference's, ties included (repeats of a motif, whose first
    /// copy in the subject and then in the query is the end), lanes ending at every
    /// column, scores past 16 bits; and through [`scores`], which sends the subjects
    /// past 16 bits here (counted as recomputed).
    #[test]
    fn local_batches_at_32_bits_equal_the_reference() {
        let mut rng = generator(31337);
        let motif: Vec<u8> = (0..12).map(|_| rng(20) as u8).collect();
        let query: Vec<u8> =
            [&motif[..], &[5, 6][..], &motif[..], &(0..120).map(|_| rng(20) as u8).collect::<Vec<_>>()].concat();
        let mut subjects = sequences(&mut rng, 70, 20);
        subjects.push([&motif[..], &[1][..], &motif[..]].concat());
        subjects.push([&query[30..], &query[..]].concat());
        subjects.push(query.clone());
        let dna: Vec<Vec<u8>> = subjects.iter().map(|s| s.iter().map(|&c| c % 4).collect()).collect();
        let dna_query: Vec<u8> = query.iter().map(|&c| c % 4).collect();
        for (sc, query, subjects) in [
            (Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()), &query, &subjects),
            (Scoring::new(Matrix::builtin("BLOSUM50").unwrap(), Gaps::affine(0, 1).unwrap()), &query, &subjects),
            (
                Scoring::new(
                    Matrix::match_mismatch(Alphabet::Dna, 5_000, -4_000).unwrap(),
                    Gaps::affine(9_000, 300).unwrap(),
                ),
                &dna_query,
                &dna,
            ),
        ] {
            let want: Vec<_> = subjects.iter().map(|s| reference::score(query, s, &sc)).collect();
            let what = sc.matrix.name();
            for level in super::Level::ALL.into_iter().filter(|l| l.supported()) {
                let got = super::scan(level, query, subjects, &sc);
                assert_eq!(got.scores, want, "{what}, {level}");
                let got = super::scan(level, &query[..1], &subjects[..3], &sc);
                let one: Vec<_> = subjects[..3].iter().map(|s| reference::score(&query[..1], s, &sc)).collect();
                assert_eq!(got.scores, one, "{what}, {level}, a query of one residue, in pairs");
            }
            let out = scores(query, subjects, &sc, Report::Ends).unwrap();
            assert_eq!(out.scores, want, "{what}, through the passes");
            // Every score past 16 bits came from here; the DNA scoring has some.
            let past = want.iter().filter(|r| r.score > i16::MAX as i32).count();
            assert!(out.recomputed >= past, "{what}: {} recomputed, {past} past 16 bits", out.recomputed);
            assert!(sc.matrix.alphabet() != Alphabet::Dna || past > 0, "{what}: no score past 16 bits");
        }
    }

    /// A pair whose lazy-F carry walks more rows than minus infinity has room for at
    /// this gap extension (1,800 rows x 1,000,000): the local mode's scores must not
    /// wrap (it has no bound on m x extend; the other modes have).
    #[test]
    fn a_long_carry_of_costly_gaps_does_not_wrap() {
        let sc = Scoring::new(
            Matrix::match_mismatch(Alphabet::Dna, 1_000_000, -1_000_000).unwrap(),
            Gaps::linear(1_000_000).unwrap(),
        );
        let query: Vec<u8> = [vec![0u8; 1_800], vec![1u8; 1_800]].concat();
        let subject = vec![0u8; 1_800];
        let want = reference::score(&query, &subject, &sc);
        let t = super::Tables::new(&query, subject.len(), &sc);
        for level in super::Level::ALL.into_iter().filter(|l| l.supported()) {
            let got = super::run(level, &query, super::Work::Pair(&subject), &t)[0];
            assert_eq!(got, want, "{level}");
        }
    }

    #[test]
    fn the_local_mode_takes_the_byte_and_word_kernels() {
        let mut rng = generator(7);
        let subjects = sequences(&mut rng, 60, 24);
        let query: Vec<u8> = (0..120).map(|_| rng(20) as u8).collect();
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let want: Vec<_> = subjects.iter().map(|s| reference::score(&query, s, &sc)).collect();
        for report in [Report::Ends, Report::Scores] {
            let got = scores(&query, &subjects, &sc, report).unwrap().scores;
            assert!(got.iter().zip(&want).all(|(g, w)| g.score == w.score), "{report:?}");
        }
        assert_eq!(scores(&query, &subjects, &sc, Report::Ends).unwrap().scores, want);
        // The byte pass scores these; it leaves a subject whose local score passes its
        // 127 for the next passes, which the modes kernel never does.
        let (bytes, past) = scores_in_bytes(&query, &subjects, &sc, Report::Ends).unwrap();
        assert_eq!((bytes.scores, past), (want, vec![]));
        let w = vec![17u8; 40]; // W/W scores 11: 440
        let (bytes, past) = scores_in_bytes(&w, std::slice::from_ref(&w), &sc, Report::Ends).unwrap();
        assert_eq!((bytes.scores[0].score, past), (0, vec![0]), "a local score past 127 leaves the bytes");
        let glocal = sc.in_mode(Mode::Glocal);
        assert_eq!(scores_in_bytes(&w, std::slice::from_ref(&w), &glocal, Report::Ends).unwrap().1, [] as [usize; 0]);
    }
}

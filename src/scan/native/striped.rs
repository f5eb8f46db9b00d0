//! One pair on all SIMD lanes: Farrar's striped Smith-Waterman, 16-bit, on the CPU.
//!
//! The query's rows are dealt to the 16 lanes in stripes: with `seg = ceil(m / 16)`
//! segments, row `i = lane * seg + s` lives in lane `lane` of segment `s`, so a column
//! of the matrix is `seg` vectors and the cells of one vector never depend on each
//! other within a column. The recurrence is [`crate::reference`]'s, with
//! `oe = open + extend` subtracted once from H where the reference subtracts `open`
//! and then `extend`.
//!
//! A column is computed segment by segment with F carried down each lane; the F that
//! crosses from the last row of a lane to the first row of the next (the stripe's
//! seam) is then added by the "lazy F" loop, which walks the column again only while
//! that carry can still raise a cell. Lanes are plain `[i16; 16]` arrays whose loops
//! the compiler turns into vector instructions (AVX2 chosen at run time, SSE2 else),
//! as in [`super`] ([`super::lanes`]).
//!
//! [`reach`] is what the alignment of a hit needs (see [`crate::traceback::from_end`]): the
//! best score of a pair and, among the cells holding a given score, the last row and
//! the last column. [`score`] is what the native scan needs for the few subjects whose
//! inter-sequence lanes saturated: the reference's score and end cell. Scores that may
//! have saturated 16 bits give `None` (the caller takes the 32-bit path).

use super::lanes::{LANES, Lanes, add, lanes_hold, max, splat};
use crate::error::Result;
use crate::memory;
use crate::reference::LocalScore;
use crate::scoring::Scoring;

/// Below any reachable E or F; far enough from `i16::MIN` that saturating
/// subtractions keep it below every H.
const NEG: i16 = i16::MIN / 2;

/// What [`reach`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// The pair's best local score (0 when no pair of residues scores above zero).
    pub best: i32,
    /// Among the cells whose H equals the target: the largest row (query position,
    /// 0-based) and the largest column (subject position), taken independently;
    /// `None` when no cell holds the target.
    pub last: Option<(usize, usize)>,
}

/// The best local score of `profile`'s query against `subject`, and the last row and
/// column holding `target`. `None` when 16-bit arithmetic could have saturated (the
/// best or the target within the matrix's largest score of 32,767).
pub fn reach(profile: &Profile, subject: &[u8], sc: &Scoring, target: i32) -> Result<Option<Reach>> {
    if !lanes_hold(target, sc) {
        return Ok(None);
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor supports AVX2 (checked just above).
            return unsafe { x86::reach(profile, subject, sc, target) };
        }
    }
    // SAFETY: plain arrays need no instruction set beyond the target's baseline.
    unsafe { reach_in::<Lanes>(profile, subject, sc, target) }
}

/// The pair's optimal local score and end cell, as [`crate::reference::score`]
/// gives them (the end rule: the smallest column, then the smallest row, among the
/// cells holding the best score), for the query of `profile`. `None` when 16-bit
/// arithmetic could have saturated.
pub fn score(profile: &Profile, subject: &[u8], sc: &Scoring) -> Result<Option<LocalScore>> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor supports AVX2 (checked just above).
            return unsafe { x86::score(profile, subject, sc) };
        }
    }
    // SAFETY: plain arrays need no instruction set beyond the target's baseline.
    unsafe { score_in::<Lanes>(profile, subject, sc) }
}

/// A query's scores against every letter, striped: built once, shared by every
/// subject scored against the query (2 bytes per residue and letter).
pub struct Profile {
    /// The query's length.
    m: usize,
    seg: usize,
    /// `cells[a * seg + s][l]`: the score of row `l * seg + s` against letter `a`;
    /// rows past the query score NEG, so they never hold a positive H of their own.
    cells: Vec<Lanes>,
}

impl Profile {
    /// The bytes of the profile of a query of `len` residues.
    pub fn bytes(len: usize, sc: &Scoring) -> u128 {
        memory::bytes_of::<Lanes>(len.div_ceil(LANES)) * sc.matrix.size() as u128
    }

    /// The profile of `query`, taken fallibly ([`memory`]).
    pub fn new(query: &[u8], sc: &Scoring) -> Result<Profile> {
        Profile::of_rows(query.len(), sc, |i, a| sc.score_at(i, query[i], a))
    }

    /// The profile of `query`'s first `end + 1` residues read backwards (row `p` is
    /// position `end - p`): [`reach`]'s, from a hit's end cell. A profile's rows go
    /// with their positions.
    pub fn reversed_prefix(query: &[u8], end: usize, sc: &Scoring) -> Result<Profile> {
        Profile::of_rows(end + 1, sc, |p, a| sc.score_at(end - p, query[end - p], a))
    }

    /// The profile of `m` rows, row `i` scoring letter `a` with `score(i, a)`.
    fn of_rows(m: usize, sc: &Scoring, score: impl Fn(usize, u8) -> i32) -> Result<Profile> {
        let seg = m.div_ceil(LANES);
        let letters = sc.matrix.size();
        let what = || format!("the striped profile of a query of {m} residues");
        let count = memory::count(what(), &[letters, seg])?;
        let cells = memory::collect(
            what(),
            (0..count).map(|k| {
                let (a, s) = (k / seg, k % seg);
                std::array::from_fn(|l| if l * seg + s < m { score(l * seg + s, a as u8) as i16 } else { NEG })
            }),
        )?;
        Ok(Profile { m, seg, cells })
    }
}

/// Sixteen signed 16-bit lanes: the plain arrays of [`super::lanes`] (any processor,
/// and the readable twin) or an AVX2 register.
///
/// # Safety
/// Every method may only be called on a processor that has the type's instruction set
/// (AVX2 for the register; the arrays need none beyond the target's baseline).
trait Stripe: Copy {
    unsafe fn splat(v: i16) -> Self;
    unsafe fn load(v: &Lanes) -> Self;
    unsafe fn lanes(self) -> Lanes;
    /// Saturating addition.
    unsafe fn add(self, o: Self) -> Self;
    unsafe fn max(self, o: Self) -> Self;
    /// Lane `l` takes lane `l - 1`'s value; lane 0 takes `fill`: a stripe's last row
    /// feeding the next stripe's first.
    unsafe fn shift(self, fill: i16) -> Self;
    unsafe fn any_greater(self, o: Self) -> bool;
    unsafe fn top(self) -> i16;
}

impl Stripe for Lanes {
    #[inline(always)]
    unsafe fn splat(v: i16) -> Self {
        splat(v)
    }
    #[inline(always)]
    unsafe fn load(v: &Lanes) -> Self {
        *v
    }
    #[inline(always)]
    unsafe fn lanes(self) -> Lanes {
        self
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        add(self, o)
    }
    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        max(self, o)
    }
    #[inline(always)]
    unsafe fn shift(self, fill: i16) -> Self {
        std::array::from_fn(|l| if l == 0 { fill } else { self[l - 1] })
    }
    #[inline(always)]
    unsafe fn any_greater(self, o: Self) -> bool {
        self.iter().zip(&o).fold(false, |acc, (x, y)| acc | (x > y))
    }
    #[inline(always)]
    unsafe fn top(self) -> i16 {
        self.into_iter().max().unwrap_or(0)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The kernel on AVX2 registers: the compiler did not vectorize the arrays' lane
    //! shift and compares (0.8 GCUPS a thread, a tenth of the inter-sequence kernel).
    use super::*;
    use std::arch::x86_64::*;

    #[derive(Clone, Copy)]
    pub(super) struct Avx2(__m256i);

    // Every method's block: the caller promised a processor with AVX2 (Stripe's
    // contract); the methods are instantiated inside the `avx2` functions below.
    impl Stripe for Avx2 {
        #[inline(always)]
        unsafe fn splat(v: i16) -> Self {
            // SAFETY: the processor has AVX2 (the caller's promise).
            unsafe { Avx2(_mm256_set1_epi16(v)) }
        }
        #[inline(always)]
        unsafe fn load(v: &Lanes) -> Self {
            // SAFETY: `v` is 16 i16 lanes, 32 bytes, one register, loaded unaligned; the
            // processor has AVX2 (the caller's promise).
            unsafe { Avx2(_mm256_loadu_si256(v.as_ptr() as *const __m256i)) }
        }
        #[inline(always)]
        unsafe fn lanes(self) -> Lanes {
            let mut out = [0i16; LANES];
            // SAFETY: `out` is 16 i16 lanes, 32 bytes, one register, stored unaligned; the
            // processor has AVX2 (the caller's promise).
            unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, self.0) };
            out
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            // SAFETY: the processor has AVX2 (the caller's promise).
            unsafe { Avx2(_mm256_adds_epi16(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn max(self, o: Self) -> Self {
            // SAFETY: the processor has AVX2 (the caller's promise).
            unsafe { Avx2(_mm256_max_epi16(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn shift(self, fill: i16) -> Self {
            // SAFETY: the processor has AVX2 (the caller's promise).
            unsafe {
                // [0, low half] beside [low half, high half]: shifted by one 16-bit lane.
                let low_up = _mm256_permute2x128_si256(self.0, self.0, 0x08);
                let shifted = _mm256_alignr_epi8(self.0, low_up, 14);
                Avx2(_mm256_insert_epi16(shifted, fill, 0))
            }
        }
        #[inline(always)]
        unsafe fn any_greater(self, o: Self) -> bool {
            // SAFETY: the processor has AVX2 (the caller's promise).
            unsafe { _mm256_movemask_epi8(_mm256_cmpgt_epi16(self.0, o.0)) != 0 }
        }
        #[inline(always)]
        unsafe fn top(self) -> i16 {
            // SAFETY: the processor has AVX2 (the caller's promise).
            unsafe {
                let m = _mm_max_epi16(_mm256_castsi256_si128(self.0), _mm256_extracti128_si256(self.0, 1));
                let m = _mm_max_epi16(m, _mm_shuffle_epi32(m, 0b01_00_11_10));
                let m = _mm_max_epi16(m, _mm_shuffle_epi32(m, 0b10_11_00_01));
                let m = _mm_max_epi16(m, _mm_srli_epi32(m, 16));
                _mm_extract_epi16(m, 0) as i16
            }
        }
    }

    /// [`super::reach`] on AVX2 registers.
    ///
    /// # Safety
    /// The processor has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn reach(profile: &Profile, subject: &[u8], sc: &Scoring, target: i32) -> Result<Option<Reach>> {
        // SAFETY: the processor has AVX2, Avx2's instruction set (this function's contract).
        unsafe { reach_in::<Avx2>(profile, subject, sc, target) }
    }

    /// [`super::score`] on AVX2 registers.
    ///
    /// # Safety
    /// The processor has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn score(profile: &Profile, subject: &[u8], sc: &Scoring) -> Result<Option<LocalScore>> {
        // SAFETY: the processor has AVX2, Avx2's instruction set (this function's contract).
        unsafe { score_in::<Avx2>(profile, subject, sc) }
    }
}

/// The striped matrix of one pair, walked column by column.
struct Columns<'p, V> {
    seg: usize,
    profile: &'p [Lanes],
    minus_oe: V,
    minus_ext: V,
    h_load: Vec<V>,
    /// H of the column computed last.
    h_store: Vec<V>,
    e: Vec<V>,
}

impl<'p, V: Stripe> Columns<'p, V> {
    /// For a query of at least one residue, with a scoring that fits 16 bits.
    ///
    /// # Safety
    /// The processor has `V`'s instruction set.
    #[inline(always)]
    unsafe fn new(profile: &'p Profile, sc: &Scoring) -> Result<Columns<'p, V>> {
        let seg = profile.seg;
        let what = || format!("the columns of a striped pass over a query of {} residues", profile.m);
        // SAFETY: the processor has V's instruction set (this function's contract).
        let (zero, neg) = unsafe { (V::splat(0), V::splat(NEG)) };
        Ok(Columns {
            seg,
            profile: &profile.cells,
            // SAFETY: as above.
            minus_oe: unsafe { V::splat(-((sc.gaps.open + sc.gaps.extend) as i16)) },
            // SAFETY: as above.
            minus_ext: unsafe { V::splat(-(sc.gaps.extend as i16)) },
            h_load: memory::vec_filled(what(), seg, zero)?,
            h_store: memory::vec_filled(what(), seg, zero)?,
            e: memory::vec_filled(what(), seg, neg)?,
        })
    }

    /// Computes the next column, against subject letter `c`; returns its largest H.
    ///
    /// # Safety
    /// The processor has `V`'s instruction set.
    #[inline(always)]
    unsafe fn next(&mut self, c: u8) -> i32 {
        let seg = self.seg;
        // SAFETY: the processor has V's instruction set (this function's contract).
        let (zero, neg) = unsafe { (V::splat(0), V::splat(NEG)) };
        let (minus_oe, minus_ext) = (self.minus_oe, self.minus_ext);
        let prof = &self.profile[c as usize * seg..(c as usize + 1) * seg];
        // H(i-1, j-1) for each lane's first row: the previous column's last segment.
        // SAFETY: as above.
        let mut h = unsafe { self.h_store[seg - 1].shift(0) };
        std::mem::swap(&mut self.h_load, &mut self.h_store);
        let (h_load, h_store, e) = (&self.h_load[..seg], &mut self.h_store[..seg], &mut self.e[..seg]);
        let mut f = neg;
        let mut col_max = zero;
        for s in 0..seg {
            // SAFETY: as above (every index here is checked).
            unsafe {
                h = h.add(V::load(&prof[s]));
                let es = e[s];
                h = h.max(es).max(f.max(zero));
                h_store[s] = h;
                col_max = col_max.max(h);
                let opened = h.add(minus_oe);
                e[s] = es.add(minus_ext).max(opened);
                f = f.add(minus_ext).max(opened);
            }
            h = h_load[s];
        }
        // Lazy F: carry F across the seams until it can raise no cell.
        // SAFETY: as above.
        f = unsafe { f.shift(NEG) };
        let mut s = 0;
        loop {
            let old = h_store[s];
            // SAFETY: as above (every index here is checked).
            unsafe {
                let h = old.max(f);
                h_store[s] = h;
                col_max = col_max.max(h);
                e[s] = e[s].max(h.add(minus_oe));
                // The next row's F was opened from `old` in the main loop: the carry
                // matters only where it beats that.
                f = f.add(minus_ext);
                if !f.any_greater(old.add(minus_oe)) {
                    break;
                }
            }
            s += 1;
            if s == seg {
                s = 0;
                // SAFETY: as above.
                f = unsafe { f.shift(NEG) };
            }
        }
        // SAFETY: as above.
        unsafe { col_max.top() as i32 }
    }

    /// The query rows (below `m`) of the last column whose H equals `value`.
    ///
    /// # Safety
    /// The processor has `V`'s instruction set (the iterator uses it as it goes).
    unsafe fn rows_holding(&self, value: i32, m: usize) -> impl Iterator<Item = usize> + '_ {
        let seg = self.seg;
        self.h_store.iter().enumerate().flat_map(move |(s, v)| {
            // SAFETY: the processor has V's instruction set (this function's contract;
            // the processor's features do not change while the iterator lives).
            unsafe { v.lanes() }
                .into_iter()
                .enumerate()
                .filter(move |&(l, x)| x as i32 == value && l * seg + s < m)
                .map(move |(l, _)| l * seg + s)
        })
    }
}

/// [`reach`] on stripes of `V`.
///
/// # Safety
/// The processor has `V`'s instruction set.
#[inline(always)]
unsafe fn reach_in<V: Stripe>(profile: &Profile, subject: &[u8], sc: &Scoring, target: i32) -> Result<Option<Reach>> {
    let m = profile.m;
    if m == 0 || subject.is_empty() {
        return Ok(Some(Reach { best: 0, last: None }));
    }
    // SAFETY: the processor has V's instruction set (this function's contract).
    let mut columns = unsafe { Columns::<V>::new(profile, sc) }?;
    let mut best = 0i32;
    let mut last: Option<(usize, usize)> = None;
    for (j, &c) in subject.iter().enumerate() {
        // SAFETY: as above.
        let top = unsafe { columns.next(c) };
        best = best.max(top);
        if top >= target && target > 0 {
            // SAFETY: as above.
            for row in unsafe { columns.rows_holding(target, m) } {
                last = Some(last.map_or((row, j), |(r, _)| (r.max(row), j)));
            }
        }
    }
    Ok(lanes_hold(best, sc).then_some(Reach { best, last }))
}

/// [`score`] on stripes of `V`.
///
/// # Safety
/// The processor has `V`'s instruction set.
#[inline(always)]
unsafe fn score_in<V: Stripe>(profile: &Profile, subject: &[u8], sc: &Scoring) -> Result<Option<LocalScore>> {
    if !lanes_hold(0, sc) {
        return Ok(None);
    }
    let m = profile.m;
    let mut best = LocalScore { score: 0, end: None };
    if m == 0 {
        return Ok(Some(best));
    }
    // SAFETY: the processor has V's instruction set (this function's contract).
    let mut columns = unsafe { Columns::<V>::new(profile, sc) }?;
    for (j, &c) in subject.iter().enumerate() {
        // SAFETY: as above.
        let top = unsafe { columns.next(c) };
        // A later column's equal score never replaces an end (the smallest column wins).
        if top > best.score {
            // SAFETY: as above.
            let row =
                unsafe { columns.rows_holding(top, m) }.min().expect("the column's best is in a row of the query");
            best = LocalScore { score: top, end: Some((row, j)) };
        }
    }
    Ok(lanes_hold(best.score, sc).then_some(best))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testing::generator;
    use crate::reference::{self, NEG_INF, advance_row};
    use crate::scoring::{Gaps, Matrix};

    /// The reference's answer, from its rows: the best score and the last row and
    /// column holding `target`.
    fn reference_reach(q: &[u8], s: &[u8], sc: &Scoring, target: i32) -> Reach {
        let mut h = vec![0i32; s.len() + 1];
        let mut f = vec![NEG_INF; s.len() + 1];
        let (mut rows, mut cols) = (None::<usize>, None::<usize>);
        for (i, &qi) in q.iter().enumerate() {
            advance_row(i + 1, qi, s, sc, &mut h, &mut f, None);
            for (j, &v) in h.iter().enumerate().skip(1) {
                if v == target && target > 0 {
                    rows = Some(i);
                    cols = Some(cols.map_or(j - 1, |c| c.max(j - 1)));
                }
            }
        }
        Reach { best: reference::score(q, s, sc).score, last: rows.zip(cols) }
    }

    #[test]
    fn score_and_reach_equal_the_reference_across_lengths_gaps_and_targets() {
        let mut next = generator(99);
        for (matrix, open, ext) in [("BLOSUM62", 11, 1), ("BLOSUM62", 0, 1), ("PAM30", 9, 1), ("EDNAFULL", 16, 4)] {
            let matrix = Matrix::builtin(matrix).unwrap();
            let alpha = if matrix.size() < 10 { 4 } else { 20 };
            let sc = Scoring::new(matrix, Gaps::affine(open, ext).unwrap());
            for round in 0..60 {
                let m = 1 + next(if round % 3 == 0 { 20 } else { 300 });
                let q: Vec<u8> = (0..m).map(|_| next(alpha) as u8).collect();
                let mut s: Vec<u8> = (0..1 + next(250)).map(|_| next(alpha) as u8).collect();
                if round % 2 == 0 && m > 4 {
                    // A shared stretch, with a gap, gives long alignments and lazy-F work.
                    let a = next(m / 2);
                    let piece: Vec<u8> =
                        q[a..].iter().copied().enumerate().filter(|(k, _)| k % 9 != 4).map(|x| x.1).collect();
                    let at = next(s.len());
                    s.splice(at..at, piece);
                }
                let exact = reference::score(&q, &s, &sc);
                let profile = Profile::new(&q, &sc).unwrap();
                assert_eq!(score(&profile, &s, &sc).unwrap(), Some(exact), "round {round}: score and end");
                // The arrays' twin, which the AVX2 registers replace where they can.
                // SAFETY: plain arrays need no instruction set beyond the target's baseline.
                let arrays = unsafe { score_in::<Lanes>(&profile, &s, &sc) };
                assert_eq!(arrays.unwrap(), Some(exact), "round {round}: arrays");
                let best = exact.score;
                for target in [best, best - 1, best / 2, 1] {
                    let want = reference_reach(&q, &s, &sc, target);
                    assert_eq!(
                        reach(&Profile::new(&q, &sc).unwrap(), &s, &sc, target).unwrap(),
                        Some(want),
                        "round {round} target {target}"
                    );
                    // SAFETY: plain arrays need no instruction set beyond the target's baseline.
                    let arrays = unsafe { reach_in::<Lanes>(&profile, &s, &sc, target) }.unwrap();
                    assert_eq!(arrays, Some(want), "round {round}, arrays");
                }
            }
        }
    }

    #[test]
    fn scores_past_16_bits_are_refused() {
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let w = vec![17u8; 3_100]; // W/W scores 11: 34,100 in all
        assert_eq!(reach(&Profile::new(&w, &sc).unwrap(), &w, &sc, 100).unwrap(), None);
        assert_eq!(reach(&Profile::new(&w, &sc).unwrap(), &w, &sc, 40_000).unwrap(), None);
        assert_eq!(score(&Profile::new(&w, &sc).unwrap(), &w, &sc).unwrap(), None);
        let short = Profile::new(&w[..100], &sc).unwrap();
        assert_eq!(score(&short, &w[..100], &sc).unwrap(), Some(reference::score(&w[..100], &w[..100], &sc)));
        let reached = reach(&Profile::new(&w[..100], &sc).unwrap(), &w[..100], &sc, 1_100).unwrap();
        assert_eq!(reached, Some(Reach { best: 1_100, last: Some((99, 99)) }));
    }
}

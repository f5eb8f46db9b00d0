//! One pair on all SIMD lanes: Farrar's striped Smith-Waterman, 16-bit, on the CPU.
//!
//! The query's rows are dealt to the 16 lanes in stripes: with `seg = ceil(m / 16)`
//! segments, row `i = lane * seg + s` lives in lane `lane` of segment `s`, so a column
//! of the matrix is `seg` vectors and the cells of one vector never depend on each
//! other within a column. The recurrence is the reference's (`src/reference`):
//!
//! ```text
//! E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - oe)      oe = open + extend
//! F(i,j) = max(F(i-1,j) - extend, H(i-1,j) - oe)
//! H(i,j) = max(H(i-1,j-1) + S(q_i, s_j), E(i,j), F(i,j), 0)
//! ```
//!
//! A column is computed segment by segment with F carried down each lane; the F that
//! crosses from the last row of a lane to the first row of the next (the stripe's
//! seam) is then added by the "lazy F" loop, which walks the column again only while
//! that carry can still raise a cell. Lanes are plain `[i16; 16]` arrays whose loops
//! the compiler turns into vector instructions (AVX2 chosen at run time, SSE2 else),
//! as in [`super::native`] ([`super::lanes`]).
//!
//! [`reach`] is what the alignment of a hit needs (see [`super::from_end`]): the
//! best score of a pair and, among the cells holding a given score, the last row and
//! the last column. Scores that may have saturated 16 bits give `None` (the caller
//! takes the 32-bit path).

use super::lanes::{LANES, Lanes, add, lanes_hold, max, splat};
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

/// The best local score of `query` against `subject`, and the last row and column
/// holding `target`. `None` when 16-bit arithmetic could have saturated (the best or
/// the target within the matrix's largest score of 32,767).
pub fn reach(query: &[u8], subject: &[u8], sc: &Scoring, target: i32) -> Option<Reach> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor supports AVX2 (checked just above).
            return unsafe { reach_avx2(query, subject, sc, target) };
        }
    }
    reach_portable(query, subject, sc, target)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn reach_avx2(query: &[u8], subject: &[u8], sc: &Scoring, target: i32) -> Option<Reach> {
    reach_portable(query, subject, sc, target)
}

/// Lane `l` takes lane `l - 1`'s value; lane 0 takes `fill`: a stripe's last row
/// feeding the next stripe's first.
#[inline(always)]
fn shift(v: Lanes, fill: i16) -> Lanes {
    std::array::from_fn(|l| if l == 0 { fill } else { v[l - 1] })
}

#[inline(always)]
fn any_greater(a: Lanes, b: Lanes) -> bool {
    a.iter().zip(&b).fold(false, |acc, (x, y)| acc | (x > y))
}

#[inline(always)]
fn reach_portable(query: &[u8], subject: &[u8], sc: &Scoring, target: i32) -> Option<Reach> {
    if !lanes_hold(target, sc) {
        return None;
    }
    let m = query.len();
    if m == 0 || subject.is_empty() {
        return Some(Reach { best: 0, last: None });
    }
    let seg = m.div_ceil(LANES);
    let letters = sc.matrix.size();
    // profile[a * seg + s][l]: the score of row l * seg + s against letter a; rows past
    // the query score NEG, so they never hold a positive H of their own.
    let mut profile = vec![splat(NEG); letters * seg];
    for (k, v) in profile.iter_mut().enumerate() {
        let (a, s) = (k / seg, k % seg);
        for (l, cell) in v.iter_mut().enumerate() {
            if let Some(&q) = query.get(l * seg + s) {
                *cell = sc.matrix.score(q, a as u8) as i16;
            }
        }
    }
    let minus_oe = splat(-((sc.gaps.open + sc.gaps.extend) as i16));
    let minus_ext = splat(-(sc.gaps.extend as i16));
    let zero = splat(0);
    let mut h_load = vec![zero; seg];
    let mut h_store = vec![zero; seg];
    let mut e = vec![splat(NEG); seg];
    let mut best = 0i32;
    let mut last: Option<(usize, usize)> = None;
    for (j, &c) in subject.iter().enumerate() {
        let prof = &profile[c as usize * seg..(c as usize + 1) * seg];
        // H(i-1, j-1) for each lane's first row: the previous column's last segment.
        let mut h = shift(h_store[seg - 1], 0);
        std::mem::swap(&mut h_load, &mut h_store);
        let mut f = splat(NEG);
        let mut col_max = zero;
        for s in 0..seg {
            h = add(h, prof[s]);
            let es = e[s];
            h = max(max(h, es), max(f, zero));
            h_store[s] = h;
            col_max = max(col_max, h);
            let opened = add(h, minus_oe);
            e[s] = max(add(es, minus_ext), opened);
            f = max(add(f, minus_ext), opened);
            h = h_load[s];
        }
        // Lazy F: carry F across the seams until it can raise no cell.
        f = shift(f, NEG);
        let mut s = 0;
        loop {
            let old = h_store[s];
            let h = max(old, f);
            h_store[s] = h;
            col_max = max(col_max, h);
            e[s] = max(e[s], add(h, minus_oe));
            // The next row's F was opened from `old` in the main loop: the carry
            // matters only where it beats that.
            f = add(f, minus_ext);
            if !any_greater(f, add(old, minus_oe)) {
                break;
            }
            s += 1;
            if s == seg {
                s = 0;
                f = shift(f, NEG);
            }
        }
        let top = col_max.iter().copied().max().unwrap_or(0) as i32;
        best = best.max(top);
        if top >= target && target > 0 {
            for (s, v) in h_store.iter().enumerate() {
                for (l, &x) in v.iter().enumerate() {
                    let row = l * seg + s;
                    if x as i32 == target && row < m {
                        last = Some(last.map_or((row, j), |(r, _)| (r.max(row), j)));
                    }
                }
            }
        }
    }
    lanes_hold(best, sc).then_some(Reach { best, last })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testing::generator;
    use crate::reference::{NEG_INF, advance_row, sw_score};
    use crate::scoring::{Gaps, Matrix};

    /// The reference's answer, from its rows: the best score and the last row and
    /// column holding `target`.
    fn reference_reach(q: &[u8], s: &[u8], sc: &Scoring, target: i32) -> Reach {
        let mut h = vec![0i32; s.len() + 1];
        let mut f = vec![NEG_INF; s.len() + 1];
        let (mut rows, mut cols) = (None::<usize>, None::<usize>);
        for (i, &qi) in q.iter().enumerate() {
            advance_row(qi, s, sc, &mut h, &mut f, None);
            for (j, &v) in h.iter().enumerate().skip(1) {
                if v == target && target > 0 {
                    rows = Some(i);
                    cols = Some(cols.map_or(j - 1, |c| c.max(j - 1)));
                }
            }
        }
        Reach { best: sw_score(q, s, sc).score, last: rows.zip(cols) }
    }

    #[test]
    fn equals_the_reference_across_lengths_gaps_and_targets() {
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
                let best = sw_score(&q, &s, &sc).score;
                for target in [best, best - 1, best / 2, 1] {
                    let want = reference_reach(&q, &s, &sc, target);
                    assert_eq!(reach(&q, &s, &sc, target), Some(want), "round {round} target {target}");
                }
            }
        }
    }

    #[test]
    fn scores_past_16_bits_are_refused() {
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let w = vec![17u8; 3_100]; // W/W scores 11: 34,100 in all
        assert_eq!(reach(&w, &w, &sc, 100), None);
        assert_eq!(reach(&w, &w, &sc, 40_000), None);
        assert_eq!(reach(&w[..100], &w[..100], &sc, 1_100), Some(Reach { best: 1_100, last: Some((99, 99)) }));
    }
}

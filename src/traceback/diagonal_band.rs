//! The traceback of a hit whose score leaves its alignment little room for gaps: the
//! reference's alignment, traced back over the band of diagonals around the end cell
//! that every alignment of that score must stay in, instead of the whole rectangle.
//!
//! A long hit of a near-identical subject is one pair, one SIMD lane of
//! [`super::batch`], which walks every cell of its rectangle (2.2 M cells, 16
//! ms, for a 1,489-residue copy inside a 5,478-residue query). Its score says the
//! alignment is nearly gapless, so nearly all of those cells are off every optimal path.
//!
//! **The band.** Take the rectangle of [`super::from_end`] (rows `R`, columns `C`, its
//! last cell the end cell, on diagonal `d1 = C - R` of `d = column - row`) and an
//! alignment in it scoring `S`. Its aligned pairs score at most `U`, the smaller of
//! the rectangle's rows' best scores (`max_c S(q_i, c)`, floored at 0) summed and its
//! columns' summed; its gaps cost `g open + G extend` for `g` gaps of `G` positions in
//! all. So `g open + G extend <= U - S`. Each gap position moves the path one diagonal,
//! so a cell of the path on diagonal `d` lies `|d - d1| <= G` from the end's, and
//! `d != d1` needs a gap: `|d - d1| <= w = (U - S - open) / extend`, and `w = 0` where
//! `U - S < open + extend`.
//!
//! **The traceback.** The recurrence ([`crate::reference`]'s) runs over the band's cells alone, the cells outside it a boundary (H = 0, E = F =
//! -inf) as the rectangle's edges are. Every value is then that of an alignment in the
//! rectangle, so no larger than the rectangle's; on an optimal path it is equal (the
//! path is in the band). The reference's traceback compares values at the cells of its
//! path only and picks the same way, ties included, by the argument of
//! [`super::from_end`]'s module header. The walk stores a byte per band cell
//! (`R (2w + 1)`), and the caller confirms the alignment's score as for every rectangle.

use super::batch::Rect;
use crate::align::{Alignment, Op};
use crate::reference::dir;
use crate::scoring::Scoring;

/// Below any reachable E or F.
const NEG: i32 = i32::MIN / 4;

/// The half-width `w` of the band of diagonals around the end cell of `rect` (its last
/// row and column) that every alignment in `rect` scoring `score` stays in; `None`
/// where `score` is above what the rectangle can hold (the caller's whole-prefix
/// traceback then decides). Gap extensions cost at least 1 ([`crate::scoring::Gaps`]).
pub fn half_width(query: &[u8], rect: &Rect<'_>, sc: &Scoring, score: i32) -> Option<usize> {
    // The most each row and each column of the rectangle can add: its best score (a
    // row's is its own with a profile), over the rectangle's rows for a column's letter.
    let letters = sc.matrix.size();
    let best_of = |scores: &mut dyn Iterator<Item = i32>| scores.max().unwrap_or(0).max(0) as i64;
    // The rows a column's letter can meet: the profile's of the rectangle, or every
    // letter's row of the matrix.
    let column_best: Vec<i64> = match &sc.pssm {
        Some(p) => (0..letters).map(|c| best_of(&mut rect.rows.clone().map(|i| p.row(i)[c]))).collect(),
        None => (0..letters as u8).map(|c| best_of(&mut (0..letters as u8).map(|a| sc.matrix.score(a, c)))).collect(),
    };
    let rows: i64 = rect.rows.clone().map(|i| best_of(&mut sc.row_at(i, query[i]).iter().copied())).sum();
    let columns: i64 = rect.subject.iter().map(|&c| column_best[c as usize]).sum();
    let slack = rows.min(columns) - score as i64;
    let (open, extend) = (sc.gaps.open as i64, sc.gaps.extend as i64);
    if slack < 0 {
        return None;
    }
    if slack < open + extend {
        return Some(0);
    }
    usize::try_from((slack - open) / extend.max(1)).ok()
}

/// The bytes [`align_in_band`] holds for `rect` and half-width `w`.
pub fn working_bytes(rect: &Rect<'_>, w: usize) -> u128 {
    let width = 2 * w as u128 + 1;
    rect.rows.len() as u128 * width + 4 * 4 * (width + 1) + 4 * (rect.rows.len() + rect.subject.len()) as u128
}

/// The alignment ending at `rect`'s last cell, as [`crate::reference::align_ending_at`]
/// gives it over `rect`, computed over the band of half-width `w` around that cell's
/// diagonal, in whole-query and whole-subject positions; `None` where the end cell
/// holds 0. `w` must be [`half_width`]'s or wider: a narrower band gives the band's own
/// best path, which may be another alignment of the same score.
pub fn align_in_band(query: &[u8], rect: &Rect<'_>, sc: &Scoring, w: usize) -> Option<Alignment> {
    let (rows, cols) = (rect.rows.len(), rect.subject.len());
    if rows == 0 || cols == 0 {
        return None;
    }
    let q = &query[rect.rows.clone()];
    let s = rect.subject;
    let width = 2 * w + 1;
    // Cell (i, j) (0-based in the rectangle) is band position k = j - i - d1 + w, in
    // 0..width; the cell above it is position k + 1 of the row before, the cell to its
    // left k - 1 of its row, the diagonal one k of the row before.
    let d1 = cols as isize - rows as isize;
    let position = |i: usize, j: usize| -> Option<usize> {
        let k = j as isize - i as isize - d1 + w as isize;
        (0..width as isize).contains(&k).then_some(k as usize)
    };
    let (oe, extend) = (sc.gaps.open + sc.gaps.extend, sc.gaps.extend);
    let mut dirs = vec![0u8; rows * width];
    // H and F of the row before by band position, with one position past the band
    // (the boundary) so that `k + 1` is always in range.
    let (mut h_up, mut f_up) = (vec![0i32; width + 1], vec![NEG; width + 1]);
    let (mut h_row, mut f_row) = (vec![0i32; width + 1], vec![NEG; width + 1]);
    for i in 0..rows {
        let mut e = NEG;
        let mut h_left = 0;
        for k in 0..width {
            let j = i as isize + d1 - w as isize + k as isize;
            if j < 0 || j >= cols as isize {
                (h_row[k], f_row[k], h_left, e) = (0, NEG, 0, NEG);
                continue;
            }
            let (e_open, e_ext) = (h_left - oe, e - extend);
            e = e_open.max(e_ext);
            let (f_open, f_ext) = (h_up[k + 1] - oe, f_up[k + 1] - extend);
            let f = f_open.max(f_ext);
            let d = h_up[k] + sc.score_at(rect.rows.start + i, q[i], s[j as usize]);
            let best = d.max(e).max(f).max(0);
            dirs[i * width + k] = dir::code(true, best, d, e, (e_open, e_ext), (f_open, f_ext));
            (h_row[k], f_row[k], h_left) = (best, f, best);
        }
        std::mem::swap(&mut h_up, &mut h_row);
        std::mem::swap(&mut f_up, &mut f_row);
    }
    // The walk, from the end cell, as the reference's. Its state is the matrix it is
    // in: H (`ZERO`), E (`FROM_E`) or F (`FROM_F`).
    let (mut r, mut c) = (rows as isize - 1, cols as isize - 1);
    let mut state = dir::ZERO;
    let mut columns: Vec<Op> = Vec::new();
    while r >= 0 && c >= 0 {
        // The walk never leaves the band: at its edges E and F come from the boundary
        // (-inf, or 0 - oe) and are never H's source nor extended into.
        let k = position(r as usize, c as usize).expect("the walk stays in the band");
        let d = dirs[r as usize * width + k];
        match state {
            dir::ZERO => match d & dir::H_MASK {
                dir::ZERO => break,
                dir::DIAG => {
                    columns.push(if q[r as usize] == s[c as usize] { Op::Match } else { Op::Mismatch });
                    r -= 1;
                    c -= 1;
                }
                other => state = other,
            },
            dir::FROM_E => {
                columns.push(Op::Deletion);
                if d & dir::E_EXTENDED == 0 {
                    state = dir::ZERO;
                }
                c -= 1;
            }
            _ => {
                columns.push(Op::Insertion);
                if d & dir::F_EXTENDED == 0 {
                    state = dir::ZERO;
                }
                r -= 1;
            }
        }
    }
    if columns.is_empty() {
        return None; // the end cell holds 0
    }
    columns.reverse();
    let q_start = rect.rows.start + (r + 1) as usize;
    let mut a = Alignment::from_columns(0, q_start, (c + 1) as usize, &columns, query, s, sc);
    a.score = a.rescore(query, s, sc) as i32;
    a.subject_start += rect.subject_offset;
    a.subject_end += rect.subject_offset;
    Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{align_ending_at, score, testing::generator};
    use crate::scoring::{Gaps, Matrix};

    /// Near-identical pairs (a copy with a few substitutions and short indels, small
    /// alphabets for ties), traced in the band over the whole prefix of the end cell:
    /// the reference's alignment every time, at the bound's half-width and wider; the
    /// reference's path within the bound, which some paths reach; and the band leaves
    /// out part of the rectangle for many of them.
    #[test]
    fn equals_the_reference_alignment_in_the_band() {
        let mut next = generator(11);
        let scorings = [
            Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()),
            Scoring::new(Matrix::builtin("BLOSUM50").unwrap(), Gaps::affine(10, 2).unwrap()),
            Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(16, 4).unwrap()),
            Scoring::new(
                Matrix::match_mismatch(crate::seq::Alphabet::Dna, 2, -3).unwrap(),
                Gaps::affine(1, 1).unwrap(),
            ),
        ];
        let (mut traced, mut narrow, mut exact) = (0, 0, 0);
        for sc in &scorings {
            let alpha = if sc.matrix.size() < 10 { 4 } else { 20 };
            for _ in 0..120 {
                let m = 1 + next(300);
                let q: Vec<u8> = (0..m).map(|_| next(alpha) as u8).collect();
                let mut s: Vec<u8> = Vec::new();
                for &a in &q {
                    match next(60) {
                        0 => {}
                        1 => s.extend([a, next(alpha) as u8]),
                        2 | 3 => s.push(next(alpha) as u8),
                        _ => s.push(a),
                    }
                }
                if s.is_empty() {
                    continue;
                }
                let best = score(&q, &s, sc);
                let Some(end) = best.end else { continue };
                let rect = Rect { rows: 0..end.0 + 1, subject: &s[..=end.1], subject_offset: 0 };
                let want = align_ending_at(&q, &s, sc, end);
                let Some(w) = half_width(&q, &rect, sc, best.score) else { continue };
                let reach = want.as_ref().map_or(0, |a| farthest_diagonal(a, end));
                assert!(reach <= w, "the reference's path leaves the band: {reach} > {w}");
                exact += (reach == w && w > 0) as usize;
                narrow += (2 * w + 1 < rect.subject.len()) as usize;
                for wide in [w, w + 1, w + 7] {
                    assert_eq!(align_in_band(&q, &rect, sc, wide), want, "m {m} n {} w {wide}", s.len());
                    traced += 1;
                }
            }
        }
        assert!(traced > 1000 && narrow > 200, "{traced} traced, {narrow} bands narrower than the rectangle");
        assert!(exact >= 5, "the bound is reached by {exact} paths only");
    }

    /// How far from the end cell's diagonal the alignment `a`, ending at `end`, goes.
    fn farthest_diagonal(a: &Alignment, end: (usize, usize)) -> usize {
        let d1 = end.1 as isize - end.0 as isize;
        let (mut i, mut j) = (a.query_start as isize, a.subject_start as isize);
        let mut far = (j - i - d1).unsigned_abs();
        for &(op, n) in &a.ops {
            for _ in 0..n {
                match op {
                    Op::Insertion => i += 1,
                    Op::Deletion => j += 1,
                    _ => (i, j) = (i + 1, j + 1),
                }
                far = far.max((j - i - d1).unsigned_abs());
            }
        }
        far
    }

    /// The bound by hand: a gapless copy allows no gap, and each point of score below
    /// it past the gap open allows a diagonal more per extension cost.
    #[test]
    fn the_half_width_follows_the_score() {
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let q = crate::reference::testing::protein("MKVLAAGIWWHEPRCDKLMNQ");
        let rect = Rect { rows: 0..q.len(), subject: &q, subject_offset: 0 };
        let self_score = score(&q, &q, &sc).score;
        assert_eq!(half_width(&q, &rect, &sc, self_score), Some(0));
        // 11 + 1 below the copy's score leaves room for a gap of one position.
        assert_eq!(half_width(&q, &rect, &sc, self_score - 12), Some(1));
        assert_eq!(half_width(&q, &rect, &sc, self_score - 20), Some(9));
        assert_eq!(half_width(&q, &rect, &sc, self_score + 1), None);
        let cheap = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(0, 2).unwrap());
        let s = score(&q, &q, &cheap).score;
        assert_eq!(half_width(&q, &rect, &cheap, s - 1), Some(0));
        assert_eq!(half_width(&q, &rect, &cheap, s - 7), Some(3));
    }
}

//! Plain scalar three-sequence local alignment (3-D Smith-Waterman, sum-of-pairs): the
//! ground truth for `src/sw3` and `cl/sw3.cl`. The model and its recurrence are
//! documented once, in [`crate::sw3`]; this file follows them line by line.
//!
//! * [`sw3_score`] keeps two k-planes of the table (memory `(n1+2)(n2+2)` cells, one value
//!   per cell with linear gaps, eight with affine gaps) and returns the best score and
//!   its end cell under the tie rule (smallest c, then b, then a position).
//! * [`sw3_rescore`] is the model's definition: the score of a given alignment, column
//!   by column. The tests check the recurrence against it by brute force.
//! * [`sw3_align_full`] is the textbook traceback over the whole table (for small
//!   inputs: it stores every cell); `crate::sw3::align` gives the same alignment in
//!   memory proportional to a plane of the table.

use super::NEG_INF;
use super::alignment3::{Alignment3, Sw3Score};
use crate::scoring::Scoring;

/// The seven column kinds as masks (bit 0: a has a residue in the column, bit 1: b,
/// bit 2: c), in the order the traceback prefers them when several give the best score.
pub const ORDER: [u8; 7] = [7, 3, 5, 6, 1, 2, 4];

/// The DP step of a column kind: how many residues of (a, b, c) it consumes.
#[inline]
pub fn delta(mask: u8) -> [usize; 3] {
    [(mask & 1) as usize, ((mask >> 1) & 1) as usize, ((mask >> 2) & 1) as usize]
}

/// The pairs of the sum of pairs, as (first, second) sequence indices.
const PAIRS: [(usize, usize); 3] = [(0, 1), (0, 2), (1, 2)];

/// A pair's pattern in a column: 0 when both or neither have a residue, 1 when only
/// the first has one (a gap in the second), 2 when only the second has one.
#[inline]
fn pattern(mask: u8, (p, q): (usize, usize)) -> u8 {
    match ((mask >> p) & 1, (mask >> q) & 1) {
        (1, 0) => 1,
        (0, 1) => 2,
        _ => 0,
    }
}

/// Gap opens charged in a column of kind `mask` after a column of kind `prev` (`None`
/// at the start of the alignment): one per pair that has a residue against a gap in
/// this column and did not have the same residue-gap pattern in the previous one.
#[inline]
pub fn opens(prev: Option<u8>, mask: u8) -> i32 {
    PAIRS
        .iter()
        .filter(|&&pair| {
            let now = pattern(mask, pair);
            now != 0 && prev.is_none_or(|p| pattern(p, pair) != now)
        })
        .count() as i32
}

/// Residue-gap pairs in a column: 0 for a full column, 2 for every other kind.
#[inline]
pub fn gap_pairs(mask: u8) -> i32 {
    if mask == 7 { 0 } else { 2 }
}

/// The substitution part of a column whose residues are `x` (only the entries named by
/// `mask` are read).
#[inline]
fn substitution(mask: u8, x: [u8; 3], sc: &Scoring) -> i32 {
    PAIRS
        .iter()
        .filter(|&&(p, q)| (mask >> p) & 1 == 1 && (mask >> q) & 1 == 1)
        .map(|&(p, q)| sc.matrix.score(x[p], x[q]))
        .sum()
}

/// The score of an alignment given by its columns (masks as in [`ORDER`]) starting at
/// DP cell `start` (`a[start[0]..]`, `b[start[1]..]`, `c[start[2]..]`): the model's definition.
/// Each column adds, for each of the three pairs, the substitution score when both have
/// a residue, and minus `extend` when one has a residue and the other a gap, minus
/// `open` more when that pair's residue-gap pattern differs from the previous column's
/// (or the column is the first). Returns `None` when the columns run past a sequence or
/// a column has no residue.
pub fn sw3_rescore(columns: &[u8], start: [usize; 3], seqs: [&[u8]; 3], sc: &Scoring) -> Option<i64> {
    let mut pos = start;
    let mut prev = None;
    let mut total = 0i64;
    for &mask in columns {
        if mask == 0 || mask > 7 {
            return None;
        }
        let mut x = [0u8; 3];
        for s in 0..3 {
            if (mask >> s) & 1 == 1 {
                x[s] = *seqs[s].get(pos[s])?;
                pos[s] += 1;
            }
        }
        total += substitution(mask, x, sc) as i64;
        total -= (gap_pairs(mask) * sc.gaps.extend) as i64;
        total -= (opens(prev, mask) * sc.gaps.open) as i64;
        prev = Some(mask);
    }
    Some(total)
}

/// The optimal local score of three sequences (alphabet codes) and its end cell.
///
/// Linear gaps (`open == 0`) use one value per cell; affine gaps the seven column
/// states and their floored maximum. Either way the memory is two k-planes.
pub fn sw3_score(a: &[u8], b: &[u8], c: &[u8], sc: &Scoring) -> Sw3Score {
    if sc.gaps.open == 0 { score_linear(a, b, c, sc) } else { score_affine(a, b, c, sc) }
}

/// `S(x_p, y_q)` for DP indices (1-based residues); 0 on the DP's zero row/column,
/// where the value is never used (every predecessor there is virtual).
#[inline]
fn pair_score(x: &[u8], i: usize, y: &[u8], j: usize, sc: &Scoring) -> i32 {
    if i == 0 || j == 0 { 0 } else { sc.matrix.score(x[i - 1], y[j - 1]) }
}

fn score_linear(a: &[u8], b: &[u8], c: &[u8], sc: &Scoring) -> Sw3Score {
    let (n1, n2, n3) = (a.len(), b.len(), c.len());
    // Planes over (j, i) with one virtual row and column (index 0) before the table.
    let w = n1 + 2;
    let plane = w * (n2 + 2);
    let mut prev = vec![NEG_INF; plane]; // k - 1 (virtual before k = 0)
    let mut cur = vec![NEG_INF; plane];
    let g2 = 2 * sc.gaps.extend;
    let sab: Vec<i32> =
        (0..=n2).flat_map(|j| (0..=n1).map(move |i| (i, j))).map(|(i, j)| pair_score(a, i, b, j, sc)).collect();
    let mut sac = vec![0i32; n1 + 1];
    let mut best = Sw3Score { score: 0, end: None };
    for k in 0..=n3 {
        for (i, s) in sac.iter_mut().enumerate() {
            *s = pair_score(a, i, c, k, sc);
        }
        for j in 0..=n2 {
            let sbc = pair_score(b, j, c, k, sc);
            let (row, up) = ((j + 1) * w, j * w); // rows j and j - 1
            let sab_row = &sab[j * (n1 + 1)..(j + 1) * (n1 + 1)];
            // Rows as slices of n1 + 2 entries (entry 0 is the virtual i = -1).
            let (cur_up, cur_row) = cur.split_at_mut(row);
            let cur_up = &cur_up[up..row];
            let cur_row = &mut cur_row[..w];
            let (prev_up, prev_row) = (&prev[up..row], &prev[row..row + w]);
            let mut left = NEG_INF; // H(i-1, j, k), carried in a register
            for i in 0..=n1 {
                let (s_ab, s_ac) = (sab_row[i], sac[i]);
                let mut h = prev_up[i] + s_ab + s_ac + sbc; // (a, b, c)
                h = h.max(cur_up[i] + s_ab - g2); // (a, b, -)
                h = h.max(prev_row[i] + s_ac - g2); // (a, -, c)
                h = h.max(prev_up[i + 1] + sbc - g2); // (-, b, c)
                h = h.max(left.max(cur_up[i + 1]).max(prev_row[i + 1]) - g2); // one residue
                let h = h.max(0);
                cur_row[i + 1] = h;
                left = h;
                if h > best.score {
                    best = Sw3Score { score: h, end: Some([i, j, k]) };
                }
            }
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    best
}

/// Values of one cell with affine gaps: `v[0]` = max(0, states), `v[m]` = the best
/// score of an alignment ending here with a column of kind `m` (1..=7).
type Cell8 = [i32; 8];

const VIRTUAL8: Cell8 = [NEG_INF; 8];

/// One cell of the affine recurrence from its seven predecessors `p[m]` (the cell
/// before a column of kind `m`), the pair scores of the cell's residues, and the
/// penalties. Shared by the scoring pass and the full traceback.
#[inline]
pub(crate) fn affine_cell(p: &[&Cell8; 8], sab: i32, sac: i32, sbc: i32, open: i32, extend: i32) -> Cell8 {
    let (o, o2, g2) = (open, 2 * open, 2 * extend);
    let from = |m: usize, x: usize, y: usize| p[m][m].max(p[m][x].max(p[m][y]) - o).max(p[m][0] - o2);
    let s7 = p[7][0] + sab + sac + sbc;
    let s3 = sab - g2 + from(3, 1, 2);
    let s5 = sac - g2 + from(5, 1, 4);
    let s6 = sbc - g2 + from(6, 2, 4);
    let s1 = -g2 + from(1, 3, 5);
    let s2 = -g2 + from(2, 3, 6);
    let s4 = -g2 + from(4, 5, 6);
    let v0 = 0.max(s1).max(s2).max(s3).max(s4).max(s5).max(s6).max(s7);
    [v0, s1, s2, s3, s4, s5, s6, s7]
}

fn score_affine(a: &[u8], b: &[u8], c: &[u8], sc: &Scoring) -> Sw3Score {
    let (n1, n2, n3) = (a.len(), b.len(), c.len());
    let w = n1 + 2;
    let plane = w * (n2 + 2);
    let mut prev = vec![VIRTUAL8; plane];
    let mut cur = vec![VIRTUAL8; plane];
    let (open, extend) = (sc.gaps.open, sc.gaps.extend);
    let mut best = Sw3Score { score: 0, end: None };
    for k in 0..=n3 {
        for j in 0..=n2 {
            let sbc = pair_score(b, j, c, k, sc);
            let row = (j + 1) * w;
            let up = j * w;
            for i in 0..=n1 {
                let x = row + i + 1;
                let sab = pair_score(a, i, b, j, sc);
                let sac = pair_score(a, i, c, k, sc);
                let p: [&Cell8; 8] = [
                    &VIRTUAL8,
                    &cur[row + i],
                    &cur[up + i + 1],
                    &cur[up + i],
                    &prev[x],
                    &prev[row + i],
                    &prev[up + i + 1],
                    &prev[up + i],
                ];
                let v = affine_cell(&p, sab, sac, sbc, open, extend);
                cur[x] = v;
                if v[0] > best.score {
                    best = Sw3Score { score: v[0], end: Some([i, j, k]) };
                }
            }
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    best
}

/// The textbook traceback over the whole table, kept for tests and small inputs (it
/// stores `(n1+1)(n2+1)(n3+1)` cells; `crate::sw3::align` needs only planes). `None` when
/// the best score is 0.
///
/// Preferences when several predecessors give the best score: at the end cell the
/// column kind first in [`ORDER`]; before each column the start of the alignment (the
/// shortest alignment), then the predecessor state first in [`ORDER`].
pub fn sw3_align_full(a: &[u8], b: &[u8], c: &[u8], sc: &Scoring) -> Option<Alignment3> {
    let best = sw3_score(a, b, c, sc);
    let end = best.end?;
    let (n1, n2, n3) = (a.len(), b.len(), c.len());
    let (w, h) = (n1 + 2, n2 + 2);
    let idx =
        |i: isize, j: isize, k: isize| -> usize { ((k + 1) as usize * h + (j + 1) as usize) * w + (i + 1) as usize };
    let (open, extend) = (sc.gaps.open, sc.gaps.extend);
    let seqs = [a, b, c];
    // The whole table, with a virtual layer before each axis.
    let mut t = vec![VIRTUAL8; w * h * (n3 + 2)];
    let score_of = |mask: u8, x: [usize; 3]| -> i32 {
        // The pair-score part and the extension part of a column of kind `mask` ending at x.
        let r = |s: usize| if x[s] == 0 { 0 } else { seqs[s][x[s] - 1] };
        substitution(mask, [r(0), r(1), r(2)], sc) - gap_pairs(mask) * extend
    };
    for k in 0..=n3 {
        for j in 0..=n2 {
            for i in 0..=n1 {
                let (ii, jj, kk) = (i as isize, j as isize, k as isize);
                let sab = pair_score(a, i, b, j, sc);
                let sac = pair_score(a, i, c, k, sc);
                let sbc = pair_score(b, j, c, k, sc);
                let v = if open == 0 {
                    // Linear: only v[0] is meaningful.
                    let g2 = 2 * extend;
                    let p = |di: isize, dj: isize, dk: isize| t[idx(ii - di, jj - dj, kk - dk)][0];
                    let hv = (p(1, 1, 1) + sab + sac + sbc)
                        .max(p(1, 1, 0) + sab - g2)
                        .max(p(1, 0, 1) + sac - g2)
                        .max(p(0, 1, 1) + sbc - g2)
                        .max(p(1, 0, 0).max(p(0, 1, 0)).max(p(0, 0, 1)) - g2)
                        .max(0);
                    let mut v = VIRTUAL8;
                    v[0] = hv;
                    v
                } else {
                    let p: [&Cell8; 8] = std::array::from_fn(|m| {
                        if m == 0 {
                            &VIRTUAL8
                        } else {
                            let d = delta(m as u8);
                            &t[idx(ii - d[0] as isize, jj - d[1] as isize, kk - d[2] as isize)]
                        }
                    });
                    affine_cell(&p, sab, sac, sbc, open, extend)
                };
                t[idx(ii, jj, kk)] = v;
            }
        }
    }
    let at = |x: [usize; 3]| &t[idx(x[0] as isize, x[1] as isize, x[2] as isize)];
    let back = |x: [usize; 3], mask: u8| -> Option<[usize; 3]> {
        let d = delta(mask);
        (x[0] >= d[0] && x[1] >= d[1] && x[2] >= d[2]).then(|| [x[0] - d[0], x[1] - d[1], x[2] - d[2]])
    };
    let mut columns = Vec::new();
    let mut x = end;
    if open == 0 {
        // Linear: at x (value > 0) take the first column kind that explains the value,
        // stop where the predecessor's value is 0.
        loop {
            let hv = at(x)[0];
            let mask = ORDER
                .into_iter()
                .find(|&m| back(x, m).is_some_and(|p| at(p)[0] + score_of(m, x) == hv))
                .expect("a positive cell has a predecessor");
            columns.push(mask);
            x = back(x, mask).unwrap();
            if at(x)[0] == 0 {
                break;
            }
        }
    } else {
        // Affine: the state at the end is the first kind whose value is the cell's best.
        let mut state = ORDER.into_iter().find(|&m| at(x)[m as usize] == at(x)[0]).unwrap();
        loop {
            columns.push(state);
            let target = at(x)[state as usize] - score_of(state, x);
            let p = back(x, state).unwrap();
            let start_value = -opens(None, state) * open;
            if start_value == target {
                x = p;
                break;
            }
            state = ORDER
                .into_iter()
                .find(|&m| at(p)[m as usize] - opens(Some(m), state) * open == target)
                .expect("a state value has a predecessor");
            x = p;
        }
    }
    columns.reverse();
    Some(Alignment3 { score: best.score, start: x, end, columns })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testing::dna;
    use crate::scoring::{Gaps, Matrix};
    use crate::seq::Alphabet;

    #[test]
    fn opens_follow_the_pattern_table() {
        // A two-residue column shares one gap pattern with each one-residue column it
        // contains, none with the others.
        assert_eq!(opens(None, 7), 0);
        assert_eq!(opens(None, 3), 2);
        assert_eq!(opens(Some(3), 3), 0);
        assert_eq!(opens(Some(1), 3), 1);
        assert_eq!(opens(Some(2), 3), 1);
        assert_eq!(opens(Some(4), 3), 2);
        assert_eq!(opens(Some(5), 3), 2);
        assert_eq!(opens(Some(7), 1), 2);
        assert_eq!(opens(Some(5), 1), 1);
        assert_eq!(opens(Some(6), 1), 2);
        assert_eq!(opens(Some(2), 1), 2);
    }

    #[test]
    fn seed_setting_by_hand() {
        // match 1, mismatch -1, gap 1: "ACGT" in all three scores 4 columns x 3 pairs.
        let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 1, -1).unwrap(), Gaps::linear(1).unwrap());
        let r = sw3_score(&dna("TTACGTTT"), &dna("GACGTG"), &dna("ACGT"), &sc);
        assert_eq!(r, Sw3Score { score: 12, end: Some([6, 5, 4]) });
        let aln = sw3_align_full(&dna("TTACGTTT"), &dna("GACGTG"), &dna("ACGT"), &sc).unwrap();
        assert_eq!(aln.columns, vec![7, 7, 7, 7]);
        assert_eq!(aln.start, [2, 1, 0]);
        // Nothing shared: 0 and no end.
        assert_eq!(sw3_score(&dna("AAAA"), &dna("CCCC"), &dna("GGGG"), &sc), Sw3Score { score: 0, end: None });
    }

    #[test]
    fn rescore_counts_opens_per_pair() {
        let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 2, -1).unwrap(), Gaps::affine(3, 1).unwrap());
        let (a, b, c) = (dna("AA"), dna("AA"), dna("A"));
        // (A,A,A) then (A,A,-): 6, then 2 - 2*1 - 2*3 = -6.
        assert_eq!(sw3_rescore(&[7, 3], [0, 0, 0], [&a, &b, &c], &sc), Some(0));
        // (A,A,-) twice: second column extends both gaps.
        assert_eq!(sw3_rescore(&[3, 3], [0, 0, 0], [&a, &b, &c], &sc), Some(-6)); // (2 - 2 - 6) then (2 - 2)
        // Running past a sequence is refused.
        assert_eq!(sw3_rescore(&[7, 7], [0, 0, 0], [&a, &b, &c], &sc), None);
    }
}

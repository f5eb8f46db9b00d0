//! The native scan's first pass: one subject per unsigned 8-bit lane (64, 32 or 16 of
//! them, [`super::vectors`]), walked column by column in the style of SWIPE (Rognes
//! 2011): column j holds residue j of every lane's subject, and the query's rows run
//! down it. The recurrence is the reference's (`src/reference`):
//!
//! ```text
//! E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - oe)      oe = open + extend
//! F(i,j) = max(F(i-1,j) - extend, H(i-1,j) - oe)
//! H(i,j) = max(H(i-1,j-1) + S(q_i, s_j), E(i,j), F(i,j), 0)
//! ```
//!
//! computed on unsigned bytes: scores are stored as `S + bias` (bias = -min S), so
//! `H(i-1,j-1) + (S + bias) - bias` with saturating arithmetic floors at 0 by itself,
//! and E and F floored at 0 change no H (H takes the max with 0 anyway). A cell can
//! only have hit the 255 ceiling if the lane's best passed `255 - bias - max S`; such
//! lanes are reported as `None` and rescanned at 16 bits by the caller.
//!
//! A column's scores for every query letter are looked up from the subjects' residues
//! with byte shuffles (two 16-entry tables per letter), once per column. The end cell
//! follows the reference's rule: a column replaces the best only with a strictly higher
//! score, and within that column the first row holding it is the end; the rows are
//! searched only in the columns where some lane improved.

use super::vectors::Bytes;
use crate::reference::LocalScore;
use crate::scoring::Scoring;

/// The residue index of a lane past its subject's end (or a lane with no subject):
/// [`Bytes::lookup`] gives 0 for it, the lowest biased score, so such columns never
/// raise a lane's best.
const PAD: u8 = 0x80;

/// A scoring in the 8-bit form, built once per scan.
pub(super) struct Scoring8 {
    /// Per query letter `a`: `S(a, c) + bias` for subject letters `c` 0-15 and 16-31.
    low: Vec<[u8; 16]>,
    high: Vec<[u8; 16]>,
    bias: u8,
    open_extend: u8,
    extend: u8,
    /// A lane whose best is above this may have saturated.
    exact_max: u8,
}

impl Scoring8 {
    /// `None` when the scoring does not fit bytes: gap costs over 255, a score range
    /// leaving no room, or an alphabet of more than 32 letters.
    pub(super) fn new(sc: &Scoring) -> Option<Scoring8> {
        let letters = sc.matrix.size();
        let (min, max) = (sc.matrix.min_score(), sc.matrix.max_score());
        let bias = (-min).max(0);
        let open_extend = sc.gaps.open as i64 + sc.gaps.extend as i64;
        let exact_max = 255 - bias - max.max(0);
        if letters > 32 || open_extend > 255 || exact_max < 1 {
            return None;
        }
        let table = |a: usize, from: usize| -> [u8; 16] {
            std::array::from_fn(|k| {
                let c = from + k;
                if c < letters { (sc.matrix.score(a as u8, c as u8) + bias) as u8 } else { 0 }
            })
        };
        Some(Scoring8 {
            low: (0..letters).map(|a| table(a, 0)).collect(),
            high: (0..letters).map(|a| table(a, 16)).collect(),
            bias: bias as u8,
            open_extend: open_extend as u8,
            extend: sc.gaps.extend as u8,
            exact_max: exact_max as u8,
        })
    }
}

/// Up to `V::LANES` subjects against `query` (codes below the matrix's size), one per
/// lane. Per subject: its score and end, or `None` where the lane may have saturated.
///
/// # Safety
/// The processor must have `V`'s instruction-set level.
#[inline(always)]
pub(super) unsafe fn align_batch<V: Bytes>(query: &[u8], batch: &[&[u8]], s8: &Scoring8) -> Vec<Option<LocalScore>> {
    debug_assert!(batch.len() <= V::LANES && V::LANES <= 64);
    let m = query.len();
    let n = batch.iter().map(|s| s.len()).max().unwrap_or(0);
    let letters = s8.low.len();
    // SAFETY (whole body): the caller guarantees V's level; indices are in range as
    // commented where unchecked access is used.
    unsafe {
        let zero = V::splat(0);
        let bias = V::splat(s8.bias);
        let oe = V::splat(s8.open_extend);
        let ext = V::splat(s8.extend);
        let low: Vec<V> = s8.low.iter().map(|t| V::table(t)).collect();
        let high: Vec<V> = s8.high.iter().map(|t| V::table(t)).collect();
        let mut h_col = vec![zero; m]; // H(i, j-1), then H(i, j+1)
        let mut e_col = vec![zero; m]; // E(i, j-1), then E(i, j+1)
        let mut h_first = vec![zero; m]; // H(i, j), kept for the end search
        // S(a, s_j) + bias and S(a, s_j+1) + bias per letter a.
        let mut profiles = [vec![zero; letters], vec![zero; letters]];
        let mut best = zero;
        let mut end = [(0u32, 0u32); 64];
        let mut low_idx = [PAD; 64];
        let mut high_idx = [PAD; 64];
        // Two columns per walk down the rows: each row's cell of column j, then of
        // column j + 1 (whose left neighbour it is); half the loads and stores of
        // the columns, and two dependency chains in flight.
        for j in (0..n).step_by(2) {
            for (c, profile) in profiles.iter_mut().enumerate() {
                for (l, s) in batch.iter().enumerate() {
                    let c = s.get(j + c).copied().unwrap_or(PAD);
                    (low_idx[l], high_idx[l]) = match c {
                        0..16 => (c, PAD),
                        PAD => (PAD, PAD),
                        _ => (PAD, c - 16),
                    };
                }
                let (lo, hi) = (V::load(low_idx.as_ptr()), V::load(high_idx.as_ptr()));
                for (a, p) in profile.iter_mut().enumerate() {
                    *p = V::lookup(low[a], lo).or(V::lookup(high[a], hi));
                }
            }
            let (mut diag_a, mut up_a, mut f_a, mut max_a) = (zero, zero, zero, zero);
            let (mut diag_b, mut up_b, mut f_b, mut max_b) = (zero, zero, zero, zero);
            for i in 0..m {
                // Query codes are below the matrix's size (checked by the caller), and
                // i < m, the length of every column buffer.
                let q = *query.get_unchecked(i) as usize;
                let left = *h_col.get_unchecked(i);
                let e_a = e_col.get_unchecked(i).subs(ext).max(left.subs(oe));
                f_a = f_a.subs(ext).max(up_a.subs(oe));
                let h_a = diag_a.adds(*profiles[0].get_unchecked(q)).subs(bias).max(e_a).max(f_a);
                diag_a = left;
                up_a = h_a;
                max_a = max_a.max(h_a);
                *h_first.get_unchecked_mut(i) = h_a;
                let e_b = e_a.subs(ext).max(h_a.subs(oe));
                f_b = f_b.subs(ext).max(up_b.subs(oe));
                let h_b = diag_b.adds(*profiles[1].get_unchecked(q)).subs(bias).max(e_b).max(f_b);
                diag_b = h_a;
                up_b = h_b;
                max_b = max_b.max(h_b);
                *h_col.get_unchecked_mut(i) = h_b;
                *e_col.get_unchecked_mut(i) = e_b;
            }
            for (col, col_max, column) in [(j, max_a, &h_first), (j + 1, max_b, &h_col)] {
                let mut pending = col_max.gt_mask(best);
                if pending == 0 {
                    continue;
                }
                best = best.max(col_max);
                for (i, h) in column.iter().enumerate() {
                    let mut found = h.eq_mask(col_max) & pending;
                    pending &= !found;
                    while found != 0 {
                        end[found.trailing_zeros() as usize] = (i as u32, col as u32);
                        found &= found - 1;
                    }
                    if pending == 0 {
                        break;
                    }
                }
            }
        }
        let mut best_bytes = [0u8; 64];
        best.store(best_bytes.as_mut_ptr());
        (0..batch.len())
            .map(|l| {
                let score = best_bytes[l];
                (score <= s8.exact_max).then(|| LocalScore {
                    score: score as i32,
                    end: (score > 0).then(|| (end[l].0 as usize, end[l].1 as usize)),
                })
            })
            .collect()
    }
}

//! The native scan's kernel: one subject per lane (bytes in the first pass, 16-bit
//! words in the second; [`super::vectors`]), walked column by column in the style of
//! SWIPE (Rognes 2011): column j holds residue j of every lane's subject, and the
//! query's rows run down it. The recurrence is [`crate::reference`]'s, with
//! `oe = open + extend` subtracted once from H.
//!
//! H, E and F are unsigned (E and F floored at 0 by saturating subtraction, which
//! changes no H: H takes the max with 0 anyway), the scores S are signed, and
//! `H(i-1,j-1) + S` is a signed saturating addition whose negative results lose to
//! E >= 0 in a signed max: the floor at 0 costs no instruction. A cell can only have
//! hit the lanes' ceiling (`TOP`, 127 or 32,767) if the lane's best passed
//! `TOP - max S`; such lanes are reported as `None`, for the next pass.
//!
//! A column's scores for every query letter are built once per column (byte shuffles
//! of two 16-entry tables per letter for bytes). The end cell follows the reference's
//! rule: a column replaces the best only with a strictly higher score, and within that
//! column the first row holding it is the end; the rows are searched only in the
//! columns where some lane improved. The score-only twin (`ENDS = false`, what a
//! search needs of every subject but its hits) keeps no column for that search: one
//! store a row less, and no search.

use super::vectors::Cells;
use crate::error::Result;
use crate::memory;
use crate::reference::LocalScore;
use crate::scoring::Scoring;

/// The residue of a lane past its subject's end (or a lane with no subject): it scores
/// 0 against every query letter; such a column's H is at most the largest H before it,
/// so it never raises a lane's best (which needs a strictly higher score).
pub(super) const PAD: u8 = 0x80;

/// Rows of the query walked at once: the per-row state of a batch (three vectors a
/// row, 96 bytes with AVX2, 192 with AVX-512) is bounded by this many rows; longer
/// queries are walked in blocks, which changes no score or end cell.
pub(super) const BLOCK_ROWS: usize = 8192;

/// A scoring as the kernel reads it, built once per scan.
pub(super) struct Tables {
    /// Per row `a` of the scoring's [`QueryRows`](crate::scoring::QueryRows), its score against subject letters `c`
    /// 0-31 (0 past the alphabet): a matrix's rows (`a` a query letter) or a profile's
    /// (`a` a query position).
    pub(super) words: Vec<[i16; 32]>,
    /// The row of `words` each query position takes ([`QueryRows::keys`](crate::scoring::QueryRows::keys)).
    pub(super) keys: Vec<u32>,
    /// The same as bytes (`i8`), letters 0-15 and 16-31, for the byte shuffles; only
    /// read where [`Tables::fits`] holds for bytes.
    pub(super) low: Vec<[u8; 16]>,
    pub(super) high: Vec<[u8; 16]>,
    open_extend: i32,
    extend: i32,
    min: i32,
    max: i32,
}

impl Tables {
    /// `None` when even 16-bit words cannot hold the scoring's scores and gap costs
    /// (the reference then scores every subject).
    pub(super) fn new(query: &[u8], sc: &Scoring) -> Option<Tables> {
        let rows = sc.rows(query);
        let letters = rows.letters;
        let t = Tables {
            words: (0..rows.count())
                .map(|a| {
                    std::array::from_fn(|c| {
                        if c < letters { rows.score(a, c as u8).clamp(-32768, 32767) as i16 } else { 0 }
                    })
                })
                .collect(),
            keys: rows.keys,
            low: Vec::new(),
            high: Vec::new(),
            open_extend: (sc.gaps.open as i64 + sc.gaps.extend as i64).min(i32::MAX as i64) as i32,
            extend: sc.gaps.extend,
            min: sc.min_score(),
            max: sc.max_score(),
        };
        let bytes = |a: usize, from: usize| -> [u8; 16] { std::array::from_fn(|k| t.words[a][from + k] as i8 as u8) };
        let count = t.words.len();
        let (low, high) = ((0..count).map(|a| bytes(a, 0)).collect(), (0..count).map(|a| bytes(a, 16)).collect());
        let t = Tables { low, high, ..t };
        (letters <= 32 && t.fits(i16::MAX as i32)).then_some(t)
    }

    /// Whether lanes whose ceiling is `top` can compute this scoring: gap costs, scores
    /// and room for at least a score of 1 below the ceiling.
    pub(super) fn fits(&self, top: i32) -> bool {
        self.open_extend <= top && self.min >= -top - 1 && self.max <= top && self.exact_max(top) >= 1
    }

    /// The highest best score that lanes with ceiling `top` report exactly.
    fn exact_max(&self, top: i32) -> i32 {
        top - self.max.max(0)
    }
}

/// Up to `V::LANES` subjects against `query`, one per lane, with `query`'s own [`Tables`]
/// (of a scoring that [`Tables::fits`] `V::TOP`). Per subject: its score and (with
/// `ENDS`) its end, or `None` where the lane may have saturated. Fails only when the
/// columns' boundary vectors of a query longer than one block cannot be allocated.
///
/// # Safety
/// The processor must have `V`'s instruction-set level, and `t` must be
/// [`Tables::new`]'s of `query`: its keys, below its rows, index both profiles unchecked.
#[inline(always)]
pub(super) unsafe fn align_batch<V: Cells, const ENDS: bool>(
    query: &[u8],
    batch: &[&[u8]],
    t: &Tables,
) -> Result<Vec<Option<LocalScore>>> {
    debug_assert!(batch.len() <= V::LANES && V::LANES <= 64 && t.fits(V::TOP));
    debug_assert!(query.len() < u32::MAX as usize && batch.iter().all(|s| s.len() < u32::MAX as usize));
    debug_assert!(t.keys.len() == query.len() && t.keys.iter().all(|&k| (k as usize) < t.words.len()));
    let m = query.len();
    let n = batch.iter().map(|s| s.len()).max().unwrap_or(0);
    let letters = t.words.len();
    // SAFETY: the processor has V's level (this function's contract).
    let (zero, oe, ext) = unsafe { (V::splat(0), V::splat(t.open_extend), V::splat(t.extend)) };
    // The rows are walked in blocks of at most BLOCK_ROWS, every column per block,
    // so the per-row state is bounded however long the query: a query's memory is
    // its own bytes, not 3 vectors a residue. Between blocks each column keeps
    // H and F of the block's last row (`h_bound`, `f_bound`: zero above row 0).
    let rows = m.min(BLOCK_ROWS);
    let mut h_col = vec![zero; rows]; // H(i, j-1), then H(i, j+1)
    // E(i, j) = max(E(i, j-1) - extend, H(i, j-1) - oe), stored one column ahead:
    // the E of column j (from column j-1), then that of column j+2.
    let mut e_col = vec![zero; rows];
    let mut h_first = vec![zero; if ENDS { rows } else { 0 }]; // H(i, j), kept for the end search
    // A query of one block has no block below it: its columns read zeros (slots 0
    // and 1) and leave their last row in slots 2 and 3, so its memory does not grow
    // with the subject, nor with the lanes (psse's 20 M-residue subject took 2.6 GB on
    // AVX-512's 32 lanes, 640 MB on SSE4.1's 8).
    let (bound_len, stride, sink) = if m > BLOCK_ROWS { (n + 2, 1, 0) } else { (4, 0, 2) };
    let mut h_bound = memory::vec_filled("native kernel's column boundaries", bound_len, zero)?;
    let mut f_bound = memory::vec_filled("native kernel's column boundaries", bound_len, zero)?;
    // S(a, s_j) and S(a, s_j+1) per letter a.
    let mut profiles = [vec![zero; letters], vec![zero; letters]];
    let mut best = zero;
    let mut end = [(0u32, 0u32); 64];
    let mut residues = [PAD; 64];
    for i0 in (0..m).step_by(BLOCK_ROWS) {
        let block = &t.keys[i0..m.min(i0 + BLOCK_ROWS)];
        h_col.fill(zero);
        e_col.fill(zero);
        let mut up_left = zero; // H(i0 - 1, j - 1)
        // Two columns per walk down the rows: each row's cell of column j, then of
        // column j + 1 (whose left neighbour it is); half the loads and stores of
        // the columns, and two dependency chains in flight.
        for j in (0..n).step_by(2) {
            for (c, profile) in profiles.iter_mut().enumerate() {
                for (l, s) in batch.iter().enumerate() {
                    residues[l] = s.get(j + c).copied().unwrap_or(PAD);
                }
                // SAFETY: the processor has V's level (this function's contract).
                unsafe { V::column_profile(profile, t, &residues) };
            }
            // `gap_a`, `gap_b`: H(i-1, j) - oe and H(i-1, j+1) - oe, each computed once
            // for the F below it and the E to its right.
            let (above, next) = (j * stride, j * stride + 1);
            // SAFETY: the processor has V's level (this function's contract).
            let (gap_a, gap_b) = unsafe { (h_bound[above].subs(oe), h_bound[next].subs(oe)) };
            let (mut diag_a, mut gap_a, mut f_a, mut max_a) = (up_left, gap_a, f_bound[above], zero);
            let (mut diag_b, mut gap_b, mut f_b, mut max_b) = (h_bound[above], gap_b, f_bound[next], zero);
            up_left = h_bound[next];
            for (i, &q) in block.iter().enumerate() {
                let q = q as usize;
                // SAFETY: keys are below the table's rows (QueryRows), the length of
                // both profiles; i < block.len() <= rows, the length of every
                // column buffer (h_first's too with ENDS); the processor has V's level
                // (this function's contract).
                unsafe {
                    let left = *h_col.get_unchecked(i);
                    let e_a = *e_col.get_unchecked(i);
                    f_a = f_a.subs(ext).max(gap_a);
                    let h_a = diag_a.adds_signed(*profiles[0].get_unchecked(q)).max_signed(e_a).max(f_a);
                    diag_a = left;
                    gap_a = h_a.subs(oe);
                    max_a = max_a.max(h_a);
                    if ENDS {
                        *h_first.get_unchecked_mut(i) = h_a;
                    }
                    let e_b = e_a.subs(ext).max(gap_a);
                    f_b = f_b.subs(ext).max(gap_b);
                    let h_b = diag_b.adds_signed(*profiles[1].get_unchecked(q)).max_signed(e_b).max(f_b);
                    diag_b = h_a;
                    gap_b = h_b.subs(oe);
                    max_b = max_b.max(h_b);
                    *h_col.get_unchecked_mut(i) = h_b;
                    *e_col.get_unchecked_mut(i) = e_b.subs(ext).max(gap_b);
                }
            }
            // `diag_b` is the last row's H of column j.
            let last = block.len() - 1;
            let (below, next) = (above + sink, next + sink);
            (h_bound[below], f_bound[below], h_bound[next], f_bound[next]) = (diag_b, f_a, h_col[last], f_b);
            if !ENDS {
                // SAFETY: the processor has V's level (this function's contract).
                best = unsafe { best.max(max_a).max(max_b) };
                continue;
            }
            for (col, col_max, column) in [(j, max_a, &h_first), (j + 1, max_b, &h_col)] {
                // SAFETY: the processor has V's level (this function's contract).
                let mut pending = unsafe { col_max.gt_mask(best) };
                if i0 > 0 {
                    // A later block can give a column left of a lane's end its first
                    // cell holding the best (the reference's end: first column, then
                    // first row).
                    // SAFETY: the processor has V's level (this function's contract).
                    let mut tied = unsafe { col_max.eq_mask(best) & best.gt_mask(zero) };
                    while tied != 0 {
                        let l = tied.trailing_zeros() as usize;
                        if end[l].1 as usize > col {
                            pending |= 1 << l;
                        }
                        tied &= tied - 1;
                    }
                }
                if pending == 0 {
                    continue;
                }
                // SAFETY: the processor has V's level (this function's contract).
                best = unsafe { best.max(col_max) };
                for (i, h) in column[..block.len()].iter().enumerate() {
                    // SAFETY: the processor has V's level (this function's contract).
                    let mut found = unsafe { h.eq_mask(col_max) } & pending;
                    pending &= !found;
                    while found != 0 {
                        end[found.trailing_zeros() as usize] = ((i0 + i) as u32, col as u32);
                        found &= found - 1;
                    }
                    if pending == 0 {
                        break;
                    }
                }
            }
        }
    }
    // SAFETY: the processor has V's level (this function's contract).
    let best = unsafe { best.values() };
    let exact_max = t.exact_max(V::TOP);
    Ok((0..batch.len())
        .map(|l| {
            let score = best[l];
            (score <= exact_max)
                .then(|| LocalScore { score, end: (ENDS && score > 0).then(|| (end[l].0 as usize, end[l].1 as usize)) })
        })
        .collect())
}

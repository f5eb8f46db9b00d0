//! The pairwise aligner clsw runs (`clsw align`, `clsw_align`, the hits the other
//! tracebacks leave): the reference's alignment ([`crate::reference::align`], the
//! same walk over the same bits) in memory proportional to `n·√m`.
//!
//! First the score pass finds the end cell (ie, je). Then a forward pass over rows
//! 1..=ie (columns 1..=je only) keeps a checkpoint of H and F every `k` rows. The
//! traceback walks blocks of `k` rows from the last to the first: each block is
//! recomputed from its checkpoint with the traceback bits stored (k·je bytes), and the
//! walk continues in it, carrying the current state (H, E or F) across block
//! boundaries. With k >= ie this is the textbook full-matrix traceback; the tests
//! check that every k gives the reference's alignment.

use crate::align::Alignment;
use crate::reference::{NEG_INF, Walk, advance_row, score};
use crate::scoring::{Mode, Scoring};

/// Pairs with more cells than this are traced back with checkpoints; smaller ones
/// keep the whole traceback matrix (at most this many bytes).
const FULL_MATRIX_CELLS: usize = 1 << 24;

/// The optimal alignment of `query` and `subject` (alphabet codes) in the scoring's
/// mode ([`crate::reference::align`]'s, its `None` cases included).
pub fn align(query: &[u8], subject: &[u8], sc: &Scoring) -> Option<Alignment> {
    align_ending_at(query, subject, sc, score(query, subject, sc).end?)
}

/// The alignment [`align`] returns when the end cell is already known (a scan kernel
/// reports it): the score pass is skipped. `end` = (query, subject) positions, 0-based;
/// given another cell, the result is the best alignment ending there (in the local
/// mode `None` if it scores 0).
pub fn align_ending_at(query: &[u8], subject: &[u8], sc: &Scoring, end: (usize, usize)) -> Option<Alignment> {
    traceback(query, subject, sc, end, block_rows(end))
}

/// The rows per block of the traceback ending at `end`.
fn block_rows((ie, je): (usize, usize)) -> usize {
    let (rows, cols) = (ie + 1, je + 1);
    if rows.saturating_mul(cols) <= FULL_MATRIX_CELLS { rows } else { (rows as f64).sqrt().ceil() as usize }
}

/// The most bytes [`align_ending_at`] holds at once for the end cell `end` (an upper
/// bound: the checkpoints, one block's traceback bits, the alignment's columns).
pub fn align_ending_at_bytes(end: (usize, usize)) -> u128 {
    let (rows, width) = (end.0 as u128 + 1, end.1 as u128 + 2);
    let k = block_rows(end) as u128;
    let checkpoints = rows.div_ceil(k) * 2 * width * 4;
    checkpoints + k * width + 4 * width * 4 + (rows + width)
}

/// [`align`] with an explicit checkpoint interval (rows per block); exposed so tests
/// can check that the result does not depend on it.
pub fn align_with_block_rows(query: &[u8], subject: &[u8], sc: &Scoring, block_rows: usize) -> Option<Alignment> {
    traceback(query, subject, sc, score(query, subject, sc).end?, block_rows)
}

/// Checkpointed traceback from the end cell `(ie, je)`, `block_rows` rows per block.
fn traceback(
    query: &[u8],
    subject: &[u8],
    sc: &Scoring,
    (ie, je): (usize, usize),
    block_rows: usize,
) -> Option<Alignment> {
    let k = block_rows.max(1);
    let subject_part = &subject[..=je];
    let width = je + 2; // columns 0..=je+1 in DP terms (j = 0 is the boundary)

    // Forward pass: checkpoints of (H, F) at rows 0, k, 2k, ... below ie+1.
    let mut h = sc.mode.top_row(je + 1, sc);
    let mut f = vec![NEG_INF; width];
    let mut checkpoints: Vec<(Vec<i32>, Vec<i32>)> = Vec::new();
    for (i, &qi) in query[..=ie].iter().enumerate() {
        if i % k == 0 {
            checkpoints.push((h.clone(), f.clone()));
        }
        advance_row(i + 1, qi, subject_part, sc, &mut h, &mut f, None);
    }
    let score = h[je + 1]; // H(ie, je)
    if sc.mode == Mode::Local && score <= 0 {
        return None;
    }
    // The reference's walk, fed one recomputed block of rows at a time, last first.
    let mut walk = Walk::new((ie, je), sc.mode);
    let mut dirs = vec![0u8; k * width];
    for b in (0..checkpoints.len()).rev() {
        let first_row = b * k + 1; // DP row of the block's first row
        let last_row = (first_row + k - 1).min(ie + 1);
        if walk.done() {
            break;
        }
        if walk.row() < first_row {
            continue;
        }
        let (mut h, mut f) = checkpoints[b].clone();
        for r in first_row..=last_row {
            let row = &mut dirs[(r - first_row) * width..(r - first_row + 1) * width];
            advance_row(r, query[r - 1], subject_part, sc, &mut h, &mut f, Some(row));
        }
        walk.through_block(query, subject, &dirs, first_row, width);
    }
    Some(walk.alignment(score, 0, query, subject, sc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testing::generator;

    #[test]
    fn every_block_size_gives_the_references_alignment() {
        let sc = crate::reference::testing::blosum62(11, 1);
        let mut next = generator(17);
        for _ in 0..40 {
            let (m, n) = (1 + next(120), 1 + next(150));
            let q: Vec<u8> = (0..m).map(|_| next(20) as u8).collect();
            let mut s: Vec<u8> = (0..n).map(|_| next(20) as u8).collect();
            if s.len() > 40 && q.len() > 30 {
                s[10..30].copy_from_slice(&q[5..25]);
            }
            let want = crate::reference::align(&q, &s, &sc);
            assert_eq!(align(&q, &s, &sc), want);
            for k in [1, 2, 3, 7, 16, 1000] {
                assert_eq!(align_with_block_rows(&q, &s, &sc, k), want, "block rows {k}");
            }
        }
    }
}

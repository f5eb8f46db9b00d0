//! Traceback in memory proportional to `n·√m`.
//!
//! First the score pass finds the end cell (ie, je). Then a forward pass over rows
//! 1..=ie (columns 1..=je only) keeps a checkpoint of H and F every `k` rows. The
//! traceback walks blocks of `k` rows from the last to the first: each block is
//! recomputed from its checkpoint with the traceback bits stored (k·je bytes), and the
//! walk continues in it, carrying the current state (H, E or F) across block
//! boundaries. With k >= ie this is the textbook full-matrix traceback; the tests
//! check that every k gives the same alignment.

use super::{NEG_INF, advance_row, dir, sw_score};
use crate::align::{Alignment, Op};
use crate::scoring::Scoring;

/// Pairs with more cells than this are traced back with checkpoints; smaller ones
/// keep the whole traceback matrix (at most this many bytes).
const FULL_MATRIX_CELLS: usize = 1 << 24;

/// The optimal local alignment of `query` and `subject` (alphabet codes), or `None`
/// when the best score is 0.
pub fn align(query: &[u8], subject: &[u8], sc: &Scoring) -> Option<Alignment> {
    align_ending_at(query, subject, sc, sw_score(query, subject, sc).end?)
}

/// The alignment [`align`] returns when the end cell is already known (a scan kernel
/// reports it): the score pass is skipped. `end` = (query, subject) positions, 0-based;
/// given another cell, the result is the best alignment ending there (`None` if it
/// scores 0).
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
    traceback(query, subject, sc, sw_score(query, subject, sc).end?, block_rows)
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
    let mut h = vec![0i32; width];
    let mut f = vec![NEG_INF; width];
    let mut checkpoints: Vec<(Vec<i32>, Vec<i32>)> = Vec::new();
    for (i, &qi) in query[..=ie].iter().enumerate() {
        if i % k == 0 {
            checkpoints.push((h.clone(), f.clone()));
        }
        advance_row(qi, subject_part, sc, &mut h, &mut f, None);
    }
    let score = h[je + 1]; // H(ie, je)
    if score <= 0 {
        return None;
    }

    #[derive(Clone, Copy, PartialEq)]
    enum State {
        H,
        E,
        F,
    }
    // Walk back from (ie+1, je+1) in DP coordinates (1-based rows and columns).
    let (mut i, mut j) = (ie + 1, je + 1);
    let mut state = State::H;
    let mut columns: Vec<Op> = Vec::new();
    let mut dirs = vec![0u8; k * width];
    'blocks: for b in (0..checkpoints.len()).rev() {
        let first_row = b * k + 1; // DP row of the block's first row
        let last_row = (first_row + k - 1).min(ie + 1);
        if i < first_row {
            continue;
        }
        let (mut h, mut f) = checkpoints[b].clone();
        for r in first_row..=last_row {
            let row = &mut dirs[(r - first_row) * width..(r - first_row + 1) * width];
            advance_row(query[r - 1], subject_part, sc, &mut h, &mut f, Some(row));
        }
        while i >= first_row {
            if j == 0 {
                break 'blocks;
            }
            let d = dirs[(i - first_row) * width + j];
            match state {
                State::H => match d & dir::H_MASK {
                    dir::ZERO => break 'blocks,
                    dir::DIAG => {
                        columns.push(if query[i - 1] == subject[j - 1] { Op::Match } else { Op::Mismatch });
                        i -= 1;
                        j -= 1;
                    }
                    dir::FROM_E => state = State::E,
                    _ => state = State::F,
                },
                State::E => {
                    columns.push(Op::Deletion);
                    if d & dir::E_EXTENDED == 0 {
                        state = State::H;
                    }
                    j -= 1;
                }
                State::F => {
                    columns.push(Op::Insertion);
                    if d & dir::F_EXTENDED == 0 {
                        state = State::H;
                    }
                    i -= 1;
                }
            }
        }
    }
    columns.reverse();
    // (i, j) is now the DP cell before the first aligned pair: 0-based starts are i, j.
    Some(Alignment::from_columns(score, i, j, &columns, query, subject, sc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testing::{blosum62, protein};

    /// The alignment of two protein strings under BLOSUM62 with the given gaps, checked
    /// against its own rescoring and the score pass.
    fn aligned(query: &str, subject: &str, open: i32, extend: i32) -> Alignment {
        let (sc, q, s) = (blosum62(open, extend), protein(query), protein(subject));
        let a = align(&q, &s, &sc).unwrap();
        assert_eq!(a.rescore(&q, &s, &sc), a.score as i64);
        assert_eq!(a.score, sw_score(&q, &s, &sc).score);
        a
    }

    #[test]
    fn hand_made_alignment_with_a_deletion() {
        let a = aligned("WWWWW", "PWWAWWWP", 11, 1);
        assert_eq!(a.score, 43);
        assert_eq!((a.query_start, a.query_end, a.subject_start, a.subject_end), (0, 4, 1, 6));
        assert_eq!(a.cigar(true), "2=1D3=");
        assert_eq!(a.cigar(false), "2M1D3M");
        assert_eq!((a.identities, a.mismatches, a.gap_opens, a.gap_columns, a.length()), (5, 0, 1, 1, 6));
    }

    #[test]
    fn insertion_and_mismatch() {
        let a = aligned("HEAGAWGHEE", "PAWHEAE", 5, 1);
        assert!(a.ops.iter().any(|&(op, _)| op == Op::Mismatch || op == Op::Insertion), "{}", a.cigar(true));
    }

    #[test]
    fn zero_score_has_no_alignment() {
        let sc = blosum62(11, 1);
        assert!(align(&protein("W"), &protein("P"), &sc).is_none());
    }
}

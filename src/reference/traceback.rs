//! The traceback rule, and the textbook traceback that applies it over the whole table:
//! the truth every aligner clsw runs ([`crate::traceback`]) is tested against.
//!
//! From the end cell the walk reads each cell's bits ([`dir`]): in state H it stops at
//! a zero, takes the diagonal, or enters E or F as the bits say; in E (F) it emits a
//! deletion (insertion) and returns to H where the gap was opened rather than extended.
//! In the global and glocal modes no cell is a zero start: the walk goes on to the
//! table's edge, where the rest of the query is one gap (column 0), and in the global
//! mode the rest of the subject too (row 0).

use super::{NEG_INF, advance_row, dir, score};
use crate::align::{Alignment, Op};
use crate::scoring::{Mode, Scoring};

/// The optimal alignment of `query` and `subject` (alphabet codes) in the scoring's
/// mode, traced back over the whole table (memory `m x n`). `None` when the best local
/// score is 0; in the other modes only when a sequence is empty or the best glocal
/// alignment uses no subject residue.
pub fn align(query: &[u8], subject: &[u8], sc: &Scoring) -> Option<Alignment> {
    align_ending_at(query, subject, sc, score(query, subject, sc).end?)
}

/// The best alignment ending at `end` (0-based query and subject positions), traced
/// back over rows and columns up to `end`; in the local mode `None` if it scores 0.
pub fn align_ending_at(query: &[u8], subject: &[u8], sc: &Scoring, (ie, je): (usize, usize)) -> Option<Alignment> {
    let subject_part = &subject[..=je];
    let width = je + 2;
    let mut h = sc.mode.top_row(je + 1, sc);
    let mut f = vec![NEG_INF; width];
    let mut dirs = vec![0u8; (ie + 1) * width];
    for (r, &qi) in query[..=ie].iter().enumerate() {
        advance_row(r + 1, qi, subject_part, sc, &mut h, &mut f, Some(&mut dirs[r * width..(r + 1) * width]));
    }
    let score = h[je + 1];
    if sc.mode == Mode::Local && score <= 0 {
        return None;
    }
    let mut walk = Walk::new((ie, je), sc.mode);
    walk.through_block(query, subject, &dirs, 1, width);
    Some(walk.alignment(score, 0, query, subject, sc))
}

/// The state of a traceback walk.
#[derive(Clone, Copy, PartialEq)]
enum State {
    H,
    E,
    F,
}

/// A traceback walk in progress, in DP coordinates (1-based rows and columns), with
/// the columns it has emitted (last column first). A walk can be fed the table a block
/// of rows at a time, from the last block to the first.
pub(crate) struct Walk {
    i: usize,
    j: usize,
    state: State,
    columns: Vec<Op>,
    done: bool,
    /// What the table's edges hold: nothing to walk (local), or gaps.
    edges: Mode,
}

impl Walk {
    /// A walk from the end cell `(ie, je)` (0-based query and subject positions) of a
    /// table in `mode`.
    pub(crate) fn new((ie, je): (usize, usize), mode: Mode) -> Walk {
        Walk { i: ie + 1, j: je + 1, state: State::H, columns: Vec::new(), done: false, edges: mode }
    }

    /// True when the walk has found the alignment's start.
    pub(crate) fn done(&self) -> bool {
        self.done
    }

    /// The DP row the walk stands in.
    pub(crate) fn row(&self) -> usize {
        self.i
    }

    /// Walks through the block of DP rows `first_row..` whose bits are `dirs` (`width`
    /// per row, column `j` at `j`), until the walk leaves the block upwards or ends.
    pub(crate) fn through_block(&mut self, query: &[u8], subject: &[u8], dirs: &[u8], first_row: usize, width: usize) {
        while !self.done && self.i >= first_row {
            if self.j == 0 {
                // Column 0: in the global and glocal modes the query's first i residues
                // against nothing, one gap (H(i, 0) is the mode's left edge).
                if self.edges != Mode::Local {
                    self.columns.extend(std::iter::repeat_n(Op::Insertion, self.i));
                    self.i = 0;
                }
                self.done = true;
                break;
            }
            let d = dirs[(self.i - first_row) * width + self.j];
            match self.state {
                State::H => match d & dir::H_MASK {
                    dir::ZERO => self.done = true,
                    dir::DIAG => {
                        let same = query[self.i - 1] == subject[self.j - 1];
                        self.columns.push(if same { Op::Match } else { Op::Mismatch });
                        self.i -= 1;
                        self.j -= 1;
                    }
                    dir::FROM_E => self.state = State::E,
                    _ => self.state = State::F,
                },
                State::E => {
                    self.columns.push(Op::Deletion);
                    if d & dir::E_EXTENDED == 0 {
                        self.state = State::H;
                    }
                    self.j -= 1;
                }
                State::F => {
                    self.columns.push(Op::Insertion);
                    if d & dir::F_EXTENDED == 0 {
                        self.state = State::H;
                    }
                    self.i -= 1;
                }
            }
        }
        if self.i == 0 && !self.done {
            // Row 0: in the global mode the subject's first j residues against nothing.
            if self.edges == Mode::Global {
                self.columns.extend(std::iter::repeat_n(Op::Deletion, self.j));
                self.j = 0;
            }
            self.done = true;
        }
    }

    /// The alignment of score `score` the walk traced.
    /// The alignment walked, over `query` whose DP row 1 is its residue `first_row`
    /// (0 where the walk ran over the whole query; a rectangle's first row otherwise).
    pub(crate) fn alignment(
        mut self,
        score: i32,
        first_row: usize,
        query: &[u8],
        subject: &[u8],
        sc: &Scoring,
    ) -> Alignment {
        self.columns.reverse();
        // (i, j) is now the DP cell before the first aligned pair: 0-based starts are i, j.
        Alignment::from_columns(score, first_row + self.i, self.j, &self.columns, query, subject, sc)
    }
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
        assert_eq!(a.score, score(&q, &s, &sc).score);
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

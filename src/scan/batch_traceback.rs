//! Sixteen tracebacks at once: one query against up to 16 subject pieces, one per
//! 16-bit SIMD lane ([`crate::scan::lanes`]), each traced back from its own end cell.
//!
//! Lane `l` holds the rectangle of query rows `rows[l]` and of its subject piece's
//! columns; every lane walks the same query rows (the union of the lanes' rows), so a
//! row's score vector is one load from the column's profile, as in the native scan.
//! Rows before a lane's first row are its boundary (H = 0, E = F = -inf), rows after
//! its last and columns past its piece are never read back. The recurrence and the
//! traceback bits are the reference's (`src/reference`), lane by lane:
//!
//! ```text
//! E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - oe)      oe = open + extend
//! F(i,j) = max(F(i-1,j) - extend, H(i-1,j) - oe)
//! H(i,j) = max(H(i-1,j-1) + S(q_i, s_j), E(i,j), F(i,j), 0)
//! ```
//!
//! walked column by column. Memory: the bits of a block of columns at a time; with
//! more columns than one block holds, a first pass keeps H and E at each block's
//! start and the blocks are recomputed from the last, the walk going on in each
//! (the reference's checkpoints, along columns). A block is [`BLOCK_BYTES`] of bits,
//! or `2 sqrt(columns)` columns where that is more, which keeps the checkpoints and
//! the bits together near their least, `64 rows sqrt(columns)` bytes
//! ([`working_bytes`]).
//!
//! [`align_rects`] returns for each lane what [`crate::reference::align_ending_at`]
//! returns for its rectangle and end cell; scores must fit 16 bits (the caller checks
//! the lane's best against [`crate::scan::lanes`]' limit).

use super::lanes::{LANES, Lanes, add, max, splat};
use crate::align::{Alignment, Op};
use crate::reference::dir;
use crate::scoring::Scoring;
use std::ops::Range;

/// Below any reachable E or F (see `crate::scan::striped`).
const NEG: i16 = i16::MIN / 2;
/// The score of a pair with a padding column: keeps padded cells out of every path.
const PAD_SCORE: i16 = -1_000;
/// Bytes of traceback bits kept at a time (one block of columns x rows x lanes).
const BLOCK_BYTES: usize = 8 << 20;

/// One lane's pair: query rows `rows` (the rectangle's, the last is the end row)
/// against `subject` (the rectangle's columns, the last is the end column), whose
/// first residue is `subject_offset` in the whole subject.
#[derive(Debug, Clone)]
pub struct Rect<'a> {
    pub rows: Range<usize>,
    pub subject: &'a [u8],
    pub subject_offset: usize,
}

/// The alignment ending at each rectangle's last cell, as
/// [`crate::reference::align_ending_at`] gives it over that rectangle (positions in
/// the whole query and subject); `None` where it scores 0. At most 16 rectangles.
pub fn align_rects(query: &[u8], rects: &[Rect<'_>], sc: &Scoring) -> Vec<Option<Alignment>> {
    assert!(rects.len() <= LANES, "at most {LANES} rectangles at once");
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor supports AVX2 (checked just above).
            return unsafe { align_rects_avx2(query, rects, sc) };
        }
    }
    align_rects_portable(query, rects, sc, block_columns)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn align_rects_avx2(query: &[u8], rects: &[Rect<'_>], sc: &Scoring) -> Vec<Option<Alignment>> {
    align_rects_portable(query, rects, sc, block_columns)
}

/// The columns of a block, for a batch of `rows` union rows and `cols` columns.
fn block_columns(rows: usize, cols: usize) -> usize {
    (BLOCK_BYTES / (rows.max(1) * LANES)).max(2 * cols.isqrt()).max(1)
}

/// The most bytes [`align_rects`] holds at once for a batch of `rows` union rows and
/// `cols` columns (an upper bound).
pub fn working_bytes(rows: usize, cols: usize) -> u128 {
    let (rows, cols) = (rows as u128, cols as u128);
    let block = block_columns(rows as usize, cols as usize) as u128;
    let vector = LANES as u128 * 2;
    let starts = (cols.div_ceil(block) + 1) * rows * 2 * vector;
    let bits = block.min(cols) * rows * LANES as u128;
    // Active lanes, H and E per row; each lane's walk (a column per step).
    starts + bits + 3 * rows * vector + LANES as u128 * (rows + cols)
}

/// The shared state of one batch: the union of rows, the column profiles' source.
struct Batch<'q, 'r> {
    query: &'q [u8],
    rects: &'r [Rect<'r>],
    sc: &'r Scoring,
    /// Union of the lanes' rows.
    first: usize,
    rows: usize,
    /// Per union row: -1 in lanes whose rectangle has begun, 0 before (boundary).
    active: Vec<Lanes>,
}

impl Batch<'_, '_> {
    /// Per query letter, the scores against column `j` of every lane's piece.
    fn column_profile(&self, j: usize, out: &mut [Lanes]) {
        for (a, row) in out.iter_mut().enumerate() {
            for (l, cell) in row.iter_mut().enumerate() {
                *cell = match self.rects.get(l).and_then(|r| r.subject.get(j)) {
                    Some(&c) => self.sc.matrix.score(a as u8, c) as i16,
                    None => PAD_SCORE,
                };
            }
        }
    }

    /// Advances columns `cols`, from `h` and `e` (H and E of the column before) to
    /// the last column's; with `bits`, the traceback bits of each cell at
    /// `bits[(j - cols.start) * rows + r][l]`.
    #[inline(always)]
    fn advance(&self, cols: Range<usize>, h: &mut [Lanes], e: &mut [Lanes], mut bits: Option<&mut [[u8; LANES]]>) {
        let (oe, ext) = ((self.sc.gaps.open + self.sc.gaps.extend) as i16, self.sc.gaps.extend as i16);
        let (minus_oe, minus_ext, zero) = (splat(-oe), splat(-ext), splat(0));
        let mut profile = vec![splat(0); self.sc.matrix.size()];
        for j in cols.clone() {
            self.column_profile(j, &mut profile);
            let (mut diag, mut up, mut f) = (zero, zero, splat(NEG));
            for r in 0..self.rows {
                let active = self.active[r];
                let left = h[r];
                let (e_open, e_ext) = (add(left, minus_oe), add(e[r], minus_ext));
                let ev = max(e_open, e_ext);
                let (f_open, f_ext) = (add(up, minus_oe), add(f, minus_ext));
                let fv = max(f_open, f_ext);
                let d = add(diag, profile[self.query[self.first + r] as usize]);
                let best = max(max(d, ev), max(fv, zero));
                if let Some(bits) = bits.as_deref_mut() {
                    // The reference's choice (zero, then diagonal, then E, then F) as
                    // arithmetic, so the lanes stay in vector registers.
                    bits[(j - cols.start) * self.rows + r] = std::array::from_fn(|l| {
                        let (nz, nd, ne) = ((best[l] != 0) as u8, (best[l] != d[l]) as u8, (best[l] != ev[l]) as u8);
                        let src = nz * (dir::DIAG + nd + (nd & ne));
                        src | ((e_ext[l] > e_open[l]) as u8 * dir::E_EXTENDED)
                            | ((f_ext[l] > f_open[l]) as u8 * dir::F_EXTENDED)
                    });
                }
                // Rows before a lane's rectangle are its boundary: H = 0, E = F = -inf.
                let h_new: Lanes = std::array::from_fn(|l| best[l] & active[l]);
                e[r] = std::array::from_fn(|l| if active[l] != 0 { ev[l] } else { NEG });
                f = std::array::from_fn(|l| if active[l] != 0 { fv[l] } else { NEG });
                diag = left;
                h[r] = h_new;
                up = h_new;
            }
        }
    }
}

/// Where a lane's walk stands: the current cell (0-based, rows of the union) and
/// state, the columns so far (last first), and whether it has ended.
struct Walk {
    r: isize,
    c: isize,
    state: u8,
    columns: Vec<Op>,
    done: bool,
}

const IN_H: u8 = 0;
const IN_E: u8 = 1;
const IN_F: u8 = 2;

#[inline(always)]
fn align_rects_portable(
    query: &[u8],
    rects: &[Rect<'_>],
    sc: &Scoring,
    block_columns: impl Fn(usize, usize) -> usize,
) -> Vec<Option<Alignment>> {
    if rects.is_empty() {
        return Vec::new();
    }
    let first = rects.iter().map(|r| r.rows.start).min().unwrap_or(0);
    let end = rects.iter().map(|r| r.rows.end).max().unwrap_or(0);
    let rows = end - first;
    let cols = rects.iter().map(|r| r.subject.len()).max().unwrap_or(0);
    let active = (first..end)
        .map(|q| std::array::from_fn(|l| rects.get(l).map_or(0, |r| if q >= r.rows.start { -1 } else { 0 })))
        .collect();
    let batch = Batch { query, rects, sc, first, rows, active };
    let block = block_columns(rows, cols).max(1);
    let blocks = cols.div_ceil(block).max(1);

    // Forward: H and E at each block's first column (after the column before it).
    let mut h = vec![splat(0); rows];
    let mut e = vec![splat(NEG); rows];
    let mut starts: Vec<(Vec<Lanes>, Vec<Lanes>)> = Vec::with_capacity(blocks);
    for b in 0..blocks {
        starts.push((h.clone(), e.clone()));
        if b + 1 < blocks {
            batch.advance(b * block..(b + 1) * block, &mut h, &mut e, None);
        }
    }
    let mut walks: Vec<Walk> = rects
        .iter()
        .map(|r| Walk {
            r: (r.rows.end - 1 - first) as isize,
            c: r.subject.len() as isize - 1,
            state: IN_H,
            columns: Vec::new(),
            done: r.rows.is_empty() || r.subject.is_empty(),
        })
        .collect();
    let mut bits = vec![[0u8; LANES]; block.min(cols) * rows];
    for b in (0..blocks).rev() {
        let c0 = b * block;
        let c1 = ((b + 1) * block).min(cols);
        if walks.iter().all(|w| w.done) {
            break;
        }
        let (mut h, mut e) = starts[b].clone();
        batch.advance(c0..c1, &mut h, &mut e, Some(&mut bits));
        for (l, w) in walks.iter_mut().enumerate() {
            if w.done {
                continue;
            }
            let start_row = (rects[l].rows.start - first) as isize;
            while !w.done && w.c >= c0 as isize {
                if w.r < start_row || w.c < 0 {
                    w.done = true;
                    break;
                }
                let d = bits[(w.c as usize - c0) * rows + w.r as usize][l];
                match w.state {
                    IN_H => match d & dir::H_MASK {
                        dir::ZERO => w.done = true,
                        dir::DIAG => {
                            let (q, s) = (query[first + w.r as usize], rects[l].subject[w.c as usize]);
                            w.columns.push(if q == s { Op::Match } else { Op::Mismatch });
                            w.r -= 1;
                            w.c -= 1;
                        }
                        dir::FROM_E => w.state = IN_E,
                        _ => w.state = IN_F,
                    },
                    IN_E => {
                        w.columns.push(Op::Deletion);
                        if d & dir::E_EXTENDED == 0 {
                            w.state = IN_H;
                        }
                        w.c -= 1;
                    }
                    _ => {
                        w.columns.push(Op::Insertion);
                        if d & dir::F_EXTENDED == 0 {
                            w.state = IN_H;
                        }
                        w.r -= 1;
                    }
                }
            }
            if w.c < 0 || w.r < start_row {
                w.done = true;
            }
        }
    }
    walks
        .into_iter()
        .zip(rects)
        .map(|(mut w, rect)| {
            if w.columns.is_empty() {
                return None; // the end cell holds 0
            }
            w.columns.reverse();
            let q_start = (first as isize + w.r + 1) as usize;
            let s_start = (w.c + 1) as usize;
            // The path's own score is H at its end (what the reference reports).
            let mut a = Alignment::from_columns(0, q_start, s_start, &w.columns, query, rect.subject, sc);
            a.score = a.rescore(query, rect.subject, sc) as i32;
            a.subject_start += rect.subject_offset;
            a.subject_end += rect.subject_offset;
            Some(a)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::align_ending_at;
    use crate::reference::testing::generator;
    use crate::scoring::{Gaps, Matrix};

    /// Rectangles of many shapes and end cells (some scoring 0), related pieces with
    /// small alphabets for ties, in one block and in blocks of a few columns: each
    /// lane equals the reference's alignment over its rectangle.
    #[test]
    fn every_lane_equals_the_reference_in_any_blocks() {
        let mut next = generator(5);
        let scorings = [
            Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()),
            Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(0, 2).unwrap()),
            Scoring::new(
                Matrix::match_mismatch(crate::seq::Alphabet::Dna, 1, -1).unwrap(),
                Gaps::affine(1, 1).unwrap(),
            ),
        ];
        let mut compared = 0;
        for sc in &scorings {
            let alpha = if sc.matrix.size() < 10 { 4 } else { 20 };
            for round in 0..12 {
                let q: Vec<u8> = (0..1 + next(150)).map(|_| next(alpha) as u8).collect();
                let subjects: Vec<Vec<u8>> = (0..1 + next(16))
                    .map(|_| {
                        let mut s: Vec<u8> = (0..1 + next(120)).map(|_| next(alpha) as u8).collect();
                        let a = next(q.len());
                        let piece: Vec<u8> =
                            q[a..(a + 1 + next(80)).min(q.len())].iter().copied().filter(|_| next(12) != 0).collect();
                        let at = next(s.len() + 1);
                        s.splice(at..at, piece);
                        s
                    })
                    .collect();
                let rects: Vec<Rect<'_>> = subjects
                    .iter()
                    .map(|s| {
                        let start = next(q.len());
                        let end = start + 1 + next(q.len() - start);
                        let off = next(s.len());
                        let len = 1 + next(s.len() - off);
                        Rect { rows: start..end, subject: &s[off..off + len], subject_offset: off }
                    })
                    .collect();
                for block in [0, 1, 3] {
                    let got = if block == 0 {
                        align_rects_portable(&q, &rects, sc, block_columns)
                    } else {
                        align_rects_portable(&q, &rects, sc, |_, _| block)
                    };
                    for (k, r) in rects.iter().enumerate() {
                        let piece_q = &q[r.rows.clone()];
                        let want = align_ending_at(piece_q, r.subject, sc, (piece_q.len() - 1, r.subject.len() - 1))
                            .map(|mut a| {
                                a.query_start += r.rows.start;
                                a.query_end += r.rows.start;
                                a.subject_start += r.subject_offset;
                                a.subject_end += r.subject_offset;
                                a
                            });
                        assert_eq!(got[k], want, "round {round} lane {k} block {block}");
                        compared += want.is_some() as usize;
                    }
                }
                assert_eq!(align_rects(&q, &rects, sc), align_rects_portable(&q, &rects, sc, block_columns));
            }
        }
        assert!(compared > 300, "{compared}");
    }
}

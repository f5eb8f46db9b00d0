//! Sixteen tracebacks at once: one query against up to 16 subject pieces, one per
//! 16-bit SIMD lane ([`crate::scan::native::lanes`]), each traced back from its own end cell.
//!
//! Lane `l` holds the rectangle of query rows `rows[l]` and of its subject piece's
//! columns; every lane walks the same query rows (the union of the lanes' rows), so a
//! row's score vector is one load from the column's profile, as in the native scan.
//! Rows before a lane's first row are its boundary (H = 0, E = F = -inf), rows after
//! its last and columns past its piece are never read back. The recurrence and the
//! traceback bits are [`crate::reference`]'s, lane by lane,
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
//! the lane's best against [`crate::scan::native::lanes`]' limit).

use crate::align::{Alignment, Op};
use crate::reference::dir;
use crate::scan::native::lanes::{LANES, Lanes, add, max, splat};
use crate::scoring::Scoring;
use std::ops::Range;

/// Below any reachable E or F (see `crate::scan::native::striped`).
pub(super) const NEG: i16 = i16::MIN / 2;
/// The score of a pair with a padding column: keeps padded cells out of every path.
const PAD_SCORE: i16 = -1_000;
/// Bytes of traceback bits kept at a time (one block of columns x rows x lanes).
const BLOCK_BYTES: usize = 8 << 20;

/// The traceback bits of one row of a column, 4 a lane ([`dir`]'s codes are below 16):
/// lane `k`'s in the low nibble of byte `k % 8`, lane `k + 8`'s in its high nibble.
type Bits = [u8; LANES / 2];

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
    align_rects_with(Kernel::best(), query, rects, sc, block_columns)
}

/// The row loop of a column: the portable lane-by-lane one (the readable twin, and
/// every processor's) or the AVX2 one ([`x86`]), which computes the same bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kernel {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    pub(super) fn best() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                return Kernel::Avx2;
            }
        }
        Kernel::Portable
    }
}

/// The columns of a block, for a batch of `rows` union rows and `cols` columns.
fn block_columns(rows: usize, cols: usize) -> usize {
    (BLOCK_BYTES / (rows.max(1) * size_of::<Bits>())).max(2 * cols.isqrt()).max(1)
}

/// The most bytes [`align_rects`] holds at once for a batch of `rows` union rows and
/// `cols` columns (an upper bound).
pub fn working_bytes(rows: usize, cols: usize) -> u128 {
    let (rows, cols) = (rows as u128, cols as u128);
    let block = block_columns(rows as usize, cols as usize) as u128;
    let vector = LANES as u128 * 2;
    let starts = (cols.div_ceil(block) + 1) * rows * 2 * vector;
    let bits = block.min(cols) * rows * size_of::<Bits>() as u128;
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
    kernel: Kernel,
}

impl Batch<'_, '_> {
    /// The rows of scores the union's rows take, and each row's key into them: the
    /// matrix's rows by query letter, or a profile's by union row (its position less
    /// `first`).
    fn keys(&self) -> (usize, Vec<u32>) {
        match &self.sc.pssm {
            Some(_) => (self.rows, (0..self.rows as u32).collect()),
            None => (
                self.sc.matrix.size(),
                self.query[self.first..self.first + self.rows].iter().map(|&a| a as u32).collect(),
            ),
        }
    }

    /// Per key ([`Batch::keys`]), the scores against column `j` of every lane's piece.
    fn column_profile(&self, j: usize, out: &mut [Lanes]) {
        let residues: [Option<u8>; LANES] =
            std::array::from_fn(|l| self.rects.get(l).and_then(|r| r.subject.get(j)).copied());
        for (a, row) in out.iter_mut().enumerate() {
            let scores: &[i32] = match &self.sc.pssm {
                Some(p) => p.row(self.first + a),
                None => self.sc.matrix.row(a as u8),
            };
            *row = std::array::from_fn(|l| residues[l].map_or(PAD_SCORE, |c| scores[c as usize] as i16));
        }
    }

    /// Advances columns `cols`, from `h` and `e` (H and E of the column before) to
    /// the last column's; with `BITS`, the traceback bits of each cell at
    /// `bits[(j - cols.start) * rows + r]` ([`Bits`]).
    fn advance<const BITS: bool>(&self, cols: Range<usize>, h: &mut [Lanes], e: &mut [Lanes], bits: &mut [Bits]) {
        let (count, keys) = self.keys();
        let mut profile = vec![splat(0); count];
        assert!(keys.iter().all(|&a| (a as usize) < profile.len()), "query code outside the matrix's alphabet");
        let column = Column {
            keys: &keys,
            active: &self.active,
            oe: (self.sc.gaps.open + self.sc.gaps.extend) as i16,
            extend: self.sc.gaps.extend as i16,
        };
        let (h, e) = (&mut h[..self.rows], &mut e[..self.rows]);
        for j in cols.clone() {
            self.column_profile(j, &mut profile);
            let out: &mut [Bits] = if BITS { &mut bits[(j - cols.start) * self.rows..][..self.rows] } else { &mut [] };
            match self.kernel {
                Kernel::Portable => column.rows::<BITS>(&profile, h, e, out),
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `Kernel::best` chose AVX2 on a processor that has it.
                Kernel::Avx2 => unsafe { x86::rows::<BITS>(&column, &profile, h, e, out) },
            }
        }
    }
}

/// What the row loop of every column shares: the union's query rows (their keys, below
/// the profile's rows), the lanes active on each, the gap costs.
struct Column<'a> {
    keys: &'a [u32],
    active: &'a [Lanes],
    oe: i16,
    extend: i16,
}

impl Column<'_> {
    /// One column down the union's rows, lane by lane: `h` and `e` go from the column
    /// before to this one, with `BITS` each cell's traceback bits go to `bits[r]`.
    #[inline(always)]
    fn rows<const BITS: bool>(&self, profile: &[Lanes], h: &mut [Lanes], e: &mut [Lanes], bits: &mut [Bits]) {
        let (minus_oe, minus_ext, zero, neg) = (splat(-self.oe), splat(-self.extend), splat(0), splat(NEG));
        let (mut diag, mut up, mut f) = (zero, zero, neg);
        for r in 0..self.keys.len() {
            let active = self.active[r];
            let left = h[r];
            let (e_open, e_ext) = (add(left, minus_oe), add(e[r], minus_ext));
            let ev = max(e_open, e_ext);
            let (f_open, f_ext) = (add(up, minus_oe), add(f, minus_ext));
            let fv = max(f_open, f_ext);
            let d = add(diag, profile[self.keys[r] as usize]);
            let best = max(max(d, ev), max(fv, zero));
            if BITS {
                // The reference's choice (zero, then diagonal, then E, then F) as
                // lane masks (-1 where true), so the lanes stay in vector registers.
                let (nz, nd, ne) = (differ(best, zero), differ(best, d), differ(best, ev));
                let (ee, fe) = (above(e_ext, e_open), above(f_ext, f_open));
                let code: [u8; LANES] = std::array::from_fn(|l| {
                    let src = nz[l] & (dir::DIAG as i16 - nd[l] - (nd[l] & ne[l]));
                    (src | (ee[l] & dir::E_EXTENDED as i16) | (fe[l] & dir::F_EXTENDED as i16)) as u8
                });
                bits[r] = std::array::from_fn(|k| code[k] | code[k + LANES / 2] << 4);
            }
            // Rows before a lane's rectangle are its boundary: H = 0, E = F = -inf.
            let h_new: Lanes = std::array::from_fn(|l| best[l] & active[l]);
            e[r] = std::array::from_fn(|l| (ev[l] & active[l]) | (NEG & !active[l]));
            f = std::array::from_fn(|l| (fv[l] & active[l]) | (NEG & !active[l]));
            diag = left;
            h[r] = h_new;
            up = h_new;
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod x86 {
    //! [`Column::rows`] on AVX2: a lane array is one 256-bit vector. Left to the
    //! compiler, the lane-by-lane loop vectorizes only in part (some lanes stay
    //! scalar) and runs 4-5 times slower.

    use super::{Bits, Column, Lanes, NEG, dir};
    use std::arch::x86_64::*;

    /// [`crate::reference::dir::code`] of each lane: a cell's traceback bits (below 16)
    /// from its H (`best`), diagonal `d`, E (`e`) and the gaps' open and extension
    /// candidates. Masks are -1 where equal: the source is DIAG + (best != d) + (best
    /// != d and best != E), 0 where best is 0.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::traceback) fn codes(
        best: __m256i,
        d: __m256i,
        e: __m256i,
        (e_open, e_ext): (__m256i, __m256i),
        (f_open, f_ext): (__m256i, __m256i),
    ) -> __m256i {
        let one = _mm256_set1_epi16(1);
        let (eq_d, eq_e) = (_mm256_cmpeq_epi16(best, d), _mm256_cmpeq_epi16(best, e));
        let src = _mm256_add_epi16(
            _mm256_add_epi16(_mm256_set1_epi16(dir::DIAG as i16), _mm256_andnot_si256(eq_d, one)),
            _mm256_andnot_si256(_mm256_or_si256(eq_d, eq_e), one),
        );
        let src = _mm256_andnot_si256(_mm256_cmpeq_epi16(best, _mm256_setzero_si256()), src);
        let flags = _mm256_or_si256(
            _mm256_and_si256(_mm256_cmpgt_epi16(e_ext, e_open), _mm256_set1_epi16(dir::E_EXTENDED as i16)),
            _mm256_and_si256(_mm256_cmpgt_epi16(f_ext, f_open), _mm256_set1_epi16(dir::F_EXTENDED as i16)),
        );
        _mm256_or_si256(src, flags)
    }

    /// [`Column::rows`], the same cells and bits.
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn rows<const BITS: bool>(
        c: &Column<'_>,
        profile: &[Lanes],
        h: &mut [Lanes],
        e: &mut [Lanes],
        bits: &mut [Bits],
    ) {
        let rows = c.keys.len();
        assert!(h.len() >= rows && e.len() >= rows && c.active.len() >= rows && (!BITS || bits.len() >= rows));
        // SAFETY: a Lanes is 16 i16, 32 bytes, one register, loaded unaligned; the
        // processor has AVX2 (this function's contract).
        let load = |v: &Lanes| unsafe { _mm256_loadu_si256(v.as_ptr().cast()) };
        let (minus_oe, minus_ext) = (_mm256_set1_epi16(-c.oe), _mm256_set1_epi16(-c.extend));
        let (zero, neg) = (_mm256_setzero_si256(), _mm256_set1_epi16(NEG));
        let (mut diag, mut up, mut f) = (zero, zero, neg);
        for r in 0..rows {
            // SAFETY: (every access below) r < rows, checked against each slice above;
            // keys index the profile (`Batch::advance` checked them).
            unsafe {
                let active = load(c.active.get_unchecked(r));
                let left = load(h.get_unchecked(r));
                let e_open = _mm256_adds_epi16(left, minus_oe);
                let e_ext = _mm256_adds_epi16(load(e.get_unchecked(r)), minus_ext);
                let ev = _mm256_max_epi16(e_open, e_ext);
                let f_open = _mm256_adds_epi16(up, minus_oe);
                let f_ext = _mm256_adds_epi16(f, minus_ext);
                let fv = _mm256_max_epi16(f_open, f_ext);
                let d = _mm256_adds_epi16(diag, load(profile.get_unchecked(*c.keys.get_unchecked(r) as usize)));
                let best = _mm256_max_epi16(_mm256_max_epi16(d, ev), _mm256_max_epi16(fv, zero));
                if BITS {
                    let all = codes(best, d, ev, (e_open, e_ext), (f_open, f_ext));
                    // Codes below 16: lane k's byte, then lane k + 8's shifted to its
                    // high nibble (a 16-bit shift moves no bit across a byte).
                    let bytes = _mm_packus_epi16(_mm256_castsi256_si128(all), _mm256_extracti128_si256::<1>(all));
                    let nibbles = _mm_or_si128(bytes, _mm_slli_epi16::<4>(_mm_srli_si128::<8>(bytes)));
                    _mm_storel_epi64(bits.get_unchecked_mut(r).as_mut_ptr().cast(), nibbles);
                }
                // Rows before a lane's rectangle are its boundary: H = 0, E = F = -inf.
                let h_new = _mm256_and_si256(best, active);
                _mm256_storeu_si256(e.get_unchecked_mut(r).as_mut_ptr().cast(), _mm256_blendv_epi8(neg, ev, active));
                f = _mm256_blendv_epi8(neg, fv, active);
                diag = left;
                _mm256_storeu_si256(h.get_unchecked_mut(r).as_mut_ptr().cast(), h_new);
                up = h_new;
            }
        }
    }
}

/// -1 in the lanes where `a` and `b` differ, else 0.
#[inline(always)]
fn differ(a: Lanes, b: Lanes) -> Lanes {
    std::array::from_fn(|l| -((a[l] != b[l]) as i16))
}

/// -1 in the lanes where `a` is above `b`, else 0.
#[inline(always)]
fn above(a: Lanes, b: Lanes) -> Lanes {
    std::array::from_fn(|l| -((a[l] > b[l]) as i16))
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

/// [`align_rects`] with the row loop of `kernel` and blocks of `block_columns(rows,
/// columns)` columns (the tests force small blocks).
fn align_rects_with(
    kernel: Kernel,
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
    let batch = Batch { query, rects, sc, first, rows, active, kernel };
    let block = block_columns(rows, cols).max(1);
    let blocks = cols.div_ceil(block).max(1);

    // Forward: H and E at each block's first column (after the column before it).
    let mut h = vec![splat(0); rows];
    let mut e = vec![splat(NEG); rows];
    let mut starts: Vec<(Vec<Lanes>, Vec<Lanes>)> = Vec::with_capacity(blocks);
    for b in 0..blocks {
        starts.push((h.clone(), e.clone()));
        if b + 1 < blocks {
            batch.advance::<false>(b * block..(b + 1) * block, &mut h, &mut e, &mut []);
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
    let mut bits: Vec<Bits> = vec![[0; LANES / 2]; block.min(cols) * rows];
    for b in (0..blocks).rev() {
        let c0 = b * block;
        let c1 = ((b + 1) * block).min(cols);
        if walks.iter().all(|w| w.done) {
            break;
        }
        let (mut h, mut e) = starts[b].clone();
        batch.advance::<true>(c0..c1, &mut h, &mut e, &mut bits);
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
                let d =
                    bits[(w.c as usize - c0) * rows + w.r as usize][l % (LANES / 2)] >> (4 * (l / (LANES / 2))) & 15;
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

    /// The kernels this processor runs: the portable one everywhere, AVX2 where it
    /// has it (CI's machines do).
    fn kernels() -> Vec<Kernel> {
        let mut k = vec![Kernel::Portable];
        if Kernel::best() != Kernel::Portable {
            k.push(Kernel::best());
        }
        k
    }

    /// Rectangles of many shapes and end cells (some scoring 0), related pieces with
    /// small alphabets for ties, in one block and in blocks of a few columns, on each
    /// kernel: each lane equals the reference's alignment over its rectangle.
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
                for (kernel, block) in kernels().into_iter().flat_map(|k| [(k, 0), (k, 1), (k, 3)]) {
                    let got = if block == 0 {
                        align_rects_with(kernel, &q, &rects, sc, block_columns)
                    } else {
                        align_rects_with(kernel, &q, &rects, sc, |_, _| block)
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
                        assert_eq!(got[k], want, "round {round} lane {k} block {block} {kernel:?}");
                        compared += want.is_some() as usize;
                    }
                }
            }
        }
        assert!(compared > 300, "{compared}");
    }
}

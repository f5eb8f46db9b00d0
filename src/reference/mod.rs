//! Plain scalar Smith-Waterman/Gotoh: the ground truth every kernel is tested against.
//!
//! Rows are query residues `q[1..=m]`, columns subject residues `s[1..=n]`:
//!
//! ```text
//! E(i,j) = max(E(i,j-1), H(i,j-1) - open) - extend     gap in the query   (CIGAR D)
//! F(i,j) = max(F(i-1,j), H(i-1,j) - open) - extend     gap in the subject (CIGAR I)
//! H(i,j) = max(0, H(i-1,j-1) + S(q_i, s_j), E(i,j), F(i,j))
//! H(0,j) = H(i,0) = 0,  E(i,0) = F(0,j) = -inf
//! ```
//!
//! so a gap of length L costs `open + L * extend` (see `scoring::gaps`).
//!
//! The end of the alignment is the cell with the highest H; among equal cells the
//! one with the smallest subject position, then the smallest query position. Every
//! kernel reports the same cell.
//!
//! Tracebacks prefer, at each cell, a zero (the alignment starts), then the diagonal,
//! then E, then F; a gap state is opened rather than extended when both give the
//! same score. [`align`] is the textbook traceback over the whole table; the aligners
//! clsw runs are in [`crate::traceback`], each tested against it.
//!
//! This is the one statement of the recurrence, the end rule and the tie rule: every
//! kernel (`cl/`, `src/scan`, `src/traceback`) refers here rather than restating them.
//!
//! # Global and glocal modes ([`Mode`], the scoring's `mode`)
//!
//! E and F are the same; H has no floor of 0, and its edges charge the gaps that an
//! alignment must open before its first pair (docs/global-plan.md: ggsearch36 and
//! glsearch36 compute these):
//!
//! ```text
//! global (Needleman-Wunsch):  H(0,0) = 0, H(0,j) = -(open + j extend), H(i,0) = -(open + i extend)
//!                             score H(m,n)
//! glocal (query global,       H(0,j) = 0 (the subject may start anywhere), H(i,0) = -(open + i extend)
//!   subject local):           score max over j = 0..=n of H(m,j), at the smallest such j
//! ```
//!
//! with H(i,j) = max(H(i-1,j-1) + S(q_i, s_j), E(i,j), F(i,j)) inside. The end of a
//! global alignment is its last cell (m-1, n-1), 0-based; a glocal one ends at the
//! chosen column (none when the best uses no subject residue, or the query is empty).

pub mod alignment3;
pub mod sw3;
mod traceback;

pub(crate) use traceback::Walk;
pub use traceback::{align, align_ending_at};

use crate::scoring::{Mode, Scoring};

/// A local alignment's score and where it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LocalScore {
    pub score: i32,
    /// 0-based positions of the last aligned query and subject residues; `None` when
    /// the score is 0 (no residue pair scores above zero).
    pub end: Option<(usize, usize)>,
}

impl Mode {
    /// H(i, 0), i >= 1: the query's first i residues against nothing.
    pub(crate) fn left_edge(self, i: usize, sc: &Scoring) -> i32 {
        match self {
            Mode::Local => 0,
            Mode::Global | Mode::Glocal => -gap_cost(i, sc),
        }
    }

    /// H(0, 0..=n): the subject's first j residues against nothing.
    pub(crate) fn top_row(self, n: usize, sc: &Scoring) -> Vec<i32> {
        (0..=n)
            .map(|j| match self {
                Mode::Global if j > 0 => -gap_cost(j, sc),
                _ => 0,
            })
            .collect()
    }

    /// The least H: 0 where an alignment may start at any cell.
    fn floor(self) -> i32 {
        match self {
            Mode::Local => 0,
            Mode::Global | Mode::Glocal => NEG_INF,
        }
    }
}

/// [`Gaps::cost`](crate::scoring::Gaps::cost) of a gap of `len` residues, saturating far
/// below any score (lengths that large are refused before any alignment).
fn gap_cost(len: usize, sc: &Scoring) -> i32 {
    let cost = sc.gaps.cost(u32::try_from(len).unwrap_or(u32::MAX));
    cost.min(-(NEG_INF as i64) / 2) as i32
}

/// Stands for minus infinity in E and F, far enough from `i32::MIN` that subtracting
/// penalties cannot wrap.
pub(crate) const NEG_INF: i32 = i32::MIN / 4;

/// Where H(i,j) came from, as stored by a traceback pass.
pub(crate) mod dir {
    pub const ZERO: u8 = 0;
    pub const DIAG: u8 = 1;
    pub const FROM_E: u8 = 2;
    pub const FROM_F: u8 = 3;
    pub const H_MASK: u8 = 3;
    /// E(i,j) extended E(i,j-1) rather than opening from H(i,j-1).
    pub const E_EXTENDED: u8 = 4;
    /// F(i,j) extended F(i-1,j) rather than opening from H(i-1,j).
    pub const F_EXTENDED: u8 = 8;

    /// The bits of a cell whose H is `best`, from its diagonal `d`, its E `e` and its
    /// F, each gap's open and extension candidates given: H's source in the tie order
    /// zero (where `starts` says an alignment may start at any cell: the local mode),
    /// diagonal, E, F, and whether E and F extended (strictly better than opening).
    #[inline]
    pub fn code(
        starts: bool,
        best: i32,
        d: i32,
        e: i32,
        (e_open, e_ext): (i32, i32),
        (f_open, f_ext): (i32, i32),
    ) -> u8 {
        let src = if starts && best == 0 {
            ZERO
        } else if best == d {
            DIAG
        } else if best == e {
            FROM_E
        } else {
            FROM_F
        };
        let e_bit = if e_ext > e_open { E_EXTENDED } else { 0 };
        let f_bit = if f_ext > f_open { F_EXTENDED } else { 0 };
        src | e_bit | f_bit
    }
}

/// Advances one row of the recurrence in the scoring's mode, for query row `i`
/// (1-based: H(i, 0) is the mode's left edge). On entry `h` and `f` hold H(i-1, 0..=n)
/// and F(i-1, 0..=n); on return they hold row i. With `dirs`, the traceback bits of
/// row i are written to `dirs[j]` for j in 1..=n.
pub(crate) fn advance_row(
    i: usize,
    qi: u8,
    subject: &[u8],
    sc: &Scoring,
    h: &mut [i32],
    f: &mut [i32],
    mut dirs: Option<&mut [u8]>,
) {
    let (open, ext) = (sc.gaps.open, sc.gaps.extend);
    let floor = sc.mode.floor();
    let mut diag = h[0];
    h[0] = sc.mode.left_edge(i, sc);
    let mut e = NEG_INF;
    for j in 1..=subject.len() {
        let up = h[j];
        let (e_open, e_ext) = (h[j - 1] - open - ext, e - ext);
        e = e_open.max(e_ext);
        let (f_open, f_ext) = (up - open - ext, f[j] - ext);
        f[j] = f_open.max(f_ext);
        let d = diag + sc.score_at(i - 1, qi, subject[j - 1]);
        let best = d.max(e).max(f[j]).max(floor);
        if let Some(dirs) = dirs.as_deref_mut() {
            dirs[j] = dir::code(sc.mode == Mode::Local, best, d, e, (e_open, e_ext), (f_open, f_ext));
        }
        diag = up;
        h[j] = best;
    }
}

/// True when cell (i, j) with score `h` should replace the best end so far under
/// the tie rule: higher score, or equal score at a smaller subject, then query, position.
#[inline]
pub(crate) fn better_end(h: i32, i: usize, j: usize, best: &LocalScore) -> bool {
    match best.end {
        None => h > best.score,
        Some((bi, bj)) => h > best.score || (h == best.score && (j, i) < (bj, bi)),
    }
}

/// The optimal score of `query` against `subject` (alphabet codes) in the scoring's
/// mode, and where it ends (see the module header).
pub fn score(query: &[u8], subject: &[u8], sc: &Scoring) -> LocalScore {
    let (m, n) = (query.len(), subject.len());
    let mut h = sc.mode.top_row(n, sc);
    let mut f = vec![NEG_INF; n + 1];
    let mut best = LocalScore { score: 0, end: None };
    for (i, &qi) in query.iter().enumerate() {
        advance_row(i + 1, qi, subject, sc, &mut h, &mut f, None);
        if sc.mode == Mode::Local {
            for (j, &v) in h.iter().enumerate().skip(1) {
                if v > 0 && better_end(v, i, j - 1, &best) {
                    best = LocalScore { score: v, end: Some((i, j - 1)) };
                }
            }
        }
    }
    match sc.mode {
        Mode::Local => best,
        Mode::Global => LocalScore { score: h[n], end: (m > 0 && n > 0).then(|| (m - 1, n - 1)) },
        Mode::Glocal => {
            // The first column holding the last row's best.
            let (j, &score) = h.iter().enumerate().rev().max_by_key(|&(_, &v)| v).expect("n + 1 cells");
            LocalScore { score, end: (m > 0 && j > 0).then(|| (m - 1, j - 1)) }
        }
    }
}

/// Letters to codes and scorings for the reference's unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use crate::scoring::{Gaps, Matrix, Scoring};
    use crate::seq::Alphabet;

    pub fn protein(s: &str) -> Vec<u8> {
        Alphabet::Protein.encode_all(s.as_bytes()).unwrap()
    }

    pub fn dna(s: &str) -> Vec<u8> {
        Alphabet::Dna.encode_all(s.as_bytes()).unwrap()
    }

    pub fn blosum62(open: i32, extend: i32) -> Scoring {
        Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(open, extend).unwrap())
    }

    /// A deterministic generator of numbers below `n` (xorshift64) for the fast
    /// paths' random test cases.
    pub fn generator(seed: u64) -> impl FnMut(usize) -> usize {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        move |n| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{blosum62, dna, protein};
    use super::*;
    use crate::scoring::{Gaps, Matrix};
    use crate::seq::Alphabet;

    #[test]
    fn hand_computed_scores() {
        // BLOSUM62: W/W 11, so "W" vs "W" scores 11 ending at (0,0).
        let sc = blosum62(11, 1);
        assert_eq!(score(&protein("W"), &protein("W"), &sc), LocalScore { score: 11, end: Some((0, 0)) });
        // Nothing positive: score 0, no end.
        assert_eq!(score(&protein("W"), &protein("P"), &sc), LocalScore { score: 0, end: None });
        // WWWW vs WW-WW with a 1-gap: 4*11 - 12 = 32 beats 2*11 = 22.
        let r = score(&protein("WWWWW"), &protein("WWAWWW"), &sc);
        // Best is WWWWW vs WW-WWW? query WWWWW (5) vs subject WWAWWW: align WW / WW, gap for A, WWW/WWW: 55-12=43.
        assert_eq!(r.score, 43);
        assert_eq!(r.end, Some((4, 5)));
    }

    #[test]
    fn ties_pick_smallest_subject_then_query_position() {
        let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 1, -3).unwrap(), Gaps::affine(5, 2).unwrap());
        let d = dna;
        // "A" matches at subject 1 and 3 and query 0 and 2: smallest subject, then query.
        let r = score(&d("ACA"), &d("GAGA"), &sc);
        assert_eq!(r, LocalScore { score: 1, end: Some((0, 1)) });
    }
}

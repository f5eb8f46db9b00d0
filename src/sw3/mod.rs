//! Three-sequence local alignment (3-D Smith-Waterman) on OpenCL devices, with
//! traceback, time series to symbols ([`sax`]), and batches of many triples.
//!
//! Local alignment of three sequences at once finds a region that all three share.
//! The idea and the first GPU kernel come from Sudo et al. (3-D wavefront over diagonal
//! planes, 4x4x4 sub-tables in shared memory, several GPUs), who compared channels of
//! fNIRS recordings turned into SAX strings; they computed the score only.
//!
//! # The model
//!
//! An alignment of `a`, `b`, `c` is a sequence of columns; each column holds one residue
//! or a gap for each sequence, never three gaps, so there are seven column kinds. They
//! are written as masks: bit 0 set when `a` has a residue in the column, bit 1 for `b`,
//! bit 2 for `c` (7 = `(x,y,z)`, 3 = `(x,y,-)`, 1 = `(x,-,-)`, ...).
//!
//! **Sum of pairs.** A column scores the sum over the pairs (a,b), (a,c), (b,c):
//! `S(x, y)` when both have a residue (`S` a substitution matrix or match/mismatch),
//! `-extend` when one has a residue and the other a gap, 0 when both have gaps. So a
//! full column scores `S(x,y) + S(x,z) + S(y,z)`, a two-residue column `S(x,y) - 2·extend`,
//! a one-residue column `-2·extend`.
//!
//! **Gap opens (quasi-natural gap costs).** Each pair is also charged `open` in a column
//! where it has a residue against a gap and the previous column did not have the same
//! residue-gap pattern for that pair (a gap in the same sequence), or the column is
//! the first. Only the previous column is looked at (Altschul's "quasi-natural" gap
//! costs: a column where both members of a pair have gaps does not carry a gap over).
//! With `open = 0` this is the linear model; the seed's setting is match 1, mismatch -1,
//! gap 1 (`Gaps::linear(1)`). Gaps follow the crate's convention (`scoring::gaps`): in a
//! pairwise projection a gap of length L costs `open + L·extend`.
//!
//! **Local.** The score is the best over all alignments of all segments `a[i0..i)`,
//! `b[j0..j)`, `c[k0..k)`, and 0 when nothing scores above 0. A segment may be empty:
//! with sum of pairs a column such as `(x,y,-)` can score above zero, so the best local
//! alignment may leave out one sequence.
//!
//! # The recurrence
//!
//! Cells are DP coordinates `(i, j, k)` in `[0,n1] x [0,n2] x [0,n3]`: the numbers of
//! residues of a, b, c consumed. Every cell is a real cell (the faces where a
//! coordinate is 0 included); a predecessor outside the table is "virtual" (minus
//! infinity). `p_m` is the cell before a column of kind `m` ending at `x`
//! (`p_m = x - (m&1, m>>1&1, m>>2&1)`); `Sab`, `Sac`, `Sbc` are the pair scores of the
//! residues consumed at `x`; `o = open`, `e = extend`.
//!
//! Linear gaps (`o = 0`), one value per cell:
//!
//! ```text
//! H(x) = max( 0,
//!             H(p_7) + Sab + Sac + Sbc,
//!             H(p_3) + Sab - 2e,   H(p_5) + Sac - 2e,   H(p_6) + Sbc - 2e,
//!             max(H(p_1), H(p_2), H(p_4)) - 2e )
//! ```
//!
//! Affine gaps: seven states `S_m(x)`, the best alignment ending at `x` with a column of
//! kind `m`, and `H(x) = max(0, S_1..S_7)`. A two-residue kind shares one residue-gap
//! pattern with each one-residue kind it contains (3 with 1 and 2, 5 with 1 and 4, 6
//! with 2 and 4) and none with the others, so the transition from state `m'` to `m`
//! costs `0`, `o` or `2o` opens, and a start costs `2o` (0 for kind 7):
//!
//! ```text
//! S_7(x) = Sab + Sac + Sbc + H(p_7)
//! S_3(x) = Sab - 2e + max( S_3(p), max(S_1(p), S_2(p)) - o, H(p) - 2o ),  p = p_3
//! S_5(x) = Sac - 2e + max( S_5(p), max(S_1(p), S_4(p)) - o, H(p) - 2o ),  p = p_5
//! S_6(x) = Sbc - 2e + max( S_6(p), max(S_2(p), S_4(p)) - o, H(p) - 2o ),  p = p_6
//! S_1(x) =     - 2e + max( S_1(p), max(S_3(p), S_5(p)) - o, H(p) - 2o ),  p = p_1
//! S_2(x) =     - 2e + max( S_2(p), max(S_3(p), S_6(p)) - o, H(p) - 2o ),  p = p_2
//! S_4(x) =     - 2e + max( S_4(p), max(S_5(p), S_6(p)) - o, H(p) - 2o ),  p = p_4
//! ```
//!
//! (`H(p) - 2o` covers both a start at `p` and every state at the full price; the
//! exact cheaper transitions are listed before it.) With `o = 0` both recurrences give
//! the same `H`. Virtual cells have `H = S_m = -inf`; the origin has `H = 0`.
//!
//! **End cell and ties.** The score is the highest `H`; its end is the cell with the
//! smallest `k`, then `j`, then `i` among equal ones ([`Sw3Score::end`], in DP
//! coordinates, so the segments end at `a[..i]`, `b[..j]`, `c[..k]`). Every kernel and
//! the reference report the same cell.
//!
//! **Traceback.** At the end, the column kind first in the order 7, 3, 5, 6, 1, 2, 4
//! whose state gives the score; before each column a start when it gives the best
//! value (the shortest alignment), else the predecessor state first in that order.
//! [`align`] follows these rules in memory of about two planes of the table
//! (divide and conquer, see `traceback.rs`), and gives the same alignment as the
//! textbook full-table traceback (`reference::sw3::sw3_align_full`).
//!
//! # Kernels (`cl/sw3.cl`)
//!
//! * `tile` (the fast path, [`score_on`]): Sudo's sub-tables, reshaped. A work-item owns
//!   a strip of `TI` cells along `a` at one `b` position and walks `c`; time runs along
//!   the skewed axis `t = k + j + strip`, so all work-items of a work-group advance in
//!   lock-step with one barrier per step and no fill or drain inside a tile. A tile is
//!   `NS` strips x `TJ` columns x `TT` steps; tiles with the same `strips/NS + j/TJ +
//!   t/TT` are independent and form one launch (a wavefront over planes of tiles).
//!   Strips pass through local memory, tile faces through global memory.
//! * `plane`: the seed's "GPUN" baseline: one launch per diagonal plane of cells
//!   (`i + j + k = t`), one work-item per cell, values in global memory.
//! * `batch` ([`batch_on`]): many triples, one work-group per triple, the same tile code
//!   swept by one work-group over its whole triple.
//!
//! Scores and end cells are 32-bit everywhere.
//!
//! # Entry points
//!
//! * [`score`] / [`align_on`]: one triple on an [`Engine`](crate::Engine) (score on the
//!   device, traceback on the CPU); [`score_cpu`] and [`align`]: the CPU reference.
//! * [`batch()`]: many triples (indices into a list of sequences, e.g. [`all_triples`]),
//!   spread over every device of the engine; [`ranked`] sorts them into a results table.
//! * [`score_on`] / [`batch_on`]: one device, one kernel variant, a chosen [`Tuning`]
//!   (what `clsw bench sw3` times).
//! * [`sax`]: z-normalisation, PAA, breakpoints, SAX words, CSV/TSV series.
//!
//! Sequences are alphabet codes (`seq::Alphabet`, or SAX codes `0..alpha` scored with a
//! match/mismatch matrix over the protein table, which has room for every SAX
//! alphabet). An empty sequence is allowed: it contributes no residue, and the result is
//! the best alignment of the other two with gaps in it.

pub mod batch;
pub mod kernels;
pub mod sax;
pub mod traceback;

pub use crate::reference::alignment3::{Alignment3, Sw3Score};
pub use batch::{BatchRow, all_triples, batch, ranked, triple_count};
pub use kernels::{BatchRun, Run, Tuning, Variant, batch_on, score_on};
pub use traceback::{align, align_from_end, align_with_limit};

use crate::error::{Error, Result};
use crate::memory;
use crate::scoring::Scoring;

/// Checks up front that `concurrent` native (CPU) passes over triples of these lengths
/// can have their memory, before any is made (the planes are made in several pieces,
/// deep in the reference and the traceback): the score pass keeps two k-planes of
/// `(n1+2)(n2+2)` cells (linear gaps: a value and a pair score per cell, 12 bytes;
/// affine: 8 values, 64 bytes), the traceback two planes of values and two of
/// crossing pointers (16 or 120 bytes a cell).
pub(crate) fn check_native_memory(
    lens: [usize; 3],
    scoring: &Scoring,
    traceback: bool,
    concurrent: usize,
) -> Result<()> {
    let cells = (lens[0] as u128 + 2) * (lens[1] as u128 + 2);
    let per_cell = match (scoring.gaps.open == 0, traceback) {
        (true, false) => 12,
        (true, true) => 16,
        (false, false) => 64,
        (false, true) => 120,
    };
    let pass = if traceback { "traceback" } else { "score pass" };
    let at_once = if concurrent > 1 { format!(", {concurrent} triples at once") } else { String::new() };
    let what = format!("the three-sequence {pass} over {} x {} x {} residues{at_once}", lens[0], lens[1], lens[2]);
    memory::ensure(what, cells * per_cell * concurrent as u128)
}

/// Checks that codes fit the matrix, that every triple (indices into `seqs`) names
/// sequences of `seqs`, and that no 32-bit score of a triple can overflow; every entry
/// point calls it.
pub(crate) fn check_inputs(seqs: &[&[u8]], triples: &[[u32; 3]], scoring: &Scoring) -> Result<()> {
    scoring.require_local("sw3")?;
    scoring.require_matrix("sw3")?;
    for (s, seq) in seqs.iter().enumerate() {
        scoring.matrix.alphabet().check_codes(seq, format_args!("sequence {}", s + 1))?;
    }
    let m = scoring.matrix.max_score().abs().max(scoring.matrix.min_score().abs()) as i64;
    if m > i16::MAX as i64 {
        return Err(Error::InvalidArgument("substitution scores beyond 16 bits are not supported by sw3".into()));
    }
    let gaps = 2 * (scoring.gaps.open + scoring.gaps.extend) as i64;
    for (t, tri) in triples.iter().enumerate() {
        if let Some(&bad) = tri.iter().find(|&&s| s as usize >= seqs.len()) {
            return Err(Error::InvalidArgument(format!(
                "triple {}: sequence index {bad} out of range ({} sequences)",
                t + 1,
                seqs.len()
            )));
        }
        // A cell's value stays within 3 x the largest step x the triple's residues.
        let lens = tri.map(|s| seqs[s as usize].len() as i64);
        let total: i64 = lens.iter().sum();
        if 3 * m.max(gaps) * (total + 3) >= 1 << 28 {
            let cause = if gaps > m {
                format!("gap costs {} / {}", scoring.gaps.open, scoring.gaps.extend)
            } else {
                format!("substitution scores up to {m} in size")
            };
            return Err(Error::InvalidArgument(format!(
                "triple {}: {} + {} + {} = {total} residues are too many for sw3's 32-bit scores with {cause} \
                 (3 x {} x (residues + 3) must stay below 2^28); use shorter sequences",
                t + 1,
                lens[0],
                lens[1],
                lens[2],
                m.max(gaps)
            )));
        }
    }
    Ok(())
}

/// The best local score of three sequences (alphabet codes) on the CPU: the reference.
pub fn score_cpu(a: &[u8], b: &[u8], c: &[u8], scoring: &Scoring) -> Result<Sw3Score> {
    check_inputs(&[a, b, c], &[[0, 1, 2]], scoring)?;
    check_native_memory([a.len(), b.len(), c.len()], scoring, false, 1)?;
    Ok(crate::reference::sw3::sw3_score(a, b, c, scoring))
}

/// The best local score of one triple on an engine's first device (the tile kernel for
/// large triples, the batch kernel for small ones, the reference on the native path).
pub fn score(engine: &crate::Engine, a: &[u8], b: &[u8], c: &[u8], scoring: &Scoring) -> Result<Sw3Score> {
    Ok(batch(engine, &[a, b, c], &[[0, 1, 2]], scoring)?[0])
}

/// Score on the engine, then the traceback on the CPU ([`align_from_end`]): the aligned
/// triple, or `None` when nothing scores above 0.
pub fn align_on(engine: &crate::Engine, a: &[u8], b: &[u8], c: &[u8], scoring: &Scoring) -> Result<Option<Alignment3>> {
    let best = score(engine, a, b, c, scoring)?;
    if best.score == 0 {
        return Ok(None);
    }
    align_from_end(a, b, c, scoring, best)?
        .map(Some)
        .ok_or_else(|| Error::Device(format!("the device's end cell {best:?} does not trace back to its score")))
}

#[cfg(test)]
mod tests {
    use super::check_inputs;
    use crate::scoring::{Gaps, Matrix, Scoring};

    /// The 32-bit bound is a triple's, not the whole set's: many small triples pass,
    /// one too large is named with its lengths and the cost that bounds it.
    #[test]
    fn the_32_bit_bound_is_per_triple_and_names_its_cause() {
        let blosum =
            |open, extend| Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(open, extend).unwrap());
        let small = vec![1u8; 40_000];
        let many: Vec<&[u8]> = (0..100).map(|_| small.as_slice()).collect();
        let triples: Vec<[u32; 3]> = (0..98).map(|k| [k, k + 1, k + 2]).collect();
        check_inputs(&many, &triples, &blosum(11, 1)).expect("4 M residues in triples of 120,000");
        let large = vec![1u8; 3_000_000];
        let err = check_inputs(&[&small, &large, &large], &[[0, 1, 2]], &blosum(11, 1)).unwrap_err().to_string();
        assert!(err.contains("triple 1: 40000 + 3000000 + 3000000 = 6040000 residues"), "{err}");
        assert!(err.contains("gap costs 11 / 1"), "{err}");
        let err = check_inputs(&[&large, &large, &large], &[[0, 1, 2]], &blosum(1, 1)).unwrap_err().to_string();
        assert!(err.contains("substitution scores up to 11"), "{err}");
        let err = check_inputs(&many, &[[0, 1, 100]], &blosum(11, 1)).unwrap_err().to_string();
        assert!(err.contains("triple 1: sequence index 100 out of range (100 sequences)"), "{err}");
    }
}

//! Scoring: substitution matrices and gap penalties.

pub mod gaps;
pub mod matrix;
pub mod pssm;

pub use gaps::Gaps;
pub use matrix::Matrix;
pub use pssm::Pssm;

use crate::error::{Error, Result};
use crate::seq::Alphabet;
use std::sync::Arc;

/// The largest magnitude of a substitution score, and the most the first residue of a
/// gap (open + extend) may cost. Every cell of the 32-bit recurrences (the reference's
/// and the kernels') is then at least `-(2 * SCORE_LIMIT)` above minus infinity and no
/// subtraction wraps; the positive side grows with the lengths, which
/// [`Scoring::check_lengths`] bounds.
pub const SCORE_LIMIT: i32 = 1 << 20;

/// The matrix a job uses when the user names none, per alphabet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultMatrices {
    pub protein: &'static str,
    pub dna: &'static str,
}

/// Search, alignment and three-sequence alignment: BLOSUM62 (BLAST's) and EDNAFULL.
pub const DEFAULT_MATRICES: DefaultMatrices = DefaultMatrices { protein: "BLOSUM62", dna: "EDNAFULL" };

/// A scoring as a user states it (command-line options, binding keywords): every part
/// optional. [`ScoringRequest::resolve`] is the one place the defaults and the checks
/// live.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScoringRequest {
    /// A built-in matrix name or an NCBI-format file.
    pub matrix: Option<String>,
    /// Match/mismatch scores instead of a matrix.
    pub match_mismatch: Option<(i32, i32)>,
    /// Gap costs as the user wrote them, positive or negative ([`Gaps::from_signed`]).
    pub gap_open: Option<i32>,
    pub gap_extend: Option<i32>,
    /// The alignment mode (local when absent).
    pub mode: Option<Mode>,
}

impl ScoringRequest {
    /// The scoring for sequences of `alphabet`: the named matrix, or match/mismatch, or
    /// the job's default matrix; gaps as given (either sign, [`Gaps::stated`]), each
    /// missing one from the matrix's customary gaps ([`Gaps::default_for`]). A matrix of
    /// another alphabet, or both a matrix and match/mismatch, is an error.
    pub fn resolve(&self, alphabet: Alphabet, defaults: DefaultMatrices) -> Result<Scoring> {
        let matrix = match (self.match_mismatch, &self.matrix) {
            (Some(_), Some(_)) => {
                return Err(Error::InvalidArgument("give either --matrix or --match/--mismatch, not both".into()));
            }
            (Some((m, x)), None) => Matrix::match_mismatch(alphabet, m, x)?,
            (None, Some(name)) => Matrix::builtin_or_file(name)?,
            (None, None) => Matrix::builtin(if alphabet == Alphabet::Dna { defaults.dna } else { defaults.protein })?,
        };
        if matrix.alphabet() != alphabet {
            return Err(Error::InvalidArgument(format!(
                "matrix {} is for {} sequences, but the input is {}",
                matrix.name(),
                matrix.alphabet().name(),
                alphabet.name()
            )));
        }
        let gaps = Gaps::stated(self.gap_open, self.gap_extend, matrix.name())?;
        Ok(Scoring::new(matrix, gaps).in_mode(self.mode.unwrap_or_default()))
    }

    /// The alphabet of the matrix the request names (a built-in name or a file), read
    /// when it is needed; `None` when it names none (match/mismatch scores, or the
    /// job's default), which fits either alphabet.
    pub fn matrix_alphabet(&self) -> Result<Option<Alphabet>> {
        self.matrix.as_deref().map(|m| Matrix::builtin_or_file(m).map(|m| m.alphabet())).transpose()
    }
}

crate::error::named_enum! {
    /// Which ends of the two sequences an alignment may leave out: the recurrences of
    /// each are stated once, in [`crate::reference`]'s header.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub enum Mode ("alignment mode", "modes") {
        /// Smith-Waterman: both sequences may start and end anywhere (ssearch36).
        #[default]
        Local = "local",
        /// Needleman-Wunsch: both sequences whole, end gaps charged (ggsearch36).
        Global = "global",
        /// The query whole, the subject from anywhere to anywhere (glsearch36).
        Glocal = "glocal",
    }
}

/// A complete scoring scheme: what every aligner in clsw takes. Its [`Mode`] says
/// whether gaps at the ends are charged (local by default); the jobs that compute
/// local alignments only refuse the others ([`Scoring::require_local`]).
///
/// With a [`Pssm`] ([`Scoring::with_pssm`]) it scores that profile's query only: query
/// position `i` takes the profile's row `i` instead of the matrix's row of its residue
/// ([`Scoring::score_at`], [`Scoring::rows`]); the matrix still names the alphabet and
/// the statistics' published parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoring {
    pub matrix: Matrix,
    pub gaps: Gaps,
    pub mode: Mode,
    pub pssm: Option<Arc<Pssm>>,
}

/// The rows of scores a query's positions take, for the aligners that build a table per
/// row before they walk the query: position `i` takes row `keys[i]` of
/// [`QueryRows::table`] (`letters` scores a row). With a matrix the rows are the
/// matrix's and a position's key is its residue; with a [`Pssm`], row `i` is position
/// `i`'s own.
pub struct QueryRows<'s> {
    pub table: &'s [i32],
    pub letters: usize,
    pub keys: Vec<u32>,
}

impl QueryRows<'_> {
    /// How many rows the table holds (the keys are below it).
    pub fn count(&self) -> usize {
        self.table.len() / self.letters.max(1)
    }

    /// Row `key`'s score against letter `c`.
    #[inline]
    pub fn score(&self, key: usize, c: u8) -> i32 {
        self.table[key * self.letters + c as usize]
    }
}

impl Scoring {
    /// A local scoring ([`Scoring::in_mode`] for the others).
    pub fn new(matrix: Matrix, gaps: Gaps) -> Scoring {
        Scoring { matrix, gaps, mode: Mode::Local, pssm: None }
    }

    /// The same scoring with `pssm`'s position-specific scores for its query, which must
    /// be of the matrix's alphabet.
    pub fn with_pssm(self, pssm: Pssm) -> Result<Scoring> {
        if pssm.alphabet() != self.matrix.alphabet() {
            return Err(Error::InvalidArgument(format!(
                "profile {} is for {} sequences, but matrix {} is for {}",
                pssm.name(),
                pssm.alphabet().name(),
                self.matrix.name(),
                self.matrix.alphabet().name()
            )));
        }
        Ok(Scoring { pssm: Some(Arc::new(pssm)), ..self })
    }

    /// The scores of query position `i`, residue `q`, against every letter: the
    /// profile's row `i`, or the matrix's row of `q`.
    #[inline]
    pub fn row_at(&self, i: usize, q: u8) -> &[i32] {
        match &self.pssm {
            Some(p) => p.row(i),
            None => self.matrix.row(q),
        }
    }

    /// The score of query position `i`, residue `q`, against subject letter `c`: the
    /// profile's `S_i(c)`, or the matrix's `S(q, c)`.
    #[inline]
    pub fn score_at(&self, i: usize, q: u8, c: u8) -> i32 {
        self.row_at(i, q)[c as usize]
    }

    /// The rows of scores `query`'s positions take ([`QueryRows`]).
    pub fn rows(&self, query: &[u8]) -> QueryRows<'_> {
        match &self.pssm {
            Some(p) => {
                QueryRows { table: p.scores(), letters: self.matrix.size(), keys: (0..query.len() as u32).collect() }
            }
            None => QueryRows {
                table: self.matrix.scores(),
                letters: self.matrix.size(),
                keys: query.iter().map(|&q| q as u32).collect(),
            },
        }
    }

    /// The highest score a pair can take: the profile's, or the matrix's.
    pub fn max_score(&self) -> i32 {
        self.pssm.as_ref().map_or(self.matrix.max_score(), |p| p.max_score())
    }

    /// The lowest score a pair can take: the profile's, or the matrix's.
    pub fn min_score(&self) -> i32 {
        self.pssm.as_ref().map_or(self.matrix.min_score(), |p| p.min_score())
    }

    /// With a profile, `query` must be the profile's own query (`what` names it in the
    /// error); any query of the alphabet otherwise.
    pub fn check_query(&self, query: &[u8], what: impl std::fmt::Display) -> Result<()> {
        match &self.pssm {
            Some(p) if p.query() != query => Err(Error::InvalidArgument(format!(
                "{what} ({} residues) is not the query of profile {} ({} positions): a profile scores its own query only",
                query.len(),
                p.name(),
                p.len()
            ))),
            _ => Ok(()),
        }
    }

    /// An error naming `what` when the scoring holds a profile: for the jobs that
    /// score with a matrix only.
    pub fn require_matrix(&self, what: &str) -> Result<()> {
        match &self.pssm {
            Some(p) => {
                Err(Error::InvalidArgument(format!("{what} scores with a matrix only, not profile {}", p.name())))
            }
            None => Ok(()),
        }
    }

    /// A built-in (or file) matrix with its customary gap penalties, local.
    pub fn with_default_gaps(matrix: Matrix) -> Scoring {
        let gaps = Gaps::default_for(matrix.name());
        Scoring::new(matrix, gaps)
    }

    /// The same scoring in `mode`.
    pub fn in_mode(self, mode: Mode) -> Scoring {
        Scoring { mode, ..self }
    }

    /// An error naming `what` unless the mode is local: for the jobs that compute local
    /// alignments only (psse, sw3, the C ABI's pairwise aligners of local scores).
    pub fn require_local(&self, what: &str) -> Result<()> {
        if self.mode != Mode::Local {
            return Err(Error::InvalidArgument(format!("{what} computes local alignments only (mode {})", self.mode)));
        }
        Ok(())
    }

    /// Checks that a pair of `m` and `n` residues keeps every sum of the 32-bit
    /// recurrences inside `i32`: a local score is at most `max(S) * min(m, n)`, and a
    /// cell plus one more pair's score at most `max(S) * (min(m, n) + 1)`. Every entry
    /// point that aligns pairs calls it (with the longest subject for a database) before
    /// any work; an error names `what`, the lengths and the matrix's highest score.
    pub fn check_lengths(&self, m: usize, n: usize, what: impl std::fmt::Display) -> Result<()> {
        let top = self.max_score().max(0) as u128;
        let bound = top * (m.min(n) as u128 + 1);
        if bound > i32::MAX as u128 {
            return Err(Error::InvalidArgument(format!(
                "{what}: scores could exceed 32 bits: {m} x {n} residues with a highest substitution score of {top} \
                 can score up to {bound}; use smaller scores or shorter sequences"
            )));
        }
        // The other modes' cells fall as low as an all-gaps path (two gaps), and their
        // E and F one gap open lower: all must stay above the reference's minus
        // infinity (i32::MIN / 4) with room for one more subtraction.
        if self.mode != Mode::Local {
            let (open, ext) = (self.gaps.open.max(0) as u128, self.gaps.extend.max(0) as u128);
            let low = 4 * open + (m as u128 + n as u128 + 2) * ext + self.min_score().unsigned_abs() as u128;
            if low >= 1 << 28 {
                return Err(Error::InvalidArgument(format!(
                    "{what}: {} scores could fall below 32 bits: {m} x {n} residues with gaps of {open} + {ext} \
                     per residue reach -{low}; use smaller gap costs or shorter sequences",
                    self.mode
                )));
            }
        }
        Ok(())
    }

    /// The most subject residues a local alignment with a positive score spans, for a
    /// query of `m` residues: at most `m` pairs score, each at most `max(S)`, and the
    /// subject residues past `m` lie in gaps of the query, at least one gap of that many
    /// residues (`open` once, `extend` each: the reference's costs). So `n` residues
    /// leave at most `m max(S) - open - (n - m) extend`, which must stay above 0.
    /// `None` where gaps cost nothing to extend (no bound).
    pub fn local_subject_span(&self, m: usize) -> Option<usize> {
        if self.gaps.extend < 1 {
            return None;
        }
        let top = self.max_score().max(0) as u128;
        let room = (top * m as u128).saturating_sub(self.gaps.open.max(0) as u128 + 1);
        usize::try_from(m as u128 + room / self.gaps.extend as u128).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_whose_scores_could_pass_32_bits_are_refused() {
        let sc =
            Scoring::new(Matrix::match_mismatch(Alphabet::Dna, SCORE_LIMIT, -1).unwrap(), Gaps::linear(1).unwrap());
        // 2^20 x (2,046 + 1) < 2^31 <= 2^20 x (2,047 + 1); the shorter sequence counts.
        assert!(sc.check_lengths(2_046, 1 << 30, "pair").is_ok());
        let msg = sc.check_lengths(1 << 30, 2_047, "pair").unwrap_err().to_string();
        assert!(msg.contains("pair: scores could exceed 32 bits: 1073741824 x 2047 residues"), "{msg}");
        let blosum = Scoring::with_default_gaps(Matrix::builtin("BLOSUM62").unwrap());
        assert!(blosum.check_lengths(usize::MAX, usize::MAX, "pair").is_err());
        assert!(blosum.check_lengths(100_000_000, 100_000_000, "pair").is_ok());
    }

    #[test]
    fn the_span_bound_of_a_local_alignment() {
        // BLOSUM62 11/1: 3 query residues score at most 33, leaving 33 - 11 - 1 = 21
        // residues of gap: 24 columns at most (tested against alignments in
        // scan::windows).
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        assert_eq!(sc.local_subject_span(3), Some(24));
        assert_eq!(sc.local_subject_span(0), Some(0));
        assert_eq!(Scoring { gaps: Gaps { open: 0, extend: 0 }, ..sc.clone() }.local_subject_span(3), None);
    }
}

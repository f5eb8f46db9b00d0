//! Scoring: substitution matrices and gap penalties.

pub mod gaps;
pub mod matrix;

pub use gaps::Gaps;
pub use matrix::Matrix;

use crate::error::{Error, Result};
use crate::seq::Alphabet;

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
    pub gap_open: Option<i32>,
    pub gap_extend: Option<i32>,
}

impl ScoringRequest {
    /// The scoring for sequences of `alphabet`: the named matrix, or match/mismatch, or
    /// the job's default matrix; gaps as given, each missing one from the matrix's
    /// customary gaps ([`Gaps::default_for`]). A matrix of another alphabet, or both a
    /// matrix and match/mismatch, is an error.
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
        let default = Gaps::default_for(matrix.name());
        let gaps = Gaps::affine(self.gap_open.unwrap_or(default.open), self.gap_extend.unwrap_or(default.extend))?;
        Ok(Scoring::new(matrix, gaps))
    }
}

/// A complete scoring scheme: what every aligner in clsw takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoring {
    pub matrix: Matrix,
    pub gaps: Gaps,
}

impl Scoring {
    pub fn new(matrix: Matrix, gaps: Gaps) -> Scoring {
        Scoring { matrix, gaps }
    }

    /// A built-in (or file) matrix with its customary gap penalties.
    pub fn with_default_gaps(matrix: Matrix) -> Scoring {
        let gaps = Gaps::default_for(matrix.name());
        Scoring { matrix, gaps }
    }
}

//! Scoring: substitution matrices and gap penalties.

pub mod gaps;
pub mod matrix;

pub use gaps::Gaps;
pub use matrix::Matrix;

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

//! Gap penalties.
//!
//! # The convention, once
//!
//! clsw uses BLAST's convention: a gap of length `L` costs
//!
//! ```text
//!     cost(L) = open + L * extend        (L >= 1, open >= 0, extend >= 1)
//! ```
//!
//! so `open = 11, extend = 1` (BLOSUM62's usual setting) charges 12 for a one-residue
//! gap and 13 for two. A linear gap model is `open = 0`: every gapped residue costs
//! `extend`.
//!
//! Other tools count differently; these translations were checked by running the
//! tools on pairs whose best alignment has a gap of known length (tests/data/README.md):
//!
//! | tool | its options | gap of length L costs | clsw equivalent |
//! |---|---|---|---|
//! | BLAST | `-gapopen O -gapextend E` | O + L·E | `open = O, extend = E` |
//! | ssearch36 (FASTA 36) | `-f -F -g -G` | F + L·G | `open = F, extend = G` |
//! | parasail | `-o O -e E` | O + (L-1)·E | `open = O - E, extend = E` |
//!
//! (ssearch36 takes the penalties as negative numbers; its default for BLOSUM50,
//! `-f -10 -g -2`, is `open = 10, extend = 2` here.)
//!
//! # Costs as users write them
//!
//! BLAST's users write costs positive, ssearch36's negative. [`Gaps::from_signed`] is
//! the one rule every front end applies to the numbers a user gives (the command line's
//! `--gap-open`/`--gap-extend`, the C ABI's scoring constructors, the Python bindings):
//! each cost is read as its size, whatever its sign, so `-11`/`-1` and `11`/`1` are the
//! same gaps; [`Gaps::stated`] adds the matrix's customary value for a cost not given.

use super::SCORE_LIMIT;
use crate::error::{Error, Result};

/// Affine gap penalties in BLAST's convention (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Gaps {
    /// Charged once per gap.
    pub open: i32,
    /// Charged for every residue of a gap, the first included.
    pub extend: i32,
}

impl Gaps {
    /// Affine gaps: a gap of length `L` costs `open + L * extend`.
    pub fn affine(open: i32, extend: i32) -> Result<Gaps> {
        if open < 0 || extend < 1 {
            return Err(Error::InvalidArgument(format!(
                "gap penalties are positive costs: need open >= 0 and extend >= 1 (got open {open}, extend {extend})"
            )));
        }
        if open.checked_add(extend).is_none_or(|v| v > SCORE_LIMIT) {
            return Err(Error::InvalidArgument(format!(
                "gap penalties too large: open + extend may be at most {SCORE_LIMIT} (got open {open}, extend {extend})"
            )));
        }
        Ok(Gaps { open, extend })
    }

    /// Linear gaps: every gapped residue costs `per_residue`.
    pub fn linear(per_residue: i32) -> Result<Gaps> {
        Gaps::affine(0, per_residue)
    }

    /// Costs as a user writes them, positive (BLAST's `-gapopen 11`) or negative
    /// (ssearch36's `-f -11`): each is read as its size (see the module documentation),
    /// then checked as [`Gaps::affine`] checks it (`i32::MIN`, whose size is no `i32`, is
    /// refused as too large).
    pub fn from_signed(open: i32, extend: i32) -> Result<Gaps> {
        Gaps::affine(open.saturating_abs(), extend.saturating_abs())
    }

    /// The gaps a user states for `matrix_name`: each cost given is read by
    /// [`Gaps::from_signed`]'s sign rule, each one not given is the matrix's customary
    /// value ([`Gaps::default_for`]).
    pub fn stated(open: Option<i32>, extend: Option<i32>, matrix_name: &str) -> Result<Gaps> {
        let default = Gaps::default_for(matrix_name);
        Gaps::from_signed(open.unwrap_or(default.open), extend.unwrap_or(default.extend))
    }

    /// From ssearch36's `-f` and `-g` (given as ssearch36 takes them, negative or not).
    pub fn from_ssearch(f: i32, g: i32) -> Result<Gaps> {
        Gaps::from_signed(f, g)
    }

    /// From parasail's `-o` and `-e` (a gap of length L costs o + (L-1)·e there).
    pub fn from_parasail(o: i32, e: i32) -> Result<Gaps> {
        Gaps::affine(o - e, e)
    }

    /// True when every gapped residue costs the same.
    pub fn is_linear(&self) -> bool {
        self.open == 0
    }

    /// The cost of one gap of `len` residues.
    pub fn cost(&self, len: u32) -> i64 {
        self.open as i64 + len as i64 * self.extend as i64
    }

    /// The default for a matrix, as BLAST and ssearch36 use them: BLOSUM62 11/1,
    /// BLOSUM45 15/2, BLOSUM50 10/2, BLOSUM80 10/1, BLOSUM90 10/1, PAM30 9/1, PAM70 10/1,
    /// PAM250 10/2, EDNAFULL 12/4; others 10/1.
    pub fn default_for(matrix_name: &str) -> Gaps {
        let (open, extend) = match matrix_name.to_ascii_uppercase().as_str() {
            "BLOSUM62" => (11, 1),
            "BLOSUM45" => (15, 2),
            "BLOSUM50" => (10, 2),
            "BLOSUM80" | "BLOSUM90" => (10, 1),
            "PAM30" => (9, 1),
            "PAM70" => (10, 1),
            "PAM250" => (10, 2),
            "EDNAFULL" => (12, 4),
            _ => (10, 1),
        };
        Gaps { open, extend }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_and_translations() {
        let g = Gaps::affine(11, 1).unwrap();
        assert_eq!(g.cost(1), 12);
        assert_eq!(g.cost(3), 14);
        assert_eq!(Gaps::from_ssearch(-10, -2).unwrap(), Gaps { open: 10, extend: 2 });
        let p = Gaps::from_parasail(12, 1).unwrap();
        assert_eq!(p, Gaps { open: 11, extend: 1 });
        assert!(Gaps::linear(2).unwrap().is_linear());
    }

    #[test]
    fn bad_penalties_are_refused() {
        assert!(Gaps::affine(-1, 1).is_err());
        assert!(Gaps::affine(5, 0).is_err());
        assert!(Gaps::affine(i32::MAX, 1).is_err());
    }

    #[test]
    fn either_sign_is_the_same_cost() {
        assert_eq!(Gaps::from_signed(-11, -1).unwrap(), Gaps::from_signed(11, 1).unwrap());
        assert_eq!(Gaps::from_signed(-11, 1).unwrap(), Gaps { open: 11, extend: 1 });
        assert!(Gaps::from_signed(i32::MIN, 1).is_err());
        assert!(Gaps::from_signed(5, 0).is_err());
        assert_eq!(Gaps::stated(None, None, "BLOSUM62").unwrap(), Gaps::default_for("BLOSUM62"));
        assert_eq!(Gaps::stated(Some(-9), None, "BLOSUM50").unwrap(), Gaps { open: 9, extend: 2 });
        assert_eq!(Gaps::stated(None, Some(-3), "BLOSUM62").unwrap(), Gaps { open: 11, extend: 3 });
    }
}

//! BLAST+'s E-values and bit scores for gapped protein searches, as blastp 2.12
//! computes them without composition-based statistics (`-comp_based_stats 0`): each
//! alignment on its own (no sum statistics), with Spouge's finite-size correction
//! (Park, Sheetlin, Ma, Mott and Spouge 2012) in place of an effective search space.
//!
//! # Model
//!
//! For a raw score `y`, a query of `m` residues, a subject of `n` and a database of
//! `D` residues, with the published parameters of the matrix and gap costs
//! (`blast_table.rs`; `G = open + extend`, `_u` the ungapped row's):
//!
//! ```text
//!   a, b       = alpha, 2 G (alpha_u - alpha)          expected alignment length a y + b
//!   A, B       = Alpha, 2 G (Alpha_u - Alpha)          its variance max(2 A / lambda, A y + B)
//!   S, T       = Sigma, 2 G (Alpha_u - Sigma)          covariance max(2 S / lambda, S y + T)
//!   mu_m       = m - (a y + b),  z_m = mu_m / sd       sd the square root of the variance
//!   p_m        = mu_m Phi(z_m) + sd phi(z_m)           the expected room left on the query
//!   area       = p_m p_n + covariance Phi(z_m) Phi(z_n)
//!   E          = area K e^{-lambda y} D / n
//!   bits       = (lambda y - ln K) / ln 2
//! ```
//!
//! (`Phi` and `phi` the standard normal distribution and density.) Checked against
//! blastp's own E-values and bit scores (`tests/stats.rs`): the same to the last digit
//! blastp prints.

use super::KarlinAltschul;
use super::blast_table::{GAPPED, UNGAPPED};

/// The parameters of one matrix and gap costs (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlastParameters {
    pub lambda: f64,
    pub k: f64,
    /// Slope and intercept of the expected alignment length on the score.
    pub a: f64,
    pub b: f64,
    /// Slope and intercept of its variance.
    pub alpha: f64,
    pub beta: f64,
    /// Slope and intercept of the covariance of the query and subject lengths.
    pub sigma: f64,
    pub tau: f64,
}

impl BlastParameters {
    /// NCBI BLAST's parameters for `matrix` (any case; `BL62` is `BLOSUM62`) with gap
    /// cost `gap_open + L * gap_extend`, or None for settings BLAST does not tabulate
    /// (e.g. BLOSUM50 10/2 and PAM250 10/2, the ssearch36 defaults).
    pub fn published(matrix: &str, gap_open: i32, gap_extend: i32) -> Option<BlastParameters> {
        let upper = matrix.trim().to_ascii_uppercase();
        let name = match upper.strip_prefix("BL") {
            Some(d) if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => format!("BLOSUM{d}"),
            _ => upper,
        };
        let &(_, _, _, lambda, k, a, alpha, sigma) =
            GAPPED.iter().find(|row| row.0 == name && row.1 == gap_open && row.2 == gap_extend)?;
        let &(_, a_u, alpha_u) = UNGAPPED.iter().find(|row| row.0 == name)?;
        let g = 2.0 * (gap_open + gap_extend) as f64;
        Some(BlastParameters {
            lambda,
            k,
            a,
            b: g * (a_u - a),
            alpha,
            beta: g * (alpha_u - alpha),
            sigma,
            tau: g * (alpha_u - sigma),
        })
    }

    /// `(lambda, K)`.
    pub fn karlin_altschul(&self) -> KarlinAltschul {
        KarlinAltschul { lambda: self.lambda, k: self.k }
    }

    /// The E-value of raw score `score` for a query of `query_len`, a subject of
    /// `subject_len` and a database of `db_residues` residues: the pair's
    /// ([`Self::pair_evalue`]) times the subjects of this length the database holds.
    pub fn evalue(&self, score: f64, query_len: usize, subject_len: usize, db_residues: f64) -> f64 {
        self.pair_evalue(score, query_len, subject_len) * db_residues / subject_len.max(1) as f64
    }

    /// The expected number of alignments scoring at least `score` between a query of
    /// `query_len` and one subject of `subject_len`.
    pub fn pair_evalue(&self, score: f64, query_len: usize, subject_len: usize) -> f64 {
        let (m, n) = (query_len as f64, subject_len.max(1) as f64);
        let length = self.a * score + self.b;
        let sd = (self.alpha * score + self.beta).max(2.0 * self.alpha / self.lambda).sqrt();
        let covariance = (self.sigma * score + self.tau).max(2.0 * self.sigma / self.lambda);
        // The expected room left on a sequence of `len` residues, and the chance that
        // there is any.
        let room = |len: f64| {
            let mu = len - length;
            let z = mu / sd;
            let phi = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
            (mu * normal_cdf(z) + sd * phi, normal_cdf(z))
        };
        let ((p_m, c_m), (p_n, c_n)) = (room(m), room(n));
        let area = p_m * p_n + covariance * c_m * c_n;
        area * self.k * (-self.lambda * score).exp()
    }

    /// Bit score: `(lambda * score - ln K) / ln 2`.
    pub fn bit_score(&self, score: f64) -> f64 {
        self.karlin_altschul().bit_score(score)
    }
}

/// The standard normal distribution function, from the complementary error function
/// (accurate in both tails).
fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blastps_own_numbers() {
        // blastp 2.12 -comp_based_stats 0, BLOSUM62 11/1, a 49-residue query against a
        // 454-residue subject of a 169,296-residue database: score 37 has E 4.56024 and
        // 18.8606 bits (its XML output).
        let p = BlastParameters::published("BLOSUM62", 11, 1).unwrap();
        assert!((p.b + 26.6016).abs() < 1e-9 && (p.beta + 903.31536).abs() < 1e-6 && (p.tau + 928.11696).abs() < 1e-6);
        let e = p.evalue(37.0, 49, 454, 169_296.0);
        assert!((e / 4.56024 - 1.0).abs() < 2e-6, "{e}");
        assert!((p.bit_score(37.0) - 18.8606).abs() < 1e-4);
        // Score 268, 49 x 49: 1.85e-35 in blastp's tabular line, 107.842 bits.
        assert!((p.bit_score(268.0) - 107.842).abs() < 1e-3);
        assert_eq!(format!("{:.2e}", p.evalue(268.0, 49, 49, 169_296.0)), "1.85e-35");
    }

    #[test]
    fn table_lookups() {
        let b62 = KarlinAltschul { lambda: 0.267, k: 0.041 };
        let ka = |m: &str, o, e| BlastParameters::published(m, o, e).map(|p| p.karlin_altschul());
        assert_eq!(ka("BLOSUM62", 11, 1), Some(b62));
        assert_eq!(ka("bl62", 11, 1), Some(b62));
        assert_eq!(ka("PAM30", 9, 1), Some(KarlinAltschul { lambda: 0.294, k: 0.11 }));
        assert_eq!(ka("BLOSUM45", 15, 2), Some(KarlinAltschul { lambda: 0.203, k: 0.041 }));
        assert_eq!(ka("BLOSUM62", 11, 3), None);
        assert_eq!(ka("BLOSUM50", 10, 2), None);
        assert_eq!(ka("EDNAFULL", 12, 4), None);
        assert_eq!(ka("BL", 11, 1), None);
    }
}

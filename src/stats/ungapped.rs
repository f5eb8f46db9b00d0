//! Ungapped Karlin-Altschul parameters of a substitution matrix, for the score cap of
//! ssearch36's regression ([`super::regression`]), as FASTA 36 computes the cap:
//! `lambda` solved from the matrix and the background frequencies (Robinson and
//! Robinson's for protein, FASTA's way: the first letter over all twenty, the second
//! over the nineteen before V; uniform for DNA), and `K` from Karlin and Altschul's
//! series over the sums of pair scores, summed as their program (and FASTA) sums it.
//! The cap is rounded to a whole score, so these must be FASTA's to about 1e-5 for the
//! regression to be ssearch36's where a cap falls near a half.

use crate::scoring::Matrix;
use crate::seq::Alphabet;

/// Amino-acid background frequencies of Robinson and Robinson (1991), per thousand.
const ROBINSON: [(u8, f64); 20] = [
    (b'A', 78.05),
    (b'R', 51.29),
    (b'N', 44.87),
    (b'D', 53.64),
    (b'C', 19.25),
    (b'Q', 42.64),
    (b'E', 62.95),
    (b'G', 73.77),
    (b'H', 21.99),
    (b'I', 51.42),
    (b'L', 90.19),
    (b'K', 57.44),
    (b'M', 22.43),
    (b'F', 38.56),
    (b'P', 52.03),
    (b'S', 71.20),
    (b'T', 58.41),
    (b'W', 13.30),
    (b'Y', 32.16),
    (b'V', 64.41),
];

/// Letter codes and their background frequencies.
type Frequencies = Vec<(u8, f64)>;

/// The ungapped Karlin-Altschul parameters of a scoring system and the fraction of
/// `lambda` ssearch36's score cap uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ungapped {
    pub lambda: f64,
    pub k: f64,
    /// 0.7 for protein, 1 for DNA (ssearch36's).
    pub lambda_fraction: f64,
}

impl Ungapped {
    /// The parameters of `matrix` (see the module documentation). `lambda` is infinite
    /// when the matrix has no positive score, NaN when its expected score is not
    /// negative (no local-alignment statistics): the cap is then none.
    pub fn of(matrix: &Matrix) -> Ungapped {
        let alphabet = matrix.alphabet();
        let lambda_fraction = if alphabet == Alphabet::Protein { 0.7 } else { 1.0 };
        let (first, second): (Frequencies, Frequencies) = match alphabet {
            Alphabet::Protein => {
                let all: Vec<(u8, f64)> =
                    ROBINSON.iter().filter_map(|&(c, f)| Some((alphabet.exact_code(c)?, f))).collect();
                let before_v = all[..all.len() - 1].to_vec();
                (all, before_v)
            }
            Alphabet::Dna => {
                let all: Vec<(u8, f64)> =
                    b"ACGT".iter().filter_map(|&c| Some((alphabet.exact_code(c)?, 1.0))).collect();
                (all.clone(), all)
            }
        };
        let pairs = pair_scores(matrix, &first, &second);
        let lambda = solve_lambda(&pairs);
        Ungapped { lambda, k: karlin_k(&pairs, lambda), lambda_fraction }
    }

    /// The highest score that enters a length bin, for `samples` scores of a query of
    /// `query_len` residues against subjects of `mean_subject_len` on average: the score
    /// with an E-value of 0.01 under `(lambda_fraction * lambda, K)`, rounded.
    pub fn score_cap(&self, samples: usize, query_len: usize, mean_subject_len: f64) -> f64 {
        let space = samples as f64 * self.k * query_len as f64 * mean_subject_len;
        let cap = (-(0.01 / space).ln() / (self.lambda * self.lambda_fraction)).round();
        if cap.is_nan() { f64::INFINITY } else { cap }
    }
}

/// The distribution of one pair's score: `(probability, score)`, the products of the
/// `first` and `second` frequencies normalised over their pairs.
fn pair_scores(matrix: &Matrix, first: &[(u8, f64)], second: &[(u8, f64)]) -> Vec<(f64, i32)> {
    let pairs: Vec<(f64, i32)> =
        first.iter().flat_map(|&(a, fa)| second.iter().map(move |&(b, fb)| (fa * fb, matrix.score(a, b)))).collect();
    let total: f64 = pairs.iter().map(|p| p.0).sum();
    pairs.into_iter().map(|(p, s)| (p / total, s)).collect()
}

/// The `lambda > 0` with `sum p e^{lambda s} = 1` over the pairs, by bisection:
/// infinite when no score is positive, NaN when the expected score is not negative.
fn solve_lambda(pairs: &[(f64, i32)]) -> f64 {
    let sum = |lambda: f64| pairs.iter().map(|&(p, s)| p * (lambda * s as f64).exp()).sum::<f64>();
    let expected: f64 = pairs.iter().map(|&(p, s)| p * s as f64).sum();
    if pairs.iter().all(|p| p.1 <= 0) {
        return f64::INFINITY;
    }
    if expected >= 0.0 {
        return f64::NAN;
    }
    let mut high = 0.5;
    while sum(high) < 1.0 {
        high *= 2.0;
    }
    let mut low = 0.0;
    for _ in 0..100 {
        let mid = 0.5 * (low + high);
        if sum(mid) < 1.0 { low = mid } else { high = mid }
    }
    0.5 * (low + high)
}

/// Karlin and Altschul's `K` for ungapped local alignments (1990), summed as their
/// program sums it (and FASTA with it):
///
/// ```text
///   sigma = sum_k>=1 (E[e^{lambda S_k}; S_k < 0] + P(S_k >= 0)) / k     S_k a sum of k pair scores
///   K     = d e^{-2 sigma} / (E[S e^{lambda S}] (1 - e^{-lambda d}))      d the scores' greatest common divisor
/// ```
///
/// with the series' terms computed while they exceed 0.001 (at most 25 of them) and
/// the rest, to the 200th, extrapolated from the ratio of the last two. NaN where
/// `lambda` is not finite.
fn karlin_k(pairs: &[(f64, i32)], lambda: f64) -> f64 {
    const COMPUTED: usize = 25;
    const EXTRAPOLATED: usize = 200;
    if !lambda.is_finite() {
        return f64::NAN;
    }
    let (low, high) = (pairs.iter().map(|p| p.1).min().unwrap_or(0), pairs.iter().map(|p| p.1).max().unwrap_or(0));
    let width = (high - low) as usize;
    let mut one = vec![0.0; width + 1];
    for &(p, s) in pairs {
        one[(s - low) as usize] += p;
    }
    let gcd = |mut a: i64, mut b: i64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.abs()
    };
    let d = (0..=width).filter(|&i| one[i] > 0.0).fold(0, |g, i| gcd(g, low as i64 + i as i64)) as f64;
    let tilted: f64 =
        (0..=width).map(|i| one[i] * (low + i as i32) as f64 * (lambda * (low + i as i32) as f64).exp()).sum();
    // The distribution of S_k over [k low, k high], convolved one pair at a time.
    let mut sum_k = one.clone();
    let (mut sigma, mut previous, mut ratio, mut k) = (0.0, 1.0, 0.0, 1);
    while k <= COMPUTED {
        let lowest = k as i64 * low as i64;
        let mass: f64 = sum_k
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let s = lowest + i as i64;
                if s < 0 { p * (lambda * s as f64).exp() } else { p }
            })
            .sum();
        ratio = mass / previous;
        previous = mass;
        sigma += mass / k as f64;
        k += 1;
        if mass / ((k - 1) as f64) <= 0.001 {
            break;
        }
        let mut next = vec![0.0; sum_k.len() + width];
        for (i, &p) in sum_k.iter().enumerate().filter(|(_, p)| **p > 0.0) {
            for (j, &q) in one.iter().enumerate() {
                next[i + j] += p * q;
            }
        }
        sum_k = next;
    }
    for j in k..=EXTRAPOLATED {
        previous *= ratio;
        sigma += previous / j as f64;
    }
    d * (-2.0 * sigma).exp() / (tilted * (1.0 - (-lambda * d).exp()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_and_solved_lambdas() {
        // FASTA 36's own values: lambda 0.31605 and K 0.13287 (BLOSUM62), 0.22953 and
        // 0.10995 (BLOSUM50).
        let b62 = Ungapped::of(&Matrix::builtin("BLOSUM62").unwrap());
        assert!((b62.lambda - 0.31605).abs() < 2e-5 && b62.lambda_fraction == 0.7, "{b62:?}");
        assert!((b62.k / 0.132866 - 1.0).abs() < 1e-4, "{b62:?}");
        let b50 = Ungapped::of(&Matrix::builtin("BLOSUM50").unwrap());
        assert!((b50.lambda - 0.22953).abs() < 2e-5 && (b50.k / 0.109947 - 1.0).abs() < 1e-4, "{b50:?}");
        // With both letters over all twenty, BLAST's published 0.3176.
        let protein: Vec<(u8, f64)> =
            ROBINSON.iter().map(|&(c, f)| (Alphabet::Protein.exact_code(c).unwrap(), f)).collect();
        let solved = solve_lambda(&pair_scores(&Matrix::builtin("BLOSUM62").unwrap(), &protein, &protein));
        assert!((solved - 0.3176).abs() < 0.001, "{solved}");
        // +1/-1 on uniform DNA: e^l / 4 + 3 e^-l / 4 = 1, so lambda = ln 3.
        let dna = Ungapped::of(&Matrix::match_mismatch(Alphabet::Dna, 1, -1).unwrap());
        assert!((dna.lambda - 3f64.ln()).abs() < 1e-9 && dna.k > 0.0 && dna.k < 1.0, "{dna:?}");
        // A matrix whose expected score is positive has no cap.
        let positive = Matrix::match_mismatch(Alphabet::Dna, 5, 0).unwrap();
        assert_eq!(Ungapped::of(&positive).score_cap(1000, 100, 100.0), f64::INFINITY);
    }
}

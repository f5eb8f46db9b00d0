//! ssearch36's default statistics (FASTA's `-z 1`, Pearson 1998): no Gumbel is fitted
//! to the scores; their mean and variance are regressed on the logarithm of the subject
//! length, each score becomes a z-score against the unrelated subjects of its length,
//! and the z-score is read against an extreme-value distribution of mean 0 and
//! variance 1.
//!
//! # Model
//!
//! With `x = ln n` (`n` the subject's length):
//!
//! ```text
//!   mean(S | n)     = rho x + mu                   least squares over the kept scores
//!   var(S | n)      = rho_var x + mu_var           least squares of the squared residuals,
//!                                                  never below a quarter of their mean
//!   z               = (S - mean(S | n)) / sqrt(var(S | n))
//!   P(S >= s | n)   = 1 - exp(-e^{-c z - gamma})   c = pi / sqrt 6, gamma = Euler's constant
//!   E(s)            = D * P(S >= s | n)            D = number of subjects searched
//!   bits(s)         = (ln(m n) + c z + gamma) / ln 2
//! ```
//!
//! The extreme-value distribution with mean 0 and variance 1 has scale `1 / c` and
//! location `-gamma / c`, which gives `P`. A Karlin-Altschul Gumbel
//! (`mu(n) = ln(K m n) / lambda`, scale `1 / lambda`) has exactly this form, with
//! `rho = 1 / lambda` and a constant variance `pi^2 / (6 lambda^2)`: the regression
//! recovers its P-values without assuming that `lambda` is the same for every length.
//! The bit score is the one for which `m n 2^-bits` is the expected number of
//! alignments scoring at least `s` in the pair, as for a Karlin-Altschul bit score.
//!
//! # Homologs
//!
//! Related subjects score far above the rest and would pull the mean and the variance
//! up. As in [`super::fit_length_corrected`], scores whose E-value among the `N`
//! positive scores is below 0.1 under the current regression are set aside and the
//! regression is repeated on the rest, every round re-judging every score, until the
//! set stops changing. ssearch36 sets aside scores by z-score and bins the lengths
//! before regressing; this is our own formulation of the same idea, compared with
//! ssearch36's figures in the README.

use super::MIN_FIT_SCORES;
use super::evalue::without_homologs;
use crate::{Error, Result};

/// `pi / sqrt(6)`: the scale of the standard extreme-value distribution.
const PI_SQRT6: f64 = std::f64::consts::PI / 2.449_489_742_783_178;

/// Euler-Mascheroni constant: the mean of the Gumbel with location 0 and scale 1.
const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// The variance regression is never taken below this fraction of the mean squared
/// residual: a length range with few scores must not make every score there look
/// significant.
const VARIANCE_FLOOR: f64 = 0.25;

/// The regression of one query's scores on the logarithm of the subject length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Regression {
    /// Slope of the mean score on `ln n`.
    pub rho: f64,
    /// Intercept of the mean score.
    pub mu: f64,
    /// Slope of the score variance on `ln n`.
    pub rho_var: f64,
    /// Intercept of the score variance.
    pub mu_var: f64,
    /// The smallest variance used (a quarter of the mean squared residual).
    pub var_floor: f64,
    /// Scores the final regression used (the others were set aside as homologs).
    pub kept: usize,
}

impl Regression {
    /// The z-score of `score` for a subject of `subject_len`.
    pub fn z(&self, score: f64, subject_len: usize) -> f64 {
        self.z_at(score, (subject_len.max(1) as f64).ln())
    }

    fn z_at(&self, score: f64, x: f64) -> f64 {
        let var = (self.rho_var * x + self.mu_var).max(self.var_floor);
        (score - (self.rho * x + self.mu)) / var.sqrt()
    }

    /// `P(S >= score | n)`: the standard extreme-value survival at the z-score.
    pub fn pvalue(&self, score: f64, subject_len: usize) -> f64 {
        survival(self.z(score, subject_len))
    }

    /// E-value in a search of `db_subjects` subjects: `db_subjects * P(S >= score | n)`.
    pub fn evalue(&self, score: f64, subject_len: usize, db_subjects: usize) -> f64 {
        db_subjects as f64 * self.pvalue(score, subject_len)
    }

    /// Bit score: `(ln(m n) + c z + gamma) / ln 2`.
    pub fn bit_score(&self, score: f64, query_len: usize, subject_len: usize) -> f64 {
        let ln_mn = (query_len.max(1) as f64).ln() + (subject_len.max(1) as f64).ln();
        (ln_mn + PI_SQRT6 * self.z(score, subject_len) + EULER_GAMMA) / std::f64::consts::LN_2
    }
}

/// `P(Z >= z)` for the extreme-value distribution of mean 0 and variance 1, without
/// cancellation in the far tail.
fn survival(z: f64) -> f64 {
    -(-(-PI_SQRT6 * z - EULER_GAMMA).exp()).exp_m1()
}

/// Regresses one query's scores against a database on `ln n` (see the module
/// documentation). Only scores `> 0` are used. Errors: fewer than
/// [`MIN_FIT_SCORES`] positive scores (as the Gumbel fit), mismatched lengths, a zero length, scores
/// that do not vary, or more than half of the scores set aside as homologs.
pub fn fit_regression(scores: &[i32], subject_lengths: &[usize]) -> Result<Regression> {
    if scores.len() != subject_lengths.len() {
        return Err(Error::InvalidArgument(format!(
            "regression: {} scores but {} subject lengths",
            scores.len(),
            subject_lengths.len()
        )));
    }
    if subject_lengths.contains(&0) {
        return Err(Error::InvalidArgument("regression: subject lengths must be > 0".into()));
    }
    let (s, x): (Vec<f64>, Vec<f64>) =
        scores.iter().zip(subject_lengths).filter(|(s, _)| **s > 0).map(|(&s, &n)| (s as f64, (n as f64).ln())).unzip();
    let total = s.len();
    if total < MIN_FIT_SCORES {
        return Err(Error::InvalidArgument(format!(
            "regression needs at least {MIN_FIT_SCORES} scores > 0, got {total}"
        )));
    }
    let evalues = |r: &Regression| (0..total).map(|i| total as f64 * survival(r.z_at(s[i], x[i]))).collect();
    without_homologs(total, "regression", |keep| regress(&s, &x, keep), evalues).map(|(fit, _)| fit)
}

/// Least squares of `y` on `x` over the kept points: `(slope, intercept)`; a slope of 0
/// when every kept `x` is the same.
fn least_squares(y: &[f64], x: &[f64], keep: &[bool]) -> (f64, f64) {
    let kept = || (0..y.len()).filter(|&i| keep[i]);
    let n = kept().count() as f64;
    let (xbar, ybar) = (kept().map(|i| x[i]).sum::<f64>() / n, kept().map(|i| y[i]).sum::<f64>() / n);
    let sxx: f64 = kept().map(|i| (x[i] - xbar).powi(2)).sum();
    let sxy: f64 = kept().map(|i| (x[i] - xbar) * (y[i] - ybar)).sum();
    let slope = if sxx > 1e-12 * n { sxy / sxx } else { 0.0 };
    (slope, ybar - slope * xbar)
}

/// One regression of the mean and the variance over the kept scores.
fn regress(s: &[f64], x: &[f64], keep: &[bool]) -> Result<Regression> {
    let kept = keep.iter().filter(|&&k| k).count();
    let (rho, mu) = least_squares(s, x, keep);
    // Squared residuals, scaled by n / (n - 2) for the two fitted parameters.
    let scale = kept as f64 / (kept as f64 - 2.0);
    let r2: Vec<f64> = s.iter().zip(x).map(|(&s, &x)| scale * (s - rho * x - mu).powi(2)).collect();
    let (rho_var, mu_var) = least_squares(&r2, x, keep);
    let mean_var = (0..s.len()).filter(|&i| keep[i]).map(|i| r2[i]).sum::<f64>() / kept as f64;
    if !(mean_var > 0.0 && mean_var.is_finite() && rho.is_finite() && mu.is_finite()) {
        return Err(Error::InvalidArgument(format!("regression: the {kept} scores do not vary (variance {mean_var})")));
    }
    Ok(Regression { rho, mu, rho_var, mu_var, var_floor: VARIANCE_FLOOR * mean_var, kept })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::KarlinAltschul;

    /// Scores of unrelated subjects drawn from a Karlin-Altschul Gumbel, lengths spread
    /// over 50..3000 (a deterministic generator: the test does not depend on a seed).
    fn null_search(ka: KarlinAltschul, m: usize, count: usize) -> (Vec<i32>, Vec<usize>) {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut uniform = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        (0..count)
            .map(|_| {
                let n = 50 + (uniform() * 2950.0) as usize;
                let s = ka.gumbel(m, n).sample(uniform()).round().max(1.0) as i32;
                (s, n)
            })
            .unzip()
    }

    #[test]
    fn regression_recovers_karlin_altschul_pvalues() {
        let ka = KarlinAltschul { lambda: 0.267, k: 0.041 };
        let m = 300;
        let (s, n) = null_search(ka, m, 20_000);
        let r = fit_regression(&s, &n).unwrap();
        assert!((r.rho * ka.lambda - 1.0).abs() < 0.05, "slope {} vs 1/lambda {}", r.rho, 1.0 / ka.lambda);
        let var = std::f64::consts::PI.powi(2) / (6.0 * ka.lambda * ka.lambda);
        assert!((r.mu_var + r.rho_var * 6.0 - var).abs() < 0.1 * var, "{r:?} vs variance {var}");
        // Strong and weak hits: the regression's P-value within 40% of the truth over
        // ten orders of magnitude (the integer scores are rounded, the model continuous).
        for (score, len) in [(60, 400), (80, 2000), (100, 150), (140, 900)] {
            let (want, got) = (ka.pvalue(score as f64, m, len), r.pvalue(score as f64, len));
            assert!((got / want).ln().abs() < 0.4f64.ln_1p(), "score {score} n {len}: {got:e} vs {want:e}");
        }
        // Bits: m n 2^-bits is the expected count, as Karlin-Altschul's (within rounding).
        let (b_ka, b_r) = (ka.bit_score(100.0), r.bit_score(100.0, m, 500));
        assert!((b_ka - b_r).abs() < 0.6, "{b_ka} vs {b_r}");
    }

    #[test]
    fn homologs_are_set_aside() {
        let ka = KarlinAltschul { lambda: 0.267, k: 0.041 };
        let (mut s, n) = null_search(ka, 300, 5_000);
        let clean = fit_regression(&s, &n).unwrap();
        for (k, v) in s.iter_mut().step_by(50).enumerate() {
            *v = 200 + k as i32; // 2% strong homologs
        }
        let dirty = fit_regression(&s, &n).unwrap();
        assert!(dirty.kept <= 5_000 - 100, "{dirty:?}");
        let (a, b) = (clean.pvalue(70.0, 500), dirty.pvalue(70.0, 500));
        assert!((a / b).ln().abs() < 0.3f64.ln_1p(), "{a:e} vs {b:e}");
    }

    #[test]
    fn too_few_or_constant_scores_are_errors() {
        assert!(fit_regression(&[10; 199], &[100; 199]).unwrap_err().to_string().contains("at least 200"));
        assert!(fit_regression(&[10; 300], &[100; 300]).unwrap_err().to_string().contains("do not vary"));
        assert!(fit_regression(&[10; 300], &[100; 299]).is_err());
        assert!(fit_regression(&[10; 300], &[0; 300]).is_err());
        // The far tail has no cancellation: P is positive where 1 - (1 - p) would be 0.
        assert!(survival(60.0) > 0.0 && survival(60.0) < 1e-30);
    }
}

//! From shuffle scores to significance: a Gumbel maximum-likelihood fit
//! ([`crate::stats::fit_complete`], or [`crate::stats::fit_censored`] when the low scores
//! are censored), then `K`, the P-value and the E-value of the real score.

use crate::error::{Error, Result};
use crate::stats::{Gumbel, fit_censored, fit_complete};

/// The fitted distribution of one pair's shuffle scores and the real score's significance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// Location of the Gumbel fitted to the shuffle scores.
    pub mu: f64,
    /// Its scale parameter (per score unit).
    pub lambda: f64,
    /// `K = exp(lambda mu) / (m n)`: the Karlin-Altschul `K` of this pair.
    pub k: f64,
    /// `P(S >= score)` under the fit: `1 - exp(-exp(-lambda (score - mu)))`.
    pub p_value: f64,
    /// `K m n exp(-lambda score) = exp(-lambda (score - mu))`: the expected number of
    /// alignments scoring at least `score` when comparing these two sequences once
    /// (`p_value = 1 - exp(-e_value)`). Multiply by the number of comparisons for a
    /// database-wide E-value.
    pub e_value: f64,
    /// Shuffle scores below the censoring cutoff (counted, not used); 0 for a complete fit.
    pub censored: usize,
    /// The censoring cutoff, when the fit was censored.
    pub cutoff: Option<f64>,
}

/// Fits the shuffle scores of a pair whose sequences have lengths `m` and `n` and reads
/// off the significance of `score`.
///
/// `censor_below`: a quantile `q` in (0, 1): the cutoff `c` is the shuffle score at rank
/// `floor(q N)` of the sorted scores; scores below `c` are counted but not used (Type I
/// censored fit), scores at or above it are the observations. `None`: complete fit.
///
/// Errors (never NaN) on fewer than 2 distinct usable scores, on a fit that does not
/// converge, or on a quantile outside (0, 1).
pub fn fit_scores(shuffle_scores: &[i32], score: i32, m: usize, n: usize, censor_below: Option<f64>) -> Result<Fit> {
    let x: Vec<f64> = shuffle_scores.iter().map(|&s| s as f64).collect();
    let (g, censored, cutoff) = match censor_below {
        None => (fit_complete(&x)?, 0, None),
        Some(q) => {
            if !(q > 0.0 && q < 1.0) {
                return Err(Error::InvalidArgument(format!(
                    "censoring quantile must lie strictly between 0 and 1, got {q}"
                )));
            }
            let mut sorted = x.clone();
            sorted.sort_by(f64::total_cmp);
            let c = sorted.get(((q * sorted.len() as f64) as usize).min(sorted.len().saturating_sub(1))).copied();
            let Some(c) = c else {
                return Err(Error::InvalidArgument("Gumbel fit needs at least 2 scores, got 0".into()));
            };
            let observed: Vec<f64> = x.iter().copied().filter(|&v| v >= c).collect();
            let z = x.len() - observed.len();
            let g = if z == 0 { fit_complete(&observed)? } else { fit_censored(&observed, z, c)? };
            (g, z, Some(c))
        }
    };
    finish(g, score, m, n, censored, cutoff)
}

fn finish(g: Gumbel, score: i32, m: usize, n: usize, censored: usize, cutoff: Option<f64>) -> Result<Fit> {
    if m == 0 || n == 0 {
        return Err(Error::InvalidArgument("pairwise statistics need two non-empty sequences".into()));
    }
    let ln_k = g.lambda * g.mu - ((m as f64).ln() + (n as f64).ln());
    let y = g.lambda * (score as f64 - g.mu);
    let fit = Fit {
        mu: g.mu,
        lambda: g.lambda,
        k: ln_k.exp(),
        p_value: g.survival(score as f64),
        e_value: (-y).exp(),
        censored,
        cutoff,
    };
    let finite = [fit.mu, fit.lambda, fit.k, fit.p_value, fit.e_value].iter().all(|v| v.is_finite());
    if !finite || fit.lambda <= 0.0 {
        return Err(Error::InvalidArgument(format!(
            "Gumbel fit gave unusable parameters (mu {}, lambda {}, K {}) for score {score}",
            fit.mu, fit.lambda, fit.k
        )));
    }
    Ok(fit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_p_and_e_follow_from_mu_and_lambda() {
        let scores: Vec<i32> = (0..500).map(|i| 20 + (i * 37 % 23) + (i % 7)).collect();
        let f = fit_scores(&scores, 60, 200, 300, None).unwrap();
        assert!((f.k * 200.0 * 300.0 - (f.lambda * f.mu).exp()).abs() < 1e-9 * (f.lambda * f.mu).exp());
        assert!((f.p_value - (-(-f.e_value).exp_m1())).abs() < 1e-15);
        assert!((f.e_value - f.k * 200.0 * 300.0 * (-f.lambda * 60.0).exp()).abs() < 1e-12);
        assert_eq!((f.censored, f.cutoff), (0, None));
    }

    #[test]
    fn censoring_counts_the_low_scores() {
        let scores: Vec<i32> = (0..1000).map(|i| 20 + (i * 37 % 23) + (i % 7)).collect();
        let f = fit_scores(&scores, 60, 200, 300, Some(0.5)).unwrap();
        let c = f.cutoff.unwrap();
        assert_eq!(f.censored, scores.iter().filter(|&&s| (s as f64) < c).count());
        assert!(f.censored > 300 && f.censored <= 500, "{f:?}");
    }

    #[test]
    fn degenerate_samples_are_errors() {
        assert!(fit_scores(&[], 5, 10, 10, None).is_err());
        assert!(fit_scores(&[3], 5, 10, 10, None).is_err());
        assert!(fit_scores(&[3; 100], 5, 10, 10, None).is_err());
        assert!(fit_scores(&[3; 100], 5, 10, 10, Some(0.5)).is_err());
        // Only one value at or above the cutoff: nothing to fit.
        let mut s = vec![1; 99];
        s.push(9);
        assert!(fit_scores(&s, 5, 10, 10, Some(0.995)).is_err());
        assert!(fit_scores(&[1, 2, 3], 5, 10, 10, Some(1.0)).is_err());
        assert!(fit_scores(&[1, 2, 3], 5, 0, 10, None).is_err());
    }
}

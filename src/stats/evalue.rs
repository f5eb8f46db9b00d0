//! E-values for a database search: Karlin-Altschul statistics with `(lambda, K)` either
//! fitted to the search's own scores (what ssearch36 does by default) or taken from
//! NCBI BLAST's published tables.
//!
//! # Model
//!
//! For a query of length `m` and an unrelated subject of length `n`, the optimal local
//! score `S` is Gumbel-distributed with scale `lambda` and location
//! `mu(n) = ln(K m n) / lambda`, so
//!
//! ```text
//!   P(S >= x | m, n) = 1 - exp(-K m n e^{-lambda x})      (computed as -expm1(-K m n e^{-lambda x}))
//!   E(x) = D * P(S >= x | m, n)                            D = number of subjects searched
//! ```
//!
//! This is the E-value ssearch36 reports: the per-pair P-value of the subject's own
//! length times the number of library sequences. Lengths are used as given, with no
//! BLAST-style edge-effect correction; with BLAST's published `(lambda, K)` that makes
//! the E-values somewhat larger (more conservative) than BLAST's for short sequences.
//! Scores are treated as continuous values of the Gumbel: `P(S >= x)` is the Gumbel
//! survival at `x`, without a lattice correction for integer scores.

use super::blast_table::GAPPED;
use super::gumbel::{Gumbel, solve_lawless};
use crate::{Error, Result};

/// Karlin-Altschul parameters of a scoring system.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KarlinAltschul {
    pub lambda: f64,
    pub k: f64,
}

impl KarlinAltschul {
    /// The score distribution for one query-subject pair: `Gumbel { mu: ln(K m n) / lambda, lambda }`.
    pub fn gumbel(&self, query_len: usize, subject_len: usize) -> Gumbel {
        let mu = (self.k.ln() + (query_len as f64).ln() + (subject_len as f64).ln()) / self.lambda;
        Gumbel { mu, lambda: self.lambda }
    }

    /// Bit score: `(lambda * raw - ln K) / ln 2`.
    pub fn bit_score(&self, raw: f64) -> f64 {
        (self.lambda * raw - self.k.ln()) / std::f64::consts::LN_2
    }

    /// Per-pair P-value `P(S >= raw | m, n) = 1 - exp(-K m n e^{-lambda raw})`.
    pub fn pvalue(&self, raw: f64, query_len: usize, subject_len: usize) -> f64 {
        self.gumbel(query_len, subject_len).survival(raw)
    }

    /// E-value in a search of `db_subjects` subjects: `db_subjects * P(S >= raw | m, n)`,
    /// with `n` this subject's length (the ssearch36 convention; see the module docs).
    pub fn evalue(&self, raw: f64, query_len: usize, subject_len: usize, db_subjects: usize) -> f64 {
        db_subjects as f64 * self.pvalue(raw, query_len, subject_len)
    }
}

/// Fewest positive scores [`fit_length_corrected`] accepts.
pub const MIN_FIT_SCORES: usize = 200;

/// A score is set aside as a likely homolog when its E-value under the current fit,
/// among the fitted scores, is below this. Under the null about this many scores fall
/// below it, so excluding them biases the fit negligibly.
const HOMOLOG_EVALUE: f64 = 0.1;

/// Rounds of fit-and-exclude before giving up on the excluded set changing.
const MAX_ROUNDS: usize = 20;

const INITIAL_TRIM: f64 = 0.1;

/// Fits `(lambda, K)` by maximum likelihood to one query's scores against a database,
/// each score with its own location `mu_i = ln(K m n_i) / lambda`.
///
/// # Likelihood
///
/// With `kappa = ln K` and `a_i = ln(m n_i)`, `lambda (S_i - mu_i) = lambda S_i - kappa - a_i`:
///
/// ```text
///   l(lambda, kappa) = sum_i [ ln lambda - (lambda S_i - kappa - a_i) - e^{kappa + a_i - lambda S_i} ]
///   dl/dkappa  = N - e^kappa W = 0,   W = sum_i m n_i e^{-lambda S_i}
///              => K = N / W                                   (K profiled out in closed form)
///   dl/dlambda = N/lambda - sum S_i + K sum S_i m n_i e^{-lambda S_i} = 0
///              => 1/lambda - mean(S) + sum S_i n_i e^{-lambda S_i} / sum n_i e^{-lambda S_i} = 0
/// ```
///
/// This is the complete-data Gumbel equation with every sample weighted by its subject
/// length (`m` cancels), solved by the same safeguarded Newton-Raphson (see
/// [`super::gumbel`] for `f'` and why the root is unique).
///
/// # Homologs
///
/// Related subjects score far above the Gumbel and would drag `lambda` down. The fit is
/// repeated: every score with E-value `N P(S >= S_i | m, n_i) < 0.1` under the current
/// fit (`N` = number of positive scores) is excluded and the rest refitted, until the
/// excluded set stops changing (each round re-judges all scores, so one wrongly
/// excluded early can come back). A first fit contaminated by homologs has a too small
/// `lambda`, which still leaves strong homologs with tiny E-values, and each round
/// sharpens the next. Under the null about 0.1 scores are excluded, so the bias is nil.
///
/// Only scores `> 0` are used (0 means no local alignment). Errors, so that the caller
/// can fall back to [`published`] parameters: fewer than [`MIN_FIT_SCORES`] positive
/// scores, more than half of them excluded as homologs (the scores do not look like a
/// database of mostly unrelated sequences), mismatched lengths, a zero length, or no
/// convergence.
pub fn fit_length_corrected(scores: &[i32], subject_lengths: &[usize], query_len: usize) -> Result<KarlinAltschul> {
    if scores.len() != subject_lengths.len() {
        return Err(Error::InvalidArgument(format!(
            "length-corrected fit: {} scores but {} subject lengths",
            scores.len(),
            subject_lengths.len()
        )));
    }
    if query_len == 0 || subject_lengths.contains(&0) {
        return Err(Error::InvalidArgument("length-corrected fit: query and subject lengths must be > 0".into()));
    }
    let (s, n): (Vec<f64>, Vec<usize>) =
        scores.iter().zip(subject_lengths).filter(|(s, _)| **s > 0).map(|(&s, &n)| (s as f64, n)).unzip();
    let ln_n: Vec<f64> = n.iter().map(|&n| (n as f64).ln()).collect();
    let total = s.len();
    if total < MIN_FIT_SCORES {
        return Err(Error::InvalidArgument(format!(
            "length-corrected fit needs at least {MIN_FIT_SCORES} scores > 0, got {total}"
        )));
    }

    fit_trimmed(&s, &n, &ln_n, query_len, INITIAL_TRIM)
}

#[doc(hidden)]
pub fn experiment(
    scores: &[i32],
    subject_lengths: &[usize],
    query_len: usize,
    trim: f64,
) -> Result<(KarlinAltschul, usize, f64)> {
    let (s, n): (Vec<f64>, Vec<usize>) =
        scores.iter().zip(subject_lengths).filter(|(s, _)| **s > 0).map(|(&s, &n)| (s as f64, n)).unzip();
    let ln_n: Vec<f64> = n.iter().map(|&n| (n as f64).ln()).collect();
    let f = fit_trimmed(&s, &n, &ln_n, query_len, trim)?;
    let keep: Vec<bool> = (0..s.len()).map(|i| f.evalue(s[i], query_len, n[i], s.len()) >= HOMOLOG_EVALUE).collect();
    let excl = keep.iter().filter(|k| !**k).count();
    Ok((f, excl, ks_distance(&f, &s, &n, &keep, query_len)))
}

fn fit_trimmed(s: &[f64], n: &[usize], ln_n: &[f64], query_len: usize, trim: f64) -> Result<KarlinAltschul> {
    let total = s.len();
    let evalues =
        |fit: &KarlinAltschul| -> Vec<f64> { (0..total).map(|i| fit.evalue(s[i], query_len, n[i], total)).collect() };
    // Round 0: fit everything, then set aside the most extreme fraction `trim` by E-value.
    let mut keep = vec![true; total];
    let mut fit = fit_subset(s, ln_n, &keep, query_len)?;
    let e0 = evalues(&fit);
    let mut order: Vec<usize> = (0..total).collect();
    order.sort_by(|&a, &b| e0[a].total_cmp(&e0[b]));
    order[..(trim * total as f64) as usize].iter().for_each(|&i| keep[i] = false);
    fit = fit_subset(s, ln_n, &keep, query_len)?;
    for _ in 0..MAX_ROUNDS {
        let next: Vec<bool> = evalues(&fit).iter().map(|&e| e >= HOMOLOG_EVALUE).collect();
        if next == keep {
            return Ok(fit);
        }
        keep = next;
        let kept = keep.iter().filter(|&&k| k).count();
        if 2 * kept < total {
            return Err(Error::InvalidArgument(format!(
                "length-corrected fit: {} of {total} scores look like homologs; too few unrelated scores to fit",
                total - kept
            )));
        }
        fit = fit_subset(s, ln_n, &keep, query_len)?;
    }
    Ok(fit)
}

fn ks_distance(fit: &KarlinAltschul, s: &[f64], n: &[usize], keep: &[bool], query_len: usize) -> f64 {
    let mut u: Vec<f64> = (0..s.len())
        .filter(|&i| keep[i])
        .map(|i| {
            let g = fit.gumbel(query_len, n[i]);
            0.5 * (g.cdf(s[i] - 0.5) + g.cdf(s[i] + 0.5))
        })
        .collect();
    u.sort_by(f64::total_cmp);
    let len = u.len() as f64;
    u.iter()
        .enumerate()
        .map(|(i, &v)| (v - i as f64 / len).abs().max((v - (i + 1) as f64 / len).abs()))
        .fold(0.0, f64::max)
}

/// One maximum-likelihood fit to the kept scores: `lambda` from the weighted Lawless
/// equation, then `K = N / sum m n_i e^{-lambda S_i}`.
fn fit_subset(s: &[f64], ln_n: &[f64], keep: &[bool], query_len: usize) -> Result<KarlinAltschul> {
    let (x, a): (Vec<f64>, Vec<f64>) = (0..s.len()).filter(|&i| keep[i]).map(|i| (s[i], ln_n[i])).unzip();
    super::gumbel::check_samples(&x)?;
    // Offsets ln n_i (not ln m n_i): the constant ln m does not move lambda; it enters K.
    let root = solve_lawless(&x, Some(&a), None)?;
    let ln_k = (x.len() as f64).ln() - root.ln_w - (query_len as f64).ln();
    let fit = KarlinAltschul { lambda: root.lambda, k: ln_k.exp() };
    if fit.k.is_finite() && fit.k > 0.0 {
        Ok(fit)
    } else {
        Err(Error::InvalidArgument(format!("length-corrected fit: K out of range (ln K = {ln_k})")))
    }
}

/// Gapped `(lambda, K)` published by NCBI BLAST for `matrix` (any case; `BL62` is
/// `BLOSUM62`) with gap cost `gap_open + L * gap_extend`, or None for settings BLAST
/// does not tabulate (e.g. BLOSUM50 10/2 and PAM250 10/2, the ssearch36 defaults,
/// which BLAST does not support). Source: see `blast_table.rs`.
pub fn published(matrix: &str, gap_open: i32, gap_extend: i32) -> Option<KarlinAltschul> {
    let upper = matrix.trim().to_ascii_uppercase();
    let name = match upper.strip_prefix("BL") {
        Some(d) if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => format!("BLOSUM{d}"),
        _ => upper,
    };
    GAPPED
        .iter()
        .find(|(m, o, e, _, _)| *m == name && *o == gap_open && *e == gap_extend)
        .map(|&(_, _, _, lambda, k)| KarlinAltschul { lambda, k })
}

#[cfg(test)]
mod tests {
    use super::*;

    const B62: KarlinAltschul = KarlinAltschul { lambda: 0.267, k: 0.041 };

    #[test]
    fn bit_score_and_evalue_by_hand() {
        // (0.267 * 100 - ln 0.041) / ln 2 = (26.7 + 3.19418) / 0.693147 = 43.128
        assert!((B62.bit_score(100.0) - 43.128).abs() < 1e-3, "{}", B62.bit_score(100.0));
        // Tail: E ~ D K m n e^{-lambda S}.
        let e = B62.evalue(100.0, 300, 400, 10_000);
        let approx = 10_000.0 * 0.041 * 300.0 * 400.0 * (-26.7f64).exp();
        assert!((e / approx - 1.0).abs() < 1e-9, "{e} vs {approx}");
        // Body: a P-value is at most 1, an E-value at most D.
        assert!(B62.pvalue(0.0, 300, 400) <= 1.0 && B62.pvalue(0.0, 300, 400) > 0.999);
    }

    #[test]
    fn table_lookups() {
        assert_eq!(published("BLOSUM62", 11, 1), Some(B62));
        assert_eq!(published("bl62", 11, 1), Some(B62));
        assert_eq!(published("PAM30", 9, 1), Some(KarlinAltschul { lambda: 0.294, k: 0.11 }));
        assert_eq!(published("BLOSUM45", 15, 2), Some(KarlinAltschul { lambda: 0.203, k: 0.041 }));
        assert_eq!(published("BLOSUM62", 11, 3), None);
        assert_eq!(published("BLOSUM50", 10, 2), None);
        assert_eq!(published("EDNAFULL", 12, 4), None);
        assert_eq!(published("BL", 11, 1), None);
    }

    #[test]
    fn fit_refuses_bad_input() {
        let msg = |r: Result<KarlinAltschul>| match r {
            Err(Error::InvalidArgument(m)) => m,
            other => panic!("expected InvalidArgument, got {other:?}"),
        };
        assert!(msg(fit_length_corrected(&[10; 300], &[100; 299], 100)).contains("300 scores but 299"));
        assert!(msg(fit_length_corrected(&[10; 300], &[100; 300], 0)).contains("must be > 0"));
        let mut scores = vec![0; 300];
        scores[..150].fill(20);
        assert!(msg(fit_length_corrected(&scores, &[100; 300], 100)).contains("at least 200 scores > 0, got 150"));
        assert!(msg(fit_length_corrected(&[7; 300], &[100; 300], 100)).contains("distinct"));
    }
}

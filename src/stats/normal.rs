//! ggsearch36's and glsearch36's statistics: FASTA 36 builds both programs with
//! `scaleswn.c -DNORMAL_DIST`, which models the global (and glocal) scores of unrelated
//! library sequences as a **normal** distribution, with no length regression and no
//! Gumbel fit.
//!
//! # Model
//!
//! ```text
//!   z        = (S - mu) / sd                          find_zn (no sampling offset here)
//!   z-score  = 50 + 10 z                              FASTA's "z-sc" column (-Xb)
//!   E(S)     = D erfc(z / sqrt 2) / 2,  0 if z > 400  zs_to_E, D = sequences scored
//!   bits(S)  = (c z + gamma + ln(m n)) / ln 2         zs_to_bit, c = pi / sqrt 6
//! ```
//!
//! The E-value is a normal tail, but the bit score is the extreme-value formula that
//! ssearch36 uses (mshowbest.c calls the same `zs_to_bit` for every program), applied to
//! the normal `z`: for these programs "bits" is not a Karlin-Altschul quantity.
//!
//! `D` is the number of library sequences actually scored, those inside the query's
//! length window ([`length_window`]), not the size of the library: for a 300-residue
//! query against 2,000 proteins ggsearch36 prints `E(531)`.
//!
//! # Fits
//!
//! - [`fit_normal`]: the default `-z 0`, FASTA's `proc_hist_n` (mean and variance of the
//!   scores up to [`MAX_HSCORE`], then up to five passes that set aside `|z| > 5`), with
//!   its quirks ported literally.
//! - [`fit_median_iqr`]: `-z 3`, `proc_hist_anorm` (median, and the interquartile range
//!   over 1.35 as the standard deviation).
//! - [`fit_search`]: `process_hist`'s choice between the two.
//!
//! The stock programs shuffle library sequences (with a clock seed) and fit those scores
//! instead when fewer than `shuff_max` sequences fall in the length window (ggsearch36:
//! 100, glsearch36: 500; `-k 0` turns it off); with more than 60,000 (`MAX_STATS`) they fit
//! a random sample. This module fits the scores it is given.
//!
//! Checked against ggsearch36 and glsearch36 36.3.8i (`tests/stats_normal.rs`, data from
//! `tests/data/make_normal_stats.sh`): fits, E-values and bit scores as printed.

use super::regression::zs_to_bit;
use crate::scoring::Mode;
use crate::{Error, Result};
use std::f64::consts::SQRT_2;
use std::ops::RangeInclusive;

/// Scores above this never enter [`fit_normal`]'s mean or variance (`calc_thresh` under
/// `NORMAL_DIST`: `max_hscore = 100`, whatever the scoring or the database size).
pub const MAX_HSCORE: i32 = 100;

/// [`fit_normal`] sets aside scores whose z-score `50 + 10 z` is above this (`zstrim`:
/// `z > 5`) or below 0 (`z < -5`).
const Z_TRIM: f64 = 100.0;

/// The most trimming passes (`nit = 5`).
const TRIM_PASSES: usize = 5;

/// Trimming stops after a pass when fewer than this many scores have been set aside in
/// all passes so far (`LHISTC`).
const LHISTC: usize = 5;

/// The E-value is 0 above this z (`ZS_MAX`, "used to prevent underflow").
pub const ZS_MAX: f64 = 400.0;

/// [`fit_normal`]'s mean and variance when fewer than two scores are left (FASTA's
/// fallback: `mu = 50`, `var = 10`).
const FALLBACK_MU: f64 = 50.0;
const FALLBACK_VAR: f64 = 10.0;

/// Below this (`process_hist`: `nstats < 10`), [`fit_search`] uses the median and IQR.
pub const MIN_MEAN_VARIANCE_SCORES: usize = 10;

/// Which FASTA estimator produced a [`NormalFit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NormalMethod {
    /// `proc_hist_n` (`-z 0`, AVE_STATS): trimmed mean and variance.
    MeanVariance,
    /// `proc_hist_anorm` (`-z 3`): median and interquartile range.
    MedianIqr,
}

/// A normal distribution for one query's scores, as FASTA's `pstat_str` holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NormalFit {
    /// Mean (or median) score: FASTA's `mu`.
    pub mu: f64,
    /// Variance: FASTA's `mean_var`, the `var=` it prints.
    pub var: f64,
    /// The divisor of `z`: FASTA's `mean_var_sqrt`. It is `sqrt(var)` except after
    /// [`fit_normal`]'s replacement of a variance below 0.01, which FASTA makes to `var`
    /// only (see there).
    pub sd: f64,
    /// Scores set aside by the `|z| > 5` passes, all passes together (FASTA's `Ztrim:`).
    /// Scores above [`MAX_HSCORE`], left out from the start, are not counted.
    pub trimmed: usize,
    pub method: NormalMethod,
}

/// FASTA's `proc_hist_n` (scaleswn.c, `-DNORMAL_DIST`), the default statistics of
/// ggsearch36 and glsearch36 (`-z 0`), on the scores of the library sequences in the
/// length window ([`length_window`]), in any order.
///
/// 1. Scores above [`MAX_HSCORE`] (100) are left out of everything below. With `j` the
///    scores left and `s` their sum: `mu = s / j`, `var = sum (x - mu)^2 / (j - 1)`; with
///    `j <= 1`, `mu = 50` and `var = 10` (so a search whose scores all exceed 100 gets
///    z = (S - 50) / sqrt 10; ggsearch36 does that).
/// 2. A variance below 0.01 here (all these scores equal, or nearly) is an **error**. FASTA
///    calls `proc_hist_a` instead, which looks up Altschul-Gish parameters for the matrix
///    and gaps and returns AG_STATS; but under `NORMAL_DIST` AG_STATS z-scores are still
///    `find_zn`'s, read through a union, so they become `(S - H) / sqrt(var)` with the
///    table's entropy `H` as the mean and the tiny (often zero) standard deviation: every
///    score above `H` gets E = 0 and infinite bits. (Seen with stock ggsearch36 against
///    150 copies of one sequence: "Altschul/Gish params: n0: 100 Lambda: 0.158 K: 0.019
///    H: 0.100", each hit "14 inf 0".) Nothing meaningful is lost by refusing it.
/// 3. Up to five trimming passes. Each pass sets aside every score still in whose z-score
///    `50 + 10 (x - mu) / sd` is above 100 or below 0, adding it to that pass's `t` (sum)
///    and `t_j` (count) and to the cumulative `trimmed`. Then, literally as FASTA does:
///    - the mean is `(s - t) / (j - t_j)`: `s` and `j` are still those of step 1, and
///      `t`, `t_j` hold **this pass's** trimmed scores only, so scores set aside in an
///      earlier pass count in the mean again;
///    - the variance sums over the scores still in, about that mean, but divides by
///      `j - 1` (step 1's count, not the number summed);
///    - with `j - t_j <= 1`, `mu = 50` and `var = 10` again;
///    - a variance below 0.01 becomes `max(mu, 1)`, **without** changing `sd` (FASTA
///      updates `mean_var` but not `mean_var_sqrt`, which z is divided by);
///    - the passes stop as soon as the cumulative `trimmed` is below 5 (`LHISTC`). Once
///      five scores have been set aside, all five passes run.
///
/// Errors: no scores; the variance of step 2 below 0.01.
// The trimming test is FASTA's two comparisons, not a range's `contains`: a NaN z-score
// (sd 0 at the mean, after a variance replaced in step 3) is kept, as in C.
#[allow(clippy::manual_range_contains)]
pub fn fit_normal(scores: &[i32]) -> Result<NormalFit> {
    if scores.is_empty() {
        return Err(Error::InvalidArgument("normal statistics: no scores".into()));
    }
    // FASTA marks a left-out score by negating its subject length (n1 = -n1).
    let mut kept: Vec<bool> = scores.iter().map(|&x| x <= MAX_HSCORE).collect();
    let j = kept.iter().filter(|&&k| k).count();
    let s: f64 = scores.iter().zip(&kept).filter(|(_, k)| **k).map(|(&x, _)| f64::from(x)).sum();
    let sum_squares = |kept: &[bool], mu: f64| -> f64 {
        scores.iter().zip(kept).filter(|(_, k)| **k).map(|(&x, _)| (f64::from(x) - mu) * (f64::from(x) - mu)).sum()
    };

    let mut fit = NormalFit {
        mu: FALLBACK_MU,
        var: FALLBACK_VAR,
        sd: FALLBACK_VAR.sqrt(),
        trimmed: 0,
        method: NormalMethod::MeanVariance,
    };
    if j > 1 {
        fit.mu = s / j as f64;
        fit.var = sum_squares(&kept, fit.mu) / (j - 1) as f64;
        fit.sd = fit.var.sqrt();
    }
    if fit.var < 0.01 {
        return Err(Error::InvalidArgument(format!(
            "normal statistics: the {j} scores up to {MAX_HSCORE} have a variance of {} (mean {}); FASTA's \
             proc_hist_n gives up on a variance below 0.01 (its Altschul-Gish fallback gives every score above \
             the table's entropy H E = 0 and infinite bits)",
            fit.var, fit.mu
        )));
    }

    for _ in 0..TRIM_PASSES {
        let (mut t, mut t_j) = (0.0, 0usize);
        for (&x, k) in scores.iter().zip(kept.iter_mut()) {
            if !*k {
                continue;
            }
            let zs = fit.zscore(x);
            if zs > Z_TRIM || zs < 0.0 {
                t += f64::from(x);
                t_j += 1;
                fit.trimmed += 1;
                *k = false;
            }
        }
        if j - t_j > 1 {
            fit.mu = (s - t) / (j - t_j) as f64;
            // FASTA also requires score <= max_hscore here; every score still in has it.
            fit.var = sum_squares(&kept, fit.mu) / (j - 1) as f64;
            fit.sd = fit.var.sqrt();
        } else {
            fit.mu = FALLBACK_MU;
            fit.var = FALLBACK_VAR;
            fit.sd = FALLBACK_VAR.sqrt();
        }
        if fit.var < 0.01 {
            fit.var = if fit.mu > 1.0 { fit.mu } else { 1.0 };
        }
        if fit.trimmed < LHISTC {
            break;
        }
    }
    Ok(fit)
}

/// FASTA's `proc_hist_anorm` (scaleswn.c, `-DNORMAL_DIST`): ggsearch36's and
/// glsearch36's `-z 3`, "Unscaled normal (median, IQR) statistics". Every score counts
/// (no [`MAX_HSCORE`], no trimming). With the scores sorted ascending and `m = n / 2`:
///
/// - `mu` is the score at index `m` (0-based; the upper median for even `n`, no averaging);
/// - `sd = (x[m + m/2] - x[m - m/2]) / 1.35`, a difference of integer scores, and
///   `var = sd^2`.
///
/// An IQR of 0 gives `sd = 0`, which FASTA keeps: z is then infinite (or NaN at the median).
///
/// Errors: no scores (FASTA would read past its array).
pub fn fit_median_iqr(scores: &[i32]) -> Result<NormalFit> {
    if scores.is_empty() {
        return Err(Error::InvalidArgument("normal (median, IQR) statistics: no scores".into()));
    }
    let mut sorted = scores.to_vec();
    sorted.sort_unstable();
    let m = sorted.len() / 2;
    let sd = f64::from(sorted[m + m / 2] - sorted[m - m / 2]) / 1.35;
    Ok(NormalFit { mu: f64::from(sorted[m]), var: sd * sd, sd, trimmed: 0, method: NormalMethod::MedianIqr })
}

/// FASTA's `process_hist` choice for ggsearch36 and glsearch36: `method` (`-z 0`:
/// [`NormalMethod::MeanVariance`], `-z 3`: [`NormalMethod::MedianIqr`]), except that
/// fewer than [`MIN_MEAN_VARIANCE_SCORES`] (10) scores always get the median and IQR.
pub fn fit_search(scores: &[i32], method: NormalMethod) -> Result<NormalFit> {
    match method {
        NormalMethod::MeanVariance if scores.len() >= MIN_MEAN_VARIANCE_SCORES => fit_normal(scores),
        _ => fit_median_iqr(scores),
    }
}

impl NormalFit {
    /// `(score - mu) / sd`: `find_zn`'s z (its sampling offset `zs_off` is 0 for these
    /// programs, which score every sequence in the window).
    pub fn z(&self, score: i32) -> f64 {
        (f64::from(score) - self.mu) / self.sd
    }

    /// FASTA's z-score `50 + 10 z` (`find_zn`'s return value; the "z-sc" column).
    pub fn zscore(&self, score: i32) -> f64 {
        50.0 + self.z(score) * 10.0
    }

    /// `zs_to_E` under `NORMAL_DIST` for a protein search: `D erfc(z / sqrt 2) / 2`, with
    /// `D = max(db_size, 1)` the number of sequences scored (those in the length window:
    /// FASTA's `zdb_size`, the N of `E(N)`), and 0 when z is above [`ZS_MAX`]. (For DNA,
    /// FASTA's `D` is the library's residues over the subject's length instead.)
    pub fn evalue(&self, score: i32, db_size: usize) -> f64 {
        let z = self.zs_z(score);
        if z > ZS_MAX {
            return 0.0;
        }
        let k = (db_size as f64).max(1.0);
        k * libm::erfc(z / SQRT_2) / 2.0
    }

    /// `zs_to_bit`: `(pi/sqrt(6) z + gamma + ln(m n)) / ln 2`, the extreme-value bit score
    /// of the normal z, for a query of `query_len` (m) and a subject of `subject_len` (n)
    /// residues. Infinite when `sd` is 0, as FASTA prints it.
    pub fn bit_score(&self, score: i32, query_len: usize, subject_len: usize) -> f64 {
        zs_to_bit(self.zs_z(score), query_len, subject_len)
    }

    /// The z that `zs_to_E` and `zs_to_bit` recover from the z-score, `(zs - 50) / 10`.
    fn zs_z(&self, score: i32) -> f64 {
        (self.zscore(score) - 50.0) / 10.0
    }

    /// The statistics line FASTA prints after "Statistics: " (`%6.4f` for both numbers).
    pub fn stat_info(&self) -> String {
        match self.method {
            NormalMethod::MeanVariance => {
                format!(
                    " Unscaled normal statistics: mu= {:6.4}  var={:6.4} Ztrim: {}",
                    self.mu, self.var, self.trimmed
                )
            }
            NormalMethod::MedianIqr => format!(
                " Unscaled normal (median, IQR) statistics: mu= {:6.4}  var={:6.4} Ztrim: {}",
                self.mu, self.var, self.trimmed
            ),
        }
    }
}

/// The library lengths ggsearch36 and glsearch36 score for a query of `query_len`
/// residues (dropnnw2.c `init_work`, when `-M` does not set them): at least
/// `(int)(0.75 n0 + 0.5)` in both programs, and for ggsearch36 (global) at most
/// `(int)(1.33 n0 - 0.5)`. Sequences outside are not scored, and are neither in the
/// statistics nor in the E-value's database size. Local mode (ssearch36) has no window.
pub fn length_window(query_len: usize, mode: Mode) -> RangeInclusive<usize> {
    let n0 = query_len as f64;
    let low = (0.75 * n0 + 0.5) as usize;
    match mode {
        Mode::Local => 0..=usize::MAX,
        Mode::Glocal => low..=usize::MAX,
        // (1.33 n0 - 0.5) truncated toward 0, as C's (int) does (0 for an empty query).
        Mode::Global => low..=(1.33 * n0 - 0.5).max(0.0) as usize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::regression::{EULER_GAMMA, PI_SQRT6};
    use std::f64::consts::LN_2;

    #[test]
    fn mean_and_variance_divide_by_j_minus_1() {
        let fit = fit_normal(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).unwrap();
        assert_eq!(fit.mu, 5.5);
        assert!((fit.var - 82.5 / 9.0).abs() < 1e-12);
        assert_eq!(fit.trimmed, 0);
        assert_eq!(fit.sd, fit.var.sqrt());
        assert_eq!(fit.method, NormalMethod::MeanVariance);
    }

    #[test]
    fn scores_above_100_are_left_out() {
        let with = fit_normal(&[1, 2, 3, 4, 500, 101]).unwrap();
        let without = fit_normal(&[1, 2, 3, 4]).unwrap();
        assert_eq!(with, without);
        // 100 itself counts.
        assert_ne!(fit_normal(&[1, 2, 3, 4, 100]).unwrap().mu, without.mu);
    }

    #[test]
    fn fewer_than_two_scores_give_50_and_10() {
        for s in [&[7][..], &[101, 300], &[200, 5]] {
            let fit = fit_normal(s).unwrap();
            assert_eq!((fit.mu, fit.var, fit.sd), (50.0, 10.0, 10f64.sqrt()), "{s:?}");
        }
        // Stock ggsearch36 against 150 copies of a sequence scoring 177: "mu= 50.0000
        // var=10.0000", bits 88.4, E(150) 0.
        let fit = fit_normal(&[177; 150]).unwrap();
        assert_eq!(format!("{:.1}", fit.bit_score(177, 100, 100)), "88.4");
        assert_eq!(fit.evalue(177, 150), 0.0);
    }

    #[test]
    fn equal_scores_are_an_error() {
        let e = fit_normal(&[14; 150]).unwrap_err().to_string();
        assert!(e.contains("variance of 0"), "{e}");
        assert!(fit_normal(&[]).is_err());
    }

    /// Scores whose trimming is easy to follow: a bulk alternating 0 and 10 (mean 5,
    /// sd about 5) and outliers near 100 (z far above 5 -> trimmed in pass 1).
    #[test]
    fn trimming_passes_follow_fasta() {
        let bulk = |n: usize| -> Vec<i32> { (0..n).map(|i| if i % 2 == 0 { 0 } else { 10 }).collect() };
        // One outlier: trimmed in pass 1 (n_trimmed 1 < 5: stop). mu over the other 100,
        // the variance about it divided by j - 1 = 100, not 99.
        let mut s = bulk(100);
        s.push(95);
        let fit = fit_normal(&s).unwrap();
        assert_eq!(fit.trimmed, 1);
        assert_eq!(fit.mu, 5.0);
        assert!((fit.var - 2500.0 / 100.0).abs() < 1e-12, "{}", fit.var);

        // Six outliers: pass 1 trims them (6 >= 5: go on). Pass 2 trims nothing, so its
        // mean is s / j again, outliers included, and its variance is the bulk's about
        // that mean over j - 1 = 1005. Passes 3 to 5 change nothing.
        let base = bulk(1000);
        let mut s = base.clone();
        s.extend([95, 96, 97, 98, 99, 100]);
        let j = s.len() as f64;
        let mu = s.iter().map(|&x| f64::from(x)).sum::<f64>() / j;
        let var = base.iter().map(|&x| (f64::from(x) - mu).powi(2)).sum::<f64>() / (j - 1.0);
        let fit = fit_normal(&s).unwrap();
        assert_eq!(fit.trimmed, 6);
        assert!((fit.mu - mu).abs() < 1e-12, "{} {mu}", fit.mu);
        assert!((fit.var - var).abs() < 1e-9, "{} {var}", fit.var);
        assert_eq!(fit.sd, fit.var.sqrt());
    }

    #[test]
    fn tiny_variance_after_trimming_changes_var_but_not_sd() {
        // 1000 zeros and four 100s: the first variance is large enough, the 100s go in
        // pass 1 (4 < 5: stop), and the zeros left have variance 0 -> var = max(mu, 1) = 1,
        // with sd still 0.
        let mut s = vec![0; 1000];
        s.extend([100; 4]);
        let fit = fit_normal(&s).unwrap();
        assert_eq!((fit.mu, fit.var, fit.sd, fit.trimmed), (0.0, 1.0, 0.0, 4));
    }

    #[test]
    fn median_and_iqr() {
        // n = 9: m = 4, quartile indices 2 and 6.
        let fit = fit_median_iqr(&[9, 1, 8, 2, 7, 3, 6, 4, 5]).unwrap();
        assert_eq!(fit.mu, 5.0);
        assert!((fit.sd - 4.0 / 1.35).abs() < 1e-15);
        assert_eq!(fit.var, fit.sd * fit.sd);
        // n = 4: m = 2 (the upper median), indices 1 and 3.
        let fit = fit_median_iqr(&[10, 20, 30, 40]).unwrap();
        assert_eq!((fit.mu, fit.sd), (30.0, 20.0 / 1.35));
        assert_eq!(fit.method, NormalMethod::MedianIqr);
        assert!(fit_median_iqr(&[]).is_err());
    }

    #[test]
    fn fit_search_uses_median_below_10_scores() {
        let nine = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(fit_search(&nine, NormalMethod::MeanVariance).unwrap().method, NormalMethod::MedianIqr);
        let ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        assert_eq!(fit_search(&ten, NormalMethod::MeanVariance).unwrap().method, NormalMethod::MeanVariance);
        assert_eq!(fit_search(&ten, NormalMethod::MedianIqr).unwrap().method, NormalMethod::MedianIqr);
    }

    #[test]
    fn evalue_and_bits() {
        let fit = NormalFit { mu: -100.0, var: 400.0, sd: 20.0, trimmed: 0, method: NormalMethod::MeanVariance };
        assert_eq!(fit.z(-60), 2.0);
        assert_eq!(fit.zscore(-60), 70.0);
        // P(Z > 2) = 0.0227501319...
        assert!((fit.evalue(-60, 1000) - 22.750_131_948_179_2).abs() < 1e-9);
        assert!((fit.evalue(-100, 10) - 5.0).abs() < 1e-12);
        // D below 1 counts as 1.
        assert!((fit.evalue(-100, 0) - 0.5).abs() < 1e-12);
        let bits = (PI_SQRT6 * 2.0 + EULER_GAMMA + (300.0f64 * 250.0).ln()) / LN_2;
        assert!((fit.bit_score(-60, 300, 250) - bits).abs() < 1e-12);
        // z beyond ZS_MAX: 0 (erfc underflows long before).
        assert_eq!(fit.evalue(8000, 1000), 0.0);
        assert_eq!(fit.evalue(1000, 1000), 0.0);
        // Infinite z (sd 0): E 0, bits infinite, as ggsearch36 prints them.
        let flat = NormalFit { sd: 0.0, ..fit };
        assert_eq!(flat.evalue(14, 150), 0.0);
        assert_eq!(flat.bit_score(14, 100, 100), f64::INFINITY);
    }

    #[test]
    fn constants_are_fastas() {
        assert!((PI_SQRT6 - std::f64::consts::PI / 6f64.sqrt()).abs() < 1e-15);
        assert_eq!(PI_SQRT6, "1.28254983016186409554".parse::<f64>().unwrap());
        assert_eq!(EULER_GAMMA, "0.57721566490153286060".parse::<f64>().unwrap());
    }

    #[test]
    fn windows() {
        assert_eq!(length_window(300, Mode::Global), 225..=398);
        assert_eq!(length_window(300, Mode::Glocal), 225..=usize::MAX);
        assert_eq!(length_window(100, Mode::Global), 75..=132);
        assert_eq!(length_window(744, Mode::Global), 558..=989);
        assert_eq!(length_window(0, Mode::Global), 0..=0);
        // A 1-residue query: 1..=0, nothing (as in ggsearch36).
        assert!(length_window(1, Mode::Global).is_empty());
        assert_eq!(length_window(10, Mode::Local), 0..=usize::MAX);
    }

    #[test]
    fn stat_info_is_fastas_line() {
        let fit = NormalFit { mu: -95.85417, var: 1188.74721, sd: 0.0, trimmed: 0, method: NormalMethod::MeanVariance };
        assert_eq!(fit.stat_info(), " Unscaled normal statistics: mu= -95.8542  var=1188.7472 Ztrim: 0");
    }
}

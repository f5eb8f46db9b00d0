//! ssearch36's default statistics (FASTA's `-z 1`, Pearson 1998), as FASTA 36.3.8
//! computes them: no Gumbel is fitted to the scores; their mean is regressed on the
//! logarithm of the subject length, each score becomes a z-score against the unrelated
//! subjects of its length, and the z-score is read against an extreme-value
//! distribution of mean 0 and variance 1.
//!
//! # Model
//!
//! With `x = 10 ln n` (`n` the subject's length, in tenths of a natural log):
//!
//! ```text
//!   mean(S | n)   = rho x + mu        weighted least squares over length bins
//!   var(S | n)    = sigma^2           one pooled residual variance
//!   z             = (S - mean(S | n)) / sigma
//!   P(S >= s | n) = 1 - exp(-e^{-c z - gamma})    c = pi / sqrt 6, gamma = Euler's constant
//!   E(s)          = D * P(S >= s | n)             D = number of subjects searched
//!   bits(s)       = (ln(m n) + c z + gamma) / ln 2
//! ```
//!
//! A Karlin-Altschul Gumbel (`mu(n) = ln(K m n) / lambda`) has exactly this form, with
//! `rho = 1 / (10 lambda)`: the regression recovers its P-values without assuming
//! `lambda`. The bit score is the one for which `m n 2^-bits` is the expected number of
//! alignments scoring at least `s` in the pair.
//!
//! # The fit, step by step (FASTA 36.3.8's `proc_hist_r`)
//!
//! 1. **Bins.** Subjects of at least [`LENGTH_CUTOFF`] residues go to bin
//!    `round(10 ln n)` (at most 200); each bin keeps its count and the sums of
//!    the scores and of their squares. Scores are capped first at the score an
//!    ungapped alignment would need for an E-value of 0.01 with 70% of the ungapped
//!    `lambda` ([`Ungapped::score_cap`], [`super::ungapped`]), so that a few homologs
//!    cannot dominate a bin.
//! 2. **First line.** Weighted least squares of the bin means on the bin centre
//!    `j + 0.5`, each bin (of two scores or more) weighted by its count over the
//!    variance of its mean (never below 0.1); at least five bins. The pooled
//!    variance is the mean squared residual of every binned score.
//! 3. **Outliers.** One pass sets aside the scores whose z-score is below -3 or above
//!    `(ln N - gamma) / c` (an expected count of about one among the `N` scores: the
//!    homologs). Fewer than [`MIN_KEPT`] scores left, or `N` too small for that bound
//!    to reach 3, is an error.
//! 4. **Bins that do not fit.** A second line (bin variances floored at 1, bins of two
//!    or more from the first such bin), and a line through the bins' residual sums of
//!    squares; bins whose squared-residual excess is more than three times the RMS
//!    excess are dropped whole.
//! 5. **Final line** as in 2, on what is left: `rho`, `mu`, `sigma^2`.
//!
//! Checked against ssearch36 36.3.8i's own fits and E-values (`tests/stats.rs`).

use super::Ungapped;
use crate::{Error, Result};

/// `pi / sqrt(6)`: the scale of the standard extreme-value distribution, with the
/// digits of FASTA's `PI_SQRT6` (scaleswn.c: 1.28254983016186409554).
pub(crate) const PI_SQRT6: f64 = 1.282_549_830_161_864;

/// Euler-Mascheroni constant: the mean of the Gumbel with location 0 and scale 1
/// (FASTA's `EULER_G`, 0.57721566490153286060).
pub(crate) const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// FASTA's `zs_to_bit`: the bit score of a score whose standardized value is `z`, for
/// a query of `query_len` and a subject of `subject_len` residues. ssearch36's
/// regression and ggsearch36's normal fit (crate::stats::normal) both report it.
pub(crate) fn zs_to_bit(z: f64, query_len: usize, subject_len: usize) -> f64 {
    let ln_mn = (query_len.max(1) as f64 * subject_len.max(1) as f64).ln();
    (PI_SQRT6 * z + EULER_GAMMA + ln_mn) / std::f64::consts::LN_2
}

/// Subjects shorter than this are not binned, and their scores get a z-score of 0.
pub const LENGTH_CUTOFF: usize = 10;

/// Bins per unit of `ln n`.
const BINS_PER_LN: f64 = 10.0;

/// The last length bin (`n` of about `e^20`: every longer subject falls in it).
const TOP_BIN: usize = 200;

/// The fewest bins of two scores or more a line is fitted through.
const MIN_BINS: usize = 5;

/// The fewest scores left after the outliers are set aside.
pub const MIN_KEPT: usize = 50;

/// Scores whose z-score is below this are set aside as outliers.
const LOW_Z: f64 = -3.0;

/// The regression of one query's scores on the logarithm of the subject length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Regression {
    /// Slope of the mean score on `10 ln n` (ssearch36 prints `10 rho`).
    pub rho: f64,
    /// Intercept of the mean score.
    pub mu: f64,
    /// The pooled variance of the scores about the line.
    pub variance: f64,
    /// Scores set aside as outliers (z-score below -3 or above the homolog bound),
    /// subjects shorter than [`LENGTH_CUTOFF`] included, as ssearch36 counts them.
    pub outliers: usize,
    /// Scores in the length bins dropped in step 4.
    pub dropped: usize,
}

impl Regression {
    /// The z-score of `score` for a subject of `subject_len` (0 for a score of 0 or a
    /// subject shorter than [`LENGTH_CUTOFF`]).
    pub fn z(&self, score: f64, subject_len: usize) -> f64 {
        if score <= 0.0 || subject_len < LENGTH_CUTOFF {
            return 0.0;
        }
        (score - self.rho * BINS_PER_LN * (subject_len as f64).ln() - self.mu) / self.variance.sqrt()
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
        zs_to_bit(self.z(score, subject_len), query_len, subject_len)
    }
}

/// `P(Z >= z)` for the extreme-value distribution of mean 0 and variance 1, without
/// cancellation in the far tail.
fn survival(z: f64) -> f64 {
    -(-(-PI_SQRT6 * z - EULER_GAMMA).exp()).exp_m1()
}

/// One length bin: its count and the sums of its (capped) scores and their squares.
#[derive(Debug, Clone, Copy, Default)]
struct Bin {
    count: u32,
    sum: f64,
    sum2: f64,
}

impl Bin {
    /// The variance of the bin's mean, floored.
    fn mean_variance(&self, floor: f64) -> f64 {
        let n = self.count as f64;
        ((self.sum2 / n - (self.sum / n).powi(2)) / (n - 1.0)).max(floor)
    }

    /// The sum of squared residuals about `mean`.
    fn residual(&self, mean: f64) -> f64 {
        self.sum2 - 2.0 * mean * self.sum + self.count as f64 * mean * mean
    }
}

/// The bin centre of bin `j`, in units of `ln n / 10` (ssearch36 adds a half again).
fn centre(j: usize) -> f64 {
    j as f64 + 0.5
}

/// The length bins of a query's scores.
struct Bins {
    bins: Vec<Bin>,
    cap: f64,
}

impl Bins {
    fn index(subject_len: usize) -> usize {
        ((BINS_PER_LN * (subject_len as f64).ln()).round() as usize).min(TOP_BIN)
    }

    fn add(&mut self, score: i32, subject_len: usize, sign: f64) {
        let s = (score as f64).min(self.cap);
        let bin = &mut self.bins[Bins::index(subject_len)];
        bin.count = (bin.count as f64 + sign) as u32;
        bin.sum += sign * s;
        bin.sum2 += sign * s * s;
    }

    /// The bins a line goes through: from the first with at least `first_count` scores,
    /// those of two scores or more, up to `last` (inclusive).
    fn used(&self, first_count: u32, last: usize) -> impl Iterator<Item = (usize, &Bin)> {
        let first = self.bins.iter().position(|b| b.count >= first_count).unwrap_or(TOP_BIN);
        (first..=last).map(|j| (j, &self.bins[j])).filter(|(_, b)| b.count > 1)
    }

    /// Weighted least squares of the bin means on the bin centres (bins below the top
    /// one), variances of the means floored at `floor`: `(rho, mu)`, or `None` with
    /// fewer than [`MIN_BINS`] bins or a degenerate design.
    fn line(&self, first_count: u32, floor: f64) -> Option<(f64, f64)> {
        let (mut w, mut wx, mut wy, mut wxx, mut wxy, mut bins) = (0.0, 0.0, 0.0, 0.0, 0.0, 0);
        for (j, b) in self.used(first_count, TOP_BIN - 1) {
            let (v, x) = (b.mean_variance(floor), centre(j));
            let n = b.count as f64;
            w += n / v;
            wx += n * x / v;
            wy += b.sum / v;
            wxx += n * x * x / v;
            wxy += x * b.sum / v;
            bins += 1;
        }
        let det = w * wxx - wx * wx;
        (bins >= MIN_BINS && det > 0.001).then(|| ((w * wxy - wx * wy) / det, (wxx * wy - wx * wxy) / det))
    }

    /// The pooled variance about a line: the summed squared residuals of the bins of two
    /// scores or more (the top bin included) over their count.
    fn pooled_variance(&self, first_count: u32, (rho, mu): (f64, f64)) -> f64 {
        let (mut r, mut n) = (0.0, 0.0);
        for (j, b) in self.used(first_count, TOP_BIN) {
            r += b.residual(rho * centre(j) + mu);
            n += b.count as f64;
        }
        r / n
    }

    /// Step 4: drops the bins whose residual sum of squares departs from the trend of
    /// the residuals with length by more than three times the RMS departure, and
    /// returns how many scores they held. `longest` is the longest binned subject.
    fn drop_misfits(&mut self, longest: usize) -> usize {
        let Some((rho, mu)) = self.line(2, 1.0) else { return 0 };
        // The residual sums of squares regressed on the bin centre, count-weighted.
        let (mut n, mut sx, mut sxx, mut sr, mut sxr) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (j, b) in self.used(2, TOP_BIN) {
            let (c, x) = (b.count as f64, centre(j));
            let r = b.residual(rho * x + mu);
            n += c;
            sx += c * x;
            sxx += c * x * x;
            sr += r;
            sxr += x * r;
        }
        let (mean_x, mean_r) = (sx / n, sr / n);
        let slope = (sxr / n - mean_x * mean_r) / (sxx / n - mean_x * mean_x);
        let intercept = mean_r - slope * mean_x;
        // The variance trend is floored where it would turn small: at the length where
        // it reaches |slope| (never below twice the length cutoff).
        let at = |len: f64| slope * BINS_PER_LN * len.ln() + intercept;
        let floor_len = if slope < 0.0 {
            if at(longest as f64) > 0.0 { longest as f64 } else { ((-1.0 - intercept / slope) / BINS_PER_LN).exp() }
        } else if slope != 0.0 {
            ((1.0 - intercept / slope) / BINS_PER_LN).exp()
        } else {
            LENGTH_CUTOFF as f64
        };
        let variance_floor = at(floor_len.max(2.0 * LENGTH_CUTOFF as f64));
        let excess: Vec<(usize, f64)> = self
            .used(2, TOP_BIN - 1)
            .map(|(j, b)| {
                let v = (slope * centre(j) + intercept).max(variance_floor);
                let e = b.residual(rho * centre(j) + mu) - v * b.count as f64;
                (j, e * e / (b.count as f64 - 1.0))
            })
            .collect();
        let rms = (excess.iter().map(|(_, q)| q).sum::<f64>() / excess.len() as f64).sqrt();
        let mut dropped = 0;
        for (j, q) in excess {
            if q.sqrt() > 3.0 * rms {
                dropped += self.bins[j].count as usize;
                self.bins[j] = Bin::default();
            }
        }
        dropped
    }
}

/// Regresses one query's scores against a database on `ln n` (see the module
/// documentation): `scores[i]` of a subject of `subject_lengths[i]`, for a query of
/// `query_len`. Errors: mismatched lengths, a query of [`LENGTH_CUTOFF`] residues or
/// fewer, too few scores or length bins for the fit, scores that do not vary.
pub fn fit_regression(
    scores: &[i32],
    subject_lengths: &[usize],
    query_len: usize,
    ungapped: Ungapped,
) -> Result<Regression> {
    if scores.len() != subject_lengths.len() {
        return Err(Error::InvalidArgument(format!(
            "regression: {} scores but {} subject lengths",
            scores.len(),
            subject_lengths.len()
        )));
    }
    let total = scores.len();
    let fail = |why: String| Err(Error::InvalidArgument(format!("regression: {why}")));
    if query_len <= LENGTH_CUTOFF {
        return fail(format!(
            "a query of {query_len} residues is too short (ssearch36 fits more than {LENGTH_CUTOFF})"
        ));
    }
    // The homolog bound: the z-score an expected one of the `total` scores exceeds.
    let z_high = ((total as f64).ln() - EULER_GAMMA) / PI_SQRT6;
    if z_high < 3.0 {
        return fail(format!("{total} scores are too few to set homologs aside (the fit needs 84)"));
    }
    let mean_len = subject_lengths.iter().sum::<usize>() as f64 / total as f64;
    let mut bins =
        Bins { bins: vec![Bin::default(); TOP_BIN + 1], cap: ungapped.score_cap(total, query_len, mean_len) };
    let binned = || (0..total).filter(|&i| subject_lengths[i] >= LENGTH_CUTOFF);
    for i in binned() {
        bins.add(scores[i], subject_lengths[i], 1.0);
    }
    let longest = binned().map(|i| subject_lengths[i]).max().unwrap_or(0);
    let first = |bins: &Bins| -> Result<Regression> {
        let Some(line) = bins.line(1, 0.1) else {
            return fail(format!("fewer than {MIN_BINS} subject-length bins hold two scores or more"));
        };
        let variance = bins.pooled_variance(1, line);
        if variance.is_nan() || variance <= 0.01 {
            return fail(format!("the scores do not vary (variance {variance})"));
        }
        Ok(Regression { rho: line.0, mu: line.1, variance, outliers: 0, dropped: 0 })
    };
    let start = first(&bins)?;
    let mut outliers = 0;
    for i in 0..total {
        let z = start.z(scores[i] as f64, subject_lengths[i]);
        let unscored = scores[i] <= 0 || subject_lengths[i] < LENGTH_CUTOFF;
        if unscored || !(LOW_Z..=z_high).contains(&z) {
            outliers += 1;
            if !unscored {
                bins.add(scores[i], subject_lengths[i], -1.0);
            }
        }
    }
    if total - outliers < MIN_KEPT {
        return fail(format!("{outliers} of {total} scores are outliers; the fit needs {MIN_KEPT} left"));
    }
    let dropped = bins.drop_misfits(longest);
    Ok(Regression { outliers, dropped, ..first(&bins)? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::KarlinAltschul;

    const BLOSUM62: Ungapped = Ungapped { lambda: 0.3176, k: 0.134, lambda_fraction: 0.7 };

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
        let r = fit_regression(&s, &n, m, BLOSUM62).unwrap();
        assert!((r.rho * BINS_PER_LN * ka.lambda - 1.0).abs() < 0.05, "{r:?} vs 1/lambda {}", 1.0 / ka.lambda);
        let var = std::f64::consts::PI.powi(2) / (6.0 * ka.lambda * ka.lambda);
        assert!((r.variance / var - 1.0).abs() < 0.1, "{r:?} vs variance {var}");
        // Strong and weak hits: the regression's P-value within 50% of the truth over
        // ten orders of magnitude (the integer scores are rounded, the model continuous).
        for (score, len) in [(60, 400), (80, 2000), (100, 150), (140, 900)] {
            let (want, got) = (ka.pvalue(score as f64, m, len), r.pvalue(score as f64, len));
            assert!((got / want).ln().abs() < 0.5f64.ln_1p(), "score {score} n {len}: {got:e} vs {want:e}");
        }
        // Bits: m n 2^-bits is the expected count, as Karlin-Altschul's (within rounding).
        let (b_ka, b_r) = (ka.bit_score(100.0), r.bit_score(100.0, m, 500));
        assert!((b_ka - b_r).abs() < 0.8, "{b_ka} vs {b_r}");
    }

    #[test]
    fn homologs_are_set_aside() {
        let ka = KarlinAltschul { lambda: 0.267, k: 0.041 };
        let (mut s, n) = null_search(ka, 300, 5_000);
        let clean = fit_regression(&s, &n, 300, BLOSUM62).unwrap();
        for (k, v) in s.iter_mut().step_by(50).enumerate() {
            *v = 200 + k as i32; // 2% strong homologs
        }
        let dirty = fit_regression(&s, &n, 300, BLOSUM62).unwrap();
        assert!(dirty.outliers >= 100, "{dirty:?}");
        let (a, b) = (clean.pvalue(70.0, 500), dirty.pvalue(70.0, 500));
        assert!((a / b).ln().abs() < 0.3f64.ln_1p(), "{a:e} vs {b:e}");
    }

    #[test]
    fn too_few_or_constant_scores_are_errors() {
        let e = |s: &[i32], n: &[usize]| fit_regression(s, n, 300, BLOSUM62).unwrap_err().to_string();
        assert!(e(&[10; 83], &[100; 83]).contains("too few"));
        // One length: a single bin.
        assert!(e(&[10; 300], &[100; 300]).contains("bins"));
        let lengths: Vec<usize> = (0..300).map(|i| 20 + 7 * i).collect();
        assert!(e(&[10; 300], &lengths).contains("do not vary"));
        assert!(fit_regression(&[10; 300], &[100; 299], 300, BLOSUM62).is_err());
        let (s, n) = null_search(KarlinAltschul { lambda: 0.267, k: 0.041 }, 10, 1000);
        assert!(fit_regression(&s, &n, 10, BLOSUM62).unwrap_err().to_string().contains("too short"));
        // The far tail has no cancellation: P is positive where 1 - (1 - p) would be 0.
        assert!(survival(60.0) > 0.0 && survival(60.0) < 1e-30);
        // Short subjects and zero scores have a z-score of 0.
        let r = Regression { rho: 0.5, mu: 10.0, variance: 50.0, outliers: 0, dropped: 0 };
        assert_eq!(r.z(100.0, 9), 0.0);
        assert_eq!(r.z(0.0, 500), 0.0);
        assert!(r.z(100.0, 500) > 5.0);
    }
}

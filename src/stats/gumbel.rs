//! The Gumbel (type-I extreme value) distribution for maxima and its maximum-likelihood
//! fits, complete and Type I censored, after J. F. Lawless (1982), *Statistical Models
//! and Methods for Lifetime Data* (the extreme-value chapter), as Easel's `esl_gumbel`
//! also does.
//!
//! ```text
//!     P(S <= x) = exp(-exp(-lambda (x - mu)))          lambda > 0
//! ```
//!
//! # The likelihood, and why only one equation has to be solved
//!
//! Every fit in this module and in [`super::evalue`] is a special case of one problem.
//! Observations `x_i` (i = 1..n) each carry a known log-offset `a_i` in their location,
//! `lambda (x_i - mu_i) = lambda x_i - lambda mu - a_i`, and optionally `z` further
//! values are known only to lie below a cutoff `c` (their offset is 0 here). So
//! `x_i ~ Gumbel(mu + a_i / lambda, lambda)` and the log-likelihood is
//!
//! ```text
//!   l(mu, lambda) = n ln lambda - sum_i [lambda (x_i - mu) - a_i] - sum_i e^{-lambda (x_i - mu) + a_i}
//!                   - z e^{-lambda (c - mu)}                (ln F(c)^z; absent when z = 0)
//! ```
//!
//! Put `W(lambda) = sum_i e^{a_i - lambda x_i} + z e^{-lambda c}` and
//! `B(lambda) = sum_i x_i e^{a_i - lambda x_i} + z c e^{-lambda c}`. Then
//!
//! ```text
//!   dl/dmu     = n lambda - lambda e^{lambda mu} W = 0   =>   e^{lambda mu} = n / W
//!                => mu = (ln n - ln W(lambda)) / lambda                                (1)
//!   dl/dlambda = n/lambda - sum_i (x_i - mu) + e^{lambda mu} (B - mu W)
//!              = n/lambda - sum_i x_i + n B/W            (using (1); the mu terms cancel)
//! ```
//!
//! so `lambda` solves, with `xbar` the mean of the *observed* values,
//!
//! ```text
//!   f(lambda) = 1/lambda - xbar + B/W = 0                                              (2)
//!   f'(lambda) = -1/lambda^2 - [ B2/W - (B/W)^2 ],     B2 = sum x^2 e^{a - lambda x} (+ z c^2 e^{-lambda c})
//! ```
//!
//! `B/W` is the mean of the data under weights `w_i ∝ e^{a_i - lambda x_i}` and the
//! bracket in `f'` is their weighted variance, so `f' < 0`: `f` falls strictly from
//! `+inf` (lambda -> 0) towards `min(x, c) - xbar < 0` (lambda -> inf, the smallest value
//! takes all the weight) whenever the observed values are not all equal. The root is unique; we find it
//! by Newton-Raphson, bisecting whenever a Newton step leaves the current sign bracket.
//!
//! * complete data: `a_i = 0`, `z = 0`;
//! * Type I censored data (as Easel's `esl_gumbel_FitCensored`): `a_i = 0`;
//! * the length-corrected Karlin-Altschul fit: `a_i = ln(m n_i)`, `z = 0` (see `evalue`).
//!
//! Numerics: `f` depends on the data only through differences, so the values are
//! centred on `xbar` first, and the weights are computed as `e^{t_i - max t}` with
//! `t_i = a_i - lambda (x_i - xbar)` (a log-sum-exp), so nothing overflows whatever the
//! scale or offset of the scores. Newton stops when a step changes `lambda` by less than
//! 1e-12 relative.

use crate::{Error, Result};
use rayon::prelude::*;

/// Values per piece of work where a fit's exponentials are spread over the threads: a
/// search's fit has up to 20,000, a psse pair's as many as its shuffles.
pub(super) const PAR_MIN: usize = 2048;

/// The Gumbel distribution for maxima: `P(S <= x) = exp(-exp(-lambda (x - mu)))`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gumbel {
    /// Location (the mode).
    pub mu: f64,
    /// Scale parameter, `> 0` (larger is narrower).
    pub lambda: f64,
}

impl Gumbel {
    /// `P(S <= x)`.
    pub fn cdf(&self, x: f64) -> f64 {
        (-(-self.lambda * (x - self.mu)).exp()).exp()
    }

    /// `P(S > x) = 1 - exp(-e^{-lambda (x - mu)})`, as `-expm1(-e^{...})`, so that it stays
    /// accurate (relative error ~1e-16) far into the tail where `1 - cdf` would be 0.
    pub fn survival(&self, x: f64) -> f64 {
        -(-(-self.lambda * (x - self.mu)).exp()).exp_m1()
    }

    /// `ln f(x) = ln lambda - lambda (x - mu) - e^{-lambda (x - mu)}`.
    pub fn log_pdf(&self, x: f64) -> f64 {
        let y = self.lambda * (x - self.mu);
        self.lambda.ln() - y - (-y).exp()
    }

    /// Inverse cdf: the `x` with `cdf(x) = u`, `x = mu - ln(-ln u) / lambda`, for `u` in
    /// (0, 1). Feed it uniform deviates to draw samples.
    pub fn sample(&self, u: f64) -> f64 {
        self.mu - (-u.ln()).ln() / self.lambda
    }
}

/// Maximum-likelihood fit to complete data (every sample observed).
///
/// Solves `1/lambda - mean(x) + sum x e^{-lambda x} / sum e^{-lambda x} = 0` (eq. 2 of the
/// module docs with no offsets) and sets `mu = -ln(mean(e^{-lambda x})) / lambda` (eq. 1).
/// Errors on fewer than 2 distinct values, non-finite values, or no convergence.
pub fn fit_complete(samples: &[f64]) -> Result<Gumbel> {
    check_samples(samples)?;
    let root = solve_lawless(samples, None, None)?;
    Ok(Gumbel { mu: ((samples.len() as f64).ln() - root.ln_w) / root.lambda, lambda: root.lambda })
}

/// Maximum-likelihood fit to Type I censored data: `samples` are the observed values, all
/// `>= cutoff`; `censored` more values fell below `cutoff` and were not recorded.
///
/// Solves eq. 2 with `W = sum e^{-lambda x_i} + z e^{-lambda c}` and
/// `B = sum x_i e^{-lambda x_i} + z c e^{-lambda c}`, then `mu = (ln n - ln W) / lambda`
/// with `n` the number of observed values. With `censored == 0` this is [`fit_complete`].
pub fn fit_censored(samples: &[f64], censored: usize, cutoff: f64) -> Result<Gumbel> {
    check_samples(samples)?;
    if !cutoff.is_finite() {
        return Err(Error::InvalidArgument(format!("censored Gumbel fit: cutoff must be finite, got {cutoff}")));
    }
    if let Some(&below) = samples.iter().find(|&&x| x < cutoff) {
        return Err(Error::InvalidArgument(format!(
            "censored Gumbel fit: observed score {below} is below the cutoff {cutoff}; \
             every observed score must be >= the cutoff"
        )));
    }
    let cens = (censored > 0).then_some((censored as f64, cutoff));
    let root = solve_lawless(samples, None, cens)?;
    Ok(Gumbel { mu: ((samples.len() as f64).ln() - root.ln_w) / root.lambda, lambda: root.lambda })
}

/// Refuses inputs the fits cannot use: fewer than 2 values, non-finite values, or values
/// that are all equal (zero variance: the likelihood has no maximum).
pub(crate) fn check_samples(samples: &[f64]) -> Result<()> {
    if let Some(i) = samples.iter().position(|x| !x.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "Gumbel fit: score {} of {} is {} (scores must be finite)",
            i + 1,
            samples.len(),
            samples[i]
        )));
    }
    match samples {
        [] | [_] => {
            Err(Error::InvalidArgument(format!("Gumbel fit needs at least 2 distinct scores, got {}", samples.len())))
        }
        [first, rest @ ..] if rest.iter().all(|x| x == first) => Err(Error::InvalidArgument(format!(
            "Gumbel fit needs at least 2 distinct scores, got {} scores all equal to {first}",
            samples.len()
        ))),
        _ => Ok(()),
    }
}

/// The root of eq. 2: `lambda`, and `ln W(lambda)` in the caller's (uncentred) units, from
/// which `mu` (eq. 1) or `ln K` follow.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LawlessRoot {
    pub lambda: f64,
    pub ln_w: f64,
}

/// `f(lambda)` of eq. 2, its derivative and `ln W`, on data centred at the observed mean.
#[derive(Clone, Copy)]
struct Eval {
    f: f64,
    df: f64,
    ln_w: f64,
}

/// Solves eq. 2 for `lambda`. `x`: the observed values (checked by the caller: >= 2,
/// finite, not all equal); `offset`: per-value `a_i` (None: all 0); `censored`: `(z, c)`.
pub(crate) fn solve_lawless(x: &[f64], offset: Option<&[f64]>, censored: Option<(f64, f64)>) -> Result<LawlessRoot> {
    let n = x.len() as f64;
    let xbar = x.iter().sum::<f64>() / n;
    let y: Vec<f64> = x.iter().map(|v| v - xbar).collect();
    let cens = censored.map(|(z, c)| (z.ln(), c - xbar));
    // Each lambda evaluated once: the bracket's ends are looked at again, and Newton
    // starts where the bracket did.
    let mut seen: Vec<(f64, Eval)> = Vec::new();
    let mut eval = |lambda: f64| match seen.iter().find(|(l, _)| *l == lambda) {
        Some(&(_, e)) => e,
        None => {
            let e = evaluate(lambda, &y, offset, cens);
            seen.push((lambda, e));
            e
        }
    };

    // Start from the method-of-moments estimate pi / (sd sqrt 6), then widen a sign
    // bracket [lo, hi] with f(lo) > 0 > f(hi) by halving / doubling.
    let sd = (y.iter().map(|v| v * v).sum::<f64>() / n).sqrt();
    let start = std::f64::consts::PI / (sd * 6f64.sqrt());
    let (mut lo, mut hi) = (start, start);
    for _ in 0..200 {
        if eval(lo).f > 0.0 {
            break;
        }
        lo *= 0.5;
    }
    for _ in 0..200 {
        if eval(hi).f < 0.0 {
            break;
        }
        hi *= 2.0;
    }
    let not_converged = || {
        Error::InvalidArgument(format!(
            "Gumbel fit did not converge ({} scores, mean {xbar}, sd {sd}): the scores do not look Gumbel-distributed",
            x.len()
        ))
    };
    if !(eval(lo).f > 0.0 && eval(hi).f < 0.0) {
        return Err(not_converged());
    }

    // Safeguarded Newton-Raphson: keep the bracket, bisect when a step would leave it.
    let mut lambda = start.clamp(lo, hi);
    for _ in 0..500 {
        let e = eval(lambda);
        if e.f == 0.0 {
            return finish(lambda, e.ln_w, xbar);
        }
        if e.f > 0.0 {
            lo = lambda;
        } else {
            hi = lambda;
        }
        let newton = lambda - e.f / e.df;
        let next = if newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
        if (next - lambda).abs() <= 1e-12 * lambda || hi - lo <= 1e-12 * lambda {
            return finish(next, eval(next).ln_w, xbar);
        }
        lambda = next;
    }
    Err(not_converged())
}

/// Converts `ln W` from centred to original units: `a - lambda x = (a - lambda y) - lambda xbar`.
fn finish(lambda: f64, ln_w_centred: f64, xbar: f64) -> Result<LawlessRoot> {
    let root = LawlessRoot { lambda, ln_w: ln_w_centred - lambda * xbar };
    if root.lambda.is_finite() && root.lambda > 0.0 && root.ln_w.is_finite() {
        Ok(root)
    } else {
        Err(Error::InvalidArgument(format!("Gumbel fit failed: lambda {lambda}, ln W {}", root.ln_w)))
    }
}

/// `f`, `f'` and `ln W` at `lambda` for centred values `y` (whose plain mean is 0, so
/// `f = 1/lambda + B/W`). Terms are `t_i = a_i - lambda y_i` (and `ln z - lambda y_c`);
/// weights `e^{t_i - max t}` keep every exponential in [0, 1].
fn evaluate(lambda: f64, y: &[f64], offset: Option<&[f64]>, cens: Option<(f64, f64)>) -> Eval {
    let term = |i: usize| offset.map_or(0.0, |a| a[i]) - lambda * y[i];
    let cens_t = cens.map(|(ln_z, yc)| (ln_z - lambda * yc, yc));
    let mut t_max = (0..y.len()).map(term).fold(f64::NEG_INFINITY, f64::max);
    if let Some((t, _)) = cens_t {
        t_max = t_max.max(t);
    }
    // First pass: W and the weighted mean; second pass: the weighted variance about it
    // (each weight's exponential computed once).
    // The exponentials on every thread (element by element: the sums below stay in
    // order, so the result does not depend on the threads).
    let weights: Vec<f64> =
        (0..y.len()).into_par_iter().with_min_len(PAR_MIN).map(|i| (term(i) - t_max).exp()).collect();
    let cens_w = cens_t.map(|(t, yc)| ((t - t_max).exp(), yc));
    let (mut w, mut b) = (0.0, 0.0);
    for (e, v) in weights.iter().zip(y).chain(cens_w.as_ref().map(|(e, yc)| (e, yc))) {
        w += e;
        b += e * v;
    }
    let mean = b / w;
    let mut var = weights.iter().zip(y).map(|(e, v)| e * (v - mean).powi(2)).sum::<f64>();
    if let Some((e, yc)) = cens_w {
        var += e * (yc - mean).powi(2);
    }
    Eval { f: 1.0 / lambda + mean, df: -1.0 / (lambda * lambda) - var / w, ln_w: t_max + w.ln() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survival_is_accurate_in_the_tail() {
        let g = Gumbel { mu: 10.0, lambda: 0.5 };
        // 100 scale units above mu: 1 - cdf is exactly 0 in f64, survival ~ e^{-100}.
        let x = 10.0 + 100.0 / 0.5;
        assert_eq!(1.0 - g.cdf(x), 0.0);
        let s = g.survival(x);
        assert!((s / (-100f64).exp() - 1.0).abs() < 1e-12, "survival {s}");
        // cdf + survival = 1 in the body; sample inverts cdf (down to cdf ~ 1e-24 and up
        // to 1 - cdf ~ 5e-5, where u's rounding costs ~1e-12 in x).
        for x in [-5.0, 0.0, 10.0, 13.0, 30.0] {
            assert!((g.cdf(x) + g.survival(x) - 1.0).abs() < 1e-15);
        }
        for x in [2.0, 10.0, 13.0, 30.0] {
            assert!((g.sample(g.cdf(x)) - x).abs() < 1e-9, "{x}: {}", g.sample(g.cdf(x)));
        }
    }

    #[test]
    fn log_pdf_integrates_to_one() {
        let g = Gumbel { mu: -3.0, lambda: 2.0 };
        let h = 1e-3;
        let total: f64 = (0..20_000).map(|i| g.log_pdf(-8.0 + (i as f64 + 0.5) * h).exp() * h).sum();
        assert!((total - 1.0).abs() < 1e-9, "integral {total}");
        // The mode is mu, where ln f = ln lambda - 1.
        assert!((g.log_pdf(-3.0) - (2f64.ln() - 1.0)).abs() < 1e-15);
    }

    #[test]
    fn lawless_equation_holds_at_the_fit() {
        // A small fixed sample: the fitted lambda must zero eq. 2, computed directly.
        let x = [3.0, 7.5, 4.25, 9.0, 5.5, 12.0, 4.0, 6.0];
        let g = fit_complete(&x).unwrap();
        let s0: f64 = x.iter().map(|v| (-g.lambda * v).exp()).sum();
        let s1: f64 = x.iter().map(|v| v * (-g.lambda * v).exp()).sum();
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        assert!((1.0 / g.lambda - mean + s1 / s0).abs() < 1e-9);
        assert!((g.mu + (s0 / x.len() as f64).ln() / g.lambda).abs() < 1e-9);
        // Shifting and scaling the data moves the fit accordingly (scale-free numerics).
        let y: Vec<f64> = x.iter().map(|v| 1e6 + 1000.0 * v).collect();
        let h = fit_complete(&y).unwrap();
        assert!((h.lambda * 1000.0 / g.lambda - 1.0).abs() < 1e-9);
        assert!(((h.mu - 1e6) / 1000.0 - g.mu).abs() < 1e-6);
    }

    #[test]
    fn censored_with_nothing_censored_is_complete() {
        let x = [3.0, 7.5, 4.25, 9.0, 5.5, 12.0, 4.0, 6.0];
        let a = fit_complete(&x).unwrap();
        let b = fit_censored(&x, 0, 1.0).unwrap();
        assert!((a.lambda - b.lambda).abs() < 1e-12 && (a.mu - b.mu).abs() < 1e-9);
        // Censoring values below the minimum pulls mu down (more mass below).
        let c = fit_censored(&x, 20, 2.0).unwrap();
        assert!(c.mu < a.mu, "{c:?} vs {a:?}");
    }

    #[test]
    fn extreme_values_give_a_finite_fit_or_an_error() {
        let cases: [&[f64]; 6] = [
            &[1e300, -1e300],
            &[f64::MAX, 0.0, 1.0],
            &[1e-300, 2e-300, 5e-300],
            &[0.0, 1e-320],
            &[1e15, 1e15 + 1.0, 1e15 + 4.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1e6],
        ];
        for x in cases {
            let min = x.iter().copied().fold(f64::INFINITY, f64::min);
            // Errors are allowed here (e.g. a spread that overflows); NaN or inf fits are not.
            for g in [fit_complete(x), fit_censored(x, 5, min)].into_iter().flatten() {
                assert!(g.mu.is_finite() && g.lambda.is_finite() && g.lambda > 0.0, "{x:?}: {g:?}");
            }
        }
    }

    #[test]
    fn bad_input_is_refused_with_a_reason() {
        let msg = |r: Result<Gumbel>| match r {
            Err(Error::InvalidArgument(m)) => m,
            other => panic!("expected InvalidArgument, got {other:?}"),
        };
        assert_eq!(msg(fit_complete(&[1.0])), "Gumbel fit needs at least 2 distinct scores, got 1");
        assert!(msg(fit_complete(&[])).contains("got 0"));
        assert!(msg(fit_complete(&[2.0; 5])).contains("all equal to 2"));
        assert!(msg(fit_complete(&[1.0, f64::INFINITY, 3.0])).contains("score 2 of 3 is inf"));
        assert!(msg(fit_censored(&[5.0, 6.0, 7.0], 3, 5.5)).contains("below the cutoff"));
        assert!(msg(fit_censored(&[5.0, 6.0, 7.0], 3, f64::NAN)).contains("cutoff must be finite"));
    }
}

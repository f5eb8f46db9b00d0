//! Statistics: Gumbel fits recover known parameters from simulated samples (as Easel
//! tests its own), degenerate input is refused, and the length-corrected Karlin-Altschul fit
//! recovers (lambda, K) from a simulated database search with planted homologs.
//!
//! Run with `--nocapture` to see the measured errors.

use clsw::Error;
use clsw::stats::{Gumbel, KarlinAltschul, fit_censored, fit_complete, fit_length_corrected, published};

/// xorshift64*: deterministic uniform deviates in (0, 1).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// 53 random bits, offset by half a step so 0 and 1 never occur.
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
}

const CASES: [(f64, f64); 4] = [(-20.0, 0.4), (0.0, 1.0), (50.0, 0.2), (1000.0, 0.05)];
const N: usize = 10_000;

fn draw(g: Gumbel, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed);
    (0..n).map(|_| g.sample(rng.uniform())).collect()
}

/// Error of a fitted mu, as a fraction: relative to |mu|, except that a mu within 5
/// scale units (5 / lambda) of 0 is measured against 5 / lambda; relative error is
/// meaningless at mu = 0, and the location's sampling error is in scale units
/// (sd(mu_hat) ~ 1.05 / (lambda sqrt N), 0.0105 / lambda at N = 10,000).
fn mu_error(fit: f64, truth: Gumbel) -> f64 {
    (fit - truth.mu).abs() / truth.mu.abs().max(5.0 / truth.lambda)
}

fn lambda_error(fit: f64, truth: Gumbel) -> f64 {
    (fit - truth.lambda).abs() / truth.lambda
}

#[test]
fn complete_fit_recovers_parameters() {
    for (i, &(mu, lambda)) in CASES.iter().enumerate() {
        let truth = Gumbel { mu, lambda };
        let x = draw(truth, N, 0x9e37_79b9_7f4a_7c15 + i as u64);
        let fit = fit_complete(&x).unwrap();
        let (em, el) = (mu_error(fit.mu, truth), lambda_error(fit.lambda, truth));
        eprintln!(
            "complete  {truth:?}: fit mu {:.4} lambda {:.5}; mu err {em:.4}, lambda err {el:.4}",
            fit.mu, fit.lambda
        );
        assert!(em < 0.01, "mu error {em} for {truth:?}: {fit:?}");
        assert!(el < 0.03, "lambda error {el} for {truth:?}: {fit:?}");
    }
}

#[test]
fn censored_fit_recovers_parameters() {
    for (i, &(mu, lambda)) in CASES.iter().enumerate() {
        let truth = Gumbel { mu, lambda };
        let x = draw(truth, N, 0x1234_5678 + i as u64);
        // Censor at the true median, mu - ln(ln 2) / lambda: keep only the values above.
        let cutoff = truth.sample(0.5);
        let kept: Vec<f64> = x.iter().copied().filter(|&v| v >= cutoff).collect();
        let fit = fit_censored(&kept, N - kept.len(), cutoff).unwrap();
        let (em, el) = (mu_error(fit.mu, truth), lambda_error(fit.lambda, truth));
        eprintln!(
            "censored  {truth:?}: {} of {N} kept; fit mu {:.4} lambda {:.5}; mu err {em:.4}, lambda err {el:.4}",
            kept.len(),
            fit.mu,
            fit.lambda
        );
        assert!(em < 0.01, "mu error {em} for {truth:?}: {fit:?}");
        assert!(el < 0.04, "lambda error {el} for {truth:?}: {fit:?}");
        // Fitting the same truncated values as if complete is badly wrong: the censored
        // term matters.
        let naive = fit_complete(&kept).unwrap();
        assert!(lambda_error(naive.lambda, truth) > 0.2, "naive {naive:?}");
    }
}

#[test]
fn small_samples_still_give_finite_fits() {
    // Two distinct values are enough for a (poor) fit, which must be finite.
    for x in [vec![1.0, 2.0], vec![-1e9, 1e9], vec![0.0, 0.0, 0.0, 1e-9], vec![3.0, 3.0, 5.0]] {
        let g = fit_complete(&x).unwrap();
        assert!(g.mu.is_finite() && g.lambda.is_finite() && g.lambda > 0.0, "{x:?}: {g:?}");
        let c = fit_censored(&x, 4, x.iter().copied().fold(f64::INFINITY, f64::min)).unwrap();
        assert!(c.mu.is_finite() && c.lambda.is_finite() && c.lambda > 0.0, "{x:?}: {c:?}");
    }
}

#[test]
fn degenerate_input_is_an_error_not_nan() {
    let refused = |r: clsw::Result<Gumbel>| match r {
        Err(Error::InvalidArgument(m)) => m,
        other => panic!("expected InvalidArgument, got {other:?}"),
    };
    assert!(refused(fit_complete(&[])).contains("at least 2 distinct scores, got 0"));
    assert!(refused(fit_complete(&[4.0])).contains("at least 2 distinct scores, got 1"));
    assert!(refused(fit_complete(&[4.0; 1000])).contains("1000 scores all equal to 4"));
    assert!(refused(fit_complete(&[1.0, f64::NAN, 2.0])).contains("NaN"));
    assert!(refused(fit_censored(&[], 10, 0.0)).contains("got 0"));
    assert!(refused(fit_censored(&[4.0], 10, 0.0)).contains("got 1"));
    assert!(refused(fit_censored(&[4.0; 10], 10, 0.0)).contains("all equal"));
    assert!(refused(fit_censored(&[1.0, 2.0, f64::NAN], 10, 0.0)).contains("NaN"));
    assert!(refused(fit_censored(&[1.0, 2.0, 3.0], 10, 1.5)).contains("below the cutoff"));
}

/// One query of length `m` against `n_subjects` unrelated subjects of lengths 50..2000,
/// scores from Gumbel(ln(K m n_i) / lambda, lambda) rounded to integers, plus
/// `homologs` planted scores of 150..400 on random subjects.
fn simulate_search(
    truth: KarlinAltschul,
    m: usize,
    n_subjects: usize,
    homologs: usize,
    seed: u64,
) -> (Vec<i32>, Vec<usize>) {
    let mut rng = Rng(seed);
    let mut lengths = Vec::with_capacity(n_subjects);
    let mut scores = Vec::with_capacity(n_subjects);
    for _ in 0..n_subjects {
        let n = 50 + (rng.uniform() * 1951.0) as usize;
        let s = truth.gumbel(m, n).sample(rng.uniform()).round().max(0.0) as i32;
        lengths.push(n);
        scores.push(s);
    }
    for _ in 0..homologs {
        let i = (rng.uniform() * n_subjects as f64) as usize;
        scores[i] = 150 + (rng.uniform() * 250.0) as i32;
    }
    (scores, lengths)
}

#[test]
fn length_corrected_fit_recovers_lambda_and_k() {
    let m = 300;
    let b62 = KarlinAltschul { lambda: 0.267, k: 0.041 };
    let b50 = KarlinAltschul { lambda: 0.193, k: 0.035 };
    // (truth, subjects, planted homologs, lambda tolerance, K factor). With 10,000 null
    // scores sd(lambda_hat) ~ 0.7% and sd(ln K_hat) ~ 0.06; with 400, 3.4% and 0.30.
    let cases = [
        (b62, 10_000, 0, 0.05, 1.5),
        (b62, 10_000, 20, 0.05, 1.5),
        (b50, 2_000, 10, 0.05, 1.5),
        (b62, 10_000, 2_000, 0.05, 1.5),
        (b62, 400, 5, 0.15, 3.0),
    ];
    for (i, &(truth, n_subjects, homologs, lambda_tol, k_factor)) in cases.iter().enumerate() {
        let (scores, lengths) = simulate_search(truth, m, n_subjects, homologs, 77 + i as u64);
        let fit = fit_length_corrected(&scores, &lengths, m).unwrap();
        let el = (fit.lambda - truth.lambda).abs() / truth.lambda;
        let k_ratio = fit.k / truth.k;
        eprintln!(
            "length-corrected lambda {} K {}, {n_subjects} subjects, {homologs} homologs: \
             fit lambda {:.4} K {:.4}; lambda err {el:.4}, K ratio {k_ratio:.3}",
            truth.lambda, truth.k, fit.lambda, fit.k
        );
        assert!(el < lambda_tol, "lambda error {el}: {fit:?}");
        assert!((1.0 / k_factor..k_factor).contains(&k_ratio), "K ratio {k_ratio}: {fit:?}");
        // Every planted homolog (score >= 150) is significant under the fit.
        for (&s, &n) in scores.iter().zip(&lengths).filter(|(s, _)| **s >= 150) {
            let e = fit.evalue(s as f64, m, n, scores.len());
            assert!(e < 1e-6, "homolog score {s} (n = {n}) has E = {e}");
        }
    }
}

#[test]
fn ignoring_subject_lengths_biases_lambda() {
    // Fitting one Gumbel to all scores, ignoring the subject lengths, gets lambda badly
    // wrong (the spread of ln n widens the distribution); the length-corrected fit does not.
    let truth = KarlinAltschul { lambda: 0.267, k: 0.041 };
    let (scores, lengths) = simulate_search(truth, 300, 10_000, 0, 5);
    let plain: Vec<f64> = scores.iter().map(|&s| s as f64).collect();
    let uncorrected = fit_complete(&plain).unwrap();
    let corrected = fit_length_corrected(&scores, &lengths, 300).unwrap();
    eprintln!("uncorrected lambda {:.4}, corrected {:.4}", uncorrected.lambda, corrected.lambda);
    assert!((uncorrected.lambda - truth.lambda).abs() / truth.lambda > 0.1);
    assert!((corrected.lambda - truth.lambda).abs() / truth.lambda < 0.05);
}

#[test]
fn length_corrected_fit_refuses_too_few_scores() {
    let truth = KarlinAltschul { lambda: 0.267, k: 0.041 };
    let (scores, lengths) = simulate_search(truth, 300, 199, 0, 9);
    match fit_length_corrected(&scores, &lengths, 300) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("at least 200"), "{m}"),
        other => panic!("expected an error, got {other:?}"),
    }
    // Mostly homologs: refused rather than fitted to them (homologs here 60..400, some\n    // indistinguishable from the null).
    for (n_subjects, homologs) in [(400, 250), (10_000, 4_500), (10_000, 6_000)] {
        let (mut scores, lengths) = simulate_search(truth, 300, n_subjects, 0, 10);
        let mut rng = Rng(11);
        scores[..homologs].iter_mut().for_each(|s| *s = 60 + (rng.uniform() * 340.0) as i32);
        let r = fit_length_corrected(&scores, &lengths, 300);
        eprintln!("{homologs} of {n_subjects} homologs: {r:?}");
        assert!(r.is_err(), "{homologs} of {n_subjects}: {r:?}");
    }
}

#[test]
fn evalues_fall_with_score_and_rise_with_length() {
    let ka = published("BLOSUM62", 11, 1).unwrap();
    assert_eq!(ka, KarlinAltschul { lambda: 0.267, k: 0.041 });
    // Non-increasing everywhere (E saturates at D where P(S >= x) rounds to 1), strictly
    // decreasing once below D / 2.
    let d = 500_000.0;
    let mut last = f64::INFINITY;
    for raw in 0..400 {
        let e = ka.evalue(raw as f64, 250, 300, d as usize);
        assert!(e.is_finite() && (0.0..=d).contains(&e), "E({raw}) = {e}");
        assert!(e <= last && (last > d / 2.0 || e < last), "E({raw}) = {e} after {last}");
        last = e;
    }
    assert!(last > 0.0, "E-values underflowed before raw 400: {last}");
    assert!(ka.evalue(60.0, 250, 600, 1000) > ka.evalue(60.0, 250, 300, 1000));
    // Bit score by hand: (0.267 * 100 - ln 0.041) / ln 2 = 43.128.
    let bits = ka.bit_score(100.0);
    assert!((bits - 43.128).abs() < 1e-3, "{bits}");
    // E = D m n 2^{-bits} in the tail (to first order: 1 - e^{-p} = p (1 - p/2 + ...), and
    // p ~ 1e-8 here).
    let e = ka.evalue(100.0, 250, 300, 500_000);
    let from_bits = 500_000.0 * 250.0 * 300.0 * 2f64.powf(-bits);
    assert!((e / from_bits - 1.0).abs() < 1e-7, "{e} vs {from_bits}");
    // The published table covers the settings BLAST supports.
    for (m, o, x) in [
        ("BLOSUM62", 10, 1),
        ("BLOSUM50", 13, 2),
        ("BLOSUM45", 15, 2),
        ("BLOSUM80", 10, 1),
        ("BLOSUM90", 10, 1),
        ("PAM30", 9, 1),
        ("PAM70", 10, 1),
        ("PAM250", 14, 2),
    ] {
        let p = published(m, o, x).unwrap_or_else(|| panic!("{m} {o}/{x} missing"));
        assert!((0.15..0.35).contains(&p.lambda) && (0.005..0.2).contains(&p.k), "{m} {o}/{x}: {p:?}");
    }
}

//! psse statistics on the native CPU path (same shuffles and scores as every device, see
//! tests/psse_device.rs): plausible lambda for unrelated real pairs, tiny P-values for
//! homologs, agreement with ssearch36 -k 1000 on 13 real pairs, censored fits, and errors
//! (never NaN) for degenerate samples. The Gumbel fits themselves are tested in
//! tests/stats.rs.

mod common;

use clsw::device::DeviceChoice;
use clsw::psse::{PsseOptions, psse, psse_many, psse_run};
use clsw::seq::{Alphabet, Sequence};
use clsw::{Engine, Error};
use common::{data_dir, read_fasta};
use std::collections::BTreeMap;

fn native() -> Engine {
    Engine::new(DeviceChoice::Native).unwrap()
}

fn by_id(file: &str) -> BTreeMap<String, Sequence> {
    read_fasta(file, Alphabet::Protein).into_iter().map(|s| (s.id.clone(), s)).collect()
}

fn pair(q: &str, s: &str) -> (Vec<u8>, Vec<u8>) {
    let (queries, subjects) = (by_id("queries10.fasta"), by_id("golden_subjects.fasta"));
    (queries[q].residues.clone(), subjects[s].residues.clone())
}

#[test]
fn unrelated_real_pairs_get_blosum50_gapped_lambdas_and_unremarkable_p() {
    // BLOSUM50 is in third-bits: ungapped lambda ~ ln(2)/3 = 0.231; gaps 10/2 lower it.
    for (q, s) in [
        ("sp|Q3ZZU0|ATPD_DEHMC", "tr|V4P9A4|V4P9A4_EUTSA"),
        ("tr|A0A0W1BG93|A0A0W1BG93_9GAMM", "tr|A0A0A6L1Q9|A0A0A6L1Q9_CANAX"),
    ] {
        let (a, b) = pair(q, s);
        let r = psse(&native(), &a, &b, &PsseOptions::default()).unwrap();
        assert!((0.14..0.24).contains(&r.lambda), "{q} vs {s}: {r:?}");
        assert!(r.k > 1e-3 && r.k < 1.0, "{r:?}");
        assert!(r.p_value > 1e-3, "{r:?}");
        assert!(r.mu > 0.0 && r.mu < r.score as f64 + 30.0);
    }
}

#[test]
fn related_pairs_get_tiny_p_values() {
    let (a, b) = pair("sp|Q3ZZU0|ATPD_DEHMC", "sp|Q3Z8Z5|ATPD_DEHM1");
    let r = psse(&native(), &a, &b, &PsseOptions { shuffles: 300, ..PsseOptions::default() }).unwrap();
    assert!(r.p_value < 1e-40 && r.e_value < 1e-40, "{r:?}");
    assert!(r.p_value > 0.0, "still representable: {r:?}");
    // A sequence against itself.
    let r = psse(&native(), &a, &a, &PsseOptions { shuffles: 300, ..PsseOptions::default() }).unwrap();
    assert!(r.p_value < 1e-50 && r.score > 1000, "{r:?}");
}

/// ssearch36's runs of one pair, from tests/data/psse/ssearch36_k1000.tsv.
struct Runs {
    relation: String,
    query: String,
    subject: String,
    score: i32,
    lambda: Vec<f64>,
    ln_k: Vec<f64>,
    p: Vec<f64>,
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    (mean, (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt())
}

fn range(v: &[f64]) -> (f64, f64) {
    (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

/// clsw psse with 1,000 shuffles (BLOSUM50, gaps 10/2 = ssearch36's -f -10 -g -2, seed 42)
/// against ssearch36 -k 1000 run 20 times per pair. The acceptance band is the spread
/// ssearch36 shows across its runs: lambda and ln K within mean +- 3 sd of the 20 runs
/// (an independent run falls outside the bare min-max of 20 runs one time in 10.5, so the
/// min-max alone would fail on chance; at least 3/4 of the pairs must fall inside it), and P
/// within a factor of 3 of ssearch36's range of P over the runs.
#[test]
fn agreement_with_ssearch36_k1000() {
    let text = std::fs::read_to_string(data_dir().join("psse/ssearch36_k1000.tsv")).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mut pairs: BTreeMap<String, Runs> = BTreeMap::new();
    for l in lines {
        let f: Vec<&str> = l.split('\t').collect();
        let r = pairs.entry(f[col("pair")].to_string()).or_insert_with(|| Runs {
            relation: f[col("relation")].into(),
            query: f[col("query")].into(),
            subject: f[col("subject")].into(),
            score: f[col("score")].parse().unwrap(),
            lambda: vec![],
            ln_k: vec![],
            p: vec![],
        });
        assert_eq!(r.score, f[col("score")].parse::<i32>().unwrap());
        r.lambda.push(f[col("lambda")].parse().unwrap());
        r.ln_k.push(f[col("k")].parse::<f64>().unwrap().ln());
        r.p.push(f[col("p_value")].parse().unwrap());
    }
    assert!(pairs.len() >= 10 && pairs.values().all(|r| r.lambda.len() >= 5));
    let (queries, subjects) = (by_id("queries10.fasta"), by_id("golden_subjects.fasta"));
    let qs: Vec<&[u8]> = pairs.values().map(|r| queries[&r.query].residues.as_slice()).collect();
    let ss: Vec<&[u8]> = pairs.values().map(|r| subjects[&r.subject].residues.as_slice()).collect();
    let engine = native();
    let opts = PsseOptions::default();
    assert_eq!((opts.shuffles, opts.scoring.gaps.open, opts.scoring.gaps.extend), (1000, 10, 2));
    let mut failures = Vec::new();
    let mut inside_min_max = (0, 0);
    println!(
        "{:<4} {:<9} {:>5} {:>7} {:>15} {:>8} {:>19} {:>10} {:>21}",
        "pair", "relation", "score", "lambda", "ssearch lambda", "K", "ssearch K", "P", "ssearch P"
    );
    for (k, (name, runs)) in pairs.iter().enumerate() {
        // Each pair alone, as ssearch36 sees it (its subject is subject 0 of the generator).
        let r = psse_many(&engine, &qs[k..k + 1], &ss[k..k + 1], &opts).unwrap().remove(0);
        assert_eq!(r.score, runs.score, "{name}: the real Smith-Waterman scores differ");
        let (lm, ls) = mean_sd(&runs.lambda);
        let (km, ks) = mean_sd(&runs.ln_k);
        let (plo, phi) = range(&runs.p);
        let (llo, lhi) = range(&runs.lambda);
        let (klo, khi) = range(&runs.ln_k);
        println!(
            "{name:<4} {:<9} {:>5} {:>7.4} {:>7.4}-{:<7.4} {:>8.4} {:>9.4}-{:<9.4} {:>10.3e} {:>10.3e}-{:<10.3e}",
            runs.relation,
            r.score,
            r.lambda,
            llo,
            lhi,
            r.k,
            klo.exp(),
            khi.exp(),
            r.p_value,
            plo,
            phi
        );
        inside_min_max.0 += (llo..=lhi).contains(&r.lambda) as usize;
        inside_min_max.1 += (klo..=khi).contains(&r.k.ln()) as usize;
        if (r.lambda - lm).abs() > 3.0 * ls {
            failures.push(format!("{name}: lambda {} outside {lm:.4} +- 3 x {ls:.4}", r.lambda));
        }
        if (r.k.ln() - km).abs() > 3.0 * ks {
            failures.push(format!("{name}: K {} outside exp({km:.3} +- 3 x {ks:.3})", r.k));
        }
        if !(r.p_value >= plo / 3.0 && r.p_value <= phi * 3.0) {
            failures.push(format!(
                "{name}: P {:e} outside [{:e}, {:e}] (ssearch36's range, widened 3x)",
                r.p_value, plo, phi
            ));
        }
    }
    println!(
        "inside ssearch36's min-max over its runs: lambda {} of {}, K {} of {}",
        inside_min_max.0,
        pairs.len(),
        inside_min_max.1,
        pairs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Independent estimates land inside the min-max of 20 runs about 19 times in 21.
    let most = pairs.len() * 3 / 4;
    assert!(inside_min_max.0 >= most && inside_min_max.1 >= most, "{inside_min_max:?} of {}", pairs.len());
}

#[test]
fn censored_fits_count_the_low_scores() {
    let (a, b) = pair("tr|A0A0W1BG93|A0A0W1BG93_9GAMM", "tr|A0A0A6L1Q9|A0A0A6L1Q9_CANAX");
    let base = PsseOptions { shuffles: 1000, keep_scores: true, ..PsseOptions::default() };
    let full = psse(&native(), &a, &b, &base).unwrap();
    let cens = psse(&native(), &a, &b, &PsseOptions { censor_below: Some(0.5), ..base.clone() }).unwrap();
    let c = cens.cutoff.unwrap();
    assert_eq!(cens.censored, full.shuffle_scores.iter().filter(|&&s| (s as f64) < c).count());
    assert!((300..=500).contains(&cens.censored), "{}", cens.censored);
    assert_eq!(cens.score, full.score);
    // Both estimate the same distribution.
    assert!((cens.lambda / full.lambda - 1.0).abs() < 0.2, "{} vs {}", cens.lambda, full.lambda);
    assert!((cens.mu - full.mu).abs() < 3.0, "{} vs {}", cens.mu, full.mu);
    assert_eq!((full.censored, full.cutoff), (0, None));
}

#[test]
fn degenerate_samples_are_errors_never_nan() {
    let engine = native();
    let opts = PsseOptions { shuffles: 50, ..PsseOptions::default() };
    let (a, b) = pair("sp|Q3ZZU0|ATPD_DEHMC", "tr|V4P9A4|V4P9A4_EUTSA");
    // One residue: every shuffle is the same sequence, every score equal.
    let one = vec![b[0]];
    let e = psse(&engine, &a, &one, &opts).unwrap_err();
    assert!(matches!(&e, Error::InvalidArgument(m) if m.contains("all equal")), "{e}");
    // Windows of one residue leave the subject as it is.
    let e = psse(&engine, &a, &b, &PsseOptions { window: 1, ..opts.clone() }).unwrap_err();
    assert!(e.to_string().contains("all equal"), "{e}");
    assert!(psse(&engine, &a, &[], &opts).is_err());
    assert!(psse(&engine, &[], &b, &opts).is_err());
    // Too few shuffles, bad quantiles.
    assert!(psse(&engine, &a, &b, &PsseOptions { shuffles: 1, ..opts.clone() }).is_err());
    for q in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(psse(&engine, &a, &b, &PsseOptions { censor_below: Some(q), ..opts.clone() }).is_err(), "{q}");
    }
    // A residue outside the matrix's alphabet.
    assert!(psse(&engine, &[200], &b, &opts).is_err());
    // Many pairs: psse_many names the failed pair; psse_run keeps the others.
    let subjects: Vec<&[u8]> = vec![&b, &one];
    let e = psse_many(&engine, &[&a], &subjects, &opts).unwrap_err().to_string();
    assert!(e.contains("query 1 and subject 2"), "{e}");
    let run = psse_run(&engine, &[&a], &subjects, &opts).unwrap();
    let r = run.pairs[0].as_ref().unwrap();
    assert!([r.mu, r.lambda, r.k, r.p_value, r.e_value].iter().all(|v| v.is_finite()));
    assert!(run.pairs[1].is_err());
}

#[test]
fn shuffles_are_reused_across_queries() {
    // A pair's result does not depend on the other queries run with it (the subject's
    // shuffles are keyed by its index, made once and reused for every query).
    let q = read_fasta("queries10.fasta", Alphabet::Protein);
    let s = read_fasta("golden_subjects.fasta", Alphabet::Protein);
    let queries: Vec<&[u8]> = q.iter().take(3).map(|r| r.residues.as_slice()).collect();
    let subjects: Vec<&[u8]> = s.iter().filter(|r| r.len() < 300).take(4).map(|r| r.residues.as_slice()).collect();
    let opts = PsseOptions { shuffles: 100, keep_scores: true, ..PsseOptions::default() };
    let all = psse_many(&native(), &queries, &subjects, &opts).unwrap();
    assert_eq!(all.len(), 12);
    for (k, r) in all.iter().enumerate() {
        assert_eq!((r.query, r.subject), (k / 4, k % 4));
        assert_eq!(r.shuffles, 100);
    }
    let second = psse_many(&native(), &queries[1..2], &subjects, &opts).unwrap();
    for (a, b) in second.iter().zip(&all[4..8]) {
        assert_eq!((a.score, a.mu, a.lambda, &a.shuffle_scores), (b.score, b.mu, b.lambda, &b.shuffle_scores));
    }
}

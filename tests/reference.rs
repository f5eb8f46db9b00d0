//! The reference aligner against an independent textbook implementation, and its
//! traceback against its own score.

mod common;

use clsw::reference::{LocalScore, align, score};
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use clsw::traceback::align_with_block_rows;
use common::Rng;

/// Textbook Gotoh with three full matrices, written independently of src/reference.
#[allow(clippy::needless_range_loop)] // indices as the textbook writes them are the point
fn textbook(q: &[u8], s: &[u8], sc: &Scoring) -> LocalScore {
    let (m, n) = (q.len(), s.len());
    let neg = i64::MIN / 4;
    let (o, e) = (sc.gaps.open as i64, sc.gaps.extend as i64);
    let mut h = vec![vec![0i64; n + 1]; m + 1];
    let mut ee = vec![vec![neg; n + 1]; m + 1];
    let mut ff = vec![vec![neg; n + 1]; m + 1];
    let mut best = (0i64, usize::MAX, usize::MAX);
    for i in 1..=m {
        for j in 1..=n {
            ee[i][j] = (ee[i][j - 1] - e).max(h[i][j - 1] - o - e);
            ff[i][j] = (ff[i - 1][j] - e).max(h[i - 1][j] - o - e);
            let d = h[i - 1][j - 1] + sc.matrix.score(q[i - 1], s[j - 1]) as i64;
            h[i][j] = 0.max(d).max(ee[i][j]).max(ff[i][j]);
        }
    }
    // The end rule: highest score, then smallest subject position, then smallest query position.
    for j in 1..=n {
        for i in 1..=m {
            if h[i][j] > best.0 {
                best = (h[i][j], i - 1, j - 1);
            }
        }
    }
    LocalScore { score: best.0 as i32, end: (best.0 > 0).then_some((best.1, best.2)) }
}

fn schemes() -> Vec<(Scoring, usize)> {
    let p = |name: &str, o, e| (Scoring::new(Matrix::builtin(name).unwrap(), Gaps::affine(o, e).unwrap()), 20);
    vec![
        p("BLOSUM62", 11, 1),
        p("BLOSUM50", 10, 2),
        p("PAM30", 9, 1),
        p("BLOSUM45", 0, 3), // linear
        (Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(12, 4).unwrap()), 5),
        (Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 1, -1).unwrap(), Gaps::linear(1).unwrap()), 4),
    ]
}

#[test]
fn reference_equals_textbook_on_random_pairs() {
    let mut rng = Rng::new(1);
    for (sc, letters) in schemes() {
        for round in 0..120 {
            let m = 1 + rng.below(if round < 40 { 4 } else { 90 });
            let q = rng.codes(m, letters);
            let s = if round % 2 == 0 {
                rng.mutate(&q, 0.3, letters)
            } else {
                let n = 1 + rng.below(90);
                rng.codes(n, letters)
            };
            if s.is_empty() {
                continue;
            }
            assert_eq!(score(&q, &s, &sc), textbook(&q, &s, &sc), "{} q={q:?} s={s:?}", sc.matrix.name());
        }
    }
}

#[test]
fn traceback_rescores_to_its_score_and_ignores_checkpoint_interval() {
    let mut rng = Rng::new(2);
    for (sc, letters) in schemes() {
        for _ in 0..60 {
            let m = 1 + rng.below(150);
            let q = rng.codes(m, letters);
            let s = rng.mutate(&q, 0.25, letters);
            let s = if s.is_empty() { vec![0] } else { s };
            let best = score(&q, &s, &sc);
            let Some(a) = align(&q, &s, &sc) else {
                assert_eq!(best.score, 0);
                continue;
            };
            assert_eq!(a.score, best.score);
            assert_eq!(Some((a.query_end, a.subject_end)), best.end);
            assert_eq!(a.rescore(&q, &s, &sc), a.score as i64, "{} cigar {}", sc.matrix.name(), a.cigar(true));
            let consumed_q: u32 =
                a.ops.iter().filter(|(o, _)| !matches!(o, clsw::align::Op::Deletion)).map(|(_, n)| n).sum();
            assert_eq!(a.query_end + 1 - a.query_start, consumed_q as usize);
            for k in [1, 2, 3, 7, 31] {
                assert_eq!(align_with_block_rows(&q, &s, &sc, k).as_ref(), Some(&a), "block rows {k}");
            }
        }
    }
}

#[test]
fn edge_lengths() {
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    let w = Alphabet::Protein.encode_all(b"W").unwrap();
    assert_eq!(score(&w, &[], &sc), LocalScore { score: 0, end: None });
    assert_eq!(score(&[], &w, &sc), LocalScore { score: 0, end: None });
    assert!(align(&[], &w, &sc).is_none());
    let a = align(&w, &w, &sc).unwrap();
    assert_eq!((a.score, a.cigar(true).as_str()), (11, "1="));
}

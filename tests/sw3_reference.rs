//! The three-sequence reference against brute force, its invariants, and the
//! linear-memory traceback against the full-table one. CPU only (no device needed).

mod common;

use clsw::reference::sw3::{ORDER, delta, opens, sw3_align_full, sw3_rescore, sw3_score};
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use clsw::sw3::{self, Sw3Score};
use common::{Rng, read_fasta};
use std::collections::HashMap;

fn scorings() -> Vec<(String, Scoring)> {
    let mm = |m, x, o, e| {
        (
            format!("dna {m}/{x} gaps {o}/{e}"),
            Scoring::new(Matrix::match_mismatch(Alphabet::Dna, m, x).unwrap(), Gaps::affine(o, e).unwrap()),
        )
    };
    let b62 = |o, e| {
        (format!("BLOSUM62 {o}/{e}"), Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(o, e).unwrap()))
    };
    vec![mm(1, -1, 0, 1), mm(2, -3, 0, 2), mm(3, -1, 2, 1), mm(1, -1, 1, 1), b62(0, 1), b62(5, 1), b62(11, 1)]
}

/// Scorings where gapped optima are common (matches worth much more than gaps), so
/// that every transition between column kinds shows up in optimal alignments.
fn cheap_gap_scorings() -> Vec<(String, Scoring)> {
    [(10, -10, 1, 1), (6, -6, 2, 1), (8, -2, 3, 1), (5, -5, 0, 1)]
        .into_iter()
        .map(|(m, x, o, e)| {
            (
                format!("dna {m}/{x} gaps {o}/{e}"),
                Scoring::new(Matrix::match_mismatch(Alphabet::Dna, m, x).unwrap(), Gaps::affine(o, e).unwrap()),
            )
        })
        .collect()
}

/// Every alignment of every segment triple, by depth-first search from every start
/// cell, scored column by column with the model's definition (the previous column
/// carried for the opens). Returns the best score and its end under the tie rule.
fn brute_force(seqs: [&[u8]; 3], sc: &Scoring) -> Sw3Score {
    let n = [seqs[0].len(), seqs[1].len(), seqs[2].len()];
    let mut best_at: HashMap<[usize; 3], i64> = HashMap::new();
    fn dfs(
        x: [usize; 3],
        prev: Option<u8>,
        score: i64,
        seqs: [&[u8]; 3],
        n: [usize; 3],
        sc: &Scoring,
        best_at: &mut HashMap<[usize; 3], i64>,
    ) {
        for m in 1..8u8 {
            let d = delta(m);
            let y = [x[0] + d[0], x[1] + d[1], x[2] + d[2]];
            if y[0] > n[0] || y[1] > n[1] || y[2] > n[2] {
                continue;
            }
            let r = |s: usize| seqs[s][y[s] - 1];
            let mut col = 0i64;
            for (p, q) in [(0, 1), (0, 2), (1, 2)] {
                let (hp, hq) = ((m >> p) & 1 == 1, (m >> q) & 1 == 1);
                if hp && hq {
                    col += sc.matrix.score(r(p), r(q)) as i64;
                } else if hp || hq {
                    col -= sc.gaps.extend as i64;
                }
            }
            col -= (opens(prev, m) * sc.gaps.open) as i64;
            let s = score + col;
            let e = best_at.entry(y).or_insert(i64::MIN);
            *e = (*e).max(s);
            dfs(y, Some(m), s, seqs, n, sc, best_at);
        }
    }
    for i in 0..=n[0] {
        for j in 0..=n[1] {
            for k in 0..=n[2] {
                dfs([i, j, k], None, 0, seqs, n, sc, &mut best_at);
            }
        }
    }
    let mut best = Sw3Score::ZERO;
    for (&cell, &s) in &best_at {
        let s = s as i32;
        let better = match best.end {
            None => s > 0,
            Some(e) => s > best.score || (s == best.score && [cell[2], cell[1], cell[0]] < [e[2], e[1], e[0]]),
        };
        if better {
            best = Sw3Score { score: s, end: Some(cell) };
        }
    }
    best
}

/// The recurrence over the whole table in another loop order (i outermost), kept in a
/// hash map: a second, independent evaluation for inputs too long to enumerate.
fn full_table_i_outer(seqs: [&[u8]; 3], sc: &Scoring) -> Sw3Score {
    let n = [seqs[0].len(), seqs[1].len(), seqs[2].len()];
    const NEG: i64 = i64::MIN / 4;
    let (o, e) = (sc.gaps.open as i64, sc.gaps.extend as i64);
    // v[0] = H, v[m] = state m.
    let mut t: HashMap<[usize; 3], [i64; 8]> = HashMap::new();
    let mut best = Sw3Score::ZERO;
    for i in 0..=n[0] {
        for j in 0..=n[1] {
            for k in 0..=n[2] {
                let x = [i, j, k];
                let mut v = [NEG; 8];
                for m in 1..8u8 {
                    let d = delta(m);
                    if i < d[0] || j < d[1] || k < d[2] {
                        continue;
                    }
                    let p = t[&[i - d[0], j - d[1], k - d[2]]];
                    let mut sub = 0i64;
                    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
                        if (m >> a) & 1 == 1 && (m >> b) & 1 == 1 {
                            sub += sc.matrix.score(seqs[a][x[a] - 1], seqs[b][x[b] - 1]) as i64;
                        }
                    }
                    let ext = if m == 7 { 0 } else { 2 * e };
                    // Start at p, or any state at p with its opens.
                    let mut from = -(opens(None, m) as i64) * o;
                    for q in 1..8u8 {
                        from = from.max(p[q as usize] - opens(Some(q), m) as i64 * o);
                    }
                    v[m as usize] = sub - ext + from;
                }
                v[0] = (1..8).map(|m| v[m]).max().unwrap().max(0);
                t.insert(x, v);
                let h = v[0] as i32;
                let better = match best.end {
                    None => h > 0,
                    Some(b) => h > best.score || (h == best.score && [k, j, i] < [b[2], b[1], b[0]]),
                };
                if better {
                    best = Sw3Score { score: h, end: Some(x) };
                }
            }
        }
    }
    best
}

fn check_alignment(seqs: [&[u8]; 3], sc: &Scoring, what: &str) {
    let best = sw3_score(seqs[0], seqs[1], seqs[2], sc);
    let full = sw3_align_full(seqs[0], seqs[1], seqs[2], sc);
    assert_eq!(full.is_some(), best.score > 0, "{what}");
    let Some(full) = full else { return };
    assert_eq!((full.score, Some(full.end)), (best.score, best.end), "{what}");
    assert_eq!(full.rescore(seqs, sc), Some(best.score as i64), "{what}: full traceback rescored");
    for limit in [8, 64, 1000, 1 << 22] {
        let dc = sw3::align_with_limit(seqs[0], seqs[1], seqs[2], sc, limit).unwrap().unwrap();
        assert_eq!(dc, full, "{what}: divide and conquer (limit {limit}) differs from the full table");
    }
}

/// Three sequences of `min` to `min + span - 1` codes drawn from `letters` letters.
fn random_triple(rng: &mut Rng, min: usize, span: usize, letters: usize) -> Vec<Vec<u8>> {
    let lengths: Vec<usize> = (0..3).map(|_| min + rng.below(span)).collect();
    lengths.into_iter().map(|l| rng.codes(l, letters)).collect()
}

fn three(seqs: &[Vec<u8>]) -> [&[u8]; 3] {
    [&seqs[0], &seqs[1], &seqs[2]]
}

/// The reference's score of a triple.
fn score3(s: [&[u8]; 3], sc: &Scoring) -> Sw3Score {
    sw3_score(s[0], s[1], s[2], sc)
}

#[test]
fn reference_equals_brute_force_on_tiny_inputs() {
    let mut rng = Rng::new(11);
    let mut cases = 0;
    for (name, sc) in scorings() {
        let letters = if sc.matrix.alphabet() == Alphabet::Dna { 4 } else { 20 };
        for _ in 0..14 {
            let seqs = random_triple(&mut rng, 0, 4, letters);
            let s = three(&seqs);
            let want = brute_force(s, &sc);
            let got = score3(s, &sc);
            assert_eq!(got, want, "{name}: {seqs:?}");
            cases += 1;
        }
        // Shared letters so that positive scores and gapped optima occur.
        for _ in 0..6 {
            let core = rng.codes(3, letters);
            let seqs: Vec<Vec<u8>> = (0..3).map(|_| rng.mutate(&core, 0.5, letters)).collect();
            let s = three(&seqs);
            if seqs.iter().any(|x| x.len() > 4) {
                continue;
            }
            assert_eq!(score3(s, &sc), brute_force(s, &sc), "{name}: {seqs:?}");
            cases += 1;
        }
    }
    assert!(cases > 100);
}

/// With cheap gaps, `rounds` random triples of `min` to `min + span - 1` codes (of
/// `letters` letters) per scoring: the reference's score equals `oracle`'s.
fn cheap_gaps_agree(seed: u64, rounds: usize, (min, span, letters): (usize, usize, usize), oracle: Oracle) {
    let mut rng = Rng::new(seed);
    for (name, sc) in cheap_gap_scorings() {
        for _ in 0..rounds {
            let seqs = random_triple(&mut rng, min, span, letters);
            let s = three(&seqs);
            assert_eq!(score3(s, &sc), oracle(s, &sc), "{name}: {seqs:?}");
        }
    }
}

type Oracle = fn([&[u8]; 3], &Scoring) -> Sw3Score;

#[test]
fn reference_equals_brute_force_with_cheap_gaps() {
    cheap_gaps_agree(21, 40, (1, 3, 3), brute_force);
}

#[test]
fn reference_equals_brute_force_where_gap_columns_follow_each_other() {
    // An extra residue in one or two sequences between shared ones makes the optimum
    // use (or tie with) two gap columns in a row, e.g. (-,-,x) then (y,y,-).
    let d = |s: &str| Alphabet::Dna.encode_all(s.as_bytes()).unwrap();
    let sets = [["ACG", "ACG", "ATG"], ["ACG", "ATG", "AGG"], ["ACG", "ACTG", "AG"], ["AG", "ACG", "ATTG"]];
    for (name, sc) in cheap_gap_scorings() {
        for set in sets {
            for p in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                let seqs = [d(set[p[0]]), d(set[p[1]]), d(set[p[2]])];
                let s = three(&seqs);
                assert_eq!(score3(s, &sc), brute_force(s, &sc), "{name}: {set:?} {p:?}");
            }
        }
    }
}

#[test]
fn reference_equals_full_table_with_cheap_gaps() {
    cheap_gaps_agree(22, 300, (0, 8, 4), full_table_i_outer);
}

#[test]
fn cheap_gap_tracebacks_match_the_full_table() {
    let mut rng = Rng::new(23);
    for (name, sc) in cheap_gap_scorings() {
        for round in 0..40 {
            let seqs = random_triple(&mut rng, 2, 10, 4);
            check_alignment([&seqs[0], &seqs[1], &seqs[2]], &sc, &format!("{name} round {round}"));
        }
    }
}

#[test]
fn reference_equals_full_table_in_another_order() {
    let mut rng = Rng::new(12);
    for (name, sc) in scorings() {
        let letters = if sc.matrix.alphabet() == Alphabet::Dna { 4 } else { 20 };
        for round in 0..6 {
            let l = 4 + rng.below(6);
            let core = rng.codes(l, letters);
            let seqs: Vec<Vec<u8>> = (0..3)
                .map(|s| {
                    if (round + s) % 3 == 0 {
                        {
                            let l = rng.below(10);
                            rng.codes(l, letters)
                        }
                    } else {
                        rng.mutate(&core, 0.3, letters)
                    }
                })
                .collect();
            let s = three(&seqs);
            assert_eq!(score3(s, &sc), full_table_i_outer(s, &sc), "{name}: {seqs:?}");
        }
    }
}

#[test]
fn linear_gaps_equal_affine_recurrence_with_zero_open() {
    // The linear fast path and the seven-state recurrence agree when open = 0: compare
    // the two-plane scores with the full table of states (which always uses states).
    let mut rng = Rng::new(13);
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::linear(1).unwrap());
    for _ in 0..20 {
        let core = rng.codes(8, 20);
        let seqs: Vec<Vec<u8>> = (0..3).map(|_| rng.mutate(&core, 0.3, 20)).collect();
        let s = three(&seqs);
        assert_eq!(score3(s, &sc), full_table_i_outer(s, &sc));
    }
}

#[test]
fn score_is_invariant_under_the_six_permutations() {
    let mut rng = Rng::new(14);
    let proteins = read_fasta("uniprot300.fasta", Alphabet::Protein);
    for (name, sc) in scorings() {
        let letters = if sc.matrix.alphabet() == Alphabet::Dna { 4 } else { 20 };
        for round in 0..4 {
            let seqs: Vec<Vec<u8>> = if round == 0 && letters == 20 {
                // Real proteins, cut to at most 25 residues.
                (0..3).map(|s| proteins[7 * s + 1].residues[..25.min(proteins[7 * s + 1].len())].to_vec()).collect()
            } else {
                let l = 10 + rng.below(10);
                let core = rng.codes(l, letters);
                (0..3).map(|_| rng.mutate(&core, 0.25, letters)).collect()
            };
            let base = sw3_score(&seqs[0], &seqs[1], &seqs[2], &sc).score;
            for p in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                let s = sw3_score(&seqs[p[0]], &seqs[p[1]], &seqs[p[2]], &sc);
                assert_eq!(s.score, base, "{name}: permutation {p:?}");
            }
        }
    }
}

#[test]
fn tracebacks_rescore_to_their_score_and_match_the_full_table() {
    let mut rng = Rng::new(15);
    for (name, sc) in scorings() {
        let letters = if sc.matrix.alphabet() == Alphabet::Dna { 4 } else { 20 };
        for round in 0..8 {
            let l = 6 + rng.below(14);
            let core = rng.codes(l, letters);
            let seqs: Vec<Vec<u8>> = (0..3)
                .map(|s| {
                    let l = rng.below(5);
                    let mut x = rng.codes(l, letters);
                    x.extend(rng.mutate(&core, 0.2 + 0.05 * round as f64, letters));
                    let l = rng.below(5);
                    x.extend(rng.codes(l, letters));
                    if s == 2 && round == 7 { rng.codes(3, letters) } else { x }
                })
                .collect();
            check_alignment([&seqs[0], &seqs[1], &seqs[2]], &sc, &format!("{name} round {round}"));
        }
    }
}

#[test]
fn traceback_of_real_proteins_in_plane_memory() {
    // Three related real proteins: a long alignment, traced back with small boxes.
    let proteins = read_fasta("uniprot300.fasta", Alphabet::Protein);
    let mut rng = Rng::new(16);
    let base = &proteins[3].residues[..60.min(proteins[3].len())];
    let seqs: Vec<Vec<u8>> = (0..3).map(|_| rng.mutate(base, 0.15, 20)).collect();
    for sc in [
        Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()),
        Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::linear(2).unwrap()),
    ] {
        let best = sw3_score(&seqs[0], &seqs[1], &seqs[2], &sc);
        let a = sw3::align_with_limit(&seqs[0], &seqs[1], &seqs[2], &sc, 512).unwrap().unwrap();
        assert_eq!((a.score, Some(a.end)), (best.score, best.end));
        assert_eq!(a.rescore([&seqs[0], &seqs[1], &seqs[2]], &sc), Some(best.score as i64));
        assert!(a.len() > 40, "a long alignment: {}", a.len());
        assert_eq!(a, sw3_align_full(&seqs[0], &seqs[1], &seqs[2], &sc).unwrap());
        let from_end = sw3::align_from_end(&seqs[0], &seqs[1], &seqs[2], &sc, best).unwrap().unwrap();
        assert_eq!(from_end, a);
    }
}

#[test]
fn an_alignment_may_leave_out_a_sequence() {
    // BLOSUM62, linear gap 1: (W,W,-) columns score 11 - 2 = 9 each; c shares nothing.
    let p = |s: &str| Alphabet::Protein.encode_all(s.as_bytes()).unwrap();
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::linear(1).unwrap());
    let (a, b, c) = (p("WWW"), p("WWW"), p("P"));
    let best = sw3_score(&a, &b, &c, &sc);
    assert_eq!(best, Sw3Score { score: 27, end: Some([3, 3, 0]) });
    let aln = sw3::align(&a, &b, &c, &sc).unwrap().unwrap();
    assert_eq!(aln.columns, vec![3, 3, 3]);
    assert_eq!((aln.start, aln.end), ([0, 0, 0], [3, 3, 0]));
    assert_eq!(aln.rows([&a, &b, &c], |x| Alphabet::Protein.decode(x)), ["WWW", "WWW", "---"].map(String::from));
    // A leading (x,y,-) column the zero-boundary convention would lose: (A,A,-) then
    // (W,W,W) scores (4 - 2) + 33 = 35.
    let (a, b, c) = (p("AW"), p("AW"), p("W"));
    assert_eq!(sw3_score(&a, &b, &c, &sc).score, 35);
    assert_eq!(brute_force([&a, &b, &c], &sc).score, 35);
}

#[test]
fn empty_sequences_are_allowed() {
    let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 2, -1).unwrap(), Gaps::linear(1).unwrap());
    let d = |s: &str| Alphabet::Dna.encode_all(s.as_bytes()).unwrap();
    // c empty: the best alignment of a and b with c all gaps: 3 x (2 - 2) = 0 -> nothing.
    assert_eq!(sw3_score(&d("ACG"), &d("ACG"), &[], &sc), Sw3Score::ZERO);
    let sc3 = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 3, -1).unwrap(), Gaps::linear(1).unwrap());
    assert_eq!(sw3_score(&d("ACG"), &d("ACG"), &[], &sc3), Sw3Score { score: 3, end: Some([3, 3, 0]) });
    assert_eq!(sw3_score(&[], &[], &[], &sc), Sw3Score::ZERO);
    assert!(sw3::align(&[], &d("A"), &[], &sc).unwrap().is_none());
}

#[test]
fn rescore_refuses_bad_columns() {
    let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 1, -1).unwrap(), Gaps::linear(1).unwrap());
    let a = [0u8, 1];
    assert_eq!(sw3_rescore(&[0], [0, 0, 0], [&a, &a, &a], &sc), None);
    assert_eq!(sw3_rescore(&[8], [0, 0, 0], [&a, &a, &a], &sc), None);
    assert_eq!(sw3_rescore(&[1, 1, 1], [0, 0, 0], [&a, &a, &a], &sc), None);
    assert_eq!(sw3_rescore(&[7, 7], [0, 0, 0], [&a, &a, &a], &sc), Some(6));
    assert_eq!(ORDER.len(), 7);
}

#[test]
fn codes_outside_the_matrix_are_errors() {
    let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 1, -1).unwrap(), Gaps::linear(1).unwrap());
    let msg = sw3::score_cpu(&[0, 9], &[0], &[0], &sc).unwrap_err().to_string();
    assert!(msg.contains("sequence 1") && msg.contains("code 9"), "{msg}");
}

#[test]
fn traceback_from_a_wrong_end_gives_none() {
    let d = |s: &str| Alphabet::Dna.encode_all(s.as_bytes()).unwrap();
    let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 1, -1).unwrap(), Gaps::linear(1).unwrap());
    let (a, b, c) = (d("TTACGTTT"), d("GACGTG"), d("ACGT"));
    let best = sw3_score(&a, &b, &c, &sc);
    assert!(sw3::align_from_end(&a, &b, &c, &sc, best).unwrap().is_some());
    for end in [[6, 5, 3], [1, 1, 1], [9, 5, 4], [0, 0, 0]] {
        let wrong = Sw3Score { score: best.score, end: Some(end) };
        assert!(sw3::align_from_end(&a, &b, &c, &sc, wrong).unwrap().is_none(), "{end:?}");
    }
    let low = Sw3Score { score: best.score - 1, end: best.end };
    assert!(sw3::align_from_end(&a, &b, &c, &sc, low).unwrap().is_none());
}

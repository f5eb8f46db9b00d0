//! Every scan kernel variant against the reference, on every OpenCL device present
//! (PoCL in CI): random and real sequences, every built-in matrix, several gap
//! settings, edge lengths and scores past 16-bit range. Scores and end cells must be
//! equal; saturated subjects must be counted as recomputed.
//! CPU devices build these sweeps' programs unoptimized ([`common::sweep_devices`]).

mod common;

use clsw::device::ClDevice;
use clsw::reference::{LocalScore, score};
use clsw::scan::{Variant, scan_once};
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use common::{Rng, read_fasta, sweep_devices, test_devices};

/// Checks every variant; returns the number of subjects each recomputed at 32 bits.
fn check(query: &[u8], subjects: &[Vec<u8>], sc: &Scoring, what: &str) -> Vec<usize> {
    check_on(sweep_devices(), query, subjects, sc, what)
}

/// [`check`] on `devices`.
fn check_on(devices: Vec<ClDevice>, query: &[u8], subjects: &[Vec<u8>], sc: &Scoring, what: &str) -> Vec<usize> {
    let want: Vec<LocalScore> = subjects.iter().map(|s| score(query, s, sc)).collect();
    let mut recomputed = Vec::new();
    for dev in devices {
        for variant in Variant::ALL {
            let got = scan_once(&dev, variant, query, subjects, sc).unwrap();
            for (k, (g, w)) in got.scores.iter().zip(&want).enumerate() {
                assert_eq!(
                    g,
                    w,
                    "{variant}, {what} on {}: subject {k} (length {})",
                    dev.info.label(),
                    subjects[k].len()
                );
            }
            recomputed.push(got.recomputed);
        }
    }
    recomputed
}

#[test]
fn every_builtin_matrix_and_gap_setting_on_random_sequences() {
    let mut rng = Rng::new(3);
    for name in Matrix::builtin_names() {
        let matrix = Matrix::builtin(name).unwrap();
        let letters = matrix.size();
        for (open, extend) in [(11, 1), (10, 2), (0, 2), (5, 3)] {
            let sc = Scoring::new(matrix.clone(), Gaps::affine(open, extend).unwrap());
            let qlen = 1 + rng.below(120);
            let query = rng.codes(qlen, letters);
            let subjects: Vec<Vec<u8>> = (0..40)
                .map(|k| {
                    if k % 4 == 0 {
                        let mut s = rng.mutate(&query, 0.2, letters);
                        s.push(0);
                        s
                    } else {
                        let n = 1 + rng.below(160);
                        rng.codes(n, letters)
                    }
                })
                .collect();
            check(&query, &subjects, &sc, &format!("{name} {open}/{extend}"));
        }
    }
}

#[test]
fn edge_lengths_around_work_group_sizes() {
    let mut rng = Rng::new(4);
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    for qlen in [1, 2, 3, 31, 32, 33, 63, 64, 65] {
        let query = rng.codes(qlen, 20);
        let subjects: Vec<Vec<u8>> =
            [1, 2, 3, 4, 15, 16, 17, 63, 64, 65, 127, 128, 129].iter().map(|&n| rng.codes(n, 20)).collect();
        check(&query, &subjects, &sc, &format!("query length {qlen}"));
    }
    // More subjects than one work-group, and an empty query.
    let subjects: Vec<Vec<u8>> = (0..131).map(|k| rng.codes(1 + k % 50, 20)).collect();
    check(&rng.codes(40, 20), &subjects, &sc, "131 subjects");
    for dev in sweep_devices() {
        for variant in Variant::ALL {
            let got = scan_once(&dev, variant, &[], &subjects, &sc).unwrap();
            assert!(got.scores.iter().all(|r| *r == LocalScore { score: 0, end: None }), "{variant}");
            let none = scan_once(&dev, variant, &subjects[0], &Vec::<Vec<u8>>::new(), &sc).unwrap();
            assert!(none.scores.is_empty());
        }
    }
}

/// A query of 2,100 residues, nine in ten W, and PAM250 10/2, which scores W/W 17: the
/// query against itself passes 32,767.
fn w_rich(rng: &mut Rng) -> (Vec<u8>, Scoring) {
    let w = Alphabet::Protein.encode_all(b"W").unwrap()[0];
    let query = (0..2_100).map(|k| if k % 10 == 0 { rng.below(20) as u8 } else { w }).collect();
    (query, Scoring::new(Matrix::builtin("PAM250").unwrap(), Gaps::affine(10, 2).unwrap()))
}

#[test]
fn scores_beyond_8_and_16_bits() {
    let mut rng = Rng::new(5);
    let (query, sc) = w_rich(&mut rng);
    let subjects = vec![query.clone(), query[..20].to_vec(), query[..200].to_vec(), rng.mutate(&query, 0.05, 20)];
    let best = score(&query, &query, &sc).score;
    assert!(best > 32_767, "test needs a score past 16 bits, got {best}");
    let past_16_bits = subjects.iter().filter(|s| score(&query, s, &sc).score > 32_767).count();
    assert!(past_16_bits >= 1);
    let recomputed = check(&query, &subjects, &sc, "long W-rich pairs");
    // The plain kernel is 32-bit throughout; the narrow ones must recompute at least
    // the subjects past 32,767 (and may recompute those close below it).
    for (variant, n) in Variant::ALL.iter().cycle().zip(recomputed) {
        match variant {
            Variant::Plain => assert_eq!(n, 0, "plain is 32-bit throughout"),
            // scan_inter's arithmetic is 32-bit: exactly the subjects past 32,767.
            Variant::Inter => assert_eq!(n, past_16_bits, "inter recomputed {n}"),
            // team's lanes are 16-bit: those past 32,767 - max(S) too.
            Variant::Team => {
                assert!(n >= past_16_bits && n <= subjects.len(), "{variant} recomputed {n}")
            }
            // scan_intra's arithmetic is 32-bit, its exchange and boundary rows 16-bit:
            // exactly the subjects past 32,767.
            Variant::Intra => assert_eq!(n, past_16_bits, "intra recomputed {n}"),
        }
    }
}

#[test]
fn real_proteins_from_uniprot() {
    let seqs = read_fasta("uniprot300.fasta", Alphabet::Protein);
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    let subjects: Vec<Vec<u8>> =
        seqs.iter().filter(|s| s.len() <= 1_500).take(120).map(|s| s.residues.clone()).collect();
    for (q, (name, open, extend)) in
        queries.iter().take(3).zip([("BLOSUM62", 11, 1), ("BLOSUM50", 10, 2), ("PAM250", 0, 4)])
    {
        let sc = Scoring::new(Matrix::builtin(name).unwrap(), Gaps::affine(open, extend).unwrap());
        check(&q.residues, &subjects, &sc, &format!("{} with {name}", q.id));
    }
}

#[test]
fn team_in_every_shape() {
    // scan_team with every team size (1 to 32 work-items per pair), rows per work-item
    // that leave one pass, several passes and a partial last pass, work-groups of one
    // and of several teams, scores alone and with end cells; the slotted local profile
    // (teams of 8 to 32; 22 rows, an odd number of words a work-item) and the packed one
    // (24 rows; teams of 4 with 10 rows, src/scan/team.rs: slotted); 26 rows, the most
    // a work-item holds.
    use clsw::scan::scanner::{ScanKernel, Scanner, Tuning};
    let mut rng = Rng::new(12);
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    for dev in sweep_devices() {
        for (qlen, team, rows, group) in [
            (1, 1, 2, 1),
            (37, 1, 8, 4),
            (5, 2, 2, 2),
            (70, 4, 6, 8),
            (130, 8, 16, 64),
            (33, 16, 2, 16),
            (200, 32, 4, 64),
            (300, 32, 2, 32),
            (500, 16, 0, 64),
            (90, 8, 0, 32),
            (400, 8, 24, 128),
            (600, 8, 26, 128),
            (190, 8, 22, 32),
            (45, 4, 10, 16),
        ] {
            let query = rng.codes(qlen, 20);
            let subjects: Vec<Vec<u8>> = (0..23)
                .map(|k| {
                    if k % 4 == 0 {
                        let mut s = rng.mutate(&query, 0.2, 20);
                        s.extend(rng.codes(k * 3, 20));
                        s
                    } else {
                        let n = 1 + rng.below(if k % 5 == 0 { 400 } else { 60 });
                        rng.codes(n, 20)
                    }
                })
                .collect();
            let want: Vec<LocalScore> = subjects.iter().map(|s| score(&query, s, &sc)).collect();
            // min_team 1: subjects shorter than 12 x team get smaller teams, each a launch.
            // long_cover 0: every pair walked by one team, no long groups.
            let tuning = Tuning { team, rows, team_group: group, min_team: 1, long_cover: 0, ..Tuning::default() };
            let refs: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
            let scanner = Scanner::new(&dev, ScanKernel::Team, tuning, &refs, sc.matrix.size() as u8).unwrap();
            for scores_only in [false, true] {
                let got = if scores_only { scanner.scores(&query, &sc) } else { scanner.scan(&query, &sc) }.unwrap();
                for (k, s) in subjects.iter().enumerate() {
                    let what = format!("qlen {qlen} team {team} rows {rows} group {group} scores_only {scores_only}");
                    if scores_only {
                        assert_eq!(got.scores[k].score, want[k].score, "{what}: subject {k} (length {})", s.len());
                        assert_eq!(got.scores[k].end, None, "{what}: subject {k}: the score-only kernel has no ends");
                    } else {
                        assert_eq!(got.scores[k], want[k], "{what}: subject {k} (length {})", s.len());
                    }
                }
            }
        }
    }
}

#[test]
fn portable_team_takes_low_halves_by_multiplies_as_on_nvidia() {
    // CLSW_MUL_SHIFTS (cl/clsw_common.h), NVIDIA's tuning of the portable kernels, built
    // on the other test devices too (NVIDIA's portable build defines it; its vendor
    // build never takes a half this way): negative low halves, several passes, scores
    // past 16 bits, end cells and scores alone.
    use clsw::scan::scanner::{ScanKernel, Scanner, Tuning};
    let mut rng = Rng::new(45);
    let (long, sc) = w_rich(&mut rng);
    let devices: Vec<ClDevice> = sweep_devices()
        .into_iter()
        .filter(|d| !d.info.is_nvidia())
        .map(|d| d.with_build_options(" -D CLSW_MUL_SHIFTS=1"))
        .collect();
    for dev in devices {
        for query in [rng.codes(300, 20), long.clone()] {
            let mut subjects: Vec<Vec<u8>> = (0..12)
                .map(|k| {
                    let n = 1 + rng.below(50 + 40 * k);
                    rng.codes(n, 20)
                })
                .collect();
            subjects.extend([query.clone(), rng.mutate(&query, 0.1, 20), query[..150].to_vec()]);
            let want: Vec<LocalScore> = subjects.iter().map(|s| score(&query, s, &sc)).collect();
            let refs: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
            let tuning = Tuning { rows: 6, long_cover: 0, ..Tuning::default() };
            let scanner = Scanner::new(&dev, ScanKernel::Team, tuning, &refs, sc.matrix.size() as u8).unwrap();
            let (ends, scores) = (scanner.scan(&query, &sc).unwrap(), scanner.scores(&query, &sc).unwrap());
            for (k, s) in subjects.iter().enumerate() {
                let what =
                    format!("query of {} on {}: subject {k} (length {})", query.len(), dev.info.label(), s.len());
                assert_eq!(ends.scores[k], want[k], "{what}");
                assert_eq!(scores.scores[k].score, want[k].score, "{what}, scores only");
            }
        }
    }
}

#[test]
fn team_scans_several_queries_in_one_launch() {
    // scan_team's query slots: queries of different lengths (one empty) share launches,
    // three at a time, each query's own rows, boundary rows and outputs; a DNA scoring
    // whose planted copies pass 16 bits has each query's saturated subjects recomputed
    // (on the host, and on the device).
    use clsw::scan::scanner::{ScanKernel, Scanner, Tuning};
    let mut rng = Rng::new(31);
    let protein = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    let dna = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 100, -90).unwrap(), Gaps::affine(150, 40).unwrap());
    for dev in sweep_devices() {
        for (sc, alpha) in [(&protein, 20usize), (&dna, 4)] {
            let queries: Vec<Vec<u8>> = [130, 1, 0, 57, 420, 7, 300].iter().map(|&n| rng.codes(n, alpha)).collect();
            let subjects: Vec<Vec<u8>> = (0..40)
                .map(|k| {
                    let n = 1 + rng.below(if k % 6 == 0 { 700 } else { 90 });
                    let mut s = rng.codes(n, alpha);
                    if k % 3 == 0 {
                        let planted = rng.mutate(&queries[k % queries.len()], 0.05, alpha);
                        let at = rng.below(s.len() + 1);
                        s.splice(at..at, planted);
                    }
                    s
                })
                .collect();
            let refs: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
            for host_assist in [true, false] {
                let tuning = Tuning { team: 4, long_cover: 0, host_assist, ..Tuning::default() };
                let pad = sc.matrix.size() as u8;
                let scanner = Scanner::for_queries(&dev, ScanKernel::Team, tuning, &refs, pad, 3).unwrap();
                let got = scanner.scores_many(&queries, sc).unwrap();
                assert_eq!(got.len(), queries.len());
                let mut recomputed = 0;
                for (q, (query, out)) in queries.iter().zip(&got).enumerate() {
                    recomputed += out.recomputed;
                    for (k, s) in subjects.iter().enumerate() {
                        let want = score(query, s, sc).score;
                        let what = format!(
                            "{}: query {q} ({} residues), subject {k} ({})",
                            sc.matrix.name(),
                            query.len(),
                            s.len()
                        );
                        assert_eq!(out.scores[k].score, want, "{what}");
                    }
                }
                if alpha == 4 {
                    assert!(recomputed > 0, "the DNA case must saturate 16 bits somewhere");
                }
            }
        }
    }
}

#[test]
fn long_subjects_are_walked_by_several_teams_at_once_or_in_windows() {
    // A database of 1 to 70,000 residues whose long subjects (`Tuning::is_long`) get a
    // long group each pair, walked by several teams at once, each on a pass of its own
    // (rounds of passes, long groups shorter than the pipeline's fill, teams of 4 and
    // 8), or for short queries in overlapping windows (`scan::windows`: both queries,
    // or only the shorter, whose alignments span at most 661 and 1,396 columns): every
    // score and end cell is the reference's. A planted copy of a query scores past
    // 32,767 (DNA, match 100: 16-bit saturation, then the 32-bit recompute) in a long
    // subject and in a short one; one query at a time and two a launch.
    use clsw::scan::scanner::{ScanKernel, Scanner, Tuning};
    use clsw::scan::windows::Windows;
    let mut rng = Rng::new(70);
    let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 100, -90).unwrap(), Gaps::affine(150, 40).unwrap());
    let queries = [rng.codes(190, 4), rng.codes(400, 4)];
    // (The longest real protein, 35,213 residues: long_subject_with_a_planted_match.)
    let mut lengths = vec![70_000, 6_000, 9_000, 1, 2, 3, 31, 32, 33, 200, 1_000, 3_500];
    lengths.extend((0..60).map(|_| 1 + rng.below(600)));
    let subjects: Vec<Vec<u8>> = lengths
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let mut s = rng.codes(n, 4);
            if k == 0 || k == 11 {
                let at = rng.below(n - 400);
                s[at..at + 400].copy_from_slice(&queries[1]);
            }
            if k % 5 == 1 && n > 200 {
                let planted = rng.mutate(&queries[0], 0.1, 4);
                let at = rng.below(n - planted.len());
                s[at..at + planted.len()].copy_from_slice(&planted);
            }
            s
        })
        .collect();
    let residues: u64 = lengths.iter().map(|&n| n as u64).sum();
    let refs: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
    let want: Vec<Vec<LocalScore>> =
        queries.iter().map(|q| subjects.iter().map(|s| score(q, s, &sc)).collect()).collect();
    assert!(want[1][0].score > 32_767 && want[1][11].score > 32_767, "the planted copies must pass 16 bits");
    // Subjects from 5,000 (or 300) residues on are long.
    let from = |n: u64, team: usize| Tuning {
        team,
        min_team: team,
        long_cover: residues * team as u64 / n,
        ..Tuning::default()
    };
    let base = from(5_000, 8);
    assert!(base.is_long(9_000, residues) && !base.is_long(3_500, residues));
    assert_eq!((sc.local_subject_span(190), sc.local_subject_span(400)), (Some(661), Some(1_396)));
    let no_windows = Windows { stride: 0, overlap: 0 };
    let tunings = [
        base,
        // 26 rows a work-item, the most: beside the long groups' profiles.
        Tuning { rows: 26, windows: Windows { stride: 700, overlap: 1_000 }, ..base },
        Tuning { rows: 8, windows: no_windows, ..from(300, 4) },
        Tuning { long_cover: 0, ..base },
        // Work-groups asked for fewer teams than a long group's stages get the stages.
        Tuning { team_group: 8, rows: 8, windows: no_windows, ..base },
    ];
    let pad = sc.matrix.size() as u8;
    for dev in common::test_devices() {
        for (k, tuning) in tunings.into_iter().enumerate() {
            let what = format!("{} ({tuning:?})", dev.info.label());
            let one = Scanner::new(&dev, ScanKernel::Team, tuning, &refs, pad).unwrap();
            for (q, query) in queries.iter().enumerate() {
                let got = one.scan(query, &sc).unwrap();
                assert_eq!(got.scores, want[q], "{what}: query {q} with end cells");
                assert!(q == 0 || got.recomputed >= 2, "{what}: the saturated subjects are recomputed");
            }
            // Two queries a launch: long groups and windows (the other shapes launch as
            // these do, one query or two).
            if k >= 2 {
                continue;
            }
            let two = Scanner::for_queries(&dev, ScanKernel::Team, tuning, &refs, pad, 2).unwrap();
            let got = two.scores_many(&queries, &sc).unwrap();
            for (q, out) in got.iter().enumerate() {
                let scores: Vec<i32> = out.scores.iter().map(|s| s.score).collect();
                let wanted: Vec<i32> = want[q].iter().map(|s| s.score).collect();
                assert_eq!(scores, wanted, "{what}: query {q}, two a launch, scores only");
            }
        }
    }
}

#[test]
fn long_subject_with_a_planted_match() {
    // The longest real protein in the test set has 35,213 residues: one random
    // subject of that length with a mutated copy of a 300-residue query planted inside, next to short
    // subjects, for every variant (all finish within seconds on PoCL).
    let mut rng = Rng::new(7);
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    let query = rng.codes(300, 20);
    let mut long = rng.codes(35_213, 20);
    let planted = rng.mutate(&query, 0.1, 20);
    long.splice(21_000..21_000 + planted.len(), planted);
    let subjects = vec![long, rng.codes(10, 20), rng.mutate(&query, 0.3, 20), rng.codes(5_000, 20)];
    let want = score(&query, &subjects[0], &sc);
    let (_, j) = want.end.unwrap();
    assert!(want.score > 500 && (21_000..21_400).contains(&j), "the planted copy should be the best: {want:?}");
    check(&query, &subjects, &sc, "35,213-residue subject");
}

#[test]
fn intra_chunks_of_the_query_and_partial_tiles() {
    // Queries longer than one work-group's rows (128 work-items x 4 rows) go through
    // the global boundary row in chunks; lengths around tile and chunk edges, and a
    // score tie planted twice in one subject (the smaller subject position must win).
    let mut rng = Rng::new(8);
    let sc = Scoring::new(Matrix::builtin("BLOSUM50").unwrap(), Gaps::affine(10, 2).unwrap());
    for dev in sweep_devices() {
        for qlen in [4, 5, 511, 512, 513, 1_030] {
            let query = rng.codes(qlen, 20);
            let mut subjects: Vec<Vec<u8>> = [1, 3, 4, 5, 8, 9, 700].iter().map(|&n| rng.codes(n, 20)).collect();
            let copy = rng.mutate(&query, 0.2, 20);
            let mut twice = rng.codes(50, 20);
            twice.extend(&copy);
            twice.extend(rng.codes(30, 20));
            twice.extend(&copy);
            subjects.push(twice);
            let got = scan_once(&dev, Variant::Intra, &query, &subjects, &sc).unwrap();
            for (k, s) in subjects.iter().enumerate() {
                assert_eq!(got.scores[k], score(&query, s, &sc), "qlen {qlen}: subject {k} (length {})", s.len());
            }
        }
    }
}

#[test]
fn intra_tie_across_query_chunks() {
    // A 1,024-residue query is two chunks of 512 rows; rows 99 and 611 belong to the
    // same work-item. Segment U sits at query rows 0..100, its reverse V at 512..612;
    // the subject holds V first, then U. Both score 500 (5 per match; the flanks can
    // never match), so the reference's end is V's, in the second chunk at the smaller
    // subject position: a work-item must let a later chunk's equal cell win on j.
    let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Protein, 5, -4).unwrap(), Gaps::affine(10, 2).unwrap());
    let mut rng = Rng::new(9);
    let u: Vec<u8> = (0..100).map(|_| 2 + rng.below(18) as u8).collect();
    let v: Vec<u8> = u.iter().rev().copied().collect();
    let mut query = vec![0u8; 1_024];
    query[..100].copy_from_slice(&u);
    query[512..612].copy_from_slice(&v);
    let mut subject = vec![1u8; 400];
    subject[50..150].copy_from_slice(&v);
    subject[250..350].copy_from_slice(&u);
    let want = score(&query, &subject, &sc);
    assert_eq!(want, LocalScore { score: 500, end: Some((611, 149)) });
    check(&query, &[subject], &sc, "a tie across query chunks");
}

#[test]
fn gap_penalties_past_16_bits_run_at_32_bits() {
    // open + 2 extend >= 8192 does not fit the narrow kernels' 16-bit E and F: every
    // variant must fall back to 32 bits for all subjects (and count none as recomputed).
    let mut rng = Rng::new(10);
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(9_000, 1).unwrap());
    let query = rng.codes(530, 20);
    let subjects: Vec<Vec<u8>> = (0..12)
        .map(|k| {
            if k % 3 == 0 {
                rng.mutate(&query, 0.2, 20)
            } else {
                let n = 1 + rng.below(900);
                rng.codes(n, 20)
            }
        })
        .collect();
    check(&query, &subjects, &sc, "open 9,000");
}

#[test]
fn query_longer_than_65535() {
    // Positions and lengths are 32-bit everywhere; only scores are narrow. A 70,000-residue
    // query with a planted copy of each subject near its end. On the devices built
    // optimized: `team` on a CPU device walks every row for each slot of its group, three
    // minutes on PoCL unoptimized against seconds optimized (one program to build).
    let mut rng = Rng::new(7);
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    let mut query = rng.codes(70_000, 20);
    let subjects: Vec<Vec<u8>> = (0..6).map(|k| rng.codes(40 + 30 * k, 20)).collect();
    for (k, s) in subjects.iter().enumerate() {
        let at = 66_000 + 600 * k;
        query[at..at + s.len()].copy_from_slice(s);
    }
    check_on(test_devices(), &query, &subjects, &sc, "70,000-residue query");
}

#[test]
fn team_refuses_a_subject_past_its_32_bit_boundary_count() {
    // scan_team counts a group's boundary elements (longest subject x teams per group)
    // in 32 bits: with teams of one in work-groups of 1,024 (32 on a CPU device:
    // team::max_work_group), a subject of 2^31 / 1,024 + 1 residues is refused before
    // anything is laid out (one residue less would lay out 4 GiB of residue words for
    // its group of 1,024 slots).
    use clsw::scan::scanner::{ScanKernel, Scanner, Tuning};
    let tuning = Tuning { team: 1, min_team: 1, team_group: 1024, long_cover: 0, ..Tuning::default() };
    for dev in sweep_devices() {
        let (teams, _) = tuning.team_work_group(1, clsw::scan::team::max_work_group(&dev.info)).unwrap();
        let limit = i32::MAX as usize / teams;
        let long = vec![1u8; limit + 1];
        let err = Scanner::new(&dev, ScanKernel::Team, tuning, &[long.as_slice()], 21).err().expect("refused");
        assert!(err.to_string().contains(&format!("a subject of {} residues is too long", limit + 1)), "{err}");
    }
}

/// A random scoring for [`random_scorings_with_extreme_values`]: match/mismatch or a
/// random NCBI-format table, with scores and gap costs drawn from the edges that matter
/// (8 and 16 bits, their neighbours, the library's limit) as often as from small values.
fn random_scoring(rng: &mut Rng, alphabet: Alphabet) -> Scoring {
    let limit = clsw::scoring::SCORE_LIMIT;
    let magnitudes = [1, 2, 5, 11, 126, 127, 128, 255, 256, 8_191, 8_192, 32_767, 32_768, 40_000, limit];
    let pick = |rng: &mut Rng| magnitudes[rng.below(magnitudes.len())];
    let matrix = if rng.below(2) == 0 {
        let mismatch = if rng.below(4) == 0 { 0 } else { -pick(rng) };
        Matrix::match_mismatch(alphabet, pick(rng), mismatch).unwrap()
    } else {
        // Diagonal entries up to `high`, others from -`low` to about a fifth of `high`.
        let (high, low) = (pick(rng), pick(rng));
        let symbols = alphabet.symbols();
        let mut text = String::from("  ");
        for &c in symbols {
            text.push_str(&format!(" {}", c as char));
        }
        for (a, &ca) in symbols.iter().enumerate() {
            text.push_str(&format!("\n{}", ca as char));
            for b in 0..symbols.len() {
                let v = if a == b {
                    1 + rng.below(high as usize) as i32
                } else {
                    rng.below((low + high / 5 + 1) as usize) as i32 - low
                };
                text.push_str(&format!(" {v}"));
            }
        }
        Matrix::parse_ncbi("random", &text, alphabet).unwrap()
    };
    let extend = [1, 1, 2, 3, 255, 32_767, 65_535][rng.below(7)];
    let open = [0, 0, 1, 11, 8_191, 32_767, 65_535 - extend, limit - extend][rng.below(8)];
    Scoring::new(matrix, Gaps::affine(open, extend).unwrap())
}

#[test]
fn random_scorings_with_extreme_values() {
    // Every variant on every device, and the native path at every level this processor
    // has, against the reference: scores and end cells, for random scorings whose
    // scores and gaps cross 8 and 16 bits (a wide path must take over) or reach the
    // library's limit. Seeded; bounded to run in seconds on PoCL.
    use clsw::scan::native::{Level, Report, scores_at};
    let mut rng = Rng::new(19);
    let devices = sweep_devices();
    let levels: Vec<Level> = Level::ALL.into_iter().filter(|l| l.supported()).collect();
    for round in 0..24 {
        let alphabet = if round % 3 == 0 { Alphabet::Dna } else { Alphabet::Protein };
        let sc = random_scoring(&mut rng, alphabet);
        let letters = sc.matrix.size();
        // Two query lengths: scan_team builds a program per rows-per-work-item, which
        // follows the query's length (PoCL takes seconds per build).
        let m = [23, 90][rng.below(2)];
        let query = rng.codes(m, letters);
        let subjects: Vec<Vec<u8>> = (0..10)
            .map(|k| match k % 3 {
                0 => rng.mutate(&query, 0.15, letters),
                _ => {
                    let n = rng.below(120);
                    rng.codes(n, letters)
                }
            })
            .collect();
        let longest = subjects.iter().map(Vec::len).max().unwrap();
        sc.check_lengths(query.len(), longest, "the test's pair").unwrap();
        let want: Vec<LocalScore> = subjects.iter().map(|s| score(&query, s, &sc)).collect();
        let what = |path: String, k: usize| {
            format!(
                "round {round}, {path}: {} {:?}, subject {k} (length {})",
                sc.matrix.name(),
                sc.gaps,
                subjects[k].len()
            )
        };
        for &level in &levels {
            let got = scores_at(level, Report::Ends, &query, &subjects, &sc).unwrap();
            let only = scores_at(level, Report::Scores, &query, &subjects, &sc).unwrap();
            for (k, w) in want.iter().enumerate() {
                assert_eq!(&got.scores[k], w, "{}", what(format!("native {level}"), k));
                assert_eq!(only.scores[k].score, w.score, "{}", what(format!("native {level}, score only"), k));
                assert!(only.scores[k].end.is_none_or(|e| Some(e) == w.end), "{}", what(format!("{level}"), k));
            }
        }
        for dev in &devices {
            for variant in Variant::ALL {
                let got = scan_once(dev, variant, &query, &subjects, &sc).unwrap();
                for (k, w) in want.iter().enumerate() {
                    assert_eq!(&got.scores[k], w, "{}", what(format!("{variant} on {}", dev.info.label()), k));
                }
            }
        }
    }
}

/// The layout's words made on each device from the residues as stored
/// (`layout_words`) equal the host's twin (`GroupLayout::words`): subjects of 0 to 300
/// residues and long ones, one lane and two, long groups and windows (whose first
/// columns are padding), the residues back to back as a database stores them and
/// copied from wherever they are.
#[test]
fn layout_words_made_on_the_device_equal_the_hosts_twin() {
    use clsw::scan::layout::GroupLayout;
    use clsw::scan::layout_words::{StoredResidues, make_words};
    use clsw::scan::windows::Windows;
    let mut rng = Rng::new(41);
    let mut subjects: Vec<Vec<u8>> = (0..400)
        .map(|_| {
            let n = rng.below(301);
            rng.codes(n, 24)
        })
        .collect();
    subjects.extend((0..3).map(|k| rng.codes(1_000 + 700 * k, 24)));
    let apart: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
    let bytes: Vec<u8> = subjects.concat();
    let starts: Vec<u64> = apart.iter().scan(0u64, |at, s| Some(std::mem::replace(at, *at + s.len() as u64))).collect();
    let cut = Windows { stride: 256, overlap: 300 };
    let devices = test_devices();
    for lanes in [1, 2] {
        for long in [0, 3] {
            // The long subjects (the last three) and, with them, their windows.
            let mut lengths: Vec<u32> = subjects.iter().map(|s| s.len() as u32).collect();
            let mut windows = Vec::new();
            for (k, s) in subjects.iter().enumerate().skip(subjects.len() - long) {
                for start in cut.starts(s.len()) {
                    windows.push((k, start));
                    lengths.push(cut.columns(s.len(), start) as u32);
                }
            }
            let layout = GroupLayout::with_long(&lengths, 4, lanes, 24, long, windows.len()).unwrap();
            let sources = layout.lane_sources(|j| match windows.get((j as usize).wrapping_sub(subjects.len())) {
                Some(&(k, start)) => (starts[k] as i64 + start, (-start).max(0) as u32),
                None => (starts[j as usize] as i64, 0),
            });
            let want = layout.words(&bytes, &sources);
            assert!(long == 0 || want.iter().any(|w| w & 0xff == 24), "windows lead with padding");
            for dev in &devices {
                let group_word = dev.buffer_from(&layout.group_word).unwrap();
                let lane_lengths = dev.buffer_from(&layout.lengths).unwrap();
                for (how, stored) in [
                    ("stored", StoredResidues::stored(&bytes, starts.clone())),
                    ("copied", StoredResidues::of_subjects(&apart).unwrap()),
                ] {
                    let residues = stored.write(dev).unwrap();
                    assert!((0..apart.len()).all(|k| residues.start(k as u32) == starts[k]), "{how}");
                    let words = make_words(dev, &layout, &residues, &sources, &group_word, &lane_lengths).unwrap();
                    let mut got = vec![0u32; layout.word_count];
                    dev.read(&dev.queue(), &words, &mut got).unwrap();
                    assert_eq!(got, want, "{}: lanes {lanes}, long {long}, {how}", dev.info.label());
                }
            }
        }
    }
}

/// A buffer written by several threads at once (`ClDevice::buffer_from`, from 64 MiB a
/// writer) holds every element in place, the last part shorter than the others.
#[test]
fn a_buffer_written_in_parts_at_once_holds_every_element_in_place() {
    let data: Vec<u32> = (0..50_000_003u32).map(|i| i.wrapping_mul(2_654_435_761) ^ i >> 7).collect();
    for dev in test_devices() {
        let buffer = dev.buffer_from(&data).unwrap();
        let mut back = vec![0u32; data.len()];
        dev.read(&dev.queue(), &buffer, &mut back).unwrap();
        assert!(back == data, "{}", dev.info.label());
    }
}

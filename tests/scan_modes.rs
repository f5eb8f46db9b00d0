//! The global and glocal modes (issue 42) of every OpenCL scan kernel against the
//! reference, on every device present (PoCL in CI): `team` in its shapes (teams of 1
//! to 32, one pass and several, scores alone and with end cells, several queries a
//! launch, long subjects walked by several teams at once), `inter` at 16 and 32 bits,
//! subjects shorter and longer than the query, empty sequences, and scores past 16
//! bits at both ends (the 32-bit recompute). Scores and end cells must be equal.

mod common;

use clsw::reference::{LocalScore, score};
use clsw::scan::scanner::{ScanKernel, Scanner, Tuning};
use clsw::scan::{Variant, scan_once};
use clsw::scoring::{Gaps, Matrix, Mode, Scoring};
use clsw::seq::Alphabet;
use common::{Rng, sweep_devices, test_devices};

const MODES: [Mode; 2] = [Mode::Global, Mode::Glocal];

fn blosum62(mode: Mode) -> Scoring {
    Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()).in_mode(mode)
}

/// Subjects around `query`: mutated copies with flanks, shorter and longer random ones.
fn subjects_around(rng: &mut Rng, query: &[u8], count: usize, longest: usize, letters: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|k| match k % 4 {
            0 => {
                let flank = rng.below(20);
                let mut s = rng.codes(flank, letters);
                s.extend(rng.mutate(query, 0.2, letters));
                s.extend(rng.codes(k, letters));
                s
            }
            1 => rng.mutate(query, 0.1, letters),
            _ => {
                let n = 1 + rng.below(longest);
                rng.codes(n, letters)
            }
        })
        .collect()
}

#[test]
fn team_in_every_shape_in_each_mode() {
    // 128 rows: a whole pass of 8 x 16 (no padding rows above the query).
    let mut rng = Rng::new(42);
    for dev in sweep_devices() {
        for mode in MODES {
            let sc = blosum62(mode);
            for (shape, (qlen, team, rows, group)) in
                [(1, 1, 2, 1), (5, 2, 2, 2), (128, 8, 16, 64), (200, 32, 4, 64)].into_iter().enumerate()
            {
                let query = rng.codes(qlen, 20);
                let mut subjects = subjects_around(&mut rng, &query, 22, 300, 20);
                subjects.push(Vec::new());
                let want: Vec<LocalScore> = subjects.iter().map(|s| score(&query, s, &sc)).collect();
                let tuning = Tuning { team, rows, team_group: group, min_team: 1, long_cover: 0, ..Tuning::default() };
                let refs: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
                let scanner = Scanner::new(&dev, ScanKernel::Team, tuning, &refs, 20).unwrap();
                let what = format!("{mode}, qlen {qlen} team {team} rows {rows} group {group} on {}", dev.info.label());
                let got = scanner.scan(&query, &sc).unwrap();
                for (k, s) in subjects.iter().enumerate() {
                    assert_eq!(got.scores[k], want[k], "{what}: subject {k} (length {})", s.len());
                }
                // The score-only build (a program of its own) in two shapes.
                if shape >= 2 {
                    let got = scanner.scores(&query, &sc).unwrap();
                    let scores: Vec<i32> = got.scores.iter().map(|s| s.score).collect();
                    let wanted: Vec<i32> = want.iter().map(|s| s.score).collect();
                    assert_eq!(scores, wanted, "{what}: scores only");
                }
            }
        }
    }
}

#[test]
fn every_builtin_matrix_with_linear_and_affine_gaps_in_each_mode() {
    // One query length for every case: each variant and mode builds one program.
    let mut rng = Rng::new(5);
    for dev in sweep_devices() {
        for mode in MODES {
            for name in Matrix::builtin_names() {
                let matrix = Matrix::builtin(name).unwrap();
                let letters = matrix.size();
                for gaps in [Gaps::affine(10, 2).unwrap(), Gaps::linear(3).unwrap()] {
                    let sc = Scoring::new(matrix.clone(), gaps).in_mode(mode);
                    let query = rng.codes(60, letters);
                    let subjects = subjects_around(&mut rng, &query, 16, 150, letters);
                    let want: Vec<LocalScore> = subjects.iter().map(|s| score(&query, s, &sc)).collect();
                    for variant in [Variant::Team, Variant::Inter] {
                        let got = scan_once(&dev, variant, &query, &subjects, &sc).unwrap();
                        let what = format!("{mode} {name} {gaps:?} {variant} on {}", dev.info.label());
                        assert_eq!(got.scores, want, "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn inter_at_16_and_32_bits_and_the_local_only_variants() {
    // BLOSUM62 fits 16 bits (scan_inter, its boundary row 16-bit); a DNA scoring of
    // match 5,000 does not (every pair at 32 bits, WIDE=1), its sums pass 16 bits up
    // and down.
    let mut rng = Rng::new(7);
    let dna = |mode| {
        Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 5_000, -4_000).unwrap(), Gaps::affine(6_000, 3_000).unwrap())
            .in_mode(mode)
    };
    for dev in sweep_devices() {
        for mode in MODES {
            for (sc, letters) in [(blosum62(mode), 20), (dna(mode), 4)] {
                // 32: a whole band (no padding rows above the query).
                for qlen in [0, 1, 17, 32, 150] {
                    let query = rng.codes(qlen, letters);
                    let mut subjects = subjects_around(&mut rng, &query, 30, 250, letters);
                    subjects.push(Vec::new());
                    let want: Vec<LocalScore> = subjects.iter().map(|s| score(&query, s, &sc)).collect();
                    let got = scan_once(&dev, Variant::Inter, &query, &subjects, &sc).unwrap();
                    assert_eq!(got.scores, want, "{mode} {} qlen {qlen} on {}", sc.matrix.name(), dev.info.label());
                }
            }
            for variant in [Variant::Plain, Variant::Intra] {
                let err = scan_once(&dev, variant, &[1, 2], &[vec![1u8]], &blosum62(mode)).unwrap_err().to_string();
                assert!(err.contains(&format!("computes local alignments only (mode {mode})")), "{variant}: {err}");
            }
        }
    }
}

#[test]
fn team_scans_several_queries_in_one_launch_in_each_mode() {
    // Queries of different lengths (one empty) share launches, three at a time: each
    // query's padding rows above it are its own.
    let mut rng = Rng::new(31);
    for dev in sweep_devices() {
        for mode in MODES {
            let sc = blosum62(mode);
            let queries: Vec<Vec<u8>> = [130, 1, 0, 57, 420, 7].iter().map(|&n| rng.codes(n, 20)).collect();
            let mut subjects = subjects_around(&mut rng, &queries[4], 30, 500, 20);
            subjects.push(Vec::new());
            let refs: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
            let tuning = Tuning { team: 4, long_cover: 0, ..Tuning::default() };
            let scanner = Scanner::for_queries(&dev, ScanKernel::Team, tuning, &refs, 20, 3).unwrap();
            let got = scanner.scores_many(&queries, &sc).unwrap();
            for (q, (query, out)) in queries.iter().zip(&got).enumerate() {
                let scores: Vec<i32> = out.scores.iter().map(|s| s.score).collect();
                let wanted: Vec<i32> = subjects.iter().map(|s| score(query, s, &sc).score).collect();
                assert_eq!(scores, wanted, "{mode}: query {q} ({} residues) on {}", query.len(), dev.info.label());
            }
        }
    }
}

#[test]
fn long_subjects_in_each_mode() {
    // Subjects of 1 to 20,000 residues, the long ones walked by several teams at once
    // (teams of 4, queries of several passes). BLOSUM62 keeps 16 bits at any subject
    // length (global's top edge alone would pass 16 bits beyond 16,000 residues): glocal's cells fall with the query's length only, and global's lanes are
    // shifted (extend per row and column) so that its all-gap edges stay at -open; a DNA
    // scoring of match 100 passes 16 bits upwards on planted copies (saturation, the
    // 32-bit recompute) in both modes.
    let mut rng = Rng::new(70);
    let dna = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 100, -90).unwrap(), Gaps::affine(150, 40).unwrap());
    let mut lengths = vec![20_000, 12_000, 9_000, 1, 2, 3, 31, 32, 33, 200, 1_000, 3_500];
    lengths.extend((0..30).map(|_| 1 + rng.below(600)));
    for (base, letters) in [(blosum62(Mode::Local), 20), (dna, 4)] {
        let queries = [rng.codes(190, letters), rng.codes(400, letters)];
        let subjects: Vec<Vec<u8>> = lengths
            .iter()
            .enumerate()
            .map(|(k, &n)| {
                let mut s = rng.codes(n, letters);
                if k % 5 == 1 && n > 450 {
                    let planted = rng.mutate(&queries[k % 2], 0.05, letters);
                    let at = rng.below(n - planted.len());
                    s[at..at + planted.len()].copy_from_slice(&planted);
                }
                s
            })
            .collect();
        let residues: u64 = lengths.iter().map(|&n| n as u64).sum();
        let refs: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
        // Subjects from 5,000 (or 300) residues on are long.
        let from = |n: u64, team: usize| Tuning {
            team,
            min_team: team,
            long_cover: residues * team as u64 / n,
            ..Tuning::default()
        };
        for mode in MODES {
            let sc = base.clone().in_mode(mode);
            let want: Vec<Vec<LocalScore>> =
                queries.iter().map(|q| subjects.iter().map(|s| score(q, s, &sc)).collect()).collect();
            // Rows fixed: one program for both queries (4 and 9 passes). Everything on the
            // device (its long groups, its 32-bit recompute), and with the host's help
            // where the scanner takes it (the long subjects, the saturated pairs).
            for host_assist in [false, true] {
                let tuning = Tuning { rows: 12, host_assist, ..from(300, 4) };
                for dev in test_devices() {
                    let what = format!("{mode} {} on {} ({tuning:?})", sc.matrix.name(), dev.info.label());
                    let scanner = Scanner::new(&dev, ScanKernel::Team, tuning, &refs, letters as u8).unwrap();
                    let mut recomputed = 0;
                    for (q, query) in queries.iter().enumerate() {
                        let got = scanner.scan(query, &sc).unwrap();
                        recomputed += got.recomputed;
                        for (k, s) in subjects.iter().enumerate() {
                            assert_eq!(got.scores[k], want[q][k], "{what}: query {q}, subject {k} ({})", s.len());
                        }
                        // The score-only build (glocal's fold of its own) through the long groups.
                        if !host_assist {
                            let got = scanner.scores(query, &sc).unwrap();
                            for (k, s) in subjects.iter().enumerate() {
                                let score = got.scores[k].score;
                                assert_eq!(
                                    score,
                                    want[q][k].score,
                                    "{what}: scores only, query {q}, subject {k} ({})",
                                    s.len()
                                );
                            }
                        }
                    }
                    // BLOSUM62's pairs all keep 16 bits, up to 20,000 residues; the DNA
                    // scoring's pass them, and the device's long groups find them.
                    let narrow = letters == 20;
                    if !host_assist || narrow {
                        assert_eq!(recomputed == 0, narrow, "{what}: {recomputed} pairs recomputed at 32 bits");
                    }
                }
            }
        }
    }
}

#[test]
fn the_host_scores_the_long_subjects_of_short_queries() {
    // Queries of one pass against subjects of up to 12,000 residues, long from 5,000:
    // the device walks the short subjects and the host (the native path, one pair on
    // all its lanes) the long ones beside the launch (the scanner's unit test pins who
    // walks what); every score and end is the reference's, one query a launch and
    // three, with relatives of the query planted in the long subjects.
    let mut rng = Rng::new(77);
    let queries: Vec<Vec<u8>> = [100, 1, 30].iter().map(|&m| rng.codes(m, 20)).collect();
    let mut lengths = vec![12_000, 9_000, 5_000];
    lengths.extend((0..40).map(|_| 1 + rng.below(300)));
    let subjects: Vec<Vec<u8>> = lengths
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let mut s = rng.codes(n, 20);
            if n >= 5_000 {
                let planted = rng.mutate(&queries[0], 0.1, 20);
                let at = if k == 0 { 0 } else { n / 2 };
                s.splice(at..at + planted.len(), planted);
            }
            s
        })
        .collect();
    let refs: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
    let residues: u64 = lengths.iter().map(|&n| n as u64).sum();
    let tuning = Tuning { long_cover: residues * 8 / 5_000, ..Tuning::default() };
    for mode in MODES {
        let sc = blosum62(mode);
        let want: Vec<Vec<LocalScore>> =
            queries.iter().map(|q| subjects.iter().map(|s| score(q, s, &sc)).collect()).collect();
        // Few cells on the device, a program for each mode and query count: built
        // unoptimized on CPU devices, as the sweeps are.
        for dev in sweep_devices() {
            let what = format!("{mode} on {}", dev.info.label());
            let one = Scanner::new(&dev, ScanKernel::Team, tuning, &refs, 24).unwrap();
            for (q, query) in queries.iter().enumerate() {
                assert_eq!(one.scan(query, &sc).unwrap().scores, want[q], "{what}: query {q}");
            }
            let three = Scanner::for_queries(&dev, ScanKernel::Team, tuning, &refs, 24, 3).unwrap();
            let got = three.scores_many(&queries, &sc).unwrap();
            for (q, out) in got.iter().enumerate() {
                let scores: Vec<i32> = out.scores.iter().map(|r| r.score).collect();
                let wanted: Vec<i32> = want[q].iter().map(|r| r.score).collect();
                assert_eq!(scores, wanted, "{what}: query {q} of three");
            }
        }
    }
}

//! psse on OpenCL devices (PoCL in CI; `CLSW_TEST_DEVICE=gpu` on the GPU machine): the
//! device's Philox stream against Random123's known answers, device shuffles against the
//! CPU's (bit for bit), shuffle-alignment scores against the reference, and the whole
//! pipeline giving bit-identical results on every device, in every split over devices,
//! and on the native CPU path. `scores_hash_matches_the_committed_one` compares a hash
//! of every score with tests/data/psse/scores_hash.txt (made on the CPU path), so a
//! device that shuffles or scores differently anywhere fails it.

mod common;

use clsw::device::DeviceChoice;
use clsw::psse::opencl::{device_philox, device_shuffles};
use clsw::psse::philox::philox4x32_10;
use clsw::psse::shuffle::shuffled;
use clsw::psse::{PsseOptions, PsseResult, PsseRun, Variant, psse_run};
use clsw::reference::score;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use clsw::{Engine, Result};
use common::{Rng, data_dir, read_fasta, test_devices};

/// Random123's known-answer vectors for Philox4x32-10 (`tests/kat_vectors` of the
/// Random123 distribution, D. E. Shaw Research): counter, key, expected output.
const KAT: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
    ([0, 0, 0, 0], [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]),
    ([u32::MAX; 4], [u32::MAX; 2], [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]),
    (
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
        [0xa4093822, 0x299f31d0],
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
    ),
];

fn engine_on(index: usize) -> Engine {
    Engine::new(DeviceChoice::Index(index)).expect("opening the device")
}

fn native() -> Engine {
    Engine::new(DeviceChoice::Native).unwrap()
}

fn sorted(mut v: Vec<u8>) -> Vec<u8> {
    v.sort_unstable();
    v
}

#[test]
fn philox_matches_random123_known_answers_on_cpu_and_devices() {
    for (c, k, want) in KAT {
        assert_eq!(philox4x32_10(c, k), want, "CPU, counter {c:x?} key {k:x?}");
    }
    for dev in test_devices() {
        for (c, k, want) in KAT {
            assert_eq!(device_philox(&dev, c, k, 1).unwrap()[0], want, "{}", dev.info.label());
        }
        // A run of counters: the device's words equal the CPU's.
        let got = device_philox(&dev, [5, 77, 3, 0], [42, 0], 300).unwrap();
        for (i, g) in got.iter().enumerate() {
            assert_eq!(*g, philox4x32_10([5 + i as u32, 77, 3, 0], [42, 0]), "{} block {i}", dev.info.label());
        }
    }
}

#[test]
fn device_shuffles_equal_cpu_shuffles_and_are_permutations() {
    let mut rng = Rng::new(11);
    let lengths = [0usize, 1, 2, 3, 4, 5, 7, 8, 31, 63, 64, 65, 127, 129, 300];
    let subjects: Vec<Vec<u8>> = lengths.iter().map(|&n| rng.codes(n, 24)).collect();
    let refs: Vec<&[u8]> = subjects.iter().map(|s| s.as_slice()).collect();
    let shuffles = 37; // odd: groups straddle subjects
    for dev in test_devices() {
        for variant in Variant::ALL {
            for window in [0usize, 1, 7, 50] {
                let seed = 0x5eed_0000_0000_0000 | window as u64;
                let got = device_shuffles(&dev, variant, &refs, 3, shuffles, seed, window).unwrap();
                for (k, s) in subjects.iter().enumerate() {
                    assert_eq!(got[k].len(), shuffles);
                    for (i, sh) in got[k].iter().enumerate() {
                        let want = shuffled(s, seed, 3 + k as u32, i as u32, window);
                        assert_eq!(
                            sh,
                            &want,
                            "{} {variant} window {window}: subject {k} (length {}) shuffle {i}",
                            dev.info.label(),
                            s.len()
                        );
                        assert_eq!(sorted(sh.clone()), sorted(s.clone()));
                        if window > 0 {
                            for (a, b) in s.chunks(window).zip(sh.chunks(window)) {
                                assert_eq!(sorted(a.to_vec()), sorted(b.to_vec()), "window {window}");
                            }
                        }
                    }
                    // Shuffles of a long subject differ from each other and from the subject.
                    if s.len() >= 64 && window != 1 {
                        assert_ne!(&got[k][0], s);
                        assert_ne!(got[k][0], got[k][1]);
                    }
                }
            }
        }
    }
}

/// Every shuffle score and real score of a run equals the reference on the CPU's copy
/// of the same shuffle.
fn check_against_reference(results: &[PsseResult], queries: &[Vec<u8>], subjects: &[Vec<u8>], opts: &PsseOptions) {
    for r in results {
        let (q, s) = (&queries[r.query], &subjects[r.subject]);
        assert_eq!(r.score, score(q, s, &opts.scoring).score, "real score of pair ({}, {})", r.query, r.subject);
        assert_eq!(r.shuffle_scores.len(), opts.shuffles);
        for (i, &got) in r.shuffle_scores.iter().enumerate() {
            let sh = shuffled(s, opts.seed, r.subject as u32, i as u32, opts.window);
            assert_eq!(got, score(q, &sh, &opts.scoring).score, "pair ({}, {}) shuffle {i}", r.query, r.subject);
        }
    }
}

/// A run's fitted pairs, at least `fitted` of them, each checked against the reference
/// ([`check_against_reference`]); pairs whose shuffles all score alike fit no Gumbel.
fn fitted_and_checked(
    engine: &Engine,
    queries: &[Vec<u8>],
    subjects: &[Vec<u8>],
    opts: &PsseOptions,
    fitted: usize,
) -> PsseRun {
    let run = psse_run(engine, queries, subjects, opts).unwrap();
    let ok: Vec<PsseResult> = run.pairs.iter().filter_map(|p| p.as_ref().ok().cloned()).collect();
    assert!(ok.len() >= fitted, "{} of {} pairs fitted on {}", ok.len(), run.pairs.len(), engine.describe().join(","));
    check_against_reference(&ok, queries, subjects, opts);
    run
}

fn run_ok(engine: &Engine, q: &[Vec<u8>], s: &[Vec<u8>], opts: &PsseOptions) -> Vec<PsseResult> {
    psse_run(engine, q, s, opts).unwrap().pairs.into_iter().map(|p| p.unwrap()).collect()
}

#[test]
fn kernel_scores_equal_the_reference_on_the_same_shuffles() {
    let mut rng = Rng::new(5);
    let protein_q: Vec<Vec<u8>> = vec![rng.codes(40, 20), rng.codes(77, 20)];
    let mut protein_s: Vec<Vec<u8>> = vec![rng.codes(1, 20), rng.codes(30, 20), rng.codes(66, 20), rng.codes(90, 20)];
    protein_s.push(rng.mutate(&protein_q[1], 0.15, 20)); // a related subject
    let cases = [
        Scoring::new(Matrix::builtin("BLOSUM50").unwrap(), Gaps::affine(10, 2).unwrap()),
        Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()),
        Scoring::new(Matrix::builtin("PAM30").unwrap(), Gaps::linear(3).unwrap()),
    ];
    let engines: Vec<Engine> = test_devices().iter().map(|d| engine_on(d.info.index)).collect();
    for sc in &cases {
        for variant in Variant::ALL {
            for (tile_residues, window) in [(0, 0), (500, 0), (0, 9)] {
                let opts = PsseOptions {
                    shuffles: 24,
                    seed: 7,
                    window,
                    variant,
                    keep_scores: true,
                    tile_residues,
                    ..PsseOptions::new(sc.clone())
                };
                for engine in &engines {
                    // The one-residue subject gives equal scores: its fit fails.
                    let run = fitted_and_checked(engine, &protein_q, &protein_s, &opts, 8);
                    if tile_residues > 0 {
                        assert!(run.stats.tiles > 1, "tile_residues {tile_residues}: {} tiles", run.stats.tiles);
                    }
                }
            }
        }
    }
}

/// `team` aligns two queries per launch (`scan_team_pairs`) when there are enough of
/// them: nine queries, so the longest is alone in its launch, of lengths that take one
/// pass and several, against subjects of 1 to 640 residues and a related one.
#[test]
fn query_pairs_equal_the_reference() {
    let mut rng = Rng::new(23);
    let cases = [
        (Alphabet::Protein, Scoring::new(Matrix::builtin("BLOSUM80").unwrap(), Gaps::affine(10, 1).unwrap())),
        (Alphabet::Protein, Scoring::new(Matrix::builtin("BLOSUM45").unwrap(), Gaps::linear(4).unwrap())),
        (Alphabet::Dna, Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(16, 4).unwrap())),
    ];
    let engines: Vec<Engine> = test_devices().iter().map(|d| engine_on(d.info.index)).collect();
    for (alphabet, sc) in &cases {
        let letters = alphabet.size();
        let queries: Vec<Vec<u8>> =
            [700, 1, 64, 1001, 2, 333, 65, 200, 500].iter().map(|&m| rng.codes(m, letters)).collect();
        let mut subjects: Vec<Vec<u8>> = [1, 17, 299, 640].iter().map(|&n| rng.codes(n, letters)).collect();
        subjects.push(rng.mutate(&queries[0], 0.2, letters));
        let opts = PsseOptions {
            shuffles: 8,
            seed: 11,
            variant: Variant::Team,
            keep_scores: true,
            ..PsseOptions::new(sc.clone())
        };
        for engine in &engines {
            // The shortest queries' shuffles often score alike.
            fitted_and_checked(engine, &queries, &subjects, &opts, 25);
        }
    }
}

/// More launches on one tile than it keeps the inputs of before a pause to release
/// them (`RETIRE_EVERY`, 64): 130 queries, 65 launches of two.
#[test]
fn query_pairs_across_the_release_pause_equal_the_reference() {
    let mut rng = Rng::new(31);
    let queries: Vec<Vec<u8>> = (0..130).map(|i| rng.codes(64 + i % 2, 20)).collect();
    let subjects = vec![rng.codes(40, 20), rng.codes(80, 20)];
    let opts = PsseOptions { shuffles: 20, seed: 5, keep_scores: true, ..PsseOptions::default() };
    for dev in test_devices() {
        fitted_and_checked(&engine_on(dev.info.index), &queries, &subjects, &opts, 200);
    }
}

#[test]
fn saturated_and_wide_scores_are_exact() {
    let mut rng = Rng::new(17);
    // Two queries, so that team aligns them as a pair: the first saturates, the second not.
    let dna_q = vec![rng.codes(400, 4), rng.codes(120, 4)];
    let dna_s = vec![dna_q[0].clone(), rng.mutate(&dna_q[0], 0.1, 4)];
    // Match 100: the real scores pass 32,767 and saturate 16 bits (recomputed exactly);
    // match 9,000 cannot be held in 16 bits at all (the 32-bit kernel runs).
    for (mat, mis) in [(100, -100), (9000, -9000)] {
        let sc =
            Scoring::new(Matrix::match_mismatch(Alphabet::Dna, mat, mis).unwrap(), Gaps::affine(200, 100).unwrap());
        for variant in Variant::ALL {
            let opts = PsseOptions { shuffles: 12, variant, keep_scores: true, ..PsseOptions::new(sc.clone()) };
            for dev in test_devices() {
                let results = run_ok(&engine_on(dev.info.index), &dna_q, &dna_s, &opts);
                check_against_reference(&results, &dna_q, &dna_s, &opts);
                assert!(results[0].score > 32767);
                if mat == 100 {
                    assert!(results[0].recomputed >= 1, "{variant}: {}", results[0].recomputed);
                }
            }
        }
    }
}

#[test]
fn same_seed_same_results_on_every_device_split_and_the_cpu_path() {
    let q = read_fasta("queries10.fasta", Alphabet::Protein);
    let s = read_fasta("golden_subjects.fasta", Alphabet::Protein);
    let queries: Vec<Vec<u8>> = q.iter().take(3).map(|r| r.residues.clone()).collect();
    let subjects: Vec<Vec<u8>> = s.iter().filter(|r| r.len() < 400).take(6).map(|r| r.residues.clone()).collect();
    let base = PsseOptions { shuffles: 50, keep_scores: true, ..PsseOptions::default() };
    let want = run_ok(&native(), &queries, &subjects, &base);
    let other_seed = run_ok(&native(), &queries, &subjects, &PsseOptions { seed: 43, ..base.clone() });
    for (a, b) in want.iter().zip(&other_seed) {
        assert_eq!(a.score, b.score);
        assert_ne!(a.shuffle_scores, b.shuffle_scores, "seeds 42 and 43 gave the same shuffle scores");
        assert_ne!(a.lambda, b.lambda);
    }
    for dev in test_devices() {
        let i = dev.info.index;
        let engines = [
            engine_on(i),
            Engine::new(vec![DeviceChoice::Index(i), DeviceChoice::Index(i)]).unwrap(),
            Engine::new(vec![DeviceChoice::Index(i), DeviceChoice::Native]).unwrap(),
        ];
        for engine in &engines {
            for variant in Variant::ALL {
                for tile_residues in [0, 3000] {
                    let opts = PsseOptions { variant, tile_residues, ..base.clone() };
                    let got = run_ok(engine, &queries, &subjects, &opts);
                    // PartialEq on every field, the f64s included: bit-identical fits.
                    assert_eq!(got, want, "{} {variant} tile {tile_residues}", engine.describe().join(" + "));
                }
            }
        }
    }
}

/// FNV-1a over every pair's real score and shuffle scores, in pair order.
fn scores_hash(results: &[PsseResult]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for r in results {
        for v in std::iter::once(r.score).chain(r.shuffle_scores.iter().copied()) {
            for b in v.to_le_bytes() {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    h
}

/// The hash run: 4 real queries x 8 real subjects x 200 shuffles, BLOSUM50 10/2, seed 42,
/// windows 0 and 20.
fn hash_run(engine: &Engine, variant: Variant) -> Result<Vec<String>> {
    let q = read_fasta("queries10.fasta", Alphabet::Protein);
    let s = read_fasta("golden_subjects.fasta", Alphabet::Protein);
    let queries: Vec<Vec<u8>> = q.iter().take(4).map(|r| r.residues.clone()).collect();
    let subjects: Vec<Vec<u8>> = s.iter().filter(|r| r.len() <= 500).take(8).map(|r| r.residues.clone()).collect();
    let mut lines = Vec::new();
    for window in [0usize, 20] {
        let opts = PsseOptions { shuffles: 200, window, variant, keep_scores: true, ..PsseOptions::default() };
        let results = run_ok(engine, &queries, &subjects, &opts);
        lines.push(format!("window {window}: {:016x}", scores_hash(&results)));
    }
    Ok(lines)
}

#[test]
fn scores_hash_matches_the_committed_one() {
    let path = data_dir().join("psse/scores_hash.txt");
    let committed: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.trim().to_string())
        .collect();
    let cpu = hash_run(&native(), Variant::Team).unwrap();
    println!("native CPU path: {}", cpu.join(", "));
    if std::env::var("CLSW_WRITE_PSSE_HASH").as_deref() == Ok("1") {
        let text = format!(
            "# FNV-1a hash of every score of tests/psse_device.rs hash_run (native CPU path)\n{}\n",
            cpu.join("\n")
        );
        std::fs::write(&path, text).unwrap();
        return;
    }
    assert_eq!(cpu, committed, "native CPU path vs {}", path.display());
    for dev in test_devices() {
        let engine = engine_on(dev.info.index);
        for variant in Variant::ALL {
            let got = hash_run(&engine, variant).unwrap();
            println!("{} {variant}: {}", dev.info.label(), got.join(", "));
            assert_eq!(got, committed, "{} {variant}", dev.info.label());
        }
    }
}

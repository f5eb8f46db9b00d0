//! Every sw3 kernel (tile, plane, batch) against the reference on every OpenCL device
//! present (PoCL in CI): every length 1..70 in each dimension with the others fixed,
//! random unequal triples up to 300, real proteins, linear (the seed's setting) and
//! affine gaps, tile shapes small enough that every face and corner between tiles is
//! crossed many times, scores past 16 bits, empty sequences.
//!
//! Sizes are chosen to keep the whole file near half a minute on two CPU cores with
//! PoCL (most of it kernel builds and PoCL's per-launch cost).
//! CPU devices build these sweeps' programs unoptimized ([`common::sweep_devices`]).

mod common;

use clsw::device::ClDevice;
use clsw::reference::sw3::sw3_score;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use clsw::sw3::{self, Sw3Score, Tuning, Variant};
use common::{Rng, read_fasta, sweep_devices};

/// Small tiles: 2-cell strips, 2 strips x 4 columns per group, 3 steps per tile.
const SMALL: Tuning = Tuning { ti: 2, ns: 2, tj: 4, tt: 3, groups: 0 };
/// Another odd shape: 4-cell strips, 3 x 5 work-items, 5 steps, 3 groups in batches.
const ODD: Tuning = Tuning { ti: 4, ns: 3, tj: 5, tt: 5, groups: 3 };

/// The seed's setting over an 8-letter SAX-like alphabet (codes 0..7 of the protein
/// table): match 1, mismatch -1, gap 1.
fn seed() -> Scoring {
    Scoring::new(Matrix::match_mismatch(Alphabet::Protein, 1, -1).unwrap(), Gaps::linear(1).unwrap())
}

fn blosum_affine() -> Scoring {
    Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap())
}

fn dna_affine_cheap() -> Scoring {
    Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 5, -4).unwrap(), Gaps::affine(2, 1).unwrap())
}

/// Three related sequences: mutated copies of a common core with random flanks.
fn related(rng: &mut Rng, lens: [usize; 3], letters: usize) -> Vec<Vec<u8>> {
    let core = rng.codes(lens.iter().copied().max().unwrap(), letters);
    lens.iter()
        .map(|&n| {
            let off = rng.below(core.len() - n + 1);
            let mut s = rng.mutate(&core[off..off + n], 0.2, letters);
            s.resize(n, 0);
            for x in s.iter_mut() {
                *x = (*x as usize % letters) as u8;
            }
            s
        })
        .collect()
}

fn check_tile(dev: &ClDevice, seqs: &[Vec<u8>], sc: &Scoring, tuning: &Tuning, want: Sw3Score, what: &str) {
    let got = sw3::score_on(dev, Variant::Tile, &seqs[0], &seqs[1], &seqs[2], sc, tuning).unwrap();
    assert_eq!(
        got.score,
        want,
        "tile {tuning:?}, {what}, lengths {:?} on {}",
        seqs.iter().map(Vec::len).collect::<Vec<_>>(),
        dev.info.label()
    );
}

fn check_plane(dev: &ClDevice, seqs: &[Vec<u8>], sc: &Scoring, want: Sw3Score, what: &str) {
    let got = sw3::score_on(dev, Variant::Plane, &seqs[0], &seqs[1], &seqs[2], sc, &Tuning::LINEAR).unwrap();
    assert_eq!(got.score, want, "plane, {what}, lengths {:?}", seqs.iter().map(Vec::len).collect::<Vec<_>>());
}

/// Runs the batch kernel over `triples` of `seqs` and compares with the reference.
fn check_batch(dev: &ClDevice, seqs: &[Vec<u8>], triples: &[[u32; 3]], sc: &Scoring, tuning: &Tuning, what: &str) {
    let refs: Vec<&[u8]> = seqs.iter().map(|s| s.as_slice()).collect();
    let got = sw3::batch_on(dev, &refs, triples, sc, tuning).unwrap();
    for (t, tri) in triples.iter().enumerate() {
        let want = sw3_score(refs[tri[0] as usize], refs[tri[1] as usize], refs[tri[2] as usize], sc);
        assert_eq!(
            got.scores[t],
            want,
            "batch {tuning:?}, {what}, triple {t} {tri:?} lengths {:?}",
            tri.iter().map(|&s| refs[s as usize].len()).collect::<Vec<_>>()
        );
    }
}

#[test]
fn every_length_1_to_70_in_each_dimension_seed_setting() {
    let sc = seed();
    let mut rng = Rng::new(31);
    for dev in sweep_devices() {
        for dim in 0..3 {
            // One pool per dimension: 70 varying sequences then the two fixed ones.
            let mut pool: Vec<Vec<u8>> = Vec::new();
            let fixed = related(&mut rng, [70, 37, 52], 8);
            for len in 1..=70 {
                pool.push(fixed[0][..len].to_vec());
            }
            pool.push(fixed[1].clone());
            pool.push(fixed[2].clone());
            let triples: Vec<[u32; 3]> = (0..70u32)
                .map(|v| match dim {
                    0 => [v, 70, 71],
                    1 => [70, v, 71],
                    _ => [70, 71, v],
                })
                .collect();
            check_batch(&dev, &pool, &triples, &sc, &Tuning::LINEAR, &format!("seed, dim {dim}"));
            check_batch(&dev, &pool, &triples, &sc, &SMALL, &format!("seed, dim {dim}"));
            for (n, tri) in triples.iter().enumerate() {
                let seqs: Vec<Vec<u8>> = tri.iter().map(|&s| pool[s as usize].clone()).collect();
                let want = sw3_score(&seqs[0], &seqs[1], &seqs[2], &sc);
                check_tile(&dev, &seqs, &sc, &Tuning::LINEAR, want, &format!("seed, dim {dim}"));
                if n % 3 == dim {
                    check_tile(&dev, &seqs, &sc, &SMALL, want, &format!("seed, dim {dim}"));
                }
                if n % 10 == 3 {
                    check_tile(&dev, &seqs, &sc, &ODD, want, &format!("seed, dim {dim}"));
                    check_plane(&dev, &seqs, &sc, want, &format!("seed, dim {dim}"));
                }
            }
        }
    }
}

#[test]
fn every_length_1_to_70_affine() {
    let mut rng = Rng::new(32);
    for dev in sweep_devices() {
        for (name, sc, letters) in [("BLOSUM62 11/1", blosum_affine(), 20), ("dna 5/-4 2/1", dna_affine_cheap(), 4)] {
            let fixed = related(&mut rng, [70, 41, 29], letters);
            let mut pool: Vec<Vec<u8>> = (1..=70).map(|len| fixed[0][..len].to_vec()).collect();
            pool.push(fixed[1].clone());
            pool.push(fixed[2].clone());
            let dim = if letters == 4 { 2 } else { 1 };
            let triples: Vec<[u32; 3]> = (0..70u32).map(|v| if dim == 1 { [70, v, 71] } else { [71, 70, v] }).collect();
            check_batch(&dev, &pool, &triples, &sc, &Tuning::AFFINE, name);
            check_batch(&dev, &pool, &triples, &sc, &SMALL, name);
            for (n, tri) in triples.iter().enumerate() {
                if n % 4 != 1 {
                    continue;
                }
                let seqs: Vec<Vec<u8>> = tri.iter().map(|&s| pool[s as usize].clone()).collect();
                let want = sw3_score(&seqs[0], &seqs[1], &seqs[2], &sc);
                check_tile(&dev, &seqs, &sc, &Tuning::AFFINE, want, name);
                check_tile(&dev, &seqs, &sc, &SMALL, want, name);
                if n % 12 == 1 {
                    check_plane(&dev, &seqs, &sc, want, name);
                }
            }
        }
    }
}

#[test]
fn random_unequal_triples_up_to_200() {
    let mut rng = Rng::new(33);
    let proteins = read_fasta("uniprot300.fasta", Alphabet::Protein);
    let cases: Vec<(Scoring, usize, usize)> = vec![
        (seed(), 8, 200),
        (Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::linear(2).unwrap()), 20, 200),
        (Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 2, -3).unwrap(), Gaps::linear(2).unwrap()), 4, 200),
        (blosum_affine(), 20, 160),
        (dna_affine_cheap(), 4, 160),
    ];
    for dev in sweep_devices() {
        for (ci, (sc, letters, max)) in cases.iter().enumerate() {
            let mut pool: Vec<Vec<u8>> = Vec::new();
            for round in 0..3 {
                let lens: [usize; 3] = std::array::from_fn(|_| 1 + rng.below(*max));
                let seqs = if letters == &20 && round == 0 {
                    // Real proteins: three records cut to the drawn lengths.
                    (0..3)
                        .map(|s| {
                            let p = &proteins[10 * ci + 3 * s + 5].residues;
                            p[..lens[s].min(p.len())].to_vec()
                        })
                        .collect()
                } else {
                    related(&mut rng, lens, *letters)
                };
                let want = sw3_score(&seqs[0], &seqs[1], &seqs[2], sc);
                let tuning = Tuning::default_for(sc);
                check_tile(&dev, &seqs, sc, &tuning, want, &format!("case {ci} round {round}"));
                if round == 1 {
                    check_tile(&dev, &seqs, sc, &ODD, want, &format!("case {ci} round {round}"));
                }
                if round == 2 && *max <= 160 {
                    check_plane(&dev, &seqs, sc, want, &format!("case {ci} round {round}"));
                }
                pool.extend(seqs);
            }
            // Every triple of the pool (including mixed rounds and repeated roles).
            let mut triples = sw3::all_triples(pool.len()).unwrap();
            triples.retain(|t| (t[0] + t[1] + t[2]) % 4 == ci as u32 % 4);
            triples.push([0, 0, 0]);
            triples.push([2, 1, 0]);
            check_batch(&dev, &pool, &triples, sc, &Tuning::default_for(sc), &format!("case {ci}"));
        }
    }
}

#[test]
fn scores_past_16_bits_and_empty_sequences() {
    let mut rng = Rng::new(34);
    let big = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 100, -100).unwrap(), Gaps::linear(50).unwrap());
    let s = rng.codes(130, 4);
    let seqs = vec![s.clone(), s.clone(), s];
    let want = sw3_score(&seqs[0], &seqs[1], &seqs[2], &big);
    assert_eq!(want.score, 3 * 100 * 130);
    let empty_cases: Vec<Vec<Vec<u8>>> =
        vec![vec![vec![], rng.codes(9, 4), rng.codes(5, 4)], vec![rng.codes(9, 4), vec![], vec![]], vec![vec![]; 3]];
    let cheap = dna_affine_cheap();
    for dev in sweep_devices() {
        for tuning in [Tuning::LINEAR, SMALL] {
            check_tile(&dev, &seqs, &big, &tuning, want, "scores past 16 bits");
        }
        check_plane(&dev, &seqs, &big, want, "scores past 16 bits");
        check_batch(&dev, &seqs, &[[0, 1, 2]], &big, &Tuning::LINEAR, "scores past 16 bits");
        for seqs in &empty_cases {
            for sc in [&big, &cheap] {
                let want = sw3_score(&seqs[0], &seqs[1], &seqs[2], sc);
                check_tile(&dev, seqs, sc, &Tuning::default_for(sc), want, "empty sequence");
                check_plane(&dev, seqs, sc, want, "empty sequence");
                check_batch(&dev, seqs, &[[0, 1, 2], [1, 2, 0]], sc, &SMALL, "empty sequence");
            }
        }
    }
}

#[test]
fn bad_tile_shapes_and_inputs_are_errors() {
    let sc = seed();
    for dev in sweep_devices() {
        let a = vec![0u8; 10];
        let odd = Tuning { ti: 3, ..Tuning::LINEAR };
        let msg = sw3::score_on(&dev, Variant::Tile, &a, &a, &a, &sc, &odd).unwrap_err().to_string();
        assert!(msg.contains("TI must be even"), "{msg}");
        let huge = Tuning { tt: 4000, ..Tuning::LINEAR };
        let msg = sw3::score_on(&dev, Variant::Tile, &a, &a, &a, &sc, &huge).unwrap_err().to_string();
        assert!(msg.contains("local memory"), "{msg}");
        let bad = vec![0u8, 30];
        let msg = sw3::score_on(&dev, Variant::Tile, &bad, &a, &a, &sc, &Tuning::LINEAR).unwrap_err().to_string();
        assert!(msg.contains("outside the matrix"), "{msg}");
        let refs: Vec<&[u8]> = vec![&a, &a];
        let msg = sw3::batch_on(&dev, &refs, &[[0, 1, 2]], &sc, &Tuning::LINEAR).unwrap_err().to_string();
        assert!(msg.contains("out of range"), "{msg}");
    }
}

#[test]
fn engine_entry_points_pick_a_kernel_and_trace_back() {
    use clsw::Engine;
    use clsw::device::DeviceChoice;
    let mut rng = Rng::new(35);
    let sc = seed();
    // 60^3 cells go to the batch kernel, 140^3 to the tile kernel (a share this small
    // cannot fill a device with one work-group per triple).
    let small = related(&mut rng, [60, 55, 50], 8);
    let large = related(&mut rng, [140, 130, 120], 8);
    let mut engines = vec![Engine::new(DeviceChoice::Native).unwrap()];
    for dev in sweep_devices() {
        engines.push(Engine::new(DeviceChoice::Index(dev.info.index)).unwrap());
        // The same device opened twice: two workers sharing a batch.
        let twice = [DeviceChoice::Index(dev.info.index), DeviceChoice::Index(dev.info.index)];
        engines.push(Engine::new(twice.to_vec()).unwrap());
    }
    let pool: Vec<Vec<u8>> = (0..7).map(|k| rng.codes(20 + 7 * k, 8)).collect();
    let refs: Vec<&[u8]> = pool.iter().map(|p| p.as_slice()).collect();
    let triples = sw3::all_triples(pool.len()).unwrap();
    for engine in &engines {
        let got = sw3::batch(engine, &refs, &triples, &sc).unwrap();
        for (t, tri) in triples.iter().enumerate() {
            let want = sw3_score(refs[tri[0] as usize], refs[tri[1] as usize], refs[tri[2] as usize], &sc);
            assert_eq!(got[t], want, "{:?}: triple {tri:?}", engine.describe());
        }
    }
    for engine in &engines {
        for seqs in [&small, &large] {
            let want = sw3_score(&seqs[0], &seqs[1], &seqs[2], &sc);
            let got = sw3::score(engine, &seqs[0], &seqs[1], &seqs[2], &sc).unwrap();
            assert_eq!(got, want, "{:?}", engine.describe());
            let aln = sw3::align_on(engine, &seqs[0], &seqs[1], &seqs[2], &sc).unwrap().unwrap();
            assert_eq!((aln.score, Some(aln.end)), (want.score, want.end));
            assert_eq!(aln.rescore([&seqs[0], &seqs[1], &seqs[2]], &sc), Some(want.score as i64));
        }
    }
}

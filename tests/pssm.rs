//! Profile (PSSM) queries: every scan path against the reference with position-specific
//! scores (random profiles whose values cross 8 and 16 bits, PSI-BLAST's own profiles,
//! queries of 1 to 5,000 positions, the three modes), the reference against parasail's
//! PSSM alignment, and `clsw scan --pssm` on the native path and OpenCL.

mod common;

use clsw::reference::{LocalScore, score};
use clsw::scan::native::{Level, Report, scores_at};
use clsw::scan::{Variant, scan_once};
use clsw::scoring::{Gaps, Matrix, Mode, Pssm, Scoring};
use clsw::seq::Alphabet;
use common::{Rng, read_fasta, sweep_devices, test_devices};
use std::process::Command;

fn blosum62(open: i32, extend: i32) -> Scoring {
    Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(open, extend).unwrap())
}

fn real_pssm(name: &str) -> Pssm {
    Pssm::read(&common::data_dir().join("pssm").join(name), &Matrix::builtin("BLOSUM62").unwrap()).unwrap()
}

/// A random profile of `query`: every score from -`high` to `high`, the query residue's
/// own column raised, so related subjects score high.
fn random_pssm(rng: &mut Rng, query: &[u8], high: i32) -> Pssm {
    let letters = Alphabet::Protein.size();
    let mut scores = Vec::with_capacity(query.len() * letters);
    for &q in query {
        for c in 0..letters {
            let v = rng.below(2 * high as usize + 1) as i32 - high;
            scores.push(if c == q as usize { v.abs().max(1) } else { v });
        }
    }
    Pssm::from_table("random", Alphabet::Protein, query.to_vec(), scores).unwrap()
}

/// Every path that takes `sc` against the reference: the native path at every level this
/// processor has (scores and ends, and scores alone), and each variant on `devices` (all
/// four in the local mode; `inter` and `team` in the others).
fn check(devices: &[clsw::device::ClDevice], query: &[u8], subjects: &[Vec<u8>], sc: &Scoring, what: &str) {
    let want: Vec<LocalScore> = subjects.iter().map(|s| score(query, s, sc)).collect();
    for level in Level::ALL.into_iter().filter(|l| l.supported()) {
        let got = scores_at(level, Report::Ends, query, subjects, sc).unwrap();
        let only = scores_at(level, Report::Scores, query, subjects, sc).unwrap();
        for (k, w) in want.iter().enumerate() {
            assert_eq!(&got.scores[k], w, "{what}: native {level}, subject {k}");
            assert_eq!(only.scores[k].score, w.score, "{what}: native {level} scores, subject {k}");
        }
    }
    for dev in devices {
        for variant in Variant::ALL {
            if sc.mode != Mode::Local && matches!(variant, Variant::Plain | Variant::Intra) {
                continue; // local only: they refuse the other modes (tests/scan_modes.rs)
            }
            let got = scan_once(dev, variant, query, subjects, sc).unwrap();
            for (k, w) in want.iter().enumerate() {
                assert_eq!(&got.scores[k], w, "{what}: {variant} on {}, subject {k}", dev.info.label());
            }
        }
    }
}

#[test]
fn the_reference_scores_each_position_with_its_own_row() {
    let code = |b: u8| Alphabet::Protein.exact_code(b).unwrap();
    // Query "AA": position 0 scores W 20, position 1 scores Y 15, everything else -5.
    let mut scores = vec![-5; 2 * 24];
    scores[code(b'W') as usize] = 20;
    scores[24 + code(b'Y') as usize] = 15;
    let query = vec![code(b'A'), code(b'A')];
    let sc = blosum62(11, 1).with_pssm(Pssm::from_table("hand", Alphabet::Protein, query.clone(), scores).unwrap());
    let sc = sc.unwrap();
    let subject = |s: &[u8]| s.iter().map(|&b| code(b)).collect::<Vec<u8>>();
    assert_eq!(score(&query, &subject(b"WY"), &sc), LocalScore { score: 35, end: Some((1, 1)) });
    assert_eq!(score(&query, &subject(b"YW"), &sc), LocalScore { score: 20, end: Some((0, 1)) });
    // A profile made of the matrix's rows scores as the matrix does.
    let mut rng = Rng::new(5);
    let plain = blosum62(11, 1);
    let query = rng.codes(120, 20);
    let rows: Vec<i32> =
        query.iter().flat_map(|&q| (0..24u8).map(move |c| (q, c))).map(|(q, c)| plain.matrix.score(q, c)).collect();
    let same =
        plain.clone().with_pssm(Pssm::from_table("rows", Alphabet::Protein, query.clone(), rows).unwrap()).unwrap();
    for _ in 0..20 {
        let s = rng.mutate(&query, 0.3, 20);
        assert_eq!(score(&query, &s, &same), score(&query, &s, &plain));
    }
    // A profile scores its own query only.
    let subjects = std::slice::from_ref(&query);
    for dev in test_devices() {
        let msg = scan_once(&dev, Variant::Team, &query[1..], subjects, &same).unwrap_err().to_string();
        assert!(msg.contains("is not the query of profile rows"), "{msg}");
    }
    let msg = scores_at(Level::active(), Report::Ends, &query[1..], subjects, &same).unwrap_err().to_string();
    assert!(msg.contains("a profile scores its own query only"), "{msg}");
}

#[test]
fn random_profiles_on_every_path_equal_the_reference() {
    // Values from small to past 16-bit sums (the narrow paths saturate and recompute at
    // 32 bits, or the scoring goes to the 32-bit kernels at once), the three modes.
    let mut rng = Rng::new(41);
    let devices = sweep_devices();
    let highs = [1, 5, 11, 127, 128, 255, 2_000, 8_191, 8_192, 32_767, 40_000];
    for round in 0..14 {
        let high = highs[round % highs.len()];
        let mode = [Mode::Local, Mode::Local, Mode::Global, Mode::Glocal][round % 4];
        let (open, extend) = [(11, 1), (0, 2), (5, 3), (300, 30)][rng.below(4)];
        // Two query lengths: scan_team builds a program per rows-per-work-item.
        let m = [1, 23, 90][round % 3];
        let query = rng.codes(m, 20);
        let pssm = random_pssm(&mut rng, &query, high);
        let sc = blosum62(open, extend).in_mode(mode).with_pssm(pssm).unwrap();
        let subjects: Vec<Vec<u8>> = (0..10)
            .map(|k| match k % 3 {
                0 => rng.mutate(&query, 0.15, 24),
                _ => {
                    let n = rng.below(120);
                    rng.codes(n, 24)
                }
            })
            .collect();
        let what = format!("round {round}: values up to {high}, {mode}, gaps {open}/{extend}, {m} positions");
        check(&devices, &query, &subjects, &sc, &what);
    }
}

#[test]
fn psiblast_profiles_on_every_path_equal_the_reference() {
    // Profiles of 80 and 1,009 positions (one pass of scan_team and several); the
    // longest, 1,491, only against parasail below (on PoCL it took 22 s on 2 cores, and
    // a_profile_of_5000_positions walks more passes).
    let subjects: Vec<Vec<u8>> =
        read_fasta("uniprot300.fasta", Alphabet::Protein).into_iter().map(|s| s.residues).collect();
    let devices = sweep_devices();
    for name in ["queries10_2.pssm", "queries10_8.pssm"] {
        let pssm = real_pssm(name);
        let query = pssm.query().to_vec();
        let sc = blosum62(11, 1).with_pssm(pssm).unwrap();
        check(&devices, &query, &subjects[..24], &sc, name);
    }
}

#[test]
fn a_profile_of_5000_positions() {
    // One profile of 5,000 positions against pieces of its own query (scores past 16
    // bits: recomputed) and random subjects; optimized builds (scan_team walks every
    // slot of its group over the 5,000 rows).
    let mut rng = Rng::new(8);
    let query = rng.codes(5_000, 20);
    let pssm = random_pssm(&mut rng, &query, 12);
    let sc = blosum62(11, 1).with_pssm(pssm).unwrap();
    let subjects: Vec<Vec<u8>> = vec![
        query[4_000..4_900].to_vec(),
        rng.mutate(&query[100..400], 0.2, 20),
        rng.codes(300, 24),
        Vec::new(),
        query[..2_000].to_vec(),
    ];
    check(&test_devices(), &query, &subjects, &sc, "5,000 positions");
}

#[test]
fn psiblast_profiles_score_as_parasail_aligns_them() {
    // tests/data/parasail_pssm.tsv: parasail 1.3.4's `sw` with the same profiles
    // (`parasail_matrix_pssm_create`), 1,002 pairs; the reference and the native path.
    let subjects: Vec<Vec<u8>> =
        read_fasta("uniprot2k.fasta.gz", Alphabet::Protein).into_iter().map(|s| s.residues).collect();
    let text = std::fs::read_to_string(common::data_dir().join("parasail_pssm.tsv")).unwrap();
    let mut by_profile: Vec<(String, Vec<(usize, i32)>)> = Vec::new();
    let mut rows = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!((f[2], f[3]), ("11", "1"), "{line}");
        let (subject, want) = (f[1].parse::<usize>().unwrap(), f[4].parse::<i32>().unwrap());
        match by_profile.last_mut() {
            Some((name, pairs)) if name == f[0] => pairs.push((subject, want)),
            _ => by_profile.push((f[0].to_string(), vec![(subject, want)])),
        }
        rows += 1;
    }
    assert!(rows >= 1_000, "{rows} pairs");
    for (name, pairs) in by_profile {
        let pssm = real_pssm(&name);
        let query = pssm.query().to_vec();
        let sc = blosum62(11, 1).with_pssm(pssm).unwrap();
        let picked: Vec<&[u8]> = pairs.iter().map(|&(k, _)| subjects[k].as_slice()).collect();
        let native = clsw::scan::native::scores(&query, &picked, &sc, Report::Ends).unwrap();
        for (p, &(k, want)) in pairs.iter().enumerate() {
            assert_eq!(score(&query, &subjects[k], &sc).score, want, "{name} against record {k}");
            assert_eq!(native.scores[p].score, want, "{name} against record {k}, native");
        }
    }
}

fn clsw(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_clsw")).args(args).output().unwrap()
}

#[test]
fn scan_with_a_pssm_on_the_native_path_and_opencl() {
    let data = common::data_dir();
    let pssm = data.join("pssm/queries10_8.pssm");
    let db = data.join("uniprot2k.fasta.gz");
    let args = |device: &str| {
        let mut a: Vec<String> =
            ["scan", "--pssm", pssm.to_str().unwrap(), "-d", db.to_str().unwrap()].map(String::from).to_vec();
        a.extend(["--device", device, "--outfmt", "tabular-ext", "--max-hits", "40"].map(String::from));
        a
    };
    let run = |device: &str| {
        let a = args(device);
        let out = clsw(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(out.status.success(), "{device}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let native = run("native");
    let text = String::from_utf8(native.clone()).unwrap();
    let hits: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(hits.len(), 40, "{text}");
    assert!(hits.iter().all(|l| l.starts_with("queries10_8\t")), "the query is named after the file");
    for (index, _) in test_devices().iter().enumerate() {
        assert!(run(&index.to_string()) == native, "OpenCL device {index} and the native path differ");
    }
    // Errors: a query beside the profile, a broken file (line and column), DNA.
    let both = clsw(&["scan", "--pssm", pssm.to_str().unwrap(), "-q", "x.fasta", "-d", db.to_str().unwrap()]);
    assert_eq!(both.status.code(), Some(2), "clap refuses --query with --pssm");
    let dir = std::env::temp_dir().join(format!("clsw-pssm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.pssm");
    let text = std::fs::read_to_string(&pssm).unwrap().replacen("    3 ", "    4 ", 1);
    std::fs::write(&bad, text).unwrap();
    let out = clsw(&["scan", "--pssm", bad.to_str().unwrap(), "-d", db.to_str().unwrap(), "--device", "native"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() == Some(1) && err.contains("line 6, column 5: position 4 where 3 was due"), "{err}");
    let dna = data.join("dna_pairs.fasta");
    let out = clsw(&["scan", "--pssm", pssm.to_str().unwrap(), "-d", dna.to_str().unwrap(), "--device", "native"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() == Some(1) && err.contains("a PSSM scores proteins"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn profile_alignments_are_the_references() {
    // The aligners a search and `clsw align` run (from a hit's end, and the checkpointed
    // pairwise one) give the reference's alignment, which rescores to the profile's score.
    let subjects: Vec<Vec<u8>> =
        read_fasta("uniprot2k.fasta.gz", Alphabet::Protein).into_iter().map(|s| s.residues).take(40).collect();
    for name in ["queries10_2.pssm", "queries10_8.pssm"] {
        let pssm = real_pssm(name);
        let query = pssm.query().to_vec();
        let sc = blosum62(11, 1).with_pssm(pssm).unwrap();
        for (k, a) in traced_from_ends(&query, &subjects, &sc, name) {
            assert_eq!(a.rescore(&query, &subjects[k], &sc), score(&query, &subjects[k], &sc).score as i64, "{name}");
            assert_eq!(clsw::traceback::align(&query, &subjects[k], &sc).as_ref(), Some(&a), "{name}: checkpointed");
        }
    }
    // `clsw align --pssm`: the profile's query against each record, its scores.
    let data = common::data_dir();
    let pssm = data.join("pssm/queries10_2.pssm");
    let dir = std::env::temp_dir().join(format!("clsw-pssm-align-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let three = dir.join("three.fasta");
    let records = read_fasta("uniprot300.fasta", Alphabet::Protein);
    let text: String = records[..3]
        .iter()
        .map(|r| format!(">{}\n{}\n", r.id, String::from_utf8(Alphabet::Protein.decode_all(&r.residues)).unwrap()))
        .collect();
    std::fs::write(&three, text).unwrap();
    let out = clsw(&["align", "--pssm", pssm.to_str().unwrap(), three.to_str().unwrap(), "--outfmt", "tabular"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sc = blosum62(11, 1).with_pssm(real_pssm("queries10_2.pssm")).unwrap();
    let query = real_pssm("queries10_2.pssm").query().to_vec();
    let lines: Vec<String> =
        String::from_utf8(out.stdout).unwrap().lines().filter(|l| !l.starts_with('#')).map(String::from).collect();
    assert_eq!(lines.len(), 3);
    for (line, r) in lines.iter().zip(&records) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!((f[0], f[1]), ("queries10_2", r.id.as_str()));
        assert_eq!(f[10].parse::<i32>().unwrap(), score(&query, &r.residues, &sc).score, "{line}");
    }
    let out = clsw(&["align", "--pssm", pssm.to_str().unwrap(), three.to_str().unwrap(), three.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "a second file with --pssm is refused");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_psiblast_checkpoint_gives_the_ascii_pssms_scores_and_its_own_for_the_other_letters() {
    // queries10_2.asn (`psiblast -out_pssm`) and queries10_2.pssm (`-out_ascii_pssm`)
    // of the same run: the same query and 20 columns; the checkpoint's B, Z, X and *
    // are PSI-BLAST's own.
    let matrix = Matrix::builtin("BLOSUM62").unwrap();
    let dir = common::data_dir().join("pssm");
    let asn = Pssm::read(&dir.join("queries10_2.asn"), &matrix).unwrap();
    let ascii = Pssm::read(&dir.join("queries10_2.pssm"), &matrix).unwrap();
    assert_eq!(asn.query(), ascii.query());
    assert_eq!(asn.len(), 80);
    for i in 0..asn.len() {
        assert_eq!(asn.row(i)[..20], ascii.row(i)[..20], "position {}", i + 1);
    }
    let star = Alphabet::Protein.exact_code(b'*').unwrap() as usize;
    assert!((0..asn.len()).all(|i| asn.row(i)[star] == -4), "PSI-BLAST scores * -4 at every position");
    // Its search: the same scores as the ASCII profile wherever no B, Z, X or * is met.
    let subjects: Vec<Vec<u8>> = read_fasta("uniprot300.fasta", Alphabet::Protein)
        .into_iter()
        .map(|s| s.residues)
        .filter(|s| s.iter().all(|&c| c < 20))
        .take(40)
        .collect();
    let (a, b) = (blosum62(11, 1).with_pssm(asn).unwrap(), blosum62(11, 1).with_pssm(ascii.clone()).unwrap());
    let query = ascii.query().to_vec();
    check(&sweep_devices(), &query, &subjects, &a, "the checkpoint");
    for s in &subjects {
        assert_eq!(score(&query, s, &a), score(&query, s, &b));
    }
    // Errors name the file and line.
    let text = std::fs::read_to_string(dir.join("queries10_2.asn")).unwrap();
    let cut = text.replace("finalData", "finalDatum");
    let msg = Pssm::parse_checkpoint("t.asn", &cut, &matrix).unwrap_err().to_string();
    assert!(msg.contains("PSSM t.asn, line") && msg.contains("no finalData"), "{msg}");
    let bad = text.replacen("        -1,\n", "        -1x,\n", 1);
    let msg = Pssm::parse_checkpoint("t.asn", &bad, &matrix).unwrap_err().to_string();
    assert!(msg.contains("'-1x' is not an integer score"), "{msg}");
}

#[test]
fn profile_hits_traced_from_their_end_cells_are_the_references() {
    // The aligners from a hit's end: the reversed prefix's reach, then SIMD batches of
    // rectangles or a band of diagonals. Random profiles of small values, subjects that
    // hold pieces of the query (mutated, repeated: ties), near-identical copies (bands)
    // and random sequences.
    let mut rng = Rng::new(23);
    for round in 0..6 {
        let m = [60, 300, 900][round % 3];
        let query = rng.codes(m, 20);
        let pssm = random_pssm(&mut rng, &query, 6);
        let sc = blosum62([11, 3][round % 2], 1).with_pssm(pssm).unwrap();
        let subjects: Vec<Vec<u8>> = (0..48)
            .map(|k| {
                let a = rng.below(m);
                let b = (a + 1 + rng.below(m - a)).min(m);
                let piece = match k % 4 {
                    0 => query[a..b].to_vec(),
                    1 => rng.mutate(&query[a..b], 0.2, 20),
                    2 => query[a..b].repeat(2),
                    _ => {
                        let n = 1 + rng.below(400);
                        rng.codes(n, 24)
                    }
                };
                let (before, after) = (rng.below(100), rng.below(100));
                let mut s = rng.codes(before, 20);
                s.extend(piece);
                s.extend(rng.codes(after, 20));
                s
            })
            .collect();
        traced_from_ends(&query, &subjects, &sc, &format!("round {round}"));
    }
}

/// Every subject's best alignment traced from its end cell (`align_from_ends`, what a
/// search runs), checked equal to the reference's; (subject index, alignment) of those
/// with a positive score.
fn traced_from_ends(
    query: &[u8],
    subjects: &[Vec<u8>],
    sc: &Scoring,
    what: &str,
) -> Vec<(usize, clsw::align::Alignment)> {
    let ends: Vec<(usize, LocalScore)> =
        subjects.iter().enumerate().map(|(k, s)| (k, score(query, s, sc))).filter(|(_, e)| e.end.is_some()).collect();
    let hits: Vec<clsw::traceback::HitEnd<'_>> = ends
        .iter()
        .map(|&(k, e)| clsw::traceback::HitEnd { subject: &subjects[k], end: e.end.unwrap(), score: e.score })
        .collect();
    let traced = clsw::traceback::align_from_ends(query, &hits, sc).unwrap();
    ends.iter()
        .zip(traced)
        .map(|(&(k, e), got)| {
            let want = clsw::reference::align_ending_at(query, &subjects[k], sc, e.end.unwrap());
            assert_eq!(got, want, "{what}: subject {k} from its end cell");
            (k, want.expect("a positive score has an alignment"))
        })
        .collect()
}

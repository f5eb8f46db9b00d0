//! Distance matrices: every path (CPU, bitplane and charpacked kernels, blocked and
//! split over devices) against the plain reference on random inputs; snp-dists
//! semantics on a hand-made alignment; PLINK 1.9's own output on generated genotypes;
//! readers, writers and their errors.
//! CPU devices build these sweeps' programs unoptimized ([`common::sweep_devices`]).

mod common;

use clsw::device::ClDevice;
use clsw::distance::input::{AlignmentReader, read_alignment, read_alignment_from, read_bed, read_genotype_table};
use clsw::distance::output::{format_g, write_binary, write_long, write_plink, write_square};
use clsw::distance::{
    Coding, DistanceMatrix, Metric, Options, SiteFilter, Tuning, Variant, compute_on, generate, pack_alignment,
    pack_genotype_matrix, reference,
};
use common::{Rng, data_dir, sweep_devices};
use std::path::{Path, PathBuf};

const CODINGS: [Coding; 4] = [
    Coding::Nucleotide { count_gaps: false, count_n: false },
    Coding::Nucleotide { count_gaps: true, count_n: false },
    Coding::Nucleotide { count_gaps: false, count_n: true },
    Coding::Nucleotide { count_gaps: true, count_n: true },
];

fn dist_dir() -> PathBuf {
    data_dir().join("distance")
}

/// A scratch folder of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("clsw-dist-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Random aligned sequences: a base sequence, copies with substitutions, every kind of
/// letter the semantics distinguish (both cases, N, IUPAC, ?, gaps), some columns all N
/// or all gap, and some sequences entirely missing.
fn random_alignment(rng: &mut Rng, n: usize, len: usize) -> Vec<Vec<u8>> {
    const BASES: &[u8] = b"ACGT";
    const OTHER: &[u8] = b"acgtNnRYK?-.-";
    let base: Vec<u8> = (0..len).map(|_| BASES[rng.below(4)]).collect();
    let rate = [2, 20, 200][rng.below(3)];
    let all_n = rng.below(len.max(1));
    (0..n)
        .map(|s| {
            if n > 3 && s == n / 2 && rng.below(2) == 0 {
                return vec![b'N'; len];
            }
            base.iter()
                .enumerate()
                .map(|(k, &b)| {
                    if k == all_n && len > 5 {
                        return b'-';
                    }
                    match rng.below(1000) {
                        x if x < rate => BASES[rng.below(4)],
                        x if x < rate + 60 => OTHER[rng.below(OTHER.len())],
                        _ => b,
                    }
                })
                .collect()
        })
        .collect()
}

fn random_genotypes(rng: &mut Rng, n: usize, sites: usize) -> Vec<i8> {
    let missing = [0.0, 0.05, 0.3][rng.below(3)];
    generate::genotypes(n, sites, missing, 0.2, rng.next())
}

fn opts(variant: Variant, want_compared: bool, ignore_constant: bool) -> Options {
    Options { variant, want_compared, ignore_constant, ..Options::default() }
}

/// Checks the requested counters of `got` against the reference `want`.
fn assert_same(got: &DistanceMatrix, want: &DistanceMatrix, compared: bool, what: &str) {
    assert_eq!(got.n, want.n, "{what}: n");
    assert_eq!(got.sites, want.sites, "{what}: sites");
    assert_eq!(got.considered_sites, want.considered_sites, "{what}: considered sites");
    if let Some(k) = (0..got.pairs()).find(|&k| got.differences[k] != want.differences[k]) {
        panic!("{what}: differences of pair {k}: got {}, want {}", got.differences[k], want.differences[k]);
    }
    if compared {
        assert_eq!(got.compared, want.compared, "{what}: compared");
        if want.genotype {
            assert_eq!(got.opposite_homozygotes, want.opposite_homozygotes, "{what}: opposite homozygotes");
        }
    } else {
        assert!(got.compared.is_none(), "{what}: compared counts were not asked for");
    }
}

/// Runs every (coding, compared, ignore-constant) case of random alignments through one
/// path and compares it with the reference.
fn check_alignments(devices: &[&ClDevice], variant: Variant, shapes: &[(usize, usize)], codings: &[Coding], seed: u64) {
    let mut rng = Rng::new(seed);
    for &(n, len) in shapes {
        let seqs = random_alignment(&mut rng, n, len);
        for &coding in codings {
            let packed = pack_alignment(&seqs, coding).unwrap();
            for (compared, ignore) in [(false, false), (true, false), (true, true)] {
                let want = reference::alignment(&seqs, coding, ignore);
                let (got, _) = compute_on(devices, &packed, &opts(variant, compared, ignore)).unwrap();
                assert_same(&got, &want, compared, &format!("{variant} {n}x{len} {coding:?} ignore={ignore}"));
            }
        }
    }
}

fn check_genotypes(devices: &[&ClDevice], variant: Variant, shapes: &[(usize, usize)], seed: u64) {
    let mut rng = Rng::new(seed);
    for &(n, sites) in shapes {
        let g = random_genotypes(&mut rng, n, sites);
        let rows: Vec<&[i8]> = g.chunks(sites).collect();
        let packed = pack_genotype_matrix(&g, n).unwrap();
        for (compared, ignore) in [(false, false), (true, false), (true, true)] {
            let want = reference::genotypes(&rows, ignore);
            let (got, _) = compute_on(devices, &packed, &opts(variant, compared, ignore)).unwrap();
            assert_same(&got, &want, compared, &format!("{variant} genotypes {n}x{sites} ignore={ignore}"));
        }
    }
}

/// Lengths around word sizes (31/32/33, 63/64/65, 1,023/1,025) and sample counts around
/// the tile (64).
const SHAPES: [(usize, usize); 9] =
    [(1, 10), (2, 1), (3, 31), (5, 32), (4, 33), (17, 63), (9, 65), (66, 130), (20, 1025)];

#[test]
fn cpu_path_equals_reference() {
    check_alignments(&[], Variant::Cpu, &SHAPES, &CODINGS, 1);
    check_genotypes(&[], Variant::Cpu, &[(2, 1), (3, 64), (9, 65), (40, 300), (70, 2000)], 2);
}

#[test]
fn site_filter_off_gives_the_same_counts() {
    let mut rng = Rng::new(3);
    let seqs = random_alignment(&mut rng, 30, 3000);
    let packed = pack_alignment(&seqs, CODINGS[0]).unwrap();
    for compared in [false, true] {
        let auto = compute_on(&[], &packed, &opts(Variant::Cpu, compared, false)).unwrap();
        let off = Options { site_filter: SiteFilter::Off, ..opts(Variant::Cpu, compared, false) };
        let off = compute_on(&[], &packed, &off).unwrap();
        assert_eq!(auto.0.differences, off.0.differences);
        assert_eq!(auto.0.compared, off.0.compared);
        assert!(auto.1.kept_sites < off.1.kept_sites, "the filter dropped nothing");
        assert_eq!(off.1.kept_sites, 3000);
    }
}

#[test]
fn bitplane_kernel_equals_reference() {
    for dev in sweep_devices() {
        let d = [&dev];
        check_alignments(&d, Variant::Bitplane, &[(3, 31), (66, 130), (70, 2100)], &CODINGS, 4);
        check_alignments(&d, Variant::Bitplane, &[(1, 5), (2, 64), (65, 65), (129, 1025)], &CODINGS[..1], 5);
        check_genotypes(&d, Variant::Bitplane, &[(2, 33), (70, 700)], 6);
    }
}

#[test]
fn charpacked_kernel_equals_reference() {
    for dev in sweep_devices() {
        let d = [&dev];
        check_alignments(&d, Variant::Charpacked, &[(3, 31), (35, 1025)], &CODINGS[..2], 7);
        check_genotypes(&d, Variant::Charpacked, &[(2, 33), (40, 700)], 8);
    }
}

/// Blocks of samples, chunks of sites, several launches per chunk, a small tile, and two
/// devices (the same one opened twice) sharing the work.
#[test]
fn blocked_and_split_over_devices_equals_reference() {
    for dev in sweep_devices() {
        let second = ClDevice::new(dev.info.clone()).unwrap();
        let mut rng = Rng::new(9);
        let seqs = random_alignment(&mut rng, 75, 5000);
        let g = random_genotypes(&mut rng, 50, 2500);
        let rows: Vec<&[i8]> = g.chunks(2500).collect();
        let small = Tuning {
            rt: 2,
            wg: 8,
            kw: 4,
            max_block_samples: Some(20),
            max_chunk_sites: Some(1024),
            launch_pair_words: 2048,
            cp_threads: 32,
            ..Tuning::default()
        };
        for devices in [vec![&dev], vec![&dev, &second]] {
            for variant in [Variant::Bitplane, Variant::Charpacked] {
                for coding in [CODINGS[0], CODINGS[3]] {
                    let packed = pack_alignment(&seqs, coding).unwrap();
                    let want = reference::alignment(&seqs, coding, false);
                    for filter in [SiteFilter::Auto, SiteFilter::Off] {
                        let o = Options { tuning: small, site_filter: filter, ..opts(variant, true, false) };
                        let (got, stats) = compute_on(&devices, &packed, &o).unwrap();
                        let what =
                            format!("{variant} {coding:?} {filter:?} on {} device(s): {}", devices.len(), stats.plan);
                        assert_same(&got, &want, true, &what);
                    }
                }
                let packed = pack_genotype_matrix(&g, 50).unwrap();
                let o = Options { tuning: small, site_filter: SiteFilter::Off, ..opts(variant, true, false) };
                let (got, _) = compute_on(&devices, &packed, &o).unwrap();
                assert_same(&got, &reference::genotypes(&rows, false), true, &format!("{variant} genotypes blocked"));
            }
        }
        // Few samples, many sites: several work-groups share each tile pair, each over a
        // slice of the words, and add atomically.
        let few = random_alignment(&mut rng, 5, 40_000);
        let packed = pack_alignment(&few, CODINGS[0]).unwrap();
        for compared in [false, true] {
            let o = Options { site_filter: SiteFilter::Off, ..opts(Variant::Bitplane, compared, false) };
            let (got, _) = compute_on(&[&dev], &packed, &o).unwrap();
            assert_same(&got, &reference::alignment(&few, CODINGS[0], false), compared, "split tile pairs");
        }
        // A block of the default tile over several chunks of sites.
        let packed = pack_alignment(&seqs, CODINGS[1]).unwrap();
        let o = Options {
            tuning: Tuning { max_chunk_sites: Some(2048), ..Tuning::default() },
            site_filter: SiteFilter::Off,
            ..opts(Variant::Bitplane, false, false)
        };
        let (got, _) = compute_on(&[&dev], &packed, &o).unwrap();
        assert_same(&got, &reference::alignment(&seqs, CODINGS[1], false), false, "default tile, chunks");
    }
}

/// The hand-made alignment (tests/data/distance/hand.fa), answers worked out by hand:
///
/// ```text
///      1 2 3 4 5 6 7 8 9 10 11 12
/// s1   A C G T A C G T A C  G  T
/// s2   A C G T A C G T A A  G  T
/// s3   A C G - N C G T R C  G  T
/// s4   a c g t a c g t t c  g  A
/// s5   A C - T A C ? T A C  -  T
/// ```
#[test]
fn snp_dists_semantics_on_a_hand_made_alignment() {
    let data = read_alignment(&dist_dir().join("hand.fa"), Coding::SNP).unwrap();
    let names: Vec<&str> = data.names.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(names, ["s1", "s2", "s3", "s4", "s5"]);
    // Upper triangles: (1,2) (1,3) (1,4) (1,5) (2,3) (2,4) (2,5) (3,4) (3,5) (4,5).
    let cases: [(Coding, [u32; 10]); 4] = [
        (CODINGS[0], [1, 0, 2, 0, 1, 3, 1, 1, 0, 2]),
        (CODINGS[1], [1, 1, 2, 2, 2, 3, 3, 2, 3, 4]),
        (CODINGS[2], [1, 2, 2, 1, 3, 3, 2, 3, 3, 3]),
        (CODINGS[3], [1, 3, 2, 3, 4, 3, 4, 4, 6, 5]),
    ];
    let seqs: Vec<Vec<u8>> = std::fs::read_to_string(dist_dir().join("hand.fa"))
        .unwrap()
        .split('>')
        .skip(1)
        .map(|r| r.lines().skip(1).collect::<String>().into_bytes())
        .collect();
    let devices = sweep_devices();
    for (coding, want) in cases {
        let packed = read_alignment(&dist_dir().join("hand.fa"), coding).unwrap().packed;
        assert_eq!(reference::alignment(&seqs, coding, false).differences, want, "reference {coding:?}");
        let (cpu, _) = compute_on(&[], &packed, &opts(Variant::Cpu, true, false)).unwrap();
        assert_eq!(cpu.differences, want, "cpu {coding:?}");
        for dev in &devices {
            for v in [Variant::Bitplane, Variant::Charpacked] {
                assert_eq!(compute_on(&[dev], &packed, &opts(v, false, false)).unwrap().0.differences, want, "{v}");
            }
        }
    }
    // Compared sites, default coding: s3 lacks 4, 5, 9; s5 lacks 3, 7, 11.
    let (dm, _) = compute_on(&[], &data.packed, &opts(Variant::Cpu, true, false)).unwrap();
    assert_eq!(dm.compared.as_deref(), Some(&[12, 9, 12, 9, 9, 12, 9, 9, 6, 9][..]));
    // Ignoring constant sites leaves 9, 10 and 12 (only there do two bases occur).
    let (dm, _) = compute_on(&[], &data.packed, &opts(Variant::Cpu, true, true)).unwrap();
    assert_eq!(dm.differences, [1, 0, 2, 0, 1, 3, 1, 1, 0, 2]);
    assert_eq!(dm.compared.as_deref(), Some(&[3, 2, 3, 3, 2, 3, 3, 2, 2, 3][..]));
    assert_eq!(dm.considered_sites, 3);
    // The square format, snp-dists' layout.
    let (dm, _) = compute_on(&[], &data.packed, &opts(Variant::Cpu, false, false)).unwrap();
    let mut out = Vec::new();
    write_square(&mut out, &data.names, &dm, Metric::Differences, "snp-dists 0.8.2", '\t').unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "snp-dists 0.8.2\ts1\ts2\ts3\ts4\ts5\n\
         s1\t0\t1\t0\t2\t0\n\
         s2\t1\t0\t1\t3\t1\n\
         s3\t0\t1\t0\t1\t0\n\
         s4\t2\t3\t1\t0\t2\n\
         s5\t0\t1\t0\t2\t0\n"
    );
    let mut out = Vec::new();
    write_long(&mut out, &data.names, &dm, Metric::Differences, false, ',').unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().count(), 25);
    assert!(text.starts_with("s1,s1,0\ns1,s2,1\ns1,s3,0\n"), "{text}");
    assert!(text.contains("\ns4,s2,3\n"), "{text}");
}

fn read_matrix(path: &PathBuf) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Our PLINK-format files equal plink1.9's (tests/data/distance/make_plink.py), text
/// for text: `a` has missing calls (compared with `--distance ... flat-missing`), `b` has
/// none (compared with plink's default weighting, which then agrees).
#[test]
fn equals_plink_1_9_distance() {
    let devices = sweep_devices();
    let out = scratch("plink");
    for (set, golden) in [("a", "a_flat"), ("b", "b")] {
        let data = read_bed(&dist_dir().join(set)).unwrap();
        let mut paths: Vec<Vec<&ClDevice>> = vec![vec![]];
        paths.extend(devices.iter().map(|d| vec![d]));
        for devs in paths {
            for variant in [Variant::Bitplane, Variant::Charpacked] {
                if devs.is_empty() && variant == Variant::Charpacked {
                    continue;
                }
                let (dm, _) = compute_on(&devs, &data.packed, &opts(variant, true, false)).unwrap();
                for (metric, ext) in
                    [(Metric::AlleleCount, "dist"), (Metric::Ibs, "mibs"), (Metric::OneMinusIbs, "mdist")]
                {
                    let prefix = out.join(format!("{set}-{variant}-{}", devs.len()));
                    let written = write_plink(&prefix, &data.names, &dm, metric).unwrap();
                    // Byte for byte: the same values, written the way PLINK writes them.
                    let ours = std::fs::read_to_string(&written[0]).unwrap();
                    let theirs = std::fs::read_to_string(dist_dir().join(format!("{golden}.{ext}"))).unwrap();
                    if ours != theirs {
                        let (a, b) =
                            (read_matrix(&written[0]), read_matrix(&dist_dir().join(format!("{golden}.{ext}"))));
                        let diff = a.iter().flatten().zip(b.iter().flatten()).find(|(x, y)| x != y);
                        panic!(
                            "{set} {ext} ({variant}, {} device(s)): first difference ours/plink {diff:?}",
                            devs.len()
                        );
                    }
                    assert_eq!(
                        std::fs::read_to_string(&written[1]).unwrap(),
                        std::fs::read_to_string(dist_dir().join(format!("{golden}.{ext}.id"))).unwrap()
                    );
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn genotype_table_reads_like_the_bed() {
    let bed = read_bed(&dist_dir().join("a")).unwrap();
    let tsv = read_genotype_table(&dist_dir().join("a.tsv")).unwrap();
    assert_eq!(
        tsv.names.iter().map(|n| &n.id).collect::<Vec<_>>(),
        bed.names.iter().map(|n| &n.id).collect::<Vec<_>>()
    );
    let o = opts(Variant::Cpu, true, false);
    let (x, _) = compute_on(&[], &bed.packed, &o).unwrap();
    let (y, _) = compute_on(&[], &tsv.packed, &o).unwrap();
    // The bed's alleles may be swapped (0 <-> 2): distances are the same.
    assert_eq!(x.differences, y.differences);
    assert_eq!(x.compared, y.compared);
    assert_eq!(x.opposite_homozygotes, y.opposite_homozygotes);
}

#[test]
fn tables_without_a_header_name_their_samples_first() {
    let dir = scratch("tsv");
    let p = dir.join("g.tsv");
    std::fs::write(&p, "# comment\nx 0 1 2 -1\ny 2 2 . 0\n\nz 1 NA 0 N\n").unwrap();
    let d = read_genotype_table(&p).unwrap();
    assert_eq!(d.names.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(), ["x", "y", "z"]);
    let (dm, _) = compute_on(&[], &d.packed, &opts(Variant::Cpu, true, false)).unwrap();
    let want = reference::genotypes(&[vec![0i8, 1, 2, -1], vec![2, 2, -1, 0], vec![1, -1, 0, -1]], false);
    assert_same(&dm, &want, true, "table");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn empty_tab_fields_are_missing_calls_and_a_byte_order_mark_is_no_name() {
    // `A<TAB>0<TAB><TAB>2<TAB>1` once lost its empty field and shifted the later
    // columns left (A-B 4 where NA in its place gives 6); a UTF-8 BOM stayed in the
    // first sample's name.
    let dir = scratch("tsv-empty");
    let (tabs, nas) = (dir.join("tabs.tsv"), dir.join("nas.tsv"));
    std::fs::write(&tabs, "\u{feff}A\t0\t\t2\t1\nB\t2\t0\t0\t\n").unwrap();
    std::fs::write(&nas, "A 0 NA 2 1\nB 2 0 0 NA\n").unwrap();
    let (t, n) = (read_genotype_table(&tabs).unwrap(), read_genotype_table(&nas).unwrap());
    assert_eq!(t.names.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["A", "B"]);
    let (dt, _) = compute_on(&[], &t.packed, &opts(Variant::Cpu, true, false)).unwrap();
    let (dn, _) = compute_on(&[], &n.packed, &opts(Variant::Cpu, true, false)).unwrap();
    let want = reference::genotypes(&[vec![0i8, -1, 2, 1], vec![2, 0, 0, -1]], false);
    assert_same(&dt, &want, true, "tabs");
    assert_same(&dn, &want, true, "NA");
    std::fs::write(&tabs, "A\t0\n\t2\n").unwrap();
    let err = read_genotype_table(&tabs).unwrap_err().to_string();
    assert!(err.contains("line 2: the sample's name (the first field) is empty"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn genotype_tables_are_never_guessed_at() {
    let dir = scratch("tsv-rules");
    let t = dir.join("g.tsv");
    let read = |text: &str| {
        std::fs::write(&t, text).unwrap();
        read_genotype_table(&t).map(|d| d.names.into_iter().map(|n| n.id).collect::<Vec<_>>())
    };
    // A typo in the first sample is an error naming line, column and value, not a header.
    let err = read("s1\t0\t1\t3\ns2\t0\t1\t2\n").unwrap_err().to_string();
    assert!(err.contains("g.tsv: line 1") && err.contains("column 4") && err.contains("'3'"), "{err}");
    let err = read("s1 3\ns2 2\n").unwrap_err().to_string();
    assert!(err.contains("line 1") && err.contains("column 2") && err.contains("'3'"), "{err}");
    // A header: no genotype value and no number after its first field.
    assert_eq!(read("sample snp1 snp2\ns1 0 1\ns2 2 2\n").unwrap(), ["s1", "s2"]);
    // With a header, names made of 0/1/2 are names, not a site.
    assert_eq!(read("id a b\n0 0 1\n1 2 2\n2 1 1\n").unwrap(), ["0", "1", "2"]);
    // Without one, a table whose names are all genotype values has no names: refused.
    let err = read("0 0 1\n1 2 2\n").unwrap_err().to_string();
    assert!(err.contains("g.tsv") && err.contains("first column") && err.contains("header"), "{err}");
    // Sample lines must match the header.
    let err = read("sample snp1 snp2\ns1 0 1 2\n").unwrap_err().to_string();
    assert!(err.contains("line 2") && err.contains("4 fields") && err.contains("header (line 1) has 3"), "{err}");
    // A header with numbers for site names is a line of bad genotypes (comment it out).
    let err = read("sample 1000 2000\ns1 0 1\n").unwrap_err().to_string();
    assert!(err.contains("line 1") && err.contains("'1000'"), "{err}");
    assert_eq!(read("# sample 1000 2000\ns1 0 1\n").unwrap(), ["s1"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn binary_output_round_trips() {
    let data = read_alignment(&dist_dir().join("hand.fa"), Coding::SNP).unwrap();
    let (dm, _) = compute_on(&[], &data.packed, &opts(Variant::Cpu, true, false)).unwrap();
    let dir = scratch("bin");
    let files = write_binary(&dir.join("m"), &data.names, &dm, Metric::Differences, true).unwrap();
    let names: Vec<String> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["m.u32", "m.compared.u32", "m.ids"]);
    let bytes = std::fs::read(&files[0]).unwrap();
    let m: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(m, dm.square().unwrap());
    assert_eq!(m[5 + 3], 3); // s2 vs s4
    assert_eq!(std::fs::read_to_string(&files[2]).unwrap(), "s1\ns2\ns3\ns4\ns5\n");
    let f = write_binary(&dir.join("i"), &data.names, &dm, Metric::Ibs, false).unwrap();
    let v: Vec<f64> =
        std::fs::read(&f[0]).unwrap().chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(v.len(), 25);
    assert_eq!(v[0], 1.0);
    assert!((v[1] - (1.0 - 1.0 / 12.0)).abs() < 1e-12);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ragged_alignment_names_the_sequence_and_lengths() {
    let text = b">a\nACGT\n>b\nACGT\n>c x\nACG\n>d\nACGTT\n";
    let err = read_alignment_from(AlignmentReader::new(&text[..], "ragged.fa"), Coding::SNP).unwrap_err().to_string();
    assert!(err.contains("ragged.fa") && err.contains("'c'") && err.contains("3 sites"), "{err}");
    assert!(err.contains("first sequence 'a' has 4"), "{err}");
    assert!(err.contains("line 5") && err.contains("record 3"), "{err}");
    let err = pack_alignment(&[b"ACGT".as_slice(), b"AC"], Coding::SNP).unwrap_err().to_string();
    assert!(err.contains("sequence 2 has 2 sites") && err.contains("has 4"), "{err}");
}

#[test]
fn empty_and_malformed_inputs_are_errors() {
    let read = |t: &[u8]| read_alignment_from(AlignmentReader::new(t, "x.fa"), Coding::SNP).map(|_| ());
    let err = read(b"").unwrap_err().to_string();
    assert!(err.contains("x.fa") && err.contains("no sequences"), "{err}");
    let err = read(b">a\n>b\n").unwrap_err().to_string();
    assert!(err.contains("empty"), "{err}");
    let err = read(b">a\nAC1T\n").unwrap_err().to_string();
    assert!(err.contains("'1'") && err.contains("column 3"), "{err}");
    let err = read(b"ACGT\n").unwrap_err().to_string();
    assert!(err.contains("expected a '>' header"), "{err}");
    assert!(pack_alignment(&Vec::<Vec<u8>>::new(), Coding::SNP).is_err());
    assert!(pack_alignment(&[b"", b""], Coding::SNP).unwrap_err().to_string().contains("no sites"));
    assert!(pack_genotype_matrix(&[], 0).is_err());
    assert!(pack_genotype_matrix(&[0, 1, 2], 2).is_err());
    let dir = scratch("empty");
    let empty = dir.join("empty.fa");
    std::fs::write(&empty, "").unwrap();
    assert!(read_alignment(&empty, Coding::SNP).is_err());
    let t = dir.join("e.tsv");
    std::fs::write(&t, "\n# nothing\n").unwrap();
    assert!(read_genotype_table(&t).unwrap_err().to_string().contains("no samples"));
    std::fs::write(&t, "x 0 1 2\ny 0 1\n").unwrap();
    let err = read_genotype_table(&t).unwrap_err().to_string();
    assert!(err.contains("line 2") && err.contains("'y' has 2 sites"), "{err}");
    std::fs::write(&t, "x 0 1 2\ny 0 3 1\n").unwrap();
    assert!(read_genotype_table(&t).unwrap_err().to_string().contains("'3'"));
    std::fs::write(&t, b"x 0 1 2\ny 0 \xff 1\n").unwrap();
    let err = read_genotype_table(&t).unwrap_err().to_string();
    assert!(err.contains("line 2: column 5: the byte 0xff is not UTF-8"), "{err}");
    #[cfg(unix)]
    {
        // Input that never ends a line is refused after a bounded read.
        let err = read_genotype_table(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(err.contains("/dev/zero: line 1: line is longer than 1073741824 bytes"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bed_size_and_magic_are_checked() {
    let dir = scratch("bed");
    let src = dist_dir().join("a");
    let copy = |ext: &str, to: &str| std::fs::copy(src.with_extension(ext), dir.join(format!("{to}.{ext}"))).unwrap();
    // A .bim with one extra variant: the .bed is too short.
    for ext in ["bed", "fam", "bim"] {
        copy(ext, "t");
    }
    let mut bim = std::fs::read_to_string(dir.join("t.bim")).unwrap();
    bim.push_str("1\textra\t0\t99999\tA\tG\n");
    std::fs::write(dir.join("t.bim"), bim).unwrap();
    let err = read_bed(&dir.join("t")).unwrap_err().to_string();
    assert!(err.contains("t.bed") && err.contains("3003 bytes") && err.contains("301 variants"), "{err}");
    assert!(err.contains("40 samples") && err.contains("3013"), "{err}");
    // A truncated .bed.
    copy("bim", "t");
    let bed = std::fs::read(src.with_extension("bed")).unwrap();
    std::fs::write(dir.join("t.bed"), &bed[..bed.len() - 1]).unwrap();
    assert!(read_bed(&dir.join("t")).unwrap_err().to_string().contains("3002 bytes"));
    // Not a .bed, and a sample-major one.
    std::fs::write(dir.join("t.bed"), b"hello").unwrap();
    assert!(read_bed(&dir.join("t")).unwrap_err().to_string().contains("not a PLINK 1 .bed"));
    let mut sm = bed.clone();
    sm[2] = 0;
    std::fs::write(dir.join("t.bed"), &sm).unwrap();
    assert!(read_bed(&dir.join("t")).unwrap_err().to_string().contains("sample-major"));
    // A .fam one sample short: the .bed's size still fits (40 and 39 samples both take
    // 10 bytes a variant), but the 40th sample's calls sit in the padding bits.
    std::fs::write(dir.join("t.bed"), &bed).unwrap();
    let fam = std::fs::read_to_string(src.with_extension("fam")).unwrap();
    let short: String = fam.lines().take(39).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("t.fam"), short).unwrap();
    let err = read_bed(&dir.join("t")).unwrap_err().to_string();
    assert!(err.contains("t.bed: variant") && err.contains("past the 39 samples"), "{err}");
    copy("fam", "t");
    // Missing files and an empty .fam.
    assert!(read_bed(&dir.join("nope")).unwrap_err().to_string().contains("nope.fam"));
    std::fs::write(dir.join("t.bed"), &bed).unwrap();
    std::fs::write(dir.join("t.fam"), "").unwrap();
    assert!(read_bed(&dir.join("t")).unwrap_err().to_string().contains("no samples"));
    // A .fam line without an individual id, and .fam and .bim files that never end a line.
    std::fs::write(dir.join("t.fam"), "f1 s1 0 0 1 -9\n\nf2\n").unwrap();
    let err = read_bed(&dir.join("t")).unwrap_err().to_string();
    assert!(err.contains("t.fam: line 3: fewer than two fields"), "{err}");
    #[cfg(unix)]
    for ext in ["fam", "bim"] {
        std::fs::remove_file(dir.join(format!("t.{ext}"))).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join(format!("t.{ext}"))).unwrap();
        let err = read_bed(&dir.join("t")).unwrap_err().to_string();
        assert!(err.contains(&format!("t.{ext}: line 1: line is longer than 16777216 bytes")), "{err}");
        std::fs::remove_file(dir.join(format!("t.{ext}"))).unwrap();
        copy(ext, "t");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generated_alignments_look_like_snp_alignments() {
    let shape = generate::AlignmentShape { samples: 40, sites: 100_000, ..Default::default() };
    let seqs = generate::snp_alignment(&shape);
    assert_eq!(seqs.len(), 40);
    assert!(seqs.iter().all(|s| s.len() == 100_000));
    let packed = pack_alignment(&seqs, Coding::SNP).unwrap();
    let summary = packed.site_summary();
    // About 1% variable sites (some variants are carried by nobody), runs of N/gaps.
    assert!((300..1100).contains(&summary.variable_sites), "{}", summary.variable_sites);
    assert!(summary.incomplete_sites > 1000, "{}", summary.incomplete_sites);
    assert_eq!(format_g(0.5), "0.5");
}

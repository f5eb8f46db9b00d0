//! `clsw distance` (alias `dist`) and `clsw bench distance` from the command line: outputs, device variants, and
//! clear errors (exit code 1, never a panic).

mod common;

use common::cli::{clsw, s, same_output_on_two_devices, scratch_dir};
use common::{data_dir, test_devices};

fn data(name: &str) -> String {
    data_dir().join("distance").join(name).to_str().unwrap().to_string()
}

const HAND_SQUARE: &str = "s1\t0\t1\t0\t2\t0\n\
                           s2\t1\t0\t1\t3\t1\n\
                           s3\t0\t1\t0\t1\t0\n\
                           s4\t2\t3\t1\t0\t2\n\
                           s5\t0\t1\t0\t2\t0\n";

#[test]
fn square_matrix_like_snp_dists() {
    let (code, out, err) = clsw(&["distance", &data("hand.fa"), "--variant", "cpu"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("clsw-dist {}\ts1\ts2\ts3\ts4\ts5\n{HAND_SQUARE}", env!("CARGO_PKG_VERSION")));
    assert!(err.contains("5 sequences of 12 sites"), "{err}");
    let (_, out, _) =
        clsw(&["distance", &data("hand.fa"), "--variant", "cpu", "--corner", "snp-dists 0.8.2", "--quiet"]);
    assert!(out.starts_with("snp-dists 0.8.2\ts1\t"), "{out}");
    let (_, out, err) = clsw(&["distance", &data("hand.fa"), "--variant", "cpu", "--blank-corner", "--csv", "--quiet"]);
    assert!(out.starts_with(",s1,s2,s3,s4,s5\ns1,0,1,0,2,0\n"), "{out}");
    assert!(err.is_empty(), "{err}");
    let (_, out, _) = clsw(&["distance", &data("hand.fa"), "--variant", "cpu", "--count-gaps", "--count-n", "--quiet"]);
    assert!(out.contains("\ns3\t3\t4\t0\t4\t6\n"), "{out}");
}

#[test]
fn dist_is_an_alias_of_distance() {
    let args = [&data("hand.fa"), "--variant", "cpu", "--quiet"];
    let (code, alias, err) = clsw(&[&["dist"][..], &args].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(alias, clsw(&[&["distance"][..], &args].concat()).1);
    let bench = ["--samples", "8", "--sites", "500", "--runs", "1", "--variants", "cpu"];
    let (code, out, err) = clsw(&[&["bench", "dist"][..], &bench].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("host"), "{out}");
}

#[test]
fn a_list_of_two_devices_gives_the_native_results() {
    let out = same_output_on_two_devices(&["distance", &data("hand.fa"), "--quiet"], str::to_string);
    assert!(out.ends_with(HAND_SQUARE), "{out}");
    same_output_on_two_devices(&["distance", "--bfile", &data("b"), "--format", "long", "--compared"], str::to_string);
}

#[test]
fn long_format_with_compared_counts() {
    let (code, out, err) =
        clsw(&["distance", &data("hand.fa"), "--variant", "cpu", "--format", "long", "--compared", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 25);
    assert_eq!(lines[0], "s1\ts1\t0\tNA");
    assert_eq!(lines[13], "s3\ts4\t1\t9");
    assert_eq!(lines[14], "s3\ts5\t0\t6");
}

#[test]
fn opencl_variants_give_the_same_matrix() {
    for dev in test_devices() {
        let index = dev.info.index.to_string();
        for variant in ["bitplane", "charpacked"] {
            let (code, out, err) = clsw(&["distance", &data("hand.fa"), "--device", &index, "--variant", variant]);
            assert_eq!(code, 0, "{err}");
            assert!(out.ends_with(HAND_SQUARE), "{variant}: {out}");
            assert!(err.contains(dev.info.name.trim()), "{err}");
        }
    }
}

#[test]
fn plink_files_from_bed_and_table() {
    let dir = scratch_dir();
    let prefix = dir.join("ours");
    let golden = std::fs::read_to_string(data("a_flat.mibs")).unwrap();
    let plink_ibs = ["--format", "plink", "--metric", "ibs", "--out", s(&prefix), "--variant", "cpu"];
    let (code, _, err) = clsw(&[&["distance", "--bfile", &data("a")][..], &plink_ibs].concat());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("ours.mibs"), "{err}");
    let ours = std::fs::read_to_string(dir.join("ours.mibs")).unwrap();
    assert_eq!(ours.lines().count(), golden.lines().count());
    let close = |a: &str, b: &str| {
        a.split('\t').zip(b.split('\t')).all(|(x, y)| {
            let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
            (x - y).abs() < 1e-5
        })
    };
    assert!(ours.lines().zip(golden.lines()).all(|(a, b)| close(a, b)));
    assert_eq!(
        std::fs::read_to_string(dir.join("ours.mibs.id")).unwrap(),
        std::fs::read_to_string(data("a_flat.mibs.id")).unwrap()
    );
    // The same genotypes as a table.
    let (code, _, err) = clsw(&[&["distance", "--genotypes", &data("a.tsv")][..], &plink_ibs].concat());
    assert_eq!(code, 0, "{err}");
    let ours = std::fs::read_to_string(dir.join("ours.mibs")).unwrap();
    assert!(ours.lines().zip(golden.lines()).all(|(a, b)| close(a, b)));
    // Binary output.
    let (code, _, err) =
        clsw(&["distance", "--bfile", &data("b"), "--format", "binary", "--out", s(&prefix), "--variant", "cpu"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::metadata(dir.join("ours.u32")).unwrap().len(), 20 * 20 * 4);
}

#[test]
fn errors_are_clear() {
    let dir = scratch_dir();
    let ragged = dir.join("ragged.fa");
    std::fs::write(&ragged, ">a\nACGT\n>b\nACG\n").unwrap();
    let (code, _, err) = clsw(&["distance", s(&ragged), "--variant", "cpu"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("'b' has 3 sites") && err.contains("'a' has 4"), "{err}");
    let empty = dir.join("empty.fa");
    std::fs::write(&empty, "").unwrap();
    let (code, _, err) = clsw(&["distance", s(&empty), "--variant", "cpu"]);
    assert_eq!(code, 1);
    assert!(err.contains("no sequences"), "{err}");
    let (code, _, err) = clsw(&["distance", "--bfile", s(&dir.join("missing")), "--variant", "cpu"]);
    assert_eq!(code, 1);
    assert!(err.contains("missing.fam"), "{err}");
    let (code, _, err) = clsw(&["distance", "--bfile", &data("a"), "--count-gaps"]);
    assert_eq!(code, 1);
    assert!(err.contains("alignments only"), "{err}");
    let (code, _, err) = clsw(&["distance", &data("hand.fa"), "--metric", "nope"]);
    assert_eq!(code, 2, "{err}"); // a usage error, the library's message
    assert!(err.contains("unknown metric"), "{err}");
    let (code, _, err) = clsw(&["distance", &data("hand.fa"), "--variant", "cpu", "--bfile", &data("a")]);
    assert_eq!(code, 2, "{err}"); // clap: conflicting inputs
    // A typo in the first sample of a genotype table is an error, not a header dropped.
    let typo = dir.join("typo.tsv");
    std::fs::write(&typo, "s1\t0\t1\t3\ns2\t0\t1\t2\n").unwrap();
    let (code, out, err) = clsw(&["distance", "--genotypes", s(&typo)]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("typo.tsv: line 1") && err.contains("column 4") && err.contains("'3'"), "{err}");
}

#[test]
fn bench_prints_a_row_per_variant() {
    let mut args = vec!["bench", "distance", "--samples", "20", "--sites", "5000", "--runs", "1", "--variants"];
    let devices = test_devices();
    let index = devices.first().map(|d| d.info.index.to_string());
    if let Some(i) = &index {
        args.extend(["cpu,bitplane,charpacked", "--device", i, "--tile", "4x16x8,2x8x4", "--site-filter", "auto,off"]);
    } else {
        args.push("cpu");
    }
    let (code, out, err) = clsw(&args);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().filter(|l| !l.starts_with('#') && !l.starts_with("variant")).collect();
    assert_eq!(rows.len(), if index.is_some() { 8 } else { 1 }, "{out}");
    assert!(!out.contains("DIFF"), "{out}");
    assert!(rows.iter().all(|r| r.trim_end().ends_with("ok") || r.trim_end().ends_with("first")), "{out}");
}

/// `--outfmt plink` with no metric and no prefix writes what `plink --bfile a --distance
/// flat-missing` writes: allele counts in `plink.dist` and `plink.dist.id`, in the
/// working directory.
#[test]
fn plink_format_defaults_to_plinks_metric_and_file_names() {
    let dir = scratch_dir();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_clsw"))
        .args([
            "distance",
            "--bfile",
            s(&std::path::absolute(data("a")).unwrap()),
            "--outfmt",
            "plink",
            "--variant",
            "cpu",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("wrote plink.dist, plink.dist.id"), "{err}");
    assert_eq!(std::fs::read(dir.join("plink.dist")).unwrap(), std::fs::read(data("a_flat.dist")).unwrap());
    assert_eq!(std::fs::read(dir.join("plink.dist.id")).unwrap(), std::fs::read(data("a_flat.dist.id")).unwrap());
    assert!(!dir.join("clsw.dist").exists());
}

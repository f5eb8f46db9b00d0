//! `clsw psse` and `clsw bench psse`: the prss-like summary for one pair, TSV for many,
//! NA rows for pairs that cannot be fitted, clear errors for bad options, and the same
//! numbers from an OpenCL device as from the native path.

mod common;

use common::cli::{clsw, clsw_env, clsw_limited, random_protein_fasta, s, same_output_on_two_devices, scratch};
use common::{data_dir, test_devices};
use std::path::PathBuf;

/// Writes the named records of the test data to a scratch FASTA file.
fn fasta(name: &str, records: &[(&str, &str)]) -> PathBuf {
    let all: Vec<(String, String)> = ["queries10.fasta", "golden_subjects.fasta"]
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(data_dir().join(f)).unwrap();
            let mut out = Vec::new();
            let mut lines = text.lines();
            while let (Some(h), Some(s)) = (lines.next(), lines.next()) {
                out.push((h.trim_start_matches('>').split_whitespace().next().unwrap().to_string(), s.to_string()));
            }
            out
        })
        .collect();
    let mut text = String::new();
    for (id, seq) in records {
        let s = if seq.is_empty() { all.iter().find(|(i, _)| i == id).unwrap().1.clone() } else { seq.to_string() };
        text.push_str(&format!(">{id}\n{s}\n"));
    }
    scratch(name, text.as_bytes())
}

const Q: &str = "sp|Q3ZZU0|ATPD_DEHMC";
const S: &str = "tr|V4P9A4|V4P9A4_EUTSA";

#[test]
fn one_pair_gives_a_summary() {
    let q = fasta("q.fa", &[(Q, "")]);
    let s = fasta("s.fa", &[(S, "")]);
    let args = ["psse", "--query", q.to_str().unwrap(), "--subject", s.to_str().unwrap(), "--shuffles", "300"];
    let (code, out, err) = clsw(&[&args[..], &["--histogram"]].concat());
    assert_eq!(code, 0, "{err}");
    for want in [
        "unshuffled s-w score: 54",
        "BLOSUM50, gap open 10, extend 2",
        "Gumbel ML fit (complete)",
        "P(S >= 54)",
        "shuffles: 300 of the subject (uniform), seed 42",
        "<- real score",
    ] {
        assert!(out.contains(want), "missing '{want}' in:\n{out}");
    }
    // The same numbers on every OpenCL device, both kernels.
    let numbers =
        |o: &str| o.lines().filter(|l| l.contains("Gumbel") || l.starts_with("P(")).collect::<Vec<_>>().join("\n");
    let (_, plain, _) = clsw(&args);
    for dev in test_devices() {
        for variant in ["team", "inter", "fast"] {
            let index = dev.info.index.to_string();
            let (code, got, err) = clsw(&[&args[..], &["--device", &index, "--variant", variant]].concat());
            assert_eq!(code, 0, "{err}");
            assert_eq!(numbers(&got), numbers(&plain), "{} {variant}", dev.info.label());
        }
    }
    // Censored: the summary says so.
    let (code, out, err) = clsw(&[&args[..], &["--censor-below", "0.5"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Gumbel ML fit (censored:"), "{out}");
}

#[test]
fn a_list_of_two_devices_gives_the_native_results() {
    let q = fasta("q2d.fa", &[(Q, ""), ("tr|M9HPM3|M9HPM3_ECOLX", "")]);
    let s = fasta("s2d.fa", &[(S, ""), ("sp|Q3Z8Z5|ATPD_DEHM1", "")]);
    let args = ["psse", "--query", q.to_str().unwrap(), "--subject", s.to_str().unwrap(), "--shuffles", "100"];
    // TSV: the summary names the devices, the table does not. Two queries on two
    // devices: each device takes a query against both subjects.
    let out = same_output_on_two_devices(&[&args[..], &["--format", "tsv"]].concat(), str::to_string);
    assert_eq!(out.lines().count(), 5, "{out}");
    // One query: each device takes a subject.
    let one = fasta("q1d.fa", &[(Q, "")]);
    let args = ["psse", "--query", one.to_str().unwrap(), "--subject", s.to_str().unwrap(), "--shuffles", "100"];
    let out = same_output_on_two_devices(&[&args[..], &["--format", "tsv"]].concat(), str::to_string);
    assert_eq!(out.lines().count(), 3, "{out}");
}

/// `scan_team_pairs` with CLSW_MUL_SHIFTS (cl/clsw_common.h), NVIDIA's tuning of the
/// portable kernels, forced on the other devices: two queries a team, the native path's
/// table. Built unoptimized, as the kernel sweeps are (tests/common: sweep_devices): the
/// run self-tests team in every shape under these options, 96 s of PoCL builds
/// optimized, 36 s not.
#[test]
fn query_pairs_take_low_halves_by_multiplies_as_on_nvidia() {
    let q = fasta("qm.fa", &[(Q, ""), ("tr|M9HPM3|M9HPM3_ECOLX", "")]);
    let s = fasta("sm.fa", &[(S, ""), ("sp|Q3Z8Z5|ATPD_DEHM1", "")]);
    let args = ["psse", "--query", q.to_str().unwrap(), "--subject", s.to_str().unwrap(), "--shuffles", "200"];
    let args = [&args[..], &["--format", "tsv", "--variant", "team"]].concat();
    let (code, native, err) = clsw(&[&args[..], &["--device", "native"]].concat());
    assert_eq!(code, 0, "{err}");
    for dev in test_devices().iter().filter(|d| !d.info.is_nvidia()) {
        let index = dev.info.index.to_string();
        let options = [("CLSW_CL_OPTIONS", "-D CLSW_MUL_SHIFTS=1 -cl-opt-disable")];
        let (code, got, err) = clsw_env(&options, None, &[&args[..], &["--device", &index]].concat());
        assert_eq!((code, &got), (0, &native), "{}: {err}", dev.info.label());
    }
}

#[test]
fn many_pairs_give_a_table_with_na_for_unfittable_pairs() {
    let q = fasta("q2.fa", &[(Q, ""), ("tr|M9HPM3|M9HPM3_ECOLX", "")]);
    let s = fasta("s3.fa", &[(S, ""), ("sp|Q3Z8Z5|ATPD_DEHM1", ""), ("one", "W")]);
    let base = ["psse", "--query", q.to_str().unwrap(), "--subject", s.to_str().unwrap()];
    let (code, out, err) = clsw(&[&base[..], &["--shuffles", "100", "--window", "20"]].concat());
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines[0], ["query", "subject", "score", "mu", "lambda", "K", "P", "E"]);
    assert_eq!(lines.len(), 7);
    assert!(lines[1..].iter().all(|l| l.len() == 8));
    assert_eq!((lines[1][0], lines[1][1], lines[1][2]), (Q, S, "54"));
    // The homolog's P is tiny; the one-residue subject cannot be fitted.
    assert!(lines[2][6].parse::<f64>().unwrap() < 1e-10, "{:?}", lines[2]);
    assert_eq!(&lines[3][2..], ["NA"; 6]);
    assert!(err.contains("2 pairs without statistics"), "{err}");
    let (code, out, _) = clsw(&[&base[..], &["--shuffles", "50", "--format", "summary"]].concat());
    assert_eq!(code, 0);
    assert_eq!(out.matches("unshuffled s-w score").count(), 4, "{out}");
}

#[test]
fn bad_options_are_clear_errors() {
    let q = fasta("qe.fa", &[(Q, "")]);
    let s = fasta("se.fa", &[(S, "")]);
    let base = ["psse", "--query", q.to_str().unwrap(), "--subject", s.to_str().unwrap()];
    for (extra, want) in [
        (&["--shuffles", "1"][..], "at least 2 shuffles"),
        (&["--shuffles", "18446744073709551615"][..], "18446744073709551615 shuffles is out of range"),
        (&["--shuffles", "4294967295"][..], "at most 4294967294 shuffles"),
        (&["--censor-below", "1.5"][..], "strictly between 0 and 1"),
        (&["--matrix", "EDNAFULL"][..], "not a dna residue"),
    ] {
        let (code, _, err) = clsw(&[&base[..], extra].concat());
        assert_eq!(code, 1, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
    for option in ["--variant", "--kernel"] {
        let (code, _, err) = clsw(&[&base[..], &[option, "warp"]].concat());
        assert_eq!(code, 2, "{option}: {err}");
        assert!(err.contains("unknown psse kernel variant"), "{option}: {err}");
    }
    let (code, _, err) = clsw(&["psse", "--query", "/nonexistent.fa", "--subject", s.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("nonexistent"), "{err}");
    let one = fasta("one.fa", &[("one", "W")]);
    let (code, _, err) = clsw(&["psse", "--query", q.to_str().unwrap(), "--subject", one.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no pair could be fitted"), "{err}");
    // A run that fits nothing leaves an existing output file as it was.
    let kept = std::env::temp_dir().join(format!("clsw-psse-kept-{}.tsv", std::process::id()));
    std::fs::write(&kept, "earlier results\n").unwrap();
    let before = std::fs::read(&kept).unwrap();
    let run =
        ["psse", "--query", q.to_str().unwrap(), "--subject", one.to_str().unwrap(), "-o", kept.to_str().unwrap()];
    let (code, _, err) = clsw(&run);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no pair could be fitted") && err.contains("not written"), "{err}");
    assert_eq!(std::fs::read(&kept).unwrap(), before);
    let _ = std::fs::remove_file(&kept);
}

#[test]
fn bench_prints_rates() {
    let (code, out, err) = clsw(&[
        "bench",
        "psse",
        "--num-subjects",
        "4",
        "--shuffles",
        "20",
        "--length",
        "60",
        "--runs",
        "1",
        "--variants",
        "native",
    ]);
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.starts_with("native")).unwrap_or_else(|| panic!("{out}"));
    let f: Vec<&str> = row.split_whitespace().collect();
    // variant, device (several words), then pairs and shuffles.
    assert!(f.contains(&"4") && f.contains(&"20"), "{row}");
    assert!(out.contains("pairs/s") && out.contains("GCUPS"), "{out}");
}

/// psse of a short query against a subject of 20 M residues under a 1 GiB limit, on the
/// native path: the kernel's memory follows the query's rows, not the subject's
/// columns times its lanes (AVX-512's 32 lanes needed 2.6 GB and aborted).
#[test]
fn a_long_subject_fits_a_memory_limit_whatever_the_simd_level() {
    let (subject, _) = random_protein_fasta("long_subject.fa", 20_000_000, 9);
    let query = scratch("long_subject_query.fa", b">q\nMKVLAAGIWKLHHEEGRTPQWLL\n");
    let (code, out, err) =
        clsw_limited(1, &["psse", "--query", s(&query), "--subject", s(&subject), "--shuffles", "4"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("E = K m n exp(-lambda S)"), "{out}");
    // On PoCL the shuffles' tile does not fit 2 GiB: an error naming the buffer, where
    // PoCL's own assertion aborted the process (1.3 GB: the team groups of 32 work-items
    // a CPU device takes, src/scan/team.rs: max_work_group).
    if !test_devices().is_empty() {
        let args = ["psse", "--query", s(&query), "--subject", s(&subject), "--shuffles", "10", "--device", "cpu"];
        let (code, _, err) = clsw_limited(2, &args);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("out of memory: a buffer on") && err.contains("needs 1.3 GB"), "{err}");
    }
}

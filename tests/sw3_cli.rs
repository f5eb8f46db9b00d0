//! `clsw sw3` and `clsw bench sw3` end to end: FASTA triples, time series as SAX words
//! (results checked against the library's reference), the device path on every OpenCL
//! device present, and bad input (a clear message and exit code 1, never a panic).

mod common;

use clsw::reference::sw3::sw3_score;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use clsw::sw3::{all_triples, sax};
use common::cli::{clsw, clsw_limited, s, same_output_on_two_devices, scratch};
use common::{data_dir, test_devices};

/// Data rows of the results table (tab-separated, not comments, not the header).
fn table_rows(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with('#') && !l.starts_with("a\tb\tc"))
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

#[test]
fn fasta_triple_with_the_seed_scoring() {
    let a = scratch("a.fa", b">a1\nTTTTACGTACGGTCCC\n");
    let b = scratch("b.fa", b">b1\nGGACGTACGGTAA\n>b2\nCCCC\n");
    let c = scratch("c.fa", b">c1\nACGTACGGTC\n");
    let args = ["sw3", s(&a), s(&b), s(&c), "--match", "1", "--mismatch", "-1", "--gap-open", "0", "--gap-extend", "1"];
    let (code, out, err) = clsw(&args);
    assert_eq!(code, 0, "{err}");
    let rows = table_rows(&out);
    // a1/b1/c1: ACGTACGGT in all three (9 columns x 3 pairs = 27); a1/b2/c1 has less.
    assert_eq!(rows[0][..10], ["a1", "b1", "c1", "27", "5", "13", "3", "11", "1", "9"], "{out}");
    assert_eq!(rows[0][10..], ["9", "9"]);
    assert!(out.contains("a1       5 ACGTACGGT 13"), "{out}");
    assert!(out.contains("sum of pairs, +1/-1, linear gap 1"), "{out}");
    // Affine gaps and a matrix also run; the view marks identical columns.
    let (code, out, err) = clsw(&["sw3", s(&a), s(&b), s(&c), "--gap-open", "4", "--gap-extend", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("EDNAFULL") && out.contains("*********"), "{out}");
}

#[test]
fn series_triples_match_the_library() {
    let csv = data_dir().join("sw3/channels.csv");
    let table = scratch("table.tsv", b"");
    let args = ["sw3", "--series", s(&csv), "--sax-word", "24", "--sax-alphabet", "5", "--top", "3"];
    let (code, out, err) = clsw(&[&args[..], &["--table", s(&table)]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("constant channel") && err.contains("ch5"), "{err}");
    // The same computation through the library.
    let series = sax::read_series(&csv).unwrap();
    let words: Vec<Vec<u8>> = series.channels.iter().map(|c| sax::sax(c, 24, 5).unwrap().codes).collect();
    let sc = Scoring::new(Matrix::match_mismatch(Alphabet::Protein, 1, -1).unwrap(), Gaps::linear(1).unwrap());
    let mut want: Vec<(i32, [u32; 3])> = all_triples(5)
        .unwrap()
        .into_iter()
        .map(|t| (sw3_score(&words[t[0] as usize], &words[t[1] as usize], &words[t[2] as usize], &sc).score, t))
        .collect();
    want.sort_by_key(|w| std::cmp::Reverse(w.0));
    let rows = table_rows(&out);
    assert_eq!(rows.len(), 3, "{out}");
    for (row, (score, _)) in rows.iter().zip(&want) {
        assert_eq!(row[3], score.to_string(), "{out}");
    }
    assert_eq!(rows[0][..3], ["ch1", "ch2", "ch3"], "the three channels sharing an event come first:\n{out}");
    let full = std::fs::read_to_string(&table).unwrap();
    assert_eq!(full.lines().count(), 1 + 10);
    assert!(full.starts_with("a\tb\tc\tscore\ta_end\tb_end\tc_end\n"));
    // The device path on every OpenCL device gives the same table.
    for dev in test_devices() {
        let idx = dev.info.index.to_string();
        let (code, dout, err) = clsw(&[&args[..], &["--device", &idx]].concat());
        assert_eq!(code, 0, "{err}");
        assert_eq!(table_rows(&dout), rows, "{} vs native:\n{dout}", dev.info.label());
    }
}

#[test]
fn a_list_of_two_devices_gives_the_native_results() {
    let csv = data_dir().join("sw3/channels.csv");
    // The first line names the devices and the time; the table and alignments follow.
    let body = |out: &str| out.lines().skip(1).collect::<Vec<_>>().join("\n");
    let args = ["sw3", "--series", s(&csv), "--sax-word", "16", "--sax-alphabet", "6", "--top", "5"];
    let out = same_output_on_two_devices(&args, body);
    assert!(out.contains("ch1\tch2\tch3"), "{out}");
    // FASTA: the first two records of gap_pairs in each place (8 triples).
    let text = std::fs::read_to_string(data_dir().join("gap_pairs.fasta")).unwrap();
    let two: Vec<&str> = text.split_inclusive('>').take(3).collect();
    let fa = scratch("two_pairs.fa", two.concat().trim_end_matches('>').as_bytes());
    same_output_on_two_devices(&["sw3", s(&fa), s(&fa), s(&fa)], body);
}

/// Three 30,000-residue sequences need 57.6 GB of planes on the native path: refused
/// with the size before any work (it aborted the process), here under a 4 GiB limit so
/// every machine refuses it alike.
#[test]
fn a_triple_too_large_for_memory_is_an_error_naming_its_size() {
    let seq: String = (0..30_000).map(|i| b"ACGT"[(i * 7 + i / 3) % 4] as char).collect();
    let paths: Vec<_> =
        ["a", "b", "c"].map(|n| scratch(&format!("{n}_30k.fa"), format!(">{n}\n{seq}\n").as_bytes())).into();
    let (code, out, err) = clsw_limited(4, &["sw3", s(&paths[0]), s(&paths[1]), s(&paths[2])]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(
        err.contains("out of memory: the three-sequence score pass over 30000 x 30000 x 30000 residues needs 57.6 GB"),
        "{err}"
    );
}

#[test]
fn bad_input_gives_clear_errors() {
    let nan = scratch("nan.csv", b"a,b,c\n1,2,3\n4,NaN,6\n");
    let (code, _, err) = clsw(&["sw3", "--series", s(&nan)]);
    assert_eq!(code, 1);
    assert!(err.contains("line 3") && err.contains("'b'"), "{err}");
    let ragged = scratch("ragged.csv", b"a,b,c\n1,2,3\n4,5\n");
    let (code, _, err) = clsw(&["sw3", "--series", s(&ragged)]);
    assert_eq!(code, 1);
    assert!(err.contains("2 fields, expected 3"), "{err}");
    let two = scratch("two.csv", b"a,b\n1,2\n3,4\n");
    let (code, _, err) = clsw(&["sw3", "--series", s(&two)]);
    assert_eq!(code, 1);
    assert!(err.contains("at least 3"), "{err}");
    let ok = data_dir().join("sw3/channels.csv");
    let (code, _, err) = clsw(&["sw3", "--series", s(&ok), "--matrix", "BLOSUM62"]);
    assert_eq!(code, 1);
    assert!(err.contains("--match/--mismatch"), "{err}");
    let (code, _, err) = clsw(&["sw3", "--series", s(&ok), "--sax-alphabet", "30"]);
    assert_eq!(code, 1);
    assert!(err.contains("between 3 and 20"), "{err}");
    // A word length past memory aborted the process allocating it.
    let (code, _, err) = clsw(&["sw3", "--series", s(&ok), "--sax-word", "99999999999999"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("a SAX word of 99999999999999 segments"), "{err}");
    let (code, _, err) = clsw(&["sw3", "/nonexistent/a.fa", "/nonexistent/b.fa", "/nonexistent/c.fa"]);
    assert_eq!(code, 1, "{err}");
    let empty = scratch("empty.fa", b">e\n\n");
    let (code, _, err) = clsw(&["sw3", s(&empty), s(&empty), s(&empty), "--alphabet", "dna"]);
    assert_eq!(code, 1);
    assert!(err.contains("no residues") || err.contains("empty"), "{err}");
    // Two files instead of three: a usage error from the argument parser.
    let (code, _, _) = clsw(&["sw3", s(&empty), s(&empty)]);
    assert_eq!(code, 2);
}

#[test]
fn the_table_and_the_output_in_one_file_are_refused() {
    // `--table X -o X` once lost the table (the output replaced it) and exited 0.
    let ok = data_dir().join("sw3/channels.csv");
    let out = scratch("same.tsv", b"");
    let dir = out.parent().unwrap().to_path_buf();
    let relative = dir.join(".").join("same.tsv");
    for (table, o) in [(&out, &out), (&out, &relative)] {
        let (code, stdout, err) = clsw(&["sw3", "--series", s(&ok), "--table", s(table), "-o", s(o)]);
        assert_eq!(code, 1, "{stdout}");
        assert!(err.contains("are the same file"), "{err}");
    }
    // Not yet existing: still one file.
    let new = dir.join("not_yet.tsv");
    let _ = std::fs::remove_file(&new);
    let (code, _, err) = clsw(&["sw3", "--series", s(&ok), "--table", s(&new), "-o", s(&new)]);
    assert_eq!(code, 1);
    assert!(err.contains("are the same file") && !new.exists(), "{err}");
}

#[test]
fn bench_prints_rows_checked_against_the_reference() {
    for dev in test_devices() {
        let idx = dev.info.index.to_string();
        let (code, out, err) = clsw(&[
            "bench",
            "sw3",
            "--lengths",
            "24,40",
            "--variants",
            "tile,plane",
            "--channels",
            "4",
            "--channel-length",
            "20",
            "--runs",
            "1",
            "--cpu-threads",
            "1",
            "--device",
            &idx,
        ]);
        assert_eq!(code, 0, "{err}");
        let rows: Vec<&str> = out.lines().filter(|l| !l.starts_with('#') && !l.starts_with("variant")).collect();
        // Per length: reference, tile, plane; then the batch: reference, batch.
        assert_eq!(rows.len(), 8, "{out}");
        assert_eq!(rows.iter().filter(|r| r.trim_end().ends_with("ok")).count(), 5, "{out}");
        assert!(rows[7].starts_with("batch") && rows[7].contains("4x20"), "{out}");
    }
}

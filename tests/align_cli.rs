//! `clsw align` on good and bad input (bad input must give a clear message and exit
//! code 1, never a panic: exit code 101), and `clsw devices`.

mod common;

use common::cli::{clsw, s, scratch};
use std::path::PathBuf;

#[test]
fn align_prints_view_and_tabular_line() {
    let a = scratch("a.fa", b">q1 query\nHEAGAWGHEE\n");
    let b = scratch("b.fa", b">s1\nPAWHEAE\n>s2\nMKVLAAGHEAGAWGPP\n");
    let (code, out, err) = clsw(&["align", s(&a), s(&b)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("q1 vs s2") && out.contains("Query        1  HEAGAWG"), "{out}");
    let (code, out, _) = clsw(&["align", s(&a), s(&b), "--outfmt", "tabular"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 2);
    let cols: Vec<&str> = lines[1].split('\t').collect();
    // q1 HEAGAWG (1-7) against s2 positions 8-14: 7 identical columns.
    assert_eq!(cols[..10], ["q1", "s2", "100.000", "7", "0", "0", "1", "7", "8", "14"]);
    assert_eq!(cols[11], "7=");
}

#[test]
fn bad_inputs_give_clear_errors() {
    let good = scratch("good.fa", b">g\nMKV\n");
    let cases: Vec<(PathBuf, &str)> = vec![
        (scratch("garbage.fa", &[0x7f, b'E', b'L', b'F', 0, 1, 2, 0xff, 0xfe]), "expected a '>' header"),
        (scratch("digit.fa", b">ok\nMKV\n>bad one\nMK\nAC3D\n"), "line 5 (record 2, 'bad'): '3' at column 3"),
        (scratch("empty.fa", b""), "contains no FASTA records"),
        (scratch("emptyrec.fa", b">x\n>y\nMK\n"), "'x'): record is empty (no residues)"),
        (PathBuf::from("/nonexistent/clsw/missing.fa"), "missing.fa"),
    ];
    for (path, expected) in &cases {
        let (code, _, err) = clsw(&["align", s(path), s(&good), "--alphabet", "protein"]);
        assert_eq!(code, 1, "{}: {err}", path.display());
        assert!(err.contains(expected), "{}: expected '{expected}' in: {err}", path.display());
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, _, err) = clsw(&["align", s(&good), s(&good), "--matrix", "BLOSUM63"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown matrix 'BLOSUM63'"), "{err}");
    // A negative cost is read as its size (ssearch36's spelling); a zero extension is
    // no gap model.
    let (code, _, err) = clsw(&["align", s(&good), s(&good), "--gap-open=-3", "--gap-extend=0"]);
    assert_eq!(code, 1);
    assert!(err.contains("gap penalties") && err.contains("open 3, extend 0"), "{err}");
}

#[test]
fn devices_lists_and_self_tests() {
    let (code, text, err) = clsw(&["devices"]);
    assert_eq!(code, 0, "{text}{err}");
    if common::test_devices().is_empty() {
        assert!(text.contains("No OpenCL devices found"));
    } else {
        assert!(text.contains("self-test:     passed"), "{text}");
        assert!(!text.contains("FAILED"), "{text}");
    }
}

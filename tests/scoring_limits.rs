//! Scorings at and past the edges of 16 and 32 bits, through the command and the C ABI:
//! scores and gap costs that do not fit the 16-bit kernels give the reference's results
//! on every device (they run at 32 bits), and values the 32-bit arithmetic cannot hold
//! (a matrix entry or gap beyond `scoring::SCORE_LIMIT`, lengths whose scores could pass
//! `i32::MAX`) are refused with a message before any work, never a wrong number.

mod common;

use clsw::capi::align::clsw_align_score;
use clsw::capi::db::{clsw_db, clsw_db_free, clsw_db_new_fasta};
use clsw::capi::engine::{clsw_engine, clsw_engine_free, clsw_engine_new};
use clsw::capi::scan::{clsw_searcher, clsw_searcher_free, clsw_searcher_new, clsw_searcher_scores};
use clsw::capi::scoring::{clsw_scoring, clsw_scoring_free, clsw_scoring_new_file, clsw_scoring_new_match_mismatch};
use clsw::capi::{CLSW_ALPHABET_DNA, CLSW_ALPHABET_PROTEIN, CLSW_ERR_INVALID_ARGUMENT, CLSW_OK, clsw_status};
use common::capi::{assert_fails, last_error};
use common::cli::{clsw, clsw_on, s, scratch};
use common::{data_dir, test_devices};
use std::ffi::CString;
use std::ptr::null_mut;

fn db_path() -> String {
    data_dir().join("uniprot300.fasta").to_str().unwrap().to_string()
}

/// The first query of queries10 (49 residues).
fn query() -> std::path::PathBuf {
    let text = std::fs::read_to_string(data_dir().join("queries10.fasta")).unwrap();
    let first = text.split('>').nth(1).unwrap();
    scratch("query.fa", format!(">{first}").as_bytes())
}

/// The scorings of the reproductions: a match, a mismatch and a gap cost past
/// 16 bits.
const WIDE_SCORINGS: [&[&str]; 3] = [
    &["--match", "40000", "--mismatch", "-1"],
    &["--match", "2", "--mismatch", "-40000"],
    &["--gap-open", "65535", "--gap-extend", "1"],
];

#[test]
fn scan_past_16_bits_on_the_device_equals_the_native_path() {
    let (q, db) = (query(), db_path());
    for scoring in WIDE_SCORINGS {
        let args =
            [&["scan", "-q", s(&q), "-d", &db, "--outfmt", "tabular-ext", "--evalue", "1e300"], scoring].concat();
        let (code, native, err) = clsw(&args);
        assert_eq!(code, 0, "{scoring:?}: {err}");
        assert!(native.lines().count() > 10, "{scoring:?}: the native path finds hits:\n{native}");
        if scoring[1] == "40000" {
            // A self hit scores 49 x 40,000.
            assert!(native.lines().any(|l| l.split('\t').nth(12) == Some("1960000")), "{native}");
        }
        if !test_devices().is_empty() {
            for variant in ["team", "inter", "plain", "intra"] {
                let (code, device, err) = clsw_on(Some("cpu"), &[&args[..], &["--variant", variant]].concat());
                assert_eq!((code, &device), (0, &native), "{scoring:?} {variant}: {err}");
            }
        }
    }
}

#[test]
fn psse_past_16_bits_on_the_device_equals_the_native_path() {
    let path = query();
    let (scoring, q) = (["--match", "5", "--mismatch", "-40000", "--gap-open", "65535"], s(&path));
    let args = [&["psse", "--query", q, "--subject", q, "--shuffles", "100"], &scoring[..]].concat();
    // The score, the fit and the P-value (the lines that name no device).
    let results = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| ["unshuffled", "Gumbel", "P(S"].iter().any(|p| l.starts_with(p)))
            .map(String::from)
            .collect()
    };
    let (code, native, err) = clsw(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(results(&native).len(), 3, "{native}");
    if !test_devices().is_empty() {
        let (code, device, err) = clsw_on(Some("cpu"), &args);
        assert_eq!((code, results(&device)), (0, results(&native)), "{err}");
    }
}

#[test]
fn scores_and_gaps_beyond_the_limit_are_refused() {
    let (q, db) = (query(), db_path());
    let scan = |extra: &[&str]| clsw(&[&["scan", "-q", s(&q), "-d", &db], extra].concat());
    let (code, out, err) = scan(&["--match", "2000000", "--mismatch", "-1"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("score 2000000 is outside -1048576..=1048576"), "{err}");
    let (code, _, err) = scan(&["--match", "1", "--mismatch", "-2147483648"]);
    assert!(code == 1 && err.contains("outside"), "{err}");
    let (code, _, err) = scan(&["--gap-open", "2147483647", "--gap-extend", "1"]);
    assert!(code == 1 && err.contains("open + extend may be at most 1048576"), "{err}");
    // A matrix file whose entry saturates 32 bits: refused, naming the file and line.
    let text = "   A C G T N\nA 2147483647 -1 -1 -1 0\nC -1 1 -1 -1 0\nG -1 -1 1 -1 0\nT -1 -1 -1 1 0\nN 0 0 0 0 0\n";
    let matrix = scratch("int_max.mat", text.as_bytes());
    let dna = scratch("dna.fa", b">a\nACGTACGT\n");
    let (code, _, err) = clsw(&["scan", "-q", s(&dna), "-d", s(&dna), "--matrix", s(&matrix)]);
    assert!(code == 1 && err.contains("int_max.mat: line 2: score 2147483647 is outside"), "{err}");
}

#[test]
fn lengths_whose_scores_could_pass_32_bits_are_refused() {
    // 1,000,000 per match: 3,000 identical residues would score 3e9.
    let big = scratch("big.fa", format!(">big\n{}\n", "A".repeat(3_000)).as_bytes());
    let small = scratch("small.fa", format!(">small\n{}\n", "A".repeat(2_000)).as_bytes());
    let scoring = ["--match", "1000000", "--mismatch", "-1"];
    let (code, _, err) = clsw(&[&["scan", "-q", s(&big), "-d", s(&big)], &scoring[..]].concat());
    assert!(code == 1 && err.contains("query 'big' against the database: scores could exceed 32 bits"), "{err}");
    let (code, _, err) = clsw(&[&["align", s(&big), s(&big)], &scoring[..]].concat());
    assert!(code == 1 && err.contains("'big' and 'big': scores could exceed 32 bits"), "{err}");
    let (code, _, err) = clsw(&[&["psse", "--query", s(&big), "--subject", s(&big)], &scoring[..]].concat());
    assert!(code == 1 && err.contains("scores could exceed 32 bits"), "{err}");
    // 2,000 residues fit: 2,001,000,000 < 2^31.
    let (code, out, err) =
        clsw(&[&["scan", "-q", s(&small), "-d", s(&small), "--outfmt", "tabular-ext"], &scoring[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().nth(1).unwrap().split('\t').nth(12), Some("2000000000"), "{out}");
}

/// A scoring through the C ABI, or the call's status.
fn c_scoring(make: impl FnOnce(*mut *mut clsw_scoring) -> clsw_status) -> Result<*mut clsw_scoring, clsw_status> {
    let mut sc = null_mut();
    match make(&mut sc) {
        CLSW_OK => Ok(sc),
        status => Err(status),
    }
}

#[test]
fn c_abi_refuses_out_of_range_scorings() {
    // SAFETY: `out` is c_scoring's local.
    let refused =
        c_scoring(|out| unsafe { clsw_scoring_new_match_mismatch(CLSW_ALPHABET_PROTEIN, 2_000_000, -1, 0, 1, out) });
    assert_fails(refused.unwrap_err(), CLSW_ERR_INVALID_ARGUMENT, "score 2000000 is outside");
    // SAFETY: `out` is c_scoring's local.
    let refused =
        c_scoring(|out| unsafe { clsw_scoring_new_match_mismatch(CLSW_ALPHABET_DNA, 1, -1, 65_535, i32::MAX, out) });
    assert_fails(refused.unwrap_err(), CLSW_ERR_INVALID_ARGUMENT, "gap penalties too large");
    let text = "   A C G T N\nA 2147483647 -1 -1 -1 0\nC -1 1 -1 -1 0\nG -1 -1 1 -1 0\nT -1 -1 -1 1 0\nN 0 0 0 0 0\n";
    let path = CString::new(s(&scratch("c_int_max.mat", text.as_bytes()))).unwrap();
    // SAFETY: `path` is a live CString; `out` is c_scoring's local.
    let refused = c_scoring(|out| unsafe { clsw_scoring_new_file(path.as_ptr(), 0, 1, out) });
    assert!(refused.is_err() && last_error().contains("score 2147483647 is outside"), "{}", last_error());
    // Accepted scores whose sums could pass 32 bits at these lengths: refused by the call.
    // SAFETY: `out` is c_scoring's local.
    let sc = c_scoring(|out| unsafe { clsw_scoring_new_match_mismatch(CLSW_ALPHABET_DNA, 1_000_000, -1, 0, 1, out) })
        .unwrap();
    let long = vec![b'A'; 3_000];
    let mut score = 0;
    // SAFETY: `sc` is a live scoring; `long` has the lengths given; `score` is a local.
    let st = unsafe { clsw_align_score(sc, long.as_ptr(), long.len(), long.as_ptr(), long.len(), &mut score) };
    assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "scores could exceed 32 bits");
    // SAFETY: as above; 2,000 is within `long`'s 3,000 bytes.
    let st = unsafe { clsw_align_score(sc, long.as_ptr(), 2_000, long.as_ptr(), 2_000, &mut score) };
    assert_eq!((st, score), (CLSW_OK, 2_000_000_000), "{}", last_error());
    // SAFETY: `sc` came from c_scoring and is freed once, here.
    unsafe { clsw_scoring_free(sc) };
}

/// Every subject's score through `clsw_searcher_scores` on the engine `device`.
fn c_scores(device: &str, sc: *const clsw_scoring, query: &[u8]) -> Vec<i32> {
    let (mut engine, mut db, mut searcher): (*mut clsw_engine, *mut clsw_db, *mut clsw_searcher) =
        (null_mut(), null_mut(), null_mut());
    let device = CString::new(device).unwrap();
    let path = CString::new(db_path()).unwrap();
    // SAFETY: `device` is a live CString; `engine` a local output.
    let st = unsafe { clsw_engine_new(device.as_ptr(), &mut engine) };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    // SAFETY: `path` is a live CString; `db` a local output.
    let st = unsafe { clsw_db_new_fasta(path.as_ptr(), CLSW_ALPHABET_PROTEIN, &mut db) };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    // SAFETY: the engine and database were just made, `sc` is the caller's live scoring,
    // NULL options are the defaults; `searcher` is a local output.
    let st = unsafe { clsw_searcher_new(engine, sc, db, std::ptr::null(), &mut searcher) };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    let mut scores = vec![-1; 299];
    // SAFETY: the searcher is live; `query` and `scores` are live with the lengths given.
    let st = unsafe { clsw_searcher_scores(searcher, query.as_ptr(), query.len(), scores.as_mut_ptr(), scores.len()) };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    // SAFETY: each handle was made above and is freed once, here.
    unsafe { clsw_searcher_free(searcher) };
    // SAFETY: as above.
    unsafe { clsw_db_free(db) };
    // SAFETY: as above.
    unsafe { clsw_engine_free(engine) };
    scores
}

#[test]
fn c_abi_search_past_16_bits_on_the_device_equals_the_native_path() {
    let text = std::fs::read_to_string(query()).unwrap();
    let letters: Vec<u8> = text.lines().skip(1).flat_map(|l| l.bytes()).collect();
    for (m, x, open, extend) in [(40_000, -1, 11, 1), (2, -40_000, 11, 1), (5, -4, 65_535, 1)] {
        // SAFETY: `out` is c_scoring's local.
        let sc =
            c_scoring(|out| unsafe { clsw_scoring_new_match_mismatch(CLSW_ALPHABET_PROTEIN, m, x, open, extend, out) })
                .unwrap();
        let native = c_scores("reference", sc, &letters);
        // The self hit: every residue matches.
        assert_eq!(native.iter().max(), Some(&(m * letters.len() as i32)), "{m}/{x} {open}/{extend}");
        if !test_devices().is_empty() {
            assert_eq!(c_scores("cpu", sc, &letters), native, "{m}/{x} {open}/{extend}");
        }
        // SAFETY: `sc` came from c_scoring and is freed once, here.
        unsafe { clsw_scoring_free(sc) };
    }
}

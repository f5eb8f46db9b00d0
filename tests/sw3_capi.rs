//! Three-sequence alignment and SAX through the C ABI (src/capi/sw3.rs): the calls'
//! contracts (NULL pointers, option sizes, buffers too small, ranks out of range, bad
//! inputs) from Rust, against the Rust API's answers. The C program that prints sw3
//! results next to distance matrices is in tests/distance_capi.rs.

mod common;

use clsw::capi::engine::clsw_engine;
use clsw::capi::scoring::clsw_scoring;
use clsw::capi::sw3::*;
use clsw::capi::{CLSW_ERR_BUFFER_TOO_SMALL, CLSW_ERR_INVALID_ARGUMENT, CLSW_ERR_NULL, CLSW_OK};
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use clsw::sw3::{self, sax};
use common::capi::Handles;
use std::ffi::CStr;

#[test]
fn sw3_and_sax_contracts_hold() {
    let h = Handles::dna_seed();
    let (a, b, c) = (b"ACGTACGGT".as_slice(), b"GACGTACGG".as_slice(), b"ACGTTCGG".as_slice());
    let mut score = -1;
    let mut end = [9usize; 3];
    let mut aln: *mut clsw_sw3_alignment = std::ptr::null_mut();
    let mut res: *mut clsw_sw3_results = std::ptr::null_mut();
    // clsw_sw3_score of `a`, b, c; `None` is NULL.
    let call = |e: *const clsw_engine,
                s: *const clsw_scoring,
                a: &[u8],
                o: Option<&clsw_sw3_options>,
                score: Option<&mut i32>,
                end: Option<&mut [usize; 3]>| {
        let o = o.map_or(std::ptr::null(), |o| o as *const clsw_sw3_options);
        let score = score.map_or(std::ptr::null_mut(), |s| s as *mut i32);
        let end = end.map_or(std::ptr::null_mut(), |e| e.as_mut_ptr());
        // SAFETY: each call below passes `h.engine` and `h.scoring` (live until the test
        // ends) or NULL; the sequences, the options (whose `size` is at most their own)
        // and the outputs (`end` of 3 elements) are borrowed for the call.
        unsafe { clsw_sw3_score(e, s, a.as_ptr(), a.len(), b.as_ptr(), b.len(), c.as_ptr(), c.len(), o, score, end) }
    };
    assert_eq!(call(h.engine, h.scoring, a, None, Some(&mut score), Some(&mut end)), CLSW_OK);
    let want = sw3::score_cpu(
        &Alphabet::Dna.encode_all(a).unwrap(),
        &Alphabet::Dna.encode_all(b).unwrap(),
        &Alphabet::Dna.encode_all(c).unwrap(),
        &Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 1, -1).unwrap(), Gaps::linear(1).unwrap()),
    )
    .unwrap();
    assert_eq!((score, Some(end)), (want.score, want.end));
    // `end` may be NULL; `score`, handles and sequences may not.
    assert_eq!(call(h.engine, h.scoring, a, None, Some(&mut score), None), CLSW_OK);
    assert_eq!(call(h.engine, h.scoring, a, None, None, Some(&mut end)), CLSW_ERR_NULL);
    let st = call(std::ptr::null(), h.scoring, a, None, Some(&mut score), None);
    assert_eq!((st, common::capi::last_error().as_str()), (CLSW_ERR_NULL, "engine is NULL"));
    let st = call(h.engine, std::ptr::null(), a, None, Some(&mut score), None);
    assert_eq!((st, common::capi::last_error().as_str()), (CLSW_ERR_NULL, "scoring is NULL"));
    // SAFETY: the handles in `h` are live; `a` is a NULL refused before its length is
    // used, `b` and `c` live with at least the 1 byte given; `score` is a writable local.
    let st = unsafe {
        clsw_sw3_score(
            h.engine,
            h.scoring,
            std::ptr::null(),
            3,
            b.as_ptr(),
            1,
            c.as_ptr(),
            1,
            std::ptr::null(),
            &mut score,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(st, CLSW_ERR_NULL);
    // Empty sequences are allowed (NULL with length 0).
    // SAFETY: the handles in `h` are live; NULL sequences of length 0 are allowed; `score`
    // and `end` (3 elements) are writable locals.
    let st = unsafe {
        clsw_sw3_score(
            h.engine,
            h.scoring,
            std::ptr::null(),
            0,
            std::ptr::null(),
            0,
            std::ptr::null(),
            0,
            std::ptr::null(),
            &mut score,
            end.as_mut_ptr(),
        )
    };
    assert_eq!((st, score, end), (CLSW_OK, 0, [0; 3]));
    // A bad letter, a bad option, options too small, codes outside the matrix.
    let st = call(h.engine, h.scoring, b"AC!T", None, Some(&mut score), None);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "position 3");
    let full = std::mem::size_of::<clsw_sw3_options>();
    // SAFETY: clsw_sw3_options is two integers; all-zero is valid.
    let mut o: clsw_sw3_options = unsafe { std::mem::zeroed() };
    // SAFETY: `o` is a writable local of `full` bytes.
    assert_eq!(unsafe { clsw_sw3_options_init(&mut o, full) }, CLSW_OK);
    assert_eq!(o.input, CLSW_SW3_LETTERS);
    // SAFETY: `o` has more than the 4 bytes offered (refused before anything is written).
    assert_eq!(unsafe { clsw_sw3_options_init(&mut o, 4) }, CLSW_ERR_INVALID_ARGUMENT);
    // SAFETY: NULL is refused before the size is used.
    assert_eq!(unsafe { clsw_sw3_options_init(std::ptr::null_mut(), 16) }, CLSW_ERR_NULL);
    let mut bad = clsw_sw3_options { size: full, input: 7 };
    let st = call(h.engine, h.scoring, a, Some(&bad), Some(&mut score), None);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "options.input");
    bad.size = 4;
    assert_eq!(call(h.engine, h.scoring, a, Some(&bad), Some(&mut score), None), CLSW_ERR_INVALID_ARGUMENT);
    let codes = clsw_sw3_options { size: full, input: CLSW_SW3_CODES };
    // clsw_sw3_score of codes with `h`'s handles and `codes`' options, the score only.
    let score_codes = |x: &[u8], y: &[u8], z: &[u8], score: &mut i32| {
        // SAFETY: the handles in `h` are live; the sequences, the options and `score` are
        // borrowed for the call.
        unsafe {
            clsw_sw3_score(
                h.engine,
                h.scoring,
                x.as_ptr(),
                x.len(),
                y.as_ptr(),
                y.len(),
                z.as_ptr(),
                z.len(),
                &codes,
                score,
                std::ptr::null_mut(),
            )
        }
    };
    let st = score_codes(&[0, 9], &[0], &[0], &mut score);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "code 9");
    let st = score_codes(&[0, 1], &[0, 1], &[0, 1], &mut score);
    assert_eq!((st, score), (CLSW_OK, 6));

    // Alignment: the output handle is NULL on failure; info size checked.
    let align3 = |a: &[u8], out: &mut *mut clsw_sw3_alignment| {
        // SAFETY: the handles in `h` are live; the sequences and `out` are borrowed for the call.
        unsafe {
            clsw_sw3_align(
                h.engine,
                h.scoring,
                a.as_ptr(),
                a.len(),
                b.as_ptr(),
                b.len(),
                c.as_ptr(),
                c.len(),
                std::ptr::null(),
                out,
            )
        }
    };
    let st = align3(b"A!", &mut aln);
    assert!(st == CLSW_ERR_INVALID_ARGUMENT && aln.is_null());
    let st = align3(a, &mut aln);
    assert_eq!(st, CLSW_OK);
    // SAFETY: clsw_sw3_alignment_info is numbers and raw pointers; all-zero is valid.
    let mut info: clsw_sw3_alignment_info = unsafe { std::mem::zeroed() };
    info.size = 8;
    // SAFETY: `aln` is the live alignment just made; `info` is a whole writable local.
    assert_eq!(unsafe { clsw_sw3_alignment_get(aln, &mut info) }, CLSW_ERR_INVALID_ARGUMENT);
    info.size = std::mem::size_of::<clsw_sw3_alignment_info>();
    // SAFETY: as above.
    assert_eq!(unsafe { clsw_sw3_alignment_get(aln, &mut info) }, CLSW_OK);
    assert_eq!(info.score, want.score);
    assert_eq!(info.end.to_vec(), want.end.unwrap().to_vec());
    for r in info.rows {
        // SAFETY: the rows are NUL-terminated strings owned by `aln`, still live.
        assert_eq!(unsafe { CStr::from_ptr(r) }.to_bytes().len(), info.length);
    }
    // SAFETY: `aln` is live; the NULL output is refused.
    assert_eq!(unsafe { clsw_sw3_alignment_get(aln, std::ptr::null_mut()) }, CLSW_ERR_NULL);
    // SAFETY: `aln` came from clsw_sw3_align and is freed once, here; freeing NULL is allowed.
    unsafe {
        clsw_sw3_alignment_free(aln);
        clsw_sw3_alignment_free(std::ptr::null_mut());
    }
    // SAFETY: the NULL alignment is refused; `info` is a whole writable local.
    assert_eq!(unsafe { clsw_sw3_alignment_get(std::ptr::null(), &mut info) }, CLSW_ERR_NULL);

    // Batches: fewer than 3 sequences for all triples, an index out of range, a row
    // out of range, a given list kept in its roles.
    let seqs = [a.as_ptr(), b.as_ptr(), c.as_ptr()];
    let lens = [a.len(), b.len(), c.len()];
    // All triples (`triples` NULL) or a list, over a, b, c, with default options.
    let batch = |count: usize, triples: Option<&[u32]>, triple_count: usize, res: &mut *mut clsw_sw3_results| {
        assert!(count <= 3 && triples.is_none_or(|t| 3 * triple_count <= t.len()));
        let triples = triples.map_or(std::ptr::null(), <[u32]>::as_ptr);
        // SAFETY: the handles in `h` are live; `seqs` and `lens` hold 3 entries (at least
        // `count`) for the live `a`, `b` and `c`; `triples` is NULL or has the
        // `3 * triple_count` values read (asserted); `res` is borrowed for the call.
        unsafe {
            clsw_sw3_batch(
                h.engine,
                h.scoring,
                count,
                seqs.as_ptr(),
                lens.as_ptr(),
                triples,
                triple_count,
                std::ptr::null(),
                res,
            )
        }
    };
    let st = batch(2, None, 0, &mut res);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "at least 3");
    assert!(res.is_null());
    let tri = [2u32, 0, 1, 0, 1, 3];
    let st = batch(3, Some(&tri), 2, &mut res);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "out of range");
    let st = batch(3, None, 2, &mut res);
    assert_eq!(st, CLSW_ERR_NULL);
    let st = batch(3, Some(&tri), 1, &mut res);
    assert_eq!(st, CLSW_OK, "{}", common::capi::last_error());
    let mut n = 0;
    // SAFETY: `res` is the live result set just made; `n` is a writable local.
    assert_eq!(unsafe { clsw_sw3_results_count(res, &mut n) }, CLSW_OK);
    assert_eq!(n, 1);
    // SAFETY: clsw_sw3_row is numbers; all-zero is valid.
    let mut row: clsw_sw3_row = unsafe { std::mem::zeroed() };
    row.size = std::mem::size_of::<clsw_sw3_row>();
    // SAFETY: `res` is live; `row` is a whole writable local.
    assert_eq!(unsafe { clsw_sw3_results_get(res, 0, &mut row) }, CLSW_OK);
    assert_eq!((row.a, row.b, row.c, row.score), (2, 0, 1, want.score));
    // SAFETY: as above.
    assert_eq!(unsafe { clsw_sw3_results_get(res, 1, &mut row) }, CLSW_ERR_INVALID_ARGUMENT);
    row.size = 8;
    // SAFETY: as above.
    assert_eq!(unsafe { clsw_sw3_results_get(res, 0, &mut row) }, CLSW_ERR_INVALID_ARGUMENT);
    // SAFETY: `res` came from clsw_sw3_batch and is freed once, here; freeing NULL is allowed.
    unsafe {
        clsw_sw3_results_free(res);
        clsw_sw3_results_free(std::ptr::null_mut());
    }

    // SAX: the hand-computed word, a buffer too small, NaN, a bad alphabet, empty.
    // clsw_sax of the first `len` values of `x` into the first `codes_len` of `codes`;
    // `None` is NULL.
    let sax = |x: Option<&[f64]>,
               len: usize,
               word: usize,
               alphabet: usize,
               codes: Option<&mut [u8]>,
               codes_len: usize,
               constant: Option<&mut i32>| {
        assert!(x.is_none_or(|x| len <= x.len()) && codes.as_ref().is_none_or(|w| codes_len <= w.len()));
        let x = x.map_or(std::ptr::null(), <[f64]>::as_ptr);
        let codes = codes.map_or(std::ptr::null_mut(), <[u8]>::as_mut_ptr);
        let constant = constant.map_or(std::ptr::null_mut(), |c| c as *mut i32);
        // SAFETY: `x` is NULL or has the `len` values read and `codes` NULL or the
        // `codes_len` bytes written (both asserted); `constant` is NULL or borrowed.
        unsafe { clsw_sax(x, len, word, alphabet, codes, codes_len, constant) }
    };
    let x = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0];
    let mut w = [0u8; 6];
    let mut constant = -1;
    assert_eq!(sax(Some(&x), 6, 6, 5, Some(&mut w), 6, Some(&mut constant)), CLSW_OK);
    assert_eq!((w, constant), ([0, 0, 1, 3, 4, 4], 0));
    assert_eq!(w.to_vec(), sax::sax(&x, 6, 5).unwrap().codes);
    // Finite values near the largest double: the same word as the series scaled down
    // (their variance overflowed once, and every symbol came out the same).
    let huge = x.map(|v| v * 1.4e307);
    let mut hw = [9u8; 6];
    assert_eq!(sax(Some(&huge), 6, 6, 5, Some(&mut hw), 6, Some(&mut constant)), CLSW_OK);
    assert_eq!((hw, constant), (w, 0));
    assert_eq!(sax(Some(&x), 6, 6, 5, Some(&mut w), 5, None), CLSW_ERR_BUFFER_TOO_SMALL);
    assert_eq!(sax(Some(&x), 6, 3, 5, None, 3, None), CLSW_ERR_NULL);
    let nan = [1.0, f64::NAN, 3.0];
    let st = sax(Some(&nan), 3, 3, 5, Some(&mut w), 6, None);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "position 2");
    let st = sax(Some(&x), 6, 3, 2, Some(&mut w), 6, None);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "between 3 and 20");
    assert_eq!(sax(Some(&x), 6, 0, 5, Some(&mut w), 6, None), CLSW_ERR_INVALID_ARGUMENT);
    assert_eq!(sax(None, 0, 3, 5, Some(&mut w), 6, None), CLSW_ERR_INVALID_ARGUMENT);
    assert_eq!(sax(None, 6, 3, 5, Some(&mut w), 6, None), CLSW_ERR_NULL);
    // A constant series: the middle symbol, flagged.
    let flat = [5.0; 8];
    assert_eq!(sax(Some(&flat), 8, 4, 5, Some(&mut w), 6, Some(&mut constant)), CLSW_OK);
    assert_eq!((&w[..4], constant), (&[2u8, 2, 2, 2][..], 1));
}

/// bindings/cpp/sw3.cpp (clsw::sw3_score, sw3_align, sw3_batch, sax) prints what the
/// Rust API gives.
#[test]
fn cpp_example_matches_the_rust_api() {
    let got = common::capi::cpp_example_output("sw3.cpp");
    let engine = clsw::Engine::open(Some("reference")).unwrap();
    let scoring = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 1, -1).unwrap(), Gaps::linear(1).unwrap());
    let enc = |s: &str| Alphabet::Dna.encode_all(s.as_bytes()).unwrap();
    let (a, b, c, d) = (enc("ACGTACGGT"), enc("GACGTACGG"), enc("ACGTTCGG"), enc("TTACGTAC"));
    let s = sw3::score(&engine, &a, &b, &c, &scoring).unwrap();
    let e = s.end.unwrap_or([0; 3]);
    let mut want = format!("score\t{}\t{}\t{}\t{}\n", s.score, e[0], e[1], e[2]);
    let al = sw3::align_on(&engine, &a, &b, &c, &scoring).unwrap().unwrap();
    let seqs: [&[u8]; 3] = [&a, &b, &c];
    let rows = al.rows(seqs, |x| Alphabet::Dna.decode(x));
    want +=
        &format!("align\t{}\t{}\t{}\t{}\t{}\t{}\n", al.score, al.len(), al.identities(seqs), rows[0], rows[1], rows[2]);
    let all: Vec<&[u8]> = vec![&a, &b, &c, &d];
    let triples = sw3::all_triples(4).unwrap();
    let scores = sw3::batch(&engine, &all, &triples, &scoring).unwrap();
    for r in sw3::ranked(&triples, &scores).unwrap() {
        want += &format!("batch\t{}\t{}\t{}\t{}\n", r.triple[0], r.triple[1], r.triple[2], r.score.score);
    }
    let w = sax::sax(&[1.0, 2.0, 3.0, 2.5, 0.5, -1.0, 4.0, 3.5], 4, 4).unwrap();
    want += "sax";
    for code in &w.codes {
        want += &format!("\t{code}");
    }
    want += &format!("\t{}\n", w.constant as i32);
    common::capi::assert_same_lines(&got, &want);
}

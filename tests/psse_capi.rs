//! psse through the C ABI (src/capi/psse.rs): a C program compiled against
//! include/clsw.h and libclsw.so prints what clsw_psse and clsw_psse_many give, which
//! must be bit for bit what the Rust API gives; and the calls' contracts (NULL
//! pointers, option sizes, out-of-range indices, per-pair errors) from Rust.

mod common;

use common::capi::Handles;

use clsw::capi::engine::clsw_engine;
use clsw::capi::psse::*;
use clsw::capi::scan::CLSW_VARIANT_TEAM;
use clsw::capi::{CLSW_ERR_BUFFER_TOO_SMALL, CLSW_ERR_INVALID_ARGUMENT, CLSW_ERR_NULL, CLSW_OK};
use clsw::device::DeviceChoice;
use clsw::psse::{PsseOptions, psse_many};
use clsw::seq::Alphabet;
use clsw::{Engine, Error};
use std::ffi::CStr;
use std::process::Command;

const Q: &str =
    "MAKRVYAIAMRYAQALHELAKEQKSLDKWQEDLQNLSRLTEDASVDEFLSNPKIVSARKHAVLAKLSDIDPLMLNLVDMLVATRRLGIMRAISGEYNRLLNEARG";
const S1: &str =
    "KQNETEKSENKEEPRKDYIHVRARRGQATDSHSIAERARREKISERMKLLQDLVPGCNRITGKAVMLDEIINYVQSLQTQVEFLSMKLATINPITEFNANALLSAEMLQ";
const S2: &str =
    "MAKRVYAIAMRYAQALHELAREQKSLDKWQEDLQNLSRLTEDASVDEFLSNPKIVSARKHAVLAKLSDIDPLMLNLVDMLVATRRLGIMRAISGEYNRLLNEARG";

const PROGRAM: &str = r#"
#include <stdio.h>
#include <string.h>
#include "clsw.h"

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, clsw_last_error());
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    clsw_engine *engine = NULL;
    clsw_scoring *scoring = NULL;
    if (clsw_engine_new(NULL, &engine)) return fail("engine");
    if (clsw_scoring_new_builtin("BLOSUM50", 10, 2, &scoring)) return fail("scoring");
    clsw_psse_options o;
    if (clsw_psse_options_init(&o, sizeof o)) return fail("options");
    o.shuffles = 200;
    clsw_psse_result r;
    r.size = sizeof r;
    const char *q = argv[1], *s = argv[2];
    if (clsw_psse(engine, scoring, (const uint8_t *)q, strlen(q), (const uint8_t *)s, strlen(s), &o, &r))
        return fail("clsw_psse");
    printf("one %d %.17g %.17g %.17g %.17g %.17g\n", r.score, r.mu, r.lambda, r.k, r.p_value, r.e_value);

    const uint8_t *queries[1] = {(const uint8_t *)q};
    size_t qlen[1] = {strlen(q)};
    const uint8_t *subjects[3] = {(const uint8_t *)s, (const uint8_t *)argv[3], (const uint8_t *)"W"};
    size_t slen[3] = {strlen(s), strlen(argv[3]), 1};
    o.keep_scores = 1;
    clsw_psse_results *res = NULL;
    if (clsw_psse_many(engine, scoring, 1, queries, qlen, 3, subjects, slen, &o, &res)) return fail("clsw_psse_many");
    size_t n = 0;
    if (clsw_psse_results_count(res, &n)) return fail("count");
    for (size_t i = 0; i < n; i++) {
        if (clsw_psse_results_get(res, i, &r)) return fail("get");
        if (r.status != CLSW_OK) {
            printf("pair %zu status %d %s\n", i, (int)r.status, r.error);
            continue;
        }
        int32_t scores[200];
        size_t needed = 0;
        if (clsw_psse_results_scores(res, i, scores, 200, &needed)) return fail("scores");
        long sum = 0;
        for (size_t k = 0; k < needed; k++) sum += scores[k];
        printf("pair %zu %zu %zu %d %.17g %.17g %.17g %zu %ld\n", i, r.query, r.subject, r.score, r.lambda, r.k,
               r.p_value, needed, sum);
    }
    clsw_psse_results_free(res);
    clsw_scoring_free(scoring);
    clsw_engine_free(engine);
    return 0;
}
"#;

fn codes(s: &str) -> Vec<u8> {
    Alphabet::Protein.encode_all(s.as_bytes()).unwrap()
}

#[test]
fn a_c_program_gets_the_rust_apis_numbers() {
    let dir = std::env::temp_dir().join(format!("clsw-psse-capi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = common::capi::compile_c(&dir, "psse", PROGRAM);
    let mut devices = vec!["reference".to_string()];
    devices.extend(common::test_devices().iter().map(|d| d.info.index.to_string()));
    let opts = PsseOptions { shuffles: 200, keep_scores: true, ..PsseOptions::default() };
    let native = Engine::new(DeviceChoice::Native).unwrap();
    let one = psse_many(&native, &[codes(Q)], &[codes(S1)], &opts).unwrap().remove(0);
    let run = clsw::psse::psse_run(&native, &[codes(Q)], &[codes(S1), codes(S2), codes("W")], &opts).unwrap();
    let mut want = vec![format!(
        "one {} {:?} {:?} {:?} {:?} {:?}",
        one.score, one.mu, one.lambda, one.k, one.p_value, one.e_value
    )];
    for (i, p) in run.pairs.iter().enumerate() {
        match p {
            Ok(r) => want.push(format!(
                "pair {i} 0 {i} {} {:?} {:?} {:?} 200 {}",
                r.score,
                r.lambda,
                r.k,
                r.p_value,
                r.shuffle_scores.iter().map(|&v| v as i64).sum::<i64>()
            )),
            Err(e) => want.push(format!("pair {i} status 2 {e}")),
        }
    }
    for device in devices {
        let out = Command::new(&bin).args([Q, S1, S2]).env("CLSW_DEVICE", &device).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{device}: {}", String::from_utf8_lossy(&out.stderr));
        // %.17g and {:?} both give a double's shortest exact digits only up to formatting;
        // compare the numbers, parsed back, bit for bit (a failed pair's line as text).
        common::capi::assert_same_fields(&device, &stdout, &want, &[' '], |g| g.contains("status"));
    }
}

fn result() -> clsw_psse_result {
    // SAFETY: every field of clsw_psse_result is a number or a raw pointer; all-zero is valid.
    let mut r: clsw_psse_result = unsafe { std::mem::zeroed() };
    r.size = std::mem::size_of::<clsw_psse_result>();
    r
}

#[test]
fn contracts_hold() {
    let h = Handles::builtin(c"BLOSUM50", 10, 2);
    let (q, s) = (Q.as_bytes(), S1.as_bytes());
    let full = std::mem::size_of::<clsw_psse_options>();
    // SAFETY: every field of clsw_psse_options is a number; all-zero is valid.
    let mut o: clsw_psse_options = unsafe { std::mem::zeroed() };
    // clsw_psse with `h.scoring` of `q_len` bytes at `q` against `s`; `None` is NULL.
    let psse = |engine: *const clsw_engine,
                q: *const u8,
                q_len: usize,
                s: &[u8],
                o: Option<&clsw_psse_options>,
                r: Option<&mut clsw_psse_result>| {
        let o = o.map_or(std::ptr::null(), |o| o as *const clsw_psse_options);
        let r = r.map_or(std::ptr::null_mut(), |r| r as *mut clsw_psse_result);
        // SAFETY: each call below passes `h.engine` (live until the test ends) or NULL,
        // and a `q` that is NULL or a live byte string of `q_len` bytes; `h.scoring` is
        // live; `s`, the options and the result (made by `result()`, its size its own)
        // are borrowed for the call.
        unsafe { clsw_psse(engine, h.scoring, q, q_len, s.as_ptr(), s.len(), o, r) }
    };

    // SAFETY: `o` is a writable local of `full` bytes.
    assert_eq!(unsafe { clsw_psse_options_init(&mut o, full) }, CLSW_OK);
    assert_eq!(
        (o.shuffles, o.window, o.seed, o.censor_below, o.variant, o.keep_scores),
        (1000, 0, 42, 0.0, CLSW_VARIANT_TEAM, 0)
    );
    // SAFETY: `o` has more than the 4 bytes offered (refused before anything is written).
    assert_eq!(unsafe { clsw_psse_options_init(&mut o, 4) }, CLSW_ERR_INVALID_ARGUMENT);
    // SAFETY: NULL is refused before the size is used.
    assert_eq!(unsafe { clsw_psse_options_init(std::ptr::null_mut(), 64) }, CLSW_ERR_NULL);
    // SAFETY: `o` is a writable local of `full` bytes.
    unsafe { clsw_psse_options_init(&mut o, full) };
    o.shuffles = 100;
    let mut r = result();
    // NULL handles, outputs and sequences are named.
    let st = psse(std::ptr::null(), q.as_ptr(), q.len(), s, Some(&o), Some(&mut r));
    assert_eq!((st, common::capi::last_error().as_str()), (CLSW_ERR_NULL, "engine is NULL"));
    let st = psse(h.engine, q.as_ptr(), q.len(), s, Some(&o), None);
    assert_eq!(st, CLSW_ERR_NULL);
    let st = psse(h.engine, std::ptr::null(), 5, s, Some(&o), Some(&mut r));
    assert_eq!(st, CLSW_ERR_NULL);
    // NULL options are the defaults (1,000 shuffles).
    let st = psse(h.engine, q.as_ptr(), q.len(), s, None, Some(&mut r));
    assert_eq!(st, CLSW_OK, "{}", common::capi::last_error());
    assert_eq!((r.status, r.shuffles, r.query_length, r.subject_length), (CLSW_OK, 1000, q.len(), s.len()));
    assert!(r.error.is_null() && r.cutoff.is_nan());
    // Bad options and sequences.
    for (field, value) in [("variant", 2.0), ("censor_below", 1.0), ("shuffles", 1.0)] {
        let mut bad = o;
        match field {
            "variant" => bad.variant = value as u32,
            "censor_below" => bad.censor_below = value,
            _ => bad.shuffles = value as usize,
        }
        let st = psse(h.engine, q.as_ptr(), q.len(), s, Some(&bad), Some(&mut r));
        assert_eq!(st, CLSW_ERR_INVALID_ARGUMENT, "{field}");
    }
    let st = psse(h.engine, b"MK1".as_ptr(), 3, s, Some(&o), Some(&mut r));
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "position 3");
    let st = psse(h.engine, q.as_ptr(), q.len(), b"W", Some(&o), Some(&mut r));
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "all equal");
    // A result struct whose size is too small is refused.
    let mut small = result();
    small.size = 8;
    let st = psse(h.engine, q.as_ptr(), q.len(), s, Some(&o), Some(&mut small));
    assert_eq!(st, CLSW_ERR_INVALID_ARGUMENT);

    // Many pairs: per-pair statuses, index checks, scores only when kept.
    let seqs = [q.as_ptr(), b"W".as_ptr()];
    let lens = [q.len(), 1];
    // The first `queries` of `queries_ptr` against the first `subjects` of seqs.
    let many = |queries: usize,
                queries_ptr: *const *const u8,
                subjects: usize,
                o: &clsw_psse_options,
                res: &mut *mut clsw_psse_results| {
        // SAFETY: the handles in `h` are live; each call below passes counts of at most
        // 2 and a `queries_ptr` that is `seqs` or NULL, so every pointer read is NULL or
        // one of `seqs`, into live byte strings of the lengths in `lens`; `o` and `res`
        // are borrowed for the call.
        unsafe {
            clsw_psse_many(
                h.engine,
                h.scoring,
                queries,
                queries_ptr,
                lens.as_ptr(),
                subjects,
                seqs.as_ptr(),
                lens.as_ptr(),
                o,
                res,
            )
        }
    };
    let mut res: *mut clsw_psse_results = std::ptr::null_mut();
    let st = many(1, seqs.as_ptr(), 2, &o, &mut res);
    assert_eq!(st, CLSW_OK, "{}", common::capi::last_error());
    let mut n = 0;
    // SAFETY: `res` is the live result set just made; `n` is a writable local.
    assert_eq!(unsafe { clsw_psse_results_count(res, &mut n) }, CLSW_OK);
    assert_eq!(n, 2);
    // SAFETY: `res` is live; `r` is a whole result from `result()`.
    assert_eq!(unsafe { clsw_psse_results_get(res, 0, &mut r) }, CLSW_OK);
    assert_eq!((r.status, r.query, r.subject), (CLSW_OK, 0, 0));
    // SAFETY: as above.
    assert_eq!(unsafe { clsw_psse_results_get(res, 1, &mut r) }, CLSW_OK);
    assert_eq!((r.status, r.subject, r.lambda), (CLSW_ERR_INVALID_ARGUMENT, 1, 0.0));
    // SAFETY: a failed pair's `error` is a NUL-terminated message owned by `res`, still live.
    assert!(unsafe { CStr::from_ptr(r.error) }.to_str().unwrap().contains("all equal"));
    // SAFETY: `res` is live; `r` is a whole result from `result()`.
    assert_eq!(unsafe { clsw_psse_results_get(res, 2, &mut r) }, CLSW_ERR_INVALID_ARGUMENT);
    let mut buf = [0i32; 100];
    // SAFETY: `res` is live; `buf` has the 100 writable values offered.
    let st = unsafe { clsw_psse_results_scores(res, 0, buf.as_mut_ptr(), 100, std::ptr::null_mut()) };
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "keep_scores");
    // SAFETY: `res` came from clsw_psse_many and is freed once, here; freeing NULL is allowed.
    unsafe {
        clsw_psse_results_free(res);
        clsw_psse_results_free(std::ptr::null_mut());
    }

    o.keep_scores = 1;
    let st = many(1, seqs.as_ptr(), 1, &o, &mut res);
    assert_eq!(st, CLSW_OK);
    let mut needed = 0;
    // SAFETY: `res` is the live result set just made; `buf` has 100 writable values (10
    // are offered); `needed` is a local.
    let st = unsafe { clsw_psse_results_scores(res, 0, buf.as_mut_ptr(), 10, &mut needed) };
    assert_eq!((st, needed), (CLSW_ERR_BUFFER_TOO_SMALL, 100));
    // SAFETY: `res` is live; `buf` has the 100 writable values offered; `needed` is a local.
    let st = unsafe { clsw_psse_results_scores(res, 0, buf.as_mut_ptr(), 100, &mut needed) };
    assert_eq!(st, CLSW_OK);
    assert!(buf.iter().all(|&v| v > 0) && buf.iter().any(|&v| v != buf[0]));
    // SAFETY: `res` came from clsw_psse_many and is freed once, here.
    unsafe { clsw_psse_results_free(res) };
    // A count of 0 and NULL arrays are refused; the output handle is NULL on failure.
    let st = many(0, seqs.as_ptr(), 1, &o, &mut res);
    assert!(st == CLSW_ERR_INVALID_ARGUMENT && res.is_null());
    let st = many(1, std::ptr::null(), 1, &o, &mut res);
    assert!(st == CLSW_ERR_NULL && res.is_null());
    // The Rust error for the same failure, for reference.
    let e =
        clsw::psse::psse(&Engine::new(DeviceChoice::Native).unwrap(), &codes(Q), &codes("W"), &PsseOptions::default());
    assert!(matches!(e, Err(Error::InvalidArgument(_))));
}

/// bindings/cpp/psse.cpp (clsw::psse, clsw::psse_many) prints what the Rust API gives.
#[test]
fn cpp_example_matches_the_rust_api() {
    let got = common::capi::cpp_example_output("psse.cpp");
    let engine = Engine::open(Some("reference")).unwrap();
    let enc = |s: &str| Alphabet::Protein.encode_all(s.as_bytes()).unwrap();
    let (q, s) = (["MKTAYIAKQRQISFVKSHFSRQ", "GSHMLEDPVDAFQGW"], ["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ", "W"]);
    let opts = PsseOptions { shuffles: 200, seed: 7, ..PsseOptions::default() };
    let line = |tag: &str, qi: usize, si: usize, r: &clsw::Result<clsw::psse::PsseResult>, kept: bool| match r {
        Ok(r) => format!(
            "{tag}\t{qi}\t{si}\t0\t{}\t{}\t{}\t{}\t{}\t{}\n",
            r.score,
            r.lambda,
            r.k,
            r.p_value,
            r.e_value,
            if kept { r.shuffle_scores.len() } else { 0 }
        ),
        Err(_) => format!("{tag}\t{qi}\t{si}\t{}\t0\t0\t0\t0\t0\t0\n", CLSW_ERR_INVALID_ARGUMENT as i32),
    };
    let mut want = line("pair", 0, 0, &clsw::psse::psse(&engine, &enc(q[0]), &enc(s[0]), &opts), false);
    let keep = PsseOptions { keep_scores: true, ..opts };
    let (qs, ss): (Vec<Vec<u8>>, Vec<Vec<u8>>) =
        (q.iter().map(|x| enc(x)).collect(), s.iter().map(|x| enc(x)).collect());
    let run = clsw::psse::psse_run(&engine, &qs, &ss, &keep).unwrap();
    for (i, r) in run.pairs.iter().enumerate() {
        want += &line("many", i / 2, i % 2, r, true);
    }
    common::capi::assert_same_lines(&got, &want);
}

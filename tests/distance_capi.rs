//! Distance matrices through the C ABI (src/capi/distance.rs), and the C program that
//! also runs three-sequence alignment (src/capi/sw3.rs; its contracts are in
//! tests/sw3_capi.rs): a C program compiled against
//! include/clsw.h and libclsw.so prints what clsw_distance_*, clsw_sw3_* and clsw_sax
//! give, which must be what the Rust API gives, on the native path and on every test
//! device; and the calls' contracts (NULL pointers, option sizes, buffers too small,
//! out-of-range indices, bad inputs) from Rust.

mod common;

use common::capi::Handles;

use clsw::Engine;
use clsw::capi::distance::*;
use clsw::capi::engine::clsw_engine;
use clsw::capi::{
    CLSW_ERR_BUFFER_TOO_SMALL, CLSW_ERR_INVALID_ARGUMENT, CLSW_ERR_IO, CLSW_ERR_NULL, CLSW_ERR_PARSE, CLSW_OK,
};
use clsw::device::DeviceChoice;
use clsw::distance::input::{read_alignment, read_bed};
use clsw::distance::{Coding, Metric, Options, alignment_matrix, compute, genotype_matrix};
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use clsw::sw3::{self, sax};
use common::data_dir;
use std::ffi::CStr;
use std::process::Command;

const PROGRAM: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clsw.h"

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, clsw_last_error());
    return 1;
}

static void print_u32(const char *tag, const uint32_t *m, size_t n) {
    for (size_t i = 0; i < n; i++) {
        printf("%s", tag);
        for (size_t j = 0; j < n; j++) printf(" %u", (unsigned)m[i * n + j]);
        printf("\n");
    }
}

/* Prints a distance matrix: names (if any), differences, compared counts (if counted),
   values. */
static int show(const char *tag, clsw_distance_result *d) {
    size_t n = 0, needed = 0;
    if (clsw_distance_result_count(d, &n)) return fail("count");
    uint64_t sites = 0, considered = 0;
    if (clsw_distance_result_sites(d, &sites, &considered)) return fail("sites");
    printf("%s n %zu sites %llu %llu\n", tag, n, (unsigned long long)sites, (unsigned long long)considered);
    /* A size query, then a buffer one element short, then the right size. */
    if (clsw_distance_result_matrix(d, NULL, 0, &needed) != CLSW_ERR_BUFFER_TOO_SMALL || needed != n * n)
        return fail("size query");
    uint32_t *m = malloc(n * n * sizeof *m);
    if (clsw_distance_result_matrix(d, m, n * n - 1, NULL) != CLSW_ERR_BUFFER_TOO_SMALL) return fail("too small");
    if (clsw_distance_result_matrix(d, m, n * n, NULL)) return fail("matrix");
    print_u32(tag, m, n);
    if (clsw_distance_result_compared(d, m, n * n, NULL) == CLSW_OK) print_u32("compared", m, n);
    double *v = malloc(n * n * sizeof *v);
    if (clsw_distance_result_values(d, v, n * n, NULL)) return fail("values");
    printf("values");
    for (size_t k = 0; k < n * n; k++) printf(" %.17g", v[k]);
    printf("\n");
    char name[64];
    for (size_t i = 0; i < n; i++) {
        if (clsw_distance_result_name(d, i, name, sizeof name, NULL)) break;
        printf("name %zu %s", i, name);
        if (clsw_distance_result_family(d, i, name, sizeof name, NULL)) return fail("family");
        printf(" %s\n", name);
    }
    free(v);
    free(m);
    clsw_distance_result_free(d);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    clsw_engine *engine = NULL;
    if (clsw_engine_new(NULL, &engine)) return fail("engine");
    clsw_distance_result *d = NULL;

    clsw_distance_options o;
    if (clsw_distance_options_init(&o, sizeof o)) return fail("options");
    o.want_compared = 1;
    if (clsw_distance_fasta(engine, argv[1], &o, &d) || show("fasta", d)) return fail("fasta");
    o.coding = CLSW_DISTANCE_COUNT_GAPS | CLSW_DISTANCE_COUNT_N;
    o.want_compared = 0;
    const char *seqs[3] = {"ACGTNA-T", "acgtAAAT", "TCGTRA-A"};
    const uint8_t *ptrs[3];
    size_t lens[3];
    for (int k = 0; k < 3; k++) ptrs[k] = (const uint8_t *)seqs[k], lens[k] = strlen(seqs[k]);
    if (clsw_distance_aligned(engine, 3, ptrs, lens, &o, &d) || show("aligned", d)) return fail("aligned");
    o.coding = CLSW_DISTANCE_SNP;
    o.metric = CLSW_METRIC_IBS;
    if (clsw_distance_bed(engine, argv[2], &o, &d) || show("bed", d)) return fail("bed");
    const int8_t g[12] = {0, 1, 2, -1, 0, 2, 2, 1, 2, 1, -1, 1};
    o.metric = CLSW_METRIC_ALLELE_CT;
    if (clsw_distance_genotypes(engine, g, 3, 4, &o, &d) || show("genotypes", d)) return fail("genotypes");

    clsw_scoring *seed = NULL;
    if (clsw_scoring_new_match_mismatch(CLSW_ALPHABET_DNA, 1, -1, 0, 1, &seed)) return fail("scoring");
    const char *a = "TTTTACGTACGGTCCC", *b = "GGACGTACGGTAA", *c = "ACGTACGGTC";
    int32_t score = -1;
    size_t end[3] = {0, 0, 0};
    if (clsw_sw3_score(engine, seed, (const uint8_t *)a, strlen(a), (const uint8_t *)b, strlen(b),
                       (const uint8_t *)c, strlen(c), NULL, &score, end))
        return fail("sw3_score");
    printf("sw3 score %d end %zu %zu %zu\n", score, end[0], end[1], end[2]);
    clsw_sw3_alignment *aln = NULL;
    if (clsw_sw3_align(engine, seed, (const uint8_t *)a, strlen(a), (const uint8_t *)b, strlen(b),
                       (const uint8_t *)c, strlen(c), NULL, &aln))
        return fail("sw3_align");
    clsw_sw3_alignment_info info = {.size = sizeof info};
    if (clsw_sw3_alignment_get(aln, &info)) return fail("sw3_alignment_get");
    printf("sw3 align %d %zu-%zu %zu-%zu %zu-%zu %zu %zu %zu %s %s %s\n", info.score, info.start[0], info.end[0],
           info.start[1], info.end[1], info.start[2], info.end[2], info.length, info.identities,
           info.gapped_columns, info.rows[0], info.rows[1], info.rows[2]);
    clsw_sw3_alignment_free(aln);

    const char *set[5] = {a, b, c, "CCCC", "GGTAAC"};
    const uint8_t *sp[5];
    size_t sl[5];
    for (int k = 0; k < 5; k++) sp[k] = (const uint8_t *)set[k], sl[k] = strlen(set[k]);
    clsw_sw3_results *res = NULL;
    if (clsw_sw3_batch(engine, seed, 5, sp, sl, NULL, 0, NULL, &res)) return fail("sw3_batch");
    size_t count = 0;
    if (clsw_sw3_results_count(res, &count)) return fail("results_count");
    for (size_t k = 0; k < count; k++) {
        clsw_sw3_row row = {.size = sizeof row};
        if (clsw_sw3_results_get(res, k, &row)) return fail("results_get");
        printf("row %zu %zu %zu %d %zu %zu %zu\n", row.a, row.b, row.c, row.score, row.end[0], row.end[1],
               row.end[2]);
    }
    clsw_sw3_results_free(res);

    /* SAX words of three shifted series, aligned as codes. */
    double x[3][48];
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < 48; i++) x[s][i] = (double)((i + 3 * s) % 16) - (i % 5 == 0 ? 2.5 : 0.0);
    uint8_t words[3][12];
    for (int s = 0; s < 3; s++) {
        int constant = -1;
        if (clsw_sax(x[s], 48, 12, 6, words[s], 12, &constant)) return fail("sax");
        printf("sax %d", constant);
        for (int i = 0; i < 12; i++) printf(" %u", (unsigned)words[s][i]);
        printf("\n");
    }
    clsw_scoring *codes = NULL;
    if (clsw_scoring_new_match_mismatch(CLSW_ALPHABET_PROTEIN, 1, -1, 0, 1, &codes)) return fail("codes scoring");
    clsw_sw3_options so;
    if (clsw_sw3_options_init(&so, sizeof so)) return fail("sw3 options");
    so.input = CLSW_SW3_CODES;
    if (clsw_sw3_score(engine, codes, words[0], 12, words[1], 12, words[2], 12, &so, &score, NULL))
        return fail("sw3 codes");
    printf("sax sw3 %d\n", score);

    clsw_scoring_free(codes);
    clsw_scoring_free(seed);
    clsw_engine_free(engine);
    return 0;
}
"#;

/// What the C program prints for one distance matrix, from the Rust API.
fn show(
    tag: &str,
    dm: &clsw::distance::DistanceMatrix,
    metric: Metric,
    names: Option<Vec<(String, String)>>,
) -> Vec<String> {
    let n = dm.n;
    let mut out = vec![format!("{tag} n {n} sites {} {}", dm.sites, dm.considered_sites)];
    let row = |tag: &str, m: &[u32], i: usize| {
        format!("{tag}{}", m[i * n..(i + 1) * n].iter().map(|v| format!(" {v}")).collect::<String>())
    };
    let sq = dm.square().unwrap();
    out.extend((0..n).map(|i| row(tag, &sq, i)));
    if let Some(c) = dm.square_compared().unwrap() {
        out.extend((0..n).map(|i| row("compared", &c, i)));
    }
    let values: String = (0..n * n).map(|k| format!(" {:?}", dm.value(metric, k / n, k % n))).collect();
    out.push(format!("values{values}"));
    for (i, (family, id)) in names.into_iter().flatten().enumerate() {
        out.push(format!("name {i} {id} {family}"));
    }
    out
}

fn expected(engine: &Engine) -> Vec<String> {
    let dist = data_dir().join("distance");
    let mut want = Vec::new();
    let names = |d: &clsw::distance::Dataset| Some(d.names.iter().map(|n| (n.family.clone(), n.id.clone())).collect());
    let with_compared = Options { want_compared: true, ..Options::default() };

    let data = read_alignment(&dist.join("hand.fa"), Coding::SNP).unwrap();
    let (dm, _) = compute(engine, &data.packed, &with_compared).unwrap();
    want.extend(show("fasta", &dm, Metric::Differences, names(&data)));

    let coding = Coding::Nucleotide { count_gaps: true, count_n: true };
    let dm = alignment_matrix(engine, &["ACGTNA-T", "acgtAAAT", "TCGTRA-A"], coding, &Options::default()).unwrap();
    want.extend(show("aligned", &dm, Metric::Differences, None));

    let data = read_bed(&dist.join("b")).unwrap();
    let (dm, _) = compute(engine, &data.packed, &with_compared).unwrap();
    want.extend(show("bed", &dm, Metric::Ibs, names(&data)));

    let g: [i8; 12] = [0, 1, 2, -1, 0, 2, 2, 1, 2, 1, -1, 1];
    let dm = genotype_matrix(engine, &g, 3, &with_compared).unwrap();
    want.extend(show("genotypes", &dm, Metric::AlleleCount, None));

    let d = |s: &str| Alphabet::Dna.encode_all(s.as_bytes()).unwrap();
    let seed = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 1, -1).unwrap(), Gaps::linear(1).unwrap());
    let (a, b, c) = (d("TTTTACGTACGGTCCC"), d("GGACGTACGGTAA"), d("ACGTACGGTC"));
    let best = sw3::score(engine, &a, &b, &c, &seed).unwrap();
    let e = best.end.unwrap();
    want.push(format!("sw3 score {} end {} {} {}", best.score, e[0], e[1], e[2]));
    let aln = sw3::align(&a, &b, &c, &seed).unwrap().unwrap();
    let rows = aln.rows([&a, &b, &c], |x| Alphabet::Dna.decode(x));
    want.push(format!(
        "sw3 align {} {}-{} {}-{} {}-{} {} {} {} {} {} {}",
        aln.score,
        aln.start[0] + 1,
        aln.end[0],
        aln.start[1] + 1,
        aln.end[1],
        aln.start[2] + 1,
        aln.end[2],
        aln.len(),
        aln.identities([&a, &b, &c]),
        aln.gapped_columns(),
        rows[0],
        rows[1],
        rows[2]
    ));

    let set = [a.clone(), b.clone(), c.clone(), d("CCCC"), d("GGTAAC")];
    let refs: Vec<&[u8]> = set.iter().map(|s| s.as_slice()).collect();
    let triples = sw3::all_triples(5).unwrap();
    let scores = sw3::batch(engine, &refs, &triples, &seed).unwrap();
    for r in sw3::ranked(&triples, &scores).unwrap() {
        let e = r.score.end.unwrap_or([0; 3]);
        want.push(format!(
            "row {} {} {} {} {} {} {}",
            r.triple[0], r.triple[1], r.triple[2], r.score.score, e[0], e[1], e[2]
        ));
    }

    let mut words = Vec::new();
    for s in 0..3 {
        let x: Vec<f64> = (0..48).map(|i| ((i + 3 * s) % 16) as f64 - if i % 5 == 0 { 2.5 } else { 0.0 }).collect();
        let w = sax::sax(&x, 12, 6).unwrap();
        want.push(format!("sax {}{}", w.constant as i32, w.codes.iter().map(|c| format!(" {c}")).collect::<String>()));
        words.push(w.codes);
    }
    let codes = Scoring::new(Matrix::match_mismatch(Alphabet::Protein, 1, -1).unwrap(), Gaps::linear(1).unwrap());
    want.push(format!("sax sw3 {}", sw3::score(engine, &words[0], &words[1], &words[2], &codes).unwrap().score));
    want
}

#[test]
fn a_c_program_gets_the_rust_apis_answers() {
    let dir = std::env::temp_dir().join(format!("clsw-distance-sw3-capi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = common::capi::compile_c(&dir, "distance_sw3", PROGRAM);
    let native = Engine::new(DeviceChoice::Native).unwrap();
    let want = expected(&native);
    // The hand-made alignment's hand-computed answers (tests/distance.rs) are among them.
    assert!(want.contains(&"fasta 0 1 0 2 0".to_string()) && want.contains(&"fasta 2 3 1 0 2".to_string()));
    assert!(want.contains(&"sw3 score 27 end 13 11 9".to_string()), "{want:?}");
    let mut devices = vec!["reference".to_string()];
    devices.extend(common::test_devices().iter().map(|d| d.info.index.to_string()));
    let dist = data_dir().join("distance");
    for device in devices {
        let out = Command::new(&bin)
            .arg(dist.join("hand.fa"))
            .arg(dist.join("b"))
            .env("CLSW_DEVICE", &device)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{device}: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
        // %.17g and {:?} print the same double differently; compare numbers bit for bit.
        common::capi::assert_same_fields(&device, &stdout, &want, &[' '], |_| false);
    }
}

#[test]
fn distance_contracts_hold() {
    let h = Handles::dna_seed();
    let seqs: [&[u8]; 2] = [b"ACGT", b"ACGA"];
    let ptrs = seqs.map(|s| s.as_ptr());
    let lens = seqs.map(|s| s.len());
    let mut d: *mut clsw_distance_result = std::ptr::null_mut();
    let full = std::mem::size_of::<clsw_distance_options>();
    // SAFETY: every field of clsw_distance_options is a number; all-zero is valid.
    let mut o: clsw_distance_options = unsafe { std::mem::zeroed() };
    // clsw_distance_aligned on an engine that is `h.engine` or NULL.
    let aligned = |engine: *const clsw_engine,
                   count: usize,
                   ptrs: *const *const u8,
                   lens: *const usize,
                   o: *const clsw_distance_options,
                   out: *mut *mut clsw_distance_result| {
        // SAFETY: each call below passes `h.engine` (live until the test ends) or NULL;
        // NULL or 2-entry arrays of pointers into live 4-byte strings and of lengths up
        // to 4 (a count of at most 2); options that are NULL or a whole local; and NULL
        // or `&mut d`.
        unsafe { clsw_distance_aligned(engine, count, ptrs, lens, o, out) }
    };
    // clsw_distance_fasta on `h.engine`; `None` is a NULL path.
    let fasta = |path: Option<&CStr>, o: &clsw_distance_options, out: &mut *mut clsw_distance_result| {
        let path = path.map_or(std::ptr::null(), CStr::as_ptr);
        // SAFETY: `h.engine` is live; the path is NULL or NUL-terminated; `o` is a whole
        // options struct and `out` writable, both borrowed for the call.
        unsafe { clsw_distance_fasta(h.engine, path, o, out) }
    };

    // Options: defaults, size checks, NULL.
    // SAFETY: `o` is a writable local of `full` bytes.
    assert_eq!(unsafe { clsw_distance_options_init(&mut o, full) }, CLSW_OK);
    assert_eq!((o.coding, o.ignore_constant, o.variant, o.want_compared, o.metric), (0, 0, 0, 0, 0));
    // SAFETY: `o` has more than the 4 bytes offered (refused before anything is written).
    assert_eq!(unsafe { clsw_distance_options_init(&mut o, 4) }, CLSW_ERR_INVALID_ARGUMENT);
    // SAFETY: NULL is refused before the size is used.
    assert_eq!(unsafe { clsw_distance_options_init(std::ptr::null_mut(), 64) }, CLSW_ERR_NULL);
    // SAFETY: `o` is a writable local of `full` bytes.
    unsafe { clsw_distance_options_init(&mut o, full) };
    let mut small = o;
    small.size = 8;
    let st = aligned(h.engine, 2, ptrs.as_ptr(), lens.as_ptr(), &small, &mut d);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "clsw_distance_options.size");
    for (field, value) in [("coding", 4u32), ("variant", 3), ("metric", 4)] {
        let mut bad = o;
        match field {
            "coding" => bad.coding = value,
            "variant" => bad.variant = value,
            _ => bad.metric = value,
        }
        let st = aligned(h.engine, 2, ptrs.as_ptr(), lens.as_ptr(), &bad, &mut d);
        common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, field);
        assert!(d.is_null());
    }
    // NULL handles, arrays and outputs are named.
    let st = aligned(std::ptr::null(), 2, ptrs.as_ptr(), lens.as_ptr(), &o, &mut d);
    assert_eq!((st, common::capi::last_error().as_str()), (CLSW_ERR_NULL, "engine is NULL"));
    let st = aligned(h.engine, 2, std::ptr::null(), lens.as_ptr(), &o, &mut d);
    common::capi::assert_fails(st, CLSW_ERR_NULL, "sequences");
    let st = aligned(h.engine, 2, ptrs.as_ptr(), lens.as_ptr(), &o, std::ptr::null_mut());
    assert_eq!(st, CLSW_ERR_NULL);
    let st = fasta(None, &o, &mut d);
    assert_eq!(st, CLSW_ERR_NULL);
    // Bad inputs: no sequences, ragged, a bad letter, a missing file, genotype options.
    assert_eq!(aligned(h.engine, 0, ptrs.as_ptr(), lens.as_ptr(), &o, &mut d), CLSW_ERR_INVALID_ARGUMENT);
    let ragged = [4usize, 3];
    let st = aligned(h.engine, 2, ptrs.as_ptr(), ragged.as_ptr(), &o, &mut d);
    assert_eq!(st, CLSW_ERR_INVALID_ARGUMENT, "{}", common::capi::last_error());
    let bad: [&[u8]; 2] = [b"ACGT", b"AC1T"];
    let bad_ptrs = bad.map(|s| s.as_ptr());
    let st = aligned(h.engine, 2, bad_ptrs.as_ptr(), lens.as_ptr(), &o, &mut d);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "site 3");
    let st = fasta(Some(c"/nonexistent/aln.fa"), &o, &mut d);
    common::capi::assert_fails(st, CLSW_ERR_IO, "/nonexistent/aln.fa");
    // A file whose alignment is ragged or empty is malformed: CLSW_ERR_PARSE, as the
    // header says, naming the file, the record and the lengths.
    for (name, text, needed) in [
        ("ragged.fa", ">a\nACGT\n>b\nACG\n", "sequence 'b' has 3 sites, but the first sequence 'a' has 4"),
        ("empty.fa", ">a\n\n>b\nACG\n", "record is empty"),
    ] {
        let path = common::cli::scratch(name, text.as_bytes());
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        let st = fasta(Some(&c_path), &o, &mut d);
        common::capi::assert_fails(st, CLSW_ERR_PARSE, needed);
        common::capi::assert_fails(st, CLSW_ERR_PARSE, name);
        assert!(d.is_null());
    }
    // SAFETY: `h.engine` is live; the path is a NUL-terminated literal; `o` and `d` are locals.
    let st = unsafe { clsw_distance_bed(h.engine, c"/nonexistent/set".as_ptr(), &o, &mut d) };
    assert_eq!(st, CLSW_ERR_IO, "{}", common::capi::last_error());
    let mut gaps = o;
    gaps.coding = CLSW_DISTANCE_COUNT_GAPS;
    let g = [0i8, 1, 2, 0];
    // clsw_distance_genotypes on `h.engine` over `samples` x 2 values of `g` (NULL if None).
    let genotypes =
        |g: Option<&[i8; 4]>, samples: usize, o: &clsw_distance_options, out: &mut *mut clsw_distance_result| {
            assert!(samples <= 2, "`g` holds 2 samples of 2 sites");
            let g = g.map_or(std::ptr::null(), |g| g.as_ptr());
            // SAFETY: `h.engine` is live; `g` is NULL or has the `samples * 2 <= 4` values
            // read; `o` and `out` are borrowed for the call.
            unsafe { clsw_distance_genotypes(h.engine, g, samples, 2, o, out) }
        };
    let st = genotypes(Some(&g), 2, &gaps, &mut d);
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "alignments only");
    assert_eq!(genotypes(Some(&g), 0, &o, &mut d), CLSW_ERR_INVALID_ARGUMENT);
    assert_eq!(genotypes(None, 2, &o, &mut d), CLSW_ERR_NULL);
    assert!(d.is_null());

    // A good matrix: buffers, sizes, names.
    assert_eq!(aligned(h.engine, 2, ptrs.as_ptr(), lens.as_ptr(), std::ptr::null(), &mut d), CLSW_OK);
    let mut n = 0;
    // SAFETY: `d` is the live result just made; `n` is a writable local.
    assert_eq!(unsafe { clsw_distance_result_count(d, &mut n) }, CLSW_OK);
    assert_eq!(n, 2);
    // SAFETY: `d` is live; the NULL output is refused.
    assert_eq!(unsafe { clsw_distance_result_count(d, std::ptr::null_mut()) }, CLSW_ERR_NULL);
    let mut buf = [7u32; 4];
    let mut needed = 0;
    // SAFETY: `d` is live; `buf` has 4 writable values (3 are offered); `needed` is a local.
    let st = unsafe { clsw_distance_result_matrix(d, buf.as_mut_ptr(), 3, &mut needed) };
    assert_eq!(st, CLSW_ERR_BUFFER_TOO_SMALL);
    assert_eq!((needed, buf), (4, [7; 4]), "nothing is written when the buffer is too small");
    assert!(common::capi::last_error().contains("4 are needed"), "{}", common::capi::last_error());
    // SAFETY: `d` is live; the NULL buffer is refused; `needed` is a local.
    assert_eq!(unsafe { clsw_distance_result_matrix(d, std::ptr::null_mut(), 4, &mut needed) }, CLSW_ERR_NULL);
    // SAFETY: `d` is live; `buf` has the 4 writable values offered.
    assert_eq!(unsafe { clsw_distance_result_matrix(d, buf.as_mut_ptr(), 4, std::ptr::null_mut()) }, CLSW_OK);
    assert_eq!(buf, [0, 1, 1, 0]);
    // Compared counts were not asked for; names do not exist for caller arrays.
    // SAFETY: as above.
    let st = unsafe { clsw_distance_result_compared(d, buf.as_mut_ptr(), 4, std::ptr::null_mut()) };
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "want_compared");
    let mut name = [0 as std::ffi::c_char; 8];
    // SAFETY: `d` is live; `name` has the 8 writable bytes offered.
    let st = unsafe { clsw_distance_result_name(d, 0, name.as_mut_ptr(), 8, std::ptr::null_mut()) };
    common::capi::assert_fails(st, CLSW_ERR_INVALID_ARGUMENT, "no names");
    let mut values = [0f64; 4];
    // SAFETY: `d` is live; `values` has 4 writable values (2 are offered); `needed` is a local.
    let st = unsafe { clsw_distance_result_values(d, values.as_mut_ptr(), 2, &mut needed) };
    assert_eq!(st, CLSW_ERR_BUFFER_TOO_SMALL);
    // SAFETY: `d` is live; `values` has the 4 writable values offered; `needed` is a local.
    assert_eq!(unsafe { clsw_distance_result_values(d, values.as_mut_ptr(), 4, &mut needed) }, CLSW_OK);
    assert_eq!(values, [0.0, 1.0, 1.0, 0.0]);
    // SAFETY: `d` came from clsw_distance_aligned and is freed once, here (and reset to
    // NULL below); freeing NULL is allowed.
    unsafe {
        clsw_distance_result_free(d);
        clsw_distance_result_free(std::ptr::null_mut());
    }
    d = std::ptr::null_mut();
    // SAFETY: `d` is NULL (refused); `n` is a writable local.
    assert_eq!(unsafe { clsw_distance_result_count(d, &mut n) }, CLSW_ERR_NULL);

    // File inputs have names; an index out of range is refused; a short name buffer
    // gets the size needed.
    let path = std::ffi::CString::new(data_dir().join("distance/hand.fa").to_str().unwrap()).unwrap();
    let mut ibs = o;
    ibs.metric = CLSW_METRIC_IBS;
    assert_eq!(fasta(Some(&path), &ibs, &mut d), CLSW_OK, "{}", common::capi::last_error());
    // SAFETY: `d` is the live result just made; `name` has 8 writable bytes (2 are
    // offered); `needed` is a local.
    let st = unsafe { clsw_distance_result_name(d, 1, name.as_mut_ptr(), 2, &mut needed) };
    assert_eq!((st, needed), (CLSW_ERR_BUFFER_TOO_SMALL, 3));
    // SAFETY: `d` is live; `name` has the 8 writable bytes offered.
    assert_eq!(unsafe { clsw_distance_result_name(d, 1, name.as_mut_ptr(), 8, std::ptr::null_mut()) }, CLSW_OK);
    // SAFETY: clsw_distance_result_name wrote a NUL-terminated name into `name`.
    assert_eq!(unsafe { CStr::from_ptr(name.as_ptr()) }.to_str().unwrap(), "s2");
    // SAFETY: `d` is live; `name` has the 8 writable bytes offered.
    let st = unsafe { clsw_distance_result_name(d, 5, name.as_mut_ptr(), 8, std::ptr::null_mut()) };
    assert_eq!(st, CLSW_ERR_INVALID_ARGUMENT);
    let mut c = [0u32; 25];
    // SAFETY: `d` is live; `c` has the 25 writable values offered.
    let st = unsafe { clsw_distance_result_compared(d, c.as_mut_ptr(), 25, std::ptr::null_mut()) };
    assert_eq!(st, CLSW_OK, "the metric implies it");
    assert_eq!(c[1], 12);
    let mut v = [0f64; 25];
    // SAFETY: `d` is live; `v` has the 25 writable values offered.
    assert_eq!(unsafe { clsw_distance_result_values(d, v.as_mut_ptr(), 25, std::ptr::null_mut()) }, CLSW_OK);
    assert_eq!((v[0], v[1]), (1.0, 1.0 - 1.0 / 12.0));

    // The 0.1 names (deprecated aliases, kept for one release) still answer.
    #[allow(deprecated)]
    {
        let old: *const clsw_distances = d;
        let mut n = 0usize;
        // SAFETY: `old` is the live result `d` under its old name; `n` is a writable local.
        assert_eq!(unsafe { clsw_distances_count(old, &mut n) }, CLSW_OK);
        assert_eq!(n, 5);
        let mut old_v = [0f64; 25];
        // SAFETY: `old` is live; `old_v` has the 25 writable values offered.
        assert_eq!(unsafe { clsw_distances_values(old, old_v.as_mut_ptr(), 25, std::ptr::null_mut()) }, CLSW_OK);
        assert_eq!(old_v, v);
        // SAFETY: `d` came from clsw_distance_fasta and is freed once, here.
        unsafe { clsw_distances_free(d) };
    }
}

/// bindings/cpp/distance.cpp (clsw::DistanceResult) prints what the Rust API gives.
#[test]
fn cpp_example_matches_the_rust_api() {
    let got = common::capi::cpp_example_output("distance.cpp");
    let engine = Engine::open(Some("reference")).unwrap();
    let seqs = ["ACGTACGTAC", "ACGTTCGTAA", "ACG-ACGNAC", "TCGTACGTAC"];
    let packed = clsw::distance::pack_alignment(&seqs, Coding::SNP).unwrap();
    let opts = Options { want_compared: Metric::Ibs.want_compared(false), ..Options::default() };
    let (m, _) = compute(&engine, &packed, &opts).unwrap();
    let n = m.n;
    let (diff, compared) = (m.square().unwrap(), m.square_compared().unwrap().unwrap());
    let mut want = format!("sites\t{n}\t{}\t{}\n", m.sites, m.considered_sites);
    for i in 0..n {
        want += &format!("row\t{i}");
        for j in 0..n {
            want += &format!("\t{}/{}/{}", diff[i * n + j], compared[i * n + j], m.value(Metric::Ibs, i, j));
        }
        want += "\n";
    }
    common::capi::assert_same_lines(&got, &want);
}

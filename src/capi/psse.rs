//! Pairwise statistical significance: shuffle the subject, align the query with every
//! shuffle on the engine's devices, fit a Gumbel, and read the real score's P-value
//! and E-value (`clsw psse`, `ssearch36 -k`); one pair, or every pair of two sets.

use super::engine::clsw_engine;
use super::scan::{CLSW_VARIANT_TEAM, clsw_variant, variant_from};
use super::scoring::clsw_scoring;
use super::*;
use crate::psse::{PsseOptions, PsseResult, Variant, psse_run};

/// How significance is estimated. Fill it with `clsw_psse_options_init`, then change
/// fields; or pass NULL for the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_psse_options {
    /// `sizeof(clsw_psse_options)` (set by `clsw_psse_options_init`).
    pub size: usize,
    /// Shuffles of each subject (at least 2). Default 1000.
    pub shuffles: usize,
    /// 0: uniform shuffles of the whole subject; `w > 0`: shuffles within consecutive
    /// windows of `w` residues (local composition kept, like `prss -v w`). Default 0.
    pub window: usize,
    /// Seed of the shuffles' generator: the same seed gives the same shuffles, scores
    /// and fits on every device and on the native CPU path. Default 42.
    pub seed: u64,
    /// 0: complete maximum-likelihood fit. A quantile strictly between 0 and 1:
    /// censored fit, shuffle scores below that quantile counted but not used. Default 0.
    pub censor_below: f64,
    /// `CLSW_VARIANT_TEAM` (two shuffles per team of work-items, the query's rows
    /// spread over the team; with enough queries, two queries per team against one
    /// shuffle), `CLSW_VARIANT_FAST` (two shuffles per work-item in 16-bit
    /// lanes) or `CLSW_VARIANT_INTER` (one per work-item); the native CPU path ignores
    /// it. All give the same results. Default `CLSW_VARIANT_TEAM`.
    pub variant: clsw_variant,
    /// Nonzero: keep every pair's shuffle scores (`clsw_psse_results_scores`). Default 0.
    pub keep_scores: i32,
}

versioned!(clsw_psse_options);

impl Default for clsw_psse_options {
    fn default() -> Self {
        let d = PsseOptions::default();
        clsw_psse_options {
            size: std::mem::size_of::<clsw_psse_options>(),
            shuffles: d.shuffles,
            window: d.window,
            seed: d.seed,
            censor_below: 0.0,
            variant: CLSW_VARIANT_TEAM,
            keep_scores: 0,
        }
    }
}

/// Fills `*options` with the defaults (1,000 uniform shuffles, seed 42, complete fit).
/// `size` is the caller's `sizeof(clsw_psse_options)`: only that many bytes are
/// written, so a program compiled against an older header stays correct.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` smaller than the first version's),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `options` is NULL or has `size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_psse_options_init(options: *mut clsw_psse_options, size: usize) -> clsw_status {
    // SAFETY: `options` is NULL or has `size` writable bytes (the caller's promise).
    unsafe { options_init(options, size) }
}

fn psse_options(o: &clsw_psse_options, sc: &clsw_scoring) -> Outcome<PsseOptions> {
    let variant = match variant_from(o.variant)? {
        Some(v) => Variant::try_from(v).map_err(|e| Failure::invalid(format!("options.variant {}: {e}", o.variant)))?,
        None => Variant::default(),
    };
    let opts = PsseOptions {
        shuffles: o.shuffles,
        window: o.window,
        seed: o.seed,
        // 0 is the complete fit; any other value is a quantile for the library to check.
        censor_below: (o.censor_below != 0.0).then_some(o.censor_below),
        variant,
        keep_scores: o.keep_scores != 0,
        ..PsseOptions::new(sc.scoring.clone())
    };
    opts.validate()?;
    Ok(opts)
}

/// One pair's significance (`clsw_psse`, `clsw_psse_results_get`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_psse_result {
    /// `sizeof(clsw_psse_result)`, set by the caller.
    pub size: usize,
    /// `CLSW_OK`, or why this pair has no statistics (`CLSW_ERR_INVALID_ARGUMENT` when
    /// its shuffle scores cannot be fitted, e.g. all equal); the numbers below are then 0.
    pub status: clsw_status,
    /// The pair's query: its 0-based index among the queries.
    pub query: usize,
    /// The pair's subject: its 0-based index among the subjects.
    pub subject: usize,
    /// Query length (`m`).
    pub query_length: usize,
    /// Subject length (`n`).
    pub subject_length: usize,
    /// The pair's Smith-Waterman score.
    pub score: i32,
    /// Location of the Gumbel fitted to the shuffle scores.
    pub mu: f64,
    /// Its scale: `P(S <= x) = exp(-exp(-lambda (x - mu)))`.
    pub lambda: f64,
    /// `K = exp(lambda mu) / (m n)`.
    pub k: f64,
    /// `P(S >= score) = 1 - exp(-e_value)`.
    pub p_value: f64,
    /// `K m n exp(-lambda score)`: expected alignments scoring at least `score` in one
    /// comparison of the two sequences (ssearch36's `E(1)`).
    pub e_value: f64,
    /// Shuffles aligned.
    pub shuffles: usize,
    /// Shuffle scores below the censoring cutoff (0 for a complete fit).
    pub censored: usize,
    /// The censoring cutoff (a score); `NaN` for a complete fit.
    pub cutoff: f64,
    /// Alignments recomputed exactly after their 16-bit device score saturated.
    pub recomputed: usize,
    /// Why the pair has no statistics (NUL-terminated, owned by the results handle), or
    /// NULL when `status` is `CLSW_OK`. Always NULL from `clsw_psse`, which returns the
    /// failure instead.
    pub error: *const c_char,
}

versioned!(clsw_psse_result);

fn result_of(
    q: usize,
    s: usize,
    m: usize,
    n: usize,
    r: &crate::Result<PsseResult>,
    error: *const c_char,
) -> clsw_psse_result {
    // SAFETY: every field of clsw_psse_result is a number or a raw pointer, for which
    // all-zero bytes are a valid value.
    let mut c: clsw_psse_result = unsafe { std::mem::zeroed() };
    c.size = std::mem::size_of::<clsw_psse_result>();
    (c.query, c.subject, c.query_length, c.subject_length) = (q, s, m, n);
    c.cutoff = f64::NAN;
    match r {
        Ok(r) => {
            c.status = CLSW_OK;
            c.score = r.score;
            (c.mu, c.lambda, c.k, c.p_value, c.e_value) = (r.mu, r.lambda, r.k, r.p_value, r.e_value);
            (c.shuffles, c.censored, c.recomputed) = (r.shuffles, r.censored, r.recomputed);
            c.cutoff = r.cutoff.unwrap_or(f64::NAN);
        }
        Err(e) => {
            c.status = status_of(e);
            c.error = error;
        }
    }
    c
}

/// The significance of one pair: `query` (`query_len` letters) against `subject`
/// (`subject_len` letters), residue letters of the scoring's alphabet (not
/// NUL-terminated; upper or lower case). The subject is shuffled `options.shuffles`
/// times on the engine's devices (it is subject number 0 for the generator), the query
/// is aligned with every shuffle, a Gumbel is fitted to those scores, and `*out` (whose
/// `size` the caller sets to `sizeof(clsw_psse_result)`) gets the real score's P-value
/// and E-value. `options` NULL gives the defaults.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (an empty sequence, a letter that is not a
/// residue, an impossible option, shuffle scores that cannot be fitted: all equal, as
/// for a one-residue subject), `CLSW_ERR_OPENCL`, `CLSW_ERR_DEVICE`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `engine` and `scoring` are NULL or live handles; `query` and `subject` are NULL or
/// have `query_len` and `subject_len` readable bytes; `options` is NULL or has
/// `options->size` readable bytes; `out` is NULL or has `out->size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_psse(
    engine: *const clsw_engine,
    scoring: *const clsw_scoring,
    query: *const u8,
    query_len: usize,
    subject: *const u8,
    subject_len: usize,
    options: *const clsw_psse_options,
    out: *mut clsw_psse_result,
) -> clsw_status {
    run(|| {
        // SAFETY: `engine` is NULL or a live engine (the caller's promise).
        let e = unsafe { handle(engine, "engine") }?;
        // SAFETY: `scoring` is NULL or a live scoring (the caller's promise).
        let sc = unsafe { handle(scoring, "scoring") }?;
        if out.is_null() {
            return Err(Failure::null("out (the result)"));
        }
        // SAFETY: `options` is NULL or sized and readable (the caller's promise).
        let o = unsafe { read_versioned(options, clsw_psse_options::default()) }?;
        let opts = psse_options(&o, sc)?;
        let alphabet = sc.scoring.matrix.alphabet();
        // SAFETY: `query` is NULL or has `query_len` readable bytes (the caller's promise).
        let q = encode(unsafe { bytes(query, query_len, "query") }?, alphabet, "query")?;
        // SAFETY: `subject` is NULL or has `subject_len` readable bytes (the caller's promise).
        let s = encode(unsafe { bytes(subject, subject_len, "subject") }?, alphabet, "subject")?;
        let r = crate::psse::psse(&e.engine, &q, &s, &opts)?;
        let c = result_of(0, 0, q.len(), s.len(), &Ok(r), std::ptr::null());
        // SAFETY: `out` is non-NULL (checked above), sized and writable (the caller's
        // promise).
        unsafe { write_versioned(out, c, "out (the result)") }
    })
}

/// The results of `clsw_psse_many`: one per pair, query-major (pair `(q, s)` at index
/// `q * subject_count + s`). Immutable; give each thread its own.
pub struct clsw_psse_results {
    pairs: Vec<crate::Result<PsseResult>>,
    /// Per pair: (query, subject, query length, subject length).
    shape: Vec<(usize, usize, usize, usize)>,
    errors: Vec<Option<CString>>,
}

/// `count` caller sequences (`lengths[k]` letters at `seqs[k]`), encoded.
///
/// # Safety
/// `seqs` and `lengths` are NULL or have `count` elements; `seqs[k]` is NULL or has
/// `lengths[k]` readable bytes.
unsafe fn sequences(
    count: usize,
    seqs: *const *const u8,
    lengths: *const usize,
    alphabet: crate::seq::Alphabet,
    what: &str,
) -> Outcome<Vec<Vec<u8>>> {
    if count == 0 {
        return Err(Failure::invalid(format!("{what}: count is 0")));
    }
    // SAFETY: `seqs` is NULL or has `count` elements (this function's contract).
    let ptrs = unsafe { array(seqs, count, what) }?;
    // SAFETY: `lengths` is NULL or has `count` elements (this function's contract).
    let lens = unsafe { array(lengths, count, &format!("{what} lengths")) }?;
    (0..count)
        .map(|k| {
            let name = format!("{what}[{k}]");
            // SAFETY: seqs[k] is NULL or has lengths[k] readable bytes (this function's
            // contract).
            encode(unsafe { bytes(ptrs[k], lens[k], &name) }?, alphabet, &name)
        })
        .collect()
}

/// The significance of every pair of `query_count` queries and `subject_count`
/// subjects (query `k`: `query_lengths[k]` letters at `queries[k]`; subjects
/// likewise; residue letters of the scoring's alphabet). Each subject is shuffled once
/// (subject `k` is number `k` for the generator) and its shuffles serve every query;
/// subjects are shared out among the engine's devices. A pair whose shuffle scores
/// cannot be fitted does not fail the call: its result carries its own status and
/// message. On success `*out` is a new results handle to free with
/// `clsw_psse_results_free`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (a count of 0, an empty sequence, a bad letter,
/// an impossible option), `CLSW_ERR_OPENCL`, `CLSW_ERR_DEVICE`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `engine` and `scoring` are NULL or live handles; `queries` and `query_lengths` are
/// NULL or have `query_count` elements, `queries[k]` `query_lengths[k]` readable bytes
/// (subjects likewise); `options` is NULL or sized and readable; `out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_psse_many(
    engine: *const clsw_engine,
    scoring: *const clsw_scoring,
    query_count: usize,
    queries: *const *const u8,
    query_lengths: *const usize,
    subject_count: usize,
    subjects: *const *const u8,
    subject_lengths: *const usize,
    options: *const clsw_psse_options,
    out: *mut *mut clsw_psse_results,
) -> clsw_status {
    run(|| {
        // SAFETY: `out` is NULL or writable (the caller's promise).
        let out = unsafe { out_handle(out, "out (the results output)") }?;
        // SAFETY: `engine` is NULL or a live engine (the caller's promise).
        let e = unsafe { handle(engine, "engine") }?;
        // SAFETY: `scoring` is NULL or a live scoring (the caller's promise).
        let sc = unsafe { handle(scoring, "scoring") }?;
        // SAFETY: `options` is NULL or sized and readable (the caller's promise).
        let o = unsafe { read_versioned(options, clsw_psse_options::default()) }?;
        let opts = psse_options(&o, sc)?;
        let alphabet = sc.scoring.matrix.alphabet();
        // SAFETY: the query arrays are as `sequences` needs (the caller's promise).
        let qs = unsafe { sequences(query_count, queries, query_lengths, alphabet, "queries") }?;
        // SAFETY: the subject arrays are as `sequences` needs (the caller's promise).
        let ss = unsafe { sequences(subject_count, subjects, subject_lengths, alphabet, "subjects") }?;
        let run = psse_run(&e.engine, &qs, &ss, &opts)?;
        let n = ss.len();
        let shape = (0..run.pairs.len()).map(|i| (i / n, i % n, qs[i / n].len(), ss[i % n].len())).collect();
        let errors = run.pairs.iter().map(|r| r.as_ref().err().map(|e| c_string(&e.to_string()))).collect();
        *out = Box::into_raw(Box::new(clsw_psse_results { pairs: run.pairs, shape, errors }));
        Ok(())
    })
}

/// Frees a results handle; NULL is ignored. Messages read from it die with it.
///
/// # Safety
/// `results` is NULL or results from `clsw_psse_many`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_psse_results_free(results: *mut clsw_psse_results) {
    // SAFETY: `results` is NULL or a live boxed results handle, freed once (the caller's
    // promise).
    unsafe { free_box(results) }
}

/// The number of pairs (`query_count * subject_count`).
///
/// # Safety
/// `results` is NULL or a live results handle; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_psse_results_count(results: *const clsw_psse_results, out: *mut usize) -> clsw_status {
    // SAFETY: `results` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(results, "results", out, |r| Ok(r.pairs.len())) }
}

/// Copies pair `index` into `*out`, whose `size` the caller sets to
/// `sizeof(clsw_psse_result)`. A pair without statistics is not an error here: its
/// `status` and `error` say why.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, `size` too small),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `results` is NULL or a live results handle; `out` is NULL or has `out->size`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_psse_results_get(
    results: *const clsw_psse_results,
    index: usize,
    out: *mut clsw_psse_result,
) -> clsw_status {
    let value = |r: &clsw_psse_results| {
        let pair = item(&r.pairs, index, "pair index", "pairs")?;
        let (q, s, m, n) = r.shape[index];
        let error = r.errors[index].as_ref().map_or(std::ptr::null(), |e| e.as_ptr());
        Ok(result_of(q, s, m, n, pair, error))
    };
    // SAFETY: `results` is NULL or live, `out` NULL or sized and writable (the caller's
    // promise).
    unsafe { get_versioned(results, "results", out, "out (the result)", value) }
}

/// Copies pair `index`'s shuffle scores (in shuffle order) into `scores` of `len`
/// elements; `*needed` (if not NULL) gets the number of shuffles.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, the run did not keep
/// scores — set `options.keep_scores` —, or the pair has no statistics),
/// `CLSW_ERR_BUFFER_TOO_SMALL` (`len` below the number of shuffles), `CLSW_ERR_NULL`.
///
/// # Safety
/// `results` is NULL or a live results handle; `scores` is NULL or has `len` writable
/// elements; `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_psse_results_scores(
    results: *const clsw_psse_results,
    index: usize,
    scores: *mut i32,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    run(|| {
        // SAFETY: `results` is NULL or a live results handle (the caller's promise).
        let r = unsafe { handle(results, "results") }?;
        let pair = item(&r.pairs, index, "pair index", "pairs")?;
        let pair = pair.as_ref().map_err(|e| Failure::invalid(format!("pair {index} has no statistics: {e}")))?;
        if pair.shuffle_scores.is_empty() {
            return Err(Failure::invalid("the run kept no shuffle scores: set options.keep_scores"));
        }
        let want = pair.shuffle_scores.len();
        if !needed.is_null() {
            // SAFETY: `needed` is non-NULL, so a writable size_t (the caller's promise).
            unsafe { needed.write(want) };
        }
        if scores.is_null() {
            return Err(Failure::null("scores (the output buffer)"));
        }
        if len < want {
            return Err(Failure::new(
                CLSW_ERR_BUFFER_TOO_SMALL,
                format!("scores holds {len} elements; the pair has {want} shuffle scores"),
            ));
        }
        // SAFETY: `scores` is non-NULL and len >= want (checked above), so it has `want`
        // writable elements (the caller's promise); the source is the handle's own Vec.
        unsafe { std::ptr::copy_nonoverlapping(pair.shuffle_scores.as_ptr(), scores, want) };
        Ok(())
    })
}

// Results handles may be passed between threads.
send_sync!(clsw_psse_results);

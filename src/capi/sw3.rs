//! Three-sequence local alignment (`clsw sw3`): the score and end cell of one triple on
//! the engine's devices, its alignment with traceback, every triple of a set (or a
//! list of triples) ranked by score, and SAX words of numeric series.
//!
//! The model (sum of pairs, quasi-natural gap costs, local semantics) is documented in
//! `src/sw3/mod.rs`; the header states what C users need of it.

use super::engine::clsw_engine;
use super::scoring::clsw_scoring;
use super::*;
use crate::memory;
use crate::scoring::Scoring;
use crate::sw3::{self, Alignment3, BatchRow, Sw3Score, sax};

/// How sequences are given to the sw3 functions (`clsw_sw3_options.input`).
pub type clsw_sw3_input = u32;
/// Residue letters of the scoring's alphabet (upper or lower case), as everywhere else.
pub const CLSW_SW3_LETTERS: clsw_sw3_input = 0;
/// Alphabet codes `0 .. size - 1` of the scoring's matrix (24 for protein, 5 for DNA):
/// for SAX words from `clsw_sax`, scored with
/// `clsw_scoring_new_match_mismatch(CLSW_ALPHABET_PROTEIN, ...)` (24 codes, room for
/// every SAX alphabet). Aligned rows then show code `c` as the letter `'a' + c`.
pub const CLSW_SW3_CODES: clsw_sw3_input = 1;

/// Options of the sw3 functions. Fill it with `clsw_sw3_options_init`, then change
/// fields; or pass NULL for the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_sw3_options {
    /// `sizeof(clsw_sw3_options)` (set by `clsw_sw3_options_init`).
    pub size: usize,
    /// `CLSW_SW3_LETTERS` (default) or `CLSW_SW3_CODES`.
    pub input: clsw_sw3_input,
}

versioned!(clsw_sw3_options);

impl Default for clsw_sw3_options {
    fn default() -> Self {
        clsw_sw3_options { size: std::mem::size_of::<clsw_sw3_options>(), input: CLSW_SW3_LETTERS }
    }
}

/// Fills `*options` with the defaults (letters). `size` is the caller's
/// `sizeof(clsw_sw3_options)`: only that many bytes are written.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` smaller than the first version's),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `options` is NULL or has `size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sw3_options_init(options: *mut clsw_sw3_options, size: usize) -> clsw_status {
    // SAFETY: `options` is NULL or has `size` writable bytes (the caller's promise).
    unsafe { options_init(options, size) }
}

/// Whether sequences are codes (`true`) or letters.
///
/// # Safety
/// `options` is NULL or has `options->size` readable bytes.
unsafe fn codes_input(options: *const clsw_sw3_options) -> Outcome<bool> {
    // SAFETY: `options` is NULL or sized and readable (this function's contract).
    let o = unsafe { read_versioned(options, clsw_sw3_options::default()) }?;
    match o.input {
        CLSW_SW3_LETTERS => Ok(false),
        CLSW_SW3_CODES => Ok(true),
        v => Err(Failure::invalid(format!("options.input {v}: use CLSW_SW3_LETTERS (0) or CLSW_SW3_CODES (1)"))),
    }
}

/// One caller sequence as alphabet codes. Unlike elsewhere, an empty sequence is
/// allowed: it contributes no residue.
fn sequence(data: &[u8], codes: bool, sc: &Scoring, what: &str) -> Outcome<Vec<u8>> {
    if data.is_empty() {
        return Ok(Vec::new());
    }
    if codes {
        sc.matrix.alphabet().check_codes(data, what)?;
        return Ok(data.to_vec());
    }
    encode(data, sc.matrix.alphabet(), what)
}

/// How a code is shown in the aligned rows.
fn letter_fn(codes: bool, sc: &Scoring) -> impl Fn(u8) -> u8 {
    let alphabet = sc.matrix.alphabet();
    move |c| if codes { b'a' + c } else { alphabet.decode(c) }
}

/// The scoring, the three sequences and whether they are codes, of `clsw_sw3_score`
/// and `clsw_sw3_align`.
///
/// # Safety
/// `scoring` is NULL or a live scoring; `a`, `b` and `c` are NULL or have `a_len`,
/// `b_len` and `c_len` readable bytes; `options` is NULL or sized and readable.
#[allow(clippy::too_many_arguments)]
unsafe fn triple<'a>(
    scoring: *const clsw_scoring,
    a: *const u8,
    a_len: usize,
    b: *const u8,
    b_len: usize,
    c: *const u8,
    c_len: usize,
    options: *const clsw_sw3_options,
) -> Outcome<(&'a clsw_scoring, [Vec<u8>; 3], bool)> {
    // SAFETY: `scoring` is NULL or live (this function's contract).
    let sc = unsafe { handle(scoring, "scoring") }?;
    // SAFETY: `options` is NULL or sized and readable (this function's contract).
    let codes = unsafe { codes_input(options) }?;
    // SAFETY: called below only with (a, a_len), (b, b_len) and (c, c_len), each NULL or
    // that many readable bytes (this function's contract).
    let s = |p, n, what: &str| sequence(unsafe { bytes(p, n, what) }?, codes, &sc.scoring, what);
    Ok((sc, [s(a, a_len, "a")?, s(b, b_len, "b")?, s(c, c_len, "c")?], codes))
}

/// The best local three-sequence score of `a`, `b`, `c` (`a_len`, `b_len`, `c_len`
/// letters, or codes with `options.input = CLSW_SW3_CODES`; a length may be 0: the
/// sequence then takes no part) under sum-of-pairs scoring with the scoring's matrix and
/// gaps (a gap of length L costs `gap_open + L * gap_extend` in each pairwise projection;
/// `gap_open` 0 is the linear model, e.g. the seed's setting: match 1, mismatch -1,
/// `clsw_scoring_new_match_mismatch(alphabet, 1, -1, 0, 1, ...)`), computed on the
/// engine's first device. `*score` gets the score (0 when nothing scores above 0);
/// `end`, when not NULL, an array of 3 that gets the end cell: per sequence, the 1-based
/// position of the last residue the alignment covers (all 0 when the score is 0; a
/// sequence the alignment leaves out gets the position before its empty segment).
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (a letter that is not a residue, a code outside
/// the matrix, sequences too long for 32-bit scores, a bad option), `CLSW_ERR_OPENCL`,
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `engine` and `scoring` are NULL or live handles; `a`, `b` and `c` are NULL or have
/// `a_len`, `b_len` and `c_len` readable bytes; `options` is NULL or has `options->size`
/// readable bytes; `score` is NULL or writable; `end` is NULL or has 3
/// writable elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sw3_score(
    engine: *const clsw_engine,
    scoring: *const clsw_scoring,
    a: *const u8,
    a_len: usize,
    b: *const u8,
    b_len: usize,
    c: *const u8,
    c_len: usize,
    options: *const clsw_sw3_options,
    score: *mut i32,
    end: *mut usize,
) -> clsw_status {
    run(|| {
        // SAFETY: `score` is NULL or a writable int32_t (the caller's promise).
        let out = unsafe { out_ptr(score, "score") }?;
        // SAFETY: `engine` is NULL or a live engine (the caller's promise).
        let e = unsafe { handle(engine, "engine") }?;
        // SAFETY: the scoring, sequences and options are as `triple` needs (the caller's
        // promise).
        let (sc, [x, y, z], _) = unsafe { triple(scoring, a, a_len, b, b_len, c, c_len, options) }?;
        let best = sw3::score(&e.engine, &x, &y, &z, &sc.scoring)?;
        *out = best.score;
        if !end.is_null() {
            let cell = best.end.unwrap_or([0; 3]);
            // SAFETY: `end` is non-NULL, so it has 3 writable elements (the caller's
            // promise); `cell` is a local array of 3.
            unsafe { std::ptr::copy_nonoverlapping(cell.as_ptr(), end, 3) };
        }
        Ok(())
    })
}

/// An optimal three-sequence local alignment. Immutable; give each thread its own.
pub struct clsw_sw3_alignment {
    alignment: Option<Alignment3>,
    identities: usize,
    rows: [CString; 3],
}

/// A three-sequence alignment, as `clsw_sw3_alignment_get` describes it. Coordinates
/// are 1-based and inclusive; a sequence the alignment leaves out has `start = end + 1`
/// (an empty segment). When nothing scores above 0 the alignment is empty: score,
/// coordinates and counts 0, rows "".
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_sw3_alignment_info {
    /// `sizeof(clsw_sw3_alignment_info)`, set by the caller.
    pub size: usize,
    /// The optimal local score (sum of pairs).
    pub score: i32,
    /// Per sequence (a, b, c): the first aligned residue, 1-based.
    pub start: [usize; 3],
    /// Per sequence: the last aligned residue, 1-based, inclusive.
    pub end: [usize; 3],
    /// Alignment columns.
    pub length: usize,
    /// Columns where all three sequences have the same residue.
    pub identities: usize,
    /// Columns with a gap in at least one sequence.
    pub gapped_columns: usize,
    /// The three gapped rows (a, b, c), `-` for gaps, each `length` characters: residue
    /// letters, or `'a' + code` for codes. Owned by the alignment handle.
    pub rows: [*const c_char; 3],
}

versioned!(clsw_sw3_alignment_info);

/// The optimal local alignment of three sequences with traceback (arguments as for
/// `clsw_sw3_score`): the score on the engine's first device, the traceback on the
/// calling thread in memory of about two planes of the table. On success `*out` is a
/// new alignment to free with `clsw_sw3_alignment_free`.
/// Errors: as for `clsw_sw3_score`; `CLSW_ERR_DEVICE` if a device's end cell does not
/// trace back to its score.
///
/// # Safety
/// As for `clsw_sw3_score`; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sw3_align(
    engine: *const clsw_engine,
    scoring: *const clsw_scoring,
    a: *const u8,
    a_len: usize,
    b: *const u8,
    b_len: usize,
    c: *const u8,
    c_len: usize,
    options: *const clsw_sw3_options,
    out: *mut *mut clsw_sw3_alignment,
) -> clsw_status {
    run(|| {
        // SAFETY: `out` is NULL or writable (the caller's promise).
        let out = unsafe { out_handle(out, "out (the alignment output)") }?;
        // SAFETY: `engine` is NULL or a live engine (the caller's promise).
        let e = unsafe { handle(engine, "engine") }?;
        // SAFETY: the scoring, sequences and options are as `triple` needs (the caller's
        // promise).
        let (sc, [x, y, z], codes) = unsafe { triple(scoring, a, a_len, b, b_len, c, c_len, options) }?;
        let alignment = sw3::align_on(&e.engine, &x, &y, &z, &sc.scoring)?;
        let seqs: [&[u8]; 3] = [&x, &y, &z];
        let (identities, rows) = match &alignment {
            Some(al) => (al.identities(seqs), al.rows(seqs, letter_fn(codes, &sc.scoring)).map(|r| c_string(&r))),
            None => (0, Default::default()),
        };
        *out = Box::into_raw(Box::new(clsw_sw3_alignment { alignment, identities, rows }));
        Ok(())
    })
}

/// Frees a three-sequence alignment; NULL is ignored. Rows read from it die with it.
///
/// # Safety
/// `alignment` is NULL or an alignment from `clsw_sw3_align`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sw3_alignment_free(alignment: *mut clsw_sw3_alignment) {
    // SAFETY: `alignment` is NULL or a live boxed alignment, freed once (the caller's
    // promise).
    unsafe { free_box(alignment) }
}

/// Copies the alignment's description into `*out`, whose `size` the caller sets to
/// `sizeof(clsw_sw3_alignment_info)`. The rows it points to belong to `alignment`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` too small), `CLSW_ERR_NULL`.
///
/// # Safety
/// `alignment` is NULL or a live alignment; `out` is NULL or has `out->size` writable
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sw3_alignment_get(
    alignment: *const clsw_sw3_alignment,
    out: *mut clsw_sw3_alignment_info,
) -> clsw_status {
    // SAFETY: `alignment` is NULL or live, `out` NULL or sized and writable (the
    // caller's promise).
    unsafe { get_versioned(alignment, "alignment", out, "out (the alignment info)", |h| Ok(info_of(h))) }
}

fn info_of(h: &clsw_sw3_alignment) -> clsw_sw3_alignment_info {
    {
        // SAFETY: every field of clsw_sw3_alignment_info is a number, an array of numbers
        // or raw pointers, for which all-zero bytes are a valid value.
        let mut c: clsw_sw3_alignment_info = unsafe { std::mem::zeroed() };
        c.size = std::mem::size_of::<clsw_sw3_alignment_info>();
        if let Some(a) = &h.alignment {
            c.score = a.score;
            c.start = a.start.map(|s| s + 1);
            c.end = a.end;
            c.length = a.len();
            c.identities = h.identities;
            c.gapped_columns = a.gapped_columns();
        }
        c.rows = [h.rows[0].as_ptr(), h.rows[1].as_ptr(), h.rows[2].as_ptr()];
        c
    }
}

/// The scores of a batch of triples, highest first. Immutable; give each thread its own.
pub struct clsw_sw3_results {
    rows: Vec<BatchRow>,
}

/// One triple of a batch (`clsw_sw3_results_get`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_sw3_row {
    /// `sizeof(clsw_sw3_row)`, set by the caller.
    pub size: usize,
    /// The sequence in the role a: its 0-based index in the batch's sequences.
    pub a: usize,
    /// The sequence in the role b.
    pub b: usize,
    /// The sequence in the role c.
    pub c: usize,
    /// The triple's best local score (0 when nothing scores above 0).
    pub score: i32,
    /// The end cell, as `clsw_sw3_score`'s `end`: per role, the 1-based position of the
    /// last residue covered (all 0 when the score is 0).
    pub end: [usize; 3],
}

versioned!(clsw_sw3_row);

/// Scores triples of `count` sequences (sequence `k`: `lengths[k]` letters, or codes,
/// at `sequences[k]`; a length may be 0): the `triple_count` triples at `triples`
/// (three 0-based sequence indices each, in the roles a, b, c: `triples[3 t]`,
/// `triples[3 t + 1]`, `triples[3 t + 2]`), or, when `triple_count` is 0 (`triples` may
/// then be NULL), every triple `a < b < c` of the set (`count * (count - 1) *
/// (count - 2) / 6`, at least 3 sequences). The triples are shared out among the
/// engine's devices (one work-group per triple). On success `*out` is a new results
/// handle, ranked by score (highest first, ties in triple order), to free with
/// `clsw_sw3_results_free`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (fewer than 3 sequences for all triples, an index
/// out of range, a bad letter or code, a bad option), `CLSW_ERR_OPENCL`,
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `engine` and `scoring` are NULL or live handles; `sequences` and `lengths` are NULL
/// or have `count` elements, `sequences[k]` `lengths[k]` readable bytes; `triples` is
/// NULL or has `3 * triple_count` elements; `options` is NULL or sized and readable;
/// `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sw3_batch(
    engine: *const clsw_engine,
    scoring: *const clsw_scoring,
    count: usize,
    sequences: *const *const u8,
    lengths: *const usize,
    triples: *const u32,
    triple_count: usize,
    options: *const clsw_sw3_options,
    out: *mut *mut clsw_sw3_results,
) -> clsw_status {
    run(|| {
        // SAFETY: `out` is NULL or writable (the caller's promise).
        let out = unsafe { out_handle(out, "out (the results output)") }?;
        // SAFETY: `engine` is NULL or a live engine (the caller's promise).
        let e = unsafe { handle(engine, "engine") }?;
        // SAFETY: `scoring` is NULL or a live scoring (the caller's promise).
        let sc = unsafe { handle(scoring, "scoring") }?;
        // SAFETY: `options` is NULL or sized and readable (the caller's promise).
        let codes = unsafe { codes_input(options) }?;
        if count == 0 {
            return Err(Failure::invalid("count is 0: no sequences"));
        }
        // SAFETY: `sequences` is NULL or has `count` elements (the caller's promise).
        let ptrs = unsafe { array(sequences, count, "sequences") }?;
        // SAFETY: `lengths` is NULL or has `count` elements (the caller's promise).
        let lens = unsafe { array(lengths, count, "lengths") }?;
        let seqs: Vec<Vec<u8>> = (0..count)
            .map(|k| {
                let what = format!("sequences[{k}]");
                // SAFETY: sequences[k] is NULL or has lengths[k] readable bytes (the
                // caller's promise).
                sequence(unsafe { bytes(ptrs[k], lens[k], &what) }?, codes, &sc.scoring, &what)
            })
            .collect::<Outcome<_>>()?;
        let list: Vec<[u32; 3]> = if triple_count == 0 {
            if count < 3 {
                let sequences = crate::words::counted(count as u64, "sequence", "sequences");
                return Err(Failure::invalid(format!("{sequences}: all triples need at least 3")));
            }
            sw3::all_triples(count)?
        } else {
            let cells = triple_count
                .checked_mul(3)
                .ok_or_else(|| Failure::invalid(format!("{triple_count} triples is impossible")))?;
            // SAFETY: `triples` is NULL or has 3 * triple_count elements (the caller's
            // promise).
            let given = unsafe { array(triples, cells, "triples") }?.chunks(3).map(|t| [t[0], t[1], t[2]]);
            memory::collect(format_args!("a copy of {triple_count} triples"), given)?
        };
        let refs: Vec<&[u8]> = seqs.iter().map(|s| s.as_slice()).collect();
        let scores: Vec<Sw3Score> = sw3::batch(&e.engine, &refs, &list, &sc.scoring)?;
        *out = Box::into_raw(Box::new(clsw_sw3_results { rows: sw3::ranked(&list, &scores)? }));
        Ok(())
    })
}

/// Frees a results handle; NULL is ignored.
///
/// # Safety
/// `results` is NULL or results from `clsw_sw3_batch`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sw3_results_free(results: *mut clsw_sw3_results) {
    // SAFETY: `results` is NULL or a live boxed results handle, freed once (the caller's
    // promise).
    unsafe { free_box(results) }
}

/// The number of triples scored.
///
/// # Safety
/// `results` is NULL or a live results handle; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sw3_results_count(results: *const clsw_sw3_results, out: *mut usize) -> clsw_status {
    // SAFETY: `results` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(results, "results", out, |r| Ok(r.rows.len())) }
}

/// Copies the triple of rank `rank` (0: the highest score) into `*out`, whose `size`
/// the caller sets to `sizeof(clsw_sw3_row)`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (rank out of range, `size` too small),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `results` is NULL or a live results handle; `out` is NULL or has `out->size`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sw3_results_get(
    results: *const clsw_sw3_results,
    rank: usize,
    out: *mut clsw_sw3_row,
) -> clsw_status {
    let value = |r: &clsw_sw3_results| {
        let row = item(&r.rows, rank, "rank", "triples")?;
        let [a, b, c] = row.triple.map(|x| x as usize);
        Ok(clsw_sw3_row {
            size: std::mem::size_of::<clsw_sw3_row>(),
            a,
            b,
            c,
            score: row.score.score,
            end: row.score.end.unwrap_or([0; 3]),
        })
    };
    // SAFETY: `results` is NULL or live, `out` NULL or sized and writable (the caller's
    // promise).
    unsafe { get_versioned(results, "results", out, "out (the row)", value) }
}

/// The SAX word of a numeric series: `series` (`len` finite values) is z-normalised
/// (population standard deviation), reduced to `word` segment means (piecewise
/// aggregate approximation; a point straddling a segment boundary counts with the
/// fraction it covers), and each mean replaced by its symbol among `alphabet` (3 to 20)
/// equiprobable Gaussian intervals. `codes` (`codes_len` elements, at least `word`) gets
/// the codes `0 .. alphabet - 1` (letters are `'a' + code`); align them with
/// `CLSW_SW3_CODES`. `*constant`, when not NULL, gets 1 when the series has zero
/// variance (every segment then gets the middle symbol), else 0.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (an empty series, a NaN or infinite value — the
/// message gives its position —, `word` 0, `alphabet` outside 3..20),
/// `CLSW_ERR_BUFFER_TOO_SMALL` (`codes_len < word`), `CLSW_ERR_NULL`.
///
/// # Safety
/// `series` is NULL or has `len` readable values; `codes` is NULL or has `codes_len`
/// writable bytes; `constant` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_sax(
    series: *const f64,
    len: usize,
    word: usize,
    alphabet: usize,
    codes: *mut u8,
    codes_len: usize,
    constant: *mut i32,
) -> clsw_status {
    run(|| {
        // SAFETY: `series` is NULL or has `len` readable values (the caller's promise).
        let x = unsafe { array(series, len, "series") }?;
        if codes_len < word {
            return Err(Failure::new(
                CLSW_ERR_BUFFER_TOO_SMALL,
                format!("codes holds {codes_len} elements; a word of {word} needs {word}"),
            ));
        }
        let w = sax::sax(x, word, alphabet)?;
        // SAFETY: `codes` is NULL or has `codes_len` writable bytes (the caller's promise);
        // `needed` is NULL.
        unsafe { write_array(&w.codes, codes, codes_len, std::ptr::null_mut(), "codes") }?;
        // SAFETY: `as_mut` checks for NULL; otherwise `constant` is a writable int32_t
        // (the caller's promise).
        if let Some(c) = unsafe { constant.as_mut() } {
            *c = w.constant as i32;
        }
        Ok(())
    })
}

// Results handles may be passed between threads.
send_sync!(clsw_sw3_alignment, clsw_sw3_results);

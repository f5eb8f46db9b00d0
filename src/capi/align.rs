//! Pairwise local alignment (Smith-Waterman/Gotoh) with traceback, on the CPU in
//! `O(n sqrt(m))` memory.

use super::scoring::clsw_scoring;
use super::*;
use crate::align::{Alignment, display};
use crate::{reference, traceback};

/// An optimal alignment of two sequences (in the scoring's mode: local unless made
/// with `clsw_scoring_with_mode`). Immutable; give each thread its own.
pub struct clsw_alignment {
    alignment: Option<Alignment>,
    cigar: CString,
    cigar_m: CString,
    query_row: CString,
    midline: CString,
    subject_row: CString,
}

/// An alignment, as `clsw_alignment_get` describes it. Coordinates are 1-based and
/// inclusive; when no pair of residues scores above 0 the alignment is empty: score,
/// coordinates and counts 0, strings "".
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_alignment_info {
    /// `sizeof(clsw_alignment_info)`, set by the caller.
    pub size: usize,
    /// The optimal score (in the scoring's mode).
    pub score: i32,
    /// First aligned residue of the first sequence (the query), 1-based.
    pub query_start: usize,
    /// Last aligned residue of the query, 1-based, inclusive.
    pub query_end: usize,
    /// First aligned residue of the second sequence (the subject), 1-based.
    pub subject_start: usize,
    /// Last aligned residue of the subject, 1-based, inclusive.
    pub subject_end: usize,
    /// Alignment columns.
    pub length: usize,
    /// Columns with identical residues.
    pub identities: usize,
    /// Columns with a positive substitution score.
    pub similarities: usize,
    /// Aligned pairs that differ.
    pub mismatches: usize,
    /// Gaps opened.
    pub gap_opens: usize,
    /// Gap columns.
    pub gap_columns: usize,
    /// `100 * identities / length`.
    pub percent_identity: f64,
    /// CIGAR with `=` (identical), `X` (mismatch), `I` (query residue against a gap),
    /// `D` (subject residue against a gap). Owned by the alignment handle.
    pub cigar: *const c_char,
    /// The same CIGAR with `M` for every aligned pair. Owned by the alignment handle.
    pub cigar_m: *const c_char,
    /// The aligned query, `-` for gaps, upper case. Owned by the alignment handle.
    pub query_row: *const c_char,
    /// One character per column: `|` identical, `+` positive score, space otherwise.
    pub midline: *const c_char,
    /// The aligned subject, `-` for gaps. Owned by the alignment handle.
    pub subject_row: *const c_char,
}

versioned!(clsw_alignment_info);

/// The scoring and both sequences of `clsw_align` and `clsw_align_score`, encoded.
///
/// # Safety
/// `scoring` is NULL or a live scoring; `query` and `subject` are NULL or have
/// `query_len` and `subject_len` readable bytes.
unsafe fn encoded_pair<'a>(
    scoring: *const clsw_scoring,
    query: *const u8,
    query_len: usize,
    subject: *const u8,
    subject_len: usize,
) -> Outcome<(&'a clsw_scoring, Vec<u8>, Vec<u8>)> {
    // SAFETY: `scoring` is NULL or live (this function's contract).
    let sc = unsafe { handle(scoring, "scoring") }?;
    let alphabet = sc.scoring.matrix.alphabet();
    // SAFETY: `query` is NULL or has `query_len` readable bytes (this function's contract).
    let q = encode(unsafe { bytes(query, query_len, "query") }?, alphabet, "query")?;
    // SAFETY: `subject` is NULL or has `subject_len` readable bytes (this function's contract).
    let s = encode(unsafe { bytes(subject, subject_len, "subject") }?, alphabet, "subject")?;
    sc.scoring.check_lengths(q.len(), s.len(), "query and subject")?;
    Ok((sc, q, s))
}

/// Aligns `query` (`query_len` letters) with `subject` (`subject_len` letters), both
/// residue letters of the scoring's alphabet (not NUL-terminated; upper or lower
/// case): the optimal alignment in the scoring's mode with affine gaps, ties broken as
/// the search's alignments break them. Runs on the calling thread. On success `*out` is a new
/// alignment to free with `clsw_alignment_free`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (an empty sequence, a letter that is not a
/// residue — the message gives its position —, lengths at which a score could pass
/// 32 bits), `CLSW_ERR_NULL`.
///
/// # Safety
/// `scoring` is NULL or a live scoring; `query` and `subject` are NULL or have
/// `query_len` and `subject_len` readable bytes; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_align(
    scoring: *const clsw_scoring,
    query: *const u8,
    query_len: usize,
    subject: *const u8,
    subject_len: usize,
    out: *mut *mut clsw_alignment,
) -> clsw_status {
    run(|| {
        // SAFETY: `out` is NULL or writable (the caller's promise).
        let out = unsafe { out_handle(out, "out (the alignment output)") }?;
        // SAFETY: the pointers and lengths are as encoded_pair needs (the caller's promise).
        let (sc, q, s) = unsafe { encoded_pair(scoring, query, query_len, subject, subject_len) }?;
        let alignment = traceback::align(&q, &s, &sc.scoring);
        let h = match &alignment {
            Some(a) => {
                let rows = display::rows(&q, &s, a, &sc.scoring);
                clsw_alignment {
                    cigar: c_string(&a.cigar(true)),
                    cigar_m: c_string(&a.cigar(false)),
                    query_row: c_string(&rows.query),
                    midline: c_string(&rows.midline),
                    subject_row: c_string(&rows.subject),
                    alignment,
                }
            }
            None => clsw_alignment {
                alignment: None,
                cigar: CString::default(),
                cigar_m: CString::default(),
                query_row: CString::default(),
                midline: CString::default(),
                subject_row: CString::default(),
            },
        };
        *out = Box::into_raw(Box::new(h));
        Ok(())
    })
}

/// The optimal score (in the scoring's mode) of `query` against `subject` alone (no traceback; less
/// memory and time than `clsw_align`). Arguments as for `clsw_align`.
///
/// # Safety
/// As for `clsw_align`; `score` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_align_score(
    scoring: *const clsw_scoring,
    query: *const u8,
    query_len: usize,
    subject: *const u8,
    subject_len: usize,
    score: *mut i32,
) -> clsw_status {
    run(|| {
        // SAFETY: `score` is NULL or a writable int32_t (the caller's promise).
        let out = unsafe { out_ptr(score, "score") }?;
        // SAFETY: the pointers and lengths are as encoded_pair needs (the caller's promise).
        let (sc, q, s) = unsafe { encoded_pair(scoring, query, query_len, subject, subject_len) }?;
        *out = reference::score(&q, &s, &sc.scoring).score;
        Ok(())
    })
}

/// Frees an alignment; NULL is ignored. Strings read from it die with it.
///
/// # Safety
/// `alignment` is NULL or an alignment from `clsw_align`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_alignment_free(alignment: *mut clsw_alignment) {
    // SAFETY: `alignment` is NULL or a live boxed alignment, freed once (the caller's
    // promise).
    unsafe { free_box(alignment) }
}

/// Copies the alignment's description into `*out`, whose `size` the caller sets to
/// `sizeof(clsw_alignment_info)`. The strings it points to belong to `alignment`.
///
/// # Safety
/// `alignment` is NULL or a live alignment; `out` is NULL or has `out->size` writable
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_alignment_get(
    alignment: *const clsw_alignment,
    out: *mut clsw_alignment_info,
) -> clsw_status {
    // SAFETY: `alignment` is NULL or live, `out` NULL or sized and writable (the
    // caller's promise).
    unsafe { get_versioned(alignment, "alignment", out, "out (the alignment info)", |h| Ok(info_of(h))) }
}

fn info_of(h: &clsw_alignment) -> clsw_alignment_info {
    {
        // SAFETY: every field of clsw_alignment_info is a number or a raw pointer, for
        // which all-zero bytes are a valid value.
        let mut c: clsw_alignment_info = unsafe { std::mem::zeroed() };
        c.size = std::mem::size_of::<clsw_alignment_info>();
        if let Some(a) = &h.alignment {
            c.score = a.score;
            c.query_start = a.query_start + 1;
            c.query_end = a.query_end + 1;
            c.subject_start = a.subject_start + 1;
            c.subject_end = a.subject_end + 1;
            c.length = a.length();
            c.identities = a.identities;
            c.similarities = a.similarities;
            c.mismatches = a.mismatches;
            c.gap_opens = a.gap_opens;
            c.gap_columns = a.gap_columns;
            c.percent_identity = a.percent_identity();
        }
        c.cigar = h.cigar.as_ptr();
        c.cigar_m = h.cigar_m.as_ptr();
        c.query_row = h.query_row.as_ptr();
        c.midline = h.midline.as_ptr();
        c.subject_row = h.subject_row.as_ptr();
        c
    }
}

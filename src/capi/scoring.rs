//! Scoring schemes: a substitution matrix (built-in, NCBI-format file, or
//! match/mismatch) and affine gap penalties in BLAST's convention.

use super::*;
use crate::scoring::{Gaps, Matrix, Mode, Pssm, Scoring};

/// A substitution matrix and gap penalties. Read-only after creation: one scoring
/// may be used by many threads and many searchers at once.
pub struct clsw_scoring {
    pub(crate) scoring: Scoring,
}

/// `CLSW_GAPS_DEFAULT`: written into the header by `cbindgen.toml` (`after_includes`)
/// as `(-1)`, since cbindgen would write an unparenthesised `-1`.
///
/// cbindgen:ignore
pub const CLSW_GAPS_DEFAULT: i32 = -1;

/// The pair `CLSW_GAPS_DEFAULT`, `CLSW_GAPS_DEFAULT` is no costs given; any other pair
/// is two costs given, read by the library's sign rule (`Gaps::stated`).
fn gaps_for(matrix: &Matrix, open: i32, extend: i32) -> Outcome<Gaps> {
    let given = (open, extend) != (CLSW_GAPS_DEFAULT, CLSW_GAPS_DEFAULT);
    Ok(Gaps::stated(given.then_some(open), given.then_some(extend), matrix.name())?)
}

fn make(matrix: Matrix, open: i32, extend: i32) -> Outcome<clsw_scoring> {
    let gaps = gaps_for(&matrix, open, extend)?;
    Ok(clsw_scoring { scoring: Scoring::new(matrix, gaps) })
}

const OUT: &str = "out (the scoring output)";

/// A built-in matrix by name, any case: `BLOSUM45`, `BLOSUM50`, `BLOSUM62`,
/// `BLOSUM80`, `BLOSUM90`, `PAM30`, `PAM70`, `PAM250` (protein), `EDNAFULL` (DNA; also
/// `NUC.4.4`). Gaps follow BLAST's convention: a gap of length L costs
/// `gap_open + L * gap_extend` (`gap_open >= 0`, `gap_extend >= 1`,
/// `gap_open + gap_extend <= 1048576`); a negative cost is read as its size, as
/// ssearch36 writes them and as `clsw --gap-open -11 --gap-extend -1` reads them
/// (`-11, -1` is `11, 1`). Pass `CLSW_GAPS_DEFAULT` for both to get the matrix's
/// customary values (so gaps of 1 and 1 are written `1, 1`). Substitution scores of
/// every scoring lie within -1048576..=1048576, and calls refuse sequence lengths at
/// which a score could pass 32 bits (the highest substitution score times the shorter
/// length, plus one).
/// On success `*out` is a new scoring to free with `clsw_scoring_free`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (an unknown name, impossible gap penalties),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `matrix` is NULL or NUL-terminated; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_new_builtin(
    matrix: *const c_char,
    gap_open: i32,
    gap_extend: i32,
    out: *mut *mut clsw_scoring,
) -> clsw_status {
    let build = || {
        // SAFETY: `matrix` is NULL or NUL-terminated (the caller's promise).
        let name = unsafe { c_text(matrix, "matrix (the name)") }?;
        // An unknown name is a bad argument here, not a malformed file.
        let m = Matrix::builtin(name).map_err(|e| Failure::invalid(e.to_string()))?;
        make(m, gap_open, gap_extend)
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// A matrix read from an NCBI-format file (`#` comments, a line of column letters, one
/// row per letter); its alphabet is guessed from the letters. `path` is a
/// NUL-terminated path, any bytes. Gaps as for `clsw_scoring_new_builtin`
/// (`CLSW_GAPS_DEFAULT` gives 10/1).
/// Errors: `CLSW_ERR_IO` (cannot read the file), `CLSW_ERR_PARSE` (malformed; the
/// message names the file and the problem, a score out of range included),
/// `CLSW_ERR_INVALID_ARGUMENT`,
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_new_file(
    path: *const c_char,
    gap_open: i32,
    gap_extend: i32,
    out: *mut *mut clsw_scoring,
) -> clsw_status {
    let build = || {
        // SAFETY: `path` is NULL or NUL-terminated (the caller's promise).
        let path = unsafe { c_path(path, "path (the matrix file)") }?;
        make(Matrix::from_file(&path)?, gap_open, gap_extend)
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// A matrix named as the `clsw` command names one (`--matrix`): an NCBI-format file
/// where `name_or_path` is one, else a built-in name (as `clsw_scoring_new_builtin`).
/// Gaps as for `clsw_scoring_new_builtin`.
/// Errors: as `clsw_scoring_new_file` for a file, `CLSW_ERR_INVALID_ARGUMENT` for an
/// unknown name, `CLSW_ERR_NULL`.
///
/// # Safety
/// `name_or_path` is NULL or NUL-terminated; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_new(
    name_or_path: *const c_char,
    gap_open: i32,
    gap_extend: i32,
    out: *mut *mut clsw_scoring,
) -> clsw_status {
    let build = || {
        // SAFETY: `name_or_path` is NULL or NUL-terminated (the caller's promise).
        let name = unsafe { c_text(name_or_path, "name_or_path (the matrix)") }?;
        make(Matrix::builtin_or_file(name)?, gap_open, gap_extend)
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// `match_score` (> 0) for identical residues and `mismatch` (<= 0) for all other
/// pairs, the wildcard included, over `alphabet` (`CLSW_ALPHABET_PROTEIN` or
/// `CLSW_ALPHABET_DNA`). Gaps as for `clsw_scoring_new_builtin` (`CLSW_GAPS_DEFAULT`
/// gives 10/1).
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (scores or gaps out of range), `CLSW_ERR_NULL`.
///
/// # Safety
/// `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_new_match_mismatch(
    alphabet: clsw_alphabet,
    match_score: i32,
    mismatch: i32,
    gap_open: i32,
    gap_extend: i32,
    out: *mut *mut clsw_scoring,
) -> clsw_status {
    let build = || make(Matrix::match_mismatch(alphabet_from(alphabet)?, match_score, mismatch)?, gap_open, gap_extend);
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// A matrix the caller holds as numbers, such as the one a host program built from
/// its own tables: `letters` (`letter_count` bytes, any case) name the rows and the
/// columns, and `scores` holds `letter_count * letter_count` values, row-major
/// (`scores[i * letter_count + j]` scores `letters[i]` against `letters[j]`). The
/// same rules as a matrix file: letters that are not residues of `alphabet`
/// (`CLSW_ALPHABET_PROTEIN` or `CLSW_ALPHABET_DNA`) are ignored, every residue letter
/// needs its row and column (`*` excepted: absent, it gets the table's lowest score),
/// scores lie within -1048576..=1048576. `clsw_alphabet_letters` lists the letters.
/// Gaps as for `clsw_scoring_new_builtin` (`CLSW_GAPS_DEFAULT` gives 10/1).
/// Errors: `CLSW_ERR_PARSE` (a residue letter without a row or column, a score out of
/// range: the message says which), `CLSW_ERR_INVALID_ARGUMENT` (`letter_count` is 0,
/// impossible gaps), `CLSW_ERR_NULL`.
///
/// # Safety
/// `letters` has `letter_count` readable bytes and `scores` `letter_count *
/// letter_count` readable values (or is NULL); `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_new_matrix(
    alphabet: clsw_alphabet,
    letters: *const u8,
    letter_count: usize,
    scores: *const i32,
    gap_open: i32,
    gap_extend: i32,
    out: *mut *mut clsw_scoring,
) -> clsw_status {
    let build = || {
        let alphabet = alphabet_from(alphabet)?;
        if letter_count == 0 {
            return Err(Failure::invalid("letter_count is 0: a matrix needs letters"));
        }
        let cells = letter_count
            .checked_mul(letter_count)
            .ok_or_else(|| Failure::invalid(format!("letter_count {letter_count} is too large")))?;
        // SAFETY: `letters` is NULL or has `letter_count` readable bytes (the caller's promise).
        let cols: Vec<u8> =
            unsafe { bytes(letters, letter_count, "letters") }?.iter().map(u8::to_ascii_uppercase).collect();
        // SAFETY: `scores` is NULL or has `cells` readable values (the caller's promise).
        let values = unsafe { array(scores, cells, "scores") }?;
        let rows: Vec<(u8, Vec<i32>)> =
            cols.iter().zip(values.chunks(letter_count)).map(|(&c, row)| (c, row.to_vec())).collect();
        make(Matrix::from_table("custom", alphabet, &cols, &rows)?, gap_open, gap_extend)
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// The alignment mode of a scoring (`clsw_scoring_with_mode`; every `clsw_scoring_new_*`
/// gives `CLSW_MODE_LOCAL`).
pub type clsw_mode = u32;
/// Smith-Waterman: both sequences may start and end anywhere (ssearch36).
pub const CLSW_MODE_LOCAL: clsw_mode = 0;
/// Needleman-Wunsch: both sequences whole, end gaps charged (ggsearch36).
pub const CLSW_MODE_GLOBAL: clsw_mode = 1;
/// The query whole, the subject from anywhere to anywhere (glsearch36).
pub const CLSW_MODE_GLOCAL: clsw_mode = 2;

/// A copy of `scoring` in `mode`. Searches with it report that mode's scores and
/// alignments; in the global and glocal modes their statistics are ggsearch36's and
/// glsearch36's (a normal distribution fitted to the scores of the subjects in the
/// query's length window: 0.75 to 1.33 times the query's length for global, at least
/// 0.75 times for glocal, the only subjects reported), they take one alignment per
/// subject (`max_hsps` 1) and `CLSW_STATS_AUTO`, `CLSW_STATS_FIT` or `CLSW_STATS_NONE`.
/// psse, sw3 and the `plain` and `intra` variants refuse a non-local scoring. Scores
/// may be negative in these modes.
/// On success `*out` is a new scoring to free with `clsw_scoring_free`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (an unknown mode), `CLSW_ERR_NULL`.
///
/// # Safety
/// `scoring` is NULL or a live scoring; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_with_mode(
    scoring: *const clsw_scoring,
    mode: clsw_mode,
    out: *mut *mut clsw_scoring,
) -> clsw_status {
    let build = || {
        // SAFETY: `scoring` is NULL or a live scoring (the caller's promise).
        let s = unsafe { handle(scoring, "scoring") }?;
        let mode = match mode {
            CLSW_MODE_LOCAL => Mode::Local,
            CLSW_MODE_GLOBAL => Mode::Global,
            CLSW_MODE_GLOCAL => Mode::Glocal,
            other => return Err(Error::InvalidArgument(format!("unknown alignment mode {other}")).into()),
        };
        Ok(clsw_scoring { scoring: s.scoring.clone().in_mode(mode) })
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// A copy of `scoring` that scores one query with a profile (a position-specific
/// scoring matrix, PSSM): position `i` of the query scores subject letter `c` with its
/// own score instead of the matrix's. `query` holds the profile's query (`positions`
/// letters of the scoring's alphabet); `scores` holds `positions` rows of
/// `column_count` values, row `i` position `i`'s scores against the letters `columns`
/// (each once, any case); a letter of the alphabet not among them scores as the
/// scoring's matrix scores it against the position's residue (how clsw reads
/// PSI-BLAST's ASCII PSSM, whose 20 columns lack B, Z, X and `*`). Every score within
/// -1048576..=1048576. A searcher made with it searches that query only (other queries
/// are `CLSW_ERR_INVALID_ARGUMENT`); the statistics fit the profile's scores as they fit
/// a matrix's, and the published parameters are the matrix's. psse and sw3 refuse it.
/// On success `*out` is a new scoring to free with `clsw_scoring_free`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (a letter outside the alphabet, a column given
/// twice, a score out of range, no positions), `CLSW_ERR_NULL`.
///
/// # Safety
/// `scoring` is NULL or a live scoring; `query` is NULL or has `positions` readable
/// bytes, `columns` `column_count`, `scores` `positions * column_count` values; `out` is
/// NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_with_pssm(
    scoring: *const clsw_scoring,
    query: *const u8,
    positions: usize,
    columns: *const u8,
    column_count: usize,
    scores: *const i32,
    out: *mut *mut clsw_scoring,
) -> clsw_status {
    let build = || {
        // SAFETY: `scoring` is NULL or a live scoring (the caller's promise).
        let s = unsafe { handle(scoring, "scoring") }?;
        let alphabet = s.scoring.matrix.alphabet();
        // SAFETY: `query` is NULL or has `positions` readable bytes (the caller's promise).
        let query = encode(unsafe { bytes(query, positions, "query") }?, alphabet, "query")?;
        // SAFETY: `columns` is NULL or has `column_count` readable bytes (the caller's promise).
        let letters = unsafe { bytes(columns, column_count, "columns") }?;
        let codes = letters
            .iter()
            .enumerate()
            .map(|(k, &b)| {
                alphabet.exact_code(b.to_ascii_uppercase()).ok_or_else(|| {
                    Failure::invalid(format!(
                        "columns: {} at position {} is not a {} letter",
                        crate::seq::alphabet::describe_byte(b),
                        k + 1,
                        alphabet.name()
                    ))
                })
            })
            .collect::<Outcome<Vec<u8>>>()?;
        let cells = positions
            .checked_mul(column_count)
            .ok_or_else(|| Failure::invalid(format!("{positions} x {column_count} scores is too many")))?;
        // SAFETY: `scores` is NULL or has `cells` readable values (the caller's promise).
        let values = unsafe { array(scores, cells, "scores") }?;
        let pssm = Pssm::from_columns("from the C ABI", &s.scoring.matrix, query, &codes, values)?;
        Ok(clsw_scoring { scoring: s.scoring.clone().with_pssm(pssm)? })
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// The scoring's alignment mode (a `CLSW_MODE_*`).
///
/// # Safety
/// `scoring` is NULL or a live scoring; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_mode(scoring: *const clsw_scoring, out: *mut clsw_mode) -> clsw_status {
    // SAFETY: `scoring` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe {
        get(scoring, "scoring", out, |s| {
            Ok(match s.scoring.mode {
                Mode::Local => CLSW_MODE_LOCAL,
                Mode::Global => CLSW_MODE_GLOBAL,
                Mode::Glocal => CLSW_MODE_GLOCAL,
            })
        })
    }
}

/// Frees a scoring; NULL is ignored. Searchers made with it keep their own copy.
///
/// # Safety
/// `scoring` is NULL or a scoring from a `clsw_scoring_new_*`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_free(scoring: *mut clsw_scoring) {
    // SAFETY: `scoring` is NULL or a live boxed scoring, freed once (the caller's promise).
    unsafe { free_box(scoring) }
}

/// The scoring's alphabet (`CLSW_ALPHABET_PROTEIN` or `CLSW_ALPHABET_DNA`).
///
/// # Safety
/// `scoring` is NULL or a live scoring; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_alphabet(scoring: *const clsw_scoring, out: *mut clsw_alphabet) -> clsw_status {
    // SAFETY: `scoring` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(scoring, "scoring", out, |s| Ok(alphabet_to(s.scoring.matrix.alphabet()))) }
}

/// The gap penalties in use (BLAST's convention: a gap of length L costs
/// `open + L * extend`). Either output may be NULL.
///
/// # Safety
/// `scoring` is NULL or a live scoring; `open` and `extend` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_gaps(
    scoring: *const clsw_scoring,
    open: *mut i32,
    extend: *mut i32,
) -> clsw_status {
    // SAFETY: `scoring` is NULL or live, `open` and `extend` NULL or writable (the
    // caller's promise).
    unsafe { get_pair(scoring, "scoring", open, extend, |s| (s.scoring.gaps.open, s.scoring.gaps.extend)) }
}

/// The matrix's name (`"BLOSUM62"`, a file's name, `"+2/-3"` for match/mismatch) into
/// `buf` of `len` bytes, NUL-terminated; `*needed` (if not NULL) gets the size
/// required. Too small a buffer: `CLSW_ERR_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `scoring` is NULL or a live scoring; `buf` is NULL or has `len` writable bytes;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_scoring_name(
    scoring: *const clsw_scoring,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    run(|| {
        // SAFETY: `scoring` is NULL or a live scoring (the caller's promise).
        let s = unsafe { handle(scoring, "scoring") }?;
        // SAFETY: `buf` has `len` writable bytes unless NULL, `needed` is NULL or
        // writable (the caller's promise).
        unsafe { write_string(s.scoring.matrix.name(), buf, len, needed, "matrix name") }
    })
}

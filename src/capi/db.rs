//! Sequence databases: from FASTA files, from caller arrays, from prepared files.

use super::scoring::clsw_scoring;
use super::*;
use crate::seq::db::is_prepared;
use crate::seq::{Alphabet, Database, EmptyRecords, OpenedDatabase, check_id, fasta, split_header};
use std::sync::Arc;

/// A set of subject sequences in database order (index 0 to count - 1). Read-only
/// after creation: shareable between threads and searchers.
pub struct clsw_db {
    pub(crate) db: Arc<Database>,
    /// What opening it noted (`clsw_db_notes`), one line each.
    notes: Vec<String>,
}

fn finish(db: Database) -> Outcome<clsw_db> {
    finish_noted(db, Vec::new())
}

fn finish_noted(db: Database, notes: Vec<String>) -> Outcome<clsw_db> {
    if db.is_empty() {
        return Err(Failure::invalid("the database holds no sequences"));
    }
    Ok(clsw_db { db: Arc::new(db), notes })
}

const OUT: &str = "out (the database output)";

/// Reads a FASTA file (plain or gzip, multi-line records) into a database. `path` is
/// NUL-terminated, any bytes. `alphabet` is `CLSW_ALPHABET_PROTEIN`,
/// `CLSW_ALPHABET_DNA` or `CLSW_ALPHABET_AUTO` (guessed from the residues). The id
/// of a record is the first word of its header. Records without residues are
/// skipped; letters without a code of their own (U, O, J; IUPAC codes) are read as
/// X or N, and both are noted (`clsw_db_notes`).
/// Errors: `CLSW_ERR_IO` (cannot open or read), `CLSW_ERR_PARSE` (the message names
/// the file, the record number and id, the line and the bad character),
/// `CLSW_ERR_INVALID_ARGUMENT` (no records, a prepared file, an unknown alphabet),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_new_fasta(
    path: *const c_char,
    alphabet: clsw_alphabet,
    out: *mut *mut clsw_db,
) -> clsw_status {
    let build = || {
        // SAFETY: `path` is NULL or NUL-terminated (the caller's promise).
        let path = unsafe { c_path(path, "path (the FASTA file)") }?;
        let alphabet = match alphabet {
            CLSW_ALPHABET_AUTO => fasta::guess_alphabet(&path)?,
            a => alphabet_from(a)?,
        };
        if is_prepared(&path)? {
            return Err(Failure::invalid(format!(
                "{} is a prepared database, not FASTA; open it with clsw_db_new_prepared",
                path.display()
            )));
        }
        let (db, report) = Database::from_fasta(&path, alphabet, EmptyRecords::Skip)?;
        finish_noted(db, report.file_note(&path, alphabet).into_iter().collect())
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// Opens a database file of either kind, FASTA (plain or gzip) or prepared, with its
/// alphabet chosen as `clsw scan` chooses it (the library's one rule): `alphabet` when it
/// is `CLSW_ALPHABET_PROTEIN` or `CLSW_ALPHABET_DNA` (a prepared database of the other
/// alphabet is refused); for `CLSW_ALPHABET_AUTO`, a prepared database's own, else the
/// alphabet of `scoring` (the matrix a user named, as `clsw scan --matrix`; NULL for
/// none, when the scoring is to follow the database), else guessed from the FASTA
/// residues. FASTA is read as by `clsw_db_new_fasta`, a prepared database opened as by
/// `clsw_db_new_prepared`. What the choice and the reading note,
/// the lines `clsw scan` prints after `clsw: ` for the same inputs (a protein scoring's
/// warning for residues that look like DNA, letters read as X or N, empty records
/// skipped), are kept with the database: `clsw_db_notes`.
/// Errors: those of `clsw_db_new_fasta` and `clsw_db_new_prepared` (an unreadable
/// matrix file is no error here: `scoring` was read when it was made).
///
/// # Safety
/// `path` is NULL or NUL-terminated; `scoring` is NULL or a live handle; `out` is NULL
/// or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_new_file(
    path: *const c_char,
    alphabet: clsw_alphabet,
    scoring: *const clsw_scoring,
    out: *mut *mut clsw_db,
) -> clsw_status {
    let build = || {
        // SAFETY: `path` is NULL or NUL-terminated (the caller's promise).
        let path = unsafe { c_path(path, "path (the database file)") }?;
        let given = if alphabet == CLSW_ALPHABET_AUTO { None } else { Some(alphabet_from(alphabet)?) };
        let scoring = if scoring.is_null() {
            None
        } else {
            // SAFETY: a non-NULL `scoring` is a live handle from its constructor (the
            // caller's promise).
            Some(unsafe { handle(scoring, "scoring") }?.scoring.matrix.alphabet())
        };
        let opened = OpenedDatabase::open(&path, given, || Ok(scoring), EmptyRecords::Skip)?;
        finish_noted(opened.db, opened.notes)
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// What opening the database noted, the lines `clsw` prints after `clsw: ` (see
/// `clsw_db_new_file`; `clsw_db_new_fasta` notes letters read as X or N and empty
/// records skipped), joined by newlines (none after the last), NUL-terminated, into
/// `buf` of `len` bytes; `*needed` as for `clsw_db_id`. An empty string when there is
/// nothing to note (always for databases built from memory or prepared files opened by
/// `clsw_db_new_prepared`).
/// Errors: `CLSW_ERR_BUFFER_TOO_SMALL`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `db` is NULL or a live handle; `buf` is NULL or holds `len` writable bytes; `needed`
/// is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_notes(
    db: *const clsw_db,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    run(|| {
        // SAFETY: a non-NULL `db` is a live handle from its constructor (the caller's promise).
        let d = unsafe { handle(db, "db") }?;
        // SAFETY: `buf` holds `len` writable bytes and `needed` is NULL or writable (the
        // caller's promise).
        unsafe { write_string(&d.notes.join("\n"), buf, len, needed, "database notes") }
    })
}

/// Opens a prepared database written by `clsw_db_write_prepared` or `clsw makedb`:
/// checked (magic, version, checksums, content) and memory-mapped, not parsed. The
/// file must not be modified while the database is open. A file cut short meanwhile
/// does not end the process: the first mapping installs a SIGBUS handler that reads
/// the lost pages as zeros, and searches of the database then fail with
/// `CLSW_ERR_INVALID_ARGUMENT` naming the file; a SIGBUS elsewhere goes to the handler
/// installed before (a host that installs its own SIGBUS handler later should pass
/// on the signals it does not own).
/// Errors: `CLSW_ERR_IO`, `CLSW_ERR_INVALID_ARGUMENT` (not a prepared database, a
/// damaged or truncated one, another format version: the message says which),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_new_prepared(path: *const c_char, out: *mut *mut clsw_db) -> clsw_status {
    let build = || {
        // SAFETY: `path` is NULL or NUL-terminated (the caller's promise).
        let path = unsafe { c_path(path, "path (the prepared database)") }?;
        finish(Database::open_prepared(&path)?)
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// Builds a database from `count` sequences in memory (copied; the caller's arrays
/// may be freed after the call). Sequence `k` is the `lengths[k]` residue letters at
/// `sequences[k]` (not NUL-terminated; upper or lower case). `names` may be NULL (the
/// ids are then "1", "2", ...), and so may any `names[k]`; a name is NUL-terminated
/// UTF-8 text whose first word is the id and the rest the description, as in a FASTA
/// header.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (`count` is 0, an empty sequence, a letter that
/// is not a residue of `alphabet` — the message gives the sequence and position —, a
/// name that is not UTF-8 or whose id holds a control character), `CLSW_ERR_NULL`.
///
/// # Safety
/// `sequences` and `lengths` are NULL or have `count` elements, `names` is NULL or has
/// `count` (each NULL or NUL-terminated); `sequences[k]` has `lengths[k]` readable
/// bytes; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_new_sequences(
    alphabet: clsw_alphabet,
    count: usize,
    sequences: *const *const u8,
    lengths: *const usize,
    names: *const *const c_char,
    out: *mut *mut clsw_db,
) -> clsw_status {
    let build = || {
        let alphabet: Alphabet = alphabet_from(alphabet)?;
        // SAFETY: the arrays are as from_memory needs (the caller's promise).
        let (records, letters) = unsafe { from_memory(count, sequences, lengths, names) }?;
        // Encoded into the database's buffer on every core, as clsw_db_new_codes.
        let db = Database::from_fill(
            alphabet,
            &records,
            |k, place| {
                place.copy_from_slice(&encode(letters[k], alphabet, &what(k, &records[k].0))?);
                Ok(())
            },
            Failure::invalid,
        )?;
        finish(db)
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// Builds a database from `count` sequences in memory in the caller's own residue
/// codes, as a host program keeps them (FASTA's ssearch36 stores residues as small
/// integers): byte `c` of a sequence stands for the letter `code_letters[c]`, read as
/// `clsw_db_new_sequences` reads letters (so a code of letter `U` is read as X). A
/// code at or past `code_count`, or whose letter is 0 or not a residue of `alphabet`,
/// is refused in the sequence that holds it. Otherwise as `clsw_db_new_sequences`:
/// copied, `names` may be NULL, the same errors. Scoring such a database with the
/// host's own matrix: `clsw_scoring_new_matrix` over the same letters.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (`count` or `code_count` is 0, a bad code —
/// the message gives the sequence, the position and the code —, as for
/// `clsw_db_new_sequences`), `CLSW_ERR_NULL`.
///
/// # Safety
/// `code_letters` is NULL or has `code_count` readable bytes; the other arrays as for
/// `clsw_db_new_sequences`; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_new_codes(
    alphabet: clsw_alphabet,
    code_letters: *const u8,
    code_count: usize,
    count: usize,
    sequences: *const *const u8,
    lengths: *const usize,
    names: *const *const c_char,
    out: *mut *mut clsw_db,
) -> clsw_status {
    let build = || {
        let alphabet: Alphabet = alphabet_from(alphabet)?;
        if code_count == 0 {
            return Err(Failure::invalid("code_count is 0: no code stands for a residue"));
        }
        // SAFETY: `code_letters` is NULL or has `code_count` >= min(code_count, 256)
        // readable bytes (the caller's promise).
        let table = unsafe { bytes(code_letters, code_count.min(256), "code_letters") }?;
        // Each code's residue, through the one letter rule (encode), once per code:
        // a table of 256, NO_RESIDUE where a code stands for none.
        const NO_RESIDUE: u8 = u8::MAX;
        let mut residue = [NO_RESIDUE; 256];
        for (code, &l) in table.iter().enumerate() {
            if let Some(r) = (l != 0).then(|| alphabet.encode_all(&[l]).ok()).flatten() {
                residue[code] = r[0];
            }
        }
        // SAFETY: the arrays are as from_memory needs (the caller's promise).
        let (records, caller_codes) = unsafe { from_memory(count, sequences, lengths, names) }?;
        // Written straight into the database's buffer, on every core.
        let db = Database::from_fill(
            alphabet,
            &records,
            |k, place| {
                let codes = caller_codes[k];
                for (r, &c) in place.iter_mut().zip(codes.iter()) {
                    *r = residue[c as usize];
                }
                match place.iter().position(|&r| r == NO_RESIDUE) {
                    None => Ok(()),
                    Some(i) => Err(Failure::invalid(format!(
                        "{}: code {} at position {} is not a {} residue in code_letters",
                        what(k, &records[k].0),
                        codes[i],
                        i + 1,
                        alphabet.name()
                    ))),
                }
            },
            Failure::invalid,
        )?;
        finish(db)
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, OUT, build) }
}

/// Records (id, description, length) for `Database::from_fill` and each one's bytes.
type CallerSequences<'a> = (Vec<(String, String, usize)>, Vec<&'a [u8]>);

/// The `count` caller sequences as records (id, description, length) and their bytes,
/// named by `names` or numbered from 1, each id checked: the one reading of caller
/// arrays behind `clsw_db_new_sequences` and `clsw_db_new_codes`, which then fill the
/// database with `Database::from_fill`.
///
/// # Safety
/// `sequences` and `lengths` are NULL or have `count` readable elements, `names` is
/// NULL or has `count`, each NULL or NUL-terminated UTF-8; `sequences[k]` is NULL or
/// has `lengths[k]` readable bytes; all of it left unchanged during `'a`.
unsafe fn from_memory<'a>(
    count: usize,
    sequences: *const *const u8,
    lengths: *const usize,
    names: *const *const c_char,
) -> Outcome<CallerSequences<'a>> {
    if count == 0 {
        return Err(Failure::invalid("count is 0: a database needs at least one sequence"));
    }
    if count > u32::MAX as usize {
        return Err(Failure::invalid(format!("{count} sequences: at most {} fit a database", u32::MAX)));
    }
    // SAFETY: `sequences` is NULL or has `count` elements (this function's contract).
    let seqs = unsafe { array(sequences, count, "sequences") }?;
    // SAFETY: `lengths` is NULL or has `count` elements (this function's contract).
    let lens = unsafe { array(lengths, count, "lengths") }?;
    // SAFETY: `names` is non-NULL here, so it has `count` elements (this function's contract).
    let names = if names.is_null() { None } else { Some(unsafe { array(names, count, "names") }?) };
    let (mut records, mut bytes_of) = (Vec::with_capacity(count), Vec::with_capacity(count));
    for k in 0..count {
        let (id, description) = match names.map(|n| n[k]).filter(|p| !p.is_null()) {
            Some(p) => {
                // SAFETY: names[k] is non-NULL here, so NUL-terminated (this function's contract).
                let (id, description) = split_header(unsafe { c_text(p, &format!("names[{k}]")) }?);
                check_id(id).map_err(|m| Failure::invalid(format!("names[{k}]: {m}")))?;
                (id.to_string(), description.to_string())
            }
            None => ((k + 1).to_string(), String::new()),
        };
        // SAFETY: sequences[k] is NULL or has lengths[k] readable bytes (this function's
        // contract).
        let letters = unsafe { bytes(seqs[k], lens[k], &what(k, &id)) }?;
        if letters.is_empty() {
            return Err(Failure::invalid(format!("{} is empty (length 0)", what(k, &id))));
        }
        if letters.len() > u32::MAX as usize {
            return Err(Failure::invalid(format!("{}: longer than {} residues", what(k, &id), u32::MAX)));
        }
        records.push((id, description, letters.len()));
        bytes_of.push(letters);
    }
    Ok((records, bytes_of))
}

/// Sequence k of a caller's arrays, as messages name it.
fn what(k: usize, id: &str) -> String {
    format!("sequences[{k}] ('{id}')")
}

/// The residue letters of `alphabet` in code order (`ARNDCQEGHILKMFPSTWYVBZX*` for
/// protein, `ACGTN` for DNA), NUL-terminated, into `buf` of `len` bytes; `*needed` as
/// for `clsw_db_id`. These letters are scored exactly as a matrix gives them; every
/// other letter a sequence may hold (U, O, J; IUPAC codes) is read as X or N. A host
/// with codes of its own hands clsw only sequences in these letters when it needs
/// clsw's scores to equal its own.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (an unknown alphabet), `CLSW_ERR_BUFFER_TOO_SMALL`,
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `buf` is NULL or has `len` writable bytes; `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_alphabet_letters(
    alphabet: clsw_alphabet,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    run(|| {
        let symbols = alphabet_from(alphabet)?.symbols();
        // Symbols are ASCII.
        let text = std::str::from_utf8(symbols).map_err(|_| Failure::new(CLSW_ERR_INTERNAL, "non-ASCII letter"))?;
        // SAFETY: `buf` has `len` writable bytes unless NULL, `needed` is NULL or
        // writable (the caller's promise).
        unsafe { write_string(text, buf, len, needed, "alphabet letters") }
    })
}

/// Writes the database as a prepared file (checksummed, memory-mapped when opened
/// with `clsw_db_new_prepared`). The file is written atomically: to a temporary
/// created exclusively beside `path` (never a file or symlink already there), synced,
/// then renamed over `path`; on failure `path` is left as it was. Threads or processes
/// writing the same path each write a whole file (the last rename wins).
/// Errors: `CLSW_ERR_IO`, `CLSW_ERR_INVALID_ARGUMENT` (`path` is a directory),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `db` is NULL or a live database; `path` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_write_prepared(db: *const clsw_db, path: *const c_char) -> clsw_status {
    run(|| {
        // SAFETY: `db` is NULL or a live database (the caller's promise).
        let d = unsafe { handle(db, "db") }?;
        // SAFETY: `path` is NULL or NUL-terminated (the caller's promise).
        let path = unsafe { c_path(path, "path (the prepared database)") }?;
        Ok(d.db.write_prepared(&path)?)
    })
}

/// Frees a database; NULL is ignored. Searchers and hits made from it keep what they
/// need, so they may be used and freed after it.
///
/// # Safety
/// `db` is NULL or a database from a `clsw_db_new_*`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_free(db: *mut clsw_db) {
    // SAFETY: `db` is NULL or a live boxed database, freed once (the caller's promise).
    unsafe { free_box(db) }
}

/// The number of sequences.
///
/// # Safety
/// `db` is NULL or a live database; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_count(db: *const clsw_db, out: *mut usize) -> clsw_status {
    // SAFETY: `db` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(db, "db", out, |d| Ok(d.db.len())) }
}

/// The total number of residues.
///
/// # Safety
/// `db` is NULL or a live database; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_total_residues(db: *const clsw_db, out: *mut u64) -> clsw_status {
    // SAFETY: `db` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(db, "db", out, |d| Ok(d.db.total_residues())) }
}

/// The database's alphabet.
///
/// # Safety
/// `db` is NULL or a live database; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_alphabet(db: *const clsw_db, out: *mut clsw_alphabet) -> clsw_status {
    // SAFETY: `db` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(db, "db", out, |d| Ok(alphabet_to(d.db.alphabet()))) }
}

fn index_ok(db: &Database, index: usize) -> Outcome {
    if index >= db.len() {
        return Err(Failure::invalid(format!(
            "index {index} is out of range (the database has {} sequences)",
            db.len()
        )));
    }
    Ok(())
}

/// The length of sequence `index` (0-based, database order).
///
/// # Safety
/// `db` is NULL or a live database; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_length(db: *const clsw_db, index: usize, out: *mut usize) -> clsw_status {
    let length = |d: &clsw_db| {
        index_ok(&d.db, index)?;
        Ok(d.db.seq_len(index))
    };
    // SAFETY: `db` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(db, "db", out, length) }
}

/// The id of sequence `index` (the first word of its FASTA header) into `buf` of
/// `len` bytes, NUL-terminated; `*needed` (if not NULL) gets the size required. Too
/// small a buffer: `CLSW_ERR_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `db` is NULL or a live database; `buf` is NULL or has `len` writable bytes;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_id(
    db: *const clsw_db,
    index: usize,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    run(|| {
        // SAFETY: `db` is NULL or a live database (the caller's promise).
        let d = unsafe { handle(db, "db") }?;
        index_ok(&d.db, index)?;
        // SAFETY: `buf` has `len` writable bytes unless NULL, `needed` is NULL or
        // writable (the caller's promise).
        unsafe { write_string(d.db.id(index), buf, len, needed, "sequence id") }
    })
}

/// The residues of sequence `index` as upper-case letters, NUL-terminated, into `buf`
/// of `len` bytes (`clsw_db_length() + 1` suffice); `*needed` as for `clsw_db_id`.
/// Letters read as X or N come back as X or N.
///
/// # Safety
/// `db` is NULL or a live database; `buf` is NULL or has `len` writable bytes;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_db_sequence(
    db: *const clsw_db,
    index: usize,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    run(|| {
        // SAFETY: `db` is NULL or a live database (the caller's promise).
        let d = unsafe { handle(db, "db") }?;
        index_ok(&d.db, index)?;
        let letters = d.db.alphabet().decode_all(d.db.residues(index));
        // Letters are ASCII.
        let text = String::from_utf8(letters).map_err(|_| Failure::new(CLSW_ERR_INTERNAL, "non-ASCII letter"))?;
        // SAFETY: `buf` has `len` writable bytes unless NULL, `needed` is NULL or
        // writable (the caller's promise).
        unsafe { write_string(&text, buf, len, needed, "sequence") }
    })
}

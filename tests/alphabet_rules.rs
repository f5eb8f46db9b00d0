//! The rules that once lived only in the command line now live in the library, so the
//! same inputs give the same behaviour through `clsw scan`, the C ABI and the Rust API:
//! a database's alphabet and the notes its opening gives
//! ([`clsw::seq::AlphabetChoice`], `clsw_db_new_file` and `clsw_db_notes`), the refusal of
//! a strand for a protein search ([`clsw::search::Strands::for_alphabet`]), and gap costs
//! of either sign ([`clsw::scoring::Gaps::from_signed`]).

mod common;

use clsw::capi::db::{clsw_db, clsw_db_alphabet, clsw_db_free, clsw_db_new_file, clsw_db_new_sequences, clsw_db_notes};
use clsw::capi::scan::{
    CLSW_STRANDS_MINUS, CLSW_STRANDS_PLUS, clsw_search_options, clsw_search_options_init, clsw_searcher_free,
    clsw_searcher_new,
};
use clsw::capi::scoring::{CLSW_GAPS_DEFAULT, clsw_scoring_free, clsw_scoring_gaps, clsw_scoring_new_builtin};
use clsw::capi::{
    CLSW_ALPHABET_AUTO, CLSW_ALPHABET_DNA, CLSW_ALPHABET_PROTEIN, CLSW_ERR_INVALID_ARGUMENT, CLSW_OK, clsw_alphabet,
};
use clsw::scoring::{DEFAULT_MATRICES, Gaps, Matrix, ScoringRequest};
use clsw::search::{SearchOptions, Searcher, Strands};
use clsw::seq::{Alphabet, AlphabetSource, Database, EmptyRecords, OpenedDatabase, Sequence};
use common::capi::{Handles, last_error};
use common::cli::{clsw, s, scratch, scratch_dir};
use std::ffi::{CStr, CString, c_char};
use std::path::Path;

const PROTEIN_QUERY: &[u8] = b">p\nMKVLAAGIVGLLLAQWERTYHHKLMNPQRSTVWY\n";
const DNA_QUERY: &[u8] = b">d\nACGTTGCAAGGCTTACGATCGGATCCA\n";

/// A database file that looks like DNA, named for the test that reads it (the tests
/// run at once, and a file rewritten by one while another's `clsw` reads it is a race).
fn dna_db(test: &str) -> std::path::PathBuf {
    scratch(
        &format!("rules_dna_{test}.fa"),
        b">d1\nACGTACGTTAGCATCGATCGGATCCATGCA\n>d2\nTTGACCAGTACGATCGGCATGCATGCAACG\n",
    )
}

/// A protein database with a letter read as X and an empty record skipped: a note
/// (named for its test, as [`dna_db`]).
fn protein_db_with_notes(test: &str) -> std::path::PathBuf {
    scratch(&format!("rules_protein_{test}.fa"), b">p1\nMKVLAAGIVGLLUAQWERTY\n>empty\n>p2\nHHKLMNPQRSTVWYMKVLAA\n")
}

/// `clsw scan` on the native path: its exit code, the alphabet the database was read
/// with (a DNA search says "both strands" in its summary), and the lines it printed
/// before the summary (the notes, each `clsw: NOTE`).
fn cli_scan(db: &Path, query: &[u8], options: &[&str]) -> (Alphabet, Vec<String>) {
    let stem = db.file_stem().and_then(|n| n.to_str()).unwrap_or("db");
    let q = scratch(&format!("rules_query_{stem}_{}.fa", query.len()), query);
    let mut args = vec!["scan", "-q", s(&q), "-d", s(db), "--device", "native"];
    args.extend_from_slice(options);
    let (code, _, err) = clsw(&args);
    assert_eq!(code, 0, "{args:?}: {err}");
    let mut lines: Vec<String> = err.lines().map(str::to_string).collect();
    let summary = lines.pop().unwrap_or_default();
    assert!(summary.contains(" query ("), "{args:?}: {err}");
    let alphabet = if summary.contains(", both strands") { Alphabet::Dna } else { Alphabet::Protein };
    (alphabet, lines)
}

fn c_alphabet(a: clsw_alphabet) -> Alphabet {
    match a {
        CLSW_ALPHABET_PROTEIN => Alphabet::Protein,
        CLSW_ALPHABET_DNA => Alphabet::Dna,
        other => panic!("alphabet {other}"),
    }
}

/// `clsw_db_new_file` with `given` (AUTO for none) and a built-in matrix's scoring (or
/// NULL): the database's alphabet and its notes, as `clsw_db_notes` gives them.
fn c_open(db: &Path, given: clsw_alphabet, matrix: Option<&CStr>) -> (Alphabet, Vec<String>) {
    let scoring = match matrix {
        Some(m) => {
            let mut sc = std::ptr::null_mut();
            // SAFETY: the name is a NUL-terminated C string and `sc` a writable out-pointer.
            let st = unsafe { clsw_scoring_new_builtin(m.as_ptr(), CLSW_GAPS_DEFAULT, CLSW_GAPS_DEFAULT, &mut sc) };
            assert_eq!(st, CLSW_OK, "{}", last_error());
            sc
        }
        None => std::ptr::null_mut(),
    };
    let path = CString::new(s(db)).unwrap();
    let mut d: *mut clsw_db = std::ptr::null_mut();
    // SAFETY: the path is a NUL-terminated C string, the scoring NULL or a live handle, `d` a writable out-pointer.
    let st = unsafe { clsw_db_new_file(path.as_ptr(), given, scoring, &mut d) };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    let mut a = 99;
    // SAFETY: `d` is the live handle just opened and `a` writable.
    assert_eq!(unsafe { clsw_db_alphabet(d, &mut a) }, CLSW_OK);
    let notes = c_notes(d);
    // SAFETY: both handles came from their constructors above and are freed once (NULL is allowed).
    unsafe {
        clsw_db_free(d);
        clsw_scoring_free(scoring);
    }
    (c_alphabet(a), notes)
}

fn c_notes(d: *const clsw_db) -> Vec<String> {
    let mut needed = 0usize;
    // Asked for the size first: an empty buffer is too small even for "".
    // SAFETY: a NULL buffer of length 0 is allowed; `needed` is writable.
    let st = unsafe { clsw_db_notes(d, std::ptr::null_mut(), 0, &mut needed) };
    assert_ne!(st, CLSW_OK);
    let mut buf = vec![0 as c_char; needed];
    // SAFETY: `buf` holds `buf.len()` writable bytes; `d` is a live handle.
    assert_eq!(unsafe { clsw_db_notes(d, buf.as_mut_ptr(), buf.len(), &mut needed) }, CLSW_OK, "{}", last_error());
    // SAFETY: clsw_db_notes wrote a NUL-terminated string into `buf`.
    let text = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string();
    if text.is_empty() { Vec::new() } else { text.lines().map(str::to_string).collect() }
}

/// The Rust API's opening of the same file.
fn rust_open(db: &Path, given: Option<Alphabet>, matrix: Option<&str>) -> OpenedDatabase {
    let request = ScoringRequest { matrix: matrix.map(str::to_string), ..ScoringRequest::default() };
    OpenedDatabase::open(db, given, || request.matrix_alphabet(), EmptyRecords::Skip).unwrap()
}

#[test]
fn a_database_gets_the_same_alphabet_and_notes_from_the_cli_the_c_abi_and_rust() {
    let (dna, protein) = (dna_db("same"), protein_db_with_notes("same"));
    let warning =
        format!("warning: {} looks like DNA but is read as protein, as the matrix is a protein matrix", dna.display());
    let read = format!("{}: letters read as X: U x1; 1 empty record skipped: 'empty' (line 3)", protein.display());
    // (database, query, --alphabet, --matrix, the alphabet, where it came from, the notes)
    type Case<'a> = (&'a Path, &'a [u8], Option<Alphabet>, Option<&'a str>, Alphabet, AlphabetSource, Vec<String>);
    let cases: Vec<Case> = vec![
        (&dna, PROTEIN_QUERY, None, Some("BLOSUM62"), Alphabet::Protein, AlphabetSource::Matrix, vec![warning]),
        (&dna, DNA_QUERY, None, None, Alphabet::Dna, AlphabetSource::Guessed, vec![]),
        (&dna, DNA_QUERY, Some(Alphabet::Dna), Some("EDNAFULL"), Alphabet::Dna, AlphabetSource::Given, vec![]),
        (&dna, PROTEIN_QUERY, Some(Alphabet::Protein), None, Alphabet::Protein, AlphabetSource::Given, vec![]),
        (&protein, PROTEIN_QUERY, None, None, Alphabet::Protein, AlphabetSource::Guessed, vec![read.clone()]),
        (&protein, PROTEIN_QUERY, None, Some("BLOSUM62"), Alphabet::Protein, AlphabetSource::Matrix, vec![read]),
    ];
    for (db, query, given, matrix, alphabet, source, notes) in cases {
        let what = format!("{} --alphabet {given:?} --matrix {matrix:?}", db.display());
        let mut options = Vec::new();
        if let Some(a) = given {
            options.extend(["--alphabet", a.name()]);
        }
        if let Some(m) = matrix {
            options.extend(["--matrix", m]);
        }
        let (cli_alphabet, cli_lines) = cli_scan(db, query, &options);
        let printed: Vec<String> = notes.iter().map(|n| format!("clsw: {n}")).collect();
        assert_eq!((cli_alphabet, &cli_lines), (alphabet, &printed), "CLI: {what}");

        let given_c = match given {
            None => CLSW_ALPHABET_AUTO,
            Some(Alphabet::Protein) => CLSW_ALPHABET_PROTEIN,
            Some(Alphabet::Dna) => CLSW_ALPHABET_DNA,
        };
        let matrix_c = matrix.map(|m| CString::new(m).unwrap());
        assert_eq!(c_open(db, given_c, matrix_c.as_deref()), (alphabet, notes.clone()), "C ABI: {what}");

        let opened = rust_open(db, given, matrix);
        assert_eq!((opened.db.alphabet(), opened.source, &opened.notes), (alphabet, source, &notes), "Rust: {what}");
    }
}

#[test]
fn a_prepared_database_keeps_its_own_alphabet_everywhere() {
    let prepared = scratch_dir().join("rules_dna.clswdb");
    let (code, _, err) = clsw(&["makedb", s(&dna_db("prepared")), "-o", s(&prepared)]);
    assert_eq!(code, 0, "{err}");
    let (alphabet, lines) = cli_scan(&prepared, DNA_QUERY, &[]);
    assert_eq!((alphabet, lines), (Alphabet::Dna, vec![]));
    assert_eq!(c_open(&prepared, CLSW_ALPHABET_AUTO, None), (Alphabet::Dna, vec![]));
    let opened = rust_open(&prepared, None, None);
    assert_eq!((opened.db.alphabet(), opened.source), (Alphabet::Dna, AlphabetSource::Prepared));
    // An alphabet given that is not the file's is refused, with the same message.
    let (code, _, err) = clsw(&["scan", "-q", s(&dna_db("prepared")), "-d", s(&prepared), "--alphabet", "protein"]);
    assert_eq!(code, 1, "{err}");
    let path = CString::new(s(&prepared)).unwrap();
    let mut d = std::ptr::null_mut();
    // SAFETY: the path is a NUL-terminated C string, the scoring NULL or a live handle, `d` a writable out-pointer.
    let st = unsafe { clsw_db_new_file(path.as_ptr(), CLSW_ALPHABET_PROTEIN, std::ptr::null(), &mut d) };
    assert_eq!(st, CLSW_ERR_INVALID_ARGUMENT);
    assert!(d.is_null());
    assert_eq!(err.trim_end(), format!("clsw: error: {}", last_error()));
}

#[test]
fn a_protein_search_refuses_a_strand_in_the_cli_the_c_abi_and_rust() {
    let db = protein_db_with_notes("strand");
    let q = scratch("rules_strand_query.fa", PROTEIN_QUERY);
    let mut messages = Vec::new();
    for strand in ["plus", "minus"] {
        let args = ["scan", "-q", s(&q), "-d", s(&db), "--device", "native", "--strand", strand];
        let (code, _, err) = clsw(&args);
        assert_eq!(code, 1, "{err}");
        let message = err.lines().last().unwrap().strip_prefix("clsw: error: ").unwrap().to_string();
        assert_eq!(message, "invalid argument: --strand applies to DNA searches; this is a protein search");
        messages.push(message);
    }
    // `both` is every protein search's one strand: accepted, as the default.
    let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", s(&db), "--device", "native", "--strand", "both"]);
    assert_eq!(code, 0, "{err}");

    let h = Handles::builtin(c"BLOSUM62", CLSW_GAPS_DEFAULT, CLSW_GAPS_DEFAULT);
    let letters = b"MKVLAAGIVGLLLAQWERTY";
    let (ptrs, lens) = ([letters.as_ptr()], [letters.len()]);
    let mut d = std::ptr::null_mut();
    // SAFETY: one sequence: its pointer and length come from `letters`, which outlives the call; `d` is writable.
    let st = unsafe {
        clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 1, ptrs.as_ptr(), lens.as_ptr(), std::ptr::null(), &mut d)
    };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    for (strands, cli) in [(CLSW_STRANDS_PLUS, &messages[0]), (CLSW_STRANDS_MINUS, &messages[1])] {
        // SAFETY: clsw_search_options is plain data (integers and doubles); all zeros is a valid value.
        let mut o: clsw_search_options = unsafe { std::mem::zeroed() };
        // SAFETY: `o` is a writable struct of the size given.
        assert_eq!(unsafe { clsw_search_options_init(&mut o, std::mem::size_of_val(&o)) }, CLSW_OK);
        o.strands = strands;
        let mut searcher = std::ptr::null_mut();
        // SAFETY: the engine, scoring and database are live handles, the options initialized, `searcher` writable.
        let st = unsafe { clsw_searcher_new(h.engine, h.scoring, d, &o, &mut searcher) };
        assert_eq!((st, &last_error()), (CLSW_ERR_INVALID_ARGUMENT, cli));
        assert!(searcher.is_null());
        // SAFETY: NULL (the constructor failed) is allowed.
        unsafe { clsw_searcher_free(searcher) };
    }
    // SAFETY: both handles came from their constructors above and are freed once (NULL is allowed).
    unsafe { clsw_db_free(d) };

    let engine = clsw::Engine::open(Some("native")).unwrap();
    let db = Database::from_sequences(
        Alphabet::Protein,
        vec![Sequence::from_letters("p", letters, Alphabet::Protein).unwrap()],
    );
    let scoring = ScoringRequest::default().resolve(Alphabet::Protein, DEFAULT_MATRICES).unwrap();
    for (strands, cli) in [(Strands::Plus, &messages[0]), (Strands::Minus, &messages[1])] {
        let options = SearchOptions { strands, ..SearchOptions::default() };
        let err = Searcher::new(&engine, &db, scoring.clone(), options).err().unwrap();
        assert_eq!(&err.to_string(), cli);
    }
}

#[test]
fn gap_costs_of_either_sign_are_the_same_gaps_everywhere() {
    for (open, extend, want) in [(-11, -1, (11, 1)), (11, 1, (11, 1)), (-9, 2, (9, 2)), (10, -3, (10, 3))] {
        // The command line's request (`--gap-open OPEN --gap-extend EXTEND`), as written.
        let request = ScoringRequest { gap_open: Some(open), gap_extend: Some(extend), ..ScoringRequest::default() };
        let cli = request.resolve(Alphabet::Protein, DEFAULT_MATRICES).unwrap().gaps;
        assert_eq!((cli.open, cli.extend), want, "{open} {extend}");
        assert_eq!(Gaps::from_signed(open, extend).unwrap(), cli);
        assert_eq!(Gaps::stated(Some(open), Some(extend), Matrix::builtin("BLOSUM62").unwrap().name()).unwrap(), cli);
        let h = Handles::builtin(c"BLOSUM62", open, extend);
        let (mut o, mut e) = (0, 0);
        // SAFETY: `h.scoring` is a live handle; `o` and `e` are writable.
        assert_eq!(unsafe { clsw_scoring_gaps(h.scoring, &mut o, &mut e) }, CLSW_OK);
        assert_eq!((o, e), want, "C ABI: {open} {extend}");
    }
    // The same search from the command line either way.
    let db = protein_db_with_notes("gaps");
    let q = scratch("rules_gaps_query.fa", PROTEIN_QUERY);
    let run = |open: &str, extend: &str| {
        let args = ["scan", "-q", s(&q), "-d", s(&db), "--device", "native", "--quiet"];
        let (code, out, err) = clsw(&[&args[..], &["--gap-open", open, "--gap-extend", extend]].concat());
        assert_eq!(code, 0, "{err}");
        out
    };
    assert_eq!(run("-9", "-2"), run("9", "2"));
}

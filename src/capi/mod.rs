//! The C ABI: the `extern "C"` surface of clsw, from which cbindgen generates
//! `include/clsw.h` (settings in `cbindgen.toml`; `tests/header_capi.rs` fails when the
//! committed header differs from a fresh one, and `CLSW_BLESS=1` rewrites it).
//!
//! One file per entry point, as in the rest of the crate: [`engine`] (devices),
//! [`scoring`] (matrices and gaps), [`db`] (databases), [`scan`] (database search:
//! hits and every subject's score), [`align`] (pairwise alignment with traceback),
//! [`psse`] (pairwise statistical significance), [`distance`] (all-pairs distance
//! matrices), [`sw3`] (three-sequence alignment, batches of triples, SAX).
//! This file holds the status codes, the thread-local last error, the version and
//! [`run`]; [`buffers`] (pointers, buffers, strings) and [`handles`] (handles and
//! versioned structs) hold the helpers that make every entry point behave the same way:
//!
//! * every body runs inside [`run`]: `catch_unwind` turns a panic into
//!   `CLSW_ERR_INTERNAL` with the panic's message, never an abort across the ABI;
//! * every pointer is checked for NULL ([`handle`], [`out_ptr`], [`bytes`]); a buffer
//!   always comes with its length; a length of 0 allows a NULL pointer;
//! * caller bytes are never taken to be UTF-8: paths go through `OsStr` (unix), text
//!   that must be UTF-8 (device choices, names) is checked and refused with a message;
//! * outputs are written only on success, and output handles are set to NULL first.
//!
//! The conventions that C users see are written in the header's preamble
//! (`cbindgen.toml`), so they are stated once, next to the declarations.

#![allow(non_camel_case_types)]

// In this order in the header.
pub mod align;
pub mod db;
pub mod engine;
pub mod scan;
pub mod scoring;
// After scan, whose clsw_variant it uses.
pub mod psse;
// Distance matrices and three-sequence alignment come last.
pub mod distance;
pub mod sw3;

// What the entry points share, by concern (no `extern "C"` items, so the header is
// unchanged): pointer and buffer checks, and the bodies of handle getters,
// constructors and versioned structs.
mod buffers;
mod handles;
pub(crate) use buffers::*;
pub(crate) use handles::*;

use crate::error::Error;
use std::cell::RefCell;
use std::ffi::{CString, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Major version of the library (from Cargo.toml; a compile-time check keeps them equal).
pub const CLSW_VERSION_MAJOR: u32 = 0;
/// Minor version of the library.
pub const CLSW_VERSION_MINOR: u32 = 2;
/// Patch version of the library.
pub const CLSW_VERSION_PATCH: u32 = 0;

const fn parse_u32(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut i = 0;
    let mut v = 0u32;
    while i < b.len() {
        assert!(b[i].is_ascii_digit(), "version component is not a number");
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

// The header's version macros must be the crate's version: a release that bumps
// Cargo.toml without them does not compile.
const _: () = assert!(parse_u32(env!("CARGO_PKG_VERSION_MAJOR")) == CLSW_VERSION_MAJOR);
const _: () = assert!(parse_u32(env!("CARGO_PKG_VERSION_MINOR")) == CLSW_VERSION_MINOR);
const _: () = assert!(parse_u32(env!("CARGO_PKG_VERSION_PATCH")) == CLSW_VERSION_PATCH);

/// What every fallible call returns. `CLSW_OK` is 0, so `if (clsw_xxx(...))` tests
/// for failure; `clsw_last_error()` then has the details.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum clsw_status {
    /// Success.
    CLSW_OK = 0,
    /// A required pointer (handle, input or output) was NULL.
    CLSW_ERR_NULL = 1,
    /// An argument or option is outside what the call accepts (also: a residue letter
    /// that is not in the alphabet, an empty sequence, an options struct whose `size`
    /// is too small, an unknown matrix name).
    CLSW_ERR_INVALID_ARGUMENT = 2,
    /// A file could not be opened, read or written.
    CLSW_ERR_IO = 3,
    /// A file was read but its content is malformed (FASTA, matrix, prepared database).
    CLSW_ERR_PARSE = 4,
    /// An OpenCL call failed; the message names the call and the error code.
    CLSW_ERR_OPENCL = 5,
    /// A kernel did not compile; the message holds the device compiler's build log.
    CLSW_ERR_BUILD = 6,
    /// No device matches the choice, or a device failed its self-test.
    CLSW_ERR_DEVICE = 7,
    /// A caller buffer is too small; the call says how large it must be.
    CLSW_ERR_BUFFER_TOO_SMALL = 8,
    /// A bug in clsw (a Rust panic was caught at the API boundary, or a check of clsw's
    /// own CPU work failed); please report the message.
    CLSW_ERR_INTERNAL = 9,
    /// Memory for a buffer whose size follows from the arguments could not be had (the
    /// host's, or a device's per-buffer limit); the message names the buffer and its size.
    /// Nothing was changed: the call can be retried with smaller inputs.
    CLSW_ERR_OUT_OF_MEMORY = 10,
    /// Another rank of an MPI search failed (`clsw_searcher_new_mpi`); the message
    /// names that rank and holds its error's message. Every rank's call returns an
    /// error, none waits for the failed one.
    CLSW_ERR_RANK = 11,
    /// A function of the MPI API was called on a clsw built without MPI (the cargo
    /// feature `mpi`).
    CLSW_ERR_NO_MPI = 12,
}

pub use clsw_status::*;

/// Alphabet of sequences, scoring schemes and databases.
pub type clsw_alphabet = u32;
/// Protein: codes `ARNDCQEGHILKMFPSTWYVBZX*` (U, O, J read as X; lower case accepted).
pub const CLSW_ALPHABET_PROTEIN: clsw_alphabet = 0;
/// DNA: `ACGTN` (U read as T, IUPAC ambiguity codes as N; lower case accepted).
pub const CLSW_ALPHABET_DNA: clsw_alphabet = 1;
/// Only for `clsw_db_new_fasta` and `clsw_db_new_file`: guess from the residues (DNA
/// when at least 90% of the letters are A, C, G, T, U or N; `clsw_db_new_file` first
/// takes a prepared database's own or the scoring's).
pub const CLSW_ALPHABET_AUTO: clsw_alphabet = 2;

pub(crate) fn alphabet_from(a: clsw_alphabet) -> Outcome<crate::seq::Alphabet> {
    match a {
        CLSW_ALPHABET_PROTEIN => Ok(crate::seq::Alphabet::Protein),
        CLSW_ALPHABET_DNA => Ok(crate::seq::Alphabet::Dna),
        other => Err(Failure::invalid(format!(
            "unknown alphabet {other}; use CLSW_ALPHABET_PROTEIN (0) or CLSW_ALPHABET_DNA (1)"
        ))),
    }
}

pub(crate) fn alphabet_to(a: crate::seq::Alphabet) -> clsw_alphabet {
    match a {
        crate::seq::Alphabet::Protein => CLSW_ALPHABET_PROTEIN,
        crate::seq::Alphabet::Dna => CLSW_ALPHABET_DNA,
    }
}

/// The library's version, `"MAJOR.MINOR.PATCH"`: a static string, never NULL, never
/// to be freed. Compare with the `CLSW_VERSION_*` macros the program was compiled with.
#[unsafe(no_mangle)]
pub extern "C" fn clsw_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char
}

/// A short static description of a status code (`"CLSW_ERR_IO: input/output error"`);
/// never NULL, never to be freed. `status` is a `clsw_status` value; any other number
/// gives `"unknown clsw_status"`.
#[unsafe(no_mangle)]
pub extern "C" fn clsw_status_str(status: c_int) -> *const c_char {
    let s: &'static str = match status {
        0 => "CLSW_OK: success\0",
        1 => "CLSW_ERR_NULL: a required pointer was NULL\0",
        2 => "CLSW_ERR_INVALID_ARGUMENT: invalid argument\0",
        3 => "CLSW_ERR_IO: input/output error\0",
        4 => "CLSW_ERR_PARSE: malformed input\0",
        5 => "CLSW_ERR_OPENCL: an OpenCL call failed\0",
        6 => "CLSW_ERR_BUILD: an OpenCL kernel did not compile\0",
        7 => "CLSW_ERR_DEVICE: no usable device\0",
        8 => "CLSW_ERR_BUFFER_TOO_SMALL: a caller buffer is too small\0",
        9 => "CLSW_ERR_INTERNAL: internal error (a bug in clsw)\0",
        10 => "CLSW_ERR_OUT_OF_MEMORY: out of memory\0",
        11 => "CLSW_ERR_RANK: another rank of the MPI job failed\0",
        12 => "CLSW_ERR_NO_MPI: clsw was built without MPI\0",
        _ => "unknown clsw_status\0",
    };
    s.as_ptr() as *const c_char
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // try_with: during thread teardown the slot may be gone; the status still tells.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = c);
}

/// The detailed message of the last call on this thread that returned a
/// `clsw_status`: empty after a success; after a failure, what went wrong (the file,
/// record and line of bad input, the OpenCL call and error name, a kernel's build
/// log, which argument was NULL). Never NULL. The string belongs to clsw and stays
/// valid until the next clsw call on the same thread: copy it to keep it.
#[unsafe(no_mangle)]
pub extern "C" fn clsw_last_error() -> *const c_char {
    LAST_ERROR.try_with(|slot| slot.borrow().as_ptr()).unwrap_or(c"".as_ptr())
}

/// A failed call: its status and the message for `clsw_last_error()`.
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: clsw_status,
    pub message: String,
}

impl Failure {
    pub fn new(status: clsw_status, message: impl Into<String>) -> Failure {
        Failure { status, message: message.into() }
    }

    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure::new(CLSW_ERR_INVALID_ARGUMENT, message)
    }

    pub fn null(what: &str) -> Failure {
        Failure::new(CLSW_ERR_NULL, format!("{what} is NULL"))
    }
}

/// The status of each library error; the message is the error's own text (which
/// names files, records, lines, OpenCL calls and error names, and holds build logs).
pub(crate) fn status_of(e: &Error) -> clsw_status {
    match e {
        Error::Io { .. } => CLSW_ERR_IO,
        Error::Fasta { .. } | Error::Matrix(_) => CLSW_ERR_PARSE,
        Error::InvalidArgument(_) => CLSW_ERR_INVALID_ARGUMENT,
        Error::OpenCl { .. } => CLSW_ERR_OPENCL,
        Error::Build { .. } => CLSW_ERR_BUILD,
        Error::Device(_) => CLSW_ERR_DEVICE,
        Error::Internal(_) => CLSW_ERR_INTERNAL,
        Error::OutOfMemory { .. } => CLSW_ERR_OUT_OF_MEMORY,
        Error::Rank { .. } => CLSW_ERR_RANK,
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure { status: status_of(&e), message: e.to_string() }
    }
}

pub(crate) type Outcome<T = ()> = std::result::Result<T, Failure>;

/// Runs the body of an entry point: a panic becomes `CLSW_ERR_INTERNAL`; the last
/// error is set (empty on success).
pub(crate) fn run(body: impl FnOnce() -> Outcome) -> clsw_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            set_last_error("");
            CLSW_OK
        }
        Ok(Err(f)) => {
            set_last_error(&f.message);
            f.status
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            set_last_error(&format!("internal error (a bug in clsw, please report it): {what}"));
            CLSW_ERR_INTERNAL
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn message() -> String {
        // SAFETY: clsw_last_error never returns NULL; its string lives until the next
        // clsw call on this thread, after the copy.
        unsafe { CStr::from_ptr(clsw_last_error()) }.to_string_lossy().into_owned()
    }

    #[test]
    fn a_panic_becomes_an_internal_error_with_its_message() {
        let st = run(|| panic!("boom {}", 42));
        assert_eq!(st, CLSW_ERR_INTERNAL);
        assert!(message().contains("boom 42"), "{}", message());
        assert_eq!(run(|| Ok(())), CLSW_OK);
        assert_eq!(message(), "");
    }

    #[test]
    fn status_strings_cover_every_status_and_unknown_values() {
        for s in 0..=10 {
            // SAFETY: clsw_status_str returns a static NUL-terminated string.
            let text = unsafe { CStr::from_ptr(clsw_status_str(s)) }.to_str().unwrap();
            assert!(text.starts_with("CLSW_"), "{text}");
        }
        // SAFETY: as above.
        assert_eq!(unsafe { CStr::from_ptr(clsw_status_str(-3)) }.to_str().unwrap(), "unknown clsw_status");
        assert_eq!(CLSW_ERR_INTERNAL as i32, 9);
    }

    #[test]
    fn options_init_checks_the_size_before_writing_anything() {
        let mut o = sw3::clsw_sw3_options { size: 999, input: 7 };
        // SAFETY: `o` is a whole, writable clsw_sw3_options; 4 is below its size.
        assert_eq!(unsafe { sw3::clsw_sw3_options_init(&mut o, 4) }, CLSW_ERR_INVALID_ARGUMENT);
        assert_eq!((o.size, o.input), (999, 7), "nothing is written when size is too small");
        // SAFETY: `o` has size_of_val(&o) writable bytes.
        assert_eq!(unsafe { sw3::clsw_sw3_options_init(&mut o, std::mem::size_of_val(&o)) }, CLSW_OK);
        assert_eq!((o.size, o.input), (std::mem::size_of_val(&o), sw3::CLSW_SW3_LETTERS));
    }

    /// Every `*_options_init` given a size below its struct's first version's, over a
    /// struct of `T`'s size filled with 0xA5: an error, and every byte as it was.
    fn writes_nothing_when_too_small<T>(init: unsafe extern "C" fn(*mut T, usize) -> clsw_status) {
        let bytes = std::mem::size_of::<T>();
        let mut buf = vec![0xA5u64; bytes.div_ceil(8)];
        for size in [0, 1, 4, 7] {
            // SAFETY: `buf` has at least size_of::<T>() >= `size` writable bytes, 8-aligned
            // (every options struct begins with a size_t).
            assert_eq!(unsafe { init(buf.as_mut_ptr() as *mut T, size) }, CLSW_ERR_INVALID_ARGUMENT, "size {size}");
            assert!(buf.iter().all(|&w| w == 0xA5), "size {size}: a byte was written");
        }
        // SAFETY: `buf` has `bytes` = size_of::<T>() writable bytes, 8-aligned.
        assert_eq!(unsafe { init(buf.as_mut_ptr() as *mut T, bytes) }, CLSW_OK);
        assert_eq!(buf[0], bytes as u64, "the size comes first");
    }

    #[test]
    fn no_options_init_writes_before_checking_the_size() {
        writes_nothing_when_too_small(scan::clsw_search_options_init);
        writes_nothing_when_too_small(psse::clsw_psse_options_init);
        writes_nothing_when_too_small(sw3::clsw_sw3_options_init);
        writes_nothing_when_too_small(distance::clsw_distance_options_init);
    }

    #[test]
    fn strings_are_written_with_their_nul_or_refused_with_the_size() {
        let mut buf = [1 as c_char; 4];
        let mut needed = 0usize;
        // SAFETY: `buf` has 4 writable bytes; `needed` is a local usize.
        let r = unsafe { write_string("abcdef", buf.as_mut_ptr(), 4, &mut needed, "x") };
        assert_eq!(r.unwrap_err().status, CLSW_ERR_BUFFER_TOO_SMALL);
        assert_eq!(needed, 7);
        // SAFETY: write_string NUL-terminated `buf` (len > 0).
        assert_eq!(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap(), "abc");
        // SAFETY: `buf` has 4 writable bytes; `needed` may be NULL.
        assert!(unsafe { write_string("abc", buf.as_mut_ptr(), 4, std::ptr::null_mut(), "x") }.is_ok());
        // SAFETY: a size query: len 0 lets `buf` be NULL; `needed` is a local usize.
        let r = unsafe { write_string("abc", std::ptr::null_mut(), 0, &mut needed, "x") };
        assert_eq!((r.unwrap_err().status, needed), (CLSW_ERR_BUFFER_TOO_SMALL, 4));
    }
}

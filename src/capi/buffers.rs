//! Pointer and buffer helpers of the C ABI: every pointer checked for NULL (naming the
//! argument), buffers that always come with their length, caller strings read as bytes,
//! text or paths, and outputs copied into caller buffers with a size query.

use super::{CLSW_ERR_BUFFER_TOO_SMALL, Failure, Outcome};
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

/// Frees a boxed handle; NULL is a no-op; a panic in a destructor is swallowed (a free
/// function has no status to report it with).
///
/// # Safety
/// `p` is NULL or a pointer made by `Box::into_raw` (a constructor's output) that has
/// not been freed, and nothing uses it afterwards.
pub(crate) unsafe fn free_box<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: p is non-NULL, so by this function's contract it came from
        // Box::into_raw and is freed here once.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(p) })));
    }
}

/// A read-only handle; NULL is `CLSW_ERR_NULL` naming `what`.
///
/// # Safety
/// `p` is NULL or points to a live `T` (a handle from its constructor, not freed) that
/// outlives `'a` and is not mutated meanwhile.
pub(crate) unsafe fn handle<'a, T>(p: *const T, what: &str) -> Outcome<&'a T> {
    // SAFETY: `as_ref` checks for NULL; a non-NULL p is a live T for 'a (the contract).
    unsafe { p.as_ref() }.ok_or_else(|| Failure::null(what))
}

/// An output location; NULL is `CLSW_ERR_NULL` naming `what`.
///
/// # Safety
/// `p` is NULL or points to an initialised, writable `T`, aligned and used by no one
/// else during `'a`.
pub(crate) unsafe fn out_ptr<'a, T>(p: *mut T, what: &str) -> Outcome<&'a mut T> {
    // SAFETY: `as_mut` checks for NULL; a non-NULL p is writable storage for a T (the
    // contract); T is a plain C type (pointer or number) for which any bit pattern is
    // valid.
    unsafe { p.as_mut() }.ok_or_else(|| Failure::null(what))
}

/// An output handle location: checked and set to NULL, so it is NULL on any failure.
///
/// # Safety
/// `p` is NULL or points to writable storage for a pointer, used by no one else during
/// `'a`.
pub(crate) unsafe fn out_handle<'a, T>(p: *mut *mut T, what: &str) -> Outcome<&'a mut *mut T> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: p is non-NULL (checked above) and points to writable storage for a
    // pointer (the contract); `write` does not read the possibly uninitialised old value.
    unsafe { p.write(std::ptr::null_mut()) };
    // SAFETY: as above, and the pointer there is now initialised (NULL).
    Ok(unsafe { &mut *p })
}

/// `len` bytes at `p`; a NULL `p` is accepted when `len` is 0.
///
/// # Safety
/// When `len > 0`, `p` is NULL or points to `len` readable bytes left unchanged during
/// `'a`.
pub(crate) unsafe fn bytes<'a>(p: *const u8, len: usize, what: &str) -> Outcome<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Failure::null(&format!("{what} (with length {len})")));
    }
    if len > isize::MAX as usize {
        return Err(Failure::invalid(format!("{what}: length {len} is impossible")));
    }
    // SAFETY: p is non-NULL and len > 0 (checked above), so p has `len` readable bytes
    // (the contract); len <= isize::MAX (checked above); u8 has alignment 1.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// `len` elements at `p`; a NULL `p` is accepted when `len` is 0.
///
/// # Safety
/// When `len > 0`, `p` is NULL or points to `len` aligned, initialised elements left
/// unchanged during `'a`.
pub(crate) unsafe fn array<'a, T>(p: *const T, len: usize, what: &str) -> Outcome<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Failure::null(&format!("{what} (with {len} elements)")));
    }
    if len.checked_mul(std::mem::size_of::<T>()).is_none_or(|b| b > isize::MAX as usize) {
        return Err(Failure::invalid(format!("{what}: {len} elements is impossible")));
    }
    // SAFETY: p is non-NULL and len > 0 (checked above), so p has `len` readable,
    // aligned elements (the contract); their size in bytes fits isize (checked above).
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// The bytes of a NUL-terminated string (no encoding assumed).
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string left unchanged during `'a`.
pub(crate) unsafe fn c_bytes<'a>(p: *const c_char, what: &str) -> Outcome<&'a [u8]> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: p is non-NULL (checked above) and NUL-terminated (the contract).
    Ok(unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// A NUL-terminated string that must be UTF-8 text (device choices, matrix names, ids).
///
/// # Safety
/// As [`c_bytes`].
pub(crate) unsafe fn c_text<'a>(p: *const c_char, what: &str) -> Outcome<&'a str> {
    // SAFETY: this function's contract is c_bytes's.
    let b = unsafe { c_bytes(p, what) }?;
    std::str::from_utf8(b).map_err(|e| {
        Failure::invalid(format!(
            "{what} is not UTF-8 text (invalid byte \\x{:02X} at offset {})",
            b[e.valid_up_to()],
            e.valid_up_to()
        ))
    })
}

/// A NUL-terminated path: any bytes on unix (through `OsStr`), UTF-8 elsewhere.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string.
pub(crate) unsafe fn c_path(p: *const c_char, what: &str) -> Outcome<PathBuf> {
    // SAFETY: this function's contract is c_bytes's; the bytes are copied before return.
    let b = unsafe { c_bytes(p, what) }?;
    if b.is_empty() {
        return Err(Failure::invalid(format!("{what} is an empty string")));
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(b)))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(b)
            .map(PathBuf::from)
            .map_err(|_| Failure::invalid(format!("{what}: paths must be UTF-8 on this platform")))
    }
}

/// Copies `s` and a terminating NUL into `buf` of `len` bytes. `*needed` (when not
/// NULL) gets `strlen(s) + 1`. A buffer that is too small gets as much as fits (still
/// NUL-terminated when `len > 0`) and the call fails with `CLSW_ERR_BUFFER_TOO_SMALL`;
/// `buf` may be NULL when `len` is 0 (a size query).
///
/// # Safety
/// `buf` is NULL or has `len` writable bytes; `needed` is NULL or points to a writable
/// `usize`.
pub(crate) unsafe fn write_string(s: &str, buf: *mut c_char, len: usize, needed: *mut usize, what: &str) -> Outcome {
    let want = s.len() + 1;
    if !needed.is_null() {
        // SAFETY: `needed` is non-NULL, so it points to a writable usize (the contract).
        unsafe { needed.write(want) };
    }
    if len > 0 && buf.is_null() {
        return Err(Failure::null(&format!("{what} buffer (with length {len})")));
    }
    if len > 0 {
        let n = s.len().min(len - 1);
        // SAFETY: `buf` is non-NULL with len > 0 (checked above), so it has `len`
        // writable bytes (the contract), and n < len; `s` is a Rust string, which cannot
        // overlap caller memory that the caller lets clsw write.
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), buf as *mut u8, n) };
        // SAFETY: n < len, so byte n is within the same `len` writable bytes.
        unsafe { buf.add(n).write(0) };
    }
    if len < want {
        return Err(Failure::new(
            CLSW_ERR_BUFFER_TOO_SMALL,
            format!("{what}: the buffer holds {len} bytes, {want} are needed (text and NUL)"),
        ));
    }
    Ok(())
}

/// Checks that a caller buffer of `len` elements at `buf` holds `want`. `*needed` (when
/// not NULL) gets `want`. `len` below it is `CLSW_ERR_BUFFER_TOO_SMALL` (`buf` may then
/// be NULL, a size query); a NULL `buf` with a large enough `len` is `CLSW_ERR_NULL`.
///
/// # Safety
/// `needed` is NULL or points to a writable `usize` (`buf` is only compared with NULL).
pub(crate) unsafe fn check_room<T>(want: usize, buf: *mut T, len: usize, needed: *mut usize, what: &str) -> Outcome {
    if !needed.is_null() {
        // SAFETY: `needed` is non-NULL, so it points to a writable usize (the contract).
        unsafe { needed.write(want) };
    }
    if len < want {
        return Err(Failure::new(
            CLSW_ERR_BUFFER_TOO_SMALL,
            format!("{what}: the buffer holds {len} elements, {want} are needed"),
        ));
    }
    if want > 0 && buf.is_null() {
        return Err(Failure::null(&format!("{what} buffer (with length {len})")));
    }
    Ok(())
}

/// Copies `src` into the caller's `buf` of `len` elements after [`check_room`]; nothing
/// is written on failure.
///
/// # Safety
/// `buf` is NULL or has `len` writable, aligned elements; `needed` is NULL or points to
/// a writable `usize`.
pub(crate) unsafe fn write_array<T: Copy>(
    src: &[T],
    buf: *mut T,
    len: usize,
    needed: *mut usize,
    what: &str,
) -> Outcome {
    // SAFETY: `needed` is NULL or writable (this function's contract).
    unsafe { check_room(src.len(), buf, len, needed, what) }?;
    if !src.is_empty() {
        // SAFETY: check_room passed, so `buf` is non-NULL and len >= src.len(): `buf` has
        // that many writable elements (the contract); `src` is clsw's own memory.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), buf, src.len()) };
    }
    Ok(())
}

/// A string kept inside a handle for C to read: interior NULs (impossible in clsw's
/// own text, but names come from files) become spaces.
pub(crate) fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

/// Encodes caller letters for `alphabet`, naming the first bad byte and its 1-based
/// position.
pub(crate) fn encode(letters: &[u8], alphabet: crate::seq::Alphabet, what: &str) -> Outcome<Vec<u8>> {
    if letters.is_empty() {
        return Err(Failure::invalid(format!("{what} is empty (length 0)")));
    }
    alphabet.encode_all(letters).map_err(|i| {
        Failure::invalid(format!(
            "{what}: {} at position {} is not a {} residue letter",
            crate::seq::alphabet::describe_byte(letters[i]),
            i + 1,
            alphabet.name()
        ))
    })
}

//! Handle and versioned-struct helpers of the C ABI: the shared bodies of constructors,
//! getters and `*_options_init`, and the reading and writing of `#[repr(C)]` structs
//! whose first field is their size.

use super::{Failure, Outcome, clsw_status, handle, out_handle, out_ptr, run};

/// A `#[repr(C)]` struct whose first field is its own size in bytes (`size_t size`),
/// so that later versions can append fields. `FIRST_SIZE` is its size in the first
/// release that had it: smaller `size` values are refused.
pub(crate) trait Versioned: Copy {
    const NAME: &'static str;
    const FIRST_SIZE: usize;
}

/// `impl Versioned` for a struct whose first release is this one: its name, and its
/// size today as the first version's. When a later release appends fields, write the
/// impl by hand with the old size as `FIRST_SIZE`.
macro_rules! versioned {
    ($t:ident) => {
        impl $crate::capi::Versioned for $t {
            const NAME: &'static str = stringify!($t);
            const FIRST_SIZE: usize = std::mem::size_of::<$t>();
        }
    };
    // A struct that has grown: its first version ended where `first_size` says.
    ($t:ident, $first_size:expr) => {
        impl $crate::capi::Versioned for $t {
            const NAME: &'static str = stringify!($t);
            const FIRST_SIZE: usize = $first_size;
        }
    };
}
pub(crate) use versioned;

/// Compile-time proof that handles the header calls shareable (or passable between
/// threads) are `Send + Sync`.
macro_rules! send_sync {
    ($($t:ty),+) => {
        const _: () = {
            const fn send_sync<T: Send + Sync>() {}
            $(send_sync::<$t>();)+
        };
    };
}
pub(crate) use send_sync;

/// The `size` a caller set in its struct at `p`, checked against `T::FIRST_SIZE`.
///
/// # Safety
/// `p` is non-NULL and points to a readable `size_t` (the struct's first field).
unsafe fn caller_size<T: Versioned>(p: *const T) -> Outcome<usize> {
    // SAFETY: p is non-NULL and its first field is a readable size_t (the contract);
    // a Versioned struct starts with `size: usize`, so p is aligned for it.
    let size = unsafe { (p as *const usize).read() };
    check_size::<T>(size)
}

/// Refuses a caller `size` below the first version's size of `T`.
fn check_size<T: Versioned>(size: usize) -> Outcome<usize> {
    if size < T::FIRST_SIZE {
        return Err(Failure::invalid(format!(
            "{}.size is {size}; set it to sizeof({}) ({} in this version of clsw.h)",
            T::NAME,
            T::NAME,
            std::mem::size_of::<T>()
        )));
    }
    Ok(size)
}

/// The body of every `clsw_*_options_init(options, size)`: checks `options` and `size`
/// before writing anything, then writes `size` and the defaults (`T::default()`, which
/// takes them from the library's own options) up to `size` bytes.
///
/// # Safety
/// `options` is NULL or has `size` writable bytes, aligned for `T`.
pub(crate) unsafe fn options_init<T: Versioned + Default>(options: *mut T, size: usize) -> clsw_status {
    run(|| {
        if options.is_null() {
            return Err(Failure::null("options"));
        }
        check_size::<T>(size)?;
        // SAFETY: `options` is non-NULL with `size` writable bytes (the contract), at
        // least the first version's (checked above); the size field comes first.
        unsafe { (options as *mut usize).write(size) };
        // SAFETY: `options` is non-NULL, writable for `size` bytes, and its size field
        // now holds `size`.
        unsafe { write_versioned(options, T::default(), "options") }
    })
}

/// The body of a getter `clsw_x_y(const x *h, V *out)`: `*out = value(h)`, with `h`
/// (named `what`) and `out` checked for NULL.
///
/// # Safety
/// `h` is NULL or a live handle; `out` is NULL or points to a writable `V`.
pub(crate) unsafe fn get<H, V>(
    h: *const H,
    what: &str,
    out: *mut V,
    value: impl FnOnce(&H) -> Outcome<V>,
) -> clsw_status {
    run(|| {
        // SAFETY: `h` is NULL or live (this function's contract).
        let h = unsafe { handle(h, what) }?;
        // SAFETY: `out` is NULL or a writable V (this function's contract).
        let out = unsafe { out_ptr(out, "out") }?;
        *out = value(h)?;
        Ok(())
    })
}

/// The body of a getter with two optional outputs, `clsw_x_y(const x *h, A *a, B *b)`:
/// each of `first` and `second` that is not NULL gets its part of `value(h)`; `h`
/// (named `what`) is checked for NULL.
///
/// # Safety
/// `h` is NULL or a live handle; `first` and `second` are each NULL or point to a
/// writable `A` and `B`.
pub(crate) unsafe fn get_pair<H, A, B>(
    h: *const H,
    what: &str,
    first: *mut A,
    second: *mut B,
    value: impl FnOnce(&H) -> (A, B),
) -> clsw_status {
    run(|| {
        // SAFETY: `h` is NULL or live (this function's contract).
        let h = unsafe { handle(h, what) }?;
        let (a, b) = value(h);
        // SAFETY: `as_mut` checks for NULL; otherwise `first` is a writable A (the
        // contract), a plain C number.
        if let Some(first) = unsafe { first.as_mut() } {
            *first = a;
        }
        // SAFETY: as for `first`.
        if let Some(second) = unsafe { second.as_mut() } {
            *second = b;
        }
        Ok(())
    })
}

/// The body of a getter that fills a caller's versioned struct (`size` set by the
/// caller): `*out = value(h)` up to the caller's size; `out_what` names `out`.
///
/// # Safety
/// `h` is NULL or a live handle; `out` is NULL or a `V` whose `size` field is set and
/// which has that many writable bytes.
pub(crate) unsafe fn get_versioned<H, V: Versioned>(
    h: *const H,
    what: &str,
    out: *mut V,
    out_what: &str,
    value: impl FnOnce(&H) -> Outcome<V>,
) -> clsw_status {
    run(|| {
        // SAFETY: `h` is NULL or live (this function's contract).
        let h = unsafe { handle(h, what) }?;
        if out.is_null() {
            return Err(Failure::null(out_what));
        }
        let v = value(h)?;
        // SAFETY: `out` is non-NULL, its size set and writable (this function's contract).
        unsafe { write_versioned(out, v, out_what) }
    })
}

/// The body of a constructor: `*out` is set to NULL, then to the new handle that
/// `make` builds; `what` names `out` in the NULL message.
///
/// # Safety
/// `out` is NULL or points to writable storage for a pointer.
pub(crate) unsafe fn new_handle<T>(out: *mut *mut T, what: &str, make: impl FnOnce() -> Outcome<T>) -> clsw_status {
    run(|| {
        // SAFETY: `out` is NULL or writable (this function's contract).
        let out = unsafe { out_handle(out, what) }?;
        *out = Box::into_raw(Box::new(make()?));
        Ok(())
    })
}

/// Element `index` of a handle's items, or `CLSW_ERR_INVALID_ARGUMENT`:
/// "`{what} {index}` is out of range (`{len} {plural}`)".
pub(crate) fn item<'a, T>(items: &'a [T], index: usize, what: &str, plural: &str) -> Outcome<&'a T> {
    items
        .get(index)
        .ok_or_else(|| Failure::invalid(format!("{what} {index} is out of range ({} {plural})", items.len())))
}

/// Reads an options struct: NULL gives `default`; fields past the caller's `size`
/// (a caller compiled against an older header) keep their defaults; a larger `size`
/// (a newer header) is accepted and its extra fields ignored.
///
/// # Safety
/// `p` is NULL or a `T` whose `size` field is set and which has that many readable
/// bytes.
pub(crate) unsafe fn read_versioned<T: Versioned>(p: *const T, default: T) -> Outcome<T> {
    if p.is_null() {
        return Ok(default);
    }
    // SAFETY: p is non-NULL (checked above) and begins with its size (the contract).
    let size = unsafe { caller_size(p) }?;
    let mut value = default;
    let n = size.min(std::mem::size_of::<T>());
    // SAFETY: the caller's struct has `size` readable bytes (the contract) and n <= size;
    // `value` has size_of::<T>() >= n bytes and is a local, so they do not overlap; every field of a Versioned struct is an integer, float or pointer, valid
    // for any bit pattern.
    unsafe { std::ptr::copy_nonoverlapping(p as *const u8, &mut value as *mut T as *mut u8, n) };
    Ok(value)
}

/// Writes an output struct into the caller's, up to the caller's `size` (which stays
/// as the caller set it).
///
/// # Safety
/// `p` is NULL or a `T` whose `size` field is set and which has that many writable
/// bytes.
pub(crate) unsafe fn write_versioned<T: Versioned>(p: *mut T, value: T, what: &str) -> Outcome {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: p is non-NULL (checked above) and begins with its size (the contract).
    let size = unsafe { caller_size(p) }?;
    let n = size.min(std::mem::size_of::<T>());
    let skip = std::mem::size_of::<usize>();
    // SAFETY: the caller's struct has `size` writable bytes (the contract) and
    // skip <= FIRST_SIZE <= size (caller_size checked it), so bytes skip..n lie in
    // both it and `value`, a local; the size field (bytes 0..skip) is kept.
    unsafe {
        std::ptr::copy_nonoverlapping((&value as *const T as *const u8).add(skip), (p as *mut u8).add(skip), n - skip)
    };
    Ok(())
}

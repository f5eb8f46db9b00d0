//! Fallible allocation of buffers whose size follows from input: sequence lengths,
//! counts of shuffles, triples, samples or sites. clsw runs inside other people's
//! processes, and Rust's `vec![..]`, `Vec::with_capacity` and `Vec` growth abort the
//! whole process when the allocator refuses; here the size is computed with checked
//! arithmetic and the memory reserved with `try_reserve_exact`, so a request too large
//! is an [`Error::OutOfMemory`] that names what was asked for and how many bytes.
//!
//! Linux overcommits: a reservation the machine can never back may succeed, and the
//! process is killed later when the pages are touched. A request larger than the
//! machine's physical memory plus swap (read once from `/proc/meminfo`) is therefore
//! refused before it is attempted.
//!
//! Every input-sized host buffer of the library is made here; device buffers are
//! checked against the device's own limits in `crate::device`.

#[cfg(test)]
use crate::error::describe_bytes;
use crate::error::{Error, Result};
use std::fmt::Display;
use std::sync::OnceLock;

/// The bytes of `count` values of `T`, exact (no overflow in `u128`).
pub fn bytes_of<T>(count: usize) -> u128 {
    count as u128 * std::mem::size_of::<T>() as u128
}

/// The product of `factors` (a count of elements), or an out-of-memory error naming
/// `what` when it does not fit the address space.
pub fn count(what: impl Display, factors: &[usize]) -> Result<usize> {
    let exact: u128 = factors.iter().fold(1u128, |p, &f| p.saturating_mul(f as u128));
    usize::try_from(exact).map_err(|_| Error::OutOfMemory { what: what.to_string(), bytes: exact })
}

/// Refuses `bytes` for `what` when they exceed the address space or the machine's
/// memory; the up-front check for structures made of many allocations.
pub fn check(what: impl Display, bytes: u128) -> Result<()> {
    let limit = machine_bytes().unwrap_or(u128::MAX).min(isize::MAX as u128);
    if bytes > limit { Err(Error::OutOfMemory { what: what.to_string(), bytes }) } else { Ok(()) }
}

/// Checks that `bytes` for `what` can be had now, by reserving and releasing them (the
/// pages are not touched): the up-front check for work whose buffers are made later,
/// in many pieces or on several threads.
pub fn ensure(what: impl Display, bytes: u128) -> Result<()> {
    check(&what, bytes)?;
    vec_with_capacity::<u8>(what, bytes as usize).map(drop)
}

/// Reserves room for `additional` more values in `v`, or fails naming `what`.
pub fn reserve<T>(v: &mut Vec<T>, what: impl Display, additional: usize) -> Result<()> {
    let bytes = bytes_of::<T>(v.len()) + bytes_of::<T>(additional);
    check(&what, bytes)?;
    v.try_reserve_exact(additional).map_err(|_| Error::OutOfMemory { what: what.to_string(), bytes })
}

/// Reserves room for `additional` more values in `v` with amortised growth (for
/// vectors filled piece by piece), or fails naming `what`.
pub fn grow<T>(v: &mut Vec<T>, what: impl Display, additional: usize) -> Result<()> {
    let bytes = bytes_of::<T>(v.len()) + bytes_of::<T>(additional);
    check(&what, bytes)?;
    v.try_reserve(additional).map_err(|_| Error::OutOfMemory { what: what.to_string(), bytes })
}

/// An empty vector with room for `count` values.
pub fn vec_with_capacity<T>(what: impl Display, count: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    reserve(&mut v, what, count)?;
    Ok(v)
}

/// `count` copies of `value` (the fallible `vec![value; count]`).
pub fn vec_filled<T: Clone>(what: impl Display, count: usize, value: T) -> Result<Vec<T>> {
    let mut v = vec_with_capacity(what, count)?;
    v.resize(count, value);
    Ok(v)
}

/// Drops `value` on the global thread pool instead of here: freeing a gigabyte of
/// touched pages takes a tenth of a second or more, which a caller on its way to the
/// next query's results need not wait for (a 20 G-residue search's scores, 1 GB a
/// query: 0.24 s from the last query's statistics to the search's end, now 1 ms).
pub fn free_in_background<T: Send + 'static>(value: T) {
    rayon::spawn(move || drop(value));
}

/// The values of an iterator that knows its length (the fallible `collect`).
pub fn collect<T>(what: impl Display, values: impl ExactSizeIterator<Item = T>) -> Result<Vec<T>> {
    let mut v = vec_with_capacity(what, values.len())?;
    v.extend(values);
    Ok(v)
}

/// Physical memory plus swap, on Linux; `None` where it cannot be read.
fn machine_bytes() -> Option<u128> {
    static MACHINE: OnceLock<Option<u128>> = OnceLock::new();
    *MACHINE.get_or_init(|| {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let kib = |key: &str| -> Option<u128> {
            let line = info.lines().find(|l| l.starts_with(key))?;
            line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()
        };
        Some((kib("MemTotal:")? + kib("SwapTotal:").unwrap_or(0)) * 1024)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_beyond_the_machine_are_errors_that_name_them() {
        let e = vec_with_capacity::<u64>("the test's table", usize::MAX / 4).unwrap_err().to_string();
        assert!(e.contains("the test's table") && e.contains("more than the address space"), "{e}");
        let e = vec_filled("a plane", 1usize << 50, 0u8).unwrap_err().to_string();
        assert!(e.contains("a plane") && e.contains("1125899906842624 bytes"), "{e}");
        let e = count("cells", &[1 << 40, 1 << 40]).unwrap_err().to_string();
        assert!(e.contains("cells"), "{e}");
        assert_eq!(count("cells", &[3, 5, 7]).unwrap(), 105);
        assert_eq!(vec_filled("x", 3, 7u8).unwrap(), vec![7, 7, 7]);
        assert_eq!(collect("x", [1, 2].into_iter()).unwrap(), vec![1, 2]);
    }

    #[test]
    fn bytes_are_described_in_decimal_units_with_the_exact_count() {
        assert_eq!(describe_bytes(999), "999 bytes");
        assert_eq!(describe_bytes(12_884_901_888), "12.9 GB (12884901888 bytes)");
        assert_eq!(describe_bytes(u128::MAX), "more than the address space holds");
    }
}

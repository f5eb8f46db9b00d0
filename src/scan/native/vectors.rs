//! The byte vectors of the native scan's 8-bit pass ([`super::lanes8`]), one type per
//! instruction-set level: 64 lanes (AVX-512BW), 32 (AVX2), 16 (SSSE3) and a portable
//! 16-lane array for every other processor (Arm included).
//!
//! Written on `std::arch` directly rather than through a SIMD crate: the kernel needs
//! ten operations on unsigned bytes (saturating add and subtract, max, two compares to
//! a bit mask, a table lookup by `pshufb`), each level must be callable on its own so
//! the tests can force one at a time, and the same pattern (a trait of
//! `#[inline(always)]` methods instantiated inside a `#[target_feature]` function, so
//! the intrinsics inline into code compiled for that level) is the one the `memchr`
//! crate uses.
//!
//! Safety: every method of an x86 type may only run on a processor that has its level
//! ([`super::Level::supported`]); the kernels are `unsafe fn`s that say so.

/// A vector of unsigned bytes.
pub(super) trait Bytes: Copy {
    /// Lanes (bytes) per vector; at most 64, so a lane mask fits a `u64`.
    const LANES: usize;
    unsafe fn splat(v: u8) -> Self;
    /// Loads `LANES` bytes from `p` (no alignment needed).
    unsafe fn load(p: *const u8) -> Self;
    /// Stores `LANES` bytes at `p` (no alignment needed).
    unsafe fn store(self, p: *mut u8);
    /// A 16-byte table repeated in every 16-byte block of the vector, for [`Bytes::lookup`].
    unsafe fn table(t: &[u8; 16]) -> Self;
    /// Saturating addition (caps at 255).
    unsafe fn adds(self, o: Self) -> Self;
    /// Saturating subtraction (floors at 0).
    unsafe fn subs(self, o: Self) -> Self;
    unsafe fn max(self, o: Self) -> Self;
    unsafe fn or(self, o: Self) -> Self;
    /// Bit `l` set where lane `l` of `self` is greater than that of `o`.
    unsafe fn gt_mask(self, o: Self) -> u64;
    /// Bit `l` set where the lanes are equal.
    unsafe fn eq_mask(self, o: Self) -> u64;
    /// Per lane: `table[idx & 15]`, or 0 where `idx` has its top bit set.
    unsafe fn lookup(table: Self, idx: Self) -> Self;
}

/// Any processor: 16 lanes as a plain array, lane by lane.
#[derive(Clone, Copy)]
pub(super) struct Portable([u8; 16]);

impl Bytes for Portable {
    const LANES: usize = 16;
    #[inline(always)]
    unsafe fn splat(v: u8) -> Self {
        Portable([v; 16])
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller passes 16 readable bytes.
        Portable(unsafe { p.cast::<[u8; 16]>().read_unaligned() })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the caller passes 16 writable bytes.
        unsafe { p.cast::<[u8; 16]>().write_unaligned(self.0) }
    }
    #[inline(always)]
    unsafe fn table(t: &[u8; 16]) -> Self {
        Portable(*t)
    }
    #[inline(always)]
    unsafe fn adds(self, o: Self) -> Self {
        Portable(std::array::from_fn(|l| self.0[l].saturating_add(o.0[l])))
    }
    #[inline(always)]
    unsafe fn subs(self, o: Self) -> Self {
        Portable(std::array::from_fn(|l| self.0[l].saturating_sub(o.0[l])))
    }
    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        Portable(std::array::from_fn(|l| self.0[l].max(o.0[l])))
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        Portable(std::array::from_fn(|l| self.0[l] | o.0[l]))
    }
    #[inline(always)]
    unsafe fn gt_mask(self, o: Self) -> u64 {
        (0..16).filter(|&l| self.0[l] > o.0[l]).fold(0, |m, l| m | 1 << l)
    }
    #[inline(always)]
    unsafe fn eq_mask(self, o: Self) -> u64 {
        (0..16).filter(|&l| self.0[l] == o.0[l]).fold(0, |m, l| m | 1 << l)
    }
    #[inline(always)]
    unsafe fn lookup(table: Self, idx: Self) -> Self {
        Portable(std::array::from_fn(|l| if idx.0[l] & 0x80 != 0 { 0 } else { table.0[(idx.0[l] & 15) as usize] }))
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::{Avx2, Avx512, Ssse3};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Bytes;
    use std::arch::x86_64::*;

    /// SSSE3: 16 lanes (`pshufb` is SSSE3's; the rest is SSE2).
    #[derive(Clone, Copy)]
    pub(in super::super) struct Ssse3(__m128i);

    impl Bytes for Ssse3 {
        const LANES: usize = 16;
        #[inline(always)]
        unsafe fn splat(v: u8) -> Self {
            unsafe { Ssse3(_mm_set1_epi8(v as i8)) }
        }
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            unsafe { Ssse3(_mm_loadu_si128(p.cast())) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut u8) {
            unsafe { _mm_storeu_si128(p.cast(), self.0) }
        }
        #[inline(always)]
        unsafe fn table(t: &[u8; 16]) -> Self {
            unsafe { Self::load(t.as_ptr()) }
        }
        #[inline(always)]
        unsafe fn adds(self, o: Self) -> Self {
            unsafe { Ssse3(_mm_adds_epu8(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn subs(self, o: Self) -> Self {
            unsafe { Ssse3(_mm_subs_epu8(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn max(self, o: Self) -> Self {
            unsafe { Ssse3(_mm_max_epu8(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn or(self, o: Self) -> Self {
            unsafe { Ssse3(_mm_or_si128(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn gt_mask(self, o: Self) -> u64 {
            // a > b exactly where max(a, b) differs from b.
            unsafe { !(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(self.0, o.0), o.0)) as u32) as u64 & 0xffff }
        }
        #[inline(always)]
        unsafe fn eq_mask(self, o: Self) -> u64 {
            unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self.0, o.0)) as u32 as u64 }
        }
        #[inline(always)]
        unsafe fn lookup(table: Self, idx: Self) -> Self {
            unsafe { Ssse3(_mm_shuffle_epi8(table.0, idx.0)) }
        }
    }

    /// AVX2: 32 lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct Avx2(__m256i);

    impl Bytes for Avx2 {
        const LANES: usize = 32;
        #[inline(always)]
        unsafe fn splat(v: u8) -> Self {
            unsafe { Avx2(_mm256_set1_epi8(v as i8)) }
        }
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            unsafe { Avx2(_mm256_loadu_si256(p.cast())) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut u8) {
            unsafe { _mm256_storeu_si256(p.cast(), self.0) }
        }
        #[inline(always)]
        unsafe fn table(t: &[u8; 16]) -> Self {
            unsafe { Avx2(_mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast()))) }
        }
        #[inline(always)]
        unsafe fn adds(self, o: Self) -> Self {
            unsafe { Avx2(_mm256_adds_epu8(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn subs(self, o: Self) -> Self {
            unsafe { Avx2(_mm256_subs_epu8(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn max(self, o: Self) -> Self {
            unsafe { Avx2(_mm256_max_epu8(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn or(self, o: Self) -> Self {
            unsafe { Avx2(_mm256_or_si256(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn gt_mask(self, o: Self) -> u64 {
            unsafe { !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(self.0, o.0), o.0)) as u32) as u64 }
        }
        #[inline(always)]
        unsafe fn eq_mask(self, o: Self) -> u64 {
            unsafe { _mm256_movemask_epi8(_mm256_cmpeq_epi8(self.0, o.0)) as u32 as u64 }
        }
        #[inline(always)]
        unsafe fn lookup(table: Self, idx: Self) -> Self {
            unsafe { Avx2(_mm256_shuffle_epi8(table.0, idx.0)) }
        }
    }

    /// AVX-512BW: 64 lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct Avx512(__m512i);

    impl Bytes for Avx512 {
        const LANES: usize = 64;
        #[inline(always)]
        unsafe fn splat(v: u8) -> Self {
            unsafe { Avx512(_mm512_set1_epi8(v as i8)) }
        }
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            unsafe { Avx512(_mm512_loadu_si512(p.cast())) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut u8) {
            unsafe { _mm512_storeu_si512(p.cast(), self.0) }
        }
        #[inline(always)]
        unsafe fn table(t: &[u8; 16]) -> Self {
            unsafe { Avx512(_mm512_broadcast_i32x4(_mm_loadu_si128(t.as_ptr().cast()))) }
        }
        #[inline(always)]
        unsafe fn adds(self, o: Self) -> Self {
            unsafe { Avx512(_mm512_adds_epu8(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn subs(self, o: Self) -> Self {
            unsafe { Avx512(_mm512_subs_epu8(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn max(self, o: Self) -> Self {
            unsafe { Avx512(_mm512_max_epu8(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn or(self, o: Self) -> Self {
            unsafe { Avx512(_mm512_or_si512(self.0, o.0)) }
        }
        #[inline(always)]
        unsafe fn gt_mask(self, o: Self) -> u64 {
            unsafe { _mm512_cmpgt_epu8_mask(self.0, o.0) }
        }
        #[inline(always)]
        unsafe fn eq_mask(self, o: Self) -> u64 {
            unsafe { _mm512_cmpeq_epi8_mask(self.0, o.0) }
        }
        #[inline(always)]
        unsafe fn lookup(table: Self, idx: Self) -> Self {
            unsafe { Avx512(_mm512_shuffle_epi8(table.0, idx.0)) }
        }
    }
}

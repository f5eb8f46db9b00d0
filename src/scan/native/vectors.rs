//! The vectors of the native scan's kernel ([`super::swipe`]): for each instruction-set
//! level, one of bytes (the first pass) and one of 16-bit words (the second), 64 / 32
//! byte lanes and 32 / 16 word lanes for AVX-512BW and AVX2, 16 / 8 for SSE4.1, and
//! portable 16-lane arrays for every other processor (Arm included).
//!
//! Written on `std::arch` directly rather than through a SIMD crate: the kernel needs
//! ten operations (saturating add and subtract, two maxima, two compares to a bit
//! mask, a table lookup by `pshufb`), each level must be callable on its own so the
//! tests can force one at a time, and the same pattern (a trait of `#[inline(always)]`
//! methods instantiated inside a `#[target_feature]` function, so the intrinsics inline
//! into code compiled for that level) is the one the `memchr` crate uses.
//!
//! Safety: every method of an x86 type may only run on a processor that has its level
//! ([`super::Level::supported`]); the kernel is an `unsafe fn` that says so.

use super::swipe::{PAD, Tables};

/// A vector of cells: H, E and F values, unsigned and at most [`Cells::TOP`], and
/// scores, signed.
///
/// # Safety
/// Every method may only be called on a processor that has the type's instruction-set
/// level ([`super::Level::supported`]); the portable types have no such condition.
pub(super) trait Cells: Copy {
    /// Lanes per vector; at most 64, so a lane mask fits a `u64`.
    const LANES: usize;
    /// The largest value a lane holds (127 or 32,767): signed additions saturate there.
    const TOP: i32;
    unsafe fn splat(v: i32) -> Self;
    /// Signed saturating addition.
    unsafe fn adds_signed(self, o: Self) -> Self;
    /// Unsigned saturating subtraction (floors at 0).
    unsafe fn subs(self, o: Self) -> Self;
    /// Unsigned maximum.
    unsafe fn max(self, o: Self) -> Self;
    /// Signed maximum.
    unsafe fn max_signed(self, o: Self) -> Self;
    /// Bit `l` set where lane `l` of `self` is greater (unsigned) than that of `o`.
    unsafe fn gt_mask(self, o: Self) -> u64;
    /// Bit `l` set where the lanes are equal.
    unsafe fn eq_mask(self, o: Self) -> u64;
    /// The lanes' values, unsigned.
    unsafe fn values(self) -> [i32; 64];
    /// `profile[a]`, per lane `l`: the score of query letter `a` against `residues[l]`
    /// (0 where that is [`PAD`]).
    unsafe fn column_profile(profile: &mut [Self], t: &Tables, residues: &[u8; 64]);
}

/// The scalar twin of every `column_profile` of words: each lane's score looked up.
#[inline(always)]
fn word_scores<const N: usize>(t: &Tables, a: usize, residues: &[u8; 64]) -> [i16; N] {
    std::array::from_fn(|l| if residues[l] == PAD { 0 } else { t.words[a][residues[l] as usize] })
}

/// The bits of even positions of `m`, packed: a byte mask of 16-bit lanes to a lane mask.
#[inline(always)]
fn even_bits(m: u64) -> u64 {
    let mut x = m & 0x5555_5555_5555_5555;
    x = (x | x >> 1) & 0x3333_3333_3333_3333;
    x = (x | x >> 2) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x >> 4) & 0x00ff_00ff_00ff_00ff;
    x = (x | x >> 8) & 0x0000_ffff_0000_ffff;
    (x | x >> 16) & 0xffff_ffff
}

/// Portable bytes: 16 lanes, lane by lane.
#[derive(Clone, Copy)]
pub(super) struct PortableBytes([u8; 16]);

impl Cells for PortableBytes {
    const LANES: usize = 16;
    const TOP: i32 = i8::MAX as i32;
    #[inline(always)]
    unsafe fn splat(v: i32) -> Self {
        PortableBytes([v as u8; 16])
    }
    #[inline(always)]
    unsafe fn adds_signed(self, o: Self) -> Self {
        PortableBytes(std::array::from_fn(|l| (self.0[l] as i8).saturating_add(o.0[l] as i8) as u8))
    }
    #[inline(always)]
    unsafe fn subs(self, o: Self) -> Self {
        PortableBytes(std::array::from_fn(|l| self.0[l].saturating_sub(o.0[l])))
    }
    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        PortableBytes(std::array::from_fn(|l| self.0[l].max(o.0[l])))
    }
    #[inline(always)]
    unsafe fn max_signed(self, o: Self) -> Self {
        PortableBytes(std::array::from_fn(|l| (self.0[l] as i8).max(o.0[l] as i8) as u8))
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
    unsafe fn values(self) -> [i32; 64] {
        std::array::from_fn(|l| if l < 16 { self.0[l] as i32 } else { 0 })
    }
    #[inline(always)]
    unsafe fn column_profile(profile: &mut [Self], t: &Tables, residues: &[u8; 64]) {
        for (a, p) in profile.iter_mut().enumerate() {
            *p = PortableBytes(word_scores::<16>(t, a, residues).map(|s| s as i8 as u8));
        }
    }
}

/// Portable words: 8 lanes (half the portable bytes' 16), lane by lane.
#[derive(Clone, Copy)]
pub(super) struct PortableWords([i16; 8]);

impl Cells for PortableWords {
    const LANES: usize = 8;
    const TOP: i32 = i16::MAX as i32;
    #[inline(always)]
    unsafe fn splat(v: i32) -> Self {
        PortableWords([v as i16; 8])
    }
    #[inline(always)]
    unsafe fn adds_signed(self, o: Self) -> Self {
        PortableWords(std::array::from_fn(|l| self.0[l].saturating_add(o.0[l])))
    }
    #[inline(always)]
    unsafe fn subs(self, o: Self) -> Self {
        PortableWords(std::array::from_fn(|l| (self.0[l] as u16).saturating_sub(o.0[l] as u16) as i16))
    }
    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        PortableWords(std::array::from_fn(|l| (self.0[l] as u16).max(o.0[l] as u16) as i16))
    }
    #[inline(always)]
    unsafe fn max_signed(self, o: Self) -> Self {
        PortableWords(std::array::from_fn(|l| self.0[l].max(o.0[l])))
    }
    #[inline(always)]
    unsafe fn gt_mask(self, o: Self) -> u64 {
        (0..8).filter(|&l| self.0[l] as u16 > o.0[l] as u16).fold(0, |m, l| m | 1 << l)
    }
    #[inline(always)]
    unsafe fn eq_mask(self, o: Self) -> u64 {
        (0..8).filter(|&l| self.0[l] == o.0[l]).fold(0, |m, l| m | 1 << l)
    }
    #[inline(always)]
    unsafe fn values(self) -> [i32; 64] {
        std::array::from_fn(|l| if l < 8 { self.0[l] as u16 as i32 } else { 0 })
    }
    #[inline(always)]
    unsafe fn column_profile(profile: &mut [Self], t: &Tables, residues: &[u8; 64]) {
        for (a, p) in profile.iter_mut().enumerate() {
            *p = PortableWords(word_scores::<8>(t, a, residues));
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::{Avx2Bytes, Avx2Words, Avx512Bytes, Avx512Words, Sse41Bytes, Sse41Words};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Cells, PAD, Tables, even_bits, word_scores};
    use std::arch::x86_64::*;

    /// The byte types' `column_profile`: each letter's two 16-entry tables indexed by
    /// the residues with `pshufb` (an index with its top bit set gives 0).
    macro_rules! byte_profile {
        ($T:ident, $load:expr, $table:expr, $shuffle:ident, $or:ident) => {
            #[inline(always)]
            unsafe fn column_profile(profile: &mut [Self], t: &Tables, residues: &[u8; 64]) {
                let mut low = [PAD; 64];
                let mut high = [PAD; 64];
                for l in 0..Self::LANES {
                    let c = residues[l];
                    (low[l], high[l]) = match c {
                        0..16 => (c, PAD),
                        16..32 => (PAD, c - 16),
                        _ => (PAD, PAD),
                    };
                }
                // SAFETY: `low` and `high` hold 64 bytes, at least one vector, read unaligned;
                // the processor has this type's level (the caller's promise).
                let (lo, hi) = unsafe { ($load(low.as_ptr().cast()), $load(high.as_ptr().cast())) };
                for (a, p) in profile.iter_mut().enumerate() {
                    let (tl, th) = (&t.low[a], &t.high[a]);
                    // SAFETY: `$table` reads 16 bytes, unaligned, from each 16-byte table;
                    // the processor has this type's level (the caller's promise).
                    *p = unsafe {
                        $T($or($shuffle($table(tl.as_ptr().cast()), lo), $shuffle($table(th.as_ptr().cast()), hi)))
                    };
                }
            }
        };
    }

    /// The operations every x86 type has under the same names, by intrinsic prefix
    /// and element width.
    macro_rules! common {
        ($T:ident, $set1:ident, $cast:ty, $adds:ident, $subs:ident, $max:ident, $max_signed:ident, $store:ident) => {
            #[inline(always)]
            unsafe fn splat(v: i32) -> Self {
                // SAFETY: the processor has this type's level (the caller's promise).
                unsafe { $T($set1(v as $cast)) }
            }
            #[inline(always)]
            unsafe fn adds_signed(self, o: Self) -> Self {
                // SAFETY: the processor has this type's level (the caller's promise).
                unsafe { $T($adds(self.0, o.0)) }
            }
            #[inline(always)]
            unsafe fn subs(self, o: Self) -> Self {
                // SAFETY: the processor has this type's level (the caller's promise).
                unsafe { $T($subs(self.0, o.0)) }
            }
            #[inline(always)]
            unsafe fn max(self, o: Self) -> Self {
                // SAFETY: the processor has this type's level (the caller's promise).
                unsafe { $T($max(self.0, o.0)) }
            }
            #[inline(always)]
            unsafe fn max_signed(self, o: Self) -> Self {
                // SAFETY: the processor has this type's level (the caller's promise).
                unsafe { $T($max_signed(self.0, o.0)) }
            }
            #[inline(always)]
            unsafe fn values(self) -> [i32; 64] {
                let mut raw = [0 as $cast; 64];
                // SAFETY: `raw` holds 64 lanes of $cast, at least one vector (LANES <= 64),
                // written unaligned; the processor has this type's level (the caller's promise).
                unsafe { $store(raw.as_mut_ptr().cast(), self.0) };
                std::array::from_fn(|l| if l < Self::LANES { raw[l] as i32 & Self::TOP * 2 + 1 } else { 0 })
            }
        };
    }

    /// SSE4.1 bytes: 16 lanes (`pshufb` is SSSE3's, the signed byte max SSE4.1's).
    #[derive(Clone, Copy)]
    pub(in super::super) struct Sse41Bytes(__m128i);

    impl Cells for Sse41Bytes {
        const LANES: usize = 16;
        const TOP: i32 = i8::MAX as i32;
        common!(
            Sse41Bytes,
            _mm_set1_epi8,
            i8,
            _mm_adds_epi8,
            _mm_subs_epu8,
            _mm_max_epu8,
            _mm_max_epi8,
            _mm_storeu_si128
        );
        byte_profile!(Sse41Bytes, _mm_loadu_si128, _mm_loadu_si128, _mm_shuffle_epi8, _mm_or_si128);
        #[inline(always)]
        unsafe fn gt_mask(self, o: Self) -> u64 {
            // a > b exactly where max(a, b) differs from b.
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { !(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(self.0, o.0), o.0)) as u32) as u64 & 0xffff }
        }
        #[inline(always)]
        unsafe fn eq_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self.0, o.0)) as u32 as u64 }
        }
    }

    /// SSE4.1 words: 8 lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct Sse41Words(__m128i);

    impl Cells for Sse41Words {
        const LANES: usize = 8;
        const TOP: i32 = i16::MAX as i32;
        common!(
            Sse41Words,
            _mm_set1_epi16,
            i16,
            _mm_adds_epi16,
            _mm_subs_epu16,
            _mm_max_epu16,
            _mm_max_epi16,
            _mm_storeu_si128
        );
        #[inline(always)]
        unsafe fn gt_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe {
                even_bits(!(_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_max_epu16(self.0, o.0), o.0)) as u32) as u64 & 0xffff)
            }
        }
        #[inline(always)]
        unsafe fn eq_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { even_bits(_mm_movemask_epi8(_mm_cmpeq_epi16(self.0, o.0)) as u32 as u64) }
        }
        #[inline(always)]
        unsafe fn column_profile(profile: &mut [Self], t: &Tables, residues: &[u8; 64]) {
            for (a, p) in profile.iter_mut().enumerate() {
                let s = word_scores::<8>(t, a, residues);
                // SAFETY: `s` holds 8 words, one vector, read unaligned; the processor has
                // this type's level (the caller's promise).
                *p = Sse41Words(unsafe { _mm_loadu_si128(s.as_ptr().cast()) });
            }
        }
    }

    /// AVX2 bytes: 32 lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct Avx2Bytes(__m256i);

    impl Cells for Avx2Bytes {
        const LANES: usize = 32;
        const TOP: i32 = i8::MAX as i32;
        common!(
            Avx2Bytes,
            _mm256_set1_epi8,
            i8,
            _mm256_adds_epi8,
            _mm256_subs_epu8,
            _mm256_max_epu8,
            _mm256_max_epi8,
            _mm256_storeu_si256
        );
        byte_profile!(
            Avx2Bytes,
            _mm256_loadu_si256,
            _mm256_broadcastsi128_si256_load,
            _mm256_shuffle_epi8,
            _mm256_or_si256
        );
        #[inline(always)]
        unsafe fn gt_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(self.0, o.0), o.0)) as u32) as u64 }
        }
        #[inline(always)]
        unsafe fn eq_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { _mm256_movemask_epi8(_mm256_cmpeq_epi8(self.0, o.0)) as u32 as u64 }
        }
    }

    /// A 16-byte table in both halves of a 256-bit vector.
    ///
    /// # Safety
    /// `p` has 16 readable bytes (any alignment); the processor has AVX2.
    #[inline(always)]
    unsafe fn _mm256_broadcastsi128_si256_load(p: *const __m128i) -> __m256i {
        // SAFETY: `p` has 16 readable bytes and the processor has AVX2 (this function's
        // contract); the load is unaligned.
        unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(p)) }
    }

    /// AVX2 words: 16 lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct Avx2Words(__m256i);

    impl Cells for Avx2Words {
        const LANES: usize = 16;
        const TOP: i32 = i16::MAX as i32;
        common!(
            Avx2Words,
            _mm256_set1_epi16,
            i16,
            _mm256_adds_epi16,
            _mm256_subs_epu16,
            _mm256_max_epu16,
            _mm256_max_epi16,
            _mm256_storeu_si256
        );
        #[inline(always)]
        unsafe fn gt_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe {
                even_bits(!(_mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_max_epu16(self.0, o.0), o.0)) as u32) as u64)
            }
        }
        #[inline(always)]
        unsafe fn eq_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { even_bits(_mm256_movemask_epi8(_mm256_cmpeq_epi16(self.0, o.0)) as u32 as u64) }
        }
        #[inline(always)]
        unsafe fn column_profile(profile: &mut [Self], t: &Tables, residues: &[u8; 64]) {
            for (a, p) in profile.iter_mut().enumerate() {
                let s = word_scores::<16>(t, a, residues);
                // SAFETY: `s` holds 16 words, one vector, read unaligned; the processor has
                // this type's level (the caller's promise).
                *p = Avx2Words(unsafe { _mm256_loadu_si256(s.as_ptr().cast()) });
            }
        }
    }

    /// AVX-512BW bytes: 64 lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct Avx512Bytes(__m512i);

    /// A 16-byte table in every quarter of a 512-bit vector.
    ///
    /// # Safety
    /// `p` has 16 readable bytes (any alignment); the processor has AVX-512F.
    #[inline(always)]
    unsafe fn _mm512_broadcast_load(p: *const __m128i) -> __m512i {
        // SAFETY: `p` has 16 readable bytes and the processor has AVX-512F (this
        // function's contract); the load is unaligned.
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(p)) }
    }

    impl Cells for Avx512Bytes {
        const LANES: usize = 64;
        const TOP: i32 = i8::MAX as i32;
        common!(
            Avx512Bytes,
            _mm512_set1_epi8,
            i8,
            _mm512_adds_epi8,
            _mm512_subs_epu8,
            _mm512_max_epu8,
            _mm512_max_epi8,
            _mm512_storeu_si512
        );
        byte_profile!(Avx512Bytes, _mm512_loadu_si512, _mm512_broadcast_load, _mm512_shuffle_epi8, _mm512_or_si512);
        #[inline(always)]
        unsafe fn gt_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { _mm512_cmpgt_epu8_mask(self.0, o.0) }
        }
        #[inline(always)]
        unsafe fn eq_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { _mm512_cmpeq_epi8_mask(self.0, o.0) }
        }
    }

    /// AVX-512BW words: 32 lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct Avx512Words(__m512i);

    impl Cells for Avx512Words {
        const LANES: usize = 32;
        const TOP: i32 = i16::MAX as i32;
        common!(
            Avx512Words,
            _mm512_set1_epi16,
            i16,
            _mm512_adds_epi16,
            _mm512_subs_epu16,
            _mm512_max_epu16,
            _mm512_max_epi16,
            _mm512_storeu_si512
        );
        #[inline(always)]
        unsafe fn gt_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { _mm512_cmpgt_epu16_mask(self.0, o.0) as u64 }
        }
        #[inline(always)]
        unsafe fn eq_mask(self, o: Self) -> u64 {
            // SAFETY: the processor has this type's level (the caller's promise).
            unsafe { _mm512_cmpeq_epi16_mask(self.0, o.0) as u64 }
        }
        #[inline(always)]
        unsafe fn column_profile(profile: &mut [Self], t: &Tables, residues: &[u8; 64]) {
            for (a, p) in profile.iter_mut().enumerate() {
                let s = word_scores::<32>(t, a, residues);
                // SAFETY: `s` holds 32 words, one vector, read unaligned; the processor has
                // this type's level (the caller's promise).
                *p = Avx512Words(unsafe { _mm512_loadu_si512(s.as_ptr().cast()) });
            }
        }
    }
}

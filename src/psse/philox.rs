//! Philox4x32-10, the counter-based generator of Salmon et al. ("Parallel random
//! numbers: as easy as 1, 2, 3", SC'11; the Random123 library), written from the
//! published algorithm. `cl/psse.cl` holds the same code in OpenCL C; the two must give
//! the same words for the same counter and key (tests check both against Random123's
//! known-answer vectors).
//!
//! One call maps a 128-bit counter `c = (c0, c1, c2, c3)` and a 64-bit key `k = (k0, k1)`
//! to 128 random bits by ten rounds of
//!
//! ```text
//!     (hi0, lo0) = 0xD2511F53 * c0        (the 64-bit product's halves)
//!     (hi1, lo1) = 0xCD9E8D57 * c2
//!     c = (hi1 ^ c1 ^ k0,  lo1,  hi0 ^ c3 ^ k1,  lo0)
//! ```
//!
//! with the key bumped by `(0x9E3779B9, 0xBB67AE85)` (mod 2^32) before every round but
//! the first.
//!
//! # The streams clsw draws from
//!
//! Shuffle `i` of subject `s` under seed `seed` reads the words of the counters
//! `(b, i, s, 0)` for `b = 0, 1, 2, ...` under the key `(seed mod 2^32, seed >> 32)`, four
//! words per counter, in order ([`Stream`]). Nothing else enters, so a seed gives the
//! same shuffles on every device, in every tiling, and on the CPU.

/// Multipliers and key increments of Philox4x32 (Random123's constants).
const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox4x32 with `rounds` rounds (10 is the standard strength).
pub fn philox4x32_rounds(counter: [u32; 4], key: [u32; 2], rounds: u32) -> [u32; 4] {
    let mut c = counter;
    let mut k = key;
    for r in 0..rounds {
        if r > 0 {
            k[0] = k[0].wrapping_add(W0);
            k[1] = k[1].wrapping_add(W1);
        }
        let p0 = M0 as u64 * c[0] as u64;
        let p1 = M1 as u64 * c[2] as u64;
        c = [(p1 >> 32) as u32 ^ c[1] ^ k[0], p1 as u32, (p0 >> 32) as u32 ^ c[3] ^ k[1], p0 as u32];
    }
    c
}

/// Philox4x32-10: 128 random bits for one counter under one key.
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    philox4x32_rounds(counter, key, 10)
}

/// The random words of one shuffle: counters `(b, shuffle, subject, 0)`, b = 0, 1, ...,
/// under the key made of the seed's two halves.
#[derive(Debug, Clone)]
pub struct Stream {
    key: [u32; 2],
    shuffle: u32,
    subject: u32,
    block: u32,
    words: [u32; 4],
    used: usize,
}

impl Stream {
    pub fn new(seed: u64, subject: u32, shuffle: u32) -> Stream {
        Stream { key: [seed as u32, (seed >> 32) as u32], shuffle, subject, block: 0, words: [0; 4], used: 4 }
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        if self.used == 4 {
            self.words = philox4x32_10([self.block, self.shuffle, self.subject, 0], self.key);
            self.block = self.block.wrapping_add(1);
            self.used = 0;
        }
        let w = self.words[self.used];
        self.used += 1;
        w
    }

    /// A uniform integer in `0..bound` (`bound >= 1`), without bias: Lemire's
    /// multiply-and-shift, rejecting the few products whose low half falls below
    /// `2^32 mod bound`. The kernel (`psse_below` in `cl/psse.cl`) does the same
    /// arithmetic, so both consume the same words.
    pub fn below(&mut self, bound: u32) -> u32 {
        debug_assert!(bound >= 1);
        let mut m = self.next_u32() as u64 * bound as u64;
        if (m as u32) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (m as u32) < threshold {
                m = self.next_u32() as u64 * bound as u64;
            }
        }
        (m >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_reads_blocks_in_order() {
        let mut s = Stream::new(0x0123_4567_89ab_cdef, 7, 3);
        let key = [0x89ab_cdef, 0x0123_4567];
        let b0 = philox4x32_10([0, 3, 7, 0], key);
        let b1 = philox4x32_10([1, 3, 7, 0], key);
        let got: Vec<u32> = (0..8).map(|_| s.next_u32()).collect();
        assert_eq!(got, [b0, b1].concat());
    }

    #[test]
    fn below_stays_in_range_and_is_roughly_uniform() {
        let mut s = Stream::new(1, 0, 0);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[s.below(7) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (9_000..11_000).contains(&c)), "{counts:?}");
        assert_eq!(s.below(1), 0);
    }
}

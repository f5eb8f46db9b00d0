//! Shuffles of a subject, on the CPU: the same algorithm and the same random words as the
//! `psse_shuffle` kernel (`cl/psse.cl`), so both give bit-identical shuffles.
//!
//! Shuffle `i` of subject `s` (its index in the caller's subject list) under `seed` is
//! made from [`Stream::new(seed, s, i)`](super::philox::Stream):
//!
//! * **uniform** (`window == 0`, or a window at least as long as the subject): the
//!   Fisher-Yates (Durstenfeld) shuffle: for `a = n-1` down to `1`, swap positions `a`
//!   and `b = below(a + 1)`. Every permutation is equally likely; the composition is kept.
//! * **windowed** (`window = w > 0`): the subject is cut into consecutive windows
//!   `[0, w), [w, 2w), ...` (the last one shorter) and each window is shuffled as above,
//!   in order, with one stream. Each window keeps its composition, so local composition
//!   (e.g. a hydrophobic stretch or a low-complexity region) survives the shuffle, as
//!   with FASTA's `prss -v w` / `ssearch36 -v w`.

use super::philox::Stream;

/// Shuffles `seq` in place (see the module documentation).
pub fn shuffle_in_place(seq: &mut [u8], seed: u64, subject: u32, shuffle: u32, window: usize) {
    let mut stream = Stream::new(seed, subject, shuffle);
    let n = seq.len();
    let w = if window == 0 { n.max(1) } else { window };
    let mut start = 0;
    while start < n {
        let part = &mut seq[start..(start + w).min(n)];
        for a in (1..part.len()).rev() {
            let b = stream.below(a as u32 + 1) as usize;
            part.swap(a, b);
        }
        start += w;
    }
}

/// Shuffle `shuffle` of subject number `subject` (a copy).
pub fn shuffled(seq: &[u8], seed: u64, subject: u32, shuffle: u32, window: usize) -> Vec<u8> {
    let mut out = seq.to_vec();
    shuffle_in_place(&mut out, seed, subject, shuffle, window);
    out
}

/// Shuffles `range` (shuffle numbers) of one subject.
pub fn shuffles(seq: &[u8], seed: u64, subject: u32, range: std::ops::Range<u32>, window: usize) -> Vec<Vec<u8>> {
    range.map(|i| shuffled(seq, seed, subject, i, window)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut v: Vec<u8>) -> Vec<u8> {
        v.sort_unstable();
        v
    }

    #[test]
    fn shuffles_are_permutations_and_depend_on_every_key_part() {
        let seq: Vec<u8> = (0..200u32).map(|i| (i * 7 % 23) as u8).collect();
        let a = shuffled(&seq, 42, 3, 0, 0);
        assert_eq!(sorted(a.clone()), sorted(seq.clone()));
        assert_ne!(a, seq);
        assert_eq!(a, shuffled(&seq, 42, 3, 0, 0));
        assert_ne!(a, shuffled(&seq, 43, 3, 0, 0));
        assert_ne!(a, shuffled(&seq, 42, 4, 0, 0));
        assert_ne!(a, shuffled(&seq, 42, 3, 1, 0));
        // A window covering the whole subject is the uniform shuffle.
        assert_eq!(a, shuffled(&seq, 42, 3, 0, 200));
        assert_eq!(a, shuffled(&seq, 42, 3, 0, 1000));
    }

    #[test]
    fn windows_keep_their_composition() {
        let seq: Vec<u8> = (0..103u32).map(|i| (i * 5 % 20) as u8).collect();
        for w in [1usize, 2, 10, 20, 50] {
            let s = shuffled(&seq, 9, 0, 5, w);
            for (a, b) in seq.chunks(w).zip(s.chunks(w)) {
                assert_eq!(sorted(a.to_vec()), sorted(b.to_vec()), "window {w}");
            }
        }
        assert_eq!(shuffled(&seq, 9, 0, 5, 1), seq);
    }

    #[test]
    fn short_subjects() {
        assert_eq!(shuffled(&[], 1, 0, 0, 0), Vec::<u8>::new());
        assert_eq!(shuffled(&[4], 1, 0, 0, 0), vec![4]);
        // Both orders of two residues occur.
        let pairs: std::collections::HashSet<Vec<u8>> = (0..64).map(|i| shuffled(&[1, 2], 1, 0, i, 0)).collect();
        assert_eq!(pairs.len(), 2);
    }
}

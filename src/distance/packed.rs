//! Bit-plane packing: every sample's sites as a few planes of bits.
//!
//! A site holds a *state* code or is *not compared* (missing). The code's bits go to
//! the code planes (bit p of the code to plane p), and a validity plane follows with a
//! 1 where the site is compared. For a pair of samples, with `m = valid_i & valid_j`:
//!
//! ```text
//! differences  = popcount(m & OR_p(plane_p,i ^ plane_p,j))
//! compared     = popcount(m)
//! opposite hom = popcount(m & (plane_0,i ^ plane_0,j) & (plane_1,i ^ plane_1,j))   (genotypes)
//! ```
//!
//! Codes:
//!
//! | coding | states and codes | code planes |
//! |---|---|---|
//! | nucleotides (default) | A 0, C 1, G 2, T 3 | 2 |
//! | nucleotides with gaps and/or N counted | as above, gap 4, N 5 | 3 |
//! | genotypes | 0 -> 0b00, 1 -> 0b01, 2 -> 0b11 (thermometer) | 2 |
//!
//! The thermometer code makes `|g_i - g_j|` the number of differing code bits, so the
//! "opposite homozygotes" count (IBS0) is the sites where both planes differ, and the
//! allele-count distance is `differences + opposite hom`.
//!
//! Memory layout: one `Vec<u64>` per sample holding its planes back to back
//! (`[plane][word]`), each plane [`Packed::words`] words long, padded with zeros to a
//! multiple of [`PAD_WORDS`] (1,024 sites). Bits of sites that are not compared are
//! zero in every plane; so are the padding bits.

use crate::error::{Error, Result};
use rayon::prelude::*;

/// Plane lengths (in u64 words) are a multiple of this: 1,024 sites, so that the device
/// kernels' chunks of 32-bit words divide them.
pub const PAD_WORDS: usize = 16;

/// A code meaning "not compared" in per-site code arrays.
pub const NOT_COMPARED: u8 = 0xFF;

/// How sites are read and which states are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    /// Aligned nucleotides. A, C, G and T (any case) are always compared. A gap (`-`
    /// or `.`) is a fifth state when `count_gaps` is set, else it is not compared. Every
    /// other letter (N, the IUPAC ambiguity codes, `?`, `X`, `*`) is one state "N" when
    /// `count_n` is set, else it is not compared.
    Nucleotide { count_gaps: bool, count_n: bool },
    /// Genotypes 0, 1, 2 (copies of one allele); missing calls are not compared.
    Genotype,
}

/// The class of an alignment byte; `None` for bytes that cannot be in an alignment.
pub(crate) fn nucleotide_state(b: u8) -> Option<u8> {
    match b {
        b'A' | b'a' => Some(0),
        b'C' | b'c' => Some(1),
        b'G' | b'g' => Some(2),
        b'T' | b't' => Some(3),
        b'-' | b'.' => Some(4),
        b'?' | b'*' => Some(5),
        _ if b.is_ascii_alphabetic() => Some(5),
        _ => None,
    }
}

impl Coding {
    /// The default alignment coding (snp-dists: only A, C, G, T are compared).
    pub const SNP: Coding = Coding::Nucleotide { count_gaps: false, count_n: false };

    /// Number of code planes (the validity plane comes on top).
    pub fn code_planes(self) -> usize {
        match self {
            Coding::Nucleotide { count_gaps: false, count_n: false } | Coding::Genotype => 2,
            Coding::Nucleotide { .. } => 3,
        }
    }

    /// Code planes plus the validity plane.
    pub fn planes(self) -> usize {
        self.code_planes() + 1
    }

    pub fn is_genotype(self) -> bool {
        self == Coding::Genotype
    }

    /// For every byte of an alignment: its state code, [`NOT_COMPARED`], or `None`
    /// where the byte is not an alignment letter.
    pub fn letter_codes(self) -> [Option<u8>; 256] {
        let (gaps, n) = match self {
            Coding::Nucleotide { count_gaps, count_n } => (count_gaps, count_n),
            Coding::Genotype => (false, false),
        };
        let mut t = [None; 256];
        for (b, slot) in t.iter_mut().enumerate() {
            *slot = nucleotide_state(b as u8).map(|s| match s {
                4 if !gaps => NOT_COMPARED,
                5 if !n => NOT_COMPARED,
                s => s,
            });
        }
        t
    }

    /// The code of a genotype (0, 1, 2); anything else is [`NOT_COMPARED`].
    pub fn genotype_code(g: i8) -> u8 {
        match g {
            0 => 0b00,
            1 => 0b01,
            2 => 0b11,
            _ => NOT_COMPARED,
        }
    }
}

/// Samples packed into bit planes.
#[derive(Debug, Clone)]
pub struct Packed {
    pub(super) coding: Coding,
    pub(super) sites: usize,
    pub(super) words: usize,
    pub(super) rows: Vec<Vec<u64>>,
}

/// 64 sites' bytes (valid bit in bit 7, code bits in bits 0..3) to plane words: gathers
/// bit `p` of 8 bytes at a time with a multiply (bytes holding 0 or 1 in their low bit,
/// times 0x0102040810204080, put byte k's bit at bit 56 + k).
#[inline]
fn bytes_to_planes(lut_bytes: &[u8; 64], planes: usize, out: &mut [u64; 4]) {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const MAGIC: u64 = 0x0102_0408_1020_4080;
    *out = [0; 4];
    for g in 0..8 {
        let t = u64::from_le_bytes(lut_bytes[g * 8..g * 8 + 8].try_into().unwrap());
        for (p, o) in out.iter_mut().enumerate().take(planes - 1) {
            *o |= ((((t >> p) & LOW).wrapping_mul(MAGIC)) >> 56) << (g * 8);
        }
        out[planes - 1] |= ((((t >> 7) & LOW).wrapping_mul(MAGIC)) >> 56) << (g * 8);
    }
}

impl Packed {
    /// An empty set of samples with `sites` sites each.
    pub fn new(coding: Coding, sites: usize) -> Packed {
        let words = sites.div_ceil(64).div_ceil(PAD_WORDS).max(1) * PAD_WORDS;
        Packed { coding, sites, words, rows: Vec::new() }
    }

    pub fn coding(&self) -> Coding {
        self.coding
    }

    /// Sites per sample.
    pub fn sites(&self) -> usize {
        self.sites
    }

    /// u64 words per plane (padded).
    pub fn words(&self) -> usize {
        self.words
    }

    /// Planes per sample (code planes and the validity plane).
    pub fn planes(&self) -> usize {
        self.coding.planes()
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Sample `s`'s planes, back to back.
    pub fn row(&self, s: usize) -> &[u64] {
        &self.rows[s]
    }

    /// Plane `p` of sample `s` (the validity plane is `planes() - 1`).
    pub fn plane(&self, s: usize, p: usize) -> &[u64] {
        &self.rows[s][p * self.words..(p + 1) * self.words]
    }

    /// Packs one sample from a per-site table lookup: `lut(x)` is 0 for a site that is not
    /// compared, else `0x80 | code` (bit 6 may flag a bad value; it is ignored here). Also
    /// returns the OR of every lookup, so callers can tell whether a flag was seen.
    fn pack_with<T: Copy>(&self, values: &[T], lut: impl Fn(T) -> u8) -> (Vec<u64>, u8) {
        assert_eq!(values.len(), self.sites);
        let planes = self.planes();
        let mut row = vec![0u64; planes * self.words];
        let mut bytes = [0u8; 64];
        let mut words = [0u64; 4];
        let mut seen = 0u8;
        for (w, chunk) in values.chunks(64).enumerate() {
            for (k, &v) in chunk.iter().enumerate() {
                bytes[k] = lut(v);
                seen |= bytes[k];
            }
            bytes[chunk.len()..].fill(0);
            bytes_to_planes(&bytes, planes, &mut words);
            for p in 0..planes {
                row[p * self.words + w] = words[p];
            }
        }
        (row, seen)
    }

    /// Packs one sample of per-site codes ([`NOT_COMPARED`] or a code below
    /// `2^code_planes`).
    pub fn pack_codes(&self, codes: &[u8]) -> Vec<u64> {
        self.pack_with(codes, |c| if c == NOT_COMPARED { 0 } else { 0x80 | c }).0
    }

    /// Packs one aligned sequence (letters) with a table from [`Packed::letter_lut`];
    /// `None` when a byte is not an alignment letter.
    pub(crate) fn pack_letters(&self, letters: &[u8], table: &[u8; 256]) -> Option<Vec<u64>> {
        #[cfg(target_arch = "x86_64")]
        {
            if let Coding::Nucleotide { count_gaps, count_n } = self.coding
                && std::arch::is_x86_feature_detected!("avx2")
            {
                // SAFETY: AVX2 was detected at run time.
                return unsafe { self.pack_letters_avx2(letters, count_gaps, count_n) };
            }
        }
        self.pack_letters_scalar(letters, table)
    }

    fn pack_letters_scalar(&self, letters: &[u8], table: &[u8; 256]) -> Option<Vec<u64>> {
        let (row, seen) = self.pack_with(letters, |b| table[b as usize]);
        (seen & 0x40 == 0).then_some(row)
    }

    /// [`Packed::pack_letters`] 32 letters per step: byte compares give one mask bit per
    /// letter for each class (A, C, G, T in either case, gap, other letter).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn pack_letters_avx2(&self, letters: &[u8], count_gaps: bool, count_n: bool) -> Option<Vec<u64>> {
        use std::arch::x86_64::*;
        assert_eq!(letters.len(), self.sites);
        let planes = self.planes();
        let words = self.words;
        let mut row = vec![0u64; planes * words];
        let mut bad = 0u32;
        let classify = |chunk: &[u8; 32]| -> [u32; 6] {
            // SAFETY: `chunk` is 32 readable bytes; AVX2 is enabled for this function.
            unsafe {
                let v = _mm256_loadu_si256(chunk.as_ptr() as *const __m256i);
                let lower = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
                let eq =
                    |x: __m256i, c: u8| _mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(c as i8))) as u32;
                let (a, c, g, t) = (eq(lower, b'a'), eq(lower, b'c'), eq(lower, b'g'), eq(lower, b't'));
                let gap = eq(v, b'-') | eq(v, b'.');
                // Letters: 'a'..='z' after setting bit 5 (bytes >= 0x80 compare as negative).
                let ge_a = _mm256_cmpgt_epi8(lower, _mm256_set1_epi8(b'a' as i8 - 1));
                let le_z = _mm256_cmpgt_epi8(_mm256_set1_epi8(b'z' as i8 + 1), lower);
                let alpha = _mm256_movemask_epi8(_mm256_and_si256(ge_a, le_z)) as u32;
                let acgt = a | c | g | t;
                let other = (alpha & !acgt) | eq(v, b'?') | eq(v, b'*');
                [c | t, g | t, acgt, gap, other, !(acgt | gap | other)]
            }
        };
        let mut tail = [b'A'; 32];
        for (w, chunk64) in letters.chunks(64).enumerate() {
            let mut m = [[0u32; 6]; 2];
            for (h, part) in chunk64.chunks(32).enumerate() {
                let block: &[u8; 32] = if part.len() == 32 {
                    part.try_into().unwrap()
                } else {
                    tail.fill(b'A');
                    tail[..part.len()].copy_from_slice(part);
                    &tail
                };
                let mut r = classify(block);
                if part.len() < 32 {
                    let keep = (1u32 << part.len()) - 1;
                    r.iter_mut().for_each(|x| *x &= keep);
                }
                m[h] = r;
            }
            let word = |k: usize| m[0][k] as u64 | (m[1][k] as u64) << 32;
            let (mut x, y, mut v, gap, other) = (word(0), word(1), word(2), word(3), word(4));
            bad |= m[0][5] | m[1][5];
            let mut z = 0;
            if count_gaps {
                z |= gap;
                v |= gap;
            }
            if count_n {
                x |= other;
                z |= other;
                v |= other;
            }
            row[w] = x;
            row[words + w] = y;
            if planes == 4 {
                row[2 * words + w] = z;
            }
            row[(planes - 1) * words + w] = v;
        }
        (bad == 0).then_some(row)
    }

    /// The per-byte table for [`Packed::pack_letters`]: 0 where not compared, `0x80 |
    /// code` where compared, 0x40 for bytes that are not alignment letters.
    pub(crate) fn letter_lut(coding: Coding) -> [u8; 256] {
        let codes = coding.letter_codes();
        let mut t = [0u8; 256];
        for b in 0..256 {
            t[b] = match codes[b] {
                Some(NOT_COMPARED) => 0,
                Some(c) => 0x80 | c,
                None => 0x40,
            };
        }
        t
    }

    /// Packs one sample of genotypes (0, 1, 2; anything else is missing).
    pub fn pack_genotypes(&self, genotypes: &[i8]) -> Vec<u64> {
        self.pack_with(genotypes, |g| match Coding::genotype_code(g) {
            NOT_COMPARED => 0,
            c => 0x80 | c,
        })
        .0
    }

    /// Builds a packed set from rows already packed (used by the readers).
    pub(crate) fn from_rows(coding: Coding, sites: usize, rows: Vec<Vec<u64>>) -> Packed {
        let mut p = Packed::new(coding, sites);
        for r in &rows {
            assert_eq!(r.len(), p.planes() * p.words);
        }
        p.rows = rows;
        p
    }
}

/// Checks that all sequences have the same length; `names` gives their names for the
/// error message (else they are numbered).
pub(crate) fn check_lengths<S: AsRef<[u8]>>(seqs: &[S], names: Option<&[String]>) -> Result<usize> {
    let Some(first) = seqs.first() else {
        return Err(Error::InvalidArgument("no sequences: an alignment needs at least one".into()));
    };
    let len = first.as_ref().len();
    let name = |k: usize| match names {
        Some(n) => format!("'{}'", n[k]),
        None => format!("{}", k + 1),
    };
    if let Some(k) = seqs.iter().position(|s| s.as_ref().len() != len) {
        return Err(Error::InvalidArgument(format!(
            "sequence {} has {} sites, but the first sequence {} has {len}: all sequences of an alignment must have \
             the same length",
            name(k),
            seqs[k].as_ref().len(),
            name(0)
        )));
    }
    if len == 0 {
        return Err(Error::InvalidArgument("the alignment has no sites (its sequences are empty)".into()));
    }
    Ok(len)
}

/// Packs aligned sequences held in memory (parallel over sequences).
pub fn pack_alignment<S: AsRef<[u8]> + Sync>(seqs: &[S], coding: Coding) -> Result<Packed> {
    if coding.is_genotype() {
        return Err(Error::InvalidArgument("pack_alignment needs a nucleotide coding".into()));
    }
    let sites = check_lengths(seqs, None)?;
    let mut packed = Packed::new(coding, sites);
    let lut = Packed::letter_lut(coding);
    let rows: Vec<Option<Vec<u64>>> = seqs.par_iter().map(|s| packed.pack_letters(s.as_ref(), &lut)).collect();
    if let Some(k) = rows.iter().position(Option::is_none) {
        let s = seqs[k].as_ref();
        let pos = s.iter().position(|&b| lut[b as usize] == 0x40).unwrap_or(0);
        return Err(Error::InvalidArgument(format!(
            "sequence {}: {} at site {} is not an alignment letter",
            k + 1,
            crate::seq::alphabet::describe_byte(s[pos]),
            pos + 1
        )));
    }
    packed.rows = rows.into_iter().map(Option::unwrap).collect();
    Ok(packed)
}

/// Packs a genotype matrix held in memory: `genotypes` is row-major, `samples` rows of
/// `genotypes.len() / samples` sites, values 0, 1, 2 and anything else (e.g. -1) missing.
pub fn pack_genotype_matrix(genotypes: &[i8], samples: usize) -> Result<Packed> {
    if samples == 0 {
        return Err(Error::InvalidArgument("no samples".into()));
    }
    if !genotypes.len().is_multiple_of(samples) {
        return Err(Error::InvalidArgument(format!(
            "{} genotypes do not make {samples} rows of equal length",
            genotypes.len()
        )));
    }
    let sites = genotypes.len() / samples;
    if sites == 0 {
        return Err(Error::InvalidArgument("the genotype matrix has no sites".into()));
    }
    let mut packed = Packed::new(Coding::Genotype, sites);
    packed.rows = genotypes.par_chunks(sites).map(|g| packed.pack_genotypes(g)).collect();
    Ok(packed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_multiply_puts_byte_k_at_bit_k() {
        let mut bytes = [0u8; 64];
        for k in [0usize, 1, 7, 8, 13, 63] {
            bytes[k] = 0x81;
        }
        let mut w = [0u64; 4];
        bytes_to_planes(&bytes, 2, &mut w);
        let want = (1u64 << 0) | (1 << 1) | (1 << 7) | (1 << 8) | (1 << 13) | (1 << 63);
        assert_eq!(w[0], want);
        assert_eq!(w[1], want);
    }

    #[test]
    fn letters_pack_to_planes() {
        let p = pack_alignment(&[b"ACGTN-acgt".as_slice()], Coding::SNP).unwrap();
        // A=00 C=01 G=10 T=11; N and '-' not compared.
        assert_eq!(p.plane(0, 0)[0], 0b10_1000_1010);
        assert_eq!(p.plane(0, 1)[0], 0b11_0000_1100);
        assert_eq!(p.plane(0, 2)[0], 0b11_1100_1111);
        let q = pack_alignment(&[b"N-".as_slice()], Coding::Nucleotide { count_gaps: true, count_n: true }).unwrap();
        assert_eq!((q.plane(0, 0)[0], q.plane(0, 1)[0], q.plane(0, 2)[0], q.plane(0, 3)[0]), (0b01, 0, 0b11, 0b11));
    }

    #[test]
    fn fast_letter_packing_equals_the_table() {
        let mut x = 12345u64;
        let alphabet = b"ACGTacgtNnRrYy-.?*XxUu";
        for coding in [
            Coding::SNP,
            Coding::Nucleotide { count_gaps: true, count_n: false },
            Coding::Nucleotide { count_gaps: false, count_n: true },
            Coding::Nucleotide { count_gaps: true, count_n: true },
        ] {
            let lut = Packed::letter_lut(coding);
            for len in [1, 31, 32, 33, 64, 65, 200, 1100] {
                let letters: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        alphabet[(x % alphabet.len() as u64) as usize]
                    })
                    .collect();
                let p = Packed::new(coding, len);
                assert_eq!(p.pack_letters(&letters, &lut), p.pack_letters_scalar(&letters, &lut), "{coding:?} {len}");
                let mut bad = letters.clone();
                bad[len / 2] = b'1';
                assert!(p.pack_letters(&bad, &lut).is_none());
                bad[len / 2] = 0xC3;
                assert!(p.pack_letters(&bad, &lut).is_none());
            }
        }
    }
}

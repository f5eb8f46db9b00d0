//! The exact site filter of the distance job: which sites can change a counter
//! ([`Packed::site_summary`]) and a packing of only those ([`Packed::select_sites`]).

use super::packed::Packed;
use rayon::prelude::*;

impl Packed {
    /// Mask of the real (not padding) sites in word `w`.
    pub(crate) fn in_range(&self, w: usize) -> u64 {
        let first = w * 64;
        if first + 64 <= self.sites {
            u64::MAX
        } else if first >= self.sites {
            0
        } else {
            (1u64 << (self.sites - first)) - 1
        }
    }

    /// Per word: the sites where at least two different states occur among the samples
    /// that compare them (`variable`), and the sites where some sample does not compare
    /// (`incomplete`).
    pub fn site_summary(&self) -> SiteSummary {
        let cp = self.coding.code_planes();
        let vp = cp;
        const CHUNK: usize = 64;
        let mut variable = vec![0u64; self.words];
        let mut incomplete = vec![0u64; self.words];
        let words = self.words;
        variable.par_chunks_mut(CHUNK).zip(incomplete.par_chunks_mut(CHUNK)).enumerate().for_each(|(c, (var, inc))| {
            let w0 = c * CHUNK;
            let len = var.len();
            // Per site: seen (some sample compares it), the code of the first sample that
            // does, and whether every sample does.
            let mut seen = [0u64; CHUNK];
            let mut refc = [[0u64; CHUNK]; 3];
            let mut valid_all = [u64::MAX; CHUNK];
            for row in &self.rows {
                let v = &row[vp * words + w0..][..len];
                let x: [&[u64]; 3] = std::array::from_fn(|p| &row[p.min(cp - 1) * words + w0..][..len]);
                for k in 0..len {
                    let fresh = v[k] & !seen[k];
                    let mut diff = 0;
                    for p in 0..cp {
                        refc[p][k] |= x[p][k] & fresh;
                        diff |= x[p][k] ^ refc[p][k];
                    }
                    seen[k] |= v[k];
                    var[k] |= v[k] & diff;
                    valid_all[k] &= v[k];
                }
            }
            for k in 0..len {
                let r = self.in_range(w0 + k);
                var[k] &= r;
                inc[k] = !valid_all[k] & r;
            }
        });
        let count = |m: &[u64]| m.iter().map(|w| w.count_ones() as u64).sum::<u64>();
        SiteSummary {
            variable_sites: count(&variable),
            incomplete_sites: count(&incomplete),
            constant_complete_sites: (0..self.words)
                .map(|w| (self.in_range(w) & !variable[w] & !incomplete[w]).count_ones() as u64)
                .sum(),
            variable,
            incomplete,
        }
    }

    /// The same samples restricted to the sites whose bit is set in `keep` (one bit per
    /// site, [`Packed::words`] words), in their order.
    pub fn select_sites(&self, keep: &[u64]) -> Packed {
        assert_eq!(keep.len(), self.words);
        let kept: usize = keep.iter().map(|w| w.count_ones() as usize).sum();
        let mut out = Packed::new(self.coding, kept);
        let planes = self.planes();
        let (src_words, dst_words) = (self.words, out.words);
        // Source words that hold kept sites, with where their bits go.
        let mut plan = Vec::new();
        let mut at = 0usize;
        for (w, &k) in keep.iter().enumerate() {
            if k != 0 {
                plan.push((w, k, at));
                at += k.count_ones() as usize;
            }
        }
        let pext = pext_fn();
        out.rows = self
            .rows
            .par_iter()
            .map(|row| {
                let mut dst = vec![0u64; planes * dst_words];
                for p in 0..planes {
                    let src = &row[p * src_words..(p + 1) * src_words];
                    let d = &mut dst[p * dst_words..(p + 1) * dst_words];
                    for &(w, mask, at) in &plan {
                        let bits = pext(src[w], mask);
                        let (q, r) = (at / 64, at % 64);
                        d[q] |= bits << r;
                        if r != 0 && r + mask.count_ones() as usize > 64 {
                            d[q + 1] |= bits >> (64 - r);
                        }
                    }
                }
                dst
            })
            .collect();
        out
    }
}

/// What [`Packed::site_summary`] found.
#[derive(Debug, Clone)]
pub struct SiteSummary {
    /// One bit per site: at least two different compared states occur.
    pub variable: Vec<u64>,
    /// One bit per site: some sample does not compare this site.
    pub incomplete: Vec<u64>,
    pub variable_sites: u64,
    pub incomplete_sites: u64,
    /// Sites every sample compares, all in the same state: every pair compares them and
    /// none differs there.
    pub constant_complete_sites: u64,
}

fn pext_soft(x: u64, mut mask: u64) -> u64 {
    let mut out = 0;
    let mut bit = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if x & low != 0 {
            out |= 1 << bit;
        }
        bit += 1;
        mask ^= low;
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn pext_bmi2(x: u64, mask: u64) -> u64 {
    std::arch::x86_64::_pext_u64(x, mask)
}

/// Parallel bit extract: hardware `pext` where the CPU has BMI2.
fn pext_fn() -> fn(u64, u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("bmi2") {
            return |x, m| {
                // SAFETY: BMI2 was detected at run time.
                unsafe { pext_bmi2(x, m) }
            };
        }
    }
    pext_soft
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::packed::{Coding, pack_alignment};

    #[test]
    fn pext_agrees() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = x.rotate_left(21) & x.rotate_left(5);
            assert_eq!(pext_fn()(x, m), pext_soft(x, m));
        }
    }

    #[test]
    fn selecting_sites_keeps_their_bits_in_order() {
        let seqs: Vec<Vec<u8>> =
            (0..3).map(|k| (0..300).map(|i| b"ACGTN-"[(i * 7 + k * 3 + i / 5) % 6]).collect()).collect();
        let p = pack_alignment(&seqs, Coding::SNP).unwrap();
        let mut keep = vec![0u64; p.words()];
        let chosen: Vec<usize> = (0..300).filter(|i| i % 3 == 0 || i % 7 == 1).collect();
        for &i in &chosen {
            keep[i / 64] |= 1 << (i % 64);
        }
        let q = p.select_sites(&keep);
        let sub: Vec<Vec<u8>> = seqs.iter().map(|s| chosen.iter().map(|&i| s[i]).collect()).collect();
        let want = pack_alignment(&sub, Coding::SNP).unwrap();
        for s in 0..3 {
            assert_eq!(q.row(s), want.row(s));
        }
    }
}

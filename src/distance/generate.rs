//! Synthetic inputs shaped like real ones, for benchmarks and tests: whole-genome SNP
//! alignments (mostly constant sites, a small fraction variable, runs of N and gaps)
//! and genotype matrices. Deterministic for a seed.

use rayon::prelude::*;

/// xorshift64*: small, fast, reproducible.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03 | 1)
    }
    /// The generator in a given state (made odd, as xorshift never leaves zero), for
    /// callers that seed it their own way and must keep drawing the same numbers.
    pub fn from_state(state: u64) -> Rng {
        Rng(state | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// The shape of a generated alignment.
#[derive(Debug, Clone, Copy)]
pub struct AlignmentShape {
    pub samples: usize,
    pub sites: usize,
    /// Fraction of sites that vary (1% is typical of a bacterial core alignment).
    pub snp_density: f64,
    /// Fraction of each sample's sites in runs of N or gaps.
    pub missing: f64,
    /// Mean length of a run of N or gaps.
    pub mean_run: usize,
    pub seed: u64,
}

impl Default for AlignmentShape {
    fn default() -> Self {
        AlignmentShape { samples: 151, sites: 4_400_000, snp_density: 0.01, missing: 0.005, mean_run: 200, seed: 1 }
    }
}

/// Generates an alignment: a random reference; at each variable site an alternative
/// base carried by each sample with a per-site frequency skewed towards rare variants
/// (many singletons, as in real collections); then runs of N and gaps (half each) in
/// every sample. Samples are generated in parallel.
pub fn snp_alignment(shape: &AlignmentShape) -> Vec<Vec<u8>> {
    const BASES: &[u8; 4] = b"ACGT";
    let mut rng = Rng::new(shape.seed);
    let mut reference = vec![0u8; shape.sites];
    for chunk in reference.chunks_mut(32) {
        let mut r = rng.next_u64();
        for b in chunk {
            *b = BASES[(r & 3) as usize];
            r >>= 2;
        }
    }
    // Variable sites: position, alternative base, frequency of the alternative.
    let mut variable = Vec::new();
    let min_f = 1.0 / shape.samples.max(1) as f64;
    for (pos, &b) in reference.iter().enumerate() {
        if rng.unit() < shape.snp_density {
            let r = BASES.iter().position(|&x| x == b).unwrap();
            let alt = BASES[(r + 1 + rng.below(3)) % 4];
            let u = rng.unit();
            variable.push((pos, alt, (0.5 * u * u * u).max(min_f)));
        }
    }
    let runs = (shape.missing * shape.sites as f64 / shape.mean_run.max(1) as f64).round() as usize;
    (0..shape.samples)
        .into_par_iter()
        .map(|s| {
            let mut rng = Rng::new(shape.seed ^ (s as u64 + 1).wrapping_mul(0x5851_F42D_4C95_7F2D));
            let mut seq = reference.clone();
            for &(pos, alt, f) in &variable {
                if rng.unit() < f {
                    seq[pos] = alt;
                }
            }
            for r in 0..runs {
                let len = 1 + rng.below(2 * shape.mean_run.max(1));
                let start = rng.below(shape.sites);
                let fill = if r % 2 == 0 { b'N' } else { b'-' };
                let end = (start + len).min(shape.sites);
                seq[start..end].fill(fill);
            }
            seq
        })
        .collect()
}

/// A genotype matrix, row-major `samples x sites`: per site an allele frequency, calls
/// drawn under Hardy-Weinberg, a fraction `missing` of calls set to -1. About
/// `monomorphic` of the sites carry only genotype 0.
pub fn genotypes(samples: usize, sites: usize, missing: f64, monomorphic: f64, seed: u64) -> Vec<i8> {
    let mut rng = Rng::new(seed);
    let freqs: Vec<f64> =
        (0..sites).map(|_| if rng.unit() < monomorphic { 0.0 } else { 0.02 + 0.48 * rng.unit() }).collect();
    let mut out = vec![0i8; samples * sites];
    for s in 0..samples {
        for (k, &f) in freqs.iter().enumerate() {
            out[s * sites + k] =
                if rng.unit() < missing { -1 } else { (rng.unit() < f) as i8 + (rng.unit() < f) as i8 };
        }
    }
    out
}

//! All-pairs distance matrices over aligned sequences (SNP alignments) and genotype
//! matrices (PLINK .bed, 0/1/2 tables).
//!
//! # Semantics
//!
//! A *site* is an alignment column or a variant. For every pair of samples (i < j)
//! three counters are available:
//!
//! - **differences**: sites both samples compare where their states differ;
//! - **compared**: sites both samples compare;
//! - **opposite homozygotes** (genotypes only): compared sites with genotypes 0 and 2
//!   (PLINK's IBS0).
//!
//! Which letters are compared is set by [`Coding`]: by default (snp-dists' default)
//! only A, C, G, T in any case; gaps (`-`, `.`) and N (every other letter, including
//! the IUPAC codes) can each be made a state of their own ([`Coding::Nucleotide`]).
//! Genotypes 0, 1, 2 are compared; missing calls are skipped.
//!
//! With [`Options::ignore_constant`], sites where at most one distinct compared state
//! occurs across all samples are left out of every counter (they never add a
//! difference, so only the compared counts change).
//!
//! From the counters, [`Metric`] derives PLINK's values with missing calls skipped
//! (`plink --distance ... flat-missing`): IBS similarity `1 - (diff + ibs0) / (2 *
//! compared)`, its complement, and the allele-count distance `(diff + ibs0) * sites /
//! compared`.
//!
//! # Paths
//!
//! Every path first drops the sites that cannot change a requested counter
//! ([`SiteFilter::Auto`]): constant sites contribute no difference, and when every
//! sample compares them they add the same 1 to every pair's compared count. Real SNP
//! alignments are mostly such sites. Then:
//!
//! - [`Variant::Bitplane`]: `cl/distance.cl` `distance_bitplane`, tiles of pairs over bit
//!   planes in local memory (see [`opencl`]);
//! - [`Variant::Charpacked`]: `distance_charpacked`, the design of Payne et al. (one code
//!   byte per site, four per word, one work-group per pair, register accumulation,
//!   local-memory reduction), kept for comparison;
//! - [`Variant::Cpu`]: the same bit planes on all CPU cores ([`cpu`]);
//! - [`reference`]: the plain scalar truth for tests.
//!
//! # Results
//!
//! A [`DistanceMatrix`] holds each counter as the upper triangle, row-major:
//! `(0,1), (0,2), ..., (0,n-1), (1,2), ...`; [`tri_index`] gives the position,
//! [`DistanceMatrix::square`] a full row-major `n x n` copy.

pub mod cpu;
pub mod generate;
pub mod input;
pub mod opencl;
pub mod output;
pub mod packed;
pub mod reference;
pub mod sites;

pub use input::{Dataset, SampleName};
pub use packed::{Coding, Packed, pack_alignment, pack_genotype_matrix};

use crate::device::ClDevice;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::memory;
use std::str::FromStr;
use std::time::Instant;

/// Position of pair (i, j), i < j, in an upper triangle stored row-major.
pub fn tri_index(n: usize, i: usize, j: usize) -> usize {
    debug_assert!(i < j && j <= n);
    i * (2 * n - i - 1) / 2 + (j - i - 1)
}

crate::error::named_enum! {
    /// Where the pairs are counted.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub enum Variant ("distance variant", "variants") {
        /// Bit planes, tiles of rows x rows in local memory, XOR/AND + popcount.
        #[default]
        Bitplane = "bitplane",
        /// Payne et al.: code bytes packed four per word, one work-group per pair.
        Charpacked = "charpacked",
        /// Bit planes on all CPU cores (no OpenCL).
        Cpu = "cpu",
    }
}

/// Refuses the alignment coding flags (gaps or N as states of their own) for genotype
/// inputs, which have no gaps or N.
pub fn check_coding_flags(count_gaps: bool, count_n: bool, genotype: bool) -> Result<()> {
    if genotype && (count_gaps || count_n) {
        return Err(Error::InvalidArgument(
            "counting gaps or N as states (count-gaps, count-n) applies to alignments only".into(),
        ));
    }
    Ok(())
}

/// Whether sites that cannot change a requested counter are dropped before counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SiteFilter {
    /// Drop them (exact; the default).
    #[default]
    Auto,
    /// Count over every site (to measure the kernels on the full width).
    Off,
}

/// Kernel shapes and device-memory use. The defaults suit large GPUs; every field
/// can be tuned from `clsw bench dist`.
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// `bitplane`: each work-item counts `rt x rt` pairs in registers.
    pub rt: usize,
    /// `bitplane`: `wg x wg` work-items per work-group; a tile is `rt * wg` samples a side.
    pub wg: usize,
    /// `bitplane`: 32-bit words per plane staged in local memory per step (divides 32).
    pub kw: usize,
    /// `charpacked`: work-items per work-group (one pair per work-group).
    pub cp_threads: usize,
    /// Share of a device's global memory the inputs and outputs may use.
    pub mem_fraction: f64,
    /// Most pair x 32-site comparisons in one kernel launch (keeps launches short).
    pub launch_pair_words: u64,
    /// At most this many samples per block (the output is computed in blocks of
    /// samples x samples); `None`: as many as memory allows.
    pub max_block_samples: Option<usize>,
    /// At most this many sites per chunk uploaded at once (rounded to 1,024); `None`:
    /// as many as memory allows.
    pub max_chunk_sites: Option<usize>,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            rt: 4,
            wg: 16,
            kw: 8,
            cp_threads: 128,
            mem_fraction: 0.6,
            launch_pair_words: 1 << 36,
            max_block_samples: None,
            max_chunk_sites: None,
        }
    }
}

impl Tuning {
    /// Samples per tile side of the `bitplane` kernel.
    pub fn tile(&self) -> usize {
        self.rt * self.wg
    }

    /// Checks the shape against a device's limits.
    pub fn check(&self, max_work_group: usize, local_mem: u64, planes: usize) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        if !(1..=8).contains(&self.rt) {
            return bad(format!("register tile {} must be 1 to 8", self.rt));
        }
        if !(1..=32).contains(&self.wg) || self.wg * self.wg > max_work_group.max(1) {
            return bad(format!(
                "work-group side {} gives {} work-items; the device allows {max_work_group}",
                self.wg,
                self.wg * self.wg
            ));
        }
        if ![1, 2, 4, 8, 16, 32].contains(&self.kw) {
            return bad(format!("words per step {} must divide 32", self.kw));
        }
        let local = 2 * self.kw * planes * (self.tile() + 1) * 4;
        if local as u64 > local_mem {
            return bad(format!(
                "tile {}x{}x{} needs {local} bytes of local memory; the device has {local_mem}",
                self.rt, self.wg, self.kw
            ));
        }
        if !self.cp_threads.is_power_of_two() || self.cp_threads > max_work_group.max(1) {
            return bad(format!(
                "charpacked work-group size {} must be a power of two within the device's {max_work_group}",
                self.cp_threads
            ));
        }
        Ok(())
    }
}

impl FromStr for Tuning {
    type Err = Error;
    /// `RTxWGxKW`, e.g. `4x16x8` (the default).
    fn from_str(s: &str) -> Result<Tuning> {
        let parts: Vec<usize> = s
            .split(['x', 'X'])
            .map(|p| p.trim().parse::<usize>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| Error::InvalidArgument(format!("tile '{s}': expected RTxWGxKW, e.g. 4x16x8")))?;
        if parts.len() != 3 {
            return Err(Error::InvalidArgument(format!("tile '{s}': expected RTxWGxKW, e.g. 4x16x8")));
        }
        Ok(Tuning { rt: parts[0], wg: parts[1], kw: parts[2], ..Tuning::default() })
    }
}

/// What to compute.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    pub variant: Variant,
    /// Also count the compared sites of every pair (needed by every metric but
    /// [`Metric::Differences`]).
    pub want_compared: bool,
    /// Leave sites constant across all samples out of every counter.
    pub ignore_constant: bool,
    pub site_filter: SiteFilter,
    pub tuning: Tuning,
}

/// Which counters the counting paths fill in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Want {
    pub compared: bool,
    pub ibs0: bool,
}

/// Counters as upper triangles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Counts {
    pub differences: Vec<u32>,
    pub compared: Option<Vec<u32>>,
    pub opposite: Option<Vec<u32>>,
}

impl Counts {
    /// Zeroed counters for the pairs of `n` samples, or an out-of-memory error naming
    /// their size (they grow as `n²`: 10^6 samples need 2 TB a counter).
    pub fn zeros(n: usize, want: Want) -> Result<Counts> {
        let exact = n as u128 * n.saturating_sub(1) as u128 / 2;
        let what = |counter: &str| format!("the {counter} counters of {exact} pairs of {n} samples");
        let pairs =
            usize::try_from(exact).map_err(|_| Error::OutOfMemory { what: what("distance"), bytes: exact * 4 })?;
        let counter = |name: &str| memory::vec_filled(what(name), pairs, 0u32);
        let total = memory::bytes_of::<u32>(pairs) * (1 + want.compared as u128 + want.ibs0 as u128);
        memory::check(what("distance"), total)?;
        Ok(Counts {
            differences: counter("difference")?,
            compared: want.compared.then(|| counter("compared-site")).transpose()?,
            opposite: want.ibs0.then(|| counter("opposite-homozygote")).transpose()?,
        })
    }
}

/// All-pairs counters of `n` samples, each the upper triangle (i < j) row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistanceMatrix {
    /// Samples.
    pub n: usize,
    /// Sites in the input.
    pub sites: u64,
    /// Sites the counters range over: all of them, or the non-constant ones with
    /// `ignore_constant`. The allele-count distance is scaled to this many sites.
    pub considered_sites: u64,
    /// Sites the counting kernels processed after dropping those that change nothing.
    pub kept_sites: u64,
    /// Genotype input (the opposite-homozygote counter exists).
    pub genotype: bool,
    /// Differing compared sites per pair.
    pub differences: Vec<u32>,
    /// Compared sites per pair, when requested.
    pub compared: Option<Vec<u32>>,
    /// Genotypes: compared sites with genotypes 0 and 2 (IBS0).
    pub opposite_homozygotes: Option<Vec<u32>>,
}

impl DistanceMatrix {
    /// Number of pairs i < j.
    pub fn pairs(&self) -> usize {
        self.differences.len()
    }

    fn at(&self, v: &[u32], i: usize, j: usize) -> u32 {
        match i.cmp(&j) {
            std::cmp::Ordering::Less => v[tri_index(self.n, i, j)],
            std::cmp::Ordering::Greater => v[tri_index(self.n, j, i)],
            std::cmp::Ordering::Equal => 0,
        }
    }

    /// Differences between samples i and j (0 on the diagonal).
    pub fn difference(&self, i: usize, j: usize) -> u32 {
        self.at(&self.differences, i, j)
    }

    /// Compared sites of samples i and j (`None` when not counted; on the diagonal,
    /// `None` too: a sample's own compared sites are not counted).
    pub fn compared(&self, i: usize, j: usize) -> Option<u32> {
        if i == j {
            return None;
        }
        self.compared.as_ref().map(|c| self.at(c, i, j))
    }

    /// The full symmetric `n x n` matrix of differences, row-major, zero diagonal.
    pub fn square(&self) -> Result<Vec<u32>> {
        square_of(self.n, &self.differences)
    }

    /// The full symmetric matrix of compared counts (diagonal 0), when counted.
    pub fn square_compared(&self) -> Result<Option<Vec<u32>>> {
        self.compared.as_ref().map(|c| square_of(self.n, c)).transpose()
    }

    /// A metric's value for a pair (the diagonal gives the metric's self value).
    pub fn value(&self, metric: Metric, i: usize, j: usize) -> f64 {
        if i == j {
            return if metric == Metric::Ibs { 1.0 } else { 0.0 };
        }
        let d = self.difference(i, j) as f64;
        if metric == Metric::Differences {
            return d;
        }
        let c = self.compared(i, j).expect("metric needs the compared counts") as f64;
        let e = self.opposite_homozygotes.as_ref().map_or(0.0, |v| self.at(v, i, j) as f64);
        // Genotypes: allele mismatches out of 2 per site; alignments: site mismatches.
        let (mismatch, per_site) = if self.genotype { (d + e, 2.0) } else { (d, 1.0) };
        if c == 0.0 {
            return f64::NAN;
        }
        match metric {
            Metric::Differences => d,
            Metric::Ibs => 1.0 - mismatch / (per_site * c),
            Metric::OneMinusIbs => mismatch / (per_site * c),
            Metric::AlleleCount => mismatch * self.considered_sites as f64 / c,
        }
    }
}

fn square_of(n: usize, tri: &[u32]) -> Result<Vec<u32>> {
    let what = format!("the {n} x {n} matrix");
    let mut sq = memory::vec_filled(&what, memory::count(&what, &[n, n])?, 0u32)?;
    for i in 0..n {
        for j in i + 1..n {
            let v = tri[tri_index(n, i, j)];
            sq[i * n + j] = v;
            sq[j * n + i] = v;
        }
    }
    Ok(sq)
}

crate::error::named_enum! {
    /// Values derived from the counters.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Metric ("metric", "metrics") {
        /// Differing compared sites (snp-dists' SNP distance; differing genotypes).
        Differences = "diff",
        /// PLINK `--distance allele-ct flat-missing` (.dist): genotypes `(diff + ibs0) *
        /// sites / compared`, alignments `diff * sites / compared`.
        AlleleCount = "allele-ct",
        /// PLINK `--distance ibs flat-missing` (.mibs): `1 - (diff + ibs0) / (2 compared)`
        /// for genotypes, `1 - diff / compared` for alignments.
        Ibs = "ibs",
        /// PLINK `--distance 1-ibs flat-missing` (.mdist): one minus [`Metric::Ibs`].
        OneMinusIbs = "1-ibs",
    }
}

impl Metric {
    /// Whether the metric needs the compared counts.
    pub fn needs_compared(self) -> bool {
        self != Metric::Differences
    }

    /// Whether a run must count the compared sites: when the caller asks for them
    /// (`--compared`, `options.want_compared`) or when the metric needs them.
    pub fn want_compared(self, asked: bool) -> bool {
        asked || self.needs_compared()
    }
}

/// What a computation did, for summaries and benchmarks.
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    /// Where the pairs were counted ("cpu (avx512, 16 threads)", device labels, ...).
    pub backend: String,
    pub variant: Option<Variant>,
    pub input_sites: u64,
    pub kept_sites: u64,
    /// Site summary and selection.
    pub filter_seconds: f64,
    /// Counting, host clock (uploads, kernels, read-back, merging).
    pub count_seconds: f64,
    /// Kernel time from profiling events, summed over devices.
    pub kernel_seconds: f64,
    /// How the devices split the work (blocks, chunks, launches).
    pub plan: String,
}

/// The counts of a pair (differences, compared sites, opposite homozygotes) are 32-bit,
/// in the matrices, the kernels and the C ABI: at most `u32::MAX` sites, refused
/// before any work beyond that.
pub(crate) fn check_sites(sites: usize) -> Result<()> {
    if sites > u32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "{sites} sites: the distance counts are 32-bit, so at most {} sites",
            u32::MAX
        )));
    }
    Ok(())
}

/// Counts every pair of `packed` on the engine's OpenCL devices (the variant chosen in
/// `opts`), or on the CPU when the engine has none or `opts.variant` is `Cpu`.
pub fn compute(engine: &Engine, packed: &Packed, opts: &Options) -> Result<(DistanceMatrix, RunStats)> {
    compute_on(&engine.opencl_devices(), packed, opts)
}

/// As [`compute`], on the given devices (none: the CPU path).
pub fn compute_on(devices: &[&ClDevice], packed: &Packed, opts: &Options) -> Result<(DistanceMatrix, RunStats)> {
    let n = packed.len();
    if n == 0 {
        return Err(Error::InvalidArgument("no samples to compare".into()));
    }
    check_sites(packed.sites())?;
    let genotype = packed.coding().is_genotype();
    let mut stats = RunStats { input_sites: packed.sites() as u64, ..RunStats::default() };
    let t0 = Instant::now();
    // Sites to count, and what the dropped ones add to every compared count.
    let mut considered = packed.sites() as u64;
    let (keep, offset): (Option<Vec<u64>>, u32) = if opts.site_filter == SiteFilter::Off && !opts.ignore_constant {
        (None, 0)
    } else {
        let summary = packed.site_summary();
        if opts.ignore_constant {
            considered = summary.variable_sites;
            (Some(summary.variable), 0)
        } else if opts.want_compared {
            let keep: Vec<u64> = summary.variable.iter().zip(&summary.incomplete).map(|(v, i)| v | i).collect();
            (Some(keep), summary.constant_complete_sites as u32)
        } else {
            (Some(summary.variable), 0)
        }
    };
    let selected;
    let work = match keep {
        Some(k) if (k.iter().map(|w| w.count_ones() as usize).sum::<usize>()) < packed.sites() => {
            selected = packed.select_sites(&k);
            &selected
        }
        _ => packed,
    };
    stats.kept_sites = work.sites() as u64;
    stats.filter_seconds = t0.elapsed().as_secs_f64();

    let want = Want { compared: opts.want_compared, ibs0: genotype && opts.want_compared };
    let t1 = Instant::now();
    let mut counts = if work.sites() == 0 || n < 2 {
        stats.backend = "none (nothing to count)".into();
        Counts::zeros(n, want)?
    } else if opts.variant == Variant::Cpu || devices.is_empty() {
        stats.variant = Some(Variant::Cpu);
        stats.backend = format!("cpu ({}, {} threads)", cpu::isa(), rayon::current_num_threads());
        cpu::compute(work, want)?
    } else {
        stats.variant = Some(opts.variant);
        stats.backend = devices.iter().map(|d| d.label()).collect::<Vec<_>>().join(", ");
        let (c, kernel_seconds, plan) = opencl::compute(devices, work, want, opts.variant, &opts.tuning)?;
        stats.kernel_seconds = kernel_seconds;
        stats.plan = plan;
        c
    };
    stats.count_seconds = t1.elapsed().as_secs_f64();
    if offset > 0
        && let Some(c) = counts.compared.as_mut()
    {
        c.iter_mut().for_each(|x| *x += offset);
    }
    Ok((
        DistanceMatrix {
            n,
            sites: packed.sites() as u64,
            considered_sites: considered,
            kept_sites: stats.kept_sites,
            genotype,
            differences: counts.differences,
            compared: counts.compared,
            opposite_homozygotes: counts.opposite,
        },
        stats,
    ))
}

/// All-pairs distances of aligned sequences held in memory (equal lengths).
pub fn alignment_matrix<S: AsRef<[u8]> + Sync>(
    engine: &Engine,
    seqs: &[S],
    coding: Coding,
    opts: &Options,
) -> Result<DistanceMatrix> {
    Ok(compute(engine, &pack_alignment(seqs, coding)?, opts)?.0)
}

/// All-pairs distances of a genotype matrix held in memory: row-major, `samples` rows,
/// values 0, 1, 2, anything else (e.g. -1) missing.
pub fn genotype_matrix(engine: &Engine, genotypes: &[i8], samples: usize, opts: &Options) -> Result<DistanceMatrix> {
    Ok(compute(engine, &pack_genotype_matrix(genotypes, samples)?, opts)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_sites_than_32_bit_counts_hold_are_refused() {
        assert!(check_sites(u32::MAX as usize).is_ok());
        let msg = check_sites(u32::MAX as usize + 1).unwrap_err().to_string();
        assert!(msg.contains("4294967296 sites: the distance counts are 32-bit"), "{msg}");
    }
}

//! The parallel CPU path: the same bit planes as the device kernels, compared 64 sites
//! per word with XOR/AND and popcount, over tiles of pairs spread on all cores by rayon.
//! It is the path for machines without OpenCL and the "host cores" row of
//! `clsw bench dist`.
//!
//! Work: the upper triangle is cut into row tiles of [`ROWS`] samples (each owns a
//! contiguous slice of the output); within a tile, columns go in tiles of [`COLS`] and
//! sites in chunks of [`CHUNK`] words, so the planes being compared stay in L1/L2.
//! The innermost loop over words vectorises; it is compiled three times (AVX-512 with
//! VPOPCNTDQ, AVX2, baseline) and the best the CPU has is chosen at run time.

use super::packed::Packed;
use super::{Counts, Want, tri_index};
use crate::error::Result;
use rayon::prelude::*;

/// Samples per row tile (one rayon task).
const ROWS: usize = 8;
/// Samples per column tile.
const COLS: usize = 32;
/// u64 words per site chunk (8,192 sites).
const CHUNK: usize = 128;

/// One pair over one chunk: the planes of sample a and b (code planes 0..3, validity
/// last; plane 2 is a stand-in when there are two code planes). Returns
/// (differences, compared, opposite homozygotes).
type PairFn = unsafe fn(&[&[u64]; 4], &[&[u64]; 4]) -> [u64; 3];

#[inline(always)]
fn pair<const P3: bool, const C: bool, const E: bool>(a: &[&[u64]; 4], b: &[&[u64]; 4]) -> [u64; 3] {
    let n = a[3].len();
    let (a0, a1, a2, av) = (&a[0][..n], &a[1][..n], &a[2][..n], &a[3][..n]);
    let (b0, b1, b2, bv) = (&b[0][..n], &b[1][..n], &b[2][..n], &b[3][..n]);
    let (mut d, mut c, mut e) = (0u64, 0u64, 0u64);
    for w in 0..n {
        let m = av[w] & bv[w];
        let x = a0[w] ^ b0[w];
        let y = a1[w] ^ b1[w];
        let mut diff = x | y;
        if P3 {
            diff |= a2[w] ^ b2[w];
        }
        d += (diff & m).count_ones() as u64;
        if C {
            c += m.count_ones() as u64;
        }
        if E {
            e += (x & y & m).count_ones() as u64;
        }
    }
    [d, c, e]
}

fn pair_base<const P3: bool, const C: bool, const E: bool>(a: &[&[u64]; 4], b: &[&[u64]; 4]) -> [u64; 3] {
    pair::<P3, C, E>(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn pair_avx2<const P3: bool, const C: bool, const E: bool>(a: &[&[u64]; 4], b: &[&[u64]; 4]) -> [u64; 3] {
    pair::<P3, C, E>(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt")]
fn pair_avx512<const P3: bool, const C: bool, const E: bool>(a: &[&[u64]; 4], b: &[&[u64]; 4]) -> [u64; 3] {
    pair::<P3, C, E>(a, b)
}

/// The instruction set the CPU path uses here: "avx512", "avx2" or "baseline".
pub fn isa() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512vpopcntdq")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            return "avx512";
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt") {
            return "avx2";
        }
    }
    "baseline"
}

fn select<const P3: bool, const C: bool, const E: bool>() -> PairFn {
    #[cfg(target_arch = "x86_64")]
    {
        match isa() {
            "avx512" => return pair_avx512::<P3, C, E>,
            "avx2" => return pair_avx2::<P3, C, E>,
            _ => {}
        }
    }
    pair_base::<P3, C, E>
}

/// All pairs of `p` on the CPU.
pub(crate) fn compute(p: &Packed, want: Want) -> Result<Counts> {
    let p3 = p.coding().code_planes() == 3;
    let f = match (p3, want.compared, want.ibs0) {
        (false, false, false) => select::<false, false, false>(),
        (false, false, true) => select::<false, false, true>(),
        (false, true, false) => select::<false, true, false>(),
        (false, true, true) => select::<false, true, true>(),
        (true, false, false) => select::<true, false, false>(),
        (true, false, true) => select::<true, false, true>(),
        (true, true, false) => select::<true, true, false>(),
        (true, true, true) => select::<true, true, true>(),
    };
    run(p, want, f)
}

/// Cuts an upper triangle into the slices owned by row tiles starting at `tiles`.
fn split_rows<'a>(v: &'a mut [u32], tiles: &[usize], n: usize) -> Vec<&'a mut [u32]> {
    let mut out = Vec::with_capacity(tiles.len());
    let mut rest = v;
    for (t, &i0) in tiles.iter().enumerate() {
        let len = match tiles.get(t + 1) {
            Some(&i1) => tri_index(n, i1, i1 + 1) - tri_index(n, i0, i0 + 1),
            None => rest.len(),
        };
        let (a, b) = std::mem::take(&mut rest).split_at_mut(len);
        out.push(a);
        rest = b;
    }
    out
}

fn run(p: &Packed, want: Want, f: PairFn) -> Result<Counts> {
    let n = p.len();
    let mut counts = Counts::zeros(n, want)?;
    if n < 2 {
        return Ok(counts);
    }
    // Slices of the output owned by each row tile.
    let tiles: Vec<usize> = (0..n).step_by(ROWS).collect();
    let split = |v| split_rows(v, &tiles, n);
    let d = split(&mut counts.differences);
    let mut c: Vec<Option<&mut [u32]>> = match counts.compared.as_mut() {
        Some(v) => split(v).into_iter().map(Some).collect(),
        None => (0..tiles.len()).map(|_| None).collect(),
    };
    let mut e: Vec<Option<&mut [u32]>> = match counts.opposite.as_mut() {
        Some(v) => split(v).into_iter().map(Some).collect(),
        None => (0..tiles.len()).map(|_| None).collect(),
    };
    let words = p.words();
    let cp = p.coding().code_planes();
    let planes = |s: usize, w0: usize, w1: usize| -> [&[u64]; 4] {
        let pl = |k: usize| &p.plane(s, k)[w0..w1];
        [pl(0), pl(1), if cp == 3 { pl(2) } else { pl(0) }, pl(cp)]
    };
    d.into_par_iter().zip(c.par_iter_mut()).zip(e.par_iter_mut()).enumerate().for_each(|(t, ((d, c), e))| {
        let i0 = tiles[t];
        let i1 = (i0 + ROWS).min(n);
        let base = tri_index(n, i0, i0 + 1);
        for j0 in (i0..n).step_by(COLS) {
            let j1 = (j0 + COLS).min(n);
            for w0 in (0..words).step_by(CHUNK) {
                let w1 = (w0 + CHUNK).min(words);
                for i in i0..i1 {
                    let a = planes(i, w0, w1);
                    for j in j0.max(i + 1)..j1 {
                        let b = planes(j, w0, w1);
                        // SAFETY: `f` was chosen for instruction sets detected on this CPU.
                        let r = unsafe { f(&a, &b) };
                        let k = tri_index(n, i, j) - base;
                        d[k] += r[0] as u32;
                        if let Some(c) = c.as_deref_mut() {
                            c[k] += r[1] as u32;
                        }
                        if let Some(e) = e.as_deref_mut() {
                            e[k] += r[2] as u32;
                        }
                    }
                }
            }
        }
    });
    Ok(counts)
}

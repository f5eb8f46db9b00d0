//! Host side of `cl/distance.cl`: how the all-pairs work is cut to fit devices, spread
//! over several devices, and launched.
//!
//! # Blocks, chunks, units
//!
//! The samples are cut into blocks of at most `B` samples, so that a block pair's output
//! (`B x B` u32 per counter) fits the device; sites are cut into chunks of at most `W`
//! 32-site words, so that a chunk of two blocks fits beside it. One block pair over a
//! range of chunks is a *unit*: the device zeroes its output buffers, uploads each chunk
//! of both blocks (a block already resident is not uploaded again), launches the kernel
//! over the chunk (several launches when one would be long), reads the block pair's
//! counters back and adds them to the result. With one block (the usual case: 3,745
//! samples need 56 MB per counter) each device gets a share of the sites instead, and
//! the host adds the partial counts.
//!
//! Several devices take units from a shared queue (one host thread each), so faster
//! devices take more.
//!
//! # Throughput needed, and the kernel's shape
//!
//! The large published case, 3,745 genomes x 5 Mbp, is 7.01 M pairs x 156,250 32-bit
//! words per plane = 1.1e12 pair-words (3.5e13 site comparisons) when every site is
//! counted. The 60 s bar needs 1.8e10 pair-words/s; an H100/H200 issues about 64 logic
//! operations and 16 popcounts per clock per SM (132 SMs, ~1.9 GHz): with 3 LOP3s, one
//! popcount and one add per pair-word (two code planes, no compared count) that is ~16
//! pair-words per clock per SM, about 4e12 pair-words/s, i.e. ~0.3 s for the full
//! width. The kernel can only get near that if operands come from registers and local
//! memory, not global memory: a work-group stages `KW` words of each plane of `TILE`
//! row samples and `TILE` column samples in local memory (`2 x KW x planes x (TILE + 1)`
//! words: 12.5 KB at the default 4x16x8 with three planes), and each work-item counts
//! `RT x RT` pairs in registers, reading `2 x RT x planes` words from local memory per
//! `RT x RT` pair-words (1.5 local loads per pair-word at RT = 4; every word loaded from
//! global memory serves TILE = 64 pairs). `clsw bench dist --tile RTxWGxKW,...` tries
//! other shapes. Real SNP alignments are mostly constant sites, which the host drops
//! first (see [`super::SiteFilter`]): ~1% of the width remains, and the kernel time
//! becomes small next to reading and packing the letters.
//!
//! # Data layouts
//!
//! `bitplane`: `[sample][plane][word]` u32, the packed rows as they are in host memory
//! (a u64 word is two u32 words, low half first), so a whole-width upload needs no
//! staging. `charpacked`: one byte per site, `[sample][site]`, 0xFF where not compared.

use super::packed::Packed;
use super::{Counts, Tuning, Variant, Want, tri_index};
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, event_seconds, launch};
use crate::error::{Error, Result};
use crate::words::counted;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use opencl3::types::{CL_BLOCKING, CL_NON_BLOCKING, cl_long};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

#[cfg(target_endian = "big")]
compile_error!("the distance module uploads u64 planes as u32 words and assumes a little-endian host");

pub const SOURCE: KernelSource = KernelSource { name: "distance.cl", text: include_str!("../../cl/distance.cl") };

/// Sites per 32-bit word.
const SW: usize = 32;
/// Chunks of sites are multiples of this many 32-bit words (1,024 sites).
const CHUNK_ALIGN: usize = 32;

/// How the work is cut; see the module documentation.
#[derive(Debug, Clone)]
struct Plan {
    variant: Variant,
    /// Samples per block (the last block may be smaller).
    block: usize,
    blocks: usize,
    /// 32-bit words of sites per chunk.
    chunk: usize,
    /// All 32-bit words of a plane.
    total: usize,
    units: Vec<Unit>,
    counters: usize,
}

#[derive(Debug, Clone, Copy)]
struct Unit {
    bi: usize,
    bj: usize,
    /// 32-bit word range of sites.
    w0: usize,
    w1: usize,
}

impl Plan {
    fn block_range(&self, b: usize, n: usize) -> (usize, usize) {
        (b * self.block, ((b + 1) * self.block).min(n))
    }

    /// Device bytes per sample per 32-bit word of sites.
    fn bytes_per_word(variant: Variant, planes: usize) -> usize {
        match variant {
            Variant::Charpacked => SW,
            _ => 4 * planes,
        }
    }

    fn describe(&self, n: usize) -> String {
        format!(
            "{n} samples in {} of {}, {} of {} sites, {}",
            counted(self.blocks as u64, "block", "blocks"),
            self.block,
            counted(self.total.div_ceil(self.chunk) as u64, "site chunk", "site chunks"),
            self.chunk * SW,
            self.units.len()
        )
    }
}

fn make_plan(devices: &[&ClDevice], p: &Packed, want: Want, variant: Variant, tuning: &Tuning) -> Result<Plan> {
    let n = p.len();
    let total = p.words() * 2;
    let counters = 1 + want.compared as usize + want.ibs0 as usize;
    let budget = devices
        .iter()
        .map(|d| (d.info.global_mem_bytes as f64 * tuning.mem_fraction.clamp(0.05, 0.95)) as u64)
        .min()
        .unwrap_or(0);
    let max_alloc = devices.iter().map(|d| d.info.max_alloc_bytes).min().unwrap_or(0).max(1 << 20);
    let align = if variant == Variant::Bitplane { tuning.tile() } else { 1 };
    let round = |b: usize| if b >= n { n } else { b.div_ceil(align) * align };
    let out_bytes = |b: usize| (b * b * 4) as u64;
    let mut block = round(n.min(tuning.max_block_samples.unwrap_or(n).max(1)));
    let fits = |b: usize| {
        out_bytes(b) * counters as u64 <= budget / 2
            && out_bytes(b) <= max_alloc
            && (variant != Variant::Charpacked || (b as u64 * b as u64) < (1 << 40))
    };
    while !fits(block) {
        let smaller = round(block / 2).max(align.min(n));
        if smaller >= block {
            return Err(Error::Device(format!(
                "device memory too small for a block of {block} samples (budget {budget} bytes)"
            )));
        }
        block = smaller;
    }
    let blocks = n.div_ceil(block);
    block = round(n.div_ceil(blocks));
    let bpw = Plan::bytes_per_word(variant, p.planes()) as u64;
    let buffers = if blocks == 1 { 1 } else { 2 };
    let avail = budget.saturating_sub(out_bytes(block) * counters as u64);
    let mut chunk = (avail / (buffers * block as u64 * bpw)).min(max_alloc / (block as u64 * bpw)) as usize;
    if let Some(sites) = tuning.max_chunk_sites {
        chunk = chunk.min(sites.div_ceil(SW * CHUNK_ALIGN) * CHUNK_ALIGN);
    }
    chunk = (chunk / CHUNK_ALIGN * CHUNK_ALIGN).min(total);
    if chunk == 0 {
        return Err(Error::Device(format!(
            "device memory too small: {budget} usable bytes do not hold 1,024 sites of {block} samples"
        )));
    }
    let pairs: Vec<(usize, usize)> = (0..blocks).flat_map(|i| (i..blocks).map(move |j| (i, j))).collect();
    // Fewer block pairs than devices: split the sites too.
    let split = devices.len().div_ceil(pairs.len()).max(1);
    let per = total.div_ceil(split).div_ceil(CHUNK_ALIGN) * CHUNK_ALIGN;
    let mut units = Vec::new();
    for &(bi, bj) in &pairs {
        for w0 in (0..total).step_by(per.max(CHUNK_ALIGN)) {
            units.push(Unit { bi, bj, w0, w1: (w0 + per).min(total) });
        }
    }
    Ok(Plan { variant, block, blocks, chunk, total, units, counters })
}

/// The `-D` options of a program.
fn defines(variant: Variant, p: &Packed, want: Want, tuning: &Tuning) -> Vec<(&'static str, String)> {
    let mut d =
        vec![("WANT_COMPARED", (want.compared as u8).to_string()), ("WANT_IBS0", (want.ibs0 as u8).to_string())];
    match variant {
        Variant::Charpacked => d.push(("CP_THREADS", tuning.cp_threads.to_string())),
        _ => {
            d.push(("PLANES", p.coding().code_planes().to_string()));
            d.push(("RT", tuning.rt.to_string()));
            d.push(("WG", tuning.wg.to_string()));
            d.push(("KW", tuning.kw.to_string()));
        }
    }
    d
}

/// A u64 row seen as u32 words (low half first on a little-endian host).
fn as_u32(row: &[u64]) -> &[u32] {
    // SAFETY: u64 is at least as aligned as u32 and has no padding; the length doubles.
    unsafe { std::slice::from_raw_parts(row.as_ptr() as *const u32, row.len() * 2) }
}

/// Code bytes of one sample's sites `[s0, s1)`: the code, or 0xFF where not compared.
/// Genotype codes become 0, 1, 2 (so |a - b| = 2 marks opposite homozygotes).
fn code_bytes(p: &Packed, s: usize, s0: usize, s1: usize, out: &mut [u8]) {
    let cp = p.coding().code_planes();
    let genotype = p.coding().is_genotype();
    let planes: Vec<&[u64]> = (0..=cp).map(|k| p.plane(s, k)).collect();
    for (o, site) in out.iter_mut().zip(s0..s1) {
        let (w, b) = (site / 64, site % 64);
        let bit = |k: usize| ((planes[k][w] >> b) & 1) as u8;
        *o = if bit(cp) == 0 {
            0xFF
        } else if genotype {
            bit(0) + bit(1)
        } else {
            (0..cp).map(|k| bit(k) << k).sum()
        };
    }
}

/// One device's buffers and what they hold.
struct DeviceState<'d> {
    dev: &'d ClDevice,
    kernel: Kernel,
    rows: Buffer<u32>,
    cols: Option<Buffer<u32>>,
    outs: Vec<Buffer<u32>>,
    /// (block, w0, w1) resident in `rows` / `cols`.
    rows_hold: Option<(usize, usize, usize)>,
    cols_hold: Option<(usize, usize, usize)>,
    tile_lists: HashMap<(usize, usize, bool), (Buffer<u32>, usize)>,
    staging: Vec<u32>,
}

/// Counts every pair of `p` on `devices` with the `bitplane` or `charpacked` kernel.
/// Returns the counts, the kernel seconds (profiling events, all devices) and a line
/// describing the plan.
pub(crate) fn compute(
    devices: &[&ClDevice],
    p: &Packed,
    want: Want,
    variant: Variant,
    tuning: &Tuning,
) -> Result<(Counts, f64, String)> {
    if devices.is_empty() {
        return Err(Error::Device("no OpenCL device for the distance kernels".into()));
    }
    for d in devices {
        tuning.check(d.info.max_work_group_size, d.info.local_mem_bytes, p.planes())?;
    }
    let plan = make_plan(devices, p, want, variant, tuning)?;
    let n = p.len();
    let result = Mutex::new(Counts::zeros(n, want)?);
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Result<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = devices
            .iter()
            .map(|&dev| {
                let (plan, result, next) = (&plan, &result, &next);
                scope.spawn(move || run_device(dev, plan, p, want, tuning, next, result))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::Device("device thread panicked".into()))))
            .collect()
    });
    let mut seconds = 0.0;
    for o in outcomes {
        seconds += o?;
    }
    let counts = result.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok((counts, seconds, plan.describe(n)))
}

fn run_device(
    dev: &ClDevice,
    plan: &Plan,
    p: &Packed,
    want: Want,
    tuning: &Tuning,
    next: &AtomicUsize,
    result: &Mutex<Counts>,
) -> Result<f64> {
    let program = dev.program(&SOURCE, &defines(plan.variant, p, want, tuning))?;
    let name = if plan.variant == Variant::Charpacked { "distance_charpacked" } else { "distance_bitplane" };
    let kernel = cl("clCreateKernel", Kernel::create(&program, name))?;
    let words_per_sample = plan.chunk * Plan::bytes_per_word(plan.variant, p.planes()) / 4;
    let buf_len = plan.block * words_per_sample;
    let mut st = DeviceState {
        dev,
        kernel,
        rows: dev.buffer::<u32>(buf_len)?,
        cols: if plan.blocks > 1 { Some(dev.buffer::<u32>(buf_len)?) } else { None },
        outs: (0..plan.counters).map(|_| dev.buffer::<u32>(plan.block * plan.block)).collect::<Result<_>>()?,
        rows_hold: None,
        cols_hold: None,
        tile_lists: HashMap::new(),
        staging: Vec::new(),
    };
    let mut seconds = 0.0;
    let mut host = vec![0u32; plan.block * plan.block];
    loop {
        let u = next.fetch_add(1, Ordering::Relaxed);
        let Some(&unit) = plan.units.get(u) else { break };
        let (i0, i1) = plan.block_range(unit.bi, p.len());
        let (j0, j1) = plan.block_range(unit.bj, p.len());
        let (ni, nj) = (i1 - i0, j1 - j0);
        let mut events = Vec::new();
        {
            let queue = dev.queue();
            for b in &mut st.outs {
                // SAFETY: the pattern is one u32 and the size is within the buffer.
                unsafe {
                    cl("clEnqueueFillBuffer", queue.enqueue_fill_buffer(b, &[0u32], 0, ni * nj * 4, &[]))?;
                }
            }
            for c0 in (unit.w0..unit.w1).step_by(plan.chunk) {
                let c1 = (c0 + plan.chunk).min(unit.w1);
                upload(&mut st, plan, p, &queue, unit.bi, c0, c1, false)?;
                if unit.bi != unit.bj {
                    upload(&mut st, plan, p, &queue, unit.bj, c0, c1, true)?;
                }
                events.extend(launch_chunk(&mut st, plan, tuning, &queue, ni, nj, unit.bi == unit.bj, c1 - c0)?);
            }
            let mut parts = Vec::new();
            for b in &st.outs {
                dev.read(&queue, b, &mut host[..ni * nj])?;
                parts.push(host[..ni * nj].to_vec());
            }
            for e in &events {
                seconds += event_seconds(e)?;
            }
            // Add this unit's counters to the result.
            let mut guard = result.lock().unwrap_or_else(|e| e.into_inner());
            let n = p.len();
            let r = &mut *guard;
            let mut slots: Vec<&mut Vec<u32>> = vec![&mut r.differences];
            if let Some(c) = r.compared.as_mut() {
                slots.push(c);
            }
            if let Some(e) = r.opposite.as_mut() {
                slots.push(e);
            }
            for (slot, part) in slots.into_iter().zip(&parts) {
                for li in 0..ni {
                    let gi = i0 + li;
                    let from = if unit.bi == unit.bj { li + 1 } else { 0 };
                    for lj in from..nj {
                        let gj = j0 + lj;
                        if gi < gj {
                            slot[tri_index(n, gi, gj)] += part[li * nj + lj];
                        }
                    }
                }
            }
        }
    }
    Ok(seconds)
}

/// Puts block `b`'s sites `[c0, c1)` (32-bit words) in the rows or cols buffer, unless
/// they are there already.
#[allow(clippy::too_many_arguments)]
fn upload(
    st: &mut DeviceState,
    plan: &Plan,
    p: &Packed,
    queue: &opencl3::command_queue::CommandQueue,
    b: usize,
    c0: usize,
    c1: usize,
    to_cols: bool,
) -> Result<()> {
    let hold = if to_cols { st.cols_hold } else { st.rows_hold };
    if hold == Some((b, c0, c1)) {
        return Ok(());
    }
    let (s0, s1) = plan.block_range(b, p.len());
    let buffer = if to_cols { st.cols.as_mut().expect("cols buffer") } else { &mut st.rows };
    let width = c1 - c0;
    match plan.variant {
        Variant::Charpacked => {
            let per = width * SW; // bytes per sample
            st.staging.resize((s1 - s0) * per / 4, 0);
            // SAFETY: a u32 slice viewed as bytes.
            let bytes: &mut [u8] =
                unsafe { std::slice::from_raw_parts_mut(st.staging.as_mut_ptr() as *mut u8, st.staging.len() * 4) };
            bytes.par_chunks_mut(per).enumerate().for_each(|(k, out)| code_bytes(p, s0 + k, c0 * SW, c1 * SW, out));
            // SAFETY: blocking write from a live host slice within the buffer's size.
            unsafe {
                cl("clEnqueueWriteBuffer", queue.enqueue_write_buffer(buffer, CL_BLOCKING, 0, &st.staging, &[]))?
            };
        }
        _ => {
            let planes = p.planes();
            if c0 == 0 && c1 == plan.total {
                // Whole rows: straight from the packed rows, no staging.
                let mut enqueued = Ok(());
                for s in s0..s1 {
                    let row = as_u32(p.row(s));
                    let offset = (s - s0) * planes * width * 4;
                    // SAFETY: the rows live as long as `p`, which outlives the finish below.
                    enqueued =
                        unsafe { queue.enqueue_write_buffer(buffer, CL_NON_BLOCKING, offset, row, &[]) }.map(drop);
                    if enqueued.is_err() {
                        break;
                    }
                }
                // The writes enqueued so far read the rows until they complete: finish
                // before returning, a failed enqueue included, so no caller frees the rows
                // under them.
                let finished = cl("clFinish", queue.finish());
                cl("clEnqueueWriteBuffer", enqueued)?;
                finished?;
            } else {
                st.staging.resize((s1 - s0) * planes * width, 0);
                let total = plan.total;
                st.staging.par_chunks_mut(planes * width).enumerate().for_each(|(k, out)| {
                    let row = as_u32(p.row(s0 + k));
                    for q in 0..planes {
                        out[q * width..(q + 1) * width].copy_from_slice(&row[q * total + c0..q * total + c1]);
                    }
                });
                // SAFETY: blocking write from a live host slice within the buffer's size.
                unsafe {
                    cl("clEnqueueWriteBuffer", queue.enqueue_write_buffer(buffer, CL_BLOCKING, 0, &st.staging, &[]))?
                };
            }
        }
    }
    if to_cols {
        st.cols_hold = Some((b, c0, c1));
    } else {
        st.rows_hold = Some((b, c0, c1));
    }
    Ok(())
}

/// Launches the kernel over one chunk of `width` 32-bit words for an `ni x nj` block
/// pair, in launches of at most `tuning.launch_pair_words` pair-words.
#[allow(clippy::too_many_arguments)]
fn launch_chunk(
    st: &mut DeviceState,
    plan: &Plan,
    tuning: &Tuning,
    queue: &opencl3::command_queue::CommandQueue,
    ni: usize,
    nj: usize,
    diagonal: bool,
    width: usize,
) -> Result<Vec<opencl3::event::Event>> {
    let mut events = Vec::new();
    let cols = st.cols.as_ref().filter(|_| !diagonal).unwrap_or(&st.rows).get();
    let rows = st.rows.get();
    let out = |k: usize| st.outs.get(k).unwrap_or(&st.outs[0]).get();
    let (out_d, out_c, out_e) = (out(0), out(1), out(st.outs.len() - 1));
    // Counter buffers in kernel order: d, then c when counted, then e when counted.
    let (out_c, out_e) = match plan.counters {
        1 => (out_d, out_d),
        3 => (out_c, out_e),
        _ => (out_c, out_c), // one of the two is counted; the kernel writes only that one
    };
    match plan.variant {
        Variant::Charpacked => {
            let row_words = width * SW / 4; // uchar4 per sample
            let grid = (ni * nj) as u64;
            let per_launch = (tuning.launch_pair_words / (width as u64).max(1)).clamp(1, 1 << 24);
            let mut first = 0u64;
            while first < grid {
                let count = per_launch.min(grid - first);
                KernelArgs::new(&st.kernel)
                    .arg(&rows)?
                    .arg(&cols)?
                    .arg(&(ni as i32))?
                    .arg(&(nj as i32))?
                    .arg(&(row_words as i32))?
                    .arg(&(diagonal as i32))?
                    .arg(&(first as cl_long))?
                    .arg(&out_d)?
                    .arg(&out_c)?
                    .arg(&out_e)?;
                let local = tuning.cp_threads;
                events.push(launch(queue, &st.kernel, count as usize * local, local)?);
                first += count;
            }
        }
        _ => {
            let tile = tuning.tile();
            let (ti, tj) = (ni.div_ceil(tile), nj.div_ceil(tile));
            let key = (ti, tj, diagonal);
            if !st.tile_lists.contains_key(&key) {
                let list: Vec<u32> = (0..ti)
                    .flat_map(|a| (if diagonal { a } else { 0 }..tj).map(move |b| ((a as u32) << 16) | b as u32))
                    .collect();
                let len = list.len();
                st.tile_lists.insert(key, (st.dev.buffer_from(&list)?, len));
            }
            let (list, pairs) = &st.tile_lists[&key];
            let per_pair = (tile * tile) as u64;
            let words = (tuning.launch_pair_words / (per_pair * *pairs as u64)).max(1) as usize;
            let step = words.div_ceil(tuning.kw) * tuning.kw;
            // Enough work-groups to fill the device: with few tile pairs, several share
            // one, each over a slice of the words (at least 8 steps of KW each).
            let target = 4 * st.dev.info.compute_units.max(1) as usize;
            let max_split = (step.min(width) / tuning.kw / 8).max(1);
            let split = target.div_ceil(*pairs).clamp(1, max_split);
            let mut w = 0;
            while w < width {
                let hi = (w + step).min(width);
                KernelArgs::new(&st.kernel)
                    .arg(&rows)?
                    .arg(&cols)?
                    .arg(&(ni as i32))?
                    .arg(&(nj as i32))?
                    .arg(&(width as i32))?
                    .arg(&(w as i32))?
                    .arg(&(hi as i32))?
                    .arg(&list.get())?
                    .arg(&(*pairs as i32))?
                    .arg(&(split as i32))?
                    .arg(&out_d)?
                    .arg(&out_c)?
                    .arg(&out_e)?;
                let local = tuning.wg * tuning.wg;
                events.push(launch(queue, &st.kernel, pairs * split * local, local)?);
                w = hi;
            }
        }
    }
    Ok(events)
}

//! Host side of `cl/scan_intra.cl`: intra-task Smith-Waterman after Munekawa et al.,
//! one work-group per subject, its work-items along the anti-diagonal, each computing
//! a 4 x 4 tile of cells per step. Subjects of any length; queries longer than a
//! group's rows are processed in chunks joined by a boundary row in global memory.
//! Subjects whose narrow score saturates are recomputed with `WIDE=1`.
//! Kept for: the seed's intra-task design, benchmarked beside the inter-task kernels.

use super::outputs::ScoreOutputs;
use super::{PAD_SCORE, ScanOutput};
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, event_seconds, launch};
use crate::error::{Error, Result};
use crate::scoring::Scoring;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};

pub const SOURCE: KernelSource = KernelSource { name: "scan_intra.cl", text: include_str!("../../cl/scan_intra.cl") };

/// Rows and columns of one work-item's tile (fixed by the kernel's vector types).
const TILE: usize = 4;
/// Most work-items per group: up to `GROUP * TILE` query rows per chunk.
const GROUP: usize = 128;
/// Local memory the kernel may use, whatever the device offers (NVIDIA's limit).
const LOCAL_BYTES: u64 = 48 << 10;
/// Upper bound on the boundary-row buffer (one element per padded subject column).
const BOUNDARY_BYTES: u64 = 1 << 30;
/// Upper bound on the residues of one launch, which also keeps single launches short
/// (a longer subject goes alone).
const LAUNCH_RESIDUES: usize = 1 << 26;

/// Scores `query` against every subject on `dev`, in the caller's order; subjects
/// whose 16-bit score saturates are recomputed at 32 bits and counted in `recomputed`.
pub fn scores<S: AsRef<[u8]>>(dev: &ClDevice, query: &[u8], subjects: &[S], scoring: &Scoring) -> Result<ScanOutput> {
    scoring.require_local("the intra variant")?;
    let all: Vec<&[u8]> = subjects.iter().map(|s| s.as_ref()).collect();
    if !super::fits_16_bits(scoring) {
        return run(dev, query, &all, scoring, true);
    }
    let mut out = run(dev, query, &all, scoring, false)?;
    let saturated: Vec<usize> = (0..all.len()).filter(|&k| out.scores[k].score == super::SATURATED).collect();
    if !saturated.is_empty() {
        let subset: Vec<&[u8]> = saturated.iter().map(|&k| all[k]).collect();
        let wide = run(dev, query, &subset, scoring, true)?;
        for (&k, r) in saturated.iter().zip(wide.scores) {
            out.scores[k] = r;
        }
        out.kernel_seconds += wide.kernel_seconds;
        out.recomputed = saturated.len();
    }
    Ok(out)
}

/// One pass of the kernel over `subjects`, narrow (saturated subjects score
/// [`SATURATED`](super::SATURATED)) or wide.
fn run(dev: &ClDevice, query: &[u8], subjects: &[&[u8]], scoring: &Scoring, wide: bool) -> Result<ScanOutput> {
    let mut out = ScanOutput::empty(subjects.len());
    // Non-empty subjects, longest first so that the longest groups do not start last.
    let mut order: Vec<usize> = (0..subjects.len()).filter(|&k| !subjects[k].is_empty()).collect();
    if query.is_empty() || order.is_empty() {
        return Ok(out);
    }
    order.sort_by_key(|&k| (std::cmp::Reverse(subjects[k].len()), k));

    let program = dev.program(&SOURCE, &[("WIDE", (wide as u8).to_string())])?;
    let kernel = cl("clCreateKernel", Kernel::create(&program, "scan_intra"))?;
    let letters = scoring.matrix.size() + 1;
    let pad_code = scoring.matrix.size() as u8;

    // Work-items per group: as many strips of TILE rows as the query has, within the
    // device's limits and the local memory (profile + exchange + reduction per item).
    let (score_bytes, bound_bytes) = if wide { (4, 8) } else { (2, 4) };
    let per_item = letters * TILE * score_bytes + 2 * TILE * bound_bytes + 3 * 4;
    let local = dev.info.local_mem_bytes.min(LOCAL_BYTES) as usize;
    let kernel_max = cl("clGetKernelWorkGroupInfo", kernel.get_work_group_size(dev.info.id))?;
    let p_max = GROUP.min(dev.info.max_work_group_size).min(kernel_max).min(local / per_item).max(1);
    let strips = query.len().div_ceil(TILE);
    let chunks = strips.div_ceil(p_max);
    let group = strips.div_ceil(chunks);
    let quads = chunks * group;

    // profile[letter][quad][r] = S(q_{4 quad + r}, letter); padding rows and letter
    // score PAD_SCORE (their cells never reach the best).
    let mut profile = vec![PAD_SCORE as i32; letters * quads * TILE];
    for c in 0..letters - 1 {
        for (i, &q) in query.iter().enumerate() {
            profile[c * quads * TILE + i] = scoring.score_at(i, q, c as u8);
        }
    }
    // Narrow kernels read the profile as short4 (the matrix fits: fits_16_bits holds).
    let (d_wide, d_narrow): (Buffer<i32>, Buffer<i16>);
    let d_profile = if wide {
        d_wide = dev.buffer_from(&profile)?;
        d_wide.get()
    } else {
        d_narrow = dev.buffer_from(&super::narrow_scores(&profile)?)?;
        d_narrow.get()
    };

    // Launches: runs of `order` within the residue budget and, when the query takes
    // more than one chunk, the boundary-row budget (one element per padded column).
    let boundary_cap = (BOUNDARY_BYTES.min(dev.info.max_alloc_bytes / 2) / bound_bytes as u64) as usize;
    let limit = if chunks > 1 { LAUNCH_RESIDUES.min(boundary_cap) } else { LAUNCH_RESIDUES };
    let padded = |k: usize| subjects[k].len().div_ceil(TILE) * TILE;
    let mut launches: Vec<(usize, usize)> = Vec::new();
    let (mut start, mut columns) = (0, 0usize);
    for (pos, &k) in order.iter().enumerate() {
        if pos > start && columns + padded(k) > limit {
            launches.push((start, pos));
            (start, columns) = (pos, 0);
        }
        columns += padded(k);
    }
    launches.push((start, order.len()));
    let largest = launches.iter().map(|&(a, b)| order[a..b].iter().map(|&k| padded(k)).sum::<usize>()).max();
    let largest = largest.unwrap_or(1);
    if chunks > 1 && largest > boundary_cap {
        return Err(Error::InvalidArgument(format!(
            "a subject of {largest} residues: its boundary row does not fit one device buffer"
        )));
    }
    let d_boundary = dev.buffer::<u8>(if chunks > 1 { largest * bound_bytes } else { 1 })?;
    let count = order.len();
    let outputs = ScoreOutputs::new(dev, count)?;
    let sat_limit = if wide { i32::MAX } else { i16::MAX as i32 };

    let queue = dev.queue();
    let mut pending = Vec::new();
    for &(a, b) in &launches {
        // Subjects of this launch: 4 codes per word, the tail padded with pad_code.
        let mut residues: Vec<u32> = Vec::new();
        let mut word_offset = Vec::with_capacity(b - a);
        let mut lengths = Vec::with_capacity(b - a);
        for &k in &order[a..b] {
            let s = subjects[k];
            word_offset.push(residues.len() as u32);
            lengths.push(s.len() as u32);
            residues.extend(
                s.chunks(TILE)
                    .map(|c| (0..TILE).fold(0u32, |w, r| w | (*c.get(r).unwrap_or(&pad_code) as u32) << (8 * r))),
            );
        }
        let d_residues = dev.buffer_from(&residues)?;
        let d_offsets = dev.buffer_from(&word_offset)?;
        let d_lengths = dev.buffer_from(&lengths)?;
        let mut args = KernelArgs::new(&kernel);
        args.arg(&d_profile)?
            .arg(&(quads as i32))?
            .arg(&(letters as i32))?
            .arg(&d_residues.get())?
            .arg(&d_offsets.get())?
            .arg(&d_lengths.get())?
            .arg(&d_boundary.get())?
            .arg(&(a as i32))?
            .arg(&scoring.gaps.open)?
            .arg(&scoring.gaps.extend)?
            .arg(&sat_limit)?
            .local(letters * group * TILE * score_bytes)?
            .local(2 * TILE * group * bound_bytes)?
            .local(3 * group * 4)?;
        outputs.args(&mut args)?;
        let event = launch(&queue, &kernel, (b - a) * group, group)?;
        // Keep the launch's buffers alive until the queue has finished with them.
        pending.push((event, d_residues, d_offsets, d_lengths));
    }
    let scores = outputs.read(dev, &queue)?;
    for (event, ..) in &pending {
        out.kernel_seconds += event_seconds(event)?;
    }
    for (pos, &k) in order.iter().enumerate() {
        out.scores[k] = scores[pos];
    }
    Ok(out)
}

//! Host side of `cl/sw3.cl`: one triple on one device (`tile`, the fast path, and
//! `plane`, the seed's baseline), and batches of triples (`sw3_batch`).

use super::{Sw3Score, check_inputs};
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, launch};
use crate::error::{Error, Result};
use crate::reference::NEG_INF;
use crate::scoring::Scoring;
use opencl3::command_queue::CommandQueue;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};

pub const SOURCE: KernelSource = KernelSource { name: "sw3.cl", text: include_str!("../../cl/sw3.cl") };

/// Local memory a work-group may use whatever the device offers (NVIDIA's limit).
const LOCAL_LIMIT: u64 = 48 << 10;
/// Work-items of the reduction kernel.
const REDUCE_GROUP: usize = 256;
/// Work-items of the plane kernel's groups.
const PLANE_GROUP: usize = 128;
/// Largest scratch buffer of a batch launch.
const BATCH_SCRATCH_BYTES: u64 = 4 << 30;
/// Cells per batch launch (at least a few rounds of triples per group), so that single
/// launches stay in the seconds.
const BATCH_LAUNCH_CELLS: u64 = 1 << 39;

crate::error::named_enum! {
    /// The kernel variants for one triple.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Variant ("sw3 variant", "variants") {
        /// Wavefront over planes of tiles; strips in local memory, faces in global memory.
        Tile = "tile",
        /// One launch per diagonal plane of cells, one work-item per cell, values in global
        /// memory (Sudo et al.'s "GPUN", without sub-tables): the baseline.
        Plane = "plane",
    }
}

/// Tile shape of the `tile` and `batch` kernels (build options `TI`, `NS`, `TJ`, `TT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// Cells per work-item strip along the first sequence (even).
    pub ti: usize,
    /// Strips per work-group.
    pub ns: usize,
    /// Columns (positions of the second sequence) per work-group.
    pub tj: usize,
    /// Steps per tile (one launch of `tile` computes one tile per group).
    pub tt: usize,
    /// Work-groups of a batch launch (0: eight per compute unit).
    pub groups: usize,
}

impl Tuning {
    /// Linear gaps: 8-cell strips, 4 x 32 work-items, 32 steps (the fastest shape for
    /// n = 1,024 in a sweep on an H200: fewer launches than 16 steps; BENCHMARKS.md).
    pub const LINEAR: Tuning = Tuning { ti: 8, ns: 4, tj: 32, tt: 32, groups: 0 };
    /// Affine gaps (eight values per cell): 4-cell strips, 2 x 32 work-items, 8 steps.
    pub const AFFINE: Tuning = Tuning { ti: 4, ns: 2, tj: 32, tt: 8, groups: 0 };

    /// The default for a scoring scheme.
    pub fn default_for(scoring: &Scoring) -> Tuning {
        if scoring.gaps.open == 0 { Tuning::LINEAR } else { Tuning::AFFINE }
    }

    fn group(&self) -> usize {
        self.ns * self.tj
    }

    /// Ints of an extended strip: (TI + 1) cells of `nv` values.
    fn ew(&self, nv: usize) -> usize {
        (self.ti + 1) * nv
    }

    /// Bytes of local memory the tile kernels declare.
    pub fn local_bytes(&self, nv: usize, alpha: usize) -> usize {
        let ew = self.ew(nv);
        let xw = ew | 1;
        let ints = alpha * alpha
            + self.ns * alpha * self.ti / 2
            + 2 * self.ns * self.tj * xw
            + (self.tt + 1) * self.ns * ew
            + self.tt * nv * self.tj
            + 1;
        ints * 4 + self.tt + self.tj + self.ns
    }

    fn check(&self, dev: &ClDevice, nv: usize, alpha: usize) -> Result<()> {
        if self.ti < 2 || !self.ti.is_multiple_of(2) || self.ns == 0 || self.tj == 0 || self.tt == 0 {
            return Err(Error::InvalidArgument(format!(
                "sw3 tile shape {self:?}: TI must be even and at least 2, NS, TJ and TT positive"
            )));
        }
        if self.group() > dev.info.max_work_group_size {
            return Err(Error::InvalidArgument(format!(
                "sw3 tile shape {self:?}: {} work-items per group, the device allows {}",
                self.group(),
                dev.info.max_work_group_size
            )));
        }
        let local = self.local_bytes(nv, alpha);
        let limit = dev.info.local_mem_bytes.min(LOCAL_LIMIT) as usize;
        if local > limit {
            return Err(Error::InvalidArgument(format!(
                "sw3 tile shape {self:?} needs {local} bytes of local memory per group, the limit is {limit}"
            )));
        }
        Ok(())
    }

    fn defines(&self, nv: usize, alpha: usize) -> Vec<(&'static str, String)> {
        vec![
            ("NV", nv.to_string()),
            ("ALPHA", alpha.to_string()),
            ("TI", self.ti.to_string()),
            ("NS", self.ns.to_string()),
            ("TJ", self.tj.to_string()),
            ("TT", self.tt.to_string()),
        ]
    }
}

/// One triple's result on a device.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub score: Sw3Score,
    /// Device time from the first kernel's start to the last one's end (profiling
    /// events), gaps between launches included.
    pub kernel_seconds: f64,
    /// Kernel launches (planes of tiles, or of cells).
    pub launches: usize,
}

/// A batch's results on a device, in the order of the triples given.
#[derive(Debug, Clone)]
pub struct BatchRun {
    pub scores: Vec<Sw3Score>,
    pub kernel_seconds: f64,
}

fn values_per_cell(scoring: &Scoring) -> usize {
    if scoring.gaps.open == 0 { 1 } else { 8 }
}

fn check_alloc(dev: &ClDevice, what: &str, ints: usize) -> Result<()> {
    let bytes = ints as u64 * 4;
    if ints >= i32::MAX as usize {
        return Err(Error::InvalidArgument(format!("sw3: the {what} need more than 2 G values (inputs too long)")));
    }
    if bytes > dev.info.max_alloc_bytes {
        return Err(Error::InvalidArgument(format!(
            "sw3: the {what} need {:.1} MiB, more than one buffer of {} may hold ({:.1} MiB)",
            bytes as f64 / (1 << 20) as f64,
            dev.info.label(),
            dev.info.max_alloc_bytes as f64 / (1 << 20) as f64
        )));
    }
    Ok(())
}

/// Fills `count` ints of `buffer` with `value` (enqueued, not waited for).
fn fill(
    dev: &ClDevice,
    queue: &opencl3::command_queue::CommandQueue,
    fill: &Kernel,
    buffer: &Buffer<i32>,
    count: usize,
    value: i32,
) -> Result<Event> {
    let _ = dev;
    KernelArgs::new(fill).arg(&buffer.get())?.arg(&(count as u32))?.arg(&value)?;
    let groups = count.div_ceil(256).clamp(1, 4096);
    launch(queue, fill, groups * 256, 256)
}

/// Device time spanned by a list of finished events.
fn span_seconds(events: &[Event]) -> Result<f64> {
    let (mut first, mut last) = (u64::MAX, 0u64);
    for e in events {
        cl("clWaitForEvents", e.wait())?;
        first = first.min(cl("clGetEventProfilingInfo", e.profiling_command_start())?);
        last = last.max(cl("clGetEventProfilingInfo", e.profiling_command_end())?);
    }
    Ok(if last > first { (last - first) as f64 * 1e-9 } else { 0.0 })
}

fn to_score(out: &[i32]) -> Sw3Score {
    if out[0] > 0 {
        Sw3Score { score: out[0], end: Some([out[1] as usize, out[2] as usize, out[3] as usize]) }
    } else {
        Sw3Score::ZERO
    }
}

/// The last step of a one-triple run: `sw3_reduce` over per-pencil records (a buffer
/// and the offsets of its score, k and i sections; rows, row stride and columns), then
/// the best cell read back and the run's device time.
#[allow(clippy::too_many_arguments)]
fn reduce_run(
    dev: &ClDevice,
    queue: &CommandQueue,
    reduce: &Kernel,
    (records, off_score, off_k, off_i): (&Buffer<i32>, i32, i32, i32),
    [rows, stride, cols]: [usize; 3],
    d_out: &Buffer<i32>,
    mut events: Vec<Event>,
    launches: usize,
) -> Result<Run> {
    KernelArgs::new(reduce)
        .arg(&records.get())?
        .arg(&off_score)?
        .arg(&off_k)?
        .arg(&off_i)?
        .arg(&(rows as i32))?
        .arg(&(stride as i32))?
        .arg(&(cols as i32))?
        .arg(&d_out.get())?
        .local(4 * REDUCE_GROUP * 4)?;
    let rgroup = REDUCE_GROUP.min(dev.info.max_work_group_size);
    events.push(launch(queue, reduce, rgroup, rgroup)?);
    let mut out = [0i32; 4];
    dev.read(queue, d_out, &mut out)?;
    let kernel_seconds = span_seconds(&events)?;
    Ok(Run { score: to_score(&out), kernel_seconds, launches })
}

/// The best local score of three sequences (alphabet codes) and its end cell, on `dev`
/// with kernel `variant` (`tuning` shapes the `tile` kernel).
pub fn score_on(
    dev: &ClDevice,
    variant: Variant,
    a: &[u8],
    b: &[u8],
    c: &[u8],
    scoring: &Scoring,
    tuning: &Tuning,
) -> Result<Run> {
    check_inputs(&[a, b, c], &[[0, 1, 2]], scoring)?;
    match variant {
        Variant::Tile => score_tile(dev, a, b, c, scoring, tuning),
        Variant::Plane => score_plane(dev, a, b, c, scoring),
    }
}

/// The gap arguments of the kernels: 2e, o, 2o.
fn gap_args(scoring: &Scoring) -> [i32; 3] {
    [2 * scoring.gaps.extend, scoring.gaps.open, 2 * scoring.gaps.open]
}

/// One triple on the device: its three sequences and the scoring, the first arguments
/// of `sw3_tile` and `sw3_plane` (a, b, c, n1, n2, n3, matrix, 2e, o, 2o).
struct TripleArgs {
    seqs: [Buffer<u8>; 3],
    lens: [i32; 3],
    matrix: Buffer<i32>,
    gaps: [i32; 3],
}

impl TripleArgs {
    fn new(dev: &ClDevice, a: &[u8], b: &[u8], c: &[u8], scoring: &Scoring) -> Result<TripleArgs> {
        Ok(TripleArgs {
            seqs: [dev.buffer_from(a)?, dev.buffer_from(b)?, dev.buffer_from(c)?],
            lens: [a.len() as i32, b.len() as i32, c.len() as i32],
            matrix: dev.buffer_from(scoring.matrix.scores())?,
            gaps: gap_args(scoring),
        })
    }

    fn set<'a, 'k>(&self, args: &'a mut KernelArgs<'k>) -> Result<&'a mut KernelArgs<'k>> {
        for s in &self.seqs {
            args.arg(&s.get())?;
        }
        for n in &self.lens {
            args.arg(n)?;
        }
        args.arg(&self.matrix.get())?;
        for g in &self.gaps {
            args.arg(g)?;
        }
        Ok(args)
    }
}

fn score_tile(dev: &ClDevice, a: &[u8], b: &[u8], c: &[u8], scoring: &Scoring, t: &Tuning) -> Result<Run> {
    let nv = values_per_cell(scoring);
    let alpha = scoring.matrix.size();
    t.check(dev, nv, alpha)?;
    let (n1, n2, n3) = (a.len(), b.len(), c.len());
    let nstr = (n1 + 1).div_ceil(t.ti).div_ceil(t.ns) * t.ns;
    let n_ib = nstr / t.ns;
    let n_j = (n2 + 1).div_ceil(t.tj);
    let jp = n_j * t.tj;
    if n_ib >= 1 << 16 || n_j >= 1 << 16 {
        return Err(Error::InvalidArgument("sw3: sequences too long for the tile kernel's tile numbering".into()));
    }
    let ew = t.ew(nv);
    let iface_ints = 3 * (n3 + t.tj) * nv * jp;
    let jface_ints = 3 * (n3 + 1) * nstr * ew;
    let tface_ints = (2 * ew + 3) * nstr * jp;
    check_alloc(dev, "i faces", iface_ints)?;
    check_alloc(dev, "j faces", jface_ints)?;
    check_alloc(dev, "t faces", tface_ints)?;

    // Tiles with at least one cell of the table, grouped by plane IB + J + T.
    let mut planes: Vec<Vec<u32>> = Vec::new();
    for ib in 0..n_ib {
        for j in 0..n_j {
            let tlo = (j * t.tj + ib * t.ns) / t.tt;
            let thi = (n3 + j * t.tj + t.tj + ib * t.ns + t.ns - 2) / t.tt;
            for tt in tlo..=thi {
                let s = ib + j + tt;
                if planes.len() <= s {
                    planes.resize_with(s + 1, Vec::new);
                }
                planes[s].push(((ib as u32) << 16) | j as u32);
            }
        }
    }
    let mut tiles: Vec<u32> = Vec::new();
    let mut plane_at = Vec::with_capacity(planes.len());
    for p in &planes {
        plane_at.push((tiles.len(), p.len()));
        tiles.extend_from_slice(p);
    }

    let program = dev.program(&SOURCE, &t.defines(nv, alpha))?;
    let kernel = cl("clCreateKernel", Kernel::create(&program, "sw3_tile"))?;
    let fill_k = cl("clCreateKernel", Kernel::create(&program, "sw3_fill"))?;
    let reduce = cl("clCreateKernel", Kernel::create(&program, "sw3_reduce"))?;
    let triple = TripleArgs::new(dev, a, b, c, scoring)?;
    let d_tiles = dev.buffer_from(&tiles)?;
    let d_iface = dev.buffer::<i32>(iface_ints)?;
    let d_jface = dev.buffer::<i32>(jface_ints)?;
    let d_tface = dev.buffer::<i32>(tface_ints)?;
    let d_out = dev.buffer::<i32>(4)?;

    let queue = dev.queue();
    let mut events = Vec::with_capacity(planes.len() + 4);
    events.push(fill(dev, &queue, &fill_k, &d_iface, iface_ints, NEG_INF)?);
    events.push(fill(dev, &queue, &fill_k, &d_jface, jface_ints, NEG_INF)?);
    events.push(fill(dev, &queue, &fill_k, &d_tface, tface_ints, NEG_INF)?);
    triple
        .set(&mut KernelArgs::new(&kernel))?
        .arg(&d_iface.get())?
        .arg(&d_jface.get())?
        .arg(&d_tface.get())?
        .arg(&(nstr as i32))?
        .arg(&(jp as i32))?
        .arg(&d_tiles.get())?
        .arg(&0i32)?
        .arg(&0i32)?;
    let group = t.group();
    let mut launches = 0;
    for (s, &(at, count)) in plane_at.iter().enumerate() {
        if count == 0 {
            continue;
        }
        // SAFETY: arguments 16 and 17 are ints; the buffers set above outlive the queue's work.
        unsafe {
            cl("clSetKernelArg", kernel.set_arg(16, &(at as i32)))?;
            cl("clSetKernelArg", kernel.set_arg(17, &(s as i32)))?;
        }
        events.push(launch(&queue, &kernel, count * group, group)?);
        launches += 1;
    }
    let f = 2 * ew;
    let plane = nstr * jp;
    let records = (&d_tface, (f * plane) as i32, ((f + 1) * plane) as i32, ((f + 2) * plane) as i32);
    reduce_run(dev, &queue, &reduce, records, [nstr, jp, n2 + 1], &d_out, events, launches)
}

fn score_plane(dev: &ClDevice, a: &[u8], b: &[u8], c: &[u8], scoring: &Scoring) -> Result<Run> {
    let nv = values_per_cell(scoring);
    let alpha = scoring.matrix.size();
    let (n1, n2, n3) = (a.len(), b.len(), c.len());
    let p = (n1 + 1) * (n2 + 1);
    let buf_ints = 4 * p * nv;
    check_alloc(dev, "planes", buf_ints)?;
    let defines = Tuning::LINEAR.defines(nv, alpha);
    let program = dev.program(&SOURCE, &defines)?;
    let kernel = cl("clCreateKernel", Kernel::create(&program, "sw3_plane"))?;
    let fill_k = cl("clCreateKernel", Kernel::create(&program, "sw3_fill"))?;
    let reduce = cl("clCreateKernel", Kernel::create(&program, "sw3_reduce"))?;
    let triple = TripleArgs::new(dev, a, b, c, scoring)?;
    let d_buf = dev.buffer::<i32>(buf_ints)?;
    let d_best = dev.buffer::<i32>(3 * p)?;
    let d_out = dev.buffer::<i32>(4)?;
    let queue = dev.queue();
    let mut events = vec![
        fill(dev, &queue, &fill_k, &d_buf, buf_ints, NEG_INF)?,
        fill(dev, &queue, &fill_k, &d_best, 3 * p, NEG_INF)?,
    ];
    triple
        .set(&mut KernelArgs::new(&kernel))?
        .arg(&d_buf.get())?
        .arg(&d_best.get())?
        .arg(&0i32)?
        .arg(&0i32)?
        .arg(&0i32)?
        .arg(&0i32)?
        .arg(&0i32)?;
    let mut launches = 0;
    for t in 0..=(n1 + n2 + n3) {
        let i_lo = t.saturating_sub(n2 + n3);
        let i_hi = t.min(n1);
        let j_lo = t.saturating_sub(n1 + n3);
        let j_hi = t.min(n2);
        let (ni, nj) = (i_hi + 1 - i_lo, j_hi + 1 - j_lo);
        let count = ni * nj;
        // SAFETY: arguments 12..16 are ints.
        unsafe {
            cl("clSetKernelArg", kernel.set_arg(12, &(t as i32)))?;
            cl("clSetKernelArg", kernel.set_arg(13, &(i_lo as i32)))?;
            cl("clSetKernelArg", kernel.set_arg(14, &(j_lo as i32)))?;
            cl("clSetKernelArg", kernel.set_arg(15, &(nj as i32)))?;
            cl("clSetKernelArg", kernel.set_arg(16, &(count as i32)))?;
        }
        events.push(launch(&queue, &kernel, count.div_ceil(PLANE_GROUP) * PLANE_GROUP, PLANE_GROUP)?);
        launches += 1;
    }
    reduce_run(
        dev,
        &queue,
        &reduce,
        (&d_best, 0, p as i32, (2 * p) as i32),
        [n1 + 1, n2 + 1, n2 + 1],
        &d_out,
        events,
        launches,
    )
}

/// Scores many triples of `seqs` (alphabet codes) on `dev`: `triples[t]` names the
/// sequences (indices into `seqs`) in the roles a, b, c. One work-group per triple at
/// a time, the groups taking triples longest first from a shared counter.
pub fn batch_on(
    dev: &ClDevice,
    seqs: &[&[u8]],
    triples: &[[u32; 3]],
    scoring: &Scoring,
    tuning: &Tuning,
) -> Result<BatchRun> {
    check_inputs(seqs, triples, scoring)?;
    if triples.is_empty() {
        return Ok(BatchRun { scores: Vec::new(), kernel_seconds: 0.0 });
    }
    let nv = values_per_cell(scoring);
    let alpha = scoring.matrix.size();
    tuning.check(dev, nv, alpha)?;
    let ew = tuning.ew(nv);
    let len = |t: &[u32; 3], r: usize| seqs[t[r] as usize].len();
    let cells = |t: &[u32; 3]| ((len(t, 0) + 1) * (len(t, 1) + 1) * (len(t, 2) + 1)) as u64;
    // Longest first: the last triples to start are the short ones.
    let mut order: Vec<usize> = (0..triples.len()).collect();
    order.sort_by_key(|&t| (std::cmp::Reverse(cells(&triples[t])), t));

    let mut codes: Vec<u8> = Vec::new();
    let mut offsets = Vec::with_capacity(seqs.len());
    let mut lengths = Vec::with_capacity(seqs.len());
    for s in seqs {
        offsets.push(codes.len() as u32);
        lengths.push(s.len() as u32);
        codes.extend_from_slice(s);
    }
    if codes.len() as u64 >= 1 << 32 {
        return Err(Error::InvalidArgument("sw3 batch: more than 4 G residues".into()));
    }
    let (mut islot, mut jslot) = (0usize, 0usize);
    for t in triples {
        let jp = (len(t, 1) + 1).div_ceil(tuning.tj) * tuning.tj;
        islot = islot.max((len(t, 2) + tuning.tj) * nv * jp);
        jslot = jslot.max((len(t, 2) + 1) * tuning.ns * ew);
    }
    let slot_ints = 2 * islot + 2 * jslot;
    let wanted = if tuning.groups > 0 { tuning.groups } else { dev.info.compute_units.max(1) as usize * 8 };
    let by_memory = (BATCH_SCRATCH_BYTES.min(dev.info.max_alloc_bytes) / (slot_ints as u64 * 4)).max(1) as usize;
    let groups = wanted.min(by_memory).min(triples.len()).max(1);
    check_alloc(dev, "batch scratch faces", groups * slot_ints)?;

    let program = dev.program(&SOURCE, &tuning.defines(nv, alpha))?;
    let kernel = cl("clCreateKernel", Kernel::create(&program, "sw3_batch"))?;
    let fill_k = cl("clCreateKernel", Kernel::create(&program, "sw3_fill"))?;
    let d_codes = dev.buffer_from(&codes)?;
    let d_offsets = dev.buffer_from(&offsets)?;
    let d_lengths = dev.buffer_from(&lengths)?;
    let d_matrix = dev.buffer_from(scoring.matrix.scores())?;
    let d_scratch = dev.buffer::<i32>(groups * slot_ints)?;
    let d_counter = dev.buffer::<i32>(1)?;
    let [g2, go, go2] = gap_args(scoring);

    // Launches of consecutive runs of `order`, each within the cell budget but with at
    // least a few triples per group.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let (mut start, mut acc) = (0, 0u64);
    for (pos, &t) in order.iter().enumerate() {
        if pos > start && acc + cells(&triples[t]) > BATCH_LAUNCH_CELLS && pos - start >= 4 * groups {
            runs.push((start, pos));
            (start, acc) = (pos, 0);
        }
        acc += cells(&triples[t]);
    }
    runs.push((start, order.len()));

    let queue = dev.queue();
    let mut events = Vec::new();
    let mut pending = Vec::new();
    let mut results = vec![0i32; 4 * triples.len()];
    let mut outs = Vec::new();
    for &(lo, hi) in &runs {
        let list: Vec<u32> = order[lo..hi].iter().flat_map(|&t| triples[t]).collect();
        let d_list = dev.buffer_from(&list)?;
        let d_out = dev.buffer::<i32>(4 * (hi - lo))?;
        events.push(fill(dev, &queue, &fill_k, &d_counter, 1, 0)?);
        KernelArgs::new(&kernel)
            .arg(&d_codes.get())?
            .arg(&d_offsets.get())?
            .arg(&d_lengths.get())?
            .arg(&d_list.get())?
            .arg(&((hi - lo) as i32))?
            .arg(&d_counter.get())?
            .arg(&d_matrix.get())?
            .arg(&g2)?
            .arg(&go)?
            .arg(&go2)?
            .arg(&d_scratch.get())?
            .arg(&(slot_ints as i32))?
            .arg(&((2 * islot) as i32))?
            .arg(&d_out.get())?;
        let g = groups.min(hi - lo);
        events.push(launch(&queue, &kernel, g * tuning.group(), tuning.group())?);
        pending.push(d_list);
        outs.push((lo, hi, d_out));
    }
    for (lo, hi, d_out) in &outs {
        let mut out = vec![0i32; 4 * (hi - lo)];
        dev.read(&queue, d_out, &mut out)?;
        for (pos, chunk) in out.chunks(4).enumerate() {
            let t = order[lo + pos];
            results[4 * t..4 * t + 4].copy_from_slice(chunk);
        }
    }
    let kernel_seconds = span_seconds(&events)?;
    drop(pending);
    let scores = results.chunks(4).map(to_score).collect();
    Ok(BatchRun { scores, kernel_seconds })
}

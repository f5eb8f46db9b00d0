//! Host side of `cl/scan_plain.cl`: the readable inter-task score kernel.
//! Kept for: the device self-test and as the readable twin of the fast kernels.

use super::PackedSubjects;
use super::outputs::ScoreOutputs;
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, event_seconds, launch};
use crate::error::Result;
use crate::reference::LocalScore;
use crate::scoring::Scoring;
use opencl3::kernel::Kernel;
use opencl3::memory::ClMem;

pub const SOURCE: KernelSource = KernelSource { name: "scan_plain.cl", text: include_str!("../../cl/scan_plain.cl") };

/// Work-items per work-group.
const GROUP: usize = 64;
/// Upper bound on each of the two scratch buffers (H and E columns).
const SCRATCH_BYTES: u64 = 256 << 20;

/// Scores `query` against every subject on `dev`, in subject order; also returns the
/// kernel seconds.
pub fn scores(
    dev: &ClDevice,
    query: &[u8],
    subjects: &PackedSubjects,
    scoring: &Scoring,
) -> Result<(Vec<LocalScore>, f64)> {
    scoring.require_local("the plain variant")?;
    let count = subjects.len();
    if count == 0 || query.is_empty() {
        return Ok((vec![LocalScore { score: 0, end: None }; count], 0.0));
    }
    let program = dev.program(&SOURCE, &[])?;
    let kernel = cl("clCreateKernel", Kernel::create(&program, "scan_plain"))?;
    let m = query.len();
    let alpha = scoring.matrix.size();
    let cells = crate::memory::count("the plain kernel's query rows", &[m, alpha])?;
    let mut table = crate::memory::vec_with_capacity("the plain kernel's query rows", cells)?;
    for (i, &q) in query.iter().enumerate() {
        table.extend_from_slice(scoring.row_at(i, q));
    }

    // Launch width: as many subjects as the scratch budget allows, in whole groups.
    let budget = SCRATCH_BYTES.min(dev.info.max_alloc_bytes.max(1 << 20)) as usize;
    let per_item = m * std::mem::size_of::<i32>();
    let stride_cap = ((budget / per_item) / GROUP).max(1) * GROUP;
    let stride = stride_cap.min(count.div_ceil(GROUP) * GROUP);

    let d_residues = dev.buffer_from(&subjects.residues)?;
    let d_offsets = dev.buffer_from(&subjects.offsets)?;
    let d_lengths = dev.buffer_from(&subjects.lengths)?;
    let d_rows = dev.buffer_from(&table)?;
    let d_h = dev.buffer::<i32>(m * stride)?;
    let d_e = dev.buffer::<i32>(m * stride)?;
    let outputs = ScoreOutputs::new(dev, count)?;

    let queue = dev.queue();
    let mut events = Vec::new();
    for first in (0..count).step_by(stride) {
        let n = stride.min(count - first);
        let mut args = KernelArgs::new(&kernel);
        args.arg(&(m as i32))?
            .arg(&d_residues.get())?
            .arg(&d_offsets.get())?
            .arg(&d_lengths.get())?
            .arg(&(first as i32))?
            .arg(&(n as i32))?
            .arg(&d_rows.get())?
            .arg(&(alpha as i32))?
            .arg(&scoring.gaps.open)?
            .arg(&scoring.gaps.extend)?
            .arg(&d_h.get())?
            .arg(&d_e.get())?
            .arg(&(stride as i32))?;
        outputs.args(&mut args)?;
        events.push(launch(&queue, &kernel, n.div_ceil(GROUP) * GROUP, GROUP)?);
    }
    let scores = outputs.read(dev, &queue)?;
    let mut seconds = 0.0;
    for e in &events {
        seconds += event_seconds(e)?;
    }
    Ok((scores, seconds))
}

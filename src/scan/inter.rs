//! Host side of `cl/scan_inter.cl`: one work-item per subject, query bands in
//! registers (Ligowski & Rudnicki), 16-bit boundary rows with a 32-bit recompute of
//! saturated subjects.

use super::layout::GroupLayout;
use super::{ScanOutput, query_profile};
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, event_seconds, launch};
use crate::error::Result;
use crate::reference::LocalScore;
use crate::scoring::Scoring;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};

pub const SOURCE: KernelSource = KernelSource { name: "scan_inter.cl", text: include_str!("../../cl/scan_inter.cl") };

/// Query rows per band (registers per work-item grow with it).
const BAND: usize = 16;
/// Work-items per work-group, i.e. subjects per group.
const GROUP: usize = 64;
/// Upper bound on the boundary-row buffer of one launch.
const BOUNDARY_BYTES: u64 = 512 << 20;

/// A database laid out and resident on one device for the `inter` kernel.
pub struct InterScanner<'d> {
    dev: &'d ClDevice,
    layout: GroupLayout,
    subjects: usize,
    d_words: Buffer<u32>,
    d_group_word: Buffer<u32>,
    d_lengths: Buffer<u32>,
    d_group_cell: Buffer<u64>,
    /// Kept for recomputing saturated subjects at 32 bits.
    host_subjects: Vec<Vec<u8>>,
}

impl<'d> InterScanner<'d> {
    /// Lays out `subjects` (alphabet codes, any alphabet up to 255 letters) and uploads them.
    pub fn new<S: AsRef<[u8]>>(dev: &'d ClDevice, subjects: &[S], pad_code: u8) -> Result<InterScanner<'d>> {
        let layout = GroupLayout::new(subjects, GROUP, 1, pad_code)?;
        Ok(InterScanner {
            dev,
            d_words: dev.buffer_from(&layout.words)?,
            d_group_word: dev.buffer_from(&layout.group_word)?,
            d_lengths: dev.buffer_from(&layout.lengths)?,
            d_group_cell: dev.buffer_from(&layout.group_cell)?,
            subjects: subjects.len(),
            layout,
            host_subjects: subjects.iter().map(|s| s.as_ref().to_vec()).collect(),
        })
    }

    /// Every subject's score and end; saturated subjects are recomputed at 32 bits.
    pub fn scan(&self, query: &[u8], scoring: &Scoring) -> Result<ScanOutput> {
        let wide_only = !super::fits_16_bits(scoring);
        let mut out = self.run(query, scoring, wide_only)?;
        let saturated: Vec<usize> = (0..self.subjects).filter(|&k| out.scores[k].score < 0).collect();
        if !saturated.is_empty() {
            let subset: Vec<&[u8]> = saturated.iter().map(|&k| self.host_subjects[k].as_slice()).collect();
            let wide = InterScanner::new(self.dev, &subset, scoring.matrix.size() as u8)?.run(query, scoring, true)?;
            for (&k, r) in saturated.iter().zip(wide.scores) {
                out.scores[k] = r;
            }
            out.kernel_seconds += wide.kernel_seconds;
            out.recomputed = saturated.len();
        }
        Ok(out)
    }

    fn run(&self, query: &[u8], scoring: &Scoring, wide: bool) -> Result<ScanOutput> {
        let mut out = ScanOutput::empty(self.subjects);
        if query.is_empty() || self.subjects == 0 {
            return Ok(out);
        }
        let dev = self.dev;
        let (profile, m_pad, letters) = query_profile(query, scoring, BAND);
        let program = dev.program(&SOURCE, &[("BAND", BAND.to_string()), ("WIDE", (wide as u8).to_string())])?;
        let kernel = cl("clCreateKernel", Kernel::create(&program, "scan_inter"))?;
        let d_profile = dev.buffer_from(&profile)?;
        let slots = self.layout.subject_of.len();
        let d_score = dev.buffer::<i32>(slots)?;
        let d_qend = dev.buffer::<i32>(slots)?;
        let d_send = dev.buffer::<i32>(slots)?;
        let elem = if wide { 8 } else { 4 };
        let budget = BOUNDARY_BYTES.min(dev.info.max_alloc_bytes / 2) / elem;
        let launches = self.layout.launches(budget);
        let largest = launches.iter().map(|&(a, b)| self.layout.cells(a, b)).max().unwrap_or(1);
        let d_boundary = dev.buffer::<u8>((largest * elem) as usize)?;

        let queue = dev.queue();
        let mut events = Vec::new();
        for &(a, b) in &launches {
            KernelArgs::new(&kernel)
                .arg(&d_profile.get())?
                .arg(&(m_pad as i32))?
                .arg(&(letters as i32))?
                .arg(&self.d_words.get())?
                .arg(&self.d_group_word.get())?
                .arg(&self.d_lengths.get())?
                .arg(&d_boundary.get())?
                .arg(&self.d_group_cell.get())?
                .arg(&self.layout.group_cell[a])?
                .arg(&(a as i32))?
                .arg(&scoring.gaps.open)?
                .arg(&scoring.gaps.extend)?
                .local(letters * BAND * 2)?
                .arg(&d_score.get())?
                .arg(&d_qend.get())?
                .arg(&d_send.get())?;
            events.push(launch(&queue, &kernel, (b - a) * GROUP, GROUP)?);
        }
        let mut score = vec![0i32; slots];
        let mut qend = vec![0i32; slots];
        let mut send = vec![0i32; slots];
        dev.read(&queue, &d_score, &mut score)?;
        dev.read(&queue, &d_qend, &mut qend)?;
        dev.read(&queue, &d_send, &mut send)?;
        for e in &events {
            out.kernel_seconds += event_seconds(e)?;
        }
        for (slot, &k) in self.layout.subject_of.iter().enumerate() {
            if k != u32::MAX && self.layout.lengths[slot] > 0 {
                out.scores[k as usize] = LocalScore {
                    score: score[slot],
                    end: (score[slot] > 0).then(|| (qend[slot] as usize, send[slot] as usize)),
                };
            }
        }
        Ok(out)
    }
}

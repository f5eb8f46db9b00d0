//! Host side of the banded inter-task kernels, `cl/scan_inter.cl` (one subject per
//! work-item, Ligowski & Rudnicki) and `cl/scan_fast.cl` (two subjects per work-item in
//! packed 16-bit lanes, DPX on NVIDIA). Both take the same arguments: a query profile
//! cut into bands, the [`GroupLayout`] of the subjects, and a boundary row in global
//! memory. Subjects whose narrow score saturates are recomputed with `scan_inter` at
//! 32 bits (`WIDE=1`).

use super::layout::GroupLayout;
use super::{PAD_SCORE, ScanOutput};
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, event_seconds, launch};
use crate::error::Result;
use crate::reference::LocalScore;
use crate::scoring::Scoring;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};

pub const INTER_SOURCE: KernelSource =
    KernelSource { name: "scan_inter.cl", text: include_str!("../../cl/scan_inter.cl") };
pub const FAST_SOURCE: KernelSource =
    KernelSource { name: "scan_fast.cl", text: include_str!("../../cl/scan_fast.cl") };

/// Which banded kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Banded {
    /// `scan_inter`, 16-bit boundary rows.
    Inter,
    /// `scan_inter` with `WIDE=1`: 32 bits throughout, for saturated subjects.
    InterWide,
    /// `scan_fast`: two subjects per work-item.
    Fast,
}

impl Banded {
    fn lanes(self) -> usize {
        if self == Banded::Fast { 2 } else { 1 }
    }
}

/// Tuning of one banded kernel: query rows per band and work-items per group.
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    pub band: usize,
    pub group: usize,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning { band: 16, group: 64 }
    }
}

/// Upper bound on the boundary-row buffer of one launch.
const BOUNDARY_BYTES: u64 = 1 << 30;

/// A set of subjects laid out and resident on one device for a banded kernel.
pub struct BandedScanner<'d> {
    dev: &'d ClDevice,
    kind: Banded,
    tuning: Tuning,
    layout: GroupLayout,
    subjects: usize,
    d_words: Buffer<u32>,
    d_group_word: Buffer<u32>,
    d_lengths: Buffer<u32>,
    d_group_cell: Buffer<u64>,
    /// Kept for recomputing saturated subjects at 32 bits.
    host_subjects: Vec<Vec<u8>>,
}

impl<'d> BandedScanner<'d> {
    /// Lays out `subjects` (alphabet codes) and uploads them; `pad_code` is the
    /// alphabet size (the profile's padding letter).
    pub fn new<S: AsRef<[u8]>>(
        dev: &'d ClDevice,
        kind: Banded,
        tuning: Tuning,
        subjects: &[S],
        pad_code: u8,
    ) -> Result<BandedScanner<'d>> {
        let layout = GroupLayout::new(subjects, tuning.group, kind.lanes(), pad_code)?;
        Ok(BandedScanner {
            dev,
            kind,
            tuning,
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
        if !super::fits_16_bits(scoring) && self.kind != Banded::InterWide {
            let all: Vec<&[u8]> = self.host_subjects.iter().map(Vec::as_slice).collect();
            let wide = BandedScanner::new(self.dev, Banded::InterWide, self.tuning, &all, self.pad_code(scoring))?;
            return wide.scan(query, scoring);
        }
        let mut out = self.run(query, scoring)?;
        let saturated: Vec<usize> = (0..self.subjects).filter(|&k| out.scores[k].score < 0).collect();
        if !saturated.is_empty() {
            let subset: Vec<&[u8]> = saturated.iter().map(|&k| self.host_subjects[k].as_slice()).collect();
            let wide = BandedScanner::new(self.dev, Banded::InterWide, self.tuning, &subset, self.pad_code(scoring))?
                .run(query, scoring)?;
            for (&k, r) in saturated.iter().zip(wide.scores) {
                out.scores[k] = r;
            }
            out.kernel_seconds += wide.kernel_seconds;
            out.recomputed = saturated.len();
        }
        Ok(out)
    }

    fn pad_code(&self, scoring: &Scoring) -> u8 {
        scoring.matrix.size() as u8
    }

    /// The value above which a narrow score may be wrong.
    fn sat_limit(&self, scoring: &Scoring) -> i32 {
        match self.kind {
            Banded::InterWide => i32::MAX,
            // Only the 16-bit boundary row limits scan_inter; its arithmetic is 32-bit.
            Banded::Inter => i16::MAX as i32,
            // A true 16-bit lane can wrap once a cell passes 32767 - max(S).
            Banded::Fast => i16::MAX as i32 - scoring.matrix.max_score().max(0),
        }
    }

    fn run(&self, query: &[u8], scoring: &Scoring) -> Result<ScanOutput> {
        let mut out = ScanOutput::empty(self.subjects);
        if query.is_empty() || self.subjects == 0 {
            return Ok(out);
        }
        let dev = self.dev;
        let Tuning { band, group } = self.tuning;
        let m_pad = query.len().div_ceil(band) * band;
        let letters = scoring.matrix.size() + 1;
        // profile[c * m_pad + i] = S(q_i, c); the padding letter and rows score PAD_SCORE.
        let mut profile = vec![PAD_SCORE; letters * m_pad];
        for c in 0..letters - 1 {
            for (i, &q) in query.iter().enumerate() {
                profile[c * m_pad + i] = scoring.matrix.score(q, c as u8) as i16;
            }
        }
        let (source, name, wide) = match self.kind {
            Banded::Inter => (&INTER_SOURCE, "scan_inter", 0),
            Banded::InterWide => (&INTER_SOURCE, "scan_inter", 1),
            Banded::Fast => (&FAST_SOURCE, "scan_fast", 0),
        };
        let program = dev.program(source, &[("BAND", band.to_string()), ("WIDE", wide.to_string())])?;
        let kernel = cl("clCreateKernel", Kernel::create(&program, name))?;
        let d_profile = dev.buffer_from(&profile)?;
        let outputs = self.layout.subject_of.len();
        let d_score = dev.buffer::<i32>(outputs)?;
        let d_qend = dev.buffer::<i32>(outputs)?;
        let d_send = dev.buffer::<i32>(outputs)?;
        let elem = if self.kind == Banded::Inter { 4 } else { 8 };
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
                .arg(&self.sat_limit(scoring))?
                .local(letters * (band + 2) * 2)?
                .arg(&d_score.get())?
                .arg(&d_qend.get())?
                .arg(&d_send.get())?;
            events.push(launch(&queue, &kernel, (b - a) * group, group)?);
        }
        let mut score = vec![0i32; outputs];
        let mut qend = vec![0i32; outputs];
        let mut send = vec![0i32; outputs];
        dev.read(&queue, &d_score, &mut score)?;
        dev.read(&queue, &d_qend, &mut qend)?;
        dev.read(&queue, &d_send, &mut send)?;
        for e in &events {
            out.kernel_seconds += event_seconds(e)?;
        }
        for (p, &k) in self.layout.subject_of.iter().enumerate() {
            if k != u32::MAX && self.layout.lengths[p] > 0 {
                out.scores[k as usize] =
                    LocalScore { score: score[p], end: (score[p] > 0).then(|| (qend[p] as usize, send[p] as usize)) };
            }
        }
        Ok(out)
    }
}

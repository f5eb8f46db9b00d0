//! Host side of the banded inter-task kernels, `cl/scan_inter.cl` (one subject per
//! work-item, Ligowski & Rudnicki) and `cl/scan_fast.cl` (two subjects per work-item in
//! packed 16-bit lanes, DPX on NVIDIA). Both take the same arguments: a query profile
//! cut into bands, the [`GroupLayout`] of the subjects, and a boundary row in global
//! memory. Subjects whose narrow score saturates are recomputed with `scan_inter` at
//! 32 bits (`WIDE=1`).

use super::layout::GroupLayout;
use super::outputs::ScoreOutputs;
use super::{PAD_SCORE, ScanOutput};
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, event_seconds, launch};
use crate::error::Result;
use crate::reference::LocalScore;
use crate::scoring::Scoring;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use rayon::prelude::*;

pub const INTER_SOURCE: KernelSource =
    KernelSource { name: "scan_inter.cl", text: include_str!("../../cl/scan_inter.cl") };
pub const FAST_SOURCE: KernelSource =
    KernelSource { name: "scan_fast.cl", text: include_str!("../../cl/scan_fast.cl") };
pub const TEAM_SOURCE: KernelSource =
    KernelSource { name: "scan_team.cl", text: include_str!("../../cl/scan_team.cl") };

/// Which banded kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Banded {
    /// `scan_inter`, 16-bit boundary rows.
    Inter,
    /// `scan_inter` with `WIDE=1`: 32 bits throughout, for saturated subjects.
    InterWide,
    /// `scan_fast`: two subjects per work-item.
    Fast,
    /// `scan_team`: two subjects per team of `Tuning::team` work-items.
    Team,
}

impl Banded {
    /// Subjects per work-item (16-bit lanes of `scan_fast`).
    pub fn lanes(self) -> usize {
        if matches!(self, Banded::Fast | Banded::Team) { 2 } else { 1 }
    }

    /// Bytes of one boundary-row element: (H, F) as 16-bit halves, or as two 32-bit
    /// values (`InterWide`), or as two packed pairs (`Fast`).
    pub fn boundary_bytes(self) -> u64 {
        if self == Banded::Inter { 4 } else { 8 }
    }

    /// Bytes of one score in the query profile: 32-bit for `InterWide`, else 16-bit.
    pub fn score_bytes(self) -> usize {
        if self == Banded::InterWide { 4 } else { 2 }
    }

    /// The kernel of the one-subject-per-slot layout (`scan_fast_long` is the other).
    pub fn kernel_name(self) -> &'static str {
        match self {
            Banded::Fast => "scan_fast",
            Banded::Team => "scan_team",
            Banded::Inter | Banded::InterWide => "scan_inter",
        }
    }

    /// The value above which a narrow score may be wrong (the kernels report -1 there).
    pub fn sat_limit(self, scoring: &Scoring) -> i32 {
        match self {
            Banded::InterWide => i32::MAX,
            // Only the 16-bit boundary row limits scan_inter; its arithmetic is 32-bit.
            Banded::Inter => i16::MAX as i32,
            // A true 16-bit lane can wrap once a cell passes 32767 - max(S).
            Banded::Fast | Banded::Team => i16::MAX as i32 - scoring.matrix.max_score().max(0),
        }
    }

    /// The built program for this kernel and tuning (cached per device); `ends`: with
    /// end cells (`scan_team` can leave them out).
    pub fn program(
        self,
        dev: &ClDevice,
        tuning: &Tuning,
        ends: bool,
    ) -> Result<std::sync::Arc<opencl3::program::Program>> {
        let (source, wide) = match self {
            Banded::Inter => (&INTER_SOURCE, 0),
            Banded::InterWide => (&INTER_SOURCE, 1),
            Banded::Fast => (&FAST_SOURCE, 0),
            Banded::Team => {
                let defines = [
                    ("TEAM", tuning.team.to_string()),
                    ("ROWS", tuning.rows.to_string()),
                    ("ENDS", (ends as u8).to_string()),
                ];
                return dev.program(&TEAM_SOURCE, &defines);
            }
        };
        let defines =
            [("BAND", tuning.band.to_string()), ("WIDE", wide.to_string()), ("TILE", tuning.tile.to_string())];
        dev.program(source, &defines)
    }
}

/// The query profile of the banded kernels on the device: `S(q_i, c)` at
/// `[c * m_pad + i]` for every letter `c` and one padding letter (code = alphabet
/// size), the query padded to whole bands (`span` rows); padding scores `PAD_SCORE`.
/// 16-bit for the narrow kernels, 32-bit for `InterWide`, the path of scorings that do
/// not fit 16 bits.
pub(crate) struct QueryProfile {
    buffer: ProfileBuffer,
    /// Query rows padded to whole spans.
    pub(crate) m_pad: usize,
    /// Alphabet size + 1 (the padding letter).
    pub(crate) letters: usize,
}

enum ProfileBuffer {
    Narrow(Buffer<i16>),
    Wide(Buffer<i32>),
}

impl QueryProfile {
    /// Builds `kind`'s profile of `query` and uploads it. The narrow kernels' profile
    /// holds every score exactly: callers send a scoring that does not fit 16 bits
    /// ([`super::fits_16_bits`]) to `InterWide`, and a narrow profile of one is an error.
    pub(crate) fn new(dev: &ClDevice, kind: Banded, query: &[u8], scoring: &Scoring, span: usize) -> Result<Self> {
        super::check_kernel_lengths(query.len(), [])?;
        let m_pad = query.len().div_ceil(span) * span;
        let letters = scoring.matrix.size() + 1;
        let mut profile = vec![PAD_SCORE as i32; letters * m_pad];
        for c in 0..letters - 1 {
            for (i, &q) in query.iter().enumerate() {
                profile[c * m_pad + i] = scoring.matrix.score(q, c as u8);
            }
        }
        let buffer = if kind == Banded::InterWide {
            ProfileBuffer::Wide(dev.buffer_from(&profile)?)
        } else {
            ProfileBuffer::Narrow(dev.buffer_from(&super::narrow_scores(&profile)?)?)
        };
        Ok(QueryProfile { buffer, m_pad, letters })
    }

    fn mem(&self) -> opencl3::types::cl_mem {
        match &self.buffer {
            ProfileBuffer::Narrow(b) => b.get(),
            ProfileBuffer::Wide(b) => b.get(),
        }
    }
}

/// Tuning of the banded kernels.
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Query rows per band (even).
    pub band: usize,
    /// Work-items per work-group in `scan_inter` / `scan_fast`.
    pub group: usize,
    /// `fast` only: subjects longer than this go to `scan_fast_long`.
    pub long_threshold: usize,
    /// `fast` only: at most this many work-items (bands in flight) per pair of long
    /// subjects; each query uses the fewest rounds this allows, spread evenly.
    pub long_group: usize,
    /// `fast` only: columns per wavefront step of `scan_fast_long`.
    pub tile: usize,
    /// `team` only: the most work-items per pair of subjects (a power of two up to
    /// 32); shorter subjects get smaller teams (`team_for`).
    pub team: usize,
    /// `team` only: work-items per work-group.
    pub team_group: usize,
    /// `team` only: query rows per work-item (even), or 0 to choose per query
    /// (`rows_for`).
    pub rows: usize,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            band: 32,
            group: 64,
            long_threshold: 1536,
            long_group: 16,
            tile: 16,
            team: 8,
            team_group: 128,
            rows: 0,
        }
    }
}

/// `scan_team`: the per-step work besides the cells (shuffles, the letters, the loop),
/// in cell pairs: what a pass of few rows per work-item pays extra.
const TEAM_STEP_COST: usize = 8;

impl Tuning {
    /// `scan_team`: the team size for a subject of `n` residues: about n / 12, so the
    /// TEAM - 1 columns of fill and drain stay under a tenth; at most `self.team`.
    pub fn team_for(&self, n: usize) -> usize {
        let mut team = 1;
        while team * 2 <= self.team && team * 2 * 12 <= n {
            team *= 2;
        }
        team
    }

    /// `scan_team`: rows per work-item for a query of `m` rows and teams of `team`
    /// (`self.rows` when set): the fewest padded rows, a pass costing TEAM_STEP_COST
    /// rows more. Even, from 8 to 30 (at 32 ptxas reaches 128 registers and the kernel
    /// slows by a tenth on an H100), with a pass's profile within `max_span` rows
    /// (local memory).
    pub fn rows_for(&self, m: usize, team: usize, max_span: usize) -> usize {
        if self.rows > 0 {
            return self.rows;
        }
        let cost = |rows: usize| m.max(1).div_ceil(team * rows) * team * (rows + TEAM_STEP_COST);
        (8..=30).step_by(2).filter(|r| r * team <= max_span.max(8 * team)).min_by_key(|&r| cost(r)).unwrap_or(8)
    }
}

/// Subjects of a banded kernel on the device: the group layout's buffers, the boundary
/// row and the outputs, in the order the kernels take them (shared by the scanner below
/// and psse's tiles of shuffles).
pub(crate) struct BandedBuffers {
    pub(crate) words: Buffer<u32>,
    pub(crate) group_word: Buffer<u32>,
    lengths: Buffer<u32>,
    group_cell: Buffer<u64>,
    boundary: Buffer<u8>,
    pub(crate) outputs: ScoreOutputs,
}

impl BandedBuffers {
    /// `words` already on the device (uploaded, or to be written there by a kernel);
    /// a boundary row of `boundary_bytes`, outputs for every slot and lane.
    pub(crate) fn new(
        dev: &ClDevice,
        words: Buffer<u32>,
        group_word: &[u32],
        lengths: &[u32],
        group_cell: &[u64],
        boundary_bytes: usize,
    ) -> Result<BandedBuffers> {
        Ok(BandedBuffers {
            words,
            group_word: dev.buffer_from(group_word)?,
            lengths: dev.buffer_from(lengths)?,
            group_cell: dev.buffer_from(group_cell)?,
            boundary: dev.buffer::<u8>(boundary_bytes)?,
            outputs: ScoreOutputs::new(dev, lengths.len())?,
        })
    }

    /// Every argument of `scan_inter` / `scan_fast` / `scan_fast_long` but the long
    /// kernel's extra local buffers: the query profile, these buffers, the launch's
    /// first boundary cell and group, the gaps and the saturation limit, local memory
    /// for the profiles of `bands` bands of `span` rows, the outputs.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn args<'a, 'k>(
        &self,
        args: &'a mut KernelArgs<'k>,
        profile: &QueryProfile,
        (first_cell, first_group): (u64, usize),
        kind: Banded,
        scoring: &Scoring,
        (span, bands): (usize, usize),
    ) -> Result<&'a mut KernelArgs<'k>> {
        // Each band's local profile: letters x (span + 2) scores.
        let profile_bytes = profile.letters * (span + 2) * kind.score_bytes() * bands;
        args.arg(&profile.mem())?
            .arg(&(profile.m_pad as i32))?
            .arg(&(profile.letters as i32))?
            .arg(&self.words.get())?
            .arg(&self.group_word.get())?
            .arg(&self.lengths.get())?
            .arg(&self.boundary.get())?
            .arg(&self.group_cell.get())?
            .arg(&first_cell)?
            .arg(&(first_group as i32))?
            .arg(&scoring.gaps.open)?
            .arg(&scoring.gaps.extend)?
            .arg(&kind.sat_limit(scoring))?
            .local(profile_bytes)?;
        self.outputs.args(args)
    }
}

/// Upper bound on the boundary-row buffer of one launch.
const BOUNDARY_BYTES: u64 = 1 << 30;

/// Subjects of one kernel's launches: their layout on the device and where they came from.
struct Part {
    /// `scan_inter`, `scan_fast`, `scan_fast_long` or `scan_team`.
    kernel: &'static str,
    /// Work-items per work-group.
    work_group: usize,
    layout: GroupLayout,
    /// The part's subject k is the caller's subject `members[k]`.
    members: Vec<u32>,
    /// Launches as runs of groups whose boundary rows fit one buffer.
    launches: Vec<(usize, usize)>,
    /// The layout on the device, with the boundary row and outputs every query reuses.
    buffers: BandedBuffers,
}

/// A set of subjects laid out and resident on one device for a banded kernel.
pub struct BandedScanner<'d> {
    dev: &'d ClDevice,
    kind: Banded,
    tuning: Tuning,
    parts: Vec<Part>,
    subjects: usize,
    /// Where each caller subject's result lands: (part, output index).
    position: Vec<(u32, u32)>,
    /// The subjects' residues end to end (`host_offsets[k]..host_offsets[k + 1]`), for
    /// the 32-bit recompute of saturated subjects.
    host_residues: Vec<u8>,
    host_offsets: Vec<usize>,
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
        super::check_kernel_lengths(0, subjects.iter().map(|s| s.as_ref().len()))?;
        let mut split: Vec<(&'static str, usize, usize, Vec<u32>)> = match kind {
            Banded::Inter | Banded::InterWide => {
                vec![(kind.kernel_name(), tuning.group, tuning.group, (0..subjects.len() as u32).collect())]
            }
            Banded::Team => {
                // One part per team size: short subjects in small teams, so that the
                // TEAM - 1 columns of a pass's fill and drain stay a small share.
                let mut by_team: Vec<(usize, Vec<u32>)> = Vec::new();
                for k in 0..subjects.len() as u32 {
                    let team = tuning.team_for(subjects[k as usize].as_ref().len());
                    match by_team.iter_mut().find(|(t, _)| *t == team) {
                        Some((_, members)) => members.push(k),
                        None => by_team.push((team, vec![k])),
                    }
                }
                by_team.sort_by_key(|(t, _)| *t);
                by_team
                    .into_iter()
                    .map(|(team, members)| {
                        let teams = (tuning.team_group / team).max(1);
                        (kind.kernel_name(), teams, teams * team, members)
                    })
                    .collect()
            }
            Banded::Fast => {
                let (long, short): (Vec<u32>, Vec<u32>) = (0..subjects.len() as u32)
                    .partition(|&k| subjects[k as usize].as_ref().len() > tuning.long_threshold);
                // A long pair is one "slot" of a one-slot group, walked by long_group work-items.
                vec![
                    (kind.kernel_name(), tuning.group, tuning.group, short),
                    ("scan_fast_long", 1, tuning.long_group, long),
                ]
            }
        };
        split.retain(|(_, _, _, members)| !members.is_empty());
        let mut parts = Vec::new();
        let elem = kind.boundary_bytes();
        for (kernel, slots_per_group, work_group, members) in split {
            let chosen: Vec<&[u8]> = members.iter().map(|&k| subjects[k as usize].as_ref()).collect();
            let layout = GroupLayout::new(&chosen, slots_per_group, kind.lanes(), pad_code)?;
            let launches = layout.launches(BOUNDARY_BYTES.min(dev.info.max_alloc_bytes / 2) / elem);
            let largest = launches.iter().map(|&(a, b)| layout.cells(a, b)).max().unwrap_or(1);
            let words = dev.buffer_from(&layout.words)?;
            let buffers = BandedBuffers::new(
                dev,
                words,
                &layout.group_word,
                &layout.lengths,
                &layout.group_cell,
                (largest * elem) as usize,
            )?;
            parts.push(Part { kernel, work_group, launches, buffers, layout, members });
        }
        let mut position = vec![(0, 0); subjects.len()];
        for (q, part) in parts.iter().enumerate() {
            for (p, &k) in part.layout.subject_of.iter().enumerate() {
                if k != u32::MAX {
                    position[part.members[k as usize] as usize] = (q as u32, p as u32);
                }
            }
        }
        Ok(BandedScanner {
            dev,
            kind,
            tuning,
            parts,
            position,
            subjects: subjects.len(),
            host_residues: subjects.iter().flat_map(|s| s.as_ref().iter().copied()).collect(),
            host_offsets: std::iter::once(0)
                .chain(subjects.iter().scan(0, |end, s| {
                    *end += s.as_ref().len();
                    Some(*end)
                }))
                .collect(),
        })
    }

    /// Every subject's score and end; saturated subjects are recomputed at 32 bits.
    pub fn scan(&self, query: &[u8], scoring: &Scoring) -> Result<ScanOutput> {
        self.scan_with(query, scoring, true)
    }

    /// Every subject's score; the end cells may be left out (`None`): `team` then runs
    /// its score-only kernel, the fastest. A search finds the ends of its few hits
    /// afterwards.
    pub fn scores(&self, query: &[u8], scoring: &Scoring) -> Result<ScanOutput> {
        self.scan_with(query, scoring, false)
    }

    fn host_subject(&self, k: usize) -> &[u8] {
        &self.host_residues[self.host_offsets[k]..self.host_offsets[k + 1]]
    }

    fn scan_with(&self, query: &[u8], scoring: &Scoring, ends: bool) -> Result<ScanOutput> {
        let pad = scoring.matrix.size() as u8;
        if !super::fits_16_bits(scoring) && self.kind != Banded::InterWide {
            let all: Vec<&[u8]> = (0..self.subjects).map(|k| self.host_subject(k)).collect();
            return BandedScanner::new(self.dev, Banded::InterWide, self.tuning, &all, pad)?.scan(query, scoring);
        }
        let mut out = self.run(query, scoring, ends)?;
        let saturated: Vec<usize> = (0..self.subjects).filter(|&k| out.scores[k].score < 0).collect();
        if !saturated.is_empty() {
            let subset: Vec<&[u8]> = saturated.iter().map(|&k| self.host_subject(k)).collect();
            let wide = BandedScanner::new(self.dev, Banded::InterWide, self.tuning, &subset, pad)?
                .run(query, scoring, true)?;
            for (&k, r) in saturated.iter().zip(wide.scores) {
                out.scores[k] = r;
            }
            out.kernel_seconds += wide.kernel_seconds;
            out.recomputed = saturated.len();
        }
        Ok(out)
    }

    fn run(&self, query: &[u8], scoring: &Scoring, ends: bool) -> Result<ScanOutput> {
        if query.is_empty() || self.subjects == 0 {
            return Ok(ScanOutput::empty(self.subjects));
        }
        let mut out = ScanOutput { scores: Vec::new(), recomputed: 0, kernel_seconds: 0.0 };
        let dev = self.dev;
        let Tuning { tile, .. } = self.tuning;
        let letters = scoring.matrix.size() + 1;
        let queue = dev.queue();
        let mut pending = Vec::new();
        // Query profiles padded to whole bands or passes, one per span (parts of one
        // span share it).
        let mut profiles: Vec<(usize, QueryProfile)> = Vec::new();
        for part in &self.parts {
            // Query rows per band or pass: scan_team's rows per work-item follow the
            // query's length and the part's team size.
            let (tuning, span) = if self.kind == Banded::Team {
                // A pass's profile (letters x (span + 2) shorts) and the scratch words
                // must fit local memory.
                let local = dev.info.local_mem_bytes as usize;
                let max_span = (local.saturating_sub(part.work_group * 24 + 1024) / (letters * 2)).saturating_sub(2);
                let team = part.work_group / part.layout.group_size;
                let rows = self.tuning.rows_for(query.len(), team, max_span);
                (Tuning { team, rows, ..self.tuning }, team * rows)
            } else {
                (self.tuning, self.tuning.band)
            };
            let program = self.kind.program(dev, &tuning, ends)?;
            if !profiles.iter().any(|(s, _)| *s == span) {
                profiles.push((span, QueryProfile::new(dev, self.kind, query, scoring, span)?));
            }
            let (_, profile) = profiles.iter().find(|(s, _)| *s == span).expect("profile of this span");
            let kernel = cl("clCreateKernel", Kernel::create(&program, part.kernel))?;
            let long = part.kernel == "scan_fast_long";
            // scan_fast_long: every round costs a full pipeline fill, so the bands are
            // spread evenly over as few rounds as long_group allows (18 bands with
            // long_group 16: two rounds of 9, not 16 + 2).
            let work_group = if long {
                let bands = profile.m_pad / self.tuning.band;
                bands.div_ceil(bands.div_ceil(part.work_group))
            } else {
                part.work_group
            };
            let mut events = Vec::new();
            for &(a, b) in &part.launches {
                let mut args = KernelArgs::new(&kernel);
                part.buffers.args(
                    &mut args,
                    profile,
                    (part.layout.group_cell[a], a),
                    self.kind,
                    scoring,
                    (span, if long { work_group } else { 1 }),
                )?;
                if long {
                    args.local(2 * work_group * tile * 8)?.local(work_group * 6 * 4)?;
                }
                if self.kind == Banded::Team {
                    args.local(work_group * 6 * 4)?;
                }
                events.push(launch(&queue, &kernel, (b - a) * work_group, work_group)?);
            }
            pending.push((part, events));
        }
        let mut results = Vec::with_capacity(self.parts.len());
        for (part, events) in pending {
            results.push(part.buffers.outputs.read(dev, &queue)?);
            for e in &events {
                out.kernel_seconds += event_seconds(e)?;
            }
        }
        drop(queue);
        // Back to the caller's order: a gather (random reads, sequential writes) over all cores.
        out.scores = self
            .position
            .par_iter()
            .map(|&(q, p)| {
                let (q, p) = (q as usize, p as usize);
                // Empty lanes (empty subjects) are not written by the kernels.
                if self.parts[q].layout.lengths[p] == 0 { LocalScore { score: 0, end: None } } else { results[q][p] }
            })
            .collect();
        Ok(out)
    }
}

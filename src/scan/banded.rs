//! Host side of the banded inter-task kernels, `cl/scan_inter.cl` (one subject per
//! work-item, Ligowski & Rudnicki) and `cl/scan_fast.cl` (two subjects per work-item in
//! packed 16-bit lanes, DPX on NVIDIA). Both take the same arguments: a query profile
//! cut into bands, the [`GroupLayout`] of the subjects, and a boundary row in global
//! memory. Subjects whose narrow score saturates are recomputed with `scan_inter` at
//! 32 bits (`WIDE=1`).

use super::layout::GroupLayout;
use super::outputs::{OutputsInFlight, ScoreOutputs};
use super::{PAD_SCORE, ScanOutput};
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, event_seconds, launch};
use crate::error::{Error, Result};
use crate::reference::LocalScore;
use crate::scoring::Scoring;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};

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
    /// `scan_team_pairs`: two queries per team against one subject, score only (psse,
    /// whose queries all meet the same shuffles).
    TeamPairs,
}

impl Banded {
    /// Subjects per work-item (16-bit lanes of `scan_fast`), or per team.
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
            Banded::TeamPairs => "scan_team_pairs",
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
            Banded::Fast | Banded::Team | Banded::TeamPairs => i16::MAX as i32 - scoring.matrix.max_score().max(0),
        }
    }

    /// The built program for this kernel and tuning (cached per device); `ends`: with
    /// end cells (`scan_team` can leave them out; `scan_team_pairs` is in the build
    /// without).
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
            Banded::Team | Banded::TeamPairs => {
                let defines = [
                    ("TEAM", tuning.team.to_string()),
                    ("ROWS", tuning.rows.to_string()),
                    ("ENDS", ((ends && self == Banded::Team) as u8).to_string()),
                ];
                return dev.program(&TEAM_SOURCE, &defines);
            }
        };
        let defines =
            [("BAND", tuning.band.to_string()), ("WIDE", wide.to_string()), ("TILE", tuning.tile.to_string())];
        dev.program(source, &defines)
    }
}

/// The query profiles of the banded kernels on the device: for query slot `q`,
/// `S(q_i, c)` at `[(q * letters + c) * m_pad + i]` for every letter `c` and one padding
/// letter (code = alphabet size), each query padded to the longest one's whole bands
/// (`span` rows); padding scores `PAD_SCORE`. One query but for `scan_team`'s slots.
/// 16-bit for the narrow kernels, 32-bit for `InterWide`, the path of scorings that do
/// not fit 16 bits.
pub(crate) struct QueryProfile {
    buffer: ProfileBuffer,
    /// Rows of each query's profile: the longest query padded to whole spans.
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
        QueryProfile::of_slots(dev, kind, &[query], scoring, span)
    }

    /// The profiles of several queries, one after another ([`BandedScanner`]'s slots).
    pub(crate) fn of_slots(
        dev: &ClDevice,
        kind: Banded,
        queries: &[&[u8]],
        scoring: &Scoring,
        span: usize,
    ) -> Result<Self> {
        let longest = queries.iter().map(|q| q.len()).max().unwrap_or(0);
        super::check_kernel_lengths(longest, [])?;
        let m_pad = longest.div_ceil(span) * span;
        let letters = scoring.matrix.size() + 1;
        let mut profile = vec![PAD_SCORE as i32; queries.len() * letters * m_pad];
        for (slot, query) in queries.iter().enumerate() {
            for c in 0..letters - 1 {
                let row = &mut profile[(slot * letters + c) * m_pad..][..query.len()];
                for (p, &q) in row.iter_mut().zip(query.iter()) {
                    *p = scoring.matrix.score(q, c as u8);
                }
            }
        }
        let buffer = if kind == Banded::InterWide {
            ProfileBuffer::Wide(dev.buffer_from(&profile)?)
        } else {
            ProfileBuffer::Narrow(dev.buffer_from(&super::narrow_scores(&profile)?)?)
        };
        Ok(QueryProfile { buffer, m_pad, letters })
    }

    /// `scan_team_pairs`' profile of queries `a` and `b` (absent: the padding score in
    /// its lane): `S(a_i, c) | S(b_i, c) << 16` at word `c * m_pad + i`, padded to the
    /// longer query's whole passes (`span` rows).
    pub(crate) fn paired(dev: &ClDevice, a: &[u8], b: Option<&[u8]>, scoring: &Scoring, span: usize) -> Result<Self> {
        let longest = a.len().max(b.map_or(0, <[u8]>::len));
        super::check_kernel_lengths(longest, [])?;
        let m_pad = longest.div_ceil(span) * span;
        let letters = scoring.matrix.size() + 1;
        let mut profile = vec![PAD_SCORE as i32; 2 * letters * m_pad];
        for (lane, query) in std::iter::once(a).chain(b).enumerate() {
            for c in 0..letters - 1 {
                for (i, &q) in query.iter().enumerate() {
                    profile[2 * (c * m_pad + i) + lane] = scoring.matrix.score(q, c as u8);
                }
            }
        }
        let buffer = ProfileBuffer::Narrow(dev.buffer_from(&super::narrow_scores(&profile)?)?);
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
    /// 32); subjects shorter than 12 x team get smaller teams down to `min_team`
    /// (`team_for`), and a short launch a larger one (`for_launch`).
    pub team: usize,
    /// `team` only: work-items per work-group.
    pub team_group: usize,
    /// `team` only: query rows per work-item (even), or 0 to choose per query
    /// (`rows_for`).
    pub rows: usize,
    /// `team` only: the smallest team (`team_for`), a power of two. Teams of 8 for every subject by
    /// default: each team size is a launch of its own, and on an H100 the launches of
    /// the short subjects' small teams cost more in their own latency (a 5,478-row
    /// query walks them in 183 passes of 30 rows) than their fill and drain save
    /// (20 classic queries, `uniprot20k` x 20: 3,810 -> 3,884 GCUPS; x 10: 3,236 ->
    /// 3,354).
    pub min_team: usize,
    /// `team` only: how much work a launch must hold for its longest subject's team
    /// not to set its length ([`for_launch`](Self::for_launch)); 0 keeps `team`.
    pub chain_cover: u64,
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
            min_team: 8,
            chain_cover: 25_000,
        }
    }
}

/// `scan_team`: padded cell pairs per second (GCUPS) of each even number of rows per
/// work-item from 8 to 30, from the team-8 score-only sweep on an H100
/// (BENCHMARKS.md, "Rows per work-item"): what a pass of few rows pays for its steps'
/// bookkeeping, and the shapes ptxas schedules worse than their neighbours (26 rows).
/// At 32 rows ptxas passes 128 registers and the kernel slows by a tenth.
const TEAM_ROWS_GCUPS: [(usize, u64); 12] = [
    (8, 3886),
    (10, 4127),
    (12, 4126),
    (14, 4260),
    (16, 4417),
    (18, 4428),
    (20, 4636),
    (22, 4670),
    (24, 4557),
    (26, 4443),
    (28, 4579),
    (30, 4516),
];

impl Tuning {
    /// `scan_team`: this tuning for a launch over `residues` residues (its subjects
    /// times the queries a scanner is made for) whose longest subject has `longest`:
    /// `team` doubled, up to
    /// 32, until `residues x team >= chain_cover x longest`. A team walks its pair pass
    /// after pass, so a launch lasts at least as long as its longest subject's team
    /// takes, however little else it holds; larger teams take fewer passes and cost a
    /// few percent where the launch is long anyway. On an H100 (19 classic queries,
    /// teams of 8 / 16 / 32, GCUPS): `uniprot20k` x 2 866 / 1,586 / 2,419; x 5
    /// 1,957 / 3,195 / 3,565; x 10 3,350 / 3,730 / 3,656; x 15 3,878 / 3,741 / 3,666;
    /// x 20 3,882 / 3,748 / 3,684 (the longest subject 35,213 residues): 25,000 puts the
    /// changes between x 5 and x 10 and between x 10 and x 15.
    pub fn for_launch(&self, residues: u64, longest: usize) -> Tuning {
        let mut tuning = *self;
        while (1..32).contains(&tuning.team)
            && residues.saturating_mul(tuning.team as u64) < self.chain_cover.saturating_mul(longest as u64)
        {
            tuning.team *= 2;
        }
        tuning
    }

    /// `scan_team`: refuses teams the kernel cannot run: `team` and `min_team` are
    /// powers of two up to 32, `rows` even.
    pub fn check_team(&self) -> Result<()> {
        let power = |t: usize| t.is_power_of_two() && t <= 32;
        if power(self.team) && power(self.min_team) && self.rows.is_multiple_of(2) {
            return Ok(());
        }
        Err(Error::InvalidArgument(format!(
            "team tuning: team {} and min_team {} must be powers of two up to 32, rows {} even",
            self.team, self.min_team, self.rows
        )))
    }

    /// `scan_team`: the team size for a subject of `n` residues: about n / 12, so the
    /// TEAM - 1 columns of fill and drain stay under a tenth; at least `self.min_team`,
    /// at most `self.team`.
    pub fn team_for(&self, n: usize) -> usize {
        let mut team = self.min_team.clamp(1, self.team);
        while team * 2 <= self.team && team * 2 * 12 <= n {
            team *= 2;
        }
        team
    }

    /// `scan_team`: the teams of `team` work-items a work-group holds (`team_group`'s
    /// worth, at least one) and its work-items.
    pub fn team_work_group(&self, team: usize) -> (usize, usize) {
        let teams = (self.team_group / team).max(1);
        (teams, teams * team)
    }

    /// `scan_team`: rows per work-item for queries of `lengths` rows scanned together
    /// (one query, or a launch's slots) and teams of `team` (`self.rows` when set): the
    /// least time over them all, padded rows at the speed TEAM_ROWS_GCUPS gives each
    /// shape, with a pass's profile within `max_span` rows (local memory).
    pub fn rows_for(&self, lengths: &[usize], team: usize, max_span: usize) -> usize {
        if self.rows > 0 {
            return self.rows;
        }
        let time = |&(rows, gcups): &(usize, u64)| -> u64 {
            let padded: usize = lengths.iter().map(|&m| m.max(1).div_ceil(team * rows) * team * rows).sum();
            padded as u64 * 1_000_000 / gcups
        };
        TEAM_ROWS_GCUPS
            .iter()
            .filter(|(r, _)| r * team <= max_span.max(8 * team))
            .min_by_key(|shape| time(shape))
            .map_or(8, |&(rows, _)| rows)
    }
}

/// `scan_team` (`kind` Team) or `scan_team_pairs` (TeamPairs): the most query rows a
/// pass may hold on `dev` in work-groups of `work_group` work-items, teams of `team`
/// and profiles of `letters` letters: its profile (see `BandedBuffers::args`: letters x
/// (span + 2 team + 4) shorts, or as many words with 3 team in place of 2 team, two
/// queries' scores per row) and the scratch words (6 or 1 per work-item) must fit
/// local memory.
pub(crate) fn team_max_span(dev: &ClDevice, kind: Banded, work_group: usize, letters: usize, team: usize) -> usize {
    let local = dev.info.local_mem_bytes as usize;
    if kind == Banded::TeamPairs {
        (local.saturating_sub(work_group * 4 + 1024) / (letters * 4)).saturating_sub(3 * team + 4)
    } else {
        (local.saturating_sub(work_group * 24 + 1024) / (letters * 2)).saturating_sub(2 * team + 4)
    }
}

/// Subjects of a banded kernel on the device: the group layout's buffers, in the order
/// the kernels take them (shared by the scanner below and psse's tiles of shuffles).
pub(crate) struct BandedBuffers {
    pub(crate) words: Buffer<u32>,
    pub(crate) group_word: Buffer<u32>,
    lengths: Buffer<u32>,
    group_cell: Buffer<u64>,
}

/// What the launches of one layout write: the boundary row, which launches one after
/// another share, and two sets of outputs of every slot and lane, taken in turn so
/// that one launch's outputs can travel to the host while the next launch writes.
pub(crate) struct Scratch {
    pub(crate) boundary: Buffer<u8>,
    pub(crate) outputs: [ScoreOutputs; 2],
}

impl Scratch {
    /// A boundary row of `boundary_bytes` and outputs for `entries` slots and lanes.
    pub(crate) fn new(dev: &ClDevice, boundary_bytes: usize, entries: usize) -> Result<Scratch> {
        Ok(Scratch {
            boundary: dev.buffer::<u8>(boundary_bytes)?,
            outputs: [ScoreOutputs::new(dev, entries)?, ScoreOutputs::new(dev, entries)?],
        })
    }
}

impl BandedBuffers {
    /// `words` already on the device (uploaded, or to be written there by a kernel).
    pub(crate) fn new(
        dev: &ClDevice,
        words: Buffer<u32>,
        group_word: &[u32],
        lengths: &[u32],
        group_cell: &[u64],
    ) -> Result<BandedBuffers> {
        Ok(BandedBuffers {
            words,
            group_word: dev.buffer_from(group_word)?,
            lengths: dev.buffer_from(lengths)?,
            group_cell: dev.buffer_from(group_cell)?,
        })
    }

    /// Every argument of `scan_inter` / `scan_fast` / `scan_fast_long` but the long
    /// kernel's extra local buffers: the query profile, these buffers and the boundary
    /// row, the launch's first boundary cell and group, the gaps and the saturation
    /// limit, local memory for the profiles of `bands` bands of `span` rows (for
    /// `scan_team`, `bands` is the team size: its pass of `span` rows), the outputs.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn args<'a, 'k>(
        &self,
        args: &'a mut KernelArgs<'k>,
        (boundary, outputs): (&Buffer<u8>, &ScoreOutputs),
        profile: &QueryProfile,
        (first_cell, first_group): (u64, usize),
        kind: Banded,
        scoring: &Scoring,
        (span, bands): (usize, usize),
    ) -> Result<&'a mut KernelArgs<'k>> {
        // Each band's local profile: letters x (span + 2) scores.
        let profile_bytes = match kind {
            // scan_team: letters x (span / 2 + team + 2) words, at least its STRIDE.
            Banded::Team => profile.letters * (span / 2 + bands + 2) * 4,
            // scan_team_pairs: letters x PAIR_STRIDE words (rows rounded up to four).
            Banded::TeamPairs => profile.letters * (bands * (span / bands).next_multiple_of(4) + 4) * 4,
            _ => profile.letters * (span + 2) * kind.score_bytes() * bands,
        };
        args.arg(&profile.mem())?
            .arg(&(profile.m_pad as i32))?
            .arg(&(profile.letters as i32))?
            .arg(&self.words.get())?
            .arg(&self.group_word.get())?
            .arg(&self.lengths.get())?
            .arg(&boundary.get())?
            .arg(&self.group_cell.get())?
            .arg(&first_cell)?
            .arg(&(first_group as i32))?
            .arg(&scoring.gaps.open)?
            .arg(&scoring.gaps.extend)?
            .arg(&kind.sat_limit(scoring))?
            .local(profile_bytes)?;
        outputs.args(args)
    }
}

/// A query's launches in flight ([`BandedScanner::launch`]): per part its launch events,
/// span and output reads; then its inputs, kept until the caller releases them (fields
/// drop in order: the reads are waited for first).
struct Launched {
    lengths: Vec<usize>,
    parts: Vec<(Vec<Event>, usize, OutputsInFlight)>,
    inputs: LaunchInputs,
}

/// What a launch reads besides the layout: its query profiles (with their slot rows)
/// and kernel objects.
type LaunchInputs = (Vec<(usize, QueryProfile, Option<Buffer<i32>>)>, Vec<Kernel>);

/// Launches whose inputs [`BandedScanner::scores_each`] and psse's tiles keep before
/// they pause, with nothing queued, to release them (a profile is at most a few MB).
pub(crate) const RETIRE_EVERY: usize = 64;

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
    /// Launches as runs of groups whose boundary rows (of every slot) fit one buffer.
    launches: Vec<(usize, usize)>,
    /// The layout on the device, which every query reads.
    buffers: BandedBuffers,
    /// Boundary elements of one slot: the largest launch's.
    slot_cells: u64,
    /// The boundary rows and outputs of every slot, reused by every launch.
    scratch: Scratch,
}

/// The most queries one `scan_team` launch scans ([`BandedScanner::for_queries`]).
const MAX_SLOTS: usize = 32;

/// A set of subjects laid out and resident on one device for a banded kernel.
pub struct BandedScanner<'d> {
    dev: &'d ClDevice,
    kind: Banded,
    tuning: Tuning,
    parts: Vec<Part>,
    /// The caller's subjects, for the 32-bit recompute of saturated ones.
    subjects: Vec<&'d [u8]>,
    /// Where each caller subject's result lands: (part, output index in a slot).
    position: Vec<(u32, u32)>,
    /// Queries a launch may scan at once (`scan_team` only; 1 for the others).
    slots: usize,
}

impl<'d> BandedScanner<'d> {
    /// Lays out `subjects` (alphabet codes) and uploads them; `pad_code` is the
    /// alphabet size (the profile's padding letter). Queries are scanned one at a time.
    pub fn new(
        dev: &'d ClDevice,
        kind: Banded,
        tuning: Tuning,
        subjects: &[&'d [u8]],
        pad_code: u8,
    ) -> Result<BandedScanner<'d>> {
        BandedScanner::for_queries(dev, kind, tuning, subjects, pad_code, 1)
    }

    /// [`new`](Self::new) for callers that scan `queries` queries together
    /// ([`scores_many`](Self::scores_many)): `scan_team` then keeps boundary rows and
    /// outputs for up to that many (at most 32) and scans them in one launch, within
    /// the same boundary-row budget.
    pub fn for_queries(
        dev: &'d ClDevice,
        kind: Banded,
        tuning: Tuning,
        subjects: &[&'d [u8]],
        pad_code: u8,
        queries: usize,
    ) -> Result<BandedScanner<'d>> {
        super::check_kernel_lengths(0, subjects.iter().map(|s| s.len()))?;
        let tuning = if kind == Banded::Team {
            tuning.check_team()?;
            let residues: u64 = subjects.iter().map(|s| s.len() as u64).sum();
            let longest = subjects.iter().map(|s| s.len()).max().unwrap_or(0);
            tuning.for_launch(residues * queries.clamp(1, MAX_SLOTS) as u64, longest)
        } else {
            tuning
        };
        let mut split: Vec<(&'static str, usize, usize, Vec<u32>)> = match kind {
            Banded::TeamPairs => {
                return Err(Error::InvalidArgument("scan_team_pairs aligns psse's query pairs, not a scan".into()));
            }
            Banded::Inter | Banded::InterWide => {
                vec![(kind.kernel_name(), tuning.group, tuning.group, (0..subjects.len() as u32).collect())]
            }
            Banded::Team => {
                // One part per team size (`team_for`: one for all subjects unless
                // `min_team` is below `team`), each its own launches.
                let mut by_team: Vec<(usize, Vec<u32>)> = Vec::new();
                for k in 0..subjects.len() as u32 {
                    let team = tuning.team_for(subjects[k as usize].len());
                    match by_team.iter_mut().find(|(t, _)| *t == team) {
                        Some((_, members)) => members.push(k),
                        None => by_team.push((team, vec![k])),
                    }
                }
                by_team.sort_by_key(|(t, _)| *t);
                by_team
                    .into_iter()
                    .map(|(team, members)| {
                        let (teams, work_group) = tuning.team_work_group(team);
                        (kind.kernel_name(), teams, work_group, members)
                    })
                    .collect()
            }
            Banded::Fast => {
                let (long, short): (Vec<u32>, Vec<u32>) =
                    (0..subjects.len() as u32).partition(|&k| subjects[k as usize].len() > tuning.long_threshold);
                // A long pair is one "slot" of a one-slot group, walked by long_group work-items.
                vec![
                    (kind.kernel_name(), tuning.group, tuning.group, short),
                    ("scan_fast_long", 1, tuning.long_group, long),
                ]
            }
        };
        split.retain(|(_, _, _, members)| !members.is_empty());
        // scan_team counts a group's boundary elements (its longest subject x its teams)
        // in 32 bits, as a 64-bit count cost 2% of its loop: longer subjects are refused.
        if kind == Banded::Team {
            for (_, teams, _, members) in &split {
                let longest = members.iter().map(|&k| subjects[k as usize].len()).max().unwrap_or(0);
                if longest as u64 * *teams as u64 > i32::MAX as u64 {
                    return Err(Error::InvalidArgument(format!(
                        "a subject of {longest} residues is too long for the team kernel in groups of {teams} \
                         teams (its boundary row passes {} elements); use the fast variant or the native path",
                        i32::MAX
                    )));
                }
            }
        }
        let elem = kind.boundary_bytes();
        let budget = BOUNDARY_BYTES.min(dev.info.max_alloc_bytes / 2) / elem;
        let layouts = split
            .into_iter()
            .map(|(kernel, slots_per_group, work_group, members)| {
                let chosen: Vec<&[u8]> = members.iter().map(|&k| subjects[k as usize]).collect();
                let layout = GroupLayout::new(&chosen, slots_per_group, kind.lanes(), pad_code)?;
                Ok((kernel, work_group, members, layout))
            })
            .collect::<Result<Vec<_>>>()?;
        // Slots while every slot's boundary row of the largest group fits the budget.
        let largest_group =
            layouts.iter().flat_map(|(_, _, _, l)| (0..l.groups()).map(|g| l.cells(g, g + 1))).max().unwrap_or(1);
        let slots = if kind == Banded::Team {
            queries.clamp(1, MAX_SLOTS).min((budget / largest_group.max(1)).max(1) as usize)
        } else {
            1
        };
        let mut parts = Vec::new();
        for (kernel, work_group, members, layout) in layouts {
            let launches = layout.launches(budget / slots as u64);
            let slot_cells = launches.iter().map(|&(a, b)| layout.cells(a, b)).max().unwrap_or(1);
            let words = dev.buffer_from(&layout.words)?;
            let buffers = BandedBuffers::new(dev, words, &layout.group_word, &layout.lengths, &layout.group_cell)?;
            let scratch = Scratch::new(dev, (slot_cells * elem) as usize * slots, layout.lengths.len() * slots)?;
            parts.push(Part { kernel, work_group, launches, buffers, layout, members, slot_cells, scratch });
        }
        let mut position = vec![(0, 0); subjects.len()];
        for (q, part) in parts.iter().enumerate() {
            for (p, &k) in part.layout.subject_of.iter().enumerate() {
                if k != u32::MAX {
                    position[part.members[k as usize] as usize] = (q as u32, p as u32);
                }
            }
        }
        Ok(BandedScanner { dev, kind, tuning, parts, position, subjects: subjects.to_vec(), slots })
    }

    /// Every subject's score and end; saturated subjects are recomputed at 32 bits.
    pub fn scan(&self, query: &[u8], scoring: &Scoring) -> Result<ScanOutput> {
        self.scan_with(&[query], scoring, true).map(|mut o| o.remove(0))
    }

    /// Every subject's score; the end cells may be left out (`None`): `team` then runs
    /// its score-only kernel, the fastest. A search finds the ends of its few hits
    /// afterwards.
    pub fn scores(&self, query: &[u8], scoring: &Scoring) -> Result<ScanOutput> {
        self.scan_with(&[query], scoring, false).map(|mut o| o.remove(0))
    }

    /// [`scores`](Self::scores) of each query, in order. `scan_team` scans them in
    /// launches of as many as the scanner was made for ([`for_queries`](Self::for_queries)),
    /// with one ROWS for all (the fewest padded rows over them) and each query's
    /// kernel seconds its share of the launches by rows; the other kernels one by one.
    pub fn scores_many(&self, queries: &[Vec<u8>], scoring: &Scoring) -> Result<Vec<ScanOutput>> {
        let mut out = Vec::with_capacity(queries.len());
        for group in queries.chunks(self.slots) {
            let group: Vec<&[u8]> = group.iter().map(Vec::as_slice).collect();
            out.extend(self.scan_with(&group, scoring, false)?);
        }
        Ok(out)
    }

    /// Scans `queries` (one, or up to `self.slots` for `scan_team`) and recomputes
    /// each one's saturated subjects at 32 bits.
    fn scan_with(&self, queries: &[&[u8]], scoring: &Scoring, ends: bool) -> Result<Vec<ScanOutput>> {
        let pad = scoring.matrix.size() as u8;
        if !super::fits_16_bits(scoring) && self.kind != Banded::InterWide {
            let wide = BandedScanner::new(self.dev, Banded::InterWide, self.tuning, &self.subjects, pad)?;
            return queries.iter().map(|q| wide.run(&[q], scoring, true).map(|mut o| o.remove(0))).collect();
        }
        let mut outs = self.run(queries, scoring, ends)?;
        for (query, out) in queries.iter().zip(outs.iter_mut()) {
            self.recompute_saturated(query, out, scoring)?;
        }
        Ok(outs)
    }

    /// The kernels of `queries` (at most `self.slots`), each query in a slot of its own.
    fn run(&self, queries: &[&[u8]], scoring: &Scoring, ends: bool) -> Result<Vec<ScanOutput>> {
        let launched = self.launch(queries, scoring, ends, 0)?;
        Ok(self.land(launched)?.0)
    }

    /// [`scores`](Self::scores) of each query in turn, handed to `sink` as they come
    /// (`sink` returns false to stop; an error is its last call). Each query's launches
    /// are enqueued before the previous query's scores are read, on the scratch's other
    /// set of outputs, so the device goes from one query to the next while the host
    /// reads and gathers the last one's scores and makes the next launches.
    pub(crate) fn scores_each(
        &self,
        queries: &[Vec<u8>],
        scoring: &Scoring,
        mut sink: impl FnMut(Result<ScanOutput>) -> bool,
    ) {
        if !super::fits_16_bits(scoring) && self.kind != Banded::InterWide {
            for q in queries {
                if !sink(self.scores(q, scoring)) {
                    return;
                }
            }
            return;
        }
        // The inputs of landed launches: NVIDIA's OpenCL blocks the release of a buffer
        // or kernel while launches are queued, so they are released in a pause every
        // RETIRE_EVERY queries, with nothing queued.
        let mut retired: Vec<LaunchInputs> = Vec::new();
        let mut deliver = |(i, launched): (usize, Result<Launched>), retired: &mut Vec<LaunchInputs>| {
            let landed = launched.and_then(|l| self.land(l)).and_then(|(mut outs, inputs)| {
                retired.push(inputs);
                self.recompute_saturated(&queries[i], &mut outs[0], scoring)?;
                Ok(outs.remove(0))
            });
            let failed = landed.is_err();
            sink(landed) && !failed
        };
        let mut pending = None;
        for i in 0..=queries.len() {
            if i < queries.len() && retired.len() >= RETIRE_EVERY {
                if let Some(p) = pending.take()
                    && !deliver(p, &mut retired)
                {
                    return;
                }
                retired.clear();
            }
            let next = (i < queries.len()).then(|| (i, self.launch(&[&queries[i]], scoring, false, i % 2)));
            if let Some(p) = std::mem::replace(&mut pending, next)
                && !deliver(p, &mut retired)
            {
                return;
            }
        }
    }

    /// Recomputes at 32 bits the subjects whose narrow score saturated (-1) in `out`.
    fn recompute_saturated(&self, query: &[u8], out: &mut ScanOutput, scoring: &Scoring) -> Result<()> {
        let saturated: Vec<usize> = (0..self.subjects.len()).filter(|&k| out.scores[k].score < 0).collect();
        if saturated.is_empty() {
            return Ok(());
        }
        let pad = scoring.matrix.size() as u8;
        let subset: Vec<&[u8]> = saturated.iter().map(|&k| self.subjects[k]).collect();
        let wide = BandedScanner::new(self.dev, Banded::InterWide, self.tuning, &subset, pad)?;
        let wide = wide.run(&[query], scoring, true)?.remove(0);
        for (&k, r) in saturated.iter().zip(wide.scores) {
            out.scores[k] = r;
        }
        out.kernel_seconds += wide.kernel_seconds;
        out.recomputed = saturated.len();
        Ok(())
    }

    /// The tuning of `part`'s launches for queries of `lengths` scanned together, and
    /// its query rows per band or pass: scan_team's rows per work-item follow the
    /// queries' lengths and the part's team size.
    fn part_tuning(&self, part: &Part, lengths: &[usize], letters: usize) -> (Tuning, usize) {
        if self.kind != Banded::Team {
            return (self.tuning, self.tuning.band);
        }
        let team = part.work_group / part.layout.group_size;
        let rows =
            self.tuning.rows_for(lengths, team, team_max_span(self.dev, self.kind, part.work_group, letters, team));
        (Tuning { team, rows, ..self.tuning }, team * rows)
    }

    /// Builds, or loads from the disk cache, the programs that scanning queries of
    /// `lengths` one by one ([`scores_each`](Self::scores_each)) launches, so that no
    /// query of the scan waits for one: a load takes 10-30 ms on NVIDIA's OpenCL, and
    /// the first query has no launch before it to hide that behind. Not the 32-bit
    /// programs of saturated subjects and of scorings past 16 bits, which scanners of
    /// their own build when a query needs them.
    pub(crate) fn prepare(&self, lengths: &[usize], scoring: &Scoring) -> Result<()> {
        // A scoring past 16 bits scans on scanners of its own, made per query.
        if !super::fits_16_bits(scoring) && self.kind != Banded::InterWide {
            return Ok(());
        }
        let letters = scoring.matrix.size() + 1;
        for &m in lengths.iter().filter(|&&m| m > 0) {
            for part in &self.parts {
                self.kind.program(self.dev, &self.part_tuning(part, &[m], letters).0, false)?;
            }
        }
        Ok(())
    }

    /// Enqueues the kernels of `queries` (at most `self.slots`, each in a slot of its
    /// own) writing output set `set`, and the reads of their outputs, without waiting.
    fn launch(&self, queries: &[&[u8]], scoring: &Scoring, ends: bool, set: usize) -> Result<Launched> {
        assert!(queries.len() <= self.slots, "more queries than the scanner has slots");
        let lengths: Vec<usize> = queries.iter().map(|q| q.len()).collect();
        if lengths.iter().all(|&m| m == 0) || self.subjects.is_empty() {
            return Ok(Launched { lengths, parts: Vec::new(), inputs: (Vec::new(), Vec::new()) });
        }
        let dev = self.dev;
        let Tuning { tile, .. } = self.tuning;
        let letters = scoring.matrix.size() + 1;
        let queue = dev.queue();
        let (mut pending, mut kernels) = (Vec::new(), Vec::new());
        // Query profiles padded to whole bands or passes, one per span (parts of one
        // span share it), with each slot's padded rows (scan_team's).
        let mut profiles: Vec<(usize, QueryProfile, Option<Buffer<i32>>)> = Vec::new();
        for part in &self.parts {
            let (tuning, span) = self.part_tuning(part, &lengths, letters);
            let program = self.kind.program(dev, &tuning, ends)?;
            if !profiles.iter().any(|(s, _, _)| *s == span) {
                let profile = QueryProfile::of_slots(dev, self.kind, queries, scoring, span)?;
                let rows: Vec<i32> = lengths.iter().map(|&m| (m.div_ceil(span) * span) as i32).collect();
                let slot_rows = (self.kind == Banded::Team).then(|| dev.buffer_from(&rows)).transpose()?;
                profiles.push((span, profile, slot_rows));
            }
            let (_, profile, slot_rows) = profiles.iter().find(|(s, _, _)| *s == span).expect("profile of this span");
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
            let slot_entries = i32::try_from(part.layout.lengths.len())
                .map_err(|_| Error::InvalidArgument("a scan_team launch over 2 G subject slots; split it".into()))?;
            let mut events = Vec::new();
            for &(a, b) in &part.launches {
                let mut args = KernelArgs::new(&kernel);
                part.buffers.args(
                    &mut args,
                    (&part.scratch.boundary, &part.scratch.outputs[set]),
                    profile,
                    (part.layout.group_cell[a], a),
                    self.kind,
                    scoring,
                    (
                        span,
                        if long {
                            work_group
                        } else if self.kind == Banded::Team {
                            tuning.team
                        } else {
                            1
                        },
                    ),
                )?;
                if long {
                    args.local(2 * work_group * tile * 8)?.local(work_group * 6 * 4)?;
                }
                if let Some(slot_rows) = slot_rows {
                    args.local(work_group * 6 * 4)?
                        .arg(&slot_rows.get())?
                        .arg(&(queries.len() as i32))?
                        .arg(&part.slot_cells)?
                        .arg(&slot_entries)?;
                }
                events.push(launch(&queue, &kernel, (b - a) * work_group * queries.len(), work_group)?);
            }
            kernels.push(kernel);
            pending.push((span, events));
        }
        let mut parts = Vec::with_capacity(pending.len());
        for (part, (span, events)) in self.parts.iter().zip(pending) {
            // scan_team's score-only build writes no end cells, so they are not read;
            // the other kernels always give them.
            let reads = part.scratch.outputs[set].read_after(&queue, &[], ends || self.kind != Banded::Team)?;
            parts.push((events, span, reads));
        }
        Ok(Launched { lengths, parts, inputs: (profiles, kernels) })
    }

    /// Waits for a launch's outputs: each query's scores in the caller's order, and the
    /// launch's inputs, which the caller releases when no launch is queued.
    fn land(&self, launched: Launched) -> Result<(Vec<ScanOutput>, LaunchInputs)> {
        let Launched { lengths, parts, inputs } = launched;
        let mut outs: Vec<ScanOutput> = lengths.iter().map(|_| ScanOutput::empty(self.subjects.len())).collect();
        if parts.is_empty() {
            return Ok((outs, inputs));
        }
        let mut results = Vec::with_capacity(parts.len());
        for (events, span, reads) in parts {
            results.push(reads.wait()?);
            let mut seconds = 0.0;
            for e in &events {
                seconds += event_seconds(e)?;
            }
            // The slots' shares of the launches: their padded rows.
            let rows: Vec<usize> = lengths.iter().map(|&m| m.div_ceil(span) * span).collect();
            let total = rows.iter().sum::<usize>().max(1) as f64;
            for (out, r) in outs.iter_mut().zip(rows) {
                out.kernel_seconds += seconds * r as f64 / total;
            }
        }
        // Back to the caller's order: a gather (random reads of the 32-bit outputs,
        // sequential writes) on this thread. Not on the thread pool: a search keeps the
        // pool busy with the hits of earlier queries, and a gather queued behind them
        // held up the device.
        let entries: Vec<usize> = self.parts.iter().map(|p| p.layout.lengths.len()).collect();
        for (slot, out) in outs.iter_mut().enumerate() {
            if lengths[slot] == 0 {
                continue;
            }
            out.scores = self
                .position
                .iter()
                .zip(&self.subjects)
                .map(|(&(q, p), subject)| {
                    let q = q as usize;
                    // Empty lanes (empty subjects) are not written by the kernels.
                    if subject.is_empty() {
                        LocalScore { score: 0, end: None }
                    } else {
                        results[q].get(slot * entries[q] + p as usize)
                    }
                })
                .collect();
        }
        Ok((outs, inputs))
    }
}

#[cfg(test)]
mod tests {
    use super::Tuning;

    #[test]
    fn launches_short_beside_their_longest_subject_get_larger_teams() {
        let t = Tuning::default();
        let longest = 35_213;
        // uniprot20k is 9,055,569 residues: x 20 and x 15 keep teams of 8, x 10 gets
        // 16, x 5 and x 2 get 32 (the H100's fastest in each case).
        let team = |copies: u64| t.for_launch(9_055_569 * copies, longest).team;
        assert_eq!([20, 15, 10, 5, 2].map(team), [8, 8, 16, 32, 32]);
        // The same database scanned for 20 queries a launch needs no larger team.
        assert_eq!(t.for_launch(9_055_569 * 2 * 20, longest).team, 8);
        // Off, and never past 32.
        assert_eq!(Tuning { chain_cover: 0, ..t }.for_launch(1, longest).team, 8);
        assert_eq!(t.for_launch(0, longest).team, 32);
        assert_eq!(t.for_launch(10, 0).team, 8);
        // A team the kernel cannot run is refused, not doubled forever.
        assert_eq!(Tuning { team: 0, ..t }.for_launch(0, longest).team, 0);
        for bad in
            [Tuning { team: 0, ..t }, Tuning { team: 12, ..t }, Tuning { min_team: 64, ..t }, Tuning { rows: 7, ..t }]
        {
            assert!(bad.check_team().is_err(), "{bad:?}");
        }
        assert!(t.check_team().is_ok());
    }

    #[test]
    fn rows_per_work_item_weigh_padding_by_each_shapes_speed() {
        let t = Tuning::default();
        // 176 rows are one pass of 8 x 22, the fastest shape: no padding.
        assert_eq!(t.rows_for(&[176], 8, 4096), 22);
        // 208 = 8 x 26 rows: 26 is slower than its neighbours, but 28 pads 16 rows more.
        assert_eq!(t.rows_for(&[208], 8, 4096), 26);
        // 1,000 rows: six passes of 22 (1,056 rows) beat five of 26 (1,040) at 26's
        // speed (counting padded rows alone, 26 would win).
        assert_eq!(t.rows_for(&[1000], 8, 4096), 22);
        // Local memory caps a pass: 160 rows for teams of 8 allow 20 rows at most.
        assert!(t.rows_for(&[176, 3000], 8, 160) <= 20);
        // Set rows are kept.
        assert_eq!(Tuning { rows: 12, ..t }.rows_for(&[176], 8, 4096), 12);
    }
}

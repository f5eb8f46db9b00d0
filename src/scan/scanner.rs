//! The resident scanner of the inter-task kernels, `inter` ([`super::inter`]) and `team`
//! ([`super::team`]): subjects laid out once on a device ([`GroupLayout`]), then for
//! each query (or each launch's slots of queries) its profile ([`QueryProfile`]),
//! launches over runs of work-groups sharing a boundary row in global memory, outputs
//! read back while the next query runs, and every subject whose narrow score saturated
//! recomputed with `scan_inter` at 32 bits (`WIDE=1`). psse's tiles of shuffles use its
//! buffers too.
//!
//! Over 600 lines: building a scanner, launching a query and landing its scores share
//! the private `Part` and `Launched`; apart, each would reach into the other's fields.

use super::layout::GroupLayout;
use super::layout_words::{DeviceResidues, StoredResidues, make_words};
use super::outputs::{OutputsInFlight, ScoreOutputs};
use super::profile::QueryProfile;
use super::windows::{self, Windows};
use super::{ScanOutput, inter, team};
use crate::device::{ClDevice, DeviceInfo, KernelArgs, cl, events_span_seconds, launch};
use crate::error::{Error, Result};
use crate::reference::LocalScore;
use crate::scoring::{Mode, Scoring};
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use rayon::prelude::*;

/// Which inter-task kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanKernel {
    /// `scan_inter`, 16-bit boundary rows.
    Inter,
    /// `scan_inter` with `WIDE=1`: 32 bits throughout, for saturated subjects.
    InterWide,
    /// `scan_team`: two subjects per team of `Tuning::team` work-items.
    Team,
    /// `scan_team_pairs`: two queries per team against one subject, score only (psse,
    /// whose queries all meet the same shuffles).
    TeamPairs,
}

impl ScanKernel {
    /// Subjects per work-item (`inter`), or per team (the two 16-bit lanes of `team`).
    pub fn lanes(self) -> usize {
        if self == ScanKernel::Team { 2 } else { 1 }
    }

    /// Bytes of one boundary-row element: (H, F) as 16-bit halves, or as two 32-bit
    /// values (`InterWide`), or as two packed pairs (`Team`).
    pub fn boundary_bytes(self) -> u64 {
        if self == ScanKernel::Inter { 4 } else { 8 }
    }

    /// Bytes of one score in the query profile: 32-bit for `InterWide`, else 16-bit.
    pub fn score_bytes(self) -> usize {
        if self == ScanKernel::InterWide { 4 } else { 2 }
    }

    /// The kernel's name in its program.
    pub fn kernel_name(self) -> &'static str {
        match self {
            ScanKernel::Team => "scan_team",
            ScanKernel::TeamPairs => "scan_team_pairs",
            ScanKernel::Inter | ScanKernel::InterWide => "scan_inter",
        }
    }

    /// The value above which a narrow score may be wrong (the kernels report
    /// [`SATURATED`](super::SATURATED) there).
    pub fn sat_limit(self, scoring: &Scoring) -> i32 {
        match self {
            ScanKernel::InterWide => i32::MAX,
            // Only the 16-bit boundary row limits scan_inter; its arithmetic is 32-bit.
            ScanKernel::Inter => i16::MAX as i32,
            // A true 16-bit lane can wrap once a cell passes 32767 - max(S), its
            // scores S + 2 extend in the global lanes (profile::shifted).
            ScanKernel::Team | ScanKernel::TeamPairs => {
                let shift = if super::profile::shifted(self, scoring) { 2 * scoring.gaps.extend } else { 0 };
                i16::MAX as i32 - (scoring.max_score() + shift).max(0)
            }
        }
    }

    /// The built program for this kernel and tuning (cached per device) in `mode`;
    /// `ends`: with end cells (`scan_team` can leave them out; `scan_team_pairs` is in
    /// the local build without).
    pub fn program(
        self,
        dev: &ClDevice,
        tuning: &Tuning,
        ends: bool,
        mode: Mode,
    ) -> Result<std::sync::Arc<opencl3::program::Program>> {
        self.program_of(dev, tuning, ends, mode, false)
    }

    /// Entry point `name` of this kind's program for `tuning`, `ends` and `mode`, for
    /// launches of `work_group` work-items: the team kinds' through [`team::kernel`]
    /// (with sub-group shuffles or their twin, and the built kernel's work-group limit).
    pub(crate) fn kernel(
        self,
        dev: &ClDevice,
        name: &str,
        tuning: &Tuning,
        ends: bool,
        mode: Mode,
        work_group: usize,
    ) -> Result<Kernel> {
        if matches!(self, ScanKernel::Team | ScanKernel::TeamPairs) {
            return team::kernel(dev, self, name, tuning, ends, mode, work_group);
        }
        let program = self.program(dev, tuning, ends, mode)?;
        cl("clCreateKernel", Kernel::create(&program, name))
    }

    /// [`program`](Self::program), or with `twin` the team kernels' build without
    /// sub-group shuffles (cl/clsw_common.h: CLSW_SUBGROUPS).
    pub(crate) fn program_of(
        self,
        dev: &ClDevice,
        tuning: &Tuning,
        ends: bool,
        mode: Mode,
        twin: bool,
    ) -> Result<std::sync::Arc<opencl3::program::Program>> {
        let mut defines = match self {
            ScanKernel::Inter | ScanKernel::InterWide => {
                let wide = (self == ScanKernel::InterWide) as u8;
                vec![("BAND", tuning.band.to_string()), ("WIDE", wide.to_string())]
            }
            // One kernel a program (cl/scan_team.cl: PAIRS).
            ScanKernel::Team | ScanKernel::TeamPairs => {
                let scan = self == ScanKernel::Team;
                let mut d = vec![
                    ("TEAM", tuning.team.to_string()),
                    ("ROWS", tuning.rows.to_string()),
                    ("ENDS", ((ends && scan) as u8).to_string()),
                    ("PAIRS", (!scan as u8).to_string()),
                ];
                // scan_team's local profile for the shape (scan_team_pairs has its own).
                if scan {
                    d.push(("TEAM_SLOTTED", (team::slotted(mode, tuning.team, tuning.rows) as u8).to_string()));
                }
                d
            }
        };
        // The mode's define only outside the local mode.
        if mode != Mode::Local {
            defines.push(super::mode_define(mode));
        }
        // The team kernels' hand-off by sub-group shuffles, where the device has them,
        // unless the twin is asked for (the build every other device runs).
        if !twin && matches!(self, ScanKernel::Team | ScanKernel::TeamPairs) && dev.subgroup_shuffles() {
            defines.push(("CLSW_SUBGROUPS", "1".to_string()));
        }
        let source =
            if matches!(self, ScanKernel::Inter | ScanKernel::InterWide) { &inter::SOURCE } else { &team::SOURCE };
        dev.program(source, &defines)
    }
}

/// Tuning of the inter-task kernels (the measurements behind the defaults are in
/// BENCHMARKS.md).
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// `inter` only: query rows per band (even).
    pub band: usize,
    /// `inter` only: work-items per work-group.
    pub group: usize,
    /// `team` only: the most work-items per pair of subjects (a power of two up to
    /// 32); subjects shorter than 12 x team get smaller teams down to `min_team`
    /// (`team_for`); long subjects (`is_long`) get `team` and a long group of their own.
    pub team: usize,
    /// `team` only: work-items per work-group.
    pub team_group: usize,
    /// `team` only: query rows per work-item (even), or 0 to choose per query
    /// (`rows_for`).
    pub rows: usize,
    /// `team` only: the smallest team (`team_for`), a power of two. Teams of 8 for
    /// every subject by default: each team size is a launch of its own, and the
    /// launches of short subjects' small teams cost more in their own latency than
    /// their fill and drain save.
    pub min_team: usize,
    /// `team` only: how much work a launch must hold for a subject's team not to set
    /// its length ([`is_long`](Self::is_long)); 0: no subject is long.
    pub long_cover: u64,
    /// `team` only: how the long subjects are cut into windows for short queries
    /// ([`windows`](super::windows)); a stride of 0: not cut.
    pub windows: Windows,
    /// The host (the native path) takes pairs the device would do slowly: a query's
    /// few saturated subjects ([`host_recompute_limit`]), and in the global and glocal
    /// modes the long subjects of a short query ([`PartLayout::host_takes_long`]).
    /// `false`: the device does all (its 32-bit recompute, its long groups).
    pub host_assist: bool,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            band: 32,
            group: 64,
            team: 8,
            team_group: 128,
            rows: 0,
            min_team: 8,
            long_cover: 131_000,
            windows: Windows { stride: 2048, overlap: 6144 },
            host_assist: true,
        }
    }
}

/// Subjects of an inter-task kernel on the device: the group layout's buffers, in the order
/// the kernels take them (shared by the scanner below and psse's tiles of shuffles).
pub(crate) struct SubjectBuffers {
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

impl SubjectBuffers {
    /// A layout's tables on `dev`, and its words as `words` makes them there from the
    /// groups' first words and the lanes' lengths (on the device).
    pub(crate) fn new(
        dev: &ClDevice,
        group_word: &[u32],
        lengths: &[u32],
        group_cell: &[u64],
        words: impl FnOnce(&Buffer<u32>, &Buffer<u32>) -> Result<Buffer<u32>>,
    ) -> Result<SubjectBuffers> {
        let (group_word, lengths) = (dev.buffer_from(group_word)?, dev.buffer_from(lengths)?);
        Ok(SubjectBuffers {
            words: words(&group_word, &lengths)?,
            group_word,
            lengths,
            group_cell: dev.buffer_from(group_cell)?,
        })
    }

    /// Every argument `scan_inter`, `scan_team` and `scan_team_pairs` share: the query
    /// profile, these buffers and the boundary row, the launch's first boundary cell and
    /// group, the gaps and the saturation limit, local memory for the profiles of
    /// `bands` bands of `span` rows (for the team kernels, `bands` is the team size:
    /// its pass of `span` rows; `scan_team` holds `profiles` of them, one per stage of
    /// its long groups), the outputs; then `scan_inter`'s query length.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn args<'a, 'k>(
        &self,
        args: &'a mut KernelArgs<'k>,
        (boundary, outputs): (&Buffer<u8>, &ScoreOutputs),
        profile: &QueryProfile,
        (first_cell, first_group): (u64, usize),
        kind: ScanKernel,
        scoring: &Scoring,
        (span, bands, profiles): (usize, usize, usize),
    ) -> Result<&'a mut KernelArgs<'k>> {
        // Each band's local profile: letters x (span + 2) scores.
        let profile_bytes = match kind {
            ScanKernel::Team => team::profile_bytes(profile.letters, bands, span / bands.max(1), profiles),
            // scan_team_pairs: letters x PAIR_STRIDE words (rows rounded up to four).
            ScanKernel::TeamPairs => profile.letters * (bands * (span / bands).next_multiple_of(4) + 4) * 4,
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
            .arg(&kind.sat_limit(scoring))?;
        if matches!(kind, ScanKernel::Team | ScanKernel::TeamPairs) {
            // `lane_up` (cl/clsw_common.h: low_half).
            args.arg(&65_536u32)?;
        }
        args.local(profile_bytes)?;
        outputs.args(args)?;
        if matches!(kind, ScanKernel::Inter | ScanKernel::InterWide) {
            args.arg(&(profile.lengths[0] as i32))?;
        }
        Ok(args)
    }
}

/// A query's launches in flight ([`Scanner::launch`]): per part its launch events,
/// span, output reads and the columns its windows skipped (`None`: it walked the long
/// groups); then its inputs, kept until the caller releases them (fields drop in order:
/// the reads are waited for first).
struct Launched {
    lengths: Vec<usize>,
    parts: Vec<(Vec<Event>, usize, OutputsInFlight, Option<usize>)>,
    /// Per part whose long subjects the host scored instead of its long groups
    /// ([`PartLayout::host_takes_long`]): the part, and each slot's scores of them.
    host: Vec<(usize, Vec<ScanOutput>)>,
    inputs: LaunchInputs,
}

/// What a launch reads besides the layout: its query profiles (with their slot rows)
/// and kernel objects.
type LaunchInputs = (Vec<(usize, QueryProfile, Option<Buffer<i32>>)>, Vec<Kernel>);

/// Launches whose inputs [`Scanner::scores_each`] and psse's tiles keep before
/// they pause, with nothing queued, to release them (a profile is at most a few MB).
pub(crate) const RETIRE_EVERY: usize = 64;

/// The most saturated subjects of one query recomputed on the host (the native path,
/// exact in every mode) rather than on the device. The device's 32-bit recompute gives
/// each subject one work-item, about a tenth of a native SIMD lane's speed, and lays the
/// subjects out anew: a few long pairs (a global query against its own long homolog,
/// whose shifted lanes pass 16 bits) took 0.3-0.4 s there. The host runs a 32-bit lane
/// per subject on every core, so it is the faster up to several rounds of its lanes:
/// four rounds here (`Level::lanes` counts byte lanes, four to a 32-bit one).
fn host_recompute_limit() -> usize {
    crate::scan::native::Level::active().lanes() * rayon::current_num_threads()
}

/// Upper bound on the boundary-row buffer of one launch.
const BOUNDARY_BYTES: u64 = 1 << 30;

/// A long group's column step on an H100 while the rest of its launch runs beside it:
/// a one-pass query's launch on MFO in the global mode lasted 10.6 ms, its
/// 35,213-residue subject's walk (BENCHMARKS.md, "Global and glocal modes").
const LONG_STEP_SECONDS: f64 = 300e-9;

/// Cells a second of one pair on all of one host thread's SIMD lanes in the global
/// and glocal modes (`native::mode_pairs`; 1.0 G with AVX2 on a 2-core EPYC, more with
/// AVX-512).
const HOST_PAIR_CELLS_PER_SECOND: f64 = 1e9;

impl PartLayout {
    /// The local profiles a `scan_team` launch of this part holds in teams of `team`:
    /// one per stage of its long groups, else one.
    fn profiles(&self, team: usize) -> usize {
        if self.layout.first_long < self.layout.first_window { team::stages(team) } else { 1 }
    }

    /// The columns a launch of queries of `lengths`, in passes of `span` rows and teams
    /// of `team`, skips at the start of each window when it walks the windows instead of
    /// the long groups: when every query's alignments fit a window's reach and the
    /// windows' walk is the shorter. A long pair is walked column by column, by one
    /// team a pass and [`team::stages`] passes at once; a window by one team, its walked
    /// columns once a pass.
    fn window_skip(&self, lengths: &[usize], span: usize, team: usize, scoring: &Scoring) -> Option<usize> {
        // Windows bound a local alignment's reach; the other modes' have none.
        if self.windows.is_empty() || scoring.mode != Mode::Local {
            return None;
        }
        let m = lengths.iter().copied().max().unwrap_or(0);
        let skip = self.cut.skip(m, scoring)?;
        let passes = m.div_ceil(span.max(1));
        let stages = if passes > 1 { team::stages(team) } else { 1 };
        let longest =
            self.layout.group_len[self.layout.first_long..self.layout.first_window].iter().max().copied().unwrap_or(0);
        let long_walk = longest as usize * passes.div_ceil(stages);
        let window_walk = (self.cut.stride + self.cut.overlap - skip) * passes;
        (window_walk < long_walk).then_some(skip)
    }

    /// How long the long groups of a launch of queries of `lengths` in teams of `team`
    /// and `rows` rows a work-item walk their passes [`team::stages`] at once, in
    /// rounds, each round the longest long subject's columns at
    /// [`team::long_step_seconds`] a step: as measured, in the local mode. 0 when the
    /// launch walks the windows, and for a query of one pass, whose long groups walk
    /// as the other groups do (a pair a team, without the stages' barriers); the other
    /// modes' rows are chosen as before.
    fn long_walk_seconds(&self, lengths: &[usize], team: usize, rows: usize, scoring: &Scoring) -> f64 {
        let span = team * rows;
        let walks = scoring.mode == Mode::Local
            && self.layout.first_long < self.layout.first_window
            && self.window_skip(lengths, span, team, scoring).is_none();
        if !walks {
            return 0.0;
        }
        let longest = self.layout.group_len[self.layout.first_long..self.layout.first_window].iter().max();
        let columns = longest.copied().unwrap_or(0) as f64;
        let rounds = |m: usize| match m.div_ceil(span.max(1)) {
            0 | 1 => 0,
            passes => passes.div_ceil(team::stages(team)),
        };
        let most = lengths.iter().map(|&m| rounds(m)).max().unwrap_or(0);
        most as f64 * columns * team::long_step_seconds(rows)
    }

    /// Whether the host (the native path, beside the launch) scores this part's long
    /// subjects against queries of `lengths` in passes of `span` rows and teams of
    /// `team`, in place of the long groups: in the global and glocal modes, which have
    /// no windows, when their walk would outlast the host's pairs. A long group walks
    /// its pair column by column, [`team::stages`] passes at once, latency-bound; the
    /// host runs each pair on all of a thread's lanes, the longest first.
    fn host_takes_long(
        &self,
        lengths: &[usize],
        span: usize,
        team: usize,
        scoring: &Scoring,
        subjects: &[&[u8]],
    ) -> bool {
        if scoring.mode == Mode::Local || self.long.is_empty() {
            return false;
        }
        let m = lengths.iter().copied().max().unwrap_or(0);
        let passes = m.div_ceil(span.max(1));
        let stages = if passes > 1 { team::stages(team) } else { 1 };
        let long = || self.long.iter().map(|&k| subjects[k as usize].len() as f64);
        let longest = long().fold(0.0, f64::max);
        let device = longest * passes.div_ceil(stages) as f64 * LONG_STEP_SECONDS;
        let rows: f64 = lengths.iter().map(|&m| m as f64).sum();
        let threads = rayon::current_num_threads() as f64;
        let host = (longest * m as f64).max(long().sum::<f64>() * rows / threads) / HOST_PAIR_CELLS_PER_SECOND;
        host < device
    }
}

/// Subjects of one kernel's launches: their layout and where they came from, host work
/// alone (a [`ScannerPlan`]'s).
struct PartLayout {
    /// `scan_inter` or `scan_team`.
    kernel: &'static str,
    /// Work-items per work-group.
    work_group: usize,
    layout: GroupLayout,
    /// The part's subject k is the caller's subject `members[k]`.
    members: Vec<u32>,
    /// The caller's subjects in the long groups.
    long: Vec<u32>,
    /// Launches as runs of groups whose boundary rows (of every slot) fit one buffer:
    /// walking the long groups, and walking the windows instead.
    launches: Vec<(usize, usize)>,
    window_launches: Vec<(usize, usize)>,
    /// The launches before the long groups, for queries whose long subjects the host
    /// takes ([`Self::host_takes_long`]).
    short_launches: Vec<(usize, usize)>,
    /// How the long subjects were cut, and per window (the layout's subject
    /// `members.len() + w`): the caller's subject, its first column and its output.
    cut: Windows,
    windows: Vec<(u32, i64, u32)>,
    /// Boundary elements of one slot: the largest launch's.
    slot_cells: u64,
    /// The residues of the part's subjects (its members), which a query's launches
    /// walk once.
    residues: u64,
}

/// A part on its device.
struct Part {
    laid: PartLayout,
    /// The layout on the device, which every query reads.
    buffers: SubjectBuffers,
    /// The boundary rows and outputs of every slot, reused by every launch.
    scratch: Scratch,
}

/// A part before its layout: kernel, slots per group, work-group size, members, and
/// those of them that are long (the longest), in long groups.
type PartMembers = (&'static str, usize, usize, Vec<u32>, Vec<u32>);

/// The most queries one `scan_team` launch scans ([`Scanner::for_queries`]).
const MAX_SLOTS: usize = 32;

/// A scanner before its device: subjects arranged for a device of a given description,
/// host work alone, which may run while the device opens (and the subjects' residues
/// are written to it); their words are made on the device ([`Scanner::upload`]).
pub struct ScannerPlan<'d> {
    kind: ScanKernel,
    tuning: Tuning,
    parts: Vec<PartLayout>,
    subjects: Vec<&'d [u8]>,
    position: Vec<(u32, u32)>,
    slots: usize,
    /// The largest allocation of the device it was made for: its launches' boundary
    /// rows fit one.
    max_alloc_bytes: u64,
}

/// A set of subjects laid out and resident on one device for an inter-task kernel.
pub struct Scanner<'d> {
    dev: &'d ClDevice,
    kind: ScanKernel,
    tuning: Tuning,
    parts: Vec<Part>,
    /// The caller's subjects, for the 32-bit recompute of saturated ones.
    subjects: Vec<&'d [u8]>,
    /// Where each caller subject's result lands: (part, output index in a slot).
    position: Vec<(u32, u32)>,
    /// Queries a launch may scan at once (`scan_team` only; 1 for the others).
    slots: usize,
    /// The stored residues the subjects lie in, where the caller's were written from
    /// there (a database's range): a scanner for some of them writes them from there
    /// rather than from a copy ([`Self::rescanner`]).
    stored: Option<&'d [u8]>,
}

impl<'d> ScannerPlan<'d> {
    /// Arranges `subjects` for [`Scanner::for_queries`] on a device described by
    /// `info`, without the device.
    pub fn new(
        info: &DeviceInfo,
        kind: ScanKernel,
        tuning: Tuning,
        subjects: Vec<&'d [u8]>,
        pad_code: u8,
        queries: usize,
    ) -> Result<ScannerPlan<'d>> {
        super::check_kernel_lengths(0, subjects.iter().map(|s| s.len()))?;
        if kind == ScanKernel::Team {
            tuning.check_team()?;
        }
        let mut split: Vec<PartMembers> = match kind {
            ScanKernel::TeamPairs => {
                return Err(Error::InvalidArgument("scan_team_pairs aligns psse's query pairs, not a scan".into()));
            }
            ScanKernel::Inter | ScanKernel::InterWide => {
                vec![(kind.kernel_name(), tuning.group, tuning.group, (0..subjects.len() as u32).collect(), Vec::new())]
            }
            ScanKernel::Team => {
                // One part per team size (`team_for`: one for all unless `min_team` is
                // below `team`), each its own launches; the long subjects (`is_long`) in
                // the largest team's part, in long groups of their own.
                let residues: u64 = subjects.par_iter().map(|s| s.len() as u64).sum();
                let residues = residues.saturating_mul(queries.clamp(1, MAX_SLOTS) as u64);
                // Each subject's team and whether it is long, then each team's members
                // in order, on every core (11 M subjects: 0.13 s on one thread).
                let team_of: Vec<(usize, bool)> = subjects
                    .par_iter()
                    .map(|s| {
                        let long = tuning.is_long(s.len(), residues);
                        (if long { tuning.team } else { tuning.team_for(s.len()) }, long)
                    })
                    .collect();
                let add = |mut teams: Vec<usize>, team: usize| {
                    if !teams.contains(&team) {
                        teams.push(team);
                    }
                    teams
                };
                let mut teams = team_of
                    .par_iter()
                    .fold(Vec::new, |teams, &(team, _)| add(teams, team))
                    .reduce(Vec::new, |a, b| b.into_iter().fold(a, add));
                teams.sort_unstable();
                teams
                    .into_iter()
                    .map(|team| {
                        let of_team = |long: bool| -> Vec<u32> {
                            (0..subjects.len() as u32)
                                .into_par_iter()
                                .filter(|&k| team_of[k as usize].0 == team && (team_of[k as usize].1 || !long))
                                .collect()
                        };
                        (team, of_team(false), of_team(true))
                    })
                    .map(|(team, members, long)| {
                        let (teams, work_group) = tuning.team_work_group(team, super::team::max_work_group(info))?;
                        Ok((kind.kernel_name(), teams, work_group, members, long))
                    })
                    .collect::<Result<_>>()?
            }
        };
        split.retain(|(_, _, _, members, _)| !members.is_empty());
        // scan_team counts a group's boundary elements (its longest subject x its teams)
        // in 32 bits, as a 64-bit count cost 2% of its loop: longer subjects are refused.
        if kind == ScanKernel::Team {
            for (_, teams, _, members, _) in &split {
                let longest = members.iter().map(|&k| subjects[k as usize].len()).max().unwrap_or(0);
                if longest as u64 * *teams as u64 > i32::MAX as u64 {
                    return Err(Error::InvalidArgument(format!(
                        "a subject of {longest} residues is too long for the team kernel in groups of {teams} \
                         teams (its boundary row passes {} elements); use the inter variant or the native path",
                        i32::MAX
                    )));
                }
            }
        }
        let elem = kind.boundary_bytes();
        let budget = BOUNDARY_BYTES.min(info.max_alloc_bytes / 2) / elem;
        let cut = if kind == ScanKernel::Team { tuning.windows } else { Windows { stride: 0, overlap: 0 } };
        let layouts = split
            .into_iter()
            .map(|(kernel, slots_per_group, work_group, members, long)| {
                // The long members (`is_long` grows with the length: the longest, as
                // GroupLayout takes them) cut into windows, which follow the members.
                let cut_from = if cut.stride > 0 { &long[..] } else { &[] };
                let mut windows = Vec::new();
                let mut lengths: Vec<u32> = members.par_iter().map(|&k| subjects[k as usize].len() as u32).collect();
                for &k in cut_from {
                    let n = subjects[k as usize].len();
                    for start in cut.starts(n) {
                        windows.push((k, start, 0));
                        lengths.push(cut.columns(n, start) as u32);
                    }
                }
                let layout = GroupLayout::with_long(
                    &lengths,
                    slots_per_group,
                    kind.lanes(),
                    pad_code,
                    long.len(),
                    windows.len(),
                )?;
                for (p, &k) in layout.subject_of.iter().enumerate() {
                    if let Some(w) = (k as usize).checked_sub(members.len()).filter(|_| k != u32::MAX) {
                        windows[w].2 = p as u32;
                    }
                }
                Ok((kernel, work_group, members, long, layout, windows))
            })
            .collect::<Result<Vec<_>>>()?;
        // Slots while every slot's boundary row of the largest group fits the budget.
        let largest_group =
            layouts.iter().flat_map(|(_, _, _, _, l, _)| (0..l.groups()).map(|g| l.cells(g, g + 1))).max().unwrap_or(1);
        let slots = if kind == ScanKernel::Team {
            queries.clamp(1, MAX_SLOTS).min((budget / largest_group.max(1)).max(1) as usize)
        } else {
            1
        };
        let mut parts = Vec::new();
        for (kernel, work_group, members, long, layout, windows) in layouts {
            let launches = layout.launches(budget / slots as u64, false);
            let window_launches =
                if windows.is_empty() { Vec::new() } else { layout.launches(budget / slots as u64, true) };
            let first_long = layout.first_long;
            let short_launches =
                launches.iter().filter(|r| r.0 < first_long).map(|&(a, b)| (a, b.min(first_long))).collect();
            let slot_cells = (launches.iter().map(|&(a, b)| layout.launch_cells(a, b, false)))
                .chain(window_launches.iter().map(|&(a, b)| layout.launch_cells(a, b, true)))
                .max()
                .unwrap_or(1);
            let residues = members.par_iter().map(|&k| subjects[k as usize].len() as u64).sum();
            parts.push(PartLayout {
                residues,
                kernel,
                work_group,
                launches,
                window_launches,
                short_launches,
                cut,
                windows,
                layout,
                members,
                long,
                slot_cells,
            });
        }
        // Scattered on every core (11 M subjects of a 20 G-residue database's share:
        // random writes), each subject's slot written once.
        let slots_of: Vec<std::sync::atomic::AtomicU64> =
            (0..subjects.len()).into_par_iter().map(|_| std::sync::atomic::AtomicU64::new(0)).collect();
        for (q, part) in parts.iter().enumerate() {
            part.layout.subject_of.par_iter().enumerate().with_min_len(1 << 14).for_each(|(p, &k)| {
                // Windows (past the members) land in `land`.
                if let Some(&subject) = part.members.get(k as usize) {
                    slots_of[subject as usize].store((q as u64) << 32 | p as u64, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
        let position: Vec<(u32, u32)> =
            slots_of.into_par_iter().map(|s| s.into_inner()).map(|s| ((s >> 32) as u32, s as u32)).collect();
        Ok(ScannerPlan { kind, tuning, parts, subjects, position, slots, max_alloc_bytes: info.max_alloc_bytes })
    }
}

impl<'d> Scanner<'d> {
    /// Lays out `subjects` (alphabet codes) and uploads them; `pad_code` is the
    /// alphabet size (the profile's padding letter). Queries are scanned one at a time.
    pub fn new(
        dev: &'d ClDevice,
        kind: ScanKernel,
        tuning: Tuning,
        subjects: &[&'d [u8]],
        pad_code: u8,
    ) -> Result<Scanner<'d>> {
        Scanner::for_queries(dev, kind, tuning, subjects, pad_code, 1)
    }

    /// [`new`](Self::new) for callers that scan `queries` queries together
    /// ([`scores_many`](Self::scores_many)): `scan_team` then keeps boundary rows and
    /// outputs for up to that many (at most 32) and scans them in one launch, within
    /// the same boundary-row budget.
    pub fn for_queries(
        dev: &'d ClDevice,
        kind: ScanKernel,
        tuning: Tuning,
        subjects: &[&'d [u8]],
        pad_code: u8,
        queries: usize,
    ) -> Result<Scanner<'d>> {
        // On the device side's pool: the self-test, a batch and a recompute make
        // scanners on threads that a worker of the global pool may be waiting for.
        super::on_device_side_pool(|| {
            let stored = StoredResidues::of_subjects(subjects)?;
            Scanner::arranged_beside(dev, stored, || {
                ScannerPlan::new(&dev.info, kind, tuning, subjects.to_vec(), pad_code, queries)
            })
        })
    }

    /// The scanner of the plan that `arrange` makes on this thread while `stored`, its
    /// subjects' residues, are written to `dev` from another.
    pub fn arranged_beside(
        dev: &'d ClDevice,
        stored: StoredResidues<'d>,
        arrange: impl FnOnce() -> Result<ScannerPlan<'d>>,
    ) -> Result<Scanner<'d>> {
        let kept = stored.borrowed();
        let (plan, residues) = std::thread::scope(|scope| {
            let written = scope.spawn(move || stored.write(dev));
            let plan = arrange();
            let residues = written
                .join()
                .unwrap_or_else(|_| Err(Error::Internal("a thread writing residues to a device panicked".into())));
            (plan, residues)
        });
        Ok(Scanner::upload(dev, plan?, &residues?)?.kept_from(kept))
    }

    /// This scanner, its subjects' residues stored in `bytes` (if `Some`): a scanner for
    /// some of them ([`Self::rescanner`]) writes them from there.
    pub(crate) fn kept_from(mut self, bytes: Option<&'d [u8]>) -> Scanner<'d> {
        self.stored = bytes;
        self
    }

    /// A scanner of `kind` for `subjects` (this one's, or some of them) on its device:
    /// their residues written from the stored residues they lie in, else from a copy
    /// (a share's whole recompute at 32 bits copied 5 GB a device).
    fn rescanner(&self, kind: ScanKernel, subjects: &[&'d [u8]], pad: u8) -> Result<Scanner<'d>> {
        super::on_device_side_pool(|| {
            let stored = match self.stored.and_then(|bytes| StoredResidues::within(bytes, subjects)) {
                Some(stored) => stored,
                None => StoredResidues::of_subjects(subjects)?,
            };
            Scanner::arranged_beside(self.dev, stored, || {
                ScannerPlan::new(&self.dev.info, kind, self.tuning, subjects.to_vec(), pad, 1)
            })
        })
    }

    /// A plan's words made on `dev` from `residues` (its subjects', in its order);
    /// `dev` must allow allocations as large as the device the plan was made for.
    pub fn upload(dev: &'d ClDevice, plan: ScannerPlan<'d>, residues: &DeviceResidues) -> Result<Scanner<'d>> {
        let ScannerPlan { kind, tuning, parts, subjects, position, slots, max_alloc_bytes } = plan;
        if dev.info.max_alloc_bytes < max_alloc_bytes {
            return Err(Error::InvalidArgument(format!(
                "subjects laid out for allocations of {max_alloc_bytes} bytes cannot go to {}, which allows {}",
                dev.info.label(),
                dev.info.max_alloc_bytes
            )));
        }
        if residues.subjects() != subjects.len() || !residues.is_on(dev) {
            return Err(Error::Internal(format!(
                "residues of {} subjects written to another device, or for a plan of {}",
                residues.subjects(),
                subjects.len()
            )));
        }
        let elem = kind.boundary_bytes();
        // On the device side's pool: each share uploads on a thread of its own, which a
        // worker of the global pool may be waiting for.
        let parts = super::on_device_side_pool(|| {
            parts
                .into_iter()
                .map(|laid| {
                    let layout = &laid.layout;
                    // The layout's subjects: members, then windows, each reaching back
                    // `lead` columns of padding before its subject's first residue.
                    let members = laid.members.len();
                    let sources = layout.lane_sources(|k| match (k as usize).checked_sub(members) {
                        None => (residues.start(laid.members[k as usize]) as i64, 0),
                        Some(w) => {
                            let (subject, start, _) = laid.windows[w];
                            (residues.start(subject) as i64 + start, (-start).max(0) as u32)
                        }
                    });
                    let buffers = SubjectBuffers::new(
                        dev,
                        &layout.group_word,
                        &layout.lengths,
                        &layout.group_cell,
                        |group_word, lengths| make_words(dev, layout, residues, &sources, group_word, lengths),
                    )?;
                    let scratch =
                        Scratch::new(dev, (laid.slot_cells * elem) as usize * slots, layout.lengths.len() * slots)?;
                    Ok(Part { laid, buffers, scratch })
                })
                .collect::<Result<Vec<_>>>()
        })?;
        Ok(Scanner { dev, kind, tuning, parts, position, subjects, slots, stored: None })
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
        if !super::fits_16_bits(scoring) && self.kind != ScanKernel::InterWide {
            let wide = self.rescanner(ScanKernel::InterWide, &self.subjects, pad)?;
            return queries.iter().map(|q| wide.scan_with(&[q], scoring, true).map(|mut o| o.remove(0))).collect();
        }
        let mut outs = self.run(queries, scoring, ends)?;
        for (query, out) in queries.iter().zip(outs.iter_mut()) {
            self.complete(query, out, scoring)?;
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
        if !super::fits_16_bits(scoring) && self.kind != ScanKernel::InterWide {
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
                self.complete(&queries[i], &mut outs[0], scoring)?;
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

    /// Completes the kernels' `out`: the pairs with an empty side, which no kernel
    /// computes, from the reference (an edge in the non-local modes); then at 32 bits
    /// the subjects whose narrow score saturated ([`SATURATED`](super::SATURATED)), and
    /// in the non-local modes those whose cells could pass 16 bits at the bottom
    /// ([`narrow_subjects`](super::narrow_subjects)).
    fn complete(&self, query: &[u8], out: &mut ScanOutput, scoring: &Scoring) -> Result<()> {
        for (k, subject) in self.subjects.iter().enumerate() {
            if query.is_empty() || subject.is_empty() {
                out.scores[k] = crate::reference::score(query, subject, scoring);
            }
        }
        let narrow = match self.kind {
            ScanKernel::InterWide => usize::MAX,
            kind => super::narrow_subjects(kind, scoring, query.len()),
        };
        let saturated: Vec<usize> = super::on_device_side_pool(|| {
            (0..self.subjects.len())
                .into_par_iter()
                .with_min_len(1 << 14)
                .filter(|&k| {
                    let n = self.subjects[k].len();
                    out.scores[k].score == super::SATURATED || (n > narrow && !query.is_empty())
                })
                .collect()
        });
        if saturated.is_empty() {
            return Ok(());
        }
        let subset: Vec<&[u8]> = saturated.iter().map(|&k| self.subjects[k]).collect();
        let wide = if self.tuning.host_assist && saturated.len() <= host_recompute_limit() {
            super::on_device_side_pool(|| {
                crate::scan::native::scores(query, &subset, scoring, crate::scan::native::Report::Ends)
            })?
        } else {
            let pad = scoring.matrix.size() as u8;
            let wide = self.rescanner(ScanKernel::InterWide, &subset, pad)?;
            wide.run(&[query], scoring, true)?.remove(0)
        };
        for (&k, r) in saturated.iter().zip(wide.scores) {
            out.scores[k] = r;
        }
        out.kernel_seconds += wide.kernel_seconds;
        out.recomputed = saturated.len();
        Ok(())
    }

    /// The tuning of `part`'s launches for queries of `lengths` scanned together, with
    /// end cells or not (`ends`), and its query rows per band or pass: scan_team's rows
    /// per work-item follow the queries' lengths, the part's team size, its long
    /// groups' walk and the local memory the build leaves.
    fn part_tuning(&self, part: &PartLayout, lengths: &[usize], scoring: &Scoring, ends: bool) -> (Tuning, usize) {
        if self.kind != ScanKernel::Team {
            return (self.tuning, self.tuning.band);
        }
        let team = part.work_group / part.layout.group_size;
        let profiles = part.profiles(team);
        let letters = super::profile::letters(scoring);
        let build = (ends, scoring.mode);
        let max_span = team::max_span(self.dev, self.kind, part.work_group, letters, team, profiles, build);
        let residues = part.residues as f64;
        let walk = |rows| part.long_walk_seconds(lengths, team, rows, scoring);
        let rows = self.tuning.rows_for_launch(lengths, team, max_span, scoring.mode, residues, walk);
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
        if !super::fits_16_bits(scoring) && self.kind != ScanKernel::InterWide {
            return Ok(());
        }
        for &m in lengths.iter().filter(|&&m| m > 0) {
            for part in &self.parts {
                // The build the launch takes (for team: with sub-group shuffles or not).
                let tuning = self.part_tuning(&part.laid, &[m], scoring, false).0;
                let (name, group) = (part.laid.kernel, part.laid.work_group);
                self.kind.kernel(self.dev, name, &tuning, false, scoring.mode, group)?;
            }
        }
        Ok(())
    }

    /// Enqueues the kernels of `queries` (at most `self.slots`, each in a slot of its
    /// own) writing output set `set`, and the reads of their outputs, without waiting.
    fn launch(&self, queries: &[&[u8]], scoring: &Scoring, ends: bool, set: usize) -> Result<Launched> {
        assert!(queries.len() <= self.slots, "more queries than the scanner has slots");
        queries.iter().try_for_each(|q| scoring.check_query(q, "the query"))?;
        let lengths: Vec<usize> = queries.iter().map(|q| q.len()).collect();
        if lengths.iter().all(|&m| m == 0) || self.subjects.is_empty() {
            return Ok(Launched { lengths, parts: Vec::new(), host: Vec::new(), inputs: (Vec::new(), Vec::new()) });
        }
        let dev = self.dev;
        let queue = dev.queue();
        let (mut pending, mut kernels) = (Vec::new(), Vec::new());
        // Query profiles padded to whole bands or passes, one per span (parts of one
        // span share it), with each slot's padded rows (scan_team's).
        let mut profiles: Vec<(usize, QueryProfile, Option<Buffer<i32>>)> = Vec::new();
        let mut host_long = Vec::with_capacity(self.parts.len());
        for part in &self.parts {
            let (tuning, span) = self.part_tuning(&part.laid, &lengths, scoring, ends);
            let takes = self.kind == ScanKernel::Team
                && self.tuning.host_assist
                && part.laid.host_takes_long(&lengths, span, tuning.team, scoring, &self.subjects);
            host_long.push(takes);
            if !profiles.iter().any(|(s, _, _)| *s == span) {
                let profile = QueryProfile::of_slots(dev, self.kind, queries, scoring, span)?;
                // Each slot's padded rows, then its query's length.
                let rows: Vec<i32> = lengths
                    .iter()
                    .map(|&m| (m.div_ceil(span) * span) as i32)
                    .chain(lengths.iter().map(|&m| m as i32))
                    .collect();
                let slot_rows = (self.kind == ScanKernel::Team).then(|| dev.buffer_from(&rows)).transpose()?;
                profiles.push((span, profile, slot_rows));
            }
            let (_, profile, slot_rows) = profiles.iter().find(|(s, _, _)| *s == span).expect("profile of this span");
            let work_group = part.laid.work_group;
            let kernel = self.kind.kernel(dev, part.laid.kernel, &tuning, ends, scoring.mode, work_group)?;
            let slot_entries = i32::try_from(part.laid.layout.lengths.len())
                .map_err(|_| Error::InvalidArgument("a scan_team launch over 2 G subject slots; split it".into()))?;
            let skip = part.laid.window_skip(&lengths, span, tuning.team, scoring);
            let walks_windows = skip.is_some();
            let launches = if walks_windows {
                &part.laid.window_launches
            } else if takes {
                &part.laid.short_launches
            } else {
                &part.laid.launches
            };
            let mut events = Vec::new();
            for &(a, b) in launches {
                let mut args = KernelArgs::new(&kernel);
                part.buffers.args(
                    &mut args,
                    (&part.scratch.boundary, &part.scratch.outputs[set]),
                    profile,
                    (part.laid.layout.group_cell[part.laid.layout.group(a, walks_windows)], a),
                    self.kind,
                    scoring,
                    (
                        span,
                        if self.kind == ScanKernel::Team { tuning.team } else { 1 },
                        part.laid.profiles(tuning.team),
                    ),
                )?;
                if let Some(slot_rows) = slot_rows {
                    args.local(team::scratch_bytes(self.dev, self.kind, work_group, ends, scoring.mode))?
                        .arg(&slot_rows.get())?
                        .arg(&(queries.len() as i32))?
                        .arg(&part.laid.slot_cells)?
                        .arg(&slot_entries)?
                        .arg(&(part.laid.layout.first_long as i32))?
                        .arg(&(part.laid.layout.first_window as i32))?
                        .arg(&skip.map_or(-1, |s| s as i32))?;
                }
                events.push(launch(&queue, &kernel, (b - a) * work_group * queries.len(), work_group)?);
            }
            kernels.push(kernel);
            pending.push((span, events, skip));
        }
        let mut parts = Vec::with_capacity(pending.len());
        for (part, (span, events, skip)) in self.parts.iter().zip(pending) {
            // scan_team's score-only build writes no end cells, so they are not read;
            // the other kernels always give them.
            let reads = part.scratch.outputs[set].read_after(&queue, &[], ends || self.kind != ScanKernel::Team)?;
            parts.push((events, span, reads, skip));
        }
        // The long subjects the host takes, while the device walks the rest.
        let mut host = Vec::new();
        for (q, part) in self.parts.iter().enumerate().filter(|&(q, _)| host_long[q]) {
            let long: Vec<&[u8]> = part.laid.long.iter().map(|&k| self.subjects[k as usize]).collect();
            let outs = queries
                .iter()
                .map(|query| {
                    if query.is_empty() {
                        ScanOutput::empty(long.len())
                    } else {
                        crate::scan::native::mode_pairs(query, &long, scoring)
                    }
                })
                .collect();
            host.push((q, outs));
        }
        Ok(Launched { lengths, parts, host, inputs: (profiles, kernels) })
    }

    /// Waits for a launch's outputs: each query's scores in the caller's order, and the
    /// launch's inputs, which the caller releases when no launch is queued.
    fn land(&self, launched: Launched) -> Result<(Vec<ScanOutput>, LaunchInputs)> {
        let Launched { lengths, parts, host, inputs } = launched;
        if parts.is_empty() {
            return Ok((lengths.iter().map(|_| ScanOutput::empty(self.subjects.len())).collect(), inputs));
        }
        // An empty query's slot scores 0 everywhere; the others are gathered below.
        let mut outs: Vec<ScanOutput> =
            lengths.iter().map(|&m| ScanOutput::empty(if m == 0 { self.subjects.len() } else { 0 })).collect();
        let span = parts[0].1;
        let mut results = Vec::with_capacity(parts.len());
        let mut skips = Vec::with_capacity(parts.len());
        let mut events = Vec::new();
        for (part_events, _, reads, skip) in parts {
            results.push(reads.wait()?);
            skips.push(skip);
            events.extend(part_events);
        }
        // The launches' time on the device, from the first start to the last end, and
        // the slots' shares of it: their padded rows in the first part.
        let seconds = events_span_seconds(&events.iter().collect::<Vec<_>>())?;
        let rows: Vec<usize> = lengths.iter().map(|&m| m.div_ceil(span) * span).collect();
        let total = rows.iter().sum::<usize>().max(1) as f64;
        for (out, r) in outs.iter_mut().zip(rows) {
            out.kernel_seconds += seconds * r as f64 / total;
        }
        // Back to the caller's order: a gather (random reads of the 32-bit outputs,
        // sequential writes) on the device side's pool.
        let entries: Vec<usize> = self.parts.iter().map(|p| p.laid.layout.lengths.len()).collect();
        for (slot, out) in outs.iter_mut().enumerate() {
            if lengths[slot] == 0 {
                continue;
            }
            out.scores = super::on_device_side_pool(|| {
                self.position
                    .par_iter()
                    .zip(&self.subjects)
                    .with_min_len(1 << 14)
                    .map(|(&(q, p), subject)| {
                        let q = q as usize;
                        // Empty lanes (empty subjects) are not written by the kernels.
                        if subject.is_empty() {
                            LocalScore { score: 0, end: None }
                        } else {
                            results[q].get(slot * entries[q] + p as usize)
                        }
                    })
                    .collect()
            });
            // The long subjects the host scored, in place of the long groups' (not walked).
            for (q, outs) in &host {
                for (&k, &r) in self.parts[*q].laid.long.iter().zip(&outs[slot].scores) {
                    out.scores[k as usize] = r;
                }
            }
            // The long subjects of launches that walked their windows: the windows'
            // results folded, in place of the long groups' (not walked).
            for (q, part) in self.parts.iter().enumerate() {
                let Some(skip) = skips[q] else { continue };
                for run in part.laid.windows.chunk_by(|a, b| a.0 == b.0) {
                    let best = &mut out.scores[run[0].0 as usize];
                    *best = LocalScore { score: 0, end: None };
                    for &(_, start, p) in run {
                        windows::fold(best, results[q].get(slot * entries[q] + p as usize), start + skip as i64);
                    }
                }
            }
        }
        Ok((outs, inputs))
    }
}

#[cfg(test)]
mod tests {
    use super::{ScanKernel, ScannerPlan, Tuning};
    use crate::device::{DeviceInfo, DeviceKind};
    use crate::scoring::{Gaps, Matrix, Mode, Scoring};

    /// Who walks the long subjects in the non-local modes: the host beside a one-pass
    /// query (the device's long walk is the subject's length in latency-bound steps),
    /// the device's long groups beside a query of many passes (they walk several
    /// passes at once), and never the host in the local mode (its windows).
    #[test]
    fn the_host_takes_the_long_subjects_of_short_queries_in_the_other_modes() {
        let info = DeviceInfo { max_alloc_bytes: 1 << 30, ..DeviceInfo::described(0, "GPU", DeviceKind::Gpu, 132) };
        let lengths = [35_000usize, 20_000, 300, 250, 200, 150, 100, 50];
        let subjects: Vec<Vec<u8>> = lengths.iter().map(|&n| vec![1u8; n]).collect();
        let refs: Vec<&[u8]> = subjects.iter().map(Vec::as_slice).collect();
        // Subjects from 10,000 residues on are long here.
        let residues: u64 = lengths.iter().map(|&n| n as u64).sum();
        let tuning = Tuning { long_cover: residues * 8 / 10_000, ..Tuning::default() };
        let plan = ScannerPlan::new(&info, ScanKernel::Team, tuning, refs.clone(), 24, 1).unwrap();
        let part = plan.parts.iter().find(|p| !p.long.is_empty()).expect("a part with long subjects");
        assert_eq!(part.long.len(), 2, "the two longest are long");
        let local = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let (team, span) = (8, 8 * 20);
        for mode in [Mode::Global, Mode::Glocal] {
            let sc = local.clone().in_mode(mode);
            assert!(part.host_takes_long(&[144], span, team, &sc, &refs), "{mode}, one pass");
            assert!(!part.host_takes_long(&[5_000], span, team, &sc, &refs), "{mode}, 32 passes");
        }
        assert!(!part.host_takes_long(&[144], span, team, &local, &refs), "local");
    }
}

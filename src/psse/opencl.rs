//! The device side of psse: tiles of subjects whose shuffles are made on the device by
//! `psse_shuffle` (`cl/psse.cl`) straight into the inter-task layout, then aligned with
//! every query by the scan kernels `scan_team` (two shuffles per team of work-items, the
//! query's rows spread over the team), `scan_team_pairs` (two queries per team against
//! one shuffle: no score pairing) or `scan_inter` (one shuffle per work-item: Zhang et
//! al.'s design): their sources, arguments and layout are those of the scan's
//! [`Scanner`](crate::scan::scanner::Scanner).
//!
//! A launch's scores are read on a second queue while the next launch runs; each tile
//! has two sets of outputs for that.
//!
//! A tile is a run of subjects (sorted by length) whose entries (every shuffle, then the
//! subject itself, so the real score comes from the same kernel) fit the device-memory
//! budget. Its shuffles are made once and stay on the device while every query is aligned
//! against them ("one permutation, all queries"). Tiles are made as large as the budget
//! allows, which is at least Zhang's `T = compute units x resident work-items / N`
//! subjects on any device with memory to spare, so each launch fills the device several
//! times over.

use super::Variant;
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, event_seconds, launch};
use crate::error::{Error, Result};
use crate::scan::outputs::OutputsInFlight;
use crate::scan::profile::QueryProfile;
use crate::scan::scanner::{ScanKernel, Scratch, SubjectBuffers, Tuning};
use crate::scan::team;
use crate::scoring::Scoring;
use opencl3::command_queue::CommandQueue;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};

pub const SOURCE: KernelSource = KernelSource { name: "psse.cl", text: include_str!("../../cl/psse.cl") };

/// The alignment kernel actually run for `queries` queries: the variant asked for, or
/// the 32-bit `scan_inter` when the scoring cannot be held in 16 bits. `team` aligns
/// the queries two at a time (`scan_team_pairs`) where that takes less time than one
/// at a time: a launch of two queries costs PAIRS_COST launches of one.
pub(crate) fn choose_kernel(variant: Variant, scoring: &Scoring, queries: usize) -> ScanKernel {
    if !crate::scan::fits_16_bits(scoring) {
        ScanKernel::InterWide
    } else {
        match variant {
            Variant::Inter => ScanKernel::Inter,
            Variant::Team if queries.div_ceil(2) as f64 * PAIRS_COST < queries as f64 => ScanKernel::TeamPairs,
            Variant::Team => ScanKernel::Team,
        }
    }
}

/// Device time of a `scan_team_pairs` launch (two queries) over a `scan_team` launch
/// (one query) on the same shuffles, measured on an H100 (BENCHMARKS.md, psse).
const PAIRS_COST: f64 = 1.78;

/// Slots (work-items, or teams for `scan_team`) of a tile's groups and work-items of an
/// alignment work-group: `scan_team`'s teams of `Tuning::team` in work-groups of
/// `team_group` (within what `dev`'s work-groups hold), the others' `group` work-items.
fn tile_shape(dev: &ClDevice, kernel: ScanKernel, tuning: &Tuning) -> Result<(usize, usize)> {
    if is_team(kernel) {
        tuning.team_work_group(tuning.team, crate::scan::team::max_work_group(&dev.info))
    } else {
        Ok((tuning.group, tuning.group))
    }
}

fn is_team(kernel: ScanKernel) -> bool {
    matches!(kernel, ScanKernel::Team | ScanKernel::TeamPairs)
}

/// Queries a launch of `kernel` aligns at once.
pub(crate) fn queries_per_launch(kernel: ScanKernel) -> usize {
    if kernel == ScanKernel::TeamPairs { 2 } else { 1 }
}

/// Where a tile's entries sit: groups of `slots x lanes` consecutive entries, each
/// group as long as its longest entry (the layout of `src/scan/layout.rs`).
#[derive(Debug, Clone)]
pub(crate) struct TileLayout {
    pub slots: usize,
    pub lanes: usize,
    pub per_subject: usize,
    pub subjects: usize,
    pub group_len: Vec<u32>,
    pub group_word: Vec<u32>,
    /// Per group, then one past the last: first boundary element.
    pub group_cell: Vec<u64>,
    /// Per slot and lane: the entry's length (0 for empty lanes).
    pub lengths: Vec<u32>,
    pub words: usize,
}

impl TileLayout {
    /// `lengths`: the tile's subject lengths, ascending.
    pub fn new(lengths: &[usize], per_subject: usize, slots: usize, lanes: usize) -> Result<TileLayout> {
        crate::scan::check_kernel_lengths(0, lengths.iter().copied())?;
        let entries = lengths.len() * per_subject;
        let per_group = slots * lanes;
        let groups = entries.div_ceil(per_group);
        let cols_per_word = 4 / lanes;
        let mut l = TileLayout {
            slots,
            lanes,
            per_subject,
            subjects: lengths.len(),
            group_len: Vec::with_capacity(groups),
            group_word: Vec::with_capacity(groups),
            group_cell: Vec::with_capacity(groups + 1),
            lengths: vec![0; groups * per_group],
            words: 0,
        };
        let too_big = || Error::InvalidArgument("psse tile over 16 G residues; use fewer shuffles".into());
        let mut cells = 0u64;
        for g in 0..groups {
            let last = ((g + 1) * per_group).min(entries) - 1;
            let len = lengths[last / per_subject];
            l.group_len.push(u32::try_from(len).map_err(|_| too_big())?);
            l.group_word.push(u32::try_from(l.words).map_err(|_| too_big())?);
            l.group_cell.push(cells);
            l.words += len.div_ceil(cols_per_word) * slots;
            cells += (len * slots) as u64;
        }
        l.group_cell.push(cells);
        for (e, slot) in l.lengths.iter_mut().enumerate().take(entries) {
            *slot = lengths[e / per_subject] as u32;
        }
        u32::try_from(l.words).map_err(|_| too_big())?;
        Ok(l)
    }

    pub fn groups(&self) -> usize {
        self.group_len.len()
    }

    pub fn entries(&self) -> usize {
        self.subjects * self.per_subject
    }
}

/// Residues a tile may hold on `dev` (before the caller's own limit): the boundary rows
/// of the alignment kernel (about 4 bytes per residue) are the largest buffer; keep them
/// under a quarter of the device's memory, one allocation and 4 GiB.
pub(crate) fn tile_budget(dev: &ClDevice, kernel: ScanKernel) -> usize {
    let bytes = dev.info.max_alloc_bytes.min(dev.info.global_mem_bytes / 4).clamp(1 << 20, 4 << 30);
    (bytes as usize / kernel.boundary_bytes() as usize * kernel.lanes()).max(1)
}

/// Cuts subjects (sorted by length; their lengths given) into tiles of at most `budget`
/// residues of entries each (a subject alone may exceed it). Returns tile boundaries.
pub(crate) fn tiles(lengths: &[usize], per_subject: usize, budget: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut used = 0usize;
    for (k, &len) in lengths.iter().enumerate() {
        let cost = per_subject * len.max(1);
        if k > start && used + cost > budget {
            out.push((start, k));
            start = k;
            used = 0;
        }
        used += cost;
    }
    if start < lengths.len() {
        out.push((start, lengths.len()));
    }
    out
}

/// A tile's shuffles on the device, ready to be aligned with queries.
pub(crate) struct DeviceTile<'d> {
    dev: &'d ClDevice,
    kernel: ScanKernel,
    pub layout: TileLayout,
    buffers: SubjectBuffers,
    /// The boundary row every launch reuses (launches run one after another) and two
    /// sets of outputs, taken in turn: one launch writes one set while the other set's
    /// scores travel to the host.
    scratch: Scratch,
    /// The queue of those reads, beside the device's main queue of launches.
    reads: CommandQueue,
    /// The inputs of finished launches, released when the caller has nothing queued
    /// ([`Self::release_retired`]) or with the tile: NVIDIA's OpenCL blocks the release
    /// of a buffer or kernel while launches are queued, which made each launch wait for
    /// the one before.
    retired: std::sync::Mutex<Vec<LaunchInputs>>,
    /// Device seconds of the shuffle kernel.
    pub shuffle_seconds: f64,
}

/// The alignment of one or two queries with a tile, enqueued ([`DeviceTile::start`]):
/// its launch and the read of its scores, finished by [`DeviceTile::finish`].
pub(crate) struct Alignment {
    /// `None` when nothing was launched (empty queries or tile): every score is 0.
    launched: Option<Launched>,
    /// The queries' lengths.
    lengths: Vec<usize>,
}

/// A launch in flight.
struct Launched {
    event: Event,
    scores: OutputsInFlight,
    inputs: LaunchInputs,
}

/// What a launch reads besides the tile: its query profile, kernel object and slot rows.
type LaunchInputs = (QueryProfile, Kernel, Option<Buffer<i32>>);

/// What a tile is made of.
pub(crate) struct TileSpec<'a> {
    /// The subjects, ascending by length.
    pub subjects: &'a [&'a [u8]],
    /// Their indices in the caller's list (the generator's subject number).
    pub keys: &'a [u32],
    pub shuffles: usize,
    pub seed: u64,
    pub window: usize,
    /// The padding code (the alphabet size).
    pub pad: u8,
}

impl<'d> DeviceTile<'d> {
    /// Lays out the tile and makes its shuffles on the device.
    pub fn new(dev: &'d ClDevice, kernel: ScanKernel, spec: &TileSpec) -> Result<DeviceTile<'d>> {
        let tuning = Tuning::default();
        let lanes = kernel.lanes();
        let lengths: Vec<usize> = spec.subjects.iter().map(|s| s.len()).collect();
        let per_subject = spec.shuffles + 1;
        let (slots, _) = tile_shape(dev, kernel, &tuning)?;
        let layout = TileLayout::new(&lengths, per_subject, slots, lanes)?;
        let mut residues = Vec::with_capacity(lengths.iter().sum());
        let mut offsets = Vec::with_capacity(lengths.len());
        for s in spec.subjects {
            offsets.push(
                u32::try_from(residues.len()).map_err(|_| Error::InvalidArgument("tile over 4 G residues".into()))?,
            );
            residues.extend_from_slice(s);
        }
        let lengths32: Vec<u32> = lengths.iter().map(|&n| n as u32).collect();
        let cells = *layout.group_cell.last().unwrap_or(&0);
        // The words are the shuffle kernel's, below.
        let buffers = SubjectBuffers::new(dev, &layout.group_word, &layout.lengths, &layout.group_cell, |_, _| {
            dev.buffer::<u32>(layout.words)
        })?;
        let entries = layout.lengths.len() * queries_per_launch(kernel);
        let tile = DeviceTile {
            dev,
            kernel,
            buffers,
            scratch: Scratch::new(dev, cells as usize * kernel.boundary_bytes() as usize, entries)?,
            reads: dev.side_queue()?,
            retired: Default::default(),
            layout,
            shuffle_seconds: 0.0,
        };
        if tile.layout.groups() == 0 {
            return Ok(tile);
        }
        let d_residues = dev.buffer_from(&residues)?;
        let d_offsets = dev.buffer_from(&offsets)?;
        let d_subject_len = dev.buffer_from(&lengths32)?;
        let d_keys = dev.buffer_from(spec.keys)?;
        let d_group_len = dev.buffer_from(&tile.layout.group_len)?;
        let program = dev.program(&SOURCE, &[("LANES", lanes.to_string())])?;
        let k = cl("clCreateKernel", Kernel::create(&program, "psse_shuffle"))?;
        KernelArgs::new(&k)
            .arg(&d_residues.get())?
            .arg(&d_offsets.get())?
            .arg(&d_subject_len.get())?
            .arg(&d_keys.get())?
            .arg(&(lengths.len() as u32))?
            .arg(&(per_subject as u32))?
            .arg(&(spec.seed as u32))?
            .arg(&((spec.seed >> 32) as u32))?
            .arg(&(spec.window.min(u32::MAX as usize) as u32))?
            .arg(&(slots as u32))?
            .arg(&tile.buffers.group_word.get())?
            .arg(&d_group_len.get())?
            .arg(&tile.buffers.words.get())?
            .arg(&(spec.pad as u32))?;
        let queue = dev.queue();
        // One work-item per entry slot and lane: whole groups, so a group per work-group.
        let event = launch(&queue, &k, tile.layout.lengths.len(), slots * lanes)?;
        let seconds = event_seconds(&event)?;
        drop(queue);
        Ok(DeviceTile { shuffle_seconds: seconds, ..tile })
    }

    /// Enqueues the alignment of `queries` (one, or up to two for `scan_team_pairs`)
    /// with every entry, writing output set `set` (0 or 1), and the read of its scores;
    /// returns without waiting. The caller finishes an alignment before it starts
    /// another on the same set.
    pub fn start(&self, queries: &[&[u8]], scoring: &Scoring, set: usize) -> Result<Alignment> {
        assert!((1..=queries_per_launch(self.kernel)).contains(&queries.len()), "queries of one launch");
        let longest = queries.iter().map(|q| q.len()).max().unwrap_or(0);
        let lengths = queries.iter().map(|q| q.len()).collect();
        if longest == 0 || self.layout.groups() == 0 {
            return Ok(Alignment { launched: None, lengths });
        }
        let dev = self.dev;
        let outputs = &self.scratch.outputs[set];
        let defaults = Tuning::default();
        let (_, group) = tile_shape(dev, self.kernel, &defaults)?;
        // The same program as the scan's Scanner builds, so both share one cache entry;
        // scan_team without end cells (psse needs the scores alone).
        let (name, ends) = (self.kernel.kernel_name(), !is_team(self.kernel));
        // scan_team: rows per work-item for these queries, a pass within local memory
        // (as the scan's Scanner chooses them); the others' bands.
        let (tuning, span) = if is_team(self.kernel) {
            let letters = scoring.matrix.size() + 1;
            let max_span = team::max_span(dev, self.kernel, group, letters, defaults.team, 1, (ends, scoring.mode));
            let rows = defaults.rows_for(&[longest], defaults.team, max_span, scoring.mode);
            (Tuning { rows, ..defaults }, defaults.team * rows)
        } else {
            (defaults, defaults.band)
        };
        let profile = if self.kernel == ScanKernel::TeamPairs {
            QueryProfile::paired(dev, queries[0], queries.get(1).copied(), scoring, span)?
        } else {
            QueryProfile::new(dev, self.kernel, queries[0], scoring, span)?
        };
        let k = self.kernel.kernel(dev, name, &tuning, ends, scoring.mode, group)?;
        let mut args = KernelArgs::new(&k);
        let bands = if is_team(self.kernel) { tuning.team } else { 1 };
        self.buffers.args(
            &mut args,
            (&self.scratch.boundary, outputs),
            &profile,
            (0, 0),
            self.kernel,
            scoring,
            (span, bands, 1),
        )?;
        // scan_team's query slots: this one query. The buffers set as arguments live
        // until the launch is enqueued; OpenCL keeps them from there until it has run.
        let slot_rows = (self.kernel == ScanKernel::Team)
            .then(|| dev.buffer_from(&[(longest.div_ceil(span) * span) as i32, longest as i32]))
            .transpose()?;
        if let Some(rows) = &slot_rows {
            let cells = *self.layout.group_cell.last().unwrap_or(&0);
            args.local(team::scratch_bytes(dev, self.kernel, group, ends, scoring.mode))?
                .arg(&rows.get())?
                .arg(&1i32)?
                .arg(&cells)?
                .arg(&(self.layout.lengths.len() as i32))?
                // A tile has no long groups (its shuffles are one subject's length):
                // every pair one team, no windows.
                .arg(&i32::MAX)?
                .arg(&i32::MAX)?
                .arg(&-1i32)?;
        } else if self.kernel == ScanKernel::TeamPairs {
            args.local(team::scratch_bytes(dev, self.kernel, group, ends, scoring.mode))?;
        }
        let event = {
            let queue = dev.queue();
            let event = launch(&queue, &k, self.layout.groups() * group, group)?;
            cl("clFlush", queue.flush())?;
            event
        };
        let scores = outputs.read_after(&self.reads, &[event.get()], false)?;
        Ok(Alignment { launched: Some(Launched { event, scores, inputs: (profile, k, slot_rows) }), lengths })
    }

    /// Releases the inputs of the finished launches; the caller has none queued.
    pub fn release_retired(&self) {
        self.retired.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Waits for an alignment: per query, per entry (in tile order) its score, or -1
    /// where the narrow kernel saturated; and the kernel's device seconds.
    pub fn finish(&self, alignment: Alignment) -> Result<(Vec<Vec<i32>>, f64)> {
        let entries = self.layout.entries();
        let (flat, seconds) = match alignment.launched {
            Some(Launched { event, scores, inputs }) => {
                let flat = scores.wait()?.into_scores();
                self.retired.lock().unwrap_or_else(|p| p.into_inner()).push(inputs);
                (flat, event_seconds(&event)?)
            }
            None => (Vec::new(), 0.0),
        };
        let lanes = queries_per_launch(self.kernel);
        let per_query = alignment
            .lengths
            .iter()
            .enumerate()
            .map(|(lane, &m)| {
                if m == 0 || flat.is_empty() {
                    return vec![0; entries];
                }
                // Empty entries (empty subjects) are not written by the kernels.
                (0..entries).map(|e| if self.layout.lengths[e] == 0 { 0 } else { flat[e * lanes + lane] }).collect()
            })
            .collect();
        Ok((per_query, seconds))
    }

    /// The tile's entries as the device holds them: per subject its shuffles, then the
    /// subject itself (for tests and inspection).
    pub fn read_entries(&self) -> Result<Vec<Vec<Vec<u8>>>> {
        let l = &self.layout;
        let mut words = vec![0u32; l.words];
        {
            let queue = self.dev.queue();
            self.dev.read(&queue, &self.buffers.words, &mut words)?;
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let per_group = l.slots * l.lanes;
        let cols_per_word = 4 / l.lanes;
        let mut out = vec![Vec::with_capacity(l.per_subject); l.subjects];
        for e in 0..l.entries() {
            let (g, p) = (e / per_group, e % per_group);
            let (t, lane) = (p / l.lanes, p % l.lanes);
            let n = l.lengths[e] as usize;
            let base = l.group_word[g] as usize;
            let entry: Vec<u8> = (0..n)
                .map(|j| bytes[(base + j / cols_per_word * l.slots + t) * 4 + (j % cols_per_word) * l.lanes + lane])
                .collect();
            out[e / l.per_subject].push(entry);
        }
        Ok(out)
    }
}

/// Philox4x32-10 on the device: the words of counters `(c0 + k, c1, c2, c3)`, k < count.
pub fn device_philox(dev: &ClDevice, counter: [u32; 4], key: [u32; 2], count: usize) -> Result<Vec<[u32; 4]>> {
    let program = dev.program(&SOURCE, &[("LANES", "1".to_string())])?;
    let k = cl("clCreateKernel", Kernel::create(&program, "psse_philox"))?;
    let d_out = dev.buffer::<u32>(4 * count.max(1))?;
    KernelArgs::new(&k)
        .arg(&counter[0])?
        .arg(&counter[1])?
        .arg(&counter[2])?
        .arg(&counter[3])?
        .arg(&key[0])?
        .arg(&key[1])?
        .arg(&(count as u32))?
        .arg(&d_out.get())?;
    let queue = dev.queue();
    let local = 64;
    let event = launch(&queue, &k, count.div_ceil(local).max(1) * local, local)?;
    let mut flat = vec![0u32; 4 * count];
    dev.read(&queue, &d_out, &mut flat)?;
    event_seconds(&event)?;
    Ok(flat.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect())
}

/// The shuffles the device makes for `subjects` (alphabet codes; subject `k` is number
/// `first_key + k` for the generator), in the layout of `variant`: per subject, its
/// `shuffles` shuffles. For tests that compare them with the CPU's (the padding code is
/// 255 here, since nothing is aligned).
pub fn device_shuffles(
    dev: &ClDevice,
    variant: Variant,
    subjects: &[&[u8]],
    first_key: u32,
    shuffles: usize,
    seed: u64,
    window: usize,
) -> Result<Vec<Vec<Vec<u8>>>> {
    let kernel = match variant {
        Variant::Inter => ScanKernel::Inter,
        Variant::Team => ScanKernel::Team,
    };
    let mut order: Vec<usize> = (0..subjects.len()).collect();
    order.sort_by_key(|&k| (subjects[k].len(), k));
    let sorted: Vec<&[u8]> = order.iter().map(|&k| subjects[k]).collect();
    let keys: Vec<u32> = order.iter().map(|&k| first_key + k as u32).collect();
    let spec = TileSpec { subjects: &sorted, keys: &keys, shuffles, seed, window, pad: 255 };
    let tile = DeviceTile::new(dev, kernel, &spec)?;
    let mut entries = tile.read_entries()?;
    let mut out = vec![Vec::new(); subjects.len()];
    for (rank, &k) in order.iter().enumerate() {
        let mut e = std::mem::take(&mut entries[rank]);
        e.truncate(shuffles);
        out[k] = e;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_groups_follow_the_longest_entry() {
        // Two subjects of lengths 3 and 9 with 4 entries each, groups of 2 slots x 2 lanes.
        let l = TileLayout::new(&[3, 9], 4, 2, 2).unwrap();
        assert_eq!(l.groups(), 2);
        assert_eq!(l.group_len, vec![3, 9]);
        // Two columns per word: 2 words x 2 slots, then 5 x 2.
        assert_eq!(l.group_word, vec![0, 4]);
        assert_eq!(l.words, 14);
        assert_eq!(l.group_cell, vec![0, 6, 24]);
        assert_eq!(l.lengths, vec![3, 3, 3, 3, 9, 9, 9, 9]);
        // A partly filled last group: 3 entries, groups of 4.
        let l = TileLayout::new(&[5], 3, 4, 1).unwrap();
        assert_eq!(l.lengths, vec![5, 5, 5, 0]);
    }

    #[test]
    fn team_pairs_its_queries_where_that_saves_time() {
        let sc = Scoring::new(
            crate::scoring::Matrix::builtin("BLOSUM62").unwrap(),
            crate::scoring::Gaps::linear(4).unwrap(),
        );
        let kernel = |q| choose_kernel(Variant::Team, &sc, q);
        // Two queries in one launch cost less than two launches; a lone query in a
        // launch of two costs more unless the other launches make up for it (the
        // psse_device tests rely on 2, 4 and 9 queries being paired).
        assert_eq!(kernel(1), ScanKernel::Team);
        assert_eq!(kernel(2), ScanKernel::TeamPairs);
        assert_eq!(kernel(3), ScanKernel::Team);
        assert_eq!(kernel(4), ScanKernel::TeamPairs);
        assert_eq!(kernel(9), ScanKernel::TeamPairs);
        assert_eq!(choose_kernel(Variant::Inter, &sc, 4), ScanKernel::Inter);
    }

    #[test]
    fn tiles_respect_the_budget() {
        let lengths = [10, 20, 30, 40, 500];
        assert_eq!(tiles(&lengths, 10, 1000), vec![(0, 4), (4, 5)]);
        assert_eq!(tiles(&lengths, 10, 999), vec![(0, 3), (3, 4), (4, 5)]);
        assert_eq!(tiles(&lengths, 10, usize::MAX), vec![(0, 5)]);
        assert_eq!(tiles(&[], 10, 100), vec![]);
    }
}

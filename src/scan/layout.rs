//! The device layout shared by the inter-task kernels: length-sorted subjects cut into
//! groups (one work-group each), residues interleaved so that neighbouring work-items
//! read neighbouring words.
//!
//! A slot is one work-item (`inter`) or team (`team`); it holds `lanes` subjects (1
//! for `inter`, 2 for `team`, whose two 16-bit lanes carry two subjects). Word `w` of slot `t` in group `g` sits
//! at `group_word[g] + w * G + t` and holds 4 codes: 4 columns of one subject when
//! `lanes == 1`, or 2 columns of both lanes (column-major, lane-minor) when `lanes ==
//! 2`. Columns past a subject's end hold `pad_code`.
//!
//! The host arranges (which subject goes to which slot, and where each group's words
//! begin) from the subjects' lengths alone; the words themselves are made on the device
//! from the residues as they are stored (`super::layout_words`), which can be written
//! there while the host arranges.

use crate::error::{Error, Result};
use rayon::prelude::*;

/// The most residues a caller should lay out at once: a layout's words are counted in
/// 32 bits (16 G residues with their padding; [`GroupLayout::with_long`] refuses more),
/// less a quarter for the padding of groups and for windows. Not a bound: long
/// subjects take a group of `group_size` slots for `lanes` of them, and their windows
/// repeat each residue about four times, so a batch where they are more than about 2%
/// of the residues (subjects of 800 k residues and more in a batch this size) can still
/// be refused.
pub const MAX_LAYOUT_RESIDUES: u64 = (1 << 32) * 4 * 3 / 4;

/// Subjects arranged for an inter-task kernel.
#[derive(Debug, Clone)]
pub struct GroupLayout {
    pub group_size: usize,
    pub lanes: usize,
    /// Per slot and lane (`slot * lanes + lane`): the subject's index in the caller's
    /// list, or `u32::MAX` for an empty lane.
    pub subject_of: Vec<u32>,
    /// Per slot and lane: the subject's length (0 for an empty lane).
    pub lengths: Vec<u32>,
    /// Per group: the longest subject, i.e. the columns every slot walks.
    pub group_len: Vec<u32>,
    /// Per group: its first word (its words follow the group before's).
    pub group_word: Vec<u32>,
    /// Per group: first element of the group's boundary row (`group_len * G` each).
    pub group_cell: Vec<u64>,
    /// How many words the groups hold: the residue codes as the device reads them,
    /// made there from the residues as they are stored (`super::layout_words`; the
    /// host's twin is [`words`](Self::words)).
    pub word_count: usize,
    /// The code of columns past a subject's end.
    pub pad_code: u8,
    /// The first long group: from it on, each group holds the `lanes` subjects of its
    /// first slot alone (the longest subjects, which `scan_team` walks with several
    /// teams at once); `first_window` when there are none.
    pub first_long: usize,
    /// The first group of windows (`super::windows`): full groups again, after the long
    /// ones, which a launch walks instead of them; `groups()` when there are none.
    pub first_window: usize,
}

/// Where each slot lane of a [`GroupLayout`] reads its codes (per `slot * lanes +
/// lane`, as `subject_of`): its column `c` holds the padding code below `lead[e]` and
/// from the lane's length on, and otherwise the residue at `from[e] + c` of the
/// residues as the device holds them (`super::layout_words`). A window's `from` lies
/// `lead` before its subject's first residue; a subject's own lead is 0.
pub struct LaneSources {
    pub from: Vec<i64>,
    pub lead: Vec<u32>,
}

impl GroupLayout {
    /// Arranges subjects of `lengths` in ascending length order.
    pub fn new(lengths: &[u32], group_size: usize, lanes: usize, pad_code: u8) -> Result<GroupLayout> {
        GroupLayout::with_long(lengths, group_size, lanes, pad_code, 0, 0)
    }

    /// [`new`](Self::new), the `long` longest subjects in long groups, `lanes` a group,
    /// and the last `windows` of `lengths` (windows of the long ones) in full groups
    /// after them.
    pub fn with_long(
        lengths: &[u32],
        group_size: usize,
        lanes: usize,
        pad_code: u8,
        long: usize,
        windows: usize,
    ) -> Result<GroupLayout> {
        assert!(lanes == 1 || lanes == 2, "lanes is 1 or 2");
        let whole = lengths.len() - windows.min(lengths.len());
        let by_length = |range: std::ops::Range<usize>| {
            let order = crate::seq::db::by_length(range.len(), |i| lengths[range.start + i] as usize);
            order.into_iter().map(|i| i + range.start as u32).collect::<Vec<u32>>()
        };
        let mut order = by_length(0..whole);
        order.extend(by_length(whole..lengths.len()));
        let per_group = group_size * lanes;
        let full = |a: usize, b: usize| (a..b).step_by(per_group.max(1)).map(move |g| g..(g + per_group).min(b));
        // Each group's subjects: a run of `order`: full groups, long ones, then full
        // groups of windows.
        let short = whole - long.min(whole);
        let mut runs: Vec<std::ops::Range<usize>> = full(0, short).collect();
        let first_long = runs.len();
        runs.extend((short..whole).step_by(lanes).map(|a| a..(a + lanes).min(whole)));
        let first_window = runs.len();
        runs.extend(full(whole, order.len()));
        let groups = runs.len();
        let members = |g: usize| &order[runs[g].clone()];
        // Each slot's subjects and their lengths, and each group's longest, on every
        // core (a device's share of a 20 G-residue database is 11 M subjects).
        let mut subject_of = vec![u32::MAX; groups * per_group];
        let mut slot_lengths = vec![0u32; groups * per_group];
        let longest: Vec<usize> = subject_of
            .par_chunks_mut(per_group.max(1))
            .zip(slot_lengths.par_chunks_mut(per_group.max(1)))
            .enumerate()
            .map(|(g, (subject_of, slot_lengths))| {
                let mut longest = 0;
                for ((slot, length), &k) in subject_of.iter_mut().zip(slot_lengths.iter_mut()).zip(members(g)) {
                    let n = lengths[k as usize];
                    (*slot, *length, longest) = (k, n, longest.max(n as usize));
                }
                longest
            })
            .collect();
        let mut l = GroupLayout {
            first_long,
            first_window,
            group_size,
            lanes,
            subject_of,
            lengths: slot_lengths,
            group_len: Vec::with_capacity(groups),
            group_word: Vec::with_capacity(groups),
            group_cell: Vec::with_capacity(groups),
            word_count: 0,
            pad_code,
        };
        // Where each group's words begin.
        let mut cells = 0u64;
        let mut n_words = 0usize;
        for len in longest {
            let len32 =
                u32::try_from(len).map_err(|_| Error::InvalidArgument("subject longer than 4 G residues".into()))?;
            let base = u32::try_from(n_words)
                .map_err(|_| Error::InvalidArgument("database batch over 16 G residues; split it".into()))?;
            l.group_len.push(len32);
            l.group_word.push(base);
            l.group_cell.push(cells);
            cells += len as u64 * group_size as u64;
            n_words += l.group_words(l.group_len.len() - 1);
        }
        // The words are counted in 32 bits (`cl/layout_words.cl`), to the last one.
        u32::try_from(n_words)
            .map_err(|_| Error::InvalidArgument("database batch over 16 G residues; split it".into()))?;
        l.word_count = n_words;
        l.group_cell.push(cells);
        Ok(l)
    }

    /// Columns of a subject (or, with two lanes, of both) in one word.
    fn cols_per_word(&self) -> usize {
        4 / self.lanes
    }

    /// How many words group `g` holds: its longest subject's columns, a word for every
    /// slot per `cols_per_word` of them.
    fn group_words(&self, g: usize) -> usize {
        self.group_len[g].div_ceil(self.cols_per_word() as u32) as usize * self.group_size
    }

    /// Where each slot lane reads its codes ([`LaneSources`]), from `source(k)`: the
    /// `(from, lead)` of the layout's subject `k`.
    pub fn lane_sources(&self, source: impl Fn(u32) -> (i64, u32) + Sync) -> LaneSources {
        let (from, lead) = self
            .subject_of
            .par_iter()
            .with_min_len(1 << 14)
            .map(|&k| if k == u32::MAX { (0, 0) } else { source(k) })
            .unzip();
        LaneSources { from, lead }
    }

    /// Every word of the layout, from `residues` as `sources` reads them: the host's
    /// twin of `cl/layout_words.cl` (which makes them on the device, where the scans
    /// read them), a word at a time.
    pub fn words(&self, residues: &[u8], sources: &LaneSources) -> Vec<u32> {
        let (group_size, lanes, cols) = (self.group_size, self.lanes, self.cols_per_word());
        let mut words = vec![0u32; self.word_count];
        for g in 0..self.groups() {
            let base = self.group_word[g] as usize;
            for w in 0..self.group_words(g) {
                let (row, slot) = (w / group_size, w % group_size);
                words[base + w] = (0..4).fold(0, |word, c| {
                    let (lane, col) = if lanes == 2 { (c & 1, row * cols + c / 2) } else { (0, row * cols + c) };
                    let e = (g * group_size + slot) * lanes + lane;
                    let code = match col < self.lengths[e] as usize && col >= sources.lead[e] as usize {
                        true => residues[(sources.from[e] + col as i64) as usize],
                        false => self.pad_code,
                    };
                    word | (code as u32) << (8 * c)
                });
            }
        }
        words
    }

    pub fn groups(&self) -> usize {
        self.group_len.len()
    }

    /// Boundary-row elements of groups `a..b`.
    pub fn cells(&self, a: usize, b: usize) -> u64 {
        self.group_cell[b] - self.group_cell[a]
    }

    /// The groups a launch walks, counted in its own order: every group but the
    /// windows (`windows` false), or every group but the long ones.
    pub fn walked(&self, windows: bool) -> usize {
        if windows { self.first_long + self.groups() - self.first_window } else { self.first_window }
    }

    /// The group that a launch's group `v` (of [`walked`](Self::walked)) is: past the
    /// first long group, a launch of windows skips the long ones.
    pub fn group(&self, v: usize, windows: bool) -> usize {
        if windows && v >= self.first_long { v + self.first_window - self.first_long } else { v }
    }

    /// Boundary-row elements from the first of a launch's groups `a..b` to the end of
    /// its last (the long groups between, when it skips them, included).
    pub fn launch_cells(&self, a: usize, b: usize, windows: bool) -> u64 {
        self.group_cell[self.group(b - 1, windows) + 1] - self.group_cell[self.group(a, windows)]
    }

    /// Consecutive runs of a launch's groups (of [`walked`](Self::walked)) whose
    /// boundary rows fit in `budget` elements (a group larger than the budget runs
    /// alone).
    pub fn launches(&self, budget: u64, windows: bool) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut a = 0;
        let end = self.walked(windows);
        while a < end {
            let mut b = a + 1;
            while b < end && self.launch_cells(a, b + 1, windows) <= budget {
                b += 1;
            }
            out.push((a, b));
            a = b;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lens<S: AsRef<[u8]>>(subjects: &[S]) -> Vec<u32> {
        subjects.iter().map(|s| s.as_ref().len() as u32).collect()
    }

    /// Every word of `l`, the subjects back to back as the device holds them.
    fn all_words<S: AsRef<[u8]>>(l: &GroupLayout, subjects: &[S]) -> Vec<u32> {
        let residues: Vec<u8> = subjects.iter().flat_map(|s| s.as_ref().iter().copied()).collect();
        let starts: Vec<i64> = subjects
            .iter()
            .scan(0i64, |at, s| {
                *at += s.as_ref().len() as i64;
                Some(*at - s.as_ref().len() as i64)
            })
            .collect();
        l.words(&residues, &l.lane_sources(|k| (starts[k as usize], 0)))
    }

    #[test]
    fn single_lane_words_and_order() {
        let subjects = [vec![1u8, 2, 3, 4, 5], vec![7u8], vec![9u8, 9]];
        let l = GroupLayout::new(&lens(&subjects), 2, 1, 24).unwrap();
        let words = all_words(&l, &subjects);
        // Sorted by length: subject 1 (len 1), 2 (len 2) in group 0; subject 0 in group 1.
        assert_eq!(l.subject_of, vec![1, 2, 0, u32::MAX]);
        assert_eq!(l.group_len, vec![2, 5]);
        assert_eq!(words[0], 7 | 24 << 8 | 24 << 16 | 24 << 24);
        assert_eq!(words[1], 9 | 9 << 8 | 24 << 16 | 24 << 24);
        // Group 1, slot 0: words 0 and 1 at base + 0 and base + 2.
        let base = l.group_word[1] as usize;
        assert_eq!(words[base], 1 | 2 << 8 | 3 << 16 | 4 << 24);
        assert_eq!(words[base + 2], 5 | 24 << 8 | 24 << 16 | 24 << 24);
        assert_eq!(words[base + 1], 24 * 0x0101_0101);
        assert_eq!(l.group_cell, vec![0, 4, 14]);
    }

    #[test]
    fn two_lanes_interleave_columns() {
        let subjects = [vec![1u8, 2, 3], vec![4u8, 5]];
        let l = GroupLayout::new(&lens(&subjects), 1, 2, 24).unwrap();
        let words = all_words(&l, &subjects);
        assert_eq!(l.subject_of, vec![1, 0]);
        // Column 0: lanes (4, 1); column 1: (5, 2); column 2: (pad, 3).
        assert_eq!(words[0], 4 | 1 << 8 | 5 << 16 | 2 << 24);
        assert_eq!(words[1], 24 | 3 << 8 | 24 << 16 | 24 << 24);
    }

    #[test]
    fn long_groups_hold_one_slot_each() {
        // Seven subjects, groups of two slots of two lanes, the three longest in long
        // groups: one full group of the others, then two long groups (two and one).
        let subjects: Vec<Vec<u8>> = (1..=7).map(|n| vec![1u8; n]).collect();
        let l = GroupLayout::with_long(&lens(&subjects), 2, 2, 24, 3, 0).unwrap();
        assert_eq!((l.groups(), l.first_long), (3, 1));
        assert_eq!(&l.subject_of[4..], &[4, 5, u32::MAX, u32::MAX, 6, u32::MAX, u32::MAX, u32::MAX]);
        assert_eq!(l.group_len, vec![4, 6, 7]);
        assert_eq!(l.group_cell, vec![0, 8, 20, 34]);
        assert_eq!(GroupLayout::new(&lens(&subjects), 2, 2, 24).unwrap().first_long, 2);
    }

    #[test]
    fn windows_follow_the_long_groups_and_launches_skip_one_or_the_other() {
        // Five subjects, the two longest long, then three windows (the last three
        // entries, laid out by length among themselves): groups of two slots of two
        // lanes.
        let mut subjects: Vec<Vec<u8>> = (1..=5).map(|n| vec![1u8; n]).collect();
        subjects.extend([vec![2u8; 3], vec![2u8; 2], vec![2u8; 3]]);
        let l = GroupLayout::with_long(&lens(&subjects), 2, 2, 24, 2, 3).unwrap();
        assert_eq!((l.groups(), l.first_long, l.first_window), (3, 1, 2));
        assert_eq!(&l.subject_of[8..], &[6, 5, 7, u32::MAX]);
        assert_eq!(l.group_len, vec![3, 5, 3]);
        assert_eq!((l.walked(false), l.walked(true)), (2, 2));
        assert_eq!((l.group(1, false), l.group(1, true), l.group(0, true)), (1, 2, 0));
        // A launch of windows spans group 0 to 2 in the boundary row.
        assert_eq!(l.launch_cells(0, 2, true), l.group_cell[3] - l.group_cell[0]);
        assert_eq!(l.launches(1_000, true), vec![(0, 2)]);
        assert_eq!(l.launches(6, true), vec![(0, 1), (1, 2)]);
        assert_eq!(l.launches(1_000, false), vec![(0, 2)]);
    }

    #[test]
    fn windows_read_their_lead_as_padding() {
        // Subject 0 (5 residues) and a window of it from column -2, 4 columns long:
        // two padding codes, then its first two residues.
        let residues = [1u8, 2, 3, 4, 5];
        let l = GroupLayout::with_long(&[5, 4], 1, 2, 24, 0, 1).unwrap();
        assert_eq!(l.subject_of, vec![0, u32::MAX, 1, u32::MAX]);
        let sources = l.lane_sources(|k| if k == 0 { (0, 0) } else { (-2, 2) });
        let words = l.words(&residues, &sources);
        let pad = 24 | 24 << 16;
        assert_eq!(&words[..3], &[1 | 2 << 16 | pad << 8, 3 | 4 << 16 | pad << 8, 5 | 24 << 8 | 24 << 16 | 24 << 24]);
        assert_eq!(&words[3..], &[24 | 24 << 8 | 24 << 16 | 24 << 24, 1 | 24 << 8 | 2 << 16 | 24 << 24]);
    }

    #[test]
    fn launches_respect_the_budget() {
        let subjects: Vec<Vec<u8>> = (1..=10).map(|n| vec![0u8; n * 10]).collect();
        let l = GroupLayout::new(&lens(&subjects), 2, 1, 24).unwrap();
        let runs = l.launches(100, false);
        assert_eq!(runs.first().unwrap().0, 0);
        assert_eq!(runs.last().unwrap().1, l.groups());
        for w in runs.windows(2) {
            assert_eq!(w[0].1, w[1].0);
        }
        for &(a, b) in &runs {
            assert!(b - a == 1 || l.cells(a, b) <= 100);
        }
    }
}

//! Long subjects cut into overlapping windows, for the queries short enough to use them.
//!
//! A query of one or two passes walks a long subject with one or two teams, one column
//! after another: its 35,000 columns outlast the whole launch. But no local alignment
//! with a positive score spans more than [`Scoring::local_subject_span`] subject
//! residues, so a subject cut into windows that each reach that far back before their
//! own columns loses nothing: every alignment lies whole in the window holding its
//! last column, which scores it exactly, and no window scores above the subject (a
//! window only leaves alignments out). The subject's score is its windows' highest,
//! its end cell the reference's pick among theirs ([`fold`]). The windows are ordinary
//! subjects of one layout's full groups, walked in parallel.
//!
//! Window `i` of a subject holds columns `i * stride - overlap .. (i + 1) * stride`,
//! those before column 0 as the padding letter (which leaves every cell at the start
//! state, as the left edge of the table does), so that all windows but the last have
//! the same `stride + overlap` columns. A query whose span bound is below `overlap`
//! skips the first `overlap - bound` columns of every window (rounded down to even: a
//! residue word holds two columns).

use crate::reference::{LocalScore, better_end};
use crate::scoring::Scoring;

/// How long subjects are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Windows {
    /// Columns of its own each window adds.
    pub stride: usize,
    /// Columns each window reaches back before its own.
    pub overlap: usize,
}

impl Windows {
    /// The first column of each window of a subject of `n` residues (negative ones
    /// are padding).
    pub fn starts(&self, n: usize) -> impl Iterator<Item = i64> + use<> {
        let (stride, overlap) = (self.stride as i64, self.overlap as i64);
        (0..n.div_ceil(self.stride.max(1)) as i64).map(move |i| i * stride - overlap)
    }

    /// The columns of the window from column `start` of a subject of `n` residues
    /// (those before column 0 included).
    pub fn columns(&self, n: usize, start: i64) -> usize {
        ((start + (self.stride + self.overlap) as i64).min(n as i64) - start) as usize
    }

    /// The window of `subject` from column `start`, `pad` before column 0: what a
    /// layout's lane reads for it (`super::layout::LaneSources`).
    #[cfg(test)]
    fn cut(&self, subject: &[u8], start: i64, pad: u8) -> Vec<u8> {
        (start..start + self.columns(subject.len(), start) as i64)
            .map(|c| if c < 0 { pad } else { subject[c as usize] })
            .collect()
    }

    /// The columns a query of `m` residues skips at the start of every window, or
    /// `None` when its alignments may reach back further than the windows do.
    pub fn skip(&self, m: usize, scoring: &Scoring) -> Option<usize> {
        let span = scoring.local_subject_span(m)?;
        (self.stride > 0 && span <= self.overlap).then(|| (self.overlap - span) & !1)
    }
}

/// Folds a window's result (its end column counted from the window's first walked
/// column, `first`) into its subject's `best`: a saturated window leaves the
/// subject saturated, to be recomputed whole; otherwise the higher score wins, and
/// among equal ones the reference's tie rule picks the end.
pub fn fold(best: &mut LocalScore, window: LocalScore, first: i64) {
    if best.score == super::SATURATED {
        return;
    }
    if window.score == super::SATURATED {
        *best = window;
        return;
    }
    match window.end {
        Some((i, j)) => {
            let j = usize::try_from(first + j as i64).expect("a window's best cell lies in its subject");
            if better_end(window.score, i, j, best) {
                *best = LocalScore { score: window.score, end: Some((i, j)) };
            }
        }
        None if window.score > best.score => *best = window,
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::score;
    use crate::scoring::{Gaps, Matrix};

    #[test]
    fn no_positive_local_alignment_spans_more_subject_than_scoring_s_bound() {
        // Optimal alignments of random pairs, and of repeats a long gap apart (the
        // longest spans a bound allows), stay within it.
        let mut next = crate::reference::testing::generator(7);
        for case in 0..300 {
            let (open, extend) = [(11, 1), (0, 1), (5, 3)][case % 3];
            let gaps = Gaps::affine(open, extend).unwrap();
            let sc = Scoring::new(Matrix::builtin(["BLOSUM62", "BLOSUM50"][case % 2]).unwrap(), gaps);
            let m = 1 + next(12);
            let q: Vec<u8> = (0..m).map(|_| next(20) as u8).collect();
            let gap = next(40);
            let mut s: Vec<u8> = q[..m / 2].to_vec();
            s.extend((0..gap).map(|_| next(20) as u8));
            s.extend_from_slice(&q[m / 2..]);
            let bound = sc.local_subject_span(m).unwrap();
            if let Some(a) = crate::reference::align(&q, &s, &sc) {
                let span = a.subject_end - a.subject_start + 1;
                assert!(span <= bound, "case {case}: span {span} over {bound}");
            }
        }
    }

    #[test]
    fn windows_cover_the_subject_and_reach_back() {
        let w = Windows { stride: 4, overlap: 3 };
        let s: Vec<u8> = (0..10).collect();
        let starts: Vec<i64> = w.starts(s.len()).collect();
        assert_eq!(starts, vec![-3, 1, 5]);
        assert_eq!(w.cut(&s, -3, 24), vec![24, 24, 24, 0, 1, 2, 3]);
        assert_eq!(w.cut(&s, 5, 24), vec![5, 6, 7, 8, 9]);
        assert_eq!(Windows { stride: 4, overlap: 0 }.starts(0).count(), 0);
    }

    /// Windows of every shape give the subject's score and end cell exactly (the
    /// reference on each window, folded), wherever the query's bound allows them.
    #[test]
    fn folded_windows_equal_the_whole_subject() {
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let mut next = crate::reference::testing::generator(11);
        let mut used = 0;
        for case in 0..400 {
            let m = 1 + next(6);
            let q: Vec<u8> = (0..m).map(|_| next(20) as u8).collect();
            // Copies of the query pieces in a random subject: ties and repeats.
            let n = 1 + next(300);
            let mut s: Vec<u8> = (0..n).map(|_| next(20) as u8).collect();
            for _ in 0..next(4) {
                let at = next(n);
                for (k, &c) in q.iter().enumerate() {
                    if at + k < n && next(4) > 0 {
                        s[at + k] = c;
                    }
                }
            }
            let w = Windows { stride: 1 + next(40), overlap: 2 * next(40) };
            let Some(skip) = w.skip(m, &sc) else { continue };
            used += 1;
            let mut best = LocalScore { score: 0, end: None };
            for start in w.starts(n) {
                let window = w.cut(&s, start, 24);
                let walked = &window[skip.min(window.len())..];
                // Padding columns score like the kernels' padding letter: never above 0.
                let walked: Vec<u8> = walked.iter().map(|&c| if c == 24 { 23 } else { c }).collect();
                fold(&mut best, score(&q, &walked, &sc), start + skip as i64);
            }
            assert_eq!(best, score(&q, &s, &sc), "case {case}: {w:?}, skip {skip}");
        }
        assert!(used > 100, "{used} cases used windows");
    }

    #[test]
    fn a_saturated_window_saturates_the_subject() {
        let mut best = LocalScore { score: 7, end: Some((1, 2)) };
        fold(&mut best, LocalScore { score: crate::scan::SATURATED, end: None }, 0);
        fold(&mut best, LocalScore { score: 9, end: Some((0, 0)) }, 5);
        assert_eq!(best.score, crate::scan::SATURATED);
        let mut best = LocalScore { score: 0, end: None };
        fold(&mut best, LocalScore { score: 5, end: Some((2, 3)) }, 10);
        fold(&mut best, LocalScore { score: 5, end: Some((1, 0)) }, 13);
        assert_eq!(best, LocalScore { score: 5, end: Some((1, 13)) });
        fold(&mut best, LocalScore { score: 5, end: Some((0, 1)) }, 12);
        assert_eq!(best, LocalScore { score: 5, end: Some((0, 13)) });
    }
}

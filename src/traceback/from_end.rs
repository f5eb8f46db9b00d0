//! The alignment of a search hit from its end cell: the reference's alignment, traced
//! back over the smallest rectangle that must hold it instead of the whole prefix.
//!
//! A hit comes with its optimal score `S` and its end cell `(ie, je)` (the reference's
//! end rule: among the cells holding `S`, the smallest column, then the smallest row).
//! [`crate::reference::align_ending_at`] traces back over rows `0..=ie` and columns
//! `0..=je`; for most hits the alignment covers a small part of that.
//!
//! 1. **Where it can start.** Within the prefix `0..=ie` x `0..=je`, `(ie, je)` is the
//!    only cell holding `S` (any other would come first under the end rule), so every
//!    local alignment there that scores `S` ends at `(ie, je)`. Reversing both prefixes
//!    turns its start into an end: the cells of the reversed pair holding `S` are
//!    exactly the starts of the alignments scoring `S`. [`crate::scan::native::striped::reach`]
//!    (SIMD, 16 bits) finds the last row and column of those cells: in forward terms,
//!    the smallest start row `is` and start column `js`.
//! 2. **The traceback.** Every optimal path runs inside `is..=ie` x `js..=je`. The
//!    reference's traceback over that rectangle alone (its own zero boundary) follows
//!    the same path as over the whole matrix: on the path the rectangle's H, E and F
//!    equal the whole matrix's (the path scores the same in both and the rectangle
//!    admits fewer alignments), and off the path they are no larger, so every
//!    comparison on the path (its tie rules included) picks the same way.
//!
//! The rectangles of a query's hits are traced back up to 16 at a time, one per SIMD lane
//! ([`super::batch`]), a large one alone on every lane ([`super::wavefront`]); a
//! rectangle whose score leaves room for few gaps is
//! traced alone over the band of diagonals its alignments stay in
//! ([`super::diagonal_band`]). Where 16 bits could saturate, or the cell is not where an alignment scoring `S`
//! ends (the reversed scan's best is not `S`, or the rectangle's alignment scores
//! less), the whole prefix is traced back as before. The tests check the result equals [`crate::reference::align_ending_at`]'s,
//! ties included.

use super::batch::{self, Rect, align_rects};
use super::diagonal_band;
use super::wavefront;
use crate::align::Alignment;
use crate::error::Result;
use crate::memory;
use crate::scan::native::lanes::{LANES, lanes_hold};
use crate::scan::native::schedule::longest_first;
use crate::scan::native::striped::{Profile, Reach, reach};
use crate::scoring::Scoring;
use rayon::prelude::*;

/// A hit to align: its subject, end cell (query, subject positions) and score.
#[derive(Debug, Clone, Copy)]
pub struct HitEnd<'a> {
    pub subject: &'a [u8],
    pub end: (usize, usize),
    pub score: i32,
}

/// The alignment [`crate::reference::align_ending_at`] returns for the end cell `end` of a
/// pair whose best local score is `score`, traced back over the rectangle that must
/// hold it. `None` when the alignment ending there scores 0.
pub fn align_from_end(
    query: &[u8],
    subject: &[u8],
    sc: &Scoring,
    end: (usize, usize),
    score: i32,
) -> Result<Option<Alignment>> {
    Ok(align_from_ends(query, &[HitEnd { subject, end, score }], sc)?.pop().flatten())
}

/// [`align_from_end`] for many hits of one query: the rectangles are found in
/// parallel, then traced back up to 16 at a time ([`align_rects`], one per SIMD lane,
/// the rectangles of similar shape together), the largest batches first; a rectangle
/// whose score confines it to a narrow band of diagonals is traced in that band alone
/// ([`diagonal_band`]).
///
/// Before each phase, the memory its largest pieces take on all threads at once is
/// checked ([`memory::ensure`]): a hit whose alignment cannot be had is an error naming
/// its size, not an abort.
pub fn align_from_ends(query: &[u8], hits: &[HitEnd<'_>], sc: &Scoring) -> Result<Vec<Option<Alignment>>> {
    let inside = |h: &HitEnd<'_>| h.end.0 < query.len() && h.end.1 < h.subject.len();
    ensure_for_threads(hits.iter().map(|h| if inside(h) { reach_bytes(h, sc) } else { 0 }), || {
        format!("finding where the alignments of a query of {} residues start", query.len())
    })?;
    let rects: Vec<Option<Rect<'_>>> = hits.par_iter().map(|h| rectangle(query, h, sc)).collect::<Result<_>>()?;
    let rect = |k: usize| rects[k].as_ref().expect("chosen with a rectangle");
    // A rectangle whose score confines its alignments to a band of diagonals at most a
    // sixteenth of its columns is traced in that band alone: fewer cells than its lane
    // of a batch costs.
    let bands: Vec<Option<usize>> = (0..hits.len())
        .map(|k| {
            let r = rects[k].as_ref()?;
            diagonal_band::half_width(query, r, sc, hits[k].score).filter(|&w| 16 * (2 * w + 1) <= r.subject.len())
        })
        .collect();
    let banded: Vec<usize> = (0..hits.len()).filter(|&k| bands[k].is_some()).collect();
    let band = |k: usize| bands[k].expect("chosen with a band");
    ensure_for_threads(banded.iter().map(|&k| diagonal_band::working_bytes(rect(k), band(k))), || {
        format!("the banded tracebacks of the hits of a query of {} residues", query.len())
    })?;
    let in_bands: Vec<Option<Alignment>> =
        banded.par_iter().map(|&k| diagonal_band::align_in_band(query, rect(k), sc, band(k))).collect();
    // A rectangle of many rows is traced alone on every lane ([`wavefront`]): in a batch
    // it would walk its rows one after another, and its query's other hits wait on it.
    let (alone, mut order): (Vec<usize>, Vec<usize>) = (0..hits.len())
        .filter(|&k| rects[k].is_some() && bands[k].is_none())
        .partition(|&k| wavefront::worth_it(rect(k)));
    ensure_for_threads(alone.iter().map(|&k| wavefront::working_bytes(rect(k))), || {
        format!("the large tracebacks of the hits of a query of {} residues", query.len())
    })?;
    let in_wavefronts: Vec<Option<Alignment>> =
        alone.par_iter().map(|&k| wavefront::align_rect(query, rect(k), sc)).collect();
    order.sort_by_key(|&k| (rect(k).rows.start, rect(k).rows.len(), rect(k).subject.len()));
    // A batch costs its largest rectangle whatever its number of lanes: with fewer
    // hits than threads x 16, smaller batches keep every thread busy. A batch computes
    // the union of its rectangles' rows: it ends before that union would be more than
    // twice its longest rectangle's rows.
    let per_batch = order.len().div_ceil(rayon::current_num_threads()).clamp(1, LANES);
    let mut batches: Vec<&[usize]> = Vec::new();
    let mut from = 0;
    for to in 1..=order.len() {
        let batch = &order[from..to];
        let union = batch.iter().map(|&k| rect(k).rows.end).max().unwrap_or(0) - rect(batch[0]).rows.start;
        let longest = batch.iter().map(|&k| rect(k).rows.len()).max().unwrap_or(0);
        if batch.len() > per_batch || union > 2 * longest {
            batches.push(&order[from..to - 1]);
            from = to - 1;
        }
    }
    if from < order.len() {
        batches.push(&order[from..]);
    }
    // Each batch with its union of rows and its widest rectangle's columns.
    let shaped: Vec<(&[usize], usize, usize)> = batches
        .iter()
        .map(|&b| {
            let first = b.iter().map(|&k| rect(k).rows.start).min().unwrap_or(0);
            let end = b.iter().map(|&k| rect(k).rows.end).max().unwrap_or(0);
            (b, end - first, b.iter().map(|&k| rect(k).subject.len()).max().unwrap_or(0))
        })
        .collect();
    ensure_for_threads(shaped.iter().map(|&(_, rows, cols)| batch::working_bytes(rows, cols)), || {
        format!("the tracebacks of the hits of a query of {} residues", query.len())
    })?;
    let traced = longest_first(
        &shaped,
        |&(_, rows, cols)| (rows * cols) as u64,
        |&(batch, _, _)| {
            let rects: Vec<Rect<'_>> = batch.iter().map(|&k| rect(k).clone()).collect();
            align_rects(query, &rects, sc)
        },
    );
    let mut out: Vec<Option<Option<Alignment>>> = vec![None; hits.len()];
    let traced = traced.into_iter().flatten();
    let ran = batches.iter().flat_map(|b| b.iter()).chain(&banded).chain(&alone);
    for (&k, a) in ran.zip(traced.chain(in_bands).chain(in_wavefronts)) {
        // The rectangle's alignment must score the hit's score; else the whole prefix.
        out[k] = Some(a.filter(|a| a.score == hits[k].score));
    }
    let whole = |k: usize| !matches!(out[k], Some(Some(_)));
    ensure_for_threads(
        (0..hits.len())
            .map(|k| if whole(k) && inside(&hits[k]) { super::align_ending_at_bytes(hits[k].end) } else { 0 }),
        || format!("the whole-prefix tracebacks of the hits of a query of {} residues", query.len()),
    )?;
    Ok(out
        .into_par_iter()
        .zip(hits)
        .map(|(a, h)| match a {
            Some(Some(a)) => Some(a),
            _ => inside(h).then(|| super::align_ending_at(query, h.subject, sc, h.end)).flatten(),
        })
        .collect())
}

/// The bytes of [`rectangle`]'s reach for hit `h`: the reversed subject prefix, the
/// striped profile of the reversed query prefix and the reach's three columns (a
/// profile of 3 letters).
fn reach_bytes(h: &HitEnd<'_>, sc: &Scoring) -> u128 {
    let rows = h.end.0 + 1;
    let columns = Profile::bytes(rows, sc) / sc.matrix.size().max(1) as u128 * 3;
    (h.end.1 + 1) as u128 + Profile::bytes(rows, sc) + columns
}

/// Checks that the largest of `bytes` (one per piece of work) can be had at once on
/// every thread of the pool.
fn ensure_for_threads(bytes: impl Iterator<Item = u128>, what: impl FnOnce() -> String) -> Result<()> {
    let mut bytes: Vec<u128> = bytes.filter(|&b| b > 0).collect();
    let threads = rayon::current_num_threads().min(bytes.len());
    if threads == 0 {
        return Ok(());
    }
    bytes.select_nth_unstable_by(threads - 1, |a, b| b.cmp(a));
    memory::ensure(what(), bytes[..threads].iter().sum())
}

/// The rectangle from the earliest start of an alignment scoring `score` to the end
/// cell, or `None` where the whole prefix must be traced (see the module header).
fn rectangle<'a>(query: &[u8], h: &HitEnd<'a>, sc: &Scoring) -> Result<Option<Rect<'a>>> {
    let (ie, je) = h.end;
    if ie >= query.len() || je >= h.subject.len() || h.score <= 0 || !lanes_hold(h.score, sc) {
        return Ok(None);
    }
    let rs = memory::collect("a hit's reversed subject prefix", h.subject[..=je].iter().rev().copied())?;
    Ok(match reach(&Profile::reversed_prefix(query, ie, sc)?, &rs, sc, h.score)? {
        Some(Reach { best, last: Some((r, c)) }) if best == h.score => {
            Some(Rect { rows: ie - r..ie + 1, subject: &h.subject[je - c..=je], subject_offset: je - c })
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testing::generator;
    use crate::reference::{self, score};
    use crate::scoring::{Gaps, Matrix};

    /// Related pairs with repeats and small alphabets, so optimal alignments tie in
    /// score, start and path: every one equals the reference's.
    #[test]
    fn equals_the_reference_alignment_ties_included() {
        let mut next = generator(7);
        let scorings = [
            Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()),
            Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(0, 2).unwrap()),
            Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(16, 4).unwrap()),
            Scoring::new(
                Matrix::match_mismatch(crate::seq::Alphabet::Dna, 1, -1).unwrap(),
                Gaps::affine(1, 1).unwrap(),
            ),
        ];
        let mut traced = 0;
        for sc in &scorings {
            let alpha = if sc.matrix.size() < 10 { 4 } else { 20 };
            for round in 0..150 {
                let m = 1 + next(200);
                let q: Vec<u8> = (0..m).map(|_| next(alpha) as u8).collect();
                let mut s: Vec<u8> = (0..next(300)).map(|_| next(alpha) as u8).collect();
                if round % 3 != 0 {
                    let a = next(m);
                    let b = a + next(m - a + 1);
                    let mut piece: Vec<u8> = q[a..b].to_vec();
                    for _ in 0..next(6) {
                        let k = next(piece.len() + 1);
                        match next(3) {
                            0 if k < piece.len() => {
                                piece.remove(k);
                            }
                            1 => piece.insert(k, next(alpha) as u8),
                            _ if k < piece.len() => piece[k] = next(alpha) as u8,
                            _ => {}
                        }
                    }
                    if round % 5 == 0 {
                        piece = piece.repeat(2);
                    }
                    let at = next(s.len() + 1);
                    s.splice(at..at, piece);
                }
                let best = score(&q, &s, sc);
                let Some(end) = best.end else { continue };
                let want = reference::align_ending_at(&q, &s, sc, end);
                assert_eq!(align_from_end(&q, &s, sc, end, best.score).unwrap(), want, "round {round}");
                traced += 1;
            }
        }
        assert!(traced > 400);
    }

    /// Many hits of one query at once: rectangles of every shape share batches.
    #[test]
    fn a_query_s_many_hits_equal_the_reference() {
        let mut next = generator(11);
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let q: Vec<u8> = (0..400).map(|_| next(20) as u8).collect();
        let subjects: Vec<Vec<u8>> = (0..70)
            .map(|k| {
                let mut s: Vec<u8> = (0..next(500)).map(|_| next(20) as u8).collect();
                if k % 4 != 3 {
                    let a = next(q.len());
                    let b = (a + 1 + next(300)).min(q.len());
                    let mut piece = q[a..b].to_vec();
                    for _ in 0..next(8) {
                        let at = next(piece.len());
                        piece[at] = next(20) as u8;
                    }
                    let at = next(s.len() + 1);
                    s.splice(at..at, piece);
                }
                s
            })
            .collect();
        let hits = hits_of(&q, &subjects, &sc);
        assert!(hits.len() > 60);
        assert_aligned_as_the_reference(&q, &hits, &sc);
    }

    /// Each subject with a positive score as a hit, with its score and end.
    fn hits_of<'a>(q: &[u8], subjects: &'a [Vec<u8>], sc: &Scoring) -> Vec<HitEnd<'a>> {
        subjects
            .iter()
            .filter_map(|s| {
                let best = score(q, s, sc);
                best.end.map(|end| HitEnd { subject: s, end, score: best.score })
            })
            .collect()
    }

    /// [`align_from_ends`] of `hits` gives each the reference's alignment.
    #[track_caller]
    fn assert_aligned_as_the_reference(q: &[u8], hits: &[HitEnd<'_>], sc: &Scoring) {
        let got = align_from_ends(q, hits, sc).unwrap();
        for (k, h) in hits.iter().enumerate() {
            assert_eq!(got[k], reference::align_ending_at(q, h.subject, sc, h.end), "hit {k}");
        }
    }

    /// Long near-identical hits (copies of the query's pieces with a few substitutions
    /// and a short indel) among unrelated ones: many have a band narrow enough, whose
    /// traceback over their own rectangle (rows and columns inside the pair) is the
    /// reference's alignment, and every alignment of the query's hits equals the
    /// reference's.
    #[test]
    fn near_identical_long_hits_traced_in_their_band_equal_the_reference() {
        let mut next = generator(23);
        for sc in [
            Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()),
            Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(16, 4).unwrap()),
        ] {
            let alpha = if sc.matrix.size() < 20 { 4 } else { 20 };
            let q: Vec<u8> = (0..2_000).map(|_| next(alpha) as u8).collect();
            let subjects: Vec<Vec<u8>> = (0..24)
                .map(|k| {
                    let mut s: Vec<u8> = (0..next(200)).map(|_| next(alpha) as u8).collect();
                    if k % 6 != 5 {
                        let a = next(q.len() - 300);
                        let b = (a + 300 + next(1_200)).min(q.len());
                        let mut piece = q[a..b].to_vec();
                        for _ in 0..next(4) {
                            let at = next(piece.len());
                            piece[at] = next(alpha) as u8;
                        }
                        if k % 3 == 0 {
                            let at = next(piece.len());
                            piece.drain(at..(at + 1 + next(3)).min(piece.len()));
                        }
                        let at = next(s.len() + 1);
                        s.splice(at..at, piece);
                    }
                    s
                })
                .collect();
            let hits = hits_of(&q, &subjects, &sc);
            let mut in_band = 0;
            for h in &hits {
                let Some(r) = rectangle(&q, h, &sc).unwrap() else { continue };
                let Some(w) = diagonal_band::half_width(&q, &r, &sc, h.score) else { continue };
                if 16 * (2 * w + 1) <= r.subject.len() {
                    let want = reference::align_ending_at(&q, h.subject, &sc, h.end);
                    assert_eq!(diagonal_band::align_in_band(&q, &r, &sc, w), want, "rows {:?}", r.rows);
                    in_band += 1;
                }
            }
            assert!(in_band >= 8, "{in_band} of {} hits in a band", hits.len());
            assert_aligned_as_the_reference(&q, &hits, &sc);
        }
    }

    #[test]
    fn divergent_long_hits_traced_alone_on_every_lane_equal_the_reference() {
        // Homologs of 300-900 residues, a fifth of their residues changed and a few
        // gaps: rectangles of hundreds of rows and columns, too gapped for a band,
        // which `wavefront` traces alone; ties included (DNA).
        let mut next = generator(31);
        for sc in [
            Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()),
            Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(10, 2).unwrap()),
        ] {
            let alpha = if sc.matrix.size() < 20 { 4 } else { 20 };
            let q: Vec<u8> = (0..1_200).map(|_| next(alpha) as u8).collect();
            let subjects: Vec<Vec<u8>> = (0..12)
                .map(|_| {
                    let a = next(q.len() - 900);
                    let mut piece = q[a..a + 300 + next(600)].to_vec();
                    for _ in 0..piece.len() / 5 {
                        let at = next(piece.len());
                        piece[at] = next(alpha) as u8;
                    }
                    for _ in 0..next(6) {
                        let at = next(piece.len());
                        if next(2) == 0 {
                            piece.drain(at..(at + 1 + next(8)).min(piece.len()));
                        } else {
                            piece.splice(at..at, (0..1 + next(8)).map(|_| next(alpha) as u8).collect::<Vec<_>>());
                        }
                    }
                    piece
                })
                .collect();
            let hits = hits_of(&q, &subjects, &sc);
            let mut alone = 0;
            for h in &hits {
                let Some(r) = rectangle(&q, h, &sc).unwrap().filter(wavefront::worth_it) else { continue };
                let want = reference::align_ending_at(&q, h.subject, &sc, h.end);
                assert_eq!(wavefront::align_rect(&q, &r, &sc), want, "rows {:?}", r.rows);
                alone += 1;
            }
            assert!(alone >= 6, "{alone} of {} hits traced alone", hits.len());
            assert_aligned_as_the_reference(&q, &hits, &sc);
        }
    }

    #[test]
    fn saturating_pairs_and_other_end_cells_take_the_whole_prefix() {
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let w = vec![17u8; 3_100];
        let best = score(&w, &w, &sc);
        let end = best.end.unwrap();
        assert_eq!(align_from_end(&w, &w, &sc, end, best.score).unwrap(), reference::align_ending_at(&w, &w, &sc, end));
        // A cell that is not the optimum's end: still the best alignment ending there.
        let q: Vec<u8> = (0..60).map(|k| (k * 7 % 20) as u8).collect();
        let cell = (30, 30);
        assert_eq!(
            align_from_end(&q, &q, &sc, cell, best.score).unwrap(),
            reference::align_ending_at(&q, &q, &sc, cell)
        );
        assert_eq!(align_from_end(&q, &q, &sc, (60, 0), 5).unwrap(), None);
        // Gap costs past 16 bits (40,001 would wrap in a lane): the whole prefix, right.
        let wide = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(40_000, 1).unwrap());
        let mut s = q.clone();
        s.remove(20);
        let best = score(&q, &s, &wide);
        let end = best.end.unwrap();
        assert_eq!(
            align_from_end(&q, &s, &wide, end, best.score).unwrap(),
            reference::align_ending_at(&q, &s, &wide, end)
        );
    }
}

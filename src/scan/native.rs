//! Native CPU scan, for machines without any OpenCL device: SWIPE-style inter-sequence
//! SIMD. Sixteen subjects are aligned at once, one per 16-bit lane; the lanes are plain
//! `[i16; 16]` arrays whose loops the compiler turns into vector instructions (AVX2 when
//! the processor has it, chosen at run time; SSE2 otherwise).
//!
//! The recurrence is the reference's (see `src/reference`), walked column by column
//! (subject positions j outer, query rows i inner):
//!
//! ```text
//! E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - oe)      oe = open + extend
//! F(i,j) = max(F(i-1,j) - extend, H(i-1,j) - oe)
//! H(i,j) = max(H(i-1,j-1) + S(q_i, s_j), E(i,j), F(i,j), 0)
//! ```
//!
//! Arithmetic saturates at ±32767, so a lane whose best comes within max(S) of the top
//! may have been capped: it is recomputed by the 32-bit reference and counted in
//! `recomputed`. Columns past a subject's end score `PAD_SCORE`, which keeps them below
//! the best. The end cell follows the reference's rule: a column replaces the best only
//! with a strictly higher score (so the smallest column wins ties), and within the column
//! the first row holding that score is taken.

use super::lanes::{LANES, Lanes, add, lanes_hold, max, splat};
use super::{PAD_SCORE, ScanOutput};
use crate::reference::{self, LocalScore};
use crate::scoring::Scoring;
use rayon::prelude::*;

/// Every subject's score and end against `query`, on all CPU cores.
pub fn scores<S: AsRef<[u8]> + Sync>(query: &[u8], subjects: &[S], scoring: &Scoring) -> ScanOutput {
    let mut order: Vec<usize> = (0..subjects.len()).collect();
    order.sort_by_key(|&k| subjects[k].as_ref().len());
    let results: Vec<(usize, LocalScore, bool)> = order
        .par_chunks(LANES)
        .flat_map_iter(|chunk| {
            let batch: Vec<&[u8]> = chunk.iter().map(|&k| subjects[k].as_ref()).collect();
            let out = align_batch(query, &batch, scoring);
            chunk.iter().zip(out).map(|(&k, (r, capped))| (k, r, capped)).collect::<Vec<_>>()
        })
        .collect();
    let mut out = ScanOutput::empty(subjects.len());
    for (k, r, capped) in results {
        out.scores[k] = if capped {
            out.recomputed += 1;
            reference::sw_score(query, subjects[k].as_ref(), scoring)
        } else {
            r
        };
    }
    out
}

/// Up to 16 subjects against the query; per lane the result and whether it may be capped.
fn align_batch(query: &[u8], batch: &[&[u8]], scoring: &Scoring) -> Vec<(LocalScore, bool)> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor supports AVX2 (checked just above).
            return unsafe { align_batch_avx2(query, batch, scoring) };
        }
    }
    align_batch_portable(query, batch, scoring)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn align_batch_avx2(query: &[u8], batch: &[&[u8]], scoring: &Scoring) -> Vec<(LocalScore, bool)> {
    align_batch_portable(query, batch, scoring)
}

#[inline(always)]
fn align_batch_portable(query: &[u8], batch: &[&[u8]], scoring: &Scoring) -> Vec<(LocalScore, bool)> {
    let m = query.len();
    let n = batch.iter().map(|s| s.len()).max().unwrap_or(0);
    let letters = scoring.matrix.size();
    let minus_oe = splat(-((scoring.gaps.open + scoring.gaps.extend) as i16));
    let minus_ext = splat(-(scoring.gaps.extend as i16));
    let mut h_col: Vec<Lanes> = vec![splat(0); m]; // H(i, j-1)
    let mut e_col: Vec<Lanes> = vec![minus_oe; m]; // E(i, j-1)
    // Per column: the score of every query letter against the 16 subjects' residues.
    let mut col_profile: Vec<Lanes> = vec![splat(PAD_SCORE); letters];
    let mut best = [0i32; LANES];
    let mut end = [(0usize, 0usize); LANES];
    for j in 0..n {
        for (a, row) in col_profile.iter_mut().enumerate() {
            for (l, s) in batch.iter().enumerate() {
                row[l] = s.get(j).map_or(PAD_SCORE, |&c| scoring.matrix.score(a as u8, c) as i16);
            }
        }
        let (mut diag, mut up, mut f, mut col_max) = (splat(0), splat(0), minus_oe, splat(0));
        for i in 0..m {
            let left = h_col[i];
            let e = max(add(e_col[i], minus_ext), add(left, minus_oe));
            f = max(add(f, minus_ext), add(up, minus_oe));
            let h = max(max(add(diag, col_profile[query[i] as usize]), e), max(f, splat(0)));
            diag = left;
            h_col[i] = h;
            e_col[i] = e;
            up = h;
            col_max = max(col_max, h);
        }
        for l in 0..batch.len() {
            if col_max[l] as i32 > best[l] {
                best[l] = col_max[l] as i32;
                let row = h_col.iter().position(|h| h[l] == col_max[l]).expect("the maximum is in the column");
                end[l] = (row, j);
            }
        }
    }
    (0..batch.len())
        .map(|l| (LocalScore { score: best[l], end: (best[l] > 0).then_some(end[l]) }, !lanes_hold(best[l], scoring)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::{Gaps, Matrix};

    #[test]
    fn equals_reference_with_ragged_batches_and_saturation() {
        let mut x = 12345u64;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let query: Vec<u8> = (0..150).map(|_| next(20) as u8).collect();
        let mut subjects: Vec<Vec<u8>> =
            (0..37).map(|k| (0..1 + next(200) + k).map(|_| next(20) as u8).collect()).collect();
        subjects.push(query.clone());
        subjects.push(query[40..90].to_vec());
        // A W-rich pair past 16 bits: W/W scores 11, 3,100 of them pass 32,767.
        let w = vec![17u8; 3_100];
        subjects.push(w.clone());
        let out = scores(&query, &subjects, &sc);
        for (k, s) in subjects.iter().enumerate() {
            assert_eq!(out.scores[k], reference::sw_score(&query, s, &sc), "subject {k}");
        }
        // Gap costs past 16 bits: every lane is recomputed at 32 bits, never wrong.
        let wide = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(40_000, 1).unwrap());
        let out = scores(&query, &subjects, &wide);
        assert_eq!(out.recomputed, subjects.len());
        for (k, s) in subjects.iter().enumerate() {
            assert_eq!(out.scores[k], reference::sw_score(&query, s, &wide), "subject {k}, wide gaps");
        }
        let long = scores(&w, &subjects, &sc);
        assert_eq!(long.scores.last().unwrap().score, 34_100);
        assert!(long.recomputed >= 1);
        assert_eq!(long.scores, subjects.iter().map(|s| reference::sw_score(&w, s, &sc)).collect::<Vec<_>>());
    }
}

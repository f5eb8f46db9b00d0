//! The native scan's second pass: the subjects whose 8-bit lane may have saturated
//! ([`super::lanes8`]), or every subject when the scoring does not fit bytes, sixteen
//! at a time, one per 16-bit lane. The lanes are plain `[i16; 16]` arrays whose loops
//! the compiler turns into vector instructions (AVX2 when the processor has it, chosen
//! at run time; SSE2 otherwise).
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
//! may have been capped: the caller recomputes it with the 32-bit reference. Columns
//! past a subject's end score `PAD_SCORE`, which keeps them below the best. The end
//! cell follows the reference's rule: a column replaces the best only with a strictly
//! higher score (so the smallest column wins ties), and within the column the first row
//! holding that score is taken.

use super::Level;
use crate::reference::LocalScore;
use crate::scan::PAD_SCORE;
use crate::scan::lanes::{LANES, Lanes, add, lanes_hold, max, splat};
use crate::scoring::Scoring;

/// Up to 16 subjects against the query; per lane the result and whether it may be capped.
/// `level` picks the instructions: AVX2 code at the AVX2 and AVX-512 levels, else SSE2
/// (x86-64's baseline) or the target's own.
pub(super) fn align_batch(level: Level, query: &[u8], batch: &[&[u8]], scoring: &Scoring) -> Vec<(LocalScore, bool)> {
    #[cfg(target_arch = "x86_64")]
    {
        if matches!(level, Level::Avx512 | Level::Avx2) && level.supported() {
            // SAFETY: the processor supports AVX2 (both levels include it; checked).
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

//! One large rectangle traced back on all SIMD lanes at once: sixteen rows of the same
//! pair a strip, walked along anti-diagonals.
//!
//! [`super::batch`] traces sixteen rectangles at once, one a lane, each walking its
//! rows one after another: a rectangle of a few thousand rows and columns (a long
//! query's full-length homologs) takes as long alone as sixteen do, while the rest of
//! its query's hits wait on it. Here lane `l` holds row `first + l` of one strip of
//! sixteen rows and, at step `t`, computes column `t - l`: every cell it needs was
//! computed a step earlier by itself (the cell to its left) or by the lane above (the
//! cells above and above-left), handed down one lane. So a strip costs `columns + 15`
//! steps of sixteen cells, and a rectangle its `rows x columns / 16` steps.
//!
//! The recurrence, the traceback bits and the walk are the reference's
//! ([`crate::reference::advance_row`], [`crate::reference::Walk`]), in 16-bit lanes as
//! [`super::batch`] computes them (the caller checks they hold the rectangle's scores).
//! As [`super::checkpoint`] does, a first pass keeps the strip boundaries (H and F of
//! each strip's last row, 4 bytes a column) and the walk recomputes the strips from the
//! last, with their bits.

use super::batch::{Kernel, NEG, Rect};
use crate::align::Alignment;
use crate::reference::{Walk, dir};
use crate::scan::native::lanes::{LANES, Lanes, add, max, splat};
use crate::scoring::{Mode, Scoring};

/// True for a rectangle better traced alone on every lane than in a lane of a batch:
/// one of at least 256 rows and columns whose strip boundaries take at most
/// [`MOST_BYTES`] ([`working_bytes`]; a larger one goes to a batch, whose memory is
/// bounded). A full batch computes about 3.5 times as many
/// cells a second, but a rectangle of 4,000 x 4,000 takes under a quarter of the time
/// alone that it takes in a batch (0.019 s against 0.086 s, AVX2, one core of an AMD
/// EPYC), and its query's hits are done only when it is.
pub fn worth_it(rect: &Rect<'_>) -> bool {
    rect.rows.len() >= 256 && rect.subject.len() >= 256 && working_bytes(rect) <= MOST_BYTES
}

/// The most bytes one rectangle traced alone may hold.
pub const MOST_BYTES: u128 = 256 << 20;

/// The bytes [`align_rect`] holds for `rect`: the strip boundaries (H and F, 16 bits
/// each, a column), one strip's bits twice (skewed and by rows), the per-letter scores.
pub fn working_bytes(rect: &Rect<'_>) -> u128 {
    let (strips, width) = (rect.rows.len().div_ceil(LANES) as u128 + 1, rect.subject.len() as u128 + 2 * LANES as u128);
    strips * width * 4 + 2 * LANES as u128 * width + 32 * width * 2
}

/// The alignment ending at the rectangle's last cell, as
/// [`crate::reference::align_ending_at`] gives it over that rectangle (positions in the
/// whole query and subject); `None` where it scores 0.
pub fn align_rect(query: &[u8], rect: &Rect<'_>, sc: &Scoring) -> Option<Alignment> {
    align_rect_with(Kernel::best(), query, rect, sc)
}

/// [`align_rect`] with the step loop of `kernel`.
fn align_rect_with(kernel: Kernel, query: &[u8], rect: &Rect<'_>, sc: &Scoring) -> Option<Alignment> {
    let q = &query[rect.rows.clone()];
    let s = rect.subject;
    if q.is_empty() || s.is_empty() {
        return None;
    }
    let width = s.len() + 1;
    let strips = q.len().div_ceil(LANES);
    let kernel = Strips::new(s, rect.rows.start, sc, kernel);
    // Forward: each strip's top boundary (H, F of the row above it).
    let mut tops: Vec<(Vec<i16>, Vec<i16>)> = Vec::with_capacity(strips);
    let (mut h, mut f) = (vec![0i16; width], vec![NEG; width]);
    for k in 0..strips {
        let (mut h_next, mut f_next) = (vec![0i16; width], vec![NEG; width]);
        let rows = &q[k * LANES..((k + 1) * LANES).min(q.len())];
        kernel.strip(k * LANES, rows, (&h, &f), (&mut h_next, &mut f_next), None);
        tops.push((std::mem::replace(&mut h, h_next), std::mem::replace(&mut f, f_next)));
    }
    if h[s.len()] <= 0 {
        return None;
    }
    // The reference's walk from the last cell, fed the strips' bits, last first.
    let mut walk = Walk::new((q.len() - 1, s.len() - 1), Mode::Local);
    let mut dirs = vec![0u8; LANES * width];
    let mut skewed = vec![[0u8; LANES]; s.len() + LANES];
    for k in (0..strips).rev() {
        if walk.done() {
            break;
        }
        let rows = &q[k * LANES..((k + 1) * LANES).min(q.len())];
        let (top_h, top_f) = &tops[k];
        let (mut h_out, mut f_out) = (vec![0i16; width], vec![NEG; width]);
        kernel.strip(k * LANES, rows, (top_h, top_f), (&mut h_out, &mut f_out), Some(&mut skewed));
        // Lane l's cell of column j (1-based) was computed at step j - 1 + l.
        for (l, row) in dirs.chunks_mut(width).take(rows.len()).enumerate() {
            for (j, d) in row.iter_mut().enumerate().skip(1) {
                *d = skewed[j - 1 + l][l];
            }
        }
        walk.through_block(q, s, &dirs, k * LANES + 1, width);
    }
    // In whole-query positions (a profile scores each with its own row).
    let mut a = walk.alignment(0, rect.rows.start, query, s, sc);
    // The path's own score is H at its end (what the reference reports).
    a.score = a.rescore(query, s, sc) as i32;
    a.subject_start += rect.subject_offset;
    a.subject_end += rect.subject_offset;
    Some(a)
}

/// What every strip of a rectangle shares: per letter (with a profile, per row of the
/// strip, made as it starts), its score against each column of the subject, between
/// `LANES` columns of 0 on each side (so that lane `l` at step `t`
/// reads column `t - l` at `t + LANES - l` without a bound check), the gap costs, and
/// the step loop: the portable lane-by-lane one (the readable twin, and every
/// processor's) or the AVX2 one ([`x86`]), which computes the same cells and bits.
struct Strips<'a> {
    by_letter: Vec<Vec<i16>>,
    /// With a profile, no table per letter: each strip's rows are scored along the
    /// subject as the strip starts ([`Strips::strip`]), from the profile's rows of the
    /// rectangle (its first row's position) and the subject.
    profile: Option<(&'a crate::scoring::Pssm, usize, &'a [u8])>,
    n: usize,
    minus_oe: i16,
    minus_ext: i16,
    kernel: Kernel,
}

/// A row's scores along the subject `s`, between `LANES` zeros on each side.
fn padded(row: &[i32], s: &[u8]) -> Vec<i16> {
    let scores = s.iter().map(|&c| row[c as usize] as i16);
    std::iter::repeat_n(0, LANES).chain(scores).chain(std::iter::repeat_n(0, LANES)).collect()
}

impl<'a> Strips<'a> {
    /// The strips of the rectangle whose rows start at query position `first_row`,
    /// against its subject piece `s`.
    fn new(s: &'a [u8], first_row: usize, sc: &'a Scoring, kernel: Kernel) -> Strips<'a> {
        let letters = sc.matrix.size();
        let by_letter = match &sc.pssm {
            Some(_) => Vec::new(),
            None => (0..letters as u8).map(|a| padded(sc.matrix.row(a), s)).collect(),
        };
        Strips {
            by_letter,
            profile: sc.pssm.as_deref().map(|p| (p, first_row, s)),
            n: s.len(),
            minus_oe: -((sc.gaps.open + sc.gaps.extend) as i16),
            minus_ext: -(sc.gaps.extend as i16),
            kernel,
        }
    }

    /// Rows `rows` (at most sixteen) of the recurrence below the row `top` (H and F at
    /// columns 0..=n), into `bottom` (the strip's last row); with `skewed`, each step's
    /// traceback bits (lane `l`'s cell of step `t` at `[t][l]`).
    fn strip(
        &self,
        first: usize,
        rows: &[u8],
        top: (&[i16], &[i16]),
        bottom: (&mut [i16], &mut [i16]),
        skewed: Option<&mut [[u8; LANES]]>,
    ) {
        // A profile's rows `first..` of the rectangle, scored along the subject.
        let own: Vec<Vec<i16>> = match self.profile {
            Some((p, first_row, s)) => (0..rows.len()).map(|l| padded(p.row(first_row + first + l), s)).collect(),
            None => Vec::new(),
        };
        // Lanes past the strip read the first row's scores: nothing reads their cells.
        let by_lane: [&[i16]; LANES] = std::array::from_fn(|l| {
            let l = l.min(rows.len() - 1);
            if own.is_empty() { &self.by_letter[rows[l] as usize][..] } else { &own[l][..] }
        });
        match self.kernel {
            Kernel::Portable => self.steps(&by_lane, rows.len(), top, bottom, skewed),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `kernel` is Avx2 only where the processor has AVX2 (`Kernel::best`).
            Kernel::Avx2 => unsafe { x86::steps(self, &by_lane, rows.len(), top, bottom, skewed) },
        }
    }

    /// [`strip`](Self::strip)'s steps, lane by lane.
    fn steps(
        &self,
        by_lane: &[&[i16]; LANES],
        rows: usize,
        (top_h, top_f): (&[i16], &[i16]),
        (bottom_h, bottom_f): (&mut [i16], &mut [i16]),
        mut skewed: Option<&mut [[u8; LANES]]>,
    ) {
        let (n, last) = (self.n, rows - 1);
        let (minus_oe, minus_ext) = (splat(self.minus_oe), splat(self.minus_ext));
        // Each lane's H and E at its last column, and F there (handed down a lane).
        let (mut h, mut e, mut f) = (splat(0), splat(NEG), splat(NEG));
        // H above-left: the `up` of the step before.
        let mut up_before = splat(0);
        bottom_h[0] = 0;
        bottom_f[0] = NEG;
        for t in 0..n + last {
            let above = |v: &Lanes, top: &[i16], fill: i16| -> Lanes {
                std::array::from_fn(|l| if l > 0 { v[l - 1] } else { top.get(t + 1).copied().unwrap_or(fill) })
            };
            let (up, f_above) = (above(&h, top_h, 0), above(&f, top_f, NEG));
            let diag = std::mem::replace(&mut up_before, up);
            let score: Lanes = std::array::from_fn(|l| by_lane[l].get(t + LANES - l).copied().unwrap_or(0));
            let (e_open, e_ext) = (add(h, minus_oe), add(e, minus_ext));
            let ev = max(e_open, e_ext);
            let (f_open, f_ext) = (add(up, minus_oe), add(f_above, minus_ext));
            let fv = max(f_open, f_ext);
            let d = add(diag, score);
            let best = max(max(d, ev), max(fv, splat(0)));
            if let Some(skewed) = skewed.as_deref_mut() {
                let wide = |v: Lanes, l: usize| v[l] as i32;
                skewed[t] = std::array::from_fn(|l| {
                    let (e_pair, f_pair) = ((wide(e_open, l), wide(e_ext, l)), (wide(f_open, l), wide(f_ext, l)));
                    dir::code(true, wide(best, l), wide(d, l), wide(ev, l), e_pair, f_pair)
                });
            }
            // Lanes that have not reached column 1 stay at the left boundary.
            let started = |l: usize| l <= t;
            h = std::array::from_fn(|l| if started(l) { best[l] } else { 0 });
            e = std::array::from_fn(|l| if started(l) { ev[l] } else { NEG });
            f = std::array::from_fn(|l| if started(l) { fv[l] } else { NEG });
            if let Some(j) = (t + 1).checked_sub(last).filter(|&j| j >= 1 && j <= n) {
                bottom_h[j] = h[last];
                bottom_f[j] = f[last];
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! [`Strips::steps`] on AVX2: a lane array is one 256-bit vector, handed down a lane
    //! by a shift across the register's halves.

    use super::{LANES, NEG, Strips};
    use crate::traceback::batch::x86::codes;
    use std::arch::x86_64::*;

    /// `v` one lane down (lane `l` gets lane `l - 1`'s value), lane 0 `first`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn down(v: __m256i, first: i16) -> __m256i {
        // The low half moved up, a zero half below it: the byte shift across halves
        // leaves lane 0 zero, which the OR fills.
        let low_up = _mm256_permute2x128_si256::<0x08>(v, v);
        _mm256_or_si256(
            _mm256_alignr_epi8::<14>(v, low_up),
            _mm256_zextsi128_si256(_mm_cvtsi32_si128(first as u16 as i32)),
        )
    }

    /// [`Strips::steps`], the same cells and bits.
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn steps(
        st: &Strips,
        by_lane: &[&[i16]; LANES],
        rows: usize,
        (top_h, top_f): (&[i16], &[i16]),
        (bottom_h, bottom_f): (&mut [i16], &mut [i16]),
        mut skewed: Option<&mut [[u8; LANES]]>,
    ) {
        let (n, last) = (st.n, rows - 1);
        assert!(top_h.len() > n && top_f.len() > n && bottom_h.len() > n && bottom_f.len() > n);
        assert!(by_lane.iter().all(|row| row.len() == n + 2 * LANES));
        assert!(skewed.as_ref().is_none_or(|k| k.len() >= n + last));
        let (minus_oe, minus_ext) = (_mm256_set1_epi16(st.minus_oe), _mm256_set1_epi16(st.minus_ext));
        let (zero, neg) = (_mm256_setzero_si256(), _mm256_set1_epi16(NEG));
        let lane = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let (mut h, mut e, mut f, mut up_before) = (zero, neg, neg, zero);
        let mut score = [0i16; LANES];
        let (mut h_out, mut f_out) = ([0i16; LANES], [0i16; LANES]);
        for t in 0..n + last {
            // SAFETY: (every access below) lane l reads score t + LANES - l < n + 2 LANES,
            // each row's length (asserted); `top` reads t + 1 <= n; `skewed` has
            // n + last entries (asserted) and t < n + last; `j` <= n; the processor has
            // AVX2 (this function's contract).
            unsafe {
                let top = |v: &[i16], fill: i16| if t < n { *v.get_unchecked(t + 1) } else { fill };
                let up = down(h, top(top_h, 0));
                let f_above = down(f, top(top_f, NEG));
                let diag = up_before;
                up_before = up;
                let e_open = _mm256_adds_epi16(h, minus_oe);
                let e_ext = _mm256_adds_epi16(e, minus_ext);
                let ev = _mm256_max_epi16(e_open, e_ext);
                let f_open = _mm256_adds_epi16(up, minus_oe);
                let f_ext = _mm256_adds_epi16(f_above, minus_ext);
                let fv = _mm256_max_epi16(f_open, f_ext);
                for (l, cell) in score.iter_mut().enumerate() {
                    *cell = *by_lane[l].get_unchecked(t + LANES - l);
                }
                let d = _mm256_adds_epi16(diag, _mm256_loadu_si256(score.as_ptr().cast()));
                let best = _mm256_max_epi16(_mm256_max_epi16(d, ev), _mm256_max_epi16(fv, zero));
                if let Some(skewed) = skewed.as_deref_mut() {
                    let all = codes(best, d, ev, (e_open, e_ext), (f_open, f_ext));
                    let bytes = _mm_packus_epi16(_mm256_castsi256_si128(all), _mm256_extracti128_si256::<1>(all));
                    _mm_storeu_si128(skewed.get_unchecked_mut(t).as_mut_ptr().cast(), bytes);
                }
                // Lanes that have not reached column 1 stay at the left boundary.
                let started = _mm256_cmpgt_epi16(_mm256_set1_epi16((t + 1).min(LANES) as i16), lane);
                h = _mm256_and_si256(best, started);
                e = _mm256_blendv_epi8(neg, ev, started);
                f = _mm256_blendv_epi8(neg, fv, started);
                if t + 1 >= last && t + 1 - last <= n {
                    let j = t + 1 - last;
                    _mm256_storeu_si256(h_out.as_mut_ptr().cast(), h);
                    _mm256_storeu_si256(f_out.as_mut_ptr().cast(), f);
                    *bottom_h.get_unchecked_mut(j) = h_out[last];
                    *bottom_f.get_unchecked_mut(j) = f_out[last];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::align_ending_at;
    use crate::reference::testing::generator;
    use crate::scoring::{Gaps, Matrix};

    /// The kernels this processor runs: the portable one, and AVX2 where it has it.
    fn kernels() -> Vec<Kernel> {
        let mut out = vec![Kernel::Portable];
        if Kernel::best() != Kernel::Portable {
            out.push(Kernel::best());
        }
        out
    }

    /// Every rectangle shape (strips full and partial, one row or column) gives the
    /// reference's alignment over the same rectangle, ties included.
    #[test]
    fn strips_give_the_references_alignment() {
        let mut next = generator(5);
        let mut aligned = 0;
        for case in 0..600 {
            let (open, extend) = [(11, 1), (0, 1), (5, 2), (10, 3)][case % 4];
            let name = ["BLOSUM62", "BLOSUM50", "PAM250"][case % 3];
            let sc = Scoring::new(Matrix::builtin(name).unwrap(), Gaps::affine(open, extend).unwrap());
            let m = 1 + next(if case % 5 == 0 { 70 } else { 40 });
            let q: Vec<u8> = (0..m).map(|_| next(20) as u8).collect();
            // A mutated copy of the query in a random subject (few letters: ties).
            let alphabet = if case % 2 == 0 { 4 } else { 20 };
            let n = 1 + next(60);
            let mut s: Vec<u8> = (0..n).map(|_| next(alphabet) as u8).collect();
            let at = next(n);
            for (k, &c) in q.iter().enumerate().filter(|_| next(3) > 0) {
                if at + k < n {
                    s[at + k] = c;
                }
            }
            // The rectangle of rows r0..=ie and columns c0..=je.
            let (ie, je) = (next(m), next(n));
            let (r0, c0) = (next(ie + 1), next(je + 1));
            let rect = Rect { rows: r0..ie + 1, subject: &s[c0..=je], subject_offset: c0 };
            let want = align_ending_at(&q[r0..], rect.subject, &sc, (ie - r0, je - c0)).map(|mut a| {
                a.query_start += r0;
                a.query_end += r0;
                a.subject_start += c0;
                a.subject_end += c0;
                a
            });
            aligned += want.is_some() as usize;
            for kernel in kernels() {
                let got = align_rect_with(kernel, &q, &rect, &sc);
                assert_eq!(got, want, "case {case}: {kernel:?}, {name} {open}/{extend}, {rect:?}");
            }
        }
        assert!(aligned > 200, "{aligned} cases with an alignment");
    }
}

//! Traceback of a three-sequence local alignment in memory of about two planes of the
//! table, so that three sequences of 2,000 residues (8 G cells) need tens of megabytes,
//! not gigabytes.
//!
//! Divide and conquer with crossing pointers. The alignment ends at the end cell E; it
//! lies in the box [0, E]. To trace back through a box, split it at the middle plane
//! `mid` of its longest axis and sweep the box once, k-plane by k-plane (two planes of
//! values in memory), carrying for every cell and state beyond `mid` a pointer to the
//! last cell (and state) on its traceback path at or before `mid`: the crossing. The
//! sink's pointer names the crossing C. The part of the alignment before C lies in the
//! box [lo, C], the part after it in [C, sink]; both are solved the same way, the
//! second with C as its source (its value and state fixed, everything else outside
//! the box minus infinity). Boxes small enough are traced back from a full table of
//! decisions. The sub-boxes of a split hold at most about half the cells, so the total
//! work is about twice one sweep of [0, E].
//!
//! Restricting the recurrence to a box only lowers values, and the cells of the
//! traceback path keep their true values (the path lies in the box), so every decision
//! on the path is the one the full table makes: the result is exactly the textbook
//! traceback (`reference::sw3::sw3_align_full`), same tie preferences, same alignment.

use super::{Alignment3, Sw3Score, check_inputs, check_native_memory};
use crate::error::Result;
use crate::reference::NEG_INF;
use crate::reference::sw3::{ORDER, delta, opens, sw3_score};
use crate::scoring::Scoring;

/// Boxes with at most this many cells are traced back from a full table of decisions
/// (one byte per cell and state).
const FULL_CELLS: usize = 1 << 22;

/// Pointer value: the path does not reach the middle plane (it starts beyond it).
const NONE: u32 = u32::MAX;
/// State code of a crossing where the alignment starts.
const START: u8 = 0;
/// Linear-gap decision flag: the cell's value is 0 (an alignment through it starts there).
const ZERO: u8 = 0x80;

/// The optimal local alignment of three sequences (alphabet codes), or `None` when the
/// best score is 0. The end cell comes from the reference score pass.
pub fn align(a: &[u8], b: &[u8], c: &[u8], scoring: &Scoring) -> Result<Option<Alignment3>> {
    align_with_limit(a, b, c, scoring, FULL_CELLS)
}

/// [`align`] for a known best score and end cell (from a device kernel, say), saving the
/// score pass. `best` must be the true optimum with the tie rule's end cell; `None` when
/// no alignment of that score ends there (or the score is 0); an error for inputs the
/// model refuses or whose planes do not fit in memory.
pub fn align_from_end(a: &[u8], b: &[u8], c: &[u8], scoring: &Scoring, best: Sw3Score) -> Result<Option<Alignment3>> {
    check_inputs(&[a, b, c], &[[0, 1, 2]], scoring)?;
    let Some(end) = best.end else { return Ok(None) };
    if end[0] > a.len() || end[1] > b.len() || end[2] > c.len() {
        return Ok(None);
    }
    check_native_memory([a.len(), b.len(), c.len()], scoring, true, 1)?;
    Ok(Tb::new([a, b, c], scoring, FULL_CELLS).run(end, best.score))
}

/// [`align`] with an explicit full-table limit (cells per box), so tests can force the
/// divide and conquer on small inputs.
pub fn align_with_limit(
    a: &[u8],
    b: &[u8],
    c: &[u8],
    scoring: &Scoring,
    full_cells: usize,
) -> Result<Option<Alignment3>> {
    check_inputs(&[a, b, c], &[[0, 1, 2]], scoring)?;
    check_native_memory([a.len(), b.len(), c.len()], scoring, true, 1)?;
    let best = sw3_score(a, b, c, scoring);
    let Some(end) = best.end else { return Ok(None) };
    Ok(Tb::new([a, b, c], scoring, full_cells).run(end, best.score))
}

#[derive(Clone, Copy)]
struct Source {
    /// Linear gaps: 1; affine: the state (column kind) in which the path passes the source.
    state: u8,
    value: i32,
}

enum Mode<'m> {
    /// Store every decision of the box (one byte per cell and state).
    Full(&'m mut Vec<u8>),
    /// Carry crossing pointers for cells beyond `mid` on `axis`; the sink's end up in `at_hi`.
    Cross { axis: usize, mid: usize, at_hi: [u32; 7] },
}

struct Tb<'a> {
    seqs: [&'a [u8]; 3],
    sc: &'a Scoring,
    full_cells: usize,
    /// `op[prev][m]`: open cost of a column of kind m after kind prev (0 = the start).
    op: [[i32; 8]; 8],
}

/// A box of DP cells, `lo..=hi` in each dimension.
type Box3 = ([usize; 3], [usize; 3]);

/// What a traceback of a box returns: the sink's value and, when the path starts in the
/// box, its start.
type Traced = (i32, Option<[usize; 3]>);

impl<'a> Tb<'a> {
    fn new(seqs: [&'a [u8]; 3], sc: &'a Scoring, full_cells: usize) -> Tb<'a> {
        let mut op = [[0; 8]; 8];
        for (prev, row) in op.iter_mut().enumerate() {
            for (m, v) in row.iter_mut().enumerate().skip(1) {
                let p = if prev == 0 { None } else { Some(prev as u8) };
                *v = opens(p, m as u8) * sc.gaps.open;
            }
        }
        Tb { seqs, sc, full_cells: full_cells.max(8), op }
    }

    fn run(&self, end: [usize; 3], score: i32) -> Option<Alignment3> {
        let mut columns = Vec::new();
        let (value, start) = if self.sc.gaps.open == 0 {
            self.solve::<1>([0; 3], end, None, None, &mut columns)
        } else {
            self.solve::<8>([0; 3], end, None, None, &mut columns)
        };
        if value != score {
            return None; // the given end is not where an alignment of that score ends
        }
        let start = start?;
        Some(Alignment3 { score, start, end, columns })
    }

    #[inline]
    fn pair(&self, p: usize, x: usize, q: usize, y: usize) -> i32 {
        if x == 0 || y == 0 { 0 } else { self.sc.matrix.score(self.seqs[p][x - 1], self.seqs[q][y - 1]) }
    }

    /// Traces back from `hi` (in state `sink`, or the best state there when `None`) to
    /// the start of the alignment or to the source at `lo`, appending the columns in
    /// order. Returns the sink's value and, when the path starts in this box, its start.
    fn solve<const NV: usize>(
        &self,
        lo: [usize; 3],
        hi: [usize; 3],
        src: Option<Source>,
        sink: Option<u8>,
        out: &mut Vec<u8>,
    ) -> Traced {
        if let Some(s) = src
            && lo == hi
        {
            return (s.value, None);
        }
        let ext: [usize; 3] = std::array::from_fn(|d| hi[d] - lo[d]);
        let cells = (ext[0] + 1) * (ext[1] + 1) * (ext[2] + 1);
        let axis = (0..3).max_by_key(|&d| (ext[d], d)).unwrap();
        if cells <= self.full_cells || ext[axis] < 2 {
            return self.full::<NV>((lo, hi), (src, sink), out);
        }
        let mid = lo[axis] + ext[axis] / 2;
        let mut mode = Mode::Cross { axis, mid, at_hi: [NONE; 7] };
        let vals = self.sweep::<NV>(lo, hi, src, &mut mode);
        let Mode::Cross { at_hi, .. } = mode else { unreachable!() };
        let state = sink.unwrap_or_else(|| end_state::<NV>(&vals));
        let (value, slot) = if NV == 1 { (vals[0], 0) } else { (vals[state as usize], state as usize - 1) };
        let ptr = at_hi[slot];
        if ptr == NONE {
            let mut lo2 = lo;
            lo2[axis] = mid + 1;
            let (_, start) = self.solve::<NV>(lo2, hi, None, Some(state), out);
            return (value, start);
        }
        let (u, v) = other_axes(axis);
        let idx = (ptr >> 3) as usize;
        let cstate = (ptr & 7) as u8;
        let mut cross = [0; 3];
        cross[axis] = mid;
        cross[u] = lo[u] + idx / (ext[v] + 1);
        cross[v] = lo[v] + idx % (ext[v] + 1);
        if cstate == START {
            let (_, start) = self.solve::<NV>(cross, hi, None, Some(state), out);
            return (value, start);
        }
        let (cvalue, start) = self.solve::<NV>(lo, cross, src, Some(cstate), out);
        let (_, start2) = self.solve::<NV>(cross, hi, Some(Source { state: cstate, value: cvalue }), Some(state), out);
        (value, start.or(start2))
    }

    /// Base case: a full table of decisions for the box `lo..=hi` (with `solve`'s source
    /// and sink), then the walk back.
    fn full<const NV: usize>(&self, (lo, hi): Box3, ends: (Option<Source>, Option<u8>), out: &mut Vec<u8>) -> Traced {
        let (src, sink) = ends;
        let mut dec = Vec::new();
        let vals = self.sweep::<NV>(lo, hi, src, &mut Mode::Full(&mut dec));
        let (ni, nj) = (hi[0] - lo[0] + 1, hi[1] - lo[1] + 1);
        let np = if NV == 1 { 1 } else { 7 };
        let at = |x: [usize; 3]| (((x[2] - lo[2]) * nj + (x[1] - lo[1])) * ni + (x[0] - lo[0])) * np;
        let back = |x: [usize; 3], m: u8| {
            let d = delta(m);
            [x[0] - d[0], x[1] - d[1], x[2] - d[2]]
        };
        let mut cols = Vec::new();
        let mut x = hi;
        let mut start = None;
        let value;
        if NV == 1 {
            value = vals[0];
            loop {
                let mask = dec[at(x)];
                if mask & ZERO != 0 || mask == 0 {
                    // Only when the given end is not a true optimum: stop rather than loop.
                    start = Some(x);
                    break;
                }
                cols.push(mask);
                let p = back(x, mask);
                if src.is_some() && p == lo {
                    break;
                }
                if dec[at(p)] & ZERO != 0 {
                    start = Some(p);
                    break;
                }
                x = p;
            }
        } else {
            let mut state = sink.unwrap_or_else(|| end_state::<NV>(&vals));
            value = vals[state as usize];
            loop {
                cols.push(state);
                let d = dec[at(x) + state as usize - 1];
                let p = back(x, state);
                if d == START {
                    start = Some(p);
                    break;
                }
                if src.is_some() && p == lo {
                    debug_assert_eq!(Some(d), src.map(|s| s.state));
                    break;
                }
                x = p;
                state = d;
            }
        }
        cols.reverse();
        out.extend_from_slice(&cols);
        (value, start)
    }

    /// One pass over the box, k-plane by k-plane; returns the values at `hi` (`[0]` the
    /// cell's best, `[m]` state m with affine gaps).
    fn sweep<const NV: usize>(&self, lo: [usize; 3], hi: [usize; 3], src: Option<Source>, mode: &mut Mode) -> [i32; 8] {
        if NV == 1 {
            return self.sweep_linear(lo, hi, src, mode);
        }
        let (ni, nj) = (hi[0] - lo[0] + 1, hi[1] - lo[1] + 1);
        let w = ni + 1;
        let plane = w * (nj + 1);
        let np = if NV == 1 { 1 } else { 7 };
        let mut vprev = vec![NEG_INF; plane * NV];
        let mut vcur = vec![NEG_INF; plane * NV];
        let (cross_axis, mid) = match mode {
            Mode::Cross { axis, mid, .. } => (*axis, *mid),
            Mode::Full(dec) => {
                dec.clear();
                dec.resize(ni * nj * (hi[2] - lo[2] + 1) * np, 0);
                (3, 0)
            }
        };
        let crossing = cross_axis < 3;
        let (mut pprev, mut pcur) =
            if crossing { (vec![NONE; plane * np], vec![NONE; plane * np]) } else { (Vec::new(), Vec::new()) };
        let (ou, ov) = if crossing { other_axes(cross_axis) } else { (0, 1) };
        let ext_v = hi[ov] - lo[ov] + 1;
        let g2 = 2 * self.sc.gaps.extend;
        let mut at_hi_vals = [NEG_INF; 8];
        let mut dec_pos = 0;
        for k in lo[2]..=hi[2] {
            for j in lo[1]..=hi[1] {
                let sbc = self.pair(1, j, 2, k);
                let jj = j - lo[1] + 1;
                for i in lo[0]..=hi[0] {
                    let ii = i - lo[0] + 1;
                    let xi = jj * w + ii;
                    let x = [i, j, k];
                    let sab = self.pair(0, i, 1, j);
                    let sac = self.pair(0, i, 2, k);
                    let mut col = [-g2; 8];
                    col[7] = sab + sac + sbc;
                    col[3] = sab - g2;
                    col[5] = sac - g2;
                    col[6] = sbc - g2;
                    // Predecessor entries by mask: (in the previous plane?, index).
                    let pred = |m: usize| {
                        let d = delta(m as u8);
                        (d[2] == 1, (jj - d[1]) * w + (ii - d[0]))
                    };
                    let mut vals = [NEG_INF; 8];
                    let mut decs = [0u8; 7];
                    if NV == 1 {
                        let pv = |m: usize| {
                            let (pp, e) = pred(m);
                            if pp { vprev[e] } else { vcur[e] }
                        };
                        let cand: [i32; 8] = std::array::from_fn(|m| if m == 0 { NEG_INF } else { pv(m) + col[m] });
                        let v = ORDER.iter().fold(0, |acc, &m| acc.max(cand[m as usize]));
                        vals[0] = v;
                        decs[0] = if v == 0 { ZERO } else { *ORDER.iter().find(|&&m| cand[m as usize] == v).unwrap() };
                    } else {
                        let mut v0 = 0;
                        for m in 1..8usize {
                            let d = delta(m as u8);
                            let (pp, e) = pred(m);
                            let p = if pp { &vprev[e * 8..e * 8 + 8] } else { &vcur[e * 8..e * 8 + 8] };
                            let real = i >= d[0] && j >= d[1] && k >= d[2];
                            let mut best = if real { -self.op[0][m] } else { NEG_INF };
                            let mut choice = START;
                            for &q in &ORDER {
                                let val = p[q as usize] - self.op[q as usize][m];
                                if val > best {
                                    best = val;
                                    choice = q;
                                }
                            }
                            let s = best + col[m];
                            vals[m] = s;
                            decs[m - 1] = choice;
                            v0 = v0.max(s);
                        }
                        vals[0] = v0;
                    }
                    if x == lo
                        && let Some(s) = src
                    {
                        vals = [NEG_INF; 8];
                        if NV == 1 {
                            vals[0] = s.value;
                            decs[0] = if s.value == 0 { ZERO } else { 0 };
                        } else {
                            vals[s.state as usize] = s.value;
                            vals[0] = s.value.max(0);
                        }
                    }
                    for v in 0..NV {
                        vcur[xi * NV + v] = vals[v];
                    }
                    match mode {
                        Mode::Full(dec) => {
                            dec[dec_pos..dec_pos + np].copy_from_slice(&decs[..np]);
                            dec_pos += np;
                        }
                        Mode::Cross { at_hi, .. } => {
                            if x[cross_axis] > mid {
                                // Where each state's path crosses the middle plane. Pointers
                                // of cells off every path may be anything (NONE here).
                                let enc = |p: [usize; 3], s: u8| {
                                    ((((p[ou] - lo[ou]) * ext_v + (p[ov] - lo[ov])) as u32) << 3) | s as u32
                                };
                                for s in 0..np {
                                    let ptr = if NV == 1 {
                                        if vals[0] == 0 {
                                            NONE
                                        } else {
                                            // The chosen predecessor is finite, so inside the box.
                                            let m = decs[0];
                                            let dd = delta(m);
                                            let p = [i - dd[0], j - dd[1], k - dd[2]];
                                            let (pp, e) = pred(m as usize);
                                            let zero = (if pp { vprev[e] } else { vcur[e] }) == 0;
                                            if p[cross_axis] <= mid {
                                                enc(p, if zero { START } else { 1 })
                                            } else if zero {
                                                NONE
                                            } else if pp {
                                                pprev[e]
                                            } else {
                                                pcur[e]
                                            }
                                        }
                                    } else {
                                        let m = s + 1;
                                        let d = decs[s];
                                        let dd = delta(m as u8);
                                        if i < lo[0] + dd[0] || j < lo[1] + dd[1] || k < lo[2] + dd[2] {
                                            NONE
                                        } else {
                                            let p = [i - dd[0], j - dd[1], k - dd[2]];
                                            if p[cross_axis] <= mid {
                                                enc(p, d)
                                            } else if d == START {
                                                NONE
                                            } else {
                                                let (pp, e) = pred(m);
                                                if pp {
                                                    pprev[e * 7 + d as usize - 1]
                                                } else {
                                                    pcur[e * 7 + d as usize - 1]
                                                }
                                            }
                                        }
                                    };
                                    pcur[xi * np + s] = ptr;
                                }
                                if x == hi {
                                    *at_hi = [NONE; 7];
                                    at_hi[..np].copy_from_slice(&pcur[xi * np..xi * np + np]);
                                }
                            }
                        }
                    }
                    if x == hi {
                        at_hi_vals = vals;
                    }
                }
            }
            std::mem::swap(&mut vprev, &mut vcur);
            if crossing {
                std::mem::swap(&mut pprev, &mut pcur);
            }
        }
        at_hi_vals
    }
}

impl Tb<'_> {
    /// [`Tb::sweep`] for linear gaps, written out (one value per cell, the decision is
    /// the column kind): several times faster than the general state machine.
    fn sweep_linear(&self, lo: [usize; 3], hi: [usize; 3], src: Option<Source>, mode: &mut Mode) -> [i32; 8] {
        let (ni, nj) = (hi[0] - lo[0] + 1, hi[1] - lo[1] + 1);
        let w = ni + 1;
        let plane = w * (nj + 1);
        let mut vprev = vec![NEG_INF; plane];
        let mut vcur = vec![NEG_INF; plane];
        let (cross_axis, mid, mut dec) = match mode {
            Mode::Cross { axis, mid, .. } => (*axis, *mid, None),
            Mode::Full(dec) => {
                dec.clear();
                dec.resize(ni * nj * (hi[2] - lo[2] + 1), 0);
                (3, 0, Some(dec))
            }
        };
        let crossing = cross_axis < 3;
        let (mut pprev, mut pcur) =
            if crossing { (vec![NONE; plane], vec![NONE; plane]) } else { (Vec::new(), Vec::new()) };
        let (ou, ov) = if crossing { other_axes(cross_axis) } else { (0, 1) };
        let ext_v = hi[ov] - lo[ov] + 1;
        let g2 = 2 * self.sc.gaps.extend;
        let sab: Vec<i32> = (lo[1]..=hi[1])
            .flat_map(|j| (lo[0]..=hi[0]).map(move |i| (i, j)))
            .map(|(i, j)| self.pair(0, i, 1, j))
            .collect();
        let mut sac = vec![0i32; ni];
        let mut dec_pos = 0;
        let mut row_dec = vec![0u8; ni];
        for k in lo[2]..=hi[2] {
            for (x, i) in sac.iter_mut().zip(lo[0]..=hi[0]) {
                *x = self.pair(0, i, 2, k);
            }
            for j in lo[1]..=hi[1] {
                let sbc = self.pair(1, j, 2, k);
                let jj = j - lo[1] + 1;
                let (row, up) = (jj * w, (jj - 1) * w);
                let sab_row = &sab[(jj - 1) * ni..jj * ni];
                // The source cell, when this row holds it (i = lo[0], the row's first).
                let src_here = src.filter(|_| j == lo[1] && k == lo[2]);
                // Values and decisions of the row.
                {
                    let (cur_up, cur_rest) = vcur.split_at_mut(row);
                    let cur_up = &cur_up[up..row];
                    let cur_row = &mut cur_rest[..w];
                    let (prev_up, prev_row) = (&vprev[up..row], &vprev[row..row + w]);
                    let mut left = NEG_INF;
                    for ii in 1..=ni {
                        let (s_ab, s_ac) = (sab_row[ii - 1], sac[ii - 1]);
                        let c7 = prev_up[ii - 1] + s_ab + s_ac + sbc;
                        let c3 = cur_up[ii - 1] + s_ab - g2;
                        let c5 = prev_row[ii - 1] + s_ac - g2;
                        let c6 = prev_up[ii] + sbc - g2;
                        let c1 = left - g2;
                        let c2 = cur_up[ii] - g2;
                        let c4 = prev_row[ii] - g2;
                        let v = c7.max(c3).max(c5).max(c6).max(c1).max(c2).max(c4).max(0);
                        // The first kind in ORDER (7, 3, 5, 6, 1, 2, 4) giving the value.
                        row_dec[ii - 1] = if v == 0 {
                            ZERO
                        } else if c7 == v {
                            7
                        } else if c3 == v {
                            3
                        } else if c5 == v {
                            5
                        } else if c6 == v {
                            6
                        } else if c1 == v {
                            1
                        } else if c2 == v {
                            2
                        } else {
                            4
                        };
                        cur_row[ii] = v;
                        left = v;
                        if ii == 1
                            && let Some(s) = src_here
                        {
                            cur_row[1] = s.value;
                            left = s.value;
                            row_dec[0] = if s.value == 0 { ZERO } else { 0 };
                        }
                    }
                }
                if let Some(dec) = dec.as_deref_mut() {
                    dec[dec_pos..dec_pos + ni].copy_from_slice(&row_dec);
                    dec_pos += ni;
                    continue;
                }
                // Crossing pointers of the row's cells beyond the middle plane.
                let first_ii = match cross_axis {
                    0 => mid + 1 - lo[0].min(mid + 1) + 1,
                    1 if j <= mid => ni + 1,
                    2 if k <= mid => ni + 1,
                    _ => 1,
                };
                for ii in first_ii..=ni {
                    let d = row_dec[ii - 1];
                    let i = lo[0] + ii - 1;
                    let ptr = if d & ZERO != 0 {
                        NONE
                    } else {
                        let (di, dj, dk) = ((d & 1) as usize, ((d >> 1) & 1) as usize, (d >> 2) as usize);
                        let e = (jj - dj) * w + ii - di;
                        let (pv, pp) = if dk == 1 { (vprev[e], pprev[e]) } else { (vcur[e], pcur[e]) };
                        let p = [i - di, j - dj, k - dk];
                        if p[cross_axis] <= mid {
                            let idx = (p[ou] - lo[ou]) * ext_v + (p[ov] - lo[ov]);
                            ((idx as u32) << 3) | if pv == 0 { START as u32 } else { 1 }
                        } else if pv == 0 {
                            NONE
                        } else {
                            pp
                        }
                    };
                    pcur[row + ii] = ptr;
                }
            }
            if k < hi[2] {
                std::mem::swap(&mut vprev, &mut vcur);
                if crossing {
                    std::mem::swap(&mut pprev, &mut pcur);
                }
            }
        }
        let last = nj * w + ni;
        if let Mode::Cross { at_hi, .. } = mode {
            *at_hi = [NONE; 7];
            at_hi[0] = pcur[last];
        }
        let mut out = [NEG_INF; 8];
        out[0] = vcur[last];
        out
    }
}

/// The state the traceback starts in at a cell: the first kind in [`ORDER`] whose value
/// is the cell's best (linear gaps: the single state 1).
fn end_state<const NV: usize>(vals: &[i32; 8]) -> u8 {
    if NV == 1 { 1 } else { ORDER.into_iter().find(|&m| vals[m as usize] == vals[0]).unwrap_or(7) }
}

fn other_axes(axis: usize) -> (usize, usize) {
    match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}

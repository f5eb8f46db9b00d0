/* scan_fast: two subjects per work-item. Kept for: psse's `fast` variant (its shuffles
 * are laid out for this kernel) and as the baseline scan_team.cl is measured against;
 * scan_team is the faster scan path (BENCHMARKS.md). Inter-task like scan_inter.cl (query bands in
 * registers, boundary rows in global memory, length-sorted groups), but every
 * work-item carries TWO subjects, one in each 16-bit lane of a 32-bit register, and
 * on NVIDIA the lane-wise arithmetic is Hopper's packed DPX instructions reached by
 * inline PTX (add/max .s16x2, max .relu, prmt). Elsewhere the same operations are
 * written in portable C.
 *
 * Recurrence (per lane), rows i = query, columns j = subject:
 *
 *   E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - oe)        oe = open + extend
 *   F(i,j) = max(F(i-1,j) - extend, H(i-1,j) - oe)
 *   H(i,j) = max(H(i-1,j-1) + S(q_i, s_j), E(i,j), F(i,j), 0)
 *
 * H - oe feeds both the E of the next column and the F of the next row; it is computed
 * once for the F chain and again for E in the next column rather than kept in a third
 * register array (measured on an H200: 118 instead of 167 registers, and 4% faster for
 * the extra add). Six packed operations per pair of cells, five of them fused DPX.
 * E and F start at -oe (equivalent to minus infinity, see scan_inter.cl), so no value
 * falls below -(oe + extend).
 *
 * Saturation: the lanes are true 16-bit values. A wrap can only start from a cell
 * above 32767 - max(S), and every cell is folded into the lane's best, so a subject
 * whose best exceeds SAT_LIMIT (passed in) is reported as -1 and recomputed at 32 bits
 * by the host; any other subject's score is exact.
 *
 * End cell: after each column the band's column maximum is compared per lane with the
 * lane's best (higher, or equal at a smaller column: the reference's rule); only on an
 * improvement does the work-item search the band for the first row with that value.
 *
 * The band's query profile sits in local memory as words holding two consecutive rows
 * of one letter; PRMT picks lane a's and lane b's halves into the packed score.
 *
 * Two kernels share the column step:
 *   scan_fast       one work-item per pair of subjects, walking every band of the query
 *                   itself: the path for the bulk of a database.
 *   scan_fast_long  one work-group per pair of long subjects. Work-item k takes bands
 *                   k, k + W, k + 2W, ... and the work-group walks the subject in tiles of
 *                   TILE columns as a wavefront: at step s work-item k computes tile s - k
 *                   of its band, taking the band above's last row from work-item k - 1
 *                   through local memory (double-buffered, a barrier per step) and, for
 *                   k = 0, from the boundary row the previous round left in global memory.
 *                   Without it one work-item would walk a 35,000-residue subject's whole
 *                   matrix alone while the rest of the device idles.
 */

#ifndef BAND
#define BAND 16
#endif
#define HALF (BAND / 2)
/* Words per letter in the local profile: an odd stride puts different letters in
 * different banks, so a warp's lookups (one letter per subject) do not conflict. */
#define STRIDE (HALF + 1)

/* The packed 16-bit helpers (vadd2, vmax2, vaddmax2, pick_lo, PACK2, ...) are in
 * clsw_common.h, shared with scan_team.cl. */

/* H and E of one band at column j - 1, carried from column to column. */
typedef struct {
    uint h[BAND], e[BAND];
} band_t;

inline void band_reset(band_t *b, uint minus_oe)
{
#pragma unroll
    for (int r = 0; r < BAND; r++) {
        b->h[r] = 0;
        b->e[r] = minus_oe;
    }
}

/* One column of one band: BAND cells in each lane. `up_h` and `*f` enter as H and F of
 * the row above the band at column j, `diag` as H of that row at column j - 1; `pa`, `pb`
 * are the band's profile rows for the two lanes' letters. On return the band holds
 * column j, `*f` is F of its last row, and the result is the column's maximum per lane. */
inline uint band_column(band_t *b, uint up_h, uint *f, uint diag, __local const uint *pa,
                        __local const uint *pb, uint minus_oe, uint minus_ext)
{
    uint up_ho = vadd2(up_h, minus_oe);
    uint colmax = 0;
    uint fv = *f;
#pragma unroll
    for (int r2 = 0; r2 < HALF; r2++) {
        const uint wa = pa[r2], wb = pb[r2];
#pragma unroll
        for (int upper = 0; upper < 2; upper++) {
            const int r = 2 * r2 + upper;
            const uint s = upper ? pick_hi(wa, wb) : pick_lo(wa, wb);
            b->e[r] = vaddmax2(b->e[r], minus_ext, vadd2(b->h[r], minus_oe));
            fv = vaddmax2(fv, minus_ext, up_ho);
            const uint hn = vmax2_relu(vaddmax2(diag, s, b->e[r]), fv);
            diag = b->h[r];
            b->h[r] = hn;
            up_ho = vadd2(hn, minus_oe);
            colmax = vmax2(colmax, hn);
        }
    }
    *f = fv;
    return colmax;
}

__kernel void scan_fast(
    __global const uint *profile,      /* [letter][m_pad/2]: rows 2k, 2k+1 of S(q, letter) as two shorts */
    const int m_pad,                   /* query rows rounded up to whole bands */
    const int letters,                 /* alphabet size + 1 (the padding code) */
    __global const uint *residues,     /* per group: word w of slot t at [base + w*G + t]: 2 columns x 2 lanes */
    __global const uint *group_word,   /* per group: base word */
    __global const uint *lengths,      /* per slot and lane: subject length */
    __global uint2 *boundary,          /* per group: column j of slot t at [base + j*G + t]: (H, F) pairs */
    __global const ulong *group_cell,  /* per group: base boundary element */
    const ulong cell_origin,           /* group_cell of this launch's first group */
    const int first_group,
    const int gap_open,
    const int gap_extend,
    const int sat_limit,               /* a best above this may have wrapped */
    __local uint *band_profile,        /* [letter][STRIDE] */
    __global int *out_score,           /* per slot and lane; -1 = saturated, recompute wide */
    __global int *out_query_end,
    __global int *out_subject_end)
{
    const int G = get_local_size(0);
    const int t = get_local_id(0);
    const int g = clsw_longest_first(first_group);
    const int slot = g * G + t;
    const int n0 = (int)lengths[2 * slot], n1 = (int)lengths[2 * slot + 1];
    const int n = max(n0, n1);
    __global const uint *res = residues + group_word[g] + t;
    __global uint2 *bnd = boundary + (group_cell[g] - cell_origin) + t;
    const uint minus_oe = PACK2(-(gap_open + gap_extend));
    const uint minus_ext = PACK2(-gap_extend);

    end_t best0 = {0, -1, -1}, best1 = {0, -1, -1};
    band_t band;
    for (int i0 = 0; i0 < m_pad; i0 += BAND) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = t; k < letters * HALF; k += G)
            band_profile[(k / HALF) * STRIDE + k % HALF] =
                profile[(size_t)(k / HALF) * (m_pad / 2) + i0 / 2 + k % HALF];
        barrier(CLK_LOCAL_MEM_FENCE);

        band_reset(&band, minus_oe);
        uint diag_top = 0;  /* H(i0-1, j-1) */
        /* The next column's boundary and residues are loaded one column ahead, so the
         * global loads overlap the arithmetic instead of stalling it. */
        uint2 next_b = (uint2)(0, minus_oe);
        if (i0 > 0 && n > 0)
            next_b = bnd[0];
        uint word = n > 0 ? res[0] : 0, next_word = 0;
        for (int j = 0; j < n; j++) {
            const uint2 top = next_b;
            if (i0 > 0 && j + 1 < n)
                next_b = bnd[(size_t)(j + 1) * G];
            if ((j & 1) == 0 && j + 2 < n)
                next_word = res[(size_t)((j >> 1) + 1) * G];
            __local const uint *pa = band_profile + LETTER(word, j, 0) * STRIDE;
            __local const uint *pb = band_profile + LETTER(word, j, 1) * STRIDE;
            if (j & 1)
                word = next_word;
            uint f = top.y;
            const uint colmax = band_column(&band, top.x, &f, diag_top, pa, pb, minus_oe, minus_ext);
            diag_top = top.x;
            bnd[(size_t)j * G] = (uint2)(band.h[BAND - 1], f);
            track_end(&best0, LO(colmax), 0, band.h, BAND, i0, j);
            track_end(&best1, HI(colmax), 1, band.h, BAND, i0, j);
        }
    }
    if (n0 > 0)
        write_result(out_score, out_query_end, out_subject_end, 2 * slot, best0, sat_limit);
    if (n1 > 0)
        write_result(out_score, out_query_end, out_subject_end, 2 * slot + 1, best1, sat_limit);
}

#ifndef TILE
#define TILE 32
#endif

__kernel void scan_fast_long(
    __global const uint *profile,      /* as scan_fast */
    const int m_pad,
    const int letters,
    __global const uint *residues,     /* one slot per group: word w at [base + w] */
    __global const uint *group_word,
    __global const uint *lengths,      /* per slot and lane */
    __global uint2 *boundary,          /* per group: column j at [base + j], between rounds */
    __global const ulong *group_cell,
    const ulong cell_origin,
    const int first_group,
    const int gap_open,
    const int gap_extend,
    const int sat_limit,
    __local uint *band_profiles,       /* [W][letter][STRIDE] */
    __global int *out_score,
    __global int *out_query_end,
    __global int *out_subject_end,
    __local uint2 *handoff,            /* [2][W][TILE]: each band's last row, for the band below */
    __local int *ends)                 /* [W][6]: per work-item best ends, reduced at the end */
{
    const int W = get_local_size(0);
    const int k = get_local_id(0);
    const int g = first_group + (int)(get_num_groups(0) - 1 - get_group_id(0));
    const int n0 = (int)lengths[2 * g], n1 = (int)lengths[2 * g + 1];
    const int n = max(n0, n1);
    const int tiles = (n + TILE - 1) / TILE;
    const int bands = m_pad / BAND;
    __global const uint *res = residues + group_word[g];
    __global uint2 *bnd = boundary + (group_cell[g] - cell_origin);
    __local uint *my_profile = band_profiles + k * letters * STRIDE;
    const uint minus_oe = PACK2(-(gap_open + gap_extend));
    const uint minus_ext = PACK2(-gap_extend);

    end_t best0 = {0, -1, -1}, best1 = {0, -1, -1};
    band_t band;
    for (int round = 0; round < bands; round += W) {
        const int my_band = round + k;
        const int i0 = my_band * BAND;
        const bool active = my_band < bands;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (active)
            for (int c = 0; c < letters * HALF; c++)
                my_profile[(c / HALF) * STRIDE + c % HALF] =
                    profile[(size_t)(c / HALF) * (m_pad / 2) + i0 / 2 + c % HALF];
        band_reset(&band, minus_oe);
        uint diag_top = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int step = 0; step < tiles + W - 1; step++) {
            const int tile = step - k;
            if (active && tile >= 0 && tile < tiles) {
                __local const uint2 *from = handoff + ((step + 1) & 1) * W * TILE + (k - 1) * TILE;
                __local uint2 *to = handoff + (step & 1) * W * TILE + k * TILE;
                const int j_end = min(n, (tile + 1) * TILE);
                for (int j = tile * TILE; j < j_end; j++) {
                    uint2 top;
                    if (k > 0)
                        top = from[j - tile * TILE];
                    else if (round > 0)
                        top = bnd[j];
                    else
                        top = (uint2)(0, minus_oe);
                    const uint word = res[j >> 1];
                    __local const uint *pa = my_profile + LETTER(word, j, 0) * STRIDE;
                    __local const uint *pb = my_profile + LETTER(word, j, 1) * STRIDE;
                    uint f = top.y;
                    const uint colmax = band_column(&band, top.x, &f, diag_top, pa, pb, minus_oe, minus_ext);
                    diag_top = top.x;
                    const uint2 bottom = (uint2)(band.h[BAND - 1], f);
                    if (k == W - 1)
                        bnd[j] = bottom;  /* for work-item 0 in the next round */
                    else
                        to[j - tile * TILE] = bottom;
                    track_end(&best0, LO(colmax), 0, band.h, BAND, i0, j);
                    track_end(&best1, HI(colmax), 1, band.h, BAND, i0, j);
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        }
    }
    ends[k * 6 + 0] = best0.score;
    ends[k * 6 + 1] = best0.i;
    ends[k * 6 + 2] = best0.j;
    ends[k * 6 + 3] = best1.score;
    ends[k * 6 + 4] = best1.i;
    ends[k * 6 + 5] = best1.j;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k == 0) {
        for (int w = 1; w < W; w++) {
            const end_t e0 = {ends[w * 6 + 0], ends[w * 6 + 1], ends[w * 6 + 2]};
            const end_t e1 = {ends[w * 6 + 3], ends[w * 6 + 4], ends[w * 6 + 5]};
            best0 = better_end(best0, e0);
            best1 = better_end(best1, e1);
        }
        if (n0 > 0)
            write_result(out_score, out_query_end, out_subject_end, 2 * g, best0, sat_limit);
        if (n1 > 0)
            write_result(out_score, out_query_end, out_subject_end, 2 * g + 1, best1, sat_limit);
    }
}

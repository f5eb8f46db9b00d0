/* scan_fast: the fastest scan path. Inter-task like scan_inter.cl (query bands in
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
 * Each H is kept twice, as H and as H - oe (`ho`), because H - oe feeds both the E of
 * the next column and the F of the next row: five packed operations per pair of cells.
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
 */

#ifndef BAND
#define BAND 16
#endif
#define HALF (BAND / 2)
/* Words per letter in the local profile: an odd stride puts different letters in
 * different banks, so a warp's lookups (one letter per subject) do not conflict. */
#define STRIDE (HALF + 1)

#if CLSW_NV
inline uint vadd2(uint a, uint b) { uint d; asm("add.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
inline uint vmax2(uint a, uint b) { uint d; asm("max.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
inline uint vmax2_relu(uint a, uint b) { uint d; asm("max.s16x2.relu %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
/* max(a + b, c) per lane; ptxas fuses this into one VIADDMNMX */
inline uint vaddmax2(uint a, uint b, uint c) {
    uint d;
    asm("{.reg .b32 t; add.s16x2 t, %1, %2; max.s16x2 %0, t, %3;}" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
/* (low half of a) | (low half of b) << 16, and the same for the high halves */
inline uint pick_lo(uint a, uint b) { uint d; asm("prmt.b32 %0, %1, %2, 0x5410;" : "=r"(d) : "r"(a), "r"(b)); return d; }
inline uint pick_hi(uint a, uint b) { uint d; asm("prmt.b32 %0, %1, %2, 0x7632;" : "=r"(d) : "r"(a), "r"(b)); return d; }
#else
inline uint pack2(int lo, int hi) { return ((uint)lo & 0xffffu) | ((uint)hi << 16); }
inline int lane0(uint a) { return (int)(short)(a & 0xffffu); }
inline int lane1(uint a) { return (int)(short)(a >> 16); }
inline uint vadd2(uint a, uint b) { return pack2(lane0(a) + lane0(b), lane1(a) + lane1(b)); }
inline uint vmax2(uint a, uint b) { return pack2(max(lane0(a), lane0(b)), max(lane1(a), lane1(b))); }
inline uint vmax2_relu(uint a, uint b) { return pack2(max(max(lane0(a), lane0(b)), 0), max(max(lane1(a), lane1(b)), 0)); }
inline uint vaddmax2(uint a, uint b, uint c) { return vmax2(vadd2(a, b), c); }
inline uint pick_lo(uint a, uint b) { return (a & 0xffffu) | (b << 16); }
inline uint pick_hi(uint a, uint b) { return (a >> 16) | (b & 0xffff0000u); }
#endif

/* The same 16-bit value in both lanes. */
#define PACK2(v) (((uint)(v) & 0xffffu) | ((uint)(v) << 16))
#define LO(x) ((int)(short)((x) & 0xffffu))
#define HI(x) ((int)(short)((x) >> 16))

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
    const int g = first_group + get_group_id(0);
    const int slot = g * G + t;
    const int n0 = (int)lengths[2 * slot], n1 = (int)lengths[2 * slot + 1];
    const int n = max(n0, n1);
    __global const uint *res = residues + group_word[g] + t;
    __global uint2 *bnd = boundary + (group_cell[g] - cell_origin) + t;
    const int oe = gap_open + gap_extend;
    const uint minus_oe = PACK2(-oe);
    const uint minus_ext = PACK2(-gap_extend);

    int best0 = 0, best1 = 0, i0_end = -1, i1_end = -1, j0_end = -1, j1_end = -1;
    for (int i0 = 0; i0 < m_pad; i0 += BAND) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = t; k < letters * HALF; k += G)
            band_profile[(k / HALF) * STRIDE + k % HALF] = profile[(k / HALF) * (m_pad / 2) + i0 / 2 + k % HALF];
        barrier(CLK_LOCAL_MEM_FENCE);

        uint h[BAND], ho[BAND], e[BAND];  /* H, H - oe and E at (i, j-1) */
#pragma unroll
        for (int r = 0; r < BAND; r++) {
            h[r] = 0;
            ho[r] = minus_oe;
            e[r] = minus_oe;
        }
        uint diag_top = 0;  /* H(i0-1, j-1) */
        /* The next column's boundary and residues are loaded one column ahead, so the
         * global loads overlap the arithmetic instead of stalling it. */
        uint2 next_b = (uint2)(0, minus_oe);
        if (i0 > 0 && n > 0)
            next_b = bnd[0];
        uint word = n > 0 ? res[0] : 0, next_word = 0;
        for (int j = 0; j < n; j++) {
            const uint2 b = next_b;
            if (i0 > 0 && j + 1 < n)
                next_b = bnd[(size_t)(j + 1) * G];
            if ((j & 1) == 0 && j + 2 < n)
                next_word = res[((j >> 1) + 1) * G];
            const uint ca = (word >> ((j & 1) * 16)) & 0xffu;
            const uint cb = (word >> ((j & 1) * 16 + 8)) & 0xffu;
            if (j & 1)
                word = next_word;
            __local const uint *pa = band_profile + ca * STRIDE;
            __local const uint *pb = band_profile + cb * STRIDE;
            uint up_h = b.x, f = b.y;
            uint up_ho = vadd2(up_h, minus_oe);
            uint diag = diag_top;
            diag_top = up_h;
            uint colmax = 0;
#pragma unroll
            for (int r2 = 0; r2 < HALF; r2++) {
                const uint wa = pa[r2], wb = pb[r2];
#pragma unroll
                for (int upper = 0; upper < 2; upper++) {
                    const int r = 2 * r2 + upper;
                    const uint s = upper ? pick_hi(wa, wb) : pick_lo(wa, wb);
                    e[r] = vaddmax2(e[r], minus_ext, ho[r]);
                    f = vaddmax2(f, minus_ext, up_ho);
                    const uint hn = vmax2_relu(vaddmax2(diag, s, e[r]), f);
                    diag = h[r];
                    h[r] = hn;
                    up_ho = vadd2(hn, minus_oe);
                    ho[r] = up_ho;
                    colmax = vmax2(colmax, hn);
                }
            }
            bnd[(size_t)j * G] = (uint2)(h[BAND - 1], f);
            /* Ends: rare improvements only. */
            const int c0 = LO(colmax), c1 = HI(colmax);
            if (c0 > best0 || (c0 == best0 && c0 > 0 && j < j0_end)) {
                int row = 0;
#pragma unroll
                for (int r = BAND - 1; r >= 0; r--)
                    if (LO(h[r]) == c0) row = r;
                best0 = c0;
                i0_end = i0 + row;
                j0_end = j;
            }
            if (c1 > best1 || (c1 == best1 && c1 > 0 && j < j1_end)) {
                int row = 0;
#pragma unroll
                for (int r = BAND - 1; r >= 0; r--)
                    if (HI(h[r]) == c1) row = r;
                best1 = c1;
                i1_end = i0 + row;
                j1_end = j;
            }
        }
    }
    if (n0 > 0) {
        out_score[2 * slot] = best0 > sat_limit ? -1 : best0;
        out_query_end[2 * slot] = i0_end;
        out_subject_end[2 * slot] = j0_end;
    }
    if (n1 > 0) {
        out_score[2 * slot + 1] = best1 > sat_limit ? -1 : best1;
        out_query_end[2 * slot + 1] = i1_end;
        out_subject_end[2 * slot + 1] = j1_end;
    }
}

/* scan_inter: inter-task Smith-Waterman after Ligowski & Rudnicki.
 * Kept for: the seed's design, the default on CPU devices, psse's `inter` variant, and
 * (WIDE=1) the exact 32-bit recompute of every narrow kernel's saturated subjects.
 *
 * One work-item per subject; a work-group is a "group" of length-sorted subjects, so
 * neighbours finish together. The query is processed in bands of BAND rows: for each
 * band the work-group copies that band's query profile into local memory, then every
 * work-item sweeps its subject column by column, holding the band's H and E in
 * registers. Between bands the last row's H and F of every column live in a global
 * "boundary row" (interleaved by work-item, so reads coalesce), stored as two 16-bit
 * values in one word, or as int2 when WIDE=1. The query profile is 16-bit, or 32-bit
 * when WIDE=1 (the host sends scorings that do not fit 16 bits there). The
 * recurrence, end rule and tie rule are src/reference's (its module header).
 *
 * E and F start at -(open + extend) rather than minus infinity: since H(., 0) =
 * H(0, .) = 0 this gives the same values, and it keeps every E and F at or above
 * -(open + extend), inside 16 bits.
 *
 * Narrow first: the arithmetic is 32-bit, only the boundary row is 16-bit. Every H is
 * folded into `best` before it is stored, so when best <= 32767 (the host's
 * SAT_LIMIT) every stored value was exact; otherwise the subject is reported as
 * saturated (CLSW_SATURATED) and the host recomputes it with WIDE=1.
 *
 * End cell: sweeping bands (i) outer and columns (j) inner, a cell replaces the best
 * when it scores higher, or the same at a smaller column: the reference's rule
 * (smallest subject position, then smallest query position).
 *
 * Rows past the query's end (padding to a whole band) score PAD_SCORE for every
 * letter, so their cells stay strictly below the best and never tie with it.
 *
 * Global and glocal modes (MODE, clsw_common.h): no floor at 0; the padding rows are
 * above the query, each band starts from the left edge (clsw_left_edge) and the first
 * band from the top edge; the score is read from the last band's last row (the
 * query's): at the subject's last column (global), or its best column, the first on
 * ties (glocal). Every H is still folded into `top` for the saturation check; the host
 * sends pairs whose cells could fall below 16 bits to WIDE=1 (src/scan: narrow_subjects).
 */

#ifndef BAND
#define BAND 16
#endif
#ifndef WIDE
#define WIDE 0
#endif
/* Scores per letter in the local profile: two more than a band, so the stride in
 * words is odd and different letters fall in different banks. */
#define STRIDE (BAND + 2)

#if WIDE
typedef int score_t;
typedef int2 boundary_t;
#define PACK(h, f) ((int2)((h), (f)))
#define BOUND_H(b) ((b).x)
#define BOUND_F(b) ((b).y)
#else
typedef short score_t;
typedef uint boundary_t;
#define PACK(h, f) (((uint)(h) & 0xffffu) | ((uint)(f) << 16))
#define BOUND_H(b) ((int)(short)((b) & 0xffffu))
#define BOUND_F(b) ((int)(short)((b) >> 16))
#endif

__kernel void scan_inter(
    __global const score_t *profile,   /* [letter][m_pad]: S(q_i, letter); one extra letter for padding */
    const int m_pad,                   /* query rows rounded up to whole bands */
    const int letters,                 /* alphabet size + 1 (the padding code), + 1 in MODE (fill) */
    __global const uint *residues,     /* per group: 4 codes per word, word w of slot t at [base + w*G + t] */
    __global const uint *group_word,   /* per group: base word */
    __global const uint *lengths,      /* per slot: subject length (0 for empty slots) */
    __global boundary_t *boundary,     /* per group: column j of slot t at [base + j*G + t] */
    __global const ulong *group_cell,  /* per group: base boundary element */
    const ulong cell_origin,           /* group_cell of this launch's first group */
    const int first_group,
    const int gap_open,
    const int gap_extend,
    const int sat_limit,               /* a best above this did not fit the boundary row */
    __local score_t *band_profile,     /* [letter][STRIDE] */
    __global int *out_score,           /* per slot; CLSW_SATURATED: recompute wide */
    __global int *out_query_end,
    __global int *out_subject_end,
    const int query_length)            /* the query's rows (the last of m_pad, in the non-local modes) */
{
    const int G = get_local_size(0);
    const int t = get_local_id(0);
    const int g = clsw_longest_first(first_group);
    const int slot = g * G + t;
    const int n = (int)lengths[slot];
    __global const uint *res = residues + group_word[g] + t;
    __global boundary_t *bnd = boundary + (group_cell[g] - cell_origin) + t;
    const int oe = gap_open + gap_extend;
#if MODE
    const int pad = m_pad - query_length;
    /* The query's last row: its H at the mode's end column (j = -1: column 0). */
    int last = clsw_left_edge(m_pad - 1, pad, gap_open, gap_extend), last_j = -1;
#endif

    int best = 0, best_i = -1, best_j = -1;
    for (int i0 = 0; i0 < m_pad; i0 += BAND) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = t; k < letters * BAND; k += G)
            band_profile[(k / BAND) * STRIDE + k % BAND] = profile[(size_t)(k / BAND) * m_pad + i0 + k % BAND];
        barrier(CLK_LOCAL_MEM_FENCE);

        int h[BAND], e[BAND];  /* H(i, j-1) and E(i, j-1) for the band's rows */
#pragma unroll
        for (int r = 0; r < BAND; r++) {
#if MODE
            h[r] = clsw_left_edge(i0 + r, pad, gap_open, gap_extend);
            e[r] = h[r] - oe;
#else
            h[r] = 0;
            e[r] = -oe;
#endif
        }
#if MODE
        int diag_top = clsw_left_edge(i0 - 1, pad, gap_open, gap_extend);  /* H(i0-1, j-1) */
        const bool last_band = i0 + BAND == m_pad;
#else
        int diag_top = 0;  /* H(i0-1, j-1) */
#endif
        uint word = 0;
        for (int j = 0; j < n; j++) {
            if ((j & 3) == 0)
                word = res[(size_t)(j >> 2) * G];
            const int c = (word >> ((j & 3) * 8)) & 0xff;
            __local const score_t *prof = band_profile + c * STRIDE;
            int up, f;  /* H(i-1, j) and F(i-1, j) entering the band */
            if (i0 == 0) {
                up = clsw_top_edge(j, gap_open, gap_extend);
                f = up - oe;
            } else {
                const boundary_t b = bnd[(size_t)j * G];
                up = BOUND_H(b);
                f = BOUND_F(b);
            }
            int diag = diag_top;
            diag_top = up;
#pragma unroll
            for (int r = 0; r < BAND; r++) {
                e[r] = max(e[r] - gap_extend, h[r] - oe);
                f = max(f - gap_extend, up - oe);
#if MODE
                const int hn = max(max(diag + prof[r], e[r]), f);
                best = max(best, hn);
                if (r == BAND - 1 && last_band && (MODE == MODE_GLOBAL ? j == n - 1 : hn > last)) {
                    last = hn;
                    last_j = j;
                }
#else
                const int hn = max(max(diag + prof[r], e[r]), max(f, 0));
                if (hn > best || (hn == best && j < best_j)) {
                    best = hn;
                    best_i = i0 + r;
                    best_j = j;
                }
#endif
                diag = h[r];
                h[r] = hn;
                up = hn;
            }
            bnd[(size_t)j * G] = PACK(up, f);
        }
    }
    if (n == 0)
        return;
#if MODE
    best_i = last_j >= 0 ? query_length - 1 : -1;
    best_j = last_j;
    out_score[slot] = best > sat_limit ? CLSW_SATURATED : last + CLSW_TEST_SCORE_OFFSET;
#else
    out_score[slot] = best > sat_limit ? CLSW_SATURATED : best + CLSW_TEST_SCORE_OFFSET;
#endif
    out_query_end[slot] = best_i;
    out_subject_end[slot] = best_j;
}

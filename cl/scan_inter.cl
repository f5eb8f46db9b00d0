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
 * saturated (score -1) and the host recomputes it with WIDE=1.
 *
 * End cell: sweeping bands (i) outer and columns (j) inner, a cell replaces the best
 * when it scores higher, or the same at a smaller column: the reference's rule
 * (smallest subject position, then smallest query position).
 *
 * Rows past the query's end (padding to a whole band) score PAD_SCORE for every
 * letter, so their cells stay strictly below the best and never tie with it.
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
    const int letters,                 /* alphabet size + 1 (the padding code) */
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
    __global int *out_score,           /* per slot; -1 = saturated, recompute wide */
    __global int *out_query_end,
    __global int *out_subject_end)
{
    const int G = get_local_size(0);
    const int t = get_local_id(0);
    const int g = clsw_longest_first(first_group);
    const int slot = g * G + t;
    const int n = (int)lengths[slot];
    __global const uint *res = residues + group_word[g] + t;
    __global boundary_t *bnd = boundary + (group_cell[g] - cell_origin) + t;
    const int oe = gap_open + gap_extend;

    int best = 0, best_i = -1, best_j = -1;
    for (int i0 = 0; i0 < m_pad; i0 += BAND) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = t; k < letters * BAND; k += G)
            band_profile[(k / BAND) * STRIDE + k % BAND] = profile[(size_t)(k / BAND) * m_pad + i0 + k % BAND];
        barrier(CLK_LOCAL_MEM_FENCE);

        int h[BAND], e[BAND];  /* H(i, j-1) and E(i, j-1) for the band's rows */
#pragma unroll
        for (int r = 0; r < BAND; r++) {
            h[r] = 0;
            e[r] = -oe;
        }
        int diag_top = 0;  /* H(i0-1, j-1) */
        uint word = 0;
        for (int j = 0; j < n; j++) {
            if ((j & 3) == 0)
                word = res[(size_t)(j >> 2) * G];
            const int c = (word >> ((j & 3) * 8)) & 0xff;
            __local const score_t *prof = band_profile + c * STRIDE;
            int up, f;  /* H(i-1, j) and F(i-1, j) entering the band */
            if (i0 == 0) {
                up = 0;
                f = -oe;
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
                const int hn = max(max(diag + prof[r], e[r]), max(f, 0));
                diag = h[r];
                h[r] = hn;
                up = hn;
                if (hn > best || (hn == best && j < best_j)) {
                    best = hn;
                    best_i = i0 + r;
                    best_j = j;
                }
            }
            bnd[(size_t)j * G] = PACK(up, f);
        }
    }
    if (n == 0)
        return;
    out_score[slot] = best > sat_limit ? -1 : best + CLSW_TEST_SCORE_OFFSET;
    out_query_end[slot] = best_i;
    out_subject_end[slot] = best_j;
}

/* scan_intra: intra-task Smith-Waterman after Munekawa, Ino & Hagihara.
 * Kept for: the seed's intra-task design, benchmarked beside the inter-task kernels.
 *
 * One work-group per subject; its work-items lie along the anti-diagonal. Rows are
 * query residues q[0..m), columns subject residues s[0..n); the recurrence, end rule
 * and tie rule are src/reference's (its module header). E and F start at -(open + extend)
 * rather than minus infinity: since H(., -1) = H(-1, .) = 0 this gives the same
 * values, and it keeps every E and F at or above -(open + extend), inside 16 bits.
 *
 * Tiles and the wavefront. Work-item p of a group of P owns a strip of 4 query rows,
 * and walks the subject 4 columns at a time (Munekawa's char4 vectorisation: one
 * word of the subject holds 4 codes), so each step it computes a 4 x 4 tile of cells.
 * At step t work-item p takes column block b = t - p: the tiles (p, t - p) form an
 * anti-diagonal of tiles, and all of them depend only on the previous anti-diagonal
 * (the tile above, computed by p - 1 at step t - 1; the tile to the left, computed by
 * p itself at step t - 1). A subject of n columns takes ceil(n / 4) + P - 1 steps,
 * with a barrier after each.
 *
 * What lives where:
 *   registers  H and E of the strip's 4 rows at the last column done (the left edge of
 *              the next tile), and H(top - 1, left - 1), the tile's upper-left corner.
 *   local      the bottom row of every work-item's last tile, H and F for 4 columns
 *              (that is, the previous anti-diagonal as the next one needs it), double
 *              buffered by step parity so that one barrier per step suffices:
 *              exchange[parity][column][work-item]; H and F packed as two 16-bit
 *              values in one word, or int2 when WIDE=1.
 *              The query profile of the rows in flight, one short4 (int4 when WIDE=1)
 *              per (letter, work-item): S(q of the 4 rows, letter).
 *              At the end, the per-work-item best cells for the reduction.
 *   global     the subject (4 codes per word), the whole query profile, and one
 *              boundary row per subject (below).
 *
 * Long queries: a group covers 4P rows at a time. A longer query is processed in
 * chunks of 4P rows; the last work-item writes the chunk's bottom row (H and F of
 * every column) to the subject's boundary row in global memory, and work-item 0 of
 * the next chunk reads it as its top row. The row is updated in place: work-item 0
 * reads column block b at step b, the last work-item overwrites it at step b + P - 1.
 * Long subjects need nothing special: the local memory holds one anti-diagonal of
 * tiles, whatever the subject's length.
 *
 * Narrow first: the arithmetic is 32-bit; only the local exchange and the global
 * boundary row are 16-bit. Every H is folded into `best` before it is stored, so
 * when best <= 32767 (sat_limit) every stored value was exact (F lies between
 * -(open + extend) and H). Otherwise the first cell past 32767 (in dependency
 * order) was computed from exact values, so best is past 32767 too: the subject is
 * reported as saturated (CLSW_SATURATED) and the host recomputes it with WIDE=1.
 *
 * End cell: the reference's rule is the highest H, then the smallest subject
 * position j, then the smallest query position i. A work-item visits its cells by
 * chunk, then j, then i within a column; it keeps a cell that is higher, or equal at
 * a smaller j (later chunks have larger i). The group then reduces its (score, j, i)
 * in local memory comparing score descending, j ascending, i ascending.
 *
 * Padding: rows past the query's end (to whole strips and chunks) and columns past
 * the subject's end (to whole words) score PAD_SCORE. They lie below or to the right
 * of every real cell, so they never feed one; and each of their values is 0 or a
 * neighbour's value minus a positive amount (extend >= 1, PAD_SCORE < 0), hence below
 * some real cell's value: when the best is positive they stay strictly below it. A
 * work-item may hold one as its own best for a while, but it never wins the
 * reduction nor ties with the winner.
 */

#ifndef WIDE
#define WIDE 0
#endif

#if WIDE
typedef int4 prof_t;
typedef int2 boundary_t;
#define PACK(h, f) ((int2)((h), (f)))
#define BOUND_H(b) ((b).x)
#define BOUND_F(b) ((b).y)
#else
typedef short4 prof_t;
typedef uint boundary_t;
#define PACK(h, f) (((uint)(h) & 0xffffu) | ((uint)(f) << 16))
#define BOUND_H(b) ((int)(short)((b) & 0xffffu))
#define BOUND_F(b) ((int)(short)((b) >> 16))
#endif

/* Rows and columns of one work-item's tile; 4 is wired into prof_t and the subject words. */
#define TILE 4

/* True when (score, i, j) beats (best, best_i, best_j): higher, or equal at a smaller
 * subject position, then query position. */
static inline bool better(int score, int i, int j, int best, int best_i, int best_j)
{
    return score > best || (score == best && (j < best_j || (j == best_j && i < best_i)));
}

__kernel void scan_intra(
    __global const prof_t *profile,    /* [letter][quads]: S(q_4k..q_4k+3, letter) */
    const int quads,                   /* row strips in the padded query: chunks * P */
    const int letters,                 /* alphabet size + 1 (the padding code) */
    __global const uint *residues,     /* per subject: 4 codes per word, padded */
    __global const uint *word_offset,  /* per subject of this launch: first word */
    __global const uint *lengths,      /* per subject of this launch */
    __global boundary_t *boundary,     /* per subject: 4 per word, at 4 * word_offset */
    const int first,                   /* output index of this launch's subject 0 */
    const int gap_open,
    const int gap_extend,
    const int sat_limit,               /* a best above this did not fit the 16-bit storage */
    __local prof_t *chunk_profile,     /* [letter][P] */
    __local boundary_t *exchange,      /* [2][TILE][P] */
    __local int *reduce,               /* [3][P] */
    __global int *out_score,           /* CLSW_SATURATED: recompute wide */
    __global int *out_query_end,
    __global int *out_subject_end)
{
    const int P = get_local_size(0);
    const int p = get_local_id(0);
    const int g = get_group_id(0);
    const int n = (int)lengths[g];
    const int blocks = (n + TILE - 1) / TILE;
    __global const uint *subject = residues + word_offset[g];
    __global boundary_t *bnd = boundary + (size_t)word_offset[g] * TILE;
    const int oe = gap_open + gap_extend;
    const int chunks = quads / P;

    int best = 0, best_i = -1, best_j = -1;
    for (int chunk = 0; chunk < chunks; chunk++) {
        const int row0 = (chunk * P + p) * TILE;  /* this strip's first query row */

        /* The previous chunk is done with the profile and has written its boundary row. */
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        for (int k = p; k < letters * P; k += P)
            chunk_profile[k] = profile[(size_t)(k / P) * quads + chunk * P + k % P];
        barrier(CLK_LOCAL_MEM_FENCE);

        int h[TILE], e[TILE];  /* H and E of the strip's rows at the last column done */
#pragma unroll
        for (int r = 0; r < TILE; r++) {
            h[r] = 0;
            e[r] = -oe;
        }
        int corner = 0;  /* H(row0 - 1, 4b - 1) */

        for (int t = 0; t < blocks + P - 1; t++) {
            const int b = t - p;
            if (b >= 0 && b < blocks) {
                /* The tile's top row: H and F of row0 - 1 at columns 4b .. 4b + 3. */
                boundary_t top[TILE];
#pragma unroll
                for (int c = 0; c < TILE; c++) {
                    if (p > 0)
                        top[c] = exchange[((t - 1) & 1) * TILE * P + c * P + p - 1];
                    else if (chunk > 0)
                        top[c] = bnd[b * TILE + c];
                    else
                        top[c] = PACK(0, -oe);
                }
                const uint word = subject[b];
                boundary_t bottom[TILE];
#pragma unroll
                for (int c = 0; c < TILE; c++) {
                    const int j = b * TILE + c;
                    const prof_t v = chunk_profile[((word >> (8 * c)) & 0xff) * P + p];
                    const int sc[TILE] = {v.x, v.y, v.z, v.w};
                    int diag = c == 0 ? corner : BOUND_H(top[c - 1]);  /* H(i-1, j-1) */
                    int up = BOUND_H(top[c]);                          /* H(i-1, j) */
                    int f = BOUND_F(top[c]);                           /* F(i-1, j) */
#pragma unroll
                    for (int r = 0; r < TILE; r++) {
                        e[r] = max(e[r] - gap_extend, h[r] - oe);
                        f = max(f - gap_extend, up - oe);
                        const int hn = max(max(diag + sc[r], e[r]), max(f, 0));
                        diag = h[r];
                        h[r] = hn;
                        up = hn;
                        if (hn > best || (hn == best && j < best_j)) {
                            best = hn;
                            best_i = row0 + r;
                            best_j = j;
                        }
                    }
                    bottom[c] = PACK(up, f);
                }
                corner = BOUND_H(top[TILE - 1]);

                /* The bottom row goes to the next strip, or to the next chunk. */
#pragma unroll
                for (int c = 0; c < TILE; c++) {
                    if (p < P - 1)
                        exchange[(t & 1) * TILE * P + c * P + p] = bottom[c];
                    else if (chunk < chunks - 1)
                        bnd[b * TILE + c] = bottom[c];
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }

    /* Reduce the group's best cells: score descending, j ascending, i ascending. */
    reduce[p] = best;
    reduce[P + p] = best_j;
    reduce[2 * P + p] = best_i;
    barrier(CLK_LOCAL_MEM_FENCE);
    int width = 1;
    while (width < P)
        width <<= 1;
    for (int s = width >> 1; s > 0; s >>= 1) {
        if (p < s && p + s < P) {
            const int o = p + s;
            if (better(reduce[o], reduce[2 * P + o], reduce[P + o], reduce[p], reduce[2 * P + p], reduce[P + p])) {
                reduce[p] = reduce[o];
                reduce[P + p] = reduce[P + o];
                reduce[2 * P + p] = reduce[2 * P + o];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (p == 0) {
        out_score[first + g] = reduce[0] > sat_limit ? CLSW_SATURATED : reduce[0] + CLSW_TEST_SCORE_OFFSET;
        out_subject_end[first + g] = reduce[P];
        out_query_end[first + g] = reduce[2 * P];
    }
}

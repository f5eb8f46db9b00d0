/* distance: all-pairs counters over packed sites (host side: src/distance/opencl.rs).
 *
 * For every pair (i, j) of samples, over the sites of this launch:
 *   differences  sites both compare where their states differ
 *   compared     sites both compare                          (WANT_COMPARED)
 *   opposite     sites both compare with genotypes 0 and 2   (WANT_IBS0)
 * Counters are added to out_d / out_c / out_e[i * n_j + j] (blocks of the output
 * accumulate over chunks of sites and launches); the host zeroes them first.
 *
 * distance_bitplane
 *   Input: every sample as PL = PLANES + 1 bit planes of 32-bit words (code bits, then
 *   a validity plane), laid out [sample][plane][row_words]. A work-group counts a tile
 *   of TILE x TILE pairs (TILE = RT * WG): per step it stages KW words of every plane of
 *   its TILE row samples and TILE column samples in local memory (coalesced: eight
 *   neighbouring work-items read one 32-byte sector of a plane), then each of its
 *   WG x WG work-items counts RT x RT pairs in registers, reading RT row and RT column
 *   words per plane from local memory for RT * RT pair-words. Per pair-word:
 *     m = va & vb; x = a0 ^ b0; y = a1 ^ b1; (z = a2 ^ b2)
 *     d += popcount((x | y | z) & m); c += popcount(m); e += popcount(x & y & m)
 *   i.e. 5-6 logic operations (2-3 LOP3s on NVIDIA) and 1-3 popcounts. Only tiles on
 *   or above the diagonal are launched (the host lists them in tile_pairs). When there
 *   are few tile pairs (few samples), `split` work-groups share a tile pair, each over
 *   a slice of the words, and add their counts atomically.
 *
 * distance_charpacked
 *   Payne et al.'s all-pairs kernel, kept for comparison: one code byte per site (0xFF:
 *   not compared), four packed per word and read as uchar4 by neighbouring work-items
 *   (coalesced, sample-major rows), one work-group per pair, counts accumulated in
 *   registers and reduced in local memory. The host launches the whole grid of pairs
 *   of a block; work-groups below the diagonal return at once.
 *
 * OpenCL C 1.2, no vendor extensions.
 */

#ifndef PLANES
#define PLANES 2
#endif
#define PL (PLANES + 1)
#ifndef RT
#define RT 4
#endif
#ifndef WG
#define WG 16
#endif
#ifndef KW
#define KW 8
#endif
#ifndef WANT_COMPARED
#define WANT_COMPARED 0
#endif
#ifndef WANT_IBS0
#define WANT_IBS0 0
#endif
#ifndef CP_THREADS
#define CP_THREADS 128
#endif

#define TILE (RT * WG)
/* Pitch of a staged plane row in local memory: odd, so that the transposing stores
 * of neighbouring work-items fall in different banks. */
#define TP (TILE + 1)

__kernel __attribute__((reqd_work_group_size(WG * WG, 1, 1)))
void distance_bitplane(
    __global const uint *rows,        /* block I: n_i x PL x row_words */
    __global const uint *cols,        /* block J: n_j x PL x row_words (may be rows) */
    const int n_i,
    const int n_j,
    const int row_words,
    const int launch_lo,              /* this launch's words: launch_lo.. */
    const int launch_hi,              /* ..launch_hi - 1, both multiples of KW */
    __global const uint *tile_pairs,  /* (tile row << 16) | tile column */
    const int n_tile_pairs,
    const int split,                  /* work-groups per tile pair, each a slice of the words */
    __global uint *out_d,             /* n_i x n_j */
    __global uint *out_c,
    __global uint *out_e)
{
    __local uint la[KW * PL * TP];
    __local uint lb[KW * PL * TP];

    const int lid = get_local_id(0);
    const int lx = lid % WG;
    const int ly = lid / WG;
    const int group = get_group_id(0);
    const uint tp = tile_pairs[group % n_tile_pairs];
    const int i0 = (int)(tp >> 16) * TILE;
    const int j0 = (int)(tp & 0xffffu) * TILE;
    /* This work-group's slice of the launch's words (whole steps of KW). */
    const int steps = (launch_hi - launch_lo) / KW;
    const int per = (steps + split - 1) / split;
    const int slice = group / n_tile_pairs;
    const int w_lo = launch_lo + min(slice * per, steps) * KW;
    const int w_hi = launch_lo + min((slice + 1) * per, steps) * KW;

    uint acc_d[RT][RT];
#if WANT_COMPARED
    uint acc_c[RT][RT];
#endif
#if WANT_IBS0
    uint acc_e[RT][RT];
#endif
#pragma unroll
    for (int r = 0; r < RT; r++) {
#pragma unroll
        for (int c = 0; c < RT; c++) {
            acc_d[r][c] = 0;
#if WANT_COMPARED
            acc_c[r][c] = 0;
#endif
#if WANT_IBS0
            acc_e[r][c] = 0;
#endif
        }
    }

    for (int w = w_lo; w < w_hi; w += KW) {
        /* Stage KW words of each plane of the tile's samples; samples past the block
         * read as zero (not compared). */
        for (int t = lid; t < TILE * PL * KW; t += WG * WG) {
            const int k = t % KW;
            const int sp = t / KW; /* sample * PL + plane */
            const int p = sp % PL;
            const int s = sp / PL;
            const int dst = (k * PL + p) * TP + s;
            const int gi = i0 + s;
            const int gj = j0 + s;
            la[dst] = gi < n_i ? rows[((size_t)gi * PL + p) * (size_t)row_words + w + k] : 0u;
            lb[dst] = gj < n_j ? cols[((size_t)gj * PL + p) * (size_t)row_words + w + k] : 0u;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
        for (int k = 0; k < KW; k++) {
            uint a[RT][PL];
            uint b[RT][PL];
#pragma unroll
            for (int r = 0; r < RT; r++) {
#pragma unroll
                for (int p = 0; p < PL; p++) {
                    a[r][p] = la[(k * PL + p) * TP + ly + WG * r];
                    b[r][p] = lb[(k * PL + p) * TP + lx + WG * r];
                }
            }
#pragma unroll
            for (int r = 0; r < RT; r++) {
#pragma unroll
                for (int c = 0; c < RT; c++) {
                    const uint m = a[r][PLANES] & b[c][PLANES];
                    const uint x = a[r][0] ^ b[c][0];
                    const uint y = a[r][1] ^ b[c][1];
#if PLANES == 3
                    const uint diff = x | y | (a[r][2] ^ b[c][2]);
#else
                    const uint diff = x | y;
#endif
                    acc_d[r][c] += popcount(diff & m);
#if WANT_COMPARED
                    acc_c[r][c] += popcount(m);
#endif
#if WANT_IBS0
                    acc_e[r][c] += popcount(x & y & m);
#endif
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

#pragma unroll
    for (int r = 0; r < RT; r++) {
        const int gi = i0 + ly + WG * r;
#pragma unroll
        for (int c = 0; c < RT; c++) {
            const int gj = j0 + lx + WG * c;
            if (gi < n_i && gj < n_j) {
                const size_t o = (size_t)gi * n_j + gj;
                if (split == 1) {
                    out_d[o] += acc_d[r][c];
#if WANT_COMPARED
                    out_c[o] += acc_c[r][c];
#endif
#if WANT_IBS0
                    out_e[o] += acc_e[r][c];
#endif
                } else { /* other work-groups add to the same pairs */
                    atomic_add(out_d + o, acc_d[r][c]);
#if WANT_COMPARED
                    atomic_add(out_c + o, acc_c[r][c]);
#endif
#if WANT_IBS0
                    atomic_add(out_e + o, acc_e[r][c]);
#endif
                }
            }
        }
    }
}

/* One site of each sample: both compared? then count. 0xFF means not compared. */
#define CP_SITE(p, q)                                                \
    {                                                                \
        const uint v = (uint)((p) != 0xFF) & (uint)((q) != 0xFF);    \
        d += v & (uint)((p) != (q));                                 \
        c += v;                                                      \
        e += v & (uint)(abs_diff((p), (q)) == 2);                    \
    }

__kernel __attribute__((reqd_work_group_size(CP_THREADS, 1, 1)))
void distance_charpacked(
    __global const uchar4 *rows,  /* block I: n_i x row_words (4 sites per uchar4) */
    __global const uchar4 *cols,  /* block J: n_j x row_words */
    const int n_i,
    const int n_j,
    const int row_words,
    const int diagonal,           /* rows and cols are the same block: only j > i */
    const long first_pair,        /* this launch's work-group 0 is pair first_pair of the n_i x n_j grid */
    __global uint *out_d,
    __global uint *out_c,
    __global uint *out_e)
{
    __local uint red_d[CP_THREADS];
#if WANT_COMPARED
    __local uint red_c[CP_THREADS];
#endif
#if WANT_IBS0
    __local uint red_e[CP_THREADS];
#endif
    const long pair = first_pair + (long)get_group_id(0);
    const int i = (int)(pair / n_j);
    const int j = (int)(pair % n_j);
    if (i >= n_i || (diagonal && j <= i))
        return; /* the whole work-group leaves together */
    const int lid = get_local_id(0);
    __global const uchar4 *a = rows + (size_t)i * row_words;
    __global const uchar4 *b = cols + (size_t)j * row_words;

    uint d = 0, c = 0, e = 0;
    for (int w = lid; w < row_words; w += CP_THREADS) {
        const uchar4 x = a[w];
        const uchar4 y = b[w];
        CP_SITE(x.s0, y.s0);
        CP_SITE(x.s1, y.s1);
        CP_SITE(x.s2, y.s2);
        CP_SITE(x.s3, y.s3);
    }
    red_d[lid] = d;
#if WANT_COMPARED
    red_c[lid] = c;
#endif
#if WANT_IBS0
    red_e[lid] = e;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = CP_THREADS / 2; s > 0; s >>= 1) {
        if (lid < s) {
            red_d[lid] += red_d[lid + s];
#if WANT_COMPARED
            red_c[lid] += red_c[lid + s];
#endif
#if WANT_IBS0
            red_e[lid] += red_e[lid + s];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        const size_t o = (size_t)i * n_j + j;
        out_d[o] += red_d[0];
#if WANT_COMPARED
        out_c[o] += red_c[0];
#endif
#if WANT_IBS0
        out_e[o] += red_e[0];
#endif
    }
}

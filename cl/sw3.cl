/* sw3: three-sequence local alignment (3-D Smith-Waterman), sum-of-pairs scores.
 *
 * Model (see src/sw3/mod.rs for the full text). Columns are masks: bit 0 set when a
 * has a residue in the column, bit 1 for b, bit 2 for c. A column scores, over the
 * pairs (a,b), (a,c), (b,c): S(x,y) when both have a residue, -e when one has a gap,
 * and -o more when that pair's residue-gap pattern differs from the previous column's
 * (quasi-natural gap costs). Cells are DP coordinates (i, j, k) in [0,n1]x[0,n2]x[0,n3],
 * all real; predecessors outside the table are virtual (-inf). p_m = x - (m&1, m>>1&1,
 * m>>2&1); Sab, Sac, Sbc are the pair scores of the residues consumed at x.
 *
 *   linear (o = 0), NV = 1:
 *     H(x) = max(0, H(p7)+Sab+Sac+Sbc, H(p3)+Sab-2e, H(p5)+Sac-2e, H(p6)+Sbc-2e,
 *                max(H(p1), H(p2), H(p4)) - 2e)
 *   affine, NV = 8: v[0] = H = max(0, S_1..S_7), v[m] = S_m:
 *     S7 = Sab+Sac+Sbc + H(p7)
 *     S3 = Sab - 2e + max(S3(p), max(S1(p), S2(p)) - o, H(p) - 2o)   p = p3
 *     S5 = Sac - 2e + max(S5(p), max(S1(p), S4(p)) - o, H(p) - 2o)   p = p5
 *     S6 = Sbc - 2e + max(S6(p), max(S2(p), S4(p)) - o, H(p) - 2o)   p = p6
 *     S1 =     - 2e + max(S1(p), max(S3(p), S5(p)) - o, H(p) - 2o)   p = p1
 *     S2 =     - 2e + max(S2(p), max(S3(p), S6(p)) - o, H(p) - 2o)   p = p2
 *     S4 =     - 2e + max(S4(p), max(S5(p), S6(p)) - o, H(p) - 2o)   p = p4
 *
 * The best H and its end cell: the smallest k, then j, then i among equal scores.
 *
 * Kernels
 *   sw3_tile   the fast path for one triple (one launch per plane of tiles)
 *   sw3_batch  many triples, one work-group per triple (same tile code)
 *   sw3_plane  the baseline: one launch per diagonal plane of cells i+j+k = t
 *   sw3_reduce best over per-pencil records;  sw3_fill  buffer fill
 *
 * Tiles (sw3_tile, sw3_batch). A work-item owns a strip of TI cells along a (rows
 * strip*TI .. strip*TI+TI-1) at one column j and walks k. Time is skewed: at step t the
 * work-item (strip, j) computes k = t - j - strip, so its neighbours' values at k and
 * k-1 were computed at steps t-1 and t-2 and every work-item of a group is busy at every
 * step (one barrier per step, no fill or drain). A strip travels as its "extended
 * strip" E: the cell above the strip (element 0) and the strip's TI cells, NV values
 * each. A tile is NS strips x TJ columns x TT steps; tiles with equal
 * (strip/NS) + (j/TJ) + (t/TT) do not depend on each other.
 *   inside a tile: strips pass through local memory (X, double-buffered by step parity);
 *   between tiles: the bottom row of the last strip (i face, indexed by (k, j)), the
 *   extended strips of the last column (j face, indexed by (k, strip)), and in
 *   sw3_tile each work-item's registers (t face: own E, left neighbour's older E, best).
 * Substitution scores: the tile's strips of a as a local profile (16-bit pairs per
 * code), S(b_j, c_k) from the local matrix once per step.
 *
 * Build options: NV (1 or 8), ALPHA (matrix codes), TI (even), NS, TJ, TT.
 */

#ifndef NV
#define NV 1
#endif
#ifndef ALPHA
#define ALPHA 24
#endif
#ifndef TI
#define TI 8
#endif
#ifndef NS
#define NS 4
#endif
#ifndef TJ
#define TJ 32
#endif
#ifndef TT
#define TT 16
#endif

#define NEGV CLSW_NEG_INF
#define EW ((TI + 1) * NV)     /* ints of an extended strip */
#define XW (EW | 1)            /* its stride in local memory (odd: no bank conflicts) */
#define WGS (NS * TJ)          /* work-items per group */
#define PW (TI / 2)            /* profile words per strip and code */
#define KSPAN (TT + TJ + NS)   /* c positions one tile touches (rounded up) */

/* One cell from its seven predecessors (pointers to NV values each). */
inline void sw3_cell(const int *p7, const int *p3, const int *p5, const int *p6, const int *p1,
                     const int *p2, const int *p4, const int sab, const int sac, const int sbc,
                     const int g2, const int go, const int go2, int *out)
{
#if NV == 1
    int h = p7[0] + sab + sac + sbc;
    h = max(h, p3[0] + sab - g2);
    h = max(h, p5[0] + sac - g2);
    h = max(h, p6[0] + sbc - g2);
    h = max(h, max(max(p1[0], p2[0]), p4[0]) - g2);
    out[0] = max(h, 0);
#else
    const int s7 = p7[0] + sab + sac + sbc;
    const int s3 = sab - g2 + max(max(p3[3], max(p3[1], p3[2]) - go), p3[0] - go2);
    const int s5 = sac - g2 + max(max(p5[5], max(p5[1], p5[4]) - go), p5[0] - go2);
    const int s6 = sbc - g2 + max(max(p6[6], max(p6[2], p6[4]) - go), p6[0] - go2);
    const int s1 = -g2 + max(max(p1[1], max(p1[3], p1[5]) - go), p1[0] - go2);
    const int s2 = -g2 + max(max(p2[2], max(p2[3], p2[6]) - go), p2[0] - go2);
    const int s4 = -g2 + max(max(p4[4], max(p4[5], p4[6]) - go), p4[0] - go2);
    out[1] = s1;
    out[2] = s2;
    out[3] = s3;
    out[4] = s4;
    out[5] = s5;
    out[6] = s6;
    out[7] = s7;
    out[0] = max(max(max(s1, s2), max(s3, s4)), max(max(s5, s6), max(s7, 0)));
#endif
}

/* Residue code of DP index x (1-based residues) of a sequence of n codes; 0 off the ends
 * (row/column 0 and padding: those scores are never used or never reach the best). */
/* A best cell as a record of four ints (score, k, j, i) for a group reduction. */
inline void sw3_put_best(__local int *at, const int s, const int k, const int j, const int i)
{
    at[0] = s;
    at[1] = k;
    at[2] = j;
    at[3] = i;
}

/* The local memory of a tile's work-group, the same in sw3_tile and sw3_batch: the
 * matrix, the profile of a strips' a residues, a span of c, the exchange buffer and the
 * j- and i-faces of the tile. */
#define SW3_TILE_LOCALS                 \
    __local int lmat[ALPHA * ALPHA];     \
    __local uint lprof[NS * ALPHA * PW]; \
    __local uchar lc[KSPAN];             \
    __local int X[2 * NS * TJ * XW];     \
    __local int JF[(TT + 1) * NS * EW];  \
    __local int IF[TT * NV * TJ];

/* The tie rule of a best end cell: the higher score, then the smaller k, j and i. Keeps
 * (s, k, j, i) in (*rs, *rk, *rj, *ri) when it wins. */
inline void sw3_keep_best(const int s, const int k, const int j, const int i, int *rs, int *rk, int *rj, int *ri)
{
    if (s > *rs || (s == *rs && (k < *rk || (k == *rk && (j < *rj || (j == *rj && i < *ri)))))) {
        *rs = s;
        *rk = k;
        *rj = j;
        *ri = i;
    }
}

inline int code_at(__global const uchar *s, const int n, const int x)
{
    return (x >= 1 && x <= n) ? (int)s[x - 1] : 0;
}

inline int unpack(const uint *pw, const int r)
{
    const uint w = pw[r >> 1];
    return (r & 1) ? ((int)w >> 16) : (int)(short)(w & 0xffffu);
}

/* The local profile of the group's NS strips: lprof[(ib*ALPHA + code)*PW + w] packs
 * S(a_row, code) for rows 2w and 2w+1 of strip ib (16 bits each). */
inline void build_profile(__local uint *lprof, __local const int *lmat, __global const uchar *a,
                          const int n1, const int ib_g0)
{
    for (int e = get_local_id(0); e < NS * ALPHA * PW; e += WGS) {
        const int w = e % PW;
        const int code = (e / PW) % ALPHA;
        const int ib = e / (PW * ALPHA);
        const int row = (ib_g0 + ib) * TI + 2 * w;
        const int lo = lmat[code_at(a, n1, row) * ALPHA + code];
        const int hi = lmat[code_at(a, n1, row + 1) * ALPHA + code];
        lprof[e] = ((uint)lo & 0xffffu) | ((uint)hi << 16);
    }
}

/* Runs one tile: TT steps from t0 for the group's NS strips (first strip IB*NS) and TJ
 * columns (first J*TJ). On entry own = E(t0-1), nbp = left E(t0-2) (for jl > 0), and
 * X[(t0-1)&1] holds every work-item's E(t0-1); on return the same for the next tile.
 *   jin/jout: j faces, element (k, strip ib of the group, ev) at [k*jks + ib*EW + ev]
 *   iin/iout: i faces of the group's column block, element (k, v, column jl) at
 *             [((k+jl)*NV + v)*TJ + jl]: rows by k + jl, so that the cells a step reads
 *             or writes (equal k + jl) are contiguous
 */
inline void tile_run(const int t0, const int IB, const int J, const int n1, const int n2,
                     const int n3, __global const uchar *c, __local const int *lmat,
                     __local const uint *lprof, __local uchar *lc, __local int *X, __local int *JF,
                     __local int *IF, __global const int *jin, __global int *jout, const int jks,
                     __global const int *iin, __global int *iout, const int JP, const int g2,
                     const int go, const int go2, int *own, int *nbp, const int *ab, const int bj,
                     int *best, int *bk, int *bi)
{
    const int lid = get_local_id(0);
    const int ib = lid / TJ;
    const int jl = lid % TJ;
    const int ib_g = IB * NS + ib;
    const int j = J * TJ + jl;
    const int kmin = t0 - (J * TJ + TJ - 1) - (IB * NS + NS - 1);

    /* Faces written by this group's earlier tiles (sw3_batch) must be visible. */
    barrier(CLK_GLOBAL_MEM_FENCE);
    /* Stage the tile's inputs. */
    for (int e = lid; e < KSPAN; e += WGS) {
        const int k = kmin + e;
        lc[e] = (uchar)code_at(c, n3, k);
    }
    for (int e = lid; e < (TT + 1) * NS * EW; e += WGS) {
        const int x = e / (NS * EW);
        const int r = e % (NS * EW);
        const int sib = r / EW;
        const int kp = t0 - 2 + x - (J * TJ - 1) - (IB * NS + sib);
        JF[e] = (J > 0 && kp >= 0 && kp <= n3) ? jin[kp * jks + r] : NEGV;
    }
    for (int e = lid; e < TT * NV * TJ; e += WGS) {
        const int x = e / (NV * TJ);
        const int r = e % (NV * TJ);
        const int jj = r % TJ;
        const int kp = t0 - 1 + x - (J * TJ + jj) - (IB * NS - 1);
        IF[e] = (IB > 0 && kp >= 0 && kp <= n3) ? iin[((kp + jj) * NV + r / TJ) * TJ + jj] : NEGV;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (jl == 0) {
#pragma unroll
        for (int ev = 0; ev < EW; ev++)
            nbp[ev] = JF[ib * EW + ev];
    }
    /* Rows of this strip that exist (the others are padding). */
    const int rows = clamp(n1 + 1 - ib_g * TI, 0, TI);
    const int col_ok = j <= n2;

    for (int s = 0; s < TT; s++) {
        const int t = t0 + s;
        const int k = t - j - ib_g;
        const int par = (t - 1) & 1;
        int nbc[EW];
        int cur[EW];
        __local const int *lsrc = (jl == 0) ? &JF[((s + 1) * NS + ib) * EW]
                                            : &X[((par * NS + ib) * TJ + jl - 1) * XW];
#pragma unroll
        for (int ev = 0; ev < EW; ev++)
            nbc[ev] = lsrc[ev];
        __local const int *tsrc = (ib == 0) ? &IF[s * NV * TJ + jl]
                                            : &X[((par * NS + ib - 1) * TJ + jl) * XW + TI * NV];
        const int tstride = (ib == 0) ? TJ : 1;
#pragma unroll
        for (int v = 0; v < NV; v++)
            cur[v] = tsrc[v * tstride];

        const int cc = lc[k - kmin];
        const int sbc = lmat[bj * ALPHA + cc];
        uint pw[PW];
#pragma unroll
        for (int w = 0; w < PW; w++)
            pw[w] = lprof[(ib * ALPHA + cc) * PW + w];
#if NV == 1
        /* The linear cell written out: everything but the last max is independent of
         * the cell above, so the chain down the strip is one subtract and one max. */
        const int sbcg = sbc - g2;
#pragma unroll
        for (int e = 1; e <= TI; e++) {
            const int sac = unpack(pw, e - 1);
            int h = nbp[e - 1] + ab[e - 1] + sbc + sac;
            h = max(h, nbc[e - 1] + ab[e - 1] - g2);
            h = max(h, own[e - 1] + sac - g2);
            h = max(h, nbp[e] + sbcg);
            h = max(h, max(nbc[e], own[e]) - g2);
            h = max(h, 0);
            cur[e] = max(h, cur[e - 1] - g2);
        }
#else
#pragma unroll
        for (int e = 1; e <= TI; e++) {
            sw3_cell(&nbp[(e - 1) * NV], &nbc[(e - 1) * NV], &own[(e - 1) * NV], &nbp[e * NV],
                     &cur[(e - 1) * NV], &nbc[e * NV], &own[e * NV], ab[e - 1], unpack(pw, e - 1), sbc,
                     g2, go, go2, &cur[e * NV]);
        }
#endif
        const int valid = k >= 0 && k <= n3;
        if (!valid) {
#pragma unroll
            for (int ev = NV; ev < EW; ev++)
                cur[ev] = NEGV;
        }
        /* Best cell: the first k of this pencil reaching its best, the smallest row. */
        if (valid && col_ok) {
            int m = NEGV;
            if (rows == TI) { /* every strip but the table's last one */
#pragma unroll
                for (int e = 1; e <= TI; e++)
                    m = max(m, cur[e * NV]);
            } else {
#pragma unroll
                for (int e = 1; e <= TI; e++)
                    m = (e <= rows) ? max(m, cur[e * NV]) : m;
            }
            if (m > *best) {
                int row = 0;
#pragma unroll
                for (int e = TI; e >= 1; e--)
                    row = (e <= rows && cur[e * NV] == m) ? ib_g * TI + e - 1 : row;
                *best = m;
                *bk = k;
                *bi = row;
            }
        }
        __local int *dst = &X[(((t & 1) * NS + ib) * TJ + jl) * XW];
#pragma unroll
        for (int ev = 0; ev < EW; ev++)
            dst[ev] = cur[ev];
        if (valid && jl == TJ - 1) {
#pragma unroll
            for (int ev = 0; ev < EW; ev++)
                jout[k * jks + ib * EW + ev] = cur[ev];
        }
        if (valid && ib == NS - 1) {
#pragma unroll
            for (int v = 0; v < NV; v++)
                iout[((k + jl) * NV + v) * TJ + jl] = cur[TI * NV + v];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int ev = 0; ev < EW; ev++) {
            nbp[ev] = nbc[ev];
            own[ev] = cur[ev];
        }
    }
}

/* S(a_row, b_j) for the work-item's strip, from the local profile. */
inline void load_ab(int *ab, __local const uint *lprof, const int ib, const int bj)
{
    uint pw[PW];
#pragma unroll
    for (int w = 0; w < PW; w++)
        pw[w] = lprof[(ib * ALPHA + bj) * PW + w];
#pragma unroll
    for (int r = 0; r < TI; r++)
        ab[r] = unpack(pw, r);
}

/* One plane of tiles of one triple. tiles[tiles_at + group] = (IB << 16) | J; the tile's
 * T is plane - IB - J. Faces: iface[slot][J][k+jl][v][jl] (slot = IB % 3 read, (IB+1) % 3
 * written), jface[slot][k][strip][ev] (J % 3 read, (J+1) % 3 written), tface[field]
 * [strip][j] with fields own E, nbp E, best, best k, best i. */
__kernel __attribute__((reqd_work_group_size(WGS, 1, 1))) void sw3_tile(
    __global const uchar *a, __global const uchar *b, __global const uchar *c, const int n1,
    const int n2, const int n3, __global const int *matrix, const int g2, const int go,
    const int go2, __global int *iface, __global int *jface, __global int *tface, const int nstr,
    const int JP, __global const uint *tiles, const int tiles_at, const int plane)
{
    SW3_TILE_LOCALS

    const int lid = get_local_id(0);
    const int ib = lid / TJ;
    const int jl = lid % TJ;
    const uint tile = tiles[tiles_at + get_group_id(0)];
    const int IB = (int)(tile >> 16);
    const int J = (int)(tile & 0xffffu);
    const int t0 = (plane - IB - J) * TT;
    const int ib_g = IB * NS + ib;
    const int j = J * TJ + jl;

    for (int e = lid; e < ALPHA * ALPHA; e += WGS)
        lmat[e] = matrix[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    build_profile(lprof, lmat, a, n1, IB * NS);

    const int fstride = nstr * JP;
    __global int *tf = tface + ib_g * JP + j;
    int own[EW], nbp[EW];
#pragma unroll
    for (int ev = 0; ev < EW; ev++) {
        own[ev] = tf[ev * fstride];
        nbp[ev] = tf[(EW + ev) * fstride];
        X[((((t0 - 1) & 1) * NS + ib) * TJ + jl) * XW + ev] = own[ev];
    }
    int best = tf[2 * EW * fstride];
    int bk = tf[(2 * EW + 1) * fstride];
    int bi = tf[(2 * EW + 2) * fstride];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int bj = code_at(b, n2, j);
    int ab[TI];
    load_ab(ab, lprof, ib, bj);

    const int iblock = (n3 + TJ) * NV * TJ;
    const int islot = iblock * (JP / TJ);
    const int jks = nstr * EW;
    const int jslot = (n3 + 1) * jks;
    tile_run(t0, IB, J, n1, n2, n3, c, lmat, lprof, lc, X, JF, IF,
             jface + (J % 3) * jslot + IB * NS * EW, jface + ((J + 1) % 3) * jslot + IB * NS * EW, jks,
             iface + (IB % 3) * islot + J * iblock, iface + ((IB + 1) % 3) * islot + J * iblock, JP, g2, go,
             go2, own, nbp, ab, bj, &best, &bk, &bi);

#pragma unroll
    for (int ev = 0; ev < EW; ev++) {
        tf[ev * fstride] = own[ev];
        tf[(EW + ev) * fstride] = nbp[ev];
    }
    tf[2 * EW * fstride] = best;
    tf[(2 * EW + 1) * fstride] = bk;
    tf[(2 * EW + 2) * fstride] = bi;
}

/* Many triples: each group takes triples from a shared counter and sweeps each one
 * tile by tile (strip blocks IB, then column blocks J, then steps), keeping its
 * registers from tile to tile. scratch holds the group's faces: iface [2][J][n3+TJ][NV][TJ]
 * (parity IB & 1 read, (IB+1) & 1 written) then jface [2][n3+1][NS][EW] (parity J & 1).
 * out[4*t..] = score, i, j, k of triple t (its place in the triples list). */
__kernel __attribute__((reqd_work_group_size(WGS, 1, 1))) void sw3_batch(
    __global const uchar *codes, __global const uint *offsets, __global const uint *lengths,
    __global const uint *triples, const int ntriples, __global int *counter,
    __global const int *matrix, const int g2, const int go, const int go2, __global int *scratch,
    const int slot_ints, const int iface_ints, __global int *out)
{
    SW3_TILE_LOCALS
    __local int take;

    const int lid = get_local_id(0);
    const int ib = lid / TJ;
    const int jl = lid % TJ;
    __global int *iface = scratch + (size_t)get_group_id(0) * slot_ints;
    __global int *jface = iface + iface_ints;

    for (int e = lid; e < ALPHA * ALPHA; e += WGS)
        lmat[e] = matrix[e];

    for (;;) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0)
            take = atomic_inc(counter);
        barrier(CLK_LOCAL_MEM_FENCE);
        const int tri = take;
        if (tri >= ntriples)
            break;
        __global const uchar *a = codes + offsets[triples[3 * tri]];
        __global const uchar *b = codes + offsets[triples[3 * tri + 1]];
        __global const uchar *c = codes + offsets[triples[3 * tri + 2]];
        const int n1 = (int)lengths[triples[3 * tri]];
        const int n2 = (int)lengths[triples[3 * tri + 1]];
        const int n3 = (int)lengths[triples[3 * tri + 2]];
        const int nIB = ((n1 + 1 + TI - 1) / TI + NS - 1) / NS;
        const int nJ = (n2 + 1 + TJ - 1) / TJ;
        const int JP = nJ * TJ;
        const int iblock = (n3 + TJ) * NV * TJ;
        const int islot = iblock * nJ;
        const int jks = NS * EW;
        const int jslot = (n3 + 1) * jks;
        int best = NEGV, bk = -1, bi = -1, bjj = -1;

        for (int IB = 0; IB < nIB; IB++) {
            barrier(CLK_LOCAL_MEM_FENCE);
            build_profile(lprof, lmat, a, n1, IB * NS);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int J = 0; J < nJ; J++) {
                const int j = J * TJ + jl;
                const int bj = code_at(b, n2, j);
                int ab[TI];
                load_ab(ab, lprof, ib, bj);
                const int tlo = (J * TJ + IB * NS) / TT;
                const int thi = (n3 + J * TJ + TJ + IB * NS + NS - 2) / TT;
                int own[EW], nbp[EW];
#pragma unroll
                for (int ev = 0; ev < EW; ev++) {
                    own[ev] = NEGV;
                    nbp[ev] = NEGV;
                    X[((((tlo * TT - 1) & 1) * NS + ib) * TJ + jl) * XW + ev] = NEGV;
                }
                int pbest = NEGV, pk = -1, pi = -1;
                for (int T = tlo; T <= thi; T++) {
                    tile_run(T * TT, IB, J, n1, n2, n3, c, lmat, lprof, lc, X, JF, IF,
                             jface + (J & 1) * jslot, jface + ((J + 1) & 1) * jslot, jks,
                             iface + (IB & 1) * islot + J * iblock, iface + ((IB + 1) & 1) * islot + J * iblock,
                             JP, g2, go, go2, own, nbp, ab, bj, &pbest, &pk, &pi);
                }
                /* This pencil's best against the work-item's best so far (tie rule). */
                if (pbest > best || (pbest == best && pbest > NEGV &&
                                     (pk < bk || (pk == bk && (j < bjj || (j == bjj && pi < bi)))))) {
                    best = pbest;
                    bk = pk;
                    bi = pi;
                    bjj = j;
                }
            }
        }
        /* Group reduction (X is free: every step ended with a barrier). */
        sw3_put_best(X + 4 * lid, best, bk, bjj, bi);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            int rs = NEGV, rk = -1, rj = -1, ri = -1;
            for (int w = 0; w < WGS; w++) {
                const int s = X[4 * w], k = X[4 * w + 1], jj = X[4 * w + 2], ii = X[4 * w + 3];
                sw3_keep_best(s, k, jj, ii, &rs, &rk, &rj, &ri);
            }
            out[4 * tri] = rs;
            out[4 * tri + 1] = ri;
            out[4 * tri + 2] = rj;
            out[4 * tri + 3] = rk;
        }
    }
}

/* Best over per-pencil records: entry (r, j) has score, k and i at base[off + r*JP + j]
 * (off = off_score, off_k, off_i); only columns j < ncols count. One work-group;
 * out = score, i, j, k. */
__kernel void sw3_reduce(__global const int *base, const int off_score, const int off_k,
                         const int off_i, const int nrows, const int JP, const int ncols,
                         __global int *out, __local int *red)
{
    const int lid = get_local_id(0);
    const int n = get_local_size(0);
    int rs = NEGV, rk = -1, rj = -1, ri = -1;
    for (int e = lid; e < nrows * JP; e += n) {
        const int jj = e % JP;
        if (jj >= ncols)
            continue;
        const int s = base[off_score + e], k = base[off_k + e], ii = base[off_i + e];
        sw3_keep_best(s, k, jj, ii, &rs, &rk, &rj, &ri);
    }
    sw3_put_best(red + 4 * lid, rs, rk, rj, ri);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        for (int w = 1; w < n; w++) {
            const int s = red[4 * w], k = red[4 * w + 1], jj = red[4 * w + 2], ii = red[4 * w + 3];
            sw3_keep_best(s, k, jj, ii, &rs, &rk, &rj, &ri);
        }
        out[0] = rs;
        out[1] = ri;
        out[2] = rj;
        out[3] = rk;
    }
}

/* The baseline: cells of the plane i + j + k = t, i in [i_lo, i_lo + n_i), j in [j_lo,
 * j_lo + nj). Values live in buf[k & 3][i][j][NV] (a cell reads planes k and k-1 of its
 * neighbours' pencils, which at plane t hold k-1..k-3 while k is written); per-pencil
 * records pbest[field][i][j] (score, k, i). */
__kernel void sw3_plane(__global const uchar *a, __global const uchar *b, __global const uchar *c,
                        const int n1, const int n2, const int n3, __global const int *matrix,
                        const int g2, const int go, const int go2, __global int *buf,
                        __global int *pbest, const int t, const int i_lo, const int j_lo,
                        const int nj, const int count)
{
    const int gid = get_global_id(0);
    if (gid >= count)
        return;
    const int i = i_lo + gid / nj;
    const int j = j_lo + gid % nj;
    const int k = t - i - j;
    if (i > n1 || j > n2 || k < 0 || k > n3)
        return;
    const int W = n2 + 1;
    const int P = (n1 + 1) * W;
    int p[8][NV];
#pragma unroll
    for (int m = 1; m < 8; m++) {
        const int di = m & 1, dj = (m >> 1) & 1, dk = (m >> 2) & 1;
        const int ok = i >= di && j >= dj && k >= dk;
        const size_t at = ((size_t)((k - dk) & 3) * P + (size_t)(i - di) * W + (j - dj)) * NV;
#pragma unroll
        for (int v = 0; v < NV; v++)
            p[m][v] = ok ? buf[at + v] : NEGV;
    }
    const int ai = code_at(a, n1, i), bj = code_at(b, n2, j), ck = code_at(c, n3, k);
    int cell[NV];
    sw3_cell(p[7], p[3], p[5], p[6], p[1], p[2], p[4], matrix[ai * ALPHA + bj],
             matrix[ai * ALPHA + ck], matrix[bj * ALPHA + ck], g2, go, go2, cell);
    const size_t at = ((size_t)(k & 3) * P + (size_t)i * W + j) * NV;
#pragma unroll
    for (int v = 0; v < NV; v++)
        buf[at + v] = cell[v];
    const int e = i * W + j;
    if (cell[0] > pbest[e]) {
        pbest[e] = cell[0];
        pbest[P + e] = k;
        pbest[2 * P + e] = i;
    }
}

__kernel void sw3_fill(__global int *p, const uint n, const int value)
{
    for (uint e = get_global_id(0); e < n; e += get_global_size(0))
        p[e] = value;
}

/* Shared definitions for every clsw kernel family (prepended to each .cl source).
 *
 * Vendor macros: CLSW_NV is 1 on NVIDIA's OpenCL platform (inline PTX allowed),
 * 0 elsewhere and on a device asked for the portable kernels (`--portable`,
 * CLSW_PORTABLE=1). Every kernel must keep a portable path for CLSW_NV == 0.
 */
#ifndef CLSW_NV
#define CLSW_NV 0
#endif

/* CLSW_MUL_SHIFTS is 1 on NVIDIA's OpenCL platform, whichever kernels it builds, 0
 * elsewhere: a tuning of the portable code, not a vendor instruction. There the
 * integer adds, maxes, shifts and sign extensions of the portable kernels share one
 * pipe at half a warp instruction a clock, which bounds scan_team (counted from its
 * SASS and speed on an H200, that pipe ran full: BENCHMARKS.md), while an integer
 * multiply issues to the FMA pipe beside it.
 * So the portable build takes a low 16-bit half by a multiply and a shift (the shift
 * is then fused with the add that uses it, as the high half's is) instead of a sign
 * extension: +4% scan_team on an H200 (BENCHMARKS.md). AMD's 32-bit multiply runs at
 * a quarter of the rate of its other integer operations, hence not everywhere. */
#ifndef CLSW_MUL_SHIFTS
#define CLSW_MUL_SHIFTS 0
#endif

/* CLSW_SUBGROUPS is 1 where the device reports sub-group shuffles (cl_khr_subgroups and
 * cl_khr_subgroup_shuffle; the host then builds the team kernels with OpenCL C 2.0 or 3.0) and the
 * vendor code is off; CLSW_SUBGROUPS=0 in the environment turns it off. scan_team's
 * work-items then hand their last row to the next work-item of their team by a
 * shuffle, with no barrier a step. The host keeps such a build only for launches whose
 * sub-groups hold whole teams, and builds the twin (local memory and a barrier a step,
 * CLSW_SUBGROUPS=0) for the rest (src/scan/team.rs: kernel). */
#ifndef CLSW_SUBGROUPS
#define CLSW_SUBGROUPS 0
#endif
#if CLSW_SUBGROUPS && defined(cl_khr_subgroups) && !defined(__opencl_c_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

/* Test hook: added to every score a scan kernel reports. Always 0, except in the test
 * that proves a device computing wrong is refused by the self-test (it builds the
 * kernels with CLSW_CL_OPTIONS=-DCLSW_TEST_SCORE_OFFSET=1). */
#ifndef CLSW_TEST_SCORE_OFFSET
#define CLSW_TEST_SCORE_OFFSET 0
#endif

/* What a scan kernel writes as the score of a pair whose narrow lanes may have
 * saturated: the host recomputes it at 32 bits (src/scan: SATURATED). Any other value
 * is a score, negative ones included (the global and glocal modes). */
#define CLSW_SATURATED (-2147483647 - 1)

/* The alignment mode of the scan programs, a build option: 0 local (Smith-Waterman),
 * 1 global, 2 glocal (the query whole, the subject from anywhere to anywhere); the
 * recurrences are src/reference's (its module header).
 *
 * In the non-local modes the host places a query of m rows at the END of its padded
 * rows (src/scan/profile.rs), so that its last row, where the score is read, is the
 * last row of the last band or pass; the pad = rows - m rows above it reproduce the
 * top edge: each scores the same for every letter (src/scan/profile.rs: -extend in
 * global, 0 in glocal and in scan_team's shifted global lanes) and starts
 * from the left edge below, so every padding row holds the values of DP row 0. */
#ifndef MODE
#define MODE 0
#endif
#define MODE_LOCAL 0
#define MODE_GLOBAL 1
#define MODE_GLOCAL 2

/* H(R, 0), the left edge of profile row R (pad rows of padding above the query): DP row
 * dp = R - pad + 1 is the query's first dp residues against nothing, -(open + dp
 * extend); DP row 0 and, in glocal, the padding rows are 0; global padding rows are
 * -open, so that a padding row's first cell, -open - extend, is DP row 0's. R = -1 is
 * the row above the profile: its column 0 is the corner H(0, 0) = 0 when pad = 0. */
inline int clsw_left_edge(int R, int pad, int open, int extend)
{
    const int dp = R - pad + 1;
    if (dp > 0)
        return -(open + dp * extend);
    return MODE == MODE_GLOBAL && dp < 0 ? -open : 0;
}

/* H above the profile's first row at column j (0-based subject position): DP row 0,
 * -(open + (j + 1) extend) in global (padding rows hold the same), 0 in glocal. */
inline int clsw_top_edge(int j, int open, int extend)
{
    return MODE == MODE_GLOBAL ? -(open + (j + 1) * extend) : 0;
}

/* Minus infinity for E and F at 32 bits, far from INT_MIN so that subtracting gap
 * penalties cannot wrap (the same value as NEG_INF in src/reference). */
#define CLSW_NEG_INF (-536870912)

/* The group of subjects a work-group takes in a launch of groups first_group.. that
 * are sorted by ascending length: the longest first, so they do not start last and
 * run alone. */
inline int clsw_longest_first(const int first_group)
{
    return first_group + (int)(get_num_groups(0) - 1 - get_group_id(0));
}

/* Two signed 16-bit lanes (scan_team carries two subjects this way, scan_team_pairs two
 * queries): `lanes_t` in registers, a 32-bit word ("packed") in profiles and boundary
 * rows. On NVIDIA the registers are the packed word and the lane-wise operations
 * Hopper's DPX instructions reached by inline PTX (ptxas fuses add+max into one
 * VIADDMNMX). Elsewhere each lane is a 32-bit int (a struct of two): plain int adds and
 * maxes, two a pair of cells, where packed arithmetic emulated with shifts and masks
 * cost about three times as much. The values are the same wherever 16 bits hold them; a
 * lane past 16 bits has a best above the kernel's saturation limit, so its pair is
 * recomputed at 32 bits either way. `packed()` saturates, so a best that passes through
 * memory keeps its order and stays past the limit.
 *
 * `up` is 65536, a kernel argument (the host's), so that the compiler cannot turn the
 * multiply of low_half back into a sign extension (CLSW_MUL_SHIFTS); unused otherwise. */
#if CLSW_NV
typedef uint lanes_t;
inline lanes_t lanes(uint p) { return p; }
inline uint packed(lanes_t l) { return l; }
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
inline uint pick_lo(uint a, uint b, uint up) { uint d; asm("prmt.b32 %0, %1, %2, 0x5410;" : "=r"(d) : "r"(a), "r"(b)); return d; }
inline uint pick_hi(uint a, uint b) { uint d; asm("prmt.b32 %0, %1, %2, 0x7632;" : "=r"(d) : "r"(a), "r"(b)); return d; }
inline uint lanes_up(uint p, uint up) { return p; }
/* The same 16-bit value in both lanes. */
#define PACK2(v) (((uint)(v) & 0xffffu) | ((uint)(v) << 16))
#define LO(x) ((int)(short)((x) & 0xffffu))
#define HI(x) ((int)(short)((x) >> 16))
#else
typedef struct {
    int lo, hi;
} lanes_t;
inline lanes_t lanes2(int lo, int hi)
{
    const lanes_t l = {lo, hi};
    return l;
}
inline lanes_t lanes(uint p) { return lanes2((int)(short)(p & 0xffffu), (int)p >> 16); }
/* The low half of packed word p, sign-extended (CLSW_MUL_SHIFTS: moved up by a
 * multiply, then down by an arithmetic shift). */
inline int low_half(uint p, uint up)
{
#if CLSW_MUL_SHIFTS
    return (int)(p * up) >> 16;
#else
    return (int)(short)(p & 0xffffu);
#endif
}
/* lanes(p) where p is a profile word, read once a cell. */
inline lanes_t lanes_up(uint p, uint up) { return lanes2(low_half(p, up), (int)p >> 16); }
inline uint packed(lanes_t l)
{
    return ((uint)clamp(l.lo, -32768, 32767) & 0xffffu) | ((uint)clamp(l.hi, -32768, 32767) << 16);
}
inline lanes_t vadd2(lanes_t a, lanes_t b) { return lanes2(a.lo + b.lo, a.hi + b.hi); }
inline lanes_t vmax2(lanes_t a, lanes_t b) { return lanes2(max(a.lo, b.lo), max(a.hi, b.hi)); }
inline lanes_t vmax2_relu(lanes_t a, lanes_t b) { return lanes2(max(max(a.lo, b.lo), 0), max(max(a.hi, b.hi), 0)); }
inline lanes_t vaddmax2(lanes_t a, lanes_t b, lanes_t c) { return lanes2(max(a.lo + b.lo, c.lo), max(a.hi + b.hi, c.hi)); }
inline lanes_t pick_lo(uint a, uint b, uint up) { return lanes2(low_half(a, up), low_half(b, up)); }
inline lanes_t pick_hi(uint a, uint b) { return lanes2((int)a >> 16, (int)b >> 16); }
#define PACK2(v) lanes2((v), (v))
#define LO(l) ((l).lo)
#define HI(l) ((l).hi)
#endif

/* (letter code of lane 0, of lane 1) at column j of a residue word holding columns
 * 2k and 2k + 1 of two subjects (the packed kernels' layout, src/scan/layout.rs). */
#define LETTER(word, j, lane) (((word) >> (((j) & 1) * 16 + (lane) * 8)) & 0xffu)

/* A lane's best cell so far. */
typedef struct {
    int score, i, j;
} end_t;

/* Folds column j's maximum `c` of one lane over `rows` rows of packed H (the first is
 * query row i0) into the lane's best, under the reference's rule: higher, or equal at a
 * smaller column; within a column the first row. Improvements are rare, so the search
 * for the row runs seldom. */
inline void track_end(end_t *best, int c, int lane, const lanes_t *h, int rows, int i0, int j)
{
    if (c > best->score || (c == best->score && c > 0 && j < best->j)) {
        int row = 0;
#pragma unroll
        for (int r = rows - 1; r >= 0; r--)
            if ((lane ? HI(h[r]) : LO(h[r])) == c)
                row = r;
        best->score = c;
        best->i = i0 + row;
        best->j = j;
    }
}

/* The better of two ends under the reference's rule (higher; then smaller column, then
 * smaller row). */
inline end_t better_end(end_t a, end_t b)
{
    if (b.score > a.score || (b.score == a.score && b.score > 0 && (b.j < a.j || (b.j == a.j && b.i < a.i))))
        return b;
    return a;
}

/* A lane's score (CLSW_SATURATED past sat_limit, the host recomputes it at 32 bits) and
 * end cell. */
inline void write_result(__global int *out_score, __global int *out_query_end, __global int *out_subject_end,
                         int index, end_t best, int sat_limit)
{
    out_score[index] = best.score > sat_limit ? CLSW_SATURATED : best.score + CLSW_TEST_SCORE_OFFSET;
    out_query_end[index] = best.i;
    out_subject_end[index] = best.j;
}

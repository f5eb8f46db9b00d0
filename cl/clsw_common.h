/* Shared definitions for every clsw kernel family (prepended to each .cl source).
 *
 * Vendor macros: CLSW_NV is 1 on NVIDIA's OpenCL platform (inline PTX allowed),
 * 0 elsewhere. Every kernel must keep a portable path for CLSW_NV == 0.
 */
#ifndef CLSW_NV
#define CLSW_NV 0
#endif

/* Test hook: added to every score a scan kernel reports. Always 0, except in the test
 * that proves a device computing wrong is refused by the self-test (it builds the
 * kernels with CLSW_CL_OPTIONS=-DCLSW_TEST_SCORE_OFFSET=1). */
#ifndef CLSW_TEST_SCORE_OFFSET
#define CLSW_TEST_SCORE_OFFSET 0
#endif

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

/* Two signed 16-bit lanes in one 32-bit word (the packed kernels scan_fast and
 * scan_team carry two subjects this way). On NVIDIA the lane-wise operations are
 * Hopper's DPX instructions reached by inline PTX (ptxas fuses add+max into one
 * VIADDMNMX); elsewhere portable C computes the same values. */
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

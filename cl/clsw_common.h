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

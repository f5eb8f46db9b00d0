/* scan_plain: the readable inter-task Smith-Waterman score kernel.
 * Kept for: the readable twin of the fast kernels, on the device.
 *
 * One work-item per subject; 32-bit scores; no tiling or packing. It is the
 * device-side twin of src/reference (and the kernel of the per-device self-test):
 * faster variants sit beside it and are tested against the same reference.
 *
 * Rows are query residues q[1..m], columns subject residues s[1..n]; the recurrence,
 * end rule and tie rule are src/reference's (its module header), line by line. The
 * query comes as its rows of scores (src/scoring's QueryRows: a matrix's row per
 * residue, or a profile's own per position).
 *
 * The work-item walks its subject column by column (j outer) and the query row by
 * row (i inner), keeping column j-1's H and E for every query row in global scratch
 * (interleaved, scratch[i * stride + item], so neighbouring work-items read
 * neighbouring words). F runs down the column in a register. Updating the best cell
 * only on a strictly higher score, in this (j, i) order, reports the end with the
 * smallest subject position, then the smallest query position: the reference's rule.
 */

__kernel void scan_plain(
    const int m,                      /* query rows */
    __global const uchar *residues,   /* all subjects, concatenated */
    __global const uint *offsets,     /* subject k starts at residues[offsets[k]] */
    __global const uint *lengths,     /* and has lengths[k] residues */
    const int first,                  /* this launch handles subjects first.. */
    const int count,                  /* ..first+count-1 */
    __global const int *rows,         /* m x alpha: S(q_i, c) at rows[i * alpha + c] */
    const int alpha,
    const int gap_open,
    const int gap_extend,
    __global int *scratch_h,          /* m x stride */
    __global int *scratch_e,          /* m x stride */
    const int stride,                 /* global work size of this launch */
    __global int *out_score,          /* per subject: score, query end, subject end */
    __global int *out_query_end,
    __global int *out_subject_end)
{
    const int item = get_global_id(0);
    if (item >= count)
        return;
    const int subject = first + item;
    __global const uchar *s = residues + offsets[subject];
    const int n = (int)lengths[subject];
    const int open_ext = gap_open + gap_extend;

    for (int i = 0; i < m; i++) {
        scratch_h[(size_t)i * stride + item] = 0;
        scratch_e[(size_t)i * stride + item] = CLSW_NEG_INF;
    }

    int best = 0, best_i = -1, best_j = -1;
    for (int j = 0; j < n; j++) {
        __global const int *column = rows + s[j];  /* S(q_i, s_j) = column[i * alpha] */
        int diag = 0;            /* H(i-1, j-1) */
        int up = 0;              /* H(i-1, j) */
        int f = CLSW_NEG_INF;    /* F(i-1, j) */
        for (int i = 0; i < m; i++) {
            const size_t idx = (size_t)i * stride + item;
            const int left = scratch_h[idx];                              /* H(i, j-1) */
            const int e = max(scratch_e[idx] - gap_extend, left - open_ext);
            f = max(f - gap_extend, up - open_ext);
            int h = diag + column[i * alpha];
            h = max(max(h, e), max(f, 0));
            if (h > best) {
                best = h;
                best_i = i;
                best_j = j;
            }
            scratch_e[idx] = e;
            scratch_h[idx] = h;
            diag = left;
            up = h;
        }
    }
    out_score[subject] = best + CLSW_TEST_SCORE_OFFSET;
    out_query_end[subject] = best_i;
    out_subject_end[subject] = best_j;
}

/* psse: the shuffles of pairwise statistical significance (Zhang et al.'s permutation
 * kernel), written straight into the layout the inter-task alignment kernels read.
 *
 * Random numbers: Philox4x32-10 (Salmon et al., Random123), the same code as
 * src/psse/philox.rs. Shuffle i of subject s under seed (k0, k1) reads the four words of
 * the counters (b, i, s, 0), b = 0, 1, ..., in order; an unbiased integer below a bound is
 * drawn by Lemire's multiply-and-shift with rejection. The host's CPU shuffles use the
 * same words in the same order, so every device and the CPU give the same shuffles.
 *
 * Shuffle: Fisher-Yates (for a = n-1 down to 1 swap a and below(a + 1)) over the whole
 * subject, or over each window [0, w), [w, 2w), ... in turn when window = w > 0 (every
 * window keeps its composition, as prss -v w).
 *
 * Layout (src/scan/layout.rs, GroupLayout): entries are the subjects' shuffles and, last
 * for each subject, the subject itself (per_subject = shuffles + 1 entries each), sorted
 * by subject length and cut into groups of SLOTS x LANES consecutive entries. Entry e is
 * lane e % LANES of slot (e / LANES) % SLOTS of group e / (SLOTS * LANES). Word w of slot
 * t in group g sits at group_word[g] + w * SLOTS + t: four columns of one entry when
 * LANES = 1 (Zhang's structure-of-arrays uchar4: shuffle i of a subject beside shuffle
 * i + 1, so the alignment kernel's reads coalesce), or two columns of both lanes
 * (column-major, lane-minor) when LANES = 2. Columns past an entry's end, and whole empty
 * lanes, hold the padding code.
 *
 * One work-item per entry. It copies its subject into its own columns of the layout and
 * shuffles them there (byte loads and stores to global memory: the columns are only this
 * work-item's, and the lanes of a word belong to different work-items, which OpenCL's
 * byte-addressable stores keep apart).
 */

#ifndef LANES
#define LANES 1
#endif
#define COLS_PER_WORD (4 / LANES)

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

inline uint4 philox4x32_10(uint4 c, uint2 k)
{
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k.x += PHILOX_W0;
            k.y += PHILOX_W1;
        }
        const uint hi0 = mul_hi(PHILOX_M0, c.x), lo0 = PHILOX_M0 * c.x;
        const uint hi1 = mul_hi(PHILOX_M1, c.z), lo1 = PHILOX_M1 * c.z;
        c = (uint4)(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    }
    return c;
}

/* One shuffle's stream of words. */
typedef struct {
    uint2 key;
    uint shuffle, subject, block, used;
    uint4 words;
} psse_stream;

inline uint psse_next(psse_stream *s)
{
    if (s->used == 4) {
        s->words = philox4x32_10((uint4)(s->block, s->shuffle, s->subject, 0u), s->key);
        s->block++;
        s->used = 0;
    }
    const uint w = s->used == 0 ? s->words.x : s->used == 1 ? s->words.y : s->used == 2 ? s->words.z : s->words.w;
    s->used++;
    return w;
}

/* Uniform in [0, bound), bound >= 1: Lemire's method with rejection. */
inline uint psse_below(psse_stream *s, uint bound)
{
    ulong m = (ulong)psse_next(s) * bound;
    if ((uint)m < bound) {
        const uint threshold = (0u - bound) % bound;
        while ((uint)m < threshold)
            m = (ulong)psse_next(s) * bound;
    }
    return (uint)(m >> 32);
}

/* Byte offset of column j of (slot t, lane) in a group whose words start at `base`. */
inline size_t psse_column(uint base, uint j, uint slots, uint t, uint lane)
{
    return ((size_t)base + (size_t)(j / COLS_PER_WORD) * slots + t) * 4 + (j % COLS_PER_WORD) * LANES + lane;
}

__kernel void psse_shuffle(
    __global const uchar *subjects,    /* the tile's subjects back to back, in entry order */
    __global const uint *offsets,      /* per tile subject: first residue */
    __global const uint *lengths,      /* per tile subject */
    __global const uint *keys,         /* per tile subject: its index in the caller's list */
    const uint n_subjects,
    const uint per_subject,            /* shuffles + 1: the last entry is the subject itself */
    const uint seed_lo,
    const uint seed_hi,
    const uint window,                 /* 0: uniform */
    const uint slots,                  /* work-items per alignment work-group */
    __global const uint *group_word,   /* per group: first word */
    __global const uint *group_len,    /* per group: columns (its longest entry) */
    __global uchar *words,             /* the layout, as bytes */
    const uint pad)                    /* the padding code */
{
    const uint e = get_global_id(0);
    const uint per_group = slots * LANES;
    const uint g = e / per_group;
    const uint p = e % per_group;
    const uint t = p / LANES, lane = p % LANES;
    const uint base = group_word[g];
    const uint columns = group_len[g];
    const uint rank = e / per_subject;
    uint n = 0;
    if (rank < n_subjects) {
        const uint i = e % per_subject;
        __global const uchar *src = subjects + offsets[rank];
        n = lengths[rank];
        for (uint j = 0; j < n; j++)
            words[psse_column(base, j, slots, t, lane)] = src[j];
        if (i + 1 < per_subject) {
            psse_stream s;
            s.key = (uint2)(seed_lo, seed_hi);
            s.shuffle = i;
            s.subject = keys[rank];
            s.block = 0;
            s.used = 4;
            s.words = (uint4)(0u);
            const uint w = window == 0 ? n : window;
            for (uint start = 0; start < n; start += w) {
                const uint len = min(w, n - start);
                for (uint a = len - 1; a > 0; a--) {
                    const uint b = psse_below(&s, a + 1);
                    const size_t pa = psse_column(base, start + a, slots, t, lane);
                    const size_t pb = psse_column(base, start + b, slots, t, lane);
                    const uchar x = words[pa];
                    words[pa] = words[pb];
                    words[pb] = x;
                }
            }
        }
    }
    /* Padding to the end of the group's last word, as src/scan/layout.rs lays it out:
     * scan_team reads the rest of that word as the columns past the subject's end. */
    const uint padded = (columns + COLS_PER_WORD - 1) / COLS_PER_WORD * COLS_PER_WORD;
    for (uint j = n; j < padded; j++)
        words[psse_column(base, j, slots, t, lane)] = (uchar)pad;
}

/* The Philox words of counters (c0 + k, c1, c2, c3) for k = 0 .. count-1, for the
 * known-answer test of the device's generator. */
__kernel void psse_philox(const uint c0, const uint c1, const uint c2, const uint c3, const uint k0, const uint k1,
                          const uint count, __global uint4 *out)
{
    const uint k = get_global_id(0);
    if (k < count)
        out[k] = philox4x32_10((uint4)(c0 + k, c1, c2, c3), (uint2)(k0, k1));
}

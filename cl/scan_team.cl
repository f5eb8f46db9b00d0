/* scan_team: a team of TEAM work-items scans one pair of subjects, each work-item
 * holding ROWS query rows in registers, the subjects streamed through column by column.
 * (Over 600 lines: scan_team, its long groups' walk and scan_team_pairs share every
 * helper.)
 *
 * The recurrence is src/reference's (its module header), per 16-bit lane, rows i =
 * query, columns j = subject, with oe = open + extend: E(i,j) = max(E(i,j-1) - extend,
 * H(i,j-1) - oe), the same value as the reference's max(E, H - open) - extend.
 *
 * E and F start at -oe (as in scan_inter.cl: the same values as minus infinity, and
 * inside 16 bits). Each cell pair costs five packed operations, four of them fused
 * DPX on NVIDIA, plus one PRMT for the paired score and half a local load:
 *
 *   H  = max(max(diag + S, E), F, 0)    VIADDMNMX, VIMNMX.RELU
 *   t  = H - oe                         VIADD
 *   E' = max(E - extend, t)             VIADDMNMX   (E of the next column)
 *   F' = max(F - extend, t)             VIADDMNMX   (F of the next row)
 *
 * The portable build holds each lane in a 32-bit int (clsw_common.h, lanes_t): the same
 * operations once a lane, and a sign extension a lane for the score (on NVIDIA a
 * multiply for the low half, CLSW_MUL_SHIFTS); about 0.6x the DPX kernel's speed on an
 * H200 (BENCHMARKS.md), where packed lanes emulated with shifts and masks ran at 0.28x
 * (on an H100).
 *
 * Layout. Work-item t of a team holds rows t*ROWS .. t*ROWS + ROWS - 1 of the current
 * pass (a pass is SPAN = TEAM * ROWS query rows). At step k it computes column j = k - t:
 * the work-item above handed it, one step earlier, the H of its last row and the F
 * entering this work-item's first row at column j (warp shuffles on NVIDIA, sub-group
 * shuffles where a device has them, local memory and one barrier a step elsewhere:
 * column_top). The team's first work-item takes them from the boundary row the
 * previous pass left in global memory (or H = 0, F = -oe in the first pass); the last
 * work-item writes its last row there for the next pass. So a query of up to SPAN rows
 * crosses global memory never, and a longer one once per SPAN rows, where scan_inter
 * (one work-item per subject) crosses it every BAND rows.
 *
 * Work-items compute TEAM - 1 columns before the subject starts and after it ends
 * (a pipeline's fill and drain); those columns take the padding letter, whose profile
 * row is PAD_SCORE, so before the start every H stays 0 and after the end every cell
 * stays strictly below the best (it is a real cell's H minus positive costs). Padding
 * rows past the query's end score PAD_SCORE too.
 *
 * Score only (ENDS == 0): the lane's best H, folded over every cell. With ENDS == 1 the
 * end cell follows the reference's rule (highest score; ties: smallest subject
 * position, then smallest query position): each work-item keeps its own best cell
 * (packed column maxima, then the lane's cells), and the team's first work-item reduces
 * the team's through local memory.
 *
 * Global and glocal modes (MODE, clsw_common.h): H has no floor (VIMNMX without
 * .RELU); the query sits at the end of its padded rows, so its last row is the last
 * work-item's last row in the last pass, which alone folds the mode's score: H at each
 * lane's last column (global), or the best of the lane's columns, the first on ties
 * (glocal; a score-only build folds the best alone: SCORE_ONLY_GLOCAL). Each pass
 * starts every row at its left edge, the first pass's boundary is the top edge, and
 * the pipeline's fill columns (j < 0) take a letter of their own whose profile row is
 * the left edge's step from the row above (src/scan/profile.rs), so that a fill
 * column leaves every row at its left edge. The drain columns keep the
 * padding letter; the last row's fold skips them (j >= the lane's length). In glocal the
 * padding letter scores one more than a gap's first residue (src/scan/profile.rs:
 * drain_score) so that the drain's cells stay near the real ones, inside 16 bits. Every
 * cell is still folded for the saturation check; the host sends the pairs whose cells
 * could fall below 16 bits to the 32-bit recompute (src/scan: narrow_subjects).
 *
 * The global mode keeps H + extend (i + j) in the lanes (i, j the DP row and column),
 * as FASTA's global SSE2 kernel does: every all-gaps path then scores -open or -2 open
 * whatever the lengths, so no length passes 16 bits at the bottom. The recurrence
 * becomes H = max(diag + S + 2 extend, E, F), E = max(E, H - open), F = max(F, H - open)
 * (minus_ext is 0, minus_oe -open), every edge cell is -open (0 at the corner), the
 * profile holds S + 2 extend (src/scan/profile.rs), and the score is the last cell
 * less extend (m + n).
 *
 * Saturation: the lanes are true 16-bit values. A wrap can only start from a cell above
 * 32767 - max(S), and every cell is folded into the best, so a subject whose best
 * exceeds sat_limit is reported as CLSW_SATURATED and recomputed at 32 bits by the host.
 *
 * The work-group is get_local_size(0) / TEAM teams; its length-sorted subjects share one
 * column count (the group's longest), so every loop bound is the same for the whole
 * work-group, as barriers and full-warp shuffles need.
 *
 * Query slots: one launch may scan `slots` queries (of one ROWS) against the same
 * subjects, each with its own profile (m_pad / 2 words per letter apart), rows
 * (slot_rows), boundary row (slot_cells elements apart) and outputs (slot_entries
 * apart). Work-groups take the groups longest first and, for each group, every slot
 * in turn, so a launch ends with short subjects whatever its queries: a batch of a
 * database too large for the device, scanned one query per launch, spent most of its
 * time waiting for its longest team while the rest of the device was idle.
 */

#ifndef TEAM
#define TEAM 8
#endif
#ifndef ROWS
#define ROWS 16
#endif
#ifndef ENDS
#define ENDS 1
#endif
/* PAIRS 1 builds scan_team_pairs alone (psse's query pairs: score only, local), 0
 * scan_team alone: a program holds the one kernel it launches. Both in every score-only
 * local program took a third of a PoCL build's time (a team search on PoCL with nothing
 * cached, 116 s against 78-89). */
#ifndef PAIRS
#define PAIRS 0
#endif
#if PAIRS && (ENDS || MODE != MODE_LOCAL)
#error "scan_team_pairs is score only, in the local mode"
#endif
#define SPAN (TEAM * ROWS)
/* Whether work-items track the local end cell (ENDS in the local mode); the other
 * modes know their end row and fold the last row only. */
#define LOCAL_ENDS (ENDS && MODE == MODE_LOCAL)
#if MODE
#define HMAX(a, b) vmax2((a), (b))
#else
#define HMAX(a, b) vmax2_relu((a), (b))
#endif

/* The left edge of profile row R (clsw_left_edge), in the global mode shifted by
 * extend x the DP row: 0 at DP row 0, -open elsewhere. */
#if MODE == MODE_GLOBAL
inline int team_left_edge(int R, int pad, int open, int extend) { return R - pad + 1 == 0 ? 0 : -open; }
#else
#define team_left_edge clsw_left_edge
#endif
#define HALF_SPAN (SPAN / 2)
/* The local profile: per letter, each work-item's ROWS / 2 words (two rows each),
 * rounded up to even so that a work-item's words start 8-byte aligned and load two at a
 * time (LDS.64: half the loads); STRIDE words per letter, 2 mod 4, so that different
 * letters fall in different bank pairs. The host sizes the buffer as letters x
 * (SPAN / 2 + TEAM + 2) words, at least this. */
#define ROW_WORDS (((ROWS / 2) + 1) & ~1)
#define STRIDE (TEAM * ROW_WORDS + 2)
/* The slotted local profile (TEAM_SLOTTED), for the groups that are not long. A
 * half-warp's 16 work-items take an LDS.64 in one pass over the 32 banks when no two
 * of them read the same bank pair; in the packed profile a work-item's words lie where
 * its letter puts them, so two teams of a half-warp reading different letters may
 * collide. Here lane q of a half-warp (local id mod 16) owns banks 2q and 2q + 1: word
 * e of chunk c (two words, four rows) of letter l, for the work-items on lane q, is word
 * ((l CHUNKS + c) REGIONS + region) 32 + 2q + e, region t / 16. A team position's rows
 * are stored once for each lane it takes (16 / TEAM copies for teams of up to 16), and
 * a pass of an odd number of words loads its last as a pair (the second word is
 * padding, never written, its value unused). The host builds whichever profile ran
 * faster for the shape (src/scan/team.rs: slotted) and sizes the buffer as letters x
 * SLOT_STRIDE words at least. The long groups' STAGES profiles are packed: they
 * would not fit local memory slotted. */
#ifndef TEAM_SLOTTED
#define TEAM_SLOTTED 1
#endif
#define CHUNKS (ROW_WORDS / 2)
#define REGIONS (TEAM > 16 ? TEAM / 16 : 1)
#define SLOT_STRIDE (CHUNKS * REGIONS * 32)

/* The packed word `v` of the work-item above (the one with the next lower team
 * position): a warp shuffle; the team's first work-item gets its own back. */
#if CLSW_NV && TEAM > 1
inline uint from_above(uint v)
{
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, 1, %2, 0xffffffff;" : "=r"(r) : "r"(v), "r"((32 - TEAM) << 8));
    return r;
}
#endif

/* (hi:lo) >> s, the low word (s is 0 or 16). */
#if CLSW_NV
inline uint funnel_right(uint lo, uint hi, uint s)
{
    uint d;
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(lo), "r"(hi), "r"(s));
    return d;
}
#else
inline uint funnel_right(uint lo, uint hi, uint s) { return s ? (lo >> s) | (hi << (32 - s)) : lo; }
#endif

/* Residue word x of a team (two columns of both lanes), or four padding letters outside
 * the group's `words` words (before them, in the non-local modes, the fill letter). The
 * load is from a clamped index, so it needs no branch. */
inline uint team_word(__global const uint *res, int x, int words, int G, uint pad_word)
{
    const uint w = res[(size_t)(uint)clamp(x, 0, words - 1) * G];
#if MODE
    /* The fill letter is the one after the padding letter. */
    return (uint)x < (uint)words ? w : x < 0 ? pad_word + 0x01010101u : pad_word;
#else
    return (uint)x < (uint)words ? w : pad_word;
#endif
}

/* The first work-item's boundary cell of column k (at element kG = k * G): the previous
 * pass's last row (when `reads`), else the top row (H = 0, F = -oe; in the global mode
 * the top edge, with F = H - oe, the same as minus infinity there). */
inline uint2 team_boundary(__global const uint2 *bnd, bool reads, int k, int kG, int n, lanes_t minus_oe)
{
#if MODE == MODE_GLOBAL
    /* The top edge, shifted: -open (minus_oe here), with F = -2 open. */
    return reads && k < n ? bnd[kG] : (uint2)(packed(minus_oe), packed(vadd2(minus_oe, minus_oe)));
#else
    return reads && k < n ? bnd[kG] : (uint2)(0, packed(minus_oe));
#endif
}

#if !ENDS && MODE == MODE_LOCAL
/* The team's best, on its first work-item: every work-item folded its own rows. */
inline lanes_t team_best(lanes_t best, int lid, int t, __local uint *scratch)
{
#if TEAM > 1
    barrier(CLK_LOCAL_MEM_FENCE);
    scratch[lid] = packed(best);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0)
        for (int w = lid + 1; w < lid + TEAM; w++)
            best = vmax2(best, lanes(scratch[w]));
#endif
    return best;
}

/* A score-only result: the score, or CLSW_SATURATED above the saturation limit; no end
 * cell. */
inline void write_score(__global int *out_score, __global int *out_query_end, __global int *out_subject_end, int k,
                        int best, int sat_limit)
{
    out_score[k] = best > sat_limit ? CLSW_SATURATED : best + CLSW_TEST_SCORE_OFFSET;
    out_query_end[k] = -1;
    out_subject_end[k] = -1;
}
#endif

/* A score-only glocal build needs no end column: every work-item folds the last row's H
 * of each column into a packed maximum without a branch, each lane's H where the
 * column is one of the lane's and the work-item holds the query's last row (lim0,
 * lim1), else the lowest 16-bit value. The holder's branch with the end column's tie
 * rule (track_last, which the hit-reporting build keeps) made glocal 0.82x of local
 * at 189 residues, one pass; a branch on the columns both lanes hold made some
 * shapes' last pass about twice as slow (BENCHMARKS.md, issue 42). */
#define SCORE_ONLY_GLOCAL (MODE == MODE_GLOCAL && !ENDS)

/* What a work-item carries from column to column besides H and E. */
typedef struct {
    lanes_t h_out, f_out;     /* last row's H and the F below it, at the last column */
    lanes_t diag_top;         /* H of the row above this work-item, at the last column */
    uint up;                  /* 65536, the host's (clsw_common.h: low_half) */
#if LOCAL_ENDS
    end_t best0, best1;
#else
    lanes_t best;             /* every cell's max: the local score, or the saturation check */
#endif
#if MODE
    end_t last0, last1;       /* the query's last row, each lane: H at the mode's end column */
    int n0, n1;               /* each lane's subject length */
    bool holds_last;          /* this work-item holds the query's last row in this pass */
#endif
#if SCORE_ONLY_GLOCAL
    lanes_t last_both;        /* the last row's best, each lane */
    uint lim0, lim1;          /* each lane's columns to fold: its length on the holder, else 0 */
#endif
} team_t;

#if MODE
/* A lane's `last` before any column: below every score (a work-item without the
 * query's last row keeps it), or for the holder in glocal H(m, 0), column 0. */
#define NO_LAST (-1073741824)

/* Starts the pass's last-row fold: `holds` when this work-item's last row is the
 * query's (`edge_m` = H(m, 0), the left edge there; m - 1 its query position). */
inline void last_start(team_t *st, bool holds, int edge_m, int m)
{
    st->holds_last = holds;
    const end_t v = {holds && MODE == MODE_GLOCAL ? edge_m : NO_LAST, m - 1, -1};
    st->last0 = v;
    st->last1 = v;
#if SCORE_ONLY_GLOCAL
    st->last_both = PACK2(-32768);
    st->lim0 = holds ? st->n0 : 0;
    st->lim1 = holds ? st->n1 : 0;
#endif
}

/* h's lanes where `keep_lo` / `keep_hi`, else -32768 (the lowest 16-bit value). */
#if CLSW_NV
inline lanes_t lanes_where(lanes_t h, bool keep_lo, bool keep_hi)
{
    const uint keep = (keep_lo ? 0xffffu : 0u) | (keep_hi ? 0xffff0000u : 0u);
    return (h & keep) | (0x80008000u & ~keep);
}
#else
inline lanes_t lanes_where(lanes_t h, bool keep_lo, bool keep_hi)
{
    return lanes2(keep_lo ? h.lo : -32768, keep_hi ? h.hi : -32768);
}
#endif

/* The pass's last-row fold, complete (the holder's packed maximum merged). */
inline void last_end(team_t *st)
{
#if SCORE_ONLY_GLOCAL
    if (st->holds_last) {
        st->last0.score = max(st->last0.score, LO(st->last_both));
        st->last1.score = max(st->last1.score, HI(st->last_both));
    }
#endif
}

/* Folds the query's last row `h` at column j into each lane's `last`: the lane's last
 * column (global), or a higher H at one of the lane's columns (glocal: the first
 * column wins ties). */
inline void track_last(team_t *st, lanes_t h, int j)
{
#if MODE == MODE_GLOBAL
    if (j == st->n0 - 1) {
        st->last0.score = LO(h);
        st->last0.j = j;
    }
    if (j == st->n1 - 1) {
        st->last1.score = HI(h);
        st->last1.j = j;
    }
#else
    if (j >= 0 && j < st->n0 && LO(h) > st->last0.score) {
        st->last0.score = LO(h);
        st->last0.j = j;
    }
    if (j >= 0 && j < st->n1 && HI(h) > st->last1.score) {
        st->last1.score = HI(h);
        st->last1.j = j;
    }
#endif
}
#endif

/* What enters this work-item's first row at step k, H and F: what the work-item
 * above handed down, or for the team's first the boundary cell `b` (packed). NVIDIA:
 * warp shuffles of the packed words. With CLSW_SUBGROUPS, sub-group shuffles of each
 * lane's int: the host builds it only for launches whose sub-groups hold whole teams
 * (src/scan/team.rs: kernel), and takes sub-groups to be runs of consecutive local
 * ids, as implementations lay out one dimension (a device that did otherwise would
 * score wrong and fail the self-test). Under a branch, even a uniform one, PoCL 5's
 * CPU compiler hung on the shuffles, hence a build option. Elsewhere local memory,
 * each lane's int, with one barrier a step: even and odd steps alternate between two
 * halves of `scratch` (8 words a work-item), so a step's writes never meet the reads
 * of the step before, which the barrier between them has already ordered. */
inline void column_top(const team_t *st, uint2 b, int k, int t, __local uint *scratch, lanes_t *h, lanes_t *f)
{
#if CLSW_NV && TEAM > 1
    /* One select of the pair, the form measured at a10a39b: with a select a word the
     * 24-row kernel ran 10% slower (another H100 of the kind; BENCHMARKS.md). */
    const uint2 above = (uint2)(from_above(st->h_out), from_above(st->f_out));
    const uint2 top = t == 0 ? b : above;
    *h = lanes(top.x);
    *f = lanes(top.y);
#elif TEAM > 1
#if CLSW_SUBGROUPS
    /* The team's first work-item takes its own values back, then the boundary. */
    const uint from = max((int)get_sub_group_local_id() - 1, 0);
    const int h_lo = sub_group_shuffle(LO(st->h_out), from), h_hi = sub_group_shuffle(HI(st->h_out), from);
    const int f_lo = sub_group_shuffle(LO(st->f_out), from), f_hi = sub_group_shuffle(HI(st->f_out), from);
    *h = t == 0 ? lanes(b.x) : lanes2(h_lo, h_hi);
    *f = t == 0 ? lanes(b.y) : lanes2(f_lo, f_hi);
#else
    const int lid = get_local_id(0), size = get_local_size(0);
    __local int *w = (__local int *)scratch + (k & 1) * 4 * size;
    w[lid] = LO(st->h_out);
    w[size + lid] = HI(st->h_out);
    w[2 * size + lid] = LO(st->f_out);
    w[3 * size + lid] = HI(st->f_out);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
        *h = lanes(b.x);
        *f = lanes(b.y);
    } else {
        *h = lanes2(w[lid - 1], w[size + lid - 1]);
        *f = lanes2(w[2 * size + lid - 1], w[3 * size + lid - 1]);
    }
#endif
#else
    *h = lanes(b.x);
    *f = lanes(b.y);
#endif
}

/* A pass starts left of column 0: H = 0 and E = F = -oe in every row; in the other
 * modes H is each row's left edge (the first is profile row r0, below `pad` padding
 * rows) and E = F = H - oe (as minus infinity: at most H - open). */
inline void pass_start(team_t *st, lanes_t *h, lanes_t *e, lanes_t minus_oe, int r0, int pad, int open, int extend)
{
#if MODE
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        h[r] = PACK2(team_left_edge(r0 + r, pad, open, extend));
        e[r] = vadd2(h[r], minus_oe);
    }
    st->h_out = h[ROWS - 1];
    st->f_out = e[ROWS - 1];
    st->diag_top = PACK2(team_left_edge(r0 - 1, pad, open, extend));
#else
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        h[r] = PACK2(0);
        e[r] = minus_oe;
    }
    st->h_out = PACK2(0);
    st->f_out = minus_oe;
    st->diag_top = PACK2(0);
#endif
}

/* Step k: column j = k - t of this work-item's rows (the first is query row i0), from
 * H of column j - 1 in `h_in` to column j in `h_new`; `la` and `lb` are the column's
 * letters in the two lanes, `b` the first work-item's boundary cell of column k. */
inline void team_column(team_t *st, const lanes_t *h_in, lanes_t *h_new, lanes_t *e, uint2 b, bool writes, int k, int t,
                        int n, int jG, int i0, uint la, uint lb, __global uint2 *bnd, __local const uint *my_profile,
                        bool slotted, lanes_t minus_oe, lanes_t minus_ext, __local uint *scratch)
{
    const int j = k - t;
    lanes_t h_top, f_top;
    column_top(st, b, k, t, scratch, &h_top, &f_top);
    const int letter_bytes = (slotted ? SLOT_STRIDE : STRIDE) * 4;
    __local const uint *pa = (__local const uint *)((__local const uchar *)my_profile + la * letter_bytes);
    __local const uint *pb = (__local const uint *)((__local const uchar *)my_profile + lb * letter_bytes);
    lanes_t diag = st->diag_top, f = f_top;
    uint wa_next = 0, wb_next = 0;
#if LOCAL_ENDS
    lanes_t colmax = PACK2(0);
#else
    lanes_t best = st->best;
#endif
#pragma unroll
    for (int r2 = 0; r2 < ROWS / 2; r2++) {
        /* Words r2 and r2 + 1 of both letters in two 8-byte loads. */
        uint wa, wb;
        /* Words r2 and r2 + 1: next to each other, or in the slotted profile chunk
         * r2 / 2, whose second word past the rows is padding. */
        const int at = slotted ? r2 / 2 * (REGIONS * 32) : r2;
        if (r2 % 2 == 0 && (slotted || r2 + 1 < ROWS / 2)) {
            const uint2 a2 = *(__local const uint2 *)(pa + at), b2 = *(__local const uint2 *)(pb + at);
            wa = a2.x;
            wb = b2.x;
            wa_next = a2.y;
            wb_next = b2.y;
        } else if (r2 % 2 == 0) {
            wa = pa[at];
            wb = pb[at];
        } else {
            wa = wa_next;
            wb = wb_next;
        }
#pragma unroll
        for (int upper = 0; upper < 2; upper++) {
            const int r = 2 * r2 + upper;
            const lanes_t sc = upper ? pick_hi(wa, wb) : pick_lo(wa, wb, st->up);
            const lanes_t hn = HMAX(vaddmax2(r ? h_in[r - 1] : diag, sc, e[r]), f);
            h_new[r] = hn;
            const lanes_t hoe = vadd2(hn, minus_oe);
            e[r] = vaddmax2(e[r], minus_ext, hoe);
            f = vaddmax2(f, minus_ext, hoe);
#if LOCAL_ENDS
            colmax = vmax2(colmax, hn);
#else
            best = vmax2(best, hn);
#endif
        }
    }
    st->diag_top = h_top;
    st->h_out = h_new[ROWS - 1];
    st->f_out = f;
    if (writes && (uint)j < (uint)n)
        bnd[jG] = (uint2)(packed(st->h_out), packed(f));
#if LOCAL_ENDS
    if ((uint)j < (uint)n) {
        track_end(&st->best0, LO(colmax), 0, h_new, ROWS, i0, j);
        track_end(&st->best1, HI(colmax), 1, h_new, ROWS, i0, j);
    }
#else
    st->best = best;
#endif
#if SCORE_ONLY_GLOCAL
    st->last_both = vmax2(st->last_both, lanes_where(st->h_out, (uint)j < st->lim0, (uint)j < st->lim1));
#elif MODE
    if (st->holds_last)
        track_last(st, st->h_out, j);
#endif
}

/* Where a pass's walk along the columns stands: the next step k, the residue word a of
 * its first column, the boundary elements of column k and of column j = k - t, and the
 * residue words and the first work-item's boundary cells loaded a turn ahead. */
typedef struct {
    int k, a, kG, jG;
    uint cur, next;
    uint2 b0, b1;
} walk_t;

/* A pass's walk before its first step. */
inline walk_t walk_start(__global const uint *res, __global const uint2 *bnd, bool reads, int t, int n, int words,
                         int G, uint pad_word, lanes_t minus_oe)
{
    walk_t w;
    w.k = 0;
    w.a = -((t + 1) >> 1);
    w.cur = n > 0 ? team_word(res, w.a, words, G, pad_word) : pad_word;
    w.next = n > 0 ? team_word(res, w.a + 1, words, G, pad_word) : pad_word;
    w.b0 = team_boundary(bnd, reads, 0, 0, n, minus_oe);
    w.b1 = team_boundary(bnd, reads, 1, G, n, minus_oe);
    /* Boundary elements of column k and of column j = k - t, in 32 bits: the host
     * refuses a group whose boundary row holds 2^31 elements or more. */
    w.kG = 0;
    w.jG = -t * G;
    return w;
}

/* The steps of a pass from w->k up to `until` (even), two a turn: columns j = k - t and
 * k - t + 1, for an even t the halves of residue word a = (k - t) / 2, for an odd t the
 * upper half of word a and the lower of word a + 1 (one funnel shift). H of the
 * previous column and of this one are in two arrays that swap roles every step, so
 * that no register is copied to keep H(i-1, j-1) for the diagonal. */
inline void team_walk(team_t *st, walk_t *w, lanes_t *ha, lanes_t *hb, lanes_t *e, int until, bool reads, bool writes, int t,
                      int n, int words, int G, uint pad_word, int i0, __global const uint *res, __global uint2 *bnd,
                      __local const uint *my_profile, bool slotted, lanes_t minus_oe, lanes_t minus_ext,
                      __local uint *scratch)
{
    const uint shift = (t & 1) * 16;
    for (; w->k < until; w->k += 2, w->a++, w->kG += 2 * G, w->jG += 2 * G) {
        const uint ahead = team_word(res, w->a + 2, words, G, pad_word);
        const uint2 b0_ahead = team_boundary(bnd, reads, w->k + 2, w->kG + 2 * G, n, minus_oe);
        const uint2 b1_ahead = team_boundary(bnd, reads, w->k + 3, w->kG + 3 * G, n, minus_oe);
        const uint both = funnel_right(w->cur, w->next, shift);
        team_column(st, ha, hb, e, w->b0, writes, w->k, t, n, w->jG, i0, both & 0xffu, (both >> 8) & 0xffu, bnd,
                    my_profile, slotted, minus_oe, minus_ext, scratch);
        team_column(st, hb, ha, e, w->b1, writes, w->k + 1, t, n, w->jG + G, i0, (both >> 16) & 0xffu, both >> 24, bnd,
                    my_profile, slotted, minus_oe, minus_ext, scratch);
        w->cur = w->next;
        w->next = ahead;
        w->b0 = b0_ahead;
        w->b1 = b1_ahead;
    }
}

/* The pass profile of query rows p.. into a team's local profile `span_profile`
 * (letters x STRIDE words, or `slotted` letters x SLOT_STRIDE), loaded by `count`
 * work-items of which this is number `index`. */
inline void load_span(__local uint *span_profile, __global const uint *profile, int letters, int m_pad, int p,
                      bool slotted, int index, int count)
{
    for (int k = index; k < letters * HALF_SPAN; k += count) {
        const int w = k % HALF_SPAN, l = k / HALF_SPAN;
        const int t = w / (ROWS / 2), r2 = w % (ROWS / 2);
        const uint word = profile[(size_t)l * (m_pad / 2) + p / 2 + w];
        if (slotted) {
            __local uint *at = span_profile + ((l * CHUNKS + r2 / 2) * REGIONS + t / 16) * 32 + (r2 & 1);
            for (int q = t % 16; q < 16; q += TEAM)
                at[2 * q] = word;
        } else {
            span_profile[l * STRIDE + t * ROW_WORDS + r2] = word;
        }
    }
}

/* Long groups (g >= first_long): one pair of long subjects, the group's first slot,
 * walked by STAGES teams at once, each on a pass of its own: team s takes passes s,
 * s + STAGES, ..., two blocks of BLOCK steps behind the team on the pass before, whose
 * last row it reads from the boundary row (written there at least a block earlier; a
 * barrier ends each block). A long pair's walk is then about STAGES times shorter, so
 * that it ends while the launch's other groups run instead of after them. A query of
 * one pass has nothing to walk at once: its long groups walk as the others, a pair a
 * team (the teams past the first on padding). BLOCK: longer blocks pay fewer
 * barriers (each with a global fence), shorter ones a shorter fill (2 STAGES blocks).
 *
 * Windows (g >= first_window): the long subjects again, cut into overlapping windows
 * in full groups (src/scan/windows.rs). A launch walks either the long groups or,
 * for queries short enough (window_skip >= 0, chosen by the host), the windows, from
 * column window_skip on; a window's end column counts from there. */
#define STAGES (TEAM < 32 ? 32 / TEAM : 1)
#define BLOCK 256

#if !PAIRS
__kernel void scan_team(
    __global const uint *profile,      /* per slot, [letter][m_pad/2]: rows 2k, 2k+1 of S(q, letter) as two shorts */
    const int m_pad,                   /* the profiles' rows: the slots' longest query rounded up to whole passes */
    const int letters,                 /* alphabet size + 1 (the padding code), + 1 in MODE (fill) */
    __global const uint *residues,     /* per group: word w of team s at [base + w*G + s]: 2 columns x 2 lanes */
    __global const uint *group_word,   /* per group: base word */
    __global const uint *lengths,      /* per team and lane: subject length */
    __global uint2 *boundary,          /* per group: column j of team s at [base + j*G + s]: (H, F) pairs */
    __global const ulong *group_cell,  /* per group: base boundary element; one more at the end */
    const ulong cell_origin,           /* group_cell of this launch's first group */
    const int first_group,
    const int gap_open,
    const int gap_extend,
    const int sat_limit,               /* a best above this may have wrapped */
    const uint lane_up,                /* 65536 (clsw_common.h: low_half) */
    __local uint2 *span_pairs,         /* [letter][SLOT_STRIDE] or [letter][STRIDE] words (TEAM_SLOTTED), with long
                                        * groups at least STAGES packed ones (declared in pairs: 8-byte aligned) */
    __global int *out_score,           /* per team and lane; CLSW_SATURATED: recompute wide */
    __global int *out_query_end,
    __global int *out_subject_end,
    __local uint *scratch,             /* 8 words per work-item (CLSW_NV: 6, 1 score only and local) */
    __global const int *slot_rows,     /* per slot: its query's rows rounded up to whole passes */
    const int slots,
    const ulong slot_cells,            /* boundary elements per slot */
    const int slot_entries,            /* outputs per slot */
    const int first_long,              /* the first long group (one pair, STAGES teams) */
    const int first_window,            /* the first group of windows (src/scan/windows.rs) */
    const int window_skip)             /* < 0: walk the long groups, not the windows; else walk
                                        * the windows, from this column on (even) */
{
    __local uint *span_profile = (__local uint *)span_pairs;
    const int lid = get_local_id(0);
    const int t = lid % TEAM;
    const int G = get_local_size(0) / TEAM;
    const int s = lid / TEAM;
    const int slot = get_group_id(0) % slots;
    /* This launch's group v, longest first: a launch of windows skips the long
     * groups (src/scan/layout.rs, GroupLayout::group). */
    const int v = first_group + (int)(get_num_groups(0) / slots - 1 - get_group_id(0) / slots);
    const int g = window_skip >= 0 && v >= first_long ? v + first_window - first_long : v;
    const bool long_group = g >= first_long && g < first_window && slot_rows[slot] > SPAN;
    /* Columns the group's walk leaves out: the start of each window. */
    const int skip = g >= first_window ? window_skip : 0;
    const int rows = slot_rows[slot];
    profile += (size_t)slot * letters * (m_pad / 2);
    boundary += slot * slot_cells;
    out_score += (size_t)slot * slot_entries;
    out_query_end += (size_t)slot * slot_entries;
    out_subject_end += (size_t)slot * slot_entries;
    /* The team whose pair this work-item walks: its own, or the long group's first. */
    const int slot_of_pair = long_group ? 0 : s;
    const int team = g * G + slot_of_pair;
    const int n0 = (int)lengths[2 * team], n1 = (int)lengths[2 * team + 1];
    /* Columns every team of the group walks: the group's longest subject, past the
     * skipped ones. */
    const int n = (int)((group_cell[g + 1] - group_cell[g]) / (ulong)G) - skip;
    __global const uint *res = residues + group_word[g] + (size_t)(skip / 2) * G + slot_of_pair;
    __global uint2 *bnd = boundary + (group_cell[g] - cell_origin) + slot_of_pair;
#if MODE == MODE_GLOBAL
    const lanes_t minus_oe = PACK2(-gap_open);
    const lanes_t minus_ext = PACK2(0);
#else
    const lanes_t minus_oe = PACK2(-(gap_open + gap_extend));
    const lanes_t minus_ext = PACK2(-gap_extend);
#endif
    /* The padding letter: the last, or in the other modes the one before the fill letter. */
    const uint pad_word = (uint)(letters - 1 - (MODE != MODE_LOCAL)) * 0x01010101u;
    /* Residue words of the group's columns (the last may end in padding). */
    const int words = (n + 1) / 2;
    /* The steps of a pass: TEAM - 1 more than the columns (the pipeline's fill and
     * drain), none for a group of empty subjects (it has no words to read); an even
     * number (the last, when extra, is past every subject's end). */
    const int steps = n > 0 ? (n + TEAM) & ~1 : 0;

    team_t st;
    st.up = lane_up;
#if LOCAL_ENDS
    st.best0 = (end_t){0, -1, -1};
    st.best1 = (end_t){0, -1, -1};
    end_t pair0 = st.best0, pair1 = st.best1;
#else
    st.best = PACK2(0);
    lanes_t pair = PACK2(0);
#endif
#if MODE
    /* The query's length follows the slots' rows; its padding rows are above it. */
    const int m = slot_rows[slots + slot];
    const int pad = rows - m;
    const int edge_m = clsw_left_edge(rows - 1, pad, gap_open, gap_extend);
    st.n0 = n0;
    st.n1 = n1;
    last_start(&st, false, edge_m, m);
    end_t pair0 = st.last0, pair1 = st.last1;
#else
    const int pad = 0;
#endif
    lanes_t ha[ROWS], hb[ROWS], e[ROWS];
    pass_start(&st, ha, e, minus_oe, t * ROWS, pad, gap_open, gap_extend);
    if (!long_group) {
        __local const uint *my_profile = span_profile + (TEAM_SLOTTED ? t / 16 * 32 + 2 * (lid % 16) : t * ROW_WORDS);
        for (int p = 0; p < rows; p += SPAN) {
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            load_span(span_profile, profile, letters, m_pad, p, TEAM_SLOTTED, lid, get_local_size(0));
            barrier(CLK_LOCAL_MEM_FENCE);
            pass_start(&st, ha, e, minus_oe, p + t * ROWS, pad, gap_open, gap_extend);
#if MODE
            last_start(&st, t == TEAM - 1 && p + SPAN >= rows, edge_m, m);
#endif
            const bool reads = p > 0 && t == 0;
            const bool writes = t == TEAM - 1 && p + SPAN < rows;
            walk_t w = walk_start(res, bnd, reads, t, n, words, G, pad_word, minus_oe);
            team_walk(&st, &w, ha, hb, e, steps, reads, writes, t, n, words, G, pad_word, p + t * ROWS, res, bnd,
                      my_profile, TEAM_SLOTTED, minus_oe, minus_ext, scratch);
        }
#if LOCAL_ENDS
        pair0 = st.best0;
        pair1 = st.best1;
#else
        pair = st.best;
#endif
#if MODE
        last_end(&st);
        pair0 = st.last0;
        pair1 = st.last1;
#endif
    } else {
        /* Team s < STAGES: virtual block v = tick - 2 s of round v / round_len, block
         * v % round_len of its pass; a round is at least 2 STAGES blocks, so that a
         * team's next pass starts two blocks behind the last team's. The teams past
         * STAGES have no pass; on NVIDIA they skip the walk (whole warps), elsewhere
         * every work-item takes every step, as the barriers (or sub-group shuffles) of
         * column_top need. */
        const int passes = rows / SPAN;
        const int blocks = (steps + BLOCK - 1) / BLOCK;
        const int round_len = max(blocks, 2 * STAGES);
        const int rounds = (passes + STAGES - 1) / STAGES;
        const int ticks = passes > 0 && blocks > 0 ? (rounds - 1) * round_len + blocks + 2 * (STAGES - 1) : 0;
        __local uint *stage_profile = span_profile + min(s, STAGES - 1) * letters * STRIDE;
        __local const uint *my_profile = stage_profile + t * ROW_WORDS;
#if CLSW_NV
        const bool walks = s < STAGES;
#else
        const bool walks = true;
#endif
        walk_t w = walk_start(res, bnd, false, t, n, words, G, pad_word, minus_oe);
        int p = 0;
        bool reads = false, writes = false;
        for (int tick = 0; tick < ticks; tick++) {
            const int v = tick - 2 * s;
            const int r = v >= 0 ? v / round_len : 0;
            const int b = v - r * round_len;
            const int pass = r * STAGES + s;
            const bool active = s < STAGES && v >= 0 && b < blocks && pass < passes;
            if (active && b == 0) {
                p = pass * SPAN;
                load_span(stage_profile, profile, letters, m_pad, p, false, t, TEAM);
                pass_start(&st, ha, e, minus_oe, p + t * ROWS, pad, gap_open, gap_extend);
#if LOCAL_ENDS
                st.best0 = (end_t){0, -1, -1};
                st.best1 = (end_t){0, -1, -1};
#else
                st.best = PACK2(0);
#endif
#if MODE
                last_start(&st, t == TEAM - 1 && p + SPAN >= rows, edge_m, m);
#endif
                reads = p > 0 && t == 0;
                writes = t == TEAM - 1 && p + SPAN < rows;
                w = walk_start(res, bnd, reads, t, n, words, G, pad_word, minus_oe);
            }
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            if (walks) {
                /* Every walking team takes BLOCK steps, so that every work-item of a
                 * warp (NVIDIA: the teams of the STAGES share one) or of the group
                 * takes the same steps: past a pass's last step they walk padding
                 * columns, which never pass the best, as a pass's drain does; idle
                 * teams read and write nothing, and what they fold is dropped at
                 * their next pass's start. */
                const int until = w.k + BLOCK;
                team_walk(&st, &w, ha, hb, e, until, reads && active, writes && active, t, n, words, G, pad_word,
                          p + t * ROWS, res, bnd, my_profile, false, minus_oe, minus_ext, scratch);
                if (!active) {
                    reads = writes = false;
                }
            }
            if (active && b == blocks - 1) {
#if LOCAL_ENDS
                pair0 = better_end(pair0, st.best0);
                pair1 = better_end(pair1, st.best1);
#else
                pair = vmax2(pair, st.best);
#endif
#if MODE
                if (st.holds_last) {
                    last_end(&st);
                    pair0 = st.last0;
                    pair1 = st.last1;
                }
#endif
            }
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
    }
    /* The pair's result, on the first work-item of its team (of the group, for a long
     * group: every team's passes folded). */
    const int folded = long_group ? STAGES * TEAM : TEAM;
    const int first = long_group ? 0 : lid - t;
#if MODE
    /* A lane whose cells passed the limit on any work-item wins the fold as saturated. */
    if (LO(pair) > sat_limit)
        pair0.score = INT_MAX;
    if (HI(pair) > sat_limit)
        pair1.score = INT_MAX;
#endif
#if ENDS || MODE
    barrier(CLK_LOCAL_MEM_FENCE);
    __local int *ends = (__local int *)scratch;
    ends[lid * 6 + 0] = pair0.score;
    ends[lid * 6 + 1] = pair0.i;
    ends[lid * 6 + 2] = pair0.j;
    ends[lid * 6 + 3] = pair1.score;
    ends[lid * 6 + 4] = pair1.i;
    ends[lid * 6 + 5] = pair1.j;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid != first)
        return;
    for (int w = lid + 1; w < lid + folded; w++) {
        const end_t e0 = {ends[w * 6 + 0], ends[w * 6 + 1], ends[w * 6 + 2]};
        const end_t e1 = {ends[w * 6 + 3], ends[w * 6 + 4], ends[w * 6 + 5]};
        pair0 = better_end(pair0, e0);
        pair1 = better_end(pair1, e1);
    }
#if MODE
    /* Glocal's column 0 (no subject residue aligned): no end cell. */
    if (pair0.j < 0)
        pair0.i = -1;
    if (pair1.j < 0)
        pair1.i = -1;
#endif
#if MODE == MODE_GLOBAL
    /* The shift of the last cell. */
    if (pair0.score != INT_MAX)
        pair0.score -= gap_extend * (m + n0);
    if (pair1.score != INT_MAX)
        pair1.score -= gap_extend * (m + n1);
#endif
    if (n0 > 0)
        write_result(out_score, out_query_end, out_subject_end, 2 * team, pair0, sat_limit);
    if (n1 > 0)
        write_result(out_score, out_query_end, out_subject_end, 2 * team + 1, pair1, sat_limit);
#else
    barrier(CLK_LOCAL_MEM_FENCE);
    scratch[lid] = packed(pair);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid != first)
        return;
    for (int w = lid + 1; w < lid + folded; w++)
        pair = vmax2(pair, lanes(scratch[w]));
    if (n0 > 0)
        write_score(out_score, out_query_end, out_subject_end, 2 * team, LO(pair), sat_limit);
    if (n1 > 0)
        write_score(out_score, out_query_end, out_subject_end, 2 * team + 1, HI(pair), sat_limit);
#endif
}

#endif

#if PAIRS
/* scan_team_pairs: scan_team with its two 16-bit lanes holding two queries, a and b,
 * against one subject per team, score only. psse aligns every query with the same
 * shuffles, so it can pair its queries. One letter x per column: the scores of a row
 * are one profile word, S(a_i, x) | S(b_i, x) << 16, where scan_team combines the
 * words of two letters (a PRMT per cell pair); a work-item loads them four rows at a
 * time (LDS.128). The recurrence, the pipeline of a team, the boundary row between
 * passes, the padding (columns, and rows past a query's end, score PAD_SCORE) and the
 * saturation rule are scan_team's.
 *
 * Layout: the residue words hold four columns of one subject (the LANES = 1 layout of
 * src/scan/layout.rs); team s of group g is entry g * G + s. A step loop turn is four
 * columns, taken from two residue words by one funnel shift. Output: query a's score
 * at 2 team, query b's at 2 team + 1 (the end cells are -1).
 *
 * Local profile: per letter PAIR_STRIDE words, each work-item's ROWS words from a
 * 16-byte boundary (PAIR_ROWS, ROWS rounded up to four). The host sizes the buffer as
 * letters x (TEAM x PAIR_ROWS + 4) words. */
#define PAIR_ROWS ((ROWS + 3) & ~3)
#define PAIR_STRIDE (TEAM * PAIR_ROWS + 4)

/* Column j = k - t of this work-item's rows, letter x; otherwise as team_column. */
inline void pairs_column(team_t *st, const lanes_t *h_in, lanes_t *h_new, lanes_t *e, uint2 b, bool writes, int j,
                         int t, int n, int jG, uint x, __global uint2 *bnd, __local const uint *my_profile,
                         lanes_t minus_oe, lanes_t minus_ext, __local uint *scratch)
{
    lanes_t h_top, f_top;
    column_top(st, b, j + t, t, scratch, &h_top, &f_top);
    __local const uint4 *p = (__local const uint4 *)(my_profile + x * PAIR_STRIDE);
    lanes_t diag = st->diag_top, f = f_top, best = st->best;
#pragma unroll
    for (int c = 0; c < PAIR_ROWS / 4; c++) {
        const uint4 w4 = p[c];
        const uint w[4] = {w4.x, w4.y, w4.z, w4.w};
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int r = 4 * c + u;
            if (r < ROWS) {
                const lanes_t hn = vmax2_relu(vaddmax2(r ? h_in[r - 1] : diag, lanes_up(w[u], st->up), e[r]), f);
                h_new[r] = hn;
                const lanes_t hoe = vadd2(hn, minus_oe);
                e[r] = vaddmax2(e[r], minus_ext, hoe);
                f = vaddmax2(f, minus_ext, hoe);
                best = vmax2(best, hn);
            }
        }
    }
    st->diag_top = h_top;
    st->h_out = h_new[ROWS - 1];
    st->f_out = f;
    st->best = best;
    if (writes && (uint)j < (uint)n)
        bnd[jG] = (uint2)(packed(st->h_out), packed(f));
}

__kernel void scan_team_pairs(
    __global const uint *profile,      /* [letter][m_pad]: S(a_i, letter) | S(b_i, letter) << 16 */
    const int m_pad,                   /* the longer query's rows rounded up to whole passes */
    const int letters,                 /* alphabet size + 1 (the padding code) */
    __global const uint *residues,     /* per group: word w of team s at [base + w*G + s]: 4 columns */
    __global const uint *group_word,   /* per group: base word */
    __global const uint *lengths,      /* per team: subject length */
    __global uint2 *boundary,          /* per group: column j of team s at [base + j*G + s]: (H, F) pairs */
    __global const ulong *group_cell,  /* per group: base boundary element; one more at the end */
    const ulong cell_origin,           /* group_cell of this launch's first group */
    const int first_group,
    const int gap_open,
    const int gap_extend,
    const int sat_limit,               /* a best above this may have wrapped */
    const uint lane_up,                /* 65536 (clsw_common.h: low_half) */
    __local uint4 *span_quads,         /* [letter][PAIR_STRIDE] words (declared in quads: 16-byte aligned) */
    __global int *out_score,           /* per team: a's at 2 team, b's at 2 team + 1; CLSW_SATURATED: saturated */
    __global int *out_query_end,
    __global int *out_subject_end,
    __local uint *scratch)             /* 8 words per work-item (1 with CLSW_NV) */
{
    __local uint *span_profile = (__local uint *)span_quads;
    const int lid = get_local_id(0);
    const int t = lid % TEAM;
    const int G = get_local_size(0) / TEAM;
    const int s = lid / TEAM;
    const int g = first_group + (int)(get_num_groups(0) - 1 - get_group_id(0));
    const int team = g * G + s;
    const int length = (int)lengths[team];
    /* Columns every team of the group walks: the group's longest subject. */
    const int n = (int)((group_cell[g + 1] - group_cell[g]) / (ulong)G);
    __global const uint *res = residues + group_word[g] + s;
    __global uint2 *bnd = boundary + (group_cell[g] - cell_origin) + s;
    const lanes_t minus_oe = PACK2(-(gap_open + gap_extend));
    const lanes_t minus_ext = PACK2(-gap_extend);
    const uint pad_word = (uint)(letters - 1) * 0x01010101u;
    const int words = (n + 3) / 4;
    /* The steps of a pass, TEAM - 1 more than the columns, in whole turns of four;
     * none for a group of empty subjects. */
    const int steps = n > 0 ? (n + TEAM + 2) & ~3 : 0;
    __local const uint *my_profile = span_profile + t * PAIR_ROWS;

    team_t st;
    st.up = lane_up;
    st.best = PACK2(0);
    for (int p = 0; p < m_pad; p += SPAN) {
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        for (int k = lid; k < letters * SPAN; k += get_local_size(0)) {
            const int w = k % SPAN;
            span_profile[(k / SPAN) * PAIR_STRIDE + w / ROWS * PAIR_ROWS + w % ROWS] =
                profile[(size_t)(k / SPAN) * m_pad + p + w];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        lanes_t ha[ROWS], hb[ROWS], e[ROWS];
        pass_start(&st, ha, e, minus_oe, 0, 0, 0, 0);
        const bool reads = p > 0 && t == 0;
        const bool writes = t == TEAM - 1 && p + SPAN < m_pad;
        /* A turn is columns j = k - t .. k - t + 3 (k a multiple of four): from byte
         * (-t) mod 4 of residue word a = floor((k - t) / 4) on, one funnel shift of
         * words a and a + 1. Words and boundary cells are loaded a turn ahead. */
        const uint shift = ((4 - (t & 3)) & 3) * 8;
        int a = -((t + 3) >> 2);
        uint cur = n > 0 ? team_word(res, a, words, G, pad_word) : pad_word;
        uint next = n > 0 ? team_word(res, a + 1, words, G, pad_word) : pad_word;
        uint2 b0 = team_boundary(bnd, reads, 0, 0, n, minus_oe), b1 = team_boundary(bnd, reads, 1, G, n, minus_oe);
        uint2 b2 = team_boundary(bnd, reads, 2, 2 * G, n, minus_oe), b3 = team_boundary(bnd, reads, 3, 3 * G, n, minus_oe);
        int kG = 0, jG = -t * G;
        for (int k = 0; k < steps; k += 4, a++, kG += 4 * G, jG += 4 * G) {
            const uint ahead = team_word(res, a + 2, words, G, pad_word);
            const uint2 c0 = team_boundary(bnd, reads, k + 4, kG + 4 * G, n, minus_oe);
            const uint2 c1 = team_boundary(bnd, reads, k + 5, kG + 5 * G, n, minus_oe);
            const uint2 c2 = team_boundary(bnd, reads, k + 6, kG + 6 * G, n, minus_oe);
            const uint2 c3 = team_boundary(bnd, reads, k + 7, kG + 7 * G, n, minus_oe);
            const uint four = funnel_right(cur, next, shift);
            pairs_column(&st, ha, hb, e, b0, writes, k - t, t, n, jG, four & 0xffu, bnd, my_profile, minus_oe,
                         minus_ext, scratch);
            pairs_column(&st, hb, ha, e, b1, writes, k + 1 - t, t, n, jG + G, (four >> 8) & 0xffu, bnd, my_profile,
                         minus_oe, minus_ext, scratch);
            pairs_column(&st, ha, hb, e, b2, writes, k + 2 - t, t, n, jG + 2 * G, (four >> 16) & 0xffu, bnd,
                         my_profile, minus_oe, minus_ext, scratch);
            pairs_column(&st, hb, ha, e, b3, writes, k + 3 - t, t, n, jG + 3 * G, four >> 24, bnd, my_profile,
                         minus_oe, minus_ext, scratch);
            cur = next;
            next = ahead;
            b0 = c0;
            b1 = c1;
            b2 = c2;
            b3 = c3;
        }
    }
    const lanes_t best = team_best(st.best, lid, t, scratch);
    if (t == 0 && length > 0) {
        write_score(out_score, out_query_end, out_subject_end, 2 * team, LO(best), sat_limit);
        write_score(out_score, out_query_end, out_subject_end, 2 * team + 1, HI(best), sat_limit);
    }
}
#endif

/* layout_words: the words of a subjects' layout (src/scan/layout.rs: GroupLayout, whose
 * `words` is this kernel's host twin), made on the device from the residues as they are
 * stored, which the host wrote here while it arranged the layout.
 *
 * One work-group a group of the layout; its work-items take the group's words in turn.
 * Word w of the group (row w / G, slot w % G, G slots) holds 4 codes: 4 columns of the
 * slot's subject (LANES 1), or 2 columns of both of its lanes, column-major and
 * lane-minor (LANES 2). A lane's column c is the residue at from[e] + c, or the padding
 * code below lead[e] (a window's columns before its subject's start) and from the
 * lane's length on (past its subject's end, and empty lanes).
 */

__kernel void layout_words(
    __global const uchar *residues,   /* as stored: a database's range, or subjects back to back */
    __global const long *from,        /* per slot lane (slot * LANES + lane) */
    __global const uint *lead,        /* per slot lane */
    __global const uint *lengths,     /* per slot lane: its columns */
    __global const uint *group_word,  /* per group: its first word */
    const uint groups,
    const uint word_count,
    const uint group_size,            /* G */
    const uint lanes,                 /* LANES: 1 or 2 */
    const uint pad,                   /* the padding code */
    __global uint *words)
{
    const uint g = get_group_id(0);
    if (g >= groups)
        return;
    const ulong base = group_word[g];
    const ulong end = g + 1 < groups ? group_word[g + 1] : word_count;
    const uint cols = 4 / lanes;
    /* 64-bit: the last group may end at 2^32 - 1 words. */
    for (ulong w = base + get_local_id(0); w < end; w += get_local_size(0)) {
        const uint row = (uint)((w - base) / group_size), slot = (uint)((w - base) % group_size);
        uint word = 0;
        for (uint c = 0; c < 4; c++) {
            const uint lane = lanes == 2 ? (c & 1) : 0;
            const uint col = row * cols + (lanes == 2 ? c >> 1 : c);
            const size_t e = ((size_t)g * group_size + slot) * lanes + lane;
            uint code = pad;
            if (col < lengths[e] && col >= lead[e])
                code = residues[from[e] + (long)col];
            word |= code << (8 * c);
        }
        words[w] = word;
    }
}

#include <clsw.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    const char *a = "HEAGAWGHEE", *b = "PAWHEAE";
    clsw_scoring *sc = NULL; clsw_alignment *aln = NULL; clsw_alignment_info info = {.size = sizeof info};
    if (clsw_scoring_new_builtin("BLOSUM62", 11, 1, &sc) || clsw_align(sc, (const uint8_t *)a, strlen(a),
            (const uint8_t *)b, strlen(b), &aln) || clsw_alignment_get(aln, &info))
        return fprintf(stderr, "clsw: %s\n", clsw_last_error()), 1;
    printf("clsw %s: score %d, query %zu-%zu, subject %zu-%zu, CIGAR %s\n", clsw_version(), info.score,
           info.query_start, info.query_end, info.subject_start, info.subject_end, info.cigar);
    clsw_alignment_free(aln), clsw_scoring_free(sc);
    return 0;
}

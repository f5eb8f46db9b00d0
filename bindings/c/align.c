/*
 * align: the optimal local alignment of two sequences, with traceback.
 *
 *   align SEQUENCE_A SEQUENCE_B [MATRIX [GAP_OPEN GAP_EXTEND]]
 *
 * The sequences are residue letters on the command line (protein by default; give
 * EDNAFULL as the matrix for DNA). Prints the score, the 1-based coordinates, the
 * identity, the CIGAR strings and the alignment itself.
 *
 * Build: cc align.c $(pkg-config --cflags --libs clsw) -Wl,-rpath,$(pkg-config --variable=libdir clsw) -o align
 */
#include <clsw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4 && argc != 6) {
        fprintf(stderr, "usage: align SEQUENCE_A SEQUENCE_B [MATRIX [GAP_OPEN GAP_EXTEND]]\n");
        return 2;
    }
    const char *matrix = argc >= 4 ? argv[3] : "BLOSUM62";
    int open = argc == 6 ? atoi(argv[4]) : CLSW_GAPS_DEFAULT;
    int extend = argc == 6 ? atoi(argv[5]) : CLSW_GAPS_DEFAULT;

    clsw_scoring *scoring = NULL;
    clsw_alignment *alignment = NULL;
    clsw_status st = clsw_scoring_new_builtin(matrix, open, extend, &scoring);
    if (st == CLSW_OK) {
        st = clsw_align(scoring, (const uint8_t *)argv[1], strlen(argv[1]), (const uint8_t *)argv[2],
                        strlen(argv[2]), &alignment);
    }
    clsw_alignment_info a = {.size = sizeof a};
    if (st == CLSW_OK) st = clsw_alignment_get(alignment, &a);
    if (st != CLSW_OK) {
        fprintf(stderr, "align: %s\n  %s\n", clsw_status_str(st), clsw_last_error());
        clsw_scoring_free(scoring);
        return 1;
    }
    printf("score\t%d\n", a.score);
    printf("query\t%zu\t%zu\n", a.query_start, a.query_end);
    printf("subject\t%zu\t%zu\n", a.subject_start, a.subject_end);
    printf("identity\t%zu/%zu\t%.2f\n", a.identities, a.length, a.percent_identity);
    printf("gaps\t%zu opened\t%zu columns\n", a.gap_opens, a.gap_columns);
    printf("cigar\t%s\t%s\n", a.cigar, a.cigar_m);
    printf("\n%s\n%s\n%s\n", a.query_row, a.midline, a.subject_row);
    clsw_alignment_free(alignment);
    clsw_scoring_free(scoring);
    return 0;
}

/*
 * search: database search from C with clsw, printing BLAST tabular lines.
 *
 *   search DB.fasta QUERIES.fasta [MATRIX [GAP_OPEN GAP_EXTEND]]
 *
 * Every query of QUERIES.fasta is searched against DB.fasta (both plain or gzip FASTA;
 * protein or DNA, guessed from DB.fasta unless a matrix says). The output is what
 * `clsw scan --outfmt tabular` prints: qseqid sseqid pident length mismatch gapopen
 * qstart qend sstart send evalue bitscore. The devices: CLSW_DEVICE, else "auto".
 *
 * Build: cc search.c $(pkg-config --cflags --libs clsw) -Wl,-rpath,$(pkg-config --variable=libdir clsw) -o search
 */
#include <clsw.h>
#include <stdio.h>
#include <stdlib.h>

/* Prints the failed call's status and message and exits. */
static void check(clsw_status st, const char *what) {
    if (st != CLSW_OK) {
        fprintf(stderr, "search: %s: %s\n  %s\n", what, clsw_status_str(st), clsw_last_error());
        exit(1);
    }
}

/* Calls a text getter with a buffer that grows when clsw says it is too small. */
typedef clsw_status (*getter)(const clsw_db *, size_t, char *, size_t, size_t *);
static char *get_text(getter get, const clsw_db *db, size_t k, char **buf, size_t *cap) {
    size_t needed = 0;
    clsw_status st = get(db, k, *buf, *cap, &needed);
    if (st == CLSW_ERR_BUFFER_TOO_SMALL) {
        *cap = needed;
        *buf = realloc(*buf, *cap);
        if (!*buf) exit(2);
        st = get(db, k, *buf, *cap, &needed);
    }
    check(st, "reading a query");
    return *buf;
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4 && argc != 6) {
        fprintf(stderr, "usage: search DB.fasta QUERIES.fasta [MATRIX [GAP_OPEN GAP_EXTEND]]\n");
        return 2;
    }
    clsw_engine *engine = NULL;
    clsw_scoring *scoring = NULL;
    clsw_db *db = NULL, *queries = NULL;
    clsw_searcher *searcher = NULL;

    check(clsw_engine_new(NULL, &engine), "opening the devices");
    char devices[1024];
    check(clsw_engine_describe(engine, devices, sizeof devices, NULL), "describing the devices");
    fprintf(stderr, "clsw %s on %s\n", clsw_version(), devices);

    clsw_alphabet alphabet = CLSW_ALPHABET_AUTO;
    if (argc >= 4) {
        int open = argc == 6 ? atoi(argv[4]) : CLSW_GAPS_DEFAULT;
        int extend = argc == 6 ? atoi(argv[5]) : CLSW_GAPS_DEFAULT;
        check(clsw_scoring_new_builtin(argv[3], open, extend, &scoring), "choosing the matrix");
        check(clsw_scoring_alphabet(scoring, &alphabet), "reading the alphabet");
    }
    check(clsw_db_new_fasta(argv[1], alphabet, &db), "reading the database");
    check(clsw_db_alphabet(db, &alphabet), "reading the alphabet");
    if (!scoring) {
        const char *matrix = alphabet == CLSW_ALPHABET_DNA ? "EDNAFULL" : "BLOSUM62";
        check(clsw_scoring_new_builtin(matrix, CLSW_GAPS_DEFAULT, CLSW_GAPS_DEFAULT, &scoring), "matrix");
    }
    check(clsw_db_new_fasta(argv[2], alphabet, &queries), "reading the queries");

    /* The database goes to the devices once, here, for every query. */
    clsw_search_options options;
    check(clsw_search_options_init(&options, sizeof options), "options");
    options.max_hits = 50;
    options.evalue = 10.0;
    check(clsw_searcher_new(engine, scoring, db, &options, &searcher), "preparing the search");

    size_t nq = 0, id_cap = 64, seq_cap = 1024, line_cap = 256;
    char *id = malloc(id_cap), *seq = malloc(seq_cap), *line = malloc(line_cap);
    check(clsw_db_count(queries, &nq), "counting the queries");
    for (size_t q = 0; q < nq; q++) {
        get_text(clsw_db_id, queries, q, &id, &id_cap);
        get_text(clsw_db_sequence, queries, q, &seq, &seq_cap);
        size_t len = 0;
        check(clsw_db_length(queries, q, &len), "query length");

        clsw_hits *hits = NULL;
        check(clsw_searcher_search(searcher, id, (const uint8_t *)seq, len, &hits), "searching");
        size_t n = 0;
        check(clsw_hits_count(hits, &n), "counting hits");
        for (size_t i = 0; i < n; i++) {
            size_t needed = 0;
            clsw_status st = clsw_hits_tabular(hits, i, 0, line, line_cap, &needed);
            if (st == CLSW_ERR_BUFFER_TOO_SMALL) {
                line_cap = needed;
                line = realloc(line, line_cap);
                if (!line) return 2;
                st = clsw_hits_tabular(hits, i, 0, line, line_cap, &needed);
            }
            check(st, "formatting a hit");
            puts(line);
        }
        clsw_hits_free(hits);
    }
    free(id);
    free(seq);
    free(line);
    clsw_searcher_free(searcher);
    clsw_db_free(queries);
    clsw_db_free(db);
    clsw_scoring_free(scoring);
    clsw_engine_free(engine);
    return 0;
}

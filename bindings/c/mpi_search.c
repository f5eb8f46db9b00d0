/*
 * mpi_search: database search from a C program that runs MPI, with clsw sharing the
 * database among the ranks; rank 0 prints BLAST tabular lines.
 *
 *   mpirun -n N mpi_search DB.fasta QUERIES.fasta
 *
 * Every rank reads the same files and calls the same clsw functions; each searches
 * its share of DB.fasta on its own devices (CLSW_DEVICE, else "auto"; "rank-gpu" gives
 * each rank of a host its own GPU). The output is what `clsw scan --outfmt tabular`
 * prints as one process. clsw.h needs no mpi.h: the communicator goes in as its
 * Fortran handle (MPI_Comm_c2f), and clsw works on a duplicate of it.
 *
 * Build (clsw built with the cargo feature `mpi`):
 *   mpicc mpi_search.c $(pkg-config --cflags --libs clsw) -Wl,-rpath,$(pkg-config --variable=libdir clsw) -o mpi_search
 */
#include <clsw.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank = 0;

/* Prints the failed call's status and message and ends the job. clsw's collective
 * calls fail on every rank together (CLSW_ERR_RANK names the failing one); a failure of
 * this rank alone (formatting a hit) must not leave the others waiting: MPI_Abort. */
static void check(clsw_status st, const char *what) {
    if (st != CLSW_OK) {
        if (rank == 0 || st != CLSW_ERR_RANK)
            fprintf(stderr, "mpi_search: rank %d: %s: %s\n  %s\n", rank, what, clsw_status_str(st), clsw_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Calls a text getter with a buffer that grows when clsw says it is too small. */
static char *get_text(clsw_status (*get)(const clsw_db *, size_t, char *, size_t, size_t *), const clsw_db *db,
                      size_t k, char **buf, size_t *cap) {
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
    /* SERIALIZED lets clsw's threads call MPI (one at a time) to deal native ranks
       chunks of the database; with less, the ranks take fixed shares. */
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -n N mpi_search DB.fasta QUERIES.fasta\n");
        MPI_Finalize();
        return 2;
    }
    clsw_engine *engine = NULL;
    clsw_scoring *scoring = NULL;
    clsw_db *db = NULL, *queries = NULL;
    clsw_searcher *searcher = NULL;
    clsw_alphabet alphabet = CLSW_ALPHABET_AUTO;

    check(clsw_engine_new(NULL, &engine), "opening the devices");
    check(clsw_db_new_fasta(argv[1], alphabet, &db), "reading the database");
    check(clsw_db_alphabet(db, &alphabet), "reading the alphabet");
    const char *matrix = alphabet == CLSW_ALPHABET_DNA ? "EDNAFULL" : "BLOSUM62";
    check(clsw_scoring_new_builtin(matrix, CLSW_GAPS_DEFAULT, CLSW_GAPS_DEFAULT, &scoring), "matrix");
    check(clsw_db_new_fasta(argv[2], alphabet, &queries), "reading the queries");

    /* Collective: the ranks check that they read the same database, measure their
     * devices and lay out their shares. */
    check(clsw_searcher_new_mpi(engine, scoring, db, NULL, MPI_Comm_c2f(MPI_COMM_WORLD), &searcher),
          "preparing the search");

    size_t nq = 0, id_cap = 64, seq_cap = 1024, line_cap = 256;
    char *id = malloc(id_cap), *seq = malloc(seq_cap), *line = malloc(line_cap);
    check(clsw_db_count(queries, &nq), "counting the queries");
    for (size_t q = 0; q < nq; q++) {
        get_text(clsw_db_id, queries, q, &id, &id_cap);
        get_text(clsw_db_sequence, queries, q, &seq, &seq_cap);
        size_t len = 0;
        check(clsw_db_length(queries, q, &len), "query length");

        /* Collective too: rank 0 receives the hits, the other ranks NULL. */
        clsw_hits *hits = NULL;
        check(clsw_searcher_search(searcher, id, (const uint8_t *)seq, len, &hits), "searching");
        if (!hits) continue;
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
    MPI_Finalize();
    return 0;
}

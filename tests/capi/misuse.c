/*
 * Misuse of the C API must give a status and a message, never a crash.
 *
 *   misuse CHECK SCRATCH_DIR
 *
 * Runs one named check (tests/scan_capi.rs runs each as its own test) and prints one
 * line per expectation; exits 1 at the first call that returns another status than
 * expected or whose clsw_last_error() lacks the expected words.
 */
#include <clsw.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>

static int failures = 0;

/* The call must return `want` and clsw_last_error() must contain `words`. */
#define EXPECT(call, want, words) expect((call), (want), (words), #call, __LINE__)
static void expect(clsw_status got, clsw_status want, const char *words, const char *text, int line) {
    const char *msg = clsw_last_error();
    if (msg == NULL) {
        printf("FAIL line %d: %s: clsw_last_error() is NULL\n", line, text);
        exit(1);
    }
    if (got != want || (words && !strstr(msg, words))) {
        printf("FAIL line %d: %s\n  status %d (%s), wanted %d (%s)\n  message: \"%s\"\n  wanted words: \"%s\"\n",
               line, text, got, clsw_status_str(got), want, clsw_status_str(want), msg, words ? words : "");
        exit(1);
    }
    printf("ok %s -> %s: %s\n", text, clsw_status_str(got), msg);
}

#define REQUIRE(cond)                                                                                              \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            printf("FAIL line %d: %s\n", __LINE__, #cond);                                                         \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

static const char *PROTEINS[] = {"MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQT",
                                 "MSDNGPQNQRNAPRITFGGPSDSTGSNQNGERSGARSKQRRPQGLPNNTASWFTALTQHGKEDLKFPRGQGVPINTNSSPDDQ",
                                 "MKVLAAGIVGLLLAGCSSHKEESKPATEAAPAAEAPAAEAPAAEAPAAEA"};
static const char *NAMES[] = {"p1 first protein", "p2", "p3 third"};

typedef struct {
    clsw_engine *engine;
    clsw_scoring *scoring;
    clsw_db *db;
    clsw_searcher *searcher;
    clsw_hits *hits;
} fixture;

static fixture setup(void) {
    fixture f = {0};
    const uint8_t *seqs[3];
    size_t lens[3];
    for (int i = 0; i < 3; i++) {
        seqs[i] = (const uint8_t *)PROTEINS[i];
        lens[i] = strlen(PROTEINS[i]);
    }
    EXPECT(clsw_engine_new("reference", &f.engine), CLSW_OK, "");
    EXPECT(clsw_scoring_new_builtin("BLOSUM62", 11, 1, &f.scoring), CLSW_OK, "");
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 3, seqs, lens, NAMES, &f.db), CLSW_OK, "");
    EXPECT(clsw_searcher_new(f.engine, f.scoring, f.db, NULL, &f.searcher), CLSW_OK, "");
    EXPECT(clsw_searcher_search(f.searcher, "q", (const uint8_t *)PROTEINS[0], strlen(PROTEINS[0]), &f.hits),
           CLSW_OK, "");
    return f;
}

static void teardown(fixture *f) {
    clsw_hits_free(f->hits);
    clsw_searcher_free(f->searcher);
    clsw_db_free(f->db);
    clsw_scoring_free(f->scoring);
    clsw_engine_free(f->engine);
}

static void write_file(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp != NULL);
    fputs(text, fp);
    fclose(fp);
}

/* NULL handles: each call says which argument was NULL. */
static void null_handles(fixture *f, const char *dir) {
    (void)dir;
    size_t n = 0;
    int32_t scores[3];
    clsw_hits *hits = NULL;
    clsw_searcher *s = NULL;
    clsw_alignment *a = NULL;
    clsw_alignment_info info = {.size = sizeof info};
    char buf[64];
    const uint8_t *q = (const uint8_t *)"MKTAYIAKQR";
    EXPECT(clsw_engine_device_count(NULL, &n), CLSW_ERR_NULL, "engine is NULL");
    EXPECT(clsw_engine_describe(NULL, buf, sizeof buf, NULL), CLSW_ERR_NULL, "engine is NULL");
    EXPECT(clsw_searcher_new(NULL, f->scoring, f->db, NULL, &s), CLSW_ERR_NULL, "engine is NULL");
    EXPECT(clsw_searcher_new(f->engine, NULL, f->db, NULL, &s), CLSW_ERR_NULL, "scoring is NULL");
    EXPECT(clsw_searcher_new(f->engine, f->scoring, NULL, NULL, &s), CLSW_ERR_NULL, "db is NULL");
    REQUIRE(s == NULL);
    EXPECT(clsw_searcher_search(NULL, "q", q, 10, &hits), CLSW_ERR_NULL, "searcher is NULL");
    EXPECT(clsw_searcher_scores(NULL, q, 10, scores, 3), CLSW_ERR_NULL, "searcher is NULL");
    EXPECT(clsw_hits_count(NULL, &n), CLSW_ERR_NULL, "hits is NULL");
    EXPECT(clsw_hits_tabular(NULL, 0, 0, buf, sizeof buf, NULL), CLSW_ERR_NULL, "hits is NULL");
    EXPECT(clsw_db_count(NULL, &n), CLSW_ERR_NULL, "db is NULL");
    EXPECT(clsw_db_id(NULL, 0, buf, sizeof buf, NULL), CLSW_ERR_NULL, "db is NULL");
    EXPECT(clsw_scoring_alphabet(NULL, NULL), CLSW_ERR_NULL, "scoring is NULL");
    EXPECT(clsw_align(NULL, q, 10, q, 10, &a), CLSW_ERR_NULL, "scoring is NULL");
    EXPECT(clsw_alignment_get(NULL, &info), CLSW_ERR_NULL, "alignment is NULL");
    /* NULL inputs */
    clsw_scoring *sc = (clsw_scoring *)&n; /* garbage in, NULL out */
    EXPECT(clsw_scoring_new_builtin(NULL, 11, 1, &sc), CLSW_ERR_NULL, "matrix");
    REQUIRE(sc == NULL); /* an output handle is NULL after a failure */
    clsw_db *db = (clsw_db *)&n;
    EXPECT(clsw_db_new_fasta(NULL, CLSW_ALPHABET_AUTO, &db), CLSW_ERR_NULL, "path");
    REQUIRE(db == NULL);
    EXPECT(clsw_searcher_search(f->searcher, "q", NULL, 10, &hits), CLSW_ERR_NULL, "query (with length 10) is NULL");
    EXPECT(clsw_align_score(NULL, q, 10, q, 10, NULL), CLSW_ERR_NULL, "score is NULL");
    size_t lens[2] = {3, 3};
    const uint8_t *seqs[2] = {(const uint8_t *)"MKV", NULL};
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 2, NULL, lens, NULL, &db), CLSW_ERR_NULL, "sequences");
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 2, seqs, NULL, NULL, &db), CLSW_ERR_NULL, "lengths");
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 2, seqs, lens, NULL, &db), CLSW_ERR_NULL, "sequences[1]");
}

/* NULL outputs. */
static void null_outputs(fixture *f, const char *dir) {
    (void)dir;
    const uint8_t *q = (const uint8_t *)"MKTAYIAKQR";
    EXPECT(clsw_engine_new("reference", NULL), CLSW_ERR_NULL, "out");
    EXPECT(clsw_scoring_new_builtin("BLOSUM62", 11, 1, NULL), CLSW_ERR_NULL, "out");
    EXPECT(clsw_db_count(f->db, NULL), CLSW_ERR_NULL, "out is NULL");
    EXPECT(clsw_device_count(NULL), CLSW_ERR_NULL, "out is NULL");
    EXPECT(clsw_device_get(0, NULL), CLSW_ERR_NULL, "out");
    EXPECT(clsw_searcher_new(f->engine, f->scoring, f->db, NULL, NULL), CLSW_ERR_NULL, "out");
    EXPECT(clsw_searcher_search(f->searcher, "q", q, 10, NULL), CLSW_ERR_NULL, "out");
    EXPECT(clsw_searcher_scores(f->searcher, q, 10, NULL, 3), CLSW_ERR_NULL, "scores");
    EXPECT(clsw_searcher_search_many(f->searcher, 1, NULL, &q, NULL, NULL), CLSW_ERR_NULL, "out");
    EXPECT(clsw_hits_get(f->hits, 0, NULL), CLSW_ERR_NULL, "out");
    EXPECT(clsw_hits_info(f->hits, NULL), CLSW_ERR_NULL, "out");
    EXPECT(clsw_hits_tabular(f->hits, 0, 0, NULL, 100, NULL), CLSW_ERR_NULL, "buffer");
    EXPECT(clsw_align(f->scoring, q, 10, q, 10, NULL), CLSW_ERR_NULL, "out");
    EXPECT(clsw_search_options_init(NULL, sizeof(clsw_search_options)), CLSW_ERR_NULL, "options");
    /* Optional outputs may be NULL. */
    EXPECT(clsw_scoring_gaps(f->scoring, NULL, NULL), CLSW_OK, "");
    char buf[16];
    EXPECT(clsw_db_id(f->db, 0, buf, sizeof buf, NULL), CLSW_OK, "");
    REQUIRE(strcmp(buf, "p1") == 0);
}

/* Zero lengths: empty sequences and counts are refused, a zero-length buffer is too small. */
static void zero_lengths(fixture *f, const char *dir) {
    (void)dir;
    const uint8_t *q = (const uint8_t *)"MKTAYIAKQR";
    clsw_hits *hits = NULL;
    clsw_alignment *a = NULL;
    clsw_db *db = NULL;
    int32_t score = 0;
    EXPECT(clsw_searcher_search(f->searcher, "q", q, 0, &hits), CLSW_ERR_INVALID_ARGUMENT, "empty");
    EXPECT(clsw_searcher_search(f->searcher, "q", NULL, 0, &hits), CLSW_ERR_INVALID_ARGUMENT, "empty");
    EXPECT(clsw_align(f->scoring, q, 0, q, 10, &a), CLSW_ERR_INVALID_ARGUMENT, "query is empty");
    EXPECT(clsw_align_score(f->scoring, q, 10, NULL, 0, &score), CLSW_ERR_INVALID_ARGUMENT, "subject is empty");
    size_t lens[2] = {10, 0};
    const uint8_t *seqs[2] = {q, NULL};
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 0, seqs, lens, NULL, &db), CLSW_ERR_INVALID_ARGUMENT,
           "count is 0");
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 2, seqs, lens, NULL, &db), CLSW_ERR_INVALID_ARGUMENT,
           "sequences[1] ('2') is empty");
    int32_t scores[3];
    EXPECT(clsw_searcher_scores(f->searcher, q, 10, scores, 0), CLSW_ERR_BUFFER_TOO_SMALL, "3 sequences");
    EXPECT(clsw_searcher_scores(f->searcher, q, 10, scores, 2), CLSW_ERR_BUFFER_TOO_SMALL, "holds 2");
    EXPECT(clsw_searcher_scores(f->searcher, q, 0, scores, 3), CLSW_ERR_INVALID_ARGUMENT, "empty");
    EXPECT(clsw_searcher_search_many(f->searcher, 0, NULL, NULL, NULL, &hits), CLSW_ERR_INVALID_ARGUMENT, "count is 0");
    size_t needed = 0;
    EXPECT(clsw_db_id(f->db, 0, NULL, 0, &needed), CLSW_ERR_BUFFER_TOO_SMALL, "3 are needed");
    REQUIRE(needed == 3);
    clsw_engine *e = NULL;
    EXPECT(clsw_engine_new("", &e), CLSW_ERR_INVALID_ARGUMENT, "empty");
    REQUIRE(e == NULL);
}

/* A handle freed and set to NULL: every later use is CLSW_ERR_NULL; freeing NULL is harmless. */
static void freed_then_null(fixture *f, const char *dir) {
    (void)dir;
    const uint8_t *q = (const uint8_t *)"MKTAYIAKQR";
    size_t n = 0;
    /* The searcher keeps the engine, scoring and database alive: free them first. */
    clsw_engine_free(f->engine);
    f->engine = NULL;
    clsw_scoring_free(f->scoring);
    f->scoring = NULL;
    clsw_db_free(f->db);
    f->db = NULL;
    clsw_hits *hits = NULL;
    EXPECT(clsw_searcher_search(f->searcher, "q", q, 10, &hits), CLSW_OK, "");
    EXPECT(clsw_hits_count(hits, &n), CLSW_OK, "");
    REQUIRE(n > 0);
    /* Hits outlive their searcher. */
    clsw_searcher_free(f->searcher);
    f->searcher = NULL;
    clsw_hit h = {.size = sizeof h};
    EXPECT(clsw_hits_get(hits, 0, &h), CLSW_OK, "");
    REQUIRE(strcmp(h.subject_id, "p1") == 0 && h.score > 0);
    clsw_hits_free(hits);
    hits = NULL;
    EXPECT(clsw_hits_count(hits, &n), CLSW_ERR_NULL, "hits is NULL");
    EXPECT(clsw_searcher_search(f->searcher, "q", q, 10, &hits), CLSW_ERR_NULL, "searcher is NULL");
    EXPECT(clsw_db_count(f->db, &n), CLSW_ERR_NULL, "db is NULL");
    EXPECT(clsw_engine_device_count(f->engine, &n), CLSW_ERR_NULL, "engine is NULL");
    clsw_hits_free(NULL);
    clsw_searcher_free(NULL);
    clsw_db_free(NULL);
    clsw_scoring_free(NULL);
    clsw_engine_free(NULL);
    clsw_alignment_free(NULL);
    printf("ok frees of NULL\n");
}

/* Letters that are not residues: the message names the byte and its 1-based position. */
static void invalid_residues(fixture *f, const char *dir) {
    (void)dir;
    clsw_hits *hits = NULL;
    clsw_alignment *a = NULL;
    clsw_db *db = NULL;
    clsw_scoring *dna = NULL;
    int32_t scores[3];
    EXPECT(clsw_searcher_search(f->searcher, "q7", (const uint8_t *)"MKV1L", 5, &hits), CLSW_ERR_INVALID_ARGUMENT,
           "'1' at position 4 is not a protein residue letter");
    REQUIRE(hits == NULL);
    EXPECT(clsw_searcher_scores(f->searcher, (const uint8_t *)"MK-L", 4, scores, 3), CLSW_ERR_INVALID_ARGUMENT,
           "'-' at position 3");
    EXPECT(clsw_searcher_search(f->searcher, "q", (const uint8_t *)"MK\xffL", 4, &hits), CLSW_ERR_INVALID_ARGUMENT,
           "byte \\xFF at position 3");
    EXPECT(clsw_searcher_search(f->searcher, "q", (const uint8_t *)"MK\0L", 4, &hits), CLSW_ERR_INVALID_ARGUMENT,
           "byte \\x00 at position 3");
    EXPECT(clsw_scoring_new_builtin("EDNAFULL", CLSW_GAPS_DEFAULT, CLSW_GAPS_DEFAULT, &dna), CLSW_OK, "");
    EXPECT(clsw_align(dna, (const uint8_t *)"ACGTACGT", 8, (const uint8_t *)"ACGEACGT", 8, &a),
           CLSW_ERR_INVALID_ARGUMENT, "subject: 'E' at position 4 is not a dna residue letter");
    const uint8_t *seqs[2] = {(const uint8_t *)"MKVL", (const uint8_t *)"MK VL"};
    size_t lens[2] = {4, 5};
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 2, seqs, lens, NAMES, &db), CLSW_ERR_INVALID_ARGUMENT,
           "sequences[1] ('p2'): a space at position 3");
    const char *bad_names[2] = {"ok", "\xff\xfe"};
    const uint8_t *good[2] = {(const uint8_t *)"MKVL", (const uint8_t *)"MKVL"};
    size_t glens[2] = {4, 4};
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 2, good, glens, bad_names, &db), CLSW_ERR_INVALID_ARGUMENT,
           "names[1] is not UTF-8");
    /* Ids are one field of tabular and SAM records: tabs, newlines and other control
       characters in them are refused, in query ids and database names alike. */
    EXPECT(clsw_searcher_search(f->searcher, "q\tx", (const uint8_t *)"MKVL", 4, &hits), CLSW_ERR_INVALID_ARGUMENT,
           "U+0009 at character 2");
    REQUIRE(hits == NULL);
    EXPECT(clsw_searcher_search(f->searcher, "q\nr", (const uint8_t *)"MKVL", 4, &hits), CLSW_ERR_INVALID_ARGUMENT,
           "U+000A at character 2");
    const char *control_names[2] = {"ok", "a\x01" "b description"};
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 2, good, glens, control_names, &db), CLSW_ERR_INVALID_ARGUMENT,
           "names[1]: the id \"a\\u{1}b\" has U+0001");
    /* Ambiguity letters are residues: U/O/J read as X in protein, IUPAC codes as N in DNA. */
    EXPECT(clsw_searcher_search(f->searcher, "q", (const uint8_t *)"mkuoj", 5, &hits), CLSW_OK, "");
    clsw_hits_free(hits);
    clsw_scoring_free(dna);
}

/* A host's own residue codes and matrix (clsw_db_new_codes, clsw_scoring_new_matrix,
   clsw_alphabet_letters, as integrations/fasta36 uses them): the same scores as
   letters and a built-in rule give, and a clear status for every bad code or table. */
static void host_codes(fixture *f, const char *dir) {
    (void)f;
    (void)dir;
    char letters[32];
    size_t needed = 0;
    EXPECT(clsw_alphabet_letters(CLSW_ALPHABET_PROTEIN, letters, sizeof letters, &needed), CLSW_OK, "");
    REQUIRE(strcmp(letters, "ARNDCQEGHILKMFPSTWYVBZX*") == 0 && needed == 25);
    EXPECT(clsw_alphabet_letters(CLSW_ALPHABET_DNA, letters, 3, &needed), CLSW_ERR_BUFFER_TOO_SMALL, "");
    REQUIRE(needed == 6);
    EXPECT(clsw_alphabet_letters(7, letters, sizeof letters, NULL), CLSW_ERR_INVALID_ARGUMENT, "alphabet");
    EXPECT(clsw_alphabet_letters(CLSW_ALPHABET_PROTEIN, NULL, 8, NULL), CLSW_ERR_NULL, "");

    /* Codes as FASTA keeps them: 1 + the letter's place in the alphabet, 0 unused. */
    const char *abc = "ARNDCQEGHILKMFPSTWYVBZX*";
    uint8_t table[26] = {0};
    for (int c = 0; c < 24; c++) table[c + 1] = (uint8_t)abc[c];
    uint8_t coded[3][128];
    const uint8_t *seqs[3], *code_seqs[3];
    size_t lens[3];
    for (int i = 0; i < 3; i++) {
        lens[i] = strlen(PROTEINS[i]);
        for (size_t k = 0; k < lens[i]; k++) coded[i][k] = (uint8_t)(strchr(abc, PROTEINS[i][k]) - abc + 1);
        seqs[i] = (const uint8_t *)PROTEINS[i];
        code_seqs[i] = coded[i];
    }
    clsw_db *by_letters = NULL, *by_codes = NULL;
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 3, seqs, lens, NULL, &by_letters), CLSW_OK, "");
    EXPECT(clsw_db_new_codes(CLSW_ALPHABET_PROTEIN, table, sizeof table, 3, code_seqs, lens, NULL, &by_codes),
           CLSW_OK, "");
    /* +5/-4 as a host's table and as clsw's own rule. */
    int32_t values[24 * 24];
    for (int a = 0; a < 24; a++)
        for (int b = 0; b < 24; b++) values[a * 24 + b] = a == b ? 5 : -4;
    clsw_scoring *host = NULL, *own = NULL;
    EXPECT(clsw_scoring_new_matrix(CLSW_ALPHABET_PROTEIN, (const uint8_t *)abc, 24, values, 11, 1, &host), CLSW_OK, "");
    EXPECT(clsw_scoring_new_match_mismatch(CLSW_ALPHABET_PROTEIN, 5, -4, 11, 1, &own), CLSW_OK, "");
    clsw_engine *engine = NULL;
    clsw_searcher *s_host = NULL, *s_own = NULL;
    EXPECT(clsw_engine_new("native", &engine), CLSW_OK, "");
    EXPECT(clsw_searcher_new(engine, host, by_codes, NULL, &s_host), CLSW_OK, "");
    EXPECT(clsw_searcher_new(engine, own, by_letters, NULL, &s_own), CLSW_OK, "");
    int32_t got[3], want[3];
    const uint8_t *q = (const uint8_t *)"MKTAYIAKQRQISFVKSHFSRQLEERLG";
    EXPECT(clsw_searcher_scores(s_host, q, 28, got, 3), CLSW_OK, "");
    EXPECT(clsw_searcher_scores(s_own, q, 28, want, 3), CLSW_OK, "");
    REQUIRE(memcmp(got, want, sizeof got) == 0 && got[0] > 100);
    clsw_searcher_free(s_host);
    clsw_searcher_free(s_own);
    clsw_engine_free(engine);
    clsw_db_free(by_letters);
    clsw_db_free(by_codes);
    clsw_scoring_free(own);

    /* Bad codes: past the table, a 0 letter, a letter that is not a residue. */
    clsw_db *db = NULL;
    coded[1][2] = 30;
    EXPECT(clsw_db_new_codes(CLSW_ALPHABET_PROTEIN, table, sizeof table, 3, code_seqs, lens, NULL, &db),
           CLSW_ERR_INVALID_ARGUMENT, "sequences[1] ('2'): code 30 at position 3");
    REQUIRE(db == NULL);
    coded[1][2] = 0;
    EXPECT(clsw_db_new_codes(CLSW_ALPHABET_PROTEIN, table, sizeof table, 3, code_seqs, lens, NULL, &db),
           CLSW_ERR_INVALID_ARGUMENT, "code 0 at position 3");
    coded[1][2] = 25; /* 'E' in DNA */
    table[25] = 'E';
    EXPECT(clsw_db_new_codes(CLSW_ALPHABET_DNA, table, sizeof table, 3, code_seqs, lens, NULL, &db),
           CLSW_ERR_INVALID_ARGUMENT, "is not a dna residue");
    EXPECT(clsw_db_new_codes(CLSW_ALPHABET_PROTEIN, table, 0, 3, code_seqs, lens, NULL, &db),
           CLSW_ERR_INVALID_ARGUMENT, "code_count is 0");
    EXPECT(clsw_db_new_codes(CLSW_ALPHABET_PROTEIN, NULL, 26, 3, code_seqs, lens, NULL, &db), CLSW_ERR_NULL,
           "code_letters");

    /* Bad tables: a residue without its row, a score out of range, no letters. */
    clsw_scoring *sc = NULL;
    EXPECT(clsw_scoring_new_matrix(CLSW_ALPHABET_PROTEIN, (const uint8_t *)"ACGT", 4, values, 11, 1, &sc),
           CLSW_ERR_PARSE, "no column for letter 'R'");
    values[1] = 2000000;
    EXPECT(clsw_scoring_new_matrix(CLSW_ALPHABET_PROTEIN, (const uint8_t *)abc, 24, values, 11, 1, &sc),
           CLSW_ERR_PARSE, "row 'A': score 2000000 is outside");
    EXPECT(clsw_scoring_new_matrix(CLSW_ALPHABET_PROTEIN, (const uint8_t *)abc, 0, values, 11, 1, &sc),
           CLSW_ERR_INVALID_ARGUMENT, "letter_count is 0");
    EXPECT(clsw_scoring_new_matrix(CLSW_ALPHABET_PROTEIN, (const uint8_t *)abc, 24, NULL, 11, 1, &sc), CLSW_ERR_NULL,
           "scores");
    values[1] = -4;
    EXPECT(clsw_scoring_new_matrix(CLSW_ALPHABET_PROTEIN, (const uint8_t *)abc, 24, values, -3, 0, &sc),
           CLSW_ERR_INVALID_ARGUMENT, "gap");
    REQUIRE(sc == NULL);
    clsw_scoring_free(host);
}

/* Files that are missing or malformed: the message names the file (and the record). */
static void missing_file(fixture *f, const char *dir) {
    (void)f;
    char path[4096];
    clsw_db *db = (clsw_db *)&path; /* garbage in, NULL out */
    clsw_scoring *sc = NULL;
    EXPECT(clsw_db_new_fasta("/nonexistent/clsw/db.fasta", CLSW_ALPHABET_PROTEIN, &db), CLSW_ERR_IO,
           "/nonexistent/clsw/db.fasta");
    REQUIRE(db == NULL);
    EXPECT(clsw_db_new_fasta("/nonexistent/clsw/db.fasta", CLSW_ALPHABET_AUTO, &db), CLSW_ERR_IO, "db.fasta");
    EXPECT(clsw_db_new_prepared("/nonexistent/clsw/db.clswdb", &db), CLSW_ERR_IO, "db.clswdb");
    EXPECT(clsw_scoring_new_file("/nonexistent/clsw/MATRIX", 11, 1, &sc), CLSW_ERR_IO, "MATRIX");
    /* Paths are bytes: a name that is not UTF-8 is still a path. */
    EXPECT(clsw_db_new_fasta("/nonexistent/clsw/\xff\xfe.fasta", CLSW_ALPHABET_PROTEIN, &db), CLSW_ERR_IO,
           "/nonexistent/clsw/");
    EXPECT(clsw_db_new_fasta("", CLSW_ALPHABET_PROTEIN, &db), CLSW_ERR_INVALID_ARGUMENT, "empty");
    /* Malformed files: the record, line and character. */
    snprintf(path, sizeof path, "%s/bad.fasta", dir);
    write_file(path, ">s1 fine\nMKVLAAG\n>s2 broken\nMKV\nLA#G\n");
    EXPECT(clsw_db_new_fasta(path, CLSW_ALPHABET_PROTEIN, &db), CLSW_ERR_PARSE, "line 5 (record 2, 's2')");
    REQUIRE(db == NULL);
    snprintf(path, sizeof path, "%s/bad_matrix", dir);
    write_file(path, "   A  R\nA  4 -1\nR -1  x\n");
    EXPECT(clsw_scoring_new_file(path, 11, 1, &sc), CLSW_ERR_PARSE, "bad_matrix");
    snprintf(path, sizeof path, "%s/not_prepared.clswdb", dir);
    write_file(path, ">s1\nMKV\n");
    EXPECT(clsw_db_new_prepared(path, &db), CLSW_ERR_INVALID_ARGUMENT, "not a clsw prepared database");
    /* A database cut short within its magic is a damaged database, never FASTA. */
    snprintf(path, sizeof path, "%s/cut.clswdb", dir);
    write_file(path, "CLSW");
    EXPECT(clsw_db_new_fasta(path, CLSW_ALPHABET_PROTEIN, &db), CLSW_ERR_INVALID_ARGUMENT, "is a prepared database");
    REQUIRE(db == NULL);
    EXPECT(clsw_db_new_prepared(path, &db), CLSW_ERR_INVALID_ARGUMENT, "is truncated: 4 bytes");
    REQUIRE(db == NULL);
    /* A prepared database written and read back. */
    const uint8_t *seqs[1] = {(const uint8_t *)"MKVLAAG"};
    size_t lens[1] = {7};
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 1, seqs, lens, NULL, &db), CLSW_OK, "");
    snprintf(path, sizeof path, "%s/good.clswdb", dir);
    EXPECT(clsw_db_write_prepared(db, path), CLSW_OK, "");
    clsw_db_free(db);
    clsw_db *prepared = NULL;
    EXPECT(clsw_db_new_prepared(path, &prepared), CLSW_OK, "");
    EXPECT(clsw_db_new_fasta(path, CLSW_ALPHABET_PROTEIN, &db), CLSW_ERR_INVALID_ARGUMENT, "clsw_db_new_prepared");
    REQUIRE(db == NULL);
    snprintf(path, sizeof path, "%s/no_such_dir/out.clswdb", dir);
    EXPECT(clsw_db_write_prepared(prepared, path), CLSW_ERR_IO, "no_such_dir");
    clsw_db_free(prepared);
}

/* Options and arguments that cannot be honoured. */
static void impossible_options(fixture *f, const char *dir) {
    (void)dir;
    clsw_searcher *s = NULL;
    clsw_scoring *sc = NULL;
    clsw_engine *e = NULL;
    clsw_search_options o;
    EXPECT(clsw_search_options_init(&o, sizeof o), CLSW_OK, "");
    o.strands = CLSW_STRANDS_MINUS;
    EXPECT(clsw_searcher_new(f->engine, f->scoring, f->db, &o, &s), CLSW_ERR_INVALID_ARGUMENT,
           "--strand applies to DNA searches; this is a protein search");
    o.strands = CLSW_STRANDS_PLUS; /* refused as clsw scan --strand plus is */
    EXPECT(clsw_searcher_new(f->engine, f->scoring, f->db, &o, &s), CLSW_ERR_INVALID_ARGUMENT,
           "--strand applies to DNA searches; this is a protein search");
    EXPECT(clsw_search_options_init(&o, sizeof o), CLSW_OK, "");
    o.variant = 99;
    EXPECT(clsw_searcher_new(f->engine, f->scoring, f->db, &o, &s), CLSW_ERR_INVALID_ARGUMENT, "options.variant 99");
    EXPECT(clsw_search_options_init(&o, sizeof o), CLSW_OK, "");
    o.evalue = -1.0;
    EXPECT(clsw_searcher_new(f->engine, f->scoring, f->db, &o, &s), CLSW_ERR_INVALID_ARGUMENT, "E-value threshold must be >= 0");
    EXPECT(clsw_search_options_init(&o, sizeof o), CLSW_OK, "");
    o.alignments = 0;
    o.cigar = CLSW_CIGAR_EXTENDED;
    EXPECT(clsw_searcher_new(f->engine, f->scoring, f->db, &o, &s), CLSW_ERR_INVALID_ARGUMENT, "needs the hits' alignments");
    EXPECT(clsw_search_options_init(&o, sizeof o), CLSW_OK, "");
    o.stats = 9;
    EXPECT(clsw_searcher_new(f->engine, f->scoring, f->db, &o, &s), CLSW_ERR_INVALID_ARGUMENT, "options.stats 9");
    EXPECT(clsw_search_options_init(&o, sizeof o), CLSW_OK, "");
    /* A caller compiled before `stats` and `db_size` were appended: its size ends at
       `stats`, which the library then takes as the default (garbage past it unread). */
    o.stats = 9;
    o.size = offsetof(clsw_search_options, stats);
    EXPECT(clsw_searcher_new(f->engine, f->scoring, f->db, &o, &s), CLSW_OK, "");
    clsw_searcher_free(s);
    s = NULL;
    EXPECT(clsw_search_options_init(&o, sizeof o), CLSW_OK, "");
    o.size = 8;
    EXPECT(clsw_searcher_new(f->engine, f->scoring, f->db, &o, &s), CLSW_ERR_INVALID_ARGUMENT,
           "clsw_search_options.size is 8");
    EXPECT(clsw_search_options_init(&o, 4), CLSW_ERR_INVALID_ARGUMENT, "size is 4");
    REQUIRE(s == NULL);
    clsw_hit h = {.size = 3};
    EXPECT(clsw_hits_get(f->hits, 0, &h), CLSW_ERR_INVALID_ARGUMENT, "clsw_hit.size is 3");
    h.size = sizeof h;
    EXPECT(clsw_hits_get(f->hits, 1000, &h), CLSW_ERR_INVALID_ARGUMENT, "out of range");
    size_t n = 0;
    EXPECT(clsw_db_length(f->db, 3, &n), CLSW_ERR_INVALID_ARGUMENT, "index 3 is out of range");
    EXPECT(clsw_scoring_new_builtin("BLOSUM99", 11, 1, &sc), CLSW_ERR_INVALID_ARGUMENT, "unknown matrix 'BLOSUM99'");
    EXPECT(clsw_scoring_new_builtin("BLOSUM62", 11, 0, &sc), CLSW_ERR_INVALID_ARGUMENT, "extend >= 1");
    /* A negative cost is read as its size (ssearch36's way), so only its size is refused. */
    EXPECT(clsw_scoring_new_builtin("BLOSUM62", -5, 0, &sc), CLSW_ERR_INVALID_ARGUMENT, "(got open 5, extend 0)");
    EXPECT(clsw_scoring_new_builtin("BLOSUM62", -2000000, -1, &sc), CLSW_ERR_INVALID_ARGUMENT, "too large");
    EXPECT(clsw_scoring_new_match_mismatch(CLSW_ALPHABET_DNA, -1, 2, 5, 2, &sc), CLSW_ERR_INVALID_ARGUMENT,
           "match score must be positive");
    EXPECT(clsw_scoring_new_match_mismatch(7, 2, -3, 5, 2, &sc), CLSW_ERR_INVALID_ARGUMENT, "unknown alphabet 7");
    EXPECT(clsw_scoring_new_builtin("EDNAFULL", CLSW_GAPS_DEFAULT, CLSW_GAPS_DEFAULT, &sc), CLSW_OK, "");
    EXPECT(clsw_searcher_new(f->engine, sc, f->db, NULL, &s), CLSW_ERR_INVALID_ARGUMENT, "is for dna sequences");
    clsw_scoring_free(sc);
    EXPECT(clsw_engine_new("no-such-device-xyz", &e), CLSW_ERR_DEVICE, "no-such-device-xyz");
    EXPECT(clsw_engine_new("\xff", &e), CLSW_ERR_INVALID_ARGUMENT, "not UTF-8");
    size_t devices = 0;
    EXPECT(clsw_device_count(&devices), CLSW_OK, "");
    clsw_device_info d = {.size = sizeof d};
    EXPECT(clsw_device_get(devices, &d), CLSW_ERR_INVALID_ARGUMENT, "out of range");
    clsw_db *db = NULL;
    EXPECT(clsw_db_new_fasta("x.fasta", 9, &db), CLSW_ERR_INVALID_ARGUMENT, "unknown alphabet 9");
}

/* Buffers that are too small: the size needed, and a truncated terminated text. */
static void buffer_too_small(fixture *f, const char *dir) {
    (void)dir;
    char small[6];
    size_t needed = 0;
    EXPECT(clsw_hits_tabular(f->hits, 0, 0, small, sizeof small, &needed), CLSW_ERR_BUFFER_TOO_SMALL,
           "the buffer holds 6 bytes");
    REQUIRE(needed > sizeof small && strlen(small) == sizeof small - 1 && strncmp(small, "q\tp1\t", 5) == 0);
    char *line = malloc(needed);
    EXPECT(clsw_hits_tabular(f->hits, 0, 0, line, needed, NULL), CLSW_OK, "");
    REQUIRE(strlen(line) == needed - 1);
    free(line);
    EXPECT(clsw_engine_describe(f->engine, small, 2, &needed), CLSW_ERR_BUFFER_TOO_SMALL, "");
    REQUIRE(strlen(small) == 1);
}

/* The address space this process has mapped now, in bytes (Linux /proc/self/statm). */
static size_t mapped_bytes(void) {
    unsigned long pages = 0;
    FILE *fp = fopen("/proc/self/statm", "r");
    REQUIRE(fp != NULL && fscanf(fp, "%lu", &pages) == 1);
    fclose(fp);
    return (size_t)pages * 4096;
}

/* Allocation failure injected: the address space is limited (setrlimit) to what the
   process maps plus 1 GiB (under AddressSanitizer, whose shadow memory rules out such a
   limit, its allocator refuses large allocations instead: max_allocation_size_mb with
   allocator_may_return_null, set by the test). Calls whose buffers follow from their
   arguments then return CLSW_ERR_OUT_OF_MEMORY naming the buffer and its size, the
   process goes on, and a call that fits still works. */
static void out_of_memory(fixture *f, const char *dir) {
    (void)f;
    (void)dir;
    size_t samples = 1000000, count = 3000;
    int8_t *genotypes = calloc(samples * 2, 1);
    const uint8_t **seqs = malloc(count * sizeof *seqs);
    size_t *lens = malloc(count * sizeof *lens);
    uint8_t *longs = malloc(3 * 6000);
    REQUIRE(genotypes && seqs && lens && longs);
    for (size_t i = 0; i < count; i++) {
        seqs[i] = (const uint8_t *)"MKVLAAG";
        lens[i] = 7;
    }
    memset(longs, 'W', 3 * 6000);
    /* A subject of 20 M residues and a database of one of 100 M, made before the limit. */
    size_t long_len = 20000000, huge_len = 100000000;
    uint8_t *long_subject = malloc(huge_len);
    REQUIRE(long_subject);
    for (size_t i = 0; i < huge_len; i++) long_subject[i] = (uint8_t)"ACDEFGHIKLMNPQRSTVWY"[(i * 7 + i / 13) % 20];
    const uint8_t *huge_seqs[1] = {long_subject};
    size_t huge_lens[1] = {huge_len};
    clsw_db *huge_db = NULL;
    EXPECT(clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 1, huge_seqs, huge_lens, NULL, &huge_db), CLSW_OK, "");
    clsw_engine *e = NULL;
    clsw_scoring *sc = NULL;
    EXPECT(clsw_engine_new("reference", &e), CLSW_OK, "");
    EXPECT(clsw_scoring_new_builtin("BLOSUM62", 11, 1, &sc), CLSW_OK, "");
    if (getenv("CLSW_MISUSE_ASAN") == NULL) {
        struct rlimit limit = {.rlim_cur = mapped_bytes() + ((size_t)1 << 30), .rlim_max = RLIM_INFINITY};
        REQUIRE(setrlimit(RLIMIT_AS, &limit) == 0);
        printf("ok address space limited to %zu bytes\n", (size_t)limit.rlim_cur);
    }
    clsw_psse_options po;
    EXPECT(clsw_psse_options_init(&po, sizeof po), CLSW_OK, "");
    po.shuffles = 4000000000u;
    clsw_psse_result pr = {.size = sizeof pr};
    const uint8_t *q = (const uint8_t *)"MKVLAAGIVG";
    EXPECT(clsw_psse(e, sc, q, 10, q, 10, &po, &pr), CLSW_ERR_OUT_OF_MEMORY, "4000000000 shuffles each needs 96.0 GB");
    clsw_sw3_results *triples = (clsw_sw3_results *)&count; /* garbage in, NULL out */
    EXPECT(clsw_sw3_batch(e, sc, count, seqs, lens, NULL, 0, NULL, &triples), CLSW_ERR_OUT_OF_MEMORY,
           "all 4495501000 triples of 3000 sequences needs 53.9 GB");
    REQUIRE(triples == NULL);
    clsw_distance_result *d = NULL;
    EXPECT(clsw_distance_genotypes(e, genotypes, samples, 2, NULL, &d), CLSW_ERR_OUT_OF_MEMORY,
           "499999500000 pairs of 1000000 samples needs 2.0 TB");
    int32_t score = -1;
    size_t end[3];
    EXPECT(clsw_sw3_score(e, sc, longs, 6000, longs + 6000, 6000, longs + 12000, 6000, NULL, &score, end),
           CLSW_ERR_OUT_OF_MEMORY, "6000 x 6000 x 6000 residues needs 2.3 GB");
    REQUIRE(score == -1);
    /* A SAX word whose segments do not fit the limit (4.6 GB): refused before any write. */
    double series[4] = {1, 2, 3, 4};
    size_t word = (size_t)1 << 28;
    uint8_t code = 0;
    EXPECT(clsw_sax(series, 4, word, 4, &code, word, NULL), CLSW_ERR_OUT_OF_MEMORY, "a SAX word of 268435456 segments");
    /* A short query against long subjects fits: the native kernel's memory follows the
       query's rows (psse's shuffles of a 20 M-residue subject; a search of a database of
       one 100 M-residue subject). */
    clsw_psse_options few;
    EXPECT(clsw_psse_options_init(&few, sizeof few), CLSW_OK, "");
    few.shuffles = 4;
    clsw_psse_result long_pr = {.size = sizeof long_pr};
    EXPECT(clsw_psse(e, sc, q, 10, long_subject, long_len, &few, &long_pr), CLSW_OK, "");
    clsw_searcher *huge = NULL;
    clsw_hits *hits = NULL;
    EXPECT(clsw_searcher_new(e, sc, huge_db, NULL, &huge), CLSW_OK, "");
    EXPECT(clsw_searcher_search(huge, "q", long_subject + 5000, 40, &hits), CLSW_OK, "");
    size_t found = 0;
    EXPECT(clsw_hits_count(hits, &found), CLSW_OK, "");
    REQUIRE(found == 1);
    clsw_hits_free(hits);
    clsw_searcher_free(huge);
    /* What fits still works after the refusals. */
    EXPECT(clsw_sw3_score(e, sc, longs, 60, longs, 50, longs, 40, NULL, &score, end), CLSW_OK, "");
    REQUIRE(score > 0);
    clsw_db_free(huge_db);
    free(long_subject);
    clsw_scoring_free(sc);
    clsw_engine_free(e);
    free(longs);
    free(lens);
    free(seqs);
    free(genotypes);
}

/* Status strings, the version, and the last error after a success. */
static void status_and_version(fixture *f, const char *dir) {
    (void)f;
    (void)dir;
    for (int s = CLSW_OK; s <= CLSW_ERR_OUT_OF_MEMORY; s++) {
        const char *text = clsw_status_str(s);
        REQUIRE(text != NULL && strncmp(text, "CLSW_", 5) == 0);
        printf("ok status %d: %s\n", s, text);
    }
    REQUIRE(strcmp(clsw_status_str(12345), "unknown clsw_status") == 0);
    REQUIRE(strcmp(clsw_status_str(-1), "unknown clsw_status") == 0);
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", CLSW_VERSION_MAJOR, CLSW_VERSION_MINOR, CLSW_VERSION_PATCH);
    REQUIRE(strcmp(clsw_version(), want) == 0);
    clsw_engine *e = NULL;
    EXPECT(clsw_engine_new("nonsense-device", &e), CLSW_ERR_DEVICE, "nonsense-device");
    REQUIRE(strlen(clsw_last_error()) > 0);
    EXPECT(clsw_engine_new("reference", &e), CLSW_OK, "");
    REQUIRE(strcmp(clsw_last_error(), "") == 0);
    clsw_engine_free(e);
    printf("ok version %s\n", clsw_version());
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: misuse CHECK SCRATCH_DIR\n");
        return 2;
    }
    /* A check that uses the fixture gets it set up before it and torn down after it
       (freed_then_null leaves NULLs and the fixture's first hits to free). */
    static const struct {
        const char *name;
        void (*run)(fixture *, const char *);
        int uses_fixture;
    } checks[] = {
        {"null_handles", null_handles, 1},
        {"null_outputs", null_outputs, 1},
        {"zero_lengths", zero_lengths, 1},
        {"freed_then_null", freed_then_null, 1},
        {"invalid_residues", invalid_residues, 1},
        {"missing_file", missing_file, 0},
        {"host_codes", host_codes, 0},
        {"impossible_options", impossible_options, 1},
        {"buffer_too_small", buffer_too_small, 1},
        {"status_and_version", status_and_version, 0},
        {"out_of_memory", out_of_memory, 0},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        if (strcmp(argv[1], checks[i].name) == 0) {
            fixture f = {0};
            if (checks[i].uses_fixture) f = setup();
            checks[i].run(&f, argv[2]);
            if (checks[i].uses_fixture) teardown(&f);
            printf("PASSED %s\n", argv[1]);
            return failures != 0;
        }
    }
    fprintf(stderr, "misuse: unknown check %s\n", argv[1]);
    return 2;
}

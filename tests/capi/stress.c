/*
 * Stress: the C API called from many threads on one engine gives exactly the results
 * of a single-threaded run.
 *
 *   stress DB.fasta QUERIES.fasta THREADS MAX_QUERIES
 *
 * One engine (CLSW_DEVICE), one scoring, one database and one shared searcher. First
 * every query is run on the main thread: search (hits with CIGARs, E-values), every
 * subject's score, and the alignment with the best hit, summarised as one text per
 * query. Then THREADS threads run every query again, each starting at a different
 * query; odd threads use the shared searcher, even threads make their own searcher on
 * the shared engine (so searchers are created and uploaded concurrently too). Every
 * summary must equal the single-threaded one. Prints "identical: N results from T
 * threads" and exits 0, or names the first difference and exits 1.
 */
#include <clsw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                                \
    do {                                                                                                           \
        clsw_status st_ = (call);                                                                                  \
        if (st_ != CLSW_OK) {                                                                                      \
            fprintf(stderr, "stress: %s failed: %s\n  %s\n", #call, clsw_status_str(st_), clsw_last_error());        \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

static clsw_engine *engine;
static clsw_scoring *scoring;
static clsw_db *db;
static clsw_searcher *shared;
static size_t nq, ndb;
static char **qid, **qseq;
static size_t *qlen;
static char **expected;

typedef struct {
    char *text;
    size_t len, cap;
} sbuf;

static void add(sbuf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)(n > 0 ? n : 64);
        b->text = realloc(b->text, b->cap);
        if (!b->text) exit(2);
    }
}

static char *text_of(clsw_status (*get)(const clsw_db *, size_t, char *, size_t, size_t *), const clsw_db *d,
                     size_t k) {
    size_t needed = 0;
    get(d, k, NULL, 0, &needed);
    char *buf = malloc(needed);
    if (!buf) exit(2);
    CHECK(get(d, k, buf, needed, NULL));
    return buf;
}

/* Everything one query gives, as text. */
static char *summary(const clsw_searcher *s, size_t q) {
    sbuf b = {malloc(256), 0, 256};
    clsw_hits *hits = NULL;
    CHECK(clsw_searcher_search(s, qid[q], (const uint8_t *)qseq[q], qlen[q], &hits));
    clsw_search_info info = {.size = sizeof info};
    CHECK(clsw_hits_info(hits, &info));
    add(&b, "query %s: %zu hits, source %u, lambda %.9g, k %.9g\n", qid[q], info.hits, info.evalue_source,
        info.lambda, info.k);
    size_t best_subject = (size_t)-1;
    for (size_t i = 0; i < info.hits; i++) {
        clsw_hit h = {.size = sizeof h};
        CHECK(clsw_hits_get(hits, i, &h));
        if (i == 0) best_subject = h.subject;
        add(&b, "%zu %s %d %.9g %.9g %zu-%zu %zu-%zu %zu/%zu %s\n", h.subject, h.subject_id, h.score, h.evalue,
            h.bit_score, h.query_start, h.query_end, h.subject_start, h.subject_end, h.identities, h.length,
            h.cigar ? h.cigar : "-");
    }
    clsw_hits_free(hits);
    int32_t *scores = malloc(ndb * sizeof *scores);
    CHECK(clsw_searcher_scores(s, (const uint8_t *)qseq[q], qlen[q], scores, ndb));
    unsigned long long hash = 1469598103934665603ULL;
    for (size_t k = 0; k < ndb; k++) hash = (hash ^ (unsigned long long)(uint32_t)scores[k]) * 1099511628211ULL;
    add(&b, "scores %llx\n", hash);
    free(scores);
    if (best_subject != (size_t)-1) {
        char *subject = text_of(clsw_db_sequence, db, best_subject);
        clsw_alignment *a = NULL;
        CHECK(clsw_align(scoring, (const uint8_t *)qseq[q], qlen[q], (const uint8_t *)subject, strlen(subject), &a));
        clsw_alignment_info ai = {.size = sizeof ai};
        CHECK(clsw_alignment_get(a, &ai));
        add(&b, "align %d %s\n", ai.score, ai.cigar);
        clsw_alignment_free(a);
        free(subject);
    }
    return b.text;
}

static size_t mismatches = 0, compared = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
    size_t t = (size_t)arg;
    clsw_searcher *own = NULL;
    if (t % 2 == 0) {
        clsw_search_options o;
        CHECK(clsw_search_options_init(&o, sizeof o));
        o.cigar = CLSW_CIGAR_EXTENDED;
        CHECK(clsw_searcher_new(engine, scoring, db, &o, &own));
    }
    for (size_t i = 0; i < nq; i++) {
        size_t q = (i + t) % nq;
        char *got = summary(own ? own : shared, q);
        pthread_mutex_lock(&lock);
        compared++;
        if (strcmp(got, expected[q]) != 0) {
            if (mismatches++ == 0)
                fprintf(stderr, "thread %zu, query %zu differs:\n--- single thread\n%s--- thread\n%s", t, q,
                        expected[q], got);
        }
        pthread_mutex_unlock(&lock);
        free(got);
    }
    clsw_searcher_free(own);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: stress DB.fasta QUERIES.fasta THREADS MAX_QUERIES\n");
        return 2;
    }
    size_t threads = (size_t)atoi(argv[3]), max_q = (size_t)atoi(argv[4]);
    clsw_db *queries = NULL;
    CHECK(clsw_engine_new(NULL, &engine));
    char devices[512];
    CHECK(clsw_engine_describe(engine, devices, sizeof devices, NULL));
    fprintf(stderr, "stress on %s\n", devices);
    CHECK(clsw_scoring_new_builtin("BLOSUM62", 11, 1, &scoring));
    CHECK(clsw_db_new_fasta(argv[1], CLSW_ALPHABET_PROTEIN, &db));
    CHECK(clsw_db_new_fasta(argv[2], CLSW_ALPHABET_PROTEIN, &queries));
    CHECK(clsw_db_count(db, &ndb));
    CHECK(clsw_db_count(queries, &nq));
    if (nq > max_q) nq = max_q;
    qid = calloc(nq, sizeof *qid);
    qseq = calloc(nq, sizeof *qseq);
    qlen = calloc(nq, sizeof *qlen);
    expected = calloc(nq, sizeof *expected);
    for (size_t q = 0; q < nq; q++) {
        qid[q] = text_of(clsw_db_id, queries, q);
        qseq[q] = text_of(clsw_db_sequence, queries, q);
        qlen[q] = strlen(qseq[q]);
    }
    clsw_search_options o;
    CHECK(clsw_search_options_init(&o, sizeof o));
    o.cigar = CLSW_CIGAR_EXTENDED;
    CHECK(clsw_searcher_new(engine, scoring, db, &o, &shared));
    for (size_t q = 0; q < nq; q++) expected[q] = summary(shared, q);

    pthread_t *tid = calloc(threads, sizeof *tid);
    for (size_t t = 0; t < threads; t++) pthread_create(&tid[t], NULL, worker, (void *)t);
    for (size_t t = 0; t < threads; t++) pthread_join(tid[t], NULL);

    printf("%s", expected[0]);
    for (size_t q = 0; q < nq; q++) {
        free(qid[q]);
        free(qseq[q]);
        free(expected[q]);
    }
    free(qid), free(qseq), free(qlen), free(expected), free(tid);
    clsw_searcher_free(shared);
    clsw_db_free(queries);
    clsw_db_free(db);
    clsw_scoring_free(scoring);
    clsw_engine_free(engine);
    if (mismatches) {
        printf("DIFFERENT: %zu of %zu results from %zu threads differ from the single-threaded run\n", mismatches,
               compared, threads);
        return 1;
    }
    printf("identical: %zu results from %zu threads\n", compared, threads);
    return 0;
}

/* clsw_fasta.c: the library scores of ssearch36_clsw, ggsearch36_clsw and
   glsearch36_clsw from clsw, through clsw's public C ABI only (clsw.h). Part of clsw
   (README.md, "Embedding clsw in a C tool"); compiled inside FASTA 36's src/ for its
   struct pstruct.

   One resident clsw database holds the library as FASTA read it (FASTA's own
   residue codes, clsw_db_new_codes); one searcher is made for FASTA's own
   matrix and gaps (clsw_scoring_new_matrix), with -P also the profile FASTA
   built for the query (clsw_scoring_with_pssm); each query is searched once
   (clsw_searcher_scores: every subject's score in database order) the first
   time a worker asks for one of its scores, and every worker then reads the
   same score array. The program (ppst->pgm_id) sets clsw's alignment mode:
   ssearch36 local, ggsearch36 global, glsearch36 glocal (the query global, the
   library sequence local). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clsw.h>

#include "defs.h"
#include "param.h"
#include "clsw_fasta.h"

/* initfa.c's program ids (defined there, not in a header). */
#define CLSW_FASTA_LNW_PID 19	/* glsearch36 */
#define CLSW_FASTA_GNW_PID 20	/* ggsearch36 */

/* A library sequence, found by its address: do_work() is handed the very
   pointer the library holds (comp_lib9.c keeps it in memory). */
struct lib_entry {
  const unsigned char *seq;
  int n1;
  long index;	/* in clsw's database, or -1: FASTA scores it */
};

/* One query's search: every subject's score, shared by the workers. */
struct scan {
  struct scan *next;
  unsigned char *aa0;
  int n0;
  unsigned long generation;	/* the searcher it came from */
  int32_t *scores;
  int refs;
};

struct query {
  unsigned char *aa0;
  int n0;
  int tried;	/* the search was looked for (scan may still be NULL) */
  struct scan *scan;
};

static struct {
  pthread_mutex_t lock;
  struct lib_entry *lib;	/* sorted by address */
  size_t lib_count;
  clsw_alphabet alphabet;
  unsigned char letter[256];	/* FASTA code -> clsw letter; 0: not one clsw scores exactly */
  int exact_codes[256];
  int n_exact;
  clsw_engine *engine;
  clsw_db *db;
  size_t db_count;
  clsw_searcher *searcher;
  int32_t *key;	/* the matrix (exact codes) and gaps the searcher scores with */
  size_t key_len;
  unsigned long generation;
  struct scan *scans;
  int verbose;
  const char *program;	/* for messages */
  clsw_mode mode;
} g = { PTHREAD_MUTEX_INITIALIZER, .program = "clsw_fasta" };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void fatal(const char *what, int status) {
  fprintf(stderr, "*** ERROR [%s] %s: %s: %s\n", g.program, what, clsw_status_str(status),
          clsw_last_error());
  exit(1);
}

static void *alloc_or_die(size_t n, size_t size, const char *what) {
  void *p = calloc(n ? n : 1, size);
  if (p == NULL) {
    fprintf(stderr, "*** ERROR [%s] cannot allocate %s (%lu x %lu bytes)\n", g.program, what,
            (unsigned long)n, (unsigned long)size);
    exit(1);
  }
  return p;
}

static int by_address(const void *a, const void *b) {
  const unsigned char *x = ((const struct lib_entry *)a)->seq;
  const unsigned char *y = ((const struct lib_entry *)b)->seq;
  return (x > y) - (x < y);
}

static int all_exact(const unsigned char *s, int n) {
  int i;
  if (n <= 0) return 0;
  for (i = 0; i < n; i++) {
    if (g.letter[s[i]] == 0) return 0;
  }
  return 1;
}

void clsw_fasta_set_library(const struct pstruct *ppst, size_t count,
                            const unsigned char *const *seqs, const int *lens) {
  char symbols[64];
  const unsigned char **db_seqs;
  size_t *db_lens, k, m;
  int c, st;

  double t0 = now();
  switch (ppst->pgm_id) {
  case CLSW_FASTA_GNW_PID: g.program = "ggsearch36_clsw"; g.mode = CLSW_MODE_GLOBAL; break;
  case CLSW_FASTA_LNW_PID: g.program = "glsearch36_clsw"; g.mode = CLSW_MODE_GLOCAL; break;
  default: g.program = "ssearch36_clsw"; g.mode = CLSW_MODE_LOCAL; break;
  }
  g.verbose = getenv("CLSW_FASTA_VERBOSE") != NULL && getenv("CLSW_FASTA_VERBOSE")[0] == '1';
  g.alphabet = (ppst->dnaseq == SEQT_DNA || ppst->dnaseq == SEQT_RNA) ? CLSW_ALPHABET_DNA
                                                                       : CLSW_ALPHABET_PROTEIN;
  if ((st = clsw_alphabet_letters(g.alphabet, symbols, sizeof(symbols), NULL)) != CLSW_OK)
    fatal("clsw_alphabet_letters", st);
  /* FASTA's codes 1..nsq whose letter clsw scores as its own: those are the
     codes clsw is given. Others (J, O, U in protein, IUPAC codes in DNA) and
     lower-case codes of -S keep FASTA's scoring. */
  memset(g.letter, 0, sizeof(g.letter));
  g.n_exact = 0;
  for (c = 1; c <= ppst->nsq && c < 256; c++) {
    unsigned char l = ppst->sq[c];
    int dup = 0, j;
    for (j = 0; j < g.n_exact; j++) dup |= g.letter[g.exact_codes[j]] == l;
    if (l != 0 && strchr(symbols, l) != NULL && !dup) {
      g.letter[c] = l;
      g.exact_codes[g.n_exact++] = c;
    }
  }

  g.lib = alloc_or_die(count, sizeof(*g.lib), "the library index");
  g.lib_count = count;
  db_seqs = alloc_or_die(count, sizeof(*db_seqs), "the library list");
  db_lens = alloc_or_die(count, sizeof(*db_lens), "the library lengths");
  m = 0;
  for (k = 0; k < count; k++) {
    g.lib[k].seq = seqs[k];
    g.lib[k].n1 = lens[k];
    g.lib[k].index = -1;
    if (all_exact(seqs[k], lens[k])) {
      g.lib[k].index = (long)m;
      db_seqs[m] = seqs[k];
      db_lens[m] = (size_t)lens[k];
      m++;
    }
  }
  qsort(g.lib, count, sizeof(*g.lib), by_address);
  for (k = 1; k < count; k++) {
    if (g.lib[k].seq == g.lib[k - 1].seq) {
      fprintf(stderr, "*** ERROR [%s] two library entries share one sequence buffer\n", g.program);
      exit(1);
    }
  }
  if (m > 0) {
    st = clsw_db_new_codes(g.alphabet, g.letter, sizeof(g.letter), m, db_seqs, db_lens, NULL, &g.db);
    if (st != CLSW_OK) fatal("clsw_db_new_codes (the library)", st);
    g.db_count = m;
  }
  if (g.verbose) {
    fprintf(stderr, "%s: %lu library sequences, %lu to clsw, %lu scored by FASTA (%.3f s)\n",
            g.program, (unsigned long)count, (unsigned long)m, (unsigned long)(count - m), now() - t0);
  }
  free(db_seqs);
  free(db_lens);
}

/* The matrix and gaps FASTA scores this search with, over the exact codes, and
   with -P the profile FASTA built for query q (its scores at every position
   against the exact codes, after the matrix), or NULL when clsw cannot score as
   FASTA does (-S lower-case scores). */
static int32_t *scoring_key(const struct pstruct *ppst, const struct query *q, size_t *len) {
  int32_t *key;
  size_t matrix = (size_t)g.n_exact * (size_t)g.n_exact;
  int a, b, i;
  if (ppst->ext_sq_set || g.n_exact == 0) return NULL;
  *len = matrix + (ppst->pam_pssm ? (size_t)q->n0 * (size_t)g.n_exact : 0) + 2;
  key = alloc_or_die(*len, sizeof(*key), "the scoring");
  for (a = 0; a < g.n_exact; a++)
    for (b = 0; b < g.n_exact; b++)
      key[a * g.n_exact + b] = ppst->pam2[0][g.exact_codes[a]][g.exact_codes[b]];
  /* dropgsw2.c's init_work: with -P, query position i scores code e with
     ppst->pam2p[0][i][e] instead of pam2[0][aa0[i]][e]. */
  if (ppst->pam_pssm)
    for (i = 0; i < q->n0; i++)
      for (b = 0; b < g.n_exact; b++)
        key[matrix + (size_t)i * g.n_exact + b] = ppst->pam2p[0][i][g.exact_codes[b]];
  /* FASTA 36: the first residue of a gap costs -(gdelval + ggapval), each
     further one -ggapval (dropgsw2.c), i.e. BLAST's open + L * extend with
     open = -gdelval, extend = -ggapval. */
  key[*len - 2] = -ppst->gdelval;
  key[*len - 1] = -ppst->ggapval;
  return key;
}

/* The searcher for this scoring (made, or remade when the scoring changed: with
   -P, for each query's profile); NULL when clsw cannot score it. Called with the
   lock held. */
static clsw_searcher *searcher_for(const struct pstruct *ppst, const struct query *q) {
  size_t len;
  int32_t *key;
  unsigned char letters[256];
  clsw_scoring *scoring = NULL;
  clsw_search_options options;
  int a, st;

  if (g.db == NULL) return NULL;
  if ((key = scoring_key(ppst, q, &len)) == NULL) return NULL;
  if (g.searcher != NULL && len == g.key_len && memcmp(key, g.key, len * sizeof(*key)) == 0) {
    free(key);
    return g.searcher;
  }
  double t0 = now();
  if (g.engine == NULL) {
    if ((st = clsw_engine_new(NULL, &g.engine)) != CLSW_OK) fatal("clsw_engine_new", st);
    if (g.verbose) {
      char desc[1024];
      if (clsw_engine_describe(g.engine, desc, sizeof(desc), NULL) == CLSW_OK)
        fprintf(stderr, "%s: clsw on %s\n", g.program, desc);
    }
  }
  for (a = 0; a < g.n_exact; a++) letters[a] = g.letter[g.exact_codes[a]];
  st = clsw_scoring_new_matrix(g.alphabet, letters, (size_t)g.n_exact, key, key[len - 2], key[len - 1],
                               &scoring);
  if (st != CLSW_OK) fatal("clsw_scoring_new_matrix (FASTA's matrix and gaps)", st);
  if (ppst->pam_pssm) {
    clsw_scoring *profile = NULL;
    unsigned char *query = alloc_or_die((size_t)q->n0, 1, "a profile's query");
    for (a = 0; a < q->n0; a++) query[a] = g.letter[q->aa0[a]];
    st = clsw_scoring_with_pssm(scoring, query, (size_t)q->n0, letters, (size_t)g.n_exact,
                                key + (size_t)g.n_exact * (size_t)g.n_exact, &profile);
    free(query);
    clsw_scoring_free(scoring);
    if (st != CLSW_OK) fatal("clsw_scoring_with_pssm (FASTA's profile of the query)", st);
    scoring = profile;
  }
  if (g.mode != CLSW_MODE_LOCAL) {
    clsw_scoring *in_mode = NULL;
    st = clsw_scoring_with_mode(scoring, g.mode, &in_mode);
    clsw_scoring_free(scoring);
    if (st != CLSW_OK) fatal("clsw_scoring_with_mode (the program's alignment mode)", st);
    scoring = in_mode;
  }
  if ((st = clsw_search_options_init(&options, sizeof(options))) != CLSW_OK)
    fatal("clsw_search_options_init", st);
  /* FASTA searches the reverse strand itself, as a second query frame. */
  if (g.alphabet == CLSW_ALPHABET_DNA) options.strands = CLSW_STRANDS_PLUS;
  options.alignments = 0;
  options.stats = CLSW_STATS_NONE;
  clsw_searcher_free(g.searcher);
  g.searcher = NULL;
  st = clsw_searcher_new(g.engine, scoring, g.db, &options, &g.searcher);
  clsw_scoring_free(scoring);
  if (st != CLSW_OK) fatal("clsw_searcher_new (the library on the device)", st);
  free(g.key);
  g.key = key;
  g.key_len = len;
  g.generation++;
  if (g.verbose) fprintf(stderr, "%s: searcher ready (%.3f s)\n", g.program, now() - t0);
  return g.searcher;
}

/* Drops searches no handle uses beyond the newest few (a DNA query has two
   frames; a shuffled query may be in flight). Called with the lock held. */
static void trim_scans(void) {
  struct scan **p = &g.scans;
  int kept = 0;
  while (*p != NULL) {
    struct scan *s = *p;
    if (s->refs == 0 && (kept >= 4 || s->generation != g.generation)) {
      *p = s->next;
      free(s->aa0);
      free(s->scores);
      free(s);
    } else {
      kept++;
      p = &s->next;
    }
  }
}

/* This query's search, run once for all workers. Called with the lock held. */
static struct scan *scan_for(const struct query *q, const struct pstruct *ppst) {
  clsw_searcher *searcher;
  struct scan *s;
  unsigned char *letters;
  int i, st;

  if (!all_exact(q->aa0, q->n0)) return NULL;
  if ((searcher = searcher_for(ppst, q)) == NULL) return NULL;
  for (s = g.scans; s != NULL; s = s->next) {
    if (s->generation == g.generation && s->n0 == q->n0 && memcmp(s->aa0, q->aa0, (size_t)q->n0) == 0) {
      s->refs++;
      return s;
    }
  }
  s = alloc_or_die(1, sizeof(*s), "a query's search");
  s->aa0 = alloc_or_die((size_t)q->n0, 1, "a query");
  memcpy(s->aa0, q->aa0, (size_t)q->n0);
  s->n0 = q->n0;
  s->generation = g.generation;
  s->scores = alloc_or_die(g.db_count, sizeof(*s->scores), "a query's scores");
  letters = alloc_or_die((size_t)q->n0, 1, "a query's letters");
  for (i = 0; i < q->n0; i++) letters[i] = g.letter[q->aa0[i]];
  double t0 = now();
  st = clsw_searcher_scores(searcher, letters, (size_t)q->n0, s->scores, g.db_count);
  free(letters);
  if (st != CLSW_OK) fatal("clsw_searcher_scores (a query)", st);
  if (g.verbose) fprintf(stderr, "%s: query of %d residues searched (%.3f s)\n", g.program, q->n0, now() - t0);
  s->refs = 1;
  s->next = g.scans;
  g.scans = s;
  trim_scans();
  return s;
}

void *clsw_fasta_query(const unsigned char *aa0, int n0, const struct pstruct *ppst) {
  struct query *q;
  (void)ppst;
  if (n0 <= 0) return NULL;
  q = alloc_or_die(1, sizeof(*q), "a query handle");
  q->aa0 = alloc_or_die((size_t)n0, 1, "a query");
  memcpy(q->aa0, aa0, (size_t)n0);
  q->n0 = n0;
  return q;
}

void clsw_fasta_query_free(void *query) {
  struct query *q = query;
  if (q == NULL) return;
  if (q->scan != NULL) {
    pthread_mutex_lock(&g.lock);
    q->scan->refs--;
    trim_scans();
    pthread_mutex_unlock(&g.lock);
  }
  free(q->aa0);
  free(q);
}

int clsw_fasta_score(void *query, const struct pstruct *ppst, const unsigned char *aa1, int n1,
                     int *score) {
  struct query *q = query;
  size_t lo, hi;
  if (q == NULL || g.lib_count == 0) return 0;
  if (!q->tried) {
    pthread_mutex_lock(&g.lock);
    q->scan = scan_for(q, ppst);
    pthread_mutex_unlock(&g.lock);
    q->tried = 1;
  }
  if (q->scan == NULL) return 0;
  lo = 0;
  hi = g.lib_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g.lib[mid].seq < aa1) lo = mid + 1;
    else hi = mid;
  }
  if (lo == g.lib_count || g.lib[lo].seq != aa1 || g.lib[lo].n1 != n1 || g.lib[lo].index < 0) return 0;
  *score = q->scan->scores[g.lib[lo].index];
  return 1;
}

/* clsw_fasta.h: the seam between FASTA 36 and clsw of ssearch36_clsw,
   ggsearch36_clsw and glsearch36_clsw (part of clsw, not of FASTA; README.md,
   "Embedding clsw in a C tool").

   comp_lib9.c (patched, -DCLSW) reads the whole library before the first query
   and hands it over with clsw_fasta_set_library(). dropgsw2.c (ssearch36) and
   dropnnw2.c (ggsearch36, glsearch36), patched with -DCLSW, keep one
   clsw_fasta_query() per f_struct (init_work/close_work) and ask
   clsw_fasta_score() for every library sequence in do_work(): the first call of
   a query searches the resident library once with clsw_searcher_scores(); every
   later call is a lookup. Shuffled sequences and sequences clsw cannot score
   exactly (letters outside clsw's alphabet, -S, PSSMs) keep FASTA's own
   scoring. */
#ifndef CLSW_FASTA_H
#define CLSW_FASTA_H

#include <stddef.h>

struct pstruct;

/* The library, in the order FASTA scans it: sequence k is lens[k] residue codes
   at seqs[k] (FASTA's encoding: codes 1..nsq of ppst->sq). The sequences stay
   where they are until the process ends (FASTA's in-memory library); the arrays
   may be freed after the call. Call once, before any clsw_fasta_score(). */
void clsw_fasta_set_library(const struct pstruct *ppst, size_t count,
                            const unsigned char *const *seqs, const int *lens);

/* A query's handle for one f_struct (NULL-safe to free). Cheap: the search runs
   at the first clsw_fasta_score() that needs it, so an f_struct that never
   scores library sequences (shuffled queries, alignments) costs nothing. */
void *clsw_fasta_query(const unsigned char *aa0, int n0, const struct pstruct *ppst);
void clsw_fasta_query_free(void *query);

/* 1 and *score when aa1 (n1 residues) is a library sequence that clsw scored
   for this query; 0 when FASTA must score it itself. Thread-safe: each FASTA
   worker has its own query handles, and the library and scores they share are
   read-only once made. */
int clsw_fasta_score(void *query, const struct pstruct *ppst,
                     const unsigned char *aa1, int n1, int *score);

#endif

/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * clsw: GPU sequence comparison (Smith-Waterman database search and alignment on
 * OpenCL devices, with a native CPU path, pairwise significance, all-pairs distance
 * matrices and three-sequence alignment) behind a stable C ABI.
 *
 * Link with `cc app.c $(pkg-config --cflags --libs clsw)` after `scripts/install.sh PREFIX`
 * (README.md, "The C library"). Examples: bindings/c (C), bindings/cpp/clsw.hpp (C++ RAII
 * wrapper), bindings/python (ctypes).
 *
 * CONVENTIONS
 *
 * Status. Every call that can fail returns a clsw_status: CLSW_OK (0) or an error code.
 * Results come back through out-pointers, which are written only on success (an output
 * handle is set to NULL on failure). clsw_status_str() names a status; clsw_last_error()
 * has the detailed message of the calling thread's last call: the file, record and line of
 * bad input, the OpenCL call and error name, a kernel's build log, which argument was NULL.
 * The message is valid until the next clsw call on the same thread. A Rust panic inside
 * clsw never crosses the ABI: it becomes CLSW_ERR_INTERNAL with its message. Memory is
 * never taken for granted: a buffer whose size follows from the arguments (a sequence
 * length, a count of shuffles, triples or samples) that cannot be allocated is
 * CLSW_ERR_OUT_OF_MEMORY naming the buffer and its size, never an abort of the process.
 *
 * Handles. clsw_engine, clsw_scoring, clsw_db, clsw_searcher, clsw_hits, clsw_alignment,
 * clsw_psse_results, clsw_distance_result, clsw_sw3_alignment and clsw_sw3_results are opaque.
 * Each function that makes one has a matching clsw_X_free, which accepts NULL. Using a handle
 * after freeing it is undefined behaviour, as in any C library; setting the pointer to NULL
 * after the free makes every later use a CLSW_ERR_NULL instead. Handles keep what they need
 * alive: a searcher may outlive the engine, scoring and database it was made from, and hits
 * may outlive their searcher. Strings read from a handle (ids, CIGARs) belong to it.
 *
 * Buffers and text. Every buffer comes with its length; a pointer may be NULL when its
 * length is 0. Sequences are residue letters (bytes, upper or lower case, not
 * NUL-terminated); an empty sequence or a byte that is not a residue letter is
 * CLSW_ERR_INVALID_ARGUMENT naming the position (exceptions: sw3 accepts empty sequences
 * and, on request, alphabet codes; distance inputs are alignment letters or genotypes).
 * Numeric results (score vectors, distance matrices) go into caller buffers with their
 * length; too small a buffer gives CLSW_ERR_BUFFER_TOO_SMALL and the size needed. Paths are NUL-terminated bytes in any
 * encoding. Text clsw writes into a caller buffer is NUL-terminated; too small a buffer
 * gives CLSW_ERR_BUFFER_TOO_SMALL, a truncated terminated text, and the size needed.
 *
 * Structs that grow. clsw_search_options, clsw_hit, clsw_search_info,
 * clsw_alignment_info, clsw_device_info, clsw_psse_options, clsw_psse_result,
 * clsw_distance_options, clsw_sw3_options, clsw_sw3_alignment_info and clsw_sw3_row begin
 * with `size_t size`: set it to sizeof(the struct) (clsw_search_options_init,
 * clsw_psse_options_init, clsw_distance_options_init and clsw_sw3_options_init do it for
 * options). Later versions only
 * append fields, so a program compiled against this header keeps working with a newer
 * library; a size smaller than this first version's is CLSW_ERR_INVALID_ARGUMENT.
 *
 * Coordinates. Alignment and hit coordinates are 1-based and inclusive, as BLAST tabular
 * and SAM print them. Database indices (clsw_hit.subject, clsw_db_id's index, score
 * vectors) are 0-based, in database order.
 *
 * Gaps. BLAST's convention: a gap of length L costs gap_open + L * gap_extend.
 *
 * Devices. clsw_engine_new(NULL, ...) uses the CLSW_DEVICE environment variable, else
 * "auto": the fastest GPU, else the native CPU path. CLSW_PORTABLE=1 makes an engine's
 * OpenCL devices build the portable kernels, with no vendor code (no inline PTX on
 * NVIDIA), to check and time them on a GPU; 0 or unset, the vendor's where it has
 * them; another value makes clsw_engine_new fail with CLSW_ERR_INVALID_ARGUMENT. OpenCL
 * is loaded at run time, so a program linked with clsw starts on machines without any
 * OpenCL.
 *
 * THREAD SAFETY
 *
 * - clsw_engine: may be shared by any number of threads. Work on one OpenCL device is
 *   serialised by its command queue's lock; CPU work runs in parallel.
 * - clsw_scoring, clsw_db: read-only after creation; share them freely.
 * - clsw_searcher: may be shared; concurrent searches on one searcher are serialised
 *   per device queue (their statistics and alignments run in parallel on the CPU).
 * - clsw_hits, clsw_alignment, clsw_psse_results, clsw_distance_result, clsw_sw3_alignment,
 *   clsw_sw3_results: immutable, but give each thread its own (pass them between threads,
 *   do not use one from two threads at once).
 * - clsw_sax and the other calls without a handle may run on any thread at any time.
 * - clsw_last_error() is per thread. A free must not run concurrently with another use
 *   of the same handle.
 */

#ifndef CLSW_H
#define CLSW_H

/* Generated by cbindgen from src/capi (settings: cbindgen.toml). Do not edit: change the Rust source and run
   CLSW_BLESS=1 cargo test --release --test header_capi */

#include <stddef.h>
#include <stdint.h>

/**
 * Pass as both `gap_open` and `gap_extend` to the clsw_scoring_new_* functions for the
 * matrix's customary penalties (BLOSUM62 11/1, BLOSUM45 15/2, BLOSUM50 10/2, BLOSUM80 and
 * BLOSUM90 10/1, PAM30 9/1, PAM70 10/1, PAM250 10/2, EDNAFULL 12/4, others 10/1).
 */
#define CLSW_GAPS_DEFAULT (-1)

/**
 * Marks a name kept for one release after it was renamed: compilers warn where it is
 * used (clsw 0.2.0 renamed clsw_distances / clsw_distances_* to clsw_distance_result /
 * clsw_distance_result_*; the old names still work).
 */
#if defined(__GNUC__) || defined(__clang__)
#define CLSW_DEPRECATED(note) __attribute__((deprecated(note)))
#elif defined(_MSC_VER)
#define CLSW_DEPRECATED(note) __declspec(deprecated(note))
#else
#define CLSW_DEPRECATED(note)
#endif

/**
 * Major version of the library (from Cargo.toml; a compile-time check keeps them equal).
 */
#define CLSW_VERSION_MAJOR 0

/**
 * Minor version of the library.
 */
#define CLSW_VERSION_MINOR 2

/**
 * Patch version of the library.
 */
#define CLSW_VERSION_PATCH 0

/**
 * What every fallible call returns. `CLSW_OK` is 0, so `if (clsw_xxx(...))` tests
 * for failure; `clsw_last_error()` then has the details.
 */
typedef enum clsw_status {
    /**
     * Success.
     */
    CLSW_OK = 0,
    /**
     * A required pointer (handle, input or output) was NULL.
     */
    CLSW_ERR_NULL = 1,
    /**
     * An argument or option is outside what the call accepts (also: a residue letter
     * that is not in the alphabet, an empty sequence, an options struct whose `size`
     * is too small, an unknown matrix name).
     */
    CLSW_ERR_INVALID_ARGUMENT = 2,
    /**
     * A file could not be opened, read or written.
     */
    CLSW_ERR_IO = 3,
    /**
     * A file was read but its content is malformed (FASTA, matrix, prepared database).
     */
    CLSW_ERR_PARSE = 4,
    /**
     * An OpenCL call failed; the message names the call and the error code.
     */
    CLSW_ERR_OPENCL = 5,
    /**
     * A kernel did not compile; the message holds the device compiler's build log.
     */
    CLSW_ERR_BUILD = 6,
    /**
     * No device matches the choice, or a device failed its self-test.
     */
    CLSW_ERR_DEVICE = 7,
    /**
     * A caller buffer is too small; the call says how large it must be.
     */
    CLSW_ERR_BUFFER_TOO_SMALL = 8,
    /**
     * A bug in clsw (a Rust panic was caught at the API boundary, or a check of clsw's
     * own CPU work failed); please report the message.
     */
    CLSW_ERR_INTERNAL = 9,
    /**
     * Memory for a buffer whose size follows from the arguments could not be had (the
     * host's, or a device's per-buffer limit); the message names the buffer and its size.
     * Nothing was changed: the call can be retried with smaller inputs.
     */
    CLSW_ERR_OUT_OF_MEMORY = 10,
    /**
     * Another rank of an MPI search failed (`clsw_searcher_new_mpi`); the message
     * names that rank and holds its error's message. Every rank's call returns an
     * error, none waits for the failed one.
     */
    CLSW_ERR_RANK = 11,
    /**
     * A function of the MPI API was called on a clsw built without MPI (the cargo
     * feature `mpi`).
     */
    CLSW_ERR_NO_MPI = 12,
} clsw_status;

/**
 * An optimal alignment of two sequences (in the scoring's mode: local unless made
 * with `clsw_scoring_with_mode`). Immutable; give each thread its own.
 */
typedef struct clsw_alignment clsw_alignment;

/**
 * A set of subject sequences in database order (index 0 to count - 1). Read-only
 * after creation: shareable between threads and searchers.
 */
typedef struct clsw_db clsw_db;

/**
 * An all-pairs distance matrix, with its sample names when it was read from a file.
 * Immutable; give each thread its own.
 */
typedef struct clsw_distance_result clsw_distance_result;

/**
 * A set of devices ready for work, each OpenCL device having passed its
 * known-answer self-test. Shareable between threads.
 */
typedef struct clsw_engine clsw_engine;

/**
 * The results of one query's search: the hits, best first, and the search's
 * statistics. Immutable; give each thread its own (they may be passed between
 * threads, but not used by two at once).
 */
typedef struct clsw_hits clsw_hits;

/**
 * The results of `clsw_psse_many`: one per pair, query-major (pair `(q, s)` at index
 * `q * subject_count + s`). Immutable; give each thread its own.
 */
typedef struct clsw_psse_results clsw_psse_results;

/**
 * A substitution matrix and gap penalties. Read-only after creation: one scoring
 * may be used by many threads and many searchers at once.
 */
typedef struct clsw_scoring clsw_scoring;

/**
 * A database laid out on an engine's devices for one scoring and set of options:
 * made once, it serves every query (the database is uploaded when the searcher is
 * made, not per query). Shareable between threads: searches on one searcher from
 * several threads are serialised per device queue, their CPU work (statistics,
 * alignments) runs in parallel.
 */
typedef struct clsw_searcher clsw_searcher;

/**
 * An optimal three-sequence local alignment. Immutable; give each thread its own.
 */
typedef struct clsw_sw3_alignment clsw_sw3_alignment;

/**
 * The scores of a batch of triples, highest first. Immutable; give each thread its own.
 */
typedef struct clsw_sw3_results clsw_sw3_results;

/**
 * An alignment, as `clsw_alignment_get` describes it. Coordinates are 1-based and
 * inclusive; when no pair of residues scores above 0 the alignment is empty: score,
 * coordinates and counts 0, strings "".
 */
typedef struct clsw_alignment_info {
    /**
     * `sizeof(clsw_alignment_info)`, set by the caller.
     */
    size_t size;
    /**
     * The optimal score (in the scoring's mode).
     */
    int32_t score;
    /**
     * First aligned residue of the first sequence (the query), 1-based.
     */
    size_t query_start;
    /**
     * Last aligned residue of the query, 1-based, inclusive.
     */
    size_t query_end;
    /**
     * First aligned residue of the second sequence (the subject), 1-based.
     */
    size_t subject_start;
    /**
     * Last aligned residue of the subject, 1-based, inclusive.
     */
    size_t subject_end;
    /**
     * Alignment columns.
     */
    size_t length;
    /**
     * Columns with identical residues.
     */
    size_t identities;
    /**
     * Columns with a positive substitution score.
     */
    size_t similarities;
    /**
     * Aligned pairs that differ.
     */
    size_t mismatches;
    /**
     * Gaps opened.
     */
    size_t gap_opens;
    /**
     * Gap columns.
     */
    size_t gap_columns;
    /**
     * `100 * identities / length`.
     */
    double percent_identity;
    /**
     * CIGAR with `=` (identical), `X` (mismatch), `I` (query residue against a gap),
     * `D` (subject residue against a gap). Owned by the alignment handle.
     */
    const char *cigar;
    /**
     * The same CIGAR with `M` for every aligned pair. Owned by the alignment handle.
     */
    const char *cigar_m;
    /**
     * The aligned query, `-` for gaps, upper case. Owned by the alignment handle.
     */
    const char *query_row;
    /**
     * One character per column: `|` identical, `+` positive score, space otherwise.
     */
    const char *midline;
    /**
     * The aligned subject, `-` for gaps. Owned by the alignment handle.
     */
    const char *subject_row;
} clsw_alignment_info;

/**
 * Alphabet of sequences, scoring schemes and databases.
 */
typedef uint32_t clsw_alphabet;

/**
 * Kind of an OpenCL device (`clsw_device_info.kind`).
 */
typedef uint32_t clsw_device_kind;

/**
 * One OpenCL device, as `clsw_device_get` describes it. Set `size` to
 * `sizeof(clsw_device_info)` before the call. Text fields are NUL-terminated and
 * truncated to fit.
 */
typedef struct clsw_device_info {
    /**
     * `sizeof(clsw_device_info)`, set by the caller.
     */
    size_t size;
    /**
     * The device's index: what `clsw_engine_new` accepts as a choice ("0", "1", ...).
     */
    size_t index;
    /**
     * `CLSW_DEVICE_GPU`, `CLSW_DEVICE_CPU` or `CLSW_DEVICE_OTHER`.
     */
    clsw_device_kind kind;
    /**
     * Compute units (streaming multiprocessors, cores).
     */
    uint32_t compute_units;
    /**
     * Highest clock, in MHz (0 when the driver does not say).
     */
    uint32_t clock_mhz;
    /**
     * Global memory, bytes.
     */
    uint64_t global_mem_bytes;
    /**
     * Largest single allocation, bytes.
     */
    uint64_t max_alloc_bytes;
    /**
     * Local (shared) memory per work-group, bytes.
     */
    uint64_t local_mem_bytes;
    /**
     * Most work-items in one work-group.
     */
    size_t max_work_group_size;
    /**
     * Device name.
     */
    char name[256];
    /**
     * Platform name (e.g. "NVIDIA CUDA", "Portable Computing Language").
     */
    char platform[128];
    /**
     * OpenCL C version the device compiles.
     */
    char opencl_c_version[64];
    /**
     * Driver version.
     */
    char driver_version[64];
} clsw_device_info;

/**
 * Kernel variant on OpenCL devices (`clsw_search_options.variant`); the native CPU
 * path ignores it. All give the same scores.
 */
typedef uint32_t clsw_variant;

/**
 * Which strands of a DNA query to search (`clsw_search_options.strands`).
 */
typedef uint32_t clsw_strands;

/**
 * CIGAR strings of hits (`clsw_search_options.cigar`).
 */
typedef uint32_t clsw_cigar;

/**
 * Where a search may take its E-values from (`clsw_search_options.stats`).
 */
typedef uint32_t clsw_stats;

/**
 * How a searcher searches. Fill it with `clsw_search_options_init`, then change
 * fields; or pass NULL for the defaults.
 */
typedef struct clsw_search_options {
    /**
     * `sizeof(clsw_search_options)` (set by `clsw_search_options_init`).
     */
    size_t size;
    /**
     * Report at most this many hits per query (ssearch36 `-b`, BLAST
     * `-max_target_seqs`). Default 50.
     */
    size_t max_hits;
    /**
     * Report only hits with an E-value at most this (ssearch36 `-E`, BLAST
     * `-evalue`); not applied when no E-values are available. Default 10.
     */
    double evalue;
    /**
     * Most residues uploaded to one device at a time; a larger database is scanned
     * in batches. 0 (the default): from the device's memory.
     */
    uint64_t batch_residues;
    /**
     * A `CLSW_VARIANT_*`. Default `CLSW_VARIANT_AUTO`.
     */
    clsw_variant variant;
    /**
     * A `CLSW_STRANDS_*`. Default `CLSW_STRANDS_BOTH`.
     */
    clsw_strands strands;
    /**
     * Nonzero: align every reported hit (coordinates, identity, lengths, CIGAR).
     * Zero: hits carry score, E-value and bit score only. Default 1.
     */
    int32_t alignments;
    /**
     * A `CLSW_CIGAR_*`: the CIGAR string of each hit (needs `alignments`). Default
     * `CLSW_CIGAR_NONE`.
     */
    clsw_cigar cigar;
    /**
     * A `CLSW_STATS_*`. Default `CLSW_STATS_AUTO`. Appended after the first version: a
     * caller whose `size` ends before it gets the default, as for `db_size`.
     */
    clsw_stats stats;
    /**
     * The number of database sequences E-values count (`D` of `E = D P`; ssearch36
     * `-Z`); 0 (the default): the database's own.
     */
    uint64_t db_size;
    /**
     * Most alignments per subject (BLAST `-max_hsps`): its best, then further ones
     * that do not overlap it in the subject, as ssearch36 lists them (each with its
     * own E-value within a tenth of `evalue`); they follow their subject's best in the
     * hits (`clsw_hit.hsp`). 0 or 1 (the default): the best alone. Appended later: a
     * caller whose `size` ends before it gets the default.
     */
    size_t max_hsps;
} clsw_search_options;

/**
 * The strand of a hit (`clsw_hit.strand`).
 */
typedef uint32_t clsw_strand;

/**
 * One hit. Coordinates are 1-based and inclusive, as BLAST tabular and SAM print
 * them; for a DNA hit on the minus strand they follow BLAST's Plus/Minus convention
 * (`query_start < query_end` on the forward query, `subject_start > subject_end`).
 * Alignment fields are 0 (and `cigar` NULL) when the search computed no alignments.
 */
typedef struct clsw_hit {
    /**
     * `sizeof(clsw_hit)`, set by the caller.
     */
    size_t size;
    /**
     * The subject's 0-based index in database order.
     */
    size_t subject;
    /**
     * The subject's id, NUL-terminated; owned by the hits handle.
     */
    const char *subject_id;
    /**
     * The subject's length.
     */
    size_t subject_length;
    /**
     * Raw Smith-Waterman score.
     */
    int32_t score;
    /**
     * `CLSW_STRAND_PLUS`, or `CLSW_STRAND_MINUS` when the query's reverse complement
     * matched (DNA).
     */
    clsw_strand strand;
    /**
     * E-value (`NaN` when the search has no statistics).
     */
    double evalue;
    /**
     * Bit score (`NaN` when the search has no statistics).
     */
    double bit_score;
    /**
     * Nonzero when the alignment fields below are filled.
     */
    int32_t has_alignment;
    /**
     * First aligned query residue, 1-based.
     */
    size_t query_start;
    /**
     * Last aligned query residue, 1-based, inclusive.
     */
    size_t query_end;
    /**
     * First aligned subject residue, 1-based (the larger one on the minus strand).
     */
    size_t subject_start;
    /**
     * Last aligned subject residue, 1-based, inclusive.
     */
    size_t subject_end;
    /**
     * Alignment columns (aligned pairs plus gap columns).
     */
    size_t length;
    /**
     * Columns with identical residues.
     */
    size_t identities;
    /**
     * Columns with a positive substitution score.
     */
    size_t similarities;
    /**
     * Aligned pairs that differ.
     */
    size_t mismatches;
    /**
     * Gaps opened.
     */
    size_t gap_opens;
    /**
     * Gap columns.
     */
    size_t gap_columns;
    /**
     * `100 * identities / length` (BLAST's pident).
     */
    double percent_identity;
    /**
     * The CIGAR string asked for with `clsw_search_options.cigar` (reading the
     * subject forward; for the minus strand, of the reverse-complemented query), or
     * NULL. Owned by the hits handle.
     */
    const char *cigar;
    /**
     * 0 for the subject's best alignment; 1, 2, ... for its further ones
     * (`clsw_search_options.max_hsps`), which follow it, best first. Appended later: a
     * caller whose `size` ends before it does not get it.
     */
    size_t hsp;
} clsw_hit;

/**
 * Where a search's E-values come from (`clsw_search_info.evalue_source`).
 */
typedef uint32_t clsw_evalue_source;

/**
 * About one query's search (`clsw_hits_info`).
 */
typedef struct clsw_search_info {
    /**
     * `sizeof(clsw_search_info)`, set by the caller.
     */
    size_t size;
    /**
     * Number of hits.
     */
    size_t hits;
    /**
     * The query's length.
     */
    size_t query_length;
    /**
     * Sequences in the database (the `D` of `E = D * P`).
     */
    size_t db_sequences;
    /**
     * Strands searched (1, or 2 for DNA on both strands).
     */
    size_t strands_searched;
    /**
     * Subjects recomputed at 32 bits after their 16-bit score saturated.
     */
    size_t recomputed;
    /**
     * Dynamic-programming cells computed (query length x database residues x strands).
     */
    uint64_t cells;
    /**
     * A `CLSW_EVALUE_*`.
     */
    clsw_evalue_source evalue_source;
    /**
     * Karlin-Altschul lambda (`NaN` without statistics).
     */
    double lambda;
    /**
     * Karlin-Altschul K (`NaN` without statistics).
     */
    double k;
    /**
     * Kernel time on the devices (from profiling events; 0 on the native path), seconds.
     */
    double kernel_seconds;
    /**
     * Host time of the scan, seconds.
     */
    double scan_seconds;
    /**
     * Scan plus statistics, hit selection and alignments, seconds.
     */
    double wall_seconds;
} clsw_search_info;

/**
 * The alignment mode of a scoring (`clsw_scoring_with_mode`; every `clsw_scoring_new_*`
 * gives `CLSW_MODE_LOCAL`).
 */
typedef uint32_t clsw_mode;

/**
 * How significance is estimated. Fill it with `clsw_psse_options_init`, then change
 * fields; or pass NULL for the defaults.
 */
typedef struct clsw_psse_options {
    /**
     * `sizeof(clsw_psse_options)` (set by `clsw_psse_options_init`).
     */
    size_t size;
    /**
     * Shuffles of each subject (at least 2). Default 1000.
     */
    size_t shuffles;
    /**
     * 0: uniform shuffles of the whole subject; `w > 0`: shuffles within consecutive
     * windows of `w` residues (local composition kept, like `prss -v w`). Default 0.
     */
    size_t window;
    /**
     * Seed of the shuffles' generator: the same seed gives the same shuffles, scores
     * and fits on every device and on the native CPU path. Default 42.
     */
    uint64_t seed;
    /**
     * 0: complete maximum-likelihood fit. A quantile strictly between 0 and 1:
     * censored fit, shuffle scores below that quantile counted but not used. Default 0.
     */
    double censor_below;
    /**
     * `CLSW_VARIANT_TEAM` (two shuffles per team of work-items, the query's rows
     * spread over the team; with enough queries, two queries per team against one
     * shuffle), `CLSW_VARIANT_FAST` (two shuffles per work-item in 16-bit
     * lanes) or `CLSW_VARIANT_INTER` (one per work-item); the native CPU path ignores
     * it. All give the same results. Default `CLSW_VARIANT_TEAM`.
     */
    clsw_variant variant;
    /**
     * Nonzero: keep every pair's shuffle scores (`clsw_psse_results_scores`). Default 0.
     */
    int32_t keep_scores;
} clsw_psse_options;

/**
 * One pair's significance (`clsw_psse`, `clsw_psse_results_get`).
 */
typedef struct clsw_psse_result {
    /**
     * `sizeof(clsw_psse_result)`, set by the caller.
     */
    size_t size;
    /**
     * `CLSW_OK`, or why this pair has no statistics (`CLSW_ERR_INVALID_ARGUMENT` when
     * its shuffle scores cannot be fitted, e.g. all equal); the numbers below are then 0.
     */
    enum clsw_status status;
    /**
     * The pair's query: its 0-based index among the queries.
     */
    size_t query;
    /**
     * The pair's subject: its 0-based index among the subjects.
     */
    size_t subject;
    /**
     * Query length (`m`).
     */
    size_t query_length;
    /**
     * Subject length (`n`).
     */
    size_t subject_length;
    /**
     * The pair's Smith-Waterman score.
     */
    int32_t score;
    /**
     * Location of the Gumbel fitted to the shuffle scores.
     */
    double mu;
    /**
     * Its scale: `P(S <= x) = exp(-exp(-lambda (x - mu)))`.
     */
    double lambda;
    /**
     * `K = exp(lambda mu) / (m n)`.
     */
    double k;
    /**
     * `P(S >= score) = 1 - exp(-e_value)`.
     */
    double p_value;
    /**
     * `K m n exp(-lambda score)`: expected alignments scoring at least `score` in one
     * comparison of the two sequences (ssearch36's `E(1)`).
     */
    double e_value;
    /**
     * Shuffles aligned.
     */
    size_t shuffles;
    /**
     * Shuffle scores below the censoring cutoff (0 for a complete fit).
     */
    size_t censored;
    /**
     * The censoring cutoff (a score); `NaN` for a complete fit.
     */
    double cutoff;
    /**
     * Alignments recomputed exactly after their 16-bit device score saturated.
     */
    size_t recomputed;
    /**
     * Why the pair has no statistics (NUL-terminated, owned by the results handle), or
     * NULL when `status` is `CLSW_OK`. Always NULL from `clsw_psse`, which returns the
     * failure instead.
     */
    const char *error;
} clsw_psse_result;

/**
 * Which alignment letters are compared (`clsw_distance_options.coding`): flags, OR-ed.
 */
typedef uint32_t clsw_distance_coding;

/**
 * Where the pairs are counted (`clsw_distance_options.variant`).
 */
typedef uint32_t clsw_distance_variant;

/**
 * The values `clsw_distance_result_values` gives (`clsw_distance_options.metric`); PLINK's
 * definitions with missing calls skipped (`--distance ... flat-missing`).
 */
typedef uint32_t clsw_distance_metric;

/**
 * What to compute. Fill it with `clsw_distance_options_init`, then change fields; or
 * pass NULL for the defaults.
 */
typedef struct clsw_distance_options {
    /**
     * `sizeof(clsw_distance_options)` (set by `clsw_distance_options_init`).
     */
    size_t size;
    /**
     * Alignments only: `CLSW_DISTANCE_SNP` (default), or `CLSW_DISTANCE_COUNT_GAPS` and/or
     * `CLSW_DISTANCE_COUNT_N`. Must be `CLSW_DISTANCE_SNP` for genotype inputs.
     */
    clsw_distance_coding coding;
    /**
     * Nonzero: leave out sites where at most one compared state occurs across all
     * samples (differences are unchanged; compared counts and the metrics that use them
     * change). Default 0.
     */
    int32_t ignore_constant;
    /**
     * `CLSW_DISTANCE_BITPLANE` (default), `CLSW_DISTANCE_CHARPACKED` or
     * `CLSW_DISTANCE_CPU`. All give the same counts.
     */
    clsw_distance_variant variant;
    /**
     * Nonzero: also count the sites each pair compares (`clsw_distance_result_compared`).
     * Implied by every metric but `CLSW_METRIC_DIFF`. Default 0.
     */
    int32_t want_compared;
    /**
     * What `clsw_distance_result_values` gives: `CLSW_METRIC_DIFF` (default),
     * `CLSW_METRIC_ALLELE_CT`, `CLSW_METRIC_IBS` or `CLSW_METRIC_ONE_MINUS_IBS`.
     */
    clsw_distance_metric metric;
} clsw_distance_options;

/**
 * Deprecated since 0.2.0: the old name of `clsw_distance_result`.
 */
typedef struct clsw_distance_result clsw_distances;

/**
 * How sequences are given to the sw3 functions (`clsw_sw3_options.input`).
 */
typedef uint32_t clsw_sw3_input;

/**
 * Options of the sw3 functions. Fill it with `clsw_sw3_options_init`, then change
 * fields; or pass NULL for the defaults.
 */
typedef struct clsw_sw3_options {
    /**
     * `sizeof(clsw_sw3_options)` (set by `clsw_sw3_options_init`).
     */
    size_t size;
    /**
     * `CLSW_SW3_LETTERS` (default) or `CLSW_SW3_CODES`.
     */
    clsw_sw3_input input;
} clsw_sw3_options;

/**
 * A three-sequence alignment, as `clsw_sw3_alignment_get` describes it. Coordinates
 * are 1-based and inclusive; a sequence the alignment leaves out has `start = end + 1`
 * (an empty segment). When nothing scores above 0 the alignment is empty: score,
 * coordinates and counts 0, rows "".
 */
typedef struct clsw_sw3_alignment_info {
    /**
     * `sizeof(clsw_sw3_alignment_info)`, set by the caller.
     */
    size_t size;
    /**
     * The optimal local score (sum of pairs).
     */
    int32_t score;
    /**
     * Per sequence (a, b, c): the first aligned residue, 1-based.
     */
    size_t start[3];
    /**
     * Per sequence: the last aligned residue, 1-based, inclusive.
     */
    size_t end[3];
    /**
     * Alignment columns.
     */
    size_t length;
    /**
     * Columns where all three sequences have the same residue.
     */
    size_t identities;
    /**
     * Columns with a gap in at least one sequence.
     */
    size_t gapped_columns;
    /**
     * The three gapped rows (a, b, c), `-` for gaps, each `length` characters: residue
     * letters, or `'a' + code` for codes. Owned by the alignment handle.
     */
    const char *rows[3];
} clsw_sw3_alignment_info;

/**
 * One triple of a batch (`clsw_sw3_results_get`).
 */
typedef struct clsw_sw3_row {
    /**
     * `sizeof(clsw_sw3_row)`, set by the caller.
     */
    size_t size;
    /**
     * The sequence in the role a: its 0-based index in the batch's sequences.
     */
    size_t a;
    /**
     * The sequence in the role b.
     */
    size_t b;
    /**
     * The sequence in the role c.
     */
    size_t c;
    /**
     * The triple's best local score (0 when nothing scores above 0).
     */
    int32_t score;
    /**
     * The end cell, as `clsw_sw3_score`'s `end`: per role, the 1-based position of the
     * last residue covered (all 0 when the score is 0).
     */
    size_t end[3];
} clsw_sw3_row;

/**
 * Protein: codes `ARNDCQEGHILKMFPSTWYVBZX*` (U, O, J read as X; lower case accepted).
 */
#define CLSW_ALPHABET_PROTEIN 0

/**
 * DNA: `ACGTN` (U read as T, IUPAC ambiguity codes as N; lower case accepted).
 */
#define CLSW_ALPHABET_DNA 1

/**
 * Only for `clsw_db_new_fasta` and `clsw_db_new_file`: guess from the residues (DNA
 * when at least 90% of the letters are A, C, G, T, U or N; `clsw_db_new_file` first
 * takes a prepared database's own or the scoring's).
 */
#define CLSW_ALPHABET_AUTO 2

#define CLSW_DEVICE_GPU 0

#define CLSW_DEVICE_CPU 1

/**
 * An accelerator that is neither a GPU nor a CPU.
 */
#define CLSW_DEVICE_OTHER 2

/**
 * Retired (slower than `TEAM` on every device measured; CHANGELOG.md): taken as
 * `CLSW_VARIANT_AUTO` in a search and as psse's default until the next minor
 * release, which removes the name. The value of a zeroed struct.
 */
#define CLSW_VARIANT_FAST 0

/**
 * One subject per work-item, query bands in registers (the inter-task seed's design);
 * the database stays resident on the device.
 */
#define CLSW_VARIANT_INTER 1

/**
 * One work-group per subject along anti-diagonals (the intra-task seed's design).
 */
#define CLSW_VARIANT_INTRA 2

/**
 * One work-item per subject, 32-bit, no tiling: the readable kernel.
 */
#define CLSW_VARIANT_PLAIN 3

/**
 * Two subjects per team of work-items, each holding a slice of the query's rows
 * (warp shuffles on NVIDIA); resident like `INTER`, and faster on GPUs.
 */
#define CLSW_VARIANT_TEAM 4

/**
 * Searches only: each device's own variant, `TEAM` on GPUs and `INTER` on CPU
 * devices (where `TEAM` runs about 5 times slower). The default of
 * `clsw_search_options_init`.
 */
#define CLSW_VARIANT_AUTO 5

/**
 * Both strands (the default; for protein, the one strand there is).
 */
#define CLSW_STRANDS_BOTH 0

/**
 * The query as given (DNA only: an error for protein, whose one strand is `BOTH`).
 */
#define CLSW_STRANDS_PLUS 1

/**
 * The reverse complement only (DNA only: an error for protein).
 */
#define CLSW_STRANDS_MINUS 2

#define CLSW_STRAND_PLUS 0

/**
 * The reverse complement of a DNA query matched.
 */
#define CLSW_STRAND_MINUS 1

/**
 * No CIGAR (`clsw_hit.cigar` is NULL). The default.
 */
#define CLSW_CIGAR_NONE 0

/**
 * `=` (identical), `X` (mismatch), `I` (insertion: query residue against a gap),
 * `D` (deletion: subject residue against a gap), e.g. `"12=1X3=2I20="`.
 */
#define CLSW_CIGAR_EXTENDED 1

/**
 * `M` for every aligned pair, `I`, `D` (SAM's classic form).
 */
#define CLSW_CIGAR_M 2

/**
 * `(lambda, K)` fitted to the query's own scores against the database
 * (length-corrected maximum likelihood, as ssearch36 does).
 */
#define CLSW_EVALUE_FITTED 0

/**
 * NCBI BLAST's published `(lambda, K)` for the matrix and gap costs.
 */
#define CLSW_EVALUE_PUBLISHED 1

/**
 * None available: E-values and bit scores are NaN and no E-value threshold applies.
 */
#define CLSW_EVALUE_NONE 2

/**
 * ssearch36's regression of the query's scores on the logarithm of the subject length
 * (`lambda` and `K` are NaN: the E-values come from each score's z-score).
 */
#define CLSW_EVALUE_REGRESSION 3

/**
 * `(lambda, K)` fitted to the query's scores against shuffled database subjects.
 */
#define CLSW_EVALUE_SHUFFLED 4

/**
 * A normal distribution fitted to the query's global or glocal scores, as ggsearch36
 * and glsearch36 do (`lambda` and `K` are NaN).
 */
#define CLSW_EVALUE_NORMAL 5

/**
 * The fit to the query's scores against the database when it succeeds (200 positive
 * scores), else BLAST's published parameters, else the fit to shuffled subjects (a
 * small DNA database), else none. The default.
 */
#define CLSW_STATS_AUTO 0

/**
 * Only the fit: no E-values where it fails.
 */
#define CLSW_STATS_FIT 1

/**
 * Only BLAST's published parameters (independent of the database: with a fixed
 * `db_size`, a hit's E-value is too); none where BLAST publishes none.
 */
#define CLSW_STATS_PUBLISHED 2

/**
 * No E-values (nor bit scores): NaN.
 */
#define CLSW_STATS_NONE 3

/**
 * ssearch36's default (`-z 1`): the scores' mean and variance regressed on the
 * logarithm of the subject length.
 */
#define CLSW_STATS_REGRESSION 4

/**
 * The fit to the query's scores against 2,000 shuffled database subjects (any
 * database size, DNA too).
 */
#define CLSW_STATS_SHUFFLE 5

/**
 * Smith-Waterman: both sequences may start and end anywhere (ssearch36).
 */
#define CLSW_MODE_LOCAL 0

/**
 * Needleman-Wunsch: both sequences whole, end gaps charged (ggsearch36).
 */
#define CLSW_MODE_GLOBAL 1

/**
 * The query whole, the subject from anywhere to anywhere (glsearch36).
 */
#define CLSW_MODE_GLOCAL 2

/**
 * snp-dists' default: only A, C, G, T (any case) are compared; a site where either
 * sample has anything else is skipped for that pair.
 */
#define CLSW_DISTANCE_SNP 0

/**
 * A gap (`-` or `.`) is a state of its own: gap against base is a difference, gap
 * against gap is not.
 */
#define CLSW_DISTANCE_COUNT_GAPS 1

/**
 * N and every other letter but A/C/G/T (IUPAC codes, `?`, `X`) are one state "N".
 */
#define CLSW_DISTANCE_COUNT_N 2

/**
 * Bit planes, tiles of samples x samples in local memory (the fast kernel).
 */
#define CLSW_DISTANCE_BITPLANE 0

/**
 * Payne et al.'s design: code bytes packed four per word, one work-group per pair.
 */
#define CLSW_DISTANCE_CHARPACKED 1

/**
 * Bit planes on all CPU cores, no OpenCL (also what an engine without OpenCL devices
 * runs, whatever the variant).
 */
#define CLSW_DISTANCE_CPU 2

/**
 * Differing compared sites (snp-dists' SNP distance; differing genotypes).
 */
#define CLSW_METRIC_DIFF 0

/**
 * PLINK `allele-ct` (.dist): genotypes `(diff + ibs0) * sites / compared`, alignments
 * `diff * sites / compared`.
 */
#define CLSW_METRIC_ALLELE_CT 1

/**
 * PLINK `ibs` (.mibs): `1 - (diff + ibs0) / (2 compared)` for genotypes, `1 - diff /
 * compared` for alignments; 1 on the diagonal.
 */
#define CLSW_METRIC_IBS 2

/**
 * PLINK `1-ibs` (.mdist): one minus `CLSW_METRIC_IBS`.
 */
#define CLSW_METRIC_ONE_MINUS_IBS 3

/**
 * Residue letters of the scoring's alphabet (upper or lower case), as everywhere else.
 */
#define CLSW_SW3_LETTERS 0

/**
 * Alphabet codes `0 .. size - 1` of the scoring's matrix (24 for protein, 5 for DNA):
 * for SAX words from `clsw_sax`, scored with
 * `clsw_scoring_new_match_mismatch(CLSW_ALPHABET_PROTEIN, ...)` (24 codes, room for
 * every SAX alphabet). Aligned rows then show code `c` as the letter `'a' + c`.
 */
#define CLSW_SW3_CODES 1

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * The library's version, `"MAJOR.MINOR.PATCH"`: a static string, never NULL, never
 * to be freed. Compare with the `CLSW_VERSION_*` macros the program was compiled with.
 */
const char *clsw_version(void);

/**
 * A short static description of a status code (`"CLSW_ERR_IO: input/output error"`);
 * never NULL, never to be freed. `status` is a `clsw_status` value; any other number
 * gives `"unknown clsw_status"`.
 */
const char *clsw_status_str(int status);

/**
 * The detailed message of the last call on this thread that returned a
 * `clsw_status`: empty after a success; after a failure, what went wrong (the file,
 * record and line of bad input, the OpenCL call and error name, a kernel's build
 * log, which argument was NULL). Never NULL. The string belongs to clsw and stays
 * valid until the next clsw call on the same thread: copy it to keep it.
 */
const char *clsw_last_error(void);

/**
 * Aligns `query` (`query_len` letters) with `subject` (`subject_len` letters), both
 * residue letters of the scoring's alphabet (not NUL-terminated; upper or lower
 * case): the optimal alignment in the scoring's mode with affine gaps, ties broken as
 * the search's alignments break them. Runs on the calling thread. On success `*out` is a new
 * alignment to free with `clsw_alignment_free`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (an empty sequence, a letter that is not a
 * residue — the message gives its position —, lengths at which a score could pass
 * 32 bits), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `scoring` is NULL or a live scoring; `query` and `subject` are NULL or have
 * `query_len` and `subject_len` readable bytes; `out` is NULL or writable.
 */
enum clsw_status clsw_align(const struct clsw_scoring *scoring,
                            const uint8_t *query,
                            size_t query_len,
                            const uint8_t *subject,
                            size_t subject_len,
                            struct clsw_alignment **out);

/**
 * The optimal score (in the scoring's mode) of `query` against `subject` alone (no traceback; less
 * memory and time than `clsw_align`). Arguments as for `clsw_align`.
 *
 * # Safety
 * As for `clsw_align`; `score` is NULL or writable.
 */
enum clsw_status clsw_align_score(const struct clsw_scoring *scoring,
                                  const uint8_t *query,
                                  size_t query_len,
                                  const uint8_t *subject,
                                  size_t subject_len,
                                  int32_t *score);

/**
 * Frees an alignment; NULL is ignored. Strings read from it die with it.
 *
 * # Safety
 * `alignment` is NULL or an alignment from `clsw_align`, not yet freed.
 */
void clsw_alignment_free(struct clsw_alignment *alignment);

/**
 * Copies the alignment's description into `*out`, whose `size` the caller sets to
 * `sizeof(clsw_alignment_info)`. The strings it points to belong to `alignment`.
 *
 * # Safety
 * `alignment` is NULL or a live alignment; `out` is NULL or has `out->size` writable
 * bytes.
 */
enum clsw_status clsw_alignment_get(const struct clsw_alignment *alignment,
                                    struct clsw_alignment_info *out);

/**
 * Reads a FASTA file (plain or gzip, multi-line records) into a database. `path` is
 * NUL-terminated, any bytes. `alphabet` is `CLSW_ALPHABET_PROTEIN`,
 * `CLSW_ALPHABET_DNA` or `CLSW_ALPHABET_AUTO` (guessed from the residues). The id
 * of a record is the first word of its header. Records without residues are
 * skipped; letters without a code of their own (U, O, J; IUPAC codes) are read as
 * X or N, and both are noted (`clsw_db_notes`).
 * Errors: `CLSW_ERR_IO` (cannot open or read), `CLSW_ERR_PARSE` (the message names
 * the file, the record number and id, the line and the bad character),
 * `CLSW_ERR_INVALID_ARGUMENT` (no records, a prepared file, an unknown alphabet),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `path` is NULL or NUL-terminated; `out` is NULL or writable.
 */
enum clsw_status clsw_db_new_fasta(const char *path, clsw_alphabet alphabet, struct clsw_db **out);

/**
 * Opens a database file of either kind, FASTA (plain or gzip) or prepared, with its
 * alphabet chosen as `clsw scan` chooses it (the library's one rule): `alphabet` when it
 * is `CLSW_ALPHABET_PROTEIN` or `CLSW_ALPHABET_DNA` (a prepared database of the other
 * alphabet is refused); for `CLSW_ALPHABET_AUTO`, a prepared database's own, else the
 * alphabet of `scoring` (the matrix a user named, as `clsw scan --matrix`; NULL for
 * none, when the scoring is to follow the database), else guessed from the FASTA
 * residues. FASTA is read as by `clsw_db_new_fasta`, a prepared database opened as by
 * `clsw_db_new_prepared`. What the choice and the reading note,
 * the lines `clsw scan` prints after `clsw: ` for the same inputs (a protein scoring's
 * warning for residues that look like DNA, letters read as X or N, empty records
 * skipped), are kept with the database: `clsw_db_notes`.
 * Errors: those of `clsw_db_new_fasta` and `clsw_db_new_prepared` (an unreadable
 * matrix file is no error here: `scoring` was read when it was made).
 *
 * # Safety
 * `path` is NULL or NUL-terminated; `scoring` is NULL or a live handle; `out` is NULL
 * or writable.
 */
enum clsw_status clsw_db_new_file(const char *path,
                                  clsw_alphabet alphabet,
                                  const struct clsw_scoring *scoring,
                                  struct clsw_db **out);

/**
 * What opening the database noted, the lines `clsw` prints after `clsw: ` (see
 * `clsw_db_new_file`; `clsw_db_new_fasta` notes letters read as X or N and empty
 * records skipped), joined by newlines (none after the last), NUL-terminated, into
 * `buf` of `len` bytes; `*needed` as for `clsw_db_id`. An empty string when there is
 * nothing to note (always for databases built from memory or prepared files opened by
 * `clsw_db_new_prepared`).
 * Errors: `CLSW_ERR_BUFFER_TOO_SMALL`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `db` is NULL or a live handle; `buf` is NULL or holds `len` writable bytes; `needed`
 * is NULL or writable.
 */
enum clsw_status clsw_db_notes(const struct clsw_db *db, char *buf, size_t len, size_t *needed);

/**
 * Opens a prepared database written by `clsw_db_write_prepared` or `clsw makedb`:
 * checked (magic, version, checksums, content) and memory-mapped, not parsed. The
 * file must not be modified while the database is open. A file cut short meanwhile
 * does not end the process: the first mapping installs a SIGBUS handler that reads
 * the lost pages as zeros, and searches of the database then fail with
 * `CLSW_ERR_INVALID_ARGUMENT` naming the file; a SIGBUS elsewhere goes to the handler
 * installed before (a host that installs its own SIGBUS handler later should pass
 * on the signals it does not own).
 * Errors: `CLSW_ERR_IO`, `CLSW_ERR_INVALID_ARGUMENT` (not a prepared database, a
 * damaged or truncated one, another format version: the message says which),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `path` is NULL or NUL-terminated; `out` is NULL or writable.
 */
enum clsw_status clsw_db_new_prepared(const char *path, struct clsw_db **out);

/**
 * Builds a database from `count` sequences in memory (copied; the caller's arrays
 * may be freed after the call). Sequence `k` is the `lengths[k]` residue letters at
 * `sequences[k]` (not NUL-terminated; upper or lower case). `names` may be NULL (the
 * ids are then "1", "2", ...), and so may any `names[k]`; a name is NUL-terminated
 * UTF-8 text whose first word is the id and the rest the description, as in a FASTA
 * header.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (`count` is 0, an empty sequence, a letter that
 * is not a residue of `alphabet` — the message gives the sequence and position —, a
 * name that is not UTF-8 or whose id holds a control character), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `sequences` and `lengths` are NULL or have `count` elements, `names` is NULL or has
 * `count` (each NULL or NUL-terminated); `sequences[k]` has `lengths[k]` readable
 * bytes; `out` is NULL or writable.
 */
enum clsw_status clsw_db_new_sequences(clsw_alphabet alphabet,
                                       size_t count,
                                       const uint8_t *const *sequences,
                                       const size_t *lengths,
                                       const char *const *names,
                                       struct clsw_db **out);

/**
 * Builds a database from `count` sequences in memory in the caller's own residue
 * codes, as a host program keeps them (FASTA's ssearch36 stores residues as small
 * integers): byte `c` of a sequence stands for the letter `code_letters[c]`, read as
 * `clsw_db_new_sequences` reads letters (so a code of letter `U` is read as X). A
 * code at or past `code_count`, or whose letter is 0 or not a residue of `alphabet`,
 * is refused in the sequence that holds it. Otherwise as `clsw_db_new_sequences`:
 * copied, `names` may be NULL, the same errors. Scoring such a database with the
 * host's own matrix: `clsw_scoring_new_matrix` over the same letters.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (`count` or `code_count` is 0, a bad code —
 * the message gives the sequence, the position and the code —, as for
 * `clsw_db_new_sequences`), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `code_letters` is NULL or has `code_count` readable bytes; the other arrays as for
 * `clsw_db_new_sequences`; `out` is NULL or writable.
 */
enum clsw_status clsw_db_new_codes(clsw_alphabet alphabet,
                                   const uint8_t *code_letters,
                                   size_t code_count,
                                   size_t count,
                                   const uint8_t *const *sequences,
                                   const size_t *lengths,
                                   const char *const *names,
                                   struct clsw_db **out);

/**
 * The residue letters of `alphabet` in code order (`ARNDCQEGHILKMFPSTWYVBZX*` for
 * protein, `ACGTN` for DNA), NUL-terminated, into `buf` of `len` bytes; `*needed` as
 * for `clsw_db_id`. These letters are scored exactly as a matrix gives them; every
 * other letter a sequence may hold (U, O, J; IUPAC codes) is read as X or N. A host
 * with codes of its own hands clsw only sequences in these letters when it needs
 * clsw's scores to equal its own.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (an unknown alphabet), `CLSW_ERR_BUFFER_TOO_SMALL`,
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `buf` is NULL or has `len` writable bytes; `needed` is NULL or writable.
 */
enum clsw_status clsw_alphabet_letters(clsw_alphabet alphabet,
                                       char *buf,
                                       size_t len,
                                       size_t *needed);

/**
 * Writes the database as a prepared file (checksummed, memory-mapped when opened
 * with `clsw_db_new_prepared`). The file is written atomically: to a temporary
 * created exclusively beside `path` (never a file or symlink already there), synced,
 * then renamed over `path`; on failure `path` is left as it was. Threads or processes
 * writing the same path each write a whole file (the last rename wins).
 * Errors: `CLSW_ERR_IO`, `CLSW_ERR_INVALID_ARGUMENT` (`path` is a directory),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `db` is NULL or a live database; `path` is NULL or NUL-terminated.
 */
enum clsw_status clsw_db_write_prepared(const struct clsw_db *db, const char *path);

/**
 * Frees a database; NULL is ignored. Searchers and hits made from it keep what they
 * need, so they may be used and freed after it.
 *
 * # Safety
 * `db` is NULL or a database from a `clsw_db_new_*`, not yet freed.
 */
void clsw_db_free(struct clsw_db *db);

/**
 * The number of sequences.
 *
 * # Safety
 * `db` is NULL or a live database; `out` is NULL or writable.
 */
enum clsw_status clsw_db_count(const struct clsw_db *db, size_t *out);

/**
 * The total number of residues.
 *
 * # Safety
 * `db` is NULL or a live database; `out` is NULL or writable.
 */
enum clsw_status clsw_db_total_residues(const struct clsw_db *db, uint64_t *out);

/**
 * The database's alphabet.
 *
 * # Safety
 * `db` is NULL or a live database; `out` is NULL or writable.
 */
enum clsw_status clsw_db_alphabet(const struct clsw_db *db, clsw_alphabet *out);

/**
 * The length of sequence `index` (0-based, database order).
 *
 * # Safety
 * `db` is NULL or a live database; `out` is NULL or writable.
 */
enum clsw_status clsw_db_length(const struct clsw_db *db, size_t index, size_t *out);

/**
 * The id of sequence `index` (the first word of its FASTA header) into `buf` of
 * `len` bytes, NUL-terminated; `*needed` (if not NULL) gets the size required. Too
 * small a buffer: `CLSW_ERR_BUFFER_TOO_SMALL`.
 *
 * # Safety
 * `db` is NULL or a live database; `buf` is NULL or has `len` writable bytes;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_db_id(const struct clsw_db *db,
                            size_t index,
                            char *buf,
                            size_t len,
                            size_t *needed);

/**
 * The residues of sequence `index` as upper-case letters, NUL-terminated, into `buf`
 * of `len` bytes (`clsw_db_length() + 1` suffice); `*needed` as for `clsw_db_id`.
 * Letters read as X or N come back as X or N.
 *
 * # Safety
 * `db` is NULL or a live database; `buf` is NULL or has `len` writable bytes;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_db_sequence(const struct clsw_db *db,
                                  size_t index,
                                  char *buf,
                                  size_t len,
                                  size_t *needed);

/**
 * Creates an engine on the chosen devices. `device` is a NUL-terminated choice:
 * `"auto"` (the fastest GPU, else the native CPU path), `"gpu"`, `"cpu"` (a CPU
 * OpenCL device such as PoCL), `"native"` (the native CPU path, no OpenCL; `"reference"` is an older spelling),
 * `"all"` (every GPU), a device index (`"0"`), a name substring (`"H100"`), or a
 * comma-separated list of these (the work is split over all of them). NULL means
 * the `CLSW_DEVICE` environment variable, or `"auto"` when it is unset. Whatever the
 * choice, `CLSW_PORTABLE=1` makes the OpenCL devices build the portable kernels (no
 * vendor code).
 *
 * Every OpenCL device runs a known-answer self-test first (a fraction of a second;
 * the first use of a device also compiles its kernels). On success `*out` is a new
 * engine to free with `clsw_engine_free`; on failure it is NULL.
 *
 * Errors: `CLSW_ERR_DEVICE` (no such device, or a device failed its self-test),
 * `CLSW_ERR_OPENCL`, `CLSW_ERR_BUILD`, `CLSW_ERR_INVALID_ARGUMENT` (an empty
 * choice, or `CLSW_PORTABLE` neither 1 nor 0), `CLSW_ERR_NULL` (`out` is NULL).
 *
 * # Safety
 * `device` is NULL or NUL-terminated; `out` is NULL or writable.
 */
enum clsw_status clsw_engine_new(const char *device,
                                 struct clsw_engine **out);

/**
 * Frees an engine; NULL is ignored. Searchers made with it keep what they need, so
 * they may be used and freed after it.
 *
 * # Safety
 * `engine` is NULL or an engine from `clsw_engine_new`, not yet freed.
 */
void clsw_engine_free(struct clsw_engine *engine);

/**
 * The number of devices (workers) the engine uses: 1 for a single choice, more for
 * `"all"` or a list. The native CPU path counts as one.
 *
 * # Safety
 * `engine` is NULL or a live engine; `out` is NULL or writable.
 */
enum clsw_status clsw_engine_device_count(const struct clsw_engine *engine, size_t *out);

/**
 * Describes the engine's devices, one line each (`"[0] NAME (PLATFORM)"`, or
 * `"native CPU path (SIMD, no OpenCL)"`), separated by `'\n'`, NUL-terminated, into
 * `buf` of `len` bytes. `*needed` (if not NULL) gets the size required, NUL included;
 * a short buffer gives `CLSW_ERR_BUFFER_TOO_SMALL` (and a truncated, terminated
 * text); `buf` may be NULL when `len` is 0.
 *
 * # Safety
 * `engine` is NULL or a live engine; `buf` is NULL or has `len` writable bytes;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_engine_describe(const struct clsw_engine *engine,
                                      char *buf,
                                      size_t len,
                                      size_t *needed);

/**
 * The number of OpenCL devices on this machine (every platform), 0 when no OpenCL
 * runtime is installed. Discovery runs once per process.
 *
 * # Safety
 * `out` is NULL or writable.
 */
enum clsw_status clsw_device_count(size_t *out);

/**
 * Describes OpenCL device `index` (0 to `clsw_device_count() - 1`) into `*out`, whose
 * `size` the caller sets to `sizeof(clsw_device_info)`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` for an index out of range or a `size` that is
 * too small, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `out` is NULL or a `clsw_device_info` with `size` set, writable for `size` bytes.
 */
enum clsw_status clsw_device_get(size_t index, struct clsw_device_info *out);

/**
 * Fills `*options` with the defaults. `size` is the caller's
 * `sizeof(clsw_search_options)`: only that many bytes are written, so a program
 * compiled against an older header stays correct.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` smaller than the first version's),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `options` is NULL or has `size` writable bytes.
 */
enum clsw_status clsw_search_options_init(struct clsw_search_options *options, size_t size);

/**
 * Lays `db` out on `engine`'s devices for searches with `scoring` and `options`
 * (NULL: the defaults): the database is split over the devices and uploaded once.
 * The searcher keeps the engine and database alive and copies the scoring, so all
 * three may be freed before it. On success `*out` is a new searcher to free with
 * `clsw_searcher_free`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (the matrix's alphabet differs from the
 * database's, `CLSW_STRANDS_PLUS` or `_MINUS` for a protein search, an impossible
 * option, an options `size` that is too small), `CLSW_ERR_OPENCL`, `CLSW_ERR_BUILD`,
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `engine`, `scoring` and `db` are NULL or live handles; `options` is NULL or has
 * `options->size` readable bytes; `out` is NULL or writable.
 */
enum clsw_status clsw_searcher_new(const struct clsw_engine *engine,
                                   const struct clsw_scoring *scoring,
                                   const struct clsw_db *db,
                                   const struct clsw_search_options *options,
                                   struct clsw_searcher **out);

/**
 * `clsw_searcher_new` for one rank of an MPI job: every rank of the communicator
 * calls it with the same database (each its own copy: the ranks check that they
 * agree), scoring and options, and each rank searches its share of the database on
 * `engine`'s devices (shares by residues, in proportion to each rank's measured
 * speed; when every rank's engine is the native CPU path and MPI was initialized with
 * `MPI_THREAD_SERIALIZED` or more, chunks dealt to each rank's threads as they become
 * free, and those threads then call MPI during a search, one call at a time). `comm`
 * is the communicator's Fortran handle, `MPI_Comm_c2f(comm)`, so that this header
 * needs no `mpi.h`; MPI must be initialized, and clsw works on a duplicate of the
 * communicator (`MPI_Comm_dup`), freed with the searcher.
 *
 * The searcher's functions are then collective: every rank calls
 * `clsw_searcher_search` (or `_search_many`) with the same queries (the ranks check),
 * one call at a time (the host's MPI thread level must allow the calling thread to
 * call MPI). Rank 0 receives the hits, exactly those one process would find; on the
 * other ranks `*out` (every `out[k]` of `_search_many`) is set to NULL. Free the
 * searcher (collective too) before `MPI_Finalize`. `clsw_searcher_scores` is refused (every subject's
 * score stays on its rank). An error on any rank returns an error on every rank:
 * the failing rank's own status, `CLSW_ERR_RANK` on the others, whose message names
 * the failing rank and holds its message; no rank waits for a failed one.
 * Errors: those of `clsw_searcher_new`, `CLSW_ERR_RANK`, and `CLSW_ERR_NO_MPI` when
 * clsw was built without MPI (the cargo feature `mpi`).
 *
 * # Safety
 * `engine`, `scoring` and `db` are NULL or live handles; `options` is NULL or has
 * `options->size` readable bytes; `out` is NULL or writable.
 */
enum clsw_status clsw_searcher_new_mpi(const struct clsw_engine *engine,
                                       const struct clsw_scoring *scoring,
                                       const struct clsw_db *db,
                                       const struct clsw_search_options *options,
                                       int32_t comm,
                                       struct clsw_searcher **out);

/**
 * Frees a searcher (and its device buffers); NULL is ignored. Hits from it stay valid.
 *
 * # Safety
 * `searcher` is NULL or a searcher from `clsw_searcher_new*`, not yet freed.
 */
void clsw_searcher_free(struct clsw_searcher *searcher);

/**
 * Searches one query: `len` residue letters at `query` (not NUL-terminated; upper or
 * lower case), named `query_id` (NUL-terminated UTF-8, the first column of tabular
 * lines; NULL gives "query"; no whitespace or control characters, as every sequence
 * id). On success `*out` is a new hits handle to free with `clsw_hits_free`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (an empty query, a letter that is not a residue
 * — the message gives its position —, an id with a tab, newline, space or other
 * control character, a query so long that its score against the longest subject
 * could pass 32 bits), `CLSW_ERR_OPENCL`, `CLSW_ERR_DEVICE`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `searcher` is NULL or a live searcher; `query_id` is NULL or NUL-terminated; `query`
 * is NULL or has `len` readable bytes; `out` is NULL or writable.
 */
enum clsw_status clsw_searcher_search(const struct clsw_searcher *searcher,
                                      const char *query_id,
                                      const uint8_t *query,
                                      size_t len,
                                      struct clsw_hits **out);

/**
 * Searches `count` queries in one call (query `k`: `lengths[k]` letters at
 * `queries[k]`, named `query_ids[k]`; `query_ids` or any entry may be NULL). The
 * devices scan query k + 1 while the CPU aligns the hits of query k, so this is
 * faster than `count` calls of `clsw_searcher_search`. `out` is a caller array of
 * `count` pointers; on success `out[k]` is query k's hits (free each with
 * `clsw_hits_free`); on failure every `out[k]` is NULL.
 *
 * # Safety
 * `searcher` is NULL or a live searcher; `query_ids`, `queries` and `lengths` are NULL
 * or have `count` elements (as for `clsw_searcher_search`); `out` is NULL or has
 * `count` writable pointers.
 */
enum clsw_status clsw_searcher_search_many(const struct clsw_searcher *searcher,
                                           size_t count,
                                           const char *const *query_ids,
                                           const uint8_t *const *queries,
                                           const size_t *lengths,
                                           struct clsw_hits **out);

/**
 * Every subject's optimal local (Smith-Waterman) score against the query, in
 * database order, into `scores` of `scores_len` elements (at least
 * `clsw_db_count()`; only that many are written). For DNA searched on both strands a
 * subject's score is the better of the two. No statistics, hits or alignments are
 * computed: this is the device scan alone.
 * Errors: `CLSW_ERR_BUFFER_TOO_SMALL` (`scores_len` below the database's count),
 * `CLSW_ERR_INVALID_ARGUMENT` (an empty query, a bad letter), `CLSW_ERR_OPENCL`,
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `searcher` is NULL or a live searcher; `query` is NULL or has `len` readable bytes;
 * `scores` is NULL or has `scores_len` writable elements.
 */
enum clsw_status clsw_searcher_scores(const struct clsw_searcher *searcher,
                                      const uint8_t *query,
                                      size_t len,
                                      int32_t *scores,
                                      size_t scores_len);

/**
 * Frees a hits handle; NULL is ignored. Pointers read from it (ids, CIGARs) die with it.
 *
 * # Safety
 * `hits` is NULL or hits from a search, not yet freed.
 */
void clsw_hits_free(struct clsw_hits *hits);

/**
 * The number of hits (0 to `max_hits`).
 *
 * # Safety
 * `hits` is NULL or a live hits handle; `out` is NULL or writable.
 */
enum clsw_status clsw_hits_count(const struct clsw_hits *hits, size_t *out);

/**
 * Copies hit `index` (0 is the best) into `*out`, whose `size` the caller sets to
 * `sizeof(clsw_hit)`. The strings it points to belong to `hits`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, `size` too small),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `hits` is NULL or a live hits handle; `out` is NULL or has `out->size` writable bytes.
 */
enum clsw_status clsw_hits_get(const struct clsw_hits *hits, size_t index, struct clsw_hit *out);

/**
 * Copies the search's statistics into `*out`, whose `size` the caller sets to
 * `sizeof(clsw_search_info)`.
 *
 * # Safety
 * `hits` is NULL or a live hits handle; `out` is NULL or has `out->size` writable bytes.
 */
enum clsw_status clsw_hits_info(const struct clsw_hits *hits, struct clsw_search_info *out);

/**
 * Hit `index` as one BLAST tabular line (`-outfmt 6`: qseqid sseqid pident length
 * mismatch gapopen qstart qend sstart send evalue bitscore, tab-separated, no
 * newline), exactly as `clsw scan --outfmt tabular` prints it; `extended` nonzero
 * appends the raw score and the `=`/`X`/`I`/`D` CIGAR (`tabular-ext`). Written to
 * `buf` of `len` bytes, NUL-terminated; `*needed` (if not NULL) gets the size
 * required (`CLSW_ERR_BUFFER_TOO_SMALL` when `len` is less; 1024 bytes hold any line
 * with ids under 400 characters).
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, or the search computed no
 * alignments), `CLSW_ERR_BUFFER_TOO_SMALL`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `hits` is NULL or a live hits handle; `buf` is NULL or has `len` writable bytes;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_hits_tabular(const struct clsw_hits *hits,
                                   size_t index,
                                   int32_t extended,
                                   char *buf,
                                   size_t len,
                                   size_t *needed);

/**
 * A built-in matrix by name, any case: `BLOSUM45`, `BLOSUM50`, `BLOSUM62`,
 * `BLOSUM80`, `BLOSUM90`, `PAM30`, `PAM70`, `PAM250` (protein), `EDNAFULL` (DNA; also
 * `NUC.4.4`). Gaps follow BLAST's convention: a gap of length L costs
 * `gap_open + L * gap_extend` (`gap_open >= 0`, `gap_extend >= 1`,
 * `gap_open + gap_extend <= 1048576`); a negative cost is read as its size, as
 * ssearch36 writes them and as `clsw --gap-open -11 --gap-extend -1` reads them
 * (`-11, -1` is `11, 1`). Pass `CLSW_GAPS_DEFAULT` for both to get the matrix's
 * customary values (so gaps of 1 and 1 are written `1, 1`). Substitution scores of
 * every scoring lie within -1048576..=1048576, and calls refuse sequence lengths at
 * which a score could pass 32 bits (the highest substitution score times the shorter
 * length, plus one).
 * On success `*out` is a new scoring to free with `clsw_scoring_free`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (an unknown name, impossible gap penalties),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `matrix` is NULL or NUL-terminated; `out` is NULL or writable.
 */
enum clsw_status clsw_scoring_new_builtin(const char *matrix,
                                          int32_t gap_open,
                                          int32_t gap_extend,
                                          struct clsw_scoring **out);

/**
 * A matrix read from an NCBI-format file (`#` comments, a line of column letters, one
 * row per letter); its alphabet is guessed from the letters. `path` is a
 * NUL-terminated path, any bytes. Gaps as for `clsw_scoring_new_builtin`
 * (`CLSW_GAPS_DEFAULT` gives 10/1).
 * Errors: `CLSW_ERR_IO` (cannot read the file), `CLSW_ERR_PARSE` (malformed; the
 * message names the file and the problem, a score out of range included),
 * `CLSW_ERR_INVALID_ARGUMENT`,
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `path` is NULL or NUL-terminated; `out` is NULL or writable.
 */
enum clsw_status clsw_scoring_new_file(const char *path,
                                       int32_t gap_open,
                                       int32_t gap_extend,
                                       struct clsw_scoring **out);

/**
 * A matrix named as the `clsw` command names one (`--matrix`): an NCBI-format file
 * where `name_or_path` is one, else a built-in name (as `clsw_scoring_new_builtin`).
 * Gaps as for `clsw_scoring_new_builtin`.
 * Errors: as `clsw_scoring_new_file` for a file, `CLSW_ERR_INVALID_ARGUMENT` for an
 * unknown name, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `name_or_path` is NULL or NUL-terminated; `out` is NULL or writable.
 */
enum clsw_status clsw_scoring_new(const char *name_or_path,
                                  int32_t gap_open,
                                  int32_t gap_extend,
                                  struct clsw_scoring **out);

/**
 * `match_score` (> 0) for identical residues and `mismatch` (<= 0) for all other
 * pairs, the wildcard included, over `alphabet` (`CLSW_ALPHABET_PROTEIN` or
 * `CLSW_ALPHABET_DNA`). Gaps as for `clsw_scoring_new_builtin` (`CLSW_GAPS_DEFAULT`
 * gives 10/1).
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (scores or gaps out of range), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `out` is NULL or writable.
 */
enum clsw_status clsw_scoring_new_match_mismatch(clsw_alphabet alphabet,
                                                 int32_t match_score,
                                                 int32_t mismatch,
                                                 int32_t gap_open,
                                                 int32_t gap_extend,
                                                 struct clsw_scoring **out);

/**
 * A matrix the caller holds as numbers, such as the one a host program built from
 * its own tables: `letters` (`letter_count` bytes, any case) name the rows and the
 * columns, and `scores` holds `letter_count * letter_count` values, row-major
 * (`scores[i * letter_count + j]` scores `letters[i]` against `letters[j]`). The
 * same rules as a matrix file: letters that are not residues of `alphabet`
 * (`CLSW_ALPHABET_PROTEIN` or `CLSW_ALPHABET_DNA`) are ignored, every residue letter
 * needs its row and column (`*` excepted: absent, it gets the table's lowest score),
 * scores lie within -1048576..=1048576. `clsw_alphabet_letters` lists the letters.
 * Gaps as for `clsw_scoring_new_builtin` (`CLSW_GAPS_DEFAULT` gives 10/1).
 * Errors: `CLSW_ERR_PARSE` (a residue letter without a row or column, a score out of
 * range: the message says which), `CLSW_ERR_INVALID_ARGUMENT` (`letter_count` is 0,
 * impossible gaps), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `letters` has `letter_count` readable bytes and `scores` `letter_count *
 * letter_count` readable values (or is NULL); `out` is NULL or writable.
 */
enum clsw_status clsw_scoring_new_matrix(clsw_alphabet alphabet,
                                         const uint8_t *letters,
                                         size_t letter_count,
                                         const int32_t *scores,
                                         int32_t gap_open,
                                         int32_t gap_extend,
                                         struct clsw_scoring **out);

/**
 * A copy of `scoring` in `mode`. Searches with it report that mode's scores and
 * alignments; in the global and glocal modes their statistics are ggsearch36's and
 * glsearch36's (a normal distribution fitted to the scores of the subjects in the
 * query's length window: 0.75 to 1.33 times the query's length for global, at least
 * 0.75 times for glocal, the only subjects reported), they take one alignment per
 * subject (`max_hsps` 1) and `CLSW_STATS_AUTO`, `CLSW_STATS_FIT` or `CLSW_STATS_NONE`.
 * psse, sw3 and the `plain` and `intra` variants refuse a non-local scoring. Scores
 * may be negative in these modes.
 * On success `*out` is a new scoring to free with `clsw_scoring_free`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (an unknown mode), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `scoring` is NULL or a live scoring; `out` is NULL or writable.
 */
enum clsw_status clsw_scoring_with_mode(const struct clsw_scoring *scoring,
                                        clsw_mode mode,
                                        struct clsw_scoring **out);

/**
 * A copy of `scoring` that scores one query with a profile (a position-specific
 * scoring matrix, PSSM): position `i` of the query scores subject letter `c` with its
 * own score instead of the matrix's. `query` holds the profile's query (`positions`
 * letters of the scoring's alphabet); `scores` holds `positions` rows of
 * `column_count` values, row `i` position `i`'s scores against the letters `columns`
 * (each once, any case); a letter of the alphabet not among them scores as the
 * scoring's matrix scores it against the position's residue (how clsw reads
 * PSI-BLAST's ASCII PSSM, whose 20 columns lack B, Z, X and `*`). Every score within
 * -1048576..=1048576. A searcher made with it searches that query only (other queries
 * are `CLSW_ERR_INVALID_ARGUMENT`); the statistics fit the profile's scores as they fit
 * a matrix's, and the published parameters are the matrix's. psse and sw3 refuse it.
 * On success `*out` is a new scoring to free with `clsw_scoring_free`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (a letter outside the alphabet, a column given
 * twice, a score out of range, no positions), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `scoring` is NULL or a live scoring; `query` is NULL or has `positions` readable
 * bytes, `columns` `column_count`, `scores` `positions * column_count` values; `out` is
 * NULL or writable.
 */
enum clsw_status clsw_scoring_with_pssm(const struct clsw_scoring *scoring,
                                        const uint8_t *query,
                                        size_t positions,
                                        const uint8_t *columns,
                                        size_t column_count,
                                        const int32_t *scores,
                                        struct clsw_scoring **out);

/**
 * The scoring's alignment mode (a `CLSW_MODE_*`).
 *
 * # Safety
 * `scoring` is NULL or a live scoring; `out` is NULL or writable.
 */
enum clsw_status clsw_scoring_mode(const struct clsw_scoring *scoring, clsw_mode *out);

/**
 * Frees a scoring; NULL is ignored. Searchers made with it keep their own copy.
 *
 * # Safety
 * `scoring` is NULL or a scoring from a `clsw_scoring_new_*`, not yet freed.
 */
void clsw_scoring_free(struct clsw_scoring *scoring);

/**
 * The scoring's alphabet (`CLSW_ALPHABET_PROTEIN` or `CLSW_ALPHABET_DNA`).
 *
 * # Safety
 * `scoring` is NULL or a live scoring; `out` is NULL or writable.
 */
enum clsw_status clsw_scoring_alphabet(const struct clsw_scoring *scoring, clsw_alphabet *out);

/**
 * The gap penalties in use (BLAST's convention: a gap of length L costs
 * `open + L * extend`). Either output may be NULL.
 *
 * # Safety
 * `scoring` is NULL or a live scoring; `open` and `extend` are NULL or writable.
 */
enum clsw_status clsw_scoring_gaps(const struct clsw_scoring *scoring,
                                   int32_t *open,
                                   int32_t *extend);

/**
 * The matrix's name (`"BLOSUM62"`, a file's name, `"+2/-3"` for match/mismatch) into
 * `buf` of `len` bytes, NUL-terminated; `*needed` (if not NULL) gets the size
 * required. Too small a buffer: `CLSW_ERR_BUFFER_TOO_SMALL`.
 *
 * # Safety
 * `scoring` is NULL or a live scoring; `buf` is NULL or has `len` writable bytes;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_scoring_name(const struct clsw_scoring *scoring,
                                   char *buf,
                                   size_t len,
                                   size_t *needed);

/**
 * Fills `*options` with the defaults (1,000 uniform shuffles, seed 42, complete fit).
 * `size` is the caller's `sizeof(clsw_psse_options)`: only that many bytes are
 * written, so a program compiled against an older header stays correct.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` smaller than the first version's),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `options` is NULL or has `size` writable bytes.
 */
enum clsw_status clsw_psse_options_init(struct clsw_psse_options *options, size_t size);

/**
 * The significance of one pair: `query` (`query_len` letters) against `subject`
 * (`subject_len` letters), residue letters of the scoring's alphabet (not
 * NUL-terminated; upper or lower case). The subject is shuffled `options.shuffles`
 * times on the engine's devices (it is subject number 0 for the generator), the query
 * is aligned with every shuffle, a Gumbel is fitted to those scores, and `*out` (whose
 * `size` the caller sets to `sizeof(clsw_psse_result)`) gets the real score's P-value
 * and E-value. `options` NULL gives the defaults.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (an empty sequence, a letter that is not a
 * residue, an impossible option, shuffle scores that cannot be fitted: all equal, as
 * for a one-residue subject), `CLSW_ERR_OPENCL`, `CLSW_ERR_DEVICE`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `engine` and `scoring` are NULL or live handles; `query` and `subject` are NULL or
 * have `query_len` and `subject_len` readable bytes; `options` is NULL or has
 * `options->size` readable bytes; `out` is NULL or has `out->size` writable bytes.
 */
enum clsw_status clsw_psse(const struct clsw_engine *engine,
                           const struct clsw_scoring *scoring,
                           const uint8_t *query,
                           size_t query_len,
                           const uint8_t *subject,
                           size_t subject_len,
                           const struct clsw_psse_options *options,
                           struct clsw_psse_result *out);

/**
 * The significance of every pair of `query_count` queries and `subject_count`
 * subjects (query `k`: `query_lengths[k]` letters at `queries[k]`; subjects
 * likewise; residue letters of the scoring's alphabet). Each subject is shuffled once
 * (subject `k` is number `k` for the generator) and its shuffles serve every query;
 * subjects are shared out among the engine's devices. A pair whose shuffle scores
 * cannot be fitted does not fail the call: its result carries its own status and
 * message. On success `*out` is a new results handle to free with
 * `clsw_psse_results_free`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (a count of 0, an empty sequence, a bad letter,
 * an impossible option), `CLSW_ERR_OPENCL`, `CLSW_ERR_DEVICE`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `engine` and `scoring` are NULL or live handles; `queries` and `query_lengths` are
 * NULL or have `query_count` elements, `queries[k]` `query_lengths[k]` readable bytes
 * (subjects likewise); `options` is NULL or sized and readable; `out` is NULL or
 * writable.
 */
enum clsw_status clsw_psse_many(const struct clsw_engine *engine,
                                const struct clsw_scoring *scoring,
                                size_t query_count,
                                const uint8_t *const *queries,
                                const size_t *query_lengths,
                                size_t subject_count,
                                const uint8_t *const *subjects,
                                const size_t *subject_lengths,
                                const struct clsw_psse_options *options,
                                struct clsw_psse_results **out);

/**
 * Frees a results handle; NULL is ignored. Messages read from it die with it.
 *
 * # Safety
 * `results` is NULL or results from `clsw_psse_many`, not yet freed.
 */
void clsw_psse_results_free(struct clsw_psse_results *results);

/**
 * The number of pairs (`query_count * subject_count`).
 *
 * # Safety
 * `results` is NULL or a live results handle; `out` is NULL or writable.
 */
enum clsw_status clsw_psse_results_count(const struct clsw_psse_results *results, size_t *out);

/**
 * Copies pair `index` into `*out`, whose `size` the caller sets to
 * `sizeof(clsw_psse_result)`. A pair without statistics is not an error here: its
 * `status` and `error` say why.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, `size` too small),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `results` is NULL or a live results handle; `out` is NULL or has `out->size`
 * writable bytes.
 */
enum clsw_status clsw_psse_results_get(const struct clsw_psse_results *results,
                                       size_t index,
                                       struct clsw_psse_result *out);

/**
 * Copies pair `index`'s shuffle scores (in shuffle order) into `scores` of `len`
 * elements; `*needed` (if not NULL) gets the number of shuffles.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, the run did not keep
 * scores — set `options.keep_scores` —, or the pair has no statistics),
 * `CLSW_ERR_BUFFER_TOO_SMALL` (`len` below the number of shuffles), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `results` is NULL or a live results handle; `scores` is NULL or has `len` writable
 * elements; `needed` is NULL or writable.
 */
enum clsw_status clsw_psse_results_scores(const struct clsw_psse_results *results,
                                          size_t index,
                                          int32_t *scores,
                                          size_t len,
                                          size_t *needed);

/**
 * Fills `*options` with the defaults (snp-dists' coding, bit-plane kernel, differences
 * only). `size` is the caller's `sizeof(clsw_distance_options)`: only that many bytes
 * are written.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` smaller than the first version's),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `options` is NULL or has `size` writable bytes.
 */
enum clsw_status clsw_distance_options_init(struct clsw_distance_options *options, size_t size);

/**
 * Distances of `count` aligned sequences from caller arrays: sequence `k` is
 * `lengths[k]` alignment letters at `sequences[k]` (A, C, G, T, gaps `-` `.`, N, IUPAC
 * codes, `?`; any case; not NUL-terminated), all of the same length. The samples have
 * no names. On success `*out` is a new matrix to free with `clsw_distance_result_free`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (a count of 0, sequences of different lengths or
 * of length 0, a byte that is not an alignment letter — the message names the sequence
 * and site —, an impossible option), `CLSW_ERR_OPENCL`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
 * bytes; `out` is NULL or writable; `sequences` and `lengths` are NULL or have
 * `count` elements, `sequences[k]` `lengths[k]` readable bytes.
 */
enum clsw_status clsw_distance_aligned(const struct clsw_engine *engine,
                                       size_t count,
                                       const uint8_t *const *sequences,
                                       const size_t *lengths,
                                       const struct clsw_distance_options *options,
                                       struct clsw_distance_result **out);

/**
 * Distances of the records of a FASTA multiple alignment (plain or gzip; all records
 * the same length). `path` is a NUL-terminated path, any bytes. Names: the records' ids.
 * Errors: `CLSW_ERR_IO`, `CLSW_ERR_PARSE` (a malformed file, a ragged alignment or an
 * empty first sequence: the message names the file, line and record, and the lengths
 * that differ), `CLSW_ERR_INVALID_ARGUMENT` (an impossible option),
 * `CLSW_ERR_OPENCL`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
 * bytes; `out` is NULL or writable; `path` is NULL or NUL-terminated.
 */
enum clsw_status clsw_distance_fasta(const struct clsw_engine *engine,
                                     const char *path,
                                     const struct clsw_distance_options *options,
                                     struct clsw_distance_result **out);

/**
 * Genotype distances of a PLINK 1 binary fileset: `prefix` names `prefix.bed`,
 * `prefix.bim` and `prefix.fam` (SNP-major .bed; missing calls skipped). Names: the
 * .fam's family and individual ids.
 * Errors: `CLSW_ERR_IO`, `CLSW_ERR_PARSE`, `CLSW_ERR_INVALID_ARGUMENT` (a .bed whose
 * size disagrees with the .bim and .fam, an option for alignments), `CLSW_ERR_OPENCL`,
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
 * bytes; `out` is NULL or writable; `prefix` is NULL or NUL-terminated.
 */
enum clsw_status clsw_distance_bed(const struct clsw_engine *engine,
                                   const char *prefix,
                                   const struct clsw_distance_options *options,
                                   struct clsw_distance_result **out);

/**
 * Genotype distances of a 0/1/2 table file (plain or gzip): one sample per line, its
 * name first, then one genotype per site (`-1`, `NA`, `.` or `N` for missing calls),
 * fields separated by tabs or spaces; `#` comments. The first line is a header when
 * none of its fields after the first is a genotype value or a number. A value that is
 * not a genotype is an error naming the line, column and value (never a header).
 * Names: the first column. Errors as for `clsw_distance_bed`.
 *
 * # Safety
 * `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
 * bytes; `out` is NULL or writable; `path` is NULL or NUL-terminated.
 */
enum clsw_status clsw_distance_genotype_table(const struct clsw_engine *engine,
                                              const char *path,
                                              const struct clsw_distance_options *options,
                                              struct clsw_distance_result **out);

/**
 * Genotype distances of a caller matrix: `genotypes` holds `samples * sites` values,
 * row-major (sample `i`'s genotype at site `s` is `genotypes[i * sites + s]`): 0, 1, 2
 * copies of one allele, any other value (e.g. -1) a missing call. The samples have no
 * names.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (0 samples or 0 sites, an option for
 * alignments), `CLSW_ERR_OPENCL`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
 * bytes; `out` is NULL or writable; `genotypes` is NULL or has `samples * sites`
 * readable values.
 */
enum clsw_status clsw_distance_genotypes(const struct clsw_engine *engine,
                                         const int8_t *genotypes,
                                         size_t samples,
                                         size_t sites,
                                         const struct clsw_distance_options *options,
                                         struct clsw_distance_result **out);

/**
 * Frees a distance matrix; NULL is ignored. Names read from it stay valid only
 * until then.
 *
 * # Safety
 * `distances` is NULL or a matrix from a `clsw_distance_*` constructor, not yet freed.
 */
void clsw_distance_result_free(struct clsw_distance_result *distances);

/**
 * The number of samples `n` (the matrices are `n x n`).
 *
 * # Safety
 * `distances` is NULL or a live result; `out` is NULL or writable.
 */
enum clsw_status clsw_distance_result_count(const struct clsw_distance_result *distances,
                                            size_t *out);

/**
 * Sites in the input (`*sites`) and sites the counters range over (`*considered`:
 * all of them, or the non-constant ones with `options.ignore_constant`); the
 * allele-count metric is scaled to `*considered`. Either output may be NULL.
 *
 * # Safety
 * `distances` is NULL or a live result; `sites` and `considered` are NULL or writable.
 */
enum clsw_status clsw_distance_result_sites(const struct clsw_distance_result *distances,
                                            uint64_t *sites,
                                            uint64_t *considered);

/**
 * The full symmetric `n x n` matrix of differences (differing compared sites), row-major
 * (pair `(i, j)` at `i * n + j`), zero diagonal, into `matrix` of `len` elements;
 * `*needed` (if not NULL) gets `n * n`. `matrix` may be NULL when `len` is 0 (a size
 * query).
 * Errors: `CLSW_ERR_BUFFER_TOO_SMALL` (`len < n * n`; nothing is written),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `distances` is NULL or a live result; `matrix` is NULL or has `len` writable elements;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_distance_result_matrix(const struct clsw_distance_result *distances,
                                             uint32_t *matrix,
                                             size_t len,
                                             size_t *needed);

/**
 * The `n x n` matrix of compared sites (sites where both samples have a compared
 * state), row-major, zero diagonal; buffer as for `clsw_distance_result_matrix`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (not counted: set `options.want_compared`, or
 * use a metric other than `CLSW_METRIC_DIFF`), `CLSW_ERR_BUFFER_TOO_SMALL`,
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `distances` is NULL or a live result; `compared` is NULL or has `len` writable elements;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_distance_result_compared(const struct clsw_distance_result *distances,
                                               uint32_t *compared,
                                               size_t len,
                                               size_t *needed);

/**
 * The `n x n` matrix of the metric chosen in the options (`options.metric`), as
 * doubles, row-major; the diagonal is the metric's self value (1 for
 * `CLSW_METRIC_IBS`, else 0); a pair with no compared site gets NaN. Buffer as for
 * `clsw_distance_result_matrix`.
 * Errors: `CLSW_ERR_BUFFER_TOO_SMALL`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `distances` is NULL or a live result; `values` is NULL or has `len` writable elements;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_distance_result_values(const struct clsw_distance_result *distances,
                                             double *values,
                                             size_t len,
                                             size_t *needed);

/**
 * Sample `index`'s name (0-based, in input order): the FASTA record's id, the .fam's
 * individual id, the table's first column; into `buf` of `len` bytes, NUL-terminated;
 * `*needed` (if not NULL) gets the size required.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, a matrix made from caller
 * arrays, which has no names), `CLSW_ERR_BUFFER_TOO_SMALL`, `CLSW_ERR_NULL`.
 *
 * # Safety
 * `distances` is NULL or a live result; `buf` is NULL or has `len` writable bytes;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_distance_result_name(const struct clsw_distance_result *distances,
                                           size_t index,
                                           char *buf,
                                           size_t len,
                                           size_t *needed);

/**
 * Sample `index`'s family id (PLINK's FID from the .fam; the same as the name for FASTA
 * and table inputs). Arguments and errors as for `clsw_distance_result_name`.
 *
 * # Safety
 * `distances` is NULL or a live result; `buf` is NULL or has `len` writable bytes;
 * `needed` is NULL or writable.
 */
enum clsw_status clsw_distance_result_family(const struct clsw_distance_result *distances,
                                             size_t index,
                                             char *buf,
                                             size_t len,
                                             size_t *needed);

/**
 * Deprecated since 0.2.0: use `clsw_distance_result_free` (same arguments and behaviour).
 *
 * # Safety
 * As for `clsw_distance_result_free`.
 */
CLSW_DEPRECATED("use clsw_distance_result_free")
void clsw_distances_free(clsw_distances *distances);

/**
 * Deprecated since 0.2.0: use `clsw_distance_result_count` (same arguments and behaviour).
 *
 * # Safety
 * As for `clsw_distance_result_count`.
 */
CLSW_DEPRECATED("use clsw_distance_result_count")
enum clsw_status clsw_distances_count(const clsw_distances *distances,
                                      size_t *out);

/**
 * Deprecated since 0.2.0: use `clsw_distance_result_sites` (same arguments and behaviour).
 *
 * # Safety
 * As for `clsw_distance_result_sites`.
 */
CLSW_DEPRECATED("use clsw_distance_result_sites")
enum clsw_status clsw_distances_sites(const clsw_distances *distances,
                                      uint64_t *sites,
                                      uint64_t *considered);

/**
 * Deprecated since 0.2.0: use `clsw_distance_result_matrix` (same arguments and behaviour).
 *
 * # Safety
 * As for `clsw_distance_result_matrix`.
 */
CLSW_DEPRECATED("use clsw_distance_result_matrix")
enum clsw_status clsw_distances_matrix(const clsw_distances *distances,
                                       uint32_t *matrix,
                                       size_t len,
                                       size_t *needed);

/**
 * Deprecated since 0.2.0: use `clsw_distance_result_compared` (same arguments and behaviour).
 *
 * # Safety
 * As for `clsw_distance_result_compared`.
 */
CLSW_DEPRECATED("use clsw_distance_result_compared")
enum clsw_status clsw_distances_compared(const clsw_distances *distances,
                                         uint32_t *compared,
                                         size_t len,
                                         size_t *needed);

/**
 * Deprecated since 0.2.0: use `clsw_distance_result_values` (same arguments and behaviour).
 *
 * # Safety
 * As for `clsw_distance_result_values`.
 */
CLSW_DEPRECATED("use clsw_distance_result_values")
enum clsw_status clsw_distances_values(const clsw_distances *distances,
                                       double *values,
                                       size_t len,
                                       size_t *needed);

/**
 * Deprecated since 0.2.0: use `clsw_distance_result_name` (same arguments and behaviour).
 *
 * # Safety
 * As for `clsw_distance_result_name`.
 */
CLSW_DEPRECATED("use clsw_distance_result_name")
enum clsw_status clsw_distances_name(const clsw_distances *distances,
                                     size_t index,
                                     char *buf,
                                     size_t len,
                                     size_t *needed);

/**
 * Deprecated since 0.2.0: use `clsw_distance_result_family` (same arguments and behaviour).
 *
 * # Safety
 * As for `clsw_distance_result_family`.
 */
CLSW_DEPRECATED("use clsw_distance_result_family")
enum clsw_status clsw_distances_family(const clsw_distances *distances,
                                       size_t index,
                                       char *buf,
                                       size_t len,
                                       size_t *needed);

/**
 * Fills `*options` with the defaults (letters). `size` is the caller's
 * `sizeof(clsw_sw3_options)`: only that many bytes are written.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` smaller than the first version's),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `options` is NULL or has `size` writable bytes.
 */
enum clsw_status clsw_sw3_options_init(struct clsw_sw3_options *options, size_t size);

/**
 * The best local three-sequence score of `a`, `b`, `c` (`a_len`, `b_len`, `c_len`
 * letters, or codes with `options.input = CLSW_SW3_CODES`; a length may be 0: the
 * sequence then takes no part) under sum-of-pairs scoring with the scoring's matrix and
 * gaps (a gap of length L costs `gap_open + L * gap_extend` in each pairwise projection;
 * `gap_open` 0 is the linear model, e.g. the seed's setting: match 1, mismatch -1,
 * `clsw_scoring_new_match_mismatch(alphabet, 1, -1, 0, 1, ...)`), computed on the
 * engine's first device. `*score` gets the score (0 when nothing scores above 0);
 * `end`, when not NULL, an array of 3 that gets the end cell: per sequence, the 1-based
 * position of the last residue the alignment covers (all 0 when the score is 0; a
 * sequence the alignment leaves out gets the position before its empty segment).
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (a letter that is not a residue, a code outside
 * the matrix, sequences too long for 32-bit scores, a bad option), `CLSW_ERR_OPENCL`,
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `engine` and `scoring` are NULL or live handles; `a`, `b` and `c` are NULL or have
 * `a_len`, `b_len` and `c_len` readable bytes; `options` is NULL or has `options->size`
 * readable bytes; `score` is NULL or writable; `end` is NULL or has 3
 * writable elements.
 */
enum clsw_status clsw_sw3_score(const struct clsw_engine *engine,
                                const struct clsw_scoring *scoring,
                                const uint8_t *a,
                                size_t a_len,
                                const uint8_t *b,
                                size_t b_len,
                                const uint8_t *c,
                                size_t c_len,
                                const struct clsw_sw3_options *options,
                                int32_t *score,
                                size_t *end);

/**
 * The optimal local alignment of three sequences with traceback (arguments as for
 * `clsw_sw3_score`): the score on the engine's first device, the traceback on the
 * calling thread in memory of about two planes of the table. On success `*out` is a
 * new alignment to free with `clsw_sw3_alignment_free`.
 * Errors: as for `clsw_sw3_score`; `CLSW_ERR_DEVICE` if a device's end cell does not
 * trace back to its score.
 *
 * # Safety
 * As for `clsw_sw3_score`; `out` is NULL or writable.
 */
enum clsw_status clsw_sw3_align(const struct clsw_engine *engine,
                                const struct clsw_scoring *scoring,
                                const uint8_t *a,
                                size_t a_len,
                                const uint8_t *b,
                                size_t b_len,
                                const uint8_t *c,
                                size_t c_len,
                                const struct clsw_sw3_options *options,
                                struct clsw_sw3_alignment **out);

/**
 * Frees a three-sequence alignment; NULL is ignored. Rows read from it die with it.
 *
 * # Safety
 * `alignment` is NULL or an alignment from `clsw_sw3_align`, not yet freed.
 */
void clsw_sw3_alignment_free(struct clsw_sw3_alignment *alignment);

/**
 * Copies the alignment's description into `*out`, whose `size` the caller sets to
 * `sizeof(clsw_sw3_alignment_info)`. The rows it points to belong to `alignment`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` too small), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `alignment` is NULL or a live alignment; `out` is NULL or has `out->size` writable
 * bytes.
 */
enum clsw_status clsw_sw3_alignment_get(const struct clsw_sw3_alignment *alignment,
                                        struct clsw_sw3_alignment_info *out);

/**
 * Scores triples of `count` sequences (sequence `k`: `lengths[k]` letters, or codes,
 * at `sequences[k]`; a length may be 0): the `triple_count` triples at `triples`
 * (three 0-based sequence indices each, in the roles a, b, c: `triples[3 t]`,
 * `triples[3 t + 1]`, `triples[3 t + 2]`), or, when `triple_count` is 0 (`triples` may
 * then be NULL), every triple `a < b < c` of the set (`count * (count - 1) *
 * (count - 2) / 6`, at least 3 sequences). The triples are shared out among the
 * engine's devices (one work-group per triple). On success `*out` is a new results
 * handle, ranked by score (highest first, ties in triple order), to free with
 * `clsw_sw3_results_free`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (fewer than 3 sequences for all triples, an index
 * out of range, a bad letter or code, a bad option), `CLSW_ERR_OPENCL`,
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `engine` and `scoring` are NULL or live handles; `sequences` and `lengths` are NULL
 * or have `count` elements, `sequences[k]` `lengths[k]` readable bytes; `triples` is
 * NULL or has `3 * triple_count` elements; `options` is NULL or sized and readable;
 * `out` is NULL or writable.
 */
enum clsw_status clsw_sw3_batch(const struct clsw_engine *engine,
                                const struct clsw_scoring *scoring,
                                size_t count,
                                const uint8_t *const *sequences,
                                const size_t *lengths,
                                const uint32_t *triples,
                                size_t triple_count,
                                const struct clsw_sw3_options *options,
                                struct clsw_sw3_results **out);

/**
 * Frees a results handle; NULL is ignored.
 *
 * # Safety
 * `results` is NULL or results from `clsw_sw3_batch`, not yet freed.
 */
void clsw_sw3_results_free(struct clsw_sw3_results *results);

/**
 * The number of triples scored.
 *
 * # Safety
 * `results` is NULL or a live results handle; `out` is NULL or writable.
 */
enum clsw_status clsw_sw3_results_count(const struct clsw_sw3_results *results, size_t *out);

/**
 * Copies the triple of rank `rank` (0: the highest score) into `*out`, whose `size`
 * the caller sets to `sizeof(clsw_sw3_row)`.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (rank out of range, `size` too small),
 * `CLSW_ERR_NULL`.
 *
 * # Safety
 * `results` is NULL or a live results handle; `out` is NULL or has `out->size`
 * writable bytes.
 */
enum clsw_status clsw_sw3_results_get(const struct clsw_sw3_results *results,
                                      size_t rank,
                                      struct clsw_sw3_row *out);

/**
 * The SAX word of a numeric series: `series` (`len` finite values) is z-normalised
 * (population standard deviation), reduced to `word` segment means (piecewise
 * aggregate approximation; a point straddling a segment boundary counts with the
 * fraction it covers), and each mean replaced by its symbol among `alphabet` (3 to 20)
 * equiprobable Gaussian intervals. `codes` (`codes_len` elements, at least `word`) gets
 * the codes `0 .. alphabet - 1` (letters are `'a' + code`); align them with
 * `CLSW_SW3_CODES`. `*constant`, when not NULL, gets 1 when the series has zero
 * variance (every segment then gets the middle symbol), else 0.
 * Errors: `CLSW_ERR_INVALID_ARGUMENT` (an empty series, a NaN or infinite value — the
 * message gives its position —, `word` 0, `alphabet` outside 3..20),
 * `CLSW_ERR_BUFFER_TOO_SMALL` (`codes_len < word`), `CLSW_ERR_NULL`.
 *
 * # Safety
 * `series` is NULL or has `len` readable values; `codes` is NULL or has `codes_len`
 * writable bytes; `constant` is NULL or writable.
 */
enum clsw_status clsw_sax(const double *series,
                          size_t len,
                          size_t word,
                          size_t alphabet,
                          uint8_t *codes,
                          size_t codes_len,
                          int32_t *constant);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* CLSW_H */

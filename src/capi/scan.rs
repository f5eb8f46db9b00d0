//! Database search: a searcher (a database laid out on an engine's devices once, for
//! every query), hits with E-values and alignments, and every subject's score.
//!
//! Over 600 lines: the searcher's C surface (options, hits, alignments, scores, the
//! MPI constructor) is one entry point, documented in one place of the header.

use super::db::clsw_db;
use super::engine::clsw_engine;
use super::scoring::clsw_scoring;
use super::*;
use crate::engine::Engine;
use crate::output::{blast_coordinates, tabular_line};
use crate::scan::Variant;
use crate::search::{EvalueSource, SearchOptions, SearchResult, Searcher, StatsMethod, Strand, Strands};
use crate::seq::{Database, Sequence};
use std::sync::Arc;

/// Kernel variant on OpenCL devices (`clsw_search_options.variant`); the native CPU
/// path ignores it. All give the same scores.
pub type clsw_variant = u32;
/// Retired (slower than `TEAM` on every device measured; CHANGELOG.md): taken as
/// `CLSW_VARIANT_AUTO` in a search and as psse's default until the next minor
/// release, which removes the name. The value of a zeroed struct.
pub const CLSW_VARIANT_FAST: clsw_variant = 0;
/// One subject per work-item, query bands in registers (the inter-task seed's design);
/// the database stays resident on the device.
pub const CLSW_VARIANT_INTER: clsw_variant = 1;
/// One work-group per subject along anti-diagonals (the intra-task seed's design).
pub const CLSW_VARIANT_INTRA: clsw_variant = 2;
/// One work-item per subject, 32-bit, no tiling: the readable kernel.
pub const CLSW_VARIANT_PLAIN: clsw_variant = 3;
/// Two subjects per team of work-items, each holding a slice of the query's rows
/// (warp shuffles on NVIDIA); resident like `INTER`, and faster on GPUs.
pub const CLSW_VARIANT_TEAM: clsw_variant = 4;
/// Searches only: each device's own variant, `TEAM` on GPUs and `INTER` on CPU
/// devices (where `TEAM` runs about 5 times slower). The default of
/// `clsw_search_options_init`.
pub const CLSW_VARIANT_AUTO: clsw_variant = 5;

/// Which strands of a DNA query to search (`clsw_search_options.strands`).
pub type clsw_strands = u32;
/// Both strands (the default; for protein, the one strand there is).
pub const CLSW_STRANDS_BOTH: clsw_strands = 0;
/// The query as given (DNA only: an error for protein, whose one strand is `BOTH`).
pub const CLSW_STRANDS_PLUS: clsw_strands = 1;
/// The reverse complement only (DNA only: an error for protein).
pub const CLSW_STRANDS_MINUS: clsw_strands = 2;

/// The strand of a hit (`clsw_hit.strand`).
pub type clsw_strand = u32;
pub const CLSW_STRAND_PLUS: clsw_strand = 0;
/// The reverse complement of a DNA query matched.
pub const CLSW_STRAND_MINUS: clsw_strand = 1;

/// CIGAR strings of hits (`clsw_search_options.cigar`).
pub type clsw_cigar = u32;
/// No CIGAR (`clsw_hit.cigar` is NULL). The default.
pub const CLSW_CIGAR_NONE: clsw_cigar = 0;
/// `=` (identical), `X` (mismatch), `I` (insertion: query residue against a gap),
/// `D` (deletion: subject residue against a gap), e.g. `"12=1X3=2I20="`.
pub const CLSW_CIGAR_EXTENDED: clsw_cigar = 1;
/// `M` for every aligned pair, `I`, `D` (SAM's classic form).
pub const CLSW_CIGAR_M: clsw_cigar = 2;

/// Where a search's E-values come from (`clsw_search_info.evalue_source`).
pub type clsw_evalue_source = u32;
/// `(lambda, K)` fitted to the query's own scores against the database
/// (length-corrected maximum likelihood, as ssearch36 does).
pub const CLSW_EVALUE_FITTED: clsw_evalue_source = 0;
/// NCBI BLAST's published `(lambda, K)` for the matrix and gap costs.
pub const CLSW_EVALUE_PUBLISHED: clsw_evalue_source = 1;
/// None available: E-values and bit scores are NaN and no E-value threshold applies.
pub const CLSW_EVALUE_NONE: clsw_evalue_source = 2;
/// ssearch36's regression of the query's scores on the logarithm of the subject length
/// (`lambda` and `K` are NaN: the E-values come from each score's z-score).
pub const CLSW_EVALUE_REGRESSION: clsw_evalue_source = 3;
/// `(lambda, K)` fitted to the query's scores against shuffled database subjects.
pub const CLSW_EVALUE_SHUFFLED: clsw_evalue_source = 4;
/// A normal distribution fitted to the query's global or glocal scores, as ggsearch36
/// and glsearch36 do (`lambda` and `K` are NaN).
pub const CLSW_EVALUE_NORMAL: clsw_evalue_source = 5;

/// Where a search may take its E-values from (`clsw_search_options.stats`).
pub type clsw_stats = u32;
/// The fit to the query's scores against the database when it succeeds (200 positive
/// scores), else BLAST's published parameters, else the fit to shuffled subjects (a
/// small DNA database), else none. The default.
pub const CLSW_STATS_AUTO: clsw_stats = 0;
/// Only the fit: no E-values where it fails.
pub const CLSW_STATS_FIT: clsw_stats = 1;
/// Only BLAST's published parameters (independent of the database: with a fixed
/// `db_size`, a hit's E-value is too); none where BLAST publishes none.
pub const CLSW_STATS_PUBLISHED: clsw_stats = 2;
/// No E-values (nor bit scores): NaN.
pub const CLSW_STATS_NONE: clsw_stats = 3;
/// ssearch36's default (`-z 1`): the scores' mean and variance regressed on the
/// logarithm of the subject length.
pub const CLSW_STATS_REGRESSION: clsw_stats = 4;
/// The fit to the query's scores against 2,000 shuffled database subjects (any
/// database size, DNA too).
pub const CLSW_STATS_SHUFFLE: clsw_stats = 5;

/// How a searcher searches. Fill it with `clsw_search_options_init`, then change
/// fields; or pass NULL for the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_search_options {
    /// `sizeof(clsw_search_options)` (set by `clsw_search_options_init`).
    pub size: usize,
    /// Report at most this many hits per query (ssearch36 `-b`, BLAST
    /// `-max_target_seqs`). Default 50.
    pub max_hits: usize,
    /// Report only hits with an E-value at most this (ssearch36 `-E`, BLAST
    /// `-evalue`); not applied when no E-values are available. Default 10.
    pub evalue: f64,
    /// Most residues uploaded to one device at a time; a larger database is scanned
    /// in batches. 0 (the default): from the device's memory.
    pub batch_residues: u64,
    /// A `CLSW_VARIANT_*`. Default `CLSW_VARIANT_AUTO`.
    pub variant: clsw_variant,
    /// A `CLSW_STRANDS_*`. Default `CLSW_STRANDS_BOTH`.
    pub strands: clsw_strands,
    /// Nonzero: align every reported hit (coordinates, identity, lengths, CIGAR).
    /// Zero: hits carry score, E-value and bit score only. Default 1.
    pub alignments: i32,
    /// A `CLSW_CIGAR_*`: the CIGAR string of each hit (needs `alignments`). Default
    /// `CLSW_CIGAR_NONE`.
    pub cigar: clsw_cigar,
    /// A `CLSW_STATS_*`. Default `CLSW_STATS_AUTO`. Appended after the first version: a
    /// caller whose `size` ends before it gets the default, as for `db_size`.
    pub stats: clsw_stats,
    /// The number of database sequences E-values count (`D` of `E = D P`; ssearch36
    /// `-Z`); 0 (the default): the database's own.
    pub db_size: u64,
    /// Most alignments per subject (BLAST `-max_hsps`): its best, then further ones
    /// that do not overlap it in the subject, as ssearch36 lists them (each with its
    /// own E-value within a tenth of `evalue`); they follow their subject's best in the
    /// hits (`clsw_hit.hsp`). 0 or 1 (the default): the best alone. Appended later: a
    /// caller whose `size` ends before it gets the default.
    pub max_hsps: usize,
}

versioned!(clsw_search_options, std::mem::offset_of!(clsw_search_options, stats));

impl Default for clsw_search_options {
    fn default() -> Self {
        let d = SearchOptions::default();
        clsw_search_options {
            size: std::mem::size_of::<clsw_search_options>(),
            max_hits: d.max_hits,
            evalue: d.evalue,
            batch_residues: 0,
            variant: CLSW_VARIANT_AUTO,
            strands: CLSW_STRANDS_BOTH,
            alignments: 1,
            cigar: CLSW_CIGAR_NONE,
            stats: CLSW_STATS_AUTO,
            db_size: 0,
            max_hsps: d.max_hsps,
        }
    }
}

/// Fills `*options` with the defaults. `size` is the caller's
/// `sizeof(clsw_search_options)`: only that many bytes are written, so a program
/// compiled against an older header stays correct.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` smaller than the first version's),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `options` is NULL or has `size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_search_options_init(options: *mut clsw_search_options, size: usize) -> clsw_status {
    // SAFETY: `options` is NULL or has `size` writable bytes (the caller's promise).
    unsafe { options_init(options, size) }
}

/// A `CLSW_VARIANT_*` as the library's kernel variant; `None`: the caller's default
/// (`CLSW_VARIANT_FAST`, retired, and `CLSW_VARIANT_AUTO`, which only a search takes).
pub(crate) fn variant_from(v: clsw_variant) -> Outcome<Option<Variant>> {
    Ok(match v {
        CLSW_VARIANT_FAST => None,
        CLSW_VARIANT_INTER => Some(Variant::Inter),
        CLSW_VARIANT_INTRA => Some(Variant::Intra),
        CLSW_VARIANT_PLAIN => Some(Variant::Plain),
        CLSW_VARIANT_TEAM => Some(Variant::Team),
        v => {
            return Err(Failure::invalid(format!(
                "options.variant {v} is not a CLSW_VARIANT_* value (0 to 4, or 5 for a search)"
            )));
        }
    })
}

/// The C options as the library's; the library's rules refuse impossible values.
fn search_options(o: &clsw_search_options) -> Outcome<SearchOptions> {
    let variant = if o.variant == CLSW_VARIANT_AUTO { None } else { variant_from(o.variant)? };
    let strands = match o.strands {
        CLSW_STRANDS_BOTH => Strands::Both,
        CLSW_STRANDS_PLUS => Strands::Plus,
        CLSW_STRANDS_MINUS => Strands::Minus,
        s => return Err(Failure::invalid(format!("options.strands {s} is not a CLSW_STRANDS_* value (0 to 2)"))),
    };
    let stats = match o.stats {
        CLSW_STATS_AUTO => StatsMethod::Auto,
        CLSW_STATS_FIT => StatsMethod::Fit,
        CLSW_STATS_PUBLISHED => StatsMethod::Published,
        CLSW_STATS_NONE => StatsMethod::None,
        CLSW_STATS_REGRESSION => StatsMethod::Regression,
        CLSW_STATS_SHUFFLE => StatsMethod::Shuffle,
        s => return Err(Failure::invalid(format!("options.stats {s} is not a CLSW_STATS_* value (0 to 5)"))),
    };
    let db_size = match usize::try_from(o.db_size) {
        Ok(0) => None,
        Ok(d) => Some(d),
        Err(_) => return Err(Failure::invalid(format!("options.db_size {} is too large", o.db_size))),
    };
    if o.cigar > CLSW_CIGAR_M {
        return Err(Failure::invalid(format!("options.cigar {} is not a CLSW_CIGAR_* value (0 to 2)", o.cigar)));
    }
    let opts = SearchOptions {
        variant,
        max_hits: o.max_hits,
        evalue: o.evalue,
        strands,
        batch_residues: (o.batch_residues > 0).then_some(o.batch_residues),
        alignments: o.alignments != 0,
        stats,
        db_size,
        max_hsps: o.max_hsps.max(1),
        ..SearchOptions::default()
    };
    if o.cigar != CLSW_CIGAR_NONE {
        opts.require_alignments("options.cigar (CIGAR strings)")?;
    }
    opts.validate()?;
    Ok(opts)
}

/// A database laid out on an engine's devices for one scoring and set of options:
/// made once, it serves every query (the database is uploaded when the searcher is
/// made, not per query). Shareable between threads: searches on one searcher from
/// several threads are serialised per device queue, their CPU work (statistics,
/// alignments) runs in parallel.
pub struct clsw_searcher {
    // Declared first, so dropped first: it borrows from the two Arcs below.
    searcher: Inner,
    cigar: clsw_cigar,
    db: Arc<Database>,
    _engine: Arc<Engine>,
}

/// A searcher of one process, or one rank's of an MPI job.
// One per handle, which is boxed already: the variants' sizes cost nothing.
#[allow(clippy::large_enum_variant)]
enum Inner {
    Alone(Searcher<'static>),
    #[cfg(feature = "mpi")]
    Ranks(Box<Ranks>),
}

/// One rank's searcher and what it borrows besides the engine and the database.
#[cfg(feature = "mpi")]
struct Ranks {
    // Declared first, so dropped first: it borrows the two boxes below.
    searcher: crate::mpi::RankSearcher<'static>,
    _part: Arc<Database>,
    _comm: Arc<crate::mpi::World>,
}

impl Inner {
    /// A caller's queries, or on an MPI searcher this rank's failure to make them told
    /// to the other ranks (waiting in the search's first exchange).
    fn agreed<T>(&self, made: Outcome<T>) -> Outcome<T> {
        match (self, made) {
            #[cfg(feature = "mpi")]
            (Inner::Ranks(r), Err(f)) => {
                r.searcher.refuse(crate::Error::InvalidArgument(f.message.clone()));
                Err(f)
            }
            (_, made) => made,
        }
    }

    /// Searches `queries`, calling `sink` with each result in query order (on an MPI
    /// searcher: on rank 0 only).
    fn search_all(
        &self,
        queries: &[Sequence],
        sink: impl FnMut(SearchResult) -> crate::Result<()>,
    ) -> crate::Result<()> {
        match self {
            Inner::Alone(s) => s.search_all(queries, sink),
            #[cfg(feature = "mpi")]
            Inner::Ranks(r) => r.searcher.search_all(queries, sink),
        }
    }
}

/// Lays `db` out on `engine`'s devices for searches with `scoring` and `options`
/// (NULL: the defaults): the database is split over the devices and uploaded once.
/// The searcher keeps the engine and database alive and copies the scoring, so all
/// three may be freed before it. On success `*out` is a new searcher to free with
/// `clsw_searcher_free`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (the matrix's alphabet differs from the
/// database's, `CLSW_STRANDS_PLUS` or `_MINUS` for a protein search, an impossible
/// option, an options `size` that is too small), `CLSW_ERR_OPENCL`, `CLSW_ERR_BUILD`,
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `engine`, `scoring` and `db` are NULL or live handles; `options` is NULL or has
/// `options->size` readable bytes; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_searcher_new(
    engine: *const clsw_engine,
    scoring: *const clsw_scoring,
    db: *const clsw_db,
    options: *const clsw_search_options,
    out: *mut *mut clsw_searcher,
) -> clsw_status {
    run(|| {
        // SAFETY: the handles, options and `out` are as searcher_inputs needs (the
        // caller's promise).
        let (out, engine, scoring, db, opts, cigar) = unsafe { searcher_inputs(engine, scoring, db, options, out) }?;
        // SAFETY: both references point into Arc allocations that the handle owns for
        // as long as `searcher` lives (it is dropped first) and never mutates; they do
        // not escape the handle (the searcher returns owned results).
        let (e, d): (&'static Engine, &'static Database) = unsafe { (&*Arc::as_ptr(&engine), &*Arc::as_ptr(&db)) };
        let searcher = Inner::Alone(Searcher::new(e, d, scoring, opts)?);
        *out = Box::into_raw(Box::new(clsw_searcher { searcher, cigar, db, _engine: engine }));
        Ok(())
    })
}

/// The arguments of `clsw_searcher_new` and `_new_mpi`, checked and read.
///
/// # Safety
/// `engine`, `scoring` and `db` are NULL or live handles; `options` is NULL or has
/// `options->size` readable bytes; `out` is NULL or writable during `'o`.
unsafe fn searcher_inputs<'o>(
    engine: *const clsw_engine,
    scoring: *const clsw_scoring,
    db: *const clsw_db,
    options: *const clsw_search_options,
    out: *mut *mut clsw_searcher,
) -> Outcome<SearcherInputs<'o>> {
    // SAFETY: `out` is NULL or writable (this function's contract).
    let out = unsafe { out_handle(out, "out (the searcher output)") }?;
    // SAFETY: `engine` is NULL or a live engine (this function's contract).
    let engine = unsafe { handle(engine, "engine") }?.engine.clone();
    // SAFETY: `scoring` is NULL or a live scoring (this function's contract).
    let scoring = unsafe { handle(scoring, "scoring") }?.scoring.clone();
    // SAFETY: `db` is NULL or a live database (this function's contract).
    let db = unsafe { handle(db, "db") }?.db.clone();
    // SAFETY: `options` is NULL or sized and readable (this function's contract).
    let o = unsafe { read_versioned(options, clsw_search_options::default()) }?;
    let opts = search_options(&o)?;
    Ok((out, engine, scoring, db, opts, o.cigar))
}

/// `clsw_searcher_new` for one rank of an MPI job: every rank of the communicator
/// calls it with the same database (each its own copy: the ranks check that they
/// agree), scoring and options, and each rank searches its share of the database on
/// `engine`'s devices (shares by residues, in proportion to each rank's measured
/// speed; when every rank's engine is the native CPU path and MPI was initialized with
/// `MPI_THREAD_SERIALIZED` or more, chunks dealt to each rank's threads as they become
/// free, and those threads then call MPI during a search, one call at a time). `comm`
/// is the communicator's Fortran handle, `MPI_Comm_c2f(comm)`, so that this header
/// needs no `mpi.h`; MPI must be initialized, and clsw works on a duplicate of the
/// communicator (`MPI_Comm_dup`), freed with the searcher.
///
/// The searcher's functions are then collective: every rank calls
/// `clsw_searcher_search` (or `_search_many`) with the same queries (the ranks check),
/// one call at a time (the host's MPI thread level must allow the calling thread to
/// call MPI). Rank 0 receives the hits, exactly those one process would find; on the
/// other ranks `*out` (every `out[k]` of `_search_many`) is set to NULL. Free the
/// searcher (collective too) before `MPI_Finalize`. `clsw_searcher_scores` is refused (every subject's
/// score stays on its rank). An error on any rank returns an error on every rank:
/// the failing rank's own status, `CLSW_ERR_RANK` on the others, whose message names
/// the failing rank and holds its message; no rank waits for a failed one.
/// Errors: those of `clsw_searcher_new`, `CLSW_ERR_RANK`, and `CLSW_ERR_NO_MPI` when
/// clsw was built without MPI (the cargo feature `mpi`).
///
/// # Safety
/// `engine`, `scoring` and `db` are NULL or live handles; `options` is NULL or has
/// `options->size` readable bytes; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_searcher_new_mpi(
    engine: *const clsw_engine,
    scoring: *const clsw_scoring,
    db: *const clsw_db,
    options: *const clsw_search_options,
    comm: i32,
    out: *mut *mut clsw_searcher,
) -> clsw_status {
    // SAFETY: the handles, options and `out` are as searcher_inputs needs (the caller's
    // promise).
    let inputs = || unsafe { searcher_inputs(engine, scoring, db, options, out) };
    run(|| rank_searcher(comm, inputs))
}

/// A searcher's output place and inputs, as `searcher_inputs` reads them.
type SearcherInputs<'o> =
    (&'o mut *mut clsw_searcher, Arc<Engine>, crate::scoring::Scoring, Arc<Database>, SearchOptions, clsw_cigar);

#[cfg(not(feature = "mpi"))]
fn rank_searcher<'o>(_: i32, _: impl FnOnce() -> Outcome<SearcherInputs<'o>>) -> Outcome {
    Err(Failure::new(CLSW_ERR_NO_MPI, "clsw was built without MPI (cargo feature `mpi`)"))
}

/// The searcher of this rank, into the handle `inputs` gives. The communicator comes first: every
/// rank then tells the others whether its inputs are good before any other work, so a
/// rank with a bad argument fails them all rather than leaving them waiting.
#[cfg(feature = "mpi")]
fn rank_searcher<'o>(comm: i32, inputs: impl FnOnce() -> Outcome<SearcherInputs<'o>>) -> Outcome {
    use crate::mpi::{Comm, RankSearcher, World, agree_on, calibrate, share};
    let world = Arc::new(World::from_fortran(comm)?);
    // SAFETY: the communicator is an Arc allocation the handle owns (`Ranks`), dropped
    // after the searcher that borrows it, never mutated.
    let c: &'static dyn Comm = unsafe { &*Arc::as_ptr(&world) };
    let inputs = inputs();
    let agreed = agree_on(c, inputs.as_ref().map(drop).map_err(|f| crate::Error::InvalidArgument(f.message.clone())));
    let (out, engine, scoring, db, opts, cigar) = inputs?;
    agreed?;
    // SAFETY: as in `clsw_searcher_new`; the part is an Arc allocation the handle owns,
    // dropped after the searcher.
    let (e, d): (&'static Engine, &'static Database) = unsafe { (&*Arc::as_ptr(&engine), &*Arc::as_ptr(&db)) };
    let share = share(c, e, d, calibrate(e, d, &scoring, &opts))?;
    let part = agree_on(c, share.part(d))?.map_or_else(|| db.clone(), Arc::new);
    // SAFETY: `part` is an Arc allocation the handle owns (`Ranks::_part`), dropped after
    // the searcher that borrows it, never mutated.
    let p: &'static Database = unsafe { &*Arc::as_ptr(&part) };
    let searcher = RankSearcher::new(c, e, d, p, &share, scoring, opts)?;
    let ranks = Box::new(Ranks { searcher, _part: part, _comm: world });
    *out = Box::into_raw(Box::new(clsw_searcher { searcher: Inner::Ranks(ranks), cigar, db, _engine: engine }));
    Ok(())
}

/// Frees a searcher (and its device buffers); NULL is ignored. Hits from it stay valid.
///
/// # Safety
/// `searcher` is NULL or a searcher from `clsw_searcher_new*`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_searcher_free(searcher: *mut clsw_searcher) {
    // SAFETY: `searcher` is NULL or a live boxed searcher, freed once (the caller's promise).
    unsafe { free_box(searcher) }
}

/// The results of one query's search: the hits, best first, and the search's
/// statistics. Immutable; give each thread its own (they may be passed between
/// threads, but not used by two at once).
pub struct clsw_hits {
    result: SearchResult,
    db: Arc<Database>,
    subject_ids: Vec<CString>,
    cigars: Vec<Option<CString>>,
}

fn hits_of(s: &clsw_searcher, result: SearchResult) -> clsw_hits {
    let subject_ids = result.hits.iter().map(|h| c_string(s.db.id(h.subject))).collect();
    let cigars = result
        .hits
        .iter()
        .map(|h| match (s.cigar, &h.alignment) {
            (CLSW_CIGAR_EXTENDED, Some(a)) => Some(c_string(&a.cigar(true))),
            (CLSW_CIGAR_M, Some(a)) => Some(c_string(&a.cigar(false))),
            _ => None,
        })
        .collect();
    clsw_hits { result, db: s.db.clone(), subject_ids, cigars }
}

/// A caller's query, `len` letters at `query` named `id` (NULL: "query"), encoded for
/// the searcher's database.
///
/// # Safety
/// `id` is NULL or NUL-terminated; `query` is NULL or has `len` readable bytes.
unsafe fn query_sequence(
    s: &clsw_searcher,
    id: *const c_char,
    query: *const u8,
    len: usize,
    what: &str,
) -> Outcome<Sequence> {
    let id = if id.is_null() {
        "query".to_string()
    } else {
        // SAFETY: `id` is non-NULL here, so NUL-terminated (this function's contract).
        unsafe { c_text(id, &format!("{what} id")) }?.to_string()
    };
    // SAFETY: `query` is NULL or has `len` readable bytes (this function's contract).
    let letters = unsafe { bytes(query, len, what) }?;
    let residues = encode(letters, s.db.alphabet(), &format!("{what} '{id}'"))?;
    Ok(Sequence { id, description: String::new(), residues })
}

/// Searches one query: `len` residue letters at `query` (not NUL-terminated; upper or
/// lower case), named `query_id` (NUL-terminated UTF-8, the first column of tabular
/// lines; NULL gives "query"; no whitespace or control characters, as every sequence
/// id). On success `*out` is a new hits handle to free with `clsw_hits_free`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (an empty query, a letter that is not a residue
/// — the message gives its position —, an id with a tab, newline, space or other
/// control character, a query so long that its score against the longest subject
/// could pass 32 bits), `CLSW_ERR_OPENCL`, `CLSW_ERR_DEVICE`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `searcher` is NULL or a live searcher; `query_id` is NULL or NUL-terminated; `query`
/// is NULL or has `len` readable bytes; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_searcher_search(
    searcher: *const clsw_searcher,
    query_id: *const c_char,
    query: *const u8,
    len: usize,
    out: *mut *mut clsw_hits,
) -> clsw_status {
    run(|| {
        // SAFETY: `out` is NULL or writable (the caller's promise).
        let out = unsafe { out_handle(out, "out (the hits output)") }?;
        // SAFETY: `searcher` is NULL or a live searcher (the caller's promise).
        let s = unsafe { handle(searcher, "searcher") }?;
        // SAFETY: `query_id` is NULL or NUL-terminated, `query` NULL or `len` readable
        // bytes (the caller's promise).
        let q = unsafe { query_sequence(s, query_id, query, len, "query") };
        let q = s.searcher.agreed(q)?;
        let mut result = None;
        s.searcher.search_all(std::slice::from_ref(&q), |r| {
            result = Some(r);
            Ok(())
        })?;
        // None on the ranks of an MPI searcher other than rank 0.
        *out = result.map_or(std::ptr::null_mut(), |r| Box::into_raw(Box::new(hits_of(s, r))));
        Ok(())
    })
}

/// Searches `count` queries in one call (query `k`: `lengths[k]` letters at
/// `queries[k]`, named `query_ids[k]`; `query_ids` or any entry may be NULL). The
/// devices scan query k + 1 while the CPU aligns the hits of query k, so this is
/// faster than `count` calls of `clsw_searcher_search`. `out` is a caller array of
/// `count` pointers; on success `out[k]` is query k's hits (free each with
/// `clsw_hits_free`); on failure every `out[k]` is NULL.
///
/// # Safety
/// `searcher` is NULL or a live searcher; `query_ids`, `queries` and `lengths` are NULL
/// or have `count` elements (as for `clsw_searcher_search`); `out` is NULL or has
/// `count` writable pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_searcher_search_many(
    searcher: *const clsw_searcher,
    count: usize,
    query_ids: *const *const c_char,
    queries: *const *const u8,
    lengths: *const usize,
    out: *mut *mut clsw_hits,
) -> clsw_status {
    run(|| {
        if count == 0 {
            return Err(Failure::invalid("count is 0: no queries"));
        }
        if out.is_null() {
            return Err(Failure::null("out (the array of hits outputs)"));
        }
        if count > isize::MAX as usize / std::mem::size_of::<*mut clsw_hits>() {
            return Err(Failure::invalid(format!("count {count} is impossible")));
        }
        // SAFETY: `out` is non-NULL (checked above), so it has `count` writable pointers
        // (the caller's promise), aligned, whose bytes fit isize (checked above); they
        // may be uninitialised, which a pointer tolerates, and are written at once.
        let outs = unsafe { std::slice::from_raw_parts_mut(out, count) };
        outs.fill(std::ptr::null_mut());
        // SAFETY: `searcher` is NULL or a live searcher (the caller's promise).
        let s = unsafe { handle(searcher, "searcher") }?;
        // SAFETY: `queries` is NULL or has `count` elements (the caller's promise).
        let seqs = unsafe { array(queries, count, "queries") }?;
        // SAFETY: `lengths` is NULL or has `count` elements (the caller's promise).
        let lens = unsafe { array(lengths, count, "lengths") }?;
        // SAFETY: `query_ids` is non-NULL here, so it has `count` elements (the caller's
        // promise).
        let ids = if query_ids.is_null() { None } else { Some(unsafe { array(query_ids, count, "query_ids") }?) };
        let qs = (0..count)
            .map(|k| {
                let id = ids.map_or(std::ptr::null(), |i| i[k]);
                // SAFETY: query_ids[k] is NULL or NUL-terminated, queries[k] NULL or
                // lengths[k] readable bytes (the caller's promise).
                unsafe { query_sequence(s, id, seqs[k], lens[k], &format!("queries[{k}]")) }
            })
            .collect::<Outcome<Vec<Sequence>>>();
        let qs = s.searcher.agreed(qs)?;
        let mut results = Vec::with_capacity(count);
        s.searcher.search_all(&qs, |r| {
            results.push(r);
            Ok(())
        })?;
        for (o, r) in outs.iter_mut().zip(results) {
            *o = Box::into_raw(Box::new(hits_of(s, r)));
        }
        Ok(())
    })
}

/// Every subject's optimal local (Smith-Waterman) score against the query, in
/// database order, into `scores` of `scores_len` elements (at least
/// `clsw_db_count()`; only that many are written). For DNA searched on both strands a
/// subject's score is the better of the two. No statistics, hits or alignments are
/// computed: this is the device scan alone.
/// Errors: `CLSW_ERR_BUFFER_TOO_SMALL` (`scores_len` below the database's count),
/// `CLSW_ERR_INVALID_ARGUMENT` (an empty query, a bad letter), `CLSW_ERR_OPENCL`,
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `searcher` is NULL or a live searcher; `query` is NULL or has `len` readable bytes;
/// `scores` is NULL or has `scores_len` writable elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_searcher_scores(
    searcher: *const clsw_searcher,
    query: *const u8,
    len: usize,
    scores: *mut i32,
    scores_len: usize,
) -> clsw_status {
    run(|| {
        // SAFETY: `searcher` is NULL or a live searcher (the caller's promise).
        let s = unsafe { handle(searcher, "searcher") }?;
        let n = s.db.len();
        if scores.is_null() {
            return Err(Failure::null("scores (the output buffer)"));
        }
        if scores_len < n {
            return Err(Failure::new(
                CLSW_ERR_BUFFER_TOO_SMALL,
                format!("scores holds {scores_len} elements; the database has {n} sequences"),
            ));
        }
        // SAFETY: `query` is NULL or has `len` readable bytes (the caller's promise).
        let q = unsafe { query_sequence(s, std::ptr::null(), query, len, "query") }?;
        let (local, _) = match &s.searcher {
            Inner::Alone(searcher) => searcher.scores(&q)?,
            #[cfg(feature = "mpi")]
            Inner::Ranks(_) => {
                return Err(Failure::invalid(
                    "clsw_searcher_scores: an MPI searcher keeps every subject's score on its rank",
                ));
            }
        };
        // SAFETY: `scores` is non-NULL (checked above), so it has `scores_len >= n`
        // writable, aligned elements (the caller's promise); the database's count fits
        // isize.
        let out = unsafe { std::slice::from_raw_parts_mut(scores, n) };
        for (o, l) in out.iter_mut().zip(&local) {
            *o = l.score;
        }
        Ok(())
    })
}

/// Frees a hits handle; NULL is ignored. Pointers read from it (ids, CIGARs) die with it.
///
/// # Safety
/// `hits` is NULL or hits from a search, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_hits_free(hits: *mut clsw_hits) {
    // SAFETY: `hits` is NULL or a live boxed hits handle, freed once (the caller's promise).
    unsafe { free_box(hits) }
}

/// The number of hits (0 to `max_hits`).
///
/// # Safety
/// `hits` is NULL or a live hits handle; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_hits_count(hits: *const clsw_hits, out: *mut usize) -> clsw_status {
    // SAFETY: `hits` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(hits, "hits", out, |h| Ok(h.result.hits.len())) }
}

/// One hit. Coordinates are 1-based and inclusive, as BLAST tabular and SAM print
/// them; for a DNA hit on the minus strand they follow BLAST's Plus/Minus convention
/// (`query_start < query_end` on the forward query, `subject_start > subject_end`).
/// Alignment fields are 0 (and `cigar` NULL) when the search computed no alignments.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_hit {
    /// `sizeof(clsw_hit)`, set by the caller.
    pub size: usize,
    /// The subject's 0-based index in database order.
    pub subject: usize,
    /// The subject's id, NUL-terminated; owned by the hits handle.
    pub subject_id: *const c_char,
    /// The subject's length.
    pub subject_length: usize,
    /// Raw Smith-Waterman score.
    pub score: i32,
    /// `CLSW_STRAND_PLUS`, or `CLSW_STRAND_MINUS` when the query's reverse complement
    /// matched (DNA).
    pub strand: clsw_strand,
    /// E-value (`NaN` when the search has no statistics).
    pub evalue: f64,
    /// Bit score (`NaN` when the search has no statistics).
    pub bit_score: f64,
    /// Nonzero when the alignment fields below are filled.
    pub has_alignment: i32,
    /// First aligned query residue, 1-based.
    pub query_start: usize,
    /// Last aligned query residue, 1-based, inclusive.
    pub query_end: usize,
    /// First aligned subject residue, 1-based (the larger one on the minus strand).
    pub subject_start: usize,
    /// Last aligned subject residue, 1-based, inclusive.
    pub subject_end: usize,
    /// Alignment columns (aligned pairs plus gap columns).
    pub length: usize,
    /// Columns with identical residues.
    pub identities: usize,
    /// Columns with a positive substitution score.
    pub similarities: usize,
    /// Aligned pairs that differ.
    pub mismatches: usize,
    /// Gaps opened.
    pub gap_opens: usize,
    /// Gap columns.
    pub gap_columns: usize,
    /// `100 * identities / length` (BLAST's pident).
    pub percent_identity: f64,
    /// The CIGAR string asked for with `clsw_search_options.cigar` (reading the
    /// subject forward; for the minus strand, of the reverse-complemented query), or
    /// NULL. Owned by the hits handle.
    pub cigar: *const c_char,
    /// 0 for the subject's best alignment; 1, 2, ... for its further ones
    /// (`clsw_search_options.max_hsps`), which follow it, best first. Appended later: a
    /// caller whose `size` ends before it does not get it.
    pub hsp: usize,
}

versioned!(clsw_hit, std::mem::offset_of!(clsw_hit, hsp));

/// Copies hit `index` (0 is the best) into `*out`, whose `size` the caller sets to
/// `sizeof(clsw_hit)`. The strings it points to belong to `hits`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, `size` too small),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `hits` is NULL or a live hits handle; `out` is NULL or has `out->size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_hits_get(hits: *const clsw_hits, index: usize, out: *mut clsw_hit) -> clsw_status {
    // SAFETY: `hits` is NULL or live, `out` NULL or sized and writable (the caller's
    // promise).
    unsafe { get_versioned(hits, "hits", out, "out (the hit)", |h| hit_of(h, index)) }
}

fn hit_of(h: &clsw_hits, index: usize) -> Outcome<clsw_hit> {
    {
        let hit = item(&h.result.hits, index, "hit index", "hits")?;
        // SAFETY: every field of clsw_hit is a number or a raw pointer, for which
        // all-zero bytes are a valid value.
        let mut c: clsw_hit = unsafe { std::mem::zeroed() };
        c.size = std::mem::size_of::<clsw_hit>();
        c.subject = hit.subject;
        c.subject_id = h.subject_ids[index].as_ptr();
        c.subject_length = h.db.seq_len(hit.subject);
        c.score = hit.score;
        c.strand = if hit.strand == Strand::Minus { CLSW_STRAND_MINUS } else { CLSW_STRAND_PLUS };
        c.evalue = hit.evalue;
        c.bit_score = hit.bit_score;
        if let Some(a) = &hit.alignment {
            let (qs, qe, ss, se) = blast_coordinates(a, hit.strand, h.result.query_len);
            c.has_alignment = 1;
            (c.query_start, c.query_end, c.subject_start, c.subject_end) = (qs, qe, ss, se);
            c.length = a.length();
            c.identities = a.identities;
            c.similarities = a.similarities;
            c.mismatches = a.mismatches;
            c.gap_opens = a.gap_opens;
            c.gap_columns = a.gap_columns;
            c.percent_identity = a.percent_identity();
        }
        c.cigar = h.cigars[index].as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        c.hsp = hit.hsp;
        Ok(c)
    }
}

/// About one query's search (`clsw_hits_info`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_search_info {
    /// `sizeof(clsw_search_info)`, set by the caller.
    pub size: usize,
    /// Number of hits.
    pub hits: usize,
    /// The query's length.
    pub query_length: usize,
    /// Sequences in the database (the `D` of `E = D * P`).
    pub db_sequences: usize,
    /// Strands searched (1, or 2 for DNA on both strands).
    pub strands_searched: usize,
    /// Subjects recomputed at 32 bits after their 16-bit score saturated.
    pub recomputed: usize,
    /// Dynamic-programming cells computed (query length x database residues x strands).
    pub cells: u64,
    /// A `CLSW_EVALUE_*`.
    pub evalue_source: clsw_evalue_source,
    /// Karlin-Altschul lambda (`NaN` without statistics).
    pub lambda: f64,
    /// Karlin-Altschul K (`NaN` without statistics).
    pub k: f64,
    /// Kernel time on the devices (from profiling events; 0 on the native path), seconds.
    pub kernel_seconds: f64,
    /// Host time of the scan, seconds.
    pub scan_seconds: f64,
    /// Scan plus statistics, hit selection and alignments, seconds.
    pub wall_seconds: f64,
}

versioned!(clsw_search_info);

/// Copies the search's statistics into `*out`, whose `size` the caller sets to
/// `sizeof(clsw_search_info)`.
///
/// # Safety
/// `hits` is NULL or a live hits handle; `out` is NULL or has `out->size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_hits_info(hits: *const clsw_hits, out: *mut clsw_search_info) -> clsw_status {
    // SAFETY: `hits` is NULL or live, `out` NULL or sized and writable (the caller's
    // promise).
    unsafe { get_versioned(hits, "hits", out, "out (the search info)", |h| Ok(info_of(&h.result))) }
}

fn info_of(r: &SearchResult) -> clsw_search_info {
    {
        clsw_search_info {
            size: std::mem::size_of::<clsw_search_info>(),
            hits: r.hits.len(),
            query_length: r.query_len,
            db_sequences: r.statistics.db_sequences,
            strands_searched: r.strands_searched.len(),
            recomputed: r.recomputed,
            cells: r.cells,
            evalue_source: match r.statistics.source {
                EvalueSource::Fitted => CLSW_EVALUE_FITTED,
                EvalueSource::Published => CLSW_EVALUE_PUBLISHED,
                EvalueSource::None => CLSW_EVALUE_NONE,
                EvalueSource::Regression => CLSW_EVALUE_REGRESSION,
                EvalueSource::Shuffled => CLSW_EVALUE_SHUFFLED,
                EvalueSource::Normal => CLSW_EVALUE_NORMAL,
            },
            lambda: r.statistics.params.map_or(f64::NAN, |p| p.lambda),
            k: r.statistics.params.map_or(f64::NAN, |p| p.k),
            kernel_seconds: r.kernel_seconds,
            scan_seconds: r.scan_seconds,
            wall_seconds: r.wall_seconds,
        }
    }
}

/// Hit `index` as one BLAST tabular line (`-outfmt 6`: qseqid sseqid pident length
/// mismatch gapopen qstart qend sstart send evalue bitscore, tab-separated, no
/// newline), exactly as `clsw scan --outfmt tabular` prints it; `extended` nonzero
/// appends the raw score and the `=`/`X`/`I`/`D` CIGAR (`tabular-ext`). Written to
/// `buf` of `len` bytes, NUL-terminated; `*needed` (if not NULL) gets the size
/// required (`CLSW_ERR_BUFFER_TOO_SMALL` when `len` is less; 1024 bytes hold any line
/// with ids under 400 characters).
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, or the search computed no
/// alignments), `CLSW_ERR_BUFFER_TOO_SMALL`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `hits` is NULL or a live hits handle; `buf` is NULL or has `len` writable bytes;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_hits_tabular(
    hits: *const clsw_hits,
    index: usize,
    extended: i32,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    run(|| {
        // SAFETY: `hits` is NULL or a live hits handle (the caller's promise).
        let h = unsafe { handle(hits, "hits") }?;
        let hit = item(&h.result.hits, index, "hit index", "hits")?;
        let line = tabular_line(&h.result, hit, &h.db, extended != 0)
            .ok_or_else(|| Failure::invalid("the hit has no alignment: the search ran with options.alignments = 0"))?;
        // SAFETY: `buf` has `len` writable bytes unless NULL, `needed` is NULL or
        // writable (the caller's promise).
        unsafe { write_string(&line, buf, len, needed, "tabular line") }
    })
}

// The header promises that engines, scorings, databases and searchers may be shared
// between threads: keep that true at compile time.
send_sync!(clsw_searcher, super::engine::clsw_engine, super::db::clsw_db, super::scoring::clsw_scoring, clsw_hits);

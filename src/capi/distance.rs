//! All-pairs distance matrices (`clsw dist`): SNP distances over aligned sequences
//! (caller arrays or a FASTA alignment) and genotype distances (a PLINK .bed fileset, a
//! 0/1/2 table file, or a caller `int8_t` matrix), counted on the engine's devices.
//!
//! Over 600 lines: one entry point (options, four inputs, the result handle), each
//! pointer with its SAFETY comment.

use super::engine::clsw_engine;
use super::*;
use crate::distance::input::{read_alignment, read_bed, read_genotype_table};
use crate::distance::{
    Coding, DistanceMatrix, Metric, Options, Packed, SampleName, Variant, check_coding_flags, compute, pack_alignment,
    pack_genotype_matrix,
};
use crate::memory;

/// Which alignment letters are compared (`clsw_distance_options.coding`): flags, OR-ed.
pub type clsw_distance_coding = u32;
/// snp-dists' default: only A, C, G, T (any case) are compared; a site where either
/// sample has anything else is skipped for that pair.
pub const CLSW_DISTANCE_SNP: clsw_distance_coding = 0;
/// A gap (`-` or `.`) is a state of its own: gap against base is a difference, gap
/// against gap is not.
pub const CLSW_DISTANCE_COUNT_GAPS: clsw_distance_coding = 1;
/// N and every other letter but A/C/G/T (IUPAC codes, `?`, `X`) are one state "N".
pub const CLSW_DISTANCE_COUNT_N: clsw_distance_coding = 2;

/// Where the pairs are counted (`clsw_distance_options.variant`).
pub type clsw_distance_variant = u32;
/// Bit planes, tiles of samples x samples in local memory (the fast kernel).
pub const CLSW_DISTANCE_BITPLANE: clsw_distance_variant = 0;
/// Payne et al.'s design: code bytes packed four per word, one work-group per pair.
pub const CLSW_DISTANCE_CHARPACKED: clsw_distance_variant = 1;
/// Bit planes on all CPU cores, no OpenCL (also what an engine without OpenCL devices
/// runs, whatever the variant).
pub const CLSW_DISTANCE_CPU: clsw_distance_variant = 2;

/// The values `clsw_distance_result_values` gives (`clsw_distance_options.metric`); PLINK's
/// definitions with missing calls skipped (`--distance ... flat-missing`).
pub type clsw_distance_metric = u32;
/// Differing compared sites (snp-dists' SNP distance; differing genotypes).
pub const CLSW_METRIC_DIFF: clsw_distance_metric = 0;
/// PLINK `allele-ct` (.dist): genotypes `(diff + ibs0) * sites / compared`, alignments
/// `diff * sites / compared`.
pub const CLSW_METRIC_ALLELE_CT: clsw_distance_metric = 1;
/// PLINK `ibs` (.mibs): `1 - (diff + ibs0) / (2 compared)` for genotypes, `1 - diff /
/// compared` for alignments; 1 on the diagonal.
pub const CLSW_METRIC_IBS: clsw_distance_metric = 2;
/// PLINK `1-ibs` (.mdist): one minus `CLSW_METRIC_IBS`.
pub const CLSW_METRIC_ONE_MINUS_IBS: clsw_distance_metric = 3;

/// What to compute. Fill it with `clsw_distance_options_init`, then change fields; or
/// pass NULL for the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct clsw_distance_options {
    /// `sizeof(clsw_distance_options)` (set by `clsw_distance_options_init`).
    pub size: usize,
    /// Alignments only: `CLSW_DISTANCE_SNP` (default), or `CLSW_DISTANCE_COUNT_GAPS` and/or
    /// `CLSW_DISTANCE_COUNT_N`. Must be `CLSW_DISTANCE_SNP` for genotype inputs.
    pub coding: clsw_distance_coding,
    /// Nonzero: leave out sites where at most one compared state occurs across all
    /// samples (differences are unchanged; compared counts and the metrics that use them
    /// change). Default 0.
    pub ignore_constant: i32,
    /// `CLSW_DISTANCE_BITPLANE` (default), `CLSW_DISTANCE_CHARPACKED` or
    /// `CLSW_DISTANCE_CPU`. All give the same counts.
    pub variant: clsw_distance_variant,
    /// Nonzero: also count the sites each pair compares (`clsw_distance_result_compared`).
    /// Implied by every metric but `CLSW_METRIC_DIFF`. Default 0.
    pub want_compared: i32,
    /// What `clsw_distance_result_values` gives: `CLSW_METRIC_DIFF` (default),
    /// `CLSW_METRIC_ALLELE_CT`, `CLSW_METRIC_IBS` or `CLSW_METRIC_ONE_MINUS_IBS`.
    pub metric: clsw_distance_metric,
}

versioned!(clsw_distance_options);

impl Default for clsw_distance_options {
    fn default() -> Self {
        clsw_distance_options {
            size: std::mem::size_of::<clsw_distance_options>(),
            coding: CLSW_DISTANCE_SNP,
            ignore_constant: 0,
            variant: CLSW_DISTANCE_BITPLANE,
            want_compared: 0,
            metric: CLSW_METRIC_DIFF,
        }
    }
}

/// Fills `*options` with the defaults (snp-dists' coding, bit-plane kernel, differences
/// only). `size` is the caller's `sizeof(clsw_distance_options)`: only that many bytes
/// are written.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (`size` smaller than the first version's),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `options` is NULL or has `size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_options_init(options: *mut clsw_distance_options, size: usize) -> clsw_status {
    // SAFETY: `options` is NULL or has `size` writable bytes (the caller's promise).
    unsafe { options_init(options, size) }
}

/// The parsed options: the library's, the metric, and the alignment coding.
struct Parsed {
    opts: Options,
    metric: Metric,
    coding: Coding,
}

fn parse(o: &clsw_distance_options, genotype: bool) -> Outcome<Parsed> {
    if o.coding & !(CLSW_DISTANCE_COUNT_GAPS | CLSW_DISTANCE_COUNT_N) != 0 {
        return Err(Failure::invalid(format!(
            "options.coding {}: use CLSW_DISTANCE_SNP (0), or CLSW_DISTANCE_COUNT_GAPS (1) and/or \
             CLSW_DISTANCE_COUNT_N (2)",
            o.coding
        )));
    }
    let (count_gaps, count_n) = (o.coding & CLSW_DISTANCE_COUNT_GAPS != 0, o.coding & CLSW_DISTANCE_COUNT_N != 0);
    check_coding_flags(count_gaps, count_n, genotype)?;
    let variant = match o.variant {
        CLSW_DISTANCE_BITPLANE => Variant::Bitplane,
        CLSW_DISTANCE_CHARPACKED => Variant::Charpacked,
        CLSW_DISTANCE_CPU => Variant::Cpu,
        v => {
            return Err(Failure::invalid(format!(
                "options.variant {v}: use CLSW_DISTANCE_BITPLANE (0), CLSW_DISTANCE_CHARPACKED (1) or \
                 CLSW_DISTANCE_CPU (2)"
            )));
        }
    };
    let metric = match o.metric {
        CLSW_METRIC_DIFF => Metric::Differences,
        CLSW_METRIC_ALLELE_CT => Metric::AlleleCount,
        CLSW_METRIC_IBS => Metric::Ibs,
        CLSW_METRIC_ONE_MINUS_IBS => Metric::OneMinusIbs,
        m => {
            return Err(Failure::invalid(format!(
                "options.metric {m}: use CLSW_METRIC_DIFF (0), CLSW_METRIC_ALLELE_CT (1), CLSW_METRIC_IBS (2) or \
                 CLSW_METRIC_ONE_MINUS_IBS (3)"
            )));
        }
    };
    let coding = Coding::Nucleotide { count_gaps, count_n };
    let opts = Options {
        variant,
        want_compared: metric.want_compared(o.want_compared != 0),
        ignore_constant: o.ignore_constant != 0,
        ..Options::default()
    };
    Ok(Parsed { opts, metric, coding })
}

/// An all-pairs distance matrix, with its sample names when it was read from a file.
/// Immutable; give each thread its own.
pub struct clsw_distance_result {
    matrix: DistanceMatrix,
    metric: Metric,
    names: Option<Vec<SampleName>>,
}

/// The body of every distance constructor: `input` reads the samples in the options'
/// coding, the matrix is computed on `engine` into a new handle at `*out`.
///
/// # Safety
/// `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
/// bytes; `out` is NULL or writable.
unsafe fn finish(
    engine: *const clsw_engine,
    options: *const clsw_distance_options,
    out: *mut *mut clsw_distance_result,
    genotype: bool,
    input: impl FnOnce(Coding) -> Outcome<(Packed, Option<Vec<SampleName>>)>,
) -> clsw_status {
    run(|| {
        // SAFETY: `out` is NULL or writable (this function's contract).
        let out = unsafe { out_handle(out, "out (the distance result output)") }?;
        // SAFETY: `engine` is NULL or a live engine (this function's contract).
        let e = unsafe { handle(engine, "engine") }?;
        // SAFETY: `options` is NULL or sized and readable (this function's contract).
        let o = unsafe { read_versioned(options, clsw_distance_options::default()) }?;
        let p = parse(&o, genotype)?;
        let (packed, names) = input(p.coding)?;
        let (matrix, _) = compute(&e.engine, &packed, &p.opts)?;
        *out = Box::into_raw(Box::new(clsw_distance_result { matrix, metric: p.metric, names }));
        Ok(())
    })
}

/// Distances of `count` aligned sequences from caller arrays: sequence `k` is
/// `lengths[k]` alignment letters at `sequences[k]` (A, C, G, T, gaps `-` `.`, N, IUPAC
/// codes, `?`; any case; not NUL-terminated), all of the same length. The samples have
/// no names. On success `*out` is a new matrix to free with `clsw_distance_result_free`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (a count of 0, sequences of different lengths or
/// of length 0, a byte that is not an alignment letter — the message names the sequence
/// and site —, an impossible option), `CLSW_ERR_OPENCL`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
/// bytes; `out` is NULL or writable; `sequences` and `lengths` are NULL or have
/// `count` elements, `sequences[k]` `lengths[k]` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_aligned(
    engine: *const clsw_engine,
    count: usize,
    sequences: *const *const u8,
    lengths: *const usize,
    options: *const clsw_distance_options,
    out: *mut *mut clsw_distance_result,
) -> clsw_status {
    let input = |coding: Coding| {
        if count == 0 {
            return Err(Failure::invalid("count is 0: no sequences to compare"));
        }
        // SAFETY: `sequences` is NULL or has `count` elements (the caller's promise).
        let ptrs = unsafe { array(sequences, count, "sequences") }?;
        // SAFETY: `lengths` is NULL or has `count` elements (the caller's promise).
        let lens = unsafe { array(lengths, count, "lengths") }?;
        let seqs: Vec<&[u8]> = (0..count)
            // SAFETY: sequences[k] is NULL or has lengths[k] readable bytes (the caller's
            // promise).
            .map(|k| unsafe { bytes(ptrs[k], lens[k], &format!("sequences[{k}]")) })
            .collect::<Outcome<_>>()?;
        Ok((pack_alignment(&seqs, coding)?, None))
    };
    // SAFETY: `engine` is NULL or live, `options` NULL or sized and readable, `out` NULL
    // or writable (the caller's promise).
    unsafe { finish(engine, options, out, false, input) }
}

/// Distances of the records of a FASTA multiple alignment (plain or gzip; all records
/// the same length). `path` is a NUL-terminated path, any bytes. Names: the records' ids.
/// Errors: `CLSW_ERR_IO`, `CLSW_ERR_PARSE` (a malformed file, a ragged alignment or an
/// empty first sequence: the message names the file, line and record, and the lengths
/// that differ), `CLSW_ERR_INVALID_ARGUMENT` (an impossible option),
/// `CLSW_ERR_OPENCL`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
/// bytes; `out` is NULL or writable; `path` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_fasta(
    engine: *const clsw_engine,
    path: *const c_char,
    options: *const clsw_distance_options,
    out: *mut *mut clsw_distance_result,
) -> clsw_status {
    let input = |coding: Coding| {
        // SAFETY: `path` is NULL or NUL-terminated (the caller's promise).
        let path = unsafe { c_path(path, "path (the alignment)") }?;
        let d = read_alignment(&path, coding)?;
        Ok((d.packed, Some(d.names)))
    };
    // SAFETY: `engine` is NULL or live, `options` NULL or sized and readable, `out` NULL
    // or writable (the caller's promise).
    unsafe { finish(engine, options, out, false, input) }
}

/// Genotype distances of a PLINK 1 binary fileset: `prefix` names `prefix.bed`,
/// `prefix.bim` and `prefix.fam` (SNP-major .bed; missing calls skipped). Names: the
/// .fam's family and individual ids.
/// Errors: `CLSW_ERR_IO`, `CLSW_ERR_PARSE`, `CLSW_ERR_INVALID_ARGUMENT` (a .bed whose
/// size disagrees with the .bim and .fam, an option for alignments), `CLSW_ERR_OPENCL`,
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
/// bytes; `out` is NULL or writable; `prefix` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_bed(
    engine: *const clsw_engine,
    prefix: *const c_char,
    options: *const clsw_distance_options,
    out: *mut *mut clsw_distance_result,
) -> clsw_status {
    let input = |_: Coding| {
        // SAFETY: `prefix` is NULL or NUL-terminated (the caller's promise).
        let prefix = unsafe { c_path(prefix, "prefix (the .bed/.bim/.fam fileset)") }?;
        let d = read_bed(&prefix)?;
        Ok((d.packed, Some(d.names)))
    };
    // SAFETY: `engine` is NULL or live, `options` NULL or sized and readable, `out` NULL
    // or writable (the caller's promise).
    unsafe { finish(engine, options, out, true, input) }
}

/// Genotype distances of a 0/1/2 table file (plain or gzip): one sample per line, its
/// name first, then one genotype per site (`-1`, `NA`, `.` or `N` for missing calls),
/// fields separated by tabs or spaces; `#` comments. The first line is a header when
/// none of its fields after the first is a genotype value or a number. A value that is
/// not a genotype is an error naming the line, column and value (never a header).
/// Names: the first column. Errors as for `clsw_distance_bed`.
///
/// # Safety
/// `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
/// bytes; `out` is NULL or writable; `path` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_genotype_table(
    engine: *const clsw_engine,
    path: *const c_char,
    options: *const clsw_distance_options,
    out: *mut *mut clsw_distance_result,
) -> clsw_status {
    let input = |_: Coding| {
        // SAFETY: `path` is NULL or NUL-terminated (the caller's promise).
        let path = unsafe { c_path(path, "path (the genotype table)") }?;
        let d = read_genotype_table(&path)?;
        Ok((d.packed, Some(d.names)))
    };
    // SAFETY: `engine` is NULL or live, `options` NULL or sized and readable, `out` NULL
    // or writable (the caller's promise).
    unsafe { finish(engine, options, out, true, input) }
}

/// Genotype distances of a caller matrix: `genotypes` holds `samples * sites` values,
/// row-major (sample `i`'s genotype at site `s` is `genotypes[i * sites + s]`): 0, 1, 2
/// copies of one allele, any other value (e.g. -1) a missing call. The samples have no
/// names.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (0 samples or 0 sites, an option for
/// alignments), `CLSW_ERR_OPENCL`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `engine` is NULL or a live engine; `options` is NULL or has `options->size` readable
/// bytes; `out` is NULL or writable; `genotypes` is NULL or has `samples * sites`
/// readable values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_genotypes(
    engine: *const clsw_engine,
    genotypes: *const i8,
    samples: usize,
    sites: usize,
    options: *const clsw_distance_options,
    out: *mut *mut clsw_distance_result,
) -> clsw_status {
    let input = |_: Coding| {
        if samples == 0 || sites == 0 {
            return Err(Failure::invalid(format!(
                "a genotype matrix of {samples} samples x {sites} sites: both must be positive"
            )));
        }
        let cells = samples
            .checked_mul(sites)
            .ok_or_else(|| Failure::invalid(format!("{samples} samples x {sites} sites is impossible")))?;
        // SAFETY: `genotypes` is NULL or has samples * sites = `cells` readable values (the
        // caller's promise).
        let g = unsafe { array(genotypes, cells, "genotypes") }?;
        Ok((pack_genotype_matrix(g, samples)?, None))
    };
    // SAFETY: `engine` is NULL or live, `options` NULL or sized and readable, `out` NULL
    // or writable (the caller's promise).
    unsafe { finish(engine, options, out, true, input) }
}

/// Frees a distance matrix; NULL is ignored. Names read from it stay valid only
/// until then.
///
/// # Safety
/// `distances` is NULL or a matrix from a `clsw_distance_*` constructor, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_result_free(distances: *mut clsw_distance_result) {
    // SAFETY: `distances` is NULL or a live boxed result, freed once (the caller's promise).
    unsafe { free_box(distances) }
}

/// The number of samples `n` (the matrices are `n x n`).
///
/// # Safety
/// `distances` is NULL or a live result; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_result_count(
    distances: *const clsw_distance_result,
    out: *mut usize,
) -> clsw_status {
    // SAFETY: `distances` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(distances, "distances", out, |d| Ok(d.matrix.n)) }
}

/// Sites in the input (`*sites`) and sites the counters range over (`*considered`:
/// all of them, or the non-constant ones with `options.ignore_constant`); the
/// allele-count metric is scaled to `*considered`. Either output may be NULL.
///
/// # Safety
/// `distances` is NULL or a live result; `sites` and `considered` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_result_sites(
    distances: *const clsw_distance_result,
    sites: *mut u64,
    considered: *mut u64,
) -> clsw_status {
    // SAFETY: `distances` is NULL or live, `sites` and `considered` NULL or writable (the
    // caller's promise).
    unsafe { get_pair(distances, "distances", sites, considered, |d| (d.matrix.sites, d.matrix.considered_sites)) }
}

/// The full symmetric `n x n` matrix of differences (differing compared sites), row-major
/// (pair `(i, j)` at `i * n + j`), zero diagonal, into `matrix` of `len` elements;
/// `*needed` (if not NULL) gets `n * n`. `matrix` may be NULL when `len` is 0 (a size
/// query).
/// Errors: `CLSW_ERR_BUFFER_TOO_SMALL` (`len < n * n`; nothing is written),
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `distances` is NULL or a live result; `matrix` is NULL or has `len` writable elements;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_result_matrix(
    distances: *const clsw_distance_result,
    matrix: *mut u32,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    // SAFETY: `distances` is NULL or live, `matrix` NULL or `len` writable elements,
    // `needed` NULL or writable (the caller's promise).
    unsafe { square(distances, matrix, len, needed, "matrix", false, |d| Ok(Some(d.matrix.square()?))) }
}

/// The `n x n` matrix of compared sites (sites where both samples have a compared
/// state), row-major, zero diagonal; buffer as for `clsw_distance_result_matrix`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (not counted: set `options.want_compared`, or
/// use a metric other than `CLSW_METRIC_DIFF`), `CLSW_ERR_BUFFER_TOO_SMALL`,
/// `CLSW_ERR_NULL`.
///
/// # Safety
/// `distances` is NULL or a live result; `compared` is NULL or has `len` writable elements;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_result_compared(
    distances: *const clsw_distance_result,
    compared: *mut u32,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    // SAFETY: `distances` is NULL or live, `compared` NULL or `len` writable elements,
    // `needed` NULL or writable (the caller's promise).
    unsafe { square(distances, compared, len, needed, "compared", true, |d| Ok(d.matrix.square_compared()?)) }
}

/// The `n x n` matrix of the metric chosen in the options (`options.metric`), as
/// doubles, row-major; the diagonal is the metric's self value (1 for
/// `CLSW_METRIC_IBS`, else 0); a pair with no compared site gets NaN. Buffer as for
/// `clsw_distance_result_matrix`.
/// Errors: `CLSW_ERR_BUFFER_TOO_SMALL`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `distances` is NULL or a live result; `values` is NULL or has `len` writable elements;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_result_values(
    distances: *const clsw_distance_result,
    values: *mut f64,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    let make = |d: &clsw_distance_result| {
        let n = d.matrix.n;
        let values = (0..n * n).map(|k| d.matrix.value(d.metric, k / n, k % n));
        Ok(Some(memory::collect(format_args!("the {n} x {n} matrix of values"), values)?))
    };
    // SAFETY: `distances` is NULL or live, `values` NULL or `len` writable elements,
    // `needed` NULL or writable (the caller's promise).
    unsafe { square(distances, values, len, needed, "values", false, make) }
}

/// The body of the `n x n` getters: the buffer is checked before the matrix is made;
/// `needs_compared`: the matrix is made from the compared counts, which a run may lack.
///
/// # Safety
/// `distances` is NULL or a live result; `buf` is NULL or has `len` writable elements;
/// `needed` is NULL or writable.
unsafe fn square<T: Copy>(
    distances: *const clsw_distance_result,
    buf: *mut T,
    len: usize,
    needed: *mut usize,
    what: &str,
    needs_compared: bool,
    values: impl FnOnce(&clsw_distance_result) -> Outcome<Option<Vec<T>>>,
) -> clsw_status {
    run(|| {
        // SAFETY: `distances` is NULL or a live result (this function's contract).
        let d = unsafe { handle(distances, "distances") }?;
        if needs_compared && d.matrix.compared.is_none() {
            return Err(Failure::invalid(
                "the compared sites were not counted: set options.want_compared (or a metric)",
            ));
        }
        // SAFETY: `needed` is NULL or writable (this function's contract).
        unsafe { check_room(d.matrix.n * d.matrix.n, buf, len, needed, what) }?;
        let v = values(d)?.ok_or_else(|| Failure::new(CLSW_ERR_INTERNAL, format!("{what}: no matrix")))?;
        // SAFETY: `buf` is NULL or has `len` writable elements, `needed` NULL or writable
        // (this function's contract).
        unsafe { write_array(&v, buf, len, needed, what) }
    })
}

/// The body of `clsw_distance_result_name` and `_family`.
///
/// # Safety
/// `distances` is NULL or a live result; `buf` is NULL or has `len` writable bytes;
/// `needed` is NULL or writable.
unsafe fn name_of(
    distances: *const clsw_distance_result,
    index: usize,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
    family: bool,
) -> clsw_status {
    run(|| {
        // SAFETY: `distances` is NULL or a live result (this function's contract).
        let d = unsafe { handle(distances, "distances") }?;
        let names = d
            .names
            .as_ref()
            .ok_or_else(|| Failure::invalid("the samples have no names (the matrix was made from caller arrays)"))?;
        let n = names.get(index).ok_or_else(|| {
            Failure::invalid(format!("sample index {index} is out of range ({} samples)", names.len()))
        })?;
        let text = if family { &n.family } else { &n.id };
        // SAFETY: `buf` is NULL or has `len` writable bytes, `needed` NULL or writable
        // (this function's contract).
        unsafe { write_string(text, buf, len, needed, "sample name") }
    })
}

/// Sample `index`'s name (0-based, in input order): the FASTA record's id, the .fam's
/// individual id, the table's first column; into `buf` of `len` bytes, NUL-terminated;
/// `*needed` (if not NULL) gets the size required.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` (index out of range, a matrix made from caller
/// arrays, which has no names), `CLSW_ERR_BUFFER_TOO_SMALL`, `CLSW_ERR_NULL`.
///
/// # Safety
/// `distances` is NULL or a live result; `buf` is NULL or has `len` writable bytes;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_result_name(
    distances: *const clsw_distance_result,
    index: usize,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    // SAFETY: `distances` is NULL or live, `buf` NULL or `len` writable bytes, `needed`
    // NULL or writable (the caller's promise).
    unsafe { name_of(distances, index, buf, len, needed, false) }
}

/// Sample `index`'s family id (PLINK's FID from the .fam; the same as the name for FASTA
/// and table inputs). Arguments and errors as for `clsw_distance_result_name`.
///
/// # Safety
/// `distances` is NULL or a live result; `buf` is NULL or has `len` writable bytes;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distance_result_family(
    distances: *const clsw_distance_result,
    index: usize,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    // SAFETY: `distances` is NULL or live, `buf` NULL or `len` writable bytes, `needed`
    // NULL or writable (the caller's promise).
    unsafe { name_of(distances, index, buf, len, needed, true) }
}

// Deprecated names (clsw 0.1): the result handle was `clsw_distances` and its
// functions `clsw_distances_*`. Kept for one release as thin aliases.

/// Deprecated since 0.2.0: the old name of `clsw_distance_result`.
pub type clsw_distances = clsw_distance_result;

/// Deprecated since 0.2.0: use `clsw_distance_result_free` (same arguments and behaviour).
///
/// # Safety
/// As for `clsw_distance_result_free`.
#[deprecated(since = "0.2.0", note = "use clsw_distance_result_free")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distances_free(distances: *mut clsw_distances) {
    // SAFETY: the arguments are passed on unchanged; `clsw_distance_result_free` has the same contract.
    unsafe { clsw_distance_result_free(distances) }
}

/// Deprecated since 0.2.0: use `clsw_distance_result_count` (same arguments and behaviour).
///
/// # Safety
/// As for `clsw_distance_result_count`.
#[deprecated(since = "0.2.0", note = "use clsw_distance_result_count")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distances_count(distances: *const clsw_distances, out: *mut usize) -> clsw_status {
    // SAFETY: the arguments are passed on unchanged; `clsw_distance_result_count` has the same contract.
    unsafe { clsw_distance_result_count(distances, out) }
}

/// Deprecated since 0.2.0: use `clsw_distance_result_sites` (same arguments and behaviour).
///
/// # Safety
/// As for `clsw_distance_result_sites`.
#[deprecated(since = "0.2.0", note = "use clsw_distance_result_sites")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distances_sites(
    distances: *const clsw_distances,
    sites: *mut u64,
    considered: *mut u64,
) -> clsw_status {
    // SAFETY: the arguments are passed on unchanged; `clsw_distance_result_sites` has the same contract.
    unsafe { clsw_distance_result_sites(distances, sites, considered) }
}

/// Deprecated since 0.2.0: use `clsw_distance_result_matrix` (same arguments and behaviour).
///
/// # Safety
/// As for `clsw_distance_result_matrix`.
#[deprecated(since = "0.2.0", note = "use clsw_distance_result_matrix")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distances_matrix(
    distances: *const clsw_distances,
    matrix: *mut u32,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    // SAFETY: the arguments are passed on unchanged; `clsw_distance_result_matrix` has the same contract.
    unsafe { clsw_distance_result_matrix(distances, matrix, len, needed) }
}

/// Deprecated since 0.2.0: use `clsw_distance_result_compared` (same arguments and behaviour).
///
/// # Safety
/// As for `clsw_distance_result_compared`.
#[deprecated(since = "0.2.0", note = "use clsw_distance_result_compared")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distances_compared(
    distances: *const clsw_distances,
    compared: *mut u32,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    // SAFETY: the arguments are passed on unchanged; `clsw_distance_result_compared` has the same contract.
    unsafe { clsw_distance_result_compared(distances, compared, len, needed) }
}

/// Deprecated since 0.2.0: use `clsw_distance_result_values` (same arguments and behaviour).
///
/// # Safety
/// As for `clsw_distance_result_values`.
#[deprecated(since = "0.2.0", note = "use clsw_distance_result_values")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distances_values(
    distances: *const clsw_distances,
    values: *mut f64,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    // SAFETY: the arguments are passed on unchanged; `clsw_distance_result_values` has the same contract.
    unsafe { clsw_distance_result_values(distances, values, len, needed) }
}

/// Deprecated since 0.2.0: use `clsw_distance_result_name` (same arguments and behaviour).
///
/// # Safety
/// As for `clsw_distance_result_name`.
#[deprecated(since = "0.2.0", note = "use clsw_distance_result_name")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distances_name(
    distances: *const clsw_distances,
    index: usize,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    // SAFETY: the arguments are passed on unchanged; `clsw_distance_result_name` has the same contract.
    unsafe { clsw_distance_result_name(distances, index, buf, len, needed) }
}

/// Deprecated since 0.2.0: use `clsw_distance_result_family` (same arguments and behaviour).
///
/// # Safety
/// As for `clsw_distance_result_family`.
#[deprecated(since = "0.2.0", note = "use clsw_distance_result_family")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_distances_family(
    distances: *const clsw_distances,
    index: usize,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    // SAFETY: the arguments are passed on unchanged; `clsw_distance_result_family` has the same contract.
    unsafe { clsw_distance_result_family(distances, index, buf, len, needed) }
}

// Distance handles may be passed between threads.
send_sync!(clsw_distance_result);

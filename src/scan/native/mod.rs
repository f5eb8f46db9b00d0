//! Native CPU scan, for machines without any OpenCL device: every subject's exact score
//! and end cell, on all of rayon's threads (the CLI's `--threads`), in three passes,
//! each exact where it answers:
//!
//! 1. [`swipe`] on bytes: one subject per 8-bit lane, 64, 32 or 16 to a vector
//!    (SWIPE-style inter-sequence SIMD); nearly every subject of a real database ends
//!    here.
//! 2. 16-bit words for the subjects whose byte lane may have saturated (or all of them
//!    when the scoring does not fit bytes): [`swipe`] with half as many lanes, except
//!    that subjects much longer than a thread's share of this pass (a few long
//!    homologs of a long query, typically) each run on all lanes of the striped kernel
//!    ([`striped::score`]), subjects in parallel: in a lane each they would
//!    keep a few threads busy long after the others are done.
//! 3. 32-bit lanes ([`modes`]) for the subjects whose 16-bit lanes may have saturated,
//!    or all of them when the scoring does not fit words (counted in
//!    [`ScanOutput::recomputed`]). The scalar reference took about 13 ns a cell a thread,
//!    which left a search of a long query's saturated relatives, or of a scoring past
//!    16 bits, minutes on the CPU.
//!
//! The global and glocal modes take none of these: every subject goes through the
//! 32-bit kernels of [`modes`], in one pass. The byte and word kernels' unsigned lanes
//! rely on the local recurrence's floor at 0 (it is what makes their saturating
//! arithmetic exact), which those modes do not have: their H can be negative.
//!
//! Subjects are sorted by length so that the lanes of a batch end together, and the
//! batches run longest first ([`schedule`]): the longest batch costs as much
//! as a hundred short ones, and started last it would end the scan alone.
//!
//! The instruction set is chosen at run time ([`Level`]): the best the processor has,
//! capped by the environment variable `CLSW_NATIVE_ISA` (`avx512`, `avx2`, `sse41`,
//! `portable`), so one binary serves every x86-64 and each level can be tested on one
//! machine; other processors (Arm included) run the portable code.

pub(crate) mod lanes;
mod modes;
pub(crate) mod schedule;
pub mod striped;
mod swipe;
mod vectors;

use super::ScanOutput;
use crate::error::Result;
use crate::reference::LocalScore;
use crate::scoring::{Mode, Scoring};
use lanes::LANES;
use rayon::prelude::*;
use std::sync::OnceLock;
use swipe::Tables;

crate::error::named_enum! {
    /// The native path's instruction-set levels, best first.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Level ("native instruction set", "native instruction sets") {
        /// AVX-512BW: 64 byte lanes.
        Avx512 = "avx512",
        /// AVX2: 32 byte lanes.
        Avx2 = "avx2",
        /// SSE4.1: 16 byte lanes.
        Sse41 = "sse41" | "sse4.1",
        /// Plain Rust on 16-lane arrays: any processor.
        Portable = "portable",
    }
}

/// The environment variable that caps the level.
pub const LEVEL_VARIABLE: &str = "CLSW_NATIVE_ISA";

impl Level {
    /// Whether this processor can run the level.
    pub fn supported(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw"),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Level::Sse41 => std::is_x86_feature_detected!("sse4.1"),
            Level::Portable => true,
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Subjects per batch of the byte pass (the word pass has half as many).
    pub fn lanes(self) -> usize {
        match self {
            Level::Avx512 => 64,
            Level::Avx2 => 32,
            Level::Sse41 | Level::Portable => 16,
        }
    }

    /// The best level this processor supports at or below `self`.
    pub fn capped(self) -> Level {
        Level::ALL.into_iter().skip_while(|&l| l != self).find(|l| l.supported()).unwrap_or(Level::Portable)
    }

    /// The level named by `CLSW_NATIVE_ISA`, if set.
    pub fn from_env() -> Result<Option<Level>> {
        match std::env::var(LEVEL_VARIABLE) {
            Ok(v) if !v.trim().is_empty() => {
                v.parse().map(Some).map_err(|e| crate::error::Error::InvalidArgument(format!("{LEVEL_VARIABLE}: {e}")))
            }
            _ => Ok(None),
        }
    }

    /// The level [`scores`] uses: the best supported, capped by `CLSW_NATIVE_ISA` (an
    /// unknown name there is ignored here; the CLI refuses it).
    pub fn active() -> Level {
        static ACTIVE: OnceLock<Level> = OnceLock::new();
        *ACTIVE.get_or_init(|| Level::from_env().ok().flatten().unwrap_or(Level::Avx512).capped())
    }
}

/// What a native scan reports of each subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// The score and the reference's end cell (in the local mode `None` only for a
    /// score of 0).
    Ends,
    /// The score; the end cell where a pass found it anyway (the few subjects past the
    /// byte and word lanes, and every subject in the global and glocal modes), else
    /// `None`. What a search needs of all but its hits, and psse of every shuffle: the
    /// byte and word kernels run their score-only twins.
    Scores,
}

/// Every subject's score (and end: `report`) against `query`, at [`Level::active`].
pub fn scores<S: AsRef<[u8]> + Sync>(
    query: &[u8],
    subjects: &[S],
    scoring: &Scoring,
    report: Report,
) -> Result<ScanOutput> {
    scores_at(Level::active(), report, query, subjects, scoring)
}

/// Every subject's score (and end: `report`) against `query`, at `level` (or the best
/// supported level below it).
///
/// Subject codes must be below the matrix's size, as the callers' code checks make
/// them (`Alphabet::check_codes`).
///
/// # Panics
/// When a query code is outside the matrix's alphabet (callers check codes first).
pub fn scores_at<S: AsRef<[u8]> + Sync>(
    level: Level,
    report: Report,
    query: &[u8],
    subjects: &[S],
    scoring: &Scoring,
) -> Result<ScanOutput> {
    scan_with(level, report, Passes::All, query, subjects, scoring, None).map(|(out, _)| out)
}

/// The byte pass alone ([`scores`]' first): every subject's score where its byte lane
/// holds it, and the subjects (indices into `subjects`, shortest first) whose lanes
/// could not, for [`scores_past_bytes`]; their scores here are 0. For scans in many
/// small pieces (an MPI job's dealt chunks): the few subjects past the bytes in each
/// piece would run the 16-bit pass on nearly empty batches, or each alone on the
/// striped kernel (a chunk of 250 subjects sent all 1,899 of the 20 classic queries'
/// there, against 472 of whole scans), so the pieces' together take the next passes.
pub fn scores_in_bytes<S: AsRef<[u8]> + Sync>(
    query: &[u8],
    subjects: &[S],
    scoring: &Scoring,
    report: Report,
) -> Result<(ScanOutput, Vec<usize>)> {
    scan_with(Level::active(), report, Passes::Bytes, query, subjects, scoring, None)
}

/// The passes after the bytes ([`scores`]' second and third) for every subject of
/// `subjects`: those [`scores_in_bytes`] left.
pub fn scores_past_bytes<S: AsRef<[u8]> + Sync>(
    query: &[u8],
    subjects: &[S],
    scoring: &Scoring,
    report: Report,
) -> Result<ScanOutput> {
    scan_with(Level::active(), report, Passes::PastBytes, query, subjects, scoring, None).map(|(out, _)| out)
}

/// Every subject's score and end against a non-empty `query` in a global or glocal
/// scoring, each pair on all the SIMD lanes of [`Level::active`] (striped), the longest
/// first: the long subjects a device scan leaves to the host beside a short query.
pub(crate) fn mode_pairs<S: AsRef<[u8]> + Sync>(query: &[u8], subjects: &[S], scoring: &Scoring) -> ScanOutput {
    modes::pairs(Level::active().capped(), query, subjects, scoring)
}

/// The passes a scan runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Passes {
    All,
    Bytes,
    PastBytes,
}

/// The scores and ends of subjects a scan has scored already (a search's hits, checked
/// and given their ends): `known[k]` is subject `k`'s score from that scan. The byte
/// pass only takes those whose known score its lanes hold and that are short beside
/// the rest: one byte batch holding the longest of a few subjects would keep every
/// other thread waiting. The scores are computed anew, exact whatever `known` says.
pub fn rescore<S: AsRef<[u8]> + Sync>(
    query: &[u8],
    subjects: &[S],
    known: &[i32],
    scoring: &Scoring,
) -> Result<ScanOutput> {
    assert_eq!(known.len(), subjects.len(), "a known score per subject");
    scan_with(Level::active(), Report::Ends, Passes::All, query, subjects, scoring, Some(known)).map(|(out, _)| out)
}

/// [`scores_at`], and [`rescore`] with `known`; `passes` of them (the subjects past the
/// bytes are returned after [`Passes::Bytes`]).
fn scan_with<S: AsRef<[u8]> + Sync>(
    level: Level,
    report: Report,
    passes: Passes,
    query: &[u8],
    subjects: &[S],
    scoring: &Scoring,
    known: Option<&[i32]>,
) -> Result<(ScanOutput, Vec<usize>)> {
    let level = level.capped();
    let letters = scoring.matrix.size();
    assert!(query.iter().all(|&c| (c as usize) < letters), "query code outside the matrix's alphabet");
    scoring.check_query(query, "the query")?;
    if scoring.mode != Mode::Local {
        // One 32-bit pass, exact for every subject, ends included: nothing is left
        // past the bytes, and `known` has nothing to skip.
        return Ok((modes::scan(level, query, subjects, scoring), Vec::new()));
    }
    // By length on every core (one thread's stable sort took 0.25 s a query for 2.2 M
    // subjects).
    let order: Vec<usize> = crate::seq::db::by_length(subjects.len(), |k| subjects[k].as_ref().len())
        .into_par_iter()
        .map(|k| k as usize)
        .collect();
    let len = |k: usize| subjects[k].as_ref().len() as u64;
    let mut out = ScanOutput::empty(subjects.len());
    let tables = Tables::new(query, scoring);
    // 1. Bytes. Sorted by length, a batch's last subject is its longest.
    let pending: Vec<usize> = match &tables {
        Some(t) if t.fits(Width::Bytes.top()) && passes != Passes::PastBytes => {
            // A rescore's few subjects leave most threads idle behind one batch of the
            // longest: those longer than a thread's share of lane-steps skip the bytes
            // for the striped kernel, as the words' `alone` below.
            let total = order.iter().map(|&k| len(k)).sum::<u64>();
            let alone = total / (2 * level.lanes() * rayon::current_num_threads()) as u64;
            let past_bytes = |k: usize| known.is_some_and(|known| known[k] >= Width::Bytes.top() || len(k) > alone);
            let (bytes, mut saturated): (Vec<usize>, Vec<usize>) = order.into_iter().partition(|&k| !past_bytes(k));
            let batches: Vec<&[usize]> = bytes.chunks(level.lanes()).collect();
            let found = schedule::longest_first(
                &batches,
                |b| b.last().map_or(0, |&k| len(k)),
                |batch| {
                    let residues: Vec<&[u8]> = batch.iter().map(|&k| subjects[k].as_ref()).collect();
                    // SAFETY: `level` was capped above, and Level::capped gives a supported
                    // level; query codes are below the matrix's size (asserted above).
                    unsafe { pass(level, report, Width::Bytes, query, &residues, t) }
                },
            );
            let found = found.into_iter().collect::<Result<Vec<_>>>()?;
            for (&k, r) in batches.iter().flat_map(|b| b.iter()).zip(found.into_iter().flatten()) {
                match r {
                    Some(r) => out.scores[k] = r,
                    None => saturated.push(k),
                }
            }
            saturated.sort_by_key(|&k| len(k));
            saturated
        }
        _ => order,
    };
    if passes == Passes::Bytes {
        return Ok((out, pending));
    }
    // 2. Words: the subjects longer than `alone` each on all lanes of the striped
    // kernel, the others in batches, all of them longest first. Without words (a
    // scoring past 16 bits) every pending subject goes to the 32 bits below.
    let word_lanes = level.lanes() / Width::Words.bytes();
    let alone = pending.iter().map(|&k| len(k)).sum::<u64>() / (2 * word_lanes * rayon::current_num_threads()) as u64;
    let (mut wide, tasks): (Vec<usize>, Vec<Words<'_>>) = match tables.as_ref().filter(|t| t.fits(Width::Words.top())) {
        Some(_) => {
            let split = pending.partition_point(|&k| len(k) <= alone);
            let tasks = pending[..split]
                .chunks(word_lanes)
                .map(Words::Batch)
                .chain(pending[split..].iter().map(|&k| Words::Alone(k)));
            (Vec::new(), tasks.collect())
        }
        None => (pending, Vec::new()),
    };
    // In column steps of one vector: a batch takes one per row and column of its
    // longest subject, a subject alone one per 16 rows (the striped kernel's lanes).
    let cost = |task: &Words<'_>| match task {
        Words::Batch(b) => b.last().map_or(0, |&k| len(k)) * LANES as u64,
        Words::Alone(k) => len(*k),
    };
    // The striped profile, built once for every subject alone.
    let profile = match tasks.iter().any(|t| matches!(t, Words::Alone(_))) {
        true => Some(striped::Profile::new(query, scoring)?),
        false => None,
    };
    let found = schedule::longest_first(&tasks, cost, |task| match *task {
        Words::Batch(batch) => {
            let residues: Vec<&[u8]> = batch.iter().map(|&k| subjects[k].as_ref()).collect();
            let t = tables.as_ref().expect("batches only when words fit");
            // SAFETY: `level` was capped above, and Level::capped gives a supported level;
            // query codes are below the matrix's size (asserted above).
            let found = unsafe { pass(level, report, Width::Words, query, &residues, t) }?;
            Ok(batch.iter().copied().zip(found).collect::<Vec<_>>())
        }
        Words::Alone(k) => {
            let profile = profile.as_ref().expect("built when a subject is alone");
            Ok(vec![(k, striped::score(profile, subjects[k].as_ref(), scoring)?)])
        }
    });
    for found in found {
        for (k, r) in found? {
            match r {
                Some(r) => out.scores[k] = r,
                None => wide.push(k),
            }
        }
    }
    // 3. 32 bits where 16 may have saturated ([`modes`]: batches, or one pair on all
    // the lanes when they are few).
    if !wide.is_empty() {
        let residues: Vec<&[u8]> = wide.iter().map(|&k| subjects[k].as_ref()).collect();
        let found = modes::scan(level, query, &residues, scoring);
        for (&k, r) in wide.iter().zip(found.scores) {
            out.scores[k] = r;
        }
        out.recomputed += wide.len();
    }
    Ok((out, Vec::new()))
}

/// A task of the 16-bit pass.
enum Words<'a> {
    /// Subjects on the lanes of the inter-sequence kernel.
    Batch(&'a [usize]),
    /// One subject on all lanes of the striped kernel.
    Alone(usize),
}

/// The lanes of a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Width {
    Bytes,
    Words,
}

impl Width {
    fn bytes(self) -> usize {
        match self {
            Width::Bytes => 1,
            Width::Words => 2,
        }
    }

    /// The lanes' ceiling.
    fn top(self) -> i32 {
        match self {
            Width::Bytes => i8::MAX as i32,
            Width::Words => i16::MAX as i32,
        }
    }
}

/// One batch through the kernel at `level` (a supported level) and `width`.
///
/// # Safety
/// `level` is supported by this processor ([`Level::supported`]); every code of
/// `query` is below the size of `t`'s matrix.
unsafe fn pass(
    level: Level,
    report: Report,
    width: Width,
    query: &[u8],
    batch: &[&[u8]],
    t: &Tables,
) -> Result<Vec<Option<LocalScore>>> {
    match report {
        // SAFETY: this function's contract is pass_of's.
        Report::Ends => unsafe { pass_of::<true>(level, width, query, batch, t) },
        // SAFETY: as above.
        Report::Scores => unsafe { pass_of::<false>(level, width, query, batch, t) },
    }
}

/// [`pass`] for one `ENDS`.
///
/// # Safety
/// As for [`pass`].
unsafe fn pass_of<const ENDS: bool>(
    level: Level,
    width: Width,
    query: &[u8],
    batch: &[&[u8]],
    t: &Tables,
) -> Result<Vec<Option<LocalScore>>> {
    debug_assert!(level.supported());
    use vectors::*;
    // Each arm: `level` is supported (this function's contract), so the processor has
    // AVX-512F and AVX-512BW, AVX2 or SSE4.1 as the arm's level says; the portable
    // vectors run anywhere. Query codes are below the matrix's size (the contract).
    match (level, width) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Level::Avx512 is supported: AVX-512F and AVX-512BW were detected.
        (Level::Avx512, Width::Bytes) => unsafe { x86::avx512::<Avx512Bytes, ENDS>(query, batch, t) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        (Level::Avx512, Width::Words) => unsafe { x86::avx512::<Avx512Words, ENDS>(query, batch, t) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Level::Avx2 is supported: AVX2 was detected.
        (Level::Avx2, Width::Bytes) => unsafe { x86::avx2::<Avx2Bytes, ENDS>(query, batch, t) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        (Level::Avx2, Width::Words) => unsafe { x86::avx2::<Avx2Words, ENDS>(query, batch, t) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Level::Sse41 is supported: SSE4.1 was detected.
        (Level::Sse41, Width::Bytes) => unsafe { x86::sse41::<Sse41Bytes, ENDS>(query, batch, t) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        (Level::Sse41, Width::Words) => unsafe { x86::sse41::<Sse41Words, ENDS>(query, batch, t) },
        // SAFETY: the portable vectors need no instruction set; query codes as above.
        (_, Width::Bytes) => unsafe { swipe::align_batch::<PortableBytes, ENDS>(query, batch, t) },
        // SAFETY: as above.
        (_, Width::Words) => unsafe { swipe::align_batch::<PortableWords, ENDS>(query, batch, t) },
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The kernel compiled once per level, so the vectors' intrinsics inline.
    use super::swipe::{Tables, align_batch};
    use super::vectors::Cells;
    use crate::error::Result;
    use crate::reference::LocalScore;

    /// [`align_batch`] compiled for AVX-512F and AVX-512BW.
    ///
    /// # Safety
    /// The processor has AVX-512F and AVX-512BW, `V`'s level; as for [`align_batch`].
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn avx512<V: Cells, const ENDS: bool>(
        query: &[u8],
        batch: &[&[u8]],
        t: &Tables,
    ) -> Result<Vec<Option<LocalScore>>> {
        // SAFETY: this function's contract is align_batch's.
        unsafe { align_batch::<V, ENDS>(query, batch, t) }
    }

    /// [`align_batch`] compiled for AVX2.
    ///
    /// # Safety
    /// The processor has AVX2, `V`'s level; as for [`align_batch`].
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn avx2<V: Cells, const ENDS: bool>(
        query: &[u8],
        batch: &[&[u8]],
        t: &Tables,
    ) -> Result<Vec<Option<LocalScore>>> {
        // SAFETY: this function's contract is align_batch's.
        unsafe { align_batch::<V, ENDS>(query, batch, t) }
    }

    /// [`align_batch`] compiled for SSE4.1.
    ///
    /// # Safety
    /// The processor has SSE4.1, `V`'s level; as for [`align_batch`].
    #[target_feature(enable = "sse4.1")]
    pub(super) unsafe fn sse41<V: Cells, const ENDS: bool>(
        query: &[u8],
        batch: &[&[u8]],
        t: &Tables,
    ) -> Result<Vec<Option<LocalScore>>> {
        // SAFETY: this function's contract is align_batch's.
        unsafe { align_batch::<V, ENDS>(query, batch, t) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;
    use crate::reference::testing::{blosum62 as blosum, generator};
    use crate::scoring::{Gaps, Matrix};
    use crate::seq::Alphabet;

    /// Every supported level on one thread and on sixteen, the scorings that exercise
    /// each pass; with ends (returned) and score-only (the same scores, and no end that
    /// is not the reference's).
    fn check(query: &[u8], subjects: &[Vec<u8>], sc: &Scoring, what: &str) -> Vec<ScanOutput> {
        let want: Vec<LocalScore> = subjects.iter().map(|s| reference::score(query, s, sc)).collect();
        let supported: Vec<Level> = Level::ALL.into_iter().filter(|l| l.supported()).collect();
        assert!(supported.contains(&Level::Portable));
        supported
            .into_iter()
            .flat_map(|level| {
                // One thread takes the word pass; sixteen send its few subjects to
                // the striped kernel.
                [1, 16].map(|threads| {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    let scan = |report| pool.install(|| scores_at(level, report, query, subjects, sc)).unwrap();
                    let (out, only) = (scan(Report::Ends), scan(Report::Scores));
                    for (k, (got, want)) in out.scores.iter().zip(&want).enumerate() {
                        assert_eq!(got, want, "{what}, level {level}, {threads} threads, subject {k}");
                        let score_only = only.scores[k];
                        assert_eq!(score_only.score, want.score, "{what}, level {level}, score only, subject {k}");
                        assert!(score_only.end.is_none_or(|e| Some(e) == want.end), "{what}, {level}, subject {k}");
                    }
                    assert_eq!(out.recomputed, only.recomputed);
                    // Known scores send the subjects past the byte lanes straight on.
                    let known: Vec<i32> = want.iter().map(|w| w.score).collect();
                    let (again, _) = pool
                        .install(|| scan_with(level, Report::Ends, Passes::All, query, subjects, sc, Some(&known)))
                        .unwrap();
                    assert_eq!(again.scores, want, "{what}, level {level}, {threads} threads, known scores");
                    // The byte pass, then the rest on the subjects it left: the same.
                    let split = pool.install(|| {
                        let (mut bytes, past) =
                            scan_with(level, Report::Ends, Passes::Bytes, query, subjects, sc, None).unwrap();
                        let left: Vec<&Vec<u8>> = past.iter().map(|&k| &subjects[k]).collect();
                        let (wide, _) =
                            scan_with(level, Report::Ends, Passes::PastBytes, query, &left, sc, None).unwrap();
                        for (&k, r) in past.iter().zip(wide.scores) {
                            bytes.scores[k] = r;
                        }
                        (bytes.recomputed + wide.recomputed, bytes.scores)
                    });
                    assert_eq!(split, (out.recomputed, want.clone()), "{what}, level {level}, bytes then the rest");
                    out
                })
            })
            .collect()
    }

    #[test]
    fn every_level_equals_the_reference_with_ragged_batches_and_saturation() {
        let mut rng = generator(12345);
        let sc = blosum(11, 1);
        let query: Vec<u8> = (0..150).map(|_| rng(20) as u8).collect();
        let mut subjects: Vec<Vec<u8>> =
            (0..150).map(|k| (0..1 + rng(200) + k % 7).map(|_| rng(24) as u8).collect()).collect();
        subjects.push(Vec::new());
        subjects.push(query.clone()); // past 8 bits
        subjects.push(query[40..90].to_vec());
        // A W-rich pair past 16 bits: W/W scores 11, 3,100 of them pass 32,767.
        let w = vec![17u8; 3_100];
        subjects.push(w.clone());
        for out in check(&query, &subjects, &sc, "BLOSUM62 11/1") {
            assert_eq!(out.recomputed, 0);
        }
        let long = check(&w, &subjects, &sc, "W query");
        assert!(long.iter().all(|o| o.recomputed >= 1));
        // Gap costs past 8 bits (16-bit pass for all) and past 16 bits (32-bit for all).
        check(&query, &subjects, &blosum(300, 2), "gaps 300/2");
        for out in check(&query, &subjects, &blosum(40_000, 1), "gaps 40000/1") {
            assert_eq!(out.recomputed, subjects.len());
        }
    }

    #[test]
    fn every_level_equals_the_reference_on_dna_and_extreme_matrices() {
        let mut rng = generator(777);
        let query: Vec<u8> = (0..300).map(|_| rng(5) as u8).collect();
        let mut subjects: Vec<Vec<u8>> = (0..90).map(|_| (0..1 + rng(400)).map(|_| rng(5) as u8).collect()).collect();
        subjects.push(query[20..260].to_vec());
        for (hit, miss, open, extend) in [(5, -4, 10, 1), (1, -3, 5, 2), (100, -120, 0, 1), (2, -1, 0, 1)] {
            let m = Matrix::match_mismatch(Alphabet::Dna, hit, miss).unwrap();
            let sc = Scoring::new(m, Gaps::affine(open, extend).unwrap());
            check(&query, &subjects, &sc, &format!("DNA {hit}/{miss} {open}/{extend}"));
        }
    }

    #[test]
    fn queries_longer_than_a_block_of_rows_give_the_references_scores_and_ends() {
        use super::swipe::BLOCK_ROWS;
        let (sc, code) = (blosum(11, 1), |c: u8| Alphabet::Protein.encode_all(&[c]).unwrap()[0]);
        let (d, g, w, c) = (code(b'D'), code(b'G'), code(b'W'), code(b'C'));
        // Nine W (99) and eleven C (99) score the same. The query has the W run in its
        // first block and the C run in its second; the subject has the C run left of the
        // W run: the best is found first at the W run's column, and the second block's
        // tie in a column further left is the end (first column, then first row).
        let mut query = vec![d; 2 * BLOCK_ROWS + 300];
        query[100..109].fill(w);
        query[BLOCK_ROWS + 200..BLOCK_ROWS + 211].fill(c);
        let mut tie = vec![g; 90];
        tie[10..21].fill(c);
        tie[50..59].fill(w);
        // A match crossing the block boundary, at 8 and at 16 bits.
        let mut rng = generator(99);
        let query2: Vec<u8> = (0..BLOCK_ROWS + 700).map(|_| rng(20) as u8).collect();
        let across = query2[BLOCK_ROWS - 150..BLOCK_ROWS + 120].to_vec();
        let mut subjects: Vec<Vec<u8>> = (0..40).map(|_| (0..1 + rng(300)).map(|_| rng(24) as u8).collect()).collect();
        subjects.extend([tie.clone(), across, query2[BLOCK_ROWS - 3000..BLOCK_ROWS + 600].to_vec()]);
        let tie_end = reference::score(&query, &tie, &sc).end;
        assert_eq!(tie_end, Some((BLOCK_ROWS + 210, 20)), "the reference's end of the tie");
        check(&query, &subjects, &sc, "two blocks, tie across blocks");
        for out in check(&query2, &subjects, &sc, "a match across the block boundary") {
            assert!(out.recomputed == 0);
        }
    }

    #[test]
    fn levels_are_named_and_capped() {
        assert_eq!("AVX2".parse::<Level>().unwrap(), Level::Avx2);
        assert!("avx3".parse::<Level>().unwrap_err().to_string().contains("avx512, avx2, sse41, portable"));
        assert_eq!(Level::Portable.capped(), Level::Portable);
        assert!(Level::Avx512.capped().supported());
        assert!(Level::active().supported());
    }
}

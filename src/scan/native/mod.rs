//! Native CPU scan, for machines without any OpenCL device: every subject's exact score
//! and end cell, on all of rayon's threads (the CLI's `--threads`), in three passes,
//! each exact where it answers:
//!
//! 1. [`lanes8`]: one subject per unsigned 8-bit lane, 64, 32 or 16 to a vector
//!    (SWIPE-style inter-sequence SIMD); nearly every subject of a real database ends
//!    here.
//! 2. [`lanes16`]: the subjects whose byte lane may have saturated (or all of them when
//!    the scoring does not fit bytes), sixteen at a time in 16-bit lanes.
//! 3. The 32-bit reference for the subjects whose 16-bit lane may have saturated
//!    (counted in [`ScanOutput::recomputed`]).
//!
//! Subjects are sorted by length so that the lanes of a batch end together.
//!
//! The instruction set is chosen at run time ([`Level`]): the best the processor has,
//! capped by the environment variable `CLSW_NATIVE_ISA` (`avx512`, `avx2`, `ssse3`,
//! `portable`), so one binary serves every x86-64 and each level can be tested on one
//! machine; other processors (Arm included) run the portable code.

mod lanes16;
mod lanes8;
mod vectors;

use super::ScanOutput;
use crate::error::Result;
use crate::reference::{self, LocalScore};
use crate::scoring::Scoring;
use lanes8::Scoring8;
use rayon::prelude::*;
use std::sync::OnceLock;

crate::error::named_enum! {
    /// The native path's instruction-set levels, best first.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Level ("native instruction set", "native instruction sets") {
        /// AVX-512BW: 64 byte lanes.
        Avx512 = "avx512",
        /// AVX2: 32 byte lanes.
        Avx2 = "avx2",
        /// SSSE3: 16 byte lanes.
        Ssse3 = "ssse3",
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
            Level::Avx512 => std::is_x86_feature_detected!("avx512bw"),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Level::Ssse3 => std::is_x86_feature_detected!("ssse3"),
            Level::Portable => true,
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Subjects per 8-bit pass batch.
    pub fn lanes(self) -> usize {
        match self {
            Level::Avx512 => 64,
            Level::Avx2 => 32,
            Level::Ssse3 | Level::Portable => 16,
        }
    }

    /// The best level this processor supports at or below `self`.
    pub fn capped(self) -> Level {
        Level::ALL.into_iter().skip_while(|&l| l != self).find(|l| l.supported()).unwrap_or(Level::Portable)
    }

    /// The level named by `CLSW_NATIVE_ISA`, if set.
    pub fn from_env() -> Result<Option<Level>> {
        match std::env::var(LEVEL_VARIABLE) {
            Ok(v) if !v.trim().is_empty() => Ok(Some(v.parse()?)),
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

/// Every subject's score and end against `query`, at [`Level::active`].
pub fn scores<S: AsRef<[u8]> + Sync>(query: &[u8], subjects: &[S], scoring: &Scoring) -> ScanOutput {
    scores_at(Level::active(), query, subjects, scoring)
}

/// Every subject's score and end against `query`, at `level` (or the best supported
/// level below it).
///
/// # Panics
/// When a query code is outside the matrix's alphabet (callers check codes first).
pub fn scores_at<S: AsRef<[u8]> + Sync>(level: Level, query: &[u8], subjects: &[S], scoring: &Scoring) -> ScanOutput {
    let level = level.capped();
    let letters = scoring.matrix.size();
    assert!(query.iter().all(|&c| (c as usize) < letters), "query code outside the matrix's alphabet");
    let mut order: Vec<usize> = (0..subjects.len()).collect();
    order.sort_by_key(|&k| subjects[k].as_ref().len());
    let mut out = ScanOutput::empty(subjects.len());
    let mut narrow: Vec<Option<LocalScore>> = vec![None; subjects.len()];
    if let Some(s8) = Scoring8::new(scoring) {
        let found: Vec<(usize, Option<LocalScore>)> = order
            .par_chunks(level.lanes())
            .flat_map_iter(|chunk| {
                let batch: Vec<&[u8]> = chunk.iter().map(|&k| subjects[k].as_ref()).collect();
                chunk.iter().copied().zip(pass8(level, query, &batch, &s8)).collect::<Vec<_>>()
            })
            .collect();
        for (k, r) in found {
            narrow[k] = r;
        }
    }
    let wide: Vec<usize> = order.into_iter().filter(|&k| narrow[k].is_none()).collect();
    let rescanned: Vec<(usize, LocalScore, bool)> = wide
        .par_chunks(crate::scan::lanes::LANES)
        .flat_map_iter(|chunk| {
            let batch: Vec<&[u8]> = chunk.iter().map(|&k| subjects[k].as_ref()).collect();
            let results = lanes16::align_batch(level, query, &batch, scoring);
            chunk
                .iter()
                .zip(results)
                .map(|(&k, (r, capped))| {
                    if capped {
                        (k, reference::sw_score(query, subjects[k].as_ref(), scoring), true)
                    } else {
                        (k, r, false)
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect();
    for (k, r) in narrow.into_iter().enumerate() {
        if let Some(r) = r {
            out.scores[k] = r;
        }
    }
    for (k, r, recomputed) in rescanned {
        out.scores[k] = r;
        out.recomputed += recomputed as usize;
    }
    out
}

/// The 8-bit pass over one batch at `level` (a supported level).
fn pass8(level: Level, query: &[u8], batch: &[&[u8]], s8: &Scoring8) -> Vec<Option<LocalScore>> {
    debug_assert!(level.supported());
    match level {
        // SAFETY (each arm): `level` is supported (callers cap it).
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { x86::pass8_avx512(query, batch, s8) },
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { x86::pass8_avx2(query, batch, s8) },
        #[cfg(target_arch = "x86_64")]
        Level::Ssse3 => unsafe { x86::pass8_ssse3(query, batch, s8) },
        // SAFETY: the portable vectors run anywhere.
        _ => unsafe { lanes8::align_batch::<vectors::Portable>(query, batch, s8) },
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The 8-bit pass compiled once per level, so the vectors' intrinsics inline.
    use super::lanes8::{Scoring8, align_batch};
    use super::vectors::{Avx2, Avx512, Ssse3};
    use crate::reference::LocalScore;

    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn pass8_avx512(query: &[u8], batch: &[&[u8]], s8: &Scoring8) -> Vec<Option<LocalScore>> {
        unsafe { align_batch::<Avx512>(query, batch, s8) }
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn pass8_avx2(query: &[u8], batch: &[&[u8]], s8: &Scoring8) -> Vec<Option<LocalScore>> {
        unsafe { align_batch::<Avx2>(query, batch, s8) }
    }

    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn pass8_ssse3(query: &[u8], batch: &[&[u8]], s8: &Scoring8) -> Vec<Option<LocalScore>> {
        unsafe { align_batch::<Ssse3>(query, batch, s8) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testing::{blosum62 as blosum, generator};
    use crate::scoring::{Gaps, Matrix};
    use crate::seq::Alphabet;

    /// Every supported level, the scorings that exercise each pass.
    fn check(query: &[u8], subjects: &[Vec<u8>], sc: &Scoring, what: &str) -> Vec<ScanOutput> {
        let want: Vec<LocalScore> = subjects.iter().map(|s| reference::sw_score(query, s, sc)).collect();
        let supported: Vec<Level> = Level::ALL.into_iter().filter(|l| l.supported()).collect();
        assert!(supported.contains(&Level::Portable));
        supported
            .into_iter()
            .map(|level| {
                let out = scores_at(level, query, subjects, sc);
                for (k, (got, want)) in out.scores.iter().zip(&want).enumerate() {
                    assert_eq!(got, want, "{what}, level {level}, subject {k}");
                }
                out
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
    fn levels_are_named_and_capped() {
        assert_eq!("AVX2".parse::<Level>().unwrap(), Level::Avx2);
        assert!("avx3".parse::<Level>().unwrap_err().to_string().contains("avx512, avx2, ssse3, portable"));
        assert_eq!(Level::Portable.capped(), Level::Portable);
        assert!(Level::Avx512.capped().supported());
        assert!(Level::active().supported());
    }
}

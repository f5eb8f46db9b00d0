//! psse over the ranks of an MPI job: the pairs dealt out by cells, weighed by the
//! ranks' speeds, the results gathered on rank 0 in input order.

use super::share::{speeds, weights};
use super::wire::{self, Reader};
use super::{Comm, checksum_of, gather_to_root, same_on_every_rank};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::psse::{PairBlock, PsseOptions, PsseResult, PsseRun, PsseStats, psse_block, share_pairs};
use std::time::Instant;

/// This rank's speed at psse, in GCUPS: the first query against the first subject with
/// at most 200 shuffles, timed after one run that compiles and warms up.
pub fn psse_speed(engine: &Engine, queries: &[&[u8]], subjects: &[&[u8]], opts: &PsseOptions) -> Result<f64> {
    let (Some(q), Some(s)) = (queries.first(), subjects.first()) else { return Ok(1.0) };
    let probe = PsseOptions { shuffles: opts.shuffles.min(200), keep_scores: false, ..opts.clone() };
    let one = PairBlock { queries: 0..1, subjects: 0..1 };
    // A failed fit (a subject too short to shuffle) still times the alignments.
    psse_block(engine, &[q], &[s], &one, &probe)?;
    let t = Instant::now();
    psse_block(engine, &[q], &[s], &one, &probe)?;
    let cells = (q.len() * s.len() * (probe.shuffles + 1)) as f64;
    Ok(cells / t.elapsed().as_secs_f64().max(1e-9) / 1e9)
}

/// Every pair of `queries` x `subjects` (every rank gives the same) on the ranks of
/// `comm`, `speed` this rank's ([`psse_speed`]): on rank 0 the run [`crate::psse::psse_run`]
/// gives (pairs in input order, costs summed over the ranks), `None` on the others.
/// Collective; an error on any rank ends the run on every rank.
pub fn psse_run(
    comm: &dyn Comm,
    engine: &Engine,
    queries: &[&[u8]],
    subjects: &[&[u8]],
    opts: &PsseOptions,
    speed: Result<f64>,
) -> Result<Option<PsseRun>> {
    let mut inputs = Vec::new();
    wire::put_u64(&mut inputs, queries.len() as u64);
    wire::put_u64(&mut inputs, subjects.len() as u64);
    wire::put_u64(&mut inputs, checksum_of(queries.iter().chain(subjects).copied()));
    same_on_every_rank(comm, inputs, |_, _| "its queries or subjects differ from rank 0's".into())?;
    let weights = weights(&speeds(comm, speed)?);
    let whole = PairBlock { queries: 0..queries.len(), subjects: 0..subjects.len() };
    let block = share_pairs(queries, subjects, &whole, &weights).swap_remove(comm.rank());
    let mine = psse_block(engine, queries, subjects, &block, opts).map(|run| {
        let mut out = Vec::new();
        let s = &run.stats;
        for v in [s.shuffle_seconds, s.align_seconds] {
            wire::put_f64(&mut out, v);
        }
        for v in [s.alignments, s.cells, s.tiles as u64, s.recomputed as u64] {
            wire::put_u64(&mut out, v);
        }
        wire::put_u64(&mut out, block.queries.start as u64);
        wire::put_u64(&mut out, block.queries.end as u64);
        wire::put_u64(&mut out, block.subjects.start as u64);
        wire::put_u64(&mut out, block.subjects.end as u64);
        for pair in &run.pairs {
            match pair {
                Ok(r) => {
                    out.push(0);
                    put_result(&mut out, r);
                }
                Err(e) => {
                    out.push(1);
                    wire::put_error(&mut out, e);
                }
            }
        }
        out
    });
    let gathered = gather_to_root(comm, mine)?;
    if comm.rank() != 0 {
        return Ok(None);
    }
    let mut pairs: Vec<Option<Result<PsseResult>>> = (0..whole.len()).map(|_| None).collect();
    let mut stats = PsseStats::default();
    for bytes in gathered {
        let mut r = Reader::new(&bytes);
        let theirs = PsseStats {
            shuffle_seconds: r.f64()?,
            align_seconds: r.f64()?,
            alignments: r.u64()?,
            cells: r.u64()?,
            tiles: r.usize()?,
            recomputed: r.usize()?,
        };
        stats.add(&theirs);
        let (q0, q1, s0, s1) = (r.usize()?, r.usize()?, r.usize()?, r.usize()?);
        for q in q0..q1 {
            for s in s0..s1 {
                let slot = pairs.get_mut(q * subjects.len() + s).ok_or_else(|| {
                    Error::Internal(format!(
                        "a rank returned pair ({q}, {s}) of {} x {}",
                        queries.len(),
                        subjects.len()
                    ))
                })?;
                *slot = Some(match r.u8()? {
                    0 => Ok(result(&mut r)?),
                    _ => Err(wire::error(&mut r)?),
                });
            }
        }
    }
    let pairs = pairs
        .into_iter()
        .map(|p| p.unwrap_or_else(|| Err(Error::Internal("a pair was left to no rank".into()))))
        .collect();
    Ok(Some(PsseRun { pairs, stats }))
}

fn put_result(out: &mut Vec<u8>, r: &PsseResult) {
    for v in [r.query, r.subject, r.query_len, r.subject_len, r.shuffles, r.censored, r.recomputed] {
        wire::put_u64(out, v as u64);
    }
    wire::put_i32(out, r.score);
    for v in [r.mu, r.lambda, r.k, r.p_value, r.e_value] {
        wire::put_f64(out, v);
    }
    out.push(r.cutoff.is_some() as u8);
    wire::put_f64(out, r.cutoff.unwrap_or(0.0));
    wire::put_u64(out, r.shuffle_scores.len() as u64);
    r.shuffle_scores.iter().for_each(|&v| wire::put_i32(out, v));
}

fn result(r: &mut Reader<'_>) -> Result<PsseResult> {
    let (query, subject, query_len, subject_len) = (r.usize()?, r.usize()?, r.usize()?, r.usize()?);
    let (shuffles, censored, recomputed) = (r.usize()?, r.usize()?, r.usize()?);
    let score = r.i32()?;
    let (mu, lambda, k, p_value, e_value) = (r.f64()?, r.f64()?, r.f64()?, r.f64()?, r.f64()?);
    let has_cutoff = r.u8()? != 0;
    let cutoff = Some(r.f64()?).filter(|_| has_cutoff);
    let n = r.usize()?;
    let shuffle_scores = (0..n).map(|_| r.i32()).collect::<Result<Vec<i32>>>()?;
    Ok(PsseResult {
        query,
        subject,
        query_len,
        subject_len,
        score,
        mu,
        lambda,
        k,
        p_value,
        e_value,
        shuffles,
        censored,
        cutoff,
        recomputed,
        shuffle_scores,
    })
}

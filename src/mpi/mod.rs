//! Across nodes: a search, psse and distances shared among the ranks of an MPI job,
//! with the output of one process.
//!
//! `mpirun -n N clsw scan ...` (clsw built with the cargo feature `mpi`) or a C host's
//! own communicator (`clsw_searcher_new_mpi`) gives every rank the same inputs; each
//! rank computes its share on its own devices and rank 0 writes what one process would
//! have written, byte for byte.
//!
//! # Scan ([`RankSearcher`])
//!
//! * **Shares by cells, weighed by speed** ([`share`]). Every rank opens the whole
//!   database (a prepared database is mapped, so a rank reads only the pages it
//!   touches) and times its own devices on a probe ([`calibrate`]). The database is cut
//!   into one contiguous share per rank, residues in proportion to the ranks' speeds,
//!   so a GPU rank takes many times the share of a CPU rank and all finish together.
//!   Each rank lays out its share ([`crate::seq::Database::part`]) on its devices once.
//! * **Dealt by chunks, when every rank is native** ([`deal`]). The native CPU path
//!   lays nothing out, and CPU ranks that share hosts change speed from query to
//!   query: the whole database is cut into chunks, longest subjects first, and each
//!   rank's threads draw the next chunk from a counter the ranks share
//!   ([`Comm::counter`], an MPI window) whenever they are free.
//! * **Per query, four exchanges** (kilobytes; at 256 ranks the sample and the hits are a
//!   few hundred):
//!   1. the scores the E-value fit samples (at most [`crate::search::FIT_SAMPLE`],
//!      every k-th subject in database order), gathered on rank 0, which fits the
//!      statistics one process would have fitted;
//!   2. those statistics, to every rank;
//!   3. each rank's best hits under them (at most `max_hits`, without alignments):
//!      merged in the order hits are reported, the same global list on every rank;
//!   4. the alignments of that list, each made by the rank that holds the subject (for
//!      a dealt database, the rank that scanned it), which also checks its device's
//!      score on the CPU, sent to rank 0.
//!
//!   A rank's devices scan the next queries while these run, and several queries are
//!   in flight between their exchanges: while query i's sample is gathered, rank 0
//!   fits i - 1's statistics and every rank checks and aligns the hits of the few
//!   queries before. A rank waits for the others asleep, not spinning in MPI (`World`).
//! * **Errors** ([`agree`]): every exchange carries each rank's outcome. A rank that
//!   fails (a missing or damaged database, a device error) joins the next exchange
//!   with its error instead of its data, and every rank returns: the failing rank its
//!   own error, the others [`Error::Rank`] with its rank and message. No rank waits
//!   for one that stopped. A rank that dies outright is MPI's to end (mpirun ends the
//!   job).
//!
//! # psse ([`psse_run`])
//!
//! The pairs are dealt out by cells as one process deals them to its devices (blocks of
//! queries, or of subjects when there are fewer queries than ranks), weighed by the
//! ranks' speeds; the shuffles are keyed by the pair's own indices, so each pair's
//! result is the one a single process computes. Rank 0 gathers them in input order.
//!
//! # Distances ([`distance_run`])
//!
//! Every count of a distance matrix is a sum over sites: the ranks count every pair over
//! their own block of the sites and rank 0 adds the blocks' matrices.
//!
//! # Communicators ([`Comm`])
//!
//! The protocol is written against [`Comm`], two collectives on bytes and a shared
//! counter. [`World`]
//! (feature `mpi`) is MPI's; [`threads::run_ranks`] runs ranks as threads of one
//! process, which is how the protocol is tested without an MPI library.

mod deal;
mod distance;
mod psse;
mod search;
mod share;
pub mod threads;
mod wire;
#[cfg(feature = "mpi")]
mod world;

pub use distance::distance_run;
pub use psse::{psse_run, psse_speed};
pub use search::RankSearcher;
pub use share::{Share, calibrate, share};
#[cfg(feature = "mpi")]
pub use world::World;

use crate::error::{Error, Result};
use wire::Reader;

/// The ranks of a job and the two collectives the protocol needs. Every rank must
/// call each collective, in the same order as every other rank, from one thread at a
/// time.
pub trait Comm: Send + Sync {
    /// This process's rank, `0..size`.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Every rank's `bytes`, in rank order, on every rank.
    fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>>;
    /// Every rank's `bytes`, in rank order, on rank 0; nothing on the others.
    fn gather(&self, bytes: &[u8]) -> Vec<Vec<u8>>;
    /// A new counter shared by the ranks, at 0. Collective, like the exchanges; the
    /// counter's draws may then come from any thread, beside the exchanges, where
    /// [`Self::threads_may_draw`].
    fn counter(&self) -> Box<dyn Counter + '_>;
    /// Whether threads other than the one that exchanges may draw from a counter: MPI
    /// started with `MPI_THREAD_SERIALIZED` or more.
    fn threads_may_draw(&self) -> bool;
}

/// A number the ranks draw from together: each draw, on any rank, returns the next
/// (0, 1, 2, ...), so that every number is drawn once. What deals the database's chunks
/// to the ranks as each becomes free ([`deal`]).
pub trait Counter: Send + Sync {
    fn next(&self) -> u64;
    /// The number the next draw will return (or a later one, once others drew).
    fn peek(&self) -> u64;
}

/// `e` as the other ranks see it: [`Error::Rank`] with this rank's number and the
/// error's message, or, for a failure this rank learnt from another, that one's.
pub(crate) fn as_rank_error(comm: &dyn Comm, e: &Error) -> Error {
    match e {
        Error::Rank { rank, message } => Error::Rank { rank: *rank, message: message.clone() },
        e => Error::Rank { rank: comm.rank(), message: e.to_string() },
    }
}

/// The most bytes one rank sends in one exchange: every rank's together stay within the
/// 2 GiB that MPI's 32-bit counts can address.
fn most_bytes(comm: &dyn Comm) -> usize {
    (i32::MAX as usize - 64) / comm.size().max(1)
}

/// Each rank's outcome, encoded: a status byte, then the payload or the failing rank
/// and its message. A payload too large to exchange is this rank's error.
fn encode_outcome(comm: &dyn Comm, local: &Result<Vec<u8>>) -> Vec<u8> {
    let too_large;
    let local = match local {
        Ok(bytes) if bytes.len() > most_bytes(comm) => {
            too_large = Err(Error::InvalidArgument(format!(
                "{} bytes for one exchange between {} MPI ranks, more than the {} each may send (MPI counts in 32 \
                 bits): use fewer ranks or a smaller input",
                bytes.len(),
                comm.size(),
                most_bytes(comm)
            )));
            &too_large
        }
        other => other,
    };
    let mut out = Vec::new();
    match local {
        Ok(bytes) => {
            out.push(0);
            out.extend_from_slice(bytes);
        }
        Err(e) => {
            let Error::Rank { rank, message } = as_rank_error(comm, e) else { unreachable!("as_rank_error") };
            out.push(1);
            wire::put_u64(&mut out, rank as u64);
            wire::put_str(&mut out, &message);
        }
    }
    out
}

/// The first failure among the ranks' encoded outcomes, as this rank reports it: its
/// own error when it failed, else [`Error::Rank`].
fn first_failure(local: Result<Vec<u8>>, all: &[Vec<u8>]) -> Result<()> {
    let Some(failed) = all.iter().find(|m| m.first() != Some(&0)) else { return Ok(()) };
    local?;
    let mut r = Reader::new(failed.get(1..).unwrap_or_default());
    let rank = r.u64()? as usize;
    let message = r.str()?.to_string();
    Err(Error::Rank { rank, message })
}

/// Every rank's outcome on every rank: the payloads in rank order when every rank
/// succeeded, else every rank returns an error (see the module documentation).
pub fn agree(comm: &dyn Comm, local: Result<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
    let all = comm.all_gather(&encode_outcome(comm, &local));
    first_failure(local, &all)?;
    Ok(all.into_iter().map(|mut m| m.split_off(1)).collect())
}

/// `local` on every rank when every rank succeeded, else every rank's error (its own,
/// or [`Error::Rank`]).
pub fn agree_on<T>(comm: &dyn Comm, local: Result<T>) -> Result<T> {
    let status = match &local {
        Ok(_) => Ok(Vec::new()),
        Err(e) => Err(as_rank_error(comm, e)),
    };
    let agreed = agree(comm, status);
    let value = local?;
    agreed?;
    Ok(value)
}

/// [`agree_on`] in an MPI job (`comm`), `local` itself in one process: for callers
/// that run either way.
pub fn agree_if<T>(comm: Option<&dyn Comm>, local: Result<T>) -> Result<T> {
    match comm {
        Some(comm) => agree_on(comm, local),
        None => local,
    }
}

/// Checks that every rank holds the same inputs, by this rank's `fingerprint` of them
/// (sizes and a checksum): the first rank whose fingerprint differs from rank 0's is
/// the failing rank, named on every rank with `differs(its fingerprint, rank 0's)`.
pub(crate) fn same_on_every_rank(
    comm: &dyn Comm,
    fingerprint: Vec<u8>,
    differs: impl Fn(&[u8], &[u8]) -> String,
) -> Result<()> {
    let all = agree(comm, Ok(fingerprint))?;
    match all.iter().position(|b| *b != all[0]) {
        Some(rank) => Err(Error::Rank { rank, message: differs(&all[rank], &all[0]) }),
        None => Ok(()),
    }
}

/// A checksum of sequences, each with its length: what [`same_on_every_rank`] compares.
pub(crate) fn checksum_of(sequences: impl IntoIterator<Item = impl AsRef<[u8]>>) -> u64 {
    let mut h = crate::seq::db::checksum::Hasher::new();
    for s in sequences {
        let s = s.as_ref();
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s);
    }
    h.finish()
}

/// Every rank's outcome on rank 0 (the payloads in rank order; empty elsewhere), and
/// the first failure, if any, on every rank: for results only rank 0 writes.
pub fn gather_to_root(comm: &dyn Comm, local: Result<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
    let status = match &local {
        Ok(bytes) if bytes.len() > most_bytes(comm) => Err(Error::Rank {
            rank: comm.rank(),
            message: format!("{} bytes for one exchange, more than MPI's 32-bit counts allow", bytes.len()),
        }),
        Ok(_) => Ok(Vec::new()),
        Err(e) => Err(as_rank_error(comm, e)),
    };
    let all = comm.gather(&encode_outcome(comm, &local));
    // Rank 0 passes on the first failure it received; every rank passes on its own.
    let verdict = if comm.rank() == 0 { first_failure(status, &all).map(|()| Vec::new()) } else { status };
    let agreed = agree(comm, verdict);
    local?;
    agreed?;
    Ok(all.into_iter().map(|mut m| m.split_off(1)).collect())
}

#[cfg(test)]
mod tests {
    use super::threads::run_ranks;
    use super::*;

    #[test]
    fn agreement_hands_every_rank_the_lowest_failure() {
        let outcomes = run_ranks(4, |comm| {
            let local = match comm.rank() {
                1 | 3 => Err(Error::InvalidArgument(format!("bad input on {}", comm.rank()))),
                r => Ok(vec![r as u8]),
            };
            agree(comm, local).map_err(|e| e.to_string())
        });
        assert_eq!(outcomes[0], Err("rank 1: invalid argument: bad input on 1".to_string()));
        assert_eq!(outcomes[1], Err("invalid argument: bad input on 1".to_string()));
        assert_eq!(outcomes[2], Err("rank 1: invalid argument: bad input on 1".to_string()));
        assert_eq!(outcomes[3], Err("invalid argument: bad input on 3".to_string()));
        let fine = run_ranks(3, |comm| agree(comm, Ok(vec![comm.rank() as u8; comm.rank()])).unwrap());
        assert!(fine.iter().all(|v| *v == vec![vec![], vec![1], vec![2, 2]]));
    }

    #[test]
    fn a_failure_gathered_to_the_root_reaches_every_rank() {
        let outcomes = run_ranks(3, |comm| {
            let local = if comm.rank() == 2 { Err(Error::Device("lost".into())) } else { Ok(vec![7]) };
            gather_to_root(comm, local).map_err(|e| e.to_string())
        });
        assert_eq!(outcomes[0], Err("rank 2: device: lost".to_string()));
        assert_eq!(outcomes[1], Err("rank 2: device: lost".to_string()));
        assert_eq!(outcomes[2], Err("device: lost".to_string()));
        let fine = run_ranks(3, |comm| gather_to_root(comm, Ok(vec![comm.rank() as u8])).unwrap());
        assert_eq!(fine[0], vec![vec![0], vec![1], vec![2]]);
        assert!(fine[1].is_empty() && fine[2].is_empty());
    }
}

//! Distances over the ranks of an MPI job. Every count of the matrix (differences,
//! compared sites, opposite homozygotes) is a sum over sites, so the ranks split the
//! sites, not the pairs: each counts every pair over a contiguous block of the sites
//! (about equal blocks; the count per site is the same work for every site), and
//! rank 0 adds the blocks' matrices, exactly (integers), to the matrix one process
//! counts. Each rank holds a whole matrix: this shares the work of many sites among
//! few samples (a genotype panel of 10^6 sites), not of many samples.

use super::wire::{self, Reader};
use super::{Comm, checksum_of, gather_to_root, same_on_every_rank};
use crate::device::ClDevice;
use crate::distance::{DistanceMatrix, Options, Packed, RunStats, compute_on};
use crate::error::{Error, Result};

fn put_counts(out: &mut Vec<u8>, counts: Option<&Vec<u32>>) {
    match counts {
        None => out.push(0),
        Some(v) => {
            out.push(1);
            wire::put_u64(out, v.len() as u64);
            v.iter().for_each(|&c| wire::put_u32(out, c));
        }
    }
}

fn counts(r: &mut Reader<'_>) -> Result<Option<Vec<u32>>> {
    if r.u8()? == 0 {
        return Ok(None);
    }
    let n = r.usize()?;
    (0..n).map(|_| r.u32()).collect::<Result<Vec<u32>>>().map(Some)
}

/// Adds `more` to `sum`, pair by pair.
fn add(sum: &mut [u32], more: &[u32]) -> Result<()> {
    if sum.len() != more.len() {
        return Err(Error::Internal("the ranks' distance matrices differ in shape".into()));
    }
    sum.iter_mut().zip(more).for_each(|(a, b)| *a += b);
    Ok(())
}

/// The distances of `packed` (every rank gives the same samples) counted by the
/// ranks of `comm`, each over its block of the sites on `devices` (none: the CPU
/// path): on rank 0 the matrix [`crate::distance::compute_on`] gives and rank 0's run
/// statistics (sites kept summed over the ranks), `None` on the others. Collective.
pub fn distance_run(
    comm: &dyn Comm,
    devices: &[&ClDevice],
    packed: &Packed,
    opts: &Options,
) -> Result<Option<(DistanceMatrix, RunStats)>> {
    let mut inputs = Vec::new();
    wire::put_u64(&mut inputs, packed.len() as u64);
    wire::put_u64(&mut inputs, packed.sites() as u64);
    let rows = (0..packed.len()).map(|s| packed.row(s).iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
    wire::put_u64(&mut inputs, checksum_of(rows));
    same_on_every_rank(comm, inputs, |_, _| "its samples differ from rank 0's".into())?;
    // Every rank's block fits 32-bit counts; their sum must too, as for one process.
    crate::distance::check_sites(packed.sites())?;
    let (rank, size, sites) = (comm.rank(), comm.size(), packed.sites());
    let block = sites * rank / size..sites * (rank + 1) / size;
    let mut keep = vec![0u64; packed.words()];
    block.clone().for_each(|s| keep[s / 64] |= 1 << (s % 64));
    let mine = compute_on(devices, &packed.select_sites(&keep), opts).map(|(dm, stats)| {
        let mut out = Vec::new();
        for v in [dm.sites, dm.considered_sites, dm.kept_sites, stats.kept_sites] {
            wire::put_u64(&mut out, v);
        }
        put_counts(&mut out, Some(&dm.differences));
        put_counts(&mut out, dm.compared.as_ref());
        put_counts(&mut out, dm.opposite_homozygotes.as_ref());
        (dm.genotype, stats, out)
    });
    let (genotype, stats, bytes) = match mine {
        Ok((g, s, b)) => (g, Some(s), Ok(b)),
        Err(e) => (false, None, Err(e)),
    };
    let gathered = gather_to_root(comm, bytes)?;
    let Some(mut stats) = stats.filter(|_| rank == 0) else { return Ok(None) };
    let mut dm = DistanceMatrix {
        n: packed.len(),
        sites: 0,
        considered_sites: 0,
        kept_sites: 0,
        genotype,
        differences: vec![0; packed.len() * packed.len().saturating_sub(1) / 2],
        compared: None,
        opposite_homozygotes: None,
    };
    stats.kept_sites = 0;
    for bytes in &gathered {
        let mut r = Reader::new(bytes);
        dm.sites += r.u64()?;
        dm.considered_sites += r.u64()?;
        dm.kept_sites += r.u64()?;
        stats.kept_sites += r.u64()?;
        add(&mut dm.differences, &counts(&mut r)?.unwrap_or_default())?;
        for sum in [&mut dm.compared, &mut dm.opposite_homozygotes] {
            if let Some(more) = counts(&mut r)? {
                add(sum.get_or_insert_with(|| vec![0; more.len()]), &more)?;
            }
        }
    }
    stats.input_sites = dm.sites;
    stats.backend = format!("{} MPI ranks (rank 0: {})", size, stats.backend);
    Ok(Some((dm, stats)))
}

//! The query profile of the inter-task kernels (`inter`, `team`): the substitution
//! score of every query row against every letter, laid out for the device.

use super::PAD_SCORE;
use super::scanner::ScanKernel;
use crate::device::ClDevice;
use crate::error::Result;
use crate::scoring::Scoring;
use opencl3::memory::{Buffer, ClMem};

/// The query profiles of the inter-task kernels on the device: for query slot `q`,
/// `S(q_i, c)` at `[(q * letters + c) * m_pad + i]` for every letter `c` and one padding
/// letter (code = alphabet size), each query padded to the longest one's whole bands
/// (`span` rows); padding scores `PAD_SCORE`. One query but for `scan_team`'s slots.
/// 16-bit for the narrow kernels, 32-bit for `InterWide`, the path of scorings that do
/// not fit 16 bits.
pub(crate) struct QueryProfile {
    buffer: ProfileBuffer,
    /// Rows of each query's profile: the longest query padded to whole spans.
    pub(crate) m_pad: usize,
    /// Alphabet size + 1 (the padding letter).
    pub(crate) letters: usize,
}

enum ProfileBuffer {
    Narrow(Buffer<i16>),
    Wide(Buffer<i32>),
}

impl QueryProfile {
    /// Builds `kind`'s profile of `query` and uploads it. The narrow kernels' profile
    /// holds every score exactly: callers send a scoring that does not fit 16 bits
    /// ([`super::fits_16_bits`]) to `InterWide`, and a narrow profile of one is an error.
    pub(crate) fn new(dev: &ClDevice, kind: ScanKernel, query: &[u8], scoring: &Scoring, span: usize) -> Result<Self> {
        QueryProfile::of_slots(dev, kind, &[query], scoring, span)
    }

    /// The profiles of several queries, one after another ([`Scanner`](super::scanner::Scanner)'s slots).
    pub(crate) fn of_slots(
        dev: &ClDevice,
        kind: ScanKernel,
        queries: &[&[u8]],
        scoring: &Scoring,
        span: usize,
    ) -> Result<Self> {
        let longest = queries.iter().map(|q| q.len()).max().unwrap_or(0);
        super::check_kernel_lengths(longest, [])?;
        let m_pad = longest.div_ceil(span) * span;
        let letters = scoring.matrix.size() + 1;
        let cells = crate::memory::count("a query profile", &[queries.len(), letters, m_pad])?;
        let mut profile = crate::memory::vec_filled("a query profile", cells, PAD_SCORE as i32)?;
        for (slot, query) in queries.iter().enumerate() {
            for c in 0..letters - 1 {
                let row = &mut profile[(slot * letters + c) * m_pad..][..query.len()];
                for (p, &q) in row.iter_mut().zip(query.iter()) {
                    *p = scoring.matrix.score(q, c as u8);
                }
            }
        }
        let buffer = if kind == ScanKernel::InterWide {
            ProfileBuffer::Wide(dev.buffer_from(&profile)?)
        } else {
            ProfileBuffer::Narrow(dev.buffer_from(&super::narrow_scores(&profile)?)?)
        };
        Ok(QueryProfile { buffer, m_pad, letters })
    }

    /// `scan_team_pairs`' profile of queries `a` and `b` (absent: the padding score in
    /// its lane): `S(a_i, c) | S(b_i, c) << 16` at word `c * m_pad + i`, padded to the
    /// longer query's whole passes (`span` rows).
    pub(crate) fn paired(dev: &ClDevice, a: &[u8], b: Option<&[u8]>, scoring: &Scoring, span: usize) -> Result<Self> {
        let longest = a.len().max(b.map_or(0, <[u8]>::len));
        super::check_kernel_lengths(longest, [])?;
        let m_pad = longest.div_ceil(span) * span;
        let letters = scoring.matrix.size() + 1;
        let cells = crate::memory::count("a paired query profile", &[2, letters, m_pad])?;
        let mut profile = crate::memory::vec_filled("a paired query profile", cells, PAD_SCORE as i32)?;
        for (lane, query) in std::iter::once(a).chain(b).enumerate() {
            for c in 0..letters - 1 {
                for (i, &q) in query.iter().enumerate() {
                    profile[2 * (c * m_pad + i) + lane] = scoring.matrix.score(q, c as u8);
                }
            }
        }
        let buffer = ProfileBuffer::Narrow(dev.buffer_from(&super::narrow_scores(&profile)?)?);
        Ok(QueryProfile { buffer, m_pad, letters })
    }

    pub(crate) fn mem(&self) -> opencl3::types::cl_mem {
        match &self.buffer {
            ProfileBuffer::Narrow(b) => b.get(),
            ProfileBuffer::Wide(b) => b.get(),
        }
    }
}

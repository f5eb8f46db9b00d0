//! The query profile of the inter-task kernels (`inter`, `team`): the substitution
//! score of every query row against every letter, laid out for the device.

use super::PAD_SCORE;
use super::scanner::ScanKernel;
use crate::device::ClDevice;
use crate::error::Result;
use crate::scoring::{Mode, Scoring};
use opencl3::memory::{Buffer, ClMem};

/// The query profiles of the inter-task kernels on the device: for query slot `q`,
/// `S(q_i, c)` at `[(q * letters + c) * m_pad + i]` for every letter `c` and one padding
/// letter (code = alphabet size), each query padded to the longest one's whole bands
/// (`span` rows); padding scores `PAD_SCORE`. One query but for `scan_team`'s slots.
/// 16-bit for the narrow kernels, 32-bit for `InterWide`, the path of scorings that do
/// not fit 16 bits.
///
/// In the global and glocal modes (cl/clsw_common.h says why) each query ends its own
/// padded rows (`m.div_ceil(span) * span`): the rows above it score [`pad_row_score`]
/// for every letter, the padding letter scores [`drain_score`] in glocal, and a fill letter
/// follows it, whose score at row R is the left edge's step `edge(R) - edge(R - 1)`
/// (`scan_team`'s pipeline fill).
pub(crate) struct QueryProfile {
    buffer: ProfileBuffer,
    /// Rows of each query's profile: the longest query padded to whole spans.
    pub(crate) m_pad: usize,
    /// Alphabet size + 1 (the padding letter), + 1 in the non-local modes (the fill
    /// letter): [`letters`].
    pub(crate) letters: usize,
    /// Each slot's query length.
    pub(crate) lengths: Vec<usize>,
}

/// The profile's letters for `scoring`: the alphabet, the padding letter, and in the
/// non-local modes the fill letter.
pub(crate) fn letters(scoring: &Scoring) -> usize {
    scoring.matrix.size() + 1 + (scoring.mode != Mode::Local) as usize
}

/// The padding letter's score in the glocal mode, where `scan_team`'s drain columns
/// (past a lane's subject) take it: one more than a gap's first residue costs, so that
/// a path through them never beats going down the lane's last column (cl/scan_team.cl)
/// and their cells stay close to the real ones, inside 16 bits
/// ([`super::narrow_subjects`]).
pub(crate) fn drain_score(scoring: &Scoring) -> i32 {
    -(scoring.gaps.open + scoring.gaps.extend + 1)
}

/// The score of a padding row above a query, for every letter: padding rows repeat DP
/// row 0 (global: -extend a column; glocal: 0).
fn pad_row_score(scoring: &Scoring) -> i32 {
    match scoring.mode {
        Mode::Global => -scoring.gaps.extend,
        _ => 0,
    }
}

/// Whether `kind` keeps H + extend (i + j) in the lanes for `scoring`: `scan_team` in
/// the global mode (cl/scan_team.cl says why). Its profile holds S + 2 extend, and the
/// edges are [`left_edge`]'s shifted alike.
pub(crate) fn shifted(kind: ScanKernel, scoring: &Scoring) -> bool {
    kind == ScanKernel::Team && scoring.mode == Mode::Global
}

/// H(R, 0) of profile row `r` (`r` = -1: the row above) below `pad` padding rows:
/// cl/clsw_common.h's `clsw_left_edge`, the reference's left edge for the query's rows;
/// [`shifted`]: cl/scan_team.cl's `team_left_edge` (0 at DP row 0, else -open).
pub(crate) fn left_edge(r: i64, pad: i64, scoring: &Scoring, shifted: bool) -> i32 {
    let dp = r - pad + 1;
    if shifted {
        return if dp == 0 { 0 } else { -scoring.gaps.open };
    }
    if dp > 0 {
        scoring.mode.left_edge(dp as usize, scoring)
    } else if scoring.mode == Mode::Global && dp < 0 {
        -scoring.gaps.open
    } else {
        0
    }
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
        let letters = letters(scoring);
        let alphabet = scoring.matrix.size();
        let shifted = shifted(kind, scoring);
        // The shifted lanes add 2 extend to every pair of the query's rows and take 0 in
        // the padding rows above (DP row 0 again).
        let (shift, pad_score) = if shifted { (2 * scoring.gaps.extend, 0) } else { (0, pad_row_score(scoring)) };
        let cells = crate::memory::count("a query profile", &[queries.len(), letters, m_pad])?;
        let mut profile = crate::memory::vec_filled("a query profile", cells, PAD_SCORE as i32)?;
        for (slot, query) in queries.iter().enumerate() {
            // The non-local modes: the query ends its padded rows, below `pad` rows.
            let pad = match scoring.mode {
                Mode::Local => 0,
                _ => query.len().div_ceil(span) * span - query.len(),
            };
            for c in 0..alphabet {
                let row = &mut profile[(slot * letters + c) * m_pad..][..pad + query.len()];
                row[..pad].fill(pad_score);
                for (i, (p, &q)) in row[pad..].iter_mut().zip(query.iter()).enumerate() {
                    *p = scoring.score_at(i, q, c as u8) + shift;
                }
            }
            if scoring.mode == Mode::Glocal {
                profile[(slot * letters + alphabet) * m_pad..][..pad + query.len()].fill(drain_score(scoring));
            }
            if scoring.mode != Mode::Local {
                let fill = &mut profile[(slot * letters + alphabet + 1) * m_pad..][..pad + query.len()];
                for (r, v) in fill.iter_mut().enumerate() {
                    let r = r as i64;
                    *v = left_edge(r, pad as i64, scoring, shifted) - left_edge(r - 1, pad as i64, scoring, shifted);
                }
            }
        }
        let buffer = if kind == ScanKernel::InterWide {
            ProfileBuffer::Wide(dev.buffer_from(&profile)?)
        } else {
            ProfileBuffer::Narrow(dev.buffer_from(&super::narrow_scores(&profile)?)?)
        };
        Ok(QueryProfile { buffer, m_pad, letters, lengths: queries.iter().map(|q| q.len()).collect() })
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
                    profile[2 * (c * m_pad + i) + lane] = scoring.score_at(i, q, c as u8);
                }
            }
        }
        let buffer = ProfileBuffer::Narrow(dev.buffer_from(&super::narrow_scores(&profile)?)?);
        Ok(QueryProfile { buffer, m_pad, letters, lengths: vec![a.len(), b.map_or(0, <[u8]>::len)] })
    }

    pub(crate) fn mem(&self) -> opencl3::types::cl_mem {
        match &self.buffer {
            ProfileBuffer::Narrow(b) => b.get(),
            ProfileBuffer::Wide(b) => b.get(),
        }
    }
}

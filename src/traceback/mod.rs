//! The alignments clsw returns, traced back on the CPU; each gives exactly the
//! reference's alignment ([`crate::reference::align`], the textbook traceback) in less
//! memory or time:
//!
//! * [`checkpoint`]: one pair, in memory proportional to `n·√m` (`clsw align`,
//!   `clsw_align`, and the hits the others leave);
//! * [`from_end`]: a search hit from its end cell, over the smallest rectangle that
//!   must hold its alignment, many hits at once on SIMD lanes ([`batch`]), a large
//!   rectangle alone on every lane ([`wavefront`]) or, where its score leaves little
//!   room for gaps, over a band of diagonals ([`diagonal_band`]);
//! * [`mod@alternates`]: a subject's further alignments after its best one, each its
//!   part's best.

pub mod alternates;
pub mod batch;
pub mod checkpoint;
pub mod diagonal_band;
pub mod from_end;
pub mod wavefront;

pub use alternates::alternates;
pub use checkpoint::{align, align_ending_at, align_ending_at_bytes, align_with_block_rows};
pub use from_end::{HitEnd, align_from_ends};

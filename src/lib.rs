//! clsw: GPU sequence comparison (OpenCL) behind a stable C ABI.
//!
//! The library owns every rule (device specifications, option defaults and checks,
//! residue checks, alignment rows); the C layer ([`capi`]), the command line and the
//! bindings only convert types and format.
//!
//! # Layers
//!
//! A module uses only modules of lower layers, never one of its own layer or above, so
//! there are no cycles. `tests/layers.rs` reads this list and every `crate::` path in
//! `src/` and fails on an edge against it.
//!
//! 1. [`error`], [`words`]: the error type and status names; counts in messages.
//! 2. [`memory`], [`mapped`], [`outfile`], [`textfile`], [`cfmt`]: fallible allocation
//!    of buffers whose size follows from input; files mapped into memory, guarded against
//!    being cut short; output files written atomically (temporary, sync, rename); text
//!    input read a bounded line at a time; numbers as C's printf writes them.
//! 3. [`seq`]: alphabets, FASTA reading, sequence databases.
//! 4. [`scoring`]: substitution matrices and gap costs.
//! 5. [`align`], [`stats`]: the pairwise alignment type and its display rows; Gumbel
//!    fits, E-values and bit scores.
//! 6. [`reference`]: the plain scalar implementations every fast path is tested
//!    against, and the three-sequence result types they return.
//! 7. [`device`]: OpenCL discovery, device specifications, programs, buffers.
//! 8. [`scan`]: the scan kernels' host side (one module per kernel) and the native
//!    SIMD CPU kernels.
//! 9. [`engine`], [`traceback`]: the devices of a run, each checked by a self-test on
//!    the scan kernels; the alignments clsw returns, traced back on the CPU.
//! 10. [`psse`], [`sw3`], [`distance`]: the jobs that stand alone.
//! 11. [`search`]: database search (its shuffle statistics use psse's shuffles).
//! 12. [`output`], [`mpi`]: the search's output formats (BLAST tabular, SAM, JSON,
//!     pairwise); scan and psse shared among the ranks of an MPI job.
//! 13. [`capi`]: the C ABI (Cargo feature `capi`; the package in `capi/` links it into
//!     libclsw.so and libclsw.a).

pub mod align;
#[cfg(feature = "capi")]
pub mod capi;
pub mod cfmt;
pub mod device;
pub mod distance;
pub mod engine;
pub mod error;
pub mod mapped;
pub mod memory;
pub mod mpi;
pub mod outfile;
pub mod output;
pub mod psse;
pub mod reference;
pub mod scan;
pub mod scoring;
pub mod search;
pub mod seq;
pub mod stats;
pub mod sw3;
pub mod textfile;
pub mod traceback;
pub mod words;

pub use engine::Engine;
pub use error::{Error, Result};

/// The library's version, from Cargo.toml.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

//! clsw: GPU sequence comparison (OpenCL) behind a stable C ABI.
//!
//! The modules follow the project's layout: [`seq`] reads and encodes sequences,
//! [`scoring`] holds matrices and gap penalties, [`reference`] is the plain scalar
//! Smith-Waterman every kernel is tested against, [`align`] the alignment type and its
//! views, [`device`] the OpenCL layer, and [`scan`] the database-search kernels.

pub mod align;
pub mod capi;
pub mod device;
pub mod distance;
pub mod engine;
pub mod error;
pub mod psse;
pub mod reference;
pub mod scan;
pub mod scoring;
pub mod seq;
pub mod stats;
pub mod sw3;

pub use engine::Engine;
pub use error::{Error, Result};

/// The library's version, from Cargo.toml.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

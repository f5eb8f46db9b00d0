//! libclsw.so and libclsw.a: the clsw crate's C ABI (its `capi` feature) linked into
//! C libraries. The `extern "C"` functions are the clsw crate's own, exported from
//! these libraries because they are reachable through this re-export.

pub use clsw_core::capi::*;

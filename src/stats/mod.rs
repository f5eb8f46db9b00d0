//! Search statistics: the Gumbel distribution and its maximum-likelihood fits
//! ([`gumbel`]), Karlin-Altschul E-values for database searches ([`evalue`]), with
//! `(lambda, K)` fitted to a search's own scores, length-corrected, or taken from NCBI
//! BLAST's published tables; blastp's own E-values with those parameters ([`blast`]);
//! and ssearch36's default regression of the scores on the logarithm of the subject
//! length ([`regression`]), whose score cap needs the matrix's ungapped parameters
//! ([`ungapped`]); and ggsearch36's and glsearch36's normal distribution of global scores
//! (trimmed mean and variance, or median and IQR: [`normal`]).
//!
//! Typical use after scoring one query against a database:
//!
//! ```
//! use clsw::stats::{KarlinAltschul, fit_length_corrected, published};
//! # let (scores, lengths, query_len) = (vec![0i32; 10], vec![100usize; 10], 300);
//! let ka = fit_length_corrected(&scores, &lengths, query_len)
//!     .ok()
//!     .or_else(|| published("BLOSUM62", 11, 1))
//!     .expect("no statistics for this scoring system");
//! let e = ka.evalue(120.0, query_len, 250, scores.len());
//! # assert!(e < 1e-3);
//! ```

pub mod blast;
mod blast_table;
pub mod evalue;
pub mod gumbel;
pub mod normal;
pub mod regression;
pub mod ungapped;

pub use blast::BlastParameters;
pub use evalue::{KarlinAltschul, MIN_FIT_SCORES, fit_length_corrected, published};
pub use gumbel::{Gumbel, fit_censored, fit_complete};
pub use normal::{NormalFit, NormalMethod, fit_median_iqr, fit_normal};
pub use regression::{Regression, fit_regression};
pub use ungapped::Ungapped;

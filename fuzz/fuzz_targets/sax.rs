//! libFuzzer target: the body is `bodies::sax_series` (fuzz/bodies.rs), shared with the
//! stable replay of the corpus in tests/fuzz_corpus.rs.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::sax_series(data));

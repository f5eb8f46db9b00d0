//! Replays the fuzz corpus on stable: every file of `fuzz/corpus/<target>/` (the seeds,
//! and every input the fuzzers once found failing) goes through the same body as the
//! libFuzzer target (`fuzz/bodies.rs`), which must return without a panic. The fuzzers
//! themselves need nightly (`scripts/fuzz`); this runs in every `cargo test`.

#[path = "../fuzz/bodies.rs"]
mod bodies;

use std::path::PathBuf;

#[test]
fn every_corpus_input_goes_through_its_target_without_a_panic() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    for (target, body) in bodies::TARGETS {
        let dir = corpus.join(target);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: no seed inputs", dir.display());
        for file in &files {
            let data = std::fs::read(file).unwrap();
            let outcome = std::panic::catch_unwind(|| body(&data));
            assert!(outcome.is_ok(), "{target}: {} makes the target panic", file.display());
        }
        eprintln!("{target}: {} inputs", files.len());
    }
}

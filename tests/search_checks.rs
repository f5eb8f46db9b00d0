//! A hit's score is never taken from a device alone: a device that passed its
//! self-test and then reports wrong scores (here: kernels rebuilt afterwards through
//! the test hook, so every score is one too high) stops the search with an error
//! naming the subject, instead of printing a wrong hit. One test in its own process:
//! it changes `CLSW_CL_OPTIONS`, which every program build reads.

mod common;

use clsw::Engine;
use clsw::device::DeviceChoice;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::search::{SearchOptions, Searcher};
use clsw::seq::{Alphabet, Database, EmptyRecords};
use common::{data_dir, read_fasta, test_devices};

#[test]
fn a_device_that_turns_wrong_after_its_self_test_is_caught_at_the_hits() {
    let db =
        Database::from_fasta(&data_dir().join("uniprot300.fasta"), Alphabet::Protein, EmptyRecords::Error).unwrap().0;
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    let query = read_fasta("queries10.fasta", Alphabet::Protein).remove(0);
    for dev in test_devices() {
        let engine = Engine::new(DeviceChoice::Index(dev.info.index)).unwrap();
        let right = Searcher::new(&engine, &db, sc.clone(), SearchOptions::default()).unwrap();
        assert!(!right.search(&query).unwrap().hits.is_empty());
        // SAFETY: this test binary runs this one test; no other thread reads the variable.
        unsafe { std::env::set_var("CLSW_CL_OPTIONS", "-DCLSW_TEST_SCORE_OFFSET=1") };
        let wrong = Searcher::new(&engine, &db, sc.clone(), SearchOptions::default())
            .and_then(|s| s.search(&query))
            .map(|r| r.hits.len());
        // SAFETY: as for set_var above.
        unsafe { std::env::remove_var("CLSW_CL_OPTIONS") };
        let msg = wrong.expect_err("wrong device scores were reported as hits").to_string();
        assert!(msg.contains("differs from the CPU's") && msg.contains("subject"), "{msg}");
    }
}

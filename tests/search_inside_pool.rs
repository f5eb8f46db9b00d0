//! A search called from the only worker of the global rayon pool, as a host program's
//! own parallel loop would call it: while that worker waits for the devices to open,
//! for the shares to upload and for the scans, the host work beside the devices (the
//! self-test, the layout's words, the gathers, the shares joined) must not wait for it
//! in turn. A binary of its own: the global pool is made here, one thread.

mod common;

use clsw::Engine;
use clsw::device::DeviceChoice;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::search::{SearchOptions, Searcher};
use clsw::seq::{Alphabet, Database, EmptyRecords};
use common::{data_dir, read_fasta, test_devices};
use std::time::Duration;

#[test]
fn a_search_from_the_only_worker_of_the_global_pool_finishes() {
    rayon::ThreadPoolBuilder::new().num_threads(1).build_global().expect("this binary's global pool, made first");
    let indices: Vec<usize> = test_devices().iter().map(|d| d.info.index).collect();
    let db =
        Database::from_fasta(&data_dir().join("uniprot300.fasta"), Alphabet::Protein, EmptyRecords::Error).unwrap().0;
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    // Two shares on every device under test (not the native path: its share's scan
    // runs on the global pool, as the native path alone does).
    let choices: Vec<DeviceChoice> =
        indices.iter().flat_map(|&i| [DeviceChoice::Index(i), DeviceChoice::Index(i)]).collect();
    let (tx, rx) = std::sync::mpsc::channel();
    let (queries2, sc2) = (queries.clone(), sc.clone());
    std::thread::spawn(move || {
        let db2 = Database::from_fasta(&data_dir().join("uniprot300.fasta"), Alphabet::Protein, EmptyRecords::Error)
            .unwrap()
            .0;
        rayon::scope(|s| {
            s.spawn(|_| {
                assert!(rayon::current_thread_index().is_some(), "on the global pool's worker");
                let engine = Engine::new(choices).unwrap();
                let searcher = Searcher::new(&engine, &db2, sc2, SearchOptions::default()).unwrap();
                let mut scores = Vec::new();
                searcher
                    .search_all(&queries2, |r| {
                        scores.push(r.scores);
                        Ok(())
                    })
                    .unwrap();
                let _ = tx.send(scores);
            })
        })
    });
    let got = rx.recv_timeout(Duration::from_secs(600)).expect("the search finished within 10 minutes");
    // The same scores as the native path alone, outside any pool.
    let native = Engine::new(DeviceChoice::Native).unwrap();
    let reference = Searcher::new(&native, &db, sc, SearchOptions::default()).unwrap();
    assert_eq!(got.len(), queries.len());
    // Scores: a GPU's scan reports no end cells (its hits find theirs afterwards).
    let score = |s: &[clsw::reference::LocalScore]| s.iter().map(|s| s.score).collect::<Vec<_>>();
    for (q, scores) in queries.iter().zip(&got) {
        assert_eq!(score(scores), score(&reference.search(q).unwrap().scores), "query {}", q.id);
    }
}

//! Searches in the global and glocal modes (issue 42): every device and the native path
//! give the reference's scores and the same hits; hits are the subjects of the query's
//! length window (ggsearch36's and glsearch36's), their E-values the normal fit of those
//! scores, their alignments whole in the query (and in the subject, global) and scoring
//! what the scan did; what a non-local search cannot do is refused up front.

mod common;

use clsw::Engine;
use clsw::device::DeviceChoice;
use clsw::reference::score;
use clsw::scoring::{Gaps, Matrix, Mode, Scoring};
use clsw::search::{EvalueSource, SearchOptions, Searcher, StatsMethod};
use clsw::seq::{Alphabet, Database, EmptyRecords};
use clsw::stats::normal::{NormalMethod, fit_search, length_window};
use common::{data_dir, read_fasta, test_devices};

fn blosum62(mode: Mode) -> Scoring {
    Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap()).in_mode(mode)
}

#[test]
fn searches_in_each_mode_on_every_device_and_the_native_path() {
    let db =
        Database::from_fasta(&data_dir().join("uniprot300.fasta"), Alphabet::Protein, EmptyRecords::Error).unwrap().0;
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    let mut engines: Vec<Engine> =
        test_devices().iter().map(|d| Engine::new(DeviceChoice::Index(d.info.index)).unwrap()).collect();
    engines.push(Engine::new(DeviceChoice::Native).unwrap());
    let options = SearchOptions { max_hits: 500, evalue: 1e9, ..SearchOptions::default() };
    for mode in [Mode::Global, Mode::Glocal] {
        let sc = blosum62(mode);
        for query in queries.iter().take(4) {
            let window = length_window(query.len(), mode);
            let want: Vec<i32> = (0..db.len()).map(|k| score(&query.residues, db.residues(k), &sc).score).collect();
            let in_window: Vec<usize> = (0..db.len()).filter(|&k| window.contains(&db.seq_len(k))).collect();
            let window_scores: Vec<i32> = in_window.iter().map(|&k| want[k]).collect();
            let fit = fit_search(&window_scores, NormalMethod::MeanVariance).unwrap();
            let mut first = None;
            for engine in &engines {
                let what = format!("{mode}, query {} on {}", query.id, engine.describe().join(", "));
                let r = Searcher::new(engine, &db, sc.clone(), options.clone()).unwrap().search(query).unwrap();
                let scores: Vec<i32> = r.scores.iter().map(|s| s.score).collect();
                assert_eq!(scores, want, "{what}");
                assert_eq!(r.statistics.source, EvalueSource::Normal, "{what}");
                assert_eq!(r.statistics.db_sequences, in_window.len(), "{what}: E counts the length window");
                assert_eq!(r.statistics.normal, Some(fit), "{what}");
                // Glocal hits score above the query deleted whole; global ones any score.
                let floor = if mode == Mode::Glocal { -(11 + query.len() as i32) } else { i32::MIN };
                let expected: Vec<usize> = in_window.iter().copied().filter(|&k| want[k] > floor).collect();
                let mut hits: Vec<usize> = r.hits.iter().map(|h| h.subject).collect();
                hits.sort_unstable();
                assert_eq!(hits, expected, "{what}: the hits are the window's subjects");
                for h in &r.hits {
                    assert_eq!(h.evalue, fit.evalue(h.score, in_window.len()), "{what}");
                    let a = h.alignment.as_ref().expect("alignments are on");
                    let s = db.residues(h.subject);
                    assert_eq!(a.score, h.score, "{what}");
                    assert_eq!(a.rescore(&query.residues, s, &sc), h.score as i64, "{what}");
                    assert_eq!((a.query_start, a.query_end), (0, query.len() - 1), "{what}: the whole query");
                    if mode == Mode::Global {
                        assert_eq!((a.subject_start, a.subject_end), (0, s.len() - 1), "{what}: the whole subject");
                    }
                }
                let summary: Vec<(usize, i32, u64)> =
                    r.hits.iter().map(|h| (h.subject, h.score, h.evalue.to_bits())).collect();
                assert_eq!(
                    *first.get_or_insert_with(|| summary.clone()),
                    summary,
                    "{what}: hits as the first engine's"
                );
            }
        }
    }
}

#[test]
fn what_a_non_local_search_refuses() {
    let db =
        Database::from_fasta(&data_dir().join("uniprot300.fasta"), Alphabet::Protein, EmptyRecords::Error).unwrap().0;
    let engine = Engine::new(DeviceChoice::Native).unwrap();
    let refused = |mode: Mode, options: SearchOptions| {
        Searcher::new(&engine, &db, blosum62(mode), options).err().expect("refused").to_string()
    };
    let msg = refused(Mode::Global, SearchOptions { max_hsps: 3, ..SearchOptions::default() });
    assert!(msg.contains("further alignments per subject (max_hsps 3) are local alignments"), "{msg}");
    for stats in [StatsMethod::Regression, StatsMethod::Published, StatsMethod::Shuffle] {
        let msg = refused(Mode::Glocal, SearchOptions { stats, ..SearchOptions::default() });
        assert!(msg.contains(&format!("statistics method {stats} is for local scores")), "{msg}");
    }
    let psse = clsw::psse::PsseOptions { scoring: blosum62(Mode::Global), ..clsw::psse::PsseOptions::default() };
    let msg = psse.validate().unwrap_err().to_string();
    assert!(msg.contains("psse computes local alignments only (mode global)"), "{msg}");
    let sw3 = clsw::sw3::score(&engine, &[1, 2], &[1, 2], &[1, 2], &blosum62(Mode::Glocal));
    let msg = sw3.unwrap_err().to_string();
    assert!(msg.contains("sw3 computes local alignments only (mode glocal)"), "{msg}");
}

//! Scan and psse shared among ranks (`clsw::mpi`): the results equal one process's.
//!
//! The protocol runs on ranks that are threads of this test (`mpi::threads`) in every
//! build, on the native CPU path and on an OpenCL device beside it. Built with the
//! `mpi` feature (CI installs Open MPI), the `clsw` command and the C example
//! `bindings/c/mpi_search.c` run under `mpirun -n 1, 2, 3` too, and a rank with a
//! damaged database ends the job on every rank.

mod common;

use clsw::device::{DeviceChoice, DeviceSpec};
use clsw::engine::Engine;
use clsw::mpi::threads::{run_ranks, run_ranks_without_draws};
use clsw::mpi::{Comm, RankSearcher, calibrate, share};
use clsw::psse::{self, PsseOptions, PsseResult};
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::search::{SearchOptions, SearchResult, Searcher, StatsMethod, Strands};
use clsw::seq::{Alphabet, Database, Sequence};
use common::read_fasta;

fn protein() -> (Database, Vec<Sequence>, Scoring) {
    let db = Database::from_sequences(Alphabet::Protein, read_fasta("uniprot300.fasta", Alphabet::Protein));
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    let scoring = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    (db, queries, scoring)
}

fn native() -> Engine {
    Engine::new(DeviceChoice::Native).unwrap()
}

fn alone(db: &Database, queries: &[Sequence], scoring: &Scoring, options: &SearchOptions) -> Vec<SearchResult> {
    let engine = native();
    let searcher = Searcher::new(&engine, db, scoring.clone(), options.clone()).unwrap();
    let mut out = Vec::new();
    searcher
        .search_all(queries, |r| {
            out.push(r);
            Ok(())
        })
        .unwrap();
    out
}

/// One rank's search: rank 0's results, none on the others.
fn rank_search(
    comm: &dyn Comm,
    engine: &Engine,
    db: &Database,
    queries: &[Sequence],
    scoring: &Scoring,
    options: &SearchOptions,
) -> clsw::Result<Vec<SearchResult>> {
    let share = share(comm, engine, db, calibrate(engine, db, scoring, options))?;
    let part = clsw::mpi::agree_on(comm, share.part(db))?;
    let searcher =
        RankSearcher::new(comm, engine, db, part.as_ref().unwrap_or(db), &share, scoring.clone(), options.clone())?;
    let mut out = Vec::new();
    searcher.search_all(queries, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// The hits and statistics of one process's results and the ranks', equal to the bit.
fn assert_same(context: &str, want: &[SearchResult], got: &[SearchResult]) {
    assert_eq!(want.len(), got.len(), "{context}");
    for (w, g) in want.iter().zip(got) {
        let q = format!("{context}, query {}", w.query_id);
        assert_eq!((w.query_index, &w.query_id, w.cells), (g.query_index, &g.query_id, g.cells), "{q}");
        assert_eq!(w.statistics.source, g.statistics.source, "{q}");
        assert_eq!(format!("{:?}", w.statistics), format!("{:?}", g.statistics), "{q}");
        assert_eq!(w.recomputed, g.recomputed, "{q}");
        assert_eq!(w.hits.len(), g.hits.len(), "{q}");
        for (a, b) in w.hits.iter().zip(&g.hits) {
            assert_eq!(
                (a.subject, a.score, a.strand, &a.alignment),
                (b.subject, b.score, b.strand, &b.alignment),
                "{q}"
            );
            assert_eq!(a.evalue.to_bits(), b.evalue.to_bits(), "{q}: subject {}", a.subject);
            assert_eq!(a.bit_score.to_bits(), b.bit_score.to_bits(), "{q}: subject {}", a.subject);
        }
    }
}

#[test]
fn ranks_find_what_one_process_finds() {
    let (db, queries, scoring) = protein();
    let cases = [
        ("default", SearchOptions::default()),
        ("3 hits", SearchOptions { max_hits: 3, ..SearchOptions::default() }),
        ("E 1e-5", SearchOptions { evalue: 1e-5, ..SearchOptions::default() }),
        ("regression", SearchOptions { stats: StatsMethod::Regression, ..SearchOptions::default() }),
        ("shuffle", SearchOptions { stats: StatsMethod::Shuffle, max_hits: 5, ..SearchOptions::default() }),
        (
            "no alignments",
            SearchOptions { alignments: false, stats: StatsMethod::Published, ..SearchOptions::default() },
        ),
    ];
    for (name, options) in cases {
        let want = alone(&db, &queries, &scoring, &options);
        assert!(want.iter().map(|r| r.hits.len()).sum::<usize>() > 0, "{name}: no hits to compare");
        for n in [1, 2, 3] {
            let got = run_ranks(n, |comm| rank_search(comm, &native(), &db, &queries, &scoring, &options).unwrap());
            assert_same(&format!("{name}, {n} ranks"), &want, &got[0]);
            assert!(got[1..].iter().all(Vec::is_empty), "{name}: only rank 0 receives results");
        }
        // Ranks whose threads may not call MPI take fixed shares.
        let got =
            run_ranks_without_draws(3, |comm| rank_search(comm, &native(), &db, &queries, &scoring, &options).unwrap());
        assert_same(&format!("{name}, 3 ranks of fixed shares"), &want, &got[0]);
    }
}

#[test]
fn dna_on_both_strands_and_ranks_that_draw_no_chunks() {
    let seqs = read_fasta("dna_pairs.fasta", Alphabet::Dna);
    let db = Database::from_sequences(Alphabet::Dna, seqs[..4].to_vec());
    let queries = seqs[4..10].to_vec();
    let scoring = Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(10, 1).unwrap());
    for strands in [Strands::Both, Strands::Minus] {
        let options = SearchOptions { strands, stats: StatsMethod::Shuffle, ..SearchOptions::default() };
        let want = alone(&db, &queries, &scoring, &options);
        // Six ranks for four subjects (four chunks): two ranks draw none.
        let got = run_ranks(6, |comm| rank_search(comm, &native(), &db, &queries, &scoring, &options).unwrap());
        assert_same(&format!("DNA, {strands:?}, 6 ranks"), &want, &got[0]);
    }
}

#[test]
fn an_opencl_rank_beside_native_ranks_finds_the_same() {
    let Some(device) = common::test_device_infos().into_iter().next() else { return };
    let (db, queries, scoring) = protein();
    let options = SearchOptions::default();
    let want = alone(&db, &queries, &scoring, &options);
    let got = run_ranks(2, |comm| {
        let engine = match comm.rank() {
            0 => Engine::new(DeviceSpec::from(DeviceChoice::Name(device.name.clone()))).unwrap(),
            _ => native(),
        };
        rank_search(comm, &engine, &db, &queries, &scoring, &options).unwrap()
    });
    assert_same(&format!("{} beside the native path", device.label()), &want, &got[0]);
}

/// Native ranks deal the whole database among them; beside a rank of OpenCL devices
/// (which lays out a share once) the ranks take contiguous shares, some of them empty
/// when there are more ranks than subjects, and find what one process finds.
#[test]
fn native_ranks_deal_and_beside_an_opencl_rank_ranks_take_shares() {
    let (db, _, _) = protein();
    let dealt = run_ranks(3, |comm| share(comm, &native(), &db, Ok(1.0)).unwrap());
    assert!(dealt.iter().all(|s| s.dealt && s.range == (0..db.len()) && s.part(&db).unwrap().is_none()));
    let fixed = run_ranks_without_draws(3, |comm| share(comm, &native(), &db, Ok(1.0)).unwrap());
    assert!(fixed.iter().all(|s| !s.dealt && s.part(&db).unwrap().is_some()), "no draws: fixed shares");
    let Some(device) = common::test_device_infos().into_iter().next() else { return };
    let seqs = read_fasta("dna_pairs.fasta", Alphabet::Dna);
    let db = Database::from_sequences(Alphabet::Dna, seqs[..4].to_vec());
    let queries = seqs[4..10].to_vec();
    let scoring = Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(10, 1).unwrap());
    let options = SearchOptions { stats: StatsMethod::Shuffle, ..SearchOptions::default() };
    let engine_of = |rank: usize| match rank {
        0 => Engine::new(DeviceSpec::from(DeviceChoice::Name(device.name.clone()))).unwrap(),
        _ => native(),
    };
    let shares = run_ranks(6, |comm| share(comm, &engine_of(comm.rank()), &db, Ok(1.0)).unwrap());
    assert!(shares.iter().all(|s| !s.dealt), "an OpenCL rank: shares");
    assert!(shares.iter().any(|s| s.range.is_empty()), "six ranks for four subjects: some hold none");
    assert_eq!(shares.iter().map(|s| s.range.len()).sum::<usize>(), db.len());
    let want = alone(&db, &queries, &scoring, &options);
    let got =
        run_ranks(6, |comm| rank_search(comm, &engine_of(comm.rank()), &db, &queries, &scoring, &options).unwrap());
    assert_same(&format!("DNA, {} beside 5 native ranks", device.label()), &want, &got[0]);
}

#[test]
fn a_failing_rank_fails_every_rank_with_its_message() {
    let (db, queries, scoring) = protein();
    // Rank 1's database differs (one subject fewer): every rank refuses to start.
    let fewer = db.part(0..db.len() - 1).unwrap();
    let outcomes = run_ranks(3, |comm| {
        let mine = if comm.rank() == 1 { &fewer } else { &db };
        rank_search(comm, &native(), mine, &queries, &scoring, &SearchOptions::default()).map(drop)
    });
    for o in &outcomes {
        let e = o.as_ref().unwrap_err().to_string();
        assert!(e.contains("rank 1: its database differs from rank 0's: 298 sequences"), "{e}");
    }
    // Rank 2's query is refused (a letter outside the alphabet): every rank returns,
    // rank 2 with its own error, the others naming it.
    let outcomes = run_ranks(3, |comm| {
        let mut mine = queries.clone();
        if comm.rank() == 2 {
            mine[3].residues[0] = 200;
        }
        rank_search(comm, &native(), &db, &mine, &scoring, &SearchOptions::default()).map(drop)
    });
    let own = outcomes[2].as_ref().unwrap_err().to_string();
    assert!(!own.starts_with("rank "), "{own}");
    for o in &outcomes[..2] {
        assert_eq!(o.as_ref().unwrap_err().to_string(), format!("rank 2: {own}"));
    }
}

#[test]
fn a_failure_in_the_middle_of_a_search_ends_every_rank() {
    let (db, queries, scoring) = protein();
    let options = SearchOptions::default();
    // Rank 0's sink fails at query `at` (the second, and the last): every rank returns
    // that error, and none waits for another.
    for at in [2, queries.len()] {
        for n in [2, 3] {
            let outcomes = run_ranks(n, |comm| {
                let engine = native();
                let share = share(comm, &engine, &db, calibrate(&engine, &db, &scoring, &options)).unwrap();
                let part = share.part(&db).unwrap();
                let part = part.as_ref().unwrap_or(&db);
                let searcher =
                    RankSearcher::new(comm, &engine, &db, part, &share, scoring.clone(), options.clone()).unwrap();
                let mut delivered = 0;
                let searched = searcher.search_all(&queries, |_| {
                    delivered += 1;
                    match delivered == at {
                        true => Err(clsw::Error::InvalidArgument("the disk is full".into())),
                        false => Ok(()),
                    }
                });
                (searched.map_err(|e| e.to_string()), delivered)
            });
            let context = format!("sink failing at query {at}, {n} ranks");
            assert_eq!(outcomes[0], (Err("invalid argument: the disk is full".into()), at), "{context}");
            for (rank, o) in outcomes.iter().enumerate().skip(1) {
                assert_eq!(o.0, Err("rank 0: invalid argument: the disk is full".into()), "{context}, rank {rank}");
            }
        }
    }
}

fn psse_alone(queries: &[&[u8]], subjects: &[&[u8]], opts: &PsseOptions) -> Vec<clsw::Result<PsseResult>> {
    psse::psse_run(&native(), queries, subjects, opts).unwrap().pairs
}

#[test]
fn psse_pairs_dealt_to_ranks_are_one_process_pairs() {
    let (db, queries, _) = protein();
    let q: Vec<&[u8]> = queries[..3].iter().map(|s| s.residues.as_slice()).collect();
    let subjects: Vec<&[u8]> = (0..4).map(|k| db.residues(k * 50)).collect();
    let opts = PsseOptions { shuffles: 100, keep_scores: true, ..PsseOptions::new(protein().2) };
    let want = psse_alone(&q, &subjects, &opts);
    // By queries (3 queries, 2 ranks) and by subjects (1 query, 3 ranks).
    for (queries, ranks) in [(&q[..], 2), (&q[..1], 3), (&q[..], 5)] {
        let want = if queries.len() == q.len() { &want[..] } else { &want[..subjects.len()] };
        let got = run_ranks(ranks, |comm| {
            let speed = clsw::mpi::psse_speed(&native(), queries, &subjects, &opts);
            clsw::mpi::psse_run(comm, &native(), queries, &subjects, &opts, speed).unwrap()
        });
        let run = got[0].as_ref().expect("rank 0's run");
        assert!(got[1..].iter().all(Option::is_none));
        assert_eq!(run.pairs.len(), want.len());
        for (w, g) in want.iter().zip(&run.pairs) {
            let (w, g) = (w.as_ref().unwrap(), g.as_ref().unwrap());
            assert_eq!(w, g, "{ranks} ranks");
            assert_eq!(w.e_value.to_bits(), g.e_value.to_bits());
        }
    }
}

#[test]
fn distances_counted_over_blocks_of_sites_are_one_process_distances() {
    use clsw::distance::generate::{AlignmentShape, genotypes, snp_alignment};
    use clsw::distance::{Coding, Options, compute_on, pack_alignment, pack_genotype_matrix};
    let shape = AlignmentShape { samples: 23, sites: 1_000, snp_density: 0.2, missing: 0.05, mean_run: 5, seed: 3 };
    let alignment =
        pack_alignment(&snp_alignment(&shape), Coding::Nucleotide { count_gaps: true, count_n: false }).unwrap();
    let genotype = pack_genotype_matrix(&genotypes(19, 777, 0.05, 0.2, 11), 19).unwrap();
    for (name, packed) in [("alignment", &alignment), ("genotypes", &genotype)] {
        for (want_compared, ignore_constant) in [(false, false), (true, false), (true, true)] {
            let opts = Options { want_compared, ignore_constant, ..Options::default() };
            let (want, _) = compute_on(&[], packed, &opts).unwrap();
            // Five ranks on 777 sites, and more ranks than a short block of sites.
            for n in [1, 2, 5] {
                let got = run_ranks(n, |comm| clsw::mpi::distance_run(comm, &[], packed, &opts).unwrap());
                let (dm, stats) = got[0].as_ref().expect("rank 0's matrix");
                let what = format!("{name}, compared {want_compared}, constant left out {ignore_constant}, {n} ranks");
                assert_eq!(dm, &want, "{what}");
                assert_eq!(stats.kept_sites, want.kept_sites, "{what}");
                assert!(got[1..].iter().all(Option::is_none));
            }
        }
    }
}

/// The `clsw` command and the C example under `mpirun` (Open MPI's, or MPICH's).
#[cfg(feature = "mpi")]
mod mpirun {
    use super::common::cli::{clsw, s, scratch_dir};
    use super::common::data_dir;
    use std::path::Path;
    use std::process::{Command, Output};
    use std::time::{Duration, Instant};

    /// `mpirun -n N` of `program args...`: ranks may outnumber the cores, and CI runs
    /// as root.
    fn mpirun(groups: &[(usize, &[&str])]) -> (Output, Duration) {
        let mut cmd = Command::new("mpirun");
        if is_open_mpi() {
            cmd.args(["--oversubscribe", "--allow-run-as-root"]);
        }
        for (k, (n, args)) in groups.iter().enumerate() {
            if k > 0 {
                cmd.arg(":");
            }
            cmd.args(["-n", &n.to_string()]).arg(env!("CARGO_BIN_EXE_clsw")).args(*args);
        }
        cmd.env("CLSW_DEVICE", "native").env("OMPI_MCA_rmaps_base_oversubscribe", "1");
        let start = Instant::now();
        let out = cmd.output().expect("running mpirun (install openmpi-bin)");
        (out, start.elapsed())
    }

    fn is_open_mpi() -> bool {
        Command::new("mpirun")
            .arg("--version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("Open MPI"))
    }

    fn same_as_one_process(args: &[&str]) {
        let (code, one, stderr) = clsw(args);
        assert_eq!(code, 0, "{stderr}");
        assert!(!one.is_empty());
        for n in [1, 2, 3] {
            let (out, _) = mpirun(&[(n, args)]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{n} ranks: {stderr}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), one, "{n} ranks, {args:?}");
        }
    }

    #[test]
    fn scan_under_mpirun_writes_what_one_process_writes() {
        let (q, d) = (data_dir().join("queries10.fasta"), data_dir().join("uniprot300.fasta"));
        same_as_one_process(&["scan", "-q", s(&q), "-d", s(&d)]);
        same_as_one_process(&["scan", "-q", s(&q), "-d", s(&d), "--outfmt", "sam", "--stats", "regression"]);
    }

    #[test]
    fn psse_under_mpirun_writes_what_one_process_writes() {
        let q = data_dir().join("queries10.fasta");
        let dir = scratch_dir();
        let subjects = dir.join("mpi-psse-subjects.fasta");
        let text = std::fs::read_to_string(data_dir().join("uniprot300.fasta")).unwrap();
        let three: Vec<&str> = text.split_inclusive('>').take(4).collect();
        std::fs::write(&subjects, three.concat().trim_end_matches('>')).unwrap();
        same_as_one_process(&["psse", "--query", s(&q), "--subject", s(&subjects), "--shuffles", "100"]);
    }

    /// `bindings/c/mpi_search.c` built with `mpicc` against libclsw.so and include/clsw.h.
    fn mpi_search_example() -> std::path::PathBuf {
        let dir = scratch_dir().join("mpi-c");
        std::fs::create_dir_all(&dir).unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/c/mpi_search.c");
        super::common::capi::compile_with("mpicc", "-std=c11", &dir, "mpi_search", &src)
    }

    #[test]
    fn the_c_example_on_ranks_prints_what_the_command_prints() {
        let bin = mpi_search_example();
        let (q, d) = (data_dir().join("queries10.fasta"), data_dir().join("uniprot300.fasta"));
        let (code, want, stderr) = clsw(&["scan", "-q", s(&q), "-d", s(&d), "--quiet"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(want.lines().count() > 20, "too few hits to compare:\n{want}");
        for n in [1, 2, 3] {
            let mut cmd = Command::new("mpirun");
            if is_open_mpi() {
                cmd.args(["--oversubscribe", "--allow-run-as-root"]);
            }
            let out = cmd
                .args(["-n", &n.to_string()])
                .arg(&bin)
                .arg(&d)
                .arg(&q)
                .env("CLSW_DEVICE", "native")
                .output()
                .unwrap();
            assert!(out.status.success(), "{n} ranks: {}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{n} ranks");
        }
    }

    #[test]
    fn distance_under_mpirun_writes_what_one_process_writes() {
        let bed = data_dir().join("distance/a");
        same_as_one_process(&["distance", "--bfile", s(&bed), "--variant", "cpu", "--outfmt", "long", "--compared"]);
        let table = data_dir().join("distance/a.tsv");
        same_as_one_process(&["distance", "--genotypes", s(&table), "--ignore-constant", "--metric", "1-ibs"]);
    }

    #[test]
    fn a_damaged_database_on_one_rank_ends_every_rank() {
        let dir = scratch_dir();
        let (good, bad) = (dir.join("mpi-good.clswdb"), dir.join("mpi-bad.clswdb"));
        let (code, _, stderr) = clsw(&["makedb", s(&data_dir().join("uniprot300.fasta")), "-o", s(&good)]);
        assert_eq!(code, 0, "{stderr}");
        let mut bytes = std::fs::read(&good).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x5a;
        std::fs::write(&bad, bytes).unwrap();
        let q = data_dir().join("queries10.fasta");
        let run = |db: &Path| vec!["scan".to_string(), "-q".into(), s(&q).into(), "-d".into(), s(db).into()];
        let (good_args, bad_args) = (run(&good), run(&bad));
        let (g, b): (Vec<&str>, Vec<&str>) =
            (good_args.iter().map(String::as_str).collect(), bad_args.iter().map(String::as_str).collect());
        let (out, took) = mpirun(&[(1, &g), (1, &b), (1, &g)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(out.stdout.is_empty(), "no rank writes results");
        assert!(stderr.contains("clsw: error: rank 1: ") && stderr.contains("mpi-bad.clswdb is damaged"), "{stderr}");
        assert_eq!(stderr.matches("clsw: error").count(), 1, "rank 0 alone says why: {stderr}");
        assert!(took < Duration::from_secs(30), "the job took {took:?} to end");
        let missing = run(&dir.join("mpi-missing.clswdb"));
        let m: Vec<&str> = missing.iter().map(String::as_str).collect();
        let (out, _) = mpirun(&[(2, &g), (1, &m)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("rank 2: ") && stderr.contains("mpi-missing.clswdb"), "{stderr}");
    }
}

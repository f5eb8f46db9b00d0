//! The search pipeline (`clsw::search`) and its output formats: scores equal to
//! the reference for every subject, hit order and filters, E-value sources, batching,
//! several workers, the multi-query pipeline, DNA strands, long queries, and the
//! ssearch36 comparison on committed data.
//!
//! Over 600 lines: the search is one pipeline, and its checks share its fixtures.

mod common;

use clsw::Engine;
use clsw::align::{Alignment, Op};
use clsw::device::{DeviceChoice, DeviceSpec};
use clsw::output::{
    FormatOptions, OutputFormat, ResultWriter, blast_coordinates, format_bit_score, format_evalue, tabular_line,
};
use clsw::reference::{LocalScore, score};
use clsw::scan::Variant;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::search::{
    EvalueSource, SearchOptions, SearchPlan, SearchResult, Searcher, Staged, StatsMethod, Strand, Strands,
    reverse_complement, stage,
};
use clsw::seq::{Alphabet, Database, EmptyRecords, Sequence};
use common::{Rng, data_dir, read_fasta, test_devices};
use rayon::prelude::*;

fn blosum62() -> Scoring {
    Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap())
}

fn uniprot300() -> Database {
    Database::from_fasta(&data_dir().join("uniprot300.fasta"), Alphabet::Protein, EmptyRecords::Error).unwrap().0
}

/// One engine per OpenCL device under test (skipped loudly, or failing under
/// CLSW_REQUIRE_DEVICE=1, when there is none).
fn device_engines() -> Vec<Engine> {
    test_devices().iter().map(|d| Engine::new(DeviceChoice::Index(d.info.index)).unwrap()).collect()
}

fn reference_engine() -> Engine {
    Engine::new(DeviceChoice::Native).unwrap()
}

/// Every OpenCL test device, then the native path.
fn all_engines() -> Vec<Engine> {
    let mut engines = device_engines();
    engines.push(reference_engine());
    engines
}

/// Every score equal, and every end cell equal where both have one (the default `team`
/// kernel scores without ends; the end of a hit is its alignment's).
#[track_caller]
fn assert_scores(got: &[LocalScore], want: &[LocalScore], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.score, w.score, "{what}: subject {k}");
        if g.end.is_some() && w.end.is_some() {
            assert_eq!(g.end, w.end, "{what}: subject {k}");
        }
    }
}

fn reference_scores(query: &[u8], db: &Database, sc: &Scoring) -> Vec<LocalScore> {
    (0..db.len()).into_par_iter().map(|k| score(query, db.residues(k), sc)).collect()
}

fn all_results(searcher: &Searcher, queries: &[Sequence]) -> Vec<SearchResult> {
    let mut out = Vec::new();
    searcher
        .search_all(queries, |r| {
            out.push(r);
            Ok(())
        })
        .unwrap();
    out
}

fn hit_summary(r: &SearchResult) -> Vec<(usize, i32, Strand, String, Option<Alignment>)> {
    r.hits.iter().map(|h| (h.subject, h.score, h.strand, format_evalue(h.evalue), h.alignment.clone())).collect()
}

#[test]
fn every_subject_score_equals_the_reference_on_uniprot300() {
    let db = uniprot300();
    let sc = blosum62();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    let queries = &queries[..4];
    let want: Vec<Vec<LocalScore>> = queries.iter().map(|q| reference_scores(&q.residues, &db, &sc)).collect();
    // Each device's own variant (team on GPUs, inter on CPU devices), and plain.
    let mut engines = vec![(reference_engine(), None)];
    for e in device_engines() {
        engines.push((e, None));
    }
    for e in device_engines() {
        engines.push((e, Some(Variant::Plain)));
    }
    for (engine, variant) in &engines {
        let opts = SearchOptions { variant: *variant, ..SearchOptions::default() };
        let searcher = Searcher::new(engine, &db, sc.clone(), opts).unwrap();
        let results = all_results(&searcher, queries);
        assert_eq!(results.len(), queries.len());
        for (i, r) in results.iter().enumerate() {
            assert_eq!(r.query_index, i);
            assert_eq!(r.scores.len(), db.len());
            for (k, (got, w)) in r.scores.iter().zip(&want[i]).enumerate() {
                let what = || format!("{variant:?} on {:?}: query {i}, subject {k} ({})", engine.describe(), db.id(k));
                if !engine.opencl_devices().is_empty() && *variant == Some(Variant::Plain) {
                    assert_eq!(got, w, "{}", what());
                } else {
                    // team and the native path scan score-only: an end only where a
                    // pass found one (inter gives every end).
                    assert_eq!(got.score, w.score, "{}", what());
                    assert!(got.end.is_none_or(|e| Some(e) == w.end), "{}", what());
                }
            }
            assert!(r.strands.iter().all(|&s| s == Strand::Plus));
            assert_eq!(r.cells, r.query_len as u64 * db.total_residues());
        }
    }
}

#[test]
fn hits_are_ordered_filtered_and_aligned() {
    let db = uniprot300();
    let sc = blosum62();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    let engine = reference_engine();
    let all = SearchOptions { max_hits: usize::MAX, evalue: f64::INFINITY, ..SearchOptions::default() };
    let searcher = Searcher::new(&engine, &db, sc.clone(), all).unwrap();
    let q = &queries[4];
    let r = searcher.search(q).unwrap();
    // Without limits every subject with a positive score is a hit, by E-value, ties by
    // score, then in database order.
    let positive = r.scores.iter().filter(|s| s.score > 0).count();
    assert_eq!(r.hits.len(), positive);
    for w in r.hits.windows(2) {
        let order =
            w[0].evalue.total_cmp(&w[1].evalue).then(w[1].score.cmp(&w[0].score)).then(w[0].subject.cmp(&w[1].subject));
        assert_eq!(order, std::cmp::Ordering::Less, "{:?} / {:?}", w[0], w[1]);
    }
    for h in &r.hits {
        let a = h.alignment.as_ref().expect("alignment of every hit");
        assert_eq!(a.score, h.score);
        assert_eq!(a.rescore(&q.residues, db.residues(h.subject), &sc), h.score as i64);
        assert_eq!(Some((a.query_end, a.subject_end)), score(&q.residues, db.residues(h.subject), &sc).end);
        // The hit's alignment, computed before its end cell only, is the reference's.
        assert_eq!(Some(a), clsw::reference::align(&q.residues, db.residues(h.subject), &sc).as_ref());
    }
    // -b and -E: the first hits of the unlimited list, cut by count and E-value.
    let limited = Searcher::new(
        &engine,
        &db,
        sc.clone(),
        SearchOptions { max_hits: 5, evalue: 1e-3, ..SearchOptions::default() },
    )
    .unwrap()
    .search(q)
    .unwrap();
    let want: Vec<usize> = r.hits.iter().filter(|h| h.evalue <= 1e-3).take(5).map(|h| h.subject).collect();
    assert!(!want.is_empty());
    assert_eq!(limited.hits.iter().map(|h| h.subject).collect::<Vec<_>>(), want);
    // Alignments can be left out.
    let bare = Searcher::new(&engine, &db, sc, SearchOptions { alignments: false, ..SearchOptions::default() })
        .unwrap()
        .search(q)
        .unwrap();
    assert!(!bare.hits.is_empty() && bare.hits.iter().all(|h| h.alignment.is_none()));
}

/// A database holding copies of its subjects (the classic benchmark's is 20 copies of
/// uniprot20k): copies are checked and aligned once, and every copy's hit still carries
/// the reference's alignment, on every engine.
#[test]
fn copies_of_a_subject_get_the_reference_alignment_each() {
    let db = uniprot300();
    let sc = blosum62();
    let q = &read_fasta("queries10.fasta", Alphabet::Protein)[1];
    let mut seqs: Vec<Sequence> = Vec::new();
    for round in 0..3 {
        for k in 0..60 {
            let mut s = db.sequence(k);
            s.id = format!("c{round}_{}", s.id);
            seqs.push(s);
        }
    }
    let copies = Database::from_sequences(Alphabet::Protein, seqs);
    let all =
        SearchOptions { max_hits: 1000, evalue: f64::INFINITY, stats: StatsMethod::None, ..SearchOptions::default() };
    for engine in all_engines() {
        let r = Searcher::new(&engine, &copies, sc.clone(), all.clone()).unwrap().search(q).unwrap();
        assert_eq!(r.hits.len(), r.scores.iter().filter(|s| s.score > 0).count());
        assert!(r.hits.len() >= 3 * 20, "{} hits", r.hits.len());
        for h in &r.hits {
            let want = clsw::reference::align(&q.residues, copies.residues(h.subject), &sc);
            assert_eq!(h.alignment.as_ref(), want.as_ref(), "hit {}", copies.id(h.subject));
        }
    }
}

/// Hits come by E-value (BLAST's and ssearch36's order), ties by score then database
/// order; length-corrected E-values put some lower scores first, and a search without
/// E-values ranks by score.
#[test]
fn hits_are_ranked_by_evalue_then_score() {
    let db = uniprot300();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    let engine = reference_engine();
    let options = SearchOptions { max_hits: 300, evalue: 1e6, ..SearchOptions::default() };
    let searcher = Searcher::new(&engine, &db, blosum62(), options).unwrap();
    let mut out_of_score_order = 0;
    for r in all_results(&searcher, &queries) {
        assert_eq!(r.statistics.source, EvalueSource::Regression);
        for (a, b) in r.hits.iter().zip(&r.hits[1..]) {
            let order = a.evalue.total_cmp(&b.evalue).then(b.score.cmp(&a.score)).then(a.subject.cmp(&b.subject));
            assert_eq!(order, std::cmp::Ordering::Less, "{}: {a:?} before {b:?}", r.query_id);
            out_of_score_order += (a.score < b.score) as usize;
        }
    }
    assert!(out_of_score_order > 0, "no hit with a lower score ranked first: the test shows nothing");
    // No E-values: by score.
    let small = Database::from_sequences(Alphabet::Protein, (0..20).map(|k| db.sequence(k)).collect());
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(7, 3).unwrap());
    let none = SearchOptions { stats: StatsMethod::None, ..SearchOptions::default() };
    let r = Searcher::new(&engine, &small, sc, none).unwrap().search(&queries[0]).unwrap();
    assert_eq!(r.statistics.source, EvalueSource::None);
    assert!(r.hits.len() > 1);
    assert!(
        r.hits
            .windows(2)
            .all(|w| (w[0].score, std::cmp::Reverse(w[0].subject)) > (w[1].score, std::cmp::Reverse(w[1].subject)))
    );
}

#[test]
fn evalues_fall_with_score_and_name_their_source() {
    let db = uniprot300();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    let engine = reference_engine();
    let q = &queries[6];

    // The whole database (299 subjects): ssearch36's regression, blended with BLAST's
    // published parameters (weight ln(299/100) / ln 5 for the regression).
    let r = Searcher::new(&engine, &db, blosum62(), SearchOptions::default()).unwrap().search(q).unwrap();
    let st = &r.statistics;
    assert_eq!(st.source, EvalueSource::Regression);
    let blend = st.blend.as_ref().unwrap();
    assert_eq!(blend.prior.source, EvalueSource::Published);
    assert!((blend.weight - (299f64 / 100.0).ln() / 5f64.ln()).abs() < 1e-12, "{}", blend.weight);
    for n in [50, 400, 3000] {
        for s in 1..300 {
            let (e0, e1) = (st.evalue(s, q.len(), n), st.evalue(s + 1, q.len(), n));
            // Strictly falling once below the number of subjects (where it saturates).
            assert!(e1 <= e0 && (e0 > 0.9 * 299.0 || e1 < e0), "{s}: {e0} {e1}");
            assert!(st.bit_score(s + 1, q.len(), n) > st.bit_score(s, q.len(), n));
        }
    }
    // Among hits: a higher score on a subject no longer gives a smaller E-value (or
    // both are 0: beyond a z-score of about 550 the regression's underflows, as
    // ssearch36's does).
    for a in &r.hits {
        for b in &r.hits {
            if a.score > b.score && db.seq_len(a.subject) <= db.seq_len(b.subject) {
                assert!(a.evalue < b.evalue || b.evalue == 0.0, "{a:?}\n{b:?}");
            }
        }
        assert!(a.evalue <= 10.0);
    }
    // The best hit (a near-identical homolog) is highly significant.
    assert!(r.hits[0].evalue < 1e-50, "{}", r.hits[0].evalue);

    // 40 subjects: below the blend, BLAST's published parameters alone (blastp's
    // E-value: the database's residues over the subject's length times the pair's).
    let small = Database::from_sequences(Alphabet::Protein, (0..40).map(|k| db.sequence(k * 7)).collect());
    let r = Searcher::new(&engine, &small, blosum62(), SearchOptions::default()).unwrap().search(q).unwrap();
    assert_eq!(r.statistics.source, EvalueSource::Published);
    assert!(r.statistics.blend.is_none() && r.statistics.note.is_none());
    assert_eq!(r.statistics.params.unwrap().lambda, 0.267);
    let h = &r.hits[0];
    let blast = clsw::stats::BlastParameters::published("BLOSUM62", 11, 1).unwrap();
    let want = blast.evalue(h.score as f64, q.len(), small.seq_len(h.subject), small.total_residues() as f64);
    assert!((h.evalue - want).abs() < 1e-9 * want.max(1e-300), "{} {want}", h.evalue);

    // BLOSUM50 10/2 is not in BLAST's tables: the fit to shuffled subjects, and the
    // threshold applies to its E-values.
    let b50 = Scoring::new(Matrix::builtin("BLOSUM50").unwrap(), Gaps::affine(10, 2).unwrap());
    let positive = |r: &SearchResult| r.scores.iter().filter(|s| s.score > 0).count();
    let opts = SearchOptions { evalue: 1.0, max_hits: 1000, ..SearchOptions::default() };
    let r = Searcher::new(&engine, &small, b50.clone(), opts.clone()).unwrap().search(q).unwrap();
    assert_eq!(r.statistics.source, EvalueSource::Shuffled);
    let note = r.statistics.note.as_deref().unwrap();
    assert!(note.contains("BLAST publishes no parameters"), "{note}");
    assert!(r.hits.iter().all(|h| h.evalue <= 1.0 && h.bit_score > 0.0));
    assert!(r.hits.len() < positive(&r), "{} of {}", r.hits.len(), positive(&r));

    // Without statistics: no E-values, no threshold applied.
    let opts = SearchOptions { stats: StatsMethod::None, evalue: 1e-30, ..opts };
    let r = Searcher::new(&engine, &small, b50, opts).unwrap().search(q).unwrap();
    assert_eq!(r.statistics.source, EvalueSource::None);
    assert!(r.statistics.params.is_none() && r.statistics.regression.is_none());
    assert_eq!(r.hits.len(), positive(&r));
    assert!(r.hits.iter().all(|h| h.evalue.is_nan() && h.bit_score.is_nan()));

    // ssearch36's regression: E-values fall and bit scores rise with the score, at
    // every length, and the best hit is as significant as with the fit.
    let opts = SearchOptions { stats: StatsMethod::Regression, ..SearchOptions::default() };
    let r = Searcher::new(&engine, &db, blosum62(), opts).unwrap().search(q).unwrap();
    let st = &r.statistics;
    assert_eq!((st.source, st.params), (EvalueSource::Regression, None));
    for n in [50, 400, 3000] {
        for s in 1..300 {
            let (e0, e1) = (st.evalue(s, q.len(), n), st.evalue(s + 1, q.len(), n));
            assert!(e1 <= e0 && (e0 > 0.9 * 299.0 || e1 < e0), "{s}: {e0} {e1}");
            assert!(st.bit_score(s + 1, q.len(), n) > st.bit_score(s, q.len(), n));
        }
    }
    assert!(r.hits[0].evalue < 1e-50, "{}", r.hits[0].evalue);
}

fn write_all(
    format: OutputFormat,
    results: &[SearchResult],
    queries: &[Sequence],
    db: &Database,
    sc: &Scoring,
) -> String {
    let mut w = ResultWriter::new(format, Vec::new(), db, sc, FormatOptions::default());
    for r in results {
        w.write(r, &queries[r.query_index]).unwrap();
    }
    String::from_utf8(w.finish().unwrap()).unwrap()
}

#[test]
fn blast_tabular_columns_match_the_alignments() {
    let db = uniprot300();
    let sc = blosum62();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein)[..5].to_vec();
    let engine = reference_engine();
    let searcher = Searcher::new(&engine, &db, sc.clone(), SearchOptions::default()).unwrap();
    let results = all_results(&searcher, &queries);
    let text = write_all(OutputFormat::Tabular, &results, &queries, &db, &sc);
    let lines: Vec<&str> = text.lines().collect();
    let hits: Vec<(&SearchResult, &clsw::search::Hit)> =
        results.iter().flat_map(|r| r.hits.iter().map(move |h| (r, h))).collect();
    assert_eq!(lines.len(), hits.len());
    assert!(hits.len() > 20);
    for (line, (r, h)) in lines.iter().zip(&hits) {
        let c: Vec<&str> = line.split('\t').collect();
        assert_eq!(c.len(), 12, "{line}");
        let a = h.alignment.as_ref().unwrap();
        assert_eq!(c[0], r.query_id);
        assert_eq!(c[1], db.id(h.subject));
        // pident: identical columns over all columns, two decimals.
        let len: usize = c[3].parse().unwrap();
        let pident: f64 = c[2].parse().unwrap();
        assert_eq!(len, a.length());
        assert!((pident - 100.0 * a.identities as f64 / len as f64).abs() <= 0.005 + 1e-9, "{line}");
        let mismatch: usize = c[4].parse().unwrap();
        let gapopen: usize = c[5].parse().unwrap();
        assert_eq!(mismatch, a.mismatches);
        assert_eq!(gapopen, a.gap_opens);
        assert_eq!(a.identities + mismatch + a.gap_columns, len);
        let n: Vec<usize> = c[6..10].iter().map(|x| x.parse().unwrap()).collect();
        // 1-based inclusive spans: query residues are M + I columns, subject M + D.
        let count =
            |ops: &[Op]| -> usize { a.ops.iter().filter(|(o, _)| ops.contains(o)).map(|&(_, k)| k as usize).sum() };
        assert_eq!(n[1] - n[0] + 1, count(&[Op::Match, Op::Mismatch, Op::Insertion]), "{line}");
        assert_eq!(n[3] - n[2] + 1, count(&[Op::Match, Op::Mismatch, Op::Deletion]), "{line}");
        assert!(n[0] >= 1 && n[1] <= r.query_len && n[3] <= db.seq_len(h.subject));
        assert_eq!((n[0], n[1], n[2], n[3]), blast_coordinates(a, h.strand, r.query_len));
        assert_eq!(c[10], format_evalue(h.evalue));
        assert_eq!(c[11], format_bit_score(h.bit_score));
        let e: f64 = c[10].parse().unwrap();
        assert!(e <= 10.0);
        assert!((c[11].parse::<f64>().unwrap() - h.bit_score).abs() <= 1.0);
        assert_eq!(tabular_line(r, h, &db, false).unwrap(), *line);
        let ext = tabular_line(r, h, &db, true).unwrap();
        assert_eq!(ext, format!("{line}\t{}\t{}", h.score, a.cigar(true)));
    }
    // The extended form starts with its column names.
    let ext = write_all(OutputFormat::TabularExt, &results, &queries, &db, &sc);
    assert!(ext.starts_with("# qseqid\tsseqid\tpident"));
    assert_eq!(ext.lines().count(), hits.len() + 1);
}

/// Query letters consumed by a CIGAR (M, I, S, =, X) and reference letters (M, D, =, X).
fn cigar_lengths(cigar: &str) -> (usize, usize) {
    let (mut q, mut r, mut num) = (0, 0, 0);
    for ch in cigar.chars() {
        if let Some(d) = ch.to_digit(10) {
            num = num * 10 + d as usize;
            continue;
        }
        match ch {
            'M' | '=' | 'X' => {
                q += num;
                r += num
            }
            'I' | 'S' => q += num,
            'D' | 'N' => r += num,
            other => panic!("unexpected CIGAR op {other} in {cigar}"),
        }
        num = 0;
    }
    (q, r)
}

fn check_sam(text: &str, db: &Database, expect_records: usize) {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("@HD\tVN:1.6\tSO:unsorted"));
    let mut refs = std::collections::HashMap::new();
    let mut records = 0;
    for line in lines {
        if let Some(sq) = line.strip_prefix("@SQ\t") {
            let f: Vec<&str> = sq.split('\t').collect();
            let name = f[0].strip_prefix("SN:").unwrap();
            let len: usize = f[1].strip_prefix("LN:").unwrap().parse().unwrap();
            assert!(refs.insert(name.to_string(), len).is_none(), "duplicate @SQ {name}");
            continue;
        }
        if line.starts_with('@') {
            assert!(line.starts_with("@PG\tID:clsw"), "{line}");
            continue;
        }
        records += 1;
        let f: Vec<&str> = line.split('\t').collect();
        assert!(f.len() >= 11, "{line}");
        let flag: u32 = f[1].parse().unwrap();
        let pos: usize = f[3].parse().unwrap();
        if flag & 4 != 0 {
            assert_eq!((f[2], pos, f[5]), ("*", 0, "*"));
            continue;
        }
        let (q, r) = cigar_lengths(f[5]);
        assert_eq!(q, f[9].len(), "CIGAR must consume the whole query: {line}");
        let reflen = refs[f[2]];
        assert!(pos >= 1 && pos + r - 1 <= reflen, "{line}");
        let k = (0..db.len()).find(|&k| db.id(k) == f[2]).unwrap();
        assert_eq!(db.seq_len(k), reflen);
        let score: i32 = f.iter().find_map(|t| t.strip_prefix("AS:i:")).unwrap().parse().unwrap();
        assert!(score > 0);
    }
    assert_eq!(records, expect_records);
}

#[test]
fn sam_records_parse_and_consume_the_query() {
    let db = uniprot300();
    let sc = blosum62();
    let mut queries = read_fasta("queries10.fasta", Alphabet::Protein)[..3].to_vec();
    // A query with no hit at all gives an unmapped record.
    queries.push(Sequence::from_letters("nohit", b"G", Alphabet::Protein).unwrap());
    let engine = reference_engine();
    let opts = SearchOptions { max_hits: 10, ..SearchOptions::default() };
    let searcher = Searcher::new(&engine, &db, sc.clone(), opts).unwrap();
    let results = all_results(&searcher, &queries);
    assert!(results[3].hits.is_empty());
    let records = results.iter().map(|r| r.hits.len().max(1)).sum();
    let text = write_all(OutputFormat::Sam, &results, &queries, &db, &sc);
    check_sam(&text, &db, records);
    // One primary record per query with hits; soft clips where the query overhangs.
    let primaries = text.lines().filter(|l| !l.starts_with('@')).filter(|l| l.split('\t').nth(1) == Some("0")).count();
    assert_eq!(primaries, 3);
    assert!(text.contains("nohit\t4\t*\t0\t0\t*"));
    assert!(text.lines().any(|l| l.split('\t').nth(5).is_some_and(|c| c.contains('S'))));
    // Written query by query: the header and the first query's records are in the
    // file once its result is written, before the next query's.
    let path = std::env::temp_dir().join(format!("clsw-sam-stream-{}.sam", std::process::id()));
    let mut w =
        ResultWriter::new(OutputFormat::Sam, std::fs::File::create(&path).unwrap(), &db, &sc, FormatOptions::default());
    w.write(&results[0], &queries[0]).unwrap();
    let so_far = std::fs::read_to_string(&path).unwrap();
    assert_eq!(so_far.lines().filter(|l| l.starts_with("@SQ")).count(), db.len());
    assert_eq!(so_far.lines().filter(|l| !l.starts_with('@')).count(), results[0].hits.len());
    w.write(&results[1], &queries[1]).unwrap();
    w.finish().unwrap();
    let whole = std::fs::read_to_string(&path).unwrap();
    assert!(whole.starts_with(&so_far) && whole.len() > so_far.len());
    std::fs::remove_file(&path).unwrap();
    // =/X CIGARs on request.
    let mut w = ResultWriter::new(
        OutputFormat::Sam,
        Vec::new(),
        &db,
        &sc,
        FormatOptions { sam_eqx: true, ..FormatOptions::default() },
    );
    w.write(&results[0], &queries[0]).unwrap();
    let eqx = String::from_utf8(w.finish().unwrap()).unwrap();
    check_sam(&eqx, &db, results[0].hits.len());
    assert!(eqx.lines().filter(|l| !l.starts_with('@')).all(|l| !l.split('\t').nth(5).unwrap().contains('M')));
}

#[test]
fn json_parses_with_sources_and_nulls() {
    let db = uniprot300();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein)[..2].to_vec();
    let engine = reference_engine();
    let sc = blosum62();
    let results = all_results(&Searcher::new(&engine, &db, sc.clone(), SearchOptions::default()).unwrap(), &queries);
    let text = write_all(OutputFormat::Json, &results, &queries, &db, &sc);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 2);
    for (o, r) in arr.iter().zip(&results) {
        assert_eq!(o["query"], r.query_id.as_str());
        assert_eq!(o["evalue_source"], "regression");
        assert_eq!(o["blend"]["prior_source"], "published");
        assert_eq!(o["recomputed"], r.recomputed);
        assert_eq!(o["database_sequences"], 299);
        let hits = o["hits"].as_array().unwrap();
        assert_eq!(hits.len(), r.hits.len());
        for (j, (hj, h)) in hits.iter().zip(&r.hits).enumerate() {
            assert_eq!(hj["rank"], j + 1);
            assert_eq!(hj["score"], h.score);
            assert_eq!(hj["subject_index"], h.subject);
            assert!((hj["evalue"].as_f64().unwrap() - h.evalue).abs() <= 1e-12 * h.evalue.max(1e-300));
            assert_eq!(hj["alignment"]["cigar"], h.alignment.as_ref().unwrap().cigar(true).as_str());
        }
    }
    // No statistics: E-values and bit scores are null.
    let small = Database::from_sequences(Alphabet::Protein, (0..20).map(|k| db.sequence(k)).collect());
    let b50 = Scoring::new(Matrix::builtin("BLOSUM50").unwrap(), Gaps::affine(10, 2).unwrap());
    let none = SearchOptions { stats: StatsMethod::None, ..SearchOptions::default() };
    let results = all_results(&Searcher::new(&engine, &small, b50.clone(), none).unwrap(), &queries);
    let v: serde_json::Value =
        serde_json::from_str(&write_all(OutputFormat::Json, &results, &queries, &small, &b50)).unwrap();
    assert_eq!(v[0]["evalue_source"], "none");
    assert!(v[0]["lambda"].is_null());
    let h = &v[0]["hits"][0];
    assert!(h["evalue"].is_null() && h["bit_score"].is_null() && h["score"].as_i64().unwrap() > 0);
    // An empty run is an empty array.
    let empty: serde_json::Value =
        serde_json::from_str(&write_all(OutputFormat::Json, &[], &queries, &db, &sc)).unwrap();
    assert_eq!(empty, serde_json::json!([]));
}

#[test]
fn pairwise_report_lists_and_shows_hits() {
    let db = uniprot300();
    let sc = blosum62();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein)[1..2].to_vec();
    let engine = reference_engine();
    let results = all_results(&Searcher::new(&engine, &db, sc.clone(), SearchOptions::default()).unwrap(), &queries);
    let text = write_all(OutputFormat::Pairwise, &results, &queries, &db, &sc);
    assert!(text.starts_with(&format!("Query= {}", queries[0].id)));
    assert!(text.contains("E-values: regression (mean ") && text.contains("blended with published"), "{text}");
    assert!(text.contains("Sequences producing significant alignments:"));
    assert!(text.matches("\nQuery  ").count() >= results[0].hits.len());
    assert_eq!(text.matches("\n>").count(), results[0].hits.len());
}

#[test]
fn forced_batches_give_identical_results() {
    let db = uniprot300();
    let sc = blosum62();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein)[..3].to_vec();
    for engine in &all_engines() {
        let whole = Searcher::new(engine, &db, sc.clone(), SearchOptions::default()).unwrap();
        let batched = Searcher::new(
            engine,
            &db,
            sc.clone(),
            SearchOptions { batch_residues: Some(20_000), ..SearchOptions::default() },
        )
        .unwrap();
        if engine.uses_opencl() {
            assert_eq!(whole.plan()[0].2, 1);
            // 169,296 residues in batches of at most 20,000 (longer subjects alone).
            assert!(batched.plan()[0].2 >= 9, "{:?}", batched.plan());
        }
        let a = all_results(&whole, &queries);
        let b = all_results(&batched, &queries);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.scores, y.scores, "{:?}", engine.describe());
            assert_eq!(hit_summary(x), hit_summary(y));
            assert_eq!(x.recomputed, y.recomputed);
        }
        if engine.uses_opencl() {
            // team scans a batch's queries in one launch (query slots) where the
            // others take them one by one.
            let opts =
                SearchOptions { variant: Some(Variant::Team), batch_residues: Some(20_000), ..Default::default() };
            let team = all_results(&Searcher::new(engine, &db, sc.clone(), opts).unwrap(), &queries);
            for (x, y) in a.iter().zip(&team) {
                // Score only: the ends of all but the hits are left out.
                let score = |r: &SearchResult| r.scores.iter().map(|s| s.score).collect::<Vec<_>>();
                assert_eq!(score(x), score(y), "team in batches on {:?}", engine.describe());
                assert_eq!(hit_summary(x), hit_summary(y));
            }
        }
    }
}

#[test]
fn multi_query_pipeline_equals_one_by_one_and_workers_split_the_database() {
    let db = uniprot300();
    let sc = blosum62();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein)[..5].to_vec();
    let mut engines = all_engines();
    // Two workers: an OpenCL device beside the native path, each with half the residues.
    if !device_engines().is_empty() {
        engines.push(Engine::new(vec![DeviceChoice::Cpu, DeviceChoice::Native]).unwrap());
    }
    let want: Vec<SearchResult> = {
        let s = Searcher::new(&engines[engines.len() - 1], &db, sc.clone(), SearchOptions::default()).unwrap();
        queries.iter().map(|q| s.search(q).unwrap()).collect()
    };
    for engine in &engines {
        let s = Searcher::new(engine, &db, sc.clone(), SearchOptions::default()).unwrap();
        let plan = s.plan();
        assert_eq!(plan.len(), engine.describe().len());
        assert_eq!(plan.first().unwrap().1.start, 0);
        assert_eq!(plan.last().unwrap().1.end, db.len());
        for w in plan.windows(2) {
            assert_eq!(w[0].1.end, w[1].1.start);
            assert!(!w[0].1.is_empty());
        }
        let piped = all_results(&s, &queries);
        let single: Vec<SearchResult> = queries.iter().map(|q| s.search(q).unwrap()).collect();
        assert_eq!(piped.len(), queries.len());
        for ((p, o), w) in piped.iter().zip(&single).zip(&want) {
            assert_eq!(p.scores, o.scores);
            assert_scores(&p.scores, &w.scores, &format!("{:?}", engine.describe()));
            assert_eq!(hit_summary(p), hit_summary(o));
            assert_eq!(hit_summary(p), hit_summary(w));
            assert_eq!(p.statistics.params, w.statistics.params);
        }
    }
}

/// A search laid out for the selected devices while they open (`Engine::open_in_background`,
/// `SearchPlan`) gives what `Searcher::new` gives, on one device (its residues written by
/// the upload) and on two shares of it building the portable kernels (their residues
/// staged before: `stage`); residues staged for other shares are not used; a plan is
/// refused by an engine of other devices, and a selection that fails is the opening's
/// error.
#[test]
fn a_search_planned_while_the_devices_open_equals_one_made_after() {
    let db = uniprot300();
    let sc = blosum62();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein)[..3].to_vec();
    let cpu = reference_engine();
    let want = all_results(&Searcher::new(&cpu, &db, sc.clone(), SearchOptions::default()).unwrap(), &queries);
    for engine in device_engines() {
        let index = engine.opencl_devices()[0].info.index;
        // The second opening builds the portable kernels on every OpenCL device it opens.
        for (spec, portable) in [(format!("{index}"), false), (format!("{index},{index},native"), true)] {
            let opening = Engine::open_in_background(spec.parse::<DeviceSpec>().unwrap().with_portable(portable));
            let backends = opening.selected().expect("the devices are selected");
            assert_eq!(backends.len(), spec.split(',').count());
            let plan = SearchPlan::new(&backends, &db, sc.clone(), SearchOptions::default()).unwrap();
            let (opened, seconds) = opening.join().unwrap();
            assert!(seconds >= 0.0);
            assert!(opened.opencl_devices().iter().all(|d| d.portable() == portable), "{spec}");
            let labels = opened.describe();
            assert_eq!(
                labels.iter().filter(|l| l.ends_with(", portable kernels")).count(),
                if portable { 2 } else { 0 }
            );
            let staged =
                if portable { stage(&opened, &db, &SearchOptions::default()).unwrap() } else { Staged::default() };
            let s = plan.upload(&opened, staged).unwrap();
            assert_eq!(s.plan().len(), backends.len());
            assert_same_results(&all_results(&s, &queries), &want, &spec);
        }
        // Planned for two shares, offered one device: refused, not scanned in part.
        let two = Engine::new(vec![DeviceChoice::Index(index), DeviceChoice::Index(index)]).unwrap();
        let plan = SearchPlan::new(&two.backends(), &db, sc.clone(), SearchOptions::default()).unwrap();
        let e = plan.upload(&engine, Staged::default()).err().expect("a plan for other devices is refused").to_string();
        assert!(e.contains("planned for"), "{e}");
        // Staged on another opening of the same device (another context): not used.
        let plan = SearchPlan::new(&engine.backends(), &db, sc.clone(), SearchOptions::default()).unwrap();
        let again = Engine::new(DeviceChoice::Index(index)).unwrap();
        let staged = stage(&again, &db, &SearchOptions::default()).unwrap();
        assert_same_results(&all_results(&plan.upload(&engine, staged).unwrap(), &queries), &want, "staged elsewhere");
        // Staged for two shares, uploaded for one: the share's own residues are written.
        let plan = SearchPlan::new(&engine.backends(), &db, sc.clone(), SearchOptions::default()).unwrap();
        let staged = stage(&two, &db, &SearchOptions::default()).unwrap();
        assert_same_results(&all_results(&plan.upload(&engine, staged).unwrap(), &queries), &want, "staged for two");
    }
    let opening = Engine::open_in_background(DeviceChoice::Index(99));
    assert!(opening.selected().is_none());
    assert!(opening.join().err().expect("no device 99").to_string().contains("99"));
}

/// More queries than a device keeps launches' inputs for before it pauses to release
/// them (`RETIRE_EVERY`, 64): the streamed scan gives what the native path gives for
/// every one, across the pause.
#[test]
fn a_long_query_list_streams_across_the_release_pause() {
    let db = uniprot300();
    let sc = blosum62();
    let base = read_fasta("queries10.fasta", Alphabet::Protein);
    // 70 queries of one length (one kernel build on each device), cut from the ten.
    let queries: Vec<Sequence> = (0..70)
        .map(|i| {
            let q = &base[i % base.len()].residues;
            let from = (i / base.len()) * 3 % (q.len() - 40 + 1);
            Sequence { id: format!("q{i}"), description: String::new(), residues: q[from..from + 40].to_vec() }
        })
        .collect();
    let cpu = reference_engine();
    let want = all_results(&Searcher::new(&cpu, &db, sc.clone(), SearchOptions::default()).unwrap(), &queries);
    for engine in device_engines() {
        let s = Searcher::new(&engine, &db, sc.clone(), SearchOptions::default()).unwrap();
        assert_same_results(&all_results(&s, &queries), &want, &format!("{:?}", engine.describe()));
    }
}

/// The same results, query by query: every subject's score and the hits.
#[track_caller]
fn assert_same_results(got: &[SearchResult], want: &[SearchResult], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert_scores(&g.scores, &w.scores, &format!("{} on {what}", g.query_id));
        assert_eq!(hit_summary(g), hit_summary(w), "{} on {what}", g.query_id);
    }
}

/// `Searcher::prepare` loads every program the queries' scans launch: the search that
/// follows loads none, and its results are those of an unprepared search.
#[test]
fn a_prepared_search_loads_no_program() {
    let db = uniprot300();
    let sc = blosum62();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    for engine in device_engines() {
        let unprepared =
            all_results(&Searcher::new(&engine, &db, sc.clone(), SearchOptions::default()).unwrap(), &queries);
        let fresh = Engine::new(DeviceChoice::Index(engine.opencl_devices()[0].info.index)).unwrap();
        let dev = fresh.opencl_devices()[0];
        let s = Searcher::new(&fresh, &db, sc.clone(), SearchOptions::default()).unwrap();
        let loads = |d: &clsw::device::ClDevice| {
            let p = d.program_stats();
            p.built_from_source + p.loaded_from_disk
        };
        let before = loads(dev);
        s.prepare(&queries).unwrap();
        let prepared = loads(dev);
        assert!(prepared > before, "prepare loaded no program on {:?}", fresh.describe());
        let got = all_results(&s, &queries);
        assert_eq!(loads(dev), prepared, "the search loaded programs after prepare on {:?}", fresh.describe());
        assert_same_results(&got, &unprepared, &format!("{:?}", fresh.describe()));
    }
}

/// Several queries' CPU work runs at once, yet results come in query order; called
/// from a thread of a one-thread pool it still finishes (no waiting on that pool); an
/// error from the sink stops the search and is returned.
#[test]
fn pipeline_keeps_query_order_in_any_pool_and_stops_on_sink_errors() {
    let db = uniprot300();
    let sc = blosum62();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    let engine = reference_engine();
    let s = Searcher::new(&engine, &db, sc, SearchOptions::default()).unwrap();
    let want = all_results(&s, &queries);
    assert_eq!(want.iter().map(|r| r.query_index).collect::<Vec<_>>(), (0..queries.len()).collect::<Vec<_>>());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let inside = pool.install(|| all_results(&s, &queries));
    for (a, b) in inside.iter().zip(&want) {
        assert_eq!((a.query_index, hit_summary(a)), (b.query_index, hit_summary(b)));
    }
    let mut seen = 0;
    let err = s
        .search_all(&queries, |_| {
            seen += 1;
            if seen == 3 { Err(clsw::Error::InvalidArgument("sink full".into())) } else { Ok(()) }
        })
        .unwrap_err();
    assert!(err.to_string().contains("sink full"), "{err}");
    assert_eq!(seen, 3);
}

/// Shuffle statistics score the shuffles on the strands searched, as the subjects: a
/// search of the minus strand alone has the E-values of a plus-strand search with the
/// reverse-complemented query (the same scores against the same shuffles).
#[test]
fn shuffle_statistics_follow_the_strands_searched() {
    let pairs = read_fasta("dna_pairs.fasta", Alphabet::Dna);
    let db = Database::from_sequences(Alphabet::Dna, pairs.iter().filter(|s| s.id.ends_with("_b")).cloned().collect());
    let sc = Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(12, 4).unwrap());
    let query = pairs.iter().find(|s| s.id == "dna7_a").unwrap();
    let mut rc = query.clone();
    rc.residues = reverse_complement(&query.residues);
    let engine = reference_engine();
    let search = |q: &Sequence, strands| {
        let opts = SearchOptions { strands, stats: StatsMethod::Shuffle, evalue: 1e9, ..SearchOptions::default() };
        Searcher::new(&engine, &db, sc.clone(), opts).unwrap().search(q).unwrap()
    };
    let (minus, plus_rc) = (search(query, Strands::Minus), search(&rc, Strands::Plus));
    assert_eq!(minus.statistics.source, EvalueSource::Shuffled);
    assert_eq!(minus.statistics.params, plus_rc.statistics.params);
    let evalues = |r: &SearchResult| r.hits.iter().map(|h| (h.subject, h.evalue)).collect::<Vec<_>>();
    assert_eq!(evalues(&minus), evalues(&plus_rc));
    // Both strands: each shuffle's score is its better strand's, so the fit differs.
    assert_ne!(search(query, Strands::Both).statistics.params, minus.statistics.params);
}

#[test]
fn dna_both_strands_find_the_reverse_complemented_pair() {
    let pairs = read_fasta("dna_pairs.fasta", Alphabet::Dna);
    let a: Vec<Sequence> = pairs.iter().filter(|s| s.id.ends_with("_a")).cloned().collect();
    let b: Vec<Sequence> = pairs.iter().filter(|s| s.id.ends_with("_b")).cloned().collect();
    let db = Database::from_sequences(Alphabet::Dna, b.clone());
    let sc = Scoring::new(Matrix::builtin("EDNAFULL").unwrap(), Gaps::affine(12, 4).unwrap());
    let query = a.iter().find(|s| s.id == "dna7_a").unwrap();
    let k7 = (0..db.len()).find(|&k| db.id(k) == "dna7_b").unwrap();
    for engine in &all_engines() {
        let search = |strands| {
            Searcher::new(engine, &db, sc.clone(), SearchOptions { strands, ..SearchOptions::default() })
                .unwrap()
                .search(query)
                .unwrap()
        };
        let plus = search(Strands::Plus);
        let minus = search(Strands::Minus);
        let both = search(Strands::Both);
        let rc = reverse_complement(&query.residues);
        for k in 0..db.len() {
            assert_scores(&plus.scores[k..=k], &[score(&query.residues, db.residues(k), &sc)], "plus");
            assert_scores(&minus.scores[k..=k], &[score(&rc, db.residues(k), &sc)], "minus");
            let best = if minus.scores[k].score > plus.scores[k].score { &minus } else { &plus };
            assert_eq!(both.scores[k], best.scores[k]);
        }
        assert_eq!(both.strands_searched, vec![Strand::Plus, Strand::Minus]);
        assert_eq!(minus.strands_searched, vec![Strand::Minus]);
        // Forward only, the planted region is invisible (the README: 50); the reverse
        // complement finds it.
        assert!(plus.scores[k7].score <= 60, "{}", plus.scores[k7].score);
        assert!(both.scores[k7].score > 500, "{}", both.scores[k7].score);
        assert_eq!(both.strands[k7], Strand::Minus);
        // No published statistics for DNA and too few subjects to fit: shuffles.
        assert_eq!(both.statistics.source, EvalueSource::Shuffled);
        let top = &both.hits[0];
        assert_eq!((top.subject, top.strand), (k7, Strand::Minus));
        assert!(top.evalue < 1e-50, "{}", top.evalue);
        let al = top.alignment.as_ref().unwrap();
        assert_eq!(al.rescore(&rc, db.residues(k7), &sc), top.score as i64);
        assert_eq!(Some(al), clsw::reference::align(&rc, db.residues(k7), &sc).as_ref());
        // BLAST convention: query forward (qstart < qend), subject reversed (sstart > send),
        // covering the planted regions (a: 89-388, b: 129-416).
        let (qs, qe, ss, se) = blast_coordinates(al, Strand::Minus, query.len());
        assert!(qs < qe && ss > se, "{qs} {qe} {ss} {se}");
        assert!(qs <= 110 && qe >= 370, "{qs}-{qe}");
        assert!(se <= 150 && ss >= 400, "{ss}-{se}");
        // The minus-strand alignment, mapped back to the forward query and reversed
        // subject, is the same alignment: its span equals the forward residues' span.
        assert_eq!(qe - qs, al.query_end - al.query_start);
        let line = tabular_line(&both, top, &db, false).unwrap();
        let c: Vec<&str> = line.split('\t').collect();
        assert_eq!(c[6..10], [qs.to_string(), qe.to_string(), ss.to_string(), se.to_string()]);
        let printed: f64 = c[10].parse().unwrap();
        assert!((printed / top.evalue - 1.0).abs() < 0.01, "{} vs {}", c[10], top.evalue);
        // Pairs 1-6 are found on the plus strand.
        let other = a.iter().find(|s| s.id == "dna3_a").unwrap();
        let r = Searcher::new(engine, &db, sc.clone(), SearchOptions::default()).unwrap().search(other).unwrap();
        assert_eq!(db.id(r.hits[0].subject), "dna3_b");
        assert_eq!(r.hits[0].strand, Strand::Plus);
    }
    // SAM: minus-strand records have FLAG 16 and the reverse-complemented query.
    let engine = reference_engine();
    let r = Searcher::new(&engine, &db, sc.clone(), SearchOptions::default()).unwrap().search(query).unwrap();
    let text = write_all(OutputFormat::Sam, std::slice::from_ref(&r), std::slice::from_ref(query), &db, &sc);
    check_sam(&text, &db, r.hits.len());
    let rec = text.lines().find(|l| l.contains("\tdna7_b\t")).unwrap();
    let f: Vec<&str> = rec.split('\t').collect();
    assert_eq!(f[1], "16");
    assert_eq!(f[9].as_bytes(), Alphabet::Dna.decode_all(&reverse_complement(&query.residues)));
}

#[test]
fn query_longer_than_65535() {
    let mut rng = Rng::new(65536);
    let db = uniprot300();
    // Six subjects, one of them planted in the middle of a 70,000-residue query.
    let subjects: Vec<Sequence> = [3usize, 50, 120, 200, 250, 298].iter().map(|&k| db.sequence(k)).collect();
    let small = Database::from_sequences(Alphabet::Protein, subjects);
    let mut q = rng.codes(70_000, 20);
    let planted = small.residues(2).to_vec();
    q[40_000..40_000 + planted.len()].copy_from_slice(&planted);
    let query = Sequence { id: "long".into(), description: String::new(), residues: q };
    let sc = blosum62();
    let want: Vec<LocalScore> = reference_scores(&query.residues, &small, &sc);
    for engine in &all_engines() {
        let r = Searcher::new(engine, &small, sc.clone(), SearchOptions::default()).unwrap().search(&query).unwrap();
        assert_scores(&r.scores, &want, &format!("{:?}", engine.describe()));
        let top = &r.hits[0];
        assert_eq!(top.subject, 2);
        let a = top.alignment.as_ref().unwrap();
        assert!(a.query_start <= 40_000 && a.query_end >= 40_000 + planted.len() - 2, "{a:?}");
    }
}

#[test]
fn saturated_scores_are_recomputed_and_counted() {
    // The longest uniprot300 protein (8,081 aa) against itself scores far past 32,767.
    let db = uniprot300();
    let longest = (0..db.len()).max_by_key(|&k| db.seq_len(k)).unwrap();
    let small =
        Database::from_sequences(Alphabet::Protein, [longest, 0, 1, 2].iter().map(|&k| db.sequence(k)).collect());
    let query = db.sequence(longest);
    let sc = blosum62();
    let want = reference_scores(&query.residues, &small, &sc);
    assert!(want[0].score > 32_767, "{}", want[0].score);
    for engine in device_engines() {
        let r = Searcher::new(&engine, &small, sc.clone(), SearchOptions::default()).unwrap().search(&query).unwrap();
        assert_scores(&r.scores, &want, "saturated");
        assert!(r.recomputed >= 1, "{}", r.recomputed);
        assert_eq!(r.hits[0].score, want[0].score);
        assert_eq!(r.hits[0].alignment.as_ref().unwrap().length(), query.len());
    }
}

#[test]
fn empty_database_and_bad_arguments() {
    let engine = reference_engine();
    let empty = Database::from_sequences(Alphabet::Protein, Vec::new());
    let q = Sequence::from_letters("q", b"MKVLAAGW", Alphabet::Protein).unwrap();
    let r = Searcher::new(&engine, &empty, blosum62(), SearchOptions::default()).unwrap().search(&q).unwrap();
    assert!(r.scores.is_empty() && r.hits.is_empty());
    assert_eq!(r.statistics.source, EvalueSource::Published);
    // The matrix must fit the database's alphabet.
    let dna =
        Database::from_sequences(Alphabet::Dna, vec![Sequence::from_letters("d", b"ACGT", Alphabet::Dna).unwrap()]);
    let err = Searcher::new(&engine, &dna, blosum62(), SearchOptions::default()).err().unwrap().to_string();
    assert!(err.contains("matrix BLOSUM62 is for protein sequences, but the database is dna"), "{err}");
    let db = Database::from_sequences(Alphabet::Protein, vec![q.clone()]);
    let bad = SearchOptions { strands: Strands::Minus, ..SearchOptions::default() };
    assert!(
        Searcher::new(&engine, &db, blosum62(), bad).err().unwrap().to_string().contains("applies to DNA searches")
    );
    let bad = SearchOptions { evalue: f64::NAN, ..SearchOptions::default() };
    assert!(Searcher::new(&engine, &db, blosum62(), bad).is_err());
    // A query encoded for another alphabet is refused, not scanned.
    let s = Searcher::new(&engine, &db, blosum62(), SearchOptions::default()).unwrap();
    let alien = Sequence { id: "alien".into(), description: String::new(), residues: vec![1, 2, 40] };
    assert!(s.search(&alien).err().unwrap().to_string().contains("position 3"));
}

#[test]
fn top50_hits_equal_ssearch36() {
    // tests/data/ssearch36_top50.tsv: ssearch36's 50 best subjects by raw score for
    // three queries and two scoring settings (tests/data/make_ssearch_top50.py).
    let text = std::fs::read_to_string(data_dir().join("ssearch36_top50.tsv")).unwrap();
    let db = uniprot300();
    let queries = read_fasta("queries10.fasta", Alphabet::Protein);
    type Setting = (String, String, i32, i32); // query, matrix, open, extend
    type Row = (String, usize, i32); // subject, length, raw score
    let mut groups: Vec<(Setting, Vec<Row>)> = Vec::new();
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let key = (c[0].to_string(), c[1].to_string(), c[2].parse().unwrap(), c[3].parse().unwrap());
        let row = (c[5].to_string(), c[6].parse().unwrap(), c[7].parse().unwrap());
        match groups.last_mut() {
            Some((k, rows)) if *k == key => rows.push(row),
            _ => groups.push((key, vec![row])),
        }
    }
    assert_eq!(groups.len(), 6);
    for engine in &all_engines() {
        for ((qid, matrix, open, extend), want) in &groups {
            assert_eq!(want.len(), 50);
            let sc = Scoring::new(Matrix::builtin(matrix).unwrap(), Gaps::affine(*open, *extend).unwrap());
            // Without E-values the hits rank by score, as the file does.
            let opts = SearchOptions {
                max_hits: 50,
                evalue: f64::INFINITY,
                stats: StatsMethod::None,
                ..SearchOptions::default()
            };
            let q = queries.iter().find(|q| &q.id == qid).unwrap();
            let r = Searcher::new(engine, &db, sc, opts).unwrap().search(q).unwrap();
            let got: Vec<Row> =
                r.hits.iter().map(|h| (db.id(h.subject).to_string(), db.seq_len(h.subject), h.score)).collect();
            assert_eq!(&got, want, "{qid} {matrix} {open}/{extend} on {:?}", engine.describe());
        }
    }
}

#[test]
fn a_hit_ranked_in_by_its_evalue_from_below_the_best_scores_is_aligned_too() {
    // The first max_hits subjects by score are aligned while the statistics are fitted;
    // a hit that its E-value (a shorter subject) ranks in from further down the scores is
    // aligned after (`Searcher::finish`). Find such a case in real data: among the first
    // q hits by E-value, one whose score is below the q-th best score.
    let db = uniprot300();
    let sc = blosum62();
    let engine = reference_engine();
    let everything = SearchOptions { max_hits: db.len(), evalue: f64::INFINITY, ..SearchOptions::default() };
    let all = Searcher::new(&engine, &db, sc.clone(), everything).unwrap();
    let mut found = 0;
    for query in read_fasta("queries10.fasta", Alphabet::Protein) {
        let ranked = all.search(&query).unwrap().hits;
        let mut scores: Vec<i32> = ranked.iter().map(|h| h.score).collect();
        scores.sort_unstable_by(|a, b| b.cmp(a));
        let Some(q) = (1..ranked.len().min(40)).find(|&q| ranked[..q].iter().any(|h| h.score < scores[q - 1])) else {
            continue;
        };
        let options = SearchOptions { max_hits: q, evalue: f64::INFINITY, ..SearchOptions::default() };
        let hits = Searcher::new(&engine, &db, sc.clone(), options).unwrap().search(&query).unwrap().hits;
        let want: Vec<usize> = ranked[..q].iter().map(|h| h.subject).collect();
        assert_eq!(hits.iter().map(|h| h.subject).collect::<Vec<_>>(), want, "query '{}'", query.id);
        for h in &hits {
            let a = h.alignment.as_ref().expect("every hit is aligned");
            assert_eq!(a, &clsw::reference::align(&query.residues, db.residues(h.subject), &sc).unwrap());
            assert_eq!(a.score, h.score);
        }
        found += 1;
    }
    assert!(found > 0, "no query of queries10 ranks a hit in from below its best scores");
}

//! clsw's statistics and alignments beside the real tools' own output, committed in
//! `tests/data` by its scripts (`make_ssearch_stats.sh`, `make_blastp_tabular.sh`):
//!
//! * `--stats regression` is ssearch36 36.3.8i's `-z 1`: the same fit (`rho`, `mu`,
//!   variance) and the same E-values for five real queries of 100 to 4,291 residues
//!   against 2,000 real proteins, with two matrices; the default statistics within a
//!   factor of 3 of them;
//! * `--stats published` is blastp 2.12's (`-comp_based_stats 0`): every column of a
//!   tabular line byte-identical for the alignments both tools make the same way;
//! * `--max-hsps` lists the alternate alignments ssearch36 lists for a subject holding
//!   three copies of the query.

mod common;

use common::cli::{clsw, scratch_dir};
use common::data_dir;
use std::collections::{HashMap, HashSet};

fn path(name: &str) -> String {
    data_dir().join(name).to_str().unwrap().to_string()
}

/// Tab-separated rows of a committed file, `#` lines left out.
fn rows(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(data_dir().join(name)).unwrap();
    text.lines().filter(|l| !l.starts_with('#')).map(|l| l.split('\t').map(str::to_string).collect()).collect()
}

/// The scoring options of a setting of the committed files.
fn scoring(setting: &str) -> Vec<&'static str> {
    match setting {
        "b62" => vec!["--matrix", "BLOSUM62", "--gap-open", "11", "--gap-extend", "1"],
        "b50" => vec!["--matrix", "BLOSUM50", "--gap-open", "10", "--gap-extend", "2"],
        other => panic!("unknown setting {other}"),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// clsw's JSON results of the statistics queries against uniprot2k under `stats`.
fn search_uniprot2k(setting: &str, stats: &str) -> Vec<serde_json::Value> {
    let (q, d) = (path("queries_stats.fasta"), path("uniprot2k.fasta.gz"));
    let mut args = vec!["scan", "-q", &q, "-d", &d, "--stats", stats, "--outfmt", "json", "--evalue", "1e6"];
    args.extend(scoring(setting));
    let (code, out, err) = clsw(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<serde_json::Value>(&out).unwrap().as_array().unwrap().clone()
}

/// ssearch36's 50 hits of each query under `setting`: `(subject, E-value, raw score)`.
fn ssearch36_hits(setting: &str) -> HashMap<String, Vec<(String, f64, i64)>> {
    let mut by_query: HashMap<String, Vec<(String, f64, i64)>> = HashMap::new();
    for r in rows("ssearch36_z1_uniprot2k.tsv").into_iter().filter(|r| r[0] == setting) {
        by_query.entry(r[1].clone()).or_default().push((r[2].clone(), r[7].parse().unwrap(), r[9].parse().unwrap()));
    }
    by_query
}

/// Per query, the E-value ratios clsw / ssearch36 over the hits both list; with
/// `same_set`, after checking that both list the same 50 subjects up to ties at the
/// 50th score.
fn evalue_ratios(setting: &str, results: &[serde_json::Value], same_set: bool) -> Vec<(u64, Vec<f64>)> {
    let theirs = ssearch36_hits(setting);
    let mut out = Vec::new();
    for r in results {
        let query = r["query"].as_str().unwrap();
        let them = &theirs[query];
        assert_eq!(them.len(), 50, "{query}");
        let hits = r["hits"].as_array().unwrap();
        let ours: HashMap<&str, (f64, i64)> = hits[..50]
            .iter()
            .map(|h| {
                (h["subject"].as_str().unwrap(), (h["evalue"].as_f64().unwrap_or(0.0), h["score"].as_i64().unwrap()))
            })
            .collect();
        // Every subject scoring above ssearch36's 50th score is in both lists.
        let last = them.iter().map(|t| t.2).min().unwrap();
        for (s, _, score) in them.iter().filter(|t| same_set && t.2 > last) {
            let ours =
                ours.get(s.as_str()).unwrap_or_else(|| panic!("{query}: ssearch36's hit {s} ({score}) is not clsw's"));
            assert_eq!(ours.1, *score, "{query} {s}: the same score");
        }
        let ratios =
            them.iter().filter(|t| t.1 > 0.0).filter_map(|(s, e, _)| ours.get(s.as_str()).map(|o| o.0 / e)).collect();
        out.push((r["query_length"].as_u64().unwrap(), ratios));
    }
    out
}

/// The fit is ssearch36's to the four decimals it prints for eight of the ten; for the
/// other two (BLOSUM50, the queries of 1,009 and 4,291 residues) ssearch36 sets one
/// outlier fewer aside (8 against 9, 9 against 10) from the same 2,000 scores (its
/// `-R` dump; the cause is not found), which moves the fit by up to 4% and E-values by
/// up to 27%.
#[test]
fn regression_is_ssearch36s_fit_and_evalues() {
    let fits = rows("ssearch36_z1_fits.tsv");
    let mut exact = 0;
    for setting in ["b62", "b50"] {
        let results = search_uniprot2k(setting, "regression");
        assert_eq!(results.len(), 5);
        for r in &results {
            let query = r["query"].as_str().unwrap();
            let fit = fits.iter().find(|f| f[0] == setting && f[1] == query).unwrap();
            let theirs: Vec<f64> = fit[3..6].iter().map(|x| x.parse().unwrap()).collect();
            let reg = &r["regression"];
            // ssearch36 prints 10 rho (per unit of ln n) and four decimals.
            let ours =
                [10.0 * reg["rho"].as_f64().unwrap(), reg["mu"].as_f64().unwrap(), reg["variance"].as_f64().unwrap()];
            let off = |o: f64, t: f64| (o - t).abs() / t.abs().max(1.0);
            assert!(
                ours.iter().zip(&theirs).all(|(o, t)| off(*o, *t) < 0.05),
                "{setting} {query}: {ours:?} vs {theirs:?}"
            );
            let same = ours.iter().zip(&theirs).all(|(o, t)| (o - t).abs() <= 6e-5 + 1e-5 * t.abs());
            if !same {
                eprintln!("{setting} {query}: fit {ours:?}, ssearch36's {theirs:?}");
            }
            exact += same as usize;
        }
        for (m, ratios) in evalue_ratios(setting, &results, true) {
            let worst = ratios.iter().map(|r| r.ln().abs()).fold(0.0, f64::max).exp();
            let med = median(ratios.clone());
            eprintln!("{setting} query of {m}: {} E-values, median ratio {med:.3}, worst {worst:.3}", ratios.len());
            assert!(
                ratios.len() >= 45 && worst < 1.3 && (0.9..1.1).contains(&med),
                "{setting} query of {m}: {ratios:?}"
            );
        }
    }
    assert!(exact >= 8, "only {exact} of 10 fits are ssearch36's to its printed digits");
}

#[test]
fn default_statistics_are_within_a_factor_of_three_of_ssearch36s() {
    for setting in ["b62", "b50"] {
        let results = search_uniprot2k(setting, "auto");
        for (m, ratios) in evalue_ratios(setting, &results, false) {
            let med = median(ratios);
            eprintln!("{setting} query of {m}: median E-value ratio to ssearch36 {med:.3}");
            assert!((1.0 / 3.0..=3.0).contains(&med), "{setting} query of {m}: median ratio {med}");
        }
    }
}

/// The BLAST columns both tools write; `qcovs` depends on every alignment of the subject
/// (blastp's HSPs are not ssearch36's alternates), so it is not compared. Alignments
/// through an `X` are left out: blastp scores `X` -1 against every letter, where the
/// NCBI matrix clsw uses (and ssearch36) has 0 against some.
const COLUMNS: &str = "qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score qlen \
                       slen qcovs qcovhsp nident positive gaps ppos btop qseq sseq qacc qaccver sacc saccver sstrand";

#[test]
fn published_statistics_and_columns_are_blastps() {
    let (q, d) = (path("queries10.fasta"), path("uniprot300.fasta"));
    let format = format!("6 {COLUMNS}");
    let (code, out, err) = clsw(&["scan", "-q", &q, "-d", &d, "--stats", "published", "--outfmt", &format]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = COLUMNS.split(' ').collect();
    let col = |n: &str| names.iter().position(|&c| c == n).unwrap();
    let blast = rows("blastp_columns_queries10_uniprot300.tsv");
    // The alignment's identity: the pair, its coordinates and its trace-back operations.
    let key = |c: &[String]| format!("{} {} {} {} {} {} {}", c[0], c[1], c[6], c[7], c[8], c[9], c[col("btop")]);
    let theirs: HashMap<String, &Vec<String>> = blast.iter().map(|c| (key(c), c)).collect();
    let by_score: HashMap<(String, String, String), &Vec<String>> =
        blast.iter().map(|c| ((c[0].clone(), c[1].clone(), c[col("score")].clone()), c)).collect();
    let (mut same, mut same_score, mut lines) = (0, 0, 0);
    for line in out.lines() {
        let c: Vec<String> = line.split('\t').map(str::to_string).collect();
        assert_eq!(c.len(), names.len(), "{line}");
        lines += 1;
        if c[col("qseq")].contains('X') || c[col("sseq")].contains('X') {
            continue;
        }
        if let Some(b) = theirs.get(&key(&c)) {
            for (i, name) in names.iter().enumerate().filter(|(_, n)| **n != "qcovs") {
                assert_eq!(c[i], b[i], "column {name}: clsw {line}\nblastp {}", b.join("\t"));
            }
            same += 1;
        }
        // Wherever blastp's raw score for the pair is clsw's, the same E-value and bits.
        if let Some(b) = by_score.get(&(c[0].clone(), c[1].clone(), c[col("score")].clone())) {
            let (e, be): (f64, f64) = (c[col("evalue")].parse().unwrap(), b[col("evalue")].parse().unwrap());
            assert!(e == be || (e / be - 1.0).abs() < 0.01, "E-value: clsw {line}\nblastp {}", b.join("\t"));
            assert_eq!(c[col("bitscore")], b[col("bitscore")], "{line}");
            same_score += 1;
        }
    }
    eprintln!("{lines} clsw lines: {same} alignments blastp also made, {same_score} of blastp's scores");
    assert!(same >= 100 && same_score >= 110, "{same} same alignments, {same_score} same scores of {lines}");
}

#[test]
fn comment_lines_are_blastps() {
    let (q, d) = (path("queries10.fasta"), path("uniprot300.fasta"));
    let (code, out, err) = clsw(&["scan", "-q", &q, "-d", &d, "--stats", "published", "--outfmt", "7"]);
    assert_eq!(code, 0, "{err}");
    let theirs = std::fs::read_to_string(data_dir().join("blastp_outfmt7_queries10_uniprot300.txt")).unwrap();
    // The comments without the program, the database and the counts, which differ.
    let shape = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| match l.split_once(": ") {
                Some(("# Query" | "# Fields", _)) => l.to_string(),
                Some((name, _)) => name.to_string(),
                None if l.ends_with("hits found") => "# hits found".into(),
                None => l.split(' ').take(2).collect::<Vec<_>>().join(" "),
            })
            .collect()
    };
    let (ours, theirs) = (shape(&out), shape(&theirs));
    assert_eq!(ours.len(), theirs.len());
    for (o, t) in ours.iter().zip(&theirs) {
        let program = |s: &str| s == "# BLASTP" || s == "# CLSW";
        assert!(o == t || (program(o) && program(t)), "clsw {o}\nblastp {t}");
    }
    assert!(out.ends_with("# BLAST processed 10 queries\n"));
}

#[test]
fn max_hsps_lists_ssearch36s_alternate_alignments() {
    let dir = scratch_dir();
    let db = dir.join("uniprot300_repeats.fasta");
    let text = std::fs::read_to_string(data_dir().join("uniprot300.fasta")).unwrap()
        + &std::fs::read_to_string(data_dir().join("repeats_subject.fasta")).unwrap();
    std::fs::write(&db, text).unwrap();
    let queries = std::fs::read_to_string(data_dir().join("queries10.fasta")).unwrap();
    let query = dir.join("query5.fasta");
    std::fs::write(&query, queries.lines().skip(8).take(2).collect::<Vec<_>>().join("\n") + "\n").unwrap();
    let search = |more: &[&str]| {
        let (q, d) = (query.to_str().unwrap(), db.to_str().unwrap());
        clsw(&[&["scan", "-q", q, "-d", d, "--stats", "regression"], more].concat())
    };
    let columns = "6 qseqid sseqid qstart qend sstart send evalue bitscore score";
    let (code, out, err) = search(&["--max-hsps", "5", "--outfmt", columns]);
    assert_eq!(code, 0, "{err}");
    let ours: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    let theirs = rows("ssearch36_alternates.tsv");
    assert_eq!(ours.len(), theirs.len(), "{out}");
    let per_subject = |subjects: Vec<&str>| -> HashMap<String, usize> {
        let mut n = HashMap::new();
        subjects.into_iter().for_each(|s| *n.entry(s.to_string()).or_default() += 1);
        n
    };
    assert_eq!(
        per_subject(ours.iter().map(|c| c[1]).collect()),
        per_subject(theirs.iter().map(|c| c[2].as_str()).collect())
    );
    // Coordinates and scores line for line (the order: E-value, then each subject's
    // alternates after its best).
    let key = |c: &[&str]| c.join(" ");
    let want: HashSet<String> = theirs.iter().map(|t| key(&[&t[2], &t[3], &t[4], &t[5], &t[6], &t[9]])).collect();
    for c in &ours {
        assert!(want.contains(&key(&[c[1], c[2], c[3], c[4], c[5], c[8]])), "not ssearch36's: {}", c.join("\t"));
    }
    let repeats: Vec<&Vec<&str>> = ours.iter().filter(|c| c[1] == "repeats3").collect();
    assert_eq!(repeats.len(), 3, "{out}");
    let their_evalue: HashMap<String, f64> =
        theirs.iter().map(|t| (key(&[&t[2], &t[5], &t[6]]), t[7].parse().unwrap())).collect();
    for c in &ours {
        let (e, te): (f64, f64) = (c[6].parse().unwrap(), their_evalue[&key(&[c[1], c[4], c[5]])]);
        assert!((e / te).ln().abs() < 0.07, "E-value {} against ssearch36's {te}", c.join("\t"));
    }
    // One alignment per subject without --max-hsps.
    let (code, out, err) = search(&[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().filter(|l| l.contains("repeats3")).count(), 1);
}

/// The automatic statistics have no step where they change method: with `--dbsize`
/// fixed, adding one subject at either end of the blend (100 and 500 subjects) moves no
/// hit's E-value by more than a quarter, and below the blend (BLAST's published
/// parameters) the database's size does not move them at all. (Above it the fit's own
/// spread remains: 500 and 2,000 subjects give E-values 20 times apart for a hit
/// scoring 305, exactly as ssearch36's `-z 1` does on the same subsets.)
#[test]
fn automatic_evalues_have_no_step_in_database_size() {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(data_dir().join("uniprot2k.fasta.gz")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    // One header line and one sequence line a record.
    let lines: Vec<&str> = text.lines().collect();
    let records: Vec<String> = lines.chunks(2).map(|r| format!("{}\n{}\n", r[0], r[1])).collect();
    assert_eq!(records.len(), 2000);
    let dir = scratch_dir();
    let queries = std::fs::read_to_string(data_dir().join("queries_stats.fasta")).unwrap();
    let query = dir.join("query300.fasta");
    std::fs::write(&query, queries.lines().skip(2).take(2).collect::<Vec<_>>().join("\n") + "\n").unwrap();
    let search = |db: &std::path::Path| -> HashMap<String, f64> {
        let (code, out, err) = clsw(&[
            "scan",
            "-q",
            query.to_str().unwrap(),
            "-d",
            db.to_str().unwrap(),
            "--dbsize",
            "1000000",
            "--evalue",
            "1e9",
            "--max-hits",
            "5",
            "--outfmt",
            "6 sseqid evalue",
        ]);
        assert_eq!(code, 0, "{err}");
        out.lines().map(|l| l.split_once('\t').unwrap()).map(|(s, e)| (s.to_string(), e.parse().unwrap())).collect()
    };
    let full = dir.join("all.fasta");
    std::fs::write(&full, records.concat()).unwrap();
    let top: Vec<String> = search(&full).into_keys().collect();
    // The hits' subjects first, then the rest in file order.
    let (hits, rest): (Vec<&String>, Vec<&String>) =
        records.iter().partition(|r| top.iter().any(|t| r[1..].starts_with(&format!("{t} "))));
    assert_eq!(hits.len(), 5);
    let ordered: Vec<&String> = hits.into_iter().chain(rest).collect();
    let evalues = |n: usize| {
        let db = dir.join(format!("first{n}.fasta"));
        std::fs::write(&db, ordered[..n].iter().map(|r| r.as_str()).collect::<String>()).unwrap();
        search(&db)
    };
    let apart = |a: &HashMap<String, f64>, b: &HashMap<String, f64>| {
        top.iter().map(|t| (a[t] / b[t]).ln().abs().exp()).fold(1.0, f64::max)
    };
    let (e20, e99) = (evalues(20), evalues(99));
    assert!(apart(&e20, &e99) < 1.2, "{e20:?}\n{e99:?}");
    for edge in [100, 500] {
        let (below, at, above) = (evalues(edge - 1), evalues(edge), evalues(edge + 1));
        let worst = apart(&below, &at).max(apart(&at, &above));
        eprintln!("{}, {edge}, {} subjects: E-values at most {worst:.3}x apart", edge - 1, edge + 1);
        assert!(worst < 1.25, "{below:?}\n{at:?}\n{above:?}");
    }
}

//! `clsw scan --outfmt tabular` beside BLAST+'s own `-outfmt 6` lines
//! (`tests/data/blastp_queries10_uniprot300.tsv`, made by blastp 2.12.0+ with
//! `tests/data/make_blastp_tabular.sh`): the same twelve columns, E-values and bit
//! scores written by BLAST+'s rules, and for the hits both tools align the same way
//! (same pair, coordinates, length, mismatches and gap openings) the same `pident`
//! text. E-values themselves differ (BLAST's published statistics, clsw's fit), so
//! those are compared by rule, not by value. The same for `--outfmt ssearch-m8` beside
//! ssearch36's own `-m 8` lines (`tests/data/ssearch36_m8_queries10_uniprot300.tsv`,
//! `tests/data/make_ssearch_m8.sh`).

mod common;

use clsw::cfmt;
use clsw::output::{format_bit_score, format_evalue};
use common::cli::clsw;
use common::data_dir;
use std::collections::HashMap;

fn blast_lines() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(data_dir().join("blastp_queries10_uniprot300.tsv")).unwrap();
    text.lines().map(|l| l.split('\t').map(str::to_string).collect()).collect()
}

/// Whether `format` writes `text` for the value `text` reads as: that value itself, the
/// value just below it (a number BLAST rounded up onto a boundary, `10.0`, `9.00e-04`),
/// or one a little above an integer (bit scores past 99.9 are truncated: `100` may be
/// 100.6).
fn written_by(format: fn(f64) -> String, text: &str) -> bool {
    let v: f64 = text.parse().unwrap_or_else(|_| panic!("{text} is not a number"));
    [v, v * (1.0 - 1e-12), v + 0.5].into_iter().any(|x| format(x) == text)
}

#[test]
fn blasts_own_evalues_and_bit_scores_follow_the_rules_clsw_writes_by() {
    let lines = blast_lines();
    assert!(lines.len() > 200, "{} BLAST lines", lines.len());
    let mut forms = std::collections::BTreeSet::new();
    for c in &lines {
        assert_eq!(c.len(), 12, "{c:?}");
        assert!(written_by(format_evalue, &c[10]), "BLAST's E-value {} (clsw: {})", c[10], {
            format_evalue(c[10].parse().unwrap())
        });
        assert!(written_by(format_bit_score, &c[11]), "BLAST's bit score {}", c[11]);
        let (_, decimals) = c[2].split_once('.').expect("pident has decimals");
        assert_eq!(decimals.len(), 3, "{c:?}");
        forms.insert(if c[10] == "0.0" {
            "zero"
        } else if c[10].contains('e') {
            "exponent"
        } else {
            "fixed"
        });
    }
    assert_eq!(forms.len(), 3, "the file exercises every E-value form: {forms:?}");
}

#[test]
fn tabular_lines_match_blasts_for_the_same_alignments() {
    let (q, db) = (data_dir().join("queries10.fasta"), data_dir().join("uniprot300.fasta"));
    let (code, out, err) = clsw(&["scan", "-q", q.to_str().unwrap(), "-d", db.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // The alignment's identity: pair, length, mismatches, gap openings, coordinates.
    let key = |c: &[String]| [&c[0..2], &c[3..10]].concat().join("\t");
    let blast: HashMap<String, Vec<String>> = blast_lines().into_iter().map(|c| (key(&c), c)).collect();
    let (mut same, mut lines) = (0, 0);
    for line in out.lines() {
        let c: Vec<String> = line.split('\t').map(str::to_string).collect();
        assert_eq!(c.len(), 12, "{line}");
        lines += 1;
        let (_, decimals) = c[2].split_once('.').expect("pident has decimals");
        assert_eq!(decimals.len(), 3, "{line}");
        assert_eq!(format_evalue(c[10].parse().unwrap()), c[10], "{line}");
        if let Some(b) = blast.get(&key(&c)) {
            assert_eq!(c[2], b[2], "pident of the same alignment: clsw {line} / BLAST {}", b.join("\t"));
            same += 1;
        }
    }
    assert!(lines > 100, "{lines} clsw lines");
    assert!(same >= 50, "only {same} of clsw's {lines} lines are alignments BLAST also made");
}

fn ssearch_lines() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(data_dir().join("ssearch36_m8_queries10_uniprot300.tsv")).unwrap();
    text.lines().map(|l| l.split('\t').map(str::to_string).collect()).collect()
}

/// ssearch36's E-values are `%.2g`, its bit scores `%.1f` and its pident has two
/// decimals; clsw's ssearch-m8 lines write theirs by the same rules, and for the hits
/// both tools align the same way (pair, coordinates, mismatches, gap openings) the same
/// `pident` and `length` (aligned pairs, gap columns left out).
#[test]
fn ssearch_m8_lines_match_ssearch36s_for_the_same_alignments() {
    let theirs = ssearch_lines();
    assert!(theirs.len() > 300, "{} ssearch36 lines", theirs.len());
    let g2 = |x: f64| cfmt::g(x, 2);
    let f1 = |x: f64| format!("{x:.1}");
    for c in &theirs {
        assert_eq!(c.len(), 12, "{c:?}");
        let (e, b): (f64, f64) = (c[10].parse().unwrap(), c[11].parse().unwrap());
        assert_eq!(g2(e), c[10], "ssearch36's E-value {}", c[10]);
        assert_eq!(f1(b), c[11], "ssearch36's bit score {}", c[11]);
        assert_eq!(c[2].split_once('.').map(|(_, d)| d.len()), Some(2), "{c:?}");
    }
    let (q, db) = (data_dir().join("queries10.fasta"), data_dir().join("uniprot300.fasta"));
    let (code, out, err) = clsw(&[
        "scan",
        "-q",
        q.to_str().unwrap(),
        "-d",
        db.to_str().unwrap(),
        "--outfmt",
        "ssearch-m8",
        "--evalue",
        "1e9",
    ]);
    assert_eq!(code, 0, "{err}");
    let key = |c: &[String]| [&c[0..2], &c[4..10]].concat().join("\t");
    let theirs: HashMap<String, Vec<String>> = theirs.into_iter().map(|c| (key(&c), c)).collect();
    let (mut same, mut lines) = (0, 0);
    for line in out.lines() {
        let c: Vec<String> = line.split('\t').map(str::to_string).collect();
        assert_eq!(c.len(), 12, "{line}");
        lines += 1;
        assert_eq!(g2(c[10].parse().unwrap()), c[10], "{line}");
        assert_eq!(f1(c[11].parse().unwrap()), c[11], "{line}");
        if let Some(s) = theirs.get(&key(&c)) {
            assert_eq!(
                c[2..4],
                s[2..4],
                "pident and length of the same alignment: clsw {line} / ssearch36 {}",
                s.join("\t")
            );
            same += 1;
        }
    }
    assert!(lines > 100, "{lines} clsw lines");
    assert!(same >= 100, "only {same} of clsw's {lines} lines are alignments ssearch36 also made");
}

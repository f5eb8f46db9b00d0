//! `clsw::stats::normal` beside the stock ggsearch36 and glsearch36 (FASTA 36.3.8i), whose
//! output `tests/data/make_normal_stats.sh` committed: 4 real queries of 100 to 744
//! residues against 2,000 real proteins (uniprot2k), and the 100-residue one against
//! uniprot2k plus 24 planted relatives of it; BLOSUM50 with each program's default gaps
//! and BLOSUM62 11/1; `-z 0` (every scored sequence listed) and `-z 3` (best 20).
//!
//! * The programs score exactly the sequences of [`length_window`] (E(N) counts them),
//!   with the gaps mapped as open = -f, extend = -g, and `reference::score` in the global
//!   and glocal modes gives their raw scores (on a sample of the pairs).
//! * [`fit_normal`] on those scores gives the `mu`, `var` and `Ztrim` ggsearch36 and
//!   glsearch36 print (`%6.4f`, so to 4 decimals), [`fit_median_iqr`] those of `-z 3`.
//! * With those fits, every listed E-value and bit score is the printed one.

mod common;

use clsw::reference;
use clsw::scoring::{Gaps, Matrix, Mode, Scoring};
use clsw::seq::{Alphabet, Sequence};
use clsw::stats::normal::{NormalFit, NormalMethod, fit_median_iqr, fit_normal, fit_search, length_window};
use common::{data_dir, read_fasta};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::io::Read;

/// One row of normal_stats_fits.tsv: one search, as the program's header reports it.
#[derive(Debug)]
struct Search {
    setting: String,
    program: String,
    stats: String,
    library: String,
    query: String,
    qlen: usize,
    mu: String,
    var: String,
    ztrim: usize,
    n_stats: usize,
    db_size: usize,
    open: i32,
    ext: i32,
}

impl Search {
    fn key(&self) -> String {
        [&self.setting, &self.program, &self.stats, &self.library, &self.query].map(|s| s.as_str()).join(" ")
    }
    fn mode(&self) -> Mode {
        match self.program.as_str() {
            "gg" => Mode::Global,
            "gl" => Mode::Glocal,
            p => panic!("unknown program {p}"),
        }
    }
    fn scoring(&self) -> Scoring {
        let matrix = match self.setting.as_str() {
            "b50" => "BLOSUM50",
            "b62" => "BLOSUM62",
            s => panic!("unknown setting {s}"),
        };
        // FASTA's -f/-g are negative; a gap of L costs -(f) + L * -(g) there and here.
        Scoring::new(Matrix::builtin(matrix).unwrap(), Gaps::affine(-self.open, -self.ext).unwrap())
            .in_mode(self.mode())
    }
    /// The `-z 0` search whose hits hold every score of this one.
    fn all_scores_key(&self) -> String {
        [&self.setting, &self.program, "z0", &self.library, &self.query].map(|s| s as &str).join(" ")
    }
}

/// One best-score line: the subject's record index in the library, its length, the raw
/// score and bits and E(N) as printed.
#[derive(Debug, Clone)]
struct Hit {
    subject: usize,
    n1: usize,
    raw: i32,
    bits: String,
    evalue: String,
}

fn tsv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines().skip(1).map(|l| l.split('\t').map(str::to_string).collect()).collect()
}

fn searches() -> Vec<Search> {
    let text = std::fs::read_to_string(data_dir().join("normal_stats_fits.tsv")).unwrap();
    tsv_rows(&text)
        .into_iter()
        .map(|r| Search {
            setting: r[0].clone(),
            program: r[1].clone(),
            stats: r[2].clone(),
            library: r[3].clone(),
            query: r[4].clone(),
            qlen: r[5].parse().unwrap(),
            mu: r[6].clone(),
            var: r[7].clone(),
            ztrim: r[8].parse().unwrap(),
            n_stats: r[9].parse().unwrap(),
            db_size: r[10].parse().unwrap(),
            open: r[11].parse().unwrap(),
            ext: r[12].parse().unwrap(),
        })
        .collect()
}

/// The hits of every search, by [`Search::key`], in the program's order.
fn hits() -> HashMap<String, Vec<Hit>> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(data_dir().join("normal_stats_hits.tsv.gz")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut by_search: HashMap<String, Vec<Hit>> = HashMap::new();
    for r in tsv_rows(&text) {
        by_search.entry(r[..5].join(" ")).or_default().push(Hit {
            subject: r[5].parse().unwrap(),
            n1: r[6].parse().unwrap(),
            raw: r[7].parse().unwrap(),
            bits: r[8].clone(),
            evalue: r[9].clone(),
        });
    }
    by_search
}

fn library(name: &str) -> Vec<Sequence> {
    let mut lib = read_fasta("uniprot2k.fasta.gz", Alphabet::Protein);
    assert_eq!(lib.len(), 2000);
    match name {
        "u2k" => {}
        "u2kp" => lib.extend(read_fasta("normal_stats_planted.fasta", Alphabet::Protein)),
        l => panic!("unknown library {l}"),
    }
    lib
}

fn query(id: &str) -> Sequence {
    ["queries_stats.fasta", "queries10.fasta"]
        .iter()
        .flat_map(|f| read_fasta(f, Alphabet::Protein))
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("query {id} not in queries_stats.fasta or queries10.fasta"))
}

/// Each program's own gaps (the header's "open/ext"), and the length window: the listed
/// subjects are exactly the records of `length_window`'s lengths, and E(N)'s N counts them.
#[test]
fn gaps_and_length_windows_are_the_programs() {
    let hits = hits();
    let libs: HashMap<&str, Vec<Sequence>> = ["u2k", "u2kp"].map(|l| (l, library(l))).into();
    for s in searches() {
        let expected_gaps = match (s.setting.as_str(), s.program.as_str()) {
            ("b50", "gg") => (-10, -2),
            ("b50", "gl") => (-12, -2),
            ("b62", _) => (-11, -1),
            other => panic!("{other:?}"),
        };
        assert_eq!((s.open, s.ext), expected_gaps, "{}", s.key());
        assert_eq!(query(&s.query).residues.len(), s.qlen, "{}", s.key());
        assert_eq!(s.n_stats, s.db_size, "{}", s.key());
        if s.stats != "z0" {
            continue;
        }
        let lib = &libs[s.library.as_str()];
        let window = length_window(s.qlen, s.mode());
        let listed: BTreeSet<usize> = hits[&s.key()].iter().map(|h| h.subject).collect();
        let in_window: BTreeSet<usize> = (0..lib.len()).filter(|&i| window.contains(&lib[i].residues.len())).collect();
        assert_eq!(listed, in_window, "{} window {window:?}", s.key());
        assert_eq!(listed.len(), s.db_size, "{}", s.key());
        for h in &hits[&s.key()] {
            assert_eq!(lib[h.subject].residues.len(), h.n1, "{} subject {}", s.key(), h.subject);
        }
    }
}

/// The raw scores are `reference::score`'s in the global (gg) and glocal (gl) modes:
/// the best 20 of every search and every 15th of the others (about 1,300 pairs, under 2 s
/// on 2 cores); all 17,078 with `CLSW_NORMAL_STATS_ALL_PAIRS=1` (3e9 cells, about 10 s).
#[test]
fn raw_scores_are_the_reference_scores() {
    let every = if std::env::var_os("CLSW_NORMAL_STATS_ALL_PAIRS").is_some() { 1 } else { 15 };
    let hits = hits();
    let libs: HashMap<&str, Vec<Sequence>> = ["u2k", "u2kp"].map(|l| (l, library(l))).into();
    let mut pairs = Vec::new();
    for s in searches().into_iter().filter(|s| s.stats == "z0") {
        let q = query(&s.query);
        let scoring = s.scoring();
        for (rank, h) in hits[&s.key()].iter().enumerate() {
            if rank < 20 || rank % every == 0 {
                pairs.push((s.key(), q.residues.clone(), scoring.clone(), s.library.clone(), h.clone()));
            }
        }
    }
    let wrong: Vec<String> = pairs
        .par_iter()
        .filter_map(|(key, q, scoring, lib, h)| {
            let got = reference::score(q, &libs[lib.as_str()][h.subject].residues, scoring).score;
            (got != h.raw).then(|| format!("{key} subject {}: FASTA {} reference {got}", h.subject, h.raw))
        })
        .collect();
    assert!(wrong.is_empty(), "{} of {} pairs differ:\n{}", wrong.len(), pairs.len(), wrong.join("\n"));
}

/// Every E-value and bit score of `hits` is what `fit` gives, printed as FASTA prints them
/// (`%7.2g`, `%.1f`): the same characters, not only within rounding (true of every line
/// of the committed data). Returns the number of lines checked.
fn check_hits(s: &Search, fit: &NormalFit, hits: &[Hit]) -> usize {
    for h in hits {
        let e = fit.evalue(h.raw, s.db_size);
        let bits = fit.bit_score(h.raw, s.qlen, h.n1);
        assert_eq!(clsw::cfmt::g(e, 2), h.evalue, "{} subject {} score {}: E {e:e}", s.key(), h.subject, h.raw);
        assert_eq!(format!("{bits:.1}"), h.bits, "{} subject {} score {}: bits {bits}", s.key(), h.subject, h.raw);
    }
    hits.len()
}

/// The fit equals FASTA's printed one: `mu`, `var` and `Ztrim` to its digits, in its
/// statistics line headed `label`.
#[track_caller]
fn assert_printed(fit: &NormalFit, s: &Search, label: &str) {
    let printed = (format!("{:.4}", fit.mu), format!("{:.4}", fit.var), fit.trimmed);
    assert_eq!(printed, (s.mu.clone(), s.var.clone(), s.ztrim), "{}: {fit:?}", s.key());
    assert_eq!(fit.stat_info(), format!(" {label}: mu= {}  var={} Ztrim: {}", s.mu, s.var, s.ztrim));
}

/// `-z 0`: `fit_normal` on the scores of every listed subject is the printed
/// `mu= %6.4f var=%6.4f Ztrim: %d`, and gives every listed E-value and bit score.
#[test]
fn mean_variance_fits_are_proc_hist_n() {
    let hits = hits();
    let (mut searched, mut lines, mut trimmed_searches) = (0, 0, 0);
    for s in searches().into_iter().filter(|s| s.stats == "z0") {
        let h = &hits[&s.key()];
        let scores: Vec<i32> = h.iter().map(|h| h.raw).collect();
        let fit = fit_normal(&scores).unwrap();
        assert_eq!(fit, fit_search(&scores, NormalMethod::MeanVariance).unwrap());
        assert_printed(&fit, &s, "Unscaled normal statistics");
        lines += check_hits(&s, &fit, h);
        searched += 1;
        trimmed_searches += usize::from(fit.trimmed >= 5);
    }
    assert_eq!(searched, 20);
    assert!(lines > 16_000, "{lines}");
    // glsearch36 BL62 against the planted library trims 9 scores: several passes ran.
    assert_eq!(trimmed_searches, 1);
}

/// `-z 3`: `fit_median_iqr` on the same scores is the printed "Unscaled normal (median,
/// IQR) statistics", and gives the best 20 lines' E-values and bit scores.
#[test]
fn median_iqr_fits_are_proc_hist_anorm() {
    let hits = hits();
    let mut searched = 0;
    for s in searches().into_iter().filter(|s| s.stats == "z3") {
        let scores: Vec<i32> = hits[&s.all_scores_key()].iter().map(|h| h.raw).collect();
        assert_eq!(scores.len(), s.n_stats, "{}", s.key());
        let fit = fit_median_iqr(&scores).unwrap();
        assert_eq!(fit, fit_search(&scores, NormalMethod::MedianIqr).unwrap());
        assert_printed(&fit, &s, "Unscaled normal (median, IQR) statistics");
        assert_eq!(check_hits(&s, &fit, &hits[&s.key()]), 20);
        searched += 1;
    }
    assert_eq!(searched, 20);
}

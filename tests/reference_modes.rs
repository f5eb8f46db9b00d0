//! src/reference's global and glocal modes against parasail's `nw` and `sg_dx` on 1,000
//! pairs of real proteins under two scorings (tests/data/parasail_modes.tsv, made by
//! tests/data/make_parasail_modes.py), and the edges of each mode by hand.

mod common;

use clsw::reference::{LocalScore, align, score};
use clsw::scoring::Mode;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use common::{data_dir, read_fasta};

fn scoring(matrix: &str, open: i32, extend: i32) -> Scoring {
    Scoring::new(Matrix::builtin(matrix).unwrap(), Gaps::affine(open, extend).unwrap())
}

fn codes(s: &str) -> Vec<u8> {
    Alphabet::Protein.encode_all(s.as_bytes()).unwrap()
}

#[test]
fn global_and_glocal_scores_equal_parasails() {
    let records = read_fasta("uniprot300.fasta", Alphabet::Protein);
    let table = std::fs::read_to_string(data_dir().join("parasail_modes.tsv")).unwrap();
    let mut checked = [0usize; 2];
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (q, s) = (&records[f[0].parse::<usize>().unwrap()], &records[f[1].parse::<usize>().unwrap()]);
        let sc = scoring(f[2], f[3].parse().unwrap(), f[4].parse().unwrap());
        let mode = match f[5] {
            "global" => Mode::Global,
            "glocal" => Mode::Glocal,
            other => panic!("mode {other}"),
        };
        let want: i32 = f[6].parse().unwrap();
        let got = score(&q.residues, &s.residues, &sc.clone().in_mode(mode));
        assert_eq!(got.score, want, "{line}: {} vs {}", q.id, s.id);
        // The traceback of the first 100 pairs: the whole query (and in the global mode
        // the whole subject), ending where the score pass says, rescoring to its score.
        if checked[(mode == Mode::Glocal) as usize] < 200 {
            let a = align(&q.residues, &s.residues, &sc.clone().in_mode(mode)).unwrap();
            assert_eq!(a.rescore(&q.residues, &s.residues, &sc), want as i64, "{line}: {}", a.cigar(true));
            assert_eq!((a.score, a.query_start, a.query_end), (want, 0, q.len() - 1), "{line}");
            assert_eq!(Some((a.query_end, a.subject_end)), got.end, "{line}");
            if mode == Mode::Global {
                assert_eq!((a.subject_start, a.subject_end), (0, s.len() - 1), "{line}");
            }
        }
        checked[(mode == Mode::Glocal) as usize] += 1;
    }
    assert_eq!(checked, [2000, 2000]);
}

#[test]
fn each_modes_edges_by_hand() {
    let sc = scoring("BLOSUM62", 11, 1);
    // ACDEF against ACEF: A4 C9 E5 F6, D against a gap of one (12): 24 - 12.
    let global = score(&codes("ACDEF"), &codes("ACEF"), &sc.clone().in_mode(Mode::Global));
    assert_eq!(global, LocalScore { score: 12, end: Some((4, 3)) });
    // The subject's flanks are free in glocal, charged in global (two gaps of 2: 13 each).
    let glocal = score(&codes("ACD"), &codes("WWACDWW"), &sc.clone().in_mode(Mode::Glocal));
    assert_eq!(glocal, LocalScore { score: 19, end: Some((2, 4)) });
    assert_eq!(score(&codes("ACD"), &codes("WWACDWW"), &sc.clone().in_mode(Mode::Global)).score, 19 - 2 * 13);
    // Glocal keeps the query whole even when every pair scores below zero: W/P -4 beats
    // leaving W out (a gap of one, 12); the first column wins a tie.
    assert_eq!(
        score(&codes("W"), &codes("PP"), &sc.clone().in_mode(Mode::Glocal)),
        LocalScore { score: -4, end: Some((0, 0)) }
    );
    // Empty sequences: a gap of the other's length, or nothing.
    assert_eq!(score(&[], &codes("AC"), &sc.clone().in_mode(Mode::Global)), LocalScore { score: -13, end: None });
    assert_eq!(score(&codes("AC"), &[], &sc.clone().in_mode(Mode::Global)), LocalScore { score: -13, end: None });
    assert_eq!(score(&codes("AC"), &[], &sc.clone().in_mode(Mode::Glocal)), LocalScore { score: -13, end: None });
    assert_eq!(score(&[], &codes("AC"), &sc.clone().in_mode(Mode::Glocal)), LocalScore { score: 0, end: None });
    // Their alignments: D against nothing; the subject's flanks outside the glocal one,
    // gaps in the global one (one deletion of 2 at each end).
    let cigar = |mode, q: &str, s: &str| align(&codes(q), &codes(s), &sc.clone().in_mode(mode)).unwrap().cigar(true);
    assert_eq!(cigar(Mode::Global, "ACDEF", "ACEF"), "2=1I2=");
    assert_eq!(cigar(Mode::Glocal, "ACD", "WWACDWW"), "3=");
    assert_eq!(cigar(Mode::Global, "ACD", "WWACDWW"), "2D3=2D");
    let a = align(&codes("ACD"), &codes("WWACDWW"), &sc.clone().in_mode(Mode::Glocal)).unwrap();
    assert_eq!((a.subject_start, a.subject_end), (2, 4));
    // The query's first residues against nothing, at the left edge: a glocal alignment
    // of WWWWWAC against AC aligns A and C and gaps the W run (one gap).
    let a = align(&codes("WWWWWAC"), &codes("AC"), &sc.clone().in_mode(Mode::Glocal)).unwrap();
    assert_eq!(a.cigar(true), "5I2=");
    assert_eq!(a.rescore(&codes("WWWWWAC"), &codes("AC"), &sc), a.score as i64);
    // Nothing to align: an empty sequence.
    assert!(align(&[], &codes("AC"), &sc.clone().in_mode(Mode::Global)).is_none());
    // Local is score.
    let (q, s) = (codes("MKVLAAGIW"), codes("PPKVLAGIWPP"));
    assert_eq!(score(&q, &s, &sc.clone().in_mode(Mode::Local)), score(&q, &s, &sc));
}

//! The reference aligner against scores printed by ssearch36 and parasail on real
//! UniProt pairs and generated DNA pairs (tests/data/golden_scores.tsv; see
//! tests/data/README.md for the commands that produced it). Scores must match exactly.

mod common;

use clsw::reference::score;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::{Alphabet, Sequence};
use common::{data_dir, read_fasta};
use std::collections::HashMap;

#[test]
fn reference_equals_ssearch36_and_parasail() {
    let mut by_id: HashMap<(Alphabet, String), Sequence> = HashMap::new();
    for (file, alphabet) in [
        ("queries10.fasta", Alphabet::Protein),
        ("golden_subjects.fasta", Alphabet::Protein),
        ("dna_pairs.fasta", Alphabet::Dna),
    ] {
        for s in read_fasta(file, alphabet) {
            by_id.insert((alphabet, s.id.clone()), s);
        }
    }
    let table = std::fs::read_to_string(data_dir().join("golden_scores.tsv")).unwrap();
    let mut matrices: HashMap<String, Matrix> = HashMap::new();
    let mut checked = 0;
    let mut per_matrix: HashMap<String, usize> = HashMap::new();
    for (line_no, line) in table.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (q, s, name) = (f[0], f[1], f[2]);
        let (open, extend, want): (i32, i32, i32) =
            (f[3].parse().unwrap(), f[4].parse().unwrap(), f[5].parse().unwrap());
        let matrix = matrices.entry(name.to_string()).or_insert_with(|| Matrix::builtin(name).unwrap()).clone();
        let alphabet = matrix.alphabet();
        let get = |id: &str| {
            by_id.get(&(alphabet, id.to_string())).unwrap_or_else(|| panic!("line {}: no sequence {id}", line_no + 1))
        };
        let sc = Scoring::new(matrix, Gaps::affine(open, extend).unwrap());
        let got = score(&get(q).residues, &get(s).residues, &sc).score;
        assert_eq!(got, want, "line {}: {q} vs {s} with {name} {open}/{extend}", line_no + 1);
        checked += 1;
        *per_matrix.entry(format!("{name} {open}/{extend}")).or_default() += 1;
    }
    assert!(checked >= 150, "only {checked} golden rows");
    eprintln!("{checked} golden scores equal: {per_matrix:?}");
}

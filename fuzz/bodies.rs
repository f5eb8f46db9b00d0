//! The fuzz targets' bodies, one function per input format: each takes arbitrary bytes
//! and must return, whatever they are (an error is a fine answer; a panic, an abort, a
//! hang or a sanitizer report is a finding). The libFuzzer targets in `fuzz_targets/`
//! call them (`scripts/fuzz` builds and runs those on the nightly toolchain), and
//! `tests/fuzz_corpus.rs` replays every file of `fuzz/corpus/<target>/` through them on
//! stable, so the corpus (seeds and every input that once failed) is checked everywhere.
//!
//! Formats read from files (prepared databases, matrix files, PLINK filesets, genotype
//! tables) are written to a scratch folder of this process first, so the real entry
//! points, memory mapping included, are what is fuzzed.

#![allow(dead_code)] // each fuzz target uses one body

use clsw::distance::{self, input};
use clsw::scoring::Matrix;
use clsw::seq::{Alphabet, Database, fasta::FastaReader};
use clsw::sw3::sax;
use std::path::PathBuf;

/// A target's body.
pub type Body = fn(&[u8]);

/// The targets, by name: the fuzz target, its corpus folder and its body are named alike.
pub const TARGETS: [(&str, Body); 6] = [
    ("fasta", fasta),
    ("clswdb", clswdb),
    ("matrix", matrix),
    ("plink", plink),
    ("genotypes", genotypes),
    ("sax", sax_series),
];

/// A file of this process's scratch folder holding `data`.
fn scratch(name: &str, data: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("clsw-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join(name);
    std::fs::write(&path, data).expect("scratch file");
    path
}

/// FASTA in both alphabets and in the aligned mode the distance inputs use.
pub fn fasta(data: &[u8]) {
    for alphabet in [Alphabet::Protein, Alphabet::Dna] {
        for record in FastaReader::new(data, "fuzz.fa", alphabet) {
            match record {
                Ok(s) => assert!(s.residues.iter().all(|&c| (c as usize) < alphabet.size())),
                Err(e) => drop(e.to_string()),
            }
        }
    }
    let reader = input::AlignmentReader::new(data, "fuzz.aln");
    let _ = input::read_alignment_from(reader, distance::Coding::Nucleotide { count_gaps: true, count_n: false });
}

/// A prepared database (`.clswdb`): opened, then every record read.
pub fn clswdb(data: &[u8]) {
    let path = scratch("fuzz.clswdb", data);
    if let Ok(db) = Database::open_prepared(&path) {
        let mut residues = 0u64;
        for k in 0..db.len() {
            let _ = (db.id(k), db.description(k));
            residues += db.residues(k).len() as u64;
            assert!(db.residues(k).iter().all(|&c| (c as usize) < db.alphabet().size()));
        }
        assert_eq!(residues, db.total_residues());
    }
}

/// An NCBI-format substitution matrix file.
pub fn matrix(data: &[u8]) {
    let path = scratch("FUZZ_MATRIX", data);
    if let Ok(m) = Matrix::from_file(&path) {
        let n = m.size() as u8;
        for a in 0..n {
            for b in 0..n {
                assert!(m.score(a, b) >= m.min_score() && m.score(a, b) <= m.max_score());
            }
        }
    }
}

/// A PLINK 1 binary fileset. The input is framed: two little-endian u16 lengths, then
/// the `.fam`, the `.bim` and (the rest) the `.bed`.
pub fn plink(data: &[u8]) {
    if data.len() < 4 {
        return;
    }
    let fam_len = u16::from_le_bytes([data[0], data[1]]) as usize;
    let bim_len = u16::from_le_bytes([data[2], data[3]]) as usize;
    let rest = &data[4..];
    let fam = &rest[..fam_len.min(rest.len())];
    let rest = &rest[fam.len()..];
    let bim = &rest[..bim_len.min(rest.len())];
    let bed = &rest[bim.len()..];
    scratch("fuzz.fam", fam);
    scratch("fuzz.bim", bim);
    let prefix = scratch("fuzz.bed", bed).with_extension("");
    if let Ok(d) = input::read_bed(&prefix) {
        count(&d);
    }
}

/// A genotype table (0/1/2 per site, optional names and header).
pub fn genotypes(data: &[u8]) {
    if let Ok(d) = input::read_genotype_table(&scratch("fuzz.tsv", data)) {
        count(&d);
    }
}

/// Distances of a small dataset on the native CPU path (bounded, so no input hangs).
fn count(d: &input::Dataset) {
    assert_eq!(d.names.len(), d.packed.len());
    if d.packed.len() <= 64 && d.packed.sites() <= 1 << 14 {
        let opts = distance::Options { want_compared: true, ..Default::default() };
        let (m, _) = distance::compute_on(&[], &d.packed, &opts).expect("counting a parsed dataset");
        assert_eq!(m.n, d.packed.len());
    }
}

/// Time series text (CSV/TSV), then SAX words of every channel.
pub fn sax_series(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(series) = sax::parse_series(text, "fuzz.csv") {
        for x in &series.channels {
            for (w, alpha) in [(1, 3), (x.len().clamp(1, 8), 5), (x.len().max(1), 20)] {
                if let Ok(word) = sax::sax(x, w, alpha) {
                    assert!(word.codes.iter().all(|&c| (c as usize) < alpha));
                }
            }
        }
    }
}

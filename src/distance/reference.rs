//! The plain scalar distance computation: letters and genotypes compared one site at a
//! time, no packing, no site filtering. It is the truth every other path is tested
//! against, and deliberately shares no code with them (only the documented semantics).

use super::DistanceMatrix;
use super::packed::Coding;

/// The compared state of an alignment letter under `coding`, `None` where the letter
/// is not compared. A, C, G, T (any case) are states 0..3; `-` and `.` are a gap; every
/// other letter (and `?`, `*`) is N.
fn letter_state(b: u8, coding: Coding) -> Option<u8> {
    let (count_gaps, count_n) = match coding {
        Coding::Nucleotide { count_gaps, count_n } => (count_gaps, count_n),
        Coding::Genotype => panic!("letter_state needs a nucleotide coding"),
    };
    match b.to_ascii_uppercase() {
        b'A' => Some(0),
        b'C' => Some(1),
        b'G' => Some(2),
        b'T' => Some(3),
        b'-' | b'.' => count_gaps.then_some(4),
        _ => count_n.then_some(5),
    }
}

/// Sites where at most one distinct state occurs among the sequences that compare them.
fn constant_sites(states: &[Vec<Option<u8>>], sites: usize) -> Vec<bool> {
    (0..sites)
        .map(|k| {
            let mut first = None;
            for s in states {
                if let Some(x) = s[k] {
                    match first {
                        None => first = Some(x),
                        Some(f) if f != x => return false,
                        _ => {}
                    }
                }
            }
            true
        })
        .collect()
}

/// Pairwise counts over per-site states; `genotype` adds the opposite-homozygote count
/// (|a - b| = 2). Constant sites are skipped when `ignore_constant`.
fn pairwise(states: &[Vec<Option<u8>>], sites: usize, ignore_constant: bool, genotype: bool) -> DistanceMatrix {
    let n = states.len();
    let skip = if ignore_constant { constant_sites(states, sites) } else { vec![false; sites] };
    let considered = skip.iter().filter(|s| !**s).count() as u64;
    let pairs = n * n.saturating_sub(1) / 2;
    let mut differences = Vec::with_capacity(pairs);
    let mut compared = Vec::with_capacity(pairs);
    let mut opposite = Vec::with_capacity(pairs);
    for i in 0..n {
        for j in i + 1..n {
            let (mut d, mut c, mut e) = (0u32, 0u32, 0u32);
            for k in 0..sites {
                if skip[k] {
                    continue;
                }
                if let (Some(a), Some(b)) = (states[i][k], states[j][k]) {
                    c += 1;
                    if a != b {
                        d += 1;
                    }
                    if genotype && a.abs_diff(b) == 2 {
                        e += 1;
                    }
                }
            }
            differences.push(d);
            compared.push(c);
            opposite.push(e);
        }
    }
    DistanceMatrix {
        n,
        sites: sites as u64,
        considered_sites: considered,
        kept_sites: considered,
        genotype,
        differences,
        compared: Some(compared),
        opposite_homozygotes: genotype.then_some(opposite),
    }
}

/// All-pairs distances of aligned sequences (equal lengths; letters as in
/// [`Coding::Nucleotide`]). Every counter is filled in.
pub fn alignment<S: AsRef<[u8]>>(seqs: &[S], coding: Coding, ignore_constant: bool) -> DistanceMatrix {
    let sites = seqs.first().map_or(0, |s| s.as_ref().len());
    assert!(seqs.iter().all(|s| s.as_ref().len() == sites), "sequences of different lengths");
    let states: Vec<Vec<Option<u8>>> =
        seqs.iter().map(|s| s.as_ref().iter().map(|&b| letter_state(b, coding)).collect()).collect();
    pairwise(&states, sites, ignore_constant, false)
}

/// All-pairs distances of genotypes: `rows[s][k]` is 0, 1 or 2, anything else missing.
pub fn genotypes<S: AsRef<[i8]>>(rows: &[S], ignore_constant: bool) -> DistanceMatrix {
    let sites = rows.first().map_or(0, |s| s.as_ref().len());
    assert!(rows.iter().all(|s| s.as_ref().len() == sites), "rows of different lengths");
    let states: Vec<Vec<Option<u8>>> =
        rows.iter().map(|r| r.as_ref().iter().map(|&g| (0..=2).contains(&g).then_some(g as u8)).collect()).collect();
    pairwise(&states, sites, ignore_constant, true)
}

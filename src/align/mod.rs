//! Alignments with traceback: the [`Alignment`] type every aligner returns, CIGAR
//! strings, and the readable pairwise and tabular views.
//!
//! Positions are 0-based and ends inclusive (`query_end` is the last aligned query
//! residue); the views print them 1-based, as BLAST and SAM do.

pub mod display;

use crate::scoring::Scoring;

/// One alignment column kind. Insertions and deletions are named from the query's
/// side, as in SAM: an insertion is a query residue against a gap in the subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// Identical residues.
    Match,
    /// Different residues.
    Mismatch,
    /// A query residue against a gap (CIGAR `I`).
    Insertion,
    /// A subject residue against a gap (CIGAR `D`).
    Deletion,
}

impl Op {
    fn cigar_char(self, extended: bool) -> char {
        match (self, extended) {
            (Op::Match, true) => '=',
            (Op::Mismatch, true) => 'X',
            (Op::Match | Op::Mismatch, false) => 'M',
            (Op::Insertion, _) => 'I',
            (Op::Deletion, _) => 'D',
        }
    }
}

/// A local alignment of a query and a subject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alignment {
    pub score: i32,
    pub query_start: usize,
    pub query_end: usize,
    pub subject_start: usize,
    pub subject_end: usize,
    /// Run-length encoded columns, from the start of the alignment.
    pub ops: Vec<(Op, u32)>,
    /// Columns with identical residues.
    pub identities: usize,
    /// Columns whose pair scores above zero (identities included).
    pub similarities: usize,
    /// Columns with different residues.
    pub mismatches: usize,
    /// Number of gaps (runs of insertions or deletions).
    pub gap_opens: usize,
    /// Gapped columns.
    pub gap_columns: usize,
}

impl Alignment {
    /// Builds an alignment from its columns (one `Op` per column, in order), counting
    /// identities and similarities with the scoring's matrix.
    pub fn from_columns(
        score: i32,
        query_start: usize,
        subject_start: usize,
        columns: &[Op],
        query: &[u8],
        subject: &[u8],
        scoring: &Scoring,
    ) -> Alignment {
        let mut a = Alignment {
            score,
            query_start,
            query_end: query_start,
            subject_start,
            subject_end: subject_start,
            ops: Vec::new(),
            identities: 0,
            similarities: 0,
            mismatches: 0,
            gap_opens: 0,
            gap_columns: 0,
        };
        let (mut i, mut j) = (query_start, subject_start);
        let mut prev: Option<Op> = None;
        for &op in columns {
            match op {
                Op::Match | Op::Mismatch => {
                    if op == Op::Match {
                        a.identities += 1;
                    } else {
                        a.mismatches += 1;
                    }
                    if scoring.score_at(i, query[i], subject[j]) > 0 {
                        a.similarities += 1;
                    }
                    i += 1;
                    j += 1;
                }
                Op::Insertion | Op::Deletion => {
                    if prev != Some(op) {
                        a.gap_opens += 1;
                    }
                    a.gap_columns += 1;
                    if op == Op::Insertion { i += 1 } else { j += 1 }
                }
            }
            match a.ops.last_mut() {
                Some((last, n)) if *last == op => *n += 1,
                _ => a.ops.push((op, 1)),
            }
            prev = Some(op);
        }
        a.query_end = i.saturating_sub(1);
        a.subject_end = j.saturating_sub(1);
        a
    }

    /// Number of columns.
    pub fn length(&self) -> usize {
        self.ops.iter().map(|&(_, n)| n as usize).sum()
    }

    /// Percentage of identical columns (BLAST's pident).
    pub fn percent_identity(&self) -> f64 {
        if self.length() == 0 { 0.0 } else { 100.0 * self.identities as f64 / self.length() as f64 }
    }

    /// CIGAR string: with `extended`, `=`/`X` for matches and mismatches, else `M`.
    pub fn cigar(&self, extended: bool) -> String {
        let mut out = String::new();
        let mut pending: Option<(char, u32)> = None;
        for &(op, n) in &self.ops {
            let c = op.cigar_char(extended);
            match &mut pending {
                Some((pc, pn)) if *pc == c => *pn += n,
                _ => {
                    if let Some((pc, pn)) = pending {
                        out.push_str(&format!("{pn}{pc}"));
                    }
                    pending = Some((c, n));
                }
            }
        }
        if let Some((pc, pn)) = pending {
            out.push_str(&format!("{pn}{pc}"));
        }
        out
    }

    /// The score of these columns under `scoring`, computed from scratch: tests use it
    /// to check that a traceback is consistent with the score it reports.
    pub fn rescore(&self, query: &[u8], subject: &[u8], scoring: &Scoring) -> i64 {
        let (mut i, mut j) = (self.query_start, self.subject_start);
        let mut total = 0i64;
        for &(op, n) in &self.ops {
            match op {
                Op::Match | Op::Mismatch => {
                    for _ in 0..n {
                        total += scoring.score_at(i, query[i], subject[j]) as i64;
                        i += 1;
                        j += 1;
                    }
                }
                Op::Insertion => {
                    total -= scoring.gaps.cost(n);
                    i += n as usize;
                }
                Op::Deletion => {
                    total -= scoring.gaps.cost(n);
                    j += n as usize;
                }
            }
        }
        total
    }
}

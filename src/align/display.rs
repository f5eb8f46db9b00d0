//! Human and tabular views of an [`Alignment`].

use super::{Alignment, Op};
use crate::scoring::Scoring;
use std::fmt::Write;

/// Column names of [`tabular_line`], for a `#` header line.
pub const TABULAR_COLUMNS: &str =
    "qseqid\tsseqid\tpident\tlength\tmismatch\tgapopen\tqstart\tqend\tsstart\tsend\tscore\tcigar";

/// `pident` as BLAST+ `-outfmt 6` prints it: three decimals (`100.000`, `45.455`).
pub fn format_pident(a: &Alignment) -> String {
    format!("{:.3}", a.percent_identity())
}

/// One tab-separated line in BLAST `-outfmt 6` order for the first ten columns
/// (1-based inclusive coordinates), followed by the raw score and the extended CIGAR.
pub fn tabular_line(query_id: &str, subject_id: &str, a: &Alignment) -> String {
    format!(
        "{query_id}\t{subject_id}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        format_pident(a),
        a.length(),
        a.mismatches,
        a.gap_opens,
        a.query_start + 1,
        a.query_end + 1,
        a.subject_start + 1,
        a.subject_end + 1,
        a.score,
        a.cigar(true)
    )
}

/// The three display rows of an alignment, one character per column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rows {
    /// The aligned query, upper case, `-` for gaps.
    pub query: String,
    /// `|` identical, `+` positive score, space otherwise.
    pub midline: String,
    /// The aligned subject, upper case, `-` for gaps.
    pub subject: String,
}

/// The display rows of `a` over the codes it aligns (`query`, `subject`).
pub fn rows(query: &[u8], subject: &[u8], a: &Alignment, scoring: &Scoring) -> Rows {
    let alphabet = scoring.matrix.alphabet();
    let mut r = Rows { query: String::new(), midline: String::new(), subject: String::new() };
    let (mut i, mut j) = (a.query_start, a.subject_start);
    for &(op, n) in &a.ops {
        for _ in 0..n {
            let (q, s) = match op {
                Op::Match | Op::Mismatch => (Some(query[i]), Some(subject[j])),
                Op::Insertion => (Some(query[i]), None),
                Op::Deletion => (None, Some(subject[j])),
            };
            r.query.push(q.map_or('-', |c| alphabet.decode(c) as char));
            r.subject.push(s.map_or('-', |c| alphabet.decode(c) as char));
            r.midline.push(match (op, q, s) {
                (Op::Match, ..) => '|',
                (Op::Mismatch, Some(q), Some(s)) if scoring.score_at(i, q, s) > 0 => '+',
                _ => ' ',
            });
            i += q.is_some() as usize;
            j += s.is_some() as usize;
        }
    }
    r
}

/// A BLAST-like pairwise view in blocks of `width` columns: the query line, a middle
/// line (`|` identical, `+` positive score, space otherwise) and the subject line,
/// each with 1-based coordinates.
pub fn pairwise_view(
    query_id: &str,
    subject_id: &str,
    query: &[u8],
    subject: &[u8],
    a: &Alignment,
    scoring: &Scoring,
    width: usize,
) -> String {
    let Rows { query: top, midline: mid, subject: bottom } = rows(query, subject, a, scoring);
    let (top, mid, bottom) = (top.as_bytes(), mid.as_bytes(), bottom.as_bytes());
    let mut out = String::new();
    let _ = writeln!(out, "{query_id} vs {subject_id}");
    let _ = writeln!(
        out,
        "Score = {}, Identities = {}/{} ({:.0}%), Positives = {}/{} ({:.0}%), Gaps = {}/{}",
        a.score,
        a.identities,
        a.length(),
        a.percent_identity(),
        a.similarities,
        a.length(),
        100.0 * a.similarities as f64 / a.length().max(1) as f64,
        a.gap_columns,
        a.length()
    );
    let (mut qpos, mut spos) = (a.query_start, a.subject_start);
    let width = width.max(1);
    for start in (0..top.len()).step_by(width) {
        let end = (start + width).min(top.len());
        let q_res = top[start..end].iter().filter(|&&c| c != b'-').count();
        let s_res = bottom[start..end].iter().filter(|&&c| c != b'-').count();
        let _ = writeln!(out);
        let _ =
            writeln!(out, "Query  {:>7}  {}  {}", qpos + 1, String::from_utf8_lossy(&top[start..end]), qpos + q_res);
        let _ = writeln!(out, "       {:>7}  {}", "", String::from_utf8_lossy(&mid[start..end]));
        let _ =
            writeln!(out, "Sbjct  {:>7}  {}  {}", spos + 1, String::from_utf8_lossy(&bottom[start..end]), spos + s_res);
        qpos += q_res;
        spos += s_res;
    }
    out
}

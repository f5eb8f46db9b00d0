//! Human and tabular views of an [`Alignment`].

use super::{Alignment, Op};
use crate::scoring::Scoring;
use std::fmt::Write;

/// Column names of [`tabular_line`], for a `#` header line.
pub const TABULAR_COLUMNS: &str =
    "qseqid\tsseqid\tpident\tlength\tmismatch\tgapopen\tqstart\tqend\tsstart\tsend\tscore\tcigar";

/// One tab-separated line in BLAST `-outfmt 6` order for the first ten columns
/// (1-based inclusive coordinates), followed by the raw score and the extended CIGAR.
pub fn tabular_line(query_id: &str, subject_id: &str, a: &Alignment) -> String {
    format!(
        "{query_id}\t{subject_id}\t{:.2}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        a.percent_identity(),
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
    let alphabet = scoring.matrix.alphabet();
    let (mut top, mut mid, mut bottom) = (Vec::new(), Vec::new(), Vec::new());
    let (mut i, mut j) = (a.query_start, a.subject_start);
    for &(op, n) in &a.ops {
        for _ in 0..n {
            match op {
                Op::Match | Op::Mismatch => {
                    top.push(alphabet.decode(query[i]));
                    bottom.push(alphabet.decode(subject[j]));
                    mid.push(if op == Op::Match {
                        b'|'
                    } else if scoring.matrix.score(query[i], subject[j]) > 0 {
                        b'+'
                    } else {
                        b' '
                    });
                    i += 1;
                    j += 1;
                }
                Op::Insertion => {
                    top.push(alphabet.decode(query[i]));
                    bottom.push(b'-');
                    mid.push(b' ');
                    i += 1;
                }
                Op::Deletion => {
                    top.push(b'-');
                    bottom.push(alphabet.decode(subject[j]));
                    mid.push(b' ');
                    j += 1;
                }
            }
        }
    }
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

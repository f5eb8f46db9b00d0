//! Further local alignments of a query with a subject after its best one (Waterman and
//! Eggert's non-overlapping alignments, in ssearch36's form): the subject before the
//! best alignment and the subject after it are each aligned with the whole query; an
//! alignment the caller keeps splits its part again, and so on. Parts shorter than
//! [`MIN_PART`] residues (or than the query) are not searched. The subject ranges of
//! the alignments never overlap; their query ranges may.
//!
//! Each part's best score and end cell come from the native scan ([`native::scores`],
//! the reference's end rule), its alignment from that end ([`align_from_ends`]): every
//! alternate is exactly the reference's best alignment of the query with its part.

use super::{HitEnd, align_from_ends};
use crate::Result;
use crate::align::Alignment;
use crate::scan::native::{self, Report};
use crate::scoring::Scoring;

/// The shortest part of a subject searched for a further alignment (ssearch36's), or
/// the query's length where that is shorter.
pub const MIN_PART: usize = 33;

/// The further alignments of `query` with `subject` around `best` (its best alignment)
/// whose score `keep` accepts, best first (ties: nearer the subject's start first).
/// Subject coordinates are the whole subject's.
pub fn alternates(
    query: &[u8],
    subject: &[u8],
    best: &Alignment,
    scoring: &Scoring,
    keep: &dyn Fn(i32) -> bool,
) -> Result<Vec<Alignment>> {
    let min_part = MIN_PART.min(query.len()).max(1);
    let mut parts = vec![(0, best.subject_start), (best.subject_end + 1, subject.len())];
    let mut found = Vec::new();
    while let Some((start, end)) = parts.pop() {
        if end < start + min_part {
            continue;
        }
        let part = &subject[start..end];
        let scan = native::scores(query, &[part], scoring, Report::Ends)?;
        let best_here = scan.scores[0];
        let Some(end_cell) = best_here.end.filter(|_| best_here.score > 0 && keep(best_here.score)) else {
            continue;
        };
        let hit = HitEnd { subject: part, end: end_cell, score: best_here.score };
        let Some(mut a) = align_from_ends(query, &[hit], scoring)?.pop().flatten() else { continue };
        a.subject_start += start;
        a.subject_end += start;
        parts.push((start, a.subject_start));
        parts.push((a.subject_end + 1, end));
        found.push(a);
    }
    found.sort_by(|a, b| b.score.cmp(&a.score).then(a.subject_start.cmp(&b.subject_start)));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::{Gaps, Matrix};
    use crate::seq::Alphabet;

    fn codes(text: &[u8]) -> Vec<u8> {
        Alphabet::Protein.encode_all(text).unwrap()
    }

    #[test]
    fn repeats_of_the_query_in_the_subject_are_found_once_each() {
        let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
        let unit = b"MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ";
        let linker = b"GSGSGSGSGSGSGSGSGSGS";
        let mut text = Vec::new();
        for copy in 0..3 {
            text.extend_from_slice(linker);
            let mut u = unit.to_vec();
            u[5 + 7 * copy] = b'W'; // each copy a little different
            text.extend_from_slice(&u);
        }
        text.extend_from_slice(linker);
        let (q, s) = (codes(unit), codes(&text));
        let best = crate::reference::align(&q, &s, &sc).unwrap();
        let more = alternates(&q, &s, &best, &sc, &|score| score > 100).unwrap();
        assert_eq!(more.len(), 2, "{more:?}");
        let mut ranges: Vec<(usize, usize)> = more.iter().map(|a| (a.subject_start, a.subject_end)).collect();
        ranges.push((best.subject_start, best.subject_end));
        ranges.sort();
        assert!(ranges.windows(2).all(|w| w[0].1 < w[1].0), "subject ranges overlap: {ranges:?}");
        for a in &more {
            // Each is the reference's best alignment of the query with its part.
            assert!(a.score <= best.score);
            assert_eq!(a.rescore(&q, &s, &sc), a.score as i64);
        }
        assert!(more[0].score >= more[1].score);
        // Nothing passes a test no score passes.
        assert!(alternates(&q, &s, &best, &sc, &|_| false).unwrap().is_empty());
    }
}

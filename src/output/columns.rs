//! BLAST+'s tabular dialect: `-outfmt "6 qseqid sseqid ..."` and `"7 ..."` with BLAST's
//! column names ([`Column`]), each written as blastp 2.12 writes it (checked line by
//! line against blastp's own output, `tests/blast_format.rs`).
//!
//! A column BLAST computes from the alignment alone is byte-identical to BLAST's for the
//! same alignment: `pident` three decimals, `ppos` two, `qcovs`/`qcovhsp` whole
//! percentages, `btop` BLAST's trace-back operations (a number for a run of identical
//! columns, the query letter then the subject letter for any other column, `-` for a
//! gap). E-values and bit scores follow BLAST's printing rules
//! ([`super::format_evalue`], [`super::format_bit_score`]). `cigar` is clsw's own
//! (`=`/`X`/`I`/`D`); BLAST has no such column.
//!
//! Minus-strand DNA hits read as BLAST's Plus/Minus HSPs: `qseq`, `sseq` and `btop`
//! show the query forward and the subject reverse-complemented (`sstart > send`); the
//! `cigar` is the alignment as computed (see the module documentation of
//! [`super`]).

use super::{blast_coordinates, format_bit_score, format_evalue};
use crate::align::Alignment;
use crate::align::display::{format_pident, rows};
use crate::scoring::Scoring;
use crate::search::{Hit, SearchResult, Strand, reverse_complement};
use crate::seq::{Alphabet, Database, Sequence};

crate::error::named_enum! {
    /// A column of the tabular formats, by BLAST+'s name for it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Column ("tabular column", "columns") {
        /// The query's id (the first word of its header).
        Qseqid = "qseqid",
        /// The query's accession: its id (clsw does not parse ids).
        Qacc = "qacc",
        /// The query's accession and version: its id.
        Qaccver = "qaccver",
        /// The query's length.
        Qlen = "qlen",
        /// The subject's id.
        Sseqid = "sseqid",
        Sacc = "sacc",
        Saccver = "saccver",
        /// The subject's whole header: id, a space, description.
        Stitle = "stitle",
        Slen = "slen",
        Qstart = "qstart",
        Qend = "qend",
        Sstart = "sstart",
        Send = "send",
        /// The aligned part of the query, `-` for gaps.
        Qseq = "qseq",
        /// The aligned part of the subject, `-` for gaps.
        Sseq = "sseq",
        Evalue = "evalue",
        Bitscore = "bitscore",
        /// The raw score.
        Score = "score",
        /// Alignment columns.
        Length = "length",
        /// Identical columns, percent of `length`.
        Pident = "pident",
        /// Identical columns.
        Nident = "nident",
        Mismatch = "mismatch",
        /// Columns scoring above zero.
        Positive = "positive",
        /// Gaps (runs of gap columns).
        Gapopen = "gapopen",
        /// Gap columns.
        Gaps = "gaps",
        /// Positive columns, percent of `length`.
        Ppos = "ppos",
        /// BLAST's trace-back operations.
        Btop = "btop",
        /// The subject's strand: `plus` or `minus` (DNA), `N/A` (protein).
        Sstrand = "sstrand",
        /// Percent of the query covered by the subject's alignments together.
        Qcovs = "qcovs",
        /// Percent of the query covered by this alignment.
        Qcovhsp = "qcovhsp",
        /// The alignment's CIGAR (`=`/`X`/`I`/`D`; clsw's, not BLAST's).
        Cigar = "cigar",
    }
}

impl Column {
    /// BLAST's `std`: what `-outfmt 6` writes without a column list.
    pub const STANDARD: [Column; 12] = [
        Column::Qaccver,
        Column::Saccver,
        Column::Pident,
        Column::Length,
        Column::Mismatch,
        Column::Gapopen,
        Column::Qstart,
        Column::Qend,
        Column::Sstart,
        Column::Send,
        Column::Evalue,
        Column::Bitscore,
    ];

    /// The column's name on `-outfmt 7`'s `# Fields:` line, as BLAST+ writes it.
    pub fn field(self) -> &'static str {
        match self {
            Column::Qseqid => "query id",
            Column::Qacc => "query acc.",
            Column::Qaccver => "query acc.ver",
            Column::Qlen => "query length",
            Column::Sseqid => "subject id",
            Column::Sacc => "subject acc.",
            Column::Saccver => "subject acc.ver",
            Column::Stitle => "subject title",
            Column::Slen => "subject length",
            Column::Qstart => "q. start",
            Column::Qend => "q. end",
            Column::Sstart => "s. start",
            Column::Send => "s. end",
            Column::Qseq => "query seq",
            Column::Sseq => "subject seq",
            Column::Evalue => "evalue",
            Column::Bitscore => "bit score",
            Column::Score => "score",
            Column::Length => "alignment length",
            Column::Pident => "% identity",
            Column::Nident => "identical",
            Column::Mismatch => "mismatches",
            Column::Positive => "positives",
            Column::Gapopen => "gap opens",
            Column::Gaps => "gaps",
            Column::Ppos => "% positives",
            Column::Btop => "BTOP",
            Column::Sstrand => "subject strand",
            Column::Qcovs => "% query coverage per subject",
            Column::Qcovhsp => "% query coverage per hsp",
            Column::Cigar => "CIGAR",
        }
    }

    /// Reads a column list as BLAST's `-outfmt` takes it after the format number: names
    /// separated by spaces, `std` for [`Column::STANDARD`]. An empty list is `std`.
    pub fn parse_list<'a>(words: impl IntoIterator<Item = &'a str>) -> crate::Result<Vec<Column>> {
        let mut columns = Vec::new();
        for word in words {
            if word.eq_ignore_ascii_case("std") {
                columns.extend(Column::STANDARD);
            } else {
                columns.push(word.parse()?);
            }
        }
        Ok(if columns.is_empty() { Column::STANDARD.to_vec() } else { columns })
    }
}

/// What one tabular line is written from: a hit with an alignment, its query's result
/// and the database; for the columns that show letters (`qseq`, `sseq`, `btop`), the
/// query's residues and the scoring too.
pub(super) struct Line<'a> {
    pub(super) result: &'a SearchResult,
    pub(super) hit: &'a Hit,
    pub(super) alignment: &'a Alignment,
    pub(super) db: &'a Database,
    pub(super) letters: Option<(&'a Sequence, &'a Scoring)>,
}

impl Line<'_> {
    /// The line's columns, tab-separated (no newline).
    pub(super) fn write(&self, columns: &[Column]) -> String {
        // The aligned rows, made once for the columns that read them.
        let aligned = self
            .letters
            .filter(|_| columns.iter().any(|c| matches!(c, Column::Qseq | Column::Sseq | Column::Btop)))
            .map(|(query, scoring)| self.aligned_rows(query, scoring));
        let coordinates = blast_coordinates(self.alignment, self.hit.strand, self.result.query_len);
        let cells: Vec<String> = columns.iter().map(|&c| self.cell(c, coordinates, aligned.as_ref())).collect();
        cells.join("\t")
    }

    /// One column's text; `(qs, qe, ss, se)` the alignment's BLAST coordinates.
    fn cell(
        &self,
        column: Column,
        (qs, qe, ss, se): (usize, usize, usize, usize),
        aligned: Option<&(String, String)>,
    ) -> String {
        let (r, h, a, db) = (self.result, self.hit, self.alignment, self.db);
        let percent = |n: usize| 100.0 * n as f64 / a.length().max(1) as f64;
        // Without the query's letters (the C ABI's fixed columns), none.
        let rows = || aligned.cloned().unwrap_or_default();
        match column {
            Column::Qseqid | Column::Qacc | Column::Qaccver => r.query_id.clone(),
            Column::Qlen => r.query_len.to_string(),
            Column::Sseqid | Column::Sacc | Column::Saccver => db.id(h.subject).to_string(),
            Column::Stitle => match db.description(h.subject) {
                "" => db.id(h.subject).to_string(),
                d => format!("{} {d}", db.id(h.subject)),
            },
            Column::Slen => db.seq_len(h.subject).to_string(),
            Column::Qstart => qs.to_string(),
            Column::Qend => qe.to_string(),
            Column::Sstart => ss.to_string(),
            Column::Send => se.to_string(),
            Column::Qseq => rows().0,
            Column::Sseq => rows().1,
            Column::Evalue => format_evalue(h.evalue),
            Column::Bitscore => format_bit_score(h.bit_score),
            Column::Score => h.score.to_string(),
            Column::Length => a.length().to_string(),
            Column::Pident => format_pident(a),
            Column::Nident => a.identities.to_string(),
            Column::Mismatch => a.mismatches.to_string(),
            Column::Positive => a.similarities.to_string(),
            Column::Gapopen => a.gap_opens.to_string(),
            Column::Gaps => a.gap_columns.to_string(),
            Column::Ppos => format!("{:.2}", percent(a.similarities)),
            Column::Btop => {
                let (q, s) = rows();
                btop(&q, &s)
            }
            Column::Sstrand => match (db.alphabet(), h.strand) {
                (Alphabet::Protein, _) => "N/A".to_string(),
                (Alphabet::Dna, strand) => strand.name().to_string(),
            },
            Column::Qcovs => coverage(self.subject_query_ranges(), r.query_len),
            Column::Qcovhsp => coverage(vec![(qs, qe)], r.query_len),
            Column::Cigar => a.cigar(true),
        }
    }

    /// The aligned query and subject as BLAST shows them: for a minus-strand hit, the
    /// query forward and the subject reverse-complemented.
    fn aligned_rows(&self, query: &Sequence, scoring: &Scoring) -> (String, String) {
        let subject = self.db.residues(self.hit.subject);
        match self.hit.strand {
            Strand::Plus => {
                let r = rows(&query.residues, subject, self.alignment, scoring);
                (r.query, r.subject)
            }
            Strand::Minus => {
                let r = rows(&reverse_complement(&query.residues), subject, self.alignment, scoring);
                (reverse_complement_letters(&r.query), reverse_complement_letters(&r.subject))
            }
        }
    }

    /// The 1-based query ranges of every alignment with this hit's subject in the
    /// query's result (this one included).
    fn subject_query_ranges(&self) -> Vec<(usize, usize)> {
        let r = self.result;
        r.hits
            .iter()
            .filter(|h| h.subject == self.hit.subject)
            .filter_map(|h| h.alignment.as_ref().map(|a| blast_coordinates(a, h.strand, r.query_len)))
            .map(|(qs, qe, _, _)| (qs.min(qe), qs.max(qe)))
            .collect()
    }
}

/// The percentage of `query_len` the union of `ranges` (1-based, inclusive) covers, a
/// whole number as BLAST prints `qcovs` and `qcovhsp`: halves round up, and only the
/// whole query is 100 (743 of 744 residues is 99).
fn coverage(mut ranges: Vec<(usize, usize)>, query_len: usize) -> String {
    ranges.sort_unstable();
    let (mut covered, mut reach) = (0usize, 0usize);
    for (start, end) in ranges {
        let from = start.max(reach + 1);
        if end >= from {
            covered += end - from + 1;
        }
        reach = reach.max(end);
    }
    if covered >= query_len {
        return "100".to_string();
    }
    let percent = (0.5 + 100.0 * covered as f64 / query_len as f64).floor() as usize;
    percent.min(99).to_string()
}

/// BLAST's trace-back operations of two aligned rows: the count of a run of identical
/// columns, and for every other column the query's letter then the subject's (`-` for
/// a gap).
fn btop(query: &str, subject: &str) -> String {
    let mut out = String::new();
    let mut same = 0usize;
    for (q, s) in query.chars().zip(subject.chars()) {
        if q == s && q != '-' {
            same += 1;
            continue;
        }
        if same > 0 {
            out.push_str(&same.to_string());
            same = 0;
        }
        out.push(q);
        out.push(s);
    }
    if same > 0 {
        out.push_str(&same.to_string());
    }
    out
}

/// A DNA row read on the other strand: reversed, each base complemented (IUPAC codes
/// too), gaps and `N` kept.
fn reverse_complement_letters(row: &str) -> String {
    row.chars()
        .rev()
        .map(|c| match c {
            'A' => 'T',
            'T' | 'U' => 'A',
            'C' => 'G',
            'G' => 'C',
            'R' => 'Y',
            'Y' => 'R',
            'K' => 'M',
            'M' => 'K',
            'B' => 'V',
            'V' => 'B',
            'D' => 'H',
            'H' => 'D',
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn btop_like_blast() {
        // From blastp 2.12's own line: two identical columns, Y/W, five, K/I, ...
        assert_eq!(btop("MKYGVRYPKSG", "MKWGVRYPISG"), "2YW5KI2");
        assert_eq!(btop("AR-D", "A-ED"), "1R--E1");
        assert_eq!(btop("", ""), "");
    }

    #[test]
    fn coverage_of_overlapping_ranges() {
        assert_eq!(coverage(vec![(1, 45)], 49), "92");
        assert_eq!(coverage(vec![(1, 10), (5, 20), (31, 40)], 100), "30");
        assert_eq!(coverage(vec![(31, 40), (1, 10)], 40), "50");
        // blastp 2.12's own: 10 of 80 is 13, 743 of 744 is 99.
        assert_eq!(coverage(vec![(65, 74)], 80), "13");
        assert_eq!(coverage(vec![(1, 743)], 744), "99");
        assert_eq!(coverage(vec![(1, 744)], 744), "100");
    }

    #[test]
    fn column_lists() {
        assert_eq!(Column::parse_list([]).unwrap(), Column::STANDARD.to_vec());
        let c = Column::parse_list(["std", "qlen", "QCOVS"]).unwrap();
        assert_eq!(c.len(), 14);
        assert_eq!(c[12..], [Column::Qlen, Column::Qcovs]);
        let e = Column::parse_list(["qseqid", "frames"]).unwrap_err().to_string();
        assert!(e.contains("unknown tabular column 'frames'") && e.contains("qcovhsp"), "{e}");
        assert_eq!(reverse_complement_letters("ACG-TN"), "NA-CGT");
    }
}

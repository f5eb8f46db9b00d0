//! Output formats of database search results: BLAST tabular, an extended tabular,
//! SAM, JSON and a readable pairwise view. [`ResultWriter`] writes a stream of
//! [`SearchResult`]s in one of them; the per-line functions are public for callers
//! that build their own output.
//!
//! # Conventions
//!
//! * Coordinates are 1-based and inclusive, as in BLAST and SAM.
//! * **Minus strand (DNA).** clsw aligns the reverse complement of the query with the
//!   subject. BLAST tabular reports such a hit as BLAST does for a Plus/Minus HSP: the
//!   query on its forward strand, `qstart < qend`, and the subject reversed,
//!   `sstart > send`. For an alignment of the reverse-complemented query positions
//!   `a..=b` (0-based) with subject positions `c..=d`: `qstart = m - b`, `qend = m - a`,
//!   `sstart = d + 1`, `send = c + 1` (`m` the query length). The CIGAR of the extended
//!   tabular and of SAM is that of the alignment as computed, reading the subject
//!   forward (SAM's own convention for reverse-strand reads: FLAG 16, SEQ is the
//!   reverse-complemented query). The pairwise view shows the reverse-complemented
//!   query with its own coordinates and says so.
//! * **E-values and bit scores.** Printed like BLAST+ (see [`format_evalue`],
//!   [`format_evalue_pairwise`] and
//!   [`format_bit_score`]). When the search has no statistics
//!   ([`EvalueSource::None`](crate::search::EvalueSource)) both are `NA` in the
//!   tabular formats (read as missing by R and pandas), `null` in JSON, and absent from
//!   SAM records; the pairwise view says "E-values unavailable".
//! * **Tabular** (`-outfmt 6`): `qseqid sseqid pident length mismatch gapopen qstart
//!   qend sstart send evalue bitscore`, tab-separated, no header line, one line per hit
//!   in hit order; `pident` with three decimals; ids are the first word of the FASTA
//!   headers. **Extended tabular** adds the raw score and the CIGAR (`=`/`X`/`I`/`D`)
//!   and starts with one `#` line naming the columns. **ssearch36 `-m 8`**
//!   ([`ssearch_m8_line`]): the same columns with ssearch36's conventions.
//! * **SAM**: the query is the read, the subject the reference. Header: `@HD VN:1.6
//!   SO:unsorted`, one `@SQ` line per database subject (database order, as an aligner
//!   lists its reference), `@PG`; then each query's records as its search ends. Every hit is a record; the best hit of a query is primary, the
//!   others secondary (FLAG 256); a query without hits is an unmapped record (FLAG 4).
//!   CIGAR uses `M` (or `=`/`X` with [`FormatOptions::sam_eqx`]) and soft-clips the
//!   unaligned query ends, so it consumes the whole query. MAPQ is 255 (unavailable),
//!   QUAL `*`. Tags: `AS:i` raw score, `NM:i` edit distance (mismatches + gap
//!   columns), and when available `ZE:f` E-value and `ZB:f` bit score.
//!   A query without an id (a `>` line alone) is named `*`, SAM's name for none; a
//!   subject without an id is an error, as SAM names every reference (`@SQ SN`).
//! * **JSON**: one array, one object per query (see [`query_json`]); E-values and bit
//!   scores without statistics are `null`.

mod columns;

pub use columns::Column;

use crate::align::display::pairwise_view;
use crate::align::{Alignment, Op};
use crate::cfmt;
use crate::scoring::Scoring;
use crate::search::{Hit, SearchResult, Strand, reverse_complement};
use crate::seq::{Database, Sequence};
use serde_json::{Value, json};
use std::io::Write;

crate::error::named_enum! {
    /// The output formats of `clsw scan`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum OutputFormat ("output format", "formats") {
        /// BLAST `-outfmt 6`: its standard columns, or those named ([`OutputSpec`]).
        Tabular = "tabular" | "6" | "blast",
        /// BLAST `-outfmt 7`: the tabular lines with BLAST's comment lines around each
        /// query's.
        TabularComments = "tabular-comments" | "7",
        /// BLAST `-outfmt 6` columns, then raw score and CIGAR.
        TabularExt = "tabular-ext",
        Sam = "sam",
        Json = "json",
        /// A readable report: hit list, then each alignment.
        Pairwise = "pairwise",
        /// ssearch36's `-m 8`: BLAST's twelve columns with ssearch36's conventions.
        SsearchM8 = "ssearch-m8" | "m8",
    }
}

/// An output format with its columns, as `clsw scan --outfmt` reads it: a format's name
/// (or BLAST's number, `6` or `7`), then for the tabular formats BLAST's column names
/// (`"6 qseqid sseqid evalue"`, `"7 std qlen slen"`; none: `std`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSpec {
    pub format: OutputFormat,
    /// The columns of `Tabular` and `TabularComments` ([`Column::STANDARD`] unless named).
    pub columns: Vec<Column>,
}

impl std::str::FromStr for OutputSpec {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<OutputSpec> {
        let mut words = s.split_whitespace();
        let format: OutputFormat = words.next().unwrap_or_default().parse()?;
        let words: Vec<&str> = words.collect();
        if !words.is_empty() && !matches!(format, OutputFormat::Tabular | OutputFormat::TabularComments) {
            return Err(crate::Error::InvalidArgument(format!(
                "output format '{s}': columns are for the tabular formats (6 and 7); {format} has its own"
            )));
        }
        Ok(OutputSpec { format, columns: Column::parse_list(words)? })
    }
}

/// Column names of the extended tabular format.
pub const TABULAR_EXT_COLUMNS: &str =
    "qseqid\tsseqid\tpident\tlength\tmismatch\tgapopen\tqstart\tqend\tsstart\tsend\tevalue\tbitscore\tscore\tcigar";

/// An E-value as BLAST+ `-outfmt 6` prints it (checked against blastp 2.12's own lines,
/// `tests/blast_format.rs`): `0.0` below 1e-180, `%.2e` below 0.0009 (`1.32e-123`,
/// `8.28e-04`), `%.3f` below 0.1, `%.2f` below 1, `%.1f` below 10, `%.0f` above; `NA`
/// when unavailable (NaN).
pub fn format_evalue(e: f64) -> String {
    blast_evalue(e, 2)
}

/// An E-value as BLAST's pairwise report prints it: as [`format_evalue`] but `%.0e`
/// below 0.0009 (`2e-35`).
pub fn format_evalue_pairwise(e: f64) -> String {
    blast_evalue(e, 0)
}

/// BLAST's E-value rule, with `digits` after the point in the exponent form.
fn blast_evalue(e: f64, digits: usize) -> String {
    if e.is_nan() {
        "NA".to_string()
    } else if e < 1.0e-180 {
        "0.0".to_string()
    } else if e < 0.0009 {
        cfmt::e(e, digits)
    } else if e < 0.1 {
        format!("{e:.3}")
    } else if e < 1.0 {
        format!("{e:.2}")
    } else if e < 10.0 {
        format!("{e:.1}")
    } else {
        format!("{e:.0}")
    }
}

/// A bit score as BLAST prints it: `%.3e` above 9999, the integer part above 99.9
/// (truncated, as BLAST's `(long)` cast does), else `%.1f`; `NA` when unavailable.
pub fn format_bit_score(b: f64) -> String {
    if b.is_nan() {
        "NA".to_string()
    } else if b > 9999.0 {
        cfmt::e(b, 3)
    } else if b > 99.9 {
        format!("{}", b as i64)
    } else {
        format!("{b:.1}")
    }
}

/// BLAST's `(qstart, qend, sstart, send)`, 1-based, for an alignment on `strand` of a
/// query of `query_len` residues (see the module documentation for the minus strand).
pub fn blast_coordinates(a: &Alignment, strand: Strand, query_len: usize) -> (usize, usize, usize, usize) {
    match strand {
        Strand::Plus => (a.query_start + 1, a.query_end + 1, a.subject_start + 1, a.subject_end + 1),
        Strand::Minus => (query_len - a.query_end, query_len - a.query_start, a.subject_end + 1, a.subject_start + 1),
    }
}

/// One BLAST tabular line (no newline) for a hit with an alignment: BLAST's standard
/// columns; `extended` appends the raw score and the `=`/`X` CIGAR. `None` when the hit
/// has no alignment.
pub fn tabular_line(result: &SearchResult, hit: &Hit, db: &Database, extended: bool) -> Option<String> {
    let alignment = hit.alignment.as_ref()?;
    let mut columns = Column::STANDARD.to_vec();
    if extended {
        columns.extend([Column::Score, Column::Cigar]);
    }
    Some(columns::Line { result, hit, alignment, db, letters: None }.write(&columns))
}

/// The line ssearch36 `-m 8` writes for a hit: BLAST's twelve columns, but `length`
/// counts the aligned pairs (gap columns left out) and `pident` is the identities among
/// them with two decimals, E-values `%.2g` (`6.7e-34`, `3.8`), bit scores `%.1f`
/// (checked against ssearch36 36.3.8i's own lines, `tests/blast_format.rs`); `NA`
/// without statistics. `None` when the hit has no alignment.
pub fn ssearch_m8_line(result: &SearchResult, hit: &Hit, db: &Database) -> Option<String> {
    let a = hit.alignment.as_ref()?;
    let pairs = a.length() - a.gap_columns;
    let pident = if pairs == 0 { 0.0 } else { 100.0 * a.identities as f64 / pairs as f64 };
    let missing = |x: f64, text: String| if x.is_nan() { "NA".to_string() } else { text };
    let evalue = missing(hit.evalue, cfmt::g(hit.evalue, 2));
    let bits = missing(hit.bit_score, format!("{:.1}", hit.bit_score));
    Some(twelve_columns(result, hit, a, db, (format!("{pident:.2}"), pairs), (evalue, bits)))
}

/// `qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue
/// bitscore` of a hit and its alignment, with the dialect's `(pident, length)` and
/// `(evalue, bitscore)`.
fn twelve_columns(
    result: &SearchResult,
    hit: &Hit,
    a: &Alignment,
    db: &Database,
    (pident, length): (String, usize),
    (evalue, bits): (String, String),
) -> String {
    let (qs, qe, ss, se) = blast_coordinates(a, hit.strand, result.query_len);
    format!(
        "{}\t{}\t{pident}\t{length}\t{}\t{}\t{qs}\t{qe}\t{ss}\t{se}\t{evalue}\t{bits}",
        result.query_id,
        db.id(hit.subject),
        a.mismatches,
        a.gap_opens,
    )
}

/// The SAM CIGAR of an alignment of a query of `query_len` residues: soft clips for the
/// unaligned ends, `M` or (with `eqx`) `=`/`X` for aligned pairs.
pub fn sam_cigar(a: &Alignment, query_len: usize, eqx: bool) -> String {
    let mut out = String::new();
    if a.query_start > 0 {
        out.push_str(&format!("{}S", a.query_start));
    }
    out.push_str(&a.cigar(eqx));
    let tail = query_len.saturating_sub(a.query_end + 1);
    if tail > 0 {
        out.push_str(&format!("{tail}S"));
    }
    out
}

/// Edit distance of an alignment: mismatched and gapped columns.
fn edit_distance(a: &Alignment) -> usize {
    a.ops.iter().filter(|(op, _)| *op != Op::Match).map(|&(_, n)| n as usize).sum()
}

/// A SAM record (no newline) for one hit; `primary` for the query's first hit.
/// `query_seq` holds the letters of the query as aligned on this strand.
fn sam_record(result: &SearchResult, hit: &Hit, db: &Database, query_seq: &str, primary: bool, eqx: bool) -> String {
    let Some(a) = hit.alignment.as_ref() else { return String::new() };
    let mut flag = 0;
    if hit.strand == Strand::Minus {
        flag |= 16;
    }
    if !primary {
        flag |= 256;
    }
    let mut line = format!(
        "{}\t{flag}\t{}\t{}\t255\t{}\t*\t0\t0\t{query_seq}\t*\tAS:i:{}\tNM:i:{}",
        sam_qname(&result.query_id),
        db.id(hit.subject),
        a.subject_start + 1,
        sam_cigar(a, result.query_len, eqx),
        hit.score,
        edit_distance(a)
    );
    if !hit.evalue.is_nan() {
        line.push_str(&format!("\tZE:f:{}", cfmt::e(hit.evalue, 3)));
        line.push_str(&format!("\tZB:f:{:.1}", hit.bit_score));
    }
    line
}

/// A query's SAM QNAME: its id, or `*` (SAM's name for none) when it has none.
fn sam_qname(id: &str) -> &str {
    if id.is_empty() { "*" } else { id }
}

/// Letters of the query on a strand.
fn query_letters(query: &Sequence, strand: Strand, scoring: &Scoring) -> String {
    let alphabet = scoring.matrix.alphabet();
    let codes = match strand {
        Strand::Plus => alphabet.decode_all(&query.residues),
        Strand::Minus => alphabet.decode_all(&reverse_complement(&query.residues)),
    };
    String::from_utf8_lossy(&codes).into_owned()
}

fn number(x: f64) -> Value {
    // serde_json turns non-finite numbers into null.
    json!(x)
}

/// The JSON object of one query's result:
///
/// ```text
/// { "query": id, "query_description": ..., "query_length": m, "strands": ["plus", ...],
///   "database_sequences": D, "database_residues": R,
///   "mode": "local" | "global" | "glocal", "evalue_sequences": the D of the E-values,
///   "evalue_source": "fitted" | "published" | "regression" | "shuffled" | "normal" | "none",
///   "lambda": .. | null, "k": .. | null,
///   "regression": { "rho": .., "mu": .., "variance": .. } | null,   (mean: rho 10 ln n + mu)
///   "normal": { "mu": .., "variance": .., "trimmed": .. } | null,   (global and glocal)
///   "blend": { "weight": .., "prior_source": .., "prior_lambda": .., "prior_k": .. } | null,
///   "statistics_note": text | null, "recomputed": n,
///   "hits": [ { "rank": 1, "subject": id, "subject_index": k (0-based, database order),
///               "subject_description": ..., "subject_length": n, "strand": "plus",
///               "hsp": 0 (the subject's best alignment; 1, 2, ...: its further ones),
///               "score": raw, "bit_score": .. | null, "evalue": .. | null,
///               "alignment": { "pident": .., "length": .., "identities": .., "positives": ..,
///                              "mismatches": .., "gap_opens": .., "gaps": ..,
///                              "qstart": .., "qend": .., "sstart": .., "send": ..,
///                              "cigar": "=/X/I/D CIGAR" } | null } ] }
/// ```
///
/// Coordinates in `alignment` follow the BLAST tabular convention (1-based; minus
/// strand: `sstart > send`). [`ResultWriter`] adds `"kernel_seconds"` and
/// `"wall_seconds"` with [`FormatOptions::timings`].
pub fn query_json(result: &SearchResult, db: &Database, scoring: &Scoring) -> Value {
    let hits: Vec<Value> = result
        .hits
        .iter()
        .enumerate()
        .map(|(rank, h)| {
            let alignment = h.alignment.as_ref().map(|a| {
                let (qs, qe, ss, se) = blast_coordinates(a, h.strand, result.query_len);
                json!({
                    "pident": a.percent_identity(),
                    "length": a.length(),
                    "identities": a.identities,
                    "positives": a.similarities,
                    "mismatches": a.mismatches,
                    "gap_opens": a.gap_opens,
                    "gaps": a.gap_columns,
                    "qstart": qs, "qend": qe, "sstart": ss, "send": se,
                    "cigar": a.cigar(true),
                })
            });
            json!({
                "rank": rank + 1,
                "subject": db.id(h.subject),
                "subject_index": h.subject,
                "subject_description": db.description(h.subject),
                "subject_length": db.seq_len(h.subject),
                "strand": h.strand.name(),
                "hsp": h.hsp,
                "score": h.score,
                "bit_score": number(h.bit_score),
                "evalue": number(h.evalue),
                "alignment": alignment,
            })
        })
        .collect();
    let st = &result.statistics;
    json!({
        "query": result.query_id,
        "query_description": result.query_description,
        "query_length": result.query_len,
        "strands": result.strands_searched.iter().map(|s| s.name()).collect::<Vec<_>>(),
        "database_sequences": db.len(),
        "database_residues": db.total_residues(),
        "mode": scoring.mode.name(),
        "evalue_sequences": st.db_sequences,
        "evalue_source": st.source.name(),
        "lambda": st.params.map(|p| p.lambda),
        "k": st.params.map(|p| p.k),
        "regression": st.regression.map(|r| json!({"rho": r.rho, "mu": r.mu, "variance": r.variance})),
        "normal": st.normal.map(|n| json!({"mu": n.mu, "variance": n.var, "trimmed": n.trimmed})),
        "blend": st.blend.as_ref().map(|b| json!({
            "weight": b.weight,
            "prior_source": b.prior.source.name(),
            "prior_lambda": b.prior.params.map(|p| p.lambda),
            "prior_k": b.prior.params.map(|p| p.k),
        })),
        "statistics_note": st.note,
        "recomputed": result.recomputed,
        "hits": hits,
    })
}

/// The readable report of one query: a hit list, then each hit's alignment.
pub fn pairwise_report(
    result: &SearchResult,
    query: &Sequence,
    db: &Database,
    scoring: &Scoring,
    width: usize,
) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let st = &result.statistics;
    let _ = writeln!(out, "Query= {} {}", result.query_id, result.query_description);
    let strands: Vec<&str> = result.strands_searched.iter().map(|s| s.name()).collect();
    let _ = writeln!(out, "Length={}  Strands searched: {}", result.query_len, strands.join(", "));
    let _ = writeln!(
        out,
        "Database: {} sequences, {} residues; {} {}/{}, {}",
        db.len(),
        db.total_residues(),
        scoring.matrix.name(),
        scoring.gaps.open,
        scoring.gaps.extend,
        scoring.mode
    );
    if let Some(n) = st.normal {
        let _ = writeln!(
            out,
            "E-values: {} (mu {:.4}, variance {:.4}, {} trimmed) over the {} subjects of the query's length window",
            st.source, n.mu, n.var, n.trimmed, st.db_sequences
        );
    }
    match (st.params, st.regression) {
        _ if st.normal.is_some() => {}
        (Some(p), _) => {
            let _ = writeln!(out, "E-values: {} (lambda {:.4}, K {:.4})", st.source, p.lambda, p.k);
        }
        (None, Some(r)) => {
            let _ = writeln!(
                out,
                "E-values: {} (mean {:.4} x 10 ln n + {:.3}, variance {:.3})",
                st.source, r.rho, r.mu, r.variance
            );
        }
        (None, None) => {
            let _ = writeln!(out, "E-values unavailable: {}", st.note.as_deref().unwrap_or("no statistics"));
        }
    }
    if let Some(b) = &st.blend {
        let _ = writeln!(out, "  blended with {} (weight {:.2})", b.prior.source, 1.0 - b.weight);
    }
    let _ = writeln!(out);
    if result.hits.is_empty() {
        let _ = writeln!(out, "***** No hits found *****\n");
        return out;
    }
    let _ =
        writeln!(out, "{:<64} {:>7} {:>7} {:>8}", "Sequences producing significant alignments:", "Score", "Bits", "E");
    for h in &result.hits {
        let mut name = format!("{} {}", db.id(h.subject), db.description(h.subject));
        if name.chars().count() > 64 {
            name = name.chars().take(61).collect::<String>() + "...";
        }
        let _ = writeln!(
            out,
            "{name:<64} {:>7} {:>7} {:>8}",
            h.score,
            format_bit_score(h.bit_score),
            format_evalue_pairwise(h.evalue)
        );
    }
    let minus =
        if result.strands_searched.contains(&Strand::Minus) { reverse_complement(&query.residues) } else { Vec::new() };
    for h in &result.hits {
        let Some(a) = &h.alignment else { continue };
        let _ = writeln!(out, "\n>{} {}", db.id(h.subject), db.description(h.subject));
        let _ = writeln!(out, "Length={}", db.seq_len(h.subject));
        if h.bit_score.is_nan() {
            let _ = writeln!(out, " Score = {} (raw), bits and Expect unavailable", h.score);
        } else {
            let _ = writeln!(
                out,
                " Score = {} bits ({}), Expect = {}",
                format_bit_score(h.bit_score),
                h.score,
                format_evalue_pairwise(h.evalue)
            );
        }
        let q = if h.strand == Strand::Minus {
            let _ = writeln!(
                out,
                " Strand = Minus/Plus: the query is shown reverse-complemented, numbered along the reverse \
                 complement (position p is {} - p on the query)",
                result.query_len + 1
            );
            &minus
        } else {
            &query.residues
        };
        let _ = writeln!(out);
        out.push_str(&pairwise_view(&result.query_id, db.id(h.subject), q, db.residues(h.subject), a, scoring, width));
    }
    let _ = writeln!(out);
    out
}

/// Options of [`ResultWriter`].
#[derive(Debug, Clone)]
pub struct FormatOptions {
    /// SAM CIGAR with `=`/`X` instead of `M`.
    pub sam_eqx: bool,
    /// Columns per line of the pairwise view.
    pub width: usize,
    /// Written to SAM's `@PG CL:` when given.
    pub command_line: Option<String>,
    /// The columns of the tabular formats (`Tabular`, `TabularComments`).
    pub columns: Vec<Column>,
    /// The database's name on `TabularComments`' `# Database:` lines.
    pub database: String,
    /// JSON: each query's kernel and wall seconds (off: two runs of the same search
    /// write the same file).
    pub timings: bool,
}

impl Default for FormatOptions {
    fn default() -> FormatOptions {
        FormatOptions {
            sam_eqx: false,
            width: 60,
            command_line: None,
            columns: Column::STANDARD.to_vec(),
            database: String::new(),
            timings: false,
        }
    }
}

/// Writes search results in one format, query after query.
pub struct ResultWriter<'a, W: Write> {
    format: OutputFormat,
    out: W,
    db: &'a Database,
    scoring: &'a Scoring,
    options: FormatOptions,
    written: usize,
}

impl<'a, W: Write> ResultWriter<'a, W> {
    pub fn new(
        format: OutputFormat,
        out: W,
        db: &'a Database,
        scoring: &'a Scoring,
        options: FormatOptions,
    ) -> ResultWriter<'a, W> {
        ResultWriter { format, out, db, scoring, options, written: 0 }
    }

    /// Writes one query's result (`query` is the record that was searched) and flushes
    /// it, so that a reader downstream (`clsw scan ... | head`) has each query's lines
    /// as soon as they are found (SAM's header before the first).
    pub fn write(&mut self, result: &SearchResult, query: &Sequence) -> std::io::Result<()> {
        let first = self.written == 0;
        self.written += 1;
        match self.format {
            OutputFormat::Tabular | OutputFormat::TabularComments => {
                let aligned = || result.hits.iter().filter_map(|h| h.alignment.as_ref().map(|a| (h, a)));
                if self.format == OutputFormat::TabularComments {
                    self.comment_lines(result, aligned().count())?;
                }
                for (hit, alignment) in aligned() {
                    let letters = Some((query, self.scoring));
                    let line = columns::Line { result, hit, alignment, db: self.db, letters };
                    writeln!(self.out, "{}", line.write(&self.options.columns))?;
                }
            }
            OutputFormat::TabularExt | OutputFormat::SsearchM8 => {
                let ext = self.format == OutputFormat::TabularExt;
                if ext && first {
                    writeln!(self.out, "# {TABULAR_EXT_COLUMNS}")?;
                }
                for h in &result.hits {
                    let line =
                        if ext { tabular_line(result, h, self.db, true) } else { ssearch_m8_line(result, h, self.db) };
                    if let Some(line) = line {
                        writeln!(self.out, "{line}")?;
                    }
                }
            }
            OutputFormat::Sam => {
                if first {
                    self.sam_header()?;
                }
                if result.hits.iter().all(|h| h.alignment.is_none()) {
                    let seq = query_letters(query, Strand::Plus, self.scoring);
                    writeln!(self.out, "{}\t4\t*\t0\t0\t*\t*\t0\t0\t{seq}\t*", sam_qname(&result.query_id))?;
                }
                let mut letters: [Option<String>; 2] = [None, None];
                let mut primary = true;
                for h in result.hits.iter().filter(|h| h.alignment.is_some()) {
                    let slot = if h.strand == Strand::Plus { 0 } else { 1 };
                    let seq = letters[slot].get_or_insert_with(|| query_letters(query, h.strand, self.scoring));
                    let line = sam_record(result, h, self.db, seq, primary, self.options.sam_eqx);
                    writeln!(self.out, "{line}")?;
                    primary = false;
                }
            }
            OutputFormat::Json => {
                let mut value = query_json(result, self.db, self.scoring);
                if self.options.timings {
                    value["kernel_seconds"] = json!(result.kernel_seconds);
                    value["wall_seconds"] = json!(result.wall_seconds);
                }
                let text = serde_json::to_string(&value).map_err(std::io::Error::other)?;
                let sep = if first { "[\n" } else { ",\n" };
                write!(self.out, "{sep}{text}")?;
            }
            OutputFormat::Pairwise => {
                let text = pairwise_report(result, query, self.db, self.scoring, self.options.width);
                self.out.write_all(text.as_bytes())?;
            }
        }
        self.out.flush()
    }

    /// SAM's header: `@HD`, one `@SQ` per database subject, `@PG`. A subject without an
    /// id is an error: SAM names every reference.
    fn sam_header(&mut self) -> std::io::Result<()> {
        writeln!(self.out, "@HD\tVN:1.6\tSO:unsorted")?;
        for k in 0..self.db.len() {
            if self.db.id(k).is_empty() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "subject {} of the database has no id, and SAM names every reference sequence (@SQ SN); \
                         give it one, or choose another output format",
                        k + 1
                    ),
                ));
            }
            writeln!(self.out, "@SQ\tSN:{}\tLN:{}", self.db.id(k), self.db.seq_len(k))?;
        }
        write!(self.out, "@PG\tID:clsw\tPN:clsw\tVN:{}", crate::VERSION)?;
        if let Some(cl) = &self.options.command_line {
            write!(self.out, "\tCL:{}", cl.replace(['\t', '\n'], " "))?;
        }
        writeln!(self.out)
    }

    /// `-outfmt 7`'s comment lines before a query's tabular lines, as BLAST+ writes
    /// them: the program, the query's header, the database, the columns (when there are
    /// hits) and the number of lines that follow.
    fn comment_lines(&mut self, result: &SearchResult, lines: usize) -> std::io::Result<()> {
        writeln!(self.out, "# CLSW {}", crate::VERSION)?;
        match result.query_description.as_str() {
            "" => writeln!(self.out, "# Query: {}", result.query_id)?,
            d => writeln!(self.out, "# Query: {} {d}", result.query_id)?,
        }
        writeln!(self.out, "# Database: {}", self.options.database)?;
        if lines > 0 {
            let fields: Vec<&str> = self.options.columns.iter().map(|c| c.field()).collect();
            writeln!(self.out, "# Fields: {}", fields.join(", "))?;
        }
        writeln!(self.out, "# {lines} hits found")
    }

    /// Ends the output (SAM without a query: its header; JSON: the closing bracket;
    /// `TabularComments`: BLAST's last comment line) and returns the writer, flushed.
    pub fn finish(mut self) -> std::io::Result<W> {
        match self.format {
            OutputFormat::TabularComments => writeln!(self.out, "# BLAST processed {} queries", self.written)?,
            OutputFormat::TabularExt if self.written == 0 => writeln!(self.out, "# {TABULAR_EXT_COLUMNS}")?,
            OutputFormat::Json => write!(self.out, "{}", if self.written == 0 { "[]\n" } else { "\n]\n" })?,
            OutputFormat::Sam if self.written == 0 => self.sam_header()?,
            _ => {}
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evalues_and_bit_scores_like_blast() {
        let evalues = [
            (0.0, "0.0"),
            (1e-200, "0.0"),
            (1.4e-120, "1.40e-120"),
            (3.2e-45, "3.20e-45"),
            (0.00051, "5.10e-04"),
            (0.0123, "0.012"),
            (0.456, "0.46"),
            (3.125, "3.1"),
            (123.4, "123"),
            (f64::NAN, "NA"),
        ];
        for (e, want) in evalues {
            assert_eq!(format_evalue(e), want, "E = {e}");
        }
        for (e, want) in [(1.4e-120, "1e-120"), (2.3e-35, "2e-35"), (0.00051, "5e-04"), (4.6, "4.6")] {
            assert_eq!(format_evalue_pairwise(e), want, "E = {e}");
        }
        let bits = [(45.678, "45.7"), (99.9, "99.9"), (123.9, "123"), (12345.6, "1.235e+04"), (f64::NAN, "NA")];
        for (b, want) in bits {
            assert_eq!(format_bit_score(b), want, "bits = {b}");
        }
    }

    #[test]
    fn output_format_names() {
        for f in OutputFormat::ALL {
            assert_eq!(f.name().parse::<OutputFormat>().unwrap(), f);
        }
        assert_eq!("6".parse::<OutputFormat>().unwrap(), OutputFormat::Tabular);
        assert!("xml".parse::<OutputFormat>().is_err());
    }
}

//! Reading distance inputs, streamed straight into bit planes (at most the packed form
//! and a small batch of raw records are held in memory):
//!
//! - a FASTA multiple alignment (plain or gzip), letters kept as they are (gaps and
//!   IUPAC codes included), all sequences the same length;
//! - a PLINK 1 binary fileset `.bed` + `.bim` + `.fam` (variant-major, 2 bits per call);
//! - a plain genotype table: one sample per line, its name, then 0/1/2 per site, -1,
//!   NA, `.` or N for a missing call (the rules: [`read_genotype_table`]).

use super::packed::{Coding, Packed};
use crate::error::{Error, Result};
use crate::memory;
use crate::seq::fasta::{self, FastaReader};
use crate::textfile::{Lines, MAX_LINE, MAX_TABLE_LINE};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// A sample's name: PLINK's family and individual ids (for FASTA and tables both are
/// the record's id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleName {
    pub family: String,
    pub id: String,
}

impl SampleName {
    pub fn same(id: &str) -> SampleName {
        SampleName { family: id.to_string(), id: id.to_string() }
    }
}

/// Named samples, packed.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub names: Vec<SampleName>,
    pub packed: Packed,
}

/// Reads aligned FASTA records with their letters untouched: the FASTA reader in its
/// aligned mode (ASCII letters, `-`, `.`, `?` and `*`; whitespace skipped), with each
/// record's number and header line for messages.
pub struct AlignmentReader<R> {
    inner: FastaReader<R>,
    source: String,
}

/// One record of an alignment.
#[derive(Debug, Clone)]
pub struct AlignedRecord {
    pub id: String,
    /// 1-based record number and line of its header, for messages.
    pub record: usize,
    pub line: usize,
    pub letters: Vec<u8>,
}

impl<R: BufRead> AlignmentReader<R> {
    pub fn new(input: R, source: impl Into<String>) -> Self {
        let source = source.into();
        AlignmentReader { inner: FastaReader::aligned(input, source.clone()), source }
    }

    fn error(&self, record: usize, id: &str, line: usize, message: String) -> Error {
        Error::Fasta { source_name: self.source.clone(), record, id: id.to_string(), line, message }
    }

    /// The next record, `None` at the end.
    pub fn next_record(&mut self) -> Result<Option<AlignedRecord>> {
        let Some(seq) = self.inner.next_record()? else { return Ok(None) };
        let (record, line, _) = self.inner.position();
        Ok(Some(AlignedRecord { id: seq.id, record, line, letters: seq.residues }))
    }
}

/// Most raw bytes of records held at once before they are packed (in parallel).
const BATCH_BYTES: usize = 256 << 20;

/// Reads a FASTA multiple alignment (plain or gzip) into bit planes for `coding`.
/// Every sequence must have the first one's length; an empty input, or sequences with
/// no sites, are errors.
pub fn read_alignment(path: &Path, coding: Coding) -> Result<Dataset> {
    let reader = AlignmentReader::new(fasta::open_input(path)?, path.display().to_string());
    read_alignment_from(reader, coding)
}

/// As [`read_alignment`], from any reader.
pub fn read_alignment_from<R: BufRead>(mut reader: AlignmentReader<R>, coding: Coding) -> Result<Dataset> {
    if coding.is_genotype() {
        return Err(Error::InvalidArgument("an alignment needs a nucleotide coding".into()));
    }
    let lut = Packed::letter_lut(coding);
    let mut names = Vec::new();
    let mut packed: Option<Packed> = None;
    let mut first: Option<(String, usize)> = None;
    let mut batch: Vec<AlignedRecord> = Vec::new();
    let mut batch_bytes = 0;
    let mut rows = Vec::new();
    let flush = |batch: &mut Vec<AlignedRecord>, packed: &Packed, rows: &mut Vec<Vec<u64>>| {
        // The reader has checked every letter already.
        rows.par_extend(batch.par_iter().map(|r| packed.pack_letters(&r.letters, &lut).expect("checked letters")));
        batch.clear();
    };
    loop {
        let rec = reader.next_record()?;
        let Some(rec) = rec else { break };
        match &first {
            None => {
                if rec.letters.is_empty() {
                    return Err(reader.error(
                        rec.record,
                        &rec.id,
                        rec.line,
                        "the first sequence is empty: an alignment needs at least one site".into(),
                    ));
                }
                first = Some((rec.id.clone(), rec.letters.len()));
                packed = Some(Packed::new(coding, rec.letters.len()));
            }
            Some((first_id, len)) if rec.letters.len() != *len => {
                return Err(reader.error(
                    rec.record,
                    &rec.id,
                    rec.line,
                    format!(
                        "sequence '{}' has {} sites, but the first sequence '{first_id}' has {len}: all sequences of \
                         an alignment must have the same length",
                        rec.id,
                        rec.letters.len()
                    ),
                ));
            }
            _ => {}
        }
        names.push(SampleName::same(&rec.id));
        batch_bytes += rec.letters.len();
        batch.push(rec);
        if batch_bytes >= BATCH_BYTES {
            flush(&mut batch, packed.as_ref().unwrap(), &mut rows);
            batch_bytes = 0;
        }
    }
    let Some(packed) = packed else {
        return Err(reader.error(0, "", reader.inner.position().2.max(1), "contains no sequences".into()));
    };
    flush(&mut batch, &packed, &mut rows);
    let sites = packed.sites();
    Ok(Dataset { names, packed: Packed::from_rows(coding, sites, rows) })
}

/// The three files of a PLINK 1 binary fileset.
pub fn bfile_paths(prefix: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let with = |ext: &str| {
        let mut s = prefix.as_os_str().to_owned();
        s.push(ext);
        PathBuf::from(s)
    };
    (with(".bed"), with(".bim"), with(".fam"))
}

/// The lines of a text file that are not blank, each at most [`MAX_LINE`] bytes.
fn text_lines(path: &Path) -> Result<Lines<BufReader<File>>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(Lines::new(BufReader::new(file), path.display().to_string(), MAX_LINE))
}

/// Reads a PLINK 1 binary fileset (`prefix.bed`, `.bim`, `.fam`). Calls are coded by
/// PLINK's 2-bit values: 00 homozygous for the first allele (genotype 0), 10
/// heterozygous (1), 11 homozygous for the second allele (2), 01 missing. The `.bed`
/// must be variant-major and exactly `3 + variants x ceil(samples / 4)` bytes.
pub fn read_bed(prefix: &Path) -> Result<Dataset> {
    let (bed, bim, fam) = bfile_paths(prefix);
    let mut names = Vec::new();
    let mut fam_lines = text_lines(&fam)?;
    while let Some((no, l)) = fam_lines.next_line()? {
        let mut f = l.split_whitespace();
        match (f.next(), f.next()) {
            (Some(fid), Some(iid)) => {
                let name = SampleName { family: fid.to_string(), id: iid.to_string() };
                memory::grow(&mut names, "the sample names", 1)?;
                names.push(name);
            }
            (None, _) => {}
            _ => return Err(fam_lines.error(no, "fewer than two fields (family and individual id)")),
        }
    }
    let variants = {
        let mut count = 0usize;
        let mut bim_lines = text_lines(&bim)?;
        while let Some((_, l)) = bim_lines.next_line()? {
            count += usize::from(!l.trim().is_empty());
        }
        count
    };
    let n = names.len();
    if n == 0 {
        return Err(Error::InvalidArgument(format!("{}: no samples", fam.display())));
    }
    if variants == 0 {
        return Err(Error::InvalidArgument(format!("{}: no variants", bim.display())));
    }
    let row_bytes = n.div_ceil(4);
    let want = 3 + variants as u64 * row_bytes as u64;
    let file = File::open(&bed).map_err(|e| Error::io(&bed, e))?;
    let size = file.metadata().map_err(|e| Error::io(&bed, e))?.len();
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut magic = [0u8; 3];
    if size < 3 || input.read_exact(&mut magic).is_err() || magic[..2] != [0x6c, 0x1b] {
        return Err(Error::InvalidArgument(format!(
            "{}: not a PLINK 1 .bed file (it does not start with the bytes 6c 1b)",
            bed.display()
        )));
    }
    if magic[2] != 0x01 {
        return Err(Error::InvalidArgument(format!(
            "{}: sample-major .bed files (PLINK 1.0 mode byte {:02x}) are not supported; rewrite it with \
             `plink --bfile ... --make-bed`",
            bed.display(),
            magic[2]
        )));
    }
    if size != want {
        return Err(Error::InvalidArgument(format!(
            "{}: {size} bytes, but {} lists {variants} variants and {} lists {n} samples, which need 3 + {variants} x \
             {row_bytes} = {want} bytes",
            bed.display(),
            bim.display(),
            fam.display()
        )));
    }
    let packed = Packed::new(Coding::Genotype, variants);
    let words = packed.words();
    let rows_words = memory::count("the genotypes of the .bed file", &[n, 3, words])?;
    memory::check("the genotypes of the .bed file", memory::bytes_of::<u64>(rows_words))?;
    let mut rows = memory::vec_with_capacity("the genotypes of the .bed file", n)?;
    for _ in 0..n {
        rows.push(memory::vec_filled("the genotypes of the .bed file", 3 * words, 0u64)?);
    }
    // 64 variants at a time: every sample gets one word per plane.
    let mut block = memory::vec_filled("a block of the .bed file", 64 * row_bytes, 0u8)?;
    for w in 0..variants.div_ceil(64) {
        let count = (variants - w * 64).min(64);
        input.read_exact(&mut block[..count * row_bytes]).map_err(|e| Error::io(&bed, e))?;
        let block = &block[..count * row_bytes];
        // The slots past the last sample in a variant's last byte are zero bits: calls
        // there are samples the .fam does not list (a .fam a few samples short needs
        // the same bytes).
        if n % 4 != 0
            && let Some(k) = (0..count).find(|&k| block[(k + 1) * row_bytes - 1] >> (2 * (n % 4)) != 0)
        {
            return Err(Error::InvalidArgument(format!(
                "{}: variant {} has calls past the {n} samples that {} lists (its last byte's padding bits are \
                 not zero): the .fam is missing samples, or the .bed is damaged",
                bed.display(),
                w * 64 + k + 1,
                fam.display()
            )));
        }
        rows.par_iter_mut().enumerate().with_min_len(64).for_each(|(s, row)| {
            let (byte, shift) = (s / 4, (s % 4) * 2);
            let (mut x, mut y, mut v) = (0u64, 0u64, 0u64);
            for k in 0..count {
                let call = (block[k * row_bytes + byte] >> shift) & 3;
                // 00 -> 0 (x=0,y=0), 10 -> 1 (x=1), 11 -> 2 (x=1,y=1), 01 missing.
                let (cx, cy, cv) = match call {
                    0b00 => (0, 0, 1),
                    0b10 => (1, 0, 1),
                    0b11 => (1, 1, 1),
                    _ => (0, 0, 0),
                };
                x |= cx << k;
                y |= cy << k;
                v |= cv << k;
            }
            row[w] = x;
            row[words + w] = y;
            row[2 * words + w] = v;
        });
    }
    Ok(Dataset { names, packed: Packed::from_rows(Coding::Genotype, variants, rows) })
}

fn genotype_token(t: &str) -> Option<i8> {
    match t {
        "0" => Some(0),
        "1" => Some(1),
        "2" => Some(2),
        "-1" | "NA" | "na" | "." | "N" => Some(-1),
        _ => None,
    }
}

/// The header rule of genotype tables: a line of at least two fields none of whose
/// fields after the first is a genotype value or a number (`sample snp1 snp2`).
fn is_header(fields: &[&str]) -> bool {
    fields.len() >= 2 && fields[1..].iter().all(|f| genotype_token(f).is_none() && f.parse::<f64>().is_err())
}

/// Reads a genotype table. The format, with no guessing:
///
/// - fields are separated by tabs or spaces; in a line with a tab, by tabs alone, and
///   an empty field there is a missing call (`A<TAB>0<TAB><TAB>2` is `A 0 NA 2`); blank
///   lines and lines starting with `#` are skipped; a UTF-8 byte-order mark before the
///   first line is not part of it;
/// - every sample line is the sample's name, then one call per site: 0, 1, 2, or -1,
///   NA, `.` or N for a missing call;
/// - the first line may be a header naming the columns: it is one when none of its
///   fields after the first is a genotype value or a number (`sample snp1 snp2 ...`),
///   and then every sample line must have as many fields. A header that does not
///   follow this rule (site names that are numbers) must be commented out with `#`.
///
/// Anything else is an error naming the file, line, column and value: a call that is
/// not a genotype (a typo in the first sample is not taken for a header), sample lines
/// of different lengths, and, without a header, a table whose every sample name is a
/// genotype value (`0 1 2`: a table without names, whose first site would be read as
/// the names).
pub fn read_genotype_table(path: &Path) -> Result<Dataset> {
    let mut lines = Lines::new(fasta::open_input(path)?, path.display().to_string(), MAX_TABLE_LINE);
    let name = path.display().to_string();
    let bad = |line: usize, m: String| Error::InvalidArgument(format!("{name}: line {line}: {m}"));
    let mut names = Vec::new();
    let mut rows = Vec::new();
    let mut packed: Option<Packed> = None;
    let mut header: Option<(usize, usize)> = None;
    let mut first_line = true;
    let mut values = Vec::new();
    while let Some((no, line)) = lines.next_line()? {
        let k = no - 1;
        // Tabs are kept at the ends: a last empty field is a missing call too.
        let t = if k == 0 { line.trim_start_matches('\u{feff}') } else { line }
            .trim_matches(|c: char| c != '\t' && c.is_whitespace());
        if t.trim().is_empty() || t.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = if t.contains('\t') {
            t.split('\t').map(str::trim).collect()
        } else {
            t.split_ascii_whitespace().collect()
        };
        if std::mem::take(&mut first_line) && is_header(&fields) {
            header = Some((k + 1, fields.len()));
            continue;
        }
        let (id, calls) = (fields[0], &fields[1..]);
        if id.is_empty() {
            return Err(bad(k + 1, "the sample's name (the first field) is empty".into()));
        }
        values.clear();
        for (f, tok) in calls.iter().enumerate() {
            let g = if tok.is_empty() { Some(-1) } else { genotype_token(tok) };
            let g = g.ok_or_else(|| {
                bad(
                    k + 1,
                    format!(
                        "column {}: '{tok}' is not a genotype (0, 1, 2, or -1/NA/./N for missing); a line is a \
                         sample's name, then one genotype per site",
                        f + 2
                    ),
                )
            })?;
            values.push(g);
        }
        if let Some((at, n)) = header
            && fields.len() != n
        {
            return Err(bad(
                k + 1,
                format!("sample '{id}' has {} fields, but the header (line {at}) has {n}", fields.len()),
            ));
        }
        let p = match &packed {
            Some(p) => {
                if values.len() != p.sites() {
                    return Err(bad(
                        k + 1,
                        format!("sample '{id}' has {} sites, but the first sample has {}", values.len(), p.sites()),
                    ));
                }
                p
            }
            None => {
                if values.is_empty() {
                    return Err(bad(
                        k + 1,
                        format!("sample '{id}' has no genotypes (a line is a name, then genotypes)"),
                    ));
                }
                packed.insert(Packed::new(Coding::Genotype, values.len()))
            }
        };
        memory::grow(&mut rows, "the genotype table's samples", 1)?;
        memory::grow(&mut names, "the genotype table's samples", 1)?;
        rows.push(p.pack_genotypes(&values));
        names.push(SampleName::same(id));
    }
    let Some(p) = packed else {
        return Err(Error::InvalidArgument(format!("{name}: no samples (the table is empty)")));
    };
    if header.is_none() && names.iter().all(|n| genotype_token(&n.id).is_some()) {
        return Err(Error::InvalidArgument(format!(
            "{name}: every sample's name (the first column) is a genotype value, so the table seems to have no \
             names and its first site would be read as them: start each line with the sample's name, or add a \
             header line (e.g. `sample snp1 snp2 ...`)"
        )));
    }
    Ok(Dataset { names, packed: Packed::from_rows(Coding::Genotype, p.sites(), rows) })
}

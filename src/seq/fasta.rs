//! Streaming FASTA reader: plain or gzip (detected from the magic bytes), multi-line
//! records, `\n` or `\r\n` line ends. The id of a record is the first word of its
//! header; the rest is its description. Headers must be UTF-8 text (other bytes are an
//! error naming the line and column, never replaced), and ids follow
//! [`super::check_id`].
//!
//! Letters are encoded as they are read (see [`Alphabet`]). A byte that is not a
//! residue letter is an error naming the record, the line and the character. Valid
//! letters without a code of their own are stored as X / N and counted in the
//! [`ReadReport`]. A record with no residues is an error unless the reader was told to
//! skip empty records, in which case each one is listed in the report.

use super::Sequence;
use super::alphabet::{Alphabet, Encoded, describe_byte};
use crate::error::{Error, Result};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// What to do with a record that has a header but no residues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmptyRecords {
    /// Stop with an error naming the record (the default).
    #[default]
    Error,
    /// Leave it out and list it in [`ReadReport::empty_records`].
    Skip,
}

/// What a reader saw, beyond the records it returned.
#[derive(Debug, Clone, Default)]
pub struct ReadReport {
    /// Records returned.
    pub records: usize,
    /// Residues returned.
    pub residues: u64,
    /// Letters stored as the wildcard (X or N), by original letter (upper case).
    pub substituted: Vec<(char, u64)>,
    /// Empty records that were skipped: (1-based line of the header, id).
    pub empty_records: Vec<(usize, String)>,
}

impl ReadReport {
    /// A one-line human summary of substitutions and skipped records, or `None` when
    /// there is nothing to say.
    pub fn notes(&self, alphabet: Alphabet) -> Option<String> {
        let mut parts = Vec::new();
        if !self.substituted.is_empty() {
            let wild = alphabet.decode(alphabet.wildcard()) as char;
            let list: Vec<String> = self.substituted.iter().map(|(c, n)| format!("{c} x{n}")).collect();
            parts.push(format!("letters read as {wild}: {}", list.join(", ")));
        }
        if !self.empty_records.is_empty() {
            let list: Vec<String> =
                self.empty_records.iter().map(|(line, id)| format!("'{id}' (line {line})")).collect();
            parts.push(format!("{} empty record(s) skipped: {}", list.len(), list.join(", ")));
        }
        if parts.is_empty() { None } else { Some(parts.join("; ")) }
    }
}

/// Reads FASTA records one at a time.
pub struct FastaReader<R> {
    input: R,
    source_name: String,
    alphabet: Alphabet,
    /// Keep letters as they are (aligned FASTA: letters, `-`, `.`, `?`, `*`) instead of
    /// encoding them with `alphabet`.
    aligned: bool,
    empty: EmptyRecords,
    line_no: usize,
    /// The header line of the record returned last.
    header_line: usize,
    /// The header line of the next record, already read: (line number, text after '>').
    pending_header: Option<(usize, Vec<u8>)>,
    record_no: usize,
    substituted: [u64; 256],
    report: ReadReport,
    buf: Vec<u8>,
    done: bool,
}

/// A file's contents, decompressed when it is gzip (detected from the magic bytes).
pub fn open_input(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let magic = reader.fill_buf().map_err(|e| Error::io(path, e))?;
    Ok(if magic.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(1 << 20, MultiGzDecoder::new(reader)))
    } else {
        Box::new(reader)
    })
}

/// Opens a FASTA file, plain or gzip-compressed.
pub fn open(path: &Path, alphabet: Alphabet) -> Result<FastaReader<Box<dyn BufRead + Send>>> {
    Ok(FastaReader::new(open_input(path)?, path.display().to_string(), alphabet))
}

/// Reads every record of a FASTA file. An input with no records at all is an error.
pub fn read_file(path: &Path, alphabet: Alphabet, empty: EmptyRecords) -> Result<(Vec<Sequence>, ReadReport)> {
    open(path, alphabet)?.with_empty_records(empty).read_all()
}

/// Guesses the alphabet of a FASTA file from its first residues (see [`Alphabet::guess`]).
pub fn guess_alphabet(path: &Path) -> Result<Alphabet> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::new(file);
    let magic = reader.fill_buf().map_err(|e| Error::io(path, e))?;
    let input: Box<dyn Read> =
        if magic.starts_with(&[0x1f, 0x8b]) { Box::new(MultiGzDecoder::new(reader)) } else { Box::new(reader) };
    let mut sample = Vec::new();
    for line in BufReader::new(input.take(1 << 20)).split(b'\n') {
        let line = line.map_err(|e| Error::io(path, e))?;
        if !line.starts_with(b">") && !line.starts_with(b";") {
            sample.extend_from_slice(&line);
            if sample.len() >= 10_000 {
                break;
            }
        }
    }
    Ok(Alphabet::guess(&sample))
}

impl<R: BufRead> FastaReader<R> {
    /// Wraps any buffered input; `source_name` is used in error messages.
    pub fn new(input: R, source_name: impl Into<String>, alphabet: Alphabet) -> Self {
        FastaReader {
            input,
            source_name: source_name.into(),
            alphabet,
            aligned: false,
            empty: EmptyRecords::default(),
            line_no: 0,
            header_line: 0,
            pending_header: None,
            record_no: 0,
            substituted: [0; 256],
            report: ReadReport::default(),
            buf: Vec::new(),
            done: false,
        }
    }

    /// A reader of aligned FASTA: residues are the letters as written (ASCII letters,
    /// `-`, `.`, `?` and `*`), not alphabet codes; any other byte except blanks is an error.
    pub fn aligned(input: R, source_name: impl Into<String>) -> Self {
        FastaReader { aligned: true, ..FastaReader::new(input, source_name, Alphabet::Dna) }
    }

    /// The 1-based record number and header line of the record returned last, and the
    /// line read last (for callers' own messages about a record).
    pub fn position(&self) -> (usize, usize, usize) {
        (self.record_no, self.header_line, self.line_no)
    }

    /// Chooses what happens to empty records.
    pub fn with_empty_records(mut self, empty: EmptyRecords) -> Self {
        self.empty = empty;
        self
    }

    /// What has been read so far.
    pub fn report(&self) -> ReadReport {
        let mut r = self.report.clone();
        r.substituted =
            (0..256).filter(|&b| self.substituted[b] > 0).map(|b| (b as u8 as char, self.substituted[b])).collect();
        r
    }

    /// Reads all remaining records; fails if there were none at all.
    pub fn read_all(mut self) -> Result<(Vec<Sequence>, ReadReport)> {
        let mut out = Vec::new();
        while let Some(seq) = self.next_record()? {
            out.push(seq);
        }
        if out.is_empty() {
            let what = if self.report.empty_records.is_empty() {
                "contains no FASTA records"
            } else {
                "contains only empty FASTA records"
            };
            return Err(Error::Fasta {
                source_name: self.source_name.clone(),
                record: 0,
                id: String::new(),
                line: self.line_no.max(1),
                message: what.to_string(),
            });
        }
        Ok((out, self.report()))
    }

    fn error(&self, line: usize, id: &str, message: String) -> Error {
        Error::Fasta {
            source_name: self.source_name.clone(),
            record: self.record_no,
            id: id.to_string(),
            line,
            message,
        }
    }

    /// Reads one line into `self.buf` without its line end; false at end of input.
    fn read_line(&mut self) -> Result<bool> {
        self.buf.clear();
        let n = self.input.read_until(b'\n', &mut self.buf).map_err(|e| Error::Fasta {
            source_name: self.source_name.clone(),
            record: self.record_no,
            id: String::new(),
            line: self.line_no + 1,
            message: format!("read failed: {e}"),
        })?;
        if n == 0 {
            return Ok(false);
        }
        self.line_no += 1;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        Ok(true)
    }

    /// The next record, `None` at the end of the input.
    pub fn next_record(&mut self) -> Result<Option<Sequence>> {
        loop {
            if self.done {
                return Ok(None);
            }
            // Find the header: either read ahead by the previous record, or the first
            // non-blank, non-comment line of the input.
            let (header_line, header) = match self.pending_header.take() {
                Some(h) => h,
                None => loop {
                    if !self.read_line()? {
                        self.done = true;
                        return Ok(None);
                    }
                    let line = self.buf.trim_ascii();
                    if line.is_empty() || line.starts_with(b";") {
                        continue;
                    }
                    if let Some(rest) = self.buf.strip_prefix(b">") {
                        break (self.line_no, rest.to_vec());
                    }
                    let b = line[0];
                    return Err(self.error(
                        self.line_no,
                        "",
                        format!("expected a '>' header, found {} (is this a FASTA file?)", describe_byte(b)),
                    ));
                },
            };
            self.record_no += 1;
            // Ids and descriptions are text, kept exactly: bytes that are not UTF-8 are
            // refused (re-encode the file, e.g. with iconv), never replaced.
            let header = std::str::from_utf8(&header).map_err(|e| {
                let at = e.valid_up_to();
                let message = format!(
                    "the header is not UTF-8 text: {} at column {} (convert the file to UTF-8, e.g. with iconv)",
                    describe_byte(header[at]),
                    at + 2
                );
                self.error(header_line, "", message)
            })?;
            let (id, description) = super::split_header(header);
            super::check_id(id).map_err(|m| self.error(header_line, "", m))?;
            let (id, description) = (id.to_string(), description.to_string());
            let mut residues = Vec::new();
            while self.read_line()? {
                if self.buf.starts_with(b">") {
                    self.pending_header = Some((self.line_no, self.buf[1..].to_vec()));
                    break;
                }
                // The common line: every byte a letter of the alphabet as it is, encoded in
                // one pass (anything else is undone and read letter by letter below).
                if !self.aligned {
                    let start = residues.len();
                    let mut plain = true;
                    residues.extend(self.buf.iter().map_while(|&b| {
                        let code = self.alphabet.exact_code(b);
                        plain &= code.is_some();
                        code
                    }));
                    if plain {
                        continue;
                    }
                    residues.truncate(start);
                }
                for (col, &b) in self.buf.iter().enumerate() {
                    if self.aligned {
                        if b.is_ascii_alphabetic() || matches!(b, b'-' | b'.' | b'?' | b'*') {
                            residues.push(b);
                        } else if !b.is_ascii_whitespace() {
                            let message =
                                format!("{} at column {} is not an alignment letter", describe_byte(b), col + 1);
                            return Err(self.error(self.line_no, &id, message));
                        }
                        continue;
                    }
                    match self.alphabet.encode(b) {
                        Encoded::Exact(c) => residues.push(c),
                        Encoded::Substituted(c) => {
                            residues.push(c);
                            self.substituted[b.to_ascii_uppercase() as usize] += 1;
                        }
                        Encoded::Invalid if b == b' ' || b == b'\t' => {}
                        Encoded::Invalid => {
                            return Err(self.error(
                                self.line_no,
                                &id,
                                format!(
                                    "{} at column {} is not a {} residue letter",
                                    describe_byte(b),
                                    col + 1,
                                    self.alphabet.name()
                                ),
                            ));
                        }
                    }
                }
            }
            if self.pending_header.is_none() {
                self.done = true;
            }
            if residues.is_empty() {
                match self.empty {
                    EmptyRecords::Error => {
                        return Err(self.error(header_line, &id, "record is empty (no residues)".to_string()));
                    }
                    EmptyRecords::Skip => {
                        self.report.empty_records.push((header_line, id));
                        continue;
                    }
                }
            }
            self.report.records += 1;
            self.report.residues += residues.len() as u64;
            self.header_line = header_line;
            return Ok(Some(Sequence { id, description, residues }));
        }
    }
}

impl<R: BufRead> Iterator for FastaReader<R> {
    type Item = Result<Sequence>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &[u8], empty: EmptyRecords) -> Result<(Vec<Sequence>, ReadReport)> {
        FastaReader::new(text, "test.fa", Alphabet::Protein).with_empty_records(empty).read_all()
    }

    #[test]
    fn multi_line_records_and_crlf() {
        let (seqs, rep) = read(b">sp|P1|A first protein\r\nMKV\r\nLA\r\n\r\n>P2\nWW\n", EmptyRecords::Error).unwrap();
        assert_eq!(seqs.len(), 2);
        assert_eq!(seqs[0].id, "sp|P1|A");
        assert_eq!(seqs[0].description, "first protein");
        assert_eq!(Alphabet::Protein.decode_all(&seqs[0].residues), b"MKVLA");
        assert_eq!(seqs[1].id, "P2");
        assert_eq!(rep.records, 2);
        assert_eq!(rep.residues, 7);
    }

    #[test]
    fn substitutions_are_counted() {
        let (seqs, rep) = read(b">a\nMUUOj\n", EmptyRecords::Error).unwrap();
        assert_eq!(Alphabet::Protein.decode_all(&seqs[0].residues), b"MXXXX");
        assert_eq!(rep.substituted, vec![('J', 1), ('O', 1), ('U', 2)]);
        assert!(rep.notes(Alphabet::Protein).unwrap().contains("U x2"));
    }

    #[test]
    fn digit_is_an_error_naming_record_line_and_character() {
        let err = read(b">a\nMKV\n>b second\nMK\nAC3D\n", EmptyRecords::Error).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("line 5"), "{msg}");
        assert!(msg.contains("record 2"), "{msg}");
        assert!(msg.contains("'b'"), "{msg}");
        assert!(msg.contains("'3'"), "{msg}");
        assert!(msg.contains("column 3"), "{msg}");
    }

    #[test]
    fn empty_records_error_or_reported() {
        let text = b">a\nMK\n>empty\n>c\nWW\n";
        let msg = read(text, EmptyRecords::Error).unwrap_err().to_string();
        assert!(msg.contains("'empty'") && msg.contains("no residues") && msg.contains("line 3"), "{msg}");
        let (seqs, rep) = read(text, EmptyRecords::Skip).unwrap();
        assert_eq!(seqs.len(), 2);
        assert_eq!(rep.empty_records, vec![(3, "empty".to_string())]);
        assert!(rep.notes(Alphabet::Protein).unwrap().contains("'empty' (line 3)"));
    }

    #[test]
    fn no_records_and_garbage() {
        assert!(read(b"", EmptyRecords::Error).unwrap_err().to_string().contains("no FASTA records"));
        assert!(read(b"\n\n", EmptyRecords::Error).is_err());
        let msg = read(b"\x7fELF\x02\x01\x00", EmptyRecords::Error).unwrap_err().to_string();
        assert!(msg.contains("expected a '>' header") && msg.contains("line 1"), "{msg}");
        let msg = read(b">x\nMK\x00V\n", EmptyRecords::Error).unwrap_err().to_string();
        assert!(msg.contains("\\x00"), "{msg}");
    }

    #[test]
    fn headers_are_kept_exactly_or_refused() {
        // UTF-8 beyond ASCII is kept as it is.
        let (seqs, _) = read(">α1 café\nMK\n".as_bytes(), EmptyRecords::Error).unwrap();
        assert_eq!((seqs[0].id.as_str(), seqs[0].description.as_str()), ("α1", "café"));
        // Latin-1 bytes are refused with the line, column and byte, never replaced.
        let msg = read(b">a\nMK\n>sp|caf\xe9 x\nMK\n", EmptyRecords::Error).unwrap_err().to_string();
        assert!(msg.contains("line 3") && msg.contains("not UTF-8") && msg.contains("\\xE9 at column 8"), "{msg}");
        // A control character in an id could end a tabular or SAM field: refused.
        let msg = read(b">a\x01b desc\nMK\n", EmptyRecords::Error).unwrap_err().to_string();
        assert!(msg.contains("line 1") && msg.contains("U+0001 at character 2"), "{msg}");
        // Control characters in a description are no field of those records: kept.
        let (seqs, _) = read(b">a x\x01y\tz\nMK\n", EmptyRecords::Error).unwrap();
        assert_eq!(seqs[0].description, "x\x01y\tz");
    }

    #[test]
    fn aligned_mode_keeps_letters_and_gaps() {
        let mut r = FastaReader::aligned(&b">a x\nAC-gN\n>b\n.?*T\n"[..], "aln.fa");
        assert_eq!(r.next_record().unwrap().unwrap().residues, b"AC-gN");
        let b = r.next_record().unwrap().unwrap();
        assert_eq!((b.residues.as_slice(), r.position().0, r.position().1), (&b".?*T"[..], 2, 3));
        let err = FastaReader::aligned(&b">a\nAC1\n"[..], "aln.fa").next_record().unwrap_err().to_string();
        assert!(err.contains("'1' at column 3 is not an alignment letter"), "{err}");
    }

    #[test]
    fn gzip_input_is_detected() {
        use flate2::{Compression, write::GzEncoder};
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("clsw-fasta-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.fa.gz");
        let mut enc = GzEncoder::new(File::create(&path).unwrap(), Compression::default());
        enc.write_all(b">g1 gz\nACGT\nAC\n").unwrap();
        enc.finish().unwrap();
        assert_eq!(guess_alphabet(&path).unwrap(), Alphabet::Dna);
        let (seqs, _) = read_file(&path, Alphabet::Dna, EmptyRecords::Error).unwrap();
        assert_eq!(seqs[0].residues, vec![0, 1, 2, 3, 0, 1]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Over 600 lines with its unit tests (the reader itself is under 580).
//!
//! Streaming FASTA reader: plain or gzip (detected from the magic bytes), multi-line
//! records, `\n` or `\r\n` line ends; FASTQ too, when the first header is an `@`
//! line (sequence lines up to the `+` line, then as many quality characters, `!` to
//! `~`, as residues: checked, not kept). The id of a record is the first word of its
//! header; the rest is its description. Headers must be UTF-8 text (other bytes are an
//! error naming the line and column, never replaced), and ids follow
//! [`super::check_id`].
//!
//! Letters are encoded as they are read (see [`Alphabet`]). A byte that is not a
//! residue letter is an error naming the record, the line and the character. Valid
//! letters without a code of their own are stored as X / N and counted in the
//! [`ReadReport`]. A record with no residues is an error unless the reader was told to
//! skip empty records, in which case each one is listed in the report.
//!
//! No line is held in memory whole unless it is short: sequence lines are read in
//! pieces (blanks, tabs and carriage returns in them are skipped), header lines may be
//! at most [`MAX_LINE`] bytes, and an input whose first byte that is not blank is
//! neither `>` nor `;` is refused at that byte (so `/dev/zero` or a binary file is an
//! error at line 1, not an endless read). The residues are held in memory taken
//! fallibly ([`crate::memory`]).

use super::Sequence;
use super::alphabet::{Alphabet, Encoded, describe_byte};
use crate::error::{Error, Result};
use crate::memory;
use crate::textfile::{self, LineRead, MAX_LINE};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The bytes of a sequence line handled at once.
const PIECE: usize = 1 << 16;

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
            let count = crate::words::counted(list.len() as u64, "empty record", "empty records");
            parts.push(format!("{count} skipped: {}", list.join(", ")));
        }
        if parts.is_empty() { None } else { Some(parts.join("; ")) }
    }

    /// [`ReadReport::notes`] as the note of the file at `path` (`PATH: NOTES`), the line
    /// every front end shows for it.
    pub fn file_note(&self, path: &Path, alphabet: Alphabet) -> Option<String> {
        self.notes(alphabet).map(|notes| format!("{}: {notes}", path.display()))
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
    /// The input is FASTQ (its first header is an `@` line).
    fastq: bool,
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

/// Whether `path` names standard input: `-`, or `/dev/stdin`.
pub fn is_stdin(path: &Path) -> bool {
    path == Path::new("-") || path == Path::new("/dev/stdin")
}

/// Everything `input` holds, taken fallibly ([`crate::memory`]); errors name `name`.
fn read_whole(mut input: impl Read, name: impl AsRef<Path>) -> Result<Vec<u8>> {
    let name = name.as_ref();
    let (mut bytes, mut chunk) = (Vec::new(), vec![0u8; 1 << 16]);
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(name, e)),
        };
        crate::memory::grow(&mut bytes, format_args!("{}", name.display()), n)?;
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// Standard input, read whole on first use and kept: a pipe cannot be read twice, and
/// an input is read twice (its alphabet guessed from its first residues, then its
/// records). The bytes are taken fallibly ([`crate::memory`]); an error reading them is
/// returned to every later use too.
fn stdin_bytes() -> Result<&'static [u8]> {
    static BYTES: std::sync::OnceLock<std::result::Result<Vec<u8>, (std::io::ErrorKind, String)>> =
        std::sync::OnceLock::new();
    let read = || -> std::result::Result<Vec<u8>, (std::io::ErrorKind, String)> {
        read_whole(std::io::stdin().lock(), "standard input").map_err(|e| match e {
            Error::Io { source, .. } => (source.kind(), source.to_string()),
            other => (std::io::ErrorKind::OutOfMemory, other.to_string()),
        })
    };
    match BYTES.get_or_init(read) {
        Ok(bytes) => Ok(bytes),
        Err((kind, message)) => Err(Error::io("standard input", std::io::Error::new(*kind, message.clone()))),
    }
}

/// The bytes of a FIFO (a named pipe, or `/dev/fd/N` from process substitution), read
/// whole on first use and kept, as standard input's are: it cannot be opened twice
/// (the second `open` waits for a writer that has gone), and an input is read twice
/// (its alphabet guessed, then its records; a database's first bytes checked for a
/// prepared one's). Anything else: `None` (a character device such as `/dev/zero` is
/// opened as often as needed, and read a line at a time, within the line limits).
fn stream_bytes(path: &Path) -> Result<Option<&'static [u8]>> {
    type Kept = std::sync::Mutex<Vec<(std::path::PathBuf, &'static [u8])>>;
    static KEPT: Kept = std::sync::Mutex::new(Vec::new());
    if is_stdin(path) || !is_fifo(path) {
        return Ok(None);
    }
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, bytes)) = kept.iter().find(|(p, _)| p == path) {
        return Ok(Some(bytes));
    }
    let bytes = read_whole(File::open(path).map_err(|e| Error::io(path, e))?, path)?;
    // Kept for the process's life, as standard input's bytes are.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    kept.push((path.to_path_buf(), bytes));
    Ok(Some(bytes))
}

/// Whether `path` is a FIFO (a named pipe, or a pipe behind `/dev/fd/N`).
#[cfg(unix)]
fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

#[cfg(not(unix))]
fn is_fifo(_: &Path) -> bool {
    false
}

/// The first `n` bytes of an input (fewer when it is shorter), without consuming it:
/// a FIFO or standard input is read whole and kept ([`stream_bytes`]).
pub fn first_bytes(path: &Path, n: usize) -> Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    raw_input(path)?.take(n as u64).read_to_end(&mut head).map_err(|e| Error::io(path, e))?;
    Ok(head)
}

/// Whether `path` names a regular file (what a prepared database must be, to be mapped).
pub fn is_regular_file(path: &Path) -> bool {
    !is_stdin(path) && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// A file's bytes as they are (standard input for `-`, see [`is_stdin`]; a FIFO or
/// another stream read whole once, see [`stream_bytes`]).
fn raw_input(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    if is_stdin(path) {
        return Ok(Box::new(std::io::Cursor::new(stdin_bytes()?)));
    }
    if let Some(bytes) = stream_bytes(path)? {
        return Ok(Box::new(std::io::Cursor::new(bytes)));
    }
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(Box::new(BufReader::with_capacity(1 << 20, file)))
}

/// A file's contents, decompressed when it is gzip (detected from the magic bytes);
/// `-` is standard input ([`is_stdin`]).
pub fn open_input(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let mut reader = raw_input(path)?;
    let magic = reader.fill_buf().map_err(|e| Error::io(path, e))?;
    Ok(if magic.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(1 << 20, Gzip::new(reader)))
    } else {
        Box::new(reader)
    })
}

/// gzip data, every member in turn, whose errors past the first member say so: bytes
/// after a complete member that are not a whole member (trailing junk, or a member cut
/// short at its header) read as "unexpected end of file" or "invalid gzip header",
/// which sounded like a damaged first member.
struct Gzip<R: BufRead> {
    inner: MultiGzDecoder<R>,
    /// Bytes decompressed so far.
    produced: u64,
}

impl<R: BufRead> Gzip<R> {
    fn new(reader: R) -> Gzip<R> {
        Gzip { inner: MultiGzDecoder::new(reader), produced: 0 }
    }
}

impl<R: BufRead> Read for Gzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.produced += n as u64;
                Ok(n)
            }
            // flate2's errors for a member's header (a cut-off deflate stream is
            // "incomplete deflate stream"): past output, a later member's header.
            Err(e)
                if self.produced > 0
                    && matches!(e.to_string().as_str(), "unexpected end of file" | "invalid gzip header") =>
            {
                Err(std::io::Error::new(
                    e.kind(),
                    format!(
                        "{e} after {} decompressed bytes: what follows the last complete gzip member is not a \
                         whole gzip member (trailing junk, or a member cut short; `gzip -t` calls it trailing garbage)",
                        self.produced
                    ),
                ))
            }
            Err(e) => Err(e),
        }
    }
}

/// An input's name in messages: its path, or "standard input".
pub fn input_name(path: &Path) -> String {
    if is_stdin(path) { "standard input".to_string() } else { path.display().to_string() }
}

/// Opens a FASTA file, plain or gzip-compressed.
pub fn open(path: &Path, alphabet: Alphabet) -> Result<FastaReader<Box<dyn BufRead + Send>>> {
    Ok(FastaReader::new(open_input(path)?, input_name(path), alphabet))
}

/// Reads every record of a FASTA file. An input with no records at all is an error.
pub fn read_file(path: &Path, alphabet: Alphabet, empty: EmptyRecords) -> Result<(Vec<Sequence>, ReadReport)> {
    open(path, alphabet)?.with_empty_records(empty).read_all()
}

/// Guesses the alphabet of a FASTA (or FASTQ) file from its first residues (see
/// [`Alphabet::guess`]). In FASTQ the residues are taken from the line after each
/// header of four-line records (the guess only; the reader takes any layout).
pub fn guess_alphabet(path: &Path) -> Result<Alphabet> {
    let mut reader = raw_input(path)?;
    let magic = reader.fill_buf().map_err(|e| Error::io(path, e))?;
    let input: Box<dyn Read> =
        if magic.starts_with(&[0x1f, 0x8b]) { Box::new(Gzip::new(reader)) } else { Box::new(reader) };
    let mut sample = Vec::new();
    // Lines since the first FASTQ header (None: not FASTQ, or no header yet).
    let mut fastq_line: Option<usize> = None;
    for line in BufReader::new(input.take(1 << 20)).split(b'\n') {
        let line = line.map_err(|e| Error::io(path, e))?;
        if sample.is_empty() && fastq_line.is_none() && line.starts_with(b"@") {
            fastq_line = Some(0);
        }
        if let Some(k) = fastq_line.as_mut() {
            *k += 1;
            if *k % 4 != 2 {
                continue;
            }
        }
        if fastq_line.is_some() || (!line.starts_with(b">") && !line.starts_with(b";")) {
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
            fastq: false,
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

    fn read_error(&self, e: std::io::Error) -> Error {
        Error::Fasta {
            source_name: self.source_name.clone(),
            record: self.record_no,
            id: String::new(),
            line: self.line_no.max(1),
            message: format!("read failed: {e}"),
        }
    }

    /// The next byte of the input, not consumed; `None` at its end.
    fn peek(&mut self) -> Result<Option<u8>> {
        match self.input.fill_buf() {
            Ok(b) => Ok(b.first().copied()),
            Err(e) => Err(self.read_error(e)),
        }
    }

    /// Reads the rest of the current line, up to [`MAX_LINE`] bytes, into `self.buf`
    /// without its line end (`\n` or `\r\n`); a longer line is an error.
    fn read_limited_line(&mut self) -> Result<()> {
        let read = textfile::read_line_within(&mut self.input, &mut self.buf, MAX_LINE);
        if read.map_err(|e| self.read_error(e))? == LineRead::TooLong {
            let message = format!("line is longer than {MAX_LINE} bytes (is this a FASTA file?)");
            return Err(self.error(self.line_no, "", message));
        }
        Ok(())
    }

    /// Reads the next piece of the current line into `self.buf`: at most [`PIECE`]
    /// bytes, without the line end. True when the line ended with this piece.
    fn read_piece(&mut self) -> Result<bool> {
        self.buf.clear();
        let available = match self.input.fill_buf() {
            Ok(b) => b,
            Err(e) => return Err(self.read_error(e)),
        };
        let window = &available[..available.len().min(PIECE)];
        let (taken, consumed, ended) = match window.iter().position(|&b| b == b'\n') {
            Some(i) => (i, i + 1, true),
            None => (window.len(), window.len(), window.is_empty()),
        };
        self.buf.extend_from_slice(&window[..taken]);
        self.input.consume(consumed);
        Ok(ended)
    }

    /// Finds the first header: blank lines and `;` comment lines before it are
    /// skipped (without holding them in memory); any other first byte is refused at
    /// once. `None` at the end of the input.
    fn first_header(&mut self) -> Result<Option<(usize, Vec<u8>)>> {
        let mut line_start = true;
        loop {
            let Some(b) = self.peek()? else { return Ok(None) };
            if line_start {
                self.line_no += 1;
                line_start = false;
                if b == b'>' || (b == b'@' && !self.aligned) {
                    self.fastq = b == b'@';
                    self.read_limited_line()?;
                    return Ok(Some((self.line_no, self.buf[1..].to_vec())));
                }
            }
            match b {
                b'\n' => line_start = true,
                b';' => {
                    while !self.read_piece()? {}
                    line_start = true;
                    continue;
                }
                b if b.is_ascii_whitespace() => {}
                b => {
                    let message = format!("expected a '>' header, found {} (is this a FASTA file?)", describe_byte(b));
                    return Err(self.error(self.line_no, "", message));
                }
            }
            self.input.consume(1);
        }
    }

    /// Reads one sequence line, piece by piece (a line of any length needs no more
    /// memory than its residues), appending its residues.
    fn read_sequence_line(&mut self, id: &str, residues: &mut Vec<u8>) -> Result<()> {
        self.line_no += 1;
        let mut column = 0;
        loop {
            let ended = self.read_piece()?;
            memory::grow(residues, format_args!("the residues of '{id}'"), self.buf.len())?;
            self.encode_piece(id, column, residues)?;
            column += self.buf.len();
            if ended {
                return Ok(());
            }
        }
    }

    /// Appends the residues of `self.buf`, a piece of a sequence line starting at
    /// 0-based `column`; blanks (space, tab, carriage return) are skipped.
    fn encode_piece(&mut self, id: &str, column: usize, residues: &mut Vec<u8>) -> Result<()> {
        // The common piece: every byte a letter of the alphabet as it is, encoded in
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
                return Ok(());
            }
            residues.truncate(start);
        }
        for (col, &b) in self.buf.iter().enumerate() {
            let col = column + col;
            if self.aligned {
                if b.is_ascii_alphabetic() || matches!(b, b'-' | b'.' | b'?' | b'*') {
                    residues.push(b);
                } else if !b.is_ascii_whitespace() {
                    let message = format!("{} at column {} is not an alignment letter", describe_byte(b), col + 1);
                    return Err(self.error(self.line_no, id, message));
                }
                continue;
            }
            match self.alphabet.encode(b) {
                Encoded::Exact(c) => residues.push(c),
                Encoded::Substituted(c) => {
                    residues.push(c);
                    self.substituted[b.to_ascii_uppercase() as usize] += 1;
                }
                Encoded::Invalid if matches!(b, b' ' | b'\t' | b'\r') => {}
                Encoded::Invalid => {
                    let message = format!(
                        "{} at column {} is not a {} residue letter",
                        describe_byte(b),
                        col + 1,
                        self.alphabet.name()
                    );
                    return Err(self.error(self.line_no, id, message));
                }
            }
        }
        Ok(())
    }

    /// The rest of a FASTQ record after its `@` header: sequence lines up to the `+`
    /// line, then quality lines until they hold as many characters (`!` to `~`) as the
    /// sequence has residues (a quality line may start with `@`, so only the count ends
    /// it); then the next `@` header, read ahead, after any blank lines.
    fn read_fastq_body(&mut self, id: &str, residues: &mut Vec<u8>) -> Result<()> {
        loop {
            match self.peek()? {
                None => {
                    let message = "the FASTQ record ends before its '+' line".to_string();
                    return Err(self.error(self.line_no, id, message));
                }
                Some(b'+') => break,
                Some(_) => self.read_sequence_line(id, residues)?,
            }
        }
        self.line_no += 1;
        self.read_limited_line()?;
        let mut quality = 0usize;
        while quality < residues.len() && self.peek()?.is_some() {
            self.line_no += 1;
            loop {
                let ended = self.read_piece()?;
                for (col, &b) in self.buf.iter().enumerate() {
                    if b == b'\r' {
                        continue;
                    }
                    if !(b'!'..=b'~').contains(&b) {
                        let message =
                            format!("{} at column {} is not a FASTQ quality character", describe_byte(b), col + 1);
                        return Err(self.error(self.line_no, id, message));
                    }
                    quality += 1;
                }
                if ended {
                    break;
                }
            }
        }
        if quality != residues.len() {
            let message = format!("the FASTQ quality has {quality} characters for {} residues", residues.len());
            return Err(self.error(self.line_no, id, message));
        }
        loop {
            match self.peek()? {
                None => return Ok(()),
                Some(b'@') => {
                    self.line_no += 1;
                    self.read_limited_line()?;
                    self.pending_header = Some((self.line_no, self.buf[1..].to_vec()));
                    return Ok(());
                }
                Some(b'\n' | b'\r' | b' ' | b'\t') => {
                    self.line_no += 1;
                    self.read_limited_line()?;
                    if !self.buf.iter().all(u8::is_ascii_whitespace) {
                        let message = "expected an '@' header after the quality line".to_string();
                        return Err(self.error(self.line_no, "", message));
                    }
                }
                Some(b) => {
                    let message = format!("expected an '@' header, found {}", describe_byte(b));
                    return Err(self.error(self.line_no + 1, "", message));
                }
            }
        }
    }

    /// The next record, `None` at the end of the input. After an error the reader is
    /// done: later calls return `None` (the error may have left the input mid-line).
    pub fn next_record(&mut self) -> Result<Option<Sequence>> {
        let next = self.read_record();
        if next.is_err() {
            self.done = true;
        }
        next
    }

    fn read_record(&mut self) -> Result<Option<Sequence>> {
        loop {
            if self.done {
                return Ok(None);
            }
            // The header: read ahead by the previous record, or the input's first.
            let (header_line, header) = match self.pending_header.take() {
                Some(h) => h,
                None => match self.first_header()? {
                    Some(h) => h,
                    None => {
                        self.done = true;
                        return Ok(None);
                    }
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
            // A line end of CR alone (classic Mac OS) leaves the whole file on the
            // header's line: refused, not read as a record without residues.
            if let Some(at) = header.find('\r') {
                let message = format!(
                    "a carriage return at column {} of the header: the file's lines seem to end in CR alone (classic \
                     Mac OS); convert them to \\n (e.g. tr '\\r' '\\n')",
                    at + 2
                );
                return Err(self.error(header_line, "", message));
            }
            let (id, description) = super::split_header(header);
            super::check_id(id).map_err(|m| self.error(header_line, "", m))?;
            let (id, description) = (id.to_string(), description.to_string());
            let mut residues = Vec::new();
            if self.fastq {
                self.read_fastq_body(&id, &mut residues)?;
            }
            while let Some(b) = self.peek()?.filter(|_| !self.fastq) {
                if b == b'>' {
                    self.line_no += 1;
                    self.read_limited_line()?;
                    self.pending_header = Some((self.line_no, self.buf[1..].to_vec()));
                    break;
                }
                self.read_sequence_line(&id, &mut residues)?;
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
    fn fastq_records_of_any_layout() {
        let text = b"@r1 first read\r\nMKV\r\nLA\r\n+r1\r\n@@II\r\nI\r\n@r2\nWW\n+\n#@\n\n";
        let (seqs, rep) = read(text, EmptyRecords::Error).unwrap();
        assert_eq!(rep.records, 2);
        assert_eq!((seqs[0].id.as_str(), seqs[0].description.as_str()), ("r1", "first read"));
        assert_eq!(Alphabet::Protein.decode_all(&seqs[0].residues), b"MKVLA");
        assert_eq!(Alphabet::Protein.decode_all(&seqs[1].residues), b"WW");
        let fails = [
            (&b"@r1\nMKV\n+\nII\n"[..], "quality has 2 characters for 3 residues", 4),
            (b"@r1\nMKV\n+\nIIII\n@r2\nW\n+\nI\n", "quality has 4 characters for 3 residues", 4),
            (b"@r1\nMKV\n", "ends before its '+' line", 2),
            (b"@r1\nMKV\n+\nI I\n", "a space at column 2 is not a FASTQ quality character", 4),
            (b"@r1\nMKV\n+\nIII\n>r2\nW\n", "expected an '@' header, found '>'", 5),
            (b"@r1\nMK1\n+\nIII\n", "'1' at column 3 is not a protein residue letter", 2),
        ];
        for (text, want, line) in fails {
            let e = read(text, EmptyRecords::Error).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains(&format!("line {line}")), "{e}");
        }
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
    fn long_lines_are_read_in_pieces_and_long_headers_refused() {
        // A sequence line three pieces long, its bad byte past the second piece.
        let mut text = b">long\n".to_vec();
        text.extend(std::iter::repeat_n(b'W', 2 * PIECE + 4));
        text.extend(b"\r\n\nKV\n");
        let (seqs, _) = read(&text, EmptyRecords::Error).unwrap();
        assert_eq!(seqs[0].residues.len(), 2 * PIECE + 6);
        text.truncate(6 + 2 * PIECE + 4);
        text.extend(b"W1W\n");
        let msg = read(&text, EmptyRecords::Error).unwrap_err().to_string();
        assert!(msg.contains(&format!("'1' at column {} ", 2 * PIECE + 6)) && msg.contains("line 2"), "{msg}");
        let mut header = b">".to_vec();
        header.extend(std::iter::repeat_n(b'h', MAX_LINE + 1));
        let msg = read(&header, EmptyRecords::Error).unwrap_err().to_string();
        assert!(msg.contains("line 1") && msg.contains("longer than 16777216 bytes"), "{msg}");
    }

    #[test]
    fn input_that_is_not_fasta_is_refused_at_its_first_byte() {
        // An endless input of zeros (as /dev/zero) ends at once.
        let zeros = std::io::BufReader::new(std::io::repeat(0));
        let msg = FastaReader::new(zeros, "/dev/zero", Alphabet::Dna).next_record().unwrap_err().to_string();
        assert_eq!(msg, "/dev/zero: line 1: expected a '>' header, found byte \\x00 (is this a FASTA file?)");
        let (seqs, _) = read(b"\n  \r\n; comment\n;\n>a\nMK\n", EmptyRecords::Error).unwrap();
        assert_eq!(seqs[0].id, "a");
        let msg = read(b"\n\n  x\n", EmptyRecords::Error).unwrap_err().to_string();
        assert!(msg.contains("line 3") && msg.contains("found 'x'"), "{msg}");
        // An iterator that goes on after the error ends (it once returned the error forever).
        let mut reader = FastaReader::new(&b"\xff;\n>e\nMK\n"[..], "x.fa", Alphabet::Protein);
        assert!(reader.next().unwrap().is_err());
        assert!(reader.next().is_none());
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
    fn line_ends_of_cr_alone_are_refused_not_read_as_empty_records() {
        for empty in [EmptyRecords::Error, EmptyRecords::Skip] {
            let err = read(b">a first\rMKV\r>b\rWW\r", empty).unwrap_err().to_string();
            assert!(err.contains("line 1") && err.contains("end in CR alone"), "{err}");
        }
        // CR LF is a line end.
        assert_eq!(read(b">a\r\nMKV\r\n", EmptyRecords::Error).unwrap().0[0].residues.len(), 3);
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
        // FASTQ: the residues, not the quality letters (which look like protein).
        let fq = dir.join("x.fq");
        std::fs::write(&fq, b"@r1\nACGTACGTAC\n+\nIIIIFFFFEE\n@r2\nGGTTAACC\n+\nHHHHHHHH\n").unwrap();
        assert_eq!(guess_alphabet(&fq).unwrap(), Alphabet::Dna);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

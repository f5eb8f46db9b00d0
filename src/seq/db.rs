//! A sequence database for search: every subject's id, description and residues,
//! held back to back so that they can be handed to a device in one piece.
//!
//! A [`Database`] is built from a FASTA file ([`Database::from_fasta`]), from records
//! already in memory ([`Database::from_sequences`]), or opened from a *prepared
//! database* file ([`Database::open_prepared`]) written by [`Database::write_prepared`]
//! (the `clsw makedb` command). [`Database::open`] takes either kind of file and tells
//! them apart by the magic bytes.
//!
//! # Prepared database format, version 1
//!
//! All integers are little-endian. The file is a fixed 64-byte header followed by four
//! sections; every section starts at a multiple of 8 bytes and is padded with zero
//! bytes to the next multiple of 8 (the file length is therefore a multiple of 8).
//!
//! | offset | size | header field                                                     |
//! |-------:|-----:|------------------------------------------------------------------|
//! |      0 |    8 | magic `b"CLSWDB\0\x01"` (the same for every format version)       |
//! |      8 |    4 | format version (`u32`, currently 1)                              |
//! |     12 |    4 | alphabet (`u32`): 0 protein, 1 DNA                               |
//! |     16 |    8 | number of sequences `n` (`u64`, at most `u32::MAX`)              |
//! |     24 |    8 | total residues `r` (`u64`)                                       |
//! |     32 |    8 | size of the names blob `b` in bytes (`u64`)                      |
//! |     40 |    8 | length of the longest sequence (`u64`)                           |
//! |     48 |    8 | checksum of bytes 64 to the end of the file (`u64`)              |
//! |     56 |    8 | checksum of bytes 0..56 of the header (`u64`)                    |
//!
//! | section      | content                                                            | size before padding |
//! |--------------|--------------------------------------------------------------------|--------------------:|
//! | lengths      | the length of each sequence, `u32`, database order                 |              `4 n`  |
//! | name offsets | `2n + 1` offsets (`u64`) into the names blob: the id of sequence `k` is `names[o[2k]..o[2k+1]]`, its description `names[o[2k+1]..o[2k+2]]`; `o[0] = 0`, `o[2n] = b` | `8 (2n + 1)` |
//! | names        | UTF-8 text of all ids and descriptions back to back                |                `b`  |
//! | residues     | the residue codes of all sequences back to back, database order    |                `r`  |
//!
//! The checksum is [`checksum`], a word-wise 64-bit hash written for this format: the
//! input is read as little-endian 8-byte words dealt round-robin to four independent
//! lanes, so it runs at memory speed; any change confined to one 8-byte word is
//! always detected.
//!
//! Opening checks, in this order, and fails with a message naming the file: the magic
//! ("not a clsw prepared database"), the header length, the format version (an older
//! or newer file must be rebuilt with `clsw makedb`), the header checksum, the
//! alphabet, the file length against the section sizes (truncated or trailing bytes),
//! the body checksum (damaged), and then the content itself: lengths add up to `r`
//! and agree with the longest length, name offsets are in order, in bounds and on
//! character boundaries, names are UTF-8, and every residue code is below the
//! alphabet size. Nothing in the file is used before it has been checked.
//!
//! The residues of a prepared database are not copied: the file is memory-mapped and
//! [`Database::residues`] slices into the mapping. Like every memory-mapped file, it
//! must not be modified by another program while it is open; `write_prepared` writes
//! a temporary file and renames it over the destination, so rebuilding a database
//! that is open elsewhere is safe.

use super::Sequence;
use super::alphabet::Alphabet;
use super::fasta::{self, EmptyRecords, ReadReport};
use crate::error::{Error, Result};
use memmap2::{Mmap, MmapOptions};
use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The first 8 bytes of every prepared database, whatever its format version.
pub const MAGIC: [u8; 8] = *b"CLSWDB\0\x01";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Size of the fixed header in bytes.
pub const HEADER_LEN: usize = 64;

const REBUILD: &str = "re-run `clsw makedb` to rebuild it from the FASTA file";

/// Where the residues of a database live.
enum Residues {
    /// Read from FASTA or built in memory.
    Owned(Vec<u8>),
    /// A prepared file mapped into memory; the residues are `map[start..start + len]`,
    /// checked to be in bounds when the file was opened.
    Mapped { map: Mmap, start: usize, len: usize },
}

impl Residues {
    #[inline]
    fn as_slice(&self) -> &[u8] {
        match self {
            Residues::Owned(v) => v,
            Residues::Mapped { map, start, len } => &map[*start..*start + *len],
        }
    }
}

/// A set of subject sequences ready for search.
///
/// Sequences keep their input order ("database order", index `k`); [`order_by_length`]
/// gives the order in which kernels take them.
///
/// [`order_by_length`]: Database::order_by_length
pub struct Database {
    alphabet: Alphabet,
    /// All ids and descriptions back to back.
    names: String,
    /// `2n + 1` offsets into `names` (see the format description).
    name_offsets: Vec<usize>,
    lengths: Vec<u32>,
    /// `n + 1` offsets into the residues: sequence `k` is `offsets[k]..offsets[k + 1]`.
    offsets: Vec<u64>,
    residues: Residues,
    order: Vec<u32>,
    max_len: usize,
}

impl fmt::Debug for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Database")
            .field("alphabet", &self.alphabet)
            .field("sequences", &self.len())
            .field("total_residues", &self.total_residues())
            .field("max_len", &self.max_len)
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

/// Accumulates records into the in-memory form of a database.
struct Builder {
    alphabet: Alphabet,
    names: String,
    name_offsets: Vec<usize>,
    lengths: Vec<u32>,
    offsets: Vec<u64>,
    residues: Vec<u8>,
}

impl Builder {
    fn new(alphabet: Alphabet, residue_capacity: usize) -> Builder {
        Builder {
            alphabet,
            names: String::new(),
            name_offsets: vec![0],
            lengths: Vec::new(),
            offsets: vec![0],
            residues: Vec::with_capacity(residue_capacity),
        }
    }

    /// Adds one record; `Err` carries the reason it cannot be stored.
    fn push(&mut self, seq: &Sequence) -> std::result::Result<(), String> {
        if self.lengths.len() >= u32::MAX as usize {
            return Err(format!("a database holds at most {} sequences", u32::MAX));
        }
        let len = u32::try_from(seq.residues.len()).map_err(|_| {
            format!("sequence '{}' has {} residues, more than the {} allowed", seq.id, seq.residues.len(), u32::MAX)
        })?;
        self.names.push_str(&seq.id);
        self.name_offsets.push(self.names.len());
        self.names.push_str(&seq.description);
        self.name_offsets.push(self.names.len());
        self.lengths.push(len);
        self.residues.extend_from_slice(&seq.residues);
        self.offsets.push(self.residues.len() as u64);
        Ok(())
    }

    fn finish(mut self) -> Database {
        self.residues.shrink_to_fit();
        let max_len = self.lengths.iter().copied().max().unwrap_or(0) as usize;
        let order = length_order(&self.lengths);
        Database {
            alphabet: self.alphabet,
            names: self.names,
            name_offsets: self.name_offsets,
            lengths: self.lengths,
            offsets: self.offsets,
            residues: Residues::Owned(self.residues),
            order,
            max_len,
        }
    }
}

/// Indices sorted by ascending length, ties by index.
fn length_order(lengths: &[u32]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..lengths.len() as u32).collect();
    // Stable, so equal lengths keep database order.
    order.sort_by_key(|&k| lengths[k as usize]);
    order
}

fn alphabet_code(alphabet: Alphabet) -> u32 {
    match alphabet {
        Alphabet::Protein => 0,
        Alphabet::Dna => 1,
    }
}

fn alphabet_from_code(code: u32) -> Option<Alphabet> {
    match code {
        0 => Some(Alphabet::Protein),
        1 => Some(Alphabet::Dna),
        _ => None,
    }
}

/// `n` rounded up to a multiple of 8, `None` on overflow.
fn pad8(n: u64) -> Option<u64> {
    n.checked_add(7).map(|v| v & !7)
}

/// The section sizes (padded) that a header describes, and the file length they add up to.
struct Layout {
    lengths: u64,
    name_offsets: u64,
    names: u64,
    residues: u64,
}

impl Layout {
    fn new(n: u64, names: u64, residues: u64) -> Option<Layout> {
        Some(Layout {
            lengths: pad8(n.checked_mul(4)?)?,
            name_offsets: n.checked_mul(2)?.checked_add(1)?.checked_mul(8)?,
            names: pad8(names)?,
            residues: pad8(residues)?,
        })
    }

    fn file_len(&self) -> Option<u64> {
        (HEADER_LEN as u64)
            .checked_add(self.lengths)?
            .checked_add(self.name_offsets)?
            .checked_add(self.names)?
            .checked_add(self.residues)
    }
}

impl Database {
    /// Reads a FASTA file (plain or gzip), streaming: records are appended as they are
    /// read, never all held as separate [`Sequence`]s. An input with no records is the
    /// FASTA reader's error.
    pub fn from_fasta(path: &Path, alphabet: Alphabet, empty: EmptyRecords) -> Result<(Database, ReadReport)> {
        let mut reader = fasta::open(path, alphabet)?.with_empty_records(empty);
        // The file size bounds the residues of a plain file; for gzip it is a start.
        let capacity = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0).min(usize::MAX as u64) as usize;
        let mut builder = Builder::new(alphabet, capacity);
        while let Some(seq) = reader.next_record()? {
            builder.push(&seq).map_err(|m| Error::InvalidArgument(format!("{}: {m}", path.display())))?;
        }
        if builder.lengths.is_empty() {
            // The reader is at the end of its input: read_all() now gives its own
            // "no records" error, with the line number and any skipped empty records.
            return Err(match reader.read_all() {
                Err(e) => e,
                Ok(_) => Error::InvalidArgument(format!("{}: contains no FASTA records", path.display())),
            });
        }
        let report = reader.report();
        Ok((builder.finish(), report))
    }

    /// Builds a database from records in memory, keeping their order.
    ///
    /// # Panics
    ///
    /// If a residue code is not below `alphabet.size()` (the records were not encoded
    /// for `alphabet`), a sequence is longer than `u32::MAX` residues, or there are
    /// more than `u32::MAX` sequences.
    pub fn from_sequences(alphabet: Alphabet, sequences: Vec<Sequence>) -> Database {
        let total: usize = sequences.iter().map(|s| s.residues.len()).sum();
        let mut builder = Builder::new(alphabet, total);
        for seq in sequences {
            if let Err(e) = alphabet.check_codes(&seq.residues, format_args!("sequence '{}'", seq.id)) {
                panic!("{e}");
            }
            if let Err(m) = builder.push(&seq) {
                panic!("{m}");
            }
        }
        builder.finish()
    }

    /// Opens a database file of either kind: a prepared database (recognised by its
    /// magic bytes) or FASTA, plain or gzip. For FASTA, `alphabet_hint` is the alphabet
    /// to read it with, guessed from the residues when `None`; the [`ReadReport`] is
    /// returned. For a prepared database the report is `None`, and a hint that differs
    /// from the file's alphabet is an error.
    pub fn open(
        path: &Path,
        alphabet_hint: Option<Alphabet>,
        empty: EmptyRecords,
    ) -> Result<(Database, Option<ReadReport>)> {
        if is_prepared(path)? {
            let db = Database::open_prepared(path)?;
            if let Some(hint) = alphabet_hint
                && hint != db.alphabet
            {
                return Err(Error::InvalidArgument(format!(
                    "{} is a prepared {} database, but the alphabet {} was asked for",
                    path.display(),
                    db.alphabet.name(),
                    hint.name()
                )));
            }
            return Ok((db, None));
        }
        let alphabet = match alphabet_hint {
            Some(a) => a,
            None => fasta::guess_alphabet(path)?,
        };
        let (db, report) = Database::from_fasta(path, alphabet, empty)?;
        Ok((db, Some(report)))
    }

    /// Writes the database as a prepared file (see the module documentation). The file
    /// is written under a temporary name next to `path` and renamed into place.
    pub fn write_prepared(&self, path: &Path) -> Result<()> {
        let mut tmp_name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        tmp_name.push(format!(".tmp{}", std::process::id()));
        let tmp = path.with_file_name(tmp_name);
        let result = self.write_file(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e)));
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }

    fn write_file(&self, path: &Path) -> Result<()> {
        let io = |e| Error::io(path, e);
        let file = File::create(path).map_err(io)?;
        let mut out = HashingWriter { inner: std::io::BufWriter::with_capacity(1 << 20, file), hasher: Hasher::new() };
        out.inner.write_all(&[0u8; HEADER_LEN]).map_err(io)?;

        let mut lengths = Vec::with_capacity(self.lengths.len() * 4 + 8);
        for &l in &self.lengths {
            lengths.extend_from_slice(&l.to_le_bytes());
        }
        out.write_padded(&lengths).map_err(io)?;
        drop(lengths);
        let mut name_offsets = Vec::with_capacity(self.name_offsets.len() * 8);
        for &o in &self.name_offsets {
            name_offsets.extend_from_slice(&(o as u64).to_le_bytes());
        }
        out.write_padded(&name_offsets).map_err(io)?;
        drop(name_offsets);
        out.write_padded(self.names.as_bytes()).map_err(io)?;
        out.write_padded(self.all_residues()).map_err(io)?;

        let body_sum = out.hasher.finish();
        let mut header = [0u8; HEADER_LEN];
        header[0..8].copy_from_slice(&MAGIC);
        header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        header[12..16].copy_from_slice(&alphabet_code(self.alphabet).to_le_bytes());
        header[16..24].copy_from_slice(&(self.len() as u64).to_le_bytes());
        header[24..32].copy_from_slice(&self.total_residues().to_le_bytes());
        header[32..40].copy_from_slice(&(self.names.len() as u64).to_le_bytes());
        header[40..48].copy_from_slice(&(self.max_len as u64).to_le_bytes());
        header[48..56].copy_from_slice(&body_sum.to_le_bytes());
        let head_sum = checksum(&header[..56]);
        header[56..64].copy_from_slice(&head_sum.to_le_bytes());

        let mut file = out.inner.into_inner().map_err(|e| io(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(&header).map_err(io)?;
        file.flush().map_err(io)
    }

    /// Opens a prepared database written by [`write_prepared`](Database::write_prepared),
    /// checking it thoroughly (see the module documentation). The residues stay in the
    /// memory-mapped file.
    pub fn open_prepared(path: &Path) -> Result<Database> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let file_len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if file_len == 0 {
            return Err(bad(&name, "is empty, not a clsw prepared database".to_string()));
        }
        // SAFETY: the mapping is read-only; the file must not be changed by another
        // program while it is open (documented above), as with any mapped file.
        // Every byte read from it is validated before use.
        let map = unsafe { MmapOptions::new().populate().map(&file) }.map_err(|e| Error::io(path, e))?;
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        let bytes: &[u8] = &map;
        if bytes.len() as u64 != file_len {
            return Err(bad(&name, "changed size while it was being opened".to_string()));
        }
        let layout = check_header(&name, bytes)?;
        let alphabet = layout.alphabet;
        let n = layout.n as usize;

        // Section boundaries (all in bounds: the file length was checked).
        let lengths_at = HEADER_LEN;
        let name_offsets_at = lengths_at + layout.sizes.lengths as usize;
        let names_at = name_offsets_at + layout.sizes.name_offsets as usize;
        let residues_at = names_at + layout.sizes.names as usize;
        let residues_len = layout.residues as usize;

        let body_sum = checksum(&bytes[HEADER_LEN..]);
        if body_sum != layout.body_sum {
            return Err(bad(&name, format!("is damaged (its checksum does not match its content); {REBUILD}")));
        }

        // From here on the content matches what was written; these checks catch a
        // file written by a faulty program rather than damage.
        let invalid = |what: String| bad(&name, format!("is not a valid clsw prepared database: {what}; {REBUILD}"));

        let mut lengths = Vec::with_capacity(n);
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u64);
        let mut total = 0u64;
        let mut max_len = 0u32;
        for chunk in bytes[lengths_at..lengths_at + 4 * n].chunks_exact(4) {
            let l = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            lengths.push(l);
            total += l as u64; // at most 2^32 terms below 2^32: cannot overflow
            offsets.push(total);
            max_len = max_len.max(l);
        }
        if total != layout.residues {
            return Err(invalid(format!(
                "the sequence lengths add up to {total} residues, but the header says {}",
                layout.residues
            )));
        }
        if max_len as u64 != layout.max_len {
            return Err(invalid(format!(
                "the longest sequence has {max_len} residues, but the header says {}",
                layout.max_len
            )));
        }

        let names = std::str::from_utf8(&bytes[names_at..names_at + layout.names as usize])
            .map_err(|e| invalid(format!("the names are not UTF-8 ({e})")))?;
        let mut name_offsets = Vec::with_capacity(2 * n + 1);
        let mut prev = 0usize;
        for (i, chunk) in bytes[name_offsets_at..name_offsets_at + 8 * (2 * n + 1)].chunks_exact(8).enumerate() {
            let o = u64::from_le_bytes(chunk.try_into().unwrap_or([0xff; 8]));
            let ok = o <= names.len() as u64
                && o as usize >= prev
                && (i > 0 || o == 0)
                && names.is_char_boundary(o as usize);
            if !ok {
                return Err(invalid(format!("name offset {i} ({o}) is out of order or out of bounds")));
            }
            prev = o as usize;
            name_offsets.push(prev);
        }
        if prev != names.len() {
            return Err(invalid(format!(
                "the name offsets end at {prev}, not at the end of the names ({})",
                names.len()
            )));
        }
        let names = names.to_string();

        let residues = &bytes[residues_at..residues_at + residues_len];
        if let Some(bad_code) = first_code_at_least(residues, alphabet.size() as u8) {
            let at = residues.iter().position(|&c| c == bad_code).unwrap_or(0);
            let k = offsets.partition_point(|&o| o <= at as u64).saturating_sub(1);
            return Err(invalid(format!(
                "sequence {} ('{}') holds residue code {bad_code}, not a {} code",
                k + 1,
                &names[name_offsets[2 * k]..name_offsets[2 * k + 1]],
                alphabet.name()
            )));
        }

        let order = length_order(&lengths);
        Ok(Database {
            alphabet,
            names,
            name_offsets,
            lengths,
            offsets,
            residues: Residues::Mapped { map, start: residues_at, len: residues_len },
            order,
            max_len: max_len as usize,
        })
    }

    /// The alphabet of the residue codes.
    pub fn alphabet(&self) -> Alphabet {
        self.alphabet
    }

    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// Residues of all sequences together.
    pub fn total_residues(&self) -> u64 {
        self.offsets.last().copied().unwrap_or(0)
    }

    /// Length of the longest sequence (0 for an empty database).
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The id of sequence `k` (database order). Panics if `k >= len()`.
    pub fn id(&self, k: usize) -> &str {
        &self.names[self.name_offsets[2 * k]..self.name_offsets[2 * k + 1]]
    }

    /// The description of sequence `k` (the header after the id; may be empty).
    pub fn description(&self, k: usize) -> &str {
        &self.names[self.name_offsets[2 * k + 1]..self.name_offsets[2 * k + 2]]
    }

    /// The residue codes of sequence `k`. Panics if `k >= len()`.
    #[inline]
    pub fn residues(&self, k: usize) -> &[u8] {
        &self.all_residues()[self.offsets[k] as usize..self.offsets[k + 1] as usize]
    }

    /// The length of sequence `k`.
    #[inline]
    pub fn seq_len(&self, k: usize) -> usize {
        self.lengths[k] as usize
    }

    /// All lengths, database order.
    pub fn lengths(&self) -> &[u32] {
        &self.lengths
    }

    /// The residues of all sequences back to back, database order.
    pub fn all_residues(&self) -> &[u8] {
        self.residues.as_slice()
    }

    /// `len() + 1` offsets into [`all_residues`](Database::all_residues): sequence `k`
    /// is `offsets()[k]..offsets()[k + 1]`.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Sequence indices sorted by ascending length, ties by index: the order in which
    /// kernels take subjects, so that neighbouring work-items finish together.
    pub fn order_by_length(&self) -> &[u32] {
        &self.order
    }

    /// A copy of sequence `k` as a record.
    pub fn sequence(&self, k: usize) -> Sequence {
        Sequence {
            id: self.id(k).to_string(),
            description: self.description(k).to_string(),
            residues: self.residues(k).to_vec(),
        }
    }

    /// Whether the residues are read from a memory-mapped prepared file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.residues, Residues::Mapped { .. })
    }
}

/// Whether the file at `path` starts with the prepared-database magic.
pub fn is_prepared(path: &Path) -> Result<bool> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut head = Vec::with_capacity(MAGIC.len());
    file.take(MAGIC.len() as u64).read_to_end(&mut head).map_err(|e| Error::io(path, e))?;
    Ok(head == MAGIC)
}

fn bad(name: &str, what: String) -> Error {
    Error::InvalidArgument(format!("{name} {what}"))
}

/// What a checked header says.
struct Header {
    alphabet: Alphabet,
    n: u64,
    residues: u64,
    names: u64,
    max_len: u64,
    body_sum: u64,
    sizes: Layout,
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(w)
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Checks magic, version, header checksum, alphabet and the file length.
fn check_header(name: &str, bytes: &[u8]) -> Result<Header> {
    if !bytes.starts_with(&MAGIC) {
        return Err(bad(name, "is not a clsw prepared database (its first bytes are not the clsw magic)".to_string()));
    }
    if bytes.len() < HEADER_LEN {
        return Err(bad(
            name,
            format!(
                "is truncated: {} bytes, shorter than the {HEADER_LEN}-byte prepared database header; {REBUILD}",
                bytes.len()
            ),
        ));
    }
    let version = read_u32(bytes, 8);
    if version == 0 || version > 0xffff {
        // No clsw writes such a version: this is damage, not an old or new file.
        return Err(bad(name, format!("is damaged (its format version field holds {version}); {REBUILD}")));
    }
    if version != FORMAT_VERSION {
        let who = if version > FORMAT_VERSION { "a newer" } else { "an older" };
        return Err(bad(
            name,
            format!(
                "is a prepared database in format version {version}, written by {who} clsw; this clsw reads \
                 version {FORMAT_VERSION}: {REBUILD}"
            ),
        ));
    }
    if checksum(&bytes[..56]) != read_u64(bytes, 56) {
        return Err(bad(name, format!("is damaged (its header checksum does not match); {REBUILD}")));
    }
    let code = read_u32(bytes, 12);
    let alphabet = alphabet_from_code(code).ok_or_else(|| {
        bad(name, format!("is not a valid clsw prepared database: unknown alphabet {code}; {REBUILD}"))
    })?;
    let n = read_u64(bytes, 16);
    let residues = read_u64(bytes, 24);
    let names = read_u64(bytes, 32);
    let max_len = read_u64(bytes, 40);
    let body_sum = read_u64(bytes, 48);
    let inconsistent =
        || bad(name, format!("is not a valid clsw prepared database: its header sizes are impossible; {REBUILD}"));
    if n > u32::MAX as u64 {
        return Err(inconsistent());
    }
    let sizes = Layout::new(n, names, residues).ok_or_else(inconsistent)?;
    let expected = sizes.file_len().ok_or_else(inconsistent)?;
    let actual = bytes.len() as u64;
    if actual < expected {
        return Err(bad(
            name,
            format!(
                "is truncated: {actual} bytes, but its header describes {expected} bytes \
                 ({n} sequences, {residues} residues); {REBUILD}"
            ),
        ));
    }
    if actual > expected {
        return Err(bad(
            name,
            format!(
                "is damaged: {} bytes past the {expected} bytes its header describes; {REBUILD}",
                actual - expected
            ),
        ));
    }
    Ok(Header { alphabet, n, residues, names, max_len, body_sum, sizes })
}

/// The first byte of `codes` that is `>= limit`, if any. Scans in blocks so that the
/// common case (none) compiles to a vectorised maximum.
fn first_code_at_least(codes: &[u8], limit: u8) -> Option<u8> {
    for block in codes.chunks(1 << 14) {
        let max = block.iter().fold(0u8, |m, &c| m.max(c));
        if max >= limit {
            return block.iter().copied().find(|&c| c >= limit);
        }
    }
    None
}

/// A writer that hashes everything written through it (after the header).
struct HashingWriter<W: Write> {
    inner: W,
    hasher: Hasher,
}

impl<W: Write> HashingWriter<W> {
    /// Writes `data` and zero bytes up to the next multiple of 8.
    fn write_padded(&mut self, data: &[u8]) -> std::io::Result<()> {
        let pad = &[0u8; 8][..(8 - data.len() % 8) % 8];
        self.inner.write_all(data)?;
        self.hasher.update(data);
        self.inner.write_all(pad)?;
        self.hasher.update(pad);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------
// Checksum
// ---------------------------------------------------------------------------------

/// Odd multipliers (bijective modulo 2^64) with well-spread bits.
const M0: u64 = 0x9E37_79B9_7F4A_7C15;
const M1: u64 = 0xD6E8_FEB8_6659_FD93;
const LANE_SEEDS: [u64; 4] =
    [0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344, 0xA409_3822_299F_31D0, 0x082E_FA98_EC4E_6C89];

/// One lane step. For a fixed state it is injective in the word, and for a fixed word
/// bijective in the state, so a change to one word always reaches the final value.
#[inline(always)]
fn step(lane: u64, word: u64) -> u64 {
    (lane ^ word).wrapping_mul(M0).rotate_left(29)
}

/// Streaming form of [`checksum`]: `update` with any split of the input gives the
/// same result as one call on the whole.
#[derive(Clone)]
pub struct Hasher {
    lanes: [u64; 4],
    /// Bytes not yet consumed (fewer than one 32-byte block).
    buf: [u8; 32],
    buf_len: usize,
    total: u64,
}

impl Default for Hasher {
    fn default() -> Self {
        Hasher::new()
    }
}

impl Hasher {
    pub fn new() -> Hasher {
        Hasher { lanes: LANE_SEEDS, buf: [0; 32], buf_len: 0, total: 0 }
    }

    #[inline(always)]
    fn block(lanes: &mut [u64; 4], b: &[u8]) {
        for (i, lane) in lanes.iter_mut().enumerate() {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[8 * i..8 * i + 8]);
            *lane = step(*lane, u64::from_le_bytes(w));
        }
    }

    pub fn update(&mut self, mut data: &[u8]) {
        self.total = self.total.wrapping_add(data.len() as u64);
        if self.buf_len > 0 {
            let take = (32 - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < 32 {
                return;
            }
            let buf = self.buf;
            Hasher::block(&mut self.lanes, &buf);
            self.buf_len = 0;
        }
        let mut lanes = self.lanes;
        let mut blocks = data.chunks_exact(32);
        for b in &mut blocks {
            Hasher::block(&mut lanes, b);
        }
        self.lanes = lanes;
        let rest = blocks.remainder();
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    pub fn finish(&self) -> u64 {
        let mut lanes = self.lanes;
        // The tail: whole words continue round-robin, a last partial word is padded
        // with zeros (the total length, mixed in below, tells the padding apart).
        for (i, word) in self.buf[..self.buf_len].chunks(8).enumerate() {
            let mut w = [0u8; 8];
            w[..word.len()].copy_from_slice(word);
            lanes[i] = step(lanes[i], u64::from_le_bytes(w));
        }
        let mut h = self.total.wrapping_mul(M1);
        for lane in lanes {
            // Injective in each lane for fixed others.
            h = (h ^ lane.wrapping_mul(M1)).wrapping_mul(M0).rotate_left(31);
        }
        h ^= h >> 32;
        h = h.wrapping_mul(M1);
        h ^= h >> 29;
        h
    }
}

/// The 64-bit checksum used by the prepared format (see [`Hasher`]).
pub fn checksum(data: &[u8]) -> u64 {
    let mut h = Hasher::new();
    h.update(data);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn streaming_checksum_matches_one_shot_for_any_split() {
        for len in [0, 1, 7, 8, 31, 32, 33, 100, 1000] {
            let data = sample(len, len as u64 + 3);
            let whole = checksum(&data);
            for split in [0, 1, 5, 8, 13, 32, 40] {
                let split = split.min(len);
                let mut h = Hasher::new();
                h.update(&data[..split]);
                for piece in data[split..].chunks(3) {
                    h.update(piece);
                }
                assert_eq!(h.finish(), whole, "len {len} split {split}");
            }
        }
    }

    #[test]
    fn checksum_sees_every_single_bit_flip_and_length_change() {
        let data = sample(203, 11);
        let base = checksum(&data);
        for i in 0..data.len() {
            for bit in 0..8 {
                let mut d = data.clone();
                d[i] ^= 1 << bit;
                assert_ne!(checksum(&d), base, "byte {i} bit {bit}");
            }
        }
        // Zero padding is not the same as a shorter input.
        assert_ne!(checksum(&[1, 2, 3]), checksum(&[1, 2, 3, 0]));
        assert_ne!(checksum(&[]), checksum(&[0]));
        // Swapped words are seen too.
        let mut swapped = data.clone();
        swapped[..8].copy_from_slice(&data[8..16]);
        swapped[8..16].copy_from_slice(&data[..8]);
        assert_ne!(checksum(&swapped), base);
    }

    #[test]
    fn layout_rejects_overflowing_sizes() {
        assert!(Layout::new(u64::MAX / 2, 0, 0).is_none());
        assert!(Layout::new(1, u64::MAX, 0).is_none());
        assert!(Layout::new(1, 8, u64::MAX - 100).and_then(|l| l.file_len()).is_none());
        assert_eq!(Layout::new(3, 5, 9).unwrap().file_len(), Some(64 + 16 + 56 + 8 + 16));
    }

    #[test]
    fn length_order_is_stable() {
        assert_eq!(length_order(&[5, 2, 5, 1, 2]), vec![3, 1, 4, 0, 2]);
        assert!(length_order(&[]).is_empty());
    }
}

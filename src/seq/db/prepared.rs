//! The prepared database file (`clsw makedb`): writing, and opening with every check.
//!
//! # Prepared database format, version 2
//!
//! All integers are little-endian. The file is a fixed 64-byte header followed by four
//! sections; every section starts at a multiple of 8 bytes and is padded with zero
//! bytes to the next multiple of 8 (the file length is therefore a multiple of 8).
//!
//! | offset | size | header field                                                     |
//! |-------:|-----:|------------------------------------------------------------------|
//! |      0 |    8 | magic `b"CLSWDB\0\x01"` (the same for every format version)       |
//! |      8 |    4 | format version (`u32`, currently 2)                              |
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
//! always detected. The header's is one pass over its 56 bytes; the body's is
//! [`checksum_pieces`]: the checksum of the checksums of its 1 MiB pieces, so that
//! opening checks a large file on every core (version 1, which this build still
//! reads, took one pass over the body: 4.5 s a 20 G-residue file).
//!
//! Opening checks, in this order, and fails with a message naming the file: the magic
//! ("not a clsw prepared database"), the header length, the format version (an older
//! or newer file must be rebuilt with `clsw makedb`), the header checksum, the
//! alphabet, the file length against the section sizes (truncated or trailing bytes),
//! the body checksum (damaged), and then the content itself: lengths add up to `r`
//! and agree with the longest length, name offsets are in order, in bounds and on
//! character boundaries, names are UTF-8, ids follow [`crate::seq::check_id`] (no
//! whitespace or control characters), and every residue code is below the alphabet
//! size. Nothing in the file is used before it has been checked.
//!
//! The residues of a prepared database are not copied: the file is memory-mapped and
//! [`Database::residues`] slices into the mapping. Like every memory-mapped file, it
//! must not be modified by another program while it is open; `write_prepared` writes
//! a temporary file and renames it over the destination ([`crate::outfile`]), so
//! rebuilding a database that is open elsewhere is safe. A file cut short while open
//! does not end the process ([`crate::mapped`]): [`Database::check_intact`] reports it.

use super::checksum::{PieceHasher, checksum, checksum_pieces};
use super::{Database, Residues};
use crate::error::{Error, Result};
use crate::mapped::MappedFile;
use crate::outfile::OutFile;
use crate::seq::alphabet::Alphabet;
use rayon::prelude::*;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

/// The first 8 bytes of every prepared database, whatever its format version.
pub const MAGIC: [u8; 8] = *b"CLSWDB\0\x01";
/// The format version this build writes; it also reads [`OLDEST_READ`] and after.
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format version this build reads: version 1, whose body checksum is one
/// pass of [`checksum`] instead of [`checksum_pieces`].
pub const OLDEST_READ: u32 = 1;
/// Size of the fixed header in bytes.
pub const HEADER_LEN: usize = 64;

const REBUILD: &str = "re-run `clsw makedb` to rebuild it from the FASTA file";

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
    /// Writes the database as a prepared file (see the module documentation), atomically
    /// ([`OutFile`]: a temporary beside `path`, renamed over it when complete).
    pub fn write_prepared(&self, path: &Path) -> Result<()> {
        let io = |e| Error::io(path, e);
        let file = OutFile::create(path)?;
        let mut out = HashingWriter { inner: file, hasher: PieceHasher::default() };
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

        let mut file = out.inner;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(&header).map_err(io)?;
        file.commit()
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
        // Every byte read from the map is validated before use.
        let map = MappedFile::map(&file, path)?;
        let bytes: &[u8] = map.bytes();
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

        let body = &bytes[HEADER_LEN..];
        let body_sum = if layout.version == 1 { checksum(body) } else { checksum_pieces(body) };
        if body_sum != layout.body_sum {
            return Err(bad(&name, format!("is damaged (its checksum does not match its content); {REBUILD}")));
        }

        // From here on the content matches what was written; these checks catch a
        // file written by a faulty program rather than damage.
        let invalid = |what: String| bad(&name, format!("is not a valid clsw prepared database: {what}; {REBUILD}"));

        // On every core (a database of 20 G residues holds 44 M sequences).
        let lengths: Vec<u32> = bytes[lengths_at..lengths_at + 4 * n]
            .par_chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let offsets = prefix_sums(&lengths);
        // At most 2^32 terms below 2^32: the sum cannot overflow.
        let total = offsets[n];
        let max_len = lengths.par_iter().copied().max().unwrap_or(0);
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
        let raw: Vec<u64> = bytes[name_offsets_at..name_offsets_at + 8 * (2 * n + 1)]
            .par_chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0xff; 8])))
            .collect();
        // The first offset out of order or bounds, on every core.
        let refused = (0..raw.len()).into_par_iter().find_first(|&i| {
            let o = raw[i];
            let after = if i == 0 { o == 0 } else { o >= raw[i - 1] };
            !(o <= names.len() as u64 && after && names.is_char_boundary(o as usize))
        });
        if let Some(i) = refused {
            return Err(invalid(format!("name offset {i} ({}) is out of order or out of bounds", raw[i])));
        }
        // In place (the same size on 64-bit targets): one copy of 2n + 1 offsets at a time.
        let name_offsets: Vec<usize> = raw.into_iter().map(|o| o as usize).collect();
        let prev = name_offsets[2 * n];
        if prev != names.len() {
            return Err(invalid(format!(
                "the name offsets end at {prev}, not at the end of the names ({})",
                names.len()
            )));
        }
        // On every core: the first sequence whose id is refused, as one after another.
        let refused = (0..n)
            .into_par_iter()
            .find_first(|&k| crate::seq::check_id(&names[name_offsets[2 * k]..name_offsets[2 * k + 1]]).is_err());
        if let Some(k) = refused {
            crate::seq::check_id(&names[name_offsets[2 * k]..name_offsets[2 * k + 1]])
                .map_err(|m| invalid(format!("sequence {}: {m}", k + 1)))?;
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

        Ok(Database {
            alphabet,
            names,
            name_offsets,
            lengths,
            offsets,
            residues: Residues::Mapped { map, start: residues_at, len: residues_len },
            order: Default::default(),
            max_len: max_len as usize,
        })
    }
}
/// Whether the file at `path` is a prepared database, whole or damaged: it starts with
/// the magic, it is named `*.clswdb` (whatever its first bytes: a damaged magic is
/// reported as such, not as bad FASTA), or it is too short to hold the magic and is a
/// beginning of it. Opening such a file then refuses what is wrong with it, so a
/// damaged database is never read as FASTA.
pub fn is_prepared(path: &Path) -> Result<bool> {
    // A prepared database is a file to map; standard input is read as FASTA.
    if crate::seq::fasta::is_stdin(path) {
        return Ok(false);
    }
    // Read through the FASTA reader's input, which keeps a FIFO's bytes for the reading
    // that follows (a FIFO opened twice waits forever).
    let head = crate::seq::fasta::first_bytes(path, MAGIC.len())?;
    let short = head.len() < MAGIC.len();
    let named = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("clswdb"));
    Ok(head == MAGIC || named || (short && !head.is_empty() && MAGIC.starts_with(&head)))
}

fn bad(name: &str, what: String) -> Error {
    Error::InvalidArgument(format!("{name} {what}"))
}

/// What a checked header says.
struct Header {
    version: u32,
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
    if !bytes.starts_with(&MAGIC[..bytes.len().min(MAGIC.len())]) {
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
    if !(OLDEST_READ..=FORMAT_VERSION).contains(&version) {
        let who = if version > FORMAT_VERSION { "a newer" } else { "an older" };
        return Err(bad(
            name,
            format!(
                "is a prepared database in format version {version}, written by {who} clsw; this clsw reads \
                 versions {OLDEST_READ} to {FORMAT_VERSION}: {REBUILD}"
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
    Ok(Header { version, alphabet, n, residues, names, max_len, body_sum, sizes })
}

/// `0` and the running sums of `lengths` (`lengths.len() + 1` values), in blocks on
/// every core.
fn prefix_sums(lengths: &[u32]) -> Vec<u64> {
    const BLOCK: usize = 1 << 16;
    let block_sums: Vec<u64> = lengths.par_chunks(BLOCK).map(|b| b.iter().map(|&l| l as u64).sum()).collect();
    let starts: Vec<u64> = block_sums
        .iter()
        .scan(0u64, |total, &s| {
            let start = *total;
            *total += s;
            Some(start)
        })
        .collect();
    let mut sums = vec![0u64; lengths.len() + 1];
    sums[1..].par_chunks_mut(BLOCK).zip(lengths.par_chunks(BLOCK)).zip(starts).for_each(|((out, block), start)| {
        let mut total = start;
        for (o, &l) in out.iter_mut().zip(block) {
            total += l as u64;
            *o = total;
        }
    });
    sums
}

/// The first byte of `codes` that is `>= limit`, if any. Scans in blocks so that the
/// common case (none) compiles to a vectorised maximum.
fn first_code_at_least(codes: &[u8], limit: u8) -> Option<u8> {
    // Blocks on every core, the first offending one found as a scan in order would.
    let block = codes.par_chunks(1 << 14).find_first(|block| block.iter().fold(0u8, |m, &c| m.max(c)) >= limit)?;
    block.iter().copied().find(|&c| c >= limit)
}

/// A writer that hashes everything written through it (after the header).
struct HashingWriter<W: Write> {
    inner: W,
    hasher: PieceHasher,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_sums_in_blocks_are_the_running_sums() {
        for n in [0, 1, 5, (1 << 16) - 1, 1 << 16, 3 * (1 << 16) + 7] {
            let lengths: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 8).collect();
            let mut expected = vec![0u64];
            lengths.iter().for_each(|&l| expected.push(expected.last().unwrap() + l as u64));
            assert_eq!(prefix_sums(&lengths), expected, "{n}");
        }
    }

    #[test]
    fn layout_rejects_overflowing_sizes() {
        assert!(Layout::new(u64::MAX / 2, 0, 0).is_none());
        assert!(Layout::new(1, u64::MAX, 0).is_none());
        assert!(Layout::new(1, 8, u64::MAX - 100).and_then(|l| l.file_len()).is_none());
        assert_eq!(Layout::new(3, 5, 9).unwrap().file_len(), Some(64 + 16 + 56 + 8 + 16));
    }
}

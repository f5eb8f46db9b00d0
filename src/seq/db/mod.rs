//! A sequence database for search: every subject's id, description and residues,
//! held back to back so that they can be handed to a device in one piece.
//!
//! A [`Database`] is built from a FASTA file ([`Database::from_fasta`]), from records
//! already in memory ([`Database::from_sequences`]), or opened from a *prepared
//! database* file ([`Database::open_prepared`]) written by [`Database::write_prepared`]
//! (the `clsw makedb` command). [`Database::open`] takes either kind of file and tells
//! them apart by the magic bytes.
//!
//! The prepared file format is described in `db/prepared.rs`, its checksum in `db/checksum.rs`.

pub(crate) mod checksum;
mod choice;
mod pieces;
mod prepared;

pub use checksum::{Hasher, checksum, checksum_pieces};
pub use choice::{AlphabetChoice, AlphabetSource, OpenedDatabase};
pub use prepared::{FORMAT_VERSION, HEADER_LEN, MAGIC, OLDEST_READ, is_prepared};

use super::Sequence;
use super::alphabet::Alphabet;
use super::fasta::{self, EmptyRecords, ReadReport};
use crate::error::{Error, Result};
use crate::mapped::MappedFile;
use crate::memory;
use rayon::prelude::*;
use std::fmt;
use std::path::Path;

/// Where the residues of a database live.
enum Residues {
    /// Read from FASTA or built in memory.
    Owned(Vec<u8>),
    /// A prepared file mapped into memory; the residues are `map[start..start + len]`,
    /// checked to be in bounds when the file was opened.
    Mapped { map: MappedFile, start: usize, len: usize },
}

impl Residues {
    #[inline]
    fn as_slice(&self) -> &[u8] {
        match self {
            Residues::Owned(v) => v,
            Residues::Mapped { map, start, len } => &map.bytes()[*start..*start + *len],
        }
    }
}

/// A set of subject sequences ready for search.
///
/// Sequences keep their input order ("database order", index `k`); [`order_by_length`]
/// gives them by length, the order in which kernels take a share's subjects.
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
    /// [`Database::order_by_length`], made on the first call: no search needs it (a
    /// layout sorts its own share), and it cost a sort of every subject at each open
    /// (44 M of a 20 G-residue database).
    order: std::sync::OnceLock<Vec<u32>>,
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
    /// A builder whose residues may take `residue_capacity` bytes: room reserved now
    /// where memory allows it (a file's size is a bound, not a need), else grown as
    /// records come.
    fn new(alphabet: Alphabet, residue_capacity: usize) -> Builder {
        let mut residues = Vec::new();
        let _ = residues.try_reserve_exact(residue_capacity);
        Builder {
            alphabet,
            names: String::new(),
            name_offsets: vec![0],
            lengths: Vec::new(),
            offsets: vec![0],
            residues,
        }
    }

    /// Adds one record; `Err` carries the reason it cannot be stored.
    fn push(&mut self, seq: &Sequence) -> std::result::Result<(), String> {
        self.push_header(&seq.id, &seq.description, seq.residues.len())?;
        self.residues.try_reserve(seq.residues.len()).map_err(|_| {
            format!("not enough memory for the database's residues ({} bytes and more)", self.residues.len())
        })?;
        self.residues.extend_from_slice(&seq.residues);
        Ok(())
    }

    /// Adds one record's name and length, its `len` residues to come (`push`, or the
    /// whole buffer at once in `Database::from_fill`).
    fn push_header(&mut self, id: &str, description: &str, len: usize) -> std::result::Result<(), String> {
        if self.lengths.len() >= u32::MAX as usize {
            return Err(format!("a database holds at most {} sequences", u32::MAX));
        }
        crate::seq::check_id(id)?;
        let len32 = u32::try_from(len)
            .map_err(|_| format!("sequence '{id}' has {len} residues, more than the {} allowed", u32::MAX))?;
        let room = self.names.try_reserve(id.len() + description.len()).is_ok()
            && self.name_offsets.try_reserve(2).is_ok()
            && self.lengths.try_reserve(1).is_ok()
            && self.offsets.try_reserve(1).is_ok();
        if !room {
            return Err(format!(
                "not enough memory for the database's names and lengths ({} sequences so far)",
                self.lengths.len()
            ));
        }
        self.names.push_str(id);
        self.name_offsets.push(self.names.len());
        self.names.push_str(description);
        self.name_offsets.push(self.names.len());
        self.lengths.push(len32);
        self.offsets.push(self.offsets.last().copied().unwrap_or(0) + len as u64);
        Ok(())
    }

    fn finish(mut self) -> Database {
        self.residues.shrink_to_fit();
        let max_len = self.lengths.iter().copied().max().unwrap_or(0) as usize;
        Database {
            alphabet: self.alphabet,
            names: self.names,
            name_offsets: self.name_offsets,
            lengths: self.lengths,
            offsets: self.offsets,
            residues: Residues::Owned(self.residues),
            order: Default::default(),
            max_len,
        }
    }
}

/// Indices sorted by ascending length, ties by index.
fn length_order(lengths: &[u32]) -> Vec<u32> {
    by_length(lengths.len(), |k| lengths[k] as usize)
}

/// Indices `0..n` by `len(k)`, equal lengths in index order: each (length, index)
/// pair one 64-bit key, sorted on every core (a stable sort through the lengths took
/// 1 s for 4.4 M sequences on one).
pub(crate) fn by_length(n: usize, len: impl Fn(usize) -> usize + Sync) -> Vec<u32> {
    assert!(n <= u32::MAX as usize, "at most 2^32 - 1 sequences");
    let mut keys: Vec<u64> =
        (0..n).into_par_iter().map(|k| (len(k).min(u32::MAX as usize) as u64) << 32 | k as u64).collect();
    keys.par_sort_unstable();
    keys.into_par_iter().map(|key| key as u32).collect()
}

/// A FASTA file's records by one streaming reader.
fn stream(path: &Path, alphabet: Alphabet, empty: EmptyRecords) -> Result<(Builder, ReadReport)> {
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
    Ok((builder, report))
}

impl Database {
    /// Reads a FASTA file (plain or gzip), streaming: records are appended as they are
    /// read, never all held as separate [`Sequence`]s; a large plain file is read in
    /// pieces on every thread (`db/pieces.rs`), to the same records. An input with no
    /// records is the FASTA reader's error.
    pub fn from_fasta(path: &Path, alphabet: Alphabet, empty: EmptyRecords) -> Result<(Database, ReadReport)> {
        let (builder, report) = match pieces::read(path, alphabet, empty)? {
            Some(read) => read,
            None => stream(path, alphabet, empty)?,
        };
        Ok((builder.finish(), report))
    }

    /// Builds a database from records in memory, keeping their order.
    ///
    /// # Panics
    ///
    /// If a residue code is not below `alphabet.size()` (the records were not encoded
    /// for `alphabet`), an id breaks [`crate::seq::check_id`], a sequence is longer
    /// than `u32::MAX` residues, or there are more than `u32::MAX` sequences.
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

    /// A database of records (id, description, length) whose residues `fill(k, out)`
    /// writes, as codes of `alphabet` (checked), straight into record k's place in the
    /// database's one buffer, on every core: no buffer per record and no copy. The first
    /// failing record in order gives the error; `Err`
    /// also carries a record the database cannot hold (its id, its length).
    pub fn from_fill<E: Send>(
        alphabet: Alphabet,
        records: &[(String, String, usize)],
        fill: impl Fn(usize, &mut [u8]) -> std::result::Result<(), E> + Sync,
        refused: impl Fn(String) -> E + Sync,
    ) -> std::result::Result<Database, E> {
        let mut builder = Builder::new(alphabet, 0);
        for (id, description, len) in records {
            builder.push_header(id, description, *len).map_err(&refused)?;
        }
        let mut residues = vec![0u8; records.iter().map(|r| r.2).sum()];
        let mut places = Vec::with_capacity(records.len());
        let mut rest = &mut residues[..];
        for (_, _, len) in records {
            let (place, tail) = rest.split_at_mut(*len);
            places.push(place);
            rest = tail;
        }
        let filled: Vec<std::result::Result<(), E>> = places
            .into_par_iter()
            .enumerate()
            .map(|(k, place)| {
                fill(k, place)?;
                let what = format_args!("sequence '{}'", records[k].0);
                alphabet.check_codes(place, what).map_err(|e| refused(e.to_string()))
            })
            .collect();
        filled.into_iter().collect::<std::result::Result<(), E>>()?;
        builder.residues = residues;
        Ok(builder.finish())
    }

    /// A checksum of the records' names and lengths: two processes that opened "the
    /// same" database (the ranks of an MPI job, on nodes of their own) compare it.
    pub fn fingerprint(&self) -> u64 {
        let mut h = checksum::Hasher::new();
        h.update(self.names.as_bytes());
        self.lengths.iter().for_each(|l| h.update(&l.to_le_bytes()));
        h.finish()
    }

    /// The records `range` of this database, in order, as a database of their own (a
    /// copy of their names and residues): one rank's share of an MPI search. Fails when
    /// memory is short, or when this database's mapped file was cut short
    /// ([`check_intact`](Database::check_intact)).
    pub fn part(&self, range: std::ops::Range<usize>) -> Result<Database> {
        let residues = &self.all_residues()[self.offsets[range.start] as usize..self.offsets[range.end] as usize];
        let mut builder = Builder::new(self.alphabet, 0);
        for k in range {
            // The records were checked when this database was built: they fit again.
            let stored = builder.push_header(self.id(k), self.description(k), self.seq_len(k));
            debug_assert!(stored.is_ok());
        }
        builder.residues = memory::vec_with_capacity("a part of the database", residues.len())?;
        builder.residues.extend_from_slice(residues);
        self.check_intact()?;
        Ok(builder.finish())
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
            if !crate::seq::fasta::is_regular_file(path) {
                return Err(Error::InvalidArgument(format!(
                    "{}: a prepared database must be a regular file (it is mapped), not a stream",
                    path.display()
                )));
            }
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
    /// kernels take subjects, so that neighbouring work-items finish together. Sorted
    /// on the first call, on every core.
    pub fn order_by_length(&self) -> &[u32] {
        // Sorted outside the cell: the sort's workers may call this again.
        if self.order.get().is_none() {
            let _ = self.order.set(length_order(&self.lengths));
        }
        self.order.get().map_or(&[], Vec::as_slice)
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

    /// An error when the residues are those of a mapped prepared file that another
    /// program cut short while it was open: what was read from its lost pages since
    /// were zeros ([`crate::mapped`]). Jobs call it before they report results.
    pub fn check_intact(&self) -> Result<()> {
        match &self.residues {
            Residues::Mapped { map, .. } => map.check(),
            Residues::Owned(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_order_is_stable() {
        assert_eq!(length_order(&[5, 2, 5, 1, 2]), vec![3, 1, 4, 0, 2]);
        assert!(length_order(&[]).is_empty());
    }
}

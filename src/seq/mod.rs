//! Sequences: alphabets, the compact encoding, and FASTA reading.

pub mod alphabet;
pub mod db;
pub mod fasta;

pub use alphabet::Alphabet;
pub use db::{AlphabetChoice, AlphabetSource, Database, OpenedDatabase};
pub use fasta::{EmptyRecords, FastaReader, ReadReport};

/// A header's id (its first word) and description (the rest, trimmed): the split of
/// FASTA headers and of the names C callers give sequences.
pub fn split_header(header: &str) -> (&str, &str) {
    let header = header.trim();
    match header.split_once(char::is_whitespace) {
        Some((id, rest)) => (id, rest.trim()),
        None => (header, ""),
    }
}

/// The one rule for sequence ids, wherever they come from (FASTA headers, prepared
/// databases, C callers' names and query ids): no whitespace and no control
/// characters, so that an id is one field of a BLAST-tabular or SAM record and can
/// neither split it nor start a new one. `Err` says which character, and where.
pub fn check_id(id: &str) -> std::result::Result<(), String> {
    match id.chars().enumerate().find(|(_, c)| c.is_whitespace() || c.is_control()) {
        None => Ok(()),
        Some((k, c)) => Err(format!(
            "the id {id:?} has U+{:04X} at character {}: ids may hold no whitespace or control characters",
            c as u32,
            k + 1
        )),
    }
}

/// One sequence record: id (first word of the header), the rest of the header, and
/// the residues as alphabet codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    pub id: String,
    pub description: String,
    pub residues: Vec<u8>,
}

impl Sequence {
    /// Builds a record from letters, failing with the position of the first invalid byte.
    pub fn from_letters(id: &str, letters: &[u8], alphabet: Alphabet) -> crate::Result<Sequence> {
        let residues = alphabet.encode_all(letters).map_err(|i| {
            crate::Error::InvalidArgument(format!(
                "sequence '{id}': {} at position {} is not a {} residue letter",
                alphabet::describe_byte(letters[i]),
                i + 1,
                alphabet.name()
            ))
        })?;
        Ok(Sequence { id: id.to_string(), description: String::new(), residues })
    }

    pub fn len(&self) -> usize {
        self.residues.len()
    }

    pub fn is_empty(&self) -> bool {
        self.residues.is_empty()
    }
}

//! Sequences: alphabets, the compact encoding, and FASTA reading.

pub mod alphabet;
pub mod db;
pub mod fasta;

pub use alphabet::Alphabet;
pub use db::Database;
pub use fasta::{EmptyRecords, FastaReader, ReadReport};

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

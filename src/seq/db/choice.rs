//! The alphabet a database file is read with, chosen by one rule for every front end
//! (`clsw scan` and `clsw makedb`, the C ABI's `clsw_db_new_file`, the bindings), and the
//! notes that the choice and the reading give. Notes are returned as text, one line each
//! and without a program's name (`warning: ...`, `db.fa: letters read as X: ...`): the
//! command line prints each as `clsw: NOTE`, the C ABI keeps them with the database.

use super::{Database, is_prepared};
use crate::error::Result;
use crate::seq::alphabet::Alphabet;
use crate::seq::fasta::{self, EmptyRecords};
use std::path::Path;

/// Where a database's alphabet came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlphabetSource {
    /// The caller gave it (`--alphabet protein|dna`, an alphabet other than auto).
    Given,
    /// A prepared database's own (recorded when it was written).
    Prepared,
    /// The alphabet of the scoring's matrix.
    Matrix,
    /// Guessed from the FASTA residues ([`fasta::guess_alphabet`]).
    Guessed,
}

/// The alphabet chosen for a database file, before it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlphabetChoice {
    /// The alphabet to read FASTA with, or that a prepared database must have; `None`:
    /// a prepared database, read with its own.
    pub alphabet: Option<Alphabet>,
    pub source: AlphabetSource,
    /// What the choice warns about, one line each (`warning: ...`).
    pub notes: Vec<String>,
}

impl AlphabetChoice {
    /// The alphabet of a database file: `given`, else a prepared database's own, else
    /// the matrix's (`matrix` is asked only then; `Ok(None)`: no matrix, or one that
    /// fits either alphabet), else guessed from the FASTA residues. A protein matrix
    /// that decides for residues that look like DNA gives the note `warning: PATH looks
    /// like DNA but is read as protein, as the matrix is a protein matrix`.
    pub fn for_database(
        path: &Path,
        given: Option<Alphabet>,
        matrix: impl FnOnce() -> Result<Option<Alphabet>>,
    ) -> Result<AlphabetChoice> {
        if given.is_none() && is_prepared(path)? {
            return Ok(AlphabetChoice { alphabet: None, source: AlphabetSource::Prepared, notes: Vec::new() });
        }
        let (alphabet, source) = AlphabetChoice::fasta(path, given, matrix)?;
        let mut notes = Vec::new();
        if source == AlphabetSource::Matrix
            && alphabet == Alphabet::Protein
            && fasta::guess_alphabet(path)? == Alphabet::Dna
        {
            notes.push(format!(
                "warning: {} looks like DNA but is read as protein, as the matrix is a protein matrix",
                path.display()
            ));
        }
        Ok(AlphabetChoice { alphabet: Some(alphabet), source, notes })
    }

    /// The alphabet of a FASTA file (a pairwise alignment's, a `makedb` input): `given`,
    /// else the matrix's (asked only then, as for [`AlphabetChoice::for_database`]),
    /// else guessed from the residues.
    pub fn fasta(
        path: &Path,
        given: Option<Alphabet>,
        matrix: impl FnOnce() -> Result<Option<Alphabet>>,
    ) -> Result<(Alphabet, AlphabetSource)> {
        if let Some(a) = given {
            return Ok((a, AlphabetSource::Given));
        }
        Ok(match matrix()? {
            Some(a) => (a, AlphabetSource::Matrix),
            None => (fasta::guess_alphabet(path)?, AlphabetSource::Guessed),
        })
    }

    /// Opens the database file at `path` with this choice ([`Database::open`]); the
    /// notes of the reading (`PATH: letters read as X: ...; N empty record(s) skipped:
    /// ...`, [`fasta::ReadReport::file_note`]), not the choice's own.
    pub fn open(&self, path: &Path, empty: EmptyRecords) -> Result<(Database, Vec<String>)> {
        let (db, report) = Database::open(path, self.alphabet, empty)?;
        let notes = report.and_then(|r| r.file_note(path, db.alphabet())).into_iter().collect();
        Ok((db, notes))
    }
}

/// A database file opened by the rules of a search, with where its alphabet came from
/// and every note, in order: the choice's, then the reading's.
pub struct OpenedDatabase {
    pub db: Database,
    pub source: AlphabetSource,
    pub notes: Vec<String>,
}

impl OpenedDatabase {
    /// [`AlphabetChoice::for_database`], then [`AlphabetChoice::open`].
    pub fn open(
        path: &Path,
        given: Option<Alphabet>,
        matrix: impl FnOnce() -> Result<Option<Alphabet>>,
        empty: EmptyRecords,
    ) -> Result<OpenedDatabase> {
        let choice = AlphabetChoice::for_database(path, given, matrix)?;
        let (db, read) = choice.open(path, empty)?;
        let mut notes = choice.notes;
        notes.extend(read);
        Ok(OpenedDatabase { db, source: choice.source, notes })
    }
}

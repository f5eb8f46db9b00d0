//! What a search says about its queries before it runs: the one check of query
//! residues that every front end shows the same way.

use crate::seq::{Alphabet, Sequence};
use std::path::Path;

/// Notes on the queries of a search over a database of `alphabet`, read from `source`,
/// one line each without a program's name: `warning: SOURCE looks like DNA but is
/// searched as protein (give --alphabet dna for a DNA search)` when a protein search's
/// queries (their first 10,000 residues) look like DNA ([`Alphabet::guess`]).
pub fn query_notes(queries: &[Sequence], alphabet: Alphabet, source: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    if alphabet == Alphabet::Protein {
        let letters: Vec<u8> =
            queries.iter().flat_map(|q| Alphabet::Protein.decode_all(&q.residues)).take(10_000).collect();
        if Alphabet::guess(&letters) == Alphabet::Dna {
            notes.push(format!(
                "warning: {} looks like DNA but is searched as protein (give --alphabet dna for a DNA search)",
                source.display()
            ));
        }
    }
    notes
}

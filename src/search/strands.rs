//! The strands of a DNA search: which the user asked for, which a score came from, and
//! the reverse complement that the minus strand aligns.

use crate::error::{Error, Result};
use crate::seq::Alphabet;

crate::error::named_enum! {
    /// The strand of the query that a score or alignment belongs to.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Strand ("strand", "strands") {
        /// The query as given (always, for protein).
        Plus = "plus" | "+",
        /// The reverse complement of a DNA query.
        Minus = "minus" | "-",
    }
}

crate::error::named_enum! {
    /// Which strands of a DNA query to search (protein queries have only one).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Strands ("strand", "strands") {
        /// Plus and minus (BLAST's and ssearch36's default for DNA).
        #[default]
        Both = "both",
        Plus = "plus" | "+",
        Minus = "minus" | "-",
    }
}

impl Strands {
    /// The strands searched for a query of `alphabet`: the one rule behind the command
    /// line's `--strand`, the C ABI's `strands` option and the bindings'. A protein
    /// search has one strand, so it takes only [`Strands::Both`] (the default); `Plus`
    /// or `Minus` there is refused, never quietly searched as something else.
    pub fn for_alphabet(self, alphabet: Alphabet) -> Result<Vec<Strand>> {
        match (alphabet, self) {
            (Alphabet::Protein, Strands::Plus | Strands::Minus) => {
                Err(Error::InvalidArgument("--strand applies to DNA searches; this is a protein search".into()))
            }
            (Alphabet::Protein, Strands::Both) | (Alphabet::Dna, Strands::Plus) => Ok(vec![Strand::Plus]),
            (Alphabet::Dna, Strands::Minus) => Ok(vec![Strand::Minus]),
            (Alphabet::Dna, Strands::Both) => Ok(vec![Strand::Plus, Strand::Minus]),
        }
    }
}

/// The reverse complement of DNA codes (`ACGTN`: A<->T, C<->G, N stays N).
pub fn reverse_complement(codes: &[u8]) -> Vec<u8> {
    codes.iter().rev().map(|&c| if c < 4 { 3 - c } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reverse_complement_of_codes() {
        // ACGTN -> NACGT
        assert_eq!(reverse_complement(&[0, 1, 2, 3, 4]), vec![4, 0, 1, 2, 3]);
        assert_eq!(reverse_complement(&[0, 0, 1]), vec![2, 3, 3]);
    }

    #[test]
    fn strands_per_alphabet() {
        assert_eq!(Strands::Both.for_alphabet(Alphabet::Protein).unwrap(), vec![Strand::Plus]);
        assert!(Strands::Minus.for_alphabet(Alphabet::Protein).is_err());
        assert!(Strands::Plus.for_alphabet(Alphabet::Protein).is_err());
        assert_eq!(Strands::Both.for_alphabet(Alphabet::Dna).unwrap(), vec![Strand::Plus, Strand::Minus]);
        assert_eq!("MINUS".parse::<Strands>().unwrap(), Strands::Minus);
        assert!("sideways".parse::<Strands>().is_err());
    }
}

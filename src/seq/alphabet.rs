//! Protein and DNA alphabets and their compact encoding.
//!
//! A residue is stored as a small code (`u8`), the index of its letter in
//! [`Alphabet::symbols`]. Protein uses the NCBI matrix order
//! `ARNDCQEGHILKMFPSTWYVBZX*` (24 codes); DNA uses `ACGTN` (5 codes). Letters that
//! are valid but have no code of their own (U, O, J in protein; IUPAC ambiguity
//! codes in DNA) become X / N and are counted by the reader; anything else is an
//! error. Lower case is accepted everywhere.

/// Which kind of sequence a set holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Alphabet {
    Protein,
    Dna,
}

/// What one input byte becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoded {
    /// The letter has its own code.
    Exact(u8),
    /// A valid letter without a code of its own, stored as the wildcard (X or N).
    Substituted(u8),
    /// Not a residue of this alphabet.
    Invalid,
}

const PROTEIN_SYMBOLS: &[u8] = b"ARNDCQEGHILKMFPSTWYVBZX*";
const DNA_SYMBOLS: &[u8] = b"ACGTN";
/// IUPAC ambiguity codes (and X, used for masked bases), all stored as N.
const DNA_AMBIGUOUS: &[u8] = b"RYKMSWBDHVX";

const INVALID: i16 = -1;
/// Marks a substituted letter in the lookup tables: the code is `SUBST | code`.
const SUBST: i16 = 0x100;

const fn build_table(symbols: &[u8], wildcard: u8, extra_wild: &[u8], aliases: &[(u8, u8)]) -> [i16; 256] {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < extra_wild.len() {
        let c = extra_wild[i];
        t[c as usize] = SUBST | wildcard as i16;
        t[c.to_ascii_lowercase() as usize] = SUBST | wildcard as i16;
        i += 1;
    }
    let mut i = 0;
    while i < symbols.len() {
        let c = symbols[i];
        t[c as usize] = i as i16;
        t[c.to_ascii_lowercase() as usize] = i as i16;
        i += 1;
    }
    let mut i = 0;
    while i < aliases.len() {
        let (from, to) = aliases[i];
        t[from as usize] = to as i16;
        t[from.to_ascii_lowercase() as usize] = to as i16;
        i += 1;
    }
    t
}

/// Protein: every ASCII letter is valid; U (selenocysteine), O (pyrrolysine) and J
/// (Leu/Ile) have no row in the standard matrices and become X.
static PROTEIN_TABLE: [i16; 256] = build_table(PROTEIN_SYMBOLS, 22, b"UOJ", &[]);
/// DNA: U (RNA) is read as T; ambiguity codes become N.
static DNA_TABLE: [i16; 256] = build_table(DNA_SYMBOLS, 4, DNA_AMBIGUOUS, &[(b'U', 3)]);

impl Alphabet {
    /// The letter of each code, in code order.
    pub fn symbols(self) -> &'static [u8] {
        match self {
            Alphabet::Protein => PROTEIN_SYMBOLS,
            Alphabet::Dna => DNA_SYMBOLS,
        }
    }

    /// Number of codes.
    pub fn size(self) -> usize {
        self.symbols().len()
    }

    /// The code that stands for "any residue" (X or N).
    pub fn wildcard(self) -> u8 {
        match self {
            Alphabet::Protein => 22,
            Alphabet::Dna => 4,
        }
    }

    /// Every code of `codes` must be below [`size`](Alphabet::size): the one check of
    /// caller-supplied codes before they index a matrix or a device profile. The error
    /// names `what` (e.g. "query 'q1'"), the code and its 1-based position.
    pub fn check_codes(self, codes: &[u8], what: impl std::fmt::Display) -> crate::error::Result<()> {
        let size = self.size();
        match codes.iter().position(|&c| c as usize >= size) {
            None => Ok(()),
            Some(p) => Err(crate::error::Error::InvalidArgument(format!(
                "{what}: residue code {} at position {} is outside the matrix's alphabet ({}, {size} codes)",
                codes[p],
                p + 1,
                self.name()
            ))),
        }
    }

    /// Lower-case name, as used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Alphabet::Protein => "protein",
            Alphabet::Dna => "dna",
        }
    }

    /// Parses `protein` / `dna` (also `aa`, `nt`, `nucleotide`), any case.
    pub fn from_name(name: &str) -> Option<Alphabet> {
        match name.to_ascii_lowercase().as_str() {
            "protein" | "aa" | "prot" => Some(Alphabet::Protein),
            "dna" | "nt" | "nucleotide" => Some(Alphabet::Dna),
            _ => None,
        }
    }

    fn table(self) -> &'static [i16; 256] {
        match self {
            Alphabet::Protein => &PROTEIN_TABLE,
            Alphabet::Dna => &DNA_TABLE,
        }
    }

    /// Encodes one input byte.
    #[inline]
    pub fn encode(self, byte: u8) -> Encoded {
        let v = self.table()[byte as usize];
        if v == INVALID {
            Encoded::Invalid
        } else if v & SUBST != 0 {
            Encoded::Substituted((v & 0xff) as u8)
        } else {
            Encoded::Exact(v as u8)
        }
    }

    /// The code of a letter of the alphabet written as it is (neither invalid nor
    /// substituted): the FASTA reader's fast path.
    #[inline(always)]
    pub fn exact_code(self, byte: u8) -> Option<u8> {
        let v = self.table()[byte as usize];
        (0..SUBST).contains(&v).then_some(v as u8)
    }

    /// Encodes a whole string, failing at the first invalid byte (its index).
    /// Substituted letters are accepted silently; use the FASTA reader to count them.
    pub fn encode_all(self, text: &[u8]) -> Result<Vec<u8>, usize> {
        text.iter()
            .enumerate()
            .map(|(i, &b)| match self.encode(b) {
                Encoded::Exact(c) | Encoded::Substituted(c) => Ok(c),
                Encoded::Invalid => Err(i),
            })
            .collect()
    }

    /// The letter of a code.
    #[inline]
    pub fn decode(self, code: u8) -> u8 {
        self.symbols()[code as usize]
    }

    /// Decodes a whole sequence to its letters.
    pub fn decode_all(self, codes: &[u8]) -> Vec<u8> {
        codes.iter().map(|&c| self.decode(c)).collect()
    }

    /// Guesses the alphabet of raw sequence text: DNA when at least 90% of the
    /// letters are A, C, G, T, U or N, protein otherwise.
    pub fn guess(text: &[u8]) -> Alphabet {
        let letters = text.iter().filter(|b| b.is_ascii_alphabetic()).count();
        let nucleic = text.iter().filter(|b| b"ACGTUNacgtun".contains(b)).count();
        if letters > 0 && nucleic * 10 >= letters * 9 { Alphabet::Dna } else { Alphabet::Protein }
    }
}

/// A printable form of a byte for error messages: the character itself, or `\xNN`.
pub fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else if b == b' ' {
        "a space".to_string()
    } else if b == b'\t' {
        "a tab".to_string()
    } else {
        format!("byte \\x{b:02X}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protein_codes_round_trip_and_substitute() {
        let a = Alphabet::Protein;
        for (i, &s) in a.symbols().iter().enumerate() {
            assert_eq!(a.encode(s), Encoded::Exact(i as u8));
            assert_eq!(a.decode(i as u8), s);
        }
        assert_eq!(a.encode(b'w'), Encoded::Exact(17));
        for c in *b"UOJuoj" {
            assert_eq!(a.encode(c), Encoded::Substituted(22));
        }
        for c in *b"-.1 \n\0" {
            assert_eq!(a.encode(c), Encoded::Invalid);
        }
    }

    #[test]
    fn dna_codes_and_iupac() {
        let a = Alphabet::Dna;
        assert_eq!(a.encode_all(b"ACGTNacgtn").unwrap(), vec![0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
        assert_eq!(a.encode(b'U'), Encoded::Exact(3));
        assert_eq!(a.encode(b'r'), Encoded::Substituted(4));
        assert_eq!(a.encode(b'E'), Encoded::Invalid);
        assert_eq!(a.encode_all(b"ACxGT-"), Err(5));
    }

    #[test]
    fn guess_alphabet() {
        assert_eq!(Alphabet::guess(b"ACGTACGTNNacgu"), Alphabet::Dna);
        assert_eq!(Alphabet::guess(b"MKVLAAGIVGLLLA"), Alphabet::Protein);
        assert_eq!(Alphabet::guess(b""), Alphabet::Protein);
    }
}

//! Position-specific scoring (a PSSM, or profile): query position `i` scores subject
//! letter `c` with its own `S_i(c)` instead of the matrix's `S(q_i, c)`, as PSI-BLAST's
//! profiles, ssearch36 `-P` and parasail's `parasail_matrix_pssm_create` do. A
//! [`Scoring`](super::Scoring) that holds one scores that query only; every aligner
//! reads the scores through [`Scoring::score_at`](super::Scoring::score_at) and
//! [`Scoring::rows`](super::Scoring::rows), so a profile takes every path a matrix takes.
//!
//! Read from PSI-BLAST's checkpoint (`psiblast -out_pssm`, ASN.1 text) or ASCII PSSM
//! (`-out_ascii_pssm`) with [`Pssm::read`], or made from a plain table
//! ([`Pssm::from_columns`], the C ABI's: the host's own numbers).

use super::{Matrix, SCORE_LIMIT};
use crate::error::{Error, Result};
use crate::seq::Alphabet;
use std::path::Path;

/// A query and its scores: row `i` holds `S_i(c)` for every code `c` of the alphabet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pssm {
    name: String,
    alphabet: Alphabet,
    /// The query's residues (codes): what alignments show and identities count.
    query: Vec<u8>,
    /// Row-major, `query.len() * alphabet.size()`.
    scores: Vec<i32>,
    max: i32,
    min: i32,
}

/// The largest PSSM file read.
pub const MAX_PSSM_FILE: u64 = 1 << 30;

impl Pssm {
    /// A profile from a table of `query.len()` rows of `alphabet.size()` scores each
    /// (row-major, columns in the alphabet's code order), every score within
    /// [`SCORE_LIMIT`]; `name` names it in messages.
    pub fn from_table(name: &str, alphabet: Alphabet, query: Vec<u8>, scores: Vec<i32>) -> Result<Pssm> {
        let letters = alphabet.size();
        alphabet.check_codes(&query, format_args!("profile {name}'s query"))?;
        if scores.len() != query.len() * letters {
            return Err(Error::InvalidArgument(format!(
                "profile {name}: {} scores for {} positions of {letters} letters (need {})",
                scores.len(),
                query.len(),
                query.len() * letters
            )));
        }
        if let Some(k) = scores.iter().position(|v| v.unsigned_abs() > SCORE_LIMIT as u32) {
            return Err(Error::InvalidArgument(format!(
                "profile {name}: position {}, letter {}: score {} is outside -{SCORE_LIMIT}..={SCORE_LIMIT}",
                k / letters + 1,
                alphabet.decode(u8::try_from(k % letters).unwrap_or(u8::MAX)) as char,
                scores[k]
            )));
        }
        let max = scores.iter().copied().max().unwrap_or(0);
        let min = scores.iter().copied().min().unwrap_or(0);
        Ok(Pssm { name: name.to_string(), alphabet, query, scores, max, min })
    }

    /// PSI-BLAST's ASCII PSSM (`psiblast -out_ascii_pssm FILE`): a header line of
    /// column letters, then a line a position (`1 M  -1 -1 ...`). Its first 20 columns
    /// are the scores of the 20 standard amino acids; the letters the file has no column
    /// for (B, Z, X, `*`) score as `matrix` scores them against the position's residue,
    /// `S(q_i, c)` (PSI-BLAST's own profile is built from that matrix too). `name` names
    /// the text in errors, which give its line and column.
    pub fn parse_ascii(name: &str, text: &str, matrix: &Matrix) -> Result<Pssm> {
        let alphabet = protein_matrix(name, matrix)?;
        let err = |line: usize, column: usize, msg: String| {
            Error::InvalidArgument(format!("PSSM {name}, line {}, column {}: {msg}", line + 1, column + 1))
        };
        let mut lines = text.lines().enumerate();
        // The header: the first line whose words are 20 or more single letters.
        let (header_line, columns) = lines
            .by_ref()
            .find_map(|(k, l)| {
                let words: Vec<&str> = l.split_whitespace().collect();
                (words.len() >= 20 && words.iter().all(|w| w.len() == 1 && w.as_bytes()[0].is_ascii_alphabetic()))
                    .then_some((k, words))
            })
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "PSSM {name}: no header line of column letters (A R N D ...): not an ASCII PSSM from \
                     psiblast -out_ascii_pssm"
                ))
            })?;
        let mut codes = Vec::with_capacity(20);
        for letter in &columns[..20] {
            match alphabet.exact_code(letter.as_bytes()[0]) {
                Some(c) if !codes.contains(&c) => codes.push(c),
                _ => {
                    let column = text.lines().nth(header_line).and_then(|l| l.find(letter)).unwrap_or(0);
                    return Err(err(header_line, column, format!("column letter '{letter}' is not a new amino acid")));
                }
            }
        }
        let (mut query, mut values) = (Vec::new(), Vec::new());
        for (k, line) in lines {
            let trimmed = line.trim_start();
            if trimmed.is_empty() {
                if query.is_empty() {
                    continue;
                }
                break;
            }
            // Words with their columns.
            let mut words = line
                .split_ascii_whitespace()
                .map(|w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
                .collect::<Vec<_>>()
                .into_iter();
            let (col, position) = words.next().expect("a line that is not blank has a word");
            match position.parse::<usize>() {
                Ok(p) if p == query.len() + 1 => {}
                Ok(p) => return Err(err(k, col, format!("position {p} where {} was due", query.len() + 1))),
                Err(_) if query.is_empty() => {
                    return Err(err(k, col, format!("'{position}' is not a position number")));
                }
                // The end of the table (the lambda and K lines that follow it).
                Err(_) => break,
            }
            let (col, residue) = words.next().ok_or_else(|| err(k, line.len(), "the residue is missing".into()))?;
            let q = match residue.as_bytes() {
                [b] => alphabet.exact_code(*b),
                _ => None,
            }
            .ok_or_else(|| err(k, col, format!("'{residue}' is not an amino acid")))?;
            for read in 0..codes.len() {
                let (col, word) =
                    words.next().ok_or_else(|| err(k, line.len(), format!("{read} scores where 20 were due")))?;
                let v = word.parse::<i32>().map_err(|_| err(k, col, format!("'{word}' is not an integer score")))?;
                if v.unsigned_abs() > SCORE_LIMIT as u32 {
                    return Err(err(k, col, format!("score {v} is outside -{SCORE_LIMIT}..={SCORE_LIMIT}")));
                }
                values.push(v);
            }
            query.push(q);
        }
        if query.is_empty() {
            return Err(err(header_line, 0, "no positions follow the header".into()));
        }
        Pssm::from_columns(name, matrix, query, &codes, &values)
    }

    /// A profile of `query` (codes of `matrix`'s alphabet) from a table of some of the
    /// alphabet's letters: row `i` of `values` holds position `i`'s scores against the
    /// letters `columns` (codes, each once), and every letter not among them scores as
    /// `matrix` scores it against the position's residue, `S(q_i, c)`. The rule of the
    /// ASCII PSSM's missing columns, and the C ABI's `clsw_scoring_with_pssm`.
    pub fn from_columns(name: &str, matrix: &Matrix, query: Vec<u8>, columns: &[u8], values: &[i32]) -> Result<Pssm> {
        let alphabet = matrix.alphabet();
        let letters = alphabet.size();
        alphabet.check_codes(columns, format_args!("profile {name}'s columns"))?;
        if let Some(c) = columns.iter().enumerate().find_map(|(k, c)| columns[..k].contains(c).then_some(*c)) {
            return Err(Error::InvalidArgument(format!(
                "profile {name}: column letter '{}' is given twice",
                alphabet.decode(c) as char
            )));
        }
        // Before the matrix is read with them (`from_table` checks its own input again).
        alphabet.check_codes(&query, format_args!("profile {name}'s query"))?;
        if values.len() != query.len() * columns.len() {
            return Err(Error::InvalidArgument(format!(
                "profile {name}: {} scores for {} positions of {} columns (need {})",
                values.len(),
                query.len(),
                columns.len(),
                query.len() * columns.len()
            )));
        }
        let cells = crate::memory::count("a profile", &[query.len(), letters])?;
        let mut scores = crate::memory::vec_with_capacity("a profile", cells)?;
        for (i, &q) in query.iter().enumerate() {
            let start = scores.len();
            scores.extend((0..letters).map(|c| matrix.score(q, c as u8)));
            for (&c, &v) in columns.iter().zip(&values[i * columns.len()..]) {
                scores[start + c as usize] = v;
            }
        }
        Pssm::from_table(name, alphabet, query, scores)
    }

    /// Reads a PSSM file: PSI-BLAST's checkpoint as ASN.1 text (`psiblast -out_pssm`,
    /// [`Pssm::parse_checkpoint`]) or its ASCII PSSM (`-out_ascii_pssm`,
    /// [`Pssm::parse_ascii`]), told apart by the checkpoint's first word.
    pub fn read(path: &Path, matrix: &Matrix) -> Result<Pssm> {
        use std::io::Read;
        let mut bytes = Vec::new();
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        file.take(MAX_PSSM_FILE + 1).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
        let name = path.display().to_string();
        if bytes.len() as u64 > MAX_PSSM_FILE {
            return Err(Error::InvalidArgument(format!("PSSM {name}: larger than {MAX_PSSM_FILE} bytes")));
        }
        if bytes.first() == Some(&0x30) && bytes.get(1).is_some_and(|b| *b >= 0x80) {
            return Err(Error::InvalidArgument(format!(
                "PSSM {name}: binary ASN.1; give psiblast's text checkpoint (-out_pssm) or its -out_ascii_pssm"
            )));
        }
        let text =
            String::from_utf8(bytes).map_err(|_| Error::InvalidArgument(format!("PSSM {name}: not a text file")))?;
        if text.trim_start().starts_with("PssmWithParameters") {
            Pssm::parse_checkpoint(&name, &text, matrix)
        } else {
            Pssm::parse_ascii(&name, &text, matrix)
        }
    }

    /// PSI-BLAST's checkpoint as ASN.1 text (`psiblast -out_pssm FILE`, a
    /// `PssmWithParameters`): the query (`seq-data`, NCBIstdaa or IUPACaa) and the
    /// final scores (`finalData { scores { ... } }`, `numRows` letters of NCBIstdaa by
    /// `numColumns` positions, position after position unless `byRow TRUE`), every
    /// letter's own column, B, Z, X and `*` included (U, O and J are X in clsw). Errors
    /// name the file and line.
    pub fn parse_checkpoint(name: &str, text: &str, matrix: &Matrix) -> Result<Pssm> {
        // NCBIstdaa's letters by code.
        const NCBISTDAA: &[u8; 28] = b"-ABCDEFGHIKLMNPQRSTVWXYZU*OJ";
        let alphabet = protein_matrix(name, matrix)?;
        let line_of = |at: usize| text[..at].matches('\n').count() + 1;
        let err = |at: usize, msg: String| {
            Error::InvalidArgument(format!("PSSM {name}, line {}: {msg} (psiblast -out_pssm)", line_of(at)))
        };
        let find = |key: &str, from: usize| text[from..].find(key).map(|k| from + k);
        let number = |key: &str| -> Result<usize> {
            let at = find(key, 0).ok_or_else(|| err(text.len(), format!("no {key}")))?;
            let word = text[at + key.len()..].split(|c: char| c == ',' || c.is_whitespace()).find(|w| !w.is_empty());
            word.and_then(|w| w.parse().ok()).ok_or_else(|| err(at, format!("{key} is not a number")))
        };
        let (rows, columns) = (number("numRows")?, number("numColumns")?);
        let by_row = find("byRow TRUE", 0).is_some();
        if rows == 0 || rows > NCBISTDAA.len() {
            return Err(err(find("numRows", 0).unwrap_or(0), format!("numRows {rows}: NCBIstdaa has 28 letters")));
        }
        // The query: NCBIstdaa codes in hex ('...'H), or IUPACaa letters ("...").
        let at = find("seq-data", 0).ok_or_else(|| err(text.len(), "no query (seq-data)".into()))?;
        let rest = &text[at + "seq-data".len()..];
        let body = |open: char, close: char| -> Result<String> {
            let start = rest.find(open).ok_or_else(|| err(at, "the query's data is missing".into()))? + 1;
            let end = rest[start..].find(close).ok_or_else(|| err(at, "the query's data is cut".into()))? + start;
            Ok(rest[start..end].chars().filter(|c| !c.is_whitespace()).collect())
        };
        let letters: Vec<u8> = match rest.split_whitespace().next() {
            Some("ncbistdaa") => {
                let hex = body('\'', '\'')?;
                (0..hex.len() / 2)
                    .map(|k| {
                        let code = u8::from_str_radix(&hex[2 * k..2 * k + 2], 16).ok();
                        code.and_then(|c| NCBISTDAA.get(c as usize).copied())
                            .ok_or_else(|| err(at, format!("'{}' is not an NCBIstdaa code", &hex[2 * k..2 * k + 2])))
                    })
                    .collect::<Result<_>>()?
            }
            Some("iupacaa") => body('"', '"')?.into_bytes(),
            other => {
                return Err(err(at, format!("query data {} is neither ncbistdaa nor iupacaa", other.unwrap_or(""))));
            }
        };
        let query = alphabet.encode_all(&letters).map_err(|i| {
            err(at, format!("the query's residue {} ('{}') is not an amino acid", i + 1, letters[i] as char))
        })?;
        if query.len() != columns {
            return Err(err(at, format!("a query of {} residues for {columns} positions", query.len())));
        }
        let final_data = find("finalData", 0)
            .ok_or_else(|| err(text.len(), "no finalData: the checkpoint holds no scores".into()))?;
        let open = find("scores", final_data)
            .and_then(|k| find("{", k))
            .ok_or_else(|| err(final_data, "finalData has no scores".into()))?;
        let close = find("}", open).ok_or_else(|| err(open, "the scores are cut".into()))?;
        let values: Vec<i64> = text[open + 1..close]
            .split(',')
            .map(|w| w.trim().parse::<i64>().map_err(|_| err(open, format!("'{}' is not an integer score", w.trim()))))
            .collect::<Result<_>>()?;
        if values.len() != rows * columns {
            return Err(err(open, format!("{} scores for {rows} letters x {columns} positions", values.len())));
        }
        // Each of clsw's letters from its NCBIstdaa row (clsw's U, O and J are its X).
        let mut codes = Vec::new();
        let mut from_row = Vec::new();
        for (row, &l) in NCBISTDAA[..rows].iter().enumerate() {
            if let Some(c) = alphabet.exact_code(l).filter(|c| !codes.contains(c)) {
                codes.push(c);
                from_row.push(row);
            }
        }
        let mut table = Vec::with_capacity(columns * codes.len());
        for i in 0..columns {
            for &row in &from_row {
                let v = if by_row { values[row * columns + i] } else { values[i * rows + row] };
                // PSI-BLAST's minus infinity (its gap letter's, or a letter it never scores).
                table.push(v.clamp(-(SCORE_LIMIT as i64), SCORE_LIMIT as i64) as i32);
            }
        }
        Pssm::from_columns(name, matrix, query, &codes, &table)
    }

    /// Where the profile came from (a file's path), for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn alphabet(&self) -> Alphabet {
        self.alphabet
    }

    /// The query the profile scores (codes).
    pub fn query(&self) -> &[u8] {
        &self.query
    }

    /// Positions (the query's length).
    pub fn len(&self) -> usize {
        self.query.len()
    }

    pub fn is_empty(&self) -> bool {
        self.query.is_empty()
    }

    /// Row `i`: `S_i(c)` for every code `c`.
    #[inline]
    pub fn row(&self, i: usize) -> &[i32] {
        let letters = self.alphabet.size();
        &self.scores[i * letters..][..letters]
    }

    /// The whole table, row-major over positions.
    pub fn scores(&self) -> &[i32] {
        &self.scores
    }

    pub fn max_score(&self) -> i32 {
        self.max
    }

    pub fn min_score(&self) -> i32 {
        self.min
    }
}

/// The protein alphabet, where `matrix` is of it (a PSSM scores proteins); an error
/// naming profile `name` otherwise.
fn protein_matrix(name: &str, matrix: &Matrix) -> Result<Alphabet> {
    if matrix.alphabet() != Alphabet::Protein {
        return Err(Error::InvalidArgument(format!(
            "profile {name}: a PSSM scores proteins, but matrix {} is for {} sequences",
            matrix.name(),
            matrix.alphabet().name()
        )));
    }
    Ok(Alphabet::Protein)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASCII: &str = "
Last position-specific scoring matrix computed, weighted observed percentages rounded down, information per position, and relative weight of gapless real matches to pseudocounts
            A   R   N   D   C   Q   E   G   H   I   L   K   M   F   P   S   T   W   Y   V   A   R   N   D   C   Q   E   G   H   I   L   K   M   F   P   S   T   W   Y   V
    1 M    -1  -1  -2  -3  -1   0  -2  -3  -2   1   2  -1   6   0  -3  -2  -1  -2  -1   1    0   0   0   0   0   0   0   0   0   0   0   0 100   0   0   0   0   0   0   0  1.13 0.00
    2 K    -1   2   0  -1  -3   1   1  -2  -1  -3  -3   5  -2  -3  -1   0  -1  -3  -2  -3    0   0   0   0   0   0   0   0   0   0   0 100   0   0   0   0   0   0   0   0  0.91 0.00

                      K         Lambda
Standard Ungapped    0.1339     0.3176
";

    fn blosum62() -> Matrix {
        Matrix::builtin("BLOSUM62").unwrap()
    }

    #[test]
    fn an_ascii_pssm_gives_its_scores_and_the_matrix_for_the_letters_it_lacks() {
        let p = Pssm::parse_ascii("t.pssm", ASCII, &blosum62()).unwrap();
        let code = |b: u8| Alphabet::Protein.exact_code(b).unwrap();
        assert_eq!(p.query(), &[code(b'M'), code(b'K')]);
        assert_eq!(p.row(0)[code(b'M') as usize], 6);
        assert_eq!(p.row(1)[code(b'R') as usize], 2);
        assert_eq!(p.row(1)[code(b'V') as usize], -3);
        // B, Z, X and * from BLOSUM62's row of the residue.
        for b in *b"BZX*" {
            assert_eq!(p.row(1)[code(b) as usize], blosum62().score(code(b'K'), code(b)), "{}", b as char);
        }
        assert_eq!((p.max_score(), p.min_score()), (6, -4), "BLOSUM62's K/* is -4");
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let bad = ASCII.replace("    2 K    -1   2", "    2 K    -1  x2");
        let msg = Pssm::parse_ascii("t.pssm", &bad, &blosum62()).unwrap_err().to_string();
        assert!(msg.contains("PSSM t.pssm, line 5, column 16: 'x2' is not an integer score"), "{msg}");
        let bad = ASCII.replace("    2 K", "    3 K");
        let msg = Pssm::parse_ascii("t.pssm", &bad, &blosum62()).unwrap_err().to_string();
        assert!(msg.contains("line 5, column 5: position 3 where 2 was due"), "{msg}");
        let bad = ASCII.replace("    2 K", "    2 8");
        let msg = Pssm::parse_ascii("t.pssm", &bad, &blosum62()).unwrap_err().to_string();
        assert!(msg.contains("line 5, column 7: '8' is not an amino acid"), "{msg}");
        let msg = Pssm::parse_ascii("t.fa", ">q\nMK\n", &blosum62()).unwrap_err().to_string();
        assert!(msg.contains("not an ASCII PSSM"), "{msg}");
        let row = ASCII.lines().nth(4).unwrap();
        let msg = Pssm::parse_ascii("t.pssm", &ASCII.replace(row, "    2 K    -1   2   0"), &blosum62()).unwrap_err();
        assert!(msg.to_string().contains("line 5, column 22: 3 scores where 20 were due"), "{msg}");
        let msg = Pssm::parse_ascii("t.pssm", ASCII, &Matrix::builtin("EDNAFULL").unwrap()).unwrap_err().to_string();
        assert!(msg.contains("a PSSM scores proteins"), "{msg}");
    }

    #[test]
    fn a_table_is_checked() {
        let p = Pssm::from_table("t", Alphabet::Protein, vec![0, 1], vec![1; 48]).unwrap();
        assert_eq!((p.len(), p.max_score(), p.min_score()), (2, 1, 1));
        assert!(Pssm::from_table("t", Alphabet::Protein, vec![0, 1], vec![1; 47]).is_err());
        assert!(Pssm::from_table("t", Alphabet::Protein, vec![0, 30], vec![1; 48]).is_err());
        let mut big = vec![0; 48];
        big[25] = SCORE_LIMIT + 1;
        let msg = Pssm::from_table("t", Alphabet::Protein, vec![0, 1], big).unwrap_err().to_string();
        assert!(msg.contains("position 2, letter R"), "{msg}");
    }
}

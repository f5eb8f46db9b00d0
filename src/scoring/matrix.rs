//! Substitution matrices: the built-in NCBI tables, NCBI-format files, and
//! match/mismatch scoring. A matrix is stored over an alphabet's codes, so
//! `score(a, b)` is one table lookup.

use super::SCORE_LIMIT;
use crate::error::{Error, Result};
use crate::seq::Alphabet;
use crate::seq::alphabet::Encoded;
use std::path::Path;

/// A square table of integer scores over an alphabet's codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    name: String,
    alphabet: Alphabet,
    /// Row-major, `size * size`.
    scores: Vec<i32>,
}

/// The built-in matrices: (name, alphabet, NCBI-format text). The tables are the
/// public NCBI/Henikoff matrices (see `src/scoring/matrices/README.md`).
const BUILTIN: &[(&str, Alphabet, &str)] = &[
    ("BLOSUM45", Alphabet::Protein, include_str!("matrices/BLOSUM45")),
    ("BLOSUM50", Alphabet::Protein, include_str!("matrices/BLOSUM50")),
    ("BLOSUM62", Alphabet::Protein, include_str!("matrices/BLOSUM62")),
    ("BLOSUM80", Alphabet::Protein, include_str!("matrices/BLOSUM80")),
    ("BLOSUM90", Alphabet::Protein, include_str!("matrices/BLOSUM90")),
    ("PAM30", Alphabet::Protein, include_str!("matrices/PAM30")),
    ("PAM70", Alphabet::Protein, include_str!("matrices/PAM70")),
    ("PAM250", Alphabet::Protein, include_str!("matrices/PAM250")),
    ("EDNAFULL", Alphabet::Dna, include_str!("matrices/EDNAFULL")),
];

/// Other spellings users type for the built-in names.
const ALIASES: &[(&str, &str)] = &[("NUC.4.4", "EDNAFULL"), ("DNAFULL", "EDNAFULL"), ("DNA", "EDNAFULL")];

/// The largest matrix file read.
pub const MAX_MATRIX_FILE: u64 = 1 << 20;

impl Matrix {
    /// Names of the built-in matrices.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTIN.iter().map(|(n, _, _)| *n).collect()
    }

    /// A built-in matrix by name, any case (`BLOSUM62`, `blosum62`, `BL62`, `PAM250`,
    /// `EDNAFULL` alias `NUC.4.4`).
    pub fn builtin(name: &str) -> Result<Matrix> {
        let upper = name.trim().to_ascii_uppercase();
        let upper = upper
            .strip_prefix("BL")
            .filter(|r| r.chars().all(|c| c.is_ascii_digit()) && !r.is_empty())
            .map(|digits| format!("BLOSUM{digits}"))
            .unwrap_or(upper);
        let canonical = ALIASES.iter().find(|(a, _)| *a == upper).map(|(_, c)| c.to_string()).unwrap_or(upper);
        let (n, alphabet, text) = BUILTIN.iter().find(|(n, _, _)| *n == canonical).ok_or_else(|| {
            Error::Matrix(format!(
                "unknown matrix '{name}'; built-in matrices are {} (or give a path to an NCBI-format matrix file)",
                Matrix::builtin_names().join(", ")
            ))
        })?;
        Matrix::parse_ncbi(n, text, *alphabet)
    }

    /// A built-in name, or else a path to an NCBI-format file.
    pub fn builtin_or_file(name_or_path: &str) -> Result<Matrix> {
        let path = Path::new(name_or_path);
        if path.is_file() { Matrix::from_file(path) } else { Matrix::builtin(name_or_path) }
    }

    /// Reads an NCBI-format matrix file; the alphabet is guessed from its letters. A
    /// file larger than [`MAX_MATRIX_FILE`] is refused unread (a 24 x 24 table is 2 KB).
    pub fn from_file(path: &Path) -> Result<Matrix> {
        use std::io::Read;
        let mut bytes = Vec::new();
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        file.take(MAX_MATRIX_FILE + 1).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
        if bytes.len() as u64 > MAX_MATRIX_FILE {
            let message = format!("{}: larger than {MAX_MATRIX_FILE} bytes: not a substitution matrix", path.display());
            return Err(Error::Matrix(message));
        }
        let text =
            String::from_utf8(bytes).map_err(|_| Error::Matrix(format!("{}: not a text file", path.display())))?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let alphabet = guess_matrix_alphabet(&text);
        Matrix::parse_ncbi(&name, &text, alphabet).map_err(|e| match e {
            Error::Matrix(m) => Error::Matrix(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Parses NCBI matrix text: `#` comments, a line of column letters, then one row
    /// per letter (`letter score score ...`). Every letter of the alphabet must have a
    /// row and a column, except `*`, which gets the table's lowest score when absent.
    pub fn parse_ncbi(name: &str, text: &str, alphabet: Alphabet) -> Result<Matrix> {
        let mut columns: Option<Vec<u8>> = None;
        let mut rows: Vec<(u8, Vec<i32>)> = Vec::new();
        // Each row's letter and line, for the errors that name them.
        let mut row_lines: Vec<(u8, usize)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            match &columns {
                None => {
                    if let Some(bad) = fields.iter().find(|f| f.len() != 1) {
                        return Err(Error::Matrix(format!(
                            "line {line_no}: expected a header of single letters, found '{bad}'"
                        )));
                    }
                    let letters: Vec<u8> = fields.iter().map(|f| f.as_bytes()[0].to_ascii_uppercase()).collect();
                    if let Some(twice) = letters.iter().enumerate().find(|(k, c)| letters[..*k].contains(c)) {
                        return Err(Error::Matrix(format!(
                            "line {line_no}: letter '{}' twice in the header",
                            *twice.1 as char
                        )));
                    }
                    columns = Some(letters);
                }
                Some(cols) => {
                    if fields[0].len() != 1 {
                        return Err(Error::Matrix(format!(
                            "line {line_no}: row label '{}' is not one letter",
                            fields[0]
                        )));
                    }
                    let values: Vec<i32> = fields[1..]
                        .iter()
                        .map(|f| {
                            let v = f
                                .parse::<i32>()
                                .map_err(|_| Error::Matrix(format!("line {line_no}: '{f}' is not an integer score")))?;
                            check_score(v).map_err(|m| Error::Matrix(format!("line {line_no}: {m}")))
                        })
                        .collect::<Result<_>>()?;
                    if values.len() != cols.len() {
                        return Err(Error::Matrix(format!(
                            "line {line_no}: row '{}' has {} scores, the header has {} letters",
                            fields[0],
                            values.len(),
                            cols.len()
                        )));
                    }
                    let letter = fields[0].as_bytes()[0].to_ascii_uppercase();
                    if let Some(first) = row_lines.iter().find(|(l, _)| *l == letter) {
                        return Err(Error::Matrix(format!(
                            "line {line_no}: a second row for letter '{}' (the first is on line {})",
                            letter as char, first.1
                        )));
                    }
                    row_lines.push((letter, line_no));
                    rows.push((letter, values));
                }
            }
        }
        let cols = columns.ok_or_else(|| Error::Matrix(format!("{name}: no header line of letters")))?;
        // Letters the protein alphabet reads as X (`Encoded::Substituted`: U, O, J) have
        // no scores of their own: a file that gives them some would be silently overruled.
        // (DNA files give ambiguity codes rows of their own by convention, read as N.)
        if alphabet == Alphabet::Protein {
            let x = rows.iter().find(|(r, _)| *r == b'X');
            for ((letter, values), (_, line_no)) in rows.iter().zip(&row_lines) {
                let read_as_x = matches!(alphabet.encode(*letter), Encoded::Substituted(_));
                if read_as_x && x.is_none_or(|(_, xs)| xs != values) {
                    return Err(Error::Matrix(format!(
                        "line {line_no}: row '{}' has scores of its own, but clsw reads {} as X (its protein \
                         alphabet has no code for it); give it X's row or leave it out",
                        *letter as char, *letter as char
                    )));
                }
            }
        }
        Matrix::from_table(name, alphabet, &cols, &rows)
    }

    /// A matrix from a table a caller already holds: `cols` the column letters, `rows`
    /// each row's letter and scores (one per column). Letters are upper case; letters
    /// that are not symbols of `alphabet` are ignored, and every symbol needs a row and
    /// a column, except `*`, which gets the table's lowest score when absent (the rule
    /// of NCBI files, which are parsed into such a table first).
    pub fn from_table(name: &str, alphabet: Alphabet, cols: &[u8], rows: &[(u8, Vec<i32>)]) -> Result<Matrix> {
        if let Some(c) = cols.iter().enumerate().find(|(k, c)| cols[..*k].contains(c)).map(|(_, c)| c) {
            return Err(Error::Matrix(format!("{name}: letter '{}' names two columns", *c as char)));
        }
        if let Some((r, _)) =
            rows.iter().enumerate().find(|(k, (r, _))| rows[..*k].iter().any(|(q, _)| q == r)).map(|(_, r)| r)
        {
            return Err(Error::Matrix(format!("{name}: letter '{}' names two rows", *r as char)));
        }
        for (r, values) in rows {
            if values.len() != cols.len() {
                return Err(Error::Matrix(format!(
                    "{name}: row '{}' has {} scores for {} columns",
                    *r as char,
                    values.len(),
                    cols.len()
                )));
            }
            if let Some(bad) = values.iter().find_map(|&v| check_score(v).err()) {
                return Err(Error::Matrix(format!("{name}: row '{}': {bad}", *r as char)));
            }
        }
        let lowest = rows
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .min()
            .ok_or_else(|| Error::Matrix(format!("{name}: no score rows")))?;
        let symbols = alphabet.symbols();
        let col_of = |c: u8| cols.iter().position(|&x| x == c);
        let row_of = |c: u8| rows.iter().position(|(r, _)| *r == c);
        let size = symbols.len();
        let mut scores = vec![0; size * size];
        for (a, &sa) in symbols.iter().enumerate() {
            for (b, &sb) in symbols.iter().enumerate() {
                scores[a * size + b] = match (row_of(sa), col_of(sb)) {
                    (Some(r), Some(c)) => rows[r].1[c],
                    _ if sa == b'*' || sb == b'*' => lowest,
                    (None, _) => return Err(Error::Matrix(format!("{name}: no row for letter '{}'", sa as char))),
                    (_, None) => return Err(Error::Matrix(format!("{name}: no column for letter '{}'", sb as char))),
                };
            }
        }
        Ok(Matrix { name: name.to_string(), alphabet, scores })
    }

    /// `match_score` on the diagonal, `mismatch` elsewhere (the wildcard included),
    /// as parasail's simple matrices do.
    pub fn match_mismatch(alphabet: Alphabet, match_score: i32, mismatch: i32) -> Result<Matrix> {
        if match_score <= 0 || mismatch > 0 {
            return Err(Error::InvalidArgument(format!(
                "match score must be positive and mismatch zero or negative (got {match_score}/{mismatch})"
            )));
        }
        for v in [match_score, mismatch] {
            check_score(v).map_err(Error::InvalidArgument)?;
        }
        let size = alphabet.size();
        let scores = (0..size * size).map(|k| if k / size == k % size { match_score } else { mismatch }).collect();
        Ok(Matrix { name: format!("+{match_score}/{mismatch}"), alphabet, scores })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn alphabet(&self) -> Alphabet {
        self.alphabet
    }

    /// Number of codes (rows and columns).
    pub fn size(&self) -> usize {
        self.alphabet.size()
    }

    /// The score of a pair of codes.
    #[inline]
    pub fn score(&self, a: u8, b: u8) -> i32 {
        self.scores[a as usize * self.size() + b as usize]
    }

    /// Code `a`'s row: its score against every code.
    #[inline]
    pub fn row(&self, a: u8) -> &[i32] {
        &self.scores[a as usize * self.size()..][..self.size()]
    }

    /// The whole table, row-major over codes.
    pub fn scores(&self) -> &[i32] {
        &self.scores
    }

    /// Highest score in the table.
    pub fn max_score(&self) -> i32 {
        *self.scores.iter().max().expect("matrix is never empty")
    }

    /// Lowest score in the table.
    pub fn min_score(&self) -> i32 {
        *self.scores.iter().min().expect("matrix is never empty")
    }
}

/// A substitution score within [`SCORE_LIMIT`], or the message saying it is not.
fn check_score(v: i32) -> std::result::Result<i32, String> {
    if v.unsigned_abs() > SCORE_LIMIT as u32 {
        return Err(format!("score {v} is outside -{SCORE_LIMIT}..={SCORE_LIMIT}"));
    }
    Ok(v)
}

/// A matrix whose header has letters found only in proteins is a protein matrix.
fn guess_matrix_alphabet(text: &str) -> Alphabet {
    let header = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    if header
        .split_whitespace()
        .any(|f| matches!(f, "E" | "F" | "I" | "L" | "P" | "Q" | "e" | "f" | "i" | "l" | "p" | "q"))
    {
        Alphabet::Protein
    } else {
        Alphabet::Dna
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(a: Alphabet, c: u8) -> u8 {
        a.encode_all(&[c]).unwrap()[0]
    }

    #[test]
    fn builtin_values_match_the_published_tables() {
        let p = Alphabet::Protein;
        let b62 = Matrix::builtin("blosum62").unwrap();
        assert_eq!(b62.score(code(p, b'W'), code(p, b'W')), 11);
        assert_eq!(b62.score(code(p, b'A'), code(p, b'R')), -1);
        assert_eq!(b62.score(code(p, b'*'), code(p, b'A')), -4);
        assert_eq!(b62.max_score(), 11);
        let b50 = Matrix::builtin("BL50").unwrap();
        assert_eq!(b50.name(), "BLOSUM50");
        assert_eq!(b50.score(code(p, b'W'), code(p, b'W')), 15);
        let pam250 = Matrix::builtin("PAM250").unwrap();
        assert_eq!(pam250.score(code(p, b'W'), code(p, b'W')), 17);
        assert_eq!(pam250.score(code(p, b'C'), code(p, b'W')), -8);
        for n in Matrix::builtin_names() {
            let m = Matrix::builtin(n).unwrap();
            for a in 0..m.size() as u8 {
                for b in 0..m.size() as u8 {
                    assert_eq!(m.score(a, b), m.score(b, a), "{n} is not symmetric");
                }
            }
        }
    }

    #[test]
    fn ednafull_over_acgtn() {
        let d = Alphabet::Dna;
        let m = Matrix::builtin("NUC.4.4").unwrap();
        assert_eq!(m.alphabet(), d);
        assert_eq!(m.score(code(d, b'A'), code(d, b'A')), 5);
        assert_eq!(m.score(code(d, b'A'), code(d, b'G')), -4);
        assert_eq!(m.score(code(d, b'N'), code(d, b'C')), -2);
        assert_eq!(m.score(code(d, b'N'), code(d, b'N')), -1);
    }

    #[test]
    fn unknown_name_lists_the_choices() {
        let msg = Matrix::builtin("BLOSUM63").unwrap_err().to_string();
        assert!(msg.contains("unknown matrix 'BLOSUM63'") && msg.contains("PAM250"), "{msg}");
    }

    #[test]
    fn ncbi_parse_errors_name_the_line() {
        let bad = "# c\n A C G T N\nA 1 -1 -1 -1\n";
        let msg = Matrix::parse_ncbi("x", bad, Alphabet::Dna).unwrap_err().to_string();
        assert!(msg.contains("line 3") && msg.contains("4 scores"), "{msg}");
        let bad = " A C G T N\nA 1 -1 x -1 0\n";
        assert!(Matrix::parse_ncbi("x", bad, Alphabet::Dna).unwrap_err().to_string().contains("'x'"));
        let missing = " A C G T\nA 1 0 0 0\nC 0 1 0 0\nG 0 0 1 0\nT 0 0 0 1\n";
        assert!(Matrix::parse_ncbi("x", missing, Alphabet::Dna).unwrap_err().to_string().contains("'N'"));
    }

    #[test]
    fn duplicate_letters_and_scores_for_letters_read_as_x_are_refused() {
        let dna = "   A C G T N\nA 1 -1 -1 -1 0\nC -1 1 -1 -1 0\nG -1 -1 1 -1 0\nT -1 -1 -1 1 0\nN 0 0 0 0 0\n";
        assert!(Matrix::parse_ncbi("t", dna, Alphabet::Dna).is_ok());
        // A second, different row for C: the first used to win silently.
        let twice = format!("{dna}C 5 5 5 5 5\n");
        let msg = Matrix::parse_ncbi("t", &twice, Alphabet::Dna).unwrap_err().to_string();
        assert!(msg.contains("line 7: a second row for letter 'C' (the first is on line 3)"), "{msg}");
        let header = dna.replacen("N\n", "A\n", 1);
        let msg = Matrix::parse_ncbi("t", &header, Alphabet::Dna).unwrap_err().to_string();
        assert!(msg.contains("line 1: letter 'A' twice in the header"), "{msg}");
        let rows = [(b'A', vec![1, 2]), (b'A', vec![1, 2])];
        let msg = Matrix::from_table("t", Alphabet::Dna, b"AC", &rows).unwrap_err().to_string();
        assert!(msg.contains("letter 'A' names two rows"), "{msg}");
        // BLOSUM62 with U and O rows: X's scores are accepted (U and O read as X), scores
        // of their own refused (they would be ignored).
        let b62 = include_str!("matrices/BLOSUM62");
        let x_row = b62.lines().find(|l| l.starts_with('X')).unwrap();
        let with_x = format!("{b62}{}\n{}\n", x_row.replacen('X', "U", 1), x_row.replacen('X', "O", 1));
        assert!(Matrix::parse_ncbi("t", &with_x, Alphabet::Protein).is_ok());
        let own = x_row.replacen('X', "U", 1).replacen("-1", "9", 1);
        let msg = Matrix::parse_ncbi("t", &format!("{b62}{own}\n"), Alphabet::Protein).unwrap_err().to_string();
        assert!(msg.contains("row 'U' has scores of its own, but clsw reads U as X"), "{msg}");
    }

    #[test]
    fn ncbi_columns_in_any_order() {
        let text = "   T  G  C  A  N\nT 2 -3 -3 -3 0\nG -3 2 -3 -3 0\nC -3 -3 2 -3 0\nA -3 -3 -3 7 0\nN 0 0 0 0 0\n";
        let m = Matrix::parse_ncbi("custom", text, Alphabet::Dna).unwrap();
        assert_eq!(m.score(0, 0), 7);
        assert_eq!(m.score(3, 3), 2);
        assert_eq!(m.score(0, 3), -3);
    }

    #[test]
    fn match_mismatch_matrix() {
        let m = Matrix::match_mismatch(Alphabet::Dna, 2, -3).unwrap();
        assert_eq!(m.score(1, 1), 2);
        assert_eq!(m.score(1, 2), -3);
        assert!(Matrix::match_mismatch(Alphabet::Dna, 0, -1).is_err());
        assert!(Matrix::match_mismatch(Alphabet::Dna, 1, 1).is_err());
    }

    #[test]
    fn scores_beyond_the_limit_are_refused() {
        assert!(Matrix::match_mismatch(Alphabet::Dna, SCORE_LIMIT, -SCORE_LIMIT).is_ok());
        let msg = Matrix::match_mismatch(Alphabet::Dna, SCORE_LIMIT + 1, -1).unwrap_err().to_string();
        assert!(msg.contains("outside -1048576..=1048576"), "{msg}");
        assert!(Matrix::match_mismatch(Alphabet::Dna, 1, i32::MIN).is_err());
        let text = " A C G T N\nA 1 0 0 0 0\nC 0 1 0 0 0\nG 0 0 1 0 0\nT 0 0 0 1 0\nN 0 0 0 -2147483648 0\n";
        let msg = Matrix::parse_ncbi("x", text, Alphabet::Dna).unwrap_err().to_string();
        assert!(msg.contains("line 6: score -2147483648 is outside"), "{msg}");
    }
}

//! Line-oriented text input read within bounds: every line is read up to a length the
//! format allows, and a longer one is an error naming the file and line, so a binary
//! file, `/dev/zero` or a file without line ends is refused after that many bytes
//! instead of growing one buffer until the process is killed. Lines must be UTF-8
//! (an error names the line and column otherwise). The line buffer grows with
//! `try_reserve`, so a refused allocation is an error, not an abort.
//!
//! Used by the FASTA reader for its header lines, and by every table the jobs read:
//! genotype tables, PLINK's `.bim` and `.fam`, time series.

use crate::error::{Error, Result};
use std::io::{self, BufRead};

/// The longest line of a file whose lines are short by nature (FASTA headers, `.bim`
/// and `.fam` lines, rows of a series).
pub const MAX_LINE: usize = 1 << 24;

/// The longest line of a genotype table, whose line is a sample's call at every site
/// (two bytes a site: 512 M sites).
pub const MAX_TABLE_LINE: usize = 1 << 30;

/// What [`read_line_within`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRead {
    /// The input had ended: nothing was read.
    End,
    /// A line, in the buffer without its line end (`\n` or `\r\n`).
    Line,
    /// A line longer than the bound (the buffer holds part of it).
    TooLong,
}

/// Reads the rest of the current line, at most `max` bytes of it, into `buf` (cleared
/// first) without its line end.
pub fn read_line_within(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<LineRead> {
    buf.clear();
    let mut read_any = false;
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            break;
        }
        read_any = true;
        let (taken, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (available.len(), false),
        };
        if buf.len() + taken > max {
            return Ok(LineRead::TooLong);
        }
        reserve(buf, taken)?;
        buf.extend_from_slice(&available[..taken]);
        input.consume(taken + usize::from(ended));
        if ended {
            break;
        }
    }
    if !read_any {
        return Ok(LineRead::End);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(LineRead::Line)
}

fn reserve(buf: &mut Vec<u8>, additional: usize) -> io::Result<()> {
    buf.try_reserve(additional).map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))
}

/// The lines of a text input, numbered from 1, each at most a given length.
pub struct Lines<R> {
    input: R,
    source: String,
    max: usize,
    buf: Vec<u8>,
    line_no: usize,
}

impl<R: BufRead> Lines<R> {
    /// The lines of `input`, named `source` in errors, each at most `max` bytes.
    pub fn new(input: R, source: impl Into<String>, max: usize) -> Self {
        Lines { input, source: source.into(), max, buf: Vec::new(), line_no: 0 }
    }

    /// The next line without its line end, and its number; `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<(usize, &str)>> {
        let read = read_line_within(&mut self.input, &mut self.buf, self.max);
        self.line_no += 1;
        match read.map_err(|e| self.error(self.line_no, format!("read failed: {e}")))? {
            LineRead::End => return Ok(None),
            LineRead::TooLong => {
                return Err(self.error(self.line_no, format!("line is longer than {} bytes", self.max)));
            }
            LineRead::Line => {}
        }
        match std::str::from_utf8(&self.buf) {
            Ok(text) => Ok(Some((self.line_no, text))),
            Err(e) => Err(self.error(
                self.line_no,
                format!(
                    "column {}: the byte {:#04x} is not UTF-8 text",
                    e.valid_up_to() + 1,
                    self.buf[e.valid_up_to()]
                ),
            )),
        }
    }

    /// An error at line `line` of the input: `source: line N: message`.
    pub fn error(&self, line: usize, message: impl std::fmt::Display) -> Error {
        Error::InvalidArgument(format!("{}: line {line}: {message}", self.source))
    }

    /// The name of the input, as errors give it.
    pub fn source(&self) -> &str {
        &self.source
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &[u8], max: usize) -> Result<Vec<(usize, String)>> {
        let mut lines = Lines::new(text, "t.txt", max);
        let mut out = Vec::new();
        while let Some((no, l)) = lines.next_line()? {
            out.push((no, l.to_string()));
        }
        Ok(out)
    }

    #[test]
    fn lines_are_numbered_and_lose_their_ends() {
        let got = all(b"a b\r\n\nlast", 8).unwrap();
        assert_eq!(got, vec![(1, "a b".into()), (2, String::new()), (3, "last".into())]);
        assert_eq!(all(b"", 8).unwrap(), vec![]);
        assert_eq!(all(b"x\n", 8).unwrap(), vec![(1, "x".into())]);
    }

    #[test]
    fn a_line_of_the_bound_is_read_and_a_longer_one_is_an_error_naming_it() {
        assert_eq!(all(b"12345678\n", 8).unwrap(), vec![(1, "12345678".into())]);
        assert_eq!(all(b"12345678", 8).unwrap(), vec![(1, "12345678".into())]);
        let e = all(b"ok\n123456789\n", 8).unwrap_err().to_string();
        assert!(e.contains("t.txt: line 2: line is longer than 8 bytes"), "{e}");
        // An endless line stops at the bound, whatever the reader's buffer size.
        let zeros = std::io::BufReader::with_capacity(3, std::io::repeat(0));
        let mut lines = Lines::new(zeros, "/dev/zero", 1000);
        let e = lines.next_line().unwrap_err().to_string();
        assert!(e.contains("/dev/zero: line 1: line is longer than 1000 bytes"), "{e}");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_an_error_naming_line_and_column() {
        let e = all(b"fine\nab\xffc\n", 80).unwrap_err().to_string();
        assert!(e.contains("line 2: column 3: the byte 0xff is not UTF-8"), "{e}");
    }
}

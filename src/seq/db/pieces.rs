//! A plain FASTA database read on every thread of the pool: the file is read in
//! windows, each window cut at record starts (a `>` at the start of a line) into
//! pieces, and each piece parsed by its own [`FastaReader`]; the pieces' records are
//! joined in file order. A search of a short query on many cores spends as long
//! reading the database this way as scanning it; one reader alone took longer than
//! the scan.
//!
//! The records, their order and the [`ReadReport`] are those of the streaming reader
//! ([`Database::from_fasta`]'s other path): a piece starts at a header, where the
//! streaming reader starts a record too, and the line numbers of skipped empty records
//! are shifted by the lines of the pieces before. Whatever a piece cannot say alone
//! (a malformed record, whose error names its record number counted from the file's
//! start; a file of no records) is left to the streaming reader, which reads the file
//! again and says it as it always has. Gzip files and standard input are read by the
//! streaming reader.
//!
//! [`Database::from_fasta`]: super::Database::from_fasta

use super::Builder;
use crate::error::{Error, Result};
use crate::seq::alphabet::Alphabet;
use crate::seq::fasta::{EmptyRecords, FastaReader, ReadReport};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;

/// Files smaller than this are read by the streaming reader alone.
const MIN_FILE: u64 = 1 << 20;
/// Bytes read before a window is cut into pieces.
const WINDOW: usize = 64 << 20;
/// Pieces per thread in a window, so a thread that finishes early takes another.
const PIECES_PER_THREAD: usize = 4;

/// The database's records and the report, or `None` when the streaming reader must
/// read this file: gzip, standard input or another stream, small, one thread, or an
/// input it must describe.
pub(super) fn read(path: &Path, alphabet: Alphabet, empty: EmptyRecords) -> Result<Option<(Builder, ReadReport)>> {
    // Only a regular file can be read at offsets; a FIFO opened here would also lose
    // the bytes the streaming reader keeps for it.
    if !crate::seq::fasta::is_regular_file(path) {
        return Ok(None);
    }
    read_in_windows(path, alphabet, empty, WINDOW)
}

fn read_in_windows(
    path: &Path,
    alphabet: Alphabet,
    empty: EmptyRecords,
    window: usize,
) -> Result<Option<(Builder, ReadReport)>> {
    let threads = rayon::current_num_threads();
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if threads < 2 || size < MIN_FILE {
        return Ok(None);
    }
    let mut parsed = Vec::new();
    let (mut start, mut window) = (0u64, window);
    while start < size {
        let len = (size - start).min(window as u64) as usize;
        // A read that fails (or a file that shrank) is the streaming reader's to report.
        let Ok(bytes) = read_at(&file, start, len) else { return Ok(None) };
        if start == 0 && bytes.starts_with(&[0x1f, 0x8b]) {
            return Ok(None);
        }
        // The window ends where its last record starts (it may go on past the window).
        let cut = if start + len as u64 == size { len } else { last_record_start(&bytes) };
        if cut == 0 {
            window *= 2; // one record longer than the window: a larger window
            continue;
        }
        let pieces = cut_at_records(&bytes[..cut], threads * PIECES_PER_THREAD);
        let found: Vec<Option<Parsed>> = pieces.par_iter().map(|piece| parse(piece, path, alphabet, empty)).collect();
        for piece in found {
            let Some(piece) = piece else { return Ok(None) };
            parsed.push(piece);
        }
        start += cut as u64;
    }
    Ok(join(alphabet, parsed))
}

/// `len` bytes of `file` from `offset`, read on every thread: the fresh pages of the
/// buffer are faulted in by all of them rather than one.
#[cfg(unix)]
fn read_at(file: &File, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    const PART: usize = 1 << 20;
    // Room the memory may not have (a window doubles past a long record): the
    // streaming reader, which needs less at once, then reads the file.
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len).map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    bytes.resize(len, 0);
    bytes
        .par_chunks_mut(PART)
        .enumerate()
        .try_for_each(|(k, part)| file.read_exact_at(part, offset + (k * PART) as u64))?;
    Ok(bytes)
}

/// Elsewhere the streaming reader reads every file.
#[cfg(not(unix))]
fn read_at(_: &File, _: u64, _: usize) -> std::io::Result<Vec<u8>> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// One piece's records, its report and its number of lines.
type Parsed = (Builder, ReadReport, usize);

/// The pieces' records in order, and their reports as one; `None` past the
/// database's limit on sequences (the streaming reader then says so).
fn join(alphabet: Alphabet, parsed: Vec<Parsed>) -> Option<(Builder, ReadReport)> {
    let sequences: usize = parsed.iter().map(|p| p.0.lengths.len()).sum();
    if sequences == 0 || sequences > u32::MAX as usize {
        return None;
    }
    // The residues, the bulk, copied on every thread.
    let mut residues = vec![0u8; parsed.iter().map(|p| p.0.residues.len()).sum()];
    let mut parts = Vec::with_capacity(parsed.len());
    let mut rest = residues.as_mut_slice();
    for p in &parsed {
        let (part, after) = rest.split_at_mut(p.0.residues.len());
        parts.push(part);
        rest = after;
    }
    parts.into_par_iter().zip(&parsed).for_each(|(part, p)| part.copy_from_slice(&p.0.residues));
    let mut all = Builder::new(alphabet, 0);
    all.residues = residues;
    let (mut report, mut lines_before) = (ReadReport::default(), 0usize);
    let mut substituted: BTreeMap<char, u64> = BTreeMap::new();
    for (piece, piece_report, lines) in parsed {
        let (names, offset) = (all.names.len(), *all.offsets.last().expect("offsets start at 0"));
        all.names.push_str(&piece.names);
        all.name_offsets.extend(piece.name_offsets[1..].iter().map(|&o| o + names));
        all.lengths.extend_from_slice(&piece.lengths);
        all.offsets.extend(piece.offsets[1..].iter().map(|&o| o + offset));
        report.records += piece_report.records;
        report.residues += piece_report.residues;
        for (c, n) in piece_report.substituted {
            *substituted.entry(c).or_default() += n;
        }
        report.empty_records.extend(piece_report.empty_records.into_iter().map(|(l, id)| (l + lines_before, id)));
        lines_before += lines;
    }
    report.substituted = substituted.into_iter().collect();
    Some((all, report))
}

/// Whether a record starts at `p`: a `>` at the start of a line.
fn starts_record(bytes: &[u8], p: usize) -> bool {
    bytes[p] == b'>' && (p == 0 || bytes[p - 1] == b'\n')
}

/// Where the last record of `bytes` starts (0 when only one starts, at 0, or none).
fn last_record_start(bytes: &[u8]) -> usize {
    (1..bytes.len()).rev().find(|&p| starts_record(bytes, p)).unwrap_or(0)
}

/// `bytes` cut into about `n` pieces of similar size, each starting at a record start
/// (the first at 0).
fn cut_at_records(bytes: &[u8], n: usize) -> Vec<&[u8]> {
    let step = bytes.len().div_ceil(n.max(1)).max(1);
    let mut starts = vec![0];
    let mut at = step;
    while at < bytes.len() {
        match (at..bytes.len()).find(|&p| starts_record(bytes, p)) {
            Some(p) => {
                starts.push(p);
                at = p + step;
            }
            None => break,
        }
    }
    starts.push(bytes.len());
    starts.windows(2).map(|w| &bytes[w[0]..w[1]]).collect()
}

/// One piece's records, report and line count; `None` when it has something to say.
fn parse(piece: &[u8], path: &Path, alphabet: Alphabet, empty: EmptyRecords) -> Option<Parsed> {
    let mut reader = FastaReader::new(piece, path.display().to_string(), alphabet).with_empty_records(empty);
    let mut builder = Builder::new(alphabet, piece.len());
    while let Some(seq) = reader.next_record().ok()? {
        builder.push(&seq).ok()?;
    }
    let lines = reader.position().2;
    Some((builder, reader.report(), lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_start_at_records_and_cover_the_bytes() {
        let text = b";c\n>a\nAC\n>b x\nGT\r\n>c\n\n>d\nA";
        for n in 1..12 {
            let pieces = cut_at_records(text, n);
            assert_eq!(pieces.concat(), text, "{n} pieces");
            assert!(pieces.iter().skip(1).all(|p| p.starts_with(b">")), "{n} pieces");
        }
        assert_eq!(last_record_start(text), text.len() - 4);
        assert_eq!(last_record_start(b">only\nAAA"), 0);
    }

    /// A file of about 1.3 MB with CRLF and LF lines, substituted letters, empty
    /// records and one record longer than a window: the pieces read what one streaming
    /// reader reads, on several threads and window sizes; a bad letter leaves the file
    /// to the streaming reader (for its error).
    #[test]
    fn pieces_read_what_one_reader_reads() {
        let mut text = String::from("; a comment\n\n");
        let mut state = 12345u64;
        for k in 0..6_000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = 20 + (state >> 33) as usize % 300;
            let eol = if k % 3 == 0 { "\r\n" } else { "\n" };
            text += &format!(">s{k} description {k}{eol}");
            if k % 997 == 5 {
                continue; // an empty record
            }
            let letters = if k % 101 == 0 { "ACDEFGHIKLMNPQRSTVWYBZJUO" } else { "ACDEFGHIKLMNPQRSTVWY" };
            let len = if k == 2_000 { 20_000 } else { len };
            for (i, c) in letters.chars().cycle().skip(k % 17).take(len).enumerate() {
                text.push(c);
                if i % 60 == 59 {
                    text += eol;
                }
            }
            text += eol;
        }
        let path = std::env::temp_dir().join(format!("clsw-pieces-{}.fa", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        assert!(text.len() as u64 > MIN_FILE);
        let (want, want_report) = super::super::stream(&path, Alphabet::Protein, EmptyRecords::Skip).unwrap();
        assert_eq!(want_report.empty_records.len(), 7);
        assert!(!want_report.substituted.is_empty());
        for (threads, window) in [(2, WINDOW), (5, 4096), (8, 100_000)] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let read = pool.install(|| read_in_windows(&path, Alphabet::Protein, EmptyRecords::Skip, window));
            let (got, report) = read.unwrap().expect("read in pieces");
            let what = format!("{threads} threads, window {window}");
            assert_eq!(got.names, want.names, "{what}");
            assert_eq!(got.name_offsets, want.name_offsets, "{what}");
            assert_eq!((&got.lengths, &got.offsets, &got.residues), (&want.lengths, &want.offsets, &want.residues));
            assert_eq!(format!("{report:?}"), format!("{want_report:?}"), "{what}");
        }
        // Empty records refused, or a bad letter: the streaming reader must say it.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        assert!(pool.install(|| read(&path, Alphabet::Protein, EmptyRecords::Error)).unwrap().is_none());
        std::fs::write(&path, text.replacen("ACDEF", "AC1EF", 1)).unwrap();
        assert!(pool.install(|| read(&path, Alphabet::Protein, EmptyRecords::Skip)).unwrap().is_none());
        std::fs::remove_file(&path).unwrap();
    }
}

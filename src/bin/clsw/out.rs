//! Where a command's results go: standard output, or a file named by `--out` written
//! atomically ([`clsw::outfile`]) and refused, before any work, when it is one of the
//! command's inputs.
//!
//! A closed standard output (`clsw ... | head`) needs nothing here: `main` restores the
//! default action of SIGPIPE, so the next write ends the process quietly.

use clsw::outfile::{OutFile, refuse_inputs};
use clsw::{Error, Result};
use std::io::{BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};

/// A command's result stream.
pub enum Output {
    Stdout(BufWriter<StdoutLock<'static>>),
    File(OutFile),
}

/// `path`, checked against the command's `inputs`, opened for writing.
pub fn file(path: &Path, inputs: &[&Path]) -> Result<OutFile> {
    refuse_inputs(path, inputs)?;
    OutFile::create(path)
}

impl Output {
    /// The file at `path` (see [`file`]), or standard output when `path` is `None`.
    pub fn open(path: Option<&Path>, inputs: &[&Path]) -> Result<Output> {
        Ok(match path {
            Some(p) => Output::File(file(p, inputs)?),
            None => Output::Stdout(BufWriter::with_capacity(1 << 16, std::io::stdout().lock())),
        })
    }

    /// The output's name in messages: its path, or "standard output".
    pub fn name(&self) -> PathBuf {
        match self {
            Output::Stdout(_) => PathBuf::from("standard output"),
            Output::File(f) => f.path().to_path_buf(),
        }
    }

    /// Ends the output: flushes standard output, or commits the file.
    pub fn finish(self) -> Result<()> {
        match self {
            Output::Stdout(mut w) => w.flush().map_err(|e| Error::io("standard output", e)),
            Output::File(f) => f.commit(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::File(f) => f.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Output::Stdout(w) => w.write_all(buf),
            Output::File(f) => f.write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::File(f) => f.flush(),
        }
    }
}

//! Output files written atomically. Every file clsw writes (search results, prepared
//! databases, distance matrices, sw3 tables), from the command line and through the C
//! ABI, goes through [`OutFile`]:
//!
//! - the data go to a temporary file created exclusively (`O_CREAT | O_EXCL`, under an
//!   unpredictable name, by the `tempfile` crate) in the target's own folder, so a file
//!   or symlink planted there is never followed, and two writers of one path (threads
//!   or processes) never share a temporary;
//! - [`OutFile::commit`] flushes it, syncs it to disk and renames it over the target:
//!   readers see the previous file or the new one whole, never a part. Until then the
//!   previous file is untouched; a run that fails (or drops the `OutFile`) removes its
//!   temporary, so a full disk or an error leaves nothing truncated behind. Of several
//!   writers of one path, each renames a complete file and the last one wins.
//!
//! The target: a symlink is followed (the file it points to is replaced, the link is
//! kept, as when writing through it). A target that exists but is not a regular file
//! (`/dev/null`, `/dev/stdout`, a FIFO) cannot be replaced by a rename and is written
//! directly. A new file gets mode 0666 less the umask (what `File::create` gives); a
//! replaced file keeps its mode.
//!
//! [`refuse_inputs`] refuses, before any work, an output that is one of the run's own
//! inputs (the same file by device and inode, whatever path names it), so `-o db.fa`
//! beside `-d db.fa` cannot replace the database with the results.

use crate::error::{Error, Result};
use std::fs::{File, Permissions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use tempfile::{NamedTempFile, TempPath};

/// A file being written; it replaces its target only on [`commit`](OutFile::commit).
pub struct OutFile {
    /// The path as the caller named it (for messages).
    path: PathBuf,
    /// Where the data end up: `path` with symlinks resolved.
    target: PathBuf,
    sink: Sink,
    /// The temporary's entry in [`PENDING`], while it exists.
    _pending: Option<Pending>,
}

/// Temporaries being written, for [`remove_pending_temporaries`].
static PENDING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// A temporary's entry in [`PENDING`], removed when dropped (the temporary committed
/// or removed).
struct Pending(PathBuf);

impl Pending {
    fn new(path: &Path) -> Pending {
        PENDING.lock().unwrap_or_else(|p| p.into_inner()).push(path.to_path_buf());
        Pending(path.to_path_buf())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = pending.iter().position(|p| *p == self.0) {
            pending.swap_remove(k);
        }
    }
}

/// Removes the temporaries of every output still being written, leaving their targets
/// as they were: for a process about to end on a signal (the `clsw` command's SIGINT
/// and SIGTERM), which runs no destructors. The outputs cannot be committed after it.
pub fn remove_pending_temporaries() {
    for path in PENDING.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
        let _ = std::fs::remove_file(path);
    }
}

enum Sink {
    /// A temporary beside the target (removed when dropped), renamed over it on commit.
    Atomic(BufWriter<File>, TempPath),
    /// A target that is not a regular file (a device, a FIFO), written in place.
    Direct(BufWriter<File>),
}

const BUFFER: usize = 1 << 20;

impl OutFile {
    /// Starts writing `path`: creates the temporary beside it, so that an unwritable
    /// folder or a missing one fails now, before any work. A directory is refused.
    pub fn create(path: &Path) -> Result<OutFile> {
        let io = |e| Error::io(path, e);
        let existing = match std::fs::metadata(path) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io(e)),
        };
        let (target, sink) = match existing {
            Some(m) if m.is_dir() => {
                return Err(Error::InvalidArgument(format!("{}: is a directory, not a file to write", path.display())));
            }
            Some(m) if !m.is_file() => {
                let file = File::options().write(true).open(path).map_err(io)?;
                (path.to_path_buf(), Sink::Direct(BufWriter::with_capacity(BUFFER, file)))
            }
            Some(m) => {
                let target = path.canonicalize().map_err(io)?;
                let (file, tmp) = temporary_beside(&target, Some(m.permissions())).map_err(io)?.into_parts();
                // The umask narrowed the mode at creation; the replaced file's own mode is kept.
                file.set_permissions(m.permissions()).map_err(io)?;
                (target, Sink::Atomic(BufWriter::with_capacity(BUFFER, file), tmp))
            }
            None => {
                let (file, tmp) = temporary_beside(path, new_file_permissions()).map_err(io)?.into_parts();
                (path.to_path_buf(), Sink::Atomic(BufWriter::with_capacity(BUFFER, file), tmp))
            }
        };
        let pending = match &sink {
            Sink::Atomic(_, tmp) => Some(Pending::new(tmp)),
            Sink::Direct(_) => None,
        };
        Ok(OutFile { path: path.to_path_buf(), target, sink, _pending: pending })
    }

    /// The path as given to [`create`](OutFile::create).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Finishes the file: flushes and syncs the temporary and renames it over the
    /// target. On an error the temporary is removed and the target left as it was.
    pub fn commit(self) -> Result<()> {
        let io = |e| Error::io(&self.path, e);
        match self.sink {
            Sink::Atomic(w, tmp) => {
                w.into_inner().map_err(|e| io(e.into_error()))?.sync_all().map_err(io)?;
                tmp.persist(&self.target).map_err(|e| io(e.error))?;
                sync_folder(&self.target);
                Ok(())
            }
            Sink::Direct(mut w) => w.flush().map_err(io),
        }
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.sink {
            Sink::Atomic(w, _) => w.write(buf),
            Sink::Direct(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match &mut self.sink {
            Sink::Atomic(w, _) => w.write_all(buf),
            Sink::Direct(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.sink {
            Sink::Atomic(w, _) => w.flush(),
            Sink::Direct(w) => w.flush(),
        }
    }
}

/// Seeking flushes the buffer first (for formats whose header is written last).
impl Seek for OutFile {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        match &mut self.sink {
            Sink::Atomic(w, _) => w.seek(pos),
            Sink::Direct(w) => w.seek(pos),
        }
    }
}

/// A temporary created exclusively in `target`'s folder, named after it
/// (`.NAME.XXXXXX.tmp`, hidden and easy to attribute should a crash leave it).
fn temporary_beside(target: &Path, permissions: Option<Permissions>) -> std::io::Result<NamedTempFile> {
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(target.file_name().unwrap_or_default());
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    if let Some(p) = permissions {
        builder.permissions(p);
    }
    builder.tempfile_in(folder)
}

/// What `File::create` asks for (the umask then narrows it); elsewhere the system's default.
fn new_file_permissions() -> Option<Permissions> {
    #[cfg(unix)]
    return Some(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    #[cfg(not(unix))]
    None
}

/// Makes the rename itself durable (best effort: not every file system syncs folders).
fn sync_folder(target: &Path) {
    #[cfg(unix)]
    if let Some(folder) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        let _ = File::open(folder).and_then(|f| f.sync_all());
    }
    #[cfg(not(unix))]
    let _ = target;
}

/// Refuses `output` when it is the same file as one of `inputs` (compared by device
/// and inode, so other names of the file, links included, are caught). Only an
/// existing regular file can be both; `/dev/stdout` and the like are not compared.
pub fn refuse_inputs(output: &Path, inputs: &[&Path]) -> Result<()> {
    let Some(out) = regular_file_identity(output) else { return Ok(()) };
    for input in inputs {
        if regular_file_identity(input) == Some(out) {
            return Err(Error::InvalidArgument(format!(
                "the output {} is the input {}: writing it would replace the input; name another output file",
                output.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Refuses two outputs of one command (`what`, as the user named them, and their paths)
/// that are the same file, existing or not: the second written would replace the first.
pub fn refuse_same_output((what_a, a): (&str, &Path), (what_b, b): (&str, &Path)) -> Result<()> {
    let existing = regular_file_identity(a).is_some_and(|id| regular_file_identity(b) == Some(id));
    let destination = |p: &Path| -> Option<PathBuf> {
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some(parent.canonicalize().ok()?.join(p.file_name()?))
    };
    if existing || destination(a).is_some_and(|d| destination(b) == Some(d)) {
        return Err(Error::InvalidArgument(format!(
            "{what_a} {} and {what_b} {} are the same file: one would replace the other; name two files",
            a.display(),
            b.display()
        )));
    }
    Ok(())
}

#[cfg(unix)]
type Identity = (u64, u64);
#[cfg(not(unix))]
type Identity = PathBuf;

#[cfg(unix)]
fn regular_file_identity(path: &Path) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn regular_file_identity(path: &Path) -> Option<Identity> {
    std::fs::metadata(path).ok().filter(|m| m.is_file()).and_then(|_| path.canonicalize().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(tag: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("clsw-outfile-{tag}-")).tempdir().unwrap()
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn the_target_changes_only_on_commit() {
        let dir = folder("commit");
        let path = dir.path().join("out.tsv");
        std::fs::write(&path, "old\n").unwrap();
        let mut f = OutFile::create(&path).unwrap();
        f.write_all(b"new\n").unwrap();
        f.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n", "not replaced before commit");
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_dropped_file_leaves_the_target_and_no_temporary() {
        let dir = folder("drop");
        let path = dir.path().join("out.tsv");
        std::fs::write(&path, "old\n").unwrap();
        let mut f = OutFile::create(&path).unwrap();
        f.write_all(&vec![b'x'; 3 << 20]).unwrap();
        drop(f);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        assert!(leftovers(dir.path()).is_empty(), "{:?}", leftovers(dir.path()));
        // A new file that is never committed does not appear at all.
        let fresh = dir.path().join("fresh.tsv");
        drop(OutFile::create(&fresh).unwrap());
        assert!(!fresh.exists());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_written_through_and_modes_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = folder("link");
        let real = dir.path().join("real.tsv");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.tsv");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut f = OutFile::create(&link).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is kept");
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(std::fs::metadata(&real).unwrap().permissions().mode() & 0o777, 0o640);
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_in_place() {
        let mut f = OutFile::create(Path::new("/dev/null")).unwrap();
        f.write_all(b"gone").unwrap();
        f.commit().unwrap();
        assert!(Path::new("/dev/null").exists());
    }

    #[test]
    fn folders_and_missing_folders_are_refused_at_once() {
        let dir = folder("refuse");
        let err = OutFile::create(dir.path()).err().unwrap().to_string();
        assert!(err.contains("is a directory"), "{err}");
        let err = OutFile::create(&dir.path().join("no/such/out.tsv")).err().unwrap().to_string();
        assert!(err.contains("no/such/out.tsv"), "{err}");
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let dir = folder("same");
        let input = dir.path().join("db.fa");
        std::fs::write(&input, ">a\nACGT\n").unwrap();
        let other = dir.path().join("q.fa");
        std::fs::write(&other, ">q\nACGT\n").unwrap();
        let err = refuse_inputs(&input, &[&other, &input]).unwrap_err().to_string();
        assert!(err.contains("db.fa") && err.contains("replace the input"), "{err}");
        // Another name of the same file.
        let dotted = dir.path().join(".").join("db.fa");
        assert!(refuse_inputs(&dotted, &[&input]).is_err());
        #[cfg(unix)]
        {
            let hard = dir.path().join("hard.fa");
            std::fs::hard_link(&input, &hard).unwrap();
            assert!(refuse_inputs(&hard, &[&input]).is_err(), "a hard link is the same file");
        }
        assert!(refuse_inputs(&dir.path().join("new.tsv"), &[&input]).is_ok());
        assert!(refuse_inputs(&other, &[&input]).is_ok());
    }
}

//! Files mapped into memory that another program may cut short while they are open.
//!
//! Reading a page of a mapping that lies past its file's new end raises SIGBUS, whose
//! default action ends the process: the `clsw` command, or the program that links
//! clsw. A [`MappedFile`] puts its address range in a process-wide table read by a
//! SIGBUS handler, installed the first time a file is mapped, that replaces the
//! vanished pages of a mapping in the table by zero pages (so the read that faulted
//! completes) and marks the mapping as cut. [`MappedFile::check`] then reports the
//! file as changed while in use, and the jobs that read a mapped file call it before
//! they report results (`Database::check_intact`). A fault at any other address goes
//! to the action that was there before: the host's own handler, or the default, which
//! ends the process as it would have without clsw.
//!
//! On Windows a mapped file cannot be cut short, so no handler is needed there.

use crate::error::{Error, Result};
use memmap2::{Mmap, MmapOptions};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Mappings open at once with the handler's protection (the table is fixed, as the
/// handler may not allocate); one more is refused with an error.
const SLOTS: usize = 256;

/// One mapping in the table: `start` is 0 while the slot is free.
struct Slot {
    taken: AtomicBool,
    start: AtomicUsize,
    len: AtomicUsize,
    cut: AtomicBool,
}

static TABLE: [Slot; SLOTS] = [const {
    Slot {
        taken: AtomicBool::new(false),
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        cut: AtomicBool::new(false),
    }
}; SLOTS];

/// A read-only map of a whole file, guarded against the file being cut short.
pub struct MappedFile {
    map: Mmap,
    slot: usize,
    path: PathBuf,
}

impl MappedFile {
    /// Maps `file` (opened from `path`) and asks the kernel to read it ahead
    /// (`MADV_WILLNEED`, which returns at once); its pages are then mapped as the
    /// caller's threads first read them. Not `MAP_POPULATE`, which mapped every page on
    /// this thread alone before the prepared database's checksum read them on every
    /// core (1 G residues: database open 0.27-0.31 s with it, 0.22-0.24 s without, on 2
    /// cores).
    pub fn map(file: &File, path: &Path) -> Result<MappedFile> {
        guard::install().map_err(|e| Error::io(path, e))?;
        // SAFETY: the map is read-only and only ever read as bytes. The file may be
        // changed by another program while it is mapped: a page cut off the file's
        // end reads as zeros through the handler (module documentation), and `check`
        // reports it; a change in place is the caller's to detect (prepared databases
        // carry checksums, verified once the map is made).
        let map = unsafe { MmapOptions::new().map(file) }.map_err(|e| Error::io(path, e))?;
        // Advice only: a kernel that refuses it reads the pages as they are touched
        // (memmap2 offers it on Unix alone).
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::WillNeed);
        let slot = (0..SLOTS)
            .find(|&k| TABLE[k].taken.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire).is_ok())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{}: more than {SLOTS} files are mapped at once; close a database first",
                    path.display()
                ))
            })?;
        let entry = &TABLE[slot];
        entry.cut.store(false, Ordering::Release);
        entry.len.store(map.len(), Ordering::Release);
        entry.start.store(map.as_ptr() as usize, Ordering::Release);
        Ok(MappedFile { map, slot, path: path.to_path_buf() })
    }

    /// The file's bytes as mapped.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// An error naming the file if any of its pages was cut off while it was mapped
    /// (what was read from them since were zeros, not the file's bytes).
    pub fn check(&self) -> Result<()> {
        if TABLE[self.slot].cut.load(Ordering::Acquire) {
            Err(Error::InvalidArgument(format!(
                "{} was cut short by another program while clsw was reading it; results from it are not reported",
                self.path.display()
            )))
        } else {
            Ok(())
        }
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        // Out of the table before the map goes, so the handler never claims a
        // fault at an address that the next mapping may reuse.
        let entry = &TABLE[self.slot];
        entry.start.store(0, Ordering::Release);
        entry.len.store(0, Ordering::Release);
        entry.taken.store(false, Ordering::Release);
    }
}

#[cfg(unix)]
mod guard {
    //! The SIGBUS handler: async-signal-safe work only (atomics, `mmap`, `sigaction`,
    //! `raise`).

    use super::{Ordering, TABLE};
    use std::sync::OnceLock;

    /// The action installed before ours, to which faults elsewhere go.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
    static PAGE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(4096);

    /// Installs the handler once per process.
    pub(super) fn install() -> std::io::Result<()> {
        static INSTALLED: OnceLock<std::result::Result<(), i32>> = OnceLock::new();
        INSTALLED
            .get_or_init(|| {
                // SAFETY: sysconf has no preconditions.
                let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
                if page > 0 {
                    PAGE.store(page as usize, Ordering::Release);
                }
                // SAFETY: a zeroed sigaction is a valid value to be overwritten; passing a
                // null new action only reads the current one into `previous`.
                let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
                // SAFETY: as above: `previous` is a valid, writable sigaction.
                if unsafe { libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) } != 0 {
                    return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
                }
                let _ = PREVIOUS.set(previous);
                // SAFETY: as above, zeroed then filled in.
                let mut ours: libc::sigaction = unsafe { std::mem::zeroed() };
                ours.sa_sigaction = on_sigbus as *const () as usize;
                ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
                // SAFETY: `ours.sa_mask` is a valid sigset_t to fill.
                unsafe { libc::sigemptyset(&mut ours.sa_mask) };
                // SAFETY: both pointers are valid sigactions; `on_sigbus` has the
                // SA_SIGINFO signature.
                if unsafe { libc::sigaction(libc::SIGBUS, &ours, std::ptr::null_mut()) } != 0 {
                    return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
                }
                Ok(())
            })
            .map_err(std::io::Error::from_raw_os_error)
    }

    /// A fault inside a mapping in the table: its pages from the faulting one to its
    /// end become zero pages, the mapping is marked cut, and the read completes.
    /// Anything else goes to the previous action.
    extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
        let address = unsafe { (*info).si_addr() } as usize;
        let page = PAGE.load(Ordering::Acquire);
        for entry in &TABLE {
            let start = entry.start.load(Ordering::Acquire);
            let len = entry.len.load(Ordering::Acquire);
            if start == 0 || address < start || address >= start + len {
                continue;
            }
            let from = address & !(page - 1);
            let end = (start + len).div_ceil(page) * page;
            // SAFETY: [from, end) lies inside a live mapping of ours (it leaves the
            // table before it is unmapped), so MAP_FIXED replaces only our own pages.
            let zeros = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if zeros != libc::MAP_FAILED {
                entry.cut.store(true, Ordering::Release);
                return;
            }
            break;
        }
        forward(signal, info, context);
    }

    /// The previous action for a SIGBUS that is not ours: its handler, or the default
    /// (re-raised, so the process ends as it would have).
    fn forward(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        if let Some(previous) = PREVIOUS.get() {
            let handler = previous.sa_sigaction;
            if handler != libc::SIG_DFL && handler != libc::SIG_IGN {
                if previous.sa_flags & libc::SA_SIGINFO != 0 {
                    // SAFETY: the previous action was installed with SA_SIGINFO, so its
                    // handler has this signature; the arguments are the kernel's.
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        unsafe { std::mem::transmute(handler) };
                    f(signal, info, context);
                } else {
                    // SAFETY: a handler installed without SA_SIGINFO takes the signal alone.
                    let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
                    f(signal);
                }
                return;
            }
        }
        // SAFETY: a zeroed sigaction with SIG_DFL (0) is the default action; raise sends
        // the signal, blocked until this handler returns, then fatal.
        unsafe {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &default, std::ptr::null_mut());
            libc::raise(signal);
        }
    }
}

#[cfg(not(unix))]
mod guard {
    /// Nothing to install: such systems do not cut a mapped file short.
    pub(super) fn install() -> std::io::Result<()> {
        Ok(())
    }
}

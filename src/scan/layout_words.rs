//! Host side of `cl/layout_words.cl`: a layout's words made on the device from the
//! subjects' residues as they are stored. A database's range goes to the device as it
//! lies in memory (the prepared file's mapping), which can happen while the host
//! arranges the layout from the lengths alone ([`super::layout::GroupLayout`]); the
//! device then interleaves the residues into words. Made on the host instead and
//! uploaded a piece at a time, each of four H200s' 5 G-residue shares of a 20 G-residue
//! database took 1.3 s after its arrangement (the fill and the driver's copies sharing
//! the host's memory). The host's twin of the kernel is [`GroupLayout::words`].

use super::layout::{GroupLayout, LaneSources};
use crate::device::{ClDevice, KernelArgs, KernelSource, cl, launch};
use crate::error::Result;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use rayon::prelude::*;

pub const SOURCE: KernelSource =
    KernelSource { name: "layout_words.cl", text: include_str!("../../cl/layout_words.cl") };

/// Work-items of a `layout_words` work-group (one group of the layout each).
const WORK_GROUP: usize = 64;

/// Subjects' residues on the host, back to back, on their way to a device.
pub struct StoredResidues<'a> {
    bytes: std::borrow::Cow<'a, [u8]>,
    /// Per subject, in the caller's order: its first residue in `bytes`.
    starts: Vec<u64>,
}

impl<'a> StoredResidues<'a> {
    /// Residues already back to back (a database's range): subject `k` from
    /// `starts[k]` of `bytes`.
    pub fn stored(bytes: &'a [u8], starts: Vec<u64>) -> StoredResidues<'a> {
        StoredResidues { bytes: bytes.into(), starts }
    }

    /// `subjects` as they lie in `bytes`, when each of them does (by address: a
    /// database's range and subjects taken from it); `None` when one does not.
    pub fn within(bytes: &'a [u8], subjects: &[&[u8]]) -> Option<StoredResidues<'a>> {
        let (base, end) = (bytes.as_ptr() as usize, bytes.as_ptr() as usize + bytes.len());
        let starts = subjects
            .iter()
            .map(|s| {
                let at = s.as_ptr() as usize;
                (at >= base && at + s.len() <= end).then_some((at - base) as u64)
            })
            .collect::<Option<Vec<u64>>>()?;
        Some(StoredResidues { bytes: bytes.into(), starts })
    }

    /// The stored residues, when they are borrowed rather than a copy.
    pub fn borrowed(&self) -> Option<&'a [u8]> {
        match &self.bytes {
            std::borrow::Cow::Borrowed(bytes) => Some(bytes),
            std::borrow::Cow::Owned(_) => None,
        }
    }

    /// `subjects`, wherever they are, copied back to back (on the caller's pool).
    pub fn of_subjects(subjects: &[&[u8]]) -> Result<StoredResidues<'static>> {
        let total: usize = subjects.iter().map(|s| s.len()).sum();
        let mut bytes = crate::memory::vec_filled("the subjects' residues", total, 0u8)?;
        let mut starts = Vec::with_capacity(subjects.len());
        let mut copies = Vec::with_capacity(subjects.len());
        let mut rest = &mut bytes[..];
        for s in subjects {
            starts.push((total - rest.len()) as u64);
            let (mine, tail) = rest.split_at_mut(s.len());
            copies.push((mine, *s));
            rest = tail;
        }
        copies.into_par_iter().with_min_len(256).for_each(|(to, from)| to.copy_from_slice(from));
        Ok(StoredResidues { bytes: bytes.into(), starts })
    }

    /// Written to `dev` as they are, from this thread and threads of its own (no thread
    /// pool: a caller may write on a thread of its own while the pools' workers wait
    /// for it).
    pub fn write(self, dev: &ClDevice) -> Result<DeviceResidues> {
        Ok(DeviceResidues { buffer: dev.buffer_from(&self.bytes)?, starts: self.starts, context: dev.context_id() })
    }
}

/// Subjects' residues on a device, as they were stored, and where each subject starts.
pub struct DeviceResidues {
    buffer: Buffer<u8>,
    starts: Vec<u64>,
    /// The context of the device written to ([`ClDevice::context_id`]).
    context: usize,
}

impl DeviceResidues {
    /// Whether these residues are on `dev` (the same opened device, not only the same
    /// hardware).
    pub fn is_on(&self, dev: &ClDevice) -> bool {
        self.context == dev.context_id()
    }

    /// How many subjects are here.
    pub fn subjects(&self) -> usize {
        self.starts.len()
    }

    /// Where subject `k` starts.
    pub fn start(&self, k: u32) -> u64 {
        self.starts[k as usize]
    }
}

/// `layout`'s words made on `dev` from `residues`, each lane read as `sources` says
/// (`group_word` and `lengths` are the layout's, on `dev`), waited for: on a queue of
/// their own, so that a scan on the device's queue does not hold them up.
pub fn make_words(
    dev: &ClDevice,
    layout: &GroupLayout,
    residues: &DeviceResidues,
    sources: &LaneSources,
    group_word: &Buffer<u32>,
    lengths: &Buffer<u32>,
) -> Result<Buffer<u32>> {
    let words = dev.buffer::<u32>(layout.word_count)?;
    if layout.groups() == 0 {
        return Ok(words);
    }
    let from = dev.buffer_from(&sources.from)?;
    let lead = dev.buffer_from(&sources.lead)?;
    let program = dev.program(&SOURCE, &[])?;
    let kernel = cl("clCreateKernel", Kernel::create(&program, "layout_words"))?;
    let too_many = |what: &str| crate::error::Error::InvalidArgument(format!("a layout of more than 4 G {what}"));
    KernelArgs::new(&kernel)
        .arg(&residues.buffer.get())?
        .arg(&from.get())?
        .arg(&lead.get())?
        .arg(&lengths.get())?
        .arg(&group_word.get())?
        .arg(&u32::try_from(layout.groups()).map_err(|_| too_many("groups"))?)?
        .arg(&u32::try_from(layout.word_count).map_err(|_| too_many("words"))?)?
        .arg(&(layout.group_size as u32))?
        .arg(&(layout.lanes as u32))?
        .arg(&(layout.pad_code as u32))?
        .arg(&words.get())?;
    let queue = dev.side_queue()?;
    let event = launch(&queue, &kernel, layout.groups() * WORK_GROUP, WORK_GROUP)?;
    cl("clWaitForEvents", event.wait())?;
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::StoredResidues;

    #[test]
    fn subjects_lie_within_their_stored_residues_by_address() {
        let bytes: Vec<u8> = (0..40).collect();
        let subjects = [&bytes[5..9], &bytes[9..9], &bytes[0..3], &bytes[39..40]];
        let within = StoredResidues::within(&bytes, &subjects).expect("all within");
        assert_eq!(within.starts, vec![5, 9, 0, 39]);
        assert_eq!(within.borrowed().map(<[u8]>::len), Some(40));
        // One held elsewhere: none.
        let apart = [1u8, 2];
        assert!(StoredResidues::within(&bytes, &[&bytes[1..4], &apart[..]]).is_none());
        assert!(StoredResidues::within(&bytes[..10], &[&bytes[8..12]]).is_none());
        let copied = StoredResidues::of_subjects(&subjects).unwrap();
        assert_eq!((&copied.starts[..], copied.borrowed()), (&[0, 4, 4, 7][..], None));
    }
}

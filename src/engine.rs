//! The engine: the devices chosen for a run, each checked by a known-answer self-test,
//! and the entry points that spread work over them.

use crate::device::{Backend, ClDevice, DeviceSpec};
use crate::error::{Error, Result};
use crate::reference;
use crate::scan::{self, PackedSubjects};
use crate::scoring::{Gaps, Matrix, Scoring};
use crate::seq::Alphabet;

/// Where one share of the work runs.
enum Worker {
    OpenCl(Box<ClDevice>),
    Native,
}

/// One of an engine's compute units, as entry points that spread work see it.
#[derive(Clone, Copy)]
pub enum WorkerRef<'a> {
    /// An OpenCL device that passed its self-test.
    OpenCl(&'a ClDevice),
    /// The native CPU path (SIMD, parallel over CPU threads).
    Native,
}

impl WorkerRef<'_> {
    /// The line [`Engine::describe`] prints for this worker.
    pub fn label(&self) -> String {
        match self {
            WorkerRef::OpenCl(d) => d.info.label(),
            WorkerRef::Native => Backend::Native.label(),
        }
    }
}

/// Cuts items (given by their sizes, e.g. subject lengths) into `parts` contiguous
/// shares of about equal total size. Returns `parts + 1` boundaries: share `p` is
/// `bounds[p]..bounds[p + 1]`; trailing shares may be empty.
pub fn split_by_size(sizes: impl IntoIterator<Item = usize>, parts: usize) -> Vec<usize> {
    let sizes: Vec<usize> = sizes.into_iter().collect();
    let parts = parts.max(1);
    let total: usize = sizes.iter().sum();
    let per = total.div_ceil(parts).max(1);
    let mut bounds = vec![0];
    let mut acc = 0;
    for (k, s) in sizes.iter().enumerate() {
        acc += s;
        if acc >= per * bounds.len() && bounds.len() < parts {
            bounds.push(k + 1);
        }
    }
    while bounds.len() <= parts {
        bounds.push(sizes.len());
    }
    bounds
}

/// A set of compute devices ready for work. Shareable between threads.
pub struct Engine {
    workers: Vec<Worker>,
}

/// The outcome of a device's self-test.
#[derive(Debug, Clone)]
pub struct SelfTest {
    pub pairs: usize,
    /// `None` when every pair matched the reference; else the first difference.
    pub failure: Option<String>,
}

impl SelfTest {
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// A small deterministic generator for self-test sequences (xorshift64*).
fn pseudo_random_codes(seed: u64, len: usize, alpha: u8) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as u8 % alpha
        })
        .collect()
}

/// Runs the known-answer test on a device: a protein query (affine gaps) and a DNA
/// query (linear gaps) against subjects of lengths 1 to 200, some sharing a region
/// with the query; every score and end must equal the reference's.
pub fn self_test(dev: &ClDevice) -> Result<SelfTest> {
    let cases = [
        (Scoring::new(Matrix::builtin("BLOSUM62")?, Gaps::affine(11, 1)?), Alphabet::Protein, 20u8),
        (Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 2, -3)?, Gaps::linear(2)?), Alphabet::Dna, 4u8),
    ];
    let mut pairs = 0;
    for (case, (scoring, alphabet, letters)) in cases.iter().enumerate() {
        let query = pseudo_random_codes(7 + case as u64, 60, *letters);
        let subjects: Vec<Vec<u8>> = (0..48u64)
            .map(|k| {
                let mut s = pseudo_random_codes(100 + k, 1 + (k as usize * 37) % 200, *letters);
                if k % 3 == 0 && s.len() > 30 {
                    s[5..25].copy_from_slice(&query[20..40]); // a shared region
                }
                s
            })
            .collect();
        let (got, _) = scan::plain::scores(dev, &query, &PackedSubjects::new(&subjects)?, scoring)?;
        for (k, s) in subjects.iter().enumerate() {
            let want = reference::sw_score(&query, s, scoring);
            pairs += 1;
            if got[k] != want {
                return Ok(SelfTest {
                    pairs,
                    failure: Some(format!(
                        "{} subject {k} (length {}): device gave {:?}, reference {:?}",
                        alphabet.name(),
                        s.len(),
                        got[k],
                        want
                    )),
                });
            }
        }
    }
    Ok(SelfTest { pairs, failure: None })
}

impl Engine {
    /// The engine for a user's device text (`--device`, the C API's choice): `explicit`
    /// when given, else `CLSW_DEVICE`, else `auto` (see [`DeviceSpec::resolve`]).
    pub fn open(explicit: Option<&str>) -> Result<Engine> {
        Engine::new(DeviceSpec::resolve(explicit)?)
    }

    /// Opens the devices of a specification, in order, each one a worker of its own (a
    /// device named twice is opened twice, with a context of its own), so work is split
    /// over all of them: `DeviceChoice::Native`, `"0,2".parse::<DeviceSpec>()?`, or an
    /// OpenCL device beside the native path. Every OpenCL device must pass its self-test.
    pub fn new(spec: impl Into<DeviceSpec>) -> Result<Engine> {
        let mut workers = Vec::new();
        for backend in spec.into().select()? {
            workers.push(match backend {
                Backend::Native => Worker::Native,
                Backend::OpenCl(info) => {
                    let label = info.label();
                    let dev = ClDevice::new(info)?;
                    let test = self_test(&dev)?;
                    if let Some(f) = test.failure {
                        return Err(Error::Device(format!("{label} failed its self-test and was refused: {f}")));
                    }
                    Worker::OpenCl(Box::new(dev))
                }
            });
        }
        Ok(Engine { workers })
    }

    /// One line per device in use.
    pub fn describe(&self) -> Vec<String> {
        self.workers
            .iter()
            .map(|w| match w {
                Worker::OpenCl(d) => d.info.label(),
                Worker::Native => Backend::Native.label(),
            })
            .collect()
    }

    /// The workers in use, in the order [`describe`](Engine::describe) lists them.
    pub fn workers(&self) -> Vec<WorkerRef<'_>> {
        self.workers
            .iter()
            .map(|w| match w {
                Worker::OpenCl(d) => WorkerRef::OpenCl(d.as_ref()),
                Worker::Native => WorkerRef::Native,
            })
            .collect()
    }

    /// The OpenCL devices in use (none for the native CPU path).
    pub fn opencl_devices(&self) -> Vec<&ClDevice> {
        self.workers
            .iter()
            .filter_map(|w| match w {
                Worker::OpenCl(d) => Some(d.as_ref()),
                Worker::Native => None,
            })
            .collect()
    }

    /// True when every device is an OpenCL device.
    pub fn uses_opencl(&self) -> bool {
        self.workers.iter().all(|w| matches!(w, Worker::OpenCl(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::split_by_size;

    #[test]
    fn shares_are_contiguous_and_balanced() {
        assert_eq!(split_by_size([10, 10, 10, 10], 2), vec![0, 2, 4]);
        assert_eq!(split_by_size([10, 10, 10, 10], 1), vec![0, 4]);
        // One huge item: the other share is empty, never out of range.
        assert_eq!(split_by_size([100, 1], 3), vec![0, 1, 2, 2]);
        assert_eq!(split_by_size(Vec::<usize>::new(), 2), vec![0, 0, 0]);
        let b = split_by_size((1..=100).collect::<Vec<_>>(), 4);
        assert_eq!((b[0], b[4], b.len()), (0, 100, 5));
        assert!(b.windows(2).all(|w| w[0] <= w[1]));
    }
}

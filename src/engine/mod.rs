//! The engine: the devices chosen for a run, each checked by a known-answer self-test,
//! and the entry points that spread work over them.

mod selftest;

pub use selftest::{SelfTest, self_test};

use crate::device::{Backend, ClDevice, DeviceSpec};
use crate::error::{Error, Result};
use crate::scan::Variant;

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
            WorkerRef::OpenCl(d) => d.label(),
            WorkerRef::Native => Backend::Native.label(),
        }
    }
}

/// Cuts items (given by their sizes, e.g. subject lengths) into `parts` contiguous
/// shares of about equal total size. Returns `parts + 1` boundaries: share `p` is
/// `bounds[p]..bounds[p + 1]`; trailing shares may be empty.
pub fn split_by_size<I>(sizes: I, parts: usize) -> Vec<usize>
where
    I: IntoIterator<Item = usize>,
    I::IntoIter: Clone,
{
    split_by_weights(sizes, &vec![1.0; parts.max(1)])
}

/// Cuts items (given by their sizes) into one contiguous share per weight, each share's
/// total size about in proportion to its weight (a worker's speed: the shares then take
/// about equal time). Returns `weights.len() + 1` boundaries, as [`split_by_size`]: a
/// share ends after the first item that reaches its part of the whole.
/// The sizes are walked twice rather than collected (44 M subjects of a 20 G-residue
/// database: 0.15 s for the copy alone).
pub fn split_by_weights<I>(sizes: I, weights: &[f64]) -> Vec<usize>
where
    I: IntoIterator<Item = usize>,
    I::IntoIter: Clone,
{
    let sizes = sizes.into_iter();
    let parts = weights.len().max(1);
    let whole: f64 = weights.iter().sum();
    let total = sizes.clone().sum::<usize>() as f64;
    // Where share p ends: the sizes up to it reach this.
    let mut ends = Vec::with_capacity(parts);
    let mut cumulative = 0.0;
    for w in weights {
        cumulative += w;
        ends.push(if whole > 0.0 { total * cumulative / whole } else { total });
    }
    // A share of weight 0 takes nothing: it ends where it starts.
    let idle_shares_end = |bounds: &mut Vec<usize>, at: usize| {
        while bounds.len() < parts && weights[bounds.len() - 1] <= 0.0 {
            bounds.push(at);
        }
    };
    let mut bounds = vec![0];
    idle_shares_end(&mut bounds, 0);
    let (mut acc, mut count) = (0usize, 0usize);
    for (k, s) in sizes.enumerate() {
        acc += s;
        count = k + 1;
        if bounds.len() < parts && acc as f64 >= ends[bounds.len() - 1] {
            bounds.push(k + 1);
            idle_shares_end(&mut bounds, k + 1);
        }
    }
    while bounds.len() <= parts {
        bounds.push(count);
    }
    bounds
}

/// One device of a specification, opened (an OpenCL device building the portable
/// kernels when `portable`) and self-tested.
fn open_worker(backend: Backend, portable: bool) -> Result<Worker> {
    match backend {
        Backend::Native => Ok(Worker::Native),
        Backend::OpenCl(info) => {
            let dev = ClDevice::new(info)?.with_portable(portable);
            // On the device side's pool: each device opens on a thread of its own, which
            // the caller, perhaps a worker of the global pool, waits for.
            crate::scan::on_device_side_pool(|| check(&dev, Variant::for_device(&dev.info)))?;
            Ok(Worker::OpenCl(Box::new(dev)))
        }
    }
}

/// Refuses `dev` unless it passes `variant`'s self-test (or a pass is recalled).
fn check(dev: &ClDevice, variant: Variant) -> Result<()> {
    match selftest::verdict(dev, variant)? {
        Some(f) => Err(Error::Device(format!("{} failed its self-test and was refused: {f}", dev.label()))),
        None => Ok(()),
    }
}

/// An engine opening on a thread of its own ([`Engine::open_in_background`]).
pub struct Opening {
    selected: std::sync::mpsc::Receiver<Vec<Backend>>,
    /// `None` once joined.
    thread: Option<std::thread::JoinHandle<Result<(Engine, f64)>>>,
}

/// An opening dropped unjoined (the caller met an error first) is waited for: a
/// process that ends while a driver builds programs on another thread runs the
/// driver's exit handlers under that thread (PoCL aborts with a double free).
impl Drop for Opening {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Opening {
    /// Waits for the devices to be selected, not opened: `None` when the selection
    /// failed ([`join`](Self::join) says why). The selection is given once: a second
    /// call waits for the engine and gives `None`.
    pub fn selected(&self) -> Option<Vec<Backend>> {
        self.selected.recv().ok()
    }

    /// Waits for the engine, and gives the seconds it took to open.
    pub fn join(mut self) -> Result<(Engine, f64)> {
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(opened)) => opened,
            _ => Err(Error::Internal("opening the devices panicked".into())),
        }
    }
}

/// A set of compute devices ready for work. Shareable between threads.
pub struct Engine {
    workers: Vec<Worker>,
}

impl Engine {
    /// The engine for a user's device text (`--device`, the C API's choice): `explicit`
    /// when given, else `CLSW_DEVICE`, else `auto`, portable as `CLSW_PORTABLE` says (see
    /// [`DeviceSpec::resolve`]).
    pub fn open(explicit: Option<&str>) -> Result<Engine> {
        Engine::new(DeviceSpec::resolve(explicit)?)
    }

    /// Opens the devices of a specification, each one a worker of its own in the
    /// specification's order (a device named twice is opened twice, with a context of
    /// its own), so work is split over all of them: `DeviceChoice::Native`,
    /// `"0,2".parse::<DeviceSpec>()?`, or an OpenCL device beside the native path. Every
    /// OpenCL device must pass the self-test of its own variant. The devices open at the
    /// same time, each on a thread of its own; the first failure in the specification's
    /// order is the one returned. Every OpenCL device builds the portable kernels when
    /// the specification says so ([`DeviceSpec::with_portable`]).
    pub fn new(spec: impl Into<DeviceSpec>) -> Result<Engine> {
        let spec = spec.into();
        Engine::from_backends(spec.select()?, spec.portable())
    }

    /// [`new`](Self::new) of devices already selected, building the portable kernels
    /// when `portable`.
    pub fn from_backends(backends: Vec<Backend>, portable: bool) -> Result<Engine> {
        let opened: Vec<Result<Worker>> = std::thread::scope(|scope| {
            let opening: Vec<_> =
                backends.into_iter().map(|backend| scope.spawn(move || open_worker(backend, portable))).collect();
            opening
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::Internal("opening a device panicked".into()))))
                .collect()
        });
        Ok(Engine { workers: opened.into_iter().collect::<Result<Vec<_>>>()? })
    }

    /// [`new`](Self::new) on a thread of its own: the caller goes on (reads its
    /// inputs, lays out a search for the selected devices: [`Opening::selected`]) while
    /// the devices are selected and start.
    pub fn open_in_background(spec: impl Into<DeviceSpec>) -> Opening {
        let spec = spec.into();
        let (tx, selected) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let start = std::time::Instant::now();
            let backends = spec.select()?;
            // The caller may have stopped waiting: the engine opens all the same.
            let _ = tx.send(backends.clone());
            Engine::from_backends(backends, spec.portable()).map(|engine| (engine, start.elapsed().as_secs_f64()))
        });
        Opening { selected, thread: Some(thread) }
    }

    /// Self-tests `variant` on every OpenCL device that does not run it by default (an
    /// engine opens with each device's own variant tested): a run that names a variant
    /// calls this before using it. A pass is recalled after the first.
    pub fn check_variant(&self, variant: Variant) -> Result<()> {
        for dev in self.opencl_devices() {
            if Variant::for_device(&dev.info) != variant {
                check(dev, variant)?;
            }
        }
        Ok(())
    }

    /// The devices in use, as [`DeviceSpec::select`] gave them.
    pub fn backends(&self) -> Vec<Backend> {
        self.workers
            .iter()
            .map(|w| match w {
                Worker::OpenCl(d) => Backend::OpenCl(d.info.clone()),
                Worker::Native => Backend::Native,
            })
            .collect()
    }

    /// One line per device in use.
    pub fn describe(&self) -> Vec<String> {
        self.workers().iter().map(WorkerRef::label).collect()
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
    use super::{split_by_size, split_by_weights};

    #[test]
    fn shares_are_contiguous_and_balanced() {
        assert_eq!(split_by_size([10, 10, 10, 10], 2), vec![0, 2, 4]);
        assert_eq!(split_by_size([10, 10, 10, 10], 1), vec![0, 4]);
        // One huge item: the other share is empty, never out of range.
        assert_eq!(split_by_size([100, 1], 3), vec![0, 1, 2, 2]);
        assert_eq!(split_by_size(Vec::<usize>::new(), 2), vec![0, 0, 0]);
        assert_eq!(split_by_weights([10, 10, 10, 10], &[3.0, 1.0]), vec![0, 3, 4]);
        assert_eq!(split_by_weights([10; 10], &[1.0, 0.0, 1.0]), vec![0, 5, 5, 10]);
        assert_eq!(split_by_weights([10; 4], &[0.0, 1.0]), vec![0, 0, 4]);
        let b = split_by_size((1..=100).collect::<Vec<_>>(), 4);
        assert_eq!((b[0], b[4], b.len()), (0, 100, 5));
        assert!(b.windows(2).all(|w| w[0] <= w[1]));
    }
}

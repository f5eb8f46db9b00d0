//! MPI's communicators as a [`Comm`] (rsmpi, the `mpi` crate, over the system's MPI).

use super::{Comm, Counter};
use crate::error::{Error, Result};
use rsmpi::collective::CommunicatorCollectives;
use rsmpi::datatype::PartitionMut;
use rsmpi::environment::Universe;
use rsmpi::ffi;
use rsmpi::raw::AsRaw;
use rsmpi::topology::{Communicator as _, SimpleCommunicator};
use rsmpi::traits::{FromRaw, Root};

/// An MPI communicator: the job's own (the `clsw` command under `mpirun`), or a
/// duplicate of a host program's (the C ABI), so that clsw's messages never mix with
/// the host's.
pub struct World {
    comm: SimpleCommunicator,
    /// This process's rank and the ranks, asked once (MPI is then called only where
    /// `serial` is held).
    rank: usize,
    size: usize,
    /// One collective at a time, from its barrier to its end, whichever thread calls it.
    exchange: std::sync::Mutex<()>,
    /// One MPI call at a time, whichever thread makes it (MPI_THREAD_SERIALIZED): the
    /// exchanges' and the counters' draws. Taken after `exchange`.
    serial: std::sync::Mutex<()>,
    /// Held by the process that started MPI: finalizes it when dropped.
    _universe: Option<Universe>,
}

impl World {
    /// Whether an MPI launcher started this process (`mpirun`, `mpiexec`, `srun`):
    /// the `clsw` command then runs as one rank of the job.
    pub fn launched() -> bool {
        ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"]
            .iter()
            .any(|v| std::env::var_os(v).is_some())
    }

    /// Starts MPI in this process, asking for `MPI_THREAD_SERIALIZED` (the collectives
    /// are called one at a time, from any thread), and returns its world.
    pub fn init() -> Result<World> {
        let (universe, level) = rsmpi::initialize_with_threading(rsmpi::Threading::Serialized)
            .ok_or_else(|| Error::InvalidArgument("MPI was started already in this process".into()))?;
        if level < rsmpi::Threading::Serialized {
            return Err(Error::InvalidArgument(format!(
                "this MPI library gives threads {level:?}; clsw needs MPI_THREAD_SERIALIZED"
            )));
        }
        Ok(World::of(universe.world(), Some(universe)))
    }

    /// A duplicate of a host program's communicator, given as its Fortran handle
    /// (`MPI_Comm_c2f`). MPI must be initialized, and stays the host's to finalize
    /// (after the duplicate is freed). clsw calls MPI from the threads that call its
    /// collective functions, one at a time: the host's thread level must allow that;
    /// with `MPI_THREAD_SERIALIZED` or more, also from its own threads during a search
    /// ([`Comm::threads_may_draw`]).
    pub fn from_fortran(handle: i32) -> Result<World> {
        if !rsmpi::environment::is_initialized() {
            return Err(Error::InvalidArgument("MPI is not initialized (call MPI_Init first)".into()));
        }
        // SAFETY: MPI is initialized (checked above); the handle is the caller's
        // MPI_Comm_c2f of a communicator (the C ABI's contract), which MPI_Comm_f2c turns
        // back.
        let given = unsafe { rsmpi::ffi::RSMPI_Comm_f2c(handle as rsmpi::ffi::RSMPI_Fint) };
        // SAFETY: MPI_COMM_NULL is a constant the MPI bindings define and nothing writes.
        let comm_null = unsafe { rsmpi::ffi::RSMPI_COMM_NULL };
        if given == comm_null {
            return Err(Error::InvalidArgument("the communicator is MPI_COMM_NULL".into()));
        }
        let mut dup = comm_null;
        // SAFETY: `given` is a communicator (not MPI_COMM_NULL, checked above); `dup` is a
        // local that MPI_Comm_dup writes.
        if unsafe { rsmpi::ffi::MPI_Comm_dup(given, &mut dup) } != 0 {
            return Err(Error::InvalidArgument("MPI_Comm_dup of the communicator failed".into()));
        }
        // SAFETY: `dup` is a new communicator that nothing else owns: the
        // SimpleCommunicator takes it (and frees it on drop).
        Ok(World::of(unsafe { SimpleCommunicator::from_raw(dup) }, None))
    }

    fn of(comm: SimpleCommunicator, universe: Option<Universe>) -> World {
        let (rank, size) = (comm.rank() as usize, comm.size() as usize);
        World {
            comm,
            rank,
            size,
            exchange: std::sync::Mutex::new(()),
            serial: std::sync::Mutex::new(()),
            _universe: universe,
        }
    }
}

// SAFETY: a communicator is a handle MPI lets any thread use; every MPI call on it
// holds `serial`, so MPI is entered by one thread at a time, which MPI_THREAD_SERIALIZED
// (asked for and checked by `init`; for the C ABI, the host's level, as its
// documentation says) allows; and `exchange` keeps one collective at a time in order.
unsafe impl Send for World {}
// SAFETY: as for Send: shared use goes through the same `serial` lock.
unsafe impl Sync for World {}

impl World {
    /// Returns once every rank has reached this point, sleeping meanwhile. MPI's
    /// blocking collectives spin while they wait: a rank whose share is done would
    /// take a core from the scans of its neighbours on the same host (four ranks of
    /// four threads on 16 cores ran 13% slower than two of eight). A non-blocking
    /// barrier, tested every millisecond, waits without a core (and without waking
    /// thousands of times a second among the scans); the collective that follows
    /// finds every rank there.
    /// MPI is entered only while testing, so that a counter's draws from another
    /// thread ([`WindowCounter`]) go on meanwhile.
    fn wait_for_all(&self) {
        let mut barrier = {
            let _one = self.serial();
            self.comm.immediate_barrier()
        };
        loop {
            let tested = {
                let _one = self.serial();
                barrier.test()
            };
            match tested {
                Ok(_) => return,
                Err(pending) => barrier = pending,
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    fn serial(&self) -> std::sync::MutexGuard<'_, ()> {
        self.serial.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn exchange(&self) -> std::sync::MutexGuard<'_, ()> {
        self.exchange.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The byte counts of every rank, and their offsets in one buffer.
    fn layout(&self, len: usize) -> (Vec<i32>, Vec<i32>) {
        let mut counts = vec![0i32; self.size];
        self.comm.all_gather_into(&(len as i32), &mut counts[..]);
        let displs = counts.iter().scan(0i32, |at, &c| Some(std::mem::replace(at, *at + c))).collect();
        (counts, displs)
    }
}

/// Splits one buffer into every rank's part.
fn parts(buf: &[u8], counts: &[i32], displs: &[i32]) -> Vec<Vec<u8>> {
    counts.iter().zip(displs).map(|(&c, &d)| buf[d as usize..(d + c) as usize].to_vec()).collect()
}

impl Comm for World {
    fn threads_may_draw(&self) -> bool {
        rsmpi::environment::threading_support() >= rsmpi::Threading::Serialized
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let _turn = self.exchange();
        self.wait_for_all();
        let _one = self.serial();
        let (counts, displs) = self.layout(bytes.len());
        let mut buf = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
        {
            let mut partition = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            self.comm.all_gather_varcount_into(bytes, &mut partition);
        }
        parts(&buf, &counts, &displs)
    }

    fn gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let _turn = self.exchange();
        self.wait_for_all();
        let _one = self.serial();
        let root = self.comm.process_at_rank(0);
        let mut counts = vec![0i32; self.size];
        if self.rank == 0 {
            root.gather_into_root(&(bytes.len() as i32), &mut counts[..]);
            let displs: Vec<i32> = counts.iter().scan(0i32, |at, &c| Some(std::mem::replace(at, *at + c))).collect();
            let mut buf = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
            {
                let mut partition = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
                root.gather_varcount_into_root(bytes, &mut partition);
            }
            parts(&buf, &counts, &displs)
        } else {
            root.gather_into(&(bytes.len() as i32));
            root.gather_varcount_into(bytes);
            Vec::new()
        }
    }

    fn counter(&self) -> Box<dyn Counter + '_> {
        Box::new(WindowCounter::new(self))
    }
}

/// A [`Counter`] in an MPI window of one 64-bit integer on rank 0, drawn with
/// `MPI_Fetch_and_op` in a passive-target epoch that lasts as long as the counter. On
/// one host (shared memory) and networks with atomics a draw needs nothing from rank
/// 0's threads; elsewhere (TCP between hosts) it completes when rank 0 next enters MPI,
/// which its exchanges' waits do every millisecond. rsmpi has no one-sided calls;
/// these are its raw bindings.
struct WindowCounter<'w> {
    world: &'w World,
    window: ffi::MPI_Win,
}

impl<'w> WindowCounter<'w> {
    /// Collective: every rank makes its part of the window.
    fn new(world: &'w World) -> WindowCounter<'w> {
        let _turn = world.exchange();
        world.wait_for_all();
        let _one = world.serial();
        let root = world.rank == 0;
        let bytes = if root { std::mem::size_of::<u64>() } else { 0 };
        // Every call here is collective or local, made on every rank in this order.
        let mut base: *mut u64 = std::ptr::null_mut();
        // SAFETY: MPI_WIN_NULL is a constant the MPI bindings define and nothing writes.
        let mut window = unsafe { ffi::RSMPI_WIN_NULL };
        // SAFETY: the world's communicator is live; `base` and `window` are locals that
        // MPI_Win_allocate writes: rank 0 gets eight bytes it owns until MPI_Win_free
        // (in drop), the others none.
        unsafe {
            ffi::MPI_Win_allocate(
                bytes as ffi::MPI_Aint,
                std::mem::size_of::<u64>() as i32,
                ffi::RSMPI_INFO_NULL,
                world.comm.as_raw(),
                (&mut base as *mut *mut u64).cast(),
                &mut window,
            )
        };
        if root {
            // SAFETY: `window` was just allocated; rank 0 locks its own part.
            unsafe { ffi::MPI_Win_lock(ffi::MPI_LOCK_EXCLUSIVE as i32, 0, 0, window) };
            // SAFETY: on rank 0 `base` points to the window's eight bytes, aligned for a
            // u64, written in this exclusive epoch before any rank may draw.
            unsafe { base.write(0) };
            // SAFETY: ends the epoch opened above.
            unsafe { ffi::MPI_Win_unlock(0, window) };
        }
        // SAFETY: a collective on the world's live communicator: no rank draws before
        // rank 0 has set the counter.
        unsafe { ffi::MPI_Barrier(world.comm.as_raw()) };
        // SAFETY: opens every rank's passive-target epoch on the live window, ended in
        // drop.
        unsafe { ffi::MPI_Win_lock_all(ffi::MPI_MODE_NOCHECK as i32, window) };
        WindowCounter { world, window }
    }
}

// SAFETY: the window is a handle MPI lets any thread use; every call on it holds the
// world's `serial` lock.
unsafe impl Send for WindowCounter<'_> {}
// SAFETY: as for Send: shared use goes through the same `serial` lock.
unsafe impl Sync for WindowCounter<'_> {}

impl WindowCounter<'_> {
    /// The counter's value before adding `add` to it.
    fn fetch_add(&self, add: u64) -> u64 {
        let _one = self.world.serial();
        let mut drawn = 0u64;
        // SAFETY: the window holds one u64 on rank 0 and every rank is in its
        // passive-target epoch (MPI_Win_lock_all in `new`); `add` and `drawn` are locals
        // that outlive the flush below, which completes the operation.
        unsafe {
            ffi::MPI_Fetch_and_op(
                (&add as *const u64).cast(),
                (&mut drawn as *mut u64).cast(),
                ffi::RSMPI_UINT64_T,
                0,
                0,
                ffi::RSMPI_SUM,
                self.window,
            )
        };
        // SAFETY: the window is live; the flush completes the operation above before
        // `drawn` is read.
        unsafe { ffi::MPI_Win_flush(0, self.window) };
        drawn
    }
}

impl Counter for WindowCounter<'_> {
    fn next(&self) -> u64 {
        self.fetch_add(1)
    }

    fn peek(&self) -> u64 {
        self.fetch_add(0)
    }
}

impl Drop for WindowCounter<'_> {
    /// Collective, as the counter's making: every rank drops its counter at the same
    /// point of the protocol (an error ends every rank at the same exchange). A rank
    /// that panics leaves the window to MPI's end: the others are not at this point.
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let _turn = self.world.exchange();
        self.world.wait_for_all();
        let _one = self.world.serial();
        // SAFETY: ends the epoch that `new` opened on the live window, once (in drop).
        unsafe { ffi::MPI_Win_unlock_all(self.window) };
        // SAFETY: the window is live and no longer used (its epoch ended above); it is
        // freed once, in drop.
        unsafe { ffi::MPI_Win_free(&mut self.window) };
    }
}

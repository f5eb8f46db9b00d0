//! One OpenCL device in use: its context, command queue and built programs.

use super::program_cache::{ProgramCache, program_key};
use super::{DeviceInfo, cl};
use crate::error::{Error, Result};
use opencl3::command_queue::{CL_QUEUE_PROFILING_ENABLE, CommandQueue};
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::error_codes::ClError;
use opencl3::event::Event;
use opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE, ClMem};
use opencl3::program::Program;
use opencl3::types::CL_BLOCKING;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Definitions shared by every kernel family; prepended to each `.cl` source.
const COMMON_HEADER: &str = include_str!("../../cl/clsw_common.h");

/// Bytes from which [`ClDevice::buffer_from`] writes a buffer rather than creating it
/// with a copy.
pub const WRITTEN_FROM: usize = 1 << 20;

/// The most threads that write one buffer ([`ClDevice::buffer_from`]), each at least
/// [`WRITER_PART`] bytes.
const WRITERS: usize = 4;
const WRITER_PART: usize = 64 << 20;

/// A kernel family's source, embedded from `cl/`.
#[derive(Debug, Clone, Copy)]
pub struct KernelSource {
    /// File name under `cl/`, used in build logs and as the cache key.
    pub name: &'static str,
    pub text: &'static str,
}

/// How a device's programs were obtained, counted since the device was opened:
/// requests answered from memory are not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProgramStats {
    /// Programs compiled from their OpenCL C source.
    pub built_from_source: usize,
    /// Programs loaded from a binary in the disk cache ([`ProgramCache`]).
    pub loaded_from_disk: usize,
}

/// A device with a context, a profiling-enabled queue and a cache of built programs
/// (in memory, and on disk through a [`ProgramCache`]).
/// Shareable between threads: queue use is serialised by a lock.
pub struct ClDevice {
    pub info: DeviceInfo,
    context: Context,
    queue: Mutex<CommandQueue>,
    programs: Mutex<HashMap<(&'static str, String), Arc<Program>>>,
    disk: ProgramCache,
    /// Build options added to every program of this device ([`ClDevice::with_build_options`]).
    build_options: String,
    /// No vendor code in this device's programs ([`ClDevice::with_portable`]).
    portable: bool,
    built_from_source: AtomicUsize,
    loaded_from_disk: AtomicUsize,
}

impl ClDevice {
    /// Opens `info` with the disk cache the environment asks for
    /// ([`ProgramCache::from_env`]: `CLSW_CACHE_DIR`, `off`, or the user cache folder).
    pub fn new(info: DeviceInfo) -> Result<ClDevice> {
        ClDevice::with_cache(info, ProgramCache::from_env())
    }

    /// Opens `info` with the given disk cache of program binaries.
    pub fn with_cache(info: DeviceInfo, disk: ProgramCache) -> Result<ClDevice> {
        let device = Device::new(info.id);
        let context = cl("clCreateContext", Context::from_device(&device))?;
        #[allow(deprecated)] // clCreateCommandQueue: present on OpenCL 1.2 and later alike
        let queue = cl("clCreateCommandQueue", CommandQueue::create_default(&context, CL_QUEUE_PROFILING_ENABLE))?;
        Ok(ClDevice {
            info,
            context,
            queue: Mutex::new(queue),
            programs: Mutex::new(HashMap::new()),
            disk,
            build_options: String::new(),
            portable: false,
            built_from_source: AtomicUsize::new(0),
            loaded_from_disk: AtomicUsize::new(0),
        })
    }

    /// This device with `options` added to every program's build options (after the
    /// kernel's defines, before `CLSW_CL_OPTIONS`); they are part of the cache keys.
    /// The kernel tests' shape sweeps build with `-cl-opt-disable`: PoCL builds each
    /// of their dozens of programs about 2.8 times faster.
    pub fn with_build_options(mut self, options: &str) -> ClDevice {
        self.build_options.push(' ');
        self.build_options.push_str(options);
        self
    }

    /// This device building the portable kernels (`on`): `CLSW_NV` stays 0 even on
    /// NVIDIA, so a GPU runs the code every other device runs, to check and time it
    /// beside the vendor's (with NVIDIA's one tuning of it, `CLSW_MUL_SHIFTS`). Its
    /// programs and self-test verdicts are cached apart, since their build options
    /// differ.
    pub fn with_portable(mut self, on: bool) -> ClDevice {
        self.portable = on;
        self
    }

    /// True when this device builds the portable kernels ([`with_portable`](Self::with_portable)).
    pub fn portable(&self) -> bool {
        self.portable
    }

    /// True when this device's programs build the vendor's code (`CLSW_NV=1`).
    pub fn vendor_code(&self) -> bool {
        vendor_code(&self.info, self.portable)
    }

    /// Whether this device's team kernels hand values between work-items by sub-group
    /// shuffles (cl/clsw_common.h: CLSW_SUBGROUPS): the device has them, the vendor
    /// code is off and the environment's `CLSW_SUBGROUPS` is not 0.
    pub fn subgroup_shuffles(&self) -> bool {
        subgroups(&self.info, self.portable).is_some()
    }

    /// The device's line in listings: its [`DeviceInfo::label`], and `portable kernels`
    /// when it builds them by request.
    pub fn label(&self) -> String {
        let label = self.info.label();
        if self.portable { format!("{label}, portable kernels") } else { label }
    }

    /// The disk cache this device's programs are kept in.
    pub fn program_cache(&self) -> &ProgramCache {
        &self.disk
    }

    /// How many programs this device built from source and loaded from the disk cache.
    pub fn program_stats(&self) -> ProgramStats {
        ProgramStats {
            built_from_source: self.built_from_source.load(Ordering::Relaxed),
            loaded_from_disk: self.loaded_from_disk.load(Ordering::Relaxed),
        }
    }

    /// Builds (or returns the cached) program for `source` with `-D name=value`
    /// options. On NVIDIA platforms `CLSW_NV=1` is defined, so kernels can guard
    /// inline PTX with `#if CLSW_NV` (not on a [portable](Self::with_portable) device),
    /// and `CLSW_MUL_SHIFTS=1`, a tuning of the portable code (cl/clsw_common.h).
    ///
    /// Programs are cached in memory for the device's lifetime and on disk across
    /// processes ([`ProgramCache`]); a disk entry that fails to load for any reason is
    /// rebuilt from source and rewritten. With `CLSW_DUMP_DIR` set the program is
    /// always built from source, so the dumped build log is the compiler's.
    pub fn program(&self, source: &KernelSource, defines: &[(&str, String)]) -> Result<Arc<Program>> {
        let options = self.build_options_with(defines);
        let key = (source.name, options.clone());
        let mut cache = self.programs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let text = format!("{COMMON_HEADER}\n#line 1\n{}", source.text);
        let dump_dir = std::env::var_os("CLSW_DUMP_DIR");
        let disk_key = self.disk.enabled().then(|| program_key(&self.info, source.name, &text, &options));
        let loaded = match &disk_key {
            Some(k) if dump_dir.is_none() => self.load_binary(k, &options),
            _ => None,
        };
        let program = match loaded {
            Some(p) => {
                self.loaded_from_disk.fetch_add(1, Ordering::Relaxed);
                p
            }
            None => {
                let program = self.build_from_source(source.name, &text, &options)?;
                self.built_from_source.fetch_add(1, Ordering::Relaxed);
                if let Some(k) = &disk_key {
                    // One device, so one binary; a driver that gives none gets no entry.
                    let binary = program.get_binaries().ok().and_then(|b| b.into_iter().next());
                    if let Some(binary) = binary.filter(|b| !b.is_empty()) {
                        self.disk.store(k, &binary);
                    }
                }
                program
            }
        };
        if let Some(dir) = dump_dir {
            dump_program(&program, self.info.id, source.name, &options, std::path::Path::new(&dir));
        }
        let program = Arc::new(program);
        cache.insert(key, program.clone());
        Ok(program)
    }

    /// Compiles `text` for this device; a failed build's error carries the compiler's log.
    fn build_from_source(&self, name: &str, text: &str, options: &str) -> Result<Program> {
        let mut program = cl("clCreateProgramWithSource", Program::create_from_source(&self.context, text))?;
        if program.build(&[self.info.id], options).is_err() {
            let log = program.get_build_log(self.info.id).unwrap_or_else(|e| format!("(no build log: {e})"));
            return Err(Error::Build {
                device: self.info.label(),
                log: format!("{name} with options '{options}':\n{log}"),
            });
        }
        Ok(program)
    }

    /// The program stored on disk under `key`, built for this device, or `None` when
    /// there is no usable entry (missing, damaged, or refused by the driver).
    fn load_binary(&self, key: &str, options: &str) -> Option<Program> {
        let binary = self.disk.load(key)?;
        // SAFETY: the binary is one this device's driver produced for the same key
        // (device, driver, source, options), checked whole against its checksum, and
        // the driver validates it again in clCreateProgramWithBinary and clBuildProgram.
        let mut program = unsafe { Program::create_from_binary(&self.context, &[self.info.id], &[&binary]) }.ok()?;
        program.build(&[self.info.id], options).ok()?;
        Some(program)
    }

    /// The options a program of this device is built with ([`build_options`]).
    pub(crate) fn build_options_with(&self, defines: &[(&str, String)]) -> String {
        build_options(&self.info, self.portable, defines, &self.build_options)
    }

    /// The disk key of a verdict on this device's programs of `sources` (the
    /// self-test's): the device (its index too) and driver as a program's key names
    /// them, every source with the common header, `checks` (the text of the code that
    /// drives and judges them) and the [build signature](Self::build_signature). A verdict recalled by it was
    /// reached with the same programs.
    pub(crate) fn verdict_key(&self, sources: &[&KernelSource], checks: &str) -> String {
        let mut text = format!("{COMMON_HEADER}\n{checks}");
        for source in sources {
            text.push_str(&format!("\n{} {}\n{}", source.name, source.text.len(), source.text));
        }
        let what = format!("verdict of device {}", self.info.index);
        program_key(&self.info, &what, &text, &self.build_signature())
    }

    /// What, beside a program's own defines, sets how this device builds its programs:
    /// the build options, and whether the team kernels take sub-group shuffles (a
    /// define only their programs get). Results reached with the programs (the
    /// self-test's) are keyed by it.
    pub(crate) fn build_signature(&self) -> String {
        let options = self.build_options_with(&[]);
        if self.subgroup_shuffles() { format!("{options} (team: sub-group shuffles)") } else { options }
    }

    /// The device's context, by its handle's value: buffers of one context are not
    /// another's, even on the same device opened twice.
    pub(crate) fn context_id(&self) -> usize {
        self.context.get() as usize
    }

    /// The device's queue, locked for the caller's sequence of commands.
    pub fn queue(&self) -> MutexGuard<'_, CommandQueue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A second queue of this device, for commands that run beside the main queue's: the
    /// read of one launch's outputs while the next launch runs. Its commands wait for
    /// the main queue's through events.
    pub fn side_queue(&self) -> Result<CommandQueue> {
        #[allow(deprecated)] // clCreateCommandQueue: present on OpenCL 1.2 and later alike
        cl("clCreateCommandQueue", CommandQueue::create_default(&self.context, 0))
    }

    /// A read-only buffer holding a copy of `data` (at least one element is allocated,
    /// since OpenCL refuses empty buffers). One of [`WRITTEN_FROM`] bytes or more is
    /// created empty and written on queues of its own: on NVIDIA's OpenCL a
    /// database's 177 MB layout took 0.13-0.15 s as a `CL_MEM_COPY_HOST_PTR` buffer and
    /// 0.022-0.029 s created, then written (H100); the side queues hold no command of the
    /// main queue's (NVIDIA's driver still ran a write after the kernels already on the
    /// device, BENCHMARKS.md). A large one is written in [`WRITERS`] parts at once, each
    /// from a thread and queue of its own, and waited for: one write of a 5 G-residue
    /// share moved 4-5 GB/s (one H200; the driver copies pageable memory through its own
    /// staging), four at once 0-5% faster. The parts are disjoint regions of one buffer,
    /// which NVIDIA's OpenCL and PoCL write side by side.
    pub fn buffer_from<T: Copy + Default + Sync>(&self, data: &[T]) -> Result<Buffer<T>> {
        self.check_buffer::<T>(data.len())?;
        let bytes = std::mem::size_of_val(data);
        if bytes >= WRITTEN_FROM {
            // SAFETY: no host pointer is passed.
            let buffer = unsafe {
                cl("clCreateBuffer", Buffer::create(&self.context, CL_MEM_READ_ONLY, data.len(), std::ptr::null_mut()))?
            };
            let parts = bytes.div_ceil(WRITER_PART).clamp(1, WRITERS);
            let per = data.len().div_ceil(parts);
            // The handle crosses to the writers' threads as a number.
            let mem = buffer.get() as usize;
            std::thread::scope(|scope| {
                let writes: Vec<_> = data
                    .chunks(per)
                    .enumerate()
                    .map(|(i, part)| {
                        scope.spawn(move || -> Result<()> {
                            let queue = self.side_queue()?;
                            // SAFETY: a blocking write: `part` is read before the call
                            // returns, into the buffer's elements from `i * per` on, which
                            // it holds (the parts cover `data`, the buffer's length); the
                            // buffer outlives the call (it is returned after every write
                            // has been joined), and the parts do not overlap.
                            let event = unsafe {
                                opencl3::command_queue::enqueue_write_buffer(
                                    queue.get(),
                                    mem as opencl3::types::cl_mem,
                                    CL_BLOCKING,
                                    i * per * std::mem::size_of::<T>(),
                                    std::mem::size_of_val(part),
                                    part.as_ptr().cast(),
                                    0,
                                    std::ptr::null(),
                                )
                            };
                            // Waited for (a blocking write frees its host pointer; the
                            // event says the buffer holds the data, for other queues too),
                            // then released when dropped.
                            let event = cl("clEnqueueWriteBuffer", event.map(Event::new).map_err(ClError))?;
                            cl("clWaitForEvents", event.wait())
                        })
                    })
                    .collect();
                // Every writer joined; the first error is the one returned.
                let mut first = Ok(());
                for w in writes {
                    let done =
                        w.join().unwrap_or_else(|_| Err(Error::Internal("a thread writing a buffer panicked".into())));
                    if first.is_ok() {
                        first = done;
                    }
                }
                first
            })?;
            return Ok(buffer);
        }
        let one = [T::default()];
        let slice = if data.is_empty() { &one[..] } else { data };
        // SAFETY: the host pointer is valid for `slice.len()` elements, and with
        // CL_MEM_COPY_HOST_PTR the runtime only reads it, before the call returns (the
        // API takes a mutable pointer, but nothing is written through it).
        unsafe {
            cl(
                "clCreateBuffer",
                Buffer::create(
                    &self.context,
                    CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                    slice.len(),
                    slice.as_ptr() as *mut std::ffi::c_void,
                ),
            )
        }
    }

    /// A device buffer of `count` elements (at least one), contents undefined.
    pub fn buffer<T>(&self, count: usize) -> Result<Buffer<T>> {
        self.check_buffer::<T>(count)?;
        // SAFETY: no host pointer is passed.
        unsafe {
            cl("clCreateBuffer", Buffer::create(&self.context, CL_MEM_READ_WRITE, count.max(1), std::ptr::null_mut()))
        }
    }

    /// Refuses a buffer of `count` values of `T` larger than the device allows in one
    /// allocation (`CL_DEVICE_MAX_MEM_ALLOC_SIZE`), before OpenCL (whose bindings
    /// multiply the size unchecked) is asked.
    fn check_buffer<T>(&self, count: usize) -> Result<()> {
        let bytes = crate::memory::bytes_of::<T>(count);
        let limit = self.info.max_alloc_bytes as u128;
        if limit > 0 && bytes > limit {
            let what = format!("a buffer on {} (which allows {} bytes per buffer)", self.info.label(), limit);
            return Err(Error::OutOfMemory { what, bytes });
        }
        // A CPU device's buffers are this process's memory, and PoCL asserts (aborting
        // the process) where it cannot allocate one: the room is tried first.
        if self.info.kind == crate::device::DeviceKind::Cpu {
            crate::memory::ensure(format_args!("a buffer on {}", self.info.label()), bytes)?;
        }
        Ok(())
    }

    /// Copies a device buffer into `out`, waiting for completion.
    pub fn read<T>(&self, queue: &CommandQueue, buffer: &Buffer<T>, out: &mut [T]) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: `out` is a valid host slice and the read is blocking.
        unsafe { cl("clEnqueueReadBuffer", queue.enqueue_read_buffer(buffer, CL_BLOCKING, 0, out, &[]))? };
        Ok(())
    }
}

/// Whether programs of `info` build the vendor's code: inline PTX on NVIDIA, unless
/// `portable`.
fn vendor_code(info: &DeviceInfo, portable: bool) -> bool {
    info.is_nvidia() && !portable
}

/// The OpenCL C standard of a build with sub-group shuffles, when it has them: where the
/// device reports them ([`DeviceInfo::subgroup_std`]), the vendor code is off and the
/// environment's `CLSW_SUBGROUPS` is not 0.
fn subgroups(info: &DeviceInfo, portable: bool) -> Option<&'static str> {
    let off = vendor_code(info, portable) || std::env::var("CLSW_SUBGROUPS").as_deref() == Ok("0");
    info.subgroup_std().filter(|_| !off)
}

/// The options a program of `info` is built with: the OpenCL C version (1.2, or the one
/// sub-group shuffles need for a program that asks for them, `CLSW_SUBGROUPS=1` among
/// `defines`, where [`subgroups`] allows them), the vendor's define (none when
/// `portable`), on NVIDIA `CLSW_MUL_SHIFTS` (portable or not), `defines`,
/// `added` (a device's [`with_build_options`](ClDevice::with_build_options)) and
/// `CLSW_CL_OPTIONS`.
fn build_options(info: &DeviceInfo, portable: bool, defines: &[(&str, String)], added: &str) -> String {
    let asked = defines.iter().any(|(name, value)| *name == "CLSW_SUBGROUPS" && value == "1");
    let mut options = String::from(subgroups(info, portable).filter(|_| asked).unwrap_or("-cl-std=CL1.2"));
    if vendor_code(info, portable) {
        options.push_str(" -D CLSW_NV=1");
    }
    // A tuning of the portable code (cl/clsw_common.h says why), on NVIDIA whichever
    // kernels it builds.
    if info.is_nvidia() {
        options.push_str(" -D CLSW_MUL_SHIFTS=1");
    }
    for (name, value) in defines {
        options.push_str(&format!(" -D {name}={value}"));
    }
    options.push_str(added);
    if let Ok(extra) = std::env::var("CLSW_CL_OPTIONS") {
        options.push(' ');
        options.push_str(&extra);
    }
    options
}

/// Writes a built program's binary (PTX text on NVIDIA) and build log to `dir`, for
/// kernel work: `CLSW_DUMP_DIR=dir` turns it on, `CLSW_CL_OPTIONS=-cl-nv-verbose` makes
/// NVIDIA's log report registers and spills. Failures to write are reported, not fatal.
fn dump_program(
    program: &Program,
    device: opencl3::types::cl_device_id,
    name: &str,
    options: &str,
    dir: &std::path::Path,
) {
    let stem: String = format!("{name}{options}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' })
        .collect();
    let log = program.get_build_log(device).unwrap_or_default();
    let binary = program.get_binaries().ok().and_then(|b| b.into_iter().next()).unwrap_or_default();
    let result = std::fs::create_dir_all(dir)
        .and_then(|_| std::fs::write(dir.join(format!("{stem}.log")), format!("options: {options}\n{log}")))
        .and_then(|_| std::fs::write(dir.join(format!("{stem}.bin")), binary));
    if let Err(e) = result {
        eprintln!("clsw: CLSW_DUMP_DIR: could not write to {}: {e}", dir.display());
    }
}

/// Sets a kernel's arguments in order, mapping failures to errors that name the
/// argument's position.
pub struct KernelArgs<'k> {
    kernel: &'k opencl3::kernel::Kernel,
    index: u32,
}

impl<'k> KernelArgs<'k> {
    pub fn new(kernel: &'k opencl3::kernel::Kernel) -> Self {
        KernelArgs { kernel, index: 0 }
    }

    /// The next argument: a scalar or a `cl_mem` handle (`&buffer.get()`).
    pub fn arg<T>(&mut self, value: &T) -> Result<&mut Self> {
        // SAFETY: the kernel copies the value; buffers passed by handle outlive the launch
        // because callers keep them alive until the queue has finished.
        unsafe { cl("clSetKernelArg", self.kernel.set_arg(self.index, value))? };
        self.index += 1;
        Ok(self)
    }

    /// The next argument: `bytes` of local memory.
    pub fn local(&mut self, bytes: usize) -> Result<&mut Self> {
        // SAFETY: a local-memory argument carries only its size.
        unsafe { cl("clSetKernelArg", self.kernel.set_arg_local_buffer(self.index, bytes))? };
        self.index += 1;
        Ok(self)
    }
}

/// Enqueues a 1-D launch of `global` work-items (a multiple of `local`).
pub fn launch(
    queue: &CommandQueue,
    kernel: &opencl3::kernel::Kernel,
    global: usize,
    local: usize,
) -> Result<opencl3::event::Event> {
    let g = [global];
    let l = [local];
    // SAFETY: the arguments were all set through KernelArgs before the launch.
    unsafe {
        cl(
            "clEnqueueNDRangeKernel",
            queue.enqueue_nd_range_kernel(kernel.get(), 1, std::ptr::null(), g.as_ptr(), l.as_ptr(), &[]),
        )
    }
}

/// Seconds from the first start to the last end of finished commands on one device
/// (their profiling events): 0 for none.
pub fn events_span_seconds(events: &[&opencl3::event::Event]) -> Result<f64> {
    let (mut first, mut last) = (u64::MAX, 0u64);
    for event in events {
        cl("clWaitForEvents", event.wait())?;
        first = first.min(cl("clGetEventProfilingInfo", event.profiling_command_start())?);
        last = last.max(cl("clGetEventProfilingInfo", event.profiling_command_end())?);
    }
    Ok(last.saturating_sub(first) as f64 * 1e-9)
}

/// Seconds a finished command spent on the device, from its profiling event.
pub fn event_seconds(event: &opencl3::event::Event) -> Result<f64> {
    cl("clWaitForEvents", event.wait())?;
    let start = cl("clGetEventProfilingInfo", event.profiling_command_start())?;
    let end = cl("clGetEventProfilingInfo", event.profiling_command_end())?;
    Ok(end.saturating_sub(start) as f64 * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceKind;

    /// A portable build has no vendor code, so its programs (and verdicts) are keyed
    /// apart from the vendor's on NVIDIA, and alike elsewhere.
    #[test]
    fn portable_builds_leave_out_the_vendor_code_and_are_keyed_apart() {
        let nvidia = DeviceInfo::described(0, "H100", DeviceKind::Gpu, 132);
        let pocl = DeviceInfo::described(1, "pocl", DeviceKind::Cpu, 16);
        assert!(nvidia.is_nvidia() && !pocl.is_nvidia());
        let defines = [("TEAM", "8".to_string())];
        let options = |info: &DeviceInfo, portable| build_options(info, portable, &defines, " -cl-opt-disable");
        let (vendor, portable) = (options(&nvidia, false), options(&nvidia, true));
        assert!(vendor.contains("-D CLSW_NV=1") && vendor.contains("-D TEAM=8"), "{vendor}");
        assert!(!portable.contains("CLSW_NV=1") && portable.contains("-D TEAM=8 -cl-opt-disable"), "{portable}");
        // The portable code's tuning for NVIDIA's pipes stays in its portable build.
        assert!(vendor.contains("-D CLSW_MUL_SHIFTS=1") && portable.contains("-D CLSW_MUL_SHIFTS=1"), "{portable}");
        assert!(!options(&pocl, true).contains("CLSW_MUL_SHIFTS"));
        let key = |info: &DeviceInfo, options: &str| program_key(info, "scan_team.cl", COMMON_HEADER, options);
        assert_ne!(key(&nvidia, &vendor), key(&nvidia, &portable));
        assert_eq!(options(&pocl, false), options(&pocl, true));
        assert!(!options(&pocl, false).contains("CLSW_NV=1"));
    }

    /// Sub-group shuffles are built in where a device reports both extensions, under the
    /// OpenCL C they need, and never beside NVIDIA's own shuffles.
    #[test]
    fn subgroup_shuffles_are_built_where_reported_under_opencl_c_2_or_3() {
        let both = "cl_khr_icd cl_khr_subgroups cl_khr_subgroup_shuffle cl_khr_fp64";
        let device = |version: &str, extensions: &str, kind| DeviceInfo {
            device_version: version.into(),
            extensions: extensions.into(),
            ..DeviceInfo::described(0, "d", kind, 16)
        };
        // A program asks for them (the team kernels); the others stay at OpenCL C 1.2.
        let asks = [("CLSW_SUBGROUPS", "1".to_string())];
        let options = |info: &DeviceInfo, portable| build_options(info, portable, &asks, "");
        let pocl5 = device("OpenCL 3.0 PoCL HSTR: cpu", both, DeviceKind::Cpu);
        assert_eq!(pocl5.subgroup_std(), Some("-cl-std=CL3.0"));
        assert!(options(&pocl5, false).starts_with("-cl-std=CL3.0") && options(&pocl5, false).contains("SUBGROUPS=1"));
        assert_eq!(build_options(&pocl5, false, &[], ""), "-cl-std=CL1.2");
        let rocm = device("OpenCL 2.0 AMD-APP (3614.0)", both, DeviceKind::Cpu);
        assert!(options(&rocm, false).starts_with("-cl-std=CL2.0"));
        // One extension of the two, a name that only begins like one, or OpenCL 1.2.
        for (version, extensions) in [
            ("OpenCL 3.0", "cl_khr_subgroups"),
            ("OpenCL 3.0", "cl_khr_subgroup_shuffle_relative cl_khr_subgroups"),
            ("OpenCL 1.2 pocl", both),
            ("", both),
        ] {
            let d = device(version, extensions, DeviceKind::Cpu);
            assert_eq!(d.subgroup_std(), None, "{version}: {extensions}");
            assert!(options(&d, false).starts_with("-cl-std=CL1.2"));
        }
        // NVIDIA's vendor build shuffles by PTX; its portable build may take them.
        let nvidia = device("OpenCL 3.0 CUDA", both, DeviceKind::Gpu);
        assert!(
            options(&nvidia, false).starts_with("-cl-std=CL1.2") && options(&nvidia, true).starts_with("-cl-std=CL3.0")
        );
    }
}

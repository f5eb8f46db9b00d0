//! Engines (the devices work runs on) and the OpenCL devices present.

use super::*;
use crate::device::{DeviceKind, list_devices};
use crate::engine::Engine;
use std::sync::Arc;

/// A set of devices ready for work, each OpenCL device having passed its
/// known-answer self-test. Shareable between threads.
pub struct clsw_engine {
    pub(crate) engine: Arc<Engine>,
}

/// Kind of an OpenCL device (`clsw_device_info.kind`).
pub type clsw_device_kind = u32;
pub const CLSW_DEVICE_GPU: clsw_device_kind = 0;
pub const CLSW_DEVICE_CPU: clsw_device_kind = 1;
/// An accelerator that is neither a GPU nor a CPU.
pub const CLSW_DEVICE_OTHER: clsw_device_kind = 2;

/// One OpenCL device, as `clsw_device_get` describes it. Set `size` to
/// `sizeof(clsw_device_info)` before the call. Text fields are NUL-terminated and
/// truncated to fit.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct clsw_device_info {
    /// `sizeof(clsw_device_info)`, set by the caller.
    pub size: usize,
    /// The device's index: what `clsw_engine_new` accepts as a choice ("0", "1", ...).
    pub index: usize,
    /// `CLSW_DEVICE_GPU`, `CLSW_DEVICE_CPU` or `CLSW_DEVICE_OTHER`.
    pub kind: clsw_device_kind,
    /// Compute units (streaming multiprocessors, cores).
    pub compute_units: u32,
    /// Highest clock, in MHz (0 when the driver does not say).
    pub clock_mhz: u32,
    /// Global memory, bytes.
    pub global_mem_bytes: u64,
    /// Largest single allocation, bytes.
    pub max_alloc_bytes: u64,
    /// Local (shared) memory per work-group, bytes.
    pub local_mem_bytes: u64,
    /// Most work-items in one work-group.
    pub max_work_group_size: usize,
    /// Device name.
    pub name: [c_char; 256],
    /// Platform name (e.g. "NVIDIA CUDA", "Portable Computing Language").
    pub platform: [c_char; 128],
    /// OpenCL C version the device compiles.
    pub opencl_c_version: [c_char; 64],
    /// Driver version.
    pub driver_version: [c_char; 64],
}

versioned!(clsw_device_info);

fn fixed<const N: usize>(s: &str) -> [c_char; N] {
    let mut out = [0 as c_char; N];
    let b = s.trim().as_bytes();
    for (o, &c) in out.iter_mut().zip(&b[..b.len().min(N - 1)]) {
        *o = c as c_char;
    }
    out
}

/// Creates an engine on the chosen devices. `device` is a NUL-terminated choice:
/// `"auto"` (the fastest GPU, else the native CPU path), `"gpu"`, `"cpu"` (a CPU
/// OpenCL device such as PoCL), `"native"` (the native CPU path, no OpenCL; `"reference"` is an older spelling),
/// `"all"` (every GPU), a device index (`"0"`), a name substring (`"H100"`), or a
/// comma-separated list of these (the work is split over all of them). NULL means
/// the `CLSW_DEVICE` environment variable, or `"auto"` when it is unset. Whatever the
/// choice, `CLSW_PORTABLE=1` makes the OpenCL devices build the portable kernels (no
/// vendor code).
///
/// Every OpenCL device runs a known-answer self-test first (a fraction of a second;
/// the first use of a device also compiles its kernels). On success `*out` is a new
/// engine to free with `clsw_engine_free`; on failure it is NULL.
///
/// Errors: `CLSW_ERR_DEVICE` (no such device, or a device failed its self-test),
/// `CLSW_ERR_OPENCL`, `CLSW_ERR_BUILD`, `CLSW_ERR_INVALID_ARGUMENT` (an empty
/// choice, or `CLSW_PORTABLE` neither 1 nor 0), `CLSW_ERR_NULL` (`out` is NULL).
///
/// # Safety
/// `device` is NULL or NUL-terminated; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_engine_new(device: *const c_char, out: *mut *mut clsw_engine) -> clsw_status {
    let make = || {
        // SAFETY: `device` is non-NULL here, so NUL-terminated (the caller's promise).
        let text = if device.is_null() { None } else { Some(unsafe { c_text(device, "device") }?) };
        Ok(clsw_engine { engine: Arc::new(Engine::open(text)?) })
    };
    // SAFETY: `out` is NULL or writable (the caller's promise).
    unsafe { new_handle(out, "out (the engine output)", make) }
}

/// Frees an engine; NULL is ignored. Searchers made with it keep what they need, so
/// they may be used and freed after it.
///
/// # Safety
/// `engine` is NULL or an engine from `clsw_engine_new`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_engine_free(engine: *mut clsw_engine) {
    // SAFETY: `engine` is NULL or a live boxed engine, freed once (the caller's promise).
    unsafe { free_box(engine) }
}

/// The number of devices (workers) the engine uses: 1 for a single choice, more for
/// `"all"` or a list. The native CPU path counts as one.
///
/// # Safety
/// `engine` is NULL or a live engine; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_engine_device_count(engine: *const clsw_engine, out: *mut usize) -> clsw_status {
    // SAFETY: `engine` is NULL or live, `out` NULL or writable (the caller's promise).
    unsafe { get(engine, "engine", out, |e| Ok(e.engine.describe().len())) }
}

/// Describes the engine's devices, one line each (`"[0] NAME (PLATFORM)"`, or
/// `"native CPU path (SIMD, no OpenCL)"`), separated by `'\n'`, NUL-terminated, into
/// `buf` of `len` bytes. `*needed` (if not NULL) gets the size required, NUL included;
/// a short buffer gives `CLSW_ERR_BUFFER_TOO_SMALL` (and a truncated, terminated
/// text); `buf` may be NULL when `len` is 0.
///
/// # Safety
/// `engine` is NULL or a live engine; `buf` is NULL or has `len` writable bytes;
/// `needed` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_engine_describe(
    engine: *const clsw_engine,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> clsw_status {
    run(|| {
        // SAFETY: `engine` is NULL or a live engine (the caller's promise).
        let e = unsafe { handle(engine, "engine") }?;
        // SAFETY: `buf` has `len` writable bytes unless NULL, `needed` is NULL or
        // writable (the caller's promise).
        unsafe { write_string(&e.engine.describe().join("\n"), buf, len, needed, "engine description") }
    })
}

/// The number of OpenCL devices on this machine (every platform), 0 when no OpenCL
/// runtime is installed. Discovery runs once per process.
///
/// # Safety
/// `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_device_count(out: *mut usize) -> clsw_status {
    run(|| {
        // SAFETY: `out` is NULL or a writable size_t (the caller's promise).
        let out = unsafe { out_ptr(out, "out") }?;
        *out = list_devices()?.len();
        Ok(())
    })
}

/// Describes OpenCL device `index` (0 to `clsw_device_count() - 1`) into `*out`, whose
/// `size` the caller sets to `sizeof(clsw_device_info)`.
/// Errors: `CLSW_ERR_INVALID_ARGUMENT` for an index out of range or a `size` that is
/// too small, `CLSW_ERR_NULL`.
///
/// # Safety
/// `out` is NULL or a `clsw_device_info` with `size` set, writable for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clsw_device_get(index: usize, out: *mut clsw_device_info) -> clsw_status {
    run(|| {
        if out.is_null() {
            return Err(Failure::null("out (the device info)"));
        }
        let devices = list_devices()?;
        let d = devices.get(index).ok_or_else(|| {
            Failure::invalid(format!("device index {index} is out of range ({} OpenCL devices)", devices.len()))
        })?;
        let info = clsw_device_info {
            size: std::mem::size_of::<clsw_device_info>(),
            index: d.index,
            kind: match d.kind {
                DeviceKind::Gpu => CLSW_DEVICE_GPU,
                DeviceKind::Cpu => CLSW_DEVICE_CPU,
                DeviceKind::Other => CLSW_DEVICE_OTHER,
            },
            compute_units: d.compute_units,
            clock_mhz: d.clock_mhz,
            global_mem_bytes: d.global_mem_bytes,
            max_alloc_bytes: d.max_alloc_bytes,
            local_mem_bytes: d.local_mem_bytes,
            max_work_group_size: d.max_work_group_size,
            name: fixed(&d.name),
            platform: fixed(&d.platform),
            opencl_c_version: fixed(&d.opencl_c_version),
            driver_version: fixed(&d.driver_version),
        };
        // SAFETY: `out` is non-NULL (checked above), its size set and writable (the
        // caller's promise).
        unsafe { write_versioned(out, info, "out (the device info)") }
    })
}

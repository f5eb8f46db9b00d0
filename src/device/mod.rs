//! The OpenCL device layer: discovery, choice, program building and caching (in memory,
//! and on disk through [`ProgramCache`]), and the mapping of OpenCL errors to
//! [`Error`](crate::Error).
//!
//! OpenCL is loaded at run time (opencl3's `dynamic` feature): on a machine without
//! any OpenCL runtime [`list_devices`] returns an empty list and the `auto` choice
//! falls back to the native CPU path.

mod choice;
mod opencl;
mod program_cache;

pub use choice::{Backend, DeviceChoice, DeviceSpec, local_rank, portable_from_env, select};
pub use opencl::{ClDevice, KernelArgs, KernelSource, ProgramStats, event_seconds, events_span_seconds, launch};
pub use program_cache::ProgramCache;

pub use crate::error::cl_error_name;
use crate::error::{Error, Result};
use opencl3::device::{CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, Device};
use opencl3::types::cl_device_id;

/// Wraps an opencl3 result, naming the call that failed.
pub(crate) fn cl<T>(call: &'static str, r: std::result::Result<T, opencl3::error_codes::ClError>) -> Result<T> {
    r.map_err(|e| Error::OpenCl { call, code: e.0 })
}

/// What kind of processor a device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceKind {
    Gpu,
    Cpu,
    Other,
}

/// One OpenCL device as the platform describes it.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// Position in [`list_devices`] order (platforms in order, their devices in order).
    pub index: usize,
    pub platform: String,
    pub platform_vendor: String,
    pub name: String,
    pub kind: DeviceKind,
    pub global_mem_bytes: u64,
    pub max_alloc_bytes: u64,
    pub local_mem_bytes: u64,
    pub compute_units: u32,
    pub clock_mhz: u32,
    pub max_work_group_size: usize,
    pub opencl_c_version: String,
    pub driver_version: String,
    /// CL_DEVICE_VERSION: "OpenCL 3.0 ...", the highest OpenCL C a program may ask for.
    pub device_version: String,
    /// CL_DEVICE_EXTENSIONS, space-separated.
    pub extensions: String,
    pub(crate) id: cl_device_id,
}

// SAFETY: the device id is a handle owned by the OpenCL runtime and valid for the
// whole process; the runtime allows it to be used from any thread.
unsafe impl Send for DeviceInfo {}
// SAFETY: as for Send; the other fields are plain owned values.
unsafe impl Sync for DeviceInfo {}

impl DeviceInfo {
    /// True for NVIDIA's OpenCL platform, where kernels may use inline PTX.
    pub fn is_nvidia(&self) -> bool {
        self.platform_vendor.to_ascii_lowercase().contains("nvidia") || self.platform.contains("NVIDIA")
    }

    /// The OpenCL C standard under which this device's kernels can use sub-group
    /// shuffles (cl/clsw_common.h: CLSW_SUBGROUPS), when it reports them:
    /// `cl_khr_subgroups` and `cl_khr_subgroup_shuffle`, on an OpenCL 2.x or 3.0 device
    /// (their built-ins need OpenCL C 2.0 or later).
    pub fn subgroup_std(&self) -> Option<&'static str> {
        let has = |name: &str| self.extensions.split_whitespace().any(|e| e == name);
        if !(has("cl_khr_subgroups") && has("cl_khr_subgroup_shuffle")) {
            return None;
        }
        let major = self.device_version.strip_prefix("OpenCL ").and_then(|v| v.split('.').next());
        match major.and_then(|m| m.trim().parse::<u32>().ok()) {
            Some(3..) => Some("-cl-std=CL3.0"),
            Some(2) => Some("-cl-std=CL2.0"),
            _ => None,
        }
    }

    /// A rough throughput rank used by the `auto` choice: compute units x clock.
    fn rank(&self) -> u64 {
        self.compute_units as u64 * self.clock_mhz.max(1) as u64
    }

    /// One line for listings: `[index] name (platform)`.
    pub fn label(&self) -> String {
        format!("[{}] {} ({})", self.index, self.name.trim(), self.platform.trim())
    }
}

#[cfg(test)]
impl DeviceInfo {
    /// A device as a platform would describe it, with no OpenCL handle, for tests of
    /// what is decided from the description: a GPU on NVIDIA's platform, any other kind
    /// on PoCL.
    pub(crate) fn described(index: usize, name: &str, kind: DeviceKind, compute_units: u32) -> DeviceInfo {
        DeviceInfo {
            index,
            platform: if kind == DeviceKind::Gpu { "NVIDIA CUDA".into() } else { "Portable Computing Language".into() },
            platform_vendor: String::new(),
            name: name.into(),
            kind,
            global_mem_bytes: 0,
            max_alloc_bytes: 0,
            local_mem_bytes: 0,
            compute_units,
            clock_mhz: 1000,
            max_work_group_size: 256,
            opencl_c_version: String::new(),
            driver_version: String::new(),
            device_version: String::new(),
            extensions: String::new(),
            id: std::ptr::null_mut(),
        }
    }
}

/// Every OpenCL device of every platform. No OpenCL library, or no platform, gives an
/// empty list; a platform that fails to answer is skipped.
///
/// Discovery runs once per process and is remembered: some runtimes (PoCL 3 among
/// them) crash when two threads initialise the platform at the same time, and a
/// library must not let its host program's threads race there.
pub fn list_devices() -> Result<Vec<DeviceInfo>> {
    static DEVICES: std::sync::OnceLock<std::result::Result<Vec<DeviceInfo>, (&'static str, i32)>> =
        std::sync::OnceLock::new();
    match DEVICES.get_or_init(|| {
        discover().map_err(|e| match e {
            Error::OpenCl { call, code } => (call, code),
            _ => ("clGetDeviceInfo", -30),
        })
    }) {
        Ok(d) => Ok(d.clone()),
        Err((call, code)) => Err(Error::OpenCl { call, code: *code }),
    }
}

fn discover() -> Result<Vec<DeviceInfo>> {
    let platforms = match opencl3::platform::get_platforms() {
        Ok(p) => p,
        // No runtime to load, or no ICD registered: no devices.
        Err(e) if e.0 == -2000 || e.0 == -2001 || e.0 == -1001 => return Ok(Vec::new()),
        Err(e) => return Err(Error::OpenCl { call: "clGetPlatformIDs", code: e.0 }),
    };
    let mut out = Vec::new();
    for p in platforms {
        let Ok(ids) = p.get_devices(CL_DEVICE_TYPE_ALL) else { continue };
        let platform = p.name().unwrap_or_default();
        let platform_vendor = p.vendor().unwrap_or_default();
        for id in ids {
            let d = Device::new(id);
            let ty = cl("clGetDeviceInfo", d.dev_type())?;
            let kind = if ty & CL_DEVICE_TYPE_GPU != 0 {
                DeviceKind::Gpu
            } else if ty & CL_DEVICE_TYPE_CPU != 0 {
                DeviceKind::Cpu
            } else {
                DeviceKind::Other
            };
            out.push(DeviceInfo {
                index: out.len(),
                platform: platform.clone(),
                platform_vendor: platform_vendor.clone(),
                name: cl("clGetDeviceInfo", d.name())?,
                kind,
                global_mem_bytes: cl("clGetDeviceInfo", d.global_mem_size())?,
                max_alloc_bytes: cl("clGetDeviceInfo", d.max_mem_alloc_size())?,
                local_mem_bytes: cl("clGetDeviceInfo", d.local_mem_size())?,
                compute_units: cl("clGetDeviceInfo", d.max_compute_units())?,
                clock_mhz: d.max_clock_frequency().unwrap_or(0),
                max_work_group_size: cl("clGetDeviceInfo", d.max_work_group_size())?,
                opencl_c_version: d.opencl_c_version().unwrap_or_default(),
                driver_version: d.driver_version().unwrap_or_default(),
                device_version: d.version().unwrap_or_default(),
                extensions: d.extensions().unwrap_or_default(),
                id,
            });
        }
    }
    Ok(out)
}

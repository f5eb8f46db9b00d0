//! Which device(s) to compute on: the one parser of `--device`, `CLSW_DEVICE` and the C
//! API's device text, for every job. A specification is one choice or a comma-separated
//! list of them (`0,2`, `gpu,native`); each choice is a share of the work. It also says
//! whether the devices build the portable kernels (`--portable`, `CLSW_PORTABLE`).

use super::{DeviceInfo, DeviceKind, list_devices};
use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// A request for devices, as users write it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    /// The fastest GPU (or other accelerator); else the native CPU path. A CPU OpenCL
    /// device (PoCL) is only used when asked for: on the CPU the native SIMD path is
    /// several times faster than our kernels under PoCL (BENCHMARKS.md).
    #[default]
    Auto,
    /// The fastest GPU (an error if there is none).
    Gpu,
    /// The fastest CPU OpenCL device, e.g. PoCL (an error if there is none).
    Cpu,
    /// The native CPU path (SIMD over all cores), no OpenCL. `reference` is accepted as
    /// an older spelling of it.
    Native,
    /// A device by its index in `clsw devices`.
    Index(usize),
    /// The first device whose name or platform contains this text (any case).
    Name(String),
    /// Every GPU, splitting the work (without GPUs, the native CPU path).
    All,
    /// The GPU of this process's local rank among the host's GPUs (modulo their
    /// number), for one GPU per MPI rank: the local rank is the launcher's
    /// (`OMPI_COMM_WORLD_LOCAL_RANK`, `MPI_LOCALRANKID`, `SLURM_LOCALID`), 0 without one.
    RankGpu,
}

/// This process's rank among the processes an MPI launcher started on its host (see
/// [`DeviceChoice::RankGpu`]), 0 when no launcher says.
pub fn local_rank() -> usize {
    ["OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
        .unwrap_or(0)
}

impl FromStr for DeviceChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        Ok(match t.to_ascii_lowercase().as_str() {
            "" => return Err(Error::InvalidArgument("empty device choice".into())),
            "auto" => DeviceChoice::Auto,
            "gpu" => DeviceChoice::Gpu,
            "cpu" => DeviceChoice::Cpu,
            "native" | "reference" => DeviceChoice::Native,
            "all" => DeviceChoice::All,
            "rank-gpu" => DeviceChoice::RankGpu,
            lower => match lower.parse::<usize>() {
                Ok(i) => DeviceChoice::Index(i),
                Err(_) => DeviceChoice::Name(t.to_string()),
            },
        })
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Auto => write!(f, "auto"),
            DeviceChoice::Gpu => write!(f, "gpu"),
            DeviceChoice::Cpu => write!(f, "cpu"),
            DeviceChoice::Native => write!(f, "native"),
            DeviceChoice::Index(i) => write!(f, "{i}"),
            DeviceChoice::Name(n) => write!(f, "{n}"),
            DeviceChoice::All => write!(f, "all"),
            DeviceChoice::RankGpu => write!(f, "rank-gpu"),
        }
    }
}

/// What a user asked for: one [`DeviceChoice`] or several, each a share of the work,
/// and whether their kernels are the portable ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceSpec {
    choices: Vec<DeviceChoice>,
    portable: bool,
}

impl DeviceSpec {
    /// `explicit` when given, else `CLSW_DEVICE` when set and not blank, else `auto`;
    /// portable as `CLSW_PORTABLE` says ([`portable_from_env`]).
    pub fn resolve(explicit: Option<&str>) -> Result<DeviceSpec> {
        let spec: DeviceSpec = match explicit {
            Some(s) => s.parse()?,
            None => match std::env::var("CLSW_DEVICE") {
                Ok(s) if !s.trim().is_empty() => {
                    s.parse().map_err(|e| Error::InvalidArgument(format!("CLSW_DEVICE: {e}")))?
                }
                _ => DeviceChoice::Auto.into(),
            },
        };
        Ok(spec.with_portable(portable_from_env()?))
    }

    /// This specification with every OpenCL device building the portable kernels
    /// (`on`) or its vendor's where it has them (see `ClDevice::with_portable`).
    pub fn with_portable(mut self, on: bool) -> DeviceSpec {
        self.portable = on;
        self
    }

    /// True when the devices build the portable kernels.
    pub fn portable(&self) -> bool {
        self.portable
    }

    /// The choices, in the order given.
    pub fn choices(&self) -> &[DeviceChoice] {
        &self.choices
    }

    /// Resolves every choice against the devices present, in order; a device named
    /// twice appears twice (each a worker of its own).
    pub fn select(&self) -> Result<Vec<Backend>> {
        if self.choices.is_empty() {
            return Err(Error::InvalidArgument("no device choice given".into()));
        }
        Ok(self.choices.iter().map(select).collect::<Result<Vec<_>>>()?.into_iter().flatten().collect())
    }
}

impl FromStr for DeviceSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let choices = s.split(',').map(str::parse).collect::<Result<Vec<DeviceChoice>>>()?;
        Ok(DeviceSpec { choices, portable: false })
    }
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.choices.iter().map(DeviceChoice::to_string).collect();
        f.write_str(&parts.join(","))
    }
}

impl From<DeviceChoice> for DeviceSpec {
    fn from(choice: DeviceChoice) -> DeviceSpec {
        DeviceSpec { choices: vec![choice], portable: false }
    }
}

impl From<Vec<DeviceChoice>> for DeviceSpec {
    /// An empty list is refused by [`DeviceSpec::select`].
    fn from(choices: Vec<DeviceChoice>) -> DeviceSpec {
        DeviceSpec { choices, portable: false }
    }
}

/// Whether the environment asks for the portable kernels: [`portable_from`] of
/// `CLSW_PORTABLE` (for code that opens devices itself, as the kernel tests do).
pub fn portable_from_env() -> Result<bool> {
    portable_from(std::env::var("CLSW_PORTABLE"))
}

/// Whether `CLSW_PORTABLE` (its value from `std::env::var`) asks for the portable
/// kernels: `1` yes; `0`, blank or unset no; anything else is an error naming it.
fn portable_from(value: std::result::Result<String, std::env::VarError>) -> Result<bool> {
    let text = match value {
        Err(std::env::VarError::NotPresent) => return Ok(false),
        Err(std::env::VarError::NotUnicode(v)) => v.to_string_lossy().into_owned(),
        Ok(v) => v,
    };
    match text.trim() {
        "" | "0" => Ok(false),
        "1" => Ok(true),
        other => Err(Error::InvalidArgument(format!(
            "CLSW_PORTABLE: '{other}' is not 1 (build the portable kernels) or 0 (the vendor's where it has them)"
        ))),
    }
}

/// Where work runs.
// A run holds one Backend a device: boxing the description would save nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Backend {
    OpenCl(DeviceInfo),
    /// The native CPU path (`scan::native`, SIMD over all cores), no OpenCL.
    Native,
}

impl Backend {
    pub fn label(&self) -> String {
        match self {
            Backend::OpenCl(d) => d.label(),
            Backend::Native => "native CPU path (SIMD, no OpenCL)".to_string(),
        }
    }
}

fn best_of(devices: &[DeviceInfo], kind: DeviceKind) -> Option<&DeviceInfo> {
    devices.iter().filter(|d| d.kind == kind).max_by_key(|d| (d.rank(), std::cmp::Reverse(d.index)))
}

/// Resolves a choice against the devices present.
pub fn select(choice: &DeviceChoice) -> Result<Vec<Backend>> {
    let devices = if *choice == DeviceChoice::Native { Vec::new() } else { list_devices()? };
    select_from(choice, &devices)
}

pub(crate) fn select_from(choice: &DeviceChoice, devices: &[DeviceInfo]) -> Result<Vec<Backend>> {
    let none = |what: &str| {
        let have = if devices.is_empty() {
            "no OpenCL devices were found".to_string()
        } else {
            format!("devices: {}", devices.iter().map(DeviceInfo::label).collect::<Vec<_>>().join(", "))
        };
        Error::Device(format!("no {what} ({have}); `clsw devices` lists what is available"))
    };
    let one = |d: &DeviceInfo| Ok(vec![Backend::OpenCl(d.clone())]);
    match choice {
        DeviceChoice::Native => Ok(vec![Backend::Native]),
        DeviceChoice::Auto => match best_of(devices, DeviceKind::Gpu).or_else(|| best_of(devices, DeviceKind::Other)) {
            Some(d) => one(d),
            None => Ok(vec![Backend::Native]),
        },
        DeviceChoice::Gpu => best_of(devices, DeviceKind::Gpu).map(one).unwrap_or_else(|| Err(none("GPU"))),
        DeviceChoice::Cpu => {
            best_of(devices, DeviceKind::Cpu).map(one).unwrap_or_else(|| Err(none("CPU OpenCL device")))
        }
        DeviceChoice::Index(i) => {
            devices.get(*i).map(one).unwrap_or_else(|| Err(none(&format!("device with index {i}"))))
        }
        DeviceChoice::Name(n) => {
            let needle = n.to_ascii_lowercase();
            devices
                .iter()
                .find(|d| {
                    d.name.to_ascii_lowercase().contains(&needle) || d.platform.to_ascii_lowercase().contains(&needle)
                })
                .map(one)
                .unwrap_or_else(|| Err(none(&format!("device matching '{n}'"))))
        }
        DeviceChoice::All => {
            let gpus: Vec<Backend> =
                devices.iter().filter(|d| d.kind == DeviceKind::Gpu).cloned().map(Backend::OpenCl).collect();
            Ok(if gpus.is_empty() { vec![Backend::Native] } else { gpus })
        }
        DeviceChoice::RankGpu => {
            let gpus: Vec<&DeviceInfo> = devices.iter().filter(|d| d.kind == DeviceKind::Gpu).collect();
            if gpus.is_empty() {
                return Err(none("GPU"));
            }
            one(gpus[local_rank() % gpus.len()])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(b: &[Backend]) -> Vec<String> {
        b.iter()
            .map(|b| match b {
                Backend::OpenCl(d) => d.name.clone(),
                Backend::Native => "native".into(),
            })
            .collect()
    }

    #[test]
    fn parse_choices() {
        assert_eq!("AUTO".parse::<DeviceChoice>().unwrap(), DeviceChoice::Auto);
        assert_eq!("1".parse::<DeviceChoice>().unwrap(), DeviceChoice::Index(1));
        assert_eq!("H100".parse::<DeviceChoice>().unwrap(), DeviceChoice::Name("H100".into()));
        assert!("".parse::<DeviceChoice>().is_err());
        assert_eq!("reference".parse::<DeviceChoice>().unwrap(), DeviceChoice::Native);
    }

    #[test]
    fn a_specification_is_a_list_of_choices() {
        let spec: DeviceSpec = "0, 2".parse().unwrap();
        assert_eq!(spec.choices(), [DeviceChoice::Index(0), DeviceChoice::Index(2)]);
        assert_eq!(spec.to_string(), "0,2");
        let spec: DeviceSpec = "gpu,native".parse().unwrap();
        assert_eq!(spec.choices(), [DeviceChoice::Gpu, DeviceChoice::Native]);
        assert_eq!("H100".parse::<DeviceSpec>().unwrap().choices(), [DeviceChoice::Name("H100".into())]);
        assert!("0,".parse::<DeviceSpec>().is_err());
        assert!(",".parse::<DeviceSpec>().is_err());
        assert_eq!(DeviceSpec::resolve(Some("native")).unwrap().choices(), [DeviceChoice::Native]);
        assert!(DeviceSpec::from(Vec::new()).select().is_err());
        assert!(!spec.portable() && spec.with_portable(true).portable());
    }

    #[test]
    fn clsw_portable_is_one_zero_or_an_error_naming_it() {
        use std::env::VarError;
        let from = |v: &str| portable_from(Ok(v.to_string()));
        assert!(!portable_from(Err(VarError::NotPresent)).unwrap());
        assert!(from("1").unwrap() && from(" 1\n").unwrap());
        assert!(!from("0").unwrap() && !from("").unwrap() && !from("  ").unwrap());
        for bad in ["yes", "true", "2", "on"] {
            let msg = from(bad).unwrap_err().to_string();
            assert!(msg.contains("CLSW_PORTABLE") && msg.contains(&format!("'{bad}'")), "{msg}");
        }
        let not_unicode = VarError::NotUnicode(std::ffi::OsString::from("x"));
        assert!(portable_from(Err(not_unicode)).unwrap_err().to_string().contains("CLSW_PORTABLE"));
    }

    #[test]
    fn auto_prefers_the_biggest_gpu_then_the_native_path() {
        let devs = vec![
            DeviceInfo::described(0, "pocl", DeviceKind::Cpu, 16),
            DeviceInfo::described(1, "small", DeviceKind::Gpu, 10),
            DeviceInfo::described(2, "H200", DeviceKind::Gpu, 132),
        ];
        assert_eq!(names(&select_from(&DeviceChoice::Auto, &devs).unwrap()), ["H200"]);
        assert_eq!(names(&select_from(&DeviceChoice::Cpu, &devs).unwrap()), ["pocl"]);
        assert_eq!(names(&select_from(&DeviceChoice::All, &devs).unwrap()), ["small", "H200"]);
        assert_eq!(names(&select_from(&DeviceChoice::Name("h20".into()), &devs).unwrap()), ["H200"]);
        assert_eq!(names(&select_from(&DeviceChoice::Auto, &devs[..1]).unwrap()), ["native"]);
        assert_eq!(names(&select_from(&DeviceChoice::Auto, &[]).unwrap()), ["native"]);
        assert_eq!(names(&select_from(&DeviceChoice::All, &[]).unwrap()), ["native"]);
    }

    #[test]
    fn impossible_choices_say_what_exists() {
        let devs = vec![DeviceInfo::described(0, "pocl", DeviceKind::Cpu, 2)];
        let msg = select_from(&DeviceChoice::Gpu, &devs).unwrap_err().to_string();
        assert!(msg.contains("no GPU") && msg.contains("[0] pocl"), "{msg}");
        assert!(select_from(&DeviceChoice::Index(3), &devs).is_err());
        assert!(select_from(&DeviceChoice::Name("nvidia".into()), &devs).is_err());
    }
}

//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod capi;
pub mod cli;

use clsw::device::{ClDevice, DeviceInfo, DeviceKind, list_devices};
use clsw::seq::{Alphabet, EmptyRecords, Sequence, fasta};
use std::path::PathBuf;

/// The test data folder: `CLSW_TEST_DATA` when set, else `tests/data` under the current
/// directory (test executables copied to another machine run from the repository
/// root), else the one in the source tree.
pub fn data_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CLSW_TEST_DATA") {
        return PathBuf::from(d);
    }
    let local = PathBuf::from("tests/data");
    if local.is_dir() { local } else { PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data") }
}

/// Where [`skipped`] lists the tests that could not run here: `CLSW_SKIP_LOG`, else
/// `target/skipped-tests.log` in the source tree. `.ci/run` fails when it is not empty.
pub fn skip_log() -> PathBuf {
    match std::env::var_os("CLSW_SKIP_LOG") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/skipped-tests.log"),
    }
}

/// A test (or a part of one) that cannot run here: says so in `cargo test`'s own output
/// and adds a line to [`skip_log`], so that a skip cannot pass for a test that ran.
/// Written to standard error itself, not through `eprintln!`, which the test harness
/// captures and shows only for a failing test.
pub fn skipped(why: &str) {
    use std::io::Write;
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    let _ = std::io::stderr().write_all(format!("SKIPPED {test}: {why}\n").as_bytes());
    let line = format!("{} {test}: {}\n", std::env::args().next().unwrap_or_default(), why.replace('\n', " "));
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(skip_log()) {
        let _ = f.write_all(line.as_bytes());
    }
}

pub fn read_fasta(name: &str, alphabet: Alphabet) -> Vec<Sequence> {
    fasta::read_file(&data_dir().join(name), alphabet, EmptyRecords::Error).unwrap().0
}

/// Deterministic pseudo-random numbers (xorshift64*), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() >> 11) as usize % n
    }
    /// `len` codes drawn uniformly from `0..letters`.
    pub fn codes(&mut self, len: usize, letters: usize) -> Vec<u8> {
        (0..len).map(|_| self.below(letters) as u8).collect()
    }
    /// A copy of `s` with point mutations, insertions and deletions at about `rate`.
    pub fn mutate(&mut self, s: &[u8], rate: f64, letters: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(s.len());
        let threshold = (rate * 1000.0) as usize;
        for &c in s {
            match self.below(1000) {
                x if x < threshold / 3 => {}                                       // deletion
                x if x < 2 * threshold / 3 => out.push(self.below(letters) as u8), // substitution
                x if x < threshold => {
                    out.push(c);
                    out.push(self.below(letters) as u8); // insertion
                }
                _ => out.push(c),
            }
        }
        out
    }
}

/// The OpenCL devices to test on. With none present the test is skipped loudly,
/// unless `CLSW_REQUIRE_DEVICE=1` (set by CI), where a missing device fails it.
/// `CLSW_TEST_DEVICE=gpu|cpu` narrows the set (the GPU machine tests both).
/// Each builds the portable kernels when `CLSW_PORTABLE=1`, as an engine's devices do.
pub fn test_devices() -> Vec<ClDevice> {
    let portable = clsw::device::portable_from_env().expect("CLSW_PORTABLE");
    test_device_infos()
        .into_iter()
        .map(|d| ClDevice::new(d).expect("opening an OpenCL device").with_portable(portable))
        .collect()
}

/// [`test_devices`] for the kernel tests' sweeps of shapes and lengths, dozens of
/// programs each: CPU devices build them unoptimized (`-cl-opt-disable`), which PoCL
/// does about 2.8 times faster (`tests/scan_kernels.rs` in CI: 397 s -> 167 s). The
/// optimized builds of every variant are checked by the engine's self-test and by the
/// tests that search through an engine; GPUs build the sweeps optimized too.
pub fn sweep_devices() -> Vec<ClDevice> {
    test_devices()
        .into_iter()
        .map(|d| if d.info.kind == DeviceKind::Cpu { d.with_build_options("-cl-opt-disable") } else { d })
        .collect()
}

/// [`test_devices`] unopened, for tests that open them their own way.
pub fn test_device_infos() -> Vec<DeviceInfo> {
    let mut devices = list_devices().expect("listing OpenCL devices");
    match std::env::var("CLSW_TEST_DEVICE").as_deref() {
        Ok("gpu") => devices.retain(|d| d.kind == DeviceKind::Gpu),
        Ok("cpu") => devices.retain(|d| d.kind == DeviceKind::Cpu),
        _ => {}
    }
    if devices.is_empty() {
        if std::env::var("CLSW_REQUIRE_DEVICE").as_deref() == Ok("1") {
            panic!("CLSW_REQUIRE_DEVICE=1 but no OpenCL device was found (install pocl-opencl-icd)");
        }
        skipped("no OpenCL device found; set CLSW_REQUIRE_DEVICE=1 to make this a failure");
    }
    devices
}

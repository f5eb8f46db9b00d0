//! The on-disk cache of built OpenCL programs: the second level under
//! [`ClDevice`](super::ClDevice)'s in-memory one. A run builds many programs (the
//! self-test every variant, `team` one program per shape), and each process used to
//! compile them all again: PoCL spent 65 s on the self-test's 17 programs, 2.2 s when
//! they load from here. NVIDIA's driver keeps a cache of its own (`~/.nv/ComputeCache`,
//! which holds what clsw's entries cannot: the machine code of the PTX binaries clsw
//! stores), so there this cache pays only where that one is cold or off: a small
//! `clsw scan` on an H100 took 9.7 s with both cold, 4.6 s with only this one warm,
//! 1.2 s with the driver's warm whether or not this one was.
//!
//! An entry is one file, `<dir>/programs/<16 hex digits>.bin`, named by
//! [`checksum`](crate::seq::db::checksum) of its key. The key is a text naming
//! everything the binary depends on: clsw's version, the platform, its vendor, the
//! device, the driver version, the OpenCL C version, the build options and the full
//! source text compiled (common header included), each field with its length so no two
//! keys read alike. The file holds `clsw-program-cache 1\n`, `key <length>\n`, the key,
//! `\nbinary <length> <checksum as 16 hex digits>\n`, then the binary and nothing after
//! it. A reader checks all of it, so a hash collision, a stale entry, a truncated or
//! altered file reads as a miss: the program is built from source and the entry
//! rewritten. A writer writes a temporary file in the same folder and renames it into
//! place ([`crate::outfile`]), so concurrent processes see a whole entry or none. Nothing is ever evicted;
//! entries are tens to hundreds of KB, and removing the folder is always safe.
//!
//! The folder: `CLSW_CACHE_DIR` when set and not empty (`off` turns the disk cache
//! off), else `$XDG_CACHE_HOME/clsw` when that is an absolute path, else the platform's
//! user cache folder: `$HOME/.cache/clsw`, on macOS `$HOME/Library/Caches/clsw`, on
//! Windows `%LOCALAPPDATA%\clsw`; with none of these, no disk cache.
//!
//! Beside the programs, `<dir>/verdicts/<16 hex digits>.ok` keeps the self-tests a
//! device passed (`src/engine/selftest.rs`), in the same entry form with the text
//! `passed` for a binary, keyed by the device, driver, every kernel source tested and
//! the build options (`ClDevice::verdict_key`).
//!
//! Failures of the disk cache are silent and never fail a build: a library must not
//! write to its host program's standard error for an optimisation that is merely
//! unavailable (a read-only home, a full disk), and the cost is only the compile time
//! clsw had before.
//!
//! Our own code: no crate caches OpenCL program binaries, and the folder rule is a
//! dozen lines here, where the `dirs` crate would add a dependency (and windows-sys on
//! Windows) to every C user of the library for one function.

use super::DeviceInfo;
use crate::outfile::OutFile;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first line of every entry; the number changes when the layout does.
const MAGIC: &[u8] = b"clsw-program-cache 1\n";

/// Where built program binaries are kept between processes, or nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramCache {
    /// The cache folder (entries live in its `programs/`); `None` when off.
    dir: Option<PathBuf>,
}

impl ProgramCache {
    /// The cache the environment asks for (see the module notes): `CLSW_CACHE_DIR`,
    /// `off`, `XDG_CACHE_HOME`, the platform's user cache folder, or none.
    pub fn from_env() -> ProgramCache {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let platform_base = if cfg!(windows) {
            var("LOCALAPPDATA").map(PathBuf::from)
        } else if cfg!(target_os = "macos") {
            var("HOME").map(|h| PathBuf::from(h).join("Library/Caches"))
        } else {
            var("HOME").map(|h| PathBuf::from(h).join(".cache"))
        };
        ProgramCache { dir: resolve_dir(var("CLSW_CACHE_DIR"), var("XDG_CACHE_HOME"), platform_base) }
    }

    /// A cache in `dir` (entries in `dir/programs/`), whatever the environment says.
    pub fn at(dir: impl Into<PathBuf>) -> ProgramCache {
        ProgramCache { dir: Some(dir.into()) }
    }

    /// No disk cache: every program is built from source once per device.
    pub fn off() -> ProgramCache {
        ProgramCache { dir: None }
    }

    /// False for [`ProgramCache::off`] (or `CLSW_CACHE_DIR=off`).
    pub fn enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// The folder holding the entries, `None` when the disk cache is off.
    pub fn programs_dir(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join("programs"))
    }

    /// The entry file for `key`, `None` when off.
    pub(crate) fn entry_path(&self, key: &str) -> Option<PathBuf> {
        self.programs_dir().map(|d| d.join(format!("{:016x}.bin", crate::seq::db::checksum(key.as_bytes()))))
    }

    /// The binary stored for `key`, if a whole and matching entry exists.
    pub(crate) fn load(&self, key: &str) -> Option<Vec<u8>> {
        let bytes = std::fs::read(self.entry_path(key)?).ok()?;
        decode(&bytes, key).map(<[u8]>::to_vec)
    }

    /// Stores `binary` for `key`, replacing any entry; failures are ignored (module notes).
    pub(crate) fn store(&self, key: &str, binary: &[u8]) {
        let Some(path) = self.entry_path(key) else { return };
        let _ = write_atomically(&path, &encode(key, binary));
    }
}

impl ProgramCache {
    /// The entry file of a verdict (`<dir>/verdicts/`), `None` when off.
    fn verdict_path(&self, key: &str) -> Option<PathBuf> {
        let name = format!("{:016x}.ok", crate::seq::db::checksum(key.as_bytes()));
        self.dir.as_ref().map(|d| d.join("verdicts").join(name))
    }

    /// True when a pass was stored for `key` ([`remember_pass`](Self::remember_pass)),
    /// in a whole entry for exactly this key.
    pub(crate) fn recalls_pass(&self, key: &str) -> bool {
        let Some(path) = self.verdict_path(key) else { return false };
        std::fs::read(path).ok().is_some_and(|bytes| decode(&bytes, key) == Some(PASSED))
    }

    /// Stores a pass for `key`; failures are ignored (module notes). Failures are
    /// never stored: a device that failed is tested again, and says why, every time.
    pub(crate) fn remember_pass(&self, key: &str) {
        let Some(path) = self.verdict_path(key) else { return };
        let _ = write_atomically(&path, &encode(key, PASSED));
    }
}

/// What a verdict entry holds after its key.
const PASSED: &[u8] = b"passed";

/// The folder rule, apart from the environment so it can be tested: each argument is
/// the variable's value when set and not empty; `platform_base` is the platform's user
/// cache folder (`$HOME/.cache`, ...).
fn resolve_dir(
    clsw_cache_dir: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    platform_base: Option<PathBuf>,
) -> Option<PathBuf> {
    if let Some(d) = clsw_cache_dir {
        return if d == "off" { None } else { Some(PathBuf::from(d)) };
    }
    if let Some(x) = xdg_cache_home.map(PathBuf::from).filter(|p| p.is_absolute()) {
        return Some(x.join("clsw"));
    }
    platform_base.map(|b| b.join("clsw"))
}

/// The key text of a program: every input that determines its binary.
pub(crate) fn program_key(info: &DeviceInfo, source_name: &str, source_text: &str, options: &str) -> String {
    let mut key = String::new();
    for (name, value) in [
        ("clsw", env!("CARGO_PKG_VERSION")),
        ("platform", &info.platform),
        ("platform-vendor", &info.platform_vendor),
        ("device", &info.name),
        ("driver", &info.driver_version),
        ("opencl-c", &info.opencl_c_version),
        ("options", options),
        // The name changes no binary; it makes an entry readable.
        ("source-name", source_name),
        ("source", source_text),
    ] {
        key.push_str(&format!("{name} {}: {value}\n", value.len()));
    }
    key
}

fn encode(key: &str, binary: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + key.len() + binary.len() + 64);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(format!("key {}\n", key.len()).as_bytes());
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(format!("\nbinary {} {:016x}\n", binary.len(), crate::seq::db::checksum(binary)).as_bytes());
    out.extend_from_slice(binary);
    out
}

/// The binary of an entry whose every part checks out for `key`: the entry must be
/// byte for byte what [`encode`] makes of `key` and the binary it holds.
fn decode<'a>(bytes: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let rest = rest.strip_prefix(format!("key {}\n", key.len()).as_bytes())?;
    let rest = rest.strip_prefix(key.as_bytes())?;
    let rest = rest.strip_prefix(b"\nbinary ")?;
    let end = rest.iter().position(|&c| c == b'\n')?;
    let (header, binary) = (&rest[..end], &rest[end + 1..]);
    let expected = format!("{} {:016x}", binary.len(), crate::seq::db::checksum(binary));
    (!binary.is_empty() && header == expected.as_bytes()).then_some(binary)
}

/// Writes `data` to `path` atomically ([`OutFile`]), creating the folder first.
fn write_atomically(path: &Path, data: &[u8]) -> crate::error::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| crate::error::Error::io(dir, e))?;
    let mut file = OutFile::create(path)?;
    file.write_all(data).map_err(|e| crate::error::Error::io(path, e))?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some(s: &str) -> Option<OsString> {
        Some(OsString::from(s))
    }

    #[test]
    fn folder_rule_follows_clsw_cache_dir_then_xdg_then_the_platform() {
        let home = Some(PathBuf::from("/home/u/.cache"));
        assert_eq!(resolve_dir(some("/tmp/c"), some("/x"), home.clone()), Some(PathBuf::from("/tmp/c")));
        assert_eq!(resolve_dir(some("off"), some("/x"), home.clone()), None);
        assert_eq!(resolve_dir(None, some("/x"), home.clone()), Some(PathBuf::from("/x/clsw")));
        // A relative XDG_CACHE_HOME is invalid by the XDG rules and ignored.
        assert_eq!(resolve_dir(None, some("rel"), home.clone()), Some(PathBuf::from("/home/u/.cache/clsw")));
        assert_eq!(resolve_dir(None, None, home), Some(PathBuf::from("/home/u/.cache/clsw")));
        assert_eq!(resolve_dir(None, None, None), None);
        assert_eq!(ProgramCache::off().programs_dir(), None);
        assert_eq!(ProgramCache::at("/c").programs_dir(), Some(PathBuf::from("/c/programs")));
    }

    #[test]
    fn entries_round_trip_and_reject_any_damage_or_other_key() {
        let key = "clsw 5: 0.2.0\nsource 3: abc\n";
        let binary: Vec<u8> = (0..300u32).map(|i| (i * 7 % 251) as u8).collect();
        let entry = encode(key, &binary);
        assert_eq!(decode(&entry, key), Some(&binary[..]));
        assert_eq!(decode(&entry, "clsw 5: 0.2.0\nsource 3: abd\n"), None);
        assert_eq!(decode(&entry, ""), None);
        for cut in 0..entry.len() {
            assert_eq!(decode(&entry[..cut], key), None, "truncated to {cut}");
        }
        for i in 0..entry.len() {
            let mut e = entry.clone();
            e[i] ^= 0x20;
            assert_eq!(decode(&e, key), None, "byte {i} flipped");
        }
        let mut longer = entry.clone();
        longer.push(0);
        assert_eq!(decode(&longer, key), None);
        assert_eq!(decode(&encode(key, &[]), key), None, "an empty binary is no program");
    }

    #[test]
    fn keys_differ_in_every_field_and_cannot_be_confused() {
        let info = DeviceInfo {
            index: 0,
            platform: "P".into(),
            platform_vendor: "V".into(),
            name: "D".into(),
            kind: super::super::DeviceKind::Cpu,
            global_mem_bytes: 0,
            max_alloc_bytes: 0,
            local_mem_bytes: 0,
            compute_units: 1,
            clock_mhz: 1,
            max_work_group_size: 1,
            opencl_c_version: "OpenCL C 1.2".into(),
            driver_version: "1.0".into(),
            device_version: "OpenCL 1.2".into(),
            extensions: String::new(),
            id: std::ptr::null_mut(),
        };
        let base = program_key(&info, "k.cl", "src", "-D A=1");
        let mut keys = vec![
            base.clone(),
            program_key(&info, "k.cl", "src ", "-D A=1"),
            program_key(&info, "k.cl", "src", "-D A=2"),
            // Text moved from options into the source is a different key.
            program_key(&info, "k.cl", "1\nsrc", "-D A="),
        ];
        for change in 0..5 {
            let mut i = info.clone();
            match change {
                0 => i.platform.push('x'),
                1 => i.platform_vendor.push('x'),
                2 => i.name.push('x'),
                3 => i.driver_version.push('x'),
                _ => i.opencl_c_version.push('x'),
            }
            keys.push(program_key(&i, "k.cl", "src", "-D A=1"));
        }
        let paths: std::collections::HashSet<_> =
            keys.iter().map(|k| ProgramCache::at("/c").entry_path(k).unwrap()).collect();
        assert_eq!(paths.len(), keys.len());
        assert!(base.contains(env!("CARGO_PKG_VERSION")));
        // The device's index is not part of the key: identical devices share entries.
        let mut other = info.clone();
        other.index = 3;
        assert_eq!(program_key(&other, "k.cl", "src", "-D A=1"), base);
    }

    #[test]
    fn store_then_load_and_off_writes_nothing() {
        let dir = std::env::temp_dir().join(format!("clsw-program-cache-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = ProgramCache::at(&dir);
        assert_eq!(cache.load("k"), None);
        cache.store("k", b"binary");
        assert_eq!(cache.load("k").as_deref(), Some(&b"binary"[..]));
        cache.store("k", b"newer");
        assert_eq!(cache.load("k").as_deref(), Some(&b"newer"[..]));
        let files: Vec<_> = std::fs::read_dir(dir.join("programs")).unwrap().collect();
        assert_eq!(files.len(), 1, "temporary files are renamed away");
        ProgramCache::off().store("k", b"binary");
        assert_eq!(ProgramCache::off().load("k"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

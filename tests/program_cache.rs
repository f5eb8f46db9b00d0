//! The on-disk cache of built programs (`src/device/program_cache.rs`), on every OpenCL
//! device present: a build writes one entry, a later device (a later process, in
//! effect) loads it and computes the same, a damaged entry is rebuilt and rewritten,
//! options and source each key their own entry, and `off` writes nothing. The folder
//! rules of the environment (`CLSW_CACHE_DIR`, `XDG_CACHE_HOME`, `HOME`) are checked in
//! child processes, so no test changes this process's environment.

mod common;

use clsw::device::{ClDevice, DeviceInfo, KernelArgs, KernelSource, ProgramCache, ProgramStats, launch};
use clsw::reference::score;
use clsw::scan::{Variant, scan_once};
use clsw::scoring::{Gaps, Matrix, Scoring};
use common::{Rng, test_device_infos};
use opencl3::memory::ClMem;
use std::path::{Path, PathBuf};
use std::process::Command;

const PUT: KernelSource = KernelSource {
    name: "test_put.cl",
    text: "__kernel void put(__global int *out) { out[get_global_id(0)] = VALUE + (int)get_global_id(0); }\n",
};

/// The same kernel under the same name with other source text.
const PUT_TWICE: KernelSource = KernelSource {
    name: "test_put.cl",
    text: "__kernel void put(__global int *out) { out[get_global_id(0)] = 2 * VALUE + (int)get_global_id(0); }\n",
};

/// The devices to test; none when `CLSW_DUMP_DIR` is set, since dumping builds every
/// program from source and the counts below would not hold.
fn devices() -> Vec<DeviceInfo> {
    if std::env::var_os("CLSW_DUMP_DIR").is_some() {
        common::skipped("CLSW_DUMP_DIR is set, which bypasses the disk cache");
        return Vec::new();
    }
    test_device_infos()
}

/// A fresh, empty folder for one test and device.
fn fresh_dir(test: &str, dev: &DeviceInfo) -> PathBuf {
    let d = std::env::temp_dir().join(format!("clsw-program-cache-{}-{test}-{}", std::process::id(), dev.index));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every file under `dir`, recursively, sorted.
fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() { out.extend(all_files(&p)) } else { out.push(p) }
        }
    }
    out.sort();
    out
}

/// The files under `dir` in a `programs` folder: the disk cache's, and not those the
/// OpenCL runtime keeps in the same user cache folder (PoCL's kernel cache, NVIDIA's).
fn files(dir: &Path) -> Vec<PathBuf> {
    all_files(dir)
        .into_iter()
        .filter(|p| p.parent().and_then(|d| d.file_name()).is_some_and(|n| n == "programs"))
        .collect()
}

fn stats(built_from_source: usize, loaded_from_disk: usize) -> ProgramStats {
    ProgramStats { built_from_source, loaded_from_disk }
}

/// Builds (or loads) `source` with `VALUE=value`, runs it, and checks what it wrote.
fn run_put(dev: &ClDevice, source: &KernelSource, value: i32) {
    let program = dev.program(source, &[("VALUE", value.to_string())]).unwrap();
    let kernel = opencl3::kernel::Kernel::create(&program, "put").unwrap();
    let out = dev.buffer::<i32>(4).unwrap();
    KernelArgs::new(&kernel).arg(&out.get()).unwrap();
    let queue = dev.queue();
    launch(&queue, &kernel, 4, 1).unwrap();
    let mut got = [0i32; 4];
    dev.read(&queue, &out, &mut got).unwrap();
    let factor = if source.text == PUT.text { 1 } else { 2 };
    let want: Vec<i32> = (0..4).map(|i| factor * value + i).collect();
    assert_eq!(got.to_vec(), want, "{} VALUE={value} on {}", source.name, dev.info.label());
}

#[test]
fn first_build_writes_one_entry_and_a_second_device_loads_it() {
    for info in devices() {
        let dir = fresh_dir("first", &info);
        let first = ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap();
        run_put(&first, &PUT, 41);
        assert_eq!(first.program_stats(), stats(1, 0));
        let entries = files(&dir);
        assert_eq!(entries.len(), 1, "{entries:?}");
        assert!(entries[0].starts_with(dir.join("programs")));
        let name = entries[0].file_name().unwrap().to_str().unwrap();
        assert!(name.len() == 20 && name.ends_with(".bin"), "{name}");
        let bytes = std::fs::read(&entries[0]).unwrap();
        assert!(bytes.starts_with(b"clsw-program-cache 1\n"));

        // A second device on the same folder stands for the next process.
        let second = ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap();
        run_put(&second, &PUT, 41);
        assert_eq!(second.program_stats(), stats(0, 1));
        // The in-memory cache answers the next request.
        run_put(&second, &PUT, 41);
        assert_eq!(second.program_stats(), stats(0, 1));
        assert_eq!(files(&dir), entries);
        assert_eq!(std::fs::read(&entries[0]).unwrap(), bytes, "a loaded entry is not rewritten");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn scans_through_loaded_programs_equal_the_reference() {
    let mut rng = Rng::new(13);
    let sc = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    let query = rng.codes(70, 20);
    let subjects: Vec<Vec<u8>> =
        (0..50).map(|k| if k % 5 == 0 { rng.mutate(&query, 0.2, 20) } else { rng.codes(1 + k * 3, 20) }).collect();
    let want: Vec<_> = subjects.iter().map(|s| score(&query, s, &sc)).collect();
    for info in devices() {
        let dir = fresh_dir("scan", &info);
        for round in 0..2 {
            let dev = ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap();
            for variant in [Variant::Plain, Variant::Team] {
                let got = scan_once(&dev, variant, &query, &subjects, &sc).unwrap();
                assert_eq!(got.scores, want, "{variant}, round {round}, on {}", info.label());
            }
            let s = dev.program_stats();
            if round == 0 {
                assert!(s.built_from_source > 0 && s.loaded_from_disk == 0, "{s:?}");
                assert_eq!(files(&dir).len(), s.built_from_source);
            } else {
                assert!(s.built_from_source == 0 && s.loaded_from_disk > 0, "{s:?}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_damaged_entry_is_rebuilt_and_rewritten() {
    for info in devices() {
        let dir = fresh_dir("damaged", &info);
        run_put(&ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap(), &PUT, 7);
        let entry = files(&dir).pop().unwrap();
        let whole = std::fs::read(&entry).unwrap();
        let mut flipped_last = whole.clone();
        *flipped_last.last_mut().unwrap() ^= 1;
        let mut flipped_middle = whole.clone();
        flipped_middle[whole.len() / 2] ^= 0x40;
        let mut other_key = whole.clone();
        let at = whole.windows(5).position(|w| w == b"VALUE").unwrap();
        other_key[at] = b'W';
        let damages: Vec<(&str, Vec<u8>)> = vec![
            ("empty", Vec::new()),
            ("truncated to half", whole[..whole.len() / 2].to_vec()),
            ("one byte short", whole[..whole.len() - 1].to_vec()),
            ("last byte flipped", flipped_last),
            ("middle byte flipped", flipped_middle),
            ("another key", other_key),
            ("garbage", vec![0xA5; whole.len()]),
        ];
        for (what, bytes) in damages {
            std::fs::write(&entry, &bytes).unwrap();
            let dev = ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap();
            run_put(&dev, &PUT, 7);
            assert_eq!(dev.program_stats(), stats(1, 0), "{what}");
            assert_eq!(files(&dir), vec![entry.clone()], "{what}: the entry is replaced, no temporary is left");
            // The rewritten entry is whole: the next device loads it.
            let next = ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap();
            run_put(&next, &PUT, 7);
            assert_eq!(next.program_stats(), stats(0, 1), "{what}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn options_and_source_each_get_their_own_entry() {
    for info in devices() {
        let dir = fresh_dir("keys", &info);
        let dev = ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap();
        run_put(&dev, &PUT, 1);
        run_put(&dev, &PUT, 2);
        assert_eq!(files(&dir).len(), 2, "another -D value is another entry");
        // Same name, other text: the in-memory cache is keyed by name and options, so
        // it takes a device of its own; on disk it is a third entry.
        let other = ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap();
        run_put(&other, &PUT_TWICE, 1);
        assert_eq!(other.program_stats(), stats(1, 0));
        assert_eq!(files(&dir).len(), 3, "other source text is another entry");
        let later = ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap();
        run_put(&later, &PUT, 1);
        run_put(&later, &PUT, 2);
        assert_eq!(later.program_stats(), stats(0, 2));
        let last = ClDevice::with_cache(info.clone(), ProgramCache::at(&dir)).unwrap();
        run_put(&last, &PUT_TWICE, 1);
        assert_eq!(last.program_stats(), stats(0, 1));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn off_writes_nothing() {
    for info in devices() {
        let dir = fresh_dir("off", &info);
        assert!(!ProgramCache::off().enabled());
        for _ in 0..2 {
            let dev = ClDevice::with_cache(info.clone(), ProgramCache::off()).unwrap();
            run_put(&dev, &PUT, 3);
            assert_eq!(dev.program_stats(), stats(1, 0));
        }
        assert_eq!(files(&dir), Vec::<PathBuf>::new());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn an_unusable_folder_never_fails_a_build() {
    for info in devices() {
        let dir = fresh_dir("unusable", &info);
        // A file where the folder should be: the entry can be neither read nor written.
        let not_a_dir = dir.join("file");
        std::fs::write(&not_a_dir, b"not a folder").unwrap();
        for _ in 0..2 {
            let dev = ClDevice::with_cache(info.clone(), ProgramCache::at(&not_a_dir)).unwrap();
            run_put(&dev, &PUT, 9);
            assert_eq!(dev.program_stats(), stats(1, 0));
        }
        assert_eq!(all_files(&dir), vec![not_a_dir]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Set in a child process of [`the_environment_picks_the_folder`] to the label of the
/// device the child should open with [`ClDevice::new`], which reads the environment.
const CHILD: &str = "CLSW_PROGRAM_CACHE_TEST_CHILD";

/// The child's half of [`the_environment_picks_the_folder`]; does nothing in a normal run.
///
/// The child takes the first device it lists when the parent's is missing: the ICD
/// loader on some machines (seen with `OCL_ICD_FILENAMES=libpocl.so.2:libnvidia-opencl.so.1`)
/// cuts that variable at its first `:` in the environment of a process that used OpenCL,
/// so a child of this test process may see only the first platform. The folder rules
/// are the same on every device.
#[test]
fn child_builds_one_program_with_the_environments_cache() {
    let Ok(label) = std::env::var(CHILD) else { return };
    let mut all = clsw::device::list_devices().unwrap();
    assert!(!all.is_empty(), "the child lists no OpenCL device");
    let pick = all.iter().position(|d| d.label() == label).unwrap_or(0);
    let dev = ClDevice::new(all.swap_remove(pick)).unwrap();
    run_put(&dev, &PUT, 5);
    let s = dev.program_stats();
    println!("stats: built {} loaded {}", s.built_from_source, s.loaded_from_disk);
}

/// Runs the child test with `env` (and everything cache-related cleared first);
/// returns (built from source, loaded from disk).
fn child(info: &DeviceInfo, dir: &Path, env: &[(&str, &Path)]) -> (usize, usize) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_builds_one_program_with_the_environments_cache", "--nocapture", "--test-threads=1"]);
    for var in ["CLSW_CACHE_DIR", "XDG_CACHE_HOME", "HOME", "LOCALAPPDATA", "CLSW_DUMP_DIR", "CLSW_CL_OPTIONS"] {
        cmd.env_remove(var);
    }
    // In the test's folder, where a relative XDG_CACHE_HOME lands for runtimes that
    // take it (PoCL's kernel cache does).
    cmd.current_dir(dir).env(CHILD, info.label()).envs(env.iter().map(|(k, v)| (k, v.as_os_str())));
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child with {env:?}:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("stats: built ").map(|(_, rest)| rest))
        .expect("the child's stats line");
    let (built, loaded) = line.split_once(" loaded ").unwrap();
    (built.parse().unwrap(), loaded.parse().unwrap())
}

#[test]
fn the_environment_picks_the_folder() {
    // Once, on the first device: the rules do not depend on the device.
    for info in devices().into_iter().take(1) {
        let dir = fresh_dir("env", &info);
        let home = dir.join("home");
        let xdg = dir.join("xdg");
        let explicit = dir.join("explicit");
        let off = Path::new("off");
        let empty = Path::new("");

        // `off` wins over XDG_CACHE_HOME and HOME: nothing is written anywhere.
        assert_eq!(child(&info, &dir, &[("CLSW_CACHE_DIR", off), ("XDG_CACHE_HOME", &xdg), ("HOME", &home)]), (1, 0));
        assert_eq!(files(&dir), Vec::<PathBuf>::new());

        // CLSW_CACHE_DIR names the folder; the second process loads what the first wrote.
        let env = [("CLSW_CACHE_DIR", explicit.as_path()), ("XDG_CACHE_HOME", &xdg), ("HOME", &home)];
        assert_eq!(child(&info, &dir, &env), (1, 0));
        assert_eq!(child(&info, &dir, &env), (0, 1));
        assert_eq!(files(&dir).len(), 1);
        assert!(files(&dir)[0].starts_with(explicit.join("programs")));

        // With CLSW_DUMP_DIR the program is built from source (for its build log) and dumped.
        let dump = dir.join("dump");
        assert_eq!(child(&info, &dir, &[env[0], ("CLSW_DUMP_DIR", &dump)]), (1, 0));
        let dumped = all_files(&dump);
        assert!(dumped.iter().any(|p| p.extension().is_some_and(|e| e == "bin")), "{dumped:?}");
        assert!(dumped.iter().any(|p| p.extension().is_some_and(|e| e == "log")), "{dumped:?}");

        // Unset or empty: XDG_CACHE_HOME/clsw when absolute, else the user cache folder.
        assert_eq!(child(&info, &dir, &[("CLSW_CACHE_DIR", empty), ("XDG_CACHE_HOME", &xdg), ("HOME", &home)]), (1, 0));
        assert_eq!(files(&xdg.join("clsw/programs")).len(), 1);
        if cfg!(unix) && !cfg!(target_os = "macos") {
            assert_eq!(child(&info, &dir, &[("XDG_CACHE_HOME", Path::new("relative")), ("HOME", &home)]), (1, 0));
            assert_eq!(files(&home.join(".cache/clsw/programs")).len(), 1);
            assert_eq!(files(&dir.join("relative")), Vec::<PathBuf>::new());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Helpers for tests that drive the C ABI: compile a C program against the header and
//! the libclsw.so of this test run, and read the thread's last error.
#![allow(dead_code)]

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where cargo left libclsw.so for this test run.
pub fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    [deps.clone(), deps.parent().unwrap().to_path_buf()]
        .into_iter()
        .find(|d| d.join("libclsw.so").is_file())
        .expect("libclsw.so is not next to the test executable; `cargo test` builds it (dev-dependency clsw-capi); by hand: `cargo build --release -p clsw-capi`")
}

/// Where cargo left libclsw.so and libclsw.a for this test run.
pub fn artifacts() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let deps = exe.parent().expect("deps folder").to_path_buf();
    let candidates = [deps.clone(), deps.parent().map(Path::to_path_buf).unwrap_or_default()];
    for d in &candidates {
        if d.join("libclsw.so").is_file() && d.join("libclsw.a").is_file() {
            return d.clone();
        }
    }
    panic!(
        "libclsw.so and libclsw.a are not in {candidates:?}; `cargo test` builds them (dev-dependency clsw-capi); by hand: `cargo build --release -p clsw-capi`"
    );
}

/// Installs this test run's library into `prefix` with `scripts/install.sh`, as a user
/// would (the shared and static libraries, the header, clsw.pc).
pub fn install_library(prefix: &Path) {
    let out = Command::new("bash")
        .arg(repository_root().join("scripts/install.sh"))
        .args(["--no-build", "--from"])
        .arg(artifacts())
        .arg(prefix)
        .output()
        .expect("running scripts/install.sh");
    assert!(
        out.status.success(),
        "scripts/install.sh failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Writes `program` to `dir/name.c` and compiles it with warnings as errors against
/// include/clsw.h and libclsw.so; returns the executable.
pub fn compile_c(dir: &Path, name: &str, program: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, program).unwrap();
    compile(dir, name, &src, false)
}

/// Compiles a C++17 example of bindings/cpp (`file`, e.g. "psse.cpp") against clsw.hpp,
/// include/clsw.h and libclsw.so; returns the executable.
pub fn compile_cpp_example(dir: &Path, file: &str) -> PathBuf {
    let src = repository_root().join("bindings/cpp").join(file);
    compile(dir, file.trim_end_matches(".cpp"), &src, true)
}

/// What the C++ example `file` of bindings/cpp prints on the native path, built in
/// its own folder of the test run's temporary directory.
pub fn cpp_example_output(file: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cpp-{}", file.trim_end_matches(".cpp")));
    std::fs::create_dir_all(&dir).unwrap();
    run_native(&compile_cpp_example(&dir, file))
}

/// Runs an example on the native path (`CLSW_DEVICE=reference`); its stdout.
pub fn run_native(bin: &Path) -> String {
    let out = Command::new(bin).env("CLSW_DEVICE", "reference").output().unwrap();
    assert!(out.status.success(), "{}: {}", bin.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Compares tab-separated lines field by field; fields that are numbers on both sides
/// must be the same double bit for bit (C's `%.17g` and Rust's `{}` print them differently).
pub fn assert_same_lines(got: &str, want: &str) {
    let want: Vec<&str> = want.lines().collect();
    assert_same_fields("", got, &want, &['\t', '/'], |_| false);
}

/// Compares the lines of `got` with `want` field by field, fields split at any of
/// `separators`: fields that are numbers on both sides must be the same double bit for
/// bit (C's `%.17g` and Rust's `{}` or `{:?}` print them differently); a line for which
/// `verbatim` holds must be the same text. `context` (a device) starts every message.
pub fn assert_same_fields<S: AsRef<str>>(
    context: &str,
    got: &str,
    want: &[S],
    separators: &[char],
    verbatim: impl Fn(&str) -> bool,
) {
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), want.len(), "{context}:\n{got}");
    for (g, w) in lines.iter().zip(want) {
        let w = w.as_ref();
        if verbatim(g) {
            assert_eq!(*g, w, "{context}");
            continue;
        }
        let (gf, wf): (Vec<&str>, Vec<&str>) = (g.split(separators).collect(), w.split(separators).collect());
        assert_eq!(gf.len(), wf.len(), "{context}: {g} vs {w}");
        for (x, y) in gf.iter().zip(&wf) {
            match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(p), Ok(q)) => assert!(p.to_bits() == q.to_bits(), "{context}: {g} vs {w}"),
                _ => assert_eq!(x, y, "{context}: {g} vs {w}"),
            }
        }
    }
}

/// The repository root: the current directory when it holds the header (test
/// executables copied to another machine run from there), else the source tree.
fn repository_root() -> PathBuf {
    if Path::new("include/clsw.h").is_file() {
        std::env::current_dir().unwrap()
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }
}

fn compile(dir: &Path, name: &str, src: &Path, cpp: bool) -> PathBuf {
    let (compiler, standard) = if cpp { ("c++", "-std=c++17") } else { ("cc", "-std=c11") };
    compile_with(compiler, standard, dir, name, src)
}

/// Compiles `src` with `compiler` (e.g. `mpicc`) in `standard` against include/clsw.h,
/// bindings/cpp and libclsw.so, warnings as errors; returns the executable `dir/name`.
pub fn compile_with(compiler: &str, standard: &str, dir: &Path, name: &str, src: &Path) -> PathBuf {
    let bin = dir.join(name);
    // The library's soname is libclsw.so.<major>: link through a folder that has both names.
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    for link in ["libclsw.so".to_string(), format!("libclsw.so.{}", env!("CARGO_PKG_VERSION_MAJOR"))] {
        let _ = std::fs::remove_file(lib.join(&link));
        std::os::unix::fs::symlink(library_dir().join("libclsw.so"), lib.join(&link)).unwrap();
    }
    let root = repository_root();
    let out = Command::new(compiler)
        .arg(standard)
        .args(["-O1", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root.join("include").display()))
        .arg(format!("-I{}", root.join("bindings/cpp").display()))
        .arg(src)
        .arg("-o")
        .arg(&bin)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lclsw")
        .output()
        .unwrap_or_else(|e| panic!("running {compiler}: {e}"));
    assert!(out.status.success(), "compiling {} failed:\n{}", src.display(), String::from_utf8_lossy(&out.stderr));
    bin
}

/// This thread's `clsw_last_error()`.
pub fn last_error() -> String {
    // SAFETY: clsw_last_error never returns NULL; its string stays valid until the next
    // clsw call on this thread, after the copy.
    unsafe { CStr::from_ptr(clsw::capi::clsw_last_error()) }.to_string_lossy().into_owned()
}

/// Asserts that a call returned `want` and that its last error mentions `needed`
/// (the message is shown when it does not).
#[track_caller]
pub fn assert_fails(got: clsw::capi::clsw_status, want: clsw::capi::clsw_status, needed: &str) {
    let message = last_error();
    assert!(got == want && message.contains(needed), "{message}");
}

/// An engine on the native path and a scoring for the C ABI contract tests; freed on drop.
pub struct Handles {
    pub engine: *mut clsw::capi::engine::clsw_engine,
    pub scoring: *mut clsw::capi::scoring::clsw_scoring,
}

impl Handles {
    /// The native engine and a built-in matrix with gaps `open`/`extend`.
    pub fn builtin(matrix: &std::ffi::CStr, open: i32, extend: i32) -> Handles {
        // SAFETY: `matrix` is a NUL-terminated CStr; `out` is `with`'s local.
        Handles::with(|out| unsafe {
            clsw::capi::scoring::clsw_scoring_new_builtin(matrix.as_ptr(), open, extend, out)
        })
    }

    /// The native engine and the DNA match/mismatch scoring `+1/-1`, linear gaps of 1 (the sw3 seed's).
    pub fn dna_seed() -> Handles {
        // SAFETY: `out` is `with`'s local.
        Handles::with(|out| unsafe {
            clsw::capi::scoring::clsw_scoring_new_match_mismatch(clsw::capi::CLSW_ALPHABET_DNA, 1, -1, 0, 1, out)
        })
    }

    fn with(scoring: impl FnOnce(*mut *mut clsw::capi::scoring::clsw_scoring) -> clsw::capi::clsw_status) -> Handles {
        let (mut engine, mut sc) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: a NUL-terminated literal and a local output.
        let st = unsafe { clsw::capi::engine::clsw_engine_new(c"reference".as_ptr(), &mut engine) };
        assert_eq!(st, clsw::capi::CLSW_OK, "{}", last_error());
        assert_eq!(scoring(&mut sc), clsw::capi::CLSW_OK, "{}", last_error());
        Handles { engine, scoring: sc }
    }
}

impl Drop for Handles {
    fn drop(&mut self) {
        // SAFETY: the scoring comes from its constructor (or is NULL) and is freed once, here.
        unsafe { clsw::capi::scoring::clsw_scoring_free(self.scoring) };
        // SAFETY: as for the scoring.
        unsafe { clsw::capi::engine::clsw_engine_free(self.engine) };
    }
}

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
        .expect("libclsw.so is not next to the test executable; build it with `cargo build --release --lib`")
}

/// Writes `program` to `dir/name.c` and compiles it with warnings as errors against
/// include/clsw.h and libclsw.so; returns the executable.
pub fn compile_c(dir: &Path, name: &str, program: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, program).unwrap();
    let bin = dir.join(name);
    // The library's soname is libclsw.so.<major>: link through a folder that has both names.
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    for link in ["libclsw.so".to_string(), format!("libclsw.so.{}", env!("CARGO_PKG_VERSION_MAJOR"))] {
        let _ = std::fs::remove_file(lib.join(&link));
        std::os::unix::fs::symlink(library_dir().join("libclsw.so"), lib.join(&link)).unwrap();
    }
    // The repository root: the current directory when it holds the header (test
    // executables copied to another machine run from there), else the source tree.
    let root = if Path::new("include/clsw.h").is_file() {
        std::env::current_dir().unwrap()
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    };
    let out = Command::new("cc")
        .args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root.join("include").display()))
        .arg(&src)
        .arg("-o")
        .arg(&bin)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lclsw")
        .output()
        .expect("running cc");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    bin
}

/// This thread's `clsw_last_error()`.
pub fn last_error() -> String {
    unsafe { CStr::from_ptr(clsw::capi::clsw_last_error()) }.to_string_lossy().into_owned()
}

//! Runs the Python bindings' tests (bindings/python/tests, pytest) against the library
//! cargo built for this test run, so that `cargo test` (and CI) runs them.
//!
//! Needs python3 with numpy and pytest (`.ci/run` installs them with pip). Without them
//! the test is skipped loudly, unless `CLSW_REQUIRE_PYTHON=1` (set by `.ci/run`), where
//! it fails.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    [deps.clone(), deps.parent().unwrap().to_path_buf()]
        .into_iter()
        .map(|d| d.join("libclsw.so"))
        .find(|p| p.is_file())
        .expect("libclsw.so is not next to the test executable; `cargo test` builds it (dev-dependency clsw-capi); by hand: `cargo build --release -p clsw-capi`")
}

#[test]
fn python_bindings_pass_their_pytest_suite() {
    let required = std::env::var("CLSW_REQUIRE_PYTHON").as_deref() == Ok("1");
    let probe = Command::new("python3").args(["-c", "import numpy, pytest"]).output();
    match probe {
        Ok(o) if o.status.success() => {}
        other => {
            let why = match other {
                // Python's last line says what is missing (the traceback before it does not).
                Ok(o) => String::from_utf8_lossy(&o.stderr).trim().lines().last().unwrap_or("").to_string(),
                Err(e) => e.to_string(),
            };
            assert!(!required, "CLSW_REQUIRE_PYTHON=1 but python3 with numpy and pytest is missing: {why}");
            common::skipped(&format!(
                "python3 with numpy and pytest is missing ({}); pip install numpy pytest",
                why.trim()
            ));
            return;
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "bindings/python/tests"])
        .current_dir(&root)
        .env("CLSW_LIB", library())
        .env("CLSW_BIN", env!("CARGO_BIN_EXE_clsw"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("running python3 -m pytest");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{text}");
    assert!(out.status.success(), "the Python bindings' tests failed:\n{text}");
    assert!(text.contains(" passed"), "pytest ran no test:\n{text}");
}

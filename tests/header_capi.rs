//! The committed C header is what cbindgen makes of src/capi today, and the README
//! shows the C program that the C tests compile.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs tools/header-gen (cbindgen as a library, in a package of its own so that its
/// dependencies do not change clsw's) with `--check`, or `--write` under `CLSW_BLESS=1`.
#[test]
fn committed_header_matches_the_rust_source() {
    let mode = if std::env::var("CLSW_BLESS").as_deref() == Ok("1") { "--write" } else { "--check" };
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("header-gen");
    let out = std::process::Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(root().join("tools/header-gen/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .args(["--", mode, "--root"])
        .arg(root())
        .output()
        .expect("running cargo for tools/header-gen");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{text}");
    assert!(
        out.status.success(),
        "include/clsw.h is not what cbindgen generates from src/capi:\n{text}\nRegenerate it with: \
         CLSW_BLESS=1 cargo test --release --test header_capi"
    );
}

#[test]
fn header_has_guard_cpp_linkage_versions_and_thread_safety() {
    let h = std::fs::read_to_string(root().join("include/clsw.h")).unwrap();
    for needle in [
        "#ifndef CLSW_H",
        "#define CLSW_H",
        "extern \"C\" {",
        "THREAD SAFETY",
        "typedef struct clsw_engine clsw_engine;",
        "typedef enum clsw_status {",
        "CLSW_OK = 0,",
        "const char *clsw_last_error(void);",
        "#define CLSW_GAPS_DEFAULT (-1)",
        "typedef struct clsw_distance_result clsw_distances;",
        "CLSW_DEPRECATED(\"use clsw_distance_result_free\")",
    ] {
        assert!(h.contains(needle), "include/clsw.h lacks {needle:?}");
    }
    let version = env!("CARGO_PKG_VERSION");
    let parts: Vec<&str> = version.split('.').collect();
    for (name, value) in ["MAJOR", "MINOR", "PATCH"].iter().zip(&parts) {
        let line = format!("#define CLSW_VERSION_{name} {value}");
        assert!(h.contains(&line), "include/clsw.h lacks {line:?}");
    }
    // Every exported function is declared with a comment above it.
    let lines: Vec<&str> = h.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.contains(" clsw_") && l.contains('(') && !l.trim_start().starts_with('*') && i > 0 {
            if l.starts_with("CLSW_DEPRECATED(") {
                continue;
            }
            // A deprecated alias has its attribute between the comment and the declaration.
            let above = if lines[i - 1].starts_with("CLSW_DEPRECATED(") && i > 1 { i - 2 } else { i - 1 };
            let prev = lines[above].trim();
            assert!(prev.ends_with("*/"), "function without documentation at line {}: {l}", i + 1);
        }
    }
}

#[test]
fn readme_shows_the_ten_line_c_program_verbatim() {
    let program = std::fs::read_to_string(root().join("bindings/c/hello.c")).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("```c\n{program}```")),
        "README.md must show bindings/c/hello.c verbatim in a ```c block (the program the C tests compile)"
    );
    let code_lines = program.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(code_lines <= 14, "bindings/c/hello.c should stay about ten lines (has {code_lines})");
}

//! Generates clsw's C header from `src/capi` with cbindgen and `cbindgen.toml`.
//!
//! `--check`: exit 1 (printing the first difference) when `include/clsw.h` is not what
//! cbindgen generates now; `--write`: rewrite `include/clsw.h`; no option: print the
//! header on standard output. The repository root is two folders up from this crate,
//! or the folder given with `--root DIR`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut mode = "print";
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--check" => mode = "check",
            "--write" => mode = "write",
            "--root" if i + 1 < args.len() => {
                root = PathBuf::from(&args[i + 1]);
                i += 1;
            }
            other => {
                eprintln!("clsw-header-gen: unknown argument {other}; use --check, --write or --root DIR");
                return ExitCode::from(2);
            }
        }
        i += 1;
    }
    let config = match cbindgen::Config::from_file(root.join("cbindgen.toml")) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("clsw-header-gen: {}: {e}", root.join("cbindgen.toml").display());
            return ExitCode::from(2);
        }
    };
    let bindings = match cbindgen::Builder::new().with_config(config).with_src(root.join("src/capi/mod.rs")).generate()
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("clsw-header-gen: cbindgen failed: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = Vec::new();
    bindings.write(&mut out);
    let fresh = String::from_utf8(out).expect("the header is UTF-8");
    let path = root.join("include/clsw.h");
    match mode {
        "write" => {
            if let Err(e) = std::fs::create_dir_all(root.join("include")).and_then(|_| std::fs::write(&path, &fresh)) {
                eprintln!("clsw-header-gen: {}: {e}", path.display());
                return ExitCode::from(2);
            }
            eprintln!("wrote {}", path.display());
        }
        "check" => {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            if committed != fresh {
                let line = committed
                    .lines()
                    .zip(fresh.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or_else(|| committed.lines().count().min(fresh.lines().count()));
                eprintln!(
                    "{} differs from the header generated from src/capi, first at line {}:\n  committed: {:?}\n  \
                     generated: {:?}",
                    path.display(),
                    line + 1,
                    committed.lines().nth(line).unwrap_or("<end of file>"),
                    fresh.lines().nth(line).unwrap_or("<end of file>")
                );
                return ExitCode::from(1);
            }
            println!("{} is up to date", path.display());
        }
        _ => print!("{fresh}"),
    }
    ExitCode::SUCCESS
}

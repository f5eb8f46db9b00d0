//! The C ABI tested from C and C++: the library is installed into a temporary prefix
//! with `scripts/install.sh` (shared library with its soname links, static library,
//! headers, pkg-config file), the examples in `bindings/c` and `bindings/cpp` and the
//! test programs in `tests/capi` are compiled with the system compiler against it
//! (shared and static), run, and their output compared with the Rust API's.
//!
//! `cargo test` leaves the cdylib and staticlib it builds for the tests in the test
//! executables' folder (`target/<profile>/deps`), so they are always as fresh as the
//! tests; `cargo build` also copies them to `target/<profile>`.
//!
//! Sanitizers: the search example runs under AddressSanitizer with leak detection on
//! the native CPU path (`CLSW_DEVICE=reference`: OpenCL drivers such as PoCL keep
//! allocations until exit that LeakSanitizer would report as theirs, not clsw's), and
//! the alignment example under valgrind's memcheck. The misuse checks
//! (`tests/capi/misuse.c`) run plain and under AddressSanitizer; their `out_of_memory`
//! check injects allocation failure (an address-space limit, or AddressSanitizer's
//! allocator refusing large blocks) and expects a status from every call.
//!
//! Over 600 lines: one entry point, every C ABI contract of the search in one place.

mod common;

use clsw::device::{DeviceChoice, list_devices};
use clsw::output::tabular_line;
use clsw::reference;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::search::{SearchOptions, Searcher};
use clsw::seq::{Alphabet, Database, EmptyRecords, Sequence, fasta};
use clsw::{Engine, Error};
use common::data_dir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Installed {
    prefix: PathBuf,
    scratch: PathBuf,
    /// `pkg-config --cflags --libs clsw`, split.
    flags: Vec<String>,
    /// What a program linking libclsw.a also needs (clsw.pc's Libs.private).
    static_libs: Vec<String>,
}

fn run_ok(cmd: &mut Command, what: &str) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn pkg_config(prefix: &Path, args: &[&str]) -> String {
    let out = run_ok(
        Command::new("pkg-config").args(args).arg("clsw").env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig")),
        "pkg-config",
    );
    text(&out).trim().to_string()
}

/// Installs the library once per test process, as a user would.
fn installed() -> &'static Installed {
    static INSTALLED: OnceLock<Installed> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("capi-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (prefix, scratch) = (base.join("prefix"), base.join("scratch"));
        std::fs::create_dir_all(&scratch).unwrap();
        common::capi::install_library(&prefix);
        let flags = pkg_config(&prefix, &["--cflags", "--libs"]).split_whitespace().map(String::from).collect();
        let static_libs = pkg_config(&prefix, &["--static", "--libs-only-l"])
            .split_whitespace()
            .filter(|l| *l != "-lclsw")
            .map(String::from)
            .collect();
        Installed { prefix, scratch, flags, static_libs }
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Link {
    Shared,
    Static,
}

/// Compiles C (`.c`) or C++ (`.cpp`) sources against the installed library.
fn compile(name: &str, sources: &[PathBuf], link: Link, extra: &[&str]) -> PathBuf {
    let inst = installed();
    let out = inst.scratch.join(name);
    let cpp = sources.iter().any(|s| s.extension().is_some_and(|e| e == "cpp"));
    let mut cmd = Command::new(if cpp { "c++" } else { "cc" });
    cmd.args(if cpp { ["-std=c++17"] } else { ["-std=c11"] }).args(["-O1", "-Wall", "-Wextra", "-Werror"]);
    cmd.args(extra).args(sources).arg("-o").arg(&out);
    match link {
        Link::Shared => {
            cmd.args(&inst.flags).arg(format!("-Wl,-rpath,{}", inst.prefix.join("lib").display()));
        }
        Link::Static => {
            cmd.arg(format!("-I{}", inst.prefix.join("include").display()))
                .arg(inst.prefix.join("lib/libclsw.a"))
                .args(&inst.static_libs);
        }
    }
    run_ok(&mut cmd, &format!("compiling {name}"));
    out
}

fn example(path: &str) -> PathBuf {
    root().join(path)
}

/// Runs a compiled program with CLSW_DEVICE set.
fn run_program(bin: &Path, args: &[&Path], device: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args(args).env("CLSW_DEVICE", device);
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_ok(&mut cmd, &bin.display().to_string())
}

/// `cpu` (PoCL) when an OpenCL CPU device exists; otherwise `reference`, loudly, unless
/// `CLSW_REQUIRE_DEVICE=1`.
fn opencl_cpu_or_reference() -> &'static str {
    let have = list_devices().map(|d| d.iter().any(|d| d.kind == clsw::device::DeviceKind::Cpu)).unwrap_or(false);
    if have {
        return "cpu";
    }
    if std::env::var("CLSW_REQUIRE_DEVICE").as_deref() == Ok("1") {
        panic!("CLSW_REQUIRE_DEVICE=1 but no CPU OpenCL device was found (install pocl-opencl-icd)");
    }
    common::skipped("no CPU OpenCL device; running on the native path instead");
    "reference"
}

fn protein_scoring() -> Scoring {
    Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap())
}

fn db_path() -> PathBuf {
    data_dir().join("uniprot300.fasta")
}

fn queries_path() -> PathBuf {
    data_dir().join("queries10.fasta")
}

fn queries() -> Vec<Sequence> {
    fasta::read_file(&queries_path(), Alphabet::Protein, EmptyRecords::Error).unwrap().0
}

/// What `bindings/c/search.c` must print: the Rust API's BLAST tabular lines.
fn rust_tabular() -> String {
    let (db, _) = Database::from_fasta(&db_path(), Alphabet::Protein, EmptyRecords::Skip).unwrap();
    let engine = Engine::new(DeviceChoice::Native).unwrap();
    let options = SearchOptions { max_hits: 50, evalue: 10.0, ..SearchOptions::default() };
    let searcher = Searcher::new(&engine, &db, protein_scoring(), options).unwrap();
    let mut out = String::new();
    searcher
        .search_all(&queries(), |r| {
            for h in &r.hits {
                out.push_str(&tabular_line(&r, h, &db, false).unwrap());
                out.push('\n');
            }
            Ok::<(), Error>(())
        })
        .unwrap();
    out
}

#[test]
fn install_gives_pkg_config_soname_links_and_headers() {
    let inst = installed();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(pkg_config(&inst.prefix, &["--modversion"]), version);
    let lib = inst.prefix.join("lib");
    assert!(lib.join(format!("libclsw.so.{version}")).is_file());
    assert_eq!(std::fs::read_link(lib.join("libclsw.so.0")).unwrap(), PathBuf::from(format!("libclsw.so.{version}")));
    assert_eq!(std::fs::read_link(lib.join("libclsw.so")).unwrap(), PathBuf::from("libclsw.so.0"));
    for f in ["lib/libclsw.a", "include/clsw.h", "include/clsw.hpp", "lib/pkgconfig/clsw.pc", "bin"] {
        assert!(inst.prefix.join(f).exists(), "{f} was not installed");
    }
    assert!(inst.flags.iter().any(|f| f == "-lclsw"), "{:?}", inst.flags);
    if let Ok(out) = Command::new("readelf").arg("-d").arg(lib.join("libclsw.so")).output() {
        let dynamic = text(&out);
        assert!(dynamic.contains("Library soname: [libclsw.so.0]"), "{dynamic}");
    }
}

#[test]
fn readme_hello_program_links_with_pkg_config_and_matches_rust() {
    let bin = compile("hello", &[example("bindings/c/hello.c")], Link::Shared, &[]);
    let out = run_program(&bin, &[], "reference", &[]);
    let sc = protein_scoring();
    let enc = |s: &str| Alphabet::Protein.encode_all(s.as_bytes()).unwrap();
    let a = reference::align(&enc("HEAGAWGHEE"), &enc("PAWHEAE"), &sc).unwrap();
    let want = format!(
        "clsw {}: score {}, query {}-{}, subject {}-{}, CIGAR {}\n",
        env!("CARGO_PKG_VERSION"),
        a.score,
        a.query_start + 1,
        a.query_end + 1,
        a.subject_start + 1,
        a.subject_end + 1,
        a.cigar(true)
    );
    assert_eq!(text(&out), want);
    if let Ok(r) = Command::new("readelf").arg("-d").arg(&bin).output() {
        assert!(text(&r).contains("Shared library: [libclsw.so.0]"), "{}", text(&r));
    }
}

#[test]
fn search_example_shared_on_opencl_matches_rust_api() {
    let bin = compile("search_shared", &[example("bindings/c/search.c")], Link::Shared, &[]);
    let out = run_program(&bin, &[&db_path(), &queries_path()], opencl_cpu_or_reference(), &[]);
    let want = rust_tabular();
    assert!(want.lines().count() > 20, "too few hits to compare:\n{want}");
    assert_eq!(text(&out), want);
}

#[test]
fn search_example_static_matches_rust_api() {
    let bin = compile("search_static", &[example("bindings/c/search.c")], Link::Static, &[]);
    if let Ok(r) = Command::new("readelf").arg("-d").arg(&bin).output() {
        assert!(!text(&r).contains("libclsw"), "a static build must not need libclsw.so: {}", text(&r));
    }
    let out = run_program(&bin, &[&db_path(), &queries_path()], "reference", &[]);
    assert_eq!(text(&out), rust_tabular());
}

/// An alignment's query and subject starts and ends, 1-based as the C ABI reports them.
fn one_based(a: &clsw::align::Alignment) -> [usize; 4] {
    [a.query_start + 1, a.query_end + 1, a.subject_start + 1, a.subject_end + 1]
}

/// What `bindings/c/align.c` prints for a pair, from the Rust API.
fn rust_align_report(q: &[u8], s: &[u8], sc: &Scoring) -> String {
    let a = reference::align(q, s, sc).unwrap();
    let decode = |c: u8| Alphabet::Protein.decode(c) as char;
    let (mut top, mut mid, mut bottom) = (String::new(), String::new(), String::new());
    let (mut i, mut j) = (a.query_start, a.subject_start);
    for &(op, n) in &a.ops {
        for _ in 0..n {
            use clsw::align::Op;
            match op {
                Op::Match | Op::Mismatch => {
                    top.push(decode(q[i]));
                    bottom.push(decode(s[j]));
                    mid.push(if op == Op::Match {
                        '|'
                    } else if sc.matrix.score(q[i], s[j]) > 0 {
                        '+'
                    } else {
                        ' '
                    });
                    i += 1;
                    j += 1;
                }
                Op::Insertion => {
                    top.push(decode(q[i]));
                    bottom.push('-');
                    mid.push(' ');
                    i += 1;
                }
                Op::Deletion => {
                    top.push('-');
                    bottom.push(decode(s[j]));
                    mid.push(' ');
                    j += 1;
                }
            }
        }
    }
    let [query_start, query_end, subject_start, subject_end] = one_based(&a);
    format!(
        "score\t{}\nquery\t{query_start}\t{query_end}\nsubject\t{subject_start}\t{subject_end}\nidentity\t{}/{}\t{:.2}\ngaps\t{} opened\t{} columns\ncigar\t{}\t{}\n\n{top}\n{mid}\n{bottom}\n",
        a.score,
        a.identities,
        a.length(),
        a.percent_identity(),
        a.gap_opens,
        a.gap_columns,
        a.cigar(true),
        a.cigar(false)
    )
}

/// Two related real proteins: a query and its best hit in the database.
fn related_pair() -> (Sequence, Sequence) {
    let q = queries().into_iter().nth(2).unwrap();
    let (db, _) = Database::from_fasta(&db_path(), Alphabet::Protein, EmptyRecords::Skip).unwrap();
    let best = (0..db.len()).max_by_key(|&k| reference::score(&q.residues, db.residues(k), &protein_scoring()).score);
    (q, db.sequence(best.unwrap()))
}

fn letters(s: &Sequence) -> PathBuf {
    PathBuf::from(String::from_utf8(Alphabet::Protein.decode_all(&s.residues)).unwrap())
}

#[test]
fn align_example_shared_and_static_match_rust_api() {
    let (q, s) = related_pair();
    let want = rust_align_report(&q.residues, &s.residues, &protein_scoring());
    assert!(want.contains('-') || want.contains('X'), "pick a pair with gaps or mismatches:\n{want}");
    for link in [Link::Shared, Link::Static] {
        let name = if link == Link::Shared { "align_shared" } else { "align_static" };
        let bin = compile(name, &[example("bindings/c/align.c")], link, &[]);
        let out = run_program(&bin, &[&letters(&q), &letters(&s)], "reference", &[]);
        assert_eq!(text(&out), want, "{name}");
    }
}

/// What `bindings/cpp/example.cpp` prints, from the Rust API.
fn rust_cpp_report() -> String {
    let (db, _) = Database::from_fasta(&db_path(), Alphabet::Protein, EmptyRecords::Skip).unwrap();
    let engine = Engine::new(DeviceChoice::Native).unwrap();
    let sc = protein_scoring();
    let searcher =
        Searcher::new(&engine, &db, sc.clone(), SearchOptions { max_hits: 5, ..SearchOptions::default() }).unwrap();
    let glocal = sc.clone().in_mode(clsw::scoring::Mode::Glocal);
    let glocal =
        Searcher::new(&engine, &db, glocal, SearchOptions { max_hits: 5, ..SearchOptions::default() }).unwrap();
    let mut out = String::new();
    for q in queries() {
        let r = searcher.search(&q).unwrap();
        for h in &r.hits {
            let a = h.alignment.as_ref().unwrap();
            let [query_start, query_end, subject_start, subject_end] = one_based(a);
            out.push_str(&format!(
                "hit\t{}\t{}\t{}\t{}\t{query_start}\t{query_end}\t{subject_start}\t{subject_end}\t{}\t{}\t{}\t{}\n",
                q.id,
                h.subject,
                db.id(h.subject),
                h.score,
                a.identities,
                a.length(),
                a.cigar(true),
                c_exp6(h.evalue)
            ));
        }
        let scores: Vec<i32> = r.scores.iter().map(|s| s.score).collect();
        let sum: i64 = scores.iter().map(|&s| s as i64).sum();
        out.push_str(&format!("scores\t{}\t{}\t{sum}\t{}\n", q.id, scores.len(), scores.iter().max().unwrap()));
        if let Some(h) = glocal.search(&q).unwrap().hits.first() {
            let a = h.alignment.as_ref().unwrap();
            let line =
                format!("glocal\t{}\t{}\t{}\t{}\t{}\n", q.id, h.subject, h.score, a.query_start + 1, a.query_end + 1);
            out.push_str(&line);
        }
        if let Some(h) = r.hits.first() {
            let a = reference::align(&q.residues, db.residues(h.subject), &sc).unwrap();
            out.push_str(&format!(
                "align\t{}\t{}\t{}\t{}\t{}\n",
                q.id,
                a.score,
                a.query_start + 1,
                a.subject_start + 1,
                a.cigar(true)
            ));
        }
    }
    out.push_str("error\t2\tquery 'bad': '1' at position 4 is not a protein residue letter\n");
    out
}

/// C's `%.6e`.
fn c_exp6(x: f64) -> String {
    let s = format!("{x:.6e}");
    let (m, e) = s.split_once('e').unwrap();
    let e: i32 = e.parse().unwrap();
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

#[test]
fn cpp_example_shared_and_static_match_rust_api() {
    let want = rust_cpp_report();
    for (link, device) in [(Link::Shared, opencl_cpu_or_reference()), (Link::Static, "reference")] {
        let name = if link == Link::Shared { "cpp_shared" } else { "cpp_static" };
        let bin = compile(name, &[example("bindings/cpp/example.cpp")], link, &[]);
        let out = run_program(&bin, &[&db_path(), &queries_path()], device, &[]);
        assert_eq!(text(&out), want, "{name} on {device}");
    }
}

fn misuse_binary() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| compile("misuse", &[root().join("tests/capi/misuse.c")], Link::Shared, &[]))
}

fn misuse(check: &str) {
    let scratch = installed().scratch.join(format!("misuse-{check}"));
    std::fs::create_dir_all(&scratch).unwrap();
    let out = run_program(misuse_binary(), &[Path::new(check), &scratch], "reference", &[]);
    let t = text(&out);
    assert!(t.contains(&format!("PASSED {check}")), "{t}");
    eprintln!("{t}");
}

#[test]
fn misuse_null_handles() {
    misuse("null_handles");
}

#[test]
fn misuse_null_outputs() {
    misuse("null_outputs");
}

#[test]
fn misuse_zero_lengths() {
    misuse("zero_lengths");
}

#[test]
fn misuse_freed_then_null_handle() {
    misuse("freed_then_null");
}

#[test]
fn misuse_invalid_residues() {
    misuse("invalid_residues");
}

#[test]
fn misuse_host_codes_and_matrices() {
    misuse("host_codes");
}

#[test]
fn misuse_missing_or_malformed_file() {
    misuse("missing_file");
}

#[test]
fn misuse_impossible_options() {
    misuse("impossible_options");
}

#[test]
fn misuse_buffer_too_small() {
    misuse("buffer_too_small");
}

#[test]
fn status_strings_version_and_last_error() {
    misuse("status_and_version");
}

/// Allocation failure injected under an address-space limit: no entry point aborts.
#[test]
fn misuse_out_of_memory_is_a_status_not_an_abort() {
    misuse("out_of_memory");
}

/// True when `cc -fsanitize=address` links here; else skipped loudly (CI has it).
fn asan_available() -> bool {
    let probe = installed().scratch.join("asan_probe.c");
    std::fs::write(&probe, "int main(void) { return 0; }\n").unwrap();
    let ok = Command::new("cc")
        .args(["-fsanitize=address", "-o"])
        .arg(installed().scratch.join("asan_probe"))
        .arg(&probe)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(std::env::var("CI").is_err(), "CI must have AddressSanitizer (libasan, part of gcc)");
        common::skipped("cc -fsanitize=address does not work here");
    }
    ok
}

/// The OpenCL drivers a sanitized program may load: every ICD of the system's vendors
/// folder but Mesa's two. Clover's libMesaOpenCL throws a C++ exception while it loads,
/// which AddressSanitizer's `__cxa_throw` interceptor aborts on; rusticl keeps a
/// 72-byte allocation to the end, which LeakSanitizer reports. Both are in the drivers,
/// not in clsw. Returned as a folder for `OCL_ICD_VENDORS`.
fn sanitizer_icd_vendors() -> PathBuf {
    let dir = installed().scratch.join("asan-icd-vendors");
    std::fs::create_dir_all(&dir).unwrap();
    if let Ok(entries) = std::fs::read_dir("/etc/OpenCL/vendors") {
        for e in entries.flatten() {
            let name = e.file_name();
            if name != "mesa.icd" && name != "rusticl.icd" {
                std::fs::copy(e.path(), dir.join(&name)).unwrap();
            }
        }
    }
    dir
}

fn assert_sanitizer_clean(out: &Output, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what} failed under AddressSanitizer ({}):\n{err}", out.status);
    assert!(!err.contains("AddressSanitizer") && !err.contains("LeakSanitizer"), "{what}:\n{err}");
}

#[test]
fn search_example_is_clean_under_address_sanitizer() {
    if !asan_available() {
        return;
    }
    let flags = ["-fsanitize=address", "-fno-omit-frame-pointer", "-g"];
    let bin = compile("search_asan", &[example("bindings/c/search.c")], Link::Shared, &flags);
    // The native CPU path: an OpenCL driver's own allocations would be reported as leaks.
    let out = Command::new(&bin)
        .arg(db_path())
        .arg(queries_path())
        .env("CLSW_DEVICE", "reference")
        .env("ASAN_OPTIONS", "detect_leaks=1:exitcode=23")
        .env("OCL_ICD_VENDORS", sanitizer_icd_vendors())
        .output()
        .unwrap();
    assert_sanitizer_clean(&out, "bindings/c/search.c");
    assert_eq!(text(&out), rust_tabular());
}

#[test]
fn misuse_checks_are_clean_under_address_sanitizer() {
    if !asan_available() {
        return;
    }
    let flags = ["-fsanitize=address", "-fno-omit-frame-pointer", "-g"];
    let bin = compile("misuse_asan", &[root().join("tests/capi/misuse.c")], Link::Shared, &flags);
    for check in [
        "null_handles",
        "null_outputs",
        "zero_lengths",
        "freed_then_null",
        "invalid_residues",
        "host_codes",
        "missing_file",
        "impossible_options",
        "buffer_too_small",
        "status_and_version",
        "out_of_memory",
    ] {
        let scratch = installed().scratch.join(format!("asan-{check}"));
        std::fs::create_dir_all(&scratch).unwrap();
        // Allocation failure under AddressSanitizer: its allocator refuses more than 1 GiB
        // at once (an address-space limit cannot apply to its shadow memory).
        let options = "detect_leaks=1:exitcode=23:allocator_may_return_null=1:max_allocation_size_mb=1024";
        let out = Command::new(&bin)
            .arg(check)
            .arg(&scratch)
            .env("CLSW_DEVICE", "reference")
            .env("CLSW_MISUSE_ASAN", "1")
            .env("ASAN_OPTIONS", options)
            .env("OCL_ICD_VENDORS", sanitizer_icd_vendors())
            .output()
            .unwrap();
        if check == "out_of_memory" {
            // The refused allocation is reported as a warning, which is the injection
            // working; anything else AddressSanitizer says is a finding.
            let refused = "WARNING: AddressSanitizer failed to allocate";
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(refused), "no allocation was refused:\n{err}");
            let rest: String = err.lines().filter(|l| !l.contains(refused)).collect::<Vec<_>>().join("\n");
            assert_sanitizer_clean(&Output { stderr: rest.into_bytes(), ..out }, check);
        } else {
            assert_sanitizer_clean(&out, check);
        }
    }
}

#[test]
fn align_example_is_clean_under_valgrind() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        assert!(std::env::var("CI").is_err(), "CI must have valgrind");
        common::skipped("valgrind is not installed");
        return;
    }
    let (q, s) = related_pair();
    let bin = compile("align_valgrind", &[example("bindings/c/align.c")], Link::Shared, &["-g"]);
    let out = Command::new("valgrind")
        .args(["--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q"])
        .arg(&bin)
        .arg(letters(&q))
        .arg(letters(&s))
        .env("CLSW_DEVICE", "reference")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "valgrind reports errors ({}):\n{err}", out.status);
    assert_eq!(text(&out), rust_align_report(&q.residues, &s.residues, &protein_scoring()));
}

fn stress(device: &str, queries: &str) {
    let name = format!("stress_{device}");
    let bin = compile(&name, &[root().join("tests/capi/stress.c")], Link::Shared, &["-pthread"]);
    let out = run_program(&bin, &[&db_path(), &queries_path(), Path::new("8"), Path::new(queries)], device, &[]);
    let t = text(&out);
    let last = t.lines().last().unwrap_or("");
    assert!(last.starts_with("identical: ") && last.ends_with(" from 8 threads"), "{t}");
    eprintln!("{device}: {last}");
}

#[test]
fn eight_threads_on_one_engine_match_one_thread_native() {
    stress("reference", "10");
}

#[test]
fn eight_threads_on_one_engine_match_one_thread_opencl() {
    let device = opencl_cpu_or_reference();
    if device != "cpu" {
        return;
    }
    stress(device, "4");
}

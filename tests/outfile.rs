//! Outputs are written atomically and never over an input (`src/outfile.rs`), through
//! the C ABI (`clsw_db_write_prepared`) and the command line (scan, makedb, distance):
//! concurrent writers of one path, a symlink planted where the old writer put its
//! temporary, a run that fails halfway (a full disk), and an output that is an input.

mod common;

use clsw::capi::db::{
    clsw_db, clsw_db_count, clsw_db_free, clsw_db_new_prepared, clsw_db_new_sequences, clsw_db_write_prepared,
};
use clsw::capi::{CLSW_ALPHABET_PROTEIN, CLSW_OK};
use common::capi::last_error;
use common::cli::{clsw, s, scratch, scratch_dir};
use common::data_dir;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh folder under this test's scratch folder.
fn folder(name: &str) -> PathBuf {
    let dir = scratch_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Files a writer may have left behind in `dir` (temporaries of either naming).
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect()
}

/// A database of three protein sequences, through the C ABI.
fn small_db() -> *mut clsw_db {
    let seqs: [&[u8]; 3] = [b"MKVLAAGIW", b"WWHHKKLLPPA", b"ACDEFGHIKLMNPQRSTVWY"];
    let names = [c"a first", c"b", c"c third"];
    let ptrs: Vec<*const u8> = seqs.iter().map(|s| s.as_ptr()).collect();
    let lens: Vec<usize> = seqs.iter().map(|s| s.len()).collect();
    let name_ptrs: Vec<_> = names.iter().map(|n| n.as_ptr()).collect();
    let mut db = std::ptr::null_mut();
    // SAFETY: `ptrs`, `lens` and `name_ptrs` hold 3 entries each, pointing into live
    // byte strings and NUL-terminated names; `db` is a local output.
    let st = unsafe {
        clsw_db_new_sequences(CLSW_ALPHABET_PROTEIN, 3, ptrs.as_ptr(), lens.as_ptr(), name_ptrs.as_ptr(), &mut db)
    };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    db
}

fn c_path(p: &Path) -> CString {
    CString::new(s(p)).unwrap()
}

/// The number of sequences of the prepared database at `path`, opened through the C ABI.
fn prepared_count(path: &Path) -> usize {
    let mut db = std::ptr::null_mut();
    // SAFETY: the CString lives until the end of the statement; `db` is a local output.
    let st = unsafe { clsw_db_new_prepared(c_path(path).as_ptr(), &mut db) };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    let mut n = 0;
    // SAFETY: `db` was just opened; `n` is a local output.
    let st = unsafe { clsw_db_count(db, &mut n) };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    // SAFETY: `db` is freed once, here.
    unsafe { clsw_db_free(db) };
    n
}

#[test]
fn concurrent_writers_of_one_prepared_path_all_succeed() {
    let dir = folder("concurrent");
    let path = dir.join("db.clswdb");
    let db = small_db() as usize;
    for round in 0..5 {
        let statuses: Vec<(clsw::capi::clsw_status, String)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..32)
                .map(|_| {
                    scope.spawn(|| {
                        // SAFETY: the database lives until after the scope (freed below) and
                        // is only read; the CString lives until the end of the statement.
                        let st = unsafe { clsw_db_write_prepared(db as *const clsw_db, c_path(&path).as_ptr()) };
                        (st, last_error())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (st, message) in &statuses {
            assert_eq!(*st, CLSW_OK, "round {round}: {message}");
        }
        assert_eq!(prepared_count(&path), 3, "round {round}: the file left behind is whole");
        assert!(temporaries(&dir).is_empty(), "round {round}: {:?}", temporaries(&dir));
    }
    // SAFETY: every thread using `db` has been joined; it is freed once, here.
    unsafe { clsw_db_free(db as *mut clsw_db) };
}

#[test]
fn a_symlink_at_the_old_temporary_name_is_not_followed() {
    let dir = folder("symlink");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    let path = dir.join("db.clswdb");
    // The old writer's temporary was `<path>.tmp<pid>`, opened with File::create.
    let planted = dir.join(format!("db.clswdb.tmp{}", std::process::id()));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let db = small_db();
    // SAFETY: `db` is live; the CString lives until the end of the statement.
    let st = unsafe { clsw_db_write_prepared(db, c_path(&path).as_ptr()) };
    assert_eq!(st, CLSW_OK, "{}", last_error());
    // SAFETY: `db` is freed once, here.
    unsafe { clsw_db_free(db) };
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(std::fs::symlink_metadata(&planted).unwrap().file_type().is_symlink());
    assert_eq!(prepared_count(&path), 3);
}

/// The bundled database and ten queries, copied into `dir`.
fn inputs(dir: &Path) -> (PathBuf, PathBuf) {
    let (db, q) = (dir.join("db.fa"), dir.join("q.fa"));
    std::fs::copy(data_dir().join("uniprot300.fasta"), &db).unwrap();
    std::fs::copy(data_dir().join("queries10.fasta"), &q).unwrap();
    (db, q)
}

#[test]
fn an_output_that_is_an_input_is_refused_before_any_work() {
    let dir = folder("same");
    let (db, q) = inputs(&dir);
    let original = std::fs::read(&db).unwrap();
    let link = dir.join("link.fa");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    for out in [&db, &link] {
        let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", s(&db), "-o", s(out), "--quiet"]);
        assert!(code == 1 && err.contains("would replace the input"), "{code} {err}");
        let (code, _, err) = clsw(&["makedb", s(&db), "-o", s(out)]);
        assert!(code == 1 && err.contains("would replace the input"), "{code} {err}");
    }
    let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", s(&db), "-o", s(&q), "--quiet"]);
    assert!(code == 1 && err.contains("would replace the input"), "{code} {err}");
    assert_eq!(std::fs::read(&db).unwrap(), original);
    let aln = scratch("same-aln.fa", b">a\nACGT\n>b\nACGA\n");
    let (code, _, err) = clsw(&["distance", s(&aln), "-o", s(&aln), "--quiet"]);
    assert!(code == 1 && err.contains("would replace the input"), "{code} {err}");
    assert_eq!(std::fs::read(&aln).unwrap(), b">a\nACGT\n>b\nACGA\n");
    // A plink prefix whose matrix file is the input.
    let dist = dir.join("x.dist");
    std::fs::write(&dist, "0 1\n1 0\n").unwrap();
    let g = scratch("same-g.tsv", b"sample s1 s2\na 0 1\nb 1 1\n");
    let (code, _, err) =
        clsw(&["distance", "--genotypes", s(&dist), "--format", "plink", "-o", s(&dir.join("x")), "--quiet"]);
    assert!(code == 1 && err.contains("would replace the input"), "{code} {err}");
    let (code, _, err) = clsw(&["distance", "--genotypes", s(&g), "--format", "plink", "-o", s(&dir.join("x"))]);
    assert_eq!(code, 0, "{err}");
}

/// Runs clsw through `sh` with files limited to `blocks` 512-byte blocks and SIGXFSZ
/// ignored, so a write past the limit fails with EFBIG as on a full disk.
fn clsw_with_small_disk(blocks: u32, args: &[&str]) -> (i32, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_clsw"))
        .args(args)
        .env("CLSW_DEVICE", "native")
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_run_that_fails_leaves_the_previous_output_untouched() {
    let dir = folder("fails");
    let (db, q) = inputs(&dir);
    let out = dir.join("hits.tsv");
    std::fs::write(&out, "previous results\n").unwrap();
    // The results of ten queries are far more than the limit allows.
    let (code, err) = clsw_with_small_disk(4, &["scan", "-q", s(&q), "-d", s(&db), "-o", s(&out), "--quiet"]);
    assert!(code == 1 && err.contains("hits.tsv"), "{code} {err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous results\n");
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
    // makedb: the database's prepared file is larger than the limit too.
    let prepared = dir.join("db.clswdb");
    let (code, _, err) = clsw(&["makedb", s(&q), "-o", s(&prepared)]);
    assert_eq!(code, 0, "{err}");
    let before = std::fs::read(&prepared).unwrap();
    let (code, err) = clsw_with_small_disk(16, &["makedb", s(&db), "-o", s(&prepared)]);
    assert!(code == 1 && err.contains("db.clswdb"), "{code} {err}");
    assert_eq!(std::fs::read(&prepared).unwrap(), before);
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
    // A distance run whose input turns out bad after its output was opened.
    let g = dir.join("g.tsv");
    std::fs::write(&g, "s1 0 1 3\ns2 0 1 2\n").unwrap();
    let (code, _, err) = clsw(&["distance", "--genotypes", s(&g), "-o", s(&out), "--quiet"]);
    assert!(code == 1 && err.contains("'3'"), "{code} {err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous results\n");
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
    // The same scan with room succeeds and replaces the file.
    let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", s(&db), "-o", s(&out), "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&out).unwrap().lines().count() > 10);
}

#[test]
fn a_run_ended_by_a_signal_leaves_no_temporary_and_the_old_output() {
    // SIGINT and SIGTERM once left `.NAME.XXXXXX.tmp` beside the intact output.
    let dir = folder("signal");
    let text = std::fs::read_to_string(data_dir().join("uniprot300.fasta")).unwrap();
    let mut big = String::new();
    for copy in 0..80 {
        big.push_str(&text.replace('>', &format!(">c{copy}_")));
    }
    let db = dir.join("big.fa");
    std::fs::write(&db, big).unwrap();
    let out = dir.join("out.tsv");
    for (signal, status) in [("INT", 130), ("TERM", 143)] {
        std::fs::write(&out, "previous results\n").unwrap();
        let q = data_dir().join("queries10.fasta");
        let mut child = Command::new(env!("CARGO_BIN_EXE_clsw"))
            .args(["--threads", "1", "scan", "-q", s(&q), "-d", s(&db), "--device", "native", "--quiet", "-o"])
            .arg(&out)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // The temporary exists from the start of the run (the output is opened first).
        let started = std::time::Instant::now();
        while temporaries(&dir).is_empty() && started.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!temporaries(&dir).is_empty(), "{signal}: no temporary while the scan ran");
        let kill = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
        assert!(kill.success());
        // The scan (80 copies of the database, one thread) outlasts the signal by seconds.
        let code = child.wait().unwrap().code();
        assert_eq!(code, Some(status), "{signal}");
        assert!(temporaries(&dir).is_empty(), "{signal}: {:?}", temporaries(&dir));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous results\n", "{signal}");
    }
}

//! Helpers for tests that run the `clsw` command: run it (exit code, standard output,
//! standard error), write scratch files, and the device specifications that every job
//! must read the same way.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// What one run of `clsw` gave: exit code (-1 when killed), standard output, standard error.
pub type Run = (i32, String, String);

/// Runs clsw with `CLSW_DEVICE` set to `device` (None: unset, so the default choice) and
/// the extra environment variables `env`.
pub fn clsw_env(env: &[(&str, &str)], device: Option<&str>, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clsw"));
    cmd.args(args).envs(env.iter().copied());
    match device {
        Some(d) => cmd.env("CLSW_DEVICE", d),
        None => cmd.env_remove("CLSW_DEVICE"),
    };
    let out = cmd.output().expect("running clsw");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs clsw on the native CPU path with `input` on its standard input (through a pipe,
/// which cannot be read twice).
pub fn clsw_with_stdin(input: &[u8], args: &[&str]) -> Run {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_clsw"))
        .args(args)
        .env("CLSW_DEVICE", "native")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running clsw");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from a thread: clsw may answer before it has read everything.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("running clsw");
    writer.join().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs clsw with `device` as `CLSW_DEVICE` (None: the default choice).
pub fn clsw_on(device: Option<&str>, args: &[&str]) -> Run {
    clsw_env(&[], device, args)
}

/// Runs clsw on the native CPU path (`CLSW_DEVICE=native`; `--device` still overrides it).
pub fn clsw(args: &[&str]) -> Run {
    clsw_on(Some("native"), args)
}

/// Runs clsw on the native CPU path with its address space limited to `gib` GiB (the
/// shell's `ulimit -v`) and two threads, so allocation failure happens the same on
/// every machine.
pub fn clsw_limited(gib: u64, args: &[&str]) -> Run {
    let limit = format!("ulimit -v {} && exec \"$0\" \"$@\"", gib << 20);
    let out = Command::new("sh")
        .args(["-c", &limit, env!("CARGO_BIN_EXE_clsw")])
        .args(args)
        .env("CLSW_DEVICE", "native")
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .expect("running clsw under sh");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// This test process's scratch folder (created on first use).
pub fn scratch_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let test = exe.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = std::env::temp_dir().join(format!("clsw-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `bytes` to a scratch file named `name` and returns its path. Tests run on
/// threads of one process and several write the same file: each writes a file of its
/// own and renames it into place, so none reads another's half-written one.
pub fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let p = scratch_dir().join(name);
    let own = scratch_dir().join(format!(".{name}.{:?}", std::thread::current().id()).replace(['(', ')'], ""));
    std::fs::write(&own, bytes).unwrap();
    std::fs::rename(&own, &p).unwrap();
    p
}

/// A scratch FASTA file `name` of one record `>long` of `len` protein letters drawn
/// with `seed`, and the letters.
pub fn random_protein_fasta(name: &str, len: usize, seed: u64) -> (PathBuf, Vec<u8>) {
    const LETTERS: &[u8; 20] = b"ACDEFGHIKLMNPQRSTVWY";
    let letters: Vec<u8> = super::Rng::new(seed).codes(len, 20).into_iter().map(|c| LETTERS[c as usize]).collect();
    let text = [b">long\n".as_slice(), &letters, b"\n"].concat();
    (scratch(name, &text), letters)
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Lists of two devices that every job must read alike, each with the environment it
/// needs: `I,I` (the first test device opened twice, so one device splits the work in
/// two) and, where PoCL can show two devices (`POCL_DEVICES="pthread pthread"`), `0,1`.
/// Empty without an OpenCL device (skipped loudly, or a failure with
/// `CLSW_REQUIRE_DEVICE=1`: see [`super::test_devices`]).
pub fn two_device_specs() -> Vec<(String, Vec<(&'static str, &'static str)>)> {
    let Some(dev) = super::test_devices().into_iter().next() else { return Vec::new() };
    let i = dev.info.index;
    let mut specs = vec![(format!("{i},{i}"), Vec::new())];
    let pocl = vec![("POCL_DEVICES", "pthread pthread")];
    let (code, listing, err) = clsw_env(&pocl, None, &["devices"]);
    let listed = listing.lines().filter(|l| l.starts_with('[')).count();
    if code == 0 && listed >= 2 {
        specs.push(("0,1".to_string(), pocl));
    } else {
        super::skipped(&format!("--device 0,1: {listed} device(s) with POCL_DEVICES=\"pthread pthread\" {err}"));
    }
    specs
}

/// Runs `args` with `--device native` and with every list of [`two_device_specs`],
/// and checks each run succeeds with the same standard output as the native path once
/// `normalise` has dropped what names the devices. Returns the native output.
pub fn same_output_on_two_devices(args: &[&str], normalise: impl Fn(&str) -> String) -> String {
    let (code, native, err) = clsw(&[args, &["--device", "native"]].concat());
    assert_eq!(code, 0, "{args:?} --device native: {err}");
    for (spec, env) in two_device_specs() {
        let (code, out, err) = clsw_env(&env, None, &[args, &["--device", &spec]].concat());
        assert_eq!(code, 0, "{args:?} --device {spec}: {err}");
        assert_eq!(normalise(&out), normalise(&native), "{args:?} --device {spec} vs native; stderr: {err}");
    }
    native
}

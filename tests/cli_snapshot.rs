//! Every subcommand's output on the bundled data, byte for byte against the committed
//! snapshots in `tests/data/cli_snapshot/` (the command list is `commands.tsv` there).
//! A refactor that changes an output fails here; an intended change refreshes the
//! snapshots with `CLSW_UPDATE_SNAPSHOTS=1` and says why in its commit.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Timings differ from run to run: `"wall_seconds":0.02` and `in 1.86 s` lose their number.
fn mask_timings(bytes: Vec<u8>) -> Vec<u8> {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return e.into_bytes(),
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(k) = ["\"wall_seconds\":", " in "].iter().filter_map(|m| rest.find(m).map(|i| (i, *m))).min() {
        let (i, marker) = k;
        out.push_str(&rest[..i + marker.len()]);
        rest = &rest[i + marker.len()..];
        let n = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-')).unwrap_or(rest.len());
        let timed = n > 0 && (marker.starts_with('"') || rest[n..].starts_with(" s"));
        out.push_str(if timed { "_" } else { &rest[..n] });
        rest = &rest[n..];
    }
    out.push_str(rest);
    out.into_bytes()
}

/// The binary's path, the data folder and the version (SAM's `@PG` line) differ from
/// checkout to checkout and release to release: they are written as placeholders.
fn mask_paths(bytes: Vec<u8>, data: &Path) -> Vec<u8> {
    match String::from_utf8(bytes) {
        Ok(t) => t
            .replace(env!("CARGO_BIN_EXE_clsw"), "{clsw}")
            .replace(data.to_str().unwrap(), "{data}")
            .replace(&format!("VN:{}", env!("CARGO_PKG_VERSION")), "VN:{version}")
            .into_bytes(),
        Err(e) => e.into_bytes(),
    }
}

fn expand(arg: &str, data: &Path, tmp: &Path) -> String {
    arg.replace("{data}", data.to_str().unwrap()).replace("{tmp}", tmp.to_str().unwrap())
}

#[test]
fn every_subcommand_matches_its_snapshot() {
    let data = common::data_dir();
    let dir = data.join("cli_snapshot");
    let tmp = std::env::temp_dir().join(format!("clsw-snapshot-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let update = std::env::var_os("CLSW_UPDATE_SNAPSHOTS").is_some();
    let list = std::fs::read_to_string(dir.join("commands.tsv")).unwrap();
    let mut failures = Vec::new();
    let mut ran = 0;
    for line in list.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (name, args) = (cols[0], cols[1]);
        let args: Vec<String> = args.split(' ').map(|a| expand(a, &data, &tmp)).collect();
        // The native CPU path: the same bytes on every machine.
        let out = Command::new(env!("CARGO_BIN_EXE_clsw"))
            .args(&args)
            .env("CLSW_DEVICE", "native")
            .env("RAYON_NUM_THREADS", "2")
            .output()
            .expect("running clsw");
        assert!(
            out.status.success(),
            "{name}: clsw {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        let got = match cols.get(2).and_then(|c| c.strip_prefix("-> ")) {
            Some(file) => std::fs::read(expand(file, &data, &tmp)).unwrap(),
            None => out.stdout,
        };
        let got = mask_timings(got);
        let got = mask_paths(got, &data);
        let want_path: PathBuf = dir.join(format!("{name}.out"));
        ran += 1;
        if update {
            std::fs::write(&want_path, &got).unwrap();
            continue;
        }
        let want = std::fs::read(&want_path).unwrap_or_else(|e| panic!("{}: {e}", want_path.display()));
        if got != want {
            let line = got.split(|&b| b == b'\n').zip(want.split(|&b| b == b'\n')).position(|(a, b)| a != b);
            failures
                .push(format!("{name}: output differs from {} (first differing line: {line:?})", want_path.display()));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(ran >= 18, "only {ran} commands ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! The library's layer order (the list at the top of `src/lib.rs`) holds: every `crate::`
//! path in `src/` (outside `src/bin`) goes from a module to one of a strictly lower
//! layer, so modules have no cycles. Comments are not read; `use crate::{a, b::c}`
//! groups count each item; names the crate root re-exports (`crate::Error`) count as
//! the module they come from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Layer of each top-level module, from the numbered list in lib.rs's docs
/// (`//! 4. [`align`], [`stats`]: ...`), and the root re-exports (`pub use error::{Error, Result};`).
fn layers_and_reexports(lib: &str) -> (BTreeMap<String, usize>, BTreeMap<String, String>) {
    let mut layers = BTreeMap::new();
    let mut reexports = BTreeMap::new();
    for line in lib.lines() {
        if let Some(rest) = line.strip_prefix("//! ") {
            let Some((num, body)) = rest.split_once(". ") else { continue };
            let Ok(layer) = num.trim().parse::<usize>() else { continue };
            let head = body.split(':').next().unwrap();
            for name in head.split("[`").skip(1) {
                layers.insert(name.split('`').next().unwrap().to_string(), layer);
            }
        } else if let Some(rest) = line.strip_prefix("pub const ") {
            // Items of the crate root itself (`crate::VERSION`) sit below every layer.
            reexports.insert(rest.split(':').next().unwrap().trim().to_string(), "self".to_string());
        } else if let Some(rest) = line.strip_prefix("pub use ") {
            let (module, names) = rest.trim_end_matches(';').split_once("::").unwrap();
            for n in names.trim_matches(|c| c == '{' || c == '}').split(',') {
                reexports.insert(n.trim().to_string(), module.to_string());
            }
        }
    }
    (layers, reexports)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The first identifier of every item a `crate::` path names in `text` (comments removed).
fn crate_paths(text: &str) -> Vec<String> {
    let code: String =
        text.lines().map(|l| if l.trim_start().starts_with("//") { "" } else { l }).collect::<Vec<_>>().join("\n");
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        // `$crate::` inside macros and names such as `my_crate::` are not this crate.
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start) = (0, 0);
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.push(ident(group[start..k].trim()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(group[start..k].trim()));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

#[test]
fn every_crate_path_goes_to_a_lower_layer() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let (layers, reexports) = layers_and_reexports(&lib);
    let declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("mod ")))
        .map(|l| l.trim_end_matches(';').to_string())
        .collect();
    let listed: BTreeSet<String> = layers.keys().cloned().collect();
    assert_eq!(declared, listed, "every module of lib.rs has a layer in its docs, and only those");
    assert!(reexports.contains_key("Error"), "lib.rs re-exports read: {reexports:?}");

    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut wrong = BTreeSet::new();
    let mut edges = 0;
    for f in files {
        let rel = f.strip_prefix(src()).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_str().unwrap().trim_end_matches(".rs");
        if first == "bin" || first == "lib" {
            continue;
        }
        let from = first.to_string();
        let text = std::fs::read_to_string(&f).unwrap();
        for name in crate_paths(&text) {
            let to = reexports.get(&name).cloned().unwrap_or(name);
            if to == from || to == "self" {
                continue;
            }
            edges += 1;
            let (Some(&lf), Some(&lt)) = (layers.get(&from), layers.get(&to)) else {
                wrong.insert(format!("{}: crate::{to} is not a module with a layer", rel.display()));
                continue;
            };
            if lt >= lf {
                wrong.insert(format!("{}: {from} (layer {lf}) uses {to} (layer {lt})", rel.display()));
            }
        }
    }
    assert!(edges > 100, "only {edges} edges read: is the parser broken?");
    assert!(
        wrong.is_empty(),
        "edges against the layer order in src/lib.rs:\n{}",
        wrong.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_reader_sees_groups_and_skips_comments() {
    let text = "use crate::{error::Error, scan::{a, b}, seq};\n// crate::engine\nlet x = crate::stats::fit();\n$crate::ignored";
    assert_eq!(crate_paths(text), ["error", "scan", "seq", "stats"]);
}

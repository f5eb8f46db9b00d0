//! clsw's licence is stated wherever a user or a packager looks for it: `MIT OR
//! Apache-2.0` in Cargo.toml, the Python metadata, the pkg-config file and the C
//! header's first lines, with both texts and the notices of third-party material.

use std::path::PathBuf;

const LICENCE: &str = "MIT OR Apache-2.0";

fn read(path: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn every_manifest_states_the_licence() {
    // Stated once for the workspace (clsw and capi/'s clsw-capi), which both inherit.
    let line = format!("license = \"{LICENCE}\"");
    assert!(read("Cargo.toml").lines().any(|l| l == line), "Cargo.toml has no `{line}`");
    for manifest in ["Cargo.toml", "capi/Cargo.toml"] {
        assert!(read(manifest).lines().any(|l| l == "license.workspace = true"), "{manifest} does not inherit it");
    }
    let python = format!("license = {{text = \"{LICENCE}\"}}");
    assert!(read("bindings/python/pyproject.toml").lines().any(|l| l == python), "pyproject.toml: `{python}`");
    assert!(read("scripts/clsw.pc.in").lines().any(|l| l == format!("License: {LICENCE}")));
    let header: Vec<String> = read("include/clsw.h").lines().take(3).map(str::to_string).collect();
    assert!(header.iter().any(|l| l.ends_with(&format!("SPDX-License-Identifier: {LICENCE}"))), "{header:?}");
}

#[test]
fn both_licence_texts_and_the_notices_are_there() {
    assert!(read("LICENSE-APACHE").contains("Apache License\n                           Version 2.0, January 2004"));
    assert!(read("LICENSE-MIT").starts_with("MIT License"));
    let notice = read("NOTICE");
    for needed in ["LICENSE-APACHE", "LICENSE-MIT", "UniProt Consortium, CC BY 4.0", "blast_stat.c"] {
        assert!(notice.contains(needed), "NOTICE does not mention {needed}");
    }
}

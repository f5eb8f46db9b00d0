//! Gives the shared library (libclsw.so) a versioned soname, `libclsw.so.<major>`, so
//! programs linked against it keep finding a compatible build after an upgrade
//! (`scripts/install.sh` installs libclsw.so.X.Y.Z with the libclsw.so.<major> and
//! libclsw.so links). Only the cdylib gets the argument; the binary and the tests don't.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os.ends_with("bsd") {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".into());
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libclsw.so.{major}");
    }
}

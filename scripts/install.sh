#!/usr/bin/env bash
# Installs clsw's C library: the shared library with a versioned soname and its links,
# the static library, the C header (and the C++ wrapper), a pkg-config file and the
# `clsw` command-line tool.
#
#   scripts/install.sh [--no-build] [--from DIR] PREFIX
#
#   PREFIX       where to install: PREFIX/lib, PREFIX/include, PREFIX/lib/pkgconfig, PREFIX/bin
#   --no-build   do not run `cargo build --release`; install what DIR already holds
#   --from DIR   the cargo output folder to install from (default: target/release, or
#                $CARGO_TARGET_DIR/release)
#   DESTDIR      (environment) staging root for packagers: files go to $DESTDIR$PREFIX,
#                while clsw.pc still says PREFIX
#
# Afterwards (README.md, "The C library"):
#   export PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
#   cc app.c $(pkg-config --cflags --libs clsw) -Wl,-rpath,PREFIX/lib -o app
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
from=""
prefix=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --from) from="$2"; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "install.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$prefix" ] || { echo "install.sh: one PREFIX only" >&2; exit 2; }; prefix="$1" ;;
  esac
  shift
done
[ -n "$prefix" ] || { echo "usage: scripts/install.sh [--no-build] [--from DIR] PREFIX" >&2; exit 2; }
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
[ -n "$from" ] || from="${CARGO_TARGET_DIR:-target}/release"

version=$(sed -n 's/^version *= *"\([^"]*\)".*/\1/p' Cargo.toml | head -n1)
major=${version%%.*}
[ -n "$version" ] || { echo "install.sh: no version in Cargo.toml" >&2; exit 1; }

if [ "$build" = 1 ]; then
  # The C libraries come from the package in capi/ (the clsw crate itself is an rlib).
  cargo build --release -p clsw-capi
  cargo build --release --bin clsw
fi
for f in libclsw.so libclsw.a; do
  [ -f "$from/$f" ] || { echo "install.sh: $from/$f is missing (build with cargo build --release -p clsw-capi)" >&2; exit 1; }
done

root="${DESTDIR:-}$prefix"
install -d "$root/lib/pkgconfig" "$root/include" "$root/bin"
install -m 755 "$from/libclsw.so" "$root/lib/libclsw.so.$version"
ln -sfn "libclsw.so.$version" "$root/lib/libclsw.so.$major"
ln -sfn "libclsw.so.$major" "$root/lib/libclsw.so"
install -m 644 "$from/libclsw.a" "$root/lib/libclsw.a"
install -m 644 include/clsw.h "$root/include/clsw.h"
install -m 644 bindings/cpp/clsw.hpp "$root/include/clsw.hpp"
# What a program linking libclsw.a also needs (rustc --print native-static-libs, Linux).
libs_private="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" -e "s|@LIBS_PRIVATE@|$libs_private|g" \
  scripts/clsw.pc.in > "$root/lib/pkgconfig/clsw.pc"
if [ -f "$from/clsw" ]; then
  install -m 755 "$from/clsw" "$root/bin/clsw"
fi
echo "installed clsw $version into $root (soname libclsw.so.$major)"

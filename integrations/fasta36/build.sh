#!/usr/bin/env bash
# Builds FASTA 36.3.8i's stock ssearch36, ggsearch36 and glsearch36 and their _clsw
# twins (the same programs whose library scores come from clsw through its C ABI:
# local, global and glocal) from one patched FASTA source tree.
#
#   integrations/fasta36/build.sh [--tarball FILE] [--prefix DIR] [--out DIR] [--jobs N]
#
#   --tarball FILE  FASTA's source, fasta3_36.3.8i.14-Nov-2020.orig.tar.gz (env
#                   FASTA36_TARBALL); checked against its SHA-256. Without it the
#                   tarball cached in OUT is used, else it is fetched with
#                   `apt-get source --download-only fasta3` from Debian's archive
#                   (deb-src in a private apt configuration under OUT: the machine's
#                   apt setup is not touched, no root needed)
#   --prefix DIR    an installed clsw (scripts/install.sh DIR; env CLSW_PREFIX), found
#                   through DIR/lib/pkgconfig/clsw.pc; without it this repository's
#                   clsw is built with cargo and installed into OUT/clsw-prefix
#   --out DIR       work and output folder (env FASTA36_OUT; default
#                   ${CARGO_TARGET_DIR:-target}/fasta36)
#   --jobs N        make -jN (default 2)
#
# Results: OUT/fasta36/bin/{ssearch36,ggsearch36,glsearch36} and the same names with
# _clsw (rpath to clsw's libdir), one path a line. x86-64 Linux (FASTA's
# Makefile.linux64_sse2), a C compiler, make, patch, pkg-config.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

version=36.3.8i.14-Nov-2020
orig="fasta3_${version}.orig.tar.gz"
sha256=b4b1c3c9be6beebcbaf4215368e159d69255e34c0bdbc84affa10cdb473ce008

tarball="${FASTA36_TARBALL:-}"
prefix="${CLSW_PREFIX:-}"
out="${FASTA36_OUT:-}"
jobs=2
while [ $# -gt 0 ]; do
  case "$1" in
    --tarball) tarball="$2"; shift ;;
    --prefix) prefix="$2"; shift ;;
    --out) out="$2"; shift ;;
    --jobs) jobs="$2"; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$out" ]; then
  target="${CARGO_TARGET_DIR:-$repo/target}"
  case "$target" in /*) ;; *) target="$repo/$target" ;; esac
  out="$target/fasta36"
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

check_sum() {
  echo "$sha256  $1" | sha256sum --check --status \
    || { echo "build.sh: $1 is not FASTA $version's source (SHA-256 differs from $sha256)" >&2; exit 1; }
}

# 1. FASTA's source: given, cached, or fetched (and then cached).
if [ -n "$tarball" ]; then
  [ -f "$tarball" ] || { echo "build.sh: no such tarball: $tarball" >&2; exit 1; }
  check_sum "$tarball"
elif [ -f "$out/$orig" ]; then
  tarball="$out/$orig"
  check_sum "$tarball"
else
  command -v apt-get >/dev/null || {
    echo "build.sh: no $orig given (--tarball or FASTA36_TARBALL) and no apt-get to fetch it" >&2; exit 1; }
  apt="$out/apt"
  rm -rf "$apt"
  mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/get"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  # The pinned SHA-256 is what is trusted; Debian's signature too where its keyring is.
  if [ -f "$keyring" ]; then trust="Signed-By: $keyring"; else trust="Trusted: yes"; fi
  cat > "$apt/parts/fasta3-src.sources" <<EOF
Types: deb-src
URIs: ${FASTA36_APT_MIRROR:-http://deb.debian.org/debian}
Suites: ${FASTA36_APT_SUITE:-bookworm}
Components: main
$trust
EOF
  aptopts=(-o "Dir::Etc::SourceList=$apt/none.list" -o "Dir::Etc::SourceParts=$apt/parts"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1
    -o APT::Sandbox::User="$(id -un)")
  touch "$apt/none.list"
  echo "build.sh: fetching FASTA's source (apt-get source --download-only fasta3)" >&2
  apt-get "${aptopts[@]}" -qq update
  # The Debian packaging part may fail to download; the .orig.tar.gz comes first.
  (cd "$apt/get" && apt-get "${aptopts[@]}" -qq source --download-only "fasta3=${version}-1") \
    > "$apt/source.log" 2>&1 || true
  [ -f "$apt/get/$orig" ] || {
    cat "$apt/source.log" >&2; echo "build.sh: apt-get source did not fetch $orig" >&2; exit 1; }
  check_sum "$apt/get/$orig"
  mv "$apt/get/$orig" "$out/$orig"
  rm -rf "$apt"
  tarball="$out/$orig"
fi

# 2. clsw: an installed prefix, or this repository's, installed under OUT.
if [ -z "$prefix" ]; then
  prefix="$out/clsw-prefix"
  "$repo/scripts/install.sh" "$prefix" >&2
fi
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
[ -f "$prefix/lib/pkgconfig/clsw.pc" ] || {
  echo "build.sh: $prefix/lib/pkgconfig/clsw.pc is missing (install clsw with scripts/install.sh $prefix)" >&2; exit 1; }
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

# 3. A fresh patched tree, every program built from it.
tree="$out/fasta36"
rm -rf "$tree"
mkdir -p "$tree"
tar xzf "$tarball" -C "$tree" --strip-components=1
(cd "$tree" && patch -p1 --quiet < "$here/fasta36-clsw.patch")
cp "$here/clsw_fasta.c" "$here/clsw_fasta.h" "$tree/src/"
# The prefix is read where it is now, even if it was installed elsewhere and moved
# (a prebuilt clsw carried to another machine).
programs=(ssearch36 ssearch36_clsw ggsearch36 ggsearch36_clsw glsearch36 glsearch36_clsw)
(cd "$tree/src" && make -j"$jobs" -f ../make/Makefile.linux64_sse2 -f "$here/fasta36_clsw.mk" \
  PKG_CONFIG="pkg-config --define-variable=prefix=$prefix" "${programs[@]}" > "$out/build.log" 2>&1) \
  || { tail -n 30 "$out/build.log" >&2; echo "build.sh: make failed (log: $out/build.log)" >&2; exit 1; }
for p in "${programs[@]}"; do echo "$tree/bin/$p"; done

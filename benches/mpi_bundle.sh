#!/usr/bin/env bash
# mpi_bundle.sh - build a relocatable Open MPI runtime bundle for a machine
# that has no MPI installed and no internet access (e.g. the remote GPU box
# used by benches/multi_gpu.sh).
#
# The clsw binary built on Debian 12 (bookworm) links against Debian's
# libmpi.so.40 (libopenmpi3 4.1.4).  This script fetches that exact Open MPI
# runtime plus its shared-library dependencies as .deb files with
# `apt-get download`, unpacks them into DEST/root, drops everything that is
# not needed at run time and writes DEST/env.sh, which makes the bundle usable
# from wherever it ends up.  glibc, libgcc_s, libstdc++ and zlib are NOT
# bundled: they must come from the remote system (any glibc >= 2.34 works).
#
# Usage (on a Debian 12 x86-64 machine whose apt sources reach Debian):
#     benches/mpi_bundle.sh .device/openmpi        # build (about 19 MiB)
# On the remote machine (bash; any working directory):
#     source .device/openmpi/env.sh
#     mpirun -n 4 --bind-to none ./clsw ...
# Optional self-test after building (needs mpicc, i.e. libopenmpi-dev):
#     MPI_BUNDLE_TEST=1 benches/mpi_bundle.sh .device/openmpi
#
# .device/ is git-ignored; keep DEST there (or outside the repository).
set -euo pipefail

if [[ $# -ne 1 || -z "$1" ]]; then
    echo "usage: $0 DEST   (e.g. $0 .device/openmpi)" >&2
    exit 2
fi
DEST=$1
MARKER=.mpi_bundle

# Refuse to clobber a directory that this script did not create.
if [[ -e "$DEST" ]]; then
    if [[ ! -d "$DEST" ]]; then
        echo "error: $DEST exists and is not a directory" >&2; exit 1
    fi
    if [[ -n "$(ls -A "$DEST")" && ! -e "$DEST/$MARKER" ]]; then
        echo "error: $DEST is not empty and was not made by $0" >&2; exit 1
    fi
fi
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd -P)
if [[ "$DEST" == / ]]; then echo "error: refusing DEST=/" >&2; exit 1; fi

# If DEST is inside a git work tree, make sure git ignores it.
if top=$(git -C "$DEST" rev-parse --show-toplevel 2>/dev/null); then
    if ! git -C "$top" check-ignore -q "$DEST"; then
        echo "error: $DEST is inside the git repository $top but not ignored;" \
             "use a path under .device/" >&2
        exit 1
    fi
fi

ROOTS=(openmpi-bin libopenmpi3)
ARCH_LIBDIR=usr/lib/x86_64-linux-gnu

# Packages of the dependency closure that are NOT bundled:
#  - glibc / compiler runtime / zlib: present on every Linux and must not be
#    replaced (libc6, libgcc-s1, libstdc++6, gcc-N-base, libcrypt1, zlib1g);
#  - packaging and admin tools pulled in by maintainer scripts (debconf, dpkg,
#    tar, adduser, passwd, perl, PAM, SELinux, audit, ...);
#  - ssh and its libraries (Kerberos, OpenSSL, FIDO): mpirun on a single host
#    never starts ssh;
#  - hwloc's optional plugins (PCI, libxml2 XML, OpenCL, NVCtrl/X11) and what
#    only they need (libicu alone is ~35 MiB): core hwloc discovers CPUs and
#    memory by itself, and Open MPI does not need the PCI tree on one host.
SKIP_RE='^(libc6|libc-bin|libgcc-s1|libstdc\+\+6|gcc-[0-9]+-base|libcrypt1|zlib1g'
SKIP_RE+='|debconf|cdebconf|dpkg|tar|adduser|passwd|install-info|perl.*|libperl.*'
SKIP_RE+='|readline-common|libreadline8|libtinfo6|libdebian-installer4|libnewt0\.52'
SKIP_RE+='|libslang2|libtextwrap1|libpam.*|libselinux1|libsemanage.*|libsepol2'
SKIP_RE+='|libaudit.*|libcap-ng0|libacl1|libattr1|libpcre2-8-0|libdb5\.3|libbz2-1\.0'
SKIP_RE+='|liblzma5|libzstd1|libmd0|libbsd0'
SKIP_RE+='|openssh-client|libfido2-1|libcbor0\.[0-9]+|libedit2|libssl3|libgssapi-krb5-2'
SKIP_RE+='|libkrb5-3|libk5crypto3|libkrb5support0|libkeyutils1|libcom-err2'
SKIP_RE+='|libhwloc-plugins|libxml2|libicu[0-9]+|libx11-6|libx11-data|libxau6|libxcb1'
SKIP_RE+='|libxdmcp6|libxext6|libxnvctrl0|ocl-icd-libopencl1|libpciaccess0)$'

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "== resolving dependency closure of ${ROOTS[*]}"
# Lines without leading blanks are package names; <name> are virtual packages
# (debconf-2.0, ssh-client, libopencl1) which are never downloaded.
mapfile -t ALL < <(apt-cache depends --recurse --no-recommends --no-suggests \
    --no-conflicts --no-breaks --no-replaces --no-enhances "${ROOTS[@]}" \
    | grep -v '^[[:space:]<]' | sort -u)
PKGS=()
SKIPPED=()
for p in "${ALL[@]}"; do
    if [[ "$p" =~ $SKIP_RE ]]; then SKIPPED+=("$p"); else PKGS+=("$p"); fi
done
echo "   bundling (${#PKGS[@]}): ${PKGS[*]}"
echo "   skipping (${#SKIPPED[@]}): ${SKIPPED[*]}"

echo "== downloading .debs"
mkdir -p "$TMP/debs"
chmod 0755 "$TMP"; chmod 0777 "$TMP/debs"   # apt-get download runs as the _apt user when root
(cd "$TMP/debs" && apt-get download -q "${PKGS[@]}" >/dev/null)

echo "== unpacking into $DEST/root"
rm -rf "$DEST/root" "$DEST/env.sh" "$DEST/PACKAGES.txt"
touch "$DEST/$MARKER"
ROOT=$DEST/root
mkdir -p "$ROOT"
: > "$DEST/PACKAGES.txt"
for deb in "$TMP"/debs/*.deb; do
    dpkg-deb -x "$deb" "$ROOT"
    dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >> "$DEST/PACKAGES.txt"
done

echo "== fixing links that dpkg would have made with update-alternatives"
# mpirun/mpiexec are alternatives in Debian; the .deb only ships the
# *.openmpi names.  libpsm_infinipath.so.1 likewise lives in usr/lib/libpsm1.
ln -sfn mpirun.openmpi "$ROOT/usr/bin/mpirun"
ln -sfn mpiexec.openmpi "$ROOT/usr/bin/mpiexec"
if [[ -d "$ROOT/usr/lib/libpsm1" ]]; then
    psm=$(cd "$ROOT/usr/lib/libpsm1" && ls libpsm_infinipath.so.1.* | head -n1)
    ln -sfn "../libpsm1/$psm" "$ROOT/$ARCH_LIBDIR/libpsm_infinipath.so.1"
fi
# Absolute symlinks would point into the remote system: make them relative.
while IFS= read -r -d '' l; do
    t=$(readlink "$l")
    if [[ "$t" == /* ]]; then
        ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$ROOT$t")" "$l"
    fi
done < <(find "$ROOT" -type l -print0)

# Debian's PMIx config names its component directory with an absolute path.
sed -i 's|^mca_base_component_path *=|# &|' \
    "$ROOT/$ARCH_LIBDIR/pmix2/share/pmix-mca-params.conf"

echo "== pruning files not needed at run time"
rm -rf "$ROOT"/usr/share/{doc,man,info,locale,lintian,bug,bash-completion,java} \
       "$ROOT"/usr/share/pkgconfig "$ROOT"/usr/include "$ROOT"/etc/libibverbs.d
find "$ROOT" \( -name '*.a' -o -name '*.la' -o -name '*.h' -o -name '*.mod' \
    -o -name '*.jar' -o -name '*.pc' -o -name '*.supp' -o -name '*.tcl' \) -delete
find "$ROOT" -type d \( -name include -o -name pkgconfig \) -prune -exec rm -rf {} +
# Fortran, Java and compiler-wrapper pieces (clsw is a C-ABI MPI program).
rm -f "$ROOT/$ARCH_LIBDIR"/libmpi_{mpifh,usempi,usempif08,java}* \
      "$ROOT/$ARCH_LIBDIR"/openmpi/lib/libmpi_{mpifh,usempi,usempif08,java}* \
      "$ROOT/$ARCH_LIBDIR"/openmpi/lib/openmpi3/mca_*java* \
      "$ROOT"/usr/bin/{mpijavac,mpijavac.pl,opal_wrapper,aggregate_profile,profile2mat} \
      "$ROOT"/usr/share/openmpi/*-wrapper-data.txt \
      "$ROOT"/usr/lib/x86_64-linux-gnu/pmix2/share/pmix/pmixcc-wrapper-data.txt
# Helper programs of the bundled libraries that mpirun never runs.
for f in "$ROOT"/usr/bin/*; do
    case ${f##*/} in
        mpirun|mpiexec|mpirun.openmpi|mpiexec.openmpi|orterun|orted|ompi_info|\
        orte-info|ompi-clean|orte-clean|ompi-server|orte-server|oshmem_info) ;;
        *) rm -f "$f" ;;
    esac
done
# rsocket preload library; verbs provider plugins (only loaded through the
# /etc/libibverbs.d config files, which are not bundled: no RDMA on one host).
rm -rf "$ROOT/usr/sbin" "$ROOT/$ARCH_LIBDIR/rsocket" "$ROOT/$ARCH_LIBDIR/libibverbs"
# Drop symlinks that now point nowhere (wrapper compilers etc.).
find "$ROOT" -xtype l -delete
find "$ROOT" -depth -type d -empty -delete

echo "== checking shared-library closure"
# Every DT_NEEDED of every bundled ELF must be in the bundle or be one of the
# base-system libraries that are deliberately not bundled.
SYSTEM_SONAMES=' libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 '
SYSTEM_SONAMES+='ld-linux-x86-64.so.2 libgcc_s.so.1 libstdc++.so.6 libz.so.1 libcrypt.so.1 '
mapfile -t LIBDIRS < <(find "$ROOT" -name '*.so*' \( -type f -o -type l \) \
    -printf '%h\n' | sort -u)
missing=0
while IFS= read -r -d '' f; do
    [[ $(head -c4 "$f" | od -An -c | tr -d ' ') == 177ELF ]] || continue
    for n in $(objdump -p "$f" 2>/dev/null | awk '/NEEDED/{print $2}'); do
        [[ "$SYSTEM_SONAMES" == *" $n "* ]] && continue
        found=0
        for d in "${LIBDIRS[@]}"; do [[ -e "$d/$n" ]] && { found=1; break; }; done
        if (( !found )); then
            echo "   MISSING: ${f#"$ROOT"/} needs $n" >&2; missing=1
        fi
    done
done < <(find "$ROOT" -type f -print0)
(( missing )) && echo "   (see MISSING lines above)" >&2 || echo "   ok"

# LD_LIBRARY_PATH entries, relative to the bundle root, in a stable order.
REL_LIBDIRS=()
for d in "$ARCH_LIBDIR" "$ARCH_LIBDIR/openmpi/lib" "${LIBDIRS[@]#"$ROOT"/}"; do
    case $d in */openmpi3|*/pmix|*/ucx) continue ;; esac   # plugin dirs
    [[ " ${REL_LIBDIRS[*]-} " == *" $d "* ]] || REL_LIBDIRS+=("$d")
done

echo "== writing $DEST/env.sh"
{
cat <<'EOF'
# Source this file (bash) to use the relocatable Open MPI 4.1 bundle built by
# benches/mpi_bundle.sh:   source path/to/openmpi/env.sh && mpirun -n 4 ./prog
# It only sets environment variables; it works from any current directory.
_mpib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
_mpib_root=$_mpib_dir/root
_mpib_lib=$_mpib_root/usr/lib/x86_64-linux-gnu

export PATH="$_mpib_root/usr/bin${PATH:+:$PATH}"
EOF
printf '_mpib_ld=""\n'
for d in "${REL_LIBDIRS[@]}"; do
    printf '_mpib_ld="${_mpib_ld:+$_mpib_ld:}$_mpib_root/%s"\n' "$d"
done
cat <<'EOF'
export LD_LIBRARY_PATH="$_mpib_ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# Debian configured Open MPI with --prefix=/usr, --libdir=${prefix}/lib/
# x86_64-linux-gnu/openmpi/lib and the absolute --sysconfdir=/etc/openmpi.
# OPAL_PREFIX relocates everything derived from the prefix; the rest is set
# explicitly so that nothing is looked up under the remote /usr or /etc.
export OPAL_PREFIX="$_mpib_root/usr"
export OPAL_EXEC_PREFIX="$_mpib_root/usr"
export OPAL_BINDIR="$_mpib_root/usr/bin"
export OPAL_LIBDIR="$_mpib_lib/openmpi/lib"
export OPAL_PKGLIBDIR="$_mpib_lib/openmpi/lib/openmpi3"   # MCA components
export OPAL_DATAROOTDIR="$_mpib_root/usr/share"
export OPAL_DATADIR="$_mpib_root/usr/share"
export OPAL_PKGDATADIR="$_mpib_root/usr/share/openmpi"    # help-*.txt
export OPAL_SYSCONFDIR="$_mpib_root/etc/openmpi"          # mca-params.conf
# External PMIx 4.2: Debian built it with --prefix=/usr/lib/x86_64-linux-gnu/
# pmix2 but with absolute libdir/datadir, so PMIX_PREFIX alone is not enough.
export PMIX_PREFIX="$_mpib_lib/pmix2"
export PMIX_EXEC_PREFIX="$_mpib_lib/pmix2"
export PMIX_LIBDIR="$_mpib_lib/pmix2/lib"
export PMIX_PKGLIBDIR="$_mpib_lib/pmix2/lib/pmix"           # PMIx MCA components
export PMIX_DATAROOTDIR="$_mpib_lib/pmix2/share"
export PMIX_DATADIR="$_mpib_lib/pmix2/share"
export PMIX_PKGDATADIR="$_mpib_lib/pmix2/share/pmix"        # help-*.txt
export PMIX_SYSCONFDIR="$_mpib_lib/pmix2/share"             # pmix-mca-params.conf
# Debian's pmix-mca-params.conf hard-codes the component path; env wins.
export PMIX_MCA_mca_base_component_path="$_mpib_lib/pmix2/lib/pmix"
# hwloc: do not load plugins of some other hwloc installed on the host.
export HWLOC_PLUGINS_PATH="$_mpib_lib/hwloc"
export HWLOC_HIDE_ERRORS=1

# Single host inside a container / gVisor: shared memory only, no CMA/xpmem
# single-copy, no UCX/verbs/libfabric, no ssh, no CPU binding, root allowed.
export OMPI_MCA_pml=ob1
export OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_osc='^ucx,pt2pt'
export OMPI_MCA_plm=isolated
export OMPI_MCA_plm_rsh_agent=false
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_btl_base_warn_component_unused=0
export OMPI_MCA_shmem_mmap_enable_nfs_warning=0
export OMPI_MCA_mca_base_component_show_load_errors=0
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# PMIx's shared-memory datastore uses process-shared pthread locks, which
# sandboxes such as gVisor handle badly; the hash datastore avoids them.
export PMIX_MCA_gds=hash

unset _mpib_dir _mpib_root _mpib_lib _mpib_ld
EOF
} > "$DEST/env.sh"

echo "== bundle size"
du -sh "$DEST"
du -sk "$DEST" | awk '{printf "   %.1f MiB\n", $1/1024}'

# ---------------------------------------------------------------------------
# Optional self-test (MPI_BUNDLE_TEST=1): compile a small MPI_Allgather
# program with the local mpicc and run it with the bundle in a clean
# environment.  If unshare is available (root), the system Open MPI, PMIx,
# hwloc and libevent files are hidden behind empty bind mounts first.
if [[ "${MPI_BUNDLE_TEST:-0}" == 1 ]]; then
    echo "== self-test"
    cat > "$TMP/allgather.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *all = malloc(sizeof(int) * size);
    int mine = rank * rank + 1;
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; i < size; i++) ok &= (all[i] == i * i + 1);
    int allok;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("allgather over %d ranks: %s\n", size, allok ? "OK" : "FAIL");
    free(all);
    MPI_Finalize();
    return allok ? 0 : 1;
}
EOF
    mpicc -O2 -o "$TMP/allgather" "$TMP/allgather.c"
    run_test='source "$1/env.sh" && mpirun -n 4 --bind-to none "$2"'
    if [[ $(id -u) == 0 ]] && command -v unshare >/dev/null; then
        hide='set -e; e=$(mktemp -d); f=$(mktemp)
          for p in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 \
                   /usr/lib/x86_64-linux-gnu/hwloc /usr/share/openmpi /etc/openmpi; do
              if [ -d "$p" ]; then mount --bind "$e" "$p"; fi; done
          for p in /usr/lib/x86_64-linux-gnu/lib{mpi,open-pal,open-rte,pmix,hwloc,event}*.so.* \
                   /usr/bin/orted /usr/bin/orterun /usr/bin/ssh; do
              if [ -f "$p" ] && [ ! -L "$p" ]; then mount --bind "$f" "$p"; fi; done
          cd /'
        env -i HOME="$HOME" PATH=/usr/bin:/bin unshare -m bash -c \
            "$hide; $run_test" _ "$DEST" "$TMP/allgather"
    else
        env -i HOME="$HOME" PATH=/usr/bin:/bin bash -c "$run_test" _ "$DEST" "$TMP/allgather"
    fi
fi

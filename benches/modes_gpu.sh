#!/usr/bin/env bash
# Issue 42's benchmark on a GPU machine, one call: (1) scan_team's GCUPS in each mode
# (local, global, glocal; global also with `--device-only`: every pair on the device,
# no host help) on MFO with the 20 real classic queries; (2) ggsearch36 and glsearch36 stock
# against their _clsw builds, -T 16, the same queries against MFO, -k 0 (FASTA's normal
# fit, no shuffles), outputs compared.
#
# Prepare here (.device/ is carried): the `clsw` binary built with `--features bench`
# as .device/clsw.xz; benches/real_databases.sh's MFO as .device/MFO.fasta.xz; the
# real classic queries as .device/allqueries.fasta; and integrations/fasta36/build.sh's
# ggsearch36, glsearch36 and their _clsw twins with the libclsw.so.0 they link, as
# .device/fasta-run.tar.xz holding run/ and run/lib/. On the GPU machine, from the
# repository root: `OUT=DIR benches/modes_gpu.sh` (SKIP_BENCH=1: the FASTA part alone;
# PROGRAMS: which of the two).
#
# FASTA's statistics sample 60,000 of the window's scores at random when it holds more
# (MFO: 62,000-118,000 for these queries), so E-values and bits differ from run to run,
# stock or not, and hits of equal score come in the workers' order, the 50 shown ending
# inside a tie: the comparison is of each query's hits with their alignments (the -m 8
# fields up to the subject's end) above its last tie, sorted.
set -uo pipefail
D=.device
export CLSW_CACHE_DIR=/tmp/clsw-cache
xz -dc $D/clsw.xz > /tmp/clsw && chmod +x /tmp/clsw
[ -s /tmp/MFO.fa ] || xz -dc $D/MFO.fasta.xz > /tmp/MFO.fa
tar xJf $D/fasta-run.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt"; nproc >> "$OUT/gpu.txt"
real=$(awk '/^>/ {if (n) printf "%d,", n; n = 0; next} {n += length($0)} END {print n}' $D/allqueries.fasta)
if [ "${SKIP_BENCH:-0}" != 1 ]; then
B="/tmp/clsw bench scan --device gpu --db /tmp/MFO.fa --queries $D/allqueries.fasta --lengths $real --variants team --scores-only --runs 3"
for m in local global glocal; do ( time $B --mode $m ) > "$OUT/bench_$m.txt" 2>&1; done
( time $B --mode global --device-only ) > "$OUT/bench_global_device.txt" 2>&1
fi
export LD_LIBRARY_PATH=/tmp/run/lib CLSW_DEVICE=gpu
f="$OUT/fasta.txt"
TIMEFORMAT="%R"
for p in ${PROGRAMS:-ggsearch36 glsearch36}; do
  args="-q -m 8 -b 50 -k 0 -T 16"
  /tmp/run/${p}_clsw $args $D/allqueries.fasta /tmp/MFO.fa > /dev/null 2>&1   # kernels built, not timed
  for i in 1 2; do
    t=$( { time CLSW_FASTA_VERBOSE=1 /tmp/run/${p}_clsw $args $D/allqueries.fasta /tmp/MFO.fa > /tmp/$p.clsw.m8 2> /tmp/$p.clsw.err; } 2>&1 )
    echo "${p}_clsw -T 16 run $i: $t s" >> "$f"
  done
  grep -h "searched\|library seq\|ready" /tmp/$p.clsw.err | awk '{s=$0; sub(/.*\(/,"",s); sub(/ s\)/,"",s); t+=s} END {print "  clsw seconds inside (library, searcher, searches):", t}' >> "$f"
  t=$( { time timeout 300 /tmp/run/$p $args $D/allqueries.fasta /tmp/MFO.fa > /tmp/$p.stock.m8 2> /tmp/$p.stock.err; } 2>&1 )
  echo "$p -T 16: $t s (rc $?)" >> "$f"
  python3 - /tmp/$p.stock.m8 /tmp/$p.clsw.m8 >> "$f" <<'PY'
import collections, sys
def load(path):
    per = collections.defaultdict(list)
    for l in open(path):
        f = l.rstrip("\n").split("\t"); per[f[0]].append(f)
    return per
def above_last_tie(lines):
    # Each file's last tie (equal E-value and bits) left out: the 50 shown end inside it.
    last = (lines[-1][10], lines[-1][11])
    return sorted("\t".join(f[:10]) for f in lines if (f[10], f[11]) != last)
a, b = load(sys.argv[1]), load(sys.argv[2])
same = a.keys() == b.keys() and all(above_last_tie(a[q]) == above_last_tie(b[q]) for q in a)
print("  %d lines; each query's hits and alignments above its last tie, sorted: %s" % (
    sum(len(v) for v in a.values()), "identical" if same else "DIFFER"))
PY
  cp /tmp/$p.stock.m8 /tmp/$p.clsw.m8 "$OUT/" 2>/dev/null || true
done

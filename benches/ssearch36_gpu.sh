#!/usr/bin/env bash
# Issue 16's benchmark: ssearch36_clsw (integrations/fasta36) against the stock ssearch36
# built from the same FASTA 36.3.8i source, the 20 classic queries against uniprot20k x 20
# (181,111,380 residues), whole process by the wall clock, outputs compared.
#
# Prepare on a machine with network and Rust, from the repository root:
#   scripts/install.sh target/fasta36-prefix
#   integrations/fasta36/build.sh --prefix target/fasta36-prefix     # FASTA's tarball is cached in target/fasta36/
#   mkdir -p target/fasta36-run/lib && cp -L target/fasta36-prefix/lib/libclsw.so.0 target/fasta36-run/lib/
#   cp target/fasta36/fasta36/bin/ssearch36 target/fasta36/fasta36/bin/ssearch36_clsw target/fasta36-run/
#   ../shared/tools/pack-for-device --data target/fasta36-run
# Then on the GPU machine (carry .device), from the repository root:
#   benches/ssearch36_gpu.sh [QUERIES]            # writes to $OUT (or ./bench-out)
# THREADS (16) is -T for both programs; ARGS the options both get.
set -euo pipefail
out=${OUT:-bench-out}; mkdir -p "$out"
run=.device/fasta36-run
db=.device/data/uniprot20k.fasta.gz
queries=${1:-$out/queries.fasta}
threads=${THREADS:-16}
args=${ARGS:-"-q -m 8 -s BL62 -f -11 -g -1 -b 50"}
[ -s "$queries" ] || .device/clsw bench scan --device gpu --db $db --queries .device/data/queries500.fasta.gz \
  --variants team --scores-only --runs 1 --write-queries "$queries" > /dev/null
[ -s /tmp/db20.fa ] || for i in $(seq 20); do zcat $db | sed "s/^>/>r${i}_/"; done > /tmp/db20.fa
export LD_LIBRARY_PATH="$PWD/$run/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CLSW_CACHE_DIR=${CLSW_CACHE_DIR:-/tmp/clsw-cache} CLSW_DEVICE=${CLSW_DEVICE:-gpu}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt" || true

# The kernels' first build on this machine (one program per query shape), not timed.
$run/ssearch36_clsw $args -T "$threads" "$queries" /tmp/db20.fa > /dev/null

TIMEFORMAT="%R"
for i in 1 2 3; do
  t=$( { time CLSW_FASTA_VERBOSE=1 $run/ssearch36_clsw $args -T "$threads" "$queries" /tmp/db20.fa \
        > "$out/clsw.m8" 2> "$out/clsw.err"; } 2>&1 )
  echo "ssearch36_clsw -T $threads run $i: $t s" | tee -a "$out/times.txt"
done
t=$( { time $run/ssearch36 $args -T "$threads" "$queries" /tmp/db20.fa > "$out/stock.m8" 2> "$out/stock.err"; } 2>&1 )
echo "ssearch36 -T $threads: $t s" | tee -a "$out/times.txt"

# With ssearch36's default statistics (-z 1 here) the fit samples the library's scores
# in the order FASTA's 16 workers return them, so E-values and bit scores differ from run
# to run, stock or not. -z 3 (Altschul-Gish parameters, no fit) makes them a function of
# the raw score: the outputs must then be the same.
$run/ssearch36_clsw $args -z 3 -T "$threads" "$queries" /tmp/db20.fa > "$out/clsw_z3.m8"
t=$( { time $run/ssearch36 $args -z 3 -T "$threads" "$queries" /tmp/db20.fa > "$out/stock_z3.m8"; } 2>&1 )
echo "ssearch36 -T $threads -z 3: $t s" | tee -a "$out/times.txt"

# Hits of equal score come in the order FASTA's workers return them, and the 50 shown end
# inside such a tie as that order falls; the database is also 20 copies of uniprot20k
# (ids r1_ .. r20_). So per query: the scores shown (E-value, bits) must be the same
# multiset, and every line above the last tie the same (copy prefix left out).
python3 - "$out/stock_z3.m8" "$out/clsw_z3.m8" <<'EOF' | tee -a "$out/times.txt"
import collections, re, sys
def load(path):
    per = collections.defaultdict(list)
    for l in open(path):
        f = re.sub(r"\tr[0-9]+_", "\t", l.rstrip("\n"), count=1).split("\t")
        per[f[0]].append(f)
    return per
a, b = load(sys.argv[1]), load(sys.argv[2])
same_scores = a.keys() == b.keys() and all(
    collections.Counter((f[10], f[11]) for f in a[q]) == collections.Counter((f[10], f[11]) for f in b[q]) for q in a)
def above_last_tie(lines):
    last = (lines[-1][10], lines[-1][11])
    return collections.Counter("\t".join(f) for f in lines if (f[10], f[11]) != last)
same_hits = same_scores and all(above_last_tie(a[q]) == above_last_tie(b[q]) for q in a)
n = sum(len(v) for v in a.values())
print("-z 3: %d lines; scores %s; hits above each query's last tie %s" % (
    n, "identical" if same_scores else "DIFFER", "identical" if same_hits else "DIFFER"))
EOF

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

# The kernels' first build on this machine, not timed: one query.
head -n 2 "$queries" > "$out/warmup.fasta"
$run/ssearch36_clsw $args -T "$threads" "$out/warmup.fasta" /tmp/db20.fa > /dev/null

TIMEFORMAT="%R"
for i in 1 2 3; do
  t=$( { time CLSW_FASTA_VERBOSE=1 $run/ssearch36_clsw $args -T "$threads" "$queries" /tmp/db20.fa \
        > "$out/clsw.m8" 2> "$out/clsw.err"; } 2>&1 )
  echo "ssearch36_clsw -T $threads run $i: $t s" | tee -a "$out/times.txt"
done
t=$( { time $run/ssearch36 $args -T "$threads" "$queries" /tmp/db20.fa > "$out/stock.m8" 2> "$out/stock.err"; } 2>&1 )
echo "ssearch36 -T $threads: $t s" | tee -a "$out/times.txt"

# Hits of equal E-value come in the order FASTA's workers return them: sort those runs.
python3 - "$out/stock.m8" "$out/clsw.m8" <<'EOF' | tee -a "$out/times.txt"
import itertools, sys
def norm(path):
    lines = [l.rstrip("\n") for l in open(path)]
    key = lambda l: tuple(l.split("\t")[i] for i in (0, 10, 11))
    return [x for _, g in itertools.groupby(lines, key) for x in sorted(g)]
a, b = norm(sys.argv[1]), norm(sys.argv[2])
print("outputs: identical (%d lines, ties sorted)" % len(a) if a == b else
      "outputs DIFFER: %d stock lines, %d clsw lines, %d in common" % (len(a), len(b), len(set(a) & set(b))))
EOF

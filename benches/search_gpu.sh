#!/usr/bin/env bash
# The whole-search benchmark of BENCHMARKS.md (issue 13), run on the GPU machine from the
# repository root after `../shared/tools/pack-for-device --data --peers`: the 20 classic
# queries (written by `clsw bench scan --write-queries`, or given as $1) against
# uniprot20k x 20 (181,111,380 residues), prepared with `clsw makedb`; clsw's default
# search, 1,000 hits a query, 10 batches, and CUDASW++4.0 --dpx --top 50, all whole
# process by the wall clock. Writes to $OUT (or ./bench-out).
set -euo pipefail
out=${OUT:-bench-out}; mkdir -p "$out"
db=.device/data/uniprot20k.fasta.gz
queries=${1:-$out/queries.fasta}
[ -s "$queries" ] || .device/clsw bench scan --device gpu --db $db --queries .device/data/queries500.fasta.gz \
  --variants team --scores-only --runs 1 --write-queries "$queries" > /dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt" || true
for i in $(seq 20); do zcat $db | sed "s/^>/>r${i}_/"; done > /tmp/db20.fa
export CLSW_CACHE_DIR=${CLSW_CACHE_DIR:-/tmp/clsw-cache}

# A new user's first search on this machine: no compiled program in any cache yet.
.device/clsw makedb -o /tmp/db20.clswdb /tmp/db20.fa > /dev/null
TIMEFORMAT="first search on this machine (program caches cold): %R s wall"
{ time .device/clsw scan -q "$queries" -d /tmp/db20.clswdb --device gpu > "$out/first.txt" 2> "$out/first.err"; } 2>&1 \
  | tee "$out/search.txt"
tail -1 "$out/first.err" | tee -a "$out/search.txt"

# Then every later search: the table of BENCHMARKS.md.
.device/clsw bench search -q "$queries" -d /tmp/db20.fa --prepared /tmp/db20.clswdb --device gpu --repeat 3 \
  --cudasw .device/peers/cudasw4 --keep "$out/runs" | tee -a "$out/search.txt"
cmp "$out/first.txt" "$out/runs/default.txt" && echo "first and later searches: identical output" | tee -a "$out/search.txt"
cmp "$out/runs/default.txt" "$out/runs/batched.txt" && echo "resident and batched: identical output" | tee -a "$out/search.txt"
# Per query: the host time of each query beside its scan.
.device/clsw scan -q "$queries" -d /tmp/db20.clswdb --device gpu --progress -o /dev/null 2>&1 | tee "$out/progress.txt" | tail -3

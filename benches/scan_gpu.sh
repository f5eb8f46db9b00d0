#!/usr/bin/env bash
# The scan benchmark of BENCHMARKS.md, run on the GPU machine from the repository root
# after `../shared/tools/pack-for-device --data` (clsw, ssearch36 and the UniProt data
# in .device/; --peers for CUDASW++4.0). Writes tables to $OUT (or ./bench-out).
#   benches/scan_gpu.sh [lengths]     default: the 20 classic query lengths
set -euo pipefail
out=${OUT:-bench-out}; mkdir -p "$out"
lengths=${1:-144,189,222,375,464,567,657,729,850,1000,1500,2005,2504,3005,3564,4061,4548,4743,5147,5478}
db=.device/data/uniprot20k.fasta.gz
queries=.device/data/queries500.fasta.gz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt" || true

# clsw: uniprot20k repeated 20 times (181,111,380 residues), BLOSUM62 11/1, median of 3:
# team score-only (what a search runs), then team with end cells and fast.
B=".device/clsw bench scan --device gpu --db $db --repeat 20 --queries $queries --lengths $lengths"
$B --variants team --scores-only --runs 3 --write-queries "$out/queries.fasta" --csv "$out/team_scores.csv" | tee "$out/scan.txt"
$B --variants team,fast,inter --runs 3 --csv "$out/scan_ends.csv" | tee -a "$out/scan.txt"
# The team-shape sweep behind the defaults (largest team 4/8/16, work-groups of 64/128/256).
for g in 64 128 256; do
  $B --variants team --team 4,8,16 --scores-only --group $g --runs 1
done | tee "$out/team_sweep.txt"
# intra uploads the database on every call (no resident scanner): fewer lengths.
.device/clsw bench scan --device gpu --db $db --repeat 20 --queries $queries --lengths 464,1000,5478 \
  --variants intra --runs 1 --csv "$out/scan_intra.csv" | tee "$out/scan_intra.txt"

# CUDASW++4.0 (.device/peers, from pack-for-device --peers) on the same queries and database.
for i in $(seq 20); do zcat $db | sed "s/^>/>r${i}_/"; done > /tmp/db20.fa
mkdir -p /tmp/cdb && .device/peers/cudasw4/makedb /tmp/db20.fa /tmp/cdb/db > /dev/null
.device/peers/cudasw4/align --query "$out/queries.fasta" --db /tmp/cdb/db --dpx --top 50 --verbose | grep GCUPS | tee "$out/cudasw_dpx.txt"
.device/peers/cudasw4/align --query "$out/queries.fasta" --db /tmp/cdb/db --top 50 --verbose | grep GCUPS | tee "$out/cudasw_half2.txt"

# The whole search, wall clock, prepared database: team (default) and fast.
.device/clsw makedb -o /tmp/db20.clswdb /tmp/db20.fa > /dev/null
for v in team fast; do
  TIMEFORMAT="$v: %R s wall"
  time .device/clsw scan -q "$out/queries.fasta" -d /tmp/db20.clswdb --device gpu --variant $v \
    > "$out/search_$v.txt" 2> "$out/search_$v.err"
  tail -2 "$out/search_$v.err"
done
cmp "$out/search_team.txt" "$out/search_fast.txt" && echo "team and fast: identical output"

# ssearch36 on all cores, same database and the same queries, wall clock.
residues=181111380
for len in 144 464 1000 2005 5478; do
  awk -v h=">bench_$len " 'index($0,h)==1{p=1;print;next} /^>/{p=0} p' "$out/queries.fasta" > /tmp/q.fa
  s=$(date +%s%N)
  .device/ssearch36 -T "$(nproc)" -p -s BL62 -f -11 -g -1 -b 50 -d 0 -q /tmp/q.fa /tmp/db20.fa > "$out/ssearch_$len.txt"
  e=$(date +%s%N); ms=$(( (e - s) / 1000000 ))
  echo "ssearch36 -T $(nproc) query $len: $ms ms, $(( residues * len / ms / 1000000 )) GCUPS" | tee -a "$out/ssearch.txt"
done

# The native CPU path on all host cores, same database, for the CPU-to-CPU comparison.
.device/clsw bench scan --db $db --repeat 20 --queries $queries --lengths 464,1000 --variants native --runs 1 \
  --csv "$out/scan_native.csv" | tee "$out/scan_native.txt"

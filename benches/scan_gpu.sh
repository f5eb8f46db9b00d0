#!/usr/bin/env bash
# The scan benchmark of BENCHMARKS.md, run on the GPU machine from the repository root
# after `../shared/tools/pack-for-device --data` (clsw, ssearch36 and the UniProt data
# in .device/). Writes tables to $OUT (or ./bench-out).
#   benches/scan_gpu.sh [lengths]     default: the 20 classic query lengths
set -euo pipefail
out=${OUT:-bench-out}; mkdir -p "$out"
lengths=${1:-144,189,222,375,464,567,657,729,850,1000,1500,2005,2504,3005,3564,4061,4548,4743,5147,5478}
db=.device/data/uniprot20k.fasta.gz
queries=.device/data/queries500.fasta.gz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt" || true

# clsw: uniprot20k repeated 20 times (181,111,380 residues), BLOSUM62 11/1, median of 3.
.device/clsw bench scan --device gpu --db $db --repeat 20 --queries $queries --lengths "$lengths" \
  --variants fast,inter --runs 3 --write-queries "$out/queries.fasta" --csv "$out/scan.csv" | tee "$out/scan.txt"
# intra uploads the database on every call (no resident scanner): fewer lengths.
.device/clsw bench scan --device gpu --db $db --repeat 20 --queries $queries --lengths 464,1000,5478 \
  --variants intra --runs 1 --csv "$out/scan_intra.csv" | tee "$out/scan_intra.txt"

# ssearch36 on all cores, same database and the same queries, wall clock.
for i in $(seq 20); do zcat $db | sed "s/^>/>r${i}_/"; done > /tmp/db20.fa
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

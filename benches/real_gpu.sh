#!/usr/bin/env bash
# Scan on real databases, on the GPU machine, clsw beside CUDASW++4.0 in the same call
# (BENCHMARKS.md, "scan on real databases"). Run from the repository root with .device/ holding
# (xz-compressed where it says .xz, to fit a call's 64 MiB):
#   clsw.xz                    target/release/clsw
#   align.xz, makedb           CUDASW++4.0 (../shared/peers/cudasw4)
#   allqueries.fasta           CUDASW++4.0's 20 classic queries (its repository), the
#                              first of which is its warm-up
#   MFO.fasta.xz               benches/real_databases.sh's MFO (for `mfo`)
#   queries500.fasta.gz        ../shared/data (the 20 classic lengths are cut from it)
#   uniprot20k.fasta.gz        ../shared/data (for `quick`)
#   benches/real_gpu.sh mfo     MFO: team kernels with windows and long groups (the
#                               default), long groups alone (--windows 0 0) and neither
#                               (--long-cover 0), the real classic queries and the
#                               20 classic lengths cut from queries500; CUDASW++4.0 DPX
#                               on both query sets; both whole processes (50 hits)
#   benches/real_gpu.sh quick   uniprot20k x 20 shuffled copies, with and without the
#                               long tail; CUDASW++4.0's peak benchmark beside clsw's
# Tables go to $OUT (or ./bench-out).
set -euo pipefail
out=${OUT:-bench-out}; mkdir -p "$out"
D=.device
xz -dc $D/clsw.xz > /tmp/clsw && chmod +x /tmp/clsw
xz -dc $D/align.xz > /tmp/align && chmod +x /tmp/align
cp $D/makedb /tmp/makedb && chmod +x /tmp/makedb
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
/tmp/clsw devices | grep -E "^\[|self-test" | tee "$out/devices.txt"
# The classic queries' lengths: the bench cuts each length from the shortest query at
# least that long, so these are the real queries themselves.
real=$(awk '/^>/ {if (n) printf "%d,", n; n = 0; next} {n += length($0)} END {print n}' $D/allqueries.fasta)
TIMEFORMAT="%R"

case "${1:-mfo}" in
mfo)
  xz -dc $D/MFO.fasta.xz > /tmp/MFO.fa
  B="/tmp/clsw bench scan --device gpu --db /tmp/MFO.fa --queries $D/allqueries.fasta --lengths $real --variants team --scores-only --runs 3"
  $B --write-queries "$out/real.fa" | tee "$out/mfo.txt"
  $B --windows 0 0 | tee "$out/mfo_no_windows.txt"
  $B --long-cover 0 | tee "$out/mfo_no_long.txt"
  C="/tmp/clsw bench scan --device gpu --db /tmp/MFO.fa --queries $D/queries500.fasta.gz --variants team --scores-only --runs 3"
  $C --write-queries "$out/cut.fa" | tee "$out/mfo_cut.txt"
  mkdir -p /tmp/cdb && /tmp/makedb /tmp/MFO.fa /tmp/cdb/db > /dev/null
  /tmp/align --query "$out/real.fa" --db /tmp/cdb/db --dpx --top 50 --verbose 2>&1 | grep -E "GCUPS" | tee "$out/cudasw_dpx.txt"
  /tmp/align --query "$out/cut.fa" --db /tmp/cdb/db --dpx --top 50 --verbose 2>&1 | grep -E "GCUPS" | tee "$out/cudasw_dpx_cut.txt"
  # Whole processes, 50 hits each: a first run of each warms the caches (clsw's
  # programs, the page cache), then three timed runs each, in turn.
  /tmp/clsw makedb /tmp/MFO.fa -o /tmp/mfo.clswdb > /dev/null
  /tmp/clsw scan -q "$out/real.fa" -d /tmp/mfo.clswdb --device gpu --progress > /dev/null 2> "$out/clsw_progress.txt"
  /tmp/align --query "$out/real.fa" --db /tmp/cdb/db --dpx --top 50 > /dev/null 2>&1
  for i in 1 2 3; do
    { time /tmp/clsw scan -q "$out/real.fa" -d /tmp/mfo.clswdb --device gpu > "$out/clsw_hits.txt" 2> "$out/clsw_err.txt"; } 2>> "$out/wall_clsw.txt"
    { time /tmp/align --query "$out/real.fa" --db /tmp/cdb/db --dpx --top 50 > "$out/cudasw_hits.txt" 2>&1; } 2>> "$out/wall_cudasw.txt"
  done
  tail -1 "$out/clsw_err.txt"
  echo "whole process, s: clsw $(paste -sd' ' "$out/wall_clsw.txt"), CUDASW++4.0 $(paste -sd' ' "$out/wall_cudasw.txt")" | tee "$out/wall.txt"
  ;;
quick)
  B="/tmp/clsw bench scan --device gpu --db $D/uniprot20k.fasta.gz --repeat 20 --queries $D/allqueries.fasta --lengths $real --variants team --scores-only --runs 3"
  $B --csv "$out/u20.csv" | tee "$out/u20.txt"
  $B --long-tail --csv "$out/u20_tail.csv" | tee "$out/u20_tail.txt"
  $B --long-tail --long-cover 0 | tee "$out/u20_tail_no_long.txt"
  for L in 512 1024 2048; do
    /tmp/clsw bench scan --device gpu --pseudodb 1000000 $L --queries $D/allqueries.fasta --lengths $real \
      --variants team --scores-only --runs 3 | tee "$out/peak_$L.txt"
    /tmp/align --query $D/allqueries.fasta --pseudodb 1000000 $L --dpx --top 0 --verbose --uploadFull 2>&1 \
      | grep -E "GCUPS" | tee "$out/cudasw_peak_$L.txt"
  done
  ;;
esac

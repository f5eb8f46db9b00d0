#!/usr/bin/env bash
# Issue 17's benchmark: one GPU against every GPU of the host, whole processes by the
# wall clock, on the GPU machine from the repository root after
# `../shared/tools/pack-for-device --data`. Writes to $OUT (or ./bench-out):
#   scan: the 20 classic queries against uniprot20k x 20 (prepared), default search;
#         the summary line's database/devices/upload/programs seconds give the time
#         after setup;
#   psse: 64 queries x 1,000 subjects of queries500 / uniprot20k, 1,000 shuffles each;
#   sw3:  every triple of 64 channels of a 512-point random walk (41,664 triples, SAX
#         words of 512 letters).
# Each run three times per device setting (median in the table): $ONE (default `gpu`,
# the fastest GPU; `0` may be a CPU device) and `all` (every GPU); the outputs of the
# two are compared byte for byte.
set -euo pipefail
out=${OUT:-bench-out}; mkdir -p "$out"
B=.device/clsw
data=.device/data
export CLSW_CACHE_DIR=${CLSW_CACHE_DIR:-/tmp/clsw-cache}
one=${ONE:-gpu}
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpus.txt"

source benches/classic20.sh "$one"
zcat $data/queries500.fasta.gz | awk '/^>/{n++} n<=64' > /tmp/psse_q.fa
zcat $data/uniprot20k.fasta.gz | awk '/^>/{n++} n<=1000' > /tmp/psse_s.fa
awk 'BEGIN{srand(7); printf "ch0"; for(c=1;c<64;c++) printf ",ch%d", c; print "";
  for(i=0;i<512;i++){ for(c=0;c<64;c++){ x[c]+=rand()-0.5; printf (c?",":"") "%.4f", x[c] } print "" } }' \
  > /tmp/series.csv

# One job, one device setting, three runs: prints "job device ms1 ms2 ms3" (wall clock).
run() {
  local job=$1 dev=$2; shift 2
  local walls=()
  for r in 1 2 3; do
    local t0 t1
    t0=$(date +%s%N)
    "$@" --device "$dev" -o "$out/${job}_${dev}.out" 2> "$out/${job}_${dev}_$r.err"
    t1=$(date +%s%N)
    walls+=("$(( (t1 - t0) / 1000000 ))")
  done
  echo "$job $dev ${walls[*]}" | tee -a "$out/walls.txt"
}

# Warm the program caches (clsw's and the driver's) on both devices first.
$B scan -q "$queries" -d "$db20" --device all -o /dev/null 2> /dev/null
for dev in "$one" all; do
  run scan $dev $B scan -q "$queries" -d "$db20"
  run psse $dev $B psse --query /tmp/psse_q.fa --subject /tmp/psse_s.fa --shuffles 1000
  run sw3 $dev $B sw3 --series /tmp/series.csv --sax-word 512 --table "$out/sw3_table_$dev.tsv"
done
for job in scan psse sw3; do
  cmp "$out/${job}_$one.out" "$out/${job}_all.out" && echo "$job: one GPU and all GPUs give identical output"
done
cmp "$out/sw3_table_$one.tsv" "$out/sw3_table_all.tsv" && echo "sw3: identical tables"
for dev in "$one" all; do tail -1 "$out/scan_${dev}_3.err"; done
# Per query on all GPUs: each query's host time beside its scan.
$B scan -q "$queries" -d "$db20" --device all --progress -o /dev/null 2> "$out/progress_all.txt"
$B scan -q "$queries" -d "$db20" --device "$one" --progress -o /dev/null 2> "$out/progress_one.txt"
tail -3 "$out/progress_all.txt"

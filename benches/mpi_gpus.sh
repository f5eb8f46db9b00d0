#!/usr/bin/env bash
# Issues 15 and 17 on a host of two GPUs: clsw scan on one MPI rank of one GPU against
# two ranks of one GPU each (`--device rank-gpu`: each rank takes the GPU of its local
# rank), beside one process on one GPU and on both (`--device all`). On the GPU machine
# (the nvidia-h100-x2 or nvidia-h200-x2 kind) from the repository root, prepared as for
# benches/mpi_scan.sh. The 20 classic queries against uniprot20k x 20 (prepared), three
# runs each; rank 0's summary line (or, for one process, its database/devices/upload/
# programs seconds) gives the time after setup. Writes to $OUT (or ./bench-out); every
# output is compared byte for byte with the first.
set -euo pipefail
out=${OUT:-bench-out}; mkdir -p "$out"
B=.device/clsw
data=.device/data
export CLSW_CACHE_DIR=${CLSW_CACHE_DIR:-/tmp/clsw-cache}
if [ -f .device/openmpi/env.sh ]; then source .device/openmpi/env.sh; fi
nvidia-smi --query-gpu=index,name --format=csv,noheader | tee "$out/gpus.txt"
M="mpirun --bind-to none --oversubscribe --allow-run-as-root"

source benches/classic20.sh
scan=(scan -q "$queries" -d "$db20")

run() {
  local name=$1; shift
  for r in 1 2 3; do
    local t0 t1
    t0=$(date +%s%N)
    "$@" > "$out/$name.tsv" 2> "$out/${name}_$r.err"
    t1=$(date +%s%N)
    echo "$name run $r: $(( (t1 - t0) / 1000000 )) ms; $(tail -1 "$out/${name}_$r.err" | grep -o 'in [0-9.]* s (.*GCUPS)\|database [0-9.]* s, devices [0-9.]* s, upload [0-9.]* s, programs [0-9.]* s')" \
      | tee -a "$out/walls.txt"
  done
}

# Both GPUs' program caches warm first.
$B "${scan[@]}" --device all -o /dev/null 2> /dev/null
run one_gpu $B "${scan[@]}" --device gpu
run all_gpus $B "${scan[@]}" --device all
run rank1 $M -n 1 $B "${scan[@]}" --device rank-gpu
run rank2 $M -n 2 $B "${scan[@]}" --device rank-gpu
for name in all_gpus rank1 rank2; do
  cmp "$out/one_gpu.tsv" "$out/$name.tsv" && echo "$name: identical to one_gpu ($(wc -l < "$out/one_gpu.tsv") lines)"
done

#!/usr/bin/env bash
# Issue 15's benchmark: clsw scan over the MPI ranks of one host, whole processes, on
# the GPU machine from the repository root. Before the call, here:
#   ../shared/tools/pack-for-device --data
#   cargo build --release --features mpi && cp target/release/clsw .device/clsw
#   benches/mpi_bundle.sh .device/openmpi     (Open MPI for a host without one)
# Writes to $OUT (or ./bench-out):
#   cpu: the 20 classic queries against uniprot20k x 20 (prepared) on the native path,
#        mpirun -n 1 and -n 4 with --threads 4 per rank (16 cores), the four ranks
#        each bound to four cores of its own and free (--bind-to none, twice), the
#        database dealt to them by chunks; rank 0's summary line gives the wall clock
#        after setup (devices, database, calibration, shares, programs); the free
#        ranks' --progress lines (each rank's scan time per query) are in cpu4.err;
#        and one process without MPI (--threads 4, single.err), for comparison;
#   gpu: the GPU alone (one rank) and the GPU rank beside three CPU ranks of 4 threads
#        (MPMD), to show the shares follow the ranks' speeds.
# Every output is compared byte for byte with the first.
set -euo pipefail
out=${OUT:-bench-out}; mkdir -p "$out"
B=.device/clsw
data=.device/data
export CLSW_CACHE_DIR=${CLSW_CACHE_DIR:-/tmp/clsw-cache}
if [ -f .device/openmpi/env.sh ]; then source .device/openmpi/env.sh; fi
mpirun --version | head -1 | tee "$out/mpi.txt"
nproc | tee -a "$out/mpi.txt"
M="mpirun --bind-to none --oversubscribe --allow-run-as-root"

source benches/classic20.sh
scan=(scan -q "$queries" -d "$db20")

# One run: "name wall_ms" and rank 0's summary line.
run() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  "$@" > "$out/$name.tsv" 2> "$out/$name.err"
  t1=$(date +%s%N)
  echo "$name $(( (t1 - t0) / 1000000 )) ms" | tee -a "$out/walls.txt"
  grep '^clsw: .* MPI ranks' "$out/$name.err" | tee -a "$out/summaries.txt" || tail -3 "$out/$name.err"
}

# The GPU's program cache warm first (as a user's second run finds it).
$B "${scan[@]}" --device gpu -o /dev/null 2> /dev/null
run gpu1 $M -n 1 $B --threads 4 "${scan[@]}" --device gpu
run gpu1_cpu3 $M -n 1 $B --threads 4 "${scan[@]}" --device gpu : -n 3 $B --threads 4 "${scan[@]}" --device native
run cpu4_bound mpirun --map-by slot:PE=4 --bind-to core --oversubscribe --allow-run-as-root -n 4 $B --threads 4 "${scan[@]}" --device native
run cpu4 $M -n 4 $B --threads 4 "${scan[@]}" --device native --progress
run cpu4_again $M -n 4 $B --threads 4 "${scan[@]}" --device native
run cpu1 $M -n 1 $B --threads 4 "${scan[@]}" --device native
run single $B --threads 4 "${scan[@]}" --device native
grep '^clsw: 20 queries' "$out/single.err" | tee -a "$out/summaries.txt"
for name in gpu1_cpu3 cpu4_bound cpu4 cpu4_again cpu1 single; do
  cmp "$out/gpu1.tsv" "$out/$name.tsv" && echo "$name: identical to gpu1 ($(wc -l < "$out/gpu1.tsv") lines)"
done

#!/usr/bin/env bash
# Issue 15's benchmark: clsw scan over the MPI ranks of one host, whole processes, on
# the GPU machine from the repository root. Before the call, here:
#   ../shared/tools/pack-for-device --data
#   cargo build --release --features mpi,bench && cp target/release/clsw .device/clsw
#   benches/mpi_bundle.sh .device/openmpi     (Open MPI for a host without one)
# Runs, in this order (the bar's first, so that a call cut short keeps them):
#   cpu: the 20 classic queries against uniprot20k x 20 (prepared) on the native path,
#        mpirun -n 1 and -n 4 with --threads 4 per rank (16 cores), the four ranks
#        each bound to four cores of its own and free (--bind-to none, twice), the
#        database dealt to them by chunks; rank 0's summary line gives the wall clock
#        after setup (devices, database, calibration, shares, programs);
#   gpu: the GPU alone (one rank) and the GPU rank beside three CPU ranks of 4 threads
#        (MPMD), to show the shares follow the ranks' speeds;
#   and one process without MPI (--threads 4), for comparison.
# Writes to $OUT (or ./bench-out) a few small files, each line as it comes: mpi.txt
# (Open MPI, cores), walls.txt, summaries.txt (every run's summary line), progress.txt
# (the first free 4 x 4 run's --progress: each rank's scan time per query) and
# identical.txt (every output compared byte for byte with the reference's). The outputs
# themselves stay in $WORK (/tmp/mpi_scan).
set -euo pipefail
out=${OUT:-bench-out}; mkdir -p "$out"
work=${WORK:-/tmp/mpi_scan}; mkdir -p "$work"
B=.device/clsw
data=.device/data
export CLSW_CACHE_DIR=${CLSW_CACHE_DIR:-/tmp/clsw-cache}
if [ -f .device/openmpi/env.sh ]; then source .device/openmpi/env.sh; fi
mpirun --version | head -1 | tee "$out/mpi.txt"
nproc | tee -a "$out/mpi.txt"
M="mpirun --bind-to none --oversubscribe --allow-run-as-root"

source benches/classic20.sh
scan=(scan -q "$queries" -d "$db20")

# One run: "name wall_ms", its summary line, and its output against the reference's.
run() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  "$@" > "$work/$name.tsv" 2> "$work/$name.err"
  t1=$(date +%s%N)
  echo "$name $(( (t1 - t0) / 1000000 )) ms" | tee -a "$out/walls.txt"
  { grep '^clsw: 20 queries' "$work/$name.err" || tail -3 "$work/$name.err"; } | sed "s/^/$name: /" | tee -a "$out/summaries.txt"
  if [ "$name" != cpu1 ]; then
    cmp "$work/cpu1.tsv" "$work/$name.tsv" && echo "$name: identical to cpu1 ($(wc -l < "$work/cpu1.tsv") lines)" | tee -a "$out/identical.txt"
  fi
}

run cpu1 $M -n 1 $B --threads 4 "${scan[@]}" --device native
run cpu4_bound mpirun --map-by slot:PE=4 --bind-to core --oversubscribe --allow-run-as-root -n 4 $B --threads 4 "${scan[@]}" --device native
run cpu4 $M -n 4 $B --threads 4 "${scan[@]}" --device native --progress
grep '^clsw: rank' "$work/cpu4.err" > "$out/progress.txt" || true
run cpu4_again $M -n 4 $B --threads 4 "${scan[@]}" --device native
# The GPU's program cache warm first (as a user's second run finds it).
$B "${scan[@]}" --device gpu -o /dev/null 2> /dev/null
run gpu1 $M -n 1 $B --threads 4 "${scan[@]}" --device gpu
run gpu1_cpu3 $M -n 1 $B --threads 4 "${scan[@]}" --device gpu : -n 3 $B --threads 4 "${scan[@]}" --device native
run single $B --threads 4 "${scan[@]}" --device native

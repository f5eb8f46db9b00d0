# Sourced by the GPU machine's benchmarks (benches/multi_gpu.sh, mpi_scan.sh,
# mpi_gpus.sh): the 20 classic queries of queries500 and uniprot20k x 20 prepared, the
# inputs every one of them searches. Needs B (the clsw binary), data (the packed data
# folder) and out; sets `queries` and `db20`. $1: the device that writes the queries
# [gpu].
queries=$out/queries.fasta
db20=/tmp/db20.clswdb
$B bench scan --device "${1:-gpu}" --db $data/uniprot20k.fasta.gz --queries $data/queries500.fasta.gz \
  --variants team --scores-only --runs 1 --write-queries "$queries" > /dev/null
for i in $(seq 20); do zcat $data/uniprot20k.fasta.gz | sed "s/^>/>r${i}_/"; done > /tmp/db20.fa
$B makedb -o "$db20" /tmp/db20.fa > /dev/null

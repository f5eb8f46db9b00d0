#!/usr/bin/env bash
# Two real protein databases of distinct sequences, as FASTA, from Debian's packages:
# the Swiss-Prot GO sets that metastudent-data ships as BLAST databases (data of
# Hamp et al., Metastudent; UniProt data, CC BY 4.0): MFO (molecular function, about
# 459,000 sequences, 170 M residues, longest 35,213) and CCO (cellular component, about
# 393,000 sequences, 143 M residues). Needs apt-get (download only: no root) and
# blastdbcmd (Debian's ncbi-blast+).
#   benches/real_databases.sh OUTDIR        writes OUTDIR/MFO.fasta and OUTDIR/CCO.fasta
# For the GPU machine (64 MiB a call): `xz -9` makes MFO.fasta about 50 MB.
set -euo pipefail
out=${1:?usage: benches/real_databases.sh OUTDIR}
command -v blastdbcmd >/dev/null || { echo "blastdbcmd missing: apt-get install ncbi-blast+" >&2; exit 1; }
mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download metastudent-data >/dev/null)
dpkg -x "$work"/metastudent-data_*.deb "$work/x"
for set in MFO CCO; do
  blastdbcmd -db "$work/x/usr/share/metastudent-data/dataset_201401/$set/goasp.fasta" -entry all \
    > "$out/$set.fasta"
  awk -v set="$set" '/^>/ {n++; next} {r += length($0)} END {printf "%s: %d sequences, %d residues\n", set, n, r}' \
    "$out/$set.fasta"
done

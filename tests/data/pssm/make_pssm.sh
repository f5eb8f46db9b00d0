#!/usr/bin/env bash
# Makes the PSI-BLAST profiles in this folder (issue 41): queries 2, 8 and 10 of
# tests/data/queries10.fasta (80, 744 and 1,491 residues), three iterations against
# tests/data/uniprot2k.fasta.gz, written with -out_ascii_pssm (and query 2 with
# -out_pssm). Needs Debian's ncbi-blast+ (psiblast 2.12 made these). Run from the
# repository root.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
zcat tests/data/uniprot2k.fasta.gz > "$work/u2k.fasta"
makeblastdb -in "$work/u2k.fasta" -dbtype prot -out "$work/u2k" > /dev/null
for k in 2 8 10; do
  awk -v k="$k" '/^>/{n++} n==k' tests/data/queries10.fasta > "$work/q$k.fasta"
  psiblast -query "$work/q$k.fasta" -db "$work/u2k" -num_iterations 3 -evalue 10 \
    -inclusion_ethresh 0.01 -out_ascii_pssm "tests/data/pssm/queries10_$k.pssm" > /dev/null
done
# Query 2's checkpoint too (ASN.1 text: every letter's scores, B, Z, X and * included).
psiblast -query "$work/q2.fasta" -db "$work/u2k" -num_iterations 3 -evalue 10 \
  -inclusion_ethresh 0.01 -out_pssm tests/data/pssm/queries10_2.asn > /dev/null

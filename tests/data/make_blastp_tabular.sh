#!/bin/sh
# BLAST+'s own -outfmt 6 lines for queries10 against uniprot300 (tests/blast_format.rs
# compares clsw's tabular format with them). Needs NCBI BLAST+ (Debian: ncbi-blast+;
# the committed file was made by blastp 2.12.0+). Smith-Waterman traceback, no
# composition statistics and no SEG, so that strong hits align as clsw aligns them.
set -eu
cd "$(dirname "$0")/../.."
D=tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
makeblastdb -in $D/uniprot300.fasta -dbtype prot -out "$tmp/uniprot300" >/dev/null
blastp -query $D/queries10.fasta -db "$tmp/uniprot300" -outfmt 6 -evalue 10 -max_target_seqs 50 \
  -comp_based_stats 0 -seg no -use_sw_tback -matrix BLOSUM62 -gapopen 11 -gapextend 1 \
  > $D/blastp_queries10_uniprot300.tsv

#!/bin/sh
# BLAST+'s own tabular output for queries10 against uniprot300 (tests/blast_format.rs
# compares clsw's tabular formats with it). Needs NCBI BLAST+ (Debian: ncbi-blast+;
# the committed files were made by blastp 2.12.0+). Smith-Waterman traceback, no
# composition statistics and no SEG, so that strong hits align as clsw aligns them.
#   blastp_queries10_uniprot300.tsv          -outfmt 6 (default 12 columns)
#   blastp_columns_queries10_uniprot300.tsv  -outfmt "6 <28 columns>" (same run)
#   blastp_outfmt7_queries10_uniprot300.txt  -outfmt 7 (same run, with comment lines)
set -eu
cd "$(dirname "$0")/../.."
D=tests/data
R=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
makeblastdb -in $D/uniprot300.fasta -dbtype prot -out "$tmp/uniprot300" >/dev/null
OPTS="-evalue 10 -max_target_seqs 50 -comp_based_stats 0 -seg no -use_sw_tback -matrix BLOSUM62 -gapopen 11 -gapextend 1"
blastp -query $D/queries10.fasta -db "$tmp/uniprot300" -outfmt 6 $OPTS \
  > $D/blastp_queries10_uniprot300.tsv
# Run from inside the temporary directory with -db uniprot300, so that -outfmt 7 prints
# "# Database: uniprot300" and no temporary path.
COLUMNS="qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score qlen slen qcovs qcovhsp nident positive gaps ppos btop qseq sseq qacc qaccver sacc saccver sstrand"
(cd "$tmp" && blastp -query "$R/$D/queries10.fasta" -db uniprot300 -outfmt "6 $COLUMNS" $OPTS) \
  > $D/blastp_columns_queries10_uniprot300.tsv
(cd "$tmp" && blastp -query "$R/$D/queries10.fasta" -db uniprot300 -outfmt 7 $OPTS) \
  > $D/blastp_outfmt7_queries10_uniprot300.txt

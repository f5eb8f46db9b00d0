#!/bin/sh
# ssearch36's own -m 8 lines for queries10 against uniprot300 (tests/blast_format.rs
# compares clsw's --outfmt ssearch-m8 with them). Needs FASTA 36 (Debian: fasta3; the
# committed file was made by ssearch36 36.3.8i). BLOSUM62 11/1 (ssearch36 -f -11 -g -1),
# 50 hits with E <= 10 a query. With a library this small ssearch36 takes its statistics
# from shuffles with a time-seeded generator: E-values and bit scores change from run to
# run; the alignments do not.
set -eu
cd "$(dirname "$0")/../.."
D=tests/data
ssearch36 -q -p -m 8 -b 50 -d 0 -E 10 -s BL62 -f -11 -g -1 $D/queries10.fasta $D/uniprot300.fasta \
  > $D/ssearch36_m8_queries10_uniprot300.tsv

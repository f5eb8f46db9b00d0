#!/bin/sh
# Regenerate every derived file in tests/data (deterministic).
# Run from anywhere; needs python3, ssearch36 (fasta3), parasail_aligner and BLAST+.
# make_ssearch_stats.sh runs $SSEARCH36 (default: ssearch36 on PATH).
# The UniProt source is expected in ../shared/data relative to the repository
# root (override: UNIPROT=... QUERIES=... sh tests/data/regenerate.sh).
set -eu
cd "$(dirname "$0")/../.."
D=tests/data
UNIPROT=${UNIPROT:-../shared/data/uniprot20k.fasta.gz}
QUERIES=${QUERIES:-../shared/data/queries500.fasta.gz}
python3 $D/make_subsets.py --uniprot "$UNIPROT" --queries "$QUERIES" --outdir $D
python3 $D/make_dna_pairs.py --out $D/dna_pairs.fasta
python3 $D/gap_convention.py --outdir $D
python3 $D/check_matrices.py --matrix-dir $D/matrices > $D/matrix_check.txt
python3 $D/make_golden.py --datadir $D --matrix-dir $D/matrices
python3 $D/make_ssearch_top50.py --datadir $D
python3 $D/make_stats_sets.py --uniprot "$UNIPROT" --queries "$QUERIES" --outdir $D
sh $D/make_ssearch_stats.sh
sh $D/make_blastp_tabular.sh

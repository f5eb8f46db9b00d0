#!/bin/sh
# ssearch36's E-value statistics, as reference data for clsw's regression statistics
# (Expectation_n fit of raw score on ln(subject length), no shuffling) and for alternate
# (additional non-overlapping) alignments. Needs FASTA 36 (Debian: fasta3; the committed
# files were made by ssearch36 36.3.8i) and the inputs from make_stats_sets.py.
# Deterministic: single-threaded (-T 1), and with >= 500 library sequences (uniprot2k) or
# -k 100 (uniprot300 + repeats3) ssearch36 fits its regression to the real library scores
# instead of time-seeded shuffles.
#   ssearch36_z1_uniprot2k.tsv   50 best hits (-m 8CBr: with raw score), 5 queries x 2 settings
#   ssearch36_z1_fits.tsv        the fitted regression printed in the default output
#   ssearch36_alternates.tsv     queries10 record 5 vs uniprot300 + repeats_subject.fasta,
#                                alternate alignments on (-E 10 = "10 1")
# Usage (from anywhere): SSEARCH36=/path/to/ssearch36 sh tests/data/make_ssearch_stats.sh
set -eu
cd "$(dirname "$0")/../.."
D=tests/data
SSEARCH36=${SSEARCH36:-ssearch36}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc $D/uniprot2k.fasta.gz > "$tmp/uniprot2k.fasta"

# -m 8CBr columns: qseqid sseqid pident length mismatch gapopen qstart qend sstart send
# evalue bitscore raw BTOP (the "# Fields:" comment wrongly lists query/subject length too).
# Kept: setting qseqid sseqid qstart qend sstart send evalue bitscore raw.
tab() {  # setting < ssearch36 -m 8CBr output
  awk -F '\t' -v OFS='\t' -v set="$1" '!/^#/ { print set, $1, $2, $7, $8, $9, $10, $11, $12, $13 }'
}
# The default output prints, per query:
#   "  N>>>QID description - LEN aa", "   R residues in  N sequences",
#   "Statistics:  Expectation_n fit: rho(ln(x))= 3.6025+/-0.00193; mu= 6.6119+/- 0.115",
#   " mean_var=22.8285+/- 4.277, 0's: 1 Z-trim(104.8): 1  B-trim: 0 in 0/51"
fits() {  # setting < ssearch36 default output
  awk -v OFS='\t' -v set="$1" '
    />>>/ { sub(/^ *[0-9]+>>>/, ""); q = $1; qlen = $(NF - 1); rho = mu = mv = "" }
    / residues in .* sequences$/ { nlib = $(NF - 1) }
    /Expectation_n fit:/ { split($0, a, /rho\(ln\(x\)\)= */); split(a[2], b, /\+\/-/); rho = b[1]
                           split($0, a, /; mu= */); split(a[2], b, /\+\/-/); mu = b[1] }
    /^ mean_var=/ { split($0, a, /mean_var= */); split(a[2], b, /\+\/-/); mv = b[1]
                    if (rho == "" || mu == "") { print "no Expectation_n fit for " q > "/dev/stderr"; exit 1 }
                    print set, q, qlen, rho, mu, mv, nlib }'
}
COLS='setting\tqseqid\tsseqid\tqstart\tqend\tsstart\tsend\tevalue\tbitscore\traw_score'

printf "# $COLS\n" > $D/ssearch36_z1_uniprot2k.tsv
printf '# setting\tqseqid\tqlen\trho_ln\tmu\tmean_var\tn_lib\n' > $D/ssearch36_z1_fits.tsv
for s in "b62 EBLOSUM62 -11 -1" "b50 EBLOSUM50 -10 -2"; do
  set -- $s
  opts="-q -T 1 -p -s $D/matrices/$2 -f $3 -g $4 -z 1 -b 50 -d 0"
  $SSEARCH36 $opts -E "1e6 0" -m 8CBr $D/queries_stats.fasta "$tmp/uniprot2k.fasta" \
    | tab $1 >> $D/ssearch36_z1_uniprot2k.tsv
  $SSEARCH36 $opts -E "1e6 0" $D/queries_stats.fasta "$tmp/uniprot2k.fasta" \
    | fits $1 >> $D/ssearch36_z1_fits.tsv
done

# Alternate alignments: library = uniprot300 (299 records) + repeats3 (3 mutated copies of
# the query), 300 sequences; -k 100 (fewer than 500 library sequences would otherwise make
# ssearch36 shuffle).
python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import sw_tools
sw_tools.write_fasta(sys.argv[2], sw_tools.read_fasta(sys.argv[1] + "/queries10.fasta")[4:5])
' $D "$tmp/q5.fasta"
cat $D/uniprot300.fasta $D/repeats_subject.fasta > "$tmp/lib.fasta"
opts="-q -T 1 -p -s $D/matrices/EBLOSUM62 -f -11 -g -1 -z 1 -k 100 -b 50 -d 0 -m 8CBr"
printf "# $COLS\n" > $D/ssearch36_alternates.tsv
$SSEARCH36 $opts -E 10 "$tmp/q5.fasta" "$tmp/lib.fasta" | tab b62 >> $D/ssearch36_alternates.tsv
# Check: repeats3 gets 3 lines with disjoint subject ranges, and nothing else has
# alternates; with -E "10 0" the alternates disappear and all other lines stay the same.
awk -F '\t' '$3 == "repeats3" { n++; print $6, $7 }' $D/ssearch36_alternates.tsv | sort -n | awk '
  { if (NR > 1 && $1 <= e) { print "repeats3 ranges overlap" > "/dev/stderr"; exit 1 } e = $2; n++ }
  END { if (n != 3) { print "repeats3: " n " lines, expected 3" > "/dev/stderr"; exit 1 } }'
$SSEARCH36 $opts -E "10 0" "$tmp/q5.fasta" "$tmp/lib.fasta" | tab b62 > "$tmp/noalt.tsv"
awk -F '\t' '!/^#/ && !seen[$3]++' $D/ssearch36_alternates.tsv | cmp -s - "$tmp/noalt.tsv" || {
  echo 'with -E "10 0": output is not the -E 10 output minus the alternate lines' >&2; exit 1; }

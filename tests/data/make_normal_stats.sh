#!/bin/sh
# ggsearch36's and glsearch36's normal-distribution statistics (scaleswn.c compiled with
# -DNORMAL_DIST: proc_hist_n for the default -z 0, proc_hist_anorm for -z 3), as reference
# data for src/stats/normal.rs (tests/stats_normal.rs).
#
# Made with the stock programs of FASTA 36.3.8i (Debian package fasta3
# 36.3.8i.14-Nov-2020-1; `ggsearch36 -version` prints "version 36.3.8i Nov, 2022"):
#   cd /tmp && apt-get download fasta3 && dpkg -x fasta3_*.deb /tmp/fasta3/root
#   GGSEARCH36=/tmp/fasta3/root/usr/bin/ggsearch36 GLSEARCH36=/tmp/fasta3/root/usr/bin/glsearch36 \
#     sh tests/data/make_normal_stats.sh
# Deterministic: single-threaded (-T 1) and no shuffling. Both programs shuffle (with a
# clock seed) when fewer library sequences than shuff_max (gg 100, gl 500) fall in the
# length window, so every search here has more than that: for each query,
#   ggsearch36 scores library sequences with (int)(0.75*n0+0.5) <= n1 <= (int)(1.33*n0-0.5)
#   glsearch36 scores library sequences with n1 >= (int)(0.75*n0+0.5), with no upper bound
# (dropnnw2.c init_work; checked on these outputs: E(N) equals the number of uniprot2k records
# in that window for every query of both programs, e.g. 531 / 1387 for the 300-aa query).
#
# Searches (options common to all: -q -T 1 -d 0 -b 5000 -E 1e9, so that the best-score list
# holds every library sequence that was scored, i.e. every score the statistics saw):
#   queries  queries_stats.fasta records 1, 2 (100 and 300 aa) and queries10.fasta records
#            7, 8 (493 and 744 aa), against uniprot2k (2,000 records);
#            plus the 100-aa query against uniprot2k + normal_stats_planted.fasta (24 copies of
#            it with 60-80% random substitutions: scores above 100, which proc_hist_n leaves
#            out, and scores it trims at z > 5; glsearch36 BL62 trims 9 of them, which runs
#            proc_hist_n's trimming loop more than once)
#   scoring  b50: the programs' defaults (BL50; ggsearch36 open/ext -10/-2, glsearch36 -12/-2)
#            b62: -s BL62 -f -11 -g -1
#   stats    z0: the default (-z 0, proc_hist_n); z3: -z 3 (proc_hist_anorm), best 20 only
# Output:
#   normal_stats_planted.fasta   the 24 planted sequences (python3 random.Random(20261127);
#                                copy k = 1..24 has rate 0.60 + 0.20*(k-1)/23; each residue of
#                                the query is replaced, with probability rate, by
#                                rng.choice("ACDEFGHIKLMNPQRSTVWY"), which may be itself)
#   normal_stats_fits.tsv        one row per search: the query and its length, the statistics
#                                line (mu, var, Ztrim), the number of scores fitted (B of
#                                "statistics sampled from A (B) to C"; A and C count the scores
#                                whose z-score falls in the histogram's 0..120), the N of E(N)
#                                and the header's open/ext
#   normal_stats_hits.tsv.gz     one row per best-score line: subject (0-based record index in
#                                the library, uniprot2k then planted), its length, the raw
#                                "n-w" score, bits (%.1f) and E(N) (%7.2g)
set -eu
cd "$(dirname "$0")/../.."
D=tests/data
GGSEARCH36=${GGSEARCH36:-ggsearch36}
GLSEARCH36=${GLSEARCH36:-glsearch36}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gzip -dc $D/uniprot2k.fasta.gz > "$tmp/u2k.fasta"
record() {  # file, 1-based record number
  awk -v n="$2" '/^>/ { k++ } k == n' "$1"
}
{ record $D/queries_stats.fasta 1; record $D/queries_stats.fasta 2
  record $D/queries10.fasta 7; record $D/queries10.fasta 8; } > "$tmp/queries.fasta"
record $D/queries_stats.fasta 1 > "$tmp/q100.fasta"

python3 - "$tmp/q100.fasta" > $D/normal_stats_planted.fasta <<'EOF'
import random, sys
lines = open(sys.argv[1]).read().split("\n")
name, seq = lines[0][1:].split()[0], "".join(lines[1:])
rng = random.Random(20261127)
for k in range(24):
    rate = 0.60 + 0.20 * k / 23
    s = "".join(rng.choice("ACDEFGHIKLMNPQRSTVWY") if rng.random() < rate else c for c in seq)
    print(f">planted{k + 1} {rate:.3f} substituted copy of {name}")
    print(s)
EOF
cat "$tmp/u2k.fasta" $D/normal_stats_planted.fasta > "$tmp/u2kp.fasta"

# Default output, per query:
#   "  1>>>ID description - 300 aa"
#   "Statistics:  Unscaled normal statistics: mu= -95.8542  var=1188.7472 Ztrim: 0"
#   (-z 3: "Statistics:  Unscaled normal (median, IQR) statistics: mu= ...")
#   " statistics sampled from 528 (531) to 528 sequences"
#   "Parameters: BL50 matrix (15:-5), open/ext: -10/-2"
#   "The best scores are:                                      n-w bits E(531)"
#   "tr|A0A0C7DUY2|A0A0C7DUY2_9GAMM Diaminopimelate epi ( 270)  360 41.6 1.8e-37"
#   ... up to a blank line.
parse() {  # setting program stats library fits-file hits-file < output
  awk -v OFS='\t' -v set="$1" -v prog="$2" -v st="$3" -v lib="$4" -v fits="$5" -v hits="$6" '
    FNR == NR { if (/^>/) { sub(/^>/, ""); idx[$1] = n++ }; next }
    />>>/ { sub(/^ *[0-9]+>>>/, ""); q = $1; qlen = $(NF - 1); inlist = 0; next }
    /^Statistics:/ { if ($0 ~ /shuffled/) { print "shuffled statistics for " q > "/dev/stderr"; exit 1 }
                     split($0, a, /mu= */); split(a[2], b, / /); mu = b[1]
                     split($0, a, /var= */); split(a[2], b, / /); v = b[1]
                     split($0, a, /Ztrim: */); zt = a[2] + 0; next }
    /^ statistics sampled from/ { nst = $5; gsub(/[()]/, "", nst); next }
    /^Parameters:/ { split($0, a, /open\/ext: */); split(a[2], b, /\//); go = b[1]; ge = b[2]; next }
    /^The best scores are:/ { n_e = $NF; gsub(/[^0-9]/, "", n_e); inlist = 1
      print set, prog, st, lib, q, qlen, mu, v, zt, nst, n_e, go, ge >> fits; next }
    inlist && /^$/ { inlist = 0; next }
    inlist { id = $1; if (!(id in idx)) { print "unknown subject " id > "/dev/stderr"; exit 1 }
             l = $0; sub(/\) +[-0-9]+ +[-0-9.]+ +[^ ]+ *$/, "", l); sub(/.*\( */, "", l)
             print set, prog, st, lib, q, idx[id], l, $(NF - 2), $(NF - 1), $NF >> hits }
  ' "$tmp/$4.fasta" -
}

printf 'setting\tprogram\tstats\tlibrary\tquery\tqlen\tmu\tvar\tztrim\tn_stats\tdb_size\topen\text\n' > "$tmp/fits.tsv"
printf 'setting\tprogram\tstats\tlibrary\tquery\tsubject\tn1\traw\tbits\tevalue\n' > "$tmp/hits.tsv"
for lib in u2k u2kp; do
  q="$tmp/queries.fasta"
  [ $lib = u2kp ] && q="$tmp/q100.fasta"
  for prog in gg gl; do
    if [ $prog = gg ]; then P=$GGSEARCH36; else P=$GLSEARCH36; fi
    for set in b50 b62; do
      sc=""
      [ $set = b62 ] && sc="-s BL62 -f -11 -g -1"
      for st in z0 z3; do
        if [ $st = z0 ]; then so="-b 5000"; else so="-z 3 -b 20"; fi
        # shellcheck disable=SC2086
        $P -q -T 1 -d 0 -E 1e9 $sc $so "$q" "$tmp/$lib.fasta" \
          | parse $set $prog $st $lib "$tmp/fits.tsv" "$tmp/hits.tsv"
      done
    done
  done
done
cp "$tmp/fits.tsv" $D/normal_stats_fits.tsv
gzip -9n < "$tmp/hits.tsv" > $D/normal_stats_hits.tsv.gz

#!/usr/bin/env python3
"""Build tests/data/parasail_modes.tsv: global and glocal scores from parasail, the
independent check of src/reference's global and glocal modes (issue 42).

Usage (from the repository root, with `pip install parasail numpy`; parasail 1.3.4
bundles libparasail 2.6.1):
    python3 tests/data/make_parasail_modes.py

Pairs: 1,000 pairs of uniprot300.fasta's records (those of the 20 standard letters and
at most 1,500 residues, in file order; pair k is records k mod N and (37 k + 11) mod N),
so queries are shorter and longer than their subjects. Scorings: BLOSUM62 11/1 and
BLOSUM50 10/2 in clsw's convention (a gap of L residues costs open + L extend), which
parasail takes as open + extend and extend. Modes: global is parasail's `nw`; glocal
(the query whole, the subject from anywhere to anywhere) is `sg_dx` (free end gaps at
both ends of the database sequence, its second argument).

Columns: query (record index), subject (record index), matrix, gap_open, gap_extend,
mode, score.
"""
import os
import sys

import parasail

HERE = os.path.dirname(os.path.abspath(__file__))
STANDARD = set("ACDEFGHIKLMNPQRSTVWY")


def records(path):
    out = []
    for line in open(path):
        line = line.strip()
        if line.startswith(">"):
            out.append("")
        elif out:
            out[-1] += line
    return out


def main():
    seqs = records(os.path.join(HERE, "uniprot300.fasta"))
    usable = [k for k, s in enumerate(seqs) if set(s) <= STANDARD and len(s) <= 1500]
    n = len(usable)
    scorings = [("BLOSUM62", parasail.blosum62, 11, 1), ("BLOSUM50", parasail.blosum50, 10, 2)]
    modes = [("global", parasail.nw), ("glocal", parasail.sg_dx)]
    with open(os.path.join(HERE, "parasail_modes.tsv"), "w") as out:
        out.write("query\tsubject\tmatrix\tgap_open\tgap_extend\tmode\tscore\n")
        for k in range(1000):
            a, b = usable[k % n], usable[(37 * k + 11) % n]
            for name, matrix, gap_open, gap_extend in scorings:
                for mode, function in modes:
                    score = function(seqs[a], seqs[b], gap_open + gap_extend, gap_extend, matrix).score
                    out.write(f"{a}\t{b}\t{name}\t{gap_open}\t{gap_extend}\t{mode}\t{score}\n")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Independent check of golden_scores.tsv with a plain Python Smith-Waterman
(Gotoh) written directly in clsw's (BLAST) convention: a gap of length L
costs gap_open + L*gap_extend.  Scores come from the NCBI matrix files in
tests/data/matrices (EDNAFULL for the DNA rows, identical to +5/-4 on ACGT).

Slow (pure Python), so by default only rows whose query x subject size is at
most --max-cells are checked.  Usage:
    python3 tests/data/verify_golden_python.py [--max-cells 400000]
Exit status 1 if any checked row differs.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sw_tools  # noqa: E402

MATFILE = {"BLOSUM62": "EBLOSUM62", "BLOSUM50": "EBLOSUM50", "BLOSUM80": "EBLOSUM80",
           "BLOSUM45": "EBLOSUM45", "PAM250": "EPAM250", "PAM30": "EPAM30",
           "EDNAFULL": "EDNAFULL"}


def sw_blast(q, s, m, gap_open, gap_extend):
    """Smith-Waterman, affine gaps, gap of length L costs open + L*extend."""
    first = gap_open + gap_extend
    n = len(s)
    H = [0] * (n + 1)          # H of previous row
    F = [-10**9] * (n + 1)     # best ending with a gap in the query (vertical)
    best = 0
    for a in q:
        row = m[a]
        Hprev_diag = 0
        E = -10**9             # best ending with a gap in the subject (horizontal)
        Hleft = 0
        for j in range(1, n + 1):
            f = max(F[j] - gap_extend, H[j] - first)
            F[j] = f
            E = max(E - gap_extend, Hleft - first)
            h = Hprev_diag + row[s[j - 1]]
            if E > h:
                h = E
            if f > h:
                h = f
            if h < 0:
                h = 0
            Hprev_diag = H[j]
            H[j] = h
            Hleft = h
            if h > best:
                best = h
    return best


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--datadir", default=here)
    ap.add_argument("--matrix-dir", default=os.path.join(here, "matrices"))
    ap.add_argument("--max-cells", type=int, default=400000)
    args = ap.parse_args()
    seqs = {}
    for f in ("queries10.fasta", "golden_subjects.fasta", "dna_pairs.fasta"):
        for h, s in sw_tools.read_fasta(os.path.join(args.datadir, f)):
            seqs[sw_tools.seq_id(h)] = s
    mats = {}
    for name, fn in MATFILE.items():
        cols, ref = sw_tools.read_ncbi_matrix(os.path.join(args.matrix_dir, fn))
        mats[name] = {a: {b: ref[(a, b)] for b in cols} for a in cols}
    checked = bad = 0
    with open(os.path.join(args.datadir, "golden_scores.tsv")) as f:
        next(f)
        for line in f:
            q, s, mat, op, ex, score, tool = line.rstrip("\n").split("\t")
            if len(seqs[q]) * len(seqs[s]) > args.max_cells:
                continue
            got = sw_blast(seqs[q], seqs[s], mats[mat], int(op), int(ex))
            checked += 1
            if got != int(score):
                bad += 1
                print("MISMATCH", q, s, mat, op, ex, "golden", score, "python", got)
    print(f"checked {checked} rows with the Python reference, {bad} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Build tests/data/parasail_pssm.tsv: local alignment scores of PSI-BLAST profiles from
parasail, the independent check of clsw's position-specific scoring (issue 41).

Usage (from the repository root, with `pip install parasail numpy`; parasail 1.3.4
bundles libparasail 2.6.1, whose `parasail_matrix_pssm_create` the Python binding does
not wrap, so it is called through ctypes):
    python3 tests/data/make_parasail_pssm.py

Profiles: the three ASCII PSSMs in tests/data/pssm/ (tests/data/pssm/make_pssm.sh made
them). Each row's 20 scores are the file's; parasail's profile has those 20 columns only,
so the subjects are the records of uniprot2k.fasta.gz made of the 20 standard letters.
Pairs: each profile against the first 334 such records (1,002 pairs). Scoring: the
profile's scores with gaps 11/1 in clsw's convention (a gap of L residues costs
open + L extend), which parasail takes as open + extend and extend; the alignment is
parasail's serial `sw` (Smith-Waterman).

Columns: profile (file name), subject (record index in uniprot2k.fasta.gz), gap_open,
gap_extend, score.
"""
import ctypes
import gzip
import os
import sys

import parasail

HERE = os.path.dirname(os.path.abspath(__file__))
STANDARD = "ARNDCQEGHILKMFPSTWYV"
PROFILES = ["queries10_2.pssm", "queries10_8.pssm", "queries10_10.pssm"]
GAP_OPEN, GAP_EXTEND = 11, 1


def records(path):
    out = []
    for line in gzip.open(path, "rt"):
        line = line.strip()
        if line.startswith(">"):
            out.append("")
        elif out:
            out[-1] += line
    return out


def read_pssm(path):
    """The query and its rows of 20 scores (columns in the header's order)."""
    columns, query, rows = None, "", []
    for line in open(path):
        words = line.split()
        if columns is None:
            if len(words) >= 20 and all(len(w) == 1 and w.isalpha() for w in words):
                columns = words[:20]
            continue
        if not words:
            if rows:
                break
            continue
        if not words[0].isdigit():
            break
        query += words[1]
        row = dict(zip(columns, (int(w) for w in words[2:22])))
        rows.append([row[c] for c in STANDARD])
    return query, rows


def pssm_matrix(rows):
    lib = parasail.bindings_v2._lib
    lib.parasail_matrix_pssm_create.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    lib.parasail_matrix_pssm_create.restype = parasail.bindings_v2.c_matrix_p
    flat = [v for row in rows for v in row]
    values = (ctypes.c_int * len(flat))(*flat)
    pointer = lib.parasail_matrix_pssm_create(STANDARD.encode(), values, len(rows))
    return parasail.Matrix(pointer), values


def main():
    seqs = records(os.path.join(HERE, "uniprot2k.fasta.gz"))
    usable = [k for k, s in enumerate(seqs) if set(s) <= set(STANDARD)][:334]
    with open(os.path.join(HERE, "parasail_pssm.tsv"), "w") as out:
        out.write("profile\tsubject\tgap_open\tgap_extend\tscore\n")
        for name in PROFILES:
            query, rows = read_pssm(os.path.join(HERE, "pssm", name))
            matrix, _keep = pssm_matrix(rows)
            for k in usable:
                score = parasail.sw(query, seqs[k], GAP_OPEN + GAP_EXTEND, GAP_EXTEND, matrix).score
                out.write(f"{name}\t{k}\t{GAP_OPEN}\t{GAP_EXTEND}\t{score}\n")


if __name__ == "__main__":
    sys.exit(main())

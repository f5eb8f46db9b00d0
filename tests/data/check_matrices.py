#!/usr/bin/env python3
"""Probe the substitution scores that ssearch36 and parasail_aligner actually
use, and compare them with the NCBI-format matrix files.

Every score s(a,b) is measured as  score(F*20 + a + F*20 vs F*20 + b + F*20)
- 40*s(F,F), where the flank letter F is W, or C or H when W (or C) is one of
a, b.  With the gap penalties used (11/1 in BLAST convention, i.e. 12 for a
1-residue gap) the only alternatives to the full-length ungapped alignment
are dropping one flank (needs s(a,b) < -20*s(F,F)) or a gap in each sequence
(cost 24), so every matrix entry >= -24 is measured exactly.

Usage: python3 tests/data/check_matrices.py --matrix-dir DIR
   DIR holds EBLOSUM62, EBLOSUM50, EBLOSUM80, EPAM250, EPAM30, EBLOSUM45 (EMBOSS data dir,
   e.g. .../share/EMBOSS/data).  Prints a summary of differences; exit 0.
"""
import argparse
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # keep tests/data free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sw_tools  # noqa: E402

LETTERS = "ARNDCQEGHILKMFPSTWYVBZX*UJO"

# (NCBI file, ssearch36 -s value(s), parasail -m name)
MATRICES = [
    ("EBLOSUM62", ["BL62", "BP62", "@FILE"], "blosum62"),
    ("EBLOSUM50", ["BL50", "@FILE"], "blosum50"),
    ("EBLOSUM80", ["BL80", "@FILE"], "blosum80"),
    ("EPAM250", ["P250", "@FILE"], "pam250"),
    ("EPAM30", ["@FILE"], "pam30"),
    ("EBLOSUM45", ["@FILE"], "blosum45"),
]



def from_probes(per_flank, pick):
    """Matrix entries from the probe scores: s(a,b) is the (a,b) probe's score less
    40 times s(F,F) of its flank F, and the tool scores the (F,F) probe 41*s(F,F)."""
    got = {}
    for a in LETTERS:
        for b in LETTERS:
            fl = pick(a, b)
            ff = per_flank[fl][(fl, fl)] // 41
            got[(a, b)] = per_flank[fl][(a, b)] - 40 * ff
    return got

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--matrix-dir", required=True)
    ap.add_argument("--ssearch", default="ssearch36")
    ap.add_argument("--parasail", default="parasail_aligner")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="matprobe")
    flanks = "WCH"
    fq = {}
    for fl in flanks:
        fq[fl] = os.path.join(tmp, f"probe{fl}.fa")
        sw_tools.write_fasta(fq[fl], [(f"x{c}", fl * 20 + c + fl * 20) for c in LETTERS])
    idx = {f"x{c}": c for c in LETTERS}

    def pick(a, b):
        return [fl for fl in flanks if fl not in (a, b)][0]

    for fname, smats, pmat in MATRICES:
        path = os.path.join(args.matrix_dir, fname)
        cols, ref = sw_tools.read_ncbi_matrix(path)
        measured = {}
        for sm in smats:
            s_arg = path if sm == "@FILE" else sm
            per_flank = {}
            for fl in flanks:
                res, _ = sw_tools.ssearch(args.ssearch, fq[fl], fq[fl],
                                          ["-p", "-s", s_arg, "-f", "-11", "-g", "-1"],
                                          len(LETTERS))
                per_flank[fl] = {(idx[q], idx[s]): sc for q, s, sc in res}
            measured["ssearch36 -s " + (fname if sm == "@FILE" else sm)] = from_probes(per_flank, pick)
        per_flank = {}
        for fl in flanks:
            res, _ = sw_tools.parasail(args.parasail, fq[fl], fq[fl],
                                       ["-m", pmat, "-o", "12", "-e", "1"])
            per_flank[fl] = {(LETTERS[q], LETTERS[d]): sc for q, d, sc in res}
        measured["parasail -m " + pmat] = from_probes(per_flank, pick)
        print(f"== {fname} (NCBI letters {''.join(cols)})")
        for name, got in measured.items():
            diffs = []
            for a in LETTERS:
                for b in LETTERS:
                    r = ref.get((a, b), "n/a")
                    g = got.get((a, b), "missing")
                    if r != g:
                        diffs.append(f"{a}{b}:{g}(ncbi {r})")
            std = [d for d in diffs if d[0] in "ARNDCQEGHILKMFPSTWYVBZX" and d[1] in
                   "ARNDCQEGHILKMFPSTWYVBZX"]
            print(f"  {name}: {len(diffs)} of {len(LETTERS)**2} probed pairs differ from the"
                  f" NCBI file; {len(std)} of them within ARNDCQEGHILKMFPSTWYVBZX")
            if std:
                print("    standard-letter diffs:", " ".join(std[:40]))
            # how the non-standard letters behave: which NCBI row (if any) the
            # measured row equals (against the 20 standard residues + BZX)
            base = "ARNDCQEGHILKMFPSTWYVBZX"
            for o in "X*UJO":
                row = [got[(o, b)] for b in base]
                same = [c for c in cols if all(ref.get((c, b)) == v for b, v in zip(base, row))]
                print(f"    {o}: row vs ARND..BZX = {' '.join(map(str, row))}; "
                      f"{o}/{o} = {got[(o, o)]}; equals NCBI row of: {','.join(same) or 'none'}")


if __name__ == "__main__":
    main()

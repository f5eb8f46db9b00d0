#!/usr/bin/env python3
"""Empirically determine how ssearch36 (-f/-g) and parasail_aligner (-o/-e)
charge a gap of length L, relative to clsw's (BLAST's) convention

    cost(L) = open + L * extend.

Method: a sequence A made of two different permutations of the 20 amino acids
(40 aa, every residue pair on the diagonal scores positively, shifted pairs
score badly) is aligned against B_L = A with L residues ('G') inserted after
position 20 (gap in the query) and, swapped, B_L against A (gap in the
subject).  The optimal local alignment then aligns all 40 residues on the
diagonal plus exactly one gap of length L, so

    score(L) = selfscore(A) - cost(L)      (as long as cost(L) < selfscore/2)

and cost(L) = selfscore(A) - score(L) is read off directly.  Each tool is
run with raw values (p1, p2): ssearch36 as "-f -p1 -g -p2" and also
"-f p1 -g p2" (sign test), parasail_aligner as "-o p1 -e p2"; the measured
cost is compared with the two hypotheses p1 + L*p2 and p1 + (L-1)*p2.  selfscore(A) is
measured by the same tool (A vs A) and agrees with the hand sum of the matrix
diagonal (BLOSUM62: 2 x 116 = 232, BLOSUM50: 2 x 150 = 300).  The same is
done for DNA (60 nt, +5/-4).

Usage:  python3 tests/data/gap_convention.py [--outdir tests/data]
Writes  gap_pairs.fasta       (the sequences used)
        gap_convention.tsv    (one row per tool/matrix/params/L/direction)
and prints a summary.  Needs ssearch36 and parasail_aligner on PATH (or
--ssearch / --parasail).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep tests/data free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sw_tools  # noqa: E402

P1 = "WCHYFPMRKQENDTSGAVIL"      # the 20 amino acids, each once
P2 = "KRDENQSTGAPVILMFYWHC"      # another permutation
PROT_A = P1 + P2                 # 40 aa; insertion point after residue 20
# 60 nt fixed DNA (generated once with random.Random(7), pasted here)
DNA_A = "GCTAAAGACAATTACATAACATACACGTCAGCACGAAACTTGTTGGCCCAGTGTGAATCG"
INS_RES = {"prot": "G", "dna": "T"}

# (matrix for ssearch36 -s, matrix for parasail -m) ; DNA handled separately
PROT_MATRICES = [("BL62", "blosum62"), ("BL50", "blosum50")]
# BLAST-convention (open, extend) pairs to probe; the candidate translations
# are tested, not assumed: ssearch36 gets -f -open -g -extend and parasail gets
# -o open -e extend, and the measured costs are then fitted.
PARAMS = [(11, 1), (10, 2), (5, 3), (0, 4), (15, 0), (7, 2)]
# parasail is probed with the same raw values plus their candidate
# translations (open+extend, extend); note (0,4) has open < extend.
PARASAIL_PARAMS = PARAMS + [(12, 1), (12, 2), (8, 3), (4, 4), (9, 2)]
LENGTHS = [1, 2, 3, 4, 5]


def write_fasta(path, recs):
    with open(path, "w") as f:
        for name, seq in recs:
            f.write(f">{name}\n{seq}\n")


def ssearch_scores(exe, qfile, lfile, kind, mat, f, g):
    """Return {subject_id: sw_score} using -m 10 (parseable key:value)."""
    cmd = [exe, "-q", "-3", "-z", "-1", "-E", "1e6", "-b", "=100", "-d", "100", "-m", "10",
           "-f", str(f), "-g", str(g)]
    if kind == "prot":
        cmd += ["-p", "-s", mat]
    else:
        cmd += ["-n", "-r", "+5/-4"]
    cmd += [qfile, lfile]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    scores = {}
    cur = None
    for line in out.splitlines():
        if line.startswith(">>") and not line.startswith(">>>"):
            cur = line[2:].split()[0]
        elif line.startswith("; sw_score:") and cur is not None:
            scores[cur] = int(line.split(":")[1])
            cur = None
    return scores, " ".join(cmd)


def parasail_scores(exe, dbfile, qfile, kind, mat, o, e, tmp):
    """Return list of (query_index, db_index, score), and the command line."""
    extra = ["-o", str(o), "-e", str(e)]
    extra += ["-m", mat] if kind == "prot" else ["-d", "-M", "5", "-X", "4"]
    rows, cmd = sw_tools.parasail(exe, dbfile, qfile, extra)
    return rows, " ".join(cmd[:-2]) + " < " + os.path.basename(qfile)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outdir", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--ssearch", default="ssearch36")
    ap.add_argument("--parasail", default="parasail_aligner")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="gapconv")
    pairs = []
    rows = []
    sets = [("prot", PROT_A, PROT_MATRICES), ("dna", DNA_A, [("+5/-4", "+5/-4")])]
    for kind, A, mats in sets:
        cut = len(A) // 2
        Bs = [(f"{kind}_ins{L}", A[:cut] + INS_RES[kind] * L + A[cut:]) for L in LENGTHS]
        pairs.append((f"{kind}_A", A))
        pairs.extend(Bs)
        fa = os.path.join(tmp, f"{kind}_A.fa")
        fb = os.path.join(tmp, f"{kind}_B.fa")
        write_fasta(fa, [(f"{kind}_A", A)])
        write_fasta(fb, [(f"{kind}_A", A)] + Bs)   # includes A itself -> selfscore
        for smat, pmat in mats:
            for (op, ex) in PARAMS:
              for sign in (-1, +1):   # ssearch36 given negative and positive values
                # ---- ssearch36: -f (sign*p1) -g (sign*p2) ----
                f, g = sign * op, sign * ex
                sc, cmd = ssearch_scores(args.ssearch, fa, fb, kind, smat, f, g)
                self_s = sc[f"{kind}_A"]
                for L in LENGTHS:
                    rows.append(("ssearch36", kind, smat, f"-f {f} -g {g}", op, ex, L,
                                 "gap_in_query", self_s, sc[f"{kind}_ins{L}"]))
                # gap in subject: query = B_L, library = A
                for L, (nm, seq) in zip(LENGTHS, Bs):
                    fq = os.path.join(tmp, "qB.fa")
                    write_fasta(fq, [(nm, seq)])
                    sc2, _ = ssearch_scores(args.ssearch, fq, fa, kind, smat, f, g)
                    rows.append(("ssearch36", kind, smat, f"-f {f} -g {g}", op, ex, L,
                                 "gap_in_subject", self_s, sc2[f"{kind}_A"]))
            for (op, ex) in PARASAIL_PARAMS:
                # ---- parasail: -o p1 -e p2 (raw tool values) ----
                pr, pcmd = parasail_scores(args.parasail, fb, fa, kind, pmat, op, ex, tmp)
                byname = {i: nm for i, (nm, _) in enumerate([(f"{kind}_A", A)] + Bs)}
                d = {byname[r[1]]: r[2] for r in pr}
                pself = d[f"{kind}_A"]
                for L in LENGTHS:
                    rows.append(("parasail", kind, pmat, f"-o {op} -e {ex}", op, ex, L,
                                 "gap_in_query", pself, d[f"{kind}_ins{L}"]))
                # gap in subject: queries = B_L (stdin), db = A
                fq = os.path.join(tmp, "qBs.fa")
                write_fasta(fq, Bs)
                pr2, _ = parasail_scores(args.parasail, fa, fq, kind, pmat, op, ex, tmp)
                for qi, di, s in pr2:
                    rows.append(("parasail", kind, pmat, f"-o {op} -e {ex}", op, ex, LENGTHS[qi],
                                 "gap_in_subject", pself, s))

    write_fasta(os.path.join(args.outdir, "gap_pairs.fasta"), pairs)
    out = os.path.join(args.outdir, "gap_convention.tsv")
    verdict = {}
    with open(out, "w") as f:
        f.write("tool\tkind\tmatrix\ttool_args\tp1\tp2\tL\tdirection\tselfscore\tscore"
                "\tcost\tp1+L*p2\tp1+(L-1)*p2\n")
        for (tool, kind, mat, targs, p1, p2, L, dirn, selfs, s) in rows:
            cost = selfs - s
            h1 = p1 + L * p2
            h2 = p1 + (L - 1) * p2
            f.write(f"{tool}\t{kind}\t{mat}\t{targs}\t{p1}\t{p2}\t{L}\t{dirn}\t{selfs}\t{s}"
                    f"\t{cost}\t{h1}\t{h2}\n")
            v = verdict.setdefault(tool, {"p1+L*p2": 0, "p1+(L-1)*p2": 0, "neither": 0, "n": 0})
            v["n"] += 1
            if cost == h1:
                v["p1+L*p2"] += 1
            if cost == h2:
                v["p1+(L-1)*p2"] += 1
            if cost != h1 and cost != h2:
                v["neither"] += 1
                print("  neither:", tool, kind, mat, targs, "L=", L, dirn, "self", selfs,
                      "score", s, "cost", cost)
    for tool, v in verdict.items():
        print(tool, v)
    print("wrote", out)


if __name__ == "__main__":
    main()

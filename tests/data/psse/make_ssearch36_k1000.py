#!/usr/bin/env python3
"""Shuffle statistics of ssearch36 -k 1000 for real pairs, run several times.

For each pair below (a query of queries10.fasta against one record of
golden_subjects.fasta, alone in its library), runs

    ssearch36 -q -p -s BL50 -f -10 -g -2 -k 1000 -E 1e6 -b 1 -d 1 Q.fa S.fa

RUNS times (ssearch36 seeds its shuffles itself, differently on every run) and
records, per run, the real Smith-Waterman score, ssearch36's fitted Lambda and K
("Statistics: (shuffled [1000]) MLE statistics: Lambda= ...; K=..."), its
printed E(1), and the P-value P = 1 - exp(-K m n exp(-Lambda score)) recomputed
from the printed Lambda and K (m, n: query and subject lengths).

With -k and a one-sequence library, ssearch36 fits a Gumbel by maximum
likelihood to the scores of the query against 1,000 uniform shuffles of the
library sequence (FASTA's mle_cen with no censoring), which is what
`clsw psse --shuffles 1000` estimates; clsw's gaps 10/2 are ssearch36's -f -10 -g -2.

Usage (from the repository root):
    python3 tests/data/psse/make_ssearch36_k1000.py > tests/data/psse/ssearch36_k1000.tsv
Options: --runs N (default 10), --ssearch PATH (default ssearch36).
The output is not byte-reproducible (ssearch36's shuffles are seeded by the
clock); the spread it records is the point.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from sw_tools import read_fasta, seq_id, write_fasta  # noqa: E402

# (pair name, query id, subject id, relation), from pairs.tsv beside this script.
PAIRS = [tuple(line.rstrip("\n").split("\t")) for line in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pairs.tsv"))
         if not line.startswith("#")]

ARGS = ["-q", "-p", "-s", "BL50", "-f", "-10", "-g", "-2", "-k", "1000", "-E", "1e6", "-b", "1", "-d", "1"]
STATS = re.compile(r"MLE statistics: Lambda=\s*([0-9.eE+-]+);\s*K=\s*([0-9.eE+-]+)")
OPT = re.compile(r"s-w opt:\s*(\d+)\s.*E\(1\):\s*([0-9.eE+-]+)")


def run_once(exe, qfile, sfile):
    out = subprocess.run([exe] + ARGS + [qfile, sfile], capture_output=True, text=True, check=True).stdout
    st = STATS.search(out)
    opt = OPT.search(out)
    if not st or not opt:
        raise SystemExit("could not parse ssearch36 output:\n" + out)
    return int(opt.group(1)), float(st.group(1)), float(st.group(2)), opt.group(2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--ssearch", default="ssearch36")
    args = ap.parse_args()
    data = os.path.dirname(HERE)
    queries = {seq_id(h): (h, s) for h, s in read_fasta(os.path.join(data, "queries10.fasta"))}
    subjects = {seq_id(h): (h, s) for h, s in read_fasta(os.path.join(data, "golden_subjects.fasta"))}
    version = subprocess.run([args.ssearch, "-help"], capture_output=True, text=True).stdout
    version = next((l.strip() for l in version.splitlines() if "version" in l), "unknown")
    print("# ssearch36 -k 1000 shuffle statistics, written by tests/data/psse/make_ssearch36_k1000.py")
    print("# ssearch36 " + version)
    print("# command per run: ssearch36 " + " ".join(ARGS) + " Q.fa S.fa")
    print("# p_value = 1 - exp(-K m n exp(-lambda score)) from the printed lambda and K")
    print("\t".join(["pair", "relation", "query", "subject", "query_len", "subject_len", "run", "score",
                     "lambda", "k", "e1_printed", "p_value"]))
    with tempfile.TemporaryDirectory() as tmp:
        for name, qid, sid, relation in PAIRS:
            qh, qs = queries[qid]
            sh, ss = subjects[sid]
            qfile, sfile = os.path.join(tmp, "q.fa"), os.path.join(tmp, "s.fa")
            write_fasta(qfile, [(qh, qs)])
            write_fasta(sfile, [(sh, ss)])
            m, n = len(qs), len(ss)
            for run in range(1, args.runs + 1):
                score, lam, k, e1 = run_once(args.ssearch, qfile, sfile)
                e = k * m * n * math.exp(-lam * score)
                p = -math.expm1(-e)
                print("\t".join([name, relation, qid, sid, str(m), str(n), str(run), str(score),
                                 "%.4f" % lam, "%.4g" % k, e1, "%.6g" % p]))
                sys.stdout.flush()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Build tests/data/queries10.fasta and tests/data/uniprot300.fasta from the
MMseqs2 example data (UniProt, CC BY 4.0).  Deterministic.

Usage (from the repository root):
    python3 tests/data/make_subsets.py \
        [--uniprot ../shared/data/uniprot20k.fasta.gz] \
        [--queries ../shared/data/queries500.fasta.gz] \
        [--outdir tests/data] [--ssearch ssearch36]

Rules
  queries10.fasta: for each target length in TARGETS, the record of
    queries500 whose length is closest to the target, among records made only
    of the 20 standard amino acids (ties: first in file order).
  uniprot300.fasta: the union of
    A. every 80th record of uniprot20k (0-based index % 80 == 0)       -> 250
    B. the top HITS_PER_QUERY ssearch36 hits (BLOSUM62, gaps 11/1 BLAST
       convention = "-f -11 -g -1", E() <= 1e-3, default statistics; ranked by
       score, ties in file order) of each query of queries10 against the whole
       uniprot20k (homologs, so that the golden table has related pairs)
    C. the first N_LONG records (file order) longer than 2000 aa, and the
       longest record of the file
    D. the first N_SHORT records (file order) shorter than 60 aa
  written in uniprot20k file order, headers and sequences verbatim (one
  sequence line per record, as in the source).
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep tests/data free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sw_tools  # noqa: E402

TARGETS = [50, 80, 120, 180, 250, 350, 500, 750, 1000, 1500]
STD20 = set("ACDEFGHIKLMNPQRSTVWY")
STEP = 80
HITS_PER_QUERY = 4
EVALUE = 1e-3
N_LONG = 8
N_SHORT = 5


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    shared = os.path.join(os.path.dirname(repo), "shared", "data")
    ap = argparse.ArgumentParser()
    ap.add_argument("--uniprot", default=os.path.join(shared, "uniprot20k.fasta.gz"))
    ap.add_argument("--queries", default=os.path.join(shared, "queries500.fasta.gz"))
    ap.add_argument("--outdir", default=here)
    ap.add_argument("--ssearch", default="ssearch36")
    args = ap.parse_args()

    # ---- queries10 ----
    q500 = sw_tools.read_fasta(args.queries)
    qidx = []
    for t in TARGETS:
        best = min((abs(len(s) - t), i) for i, (h, s) in enumerate(q500) if set(s) <= STD20)
        qidx.append(best[1])
    queries = [q500[i] for i in qidx]
    qpath = os.path.join(args.outdir, "queries10.fasta")
    sw_tools.write_fasta(qpath, queries)
    print("queries10: queries500 indices", qidx, "lengths", [len(s) for h, s in queries])

    # ---- uniprot300 ----
    db = sw_tools.read_fasta(args.uniprot)
    id2idx = {sw_tools.seq_id(h): i for i, (h, s) in enumerate(db)}
    sel = {}
    for i in range(0, len(db), STEP):
        sel.setdefault(i, "A:every%d" % STEP)

    tmp = tempfile.mkdtemp(prefix="subsets")
    dbfa = os.path.join(tmp, "db.fa")
    sw_tools.write_fasta(dbfa, db)
    # -T 1 and an explicit sort on (score desc, file order) make the choice
    # independent of ssearch36's thread scheduling (equal scores are
    # otherwise reported in varying order).
    cmd = [args.ssearch, "-q", "-T", "1", "-p", "-s", "BL62", "-f", "-11", "-g", "-1",
           "-E", str(EVALUE), "-b", "50", "-d", "50", "-m", "10", qpath, dbfa]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    found = {}
    q = sid = score = None
    for line in out.splitlines():
        if line.startswith(">>>") and " vs " in line:
            q = line[3:].split(",")[0].split()[0]
        elif line.startswith(">>") and not line.startswith(">>>"):
            sid = line[2:].split()[0]
        elif line.startswith("; sw_s-w opt:"):      # precedes sw_expect
            score = int(line.split(":")[1])
        elif line.startswith("; sw_expect:") and sid is not None:
            expect = float(line.split(":")[1])
            if expect <= EVALUE:
                found.setdefault(q, []).append((-score, id2idx[sid], sid))
            sid = None
    hits = []
    for q in found:
        for _, _, sid in sorted(found[q])[:HITS_PER_QUERY]:
            hits.append((q, sid))
    for q, sid in hits:
        i = id2idx[sid]
        if i not in sel:
            sel[i] = "B:hit_of:" + q
    nlong = 0
    for i, (h, s) in enumerate(db):
        if nlong < N_LONG and len(s) > 2000:
            nlong += 1
            sel.setdefault(i, "C:long")
    longest = max(range(len(db)), key=lambda i: (len(db[i][1]), -i))
    sel.setdefault(longest, "C:longest")
    nshort = 0
    for i, (h, s) in enumerate(db):
        if nshort < N_SHORT and len(s) < 60 and i not in sel:
            nshort += 1
            sel[i] = "D:short"
    order = sorted(sel)
    upath = os.path.join(args.outdir, "uniprot300.fasta")
    sw_tools.write_fasta(upath, [db[i] for i in order])
    with open(os.path.join(args.outdir, "uniprot300.selection.tsv"), "w") as f:
        f.write("uniprot20k_index\tid\tlength\treason\n")
        for i in order:
            f.write(f"{i}\t{sw_tools.seq_id(db[i][0])}\t{len(db[i][1])}\t{sel[i]}\n")
    lens = [len(db[i][1]) for i in order]
    print(f"uniprot300: {len(order)} records, {sum(lens)} residues, "
          f"{sum(1 for x in lens if x < 60)} < 60 aa, {sum(1 for x in lens if x > 2000)} > 2000 aa, "
          f"{os.path.getsize(upath)} bytes; {len(hits)} homolog hits")


if __name__ == "__main__":
    main()

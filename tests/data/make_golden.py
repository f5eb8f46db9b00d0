#!/usr/bin/env python3
"""Build tests/data/golden_scores.tsv: raw optimal Smith-Waterman scores from
ssearch36, every row cross-checked with parasail_aligner.

Usage (from the repository root):
    python3 tests/data/make_golden.py [--datadir tests/data]
        [--matrix-dir tests/data/matrices] [--ssearch ssearch36]
        [--parasail parasail_aligner]

Inputs  (in --datadir): queries10.fasta, uniprot300.fasta, dna_pairs.fasta
Outputs (in --datadir):
  golden_subjects.fasta   the ~30 protein subjects used (verbatim records of
                          uniprot300.fasta, in uniprot300 order)
  golden_scores.tsv       query_id subject_id matrix gap_open gap_extend score tool
  golden_disagreements.tsv  rows where any parasail function differs from
                          ssearch36 (header only when they all agree)

gap_open / gap_extend are in clsw's (BLAST) convention: a gap of length L
costs gap_open + L*gap_extend.  Measured translation (see gap_convention.py
and README.md):  ssearch36 "-f -open -g -extend";  parasail_aligner
"-o (open+extend) -e extend" (parasail needs -o >= -e, so a linear gap
open=0/extend=e is "-o e -e e").

Subject choice (deterministic):
  * for each query, its 2 best-scoring uniprot300 records (ssearch36,
    BLOSUM62 11/1, ties in file order): related pairs where a homolog exists;
  * the 2 shortest and the 2 longest records of uniprot300;
  * the first 2 records that contain an X;
  * records at uniprot300 positions 0, 40, 80, ..., 280 (unrelated fillers).
All 10 queries x all subjects are scored under each protein setting.
DNA: every dnaN_a x every dnaM_b of dna_pairs.fasta (forward strand only).
"""
import argparse
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # keep tests/data free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sw_tools  # noqa: E402

# (matrix name in the table, NCBI matrix file, parasail -m, open, extend)
PROTEIN_SETTINGS = [
    ("BLOSUM62", "EBLOSUM62", "blosum62", 11, 1),
    ("BLOSUM62", "EBLOSUM62", "blosum62", 0, 4),    # linear gaps
    ("BLOSUM50", "EBLOSUM50", "blosum50", 10, 2),   # = ssearch36 default
    ("BLOSUM80", "EBLOSUM80", "blosum80", 10, 1),
    ("PAM250", "EPAM250", "pam250", 10, 2),
    ("PAM30", "EPAM30", "pam30", 9, 1),
    ("BLOSUM45", "EBLOSUM45", "blosum45", 15, 2),
]
# DNA: match +5 / mismatch -4 (identical to EDNAFULL on A/C/G/T)
DNA_SETTINGS = [(12, 4), (10, 1), (0, 6)]
# parasail functions: "sw" is parasail's scalar reference implementation and
# decides the tool column; the vectorized ones are run for information only
# (sw_striped_32 is known to under-score some linear-gap rows, see README).
PARASAIL_REF = "sw"
PARASAIL_FUNCS = [PARASAIL_REF, "sw_scan_32", "sw_striped_32"]


def pick_subjects(args, qpath, upath, uni):
    res, _ = sw_tools.ssearch(args.ssearch, qpath, upath,
                              ["-p", "-s", os.path.join(args.matrix_dir, "EBLOSUM62"),
                               "-f", "-11", "-g", "-1"], len(uni))
    pos = {sw_tools.seq_id(h): i for i, (h, s) in enumerate(uni)}
    chosen = {}
    byq = {}
    for q, s, sc in res:
        byq.setdefault(q, []).append((-sc, pos[s], s))
    for q in byq:
        for negsc, p, s in sorted(byq[q])[:2]:
            chosen.setdefault(p, f"top2_of:{q}:{-negsc}")
    by_len = sorted(range(len(uni)), key=lambda i: (len(uni[i][1]), i))
    for i in by_len[:2]:
        chosen.setdefault(i, "shortest")
    for i in by_len[-2:]:
        chosen.setdefault(i, "longest")
    withx = [i for i, (h, s) in enumerate(uni) if "X" in s][:2]
    for i in withx:
        chosen.setdefault(i, "contains_X")
    for i in range(0, len(uni), 40):
        chosen.setdefault(i, "filler")
    return [(i, chosen[i]) for i in sorted(chosen)]


def run_setting(args, qpath, spath, queries, subjects, kind, matfile, pmat, op, ex):
    """Return {(qid, sid): (ssearch_score, {func: parasail_score})}."""
    if kind == "prot":
        sargs = ["-p", "-s", os.path.join(args.matrix_dir, matfile)]
        pargs = ["-m", pmat]
    else:
        sargs = ["-n", "-3", "-r", "+5/-4"]
        pargs = ["-d", "-M", "5", "-X", "4"]
    sargs += ["-f", str(-op), "-g", str(-ex)]
    pargs += ["-o", str(op + ex), "-e", str(ex)]
    res, scmd = sw_tools.ssearch(args.ssearch, qpath, spath, sargs, len(subjects))
    out = {}
    for q, s, sc in res:
        assert (q, s) not in out, ("duplicate ssearch36 hit", q, s)
        out[(q, s)] = [sc, {}]
    qids = [sw_tools.seq_id(h) for h, _ in queries]
    sids = [sw_tools.seq_id(h) for h, _ in subjects]
    assert len(out) == len(qids) * len(sids), ("ssearch36 did not report every pair",
                                               len(out), len(qids) * len(sids))
    pcmds = []
    for func in PARASAIL_FUNCS:
        pres, pcmd = sw_tools.parasail(args.parasail, spath, qpath, pargs, func=func)
        pcmds.append(pcmd)
        assert len(pres) == len(out), ("parasail did not report every pair", func, len(pres))
        for qi, di, sc in pres:
            out[(qids[qi], sids[di])][1][func] = sc
    return out, scmd, pcmds


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--datadir", default=here)
    ap.add_argument("--matrix-dir", default=os.path.join(here, "matrices"))
    ap.add_argument("--ssearch", default="ssearch36")
    ap.add_argument("--parasail", default="parasail_aligner")
    args = ap.parse_args()
    d = args.datadir
    qpath = os.path.join(d, "queries10.fasta")
    upath = os.path.join(d, "uniprot300.fasta")
    dpath = os.path.join(d, "dna_pairs.fasta")
    queries = sw_tools.read_fasta(qpath)
    uni = sw_tools.read_fasta(upath)

    picked = pick_subjects(args, qpath, upath, uni)
    subjects = [uni[i] for i, _ in picked]
    spath = os.path.join(d, "golden_subjects.fasta")
    sw_tools.write_fasta(spath, subjects)
    print(f"{len(subjects)} protein subjects:")
    for i, why in picked:
        print(f"  uniprot300[{i}] {sw_tools.seq_id(uni[i][0])} len={len(uni[i][1])} {why}")

    rows = []
    disagreements = []
    commands = []

    def collect(out, mname, op, ex, order_q, order_s):
        for q in order_q:
            for s in order_s:
                ss, ps = out[(q, s)]
                tool = "ssearch36+parasail" if ps[PARASAIL_REF] == ss else "ssearch36"
                rows.append((q, s, mname, op, ex, ss, tool))
                if not all(v == ss for v in ps.values()):
                    disagreements.append((q, s, mname, op, ex, ss,
                                          ";".join(f"{k}={v}" for k, v in ps.items())))

    qids = [sw_tools.seq_id(h) for h, _ in queries]
    sids = [sw_tools.seq_id(h) for h, _ in subjects]
    for mname, mfile, pmat, op, ex in PROTEIN_SETTINGS:
        out, scmd, pcmds = run_setting(args, qpath, spath, queries, subjects, "prot",
                                       mfile, pmat, op, ex)
        commands.append((mname, op, ex, scmd, pcmds))
        collect(out, mname, op, ex, qids, sids)

    # DNA: all a's as queries vs all b's as subjects
    dna = sw_tools.read_fasta(dpath)
    tmp = tempfile.mkdtemp(prefix="golden")
    da = [r for r in dna if sw_tools.seq_id(r[0]).endswith("_a")]
    db = [r for r in dna if sw_tools.seq_id(r[0]).endswith("_b")]
    fa = os.path.join(tmp, "dna_a.fa")
    fb = os.path.join(tmp, "dna_b.fa")
    sw_tools.write_fasta(fa, da)
    sw_tools.write_fasta(fb, db)
    for op, ex in DNA_SETTINGS:
        out, scmd, pcmds = run_setting(args, fa, fb, da, db, "dna", None, None, op, ex)
        commands.append(("EDNAFULL", op, ex, scmd, pcmds))
        collect(out, "EDNAFULL", op, ex, [sw_tools.seq_id(h) for h, _ in da],
                [sw_tools.seq_id(h) for h, _ in db])

    with open(os.path.join(d, "golden_scores.tsv"), "w") as f:
        f.write("query_id\tsubject_id\tmatrix\tgap_open\tgap_extend\tscore\ttool\n")
        for r in rows:
            f.write("\t".join(map(str, r)) + "\n")
    with open(os.path.join(d, "golden_disagreements.tsv"), "w") as f:
        f.write("query_id\tsubject_id\tmatrix\tgap_open\tgap_extend\tssearch36_score"
                "\tparasail_scores\n")
        for r in disagreements:
            f.write("\t".join(map(str, r)) + "\n")
    nref = sum(1 for r in rows if r[6] != "ssearch36+parasail")
    print(f"{len(rows)} golden rows; ssearch36 vs parasail {PARASAIL_REF}: {nref} disagreements;"
          f" rows where some parasail function differs: {len(disagreements)}")
    print("commands (paths shortened):")
    for mname, op, ex, scmd, pcmds in commands:
        short = lambda c: " ".join(os.path.basename(x) if os.path.exists(x) or x.endswith(".csv")
                                   else x for x in c)
        print(f"  {mname} open={op} extend={ex}:\n    {short(scmd)}")
        for pc in pcmds:
            print(f"    {short(pc)}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Build the inputs of the E-value statistics comparison with ssearch36
(make_ssearch_stats.sh): tests/data/uniprot2k.fasta.gz,
tests/data/queries_stats.fasta and tests/data/repeats_subject.fasta.
Deterministic (byte for byte, the gzip file included).

Usage (from the repository root):
    python3 tests/data/make_stats_sets.py \
        [--uniprot ../shared/data/uniprot20k.fasta.gz] \
        [--queries ../shared/data/queries500.fasta.gz] \
        [--outdir tests/data]

Rules
  uniprot2k.fasta.gz: every 10th record of uniprot20k (0-based index % 10 == 0),
    2,000 records, headers and sequences verbatim (one sequence line per
    record), gzip-compressed with mtime 0 and no file name in the gzip header.
  queries_stats.fasta: for each target length in TARGETS, the record of
    queries500 whose length is closest to the target, among records made only
    of the 20 standard amino acids (ties: first in file order).
  repeats_subject.fasta: one constructed protein, three mutated copies of
    queries10.fasta record 5 (tr|A0A0W1BG93, 249 aa) joined by LINKER.  One
    random.Random(SEED) is used for the three copies in turn; for each copy
    round(0.15 * 249) = 37 distinct positions are drawn (rng.sample) and each
    of them, in the drawn order, gets rng.choice() of the 19 other standard
    amino acids (alphabet ACDEFGHIKLMNPQRSTVWY).
"""
import argparse
import gzip
import io
import os
import random
import sys

sys.dont_write_bytecode = True  # keep tests/data free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sw_tools  # noqa: E402

STEP = 10
TARGETS = [100, 300, 1000, 2000, 5000]
STD20 = "ACDEFGHIKLMNPQRSTVWY"
SEED = 20261127
MUT_RATE = 0.15
COPIES = 3
LINKER = "GSGSGSGSGS"
REPEAT_SOURCE = 4  # 0-based index in queries10.fasta (record 5)
REPEAT_HEADER = ("repeats3 three mutated copies of tr|A0A0W1BG93 (queries10 record 5) "
                 "joined by GSGSGSGSGS")


def mutate(seq, rng):
    s = list(seq)
    n = round(MUT_RATE * len(s))
    for pos in rng.sample(range(len(s)), n):
        s[pos] = rng.choice([a for a in STD20 if a != s[pos]])
    return "".join(s)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    shared = os.path.join(os.path.dirname(repo), "shared", "data")
    ap = argparse.ArgumentParser()
    ap.add_argument("--uniprot", default=os.path.join(shared, "uniprot20k.fasta.gz"))
    ap.add_argument("--queries", default=os.path.join(shared, "queries500.fasta.gz"))
    ap.add_argument("--outdir", default=here)
    args = ap.parse_args()

    # ---- uniprot2k.fasta.gz ----
    db = sw_tools.read_fasta(args.uniprot)
    sub = [db[i] for i in range(0, len(db), STEP)]
    text = "".join(">%s\n%s\n" % (h, s) for h, s in sub).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(text)
    upath = os.path.join(args.outdir, "uniprot2k.fasta.gz")
    with open(upath, "wb") as f:
        f.write(buf.getvalue())
    print("uniprot2k: %d records, %d residues, %d bytes gzipped"
          % (len(sub), sum(len(s) for h, s in sub), os.path.getsize(upath)))

    # ---- queries_stats.fasta ----
    q500 = sw_tools.read_fasta(args.queries)
    std = set(STD20)
    qidx = []
    for t in TARGETS:
        best = min((abs(len(s) - t), i) for i, (h, s) in enumerate(q500) if set(s) <= std)
        qidx.append(best[1])
    queries = [q500[i] for i in qidx]
    sw_tools.write_fasta(os.path.join(args.outdir, "queries_stats.fasta"), queries)
    print("queries_stats: queries500 indices", qidx, "lengths", [len(s) for h, s in queries])

    # ---- repeats_subject.fasta ----
    q10 = sw_tools.read_fasta(os.path.join(args.outdir, "queries10.fasta"))
    src = q10[REPEAT_SOURCE][1]
    rng = random.Random(SEED)
    copies = [mutate(src, rng) for _ in range(COPIES)]
    rep = LINKER.join(copies)
    sw_tools.write_fasta(os.path.join(args.outdir, "repeats_subject.fasta"), [(REPEAT_HEADER, rep)])
    ident = [sum(a == b for a, b in zip(src, c)) for c in copies]
    print("repeats_subject: %d aa, copies at 1-%d, %d-%d, %d-%d; identities to the source %s of %d"
          % (len(rep), len(src), len(src) + 11, 2 * len(src) + 10, 2 * len(src) + 21,
             3 * len(src) + 20, ident, len(src)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Record ssearch36's database search of uniprot300 with three queries of
queries10 (the 1st, 5th and 8th: 49, 249 and 744 aa), for the comparison test
tests/search.rs::top50_hits_equal_ssearch36.

For each query and scoring setting, ssearch36 is run once, single-threaded, with
every library sequence listed (-b =299, -E 1e6) and statistics off (-z -1); the
listing ("The best scores are:") gives every subject's raw Smith-Waterman score
(s-w). The 50 best subjects by raw score (ties: uniprot300 file order) are written
to ssearch36_top50.tsv.

Statistics are off because with a library this small (< 500 sequences) ssearch36
estimates them from shuffled sequences with a time-seeded generator: its bit scores
and E-values change from run to run, while raw scores never do.

Columns: query_id matrix gap_open gap_extend rank subject_id subject_length sw_score
(gap costs in the clsw/BLAST convention: a gap of length L costs
gap_open + L*gap_extend; ssearch36 -f -gap_open -g -gap_extend).

Usage: python3 tests/data/make_ssearch_top50.py --datadir tests/data
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sw_tools  # noqa: E402

QUERIES = (0, 4, 7)
SETTINGS = (("BLOSUM62", "EBLOSUM62", 11, 1), ("BLOSUM50", "EBLOSUM50", 10, 2))
TOP = 50


def best_scores(text):
    """Parse the 'The best scores are:' listing -> [(id, length, sw)]."""
    rows = []
    inside = False
    for line in text.splitlines():
        if line.startswith("The best scores are:"):
            inside = True
            continue
        if inside:
            if not line.strip() or line.startswith(">>>") or line.startswith(">>"):
                break
            # "ID description ( len) s-w bits E(N)"
            head, tail = line.rsplit(")", 1)
            length = int(head.rsplit("(", 1)[1])
            sw = tail.split()[0]
            rows.append((line.split()[0], length, int(sw)))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datadir", default="tests/data")
    ap.add_argument("--ssearch", default="ssearch36")
    args = ap.parse_args()
    d = args.datadir
    lib = os.path.join(d, "uniprot300.fasta")
    order = {sw_tools.seq_id(h): i for i, (h, _) in enumerate(sw_tools.read_fasta(lib))}
    queries = sw_tools.read_fasta(os.path.join(d, "queries10.fasta"))
    tmp = os.path.join(d, ".ssearch_query.fa")
    out = ["query_id\tmatrix\tgap_open\tgap_extend\trank\tsubject_id\tsubject_length\tsw_score"]
    try:
        for name, mfile, go, ge in SETTINGS:
            for qi in QUERIES:
                sw_tools.write_fasta(tmp, [queries[qi]])
                cmd = [args.ssearch, "-q", "-T", "1", "-p", "-s", os.path.join(d, "matrices", mfile),
                       "-f", str(-go), "-g", str(-ge), "-z", "-1", "-E", "1e6", "-b", "=%d" % len(order), "-d", "0",
                       "-m", "10", tmp, lib]
                text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                rows = best_scores(text)
                assert len(rows) == len(order), (len(rows), cmd)
                rows.sort(key=lambda r: (-r[2], order[r[0]]))
                qid = sw_tools.seq_id(queries[qi][0])
                for rank, (sid, length, sw) in enumerate(rows[:TOP], 1):
                    out.append("\t".join(map(str, (qid, name, go, ge, rank, sid, length, sw))))
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    with open(os.path.join(d, "ssearch36_top50.tsv"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()

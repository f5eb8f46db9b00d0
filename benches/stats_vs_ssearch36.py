#!/usr/bin/env python3
"""E-values of clsw's statistics methods beside ssearch36's, hit by hit.

Runs `clsw scan` (--stats auto, regression, fit, shuffle, published) and ssearch36 (-z 1, its
default regression; -z 2, maximum likelihood; -z 3, Altschul-Gish published parameters;
-z 11, regression on shuffled library sequences) on the
same queries and database, BLOSUM62 11/1, 50 hits with E <= 10 each, and prints for
every pairing the median ratio clsw E / ssearch36 E over the hits both report, with
its 10th and 90th percentiles.

    benches/stats_vs_ssearch36.py QUERIES.fa DATABASE.fa [--clsw PATH] [--ssearch PATH]
"""
import argparse
import math
import statistics
import subprocess


def evalues(argv):
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        c = line.split("\t")
        found.setdefault((c[0], c[1]), float(c[10]))
    return found


def main():
    p = argparse.ArgumentParser()
    p.add_argument("queries")
    p.add_argument("db")
    p.add_argument("--clsw", default="target/release/clsw")
    p.add_argument("--ssearch", default="ssearch36")
    a = p.parse_args()
    common = ["-p", "-s", "BL62", "-f", "-11", "-g", "-1", "-m", "8", "-b", "50", "-d", "0", "-E", "10"]
    peers = {
        f"ssearch36 -z {z} ({name})": evalues([a.ssearch, *common, "-z", str(z), a.queries, a.db])
        for z, name in [
            (1, "default, regression"),
            (2, "maximum likelihood"),
            (3, "Altschul-Gish"),
            (11, "regression on shuffles"),
        ]
    }
    for method in ["auto", "regression", "fit", "shuffle", "published"]:
        mine = evalues([a.clsw, "scan", "-q", a.queries, "-d", a.db, "--stats", method, "--max-hits", "50"])
        for name, theirs in peers.items():
            ratios = sorted(math.log10(mine[k] / theirs[k]) for k in mine if k in theirs and mine[k] > 0 and theirs[k] > 0)
            if not ratios:
                print(f"clsw --stats {method} vs {name}: no hit in both with E > 0")
                continue
            q = lambda f: 10 ** ratios[min(len(ratios) - 1, int(f * len(ratios)))]
            print(
                f"clsw --stats {method} vs {name}: {len(ratios)} hits, E ratio median "
                f"{10 ** statistics.median(ratios):.2g} (10th-90th percentile {q(0.1):.2g} to {q(0.9):.2g})"
            )


if __name__ == "__main__":
    main()

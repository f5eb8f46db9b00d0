#!/usr/bin/env python3
"""Generate tests/data/dna_pairs.fasta: synthetic DNA pairs (ACGT only) with a
planted shared region that is mutated (substitutions + short indels) in the
second member of each pair.  Fixed seed -> identical output on every run
(Python's random.Random is stable across versions for these calls:
random(), randrange(), choice()).

Usage: python3 tests/data/make_dna_pairs.py [--out tests/data/dna_pairs.fasta] [--seed 20240611]

Records: dnaN_a, dnaN_b for N = 1..8.  The header carries the recipe
(lengths, planted region coordinates, mutation rates) for reference.
  pair 8 has no planted region (unrelated control).
  pair 7 has its planted region reverse-complemented in b, so a forward-
  strand-only search (clsw, ssearch36 -3) sees no homology there.
"""
import argparse
import os
import random

# (len_a, len_b, region_len, subst_rate, indel_rate, mode)
PAIRS = [
    (120, 150, 60, 0.05, 0.00, "fwd"),     # short, substitutions only
    (400, 380, 200, 0.10, 0.02, "fwd"),
    (800, 900, 300, 0.15, 0.03, "fwd"),
    (1500, 1200, 500, 0.20, 0.04, "fwd"),
    (3000, 2500, 800, 0.12, 0.02, "fwd"),  # long
    (250, 2000, 150, 0.25, 0.05, "fwd"),   # very unequal lengths, divergent
    (600, 600, 300, 0.10, 0.02, "rc"),     # planted region reverse-complemented
    (700, 500, 0, 0.0, 0.0, "none"),       # unrelated control
]

COMP = {"A": "T", "C": "G", "G": "C", "T": "A"}


def rand_dna(rng, n):
    return "".join(rng.choice("ACGT") for _ in range(n))


def mutate(rng, s, subst, indel):
    out = []
    i = 0
    while i < len(s):
        r = rng.random()
        if r < indel / 2:                       # deletion of 1-5 nt
            i += rng.randrange(1, 6)
            continue
        if r < indel:                           # insertion of 1-5 nt
            out.append(rand_dna(rng, rng.randrange(1, 6)))
        c = s[i]
        if rng.random() < subst:
            c = rng.choice([x for x in "ACGT" if x != c])
        out.append(c)
        i += 1
    return "".join(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(here, "dna_pairs.fasta"))
    ap.add_argument("--seed", type=int, default=20240611)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with open(args.out, "w") as f:
        for n, (la, lb, rl, subst, indel, mode) in enumerate(PAIRS, start=1):
            a = rand_dna(rng, la)
            b = rand_dna(rng, lb)
            if mode == "none":
                ha = f"dna{n}_a len={la} planted=none"
                hb = f"dna{n}_b len={lb} planted=none"
            else:
                pa = rng.randrange(0, la - rl + 1)
                region = a[pa:pa + rl]
                m = mutate(rng, region, subst, indel)
                if mode == "rc":
                    m = "".join(COMP[c] for c in reversed(m))
                pb = rng.randrange(0, lb - len(m) + 1)
                b = b[:pb] + m + b[pb + len(m):]
                ha = f"dna{n}_a len={la} planted={pa + 1}-{pa + rl}"
                hb = (f"dna{n}_b len={len(b)} planted={pb + 1}-{pb + len(m)} "
                      f"from_a={pa + 1}-{pa + rl} subst={subst} indel={indel} strand="
                      + ("minus" if mode == "rc" else "plus"))
            for h, s in ((ha, a), (hb, b)):
                f.write(">" + h + "\n")
                for i in range(0, len(s), 60):
                    f.write(s[i:i + 60] + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generates the small genotype data sets of tests/distance.rs and runs plink1.9 on them.

Run from this folder (needs plink1.9: Debian/Ubuntu `apt-get install plink1.9`):

    python3 make_plink.py

Writes, for data set `a` (40 samples x 300 variants, about 6% missing calls, some
monomorphic variants, one sample with half its calls missing) and data set `b`
(20 samples x 100 variants, no missing calls):

    a.ped a.map -> a.bed a.bim a.fam (plink --make-bed), a.tsv (the same genotypes as a
    0/1/2 table, -1 missing, dosage of the ped file's second letter), and
    a_flat.dist/.mibs/.mdist (+ .id): plink1.9 --distance square ibs 1-ibs allele-ct flat-missing
    b.bed b.bim b.fam and b.dist/.mibs/.mdist: plink1.9 --distance square ibs 1-ibs allele-ct
"""
import glob
import os
import random
import subprocess


def make(name, samples, variants, missing, seed, heavy_missing_sample=None):
    rng = random.Random(seed)
    freqs = [0.0 if rng.random() < 0.1 else rng.uniform(0.03, 0.5) for _ in range(variants)]
    geno = []
    for s in range(samples):
        miss = 0.5 if s == heavy_missing_sample else missing
        row = []
        for f in freqs:
            if rng.random() < miss:
                row.append(-1)
            else:
                row.append((rng.random() < f) + (rng.random() < f))
        geno.append(row)
    with open(f"{name}.map", "w") as m:
        for v in range(variants):
            m.write(f"1\tsnp{v + 1}\t0\t{1000 + 10 * v}\n")
    letters = {0: "A A", 1: "A G", 2: "G G", -1: "0 0"}
    with open(f"{name}.ped", "w") as p, open(f"{name}.tsv", "w") as t:
        t.write("sample\t" + "\t".join(f"snp{v + 1}" for v in range(variants)) + "\n")
        for s, row in enumerate(geno):
            p.write(f"fam{s // 4 + 1} ind{s + 1} 0 0 0 -9 " + " ".join(letters[g] for g in row) + "\n")
            t.write(f"ind{s + 1}\t" + "\t".join("NA" if g < 0 else str(g) for g in row) + "\n")
    subprocess.run(["plink1.9", "--file", name, "--make-bed", "--out", name], check=True, stdout=subprocess.DEVNULL)


def distance(name, out, flat):
    cmd = ["plink1.9", "--bfile", name, "--distance", "square", "ibs", "1-ibs", "allele-ct"]
    if flat:
        cmd.append("flat-missing")
    subprocess.run(cmd + ["--out", out], check=True, stdout=subprocess.DEVNULL)


make("a", 40, 300, 0.06, 20260611, heavy_missing_sample=7)
distance("a", "a_flat", True)
make("b", 20, 100, 0.0, 20260612)
distance("b", "b", False)
# Keep only what the tests read.
for f in glob.glob("*.log") + glob.glob("*.nosex") + glob.glob("*.ped") + glob.glob("*.map") + ["b.tsv"]:
    os.remove(f)

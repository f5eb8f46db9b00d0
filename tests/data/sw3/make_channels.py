#!/usr/bin/env python3
"""Writes channels.csv: a small synthetic multichannel series for the sw3 tests.

Five channels, 48 time points, deterministic (no randomness): ch1..ch3 share a
bump-shaped pattern at different offsets with small distinct ripples, ch4 is an
unrelated saw-tooth, ch5 is constant (zero variance, to exercise that handling).
Usage: python3 make_channels.py > channels.csv
"""
import math

N = 48
rows = []
for t in range(N):
    def bump(center):
        return 3.0 * math.exp(-((t - center) / 4.0) ** 2)
    ch1 = bump(14) + 0.20 * math.sin(t * 1.7)
    ch2 = bump(22) + 0.15 * math.sin(t * 2.3 + 1.0)
    ch3 = bump(30) + 0.25 * math.cos(t * 1.1)
    ch4 = (t % 7) / 7.0 - 0.5
    ch5 = 2.5
    rows.append((t, ch1, ch2, ch3, ch4, ch5))
print("time,ch1,ch2,ch3,ch4,ch5".replace("time,", ""))
for r in rows:
    print(",".join(f"{v:.6f}" for v in r[1:]))

#!/usr/bin/env python3
"""gen_power_file.py [-n LINES] [--format watts|time,watts|volts,amps] OUT - a synthetic
power meter file for timing `perfscope energy --power`: LINES samples (default 13.6 M, an
11-minute run at 20 kHz plus some) of a noisy power between about 20 and 60 W that changes
level every 50 ms, written as the meter would (6 decimals; times in seconds at 20 kHz)."""
import argparse
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=13_600_000, help="lines (default 13.6 M)")
    ap.add_argument("--format", default="watts", choices=["watts", "time,watts", "volts,amps"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("out")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    level = 30.0
    with open(a.out, "w") as f:
        chunk = []
        for i in range(a.n):
            if i % 1000 == 0:
                level = rnd.uniform(20, 60)
            w = level + rnd.gauss(0, 0.5)
            if a.format == "watts":
                chunk.append(f"{w:.6f}\n")
            elif a.format == "time,watts":
                chunk.append(f"{i / 20000:.5f},{w:.6f}\n")
            else:
                chunk.append(f"{12 + rnd.gauss(0, 0.01):.5f} {w / 12:.6f}\n")
            if len(chunk) == 65536:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))


if __name__ == "__main__":
    main()

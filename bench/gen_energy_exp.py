#!/usr/bin/env python3
"""gen_energy_exp.py [-e EVENTS] [-s SECONDS] DIR - a synthetic traced experiment for timing
`perfscope energy`: one thread whose run lasts SECONDS (default 680, an 11-minute run) with
EVENTS function enter and exit records (default 80,000): main around everything, and calls of
100 functions of random length, some nested, spread over the run. Written in the stream format
of docs/format.md with the monotonic clock, so ticks are ns; meta.json gets start_ns and
end_ns, so a meter file without a time column starts at the run's start."""
import argparse
import json
import os
import random
import struct

START = 10_000_000_000  # ns on the experiment's clock


def word0(ticks, kind):
    return (ticks << 2) | kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-e", "--events", type=int, default=80_000)
    ap.add_argument("-s", "--seconds", type=float, default=680.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("dir")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    os.makedirs(a.dir)
    end = START + int(a.seconds * 1e9)
    with open(os.path.join(a.dir, "meta.json"), "w") as f:
        json.dump({"version": 1, "created_by": "gen_energy_exp.py", "command": ["synthetic"],
                   "start_ns": START, "end_ns": end}, f)
    with open(os.path.join(a.dir, "proc.100.json"), "w") as f:
        json.dump({"version": 1, "pid": 100, "ppid": 1, "rank": -1, "exe": "/synthetic",
                   "state": "exited", "clock": "monotonic",
                   "calibration": [[str(START), str(START)]], "events": [],
                   "paranoid": 2, "lost_records": 0, "error": ""}, f)
    records = [[word0(START, 2), 4 | (3 << 16), START]]  # clock record: ticks, ns
    calls = (a.events - 2) // 2
    step = (end - START - 2_000_000) // max(calls, 1)
    t = START + 1_000_000
    records.append([word0(t, 0), 0x400000])  # main
    for i in range(calls):
        f = 0x401000 + 16 * rnd.randrange(100)
        b = t + rnd.randrange(1, step // 4 + 2)
        e = b + rnd.randrange(1, step // 2 + 2)
        records += [[word0(b, 0), f], [word0(e, 1), f]]
        t += step
    records.append([word0(end - 500_000, 1), 0x400000])
    records.append([word0(end - 100_000, 2), 7 | (2 << 16) | (1 << 32)])  # end record: exit
    header = struct.pack("<8sIIQIIiIQQII", b"PSCSTRM1", 1, 64, 2, 100, 100, -1, 1, START, START,
                         0, 0)
    with open(os.path.join(a.dir, "stream.100.100"), "wb") as f:
        f.write(header)
        for seq, i in enumerate(range(0, len(records), 1 << 15)):
            part = [w for r in records[i:i + (1 << 15)] for w in r]
            f.write(struct.pack("<IIQ", 0x4B435350, 8 * len(part), seq))
            f.write(struct.pack(f"<{len(part)}Q", *part))


if __name__ == "__main__":
    main()

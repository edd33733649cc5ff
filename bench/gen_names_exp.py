#!/usr/bin/env python3
"""gen_names_exp.py (--regions N | --functions N) [--threads T] DIR - a synthetic experiment
with many names, for timing the lookups by name of `perfscope report`: each of T threads
(default 1) defines, enters and leaves N regions region_0 .. region_N-1 (N at most 65535, the
region ids a stream has), or calls N functions at N addresses (named [unknown]+0x..., as no
maps file places them) once each, in the order of its index on thread 0 and the reverse on the
next. Written in the stream format of docs/format.md with the monotonic clock (ticks are ns).
"""
import argparse
import json
import os
import struct

START = 10_000_000_000


def word0(ticks, kind):
    return (ticks << 2) | kind


def ext(ticks, rtype, arg, payload=()):
    return [word0(ticks, 2), rtype | ((2 + len(payload)) << 16) | (arg << 32), *payload]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--regions", type=int)
    g.add_argument("--functions", type=int)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("dir")
    a = ap.parse_args()
    if a.regions is not None and not 0 < a.regions <= 65535:
        ap.error("--regions N: 1 to 65535")
    os.makedirs(a.dir)
    with open(os.path.join(a.dir, "meta.json"), "w") as f:
        json.dump({"version": 1, "created_by": "gen_names_exp.py", "command": ["synthetic"]}, f)
    with open(os.path.join(a.dir, "proc.100.json"), "w") as f:
        json.dump({"version": 1, "pid": 100, "ppid": 1, "rank": -1, "exe": "/synthetic",
                   "state": "exited", "clock": "monotonic",
                   "calibration": [[str(START), str(START)]], "events": [],
                   "paranoid": 2, "lost_records": 0, "error": ""}, f)
    for th in range(a.threads):
        tid = 100 + th
        t = START + 1000
        words = ext(START, 4, 0, [START])
        n = a.regions if a.regions is not None else a.functions
        for k in range(n):
            i = k if th % 2 == 0 else n - 1 - k
            if a.regions is not None:
                name = f"region_{i}".encode() + b"\0"
                name += b"\0" * (-len(name) % 8)
                words += ext(t, 1, i, struct.unpack(f"<{len(name) // 8}Q", name))
                words += ext(t + 1, 2, i) + ext(t + 2, 3, i)
            else:
                words += [word0(t, 0), 0x400000 + 16 * i, word0(t + 2, 1), 0x400000 + 16 * i]
            t += 3
        words += ext(t, 7, 1)
        header = struct.pack("<8sIIQIIiIQQII", b"PSCSTRM1", 1, 64, 3, 100, tid, -1, 1, START,
                             START, 0, 0)
        with open(os.path.join(a.dir, f"stream.100.{tid}"), "wb") as f:
            f.write(header)
            f.write(struct.pack("<IIQ", 0x4B435350, 8 * len(words), 0))
            f.write(struct.pack(f"<{len(words)}Q", *words))


if __name__ == "__main__":
    main()
